// Runtime terms outside the allocator's peak (src/core/estimate/runtime.ts): NCCL's device buffers.
import * as assert from 'node:assert/strict';
import { NCCL_CONNECTION_BYTES } from '../../src/core/estimate/runtime';
import { findGpu } from '../../src/core/lookup';
import { MiB } from '../../src/core/units';
import { run, setupFor } from './helpers';

describe("runtime: NCCL's buffers", () => {
  // nccl src/include/device.h: one buffer per protocol and connection. SIMPLE: NCCL_BUFFSIZE, 4 MiB; LL128:
  // 120 elements x 640 threads x 8 steps x 8 B = 4,915,200 B; LL: 8 lines x 512 threads x 8 steps x 16 B = 524,288 B.
  const nccl = (extra: Record<string, unknown>, gpuName = 'A100-80GB'): number => {
    const found = findGpu(gpuName);
    assert.ok(found.ok);
    const setup = setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', ...extra });
    return run(setup, { gpu: found.gpu }).perGpu.runtime.find((r) => r.id === 'nccl')?.bytes ?? 0;
  };

  it('9,633,792 B per connection; over NVLink (A100) 16 channels of a ring and a two-way tree connection', () => {
    assert.equal(NCCL_CONNECTION_BYTES, 4 * MiB + 4_915_200 + 524_288);
    assert.equal(nccl({ gpus_per_node: 8 }), 16 * 3 * 9_633_792); // 462,422,016 B
    // Two ranks: the tree is the one link between them.
    assert.equal(nccl({ gpus_per_node: 2 }), 16 * 2 * 9_633_792);
    // One GPU: no communicator.
    assert.equal(nccl({ gpus_per_node: 1 }), 0);
  });

  it('FSDP or DeepSpeed on one GPU: a one-rank communicator, as measured on an H100', () => {
    // tools/truth/gpu/results/2026-11-26-h100 nccl-w1.json against gpu-truth-2.json: FSDP2 at world size 1 over NCCL
    // and over the fake group, device memory used 517,996,544 B higher after the first backward (both models).
    assert.equal(nccl({ gpus_per_node: 1, fsdp: 'full_shard', fsdp_version: 2 }), 517_996_544);
    assert.equal(nccl({ gpus_per_node: 1, zero_stage: 2 }), 517_996_544);
  });

  it('one communicator per parallel dimension: tensor parallel 2 x data parallel 4', () => {
    assert.equal(nccl({ gpus_per_node: 8, tensor_parallel: 2 }), 16 * (2 + 3) * 9_633_792);
  });

  it('without P2P (PCIe consumer cards) the shared-memory transport keeps the other buffers in host memory', () => {
    assert.equal(nccl({ gpus_per_node: 4 }, 'RTX-4090'), 4 * 2 * 4 * MiB);
  });
});
