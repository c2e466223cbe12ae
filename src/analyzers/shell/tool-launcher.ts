// What tools that start torchrun themselves share (ms-swift, XTuner): the processes NPROC_PER_NODE and NNODES ask for
// (one without them), and `--deepspeed <preset>` naming a DeepSpeed config the tool ships. Pure: no I/O.
import type { Tool } from '../facts';
import { known, type Opt } from './args';
import type { Env, Field } from './fields';
import { type Launch, type Visible, deepspeedRef, emitVisible, visibleDevices } from './launch';

/** A bundled DeepSpeed config: ZeRO stage, optimizer offload, parameter offload. */
export type DeepspeedPreset = readonly [number, 'none' | 'cpu', 'none' | 'cpu'];

/**
 * `--deepspeed <preset>` (a config the tool ships: its stage and offload) or a path / inline JSON (a DeepSpeed
 * reference). Returns the preset's name when it is one.
 */
export function deepspeedPreset(
  l: Launch,
  o: Opt,
  presets: Readonly<Record<string, DeepspeedPreset>>,
  tool: Tool,
): string | undefined {
  const v = known(o);
  const preset = v !== undefined ? presets[v] : undefined;
  if (!preset || !o.value) {
    deepspeedRef(l, o, tool);
    return undefined;
  }
  l.fact('zeroStage', o.rawKey, o.keySpan, o.value.span, preset[0], tool);
  l.fact('offloadOptimizer', o.rawKey, o.keySpan, o.value.span, preset[1], tool);
  l.fact('offloadParams', o.rawKey, o.keySpan, o.value.span, preset[2], tool);
  return v;
}

/**
 * NPROC_PER_NODE and NNODES, the torchrun the tool starts with them; without NPROC_PER_NODE one process, said at the
 * tool's word. Returns NPROC_PER_NODE's count when the script sets it.
 */
export function toolProcesses(l: Launch, env: Env, word: Field, tool: Tool, note?: string): Visible | undefined {
  const nproc = visibleDevices(env, 'NPROC_PER_NODE');
  const nnodes = visibleDevices(env, 'NNODES');
  if (nnodes) emitVisible(l, nnodes, 'nodes', tool);
  if (nproc) emitVisible(l, nproc, 'gpusPerNode', tool);
  else
    l.r.facts.push({
      key: 'gpusPerNode',
      rawKey: 'NPROC_PER_NODE',
      value: 1,
      rawValue: 'NPROC_PER_NODE unset: one process',
      keySpan: word.span,
      valueSpan: word.span,
      tool,
      origin: 'call-default',
      ...(note ? { defaultNote: note } : {}),
    });
  return nproc;
}
