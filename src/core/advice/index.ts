// The advice engine: searches the changes a practitioner would make (precision, checkpointing, attention,
// ZeRO/FSDP, offload, 8-bit optimizers, LoRA/QLoRA, micro-batch vs accumulation, sequence length, more GPUs,
// and pairs/triples of them), estimates each, prices it with the step-time model, and returns the Pareto set
// of changes that fit, cheapest first. Also answers the largest micro-batch / sequence that fits and how many
// GPUs are needed. Pure; no I/O.
// Docs: docs/estimate/advice.md
import { applyAll, moves } from './moves';
import {
  type Applied,
  chain,
  changesOf,
  forEachChain,
  gpusNeeded,
  largestFitting,
  type Light,
  ParetoFront,
  signature,
  timeOf,
  settledFor,
  syncedGradients,
} from './search';
import type { AdviceItem, AdviceOptions, AdviceResult, SetupChange } from './types';
import { estimate, type EstimateOptions } from '../estimate';
import type { Estimate } from '../model';
import type { TrainingSetup } from '../setup';
import type { StepTime } from '../step-time';
export { type SetupChange, type AdviceItem, type AdviceResult, type AdviceOptions } from './types';
export { largestFitting, gpusNeeded } from './search';

/**
 * What an estimate needs of the GPU for the advice: its device bytes less the layers ZeRO-3's CPU lead keeps gathered
 * (terms/zero3-launch-lead.ts), which come and go with the GPU's speed against the CPU's and which the allocator frees
 * before it reports out of memory: a move that only makes the step CPU-bound saves nothing the fit needs.
 */
export function neededBytes(e: Estimate): number {
  return e.perGpu.deviceBytes - (e.perGpu.runtime.find((t) => t.id === 'zero3-launch-lead')?.bytes ?? 0);
}

/** Advice for a setup on a GPU: the fitting changes, cheapest first. */
export function advise(setup: TrainingSetup, opts: AdviceOptions = {}): AdviceResult | undefined {
  const cur = estimate(setup, opts);
  if (!cur.ok) return undefined;
  const current = cur.estimate;
  const spec = opts.gpuSpec;
  const currentStep = timeOf(setup, current, spec);
  const capacity = opts.gpu?.memoryBytes;
  const all = moves(setup, spec?.bf16 ?? true);
  const maxK = Math.max(1, Math.min(3, opts.maxCombination ?? 3));
  const paretoFront = new ParetoFront(capacity);
  const lean: EstimateOptions = { ...opts, lean: true };
  const bound: EstimateOptions = { ...lean, reservedLowerBound: true };
  const firstMicroBatch: EstimateOptions = { ...lean, reservedLowerBound: 'first-micro-batch' };
  let evaluated = 0;

  /** The candidate as the front sees it, or undefined when it does not fit or saves nothing. */
  const lightOf = (applied: Applied, e: Estimate, order: number): Light | undefined => {
    if ((capacity !== undefined && e.fits !== true) || neededBytes(current) - neededBytes(e) <= 0) return;
    const st = timeOf(applied.setup, e, spec, true);
    const keys = new Set<string>();
    let changesResult = false;
    let nMoves = 0;
    for (let a: Applied | undefined = applied; a?.move && a.patch; a = a.parent) {
      for (const k in a.patch) keys.add(k);
      changesResult ||= a.move.changesResult;
      nMoves++;
    }
    return {
      applied,
      deviceBytes: neededBytes(e),
      stepTimeFactor: currentStep.seconds > 0 ? st.seconds / currentStep.seconds : 1,
      changesResult,
      gpus: applied.setup.gpus_per_node * applied.setup.nodes,
      nChanges: keys.size,
      nMoves,
      order,
    };
  };
  // A candidate whose step replay is skipped is first judged on lower bounds of its memory and step time: one
  // that does not fit, saves nothing or is dominated even so is left out, as it would be after the replay (each test
  // only grows stricter as the figures grow). The others wait until every candidate has been seen, then are replayed
  // fastest first: each is then judged against every faster candidate's exact figures, the most it can be ruled out by,
  // first on what its replay's first micro-batch reserves (closer bounds, FSDP's and the two-step replay's), then on
  // its whole replay, which goes on from there.
  const awaitingReplay: Light[] = [];
  const consider = (applied: Applied): void => {
    const order = evaluated++;
    const r = estimate(applied.setup, bound);
    if (!r.ok) return;
    const c = lightOf(applied, r.estimate, order);
    if (!c) return;
    if (r.estimate.perGpu.reservedLowerBound) awaitingReplay.push(c);
    else paretoFront.add(c);
  };
  forEachChain(setup, all, maxK, consider, settledFor(setup, opts));
  awaitingReplay.sort(
    (x, y) => x.stepTimeFactor - y.stepTimeFactor || x.deviceBytes - y.deviceBytes || x.order - y.order,
  );
  for (const low of awaitingReplay) {
    if (paretoFront.rejects(low)) continue;
    const first = estimate(low.applied.setup, firstMicroBatch);
    if (!first.ok) continue;
    let c = lightOf(low.applied, first.estimate, low.order);
    if (c && first.estimate.perGpu.reservedLowerBound) {
      if (paretoFront.rejects(c)) continue;
      const r = estimate(low.applied.setup, lean);
      if (!r.ok) continue;
      c = lightOf(low.applied, r.estimate, low.order);
    }
    if (c) paretoFront.add(c);
  }
  const items = shownItems(setup, opts, current, paretoFront.front());

  const result: { maxMicroBatch?: number; maxSeqLen?: number; gpusNeeded?: number } = {};
  if (capacity !== undefined) {
    result.maxMicroBatch = largestFitting(setup, opts, 'micro_batch_size', 1, 1024);
    result.maxSeqLen = largestFitting(setup, opts, 'seq_len', 128, 1 << 20);
    result.gpusNeeded = gpusNeeded(setup, opts);
    evaluated += 40;
    const more = moreGpusItem(setup, opts, current, currentStep, result.gpusNeeded, items);
    if (more) items.push(more);
  }
  return { current, currentStep, items, evaluated, ...result };
}

/**
 * The items shown, cheapest first, estimated again for their figures (their full estimates when read). Different move chains can reach
 * the same setup; the search does not de-duplicate as it goes (a signature per candidate costs more than the few
 * hundred repeated estimates), so the front keeps the first of each setup.
 */
function shownItems(setup: TrainingSetup, opts: AdviceOptions, current: Estimate, front: Light[]): AdviceItem[] {
  const spec = opts.gpuSpec;
  const capacity = opts.gpu?.memoryBytes;
  const shown = new Set<string>([signature(setup)]);
  const items: AdviceItem[] = [];
  for (const c of front.sort(
    (x, y) =>
      Number(x.changesResult) - Number(y.changesResult) ||
      x.gpus - y.gpus ||
      x.stepTimeFactor - y.stepTimeFactor ||
      x.nChanges - y.nChanges ||
      x.nMoves - y.nMoves ||
      x.deviceBytes - y.deviceBytes,
  )) {
    const sig = signature(c.applied.setup);
    if (shown.has(sig)) continue;
    shown.add(sig);
    const lean = estimate(c.applied.setup, { ...opts, lean: true });
    if (!lean.ok) continue;
    const { moves: combo, patches } = chain(c.applied);
    const item = {
      id: combo.map((m) => m.id).join('+'),
      title: combo.map((m) => m.title).join(' + '),
      changes: changesOf(patches),
      savedBytes: neededBytes(current) - neededBytes(lean.estimate),
      stepTimeFactor: c.stepTimeFactor,
      changesResult: c.changesResult,
      fits: capacity === undefined ? true : lean.estimate.fits === true,
      deviceBytes: lean.estimate.perGpu.deviceBytes,
      costExplain: timeOf(c.applied.setup, lean.estimate, spec).explain,
      gpus: c.gpus,
    };
    items.push(withFullEstimate(item, c.applied.setup, opts, lean.estimate));
  }
  return items;
}

/**
 * An item whose full estimate (formulas and assumptions, several times the cost of the numbers) is made when first
 * read, from the same setup and options as its figures (lean and full estimates give the same numbers). An enumerable
 * property: a copy or JSON of the item has it.
 */
function withFullEstimate(
  item: Omit<AdviceItem, 'estimate'>,
  setup: TrainingSetup,
  opts: AdviceOptions,
  lean: Estimate,
): AdviceItem {
  let full: Estimate | undefined;
  return Object.defineProperty(item, 'estimate', {
    enumerable: true,
    get: (): Estimate => {
      if (!full) {
        const r = estimate(setup, opts);
        full = r.ok ? r.estimate : lean;
      }
      return full;
    },
  }) as AdviceItem;
}

/** Total GPUs needed with sharded model states, as an item, when the search does not already list that change. */
function moreGpusItem(
  setup: TrainingSetup,
  opts: AdviceOptions,
  current: Estimate,
  currentStep: StepTime,
  gpusNeededTotal: number | undefined,
  items: readonly AdviceItem[],
): AdviceItem | undefined {
  const spec = opts.gpuSpec;
  const now = setup.gpus_per_node * setup.nodes;
  if (!(gpusNeededTotal !== undefined && gpusNeededTotal > now && !current.fits)) return undefined;
  const total = gpusNeededTotal;
  const perNode = Math.min(total, 8);
  const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
  const patch: Partial<TrainingSetup> = {
    gpus_per_node: perNode,
    nodes: Math.max(1, total / perNode),
    ...(sharded ? {} : { zero_stage: 3 as const }),
    ...syncedGradients(setup),
  };
  const s2 = settledFor(setup, opts)({ ...setup, ...patch });
  const r = estimate(s2, opts);
  // The search may already list this very change (its 2x / 4x the GPUs move).
  const sig = (cs: readonly SetupChange[]): string =>
    cs
      .map((c) => `${String(c.key)}=${JSON.stringify(c.value)}`)
      .sort()
      .join(' ');
  const listed = items.some(
    (i) =>
      sig(i.changes) === sig(Object.entries(patch).map(([key, value]) => ({ key: key as keyof TrainingSetup, value }))),
  );
  if (!(r.ok && !listed)) return undefined;
  const st = timeOf(s2, r.estimate, spec);
  // Per-GPU step time; the cost is hardware: the title says how many GPUs.
  return {
    id: 'more-gpus',
    title: `Use ${total} GPUs with sharded model states (ZeRO-3)`,
    changes: Object.entries(patch).map(([key, value]) => ({ key: key as keyof TrainingSetup, value })),
    savedBytes: neededBytes(current) - neededBytes(r.estimate),
    stepTimeFactor: currentStep.seconds > 0 ? st.seconds / currentStep.seconds : 1,
    changesResult: false,
    fits: r.estimate.fits === true,
    deviceBytes: r.estimate.perGpu.deviceBytes,
    estimate: r.estimate,
    costExplain: [...st.explain, `needs ${total} GPUs instead of ${now}`],
    gpus: total,
  };
}

/**
 * Each single change on its own (fitting or not), for quick fixes: what it saves and what it costs.
 * Sorted by saved bytes, largest first.
 */
export function singleChanges(setup: TrainingSetup, opts: AdviceOptions = {}): AdviceItem[] {
  const cur = estimate(setup, { ...opts, lean: true });
  if (!cur.ok) return [];
  const spec = opts.gpuSpec;
  const base = timeOf(setup, cur.estimate, spec);
  const out: AdviceItem[] = [];
  const settle = settledFor(setup, opts);
  for (const mv of moves(setup, spec?.bf16 ?? true)) {
    const applied = applyAll(setup, [mv], settle);
    if (!applied) continue;
    const r = estimate(applied.setup, opts);
    if (!r.ok) continue;
    const saved = neededBytes(cur.estimate) - neededBytes(r.estimate);
    if (saved <= 0) continue;
    const st = timeOf(applied.setup, r.estimate, spec);
    out.push({
      id: mv.id,
      title: mv.title,
      changes: applied.changes,
      savedBytes: saved,
      stepTimeFactor: base.seconds > 0 ? st.seconds / base.seconds : 1,
      changesResult: mv.changesResult,
      fits: opts.gpu === undefined ? true : r.estimate.fits === true,
      deviceBytes: r.estimate.perGpu.deviceBytes,
      estimate: r.estimate,
      costExplain: st.explain,
      gpus: applied.setup.gpus_per_node * applied.setup.nodes,
    });
  }
  return out.sort((a, b) => b.savedBytes - a.savedBytes);
}
