// SDPA's math kernel over one key and value head broadcast to every query head: no fused kernel takes a key with fewer
// heads than the query without enable_gqa (aten sdp_utils.cpp check_batch_size_and_num_heads_dense), so
// _scaled_dot_product_attention_math runs and keeps its probabilities, s x s per head. transformers' FalconAttention
// reaches it for multi-query models (falcon.ts), as does a lit-gpt checkout from before it repeated the key and value
// heads in training (litgpt.ts). Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { Tensor } from '../saved-tensors';
import type { BlockContext } from './block';

/** q, k and v as the model hands them to the attention kernel, (b, heads, s, d) each. */
export interface MatmulHeads {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  /** Laid out (b, s, heads, d) in memory (views of the fused output): torch.matmul copies them to fold b and heads. */
  qStrided: boolean;
  kvStrided: boolean;
  /** One key and value head for every query head (multi-query): matmul expands it, a copy when b > 1. */
  kvBroadcast: boolean;
}

/** torch.matmul's 3-D operand for bmm: a copy unless the 4-D tensor folds b and heads as a view. */
export function bmmOperand(bc: BlockContext, x: Tensor, strided: boolean, broadcast: boolean, what: string): Tensor {
  const { tape, T, qd, b } = bc;
  if (strided || (broadcast && b > 1)) return tape.free(x, `${what} (copy for bmm)`, T * qd);
  return x;
}

/**
 * _scaled_dot_product_attention_math over broadcast key and value heads: the mask (`maskElems`: the model's boolean
 * mask, or the s x s tril is_causal builds) converted to the query dtype, 16-bit q, k, v upcast to fp32 (PyTorch 2.5
 * on, ActivationPlan.sdpaMathHalf), each scaled by sqrt(scale), q @ k^T through torch.matmul (copies as in eager), the
 * mask added, softmax kept and cast back as the returned weights, probabilities @ v, the output cast back. Its backward
 * holds three score-sized tensors beside the kept probabilities: the probabilities' gradient, then two of the
 * softmax's backward, one freed at once. The H100 trace of Falcon-7B LoRA over 1 x 2,048 tokens with checkpointing
 * (tools/truth/gpu/results/2026-11-24-h100) shows them at the step's peak, four 1,136 MiB fp32 tensors (71 heads x
 * 2,048^2 x 4 B) with the recomputed probabilities: -6.4 % of max_memory_allocated with two, -0.3 % with three.
 * Selective checkpointing's save list has no bmm: nothing of it counts as an attention output there.
 */
export function sdpaMath(bc: BlockContext, h: MatmulHeads, maskElems: number): Tensor {
  const { p, tape, b, s, heads, T, qd, state } = bc;
  const scoresElems = b * heads * s * s;
  const q = tape.castForMatmul(h.q);
  const k = tape.castForMatmul(h.k);
  const v = tape.castForMatmul(h.v);
  const origin = q.bytesPerElem;
  const acc = p.sdpaMathHalf ? origin : 4;
  const mask = tape.tensor('attention mask, converted by SDPA', maskElems, origin, false);
  const qs = tape.free(tape.to(q, acc, 'q (fp32, SDPA math)'), 'q x sqrt(scale)');
  const ks = tape.free(tape.to(k, acc, 'k (fp32, SDPA math)'), 'k^T x sqrt(scale)');
  const vAcc = tape.to(v, acc, 'v (fp32, SDPA math)');
  const qOp = bmmOperand(bc, qs, h.qStrided, false, 'q');
  const kOp = bmmOperand(bc, ks, h.kvStrided, h.kvBroadcast, 'k');
  tape.save(qOp);
  tape.save(kOp);
  tape.use(qOp, kOp);
  const raw = tape.tensor('attention scores (SDPA math)', scoresElems, acc, true);
  tape.use(mask);
  const probs = tape.unarySavesOutput(tape.free(raw, 'scores + mask'), 'softmax output (SDPA math)');
  if (origin < acc) tape.free(probs, 'attention weights cast back (returned, unused)', scoresElems, origin);
  const vOp = bmmOperand(bc, vAcc, h.kvStrided, h.kvBroadcast, 'v');
  tape.save(vOp);
  tape.use(probs, vOp);
  const out = tape.tensor('attention output (SDPA math)', T * qd, acc, true);
  state.scoreGradBytes = 3 * acc;
  return tape.to(out, origin, 'attention output (cast back)');
}
