/**
 * A log for the assertions' tests, written through the store's own commit: messages of a few
 * users, a fifth identifies and the rest tracks of two events, each routed to the first
 * destination.
 */
import type { InboundMessage } from '../../../src-shared/events';
import type { Harness } from './harness';

/** Message i: identify when i is a multiple of 5, else a track of "Order Completed" (i a multiple of 3) or "Viewed". */
export function sampleMessage(i: number): InboundMessage {
  return {
    type: i % 5 === 0 ? 'identify' : 'track',
    messageId: `m-${i}`,
    userId: `user_${i % 40}`,
    ...(i % 5 === 0 ? {} : { event: i % 3 === 0 ? 'Order Completed' : 'Viewed' }),
    properties: {},
    context: {},
    integrations: {},
  } as unknown as InboundMessage;
}

/**
 * Commits messages [from, to) as one request from a source (the first when not named), received
 * at `receivedAt`, with a delivery each to the first destination; with `appendTo`, they join that
 * request, as an audience sync's later slices do. Returns the request's id.
 */
export function commitSamples(h: Harness, from: number, to: number, receivedAt: number, options: { source?: string; appendTo?: number } = {}): number {
  const sources = h.engine.stores.config.listSources();
  const source = (options.source === undefined ? sources[0] : sources.find((s) => s.name === options.source))?.id;
  const destination = h.engine.stores.config.listDestinations()[0]?.id;
  if (source === undefined || destination === undefined) throw new Error('commitSamples: the harness has no such source, or no destination');
  const items = [];
  for (let i = from; i < to; i++) {
    const message = sampleMessage(i);
    items.push({ message, json: JSON.stringify(message), destinationIds: [destination] });
  }
  const record = { sourceId: source, path: '/v1/batch', receivedAt, httpStatus: 200, bytes: 0, userAgent: 'test', ...(options.appendTo === undefined ? {} : { appendTo: options.appendTo }) };
  return h.engine.stores.log.commitRequest(record, source, items, [], 0).requestId;
}
