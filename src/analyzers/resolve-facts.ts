// Merges the facts of several files (any format) with each tool's defaults into one TrainingSetup, recording for
// every field where it came from. Precedence: explicit flag/setting > launcher flag (shell) > config file >
// referenced file (a DeepSpeed JSON reached through a reference) > tool default. Pure: the caller reads files.
import type { Provenance, ProvenanceMap, TrainingSetup, TrainingSetupInput } from '../core/setup';
import { TrainingSetupSchema } from '../core/setup';
import { quantizationFromConfig } from './checkpoint-quantization';
import { toolDefault } from './defaults';
import { isUnknown, msg, quoteWritten, rewardModelNotCounted, type CanonicalKey, type ConfigFacts, type Fact, type FactValue, type Tool } from './facts';
import { describeSetupIssue, valueAt } from './issues';
import type { ModelResolver, Overrides } from './resolve';
import type { Location, Problem } from './scenario';

/** How a file entered the analysis, which decides its rank. */
export type FileRole = 'launcher' | 'config' | 'referenced';

export interface AnalyzedFile {
  readonly file: string;
  readonly text: string;
  readonly role: FileRole;
  readonly facts: ConfigFacts;
  /**
   * Not a file on disk: a DeepSpeed config written inline in another file, or one a tool ships that was not found
   * beside the config (its values are that tool's defaults). Quick fixes never edit these.
   */
  readonly origin?: { readonly kind: 'inline' } | { readonly kind: 'bundled'; readonly owner: string; readonly note: string };
}

export interface WinningFact {
  readonly fact: Fact;
  readonly file: string;
  readonly location: Location;
  /** The fact comes from a tool's bundled DeepSpeed config (AnalyzedFile.origin): a default of that tool. */
  readonly bundled?: { readonly owner: string; readonly note: string };
}

export interface FactResolution {
  readonly setup?: TrainingSetup;
  readonly provenance: ProvenanceMap;
  readonly problems: readonly Problem[];
  readonly gpu?: string;
  /** The fact that decided each canonical key (for hovers: "this key sets micro_batch_size"). */
  readonly decided: Partial<Record<CanonicalKey, WinningFact>>;
  readonly tools: readonly Tool[];
}

const RANK: Record<FileRole, number> = { referenced: 1, config: 2, launcher: 3 };

let lastLineStarts: { text: string; starts: number[] } | undefined;

function lineStarts(text: string): number[] {
  if (lastLineStarts && lastLineStarts.text === text) return lastLineStarts.starts;
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  lastLineStarts = { text, starts };
  return starts;
}

/** 1-based line and column of a UTF-16 offset (binary search over the line starts). */
export function locateOffset(file: string, text: string, start: number, end = start): Location {
  const stop = Math.min(Math.max(0, start), text.length);
  const starts = lineStarts(text);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= stop) lo = mid;
    else hi = mid - 1;
  }
  return { file, start, end, line: lo + 1, column: stop - starts[lo] + 1 };
}

/** Tools in priority order for defaults: the trainer named by the most specific file wins. */
function toolOrder(files: readonly AnalyzedFile[]): Tool[] {
  const order: Tool[] = [];
  const prio: Tool[] = ['unsloth', 'trl', 'llamafactory', 'axolotl', 'torchtune', 'hf-trainer', 'accelerate', 'deepspeed'];
  const seen = new Set<Tool>();
  for (const f of files) for (const t of f.facts.tools) seen.add(t);
  for (const f of files) for (const fact of f.facts.facts) seen.add(fact.tool);
  for (const t of prio) if (seen.has(t)) order.push(t);
  return order;
}

export function resolveFacts(files: readonly AnalyzedFile[], overrides: Overrides, resolveModel: ModelResolver): FactResolution {
  const problems: Problem[] = [];
  for (const f of files) {
    for (const p of f.facts.problems) {
      if (p.severity === 'info') continue;
      problems.push({ ...locateOffset(f.file, f.text, p.span.start, p.span.end), severity: p.severity, code: p.code, message: p.message,
        ...(p.template ? { template: p.template } : {}), key: p.rawKey });
    }
  }
  // Winning fact per key: highest rank, later file on ties; a known value beats an unknown one of any rank.
  const decided: Partial<Record<CanonicalKey, WinningFact>> = {};
  const unknownOnly: Partial<Record<CanonicalKey, WinningFact>> = {};
  for (const f of files) {
    for (const fact of f.facts.facts) {
      const w: WinningFact = { fact, file: f.file, location: locateOffset(f.file, f.text, fact.valueSpan.start, fact.valueSpan.end),
        ...(f.origin?.kind === 'bundled' ? { bundled: { owner: f.origin.owner, note: f.origin.note } } : {}) };
      if (isUnknown(fact.value)) {
        unknownOnly[fact.key] = w;
        continue;
      }
      const prev = decided[fact.key];
      const prevRank = prev ? RANK[files.find((x) => x.file === prev.file)?.role ?? 'config'] : -1;
      if (!prev || RANK[f.role] >= prevRank) decided[fact.key] = w;
    }
  }
  const tools = toolOrder(files);
  const setup: Record<string, unknown> = {};
  const provenance: ProvenanceMap = {};
  const prov = provenance as Record<string, Provenance>;
  const fromFact = (field: string, key: CanonicalKey, map?: (v: FactValue) => unknown): boolean => {
    const w = decided[key];
    if (!w) return false;
    const v = map ? map(w.fact.value as FactValue) : w.fact.value;
    if (v === undefined) return false;
    setup[field] = v;
    prov[field] = fileProv(w);
    return true;
  };
  const fromDefault = (field: string, defaultField: Parameters<typeof toolDefault>[1]): void => {
    if (setup[field] !== undefined) return;
    const d = toolDefault(tools, defaultField);
    if (!d) return;
    setup[field] = d.value;
    const unknown = unknownOnly[keyOfField(field)];
    prov[field] = { kind: 'default', owner: d.tool, note: unknown ? `${d.note}; the file's value ${unknown.fact.rawValue} is not known statically` : d.note };
  };
  const num = (v: FactValue): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const bool = (v: FactValue): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

  // Model.
  fromFact('model', 'model', (v) => (typeof v === 'string' ? v : undefined));
  if (overrides.model) {
    setup.model = overrides.model;
    prov.model = overrides.origin === 'setting' ? { kind: 'setting', setting: 'vramLens.model' } : { kind: 'flag', flag: '--model' };
  }

  // Method, LoRA and quantization.
  fromFact('method', 'method');
  const hasLora = decided.loraR || decided.loraTargets || decided.loraAlpha;
  const quantBits = decided.quantBits ? num(decided.quantBits.fact.value as FactValue) : undefined;
  if (setup.method === undefined && hasLora) {
    setup.method = quantBits === 4 ? 'qlora' : 'lora';
    const w = (decided.loraR ?? decided.loraTargets ?? decided.loraAlpha)!;
    prov.method = fileProv(w);
  }
  const method = (setup.method as string | undefined) ?? 'full';
  if (method === 'ia3') {
    // PEFT's IA3 defaults for llama-family models (TRANSFORMERS_MODELS_TO_IA3_TARGET_MODULES_MAPPING and the
    // feed-forward mapping in peft/utils/constants.py).
    const targets = decided.ia3Targets?.fact.value;
    const ff = decided.ia3Feedforward?.fact.value;
    setup.ia3 = {
      target_modules: Array.isArray(targets) ? targets : ['k_proj', 'v_proj', 'down_proj'],
      feedforward_modules: Array.isArray(ff) ? ff : ['down_proj'],
      dtype: 'fp32',
    };
    const w = decided.ia3Targets ?? decided.method;
    prov.ia3 = w ? fileProv(w) : { kind: 'default', owner: 'peft', note: 'IA3Config defaults for llama-family models' };
  }
  if (method === 'lora' || method === 'qlora') {
    const lora: Record<string, unknown> = {};
    const loraField = (name: string, key: CanonicalKey, def: Parameters<typeof toolDefault>[1]): void => {
      const w = decided[key];
      if (w) {
        lora[name] = w.fact.value;
      } else {
        const d = toolDefault(tools, def);
        if (d) lora[name] = d.value;
      }
    };
    loraField('r', 'loraR', 'lora.r');
    loraField('alpha', 'loraAlpha', 'lora.alpha');
    loraField('dropout', 'loraDropout', 'lora.dropout');
    loraField('target_modules', 'loraTargets', 'lora.target_modules');
    if (decided.loraModulesToSave) lora.modules_to_save = decided.loraModulesToSave.fact.value;
    if (decided.loraTargetParameters) lora.target_parameters = decided.loraTargetParameters.fact.value;
    if (decided.loraDora?.fact.value === true) lora.use_dora = true;
    const dt = toolDefault(tools, 'lora.dtype');
    lora.dtype = dt?.value === 'model' ? 'model' : dt?.value;
    setup.lora = lora;
    const w = decided.loraR ?? decided.loraTargets;
    prov.lora = w ? fileProv(w) : { kind: 'default', owner: dt?.tool ?? 'peft', note: 'LoRA settings of the tool' };
  }
  if (quantBits === 4 || quantBits === 8) {
    const q: Record<string, unknown> = { bits: quantBits };
    const t = decided.quantType?.fact.value ?? (quantBits === 8 ? 'int8' : toolDefault(tools, 'quantization.type')?.value ?? 'nf4');
    q.type = t;
    q.double_quant = decided.doubleQuant?.fact.value ?? toolDefault(tools, 'quantization.double_quant')?.value ?? false;
    // torchtune's qlora builders quantize every linear of the blocks: LoRA-wrapped ones and, when quantize_base is set,
    // the others as FrozenNF4Linear (torchtune/models/*/_component_builders.py); the output head stays 16-bit.
    if (tools[0] === 'torchtune') q.scope = 'all-linear';
    if (decided.quantizeExperts?.fact.value === true) q.experts = true;
    setup.quantization = q;
    const w = decided.quantBits!;
    prov.quantization = fileProv(w);
    if (method === 'full') setup.method = 'qlora';
  }
  fromFact('freeze_trainable_layers', 'freezeTrainableLayers', num);

  // Precision: DeepSpeed bf16/fp16 blocks run the model in 16 bits with an fp32 master copy; HF/Accelerate
  // bf16/fp16 switches are autocast over the loaded weights; LLaMA-Factory pure_bf16 and torchtune dtype are pure.
  const deepspeedOn = decided.zeroStage !== undefined || files.some((f) => f.facts.format === 'deepspeed-json');
  const bf16 = decided.bf16 ? bool(decided.bf16.fact.value as FactValue) : undefined;
  const fp16 = decided.fp16 ? bool(decided.fp16.fact.value as FactValue) : undefined;
  const mp = decided.mixedPrecision?.fact.value;
  // FP8 training (Accelerate mixed_precision fp8, Axolotl and LLaMA-Factory fp8): Accelerate autocasts to bf16 around
  // the FP8 linears, and torchao's Float8Linear keeps its bf16 input and weight for backward
  // (torchao/float8/float8_linear.py matmul_with_hp_or_float8_args: save_for_backward(input_hp, weight_hp_t)); the FP8
  // casts are per-layer transients. Memory is estimated as bf16 autocast, and the file says so at the key.
  const fp8 = mp === 'fp8' && !bf16 && !fp16;
  let half: 'bf16' | 'fp16' | undefined = bf16 ? 'bf16' : fp16 ? 'fp16' : mp === 'bf16' || mp === 'fp16' ? mp : fp8 ? 'bf16' : undefined;
  const halfFact = bf16 ? decided.bf16 : fp16 ? decided.fp16 : decided.mixedPrecision;
  if (mp === 'fp8' && decided.mixedPrecision) {
    const w = decided.mixedPrecision;
    problems.push({ ...w.location, severity: 'warning', code: 'not-modeled', key: w.fact.rawKey,
      ...msg('{0}: FP8 matmuls are estimated as bf16 mixed precision (torchao Float8Linear keeps bf16 inputs for backward; Transformer Engine\'s smaller FP8 copies are not modeled)', w.fact.rawKey) });
    // torchao's float8 all-gather under FSDP2: the linear weights travel and wait in fp8.
    const ag = decided.fp8AllGather;
    if (ag && ag.fact.value === true) {
      setup.fp8_all_gather = true;
      prov.fp8_all_gather = fileProv(ag);
    }
  }
  if (!half && bf16 === undefined && fp16 === undefined && mp === undefined) {
    const d = toolDefault(tools, 'mixed_precision');
    if (d && (d.value === 'bf16' || d.value === 'fp16')) {
      half = d.value;
      prov.mixed_precision = { kind: 'default', owner: d.tool, note: d.note };
    }
  }
  const pure = decided.pureBf16 && decided.pureBf16.fact.value === true;
  fromFact('weights_dtype', 'weightsDtype');
  if (pure) {
    setup.weights_dtype = 'bf16';
    setup.mixed_precision = 'none';
    prov.weights_dtype = prov.mixed_precision = { kind: 'file', file: decided.pureBf16!.file, line: decided.pureBf16!.location.line,
      key: decided.pureBf16!.fact.rawKey };
  } else if (half && deepspeedOn && method === 'full') {
    setup.weights_dtype = half;
    setup.master_weights = true;
    setup.mixed_precision = 'none';
    const p: Provenance = halfFact ? fileProv(halfFact) : prov.mixed_precision ?? { kind: 'default', owner: 'deepspeed' };
    prov.weights_dtype = prov.master_weights = prov.mixed_precision = p;
  } else if (half) {
    setup.mixed_precision = half;
    if (halfFact) prov.mixed_precision = fileProv(halfFact);
    if (setup.weights_dtype === undefined && (tools[0] === 'axolotl' || tools[0] === 'llamafactory' || method === 'qlora' || method === 'lora')) {
      // Axolotl and LLaMA-Factory load the model in the compute dtype; PEFT recipes load 16-bit bases.
      setup.weights_dtype = half;
      prov.weights_dtype = { kind: 'default', owner: tools[0] ?? 'peft', note: `the base model is loaded in ${half} when ${half} training is on` };
    }
  } else if (tools[0] === 'torchtune' && setup.weights_dtype !== undefined) {
    setup.mixed_precision = 'none';
  }
  if (setup.weights_dtype === undefined) fromDefault('weights_dtype', 'weights_dtype');
  // Adapters in the model dtype (torchtune) follow the resolved weights dtype.
  const loraSetup = setup.lora as Record<string, unknown> | undefined;
  if (loraSetup && loraSetup.dtype === 'model') loraSetup.dtype = setup.weights_dtype ?? 'fp32';
  if (setup.weights_dtype === 'bf16' && deepspeedOn && method === 'full' && setup.master_weights === undefined) setup.master_weights = true;

  // Optimizer, batch, sequence, checkpointing, attention, loss.
  fromFact('optimizer', 'optimizer', (v) => (typeof v === 'string' && OPTIMIZERS.has(v) ? v : undefined));
  if (decided.optimizer && setup.optimizer === undefined) {
    const w = decided.optimizer;
    problems.push({ ...w.location, severity: 'warning', code: 'invalid-value',
      ...msg('optimizer \'{0}\' is not modeled; AdamW is assumed', w.fact.rawValue), key: w.fact.rawKey });
  }
  fromDefault('optimizer', 'optimizer');
  // BAdam: layer mode (one decoder layer at a time) or ratio mode (a sparse share of every tensor, badam_update_ratio
  // 0.05 unless set: LLaMA-Factory BAdamArgument).
  const badamFact = decided.badam;
  if (badamFact && method === 'full') {
    setup.badam = badamFact.fact.value === 'ratio' ? { mode: 'ratio', update_ratio: numberOf(decided.badamUpdateRatio, 0.05) } : { mode: 'layer' };
    prov.badam = fileProv(badamFact);
  }
  // GaLore: the rank defaults to 16 in LLaMA-Factory (galore_rank) and to 128 in transformers (optim_args rank);
  // LLaMA-Factory targets every linear layer by default, transformers needs optim_target_modules.
  const galoreFact = decided.galore;
  if (galoreFact && (galoreFact.fact.value === 'galore' || galoreFact.fact.value === 'apollo')) {
    const lf = galoreFact.fact.tool === 'llamafactory';
    const kind = galoreFact.fact.value;
    const rank = decided.galoreRank && typeof decided.galoreRank.fact.value === 'number' ? decided.galoreRank.fact.value : lf ? 16 : 128;
    const targets = decided.galoreTargets?.fact.value;
    setup.galore = {
      kind,
      rank,
      target_modules: targets === 'all-linear' || (Array.isArray(targets) && targets.length > 0) ? targets : 'all-linear',
      layerwise: decided.galoreLayerwise?.fact.value === true,
    };
    prov.galore = fileProv(galoreFact);
    if (decided.galoreRank) prov['galore.rank'] = fileProv(decided.galoreRank);
    if (decided.galoreTargets) prov['galore.target_modules'] = fileProv(decided.galoreTargets);
    if (!decided.galoreRank) prov['galore.rank'] = { kind: 'default', owner: lf ? 'llamafactory' : 'hf-trainer',
      note: lf ? `${kind}_rank defaults to 16` : 'the rank in optim_args defaults to 128' };
    if (!decided.galoreTargets) prov['galore.target_modules'] = { kind: 'default', owner: lf ? 'llamafactory' : 'hf-trainer',
      note: lf ? `${kind}_target defaults to all (every linear layer)` : 'optim_target_modules is required by transformers; every linear layer assumed' };
  }
  fromFact('micro_batch_size', 'microBatchSize', num);
  fromFact('gradient_accumulation_steps', 'gradientAccumulationSteps', num);
  fromFact('seq_len', 'seqLen', num);
  // Evaluation during training: its batch is the file's, or the trainer's default (HF per_device_eval_batch_size 8,
  // Axolotl eval_batch_size = micro_batch_size).
  if (decided.evalStrategy && decided.evalStrategy.fact.value === true && !fromFact('eval_batch_size', 'evalBatchSize', num)) {
    const axolotl = tools[0] === 'axolotl';
    setup.eval_batch_size = axolotl ? (setup.micro_batch_size as number | undefined) ?? 1 : 8;
    prov.eval_batch_size = { kind: 'default', owner: axolotl ? 'axolotl' : tools[0] ?? 'hf-trainer',
      note: axolotl ? 'eval_batch_size defaults to micro_batch_size' : 'per_device_eval_batch_size defaults to 8 (transformers TrainingArguments)' };
  }
  fromFact('batch_lengths', 'batchLengths');
  if (!fromFact('kbit_upcast', 'kbitUpcast') && setup.quantization !== undefined && tools.includes('trl')) {
    // TRL's SFTTrainer called prepare_model_for_kbit_training for 4/8-bit models until its model-preparation
    // clean-up (trl PR 4577, Nov 2025); the installed version is not in the files.
    prov.kbit_upcast = { kind: 'default', owner: 'trl', note: 'current SFTTrainer keeps unquantized parameters in 16 bits (since trl PR 4577, Nov 2025); older releases kept the norms in fp32: set kbit_upcast: norms for them' };
  }
  fromFact('gradient_checkpointing', 'gradientCheckpointing');
  fromFact('attention', 'attention');
  fromFact('loss', 'loss');
  fromFact('compile', 'compile', bool);
  fromFact('head', 'head');
  fromFact('num_labels', 'numLabels', num);
  // The HF Trainer's LabelSmoother (label_smoothing_factor > 0) replaces the model's own loss.
  fromFact('label_smoothing', 'labelSmoothing', (v) => (typeof v === 'number' && v > 0 ? true : undefined));
  fromFact('activation_offloading', 'activationOffloading', bool);
  fromFact('tiled_mlp', 'tiledMlp', (v) => (typeof v === 'boolean' || typeof v === 'number' ? v : undefined));
  fromFact('kernels', 'kernels');
  fromFact('expandable_segments', 'expandableSegments', bool);
  fromFact('empty_cache_steps', 'emptyCacheSteps', num);
  // Paired preference training: which reference the trainer uses follows from the method (PEFT runs disable their
  // adapters instead of copying the model: TRL DPOTrainer, LLaMA-Factory create_ref_model); LLaMA-Factory takes the
  // log-probabilities over fp32 logits in one call, TRL row by row.
  const prefFact = decided.preference;
  if (prefFact && typeof prefFact.fact.value === 'string') {
    const v = prefFact.fact.value;
    const peftMethod = method === 'lora' || method === 'qlora' || method === 'ia3';
    const given = decided.referenceModel?.fact.value;
    const reference = v === 'reference-free' || v === 'reward' ? 'none'
      : given === 'precomputed' ? 'precomputed' : given === 'given' ? 'copy' : peftMethod ? 'adapters-off' : 'copy';
    const tool = prefFact.fact.tool;
    const logps = tool === 'llamafactory' ? 'whole' : tool === 'torchtune' ? 'native' : 'rows';
    // TRL's ORPOTrainer and CPOTrainer (also behind Axolotl rl: orpo / simpo) add the chosen half's NLL unless
    // cpo_alpha is 0 (trl/trainer/orpo_trainer.py, cpo_trainer.py concatenated_forward); DPOTrainer adds it when
    // rpo_alpha is set (dpo_trainer.py concatenated_forward: `if self.args.rpo_alpha is not None`).
    const alpha = decided.cpoAlpha?.fact.value;
    const rpo = typeof decided.rpoAlpha?.fact.value === 'number';
    const chosenNll = logps === 'rows' && ((v === 'reference-free' && alpha !== 0) || (v === 'dpo' && rpo));
    setup.preference = { reference, logps, paired: v !== 'kto', ...(chosenNll ? { chosen_nll: true } : {}) };
    prov.preference = fileProv(prefFact);
    // LLaMA-Factory's reward models keep the LM head and add a value head (its logits computed but unused); TRL's
    // RewardTrainer loads a sequence classifier instead (head seq_cls).
    if (v === 'reward' && tool === 'llamafactory') {
      setup.value_head = true;
      prov.value_head = fileProv(prefFact);
    }
  }
  fromFact('fsdp_shard_embeddings', 'fsdpShardEmbeddings', bool);
  fromFact('optimizer_in_backward', 'optimizerInBackward', bool);

  // Parallelism.
  fromFact('zero_stage', 'zeroStage', num);
  fromFact('offload_optimizer', 'offloadOptimizer');
  fromFact('offload_params', 'offloadParams');
  fromFact('fsdp', 'fsdp');
  if (decided.fsdpOffload && decided.fsdpOffload.fact.value === true) {
    const w = decided.fsdpOffload;
    setup.offload_params = 'cpu';
    setup.offload_optimizer = 'cpu';
    prov.offload_params = prov.offload_optimizer = fileProv(w);
    if (setup.fsdp === undefined) setup.fsdp = 'full_shard';
  }
  const buckets: Record<string, number> = {};
  for (const [k, field] of [['reduceBucketSize', 'reduce_bucket_size'], ['allgatherBucketSize', 'allgather_bucket_size'],
    ['stage3PrefetchBucketSize', 'stage3_prefetch_bucket_size'],
    ['stage3MaxLiveParameters', 'stage3_max_live_parameters'], ['stage3ParamPersistenceThreshold', 'stage3_param_persistence_threshold'],
    ['subGroupSize', 'sub_group_size']] as const) {
    const v = decided[k] ? num(decided[k]!.fact.value as FactValue) : undefined;
    if (v !== undefined) buckets[field] = v;
  }
  if (Object.keys(buckets).length > 0) setup.zero_buckets = buckets;
  fromFact('tensor_parallel', 'tensorParallel', num);
  fromFact('pipeline_parallel', 'pipelineParallel', num);
  fromFact('sequence_parallel', 'sequenceParallel', bool);
  fromFact('context_parallel', 'contextParallel', num);
  fromFact('zero_hpz_partition_size', 'zeroHpzPartitionSize', (v) => { const n = num(v); return n !== undefined && n > 1 ? n : undefined; });
  fromFact('zero_mics_shard_size', 'micsShardSize', (v) => { const n = num(v); return n !== undefined && n > 0 ? n : undefined; });
  fromFact('expert_parallel', 'expertParallel', num);
  fromFact('nodes', 'nodes', num);
  fromFact('gpus_per_node', 'gpusPerNode', num);
  const world = decided.worldSize ? num(decided.worldSize.fact.value as FactValue) : undefined;
  if (world !== undefined && setup.gpus_per_node === undefined) {
    const nodes = (setup.nodes as number | undefined) ?? 1;
    setup.gpus_per_node = Math.max(1, Math.round(world / nodes));
    const w = decided.worldSize!;
    prov.gpus_per_node = fileProv(w);
  }
  if (overrides.gpusPerNode !== undefined) {
    setup.gpus_per_node = overrides.gpusPerNode;
    prov.gpus_per_node = overrides.origin === 'setting' ? { kind: 'setting', setting: 'vramLens.gpusPerNode' } : { kind: 'flag', flag: '--gpus' };
  }
  if (overrides.nodes !== undefined) {
    setup.nodes = overrides.nodes;
    prov.nodes = overrides.origin === 'setting' ? { kind: 'setting', setting: 'vramLens.nodes' } : { kind: 'flag', flag: '--nodes' };
  }
  // An FSDP shard group (Axolotl dp_shard_size, Accelerate parallelism_config dp_shard_size, torchtune
  // data_parallel_shard_dim) is the hybrid-shard group size, and the sharding degree when nothing replicates.
  fromFact('fsdp_shard_size', 'fsdpShardSize', num);
  // A tensor-parallel, pipeline-parallel or sharded layout runs on tp x pp x shard GPUs at least. When no launcher,
  // file, flag or setting says how many GPUs run (torchtune's multi-node configs leave it to `tune run --nnodes
  // --nproc_per_node`, Axolotl's to its launcher), the smallest such world is assumed, eight GPUs to a node, instead of
  // a single GPU that cannot hold the layout.
  const layoutGpus = ((setup.tensor_parallel as number | undefined) ?? 1) * ((setup.pipeline_parallel as number | undefined) ?? 1)
    * ((setup.fsdp_shard_size as number | undefined) ?? 1) * ((setup.context_parallel as number | undefined) ?? 1);
  if (layoutGpus > 1 && setup.gpus_per_node === undefined && setup.nodes === undefined) {
    const multiNode = layoutGpus > 8 && layoutGpus % 8 === 0;
    setup.gpus_per_node = multiNode ? 8 : layoutGpus;
    const note = `the smallest world that holds tensor_parallel x pipeline_parallel x context_parallel x the FSDP shard group = ${layoutGpus} GPUs (no launcher, flag or setting gives the GPU count)`;
    prov.gpus_per_node = { kind: 'default', owner: 'VRAM Lens', note };
    if (multiNode) {
      setup.nodes = layoutGpus / 8;
      prov.nodes = { kind: 'default', owner: 'VRAM Lens', note };
    }
  }
  if (overrides.seqLen !== undefined) {
    setup.seq_len = overrides.seqLen;
    prov.seq_len = { kind: 'flag', flag: '--seq-len' };
  }

  // torchtune's distributed recipes shard with FSDP2 (fully_shard) whenever more than one GPU runs.
  if (tools.includes('torchtune') && setup.fsdp === undefined
    && ((setup.gpus_per_node as number | undefined) ?? 1) * ((setup.nodes as number | undefined) ?? 1) > 1) {
    setup.fsdp = 'full_shard';
    prov.fsdp = { kind: 'default', owner: 'torchtune', note: 'distributed recipes shard parameters, gradients and optimizer state with FSDP2' };
  }

  /**
   * GRPO (TRL GRPOConfig, trl@006d32c:trl/trainer/grpo_config.py): a round generates per_device_train_batch_size x
   * steps_per_generation completions per GPU (steps_per_generation defaults to gradient_accumulation_steps; a
   * generation_batch_size counts all GPUs); each sequence is the prompt and max_completion_length (256) tokens. beta
   * defaults to 0.0, which loads no reference model. vLLM's mode defaults to "server" (other GPUs) and its colocated
   * share to 0.3 of the GPU. The old policy's log-probabilities are recomputed when a round serves more micro-batches
   * than one optimizer step, when each round is optimized more than once, and with vLLM's importance-sampling correction.
   */
  function resolveRollout(dpWorld: number): void {
    const value = <T,>(key: CanonicalKey, field: string, fallback: T, note: string): T => {
      const w = decided[key];
      if (w && w.fact.value !== null && typeof w.fact.value !== 'object') {
        prov[`rollout.${field}`] = fileProv(w);
        return w.fact.value as T;
      }
      const u = unknownOnly[key];
      prov[`rollout.${field}`] = { kind: 'default', owner: 'trl', note: u ? `${u.fact.rawKey} is not known statically (${u.fact.rawValue}); ${note}` : note };
      return fallback;
    };
    if (decided.rollout?.fact.value === 'online-dpo') {
      onlineDpo(value);
      return;
    }
    // The round holds whole groups of num_generations completions: TRL's GRPOConfig raises a ValueError otherwise, and
    // Unsloth raises per_device_train_batch_size to num_generations instead (unsloth rl.py).
    const ng = decided.numGenerations && typeof decided.numGenerations.fact.value === 'number' ? decided.numGenerations.fact.value : undefined;
    if (ng !== undefined && tools.includes('unsloth') && ((setup.micro_batch_size as number | undefined) ?? 8) % ng !== 0) {
      setup.micro_batch_size = ng;
      prov.micro_batch_size = { kind: 'default', owner: 'unsloth',
        note: `Unsloth raises per_device_train_batch_size to a multiple of num_generations (${ng})` };
    }
    const micro = (setup.micro_batch_size as number | undefined) ?? 1;
    const gas = (setup.gradient_accumulation_steps as number | undefined) ?? 1;
    const gbs = decided.generationBatchSize ? num(decided.generationBatchSize.fact.value as FactValue) : undefined;
    const spg = decided.stepsPerGeneration ? num(decided.stepsPerGeneration.fact.value as FactValue) : undefined;
    let batch: number;
    if (gbs !== undefined && Number.isInteger(gbs / dpWorld)) {
      batch = gbs / dpWorld;
      const w = decided.generationBatchSize!;
      prov['rollout.batch'] = { kind: 'file', file: w.file, line: w.location.line, key: `${w.fact.rawKey} / GPUs` };
    } else {
      batch = micro * (spg ?? gas);
      const w = decided.stepsPerGeneration;
      prov['rollout.batch'] = w ? { kind: 'file', file: w.file, line: w.location.line, key: `per_device_train_batch_size x ${w.fact.rawKey}` }
        : { kind: 'default', owner: 'trl', note: 'per_device_train_batch_size x steps_per_generation, which defaults to gradient_accumulation_steps' };
    }
    // num_generations defaults to 8 (GRPOConfig) or 2 (RLOOConfig).
    const groups = ng ?? (decided.rollout?.fact.value === 'rloo' ? 2 : 8);
    const at = decided.numGenerations ?? decided.rollout!;
    if ((batch * dpWorld) % groups !== 0) {
      problems.push({ ...at.location, severity: 'error', code: 'invalid-value', key: at.fact.rawKey,
        ...msg('the generation batch ({0} completions per GPU x {1} GPUs) is not a multiple of num_generations ({2}): the trainer stops with a ValueError',
          batch, dpWorld, groups) });
    }
    const completion = value('completionLen', 'completion_len', 256, 'GRPOConfig max_completion_length defaults to 256');
    const promptFact = decided.promptLen;
    const prompt = promptFact && typeof promptFact.fact.value === 'number' ? promptFact.fact.value : 512;
    if (overrides.seqLen === undefined) {
      setup.seq_len = prompt + completion;
      const lens = [promptFact, decided.completionLen].filter((w): w is WinningFact => w !== undefined);
      prov.seq_len = lens.length === 2
        ? { kind: 'file', file: lens[1].file, line: lens[1].location.line, key: `${lens[0].fact.rawKey} + ${lens[1].fact.rawKey}` }
        : { kind: 'default', owner: 'trl', note: `prompt ${prompt}${promptFact ? '' : ' (max_prompt_length: 512 in TRL releases that truncate prompts; set it to the longest prompt)'} + completion ${completion} tokens` };
    }
    const useVllm = decided.useVllm?.fact.value === true;
    const engine = engineOf(value, 'server', 'use_vllm=True generates with a vLLM server on other GPUs unless vllm_mode="colocate"');
    const rloo = decided.rollout?.fact.value === 'rloo';
    const beta = rloo ? value('klBeta', 'reference', 0.05, 'RLOOConfig beta defaults to 0.05: the reference scores every round')
      : value('klBeta', 'reference', 0, 'GRPOConfig beta defaults to 0.0 (0.04 before TRL 0.19): no reference model is loaded');
    const peftMethod = ['lora', 'qlora', 'ia3'].includes(String(setup.method ?? 'full'));
    const iterations = decided.numIterations ? num(decided.numIterations.fact.value as FactValue) ?? 1 : 1;
    const r: Record<string, unknown> = {
      batch, completion_len: completion, engine,
      reference: beta > 0 ? (peftMethod && !decided.referenceModel ? 'adapters-off' : 'copy') : 'none',
      old_logps: iterations > 1 || (spg ?? gas) > gas || useVllm,
      gather_weights: value('gatherForGeneration', 'gather_weights', true, 'ds3_gather_for_generation defaults to True'),
    };
    // A trl vllm-serve line in the launch script: the server's tensor parallelism, memory share and longest sequence.
    const srvFacts = [decided.vllmServerTp, decided.vllmServerMemoryFraction, decided.vllmServerMaxModelLen];
    if (engine === 'vllm-server' && srvFacts.some((f) => f !== undefined)) {
      const maxLen = numberOf(decided.vllmServerMaxModelLen, 0);
      r.vllm_server = { tensor_parallel: numberOf(decided.vllmServerTp, 1), memory_fraction: numberOf(decided.vllmServerMemoryFraction, 0.9),
        ...(maxLen > 0 ? { max_model_len: maxLen } : {}) };
      prov['rollout.vllm_server'] = fileProv(srvFacts.find((f) => f !== undefined)!);
    }
    if (engine === 'vllm-colocate') colocatedEngine(value, r, 0.3, 'vllm_gpu_memory_utilization defaults to 0.3');
    const oldWhy = iterations > 1 ? decided.numIterations : (spg ?? gas) > gas ? decided.stepsPerGeneration : useVllm ? decided.useVllm : undefined;
    prov['rollout.old_logps'] = oldWhy ? fileProv(oldWhy)
      : { kind: 'default', owner: 'trl', note: 'one optimization pass per round, one round per optimizer step and no vLLM: the training pass\'s own log-probabilities serve as the old policy\'s' };
    if (setup.loss === undefined) {
      setup.loss = 'full';
      prov.loss = { kind: 'default', owner: 'trl', note: 'the completion tokens\' log-probabilities are taken row by row from the logits (selective_log_softmax); use_liger_loss fuses them with the head' };
    }
    finishRollout(r);
  }

  /**
   * Online DPO (TRL OnlineDPOConfig / OnlineDPOTrainer, trl@013d375 and later: trl/trainer/online_dpo_trainer.py): each
   * micro-step generates two completions of up to max_new_tokens (64) for every prompt, then runs the policy and the
   * reference over prompt + completion, cut from the left to max_length (512). The reference is a frozen copy of the
   * model, or with PEFT the model with its adapters disabled (beta only weighs it). use_vllm generates in a colocated
   * engine unless vllm_mode says "server", with vllm_gpu_memory_utilization (gpu_memory_utilization before TRL 0.20) 0.55.
   */
  function onlineDpo(value: RolloutValue): void {
    prov['rollout.batch'] = { kind: 'default', owner: 'trl', note: 'two completions for each prompt of the micro-batch' };
    const completion = value('maxNewTokens', 'completion_len', 64, 'OnlineDPOConfig max_new_tokens defaults to 64');
    if (overrides.seqLen === undefined && setup.seq_len === undefined) {
      setup.seq_len = 512;
      prov.seq_len = { kind: 'default', owner: 'trl', note: 'OnlineDPOConfig max_length defaults to 512: prompt + completion, the prompt cut from the left' };
    }
    const engine = engineOf(value, 'colocate', 'use_vllm=True generates in a vLLM engine colocated with the policy unless vllm_mode="server"');
    const peftMethod = ['lora', 'qlora', 'ia3'].includes(String(setup.method ?? 'full'));
    const given = decided.referenceModel;
    prov['rollout.reference'] = given ? fileProv(given) : { kind: 'default', owner: 'trl', note: peftMethod
      ? 'OnlineDPOTrainer with a PEFT model and no ref_model: the reference is the model with its adapters disabled'
      : 'OnlineDPOTrainer without ref_model: a frozen copy of the model (create_reference_model)' };
    const r: Record<string, unknown> = {
      objective: 'online-dpo', batch: 2 * ((setup.micro_batch_size as number | undefined) ?? 1), completion_len: completion, engine,
      reference: peftMethod && !given ? 'adapters-off' : 'copy', old_logps: false,
      gather_weights: value('gatherForGeneration', 'gather_weights', true, 'ds3_gather_for_generation defaults to True'),
    };
    prov['rollout.objective'] = fileProv(decided.rollout!);
    if (engine === 'vllm-colocate') colocatedEngine(value, r, 0.55, 'OnlineDPOConfig vllm_gpu_memory_utilization defaults to 0.55');
    if (setup.loss === undefined) {
      setup.loss = 'full';
      prov.loss = { kind: 'default', owner: 'trl', note: 'OnlineDPOTrainer takes the completions\' log-probabilities from the model\'s logits: one log_softmax over the completion slice' };
    }
    finishRollout(r);
  }

  /** Where completions are generated: the policy's generate() unless use_vllm, then vllm_mode or the trainer's default mode. */
  function engineOf(value: RolloutValue, defaultMode: 'server' | 'colocate', note: string): 'generate' | 'vllm-colocate' | 'vllm-server' {
    const w = decided.useVllm;
    if (w?.fact.value !== true) {
      prov['rollout.engine'] = w ? fileProv(w) : { kind: 'default', owner: 'trl',
        note: 'use_vllm defaults to False: the policy generates with transformers on the training GPU' };
      return 'generate';
    }
    return value<string>('vllmMode', 'engine', defaultMode, note) === 'colocate' ? 'vllm-colocate' : 'vllm-server';
  }

  /** A colocated vLLM engine's share of the GPU (each trainer's default), tensor parallelism, sleep mode and weights. */
  function colocatedEngine(value: RolloutValue, r: Record<string, unknown>, fraction: number, fractionNote: string): void {
    r.vllm_memory_fraction = value('vllmMemoryFraction', 'vllm_memory_fraction', fraction, fractionNote);
    r.vllm_tensor_parallel = value('vllmTensorParallel', 'vllm_tensor_parallel', 1,
      'vllm_tensor_parallel_size defaults to 1: each GPU\'s engine holds the whole model');
    r.vllm_sleep = value('vllmSleep', 'vllm_sleep', false, 'vllm_enable_sleep_mode defaults to False: the engine keeps its share while the policy trains');
    r.vllm_shared_weights = value('vllmSharedWeights', 'vllm_shared_weights', false, 'TRL\'s colocated engine loads its own copy of the weights');
  }

  /** Reward models and the rollout block, shared by GRPO / RLOO and online DPO. */
  function finishRollout(r: Record<string, unknown>): void {
    // Reward models named by Hub id: resolved like the policy (catalog, model folder, or the Hub when allowed); one that
    // cannot be resolved is a warning at reward_funcs, not counted.
    const rm = decided.rewardModels;
    if (rm && Array.isArray(rm.fact.value)) {
      const models: Array<{ model: string; architecture: Record<string, unknown> }> = [];
      for (const id of rm.fact.value as readonly string[]) {
        const t = resolveModel(id);
        if (t.ok) models.push({ model: id, architecture: t.model.config });
        else problems.push({ ...rm.location, severity: 'warning', code: 'not-modeled', key: rm.fact.rawKey,
          ...rewardModelNotCounted(id, t.message, rm.fact.rawKey) });
      }
      r.reward_models = models;
      prov['rollout.reward_models'] = fileProv(rm);
    }
    setup.rollout = r;
    const w = decided.rollout!;
    prov.rollout = fileProv(w);
  }

  // DeepSpeed batch derivation: train_batch_size = micro x accumulation x data-parallel world size.
  const worldSize = ((setup.gpus_per_node as number | undefined) ?? 1) * ((setup.nodes as number | undefined) ?? 1);
  const dpWorld = worldSize / (((setup.tensor_parallel as number | undefined) ?? 1) * ((setup.pipeline_parallel as number | undefined) ?? 1));
  const tb = decided.trainBatchSize ? num(decided.trainBatchSize.fact.value as FactValue) : undefined;
  if (tb !== undefined) {
    const w = decided.trainBatchSize!;
    const micro = setup.micro_batch_size as number | undefined;
    const gas = setup.gradient_accumulation_steps as number | undefined;
    if (micro !== undefined && gas !== undefined) {
      if (micro * gas * dpWorld !== tb) {
        problems.push({ ...w.location, severity: 'error', code: 'batch-size-mismatch', key: w.fact.rawKey,
          ...msg('train_batch_size {0} != {1} (micro) x {2} (accumulation) x {3} (GPUs) = {4}', tb, micro, gas, dpWorld, micro * gas * dpWorld) });
      }
    } else if (micro !== undefined) {
      const g = tb / (micro * dpWorld);
      if (Number.isInteger(g) && g > 0) {
        setup.gradient_accumulation_steps = g;
        prov.gradient_accumulation_steps = { kind: 'file', file: w.file, line: w.location.line, key: `${w.fact.rawKey} / (micro x GPUs)` };
      }
    } else {
      const m = tb / ((gas ?? 1) * dpWorld);
      if (Number.isInteger(m) && m > 0) {
        setup.micro_batch_size = m;
        prov.micro_batch_size = { kind: 'file', file: w.file, line: w.location.line, key: `${w.fact.rawKey} / (accumulation x GPUs)` };
      }
    }
  }
  fromDefault('micro_batch_size', 'micro_batch_size');
  fromDefault('gradient_accumulation_steps', 'gradient_accumulation_steps');
  if (decided.rollout) resolveRollout(dpWorld);
  fromDefault('seq_len', 'seq_len');
  fromDefault('batch_lengths', 'batch_lengths');
  fromDefault('gradient_checkpointing', 'gradient_checkpointing');
  fromDefault('attention', 'attention');
  fromDefault('loss', 'loss');

  // Offload sanity: DeepSpeed offload without a ZeRO stage does nothing.
  if ((setup.offload_optimizer && setup.offload_optimizer !== 'none') && !setup.zero_stage && !setup.fsdp) {
    const w = decided.offloadOptimizer;
    if (w) problems.push({ ...w.location, severity: 'warning', code: 'offload-needs-zero', key: w.fact.rawKey,
      ...msg('optimizer offload needs ZeRO stage 1-3 (or FSDP); without it nothing is offloaded') });
  }

  if (overrides.gpu) {
    setup.gpu = overrides.gpu;
    prov.gpu = overrides.origin === 'setting' ? { kind: 'setting', setting: 'vramLens.gpu' } : { kind: 'flag', flag: '--gpu' };
  } else {
    fromFact('gpu', 'gpu', (v) => (typeof v === 'string' ? v : undefined));
  }

  // Model resolution.
  const ref = setup.model as string | undefined;
  const modelAt = decided.model?.location ?? { file: files[0]?.file ?? '', start: 0, end: 0, line: 1, column: 1 };
  if (!ref) {
    const unknown = unknownOnly.model;
    problems.push({ ...(unknown?.location ?? modelAt), severity: 'error', code: 'unknown-model',
      ...(unknown ? msg('the model ({0}) is not known statically: pass --model or set vramLens.model', unknown.fact.rawValue)
        : msg('no model found in these files: pass --model <hub id | dir | config.json> or set vramLens.model')) });
    return { provenance, problems, decided, tools, gpu: setup.gpu as string | undefined };
  }
  const r = resolveModel(ref);
  if (!r.ok) {
    problems.push({ ...modelAt, severity: 'error', code: 'unknown-model', ...msg('{0}', r.message), key: decided.model?.fact.rawKey });
    return { provenance, problems, decided, tools, gpu: setup.gpu as string | undefined };
  }
  setup.architecture = r.model.config;
  prov.architecture = { kind: 'catalog', entry: r.model.source };
  for (const note of r.model.notes ?? []) problems.push({ ...modelAt, severity: 'warning', code: 'model-files', ...msg('{0}', note),
    key: decided.model?.fact.rawKey });
  // A model id given to a TRL trainer is loaded with dtype "auto" unless model_init_kwargs says otherwise
  // (trl@006d32c: GRPOTrainer / SFTTrainer / DPOTrainer, model_init_kwargs.get("dtype", "auto")), and so is a
  // from_pretrained call without a dtype since transformers 5 (huggingface/transformers PR 42805): the checkpoint's dtype.
  const loadedBy = decided.model?.fact.rawKey === 'model' && decided.model.fact.tool === 'trl' ? 'trainer'
    : decided.model?.fact.rawKey === 'pretrained_model_name_or_path' ? 'from_pretrained' : undefined;
  const ckptDtype = checkpointDtype(r.model.config);
  if (loadedBy && !decided.weightsDtype && prov.weights_dtype?.kind === 'default' && ckptDtype && setup.weights_dtype === 'fp32') {
    const name = ckptDtype === 'bf16' ? 'bfloat16' : 'float16';
    setup.weights_dtype = ckptDtype;
    prov.weights_dtype = loadedBy === 'trainer'
      ? { kind: 'default', owner: 'trl', note: `the trainer loads a model id with dtype="auto": the checkpoint's ${name}` }
      : { kind: 'default', owner: 'hf-trainer', note: `from_pretrained without a dtype loads the checkpoint's ${name} (dtype="auto", the default since transformers 5; 4.x loaded float32: pass dtype to pin it)` };
  }
  // A pre-quantized checkpoint (bitsandbytes, GPTQ, AWQ upload) is loaded in its stored bits whatever the script says;
  // training it needs adapters, as with quantization set in the files.
  const stored = setup.quantization === undefined ? quantizationFromConfig(r.model.config) : undefined;
  if (stored) {
    setup.quantization = Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== undefined));
    prov.quantization = { kind: 'catalog', entry: `${r.model.source}: the checkpoint's quantization_config` };
    const m = (setup.method as string | undefined) ?? 'full';
    if (m === 'full' || (m === 'lora' && stored.bits === 4)) setup.method = 'qlora';
  }
  if (r.model.parameters !== undefined) {
    setup.parameters = r.model.parameters;
    prov.parameters = { kind: 'catalog', entry: r.model.source };
  }
  // Knowledge distillation: the teacher (torchtune teacher_model) is resolved like the student.
  const teacherFact = decided.teacherModel ?? unknownOnly.teacherModel;
  if (teacherFact) {
    const id = typeof teacherFact.fact.value === 'string' ? teacherFact.fact.value : undefined;
    const t = id ? resolveModel(id) : undefined;
    if (t?.ok) {
      // torchtune's KD recipes add a chunked forward KL to the cross-entropy; TRL's GKDTrainer trains on the
      // generalized JSD alone, with GKDConfig's beta (0.5 unless set).
      const gkd = teacherFact.fact.tool !== 'torchtune';
      const beta = gkd && decided.klBeta && typeof decided.klBeta.fact.value === 'number' ? decided.klBeta.fact.value : 0.5;
      setup.distillation = {
        teacher_model: id, teacher_architecture: t.model.config, ...(t.model.parameters !== undefined ? { teacher_parameters: t.model.parameters } : {}),
        ...(gkd ? {
          loss: 'jsd', jsd_beta: Math.min(1, Math.max(0, beta)),
          // GKDConfig lmbda 0.5 and max_new_tokens 128 unless set.
          on_policy: Math.min(1, Math.max(0, numberOf(decided.onPolicyFraction, 0.5))),
            max_new_tokens: Math.max(1, Math.round(numberOf(decided.maxNewTokens, 128))),
        } : {}),
      };
      prov.distillation = fileProv(teacherFact);
    } else {
      problems.push({ ...teacherFact.location, severity: 'warning', code: 'not-modeled', key: teacherFact.fact.rawKey,
        ...msg('{0}: the teacher model ({1}) is not known, so its weights and the distillation loss are not counted: {2}', teacherFact.fact.rawKey,
          teacherFact.fact.rawValue,
          t && !t.ok ? t.message : 'no Hub id for this builder') });
    }
  }
  const parsed = TrainingSetupSchema.safeParse(setup as TrainingSetupInput);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? '');
      const w = decided[keyOfField(field)];
      const where = w && issue.path.length === 1 ? `\`${w.fact.rawKey}\`` : `\`${issue.path.join('.')}\``;
      const written = w && issue.path.length === 1 ? quoteWritten(w.fact.rawValue) : undefined;
      problems.push({ ...(w?.location ?? modelAt), severity: 'error', code: 'invalid-value', key: w?.fact.rawKey ?? field,
        ...describeSetupIssue(issue, where, valueAt(setup, issue.path), written) });
    }
    return { provenance, problems, decided, tools };
  }
  return { setup: parsed.data, provenance, problems, decided, tools, gpu: parsed.data.gpu };
}

const OPTIMIZERS = new Set(['adamw', 'adamw_fused', 'adamw_hf', 'adamw_8bit', 'paged_adamw_8bit', 'paged_adamw', 'adafactor', 'sgd', 'sgd_momentum', 'lion',
  'lion_8bit', 'adam_mini', 'muon', 'adamw_4bit', 'none']);

/** A rollout field from its winning fact, or the trainer's default with the note that says so. */
type RolloutValue = <T>(key: CanonicalKey, field: string, fallback: T, note: string) => T;

const FIELD_KEYS: Record<string, CanonicalKey> = {
  micro_batch_size: 'microBatchSize', gradient_accumulation_steps: 'gradientAccumulationSteps', seq_len: 'seqLen', optimizer: 'optimizer',
  gradient_checkpointing: 'gradientCheckpointing', attention: 'attention', weights_dtype: 'weightsDtype', mixed_precision: 'mixedPrecision',
  zero_stage: 'zeroStage', fsdp: 'fsdp', model: 'model', method: 'method', loss: 'loss', gpus_per_node: 'gpusPerNode', nodes: 'nodes',
};

/** The dtype a checkpoint's config.json stores its weights in (torch_dtype, or dtype in newer transformers). */
function checkpointDtype(config: Readonly<Record<string, unknown>>): 'bf16' | 'fp16' | undefined {
  const d = config.torch_dtype ?? config.dtype;
  return d === 'bfloat16' ? 'bf16' : d === 'float16' ? 'fp16' : undefined;
}

/** A winning fact's number, or the default when it is absent or not a number. */
function numberOf(w: WinningFact | undefined, dflt: number): number {
  return w && typeof w.fact.value === 'number' ? w.fact.value : dflt;
}

/** Where a winning fact was written: its file, line and key. */
function fileProv(w: WinningFact): Provenance {
  if (w.bundled) return { kind: 'default', owner: w.bundled.owner, note: `${w.fact.rawKey} in ${w.bundled.note}` };
  return { kind: 'file', file: w.file, line: w.location.line, key: w.fact.rawKey };
}

function keyOfField(field: string): CanonicalKey {
  return FIELD_KEYS[field] ?? 'model';
}
