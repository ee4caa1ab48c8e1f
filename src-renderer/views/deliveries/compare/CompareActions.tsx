import type { DeliveryDetail } from '../../../../src-shared/api';
import { useCompare } from '../../../app/view-stores';

/** The detail's ways into a comparison: with another delivery picked in the list, and a replay with its original. */
export function CompareActions({ detail }: { detail: DeliveryDetail }) {
  const startPick = useCompare((s) => s.startPick);
  const open = useCompare((s) => s.open);
  const picking = useCompare((s) => s.picking);
  return (
    <div className="cmp-actions" data-testid="compare-actions">
      {picking && picking.deliveryId !== detail.id ? (
        <button type="button" onClick={() => void open(picking, { deliveryId: detail.id })} data-testid="compare-with-picked">
          Compare with #{picking.deliveryId}
        </button>
      ) : (
        <button type="button" onClick={() => startPick({ deliveryId: detail.id })} data-testid="compare-start" title="Then click another delivery in the list">
          Compare with…
        </button>
      )}
      {detail.replayOf !== null && (
        <button type="button" onClick={() => void open({ deliveryId: detail.replayOf as number }, { deliveryId: detail.id })} data-testid="compare-original">
          Compare with the original
        </button>
      )}
    </div>
  );
}
