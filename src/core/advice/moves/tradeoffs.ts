// The first moves that trade something: Adafactor, LoRA at chosen ranks, a shorter sequence, a smaller micro-batch.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import { type Move, type MoveContext, shorter } from './context';

export function tradeOffMoves(context: MoveContext): Move[] {
  const m: Move[] = [];
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
    // One LoRA block per rank for every candidate (the estimator's memos compare blocks by identity).
    const lora = {
      r,
      alpha: 2 * r,
      dropout: context.allLinearDropout,
      target_modules: 'all-linear' as const,
      modules_to_save: [],
      dtype: 'fp32' as const,
      use_dora: false,
    };
    m.push({
      id: `lora-r${r}`,
      group: 'method',
      title: `LoRA r=${r} on all linear layers`,
      changesResult: true,
      apply: (s) =>
        s.method === 'full' || s.method === 'freeze' || (s.lora && s.lora.r !== r)
          ? {
              method: s.method === 'qlora' ? 'qlora' : 'lora',
              lora,
              master_weights: false,
              weights_dtype: s.weights_dtype === 'fp32' ? (context.bf16 ? 'bf16' : 'fp16') : s.weights_dtype,
            }
          : undefined,
    });
  }
  const attentionOnly = {
    r: 16,
    alpha: 32,
    dropout: 0.05,
    target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
    modules_to_save: [],
    dtype: 'fp32' as const,
    use_dora: false,
  };
  m.push({
    id: 'lora-attn',
    group: 'method',
    title: 'LoRA r=16 on the attention projections only',
    changesResult: true,
    apply: (s) =>
      s.method === 'full' || s.method === 'freeze'
        ? {
            method: 'lora',
            lora: attentionOnly,
            master_weights: false,
            weights_dtype: s.weights_dtype === 'fp32' ? (context.bf16 ? 'bf16' : 'fp16') : s.weights_dtype,
          }
        : undefined,
  });
  m.push({
    id: 'seq-3/4',
    group: 'sequence',
    title: 'Shorten the sequence length by a quarter',
    changesResult: true,
    apply: (s) => (s.seq_len >= 512 ? shorter(context, s, Math.floor((s.seq_len * 3) / 4 / 64) * 64) : undefined),
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
  return m;
}
