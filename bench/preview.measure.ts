/**
 * Audience and computed-trait previews at many profiles, the way the preview reads them now
 * (candidates by index, in batches, counted up to PREVIEW_COUNT_LIMIT) against the way it read
 * them before (every profile evaluated), alternately on the same file (a measurement, not one of
 * the `npm run bench` ratios):
 *
 *   node --import tsx bench/preview.measure.ts [profiles, default 50000] [runs, default 20]
 *
 * Seeds a log of profile traffic through the store's commit path (each commit reads its messages
 * into the profiles, as ingest does): per user an identify (plan, email) and 2 to 8 track calls of
 * three events over the last 60 days; a fifth of the users anonymous only. 50,000 profiles is what
 * the scale benchmark's traffic makes at 10 million messages (5,000 users per million).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InboundMessage } from '../src-shared/events';
import type { JsonValue } from '../src-shared/json';
import { MAX_PREVIEW, type ComputedTraitRule } from '../src-shared/personas';
import { openDatabase } from '../src-main/engine/store/database';
import { createStores } from '../src-main/engine/store/stores';
import type { AcceptedItem } from '../src-main/engine/store/log-store';
import { previewNeeds, valueOf, walkPreview, PREVIEW_COUNT_LIMIT, type PreviewDefinition } from '../src-main/engine/personas/preview';
import { fmt, percentile } from './support/load';

const PROFILES = Number(process.argv[2] ?? 50_000);
const RUNS = Number(process.argv[3] ?? 20);
const DAY = 24 * 3600 * 1000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const EVENTS = ['Order Completed', 'Product Viewed', 'Signed Up'];

function messagesOf(u: number): InboundMessage[] {
  const known = u % 5 !== 4;
  const ids = { userId: known ? `user_${u}` : null, anonymousId: `anon-${u}` };
  const at = (k: number): string => new Date(NOW - ((u * 7 + k * 13) % 60) * DAY - k * 1000).toISOString();
  const out: InboundMessage[] = [];
  out.push({ type: 'identify', messageId: `i-${u}`, ...ids, traits: { plan: ['free', 'pro', 'team'][u % 3], email: `user_${u}@example.com` }, context: {}, integrations: {}, timestamp: at(0), receivedAt: at(0) } as InboundMessage);
  const tracks = 2 + (u % 7);
  for (let k = 1; k <= tracks; k++) {
    const event = EVENTS[(u + k) % (k % 4 === 0 ? 3 : 2)] as string;
    out.push({ type: 'track', messageId: `t-${u}-${k}`, ...ids, event, properties: { product_id: `sku-${(u * k) % 977}`, revenue: k }, context: {}, integrations: {}, timestamp: at(k), receivedAt: at(k) } as InboundMessage);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'hookbench-preview-measure-'));
const db = openDatabase(join(dir, 'hookbench.sqlite'));
try {
  const stores = createStores(db);
  const sourceId = stores.config.upsertSource({ name: 'app', writeKey: 'wk_preview' }, NOW).id;
  const t0 = performance.now();
  let messages = 0;
  let pending: InboundMessage[] = [];
  const flush = (): void => {
    const items: AcceptedItem[] = pending.map((message) => ({ message, json: JSON.stringify(message), destinationIds: [] }));
    stores.log.commitRequest({ sourceId, path: '/v1/batch', receivedAt: NOW, httpStatus: 200, bytes: 0, userAgent: null }, sourceId, items, [], 1);
    messages += pending.length;
    pending = [];
  };
  for (let u = 0; u < PROFILES; u++) {
    pending.push(...messagesOf(u));
    if (pending.length >= 1000) flush();
  }
  if (pending.length > 0) flush();
  const profileCount = (db.prepare('SELECT COUNT(*) AS n FROM persona_profiles').get() as { n: number }).n;
  console.log(`preview  ${fmt(profileCount)} profiles from ${fmt(messages)} messages, seeded in ${fmt((performance.now() - t0) / 1000)} s; ${RUNS} runs each, alternating`);

  const profiles = stores.profiles;
  const none = new Map<string, ComputedTraitRule>();
  /** The preview as it read before: every profile evaluated, the first MAX_PREVIEW members shown. */
  const before = (d: PreviewDefinition): number => {
    const all = profiles.snapshots(previewNeeds(d, none), NOW);
    const members: { id: string; value: JsonValue }[] = [];
    for (const s of all) {
      const v = valueOf(d, none, s, NOW);
      if (v !== undefined) members.push({ id: s.profileId, value: v });
    }
    profiles.linkedIds(members.slice(0, MAX_PREVIEW).map((m) => m.id));
    return members.length;
  };
  const after = (d: PreviewDefinition): string => {
    const w = walkPreview(d, none, profiles, NOW, { show: MAX_PREVIEW });
    profiles.linkedIds(w.shown.map((m) => m.snapshot.profileId));
    return `${fmt(w.total)}${w.capped ? '+' : ''}`;
  };
  const cases: [string, PreviewDefinition][] = [
    ['Order Completed ≥ 2 in 30 days', { condition: { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 } }],
    ['event and trait (Order Completed ≥ 2, plan = pro)', { condition: { kind: 'and', all: [{ kind: 'event', event: 'Order Completed', atLeast: 2 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] } }],
    ['computed trait (last property)', { rule: { kind: 'last_property', event: 'Product Viewed', property: 'product_id' } }],
    ['Signed Up in the last 3 days', { condition: { kind: 'event', event: 'Signed Up', withinDays: 3 } }],
    ['plan = team or Signed Up ≥ 3', { condition: { kind: 'or', any: [{ kind: 'trait', trait: 'plan', op: 'equals', value: 'team' }, { kind: 'event', event: 'Signed Up', atLeast: 3 }] } }],
    ['plan not free (a SQL probe per profile, stops at the limit)', { condition: { kind: 'trait', trait: 'plan', op: 'not_equals', value: 'free' } }],
    ['email not set (a SQL probe per profile, no member: reads them all)', { condition: { kind: 'trait', trait: 'email', op: 'not_exists' } }],
  ];
  const time = (fn: () => unknown): number => {
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  console.log(`| preview (${fmt(profileCount)} profiles) | members | before: median | p99 | after: median | p99 | ratio of medians |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, d] of cases) {
    const b: number[] = [];
    const a: number[] = [];
    const exact = before(d);
    const shown = after(d);
    for (let r = 0; r < RUNS; r++) {
      b.push(time(() => before(d)));
      a.push(time(() => after(d)));
    }
    b.sort((x, y) => x - y);
    a.sort((x, y) => x - y);
    const med = (xs: number[]): number => percentile(xs, 50);
    console.log(
      `| ${name} | ${fmt(exact)} (now ${shown}) | ${fmt(med(b))} ms | ${fmt(percentile(b, 99))} ms | ${fmt(med(a))} ms | ${fmt(percentile(a, 99))} ms | ${(med(b) / med(a)).toFixed(1)}× |`,
    );
  }
  console.log(`(count limit ${fmt(PREVIEW_COUNT_LIMIT)}; "before" evaluates every profile, as the preview did and a sync still does)`);
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
