/**
 * The Compose view's calls: composed events go through the client library (src-client) to this
 * engine's own Tracking API, the same path a real SDK takes; templates are kept in the settings table.
 */
import type { Engine } from '../index';
import type { EngineApi } from '../../../src-shared/api';
import type { ConfigWhat } from './index';

export interface ComposeDeps {
  ingestUrl: () => string | null;
  onConfig: (what: ConfigWhat) => void;
}

export function createComposeApi(
  _engine: Engine,
  _deps: ComposeDeps,
): Pick<EngineApi, 'composeEvents' | 'listTemplates' | 'saveTemplate' | 'deleteTemplate'> {
  return {
    async composeEvents() {
      throw new Error('composeEvents: not implemented yet');
    },
    async listTemplates() {
      return [];
    },
    async saveTemplate() {
      throw new Error('saveTemplate: not implemented yet');
    },
    async deleteTemplate() {
      throw new Error('deleteTemplate: not implemented yet');
    },
  };
}
