/**
 * The contract's deletion-request calls over src-main/engine/deletion. Params are checked by
 * params.ts; a request's identity rules by the deletion service.
 */
import type { Engine } from '../index';
import type { EngineApi } from '../../../src-shared/api';

/** Messages of the user read ahead of a deletion call for their links (the call reads all of them). */
const WARM_CALL_MESSAGES = 1_000;

export function createDeletionApi(engine: Engine): Pick<EngineApi, 'requestDeletion' | 'listDeletions' | 'getDeletion'> {
  return {
    async requestDeletion(input) {
      // The call reads every message of the user (their linked ids, the affected sources): read
      // first on the read worker, so that on a log not in memory it does not wait for the disk here.
      const userId: unknown = (input as { userId?: unknown } | null | undefined)?.userId;
      if (typeof userId === 'string' && userId !== '') {
        await engine.reads.run('deletion.warm', { userId, linkedIds: [], linksAfter: 0, links: WARM_CALL_MESSAGES, limit: 0 }, async () => 0);
      }
      return engine.deletions.request(input);
    },
    async listDeletions() {
      return engine.deletions.list();
    },
    async getDeletion(id) {
      return engine.deletions.get(id);
    },
  };
}
