// Term: a quantized weight dequantized for its matmul, one linear at a time (src/core/terms/activations/dequant.ts),
// against sizes worked out by hand from the libraries' code; each test names its source.
import * as assert from 'node:assert/strict';
import type { Phase } from '../../../src/core/model';
import { phase, run, setupFor } from '../helpers';

describe('dequantized base weights: bitsandbytes', () => {
  it('QLoRA: the largest 4-bit weight is dequantized whole for its matmul (Llama-2-70B MLP 28672 x 8192 x 2 B = 469,762,048 B)', () => {
    // bitsandbytes MatMul4Bit.forward: F.linear(A, dequantize_4bit(B).to(A.dtype).t()); backward the same for grad_A.
    const e = run(
      setupFor('meta-llama/Llama-2-70b-hf', {
        method: 'qlora',
        weights_dtype: 'bf16',
        quantization: { bits: 4 },
        gradient_checkpointing: 'full',
        seq_len: 128,
      }),
    );
    const bwd = phase(e, 'backward');
    const dq = bwd.components.find((c) => c.label.startsWith('Dequantized base weight'));
    assert.equal(dq?.bytes, 28672 * 8192 * 2);
    assert.match(bwd.note, /layer/);
  });
});

describe('dequantized base weights: GPTQ (auto-gptq qlinear_cuda_old.py)', () => {
  // Llama-2-70B GPTQ, LoRA, not checkpointed: the largest weight (MLP, 28,672 x 8,192) is unpacked to int32 and int8
  // (int16 for 8-bit codes) at once in the forward; the backward reads the fp16 weights the forward's matmuls kept and
  // unpacks nothing.
  const dequantOf = (bits: 4 | 8) => {
    const e = run(
      setupFor('meta-llama/Llama-2-70b-hf', {
        method: 'qlora',
        weights_dtype: 'fp16',
        quantization: { bits, type: 'gptq' },
        gradient_checkpointing: 'none',
        seq_len: 128,
      }),
    );
    return (name: Phase) => phase(e, name).components.find((c) => c.label.startsWith('Dequantized base weight'));
  };
  const dequant = dequantOf(4);

  it('forward: 28,672 x 8,192 x (4 + 1) B = 1,174,405,120 B of codes', () => {
    assert.equal(dequant('forward')?.bytes, 28672 * 8192 * 5);
    assert.match(dequant('forward')?.formula ?? '', /int32, then int8/);
  });

  it('backward: nothing dequantized again', () => {
    assert.equal(dequant('backward'), undefined);
  });

  it('8-bit codes unpack to int16: 28,672 x 8,192 x (4 + 2) B = 1,409,286,144 B', () => {
    const c = dequantOf(8)('forward');
    assert.equal(c?.bytes, 1_409_286_144);
    assert.match(c?.formula ?? '', /int16/);
  });
});
