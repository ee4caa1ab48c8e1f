import { clientSnippetsFor } from './client-snippets';
import { Snippet } from './Snippet';

/**
 * The browser and mobile setup for one source, next to the server snippets: the classic snippet
 * and analytics-next from npm load their settings (and the snippet its bundle) from Hookbench,
 * and the mobile SDKs take its address as their API and CDN host.
 */
export function ClientSnippets({ ingestUrl, writeKey }: { ingestUrl: string | null; writeKey: string }) {
  const s = clientSnippetsFor(ingestUrl, writeKey);
  const port = /:(\d+)\/v1$/.exec(s.mobileHost)?.[1] ?? 'PORT';
  return (
    <div className="client-snippets" data-testid="client-snippets">
      <h4>Browser</h4>
      <p className="muted">
        Segment’s snippet with only its host changed: Hookbench serves analytics.js, its settings and its chunks, and answers the
        page’s cross-origin calls (CORS), whatever origin the page is on.
      </p>
      <div className="snippet-grid">
        <Snippet title="Browser snippet (in the page’s <head>)" text={s.html} testId="snippet-browser" />
        <Snippet title="@segment/analytics-next (npm)" text={s.npm} testId="snippet-npm" />
      </div>
      <h4>Mobile</h4>
      <p className="muted">
        analytics-swift and analytics-kotlin take <code className="mono">{s.mobileHost}</code> as both API host and CDN host, and
        build https:// addresses, which the request factory below turns into http://. A simulator on this machine reaches
        127.0.0.1 as is; an Android emulator or a phone over USB does after <code className="mono">{`adb reverse tcp:${port} tcp:${port}`}</code>{' '}
        (Android also needs cleartext allowed for 127.0.0.1 in debug builds); a phone on the network needs{' '}
        <code className="mono">hookbench serve --host 0.0.0.0</code> and this machine’s address instead.
      </p>
      <div className="snippet-grid">
        <Snippet title="analytics-swift" text={s.swift} testId="snippet-swift" />
        <Snippet title="analytics-kotlin (Android)" text={s.kotlin} testId="snippet-kotlin" />
      </div>
    </div>
  );
}
