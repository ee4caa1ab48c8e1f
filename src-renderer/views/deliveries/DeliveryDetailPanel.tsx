import type { DeliveryDetail } from '../../../src-shared/api';
import { timeOf } from '../../shared/format';
import { CurlCommand } from '../../shared/CurlCommand';
import { ReplayControls } from './ReplayControls';
import { AttemptTimeline } from './AttemptTimeline';
import { BodyView } from './BodyView';
import { DeliveryLinks } from './DeliveryLinks';
import { RequestHeaders } from './RequestHeaders';
import { SignatureDoctor } from './SignatureDoctor';
import { VerifySnippets } from './VerifySnippets';
import { useDeliveries } from '../../app/view-stores';
import { DeliveryStatusBadge } from '../../shared/Badge';
import { RetryNow } from './RetryNow';
import { ScheduleTimeline } from './ScheduleTimeline';
import { WarpNotice } from './WarpMark';
import { CompareActions } from './compare/CompareActions';
import { TestEventNote } from '../test-events/TestEventNote';

export function DeliveryDetailPanel() {
  const selectedId = useDeliveries((s) => s.selectedId);
  const detail = useDeliveries((s) => s.detail);
  const select = useDeliveries((s) => s.select);
  if (selectedId === null) return null;
  return (
    <aside className="detail ins-panel" id="delivery-detail" data-testid="delivery-detail" aria-label="Delivery detail">
      <div className="detail-head">
        <h2>Delivery #{selectedId}</h2>
        <button type="button" onClick={() => select(null)} aria-label="Close detail">
          ×
        </button>
      </div>
      {/* Keyed by id: an open editor or toggle belongs to the delivery it was opened on. */}
      {detail && detail.id === selectedId ? <DetailBody key={detail.id} detail={detail} /> : <p className="muted">Loading…</p>}
    </aside>
  );
}

function DetailBody({ detail }: { detail: DeliveryDetail }) {
  const lastAttempt = detail.attempts[detail.attempts.length - 1];
  return (
    <>
      <div className={`ins-next ins-next-${detail.status}`}>
        <DeliveryStatusBadge status={detail.status} testId="detail-status" />
        <span data-testid="next-step">{detail.nextStep}</span>
      </div>
      <WarpNotice warp={detail.warp} />
      <RetryNow detail={detail} />
      <dl className="facts ins-facts">
        <dt>Type</dt>
        <dd>
          {detail.type}
          {(detail.event ?? detail.name) ? <span className="muted"> · {detail.event ?? detail.name}</span> : null}
        </dd>
        <dt>User</dt>
        <dd className="mono">{detail.userId ?? detail.anonymousId ?? '—'}</dd>
        <dt>Source</dt>
        <dd data-testid="detail-source">{detail.sourceName ?? <span className="muted">unknown</span>}</dd>
        <dt>Destination</dt>
        <dd data-testid="detail-destination">
          {detail.destinationName ?? <span className="muted">removed (id {detail.destinationId})</span>}
          {detail.targetUrl !== null && <span className="muted"> · this {detail.test ? 'test event' : 'replay'} goes only to {detail.targetUrl}</span>}
        </dd>
        <dt>Message</dt>
        <dd className="mono">{detail.messageId ?? '—'}</dd>
        <dt>Created</dt>
        <dd>
          <time dateTime={detail.createdAt}>{timeOf(detail.createdAt)}</time>
          {detail.firstAttemptAt && <span className="muted"> · first attempt {timeOf(detail.firstAttemptAt)}</span>}
          {detail.finishedAt && <span className="muted"> · finished {timeOf(detail.finishedAt)}</span>}
        </dd>
      </dl>
      <TestEventNote detail={detail} />
      <DeliveryLinks detail={detail} />
      <CompareActions detail={detail} />
      <ReplayControls detail={detail} />
      <BodyView body={detail.body} originalBody={detail.originalBody} replayOf={detail.replayOf} />
      <RequestHeaders attempt={lastAttempt} signature={detail.signature} />
      <SignatureDoctor detail={detail} />
      <VerifySnippets detail={detail} />
      {lastAttempt && detail.body !== null && <CurlCommand attempt={lastAttempt} body={detail.body} />}
      <ScheduleTimeline schedule={detail.schedule} />
      <AttemptTimeline attempts={detail.attempts} context={{ deliveryId: detail.id, body: detail.body, destinationName: detail.destinationName }} />
    </>
  );
}
