/**
 * Export and import from Deliveries and Inbound, through the engine API (the same in the desktop
 * app and in a browser). An export reads the log a page per call and turns each page's text into a
 * Blob at once, then hands the Blob of them all to `save` (a download); Cancel stops between two
 * pages. Kept as text, the pages of a whole 10M log filled the tab's heap (2.9 GB at 3.4M
 * messages) until the tab crashed; a Blob's bytes live outside the page's heap, in the browser's
 * blob storage, which goes to disk when they outgrow memory. An import
 * parses the file here (src-shared/import-file.ts, as `hookbench import` does), then sends it a
 * batch per call through the engine's Tracking API; Cancel stops between two batches.
 */
import { createStore } from 'zustand/vanilla';
import type { ExportFormat } from '../../../src-shared/api';
import type { MessageFilterInput } from '../../../src-shared/assertions';
import { addBatch, batchItems, emptyTally, readImportFile, skippedWords, type ImportTally } from '../../../src-shared/import-file';
import type { Source } from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { messageOf, type ViewStore } from '../../shared/live-store';
import { EXPORT_MIME, exportFileName } from './scope';

/** Messages (or attempts) per export call: progress moves and Cancel answers at least this often. */
export const EXPORT_PAGE_SIZE = 500;
/** Skipped lines listed in the summary; the rest are counted. */
const SKIPPED_SHOWN = 20;

export type RunState = 'running' | 'done' | 'cancelled' | 'failed';

export interface ExportRun {
  format: ExportFormat;
  state: RunState;
  /** Messages (attempts for HAR) read so far. */
  done: number;
  /** Messages the filter matched when the export began; null for HAR (attempts are not counted ahead). */
  total: number | null;
  file: string | null;
  error: string | null;
}

export interface ImportRun {
  file: string;
  source: string;
  state: RunState;
  /** Messages sent so far (accepted, dropped or refused), of total. */
  done: number;
  total: number;
  tally: ImportTally;
  /** The first skipped lines, in the CLI's words. */
  skipped: string[];
  error: string | null;
}

export interface TransferState {
  exportRun: ExportRun | null;
  importRun: ImportRun | null;
  sources: Source[];
  error: string | null;
  loadSources(): Promise<void>;
  startExport(format: ExportFormat, filter: MessageFilterInput): Promise<void>;
  cancelExport(): void;
  startImport(file: { name: string; text: string }, writeKey: string): Promise<void>;
  cancelImport(): void;
  /** Forgets a finished run (closes its summary). */
  dismiss(which: 'export' | 'import'): void;
}

export interface TransferOptions {
  /** Hands a finished file to the user; a download by default. */
  save?: (name: string, file: Blob) => void;
  now?: () => Date;
  /** Messages (or attempts) per export call; EXPORT_PAGE_SIZE by default. */
  pageSize?: number;
}

/** The browser's way to save a file: Electron turns the download into a save dialog. */
export function downloadFile(name: string, file: Blob): void {
  const url = URL.createObjectURL(file);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has read the blob by the next turn; keeping the URL would keep the whole file alive.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function createTransferStore(transport: Transport, options: TransferOptions = {}): ViewStore<TransferState> {
  const save = options.save ?? downloadFile;
  const now = options.now ?? (() => new Date());
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE;
  // A run is cancelled by replacing its token: the loop checks it between two calls.
  let exportToken = 0;
  let importToken = 0;

  const store = createStore<TransferState>()((set, get) => {
    const patchExport = (p: Partial<ExportRun>): void => {
      const run = get().exportRun;
      if (run) set({ exportRun: { ...run, ...p } });
    };
    const patchImport = (p: Partial<ImportRun>): void => {
      const run = get().importRun;
      if (run) set({ importRun: { ...run, ...p } });
    };
    return {
      exportRun: null,
      importRun: null,
      sources: [],
      error: null,

      async loadSources() {
        try {
          set({ sources: await transport.call('listSources'), error: null });
        } catch (err) {
          set({ error: messageOf(err) });
        }
      },

      async startExport(format, filter) {
        const token = ++exportToken;
        set({ exportRun: { format, state: 'running', done: 0, total: null, file: null, error: null } });
        const parts: Blob[] = [];
        let after: number | undefined;
        try {
          for (;;) {
            const page = await transport.call('exportMessages', { format, filter, limit: pageSize, ...(after === undefined ? {} : { after }) });
            if (token !== exportToken) return;
            parts.push(new Blob([page.text]));
            const run = get().exportRun;
            patchExport({ done: (run?.done ?? 0) + page.items, ...(page.total !== undefined ? { total: page.total } : {}) });
            if (page.next === null) break;
            after = page.next;
          }
          const file = exportFileName(now(), format);
          save(file, new Blob(parts, { type: EXPORT_MIME[format] }));
          patchExport({ state: 'done', file });
        } catch (err) {
          if (token === exportToken) patchExport({ state: 'failed', error: messageOf(err) });
        }
      },

      cancelExport() {
        exportToken++;
        patchExport({ state: 'cancelled' });
      },

      async startImport(file, writeKey) {
        const token = ++importToken;
        const source = get().sources.find((s) => s.writeKey === writeKey)?.name ?? writeKey;
        let parsed;
        try {
          parsed = readImportFile(file.name, file.text);
        } catch (err) {
          set({ importRun: { file: file.name, source, state: 'failed', done: 0, total: 0, tally: emptyTally(), skipped: [], error: messageOf(err) } });
          return;
        }
        const { kind, messages, skipped } = parsed;
        const skippedWordsShown = skipped.slice(0, SKIPPED_SHOWN).map((s) => skippedWords(kind, s));
        if (skipped.length > SKIPPED_SHOWN) skippedWordsShown.push(`… and ${skipped.length - SKIPPED_SHOWN} more lines skipped`);
        let tally: ImportTally = { ...emptyTally(), skipped: skipped.length };
        set({ importRun: { file: file.name, source, state: 'running', done: 0, total: messages.length, tally, skipped: skippedWordsShown, error: null } });
        try {
          for (const batch of batchItems(messages)) {
            const r = await transport.call('importBatch', { writeKey, messages: batch });
            if (token !== importToken) return;
            tally = addBatch(tally, batch.length, r.ok ? { ok: true, result: r, invalidReasons: r.invalidReasons } : { ok: false, refusal: r.refusal });
            patchImport({ tally, done: tally.sent + tally.refused });
          }
          patchImport({ state: 'done' });
        } catch (err) {
          if (token === importToken) patchImport({ state: 'failed', error: messageOf(err) });
        }
      },

      cancelImport() {
        importToken++;
        patchImport({ state: 'cancelled' });
      },

      dismiss(which) {
        if (which === 'export') {
          exportToken++;
          set({ exportRun: null });
        } else {
          importToken++;
          set({ importRun: null });
        }
      },
    };
  });
  return { store, start: () => () => {} };
}
