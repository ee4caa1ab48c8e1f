/**
 * Ready-to-paste setup for the client-side SDKs: the browser (Segment's classic snippet, and
 * @segment/analytics-next from npm) and the mobile ones (analytics-swift, analytics-kotlin).
 * Hookbench serves what they fetch from Segment's CDN (settings, the analytics.js bundle), so each
 * differs from Segment's own setup only in its hosts. The mobile SDKs take hosts without a scheme
 * (`127.0.0.1:4545/v1`) and always build https:// URLs, so their setup also turns those into http://.
 */
import { INGEST_PLACEHOLDER } from './snippets';

export interface ClientSnippets {
  /** The classic snippet, for a page's <head>. */
  html: string;
  /** @segment/analytics-next installed from npm. */
  npm: string;
  swift: string;
  kotlin: string;
  /** `127.0.0.1:4545/v1`: the apiHost and cdnHost the mobile SDKs take. */
  mobileHost: string;
}

/** Segment's classic snippet (5.2.0) with only the CDN host changed. */
export function classicSnippet(origin: string, writeKey: string): string {
  const key = JSON.stringify(writeKey);
  return (
    `!function(){var i="analytics",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error("Segment snippet included twice.");else{analytics.invoked=!0;analytics.methods=["trackSubmit","trackClick","trackLink","trackForm","pageview","identify","reset","group","track","ready","alias","debug","page","screen","once","off","on","addSourceMiddleware","addIntegrationMiddleware","setAnonymousId","addDestinationMiddleware","register"];analytics.factory=function(e){return function(){if(window[i].initialized)return window[i][e].apply(window[i],arguments);var n=Array.prototype.slice.call(arguments);if(["track","screen","alias","group","page","identify"].indexOf(e)>-1){var c=document.querySelector("link[rel='canonical']");n.push({__t:"bpc",c:c&&c.getAttribute("href")||void 0,p:location.pathname,u:location.href,s:location.search,t:document.title,r:document.referrer})}n.unshift(e);analytics.push(n);return analytics}};for(var n=0;n<analytics.methods.length;n++){var key=analytics.methods[n];analytics[key]=analytics.factory(key)}analytics.load=function(key,n){var t=document.createElement("script");t.type="text/javascript";t.async=!0;t.setAttribute("data-global-segment-analytics-key",i);t.src="${origin}/analytics.js/v1/" + key + "/analytics.min.js";var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r);analytics._loadOptions=n};analytics._writeKey=${key};;analytics.SNIPPET_VERSION="5.2.0";\n` +
    `analytics.load(${key});\n` +
    `analytics.page();\n` +
    `}}();`
  );
}

export function clientSnippetsFor(ingestUrl: string | null, writeKey: string): ClientSnippets {
  const origin = (ingestUrl ?? INGEST_PLACEHOLDER).replace(/\/+$/, '');
  const mobileHost = `${origin.replace(/^https?:\/\//, '')}/v1`;
  const key = JSON.stringify(writeKey);
  const html = ['<script>', classicSnippet(origin, writeKey), '</script>'].join('\n');
  const npm = [
    `import { AnalyticsBrowser } from '@segment/analytics-next';`,
    ``,
    `export const analytics = AnalyticsBrowser.load({ writeKey: ${key}, cdnURL: ${JSON.stringify(origin)} });`,
    `analytics.track('Signed Up', { plan: 'pro' });`,
  ].join('\n');
  const swift = [
    `import Segment`,
    ``,
    `let configuration = Configuration(writeKey: ${key})`,
    `    .apiHost(${JSON.stringify(mobileHost)})`,
    `    .cdnHost(${JSON.stringify(mobileHost)})`,
    `    .requestFactory { request in`,
    `        // Hookbench speaks plain HTTP; the SDK builds https:// URLs.`,
    `        var request = request`,
    `        var parts = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)!`,
    `        parts.scheme = "http"`,
    `        request.url = parts.url`,
    `        return request`,
    `    }`,
    `let analytics = Analytics(configuration: configuration)`,
    `analytics.track(name: "Signed Up", properties: ["plan": "pro"])`,
  ].join('\n');
  const kotlin = [
    `import com.segment.analytics.kotlin.android.Analytics`,
    `import com.segment.analytics.kotlin.core.RequestFactory`,
    ``,
    `val analytics = Analytics(${key}, applicationContext) {`,
    `    apiHost = ${JSON.stringify(mobileHost)}`,
    `    cdnHost = ${JSON.stringify(mobileHost)}`,
    `    // Hookbench speaks plain HTTP; the SDK builds https:// URLs.`,
    `    requestFactory = object : RequestFactory() {`,
    `        override fun openConnection(url: String) = super.openConnection(url.replaceFirst("https://", "http://"))`,
    `    }`,
    `}`,
    `analytics.track("Signed Up", buildJsonObject { put("plan", "pro") })`,
  ].join('\n');
  return { html, npm, swift, kotlin, mobileHost };
}
