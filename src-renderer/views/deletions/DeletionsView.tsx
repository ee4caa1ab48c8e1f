import type { DeletionNotice, DeletionRequest } from '../../../src-shared/personas';
import { Badge } from '../../shared/Badge';
import { sentence } from '../../shared/form-widgets';
import { purgeInWords, purgeState, statusExplanation, STATUS_WORDS } from './deletion-status';
import { deliveryStatusMeaning } from '../../shared/status-words';
import { useDeletions, useDeliveries, useFollowWhileShown } from '../../app/view-stores';
import { dateTimeOf } from '../../shared/format';

export function DeletionsView() {
  useFollowWhileShown('deletions');
  const loaded = useDeletions((s) => s.loaded);
  return (
    <section className="view deletions" data-testid="deletions-view" aria-busy={!loaded}>
      <div className="columns narrow-start">
        <RequestForm />
        <RequestList />
      </div>
    </section>
  );
}

function Errors({ general }: { general: boolean }) {
  const errors = useDeletions((s) => s.errors);
  const mine = errors.filter((e) => /userId$/.test(e.field) !== general);
  return (
    <>
      {mine.map((e, k) => (
        <p key={`${e.field}-${k}`} className="field-error" role="alert" data-testid="field-error" data-field={e.field}>
          {general ? sentence(undefined, e.message) : sentence('The userId', e.message)}
        </p>
      ))}
    </>
  );
}

function RequestForm() {
  const draft = useDeletions((s) => s.draft);
  const confirming = useDeletions((s) => s.confirming);
  const submitting = useDeletions((s) => s.submitting);
  const submitted = useDeletions((s) => (s.submittedId === null ? null : (s.requests.find((r) => r.id === s.submittedId) ?? null)));
  const invalid = useDeletions((s) => s.errors.some((e) => /userId$/.test(e.field)));
  const setDraft = useDeletions((s) => s.setDraft);
  const ask = useDeletions((s) => s.ask);
  const cancel = useDeletions((s) => s.cancel);
  const submit = useDeletions((s) => s.submit);
  const userId = draft.userId.trim();
  return (
    <section className="card" aria-labelledby="dl-form-title">
      <h2 id="dl-form-title">Request a deletion</h2>
      <p className="muted card-intro">
        Every source that received data for this user and has the Webhooks destination enabled forwards one delete notice{' '}
        <code className="mono dl-code">{'{"type": "delete", "userId", "timestamp"}'}</code> to that destination, through the usual delivery (signed,
        retried, replayable).
      </p>
      <form
        className="dl-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (confirming) void submit();
          else ask();
        }}
      >
        <label className="field">
          <span className="field-label">userId</span>
          <input
            data-testid="deletion-user"
            value={draft.userId}
            placeholder="e.g. user_123"
            aria-invalid={invalid}
            spellCheck={false}
            onChange={(e) => setDraft({ userId: e.target.value })}
          />
        </label>
        <Errors general={false} />
        <label className="dl-check">
          <input type="checkbox" data-testid="deletion-purge" checked={draft.purge} onChange={(e) => setDraft({ purge: e.target.checked })} />
          <span>
            Also purge this user’s messages, deliveries and profile here, once every notice is forwarded
            <span className="muted hint" data-testid="deletion-purge-hint">
              Hookbench keeps every message it received, the deliveries made from them (with their attempts), and a profile per user. With
              this box ticked all of them are removed from the log once the receivers have the notices, and so are the dropped items naming
              the user; only this request and its delete notices stay, as the record that the deletion was asked for and forwarded. Unticked,
              only the notices are sent.
            </span>
          </span>
        </label>
        {!confirming ? (
          <button type="submit" className="btn danger" data-testid="deletion-submit">
            Request deletion…
          </button>
        ) : (
          <div className="dl-confirm" role="alertdialog" aria-labelledby="dl-confirm-text">
            <p id="dl-confirm-text" data-testid="deletion-confirm-text">
              Send delete notices for <strong className="mono">{userId}</strong>
              {draft.purge ? ' and purge their messages, the deliveries made from them and their profile once forwarded' : ''}? This cannot be
              taken back.
            </p>
            <div className="buttons">
              <button type="submit" className="btn danger" data-testid="deletion-submit-confirm" disabled={submitting}>
                {submitting ? 'Requesting…' : `Yes, delete ${userId}`}
              </button>
              <button type="button" className="btn" data-testid="deletion-cancel" onClick={cancel}>
                Cancel
              </button>
            </div>
          </div>
        )}
        <Errors general />
        {submitted && (
          <p className="notice ok" role="status" data-testid="deletion-submitted" data-id={submitted.id}>
            Deletion of “{submitted.userId}” requested: {submitted.notices.length} notice{submitted.notices.length === 1 ? '' : 's'} to forward.
          </p>
        )}
      </form>
    </section>
  );
}

function RequestList() {
  const loaded = useDeletions((s) => s.loaded);
  const requests = useDeletions((s) => s.requests);
  return (
    <section className="card" aria-labelledby="dl-list-title">
      <h2 id="dl-list-title">Requests</h2>
      {loaded && requests.length === 0 ? (
        <p className="empty-note" data-testid="deletions-empty">
          No deletion requested yet. Request one with the form; its delete notices and their delivery appear here.
        </p>
      ) : (
        <ol className="dl-requests" data-testid="deletions">
          {requests.map((r) => (
            <RequestRow key={r.id} r={r} />
          ))}
        </ol>
      )}
    </section>
  );
}

const STATUS_TONE: Record<DeletionRequest['status'], string> = { pending: 'retrying', forwarded: 'succeeded', failed: 'failed' };
const STRIPE: Record<DeletionRequest['status'], string> = { pending: 'warn', forwarded: 'ok', failed: 'bad' };

function RequestRow({ r }: { r: DeletionRequest }) {
  return (
    <li className={`entry ${STRIPE[r.status]}`} data-testid="deletion-row" data-user={r.userId} data-status={r.status} data-id={r.id}>
      <div className="dl-request-head">
        <strong className="mono dl-user">{r.userId}</strong>
        <Badge tone={STATUS_TONE[r.status]} testId="deletion-status" title={STATUS_WORDS[r.status]}>
          {r.status}
        </Badge>
        <span className="muted">
          requested <time dateTime={r.createdAt}>{dateTimeOf(r.createdAt)}</time>
        </span>
      </div>
      <p className="dl-explain" data-testid="deletion-explanation">
        {sentence(undefined, statusExplanation(r))}
      </p>
      <dl className="facts">
        <dt>Sources with data</dt>
        <dd data-testid="deletion-sources">{r.affectedSources.length > 0 ? r.affectedSources.join(', ') : 'none: no source received data for this user'}</dd>
        <dt>Purge</dt>
        <dd data-testid="deletion-purged" data-state={purgeState(r)}>
          {purgeInWords(r)}
        </dd>
      </dl>
      {r.notices.length > 0 && (
        <table className="data-table compact dl-notices">
          <thead>
            <tr>
              <th>Source</th>
              <th>Destination</th>
              <th>Delivery</th>
            </tr>
          </thead>
          <tbody>
            {r.notices.map((n) => (
              <Notice key={n.deliveryId} n={n} />
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

function Notice({ n }: { n: DeletionNotice }) {
  const selectDelivery = useDeliveries((s) => s.select);
  return (
    <tr data-testid="deletion-notice" data-source={n.source} data-status={n.status}>
      <td>{n.source}</td>
      <td>{n.destination}</td>
      <td>
        <a
          href="#/deliveries"
          data-testid="deletion-notice-link"
          data-id={n.deliveryId}
          onClick={() => {
            // The hash change shows the Deliveries view; selecting first makes it open on this one.
            selectDelivery(n.deliveryId);
          }}
        >
          #{n.deliveryId}
        </a>{' '}
        <Badge tone={n.status} testId="deletion-notice-status" title={deliveryStatusMeaning(n.status)}>
          {n.status}
        </Badge>
      </td>
    </tr>
  );
}
