/** The global delivery settings in plain words, and which retry preset they match. Pure. */
import { RETRY_PRESET_LABELS, RETRY_PRESETS, type DeliverySettings, type RetrySchedule } from '../../../src-shared/settings';

export type PresetName = keyof typeof RETRY_PRESETS;
export const PRESET_NAMES = Object.keys(RETRY_PRESETS) as PresetName[];
export const PRESET_LABELS: Record<PresetName, string> = RETRY_PRESET_LABELS;

const SCHEDULE_KEYS: (keyof RetrySchedule)[] = ['baseDelayMs', 'maxDelayMs', 'jitter', 'retryWindowMs', 'maxRetryAfterMs'];

/** The preset whose retry schedule these settings carry, or 'custom' (e.g. set field by field in a config file). */
export function presetOf(settings: DeliverySettings): PresetName | 'custom' {
  return PRESET_NAMES.find((name) => SCHEDULE_KEYS.every((k) => RETRY_PRESETS[name][k] === settings[k])) ?? 'custom';
}

/** 500 ms, 5 s, 1.5 s, 10 min, 4 h, 1 h 30 min. */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const h = Math.floor(ms / 3_600_000);
  const min = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  const parts = [h > 0 ? `${h} h` : '', min > 0 ? `${min} min` : '', s > 0 && h === 0 ? `${s} s` : ''].filter(Boolean);
  return parts.join(' ');
}

export function describeDelivery(s: DeliverySettings): string {
  return (
    `Each attempt waits up to ${duration(s.timeoutMs)} for a 2xx answer. ` +
    `Timeouts, connection errors, 5xx, 408 and 429 are retried after growing pauses (from ${duration(s.baseDelayMs)}, at most ${duration(s.maxDelayMs)} apart) ` +
    `until ${duration(s.retryWindowMs)} after the first attempt; then the delivery has failed.`
  );
}
