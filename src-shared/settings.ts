/**
 * Sources, Webhooks destinations and delivery settings, with the validation every entry point
 * (config file, control API, UI) shares. Validation is pure and names the field and the limit.
 */

export const MAX_WEBHOOKS_PER_DESTINATION = 5;
/** Headers the destination itself owns; a static header may not override them (DESIGN.md). */
/**
 * How a destination's requests can be signed: each scheme with its label and the headers it sets
 * (which static headers may then not use). The engine has one signer per scheme.
 */
export const SIGNING_SCHEMES = {
  'x-signature': { label: 'X-Signature: hex HMAC-SHA1 of the body', headers: ['x-signature'] },
} as const satisfies Record<string, { label: string; headers: readonly string[] }>;
export type SigningScheme = keyof typeof SIGNING_SCHEMES;
export const DEFAULT_SIGNING: SigningScheme = 'x-signature';

export const RESERVED_HEADERS: readonly string[] = [
  'content-type',
  'user-agent',
  ...Object.values(SIGNING_SCHEMES).flatMap((s): readonly string[] => s.headers),
];
export const WEBHOOK_USER_AGENT = 'Segment.io/1.0';
export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_RETRY_WINDOW_MS = 4 * 60 * 60 * 1000;

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
}

export interface Destination extends DestinationInput {
  id: number;
  createdAt: string;
  signing: SigningScheme;
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

export function validateWebhookUrl(url: unknown, field: string): FieldError[] {
  if (typeof url !== 'string' || url.trim() === '') {
    return [{ field, message: 'is required: a full http:// or https:// URL' }];
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ field, message: `"${url}" is not a valid URL` }];
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return [{ field, message: `must use http or https, not ${parsed.protocol.replace(':', '')}` }];
  }
  if (parsed.username || parsed.password) {
    return [{ field, message: 'must not carry credentials; use a static header instead' }];
  }
  return [];
}

export function validateHeaders(headers: unknown, field: string): FieldError[] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    return [{ field, message: 'must be an object of header name to string value' }];
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    const at = `${field}.${name}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      errors.push({ field: at, message: 'header name must be a token (letters, digits, !#$%&\'*+-.^_`|~; no spaces, CR or LF)' });
    } else if ((RESERVED_HEADERS as readonly string[]).includes(lower)) {
      errors.push({ field: at, message: `${name} is set by Hookbench and cannot be overridden` });
    } else if (seen.has(lower)) {
      errors.push({ field: at, message: 'header names are case-insensitive; this one is given twice' });
    }
    seen.add(lower);
    if (typeof value !== 'string') {
      errors.push({ field: at, message: 'header value must be a string' });
    } else if (/[\r\n\0]/.test(value)) {
      errors.push({ field: at, message: 'header value must not contain CR, LF or NUL' });
    } else if (value.length > 8192) {
      errors.push({ field: at, message: 'header value is longer than 8192 characters' });
    }
  }
  return errors;
}

export function validateSourceInput(input: unknown, field = 'source'): FieldError[] {
  if (typeof input !== 'object' || input === null) return [{ field, message: 'must be an object' }];
  const s = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof s.name !== 'string' || s.name.trim() === '') errors.push({ field: `${field}.name`, message: 'is required' });
  else if (s.name.length > 200) errors.push({ field: `${field}.name`, message: 'is longer than 200 characters' });
  if (typeof s.writeKey !== 'string' || !WRITE_KEY.test(s.writeKey)) {
    errors.push({ field: `${field}.writeKey`, message: 'must be 1 to 200 characters of letters, digits, _ - . :' });
  }
  return errors;
}

export function validateDestinationInput(input: unknown, field = 'destination'): FieldError[] {
  if (typeof input !== 'object' || input === null) return [{ field, message: 'must be an object' }];
  const d = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof d.name !== 'string' || d.name.trim() === '') errors.push({ field: `${field}.name`, message: 'is required' });
  if (d.enabled !== undefined && typeof d.enabled !== 'boolean') {
    errors.push({ field: `${field}.enabled`, message: 'must be true or false' });
  }
  if (d.sources !== undefined && (!Array.isArray(d.sources) || d.sources.some((s) => typeof s !== 'string'))) {
    errors.push({ field: `${field}.sources`, message: 'must be a list of source names' });
  }
  if (d.sharedSecret !== undefined && d.sharedSecret !== null && typeof d.sharedSecret !== 'string') {
    errors.push({ field: `${field}.sharedSecret`, message: 'must be a string or null' });
  }
  if (d.signing !== undefined && !(typeof d.signing === 'string' && Object.hasOwn(SIGNING_SCHEMES, d.signing))) {
    errors.push({ field: `${field}.signing`, message: `must be one of ${Object.keys(SIGNING_SCHEMES).join(', ')}` });
  }
  if (!Array.isArray(d.webhooks)) {
    errors.push({ field: `${field}.webhooks`, message: 'must be a list of { url, headers } entries' });
    return errors;
  }
  if (d.webhooks.length > MAX_WEBHOOKS_PER_DESTINATION) {
    errors.push({
      field: `${field}.webhooks[${MAX_WEBHOOKS_PER_DESTINATION}]`,
      message: `a destination has at most ${MAX_WEBHOOKS_PER_DESTINATION} webhook URLs; this is number ${d.webhooks.length}`,
    });
  }
  d.webhooks.forEach((entry: unknown, i: number) => {
    const at = `${field}.webhooks[${i}]`;
    if (typeof entry !== 'object' || entry === null) {
      errors.push({ field: at, message: 'must be an object { url, headers }' });
      return;
    }
    const e = entry as Record<string, unknown>;
    errors.push(...validateWebhookUrl(e.url, `${at}.url`), ...validateHeaders(e.headers, `${at}.headers`));
  });
  return errors;
}

export function validateDeliverySettings(input: unknown, field = 'delivery'): FieldError[] {
  if (input === undefined) return [];
  if (typeof input !== 'object' || input === null) return [{ field, message: 'must be an object' }];
  const d = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  const positive = (key: string, max: number): void => {
    const v = d[key];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0 || v > max) {
      errors.push({ field: `${field}.${key}`, message: `must be a whole number of milliseconds from 1 to ${max}` });
    }
  };
  positive('timeoutMs', 60 * 60 * 1000);
  positive('retryWindowMs', 7 * 24 * 60 * 60 * 1000);
  positive('baseDelayMs', 24 * 60 * 60 * 1000);
  positive('maxDelayMs', 24 * 60 * 60 * 1000);
  positive('maxRetryAfterMs', 24 * 60 * 60 * 1000);
  if (d.jitter !== undefined && (typeof d.jitter !== 'number' || d.jitter < 0 || d.jitter > 1)) {
    errors.push({ field: `${field}.jitter`, message: 'must be a number from 0 to 1' });
  }
  if (d.preset !== undefined && !(typeof d.preset === 'string' && d.preset in RETRY_PRESETS)) {
    errors.push({ field: `${field}.preset`, message: `must be one of ${Object.keys(RETRY_PRESETS).join(', ')}` });
  }
  return errors;
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

export function validateRetention(input: unknown, field = 'retention'): FieldError[] {
  if (input === undefined) return [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return [{ field, message: 'must be an object { days, megabytes }' }];
  const r = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(r)) {
    if (key !== 'days' && key !== 'megabytes') errors.push({ field: `${field}.${key}`, message: 'is not a retention setting (expected days, megabytes)' });
  }
  const whole = (key: 'days' | 'megabytes', unit: string): void => {
    const v = r[key];
    const { min, max } = RETENTION_LIMITS[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) {
      errors.push({ field: `${field}.${key}`, message: `must be a whole number of ${unit} from ${min} to ${max}` });
    }
  };
  whole('days', 'days');
  whole('megabytes', 'megabytes');
  return errors;
}
