// TRL's RewardTrainer before 0.24 runs the chosen and the rejected sequences as two forwards, both graphs held for one
// backward (trl@v0.23.0 trl/trainer/reward_trainer.py compute_loss); 0.24 concatenates them into one forward
// (src/analyzers/trl-dated-defaults.ts trlRewardPassesOfRelease, src/core/setup.ts forwardsPerExample).
import * as assert from 'node:assert/strict';
import { component, phase, run, runFiles } from './helpers';

const SCRIPT = [
  'from transformers import AutoModelForSequenceClassification',
  'from trl import RewardConfig, RewardTrainer',
  'model = AutoModelForSequenceClassification.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", num_labels=1, torch_dtype="bfloat16")',
  'args = RewardConfig(output_dir="out", per_device_train_batch_size=4, max_length=2048, gradient_checkpointing=True, bf16=True)',
  'trainer = RewardTrainer(model=model, args=args, train_dataset=dataset)',
  'trainer.train()',
  '',
].join('\n');

const pinned = (pin: string) =>
  runFiles({ '/w/train_rm.py': SCRIPT, '/w/requirements.txt': `${pin}\n` }, '/w/train_rm.py');

describe("TRL's RewardTrainer before 0.24", () => {
  it('runs chosen and rejected as two forwards where the project pins such a release', () => {
    const r = pinned('trl==0.23.0');
    assert.equal(r.setup?.preference?.separate_passes, true);
    assert.equal(pinned('trl==0.24.0').setup?.preference?.separate_passes, undefined);
  });

  it('saves as much as one concatenated forward, and recomputes a layer for the micro-batch alone', () => {
    const two = phase(run(pinned('trl==0.23.0').setup!), 'backward');
    const one = phase(run(pinned('trl==0.24.0').setup!), 'backward');
    // Qwen2.5-0.5B: 24 layers, hidden 896. Checkpointed layer inputs of 8 sequences of 2,048 tokens in bf16
    // (24 x 8 x 2048 x 896 x 2 B = 704,643,072), and each forward's boolean SDPA mask of its 4 padded sequences
    // (2 x 4 x 2048 x 2048 x 1 B = 33,554,432): the same either way.
    assert.equal(component(two, 'activations'), 704_643_072 + 33_554_432);
    assert.equal(component(one, 'activations'), 704_643_072 + 33_554_432);
    // The recomputed layer and the layer's backward working set are one forward's: 4 sequences, not 8.
    assert.equal(component(two, 'checkpoint-recompute') * 2, component(one, 'checkpoint-recompute'));
    assert.equal(component(two, 'backward-working') * 2, component(one, 'backward-working'));
  });
});
