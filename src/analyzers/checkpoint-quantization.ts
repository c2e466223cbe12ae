// Reads the quantization_config of a checkpoint's config.json (bitsandbytes, GPTQ, AWQ) into the TrainingSetup
// quantization vocabulary: a pre-quantized upload (unsloth/*-bnb-4bit, *-GPTQ, *-AWQ) is stored in 4 or 8 bits
// whatever the training script says. Pure.
import type { HfConfig, Quantization } from '../core';

/** Base-weight quantization in the TrainingSetup vocabulary (see QuantizationSchema in src/core/setup.ts). */
export type QuantizationInfo = Pick<Quantization, 'bits' | 'type' | 'double_quant' | 'block_size'>;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function quantConfigOf(config: HfConfig): Obj | undefined {
  if (isObj(config.quantization_config)) return config.quantization_config;
  const text = config.text_config;
  return isObj(text) && isObj(text.quantization_config) ? text.quantization_config : undefined;
}

/** The quant_method of a quantization_config; old bitsandbytes configs only carry load_in_4bit / load_in_8bit. */
export function quantMethodOf(qc: Obj): string | undefined {
  const m = str(qc.quant_method)?.toLowerCase();
  if (m) return m;
  if (qc.load_in_4bit === true || qc._load_in_4bit === true || qc.load_in_8bit === true || qc._load_in_8bit === true)
    return 'bitsandbytes';
  return undefined;
}

/**
 * Reads quantization_config (bitsandbytes, GPTQ, AWQ) into the TrainingSetup quantization vocabulary.
 * Returns undefined when the config has none, or uses a method or bit width the estimator does not model.
 * bitsandbytes 4-bit quantizes in blocks of 64 weights; transformers' default 4-bit type is fp4.
 */
export function quantizationFromConfig(config: HfConfig): QuantizationInfo | undefined {
  const qc = quantConfigOf(config);
  if (!qc) return undefined;
  const method = quantMethodOf(qc);
  switch (method) {
    case 'bitsandbytes': {
      if (qc.load_in_4bit === true || qc._load_in_4bit === true) {
        const type = str(qc.bnb_4bit_quant_type)?.toLowerCase() === 'nf4' ? 'nf4' : 'fp4';
        return { bits: 4, type, double_quant: qc.bnb_4bit_use_double_quant === true, block_size: 64 };
      }
      if (qc.load_in_8bit === true || qc._load_in_8bit === true) return { bits: 8, type: 'int8', double_quant: false };
      return undefined;
    }
    case 'gptq':
    case 'awq': {
      // AutoAWQ's own configs spell the fields w_bit and q_group_size.
      const bits = num(qc.bits) ?? num(qc.w_bit);
      const group = num(qc.group_size) ?? num(qc.q_group_size);
      if (bits !== 4 && bits !== 8) return undefined;
      return {
        bits,
        type: method,
        double_quant: false,
        block_size: group !== undefined && group > 0 ? group : undefined,
      };
    }
    default:
      return undefined;
  }
}
