// Diagnostics as data: what to report in a document, with stable codes, the exact span and related places.
// Codes are public API (README "Diagnostics"): exceeds-gpu-memory, near-gpu-memory, batch-size-mismatch,
// conflicting-precision, offload-needs-zero, unresolved-auto, unknown-model, reference-not-found,
// strict-json-comments, variable-length-cache, plus deprecated-key, unknown-key, invalid-value and placeholder from the analyzers.
// eval-logits-kept: HF Trainer keeps every evaluation batch's logits on the GPU (compute_metrics).
// model-files: what was read of a local model and what was not (refused weight headers, unmodelled quantization).
// not-analyzed: a file over the size or nesting limits of analyzers/guards.ts.
// Editor-free and pure.
import type { CanonicalKey, MessageTemplate, Span } from '../analyzers/facts';
import { estimate } from '../core';
import type { ComponentId } from '../core';
import { formatBytes } from '../core';
import type { Analysis } from './analysis';

export type FindingCode =
  | 'not-modeled'
  | 'eval-logits-kept'
  | 'exceeds-gpu-memory'
  | 'near-gpu-memory'
  | 'batch-size-mismatch'
  | 'conflicting-precision'
  | 'offload-needs-zero'
  | 'unresolved-auto'
  | 'unknown-model'
  | 'reference-not-found'
  | 'strict-json-comments'
  | 'deprecated-key'
  | 'unknown-key'
  | 'invalid-value'
  | 'placeholder'
  | 'duplicate-key'
  | 'not-static'
  | 'variable-length-cache'
  | 'fused-experts'
  | 'no-effect'
  | 'pinned-release'
  | 'gpu-unsupported'
  | 'model-files'
  | 'not-analyzed'
  | 'reference-found-above'
  | 'readme-launch'
  | 'read-by-name'
  | 'runs-on-cpu'
  | 'several-launches';

export interface RelatedInfo {
  readonly file: string;
  readonly span?: Span;
  readonly line?: number;
  readonly message: string;
}

export interface Finding {
  readonly code: FindingCode;
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
  readonly span: Span;
  readonly related: readonly RelatedInfo[];
  /** The template the message was filled from, when it quotes the user's files (for Markdown that escapes the quotes). */
  readonly template?: MessageTemplate;
}

const REPORTED_FROM_ANALYZERS = new Set<string>([
  'eval-logits-kept',
  'batch-size-mismatch',
  'conflicting-precision',
  'offload-needs-zero',
  'unresolved-auto',
  'reference-not-found',
  'strict-json-comments',
  'deprecated-key',
  'unknown-key',
  'invalid-value',
  'placeholder',
  'duplicate-key',
  'unknown-model',
  'not-modeled',
  'model-files',
  'not-analyzed',
  'reference-found-above',
  'readme-launch',
  'read-by-name',
  'runs-on-cpu',
  'several-launches',
  'no-effect',
  'pinned-release',
  // A value the estimate cannot know statically, said at its place (with the default that stands in, where one does).
  'not-static',
]);

/** Which keys drive each memory component, most specific first (the key a diagnostic points at). */
const DRIVERS: Partial<Record<ComponentId, readonly CanonicalKey[]>> = {
  activations: ['microBatchSize', 'seqLen', 'gradientCheckpointing', 'attention', 'paddedBatches'],
  'checkpoint-recompute': ['microBatchSize', 'seqLen', 'gradientCheckpointing'],
  'backward-working': ['microBatchSize', 'seqLen', 'attention'],
  'logits-loss': ['microBatchSize', 'seqLen', 'completionLen', 'loss', 'loopKeepsOutputs'],
  'loss-backward': ['microBatchSize', 'seqLen', 'completionLen', 'loss'],
  'autocast-weight-copies': ['bf16', 'fp16', 'mixedPrecision', 'weightsDtype'],
  'optimizer-states': ['optimizer', 'zeroStage', 'offloadOptimizer', 'fsdp'],
  'optimizer-step': ['optimizer', 'zeroStage'],
  gradients: ['zeroStage', 'fsdp', 'method', 'gradientAccumulationSteps'],
  'ddp-buckets': ['zeroStage', 'fsdp'],
  weights: ['model', 'zeroStage', 'fsdp', 'quantBits', 'weightsDtype'],
  'master-weights': ['zeroStage', 'bf16', 'fp16', 'fsdp'],
  'quantization-constants': ['quantBits', 'model'],
  'adapter-weights': ['loraR', 'loraTargets'],
  'gathered-params': [
    'zeroStage',
    'stage3PrefetchBucketSize',
    'stage3MaxLiveParameters',
    'stage3MaxReuseDistance',
    'fsdp',
    'fsdpBackwardPrefetch',
    'fsdpUseOrigParams',
  ],
  'zero-buckets': ['reduceBucketSize', 'zeroStage'],
  'zero-grad-bucket': ['reduceBucketSize', 'zeroStage'],
  'gathered-grads': ['fsdp', 'zeroStage', 'fsdpNoSync', 'gradientAccumulationSteps'],
  'kv-cache': ['completionLen', 'stepsPerGeneration', 'generationBatchSize', 'promptLen', 'microBatchSize'],
  'rollout-engine': ['vllmMemoryFraction', 'vllmMode', 'useVllm'],
};

/** The memory components a key drives (the hover lists them beside the largest). */
export function componentsDrivenBy(key: string): ComponentId[] {
  return (Object.entries(DRIVERS) as Array<[ComponentId, readonly CanonicalKey[]]>)
    .filter(([, keys]) => keys.includes(key as CanonicalKey))
    .map(([id]) => id);
}

/** Scenario files name setup fields directly. */
const SCENARIO_KEY: Partial<Record<CanonicalKey, string>> = {
  microBatchSize: 'micro_batch_size',
  seqLen: 'seq_len',
  gradientCheckpointing: 'gradient_checkpointing',
  attention: 'attention',
  loss: 'loss',
  optimizer: 'optimizer',
  zeroStage: 'zero_stage',
  offloadOptimizer: 'offload_optimizer',
  fsdp: 'fsdp',
  method: 'method',
  gradientAccumulationSteps: 'gradient_accumulation_steps',
  model: 'model',
  quantBits: 'quantization',
  weightsDtype: 'weights_dtype',
  mixedPrecision: 'mixed_precision',
  loraR: 'lora',
  loraTargets: 'lora',
  batchLengths: 'batch_lengths',
  paddedBatches: 'padded_batches',
  kbitUpcast: 'kbit_upcast',
  tensorParallel: 'tensor_parallel',
  pipelineParallel: 'pipeline_parallel',
  gpusPerNode: 'gpus_per_node',
  rollout: 'rollout',
  completionLen: 'rollout',
  vllmMode: 'rollout',
  contextParallel: 'context_parallel',
};

/**
 * The canonical key behind a setup field: a scenario file's top-level key (hover), or the field an estimator error or
 * warning names (dotted for a block's own field).
 */
export const SETUP_FIELD_KEY: Readonly<Record<string, CanonicalKey>> = {
  micro_batch_size: 'microBatchSize',
  seq_len: 'seqLen',
  gradient_checkpointing: 'gradientCheckpointing',
  attention: 'attention',
  loss: 'loss',
  optimizer: 'optimizer',
  zero_stage: 'zeroStage',
  offload_optimizer: 'offloadOptimizer',
  offload_params: 'offloadParams',
  fsdp: 'fsdp',
  method: 'method',
  gradient_accumulation_steps: 'gradientAccumulationSteps',
  model: 'model',
  weights_dtype: 'weightsDtype',
  mixed_precision: 'mixedPrecision',
  gpus_per_node: 'gpusPerNode',
  nodes: 'nodes',
  lora: 'loraR',
  quantization: 'quantBits',
  tensor_parallel: 'tensorParallel',
  pipeline_parallel: 'pipelineParallel',
  gpu: 'gpu',
  compile: 'compile',
  activation_offloading: 'activationOffloading',
  tiled_mlp: 'tiledMlp',
  context_parallel: 'contextParallel',
  expert_parallel: 'expertParallel',
  zero_hpz_partition_size: 'zeroHpzPartitionSize',
  zero_mics_shard_size: 'micsShardSize',
  batch_lengths: 'batchLengths',
  padded_batches: 'paddedBatches',
  kbit_upcast: 'kbitUpcast',
  eval_batch_size: 'evalBatchSize',
  eval_generation: 'evalNewTokens',
  rollout: 'rollout',
  preference: 'preference',
  kernels: 'kernels',
  expandable_segments: 'expandableSegments',
  empty_cache_steps: 'emptyCacheSteps',
  galore: 'galore',
  badam: 'badam',
  'rollout.completion_len': 'completionLen',
  'rollout.engine': 'vllmMode',
  'lora.target_modules': 'loraTargets',
  'lora.target_parameters': 'loraTargetParameters',
};

/** The first halving of the micro-batch that fits the analysis's GPU (auto_find_batch_size), if any does. */
function autoBatch(a: Analysis): { micro: number; deviceBytes: number } | undefined {
  if (!a.setup || !a.gpu) return undefined;
  const gpu = { id: a.gpu.id, memoryBytes: a.gpu.memoryBytes, source: a.gpu.source };
  for (let m = Math.floor(a.setup.micro_batch_size / 2); m >= 1; m = Math.floor(m / 2)) {
    const r = estimate({ ...a.setup, micro_batch_size: m }, { gpu, lean: true });
    if (r.ok && r.estimate.fits) return { micro: m, deviceBytes: r.estimate.perGpu.deviceBytes };
  }
  return undefined;
}

/**
 * What the fit messages say of the GPU count when no file, flag or setting gave it: the estimate is for one GPU per
 * node and one node, and a ZeRO or FSDP run on one GPU shards nothing.
 */
export function gpuCountNote(a: Analysis, t: Translate = identity): string {
  const given = (k: 'gpus_per_node' | 'nodes'): boolean => {
    const p = a.pipeline.provenance[k];
    return p !== undefined && p.kind !== 'default';
  };
  if (!a.setup || given('gpus_per_node') || given('nodes')) return '';
  return t(
    ', assuming {0} GPU (nothing in these files says how many; set vramLens.gpusPerNode)',
    a.setup.gpus_per_node * a.setup.nodes,
  );
}

/** The span of a canonical key in this document (key span), if the document sets it. */
export function spanOfKey(a: Analysis, key: CanonicalKey): Span | undefined {
  const f = [...a.facts.facts].reverse().find((x) => x.key === key);
  if (f) return f.keySpan;
  if (a.scenario) {
    const sk = SCENARIO_KEY[key];
    const loc = sk ? a.scenario.keyLocations[sk] : undefined;
    if (loc) return { start: loc.start, end: loc.end };
  }
  return undefined;
}

function firstLine(text: string): Span {
  const nl = text.indexOf('\n');
  return { start: 0, end: nl < 0 ? Math.min(text.length, 1) : nl };
}

/** The tools whose DeepSpeed integration fills "auto" (transformers integrations/deepspeed.py, Accelerate). */
const AUTO_FILLERS = new Set(['hf-trainer', 'accelerate', 'trl', 'axolotl', 'llamafactory']);

/**
 * Whether the run fills the "auto" values of its DeepSpeed JSON: a JSON on its own is the HF convention (the Trainer
 * or Accelerate that loads it fills them), and so is one that a Trainer, Accelerate, TRL, Axolotl or LLaMA-Factory
 * file of the run names. Only a run whose other files are none of those (DeepSpeed's own launcher and
 * deepspeed.initialize) is told that "auto" is not a value.
 */
export function autoFilled(a: Analysis): boolean {
  const others = a.pipeline.files.filter((f) => f.file !== a.file && f.origin === undefined);
  return (
    others.length === 0 ||
    others.some((f) => f.facts.tools.some((t) => AUTO_FILLERS.has(t)) || FORMAT_FILLS.has(f.facts.format))
  );
}
const FORMAT_FILLS = new Set([
  'hf-python',
  'notebook',
  'hf-yaml',
  'accelerate-yaml',
  'axolotl-yaml',
  'llamafactory-yaml',
]);

type Translate = (message: string, ...args: Array<string | number>) => string;
const identity: Translate = (m, ...args) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

/** Where the findings of one document are collected: each said once (by code and span), in the editor's language. */
interface FindingSink {
  readonly out: Finding[];
  readonly push: (f: Finding) => void;
  /** An analyzer problem's message, translated from the template it was filled from. */
  readonly problemText: (p: { readonly message: string; readonly template?: MessageTemplate }) => string;
  readonly t: Translate;
}

function findingSink(t: Translate): FindingSink {
  const out: Finding[] = [];
  const seen = new Set<string>();
  return {
    out,
    push: (f) => {
      const k = `${f.code}:${f.span.start}:${f.span.end}`;
      if (seen.has(k)) return;
      seen.add(k);
      out.push(f);
    },
    problemText: (p) => (p.template ? t(p.template.text, ...p.template.args) : p.message),
    t,
  };
}

export function computeFindings(a: Analysis, text: string, gpuName?: string, t: Translate = identity): Finding[] {
  const sink = findingSink(t);
  analyzerFindings(sink, a);
  estimatorFindings(sink, a, text);
  if (!a.setup) {
    unknownModelFinding(sink, a, text);
    return sink.out;
  }
  fitFindings(sink, a, text, gpuName);
  return sink.out;
}

/** Problems the analyzers found in this document, its scenario's, and those found while merging the run's files. */
function analyzerFindings(sink: FindingSink, a: Analysis): void {
  const { push, problemText } = sink;
  // Problems the analyzers found in this document ("auto" only where nothing of the run fills it; the hover says what does).
  const filled = autoFilled(a);
  for (const p of a.facts.problems) {
    if (!REPORTED_FROM_ANALYZERS.has(p.code) || (p.code === 'unresolved-auto' && filled)) continue;
    push({
      code: p.code as FindingCode,
      severity: p.severity,
      message: problemText(p),
      span: p.span,
      related: [],
      template: p.template,
    });
  }
  if (a.scenario) {
    for (const p of a.scenario.problems) {
      if (p.code === 'syntax-error' || p.code === 'syntax-warning') continue; // the YAML/JSON language support reports these
      push({
        code: (p.code === 'missing-model' ? 'unknown-model' : p.code) as FindingCode,
        severity: p.severity,
        message: problemText(p),
        span: { start: p.start, end: p.end },
        related: [],
        template: p.template,
      });
    }
  }
  // Problems found while merging files, located in this document.
  for (const p of a.pipeline.problems) {
    if (p.file !== a.file || !REPORTED_FROM_ANALYZERS.has(p.code) || (p.code === 'unresolved-auto' && filled)) continue;
    push({
      code: p.code as FindingCode,
      severity: p.severity,
      message: problemText(p),
      span: { start: p.start, end: Math.max(p.end, p.start) },
      related: [],
      template: p.template,
    });
  }
}

/** The estimator's refusals and the warnings it says at a key (fused experts, ignored settings, what the GPU cannot run). */
function estimatorFindings(sink: FindingSink, a: Analysis, text: string): void {
  const { push } = sink;
  // The estimator refused the setup (values that contradict each other), or warns about a rollout it cannot count:
  // said at the key that sets the value.
  for (const x of [
    ...(a.estimateErrors ?? []).map((w) => ({ w, severity: 'error' as const })),
    ...(a.estimate?.warnings ?? [])
      .filter((w) => w.key.startsWith('rollout'))
      .map((w) => ({ w, severity: 'warning' as const })),
  ]) {
    const key = SETUP_FIELD_KEY[x.w.key] ?? SETUP_FIELD_KEY[x.w.key.split('.')[0]];
    push({
      code: 'invalid-value',
      severity: x.severity,
      message: x.w.message,
      span: (key ? spanOfKey(a, key) : undefined) ?? spanOfKey(a, 'model') ?? firstLine(text),
      related: [],
    });
  }
  // transformers 5's fused MoE experts (left in 16 bits by bitsandbytes, out of reach of target_modules), settings the
  // model's code ignores and what the chosen GPU cannot run: said at the key (bf16 at the switch that turns it on).
  for (const w of a.estimate?.warnings ?? []) {
    if (w.code !== 'fused-experts' && w.code !== 'no-effect' && w.code !== 'gpu-unsupported') continue;
    const keySpan =
      w.code === 'gpu-unsupported' && w.key !== 'attention'
        ? (spanOfKey(a, 'bf16') ?? spanOfKey(a, SETUP_FIELD_KEY[w.key]))
        : spanOfKey(a, SETUP_FIELD_KEY[w.key]);
    const span = keySpan ?? spanOfKey(a, 'model');
    if (span) push({ code: w.code, severity: w.severity ?? 'warning', message: w.message, span, related: [] });
  }
}

/** No setup: the model the run needs, where the pipeline could not find it. */
function unknownModelFinding(sink: FindingSink, a: Analysis, text: string): void {
  const { out, push, problemText, t } = sink;
  const modelProblem = a.pipeline.problems.find((p) => p.code === 'unknown-model');
  if (modelProblem && !out.some((f) => f.code === 'unknown-model')) {
    const span =
      modelProblem.file === a.file
        ? { start: modelProblem.start, end: modelProblem.end }
        : (spanOfKey(a, 'model') ?? firstLine(text));
    push({
      code: 'unknown-model',
      severity: 'warning',
      span,
      related: [],
      // Said once: a message that already names the setting gets only the pointer to the file that may name the model.
      message: /vramLens\.model/.test(problemText(modelProblem))
        ? t('{0}; or open the launch script / training file that names it.', problemText(modelProblem))
        : t(
            '{0}. VRAM Lens needs the model to estimate memory: set "vramLens.model" (a Hub id, folder or config.json), ' +
              'or open the launch script / training file that names it.',
            problemText(modelProblem),
          ),
    });
  }
}

/** Whether the run fits the chosen GPU: over it, near it, or over it once earlier batches' blocks are cached. */
function fitFindings(sink: FindingSink, a: Analysis, text: string, gpuName: string | undefined): void {
  const { push, t } = sink;
  const e = a.estimate;
  if (!a.setup) return;
  if (e && a.gpu && e.fits !== undefined) {
    const cap = a.gpu.memoryBytes;
    const need = e.perGpu.deviceBytes;
    const headroom = a.settings.headroomPercent / 100;
    const big = [...e.perGpu.components].sort((x, y) => y.bytes - x.bytes);
    const driver = big
      .map((c) => ({ c, key: (DRIVERS[c.id] ?? []).map((k) => ({ k, span: spanOfKey(a, k) })).find((x) => x.span) }))
      .find((x) => x.key);
    const span = driver?.key?.span ?? spanOfKey(a, 'model') ?? firstLine(text);
    const related: RelatedInfo[] = big.slice(0, 4).map((c) => {
      const k = (DRIVERS[c.id] ?? []).map((x) => spanOfKey(a, x)).find((s) => s);
      // One line each (the editor shows them in the hover of the key): the formulas are in the panel.
      return { file: a.file, span: k ?? span, message: `${c.label}: ${formatBytes(c.bytes)}` };
    });
    const phase = e.perGpu.phases.find((p) => p.phase === e.perGpu.phase);
    // HF Trainer's auto_find_batch_size catches the out-of-memory error and halves the micro-batch until a step runs
    // (accelerate find_executable_batch_size): the run goes on at the first halving that fits.
    const auto = a.facts.facts.find((f) => f.key === 'autoFindBatchSize' && f.value === true);
    const retried = !e.fits && auto ? autoBatch(a) : undefined;
    const gpus = gpuCountNote(a, t);
    if (!e.fits) {
      const over = t(
        '{0} > {1} on {2} ({3} over){4}. Peak in {5}; largest: {6}.',
        formatBytes(need),
        formatBytes(cap),
        a.gpu.id,
        formatBytes(need - cap),
        gpus,
        `${e.perGpu.phase}${phase ? `: ${phase.note}` : ''}`,
        big[0] ? `${big[0].label} ${formatBytes(big[0].bytes)}` : 'n/a',
      );
      push(
        retried
          ? {
              code: 'exceeds-gpu-memory',
              severity: 'warning',
              span: auto!.keySpan,
              related,
              message:
                `${over} ` +
                t(
                  'auto_find_batch_size: after the out-of-memory error the Trainer halves the micro-batch ' +
                    'and trains at {0} per GPU ({1}), with {2} accumulation steps: a smaller global batch.',
                  retried.micro,
                  formatBytes(retried.deviceBytes),
                  a.setup.gradient_accumulation_steps,
                ),
            }
          : { code: 'exceeds-gpu-memory', severity: 'error', span, related, message: over },
      );
    } else if (need > cap * (1 - headroom)) {
      push({
        code: 'near-gpu-memory',
        severity: 'warning',
        span,
        related,
        message: t(
          '{0} of {1} on {2}: less than {3}% headroom left ({4}){5}. Fragmentation or longer batches may run out of memory.',
          formatBytes(need),
          formatBytes(cap),
          a.gpu.id,
          a.settings.headroomPercent,
          formatBytes(cap - need),
          gpus,
        ),
      });
    }
    const vl = e.perGpu.variableLengths;
    if (e.fits && vl && vl.cacheBytes > 0 && vl.deviceBytes > cap * (1 - headroom)) {
      push({
        code: 'variable-length-cache',
        severity: 'info',
        span: spanOfKey(a, 'batchLengths') ?? spanOfKey(a, 'seqLen') ?? span,
        related: [],
        message: t(
          'Batches are padded to their own longest sample: over a run the allocator caches about {0} of earlier, shorter batches, ' +
            'which reaches {1} of {2} on {3}. It releases unsplit cached blocks before failing, but not split ones; ' +
            'if the run fails with memory "reserved but unallocated", set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True or pack the samples.',
          formatBytes(vl.cacheBytes),
          formatBytes(vl.deviceBytes),
          formatBytes(cap),
          a.gpu.id,
        ),
      });
    }
  } else if (e && gpuName && !a.gpu) {
    push({
      code: 'invalid-value',
      severity: 'warning',
      span: firstLine(text),
      related: [],
      message: t('unknown GPU \'{0}\' (see "vramLens.gpu")', gpuName),
    });
  }
}
