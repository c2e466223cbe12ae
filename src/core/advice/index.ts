// The advice engine: searches the changes a practitioner would make (precision, checkpointing, attention,
// ZeRO/FSDP, offload, 8-bit optimizers, LoRA/QLoRA, micro-batch vs accumulation, sequence length, more GPUs,
// and pairs/triples of them), estimates each, prices it with the step-time model, and returns the Pareto set
// of changes that fit, cheapest first. Also answers the largest micro-batch / sequence that fits and how many
// GPUs are needed. Pure; no I/O.
import { applyAll, type Move, moves } from './moves';
import { type Applied, chain, changesOf, gpusNeeded, largestFitting, signature, timeOf } from './search';
import type { AdviceItem, AdviceOptions, AdviceResult, SetupChange } from './types';
import { estimate, type EstimateOptions } from '../estimate';
import type { TrainingSetup } from '../setup';
export { type SetupChange, type AdviceItem, type AdviceResult, type AdviceOptions } from './types';
export { largestFitting, gpusNeeded } from './search';

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
  /** What the search keeps of a fitting candidate: numbers only; the items shown are estimated again in full. */
  interface Light { applied: Applied; deviceBytes: number; stepTimeFactor: number; changesResult: boolean; gpus: number; nChanges: number; nMoves: number }
  const groups = new Map<string, Light[]>();
  const lean: EstimateOptions = { ...opts, lean: true };
  // Pareto dominance: b dominates a when it is at least as good on GPUs, step time, result-changing, device memory
  // and number of changes, and strictly better on one. Memory differences below max(512 MiB, 2 % of the GPU) do not
  // count: an extra change that saves a few hundred MiB more is not worth listing next to the simpler one. Likewise
  // step times within 2 % of the current step (finer than the step-time model can tell): a change that only shaves a
  // fraction of a percent (FlashAttention-2 beside SDPA) does not earn a separate item.
  const memEps = Math.max(512 * 1024 * 1024, 0.02 * (capacity ?? 0));
  const stepEps = 0.02;
  const dominated = (a: Light, b: Light): boolean =>
    b.gpus <= a.gpus && b.stepTimeFactor <= a.stepTimeFactor + stepEps && (!b.changesResult || a.changesResult) && b.deviceBytes <= a.deviceBytes + memEps
    && b.nChanges <= a.nChanges
    && (b.gpus < a.gpus || b.stepTimeFactor < a.stepTimeFactor - stepEps || (a.changesResult && !b.changesResult) || b.deviceBytes < a.deviceBytes - memEps || b.nChanges < a.nChanges);
  let evaluated = 0;

  const consider = (applied: Applied): void => {
    const r = estimate(applied.setup, lean);
    evaluated++;
    if (!r.ok) return;
    const e = r.estimate;
    if ((capacity !== undefined && e.fits !== true) || current.perGpu.deviceBytes - e.perGpu.deviceBytes <= 0) return;
    const st = timeOf(applied.setup, e, spec, true);
    const keys = new Set<string>();
    let changesResult = false;
    let nMoves = 0;
    for (let a: Applied | undefined = applied; a?.move && a.patch; a = a.parent) {
      for (const k in a.patch) keys.add(k);
      changesResult ||= a.move.changesResult;
      nMoves++;
    }
    const c: Light = {
      applied, deviceBytes: e.perGpu.deviceBytes, stepTimeFactor: currentStep.seconds > 0 ? st.seconds / currentStep.seconds : 1,
      changesResult, gpus: applied.setup.gpus_per_node * applied.setup.nodes, nChanges: keys.size, nMoves,
    };
    // Keep only the Pareto set of each group as the search goes, so dominated candidates are garbage at once.
    const k = `${c.changesResult}|${c.gpus}|${c.nChanges}`;
    const g = groups.get(k);
    if (!g) {
      groups.set(k, [c]);
      return;
    }
    // Candidates that tie within the tolerances on every count (8-bit AdamW and its paged variant when nothing is
    // paged, or one setup reached by a longer chain of moves) are one item: the one of fewest moves, else the first.
    const tie = (b: Light): boolean => Math.abs(b.stepTimeFactor - c.stepTimeFactor) <= stepEps && Math.abs(b.deviceBytes - c.deviceBytes) <= memEps;
    if (g.some((b) => dominated(c, b))) return;
    const tied = g.findIndex(tie);
    if (tied >= 0) {
      if (c.nMoves < g[tied].nMoves) g[tied] = c;
      return;
    }
    const rest = g.filter((b) => !dominated(b, c));
    rest.push(c);
    groups.set(k, rest);
  };

  // Singles, pairs and triples of moves from different groups; each prefix is applied once and reused.
  const n = all.length;
  const step = (from: Applied, mv: Move): Applied | undefined => {
    const patch = mv.apply(from.setup);
    if (!patch) return undefined;
    return { setup: { ...from.setup, ...patch }, parent: from, move: mv, patch };
  };
  const root: Applied = { setup };
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

  // Across groups (each group already holds only its own Pareto set).
  const survivors: Light[] = [...groups.values()].flat();
  const front = survivors.filter((a) => !survivors.some((b) => b !== a && dominated(a, b)));
  // Different move chains can reach the same setup; the search does not de-duplicate as it goes (a signature per
  // candidate costs more than the few hundred repeated estimates), so the front keeps the first of each setup.
  const shown = new Set<string>([signature(setup)]);
  // The items shown are estimated again in full (formulas and assumptions).
  const items: AdviceItem[] = [];
  for (const c of front.sort((x, y) => Number(x.changesResult) - Number(y.changesResult) || x.gpus - y.gpus || x.stepTimeFactor - y.stepTimeFactor || x.nChanges - y.nChanges || x.nMoves - y.nMoves || x.deviceBytes - y.deviceBytes)) {
    const sig = signature(c.applied.setup);
    if (shown.has(sig)) continue;
    shown.add(sig);
    const full = estimate(c.applied.setup, opts);
    if (!full.ok) continue;
    const { moves: combo, patches } = chain(c.applied);
    items.push({
      id: combo.map((m) => m.id).join('+'), title: combo.map((m) => m.title).join(' + '), changes: changesOf(patches),
      savedBytes: current.perGpu.deviceBytes - full.estimate.perGpu.deviceBytes, stepTimeFactor: c.stepTimeFactor, changesResult: c.changesResult,
      fits: capacity === undefined ? true : full.estimate.fits === true, estimate: full.estimate,
      costExplain: timeOf(c.applied.setup, full.estimate, spec).explain, gpus: c.gpus,
    });
  }

  const result: { maxMicroBatch?: number; maxSeqLen?: number; gpusNeeded?: number } = {};
  if (capacity !== undefined) {
    result.maxMicroBatch = largestFitting(setup, opts, 'micro_batch_size', 1, 1024);
    result.maxSeqLen = largestFitting(setup, opts, 'seq_len', 128, 1 << 20);
    result.gpusNeeded = gpusNeeded(setup, opts);
    evaluated += 40;
    const now = setup.gpus_per_node * setup.nodes;
    if (result.gpusNeeded !== undefined && result.gpusNeeded > now && !current.fits) {
      const total = result.gpusNeeded;
      const perNode = Math.min(total, 8);
      const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
      const patch: Partial<TrainingSetup> = { gpus_per_node: perNode, nodes: Math.max(1, total / perNode), ...(sharded ? {} : { zero_stage: 3 as const }) };
      const s2 = { ...setup, ...patch };
      const r = estimate(s2, opts);
      // The search may already list this very change (its 2x / 4x the GPUs move).
      const sig = (cs: readonly SetupChange[]): string => cs.map((c) => `${String(c.key)}=${JSON.stringify(c.value)}`).sort().join(' ');
      const listed = items.some((i) => sig(i.changes) === sig(Object.entries(patch).map(([key, value]) => ({ key: key as keyof TrainingSetup, value }))));
      if (r.ok && !listed) {
        const st = timeOf(s2, r.estimate, spec);
        // Per-GPU step time; the cost is hardware: the title says how many GPUs.
        items.push({
          id: 'more-gpus', title: `Use ${total} GPUs with sharded model states (ZeRO-3)`, changes: Object.entries(patch).map(([key, value]) => ({ key: key as keyof TrainingSetup, value })),
          savedBytes: current.perGpu.deviceBytes - r.estimate.perGpu.deviceBytes, stepTimeFactor: currentStep.seconds > 0 ? st.seconds / currentStep.seconds : 1,
          changesResult: false, fits: r.estimate.fits === true, estimate: r.estimate, costExplain: [...st.explain, `needs ${total} GPUs instead of ${now}`], gpus: total,
        });
      }
    }
  }
  return { current, currentStep, items, evaluated, ...result };
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
  for (const mv of moves(setup, spec?.bf16 ?? true)) {
    const applied = applyAll(setup, [mv]);
    if (!applied) continue;
    const r = estimate(applied.setup, opts);
    if (!r.ok) continue;
    const saved = cur.estimate.perGpu.deviceBytes - r.estimate.perGpu.deviceBytes;
    if (saved <= 0) continue;
    const st = timeOf(applied.setup, r.estimate, spec);
    out.push({
      id: mv.id, title: mv.title, changes: applied.changes, savedBytes: saved, stepTimeFactor: base.seconds > 0 ? st.seconds / base.seconds : 1,
      changesResult: mv.changesResult, fits: opts.gpu === undefined ? true : r.estimate.fits === true, estimate: r.estimate, costExplain: st.explain,
      gpus: applied.setup.gpus_per_node * applied.setup.nodes,
    });
  }
  return out.sort((a, b) => b.savedBytes - a.savedBytes);
}
