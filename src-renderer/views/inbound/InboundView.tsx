import { memo, useEffect, useRef, useState, type RefObject } from 'react';
import { REQUEST_BODY_LIMITS, type InboundMessageView, type InboundRequest, type InboundRequestDetail, type RequestFilter } from '../../../src-shared/api';
import { TimeRangeField } from '../../shared/TimeRangeField';
import type { IngestWarning } from '../../../src-shared/events';
import type { Violation } from '../../../src-shared/assertions';
import { SYNC_PATH } from '../../../src-shared/personas';
import { snippetsFor } from '../configure/snippets';
import { bytesOf, dateTimeOf, prettyJson, whenOf } from '../../shared/format';
import { Badge } from '../../shared/Badge';
import { sourceNameOf } from './source-names';
import { INBOUND_MAX_ROWS } from './store';
import { useDeliveries, useFollowWhileShown, useInbound } from '../../app/view-stores';
import { EmptyState } from '../../shared/EmptyState';
import { isTypingTarget } from '../../shared/keys';
import { InboundTransfer } from '../transfer/TransferBar';

export function InboundView() {
  useFollowWhileShown('inbound');
  const loaded = useInbound((s) => s.loaded);
  const empty = useInbound((s) => s.rows.length === 0);
  const filtered = useInbound((s) => Object.keys(s.filter).length > 0);
  const searchRef = useRef<HTMLInputElement>(null);
  return (
    <section className="view inbound" data-testid="inbound-view" aria-busy={!loaded}>
      <InboundTransfer />
      {loaded && empty && !filtered && <InboundEmpty />}
      {(filtered || (loaded && !empty)) && (
        <>
          <InboundFilters searchRef={searchRef} />
          <div className="inbound-panes">
            <RequestList searchRef={searchRef} />
            <RequestDetail />
          </div>
        </>
      )}
    </section>
  );
}

/** Typing waits this long before the list reloads. */
const TYPING_DEBOUNCE_MS = 250;

function InboundFilters({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const filter = useInbound((s) => s.filter);
  const setFilter = useInbound((s) => s.setFilter);
  const sources = useInbound((s) => s.sources);
  const atOldest = useInbound((s) => s.atOldest);
  const newestDropped = useInbound((s) => s.newestDropped);
  const jump = useInbound((s) => s.jump);
  const latest = useRef(filter);
  latest.current = filter;
  const patch = (p: Partial<RequestFilter>): void => setFilter({ ...latest.current, ...p });
  const [path, setPath] = useState(filter.path ?? '');
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current !== null) clearTimeout(timer.current);
  }, []);
  return (
    <div className="wfilters inbound-filters" role="search" aria-label="Filter calls">
      <label className="wfield">
        <span className="wfield-label">Status</span>
        <select
          data-testid="inbound-filter-status"
          value={filter.status ?? ''}
          onChange={(e) => patch({ status: e.target.value === 'accepted' || e.target.value === 'refused' ? e.target.value : undefined })}
        >
          <option value="">accepted and refused</option>
          <option value="accepted">accepted</option>
          <option value="refused">refused</option>
        </select>
      </label>
      <label className="wfield">
        <span className="wfield-label">Source</span>
        <select
          data-testid="inbound-filter-source"
          value={filter.sourceId ?? ''}
          onChange={(e) => patch({ sourceId: e.target.value === '' ? undefined : Number(e.target.value) })}
        >
          <option value="">every source</option>
          {sources.map((src) => (
            <option key={src.id} value={src.id}>
              {src.name}
            </option>
          ))}
        </select>
      </label>
      <label className="wfield wfield-grow">
        <span className="wfield-label">Path</span>
        <input
          ref={searchRef}
          type="search"
          data-testid="inbound-filter-path"
          placeholder="part of the path, like /v1/track   ( / )"
          value={path}
          spellCheck={false}
          onChange={(e) => {
            const next = e.target.value;
            setPath(next);
            if (timer.current !== null) clearTimeout(timer.current);
            timer.current = setTimeout(() => {
              timer.current = null;
              patch({ path: next });
            }, TYPING_DEBOUNCE_MS);
          }}
        />
      </label>
      <TimeRangeField from={filter.from} to={filter.to} testId="inbound-filter-time" onChange={(r) => patch({ from: r.from, to: r.to })} />
      <div className="wjump" role="group" aria-label="Jump">
        <button type="button" className="btn" data-testid="inbound-jump-oldest" aria-pressed={atOldest} onClick={() => jump('oldest')}>
          Oldest
        </button>
        <button type="button" className="btn" data-testid="inbound-jump-newest" aria-pressed={!atOldest && !newestDropped} onClick={() => jump('newest')}>
          Newest
        </button>
      </div>
    </div>
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

function RequestList({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const rows = useInbound((s) => s.rows);
  const select = useInbound((s) => s.select);
  const filtered = useInbound((s) => Object.keys(s.filter).length > 0);
  const selectedId = useInbound((s) => s.selectedId);
  const more = useInbound((s) => s.nextBeforeId !== null);
  const loadingMore = useInbound((s) => s.loadingMore);
  const loadMore = useInbound((s) => s.loadMore);
  const move = useInbound((s) => s.move);
  const sources = useInbound((s) => s.sources);
  const newestDropped = useInbound((s) => s.newestDropped);
  const jump = useInbound((s) => s.jump);
  // On the window, as in Deliveries: the keys work as soon as the view is shown, without a click first.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (isTypingTarget({ targetTag: target?.tagName, targetEditable: target?.isContentEditable })) return;
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      // Moving already opens the call under the cursor; Enter opens the first when none is.
      else if (e.key === 'Enter' && selectedId === null && target?.tagName !== 'BUTTON' && target?.tagName !== 'A') move(1);
      else if (e.key === '/') searchRef.current?.focus();
      else if (e.key === 'Escape') select(null);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move, select, searchRef, selectedId]);
  return (
    <div className="inbound-list">
      {newestDropped && (
        <p className="inbound-dropped" role="status" data-testid="inbound-newest-dropped">
          Older calls only: the list holds {INBOUND_MAX_ROWS.toLocaleString('en-US')} calls at most, so the newest were let go as you paged back, and new calls
          are not added.{' '}
          <button type="button" className="link" onClick={() => jump('newest')} data-testid="inbound-back-to-newest">
            Back to the newest
          </button>
        </p>
      )}
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
            <RequestRow key={r.id} row={r} selected={r.id === selectedId} source={sourceNameOf(r.sourceId, sources)} select={select} />
          ))}
        </tbody>
      </table>
      {rows.length === 0 && filtered && (
        <p className="muted" data-testid="inbound-no-match">
          No call matches these filters.
        </p>
      )}
      <div className="inbound-more">
        {newestDropped && (
          // Said here too: after paging back, this is where the user is, the notice above out of sight.
          <button type="button" className="link" onClick={() => jump('newest')} data-testid="inbound-back-to-newest-below">
            The newest calls were let go: back to the newest
          </button>
        )}
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

/**
 * One call's row. Memoized, with what it shows passed in rather than read from the store: with
 * thousands of calls paged in, each store change ran three selectors per row and each live
 * refresh re-rendered every row; now only the rows whose props changed render.
 */
const RequestRow = memo(function RequestRow({
  row,
  selected,
  source,
  select,
}: {
  row: InboundRequest;
  selected: boolean;
  source: string;
  select: (id: number | null) => void;
}) {
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
          <time dateTime={row.receivedAt} title={dateTimeOf(row.receivedAt)}>{whenOf(row.receivedAt, Date.now())}</time>
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
});

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
        <dd>{dateTimeOf(row.receivedAt)}</dd>
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
      {detail?.request && <AsReceived request={detail.request} />}
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
            Messages{' '}
            <span className="muted" data-testid="inbound-message-count">
              ({detail.messages.length < row.accepted ? `the first ${detail.messages.length.toLocaleString('en-US')} of ${row.accepted.toLocaleString('en-US')}` : detail.messages.length})
            </span>
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

/** The call as it arrived: its headers, then its body as far as the log kept it, saying where it was cut. */
function AsReceived({ request }: { request: InboundRequestDetail }) {
  const refused = request.httpStatus >= 400 || request.errorCode !== null;
  const limit = refused ? REQUEST_BODY_LIMITS.refused : REQUEST_BODY_LIMITS.accepted;
  return (
    <section className="inbound-raw" data-testid="inbound-raw" aria-label="Request as received">
      <h3>Request as received</h3>
      {request.headers === null ? (
        <p className="muted" data-testid="inbound-raw-none">
          {request.path === SYNC_PATH
            ? 'Made by Hookbench itself: an audience or computed trait sync, committed like a call of its space\'s source. It has no headers or body; its identify calls are below.'
            : 'This call was logged before Hookbench kept headers and bodies.'}
        </p>
      ) : (
        <table className="data-table inbound-headers" data-testid="inbound-raw-headers">
          <tbody>
            {Object.entries(request.headers).map(([name, value]) => (
              <tr key={name} data-testid="inbound-raw-header" data-name={name}>
                <th className="mono">{name}</th>
                <td className="mono">{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {request.body === null ? (
        request.headers !== null && (
          <p className="muted" data-testid="inbound-raw-no-body">
            {request.bodyRemoved
              ? 'Body removed: a deletion request purged someone this call named.'
              : 'No body was read: the call was refused before it.'}
          </p>
        )
      ) : (
        <>
          {request.bodyClipped && (
            <p className="inbound-clipped" data-testid="inbound-raw-clipped">
              Clipped: the log keeps the first {limit.toLocaleString('en-US')} characters of {refused ? 'a refused' : 'an accepted'} call's body; this
              one was {bytesOf(request.bytes)}.{refused ? ' Refused calls cost their sender nothing, so they are kept short.' : ''}
            </p>
          )}
          <pre className="code" data-testid="inbound-raw-body">
            {request.bodyClipped ? `${request.body}…` : request.body}
          </pre>
        </>
      )}
    </section>
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
