// Checks that turn into warnings: what a model's own code ignores, what the GPU cannot run, what a vLLM engine cannot
// hold, what transformers 5's fused experts change, which attention runs, what is not modeled. Each pushes to the
// notes in the order the estimate has always listed them. Pure.
// Docs: docs/estimate/index.md
import { attentionLayerCount, type Architecture, linearModules } from '../architecture';
import { generationBatch, type TrainingSetup, usesFlashAttn } from '../setup';
import { profileRunPeak, recurrentStates } from '../terms/kv-cache';
import { formatBytes, formatCount, GiB } from '../units';
import type { EstimateContext, EstimateOptions, PlanningContext } from './context';
import { type Inventory, matchModules } from './inventory';
import type { NormalizedSetup } from './normalize';

/** Whether a file, a flag or a setting gave the value (not a default). */
function given(ctx: PlanningContext, k: keyof TrainingSetup): boolean {
  const prov = ctx.provenance;
  return prov[k] !== undefined && prov[k]!.kind !== 'default';
}

/** A model whose own code calls every decoder layer directly: checkpointing has no effect. */
export function modelCodeCheckpointing(ctx: PlanningContext, norm: NormalizedSetup): void {
  const { code, checkpointingIgnored } = norm;
  const { warnings } = ctx.notes;
  if (code && checkpointingIgnored !== undefined) {
    warnings.push({
      key: 'gradient_checkpointing',
      code: 'no-effect',
      message:
        `gradient checkpointing has no effect on ${code.name}: its ${code.file} (remote code, and ` +
        `Axolotl's copy) calls every decoder layer directly, so all ${checkpointingIgnored} layers ` +
        `keep their activations; estimated without checkpointing`,
    });
  }
}

/**
 * What the chosen GPU cannot run, where the files ask for it outright (a tool's default such as Axolotl's bf16: auto
 * adapts to the GPU): bf16 without bf16 hardware (Turing, Volta, Pascal: recent PyTorch emulates its matmuls, much
 * slower, older releases refuse bf16 training) and FlashAttention-2, whose kernels need NVIDIA Ampere or newer or an
 * AMD Instinct MI200 / MI300 ("FlashAttention only supports Ampere GPUs or newer").
 */
export function gpuSupportChecks(ctx: PlanningContext): void {
  const setupAsGiven = ctx.given;
  const { warnings } = ctx.notes;
  const spec = ctx.gpu?.spec;
  if (spec && !ctx.lean) {
    const bf16Key =
      setupAsGiven.mixed_precision === 'bf16' && given(ctx, 'mixed_precision')
        ? 'mixed_precision'
        : setupAsGiven.weights_dtype === 'bf16' && given(ctx, 'weights_dtype')
          ? 'weights_dtype'
          : undefined;
    if (bf16Key && !spec.bf16) {
      warnings.push({
        key: bf16Key,
        code: 'gpu-unsupported',
        message:
          `${spec.id} has no bf16 hardware: recent PyTorch emulates bf16 matmuls on it (much ` +
          `slower) and older releases refuse bf16 training; use fp16 mixed precision on this GPU`,
      });
    }
    const flashCapable = (spec.vendor === 'nvidia' || spec.vendor === 'amd') && spec.bf16;
    // flash-attn's kernels need Ampere-class GPUs; flex (Triton), xformers and sage have kernels for older ones.
    if (usesFlashAttn(setupAsGiven) && given(ctx, 'attention') && !flashCapable) {
      warnings.push({
        key: 'attention',
        code: 'gpu-unsupported',
        severity: 'error',
        message:
          `FlashAttention-2 does not run on ${spec.id}: its kernels need an NVIDIA Ampere or newer ` +
          `GPU, or an AMD Instinct MI200 / MI300; use sdpa (PyTorch picks a kernel the GPU has, and ` +
          `keeps no s x s matrix either)`,
      });
    }
  }
}

/** A model whose own code fixes its attention: the attention asked for is replaced (warning), or assumed. */
export function modelCodeAttention(ctx: PlanningContext, norm: NormalizedSetup): void {
  const { code, attentionIgnored } = norm;
  const { warnings, assumptions } = ctx.notes;
  if (code && attentionIgnored !== undefined && given(ctx, 'attention')) {
    warnings.push({
      key: 'attention',
      code: 'no-effect',
      message: `attention '${attentionIgnored}' has no effect on ${code.name}: its ${code.file} sets flash_attention_2 for every MLA layer; estimated with it`,
    });
  } else if (code && !given(ctx, 'attention') && !ctx.lean) {
    assumptions.push({
      key: 'attention',
      value: code.attention,
      source: `${code.name}'s ${code.file}: KimiLinearModel sets flash_attention_2 whatever attention is asked for`,
    });
  }
  if (code && !ctx.lean) {
    assumptions.push({ key: 'model', value: `${code.file} (trust_remote_code)`, source: `VRAM Lens: ${code.modeled}` });
  }
}

/**
 * What a vLLM engine needs before it serves a request, at the least: the weights in 16 bits (the checkpoint loaded
 * unquantized) and the KV cache of one sequence of the length it must admit (vLLM refuses to start when its KV
 * cache cannot hold one max_model_len sequence). vLLM caches MLA's compressed latent and rotary key (not whole heads),
 * the linear-attention and Mamba layers' states per sequence, and keys and values elsewhere; its profiling run's
 * activations and CUDA graphs come on top, so a shortfall here is certain.
 */
export function vllmEngineChecks(
  ctx: PlanningContext,
  a: Architecture,
  inv: Inventory,
  engine: 'vllm-colocate' | 'vllm-server',
  gpu: NonNullable<EstimateOptions['gpu']>,
): void {
  const states = recurrentStates(a, 2);
  const sizes: VllmSizes = {
    a,
    inv,
    weights: inv.total * 2,
    kvToken: a.mla
      ? (a.mla.kvLoraRank + a.mla.qkRope) * 2 * attentionLayerCount(a)
      : 2 * a.kvHeads * a.headDim * 2 * attentionLayerCount(a),
    stateSeq: states.layers * states.perLayer,
  };
  if (engine === 'vllm-colocate') colocatedEngineCheck(ctx, sizes, gpu);
  else vllmServerChecks(ctx, sizes, gpu);
}

/** The sizes a vLLM engine's start is checked with: 16-bit weights, KV cache bytes per token, recurrent states per sequence. */
interface VllmSizes {
  readonly a: Architecture;
  readonly inv: Inventory;
  readonly weights: number;
  readonly kvToken: number;
  readonly stateSeq: number;
}

const gib = (x: number): string => `${(x / GiB).toFixed(1)} GiB`;

/** What the engine must hold, in words: the weights and one `tokens`-long sequence's cache. */
function engineParts(s: VllmSizes, tokens: number): string {
  const cache = gib(s.kvToken * tokens + s.stateSeq);
  return `the weights ${formatCount(s.inv.total)} x 2 B = ${gib(s.weights)} and one ${tokens}-token sequence's KV cache ${cache}`;
}

/**
 * Over `tp` GPUs each holds 1/tp of the weights and of the key/value heads (a head is replicated when there are fewer
 * heads than GPUs; MLA's latent cache is whole on every GPU): the share of the cache one GPU holds.
 */
function cacheShare(s: VllmSizes, tp: number): number {
  return s.a.mla ? 1 : Math.max(1, s.a.kvHeads / tp) / s.a.kvHeads;
}

/** What one of `tp` GPUs holds with a `tokens`-long cache and the profile run's peak. */
function perGpu(s: VllmSizes, tp: number, tokens: number, peak: number): number {
  return s.weights / tp + (s.kvToken * tokens + s.stateSeq) * cacheShare(s, tp) + peak;
}

/**
 * TRL's colocated engine admits prompt + completion (max_model_len = max_prompt_length + max_completion_length); with
 * vllm_tensor_parallel_size it splits the weights and the key/value heads over that many GPUs. TRL passes
 * max_num_batched_tokens=4096 and max_num_seqs = the generation batch x the engine's tensor-parallel size.
 */
function colocatedEngineCheck(ctx: PlanningContext, s: VllmSizes, gpu: NonNullable<EstimateOptions['gpu']>): void {
  const setup = ctx.setup;
  const rollout = setup.rollout!;
  const ctp = rollout.vllm_tensor_parallel;
  const rows = generationBatch(setup) * ctp;
  const peak = profileRunPeak(s.a, 4096, rows, ctp);
  const mine = perGpu(s, ctp, setup.seq_len, peak);
  const share = rollout.vllm_memory_fraction * gpu.memoryBytes;
  // A share of the memory free at the engine's start (verl 0.1's vLLM) is made by the engine itself (terms/generation.ts).
  if (mine <= share || rollout.vllm_memory_of === 'free') return;
  ctx.notes.warnings.push({
    key: 'rollout.vllm_memory_fraction',
    message:
      `the colocated vLLM engine's share (${rollout.vllm_memory_fraction} ` +
      `x ${gib(gpu.memoryBytes)} = ${gib(share)}) cannot ` +
      `hold ${ctp > 1 ? `its 1/${ctp} share of ` : ''}${engineParts(s, setup.seq_len)}, with its start-up ` +
      `profile run (4096 tokens, ${Math.min(rows, 4096)} sampled sequences: ${gib(peak)}): vLLM ` +
      `stops at start-up; raise vllm_gpu_memory_utilization to at ` +
      `least ${(Math.ceil((100 * mine) / gpu.memoryBytes) / 100).toFixed(2)} (CUDA graphs come ` +
      `on top) or split the engine with vllm_tensor_parallel_size`,
  });
}

/**
 * trl vllm-serve (its flags when a script gives them; else its defaults: one GPU, gpu_memory_utilization 0.9,
 * max_model_len the model's positions). The server's GPUs are assumed to be of the training GPU's type. It builds
 * vLLM's LLM class without batch limits: vLLM's defaults for it (arg_utils.py get_batch_defaults): 16,384 tokens and
 * 1,024 sequences on GPUs of 70 GiB or more other than the A100, else 8,192 / 256.
 */
function vllmServerChecks(ctx: PlanningContext, s: VllmSizes, gpu: NonNullable<EstimateOptions['gpu']>): void {
  const setup = ctx.setup;
  const { warnings } = ctx.notes;
  const srv = setup.rollout!.vllm_server ?? { tensor_parallel: 1, memory_fraction: 0.9 };
  const tp = srv.tensor_parallel;
  const big = gpu.memoryBytes >= 70 * GiB && !/A100/i.test(gpu.id);
  const peakOver = (gpus: number): number => profileRunPeak(s.a, big ? 16_384 : 8192, big ? 1024 : 256, gpus);
  const peak = peakOver(tp);
  const profileRun = `its start-up profile run (${big ? '16,384 tokens, 1,024' : '8,192 tokens, 256'} sampled sequences: ${gib(peak)})`;
  const budget = srv.memory_fraction * gpu.memoryBytes;
  const where = `${tp > 1 ? `${tp} x ` : 'one '}${gpu.id} (gpu_memory_utilization ${srv.memory_fraction}: ${gib(budget)}${tp > 1 ? ' each' : ''})`;
  const maxLen = srv.max_model_len ?? s.a.maxPositions;
  const partsPerGpu = (tokens: number): string =>
    `${tp > 1 ? `its share of ${engineParts(s, tokens)}` : engineParts(s, tokens)}`;
  if (srv.max_model_len !== undefined && srv.max_model_len < setup.seq_len) {
    warnings.push({
      key: 'rollout.engine',
      message:
        `the vLLM server admits ${srv.max_model_len} tokens (--max_model_len) but a sequence ` +
        `is ${setup.seq_len} (prompt + completion): requests that long fail`,
    });
  }
  if (perGpu(s, tp, setup.seq_len, peak) > budget) {
    let gpus = tp;
    while (gpus < 64 && perGpu(s, gpus, setup.seq_len, peakOver(gpus)) > budget) gpus *= 2;
    warnings.push({
      key: 'rollout.engine',
      message:
        `a vLLM server on ${where} cannot hold ${partsPerGpu(setup.seq_len)} with ${profileRun}; ` +
        `serve it over ${gpus} GPUs (--tensor_parallel_size)${gpus >= 64 ? ' or more' : ''}`,
    });
  } else if (perGpu(s, tp, maxLen, peak) > budget) {
    const share = cacheShare(s, tp);
    const fit = Math.floor((budget - s.weights / tp - s.stateSeq * share - peak) / (s.kvToken * share));
    warnings.push({
      key: 'rollout.engine',
      message:
        `a vLLM server on ${where} cannot hold ${partsPerGpu(maxLen)} ` +
        `at ${srv.max_model_len !== undefined ? 'its --max_model_len' : `its default max_model_len (the model's ${s.a.maxPositions} positions)`} ` +
        `with ${profileRun}, so it stops at start-up; pass trl vllm-serve --max_model_len ` +
        `between ${setup.seq_len} and ${fit} tokens (the KV cache left beside the weights and the ` +
        `profile run; CUDA graphs come on top)`,
    });
  }
}

/** The transformers release a MoE model's experts are estimated with, and what it changes. */
export function moeNotes(ctx: EstimateContext): void {
  const setup = ctx.setup;
  const { baseArch, fusedFamily } = ctx.model;
  const { assumptions } = ctx.notes;
  if (fusedFamily && !ctx.lean) fusedExpertNotes(ctx);
  else if (baseArch.family === 'gpt_oss' && setup.transformers_version === undefined && !ctx.lean) {
    assumptions.push({
      key: 'transformers_version',
      value: '5',
      source:
        'VRAM Lens default: a current transformers release, which runs the gpt-oss experts ' +
        'through one grouped matmul (grouped_mm; 4.x: one expert after another)',
    });
  }
}

/**
 * What transformers 5's fused experts change, said where the user can act: which version is assumed, the experts
 * bitsandbytes leaves unquantized, the adapters target_modules no longer places on them.
 */
function fusedExpertNotes(ctx: EstimateContext): void {
  const { setup, effectiveSetup: effSetup } = ctx;
  const { arch: a, baseArch, modules: mods, bitsandbytes: bnb } = ctx.model;
  const { kbit, weightBytes: wb } = ctx.dtypes;
  const { lora, peft, targets, parameterTargets: paramTargets } = ctx.methods;
  const { warnings, assumptions } = ctx.notes;
  const version = setup.transformers_version ?? '5';
  const bnbHere = bnb && effSetup.quantization !== undefined;
  // Qwen3-VL MoE has 3-D experts in every release: the version changes nothing there.
  const alwaysFused = baseArch.fusedExperts === true;
  // The targets as per-expert linear layers would have had them: do they name expert projections?
  const loraNames = lora && peft ? lora.target_modules : undefined;
  const linearExperts = linearModules(alwaysFused ? { ...baseArch, fusedExperts: false } : baseArch);
  const unfusedTargets = loraNames ? matchModules(loraNames, linearExperts) : undefined;
  const lostExperts =
    unfusedTargets !== undefined && linearExperts.some((m) => m.group === 'expert' && unfusedTargets.has(m.name));
  // The release decides how the experts are stored (3-D parameters or one nn.Linear per expert projection) and run
  // (one grouped matmul, or one expert after another): the saved tensors and the backward's working set.
  if (setup.transformers_version === undefined && !alwaysFused) {
    assumptions.push(
      setup.kernels === 'unsloth'
        ? {
            key: 'transformers_version',
            value: '5',
            source:
              'VRAM Lens default: a current transformers release; Unsloth loads its experts as one linear layer per expert projection (unslothai/unsloth#4032)',
          }
        : {
            key: 'transformers_version',
            value: '5',
            source:
              `VRAM Lens default: a current transformers release, which stores the ${a.moe!.experts} ` +
              `experts of each ${a.family} MoE layer as two 3-D parameters and runs them through one ` +
              `grouped matmul (grouped_mm; 4.x: one nn.Linear per expert projection, one expert after another)`,
          },
    );
  }
  if (!a.fusedExperts) return;
  if (bnbHere && !effSetup.quantization!.experts) {
    const expertParams = mods
      .filter((m) => m.parameter && (m.group === 'expert' || m.group === 'router'))
      .reduce((t, m) => t + m.inFeatures * m.outFeatures * m.count, 0);
    const bytes = kbit !== 'none' ? 4 : wb;
    const keptDtype = bytes === 4 ? 'fp32' : setup.weights_dtype;
    const upcast = kbit !== 'none' ? ' (prepare_model_for_kbit_training upcasts them)' : '';
    const perExpert = alwaysFused ? '' : '. transformers 4.x or Unsloth quantize them per expert';
    warnings.push({
      key: 'quantization',
      code: 'fused-experts',
      message:
        `transformers ${version} stores the experts as 3-D parameters, which bitsandbytes does not quantize ` +
        `(it replaces nn.Linear layers; bitsandbytes#1849): ${formatCount(expertParams)} expert and router params ` +
        `stay ${keptDtype}${upcast}, ${formatBytes(expertParams * bytes)}${perExpert}; ` +
        `Axolotl's quantize_moe_experts quantizes them`,
    });
  }
  if (ctx.methods.peftMoe) peftMoeNotes(ctx, loraNames!);
  else if (lostExperts && paramTargets.targets.length === 0) {
    // PEFT converts 4.x expert names for some model types only, and from 0.19 on (peft-moe.ts).
    const why = !a.peftMoePattern
      ? `, and PEFT converts no 4.x expert name onto them for ${a.family} (its transformers 5 mapping covers ` +
        'Mixtral, Qwen3-MoE, Qwen3-Next, DeepSeek-V2/V3 and GLM-4.5)'
      : setup.peft_version !== undefined
        ? `, and PEFT ${setup.peft_version} does not convert 4.x expert names onto them (0.19 and later do)`
        : '';
    warnings.push({
      key: 'lora.target_modules',
      code: 'fused-experts',
      message:
        `transformers ${version} stores the experts as 3-D parameters, which target_modules does ` +
        `not reach${why}: the adapters sit on ${targets.size > 0 ? [...targets].join(', ') : 'no layer'} ` +
        `only (PEFT target_parameters adapts fused experts)`,
    });
  }
}

/**
 * PEFT's conversion of 4.x expert and router names for transformers 5 (peft-moe.ts), said where the user can act: the
 * version it takes (an assumption when peft_version is unset), where the adapters went and at which rank, and the
 * nn.Linear layers of the same names (shared experts, dense MLPs) that keep no adapter since.
 */
function peftMoeNotes(ctx: EstimateContext, names: NonNullable<TrainingSetup['lora']>['target_modules']): void {
  const setup = ctx.setup;
  const mods = ctx.model.modules;
  const { lora, targets, peftMoe } = ctx.methods;
  const { warnings, assumptions } = ctx.notes;
  const conv = peftMoe!;
  const r = lora!.r;
  const value = conv.targetParameters
    .map((p) => {
      const from = conv.moved.filter(([, to]) => to === p).map(([old]) => old);
      return `${from.join(', ')} -> ${p} (r ${r * (conv.rankFactors.get(p) ?? 1)})`;
    })
    .join('; ');
  const how =
    'moves target_modules naming the 4.x expert modules and the router onto the fused parameters as ' +
    'target_parameters (peft/utils/transformers_weight_conversion.py _convert_peft_config_moe): ' +
    `${conv.pattern === 'mixtral' ? 'w1 + w3' : 'gate_proj + up_proj'} -> gate_up_proj at rank 2r and alpha 2 x ` +
    `alpha (rank_pattern, alpha_pattern), ${conv.pattern === 'mixtral' ? 'w2' : 'down_proj'} -> down_proj and ` +
    'gate -> the router gate.weight at rank r, each a lora.ParamWrapper with W + BA built in every forward';
  assumptions.push(
    setup.peft_version === undefined
      ? {
          key: 'peft_version',
          value: `current (${value})`,
          source:
            `VRAM Lens default: a current PEFT (>= 0.19 ${how}; 'all-linear' names them all from 0.20; ` +
            'before 0.19 the fused experts get no adapter: set peft_version)',
        }
      : { key: 'lora.target_modules', value, source: `PEFT ${setup.peft_version} ${how}` },
  );
  // The nn.Linear layers the names reached before the conversion took those names away (shared experts, dense MLPs).
  const lost = [...matchModules(names, mods)].filter((n) => !targets.has(n));
  if (lost.length > 0)
    warnings.push({
      key: 'lora.target_modules',
      message:
        `PEFT moves ${conv.moved.map(([old]) => old).join(', ')} to the fused experts' parameters on transformers 5, ` +
        `so the nn.Linear layers of the same names keep no adapter: ${lost.join(', ')} (the parameters it targets ` +
        'instead match <module>.gate_up_proj, <module>.down_proj and <module>.gate.weight only)',
    });
}

/** Which attention runs, where it is not the one asked for: context parallelism, Llama 4, eager-only families. */
export function attentionNotes(ctx: EstimateContext): void {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const cp = ctx.layout.contextParallel;
  const { attention, eagerOnly } = ctx.dtypes;
  const { warnings, assumptions } = ctx.notes;
  if (cp > 1 && setup.attention === 'eager')
    warnings.push({
      key: 'attention',
      message: 'context parallelism splits attention into flash-attention blocks; eager attention is not used with it',
    });
  // Llama4PreTrainedModel._supports_flash_attn = False: from_pretrained refuses flash_attention_2; SDPA and flex attention
  // keep what the flash kernel keeps, so the estimate is the same.
  if (a.family === 'llama4' && usesFlashAttn(setup) && cp === 1 && !ctx.lean) {
    warnings.push({
      key: 'attention',
      message:
        'transformers has no FlashAttention-2 path for Llama 4 (from_pretrained refuses ' +
        'flash_attention_2); use sdpa or flex_attention, which keep the same tensors',
    });
  }
  if (attention === 'eager' && setup.attention !== 'eager' && !ctx.lean) {
    const why = eagerOnly!.why;
    const i = assumptions.findIndex((x) => x.key === 'attention');
    if (i >= 0) assumptions[i] = { key: 'attention', value: 'eager', source: why };
    else warnings.push({ key: 'attention', message: why });
  }
}

/** Evaluation with pipeline parallelism is not modeled. */
export function evaluationNotes(ctx: EstimateContext): void {
  const setup = ctx.setup;
  const pp = ctx.layout.pipelineParallel;
  const { warnings } = ctx.notes;
  if (setup.eval_batch_size !== undefined && pp > 1) {
    warnings.push({
      key: 'eval_batch_size',
      message: 'the evaluation phase is not modeled with pipeline parallelism; the estimate covers training only',
    });
  }
}
