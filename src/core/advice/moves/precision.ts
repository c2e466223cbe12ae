// The Move table's first section: mixed or pure 16-bit weights, torchao and k-bit casts, the evaluation batch.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { Move, MoveContext } from './context';
import { quantizesWholeAtLoad } from '../../estimate';
import { bitsandbytesKeepsInputs, checkpointReentrant } from '../../terms/activations/kept-inputs';
import { bnbKeepsCodesUnderZero3 } from '../../terms/zero3-bnb-kept';

export function precisionMoves(context: MoveContext): Move[] {
  const m: Move[] = [];
  m.push({
    id: 'amp',
    group: 'precision',
    title: `Mixed precision (${context.halfDtype} autocast)`,
    changesResult: false,
    apply: (s) =>
      s.weights_dtype === 'fp32' && s.mixed_precision === 'none' ? { mixed_precision: context.halfDtype } : undefined,
  });
  m.push({
    id: 'pure-bf16',
    group: 'precision',
    title: 'Load the model in bf16 (pure bf16 weights)',
    changesResult: false,
    apply: (s) =>
      context.bf16 && s.weights_dtype === 'fp32' && s.method === 'full' && s.zero_stage === 0 && s.fsdp === 'none'
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
  // bitsandbytes before 0.43.2 keeps every 4-bit linear's input for backward (bitsandbytes-foundation/bitsandbytes#1270
  // dropped it: the backward never read it); as a ctx attribute, non-reentrant checkpointing does not free it either
  // (terms/activations/kept-inputs.ts). Reentrant checkpointing runs the forward under no_grad, where nothing is kept.
  m.push({
    id: 'bitsandbytes-upgrade',
    group: 'precision',
    title: 'Upgrade bitsandbytes to 0.43.2 or later (4-bit layers keep no input for backward)',
    changesResult: false,
    apply: (s) =>
      bitsandbytesKeepsInputs(s) && s.quantization?.bits === 4 ? { bitsandbytes_version: '0.43.2' } : undefined,
  });
  m.push({
    id: 'reentrant-checkpointing',
    group: 'precision',
    title: "Reentrant checkpointing (use_reentrant=True): bitsandbytes' kept inputs are not kept per layer",
    changesResult: false,
    apply: (s) =>
      bitsandbytesKeepsInputs(s) && s.gradient_checkpointing !== 'none' && !checkpointReentrant(s)
        ? { checkpoint_reentrant: true }
        : undefined,
  });
  // Under ZeRO-3 bitsandbytes' 4-bit matmuls keep each gathered weight to the backward's end when the forward records
  // its graph (terms/zero3-bnb-kept.ts); a reentrant forward records none, as PEFT's ZeRO-3 QLoRA recipe runs it.
  m.push({
    id: 'reentrant-checkpointing-zero3',
    group: 'precision',
    title:
      "Reentrant checkpointing (use_reentrant=True): bitsandbytes' 4-bit matmuls keep no gathered weight under ZeRO-3",
    changesResult: false,
    apply: (s) =>
      bnbKeepsCodesUnderZero3(s) && s.gradient_checkpointing !== 'none' && !bitsandbytesKeepsInputs(s)
        ? { checkpoint_reentrant: true }
        : undefined,
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
  return m;
}
