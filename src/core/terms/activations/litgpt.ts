// LitGPT's own attention (litgpt/model.py CausalSelfAttention, litgpt/lora.py LoRAQKVLinear): one fused `attn.qkv`
// linear whose output q, k and v are views of, a LoRA branch over the switched-on parts of it (one dropout, one lora_A,
// a grouped lora_B, zero-padded back to the fused width), the rotated q and k rebuilt by torch.cat, and the key and
// value heads repeated to every query head in training; and its parallel-residual block (Block.forward with
// parallel_residual: Phi, Falcon, GPT-NeoX). Sources: Lightning-AI/litgpt model.py and lora.py (0.5.13; the same at
// 8641822, October 2023). Pure; no I/O.
// Docs: docs/estimate/activations.md
import { litgptAdaptedParts, type LinearModule } from '../../architecture';
import type { TrainingSetup } from '../../setup';
import type { Tensor, Weight } from '../saved-tensors';
import { attentionCore } from './attention';
import type { BlockContext } from './block';
import { weight } from './linear';
import type { LoraPlan } from './plan';

/** The three projections LitGPT fuses, with their transformers names, in the order of the fused output. */
const PARTS = ['q_proj', 'k_proj', 'v_proj'] as const;
/** A fused q/k/v layer in transformers' names: Falcon's and GPT-NeoX's, Phi-3's. */
const FUSED_NAMES = ['query_key_value', 'qkv_proj'] as const;

/** Whether LitGPT's CausalSelfAttention replaces this block's attention (separate q, k and v, or a fused layer). */
export function litgptAttention(bc: BlockContext): boolean {
  return bc.p.litgptModel === true && (separateParts(bc) || fusedName(bc) !== undefined);
}

const separateParts = (bc: BlockContext): boolean => PARTS.every((name) => bc.mods.has(name));
const fusedName = (bc: BlockContext): string | undefined => FUSED_NAMES.find((name) => bc.mods.has(name));

/**
 * `qkv = self.qkv(x)` and its LoRA branch (LoRAQKVLinear.forward): q, k and v as views of the fused output. The
 * attention saves v, a view, so a multi-head model keeps the whole fused output (3 x T x h) where transformers keeps
 * v_proj's; with grouped key-value heads the repeat copies v and the fused output is freed.
 */
export function litgptQkv(bc: BlockContext, h1: Tensor): { q: Tensor; k: Tensor; v: Tensor } {
  const { p, tape, T, qd, kvd } = bc;
  const widths = [qd, kvd, kvd];
  const width = qd + 2 * kvd;
  const separate = separateParts(bc);
  const name = separate ? PARTS[0] : fusedName(bc)!;
  // One weight of the three projections' elements: its dtype, and a 4-bit weight's dequantized copy, the fused one's.
  const elems = separate ? PARTS.reduce((sum, part) => sum + weight(bc, part).elems, 0) : undefined;
  const fused: Weight = { ...weight(bc, name, elems), what: 'attn.qkv' };
  const base = tape.linear(h1, fused, width, 'qkv output');
  // bitsandbytes before 0.43.2 keeps the fused layer's input as a ctx attribute (linear.ts adaptedLinear).
  if (p.bnbKeepsInput && h1.rg && !fused.trainable) tape.holdInContext(h1);
  const enabled = separate ? PARTS.map((name) => p.lora?.targets.has(name) === true) : fusedParts(bc);
  const qkv = p.lora && enabled.some(Boolean) ? withAdapter(bc, h1, base, { enabled, widths }) : base;
  return {
    q: tape.view(qkv, 'q (view of qkv)', T * qd),
    k: tape.view(qkv, 'k (view of qkv)', T * kvd),
    v: tape.view(qkv, 'v (view of qkv)', T * kvd),
  };
}

/** q, k and v adapted over a fused layer: the parts the switches name (lora.qkv_parts), else all three. */
function fusedParts(bc: BlockContext): boolean[] {
  const lora = bc.p.lora;
  if (!lora?.targets.has(fusedName(bc)!)) return [false, false, false];
  const on = lora.qkvParts ?? ['q', 'k', 'v'];
  return (['q', 'k', 'v'] as const).map((part) => on.includes(part));
}

/**
 * LitGPT's parallel-residual block (`x = mlp(norm_2(x)) + attn(norm_1(x)) + x`; Phi and Falcon-7B share norm_1, so
 * `h1` feeds both): its attention (litgptQkv, q and k rebuilt by torch.cat, v a view of the fused output), the output
 * projection, and GptNeoxMLP (fc, gelu, proj). The attention's output is held until the sum.
 */
export function litgptParallelBlock(bc: BlockContext, h1: Tensor, shared: boolean): Tensor {
  const { p, a, tape, T, tp, Tsp, qd, kvd, x0, linear } = bc;
  const { q, k, v } = litgptQkv(bc, h1);
  const att = attentionCore(
    bc,
    tape.free(q, 'q (rotated part and pass-through, cat)', T * qd),
    tape.free(k, 'k (rotated part and pass-through, cat)', T * kvd),
    v,
    { causalRepeat: true, softmaxFp32: true, dropout: a.attentionDropout },
  );
  const o = linear(litgptHeadsJoined(bc, att), 'dense', a.hidden, 'dense output');
  const [fc, proj] = a.family === 'phi' ? ['fc1', 'fc2'] : ['dense_h_to_4h', 'dense_4h_to_h'];
  const h2 = shared ? h1 : tape.layerNorm(x0, Tsp, p.normsTrainable, 'norm_2');
  const up = linear(h2, fc, a.ffn / tp, 'mlp up output');
  const out = linear(tape.unarySavesInput(up, 'gelu output'), proj, a.hidden, 'mlp down output');
  tape.use(o);
  return out;
}

/**
 * `y.transpose(1, 2).reshape(B, T, C)` over SDPA's output: the flash kernel writes its output in q's layout, and
 * LitGPT's q (made by torch.cat) is (b, heads, s, d) in memory, so the reshape copies it (transformers' q, a transposed
 * view of the projection, gives a (b, s, heads, d) output that the reshape only views). Eager attention (soft-capped
 * scores) makes its copy itself.
 */
export function litgptHeadsJoined(bc: BlockContext, att: Tensor): Tensor {
  return bc.p.attention === 'eager' ? att : bc.tape.free(att, 'attention output, heads joined (reshape copy)');
}

/** Which parts of the fused projection LoRA adapts, and each part's width on this rank. */
interface QkvAdapter {
  readonly enabled: readonly boolean[];
  readonly widths: readonly number[];
}

/**
 * `pretrained + zero_pad(lora_B(lora_A(dropout(x)))) * scaling`: the adapter's weights are the model's dtype (LitGPT
 * casts nothing). lora_A spans every switched-on part (r rows each) and lora_B maps each part's r rows to its width
 * (a grouped conv1d). zero_pad writes that output into a zero tensor of the fused width with index_copy_, whose
 * backward keeps its source; with q, k and v all switched on it returns the output as it is.
 */
function withAdapter(bc: BlockContext, x: Tensor, base: Tensor, adapter: QkvAdapter): Tensor {
  const { p, a, tape, T } = bc;
  const lora = p.lora!;
  const parts = adapter.enabled.filter(Boolean).length;
  const width = adapter.widths.reduce((sum, w) => sum + w, 0);
  const dropped = tape.dropout(x, lora.dropout, 'qkv LoRA dropout');
  const A: Weight = {
    what: 'qkv.lora_A',
    elems: a.hidden * lora.r * parts,
    trainable: true,
    bytesPerElem: lora.dtypeBytes,
  };
  const afterA = tape.linear(dropped, A, lora.r * parts, 'qkv lora_A output');
  const afterB = groupedLoraB(bc, afterA, adapter);
  tape.noteLoraInput(dropped);
  let update = afterB;
  if (parts < 3) {
    tape.save(afterB);
    tape.use(afterB);
    update = tape.tensor('qkv LoRA update zero-padded (index_copy_)', T * width, afterB.bytesPerElem, true);
  }
  const scaled = tape.free(update, 'qkv LoRA update x scaling');
  tape.use(base);
  const sum = tape.free(scaled, 'qkv output + LoRA', T * width, Math.max(base.bytesPerElem, scaled.bytesPerElem));
  tape.keepThrough(x);
  return tape.to(sum, base.bytesPerElem, 'qkv output (+LoRA)');
}

/**
 * lora_B as LoRAQKVLinear.conv1d runs it: each switched-on part's r rows of lora_A's output to that part's width. With
 * as many key-value heads as query heads one grouped F.conv1d makes the whole output; otherwise each part's conv1d
 * makes its own and torch.cat joins them. A conv1d keeps its input (a view of lora_A's output) and its weight.
 */
function groupedLoraB(bc: BlockContext, afterA: Tensor, adapter: QkvAdapter): Tensor {
  const { tape, T, heads, kvHeads } = bc;
  const lora = bc.p.lora!;
  const widths = adapter.widths.filter((_, i) => adapter.enabled[i]);
  const conv = (width: number, what: string): Tensor => {
    const rows = tape.view(afterA, `${what} input (view of lora_A output)`, T * lora.r);
    const B: Weight = { what: 'qkv.lora_B', elems: lora.r * width, trainable: true, bytesPerElem: lora.dtypeBytes };
    return tape.linear(rows, B, width, what);
  };
  const total = widths.reduce((sum, w) => sum + w, 0);
  if (widths.length === 1 || heads === kvHeads) return conv(total, 'qkv lora_B output (grouped conv1d)');
  const outputs = widths.map((width, i) => conv(width, `qkv lora_B output, part ${i + 1} (conv1d)`));
  tape.use(...outputs);
  return tape.tensor('qkv lora_B output (cat of the parts)', T * total, outputs[0].bytesPerElem, true);
}

/**
 * LitGPT over a fused q/k/v layer: the parts its switches adapt, as the setup says them (lora.qkv_parts, from LitGPT's
 * files) or as a role list names them (q_proj, v_proj): the LoRA plan's qkvParts.
 */
export function litgptQkvPlan(setup: TrainingSetup, mods: readonly LinearModule[]): Pick<LoraPlan, 'qkvParts'> {
  const lora = setup.lora;
  if (setup.model_code !== 'litgpt' || !lora) return {};
  const parts = litgptAdaptedParts(lora, mods);
  return parts ? { qkvParts: parts } : {};
}
