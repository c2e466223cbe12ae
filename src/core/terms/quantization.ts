// Term: 4/8-bit base weights. Bytes per parameter with the quantization constants:
//   NF4/FP4 (bitsandbytes, torchao):  0.5 B + 4 B fp32 absmax / block (64)
//   double quant (QLoRA paper, §2):    0.5 B + 1 B / block + 4 B / (block x 256)
//   GPTQ / AWQ:                       0.5 B + (2 B scale + 0.5 B zero) / group (128)
//   LLM.int8 (bitsandbytes 8-bit):    1 B (+ fp32 row scales)
//   torchao < 0.2 NF4:                0.5 B + 1 B int8 scale / 64 + 2 B realized bf16 factor / 64 (terms/nf4-load.ts)
// Docs: docs/estimate/weights-and-quantization.md. Pure arithmetic; no I/O.
import type { TrainingSetup } from '../setup';
import { oldTorchaoNf4Bytes } from './nf4-load';
import { olderThan } from '../util/version';

/** torchao NF4 before 0.2: whole-tensor quantization temporaries and a realized scale factor (terms/nf4-load.ts). */
function oldTorchao(q: NonNullable<TrainingSetup['quantization']>, torchaoVersion: string | undefined): boolean {
  return q.bits === 4 && q.type === 'nf4' && olderThan(torchaoVersion, 0, 2);
}

/** Whether the setup's NF4 weights are quantized by a torchao release before 0.2 (a load phase; advice: upgrade). */
export function quantizesWholeAtLoad(setup: TrainingSetup): boolean {
  return setup.quantization !== undefined && oldTorchao(setup.quantization, setup.torchao_version);
}

/**
 * Bytes per parameter of a bitsandbytes 4-bit weight's constants when its parameter is sharded (ZeRO-3, FSDP): the
 * QuantState (absmax, nested absmax and code) lives on the Linear4bit module, not in the parameter, so each GPU keeps
 * them whole while only the packed codes are sharded, gathered and offloaded. bitsandbytes nn/modules.py
 * fix_4bit_weight_quant_state_from_module: "the quant state got lost when the parameter got converted. This happens
 * for example for fsdp", and Params4bit.to moves the QuantState with the module. 0 for other quantizations.
 */
export function unshardedConstantsPerParam(q: NonNullable<TrainingSetup['quantization']>): number {
  return bitsandbytes4bit(q) ? quantBytesPerParam(q, undefined).bytes - 0.5 : 0;
}

/** A bitsandbytes 4-bit weight (NF4 / FP4 Params4bit with its QuantState), not torchao's NF4Tensor or GPTQ / AWQ. */
export function bitsandbytes4bit(q: NonNullable<TrainingSetup['quantization']>): boolean {
  return q.bits === 4 && (q.type === 'nf4' || q.type === 'fp4') && q.library !== 'torchao';
}

/** bytes per parameter of 4/8-bit weights with their quantization constants (bitsandbytes, torchao, GPTQ). */
export function quantBytesPerParam(
  q: NonNullable<TrainingSetup['quantization']>,
  torchaoVersion: string | undefined,
): { bytes: number; formula: string } {
  if (oldTorchao(q, torchaoVersion)) {
    // torchao < 0.2 keeps a view of the realized n/64-element bf16 quantization factor, so its whole storage stays.
    return {
      bytes: oldTorchaoNf4Bytes(1),
      formula: '0.5 B + 1 B int8 scale/64 + 2 B realized bf16 factor/64 (torchao < 0.2)',
    };
  }
  if (q.bits === 8) {
    // LLM.int8: int8 weights + one fp32 scale per output row (negligible per parameter for wide layers).
    return { bytes: 1, formula: '1 B int8 (+ fp32 row scales)' };
  }
  const block = q.block_size ?? (q.type === 'gptq' || q.type === 'awq' ? 128 : 64);
  if (q.type === 'gptq' || q.type === 'awq') {
    // 4-bit packed weights, fp16 scale and packed 4-bit zero per group of `block` inputs.
    return { bytes: 0.5 + 2 / block + 0.5 / block, formula: `0.5 B + (2 B scale + 0.5 B zero)/${block}` };
  }
  if (q.double_quant) {
    // NF4/FP4 with the absmax itself quantized to 8 bits, plus an fp32 constant per 256 blocks (QLoRA paper, §2).
    return {
      bytes: 0.5 + 1 / block + 4 / (block * 256),
      formula: `0.5 B + 1 B/${block} + 4 B/(${block}·256) (double quant)`,
    };
  }
  return { bytes: 0.5 + 4 / block, formula: `0.5 B + 4 B fp32 absmax/${block}` };
}
