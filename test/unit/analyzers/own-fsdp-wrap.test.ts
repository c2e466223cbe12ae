// FSDP a training loop wraps itself (`model = FSDP(model, ...)`) is no Accelerate preparation (src/analyzers/pipeline.ts
// ownFsdpWrap): the bf16 model's shards stay bf16, whatever its launch line's flags read by their names make of the run.
// Srini-98/TEXT2SQL-EHRSQL's train.py loads `from_pretrained(args.model_path, torch_dtype=torch.bfloat16)` and wraps it
// with MixedPrecision(bf16); the launch line's `--model_path` made the run an HF Trainer's, and Accelerate's upcast
// (huggingface/accelerate#2674) fp32 masters: 34.7 GiB for a Mistral-7B loop whose literal-id twin reads 22.3.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

const TRAIN = [
  'import argparse, functools, torch',
  'from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision',
  'from transformers import AutoModelForCausalLM',
  'p = argparse.ArgumentParser()',
  'p.add_argument("--model_path", type=str, required=True)',
  'args = p.parse_args()',
  'model = AutoModelForCausalLM.from_pretrained(args.model_path, torch_dtype=torch.bfloat16)',
  'model = FSDP(model, device_id=torch.cuda.current_device(),',
  '             mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16))',
  'opt = torch.optim.AdamW(model.parameters(), lr=1e-5)',
  'for batch in loader:',
  '    model(**batch).loss.backward()',
  '    opt.step()',
  '',
].join('\n');

describe("a loop's own FSDP wrap under a launch line with a Trainer-named flag", () => {
  it('keeps the bf16 shards: no fp32 master of Accelerate', () => {
    const r = runFiles(
      {
        '/w/run.sh': 'torchrun --nproc-per-node=4 train.py --model_path Qwen/Qwen2.5-0.5B\n',
        '/w/train.py': TRAIN,
      },
      '/w/run.sh',
    );
    assert.equal(r.setup?.fsdp, 'full_shard');
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.notEqual(r.setup?.master_weights, true);
    assert.equal(r.provenance.master_weights, undefined);
  });
});
