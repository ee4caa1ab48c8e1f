/**
 * The Compose form as plain data, and the pure steps around it: the form → the ComposeInput the
 * engine takes, JSON editors' parsing in plain words, the integrations switches → their map, a
 * template → the form again, and the server's field paths → the form's fields.
 */
import { COMPOSE_TYPES, MAX_COMPOSE_COPIES, type ApiFieldError, type ComposeInput, type ComposeType } from '../../../src-shared/api';
import { clientBatchBody } from '../../../src-shared/compose-preview';
import type { Destination } from '../../../src-shared/settings';

export type TextField = 'userId' | 'anonymousId' | 'event' | 'name' | 'category' | 'groupId' | 'previousId' | 'messageId';
export type JsonField = 'properties' | 'traits' | 'context';
/** Every input a field error can be shown next to; `message` and `integrations` are whole-call ones. */
export type FormField = TextField | JsonField | 'source' | 'copies' | 'timestamp' | 'integrations' | 'message';

export interface IntegrationSwitch {
  /** Destination name, case-sensitive (the Webhooks destination is `Webhooks`). */
  key: string;
  on: boolean;
}

export interface ComposeForm {
  type: ComposeType;
  source: string;
  userId: string;
  anonymousId: string;
  event: string;
  name: string;
  category: string;
  groupId: string;
  previousId: string;
  /** Empty: the client library gives each copy its own. */
  messageId: string;
  /** JSON text as typed. */
  properties: string;
  traits: string;
  context: string;
  /** The `All` switch. */
  all: boolean;
  /** Per-destination switches; `Webhooks` is always the first. */
  integrations: IntegrationSwitch[];
  /** A datetime-local value (local time); empty means the time the call is sent. */
  timestamp: string;
  copies: string;
}

export const WEBHOOKS = 'Webhooks';

export function emptyForm(type: ComposeType = 'track', source = ''): ComposeForm {
  return {
    type,
    source,
    userId: '',
    anonymousId: '',
    event: '',
    name: '',
    category: '',
    groupId: '',
    previousId: '',
    messageId: '',
    properties: '',
    traits: '',
    context: '',
    all: true,
    integrations: [{ key: WEBHOOKS, on: true }],
    timestamp: '',
    copies: '1',
  };
}

/** What each call type shows, in order (the source document's fields; src-client/types.ts). */
export interface TypeFields {
  text: TextField[];
  json: JsonField[];
  /** Whether the call identifies by userId/anonymousId (an alias names previousId and userId instead). */
  identity: boolean;
  /** Fields the call cannot do without. */
  required: TextField[];
}
export const TYPE_FIELDS: Record<ComposeType, TypeFields> = {
  track: { text: ['event'], json: ['properties'], identity: true, required: ['event'] },
  identify: { text: [], json: ['traits'], identity: true, required: [] },
  page: { text: ['name', 'category'], json: ['properties'], identity: true, required: [] },
  screen: { text: ['name'], json: ['properties'], identity: true, required: [] },
  group: { text: ['groupId'], json: ['traits'], identity: true, required: ['groupId'] },
  alias: { text: ['previousId', 'userId'], json: [], identity: false, required: ['previousId', 'userId'] },
};

export type JsonParse = { ok: true; value: Record<string, unknown> | undefined } | { ok: false; error: string };

/** Line and column (1-based) of a character offset, for pointing at a JSON mistake. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/**
 * A JSON editor's text as an object: empty means "not set". Errors say what is wrong and where,
 * in words rather than an engine's parser message.
 */
export function parseJsonObject(text: string): JsonParse {
  if (text.trim() === '') return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: jsonErrorInWords(text, (err as Error).message) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    return { ok: false, error: `This is ${what}; it must be an object in braces, like {"plan": "pro"}.` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Turns a parser message (V8's differ between versions) into a sentence with a line and column. */
export function jsonErrorInWords(text: string, parserMessage: string): string {
  const position = /position (\d+)/.exec(parserMessage);
  const offset = position ? Number(position[1]) : /end of JSON input|Unterminated/i.test(parserMessage) ? text.length : null;
  const at = offset === null ? '' : (({ line, column }) => ` at line ${line}, column ${column}`)(lineColumn(text, offset));
  if (offset !== null && offset >= text.trimEnd().length) {
    return `Not valid JSON: it ends too early${at} (a missing closing brace, bracket or quote?).`;
  }
  const near = offset === null ? '' : text.slice(offset, offset + 12).split('\n')[0];
  return `Not valid JSON${at}${near ? ` near “${near}”` : ''}.${hintFor(parserMessage)}`;
}

const HINTS: [RegExp, string][] = [
  [/Expected ':'/i, 'A key needs a colon before its value.'],
  [/property name/i, 'Keys need double quotes, and there is no comma after the last item.'],
  [/Expected ',' or '?[}\]]/i, 'A comma is missing between two items, or a brace is not closed.'],
  [/Unexpected token|Unexpected non-whitespace|is not valid JSON/i, 'Strings need double quotes; true, false and null are lower-case.'],
];

function hintFor(parserMessage: string): string {
  const hint = HINTS.find(([re]) => re.test(parserMessage))?.[1];
  return hint ? ` ${hint}` : '';
}

/** The editor's text indented, or null when it does not parse (the Format button then does nothing). */
export function formatJson(text: string): string | null {
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return null;
  return parsed.value === undefined ? '' : JSON.stringify(parsed.value, null, 2);
}

/**
 * The integrations object the switches mean, or undefined for "everything on" (the default, so
 * nothing needs saying). `All` off with `Webhooks` on gives { All: false, Webhooks: true }.
 */
export function integrationsOf(all: boolean, switches: readonly IntegrationSwitch[]): Record<string, boolean> | undefined {
  const named = switches.filter((s) => s.key.trim() !== '');
  if (all && named.every((s) => s.on) && named.every((s) => s.key === WEBHOOKS)) return undefined;
  const map: Record<string, boolean> = { All: all };
  for (const s of named) map[s.key.trim()] = s.on;
  return map;
}

/** The ingest's rule (src-main/engine/ingest/integrations.ts): `Webhooks` decides when set, else `All`. */
export function reachesWebhooks(integrations: Record<string, unknown> | undefined): boolean {
  const own = integrations?.[WEBHOOKS];
  if (own === false) return false;
  if (own === true || (typeof own === 'object' && own !== null)) return true;
  return integrations?.All !== false;
}

/** Adding a switch: a name, not `All`, not one already there. Returns the problem, or null. */
export function integrationKeyProblem(key: string, switches: readonly IntegrationSwitch[]): string | null {
  const k = key.trim();
  if (k === '') return 'Type the destination’s name first.';
  if (k === 'All') return '“All” is the switch on the left.';
  if (switches.some((s) => s.key === k)) return `“${k}” is already in the list.`;
  return null;
}

/** A datetime-local value (local wall time) as ISO 8601 UTC, or null when it is not a time. */
export function localToIso(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(local)) return null;
  // Without an offset, Date reads a date-time as local time, which is what the picker shows.
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** An ISO time as a datetime-local value in local time (seconds kept), or '' when it does not parse. */
export function isoToLocal(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return d.getMilliseconds() === 0 ? base : `${base}.${pad(d.getMilliseconds(), 3)}`;
}

export type FieldErrors = Partial<Record<FormField, string>>;
export type Built = { ok: true; input: ComposeInput } | { ok: false; errors: FieldErrors };

/**
 * The form as the engine's compose input: only the current type's fields, empty ones left out, or
 * every problem draftOf finds. What needs the whole call (the 32 KB limit) is the client library's
 * to judge, and comes back by field.
 */
export function buildComposeInput(form: ComposeForm): Built {
  const { message, errors } = draftOf(form);
  const copies = Number(form.copies);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, input: { source: form.source, type: form.type, message, ...(copies !== 1 ? { copies } : {}) } };
}

/**
 * The call as far as the form makes one, and every problem with it at once (in the order the
 * fields are on screen): the missing required fields the client library would refuse one at a
 * time, JSON that does not parse, a bad copy count or time. A field in error is left out.
 */
export function draftOf(form: ComposeForm): { message: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const fields = TYPE_FIELDS[form.type];
  if (form.source === '') errors.source = 'Pick the source whose write key sends this call.';
  if (fields.identity && form.userId === '' && form.anonymousId === '') errors.userId = 'Give a userId, an anonymousId, or both.';
  for (const f of fields.text) if (fields.required.includes(f) && form[f] === '') errors[f] = `${FIELD_LABELS[f]} is required.`;
  const message: Record<string, unknown> = {};
  if (fields.identity) {
    if (form.userId !== '') message.userId = form.userId;
    if (form.anonymousId !== '') message.anonymousId = form.anonymousId;
  }
  for (const f of fields.text) if (form[f] !== '') message[f] = form[f];
  for (const f of [...fields.json, 'context' as const]) {
    const parsed = parseJsonObject(form[f]);
    if (!parsed.ok) errors[f] = parsed.error;
    else if (parsed.value !== undefined) message[f] = parsed.value;
  }
  const integrations = integrationsOf(form.all, form.integrations);
  if (integrations) message.integrations = integrations;
  if (form.timestamp !== '') {
    const iso = localToIso(form.timestamp);
    if (iso === null) errors.timestamp = 'Pick a date and time, or clear it to use the time of sending.';
    else message.timestamp = iso;
  }
  if (form.messageId.trim() !== '') message.messageId = form.messageId.trim();
  const copies = Number(form.copies);
  if (!/^\s*\d+\s*$/.test(form.copies) || copies < 1 || copies > MAX_COMPOSE_COPIES) {
    errors.copies = `Send from 1 to ${MAX_COMPOSE_COPIES} copies.`;
  }
  return { message, errors };
}

/** What the preview shows for what the client library makes at the moment of sending. */
export const MADE_WHEN_SENT = {
  messageId: '<made when sent, one per copy>',
  timestamp: '<the time of sending>',
  sentAt: '<the time of sending>',
} as const;

/** The request body the client library will post for this form, indented; the values made at sending marked. */
export function previewOf(form: ComposeForm): string {
  const { message } = draftOf(form);
  return JSON.stringify(JSON.parse(clientBatchBody(form.type, message, MADE_WHEN_SENT)), null, 2);
}

/** The fields in error, in the order they are on screen, for the summary beside Send. */
export function errorFieldsInOrder(errors: FieldErrors, type: ComposeType): FormField[] {
  const order: FormField[] = ['source', 'userId', 'anonymousId', ...TYPE_FIELDS[type].text, ...TYPE_FIELDS[type].json, 'context', 'integrations', 'timestamp', 'messageId', 'copies', 'message'];
  return [...new Set(order)].filter((f) => errors[f] !== undefined);
}

/** Whether a call sent now would become a webhook delivery, and if not, why. */
export type Reach = { delivers: true; to: string[] } | { delivers: false; why: string };

/**
 * The ingest's routing seen from Compose: the call's integrations, then the enabled Webhooks
 * destinations attached to the source with at least one URL switched on.
 */
export function reachOf(integrations: Record<string, unknown> | undefined, source: string, destinations: readonly Destination[]): Reach {
  if (!reachesWebhooks(integrations)) {
    const why = integrations?.[WEBHOOKS] === false ? 'the Webhooks switch is off for this call' : '“All” is off and the Webhooks switch is not on';
    return { delivers: false, why: `${why} (its integrations leave Webhooks out)` };
  }
  const attached = destinations.filter((d) => d.sources.includes(source));
  if (attached.length === 0) return { delivers: false, why: `no Webhooks destination is attached to source “${source}”` };
  const on = attached.filter((d) => d.enabled);
  if (on.length === 0) return { delivers: false, why: `${names(attached)} attached to “${source}” ${attached.length === 1 ? 'is' : 'are'} switched off` };
  const live = on.filter((d) => d.webhooks.some((w) => w.enabled !== false));
  if (live.length === 0) {
    const none = on.every((d) => d.webhooks.length === 0);
    return { delivers: false, why: none ? `${names(on)} ${on.length === 1 ? 'has' : 'have'} no webhook URL` : `every webhook URL of ${names(on)} is switched off` };
  }
  return { delivers: true, to: live.map((d) => d.name) };
}

const names = (ds: readonly Destination[]): string => ds.map((d) => `“${d.name}”`).join(', ');

const asText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const asJson = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v, null, 2) : '');

/** A saved input back into the form (a template being loaded); unknown types fall back to track. */
export function formFromInput(input: { source: string; type: string; message: Record<string, unknown>; copies?: number }): ComposeForm {
  const type = (COMPOSE_TYPES as readonly string[]).includes(input.type) ? (input.type as ComposeType) : 'track';
  const m = input.message;
  const form = emptyForm(type, input.source);
  for (const f of ['userId', 'anonymousId', 'event', 'name', 'category', 'groupId', 'previousId', 'messageId'] as const) form[f] = asText(m[f]);
  for (const f of ['properties', 'traits', 'context'] as const) form[f] = asJson(m[f]);
  const integrations = typeof m.integrations === 'object' && m.integrations !== null ? (m.integrations as Record<string, unknown>) : {};
  form.all = integrations.All !== false;
  const others = Object.entries(integrations).filter(([k]) => k !== 'All' && k !== WEBHOOKS);
  form.integrations = [
    { key: WEBHOOKS, on: integrations[WEBHOOKS] === undefined ? form.all : integrations[WEBHOOKS] !== false },
    ...others.map(([key, v]) => ({ key, on: v !== false })),
  ];
  form.timestamp = typeof m.timestamp === 'string' ? isoToLocal(m.timestamp) : '';
  form.copies = String(input.copies ?? 1);
  return form;
}

/** How the form names each field: the client library's own names for ids, words for the rest. */
export const FIELD_LABELS: Record<FormField, string> = {
  userId: 'userId',
  anonymousId: 'anonymousId',
  event: 'Event',
  name: 'Name',
  category: 'Category',
  groupId: 'groupId',
  previousId: 'previousId',
  messageId: 'messageId',
  properties: 'Properties',
  traits: 'Traits',
  context: 'Context',
  source: 'Source',
  copies: 'Copies',
  timestamp: 'Timestamp',
  integrations: 'Integrations',
  message: 'The call',
};
const FORM_FIELDS = Object.keys(FIELD_LABELS) as FormField[];

/**
 * The server's field errors (`compose.message.event`, `compose.source`, …) by the form field they
 * belong to; those naming no field on screen are returned apart, to be shown above the Send button.
 */
export function placeServerErrors(errors: readonly ApiFieldError[], type: ComposeType): { fields: FieldErrors; general: string[] } {
  const shown = new Set<FormField>(['source', 'copies', 'timestamp', 'messageId', 'context', 'integrations', ...TYPE_FIELDS[type].text, ...TYPE_FIELDS[type].json]);
  if (TYPE_FIELDS[type].identity) shown.add('userId').add('anonymousId');
  const fields: FieldErrors = {};
  const general: string[] = [];
  for (const e of errors) {
    const path = e.field.replace(/^compose\./, '').replace(/^message\./, '');
    const name = path.split(/[.[]/)[0] as FormField;
    const field = FORM_FIELDS.includes(name) && shown.has(name) ? name : null;
    if (field && fields[field] === undefined) fields[field] = labelled(field, e.message);
    else general.push(`${e.field}: ${e.message}`);
  }
  return { fields, general };
}

/**
 * A server message next to its field, as a sentence: "is required" on event reads "Event is
 * required."; a message that names its own subject ("userId or anonymousId is required") is kept.
 */
export function labelled(field: FormField, message: string): string {
  const m = message.trim();
  if (!/^(is|must) /.test(m)) return sentence(m);
  const label = FIELD_LABELS[field];
  // Properties, Traits, Copies: plural subjects.
  const verb = /[a-z]s$/.test(label) && m.startsWith('is ') ? `are${m.slice(2)}` : m;
  return sentence(`${label} ${verb}`);
}

/** A message (lower-case, no full stop) as a sentence. */
export function sentence(message: string): string {
  const m = message.trim();
  if (m === '') return m;
  // A field name such as userId keeps its case.
  const capital = /^[a-z]+[A-Z]/.test(m) ? m : m.charAt(0).toUpperCase() + m.slice(1);
  return /[.!?)]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * The field errors an API failure carries: ApiCallError's `fields` when the transport gives them,
 * else read back from a validation message ("compose.source: no source …; compose.copies: …").
 */
export function fieldErrorsOf(err: unknown): ApiFieldError[] {
  const fields = (err as { fields?: unknown } | null)?.fields;
  if (Array.isArray(fields)) {
    return fields.filter(
      (f): f is ApiFieldError => typeof f === 'object' && f !== null && typeof (f as ApiFieldError).field === 'string' && typeof (f as ApiFieldError).message === 'string',
    );
  }
  if ((err as { code?: unknown } | null)?.code !== 'validation_failed') return [];
  const message = err instanceof Error ? err.message : '';
  return message.split('; ').flatMap((part) => {
    const m = /^((?:compose|template)[\w.[\]]*): (.+)$/s.exec(part);
    return m ? [{ field: m[1] as string, message: m[2] as string }] : [];
  });
}

/** A random UUID v4 from 16 random bytes (crypto.randomUUID needs a secure context; this does not). */
export function uuidFromBytes(bytes: Uint8Array): string {
  const b = Array.from(bytes.slice(0, 16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

