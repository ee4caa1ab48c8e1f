/** hookbench.json's JSON Schema, generated from the zod schema the engine validates the file with. */
import { z } from 'zod';
import { configSchema } from './config';

export const CONFIG_SCHEMA_PATH = 'schema/hookbench.schema.json';

/** The committed file's exact text: what `npm run schema` writes and the test compares. */
export function configJsonSchemaText(): string {
  // io: 'input' describes what a person writes (defaults are optional there), not what parsing returns.
  const schema = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}
