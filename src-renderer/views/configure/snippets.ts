/**
 * Ready-to-paste code that points an SDK at this Hookbench: analytics-node, analytics-go and curl.
 * Strings are embedded with JSON.stringify (a valid JS and Go literal); the write key's alphabet
 * (letters, digits, _ - . :) is safe inside shell single quotes.
 */
export interface Snippets {
  node: string;
  go: string;
  curl: string;
}

/** Shown in place of the address while the engine is not listening yet. */
export const INGEST_PLACEHOLDER = 'http://127.0.0.1:PORT';

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

export function snippetsFor(ingestUrl: string | null, writeKey: string): Snippets {
  const host = (ingestUrl ?? INGEST_PLACEHOLDER).replace(/\/+$/, '');
  const key = JSON.stringify(writeKey);
  const node = [
    `import { Analytics } from '@segment/analytics-node';`,
    ``,
    `const analytics = new Analytics({ writeKey: ${key}, host: ${JSON.stringify(host)} });`,
    `analytics.track({ userId: 'user_1', event: 'Signed Up', properties: { plan: 'pro' } });`,
    `await analytics.closeAndFlush();`,
  ].join('\n');
  const go = [
    `import "github.com/segmentio/analytics-go/v3"`,
    ``,
    `client, err := analytics.NewWithConfig(${key}, analytics.Config{Endpoint: ${JSON.stringify(host)}})`,
    `if err != nil {`,
    `\tpanic(err)`,
    `}`,
    `defer client.Close()`,
    `client.Enqueue(analytics.Track{UserId: "user_1", Event: "Signed Up", Properties: analytics.NewProperties().Set("plan", "pro")})`,
  ].join('\n');
  const curl = [
    `curl ${shellQuote(`${host}/v1/track`)} \\`,
    `  -u ${shellQuote(`${writeKey}:`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"userId":"user_1","event":"Signed Up","properties":{"plan":"pro"}}'`,
  ].join('\n');
  return { node, go, curl };
}
