import { useConfigure } from '../../app/view-stores';
import { dateTimeOf } from '../../shared/format';

const EXAMPLE = `{
  "events": {
    "Order Completed": { "type": "object", "required": ["total"], "properties": { "total": { "type": "number" } } }
  },
  "identify": { "type": "object", "required": ["email"] },
  "violatingEvents": "deliver"
}`;

/** The tracking plan: its JSON edited in place, and how many messages of the log failed it, per event. */
export function TrackingPlanSection() {
  const view = useConfigure((s) => s.trackingPlan);
  const draft = useConfigure((s) => s.planDraft);
  const errors = useConfigure((s) => s.planErrors);
  const saved = useConfigure((s) => s.planSaved);
  const setDraft = useConfigure((s) => s.setPlanDraft);
  const save = useConfigure((s) => s.savePlan);
  const refresh = useConfigure((s) => s.refreshPlan);
  return (
    <section className="card" data-testid="tracking-plan-section" aria-labelledby="tracking-plan-title">
      <h2 id="tracking-plan-title">Tracking plan</h2>
      <p>
        A JSON Schema per event for a track call&apos;s properties, and for identify and group traits and page and screen properties. Every message is
        checked as it arrives; violations are kept with it and shown in Inbound. With &quot;violatingEvents&quot;: &quot;hold&quot;, violating messages are
        not delivered. Leave it empty for no plan.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label className="field">
          <span className="field-label">Plan (JSON)</span>
          <textarea
            className="mono"
            rows={12}
            spellCheck={false}
            placeholder={EXAMPLE}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            data-testid="tracking-plan-json"
          />
        </label>
        {errors.map((e, k) => (
          <p key={`${e.field}-${k}`} className="field-error" role="alert" data-testid="field-error" data-field={e.field}>
            {e.field === 'trackingPlan' ? 'The plan' : e.field.replace(/^trackingPlan\./, '')} {e.message}
          </p>
        ))}
        <button type="submit" className="btn small primary" data-testid="tracking-plan-save">
          Save
        </button>
        {saved && (
          <span className="notice ok" data-testid="tracking-plan-saved">
            {view?.plan ? 'Saved' : 'No plan now'}
          </span>
        )}
      </form>
      <h3>Violations in the log</h3>
      {view?.countedFrom !== undefined && (
        <p className="muted" data-testid="violation-counts-from">
          Counted over the newest messages, received since {dateTimeOf(view.countedFrom)}: the log is too big to count whole in a moment.
        </p>
      )}
      {view === null || view.counts.length === 0 ? (
        <p data-testid="violation-counts-empty">No message in the log has violated a plan.</p>
      ) : (
        <table className="violation-counts" data-testid="violation-counts">
          <thead>
            <tr>
              <th>Call</th>
              <th>Messages</th>
              <th>Violations</th>
            </tr>
          </thead>
          <tbody>
            {view.counts.map((c) => (
              <tr key={`${c.type}:${c.event ?? ''}`}>
                <td>{c.event === null ? c.type : `${c.type} “${c.event}”`}</td>
                <td>{c.messages}</td>
                <td>{c.violations}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="btn small" onClick={() => void refresh()} data-testid="violation-counts-refresh">
        Refresh counts
      </button>
    </section>
  );
}
