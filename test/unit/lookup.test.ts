// Catalog look-ups: tolerant names, sizes, and suggestions.
import * as assert from 'node:assert/strict';
import { GPU_CATALOG } from '../../src/core/catalog/gpus';
import { findGpu, findModel } from '../../src/core/lookup';

describe('lookup', () => {
  it('finds GPUs by catalog name with any case or spacing', () => {
    for (const n of ['A100-80GB', 'a100 80gb', 'H100-80GB', 'rtx 4090', 'RTX-4090', 'L4', 't4']) assert.ok(findGpu(n).ok, n);
  });
  it('has at least 30 accelerators including consumer cards and AMD', () => {
    assert.ok(GPU_CATALOG.length >= 30);
    for (const n of ['RTX-3060', 'RTX-3090', 'RTX-4090', 'RTX-5090', 'T4', 'L4', 'L40S', 'A10G', 'V100-16GB', 'V100-32GB', 'A100-40GB', 'A100-80GB', 'H100-80GB', 'H200', 'B200', 'MI250X', 'MI300X']) {
      assert.ok(findGpu(n).ok, `${n} in catalog`);
    }
  });
  it('reads sizes: 24GiB, 80 GB, 16g', () => {
    const g = findGpu('24GiB');
    assert.ok(g.ok);
    assert.equal(g.gpu.memoryBytes, 24 * 2 ** 30);
    assert.ok(findGpu('80 GB').ok);
  });
  it('suggests close names for typos', () => {
    const g = findGpu('H100-81GB');
    assert.equal(g.ok, false);
    assert.ok(!g.ok && g.suggestions.includes('H100-80GB'));
  });
  it('finds models by id, alias and bare name', () => {
    assert.ok(findModel('meta-llama/Llama-2-7b-hf').ok);
    assert.ok(findModel('META-LLAMA/LLAMA-2-7B-HF').ok);
    assert.ok(findModel('gpt2').ok);
  });
  it('finds the -2507 Qwen3 refreshes under their own ids (same architecture as the original release)', () => {
    // Qwen3-4B-Instruct-2507 and Qwen3-30B-A3B-Instruct-2507 config.json differ from the April 2025 release only in
    // max_position_embeddings / rope_theta; the corpus's Axolotl and LLaMA-Factory configs name them.
    const small = findModel('Qwen/Qwen3-4B-Instruct-2507');
    assert.ok(small.ok && small.model.id === 'Qwen/Qwen3-4B');
    const moe = findModel('qwen/qwen3-30b-a3b-instruct-2507');
    assert.ok(moe.ok && moe.model.id === 'Qwen/Qwen3-30B-A3B');
  });
});
