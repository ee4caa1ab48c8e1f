/**
 * The Compose view's calls: composed events go through the client library (src-client) to this
 * engine's own Tracking API, the same path a real SDK takes; templates are kept in the settings table.
 */
import { randomUUID } from 'node:crypto';
import {
  Analytics,
  AnalyticsValidationError,
  MAX_MESSAGE_BYTES,
  type AliasParams,
  type AnalyticsDeliveryError,
  type GroupParams,
  type IdentifyParams,
  type PageParams,
  type ScreenParams,
  type TrackParams,
} from '../../../src-client/index';
import { type ComposeResult, type ComposeTemplate, type ComposeType, type EngineApi } from '../../../src-shared/api';
import { systemClock, type Clock } from '../../../src-shared/clock';
import { fieldErrorsOf, ValidationError, type FieldError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import type { ConfigWhat } from './index';
import { composeShapeSchema, type ValidCompose } from './params';

export { COMPOSE_FIELDS, MAX_TEMPLATE_NAME_LENGTH, type ValidCompose } from './params';

export interface ComposeDeps {
  ingestUrl: () => string | null;
  onConfig: (what: ConfigWhat) => void;
}

export const MAX_TEMPLATES = 200;
/** A template holds one call (at most 32 KB) plus its form around it; more is a mistake, not a template. */
export const MAX_TEMPLATE_BYTES = 64 * 1024;
const TEMPLATES_SETTING = 'compose.templates';

/** The object fields a too-large call is most likely to owe its size to. */
const BULKY_FIELDS = ['properties', 'traits', 'context', 'integrations'] as const;

/** The shape of a compose input (params.ts), as a value or the errors under `field`. */
export function validateComposeShape(input: unknown, field: string): { value: ValidCompose | null; errors: FieldError[] } {
  const result = composeShapeSchema.safeParse(input);
  return result.success ? { value: result.data, errors: [] } : { value: null, errors: fieldErrorsOf(result.error, field) };
}

/**
 * The client library's refusal as a field error under `compose.message`. Its field is a call field
 * (`event`, `userId`…) or `message` for the size limit; a too-large call is pinned on its largest
 * object field, so the UI can show the limit next to the editor that broke it.
 */
export function fieldErrorOf(err: AnalyticsValidationError, message: Record<string, unknown>, field: string): FieldError {
  const text = err.message.replace(/^analytics: /, '');
  if (err.code === 'message_too_large') {
    const bytes = /is (\d+) bytes/.exec(text)?.[1];
    const limit = err.limit ?? MAX_MESSAGE_BYTES;
    const size = bytes ? `${bytes} bytes of JSON` : 'larger';
    const sizes = BULKY_FIELDS.map((k) => ({ k, n: message[k] === undefined ? 0 : Buffer.byteLength(JSON.stringify(message[k]) ?? '') }));
    const biggest = sizes.reduce((a, b) => (b.n > a.n ? b : a));
    const where = biggest.n > 0 ? `${field}.${biggest.k}` : field;
    return { field: where, message: `is too large: the call is ${size}, over the limit of ${limit} bytes (32 KB) for one call; nothing was sent` };
  }
  const name = err.field === 'message' ? null : err.field;
  // "event is required" reads as "compose.message.event: is required"; "userId or anonymousId is required" stays whole.
  const rest = name && /^(is|must) /.test(text.slice(name.length + 1)) && text.startsWith(`${name} `) ? text.slice(name.length + 1) : text;
  return { field: name ? `${field}.${name}` : field, message: rest };
}

/** One sentence for the UI when a given messageId makes every copy the same message. */
export function duplicateNotice(messageId: string, copies: number): string {
  return (
    `all ${copies} copies carry messageId "${messageId}": the ingest keeps one message per messageId ` +
    `(24 hours per source) and logs the other ${copies - 1} as duplicates; see Inbound`
  );
}

function templatesOf(engine: Engine): ComposeTemplate[] {
  return engine.stores.config.getSetting<ComposeTemplate[]>(TEMPLATES_SETTING) ?? [];
}

const byName = (a: ComposeTemplate, b: ComposeTemplate): number =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.name.localeCompare(b.name);

/** The limits that depend on what is stored: how many templates, and how big one may be. */
export function validateTemplate(input: { name: string; input: ValidCompose }, existing: readonly ComposeTemplate[]): { name: string; input: ComposeTemplate['input'] } {
  const errors: FieldError[] = [];
  const { name } = input;
  if (existing.length >= MAX_TEMPLATES && !existing.some((t) => t.name === name)) {
    errors.push({ field: 'template.name', message: `there are already ${MAX_TEMPLATES} templates (the limit); delete one first` });
  }
  const { source, type, message, copies } = input.input;
  const stored = { source, type, message, ...(copies !== 1 ? { copies } : {}) };
  const bytes = Buffer.byteLength(JSON.stringify(stored));
  if (bytes > MAX_TEMPLATE_BYTES) {
    errors.push({ field: 'template.input', message: `is ${bytes} bytes of JSON; a template holds at most ${MAX_TEMPLATE_BYTES} bytes` });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { name, input: stored };
}

/**
 * Timestamps follow the engine's clock (so they agree with receivedAt, even when time is warped);
 * the client's own waits stay on real time, since nothing moves an injected clock for it.
 */
function clientClock(engine: Engine): Clock {
  return { now: () => engine.clock.now(), setTimer: systemClock.setTimer };
}

type Params = Record<string, unknown>;
/** The client checks every field at run time (that is the point: the SDK's own validation); the casts only pick the call. */
function callOf(client: Analytics, type: ComposeType): (params: Params) => void {
  switch (type) {
    case 'track':
      return (p) => client.track(p as unknown as TrackParams);
    case 'identify':
      return (p) => client.identify(p as unknown as IdentifyParams);
    case 'page':
      return (p) => client.page(p as unknown as PageParams);
    case 'screen':
      return (p) => client.screen(p as unknown as ScreenParams);
    case 'group':
      return (p) => client.group(p as unknown as GroupParams);
    case 'alias':
      return (p) => client.alias(p as unknown as AliasParams);
  }
}

async function send(engine: Engine, url: string, writeKey: string, c: ValidCompose): Promise<ComposeResult> {
  const given = typeof c.message.messageId === 'string' && c.message.messageId !== '' ? c.message.messageId : null;
  const messageIds = Array.from({ length: c.copies }, () => given ?? randomUUID());
  const failures: AnalyticsDeliveryError[] = [];
  const client = new Analytics({
    writeKey,
    endpoint: url,
    // One drain at close(), split by the client into batches within the request limits.
    flushAt: c.copies,
    flushAfter: 60_000,
    maxQueueSize: c.copies,
    // Our own ingest on loopback: a short retry is enough to ride out a busy moment, and the UI is waiting.
    maxRetries: 2,
    retryBaseMs: 100,
    timeoutMs: 10_000,
    clock: clientClock(engine),
    onError: (e) => failures.push(e),
  });
  const call = callOf(client, c.type);
  try {
    // Copies differ only in messageId (same length), so the first call alone can be refused.
    messageIds.forEach((messageId) => call({ ...c.message, messageId }));
  } catch (err) {
    await client.close();
    if (err instanceof AnalyticsValidationError) throw new ValidationError([fieldErrorOf(err, c.message, 'compose.message')]);
    throw err;
  }
  await client.close();
  const sent = client.stats().sent;
  if (failures.length > 0) {
    const first = failures[0] as AnalyticsDeliveryError;
    const lost = c.copies - sent;
    if (first.status === 401 || first.reason.includes('unknown_write_key')) {
      throw new ValidationError([{ field: 'compose.source', message: `the ingest refused this source’s write key (${first.reason})` }]);
    }
    throw new Error(`the ingest at ${client.endpoint} did not take ${lost} of ${c.copies} messages: ${first.reason}`);
  }
  return {
    sent,
    messageIds,
    endpoint: client.endpoint,
    ...(given !== null && c.copies > 1 ? { notice: duplicateNotice(given, c.copies) } : {}),
  };
}

export function createComposeApi(
  engine: Engine,
  deps: ComposeDeps,
): Pick<EngineApi, 'composeEvents' | 'listTemplates' | 'saveTemplate' | 'deleteTemplate'> {
  return {
    async composeEvents(input) {
      // Checked by params.ts, which also gave copies its default.
      const c = { ...input, copies: input.copies ?? 1 };
      const sources = engine.stores.config.listSources();
      const source = sources.find((s) => s.name === c.source);
      if (!source) {
        const known = sources.length > 0 ? `; sources: ${sources.map((s) => `"${s.name}"`).join(', ')}` : '; create one in Configure first';
        throw new ValidationError([{ field: 'compose.source', message: `no source named "${c.source}"${known}` }]);
      }
      const url = deps.ingestUrl();
      if (url === null) throw new Error('the Tracking API is not listening yet; try again once Hookbench has started');
      return send(engine, url, source.writeKey, c);
    },
    async listTemplates() {
      return [...templatesOf(engine)].sort(byName);
    },
    async saveTemplate(input) {
      const existing = templatesOf(engine);
      const valid = validateTemplate(input as { name: string; input: ValidCompose }, existing);
      const saved: ComposeTemplate = { ...valid, savedAt: new Date(engine.clock.now()).toISOString() };
      engine.stores.config.setSetting(TEMPLATES_SETTING, [...existing.filter((t) => t.name !== saved.name), saved]);
      deps.onConfig('templates');
      return saved;
    },
    async deleteTemplate(name) {
      const existing = templatesOf(engine);
      if (typeof name !== 'string' || !existing.some((t) => t.name === name)) {
        throw new ValidationError([{ field: 'name', message: `no template named ${JSON.stringify(name)}` }]);
      }
      engine.stores.config.setSetting(TEMPLATES_SETTING, existing.filter((t) => t.name !== name));
      deps.onConfig('templates');
    },
  };
}
