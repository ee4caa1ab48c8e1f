import { useState } from 'react';
import { isoOfLocal, localOfIso, RANGE_CHOICES, rangeOf, type RangeChoice } from './time-range';

/**
 * A time-range filter: quick choices (last 15 min, hour, 24 hours) or two boxes. A quick choice is
 * fixed when picked (from = that moment minus the span), so the list does not shift as time passes.
 */
export function TimeRangeField({
  from,
  to,
  onChange,
  testId,
}: {
  from: string | undefined;
  to: string | undefined;
  onChange: (range: { from?: string; to?: string }) => void;
  testId: string;
}) {
  const [choice, setChoice] = useState<RangeChoice>(from || to ? 'custom' : 'any');
  const shown: RangeChoice = !from && !to && choice !== 'custom' ? 'any' : choice;
  return (
    <>
      <label className="wfield">
        <span className="wfield-label">Time</span>
        <select
          data-testid={`${testId}-range`}
          value={shown}
          onChange={(e) => {
            const next = e.target.value as RangeChoice;
            setChoice(next);
            if (next !== 'custom') onChange(rangeOf(next, Date.now()));
          }}
        >
          {RANGE_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {shown === 'custom' && (
        <>
          <label className="wfield">
            <span className="wfield-label">From</span>
            <input type="datetime-local" data-testid={`${testId}-from`} value={localOfIso(from)} onChange={(e) => onChange({ from: isoOfLocal(e.target.value), to })} />
          </label>
          <label className="wfield">
            <span className="wfield-label">To</span>
            <input type="datetime-local" data-testid={`${testId}-to`} value={localOfIso(to)} onChange={(e) => onChange({ from, to: isoOfLocal(e.target.value) })} />
          </label>
        </>
      )}
    </>
  );
}
