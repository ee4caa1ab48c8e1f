import { useState } from 'react';
import type { AttemptTimingsView, AttemptView } from '../../../src-shared/api';
import { bytesOf, measuredMs, timeOf } from '../../shared/format';
import { durationParts, headerRows, phaseBars, responseSummary } from './detail-logic';
import { AttemptRequest } from './AttemptRequest';
import { AttemptExtras } from './AttemptExtras';

/** The sender stops reading a response here (sender.ts RESPONSE_READ_LIMIT); beyond it the size is a lower bound. */
const READ_LIMIT = 1024 * 1024;

/** What each attempt's own request and its actions need from the delivery. */
export interface AttemptContext {
  deliveryId: number;
  /** The exact bytes every attempt sent. */
  body: string | null;
  destinationName: string | null;
}

/** Every attempt, oldest first: where and when it went, its own request, how long each phase took, and what came back. */
export function AttemptTimeline({ attempts, context }: { attempts: AttemptView[]; context?: AttemptContext }) {
  return (
    <section className="ins-section" aria-label="Attempts">
      <h3>Attempts ({attempts.length})</h3>
      {attempts.length === 0 ? (
        <p className="muted">No attempt yet: the first one starts when the delivery is due.</p>
      ) : (
        <ol className="ins-timeline" data-testid="detail-attempts">
          {attempts.map((a, i) => (
            <Attempt
              key={a.id}
              attempt={a}
              last={i === attempts.length - 1}
              context={context}
              previous={attempts[i - 1]}
              newestForUrl={!attempts.slice(i + 1).some((b) => b.url === a.url)}
            />
          ))}
        </ol>
      )}
    </section>
  );
}

function outcomeOf(a: AttemptView): 'ok' | 'bad' | 'busy' {
  if (a.state === 'in_flight') return 'busy';
  return a.verdict === 'success' ? 'ok' : 'bad';
}

interface AttemptProps {
  attempt: AttemptView;
  last: boolean;
  context: AttemptContext | undefined;
  previous: AttemptView | undefined;
  newestForUrl: boolean;
}

function Attempt({ attempt: a, last, context, previous, newestForUrl }: AttemptProps) {
  // The newest attempt opens with its phases and response shown; older ones stay folded to a line
  // or two, so a long retry life stays readable.
  const [open, setOpen] = useState(last);
  const outcome = outcomeOf(a);
  return (
    <li className={`ins-attempt ins-attempt-${outcome}`} data-testid="attempt" data-attempt-id={a.id}>
      <div className="ins-attempt-line">
        <time dateTime={a.startedAt}>{timeOf(a.startedAt)}</time>
        <span className="muted">round {a.round}</span>
        <span className={`ins-code ins-code-${outcome}`} data-testid="attempt-status">
          {a.httpStatus ?? (a.state === 'in_flight' ? 'in flight' : a.state === 'interrupted' ? 'interrupted' : 'no response')}
        </span>
        {a.verdict && (
          <span className="muted" data-testid="attempt-verdict">
            {a.verdict}
          </span>
        )}
        {a.timings && <Duration timings={a.timings} />}
      </div>
      <div className="mono ins-url" data-testid="attempt-url">
        POST {a.url}
      </div>
      {a.errorKind && (
        <div className="ins-error" data-testid="attempt-error">
          {a.errorKind}: {a.errorText}
        </div>
      )}
      {a.retryAfterMs !== null && (
        <div className="muted" data-testid="attempt-retry-after">
          The receiver asked to retry after {measuredMs(a.retryAfterMs)} (Retry-After).
        </div>
      )}
      {context && <AttemptRequest attempt={a} body={context.body} />}
      {context && <AttemptExtras attempt={a} context={context} previous={previous} newestForUrl={newestForUrl} />}
      <details className="ins-response" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary data-testid="attempt-response-toggle">
          {a.timings ? 'Phases and response' : 'Response'}: {responseSummary(a)}
        </summary>
        {a.timings && <Phases attempt={a} />}
        <Response attempt={a} />
      </details>
    </li>
  );
}

function Duration({ timings }: { timings: AttemptTimingsView }) {
  const { took, queued } = durationParts(timings);
  return (
    <span className="ins-total" data-testid="attempt-duration">
      {took}
      {queued !== null && <span className="muted"> {queued}</span>}
    </span>
  );
}

function Phases({ attempt }: { attempt: AttemptView }) {
  if (!attempt.timings) return null;
  return (
    <div className="ins-phases" data-testid="attempt-phases" role="table" aria-label="Phase durations">
      {phaseBars(attempt.timings).map((p) => (
        <div key={p.phase} className="ins-phase" role="row" data-phase={p.phase}>
          <span role="rowheader" className="ins-phase-name">
            {p.label}
          </span>
          <span role="cell" className="ins-phase-track" aria-hidden="true">
            {p.ms !== null && <span className={`ins-phase-bar ins-phase-${p.phase}`} style={{ left: `${p.left * 100}%`, width: `max(2px, ${p.width * 100}%)` }} />}
          </span>
          <span role="cell" className="ins-phase-ms" data-testid={`phase-${p.phase}`}>
            {p.ms === null ? '—' : measuredMs(p.ms)}
          </span>
        </div>
      ))}
    </div>
  );
}

function Response({ attempt: a }: { attempt: AttemptView }) {
  if (a.state === 'in_flight') return <p className="muted">Waiting for the receiver to answer.</p>;
  if (a.httpStatus === null) return <p className="muted">No response arrived{a.errorKind ? ` (${a.errorKind})` : ''}.</p>;
  const rows = headerRows(a.responseHeaders ?? {});
  const bytes = a.responseBytes ?? 0;
  return (
    <div className="ins-response-body">
      <h4 className="ins-sub">Response headers</h4>
      {rows.length === 0 ? (
        <p className="muted">No response headers.</p>
      ) : (
        <table className="headers" data-testid="attempt-response-headers">
          <tbody>
            {rows.map(([name, value], i) => (
              <tr key={`${name}-${i}`}>
                <th scope="row">{name}</th>
                <td className="mono">{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4 className="ins-sub">Response body</h4>
      {a.responseTruncated && (
        <p className="notice warn ins-note" data-testid="attempt-response-truncated">
          Truncated at 64 KB: the receiver sent {bytes >= READ_LIMIT ? 'at least ' : ''}{bytes.toLocaleString('en')} bytes ({bytesOf(bytes)}); the first 65,536 are kept and shown.
        </p>
      )}
      {bytes === 0 ? (
        <p className="muted" data-testid="attempt-response-body">
          Empty body.
        </p>
      ) : (
        <pre className="code ins-response-pre" data-testid="attempt-response-body">
          {a.responseBody}
        </pre>
      )}
    </div>
  );
}
