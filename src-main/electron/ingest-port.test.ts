import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { listenPreferring } from './ingest-port';

const listenOn = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const portOf = (server: Server): number => (server.address() as AddressInfo).port;
const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

test('a free preferred port is used as it is', async () => {
  const probe = await listenOn(0);
  const free = portOf(probe);
  await close(probe);
  const bound = await listenPreferring(listenOn, free);
  try {
    assert.equal(portOf(bound.value), free);
    assert.equal(bound.fellBack, null);
  } finally {
    await close(bound.value);
  }
});

test('a taken preferred port falls back to a free one and says why', async () => {
  const holder = await listenOn(0);
  const taken = portOf(holder);
  try {
    const bound = await listenPreferring(listenOn, taken);
    try {
      assert.notEqual(portOf(bound.value), taken);
      assert.equal(bound.fellBack, `port ${taken} is in use by another program`);
    } finally {
      await close(bound.value);
    }
  } finally {
    await close(holder);
  }
});

test('other failures are not hidden behind a fallback', async () => {
  const failing = (): Promise<Server> => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
  await assert.rejects(listenPreferring(failing, 4545), /ENOTFOUND/);
});
