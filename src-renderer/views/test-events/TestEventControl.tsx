import { useState } from 'react';
import { COMPOSE_TYPES, type ComposeType } from '../../../src-shared/api';
import { useDeliveries, useTestEvents } from '../../app/view-stores';

const EVERY_URL = '';

/**
 * Sends a sample call of the chosen type to a destination, or to one of its URLs, then opens the
 * new delivery in Deliveries. With `url` the target is that URL alone; else the user picks among
 * `urls` or every URL of the destination.
 */
export function TestEventControl({ destination, urls, url, label = 'Send test event' }: { destination: string; urls?: string[]; url?: string; label?: string }) {
  const [type, setType] = useState<ComposeType>('track');
  const [target, setTarget] = useState<string>(EVERY_URL);
  const chosen = url ?? (target === EVERY_URL ? undefined : target);
  const key = `${destination}\n${url ?? '*'}`;
  const send = useTestEvents((s) => s.send);
  const sending = useTestEvents((s) => s.sending === key);
  const error = useTestEvents((s) => s.errors[key]);
  const select = useDeliveries((s) => s.select);
  const onSend = async (): Promise<void> => {
    const id = await send(key, { destination, type, ...(chosen !== undefined ? { url: chosen } : {}) });
    if (id === null) return;
    select(id);
    if (!location.hash.startsWith('#/deliveries')) location.hash = '#/deliveries';
  };
  return (
    <div className="test-event" data-testid="test-event" data-destination={destination} data-url={url}>
      <select value={type} onChange={(e) => setType(e.target.value as ComposeType)} data-testid="test-event-type" aria-label="Type of the test event">
        {COMPOSE_TYPES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      {url === undefined && urls && urls.length > 1 && (
        <select value={target} onChange={(e) => setTarget(e.target.value)} data-testid="test-event-target" aria-label="Where the test event goes">
          <option value={EVERY_URL}>every URL ({urls.length})</option>
          {urls.map((u) => (
            <option key={u} value={u}>
              only {u}
            </option>
          ))}
        </select>
      )}
      <button type="button" className="btn small" disabled={sending} onClick={() => void onSend()} data-testid="test-event-send">
        {sending ? 'Sending…' : label}
      </button>
      {error && (
        <span className="field-error" role="alert" data-testid="test-event-error">
          {error}
        </span>
      )}
    </div>
  );
}
