import { useEffect } from 'react';
import type { InboundMessageView, InboundRequest } from '../../../src-shared/api';
import type { IngestWarning } from '../../../src-shared/events';
import type { Violation } from '../../../src-shared/assertions';
import { snippetsFor } from '../configure/snippets';
import { bytesOf, prettyJson, timeOf } from '../../shared/format';
import { Badge } from '../../shared/Badge';
import { sourceNameOf } from './source-names';
import { useDeliveries, useFollowWhileShown, useInbound } from '../../app/view-stores';
import { EmptyState } from '../../shared/EmptyState';
import { isTypingTarget } from '../../shared/keys';

export function InboundView() {
  useFollowWhileShown('inbound');
  const loaded = useInbound((s) => s.loaded);
  const empty = useInbound((s) => s.rows.length === 0);
  return (
    <section className="view inbound" data-testid="inbound-view" aria-busy={!loaded}>
      {loaded && empty && <InboundEmpty />}
      {loaded && !empty && (
        <div className="inbound-panes">
          <RequestList />
          <RequestDetail />
        </div>
      )}
    </section>
  );
}

function InboundEmpty() {
  const source = useInbound((s) => s.sources[0] ?? null);
  const ingest = useInbound((s) => s.environment?.ingestUrl ?? null);
  return (
    <EmptyState title="No calls received yet" testId="inbound-empty">
      {source ? (
        <p>
          Every call to the Tracking API appears here as received, accepted or refused. Point an SDK at the address below with the write key
          of source “{source.name}”, or send a first call with curl:
        </p>
      ) : (
        <p>
          Every call to the Tracking API appears here as received. First create a source under <a href="#/configure">Configure</a>; then
          send a call with its write key, for example:
        </p>
      )}
      <pre className="code" data-testid="inbound-empty-snippet">
        {snippetsFor(ingest, source?.writeKey ?? 'YOUR_WRITE_KEY').curl}
      </pre>
    </EmptyState>
  );
}

function RequestList() {
  const rows = useInbound((s) => s.rows);
  const more = useInbound((s) => s.nextBeforeId !== null);
  const loadingMore = useInbound((s) => s.loadingMore);
  const loadMore = useInbound((s) => s.loadMore);
  const move = useInbound((s) => s.move);
  // On the window, as in Deliveries: the keys work as soon as the view is shown, without a click first.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (isTypingTarget({ targetTag: target?.tagName, targetEditable: target?.isContentEditable })) return;
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move]);
  return (
    <div className="inbound-list">
      <table className="data-table selectable nowrap" data-testid="inbound-requests">
        <thead>
          <tr>
            <th>Time</th>
            <th>Path</th>
            <th>Source</th>
            <th>HTTP</th>
            <th>Bytes</th>
            <th title="items / accepted / dropped / duplicates">Items</th>
            <th>Accepted</th>
            <th>Dropped</th>
            <th>Duplicates</th>
            <th>User agent</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <RequestRow key={r.id} row={r} />
          ))}
        </tbody>
      </table>
      <div className="inbound-more">
        {more ? (
          <button type="button" className="btn" disabled={loadingMore} onClick={() => void loadMore()} data-testid="inbound-load-more">
            {loadingMore ? 'Loading…' : 'Load older calls'}
          </button>
        ) : (
          <span className="muted" data-testid="inbound-end">
            That is every call received.
          </span>
        )}
      </div>
    </div>
  );
}

function RequestRow({ row }: { row: InboundRequest }) {
  const selected = useInbound((s) => s.selectedId === row.id);
  const select = useInbound((s) => s.select);
  const source = useInbound((s) => sourceNameOf(row.sourceId, s.sources));
  // An unknown write key is answered 200 (so SDKs do not retry) yet refused: the code says so.
  const refused = row.httpStatus >= 400 || row.errorCode !== null;
  return (
    <>
      <tr
        className={[selected ? 'selected' : '', refused ? 'refused' : ''].join(' ').trim() || undefined}
        data-testid="inbound-row"
        data-id={row.id}
        tabIndex={0}
        aria-selected={selected}
        ref={(el) => {
          if (selected && el && document.activeElement?.closest('.inbound-list')) el.focus();
        }}
        onClick={() => select(row.id)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            select(row.id);
          }
        }}
      >
        <td>
          <time dateTime={row.receivedAt}>{timeOf(row.receivedAt)}</time>
        </td>
        <td className="mono" data-testid="inbound-path">
          {row.path}
        </td>
        <td data-testid="inbound-source">{source}</td>
        <td>
          <Badge
            tone={refused ? 'failed' : 'succeeded'}
            testId="inbound-status"
            title={refused ? 'Refused: nothing of this call was accepted (see the reason in its detail).' : 'Answered with success: its accepted items are in the log.'}
          >
            {row.httpStatus}
          </Badge>
        </td>
        <td>{bytesOf(row.bytes)}</td>
        <td data-testid="inbound-items">{row.items}</td>
        <td data-testid="inbound-accepted">{row.accepted}</td>
        <td data-testid="inbound-dropped" className={row.dropped > 0 ? 'warn' : undefined}>
          {row.dropped}
        </td>
        <td data-testid="inbound-duplicates" className={row.duplicates > 0 ? 'warn' : undefined}>
          {row.duplicates}
        </td>
        <td className="inbound-ua" title={row.userAgent ?? undefined}>
          {row.userAgent ?? '—'}
        </td>
      </tr>
      {(row.errorCode || row.errorText) && (
        <tr className="inbound-error-row" data-testid="inbound-refusal" onClick={() => select(row.id)}>
          <td />
          <td colSpan={9}>
            <span className="mono">{row.errorCode}</span> {row.errorText}
          </td>
        </tr>
      )}
    </>
  );
}

function RequestDetail() {
  const selectedId = useInbound((s) => s.selectedId);
  const row = useInbound((s) => s.rows.find((r) => r.id === s.selectedId) ?? null);
  const detail = useInbound((s) => (s.detail?.requestId === s.selectedId ? s.detail : null));
  const source = useInbound((s) => (row ? sourceNameOf(row.sourceId, s.sources) : ''));
  const select = useInbound((s) => s.select);
  if (selectedId === null || !row) {
    return (
      <aside className="detail inbound-idle" data-testid="inbound-no-selection">
        <p className="muted">Select a call to see the messages it produced and the items that were dropped, with the reason.</p>
      </aside>
    );
  }
  return (
    <aside className="detail" data-testid="inbound-detail" data-id={row.id} aria-busy={detail === null}>
      <div className="detail-head">
        <h2>
          {row.path} <span className="muted">#{row.id}</span>
        </h2>
        <button type="button" aria-label="Close" onClick={() => select(null)}>
          ×
        </button>
      </div>
      <dl className="facts">
        <dt>Received</dt>
        <dd>{new Date(row.receivedAt).toLocaleString()}</dd>
        <dt>Source</dt>
        <dd>{source}</dd>
        <dt>Answer</dt>
        <dd>
          HTTP {row.httpStatus}
          {row.errorCode ? ` — ${row.errorCode}: ${row.errorText ?? ''}` : ''}
        </dd>
        <dt>Items</dt>
        <dd>
          {row.items} received, {row.accepted} accepted, {row.dropped} invalid, {row.duplicates} duplicate{row.duplicates === 1 ? '' : 's'}
        </dd>
        <dt>User agent</dt>
        <dd className="mono">{row.userAgent ?? '—'}</dd>
      </dl>
      {detail && (
        <>
          {detail.dropped.length > 0 && (
            <>
              <h3>Dropped items</h3>
              {detail.dropped.map((d) => (
                <div key={`${d.kind}-${d.index}`} className={`entry ${d.kind === 'invalid' ? 'bad' : 'warn'}`} data-testid="dropped-item" data-kind={d.kind}>
                  <p>
                    <span className={`status ${d.kind === 'invalid' ? 'status-failed' : 'status-retrying'}`}>{d.kind}</span>{' '}
                    <span className="muted">item {d.index}</span> <span data-testid="dropped-reason">{d.reason}</span>
                  </p>
                  <pre className="code">{prettyJson(d.raw)}</pre>
                </div>
              ))}
            </>
          )}
          <h3>
            Messages <span className="muted">({detail.messages.length})</span>
            {warned(detail.messages) > 0 && (
              <span className="muted" data-testid="inbound-warned-count">
                {' '}
                · {warned(detail.messages)} with warnings
              </span>
            )}
            {violating(detail.messages) > 0 && (
              <span className="muted" data-testid="inbound-violating-count">
                {' '}
                · {violating(detail.messages)} violating the tracking plan
              </span>
            )}
          </h3>
          {detail.messages.length === 0 ? (
            <p className="muted" data-testid="inbound-no-messages">
              {row.httpStatus >= 400 || row.errorCode !== null ? 'The call was refused as a whole, so it produced no messages.' : 'No item of this call became a message.'}
            </p>
          ) : (
            detail.messages.map((m) => <Message key={m.id} message={m} />)
          )}
        </>
      )}
    </aside>
  );
}

const warned = (messages: InboundMessageView[]): number => messages.filter((m) => m.warnings.length > 0).length;
const violating = (messages: InboundMessageView[]): number => messages.filter((m) => m.violations.length > 0).length;

function Message({ message: m }: { message: InboundMessageView }) {
  const selectDelivery = useDeliveries((s) => s.select);
  return (
    <div className={m.warnings.length > 0 || m.violations.length > 0 ? 'entry warn' : 'entry'} data-testid="inbound-message" data-message-id={m.messageId}>
      <p>
        <strong>{m.type}</strong> {m.event ? `“${m.event}”` : ''} <span className="muted">{m.userId ?? m.anonymousId ?? ''}</span>{' '}
        <span className="mono muted">{m.messageId}</span>
      </p>
      <p className="inbound-deliveries" data-testid="inbound-deliveries">
        {m.deliveryIds.length === 0 ? (
          <span className="muted">
            {m.violations.length > 0 ? 'No delivery: no enabled destination took it, or the tracking plan held it back.' : 'No delivery: no enabled destination took it.'}
          </span>
        ) : (
          <>
            Deliveries:{' '}
            {m.deliveryIds.map((id) => (
              <a
                key={id}
                href="#/deliveries"
                data-testid="inbound-delivery-link"
                onClick={() => {
                  // The hash change shows the Deliveries view; selecting first makes it open on this one.
                  selectDelivery(id);
                }}
              >
                #{id}
              </a>
            ))}
          </>
        )}
      </p>
      {m.warnings.length > 0 && <MessageWarnings warnings={m.warnings} />}
      {m.violations.length > 0 && <MessageViolations violations={m.violations} />}
      <pre className="code" data-testid="inbound-message-json">
        {prettyJson(m.json)}
      </pre>
    </div>
  );
}

/** What ingest could not use in an accepted message: the field, what was wrong, the value as received. */
function MessageWarnings({ warnings }: { warnings: IngestWarning[] }) {
  return (
    <ul className="inbound-warnings" data-testid="inbound-warnings" aria-label="Warnings">
      {warnings.map((w, i) => (
        <li key={i} data-testid="inbound-warning">
          <span className="mono" data-testid="inbound-warning-field">
            {w.field}
          </span>
          : <span data-testid="inbound-warning-problem">{w.problem}</span>{' '}
          <span className="mono muted" title="the value as received">
            {w.value}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Where a message failed the tracking plan: the path, the rule's words, the value found there. */
function MessageViolations({ violations }: { violations: Violation[] }) {
  return (
    <ul className="inbound-warnings" data-testid="inbound-violations" aria-label="Tracking plan violations">
      {violations.map((v, i) => (
        <li key={i} data-testid="inbound-violation">
          <span className="mono" data-testid="inbound-violation-path">
            {v.path}
          </span>
          : <span data-testid="inbound-violation-message">{v.message}</span> <span className="muted">({v.rule})</span>{' '}
          {'value' in v && (
            <span className="mono muted" title="the value found there">
              {JSON.stringify(v.value)}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
