// Attention in the block replays: the attention kernel by implementation (eager with its fp32 softmax, sinks and
// soft-cap; SDPA and flash keeping q, k, v, the output and the logsumexp; repeat_kv for grouped-query attention),
// multi-head latent attention, and the softmax input PyTorch < 1.11 kept. Sources: transformers modeling_llama.py
// eager_attention_forward, modeling_deepseek_v3.py, the aten::_scaled_dot_product_flash_attention schema,
// flash_attn_interface.py. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { BlockContext } from './block';
import type { ActivationPlan } from './plan';
import { FAMILY_TRAITS } from '../../architecture';
import { Tape, type Tensor } from '../saved-tensors';
import { sdpaMath } from './sdpa-math';

/** Before PyTorch 1.11 the softmax node also saved its input (see ActivationPlan.softmaxSavesInput). */
export function legacySoftmaxInput(
  tape: Tape,
  p: ActivationPlan,
  scores: Tensor,
  what: string,
  bytesPerElem: number,
): void {
  if (p.softmaxSavesInput && scores.rg)
    tape.save(tape.tensor(`${what} (PyTorch < 1.11)`, scores.elems, bytesPerElem, true));
}

/** How attentionCore runs for one block (the family's and the layer's choices). */
export interface AttentionOptions {
  causalRepeat: boolean;
  softmaxFp32: boolean;
  dropout: number;
  kvTokens?: number;
  sinks?: boolean;
  outWidth?: number;
  /** Bytes of the mask the fused kernel keeps for this layer (default: SDPA's converted boolean mask, if any). */
  keptMaskBytes?: number;
}

/**
 * repeat_kv expands a (b, kv, n_rep, s, d) view and reshapes it to (b, heads, s, d): a copy, except with one key and
 * value head (multi-query attention), where the reshape is a view of the unrepeated tensor. Eager attention's
 * torch.matmul then folds batch and heads for bmm, which copies a head dimension of stride 0 unless the batch is 1.
 */
function repeatKv(bc: BlockContext, x: Tensor, what: string, viewOk: boolean, kvTokens: number): Tensor {
  const { tape, qd } = bc;
  return viewOk ? tape.view(x, what, kvTokens * qd) : tape.free(x, what, kvTokens * qd, x.bytesPerElem);
}

/**
 * The softmax of eager attention's scores: gpt-oss's with one sink logit per head, else the softmax in fp32 under
 * autocast (or where the family asks for it), in the scores' dtype otherwise.
 */
export function eagerSoftmax(bc: BlockContext, scores: Tensor, scoresElems: number, opts: AttentionOptions): Tensor {
  const { p, tape, heads, b, s, state } = bc;
  if (opts.sinks) {
    // gpt-oss eager_attention_forward: one sink logit per head appended (cat promotes to the sinks' dtype: fp32 with
    // fp32 weights under autocast), the row max subtracted (max keeps its int64 indices), softmax in the logits' dtype
    // (an explicit dtype, so autocast leaves it), the sink column dropped by a view.
    const rows = b * heads * s;
    const combined = tape.free(
      scores,
      'scores + sink logit (cat)',
      scoresElems + rows,
      Math.max(scores.bytesPerElem, p.weightBytes),
    );
    if (combined.rg) tape.saveExtra('row max indices (int64)', rows * 8);
    return tape.view(
      tape.unarySavesOutput(combined, 'softmax output (with sink)'),
      'probabilities without the sink (view)',
      scoresElems,
    );
  }
  const fp32 = p.mode === 'amp' || opts.softmaxFp32;
  state.softmaxUpcast = fp32;
  legacySoftmaxInput(tape, p, scores, 'softmax input', fp32 ? 4 : scores.bytesPerElem);
  if (!fp32) return tape.unarySavesOutput(scores, 'softmax output');
  // softmax(x, dtype=float32) over 16-bit scores converts them first (aten/src/ATen/native/SoftMax.cpp softmax:
  // `input_.toType(dtype)`), except fp16 on a CUDA GPU, whose kernel reads half and writes float.
  const input =
    scores.bytesPerElem < 4 && !p.halfToFloatSoftmax
      ? tape.free(scores, 'scores converted to fp32', scoresElems, 4)
      : scores;
  const sm = tape.unarySavesOutput(input, 'softmax output (fp32)', 4);
  return tape.to(sm, p.mode === 'amp' ? 4 : tape.computeBytes, 'attention probs');
}

/** Eager attention (transformers' eager_attention_forward): the scores and probabilities kept, s x s per head. */
function eagerAttention(bc: BlockContext, q: Tensor, k: Tensor, v: Tensor, opts: AttentionOptions): Tensor {
  const { p, a, tape, T, heads, kvHeads, qd, b, s } = bc;
  const kvTokens = opts.kvTokens ?? T;
  const od = opts.outWidth ?? qd;
  const gqa = kvHeads < heads;
  const mqaView = kvHeads === 1 && b === 1;
  const kk = gqa ? repeatKv(bc, k, 'repeat_kv(k)', mqaView, kvTokens) : k;
  const vv = gqa ? repeatKv(bc, v, 'repeat_kv(v)', mqaView, kvTokens) : v;
  const scoresElems = b * heads * s * (kvTokens / b);
  // eager_attention_forward: `torch.matmul(query, key_states.transpose(2, 3)) * scaling`, a new tensor (the product is
  // freed when the name is rebound).
  let scores = tape.free(tape.matmul(q, kk, scoresElems, 'attention scores QK^T'), 'scores x scaling');
  if (a.attnLogitSoftcap) {
    // Gemma 2 eager_attention_forward: tanh(scores / cap) * cap; tanh keeps its output.
    scores = tape.free(
      tape.unarySavesOutput(tape.free(scores, 'scores / soft-cap'), 'tanh(scores / soft-cap)'),
      'soft-capped scores',
    );
  }
  // `attn_weights + attention_mask`: the 4D mask is in the embeddings' dtype (stage.ts causalMask), so with fp32
  // weights under autocast the sum is fp32.
  if (FAMILY_TRAITS[a.family].eagerMask4d)
    scores = tape.free(scores, 'scores + causal mask', scoresElems, Math.max(scores.bytesPerElem, p.weightBytes));
  const probs = tape.dropout(eagerSoftmax(bc, scores, scoresElems, opts), opts.dropout, 'attention dropout');
  tape.attentionOutputBytes += probs.storageBytes;
  const out = tape.matmul(probs, vv, T * od, 'attention output');
  return tape.free(out, 'attention output (transposed, contiguous)');
}

/**
 * SDPA (flash / memory-efficient kernels) and flash_attention_2: no s x s matrix is kept; backward needs q, k, v, the
 * output and the fp32 logsumexp per (batch, head, query). transformers repeats the key and value heads for SDPA unless
 * it can pass enable_gqa=True (no attention mask: ActivationPlan.sdpaGqa). flash_attention_2 over a padded batch keeps
 * unpadded copies instead of q, k and v (so no view keeps a fused projection's output) and returns the output padded
 * back into a new tensor (ActivationPlan.flashUnpad).
 */
function fusedAttention(bc: BlockContext, q: Tensor, k: Tensor, v: Tensor, opts: AttentionOptions): Tensor {
  const { p, tape, T, heads, kvHeads, qd, b, s } = bc;
  const kvTokens = opts.kvTokens ?? T;
  const od = opts.outWidth ?? qd;
  const repeat = p.attention === 'sdpa' && kvHeads < heads && opts.causalRepeat && p.sdpaGqa !== true;
  const unpad = (x: Tensor, what: string): Tensor =>
    p.flashUnpad ? tape.free(x, `${what} unpadded (index_first_axis)`) : x;
  const qq = unpad(tape.castForMatmul(q), 'q');
  const kk = repeat
    ? repeatKv(bc, tape.castForMatmul(k), 'repeat_kv(k)', kvHeads === 1, kvTokens)
    : unpad(tape.castForMatmul(k), 'k');
  const vv = repeat
    ? repeatKv(bc, tape.castForMatmul(v), 'repeat_kv(v)', kvHeads === 1, kvTokens)
    : unpad(tape.castForMatmul(v), 'v');
  tape.use(qq, kk, vv);
  const out = tape.tensor('attention output', T * od, tape.computeBytes, q.rg || k.rg || v.rg);
  if (out.rg && p.flashUnpad) tape.saveExtra('indices of the unpadded tokens (int64)', T * 8);
  if (out.rg) {
    tape.save(qq);
    tape.save(kk);
    tape.save(vv);
    tape.save(out);
    tape.saveExtra('attention logsumexp (fp32)', b * heads * s * 4);
    // A boolean mask, converted to an additive one in the query dtype by this call and kept for the backward.
    if (opts.keptMaskBytes !== undefined) {
      if (opts.keptMaskBytes > 0) tape.saveExtra('attention mask (16-bit autocast copy)', opts.keptMaskBytes);
    } else if (p.attention === 'sdpa' && p.sdpaMask)
      tape.saveExtra('attention mask, converted by SDPA (b x s x s)', b * s * (kvTokens / b) * qq.bytesPerElem);
    // flash_attn's FlashAttnFunc also keeps its RNG state (two int64: flash_attn_interface.py save_for_backward).
    if (p.attention === 'flash') tape.saveExtra('flash-attn RNG state (2 x int64)', 16);
    tape.attentionOutputBytes += out.storageBytes + b * heads * s * 4;
  }
  return p.flashUnpad ? tape.free(out, 'attention output padded back (pad_input)') : out;
}

/** softmax(QK^T)V for one block, by implementation. Returns the (b, s, qd) output in compute dtype. */
export function attentionCore(bc: BlockContext, q: Tensor, k: Tensor, v: Tensor, opts: AttentionOptions): Tensor {
  const { p, tape, heads, kvHeads, qd } = bc;
  if (p.attention === 'eager') return eagerAttention(bc, q, k, v, opts);
  // An old lit-gpt's: q and k made by torch.cat, v a view of the fused output that folds for bmm only when b is 1; the
  // s x s tril of is_causal as the mask.
  if (p.litgptMqaBroadcast)
    return sdpaMath(bc, { q, k, v, qStrided: false, kvStrided: false, kvBroadcast: true }, bc.s * bc.s);
  if (p.attention === 'sdpa' && kvHeads < heads && p.sdpaGqa === true && tape.computeBytes === 4)
    return sdpaMathGqa(bc, { q, k, v }, opts.outWidth ?? qd, opts.dropout);
  return fusedAttention(bc, q, k, v, opts);
}

/**
 * fp32 SDPA with enable_gqa=True on a GPU: flash attention takes only 16-bit inputs and the memory-efficient kernel
 * no grouped key-value heads (aten sdp_utils.cpp: check_batch_size_and_num_heads_dense<false> for mem-efficient, the
 * flash and cuDNN dtype checks), so _scaled_dot_product_attention_math runs (attention.cpp): the key and value heads
 * repeated to every query head (repeat_interleave, pre_process_group_query_attention_input), q and k^T each scaled by
 * sqrt(scale), q @ k^T, the softmax kept, probabilities @ v. Its backward holds three fp32 score-sized tensors
 * beside the kept probabilities on a GPU: the probabilities' gradient and two of the softmax's backward (the same
 * kernel as Falcon's multi-query path, falcon.ts sdpaMath, where an H100 trace shows them); the CPU's softmax
 * backward makes one of the two. GPU truth (H100, torch 2.11, transformers 5.17, pure fp32 training without
 * autocast): qwen2.5-0.5b at 2 x 1,024 tokens, 24 layers of 14 query and 2 key-value heads, allocates 3.0 GiB more
 * than with the flash path's saved tensors, 2 x 14 x 1,024^2 x 4 B of probabilities per layer and the repeated heads.
 * With a mask (sliding windows, padding) transformers repeats the heads itself and the memory-efficient kernel runs.
 */
function sdpaMathGqa(
  bc: BlockContext,
  { q, k, v }: { q: Tensor; k: Tensor; v: Tensor },
  od: number,
  dropout: number,
): Tensor {
  const { tape, T, b, s, heads, qd, state } = bc;
  const scoresElems = b * heads * s * s;
  // is_causal: the kernel builds an s x s boolean tril and converts it to an additive mask in the query's dtype, held to
  // its return.
  const causalBias = tape.tensor('causal mask as an additive bias (SDPA math)', s * s, 4, false);
  const kRepeated = tape.free(k, 'k repeated to every query head (SDPA math)', T * qd, 4);
  const vRepeated = tape.free(v, 'v repeated to every query head (SDPA math)', T * qd, 4);
  const qs = tape.free(q, 'q x sqrt(scale) (SDPA math)');
  const ks = tape.free(kRepeated, 'k^T x sqrt(scale) (SDPA math)');
  tape.save(qs);
  tape.save(ks);
  tape.use(qs, ks);
  const scores = tape.tensor('attention scores (SDPA math)', scoresElems, 4, qs.rg || ks.rg);
  const softmax = tape.unarySavesOutput(scores, 'softmax output (SDPA math)');
  // _safe_softmax zeroes fully masked rows: isneginf of the scores, one byte each, for the moment it takes.
  tape.tensor('isneginf(scores) (_safe_softmax)', scoresElems, 1, false);
  const probs = tape.dropout(softmax, dropout, 'attention dropout');
  tape.save(vRepeated);
  tape.use(probs, vRepeated, causalBias);
  tape.attentionOutputBytes += probs.storageBytes;
  // The probabilities' gradient and the softmax backward's output; a GPU's softmax backward adds its temporary
  // (ActivationPlan.softmaxGradTemp). CPU truth layer/llama-lora-all-fp32-ckpt: two 33,554,432 B fp32 tensors beside the
  // kept probabilities at _softmax_backward_data.
  state.scoreGradBytes = bc.p.softmaxGradTemp ? 12 : 8;
  return tape.tensor('attention output (SDPA math)', T * od, 4, probs.rg || vRepeated.rg);
}

/**
 * Multi-head latent attention (transformers modeling_deepseek_v3.py DeepseekV3Attention): q through q_proj, or
 * q_a_proj -> q_a_layernorm -> q_b_proj; kv_a_proj_with_mqa gives the latent and one rotary key; kv_a_layernorm ->
 * kv_b_proj gives every head's key part and value (split views of one output); the rotary parts are rotated
 * (interleaved: a reshape copy), and cat builds new q and k of width nope + rope. Eager attention copies the value
 * view for its matmul; flash_attention_2 pads the value to the q/k width and slices the output back. The output is
 * made contiguous for o_proj.
 */
export function mlaAttention(bc: BlockContext, h1: Tensor): Tensor {
  const { p, a, tape, T, heads, b, rms, linear } = bc;
  const m = a.mla!;
  const qkd = m.qkNope + m.qkRope;
  let qOut: Tensor;
  if (m.qLoraRank > 0) {
    const qa = linear(h1, 'q_a_proj', m.qLoraRank, 'q_a_proj output');
    const qn = tape.rmsNorm(qa, T, p.normsTrainable, 'q_a_layernorm', rms.weightBytes, rms.style);
    qOut = linear(qn, 'q_b_proj', heads * qkd, 'q_b_proj output');
  } else {
    qOut = linear(h1, 'q_proj', heads * qkd, 'q_proj output');
  }
  const ckv = linear(h1, 'kv_a_proj_with_mqa', m.kvLoraRank + m.qkRope, 'kv_a_proj_with_mqa output');
  const latent = tape.view(ckv, 'compressed kv (view)', T * m.kvLoraRank);
  const kvn = tape.rmsNorm(latent, T, p.normsTrainable, 'kv_a_layernorm', rms.weightBytes, rms.style);
  const kvb = linear(kvn, 'kv_b_proj', heads * (m.qkNope + m.vHeadDim), 'kv_b_proj output');
  // q = cat(q_pass, rotated q_rot), k = cat(k_pass, rotated k_rot expanded over the heads): new tensors.
  const q = tape.free(qOut, 'query (cat of pass and rotary parts)', T * heads * qkd, tape.computeBytes);
  const k = tape.free(kvb, 'key (cat of pass and rotary parts)', T * heads * qkd, tape.computeBytes);
  let v: Tensor;
  if (p.attention === 'flash')
    v = tape.free(kvb, 'value padded to the q/k width (F.pad)', T * heads * qkd, tape.computeBytes);
  // Eager attention's batched matmul copies the value view, except with one sequence, where the reshape is a view.
  else if (p.attention === 'eager' && b > 1)
    v = tape.free(kvb, 'value (contiguous copy for the matmul)', T * heads * m.vHeadDim);
  else v = tape.view(kvb, 'value (view of kv_b_proj output)', T * heads * m.vHeadDim);
  const outWidth = heads * (p.attention === 'flash' ? qkd : m.vHeadDim);
  const att = attentionCore(bc, q, k, v, {
    causalRepeat: false,
    softmaxFp32: true,
    dropout: a.attentionDropout,
    outWidth,
  });
  const o = tape.free(att, 'attention output (contiguous, value width)', T * heads * m.vHeadDim);
  return linear(o, 'o_proj', a.hidden, 'o_proj output');
}
