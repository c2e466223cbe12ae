// mistralai/mistral-finetune's training config (src/analyzers/yaml/mistral-finetune.ts) and its launch line
// (`torchrun --nproc-per-node 8 -m train example/7B.yaml`). Keys and defaults from mistralai/mistral-finetune@1943535:
// finetune/args.py (seq_len 2048, batch_size 1, num_microbatches 1, checkpoint True, no_eval True), model/args.py
// (LoraArgs: enable True, rank 16, dropout 0, scaling 2), train.py (bf16 parameters, torch's AdamW), finetune/
// mixed_precision.py (an fp32 copy of each trained parameter), finetune/wrapped_model.py (FSDP1 FULL_SHARD per block).
// The config is the repository's example/7B.yaml with a model folder filled in, as its README asks.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeMistralFinetuneYaml } from '../../../src/analyzers/yaml/mistral-finetune';
import { editsForChanges, applyEditData } from '../../../src/features/fixes';
import { runFiles } from '../helpers';

const SEVEN_B = `# data
data:
  instruct_data: "data/ultrachat_chunk_train.jsonl"
  data: ""
  eval_instruct_data: "data/ultrachat_chunk_eval.jsonl"

# model
model_id_or_path: "/mnt/models/mistral_models/Mistral-7B-v0.3"
lora:
  rank: 64

# optim
seq_len: 32768
batch_size: 1
max_steps: 300
optim:
  lr: 6.e-5
  weight_decay: 0.1
  pct_start: 0.05

# other
seed: 0
log_freq: 1
eval_freq: 100
no_eval: False
ckpt_freq: 100

save_adapters: True

run_dir: "/mnt/runs/test_ultra"
`;

describe('mistral-finetune config', () => {
  it('is told by model_id_or_path beside run_dir or its own keys', () => {
    assert.equal(detectFormat('7B.yaml', SEVEN_B), 'mistral-finetune-yaml');
  });

  it('under torchrun: LoRA on every linear layer, bf16 weights with fp32 copies of the trained ones, FSDP1', () => {
    const line = 'torchrun --nproc-per-node 8 --master_port $RANDOM -m train example/7B.yaml\n';
    const run = runFiles({ '/r/run.sh': line, '/r/example/7B.yaml': SEVEN_B }, '/r/run.sh');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    // A folder on another machine, estimated as the model its name gives (Mistral-7B-v0.3's config).
    assert.equal(s.model, '/mnt/models/mistral_models/Mistral-7B-v0.3');
    assert.equal((s.architecture as { vocab_size?: number }).vocab_size, 32768);
    assert.equal(s.gpus_per_node, 8);
    assert.deepEqual([s.method, s.lora?.r, s.lora?.alpha, s.lora?.dropout], ['lora', 64, 128, 0]);
    assert.deepEqual([s.lora?.target_modules, s.lora?.dtype], ['all-linear', 'bf16']);
    assert.deepEqual([s.weights_dtype, s.master_weights, s.mixed_precision], ['bf16', true, 'none']);
    assert.deepEqual([s.fsdp, s.fsdp_version, s.fsdp_use_orig_params], ['full_shard', 1, false]);
    // 32,768 packed tokens per sequence, one sequence per micro-step, checkpointed without reentrancy.
    assert.deepEqual([s.seq_len, s.batch_lengths, s.micro_batch_size], [32768, 'fixed', 1]);
    assert.deepEqual([s.gradient_checkpointing, s.checkpoint_reentrant, s.attention], ['full', false, 'flash']);
    // no_eval False: evaluation at the training batch.
    assert.equal(s.eval_batch_size, 1);
    // model/transformer.py returns `self.output(self.norm(h)).float()`, and train.py keeps that `output` through the
    // backward into the next step's forward: fp32 logits, 32,768 x 32,768 x 4 B = 4 GiB, held by the loop.
    assert.deepEqual([s.model_logits_fp32, s.loop_keeps_outputs], [true, true]);
  });

  it('lora.enable false trains every weight, and says what is not counted; quick fixes at its keys', () => {
    const full = analyzeMistralFinetuneYaml(SEVEN_B.replace('  rank: 64', '  enable: false'));
    assert.equal(full.facts.find((f) => f.key === 'method')?.value, 'full');
    assert.match(full.problems.map((p) => p.message).join('\n'), /bf16 shard, 2 bytes per parameter and GPU/);
    const file = {
      file: '7B.yaml',
      text: SEVEN_B,
      format: 'mistral-finetune-yaml' as const,
      facts: analyzeMistralFinetuneYaml(SEVEN_B),
    };
    const plan = editsForChanges(
      [
        { key: 'seq_len', value: 16384 },
        { key: 'gradient_accumulation_steps', value: 2 },
      ],
      [file],
      '7B.yaml',
    );
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(SEVEN_B, plan.edits);
    assert.match(after, /^seq_len: 16384$/m);
    assert.match(after, /^num_microbatches: 2$/m);
  });
});
