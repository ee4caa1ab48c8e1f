/**
 * Time as the engine sees it. Everything time-dependent (timeouts, retry schedule, dedupe window,
 * timestamps) reads this instead of Date/setTimeout, so tests move time instead of sleeping and the
 * UI can warp a 4-hour retry life into seconds.
 */
export interface ClockTimer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Calls fn once the clock has advanced by ms. Never keeps the process alive on its own. */
  setTimer(fn: () => void, ms: number): ClockTimer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told to. Timers fire in due order during advance(); a timer set
 * for 0 ms fires on the next advance (even advance(0)), never synchronously.
 */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: PendingTimer[] = [];

  constructor(start: number | string = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): ClockTimer {
    const timer: PendingTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward by ms, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = target;
    this.timers = this.timers.filter((t) => !t.cancelled);
  }

  /** Timers waiting to fire, for assertions such as "a retry is scheduled 30 s out". */
  pendingTimers(): number[] {
    return this.timers.filter((t) => !t.cancelled).map((t) => t.at - this.current);
  }
}
