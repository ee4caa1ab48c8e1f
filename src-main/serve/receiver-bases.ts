/**
 * A config file can point a destination at this Hookbench's own test receivers before it knows
 * its port (`--port 0` in CI): a webhook URL may begin with `{hookbench}` (the HTTP address it
 * listens on) or `{hookbench-tls}` (the receivers' HTTPS address), as in
 * `"url": "{hookbench}/receivers/flaky"`. Pure: the addresses are filled in by the caller once the
 * server listens.
 */
export const HTTP_BASE = '{hookbench}';
export const TLS_BASE = '{hookbench-tls}';

export interface ReceiverBases {
  http: string;
  /** Null when the receivers have no HTTPS listener. */
  https: string | null;
}

/** Addresses that make a URL valid for checking the file before the server listens; never used to send. */
export const PROVISIONAL_BASES: ReceiverBases = { http: 'http://127.0.0.1:1', https: 'https://127.0.0.1:1' };

type Webhook = { url?: unknown };
type Destination = { webhooks?: unknown };

function webhooksOf(config: unknown): Webhook[] {
  const destinations = (config as { destinations?: unknown } | null)?.destinations;
  if (!Array.isArray(destinations)) return [];
  return destinations.flatMap((d: Destination | null) => (d && Array.isArray(d.webhooks) ? (d.webhooks as unknown[]) : []))
    .filter((w): w is Webhook => typeof w === 'object' && w !== null);
}

const baseOf = (url: unknown): typeof HTTP_BASE | typeof TLS_BASE | null =>
  typeof url !== 'string' ? null : url.startsWith(TLS_BASE) ? TLS_BASE : url.startsWith(HTTP_BASE) ? HTTP_BASE : null;

/** Whether any webhook URL of the (unparsed) config begins with one of the placeholders. */
export function usesReceiverBases(config: unknown): boolean {
  return webhooksOf(config).some((w) => baseOf(w.url) !== null);
}

/**
 * The config with each placeholder at the start of a webhook URL replaced by its address; the
 * input is not changed. Throws when a URL needs the HTTPS address and there is none.
 */
export function fillReceiverBases(config: unknown, bases: ReceiverBases): unknown {
  if (!usesReceiverBases(config)) return config;
  const copy = structuredClone(config);
  webhooksOf(copy).forEach((w) => {
    const base = baseOf(w.url);
    if (base === null) return;
    const address = base === TLS_BASE ? bases.https : bases.http;
    if (address === null) throw new Error(`webhook URL "${String(w.url)}" needs ${TLS_BASE}, and the receivers have no HTTPS address`);
    w.url = address + (w.url as string).slice(base.length);
  });
  return copy;
}
