import { TRAIT_OPERATORS, type TraitOperator } from '../../../src-shared/personas';
import type { FieldError } from '../../../src-shared/settings';
import { sentence } from '../../shared/form-widgets';
import { keyPreview, OPERATOR_WORDS, placeOf, VALUELESS, type Combine, type ConditionRow, type Place, type RuleKind } from './form';
import { previewCountInWords, valueInWords } from './computation-words';
import { useAudiences } from '../../app/view-stores';
import { CatchingUpNote } from './ProfilesPanel';

// Stable empties: a selector must not return a new array on every call.
const NONE: FieldError[] = [];
const NO_ROWS: ConditionRow[] = [];

/** The refusals (ours or the engine's) that belong at one place on the form, each naming its field path. */
export function ErrorsAt({ place, label }: { place: Place; label?: string }) {
  const errors = useAudiences((s) => s.editor?.errors ?? NONE);
  const mine = errors.filter((e) => placeOf(e.field) === place);
  if (mine.length === 0) return null;
  return (
    <>
      {mine.map((e, k) => (
        <p key={`${e.field}-${k}`} className="field-error" role="alert" data-testid="field-error" data-field={e.field}>
          {place.startsWith('row:') || place === 'rule' ? `${fieldWord(e.field)}: ${e.message}` : sentence(label, e.message)}
        </p>
      ))}
    </>
  );
}

/** The last part of a path (`condition.all[1].atLeast` → "at least"), for a row's refusals. */
function fieldWord(field: string): string {
  const last = field.split('.').pop() ?? field;
  const words: Record<string, string> = { atLeast: 'At least', atMost: 'At most', withinDays: 'Days', where: 'Where', event: 'Event', trait: 'Trait', value: 'Value', op: 'Comparison', property: 'Property' };
  return words[last.replace(/\[\d+\]$/, '')] ?? last;
}

export function ComputationEditor() {
  const cls = useAudiences((s) => s.editor?.form.class);
  const editing = useAudiences((s) => s.editor?.editing ?? false);
  const close = useAudiences((s) => s.closeEditor);
  const save = useAudiences((s) => s.save);
  if (!cls) return null;
  const what = cls === 'audience' ? 'audience' : 'computed trait';
  return (
    <section className="card" data-testid="computation-editor" data-class={cls} aria-labelledby="ps-editor-title">
      <div className="card-head">
        <h2 id="ps-editor-title">{editing ? `Edit ${what}` : `New ${what}`}</h2>
        <button type="button" className="btn small" data-testid="computation-cancel" onClick={close}>
          Cancel
        </button>
      </div>
      <form
        className="ps-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <NameField />
        <SpaceField />
        {cls === 'audience' ? <ConditionBuilder /> : <RuleFields />}
        <IntervalField />
        <ErrorsAt place="general" />
        <Preview />
        <SaveBar />
      </form>
    </section>
  );
}

function NameField() {
  const name = useAudiences((s) => s.editor?.form.name ?? '');
  const editing = useAudiences((s) => s.editor?.editing ?? false);
  const savedKey = useAudiences((s) => (s.editor?.editing ? (s.computations.find((c) => c.name === s.editor?.form.name)?.key ?? null) : null));
  const update = useAudiences((s) => s.update);
  const invalid = useAudiences((s) => (s.editor?.errors ?? NONE).some((e) => placeOf(e.field) === 'name'));
  const preview = keyPreview(name);
  return (
    <div className="field">
      <label htmlFor="ps-name" className="field-label">Name</label>
      <input
        id="ps-name"
        data-testid="computation-name"
        value={name}
        placeholder="e.g. High Value Pro"
        aria-invalid={invalid}
        readOnly={editing}
        spellCheck={false}
        onChange={(e) => update({ name: e.target.value })}
      />
      <p className="muted hint">
        Trait key sent:{' '}
        <code className="mono" data-testid="computation-key-preview" data-source={savedKey ? 'engine' : 'preview'}>
          {savedKey ?? (preview || '…')}
        </code>{' '}
        {savedKey ? '(as saved; a definition is replaced by its name)' : '(its snake_case form, by the same rules the engine uses)'}
      </p>
      <ErrorsAt place="name" label="Name" />
    </div>
  );
}

function SpaceField() {
  const space = useAudiences((s) => s.editor?.form.space ?? '');
  const sources = useAudiences((s) => s.sources);
  const loaded = useAudiences((s) => s.sourcesLoaded);
  const update = useAudiences((s) => s.update);
  if (loaded && sources.length === 0) {
    return (
      <div className="field">
        <span className="field-label">Space</span>
        <p className="empty-note" data-testid="computation-no-sources">
          No source yet. A definition lives in a source (its space): its identify calls go to the destinations attached to that source. Create
          one under{' '}
          <a href="#/configure" data-testid="computation-goto-configure">
            Configure
          </a>{' '}
          first.
        </p>
        <ErrorsAt place="space" label="Space" />
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor="ps-space" className="field-label">Space (source)</label>
      <select id="ps-space" data-testid="computation-space" value={space} onChange={(e) => update({ space: e.target.value })}>
        {space === '' && <option value="">Pick a source</option>}
        {sources.map((s) => (
          <option key={s.id} value={s.name}>
            {s.name}
          </option>
        ))}
      </select>
      <p className="muted hint">Its identify calls go to the enabled destinations attached to this source, as the source’s own calls do.</p>
      <ErrorsAt place="space" label="Space" />
    </div>
  );
}

function ConditionBuilder() {
  const rows = useAudiences((s) => (s.editor?.form.class === 'audience' ? s.editor.form.rows : NO_ROWS));
  const combine = useAudiences((s) => (s.editor?.form.class === 'audience' ? s.editor.form.combine : 'and'));
  const setCombine = useAudiences((s) => s.setCombine);
  const addRow = useAudiences((s) => s.addRow);
  return (
    <fieldset className="group ps-conditions">
      <legend>Members are profiles that match</legend>
      <div className="ps-combine">
        <select data-testid="condition-combine" aria-label="Combine conditions with" value={combine} onChange={(e) => setCombine(e.target.value as Combine)}>
          <option value="and">all of these (and)</option>
          <option value="or">any of these (or)</option>
        </select>
      </div>
      {rows.map((row, i) => (
        <div key={i} className="ps-row-wrap">
          {i > 0 && <span className="ps-joiner">{combine}</span>}
          <ConditionRowEditor row={row} index={i} removable={rows.length > 1} />
        </div>
      ))}
      <ErrorsAt place="condition" />
      <button type="button" className="btn small" data-testid="condition-add" onClick={addRow}>
        + Add a condition
      </button>
      <p className="muted hint">
        Values are read as JSON when they parse (<code className="mono">42</code>, <code className="mono">true</code>,{' '}
        <code className="mono">"42"</code>), as text otherwise (<code className="mono">pro</code>).
      </p>
    </fieldset>
  );
}

function ConditionRowEditor({ row, index: i, removable }: { row: ConditionRow; index: number; removable: boolean }) {
  const updateRow = useAudiences((s) => s.updateRow);
  const removeRow = useAudiences((s) => s.removeRow);
  const set = (patch: Partial<ConditionRow>): void => updateRow(i, patch);
  const invalid = useAudiences((s) => (s.editor?.errors ?? NONE).some((e) => placeOf(e.field) === `row:${i}`));
  return (
    <div className={`ps-row${invalid ? ' invalid' : ''}`} data-testid={`condition-row-${i}`} data-kind={row.kind}>
      <div className="inline">
        <select data-testid={`condition-kind-${i}`} aria-label="Kind of condition" value={row.kind} onChange={(e) => set({ kind: e.target.value as ConditionRow['kind'] })}>
          <option value="event">performed event</option>
          <option value="trait">trait</option>
        </select>
        {row.kind === 'event' ? (
          <>
            <input className="ps-wide" data-testid={`condition-event-${i}`} aria-label="Event name" placeholder="Order Completed" value={row.event} onChange={(e) => set({ event: e.target.value })} />
            <span>at least</span>
            <input className="ps-num" data-testid={`condition-atleast-${i}`} aria-label="At least" inputMode="numeric" value={row.atLeast} placeholder="1" onChange={(e) => set({ atLeast: e.target.value })} />
            <span>times, at most</span>
            <input className="ps-num" data-testid={`condition-atmost-${i}`} aria-label="At most" inputMode="numeric" value={row.atMost} placeholder="any" onChange={(e) => set({ atMost: e.target.value })} />
            <span>in the last</span>
            <input className="ps-num" data-testid={`condition-days-${i}`} aria-label="Days" inputMode="numeric" value={row.withinDays} placeholder="all" onChange={(e) => set({ withinDays: e.target.value })} />
            <span>days</span>
          </>
        ) : (
          <>
            <input className="ps-wide" data-testid={`condition-trait-${i}`} aria-label="Trait key" placeholder="plan" value={row.trait} onChange={(e) => set({ trait: e.target.value })} />
            <select data-testid={`condition-op-${i}`} aria-label="Comparison" value={row.op} onChange={(e) => set({ op: e.target.value as TraitOperator })}>
              {TRAIT_OPERATORS.map((op) => (
                <option key={op} value={op}>
                  {OPERATOR_WORDS[op]}
                </option>
              ))}
            </select>
            {!VALUELESS.includes(row.op) && (
              <input className="ps-wide" data-testid={`condition-value-${i}`} aria-label="Value" placeholder="pro" value={row.value} onChange={(e) => set({ value: e.target.value })} />
            )}
          </>
        )}
        {removable && (
          <button type="button" className="btn small ps-remove" data-testid={`condition-remove-${i}`} aria-label={`Remove condition ${i + 1}`} onClick={() => removeRow(i)}>
            ×
          </button>
        )}
      </div>
      {row.kind === 'event' && (
        <div className="inline ps-where">
          <span>where property</span>
          <input data-testid={`condition-where-property-${i}`} aria-label="Property" placeholder="(optional) currency" value={row.whereProperty} onChange={(e) => set({ whereProperty: e.target.value })} />
          <span>=</span>
          <input data-testid={`condition-where-value-${i}`} aria-label="Property value" placeholder="EUR" value={row.whereValue} onChange={(e) => set({ whereValue: e.target.value })} />
        </div>
      )}
      <ErrorsAt place={`row:${i}`} />
    </div>
  );
}

const RULE_WORDS: Record<RuleKind, string> = {
  event_count: 'how many times the profile performed an event',
  last_property: 'a property of the profile’s most recent event',
};

function RuleFields() {
  const form = useAudiences((s) => (s.editor?.form.class === 'trait' ? s.editor.form : null));
  const update = useAudiences((s) => s.update);
  if (!form) return null;
  return (
    <fieldset className="group ps-conditions">
      <legend>Value</legend>
      <div className="inline">
        <select data-testid="trait-rule-kind" aria-label="Rule" value={form.ruleKind} onChange={(e) => update({ ruleKind: e.target.value as RuleKind })}>
          {(Object.keys(RULE_WORDS) as RuleKind[]).map((k) => (
            <option key={k} value={k}>
              {RULE_WORDS[k]}
            </option>
          ))}
        </select>
      </div>
      <div className="inline">
        {form.ruleKind === 'event_count' ? (
          <>
            <span>count of</span>
            <input className="ps-wide" data-testid="trait-event" aria-label="Event name" placeholder="Order Completed" value={form.event} onChange={(e) => update({ event: e.target.value })} />
            <span>in the last</span>
            <input className="ps-num" data-testid="trait-days" aria-label="Days" inputMode="numeric" placeholder="all" value={form.withinDays} onChange={(e) => update({ withinDays: e.target.value })} />
            <span>days</span>
          </>
        ) : (
          <>
            <span>last value of property</span>
            <input data-testid="trait-property" aria-label="Property" placeholder="total" value={form.property} onChange={(e) => update({ property: e.target.value })} />
            <span>of event</span>
            <input className="ps-wide" data-testid="trait-event" aria-label="Event name" placeholder="Order Completed" value={form.event} onChange={(e) => update({ event: e.target.value })} />
          </>
        )}
      </div>
      <ErrorsAt place="rule" />
    </fieldset>
  );
}

function IntervalField() {
  const value = useAudiences((s) => s.editor?.form.syncEveryMinutes ?? '');
  const update = useAudiences((s) => s.update);
  return (
    <div className="field">
      <label htmlFor="ps-interval" className="field-label">Sync every</label>
      <div className="inline">
        <input id="ps-interval" className="ps-num" data-testid="computation-interval" inputMode="numeric" placeholder="—" value={value} onChange={(e) => update({ syncEveryMinutes: e.target.value })} />
        <span>minutes</span>
        <span className="muted">{value.trim() === '' ? '(empty: only when you press “Sync now”)' : ''}</span>
      </div>
      <ErrorsAt place="interval" label="The interval" />
    </div>
  );
}

function Preview() {
  const preview = useAudiences((s) => s.editor?.preview ?? null);
  const previewing = useAudiences((s) => s.editor?.previewing ?? false);
  const cls = useAudiences((s) => s.editor?.form.class ?? 'audience');
  const run = useAudiences((s) => s.preview);
  return (
    <div className="ps-preview">
      <div className="inline">
        <button type="button" className="btn" data-testid="computation-preview" disabled={previewing} onClick={() => void run()}>
          {previewing ? 'Looking…' : cls === 'audience' ? 'Preview members' : 'Preview values'}
        </button>
        <span className="muted">Nothing is saved or sent.</span>
      </div>
      {preview && (
        <div data-testid="preview-result">
          <p>
            <strong data-testid="preview-total">{previewCountInWords(preview)}</strong> {cls === 'audience' ? (preview.total === 1 ? 'member' : 'members') : preview.total === 1 ? 'profile with a value' : 'profiles with a value'} now
            {preview.members.length < preview.total ? <span className="muted"> (the first {preview.members.length} shown)</span> : null}
          </p>
          {preview.catchingUp && <CatchingUpNote progress={preview.catchingUp} />}
          {preview.members.length > 0 && (
            <table className="data-table nowrap compact">
              <thead>
                <tr>
                  <th>Profile</th>
                  <th>userId</th>
                  <th>Other ids</th>
                  <th>{cls === 'audience' ? 'Member' : 'Value'}</th>
                </tr>
              </thead>
              <tbody>
                {preview.members.map((m) => (
                  <tr key={m.profileId} data-testid="preview-member" data-profile={m.profileId}>
                    <td className="mono">{m.profileId}</td>
                    <td className="mono">{m.userId ?? '—'}</td>
                    <td className="mono">{m.anonymousIds.length > 0 ? m.anonymousIds.join(', ') : '—'}</td>
                    <td className="mono">{valueInWords(m.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}

function SaveBar() {
  const editor = useAudiences((s) => s.editor);
  const noSources = useAudiences((s) => s.sourcesLoaded && s.sources.length === 0);
  if (!editor) return null;
  const { form, editing, saving, preview } = editor;
  const key = keyPreview(form.name) || 'its_key';
  const audience = form.class === 'audience';
  const label = editing ? 'Save changes' : audience ? 'Create and send identify to every member' : 'Create and send every profile’s value';
  const who = preview ? `${previewCountInWords(preview)} ${audience ? (preview.total === 1 ? 'member' : 'members') : preview.total === 1 ? 'profile' : 'profiles'} at the last preview` : null;
  return (
    <div className="ps-save">
      <button type="submit" className="btn primary" data-testid="computation-save" disabled={saving || noSources}>
        {saving ? 'Saving and sending…' : label}
      </button>
      <p className="muted hint" data-testid="computation-save-note">
        {editing
          ? 'Replaces the definition of this name; the next sync sends only the users whose membership or value changed.'
          : audience
            ? `Creating runs the first sync at once: one identify call with {"${key}": true} for every member${who ? ` (${who})` : ''}, to the enabled destinations attached to “${form.space || '…'}”.`
            : `Creating runs the first sync at once: one identify call with {"${key}": value} for every profile that has a value${who ? ` (${who})` : ''}, to the enabled destinations attached to “${form.space || '…'}”.`}
      </p>
    </div>
  );
}
