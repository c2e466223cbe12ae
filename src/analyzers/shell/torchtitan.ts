// torchtitan's launch line: `torchrun ... -m torchtitan.train --job.config_file x.toml --training.local_batch_size 2`
// (its run_train.sh; `train.py` of a checkout before the module entry point). The config file is read as torchtitan's
// TOML (toml/torchtitan.ts); the line's `--table.key value` options override it and are read where they are written.
// Pure: no I/O, no node:*, no 'vscode'.
import type { ConfigLaunch } from './config-launch';
import type { Field } from './fields';
import { spec, type FlagSpec } from './flags';

/** torchtitan's entry: the module `torchtitan.train`, or its `train.py` run with `--job.config_file`. */
export function isTorchtitanEntry(script: string, fields: readonly Field[], from: number): boolean {
  if (/^torchtitan\.train$/.test(script) || /(^|\/)torchtitan\/train\.py$/.test(script)) return true;
  return /(^|\/)train\.py$/.test(script) && fields.slice(from).some((f) => /^--job\.config[_-]file(=|$)/.test(f.text));
}

const count = (key: Parameters<typeof spec>[0]): FlagSpec => spec(key, 'int');
/** The options of the job config the estimate reads, by their dotted names (both layouts). */
const TORCHTITAN_FLAGS: Readonly<Record<string, FlagSpec>> = {
  'training.local_batch_size': count('microBatchSize'),
  'training.batch_size': count('microBatchSize'),
  'training.global_batch_size': count('trainBatchSize'),
  'training.seq_len': count('seqLen'),
  'training.enable_cpu_offload': spec('fsdpOffload', 'bool'),
  'parallelism.tensor_parallel_degree': count('tensorParallel'),
  'training.tensor_parallel_degree': count('tensorParallel'),
  'parallelism.pipeline_parallel_degree': count('pipelineParallel'),
  'experimental.pipeline_parallel_degree': count('pipelineParallel'),
  'parallelism.context_parallel_degree': count('contextParallel'),
  'compile.enable': spec('compile', 'bool'),
  'training.compile': spec('compile', 'bool'),
};

/** torchtitan's launch line: its `--job.config_file` and its `--table.key value` overrides. */
export const TORCHTITAN_LAUNCH: ConfigLaunch = {
  tool: 'torchtitan',
  configOptions: ['job.config_file'],
  overrides: TORCHTITAN_FLAGS,
  kv: false,
};
