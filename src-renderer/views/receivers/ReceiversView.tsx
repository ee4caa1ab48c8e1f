import { useState } from 'react';
import { stepInWords, type ReceiverRequestDetail, type ReceiverRequestSummary, type ReceiverSignatureVerdict, type ReceiverView } from '../../../src-shared/receivers';
import { Badge } from '../../shared/Badge';
import { CopyButton } from '../../shared/CopyButton';
import { ConfirmButton, sentence } from '../../shared/form-widgets';
import { bytesOf, measuredMs, prettyJson, timeOf } from '../../shared/format';
import { useFollowWhileShown, useReceivers } from '../../app/view-stores';
import { inputOf, type StepRow } from './form';
import { messageInWords, outcomeInWords, outcomeTone, perInWords, positionInWords, verdictExplanation, verdictInWords, verdictTone } from './words';

export function ReceiversView() {
  useFollowWhileShown('receivers');
  const loaded = useReceivers((s) => s.loaded);
  return (
    <section className="view receivers" data-testid="receivers-view" aria-busy={!loaded}>
      <div className="columns narrow-start">
        <ReceiverList />
        <div className="rc-main">
          <ScriptEditor />
          <Addresses />
          <Requests />
        </div>
      </div>
    </section>
  );
}

function ReceiverList() {
  const receivers = useReceivers((s) => s.receivers);
  const selected = useReceivers((s) => s.selected);
  const loaded = useReceivers((s) => s.loaded);
  const select = useReceivers((s) => s.select);
  const newReceiver = useReceivers((s) => s.newReceiver);
  return (
    <section className="card" aria-labelledby="rc-list-title">
      <div className="card-head">
        <h2 id="rc-list-title">Receivers</h2>
        <button type="button" className="btn small" data-testid="receiver-new" onClick={newReceiver}>
          New receiver
        </button>
      </div>
      <p className="muted card-intro">
        Endpoints inside Hookbench that answer by a script: point a destination at one to watch retries, timeouts, resets and throttling without
        writing a receiver.
      </p>
      {loaded && receivers.length === 0 ? (
        <p className="empty-note" data-testid="receivers-empty">
          No receiver yet. Write a script on the right (say 500, 500, 200) and save it.
        </p>
      ) : (
        <ul className="rc-list" data-testid="receivers">
          {receivers.map((r) => (
            <li key={r.name}>
              <button
                type="button"
                className={r.name === selected ? 'rc-item selected' : 'rc-item'}
                aria-current={r.name === selected ? 'true' : undefined}
                data-testid="receiver-item"
                data-name={r.name}
                onClick={() => select(r.name)}
              >
                <strong className="mono">{r.name}</strong>
                <span className="muted">
                  {r.responses.map(stepInWords).join(' → ')}
                  {r.per === 'message' ? ` · ${perInWords(r.per)}` : ''}
                </span>
                <span className="muted" data-testid="receiver-item-count">
                  {r.requests} request{r.requests === 1 ? '' : 's'}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Errors({ prefix }: { prefix: string | null }) {
  const errors = useReceivers((s) => s.errors);
  const mine = errors.filter((e) => (prefix === null ? !/^receiver\.(name|responses|per)/.test(e.field) : e.field.startsWith(prefix)));
  return (
    <>
      {mine.map((e, k) => (
        <p key={`${e.field}-${k}`} className="field-error" role="alert" data-testid="field-error" data-field={e.field}>
          {sentence(undefined, `${e.field.replace(/^receiver\./, '')}: ${e.message}`)}
        </p>
      ))}
    </>
  );
}

function ScriptEditor() {
  const draft = useReceivers((s) => s.draft);
  const saving = useReceivers((s) => s.saving);
  const selected = useReceivers((s) => s.selected);
  const setName = useReceivers((s) => s.setName);
  const setPer = useReceivers((s) => s.setPer);
  const addStep = useReceivers((s) => s.addStep);
  const save = useReceivers((s) => s.save);
  const remove = useReceivers((s) => s.remove);
  const preview = inputOf(draft);
  return (
    <section className="card" aria-labelledby="rc-script-title">
      <div className="card-head">
        <h2 id="rc-script-title">{draft.original === null ? 'New receiver' : `Script of “${draft.original}”`}</h2>
      </div>
      <form
        className="rc-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label className="field rc-name">
          <span className="field-label">Name</span>
          <input data-testid="receiver-name" value={draft.name} placeholder="e.g. flaky" spellCheck={false} onChange={(e) => setName(e.target.value)} />
          <span className="muted hint">Becomes part of its URL: /receivers/{draft.name.trim() || '{name}'}</span>
        </label>
        <Errors prefix="receiver.name" />
        <table className="data-table compact rc-steps" data-testid="receiver-steps">
          <thead>
            <tr>
              <th>#</th>
              <th>Status</th>
              <th>Delay ms</th>
              <th>Hang</th>
              <th>Reset</th>
              <th>Retry-After s</th>
              <th>Headers</th>
              <th>Body</th>
              <th aria-label="Remove" />
            </tr>
          </thead>
          <tbody>
            {draft.steps.map((row, i) => (
              <StepEditor key={i} index={i} row={row} last={i === draft.steps.length - 1} only={draft.steps.length === 1} />
            ))}
          </tbody>
        </table>
        <Errors prefix="receiver.responses" />
        <fieldset className="rc-per" data-testid="receiver-per">
          <legend className="field-label">Count the script</legend>
          <label className="field-inline">
            <input type="radio" name="rc-per" value="receiver" data-testid="receiver-per-receiver" checked={draft.per === 'receiver'} onChange={() => setPer('receiver')} />
            <span>per receiver</span>
          </label>
          <label className="field-inline">
            <input type="radio" name="rc-per" value="message" data-testid="receiver-per-message" checked={draft.per === 'message'} onChange={() => setPer('message')} />
            <span>per message</span>
          </label>
          <span className="muted hint">
            Per message, each message (its webhook-id header, else the body’s messageId) goes through the script on its own, however retries interleave.
          </span>
        </fieldset>
        <Errors prefix="receiver.per" />
        <p className="muted hint" data-testid="receiver-script-words">
          {draft.per === 'message'
            ? 'A message’s request 1 gets step 1, its request 2 step 2, …; the last step answers every request after it.'
            : 'Request 1 gets step 1, request 2 step 2, …; the last step answers every request after it.'}
          {preview.errors.length === 0 ? ` In short: ${preview.input.responses.map(stepInWords).join(' → ')}, then repeats.` : ''}
        </p>
        <div className="buttons">
          <button type="button" className="btn" data-testid="receiver-add-step" onClick={addStep}>
            Add step
          </button>
          <button type="submit" className="btn primary" data-testid="receiver-save" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          {selected !== null && (
            <ConfirmButton label="Delete…" confirm={`Delete “${selected}” and its requests`} onConfirm={() => void remove()} testId="receiver-delete" />
          )}
        </div>
        <Errors prefix={null} />
      </form>
    </section>
  );
}

function StepEditor({ index, row, last, only }: { index: number; row: StepRow; last: boolean; only: boolean }) {
  const setStep = useReceivers((s) => s.setStep);
  const removeStep = useReceivers((s) => s.removeStep);
  const errors = useReceivers((s) => s.errors);
  const invalid = errors.filter((e) => e.field.startsWith(`receiver.responses[${index}]`)).map((e) => e.field);
  const bad = (key: string): boolean => invalid.some((f) => f.startsWith(`receiver.responses[${index}].${key}`));
  const answers = !row.hang && !row.reset;
  return (
    <tr data-testid="receiver-step" data-index={index}>
      <th scope="row" className="mono">
        {index + 1}
        {last && <span className="muted rc-repeats"> ↻</span>}
      </th>
      <td>
        <input className="rc-num" data-testid="step-status" inputMode="numeric" aria-label={`Step ${index + 1} status`} aria-invalid={bad('status')} value={row.status} disabled={!answers} onChange={(e) => setStep(index, { status: e.target.value })} />
      </td>
      <td>
        <input className="rc-num" data-testid="step-delay" inputMode="numeric" aria-label={`Step ${index + 1} delay in ms`} aria-invalid={bad('delayMs')} value={row.delayMs} placeholder="0" onChange={(e) => setStep(index, { delayMs: e.target.value })} />
      </td>
      <td>
        <input type="checkbox" data-testid="step-hang" aria-label={`Step ${index + 1} hangs`} checked={row.hang} onChange={(e) => setStep(index, { hang: e.target.checked, reset: e.target.checked ? false : row.reset })} />
      </td>
      <td>
        <input type="checkbox" data-testid="step-reset" aria-label={`Step ${index + 1} resets the connection`} checked={row.reset} onChange={(e) => setStep(index, { reset: e.target.checked, hang: e.target.checked ? false : row.hang })} />
      </td>
      <td>
        <input className="rc-num" data-testid="step-retry-after" inputMode="numeric" aria-label={`Step ${index + 1} Retry-After in seconds`} aria-invalid={bad('retryAfter')} value={row.retryAfter} disabled={!answers} onChange={(e) => setStep(index, { retryAfter: e.target.value })} />
      </td>
      <td>
        <textarea className="rc-text mono" rows={1} data-testid="step-headers" aria-label={`Step ${index + 1} headers`} aria-invalid={bad('headers')} placeholder="Name: value" value={row.headers} disabled={!answers} onChange={(e) => setStep(index, { headers: e.target.value })} />
      </td>
      <td>
        <textarea className="rc-text mono" rows={1} data-testid="step-body" aria-label={`Step ${index + 1} body`} aria-invalid={bad('body')} value={row.body} disabled={!answers} onChange={(e) => setStep(index, { body: e.target.value })} />
      </td>
      <td>
        <button type="button" className="btn small danger-quiet" data-testid="step-remove" aria-label={`Remove step ${index + 1}`} disabled={only} onClick={() => removeStep(index)}>
          ×
        </button>
      </td>
    </tr>
  );
}

function Addresses() {
  const receiver = useReceivers((s): ReceiverView | null => s.receivers.find((r) => r.name === s.selected) ?? null);
  const destinations = useReceivers((s) => s.destinations);
  const notice = useReceivers((s) => s.notice);
  const reset = useReceivers((s) => s.reset);
  const addToDestination = useReceivers((s) => s.addToDestination);
  const [target, setTarget] = useState('');
  const [which, setWhich] = useState<'http' | 'https'>('http');
  if (!receiver) return notice ? <p className="notice ok" role="status" data-testid="receiver-notice">{notice}</p> : null;
  const url = which === 'https' && receiver.httpsUrl ? receiver.httpsUrl : receiver.httpUrl;
  const chosen = target !== '' && destinations.some((d) => d.name === target) ? target : (destinations[0]?.name ?? '');
  return (
    <section className="card" aria-labelledby="rc-urls-title">
      <div className="card-head">
        <h2 id="rc-urls-title">Addresses</h2>
        <span className="muted" data-testid="receiver-next-step">
          {perInWords(receiver.per)}: {positionInWords(receiver, stepInWords(receiver.responses[receiver.nextStep] ?? {}))}
        </span>
        <button type="button" className="btn small" data-testid="receiver-reset" onClick={() => void reset()}>
          Reset
        </button>
      </div>
      <dl className="facts rc-urls">
        <dt>HTTP</dt>
        <dd>
          <code className="mono" data-testid="receiver-http-url">
            {receiver.httpUrl ?? 'not listening yet'}
          </code>{' '}
          {receiver.httpUrl && <CopyButton text={receiver.httpUrl} testId="copy-receiver-http" />}
        </dd>
        <dt>HTTPS</dt>
        <dd>
          <code className="mono" data-testid="receiver-https-url">
            {receiver.httpsUrl ?? 'not served'}
          </code>{' '}
          {receiver.httpsUrl && <CopyButton text={receiver.httpsUrl} testId="copy-receiver-https" />}
          <span className="muted hint">
            A self-signed certificate made by this Hookbench: senders that check certificates (Hookbench’s own delivery among them) refuse it
            with a TLS error, which is what this address is for.
          </span>
        </dd>
      </dl>
      <div className="rc-add">
        {destinations.length === 0 ? (
          <p className="muted">Add a Webhooks destination in Configure to send it events.</p>
        ) : (
          <>
            <label className="field-inline">
              <span>Add</span>
              <select data-testid="receiver-add-which" value={which} onChange={(e) => setWhich(e.target.value === 'https' ? 'https' : 'http')}>
                <option value="http">the HTTP URL</option>
                {receiver.httpsUrl && <option value="https">the HTTPS URL</option>}
              </select>
              <span>to destination</span>
              <select data-testid="receiver-add-destination" value={chosen} onChange={(e) => setTarget(e.target.value)}>
                {destinations.map((d) => (
                  <option key={d.name} value={d.name}>
                    {d.name} ({d.webhooks.length} URL{d.webhooks.length === 1 ? '' : 's'})
                  </option>
                ))}
              </select>
            </label>
            <button type="button" className="btn" data-testid="receiver-add-to-destination" disabled={!url || chosen === ''} onClick={() => url && void addToDestination(chosen, url)}>
              Add to destination
            </button>
          </>
        )}
      </div>
      {notice && (
        <p className="notice ok" role="status" data-testid="receiver-notice">
          {notice}
        </p>
      )}
    </section>
  );
}

function Requests() {
  const selected = useReceivers((s) => s.selected);
  const requests = useReceivers((s) => s.requests);
  const opened = useReceivers((s) => s.opened);
  const toggle = useReceivers((s) => s.toggle);
  if (selected === null) return null;
  return (
    <section className="card" aria-labelledby="rc-requests-title">
      <div className="card-head">
        <h2 id="rc-requests-title">Requests</h2>
        <span className="muted">newest first, live</span>
      </div>
      {requests.length === 0 ? (
        <p className="empty-note" data-testid="receiver-requests-empty">
          No request yet. Send one to its address, or add it to a destination and send an event.
        </p>
      ) : (
        <table className="data-table compact rc-requests" data-testid="receiver-requests">
          <thead>
            <tr>
              <th>Time</th>
              <th>Method</th>
              <th>Path</th>
              <th>Step</th>
              <th>Answer</th>
              <th>Signature</th>
            </tr>
          </thead>
          <tbody>
            {requests.map((r) => (
              <RequestRow key={r.id} r={r} detail={opened[r.id]} onToggle={() => void toggle(r.id)} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function RequestRow({ r, detail, onToggle }: { r: ReceiverRequestSummary; detail: ReceiverRequestDetail | 'loading' | undefined; onToggle: () => void }) {
  const open = detail !== undefined;
  return (
    <>
      <tr
        className={open ? 'rc-row selected' : 'rc-row'}
        tabIndex={0}
        aria-expanded={open}
        data-testid="receiver-request"
        data-id={r.id}
        data-step={r.step}
        data-status={r.status ?? ''}
        data-outcome={r.outcome}
        onClick={onToggle}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            onToggle();
          }
        }}
      >
        <td className="mono">{timeOf(r.receivedAt)}</td>
        <td className="mono">{r.method}</td>
        <td className="mono rc-path">
          {r.tls && <span className="rc-tls">TLS</span>} {r.path}
        </td>
        <td data-testid="receiver-request-step">
          {r.step + 1}
          {r.messageKey !== null && (
            <span className="muted mono rc-message" data-testid="receiver-request-message" title={messageInWords(r) ?? undefined}>
              {' '}
              <span className="rc-key">{r.messageKey}</span>
              {r.messageTry !== null && ` · try ${r.messageTry}`}
            </span>
          )}
        </td>
        <td>
          <Badge tone={outcomeTone(r)} testId="receiver-request-answer">
            {outcomeInWords(r)}
          </Badge>
          {r.answerMs !== null && <span className="muted"> {measuredMs(r.answerMs)}</span>}
        </td>
        <td data-testid="receiver-request-signature">
          <Verdicts verdicts={r.signatures} />
        </td>
      </tr>
      {open && (
        <tr className="rc-detail-row">
          <td colSpan={6}>{detail === 'loading' ? <p className="muted">Reading…</p> : <RequestDetail d={detail} />}</td>
        </tr>
      )}
    </>
  );
}

function Verdicts({ verdicts }: { verdicts: ReceiverSignatureVerdict[] }) {
  if (verdicts.length === 0) return <span className="muted">no destination points here</span>;
  return (
    <ul className="rc-verdicts">
      {verdicts.map((v) => (
        <li key={`${v.destination}-${v.url}`} title={verdictExplanation(v)}>
          <Badge tone={verdictTone(v.check.state)} testId="receiver-verdict">
            {verdictInWords(v.check.state)}
          </Badge>{' '}
          <span className="muted">{v.destination}</span>
        </li>
      ))}
    </ul>
  );
}

function RequestDetail({ d }: { d: ReceiverRequestDetail }) {
  const [raw, setRaw] = useState(false);
  const json = d.bodyText !== null && looksLikeJson(d.bodyText);
  const shown = d.bodyText === null ? null : raw || !json ? d.bodyText : prettyJson(d.bodyText);
  const headerText = d.headers.map(([n, v]) => `${n}: ${v}`).join('\n');
  return (
    <div className="rc-detail" data-testid="receiver-request-detail">
      <div className="rc-detail-head">
        <h3>Headers</h3>
        <span className="muted" data-testid="receiver-request-timings">
          as received, in order; {d.tls ? 'over HTTPS; ' : ''}body read in {measuredMs(d.bodyMs)}
          {d.answerMs !== null ? `, ended after ${measuredMs(d.answerMs)}` : ''}
        </span>
        <CopyButton text={headerText} testId="copy-receiver-headers" />
      </div>
      <pre className="code" data-testid="receiver-request-headers">
        {`${d.method} ${d.path}\n${headerText}`}
      </pre>
      <div className="rc-detail-head">
        <h3>Body</h3>
        <span className="muted" data-testid="receiver-request-bytes">
          {bytesOf(d.bodyBytes)}
          {d.truncated ? ', only the start kept' : ''}
        </span>
        {json && (
          <div className="ins-segmented" role="group" aria-label="Body format">
            <button type="button" aria-pressed={!raw} data-testid="receiver-body-pretty" onClick={() => setRaw(false)}>
              Pretty
            </button>
            <button type="button" aria-pressed={raw} data-testid="receiver-body-raw" onClick={() => setRaw(true)}>
              Raw
            </button>
          </div>
        )}
        {shown !== null && <CopyButton text={shown} testId="copy-receiver-body" />}
      </div>
      {shown === null ? (
        <pre className="code" data-testid="receiver-request-body">
          {`not UTF-8 text; base64:\n${d.bodyBase64}`}
        </pre>
      ) : (
        <pre className="code" data-testid={raw || !json ? 'receiver-request-body-raw' : 'receiver-request-body'}>
          {shown === '' ? '(empty)' : shown}
        </pre>
      )}
      {d.signatures.map((v) => (
        <p key={`${v.destination}-${v.url}`} className="muted" data-testid="receiver-verdict-explanation">
          {v.scheme}: {sentence(undefined, verdictExplanation(v))}.
        </p>
      ))}
    </div>
  );
}

function looksLikeJson(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null;
  } catch {
    return false;
  }
}
