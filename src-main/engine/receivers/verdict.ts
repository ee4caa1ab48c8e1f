/**
 * The signature verdict of a request a test receiver got: for each destination with a webhook URL
 * pointing at the receiver, the request checked with that destination's secret and signing scheme.
 * Pure.
 */
import type { Destination } from '../../../src-shared/settings';
import type { ReceiverSignatureVerdict } from '../../../src-shared/receivers';
import type { SignatureCheck } from '../../../src-shared/api';
import { signerFor } from '../delivery/signers';

/** The receiver path a URL names, or null: /receivers/{name}, or any path below it. */
export function receiverNameOf(pathname: string): string | null {
  const m = /^\/receivers\/([^/?#]+)(?:\/|$)/.exec(pathname);
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/** Whether a webhook URL points at this receiver, as served on one of `ports` (any port when empty). */
export function pointsAt(url: string, receiver: string, ports: readonly number[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (receiverNameOf(parsed.pathname) !== receiver) return false;
  if (ports.length === 0) return true;
  const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return ports.includes(port);
}

/**
 * The one place a receiver checks a signature: whatever schemes the destination's signer knows,
 * the receiver's verdict knows too.
 */
export function checkWithDestination(destination: Pick<Destination, 'signing' | 'sharedSecret'>, body: Uint8Array, headers: Record<string, string>): SignatureCheck {
  return signerFor(destination).check({ body, secret: destination.sharedSecret, sentHeaders: headers });
}

/** Header lines as one map (names lower-cased; repeated names joined with ", " as HTTP allows). */
export function headerMapOf(lines: readonly (readonly [string, string])[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [name, value] of lines) {
    const key = name.toLowerCase();
    map[key] = key in map ? `${map[key]}, ${value}` : value;
  }
  return map;
}

export function signatureVerdicts(input: {
  receiver: string;
  ports: readonly number[];
  body: Uint8Array;
  headers: readonly (readonly [string, string])[];
  destinations: readonly Destination[];
}): ReceiverSignatureVerdict[] {
  const headers = headerMapOf(input.headers);
  const verdicts: ReceiverSignatureVerdict[] = [];
  for (const d of input.destinations) {
    const entry = d.webhooks.find((w) => pointsAt(w.url, input.receiver, input.ports));
    if (!entry) continue;
    verdicts.push({ destination: d.name, url: entry.url, scheme: d.signing, check: checkWithDestination(d, input.body, headers) });
  }
  return verdicts;
}
