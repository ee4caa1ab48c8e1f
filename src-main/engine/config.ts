import {
  DEFAULT_DELIVERY_SETTINGS,
  RETRY_PRESETS,
  ValidationError,
  validateDeliverySettings,
  validateDestinationInput,
  validateRetention,
  validateSourceInput,
  type DeliverySettings,
  type DestinationInput,
  type FieldError,
  type RetentionSettings,
  type SigningScheme,
  type SourceInput,
} from '../../src-shared/settings';

/** The shape of `hookbench serve --config FILE`: applied at start, idempotently, by name. */
export interface HookbenchConfig {
  sources: SourceInput[];
  destinations: DestinationInput[];
  delivery?: Partial<DeliverySettings> & { preset?: keyof typeof RETRY_PRESETS };
  /** How long and up to what size the log keeps rows; absent fields keep their current value. */
  retention?: Partial<RetentionSettings>;
}

/** Validates a parsed config file whole and returns it typed, or throws every problem by field. */
export function parseConfig(input: unknown): HookbenchConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError([{ field: '(config)', message: 'must be a JSON object with sources and destinations' }]);
  }
  const c = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  const known = new Set(['sources', 'destinations', 'delivery', 'retention', '$schema']);
  for (const key of Object.keys(c)) {
    if (!known.has(key)) errors.push({ field: key, message: 'is not a config field (expected sources, destinations, delivery, retention)' });
  }
  const sources = c.sources ?? [];
  const destinations = c.destinations ?? [];
  if (!Array.isArray(sources)) errors.push({ field: 'sources', message: 'must be a list' });
  if (!Array.isArray(destinations)) errors.push({ field: 'destinations', message: 'must be a list' });
  const sourceNames = new Set<string>();
  if (Array.isArray(sources)) {
    sources.forEach((s: unknown, i: number) => {
      errors.push(...validateSourceInput(s, `sources[${i}]`));
      const name = (s as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (sourceNames.has(name)) errors.push({ field: `sources[${i}].name`, message: `"${name}" is given twice` });
        sourceNames.add(name);
      }
    });
  }
  if (Array.isArray(destinations)) {
    destinations.forEach((d: unknown, i: number) => {
      errors.push(...validateDestinationInput(d, `destinations[${i}]`));
      const attached = (d as { sources?: unknown } | null)?.sources;
      if (Array.isArray(attached)) {
        attached.forEach((name: unknown, k: number) => {
          if (typeof name === 'string' && !sourceNames.has(name)) {
            errors.push({ field: `destinations[${i}].sources[${k}]`, message: `no source named "${name}" in sources` });
          }
        });
      }
    });
  }
  errors.push(...validateDeliverySettings(c.delivery));
  errors.push(...validateRetention(c.retention));
  if (errors.length > 0) throw new ValidationError(errors);
  const typedDestinations = (destinations as Record<string, unknown>[]).map(
    (d): DestinationInput => ({
      name: d.name as string,
      enabled: (d.enabled as boolean | undefined) ?? true,
      sources: (d.sources as string[] | undefined) ?? [],
      sharedSecret: typeof d.sharedSecret === 'string' && d.sharedSecret !== '' ? d.sharedSecret : null,
      webhooks: (d.webhooks as { url: string; headers?: Record<string, string> }[]).map((w) => ({ url: w.url, headers: w.headers ?? {} })),
      ...(d.signing === undefined ? {} : { signing: d.signing as SigningScheme }),
    }),
  );
  const config: HookbenchConfig = { sources: sources as SourceInput[], destinations: typedDestinations };
  if (c.delivery !== undefined) config.delivery = c.delivery as HookbenchConfig['delivery'];
  if (c.retention !== undefined) config.retention = c.retention as HookbenchConfig['retention'];
  return config;
}

/** Delivery settings from a config's delivery block: preset first, then explicit fields. */
export function deliverySettingsOf(block: HookbenchConfig['delivery']): DeliverySettings {
  const { preset, ...explicit } = block ?? {};
  return { ...DEFAULT_DELIVERY_SETTINGS, ...(preset ? RETRY_PRESETS[preset] : {}), ...explicit };
}
