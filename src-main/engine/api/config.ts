/**
 * Removing sources and destinations, and what the Configure view needs to know about the running
 * engine (where its Tracking API listens, whether secrets are sealed at rest). Saving lives in index.ts with the rest of the settings.
 */
import type { EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import type { ConfigWhat } from './index';

export interface ConfigDeps {
  onConfig: (what: ConfigWhat) => void;
  ingestUrl: () => string | null;
}

const quoted = (names: string[]): string => names.map((n) => `"${n}"`).join(', ');

export function createConfigApi(engine: Engine, deps: ConfigDeps): Pick<EngineApi, 'deleteSource' | 'deleteDestination' | 'renameDestination' | 'getEnvironment'> {
  return {
    async deleteSource(name) {
      const source = name;
      const outcome = engine.deleteSource(source);
      if (outcome.attachedTo.length > 0) {
        const several = outcome.attachedTo.length > 1;
        throw new ValidationError([
          {
            field: 'source.name',
            message: `cannot be removed while ${several ? 'destinations' : 'destination'} ${quoted(outcome.attachedTo)} ${several ? 'are' : 'is'} attached to it; detach it there first`,
          },
        ]);
      }
      if (outcome.computations.length > 0) {
        throw new ValidationError([
          {
            field: 'source.name',
            message: `cannot be removed while ${quoted(outcome.computations)} ${outcome.computations.length > 1 ? 'live' : 'lives'} in it (their identify calls go to its destinations); delete ${outcome.computations.length > 1 ? 'them' : 'it'} in Audiences first`,
          },
        ]);
      }
      if (!outcome.removed) throw new ValidationError([{ field: 'source.name', message: `no source named "${source}"` }]);
      deps.onConfig('sources');
    },
    async deleteDestination(name) {
      const destination = name;
      if (!engine.deleteDestination(destination)) {
        throw new ValidationError([{ field: 'destination.name', message: `no destination named "${destination}"` }]);
      }
      deps.onConfig('destinations');
    },
    async renameDestination({ from, to }) {
      const outcome = engine.renameDestination(from, to);
      if (outcome === 'missing') throw new ValidationError([{ field: 'rename.from', message: `no destination named "${from}"` }]);
      if (outcome === 'taken') throw new ValidationError([{ field: 'rename.to', message: `is already the name of another destination` }]);
      deps.onConfig('destinations');
      const renamed = engine.stores.config.listDestinations().find((d) => d.name === to);
      if (!renamed) throw new Error(`destination "${to}" vanished while being renamed`);
      return renamed;
    },
    async getEnvironment() {
      return { ingestUrl: deps.ingestUrl(), dataDir: engine.dataDir, secrets: engine.secretsAtRest };
    },
  };
}
