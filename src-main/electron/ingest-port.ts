/** The Tracking API's port: the usual one when free, else any free port, and say which. */

export interface Bound<T> {
  value: T;
  /** Why the preferred port was not used; null when it was. */
  fellBack: string | null;
}

const code = (err: unknown): unknown => (typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined);

/**
 * Listens on `preferred`; when another program holds it (or it needs privileges), on a port the
 * system picks. Any other failure is the caller's to report.
 */
export async function listenPreferring<T>(listenOn: (port: number) => Promise<T>, preferred: number): Promise<Bound<T>> {
  try {
    return { value: await listenOn(preferred), fellBack: null };
  } catch (err) {
    const why = code(err);
    if (preferred === 0 || (why !== 'EADDRINUSE' && why !== 'EACCES')) throw err;
    const reason = why === 'EADDRINUSE' ? `port ${preferred} is in use by another program` : `port ${preferred} needs privileges`;
    return { value: await listenOn(0), fellBack: reason };
  }
}
