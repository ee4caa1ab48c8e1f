/**
 * The script editor's rows and the receiver they make. A row keeps what was typed (numbers as
 * text), so a half-typed number is not lost; turning rows into a ReceiverInput is pure and
 * names each bad field the way the engine does (receiver.responses[1].status).
 */
import { validateReceiverInput, type ReceiverInput, type ReceiverPer, type ReceiverStep, type ReceiverView } from '../../../src-shared/receivers';
import type { Destination, DestinationInput, FieldError } from '../../../src-shared/settings';

export interface StepRow {
  status: string;
  delayMs: string;
  hang: boolean;
  reset: boolean;
  /** One "Name: value" per line. */
  headers: string;
  body: string;
  retryAfter: string;
}

export interface ReceiverDraft {
  /** The receiver being edited; null for a new one. */
  original: string | null;
  name: string;
  steps: StepRow[];
  per: ReceiverPer;
}

export const emptyStep = (): StepRow => ({ status: '200', delayMs: '', hang: false, reset: false, headers: '', body: '', retryAfter: '' });

export const newDraft = (): ReceiverDraft => ({
  original: null,
  name: '',
  steps: [{ ...emptyStep(), status: '500' }, { ...emptyStep(), status: '500' }, emptyStep()],
  per: 'receiver',
});

export function rowOf(step: ReceiverStep): StepRow {
  return {
    status: step.status === undefined ? '' : String(step.status),
    delayMs: step.delayMs === undefined ? '' : String(step.delayMs),
    hang: step.hang ?? false,
    reset: step.reset ?? false,
    headers: Object.entries(step.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    body: step.body ?? '',
    retryAfter: step.retryAfter === undefined ? '' : String(step.retryAfter),
  };
}

export function draftOf(receiver: ReceiverView): ReceiverDraft {
  return { original: receiver.name, name: receiver.name, steps: receiver.responses.map(rowOf), per: receiver.per };
}

/** A typed number as the schema will judge it: blank is absent, anything else a number (NaN when not one, which the schema refuses). */
const numberOf = (text: string): number | undefined => (text.trim() === '' ? undefined : /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);

function headersOf(text: string, field: string, errors: FieldError[]): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  text.split('\n').forEach((line, k) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      errors.push({ field, message: `line ${k + 1} must be "Name: value"` });
      return;
    }
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return Object.keys(headers).length > 0 ? headers : undefined;
}

export function stepOf(row: StepRow, field: string, errors: FieldError[]): ReceiverStep {
  const step: ReceiverStep = {};
  const status = numberOf(row.status);
  if (status !== undefined) step.status = status;
  const delay = numberOf(row.delayMs);
  if (delay !== undefined && delay !== 0) step.delayMs = delay;
  if (row.hang) step.hang = true;
  if (row.reset) step.reset = true;
  const headers = headersOf(row.headers, `${field}.headers`, errors);
  if (headers) step.headers = headers;
  if (row.body !== '') step.body = row.body;
  const retryAfter = numberOf(row.retryAfter);
  if (retryAfter !== undefined) step.retryAfter = retryAfter;
  return step;
}

/** The receiver the draft makes, and every problem by field (the shared schema's, plus the header lines'). */
export function inputOf(draft: ReceiverDraft): { input: ReceiverInput; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const input: ReceiverInput = {
    name: draft.name.trim(),
    responses: draft.steps.map((row, i) => stepOf(row, `receiver.responses[${i}]`, errors)),
    per: draft.per,
  };
  return { input, errors: [...errors, ...validateReceiverInput(input)] };
}

/** The destination with the receiver's URL added as one more webhook entry; null when it has that URL already. */
export function withReceiverUrl(destination: Destination, url: string): DestinationInput | null {
  if (destination.webhooks.some((w) => w.url === url)) return null;
  return {
    name: destination.name,
    enabled: destination.enabled,
    sources: destination.sources,
    sharedSecret: destination.sharedSecret,
    signing: destination.signing,
    webhooks: [...destination.webhooks, { url, headers: {} }],
  };
}
