/**
 * Export and import for the UI, through the engine API so that the desktop app and `hookbench
 * serve` in a browser do the same thing. An export is read one page per call (the renderer joins
 * the pages into the file and can stop between two); an import is sent one batch per call to this
 * engine's own Tracking API, the path `hookbench import` and every SDK take, so the same checks,
 * dedupe, tracking plan and deliveries apply, and each batch is an Inbound request.
 */
import { MAX_EXPORT_PAGE, type EngineApi } from '../../../src-shared/api';
import type { MessageFilter } from '../../../src-shared/assertions';
import { importRequestHeaders, INGEST_RESULT_HEADER, parseIngestResult } from '../../../src-shared/import-file';
import { ValidationError } from '../../../src-shared/settings';
import { createAssertions } from '../assertions/service';
import { exportPage } from '../export/page';
import type { Engine } from '../index';

export interface ExportImportDeps {
  /** Where this engine's Tracking API listens; null until it does. */
  ingestUrl: () => string | null;
}

/**
 * How long the first page of an export may spend counting the matching messages for its total
 * (in windows that yield): a whole log of millions would hold the engine for tens of seconds.
 */
export const EXPORT_TOTAL_BUDGET_MS = 200;

/** How long one batch may take through the ingest (a commit waiting on a busy disk included). */
const BATCH_TIMEOUT_MS = 60_000;

/** Pure: a dropped item's reason without the batch position it had (meaningless in the file). */
export const reasonOf = (reason: string): string => reason.replace(/^batch\[\d+\](\.|: ?)?/, '').trim();

export function createExportImportApi(engine: Engine, deps: ExportImportDeps): Pick<EngineApi, 'exportMessages' | 'importBatch'> {
  const assertions = createAssertions(engine);
  return {
    async exportMessages(input) {
      // params.ts parsed it already: times are milliseconds by now, whatever the caller sent.
      const filter = (input.filter ?? {}) as MessageFilter;
      const first = input.after === undefined;
      const page = await exportPage(assertions, { format: input.format, filter, after: input.after ?? 0, limit: input.limit ?? MAX_EXPORT_PAGE, first });
      if (!first || input.format === 'har') return page;
      // The progress bar's total, when it can be counted in a moment; without it the renderer shows the count so far.
      const total = await assertions.countWithin(filter, EXPORT_TOTAL_BUDGET_MS);
      return total === undefined ? page : { ...page, total };
    },

    async importBatch({ writeKey, messages }) {
      if (!engine.stores.config.listSources().some((s) => s.writeKey === writeKey)) {
        throw new ValidationError([{ field: 'import.writeKey', message: 'is the write key of no source; pick one of the sources in Configure' }]);
      }
      const base = deps.ingestUrl();
      if (base === null) throw new ValidationError([{ field: 'import', message: 'the Tracking API is not listening yet; try again in a moment' }]);
      const res = await fetch(new URL('/v1/batch', base), {
        method: 'POST',
        headers: importRequestHeaders(writeKey, 'hookbench-import (UI)'),
        body: JSON.stringify({ batch: messages }),
        signal: AbortSignal.timeout(BATCH_TIMEOUT_MS),
      });
      const answer = (await res.json().catch(() => ({}))) as { success?: boolean; message?: string };
      if (res.status !== 200 || answer.success !== true) return { ok: false, refusal: `${res.status} ${answer.message ?? ''}`.trim() };
      const result = parseIngestResult(res.headers.get(INGEST_RESULT_HEADER));
      if (result === null) throw new Error(`the Tracking API at ${base} took the batch without the ${INGEST_RESULT_HEADER} header`);
      const invalidReasons =
        result.invalid === 0
          ? []
          : [...new Set(engine.stores.requests.droppedItemsOf(result.requestId).flatMap((d) => (d.kind === 'invalid' ? [reasonOf(d.reason)] : [])))];
      return { ok: true, ...result, invalidReasons };
    },
  };
}
