/**
 * The contract's deletion-request calls over src-main/engine/deletion.
 */
import type { Engine } from '../index';
import type { EngineApi } from '../../../src-shared/api';

const notYet = (name: string) => async (): Promise<never> => {
  throw new Error(`${name}: not implemented yet`);
};

export function createDeletionApi(_engine: Engine): Pick<EngineApi, 'requestDeletion' | 'listDeletions' | 'getDeletion'> {
  return {
    requestDeletion: notYet('requestDeletion'),
    listDeletions: notYet('listDeletions'),
    getDeletion: notYet('getDeletion'),
  };
}
