// Term: a quantized base weight dequantized for its matmul, one linear at a time: how the block's tape makes the copy
// (ActivationPlan.dequantBytes, dequantViaBytes, nestedAbsmax, gptqCodeBytes) and the working set the stage counts
// beside a layer where the tape does not hold it (bitsandbytes' MatMul4Bit dequantizes again in its backward; a GPTQ
// weight's codes unpacked in the forward), or DoRA's weight norm where that is larger. Sources: bitsandbytes
// backends/cuda/ops.py, auto-gptq nn_modules/qlinear/qlinear_cuda_old.py, peft/tuners/lora/dora.py. Pure arithmetic.
// Docs: docs/estimate/weights-and-quantization.md
import type { Component } from '../../model';
import { comp } from '../../estimate/component';
import type { EstimateContext, StageContext } from '../../estimate/context';
import { formatBytes, formatCount } from '../../units';
import { dequantBytesPerElement } from '../quantized-head';
import { bitsandbytes4bit } from '../quantization';
import type { ActivationPlan } from './plan';

/** A GPTQ weight's dequantized dtype, the fp16 of its scales (activations/linear.ts gptqTemporaries). */
const GPTQ_DEQUANT_BYTES = 2;
/** Bytes per GPTQ code unpacked to a whole integer: int8, int16 for 8-bit codes (qlinear_cuda_old.py). */
function gptqCodeBytes(bits: number): number {
  return bits === 8 ? 2 : 1;
}

/** The integer dtype GPTQ codes are unpacked to, by its bytes. */
export function gptqCodeDtype(codeBytes: number): string {
  return codeBytes === 2 ? 'int16' : 'int8';
}

/** How a quantized base weight is dequantized for each matmul (ActivationPlan.dequantBytes and its neighbours). */
export function dequantPlan(
  setup: EstimateContext['effectiveSetup'],
  computeBytes: number,
): Pick<ActivationPlan, 'dequantBytes' | 'dequantViaBytes' | 'nestedAbsmax' | 'gptqCodeBytes'> {
  const q = setup.quantization;
  // auto-gptq dequantizes to its fp16 scales' dtype, whatever the compute dtype (activations/linear.ts gptqTemporaries).
  if (q?.type === 'gptq') return { dequantBytes: GPTQ_DEQUANT_BYTES, gptqCodeBytes: gptqCodeBytes(q.bits) };
  // The compute dtype's copy, after one in the QuantState's dtype where that differs (dequantBytesPerElement: both).
  const viaBytes = dequantBytesPerElement(setup, computeBytes) - computeBytes;
  return {
    dequantBytes: computeBytes,
    ...(viaBytes > 0 ? { dequantViaBytes: viaBytes } : {}),
    ...(q && bitsandbytes4bit(q) && q.double_quant ? { nestedAbsmax: true } : {}),
  };
}

/**
 * The working set of one linear at a time: a 4/8-bit weight dequantized for its matmul, or DoRA's weight norm,
 * in the forward and (with checkpointing recomputing the forward) in the backward. `backwardWorkingBytes`: a layer's
 * backward working set, which DoRA's recomputed weight norm precedes.
 */
export function dequantWorkingSets(
  ctx: EstimateContext,
  st: StageContext,
  backwardWorkingBytes: number,
  inSequence = false,
): { dequantFwdC: Component[]; dequantC: Component[]; dequantFwdBytes: number; dequantBytes: number } {
  const setup = ctx.setup;
  const { modules: mods, inventory: inv } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  const { computeBytes: cb, adapterBytes } = ctx.dtypes;
  const { peft, lora, targets } = ctx.methods;
  const quantHere = st.quantizedHere;
  const ck = setup.gradient_checkpointing;
  // 4-bit / 8-bit base weights are dequantized whole for each matmul, forward and backward (bitsandbytes
  // MatMul4Bit: F.linear(A, dequantize_4bit(B)); torchao linear_nf4: weight.to(input.dtype)): one weight at a time.
  // Fabric's fp16 QuantState under bf16 compute: the fp16 weight and its bf16 copy (quantized-head.ts).
  // Under full checkpointing the layer's forward sequence makes each copy where its matmul runs (activations/linear.ts
  // dequantTemporaries), so the first forward's and the recompute's high points hold it: only the backward's own
  // matmuls (MatMul4Bit.backward dequantizes again) count it here. CPU truth with bitsandbytes' own code: qlora/*-wide-*.
  // A GPTQ weight is dequantized through an int32 and an int8 (int16) copy of its codes, alive at once, then its fp16
  // value; its backward reads the fp16 weight the forward's matmul kept, and dequantizes nothing.
  const q = setup.quantization;
  const gptq = q?.type === 'gptq';
  const code = gptq ? gptqCodeBytes(q.bits) : 0;
  const dqb = gptq ? 4 + code : dequantBytesPerElement(setup, cb);
  const largestDequant = quantHere > 0 ? (inv.largestQuantized / tp) * dqb : 0;
  const quantDequant = gptq ? 0 : largestDequant;
  const quantForward = inSequence ? 0 : largestDequant;
  // DoRA recomputes each target's weight norm in every forward (peft/tuners/lora/dora.py get_weight_norm, without grad):
  // an identity of in x in features through lora_A and lora_B (the LoRA product, in x out), the base weight in the
  // input's dtype and their sum, in the adapter dtype, one target at a time. The backward does not, unless
  // checkpointing recomputes the forward.
  // Under full checkpointing the layer's forward sequence replays the norm where it runs (activations/linear.ts
  // doraWeightNorm): its first forward's and its recompute's high points hold it, and no separate term is needed.
  let doraBytes = 0;
  let doraModule = '';
  if (peft && lora?.use_dora && !inSequence) {
    for (const m of mods) {
      if (!targets.has(m.name)) continue;
      const bytes = ((m.inFeatures * m.inFeatures + 3 * m.inFeatures * m.outFeatures) / tp) * adapterBytes;
      if (bytes > doraBytes) [doraBytes, doraModule] = [bytes, m.name];
    }
  }
  // Written only where the estimate shows its formulas (not in the advice search's lean estimates).
  const doraFormula = (): string =>
    `${doraModule}: (in² + 3 x in x out) x ${adapterBytes} B: identity, LoRA product, base weight in the input's dtype and their sum`;
  // The larger of the two working sets, under its own name: DoRA's norm when it passes the dequantized weight.
  const moduleComp = (bytes: number, quant: number, doraLabel: string, doraText: () => string): Component[] => {
    if (bytes <= 0 || ctx.lean) return [];
    if (bytes > quant)
      return [comp(ctx, 'backward-working', doraLabel, bytes, doraText, () => ({ module: doraModule }))];
    return [
      comp(
        ctx,
        'backward-working',
        'Dequantized base weight (one linear at a time)',
        bytes,
        () =>
          gptq
            ? `largest GPTQ weight ${formatCount(inv.largestQuantized / tp)} x (4 + ${code}) B: its codes unpacked to ` +
              `int32, then ${gptqCodeDtype(code)}, to be dequantized for its matmul`
            : `largest quantized weight ${formatCount(inv.largestQuantized / tp)} x ${dqb} B, dequantized for its matmul`,
        () => ({ elements: inv.largestQuantized / tp }),
      ),
    ];
  };
  const dequantFwdBytes = Math.max(quantForward, doraBytes);
  // Under checkpointing the recompute runs each target's weight norm again before the layer's backward starts: its
  // temporaries and the backward's working set are not alive together, so the backward counts what the norm needs
  // beyond that working set (peft/tuners/lora/dora.py; CPU truth peft/*-dora-all-*fp32-ckpt).
  const doraRecomputed = ck !== 'none' ? Math.max(0, doraBytes - backwardWorkingBytes) : 0;
  const dequantBytes = Math.max(quantDequant, doraRecomputed);
  const dequantFwdC = moduleComp(dequantFwdBytes, quantForward, 'DoRA weight norm (one target at a time)', doraFormula);
  const dequantC = moduleComp(
    dequantBytes,
    quantDequant,
    "DoRA weight norm in the recompute, beyond the layer's backward working set",
    () =>
      `${doraModule}: ${formatBytes(doraBytes)} (${doraFormula()}), run before the layer's backward, ` +
      `less its working set ${formatBytes(backwardWorkingBytes)}`,
  );
  return { dequantFwdC, dequantC, dequantFwdBytes, dequantBytes };
}
