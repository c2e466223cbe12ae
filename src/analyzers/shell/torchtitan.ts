// torchtitan's launch line: `torchrun ... -m torchtitan.train --job.config_file x.toml --training.local_batch_size 2`
// (its run_train.sh; `train.py` of a checkout before the module entry point). The config file is read as torchtitan's
// TOML (toml/torchtitan.ts); the line's `--table.key value` options override it and are read where they are written.
// Pure: no I/O, no node:*, no 'vscode'.
import { msg } from '../facts';
import { parseArgs } from './args';
import type { Field } from './fields';
import { spec, type FlagSpec } from './flags';
import type { CmdResult, Launch } from './launch';
import type { Tool } from '../facts';

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

/** `<launcher> -m torchtitan.train ...` from fields[at] (the module or script): the config file and the overrides. */
export function torchtitanLaunch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  const p = parseArgs(
    fields,
    at + 1,
    (name) => (TORCHTITAN_FLAGS[name]?.kind === 'bool' ? 'bool' : 'one'),
    false,
    false,
    opaque,
  );
  l.tool('torchtitan');
  for (const o of p.opts) {
    if (o.name === 'job.config_file') {
      if (o.value?.unknown !== undefined)
        l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
      else if (o.value) l.ref('config', o.value.text.trim(), o.value.span);
      continue;
    }
    const s = TORCHTITAN_FLAGS[o.name];
    if (s) l.spec(s, o, 'torchtitan');
  }
  l.r.launcherTool = launcher ?? 'torchtitan';
  l.r.training = true;
  return l.r;
}
