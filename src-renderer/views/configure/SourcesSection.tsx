import type { Source } from '../../../src-shared/settings';
import { ClientSnippets } from './ClientSnippets';
import { INGEST_PLACEHOLDER, snippetsFor } from './snippets';
import { ConfirmButton, FieldErrors } from '../../shared/form-widgets';
import { CopyButton } from '../../shared/CopyButton';
import { useConfigure } from '../../app/view-stores';
import { Snippet } from './Snippet';

export function SourcesSection() {
  const sources = useConfigure((s) => s.sources);
  return (
    <section className="card" data-testid="sources-section" aria-labelledby="sources-title">
      <h2 id="sources-title">Sources</h2>
      <p className="muted card-intro">A source is an app or service that sends events. Its write key tells Hookbench which source a call comes from.</p>
      {sources.length === 0 ? (
        <p className="empty-note" data-testid="sources-empty">
          No sources yet. Create one below, then point an SDK at the address shown with its write key.
        </p>
      ) : (
        <table className="data-table" data-testid="sources">
          <thead>
            <tr>
              <th>Name</th>
              <th>Write key</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {sources.map((s) => (
              <SourceRow key={s.id} source={s} />
            ))}
          </tbody>
        </table>
      )}
      <SourceForm />
      <Snippets />
    </section>
  );
}

function SourceRow({ source }: { source: Source }) {
  const selected = useConfigure((s) => s.selectedSource === source.name);
  const select = useConfigure((s) => s.selectSource);
  const remove = useConfigure((s) => s.deleteSource);
  const refusal = useConfigure((s) => s.removeErrors[source.name]);
  const rotate = useConfigure((s) => s.rotateWriteKey);
  const rotateRefusal = useConfigure((s) => s.rotateErrors[source.name]);
  const rotated = useConfigure((s) => (s.rotated?.name === source.name ? s.rotated : null));
  return (
    <>
      <tr className={selected ? 'selected' : undefined} data-testid="source-row" data-name={source.name}>
        <td data-testid="source-row-name">{source.name}</td>
        <td>
          <code className="mono" data-testid="source-row-writekey">
            {source.writeKey}
          </code>{' '}
          <CopyButton text={source.writeKey} testId="source-row-copy" />
        </td>
        <td className="cfg-actions">
          <button type="button" className="btn small" aria-pressed={selected} data-testid="source-snippets" onClick={() => select(source.name)}>
            {selected ? 'Snippets shown' : 'Show snippets'}
          </button>
          <ConfirmButton
            label="Rotate write key"
            confirm="Rotate now"
            warning={`Every SDK, app or script still sending ${source.writeKey} is refused from then on, until it is given the new key.`}
            testId="source-rotate"
            onConfirm={() => void rotate(source.name)}
          />
          <ConfirmButton label="Delete" confirm={`Delete “${source.name}”`} testId="source-delete" onConfirm={() => void remove(source.name)} />
        </td>
      </tr>
      {rotated && (
        <tr>
          <td colSpan={3}>
            <p className="status status-succeeded" role="status" data-testid="source-rotated">
              New write key saved. Calls with {rotated.oldKey} are now refused: give the new key to every client of “{source.name}”.
            </p>
          </td>
        </tr>
      )}
      {rotateRefusal && (
        <tr>
          <td colSpan={3}>
            <p className="field-error" role="alert" data-testid="source-rotate-error">
              Not rotated: {rotateRefusal}
            </p>
          </td>
        </tr>
      )}
      {refusal && (
        <tr>
          <td colSpan={3}>
            <p className="field-error" role="alert" data-testid="source-delete-error">
              Not deleted: {refusal}
            </p>
          </td>
        </tr>
      )}
    </>
  );
}

function SourceForm() {
  const draft = useConfigure((s) => s.sourceDraft);
  const errors = useConfigure((s) => s.sourceErrors);
  const saved = useConfigure((s) => s.sourceSaved);
  const set = useConfigure((s) => s.setSourceDraft);
  const newKey = useConfigure((s) => s.newWriteKey);
  const save = useConfigure((s) => s.saveSource);
  const unplaced = errors.filter((e) => e.field !== 'source.name' && e.field !== 'source.writeKey');
  return (
    <form
      className="cfg-form source-form"
      data-testid="source-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3>New source</h3>
      <div className="cfg-row">
        <label className="field">
          <span className="field-label">Name</span>
          <input value={draft.name} onChange={(e) => set({ name: e.target.value })} placeholder="backend" data-testid="source-name" aria-invalid={errors.some((e) => e.field === 'source.name')} />
          <FieldErrors errors={errors} fields={['source.name']} label="Name" />
        </label>
        <label className="field grow">
          <span className="field-label">Write key</span>
          <span className="inline">
            <input
              className="mono grow"
              value={draft.writeKey}
              onChange={(e) => set({ writeKey: e.target.value })}
              spellCheck={false}
              data-testid="source-writekey"
              aria-invalid={errors.some((e) => e.field === 'source.writeKey')}
            />
            <CopyButton text={draft.writeKey} testId="source-writekey-copy" />
            <button type="button" className="btn small" onClick={newKey} data-testid="source-writekey-new">
              New key
            </button>
          </span>
          <FieldErrors errors={errors} fields={['source.writeKey']} label="This key" />
        </label>
      </div>
      <FieldErrors errors={unplaced} fields={unplaced.map((e) => e.field)} />
      <div className="buttons">
        <button type="submit" className="btn primary" data-testid="source-save">
          Create source
        </button>
        {saved && (
          <span className="status status-succeeded" role="status" data-testid="source-saved">
            Saved “{saved}”
          </span>
        )}
      </div>
    </form>
  );
}

function Snippets() {
  const environment = useConfigure((s) => s.environment);
  const source = useConfigure((s) => s.sources.find((o) => o.name === s.selectedSource) ?? null);
  const ingest = environment?.ingestUrl ?? null;
  if (!source) return null;
  const snippets = snippetsFor(ingest, source.writeKey);
  return (
    <div className="snippets" data-testid="snippets" data-source={source.name}>
      <h3>Send events from “{source.name}”</h3>
      <p className="inline">
        <span className="muted">Tracking API address</span>
        <code className="mono" data-testid="ingest-url">
          {ingest ?? INGEST_PLACEHOLDER}
        </code>
        {ingest ? <CopyButton text={ingest} testId="ingest-url-copy" /> : <span className="muted">(the engine is not listening yet)</span>}
      </p>
      <div className="snippet-grid">
        <Snippet title="analytics-node" text={snippets.node} testId="snippet-node" />
        <Snippet title="analytics-go" text={snippets.go} testId="snippet-go" />
        <Snippet title="curl" text={snippets.curl} testId="snippet-curl" />
      </div>
      <ClientSnippets ingestUrl={ingest} writeKey={source.writeKey} />
    </div>
  );
}
