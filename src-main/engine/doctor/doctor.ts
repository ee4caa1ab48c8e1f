/**
 * The signature doctor: given a delivery's signed bytes, the headers sent and the secrets this
 * Hookbench knows, it says how what a receiver computed (a signature) or parsed (a body) differs
 * from what was sent, in words a person can act on. Pure: the API hands it the rows.
 */
import type { DoctorFinding, DoctorReport } from '../../../src-shared/api';
import { standardWebhooksSecret } from '../../../src-shared/signing';
import { headerValue } from '../delivery/signature';
import { diagnoseBody, type BodyFinding } from './body-diff';
import { searchSignature, type Content, type KeyChoice, type SignatureMatch } from './signature-search';

export const MAX_PASTED_CHARS = 1_000_000;

export interface DoctorCase {
  /** The bytes that were signed and sent. */
  body: Uint8Array;
  /** The destination's secret now; null without one. */
  secret: string | null;
  /** The last attempt's request headers; null before any attempt. */
  sentHeaders: Record<string, string> | null;
  /** The other destinations' secrets, so a mix-up between them can be named. */
  otherSecrets: { name: string; secret: string }[];
}

const SEGMENT_EXAMPLE =
  "Segment's documented example computes the HMAC over JSON.stringify(req.body), that is over the parsed body written out again; " +
  'on this body that gives different bytes, so it fails. Sign the raw bytes the request carried instead.';

const BODY_WORDS: Record<BodyFinding['code'], { title: string; detail: string }> = {
  identical: { title: 'Same bytes', detail: 'The pasted body is byte for byte the body that was signed: an HMAC over it with the right secret matches.' },
  not_json: { title: 'Not the same text and not comparable as JSON', detail: 'One of the two is not JSON, so they cannot be compared value by value.' },
  values_differ: { title: 'Different values', detail: 'The parsed body holds other values than the ones sent (a missing or extra key, a changed value, or a number that lost precision).' },
  key_order: { title: 'Keys in another order', detail: 'The same keys written in a different order: a serializer that sorts keys or builds a new object changes the bytes.' },
  whitespace: { title: 'Different whitespace', detail: 'Spaces or newlines between tokens differ: Hookbench writes compact JSON without any (an edited replay keeps them as typed); pretty-printing or a serializer with ", " and ": " adds them.' },
  unicode_escapes: { title: 'Unicode written differently', detail: 'A character is written as a \\u escape on one side and as itself (UTF-8) on the other, e.g. "\\u00e9" against "é".' },
  escaped_slashes: { title: 'Escaped slashes', detail: 'One side writes "/" as "\\/" (PHP\'s json_encode does by default); the bytes differ though the value is the same.' },
  string_escapes: { title: 'Strings escaped differently', detail: 'The same string is spelled with other escapes (e.g. upper- against lowercase hex in \\u escapes).' },
  number_format: { title: 'Numbers formatted differently', detail: 'The same number spelled another way, e.g. 1.0 against 1 or 1e3 against 1000: parsing keeps the value, not its spelling.' },
  trailing_newline: { title: 'A trailing newline', detail: 'One side ends with a newline and the other does not; the newline is part of the signed bytes.' },
  json_stringify: { title: 'This is JSON.stringify of the parsed body', detail: SEGMENT_EXAMPLE },
};

const CONTENT_WORDS: Record<Exclude<Content, 'raw'>, { code: string; title: string; detail: string }> = {
  raw_newline: { code: 'trailing_newline', title: 'A trailing newline', detail: 'It was computed over the body with a newline added at the end.' },
  json_stringify: { code: 'reserialised', title: 'Computed over a re-serialised body', detail: `It was computed over JSON.stringify of the parsed body, not the raw bytes. ${SEGMENT_EXAMPLE}` },
  pretty: { code: 'reserialised', title: 'Computed over a pretty-printed body', detail: 'It was computed over the body written out again with indentation, not over the raw bytes.' },
  python: {
    code: 'reserialised',
    title: "Computed over Python's json.dumps of the body",
    detail: 'It was computed over json.dumps(parsed): ", " and ": " separators and non-ASCII escaped as \\u. Sign request.get_data() (the raw bytes) instead.',
  },
};

const ALG_NAME = { sha1: 'HMAC-SHA1', sha256: 'HMAC-SHA256', sha512: 'HMAC-SHA512' } as const;

interface Reference {
  standard: boolean;
  algorithm: SignatureMatch['algorithm'];
  encoding: SignatureMatch['encoding'];
  header: string;
}
const X_REFERENCE: Reference = { standard: false, algorithm: 'sha1', encoding: 'hex', header: 'X-Signature' };
const STANDARD_REFERENCE: Reference = { standard: true, algorithm: 'sha256', encoding: 'base64', header: 'webhook-signature' };

const finding = (code: string, title: string, detail: string, examples: DoctorFinding['examples'] = []): DoctorFinding => ({ code, title, detail, examples });

/** What a match got wrong against the scheme it was aiming at. */
function mistakesOf(m: SignatureMatch): DoctorFinding[] {
  const ref = m.standard ? STANDARD_REFERENCE : X_REFERENCE;
  const out: DoctorFinding[] = [];
  if (m.content !== 'raw') {
    const w = CONTENT_WORDS[m.content];
    out.push(finding(w.code, w.title, w.detail));
  }
  if (m.algorithm !== ref.algorithm) {
    out.push(finding('algorithm', `${ALG_NAME[m.algorithm]} instead of ${ALG_NAME[ref.algorithm]}`, `${ref.header} is ${ALG_NAME[ref.algorithm]}; this was computed with ${ALG_NAME[m.algorithm]}.`));
  }
  if (m.encoding !== ref.encoding) {
    out.push(
      finding(
        'encoding',
        `${m.encoding} instead of ${ref.encoding}`,
        `The digest is right but written in ${m.encoding}; ${ref.header} carries it in ${ref.encoding === 'hex' ? 'lowercase hex' : 'base64'}. Compare decoded bytes, or encode the same way.`,
      ),
    );
  }
  if (m.key.kind === 'other') {
    out.push(finding('wrong_secret', `The secret of destination "${m.key.name}"`, `It was keyed with the shared secret of another destination, "${m.key.name}", not this one's.`));
  } else if (m.key.kind === 'whsec') {
    out.push(
      finding(
        'whsec_as_key',
        'Keyed with the whsec_ string itself',
        'The key was the text "whsec_…". That form is for Standard Webhooks libraries, which decode it; an HMAC by hand takes the shared secret itself.',
      ),
    );
  }
  return out;
}

function sentStandard(headers: Record<string, string> | null): { id: string; timestamp: string } | null {
  if (!headers) return null;
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  return id !== null && timestamp !== null ? { id, timestamp } : null;
}

function diagnoseSignatureText(c: DoctorCase, pasted: string): DoctorReport {
  if (c.secret === null) {
    return { read: 'signature', verdict: 'unknown', summary: 'This destination has no shared secret, so nothing was signed.', findings: [] };
  }
  const keys: KeyChoice[] = [
    { kind: 'current', name: null, key: Buffer.from(c.secret, 'utf8') },
    ...c.otherSecrets.filter((o) => o.secret !== c.secret).map((o): KeyChoice => ({ kind: 'other', name: o.name, key: Buffer.from(o.secret, 'utf8') })),
    { kind: 'whsec', name: null, key: Buffer.from(standardWebhooksSecret(c.secret), 'utf8') },
  ];
  const matches = searchSignature({ body: c.body, keys, standard: sentStandard(c.sentHeaders) }, pasted);
  if (matches.length === 0) {
    return {
      read: 'signature',
      verdict: 'unknown',
      summary: 'Nothing Hookbench tried reproduces this signature.',
      findings: [
        finding(
          'no_match',
          'No match with any secret Hookbench knows',
          'Tried the raw body, with a trailing newline, JSON.stringify of it, pretty-printed and Python json.dumps; HMAC-SHA1, SHA-256 and SHA-512; hex and base64; ' +
            "this destination's secret, every other destination's, and the whsec_ string. The receiver likely uses a secret none of your destinations has, " +
            'or signs a body whose values differ: paste the body it parsed to see how.',
        ),
      ],
    };
  }
  const best = matches.map((m) => ({ m, mistakes: mistakesOf(m) })).sort((a, b) => a.mistakes.length - b.mistakes.length)[0] as { m: SignatureMatch; mistakes: DoctorFinding[] };
  const header = best.m.standard ? 'webhook-signature' : 'X-Signature';
  if (best.mistakes.length === 0) {
    return {
      read: 'signature',
      verdict: 'ok',
      summary: `This is the correct ${header}: the receiver computes it right. If it still refuses, look at how it compares (decode both, constant-time) and which header it reads.`,
      findings: [],
    };
  }
  return {
    read: 'signature',
    verdict: 'differs',
    summary: `Reproduced: it is ${header} computed with ${best.mistakes.length === 1 ? 'one difference' : `${best.mistakes.length} differences`}.`,
    findings: best.mistakes,
  };
}

function diagnoseBodyText(c: DoctorCase, pasted: string): DoctorReport {
  const signed = Buffer.from(c.body).toString('utf8');
  const found = diagnoseBody(signed, pasted);
  const findings = found.map((f) => finding(f.code, BODY_WORDS[f.code].title, BODY_WORDS[f.code].detail, f.examples));
  if (found[0]?.code === 'identical') return { read: 'body', verdict: 'ok', summary: BODY_WORDS.identical.detail, findings: [] };
  const lexical = found.filter((f) => f.code !== 'values_differ' && f.code !== 'not_json' && f.code !== 'json_stringify');
  const summary = found.some((f) => f.code === 'values_differ' || f.code === 'not_json')
    ? 'The pasted body is not the same data as the body sent.'
    : `Same data, different bytes: a re-serialised body (${lexical.map((f) => BODY_WORDS[f.code].title.toLowerCase()).join('; ')}). An HMAC over it cannot match; sign the raw bytes.`;
  return { read: 'body', verdict: 'differs', summary, findings };
}

/** Reads text starting with `{` or `[` (after whitespace) as a body, anything else as a signature. */
export function looksLikeBody(pasted: string): boolean {
  return /^\s*[[{]/.test(pasted);
}

export function diagnose(c: DoctorCase, pasted: string, as: 'auto' | 'signature' | 'body' = 'auto'): DoctorReport {
  const asBody = as === 'body' || (as === 'auto' && looksLikeBody(pasted));
  return asBody ? diagnoseBodyText(c, pasted) : diagnoseSignatureText(c, pasted);
}
