import type { DeliveryDetail } from '../../../src-shared/api';

/** Says, in the detail, that a delivery is a test event and where it came from. */
export function TestEventNote({ detail }: { detail: DeliveryDetail }) {
  if (!detail.test) return null;
  return (
    <p className="notice ins-note" data-testid="detail-test">
      <span className="test-mark">test</span> A test event: a sample {detail.type} made in Hookbench, sent, signed and retried like real traffic
      {detail.targetUrl !== null ? ` to ${detail.targetUrl} only` : ' to every URL of the destination'}. It did not come through the Tracking API, so
      Inbound does not list it.
    </p>
  );
}
