// A trainer's launch line that names its config file with one option and overrides the config's keys by name
// (torchtitan's `--job.config_file x.toml --training.seq_len 8192`, NeMo-RL's `--config x.yaml policy.model_name=...`):
// the config is a reference the pipeline reads, each override the estimate reads a fact at the line. Pure: no I/O.
import { msg, type Tool } from '../facts';
import { parseArgs } from './args';
import type { Field } from './fields';
import type { FlagSpec } from './flags';
import type { CmdResult, Launch } from './launch';

export interface ConfigLaunch {
  readonly tool: Tool;
  /** The options that name the config file, without dashes (`job.config_file`, `config`, `c`). */
  readonly configOptions: readonly string[];
  /** The overrides the estimate reads, by their dotted names. */
  readonly overrides: Readonly<Record<string, FlagSpec>>;
  /** Whether overrides are `key=value` words (OmegaConf / Hydra) rather than `--key value` options. */
  readonly kv: boolean;
  /** A word the config file follows instead of an option (prime-rl's `rl @ rl.toml`, pydantic-config's `@`). */
  readonly configAfter?: string;
  /** Whether an override's name may write `-` for `_` (pydantic-config's `--trainer.model.seq-len`). */
  readonly dashes?: boolean;
}

/** `<launcher> <entry> ...` from fields[at] (the module or script): the config file and the overrides. */
export function configLaunch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
  c: ConfigLaunch,
): CmdResult {
  const consume = (name: string) => (c.overrides[name]?.kind === 'bool' ? ('bool' as const) : ('one' as const));
  l.tool(c.tool);
  // `<entry> @ file`: the file is the word after the marker, the overrides after it.
  const file = c.configAfter !== undefined && fields[at + 1]?.text === c.configAfter ? fields[at + 2] : undefined;
  if (file?.unknown === undefined && file) l.ref('config', file.text, file.span);
  const p = parseArgs(fields, file ? at + 3 : at + 1, consume, false, c.kv, opaque);
  for (const o of p.opts) {
    if (c.configOptions.includes(o.name)) {
      if (o.value?.unknown !== undefined)
        l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
      else if (o.value) l.ref('config', o.value.text.trim(), o.value.span);
      continue;
    }
    // `+key=value` adds a key in OmegaConf's and Hydra's override grammar: the same key here.
    const name = o.name.replace(/^\++/, '');
    const s = c.overrides[c.dashes ? name.replace(/-/g, '_') : name];
    if (s) l.spec(s, o, c.tool);
  }
  l.r.launcherTool = launcher ?? c.tool;
  l.r.training = true;
  return l.r;
}

const count = (key: FlagSpec['key']): FlagSpec => ({ key, kind: 'int' });
/** AutoTrain's line: `autotrain --config x.yml` (autotrain/cli/autotrain.py: the config runs as AutoTrainConfigParser reads it). */
export const AUTOTRAIN_LAUNCH: ConfigLaunch = {
  tool: 'autotrain',
  configOptions: ['config'],
  overrides: {},
  kv: false,
};

/** Ludwig's line: `ludwig train --config x.yaml --dataset d.csv` (ludwig/train.py cli: `-c` / `--config`). */
export const LUDWIG_LAUNCH: ConfigLaunch = {
  tool: 'ludwig',
  configOptions: ['c', 'config'],
  overrides: {},
  kv: false,
};

/**
 * Oumi's line: `oumi train -c x.yaml`, `oumi distributed torchrun -m oumi train -c x.yaml`, with `--section.key value`
 * overrides of its config (oumi/cli/train.py; oumi-ai/oumi@d8ed077).
 */
export const OUMI_LAUNCH: ConfigLaunch = {
  tool: 'oumi',
  configOptions: ['c', 'config'],
  overrides: {
    'model.model_name': { key: 'model', kind: 'str' },
    'model.model_max_length': count('seqLen'),
    'training.per_device_train_batch_size': count('microBatchSize'),
    'training.gradient_accumulation_steps': count('gradientAccumulationSteps'),
  },
  kv: false,
};
