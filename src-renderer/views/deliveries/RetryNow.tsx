import type { DeliveryDetail } from '../../../src-shared/api';
import { useDeliveries } from '../../app/view-stores';

/** Sends a waiting delivery's next round at once (key n); the schedule after it goes on as the policy says. */
export function RetryNow({ detail }: { detail: DeliveryDetail }) {
  const retryNow = useDeliveries((s) => s.retryNow);
  const error = useDeliveries((s) => s.retryNowError);
  const busy = useDeliveries((s) => s.retryingNow);
  if (detail.status !== 'retrying' && detail.status !== 'pending') return null;
  return (
    <div className="retry-now">
      <button
        type="button"
        data-testid="retry-now"
        onClick={() => void retryNow()}
        disabled={busy}
        title="Send the next round now instead of at its time (key n); the retries after it follow the policy"
      >
        Retry now
      </button>
      {error && (
        <span className="field-error" role="alert" data-testid="retry-now-error">
          {error}
        </span>
      )}
    </div>
  );
}
