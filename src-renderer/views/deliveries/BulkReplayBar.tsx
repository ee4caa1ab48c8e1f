import { bulkSummaryWords } from './list-words';
import { useDeliveries } from '../../app/view-stores';
import { BulkReplayConfirm } from './BulkReplayConfirm';

/** "Replay failed in this filter" with its progress, cancel and summary. */
export function BulkReplayBar() {
  const bulk = useDeliveries((s) => s.bulk);
  const replayFailed = useDeliveries((s) => s.replayFailed);
  const cancelBulk = useDeliveries((s) => s.cancelBulk);
  const dismissBulk = useDeliveries((s) => s.dismissBulk);
  const asking = useDeliveries((s) => s.bulkConfirm !== null);
  const running = bulk?.state === 'running' || bulk?.state === 'cancelling';
  // Nothing to replay in an empty log, or when the filter lets nothing through.
  const nothing = useDeliveries((s) => s.loaded && s.rows.length === 0);
  return (
    <div className="wbulk">
      <button
        type="button"
        data-testid="replay-failed"
        onClick={replayFailed}
        disabled={running || asking || nothing}
        title={nothing ? 'Nothing to replay: no delivery matches.' : 'Replays the failed deliveries the filter lets through, as they were; asks first, with the count'}
      >
        Replay failed in this filter…
      </button>
      <BulkReplayConfirm />
      {bulk && (
        <span className="wbulk-run">
          <progress data-testid="bulk-progress" value={bulk.done} max={Math.max(1, bulk.total)} data-done={bulk.done} data-total={bulk.total} />
          <span className="wbulk-numbers">
            {bulk.done.toLocaleString('en-US')} / {bulk.total.toLocaleString('en-US')}
          </span>
          {running && (
            <button type="button" data-testid="bulk-cancel" onClick={cancelBulk} disabled={bulk.state === 'cancelling'}>
              {bulk.state === 'cancelling' ? 'Stopping…' : 'Cancel'}
            </button>
          )}
        </span>
      )}
      {bulk && !running && (
        <span className={`wbulk-summary ${bulk.failed > 0 ? 'wbulk-bad' : ''}`} role="status">
          <span
            data-testid="bulk-summary"
            data-state={bulk.state}
            data-done={bulk.done}
            data-total={bulk.total}
            data-replayed={bulk.replayed}
            data-failed={bulk.failed}
            data-skipped={bulk.skipped}
          >
            {bulkSummaryWords(bulk)}
          </span>
          <button type="button" className="link" onClick={dismissBulk} aria-label="Dismiss the bulk replay summary">
            dismiss
          </button>
        </span>
      )}
    </div>
  );
}
