// LitGPT's own attention (litgpt/model.py CausalSelfAttention, litgpt/lora.py LoRAQKVLinear), for models with separate
// q, k and v projections in transformers: one fused `attn.qkv` linear whose output q, k and v are views of, a LoRA branch
// over the switched-on parts of it (one dropout, one lora_A, a grouped lora_B, zero-padded back to the fused width),
// the rotated q and k rebuilt by torch.cat, and the key and value heads repeated to every query head in training.
// Sources: Lightning-AI/litgpt model.py and lora.py (0.5.13; the same at 8641822, October 2023). Pure; no I/O.
// Docs: docs/estimate/activations.md
import type { Tensor, Weight } from '../saved-tensors';
import type { BlockContext } from './block';
import { weight } from './linear';

/** The three projections LitGPT fuses, with their transformers names, in the order of the fused output. */
const PARTS = ['q_proj', 'k_proj', 'v_proj'] as const;

/** Whether LitGPT's CausalSelfAttention replaces this block's attention (a model with separate q, k and v modules). */
export function litgptAttention(bc: BlockContext): boolean {
  return bc.p.litgptModel === true && PARTS.every((name) => bc.mods.has(name));
}

/**
 * `qkv = self.qkv(x)` and its LoRA branch (LoRAQKVLinear.forward): q, k and v as views of the fused output. The
 * attention saves v, a view, so a multi-head model keeps the whole fused output (3 x T x h) where transformers keeps
 * v_proj's; with grouped key-value heads the repeat copies v and the fused output is freed.
 */
export function litgptQkv(bc: BlockContext, h1: Tensor): { q: Tensor; k: Tensor; v: Tensor } {
  const { p, tape, T, qd, kvd } = bc;
  const widths = [qd, kvd, kvd];
  const width = qd + 2 * kvd;
  const parts = PARTS.map((name) => weight(bc, name));
  const fused: Weight = { ...parts[0], what: 'attn.qkv', elems: parts.reduce((sum, w) => sum + w.elems, 0) };
  const base = tape.linear(h1, fused, width, 'qkv output');
  // bitsandbytes before 0.43.2 keeps the fused layer's input as a ctx attribute (linear.ts adaptedLinear).
  if (p.bnbKeepsInput && h1.rg && !fused.trainable) tape.holdInContext(h1);
  const enabled = PARTS.map((name) => p.lora?.targets.has(name) === true);
  const qkv = p.lora && enabled.some(Boolean) ? withAdapter(bc, h1, base, { enabled, widths }) : base;
  return {
    q: tape.view(qkv, 'q (view of qkv)', T * qd),
    k: tape.view(qkv, 'k (view of qkv)', T * kvd),
    v: tape.view(qkv, 'v (view of qkv)', T * kvd),
  };
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
