// TRL's RLOOTrainer before its 0.22 rewrite (src/analyzers/trl-dated-defaults.ts oldRlooNote): the project's pin
// says which trainer runs, and a warning at the trainer says what of the older one is not modeled.
import * as assert from 'node:assert/strict';
import { runFiles } from './helpers';

// sahandrez/unpaired_rlhf@560c375 rloo.py, shortened; its requirements.txt pins trl==0.13.0.
const SCRIPT = [
  'from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification',
  'from trl import ModelConfig, RLOOConfig, RLOOTrainer, ScriptArguments, TrlParser',
  'parser = TrlParser((ScriptArguments, RLOOConfig, ModelConfig))',
  'script_args, training_args, model_args = parser.parse_args_and_config()',
  'policy = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
  'ref_policy = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
  'trainer = RLOOTrainer(config=training_args, policy=policy, ref_policy=ref_policy)',
  'trainer.train()',
  '',
].join('\n');

const warningOf = (pin: string) =>
  runFiles({ '/w/rloo.py': SCRIPT, '/w/requirements.txt': `${pin}\n` }, '/w/rloo.py').problems.find((p) =>
    /RLOOTrainer \(before 0\.22\)/.test(p.message),
  );

describe("TRL's RLOOTrainer before 0.22", () => {
  it('is said at the trainer as not modeled where the project pins such a release', () => {
    const w = warningOf('trl==0.13.0');
    assert.equal(w?.severity, 'warning');
    assert.equal(w?.code, 'not-modeled');
    assert.match(w?.message ?? '', /^TRL 0\.13\.0's RLOOTrainer .*separate reference policy/);
  });

  it('is not said for the rewritten trainer (0.22 on)', () => {
    assert.equal(warningOf('trl==0.22.0'), undefined);
  });
});
