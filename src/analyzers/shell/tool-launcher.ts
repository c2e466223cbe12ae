// What tools that start torchrun themselves share (ms-swift, XTuner): the processes NPROC_PER_NODE and NNODES ask for
// (one without them), and `--deepspeed <preset>` naming a DeepSpeed config the tool ships. Pure: no I/O.
import type { CanonicalKey, Tool } from '../facts';
import { known, type Opt } from './args';
import type { Env, Field } from './fields';
import { type Launch, type Visible, deepspeedRef, emitVisible, visibleDevices } from './launch';

/**
 * A bundled DeepSpeed config: ZeRO stage, optimizer offload, parameter offload, and the file's own bucket settings
 * where the tool's file writes them (its zero_optimization keys; "auto" the Trainer fills from the hidden size).
 */
export type DeepspeedPreset = readonly [number, 'none' | 'cpu', 'none' | 'cpu', PresetZero?];

/** A shipped file's ZeRO bucket settings, by their DeepSpeed key, with where the file is. */
export interface PresetZero {
  readonly file: string;
  readonly settings: Readonly<Partial<Record<keyof typeof BUCKET_KEYS, number | boolean | 'auto'>>>;
}

/** DeepSpeed's zero_optimization keys a preset sets, as the facts a DeepSpeed JSON gives. */
const BUCKET_KEYS = {
  reduce_bucket_size: 'reduceBucketSize',
  allgather_bucket_size: 'allgatherBucketSize',
  stage3_prefetch_bucket_size: 'stage3PrefetchBucketSize',
  stage3_max_live_parameters: 'stage3MaxLiveParameters',
  stage3_max_reuse_distance: 'stage3MaxReuseDistance',
  stage3_param_persistence_threshold: 'stage3ParamPersistenceThreshold',
  sub_group_size: 'subGroupSize',
  overlap_comm: 'zeroOverlapComm',
  contiguous_gradients: 'zeroContiguousGradients',
} as const satisfies Record<string, CanonicalKey>;

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
  if (preset[3]) presetBuckets(l, o, preset[3], tool);
  return v;
}

/** The preset file's bucket settings, each said as the tool's default at the flag (an "auto" one left to the Trainer). */
function presetBuckets(l: Launch, o: Opt, zero: PresetZero, tool: Tool): void {
  const span = o.value!.span;
  for (const [name, v] of Object.entries(zero.settings)) {
    const key = BUCKET_KEYS[name as keyof typeof BUCKET_KEYS];
    l.r.facts.push({
      key,
      rawKey: o.rawKey,
      value: v === 'auto' ? { unknown: `${name} "auto" in ${zero.file}`, fromHiddenSize: true } : v,
      rawValue: o.value!.text,
      keySpan: o.keySpan,
      valueSpan: span,
      tool,
      origin: 'call-default',
      defaultNote: `${name} ${v === 'auto' ? '"auto"' : String(v)} in ${zero.file}, the file ${o.rawKey} names`,
    });
  }
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
