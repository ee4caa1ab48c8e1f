import { useState } from 'react';
import type { DeliveryDetail } from '../../src-shared/api';
import { useDeliveries } from './context';
import { prettyJson } from './format';

type Mode = 'idle' | 'edit' | 'url';

/** Replay as it was, edit the body and replay (re-signed by the engine), or replay to another URL. */
export function ReplayControls({ detail }: { detail: DeliveryDetail }) {
  const replay = useDeliveries((s) => s.replay);
  const replayError = useDeliveries((s) => s.replayError);
  const select = useDeliveries((s) => s.select);
  const [mode, setMode] = useState<Mode>('idle');
  const [body, setBody] = useState('');
  const [url, setUrl] = useState('http://127.0.0.1:9000/hook');

  const startEdit = (): void => {
    setBody(detail.body === null ? '' : prettyJson(detail.body));
    setMode('edit');
  };
  return (
    <section className="replay" aria-label="Replay">
      {detail.replayOf !== null && (
        <p className="muted">
          Replay of{' '}
          <button type="button" className="link" data-testid="replay-of" onClick={() => select(detail.replayOf)}>
            #{detail.replayOf}
          </button>
          {detail.edited ? ' (edited body, signed anew)' : ' (same bytes)'}
        </p>
      )}
      <div className="replay-buttons">
        <button type="button" data-testid="replay" onClick={() => void replay({})}>
          Replay
        </button>
        <button type="button" data-testid="replay-edit" onClick={startEdit} disabled={detail.body === null}>
          Edit &amp; replay
        </button>
        <button type="button" data-testid="replay-url" onClick={() => setMode('url')}>
          Replay to URL…
        </button>
      </div>
      {mode === 'edit' && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void replay({ body }).then(() => setMode('idle'));
          }}
        >
          <textarea className="code" data-testid="replay-body" value={body} onChange={(e) => setBody(e.target.value)} rows={12} spellCheck={false} />
          <button type="submit" data-testid="replay-edited-send">
            Send edited body
          </button>
        </form>
      )}
      {mode === 'url' && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void replay({ targetUrl: url }).then(() => setMode('idle'));
          }}
        >
          <input className="mono" data-testid="replay-target" value={url} onChange={(e) => setUrl(e.target.value)} aria-label="Target URL" />
          <button type="submit" data-testid="replay-url-send">
            Send
          </button>
        </form>
      )}
      {replayError && (
        <p className="error" role="alert" data-testid="replay-error">
          {replayError}
        </p>
      )}
    </section>
  );
}
