/**
 * Waits for a condition that real I/O will make true (a receiver got a request, a row changed),
 * checking often and failing with the description after a bound. Not a sleep: it returns as soon
 * as the condition holds.
 */
export async function waitUntil<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** waitUntil for a check that must itself wait (an HTTP call): each check is awaited before the next. */
export async function waitUntilAsync<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The call's value, and how many turns the event loop made while it ran: a call that does its
 * work in one synchronous stretch makes none, one that yields between slices makes one per yield.
 */
export async function turnsDuring<T>(call: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const spin = (): void => {
    if (!on) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const value = await call();
  on = false;
  return { value, turns };
}

/**
 * The fewest slices (or windows) `total` items can take when each is sized from the last one's
 * time, as sliced-work.ts and the windowed reads size them: at most four times the last, from
 * `first` up to `max`. However fast the machine, no run takes fewer; a test that counts the event
 * loop's turns between slices bounds them with this rather than with what one machine made.
 */
export function fewestSlices(sizing: { first: number; max: number }, total: number): number {
  let slices = 0;
  for (let size = sizing.first, done = 0; done < total; size = Math.min(sizing.max, size * 4)) {
    done += size;
    slices++;
  }
  return slices;
}
