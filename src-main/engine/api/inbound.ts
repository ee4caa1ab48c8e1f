/**
 * The Inbound view's detail of one Tracking API request: the messages it produced, as stored, with
 * the deliveries made from each. (Its dropped items come from RequestStore.droppedItemsOf.)
 */
import type { EngineApi, InboundMessageView } from '../../../src-shared/api';
import type { IngestWarning } from '../../../src-shared/events';
import { violationsOf } from '../assertions/service';
import type { Engine } from '../index';
import { toIso } from '../ingest/timestamps';

/** The stored list, read defensively: a row written by hand or by an older build may hold anything. */
function warningsOf(text: string | null | undefined): IngestWarning[] {
  if (!text) return [];
  try {
    const list: unknown = JSON.parse(text);
    if (!Array.isArray(list)) return [];
    return list.filter(
      (w): w is IngestWarning =>
        typeof w === 'object' && w !== null && typeof w.field === 'string' && typeof w.problem === 'string' && typeof w.value === 'string',
    );
  } catch {
    return [];
  }
}

export function createInboundApi(engine: Engine): Pick<EngineApi, 'messagesOf'> {
  const requests = engine.stores.requests;
  return {
    async messagesOf(requestId) {
      const rows = requests.messagesOf(requestId);
      return rows.map(
        (m): InboundMessageView => ({
          id: m.id,
          messageId: m.message_id,
          type: m.type,
          userId: m.user_id,
          anonymousId: m.anonymous_id,
          event: m.event,
          receivedAt: toIso(m.received_at),
          json: m.json,
          warnings: warningsOf(m.warnings),
          violations: violationsOf(m.violations),
          deliveryIds: requests.deliveryIdsOfMessage(m.id),
        }),
      );
    },
  };
}
