// align-anything's launch line, `deepspeed --module align_anything.trainers.text_to_text.sft --model_name_or_path X
// --per_device_train_batch_size 4 ...` (or the trainer's file run as a script): the trainer reads its own config,
// align_anything/configs/train/<task>/<trainer>.yaml (utils/tools.py read_cfgs), and each `--key value` replaces the
// key of that name in any of its sections (update_dict; `--section:key` names the section). The config is a reference
// the pipeline reads; the options the estimate reads are facts at the line. Source:
// PKU-Alignment/align-anything@3f9decc. Pure: no I/O.
import { msg, type Tool } from '../facts';
import { parseArgs } from './args';
import { type Env, type Field, textOf, unknownOf } from './fields';
import type { FlagSpec } from './flags';
import type { CmdResult, Launch } from './launch';

const MODULE = /^align_anything\.trainers\.((?:\w+\.)*\w+)\.(\w+)$/;
const SCRIPT = /^(.*?)align_anything\/trainers\/((?:\w+\/)*\w+)\/(\w+)\.py$/;

/** The config file a trainer module or script of align-anything reads, or undefined for any other program. */
export function alignAnythingConfig(program: string): string | undefined {
  const m = MODULE.exec(program);
  if (m) return `align_anything/configs/train/${(m[1] ?? '').replace(/\./g, '/')}/${m[2] ?? ''}.yaml`;
  const s = SCRIPT.exec(program);
  return s ? `${s[1] ?? ''}align_anything/configs/train/${s[2] ?? ''}/${s[3] ?? ''}.yaml` : undefined;
}

/**
 * The trainer module that reads a config of align-anything's (`align_anything/configs/train/text_to_text/sft.yaml`:
 * `align_anything.trainers.text_to_text.sft`), which a launch line names instead of the file; undefined for another path.
 */
export function alignAnythingModuleOf(config: string): string | undefined {
  const m = /(?:^|\/)align_anything\/configs\/train\/((?:\w+\/)*\w+)\/(\w+)\.yaml$/.exec(config.replace(/\\/g, '/'));
  return m ? `align_anything.trainers.${(m[1] ?? '').replace(/\//g, '.')}.${m[2] ?? ''}` : undefined;
}

/** The options the estimate reads, by the key they replace. */
const OVERRIDES: Readonly<Record<string, FlagSpec>> = {
  model_name_or_path: { key: 'model', kind: 'str' },
  model_max_length: { key: 'seqLen', kind: 'int' },
  per_device_train_batch_size: { key: 'microBatchSize', kind: 'int' },
  per_device_eval_batch_size: { key: 'evalBatchSize', kind: 'int' },
  gradient_accumulation_steps: { key: 'gradientAccumulationSteps', kind: 'int' },
  bf16: { key: 'bf16', kind: 'bool' },
  fp16: { key: 'fp16', kind: 'bool' },
};

/** `<launcher> <trainer> --key value ...` from fields[at] (the module or script): the config and the options. */
export function alignAnythingLaunch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  config: string,
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  l.tool('align-anything');
  const entry = fields[at];
  if (entry) l.ref('config', config, entry.span);
  // Every option takes one value: main() pairs the words after the module two by two.
  const p = parseArgs(fields, at + 1, () => 'one', false, false, opaque);
  for (const o of p.opts) {
    const name = (o.name.split(':').pop() ?? '').replace(/-/g, '_');
    if (name === 'ds_cfgs') {
      l.r.problems.push({
        code: 'no-effect',
        severity: 'warning',
        ...msg(
          '{0} does not change the DeepSpeed config: align-anything reads it from train_cfgs.ds_cfgs (or the ' +
            'ZERO_STAGE_FILE variable) before the options are applied (utils/tools.py read_cfgs); the estimate reads the config file',
          o.rawKey,
        ),
        span: o.keySpan,
        rawKey: o.rawKey,
      });
      continue;
    }
    const s = OVERRIDES[name];
    if (s) l.spec(s, o, 'align-anything');
  }
  l.r.launcherTool = launcher ?? 'align-anything';
  l.r.training = true;
  return l.r;
}

/**
 * The DeepSpeed file the launch's environment names: read_cfgs takes ZERO_STAGE_FILE over train_cfgs.ds_cfgs
 * (utils/tools.py), so its value (null where not known statically) goes to the config the line's trainer reads.
 */
export function withZeroStageFile(r: CmdResult | undefined, env: Env): CmdResult | undefined {
  const v = env.get('ZERO_STAGE_FILE');
  if (!r || !v?.exported || !r.tools.includes('align-anything')) return r;
  const value = unknownOf(v.pieces) === undefined ? textOf(v.pieces) : null;
  const arg = { name: ZERO_STAGE_FILE, value };
  return {
    ...r,
    refs: r.refs.map((ref) => (ref.kind === 'config' ? { ...ref, args: [...(ref.args ?? []), arg] } : ref)),
  };
}

/** The environment variable that names align-anything's DeepSpeed file, as a config's override. */
export const ZERO_STAGE_FILE = 'ZERO_STAGE_FILE';
