/**
 * What a commit leaves owed: its messages' trigrams for the search index, its messages for the
 * profiles and its tallies (store/search-index.ts, store/profiles.ts, store/message-tallies.ts).
 * Taking them in inside the commit held each commit, and the claim of its deliveries, for as long
 * again as the commit itself. Here they are taken in a moment later, many commits at a time (a
 * transaction per slice costs the same for 10 messages or 200, so waiting a little more than
 * halves the cost per message), in slices of a few milliseconds between other work.
 *
 * A read that must see every committed message (the profiles) waits for the follow-up
 * (`settled`) rather than taking in what is owed at once: under sustained ingest the follow-up can
 * be tens of thousands of messages behind, and taking them in on the spot held the engine's
 * thread, and every acknowledgement, for seconds.
 */
import type { Clock, ClockTimer } from './clock';
import { createSlicedWork, nextTimedSize, type TimedSlices } from './sliced-work';

/** How long after a commit its follow-up starts, so that it takes in the commits that follow too. */
export const FOLLOW_UP_DELAY_MS = 25;
/** Messages per transaction when everything owed is taken in at once (at stop). */
const FINISH_SLICE = 5_000;
/** Slices while the follow-up keeps up: short, so an acknowledgement never waits long behind one. */
export const FOLLOW_UP_SLICES: TimedSlices = { first: 100, min: 10, max: 5_000, targetMs: 2 };
/**
 * Owed messages beyond which the follow-up is behind. A slice's cost per message hardly falls
 * with its size within a few milliseconds (each message dirties pages of its own in the profiles'
 * tables), so at 2 ms a slice the follow-up gets too small a share of the thread to keep up with
 * ingest above about a thousand messages a second; behind, or with a read waiting, each slice
 * takes BEHIND_TARGET_MS instead, and ingest gives up that share until it has caught up.
 */
export const BEHIND_MESSAGES = 2_000;
export const BEHIND_TARGET_MS = 5;
/** A free-text read's own catch-up of the search index alone (engine/index.ts): slices as long as the follow-up's when behind. */
export const SEARCH_INDEX_CATCH_UP: TimedSlices = { ...FOLLOW_UP_SLICES, targetMs: BEHIND_TARGET_MS };

/** Pure: how long the next slice should hold the thread, from how far behind the follow-up is. */
export function followUpTargetMs(owed: number, readWaiting: boolean): number {
  return readWaiting || owed > BEHIND_MESSAGES ? BEHIND_TARGET_MS : FOLLOW_UP_SLICES.targetMs;
}

export interface CommitFollowUp {
  /** A commit left messages owed: the follow-up starts FOLLOW_UP_DELAY_MS later, unless already due or running. */
  committed(): void;
  /** Starts now (engine start: a tail a crash left). */
  start(): void;
  /**
   * Resolves once every message committed before the call is taken in, the follow-up running at
   * once and in its longer slices until then; what commits after the call does not hold it (a
   * read takes in a little of that itself, see ProfileStore.settle). Resolves at once when at
   * most readTakesInAtMost are owed, and when stopped: the caller's own settling takes in the rest.
   */
  settled(): Promise<void>;
  /** Takes in everything still owed at once, then stops (engine stop: the file is left complete). */
  finish(): void;
  stop(): void;
}

export function createCommitFollowUp(deps: {
  /** Takes up to `max` owed messages into the search index, the tallies and the profiles; true when none is left. */
  takeInOwed: (max: number) => boolean;
  /** Through which id everything is taken in, and the log's newest id. */
  progress: () => { through: number; last: number };
  /**
   * Owed messages a waiting read takes in itself (ProfileStore.settle's bound): when no more are
   * owed, `settled` resolves at once, so that a read at a steady rate costs what it did before
   * it could wait (the follow-up neither hurried nor started early, the read's own settling
   * taking in the few milliseconds of traffic).
   */
  readTakesInAtMost: number;
  /** A storage fault or another failure: reported by the caller; the follow-up tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  delayMs?: number;
}): CommitFollowUp {
  let waiting: { upTo: number; resolve: () => void }[] = [];
  let stopped = false;
  /** Resolves the reads waiting for messages up to `through`. */
  const release = (through: number): void => {
    waiting = waiting.filter((w) => {
      if (w.upTo > through) return true;
      w.resolve();
      return false;
    });
  };
  let owed = 0;
  const work = createSlicedWork({
    slice: (max) => {
      const done = deps.takeInOwed(max);
      const { through, last } = done ? { through: Number.POSITIVE_INFINITY, last: 0 } : deps.progress();
      owed = Math.max(0, last - through);
      release(through);
      return done;
    },
    clock: deps.clock,
    sizing: {
      first: FOLLOW_UP_SLICES.first,
      next: (size, ms) => nextTimedSize({ ...FOLLOW_UP_SLICES, targetMs: followUpTargetMs(owed, waiting.length > 0) }, size, ms),
    },
    stoppedMessage: 'the follow-up of commits stopped',
    onError: deps.onError,
  });
  let timer: ClockTimer | null = null;
  const stop = (): void => {
    stopped = true;
    timer?.cancel();
    timer = null;
    work.stop();
    release(Number.POSITIVE_INFINITY);
  };
  const startNow = (): void => {
    timer?.cancel();
    timer = null;
    stopped = false;
    work.start();
  };
  return {
    committed() {
      if (timer !== null || work.running()) return;
      stopped = false;
      timer = deps.clock.setTimer(() => {
        timer = null;
        work.start();
      }, deps.delayMs ?? FOLLOW_UP_DELAY_MS);
    },
    start: startNow,
    settled() {
      if (stopped) return Promise.resolve();
      const { through, last } = deps.progress();
      if (last - through <= deps.readTakesInAtMost) return Promise.resolve();
      return new Promise((resolve) => {
        waiting.push({ upTo: last, resolve });
        if (!work.running()) startNow();
      });
    },
    finish() {
      stop();
      while (!deps.takeInOwed(FINISH_SLICE)) {
        // the rest
      }
    },
    stop,
  };
}
