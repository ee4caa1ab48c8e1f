/**
 * A delivery as a cURL command that reproduces it exactly: the same URL, headers (X-Signature
 * included) and body bytes. Pure, so the UI and the tests share it.
 */

/** POSIX shell single-quoting: every byte survives, including quotes and newlines. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(request: { url: string; headers: Record<string, string>; body: string }): string {
  const lines = [`curl -X POST ${shellQuote(request.url)}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  // curl adds `Accept: */*` on its own; the engine never sends it, so an exact copy removes it.
  if (!Object.keys(request.headers).some((name) => name.toLowerCase() === 'accept')) lines.push(`  -H 'Accept:'`);
  lines.push(`  --data-binary ${shellQuote(request.body)}`);
  return lines.join(' \\\n');
}
