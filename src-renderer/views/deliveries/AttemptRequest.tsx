import type { AttemptView } from '../../../src-shared/api';
import { CurlCommand } from '../../shared/CurlCommand';
import { missingHeadersWords } from './attempt-words';

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
