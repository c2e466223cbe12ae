// The Llama-shaped decoder block most families share: pre-norm (OLMo 2: post-norm), rotary positions, grouped-query
// attention or MLA, a gated MLP or a MoE block, and the variants: fused q/k/v (Phi-3, Qwen), q/k norms, sandwich norms
// (Gemma 2 and 3, GLM-4), NoPE and L2-normed layers (Llama 4), an output gate (Qwen3-Next), linear-attention and Mamba
// layers in hybrids, a tiled MLP. Sources: transformers models/{llama,mistral,qwen2,qwen3,qwen3_next,gemma,gemma2,
// gemma3,phi3,olmo2,glm4,glm4_moe,llama4,gpt_oss,deepseek_v3,granitemoehybrid,jamba,kimi}/modeling_*.py. Pure.
// Docs: docs/estimate/activations.md
import type { Tape, Tensor } from '../saved-tensors';
import { attentionCore, mlaAttention } from './attention';
import type { BlockContext } from './block';
import { litgptAttention, litgptHeadsJoined, litgptQkv } from './litgpt';
import { gatedDeltaNet } from './mixers/gated-deltanet';
import { kimiDeltaAttention } from './mixers/kda';
import { mamba1Mixer } from './mixers/mamba1';
import { mamba2Mixer } from './mixers/mamba2';
import { gatedMlp, graniteMlp, plainMlp } from './mlp';
import { rmsNormBackwardBytes } from './norms';
import { deepseekMoe, gptOssMoe, kimiMoe, llama4Moe, moeMlp } from './moe';

/**
 * Llama family: pre-norm, rotary (saves only cos/sin, which need no grad), GQA, gated MLP. OLMo 2 normalizes the
 * attention and MLP outputs instead of their inputs.
 */
export function decoderBlock(bc: BlockContext): Tensor {
  const { a, x0, linearLayer, norm } = bc;
  const postOnly = a.family === 'olmo2';
  const h1 = postOnly ? x0 : norm(x0, 'input_layernorm');
  if (a.mla && !linearLayer) return mlaLayer(bc, h1);
  if (linearLayer) return linearMixerLayer(bc, h1);
  return attentionLayer(bc, h1, postOnly);
}

/** An MLA layer (DeepSeek, Kimi Linear's full-attention layers) and its MLP or MoE half. */
function mlaLayer(bc: BlockContext, h1: Tensor): Tensor {
  const { p, a, tape, tp, Tsp, residualBytes, moeBlock, linear, norm, state } = bc;
  const { moeInfo } = state;
  const attended = mlaAttention(bc, h1);
  tape.use(bc.x0);
  const x1 = tape.free(attended, 'residual', Tsp * a.hidden, residualBytes);
  state.residual = x1;
  const beforeMlp = tape.totalBytes();
  const h2 = norm(x1, 'post_attention_layernorm');
  const layerOutputs =
    moeBlock && a.moe
      ? a.family === 'kimi_linear'
        ? kimiMoe(tape, p, h2, linear)
        : deepseekMoe(tape, p, h2, linear, moeInfo)
      : gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
  state.mlpSavedBytes = tape.totalBytes() - beforeMlp;
  return layerOutputs;
}

/** A linear-attention or Mamba layer of a hybrid (Qwen3-Next, Qwen3.5, Kimi Linear, Granite 4.0 H, Jamba) and its MLP half. */
function linearMixerLayer(bc: BlockContext, h1: Tensor): Tensor {
  const { p, a, tape, tp, Tsp, residualBytes, moeBlock, linear, norm, state } = bc;
  const { moeInfo } = state;
  const mixer = a.mamba
    ? mamba2Mixer(tape, p, h1, linear)
    : a.mamba1
      ? mamba1Mixer(tape, p, h1, linear)
      : a.linearAttention?.kda
        ? kimiDeltaAttention(tape, p, h1, linear)
        : gatedDeltaNet(tape, p, h1, linear);
  state.linearWorking = mixer.workingBytes;
  tape.use(bc.x0);
  const x1 = tape.free(mixer.out, 'residual', Tsp * a.hidden, residualBytes);
  state.residual = x1;
  const beforeMlp = tape.totalBytes();
  const h2 = norm(x1, 'post_attention_layernorm');
  const layerOutputs =
    a.family === 'granite_hybrid'
      ? graniteMlp(tape, p, h2, linear, moeBlock)
      : moeBlock && a.moe
        ? a.family === 'kimi_linear'
          ? kimiMoe(tape, p, h2, linear)
          : moeMlp(tape, p, h2, linear, moeInfo)
        : gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
  state.mlpSavedBytes = tape.totalBytes() - beforeMlp;
  return layerOutputs;
}

/** The attention layer: projections, q/k norms, rotary, the attention kernel, the output gate, then the MLP half. */
function attentionLayer(bc: BlockContext, h1: Tensor, postOnly: boolean): Tensor {
  const { p, a, tape, T, Tsp, upcast, residualBytes, qd, kvd, heads, kvHeads, s, rope, sandwich, linear, norm, rms } =
    bc;
  const { q: q0, k: k0, v, outputGate } = projections(bc, h1);
  let q = q0;
  let k = k0;
  if (a.qkNorm) {
    // Per head (Qwen3, Gemma 3, GLM-4.5), or over the whole projection (OLMo 2: one row per token).
    q = tape.rmsNorm(q, postOnly ? T : T * heads, p.normsTrainable, 'q_norm', rms.weightBytes, rms.style);
    k = tape.rmsNorm(k, postOnly ? T : T * kvHeads, p.normsTrainable, 'k_norm', rms.weightBytes, rms.style);
  }
  // apply_rotary_pos_emb: q*cos + rotate_half(q)*sin creates new q/k tensors (fp32 when 4/8-bit linears return fp32).
  // GLM-4 interleaves the rotary pairs: each layer builds repeat_interleave copies of the rotated half of cos and sin
  // (one row of positions, in the hidden states' dtype), which the multiplies keep.
  if (a.family === 'glm4' && q.rg)
    tape.saveExtra(
      'interleaved cos / sin (per layer)',
      2 * s * Math.round(a.headDim * a.partialRotary) * p.weightBytes,
    );
  // cos and sin come in the embeddings' dtype (LlamaRotaryEmbedding: cos.to(x.dtype)), so an fp32 residual stream
  // under autocast makes the products fp32, which the attention kernel casts back.
  const rotaryBytes = (x: Tensor): number =>
    Math.max(upcast && p.quantizedBase ? x.bytesPerElem : tape.computeBytes, residualBytes);
  let qr = rotary(tape, q, 'q', T * qd, rotaryBytes(q));
  let kr = rotary(tape, k, 'k', T * kvd, rotaryBytes(k));
  if (litgptAttention(bc)) {
    // LitGPT: `q = torch.cat((q_roped, q[..., rope_n_elem:]), dim=-1)`, a new tensor even when every element rotates.
    qr = tape.free(qr, 'q (cat of the rotated and pass-through parts)');
    kr = tape.free(kr, 'k (cat of the rotated and pass-through parts)');
  }
  // The attention's locals query_states and key_states hold the projections until apply_rotary_pos_emb returns both.
  tape.keepThrough(q, k);
  if (a.positions === 'none') {
    // No position embedding (Granite 4.0 H): q and k go to attention as projected.
    kr = k;
    qr = q;
  } else if (a.layerPattern && !rope) {
    // Llama 4 NoPE layer: k is the projection itself; attention temperature tuning scales q by an fp32 factor per
    // position (kept for q's gradient) and casts the product back.
    kr = k;
    qr = q;
    if (a.layerPattern.temperatureTuning) {
      if (q.rg) tape.saveExtra('attention temperature scales (fp32)', p.seq * 4);
      qr = tape.free(q, 'q x temperature scale', T * qd, q.bytesPerElem);
    }
  } else if (a.qkL2Norm) {
    // Llama 4: rotary (complex multiply, cast back) then the weightless L2 norm in fp32 (x.float() and rsqrt kept).
    qr = tape.rmsNorm(qr, T * heads, false, 'q L2 norm', qr.bytesPerElem, 'llama');
    kr = tape.rmsNorm(kr, T * kvHeads, false, 'k L2 norm', kr.bytesPerElem, 'llama');
  }
  // Llama 4's eager attention takes the softmax in the scores' dtype (no fp32 upcast).
  let att = attentionCore(bc, qr, kr, v, {
    causalRepeat: true,
    softmaxFp32: a.family !== 'gpt_oss' && a.family !== 'llama4',
    dropout: a.attentionDropout,
    sinks: a.family === 'gpt_oss',
  });
  if (litgptAttention(bc)) att = litgptHeadsJoined(bc, att);
  if (outputGate) {
    // attn_output * torch.sigmoid(gate): the gate chunk is reshaped (a copy of the strided view), sigmoid keeps its
    // output, and the product keeps both factors.
    const gate = tape.free(outputGate, 'output gate (reshape copy)', T * qd);
    att = tape.mul(att, tape.unarySavesOutput(gate, 'sigmoid(gate)'), 'gated attention output');
  }
  const o = linear(att, a.family === 'qwen' ? 'c_proj' : 'o_proj', a.hidden, 'o_proj output');
  bc.state.attentionOutputSavedBytes = bc.state.lastLinearSaved.bytes;
  // The attention's locals hold q, k and v to its return, and the layer's hidden_states its input until then.
  tape.keepThrough(qr, kr, v, h1);
  // OLMo 2 and GLM-4 normalize the attention output before the residual sum (its 16-bit output is upcast by the
  // norm); Gemma's byte counts come out the same either way.
  const normBeforeSum = postOnly || a.family === 'glm4';
  // The post-attention norm's backward, too, runs before the attention core's and releases what it saved.
  const postNorm = (x: Tensor): Tensor => {
    const before = tape.totalBytes();
    const y = norm(x, 'post_attention_layernorm');
    bc.state.attentionOutputSavedBytes += tape.totalBytes() - before;
    return y;
  };
  tape.use(bc.x0); // the residual sum reads the block's input
  let x1 = tape.free(normBeforeSum ? postNorm(o) : o, 'residual', Tsp * a.hidden, residualBytes);
  if (sandwich && !normBeforeSum) x1 = postNorm(x1);
  bc.state.residual = x1;
  return mlpHalf(bc, x1, postOnly);
}

/** q, k and v of the layer's input, and the output gate's half of q_proj's output (Qwen3-Next, Qwen3.5). */
function projections(
  bc: BlockContext,
  h1: Tensor,
): { q: Tensor; k: Tensor; v: Tensor; outputGate: Tensor | undefined } {
  const { a, tape, T, qd, kvd, linear } = bc;
  let q: Tensor;
  let k: Tensor;
  let v: Tensor;
  /** The output gate's half of q_proj's output (Qwen3-Next, Qwen3.5). */
  let outputGate: Tensor | undefined;
  if (litgptAttention(bc)) {
    ({ q, k, v } = litgptQkv(bc, h1));
  } else if (a.family === 'phi3') {
    const qkv = linear(h1, 'qkv_proj', qd + 2 * kvd, 'qkv_proj output');
    q = tape.view(qkv, 'q', T * qd);
    k = tape.view(qkv, 'k', T * kvd);
    v = tape.view(qkv, 'v', T * kvd);
  } else if (a.family === 'qwen') {
    const qkv = linear(h1, 'c_attn', 3 * qd, 'c_attn output');
    q = tape.view(qkv, 'q', T * qd);
    k = tape.view(qkv, 'k', T * kvd);
    v = tape.view(qkv, 'v', T * kvd);
  } else if (a.attnOutputGate) {
    // Qwen3NextAttention: q_proj's output viewed as (heads, 2 x head_dim) and chunked into the queries and the gate.
    const qg = linear(h1, 'q_proj', 2 * qd, 'q_proj output (queries and output gate)');
    q = tape.view(qg, 'q (chunk of q_proj output)', T * qd);
    outputGate = qg;
    k = linear(h1, 'k_proj', kvd, 'k_proj output');
    v = linear(h1, 'v_proj', kvd, 'v_proj output');
  } else {
    q = linear(h1, 'q_proj', qd, 'q_proj output');
    k = linear(h1, 'k_proj', kvd, 'k_proj output');
    v = linear(h1, 'v_proj', kvd, 'v_proj output');
  }
  return { q, k, v, outputGate };
}

/** The MLP half: its norm, a gated MLP, a MoE block (by family) or a tiled MLP, and the post-feedforward norm. */
function mlpHalf(bc: BlockContext, x1: Tensor, postOnly: boolean): Tensor {
  const { p, a, tape, tp, moeBlock, sandwich, linear, norm, rms, state } = bc;
  const { moeInfo } = state;
  let layerOutputs: Tensor;
  const beforeMlp = tape.totalBytes();
  const h2 = postOnly ? x1 : norm(x1, sandwich ? 'pre_feedforward_layernorm' : 'post_attention_layernorm');
  const denseMlp = (): Tensor =>
    (!a.gatedMlp ? plainMlp(tape, a.family, a.ffn / tp, a.hidden, h2, linear) : undefined) ??
    gatedMlp(
      tape,
      a.ffn / tp,
      a.hidden,
      h2,
      linear,
      a.family === 'phi3' || a.family === 'glm4'
        ? 'phi3'
        : a.family === 'qwen'
          ? 'qwen'
          : a.family === 'granite_hybrid'
            ? 'granite'
            : 'llama',
    );
  if (a.family === 'granite_hybrid') {
    layerOutputs = graniteMlp(tape, p, h2, linear, moeBlock);
  } else if (p.tiledMlpShards && !(moeBlock && a.moe) && a.family !== 'gpt_oss') {
    // TiledMLP.forward: ctx.save_for_backward(x), then each shard under no_grad; what the MLP would keep exists
    // only for one shard at a time, while backward recomputes it.
    const mark = tape.mark();
    layerOutputs = denseMlp();
    state.tiledMlp = tape.rollback(mark);
    tape.save(h2);
  } else {
    layerOutputs =
      a.family === 'gpt_oss'
        ? gptOssMoe(tape, p, h2, linear, moeInfo)
        : moeBlock && a.moe
          ? a.family === 'glm4_moe'
            ? deepseekMoe(tape, p, h2, linear, moeInfo)
            : a.family === 'llama4'
              ? llama4Moe(tape, p, h2, linear)
              : moeMlp(tape, p, h2, linear, moeInfo)
          : denseMlp();
  }
  // The decoder layer's local hidden_states holds the MLP's input until the MLP returns.
  tape.keepThrough(h2);
  // A dense MLP's output projection is the first op of the layer's backward (the residual sum saves nothing), unless
  // a post-feedforward norm follows it.
  const denseLast =
    !(moeBlock && a.moe) && !p.tiledMlpShards && a.family !== 'gpt_oss' && a.family !== 'granite_hybrid';
  state.entryGradBytes = denseLast && !(sandwich || postOnly) ? state.lastLinearEntryGradBytes : 0;
  state.mlpOutputSavedBytes = denseLast ? state.lastLinearSaved.bytes : 0;
  if (sandwich || postOnly) {
    layerOutputs = norm(layerOutputs, 'post_feedforward_layernorm');
    if (a.norm === 'rms')
      state.outputNormBackwardBytes = rmsNormBackwardBytes(
        layerOutputs.elems,
        rms.style,
        p.normsTrainable,
        layerOutputs.bytesPerElem,
      );
  }
  state.mlpSavedBytes = tape.totalBytes() - beforeMlp;
  return layerOutputs;
}

/**
 * apply_rotary_pos_emb: x * cos + rotate_half(x) * sin. No tensor of it is saved (cos and sin need no grad), but each
 * product and rotate_half's cat is a tensor of x's size while the sum is formed (the allocator replay's sequence).
 */
export function rotary(tape: Tape, x: Tensor, what: string, elems: number, bytesPerElem: number): Tensor {
  const cosPart = tape.free(x, `${what} x cos`, elems, bytesPerElem);
  // rotate_half: torch.cat((-x2, x1), dim=-1), the negated half a tensor of its own until the cat exists.
  const negated = tape.free(x, `-x2 of rotate_half(${what})`, elems / 2, x.bytesPerElem);
  tape.use(x, negated);
  const half = tape.free(negated, `rotate_half(${what})`, elems, x.bytesPerElem);
  const sinPart = tape.free(half, `rotate_half(${what}) x sin`, elems, bytesPerElem);
  tape.use(cosPart);
  return tape.free(sinPart, `${what} after rotary`, elems, bytesPerElem);
}
