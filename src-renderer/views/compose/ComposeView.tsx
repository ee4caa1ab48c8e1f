import { COMPOSE_TYPES, MAX_COMPOSE_COPIES, type ComposeType } from '../../../src-shared/api';
import { FieldError } from './FieldError';
import { useEffect, useMemo, useRef, useState } from 'react';
import { errorFieldsInOrder, FIELD_LABELS, parseJsonObject, previewOf, TYPE_FIELDS, type TextField } from './form';
import { IntegrationSwitches } from './IntegrationSwitches';
import { JsonEditor } from './JsonEditor';
import { TemplatesPanel } from './TemplatesPanel';
import { useCompose, useDeliveries, useFollowWhileShown } from '../../app/view-stores';
import { EmptyState } from '../../shared/EmptyState';

const TYPE_HINTS: Record<ComposeType, string> = {
  track: 'An action the user took, with its properties.',
  identify: 'Who the user is, with their traits.',
  page: 'A page the user viewed on a website.',
  screen: 'A screen the user viewed in a mobile app.',
  group: 'The user belongs to a company, team or account.',
  alias: 'Links an earlier id (previousId) to the user’s new userId.',
};

const TEXT_FIELDS: Record<TextField, { label: string; placeholder: string }> = {
  userId: { label: 'userId', placeholder: 'e.g. user_123' },
  anonymousId: { label: 'anonymousId', placeholder: 'a random id for a visitor not yet known' },
  event: { label: 'Event', placeholder: 'e.g. Order Completed' },
  name: { label: 'Name', placeholder: 'e.g. Pricing' },
  category: { label: 'Category', placeholder: 'e.g. Docs' },
  groupId: { label: 'groupId', placeholder: 'e.g. acme-inc' },
  previousId: { label: 'previousId', placeholder: 'the anonymousId or old userId' },
  messageId: { label: 'messageId', placeholder: 'empty: one per copy, generated' },
};

// One line each, starting "e.g.", so an empty editor never looks filled in.
const JSON_PLACEHOLDERS = {
  properties: 'e.g. {"total": 42.5, "currency": "EUR"}',
  traits: 'e.g. {"email": "ada@example.com", "plan": "pro"}',
  context: 'e.g. {"ip": "203.0.113.7", "locale": "en-GB"}',
};
const PAGE_PLACEHOLDER = 'e.g. {"url": "https://example.com/pricing", "title": "Pricing", "referrer": "https://example.com/", "path": "/pricing"}';

export function ComposeView() {
  useFollowWhileShown('compose');
  const loaded = useCompose((s) => s.sourcesLoaded);
  const noSources = useCompose((s) => s.sources.length === 0);
  const send = useCompose((s) => s.send);
  if (loaded && noSources) {
    return (
      <section className="view" data-testid="compose-view">
        <EmptyState title="No source to send from yet" testId="compose-no-sources">
          <p>
            Composed calls go to the Tracking API with a source’s write key, exactly as an SDK sends them. Create a source (and a Webhooks
            destination attached to it) first.
          </p>
          <a className="btn primary" href="#/configure" data-testid="compose-goto-configure">
            Go to Configure
          </a>
        </EmptyState>
      </section>
    );
  }
  return (
    <section className="view compose" data-testid="compose-view">
      <div className="compose-main">
        <TypeSwitcher />
        <form
          className="compose-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <SourcePicker />
          <CallFields />
          <JsonEditor field="context" placeholder={JSON_PLACEHOLDERS.context} />
          <IntegrationSwitches />
          <div className="compose-row">
            <Timestamp />
            <TextInput field="messageId" />
          </div>
          <SendBar />
        </form>
      </div>
      <div className="compose-side">
        <Preview />
        <TemplatesPanel />
      </div>
    </section>
  );
}

function TypeSwitcher() {
  const type = useCompose((s) => s.form.type);
  const setType = useCompose((s) => s.setType);
  return (
    <div className="compose-types" role="group" aria-label="Call type">
      <div className="compose-type-buttons">
        {COMPOSE_TYPES.map((t) => (
          <button key={t} type="button" className={t === type ? 'active' : undefined} aria-pressed={t === type} data-testid={`compose-type-${t}`} onClick={() => setType(t)}>
            {t}
          </button>
        ))}
      </div>
      <p className="muted hint">{TYPE_HINTS[type]}</p>
    </div>
  );
}

function SourcePicker() {
  const sources = useCompose((s) => s.sources);
  const source = useCompose((s) => s.form.source);
  const update = useCompose((s) => s.update);
  return (
    <div className="field">
      <label htmlFor="compose-source">Source</label>
      <select id="compose-source" data-testid="compose-source" value={source} onChange={(e) => update({ source: e.target.value })}>
        {sources.map((s) => (
          <option key={s.id} value={s.name}>
            {s.name}
          </option>
        ))}
      </select>
      <p className="muted hint">Sent with this source’s write key, through the client library, to the Tracking API.</p>
      <FieldError field="source" />
    </div>
  );
}

function TextInput({ field, required = false, extra }: { field: TextField; required?: boolean; extra?: React.ReactNode }) {
  const value = useCompose((s) => s.form[field]);
  const update = useCompose((s) => s.update);
  const invalid = useCompose((s) => s.fieldErrors[field] !== undefined);
  const { label, placeholder } = TEXT_FIELDS[field];
  return (
    <div className="field">
      <label htmlFor={`compose-${field}`}>
        {label}
        {required && <span className="compose-required"> required</span>}
      </label>
      <div className="compose-input-row">
        <input
          id={`compose-${field}`}
          data-testid={`compose-${field}`}
          value={value}
          placeholder={placeholder}
          aria-invalid={invalid}
          spellCheck={false}
          onChange={(e) => update({ [field]: e.target.value })}
        />
        {extra}
      </div>
      <FieldError field={field} />
    </div>
  );
}

function CallFields() {
  const type = useCompose((s) => s.form.type);
  const generate = useCompose((s) => s.generateAnonymousId);
  // The error under userId says the same words; the hint steps aside for it.
  const identityError = useCompose((s) => s.fieldErrors.userId !== undefined && s.form.userId === '');
  const fields = TYPE_FIELDS[type];
  return (
    <>
      {fields.identity && (
        <div className="compose-row">
          <TextInput field="userId" />
          <TextInput
            field="anonymousId"
            extra={
              <button type="button" className="btn small" data-testid="compose-anonymousId-generate" onClick={generate}>
                Generate
              </button>
            }
          />
        </div>
      )}
      {fields.identity && !identityError && <p className="muted hint compose-identity-hint">Give a userId, an anonymousId, or both.</p>}
      {fields.text.length > 0 && (
        <div className="compose-row">
          {fields.text.map((f) => (
            <TextInput key={f} field={f} required={fields.required.includes(f)} />
          ))}
        </div>
      )}
      {fields.json.map((f) => (
        <JsonEditor
          key={`${type}-${f}`}
          field={f}
          placeholder={type === 'page' && f === 'properties' ? PAGE_PLACEHOLDER : JSON_PLACEHOLDERS[f]}
          hint={type === 'page' && f === 'properties' ? <PageHints /> : undefined}
        />
      ))}
    </>
  );
}

/** Page calls recognize url, title, referrer and path inside properties. */
function PageHints() {
  const text = useCompose((s) => s.form.properties);
  const update = useCompose((s) => s.update);
  const parsed = parseJsonObject(text);
  const fill = (): void => {
    if (!parsed.ok) return;
    const current = parsed.value ?? {};
    const page = { url: location.origin + '/pricing', title: 'Pricing', referrer: '', path: '/pricing' };
    update({ properties: JSON.stringify({ ...page, ...current }, null, 2) });
  };
  return (
    <p className="muted hint">
      Recognized keys: <code>url</code>, <code>title</code>, <code>referrer</code>, <code>path</code>; others are allowed.{' '}
      <button type="button" className="link" data-testid="compose-page-hints" disabled={!parsed.ok} onClick={fill}>
        Add them
      </button>
    </p>
  );
}

function Timestamp() {
  const value = useCompose((s) => s.form.timestamp);
  const update = useCompose((s) => s.update);
  return (
    <div className="field">
      <label htmlFor="compose-timestamp">Timestamp</label>
      <div className="compose-input-row">
        <input id="compose-timestamp" type="datetime-local" step="1" data-testid="compose-timestamp" value={value} onChange={(e) => update({ timestamp: e.target.value })} />
        <button type="button" className="btn small" data-testid="compose-timestamp-clear" disabled={value === ''} onClick={() => update({ timestamp: '' })}>
          Clear
        </button>
      </div>
      <p className="muted hint">{value === '' ? 'Empty: the time of sending.' : 'Your local time; sent as UTC, for a historical import.'}</p>
      <FieldError field="timestamp" />
    </div>
  );
}

/** The request body the client library will post, as it will post it (indented, or byte for byte). */
function Preview() {
  const form = useCompose((s) => s.form);
  const [raw, setRaw] = useState(false);
  const text = useMemo(() => previewOf(form), [form]);
  const shown = raw ? JSON.stringify(JSON.parse(text)) : text;
  const copies = Number(form.copies);
  return (
    <details className="card compose-preview" open data-testid="compose-preview">
      <summary>What will be sent</summary>
      <div className="compose-preview-head">
        <span className="muted hint">
          POST <span className="mono">/v1/batch</span> with the source’s write key, from the client library.
          {Number.isInteger(copies) && copies > 1 ? ` ${copies} copies: the same message ${copies} times, each with its own messageId.` : ''} Values in
          angle brackets are made at the moment of sending.
        </span>
        <span className="compose-preview-modes" role="group" aria-label="Preview format">
          <button type="button" className="btn small" aria-pressed={!raw} data-testid="compose-preview-pretty" onClick={() => setRaw(false)}>
            Indented
          </button>
          <button type="button" className="btn small" aria-pressed={raw} data-testid="compose-preview-raw" onClick={() => setRaw(true)}>
            As sent
          </button>
        </span>
      </div>
      <pre className="code compose-preview-body" data-testid="compose-preview-body">
        {shown}
      </pre>
    </details>
  );
}

/** Sticky at the bottom of the view: the Send button, and right beside it what became of the last send. */
function SendBar() {
  const copies = useCompose((s) => s.form.copies);
  const type = useCompose((s) => s.form.type);
  const sending = useCompose((s) => s.sending);
  const update = useCompose((s) => s.update);
  const error = useCompose((s) => s.error);
  const fieldErrors = useCompose((s) => s.fieldErrors);
  const invalid = errorFieldsInOrder(fieldErrors, type);
  return (
    <div className="compose-send" data-testid="compose-send-bar">
      <div className="compose-send-row">
        <label htmlFor="compose-copies">Send</label>
        <input
          id="compose-copies"
          type="number"
          min={1}
          max={MAX_COMPOSE_COPIES}
          data-testid="compose-copies"
          value={copies}
          aria-invalid={fieldErrors.copies !== undefined}
          onChange={(e) => update({ copies: e.target.value })}
        />
        <span>{copies === '1' ? 'copy' : 'copies'}</span>
        <button type="submit" className="btn primary" data-testid="compose-send" disabled={sending}>
          {sending ? 'Sending…' : 'Send'}
        </button>
        {invalid.length > 0 && (
          <p className="compose-invalid" role="alert" data-testid="compose-invalid">
            Nothing sent: {invalid.length === 1 ? '1 field needs' : `${invalid.length} fields need`} fixing:{' '}
            {invalid.map((f, i) => (
              <span key={f}>
                {i > 0 && ', '}
                <button type="button" className="link" data-testid={`compose-invalid-${f}`} onClick={() => document.getElementById(`compose-${f}`)?.focus()}>
                  {FIELD_LABELS[f]}
                </button>
              </span>
            ))}
          </p>
        )}
      </div>
      <FieldError field="copies" />
      <FieldError field="message" />
      {error && (
        <p className="notice bad" role="alert" data-testid="compose-error">
          {error}
        </p>
      )}
      <SendOutcome />
    </div>
  );
}

function SendOutcome() {
  const result = useCompose((s) => s.result);
  const reach = useCompose((s) => s.resultReach);
  const search = useCompose((s) => s.resultSearch);
  const setDeliveriesFilter = useDeliveries((s) => s.setFilter);
  const ref = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    if (result) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [result]);
  if (!result) return null;
  const shown = result.messageIds.slice(0, 10);
  const more = result.messageIds.length - shown.length;
  const delivers = reach === null || reach.delivers;
  return (
    <div ref={ref} className={`compose-result ${delivers ? '' : 'compose-result-quiet'}`} role="status" data-testid="compose-result">
      <p>
        Sent{' '}
        {/* The count alone: the readiness marker of a finished send. */}
        <strong data-testid="compose-sent">{result.sent}</strong> {result.sent === 1 ? 'message' : 'messages'} to{' '}
        <span className="mono">{result.endpoint}</span>.
      </p>
      {reach && !reach.delivers && (
        <p className="notice warn" data-testid="compose-no-delivery">
          Nothing will be delivered: {reach.why}. The call is stored and shown in Inbound.
        </p>
      )}
      {result.notice && (
        <p className="notice warn" data-testid="compose-notice">
          {result.notice}
        </p>
      )}
      <p className="compose-links">
        {delivers && (
          <a
            href="#/deliveries"
            data-testid="compose-goto-deliveries"
            data-search={search ?? undefined}
            title={search === null ? undefined : `Deliveries, searched for ${search}`}
            onClick={() => {
              if (search !== null) setDeliveriesFilter({ text: search });
            }}
          >
            Watch {result.sent === 1 ? 'it' : 'them'} in Deliveries{reach?.delivers ? ` (${reach.to.join(', ')})` : ''}
          </a>
        )}
        <a href="#/inbound" data-testid="compose-goto-inbound">
          See the raw {result.sent === 1 ? 'call' : 'calls'} in Inbound
        </a>
      </p>
      <details className="compose-ids-box">
        <summary className="muted">messageIds</summary>
        <ul className="compose-ids" data-testid="compose-sent-ids">
          {shown.map((id, i) => (
            <li key={`${id}-${i}`} className="mono">
              {id}
            </li>
          ))}
          {more > 0 && <li className="muted">… and {more} more</li>}
        </ul>
      </details>
    </div>
  );
}
