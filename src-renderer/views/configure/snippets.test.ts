import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INGEST_PLACEHOLDER, snippetsFor } from './snippets';

test('snippets carry the ingest address and the write key for analytics-node, analytics-go and curl', () => {
  const s = snippetsFor('http://127.0.0.1:4545/', 'wk_abc');
  assert.ok(s.node.includes(`new Analytics({ writeKey: "wk_abc", host: "http://127.0.0.1:4545" })`), s.node);
  assert.ok(s.node.includes(`import { Analytics } from '@segment/analytics-node';`));
  assert.ok(s.go.includes(`analytics.NewWithConfig("wk_abc", analytics.Config{Endpoint: "http://127.0.0.1:4545"})`), s.go);
  assert.ok(s.go.includes('import "github.com/segmentio/analytics-go/v3"'));
  assert.equal(
    s.curl,
    [
      `curl 'http://127.0.0.1:4545/v1/track' \\`,
      `  -u 'wk_abc:' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d '{"userId":"user_1","event":"Signed Up","properties":{"plan":"pro"}}'`,
    ].join('\n'),
  );
});

test('without an ingest address yet, the snippets show a placeholder rather than a wrong address', () => {
  const s = snippetsFor(null, 'wk_abc');
  for (const text of [s.node, s.go, s.curl]) assert.ok(text.includes(INGEST_PLACEHOLDER), text);
});

test('the curl snippet runs as written: the body it sends is the JSON shown', async () => {
  // The -d argument is single-quoted JSON: parse what the shell would pass.
  const body = /-d '(.*)'$/.exec(snippetsFor('http://h', 'k').curl)?.[1];
  assert.deepEqual(JSON.parse(body ?? ''), { userId: 'user_1', event: 'Signed Up', properties: { plan: 'pro' } });
});
