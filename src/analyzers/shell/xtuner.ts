// XTuner's command line: `NPROC_PER_NODE=8 xtuner train <config>.py --deepspeed deepspeed_zero2`. The config (an
// mmengine Python file, hf-python/xtuner.ts) is followed as the run's script; the processes are torchrun's that
// xtuner starts when NPROC_PER_NODE or NNODES is over 1 (else one process); --deepspeed names one of XTuner's bundled
// presets or a JSON file. Sources: InternLM/xtuner@b934f46 xtuner/entry_point.py, xtuner/tools/train.py,
// xtuner/configs/deepspeed/*.json. Pure: no I/O, no node:*, no 'vscode'.
import { msg, type Tool } from '../facts';
import { parseArgs } from './args';
import type { Env, Field } from './fields';
import type { CmdResult, Launch } from './launch';
import { type DeepspeedPreset, deepspeedPreset, toolProcesses } from './tool-launcher';

/** XTuner's DeepSpeed presets (xtuner/configs/deepspeed/deepspeed_<name>.json): stage, optimizer and parameter offload. */
const DS_PRESETS: Record<string, DeepspeedPreset> = {
  deepspeed_zero1: [1, 'none', 'none'],
  deepspeed_zero2: [2, 'none', 'none'],
  deepspeed_zero2_offload: [2, 'cpu', 'none'],
  deepspeed_zero3: [3, 'none', 'none'],
  deepspeed_zero3_offload: [3, 'cpu', 'cpu'],
};

export const isXtunerTrain = (sub: string | undefined): boolean => sub === 'train';

/** `xtuner train <config> [--deepspeed <preset|path>] ...` from fields[i] (the `xtuner` word). */
export function xtunerLaunch(
  l: Launch,
  fields: readonly Field[],
  i: number,
  env: Env,
  opaque: (f: Field) => void,
): CmdResult {
  l.tool('xtuner');
  trainArgs(l, fields, i + 2, opaque);
  toolProcesses(
    l,
    env,
    fields[i],
    'xtuner',
    'xtuner train runs one process unless NPROC_PER_NODE or NNODES is set (xtuner/entry_point.py)',
  );
  l.r.training = true;
  l.r.launcherTool = 'xtuner';
  return l.r;
}

/**
 * xtuner/tools/train.py run as a module (`torchrun --nproc_per_node 4 -m xtuner.tools.train <config> --deepspeed
 * deepspeed_zero2 --launcher pytorch`, what `xtuner train` starts): the same config and presets, the processes the
 * launcher's (one under `python -m`). `configAt` is the field after the module's name.
 */
export function xtunerModuleLaunch(
  l: Launch,
  fields: readonly Field[],
  configAt: number,
  opaque: (f: Field) => void,
  launcherTool: Tool | undefined,
): CmdResult {
  l.tool('xtuner');
  trainArgs(l, fields, configAt, opaque);
  l.r.training = true;
  l.r.launcherTool = launcherTool;
  return l.r;
}

/** The config file (followed as the run's script) and --deepspeed (a preset or a JSON path) of xtuner's train. */
function trainArgs(l: Launch, fields: readonly Field[], configAt: number, opaque: (f: Field) => void): void {
  const config = fields[configAt];
  if (config?.unknown === undefined && config && /\.py$/.test(config.text.trim()))
    l.r.refs.push({ kind: 'script', path: config.text.trim(), span: config.span, args: [] });
  else if (config)
    l.notStatic(
      config.span,
      msg('{0}: {1}', config.text, "a config bundled with XTuner (or a variable's) is not followed: give its .py path"),
      'config',
    );
  const p = parseArgs(fields, configAt + 1, () => 'one', false, false, opaque);
  const ds = [...p.opts].reverse().find((o) => o.name === 'deepspeed');
  if (ds) deepspeedPreset(l, ds, DS_PRESETS, 'xtuner');
}
