// Writes dist/deepspeed.schema.json from the zod schema (run by esbuild.mjs after bundling this file).
import * as fs from 'node:fs';
import { deepSpeedJsonSchema } from '../src/analyzers/deepspeed-json/schema';

fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/deepspeed.schema.json', `${JSON.stringify(deepSpeedJsonSchema(), null, 2)}\n`);
