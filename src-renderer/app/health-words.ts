import type { EngineHealth } from '../../src-shared/api';

const CAUSES: Record<string, string> = {
  disk_full: 'the disk is full',
  database_locked: 'another program holds a lock on the log',
  io_error: 'the disk reports I/O errors',
  database_corrupt: 'the log file is damaged',
  not_writable: 'the data folder cannot be written',
};

export interface BannerWords {
  title: string;
  /** What to do, from the engine (names the folder, or the exact command). */
  advice: string;
  /** What it means meanwhile. */
  meanwhile: string;
  dataDir: string;
}

/** The banner's words while the engine is degraded; null when all is well. */
export function bannerWords(health: EngineHealth | null): BannerWords | null {
  const problem = health?.status === 'degraded' ? health.problem : null;
  if (!problem) return null;
  const cause = CAUSES[problem.code] ?? problem.code.replace(/_/g, ' ');
  return {
    title: `Hookbench cannot store new calls: ${cause}.`,
    advice: `${problem.advice.charAt(0).toUpperCase()}${problem.advice.slice(1)}.`,
    meanwhile: problem.retryable
      ? 'Meanwhile SDKs get 503 and send again later; nothing already accepted is lost. Hookbench carries on by itself once this is fixed.'
      : 'SDKs get 503 and keep their calls; nothing already accepted is lost, but Hookbench needs a restart once the file is moved aside.',
    dataDir: problem.dataDir,
  };
}
