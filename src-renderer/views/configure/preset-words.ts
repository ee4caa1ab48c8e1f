/** The global delivery settings in plain words, and which retry preset they match. Pure. */
import { RETRY_PRESET_LABELS, RETRY_PRESETS, type DeliverySettings, type RetrySchedule } from '../../../src-shared/settings';
import { spanOf } from '../../shared/format';

export type PresetName = keyof typeof RETRY_PRESETS;
export const PRESET_NAMES = Object.keys(RETRY_PRESETS) as PresetName[];
export const PRESET_LABELS: Record<PresetName, string> = RETRY_PRESET_LABELS;

const SCHEDULE_KEYS: (keyof RetrySchedule)[] = ['baseDelayMs', 'maxDelayMs', 'jitter', 'retryWindowMs', 'maxRetryAfterMs'];

/** The preset whose retry schedule these settings carry, or 'custom' (e.g. set field by field in a config file). */
export function presetOf(settings: DeliverySettings): PresetName | 'custom' {
  return PRESET_NAMES.find((name) => SCHEDULE_KEYS.every((k) => RETRY_PRESETS[name][k] === settings[k])) ?? 'custom';
}

export function describeDelivery(s: DeliverySettings): string {
  return (
    `Each attempt waits up to ${spanOf(s.timeoutMs)} for a 2xx answer. ` +
    `Timeouts, connection errors, 5xx, 408 and 429 are retried after growing pauses (from ${spanOf(s.baseDelayMs)}, at most ${spanOf(s.maxDelayMs)} apart) ` +
    `until ${spanOf(s.retryWindowMs)} after the first attempt; then the delivery has failed.`
  );
}
