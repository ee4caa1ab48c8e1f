import { useEffect, useId, useState } from 'react';
import { WarpSwitch } from './WarpSwitch';
import { MAX_WEBHOOKS_PER_DESTINATION } from '../../../src-shared/settings';
import { SigningChoice } from './SigningChoice';
import { ADD_URL_LIMIT_REASON, edit, field, headerRowFields, placedFields, type WebhookDraft } from './destination-form';
import { generateSecret } from './write-key';
import { FieldErrors } from '../../shared/form-widgets';
import { useConfigure } from '../../app/view-stores';

export function DestinationEditor() {
  const draft = useConfigure((s) => s.draft);
  const errors = useConfigure((s) => s.draftErrors);
  const saving = useConfigure((s) => s.saving);
  const secretsAtRest = useConfigure((s) => s.environment?.secrets);
  const saved = useConfigure((s) => s.destinationSaved);
  const sources = useConfigure((s) => s.sources);
  const update = useConfigure((s) => s.updateDraft);
  const save = useConfigure((s) => s.saveDestination);
  const close = useConfigure((s) => s.closeEditor);
  const [reveal, setReveal] = useState(false);
  // A secret shown to check it is hidden again once saved, as a password field would be.
  useEffect(() => {
    if (saved) setReveal(false);
  }, [saved]);
  if (!draft) return null;
  const placed = placedFields(draft);
  const unplaced = errors.filter((e) => !placed.has(e.field));
  const atLimit = draft.webhooks.length >= MAX_WEBHOOKS_PER_DESTINATION;
  const invalid = (f: string): boolean => errors.some((e) => e.field === f);

  return (
    <form
      className="cfg-form destination-form"
      data-testid="destination-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3>{draft.saved ? `Edit “${draft.saved}”` : 'New destination'}</h3>
      <div className="cfg-row">
        <label className="field grow">
          <span className="field-label">Name</span>
          <input
            value={draft.name}
            onChange={(e) => update((d) => ({ ...d, name: e.target.value }))}
            placeholder="My receiver"
            data-testid="destination-name"
            aria-invalid={invalid(field.name)}
          />
          {draft.saved !== null && draft.name.trim() !== '' && draft.name.trim() !== draft.saved && (
            <span className="muted hint" data-testid="destination-rename-note">
              Saving renames “{draft.saved}”; its deliveries keep their history and show the new name.
            </span>
          )}
          <FieldErrors errors={errors} fields={[field.name]} label="Name" />
        </label>
        <label className="cfg-switch">
          <input
            type="checkbox"
            role="switch"
            checked={draft.enabled}
            onChange={(e) => update((d) => ({ ...d, enabled: e.target.checked }))}
            data-testid="destination-enabled"
          />
          <span>{draft.enabled ? 'Enabled' : 'Switched off: new events are not delivered'}</span>
        </label>
      </div>
      <FieldErrors errors={errors} fields={[field.enabled]} />
      <WarpSwitch warp={draft.warp} onChange={(warp) => update((d) => ({ ...d, warp }))} />
      <FieldErrors errors={errors} fields={[field.warp]} label="Time-warp" />

      <fieldset className="group">
        <legend>Attached sources</legend>
        {sources.length === 0 && <p className="muted">No sources yet: create one above first, or nothing will reach this destination.</p>}
        <div className="cfg-checks">
          {sources.map((s) => (
            <label key={s.id} className="cfg-check">
              <input
                type="checkbox"
                checked={draft.sources.includes(s.name)}
                onChange={(e) => update((d) => edit.toggleSource(d, s.name, e.target.checked))}
                data-testid={`destination-source-${s.name}`}
              />
              {s.name}
            </label>
          ))}
        </div>
        <FieldErrors errors={errors} fields={[field.sources, ...draft.sources.map((_s, k) => `${field.sources}[${k}]`)]} label="Sources" />
      </fieldset>

      <fieldset className="group">
        <legend>
          Webhook URLs <span className="muted">({draft.webhooks.length} of {MAX_WEBHOOKS_PER_DESTINATION})</span>
        </legend>
        {draft.webhooks.map((w, i) => (
          <WebhookEntry key={i} entry={w} i={i} />
        ))}
        <FieldErrors errors={errors} fields={[field.webhooks, field.webhook(MAX_WEBHOOKS_PER_DESTINATION)]} label="Webhook URLs" />
        <div className="inline">
          <button type="button" className="btn" disabled={atLimit} onClick={() => update(edit.addWebhook)} data-testid="webhook-add-url" aria-describedby={atLimit ? 'url-limit' : undefined}>
            Add URL
          </button>
          {atLimit && (
            <span id="url-limit" className="muted" data-testid="webhook-add-url-reason">
              {ADD_URL_LIMIT_REASON}
            </span>
          )}
        </div>
      </fieldset>

      <fieldset className="group">
        <legend>Shared secret</legend>
        <div className="inline">
          <input
            className="mono grow"
            type={reveal ? 'text' : 'password'}
            value={draft.sharedSecret}
            onChange={(e) => update((d) => ({ ...d, sharedSecret: e.target.value }))}
            autoComplete="off"
            spellCheck={false}
            placeholder="none: requests are not signed"
            data-testid="destination-secret"
            aria-invalid={invalid(field.sharedSecret)}
          />
          <button type="button" className="btn small" aria-pressed={reveal} onClick={() => setReveal(!reveal)} data-testid="destination-secret-reveal">
            {reveal ? 'Hide' : 'Reveal'}
          </button>
          <button type="button" className="btn small" onClick={() => update((d) => ({ ...d, sharedSecret: generateSecret() }))} data-testid="destination-secret-generate">
            Generate
          </button>
        </div>
        <p className="muted hint">With a secret, every request carries X-Signature: the lowercase hex HMAC-SHA1 of the body with it.</p>
        {secretsAtRest && !secretsAtRest.sealed && (
          <p className="muted hint" data-testid="destination-secret-at-rest">
            {secretsAtRest.reason}
          </p>
        )}
        <FieldErrors errors={errors} fields={[field.sharedSecret]} label="The secret" />
      </fieldset>

      <SigningChoice draft={draft} reveal={reveal} onChange={(signing) => update((d) => ({ ...d, signing }))} errors={errors} />

      {unplaced.length > 0 && (
        <div className="notice bad" data-testid="destination-errors">
          <FieldErrors errors={unplaced} fields={unplaced.map((e) => e.field)} />
        </div>
      )}
      <div className="buttons">
        <button type="submit" className="btn primary" disabled={saving} data-testid="destination-save">
          {saving ? 'Saving…' : 'Save destination'}
        </button>
        <button type="button" className="btn" onClick={close} data-testid="destination-close">
          {saved ? 'Close' : 'Cancel'}
        </button>
        {errors.length > 0 && (
          <span className="field-error" data-testid="destination-not-saved">
            Not saved: fix the {errors.length === 1 ? 'problem' : `${errors.length} problems`} shown.
          </span>
        )}
        {saved && (
          <span className="status status-succeeded" role="status" data-testid="destination-saved">
            Saved “{saved}”
          </span>
        )}
      </div>
    </form>
  );
}

function WebhookEntry({ entry, i }: { entry: WebhookDraft; i: number }) {
  const draft = useConfigure((s) => s.draft);
  const errors = useConfigure((s) => s.draftErrors);
  const update = useConfigure((s) => s.updateDraft);
  const urlId = useId();
  if (!draft) return null;
  return (
    <div className={entry.enabled ? 'webhook' : 'webhook webhook-off'} data-testid="webhook-entry" data-enabled={entry.enabled}>
      <div className="inline">
        <span className="webhook-index" aria-hidden="true">
          {i + 1}
        </span>
        <label className="sr-only" htmlFor={urlId}>
          Webhook URL {i + 1}
        </label>
        <input
          id={urlId}
          className="mono grow"
          type="url"
          value={entry.url}
          onChange={(e) => update((d) => edit.setUrl(d, i, e.target.value))}
          placeholder="http://127.0.0.1:3000/webhook"
          spellCheck={false}
          data-testid={`webhook-url-${i}`}
          aria-invalid={errors.some((e) => e.field === field.url(i))}
        />
        <label className="cfg-switch small" title="Switched off, the URL and its headers are kept but nothing is sent to it.">
          <input
            type="checkbox"
            role="switch"
            checked={entry.enabled}
            aria-checked={entry.enabled}
            onChange={(e) => update((d) => edit.setWebhookEnabled(d, i, e.target.checked))}
            data-testid={`webhook-enabled-${i}`}
          />
          <span>{entry.enabled ? 'On' : 'Off'}</span>
        </label>
        <button type="button" className="btn small" disabled={draft.webhooks.length === 1} onClick={() => update((d) => edit.removeWebhook(d, i))} data-testid={`webhook-remove-${i}`}>
          Remove URL
        </button>
      </div>
      {!entry.enabled && (
        <p className="muted hint" data-testid={`webhook-off-note-${i}`}>
          Switched off: kept with its headers, but nothing is sent to it until it is switched on again.
        </p>
      )}
      <FieldErrors errors={errors} fields={[field.url(i), field.webhook(i)]} label="The URL" />
      <div className="headers-editor">
        {entry.headers.map((h, j) => (
          <div key={j} className="header-row">
            <div className="inline">
              <input
                className="mono"
                value={h.name}
                onChange={(e) => update((d) => edit.setHeader(d, i, j, { name: e.target.value }))}
                placeholder="Header-Name"
                spellCheck={false}
                aria-label={`Header ${j + 1} name`}
                data-testid={`webhook-header-name-${i}-${j}`}
              />
              <input
                className="mono grow"
                value={h.value}
                onChange={(e) => update((d) => edit.setHeader(d, i, j, { value: e.target.value }))}
                placeholder="value"
                spellCheck={false}
                aria-label={`Header ${j + 1} value`}
                data-testid={`webhook-header-value-${i}-${j}`}
              />
              <button type="button" className="btn small" aria-label={`Remove header ${j + 1}`} onClick={() => update((d) => edit.removeHeader(d, i, j))} data-testid={`webhook-header-remove-${i}-${j}`}>
                ×
              </button>
            </div>
            <FieldErrors errors={errors} fields={headerRowFields(draft, i, j)} />
          </div>
        ))}
        <button type="button" className="btn small" onClick={() => update((d) => edit.addHeader(d, i))} data-testid={`webhook-add-header-${i}`}>
          Add header
        </button>
      </div>
    </div>
  );
}
