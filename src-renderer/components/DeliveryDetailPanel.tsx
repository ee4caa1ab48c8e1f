import type { AttemptView, DeliveryDetail } from '../../src-shared/api';
import { useDeliveries } from './context';
import { StatusPill } from './DeliveryList';
import { prettyJson, timeOf } from './format';
import { CurlCommand } from './CurlCommand';
import { ReplayControls } from './ReplayControls';

export function DeliveryDetailPanel() {
  const selectedId = useDeliveries((s) => s.selectedId);
  const detail = useDeliveries((s) => s.detail);
  const select = useDeliveries((s) => s.select);
  if (selectedId === null) return null;
  return (
    <aside className="detail" data-testid="delivery-detail" aria-label="Delivery detail">
      <div className="detail-head">
        <h2>Delivery #{selectedId}</h2>
        <button type="button" onClick={() => select(null)} aria-label="Close detail">
          ×
        </button>
      </div>
      {detail && detail.id === selectedId ? <DetailBody detail={detail} /> : <p className="muted">Loading…</p>}
    </aside>
  );
}

function DetailBody({ detail }: { detail: DeliveryDetail }) {
  const lastAttempt = detail.attempts[detail.attempts.length - 1];
  return (
    <>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <StatusPill status={detail.status} />
        </dd>
        <dt>Type</dt>
        <dd>{detail.type}</dd>
        <dt>Message</dt>
        <dd className="mono">{detail.messageId ?? '—'}</dd>
        {detail.nextAttemptAt && (
          <>
            <dt>Next attempt</dt>
            <dd>{timeOf(detail.nextAttemptAt)}</dd>
          </>
        )}
      </dl>
      <ReplayControls detail={detail} />
      <h3>Body</h3>
      <pre className="code" data-testid="detail-body">
        {detail.body === null ? '(not mapped yet)' : prettyJson(detail.body)}
      </pre>
      <h3>Request headers</h3>
      {lastAttempt ? <Headers headers={lastAttempt.requestHeaders} /> : <p className="muted">No attempt yet.</p>}
      {lastAttempt && detail.body !== null && <CurlCommand attempt={lastAttempt} body={detail.body} />}
      <h3>Attempts</h3>
      <Attempts attempts={detail.attempts} />
    </>
  );
}

function Headers({ headers }: { headers: Record<string, string> }) {
  return (
    <table className="headers" data-testid="detail-headers">
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name} data-testid={`header-${name.toLowerCase()}`}>
            <th scope="row">{name}</th>
            <td className="mono" data-testid={name.toLowerCase() === 'x-signature' ? 'detail-signature' : undefined}>
              {value}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Attempts({ attempts }: { attempts: AttemptView[] }) {
  if (attempts.length === 0) return <p className="muted">No attempt yet.</p>;
  return (
    <ol className="attempts" data-testid="detail-attempts">
      {attempts.map((a) => (
        <li key={a.id} data-testid="attempt" className={a.errorKind ? 'attempt failed' : 'attempt'}>
          <div className="attempt-line">
            <time dateTime={a.startedAt}>{timeOf(a.startedAt)}</time>
            <span className="mono">round {a.round}</span>
            <span data-testid="attempt-status">{a.httpStatus ?? (a.state === 'in_flight' ? 'in flight' : a.state)}</span>
            {a.timings && <span data-testid="attempt-duration">{Math.round(a.timings.totalMs)} ms</span>}
          </div>
          <div className="mono url">{a.url}</div>
          {a.errorKind && (
            <div className="error" data-testid="attempt-error">
              {a.errorKind}: {a.errorText}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}
