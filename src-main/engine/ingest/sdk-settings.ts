/**
 * The settings SDKs fetch before they send (`GET /v1/projects/{writeKey}/settings`), as Segment's
 * CDN serves them: analytics.js reads the `Segment.io` integration's apiKey, apiHost and protocol
 * to know where to post, and the mobile SDKs read the same integration. Hookbench points them
 * back at itself and turns off what would call Segment (metrics, remote plugins, middleware).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock';
import type { LogStore } from '../store/log-store';
import { echo } from '../store/refused-log';
import type { IngestRouting, IngestStorage } from './handler';

export interface SdkSettings {
  integrations: { 'Segment.io': { apiKey: string; apiHost: string; protocol: 'http' | 'https'; unbundledIntegrations: string[]; addBundledMetadata: boolean; maybeBundledConfigIds: Record<string, never> } };
  plan: { track: { __default: { enabled: true; integrations: Record<string, never> } }; identify: { __default: { enabled: true } }; group: { __default: { enabled: true } } };
  edgeFunction: Record<string, never>;
  analyticsNextEnabled: true;
  middlewareSettings: Record<string, never>;
  enabledMiddleware: Record<string, never>;
  metrics: { sampleRate: 0 };
  legacyVideoPluginsEnabled: false;
  remotePlugins: [];
}

/**
 * A source's settings. `host` is how the SDK reached Hookbench (`127.0.0.1:4545`), so the calls go
 * back to the same address; apiHost has no scheme, as Segment's has none (`api.segment.io/v1`).
 */
export function sdkSettingsFor(writeKey: string, host: string, protocol: 'http' | 'https' = 'http'): SdkSettings {
  return {
    integrations: {
      'Segment.io': {
        apiKey: writeKey,
        apiHost: `${host}/v1`,
        protocol,
        unbundledIntegrations: [],
        addBundledMetadata: true,
        maybeBundledConfigIds: {},
      },
    },
    plan: { track: { __default: { enabled: true, integrations: {} } }, identify: { __default: { enabled: true } }, group: { __default: { enabled: true } } },
    edgeFunction: {},
    analyticsNextEnabled: true,
    middlewareSettings: {},
    enabledMiddleware: {},
    // A sample rate of 0: the SDK never reports its own metrics to Segment.
    metrics: { sampleRate: 0 },
    legacyVideoPluginsEnabled: false,
    remotePlugins: [],
  };
}

export interface SdkSettingsDeps {
  log: LogStore;
  routing: IngestRouting;
  clock: Clock;
  storage?: IngestStorage;
  onRequest?(requestId: number): void;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * GET of a source's settings. An unknown key gets 404, as from Segment's CDN: analytics.js then
 * rejects load() and prints the body in the console, and sends nothing. So that the mistake is
 * also seen in Hookbench, the miss is logged in Inbound like a refused call.
 */
export function createSdkSettingsHandler(deps: SdkSettingsDeps): (req: IncomingMessage, res: ServerResponse, writeKey: string, host: string) => void {
  return (req, res, writeKey, host) => {
    const headers = { 'cache-control': 'no-store' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, JSON.stringify({ success: false, code: 'method_not_allowed', message: `${req.method ?? 'this method'} is not allowed; settings are read with GET` }), { ...headers, allow: 'GET, HEAD' });
      return;
    }
    if (deps.routing.sourceByWriteKey(writeKey)) {
      send(res, 200, JSON.stringify(sdkSettingsFor(writeKey, host)), headers);
      return;
    }
    const message = `write key "${echo(writeKey)}" belongs to no source, so there are no settings for it; create a source with this key in Configure or check the key`;
    if (deps.storage?.writable() ?? true) {
      try {
        const id = deps.log.recordRefused({
          sourceId: null,
          path: (req.url ?? '').split('?')[0] ?? '',
          receivedAt: deps.clock.now(),
          httpStatus: 404,
          bytes: 0,
          userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
          errorCode: 'unknown_write_key',
          errorText: message,
        });
        deps.onRequest?.(id);
      } catch (err) {
        // The answer matters more than the log line: a storage fault is the health monitor's to report.
        deps.storage?.fault(err);
      }
    }
    send(res, 404, JSON.stringify({ success: false, code: 'unknown_write_key', message }), headers);
  };
}
