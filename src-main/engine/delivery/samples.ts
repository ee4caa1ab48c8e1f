/**
 * Sample messages for test events: one realistic call of each type, as ingest would have stored it
 * (ids, context, times filled in), so the payload mapping treats it exactly like real traffic. Pure:
 * the time, the ids and the choice among the samples are passed in.
 */
import type { InboundMessage, MessageType } from '../../../src-shared/events';
import type { JsonObject } from '../../../src-shared/json';

export interface SampleInput {
  type: MessageType;
  /** The time the sample is made at (ms since epoch): its timestamps. */
  now: number;
  /** A fresh id each call (messageId, anonymousId). */
  newId(): string;
  /** Picks one of n people and events: 0 ≤ pick(n) < n. */
  pick(n: number): number;
}

interface Person {
  userId: string;
  name: string;
  firstName: string;
  lastName: string;
  email: string;
  plan: string;
  company: { id: string; name: string; industry: string; employees: number };
  ip: string;
  userAgent: string;
  locale: string;
  timezone: string;
}

const PEOPLE: readonly Person[] = [
  {
    userId: 'user_8f3a21',
    name: 'Amara Okafor',
    firstName: 'Amara',
    lastName: 'Okafor',
    email: 'amara.okafor@example.com',
    plan: 'business',
    company: { id: 'org_4471', name: 'Lumen Freight', industry: 'Logistics', employees: 240 },
    ip: '203.0.113.42',
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    locale: 'en-GB',
    timezone: 'Europe/London',
  },
  {
    userId: 'user_2c91d7',
    name: 'Mateo Fernández',
    firstName: 'Mateo',
    lastName: 'Fernández',
    email: 'mateo.fernandez@example.org',
    plan: 'pro',
    company: { id: 'org_1208', name: 'Brisa Studio', industry: 'Design', employees: 18 },
    ip: '198.51.100.17',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    locale: 'es-ES',
    timezone: 'Europe/Madrid',
  },
  {
    userId: 'user_a04be5',
    name: 'Yuki Tanaka',
    firstName: 'Yuki',
    lastName: 'Tanaka',
    email: 'yuki.tanaka@example.net',
    plan: 'starter',
    company: { id: 'org_9932', name: 'Kawa Analytics', industry: 'Software', employees: 65 },
    ip: '192.0.2.88',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    locale: 'ja-JP',
    timezone: 'Asia/Tokyo',
  },
];

const ORDERS: readonly JsonObject[] = [
  {
    orderId: 'ord_50317',
    total: 129.9,
    revenue: 119.9,
    shipping: 10,
    currency: 'EUR',
    products: [
      { productId: 'sku_tee_black_m', name: 'Organic Tee, black', price: 29.95, quantity: 2 },
      { productId: 'sku_cap_navy', name: 'Wool Cap, navy', price: 60, quantity: 1 },
    ],
  },
  {
    orderId: 'ord_50342',
    total: 48,
    revenue: 48,
    shipping: 0,
    currency: 'USD',
    coupon: 'WELCOME10',
    products: [{ productId: 'sku_mug_12oz', name: 'Enamel Mug 12 oz', price: 16, quantity: 3 }],
  },
];

const PAGES: readonly { name: string; category: string; path: string; title: string }[] = [
  { name: 'Pricing', category: 'Marketing', path: '/pricing', title: 'Pricing · Lumen' },
  { name: 'Checkout', category: 'Shop', path: '/checkout', title: 'Checkout · Lumen' },
];

const iso = (ms: number): string => new Date(ms).toISOString();

function contextOf(p: Person, extra: JsonObject = {}): JsonObject {
  return {
    library: { name: 'analytics.js', version: 'next-1.70.0' },
    ip: p.ip,
    userAgent: p.userAgent,
    locale: p.locale,
    timezone: p.timezone,
    ...extra,
  };
}

function traitsOf(p: Person): JsonObject {
  return {
    name: p.name,
    firstName: p.firstName,
    lastName: p.lastName,
    email: p.email,
    plan: p.plan,
    company: { name: p.company.name, id: p.company.id },
  };
}

/** One sample call of the type, as stored by ingest. */
export function sampleMessage(input: SampleInput): InboundMessage {
  const person = PEOPLE[input.pick(PEOPLE.length)] ?? (PEOPLE[0] as Person);
  // The SDK's clock runs a little behind the server's: the same shape as a real call's times.
  const sentAt = input.now - 120;
  const base = {
    messageId: input.newId(),
    userId: person.userId,
    anonymousId: input.newId(),
    integrations: {},
    timestamp: iso(sentAt - 30),
    originalTimestamp: iso(sentAt - 30),
    sentAt: iso(sentAt),
    receivedAt: iso(input.now),
  };
  switch (input.type) {
    case 'track':
      return {
        ...base,
        type: 'track',
        event: 'Order Completed',
        properties: ORDERS[input.pick(ORDERS.length)] ?? {},
        context: contextOf(person, { page: { path: '/checkout/complete', url: 'https://shop.example.com/checkout/complete' } }),
      };
    case 'identify':
      return { ...base, type: 'identify', traits: { ...traitsOf(person), createdAt: '2025-03-14T09:26:53.000Z' }, context: contextOf(person) };
    case 'page': {
      const page = PAGES[input.pick(PAGES.length)] ?? (PAGES[0] as (typeof PAGES)[number]);
      const url = `https://www.example.com${page.path}`;
      return {
        ...base,
        type: 'page',
        name: page.name,
        category: page.category,
        properties: { path: page.path, url, title: page.title, referrer: 'https://www.google.com/', search: '' },
        context: contextOf(person, { page: { path: page.path, url, title: page.title, referrer: 'https://www.google.com/' } }),
      };
    }
    case 'screen':
      return {
        ...base,
        type: 'screen',
        name: 'Order Details',
        category: 'Orders',
        properties: { orderId: 'ord_50317', fromNotification: true },
        context: {
          library: { name: 'analytics-ios', version: '4.1.8' },
          ip: person.ip,
          userAgent: 'Lumen/3.12.0 (iPhone; iOS 17.5; Scale/3.00)',
          locale: person.locale,
          timezone: person.timezone,
          app: { name: 'Lumen', version: '3.12.0', build: '3120' },
          device: { manufacturer: 'Apple', model: 'iPhone15,3', type: 'ios' },
          os: { name: 'iOS', version: '17.5' },
        },
      };
    case 'group':
      return {
        ...base,
        type: 'group',
        groupId: person.company.id,
        traits: { name: person.company.name, industry: person.company.industry, employees: person.company.employees, plan: person.plan },
        context: contextOf(person),
      };
    case 'alias':
      // An alias links the id the person had before signing in to the one they have now.
      return { ...base, type: 'alias', anonymousId: null, previousId: base.anonymousId, context: contextOf(person) };
  }
}
