import { useCompose } from '../../app/view-stores';


/** Save the form under a name; load or delete saved ones. */
export function TemplatesPanel() {
  const templates = useCompose((s) => s.templates);
  const name = useCompose((s) => s.templateName);
  const error = useCompose((s) => s.templateError);
  const current = useCompose((s) => s.currentTemplate);
  const setName = useCompose((s) => s.setTemplateName);
  const save = useCompose((s) => s.saveTemplate);
  const load = useCompose((s) => s.loadTemplate);
  const remove = useCompose((s) => s.deleteTemplate);
  return (
    <aside className="card compose-templates" aria-label="Templates">
      <h3>Templates</h3>
      <form
        className="compose-template-save"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <input
          value={name}
          maxLength={100}
          placeholder="Name this call"
          aria-label="Template name"
          data-testid="template-name"
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" className="btn" data-testid="template-save" disabled={name.trim() === ''}>
          Save
        </button>
      </form>
      {error && (
        <p className="field-error" role="alert" data-testid="template-error">
          {error}
        </p>
      )}
      {templates.length === 0 ? (
        <p className="muted" data-testid="templates-empty">
          No templates yet. Fill in a call, name it above and save it to send it again later.
        </p>
      ) : (
        <ul className="compose-template-list">
          {templates.map((t) => (
            <li key={t.name} className={t.name === current ? 'current' : undefined} data-testid="template-row" data-name={t.name}>
              <div className="compose-template-text">
                <span className="compose-template-name" title={t.name}>
                  {t.name}
                </span>
                <span className="muted compose-template-meta">
                  {t.input.type} · {t.input.source}
                  {t.input.copies && t.input.copies > 1 ? ` · ×${t.input.copies}` : ''} · saved {savedAt(t.savedAt)}
                </span>
              </div>
              <button type="button" className="btn small" data-testid="template-load" onClick={() => load(t.name)}>
                Load
              </button>
              <button type="button" className="btn small danger-quiet" data-testid="template-delete" aria-label={`Delete template ${t.name}`} onClick={() => void remove(t.name)}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

function savedAt(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
