import { memo, type ReactNode } from 'react';
import { DeliveryStatusBadge } from '../../shared/Badge';
import type { DeliverySummary } from '../../../src-shared/api';
import { measuredMs, whenOf } from '../../shared/format';
import { useNow } from '../../shared/use-now';
import { eventWords, lastStatusWords, nextAttemptWords, routeWords, shortUrl, urlOutcomeWords, waitingWords } from './list-words';
import { WarpMark } from './WarpMark';

/** Two lines: the columns, then where the delivery goes and what each URL answered. */
export const ROW_HEIGHT = 50;
export const HEADER_HEIGHT = 30;

export const COLUMNS = ['Status', 'Type', 'User', 'Event', 'URLs', 'Rounds', 'Last', 'Latency', 'Time'] as const;
const TITLES: Partial<Record<(typeof COLUMNS)[number], string>> = {
  URLs: 'Webhook URLs this delivery goes to',
  Rounds: 'Attempt rounds so far',
  Last: 'Last HTTP status, or what went wrong (timeout, refused, TLS…)',
  Latency: 'Total time of the last finished attempt',
};

export function HeaderCells() {
  return (
    <>
      {COLUMNS.map((c) => (
        <span key={c} className={`wcell wcell-head ${['URLs', 'Rounds', 'Last', 'Latency'].includes(c) ? 'wnum' : ''}`} role="columnheader" title={TITLES[c]}>
          {c}
        </span>
      ))}
    </>
  );
}

interface RowProps {
  row: DeliverySummary;
  index: number;
  top: number;
  selected: boolean;
  cursor: boolean;
  onPick(id: number, index: number): void;
}

/** A link inside a row opens the delivery it names, not the row. */
function RowLink({ id, testId, title, onPick, children }: { id: number; testId: string; title: string; onPick(id: number, index: number): void; children: ReactNode }) {
  return (
    <button
      type="button"
      className="wreplay wreplay-link"
      data-testid={testId}
      data-id={id}
      title={title}
      onClick={(e) => {
        e.stopPropagation();
        onPick(id, -1);
      }}
    >
      {children}
    </button>
  );
}

/** One list row; memoized, so a frame that changes one delivery re-renders one row. */
export const DeliveryListRow = memo(function DeliveryListRow({ row, index, top, selected, cursor, onPick }: RowProps) {
  const next = nextAttemptWords(row);
  const classes = ['wrow', selected ? 'selected' : '', cursor ? 'cursor' : ''].filter(Boolean).join(' ');
  return (
    <div
      className={classes}
      style={{ transform: `translateY(${top}px)` }}
      role="row"
      aria-rowindex={index + 1}
      aria-selected={selected}
      data-testid="delivery-row"
      data-id={row.id}
      data-cursor={cursor ? 'true' : undefined}
      onClick={() => onPick(row.id, index)}
    >
      <span className="wcell" role="gridcell">
        <DeliveryStatusBadge status={row.status} testId="delivery-status" />
        {next && (
          <span className="wnext" data-testid="delivery-next" title={row.nextAttemptAt ?? undefined}>
            {next}
          </span>
        )}
      </span>
      <span className="wcell" role="gridcell" data-testid="delivery-type">
        {row.type}
      </span>
      <span className="wcell wtext" role="gridcell" data-testid="delivery-user" title={row.userId ?? row.anonymousId ?? undefined}>
        {row.userId ?? row.anonymousId ?? '—'}
      </span>
      <span className="wcell wevent" role="gridcell">
        {/* First in the cell and never shrunk: a warped row's times must not pass for real ones. */}
        <WarpMark warp={row.warp} />
        <span className="wevent-name" data-testid="delivery-event" title={row.event ?? row.name ?? undefined}>
          {eventWords(row)}
        </span>
        {row.test && (
          <span className="test-mark" data-testid="delivery-test" title="A test event sent from Hookbench, not a call to the Tracking API">
            test
          </span>
        )}
        {row.replayOf !== null && (
          <span className="wreplay" data-testid="delivery-replay-of" data-of={row.replayOf} title={`A replay of delivery #${row.replayOf}`}>
            <span className="wreplay-words">replay of </span>#{row.replayOf}
          </span>
        )}
        {row.replays[0] !== undefined && (
          <RowLink
            id={row.replays[0]}
            testId="delivery-replayed"
            title={`Replayed as ${row.replays.map((id) => `#${id}`).join(', ')}; opens the newest replay`}
            onPick={onPick}
          >
            <span className="wreplay-words">replayed → </span>#{row.replays[0]}
            {row.replays.length > 1 ? ` +${row.replays.length - 1}` : ''}
          </RowLink>
        )}
        {row.violations > 0 && (
          <span className="wviolations" data-testid="delivery-violations" data-count={row.violations} title="Its message fails the tracking plan (details in Inbound)">
            {row.violations}
            <span className="wviolations-words"> plan violation{row.violations === 1 ? '' : 's'}</span>
          </span>
        )}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-entries">
        {row.entries}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-rounds">
        {row.rounds}
      </span>
      <span className={`wcell wnum ${row.lastHttpStatus === null && row.lastError ? 'wbad' : ''}`} role="gridcell" data-testid="delivery-http" title={row.lastError ?? undefined}>
        {lastStatusWords(row)}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-latency">
        {measuredMs(row.latencyMs)}
      </span>
      <span className="wcell" role="gridcell" data-testid="delivery-time">
        <time dateTime={row.createdAt} title={new Date(row.createdAt).toString()}>
          {whenOf(row.createdAt, Date.now())}
        </time>
      </span>
      <RowOutcomes row={row} />
    </div>
  );
});

/** The second line: source → destination, a dot and a word per URL, and what an in-flight round waits for. */
function RowOutcomes({ row }: { row: DeliverySummary }) {
  const flying = row.status === 'in_flight';
  return (
    <span className={flying ? 'wline2 wline2-flying' : 'wline2'} role="gridcell" data-testid="delivery-outcomes">
      <span className="wroute" data-testid="delivery-route" title={routeWords(row)}>
        {routeWords(row)}
      </span>
      {flying ? <Waiting row={row} /> : <UrlChips row={row} now={0} />}
    </span>
  );
}

/** Ticks once a second, only while its row is in flight. */
function Waiting({ row }: { row: DeliverySummary }) {
  const now = useNow(1000);
  const words = waitingWords(row, now);
  return (
    <>
      <UrlChips row={row} now={now} />
      {words && (
        <span className="wwaiting" data-testid="delivery-waiting" title={words}>
          {words}
        </span>
      )}
    </>
  );
}

function UrlChips({ row, now }: { row: DeliverySummary; now: number }) {
  return (
    <>
      {row.urls.map((u) => {
        const w = urlOutcomeWords(u, now);
        return (
          <span key={u.url} className={`wurl wurl-${w.tone}`} data-testid="delivery-url" data-tone={w.tone} title={w.title}>
            <span className="wdot" aria-hidden="true" />
            <span className="wurl-label" data-testid="delivery-url-label">
              {w.label}
            </span>
            <span className="wurl-target">{shortUrl(u.url)}</span>
          </span>
        );
      })}
    </>
  );
}
