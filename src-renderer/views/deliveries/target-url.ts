/**
 * The replay-to-URL field: what was typed, as the URL to send to. A bare `localhost:9204` or
 * `127.0.0.1:9204/hook` is what people type for a local receiver, so a missing scheme means http://.
 * Pure; the engine's own rule for webhook URLs decides the rest.
 */
import { validateWebhookUrl } from '../../../src-shared/settings';

export const TARGET_URL_FIELD = 'Replay to URL';
export const TARGET_URL_PLACEHOLDER = 'http://localhost:9204/hook';

export type TargetUrl = { ok: true; url: string } | { ok: false; problem: string };

/** A scheme is letters, digits, + - . then "://"; "localhost:9204" has none (its colon starts a port). */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export function targetUrlOf(typed: string): TargetUrl {
  const text = typed.trim();
  if (text === '') return { ok: false, problem: `${TARGET_URL_FIELD} is required, for example ${TARGET_URL_PLACEHOLDER}` };
  if (/\s/.test(text)) return { ok: false, problem: `${TARGET_URL_FIELD} must not contain spaces` };
  const url = HAS_SCHEME.test(text) ? text : `http://${text.replace(/^\/\//, '')}`;
  const [problem] = validateWebhookUrl(url, TARGET_URL_FIELD);
  return problem ? { ok: false, problem: `${problem.field} ${problem.message}` } : { ok: true, url };
}
