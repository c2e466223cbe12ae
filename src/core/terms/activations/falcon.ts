// Falcon's decoder block as transformers runs it (models/falcon/modeling_falcon.py FalconDecoderLayer, FalconAttention,
// FalconMLP): one LayerNorm (or ln_attn and ln_mlp) feeding attention and the MLP side by side, query_key_value split
// by views and index copies, rotary positions, and the attention kernels it reaches. FalconAttention never repeats its
// one key and value head and always gets a mask, so SDPA runs its math kernel for multi-query models. Pure arithmetic.
// Docs: docs/estimate/activations.md
import type { Tensor } from '../saved-tensors';
import { attentionCore } from './attention';
import type { BlockContext } from './block';
import { decoderBlock, rotary } from './decoder';
import { litgptParallelBlock } from './litgpt';
import { plainMlp } from './mlp';
import { bmmOperand, type MatmulHeads, sdpaMath } from './sdpa-math';

/**
 * FalconDecoderLayer (LitGPT's model: its own parallel block, litgpt.ts): attention off the first LayerNorm; the MLP
 * off the same output (parallel_attn), off ln_mlp (new decoder architecture, two norms), or after the residual sum and
 * post_attention_layernorm (sequential, Falcon-RW).
 */
export function falconBlock(bc: BlockContext): Tensor {
  const { p, a, tape, tp, Tsp, residualBytes, x0, state } = bc;
  const layout = a.falcon ?? { newDecoder: false, parallel: true };
  const twoNorms = layout.parallel && a.normsPerBlock === 2;
  if (p.litgptModel) {
    // LitGPT's own block: its CausalSelfAttention, norm_1 shared with the MLP unless the model has two norms a layer;
    // a sequential Falcon (RW) as the Llama-shaped block.
    if (!layout.parallel) return decoderBlock(bc);
    return litgptParallelBlock(bc, tape.layerNorm(x0, Tsp, p.normsTrainable, 'norm_1'), !twoNorms);
  }
  const h1 = tape.layerNorm(x0, Tsp, p.normsTrainable, twoNorms ? 'ln_attn' : 'input_layernorm');
  let mlpIn = twoNorms ? tape.layerNorm(x0, Tsp, p.normsTrainable, 'ln_mlp') : h1;
  const att = falconAttention(bc, h1, layout.newDecoder);
  const beforeMlp = tape.totalBytes();
  if (!layout.parallel) {
    // dropout_add(attention_output, residual, config.attention_dropout), then post_attention_layernorm.
    const dropped = tape.dropout(att, a.attentionDropout, 'attention output dropout');
    tape.use(x0);
    state.residual = tape.free(dropped, 'residual', Tsp * a.hidden, residualBytes);
    mlpIn = tape.layerNorm(state.residual, Tsp, p.normsTrainable, 'post_attention_layernorm');
  }
  const mlpOut = plainMlp(tape, 'falcon', a.ffn / tp, a.hidden, mlpIn, (x, name, out, what) =>
    falconLinear(bc, x, name, out, what),
  )!;
  state.mlpSavedBytes = tape.totalBytes() - beforeMlp;
  // mlp_output += attention_output (in place), then dropout_add(mlp_output, residual, hidden_dropout).
  if (layout.parallel) tape.use(att);
  return tape.dropout(mlpOut, a.hiddenDropout, 'hidden dropout');
}

/** query_key_value, the split, rotary positions, the attention kernel, the output made contiguous, dense. */
function falconAttention(bc: BlockContext, h1: Tensor, newDecoder: boolean): Tensor {
  const { p, a, tape, T, qd, kvd, residualBytes, state } = bc;
  const qkv = falconLinear(bc, h1, 'query_key_value', qd + 2 * kvd);
  const heads = splitHeads(bc, qkv, newDecoder);
  if (a.positions !== 'alibi') {
    // apply_rotary_pos_emb: new q and k tensors, laid out as their inputs; cos and sin take the hidden states' dtype
    // (fp32 under autocast with fp32 weights), so the products do too.
    const bytes = Math.max(heads.q.bytesPerElem, residualBytes);
    heads.q = rotary(tape, heads.q, 'q', heads.q.elems, bytes);
    heads.k = rotary(tape, heads.k, 'k', heads.k.elems, bytes);
  }
  let out: Tensor;
  // Eager's and the math kernel's bmm give (b, heads, s, d): view, permute(0, 2, 1, 3) and reshape(b, s, heads x d)
  // copy it. The fused kernels write (b, s, heads, d) and return a transposed view, which that reshape only views.
  if (p.attention === 'eager' || (p.attention === 'sdpa' && heads.kvBroadcast)) {
    const bmmOut =
      p.attention === 'eager' ? eagerAttention(bc, heads, h1.bytesPerElem) : sdpaMath(bc, heads, bc.b * bc.s * bc.s);
    out = tape.free(bmmOut, 'attention output (permuted, contiguous)', T * qd);
  } else {
    // Every head has its key and value (or flash-attn takes one for all): the fused kernels, as for other families.
    // With ALiBi the model's (b, heads, s, s) float mask carries the biases: every layer keeps that one tensor (counted
    // once, stage.ts causalMask), and under autocast its own 16-bit copy.
    const ownCopy = p.mode === 'amp' && p.weightBytes === 4;
    const alibiMask = a.positions === 'alibi' ? (ownCopy ? bc.b * bc.heads * bc.s * bc.s * p.half : 0) : undefined;
    out = attentionCore(bc, heads.q, heads.k, heads.v, {
      causalRepeat: false,
      softmaxFp32: false,
      dropout: a.positions === 'alibi' ? a.attentionDropout : 0,
      ...(alibiMask !== undefined ? { keptMaskBytes: alibiMask } : {}),
    });
    state.softmaxUpcast = false;
  }
  return falconLinear(bc, out, 'dense', a.hidden);
}

/**
 * FalconLinear: input @ weight.T, then + bias outside the matmul, so under autocast an fp32 bias makes the output fp32
 * (CPU truth loop/falconrw-full-amp: the MLP's up projection kept its fp32 output for GELU).
 */
function falconLinear(bc: BlockContext, x: Tensor, name: string, outFeatures: number, what = `${name} output`): Tensor {
  const { p, tape, mods } = bc;
  const y = bc.linear(x, name, outFeatures, what);
  return p.mode === 'amp' && p.weightBytes === 4 && mods.get(name)?.bias ? tape.to(y, 4, `${what} + bias (fp32)`) : y;
}

/**
 * _split_heads and the transpose-reshape after it. New decoder architecture: the output viewed (b, s, groups, per group
 * + 2, d); key and value are indexed by a list (copies), broadcast to the group's heads and flattened with the queries
 * (copies of all three), then transposed and reshaped (copies again). Multi-query: the queries stay a view, key and
 * value are one-head index copies. Otherwise q, k and v are interleaved views of the output.
 */
function splitHeads(bc: BlockContext, qkv: Tensor, newDecoder: boolean): MatmulHeads {
  const { tape, T, qd, kvd, kvHeads, heads } = bc;
  if (newDecoder) {
    const kIndexed = tape.free(qkv, 'key (index copy)', T * kvd);
    const vIndexed = tape.free(qkv, 'value (index copy)', T * kvd);
    const qFlat = tape.free(qkv, 'query (flatten copy)', T * qd);
    const kFlat = tape.free(kIndexed, 'key broadcast to its group (flatten copy)', T * qd);
    const vFlat = tape.free(vIndexed, 'value broadcast to its group (flatten copy)', T * qd);
    return {
      q: tape.free(qFlat, 'query (transpose-reshape copy)'),
      k: tape.free(kFlat, 'key (transpose-reshape copy)'),
      v: tape.free(vFlat, 'value (transpose-reshape copy)'),
      qStrided: false,
      kvStrided: false,
      kvBroadcast: false,
    };
  }
  const multiQuery = kvHeads < heads;
  const kv = (what: string): Tensor =>
    multiQuery ? tape.free(qkv, `${what} (index copy)`, T * kvd) : tape.view(qkv, `${what} (view)`, T * kvd);
  return {
    q: tape.view(qkv, multiQuery ? 'query (view of query_key_value output)' : 'query (view)', T * qd),
    k: kv('key'),
    v: kv('value'),
    qStrided: true,
    kvStrided: !multiQuery,
    kvBroadcast: multiQuery,
  };
}

/**
 * Eager: q @ k^T (kept operands), scaled in place, plus the mask (a new tensor in the wider of the scores' and the
 * mask's dtypes), softmax with dtype = the attention input's (no fp32 upcast unless that is fp32), no dropout,
 * probabilities @ v. With ALiBi: the scores upcast to fp32, the biases added, scaled in place, the mask added, softmax
 * to the attention input's dtype, dropout.
 */
function eagerAttention(bc: BlockContext, h: MatmulHeads, hiddenBytes: number): Tensor {
  const { a, tape, b, s, heads, T, qd, x0, state } = bc;
  const alibi = a.positions === 'alibi';
  const scoresElems = b * heads * s * s;
  const qOp = bmmOperand(bc, tape.castForMatmul(h.q), h.qStrided, false, 'q');
  const kOp = bmmOperand(bc, tape.castForMatmul(h.k), h.kvStrided, h.kvBroadcast, 'k');
  tape.save(qOp);
  tape.save(kOp);
  tape.use(qOp, kOp);
  const raw = tape.tensor('attention scores QK^T', scoresElems, tape.computeBytes, true);
  const masked = alibi
    ? tape.free(tape.free(tape.to(raw, 4, 'scores (fp32)'), 'scores + alibi'), '(scores + alibi) x inv_norm + mask')
    : tape.free(raw, 'scores + attention mask', scoresElems, Math.max(raw.bytesPerElem, x0.bytesPerElem));
  const probs = tape.dropout(
    tape.unarySavesOutput(masked, 'softmax output', hiddenBytes),
    alibi ? a.attentionDropout : 0,
    'attention dropout',
  );
  state.softmaxUpcast = hiddenBytes === 4 || alibi;
  const pOp = tape.castForMatmul(probs);
  const vOp = bmmOperand(bc, tape.castForMatmul(h.v), h.kvStrided, h.kvBroadcast, 'v');
  tape.save(pOp);
  tape.save(vOp);
  tape.use(pOp, vOp);
  tape.attentionOutputBytes += pOp.storageBytes;
  return tape.tensor('attention output', T * qd, tape.computeBytes, true);
}
