import { useNow } from '../../shared/use-now';
import type { Computation } from '../../../src-shared/personas';
import { timeOf } from '../../shared/format';
import { ComputationDetail } from './ComputationDetail';
import { ComputationEditor } from './ComputationEditor';
import { ProfilesPanel } from './ProfilesPanel';
import { changesInWords, CLASS_WORDS, definitionInWords, sizeInWords, untilInWords } from './computation-words';
import { useAudiences, useFollowWhileShown } from '../../app/view-stores';

export function AudiencesView() {
  useFollowWhileShown('audiences');
  const loaded = useAudiences((s) => s.loaded);
  const editing = useAudiences((s) => s.editor !== null);
  const selected = useAudiences((s) => s.selectedId !== null);
  return (
    <section className="view audiences" data-testid="audiences-view" aria-busy={!loaded}>
      <div className="columns narrow-end">
        <div className="stack">
          <ComputationList />
          {editing && <ComputationEditor />}
          {!editing && selected && <ComputationDetail />}
        </div>
        <ProfilesPanel />
      </div>
    </section>
  );
}

function ComputationList() {
  const loaded = useAudiences((s) => s.loaded);
  const computations = useAudiences((s) => s.computations);
  const newAudience = useAudiences((s) => s.newAudience);
  const newTrait = useAudiences((s) => s.newTrait);
  const now = useNow(30_000);
  return (
    <section className="card" aria-labelledby="ps-list-title">
      <div className="card-head">
        <h2 id="ps-list-title">Audiences and computed traits</h2>
        <div className="inline">
          <button type="button" className="btn primary" data-testid="audience-new" onClick={newAudience}>
            New audience
          </button>
          <button type="button" className="btn" data-testid="trait-new" onClick={newTrait}>
            New computed trait
          </button>
        </div>
      </div>
      <p className="muted card-intro">
        Built from the profiles the Tracking API received. Each one is sent to the destinations of its space as identify calls whose traits hold
        its key: <code className="mono">true</code> / <code className="mono">false</code> when a user enters or leaves an audience, the new value
        when a computed trait changes.
      </p>
      {loaded && computations.length === 0 ? (
        <p className="empty-note" data-testid="computations-empty">
          Nothing defined yet. Start with <strong>New audience</strong>, e.g. users who performed “Order Completed” at least twice in 30 days
          and whose plan is “pro”.
        </p>
      ) : (
        <div className="ps-table-wrap">
          <table className="data-table selectable nowrap" data-testid="computations">
            <thead>
              <tr>
                <th>Name</th>
                <th>Class</th>
                <th>Key sent</th>
                <th>Space</th>
                <th>Size</th>
                <th>Last sync</th>
                <th>Next sync</th>
              </tr>
            </thead>
            <tbody>
              {computations.map((c) => (
                <ComputationRow key={c.id} c={c} now={now} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ComputationRow({ c, now }: { c: Computation; now: number }) {
  const selected = useAudiences((s) => s.selectedId === c.id);
  const select = useAudiences((s) => s.select);
  return (
    <tr
      className={selected ? 'selected' : undefined}
      data-testid="computation-row"
      data-name={c.name}
      data-key={c.key}
      data-id={c.id}
      tabIndex={0}
      aria-selected={selected}
      onClick={() => select(c.id)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          select(c.id);
        }
      }}
    >
      <td className="ps-name">
        <strong data-testid="computation-row-name">{c.name}</strong>
        <span className="muted ps-definition">{definitionInWords(c)}</span>
      </td>
      <td>
        <span className={`status ps-class-${c.class}`}>{CLASS_WORDS[c.class]}</span>
      </td>
      <td>
        <code className="mono" data-testid="computation-row-key">
          {c.key}
        </code>
      </td>
      <td data-testid="computation-row-space">{c.space}</td>
      <td data-testid="computation-size" data-size={c.size}>
        {sizeInWords(c)}
      </td>
      <td data-testid="computation-last-sync">
        {c.syncing ? (
          <span data-testid="computation-syncing" data-sent={c.syncing.sent}>
            syncing: {c.syncing.sent.toLocaleString('en-US')} sent
          </span>
        ) : c.lastSync ? (
          <>
            <time dateTime={c.lastSync.startedAt}>{timeOf(c.lastSync.startedAt)}</time> <span className="muted">{c.lastSync.kind}</span>{' '}
            <span title="entered / exited / changed">{changesInWords(c.lastSync)}</span>
          </>
        ) : (
          <span className="muted">never</span>
        )}
      </td>
      <td data-testid="computation-next-sync" title={c.nextSyncAt ?? undefined}>
        {untilInWords(c.nextSyncAt, now)}
      </td>
    </tr>
  );
}
