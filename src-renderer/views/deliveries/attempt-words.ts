/** Words about one attempt's own request. Pure. */
import type { AttemptView } from '../../../src-shared/api';

/** Why an attempt has no wire headers, in words. */
export function missingHeadersWords(a: AttemptView): string {
  if (a.state === 'in_flight') return 'The headers as sent are kept when the attempt ends.';
  if (a.state === 'interrupted') return 'Interrupted before its result was written: the headers as sent were not kept.';
  if (a.errorKind === 'connect' || a.errorKind === 'dns' || a.errorKind === 'tls' || (a.httpStatus === null && a.errorKind === 'other')) {
    return `No request was written (${a.errorKind}): these are the headers it would have sent.`;
  }
  return 'Recorded before Hookbench kept each attempt’s headers as sent: these are the headers the engine gave it.';
}
