import { useEffect, useState } from 'react';

/** The current time, refreshed every `everyMs` while the component is shown, for "in 4 min" and "(3 s)". */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
