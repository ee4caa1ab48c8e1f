import { useState } from 'react';
import type { DeliveryDetail } from '../../../src-shared/api';
import { prettyJson } from '../../shared/format';
import { editedBodyProblem } from './detail-logic';
import { TARGET_URL_FIELD, TARGET_URL_PLACEHOLDER, targetUrlOf } from './target-url';
import { useDeliveries } from '../../app/view-stores';
import type { ReplayDraft } from './store';

/**
 * Replay as it was, edit the body and replay (re-signed by the engine), or replay to another URL.
 * Edits and URLs are checked as they are typed, by the engine's own rules, so nothing doomed is sent.
 */
export function ReplayControls({ detail }: { detail: DeliveryDetail }) {
  const replay = useDeliveries((s) => s.replay);
  const replayError = useDeliveries((s) => s.replayError);
  const { mode, body, url } = useDeliveries((s) => s.replayDraft);
  const setDraft = useDeliveries((s) => s.setReplayDraft);
  const setMode = (next: ReplayDraft['mode']): void => setDraft({ mode: next });
  const setBody = (next: string): void => setDraft({ body: next });
  const setUrl = (next: string): void => setDraft({ url: next });
  const [sending, setSending] = useState(false);

  const send = (options: { body?: string; targetUrl?: string }): void => {
    setSending(true);
    void replay(options).finally(() => {
      setSending(false);
      setMode('idle');
    });
  };
  const startEdit = (): void => {
    setDraft({ body: detail.body === null ? '' : prettyJson(detail.body), mode: 'edit' });
  };
  const bodyProblem = mode === 'edit' ? editedBodyProblem(body) : null;
  const target = targetUrlOf(url);
  // An empty field is not shouted at while it is being filled; Send stays off until it holds a URL.
  const urlProblem = mode === 'url' && !target.ok && url.trim() !== '' ? target.problem : null;
  return (
    <section className="ins-replay" aria-label="Replay">
      <div className="buttons">
        <button type="button" data-testid="replay" disabled={sending} onClick={() => send({})} title="Send the same bytes again, as a new delivery linked to this one">
          Replay
        </button>
        <button type="button" data-testid="replay-edit" onClick={startEdit} disabled={detail.body === null || sending} aria-expanded={mode === 'edit'}>
          Edit &amp; replay
        </button>
        <button type="button" data-testid="replay-url" onClick={() => setMode(mode === 'url' ? 'idle' : 'url')} disabled={sending} aria-expanded={mode === 'url'}>
          Replay to URL…
        </button>
      </div>
      {mode === 'edit' && (
        <form
          className="ins-replay-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (bodyProblem === null) send({ body });
          }}
        >
          <p className="muted">The edited text is sent exactly as typed and signed anew; #{detail.id} keeps its own bytes.</p>
          <div className="ins-bodies ins-bodies-pair">
            <figure className="ins-body">
              <figcaption className="muted">Original (#{detail.id})</figcaption>
              <pre className="code" data-testid="replay-original">
                {detail.body === null ? '' : prettyJson(detail.body)}
              </pre>
            </figure>
            <figure className="ins-body">
              <figcaption className="muted">
                <label htmlFor={`replay-body-${detail.id}`}>Your edit</label>
              </figcaption>
              <textarea
                id={`replay-body-${detail.id}`}
                className="code"
                data-testid="replay-body"
                value={body}
                onChange={(e) => setBody(e.target.value)}
                rows={Math.min(24, Math.max(8, body.split('\n').length + 1))}
                spellCheck={false}
                aria-invalid={bodyProblem !== null}
                aria-describedby={bodyProblem ? `replay-body-error-${detail.id}` : undefined}
              />
            </figure>
          </div>
          {bodyProblem && (
            <p className="field-error" id={`replay-body-error-${detail.id}`} data-testid="replay-body-error" role="status">
              {bodyProblem}
            </p>
          )}
          <div className="buttons">
            <button type="submit" data-testid="replay-edited-send" disabled={bodyProblem !== null || sending}>
              Send edited body
            </button>
            <button type="button" onClick={() => setMode('idle')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mode === 'url' && (
        <form
          className="ins-replay-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (target.ok) send({ targetUrl: target.url });
          }}
        >
          <label htmlFor={`replay-target-${detail.id}`} className="muted">
            Send the same bytes, signed the same way, to this URL only (for example a local receiver):
          </label>
          <div className="ins-url-row">
            <input
              id={`replay-target-${detail.id}`}
              className="mono"
              data-testid="replay-target"
              value={url}
              placeholder={TARGET_URL_PLACEHOLDER}
              aria-label={TARGET_URL_FIELD}
              onChange={(e) => setUrl(e.target.value)}
              aria-invalid={urlProblem !== null}
              aria-describedby={urlProblem ? `replay-target-error-${detail.id}` : undefined}
            />
            <button type="submit" data-testid="replay-url-send" disabled={!target.ok || sending}>
              Send
            </button>
            <button type="button" onClick={() => setMode('idle')}>
              Cancel
            </button>
          </div>
          {urlProblem && (
            <p className="field-error" id={`replay-target-error-${detail.id}`} data-testid="replay-target-error" role="status">
              {urlProblem}
            </p>
          )}
          {target.ok && target.url !== url.trim() && (
            <p className="muted" data-testid="replay-target-resolved">
              Sends to <span className="mono">{target.url}</span>
            </p>
          )}
        </form>
      )}
      {replayError && (
        <p className="field-error" role="alert" data-testid="replay-error">
          {replayError}
        </p>
      )}
    </section>
  );
}
