/**
 * The engine's storage health. Every place that catches a failed read or write of the log reports
 * it here; a storage fault (see store/storage-fault.ts) makes the engine `degraded`, and a probe on
 * the engine's clock keeps trying a small real write until one commits. Then the engine is `ok`
 * again and the work put off is retried (onRecovered). While a retryable fault lasts, writers do
 * not touch the database at all (writable() is false): each try would cost a wait on the event
 * loop, and the probe alone decides when the log can take writes again.
 */
import { existsSync } from 'node:fs';
import type { EngineHealth } from '../../src-shared/api';
import type { Clock, ClockTimer } from './clock';
import { classifyStorageError, type FaultContext, type StorageFault } from './store/storage-fault';

export const DEFAULT_PROBE_INTERVAL_MS = 1000;

export interface HealthMonitorDeps {
  clock: Clock;
  dbPath: string;
  dataDir: string;
  /** Throws while the log still cannot take writes; returns once a small write committed. */
  probe(now: number): void;
  /** Told of every change of state or cause (the `health` live event). */
  onChange(health: EngineHealth): void;
  /** Runs once healthy again: what was put off (finished rounds, due deliveries, settles) is retried. */
  onRecovered(): void;
  probeIntervalMs?: number;
  /** One line per change, for the terminal; stderr when absent. */
  log?: (line: string) => void;
}

export interface HealthMonitor {
  current(): EngineHealth;
  /** False while a retryable storage fault lasts: writers answer at once instead of trying. */
  writable(): boolean;
  /** Records a failure. Returns the fault when err is a storage fault (the engine is then degraded), else null. */
  fault(err: unknown): StorageFault | null;
  /** A write committed: the engine is ok again unless the log is damaged (that needs the user). */
  succeeded(): void;
  /** Cancels the probe (engine stop). */
  stop(): void;
}

/** Where a fault happened, for its advice: the file, its companions present now, and a stamp for a moved-aside name. */
export function faultContext(dbPath: string, now: number): FaultContext {
  return {
    dbPath,
    companions: ['-wal', '-shm'].map((suffix) => dbPath + suffix).filter((p) => existsSync(p)),
    stamp: new Date(now).toISOString().replace(/[:.]/g, '-'),
  };
}

const OK: EngineHealth = { status: 'ok', problem: null };

export function createHealthMonitor(deps: HealthMonitorDeps): HealthMonitor {
  const log = deps.log ?? ((line: string): void => void process.stderr.write(`${line}\n`));
  const interval = deps.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  let health: EngineHealth = OK;
  let retryable = true;
  let timer: ClockTimer | null = null;
  let stopped = false;


  const arm = (): void => {
    if (timer || stopped) return;
    timer = deps.clock.setTimer(() => {
      timer = null;
      try {
        deps.probe(deps.clock.now());
      } catch (err) {
        if (monitor.fault(err) === null) log(`hookbench: storage check failed: ${err instanceof Error ? err.message : String(err)}`);
        arm();
        return;
      }
      recover();
    }, interval);
  };

  const recover = (): void => {
    if (health.status === 'ok') return;
    const was = health.problem;
    health = OK;
    retryable = true;
    timer?.cancel();
    timer = null;
    const since = was ? Date.parse(was.since) : deps.clock.now();
    log(`hookbench: storage is writable again after ${deps.clock.now() - since} ms (${was?.code ?? 'unknown'} cleared)`);
    deps.onChange(health);
    try {
      deps.onRecovered();
    } catch (err) {
      // Whatever failed there reported itself (and re-armed the probe) through fault().
      if (monitor.fault(err) === null) throw err;
    }
  };

  const monitor: HealthMonitor = {
    current: () => health,
    writable: () => health.status === 'ok' || !retryable,
    fault(err) {
      const fault = classifyStorageError(err, faultContext(deps.dbPath, deps.clock.now()));
      if (fault === null) return null;
      const same = health.problem?.code === fault.code;
      if (!same) {
        health = {
          status: 'degraded',
          problem: {
            code: fault.code,
            message: fault.message,
            advice: fault.advice,
            retryable: fault.retryable,
            dataDir: deps.dataDir,
            since: new Date(deps.clock.now()).toISOString(),
          },
        };
        retryable = fault.retryable;
        log(`hookbench: storage ${fault.code}: ${fault.message}; ${fault.advice}`);
        deps.onChange(health);
      }
      // A damaged file stays damaged: no probe can clear it, the user moves it aside and restarts.
      if (fault.retryable) arm();
      return fault;
    },
    succeeded() {
      if (health.status === 'degraded' && retryable) recover();
    },
    stop() {
      stopped = true;
      timer?.cancel();
      timer = null;
    },
  };
  return monitor;
}
