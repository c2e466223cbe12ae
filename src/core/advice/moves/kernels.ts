// Checkpointing, attention and linear-attention kernels, quantized fused experts, the chunked loss.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { Move, MoveContext } from './context';
import { parseArchitecture } from '../../architecture';
import { fusedExpertsIn } from '../../estimate';

export function kernelMoves(context: MoveContext): Move[] {
  const m: Move[] = [];
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
  const parsed = parseArchitecture(context.base.architecture);
  // transformers 5's fused MoE experts stay in 16 bits under bitsandbytes; Axolotl's quantize_moe_experts quantizes them.
  if (parsed.ok && fusedExpertsIn(context.base, parsed.arch)) {
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
  return m;
}
