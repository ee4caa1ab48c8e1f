/**
 * The contract's profiles, audiences and computed traits calls over src-main/engine/personas.
 */
import type { Engine } from '../index';
import type { EngineApi } from '../../../src-shared/api';

type PersonasCalls =
  | 'listProfiles'
  | 'getProfile'
  | 'listComputations'
  | 'saveAudience'
  | 'saveComputedTrait'
  | 'deleteComputation'
  | 'previewComputation'
  | 'syncComputation'
  | 'listSyncs';

const notYet = (name: string) => async (): Promise<never> => {
  throw new Error(`${name}: not implemented yet`);
};

export function createPersonasApi(_engine: Engine): Pick<EngineApi, PersonasCalls> {
  return {
    listProfiles: notYet('listProfiles'),
    getProfile: notYet('getProfile'),
    listComputations: notYet('listComputations'),
    saveAudience: notYet('saveAudience'),
    saveComputedTrait: notYet('saveComputedTrait'),
    deleteComputation: notYet('deleteComputation'),
    previewComputation: notYet('previewComputation'),
    syncComputation: notYet('syncComputation'),
    listSyncs: notYet('listSyncs'),
  };
}
