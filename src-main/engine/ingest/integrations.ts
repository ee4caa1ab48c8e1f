import type { JsonObject } from '../../../src-shared/json';

/** The integrations key that names this destination, matched case-sensitively. */
export const WEBHOOKS_INTEGRATION = 'Webhooks';

/**
 * Whether a message's integrations object lets it reach the Webhooks destination: on by default;
 * `All: false` turns it off unless `Webhooks` is switched on by itself (true or a settings object).
 */
export function webhooksEnabled(integrations: JsonObject): boolean {
  const own = integrations[WEBHOOKS_INTEGRATION];
  if (own === false) return false;
  if (own === true || (typeof own === 'object' && own !== null)) return true;
  return integrations.All !== false;
}
