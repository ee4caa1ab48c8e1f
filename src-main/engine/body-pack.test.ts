import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ManualClock } from './clock';
import { createEngineApi } from './api';
import { startHarness, configWith, type Harness } from './testing/harness';
import { Receiver } from './testing/receiver';
import { waitUntil } from './testing/wait';
import { BODY_DEFLATE_MESSAGE, BODY_RAW, packBody, unpackBody } from './store/body-pack';
import type { EngineApi } from '../../src-shared/api';

const hmac = (body: Buffer): string => createHmac('sha1', 's3cret').update(body).digest('hex');

test('a packed body unpacks to exactly the bytes it was made from, for any bytes and any message JSON', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 3_000 }), fc.json(), fc.string({ unit: 'grapheme', maxLength: 40 }), (body, json, extra) => {
      const dictionary = `${json}${extra}`;
      assert.deepEqual(unpackBody(packBody(body, dictionary), dictionary), Buffer.from(body));
    }),
    { numRuns: 300, seed: 18 },
  );
  // What it is for: a payload that repeats its message costs a few dozen bytes.
  const message = JSON.stringify({ type: 'track', event: 'Order Completed', userId: 'user_48', messageId: 'ajs-1', properties: { order_id: 'o-1', revenue: 12.99 }, context: { ip: '203.0.113.9', userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)' } });
  const payload = Buffer.from(`{"version":1,${message.slice(1)}`);
  assert.ok(packBody(payload, message).length < payload.length / 4, `${packBody(payload, message).length} of ${payload.length}`);
});

interface Seen {
  /** The bytes each reader hands out, by delivery id. */
  stored: string;
  detail: string | null;
  signature: string;
  har: string[];
}

/** Every reader of a delivery's body, as the API and the stores give it. */
async function readersOf(h: Harness, api: EngineApi, id: number): Promise<Seen> {
  const detail = await api.getDelivery(id);
  const har = await api.exportMessages({ format: 'har' });
  const doc = JSON.parse(har.text) as { log: { entries: { request: { postData?: { text: string } }; _deliveryId?: number }[] } };
  return {
    stored: Buffer.from(h.engine.stores.log.getDelivery(id)?.body ?? []).toString('hex'),
    detail: detail?.body ?? null,
    signature: detail?.signature.state ?? 'none',
    har: doc.log.entries.map((e) => e.request.postData?.text ?? ''),
  };
}

test('every reader sees the bytes that were sent, packed at commit, unpacked on a log from before, and packed after start', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const receiver = await new Receiver().start();
  const local = await new Receiver().start('/local');
  const h = await startHarness(configWith(receiver.url), { clock });
  const api = createEngineApi(h.engine);
  try {
    await h.post('/v1/track', { userId: 'u-1', event: 'Order Completed', messageId: 'bp-1', properties: { total: 12.5, sku: 'é-ü-✓' } });
    await h.post('/v1/identify', { userId: 'u-2', messageId: 'bp-2', traits: { email: 'u2@example.com', plan: 'pro' } });
    await receiver.waitFor(2);
    const ids = await waitUntil(() => {
      const rows = h.engine.stores.log.listDeliveries({ limit: 10 });
      return rows.length === 2 && rows.every((d) => d.status === 'succeeded') ? rows.map((d) => d.id).reverse() : undefined;
    }, 'both deliveries to succeed');
    const sent = receiver.received.map((r) => r.body);

    const format = (id: number): { body_format: number; bytes: number } =>
      h.inspect.get<{ body_format: number; bytes: number }>('SELECT body_format, length(body) AS bytes FROM deliveries WHERE id = ?', id)!;
    for (const [k, id] of ids.entries()) {
      assert.equal(format(id).body_format, BODY_DEFLATE_MESSAGE, 'packed as the commit wrote it');
      assert.ok(format(id).bytes < sent[k]!.length / 2, `${format(id).bytes} bytes stored for ${sent[k]!.length} sent`);
    }

    const expectRead = async (when: string): Promise<void> => {
      for (const [k, id] of ids.entries()) {
        const seen = await readersOf(h, api, id);
        assert.equal(seen.stored, sent[k]!.toString('hex'), `${when}: the stored bytes`);
        assert.equal(seen.detail, sent[k]!.toString('utf8'), `${when}: the detail's body`);
        assert.equal(seen.signature, 'valid', `${when}: the signature checks against the stored bytes`);
        assert.ok(seen.har.includes(sent[k]!.toString('utf8')), `${when}: the HAR export's request body`);
      }
    };
    await expectRead('packed at commit');
    // A delivery row as the store reads it has every column of the table but the format.
    const columns = h.inspect.all<{ name: string }>("SELECT name FROM pragma_table_info('deliveries')").map((c) => c.name).filter((c) => c !== 'body_format');
    assert.deepEqual(Object.keys(h.engine.stores.log.getDelivery(ids[0]!)!).sort(), columns.sort());

    // Replay as it was, and to another URL: the same bytes, the same signature.
    const asWas = await api.replayDelivery({ id: ids[0]! });
    await receiver.waitFor(3);
    assert.deepEqual(receiver.received[2]!.body, sent[0]);
    assert.equal(receiver.received[2]!.headers['x-signature'], hmac(sent[0]!));
    assert.equal(format(asWas.id).body_format, BODY_DEFLATE_MESSAGE);
    await api.replayDelivery({ id: ids[1]!, targetUrl: local.url });
    await local.waitFor(1);
    assert.deepEqual(local.received[0]!.body, sent[1]);

    // Edit and replay: the edit is stored packed too, read back as given, beside the original's bytes.
    const edited = '{"version":1,"type":"track","userId":"u-1","event":"Order Refunded","messageId":"bp-1","properties":{"total":12.5}}';
    const re = await api.replayDelivery({ id: ids[0]!, body: edited });
    await receiver.waitFor(4);
    assert.equal(receiver.received[3]!.body.toString('utf8'), edited);
    assert.equal(receiver.received[3]!.headers['x-signature'], hmac(Buffer.from(edited)));
    const reDetail = await api.getDelivery(re.id);
    assert.equal(reDetail?.body, edited);
    assert.equal(reDetail?.originalBody, sent[0]!.toString('utf8'));
    assert.equal(format(re.id).body_format, BODY_DEFLATE_MESSAGE);

    // As a log from before migration 18 holds them: every body as sent, and the backlog owed.
    await waitUntil(() => h.engine.stores.log.listDeliveries({ limit: 10 }).every((d) => d.status === 'succeeded'), 'the replays to settle');
    const all = h.inspect.all<{ id: number }>('SELECT id FROM deliveries ORDER BY id').map((r) => r.id);
    const before = new Map<number, string>();
    for (const id of all) before.set(id, Buffer.from(h.engine.stores.log.getDelivery(id)!.body!).toString('hex'));
    h.inspect.exec(`UPDATE deliveries SET body = hookbench_body(body, body_format, (SELECT json FROM messages WHERE messages.id = deliveries.message_id)), body_format = ${BODY_RAW};
      UPDATE delivery_pack_backfill SET below = (SELECT MAX(id) + 1 FROM deliveries)`);
    assert.equal(h.inspect.value('SELECT COUNT(*) FROM deliveries WHERE body_format <> 0'), 0);
    assert.equal(h.engine.stores.log.bodiesPacked(), false);
    await expectRead('unpacked, as before the migration');

    // The backlog, one delivery per slice, newest first.
    let slices = 0;
    while (!h.engine.stores.log.packBacklog(1)) slices++;
    assert.equal(slices, all.length);
    assert.equal(h.engine.stores.log.bodiesPacked(), true);
    assert.equal(h.inspect.value('SELECT COUNT(*) FROM deliveries WHERE body_format <> 1'), 0);
    for (const id of all) assert.equal(Buffer.from(h.engine.stores.log.getDelivery(id)!.body!).toString('hex'), before.get(id), `delivery ${id} after the backlog`);
    await expectRead('packed by the backlog');
    assert.equal((await api.getDelivery(re.id))?.body, edited);
  } finally {
    await h.close();
    await Promise.all([receiver.close(), local.close()]);
  }
});

test('the backlog is packed after start, in slices, while the engine serves; a delete notice keeps its bytes as they are; a purge leaves no body without its message', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const receiver = await new Receiver().start();
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-pack-'));
  const first = await startHarness(configWith(receiver.url), { clock, dataDir });
  let h = first;
  try {
    for (let i = 0; i < 40; i++) await h.post('/v1/track', { userId: `u-${i % 3}`, event: 'Viewed', messageId: `bs-${i}`, properties: { i } });
    await receiver.waitFor(40);
    await waitUntil(() => h.engine.stores.log.listDeliveries({ limit: 100 }).every((d) => d.status === 'succeeded'), 'every delivery to succeed');
    const sentById = new Map<string, string>();
    for (const r of receiver.received) sentById.set((JSON.parse(r.body.toString('utf8')) as { messageId: string }).messageId, r.body.toString('hex'));
    h.inspect.exec(`UPDATE deliveries SET body = hookbench_body(body, body_format, (SELECT json FROM messages WHERE messages.id = deliveries.message_id)), body_format = 0;
      UPDATE delivery_pack_backfill SET below = (SELECT MAX(id) + 1 FROM deliveries)`);
    // The next start takes the backlog in slices, after start-up.
    await first.close();
    h = await startHarness(configWith(receiver.url), { clock, dataDir });
    const api = createEngineApi(h.engine);
    await waitUntil(() => h.engine.stores.log.bodiesPacked(), 'the backlog to be packed');
    assert.equal(h.inspect.value('SELECT COUNT(*) FROM deliveries WHERE body_format = 0'), 0);
    const rows = h.inspect.all<{ id: number; message_id: string }>('SELECT d.id, m.message_id FROM deliveries d JOIN messages m ON m.id = d.message_id');
    for (const r of rows) assert.equal(Buffer.from(h.engine.stores.log.getDelivery(r.id)!.body!).toString('hex'), sentById.get(r.message_id));

    // A deletion with purge: the user's messages go with their deliveries; the notice (no message) stays raw.
    const deletion = await api.requestDeletion({ userId: 'u-1', purge: true });
    await waitUntil(() => {
      clock.advance(0);
      return h.engine.deletions.get(deletion.id)?.purgedAt;
    }, 'the purge to run');
    assert.equal(h.inspect.value(`SELECT COUNT(*) FROM deliveries d WHERE d.body_format = 1 AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = d.message_id)`), 0);
    const notice = h.inspect.get<{ body_format: number; body: Buffer }>('SELECT body_format, body FROM deliveries WHERE message_id IS NULL');
    assert.equal(notice?.body_format, BODY_RAW);
    assert.match(notice?.body.toString('utf8') ?? '', /"userId":"u-1"/);
    assert.equal(h.inspect.value('SELECT COUNT(*) FROM messages WHERE user_id = ?', 'u-1'), 0);
  } finally {
    await h.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('batches packed on the packing thread: each delivery stores, signs and sends its own message', async () => {
  const receiver = await new Receiver().start();
  // Every request of four bodies or more goes to the thread, busy engine or not.
  const h = await startHarness(configWith(receiver.url), { packOffThreadMinInFlight: 1 });
  try {
    assert.equal(await h.engine.bodyPacker.ready(), true);
    const batches = Array.from({ length: 12 }, (_, b) => ({
      batch: Array.from({ length: 20 }, (_, k) => ({ type: 'track', userId: `u-${b}-${k}`, event: `Event ${b}`, messageId: `pk-${b}-${k}`, properties: { n: b * 100 + k, note: 'é'.repeat(k) } })),
    }));
    const answers = await Promise.all(batches.map((b) => h.post('/v1/batch', b)));
    assert.deepEqual(
      answers.map((a) => a.status),
      batches.map(() => 200),
    );
    await receiver.waitFor(240);
    assert.equal(h.engine.bodyPacker.packed(), 240, 'every body went to the thread');
    const sentFor = new Map<string, Buffer>();
    for (const r of receiver.received) {
      assert.equal(r.headers['x-signature'], hmac(r.body));
      const sent = JSON.parse(r.body.toString('utf8')) as { messageId: string; userId: string; properties: { n: number } };
      const [, b, k] = sent.messageId.split('-').map(Number);
      assert.equal(sent.userId, `u-${b}-${k}`, 'the body is its own message');
      assert.equal(sent.properties.n, b! * 100 + k!);
      sentFor.set(sent.messageId, r.body);
    }
    const rows = h.inspect.all<{ id: number; messageId: string; format: number }>(
      'SELECT d.id, m.message_id AS messageId, d.body_format AS format FROM deliveries d JOIN messages m ON m.id = d.message_id',
    );
    assert.equal(rows.length, 240);
    for (const row of rows) {
      assert.equal(row.format, BODY_DEFLATE_MESSAGE);
      assert.deepEqual(Buffer.from(h.engine.stores.log.getDelivery(row.id)!.body!), sentFor.get(row.messageId), `delivery ${row.id}: the stored bytes are the ones sent`);
    }
  } finally {
    await h.close();
    await receiver.close();
  }
});
