import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientSnippetsFor } from './client-snippets';
import { INGEST_PLACEHOLDER } from './snippets';

test('browser snippets load analytics.js and settings from the ingest address, with the write key', () => {
  const s = clientSnippetsFor('http://127.0.0.1:4545/', 'wk_abc');
  assert.ok(s.html.startsWith('<script>\n!function(){'), s.html);
  assert.ok(s.html.includes('t.src="http://127.0.0.1:4545/analytics.js/v1/" + key + "/analytics.min.js"'));
  assert.ok(s.html.includes('analytics._writeKey="wk_abc"') && s.html.includes('analytics.load("wk_abc");'));
  assert.ok(s.html.endsWith('analytics.page();\n}}();\n</script>'));
  assert.ok(s.npm.includes(`AnalyticsBrowser.load({ writeKey: "wk_abc", cdnURL: "http://127.0.0.1:4545" })`), s.npm);
});

test('mobile setup: the same host without scheme, /v1, as both API and CDN host, and https turned into http', () => {
  const s = clientSnippetsFor('http://127.0.0.1:4545', 'wk_abc');
  assert.equal(s.mobileHost, '127.0.0.1:4545/v1');
  assert.ok(s.swift.includes('.apiHost("127.0.0.1:4545/v1")') && s.swift.includes('.cdnHost("127.0.0.1:4545/v1")'), s.swift);
  assert.ok(s.swift.includes('Configuration(writeKey: "wk_abc")') && s.swift.includes('parts.scheme = "http"'));
  assert.ok(s.kotlin.includes('apiHost = "127.0.0.1:4545/v1"') && s.kotlin.includes('cdnHost = "127.0.0.1:4545/v1"'), s.kotlin);
  assert.ok(s.kotlin.includes('Analytics("wk_abc", applicationContext)') && s.kotlin.includes('replaceFirst("https://", "http://")'));
});

test('without an ingest address yet, every client snippet shows the placeholder', () => {
  const s = clientSnippetsFor(null, 'wk_abc');
  for (const text of [s.html, s.npm]) assert.ok(text.includes(INGEST_PLACEHOLDER), text);
  assert.equal(s.mobileHost, '127.0.0.1:PORT/v1');
});
