/**
 * The contract's deletion-request calls over src-main/engine/deletion. Params arrive from a
 * transport, so each is checked (ValidationError by field) whatever the static types say.
 */
import type { Engine } from '../index';
import type { EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

export function createDeletionApi(engine: Engine): Pick<EngineApi, 'requestDeletion' | 'listDeletions' | 'getDeletion'> {
  return {
    async requestDeletion(input) {
      return engine.deletions.request(input);
    },
    async listDeletions(input?: unknown) {
      // The call takes no param (an empty object is read as none); anything else is a mistake worth naming.
      const none = input === undefined || input === null || (typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length === 0);
      if (!none) throw new ValidationError([{ field: 'params', message: 'listDeletions takes no params' }]);
      return engine.deletions.list();
    },
    async getDeletion(id) {
      if (!isId(id)) throw new ValidationError([{ field: 'id', message: 'must be a positive whole number' }]);
      return engine.deletions.get(id);
    },
  };
}
