import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONFIG_SCHEMA_PATH, configJsonSchemaText } from './config-schema';
import { parseConfig } from './config';

const root = new URL('../../', import.meta.url);

test(`${CONFIG_SCHEMA_PATH} is what the config schema generates (run npm run schema when this fails)`, () => {
  assert.equal(readFileSync(new URL(CONFIG_SCHEMA_PATH, root), 'utf8'), configJsonSchemaText());
});

test("the README's example config names the schema and is a valid config", () => {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const example = /A config file[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(readme)?.[1];
  assert.ok(example, 'the README has a config example');
  const json = JSON.parse(example) as Record<string, unknown>;
  assert.equal(json.$schema, `./${CONFIG_SCHEMA_PATH}`);
  const config = parseConfig(json);
  assert.equal(config.destinations[0]?.webhooks.length, 1);
  assert.equal('$schema' in config, false, 'the $schema key is accepted and not applied');
});

test('the schema states the limits the engine enforces', () => {
  const schema = JSON.parse(configJsonSchemaText()) as {
    additionalProperties: unknown;
    properties: { destinations: { items: { properties: { webhooks: { maxItems: number } } } }; retention: { properties: { days: { maximum: number } } } };
  };
  assert.equal(schema.additionalProperties, false);
  assert.equal(schema.properties.destinations.items.properties.webhooks.maxItems, 5);
  assert.equal(schema.properties.retention.properties.days.maximum, 3650);
});
