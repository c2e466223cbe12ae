// Term: the cuBLAS workspaces (src/core/terms/blas-workspaces.ts): their size per GPU architecture from PyTorch's
// parseChosenWorkspaceSize (aten/src/ATen/cuda/CublasHandlePool.cpp), two per training process, and where the replays
// place them. The GPU figures are max_memory_reserved of the second step on one H100 80GB (torch 2.11, transformers
// 5.17: test/fixtures/truth/gpu.json, tools/truth/gpu/results/2026-11-24-h100), whose allocation histories hold two
// 33,554,432 B blocks that are never freed.
import * as assert from 'node:assert/strict';
import { findGpu } from '../../../src/core/lookup';
import { blasWorkspaceBytes } from '../../../src/core/terms/blas-workspaces';
import { replayTwoSteps, type TwoStepPlan } from '../../../src/core/terms/two-step-cache';
import { MiB } from '../../../src/core/units';
import { TrainingSetupSchema } from '../../../src/core/setup';
import { component, phase, run, setupFor } from '../helpers';
import { gpuTruthPoint, noLayerStep } from './helpers';

function gpu(name: string) {
  const g = findGpu(name);
  assert.ok(g.ok, name);
  return g.gpu;
}

describe('blas-workspaces', () => {
  it('32 MiB per handle from compute capability 9.0 on, ":4096:2:16:8" before, by ROCm target on AMD', () => {
    // 4096 x 8 KiB = 33,554,432 B (Hopper, Blackwell); 4096 x 2 + 16 x 8 KiB = 8,519,680 B; ROCm 32 MiB, 128 MiB on gfx942.
    const cases: [string, number | undefined][] = [
      ['H100-80GB', 33_554_432],
      ['H200', 33_554_432],
      ['B200', 33_554_432],
      ['RTX-5090', 33_554_432],
      ['A100-80GB', 8_519_680],
      ['RTX-4090', 8_519_680],
      ['T4', 8_519_680],
      ['MI300X', 134_217_728],
      ['MI250X', 33_554_432],
      ['Gaudi2', 0],
    ];
    for (const [name, bytes] of cases) assert.equal(blasWorkspaceBytes(gpu(name).spec), bytes, name);
    assert.equal(blasWorkspaceBytes(undefined), undefined);
  });

  it('two per training process in every phase; unknown (0 B, said at the row) without a GPU from the catalog', () => {
    const s = setupFor('meta-llama/Llama-2-7b-hf', { method: 'lora', gradient_checkpointing: 'full' });
    const h100 = run(s, { gpu: gpu('H100-80GB') });
    for (const p of ['forward', 'backward', 'optimizer'] as const)
      assert.equal(component(phase(h100, p), 'blas-workspaces'), 2 * 33_554_432, p);
    const a100 = run(s, { gpu: gpu('A100-80GB') });
    assert.equal(component(phase(a100, 'backward'), 'blas-workspaces'), 2 * 8_519_680);
    const none = phase(run(s), 'backward').components.find((c) => c.id === 'blas-workspaces');
    assert.ok(none);
    assert.equal(none.bytes, 0);
    assert.match(none.formula, /^not counted: no GPU from the catalog chosen/);
  });

  it("a frozen 150 MiB parameter: the backward's workspace splits an fp32 logits block, the second step asks again", () => {
    // Step 1: 150 (weight) + 20 (the embedding's output) + 32 (the loop thread's workspace, at the first forward
    // matmul: no free block) + 20 (the final norm's output) + 100 (16-bit logits) + 3 x 200 (upcast, log-softmax, the
    // softmax's gradient; the loss's gradient reuses the upcast's block) = 922 MiB. Autograd's workspace comes after
    // the hidden state's gradient (the freed input's 20 MiB block), when the only free blocks of 32 MiB or more are
    // the three fp32 ones: it splits one. Step 2 needs three 200 MiB blocks at once again (log-softmax, the loss's
    // and the softmax's gradients) and finds two: +200 MiB = 1,122 MiB. Without the workspaces: 890 MiB both steps.
    const frozen = { weight: 150 * MiB, grad: 0, state: 0 };
    const plan: TwoStepPlan = {
      ...noLayerStep(frozen),
      blasWorkspace: 32 * MiB,
      statesPerParameter: 2,
      adamw: { kind: 'foreach', copies: 1 },
      buckets: { first: [], rebuilt: [] },
      capacity: Infinity,
    };
    const r = replayTwoSteps(plan);
    assert.equal(r.firstStep, 922 * MiB);
    assert.equal(r.reserved, 1_122 * MiB);
    assert.equal(replayTwoSteps({ ...plan, blasWorkspace: 0 }).reserved, 890 * MiB);
  });

  it('Gemma-3-1B LoRA over 2 x 1,024 tokens on an H100: reserved within 5 %, 11 % low without the workspaces', () => {
    // Measured max_memory_reserved 16,477,323,264 B. The real history: autograd's workspace lands in the first
    // 2,147,483,648 B fp32 logits block (262,144-entry vocabulary x 2,048 tokens x 4 B) and the second step's logits
    // take a segment of their own. Without the GPU's architecture (its memory given alone) no workspace is placed.
    const p = gpuTruthPoint('gemma-3-1b-lora-s1024-b2-nockpt');
    const setup = TrainingSetupSchema.parse(p.scenario);
    const h100 = gpu(p.gpu);
    const withSpec = run(setup, { gpu: h100 }).perGpu.reservedBytes / p.reservedBytes - 1;
    const memoryOnly = { id: h100.id, memoryBytes: h100.memoryBytes, source: 'test: the memory alone' };
    const without = run(setup, { gpu: memoryOnly }).perGpu.reservedBytes / p.reservedBytes - 1;
    assert.ok(Math.abs(withSpec) <= 0.05, `with the workspaces ${(100 * withSpec).toFixed(1)} %`);
    assert.ok(without < -0.1, `without ${(100 * without).toFixed(1)} %`);
  });
});
