// The models a script loads to score rather than train (src/analyzers/hf-python/scoring-models.ts): beside a rollout
// trainer a sequence classifier is a reward model, not the policy, whatever name holds it.
import * as assert from 'node:assert/strict';
import { resolveText } from '../helpers';
import { estimate } from '../../../src/core/estimate';

// The shape of sotopia-lab/sotopia-rl@2ebb14e sotopia_rl/grpo_trainer.py, shortened: a causal LM policy and a sequence
// classifier kept on the trainer object, scored through a method passed as reward_funcs.
const script = (rewardId: string): string => `
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification
from trl import GRPOConfig, GRPOTrainer

class Runner:
    def __init__(self, args):
        self.args = args
        self.policy = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", torch_dtype="bfloat16")
        self.reward_model = AutoModelForSequenceClassification.from_pretrained(${rewardId}, num_labels=1)

    def reward(self, completions, **kwargs):
        return [float(self.reward_model(**c).logits[0]) for c in completions]

    def train(self):
        config = GRPOConfig(output_dir="out", per_device_train_batch_size=8, num_generations=8, bf16=True)
        GRPOTrainer(model=self.policy, reward_funcs=self.reward, args=config).train()
`;

describe('scoring models beside a rollout trainer', () => {
  it('a sequence classifier named by a Hub id is a reward model; the policy keeps its LM head', () => {
    const r = resolveText('grpo.py', script('"Qwen/Qwen2.5-0.5B"'));
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B-Instruct');
    assert.equal(r.setup?.head, undefined);
    assert.deepEqual(
      r.setup?.rollout?.reward_models.map((m) => m.model),
      ['Qwen/Qwen2.5-0.5B'],
    );
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    assert.ok(
      e.estimate.perGpu.phases[0].components.some((c) => c.label.startsWith('Reward model weights (Qwen/Qwen2.5-0.5B')),
    );
  });

  it('one loaded from a value the script reads at run time is said not to be counted, at the load', () => {
    const r = resolveText('grpo.py', script('self.args.reward_path'));
    assert.equal(r.setup?.head, undefined);
    const w = r.problems.find((p) => p.code === 'not-modeled' && /reward model/.test(p.message));
    assert.equal(w?.severity, 'warning');
    assert.match(w?.message ?? '', /AutoModelForSequenceClassification.*not the policy/);
    // The template's first line is empty: the reward model's load is line 9.
    assert.equal(w?.line, 9);
  });

  it('without a rollout trainer a sequence classifier is the model that trains (its head replaces the LM head)', () => {
    const text = [
      'from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments',
      'model = AutoModelForSequenceClassification.from_pretrained("Qwen/Qwen2.5-0.5B", num_labels=2)',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    assert.equal(resolveText('cls.py', text).setup?.head, 'seq_cls');
  });

  it("in a trainer class on a rollout trainer it is the class's load of a reward given by name: neither the policy nor said", () => {
    // weirayao/X-R1@c74d64d src/x_r1/x_grpo_trainer.py: `class XGRPOTrainer(GRPOTrainer)` copies TRL's __init__, which
    // loads each reward function given as a string with AutoModelForSequenceClassification; its run passes functions.
    const text = [
      'from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification',
      'from trl.trainer import GRPOTrainer',
      'class XGRPOTrainer(GRPOTrainer):',
      '    def __init__(self, model, reward_funcs, args=None):',
      '        for i, reward_func in enumerate(reward_funcs):',
      '            if isinstance(reward_func, str):',
      '                reward_funcs[i] = AutoModelForSequenceClassification.from_pretrained(reward_func, num_labels=1)',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")',
      '',
    ].join('\n');
    const r = resolveText('x_grpo_trainer.py', text);
    assert.equal(r.setup?.head, undefined);
    assert.equal(
      r.problems.some((p) => p.code === 'not-modeled' && /reward model/.test(p.message)),
      false,
    );
  });
});
