/** A receiver request's answer and signature verdicts in words and badge tones. Pure. */
import type { SignatureCheck } from '../../../src-shared/api';
import type { ReceiverPer, ReceiverRequestSummary, ReceiverSignatureVerdict, ReceiverView } from '../../../src-shared/receivers';

export function outcomeInWords(r: Pick<ReceiverRequestSummary, 'outcome' | 'status'>): string {
  switch (r.outcome) {
    case 'answered':
      return String(r.status);
    case 'pending':
      return 'answering…';
    case 'hung':
      return 'hung until the sender gave up';
    case 'reset':
      return 'connection reset';
    case 'client_gone':
      return 'sender left before the answer';
  }
}

/** A tone of the status badge (the delivery statuses' colours). */
export function outcomeTone(r: Pick<ReceiverRequestSummary, 'outcome' | 'status'>): string {
  if (r.outcome === 'pending') return 'in_flight';
  if (r.outcome !== 'answered' || r.status === null) return 'failed';
  if (r.status >= 200 && r.status < 300) return 'succeeded';
  return r.status === 429 || r.status >= 500 ? 'retrying' : 'failed';
}

export function verdictInWords(state: SignatureCheck['state']): string {
  return { valid: 'signature valid', mismatch: 'signature mismatch', no_secret: 'no secret', not_sent: 'not signed' }[state];
}

export function verdictTone(state: SignatureCheck['state']): string {
  return state === 'valid' ? 'succeeded' : state === 'mismatch' ? 'failed' : 'pending';
}

/** Why, for the receiver's own request rather than a stored delivery. */
export function verdictExplanation(v: ReceiverSignatureVerdict): string {
  const who = `destination “${v.destination}”`;
  switch (v.check.state) {
    case 'valid':
      return `the signature matches the received bytes signed with the shared secret of ${who}`;
    case 'no_secret':
      return `${who} has no shared secret, so there is nothing to check`;
    case 'not_sent':
      return 'nothing to check';
    case 'mismatch':
      return v.check.sent === null
        ? `the request carries no signature, but ${who} has a shared secret: it was not sent by that destination, or was sent before the secret was set`
        : `the signature is not what the shared secret of ${who} makes of the received bytes: the secret changed since sending, or another sender signed it`;
  }
}

/** The message a request carried and its try, e.g. "m-123 · try 2"; null when it carried none. */
export function messageInWords(r: Pick<ReceiverRequestSummary, 'messageKey' | 'messageTry'>): string | null {
  if (r.messageKey === null) return null;
  return r.messageTry === null ? r.messageKey : `${r.messageKey} · try ${r.messageTry}`;
}

/** What a script counts, in a few words. */
export function perInWords(per: ReceiverPer): string {
  return per === 'message' ? 'per message' : 'per receiver';
}

/** Where the script stands, for the receiver's head line. */
export function positionInWords(r: Pick<ReceiverView, 'per' | 'nextStep' | 'sinceReset'>, nextStepWords: string): string {
  const since = `${r.sinceReset} request${r.sinceReset === 1 ? '' : 's'} since the last reset`;
  if (r.per === 'message') return `each message starts at step 1; a request without a message key gets step ${r.nextStep + 1} (${nextStepWords}); ${since}`;
  return `next request gets step ${r.nextStep + 1} (${nextStepWords}); ${since}`;
}
