/**
 * The control API's parameters, one zod schema per method of EngineApi. Params arrive from a
 * transport (IPC or HTTP), so they are checked here whatever the static types say; a refusal is a
 * ValidationError naming each bad field under the method's root name (`page.limit`, `replay.id`…).
 * What only the engine's state can decide (a source that exists, a write key already taken) stays
 * with the implementation.
 */
import { z } from 'zod';
import {
  COMPOSE_TYPES,
  DELIVERY_STATUSES,
  MAX_COMPOSE_COPIES,
  MAX_PAGE_LIMIT,
  EXPORT_FORMATS,
  MAX_EXPORT_PAGE,
  type ExportFormat,
  type ApiMethod,
  type ApiParams,
  type ComposeType,
  type DeliveryStatus,
} from '../../../src-shared/api';
import {
  deliverySettingsInputSchema,
  destinationInputSchema,
  parseOrThrow,
  retentionInputSchema,
  sourceInputSchema,
  webhookUrlSchema,
} from '../../../src-shared/settings';
import { deletionInputSchema } from '../deletion/identity';
import { MAX_PASTED_CHARS } from '../doctor/doctor';
import { receiverInputSchema } from '../../../src-shared/receivers';
import { trackingPlanSchema } from '../../../src-shared/tracking-plan';
import { messageFilterSchema } from '../../../src-shared/assertions';
import { IMPORT_BATCH_ITEMS } from '../../../src-shared/import-file';

const WHOLE = 'must be a positive whole number';
export const idSchema = z.number({ error: WHOLE }).int({ error: WHOLE }).min(1, { error: WHOLE }).max(Number.MAX_SAFE_INTEGER, { error: WHOLE });
const LIMIT = `must be a whole number from 1 to ${MAX_PAGE_LIMIT}`;
const limitSchema = z.number({ error: LIMIT }).int({ error: LIMIT }).min(1, { error: LIMIT }).max(MAX_PAGE_LIMIT, { error: LIMIT });

/** An object whose unknown keys are refused by name, and whose wrong type says what it should be. */
function strictParams<T extends z.core.$ZodLooseShape>(shape: T, what: string, field: string, expected = Object.keys(shape)) {
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `is not a ${field} field (expected ${expected.join(', ')})` : `must be an object ${what}`),
  });
}

/** Absent, or null, means "no param": the defaults. */
const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);

/** Longest URL or text needle accepted: a search box, not a document. */
export const MAX_NEEDLE_LENGTH = 500;
const MAX_TYPE_LENGTH = 100;

const statusSchema = z.enum(DELIVERY_STATUSES as [DeliveryStatus, ...DeliveryStatus[]], { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
const needle = (max: number) =>
  z.string({ error: 'must be a string' }).max(max, { error: `must be at most ${max} characters` }).optional();

const statusListSchema = z.array(statusSchema).min(1, { error: 'must name at least one status (leave it out to see every status)' });
/** One status or several; a bad entry of a list is named by its index (a union would only name the list). */
const statusFilterSchema = z
  .unknown()
  .superRefine((v, ctx) => {
    const result = (Array.isArray(v) ? statusListSchema : statusSchema).safeParse(v);
    if (!result.success) for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  })
  .transform((v) => v as DeliveryStatus | DeliveryStatus[]);

/** A time bound: an ISO 8601 date and time ("2026-11-23T12:00:00Z"). */
const TIME = 'must be an ISO 8601 date and time, like 2026-11-23T12:00:00Z';
export const timeBoundSchema = z
  .string({ error: TIME })
  .max(40, { error: TIME })
  .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && Number.isFinite(Date.parse(v)), { error: TIME });

const filterShape = {
  status: statusFilterSchema.optional(),
  type: needle(MAX_TYPE_LENGTH),
  url: needle(MAX_NEEDLE_LENGTH),
  text: needle(MAX_NEEDLE_LENGTH),
  replayed: z.boolean({ error: 'must be true (only replayed deliveries) or false (only those never replayed)' }).optional(),
  violations: z.enum(['any', 'none'], { error: 'must be any or none' }).optional(),
  from: timeBoundSchema.optional(),
  to: timeBoundSchema.optional(),
};

/** A time range whose end is not after its start is a mistake, named at `to`. */
function rangeInOrder(p: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx): void {
  if (p.from !== undefined && p.to !== undefined && Date.parse(p.from) >= Date.parse(p.to)) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `must be later than from (${p.from})` });
  }
}

export const deliveryFilterSchema = strictParams(filterShape, '{ status?, type?, url?, text?, replayed?, violations?, from?, to? }', 'filter').superRefine(
  rangeInOrder,
);
export const idsSchema = z
  .array(z.unknown(), { error: 'must be a list of delivery ids' })
  .max(MAX_PAGE_LIMIT, { error: (iss) => `must hold at most ${MAX_PAGE_LIMIT} ids (got ${(iss.input as unknown[]).length})`, abort: true })
  .pipe(z.array(idSchema));

export const deliveryPageSchema = strictParams(
  {
    ...filterShape,
    beforeId: idSchema.optional(),
    afterId: idSchema.optional(),
    limit: limitSchema.optional(),
    oldest: z.boolean({ error: 'must be true (the oldest page) or false' }).optional(),
    ids: idsSchema.optional(),
  },
  '{ beforeId?, afterId?, limit?, oldest?, ids?, status?, type?, url?, text?, replayed?, violations?, from?, to? }',
  'page',
).superRefine(rangeInOrder);

/** The Inbound view's pages: newest first, by id, with its filters; the oldest page on request. */
export const requestPageSchema = strictParams(
  {
    beforeId: idSchema.optional(),
    limit: limitSchema.optional(),
    status: z.enum(['accepted', 'refused'], { error: 'must be accepted or refused' }).optional(),
    sourceId: idSchema.optional(),
    path: needle(MAX_NEEDLE_LENGTH),
    from: timeBoundSchema.optional(),
    to: timeBoundSchema.optional(),
    oldest: z.boolean({ error: 'must be true (the oldest page) or false' }).optional(),
  },
  '{ beforeId?, limit?, status?, sourceId?, path?, from?, to?, oldest? }',
  'page',
).superRefine(rangeInOrder);

/** Profile ids, linked ids and the text filter: longer than any id the ingest takes is a mistake. */
export const MAX_ID_LENGTH = 1000;
export const profilePageSchema = z.object(
    {
      text: z.string({ error: `must be text of at most ${MAX_ID_LENGTH} characters` }).max(MAX_ID_LENGTH, { error: `must be text of at most ${MAX_ID_LENGTH} characters` }).optional(),
      limit: limitSchema.optional(),
      after: z
        .string({ error: 'must be the profile id the previous page ended with (its next)' })
        .max(MAX_ID_LENGTH, { error: 'must be the profile id the previous page ended with (its next)' })
        .nullish(),
    },
    { error: 'must be an object { text?, limit?, after? }' },
  );

const jsonObjectText = z.string({ error: 'must be the JSON text to send' }).superRefine((text, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `is not valid JSON: ${(err as Error).message}` });
    return;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
});

export const replayInputSchema = z.object(
  {
    id: idSchema,
    body: jsonObjectText.optional(),
    targetUrl: webhookUrlSchema.optional(),
    unlessReplayed: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'must be an object { id, body?, targetUrl?, unlessReplayed? }' },
);

export const doctorInputSchema = strictParams(
  {
    id: idSchema,
    pasted: z
      .string({ error: 'must be the text to diagnose: a signature or a body' })
      .refine((s) => s.trim() !== '', { error: 'is empty: paste a signature or a body' })
      .refine((s) => s.length <= MAX_PASTED_CHARS, { error: `is longer than ${MAX_PASTED_CHARS} characters` }),
    as: z.enum(['auto', 'signature', 'body'], { error: 'must be one of auto, signature, body' }).optional(),
  },
  '{ id, pasted, as? }',
  'doctor',
);
export const retryNowSchema = strictParams({ id: idSchema }, '{ id }', 'retryNow');
export const testEventInputSchema = z.strictObject(
  {
    destination: z.string({ error: 'is required: the name of a destination' }).refine((s) => s.trim() !== '', { error: 'is required: the name of a destination' }),
    url: z.string({ error: 'must be one of the destination’s URLs' }).max(MAX_NEEDLE_LENGTH * 4, { error: `must be at most ${MAX_NEEDLE_LENGTH * 4} characters` }).optional(),
    type: z.enum(COMPOSE_TYPES as [ComposeType, ...ComposeType[]], { error: `must be one of ${COMPOSE_TYPES.join(', ')}` }),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a test event field (expected destination, url?, type)' : 'must be an object { destination, url?, type }') },
);

const COMMON_FIELDS = ['userId', 'anonymousId', 'context', 'integrations', 'timestamp', 'messageId'] as const;
/** The fields each call of the client library takes (src-client/types.ts); anything else it would silently ignore. */
export const COMPOSE_FIELDS: Record<ComposeType, readonly string[]> = {
  track: ['event', 'properties', ...COMMON_FIELDS],
  identify: ['traits', ...COMMON_FIELDS],
  page: ['name', 'category', 'properties', 'traits', ...COMMON_FIELDS],
  screen: ['name', 'category', 'properties', ...COMMON_FIELDS],
  group: ['groupId', 'traits', ...COMMON_FIELDS],
  // An alias has no anonymousId: it links previousId to userId.
  alias: ['previousId', 'userId', 'context', 'integrations', 'timestamp', 'messageId'],
};
const article = (word: string): string => (/^[aeiou]/.test(word) ? 'an' : 'a');
const COPIES = `must be a whole number from 1 to ${MAX_COMPOSE_COPIES}`;

/**
 * The shape of a compose input, checked before anything is sent. Field values themselves
 * (strings, objects, the 32 KB limit) are the client library's to judge.
 */
export const composeShapeSchema = z
  .strictObject(
    {
      source: z.string({ error: 'is required: the name of a source' }).refine((s) => s.trim() !== '', { error: 'is required: the name of a source' }),
      type: z.enum(COMPOSE_TYPES as [ComposeType, ...ComposeType[]], { error: `must be one of ${COMPOSE_TYPES.join(', ')}` }),
      message: z.record(z.string(), z.unknown(), { error: 'must be an object of the call’s fields' }),
      copies: z.number({ error: COPIES }).int({ error: COPIES }).min(1, { error: COPIES }).max(MAX_COMPOSE_COPIES, { error: COPIES }).optional(),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a compose field' : 'must be an object { source, type, message, copies? }') },
  )
  .superRefine((c, ctx) => {
    const allowed = COMPOSE_FIELDS[c.type];
    for (const key of Object.keys(c.message)) {
      if (!allowed.includes(key)) {
        ctx.addIssue({ code: 'custom', path: ['message', key], message: `is not a field of ${article(c.type)} ${c.type} call (fields: ${allowed.join(', ')})` });
      }
    }
  })
  .transform((c) => ({ source: c.source, type: c.type, message: c.message, copies: c.copies ?? 1 }));
export type ValidCompose = z.output<typeof composeShapeSchema>;

export const MAX_TEMPLATE_NAME_LENGTH = 100;
export const templateInputSchema = z.strictObject(
    {
      name: z
        .string({ error: 'is required' })
        .transform((s) => s.trim())
        .superRefine((name, ctx) => {
          if (name === '') ctx.addIssue({ code: 'custom', message: 'is required' });
          else if (name.length > MAX_TEMPLATE_NAME_LENGTH) ctx.addIssue({ code: 'custom', message: `is ${name.length} characters; the limit is ${MAX_TEMPLATE_NAME_LENGTH}` });
        }),
      input: composeShapeSchema,
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'is not a template field' : 'must be an object { name, input }') },
  );

const requiredName = z.string({ error: 'is required: the name to remove' }).refine((s) => s.trim() !== '', { error: 'is required: the name to remove' });

/** Calls that take nothing: whatever a transport sends along is ignored, as it always was. */
const nothing = z.unknown().transform(() => undefined);

const previewSchema = z
  .looseObject({ space: z.unknown().optional() }, { error: 'must be an object { condition } or { rule }' })
  .superRefine((input, ctx) => {
    if ((input.condition !== undefined) === (input.rule !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'must have exactly one of condition (an audience) or rule (a computed trait)', abort: true });
    }
  });

const destinationName = z
  .string({ error: 'is required: a destination name' })
  .refine((s) => s.trim() !== '', { error: 'is required: a destination name' })
  .refine((s) => s.length <= 200, { error: 'is longer than 200 characters' });
const renameSchema = strictParams({ from: destinationName, to: destinationName }, '{ from, to }', 'rename');
const receiverNameSchema = z
  .string({ error: 'is required: the name of a test receiver' })
  .refine((s) => s.trim() !== '', { error: 'is required: the name of a test receiver' });
export const receiverRequestPageSchema = strictParams(
  { receiver: receiverNameSchema, beforeId: idSchema.optional(), limit: limitSchema.optional() },
  '{ receiver, beforeId?, limit? }',
  'page',
);

const EXPORT_LIMIT = `must be a whole number from 1 to ${MAX_EXPORT_PAGE}`;
export const exportInputSchema = strictParams(
  {
    format: z.enum(EXPORT_FORMATS as [ExportFormat, ...ExportFormat[]], { error: `must be one of ${EXPORT_FORMATS.join(', ')}` }),
    filter: messageFilterSchema.optional(),
    after: z.number({ error: 'must be a whole number: the previous page\'s next' }).int({ error: 'must be a whole number: the previous page\'s next' }).min(0).optional(),
    limit: z.number({ error: EXPORT_LIMIT }).int({ error: EXPORT_LIMIT }).min(1, { error: EXPORT_LIMIT }).max(MAX_EXPORT_PAGE, { error: EXPORT_LIMIT }).optional(),
  },
  '{ format, filter?, after?, limit? }',
  'export',
);
export const importBatchSchema = strictParams(
  {
    writeKey: z.string({ error: 'must be a source\'s write key' }).min(1, { error: 'must be a source\'s write key' }).max(500, { error: 'must be at most 500 characters' }),
    messages: z
      .array(z.unknown(), { error: 'must be a list of messages' })
      .min(1, { error: 'must hold at least one message' })
      .max(IMPORT_BATCH_ITEMS, { error: `must hold at most ${IMPORT_BATCH_ITEMS} messages; send a file's messages in batches (batchItems)` }),
  },
  '{ writeKey, messages }',
  'import',
);

interface ParamSpec {
  /** The name a refusal's fields start with. */
  root: string;
  schema: z.ZodType;
}
const spec = (root: string, schema: z.ZodType): ParamSpec => ({ root, schema });

/** One entry per method: the compiler refuses a method without one. */
export const API_PARAMS: Record<ApiMethod, ParamSpec> = {
  listDeliveries: spec('page', optional(deliveryPageSchema)),
  getDeliverySummaries: spec('ids', idsSchema),
  countDeliveries: spec('filter', optional(deliveryFilterSchema)),
  getDelivery: spec('id', idSchema),
  countDeliveriesByStatus: spec('params', nothing),
  listRequests: spec('page', optional(requestPageSchema)),
  droppedItemsOf: spec('requestId', idSchema),
  messagesOf: spec('requestId', idSchema),
  getRequest: spec('id', idSchema),
  listSources: spec('params', nothing),
  saveSource: spec('source', sourceInputSchema),
  rotateWriteKey: spec('rotation', sourceInputSchema),
  listDestinations: spec('params', nothing),
  saveDestination: spec('destination', destinationInputSchema),
  renameDestination: spec('rename', renameSchema),
  getDeliverySettings: spec('params', nothing),
  saveDeliverySettings: spec('delivery', deliverySettingsInputSchema),
  replayDelivery: spec('replay', replayInputSchema),
  diagnoseSignature: spec('doctor', doctorInputSchema),
  retryNow: spec('retryNow', retryNowSchema),
  sendTestEvent: spec('testEvent', testEventInputSchema),
  composeEvents: spec('compose', composeShapeSchema),
  listTemplates: spec('params', nothing),
  saveTemplate: spec('template', templateInputSchema),
  deleteTemplate: spec('name', z.unknown()),
  deleteSource: spec('source.name', requiredName),
  deleteDestination: spec('destination.name', requiredName),
  getEnvironment: spec('params', nothing),
  listProfiles: spec('page', optional(profilePageSchema)),
  getProfile: spec(
    'profileId',
    z
      .string({ error: 'must be a profile id (a userId or an anonymousId)' })
      .min(1, { error: 'must be a profile id (a userId or an anonymousId)' })
      .max(MAX_ID_LENGTH, { error: 'must be a profile id (a userId or an anonymousId)' }),
  ),
  listComputations: spec('params', nothing),
  // Audiences and computed traits are checked against the sources they name, by the service.
  saveAudience: spec('audience', z.unknown()),
  saveComputedTrait: spec('trait', z.unknown()),
  deleteComputation: spec('id', idSchema),
  previewComputation: spec('input', previewSchema),
  syncComputation: spec('id', idSchema),
  listSyncs: spec('computationId', idSchema),
  requestDeletion: spec('deletion', deletionInputSchema),
  listDeletions: spec(
    'params',
    // An empty object is read as none; anything else is a mistake worth naming.
    z
      .unknown()
      .refine((v) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0), {
        error: 'listDeletions takes no params',
      })
      .transform(() => undefined),
  ),
  getDeletion: spec('id', idSchema),
  getHealth: spec('params', nothing),
  getStorage: spec('params', nothing),
  saveRetention: spec('retention', retentionInputSchema),
  clearLog: spec('params', nothing),
  listReceivers: spec('params', nothing),
  saveReceiver: spec('receiver', receiverInputSchema),
  deleteReceiver: spec('receiver.name', receiverNameSchema),
  resetReceiver: spec('receiver.name', receiverNameSchema),
  listReceiverRequests: spec('page', receiverRequestPageSchema),
  getReceiverRequest: spec('id', idSchema),
  getTrackingPlan: spec('params', nothing),
  saveTrackingPlan: spec('trackingPlan', trackingPlanSchema.nullable()),
  exportMessages: spec('export', exportInputSchema),
  importBatch: spec('import', importBatchSchema),
};

/** Pure: a method's raw params as its implementation takes them, or a ValidationError naming each bad field. */
export function parseParams<M extends ApiMethod>(method: M, raw: unknown): ApiParams<M> {
  const { root, schema } = API_PARAMS[method];
  return parseOrThrow(schema, raw, root) as ApiParams<M>;
}
