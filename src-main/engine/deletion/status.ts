/**
 * A deletion request's status and its explanation, from its notices' deliveries. Pure: the rows
 * come in, a verdict goes out; service.ts reads the rows and writes the verdict.
 *
 * A notice is the delivery made when the request was created, plus the replays of it that would
 * deliver the same notice again: same bytes, to the destination's own entries (a replay with an
 * edited body, or sent to another URL such as a local receiver, says nothing about whether the
 * destination got the notice). So a failed notice replayed once the receiver is fixed turns its
 * request from failed back to pending, then forwarded.
 */
import type { DeliveryStatus } from '../../../src-shared/api';
import type { DeletionStatus } from '../../../src-shared/personas';

/** One delivery of a notice's chain: the notice itself (replayOf null) or a replay of it. */
export interface ChainMember {
  id: number;
  status: DeliveryStatus;
  /** The notice itself, or a replay with its exact bytes to the destination's entries. */
  counts: boolean;
  lastError: string | null;
}

export interface NoticeOutcome {
  /** The delivery that decides the notice: the one that succeeded, else the newest still under way, else the newest that ended. */
  deliveryId: number;
  status: DeliveryStatus;
  lastError: string | null;
}

const ACTIVE: readonly DeliveryStatus[] = ['pending', 'in_flight', 'retrying'];
export const isActive = (s: DeliveryStatus): boolean => ACTIVE.includes(s);

/** The notice's standing from its chain; the chain holds at least the notice itself. */
export function noticeOutcome(chain: readonly ChainMember[]): NoticeOutcome {
  const counted = chain.filter((m) => m.counts);
  const newest = (ms: ChainMember[]): ChainMember | undefined => ms.reduce<ChainMember | undefined>((a, m) => (a && a.id > m.id ? a : m), undefined);
  const decisive =
    counted.filter((m) => m.status === 'succeeded').reduce<ChainMember | undefined>((a, m) => (a && a.id < m.id ? a : m), undefined) ??
    newest(counted.filter((m) => isActive(m.status))) ??
    newest(counted);
  if (!decisive) throw new Error('a notice chain without the notice itself');
  return { deliveryId: decisive.id, status: decisive.status, lastError: decisive.lastError };
}

/**
 * pending while any notice is under way; forwarded once every notice succeeded; failed once none
 * is under way and at least one failed or was discarded. A request with no notice to send is
 * forwarded at once: nothing is outstanding, and its explanation says that nothing went out.
 */
export function requestStatus(notices: readonly { status: DeliveryStatus }[]): DeletionStatus {
  if (notices.some((n) => isActive(n.status))) return 'pending';
  return notices.every((n) => n.status === 'succeeded') ? 'forwarded' : 'failed';
}

export interface ExplainInput {
  userId: string;
  status: DeletionStatus;
  affectedSources: readonly string[];
  notices: readonly { source: string; destination: string; status: DeliveryStatus; lastError: string | null }[];
  purge: boolean;
  purgedAt: string | null;
  /** Why the last purge attempt failed, when it did. */
  purgeError?: string | null;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The request's status in plain words, for the Deletions view. */
export function explainStatus(r: ExplainInput): string {
  const total = r.notices.length;
  let text: string;
  if (total === 0) {
    text =
      r.affectedSources.length === 0
        ? `nothing to forward: no stored message names "${r.userId}", so no source is affected`
        : `nothing to forward: no enabled destination is attached to ${r.affectedSources.length === 1 ? 'the affected source' : 'any of the affected sources'} (${r.affectedSources.join(', ')})`;
  } else {
    const done = r.notices.filter((n) => n.status === 'succeeded').length;
    const active = r.notices.filter((n) => isActive(n.status)).length;
    const lost = r.notices.filter((n) => n.status === 'failed' || n.status === 'discarded');
    if (r.status === 'forwarded') text = total === 1 ? 'the notice was delivered' : `all ${total} notices were delivered`;
    else {
      const parts = [`${done} of ${plural(total, 'notice')} delivered`];
      if (active > 0) parts.push(`${active} still being delivered`);
      if (lost.length > 0) {
        const which = lost.map((n) => `${n.source} → ${n.destination} ${n.status}${n.lastError ? ` (${n.lastError})` : ''}`).join('; ');
        parts.push(`not delivered: ${which}`);
      }
      text = parts.join(', ');
      if (r.status === 'failed') text += '; replay a failed notice from Deliveries to try again';
    }
  }
  if (!r.purge) return text;
  if (r.purgedAt !== null) return `${text}; the user's stored messages and profile were purged at ${r.purgedAt}`;
  if (r.status === 'pending') return `${text}; the user's stored messages and profile will be purged once every notice is delivered`;
  if (r.status === 'failed') return `${text}; nothing was purged: the purge waits until every notice is delivered`;
  if (r.purgeError) return `${text}; a step of the purge failed and was undone (${r.purgeError}); the purge is tried again at the next start`;
  return `${text}; the purge is under way`;
}
