import type { AttemptView } from '../../../src-shared/api';
import { useCompare } from '../../app/view-stores';
import { TestEventControl } from '../test-events/TestEventControl';
import type { AttemptContext } from './AttemptTimeline';

/** An attempt's actions: compare it with the attempt before it, send a test event to its URL. */
export function AttemptExtras({ attempt: a, context, previous, newestForUrl }: { attempt: AttemptView; context: AttemptContext; previous: AttemptView | undefined; newestForUrl: boolean }) {
  const open = useCompare((s) => s.open);
  if (!previous && !(newestForUrl && context.destinationName)) return null;
  return (
    <div className="ins-attempt-actions">
      {previous && (
        <button
          type="button"
          data-testid="compare-previous-attempt"
          onClick={() => void open({ deliveryId: context.deliveryId, attemptId: previous.id }, { deliveryId: context.deliveryId, attemptId: a.id })}
        >
          Compare with previous attempt
        </button>
      )}
      {newestForUrl && context.destinationName && <TestEventControl destination={context.destinationName} url={a.url} label="Send a test event to this URL" />}
    </div>
  );
}
