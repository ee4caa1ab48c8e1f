import { z } from 'zod';
import {
  DEFAULT_DELIVERY_SETTINGS,
  RETRY_PRESETS,
  deliverySettingsInputSchema,
  destinationInputSchema,
  parseOrThrow,
  retentionInputSchema,
  sourceInputSchema,
  type DeliverySettings,
  type DestinationInput,
  type RetentionSettings,
  type SourceInput,
} from '../../src-shared/settings';
import { receiverInputSchema, type ReceiverInput } from '../../src-shared/receivers';
import type { TrackingPlan } from '../../src-shared/tracking-plan';

/** The shape of `hookbench serve --config FILE`: applied at start, idempotently, by name. */
export interface HookbenchConfig {
  sources: SourceInput[];
  destinations: DestinationInput[];
  delivery?: Partial<DeliverySettings> & { preset?: keyof typeof RETRY_PRESETS };
  /** How long and up to what size the log keeps rows; absent fields keep their current value. */
  retention?: Partial<RetentionSettings>;
  /** Test receivers by name, each replaced whole (a changed script starts over). */
  receivers?: ReceiverInput[];
  /** The tracking plan, read from the file the config names; null removes the one in force. */
  trackingPlan?: TrackingPlan | null;
}

const CONFIG_FIELDS = 'sources, destinations, delivery, retention, receivers, trackingPlan';

/**
 * The config file, whole. Also the source of schema/hookbench.schema.json (npm run schema), so an
 * editor that follows the file's "$schema" checks it as the engine will.
 */
export const configSchema = z
  .strictObject(
    {
      $schema: z.string({ error: 'must be the address of a JSON Schema' }).optional().meta({ description: 'The JSON Schema this file follows (editors use it; Hookbench ignores it).' }),
      sources: z.array(sourceInputSchema, { error: 'must be a list' }).optional().meta({ description: 'Sources by name, each with the write key SDKs send.' }),
      destinations: z.array(destinationInputSchema, { error: 'must be a list' }).optional().meta({ description: 'Webhooks destinations by name, replaced whole.' }),
      delivery: deliverySettingsInputSchema.optional().meta({ description: 'Timeouts and the retry schedule: a preset first, then explicit fields.' }),
      retention: retentionInputSchema.optional().meta({ description: 'How long and up to what size the log keeps rows.' }),
      receivers: z
        .array(receiverInputSchema, { error: 'must be a list' })
        .optional()
        .meta({ description: 'Test receivers at /receivers/{name}, each answering by its script of responses (the last one repeats).' }),
      trackingPlan: z
        .string({ error: 'must be the path of a tracking plan file (JSON), relative to this file' })
        .min(1, { error: 'must be the path of a tracking plan file (JSON), relative to this file' })
        .optional()
        .meta({ description: 'A JSON file with a JSON Schema per event (and for identify, page, screen and group), checked at ingest.' }),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys' ? `is not a config field (expected ${CONFIG_FIELDS})` : 'must be a JSON object with sources and destinations',
    },
  )
  .superRefine((c, ctx) => {
    const names = new Set<string>();
    c.sources?.forEach((s, i) => {
      if (names.has(s.name)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `"${s.name}" is given twice` });
      names.add(s.name);
    });
    c.destinations?.forEach((d, i) =>
      d.sources.forEach((name, k) => {
        if (!names.has(name)) ctx.addIssue({ code: 'custom', path: ['destinations', i, 'sources', k], message: `no source named "${name}" in sources` });
      }),
    );
    const receivers = new Set<string>();
    c.receivers?.forEach((r, i) => {
      if (receivers.has(r.name)) ctx.addIssue({ code: 'custom', path: ['receivers', i, 'name'], message: `"${r.name}" is given twice` });
      receivers.add(r.name);
    });
  })
  .meta({ title: 'hookbench.json', description: 'Sources, destinations, delivery and retention settings and test receivers that `hookbench serve --config` applies at start.' });

/** Validates a parsed config file whole and returns it typed, or throws every problem by field. */
export function parseConfig(input: unknown): HookbenchConfig {
  // The root's own problems (not an object) are named "(config)"; a field's by its path.
  const c = parseOrThrow(configSchema, input, '', '(config)');
  const config: HookbenchConfig = { sources: c.sources ?? [], destinations: c.destinations ?? [] };
  if (c.delivery !== undefined) config.delivery = c.delivery;
  if (c.retention !== undefined) config.retention = c.retention;
  if (c.receivers !== undefined) config.receivers = c.receivers;
  return config;
}

/** The tracking plan file a config names (its path as written), read and checked by the caller. */
export function trackingPlanFileOf(input: unknown): string | undefined {
  const file = (input as { trackingPlan?: unknown } | null)?.trackingPlan;
  return typeof file === 'string' && file !== '' ? file : undefined;
}

/** Delivery settings from a config's delivery block: preset first, then explicit fields. */
export function deliverySettingsOf(block: HookbenchConfig['delivery']): DeliverySettings {
  const { preset, ...explicit } = block ?? {};
  return { ...DEFAULT_DELIVERY_SETTINGS, ...(preset ? RETRY_PRESETS[preset] : {}), ...explicit };
}
