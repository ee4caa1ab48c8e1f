import type { AttemptView } from '../../../src-shared/api';
import { CurlCommand } from '../../shared/CurlCommand';

/** Why an attempt has no wire headers, in words. */
export function missingHeadersWords(a: AttemptView): string {
  if (a.state === 'in_flight') return 'The headers as sent are kept when the attempt ends.';
  if (a.state === 'interrupted') return 'Interrupted before its result was written: the headers as sent were not kept.';
  if (a.errorKind === 'connect' || a.errorKind === 'dns' || a.errorKind === 'tls' || (a.httpStatus === null && a.errorKind === 'other')) {
    return `No request was written (${a.errorKind}): these are the headers it would have sent.`;
  }
  return 'Recorded before Hookbench kept each attempt’s headers as sent: these are the headers the engine gave it.';
}

/** One attempt's own request: the headers it wrote, in order, and Copy as cURL for exactly that request. */
export function AttemptRequest({ attempt: a, body }: { attempt: AttemptView; body: string | null }) {
  const sent = a.sentHeaders;
  const rows: [string, string][] = sent ?? Object.entries(a.requestHeaders);
  return (
    <details className="ins-response" data-testid="attempt-request">
      <summary data-testid="attempt-request-toggle">
        Request: {rows.length} headers{sent ? ' as sent' : ''}
      </summary>
      {!sent && (
        <p className="muted ins-note" data-testid="attempt-headers-missing">
          {missingHeadersWords(a)}
        </p>
      )}
      <table className="headers" data-testid="attempt-request-headers" data-source={sent ? 'wire' : 'engine'}>
        <tbody>
          {rows.map(([name, value], i) => (
            <tr key={`${name}-${i}`}>
              <th scope="row">{name}</th>
              <td className="mono">{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {body !== null && <CurlCommand attempt={a} body={body} testId="attempt-copy-curl" commandTestId="attempt-curl-command" />}
    </details>
  );
}
