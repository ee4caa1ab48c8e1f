/**
 * How a destination's requests are signed, one Signer per scheme. The scheduler asks the
 * destination's signer for the headers of each request; the detail view asks it to check what
 * was sent. A new scheme is a module implementing Signer, one entry in SIGNERS, and its name,
 * label and headers in SIGNING_SCHEMES (src-shared/settings.ts), which validation, the reserved
 * header names and the destination's stored `signing` already read.
 */
import type { SignatureCheck } from '../../../src-shared/api';
import type { Destination, SigningScheme } from '../../../src-shared/settings';
import { xSignature } from './signature';

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

const SIGNERS: { readonly [S in SigningScheme]: Signer } = {
  'x-signature': xSignature,
};

/** The signer of a destination; the default scheme for one without a choice (or gone). */
export function signerFor(destination: Pick<Destination, 'signing'> | undefined): Signer {
  return SIGNERS[destination?.signing ?? 'x-signature'] ?? xSignature;
}

/** The signature headers of one request: none without a secret, or with an empty one (anyone could compute it). */
export function signatureHeaders(signer: Signer, secret: string | null, input: Omit<SignInput, 'secret'>): Record<string, string> {
  return secret ? signer.sign({ ...input, secret }) : {};
}
