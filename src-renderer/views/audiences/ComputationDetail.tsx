import type { SyncSummary } from '../../../src-shared/personas';
import { ConfirmButton } from '../../shared/form-widgets';
import { LINKS_PER_SYNC } from './store';
import { CLASS_WORDS, definitionInWords, intervalInWords, sizeInWords, syncKindInWords } from './computation-words';
import { useAudiences, useDeliveries } from '../../app/view-stores';
import { dateTimeOf } from '../../shared/format';

export function ComputationDetail() {
  const c = useAudiences((s) => s.computations.find((o) => o.id === s.selectedId) ?? null);
  const saved = useAudiences((s) => (s.saved && s.saved.id === s.selectedId ? s.saved : null));
  const syncing = useAudiences((s) => s.syncing);
  const syncNow = useAudiences((s) => s.syncNow);
  const edit = useAudiences((s) => s.edit);
  const remove = useAudiences((s) => s.remove);
  const select = useAudiences((s) => s.select);
  if (!c) return null;
  return (
    <section className="card" data-testid="computation-detail" data-id={c.id} aria-labelledby="ps-detail-title">
      <div className="card-head">
        <h2 id="ps-detail-title">
          {c.name} <span className="muted">{CLASS_WORDS[c.class].toLowerCase()}</span>
        </h2>
        <div className="inline">
          <button type="button" className="btn primary" data-testid="computation-sync" disabled={syncing} onClick={() => void syncNow(c.id)}>
            {syncing ? 'Syncing…' : 'Sync now'}
          </button>
          <button type="button" className="btn" data-testid="computation-edit" onClick={() => edit(c.id)}>
            Edit
          </button>
          <ConfirmButton label="Delete" confirm={`Delete “${c.name}”; nothing more is sent`} testId="computation-delete" onConfirm={() => void remove(c.id)} />
          <button type="button" className="btn small" aria-label="Close" onClick={() => select(null)}>
            ×
          </button>
        </div>
      </div>
      {saved && (
        <p className="notice ok ps-saved" role="status" data-testid="computation-saved" data-key={saved.key} data-running={saved.running}>
          {saved.created ? 'Created' : 'Saved'} “{saved.name}”, key <code className="mono">{saved.key}</code>.{' '}
          {saved.sync
            ? `Its ${saved.sync.kind} sync sent ${saved.sync.sent.toLocaleString('en-US')} identify call${saved.sync.sent === 1 ? '' : 's'}, causing ${saved.sync.deliveries.toLocaleString('en-US')} deliver${saved.sync.deliveries === 1 ? 'y' : 'ies'}.`
            : saved.running
              ? `Its first sync is running: ${(c.syncing?.sent ?? 0).toLocaleString('en-US')} identify call${c.syncing?.sent === 1 ? '' : 's'} sent so far.`
              : 'Nothing was sent yet.'}
        </p>
      )}
      <dl className="facts ps-facts">
        <dt>Definition</dt>
        <dd data-testid="computation-definition">{definitionInWords(c)}</dd>
        <dt>Key sent</dt>
        <dd>
          <code className="mono" data-testid="computation-key">
            {c.key}
          </code>
        </dd>
        <dt>Space</dt>
        <dd>{c.space}: identify calls go to the enabled destinations attached to this source</dd>
        <dt>Size</dt>
        <dd>{sizeInWords(c)} at the last sync</dd>
        <dt>Syncs</dt>
        <dd>{intervalInWords(c.syncEveryMinutes)}</dd>
        <dt>Created</dt>
        <dd>{dateTimeOf(c.createdAt)}</dd>
      </dl>
      <SyncHistory />
    </section>
  );
}

function SyncHistory() {
  const syncs = useAudiences((s) => s.syncs);
  const loaded = useAudiences((s) => s.syncsOf === s.selectedId);
  const cls = useAudiences((s) => s.computations.find((o) => o.id === s.selectedId)?.class ?? 'audience');
  return (
    <>
      <h3>Sync history</h3>
      {loaded && syncs.length === 0 ? (
        <p className="muted" data-testid="syncs-empty">
          No sync yet.
        </p>
      ) : (
        <div className="ps-table-wrap">
          <table className="data-table nowrap" data-testid="syncs">
            <thead>
              <tr>
                <th>When</th>
                <th>Kind</th>
                <th title={cls === 'audience' ? 'became members' : 'got a value for the first time'}>Entered</th>
                <th title={cls === 'audience' ? 'left the audience' : 'lost their value'}>Exited</th>
                {cls === 'trait' && <th title="value changed, sent again">Changed</th>}
                <th title="identify calls made, one per profile">Identify calls</th>
                <th>Deliveries</th>
              </tr>
            </thead>
            <tbody>
              {syncs.map((s) => (
                <SyncRow key={s.id} sync={s} trait={cls === 'trait'} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function SyncRow({ sync: s, trait }: { sync: SyncSummary; trait: boolean }) {
  const statuses = useAudiences((st) => st.deliveryStatus);
  const selectDelivery = useDeliveries((st) => st.select);
  const shown = s.deliveryIds.slice(0, LINKS_PER_SYNC);
  return (
    <tr data-testid="sync-row" data-kind={s.kind} data-id={s.id}>
      <td>
        <time dateTime={s.startedAt}>{dateTimeOf(s.startedAt)}</time>
      </td>
      <td title={syncKindInWords(s.kind)}>{s.kind}</td>
      <td data-testid="sync-entered">{s.entered}</td>
      <td data-testid="sync-exited">{s.exited}</td>
      {trait && <td data-testid="sync-changed">{s.changed}</td>}
      <td data-testid="sync-sent">{s.sent}</td>
      <td className="ps-links">
        {s.deliveries === 0 ? (
          <span className="muted">{s.sent === 0 ? 'nothing changed' : 'no enabled destination'}</span>
        ) : (
          <>
            {shown.map((id) => {
              const status = statuses[id];
              return (
                <a
                  key={id}
                  href="#/deliveries"
                  className={`status status-${status ?? 'pending'}`}
                  data-testid="sync-delivery-link"
                  data-id={id}
                  data-status={status ?? ''}
                  title={status ? `delivery #${id}: ${status}` : `delivery #${id}`}
                  onClick={() => {
                    // The hash change shows the Deliveries view; selecting first makes it open on this one.
                    selectDelivery(id);
                  }}
                >
                  #{id}
                </a>
              );
            })}
            {s.deliveries > shown.length && <span className="muted"> and {(s.deliveries - shown.length).toLocaleString('en-US')} more</span>}
          </>
        )}
      </td>
    </tr>
  );
}
