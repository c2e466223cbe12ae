// The Move table's last section: LoRA or QLoRA instead of full fine-tuning, plain LoRA, a lower rank, smaller
// micro-batches, half the sequence.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import { type Move, type MoveContext, pow2Down, shorter } from './context';

export function adapterAndBatchMoves(context: MoveContext): Move[] {
  const m: Move[] = [];
  // One LoRA block and one quantization block for every candidate of the table: the estimator's memos compare blocks
  // by identity before they build keys from them.
  const allLinear = {
    r: 16,
    alpha: 32,
    dropout: context.allLinearDropout,
    target_modules: 'all-linear' as const,
    modules_to_save: [],
    dtype: 'fp32' as const,
    use_dora: false,
  };
  const nf4 = { bits: 4 as const, type: 'nf4' as const, double_quant: true, scope: 'all-linear' as const };
  m.push({
    id: 'lora',
    group: 'method',
    title: 'LoRA (r=16 on all linear layers) instead of full fine-tuning',
    changesResult: true,
    apply: (s) =>
      s.method === 'full' || s.method === 'freeze'
        ? {
            method: 'lora',
            lora: allLinear,
            master_weights: false,
            weights_dtype: s.weights_dtype === 'fp32' ? (context.bf16 ? 'bf16' : 'fp16') : s.weights_dtype,
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
            quantization: nf4,
            lora: s.lora ?? allLinear,
            master_weights: false,
            zero_stage: 0,
            weights_dtype: context.bf16 ? 'bf16' : 'fp16',
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
    apply: (s) => (s.seq_len >= 256 ? shorter(context, s, Math.floor(s.seq_len / 2)) : undefined),
  });
  return m;
}
