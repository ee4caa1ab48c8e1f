import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { readLexical } from './json-lexical';
import { diagnoseBody } from './body-diff';
import { diagnose, type DoctorCase } from './doctor';
import { signStandard } from '../delivery/standard-webhooks';
import { standardWebhooksSecret } from '../../../src-shared/signing';

const codes = (signed: string, pasted: string): string[] => diagnoseBody(signed, pasted).map((f) => f.code);
const hmac = (alg: string, key: string, data: string | Buffer, enc: 'hex' | 'base64'): string => createHmac(alg, key).update(data).digest(enc);

test('readLexical accepts exactly what JSON.parse accepts', () => {
  const texts = fc.oneof(
    fc.json(),
    fc.string(),
    fc.json().chain((j) => fc.nat(j.length).map((i) => j.slice(0, i) + j.slice(i + 1))),
    fc.constantFrom('01', '1.', '.5', '-', '"\\x"', '[1,]', '{"a":1,}', ' {} ', '1e5', '-0.0E-2', '"\u0001"', '[]x', 'nul'),
  );
  fc.assert(
    fc.property(texts, (text) => {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      assert.equal(readLexical(text) !== null, valid, text);
    }),
    { numRuns: 500 },
  );
});

test('readLexical survives deep nesting without recursion', () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  assert.ok(readLexical(deep));
});

test('pretty-printing is whitespace and nothing else; a value changes is values_differ', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const signed = JSON.stringify(v);
      const pretty = JSON.stringify(v, null, 2);
      const found = codes(signed, pretty);
      assert.deepEqual(found, signed === pretty ? ['identical'] : ['whitespace']);
    }),
    { numRuns: 300 },
  );
  assert.deepEqual(codes('{"a":1}', '{"a":2}'), ['values_differ']);
  assert.deepEqual(codes('{"a":1}', '{"b":1}'), ['values_differ']);
});

test('reordered keys are key_order, named at their path', () => {
  const obj = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 5 }), fc.integer()), { minLength: 2, maxLength: 6, selector: ([k]) => k });
  fc.assert(
    fc.property(obj, (entries) => {
      const signed = `{"p":{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}}`;
      const reversed = `{"p":{${[...entries].reverse().map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}}`;
      const found = diagnoseBody(signed, reversed);
      // JSON.parse puts integer-like keys first, so JSON.stringify may happen to write exactly the reversed text.
      assert.deepEqual(found.map((f) => f.code).filter((c) => c !== 'json_stringify'), ['key_order']);
      assert.equal(found[0]?.examples[0]?.path, '$.p');
    }),
  );
});

test('each re-serialisation is named: unicode escapes, escaped slashes, number spelling, trailing newline, JSON.stringify', () => {
  const signed = '{"name":"caf\\u00e9","path":"\\/a\\/b","price":1.0,"big":1e3}';
  const stringified = JSON.stringify(JSON.parse(signed));
  assert.equal(stringified, '{"name":"café","path":"/a/b","price":1,"big":1000}');
  const found = diagnoseBody(signed, stringified);
  assert.deepEqual(found.map((f) => f.code), ['unicode_escapes', 'escaped_slashes', 'number_format', 'json_stringify']);
  assert.deepEqual(found[2]?.examples.map((e) => [e.path, e.ours, e.theirs]), [['$.price', '1.0', '1'], ['$.big', '1e3', '1000']]);
  assert.deepEqual(codes('{"a":1}', '{"a":1}\n'), ['trailing_newline']);
  assert.deepEqual(codes('{"a":"\\u00E9"}', '{"a":"\\u00e9"}'), ['string_escapes']);
  assert.deepEqual(codes('{"a":1}', 'a=1'), ['not_json']);
  assert.deepEqual(codes('{"a":12345678901234567890}', '{"a":12345678901234567000}'), ['number_format', 'json_stringify'], 'same double, different spelling');
  assert.deepEqual(codes('{"a":1.5}', '{"a":1.50}'), ['number_format']);
});

const body = Buffer.from('{"type":"track","properties":{"name":"café","url":"/a/b"}}');
const base: DoctorCase = { body, secret: 's3cret', sentHeaders: null, otherSecrets: [{ name: 'Staging', secret: 'staging-secret' }] };
const sig = (pasted: string, c: DoctorCase = base) => diagnose(c, pasted, 'signature');
const sigCodes = (pasted: string, c: DoctorCase = base): string[] => sig(pasted, c).findings.map((f) => f.code);

test('a signature: right, hex vs base64, SHA-256 for SHA-1, re-serialised, trailing newline, another destination’s secret, the whsec string as key', () => {
  assert.equal(sig(hmac('sha1', 's3cret', body, 'hex')).verdict, 'ok');
  assert.equal(sig(`sha1=${hmac('sha1', 's3cret', body, 'hex').toUpperCase()}`).verdict, 'ok', 'a prefix and upper-case hex are read');
  assert.deepEqual(sigCodes(hmac('sha1', 's3cret', body, 'base64')), ['encoding']);
  assert.deepEqual(sigCodes(hmac('sha256', 's3cret', body, 'hex')), ['algorithm']);
  assert.deepEqual(sigCodes(hmac('sha256', 's3cret', body, 'base64')), ['algorithm', 'encoding']);
  const reserialised = sig(hmac('sha1', 's3cret', JSON.stringify(JSON.parse(body.toString()), null, 2), 'hex'));
  assert.deepEqual(reserialised.findings.map((f) => f.code), ['reserialised']);
  assert.deepEqual(sigCodes(hmac('sha1', 's3cret', `${body.toString()}\n`, 'hex')), ['trailing_newline']);
  const other = sig(hmac('sha1', 'staging-secret', body, 'hex'));
  assert.deepEqual(other.findings.map((f) => f.code), ['wrong_secret']);
  assert.match(other.findings[0]?.title ?? '', /Staging/);
  assert.deepEqual(sigCodes(hmac('sha1', standardWebhooksSecret('s3cret'), body, 'hex')), ['whsec_as_key']);
  const none = sig(hmac('sha1', 'a-secret-nobody-has', body, 'hex'));
  assert.equal(none.verdict, 'unknown');
  assert.deepEqual(none.findings.map((f) => f.code), ['no_match']);
  assert.equal(sig('not a signature').verdict, 'unknown');
  assert.equal(diagnose({ ...base, secret: null }, 'abcd', 'signature').verdict, 'unknown');
});

test('Python json.dumps of the body is recognised: its separators and \\u escapes', () => {
  const dumped = '{"type": "track", "properties": {"name": "caf\\u00e9", "url": "/a/b"}}';
  assert.deepEqual(sigCodes(hmac('sha1', 's3cret', dumped, 'hex')), ['reserialised']);
  assert.match(sig(hmac('sha1', 's3cret', dumped, 'hex')).findings[0]?.title ?? '', /json\.dumps/);
});

test('property: any body and secret, the doctor names exactly the mistake made', () => {
  const mistakes = ['none', 'base64', 'sha256', 'newline'] as const;
  fc.assert(
    fc.property(fc.jsonValue(), fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom(...mistakes), (value, secret, mistake) => {
      const b = Buffer.from(JSON.stringify(value) ?? 'null');
      const c: DoctorCase = { body: b, secret, sentHeaders: null, otherSecrets: [] };
      const pasted =
        mistake === 'base64'
          ? hmac('sha1', secret, b, 'base64')
          : mistake === 'sha256'
            ? hmac('sha256', secret, b, 'hex')
            : mistake === 'newline'
              ? hmac('sha1', secret, Buffer.concat([b, Buffer.from('\n')]), 'hex')
              : hmac('sha1', secret, b, 'hex');
      const expected = { none: [], base64: ['encoding'], sha256: ['algorithm'], newline: ['trailing_newline'] }[mistake];
      assert.deepEqual(sigCodes(pasted, c), expected);
    }),
    { numRuns: 200 },
  );
});

test('Standard Webhooks: the right webhook-signature is ok; in hex it is an encoding mistake; over the body alone it is named', () => {
  const sent = signStandard({ body, secret: 's3cret', deliveryId: 9, at: 1_700_000_000_000 });
  const c: DoctorCase = { ...base, sentHeaders: sent };
  assert.equal(sig(String(sent['webhook-signature']), c).verdict, 'ok');
  assert.match(sig(String(sent['webhook-signature']), c).summary, /webhook-signature/);
  const hex = createHmac('sha256', 's3cret').update(`${sent['webhook-id']}.${sent['webhook-timestamp']}.`).update(body).digest('hex');
  assert.deepEqual(sigCodes(hex, c), ['encoding']);
  assert.deepEqual(sigCodes(hmac('sha256', 's3cret', body, 'base64'), c), ['algorithm', 'encoding'], 'read against X-Signature: SHA-256 and base64 over the body alone');
});

test('auto reads a body by its first character', () => {
  assert.equal(diagnose(base, '  {"a":1}').read, 'body');
  assert.equal(diagnose(base, hmac('sha1', 's3cret', body, 'hex')).read, 'signature');
  assert.equal(diagnose(base, body.toString()).verdict, 'ok');
});
