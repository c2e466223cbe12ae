// The changes a practitioner would make to a setup that does not fit (the Move table), and how a chain of them
// is applied. Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { SetupChange } from './types';
import { parseArchitecture } from '../architecture';
import { fusedExpertsIn, quantizesWholeAtLoad } from '../estimate';
import type { TrainingSetup } from '../setup';

export interface Move {
  readonly id: string;
  readonly title: string;
  readonly changesResult: boolean;
  readonly group: string;
  apply(s: TrainingSetup): Partial<TrainingSetup> | undefined;
}

const pow2Down = (n: number): number => Math.max(1, Math.floor(n / 2));

export function moves(base: TrainingSetup, bf16: boolean): Move[] {
  const world = base.gpus_per_node * base.nodes;
  const half = bf16 ? 'bf16' : 'fp16';
  const m: Move[] = [];
  m.push({
    id: 'amp',
    group: 'precision',
    title: `Mixed precision (${half} autocast)`,
    changesResult: false,
    apply: (s) => (s.weights_dtype === 'fp32' && s.mixed_precision === 'none' ? { mixed_precision: half } : undefined),
  });
  m.push({
    id: 'pure-bf16',
    group: 'precision',
    title: 'Load the model in bf16 (pure bf16 weights)',
    changesResult: false,
    apply: (s) =>
      bf16 && s.weights_dtype === 'fp32' && s.method === 'full' && s.zero_stage === 0 && s.fsdp === 'none'
        ? { weights_dtype: 'bf16', mixed_precision: 'bf16' }
        : undefined,
  });
  // PEFT's prepare_model_for_kbit_training keeps norms, embeddings and head in fp32, and with them the residual stream
  // behind 4-bit layers; TRL dropped the cast (trl PR 4457: same loss curves, less memory).
  // torchao before 0.2 quantizes each NF4 weight whole on the GPU while the model is built and loaded; from 0.2 it
  // quantizes in 1M-element chunks (pytorch/ao#196), the same NF4 codes without the load-time high point.
  m.push({
    id: 'torchao-chunked',
    group: 'precision',
    title: 'Upgrade torchao to 0.2 or later (NF4 quantized in chunks: no load-time spike)',
    changesResult: false,
    apply: (s) => (quantizesWholeAtLoad(s) ? { torchao_version: '0.2' } : undefined),
  });
  m.push({
    id: 'no-kbit-upcast',
    group: 'precision',
    title: 'Keep the unquantized parameters in 16 bits (no fp32 cast of prepare_model_for_kbit_training)',
    changesResult: false,
    apply: (s) => (s.kbit_upcast !== 'none' ? { kbit_upcast: 'none' } : undefined),
  });
  // Evaluation during training runs a no-grad forward at its own batch; a smaller one changes no training result.
  m.push({
    id: 'eval-batch-1',
    group: 'batch',
    title: 'Evaluate with a batch of 1 (per_device_eval_batch_size)',
    changesResult: false,
    apply: (s) => (s.eval_batch_size !== undefined && s.eval_batch_size > 1 ? { eval_batch_size: 1 } : undefined),
  });
  // DPO with a reference: its log-probabilities computed once before training (TRL precompute_ref_log_probs) free the
  // reference copy and its forward from every step; the loss is the same.
  m.push({
    id: 'precompute-ref',
    group: 'reference',
    title: 'Precompute the reference log-probabilities before training (precompute_ref_log_probs)',
    changesResult: false,
    apply: (s) =>
      s.preference && (s.preference.reference === 'copy' || s.preference.reference === 'adapters-off')
        ? { preference: { ...s.preference, reference: 'precomputed' } }
        : undefined,
  });
  // GRPO: the colocated vLLM engine can sleep while the policy trains (its weights go to the host and come back each
  // round); fewer completions per round shrink the KV cache at the price of more rounds; dropping the KL term (beta = 0)
  // removes the reference, which changes the objective.
  m.push({
    id: 'vllm-sleep',
    group: 'rollout',
    title: 'Let the colocated vLLM engine sleep while the policy trains (vllm_enable_sleep_mode)',
    changesResult: false,
    apply: (s) =>
      s.rollout?.engine === 'vllm-colocate' && s.rollout.objective !== 'online-dpo' && !s.rollout.vllm_sleep
        ? { rollout: { ...s.rollout, vllm_sleep: true } }
        : undefined,
  });
  m.push({
    id: 'rollout-half',
    group: 'rollout',
    title: 'Generate half as many completions per round (steps_per_generation)',
    changesResult: false,
    apply: (s) =>
      s.rollout?.engine === 'generate' &&
      s.rollout.objective !== 'online-dpo' &&
      s.rollout.batch % (2 * s.micro_batch_size) === 0
        ? { rollout: { ...s.rollout, batch: s.rollout.batch / 2 } }
        : undefined,
  });
  m.push({
    id: 'kl-off',
    group: 'rollout',
    title: 'Drop the KL term (beta = 0): no reference model',
    changesResult: true,
    apply: (s) =>
      s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.reference !== 'none'
        ? { rollout: { ...s.rollout, reference: 'none' } }
        : undefined,
  });
  m.push({
    id: 'gc-full',
    group: 'checkpointing',
    title: 'Enable gradient checkpointing',
    changesResult: false,
    apply: (s) => (s.gradient_checkpointing !== 'full' ? { gradient_checkpointing: 'full' } : undefined),
  });
  m.push({
    id: 'gc-selective',
    group: 'checkpointing',
    title: 'Selective activation checkpointing',
    changesResult: false,
    apply: (s) => (s.gradient_checkpointing === 'none' ? { gradient_checkpointing: 'selective' } : undefined),
  });
  m.push({
    id: 'sdpa',
    group: 'attention',
    title: 'Use SDPA / FlashAttention instead of eager attention',
    changesResult: false,
    apply: (s) => (s.attention === 'eager' ? { attention: 'sdpa' } : undefined),
  });
  m.push({
    id: 'flash',
    group: 'attention',
    title: 'Use FlashAttention-2 (no repeated k/v, no s x s matrix)',
    changesResult: false,
    apply: (s) => (s.attention !== 'flash' ? { attention: 'flash' } : undefined),
  });
  m.push({
    id: 'fla-kernels',
    group: 'linear-attention',
    title: 'Install flash-linear-attention and causal-conv1d (Gated DeltaNet kernels instead of the torch fallback)',
    changesResult: false,
    apply: (s) => (s.linear_attention_kernels === 'torch' ? { linear_attention_kernels: 'fla' } : undefined),
  });
  const parsed = parseArchitecture(base.architecture);
  // transformers 5's fused MoE experts stay in 16 bits under bitsandbytes; Axolotl's quantize_moe_experts quantizes them.
  if (parsed.ok && fusedExpertsIn(base, parsed.arch)) {
    m.push({
      id: 'quantize-experts',
      group: 'precision',
      title: 'Quantize the fused MoE experts too (Axolotl quantize_moe_experts)',
      changesResult: false,
      apply: (s) =>
        s.quantization && s.quantization.type !== 'gptq' && s.quantization.type !== 'awq' && !s.quantization.experts
          ? { quantization: { ...s.quantization, experts: true } }
          : undefined,
    });
  }
  const mamba1 = parsed.ok && parsed.arch.mamba1 !== undefined;
  m.push({
    id: 'mamba-kernels',
    group: 'linear-attention',
    title: mamba1
      ? 'Install mamba_ssm and causal-conv1d (the selective-scan kernel instead of slow_forward)'
      : 'Install mamba_ssm and causal-conv1d (the fused Mamba2 kernel instead of torch_forward)',
    changesResult: false,
    apply: (s) => (s.mamba_kernels === 'torch' ? { mamba_kernels: 'cuda' } : undefined),
  });
  m.push({
    id: 'chunked-loss',
    group: 'loss',
    title: 'Chunked / fused cross-entropy (no full fp32 logits)',
    changesResult: false,
    apply: (s) => (s.loss === 'full' ? { loss: 'fused' } : undefined),
  });
  // bitsandbytes 8-bit layers cannot be sharded (FSDP refuses integer parameters, ZeRO-3 cannot partition them):
  // no candidate shards the parameters of an int8 model; ZeRO-1/2 shard only the optimizer state and gradients.
  const int8 = (s: TrainingSetup): boolean => s.quantization?.type === 'int8';
  if (world > 1) {
    for (const z of [1, 2, 3] as const) {
      m.push({
        id: `zero${z}`,
        group: 'sharding',
        title: `DeepSpeed ZeRO stage ${z}`,
        changesResult: false,
        apply: (s) =>
          s.fsdp === 'none' && s.zero_stage < z && !(z === 3 && int8(s))
            ? { zero_stage: z, ...(s.weights_dtype !== 'fp32' && s.method === 'full' ? { master_weights: true } : {}) }
            : undefined,
      });
    }
    m.push({
      id: 'zero3-offload-opt',
      group: 'sharding',
      title: 'ZeRO-3 with the optimizer offloaded to CPU',
      changesResult: false,
      apply: (s) =>
        s.fsdp === 'none' && s.offload_optimizer === 'none' && !int8(s)
          ? { zero_stage: 3, offload_optimizer: 'cpu' }
          : undefined,
    });
  }
  if (world > 1) {
    for (const f of ['full_shard', 'shard_grad_op', 'hybrid_shard'] as const) {
      if (f === 'hybrid_shard' && base.nodes === 1) continue;
      m.push({
        id: `fsdp-${f}`,
        group: 'sharding',
        title: `FSDP ${f.toUpperCase()}`,
        changesResult: false,
        apply: (s) =>
          s.fsdp !== f && s.zero_stage === 0 && !int8(s)
            ? { fsdp: f, ...(s.weights_dtype !== 'fp32' && s.method === 'full' ? { master_weights: true } : {}) }
            : undefined,
      });
    }
  }
  for (const factor of [2, 4]) {
    m.push({
      id: `gpus-x${factor}`,
      group: 'scale',
      title: `${factor}x the GPUs (${world * factor} in total) with sharded model states`,
      changesResult: false,
      apply: (s) => {
        if (int8(s)) return undefined;
        const total = s.gpus_per_node * s.nodes * factor;
        const perNode = Math.min(total, 8);
        return {
          gpus_per_node: perNode,
          nodes: Math.max(1, total / perNode),
          ...(s.zero_stage === 0 && s.fsdp === 'none' ? { zero_stage: 3 as const } : {}),
        };
      },
    });
  }
  // FSDP has no NVMe offload: from an FSDP setup this switches to DeepSpeed ZeRO-3, and it does not follow a move
  // that just chose an FSDP mode (that move would be undone).
  m.push({
    id: 'offload-opt-nvme',
    group: 'offload',
    title:
      base.fsdp !== 'none'
        ? 'Switch to DeepSpeed ZeRO-3 with the optimizer on NVMe (ZeRO-Infinity)'
        : 'Offload the optimizer to NVMe (ZeRO-Infinity)',
    changesResult: false,
    apply: (s) =>
      s.offload_optimizer !== 'nvme' && s.optimizer !== 'none' && s.fsdp === base.fsdp && !int8(s)
        ? { offload_optimizer: 'nvme', zero_stage: 3 as const, fsdp: 'none' }
        : undefined,
  });
  // A different optimizer changes the training dynamics (and usually the learning-rate schedule): labelled.
  m.push({
    id: 'adafactor',
    group: 'optimizer',
    title: 'Adafactor (factored second moment, no momentum)',
    changesResult: true,
    apply: (s) =>
      s.optimizer !== 'adafactor' && s.offload_optimizer === 'none' ? { optimizer: 'adafactor' } : undefined,
  });
  for (const r of [8, 64]) {
    m.push({
      id: `lora-r${r}`,
      group: 'method',
      title: `LoRA r=${r} on all linear layers`,
      changesResult: true,
      apply: (s) =>
        s.method === 'full' || s.method === 'freeze' || (s.lora && s.lora.r !== r)
          ? {
              method: s.method === 'qlora' ? 'qlora' : 'lora',
              lora: {
                r,
                alpha: 2 * r,
                dropout: 0.05,
                target_modules: 'all-linear',
                modules_to_save: [],
                dtype: 'fp32',
                use_dora: false,
              },
              master_weights: false,
              weights_dtype: s.weights_dtype === 'fp32' ? (bf16 ? 'bf16' : 'fp16') : s.weights_dtype,
            }
          : undefined,
    });
  }
  m.push({
    id: 'lora-attn',
    group: 'method',
    title: 'LoRA r=16 on the attention projections only',
    changesResult: true,
    apply: (s) =>
      s.method === 'full' || s.method === 'freeze'
        ? {
            method: 'lora',
            lora: {
              r: 16,
              alpha: 32,
              dropout: 0.05,
              target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
              modules_to_save: [],
              dtype: 'fp32',
              use_dora: false,
            },
            master_weights: false,
            weights_dtype: s.weights_dtype === 'fp32' ? (bf16 ? 'bf16' : 'fp16') : s.weights_dtype,
          }
        : undefined,
  });
  m.push({
    id: 'seq-3/4',
    group: 'sequence',
    title: 'Shorten the sequence length by a quarter',
    changesResult: true,
    apply: (s) => (s.seq_len >= 512 ? shorter(s, Math.floor((s.seq_len * 3) / 4 / 64) * 64) : undefined),
  });
  m.push({
    id: 'micro-3/4',
    group: 'batch',
    title: 'Smaller micro-batch (3/4), more accumulation',
    changesResult: false,
    apply: (s) =>
      s.micro_batch_size >= 4 &&
      (s.micro_batch_size * s.gradient_accumulation_steps) % Math.floor((s.micro_batch_size * 3) / 4) === 0
        ? {
            micro_batch_size: Math.floor((s.micro_batch_size * 3) / 4),
            gradient_accumulation_steps:
              (s.micro_batch_size * s.gradient_accumulation_steps) / Math.floor((s.micro_batch_size * 3) / 4),
          }
        : undefined,
  });
  // FSDP has one CPU offload (CPUOffload(offload_params=True)): sharded parameters, their gradients and the optimizer
  // step all move to the host, whichever of the two keys asks for it.
  const fsdpOffload = 'FSDP CPU offload (parameters, gradients and optimizer step on the host)';
  m.push({
    id: 'offload-opt',
    group: 'offload',
    title: base.fsdp !== 'none' ? fsdpOffload : 'Offload the optimizer to CPU (ZeRO-Offload)',
    changesResult: false,
    apply: (s) =>
      s.offload_optimizer === 'none' && s.optimizer !== 'none'
        ? { offload_optimizer: 'cpu', ...(s.zero_stage === 0 && s.fsdp === 'none' ? { zero_stage: 2 as const } : {}) }
        : undefined,
  });
  m.push({
    id: 'offload-params',
    group: 'offload',
    title: base.fsdp !== 'none' ? fsdpOffload : 'Offload parameters and optimizer to CPU (ZeRO-Infinity)',
    changesResult: false,
    apply: (s) =>
      s.offload_params === 'none' && !int8(s)
        ? { offload_params: 'cpu', offload_optimizer: 'cpu', ...(s.fsdp === 'none' ? { zero_stage: 3 as const } : {}) }
        : undefined,
  });
  // Long sequences: a tiled MLP (DeepSpeed ALST TiledMLP, Axolotl tiled_mlp) keeps only each dense MLP's input and
  // recomputes it shard by shard in backward: one more MLP forward.
  m.push({
    id: 'tiled-mlp',
    group: 'mlp',
    title: 'Tiled MLP (sequence shards, recomputed in backward)',
    changesResult: false,
    apply: (s) => (s.tiled_mlp === false && s.seq_len >= 8192 ? { tiled_mlp: true } : undefined),
  });
  m.push({
    id: 'adam8bit',
    group: 'optimizer',
    title: 'Switch to 8-bit AdamW (bitsandbytes)',
    changesResult: false,
    apply: (s) =>
      ['adamw', 'adamw_fused', 'adamw_hf', 'paged_adamw'].includes(s.optimizer) && s.offload_optimizer === 'none'
        ? { optimizer: 'adamw_8bit' }
        : undefined,
  });
  m.push({
    id: 'paged8bit',
    group: 'optimizer',
    title: 'Paged 8-bit AdamW (spills to host under pressure)',
    changesResult: false,
    apply: (s) =>
      ['adamw', 'adamw_fused', 'adamw_hf', 'adamw_8bit'].includes(s.optimizer) && s.offload_optimizer === 'none'
        ? { optimizer: 'paged_adamw_8bit' }
        : undefined,
  });
  m.push({
    id: 'lora',
    group: 'method',
    title: 'LoRA (r=16 on all linear layers) instead of full fine-tuning',
    changesResult: true,
    apply: (s) =>
      s.method === 'full' || s.method === 'freeze'
        ? {
            method: 'lora',
            lora: {
              r: 16,
              alpha: 32,
              dropout: 0.05,
              target_modules: 'all-linear',
              modules_to_save: [],
              dtype: 'fp32',
              use_dora: false,
            },
            master_weights: false,
            weights_dtype: s.weights_dtype === 'fp32' ? (bf16 ? 'bf16' : 'fp16') : s.weights_dtype,
          }
        : undefined,
  });
  m.push({
    id: 'qlora',
    group: 'method',
    title: 'QLoRA (4-bit NF4 base, LoRA r=16 on all linear layers)',
    changesResult: true,
    apply: (s) =>
      s.method !== 'qlora'
        ? {
            method: 'qlora',
            quantization: { bits: 4, type: 'nf4', double_quant: true, scope: 'all-linear' },
            lora: s.lora ?? {
              r: 16,
              alpha: 32,
              dropout: 0.05,
              target_modules: 'all-linear',
              modules_to_save: [],
              dtype: 'fp32',
              use_dora: false,
            },
            master_weights: false,
            zero_stage: 0,
            weights_dtype: bf16 ? 'bf16' : 'fp16',
          }
        : undefined,
  });
  m.push({
    id: 'no-dora',
    group: 'method',
    title: 'Plain LoRA instead of DoRA (no magnitude vectors, no weight norms)',
    changesResult: true,
    apply: (s) =>
      s.lora?.use_dora && (s.method === 'lora' || s.method === 'qlora')
        ? { lora: { ...s.lora, use_dora: false } }
        : undefined,
  });
  m.push({
    id: 'lora-rank',
    group: 'method',
    title: 'Lower the LoRA rank',
    changesResult: true,
    apply: (s) =>
      s.lora && s.lora.r > 8 && (s.method === 'lora' || s.method === 'qlora')
        ? { lora: { ...s.lora, r: pow2Down(s.lora.r) } }
        : undefined,
  });
  m.push({
    id: 'micro-half',
    group: 'batch',
    title: 'Halve the micro-batch, double gradient accumulation (same global batch)',
    changesResult: false,
    apply: (s) =>
      s.micro_batch_size > 1
        ? {
            micro_batch_size: pow2Down(s.micro_batch_size),
            gradient_accumulation_steps:
              s.gradient_accumulation_steps * (s.micro_batch_size / pow2Down(s.micro_batch_size)),
          }
        : undefined,
  });
  m.push({
    id: 'micro-1',
    group: 'batch',
    title: 'Micro-batch 1 with more gradient accumulation (same global batch)',
    changesResult: false,
    apply: (s) =>
      s.micro_batch_size > 2
        ? { micro_batch_size: 1, gradient_accumulation_steps: s.gradient_accumulation_steps * s.micro_batch_size }
        : undefined,
  });
  m.push({
    id: 'seq-half',
    group: 'sequence',
    title: 'Halve the sequence length',
    changesResult: true,
    apply: (s) => (s.seq_len >= 256 ? shorter(s, Math.floor(s.seq_len / 2)) : undefined),
  });
  return m;
}

/** A shorter sequence; with GRPO rollouts the prompt and the completion shrink in proportion. */
function shorter(s: TrainingSetup, seq: number): Partial<TrainingSetup> {
  if (!s.rollout) return { seq_len: seq };
  const completion = Math.max(1, Math.round((s.rollout.completion_len * seq) / s.seq_len));
  return completion < seq ? { seq_len: seq, rollout: { ...s.rollout, completion_len: completion } } : { seq_len: seq };
}

export function applyAll(
  base: TrainingSetup,
  ms: readonly Move[],
): { setup: TrainingSetup; changes: SetupChange[] } | undefined {
  let s = base;
  const changes = new Map<keyof TrainingSetup, unknown>();
  for (const mv of ms) {
    const patch = mv.apply(s);
    if (!patch) return undefined;
    s = { ...s, ...patch };
    for (const [k, v] of Object.entries(patch)) changes.set(k as keyof TrainingSetup, v);
  }
  return { setup: s, changes: [...changes].map(([key, value]) => ({ key, value })) };
}
