import { memo } from 'react';
import { DeliveryStatusBadge } from '../../shared/Badge';
import type { DeliverySummary } from '../../../src-shared/api';
import { measuredMs, timeOf } from '../../shared/format';
import { lastStatusWords, nextAttemptWords } from './list-words';

export const ROW_HEIGHT = 34;
export const HEADER_HEIGHT = 30;

export const COLUMNS = ['Status', 'Type', 'User', 'Event', 'Entries', 'Rounds', 'Last', 'Latency', 'Time'] as const;
const TITLES: Partial<Record<(typeof COLUMNS)[number], string>> = {
  Entries: 'Webhook URLs this delivery goes to',
  Rounds: 'Attempt rounds so far',
  Last: 'Last HTTP status',
  Latency: 'Total time of the last finished attempt',
};

export function HeaderCells() {
  return (
    <>
      {COLUMNS.map((c) => (
        <span key={c} className={`wcell wcell-head ${['Entries', 'Rounds', 'Last', 'Latency'].includes(c) ? 'wnum' : ''}`} role="columnheader" title={TITLES[c]}>
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
        <span className="wevent-name" data-testid="delivery-event" title={row.event ?? undefined}>
          {row.event ?? '—'}
        </span>
        {row.replayOf !== null && (
          <span className="wreplay" data-testid="delivery-replay-of" data-of={row.replayOf} title={`A replay of delivery #${row.replayOf}`}>
            <span className="wreplay-words">replay of </span>#{row.replayOf}
          </span>
        )}
        {row.violations > 0 && (
          <span className="wreplay" data-testid="delivery-violations" data-count={row.violations} title="Its message fails the tracking plan (details in Inbound)">
            {row.violations} plan violation{row.violations === 1 ? '' : 's'}
          </span>
        )}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-entries">
        {row.entries}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-rounds">
        {row.rounds}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-http" title={row.lastError ?? undefined}>
        {lastStatusWords(row)}
      </span>
      <span className="wcell wnum" role="gridcell" data-testid="delivery-latency">
        {measuredMs(row.latencyMs)}
      </span>
      <span className="wcell" role="gridcell" data-testid="delivery-time">
        <time dateTime={row.createdAt}>{timeOf(row.createdAt)}</time>
      </span>
    </div>
  );
});
