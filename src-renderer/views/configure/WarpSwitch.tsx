import { DEFAULT_WARP, NO_WARP, WARP_CHOICES } from '../../../src-shared/settings';

/**
 * The destination's time-warp: on, its new deliveries run their retry schedule many times faster
 * (the attempt's own timeout stays real). Deliveries already made keep the warp they were made with.
 */
export function WarpSwitch({ warp, onChange }: { warp: number; onChange(warp: number): void }) {
  const on = warp > NO_WARP;
  return (
    <div className="cfg-warp">
      <label className="cfg-switch">
        <input
          type="checkbox"
          role="switch"
          checked={on}
          onChange={(e) => onChange(e.target.checked ? DEFAULT_WARP : NO_WARP)}
          data-testid="destination-warp"
        />
        <span>{on ? `Time-warp on: new deliveries retry ×${warp} faster` : 'Time-warp off: retries follow the real schedule'}</span>
      </label>
      {on && (
        <label className="cfg-warp-factor">
          <span className="muted">Speed</span>
          <select value={warp} onChange={(e) => onChange(Number(e.target.value))} data-testid="destination-warp-factor">
            {WARP_CHOICES.some((c) => c.factor === warp) ? null : <option value={warp}>×{warp}</option>}
            {WARP_CHOICES.map((c) => (
              <option key={c.factor} value={c.factor}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
      )}
      <p className="muted cfg-hint">
        For watching a retry life in minutes: the warp covers deliveries created while it is on, and each is marked “warped” with its
        times compressed. Turning it off does not change deliveries already made. Each attempt still waits the real 5 s timeout.
      </p>
    </div>
  );
}
