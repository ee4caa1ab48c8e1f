/**
 * The assertions API's contract: what a test asks (a filter, how many, how long) and what it gets
 * back (messages with their deliveries and violations, and for an unmet wait the closest messages
 * with why each did not match). Field names here are stable: CI scripts depend on them.
 */
import { z } from 'zod';
import { DELIVERY_STATUSES, type DeliveryStatus } from './api';

/** One tracking-plan violation: where in the message, which schema rule, and the value found there. */
export interface Violation {
  /** A JSON pointer into the message, e.g. /properties/total. */
  path: string;
  /** The schema keyword that failed (type, required, enum, additionalProperties, …). */
  rule: string;
  /** The validator's words for it. */
  message: string;
  /** The value at path as received (clipped when large); absent when the path is missing. */
  value?: unknown;
}

export interface AssertedDelivery {
  id: number;
  destination: string | null;
  status: DeliveryStatus;
  httpStatus: number | null;
}

export interface AssertedMessage {
  id: number;
  messageId: string;
  type: string;
  event: string | null;
  userId: string | null;
  anonymousId: string | null;
  source: string | null;
  receivedAt: string;
  /** The message as stored, which is what the destinations receive. */
  message: unknown;
  violations: Violation[];
  deliveries: AssertedDelivery[];
}

export interface AssertedDeliveryRow {
  id: number;
  messageRowId: number | null;
  messageId: string | null;
  type: string | null;
  event: string | null;
  userId: string | null;
  anonymousId: string | null;
  source: string | null;
  destination: string | null;
  status: DeliveryStatus;
  httpStatus: number | null;
  error: string | null;
  rounds: number;
  replayOf: number | null;
  createdAt: string;
  finishedAt: string | null;
}

/** A criterion a message did not meet: what was asked and what the message has instead. */
export interface Mismatch {
  field: CriterionField;
  expected: string;
  actual: string;
}

export interface ClosestMessage {
  message: AssertedMessage;
  mismatches: Mismatch[];
}

export interface WaitResult {
  met: boolean;
  /** How many messages match now (after the marker / since, if given). */
  matched: number;
  wanted: number;
  /** How long it waited: until enough matched, the timeout passed or the client left (on the engine's clock). */
  waitedMs: number;
  /** The matching messages, oldest first (at most `limit`). */
  messages: AssertedMessage[];
  /** When not met: the messages in scope that came nearest, fewest mismatches first. */
  closest: ClosestMessage[];
}

export interface MarkerView {
  name: string;
  /** The last message and delivery ids when marked: a filter with this marker sees only later ones. */
  afterMessageId: number;
  afterDeliveryId: number;
  createdAt: string;
}

/** The criteria a message is matched on (the scope fields, marker and since, are not criteria). */
export const CRITERION_FIELDS = ['type', 'event', 'userId', 'anonymousId', 'source', 'deliveryStatus', 'violations'] as const;
export type CriterionField = (typeof CRITERION_FIELDS)[number];

export const MAX_FILTER_VALUE_LENGTH = 500;
export const MARKER_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;
export const MARKER_RULE = 'must be 1 to 100 characters of letters, digits, _ . : -';
export const MAX_WAIT_SECONDS = 300;
export const DEFAULT_WAIT_SECONDS = 10;
export const MAX_ASSERT_LIMIT = 1000;
export const DEFAULT_ASSERT_LIMIT = 100;
export const MAX_WAIT_COUNT = 100_000;

const text = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty (leave it out to match any)' })
  .max(MAX_FILTER_VALUE_LENGTH, { error: `must be at most ${MAX_FILTER_VALUE_LENGTH} characters` });

const whole = (min: number, max: number) => {
  const rule = `must be a whole number from ${min} to ${max}`;
  return z
    .union([z.number(), z.string()], { error: rule })
    .transform((v, ctx) => {
      const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: rule });
        return z.NEVER;
      }
      return n;
    });
};

const seconds = (max: number) => {
  const rule = `must be a number of seconds from 0 to ${max}`;
  return z.union([z.number(), z.string()], { error: rule }).transform((v, ctx) => {
    const n = typeof v === 'number' ? v : /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
    if (!Number.isFinite(n) || n < 0 || n > max) {
      ctx.addIssue({ code: 'custom', message: rule });
      return z.NEVER;
    }
    return n;
  });
};

const bool = z
  .union([z.boolean(), z.enum(['true', 'false'])], { error: 'must be true or false' })
  .transform((v) => v === true || v === 'true');

const since = z.union([z.string(), z.number()], { error: 'must be an ISO 8601 time or milliseconds since 1970' }).transform((v, ctx) => {
  const ms = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms) || ms < 0) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 time (2026-11-23T12:00:00Z) or milliseconds since 1970' });
    return z.NEVER;
  }
  return ms;
});

export const markerNameSchema = z.string({ error: MARKER_RULE }).regex(MARKER_NAME, { error: MARKER_RULE });

const statusRule = `must be one of ${DELIVERY_STATUSES.join(', ')}`;
const statusSchema = z.enum(DELIVERY_STATUSES as [DeliveryStatus, ...DeliveryStatus[]], { error: statusRule });

const messageFilterShape = {
  type: text.optional(),
  event: text.optional(),
  userId: text.optional(),
  anonymousId: text.optional(),
  source: text.optional(),
  since: since.optional(),
  /** Received before this time: with since, a time range. */
  until: since.optional(),
  marker: markerNameSchema.optional(),
  deliveryStatus: statusSchema.optional(),
  /** Shorthand for deliveryStatus=succeeded: a 2xx from a URL of a webhook destination (which ends its delivery). */
  delivered: bool.optional(),
  violations: z.enum(['none', 'any'], { error: 'must be none or any' }).optional(),
};

function strict<T extends z.core.$ZodLooseShape>(shape: T) {
  const names = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `is not a filter field (expected ${names.join(', ')})` : 'must be an object'),
  });
}

export const messageFilterSchema = strict(messageFilterShape);
export type MessageFilterInput = z.input<typeof messageFilterSchema>;
export type MessageFilter = z.output<typeof messageFilterSchema>;

export const messageListSchema = strict({
  ...messageFilterShape,
  after: whole(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: whole(1, MAX_ASSERT_LIMIT).optional(),
});

export const waitSchema = strict({
  ...messageFilterShape,
  count: whole(1, MAX_WAIT_COUNT).optional(),
  timeout: seconds(MAX_WAIT_SECONDS).optional(),
  limit: whole(1, MAX_ASSERT_LIMIT).optional(),
});

export const deliveryListSchema = strict({
  ...messageFilterShape,
  status: statusSchema.optional(),
  destination: text.optional(),
  after: whole(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: whole(1, MAX_ASSERT_LIMIT).optional(),
});

export const resetSchema = z
  .strictObject(
    {
      /** Empties the log (messages, requests, finished deliveries) and drops every marker. */
      clear: z.boolean({ error: 'must be true or false' }).optional(),
      /** Names a marker at the log's current end; a name is made up when `mark` is true. */
      mark: z.union([z.literal(true), markerNameSchema], { error: `must be true or a name that ${MARKER_RULE.replace('must be', 'is')}` }).optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a reset field (expected clear, mark)' : 'must be an object { clear?, mark? }') },
  )
  .refine((v) => (v.clear === true) !== (v.mark !== undefined), { error: 'give exactly one of clear: true or mark', path: ['clear'] });

export const markerQuerySchema = z.strictObject(
  { marker: markerNameSchema.optional() },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a field here (expected marker)' : 'must be an object') },
);
