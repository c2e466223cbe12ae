// A file that trains in stages of different kinds (src/analyzers/hf-python/index.ts lastStageOnly): a notebook's DPO
// stage, then its GRPO stage (oliversl1vka/itemsety-qwen-finetuning training_3phase notebook: SFT, DPO, then GRPO).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

const STAGES = [
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct")',
  'dpo = DPOTrainer(model=model, args=DPOConfig(output_dir="dpo", per_device_train_batch_size=2))',
  'dpo.train()',
  'grpo = GRPOTrainer(model=model, reward_funcs=[f], args=GRPOConfig(output_dir="grpo", per_device_train_batch_size=4, num_generations=4))',
  'grpo.train()',
  '',
].join('\n');

describe('hf-python: a file that trains in stages', () => {
  it('an offline preference stage and an online one: the later is estimated, the earlier said at its place', () => {
    const r = analyzeHfPython(STAGES);
    assert.ok(r.facts.some((f) => f.key === 'rollout'));
    assert.ok(!r.facts.some((f) => f.key === 'preference'));
    const note = r.problems.find((p) =>
      /trains in stages; the later one \(GRPO\w*, line 4\) is estimated/.test(p.message),
    );
    assert.ok(note && note.severity === 'info', JSON.stringify(r.problems.map((p) => p.message)));
    // The other order: GRPO first, then DPO, estimates the DPO stage.
    const reversed = STAGES.split('\n');
    const dpoFirst = [reversed[0], reversed[3], reversed[4], reversed[1], reversed[2], ''].join('\n');
    const d = analyzeHfPython(dpoFirst);
    assert.ok(d.facts.some((f) => f.key === 'preference') && !d.facts.some((f) => f.key === 'rollout'));
  });
});
