/**
 * The contract's deletion-request calls over src-main/engine/deletion. Params are checked by
 * params.ts; a request's identity rules by the deletion service.
 */
import type { Engine } from '../index';
import type { EngineApi } from '../../../src-shared/api';

export function createDeletionApi(engine: Engine): Pick<EngineApi, 'requestDeletion' | 'listDeletions' | 'getDeletion'> {
  return {
    async requestDeletion(input) {
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
