/**
 * Test events over the engine: which destination and URL a sample goes to is checked here against
 * the configuration (a name that exists, a URL that is one of its entries); the engine makes,
 * maps and queues it.
 */
import type { EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';

export function createTestEventApi(engine: Engine): Pick<EngineApi, 'sendTestEvent'> {
  return {
    async sendTestEvent(input) {
      const destination = engine.stores.config.listDestinations().find((d) => d.name === input.destination);
      if (!destination) throw new ValidationError([{ field: 'testEvent.destination', message: `no destination named "${input.destination}"` }]);
      const urls = destination.webhooks.map((w) => w.url);
      if (input.url !== undefined && !urls.includes(input.url)) {
        throw new ValidationError([
          { field: 'testEvent.url', message: `is not a URL of "${destination.name}" (its URLs: ${urls.length > 0 ? urls.join(', ') : 'none'})` },
        ]);
      }
      if (urls.length === 0) throw new ValidationError([{ field: 'testEvent.destination', message: `"${destination.name}" has no URL to send to` }]);
      return engine.sendTestEvent(destination.id, { type: input.type, ...(input.url !== undefined ? { url: input.url } : {}) });
    },
  };
}
