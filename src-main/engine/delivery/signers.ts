/**
 * How a destination's requests are signed, one Signer per scheme. The scheduler asks the
 * destination's signer for the headers of each request; the detail view asks it to check what
 * was sent. A new scheme is a module implementing Signer, one entry in SIGNERS, and its name,
 * label and headers in SIGNING_SCHEMES (src-shared/settings.ts), which validation, the reserved
 * header names and the destination's stored `signing` already read.
 *
 * A receiver, which does not know the destination's scheme, checks a request it got with
 * verifyReceived: every signature family the headers carry is verified.
 */
import type { SchemeCheck, SignatureCheck } from '../../../src-shared/api';
import type { Destination, SigningScheme } from '../../../src-shared/settings';
import { verifyXSignatureReceived, xSignature } from './signature';
import { checkStandard, signStandard, verifyStandardReceived } from './standard-webhooks';

export interface SignInput {
  /** The exact bytes sent. */
  body: Uint8Array;
  /** The destination's shared secret: never empty here (an empty one signs nothing). */
  secret: string;
  /** The same for every attempt of a delivery, so a receiver can tell a retry from a new event. */
  deliveryId: number;
  /** Clock time (ms) the attempt's round started. */
  at: number;
}

export interface SignatureInput {
  /** The stored body: exactly the bytes signed and sent. */
  body: Uint8Array | null;
  /** The destination's shared secret now; null when it has none (or is gone). */
  secret: string | null;
  /** Request headers of the last attempt, as sent; null before any attempt. */
  sentHeaders: Record<string, string> | null;
}

export interface Signer {
  readonly scheme: SigningScheme;
  /** The headers that sign one request. Pure. */
  sign(input: SignInput): Record<string, string>;
  /** Whether the headers sent match the stored bytes and the secret now, in words a person can act on. Pure. */
  check(input: SignatureInput): SignatureCheck;
}

/** A request as a receiver got it. */
export interface ReceivedInput {
  /** As received; names in any case, Node's array values joined. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes, before any parsing. */
  body: Uint8Array;
  /** The secret the receiver was given (the destination's shared secret, not its `whsec_` form). */
  secret: string;
  /** The receiver's clock (ms), for the timestamp window of Standard Webhooks. */
  now: number;
}

/** A received request with its header values as single strings, as each scheme's verifier reads it. */
export type ReceivedFlat = Omit<ReceivedInput, 'headers'> & { headers: Record<string, string> };

export interface ReceivedVerdict {
  scheme: SchemeCheck['scheme'];
  /** The header whose signature was checked. */
  header: string;
  ok: boolean;
  /** Why, in words: which header is missing, how old the timestamp is, or that it matches. */
  reason: string;
}

const STATE_RANK: Record<SignatureCheck['state'], number> = { valid: 0, not_sent: 1, no_secret: 2, mismatch: 3 };

function asPart(check: SignatureCheck): SchemeCheck {
  return { scheme: 'x-signature', header: 'X-Signature', state: check.state, expected: check.expected, sent: check.sent, explanation: check.explanation };
}

/** X-Signature and Standard Webhooks together: both sets of headers, and a check that is only valid when both are. */
export const xSignatureAndStandard: Signer = {
  scheme: 'x-signature+standard-webhooks',
  sign: (input) => ({ ...xSignature.sign(input), ...signStandard(input) }),
  check: (input) => {
    const x = xSignature.check(input);
    const parts = [asPart(x), checkStandard(input)];
    const worst = parts.reduce((a, b) => (STATE_RANK[b.state] > STATE_RANK[a.state] ? b : a));
    const explanation =
      worst.state === 'valid'
        ? 'both signatures match the stored body and the current shared secret (X-Signature: HMAC-SHA1; webhook-signature: HMAC-SHA256 over id.timestamp.body)'
        : `${worst.header}: ${worst.explanation}`;
    return { state: worst.state, expected: x.expected, sent: x.sent, explanation, parts };
  },
};

const SIGNERS: { readonly [S in SigningScheme]: Signer } = {
  'x-signature': xSignature,
  'x-signature+standard-webhooks': xSignatureAndStandard,
};

/** The signer of a destination; the default scheme for one without a choice (or gone). */
export function signerFor(destination: Pick<Destination, 'signing'> | undefined): Signer {
  return SIGNERS[destination?.signing ?? 'x-signature'] ?? xSignature;
}

/** The signature headers of one request: none without a secret, or with an empty one (anyone could compute it). */
export function signatureHeaders(signer: Signer, secret: string | null, input: Omit<SignInput, 'secret'>): Record<string, string> {
  return secret ? signer.sign({ ...input, secret }) : {};
}

/**
 * Verifies the signatures a received request carries, over its raw bytes, with this secret: one
 * verdict per scheme whose headers are present (X-Signature first); none when it is unsigned.
 * Constant-time comparisons; the Standard Webhooks timestamp must be within 5 minutes of `now`.
 */
export function verifyReceived(input: ReceivedInput): ReceivedVerdict[] {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const flat = { ...input, headers };
  return [verifyXSignatureReceived(flat), verifyStandardReceived(flat)].filter((v): v is ReceivedVerdict => v !== null);
}
