/**
 * Why a message does not meet an assertion: pure, so that the account `hookbench expect` prints is
 * a row in a table test. The store finds matches in SQL; this explains the near misses.
 */
import type { AssertedMessage, ClosestMessage, CriterionField, Mismatch, Violation } from '../../../src-shared/assertions';
import type { DeliveryStatus } from '../../../src-shared/api';

/** The criteria of a filter, already resolved (delivered folded into deliveryStatus). */
export interface Criteria {
  type?: string | undefined;
  event?: string | undefined;
  userId?: string | undefined;
  anonymousId?: string | undefined;
  source?: string | undefined;
  deliveryStatus?: DeliveryStatus | undefined;
  violations?: 'none' | 'any' | undefined;
}

const shown = (v: string | null): string => (v === null ? '(none)' : JSON.stringify(v));

function violationsText(list: Violation[]): string {
  if (list.length === 0) return 'no violations';
  const first = list
    .slice(0, 3)
    .map((v) => `${v.path || '/'} ${v.message}${'value' in v ? ` (got ${JSON.stringify(v.value)})` : ''}`)
    .join('; ');
  return `${list.length} violation${list.length === 1 ? '' : 's'}: ${first}${list.length > 3 ? '; …' : ''}`;
}

function deliveriesText(m: AssertedMessage): string {
  if (m.deliveries.length === 0) return 'no deliveries';
  return m.deliveries
    .map((d) => `${d.status}${d.httpStatus === null ? '' : ` (HTTP ${d.httpStatus})`}${d.destination === null ? '' : ` at ${d.destination}`}`)
    .join(', ');
}

export function mismatchesOf(c: Criteria, m: AssertedMessage): Mismatch[] {
  const out: Mismatch[] = [];
  const eq = (field: 'type' | 'event' | 'userId' | 'anonymousId' | 'source', expected: string | undefined, actual: string | null): void => {
    if (expected !== undefined && expected !== actual) out.push({ field, expected: JSON.stringify(expected), actual: shown(actual) });
  };
  eq('type', c.type, m.type);
  eq('event', c.event, m.event);
  eq('userId', c.userId, m.userId);
  eq('anonymousId', c.anonymousId, m.anonymousId);
  eq('source', c.source, m.source);
  if (c.deliveryStatus !== undefined && !m.deliveries.some((d) => d.status === c.deliveryStatus)) {
    out.push({ field: 'deliveryStatus', expected: `a delivery ${c.deliveryStatus}`, actual: deliveriesText(m) });
  }
  if (c.violations === 'none' && m.violations.length > 0) {
    out.push({ field: 'violations', expected: 'no violations', actual: violationsText(m.violations) });
  }
  if (c.violations === 'any' && m.violations.length === 0) {
    out.push({ field: 'violations', expected: 'at least one violation', actual: 'no violations' });
  }
  return out;
}

/**
 * How far a mismatch puts a message from what was asked: another call or event is further than
 * another user or source, which is further than the right call with the wrong outcome (a failed
 * delivery, a violation), the miss a test most needs to see.
 */
const DISTANCE: Record<CriterionField, number> = { type: 4, event: 4, userId: 2, anonymousId: 2, source: 2, deliveryStatus: 1, violations: 1 };

const distanceOf = (mismatches: Mismatch[]): number => mismatches.reduce((sum, m) => sum + DISTANCE[m.field], 0);

/** The candidates that miss, nearest first, newest first among equals; at most `limit`. */
export function closestMisses(c: Criteria, candidates: AssertedMessage[], limit: number): ClosestMessage[] {
  return candidates
    .map((message) => ({ message, mismatches: mismatchesOf(c, message) }))
    .filter((x) => x.mismatches.length > 0)
    .sort((a, b) => distanceOf(a.mismatches) - distanceOf(b.mismatches) || b.message.id - a.message.id)
    .slice(0, limit);
}
