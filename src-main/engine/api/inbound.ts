/**
 * The Inbound view's detail of one Tracking API request: the messages it produced, as stored, with
 * the deliveries made from each. (Its dropped items come from LogStore.droppedItemsOf.)
 */
import type { EngineApi, InboundMessageView } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import { toIso } from '../ingest/timestamps';
import type { MessageRow } from '../store/log-store';

export function createInboundApi(engine: Engine): Pick<EngineApi, 'messagesOf'> {
  const messagesOfRequest = engine.db.prepare(
    `SELECT id, message_id, type, user_id, anonymous_id, event, received_at, json
     FROM messages WHERE request_id = ? ORDER BY id`,
  );
  // Replays carry their original's message, so they are listed too: every delivery made from it.
  const deliveriesOfMessage = engine.db.prepare('SELECT id FROM deliveries WHERE message_id = ? ORDER BY id');
  return {
    async messagesOf(requestId) {
      if (typeof requestId !== 'number' || !Number.isSafeInteger(requestId) || requestId <= 0) {
        throw new ValidationError([{ field: 'requestId', message: 'must be a positive whole number' }]);
      }
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
          deliveryIds: (deliveriesOfMessage.all(m.id) as { id: number }[]).map((d) => d.id),
        }),
      );
    },
  };
}
