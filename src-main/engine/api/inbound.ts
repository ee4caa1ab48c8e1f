/**
 * The Inbound view's detail of one Tracking API request: the messages it produced, as stored, with
 * the deliveries made from each. (Its dropped items come from LogStore.droppedItemsOf.)
 */
import type { EngineApi, InboundMessageView } from '../../../src-shared/api';
import type { IngestWarning } from '../../../src-shared/events';
import type { Engine } from '../index';
import { toIso } from '../ingest/timestamps';
import type { MessageRow } from '../store/log-store';

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
  const messagesOfRequest = engine.db.prepare(
    `SELECT id, message_id, type, user_id, anonymous_id, event, received_at, json, warnings
     FROM messages WHERE request_id = ? ORDER BY id`,
  );
  // Replays carry their original's message, so they are listed too: every delivery made from it.
  const deliveriesOfMessage = engine.db.prepare('SELECT id FROM deliveries WHERE message_id = ? ORDER BY id');
  return {
    async messagesOf(requestId) {
      const rows = messagesOfRequest.all(requestId) as MessageRow[];
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
          deliveryIds: (deliveriesOfMessage.all(m.id) as { id: number }[]).map((d) => d.id),
        }),
      );
    },
  };
}
