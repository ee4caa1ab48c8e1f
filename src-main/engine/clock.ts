import { timerDelay, type Clock, type ClockTimer } from '../../src-shared/clock';

export { MAX_TIMER_MS, systemClock, timerDelay, type Clock, type ClockTimer } from '../../src-shared/clock';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told to. Timers fire in due order during advance(); a timer set
 * for 0 ms fires on the next advance (even advance(0)), never synchronously. Like the system
 * clock, a timer longer than MAX_TIMER_MS fires after MAX_TIMER_MS.
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
    const timer: PendingTimer = { at: this.current + timerDelay(ms), seq: this.seq++, fn, cancelled: false };
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
