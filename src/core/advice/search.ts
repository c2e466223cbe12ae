// Search helpers: candidates as chains of moves, their identity and step time, and the bisections for the largest
// micro-batch or sequence that fits and the GPUs needed. Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { Move } from './moves';
import type { AdviceOptions, SetupChange } from './types';
import { estimate, type EstimateOptions } from '../estimate';
import type { Estimate } from '../model';
import { defersGradientSync, type TrainingSetup, TrainingSetupSchema } from '../setup';
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

/** A candidate setup as the run will have it once its changes are written (settledFor). */
export type Settle = (s: TrainingSetup) => TrainingSetup;

/**
 * The setup as the run will have it once a change is written: a change to another ZeRO stage or offload points the
 * run at the DeepSpeed config its quick fix writes, and takes that file's ZeRO settings (AdviceOptions.zeroConfigFor:
 * Axolotl's shipped stage-3 files set no live-parameter limit and "auto" buckets, not DeepSpeed's defaults).
 */
export function settledFor(base: TrainingSetup, opts: AdviceOptions): Settle {
  const configFor = opts.zeroConfigFor;
  if (!configFor) return (s) => s;
  return (s) => {
    if (s.fsdp !== 'none' || s.zero_stage === 0) return s;
    const same =
      s.zero_stage === base.zero_stage &&
      s.offload_optimizer === base.offload_optimizer &&
      s.offload_params === base.offload_params;
    const buckets = same ? undefined : configFor(s.zero_stage, s.offload_optimizer, s.offload_params);
    return buckets ? { ...s, zero_buckets: buckets } : s;
  };
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
  `${s.method}|${s.lora?.r}|${s.lora?.use_dora ? 'dora' : ''}` +
  `|${s.lora ? (s.lora.target_modules === 'all-linear' ? 'all' : s.lora.target_modules.length) : ''}` +
  `|${s.quantization?.bits}${s.quantization?.experts ? 'E' : ''}|${s.weights_dtype}` +
  `|${s.mixed_precision}|${s.master_weights}|${s.optimizer}|` +
  `${s.micro_batch_size}|${s.gradient_accumulation_steps}|${s.seq_len}|${s.gradient_checkpointing}|${s.attention}|${s.loss}|${s.zero_stage}|${s.fsdp}|` +
  `${s.offload_optimizer}|${s.offload_params}|${s.gpus_per_node}|${s.nodes}` +
  `|${s.eval_batch_size}|${s.kbit_upcast}|${s.tiled_mlp}|${s.preference?.reference}` +
  `|${s.torchao_version}|${s.bitsandbytes_version}|${s.checkpoint_reentrant}|${s.fsdp_no_sync}` +
  `|${s.fsdp_state_dict_type}|${s.accelerate_version}|${s.deepspeed_version}` +
  (s.rollout ? `|${s.rollout.batch}|${s.rollout.completion_len}|${s.rollout.reference}|${s.rollout.vllm_sleep}` : '');

/** The step time of a setup as estimated: its trainable parameters and the paged optimizer state left in host RAM. */
export function timeOf(
  setup: TrainingSetup,
  e: Estimate,
  spec: Parameters<typeof stepTime>[2],
  lean = false,
): ReturnType<typeof stepTime> {
  return stepTime(setup, e.parameters.trainable, spec, lean, e.perGpu.pagedToHostBytes);
}

/**
 * Whether a setup fits its GPU (numbers only). Its lower bounds are estimated first (EstimateOptions.reservedLowerBound):
 * a setup that does not fit even on them does not fit, nor one that does not fit on what its step replay's first
 * micro-batch reserves (FSDP's, or the two-step one); the whole replay decides the others.
 */
export function fitsOnGpu(setup: TrainingSetup, opts: EstimateOptions): boolean {
  for (const reservedLowerBound of [true, 'first-micro-batch'] as const) {
    const low = estimate(setup, { ...opts, lean: true, reservedLowerBound });
    if (!low.ok || low.estimate.fits !== true) return false;
    if (!low.estimate.perGpu.reservedLowerBound) return true;
  }
  const r = estimate(setup, { ...opts, lean: true });
  return r.ok && r.estimate.fits === true;
}

/** Largest value of an integer field (micro-batch or sequence length) at which the setup fits, by bisection. */
export function largestFitting(
  setup: TrainingSetup,
  opts: EstimateOptions,
  key: 'micro_batch_size' | 'seq_len',
  lo: number,
  hi: number,
): number | undefined {
  const fits = (v: number): boolean => fitsOnGpu({ ...setup, [key]: v }, opts);
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
 * Sharded gradients under FSDP with accumulation: no_sync would keep every gradient unsharded however many GPUs share
 * the rest, so more GPUs come with a reduce-scatter every micro-batch.
 */
export function syncedGradients(setup: TrainingSetup): Partial<TrainingSetup> {
  return defersGradientSync(setup) ? { fsdp_no_sync: false } : {};
}

/**
 * GPUs needed in total with model states sharded (ZeRO-3 when no sharding is configured; FSDP's gradients reduced
 * every micro-batch), up to maxGpus. A model with bitsandbytes 8-bit layers cannot be sharded (FSDP and ZeRO-3 refuse
 * them): no count.
 */
export function gpusNeeded(setup: TrainingSetup, opts: AdviceOptions): number | undefined {
  if (setup.quantization?.type === 'int8') return undefined;
  const max = opts.maxGpus ?? 1024;
  const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
  const settle = settledFor(setup, opts);
  for (let total = setup.gpus_per_node * setup.nodes; total <= max; total *= 2) {
    const perNode = Math.min(total, 8);
    const s: TrainingSetup = settle({
      ...setup,
      gpus_per_node: perNode,
      nodes: Math.max(1, total / perNode),
      ...(sharded || total === 1 ? {} : { zero_stage: 3 as const }),
      ...syncedGradients(setup),
    });
    if (fitsOnGpu(s, opts)) return total;
  }
  return undefined;
}

/** What the search keeps of a fitting candidate: numbers only; the items shown are estimated again (advice/index.ts). */
export interface Light {
  applied: Applied;
  deviceBytes: number;
  stepTimeFactor: number;
  changesResult: boolean;
  gpus: number;
  nChanges: number;
  nMoves: number;
  /** Place in the search's enumeration of candidates: of two that tie, the earlier is kept, whatever order they come in. */
  order: number;
}

/**
 * The Pareto set of the fitting candidates, kept per group of (changes result, GPUs, number of changes) as the search
 * goes, so dominated candidates are garbage at once.
 */
export class ParetoFront {
  private readonly groups = new Map<string, Light[]>();
  // Pareto dominance: b dominates a when it is at least as good on GPUs, step time, result-changing, device memory
  // and number of changes, and strictly better on one. Memory differences below max(512 MiB, 2 % of the GPU) do not
  // count: an extra change that saves a few hundred MiB more is not worth listing next to the simpler one. Likewise
  // step times within 2 % of the current step (finer than the step-time model can tell): a change that only shaves a
  // fraction of a percent (FlashAttention-2 beside SDPA) does not earn a separate item.
  private readonly memEps: number;
  private readonly stepEps = 0.02;

  constructor(capacity: number | undefined) {
    this.memEps = Math.max(512 * 1024 * 1024, 0.02 * (capacity ?? 0));
  }

  /** Whether b dominates a. */
  dominated(a: Light, b: Light): boolean {
    const { memEps, stepEps } = this;
    return (
      b.gpus <= a.gpus &&
      b.stepTimeFactor <= a.stepTimeFactor + stepEps &&
      (!b.changesResult || a.changesResult) &&
      b.deviceBytes <= a.deviceBytes + memEps &&
      b.nChanges <= a.nChanges &&
      (b.gpus < a.gpus ||
        b.stepTimeFactor < a.stepTimeFactor - stepEps ||
        (a.changesResult && !b.changesResult) ||
        b.deviceBytes < a.deviceBytes - memEps ||
        b.nChanges < a.nChanges)
    );
  }

  /**
   * Whether a candidate judged on lower bounds of its figures is dominated by one already kept, in any group: its
   * exact figures, only larger, would leave it to be dropped by `front()` in the end (or by `add`, within its group).
   * Checking every group spares the replays of candidates that a simpler or cheaper one beats (the FSDP2 first
   * search replays 68 candidates instead of 98). The tolerances are not transitive, so where two items are near
   * equal the one listed can depend on the order candidates are judged in.
   */
  rejects(c: Light): boolean {
    for (const g of this.groups.values()) if (g.some((b) => this.dominated(c, b))) return true;
    return false;
  }

  /** A fitting candidate: kept unless one of its group dominates it or ties with it in fewer moves. */
  add(c: Light): void {
    const { groups, memEps, stepEps } = this;
    const dominated = (a: Light, b: Light): boolean => this.dominated(a, b);
    // Keep only the Pareto set of each group as the search goes, so dominated candidates are garbage at once.
    const k = `${c.changesResult}|${c.gpus}|${c.nChanges}`;
    const g = groups.get(k);
    if (!g) {
      groups.set(k, [c]);
      return;
    }
    // Candidates that tie within the tolerances on every count (8-bit AdamW and its paged variant when nothing is
    // paged, or one setup reached by a longer chain of moves) are one item: the one of fewest moves, else the earlier
    // in the search's enumeration.
    const tie = (b: Light): boolean =>
      Math.abs(b.stepTimeFactor - c.stepTimeFactor) <= stepEps && Math.abs(b.deviceBytes - c.deviceBytes) <= memEps;
    if (g.some((b) => dominated(c, b))) return;
    const tied = g.findIndex(tie);
    if (tied >= 0) {
      const kept = g[tied];
      if (c.nMoves < kept.nMoves || (c.nMoves === kept.nMoves && c.order < kept.order)) g[tied] = c;
      return;
    }
    const rest = g.filter((b) => !dominated(b, c));
    rest.push(c);
    groups.set(k, rest);
  }

  /** The candidates no other dominates (across groups: each group already holds only its own Pareto set). */
  front(): Light[] {
    const dominated = (a: Light, b: Light): boolean => this.dominated(a, b);
    const survivors: Light[] = [...this.groups.values()].flat();
    return survivors.filter((a) => !survivors.some((b) => b !== a && dominated(a, b)));
  }
}

/** Singles, pairs and triples of moves from different groups, each chain handed to `visit`; each prefix is applied once and reused. */
export function forEachChain(
  setup: TrainingSetup,
  all: readonly Move[],
  maxK: number,
  consider: (applied: Applied) => void,
  settle: Settle = (s) => s,
): void {
  const n = all.length;
  const root: Applied = { setup: everyKey(setup) };
  const step = (from: Applied, mv: Move): Applied | undefined => {
    const patch = mv.apply(from.setup);
    if (!patch) return undefined;
    return { setup: settle(patched(from.setup, patch)), parent: from, move: mv, patch };
  };
  for (let i = 0; i < n; i++) {
    const si = step(root, all[i]);
    if (!si) continue;
    consider(si);
    if (maxK < 2) continue;
    for (let j = i + 1; j < n; j++) {
      if (all[j].group === all[i].group) continue;
      const sij = step(si, all[j]);
      if (!sij) continue;
      consider(sij);
      if (maxK < 3) continue;
      for (let k = j + 1; k < n; k++) {
        if (all[k].group === all[i].group || all[k].group === all[j].group) continue;
        const sijk = step(sij, all[k]);
        if (sijk) consider(sijk);
      }
    }
  }
}

/** Every key of the setup schema, in the schema's order. */
const SETUP_KEYS = Object.keys(TrainingSetupSchema.shape) as (keyof TrainingSetup)[];

/**
 * The setup with every schema key present (undefined where unset), in one order: the candidates copied from it and
 * patched in place all share one shape, so V8 copies them on its fast path and every property read of the estimator
 * sees one shape instead of one per combination of moves (a spread of differently shaped setups was a seventh of the
 * search). An absent key and an undefined one read the same everywhere a setup is read.
 */
export function everyKey(setup: TrainingSetup): TrainingSetup {
  const out: Record<string, unknown> = {};
  for (const k of SETUP_KEYS) out[k] = setup[k];
  for (const k in setup) if (!(k in out)) out[k] = setup[k as keyof TrainingSetup];
  return out as TrainingSetup;
}

/** A copy of a setup of that one shape with a patch written over it: no key added, so the shape stays. */
function patched(setup: TrainingSetup, patch: Partial<TrainingSetup>): TrainingSetup {
  const out: Record<string, unknown> = { ...setup };
  for (const k in patch) out[k] = patch[k as keyof TrainingSetup];
  return out as TrainingSetup;
}
