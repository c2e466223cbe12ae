// NCCL's device memory outside the allocator (src/core/terms/nccl.ts): ring and tree buffers, NVLink SHARP buffers.
import * as assert from 'node:assert/strict';
import { NCCL_CONNECTION_BYTES } from '../../src/core/terms/nccl';
import { findGpu } from '../../src/core/lookup';
import { MiB } from '../../src/core/units';
import { run, setupFor } from './helpers';

describe("runtime: NCCL's buffers", () => {
  // nccl src/include/device.h: one buffer per protocol and connection. SIMPLE: NCCL_BUFFSIZE, 4 MiB; LL128:
  // 120 elements x 640 threads x 8 steps x 8 B = 4,915,200 B; LL: 8 lines x 512 threads x 8 steps x 16 B = 524,288 B.
  const term = (id: string, extra: Record<string, unknown>, gpuName: string): number => {
    const found = findGpu(gpuName);
    assert.ok(found.ok);
    const setup = setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', ...extra });
    return run(setup, { gpu: found.gpu }).perGpu.runtime.find((r) => r.id === id)?.bytes ?? 0;
  };
  const nccl = (extra: Record<string, unknown>, gpuName = 'A100-80GB'): number => term('nccl', extra, gpuName);
  const nvls = (extra: Record<string, unknown>, gpuName = 'H100-80GB'): number => term('nccl-nvls', extra, gpuName);

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

  it('a device_map split is one process over its GPUs: no communicator among them, one per data-parallel group', () => {
    const split = { pipeline_parallel: 2, pipeline_schedule: 'device_map' };
    assert.equal(nccl({ gpus_per_node: 2, ...split }), 0);
    // Two processes of two GPUs each: the data-parallel pair's ring and its one tree link.
    assert.equal(nccl({ gpus_per_node: 4, ...split }), 16 * 2 * 9_633_792);
    // A pipeline engine's stages are ranks of their own communicator.
    assert.equal(nccl({ gpus_per_node: 2, pipeline_parallel: 2 }), 16 * 2 * 9_633_792);
  });

  it('without P2P (PCIe consumer cards) the shared-memory transport keeps the other buffers in host memory', () => {
    assert.equal(nccl({ gpus_per_node: 4 }, 'RTX-4090'), 4 * 2 * 4 * MiB);
  });

  // NCCL src/transport/nvls.cc (ncclNvlsSetup): nvlsTotalSize = channels x 2 x per-channel buffer x heads, bound on
  // every GPU of the node; NVLS_NCHANNELS 16 on Hopper. Per channel and direction: v2.18-v2.20 buffSize 4 MiB + memSize
  // 2 MiB; v2.21 NVLS_CHUNKSIZE 128 KiB x NCCL_STEPS 8 = 1 MiB + 2 MiB; v2.23 and later 1 MiB.
  it('NVLink SHARP on 8 x H100 SXM: 1.5 GiB with PyTorch 2.1-2.4, 768 MiB with 2.5-2.6, 256 MiB from 2.7', () => {
    assert.equal(nvls({ gpus_per_node: 8, pytorch_version: '2.2' }), 16 * 2 * 6 * MiB * 8); // 1,610,612,736 B
    assert.equal(nvls({ gpus_per_node: 8, pytorch_version: '2.5' }), 16 * 2 * 3 * MiB * 8); // 805,306,368 B
    assert.equal(nvls({ gpus_per_node: 8, pytorch_version: '2.9' }), 16 * 2 * 1 * MiB * 8); // 268,435,456 B
    assert.equal(nvls({ gpus_per_node: 4, pytorch_version: '2.3' }, 'H200'), 16 * 2 * 6 * MiB * 4);
  });

  it('no NVLS with two GPUs, across nodes, before PyTorch 2.1 (NCCL 2.14), or without an NVSwitch', () => {
    assert.equal(nvls({ gpus_per_node: 2, pytorch_version: '2.2' }), 0);
    assert.equal(nvls({ gpus_per_node: 8, nodes: 2, pytorch_version: '2.2' }), 0);
    assert.equal(nvls({ gpus_per_node: 8, pytorch_version: '2.0' }), 0);
    assert.equal(nvls({ gpus_per_node: 8, pytorch_version: '2.2' }, 'H100-PCIe'), 0);
    assert.equal(nvls({ gpus_per_node: 8, pytorch_version: '2.2' }, 'A100-80GB'), 0);
  });

  it('without a PyTorch release, a current one is assumed and said', () => {
    const found = findGpu('H100-80GB');
    assert.ok(found.ok);
    const e = run(setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', weights_dtype: 'bf16', gpus_per_node: 8 }), {
      gpu: found.gpu,
    });
    assert.equal(e.perGpu.runtime.find((r) => r.id === 'nccl-nvls')?.bytes, 16 * 2 * MiB * 8);
    assert.ok(e.assumptions.some((a) => a.key === 'pytorch_version' && /NCCL 2\.26/.test(a.value)));
  });
});
