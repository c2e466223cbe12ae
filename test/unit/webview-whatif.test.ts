// The panel's what-if (webview-ui/src/whatif.ts): controls -> setup patch -> estimate, without a DOM.
import * as assert from 'node:assert/strict';
import { estimate } from '../../src/core/estimate';
import {
  DEFAULT_LORA,
  DEFAULT_QLORA_QUANT,
  applyChanges,
  applyOverrides,
  controlsFromSetup,
  gpuCountOptions,
  gpuOptions,
  gpuTarget,
  parseCount,
  pruneOverrides,
  recompute,
  whatIfPatch,
  whatIfWrite,
} from '../../webview-ui/src/whatif';
import { setupFor } from './helpers';

const base = () =>
  setupFor('meta-llama/Llama-2-7b-hf', {
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    master_weights: true,
    zero_stage: 2,
    gpus_per_node: 4,
    micro_batch_size: 2,
    seq_len: 2048,
    gpu: 'A100-80GB',
  });

describe('webview what-if', () => {
  it('reads the controls from the setup', () => {
    const c = controlsFromSetup(base(), 'A100-80GB');
    assert.deepEqual(c, {
      gpu: 'A100-80GB',
      gpus: 4,
      micro: 2,
      seq: 2048,
      precision: 'bf16-master',
      checkpointing: 'none',
      sharding: 'zero2',
      offload: 'none',
      optimizer: 'adamw',
      method: 'full',
    });
    // A combination no preset names is shown as "as in file".
    assert.equal(
      controlsFromSetup({ ...base(), weights_dtype: 'fp16', mixed_precision: 'none' }, undefined).precision,
      'file',
    );
    assert.equal(
      controlsFromSetup({ ...base(), offload_params: 'cpu', offload_optimizer: 'none' }, undefined).offload,
      'file',
    );
  });

  it('patches only what was overridden', () => {
    assert.deepEqual(whatIfPatch(base(), {}), {});
    assert.deepEqual(whatIfPatch(base(), { micro: 8, seq: 4096 }), { micro_batch_size: 8, seq_len: 4096 });
    assert.deepEqual(whatIfPatch(base(), { precision: 'amp-bf16' }), {
      weights_dtype: 'fp32',
      mixed_precision: 'bf16',
      master_weights: false,
    });
    assert.deepEqual(whatIfPatch(base(), { precision: 'file' }), {});
    assert.deepEqual(whatIfPatch(base(), { sharding: 'fsdp-full_shard' }), { zero_stage: 0, fsdp: 'full_shard' });
    assert.deepEqual(whatIfPatch(base(), { sharding: 'zero3' }), { zero_stage: 3, fsdp: 'none' });
    assert.deepEqual(whatIfPatch(base(), { offload: 'all-nvme' }), {
      offload_optimizer: 'nvme',
      offload_params: 'nvme',
    });
    assert.deepEqual(whatIfPatch(base(), { checkpointing: 'selective', optimizer: 'adamw_8bit' }), {
      gradient_checkpointing: 'selective',
      optimizer: 'adamw_8bit',
    });
    assert.deepEqual(whatIfPatch(base(), { gpu: 'H100-80GB' }), { gpu: 'H100-80GB' });
  });

  it("spreads GPUs over nodes of up to 8 (or the file's node size)", () => {
    assert.deepEqual(whatIfPatch(base(), { gpus: 4 }), {});
    assert.deepEqual(whatIfPatch(base(), { gpus: 1 }), { gpus_per_node: 1, nodes: 1 });
    assert.deepEqual(whatIfPatch(base(), { gpus: 8 }), { gpus_per_node: 8, nodes: 1 });
    assert.deepEqual(whatIfPatch(base(), { gpus: 32 }), { gpus_per_node: 8, nodes: 4 });
    assert.deepEqual(gpuCountOptions(4), [1, 2, 4, 8, 16, 32, 64, 128]);
    assert.deepEqual(gpuCountOptions(6), [1, 2, 4, 6, 8, 16, 32, 64, 128]);
  });

  it('switches the method with a LoRA block and 4-bit base as needed', () => {
    const q = whatIfPatch(base(), { method: 'qlora' });
    assert.equal(q.method, 'qlora');
    assert.deepEqual(q.lora, DEFAULT_LORA);
    assert.deepEqual(q.quantization, DEFAULT_QLORA_QUANT);
    const qlora = applyOverrides(base(), { method: 'qlora' });
    const back = whatIfPatch(qlora, { method: 'full' });
    assert.equal(back.method, 'full');
    assert.ok('quantization' in back && back.quantization === undefined, 'full fine-tuning drops the quantization');
    const l = whatIfPatch(qlora, { method: 'lora' });
    assert.equal(l.quantization, undefined);
    assert.deepEqual(l.lora, DEFAULT_LORA);
  });

  it('prunes overrides equal to the file', () => {
    assert.deepEqual(
      pruneOverrides(base(), 'A100-80GB', { micro: 2, seq: 4096, gpu: 'A100-80GB', sharding: 'zero2' }),
      { seq: 4096 },
    );
  });

  it('recomputes with the core: same numbers as estimating the patched setup', () => {
    const gpu = gpuTarget('A100-80GB', null)!;
    assert.equal(gpu.memoryBytes > 80e9, true);
    const r = recompute(base(), { micro: 4, checkpointing: 'full' }, gpu, 0.05);
    assert.ok(r.ok);
    const direct = estimate(
      { ...base(), micro_batch_size: 4, gradient_checkpointing: 'full' },
      { gpu, headroomFraction: 0.05 },
    );
    assert.ok(direct.ok);
    assert.equal(r.view.deviceBytes, direct.estimate.perGpu.deviceBytes);
    assert.equal(r.view.fits, direct.estimate.fits);
    assert.equal(r.view.components.length, direct.estimate.perGpu.components.length);
    assert.ok(
      r.view.components.every((c) => c.formula.length > 0),
      'formulas are kept for "all components"',
    );
    const bigger = recompute(base(), { micro: 8, checkpointing: 'full' }, gpu, 0.05);
    const fwd = (v: typeof r.view) => v.phases.find((p) => p.phase === 'forward')!.allocatedBytes;
    assert.ok(bigger.ok && fwd(bigger.view) > fwd(r.view), 'a larger micro-batch holds more at the end of forward');
  });

  it('reports impossible layouts as errors instead of throwing', () => {
    const r = recompute({ ...base(), tensor_parallel: 4 }, { gpus: 2 }, undefined, 0);
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.errors[0].startsWith('tensor_parallel'));
  });

  it('offers the catalog plus a non-catalog file GPU', () => {
    const names = gpuOptions(undefined);
    assert.ok(names.includes('A100-80GB') && names.includes('RTX-4090'));
    assert.equal(gpuOptions('24 GiB')[0], '24 GiB');
    assert.deepEqual(gpuTarget('24 GiB', { id: '24 GiB', memoryBytes: 24 * 2 ** 30 }), {
      id: '24 GiB',
      memoryBytes: 24 * 2 ** 30,
      source: 'the panel model',
    });
    assert.equal(gpuTarget('', null), undefined);
  });

  it('applies advice changes through the setup schema', () => {
    const s = applyChanges(base(), [
      { key: 'zero_stage', value: 3 },
      { key: 'offload_optimizer', value: 'cpu' },
    ]);
    assert.equal(s?.zero_stage, 3);
    assert.equal(s?.offload_optimizer, 'cpu');
    assert.equal(applyChanges(base(), [{ key: 'zero_stage', value: 7 }]), undefined);
    assert.equal(applyChanges(base(), [{ key: 'no_such_key', value: 1 }]), undefined);
  });

  it('parses whole numbers in range only', () => {
    assert.equal(parseCount('8', 1, 4096), 8);
    assert.equal(parseCount(' 16 ', 1, 4096), 16);
    for (const bad of ['', '0', '-1', '1.5', '1e3', 'abc', '5000'])
      assert.equal(parseCount(bad, 1, 4096), undefined, bad);
  });

  it('writes back only the keys the what-if changes; the GPU only into a scenario file', () => {
    assert.deepEqual(whatIfWrite(base(), {}, 'deepspeed-json'), { changes: [], removed: [], gpuOnly: false });
    // bf16 + master weights -> amp-bf16 changes two of the three precision keys (mixed_precision stays bf16), and
    // 4 -> 2 GPUs changes the GPUs per node but not the single node.
    assert.deepEqual(whatIfWrite(base(), { precision: 'amp-bf16', gpus: 2 }, 'deepspeed-json').changes, [
      { key: 'gpus_per_node', value: 2 },
      { key: 'weights_dtype', value: 'fp32' },
      { key: 'master_weights', value: false },
    ]);
    assert.deepEqual(whatIfWrite(base(), { gpu: 'H100-80GB' }, 'deepspeed-json'), {
      changes: [],
      removed: [],
      gpuOnly: true,
    });
    assert.deepEqual(whatIfWrite(base(), { gpu: 'H100-80GB', sharding: 'zero3' }, 'deepspeed-json'), {
      changes: [{ key: 'zero_stage', value: 3 }],
      removed: [],
      gpuOnly: false,
    });
    assert.deepEqual(whatIfWrite(base(), { gpu: 'H100-80GB' }, 'scenario').changes, [
      { key: 'gpu', value: 'H100-80GB' },
    ]);
  });

  it('does not write a what-if that removes a key (leaving QLoRA drops the quantization block)', () => {
    const qlora = applyOverrides(base(), { method: 'qlora' });
    const w = whatIfWrite(qlora, { method: 'lora' }, 'scenario');
    assert.deepEqual(w.removed, ['quantization']);
    assert.deepEqual(w.changes, [{ key: 'method', value: 'lora' }]);
  });
});
