// The what-ifs of a hovered key: WHAT_IFS lists, per key, the changes worth trying from the current setup
// ("micro-batch 4 -> 5"); each is estimated (lean unless it compares the over-a-run figure) and said as the change in
// device memory. A key without a row has none. Editor-free and pure.
import type { CanonicalKey } from '../../analyzers/facts';
import { parseArchitecture } from '../../core';
import { estimate, findGpu, gpuTarget, type EstimateOptions } from '../../core';
import type { Estimate } from '../../core';
import type { TrainingSetup } from '../../core';
import { signed, type Translate } from './render';

export interface Variant {
  readonly label: string;
  readonly patch: Partial<TrainingSetup>;
  /** Compare what the allocator holds over a run (packing changes that, not the per-step peak the fit uses). */
  readonly overRun?: boolean;
}

/** The what-ifs worth showing for a key, given the current setup, in the order they are shown. */
export type WhatIf = (s: TrainingSetup) => Variant[];

const accumulation: WhatIf = (s) => {
  const v: Variant[] = [];
  v.push({
    label: `accumulation ${s.gradient_accumulation_steps} -> ${s.gradient_accumulation_steps * 2}`,
    patch: { gradient_accumulation_steps: s.gradient_accumulation_steps * 2 },
  });
  return v;
};

const precision: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.mixed_precision === 'none' && s.weights_dtype === 'fp32')
    v.push({ label: 'fp32 -> bf16 autocast', patch: { mixed_precision: 'bf16' } });
  else if (s.mixed_precision !== 'none')
    v.push({
      label: `${s.mixed_precision} autocast -> fp32`,
      patch: { mixed_precision: 'none', weights_dtype: 'fp32' },
    });
  else v.push({ label: `${s.weights_dtype} -> fp32`, patch: { weights_dtype: 'fp32', master_weights: false } });
  return v;
};

const sharding: WhatIf = (s) => {
  const v: Variant[] = [];
  v.push(
    s.fsdp === 'none'
      ? { label: 'FSDP none -> full_shard', patch: { fsdp: 'full_shard' } }
      : { label: `FSDP ${s.fsdp} -> none`, patch: { fsdp: 'none' } },
  );
  return v;
};

/**
 * FSDP1's use_orig_params switched, where the estimate reads it (FSDP2 has no such option): CPU offload over several
 * GPUs (the GPU copies of the shards) or unquantized LoRA / IA3 adapters (the dtype PEFT casts their input to).
 */
const origParams: WhatIf = (s) => {
  const fsdp1 = s.fsdp !== 'none' && s.fsdp !== 'no_shard' && s.fsdp_version !== 2;
  const offloadCopies = s.offload_params !== 'none' && s.gpus_per_node * s.nodes > 1;
  const adapters = (s.method === 'lora' || s.method === 'ia3') && s.quantization === undefined;
  if (!fsdp1 || (!offloadCopies && !adapters)) return [];
  const on = s.fsdp_use_orig_params !== false;
  return [{ label: `use_orig_params ${on} -> ${!on}`, patch: { fsdp_use_orig_params: !on } }];
};

/** FSDP1's rate limiter switched, over several GPUs: without it the layers the CPU gathers ahead stay reserved. */
const limitAllGathers: WhatIf = (s) => {
  const fsdp1 = s.fsdp !== 'none' && s.fsdp !== 'no_shard' && s.fsdp_version !== 2;
  if (!fsdp1 || s.gpus_per_node * s.nodes < 2) return [];
  const on = s.fsdp_limit_all_gathers !== false;
  return [{ label: `limit_all_gathers ${on} -> ${!on}`, patch: { fsdp_limit_all_gathers: !on } }];
};

const galore: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.galore) {
    v.push({
      label: `${s.galore.kind === 'apollo' ? 'APOLLO' : 'GaLore'} rank ${s.galore.rank} -> ${s.galore.rank * 2}`,
      patch: { galore: { ...s.galore, rank: s.galore.rank * 2 } },
    });
    v.push({
      label: `no ${s.galore.kind === 'apollo' ? 'APOLLO' : 'GaLore'} (full optimizer states)`,
      patch: { galore: undefined },
    });
  }
  return v;
};

const badam: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.badam) v.push({ label: 'no BAdam (every layer trains at once)', patch: { badam: undefined } });
  if (s.badam?.mode === 'ratio') {
    v.push({
      label: `BAdam update ratio ${s.badam.update_ratio} -> ${s.badam.update_ratio / 2}`,
      patch: { badam: { ...s.badam, update_ratio: s.badam.update_ratio / 2 } },
    });
    v.push({ label: 'BAdam ratio -> layer mode', patch: { badam: { ...s.badam, mode: 'layer' } } });
  }
  return v;
};

const gpuCount: WhatIf = (s) => {
  const v: Variant[] = [];
  v.push({
    label: `GPUs ${s.gpus_per_node * s.nodes} -> ${s.gpus_per_node * s.nodes * 2}`,
    patch: { gpus_per_node: s.gpus_per_node * 2 },
  });
  return v;
};

const evaluation: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.eval_batch_size !== undefined && s.eval_batch_size > 1)
    v.push({
      label: `eval batch ${s.eval_batch_size} -> ${Math.floor(s.eval_batch_size / 2)}`,
      patch: { eval_batch_size: Math.floor(s.eval_batch_size / 2) },
    });
  if (s.eval_batch_size !== undefined)
    v.push({ label: 'no evaluation during training', patch: { eval_batch_size: undefined } });
  return v;
};

const generationEngine: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.rollout) {
    for (const [engine, label] of [
      ['generate', "generation with the policy's generate()"],
      ['vllm-colocate', 'vLLM colocated'],
      ['vllm-server', 'vLLM server on other GPUs'],
    ] as const) {
      if (s.rollout.engine !== engine) v.push({ label: `${label}`, patch: { rollout: { ...s.rollout, engine } } });
    }
  }
  return v;
};

const rolloutBatch: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.batch >= 2 * s.micro_batch_size)
    v.push({
      label: `completions per round ${s.rollout.batch} -> ${s.rollout.batch / 2}`,
      patch: { rollout: { ...s.rollout, batch: Math.max(1, Math.floor(s.rollout.batch / 2)) } },
    });
  return v;
};

const allocator: WhatIf = (s) => {
  const v: Variant[] = [];
  if (s.batch_lengths === 'variable' && (s.expandable_segments || s.empty_cache_steps !== undefined)) {
    v.push({
      label: 'default allocator (cache of earlier batches kept)',
      patch: { expandable_segments: false, empty_cache_steps: undefined },
      overRun: true,
    });
  }
  return v;
};

/**
 * Per canonical key, the what-ifs its hover shows; keys of one concept share a row (bf16, fp16, mixed precision and
 * the weights' dtype). A key without a row shows none.
 */
export const WHAT_IFS: Partial<Record<CanonicalKey, WhatIf>> = {
  microBatchSize: (s) => {
    const v: Variant[] = [];
    v.push({
      label: `micro-batch ${s.micro_batch_size} -> ${s.micro_batch_size + 1}`,
      patch: { micro_batch_size: s.micro_batch_size + 1 },
    });
    if (s.micro_batch_size > 1)
      v.push({
        label: `micro-batch ${s.micro_batch_size} -> ${s.micro_batch_size - 1}`,
        patch: { micro_batch_size: s.micro_batch_size - 1 },
      });
    return v;
  },
  trainBatchSize: accumulation,
  gradientAccumulationSteps: accumulation,
  seqLen: (s) => {
    const v: Variant[] = [];
    v.push({ label: `sequence ${s.seq_len} -> ${s.seq_len * 2}`, patch: { seq_len: s.seq_len * 2 } });
    if (s.seq_len >= 256)
      v.push({
        label: `sequence ${s.seq_len} -> ${Math.floor(s.seq_len / 2)}`,
        patch: { seq_len: Math.floor(s.seq_len / 2) },
      });
    return v;
  },
  zeroStage: (s) => {
    const v: Variant[] = [];
    if (s.zero_stage < 3)
      v.push({
        label: `stage ${s.zero_stage} -> ${s.zero_stage + 1}`,
        patch: { zero_stage: (s.zero_stage + 1) as 1 | 2 | 3 },
      });
    if (s.zero_stage > 0)
      v.push({
        label: `stage ${s.zero_stage} -> ${s.zero_stage - 1}`,
        patch: { zero_stage: (s.zero_stage - 1) as 0 | 1 | 2 },
      });
    return v;
  },
  gradientCheckpointing: (s) => {
    const v: Variant[] = [];
    v.push(
      s.gradient_checkpointing === 'none'
        ? { label: 'checkpointing off -> on', patch: { gradient_checkpointing: 'full' } }
        : { label: 'checkpointing on -> off', patch: { gradient_checkpointing: 'none' } },
    );
    return v;
  },
  optimizer: (s) => {
    const v: Variant[] = [];
    if (s.optimizer !== 'adamw_8bit')
      v.push({ label: `${s.optimizer} -> adamw_8bit`, patch: { optimizer: 'adamw_8bit' } });
    if (s.optimizer !== 'adamw') v.push({ label: `${s.optimizer} -> adamw`, patch: { optimizer: 'adamw' } });
    return v;
  },
  bf16: precision,
  fp16: precision,
  mixedPrecision: precision,
  weightsDtype: precision,
  offloadOptimizer: (s) => {
    const v: Variant[] = [];
    v.push(
      s.offload_optimizer === 'none'
        ? { label: 'optimizer offload none -> cpu', patch: { offload_optimizer: 'cpu' } }
        : { label: `optimizer offload ${s.offload_optimizer} -> none`, patch: { offload_optimizer: 'none' } },
    );
    return v;
  },
  offloadParams: (s) => {
    const v: Variant[] = [];
    v.push(
      s.offload_params === 'none'
        ? { label: 'parameter offload none -> cpu', patch: { offload_params: 'cpu' } }
        : { label: `parameter offload ${s.offload_params} -> none`, patch: { offload_params: 'none' } },
    );
    return v;
  },
  fsdp: sharding,
  fsdpOffload: sharding,
  fsdpUseOrigParams: origParams,
  fsdpLimitAllGathers: limitAllGathers,
  loraR: (s) => {
    const v: Variant[] = [];
    if (s.lora) {
      v.push({ label: `LoRA rank ${s.lora.r} -> ${s.lora.r * 2}`, patch: { lora: { ...s.lora, r: s.lora.r * 2 } } });
      if (s.lora.r > 1)
        v.push({
          label: `LoRA rank ${s.lora.r} -> ${Math.max(1, Math.floor(s.lora.r / 2))}`,
          patch: { lora: { ...s.lora, r: Math.max(1, Math.floor(s.lora.r / 2)) } },
        });
    }
    return v;
  },
  galore: galore,
  galoreRank: galore,
  galoreTargets: galore,
  galoreLayerwise: galore,
  badam: badam,
  badamUpdateRatio: badam,
  rewardModels: (s) => {
    const v: Variant[] = [];
    if (s.rollout && s.rollout.reward_models.length > 0)
      v.push({
        label: 'no reward model (reward functions only)',
        patch: { rollout: { ...s.rollout, reward_models: [] } },
      });
    return v;
  },
  loraDora: (s) => {
    const v: Variant[] = [];
    if (s.lora?.use_dora) v.push({ label: 'DoRA -> plain LoRA', patch: { lora: { ...s.lora, use_dora: false } } });
    else if (s.lora) v.push({ label: 'LoRA -> DoRA', patch: { lora: { ...s.lora, use_dora: true } } });
    return v;
  },
  loraTargets: (s) => {
    const v: Variant[] = [];
    if (s.lora && s.lora.target_modules !== 'all-linear')
      v.push({ label: 'targets -> all-linear', patch: { lora: { ...s.lora, target_modules: 'all-linear' } } });
    return v;
  },
  quantBits: (s) => {
    const v: Variant[] = [];
    if (s.quantization)
      v.push({
        label: `${s.quantization.bits}-bit base -> 16-bit`,
        patch: { quantization: undefined, method: s.method === 'qlora' ? 'lora' : s.method },
      });
    return v;
  },
  quantizeExperts: (s) => {
    const v: Variant[] = [];
    // Axolotl quantize_moe_experts: what leaving the fused experts in 16 bits would cost (or quantizing them save).
    if (s.quantization)
      v.push({
        label: s.quantization.experts
          ? 'fused experts quantized -> left in 16 bits'
          : 'fused experts in 16 bits -> quantized',
        patch: { quantization: { ...s.quantization, experts: !s.quantization.experts } },
      });
    return v;
  },
  gpusPerNode: gpuCount,
  worldSize: gpuCount,
  contextParallel: (s) => {
    const v: Variant[] = [];
    // Doubling the split takes twice the GPUs (the data-parallel degree stays); halving it returns them.
    v.push({
      label: `context parallel ${s.context_parallel} -> ${s.context_parallel * 2} (GPUs x2)`,
      patch: { context_parallel: s.context_parallel * 2, gpus_per_node: s.gpus_per_node * 2 },
    });
    if (s.context_parallel > 1 && s.gpus_per_node % 2 === 0)
      v.push({
        label: `context parallel ${s.context_parallel} -> ${s.context_parallel / 2} (GPUs /2)`,
        patch: { context_parallel: s.context_parallel / 2, gpus_per_node: s.gpus_per_node / 2 },
      });
    return v;
  },
  expertParallel: (s) => {
    const v: Variant[] = [];
    v.push({
      label: `expert parallel ${s.expert_parallel} -> ${s.expert_parallel * 2}`,
      patch: { expert_parallel: s.expert_parallel * 2 },
    });
    if (s.expert_parallel > 1)
      v.push({ label: `expert parallel ${s.expert_parallel} -> 1`, patch: { expert_parallel: 1 } });
    return v;
  },
  attention: (s) => {
    const v: Variant[] = [];
    // A model whose own code sets the attention (Kimi Linear's modeling_kimi.py) has no attention what-if.
    const parsed = parseArchitecture(s.architecture);
    const fixedAttention = parsed.ok && parsed.arch.modelCode !== undefined;
    if (s.attention !== 'flash' && !fixedAttention)
      v.push({ label: `attention ${s.attention} -> flash`, patch: { attention: 'flash' } });
    if (s.attention !== 'eager' && !fixedAttention)
      v.push({ label: `attention ${s.attention} -> eager`, patch: { attention: 'eager' } });
    // Qwen3.5 / Qwen3-Next: the Gated DeltaNet layers' kernels matter more than the attention layers' here.
    const mt = String(s.architecture.model_type ?? '');
    if (/^qwen3_(next|5)/.test(mt)) {
      const k = s.linear_attention_kernels ?? 'fla';
      const other = k === 'fla' ? 'torch' : 'fla';
      v.push({ label: `Gated DeltaNet kernels ${k} -> ${other}`, patch: { linear_attention_kernels: other } });
    }
    // Mamba hybrids: the Mamba layers' kernels (mamba_ssm + causal-conv1d, or transformers' torch path).
    if (parsed.ok && (parsed.arch.mamba || parsed.arch.mamba1)) {
      const k = s.mamba_kernels ?? 'cuda';
      const other = k === 'cuda' ? 'torch' : 'cuda';
      v.push({
        label: `${parsed.arch.mamba1 ? 'Mamba' : 'Mamba2'} kernels ${k} -> ${other}`,
        patch: { mamba_kernels: other },
      });
    }
    return v;
  },
  loss: (s) => {
    const v: Variant[] = [];
    if (s.loss !== 'fused') v.push({ label: `loss ${s.loss} -> fused linear-CE`, patch: { loss: 'fused' } });
    return v;
  },
  activationOffloading: (s) => {
    const v: Variant[] = [];
    v.push({
      label: `activation offloading ${s.activation_offloading ? 'on -> off' : 'off -> on'}`,
      patch: {
        activation_offloading: !s.activation_offloading,
        gradient_checkpointing: s.gradient_checkpointing === 'none' ? 'full' : s.gradient_checkpointing,
      },
    });
    return v;
  },
  tiledMlp: (s) => {
    const v: Variant[] = [];
    v.push({
      label: `tiled MLP ${s.tiled_mlp === false ? 'off -> on' : 'on -> off'}`,
      patch: { tiled_mlp: s.tiled_mlp === false },
    });
    if (typeof s.tiled_mlp === 'number' && s.tiled_mlp > 1)
      v.push({ label: `tiled MLP shards ${s.tiled_mlp} -> ${s.tiled_mlp * 2}`, patch: { tiled_mlp: s.tiled_mlp * 2 } });
    return v;
  },
  evalBatchSize: evaluation,
  evalStrategy: evaluation,
  kbitUpcast: (s) => {
    const v: Variant[] = [];
    if (s.kbit_upcast !== 'none')
      v.push({ label: `fp32 upcast (${s.kbit_upcast}) -> none`, patch: { kbit_upcast: 'none' } });
    if (s.kbit_upcast === 'all' && s.quantization)
      v.push({ label: 'fp32 upcast all -> norms only', patch: { kbit_upcast: 'norms' } });
    return v;
  },
  preference: (s) => {
    const v: Variant[] = [];
    if (s.preference && (s.preference.reference === 'copy' || s.preference.reference === 'adapters-off')) {
      v.push({
        label: 'reference log-probs precomputed',
        patch: { preference: { ...s.preference, reference: 'precomputed' } },
      });
    }
    if (s.preference) v.push({ label: 'plain training (no preference objective)', patch: { preference: undefined } });
    return v;
  },
  rollout: generationEngine,
  useVllm: generationEngine,
  vllmMode: generationEngine,
  completionLen: (s) => {
    const v: Variant[] = [];
    if (s.rollout && s.rollout.completion_len > 1) {
      const c = Math.floor(s.rollout.completion_len / 2);
      v.push({
        label: `completions ${s.rollout.completion_len} -> ${c} tokens`,
        patch: { rollout: { ...s.rollout, completion_len: c }, seq_len: s.seq_len - (s.rollout.completion_len - c) },
      });
    }
    return v;
  },
  maxNewTokens: (s) => {
    const v: Variant[] = [];
    // Online DPO: max_length bounds prompt + completion (the prompt is cut from the left), so fewer generated tokens
    // shorten the completion slice and the decoding, not the sequence.
    if (s.rollout?.objective === 'online-dpo' && s.rollout.completion_len > 1) {
      const c = Math.floor(s.rollout.completion_len / 2);
      v.push({
        label: `completions ${s.rollout.completion_len} -> ${c} tokens`,
        patch: { rollout: { ...s.rollout, completion_len: c } },
      });
    }
    return v;
  },
  promptLen: (s) => {
    const v: Variant[] = [];
    if (s.rollout) {
      const p = s.seq_len - s.rollout.completion_len;
      if (p > 1)
        v.push({
          label: `prompts ${p} -> ${Math.floor(p / 2)} tokens`,
          patch: { seq_len: s.seq_len - (p - Math.floor(p / 2)) },
        });
    }
    return v;
  },
  stepsPerGeneration: rolloutBatch,
  generationBatchSize: rolloutBatch,
  klBeta: (s) => {
    const v: Variant[] = [];
    if (s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.reference !== 'none')
      v.push({ label: 'beta 0 (no reference model)', patch: { rollout: { ...s.rollout, reference: 'none' } } });
    return v;
  },
  vllmMemoryFraction: (s) => {
    const v: Variant[] = [];
    if (s.rollout?.engine === 'vllm-colocate' && s.rollout.vllm_memory_fraction > 0.1) {
      const f = Math.round((s.rollout.vllm_memory_fraction - 0.1) * 100) / 100;
      v.push({
        label: `vLLM share ${s.rollout.vllm_memory_fraction} -> ${f}`,
        patch: { rollout: { ...s.rollout, vllm_memory_fraction: f } },
      });
    }
    return v;
  },
  vllmSleep: (s) => {
    const v: Variant[] = [];
    if (s.rollout?.engine === 'vllm-colocate')
      v.push({
        label: `vLLM sleep mode ${s.rollout.vllm_sleep ? 'on -> off' : 'off -> on'}`,
        patch: { rollout: { ...s.rollout, vllm_sleep: !s.rollout.vllm_sleep } },
      });
    return v;
  },
  kernels: (s) => {
    const v: Variant[] = [];
    if (s.kernels !== 'pytorch')
      v.push({ label: `${s.kernels} kernels -> PyTorch layers`, patch: { kernels: 'pytorch' } });
    return v;
  },
  expandableSegments: allocator,
  emptyCacheSteps: allocator,
  batchLengths: (s) => {
    const v: Variant[] = [];
    const flipped = s.batch_lengths === 'variable' ? 'fixed' : 'variable';
    v.push({
      label: `${s.batch_lengths} -> ${flipped} batch lengths`,
      patch: { batch_lengths: flipped },
      overRun: true,
    });
    return v;
  },
};

/** The what-ifs of a key (a canonical key, or a scenario key without one). */
export function variantsFor(key: string, s: TrainingSetup): Variant[] {
  const whatIf = Object.hasOwn(WHAT_IFS, key) ? WHAT_IFS[key as CanonicalKey] : undefined;
  return whatIf ? whatIf(s) : [];
}

/**
 * The largest micro-batch below the current one that fits the estimate's GPU (device memory grows with the
 * micro-batch, so a binary search over lean estimates), or undefined when not even 1 fits.
 */
export function largestFittingMicroBatch(s: TrainingSetup, e: Estimate): number | undefined {
  const gpu = estimateGpu(e);
  if (!gpu) return undefined;
  const fits = (m: number): boolean => {
    const r = estimate({ ...s, micro_batch_size: m }, { gpu, lean: true });
    return r.ok && r.estimate.fits === true;
  };
  let lo = 0;
  let hi = s.micro_batch_size;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo >= 1 ? lo : undefined;
}

/** Each what-if of a key, estimated: its label and the change in device memory (or over a run), with the fit when it changes. */
/**
 * The GPU an estimate was made for, as estimate() takes it: looked up again by its id, so a what-if counts what the
 * GPU's spec decides (its cuBLAS workspaces, ATen's GPU softmax temporary) as the estimate it is compared with did.
 */
function estimateGpu(e: Estimate): EstimateOptions['gpu'] {
  if (!e.gpu) return undefined;
  const found = findGpu(e.gpu.id);
  return found.ok ? gpuTarget(found.gpu) : { id: e.gpu.id, memoryBytes: e.gpu.memoryBytes, source: e.gpu.source };
}

export function whatIfEffects(key: string, s: TrainingSetup, e: Estimate, t: Translate): string[] {
  const effects: string[] = [];
  const overRun = (x: typeof e): number => x.perGpu.variableLengths?.deviceBytes ?? x.perGpu.deviceBytes;
  const gpu = estimateGpu(e);
  for (const variant of variantsFor(key, s)) {
    // Lean estimates leave out the over-a-run figure; a variant that compares it needs the full one.
    const r = estimate({ ...s, ...variant.patch }, { gpu, lean: !variant.overRun });
    if (!r.ok) continue;
    if (variant.overRun) {
      effects.push(
        `${variant.label}: ${signed(overRun(r.estimate) - overRun(e))}${t(' over a run (nvidia-smi); the per-step peak is unchanged')}`,
      );
      continue;
    }
    const delta = r.estimate.perGpu.deviceBytes - e.perGpu.deviceBytes;
    const fitChange =
      r.estimate.fits === false && e.fits
        ? t(' (no longer fits)')
        : r.estimate.fits && e.fits === false
          ? t(' (fits)')
          : '';
    effects.push(`${variant.label}: ${signed(delta)}${fitChange}`);
  }
  if (key === 'microBatchSize' && e.fits === false) {
    const m = largestFittingMicroBatch(s, e);
    effects.push(m === undefined ? t('no micro-batch fits') : t('{0} fits', m));
  }
  return effects;
}
