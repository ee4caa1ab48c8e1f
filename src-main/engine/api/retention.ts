/** The log's retention settings, its size on disk, and "Clear log". */
import type { EngineApi } from '../../../src-shared/api';
import type { Engine } from '../index';
import type { ConfigWhat } from './index';

export function createRetentionApi(engine: Engine, deps: { onConfig: (what: ConfigWhat) => void }): Pick<EngineApi, 'getStorage' | 'saveRetention' | 'clearLog'> {
  let clearing: ReturnType<EngineApi['clearLog']> | null = null;
  return {
    async getStorage() {
      return engine.retention.status();
    },
    async saveRetention(input) {
      engine.applyConfig({ sources: [], destinations: [], retention: { ...input } });
      deps.onConfig('retention');
      return engine.retention.status();
    },
    clearLog() {
      // A second click while one runs joins it rather than starting a rival pass.
      clearing ??= engine.retention.clear().finally(() => {
        clearing = null;
      });
      return clearing;
    },
  };
}
