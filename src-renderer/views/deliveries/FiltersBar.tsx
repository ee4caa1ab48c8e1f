import { useEffect, useRef, useState, type Ref } from 'react';
import { COMPOSE_TYPES, DELIVERY_STATUSES, type DeliveryFilter, type DeliveryStatus } from '../../../src-shared/api';
import { foldedFilterCount, isFilterActive, statusesOf } from './rows';
import { countWords, hiddenWords } from './list-words';
import { useDeliveries } from '../../app/view-stores';
import { TimeRangeField } from '../../shared/TimeRangeField';
import { useShownCounts } from './use-shown-counts';

/** Typing waits this long for the next key before the list reloads. */
export const TYPING_DEBOUNCE_MS = 250;

/** A text box whose value reaches the filter once typing pauses; set from outside when the filter is cleared. */
function useDebounced(committed: string, commit: (value: string) => void): [string, (value: string) => void] {
  const [value, setValue] = useState(committed);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latestCommit = useRef(commit);
  latestCommit.current = commit;
  // The filter changed elsewhere (clear filters): show it, unless the user is mid-typing.
  useEffect(() => {
    if (pending.current === null) setValue(committed);
  }, [committed]);
  useEffect(() => () => {
    if (pending.current !== null) clearTimeout(pending.current);
  }, []);
  const set = (next: string): void => {
    setValue(next);
    if (pending.current !== null) clearTimeout(pending.current);
    pending.current = setTimeout(() => {
      pending.current = null;
      latestCommit.current(next);
    }, TYPING_DEBOUNCE_MS);
  };
  return [value, set];
}

const STATUS_LABELS: Record<DeliveryStatus, string> = {
  pending: 'pending',
  in_flight: 'in flight',
  succeeded: 'succeeded',
  retrying: 'retrying',
  failed: 'failed',
  discarded: 'discarded',
};

export function FiltersBar({ searchRef }: { searchRef: Ref<HTMLInputElement> }) {
  const filter = useDeliveries((s) => s.filter);
  const setFilter = useDeliveries((s) => s.setFilter);
  const counts = useShownCounts();
  const shown = useDeliveries((s) => s.rows.length);
  const paused = useDeliveries((s) => s.paused);
  const engineStopped = useDeliveries((s) => s.connection === 'stopped');
  const setPaused = useDeliveries((s) => s.setPaused);
  const newWhilePaused = useDeliveries((s) => s.newWhilePaused);
  const showNew = useDeliveries((s) => s.showNew);
  const loading = useDeliveries((s) => s.loading);
  const atOldest = useDeliveries((s) => s.atOldest);
  const jump = useDeliveries((s) => s.jump);
  const statuses = statusesOf(filter);
  const active = isFilterActive(filter);
  const latest = useRef(filter);
  latest.current = filter;
  const patch = (p: Partial<DeliveryFilter>): void => setFilter({ ...latest.current, ...p });
  const [text, setText] = useDebounced(filter.text ?? '', (v) => patch({ text: v }));
  const [url, setUrl] = useDebounced(filter.url ?? '', (v) => patch({ url: v }));

  // On a narrow list every field but the search folds behind the Filters button (list.css).
  const [unfolded, setUnfolded] = useState(false);
  const folded = foldedFilterCount(filter);

  const toggle = (s: DeliveryStatus): void => {
    const next = statuses.includes(s) ? statuses.filter((x) => x !== s) : [...statuses, s];
    patch({ status: next.length > 0 ? next : undefined });
  };

  return (
    <div className="wfilters" role="search" aria-label="Filter deliveries" aria-busy={loading} data-unfolded={unfolded}>
      <button
        type="button"
        className="btn wfilters-toggle"
        aria-expanded={unfolded}
        aria-controls="wfold-fields wfold-time"
        data-testid="filters-toggle"
        data-folded={folded}
        title={folded > 0 ? `${folded} filter${folded === 1 ? '' : 's'} besides the search narrow the list` : 'Status, type, tracking plan, URL and time'}
        onClick={() => setUnfolded(!unfolded)}
      >
        Filters{folded > 0 ? ` · ${folded}` : ''}
      </button>
      <div className="wfold" id="wfold-fields">
        <div className="wchips" role="group" aria-label="Status">
          {DELIVERY_STATUSES.map((s) => (
            <button
              key={s}
              type="button"
              className={`wchip wchip-${s}`}
              aria-pressed={statuses.includes(s)}
              data-testid={`filter-status-${s}`}
              onClick={() => toggle(s)}
            >
              {STATUS_LABELS[s]}
            </button>
          ))}
        </div>
        <label className="wfield">
          <span className="wfield-label">Type</span>
          <select data-testid="filter-type" value={filter.type ?? ''} onChange={(e) => patch({ type: e.target.value || undefined })}>
            <option value="">all types</option>
            {COMPOSE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="wfield">
          <span className="wfield-label">Tracking plan</span>
          <select
            data-testid="filter-violations"
            value={filter.violations ?? ''}
            onChange={(e) => patch({ violations: e.target.value === 'any' || e.target.value === 'none' ? e.target.value : undefined })}
          >
            <option value="">any message</option>
            <option value="any">violating it</option>
            <option value="none">passing it</option>
          </select>
        </label>
        <label className="wfield wfield-grow">
          <span className="wfield-label">URL</span>
          <input type="search" data-testid="filter-url" placeholder="part of a webhook URL" value={url} onChange={(e) => setUrl(e.target.value)} spellCheck={false} />
        </label>
      </div>
      <label className="wfield wfield-grow wsearch">
        <span className="wfield-label">Search</span>
        <input
          ref={searchRef}
          type="search"
          data-testid="filter-text"
          aria-label="Search"
          placeholder="userId, anonymousId, event or messageId   ( / )"
          title="Part of a userId, anonymousId or event (any case), or the start of a messageId (as written)"
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
        />
      </label>
      <div className="wfold" id="wfold-time">
        <TimeRangeField from={filter.from} to={filter.to} testId="filter-time" onChange={(r) => patch({ from: r.from, to: r.to })} />
        <div className="wjump" role="group" aria-label="Jump">
          <button type="button" className="btn" data-testid="jump-oldest" aria-pressed={atOldest} onClick={() => jump('oldest')} title="The oldest deliveries of this filter (live pauses)">
            Oldest
          </button>
          <button type="button" className="btn" data-testid="jump-newest" aria-pressed={!atOldest} onClick={() => jump('newest')} title="The newest deliveries, live">
            Newest
          </button>
        </div>
      </div>
      <div className="wlive">
        <button type="button" role="switch" aria-checked={!paused && !engineStopped} aria-label="Live" className="wswitch" data-testid="live-pause" disabled={engineStopped} onClick={() => setPaused(!paused)}>
          <span className="wswitch-knob" aria-hidden="true" />
          {engineStopped ? 'Hookbench stopped' : paused ? 'Paused' : 'Live'}
        </button>
        {paused && newWhilePaused > 0 && (
          <button type="button" className="wnew" data-testid="new-while-paused" data-count={newWhilePaused} onClick={showNew}>
            {newWhilePaused.toLocaleString('en-US')} new — show
          </button>
        )}
      </div>
      <div className="wcounts" aria-live="polite">
        <span data-testid="deliveries-count" data-total={counts?.total} data-matching={counts?.matching}>
          {countWords(counts, active, Date.now(), shown)}
        </span>
        {active && (
          <span className="whidden" data-testid="hidden-count" data-hidden={counts ? counts.total - counts.matching : undefined}>
            {hiddenWords(counts, shown)}
          </span>
        )}
      </div>
    </div>
  );
}
