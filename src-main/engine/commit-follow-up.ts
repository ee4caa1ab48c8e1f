/**
 * What a commit leaves owed: its messages' trigrams for the search index and its messages for the
 * profiles (store/search-index.ts, store/profiles.ts). Taking them in inside the commit held each
 * commit, and the claim of its deliveries, for as long again as the commit itself. Here they are
 * taken in a moment later, many commits at a time (a transaction per slice costs the same for 10
 * messages or 200, so waiting a little more than halves the cost per message), in slices of about
 * two milliseconds between other work. Reads never wait for it: each read takes in what is still
 * owed before it runs.
 */
import type { Clock, ClockTimer } from './clock';
import { createSlicedWork, timedSlices } from './sliced-work';

/** How long after a commit its follow-up starts, so that it takes in the commits that follow too. */
export const FOLLOW_UP_DELAY_MS = 25;
/** Messages per transaction when everything owed is taken in at once. */
const FINISH_SLICE = 5_000;

export interface CommitFollowUp {
  /** A commit left messages owed: the follow-up starts FOLLOW_UP_DELAY_MS later, unless already due or running. */
  committed(): void;
  /** Starts now (engine start: a tail a crash left). */
  start(): void;
  /** Takes in everything still owed at once, then stops (engine stop: the file is left complete). */
  finish(): void;
  stop(): void;
}

export function createCommitFollowUp(deps: {
  /** Takes up to `max` owed messages into the search index and the profiles; true when none is left. */
  takeInOwed: (max: number) => boolean;
  /** A storage fault or another failure: reported by the caller; the follow-up tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  delayMs?: number;
}): CommitFollowUp {
  const work = createSlicedWork({
    slice: deps.takeInOwed,
    clock: deps.clock,
    sizing: timedSlices({ first: 100, min: 10, max: 5_000, targetMs: 2 }),
    stoppedMessage: 'the follow-up of commits stopped',
    onError: deps.onError,
  });
  let timer: ClockTimer | null = null;
  const stop = (): void => {
    timer?.cancel();
    timer = null;
    work.stop();
  };
  return {
    committed() {
      if (timer !== null || work.running()) return;
      timer = deps.clock.setTimer(() => {
        timer = null;
        work.start();
      }, deps.delayMs ?? FOLLOW_UP_DELAY_MS);
    },
    start: () => work.start(),
    finish() {
      stop();
      while (!deps.takeInOwed(FINISH_SLICE)) {
        // the rest
      }
    },
    stop,
  };
}
