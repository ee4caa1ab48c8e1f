/**
 * The Inbound view's detail of one Tracking API request: the call as received (headers and body, as
 * far as they were kept), the messages it produced, as stored, with the deliveries made from each. (Its dropped items come from RequestStore.droppedItemsOf.)
 */
import { MESSAGES_OF_LIMIT, type EngineApi, type InboundMessageView, type RequestPage } from '../../../src-shared/api';
import type { RequestQueryFilter } from '../store/requests';
import { toRequest } from './views';
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

/** The page's filters as the store takes them, or null when none narrows. */
export function requestQueryFilter(page: RequestPage | undefined): RequestQueryFilter | null {
  if (!page) return null;
  const f: RequestQueryFilter = {};
  if (page.status !== undefined) f.status = page.status;
  if (page.sourceId !== undefined) f.sourceId = page.sourceId;
  if (page.path !== undefined && page.path !== '') f.path = page.path;
  if (page.from !== undefined) f.fromMs = Date.parse(page.from);
  if (page.to !== undefined) f.toMs = Date.parse(page.to);
  return Object.keys(f).length > 0 ? f : null;
}

/** Kept headers, read defensively like warnings: anything but an object of strings is left out. */
function headersOf(text: string | null): Record<string, string> | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return null;
  }
}

export function createInboundApi(engine: Engine): Pick<EngineApi, 'messagesOf' | 'getRequest'> {
  const requests = engine.stores.requests;
  return {
    async getRequest(id) {
      const row = requests.detail(id);
      if (!row) return null;
      return { ...toRequest(row), headers: headersOf(row.headers), body: row.body, bodyClipped: row.body_clipped === 1, bodyRemoved: row.body_clipped === 2 };
    },
    async messagesOf(requestId) {
      const rows = requests.messagesOf(requestId, MESSAGES_OF_LIMIT);
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
