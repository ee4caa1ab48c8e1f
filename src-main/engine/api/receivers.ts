/** Test receivers over the contract: their scripts, their URLs, Reset, and the requests they got. */
import { TextDecoder } from 'node:util';
import { DEFAULT_PAGE_LIMIT, type EngineApi } from '../../../src-shared/api';
import type { ReceiverRequestDetail, ReceiverRequestSummary, ReceiverView } from '../../../src-shared/receivers';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import type { ReceiverUrls } from '../receivers/service';
import type { ReceiverRequestFull, ReceiverRequestRow, ReceiverRow } from '../store/receivers';
import type { ConfigWhat } from './index';

type ReceiversApi = Pick<
  EngineApi,
  'listReceivers' | 'saveReceiver' | 'deleteReceiver' | 'resetReceiver' | 'listReceiverRequests' | 'getReceiverRequest'
>;

const iso = (ms: number): string => new Date(ms).toISOString();

/** A receiver as the contract shows it, with both its addresses. Pure. */
export function toReceiverView(row: ReceiverRow, urls: ReceiverUrls): ReceiverView {
  const path = `/receivers/${encodeURIComponent(row.name)}`;
  return {
    id: row.id,
    name: row.name,
    responses: row.responses,
    per: row.per,
    nextStep: Math.min(row.nextIndex, row.responses.length - 1),
    sinceReset: row.nextIndex,
    requests: row.requests,
    httpUrl: urls.http ? `${urls.http}${path}` : null,
    httpsUrl: urls.https ? `${urls.https}${path}` : null,
    updatedAt: iso(row.updatedAt),
  };
}

export function toRequestSummary(row: ReceiverRequestRow): ReceiverRequestSummary {
  return {
    id: row.id,
    receiver: row.receiver,
    method: row.method,
    path: row.path,
    receivedAt: iso(row.receivedAt),
    tls: row.tls,
    step: row.step,
    messageKey: row.messageKey,
    messageTry: row.messageTry,
    status: row.status,
    outcome: row.outcome,
    bodyBytes: row.bodyBytes,
    answerMs: row.answeredAt === null ? null : row.answeredAt - row.receivedAt,
    signatures: row.signatures,
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function toRequestDetail(row: ReceiverRequestFull): ReceiverRequestDetail {
  let bodyText: string | null;
  try {
    bodyText = strictUtf8.decode(row.body);
  } catch {
    bodyText = null;
  }
  return {
    ...toRequestSummary(row),
    headers: row.headers,
    bodyBase64: row.body.toString('base64'),
    bodyText,
    truncated: row.body.length < row.bodyBytes,
    bodyMs: row.bodyMs,
  };
}

export function createReceiversApi(engine: Engine, deps: { onConfig: (what: ConfigWhat) => void }): ReceiversApi {
  const receivers = engine.receivers;
  const named = (name: string, field: string): ReceiverRow => {
    const row = receivers.get(name);
    if (!row) throw new ValidationError([{ field, message: `no test receiver named "${name}"` }]);
    return row;
  };
  return {
    async listReceivers() {
      return receivers.list().map((r) => toReceiverView(r, receivers.urls()));
    },
    async saveReceiver(input) {
      const saved = receivers.save(input);
      deps.onConfig('receivers');
      return toReceiverView(saved, receivers.urls());
    },
    async deleteReceiver(name) {
      named(name, 'receiver.name');
      await receivers.remove(name);
      deps.onConfig('receivers');
    },
    async resetReceiver(name) {
      named(name, 'receiver.name');
      receivers.reset(name);
      deps.onConfig('receivers');
      return toReceiverView(named(name, 'receiver.name'), receivers.urls());
    },
    async listReceiverRequests(page) {
      const receiver = named(page.receiver, 'page.receiver');
      const limit = page.limit ?? DEFAULT_PAGE_LIMIT;
      const items = engine.stores.receivers.page(receiver.id, page.beforeId ?? Number.MAX_SAFE_INTEGER, limit).map(toRequestSummary);
      const last = items[items.length - 1];
      return { items, nextBeforeId: items.length === limit && last ? last.id : null };
    },
    async getReceiverRequest(id) {
      const row = engine.stores.receivers.request(id);
      return row ? toRequestDetail(row) : null;
    },
  };
}
