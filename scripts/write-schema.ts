// Regenerates schema/hookbench.schema.json from the config file's zod schema (npm run schema).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA_PATH, configJsonSchemaText } from '../src-main/engine/config-schema';

const path = fileURLToPath(new URL(`../${CONFIG_SCHEMA_PATH}`, import.meta.url));
writeFileSync(path, configJsonSchemaText());
process.stdout.write(`wrote ${CONFIG_SCHEMA_PATH}\n`);
