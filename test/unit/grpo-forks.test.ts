// GRPO trainers a project writes from TRL's (src/analyzers/hf-python/grpo-forks.ts): the batch rule and the LoRA
// targets read in the trainer's module, with lines quoted from the repositories that showed them.
import * as assert from 'node:assert/strict';
import { grpoBatchRule, trainerLoraTargets } from '../../src/analyzers/hf-python/grpo-forks';
import { analyzeHfPython } from '../../src/analyzers/hf-python';

describe('GRPO trainers of the project', () => {
  it("reads TRL 0.14's rule (prompts, each generated num_generations times) and 0.15's (completions)", () => {
    // Deep-Agent/R1-V@bbbbe3d src/r1-v/src/open_r1/trainer/grpo_trainer.py (compute_loss) and
    // vllm_grpo_trainer_modified.py (vLLM's sampling params).
    assert.equal(grpoBatchRule('prompt_mask = prompt_mask.repeat_interleave(self.num_generations, dim=0)'), 'prompts');
    assert.equal(grpoBatchRule('    num_return_sequences=self.num_generations,'), 'prompts');
    assert.equal(grpoBatchRule('sampling_params.n = self.num_generations'), 'prompts');
    // om-ai-lab/VLM-R1@90052f4 src/open-r1-multimodal/src/open_r1/trainer/grpo_trainer.py: class RepeatRandomSampler,
    // whose prompts repeat in the sampler (its compute_loss repeats nothing).
    const sampler = 'class RepeatRandomSampler(Sampler):\n...\nx = y.repeat_interleave(self.num_generations, dim=0)\n';
    assert.equal(grpoBatchRule(sampler), 'completions');
    assert.equal(grpoBatchRule('class MyTrainer(Trainer):\n    pass\n'), undefined);
    // Every release repeats the group statistics of the rewards per completion: no rule (weirayao/X-R1@c74d64d
    // x_grpo_trainer.py:592, a TRL 0.15 fork whose sampler is its base class's).
    assert.equal(
      grpoBatchRule('mean_grouped_rewards = mean_grouped_rewards.repeat_interleave(self.num_generations, dim=0)'),
      undefined,
    );
  });

  it('reads the targets a trainer sets on the LoRA config it is given: every linear layer outside the vision tower', () => {
    // om-ai-lab/VLM-R1@90052f4 grpo_trainer.py lines 259-275.
    const vlmR1 = [
      'class VLMGRPOTrainer(Trainer):',
      '    def __init__(self, model, peft_config=None):',
      '        if peft_config is not None:',
      '            def find_all_linear_names(model, multimodal_keywords):',
      '                cls = torch.nn.Linear',
      '                lora_module_names = set()',
      '                for name, module in model.named_modules():',
      '                    if any(mm_keyword in name for mm_keyword in multimodal_keywords):',
      '                        continue',
      '                    if isinstance(module, cls):',
      '                        lora_module_names.add(name)',
      '                return list(lora_module_names)',
      '            target_modules = find_all_linear_names(model, self.vision_modules_keywords)',
      '            peft_config.target_modules = target_modules',
      '            model = get_peft_model(model, peft_config)',
      '',
    ].join('\n');
    assert.equal(trainerLoraTargets(vlmR1), 'find_all_linear_names');
    // A module that leaves the config's targets as given sets none.
    assert.equal(trainerLoraTargets('model = get_peft_model(model, peft_config)\n'), undefined);
    // A name the module does not define as a collector of linear layers is not read.
    assert.equal(trainerLoraTargets('peft_config.target_modules = pick_targets(model)\n'), undefined);
  });

  it('reads a trainer named as a TRL trainer with a word of its own as that trainer, and SPPOTrainer as none', () => {
    // xuanduy04/trl_tool@5323a54 scripts/main/main_grpo_tool.py: GRPOToolTrainer extends GRPOTrainer in the repository's
    // vendored TRL (trl/trainer/grpo_tool_trainer.py:74).
    const script = (cls: string) =>
      `from trl import ${cls}\ntrainer = ${cls}(model="Qwen/Qwen2.5-3B", args=training_args)\ntrainer.train()\n`;
    const fact = (cls: string, key: string) => analyzeHfPython(script(cls)).facts.find((f) => f.key === key)?.value;
    assert.equal(fact('GRPOToolTrainer', 'rollout'), 'grpo');
    assert.equal(fact('GRPOToolTrainer', 'hfTrainer'), 'GRPOTrainer');
    assert.equal(fact('CustomDPOTrainer', 'preference'), 'dpo');
    // A prefix whose last letters are capitals (xirui-li/VisualThinker-R1-Zero's Qwen2VLGRPOTrainer) still names one.
    assert.equal(fact('Qwen2VLGRPOTrainer', 'hfTrainer'), 'GRPOTrainer');
    // ZIYU-DEEP/eva's SPPOTrainer (a DPOTrainer copy over transformers' Trainer): no TRL trainer by its name.
    assert.equal(fact('SPPOTrainer', 'hfTrainer'), undefined);
  });
});
