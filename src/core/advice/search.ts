// Search helpers: candidates as chains of moves, their identity and step time, and the bisections for the largest
// micro-batch or sequence that fits and the GPUs needed. Pure; no I/O.
import type { Move } from './moves';
import type { AdviceOptions, SetupChange } from './types';
import { estimate, type EstimateOptions } from '../estimate';
import type { Estimate } from '../model';
import type { TrainingSetup } from '../setup';
import { stepTime } from '../step-time';

/**
 * A candidate: the setup after a chain of moves. The chain is a parent link (the search shares prefixes), so a
 * candidate costs one object; the lists of moves and patches are built only for the candidates that are kept.
 */
export interface Applied {
  readonly setup: TrainingSetup;
  readonly parent?: Applied;
  readonly move?: Move;
  readonly patch?: Partial<TrainingSetup>;
}

/** The moves and patches of a candidate, first applied first. */
export function chain(a: Applied): { moves: Move[]; patches: Partial<TrainingSetup>[] } {
  const moves: Move[] = [];
  const patches: Partial<TrainingSetup>[] = [];
  for (let c: Applied | undefined = a; c?.move && c.patch; c = c.parent) {
    moves.unshift(c.move);
    patches.unshift(c.patch);
  }
  return { moves, patches };
}

export function changesOf(patches: readonly Partial<TrainingSetup>[]): SetupChange[] {
  const m = new Map<keyof TrainingSetup, unknown>();
  for (const p of patches) for (const [k, v] of Object.entries(p)) m.set(k as keyof TrainingSetup, v);
  return [...m].map(([key, value]) => ({ key, value }));
}

/** Identity of a candidate setup for de-duplication (the fields the moves change). */
export const signature = (s: TrainingSetup): string =>
  `${s.method}|${s.lora?.r}|${s.lora?.use_dora ? 'dora' : ''}|${s.lora ? (s.lora.target_modules === 'all-linear' ? 'all' : s.lora.target_modules.length) : ''}|${s.quantization?.bits}${s.quantization?.experts ? 'E' : ''}|${s.weights_dtype}|${s.mixed_precision}|${s.master_weights}|${s.optimizer}|`
  + `${s.micro_batch_size}|${s.gradient_accumulation_steps}|${s.seq_len}|${s.gradient_checkpointing}|${s.attention}|${s.loss}|${s.zero_stage}|${s.fsdp}|`
  + `${s.offload_optimizer}|${s.offload_params}|${s.gpus_per_node}|${s.nodes}|${s.eval_batch_size}|${s.kbit_upcast}|${s.tiled_mlp}|${s.preference?.reference}|${s.torchao_version}`
  + (s.rollout ? `|${s.rollout.batch}|${s.rollout.completion_len}|${s.rollout.reference}|${s.rollout.vllm_sleep}` : '');

/** The step time of a setup as estimated: its trainable parameters and the paged optimizer state left in host RAM. */
export function timeOf(setup: TrainingSetup, e: Estimate, spec: Parameters<typeof stepTime>[2], lean = false): ReturnType<typeof stepTime> {
  return stepTime(setup, e.parameters.trainable, spec, lean, e.perGpu.pagedToHostBytes);
}

/** Largest value of an integer field (micro-batch or sequence length) at which the setup fits, by bisection. */
export function largestFitting(setup: TrainingSetup, opts: EstimateOptions, key: 'micro_batch_size' | 'seq_len', lo: number, hi: number): number | undefined {
  const fits = (v: number): boolean => {
    const r = estimate({ ...setup, [key]: v }, { ...opts, lean: true });
    return r.ok && r.estimate.fits === true;
  };
  if (!fits(lo)) return undefined;
  let good = lo;
  let bad = hi + 1;
  // Exponential search, then bisection.
  let probe = lo * 2;
  while (probe <= hi && fits(probe)) {
    good = probe;
    probe *= 2;
  }
  bad = Math.min(bad, probe);
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/**
 * GPUs needed in total with model states sharded (ZeRO-3 when no sharding is configured), up to maxGpus. A model with
 * bitsandbytes 8-bit layers cannot be sharded (FSDP and ZeRO-3 refuse them): no count.
 */
export function gpusNeeded(setup: TrainingSetup, opts: AdviceOptions): number | undefined {
  if (setup.quantization?.type === 'int8') return undefined;
  const max = opts.maxGpus ?? 1024;
  const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
  for (let total = setup.gpus_per_node * setup.nodes; total <= max; total *= 2) {
    const perNode = Math.min(total, 8);
    const s: TrainingSetup = { ...setup, gpus_per_node: perNode, nodes: Math.max(1, total / perNode), ...(sharded || total === 1 ? {} : { zero_stage: 3 as const }) };
    const r = estimate(s, { ...opts, lean: true });
    if (r.ok && r.estimate.fits) return total;
  }
  return undefined;
}
