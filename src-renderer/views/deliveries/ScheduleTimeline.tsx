import type { DeliverySchedule } from '../../../src-shared/api';
import { timeOf } from '../../shared/format';
import { plannedNote, scheduleLines, scheduleSummary } from './schedule-words';

/**
 * The delivery's whole retry life: rounds sent (with what came back), the next one, the rounds the
 * policy would send if every one failed, and where the retry window ends. Under a warp a second
 * column says where each time falls on the real schedule.
 */
export function ScheduleTimeline({ schedule }: { schedule: DeliverySchedule }) {
  const lines = scheduleLines(schedule);
  if (lines.length === 0) return null;
  const warped = schedule.warp > 1;
  const note = plannedNote(schedule);
  return (
    <section className="ins-section sched" aria-label="Schedule" data-testid="schedule" data-warp={schedule.warp}>
      <h3>Schedule</h3>
      <p className="muted" data-testid="schedule-summary">
        {scheduleSummary(schedule)}
      </p>
      <table className="sched-table" data-testid="schedule-table">
        <thead>
          <tr>
            <th scope="col">Round</th>
            <th scope="col">Time</th>
            <th scope="col">After first</th>
            {warped && (
              <th scope="col" title={`Where this falls on the real (unwarped) schedule: ${schedule.warp} times later`}>
                Real schedule
              </th>
            )}
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.key} className={`sched-row sched-${l.state}${l.succeeded ? ' sched-ok' : ''}`} data-testid="schedule-row" data-state={l.state} data-round={l.round ?? undefined}>
              <td className="wnum">{l.round ?? ''}</td>
              <td className="mono">
                <time dateTime={l.at}>{timeOf(l.at)}</time>
              </td>
              <td className="wnum">{l.offset}</td>
              {warped && <td className="wnum sched-real">{l.realOffset}</td>}
              <td>
                <span className="sched-label">{l.label}</span>
                {l.outcome !== null && (
                  <span className={`sched-outcome ${l.succeeded ? 'sched-outcome-ok' : 'sched-outcome-bad'}`} data-testid="schedule-outcome">
                    {l.outcome}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {note && <p className="muted sched-note">{note}</p>}
    </section>
  );
}
