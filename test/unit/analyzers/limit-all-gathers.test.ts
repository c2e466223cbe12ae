// FSDP1's limit_all_gathers as the files set it, and where they do not, as the release that builds the units defaults
// it (src/analyzers/limit-all-gathers.ts): torch's FullyShardedDataParallel False before 2.1 (torch 2.0.1
// fully_sharded_data_parallel.py), Accelerate's FullyShardedDataParallelPlugin False before 0.26
// (huggingface/accelerate v0.25.0 and v0.26.0 src/accelerate/utils/dataclasses.py).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline } from '../../../src/analyzers/pipeline';

function filesReader(files: Map<string, string>) {
  return {
    read: (p: string) => files.get(p),
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
}

const LOOP = `import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
for batch in dataloader:
    model(**batch).loss.backward()
    optimizer.step()
`;

const AXOLOTL = [
  'base_model: meta-llama/Llama-2-7b-hf',
  'bf16: true',
  'micro_batch_size: 1',
  'sequence_len: 2048',
  'fsdp:',
  '  - full_shard',
  '  - auto_wrap',
  'fsdp_config:',
  '  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer',
  '',
].join('\n');

function run(file: string, text: string, pins: string) {
  const files = new Map([['/w/requirements.txt', pins]]);
  return runPipeline([{ file, text }], filesReader(files), { gpusPerNode: 4 });
}

const note = (r: ReturnType<typeof run>) =>
  (r.provenance.fsdp_limit_all_gathers as { note?: string } | undefined)?.note ?? '';

describe('limit_all_gathers: read from the files, else the default of the release that builds the units', () => {
  it("a FullyShardedDataParallel call: its keyword, else PyTorch's default at the call", () => {
    const fact = (src: string) => analyzeHfPython(src).facts.find((f) => f.key === 'fsdpLimitAllGathers');
    const absent = fact(LOOP);
    assert.deepEqual([absent?.value, absent?.origin], ['torch', 'call-default']);
    const off = LOOP.replace('FULL_SHARD)', 'FULL_SHARD, limit_all_gathers=False)');
    assert.equal(fact(off)?.value, false);
  });

  it('the call without it: False under a pinned torch before 2.1, True from 2.1 and where none is pinned', () => {
    const old = run('/w/train.py', LOOP, 'torch==2.0.1\n');
    assert.equal(old.setup?.fsdp_limit_all_gathers, false);
    assert.match(note(old), /False before PyTorch 2\.1 and True from it \(torch 2\.0\.1 pinned/);
    assert.equal(run('/w/train.py', LOOP, 'torch==2.1.0\n').setup?.fsdp_limit_all_gathers, true);
    const unpinned = run('/w/train.py', LOOP, '');
    assert.equal(unpinned.setup?.fsdp_limit_all_gathers, true);
    assert.match(note(unpinned), /no torch pinned: a current release/);
    // The call's own keyword wins over any release.
    const stated = run(
      '/w/train.py',
      LOOP.replace('FULL_SHARD)', 'FULL_SHARD, limit_all_gathers=True)'),
      'torch==2.0.1\n',
    );
    assert.equal(stated.setup?.fsdp_limit_all_gathers, true);
    assert.equal(stated.provenance.fsdp_limit_all_gathers?.kind, 'file');
  });

  it("Accelerate's plugin: False before 0.26; the HF Trainer's fsdp_config limit_all_gathers over it", () => {
    const old = run('/w/fsdp.yaml', AXOLOTL, 'accelerate==0.25.0\n');
    assert.equal(old.setup?.fsdp_limit_all_gathers, false);
    assert.match(note(old), /False before 0\.26 and True from it \(accelerate 0\.25\.0 pinned/);
    assert.equal(run('/w/fsdp.yaml', AXOLOTL, 'accelerate==0.26.0\n').setup?.fsdp_limit_all_gathers, true);
    const keyed = run('/w/fsdp.yaml', `${AXOLOTL}  fsdp_limit_all_gathers: true\n`, 'accelerate==0.25.0\n');
    assert.equal(keyed.setup?.fsdp_limit_all_gathers, true);
  });
});
