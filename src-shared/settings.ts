/**
 * Sources, Webhooks destinations and delivery settings, with the validation every entry point
 * (config file, control API, UI) shares. Validation is pure and names the field and the limit.
 *
 * The schemas are zod's rather than valibot's: z.toJSONSchema() publishes the config file's JSON
 * Schema from these very definitions, every issue carries its path (so errors keep naming
 * `destination.webhooks[5]`), and it is the schema library most TypeScript readers already know.
 * zod has no Node dependency, so the renderer's forms run the same schemas in the window.
 */
import { z } from 'zod';

export const MAX_WEBHOOKS_PER_DESTINATION = 5;
/**
 * How a destination's requests can be signed: each scheme with its label and the headers it sets
 * (which static headers may then not use). The engine has one signer per scheme.
 */
export const SIGNING_SCHEMES = {
  'x-signature': { label: 'X-Signature: hex HMAC-SHA1 of the body', headers: ['x-signature'] },
  'x-signature+standard-webhooks': {
    label: 'X-Signature and Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1, base64 HMAC-SHA256)',
    headers: ['x-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'],
  },
} as const satisfies Record<string, { label: string; headers: readonly string[] }>;
export type SigningScheme = keyof typeof SIGNING_SCHEMES;
export const DEFAULT_SIGNING: SigningScheme = 'x-signature';

/** Headers the destination itself owns; a static header may not override them. */
export const RESERVED_HEADERS: readonly string[] = [
  'content-type',
  'user-agent',
  ...Object.values(SIGNING_SCHEMES).flatMap((s): readonly string[] => s.headers),
];
export const WEBHOOK_USER_AGENT = 'Segment.io/1.0';
export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_RETRY_WINDOW_MS = 4 * 60 * 60 * 1000;

/**
 * Time-warp: a destination's retry schedule run this many times faster for the deliveries created
 * while it is on (1 = real time). ×240 runs the standard 4-hour window in one minute. The attempt's
 * timeout is never warped: a receiver still gets its full 5 s to answer.
 */
export const NO_WARP = 1;
export const DEFAULT_WARP = 240;
export const MAX_WARP = 3600;
/** The factors the Configure view offers, with what each does to the standard 4-hour window. */
export const WARP_CHOICES: readonly { factor: number; label: string }[] = [
  { factor: 60, label: '×60 (4 h in 4 min)' },
  { factor: 240, label: '×240 (4 h in 1 min)' },
  { factor: 1440, label: '×1440 (4 h in 10 s)' },
  { factor: 3600, label: '×3600 (4 h in 4 s)' },
];

export interface SourceInput {
  name: string;
  writeKey: string;
}

export interface Source extends SourceInput {
  id: number;
  createdAt: string;
}

export interface WebhookEntry {
  url: string;
  headers: Record<string, string>;
  /** Off: kept with its headers but not sent to. Absent means on. */
  enabled?: boolean;
}

export interface DestinationInput {
  name: string;
  enabled: boolean;
  /** Names of the sources this destination is attached to. */
  sources: string[];
  sharedSecret: string | null;
  webhooks: WebhookEntry[];
  /** How its requests are signed (with sharedSecret); DEFAULT_SIGNING when absent. */
  signing?: SigningScheme;
  /** Time-warp factor for deliveries created from now on (NO_WARP = real time); absent keeps the stored one. */
  warp?: number;
}

export interface Destination extends DestinationInput {
  id: number;
  createdAt: string;
  signing: SigningScheme;
  warp: number;
}

/** Backoff schedule: exponential from baseDelayMs, capped per step, stopping retryWindowMs after the first attempt. */
export interface RetrySchedule {
  baseDelayMs: number;
  maxDelayMs: number;
  /** 0 = no jitter, 1 = full jitter (delay drawn from [d/2, d] at 0.5 … [0, d] at 1). */
  jitter: number;
  retryWindowMs: number;
  /** Retry-After from a 429/503 is honoured up to this bound. */
  maxRetryAfterMs: number;
}

export interface DeliverySettings extends RetrySchedule {
  timeoutMs: number;
}

export const RETRY_PRESETS = {
  /** The source document's behaviour: retries for up to 4 hours. */
  standard: {
    baseDelayMs: 1_000,
    maxDelayMs: 10 * 60 * 1000,
    jitter: 0.5,
    retryWindowMs: DEFAULT_RETRY_WINDOW_MS,
    maxRetryAfterMs: 10 * 60 * 1000,
  },
  /** For debugging a receiver: a handful of quick retries within a minute. */
  short: {
    baseDelayMs: 500,
    maxDelayMs: 10_000,
    jitter: 0.5,
    retryWindowMs: 60_000,
    maxRetryAfterMs: 10_000,
  },
} as const satisfies Record<string, RetrySchedule>;

/** What each preset is for, as the Configure view offers it. */
export const RETRY_PRESET_LABELS: Record<keyof typeof RETRY_PRESETS, string> = {
  standard: 'Standard — retries for up to 4 hours, as Segment does',
  short: 'Short — quick retries within a minute, for debugging a receiver',
};

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  timeoutMs: DEFAULT_TIMEOUT_MS,
  ...RETRY_PRESETS.standard,
};

/** A problem with one field of an input, by its path (e.g. `destinations[0].webhooks[5]`). */
export interface FieldError {
  field: string;
  message: string;
}

export class ValidationError extends Error {
  readonly code = 'validation_failed';
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
    this.name = 'ValidationError';
  }
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const WRITE_KEY = /^[A-Za-z0-9_\-.:]{1,200}$/;
const WRITE_KEY_RULE = 'must be 1 to 200 characters of letters, digits, _ - . :';
const MAX_HEADER_VALUE_LENGTH = 8192;

/** Why a webhook URL is refused, or null when it is fine. Pure; the forms and the schemas share it. */
function webhookUrlProblem(url: unknown): string | null {
  if (typeof url !== 'string' || url.trim() === '') return 'is required: a full http:// or https:// URL';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a valid URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must use http or https, not ${parsed.protocol.replace(':', '')}`;
  if (parsed.username || parsed.password) return 'must not carry credentials; use a static header instead';
  return null;
}

export const webhookUrlSchema = z.string({ error: 'is required: a full http:// or https:// URL' }).superRefine((url, ctx) => {
  const problem = webhookUrlProblem(url);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});

/** Every problem of a header map, each at its header's name (several may share one name's path). */
function headerProblems(headers: Record<string, string>): { name: string; message: string }[] {
  const problems: { name: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      problems.push({ name, message: 'header name must be a token (letters, digits, !#$%&\'*+-.^_`|~; no spaces, CR or LF)' });
    } else if ((RESERVED_HEADERS as readonly string[]).includes(lower)) {
      problems.push({ name, message: `${name} is set by Hookbench and cannot be overridden` });
    } else if (seen.has(lower)) {
      problems.push({ name, message: 'header names are case-insensitive; this one is given twice' });
    }
    seen.add(lower);
    if (/[\r\n\0]/.test(value)) problems.push({ name, message: 'header value must not contain CR, LF or NUL' });
    else if (value.length > MAX_HEADER_VALUE_LENGTH) problems.push({ name, message: `header value is longer than ${MAX_HEADER_VALUE_LENGTH} characters` });
  }
  return problems;
}

export const headersSchema = z
  .record(z.string(), z.string({ error: 'header value must be a string' }), { error: 'must be an object of header name to string value' })
  .superRefine((headers, ctx) => {
    for (const p of headerProblems(headers)) ctx.addIssue({ code: 'custom', path: [p.name], message: p.message });
  });

const requiredName = z.string({ error: 'is required' }).refine((s) => s.trim() !== '', { error: 'is required' });

export const sourceInputSchema = z.object(
  {
    name: requiredName.refine((s) => s.length <= 200, { error: 'is longer than 200 characters' }),
    writeKey: z.string({ error: WRITE_KEY_RULE }).regex(WRITE_KEY, { error: WRITE_KEY_RULE }),
  },
  { error: 'must be an object' },
);

export const webhookEntrySchema = z.object(
  {
    url: webhookUrlSchema.meta({ description: 'A full http:// or https:// URL, without credentials.' }),
    headers: headersSchema.optional().transform((h) => h ?? {}),
    enabled: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .transform((v) => v ?? true)
      .meta({ description: 'false keeps the URL and its headers but sends nothing to it. Default true.' }),
  },
  { error: 'must be an object { url, headers, enabled? }' },
);

/** What a destination is saved from, by the config file or the API; absent fields take the same defaults either way. */
export const destinationInputSchema = z.object(
  {
    name: requiredName,
    enabled: z.boolean({ error: 'must be true or false' }).optional().transform((v) => v ?? true),
    sources: z
      .array(z.string({ error: 'must be a source name' }), { error: 'must be a list of source names' })
      .optional()
      .transform((v) => v ?? []),
    // An empty secret means none: nothing is signed.
    sharedSecret: z
      .string({ error: 'must be a string or null' })
      .nullable()
      .optional()
      .transform((v) => (v ? v : null)),
    // Absent: the stored scheme stays (or the default for a new destination).
    signing: z
      .enum(Object.keys(SIGNING_SCHEMES) as [SigningScheme, ...SigningScheme[]], {
        error: `must be one of ${Object.keys(SIGNING_SCHEMES).join(', ')}`,
      })
      .optional(),
    // Absent: the stored factor stays (or real time for a new destination).
    warp: z
      .number({ error: `must be a whole number from ${NO_WARP} (real time) to ${MAX_WARP}` })
      .int({ error: `must be a whole number from ${NO_WARP} (real time) to ${MAX_WARP}` })
      .min(NO_WARP, { error: `must be a whole number from ${NO_WARP} (real time) to ${MAX_WARP}` })
      .max(MAX_WARP, { error: `must be a whole number from ${NO_WARP} (real time) to ${MAX_WARP}` })
      .optional()
      .meta({ description: `Time-warp: the retry schedule of the deliveries created from now on runs this many times faster (1 = real time, ${DEFAULT_WARP} = the 4-hour window in a minute).` }),
    webhooks: z
      .array(webhookEntrySchema, { error: 'must be a list of { url, headers } entries' })
      .superRefine((list, ctx) => {
        if (list.length > MAX_WEBHOOKS_PER_DESTINATION) {
          ctx.addIssue({
            code: 'custom',
            path: [MAX_WEBHOOKS_PER_DESTINATION],
            message: `a destination has at most ${MAX_WEBHOOKS_PER_DESTINATION} webhook URLs; this is number ${list.length}`,
          });
        }
      })
      .meta({ description: `At most ${MAX_WEBHOOKS_PER_DESTINATION} entries.`, maxItems: MAX_WEBHOOKS_PER_DESTINATION }),
  },
  { error: 'must be an object' },
) satisfies z.ZodType<DestinationInput, unknown>;

const DAY_MS = 24 * 60 * 60 * 1000;
const millis = (max: number) => {
  const message = `must be a whole number of milliseconds from 1 to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(max, { error: message }).optional();
};
const DELIVERY_KEYS = ['timeoutMs', 'retryWindowMs', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs', 'jitter', 'preset'] as const;
const presetNames = Object.keys(RETRY_PRESETS) as (keyof typeof RETRY_PRESETS)[];

/** Delivery settings as saved: a preset first, then explicit fields. Unknown keys are refused, not stored. */
export const deliverySettingsInputSchema = z.strictObject(
  {
    timeoutMs: millis(60 * 60 * 1000),
    retryWindowMs: millis(7 * DAY_MS),
    baseDelayMs: millis(DAY_MS),
    maxDelayMs: millis(DAY_MS),
    maxRetryAfterMs: millis(DAY_MS),
    jitter: z.number({ error: 'must be a number from 0 to 1' }).min(0, { error: 'must be a number from 0 to 1' }).max(1, { error: 'must be a number from 0 to 1' }).optional(),
    preset: z.enum(presetNames as [keyof typeof RETRY_PRESETS, ...(keyof typeof RETRY_PRESETS)[]], { error: `must be one of ${presetNames.join(', ')}` }).optional(),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `is not a delivery setting (expected ${DELIVERY_KEYS.join(', ')})` : 'must be an object') },
);

/**
 * zod issues as our FieldErrors: the path joined as `root.key[3].name`, one entry per unknown key,
 * unknown keys first (most often a misspelt known one, which explains the rest), repeats dropped.
 */
export function fieldErrorsOf(error: z.ZodError, root: string, wholeLabel = root): FieldError[] {
  const at = (path: readonly PropertyKey[]): string =>
    path.reduce<string>((field, seg) => (typeof seg === 'number' ? `${field}[${seg}]` : field === '' ? String(seg) : `${field}.${String(seg)}`), root);
  const unknown: FieldError[] = [];
  const other: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') unknown.push(...issue.keys.map((key) => ({ field: at([...issue.path, key]), message: issue.message })));
    else other.push({ field: at(issue.path) || wholeLabel, message: issue.message });
  }
  const seen = new Set<string>();
  return [...unknown, ...other].filter((e) => {
    const key = `${e.field}\n${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Parses with the schema, or throws a ValidationError naming each bad field under `root`. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root: string, wholeLabel = root): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrorsOf(result.error, root, wholeLabel));
  return result.data;
}

const problemsOf = (schema: z.ZodType, input: unknown, root: string): FieldError[] => {
  const result = schema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error, root);
};

// The renderer's forms check as they type: the same schemas, as a list of problems (empty when fine).

export function validateWebhookUrl(url: unknown, field: string): FieldError[] {
  const problem = webhookUrlProblem(url);
  return problem === null ? [] : [{ field, message: problem }];
}

export function validateSourceInput(input: unknown, field = 'source'): FieldError[] {
  return problemsOf(sourceInputSchema, input, field);
}

export function validateDestinationInput(input: unknown, field = 'destination'): FieldError[] {
  return problemsOf(destinationInputSchema, input, field);
}

/** How long, and up to what size, the log keeps its rows (messages, requests, finished deliveries). */
export interface RetentionSettings {
  /** Messages and requests older than this many days go. */
  days: number;
  /** Past this many megabytes of data the oldest rows go early, and the file is kept under it. */
  megabytes: number;
}

export const DEFAULT_RETENTION: RetentionSettings = { days: 30, megabytes: 1024 };
export const RETENTION_LIMITS = { days: { min: 1, max: 3650 }, megabytes: { min: 1, max: 1024 * 1024 } } as const;

const wholeOf = (key: keyof typeof RETENTION_LIMITS) => {
  const { min, max } = RETENTION_LIMITS[key];
  const message = `must be a whole number of ${key} from ${min} to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }).optional();
};

/** Retention fields to change; absent ones keep their value. */
export const retentionInputSchema = z.strictObject(
  { days: wholeOf('days'), megabytes: wholeOf('megabytes') },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a retention setting (expected days, megabytes)' : 'must be an object { days, megabytes }') },
);

export function validateRetention(input: unknown, field = 'retention'): FieldError[] {
  return input === undefined ? [] : problemsOf(retentionInputSchema, input, field);
}
