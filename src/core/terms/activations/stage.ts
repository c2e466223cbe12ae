// Term: activations of a stage. What one GPU keeps for backward: per layer what the block replay saves (block.ts),
// times the layers on the stage and the micro-batches in flight; with full checkpointing only each layer's input and
// one layer recomputed at a time; with selective checkpointing the input, every other matmul output and the attention
// output. Plus autocast's 16-bit copies of fp32 weights, eager attention's 4D causal mask and T5's position biases
// (the working sets of a dequantized weight and of DoRA's weight norm: dequant.ts).
// Sources: Korthikanti et al. 2022 (arXiv:2205.05198); torch.utils.checkpoint; aten/src/ATen/autocast_mode.cpp
// (cached_cast); transformers masking_utils. Docs: docs/estimate/activations.md. Pure.
import type { Component } from '../../model';
import { comp } from '../../estimate/component';
import { zero3KeptExperts } from '../zero3-kept-experts';
import { deepspeedLinearRuns } from '../zero3-linear-kept';
import type { EstimateContext, StageContext } from '../../estimate/context';
import { formatBytes, formatCount } from '../../units';
import { olderThan } from '../../util/version';
import { usesFlashAttn } from '../../setup';
import { adaptersInLayerUnits, adapterUnitsMatter } from '../../estimate/fsdp-units';
import { expertsLooped } from '../../estimate/normalize';
import { layerActivations, unslothFastPath } from './index';
import { bitsandbytesKeepsInputs, checkpointReentrant, keptInputBytes } from './kept-inputs';
import type { ActivationPlan, Ia3Plan, LayerActivations, LoraPlan, MambaKernels } from './plan';
import type { CheckpointedLayer } from './recompute';
import { causalMask } from './causal-mask';
import { dequantPlan } from './dequant';
import { litgptQkvPlan } from './litgpt';
import { expertLoraPlan } from './expert-lora';
import { decoderLength } from './encoder-decoder';
import { isEncoderDecoder } from '../../architecture';

/** The activation terms of a stage, for the phases to place. */
export interface StageActivations {
  readonly layerPlan: ActivationPlan;
  readonly layer: LayerActivations;
  /** Saved for backward by the stage's layers. */
  readonly actComp: Component;
  /** Eager attention's 4D causal mask, and the same when checkpointed layers hold it to the end of the backward. */
  readonly maskC: Component[];
  readonly maskHeld: Component[];
  readonly maskBytes: number;
  readonly maskHeldBytes: number;
  /** Autocast's 16-bit weight copies kept for backward, and its cache until the forward ends. */
  readonly castComp: Component[];
  readonly castCacheComp: Component[];
  /** One layer recomputed during its backward (checkpointing). */
  readonly recompute: number;
  /**
   * Under full checkpointing, a layer's high points: in its first forward, and in its recompute with the gradients
   * beside it when that begins (terms/activations/recompute.ts); undefined where the layer has no forward sequence (T5,
   * Unsloth's kernels).
   */
  readonly checkpointedLayer: CheckpointedLayer | undefined;
  /**
   * The layers whose autograd Functions keep their input as a ctx attribute through the whole step (bitsandbytes' kept
   * inputs, `layer.contextHeldBytes` each): those gradients flow through, unless reentrant checkpointing never builds
   * their forward's graph. The graph frees them only when nothing references it (terms/previous-step.ts).
   */
  readonly contextHeldLayers: number;
}

/** PEFT's LoRA and IA3 plans of a block (undefined without them). */
function adapterPlans(ctx: EstimateContext): { lora: LoraPlan | undefined; ia3: Ia3Plan | undefined } {
  const { peft, lora, ia3, targets } = ctx.methods;
  // FSDP's 16-bit param dtype gathers the adapters in 16 bits too, so PEFT's cast of a layer's input to the adapter's
  // dtype is the 16-bit input itself (CPU truth fsdp2/llama-w*-lora-amp: +3.2 / +3.6 % with fp32 copies counted).
  const adapterCompute =
    fsdpCastsParameters(ctx) && !peftReadsShardDtype(ctx) ? ctx.dtypes.half : ctx.dtypes.adapterBytes;
  return {
    lora:
      peft && lora
        ? {
            r: lora.r,
            dropout: lora.dropout,
            dtypeBytes: adapterCompute,
            targets,
            dora: lora.use_dora,
            ...litgptQkvPlan(ctx.setup, ctx.model.modules),
          }
        : undefined,
    ia3: ia3
      ? { targets, feedforward: ctx.model.inventory.ia3Feedforward ?? new Set(), dtypeBytes: adapterCompute }
      : undefined,
  };
}

/**
 * Tiled MLP's shard count, undefined where the MLP is not tiled. Where none is given, Axolotl and ArcticTraining take
 * ceil(seq / hidden) of the sequence each GPU holds: an assumption, stated on the first stage.
 */
function tiledMlpShards(ctx: EstimateContext, st: StageContext): number | undefined {
  const { setup } = ctx;
  const a = ctx.model.arch;
  if (setup.tiled_mlp === false) return undefined;
  const shards = setup.tiled_mlp === true ? Math.max(1, Math.ceil(st.seqHere / a.hidden)) : setup.tiled_mlp;
  if (shards === undefined || !st.first || ctx.lean) return shards;
  if (setup.tiled_mlp === true)
    ctx.notes.assumptions.push({
      key: 'tiled_mlp',
      value: `${shards} shards`,
      source:
        `ceil(sequence length ${st.seqHere} / hidden size ${a.hidden}), the shard count where none is given ` +
        '(Axolotl monkeypatch/tiled_mlp, ArcticTraining model/tiled_compute.py)',
    });
  if (a.moe)
    ctx.notes.warnings.push({
      key: 'tiled_mlp',
      message: 'the tiled MLP is modeled for dense MLP layers; MoE blocks are estimated untiled',
    });
  return shards;
}

/**
 * The Mamba kernels the mixers run. Nemotron-H keeps its cache in training unless gradient checkpointing turns it off,
 * and takes the split kernels instead of the fused one with a cache or a padded batch (modeling_nemotron_h.py
 * cuda_kernels_forward: the fused kernel only when cache_params is None and the attention mask is all ones). Jamba's
 * config can switch the kernels off (use_mamba_kernels: false): slow_forward runs whatever is installed.
 */
function mambaKernels(ctx: EstimateContext, paddedBatch: boolean): { mambaPath: MambaKernels; kernelsOff: boolean } {
  const { setup } = ctx;
  const a = ctx.model.arch;
  const kernelsOff = a.mamba1 !== undefined && !a.mamba1.useKernels;
  const mambaPath: MambaKernels =
    (setup.mamba_kernels ?? (kernelsOff ? 'torch' : 'cuda')) === 'torch'
      ? 'torch'
      : a.family === 'nemotron_h' && paddedBatch
        ? 'split-masked'
        : a.family === 'nemotron_h' && setup.gradient_checkpointing === 'none'
          ? 'split'
          : 'cuda';
  return { mambaPath, kernelsOff };
}

/** The plan one block of this stage is replayed with, and the kernels its mixers run. */
function activationPlan(
  ctx: EstimateContext,
  st: StageContext,
): {
  layerPlan: ActivationPlan;
  mixerKernels: Pick<ActivationPlan, 'linearKernels' | 'mambaKernels'>;
  mambaPath: MambaKernels;
  kernelsOff: boolean;
  /** Whether the first layer's input requires grad (a trained embedding, enable_input_require_grads, BAdam). */
  embeddingOutputRequiresGrad: boolean;
  /** Whether the batches carry padding (or packed rows), so the model builds an attention mask. */
  paddedBatch: boolean;
} {
  const { setup, effectiveSetup: effSetup } = ctx;
  const { arch: a, modules: mods, inventory: inv } = ctx.model;
  const { tensorParallel: tp, expertParallel: ep } = ctx.layout;
  const { weightBytes: wb, half, mode, attention, kbitQuantized: kbitQ, oldSoftmax } = ctx.dtypes;
  const { adapters, badamLayer, parameterTargets: paramTargets } = ctx.methods;
  const { quantizedHere: quantHere, sequences: seqs, seqHere } = st;
  // Adapters inside FSDP1 layer units: the layers compute with views of a FlatParameter that requires grad.
  const wholeUnit = adaptersInLayerUnits(ctx);
  const fsdpMp = fsdpMixedPrecision(ctx);
  const { lora: loraPlan, ia3: ia3Plan } = adapterPlans(ctx);
  const embTrainable = setup.method === 'full' || inv.savedModules > 0;
  // HF enable_input_require_grads() (called for PEFT + gradient checkpointing) makes embedding outputs require grad.
  const inputRg = embTrainable || (adapters && setup.gradient_checkpointing !== 'none') || badamLayer;
  const tiledShards = tiledMlpShards(ctx, st);
  const paddedBatch = setup.padded_batches ?? (setup.batch_lengths === 'variable' && seqs > 1);
  const { mambaPath, kernelsOff } = mambaKernels(ctx, paddedBatch);
  // The hybrid mixers' kernels, for every plan of this stage.
  const mixerKernels: Pick<ActivationPlan, 'linearKernels' | 'mambaKernels'> = {
    ...(a.linearAttention ? { linearKernels: setup.linear_attention_kernels ?? 'fla' } : {}),
    ...(a.mamba || a.mamba1 ? { mambaKernels: mambaPath } : {}),
  };
  const dequant = quantHere > 0 ? dequantPlan(effSetup, ctx.dtypes.computeBytes) : undefined;
  const sdpa = sdpaInputs(ctx, seqHere, paddedBatch);
  // An old lit-gpt's multi-query attention: one key and value head handed to SDPA (setup.litgpt_mqa_broadcast).
  const mqaBroadcast =
    setup.model_code === 'litgpt' &&
    setup.litgpt_mqa_broadcast &&
    attention === 'sdpa' &&
    a.kvHeads === 1 &&
    a.heads > 1;
  // Every field is written, undefined where it does not apply (which every reader takes as absent): one object shape
  // for every plan, which the advice search builds and compares thousands of times.
  const target = decoderLength(ctx);
  const layerPlan: ActivationPlan = {
    arch: a,
    mode,
    half,
    // FSDP's 16-bit param dtype over fp32 weights: the layers compute with 16-bit parameters and the embedding's
    // output, so the residual stream, is 16-bit too, as in a 16-bit model under autocast.
    weightBytes: fsdpMp ? half : wb,
    batch: seqs,
    seq: seqHere,
    targetSeq: target !== undefined ? target / ctx.layout.contextParallel : undefined,
    attention,
    baseTrainable: setup.method === 'full' || wholeUnit,
    normsTrainable: setup.method === 'full' || wholeUnit,
    inputRequiresGrad: inputRg || adapters,
    lora: loraPlan,
    ia3: ia3Plan,
    tp,
    sequenceParallel: setup.sequence_parallel,
    compile: setup.compile,
    softmaxSavesInput: oldSoftmax,
    softmaxGradTemp: atenGpuSoftmax(ctx) || undefined,
    halfToFloatSoftmax: halfToFloatSoftmax(ctx) || undefined,
    quantizedBase: quantHere > 0,
    dequantBytes: dequant?.dequantBytes,
    dequantViaBytes: dequant?.dequantViaBytes,
    nestedAbsmax: dequant?.nestedAbsmax,
    gptqCodeBytes: dequant?.gptqCodeBytes,
    zero3Linear: deepspeedLinearRuns(setup, ctx.sharding.zeroStage),
    bnbKeepsInput: quantHere > 0 && bitsandbytesKeepsInputs(effSetup),
    kbitUpcast: kbitQ,
    dequantizedExperts:
      a.moe && effSetup.quantization?.experts && mods.some((m) => m.parameter && m.group === 'expert')
        ? a.moe.experts / ep
        : undefined,
    kernels: setup.kernels,
    tiledMlpShards: tiledShards,
    expertsLooped: expertsLooped(setup, a) || undefined,
    unshardedParamBytes: fsdpMp ? half : undefined,
    halfSoftmax:
      (a.family === 'gpt_neox' && olderThan(setup.transformers_version, 4, 49)) ||
      (a.family === 't5' && !olderThan(setup.transformers_version, 5, 0)) ||
      undefined,
    sdpaMathHalf: ((a.family === 'falcon' || mqaBroadcast) && olderThan(setup.pytorch_version, 2, 5)) || undefined,
    litgptModel: setup.model_code === 'litgpt' || undefined,
    litgptMqaBroadcast: mqaBroadcast || undefined,
    reentrantCheckpoint: checkpointReentrant(setup) || undefined,
    sdpaGqa: sdpa.sdpaGqa,
    sdpaMask: sdpa.sdpaMask,
    // Only transformers' flash-attn path unpads; flex, xformers and sage take the padded batch with a mask.
    flashUnpad:
      (attention === 'flash' && usesFlashAttn(setup) && paddedBatch && setup.model_code === 'transformers') ||
      undefined,
    linearKernels: mixerKernels.linearKernels,
    mambaKernels: mixerKernels.mambaKernels,
    expertLora: paramTargets.targets.length > 0 ? expertLoraPlan(ctx, seqs * seqHere) : undefined,
  };
  return { layerPlan, mixerKernels, mambaPath, kernelsOff, embeddingOutputRequiresGrad: inputRg, paddedBatch };
}

/**
 * What transformers hands SDPA. masking_utils sdpa_mask drops the mask (_ignore_causal_mask_sdpa) when no token of
 * the batch is padding and the sequence fits any sliding window; otherwise every layer's call converts the boolean
 * mask to an additive one in the query dtype and the kernel keeps it (CPU truth peft/*-padded: aten::where <
 * scaled_dot_product_attention, 2 x 256 x 256 x 2 B per layer; -2.2 % on the forward without it). With no mask,
 * grouped-query attention runs with enable_gqa=True on the un-repeated key and value heads (integrations/
 * sdpa_attention.py use_gqa_in_sdpa, torch 2.5+, head_dim <= 256); with one, repeat_kv copies each key and value head
 * for every query head it serves. transformers 4.54-4.57 take enable_gqa too, but a forward given no attention_mask and
 * no cache gets a packed-sequence mask from its position ids (find_packed_sequence_indices returns a tensor even for
 * unpacked rows until 5.0), so 4.x is counted with the copies: CPU truth tf4/llama-full-fp32 (4.57.6, no
 * attention_mask) repeats, loop/llama-lora-bf16 and gemma3-lora-bf16 (5.17) keep 2 key-value heads.
 */
function sdpaInputs(
  ctx: EstimateContext,
  seqHere: number,
  paddedBatch: boolean,
): Pick<ActivationPlan, 'sdpaGqa' | 'sdpaMask'> {
  const { setup } = ctx;
  const a = ctx.model.arch;
  if (ctx.dtypes.attention !== 'sdpa') return {};
  // LitGPT's CausalSelfAttention repeats the key and value heads in training (repeat_interleave) and passes no mask,
  // padded batch or not (is_causal=True).
  if (setup.model_code === 'litgpt') return {};
  // FalconModel materializes the mask whatever the batch (create_causal_mask(..., allow_is_causal_skip=False)).
  if (a.family === 'falcon' && setup.model_code === 'transformers') return { sdpaMask: true };
  if (paddedBatch || (a.slidingLayers > 0 && seqHere > a.slidingWindow)) return { sdpaMask: true };
  const gqa =
    !olderThan(setup.transformers_version, 5, 0) && !olderThan(setup.pytorch_version, 2, 5) && a.headDim <= 256;
  return gqa ? { sdpaGqa: true } : {};
}

/**
 * Whether the batches are padded, said where it changes attention's memory (SDPA: the converted mask, and grouped
 * key-value heads repeated or not) and the setup does not say it.
 */
function paddingNote(ctx: EstimateContext, layerPlan: ActivationPlan, paddedBatch: boolean): void {
  const a = ctx.model.arch;
  const gqa = a.kvHeads < a.heads;
  if (ctx.setup.padded_batches !== undefined || ctx.dtypes.attention !== 'sdpa' || ctx.setup.model_code === 'litgpt')
    return;
  if (!paddedBatch && !(layerPlan.sdpaGqa && gqa)) return;
  ctx.notes.assumptions.push({
    key: 'padded_batches',
    value: String(paddedBatch),
    source: paddedBatch
      ? 'VRAM Lens: batch_lengths variable with more than one sequence per micro-batch pads each batch, so SDPA gets ' +
        `an attention mask, which every layer converts and keeps${gqa ? ', and repeat_kv copies k and v to every query head' : ''}`
      : 'VRAM Lens: no padding token in a batch (batch_lengths fixed, or one sequence per micro-batch), so transformers ' +
        `hands SDPA no mask and enable_gqa=True: attention keeps k and v of the ${a.kvHeads} key-value heads ` +
        '(integrations/sdpa_attention.py use_gqa_in_sdpa). Batches padded to seq_len (padding="max_length", ' +
        'pad_to_sequence_len) or packed with position ids keep a mask: set padded_batches: true (repeat_kv copies to ' +
        `all ${a.heads} heads)`,
  });
}

/**
 * Whether the chosen GPU runs ATen's GPU softmax kernels (CUDA on NVIDIA, HIP on AMD, XPU on Intel), whose backward
 * keeps a temporary the CPU kernel does not (ActivationPlan.softmaxGradTemp). Without a GPU it is not counted, and
 * eager attention says so (kernelNotes).
 */
function atenGpuSoftmax(ctx: EstimateContext): boolean {
  const vendor = ctx.gpu?.spec?.vendor;
  return vendor === 'nvidia' || vendor === 'amd' || vendor === 'intel';
}

/** fp16 compute on a GPU whose tensors are CUDA tensors to ATen (NVIDIA, and AMD through HIP): ActivationPlan.halfToFloatSoftmax. */
function halfToFloatSoftmax(ctx: EstimateContext): boolean {
  const vendor = ctx.gpu?.spec?.vendor;
  const setup = ctx.setup;
  const fp16 = setup.mixed_precision === 'fp16' || (setup.mixed_precision === 'none' && setup.weights_dtype === 'fp16');
  return fp16 && (vendor === 'nvidia' || vendor === 'amd');
}

/** The kernels the stage's layers are estimated with, said once (first stage): Mamba, linear attention, Unsloth. */
function kernelNotes(
  ctx: EstimateContext,
  st: StageContext,
  layerPlan: ActivationPlan,
  mambaPath: MambaKernels,
  kernelsOff: boolean,
): void {
  if (layerPlan.attention === 'eager' && ctx.gpu === undefined) eagerSoftmaxNote(ctx);
  if (ctx.lean || !st.first) return;
  mamba2Notes(ctx, mambaPath);
  mamba1Note(ctx, kernelsOff);
  if (ctx.methods.parameterTargets.targets.length > 0) targetParametersNote(ctx);
  linearAttentionNote(ctx);
  if (ctx.setup.kernels === 'unsloth') unslothNote(ctx, layerPlan);
}

/** Without a GPU chosen the eager softmax backward's GPU temporary is left out, and said so. */
function eagerSoftmaxNote(ctx: EstimateContext): void {
  ctx.notes.assumptions.push({
    key: 'gpu',
    value: 'none chosen: eager softmax backward without the GPU kernel temporary',
    source:
      "VRAM Lens: ATen's GPU softmax backward (CUDA, ROCm, XPU) keeps one more tensor of the attention scores' size " +
      '(grad x output, aten/src/ATen/native/cuda/SoftMax.cu); it is counted once a GPU is chosen',
  });
}

/** Mamba2 layers: which kernels run (assumed, or the split ones), and LoRA targets the fused kernel or PEFT refuse. */
function mamba2Notes(ctx: EstimateContext, mambaPath: MambaKernels): void {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { targets } = ctx.methods;
  const { assumptions, warnings } = ctx.notes;
  if (!a.mamba || a.mamba.layers <= 0) return;
  const split =
    mambaPath === 'split'
      ? '; Nemotron-H keeps a cache in training unless gradient checkpointing is on (use_cache ' +
        'comes from the config), and with it its Mamba2 layers run the split kernels ' +
        '(causal_conv1d_fn, mamba_chunk_scan_combined), which keep more than the fused one'
      : mambaPath === 'split-masked'
        ? "; on padded batches (variable lengths, micro-batch > 1) Nemotron-H's Mamba2 layers run " +
          'the split kernels (causal_conv1d_fn, mamba_chunk_scan_combined) with the scan input ' +
          'masked, which keep more than the fused one'
        : '';
  if (setup.mamba_kernels === undefined) {
    const granite =
      a.family === 'granite_hybrid'
        ? "; Granite's current mixer looks the kernels up through the kernels package (the hub build of mamba-ssm), " +
          'and with only the pip package it runs torch_forward'
        : '';
    assumptions.push({
      key: 'mamba_kernels',
      value: mambaPath === 'split' || mambaPath === 'split-masked' ? 'cuda (split kernels)' : 'cuda',
      source:
        'VRAM Lens default: mamba_ssm and causal-conv1d installed (the fused mamba_split_conv1d_scan_combined ' +
        'kernel in training); without them torch_forward runs and keeps many times more for backward ' +
        `(set mamba_kernels: torch)${granite}${split}`,
    });
  } else if (split) {
    assumptions.push({ key: 'mamba_kernels', value: 'cuda (split kernels)', source: split.slice(2) });
  }
  if (mambaPath === 'cuda' && targets.has('out_proj')) {
    warnings.push({
      key: 'lora.target_modules',
      message:
        "the fused Mamba2 kernel applies out_proj's weight itself " +
        '(mamba_split_conv1d_scan_combined), so a LoRA adapter on out_proj is never used in ' +
        'training: its parameters and optimizer state are counted, no activations',
    });
  }
  // PEFT 0.16 and later refuse LoRA on these models' Mamba out_proj and conv1d (tuners_utils.py
  // _check_lora_target_modules_mamba, huggingface/peft#2562): get_peft_model raises before training starts.
  const refused = ['out_proj', 'conv1d'].filter((m) => targets.has(m));
  if (
    (a.family === 'falcon_h1' || a.family === 'nemotron_h') &&
    (setup.method === 'lora' || setup.method === 'qlora') &&
    refused.length > 0 &&
    !olderThan(setup.peft_version, 0, 16)
  ) {
    warnings.push({
      key: 'lora.target_modules',
      severity: 'error',
      message:
        `PEFT (0.16 and later) refuses LoRA on ${refused.join(' and ')} of ${a.family} models ("incompatible ` +
        'with Mamba-based models"), all-linear included: list the other linear layers',
    });
  }
}

/** Jamba's Mamba layers: the kernels its config allows, assumed installed unless use_mamba_kernels is false. */
function mamba1Note(ctx: EstimateContext, kernelsOff: boolean): void {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { assumptions } = ctx.notes;
  if (!a.mamba1 || a.mamba1.layers <= 0 || setup.mamba_kernels !== undefined) return;
  if (kernelsOff) {
    assumptions.push({
      key: 'mamba_kernels',
      value: 'torch',
      source:
        'the model config: use_mamba_kernels is false, so transformers runs slow_forward (the sequential scan) whatever is installed',
    });
  } else {
    assumptions.push({
      key: 'mamba_kernels',
      value: 'cuda',
      source:
        "VRAM Lens default: mamba_ssm and causal-conv1d installed (Jamba's use_mamba_kernels: " +
        'causal_conv1d_fn and the selective_scan_fn kernel in training); without them transformers ' +
        "runs slow_forward, which keeps the scan's per-step states for backward (set mamba_kernels: torch)",
    });
  }
}

/** LoRA on 3-D expert parameters: how PEFT materializes W + BA, assumed. */
function targetParametersNote(ctx: EstimateContext): void {
  const { assumptions } = ctx.notes;
  assumptions.push({
    key: 'lora.target_parameters',
    value: 'W + BA materialized once per forward, grouped_mm experts',
    source:
      'VRAM Lens default: PEFT with its parametrization cached for the forward ' +
      "(huggingface/peft#2912) and transformers 5's default experts implementation (grouped_mm), " +
      'which reads each parameter once; older PEFT with a per-expert loop built W + BA again for ' +
      'every expert',
  });
}

/** Linear-attention layers (Gated DeltaNet, Kimi's KDA): the kernels they run on. */
function linearAttentionNote(ctx: EstimateContext): void {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { assumptions, warnings } = ctx.notes;
  if (a.linearAttention?.kda) {
    // modeling_kimi.py imports fla's kernels unconditionally: there is no torch path to fall back to.
    if (setup.linear_attention_kernels === 'torch')
      warnings.push({
        key: 'linear_attention_kernels',
        message:
          "Kimi Linear's modeling_kimi.py has no torch path for its KDA layers (it imports " +
          "flash-linear-attention's kernels and fails without them): estimated with fla",
      });
    else if (setup.linear_attention_kernels === undefined)
      assumptions.push({
        key: 'linear_attention_kernels',
        value: 'fla',
        source:
          "VRAM Lens default: Kimi Linear's modeling_kimi.py runs its KDA layers on flash-linear-attention's kernels only (Axolotl pins fla-core 0.4.1)",
      });
  } else if (a.linearAttention && setup.linear_attention_kernels === undefined) {
    assumptions.push({
      key: 'linear_attention_kernels',
      value: 'fla',
      source:
        'VRAM Lens default: flash-linear-attention (>= 0.5) and causal-conv1d installed, as Qwen ' +
        'recommends for its Gated DeltaNet layers; without them transformers falls back to a torch ' +
        'implementation that keeps several times more for backward (set linear_attention_kernels: torch)',
    });
  }
}

/** Unsloth's fused kernels: where they run, or the PyTorch layers where the LoRA does not fit them. */
function unslothNote(ctx: EstimateContext, layerPlan: ActivationPlan): void {
  const { assumptions } = ctx.notes;
  assumptions.push(
    unslothFastPath(layerPlan)
      ? {
          key: 'kernels',
          value: 'unsloth',
          source:
            "Unsloth's fused LoRA_QKV / LoRA_W / LoRA_MLP, RMSNorm and RoPE kernels: what they keep for backward, read from unsloth/kernels",
        }
      : {
          key: 'kernels',
          value: 'pytorch layers',
          source:
            "Unsloth's fused LoRA kernels need LoRA without dropout on q, k, v, o, gate, up and down " +
            'of a Llama, Mistral, Qwen2 or Qwen3 model (one GPU); the layers are estimated as PyTorch runs them',
        },
  );
}

/**
 * The first decoder layer under adapters, without checkpointing and with a frozen embedding: its input does not require
 * grad (nothing calls enable_input_require_grads), so autograd saves only what the adapters' outputs and the frozen
 * weights' input gradients downstream of them need (tools/autograd gen_variable_type.py should_compute_output). The
 * input norm keeps nothing, and with a parallel residual (GPT-NeoX, GPT-J, Phi, Falcon) neither does the MLP branch,
 * which reads the block input only. The other layers' inputs carry the adapters' gradients. CPU truth
 * loop/gpt_neox-lora-bf16 (LoRA on query_key_value, no checkpointing): layer 0 kept no MLP tensor; counted like the
 * others the estimate was +3.4 %. Returns the bytes to add to the stage's sum (negative: the first layer keeps less).
 */
function firstLayerCorrection(
  ctx: EstimateContext,
  st: StageContext,
  embeddingOutputRequiresGrad: boolean,
  layer: LayerActivations,
): { bytes: number; formula: () => string } {
  const none = { bytes: 0, formula: () => '' };
  if (!st.first || embeddingOutputRequiresGrad || layer.frozenInputBytes === undefined || ctx.setup.method === 'freeze')
    return none;
  const bytes = layer.frozenInputBytes - layer.bytesPerLayer;
  if (bytes === 0) return none;
  return {
    bytes,
    formula: () => `, the first ${formatBytes(-bytes)} less (its input does not require grad: a frozen embedding)`,
  };
}

/** FSDP with a 16-bit param dtype over fp32 weights: the unsharded parameters the layers see are already 16-bit. */
export function fsdpMixedPrecision(ctx: EstimateContext): boolean {
  return fsdpCastsParameters(ctx) && ctx.dtypes.weightBytes === 4;
}

/**
 * Autocast casts the fp32 output head (embedding dtype) for the logits' matmul: a 16-bit copy of its weight, and a new
 * fp32 tensor from the cast's backward for its gradient. FSDP's 16-bit param dtype hands it over cast already.
 */
export function autocastCastsHead(ctx: EstimateContext): boolean {
  const { mode, embeddingBytes } = ctx.dtypes;
  return mode === 'amp' && embeddingBytes === 4 && !fsdpMixedPrecision(ctx);
}

/**
 * FSDP with a 16-bit param dtype (Accelerate sets one whenever mixed precision is on): every parameter of a unit is
 * gathered in it, fp32 adapters over a 16-bit base included, so the adapters compute in 16 bits with no autocast copy
 * and PEFT's cast of a layer's input to the adapter's dtype is the 16-bit input itself. H100 truth of Mistral-7B LoRA
 * (bf16 base, fp32 adapters) under FSDP2 at 4 ranks without checkpointing: +6.2 % with fp32 adapter compute counted,
 * -1.9 % without.
 */
export function fsdpCastsParameters(ctx: EstimateContext): boolean {
  return ctx.sharding.fsdp && ctx.dtypes.mode === 'amp';
}

/**
 * FSDP1 with the adapters in units of their own (PEFT's fsdp_auto_wrap_policy) and use_orig_params: PEFT reads the
 * adapter's dtype (`x = self._cast_input_dtype(x, lora_A.weight.dtype)`) before it calls the adapter's unit, where the
 * original parameter is still a view of the fp32 shard (_use_sharded_views), so the layer's input is cast to fp32 as
 * without FSDP; inside the unit the gathered weight is 16-bit. H100 truth of Mistral-7B LoRA in Accelerate's FSDP1
 * layout (4 ranks, no checkpointing): -5.5 % with 16-bit adapter inputs counted, +2.1 % with the fp32 copies.
 */
function peftReadsShardDtype(ctx: EstimateContext): boolean {
  return adapterUnitsMatter(ctx.setup) && !adaptersInLayerUnits(ctx) && ctx.setup.fsdp_use_orig_params !== false;
}

/** The activations one GPU of this stage keeps: saved tensors, checkpointing, autocast copies, the causal mask. */
export function stageActivations(ctx: EstimateContext, st: StageContext): StageActivations {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { inFlight, graphsHeld } = st;
  const plan = activationPlan(ctx, st);
  const { layerPlan, mambaPath, kernelsOff } = plan;
  // (Assumptions and warnings of the first stage, in full mode.)
  if (!ctx.lean && st.first) {
    kernelNotes(ctx, st, layerPlan, mambaPath, kernelsOff);
    paddingNote(ctx, layerPlan, plan.paddedBatch);
  }
  const layer = layerActivations(layerPlan);
  const freezeLayer = setup.method === 'freeze' ? layerActivations(freezePlan(ctx, st, plan.mixerKernels)) : undefined;
  const totalLayers = isEncoderDecoder(a) ? a.layers + a.encoderLayers : a.layers;
  const layersStage = Math.ceil(totalLayers / ctx.layout.pipelineParallel);
  const trainableLayers =
    setup.method === 'freeze' ? Math.min(layersStage, setup.freeze_trainable_layers ?? 2) : layersStage;
  // Checkpointed layers keep their inputs when gradients flow through them: the trained ones, and under BAdam every
  // layer above the active one.
  const ckLayers = ctx.methods.badamLayer ? layersStage : trainableLayers;
  const counts: LayerCounts = { layersStage, trainableLayers, ckLayers };
  const saved = savedActivations(
    ctx,
    st,
    { layer, freezeLayer, embeddingOutputRequiresGrad: plan.embeddingOutputRequiresGrad },
    counts,
  );
  const ck = setup.gradient_checkpointing;
  const { castComp, castCacheComp } = autocastCopies(ctx, st, layer, layersStage);
  const perLayerLabel = Math.round(freezeLayer ? freezeLayer.bytesPerLayer : layer.bytesPerLayer);
  const { maskC, maskHeld, maskBytes, maskHeldBytes } = causalMask(ctx, st, layerPlan.weightBytes);
  const actComp = comp(ctx, 'activations', 'Activations saved for backward', saved.bytes, saved.formula, () => ({
    perLayerBytes: perLayerLabel,
    layers: layersStage,
    microBatch: st.sequences,
    seqLen: setup.seq_len,
    attention: ctx.dtypes.attention,
    checkpointing: ck,
    inFlight,
  }));
  const contextHeldLayers =
    (layer.contextHeldBytes ?? 0) > 0 && !(ck !== 'none' && checkpointReentrant(setup)) ? ckLayers * graphsHeld : 0;
  return {
    layerPlan,
    layer,
    actComp,
    maskC,
    maskHeld,
    maskBytes,
    maskHeldBytes,
    castComp,
    castCacheComp,
    recompute: saved.recompute,
    checkpointedLayer: ck === 'full' ? checkpointedLayerOf(freezeLayer ?? layer) : undefined,
    contextHeldLayers,
  };
}

/** How many of the stage's layers there are, train, and keep a checkpointed input. */
interface LayerCounts {
  readonly layersStage: number;
  readonly trainableLayers: number;
  readonly ckLayers: number;
}

/** The replayed layers a stage's saved activations are counted from. */
interface StageLayers {
  readonly layer: LayerActivations;
  /** A freeze run's trained layer (its weights train, so it saves what a full fine-tune's does). */
  readonly freezeLayer: LayerActivations | undefined;
  readonly embeddingOutputRequiresGrad: boolean;
}

/** A freeze run's trained layer: the block as a full fine-tune runs it. */
function freezePlan(
  ctx: EstimateContext,
  st: StageContext,
  mixerKernels: ReturnType<typeof activationPlan>['mixerKernels'],
): ActivationPlan {
  const setup = ctx.setup;
  const { weightBytes, half, mode, attention, oldSoftmax } = ctx.dtypes;
  return {
    arch: ctx.model.arch,
    mode,
    half,
    weightBytes,
    batch: st.sequences,
    seq: st.seqHere,
    attention,
    baseTrainable: true,
    normsTrainable: true,
    inputRequiresGrad: true,
    tp: ctx.layout.tensorParallel,
    sequenceParallel: setup.sequence_parallel,
    compile: setup.compile,
    softmaxSavesInput: oldSoftmax,
    ...(atenGpuSoftmax(ctx) ? { softmaxGradTemp: true } : {}),
    ...(halfToFloatSoftmax(ctx) ? { halfToFloatSoftmax: true } : {}),
    ...mixerKernels,
  };
}

/**
 * What the stage's layers keep for backward under its checkpointing (full: each layer's input, one layer recomputed at
 * a time; selective: the input, every other matmul output and the attention output; none: all they save), with
 * activation offloading, bitsandbytes' kept inputs and the tensors checkpointed layers hold once per model; and the
 * recomputed layer's bytes.
 */
function savedActivations(
  ctx: EstimateContext,
  st: StageContext,
  layers: StageLayers,
  counts: LayerCounts,
): { bytes: number; formula: () => string; recompute: number } {
  const setup = ctx.setup;
  const { layer, freezeLayer } = layers;
  const { layersStage, trainableLayers, ckLayers } = counts;
  const { inFlight, graphsHeld, tokens: T } = st;
  const tp = ctx.layout.tensorParallel;
  const perLayerFull = freezeLayer ? freezeLayer.bytesPerLayer : layer.bytesPerLayer;
  const ck = setup.gradient_checkpointing;
  const forwards = graphsHeld / inFlight;
  const micro =
    (inFlight > 1 ? `${inFlight} micro-batches x ` : '') +
    (forwards > 1 ? `${forwards} forwards (chosen, rejected) x ` : '');
  let bytes: number;
  let formula: () => string;
  let recompute = 0;
  if (ck === 'full') {
    bytes = ckLayers * layer.layerInputBytes * graphsHeld;
    // One layer is recomputed at a time: the largest kind when the model mixes dense and MoE layers.
    // Reentrant checkpointing recomputes the whole layer before its backward starts; the backward's first op, the last
    // linear's LoRA branch, then releases that linear's input where only the branch keeps it (Tape.releasedFirst): the
    // layer's backward high points hold the rest.
    const released = checkpointReentrant(setup) ? (layer.releasedFirstBytes ?? 0) : 0;
    recompute = freezeLayer ? perLayerFull : (layer.largestLayerBytes ?? perLayerFull - released);
    formula = () =>
      `${ckLayers} layers x ${micro}layer input ` +
      `(b·s·h·${layer.layerInputBytes / ((T * ctx.model.arch.hidden) / (setup.sequence_parallel ? tp : 1))} B)`;
  } else if (ck === 'selective') {
    // Op-level selective checkpointing (torchtitan SAC, Korthikanti et al. 2022 §5 in spirit): keep the outputs
    // of every other matmul and of the attention kernel, recompute the rest during backward.
    const kept = freezeLayer ? freezeLayer.selectiveBytes : layer.selectiveBytes;
    const badamRest = ctx.methods.badamLayer ? (layersStage - trainableLayers) * layer.selectiveBytes : 0;
    bytes = (trainableLayers * kept + badamRest) * graphsHeld;
    recompute = perLayerFull - kept;
    formula = () => `${trainableLayers} layers x ${micro}(layer input + every other matmul output + attention output)`;
  } else {
    bytes = (trainableLayers * perLayerFull + (layersStage - trainableLayers) * layer.bytesPerLayer) * graphsHeld;
    const first = firstLayerCorrection(ctx, st, layers.embeddingOutputRequiresGrad, layer);
    bytes += first.bytes * graphsHeld;
    formula = () => `${layersStage} layers x ${micro}saved per layer${first.formula()}`;
  }
  if (setup.activation_offloading && ck !== 'none') {
    bytes = layer.layerInputBytes * 2; // checkpointed inputs live on the host; two in flight on the GPU (prefetch)
    formula = () => 'activation offloading: checkpointed layer inputs on the host, 2 in flight';
  }
  // bitsandbytes' kept inputs (kept-inputs.ts) stay on the GPU for every layer under non-reentrant checkpointing.
  const kept = keptInputBytes(setup, ck, layer.contextHeldBytes ?? 0, ckLayers * graphsHeld);
  if (kept > 0) {
    bytes += kept;
    const base = formula;
    formula = () =>
      `${base()} + ${ckLayers} layers x ${formatBytes(layer.contextHeldBytes ?? 0)} quantized linears' inputs kept by ` +
      `bitsandbytes outside the checkpoint (use_reentrant=${checkpointReentrant(setup) ? 'True' : 'False'})`;
  }
  // Tensors checkpointed layers hold once per forward (T5's position biases, a padded batch's mask): chosen and rejected
  // apart hold two.
  if (ck !== 'none') bytes += layer.checkpointHeldBytes * forwards;
  return { bytes, formula, recompute };
}

/**
 * Autocast's 16-bit copies of fp32 weights, kept by each matmul for backward (with full checkpointing only the
 * recomputed layer holds them), with ZeRO-3's gathered fused experts that the matmuls' saved views keep alike; and
 * autocast's cache of those copies, live at the loss call under checkpointing.
 */
function autocastCopies(
  ctx: EstimateContext,
  st: StageContext,
  layer: LayerActivations,
  layersStage: number,
): { castComp: Component[]; castCacheComp: Component[] } {
  const setup = ctx.setup;
  const { half } = ctx.dtypes;
  const ck = setup.gradient_checkpointing;
  // Under FSDP mixed precision the layers compute with 16-bit unsharded parameters (FSDP2 MixedPrecisionPolicy
  // param_dtype: FSDPParam.init_unsharded_param views of the bf16 all-gather output; FSDP1 MixedPrecision: views of the
  // bf16 _full_param_padded, _flat_param.py _use_unsharded_views; Accelerate sets param_dtype to the autocast dtype,
  // accelerate/utils/dataclasses.py FullyShardedDataParallelPlugin), so autocast's cast is a no-op and nothing is
  // copied or cached (aten/src/ATen/autocast_mode.cpp cached_cast casts fp32 only).
  const castPerLayer = fsdpCastsParameters(ctx) ? 0 : layer.weightCopyBytesPerLayer;
  const counted = castPerLayer > 0 && !setup.activation_offloading;
  const castBytes = counted ? (ck === 'full' ? castPerLayer : castPerLayer * layersStage * st.inFlight) : 0;
  const perLayer = () => ({ perLayerBytes: Math.round(castPerLayer) });
  const weights = (): string => `${formatCount(castPerLayer / half)} linear weights x ${half} B`;
  const castComp = [
    ...(castBytes > 0
      ? [
          comp(
            ctx,
            'autocast-weight-copies',
            'Autocast weight copies (16-bit, kept for backward)',
            castBytes,
            () => `${ck === 'full' ? '1 recomputed layer' : `${layersStage} layers`} x ${weights()}`,
            perLayer,
          ),
        ]
      : []),
    ...zero3KeptExperts(ctx, st, st.graphsHeld),
  ];
  // Autocast caches the 16-bit copy of every fp32 leaf weight that requires grad until the autocast region exits (the
  // end of the forward and loss in HF Trainer), also in the no-grad forward of checkpointed layers
  // (aten/src/ATen/autocast_mode.cpp, cached_cast): with checkpointing the whole cache is live at the loss call. A
  // frozen weight's copy (LoRA's fp32 base) is made anew at each use and freed after it there.
  const cachedPerLayer = fsdpCastsParameters(ctx) ? 0 : (layer.cachedWeightCopyBytesPerLayer ?? castPerLayer);
  const castCacheComp =
    counted && ck === 'full' && cachedPerLayer > 0
      ? [
          comp(
            ctx,
            'autocast-weight-copies',
            'Autocast weight cache (16-bit copies, until the forward ends)',
            cachedPerLayer * layersStage,
            () => `${layersStage} layers x ${formatCount(cachedPerLayer / half)} linear weights that train x ${half} B`,
            () => ({ perLayerBytes: Math.round(cachedPerLayer) }),
          ),
        ]
      : [];
  return { castComp, castCacheComp };
}

function checkpointedLayerOf(l: LayerActivations): CheckpointedLayer | undefined {
  return l.recomputeHighBytes === undefined
    ? undefined
    : {
        forwardHighBytes: l.checkpointedForwardHighBytes,
        recomputeHighBytes: l.recomputeHighBytes,
        entryGradBytes: l.recomputeEntryGradBytes ?? 0,
      };
}
