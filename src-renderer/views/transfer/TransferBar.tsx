/**
 * Export and Import, in Deliveries and in Inbound: the whole log or the view's current filter as
 * NDJSON, HAR or CSV (saying which parts of the filter apply), and a file sent back through the
 * Tracking API into a source, each with progress, Cancel and a summary.
 */
import { useState } from 'react';
import { EXPORT_FORMATS, type ExportFormat } from '../../../src-shared/api';
import { tallyDetails, tallyWords } from '../../../src-shared/import-file';
import { useDeliveries, useInbound, useTransfer } from '../../app/view-stores';
import { FORMAT_LABELS, scopeOfDeliveries, scopeOfInbound, type ExportScope } from './scope';
import type { ExportRun, ImportRun } from './store';

const n = (x: number): string => x.toLocaleString('en-US');

export function DeliveriesTransfer() {
  const filter = useDeliveries((s) => s.filter);
  return <TransferBar scope={scopeOfDeliveries(filter)} />;
}

export function InboundTransfer() {
  const filter = useInbound((s) => s.filter);
  const sources = useInbound((s) => s.sources);
  return <TransferBar scope={scopeOfInbound(filter, sources)} />;
}

function TransferBar({ scope }: { scope: ExportScope }) {
  const [open, setOpen] = useState<'export' | 'import' | null>(null);
  const exportRun = useTransfer((s) => s.exportRun);
  const importRun = useTransfer((s) => s.importRun);
  const loadSources = useTransfer((s) => s.loadSources);
  const toggle = (which: 'export' | 'import'): void => {
    if (which === 'import' && open !== 'import') void loadSources();
    setOpen(open === which ? null : which);
  };
  return (
    <div className="transfer" data-testid="transfer">
      <div className="transfer-buttons" role="group" aria-label="Export and import">
        <button type="button" className="btn" aria-expanded={open === 'export'} data-testid="export-open" onClick={() => toggle('export')}>
          Export…
        </button>
        <button type="button" className="btn" aria-expanded={open === 'import'} data-testid="import-open" onClick={() => toggle('import')}>
          Import…
        </button>
      </div>
      {open === 'export' && <ExportPanel scope={scope} />}
      {open === 'import' && <ImportPanel />}
      {exportRun && <ExportProgress run={exportRun} />}
      {importRun && <ImportProgress run={importRun} />}
    </div>
  );
}

function ExportPanel({ scope }: { scope: ExportScope }) {
  const hasFilter = scope.applied.length > 0 || scope.ignored.length > 0;
  const [which, setWhich] = useState<'filter' | 'all'>(hasFilter ? 'filter' : 'all');
  const [format, setFormat] = useState<ExportFormat>('ndjson');
  const running = useTransfer((s) => s.exportRun?.state === 'running');
  const start = useTransfer((s) => s.startExport);
  return (
    <form
      className="transfer-panel"
      aria-label="Export"
      data-testid="export-panel"
      onSubmit={(e) => {
        e.preventDefault();
        void start(format, which === 'filter' ? scope.filter : {});
      }}
    >
      <fieldset className="transfer-choice">
        <legend>What</legend>
        <label>
          <input type="radio" name="export-what" checked={which === 'all'} onChange={() => setWhich('all')} data-testid="export-all" /> the whole log
        </label>
        <label>
          <input type="radio" name="export-what" checked={which === 'filter'} disabled={!hasFilter} onChange={() => setWhich('filter')} data-testid="export-filter" /> the
          current filter
        </label>
      </fieldset>
      {which === 'filter' && (
        <p className="transfer-note" data-testid="export-scope">
          {scope.applied.length > 0 ? <>Applies: {scope.applied.join(', ')}.</> : <>No part of the filter applies: every message is exported.</>}
          {scope.ignored.length > 0 && <> Not applied (an export reads messages, not calls or deliveries): {scope.ignored.join(', ')}.</>}
        </p>
      )}
      <label className="wfield">
        <span className="wfield-label">Format</span>
        <select value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)} data-testid="export-format">
          {EXPORT_FORMATS.map((f) => (
            <option key={f} value={f}>
              {FORMAT_LABELS[f]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={running} data-testid="export-start">
        Export
      </button>
    </form>
  );
}

/** A run under way: its bar (when the total is known), what it has done so far, and Cancel. */
function Running({ done, total, label, onCancel, testId }: { done: number; total: number | null; label: string; onCancel: () => void; testId: string }) {
  return (
    <>
      {total !== null && <progress max={Math.max(total, 1)} value={done} />}
      <span>{label}</span>
      <button type="button" onClick={onCancel} data-testid={testId}>
        Cancel
      </button>
    </>
  );
}

function Dismiss({ onClick, what }: { onClick: () => void; what: 'export' | 'import' }) {
  return (
    <button type="button" className="link" onClick={onClick} aria-label={`Close the ${what} summary`}>
      ×
    </button>
  );
}

function ExportProgress({ run }: { run: ExportRun }) {
  const cancel = useTransfer((s) => s.cancelExport);
  const dismiss = useTransfer((s) => s.dismiss);
  const what = run.format === 'har' ? 'attempts' : 'messages';
  const count = run.total === null ? `${n(run.done)} ${what}` : `${n(run.done)} of ${n(run.total)} ${what}`;
  return (
    <div className="transfer-run" role="status" data-testid="export-run" data-state={run.state} data-done={run.done}>
      {run.state === 'running' && <Running done={run.done} total={run.total} onCancel={cancel} testId="export-cancel" label={`Exporting… ${count}`} />}
      {run.state === 'done' && (
        <span data-testid="export-done">
          Exported {count} as <code>{run.file}</code>
        </span>
      )}
      {run.state === 'cancelled' && <span>Export cancelled after {count}; nothing was saved.</span>}
      {run.state === 'failed' && <span className="error">Export failed after {count}: {run.error}</span>}
      {run.state !== 'running' && <Dismiss onClick={() => dismiss('export')} what="export" />}
    </div>
  );
}

function ImportPanel() {
  const sources = useTransfer((s) => s.sources);
  const running = useTransfer((s) => s.importRun?.state === 'running');
  const start = useTransfer((s) => s.startImport);
  const [file, setFile] = useState<File | null>(null);
  const [writeKey, setWriteKey] = useState('');
  const key = writeKey || sources[0]?.writeKey || '';
  return (
    <form
      className="transfer-panel"
      aria-label="Import"
      data-testid="import-panel"
      onSubmit={(e) => {
        e.preventDefault();
        if (!file || !key) return;
        void file.text().then((text) => start({ name: file.name, text }, key));
      }}
    >
      <label className="wfield">
        <span className="wfield-label">File (NDJSON, or a .har file's Tracking API calls)</span>
        <input type="file" accept=".ndjson,.jsonl,.json,.har,application/x-ndjson" onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="import-file" />
      </label>
      <label className="wfield">
        <span className="wfield-label">Into source</span>
        <select value={key} onChange={(e) => setWriteKey(e.target.value)} data-testid="import-source">
          {sources.length === 0 && <option value="">no source: create one in Configure</option>}
          {sources.map((s) => (
            <option key={s.id} value={s.writeKey}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <p className="transfer-note">Each message goes through the Tracking API with the source&apos;s write key: checked, deduplicated and delivered like any call.</p>
      <button type="submit" className="primary" disabled={running || !file || !key} data-testid="import-start">
        Import
      </button>
    </form>
  );
}

function ImportProgress({ run }: { run: ImportRun }) {
  const cancel = useTransfer((s) => s.cancelImport);
  const dismiss = useTransfer((s) => s.dismiss);
  const details = [...tallyDetails(run.tally), ...run.skipped];
  return (
    <div className="transfer-run" role="status" data-testid="import-run" data-state={run.state}>
      {run.state === 'running' && (
        <Running done={run.done} total={run.total} onCancel={cancel} testId="import-cancel" label={`Importing ${run.file} into ${run.source}… ${n(run.done)} of ${n(run.total)} messages sent`} />
      )}
      {run.state !== 'running' && (
        <div className="transfer-summary">
          <span data-testid="import-summary">
            {run.state === 'done' ? 'Imported' : run.state === 'cancelled' ? `Cancelled after ${n(run.done)} of ${n(run.total)} messages; imported` : 'Import failed;'} {run.file} into{' '}
            {run.source}: {tallyWords(run.tally)}
          </span>
          {run.error && <span className="error"> {run.error}</span>}
          {details.length > 0 && (
            <ul className="transfer-details" data-testid="import-details">
              {details.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          )}
          <Dismiss onClick={() => dismiss('import')} what="import" />
        </div>
      )}
    </div>
  );
}
