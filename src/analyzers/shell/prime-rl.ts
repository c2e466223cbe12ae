// prime-rl's launch line: `uv run rl @ configs/x/rl.toml`, `uv run sft @ sft.toml` (pydantic-config reads the file
// after `@`), with `--section.key value` overrides of it (`--trainer.model.seq-len 4096`: dashes or underscores). The
// TOML is a config the pipeline reads (toml/prime-rl.ts); the overrides the estimate reads are facts at the line.
// Source: PrimeIntellect-ai/prime-rl@559b447 README.md, packages/prime-rl-configs. Pure: no I/O.
import type { ConfigLaunch } from './config-launch';
import type { Field } from './fields';
import type { FlagSpec } from './flags';

const count = (key: FlagSpec['key']): FlagSpec => ({ key, kind: 'int' });

/** The overrides read, by their dotted names with underscores. */
const OVERRIDES: Readonly<Record<string, FlagSpec>> = {
  'model.name': { key: 'model', kind: 'str' },
  'trainer.model.name': { key: 'model', kind: 'str' },
  'trainer.model.seq_len': count('seqLen'),
  seq_len: count('seqLen'),
  'data.seq_len': count('seqLen'),
  'data.micro_batch_size': count('microBatchSize'),
  'deployment.num_train_gpus': count('gpusPerNode'),
  'trainer.model.lora.rank': count('loraR'),
  'model.lora.rank': count('loraR'),
};

/** Whether fields[i] starts prime-rl's `rl @ file` / `sft @ file`. */
export function isPrimeRlLaunch(fields: readonly Field[], i: number): boolean {
  const cmd = fields[i]?.text;
  return (cmd === 'rl' || cmd === 'sft') && fields[i + 1]?.text === '@' && fields[i + 2] !== undefined;
}

/** prime-rl's line: the config after `@`, the overrides read at the line. */
export const PRIME_RL_LAUNCH: ConfigLaunch = {
  tool: 'prime-rl',
  configOptions: [],
  overrides: OVERRIDES,
  kv: false,
  configAfter: '@',
  dashes: true,
};
