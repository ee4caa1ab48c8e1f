import type { Computation } from '../../src-shared/personas';

/** An audience as the engine lists it, with nothing synced yet; `patch` sets what a test needs. */
export function computationFixture(patch: Partial<Computation> = {}): Computation {
  return {
    id: 1,
    class: 'audience',
    name: 'High Value Pro',
    key: 'high_value_pro',
    space: 'backend',
    syncEveryMinutes: null,
    condition: null,
    rule: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    size: 0,
    lastSync: null,
    nextSyncAt: null,
    syncing: null,
    ...patch,
  };
}
