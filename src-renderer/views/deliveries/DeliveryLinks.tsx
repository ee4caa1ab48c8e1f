import type { DeliveryDetail } from '../../../src-shared/api';
import { useDeliveries } from '../../app/view-stores';

/** A replay and its original point at each other: "Replay of #N" here, "Replayed as #A, #B" there. */
export function DeliveryLinks({ detail }: { detail: DeliveryDetail }) {
  const select = useDeliveries((s) => s.select);
  if (detail.replayOf === null && detail.replays.length === 0) return null;
  return (
    <div className="ins-links">
      {detail.replayOf !== null && (
        <p>
          Replay of{' '}
          <button type="button" className="link" data-testid="replay-of" onClick={() => select(detail.replayOf)}>
            #{detail.replayOf}
          </button>
          {detail.edited ? ' (edited body, signed anew)' : ' (same bytes)'}
          {detail.targetUrl !== null && <span className="mono"> to {detail.targetUrl}</span>}
        </p>
      )}
      {detail.replays.length > 0 && (
        <p data-testid="replayed-as">
          Replayed as{' '}
          {detail.replays.map((id, i) => (
            <span key={id}>
              {i > 0 && ', '}
              <button type="button" className="link" data-testid="replayed-as-link" data-id={id} onClick={() => select(id)}>
                #{id}
              </button>
            </span>
          ))}
        </p>
      )}
    </div>
  );
}
