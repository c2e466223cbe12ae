// estimate(): TrainingSetup -> per-GPU memory for the busiest rank, phase by phase, each term with its formula.
// Pure and deterministic; no I/O, no clock. Sources are cited next to each term.
import { type Architecture, attentionLayerCount, countParameters, FUSED_EXPERT_FAMILIES, linearModules, parseArchitecture, withFusedExperts, withSequentialExperts } from '../architecture';
import type { Assumption, EstimateResult, Layout, Phase, Warning } from '../model';
import { generationBatch, type Provenance, ROLLOUT_DEFAULT_NOTES, SCHEMA_DEFAULT_NOTES, type TrainingSetup } from '../setup';
import { galoreShapes } from '../terms/galore';
import { recurrentStates } from '../terms/kv-cache';
import { nf4LoadPhase } from '../terms/nf4-load';
import { quantizesWholeAtLoad } from '../terms/quantization';
import type { ComputeMode } from '../terms/saved-tensors';
import { variableLengthCache } from '../terms/variable-length';
import { formatBytes, formatCount, GiB } from '../units';
import { olderThan } from '../util/version';
import type { EstimateContext, EstimateOptions } from './context';
import { dtypeBytes, EAGER_ONLY_ATTENTION } from './dtypes';
import { hostMemory } from './host';
import { matchModules, memoInventory, parameterTargets } from './inventory';
import { fusedExpertsIn } from './normalize';
import { DEFAULT_CUDA_CONTEXT_BYTES, runtimeTerms } from './runtime';
import { busiestStage } from './stage';
export { type EstimateOptions } from './context';
export { DEFAULT_CUDA_CONTEXT_BYTES, ALLOCATOR_FRAGMENTATION } from './runtime';
export { parameterTargets, type ParameterTarget } from './inventory';
export { quantizesWholeAtLoad } from '../terms/quantization';
export { fusedExpertsIn } from './normalize';

/**
 * Per-GPU memory estimate. Never throws on user input: impossible values come back as errors. Lean mode (the advice
 * search) skips formula text and assumptions; the items shown to the user are estimated again in full.
 */
export function estimate(setupAsGiven: TrainingSetup, opts: EstimateOptions = {}): EstimateResult {
  // A model whose own code fixes checkpointing or attention (Architecture.modelCode) runs with what its code sets.
  const parsed = parseArchitecture(setupAsGiven.architecture);
  const code = parsed.ok ? parsed.arch.modelCode : undefined;
  const checkpointingIgnored = parsed.ok && code && setupAsGiven.gradient_checkpointing !== 'none' ? parsed.arch.layers : undefined;
  const attentionIgnored = code && setupAsGiven.attention !== code.attention ? setupAsGiven.attention : undefined;
  const setupIn: TrainingSetup = code && (checkpointingIgnored !== undefined || attentionIgnored !== undefined)
    ? { ...setupAsGiven, gradient_checkpointing: 'none', attention: code.attention }
    : setupAsGiven;
  // Layer-wise GaLore steps each parameter in its gradient hook: the optimizer runs in the backward.
  const galoreSetup = setupIn.galore?.layerwise && !setupIn.optimizer_in_backward ? { ...setupIn, optimizer_in_backward: true } : setupIn;
  // BAdam trains one decoder layer at a time (BlockOptimizer, badam_mode layer): a one-layer 'freeze' run for the
  // parameters, gradients and optimizer state, with an fp32 copy of the active block when the weights are 16-bit. Its
  // worst point is the first layer active: every layer above keeps what its input's gradient needs.
  const badamLayer = setupIn.badam !== undefined && setupIn.badam.mode === 'layer' && setupIn.method === 'full';
  // BAdam's ratio mode (BlockOptimizerRatio) trains every decoder-layer tensor (the embedding and the head frozen) on a
  // share of its entries: each gradient is cut to a sparse COO tensor by a post-accumulate hook, and its own sparse Adam
  // keeps two states for those entries only, in the parameters' dtype, with no fp32 copy.
  const badamRatio = setupIn.badam?.mode === 'ratio' && setupIn.method === 'full' ? setupIn.badam.update_ratio : undefined;
  const setup: TrainingSetup = badamLayer
    ? { ...galoreSetup, method: 'freeze', freeze_trainable_layers: 1, master_weights: galoreSetup.weights_dtype !== 'fp32' || galoreSetup.master_weights }
    : badamRatio !== undefined
      ? { ...galoreSetup, method: 'freeze', freeze_trainable_layers: Number.MAX_SAFE_INTEGER, master_weights: false, optimizer: 'adamw', optimizer_in_backward: false }
      : galoreSetup;
  if (!parsed.ok) return { ok: false, errors: parsed.problems.map((p) => ({ key: `architecture.${p.field}`, message: p.message })) };
  // Llama 4 under bitsandbytes: the experts become per-expert linear layers (quantized, targetable by LoRA).
  const bnb = setup.quantization !== undefined && setup.quantization.type !== 'gptq' && setup.quantization.type !== 'awq';
  // transformers 5 fuses the experts of Mixtral, Qwen-MoE, DeepSeek and GLM-4.5 into 3-D parameters. Unsloth (2026.6 on)
  // swaps them back for per-expert 4-bit linears when it loads a model in 4 bits (unslothai/unsloth#4032), so its runs
  // are estimated with per-expert linears.
  const baseArch = parsed.arch;
  const fusedFamily = FUSED_EXPERT_FAMILIES.has(baseArch.family) && baseArch.moe !== undefined;
  const fuseExperts = fusedFamily && fusedExpertsIn(setup, baseArch);
  const a = parsed.arch.family === 'llama4' && bnb ? withSequentialExperts(parsed.arch) : fuseExperts ? withFusedExperts(parsed.arch) : parsed.arch;
  let teacher: { arch: Architecture; params: number } | undefined;
  if (setup.distillation) {
    const t = parseArchitecture(setup.distillation.teacher_architecture);
    if (!t.ok) return { ok: false, errors: t.problems.map((p) => ({ key: `distillation.teacher_architecture.${p.field}`, message: p.message })) };
    teacher = { arch: t.arch, params: setup.distillation.teacher_parameters ?? countParameters(t.arch).total };
  }
  // GRPO reward models named by Hub id: frozen sequence classifiers (one score) beside the policy.
  const rewardModels: Array<{ model: string; arch: Architecture; params: number; largestBlock: number }> = [];
  for (const [i, rm] of (setup.rollout?.reward_models ?? []).entries()) {
    const t = parseArchitecture(rm.architecture);
    if (!t.ok) return { ok: false, errors: t.problems.map((p) => ({ key: `rollout.reward_models.${i}.architecture.${p.field}`, message: `${rm.model}: ${p.message}` })) };
    const count = countParameters(t.arch, 'seq_cls', 1);
    rewardModels.push({ model: rm.model, arch: t.arch, params: rm.parameters ?? count.total, largestBlock: count.largestBlock });
  }
  // TRL GKD: the student trains on the generalized JSD against the teacher (not the cross-entropy), outside online RL.
  const gkd = teacher !== undefined && setup.distillation?.loss === 'jsd' && !setup.rollout;
  const warnings: Warning[] = [];
  if (code && checkpointingIgnored !== undefined) {
    warnings.push({ key: 'gradient_checkpointing', code: 'no-effect', message: `gradient checkpointing has no effect on ${code.name}: its ${code.file} (remote code, and Axolotl's copy) calls every decoder layer directly, so all ${checkpointingIgnored} layers keep their activations; estimated without checkpointing` });
  }
  const assumptions: Assumption[] = [];
  const prov = opts.provenance ?? {};
  const given = (k: keyof TrainingSetup): boolean => prov[k] !== undefined && prov[k]!.kind !== 'default';
  // What the chosen GPU cannot run, where the files ask for it outright (a tool's default such as Axolotl's bf16: auto
  // adapts to the GPU): bf16 without bf16 hardware (Turing, Volta, Pascal: recent PyTorch emulates its matmuls, much
  // slower, older releases refuse bf16 training) and FlashAttention-2, whose kernels need NVIDIA Ampere or newer or an
  // AMD Instinct MI200 / MI300 ("FlashAttention only supports Ampere GPUs or newer").
  const spec = opts.gpu?.spec;
  if (spec && !opts.lean) {
    const bf16Key = setupAsGiven.mixed_precision === 'bf16' && given('mixed_precision') ? 'mixed_precision' : setupAsGiven.weights_dtype === 'bf16' && given('weights_dtype') ? 'weights_dtype' : undefined;
    if (bf16Key && !spec.bf16) {
      warnings.push({ key: bf16Key, code: 'gpu-unsupported', message: `${spec.id} has no bf16 hardware: recent PyTorch emulates bf16 matmuls on it (much slower) and older releases refuse bf16 training; use fp16 mixed precision on this GPU` });
    }
    const flashCapable = (spec.vendor === 'nvidia' || spec.vendor === 'amd') && spec.bf16;
    if (setupAsGiven.attention === 'flash' && given('attention') && !flashCapable) {
      warnings.push({ key: 'attention', code: 'gpu-unsupported', severity: 'error', message: `FlashAttention-2 does not run on ${spec.id}: its kernels need an NVIDIA Ampere or newer GPU, or an AMD Instinct MI200 / MI300; use sdpa (PyTorch picks a kernel the GPU has, and keeps no s x s matrix either)` });
    }
  }
  if (code && attentionIgnored !== undefined && given('attention')) {
    warnings.push({ key: 'attention', code: 'no-effect', message: `attention '${attentionIgnored}' has no effect on ${code.name}: its ${code.file} sets flash_attention_2 for every MLA layer; estimated with it` });
  } else if (code && !given('attention') && !opts.lean) {
    assumptions.push({ key: 'attention', value: code.attention, source: `${code.name}'s ${code.file}: KimiLinearModel sets flash_attention_2 whatever attention is asked for` });
  }
  if (code && !opts.lean) {
    assumptions.push({ key: 'model', value: `${code.file} (trust_remote_code)`, source: `VRAM Lens: ${code.modeled}` });
  }
  // A tool's default names the tool; a value VRAM Lens inferred (owner 'VRAM Lens') or left at the schema default
  // says so with its reason.
  const defaultSource = (p: Provenance | undefined, schemaNote: string): string =>
    p?.kind !== 'default' ? `VRAM Lens default: ${schemaNote}` : p.owner === 'VRAM Lens' ? `VRAM Lens default: ${p.note ?? schemaNote}` : `default of ${p.owner}${p.note ? `: ${p.note}` : ''}`;
  if (!opts.lean) for (const [key, note] of Object.entries(SCHEMA_DEFAULT_NOTES)) {
    const k = key as keyof TrainingSetup;
    if (k === 'fsdp_shard_embeddings' && (setup.fsdp === 'none' || setup.fsdp === 'no_shard')) continue; // only matters under FSDP
    if (k === 'kbit_upcast' && !setup.quantization && setup.method !== 'qlora') continue; // only matters for 4/8-bit models
    if (k === 'attention' && code) continue; // fixed by the model's code (above)
    const p = prov[k];
    if (p === undefined || p.kind === 'default') {
      const v = setup[k];
      if (v === undefined) continue;
      // GKD trains on the generalized JSD, not the cross-entropy: 'full' means its logits are whole (no fused kernel).
      const gkdLoss = k === 'loss' && gkd;
      assumptions.push({ key: k, value: String(v), source: defaultSource(p, gkdLoss ? 'the generalized JSD over the whole logits of the student and the teacher (no Liger fused linear JSD)' : note) });
    }
  }

  if (!opts.lean && gkd) {
    const d = setup.distillation!;
    assumptions.push({ key: 'distillation', value: `generalized JSD, beta ${d.jsd_beta}${d.on_policy > 0 ? `, on-policy rounds (lmbda ${d.on_policy}) of ${d.max_new_tokens} new tokens` : ''}`,
      source: 'TRL GKDTrainer: the loss runs over the completion positions, counted here over all seq_len positions (the most a batch holds); beta, lmbda and max_new_tokens are GKDConfig\'s (0.5, 0.5, 128 unless set); an on-policy round generates the micro-batch\'s completions after a prompt of seq_len minus max_new_tokens' });
  }

  // A pre-quantized checkpoint's quantization comes from its catalog entry (or one derived from its name), not a file.
  const qp = prov.quantization;
  if (!opts.lean && setup.quantization && qp?.kind === 'catalog') {
    const q = setup.quantization;
    assumptions.push({ key: 'quantization', value: `${q.type} ${q.bits}-bit`, source: qp.entry });
  }

  // The fields of the rollout and galore blocks that no file wrote, or that a tool's default filled in.
  const blockAssumption = (block: string, field: string, value: unknown, note: string): void => {
    const p = (prov as Readonly<Record<string, Provenance | undefined>>)[`${block}.${field}`];
    if (p === undefined || p.kind === 'default') {
      assumptions.push({ key: `${block}.${field}`, value: String(value), source: defaultSource(p, note) });
    }
  };
  if (!opts.lean && setup.rollout) {
    const r = setup.rollout;
    for (const [f, note] of Object.entries(ROLLOUT_DEFAULT_NOTES) as Array<[keyof typeof r, string]>) {
      if ((f === 'vllm_memory_fraction' || f === 'vllm_sleep' || f === 'vllm_shared_weights' || f === 'vllm_tensor_parallel') && r.engine !== 'vllm-colocate') continue;
      if (f === 'gather_weights' && setup.zero_stage !== 3) continue;
      // Online DPO generates two completions per prompt of each micro-batch and takes no old policy's log-probabilities.
      if ((f === 'batch' || f === 'old_logps') && r.objective === 'online-dpo') continue;
      if (f === 'vllm_server' && (r.engine !== 'vllm-server' || r.vllm_server)) continue;
      blockAssumption('rollout', f, f === 'reward_models' ? (r.reward_models.length > 0 ? r.reward_models.map((m) => m.model).join(', ') : 'none')
        : f === 'vllm_server' ? 'tensor_parallel 1, memory_fraction 0.9' : r[f], note);
    }
  }
  if (!opts.lean && setup.galore) {
    blockAssumption('galore', 'rank', setup.galore.rank, 'rank 128 (transformers\' GaLore default)');
    blockAssumption('galore', 'target_modules', setup.galore.target_modules, 'every linear layer');
  }

  // ---- Layout -------------------------------------------------------------------------------------------
  const world = setup.gpus_per_node * setup.nodes;
  // LLaMA-Factory refuses ratio-based BAdam in distributed training (hparams/parser.py: "does not yet support
  // distributed training, use layer-wise BAdam"); its sparse gradients fit no data-parallel reduction.
  if (badamRatio !== undefined && world > 1) warnings.push({ key: 'badam', message: `BAdam's ratio mode runs on one GPU only (LLaMA-Factory stops on ${world} GPUs: use badam_mode layer)` });
  const tp = setup.tensor_parallel;
  const pp = setup.pipeline_parallel;
  const cp = setup.context_parallel;
  if (world % (tp * pp) !== 0) {
    return { ok: false, errors: [{ key: 'tensor_parallel', message: `GPUs (${world}) must be a multiple of tensor_parallel x pipeline_parallel (${tp} x ${pp})` }] };
  }
  if (world % (tp * pp * cp) !== 0) {
    return { ok: false, errors: [{ key: 'context_parallel', message: `GPUs (${world}) must be a multiple of tensor_parallel x pipeline_parallel x context_parallel (${tp} x ${pp} x ${cp})` }] };
  }
  if (setup.seq_len % cp !== 0) {
    return { ok: false, errors: [{ key: 'context_parallel', message: `seq_len (${setup.seq_len}) must split evenly over context_parallel (${cp}) GPUs` }] };
  }
  if (a.heads % tp !== 0) warnings.push({ key: 'tensor_parallel', message: `attention heads (${a.heads}) are not divisible by tensor_parallel (${tp})` });
  // Context-parallel ranks share each batch (they split its sequences), so they are not data-parallel for the batch,
  // but FSDP and ZeRO shard over them as over data-parallel ranks (torchtitan's dp_shard x cp mesh).
  const dp = world / (tp * pp * cp);
  const fsdp = setup.fsdp !== 'none' && setup.fsdp !== 'no_shard';
  if (fsdp && setup.zero_stage > 0) {
    warnings.push({ key: 'fsdp', message: 'both FSDP and a ZeRO stage are set; FSDP is used and zero_stage ignored' });
  }
  const zero = fsdp ? 0 : setup.zero_stage;
  // bitsandbytes' 8-bit layers hold int8 Int8Params with their row scales beside them: FSDP refuses to flatten integer
  // parameters with 16-bit ones (accelerate#1415, bitsandbytes#1709; PEFT's FSDP-QLoRA is 4-bit only, peft#2833) and
  // DeepSpeed ZeRO-3 cannot partition them either (bitsandbytes#89). 4-bit layers can, through bnb_4bit_quant_storage.
  if (setup.quantization?.type === 'int8' && (fsdp || zero === 3)) {
    warnings.push({ key: fsdp ? 'fsdp' : 'zero_stage', message: `bitsandbytes 8-bit layers cannot be sharded by ${fsdp ? 'FSDP (integer parameters: accelerate#1415, bitsandbytes#1709)' : 'DeepSpeed ZeRO-3 (bitsandbytes#89)'}: training stops at start-up; use 4-bit QLoRA with bnb_4bit_quant_storage, or ZeRO-2` });
  }
  // MiCS (DeepSpeed mics_shard_size) shards ZeRO's states within groups of that many GPUs, like FSDP's hybrid shard.
  const shardGroup = setup.fsdp === 'hybrid_shard' ? Math.min(dp * cp, setup.fsdp_shard_size ?? setup.gpus_per_node)
    : !fsdp && setup.zero_stage >= 1 && setup.zero_mics_shard_size !== undefined ? Math.min(dp * cp, setup.zero_mics_shard_size) : dp * cp;
  const shardOptimizer = fsdp || zero >= 1 ? shardGroup : 1;
  const shardGrads = setup.fsdp === 'full_shard' || setup.fsdp === 'shard_grad_op' || setup.fsdp === 'hybrid_shard' || zero >= 2 ? shardGroup : 1;
  const shardParams = setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard' || zero === 3 ? shardGroup : 1;
  if (setup.offload_params !== 'none' && !(zero === 3 || fsdp)) {
    warnings.push({ key: 'offload_params', message: 'parameter offload needs ZeRO stage 3 (or FSDP); it is ignored' });
  }
  if (setup.offload_optimizer !== 'none' && zero === 0 && !fsdp) {
    warnings.push({ key: 'offload_optimizer', message: 'optimizer offload needs a ZeRO stage (1-3) or FSDP; it is ignored' });
  }
  const offloadOpt = setup.offload_optimizer !== 'none' && (zero > 0 || fsdp);
  const offloadParams = setup.offload_params !== 'none' && (zero === 3 || fsdp);
  // FSDP's CPUOffload moves parameters, gradients and the optimizer step to the host together.
  const fsdpOffload = fsdp && (setup.offload_params !== 'none' || setup.offload_optimizer !== 'none');
  const ep = Math.max(1, setup.expert_parallel);
  // Expert parallelism is carved out of the data-parallel ranks (they hold different experts of the same layers).
  if (ep > 1 && (dp * cp) % ep !== 0) {
    return { ok: false, errors: [{ key: 'expert_parallel', message: `expert_parallel (${ep}) must divide the data-parallel GPUs (${dp * cp})` }] };
  }
  if (ep > 1 && a.moe && a.moe.experts % ep !== 0) warnings.push({ key: 'expert_parallel', message: `${a.moe.experts} experts do not split evenly over expert_parallel (${ep})` });
  const globalBatch = setup.micro_batch_size * setup.gradient_accumulation_steps * dp;
  const layout: Layout = { world, dataParallel: dp, shardGroup, tensorParallel: tp, pipelineParallel: pp, expertParallel: ep, contextParallel: cp, globalBatch };
  const rollout = setup.rollout;
  // TRL GKD's on-policy rounds: with probability lmbda the student regenerates the micro-batch's completions with
  // generate() (its own KV cache, the weights gathered under ZeRO-3) before the training step; no reference scores it.
  const gkdGeneration = gkd && setup.distillation!.on_policy > 0
    ? { batch: setup.micro_batch_size, completion_len: Math.min(setup.distillation!.max_new_tokens, setup.seq_len - 1), engine: 'generate' as const, vllm_memory_fraction: 0.3,
      vllm_sleep: false, vllm_shared_weights: false, reference: 'none' as const, old_logps: false, gather_weights: true }
    : undefined;
  // TRL OnlineDPOTrainer: each micro-step generates two completions per prompt, then trains on the pair.
  const onlineDpo = rollout?.objective === 'online-dpo';
  const generation = rollout ? { ...rollout, batch: generationBatch(setup) } : gkdGeneration;
  if (onlineDpo && !opts.lean) {
    assumptions.push({ key: 'rollout.batch', value: `${2 * setup.micro_batch_size} completions per micro-step`, source: 'TRL OnlineDPOTrainer: two completions for each prompt of the micro-batch (the rollout block\'s batch is not used)' });
  }
  if (onlineDpo && rollout.reference === 'none') {
    return { ok: false, errors: [{ key: 'rollout.reference', message: "online DPO always scores the completions with a reference: a frozen copy of the model ('copy') or, with PEFT, the model with its adapters disabled ('adapters-off')" }] };
  }
  if (rollout && setup.preference) {
    return { ok: false, errors: [{ key: 'rollout', message: 'rollout (online RL with generation) and preference (offline DPO-style training) cannot both be set' }] };
  }
  if (rollout && rollout.completion_len >= setup.seq_len) {
    return { ok: false, errors: [{ key: 'rollout.completion_len', message: `completion_len (${rollout.completion_len}) must be shorter than seq_len (${setup.seq_len}), which counts the prompt and the completion` }] };
  }
  // A colocated vLLM engine takes a fixed share of the GPU's memory, so the GPU must be known.
  const vllmShare = rollout?.engine === 'vllm-colocate' ? (opts.gpu ? rollout.vllm_memory_fraction * opts.gpu.memoryBytes : 0) : 0;
  if (rollout?.engine === 'vllm-colocate' && !opts.gpu) {
    warnings.push({ key: 'rollout.engine', message: `the colocated vLLM engine takes ${rollout.vllm_memory_fraction} of the GPU's memory; choose a GPU to count it` });
  }

  if ((setup.method === 'lora' || setup.method === 'qlora') && !setup.lora) {
    warnings.push({ key: 'lora', message: `method '${setup.method}' without a lora block: PEFT defaults used (r=8 on q_proj, v_proj)` });
  }
  const lora = setup.lora ?? ((setup.method === 'lora' || setup.method === 'qlora') ? { r: 8, dropout: 0, target_modules: ['q_proj', 'v_proj'], modules_to_save: [], dtype: 'fp32' as const, use_dora: false } : undefined);
  // Copy the setup only when defaults must be filled in (the advice search calls this thousands of times).
  let effSetup: TrainingSetup = lora === setup.lora ? setup : { ...setup, lora };
  if (setup.method === 'ia3' && !setup.ia3) {
    warnings.push({ key: 'ia3', message: "method 'ia3' without an ia3 block: PEFT defaults used (k_proj, v_proj, down_proj; down_proj feed-forward)" });
    effSetup = { ...effSetup, ia3: { target_modules: ['k_proj', 'v_proj', 'down_proj'], feedforward_modules: ['down_proj'], dtype: 'fp32' } };
  }
  const ia3 = setup.method === 'ia3' ? effSetup.ia3 : undefined;
  if (setup.method === 'qlora' && !setup.quantization) {
    if (effSetup === setup) effSetup = { ...setup };
    warnings.push({ key: 'quantization', message: "method 'qlora' without a quantization block: 4-bit NF4 assumed" });
    effSetup.quantization = { bits: 4, type: 'nf4', double_quant: false, scope: 'all-linear' };
    assumptions.push({ key: 'quantization', value: 'nf4 4-bit', source: 'VRAM Lens default for qlora' });
  }
  if (setup.quantization && setup.method === 'full') {
    warnings.push({ key: 'quantization', message: 'quantized weights cannot be fully fine-tuned; use method lora/qlora' });
  }

  const mods = linearModules(a);
  const { targets, inv } = memoInventory(effSetup, a, mods);
  const oldTorchaoNf4 = quantizesWholeAtLoad(effSetup);
  if (setup.galore && setup.method !== 'full') {
    warnings.push({ key: 'galore', message: `GaLore projects the gradients of full-parameter training; with method '${setup.method}' it is ignored` });
  }
  const galore = setup.galore && setup.method === 'full' ? galoreShapes(setup.galore, mods) : undefined;
  // (A quantized checkpoint is loaded by vLLM in its stored bits, which this check does not follow: skipped.)
  if (rollout && rollout.engine !== 'generate' && !rollout.vllm_shared_weights && !setup.quantization && opts.gpu && !opts.lean) vllmEngineChecks(rollout.engine, opts.gpu);
  if (inv.vision > 0 && !opts.lean) {
    assumptions.push({ key: 'architecture', value: `vision tower ${formatCount(inv.vision)} params: weights only`, source: 'VRAM Lens: the vision tower is frozen (LLaMA-Factory freeze_vision_tower, its default) or never reached by text-only batches: no activations, gradients or optimizer state; its no-grad forward over a batch\'s images runs before the language model and is not counted; it is loaded with the language model in its dtype' });
  }
  // PEFT target_parameters: LoRA on bare expert parameters (ParamWrapper).
  const paramTargets = (setup.method === 'lora' || setup.method === 'qlora') && lora ? parameterTargets(lora.target_parameters, a, mods) : { targets: [], unmatched: [] };
  if (paramTargets.unmatched.length > 0) {
    const bare = mods.filter((m) => m.parameter && m.group === 'expert').map((m) => m.name);
    warnings.push({ key: 'lora.target_parameters', message: `${paramTargets.unmatched.join(', ')}: no ${bare.length > 0 ? `expert parameter of this ${a.family} model (${bare.join(', ')})` : `3-D expert parameter in this ${a.family} model${a.moe ? ' (its experts are nn.Linear layers: target_modules reaches them)' : ''}`}; no adapter counted for ${paramTargets.unmatched.length > 1 ? 'them' : 'it'}` });
  }
  if ((lora || ia3) && targets.size === 0 && paramTargets.targets.length === 0) {
    warnings.push({ key: ia3 ? 'ia3.target_modules' : 'lora.target_modules', message: `none of the ${ia3 ? 'IA3' : 'LoRA'} target modules match ${a.family} layers (${mods.filter((m) => !m.parameter).map((m) => m.name).join(', ')})` });
  }

  /**
   * What transformers 5's fused experts change, said where the user can act: which version is assumed, the experts
   * bitsandbytes leaves unquantized, the adapters target_modules no longer places on them.
   */
  function fusedExpertNotes(): void {
    const version = setup.transformers_version ?? '5';
    const bnbHere = bnb && effSetup.quantization !== undefined;
    // Qwen3-VL MoE has 3-D experts in every release: the version changes nothing there.
    const alwaysFused = baseArch.fusedExperts === true;
    // The targets as per-expert linear layers would have had them: do they name expert projections?
    const loraNames = lora && peft ? lora.target_modules : undefined;
    const linearExperts = linearModules(alwaysFused ? { ...baseArch, fusedExperts: false } : baseArch);
    const unfusedTargets = loraNames ? matchModules(loraNames, linearExperts) : undefined;
    const lostExperts = unfusedTargets !== undefined && linearExperts.some((m) => m.group === 'expert' && unfusedTargets.has(m.name));
    // The release decides how the experts are stored (3-D parameters or one nn.Linear per expert projection) and run
    // (one grouped matmul, or one expert after another): the saved tensors and the backward's working set.
    if (setup.transformers_version === undefined && !alwaysFused) {
      assumptions.push(setup.kernels === 'unsloth'
        ? { key: 'transformers_version', value: '5', source: 'VRAM Lens default: a current transformers release; Unsloth loads its experts as one linear layer per expert projection (unslothai/unsloth#4032)' }
        : { key: 'transformers_version', value: '5', source: `VRAM Lens default: a current transformers release, which stores the ${a.moe!.experts} experts of each ${a.family} MoE layer as two 3-D parameters and runs them through one grouped matmul (grouped_mm; 4.x: one nn.Linear per expert projection, one expert after another)` });
    }
    if (!a.fusedExperts) return;
    if (bnbHere && !effSetup.quantization!.experts) {
      const expertParams = mods.filter((m) => m.parameter && (m.group === 'expert' || m.group === 'router')).reduce((t, m) => t + m.inFeatures * m.outFeatures * m.count, 0);
      const bytes = kbit !== 'none' ? 4 : wb;
      warnings.push({ key: 'quantization', code: 'fused-experts', message: `transformers ${version} stores the experts as 3-D parameters, which bitsandbytes does not quantize (it replaces nn.Linear layers; bitsandbytes#1849): ${formatCount(expertParams)} expert and router params stay ${bytes === 4 ? 'fp32' : setup.weights_dtype}${kbit !== 'none' ? ' (prepare_model_for_kbit_training upcasts them)' : ''}, ${formatBytes(expertParams * bytes)}${alwaysFused ? '' : '. transformers 4.x or Unsloth quantize them per expert'}; Axolotl's quantize_moe_experts quantizes them` });
    }
    if (lostExperts && paramTargets.targets.length === 0) {
      warnings.push({ key: 'lora.target_modules', code: 'fused-experts', message: `transformers ${version} stores the experts as 3-D parameters, which target_modules does not reach: the adapters sit on ${targets.size > 0 ? [...targets].join(', ') : 'no layer'} only (PEFT target_parameters adapts fused experts)` });
    }
  }

  // ---- Dtypes -------------------------------------------------------------------------------------------
  // PEFT prepare_model_for_kbit_training casts every 16-bit parameter that is not a quantized weight to fp32
  // (peft/utils/other.py); GPTQ models are skipped. On a model that is not quantized that is every parameter.
  const q8 = effSetup.quantization;
  const kbit = setup.kbit_upcast !== 'none' && q8?.type !== 'gptq' ? setup.kbit_upcast : 'none';
  const wholeModelUpcast = kbit === 'all' && !q8 && setup.weights_dtype !== 'fp32';
  if (wholeModelUpcast) {
    warnings.push({ key: 'kbit_upcast', message: 'prepare_model_for_kbit_training on a model that is not 4/8-bit casts every 16-bit parameter to fp32: weights take twice the memory' });
  }
  const wb = wholeModelUpcast ? 4 : dtypeBytes(setup.weights_dtype);
  // With a quantized model: norms (and biases) in fp32; with 'all' also the embeddings and the output head.
  const kbitQ = q8 ? kbit : 'none';
  const denseBytes = kbitQ !== 'none' ? 4 : wb;
  const embBytes = kbitQ === 'all' ? 4 : wb;
  const half: 2 | 4 = setup.mixed_precision !== 'none' ? 2 : wb === 4 ? 4 : 2;
  const mode: ComputeMode = setup.mixed_precision !== 'none' ? 'amp' : wb === 4 ? 'fp32' : 'half';
  if (setup.mixed_precision === 'none' && setup.weights_dtype === 'fp16') {
    warnings.push({ key: 'weights_dtype', message: 'pure fp16 training without loss scaling or master weights is numerically fragile' });
  }
  const peft = setup.method === 'lora' || setup.method === 'qlora';
  // Adapters of any kind: a frozen base with small trainable tensors beside it.
  const adapters = peft || ia3 !== undefined;
  if (fusedFamily && !opts.lean) fusedExpertNotes();
  else if (baseArch.family === 'gpt_oss' && setup.transformers_version === undefined && !opts.lean) {
    assumptions.push({ key: 'transformers_version', value: '5', source: 'VRAM Lens default: a current transformers release, which runs the gpt-oss experts through one grouped matmul (grouped_mm; 4.x: one expert after another)' });
  }
  const adapterBytes = peft ? dtypeBytes(lora!.dtype) : ia3 ? dtypeBytes(ia3.dtype) : wb;
  const trainableBytes = adapters ? adapterBytes : wb;
  const masterCopy = setup.master_weights && trainableBytes < 4;
  // BAdam ratio: per trainable entry, the sparse gradient's share (a value and two int64 indices) and each sparse Adam
  // state's share (a value).
  const stateBytes = badamRatio !== undefined ? badamRatio * trainableBytes : masterCopy ? 4 : trainableBytes;
  // FSDP mixed precision stores only the fp32 shard (the master); the 16-bit copy exists only when all-gathered,
  // and sharded gradients are kept in the fp32 parameter dtype (reduce_dtype fp32).
  const fsdpMaster = fsdp && masterCopy && setup.fsdp !== 'shard_grad_op';
  const gradBytes = badamRatio !== undefined ? badamRatio * (trainableBytes + 16) : fsdpMaster ? 4 : trainableBytes;

  const paged = setup.optimizer.startsWith('paged_') && !offloadOpt;
  // Context parallelism runs attention block by block with flash kernels (torchtitan's ring attention over SDPA flash,
  // ring-flash-attn, DeepSpeed-Ulysses over flash-attention); no s x s matrix is kept.
  const eagerOnly = EAGER_ONLY_ATTENTION[a.family];
  const attention = cp > 1 ? 'flash' : eagerOnly?.replaces.includes(setup.attention) ? 'eager' : setup.attention;
  if (cp > 1 && setup.attention === 'eager') warnings.push({ key: 'attention', message: 'context parallelism splits attention into flash-attention blocks; eager attention is not used with it' });
  // Llama4PreTrainedModel._supports_flash_attn = False: from_pretrained refuses flash_attention_2; SDPA and flex attention
  // keep what the flash kernel keeps, so the estimate is the same.
  if (a.family === 'llama4' && setup.attention === 'flash' && cp === 1 && !opts.lean) {
    warnings.push({ key: 'attention', message: 'transformers has no FlashAttention-2 path for Llama 4 (from_pretrained refuses flash_attention_2); use sdpa or flex_attention, which keep the same tensors' });
  }
  if (attention === 'eager' && setup.attention !== 'eager' && !opts.lean) {
    const why = eagerOnly!.why;
    const i = assumptions.findIndex((x) => x.key === 'attention');
    if (i >= 0) assumptions[i] = { key: 'attention', value: 'eager', source: why };
    else warnings.push({ key: 'attention', message: why });
  }
  if (setup.eval_batch_size !== undefined && pp > 1) {
    warnings.push({ key: 'eval_batch_size', message: 'the evaluation phase is not modeled with pipeline parallelism; the estimate covers training only' });
  }
  // Before PyTorch 1.11 the softmax / log_softmax backward took the input too (derivatives.yaml:
  // _softmax_backward_data(grad, result, dim, self)), so both were saved.
  const oldSoftmax = olderThan(setup.pytorch_version, 1, 11);
  // FSDP keeps its root unit (embeddings + output head unless they are wrapped on their own) unsharded.
  const rootUnit = fsdp && shardParams > 1 && !setup.fsdp_shard_embeddings;
  const headKind = setup.head ?? a.defaultHead;
  const cb = mode === 'fp32' ? 4 : half;
  const ctx: EstimateContext = {
    given: setupAsGiven, setup, effectiveSetup: effSetup,
    model: { arch: a, baseArch, code, bitsandbytes: bnb, fusedFamily, modules: mods, inventory: inv, lmHead: headKind === 'causal_lm' || headKind === 'seq2seq_lm' || headKind === 'masked_lm' },
    layout,
    sharding: { fsdp, zeroStage: zero, shardOptimizer, shardGrads, shardParams, offloadOptimizer: offloadOpt, offloadParams, fsdpOffload, rootUnit },
    dtypes: { kbit, kbitQuantized: kbitQ, wholeModelUpcast, weightBytes: wb, denseBytes, embeddingBytes: embBytes, half, mode, computeBytes: cb, residualBytes: mode === 'amp' && wb === 4 ? 4 : cb, adapterBytes,
      trainableBytes, masterCopy, stateBytes, fsdpMaster, gradBytes, attention, eagerOnly, oldSoftmax },
    methods: { peft, adapters, lora, ia3, targets, parameterTargets: paramTargets, galore, badamLayer, badamRatio, teacher, rewardModels, gkd, rollout, gkdGeneration, onlineDpo,
      generation, vllmShare, paged, oldTorchaoNf4 },
    gpu: opts.gpu, provenance: prov, lean: opts.lean === true, notes: { warnings, assumptions },
  };

  // ---- Busiest rank: evaluate each distinct pipeline stage -----------------------------------------------
  const { phases: stepPhases, peak: stepPeak, stage, lossTensorBytes, gradsAtPhase } = busiestStage(ctx);
  const contextBytes = setup.cuda_context_bytes ?? DEFAULT_CUDA_CONTEXT_BYTES;
  // torchao < 0.2 NF4 under torchtune 0.1: building and loading the model can peak above the training step.
  const nf4Load = nf4LoadPhase(ctx, stepPeak, contextBytes);
  const phases = nf4Load ? [nf4Load.phase, ...stepPhases] : stepPhases;
  const peak = nf4Load && nf4Load.phase.allocatedBytes > stepPeak.allocatedBytes ? nf4Load.phase : stepPeak;

  // ---- Runtime terms outside PyTorch's allocated bytes ---------------------------------------------------
  const totals = runtimeTerms(ctx, { stepPeak, peak, nf4Load, gradsAtPhase, contextBytes });
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
      model: ctx.lean ? '' : setup.model ?? `${a.family} (${formatCount(inv.total)} parameters)`,
      architecture: ctx.lean ? '' : `${a.family}: ${a.layers} layers, hidden ${a.hidden}, ${a.heads} heads (${a.kvHeads} kv), MLP ${a.ffn}, vocab ${a.vocab}${a.moe ? `, ${a.moe.experts} experts top-${a.moe.topK}` : ''}`,
      parameters: {
        total: inv.total, trainable: inv.trainable, frozen: inv.total - (setup.method === 'full' ? inv.total : setup.method === 'freeze' ? inv.trainable : 0),
        quantized: inv.quantized, adapter: inv.adapter, source: inv.source,
      },
      layout,
      perGpu: { peakBytes, reservedBytes, deviceBytes, phase: peak.phase, components: peak.components, runtime, phases, stage, ...(variableLengths ? { variableLengths } : {}),
        ...(pagedBytes > pagedResident ? { pagedToHostBytes: pagedBytes - pagedResident } : {}) },
      cpuBytes: Math.round(cpuBytes),
      nvmeBytes: Math.round(nvmeBytes),
      gpu: gpu ? { id: gpu.id, memoryBytes: gpu.memoryBytes, source: gpu.source } : undefined,
      fits,
      headroomBytes: gpu ? gpu.memoryBytes - deviceBytes : undefined,
      assumptions,
      warnings,
    },
  };

  // ---- Terms --------------------------------------------------------------------------------------------

  /**
   * What a vLLM engine needs before it serves a request, at the least: the weights in 16 bits (the checkpoint loaded
   * unquantized) and the KV cache of one sequence of the length it must admit (vLLM refuses to start when its KV
   * cache cannot hold one max_model_len sequence). vLLM caches MLA's compressed latent and rotary key (not whole heads),
   * the linear-attention and Mamba layers' states per sequence, and keys and values elsewhere; its profiling run's
   * activations and CUDA graphs come on top, so a shortfall here is certain.
   */
  function vllmEngineChecks(engine: 'vllm-colocate' | 'vllm-server', gpu: NonNullable<EstimateOptions['gpu']>): void {
    const weights = inv.total * 2;
    const kvToken = a.mla ? (a.mla.kvLoraRank + a.mla.qkRope) * 2 * attentionLayerCount(a) : 2 * a.kvHeads * a.headDim * 2 * attentionLayerCount(a);
    const states = recurrentStates(a, 2);
    const stateSeq = states.layers * states.perLayer;
    const gib = (x: number): string => `${(x / GiB).toFixed(1)} GiB`;
    const parts = (tokens: number): string => `the weights ${formatCount(inv.total)} x 2 B = ${gib(weights)} and one ${tokens}-token sequence's KV cache ${gib(kvToken * tokens + stateSeq)}`;
    // Over `tp` GPUs each holds 1/tp of the weights and of the key/value heads (a head is replicated when there are
    // fewer heads than GPUs; MLA's latent cache is whole on every GPU): what one GPU holds with a `tokens`-long cache.
    const cacheShare = (tp: number): number => (a.mla ? 1 : Math.max(1, a.kvHeads / tp) / a.kvHeads);
    // vLLM sizes its KV cache after a profile run (gpu_worker.py determine_available_memory, gpu_model_runner.py
    // profile_run; vLLM >= 0.9.2): the share minus the weights, the run's torch peak and non-torch memory. The run is a
    // forward over max_num_batched_tokens dummy tokens (about T·(6·I/tp + 8·h) bytes in 16 bits: the MLP's gate/up
    // output and activation, a few hidden-width tensors; I the routed width for MoE) and a sampler run over
    // min(max_num_seqs, T) rows of full-vocabulary logits, which the top-k/top-p path sorts and rescales in fp32 (about
    // 32 bytes per logit with TRL's processed log-probs). CUDA graphs are captured after the KV cache, outside the share.
    const profilePeak = (tokens: number, rows: number, tp: number): number => {
      const width = a.moe ? a.moe.topK * a.moe.expertFfn + a.moe.sharedExpertFfn : a.ffn;
      return Math.max(tokens * ((6 * width) / tp + 8 * a.hidden), Math.min(rows, tokens) * a.vocab * 32 + 2 * tokens * a.hidden);
    };
    const perGpu = (tp: number, tokens: number, peak: number): number => weights / tp + (kvToken * tokens + stateSeq) * cacheShare(tp) + peak;
    if (engine === 'vllm-colocate') {
      // TRL's colocated engine admits prompt + completion (max_model_len = max_prompt_length + max_completion_length);
      // with vllm_tensor_parallel_size it splits the weights and the key/value heads over that many GPUs. TRL passes
      // max_num_batched_tokens=4096 and max_num_seqs = the generation batch x the engine's tensor-parallel size.
      const ctp = rollout!.vllm_tensor_parallel;
      const rows = generationBatch(setup) * ctp;
      const peak = profilePeak(4096, rows, ctp);
      const mine = perGpu(ctp, setup.seq_len, peak);
      const share = rollout!.vllm_memory_fraction * gpu.memoryBytes;
      if (mine > share) {
        warnings.push({ key: 'rollout.vllm_memory_fraction', message: `the colocated vLLM engine's share (${rollout!.vllm_memory_fraction} x ${gib(gpu.memoryBytes)} = ${gib(share)}) cannot hold ${ctp > 1 ? `its 1/${ctp} share of ` : ''}${parts(setup.seq_len)}, with its start-up profile run (4096 tokens, ${Math.min(rows, 4096)} sampled sequences: ${gib(peak)}): vLLM stops at start-up; raise vllm_gpu_memory_utilization to at least ${(Math.ceil((100 * mine) / gpu.memoryBytes) / 100).toFixed(2)} (CUDA graphs come on top) or split the engine with vllm_tensor_parallel_size` });
      }
      return;
    }
    // trl vllm-serve (its flags when a script gives them; else its defaults: one GPU, gpu_memory_utilization 0.9,
    // max_model_len the model's positions). The server's GPUs are assumed to be of the training GPU's type.
    const srv = rollout!.vllm_server ?? { tensor_parallel: 1, memory_fraction: 0.9 };
    const tp = srv.tensor_parallel;
    // trl vllm-serve builds vLLM's LLM class without batch limits: vLLM's defaults for it (arg_utils.py
    // get_batch_defaults): 16,384 tokens and 1,024 sequences on GPUs of 70 GiB or more other than the A100, else 8,192 / 256.
    const big = gpu.memoryBytes >= 70 * GiB && !/A100/i.test(gpu.id);
    const peak = profilePeak(big ? 16_384 : 8192, big ? 1024 : 256, tp);
    const profileRun = `its start-up profile run (${big ? '16,384 tokens, 1,024' : '8,192 tokens, 256'} sampled sequences: ${gib(peak)})`;
    const budget = srv.memory_fraction * gpu.memoryBytes;
    const where = `${tp > 1 ? `${tp} x ` : 'one '}${gpu.id} (gpu_memory_utilization ${srv.memory_fraction}: ${gib(budget)}${tp > 1 ? ' each' : ''})`;
    const maxLen = srv.max_model_len ?? a.maxPositions;
    const partsPerGpu = (tokens: number): string => `${tp > 1 ? `its share of ${parts(tokens)}` : parts(tokens)}`;
    if (srv.max_model_len !== undefined && srv.max_model_len < setup.seq_len) {
      warnings.push({ key: 'rollout.engine', message: `the vLLM server admits ${srv.max_model_len} tokens (--max_model_len) but a sequence is ${setup.seq_len} (prompt + completion): requests that long fail` });
    }
    if (perGpu(tp, setup.seq_len, peak) > budget) {
      let gpus = tp;
      while (gpus < 64 && perGpu(gpus, setup.seq_len, profilePeak(big ? 16_384 : 8192, big ? 1024 : 256, gpus)) > budget) gpus *= 2;
      warnings.push({ key: 'rollout.engine', message: `a vLLM server on ${where} cannot hold ${partsPerGpu(setup.seq_len)} with ${profileRun}; serve it over ${gpus} GPUs (--tensor_parallel_size)${gpus >= 64 ? ' or more' : ''}` });
    } else if (perGpu(tp, maxLen, peak) > budget) {
      const fit = Math.floor((budget - weights / tp - stateSeq * cacheShare(tp) - peak) / (kvToken * cacheShare(tp)));
      warnings.push({ key: 'rollout.engine', message: `a vLLM server on ${where} cannot hold ${partsPerGpu(maxLen)} at ${srv.max_model_len !== undefined ? 'its --max_model_len' : `its default max_model_len (the model's ${a.maxPositions} positions)`} with ${profileRun}, so it stops at start-up; pass trl vllm-serve --max_model_len between ${setup.seq_len} and ${fit} tokens (the KV cache left beside the weights and the profile run; CUDA graphs come on top)` });
    }
  }
}

/** Phase order for ties: steady-state phases first. */
export const PHASES: readonly Phase[] = ['forward', 'backward', 'optimizer', 'first-step', 'evaluation', 'generation', 'load'];
export { GiB };
