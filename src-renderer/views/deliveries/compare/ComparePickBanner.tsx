import { useCompare } from '../../../app/view-stores';

/** While a first side is picked: says what happens on the next click, and how to back out. */
export function ComparePickBanner() {
  const picking = useCompare((s) => s.picking);
  const cancel = useCompare((s) => s.cancelPick);
  if (!picking) return null;
  return (
    <div className="notice cmp-pick" role="status" data-testid="compare-picking">
      Comparing #{picking.deliveryId}
      {picking.attemptId !== undefined ? ` (attempt ${picking.attemptId})` : ''}: click the delivery to compare it with, or press c on it.{' '}
      <button type="button" className="link" onClick={cancel} data-testid="compare-cancel">
        Cancel
      </button>
    </div>
  );
}
