/**
 * Test receivers: named endpoints inside Hookbench that answer by a script, so a receiver that
 * fails, stalls, drops the connection or throttles can be had without writing one. The schema is
 * shared by the config file, the control API and the Receivers view's form.
 */
import { z } from 'zod';
import type { SignatureCheck } from './api';
import { fieldErrorsOf, headersSchema, type FieldError } from './settings';

export const MAX_RECEIVER_STEPS = 50;
export const MAX_STEP_BODY_LENGTH = 64 * 1024;
export const MAX_STEP_DELAY_MS = 60_000;
export const MAX_RETRY_AFTER_SECONDS = 86_400;
/** Request bodies kept byte for byte up to this size; the rest is read and counted, not kept. */
export const MAX_RECEIVED_BODY_BYTES = 1024 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NAME_RULE = 'must be 1 to 64 letters, digits, _ . - (starting with a letter or digit), as it becomes part of a URL';

/** One answer of a script. Without a status it answers 200, or 429 when retryAfter is given. */
export interface ReceiverStep {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (or before resetting). */
  delayMs?: number;
  /** Never answer: the sender's timeout ends the request. */
  hang?: boolean;
  /** Close the connection without an answer. */
  reset?: boolean;
  /** Seconds for a Retry-After header. */
  retryAfter?: number;
}

/**
 * What the script counts: every request at the receiver, or each message's own requests (so
 * "500, 500, 200" fails every message twice however their retries interleave).
 */
export type ReceiverPer = 'receiver' | 'message';
export const RECEIVER_PER_VALUES = ['receiver', 'message'] as const satisfies readonly ReceiverPer[];

export interface ReceiverInput {
  name: string;
  /** The steps in order; the last one answers every request after it. */
  responses: ReceiverStep[];
  /** What the script counts; 'receiver' when absent. */
  per?: ReceiverPer;
}

const whole = (min: number, max: number, unit: string) => {
  const message = `must be a whole number of ${unit} from ${min} to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
};
const STATUS = 'must be an HTTP status from 100 to 599';

export const receiverStepSchema = z
  .strictObject(
    {
      status: z.number({ error: STATUS }).int({ error: STATUS }).min(100, { error: STATUS }).max(599, { error: STATUS }).optional(),
      headers: headersSchema.optional(),
      body: z
        .string({ error: 'must be the text to answer with' })
        .max(MAX_STEP_BODY_LENGTH, { error: `must be at most ${MAX_STEP_BODY_LENGTH} characters` })
        .optional(),
      delayMs: whole(0, MAX_STEP_DELAY_MS, 'milliseconds').optional(),
      hang: z.boolean({ error: 'must be true or false' }).optional(),
      reset: z.boolean({ error: 'must be true or false' }).optional(),
      retryAfter: whole(0, MAX_RETRY_AFTER_SECONDS, 'seconds').optional(),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? 'is not a step field (expected status, headers, body, delayMs, hang, reset, retryAfter)'
          : 'must be an object { status?, headers?, body?, delayMs?, hang?, reset?, retryAfter? }',
    },
  )
  .superRefine((step, ctx) => {
    if (step.hang && step.reset) ctx.addIssue({ code: 'custom', path: ['reset'], message: 'cannot be combined with hang: a step either hangs or resets' });
    for (const name of Object.keys(step.headers ?? {})) {
      if (name.toLowerCase() === 'retry-after' && step.retryAfter !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['headers', name], message: 'is given twice: use retryAfter or this header, not both' });
      }
    }
  })
  .meta({ description: 'One answer. Without a status it is 200 (429 with retryAfter).' });

export const receiverInputSchema = z
  .strictObject(
    {
      name: z.string({ error: NAME_RULE }).regex(NAME, { error: NAME_RULE }),
      responses: z
        .array(receiverStepSchema, { error: 'must be a list of steps' })
        .min(1, { error: 'must have at least one step (the last one repeats)' })
        .max(MAX_RECEIVER_STEPS, { error: `must have at most ${MAX_RECEIVER_STEPS} steps` })
        .meta({ description: 'The answers in order; the last one repeats.' }),
      per: z
        .enum(RECEIVER_PER_VALUES, { error: "must be 'receiver' or 'message'" })
        .optional()
        .meta({
          description:
            "What the script counts: 'receiver' (default), every request at the receiver; 'message', each message's own requests (by its webhook-id header, else the JSON body's messageId).",
        }),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys' ? 'is not a receiver field (expected name, responses, per)' : 'must be an object { name, responses, per? }',
    },
  )
  .meta({ description: 'A test receiver at /receivers/{name} that answers by its script.' }) satisfies z.ZodType<ReceiverInput, unknown>;

/** Which step answers the request numbered n (0 = the first since the last reset): the last step repeats. Pure. */
export function stepIndexFor(stepCount: number, n: number): number {
  if (stepCount <= 0) throw new Error('a script has at least one step');
  return Math.min(Math.max(0, Math.floor(n)), stepCount - 1);
}

/**
 * The position in the script of an arriving request: with `per: 'message'` and a message key, the
 * number of earlier requests carrying that key since the last reset; otherwise the receiver-wide
 * count. Pure.
 */
export function scriptPositionOf(per: ReceiverPer, receiverWide: number, sameKeyEarlier: number | null): number {
  return per === 'message' && sameKeyEarlier !== null ? sameKeyEarlier : receiverWide;
}

/** The status a step answers with (none when it hangs or resets). */
export function statusOfStep(step: ReceiverStep): number | null {
  if (step.hang || step.reset) return null;
  return step.status ?? (step.retryAfter !== undefined ? 429 : 200);
}

/** A step in a few words, e.g. "500", "200 after 2 s", "429, Retry-After 5 s", "hang", "reset after 100 ms". */
export function stepInWords(step: ReceiverStep): string {
  const delay = step.delayMs ? ` after ${step.delayMs >= 1000 && step.delayMs % 100 === 0 ? `${step.delayMs / 1000} s` : `${step.delayMs} ms`}` : '';
  if (step.hang) return 'hang';
  if (step.reset) return `reset${delay}`;
  const retry = step.retryAfter !== undefined ? `, Retry-After ${step.retryAfter} s` : '';
  return `${statusOfStep(step)}${retry}${delay}`;
}

/** How a request at a receiver ended. */
export type ReceiverOutcome = 'pending' | 'answered' | 'reset' | 'hung' | 'client_gone';

/** The signature check of one destination whose webhook URL points at the receiver. */
export interface ReceiverSignatureVerdict {
  destination: string;
  /** The destination's URL entry that points here. */
  url: string;
  scheme: string;
  check: SignatureCheck;
}

export interface ReceiverView extends ReceiverInput {
  id: number;
  per: ReceiverPer;
  /** The index of the step the next request gets. */
  nextStep: number;
  /** Requests answered since the script was last reset. */
  sinceReset: number;
  /** Requests kept in the log. */
  requests: number;
  /** http://host:port/receivers/{name}; null until the server listens. */
  httpUrl: string | null;
  /** The same over HTTPS with Hookbench's self-signed certificate; null when not served. */
  httpsUrl: string | null;
  updatedAt: string;
}

export interface ReceiverRequestSummary {
  id: number;
  receiver: string;
  method: string;
  /** Path and query as received, below the host. */
  path: string;
  receivedAt: string;
  tls: boolean;
  /** The script step that answered (0-based). */
  step: number;
  /** The message the request carried: its webhook-id header, else the JSON body's messageId; null for neither. */
  messageKey: string | null;
  /** The request's number among those with the same message key since the last reset (1 = the first); null without a key. */
  messageTry: number | null;
  /** The status answered; null when the step hung or reset, or while pending. */
  status: number | null;
  outcome: ReceiverOutcome;
  bodyBytes: number;
  /** From the first byte received to the answer (delay included); null while pending. */
  answerMs: number | null;
  signatures: ReceiverSignatureVerdict[];
}

export interface ReceiverRequestDetail extends ReceiverRequestSummary {
  /** Header lines exactly as received, in order, names in their original case. */
  headers: [string, string][];
  /** The body's bytes, base64. */
  bodyBase64: string;
  /** The body as UTF-8 when it is valid UTF-8; null otherwise. */
  bodyText: string | null;
  /** The body was longer than MAX_RECEIVED_BODY_BYTES: only its start is kept. */
  truncated: boolean;
  /** Reading the body took this long (ms). */
  bodyMs: number;
}

/** The form's check as it types: every problem by field (empty when fine). */
export function validateReceiverInput(input: unknown, field = 'receiver'): FieldError[] {
  const result = receiverInputSchema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error, field);
}
