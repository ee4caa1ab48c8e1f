/**
 * Export and import from Deliveries and Inbound, through the engine API (the same in the desktop
 * app and in a browser). An export first asks where to save (the File System Access picker, which
 * Chromium and Electron have), then reads the log a page per call and writes each page to that
 * file as it comes, so nothing of it stays in the page; Cancel stops between two pages and
 * leaves no file. Where there is no picker, each page becomes a Blob at once and the Blob of them
 * all is downloaded at the end. Kept as text, the pages of a whole 10M log filled the tab's heap
 * (2.9 GB at 3.4M messages) until the tab crashed; as Blobs they stay out of the heap, but
 * Chromium refuses to download a Blob of a gigabyte or more (a million messages). An import
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

/** Where an export's pages go as they are read. */
export interface ExportSink {
  write(text: string): Promise<void>;
  /** The last page is written: the file is complete. */
  close(): Promise<void>;
  /** Cancelled or failed: nothing is left. */
  abort(): Promise<void>;
}

/** Opens a sink for a file of this name and type; null when the user declined to pick one. */
export type OpenSink = (name: string, type: string) => Promise<ExportSink | null>;

export interface TransferOptions {
  /** Where an export is written; the user's choice of file, or a download, by default (openFileSink). */
  openSink?: OpenSink;
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
  // Keeping the URL would keep the whole file alive; a big one takes a while to be read.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Each page as a Blob (out of the page's heap), downloaded whole at the end. */
export function blobSink(name: string, type: string, save: (name: string, file: Blob) => void = downloadFile): ExportSink {
  const parts: Blob[] = [];
  return {
    write: async (text) => {
      parts.push(new Blob([text]));
    },
    close: async () => save(name, new Blob(parts, { type })),
    abort: async () => {
      parts.length = 0;
    },
  };
}

interface SaveFilePicker {
  showSaveFilePicker(options: { suggestedName: string; types?: { description: string; accept: Record<string, string[]> }[] }): Promise<{
    createWritable(): Promise<{ write(data: string): Promise<void>; close(): Promise<void>; abort(): Promise<void> }>;
    /** Chromium's: removes the file the picker made. */
    remove?(): Promise<void>;
  }>;
}

/** The picker where the browser has one (Chromium, Electron), else a download of Blobs. */
export const openFileSink: OpenSink = async (name, type) => {
  const picker = (globalThis as unknown as Partial<SaveFilePicker>).showSaveFilePicker;
  if (typeof picker !== 'function') return blobSink(name, type);
  const extension = name.slice(name.lastIndexOf('.'));
  try {
    const handle = await picker.call(globalThis, { suggestedName: name, types: [{ description: `${extension.slice(1).toUpperCase()} file`, accept: { [type]: [extension] } }] });
    const file = await handle.createWritable();
    return {
      write: (text) => file.write(text),
      close: () => file.close(),
      // The picker made an empty file: a cancelled export leaves nothing behind, as it says.
      abort: async () => {
        await file.abort();
        await handle.remove?.().catch(() => undefined);
      },
    };
  } catch (err) {
    // The user closed the picker.
    if (err instanceof DOMException && err.name === 'AbortError') return null;
    throw err;
  }
};

export function createTransferStore(transport: Transport, options: TransferOptions = {}): ViewStore<TransferState> {
  const openSink = options.openSink ?? openFileSink;
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
        const file = exportFileName(now(), format);
        set({ exportRun: { format, state: 'running', done: 0, total: null, file: null, error: null } });
        let sink: ExportSink | null = null;
        try {
          // Asked first, while the click that started the export still counts as the user's.
          sink = await openSink(file, EXPORT_MIME[format]);
          if (sink === null) {
            if (token === exportToken) patchExport({ state: 'cancelled' });
            return;
          }
          let after: number | undefined;
          for (;;) {
            const page = await transport.call('exportMessages', { format, filter, limit: pageSize, ...(after === undefined ? {} : { after }) });
            if (token !== exportToken) {
              await sink.abort();
              return;
            }
            await sink.write(page.text);
            const run = get().exportRun;
            patchExport({ done: (run?.done ?? 0) + page.items, ...(page.total !== undefined ? { total: page.total } : {}) });
            if (page.next === null) break;
            after = page.next;
          }
          await sink.close();
          patchExport({ state: 'done', file });
        } catch (err) {
          await sink?.abort().catch(() => undefined);
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
