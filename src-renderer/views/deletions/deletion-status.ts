/** Deletion requests in plain words (pure). */
import type { DeletionRequest, DeletionStatus } from '../../../src-shared/personas';

export const STATUS_WORDS: Record<DeletionStatus, string> = {
  pending: 'Delete notices are still being delivered.',
  forwarded: 'Every delete notice reached its destination.',
  failed: 'A delete notice failed for good. Fix the receiver, then replay the notice from Deliveries.',
};

/** The engine's own explanation when it gives one (it knows why), else ours from the status. */
export function statusExplanation(r: Pick<DeletionRequest, 'status' | 'notices' | 'explanation'>): string {
  if (r.explanation) return r.explanation;
  if (r.status === 'forwarded' && r.notices.length === 0) {
    return 'Nothing to forward: no source that had this user has an enabled destination.';
  }
  return STATUS_WORDS[r.status];
}

export type PurgeState = 'not_asked' | 'waiting' | 'purged' | 'held';

export function purgeState(r: Pick<DeletionRequest, 'purge' | 'purgedAt' | 'status'>): PurgeState {
  if (!r.purge) return 'not_asked';
  if (r.purgedAt) return 'purged';
  return r.status === 'failed' ? 'held' : 'waiting';
}

export function purgeInWords(r: Pick<DeletionRequest, 'purge' | 'purgedAt' | 'status'>): string {
  switch (purgeState(r)) {
    case 'not_asked':
      return 'Not asked: the user’s messages, their deliveries and profile stay here.';
    case 'purged':
      return `Purged ${new Date(r.purgedAt ?? '').toLocaleString()}: no message, delivery made from one, or profile of this user is left here; only this request and its notices.`;
    case 'held':
      return 'Not purged: a notice failed, so the data stays until every notice is forwarded.';
    case 'waiting':
      return 'Will purge the user’s messages, the deliveries made from them and the profile once every notice is forwarded.';
  }
}

/** Every delivery id the requests' notices point at. */
export function noticeDeliveryIds(requests: readonly DeletionRequest[]): Set<number> {
  return new Set(requests.flatMap((r) => r.notices.map((n) => n.deliveryId)));
}

/** Newest first. */
export function newestFirst(requests: readonly DeletionRequest[]): DeletionRequest[] {
  return [...requests].sort((a, b) => b.id - a.id);
}
