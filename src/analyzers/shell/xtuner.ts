// XTuner's command line: `NPROC_PER_NODE=8 xtuner train <config>.py --deepspeed deepspeed_zero2`. The config (an
// mmengine Python file, hf-python/xtuner.ts) is followed as the run's script; the processes are torchrun's that
// xtuner starts when NPROC_PER_NODE or NNODES is over 1 (else one process); --deepspeed names one of XTuner's bundled
// presets or a JSON file. Sources: InternLM/xtuner@b934f46 xtuner/entry_point.py, xtuner/tools/train.py,
// xtuner/configs/deepspeed/*.json. Pure: no I/O, no node:*, no 'vscode'.
import { msg } from '../facts';
import { known, parseArgs, type Opt } from './args';
import type { Env, Field } from './fields';
import { type CmdResult, type Launch, deepspeedRef, emitVisible, visibleDevices } from './launch';

/** XTuner's DeepSpeed presets (xtuner/configs/deepspeed/deepspeed_<name>.json): stage, optimizer and parameter offload. */
const DS_PRESETS: Record<string, readonly [number, 'none' | 'cpu', 'none' | 'cpu']> = {
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
  const config = fields[i + 2];
  if (config?.unknown === undefined && config && /\.py$/.test(config.text.trim()))
    l.r.refs.push({ kind: 'script', path: config.text.trim(), span: config.span, args: [] });
  else if (config)
    l.notStatic(
      config.span,
      msg('{0}: {1}', config.text, "a config bundled with XTuner (or a variable's) is not followed: give its .py path"),
      'config',
    );
  const p = parseArgs(fields, i + 3, () => 'one', false, false, opaque);
  const ds = [...p.opts].reverse().find((o) => o.name === 'deepspeed');
  if (ds) deepspeedFlag(l, ds);
  worldFacts(l, env, fields[i]);
  l.r.training = true;
  l.r.launcherTool = 'xtuner';
  return l.r;
}

/** `--deepspeed deepspeed_zero2` (one of XTuner's presets) or a path to a DeepSpeed JSON. */
function deepspeedFlag(l: Launch, o: Opt): void {
  const v = known(o);
  const preset = v !== undefined ? DS_PRESETS[v] : undefined;
  if (!preset || !o.value) return deepspeedRef(l, o, 'xtuner');
  l.fact('zeroStage', o.rawKey, o.keySpan, o.value.span, preset[0], 'xtuner');
  l.fact('offloadOptimizer', o.rawKey, o.keySpan, o.value.span, preset[1], 'xtuner');
  l.fact('offloadParams', o.rawKey, o.keySpan, o.value.span, preset[2], 'xtuner');
}

/** NPROC_PER_NODE and NNODES, torchrun's when xtuner starts it (entry_point.py); unset, one process. */
function worldFacts(l: Launch, env: Env, word: Field): void {
  const nproc = visibleDevices(env, 'NPROC_PER_NODE');
  const nnodes = visibleDevices(env, 'NNODES');
  if (nnodes) emitVisible(l, nnodes, 'nodes', 'xtuner');
  if (nproc) emitVisible(l, nproc, 'gpusPerNode', 'xtuner');
  else
    l.r.facts.push({
      key: 'gpusPerNode',
      rawKey: 'NPROC_PER_NODE',
      value: 1,
      rawValue: 'NPROC_PER_NODE unset: one process',
      keySpan: word.span,
      valueSpan: word.span,
      tool: 'xtuner',
      origin: 'call-default',
      defaultNote: 'xtuner train runs one process unless NPROC_PER_NODE or NNODES is set (xtuner/entry_point.py)',
    });
}
