// One decoder block of a family, replayed op by op on the tape: norms, residuals, attention, the MLP or MoE, the
// LoRA and (IA)^3 adapters. Pure arithmetic; no I/O.
import { type LinearModule, linearModules } from '../../architecture';
import { legacySoftmaxInput } from './attention';
import { gatedDeltaNet } from './mixers/gated-deltanet';
import { kimiDeltaAttention } from './mixers/kda';
import { mamba1Mixer } from './mixers/mamba1';
import { mamba2Mixer } from './mixers/mamba2';
import { gatedMlp, geluNew, graniteMlp } from './mlp';
import { deepseekMoe, gptOssMoe, kimiMoe, llama4Moe, type MoeInfo, moeMlp, nemotronMoe } from './moe';
import { rmsNormOf } from './norms';
import type { ActivationPlan, LayerActivations } from './plan';
import { t5Blocks } from './t5';
import { unslothBlock, unslothFastPath } from './unsloth';
import { Tape, type Tensor, type Weight } from '../saved-tensors';

const moduleByName = (mods: LinearModule[]): Map<string, LinearModule> => new Map(mods.map((m) => [m.name, m]));

/**
 * One block's saved tensors; `moeBlock` false replays a dense layer of a model that mixes dense and MoE layers, `rope`
 * false a Llama 4 NoPE layer, `linearLayer` a Gated DeltaNet layer (Qwen3-Next, Qwen3.5); `adaptedExperts` names the
 * expert parameters LoRA adapts in this layer (PEFT target_parameters); `blockKind` the one mixer of a Nemotron-H layer.
 */
export function blockActivations(p: ActivationPlan, moeBlock: boolean, rope = true, linearLayer = false, adaptedExperts: readonly string[] = [], blockKind?: 'M' | '*' | '-' | 'E'): LayerActivations {
  if (unslothFastPath(p)) return unslothBlock(p);
  const a = p.arch;
  // Liger's RMSNorm and SiLU/GELU-mul kernels keep what a compiled block keeps of those ops: the norm's input and
  // inverse RMS (liger_kernel/ops/rms_norm.py), the gate and up projections (ops/swiglu.py, ops/geglu.py).
  const tape = new Tape(p.mode, p.half, p.compile === true || p.kernels === 'liger');
  // Kimi Linear's KDA and MLA layers both have a q_proj and an o_proj, of different shapes: this layer's kind only.
  const mods = moduleByName(linearModules(a).filter((m) => m.layerKind === undefined || m.layerKind === (linearLayer ? 'linear' : 'full')));
  const T = p.batch * p.seq;
  const tp = p.tp;
  // Sequence parallel splits the tokens of the non-tensor-parallel regions (norms, dropout, residual) over TP ranks.
  const Tsp = p.sequenceParallel ? T / tp : T;
  const upcast = p.kbitUpcast !== undefined && p.kbitUpcast !== 'none';
  // Autocast keeps fp32 residuals only with fp32 weights, or when fp32 norms feed 4/8-bit linears (which return
  // their input's dtype): their fp32 outputs reach the residual sum.
  // Kimi Linear's MoE blocks weight their experts' outputs with fp32 routing weights: from the first one on the residual
  // stream is fp32 (every MoE layer but the first gets an fp32 input; counted for all of them).
  const residualBytes = p.weightBytes === 4 || (upcast && p.quantizedBase) || (a.family === 'kimi_linear' && moeBlock && a.moe !== undefined) ? 4 : p.half;
  const normBytes = upcast ? 4 : p.weightBytes;
  const x0 = tape.tensor('block input', Tsp * a.hidden, residualBytes, p.inputRequiresGrad || p.baseTrainable);
  /** What the second half of a pre-norm block (norm + MLP) saves: freed by its backward before the attention's runs. */
  let mlpSavedBytes = 0;
  const moeInfo: MoeInfo = { looped: false, forwardEnd: 0, savedAfterRouted: 0 };
  /** Under a tiled MLP: what the untiled MLP would have kept (bytes, and its 16-bit weight copies under autocast). */
  let tiledMlp: { savedBytes: number; weightCopyBytes: number } | undefined;
  /** A Gated DeltaNet layer's backward working set (its kernel's recomputed tensors and gradients). */
  let linearWorking: number | undefined;

  const weight = (name: string): Weight => {
    const m = mods.get(name);
    const elems = m ? (m.inFeatures * m.outFeatures) / tp : a.hidden * a.hidden;
    // A 4/8-bit base weight is dequantized to the compute dtype inside bitsandbytes' matmul and never saved, so
    // autocast makes no 16-bit copy of it, whatever dtype the model's other parameters are stored in. A bare
    // parameter (transformers 5 fused experts and routers) is never quantized: it keeps the model dtype, or fp32 when
    // prepare_model_for_kbit_training upcast the unquantized parameters.
    if (m?.parameter && p.quantizedBase) {
      return { what: name, elems, trainable: p.baseTrainable, bytesPerElem: p.kbitUpcast !== undefined && p.kbitUpcast !== 'none' ? 4 : p.weightBytes };
    }
    return { what: name, elems, trainable: p.baseTrainable, bytesPerElem: p.quantizedBase ? p.half : p.weightBytes, keepsInputDtype: p.quantizedBase };
  };
  const normWeight: Weight = { what: 'norm', elems: a.hidden, trainable: p.normsTrainable, bytesPerElem: normBytes };

  /** A linear layer with its LoRA adapter or (IA)^3 vector when targeted (PEFT lora.Linear / ia3.Linear forward). */
  const linear = (x: Tensor, name: string, outFeatures: number, what: string): Tensor => {
    const w = weight(name);
    const ia3 = p.ia3;
    if (ia3 && ia3.targets.has(name)) {
      // The input (feed-forward) or the output is cast to the vector's dtype and multiplied by it: the multiply keeps
      // that cast copy for the vector's gradient; the product goes back to the base dtype.
      if (ia3.feedforward.has(name)) {
        const xc = tape.to(x, ia3.dtypeBytes, `${name} IA3 input (adapter dtype)`);
        tape.save(xc);
        return tape.linear(tape.to(tape.free(xc, `${name} input x IA3 vector`), x.bytesPerElem, `${name} scaled input`), w, outFeatures, what);
      }
      const y0 = tape.linear(x, w, outFeatures, what);
      const yc = tape.to(y0, ia3.dtypeBytes, `${what} (adapter dtype)`);
      tape.save(yc);
      return tape.to(tape.free(yc, `${what} x IA3 vector`), y0.bytesPerElem, `${what} (scaled)`);
    }
    const y = tape.linear(x, w, outFeatures, what);
    const m = mods.get(name);
    if (p.int8Base && x.rg && !w.trainable && !m?.parameter) tape.save(x);
    const lora = p.lora;
    if (!lora || !lora.targets.has(name)) return y;
    const tokens = x.elems / ((m ? m.inFeatures : a.hidden) / (name === 'o_proj' || name === 'down_proj' ? tp : 1));
    // PEFT casts x to the adapter dtype, applies dropout, then lora_A and lora_B (both trainable). Its 4/8-bit
    // layers skip the cast under autocast (peft/tuners/lora/bnb.py: requires_conversion = not is_autocast_enabled()).
    let xa = p.quantizedBase && p.mode === 'amp' ? x : tape.to(x, lora.dtypeBytes, `${name} LoRA input (adapter dtype)`);
    xa = tape.dropout(xa, lora.dropout, `${name} LoRA dropout`);
    const A: Weight = { what: `${name}.lora_A`, elems: (m?.inFeatures ?? a.hidden) * lora.r, trainable: true, bytesPerElem: lora.dtypeBytes };
    const ya = tape.linear(xa, A, lora.r, `${name} lora_A output`);
    const B: Weight = { what: `${name}.lora_B`, elems: lora.r * outFeatures, trainable: true, bytesPerElem: lora.dtypeBytes };
    const yb = tape.linear(ya, B, outFeatures, `${name} lora_B output`);
    if (lora.dora) {
      // peft/tuners/lora/dora.py DoraLinearLayer.forward: (mag_norm_scale - 1) * base_result + mag_norm_scale * lora_result
      // * scaling; the magnitude is trained, so both products keep their tensor operand for its gradient.
      tape.save(y);
      tape.save(yb);
    }
    void tokens;
    // result + lora_B(...) * scaling, cast back to the base output dtype.
    return tape.tensor(`${what} (+LoRA)`, y.elems, y.bytesPerElem, true);
  };

  const rms = rmsNormOf(a, normBytes);
  /** Gemma 2 and 3 normalize the attention and MLP outputs too (post_attention, pre/post_feedforward norms). */
  const sandwich = a.family === 'gemma2' || a.family === 'gemma3' || a.family === 'glm4';
  const norm = (x: Tensor, what: string): Tensor =>
    a.norm === 'rms'
      ? tape.rmsNorm(x, x.elems / a.hidden, normWeight.trainable, what, rms.weightBytes, rms.style)
      : tape.layerNorm(x, x.elems / a.hidden, normWeight.trainable, what);

  // Attention geometry on this TP rank.
  const heads = a.heads / tp;
  const kvHeads = Math.max(1, a.kvHeads / tp);
  const qd = heads * a.headDim;
  const kvd = kvHeads * a.headDim;
  const b = p.batch;
  const s = p.seq;

  /** Eager attention computes the softmax in fp32 (HF llama-family `softmax(..., dtype=torch.float32)`, autocast). */
  let softmaxUpcast = false;
  /** softmax(QK^T)V for one block, by implementation. Returns the (b, s, qd) output in compute dtype. */
  const attentionCore = (q: Tensor, k: Tensor, v: Tensor, opts: { causalRepeat: boolean; softmaxFp32: boolean; dropout: number; kvTokens?: number; sinks?: boolean; outWidth?: number }): Tensor => {
    const kvTokens = opts.kvTokens ?? T;
    /** Output width per token: the value heads' (MLA's value heads are narrower than its q/k heads). */
    const od = opts.outWidth ?? qd;
    const gqa = kvHeads < heads;
    // repeat_kv expands a (b, kv, n_rep, s, d) view and reshapes it to (b, heads, s, d): a copy, except with one key
    // and value head (multi-query attention), where the reshape is a view of the unrepeated tensor. Eager attention's
    // torch.matmul then folds batch and heads for bmm, which copies a head dimension of stride 0 unless the batch is 1.
    const repeatKv = (x: Tensor, what: string, viewOk: boolean): Tensor => (viewOk ? tape.view(x, what, kvTokens * qd) : tape.free(x, what, kvTokens * qd, x.bytesPerElem));
    if (p.attention === 'eager') {
      const mqaView = kvHeads === 1 && b === 1;
      const kk = gqa ? repeatKv(k, 'repeat_kv(k)', mqaView) : k;
      const vv = gqa ? repeatKv(v, 'repeat_kv(v)', mqaView) : v;
      const scoresElems = b * heads * s * (kvTokens / b);
      let scores = tape.matmul(q, kk, scoresElems, 'attention scores QK^T');
      if (a.attnLogitSoftcap) {
        // Gemma 2 eager_attention_forward: tanh(scores / cap) * cap; tanh keeps its output.
        scores = tape.free(tape.unarySavesOutput(tape.free(scores, 'scores / soft-cap'), 'tanh(scores / soft-cap)'), 'soft-capped scores');
      }
      let probs: Tensor;
      if (opts.sinks) {
        // gpt-oss eager_attention_forward: one sink logit per head appended (cat promotes to the sinks' dtype: fp32
        // with fp32 weights under autocast), the row max subtracted (max keeps its int64 indices), softmax in the
        // logits' dtype (an explicit dtype, so autocast leaves it), the sink column dropped by a view.
        const rows = b * heads * s;
        const combined = tape.free(scores, 'scores + sink logit (cat)', scoresElems + rows, Math.max(scores.bytesPerElem, p.weightBytes));
        if (combined.rg) tape.saveExtra('row max indices (int64)', rows * 8);
        probs = tape.view(tape.unarySavesOutput(combined, 'softmax output (with sink)'), 'probabilities without the sink (view)', scoresElems);
      } else {
        softmaxUpcast = p.mode === 'amp' || opts.softmaxFp32;
        legacySoftmaxInput(tape, p, scores, 'softmax input', p.mode === 'amp' || opts.softmaxFp32 ? 4 : scores.bytesPerElem);
        if (p.mode === 'amp' || opts.softmaxFp32) {
          const sm = tape.unarySavesOutput(scores, 'softmax output (fp32)', 4);
          probs = tape.to(sm, p.mode === 'amp' ? 4 : tape.computeBytes, 'attention probs');
        } else {
          probs = tape.unarySavesOutput(scores, 'softmax output');
        }
      }
      probs = tape.dropout(probs, opts.dropout, 'attention dropout');
      tape.attentionOutputBytes += probs.storageBytes;
      const out = tape.matmul(probs, vv, T * od, 'attention output');
      return tape.free(out, 'attention output (transposed, contiguous)');
    }
    // SDPA (flash / memory-efficient kernels) and flash_attention_2: no s x s matrix is kept; backward needs
    // q, k, v, the output and the fp32 logsumexp per (batch, head, query).
    const repeat = p.attention === 'sdpa' && gqa && opts.causalRepeat;
    const qq = tape.castForMatmul(q);
    const kk = repeat ? repeatKv(tape.castForMatmul(k), 'repeat_kv(k)', kvHeads === 1) : tape.castForMatmul(k);
    const vv = repeat ? repeatKv(tape.castForMatmul(v), 'repeat_kv(v)', kvHeads === 1) : tape.castForMatmul(v);
    const out = tape.tensor('attention output', T * od, tape.computeBytes, q.rg || k.rg || v.rg);
    if (out.rg) {
      tape.save(qq);
      tape.save(kk);
      tape.save(vv);
      tape.save(out);
      tape.saveExtra('attention logsumexp (fp32)', b * heads * s * 4);
      // flash_attn's FlashAttnFunc also keeps its RNG state (two int64: flash_attn_interface.py save_for_backward).
      if (p.attention === 'flash') tape.saveExtra('flash-attn RNG state (2 x int64)', 16);
      tape.attentionOutputBytes += out.storageBytes + b * heads * s * 4;
    }
    return out;
  };

  /**
   * Multi-head latent attention (transformers modeling_deepseek_v3.py DeepseekV3Attention): q through q_proj, or
   * q_a_proj -> q_a_layernorm -> q_b_proj; kv_a_proj_with_mqa gives the latent and one rotary key; kv_a_layernorm ->
   * kv_b_proj gives every head's key part and value (split views of one output); the rotary parts are rotated
   * (interleaved: a reshape copy), and cat builds new q and k of width nope + rope. Eager attention copies the value
   * view for its matmul; flash_attention_2 pads the value to the q/k width and slices the output back. The output is
   * made contiguous for o_proj.
   */
  const mlaAttention = (h1: Tensor): Tensor => {
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
    if (p.attention === 'flash') v = tape.free(kvb, 'value padded to the q/k width (F.pad)', T * heads * qkd, tape.computeBytes);
    // Eager attention's batched matmul copies the value view, except with one sequence, where the reshape is a view.
    else if (p.attention === 'eager' && b > 1) v = tape.free(kvb, 'value (contiguous copy for the matmul)', T * heads * m.vHeadDim);
    else v = tape.view(kvb, 'value (view of kv_b_proj output)', T * heads * m.vHeadDim);
    const outWidth = heads * (p.attention === 'flash' ? qkd : m.vHeadDim);
    const att = attentionCore(q, k, v, { causalRepeat: false, softmaxFp32: true, dropout: a.attentionDropout, outWidth });
    const o = tape.free(att, 'attention output (contiguous, value width)', T * heads * m.vHeadDim);
    return linear(o, 'o_proj', a.hidden, 'o_proj output');
  };

  /**
   * A pre-LayerNorm block with one fused q/k/v projection and a two-layer MLP (GPT-2, BLOOM): q, k and v are views of
   * the fused output, or copies (BLOOM's reshapes of transposed views); the attention output projected, dropped out
   * and added to the residual; the second LayerNorm, the MLP's up projection, its activation and down projection.
   */
  const fusedQkvBlock = (n: { ln1: string; qkv: string; out: string; ln2: string; up: string; down: string }, copies: boolean, softmaxFp32: boolean, act: (x: Tensor) => Tensor): Tensor => {
    const h1 = tape.layerNorm(x0, Tsp, p.normsTrainable, n.ln1);
    const qkv = linear(h1, n.qkv, 3 * qd, `${n.qkv} output`);
    const part = (what: string): Tensor => (copies ? tape.free(qkv, `${what} (reshape copy)`, T * qd) : tape.view(qkv, what, T * qd));
    const att = attentionCore(part('q'), part('k'), part('v'), { causalRepeat: false, softmaxFp32, dropout: a.attentionDropout });
    const o = tape.dropout(linear(att, n.out, a.hidden, `${n.out} output`), a.hiddenDropout, 'attention output dropout');
    const x1 = tape.free(o, 'residual', Tsp * a.hidden, residualBytes);
    const h2 = tape.layerNorm(x1, Tsp, p.normsTrainable, n.ln2);
    const g = act(linear(h2, n.up, a.ffn / tp, `${n.up} output`));
    return tape.dropout(linear(g, n.down, a.hidden, `${n.down} output`), a.hiddenDropout, 'mlp dropout');
  };

  let layerOutputs: Tensor;
  switch (a.family) {
    case 'gpt2':
      // q, k, v are views (split) of the one c_attn output: saving any of them keeps all of it.
      layerOutputs = fusedQkvBlock({ ln1: 'ln_1', qkv: 'c_attn', out: 'c_proj', ln2: 'ln_2', up: 'c_fc', down: 'mlp.c_proj' }, false, false, (x) => geluNew(tape, x));
      break;
    case 'gpt_neox':
    case 'phi': {
      // Parallel residual: attention and MLP both read the block input (gpt_neox: through two LayerNorms).
      const h1 = tape.layerNorm(x0, Tsp, p.normsTrainable, 'input_layernorm');
      const qkvName = a.family === 'phi' ? 'q_proj' : 'query_key_value';
      const qkv = linear(h1, qkvName, a.family === 'phi' ? qd : 3 * qd, 'qkv output');
      const q = tape.free(qkv, 'q (rotary)', T * qd);
      const k = tape.free(qkv, 'k (rotary)', T * kvd);
      // v is a view of the fused qkv output; eager attention's batched matmul copies it unless the batch is 1.
      const v = a.family === 'phi' ? linear(h1, 'v_proj', kvd, 'v_proj output')
        : p.attention === 'eager' && b > 1 ? tape.free(qkv, 'v (contiguous)', T * kvd) : tape.view(qkv, 'v', T * kvd);
      // GPT-NeoX takes the softmax in the activation dtype.
      const att = attentionCore(q, k, v, { causalRepeat: true, softmaxFp32: a.family === 'phi', dropout: a.attentionDropout });
      linear(att, a.family === 'phi' ? 'dense' : 'dense', a.hidden, 'dense output');
      const h2 = a.family === 'phi' ? h1 : tape.layerNorm(x0, Tsp, p.normsTrainable, 'post_attention_layernorm');
      const up = linear(h2, a.family === 'phi' ? 'fc1' : 'dense_h_to_4h', a.ffn / tp, 'mlp up output');
      const g = tape.unarySavesInput(up, 'gelu output');
      layerOutputs = linear(g, a.family === 'phi' ? 'fc2' : 'dense_4h_to_h', a.hidden, 'mlp down output');
      break;
    }
    case 'bloom':
      // BloomBlock (modeling_bloom.py): query_key_value's output viewed per head and reshaped to (b * heads, s,
      // head_dim), copies of the transposed views, for alibi.baddbmm and bmm; the causal mask added; softmax in fp32
      // cast back to the query's dtype; GeLUFunction keeps its input.
      layerOutputs = fusedQkvBlock({ ln1: 'input_layernorm', qkv: 'query_key_value', out: 'dense', ln2: 'post_attention_layernorm', up: 'dense_h_to_4h', down: 'dense_4h_to_h' },
        true, true, (x) => tape.unarySavesInput(x, 'GeLUFunction output'));
      break;
    case 'bert':
    case 'roberta': {
      const q = linear(x0, 'query', qd, 'query output');
      const k = linear(x0, 'key', qd, 'key output');
      const v = linear(x0, 'value', qd, 'value output');
      const att = attentionCore(q, k, v, { causalRepeat: false, softmaxFp32: false, dropout: a.attentionDropout });
      const o = linear(att, 'attention.output.dense', a.hidden, 'attention output dense');
      const od = tape.dropout(o, a.hiddenDropout, 'attention output dropout');
      const x1 = tape.layerNorm(tape.free(od, 'residual'), Tsp, p.normsTrainable, 'attention LayerNorm');
      const i1 = linear(x1, 'intermediate.dense', a.ffn / tp, 'intermediate output');
      const g = tape.unarySavesInput(i1, 'gelu output');
      const o2 = linear(g, 'output.dense', a.hidden, 'output dense');
      const o2d = tape.dropout(o2, a.hiddenDropout, 'output dropout');
      layerOutputs = tape.layerNorm(tape.free(o2d, 'residual'), Tsp, p.normsTrainable, 'output LayerNorm');
      break;
    }
    case 't5': {
      // One encoder block and one decoder block (self + cross attention) are replayed by t5Stack below.
      layerOutputs = x0;
      break;
    }
    case 'nemotron_h': {
      // NemotronHBlock: norm, then its one mixer, then the residual sum. The MLP is up_proj, ReLU² (relu keeps its output,
      // square the same tensor), down_proj; attention has no position embedding.
      const h1 = norm(x0, 'norm');
      if (blockKind === 'M') {
        const mixer = mamba2Mixer(tape, p, h1, linear);
        linearWorking = mixer.workingBytes;
        layerOutputs = mixer.out;
      } else if (blockKind === '*') {
        const att = attentionCore(linear(h1, 'q_proj', qd, 'q_proj output'), linear(h1, 'k_proj', kvd, 'k_proj output'), linear(h1, 'v_proj', kvd, 'v_proj output'),
          { causalRepeat: true, softmaxFp32: true, dropout: a.attentionDropout });
        layerOutputs = linear(att, 'o_proj', a.hidden, 'o_proj output');
      } else if (blockKind === 'E') {
        const beforeMlp = tape.totalBytes();
        layerOutputs = nemotronMoe(tape, p, h1, linear).out;
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
      } else {
        const beforeMlp = tape.totalBytes();
        const r = tape.unarySavesOutput(linear(h1, 'up_proj', a.ffn / tp, 'up_proj output'), 'relu(up_proj output)');
        layerOutputs = linear(tape.free(r, 'relu(...)^2'), 'down_proj', a.hidden, 'down_proj output');
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
      }
      break;
    }
    case 'falcon_h1': {
      // FalconH1DecoderLayer: the input norm's output goes to the Mamba2 mixer (x ssm_in_multiplier) and to attention
      // (x attention_in_multiplier) side by side; their outputs, scaled by python floats, are summed into the residual;
      // then pre_ff_layernorm and the SwiGLU MLP (gate_proj's output x gate_multiplier feeds silu, byte for byte what
      // Llama's keeps). A product with a python float keeps nothing, but makes a new tensor: in_proj and q/k/v keep their
      // own scaled copies of the norm output, and nothing keeps the norm output itself.
      const h1 = norm(x0, 'input_layernorm');
      const mixer = mamba2Mixer(tape, p, tape.free(h1, 'input norm output x ssm_in_multiplier'), linear);
      linearWorking = mixer.workingBytes;
      const xa = tape.free(h1, 'input norm output x attention_in_multiplier');
      const q = linear(xa, 'q_proj', qd, 'q_proj output');
      const k = tape.free(linear(xa, 'k_proj', kvd, 'k_proj output'), 'k x key_multiplier');
      const v = linear(xa, 'v_proj', kvd, 'v_proj output');
      const qr = tape.free(q, 'q after rotary', T * qd, upcast && p.quantizedBase ? q.bytesPerElem : tape.computeBytes);
      const kr = tape.free(k, 'k after rotary', T * kvd, upcast && p.quantizedBase ? k.bytesPerElem : tape.computeBytes);
      const att = attentionCore(qr, kr, v, { causalRepeat: true, softmaxFp32: true, dropout: a.attentionDropout });
      const o = linear(att, 'o_proj', a.hidden, 'o_proj output');
      const x1 = tape.free(o, 'residual', Tsp * a.hidden, residualBytes);
      const beforeMlp = tape.totalBytes();
      const h2 = norm(x1, 'pre_ff_layernorm');
      if (p.tiledMlpShards) {
        const mark = tape.mark();
        layerOutputs = gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
        tiledMlp = tape.rollback(mark);
        tape.save(h2);
      } else {
        layerOutputs = gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
      }
      mlpSavedBytes = tape.totalBytes() - beforeMlp;
      break;
    }
    default: {
      // Llama family: pre-norm, rotary (saves only cos/sin, which need no grad), GQA, gated MLP. OLMo 2 normalizes the
      // attention and MLP outputs instead of their inputs.
      const postOnly = a.family === 'olmo2';
      const h1 = postOnly ? x0 : norm(x0, 'input_layernorm');
      if (a.mla && !linearLayer) {
        const x1 = tape.free(mlaAttention(h1), 'residual', Tsp * a.hidden, residualBytes);
        const beforeMlp = tape.totalBytes();
        const h2 = norm(x1, 'post_attention_layernorm');
        layerOutputs = moeBlock && a.moe ? (a.family === 'kimi_linear' ? kimiMoe(tape, p, h2, linear) : deepseekMoe(tape, p, h2, linear, moeInfo)) : gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
        break;
      }
      if (linearLayer) {
        const mixer = a.mamba ? mamba2Mixer(tape, p, h1, linear) : a.mamba1 ? mamba1Mixer(tape, p, h1, linear)
          : a.linearAttention?.kda ? kimiDeltaAttention(tape, p, h1, linear) : gatedDeltaNet(tape, p, h1, linear);
        linearWorking = mixer.workingBytes;
        const x1 = tape.free(mixer.out, 'residual', Tsp * a.hidden, residualBytes);
        const beforeMlp = tape.totalBytes();
        const h2 = norm(x1, 'post_attention_layernorm');
        layerOutputs = a.family === 'granite_hybrid' ? graniteMlp(tape, p, h2, linear, moeBlock)
          : moeBlock && a.moe ? (a.family === 'kimi_linear' ? kimiMoe(tape, p, h2, linear) : moeMlp(tape, p, h2, linear, moeInfo)) : gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, 'llama');
        mlpSavedBytes = tape.totalBytes() - beforeMlp;
        break;
      }
      let q: Tensor;
      let k: Tensor;
      let v: Tensor;
      /** The output gate's half of q_proj's output (Qwen3-Next, Qwen3.5). */
      let outputGate: Tensor | undefined;
      if (a.family === 'phi3') {
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
      if (a.qkNorm) {
        // Per head (Qwen3, Gemma 3, GLM-4.5), or over the whole projection (OLMo 2: one row per token).
        q = tape.rmsNorm(q, postOnly ? T : T * heads, p.normsTrainable, 'q_norm', rms.weightBytes, rms.style);
        k = tape.rmsNorm(k, postOnly ? T : T * kvHeads, p.normsTrainable, 'k_norm', rms.weightBytes, rms.style);
      }
      // apply_rotary_pos_emb: q*cos + rotate_half(q)*sin creates new q/k tensors (fp32 when 4/8-bit linears return fp32).
      // GLM-4 interleaves the rotary pairs: each layer builds repeat_interleave copies of the rotated half of cos and sin
      // (one row of positions, in the hidden states' dtype), which the multiplies keep.
      if (a.family === 'glm4' && q.rg) tape.saveExtra('interleaved cos / sin (per layer)', 2 * s * Math.round(a.headDim * a.partialRotary) * p.weightBytes);
      let qr = tape.free(q, 'q after rotary', T * qd, upcast && p.quantizedBase ? q.bytesPerElem : tape.computeBytes);
      let kr = tape.free(k, 'k after rotary', T * kvd, upcast && p.quantizedBase ? k.bytesPerElem : tape.computeBytes);
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
      let att = attentionCore(qr, kr, v, { causalRepeat: true, softmaxFp32: a.family !== 'gpt_oss' && a.family !== 'llama4', dropout: a.attentionDropout, sinks: a.family === 'gpt_oss' });
      if (outputGate) {
        // attn_output * torch.sigmoid(gate): the gate chunk is reshaped (a copy of the strided view), sigmoid keeps its
        // output, and the product keeps both factors.
        const gate = tape.free(outputGate, 'output gate (reshape copy)', T * qd);
        att = tape.mul(att, tape.unarySavesOutput(gate, 'sigmoid(gate)'), 'gated attention output');
      }
      const o = linear(att, a.family === 'qwen' ? 'c_proj' : 'o_proj', a.hidden, 'o_proj output');
      // OLMo 2 and GLM-4 normalize the attention output before the residual sum (its 16-bit output is upcast by the
      // norm); Gemma's byte counts come out the same either way.
      const normBeforeSum = postOnly || a.family === 'glm4';
      let x1 = tape.free(normBeforeSum ? norm(o, 'post_attention_layernorm') : o, 'residual', Tsp * a.hidden, residualBytes);
      if (sandwich && !normBeforeSum) x1 = norm(x1, 'post_attention_layernorm');
      const beforeMlp = tape.totalBytes();
      const h2 = postOnly ? x1 : norm(x1, sandwich ? 'pre_feedforward_layernorm' : 'post_attention_layernorm');
      const denseMlp = (): Tensor => gatedMlp(tape, a.ffn / tp, a.hidden, h2, linear, a.family === 'phi3' || a.family === 'glm4' ? 'phi3' : a.family === 'qwen' ? 'qwen' : a.family === 'granite_hybrid' ? 'granite' : 'llama');
      if (a.family === 'granite_hybrid') {
        layerOutputs = graniteMlp(tape, p, h2, linear, moeBlock);
      } else if (p.tiledMlpShards && !(moeBlock && a.moe) && a.family !== 'gpt_oss') {
        // TiledMLP.forward: ctx.save_for_backward(x), then each shard under no_grad; what the MLP would keep exists
        // only for one shard at a time, while backward recomputes it.
        const mark = tape.mark();
        layerOutputs = denseMlp();
        tiledMlp = tape.rollback(mark);
        tape.save(h2);
      } else {
        layerOutputs = a.family === 'gpt_oss' ? gptOssMoe(tape, p, h2, moeInfo)
          : moeBlock && a.moe ? (a.family === 'glm4_moe' ? deepseekMoe(tape, p, h2, linear, moeInfo) : a.family === 'llama4' ? llama4Moe(tape, p, h2, linear) : moeMlp(tape, p, h2, linear, moeInfo)) : denseMlp();
      }
      if (sandwich || postOnly) layerOutputs = norm(layerOutputs, 'post_feedforward_layernorm');
      mlpSavedBytes = tape.totalBytes() - beforeMlp;
      break;
    }
  }
  void layerOutputs;
  // LoRA on this layer's expert parameters (PEFT target_parameters): W + BA and each matmul's routed input are kept.
  let expertLoraWorking = 0;
  if (moeBlock && a.moe && p.expertLora) {
    for (const t of p.expertLora.targets) {
      if (!adaptedExperts.includes(t.name)) continue;
      tape.saveExtra(`${t.name}: W + BA (LoRA on the parameter) and its routed input`, t.savedBytes);
      expertLoraWorking = Math.max(expertLoraWorking, t.workingBytes);
    }
  }

  let entries = tape.entries();
  let bytesPerLayer = tape.totalBytes();
  let checkpointHeldBytes = 0;
  if (a.family === 't5') {
    const t5 = t5Blocks(p);
    entries = t5.entries;
    bytesPerLayer = t5.bytesPerLayer;
    checkpointHeldBytes = t5.checkpointHeldBytes;
  }
  const cb = tape.computeBytes;
  const ffnLocal = a.moe ? a.moe.expertFfn * a.moe.topK : a.ffn / tp;
  const width = a.gatedMlp ? 3 : 2;
  // Looped experts (p.expertsLooped: transformers 4.x gathers each expert's tokens, runs its MLP, index_add_-s the
  // weighted output) run one after another, and so does their backward, in reverse, each releasing what it saved:
  // the high point of an MoE layer's backward is the largest of (a) one expert's share of the routed tokens (T·k/E,
  // routing balanced) with its intermediates' and its output's gradients, (b) the gather's zero-filled gradient of
  // every token beside that expert's input gradient, (c) a shared expert over every token, and (d) the end of the
  // layer's forward when checkpointing recomputes it, with all it saves: the MoE input and its output accumulator,
  // the int64 one-hot expert mask (E x k x T) and the last expert's unsaved matmul outputs. Profiled on the CPU
  // (tools/peak/measure_step.py --moe-checkpointing, 4-16 experts): every routed token's intermediates at once put the
  // estimate 8-24 % high where the layers make the high point; within 2.1 % with these terms. transformers 5's grouped
  // matmul runs every routed token at once: its backward holds their gradients together, as counted below.
  const loopedExperts = moeBlock && a.moe !== undefined && moeInfo.looped && !p.tiledMlpShards;
  let moeWorking = 0;
  if (loopedExperts) {
    const m = a.moe!;
    const share = (T * m.topK) / m.experts;
    const oneExpert = width * cb * share * m.expertFfn + cb * share * a.hidden;
    const gatherGrad = cb * T * a.hidden + cb * share * a.hidden;
    const shared = width * cb * T * m.sharedExpertFfn;
    const forwardEnd = 2 * cb * T * a.hidden + 8 * m.experts * m.topK * T + cb * share * (m.expertFfn + a.hidden) - moeInfo.savedAfterRouted;
    moeWorking = Math.max(oneExpert, gatherGrad, shared, forwardEnd);
  }
  // grouped_mm (transformers 5): the backward holds every routed token's gate, up and product gradients at once (as a
  // dense MLP of width top-k x expert width, below); the end of the recomputed forward holds the routed tokens' copies
  // (MoeInfo.forwardEnd), less what a shared expert, which runs after that point, saves. Profiled on the CPU
  // (tools/peak/measure_step.py --moe-checkpointing, a replica of transformers' grouped_mm).
  const groupedEnd = Math.max(0, moeInfo.forwardEnd - moeInfo.savedAfterRouted);
  // A tiled MLP's backward holds one shard's recomputed tensors and their gradients, plus the full input gradient.
  const mlpWorking = tiledMlp
    ? (width * cb * T * ffnLocal + tiledMlp.savedBytes + tiledMlp.weightCopyBytes) / p.tiledMlpShards! + cb * T * a.hidden
    : loopedExperts ? moeWorking : Math.max(width * cb * T * ffnLocal, groupedEnd);
  // Eager attention backward: the gradient of the probabilities and of the scores coexist (softmax backward), plus
  // the fp32 copy of the gradient when the softmax ran in fp32 on 16-bit scores. By then the block's MLP half has
  // been through its backward and released what it saved. Flash / SDPA backward holds dQ, dK, dV and dO; a gated
  // attention output (Qwen3.5) adds the gradients of the gate and of the ungated output. A Gated DeltaNet layer has
  // its own (gatedDeltaNet).
  const scoreGradBytes = 2 * cb + (softmaxUpcast && cb < 4 ? 4 : 0);
  const attnWorking = linearWorking ?? (p.attention === 'eager' ? scoreGradBytes * b * heads * s * s : 4 * cb * T * qd * (a.attnOutputGate ? 1.5 : 1));
  const backwardWorkingBytes = Math.max(mlpWorking, expertLoraWorking, Math.max(0, attnWorking - mlpSavedBytes)) + 2 * residualBytes * Tsp * a.hidden;
  const layerInputBytes = Tsp * a.hidden * residualBytes;
  const everyOtherMatmul = tape.matmulOutputs.filter((_, i) => i % 2 === 0).reduce((x, y) => x + y, 0);
  const selectiveBytes = Math.min(bytesPerLayer, layerInputBytes + everyOtherMatmul + tape.attentionOutputBytes);
  return { bytesPerLayer, entries, backwardWorkingBytes, layerInputBytes, selectiveBytes, checkpointHeldBytes, weightCopyBytesPerLayer: tape.weightCopyBytes };
}
