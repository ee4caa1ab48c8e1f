/**
 * Finds how a signature a receiver computed was made: over which bytes, with which hash, key and
 * encoding. Each combination a receiver plausibly gets wrong is tried against the pasted value;
 * the first match (fewest mistakes first) says exactly what differs from what was sent. Pure.
 */
import { createHmac } from 'node:crypto';

export type Algorithm = 'sha1' | 'sha256' | 'sha512';
export type Encoding = 'hex' | 'base64' | 'base64url';
/** What was signed: the raw bytes, or a common re-serialisation, each with or without the Standard Webhooks `id.timestamp.` prefix. */
export type Content = 'raw' | 'raw_newline' | 'json_stringify' | 'pretty' | 'python';

export interface KeyChoice {
  /** 'current': the destination's secret; 'other': another destination's; 'whsec': the `whsec_…` string used as the key itself. */
  kind: 'current' | 'other' | 'whsec';
  /** The destination it belongs to, for 'other'. */
  name: string | null;
  key: Buffer;
}

export interface SignatureMatch {
  content: Content;
  /** Whether `id.timestamp.` was signed in front (Standard Webhooks). */
  standard: boolean;
  algorithm: Algorithm;
  encoding: Encoding;
  key: KeyChoice;
}

export interface SearchInput {
  body: Uint8Array;
  keys: KeyChoice[];
  /** The id and timestamp sent, when the attempt carried Standard Webhooks headers. */
  standard: { id: string; timestamp: string } | null;
}

/** Python's json.dumps defaults: ", " and ": " between tokens, every non-ASCII character escaped. */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pythonDumps(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value) ?? 'null';
}

/** The bodies a receiver may have signed instead of the raw bytes; a non-JSON body has only the raw ones. */
export function contentVariants(body: Uint8Array): { content: Content; bytes: Buffer }[] {
  const raw = Buffer.from(body);
  const out: { content: Content; bytes: Buffer }[] = [
    { content: 'raw', bytes: raw },
    { content: 'raw_newline', bytes: Buffer.concat([raw, Buffer.from('\n')]) },
  ];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return out;
  }
  out.push(
    { content: 'json_stringify', bytes: Buffer.from(JSON.stringify(parsed), 'utf8') },
    { content: 'pretty', bytes: Buffer.from(JSON.stringify(parsed, null, 2), 'utf8') },
    { content: 'python', bytes: Buffer.from(pythonDumps(parsed), 'utf8') },
  );
  return out;
}

/** The byte strings the pasted text could stand for, by encoding; a header name or a `sha1=`/`v1,` prefix is dropped. */
export function decodeCandidates(pasted: string): { encoding: Encoding; bytes: Buffer }[] {
  const values = pasted
    .trim()
    .replace(/^(x-signature|webhook-signature)\s*:\s*/i, '')
    .split(/\s+/)
    .map((v) => v.replace(/^(sha1=|sha256=|sha512=|v1,|v1=)/i, ''))
    .filter((v) => v !== '');
  const out: { encoding: Encoding; bytes: Buffer }[] = [];
  for (const v of values) {
    if (/^[0-9a-fA-F]+$/.test(v) && v.length % 2 === 0) out.push({ encoding: 'hex', bytes: Buffer.from(v, 'hex') });
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(v)) out.push({ encoding: 'base64', bytes: Buffer.from(v, 'base64') });
    if (/^[A-Za-z0-9_-]+={0,2}$/.test(v) && /[_-]/.test(v)) out.push({ encoding: 'base64url', bytes: Buffer.from(v, 'base64url') });
  }
  return out.filter((c) => c.bytes.length >= 16);
}

const ALGORITHMS: Algorithm[] = ['sha1', 'sha256', 'sha512'];
const DIGEST_BYTES: Record<Algorithm, number> = { sha1: 20, sha256: 32, sha512: 64 };

/** Every combination that reproduces the pasted signature, in the order tried (closest to correct first). */
export function searchSignature(input: SearchInput, pasted: string): SignatureMatch[] {
  const candidates = decodeCandidates(pasted);
  if (candidates.length === 0) return [];
  const matches: SignatureMatch[] = [];
  const prefixes: { standard: boolean; prefix: Buffer }[] = [{ standard: false, prefix: Buffer.alloc(0) }];
  if (input.standard) prefixes.unshift({ standard: true, prefix: Buffer.from(`${input.standard.id}.${input.standard.timestamp}.`) });
  for (const variant of contentVariants(input.body)) {
    for (const { standard, prefix } of prefixes) {
      for (const key of input.keys) {
        for (const algorithm of ALGORITHMS) {
          const sized = candidates.filter((c) => c.bytes.length === DIGEST_BYTES[algorithm]);
          if (sized.length === 0) continue;
          const digest = createHmac(algorithm, key.key).update(prefix).update(variant.bytes).digest();
          for (const c of sized) if (c.bytes.equals(digest)) matches.push({ content: variant.content, standard, algorithm, encoding: c.encoding, key });
        }
      }
    }
  }
  return matches;
}
