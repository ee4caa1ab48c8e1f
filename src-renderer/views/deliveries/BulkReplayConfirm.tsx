import { bulkConfirmWords } from './list-words';
import { useDeliveries } from '../../app/view-stores';

/**
 * The question before a bulk replay: how many it would replay, and the originals replayed before,
 * which it leaves alone unless asked to replay them too.
 */
export function BulkReplayConfirm() {
  const c = useDeliveries((s) => s.bulkConfirm);
  const setInclude = useDeliveries((s) => s.setIncludeReplayed);
  const confirm = useDeliveries((s) => s.confirmBulk);
  const cancel = useDeliveries((s) => s.cancelConfirm);
  if (!c) return null;
  if (c.counting) {
    return (
      <span className="wbulk-confirm muted" data-testid="bulk-confirm" data-state="counting" role="status">
        Counting the failed deliveries in this filter…
      </span>
    );
  }
  const count = c.fresh + (c.includeReplayed ? c.alreadyReplayed : 0);
  return (
    <span
      className="wbulk-confirm"
      role="alertdialog"
      aria-label="Confirm the bulk replay"
      data-testid="bulk-confirm"
      data-state="asking"
      data-count={count}
      data-fresh={c.fresh}
      data-already={c.alreadyReplayed}
    >
      <span data-testid="bulk-confirm-question">{bulkConfirmWords(c, c.includeReplayed)}</span>
      {c.alreadyReplayed > 0 && (
        <label className="wbulk-include">
          <input type="checkbox" checked={c.includeReplayed} onChange={(e) => setInclude(e.target.checked)} data-testid="bulk-include-replayed" />
          also replay the {c.alreadyReplayed.toLocaleString('en-US')} already replayed
        </label>
      )}
      <button type="button" className="primary" data-testid="bulk-confirm-yes" onClick={confirm} disabled={count === 0 && !c.atLeast} autoFocus>
        Replay {c.atLeast ? 'at least ' : ''}{count.toLocaleString('en-US')}
      </button>
      <button type="button" data-testid="bulk-confirm-no" onClick={cancel}>
        Cancel
      </button>
    </span>
  );
}
