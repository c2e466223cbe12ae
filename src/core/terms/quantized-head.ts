// A 4-bit output head and the dequantized copies of 4-bit weights. Lightning Fabric's BitsandbytesPrecision (LitGPT's
// `quantize: bnb.nf4`) replaces every nn.Linear with a bitsandbytes Linear4bit, lm_head included
// (lightning/fabric/plugins/precision/bitsandbytes.py module_init_context: _ClassReplacementContextManager
// {"torch.nn.Linear": ...}), and quantizes from fp16 (`_Linear4bit.quantize`: weight.to(dtype=torch.half)), so its
// QuantState dequantizes to fp16. bitsandbytes' MatMul4Bit then computes
// `F.linear(A, dequantize_4bit(B, quant_state).to(A.dtype).t())` in the forward and the same product for the input's
// gradient in the backward (bitsandbytes/autograd/_functions.py): under bf16 compute the fp16 weight and its bf16 copy
// coexist while the copy is made. For the head that is a vocab x hidden matrix, dequantized for every chunk of the
// head's matmul (LitGPT runs it in chunks of 128 positions), once at the end of the forward and once more at the start
// of the backward, beside the logits. Pure arithmetic; no I/O.
import type { Component } from '../model';
import type { TrainingSetup } from '../setup';
import type { Architecture } from '../architecture/types';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

const DTYPE_BYTES = { fp16: 2, bf16: 2, fp32: 4 } as const;

/** The dtype the matmuls compute in: the autocast dtype, else the weights'. */
function computeDtype(setup: Pick<TrainingSetup, 'weights_dtype' | 'mixed_precision'>): string {
  return setup.mixed_precision !== 'none' ? setup.mixed_precision : setup.weights_dtype;
}

/**
 * Bytes per element of a 4-bit weight dequantized for its matmul: the compute dtype, plus the dequantized dtype while
 * it is copied to the compute dtype when the two differ (Fabric's fp16 QuantState under bf16 compute: 2 + 2 B).
 */
export function dequantBytesPerElement(
  setup: Pick<TrainingSetup, 'quantization' | 'weights_dtype' | 'mixed_precision'>,
  computeBytes: number,
): number {
  const dq = setup.quantization?.dequant_dtype;
  return dq !== undefined && dq !== computeDtype(setup) ? computeBytes + DTYPE_BYTES[dq] : computeBytes;
}

/** The output head is a 4-bit linear (bitsandbytes only; a tied head is the embedding's weight, never quantized). */
export function quantizedHead(setup: Pick<TrainingSetup, 'quantization'>, a: Architecture): boolean {
  const q = setup.quantization;
  return q?.head === true && q.bits === 4 && q.library !== 'torchao' && !a.tied;
}

/** The head's dequantized weight while one chunk's matmul runs (forward and backward), on the loss's stage. */
export function headDequant(ctx: EstimateContext, st: StageContext): Component[] {
  const { setup } = ctx;
  const { arch: a, lmHead } = ctx.model;
  if (!st.last || !lmHead || !quantizedHead(setup, a)) return [];
  const tp = ctx.layout.tensorParallel;
  const per = dequantBytesPerElement(setup, ctx.dtypes.computeBytes);
  const elements = (a.vocab * a.hidden) / tp;
  const dq = setup.quantization?.dequant_dtype;
  return [
    comp(
      ctx,
      'backward-working',
      'Dequantized 4-bit output head (one chunk at a time)',
      elements * per,
      () =>
        `V x h${tp > 1 ? ' / TP' : ''} = ${formatCount(elements)} x ${per} B` +
        (per > ctx.dtypes.computeBytes
          ? ` (dequantized to ${dq}, then copied to ${computeDtype(setup)} for the matmul)`
          : ' (dequantized for the matmul)'),
      () => ({ vocab: a.vocab, hidden: a.hidden, bytesPerElement: per }),
    ),
  ];
}
