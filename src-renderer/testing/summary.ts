import type { DeliverySummary } from '../../src-shared/api';

/** A delivery row for renderer tests: a pending track to destination 1, with `overrides` on top. */
export function summaryFixture(id: number, overrides: Partial<DeliverySummary> = {}): DeliverySummary {
  return {
    id,
    messageRowId: id,
    destinationId: 1,
    type: 'track',
    status: 'pending',
    userId: 'u',
    anonymousId: null,
    event: 'E',
    messageId: `m${id}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    nextAttemptAt: null,
    rounds: 0,
    lastHttpStatus: null,
    lastError: null,
    replayOf: null,
    entries: 1,
    latencyMs: null,
    replays: [],
    warp: 1,
    destinationName: 'Local receiver',
    sourceName: 'backend',
    name: null,
    urls: [],
    test: false,
    violations: 0,
    ...overrides,
  };
}
