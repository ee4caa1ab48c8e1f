/** What each delivery status means, for the badge's hover text (pure). */
import type { DeliveryStatus } from '../../src-shared/api';

export const DELIVERY_STATUS_MEANING: Record<DeliveryStatus, string> = {
  pending: 'Pending: queued, not sent yet; it goes out when the scheduler reaches it.',
  in_flight: 'In flight: a round of attempts is out, waiting for every URL of the destination to answer or time out.',
  succeeded: 'Succeeded: a URL of the destination answered 2xx (with several URLs, one such answer is enough).',
  retrying:
    'Retrying: no URL succeeded yet and a failure can pass (timeout, refused connection, 5xx, 408 or 429); the next round is at the time shown, until the retry window ends.',
  failed: 'Failed: given up, on a failure that waiting does not fix (another 4xx, a TLS problem, a redirect) or at the end of the retry window. Replay sends it again.',
  discarded:
    'Discarded: not sent, or no longer retried, because its destination was removed or switched off, every URL of it is switched off, or its message is gone from the log. It stays in the log and can be replayed.',
};

/** The meaning of a status word, or null for one this module does not know. */
export function deliveryStatusMeaning(status: string): string | null {
  return (DELIVERY_STATUS_MEANING as Record<string, string>)[status] ?? null;
}
