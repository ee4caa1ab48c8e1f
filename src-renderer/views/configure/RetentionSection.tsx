import { useState } from 'react';
import { FieldErrors } from '../../shared/form-widgets';
import { useConfigure } from '../../app/view-stores';
import { countOf, megabytesOf } from '../../shared/format';

/** How long the log keeps rows and how big it may grow, its size now, and Clear log. */
export function RetentionSection() {
  const storage = useConfigure((s) => s.storage);
  const draft = useConfigure((s) => s.retentionDraft);
  const errors = useConfigure((s) => s.retentionErrors);
  const saved = useConfigure((s) => s.retentionSaved);
  const setDraft = useConfigure((s) => s.setRetentionDraft);
  const save = useConfigure((s) => s.saveRetention);
  if (!storage) return null;
  return (
    <section className="card" data-testid="retention-section" aria-labelledby="retention-title">
      <h2 id="retention-title">Log retention</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label className="field">
          <span className="field-label">Keep messages for (days)</span>
          <input inputMode="numeric" value={draft.days} onChange={(e) => setDraft({ days: e.target.value })} data-testid="retention-days" />
        </label>
        <FieldErrors errors={errors} fields={['retention.days']} label="Days" />
        <label className="field">
          <span className="field-label">Keep the log under (MB)</span>
          <input inputMode="numeric" value={draft.megabytes} onChange={(e) => setDraft({ megabytes: e.target.value })} data-testid="retention-megabytes" />
        </label>
        <FieldErrors errors={errors} fields={['retention.megabytes', 'retention']} label="Size" />
        <button type="submit" className="btn small primary" data-testid="retention-save">
          Save
        </button>
        {saved && (
          <span className="notice ok" data-testid="retention-saved">
            Saved
          </span>
        )}
      </form>
      <p data-testid="retention-words">
        Older messages, their requests and finished deliveries go in small steps in the background, the oldest first once the log nears the
        size. Deliveries still pending or retrying stay until they finish. Now: {megabytesOf(storage.databaseBytes)} on disk, {megabytesOf(storage.walBytes)} of
        write-ahead log.
        {!storage.incrementalVacuum && ' This log was made by an older Hookbench: it stops growing, and shrinks after a start that finds it under 64 MB.'}
      </p>
      <ClearLog />
    </section>
  );
}

function ClearLog() {
  const progress = useConfigure((s) => s.storage?.clearing ?? null);
  const clearing = useConfigure((s) => s.clearing) || progress !== null;
  const cleared = useConfigure((s) => s.cleared);
  const error = useConfigure((s) => s.clearError);
  const clearLog = useConfigure((s) => s.clearLog);
  const [asking, setAsking] = useState(false);
  return (
    <div className="clear-log">
      {!asking && (
        <button type="button" className="btn small danger-quiet" data-testid="clear-log" disabled={clearing} onClick={() => setAsking(true)}>
          {clearing ? 'Clearing…' : 'Clear log…'}
        </button>
      )}
      {asking && (
        <div className="notice warn" role="alertdialog" aria-labelledby="clear-log-title" data-testid="clear-log-confirm">
          <p id="clear-log-title">
            Remove every Inbound request, message, dropped item, finished delivery and attempt received until now? Sources, destinations,
            settings, templates, profiles, audiences and deletion requests stay. Deliveries still pending, in flight or retrying stay too,
            with their messages, and go on being sent.
          </p>
          <button
            type="button"
            className="btn small danger"
            data-testid="clear-log-yes"
            onClick={() => {
              setAsking(false);
              void clearLog();
            }}
          >
            Clear log
          </button>
          <button type="button" className="btn small" onClick={() => setAsking(false)}>
            Keep it
          </button>
        </div>
      )}
      {progress && (
        <p className="notice" role="status" data-testid="clear-log-progress">
          {progress.releasing
            ? `Removed ${countOf(progress.removedMessages)} messages; tidying the search index and giving ${megabytesOf(progress.freeBytesLeft)} of free space back to the disk.`
            : `Removed ${countOf(progress.removedMessages)} of about ${countOf(progress.aboutMessages)} messages so far, in short steps beside ingest.`}
        </p>
      )}
      {cleared && (
        <p className="notice ok" data-testid="clear-log-done">
          Removed {cleared.requests} requests, {cleared.messages} messages and {cleared.deliveries} deliveries
          {cleared.keptActiveDeliveries > 0 ? `; kept ${cleared.keptActiveDeliveries} deliveries still pending or retrying` : ''}.
        </p>
      )}
      {error && (
        <p className="field-error" role="alert" data-testid="clear-log-error">
          Could not clear the log: {error}
        </p>
      )}
    </div>
  );
}
