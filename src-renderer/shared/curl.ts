/**
 * A delivery as a cURL command that reproduces it exactly: the same URL, headers (X-Signature
 * included) and body bytes. Pure, so the UI and the tests share it.
 */

/** POSIX shell single-quoting: every byte survives, including quotes and newlines. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Headers as a record (what the engine gave the request) or as the list written on the wire, in
 * order. With the wire list, curl's Host, Connection and Content-Length are replaced by the ones
 * that were sent, so the receiver sees the same header lines.
 */
export function curlCommand(request: { url: string; headers: Record<string, string> | readonly (readonly [string, string])[]; body: string }): string {
  const pairs = Array.isArray(request.headers) ? (request.headers as readonly (readonly [string, string])[]) : Object.entries(request.headers);
  const has = (name: string): boolean => pairs.some(([n]) => n.toLowerCase() === name);
  const lines = [`curl -X POST ${shellQuote(request.url)}`];
  for (const [name, value] of pairs) lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  // curl adds `Accept: */*` on its own, and `Expect: 100-continue` before a large body; the engine
  // sends neither, so an exact copy removes them.
  if (!has('accept')) lines.push(`  -H 'Accept:'`);
  if (!has('expect')) lines.push(`  -H 'Expect:'`);
  lines.push(`  --data-binary ${shellQuote(request.body)}`);
  return lines.join(' \\\n');
}
