// Term: the layer inputs FSDP1's reshard hooks keep through the backward (src/core/terms/fsdp1-frozen-inputs.ts), with
// numbers worked out by hand, and fms-acceleration's published peak of the same run (foundation-model-stack/
// fms-acceleration@24bdadb scripts/benchmarks/refs/a100_80gb.csv: torch 2.4.1, transformers 4.48.1, PEFT 0.13.2).
import * as assert from 'node:assert/strict';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { keepsFrozenUnitInputs } from '../../../src/core/terms/fsdp1-frozen-inputs';
import { phase, run, setupFor } from '../helpers';

/** fms-acceleration's Mistral-7B LoRA under FSDP1 on 2 A100s: r16 on q/k/v/o, fp32 adapters, 2 x 4,096 tokens. */
const FMS: Partial<TrainingSetupInput> = {
  method: 'lora',
  lora: { r: 16, alpha: 16, dropout: 0.1, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'], dtype: 'fp32' },
  weights_dtype: 'bf16',
  micro_batch_size: 2,
  seq_len: 4096,
  gradient_checkpointing: 'full',
  attention: 'flash',
  fsdp: 'full_shard',
  fsdp_version: 1,
  fsdp_use_orig_params: true,
  fsdp_backward_prefetch: 'pre',
  gpus_per_node: 2,
  transformers_version: '4.48',
  pytorch_version: '2.4',
};
const setup = (extra: Partial<TrainingSetupInput> = {}) => setupFor('mistralai/Mistral-7B-v0.1', { ...FMS, ...extra });
const kept = (extra: Partial<TrainingSetupInput> = {}): number =>
  phase(run(setup(extra)), 'backward')
    .components.filter((c) => c.label.startsWith('Layer inputs and their gradients kept'))
    .reduce((s, c) => s + c.bytes, 0);

describe("estimate: the layer inputs FSDP1's reshard hooks keep (reentrant checkpointing around frozen units)", () => {
  it("keeps the other 31 layers' inputs and their gradients at the first layer's backward", () => {
    // 2 x 31 layers x 8,192 tokens x 4,096 x 2 B = 4,160,749,568 B.
    assert.equal(kept(), 2 * 31 * 8192 * 4096 * 2);
    const e = run(setup());
    assert.equal(e.perGpu.phase, 'backward');
    // fms-acceleration's row: mem_peak_torch_mem_alloc_in_bytes 15,144,870,400 (torch.cuda.max_memory_allocated).
    const err = e.perGpu.peakBytes / 15_144_870_400 - 1;
    assert.ok(Math.abs(err) < 0.03, `${(100 * err).toFixed(1)} %`);
  });

  it('not where nothing reruns an FSDP hook on a detached input', () => {
    // transformers 4.52 checkpoints inside the layer (GradientCheckpointingLayer), the non-reentrant form detaches
    // nothing, a checkpoint_wrapper sits inside the unit, and adapters inside the layer's unit make it require grad.
    for (const extra of [
      { transformers_version: '4.52' },
      { checkpoint_reentrant: false },
      { checkpoint_wrapper: true },
      { fsdp_adapters_wrapped: false },
      { fsdp_version: 2 as const },
      { pytorch_version: '2.0' },
    ]) {
      assert.equal(keepsFrozenUnitInputs(setup(extra)), false, JSON.stringify(extra));
      assert.equal(kept(extra), 0, JSON.stringify(extra));
    }
    // Unset, transformers' reentrant default before 5.0 stands (kept-inputs.ts checkpointReentrant).
    assert.equal(keepsFrozenUnitInputs(setup()), true);
  });
});
