// estimate(): TrainingSetup -> per-GPU memory for the busiest rank, phase by phase, each term with its formula.
// Pure and deterministic; no I/O, no clock. The steps, in the order their warnings and assumptions are listed:
// normalize the setup (normalize.ts), check it and note its defaults (checks.ts, assumptions.ts), plan the layout,
// the methods and the dtypes (layout.ts, methods.ts, dtypes.ts) into an EstimateContext (context.ts), evaluate each
// pipeline stage's memory terms (stage.ts, phases.ts, core/terms/*), then the runtime terms and host memory
// (runtime.ts, host.ts). Docs: docs/estimate/index.md.
import { quantizedHead } from '../terms/quantized-head';
import type { EstimateResult, Phase } from '../model';
import type { TrainingSetup } from '../setup';
import { nf4LoadPhase } from '../terms/nf4-load';
import { zero3ModuleToDevice } from '../terms/zero3-module-to-device';
import { variableLengthCache } from '../terms/variable-length';
import { formatCount, GiB } from '../units';
import { defaultAssumptions } from './assumptions';
import {
  attentionNotes,
  evaluationNotes,
  gpuSupportChecks,
  modelCodeAttention,
  modelCodeCheckpointing,
  moeNotes,
} from './checks';
import { fsdp2PaddingNotes } from './fsdp2-padding';
import type { EstimateContext, EstimateOptions, Notes, PlanningContext } from './context';
import { planDtypes } from './dtypes';
import { hostMemory } from './host';
import { planLayout } from './layout';
import { adapterDefaults, planRollout, planTraining } from './methods';
import { frozenModels, modelVariant, normalizeSetup } from './normalize';
import { cudaContextBytes, runtimeTerms } from './runtime';
import { busiestStage } from './stage';
import { releaseBeforeModel } from './transformers-release';
export { type EstimateOptions } from './context';
export { DEFAULT_CUDA_CONTEXT_BYTES, ALLOCATOR_FRAGMENTATION } from './runtime';
export { parameterTargets, type ParameterTarget } from './inventory';
export { quantizesWholeAtLoad } from '../terms/quantization';
export { fusedExpertsIn } from './normalize';
export { deepspeedCastsZeroInitModel } from './deepspeed-release';
export { peftWrapsExperts } from './peft-moe';
export { releasePredatesModel } from './transformers-release';

/**
 * Per-GPU memory estimate. Never throws on user input: impossible values come back as errors. Lean mode (the advice
 * search) skips formula text and assumptions; the items shown to the user are estimated again in full.
 */
export function estimate(setupAsGiven: TrainingSetup, optsAsGiven: EstimateOptions = {}): EstimateResult {
  const opts = wholeGpuBytes(optsAsGiven);
  // A transformers pin older than the model's code is another code's pin (transformers-release.ts).
  const release = releaseBeforeModel(setupAsGiven);
  const norm = normalizeSetup(release.setup);
  const { parsed, setup } = norm;
  if (!parsed.ok)
    return { ok: false, errors: parsed.problems.map((p) => ({ key: `architecture.${p.field}`, message: p.message })) };
  const variant = modelVariant(setup, parsed.arch);
  const a = variant.arch;
  const frozen = frozenModels(setup);
  if ('ok' in frozen) return frozen;
  const notes: Notes = { warnings: release.warning ? [release.warning] : [], assumptions: [] };
  const planning: PlanningContext = {
    given: setupAsGiven,
    setup,
    provenance: opts.provenance ?? {},
    lean: opts.lean === true,
    notes,
    gpu: opts.gpu,
  };
  modelCodeCheckpointing(planning, norm);
  // gpuSupportChecks, defaultAssumptions and moeNotes note in full mode only: lean estimates skip the calls.
  if (!planning.lean) gpuSupportChecks(planning);
  modelCodeAttention(planning, norm);
  if (!planning.lean) defaultAssumptions(planning, norm.code, frozen.gkd, a.family);
  const parallel = planLayout(planning, a, norm.badamRatio);
  if ('ok' in parallel) return parallel;
  const rollout = planRollout(planning, frozen.gkd);
  if ('ok' in rollout) return rollout;
  const adapters = adapterDefaults(planning);
  const training = planTraining(planning, a, adapters, parallel.sharding);
  const dtypes = planDtypes(planning, a, parallel.layout, parallel.sharding, adapters, norm.badamRatio);
  const headKind = setup.head ?? a.defaultHead;
  const ctx: EstimateContext = {
    given: setupAsGiven,
    setup,
    effectiveSetup: adapters.effectiveSetup,
    model: {
      arch: a,
      baseArch: parsed.arch,
      code: norm.code,
      bitsandbytes: variant.bitsandbytes,
      fusedFamily: variant.fusedFamily,
      modules: training.modules,
      inventory: training.inventory,
      lmHead: headKind === 'causal_lm' || headKind === 'seq2seq_lm' || headKind === 'masked_lm',
    },
    layout: parallel.layout,
    sharding: parallel.sharding,
    dtypes,
    methods: {
      peft: adapters.peft,
      adapters: adapters.adapters,
      lora: adapters.lora,
      ia3: adapters.ia3,
      targets: training.targets,
      parameterTargets: training.parameterTargets,
      peftMoe: training.peftMoe,
      galore: training.galore,
      badamLayer: norm.badamLayer,
      badamRatio: norm.badamRatio,
      teacher: frozen.teacher,
      rewardModels: frozen.rewardModels,
      gkd: frozen.gkd,
      rollout: rollout.rollout,
      gkdGeneration: rollout.gkdGeneration,
      onlineDpo: rollout.onlineDpo,
      generation: rollout.generation,
      vllmShare: rollout.vllmShare,
      paged: training.paged,
      oldTorchaoNf4: training.oldTorchaoNf4,
    },
    gpu: planning.gpu,
    headroomFraction: opts.headroomFraction ?? 0,
    provenance: planning.provenance,
    lean: planning.lean,
    reservedLowerBound: Boolean(opts.reservedLowerBound),
    firstMicroBatch: opts.reservedLowerBound === 'first-micro-batch',
    notes,
  };
  if (!ctx.lean) moeNotes(ctx);
  if (!ctx.lean) fsdp2PaddingNotes(ctx);
  attentionNotes(ctx);
  evaluationNotes(ctx);
  return safeTotals(assemble(ctx, opts));
}

/**
 * The GPU's memory in whole bytes: a size given in fractional GiB (23.6 GiB) would otherwise carry a fraction of a byte
 * into every figure the GPU bounds (the paged state resident beside the rest, the allocator's capacity).
 */
function wholeGpuBytes(opts: EstimateOptions): EstimateOptions {
  const gpu = opts.gpu;
  if (!gpu || Number.isInteger(gpu.memoryBytes)) return opts;
  return { ...opts, gpu: { ...gpu, memoryBytes: Math.floor(gpu.memoryBytes) } };
}

/**
 * The estimate's contract is whole bytes below 2^53: a result whose device figure is not a safe integer (sizes beyond
 * any GPU cluster, which the setup's bounds should already refuse) is an error, never a number.
 */
function safeTotals(r: EstimateResult): EstimateResult {
  if (!r.ok) return r;
  const g = r.estimate.perGpu;
  if ([g.peakBytes, g.reservedBytes, g.deviceBytes, r.estimate.cpuBytes].every((b) => Number.isSafeInteger(b)))
    return r;
  return {
    ok: false,
    errors: [
      {
        key: 'micro_batch_size',
        message:
          'the estimate exceeds 2^53 bytes (8 PiB) per GPU: the sizes in these files are beyond what any GPU holds',
      },
    ],
  };
}

/** The busiest stage's phases, the runtime terms and host memory, as the estimate reports them. */
function assemble(ctx: EstimateContext, opts: EstimateOptions): EstimateResult {
  const setup = ctx.setup;
  const { arch: a, inventory: inv } = ctx.model;
  const layout = ctx.layout;
  const { assumptions, warnings } = ctx.notes;
  // ---- Busiest rank: evaluate each distinct pipeline stage -----------------------------------------------
  const { phases: stepPhases, peak: stepPeak, stage, lossTensorBytes, poolsAtPhase, forward } = busiestStage(ctx);
  const contextBytes = cudaContextBytes(setup);
  // Building and loading the model can peak above the training step: torchao < 0.2 NF4 under torchtune 0.1, or
  // DeepSpeed moving a model made outside zero.Init to the GPU whole before ZeRO-3 partitions it.
  const modelLoad = nf4LoadPhase(ctx, stepPeak, contextBytes) ?? zero3ModuleToDevice(ctx);
  const phases = modelLoad ? [modelLoad.phase, ...stepPhases] : stepPhases;
  const peak = modelLoad && modelLoad.phase.allocatedBytes > stepPeak.allocatedBytes ? modelLoad.phase : stepPeak;

  // ---- Runtime terms outside PyTorch's allocated bytes ---------------------------------------------------
  const totals = runtimeTerms(ctx, { stepPeak, peak, modelLoad, poolsAtPhase, contextBytes, forward });
  const { runtime, peakBytes, reservedBytes, deviceBytes, pagedBytes, pagedResident } = totals;
  const variableLengths = variableLengthCache(ctx, totals, stage, lossTensorBytes);

  // ---- Host memory --------------------------------------------------------------------------------------
  const { cpuBytes, nvmeBytes } = hostMemory(ctx, pagedBytes, pagedResident);

  const gpu = opts.gpu;
  const headroomFraction = opts.headroomFraction ?? 0;
  const fits = gpu ? deviceBytes <= gpu.memoryBytes * (1 - headroomFraction) : undefined;
  return {
    ok: true,
    estimate: {
      model: ctx.lean ? '' : (setup.model ?? `${a.family} (${formatCount(inv.total)} parameters)`),
      architecture: ctx.lean
        ? ''
        : `${a.family}: ${a.layers} layers, hidden ${a.hidden}, ${a.heads} heads (${a.kvHeads} kv), ` +
          `MLP ${a.ffn}, vocab ${a.vocab}${a.moe ? `, ${a.moe.experts} experts top-${a.moe.topK}` : ''}`,
      parameters: {
        total: inv.total,
        trainable: inv.trainable,
        frozen: inv.total - (setup.method === 'full' ? inv.total : setup.method === 'freeze' ? inv.trainable : 0),
        quantized: inv.quantized + (quantizedHead(setup, a) ? inv.head : 0),
        adapter: inv.adapter,
        source: inv.source,
      },
      layout,
      perGpu: {
        peakBytes,
        reservedBytes,
        deviceBytes,
        phase: peak.phase,
        components: peak.components,
        runtime,
        phases,
        stage,
        ...(variableLengths ? { variableLengths } : {}),
        ...(pagedBytes > pagedResident ? { pagedToHostBytes: pagedBytes - pagedResident } : {}),
        ...(totals.reservedLowerBound ? { reservedLowerBound: true as const } : {}),
      },
      cpuBytes: Math.round(cpuBytes),
      nvmeBytes: Math.round(nvmeBytes),
      gpu: gpu ? { id: gpu.id, memoryBytes: gpu.memoryBytes, source: gpu.source } : undefined,
      fits,
      headroomBytes: gpu ? gpu.memoryBytes - deviceBytes : undefined,
      assumptions,
      warnings,
    },
  };
}

/** Phase order for ties: steady-state phases first. */
export const PHASES: readonly Phase[] = [
  'forward',
  'backward',
  'optimizer',
  'first-step',
  'evaluation',
  'generation',
  'checkpoint-save',
  'load',
];
export { GiB };
