/**
 * The destination editor's form state and its mapping to the contract's DestinationInput, checked
 * with the same pure validators the engine runs, so a refusal shows before anything is sent.
 * Field paths follow the engine's (`destination.webhooks[1].url`), so the engine's refusals land
 * next to the same inputs.
 */
import {
  DEFAULT_SIGNING,
  MAX_WEBHOOKS_PER_DESTINATION,
  NO_WARP,
  validateDestinationInput,
  type Destination,
  type DestinationInput,
  type FieldError,
  type SigningScheme,
} from '../../../src-shared/settings';

export interface HeaderRow {
  name: string;
  value: string;
}
export interface WebhookDraft {
  url: string;
  headers: HeaderRow[];
  /** Off: kept, with its headers, but not sent to. */
  enabled: boolean;
}
export interface DestinationDraft {
  /** The name it is saved under; null while it is new. A different `name` renames it on save. */
  saved: string | null;
  name: string;
  enabled: boolean;
  sources: string[];
  /** '' means no secret: nothing is signed. */
  sharedSecret: string;
  /** How requests are signed with the secret. */
  signing: SigningScheme;
  webhooks: WebhookDraft[];
  /** Time-warp factor for deliveries created from now on; NO_WARP is real time. */
  warp: number;
}

export const ROOT = 'destination';
export const field = {
  name: `${ROOT}.name`,
  enabled: `${ROOT}.enabled`,
  sources: `${ROOT}.sources`,
  sharedSecret: `${ROOT}.sharedSecret`,
  signing: `${ROOT}.signing`,
  webhooks: `${ROOT}.webhooks`,
  warp: `${ROOT}.warp`,
  webhook: (i: number): string => `${ROOT}.webhooks[${i}]`,
  url: (i: number): string => `${ROOT}.webhooks[${i}].url`,
  headerRow: (i: number, j: number): string => `${ROOT}.webhooks[${i}].headers[${j}]`,
  headerName: (i: number, name: string): string => `${ROOT}.webhooks[${i}].headers.${name}`,
};

export const ADD_URL_LIMIT_REASON = `A destination has at most ${MAX_WEBHOOKS_PER_DESTINATION} webhook URLs; remove one to add another.`;

export function emptyDraft(sources: string[] = []): DestinationDraft {
  return { saved: null, name: '', enabled: true, sources, sharedSecret: '', signing: DEFAULT_SIGNING, webhooks: [{ url: '', headers: [], enabled: true }], warp: NO_WARP };
}

export function draftOf(d: Destination): DestinationDraft {
  return {
    saved: d.name,
    name: d.name,
    enabled: d.enabled,
    sources: [...d.sources],
    sharedSecret: d.sharedSecret ?? '',
    signing: d.signing,
    webhooks: d.webhooks.map((w) => ({
      url: w.url,
      headers: Object.entries(w.headers).map(([name, value]) => ({ name, value })),
      enabled: w.enabled !== false,
    })),
    warp: d.warp,
  };
}

const isBlank = (row: HeaderRow): boolean => row.name.trim() === '' && row.value === '';

/**
 * The input to send, and every problem with it. Blank header rows are ignored; a value without a
 * name and a name given twice are caught here because an object of headers cannot carry them.
 */
export function toDestinationInput(draft: DestinationDraft): { input: DestinationInput; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const webhooks = draft.webhooks.map((w, i) => {
    const headers: Record<string, string> = {};
    const seen = new Set<string>();
    w.headers.forEach((row, j) => {
      if (isBlank(row)) return;
      const name = row.name.trim();
      if (name === '') {
        errors.push({ field: field.headerRow(i, j), message: 'header name is required (or clear the value to drop the row)' });
        return;
      }
      if (seen.has(name.toLowerCase())) {
        errors.push({ field: field.headerRow(i, j), message: 'header names are case-insensitive; this one is given twice' });
        return;
      }
      seen.add(name.toLowerCase());
      headers[name] = row.value;
    });
    return { url: w.url.trim(), headers, enabled: w.enabled };
  });
  const input: DestinationInput = {
    name: draft.name.trim(),
    enabled: draft.enabled,
    sources: [...draft.sources],
    sharedSecret: draft.sharedSecret === '' ? null : draft.sharedSecret,
    signing: draft.signing,
    webhooks,
    warp: draft.warp,
  };
  return { input, errors: [...validateDestinationInput(input, ROOT), ...errors] };
}

/**
 * Pure: the name refused before sending, because saving is by name: a new destination, or a
 * rename, under the name of another one would replace that other one whole.
 */
export function nameClash(draft: DestinationDraft, existing: readonly string[]): FieldError[] {
  const name = draft.name.trim();
  if (name === '' || name === draft.saved || !existing.includes(name)) return [];
  return [{ field: field.name, message: 'is already the name of another destination (open it from its row to change it)' }];
}

/**
 * The paths whose errors show next to header row j of webhook i: its own index path, and the
 * engine's by-name path for the first row carrying that name (the one the engine received).
 */
export function headerRowFields(draft: DestinationDraft, i: number, j: number): string[] {
  const rows = draft.webhooks[i]?.headers ?? [];
  const row = rows[j];
  if (!row) return [];
  const name = row.name.trim();
  const first = rows.findIndex((r) => r.name.trim().toLowerCase() === name.toLowerCase());
  return name !== '' && first === j ? [field.headerRow(i, j), field.headerName(i, name)] : [field.headerRow(i, j)];
}

/** Every path the form shows next to an input; errors on any other path are listed under the form. */
export function placedFields(draft: DestinationDraft): Set<string> {
  const placed = new Set<string>([field.name, field.enabled, field.sources, field.sharedSecret, field.signing, field.webhooks, field.warp]);
  draft.sources.forEach((_s, k) => placed.add(`${field.sources}[${k}]`));
  draft.webhooks.forEach((w, i) => {
    placed.add(field.webhook(i));
    placed.add(field.url(i));
    w.headers.forEach((_row, j) => headerRowFields(draft, i, j).forEach((f) => placed.add(f)));
  });
  // The limit's error names the first URL past it (webhooks[5]); it shows by the "Add URL" button.
  placed.add(field.webhook(MAX_WEBHOOKS_PER_DESTINATION));
  return placed;
}

/** Shallow edits that keep the draft immutable (the store replaces it whole). */
export const edit = {
  addWebhook: (d: DestinationDraft): DestinationDraft => ({ ...d, webhooks: [...d.webhooks, { url: '', headers: [], enabled: true }] }),
  setWebhookEnabled: (d: DestinationDraft, i: number, enabled: boolean): DestinationDraft => ({
    ...d,
    webhooks: d.webhooks.map((w, k) => (k === i ? { ...w, enabled } : w)),
  }),
  removeWebhook: (d: DestinationDraft, i: number): DestinationDraft => ({ ...d, webhooks: d.webhooks.filter((_w, k) => k !== i) }),
  setUrl: (d: DestinationDraft, i: number, url: string): DestinationDraft => ({
    ...d,
    webhooks: d.webhooks.map((w, k) => (k === i ? { ...w, url } : w)),
  }),
  addHeader: (d: DestinationDraft, i: number): DestinationDraft => ({
    ...d,
    webhooks: d.webhooks.map((w, k) => (k === i ? { ...w, headers: [...w.headers, { name: '', value: '' }] } : w)),
  }),
  removeHeader: (d: DestinationDraft, i: number, j: number): DestinationDraft => ({
    ...d,
    webhooks: d.webhooks.map((w, k) => (k === i ? { ...w, headers: w.headers.filter((_h, m) => m !== j) } : w)),
  }),
  setHeader: (d: DestinationDraft, i: number, j: number, patch: Partial<HeaderRow>): DestinationDraft => ({
    ...d,
    webhooks: d.webhooks.map((w, k) => (k === i ? { ...w, headers: w.headers.map((h, m) => (m === j ? { ...h, ...patch } : h)) } : w)),
  }),
  toggleSource: (d: DestinationDraft, name: string, on: boolean): DestinationDraft => ({
    ...d,
    sources: on ? [...d.sources.filter((s) => s !== name), name] : d.sources.filter((s) => s !== name),
  }),
};
