// Unsloth's fused kernels: when they replace a block's LoRA linears, and what such a block keeps for backward.
// Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { ActivationPlan, LayerActivations } from './plan';
import { Tape } from '../saved-tensors';

const UNSLOTH_FAMILIES = new Set(['llama', 'mistral', 'qwen2', 'qwen3']);
const UNSLOTH_LORA = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/**
 * Unsloth replaces a Llama / Mistral / Qwen2 / Qwen3 block's LoRA linears by its fused autograd functions (LoRA_QKV,
 * LoRA_W, LoRA_MLP in unsloth/kernels/fast_lora.py) only when every projection carries a LoRA adapter without dropout
 * (FastLlamaModel.patch_peft_model); otherwise those layers run PEFT's PyTorch forward.
 */
export function unslothFastPath(
  p: Pick<ActivationPlan, 'kernels' | 'arch' | 'lora' | 'ia3' | 'tp' | 'baseTrainable' | 'kbitUpcast'>,
): boolean {
  if (
    p.kernels !== 'unsloth' ||
    !UNSLOTH_FAMILIES.has(p.arch.family) ||
    !p.lora ||
    p.ia3 ||
    p.tp > 1 ||
    p.baseTrainable
  )
    return false;
  if (p.kbitUpcast !== undefined && p.kbitUpcast !== 'none') return false;
  return p.lora.dropout === 0 && UNSLOTH_LORA.every((n) => p.lora!.targets.has(n));
}

/**
 * One decoder block under Unsloth's kernels (unsloth/models/llama.py LlamaDecoderLayer_fast_forward with
 * unsloth/kernels): Fast_RMS_Layernorm keeps its input and the fp32 inverse RMS per row; LoRA_QKV keeps its input
 * and returns Q, K, V; Qwen3's q/k norms keep their inputs; the rotary kernel works in place and keeps only cos/sin;
 * flash-attn / xformers keep Q, K, V, the output and the fp32 logsumexp; LoRA_W (o_proj) keeps its input, the
 * attention output; LoRA_MLP keeps its input and the gate and up projections e, g, and recomputes swiglu(e, g) in
 * backward, where it writes the gradients into e and g and the input's gradient into the input's buffer.
 */
export function unslothBlock(p: ActivationPlan): LayerActivations {
  const a = p.arch;
  const tape = new Tape(p.mode, p.half, false);
  const T = p.batch * p.seq;
  const cb = tape.computeBytes;
  const qd = a.heads * a.headDim;
  const kvd = a.kvHeads * a.headDim;
  const rows = (what: string): void => tape.saveExtra(`${what} inverse RMS (fp32)`, T * 4);
  const x0 = tape.tensor('block input', T * a.hidden, cb, true);
  tape.save(x0);
  rows('input_layernorm');
  const h1 = tape.tensor('input_layernorm output (LoRA_QKV input)', T * a.hidden, cb, true);
  tape.save(h1);
  let q = tape.tensor('Q', T * qd, cb, true);
  let k = tape.tensor('K', T * kvd, cb, true);
  const v = tape.tensor('V', T * kvd, cb, true);
  if (a.qkNorm) {
    tape.save(q);
    tape.save(k);
    tape.saveExtra('q_norm / k_norm inverse RMS (fp32)', T * (a.heads + a.kvHeads) * 4);
    q = tape.tensor('Q (normed, rotary in place)', T * qd, cb, true);
    k = tape.tensor('K (normed, rotary in place)', T * kvd, cb, true);
  }
  tape.save(q);
  tape.save(k);
  tape.save(v);
  const o = tape.tensor('attention output (LoRA_W input)', T * qd, cb, true);
  tape.save(o);
  tape.saveExtra('attention logsumexp (fp32)', p.batch * a.heads * p.seq * 4);
  const x1 = tape.tensor('residual', T * a.hidden, cb, true);
  tape.save(x1);
  rows('post_attention_layernorm');
  const h2 = tape.tensor('post_attention_layernorm output (LoRA_MLP input)', T * a.hidden, cb, true);
  tape.save(h2);
  tape.save(tape.tensor('e = gate_proj(x)', T * a.ffn, cb, true));
  tape.save(tape.tensor('g = up_proj(x)', T * a.ffn, cb, true));
  const bytesPerLayer = tape.totalBytes();
  // Backward: LoRA_MLP holds the down projection's input gradient (T x ffn) while writing the rest in place; the
  // attention backward holds dQ, dK, dV and dO; the residual stream's gradient comes in and goes out.
  const residual = 2 * cb * T * a.hidden;
  const backwardWorkingBytes = Math.max(cb * T * a.ffn, cb * T * (2 * qd + 2 * kvd)) + residual;
  const layerInputBytes = T * a.hidden * cb;
  return {
    bytesPerLayer,
    entries: tape.entries(),
    backwardWorkingBytes,
    layerInputBytes,
    selectiveBytes: bytesPerLayer,
    checkpointHeldBytes: 0,
    weightCopyBytesPerLayer: 0,
  };
}
