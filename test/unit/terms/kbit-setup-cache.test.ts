// What prepare_model_for_kbit_training's casts leave reserved (src/core/terms/kbit-setup-cache.ts), worked by hand on
// Llama-2-7B QLoRA: its embeddings and untied head are 2 x 32,000 x 4,096 = 262,144,000 parameters. TRL's SFTTrainer of
// 0.24 (trl@v0.24.0 trl/models/utils.py prepare_peft_model) prepares the model, then casts the embeddings and the head
// back to bf16 (peft_module_casting_to_bf16): the fp32 copies, 4 B each, stay cached. Without the cast back, the 16-bit
// originals do. Published: TRL's sft_trl_lora_qlora notebook (trl@f6834206a, Qwen3-14B on a T4) prints 12.074 GB
// reserved once the trainer is made, the weights (9.2 GiB) and about 2.8 GiB more.
import * as assert from 'node:assert/strict';
import type { Estimate } from '../../../src/core/model';
import { run } from '../helpers';
import { llama2Qlora, runtimeBytes } from './helpers';
import { findGpu } from '../../../src/core/lookup';
import type { TrainingSetupInput } from '../../../src/core/setup';

const EMBEDDING_AND_HEAD = 262_144_000;

/** Checkpointed, 1 x 256 tokens: a step whose tensors are far below the cached copies. */
const short = (extra: Partial<TrainingSetupInput>) =>
  run(llama2Qlora({ gradient_checkpointing: 'full', seq_len: 256, ...extra }));

/**
 * The model's tensors at the step's peak: the loaded and cast parameters, the 4-bit storage and the LoRA adapters,
 * which get_peft_model adds before TRL's cast back (trl@v0.24.0 prepare_peft_model).
 */
function weights(e: Estimate): number {
  const peak = e.perGpu.phases.find((p) => p.phase === e.perGpu.phase)!;
  return peak.components
    .filter((c) => c.id === 'weights' || c.id === 'quantization-constants' || c.id === 'adapter-weights')
    .reduce((s, c) => s + c.bytes, 0);
}

describe('kbit-setup-cache', () => {
  it("cast back to bf16 (TRL before 0.26): the weights + 262,144,000 x 4 B of fp32 copies, above the step's level", () => {
    const e = short({ kbit_upcast: 'norms', kbit_cast_back: true });
    assert.ok(runtimeBytes(e, 'kbit-setup-cache')! > 0);
    assert.equal(e.perGpu.reservedBytes, weights(e) + EMBEDDING_AND_HEAD * 4);
  });

  it('kept in fp32 (prepare_model_for_kbit_training alone): their bf16 originals, 262,144,000 x 2 B', () => {
    const e = short({ kbit_upcast: 'all' });
    assert.equal(e.perGpu.reservedBytes, weights(e) + EMBEDDING_AND_HEAD * 2);
  });

  it('none where only the norms were cast (LLaMA-Factory upcast_layernorm), nor without the upcast', () => {
    assert.equal(runtimeBytes(short({ kbit_upcast: 'norms' }), 'kbit-setup-cache'), undefined);
    assert.equal(runtimeBytes(short({ kbit_upcast: 'none' }), 'kbit-setup-cache'), undefined);
  });

  it("none where the step's own level is higher: 8 x 2,048 tokens fill the cached blocks", () => {
    const e = run(llama2Qlora({ kbit_upcast: 'norms', kbit_cast_back: true, micro_batch_size: 8, seq_len: 2048 }));
    assert.ok(e.perGpu.reservedBytes > weights(e) + EMBEDDING_AND_HEAD * 4);
    assert.equal(runtimeBytes(e, 'kbit-setup-cache'), undefined);
  });

  it('bounded by the GPU: the allocator frees wholly free segments before it reports out of memory', () => {
    // 4.17 GB of weights + 1.05 GB of copies on a 5 GiB card beside an 805,306,368 B CUDA context: the level stops at
    // the 5,368,709,120 B the card holds less the context and the default headroom.
    const gpu = findGpu('5 GB');
    assert.ok(gpu.ok);
    const e = run(
      llama2Qlora({ gradient_checkpointing: 'full', seq_len: 256, kbit_upcast: 'norms', kbit_cast_back: true }),
      {
        gpu: gpu.gpu,
      },
    );
    const outside = e.perGpu.deviceBytes - e.perGpu.reservedBytes;
    assert.ok(weights(e) + EMBEDDING_AND_HEAD * 4 + outside > 5 * 2 ** 30);
    assert.ok(e.perGpu.deviceBytes <= 5 * 2 ** 30, `${e.perGpu.deviceBytes}`);
    assert.equal(e.fits, true);
    // A paged optimizer's working state keeps its room beside the cached blocks (TRL's notebook: paged_adamw_8bit).
    const paged = run(
      llama2Qlora({
        gradient_checkpointing: 'full',
        seq_len: 256,
        kbit_upcast: 'norms',
        kbit_cast_back: true,
        optimizer: 'paged_adamw_8bit',
      }),
      { gpu: gpu.gpu },
    );
    assert.equal(paged.fits, true);
  });
});
