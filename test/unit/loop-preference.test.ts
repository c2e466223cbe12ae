// A DPO loop the script writes itself, with a reference model it loads (src/analyzers/hf-python/loop-preference.ts).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../src/analyzers/hf-python';

/**
 * jessicazhu123/Deepspeed_LLM@15d0989 training/direct_preference_optimization/main.py, shortened: the reference loaded
 * and initialized apart from the policy, run under no_grad on the concatenated pairs, and the DPO loss.
 */
const script = (reference: string, loss: string): string =>
  [
    'import torch',
    'import deepspeed',
    'from transformers import AutoModelForCausalLM',
    'from torch.utils.data import DataLoader',
    'def forward_calculation(args, policy_model, reference_model, batch):',
    '    pair_num = batch["input_ids"].size()[0] // 2',
    '    all_logits = policy_model(batch["input_ids"], use_cache=False).logits.to(torch.float32)',
    '    policy_chosen_logps, policy_rejected_logps = split(all_logits, pair_num)',
    '    with torch.no_grad():',
    `        all_logits = ${reference}(batch["input_ids"], use_cache=False).logits.to(torch.float32)`,
    '        reference_chosen_logps, reference_rejected_logps = split(all_logits, pair_num)',
    '    logits = (policy_chosen_logps - policy_rejected_logps) - (reference_chosen_logps - reference_rejected_logps)',
    `    return ${loss}`,
    'def main(args):',
    '    policy_model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", torch_dtype=torch.bfloat16)',
    '    train_dataloader = DataLoader(train_dataset, batch_size=2)',
    '    policy_model, optimizer, _, _ = deepspeed.initialize(model=policy_model, config=ds_config)',
    `    ${reference} = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", torch_dtype=torch.bfloat16)`,
    `    ${reference}, *_ = deepspeed.initialize(model=${reference}, config=ds_config)`,
    '    for step, batch in enumerate(train_dataloader):',
    `        loss = forward_calculation(args, policy_model, ${reference}, batch)`,
    '        policy_model.backward(loss)',
    '        policy_model.step()',
    '',
  ].join('\n');

const fact = (text: string, key: string) => analyzeHfPython(text).facts.find((f) => f.key === key)?.value;
const DPO = '-torch.nn.functional.logsigmoid(args.beta * logits).mean()';

describe('a DPO loop the script writes, with the reference it loads', () => {
  it('is a paired DPO run whose reference is a model of its own', () => {
    const text = script('reference_model', DPO);
    assert.equal(fact(text, 'preference'), 'dpo');
    assert.equal(fact(text, 'referenceModel'), 'given');
  });

  it('reads no preference without the DPO loss, or of a second model not named as a reference', () => {
    assert.equal(fact(script('reference_model', 'logits.mean()'), 'preference'), undefined);
    assert.equal(fact(script('teacher_model', DPO), 'preference'), undefined);
  });
});

/**
 * RLHFlow/RLHF-Reward-Modeling@fc39179 bradley-terry-rm/llama3_8B_rm.py, shortened (TRL's stack_llama reward script):
 * the collator puts each pair's two sequences into one batch; compute_loss splits the rewards by position.
 */
const rewardScript = (stride: string): string =>
  [
    'import torch',
    'import torch.nn as nn',
    'from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments',
    'model = AutoModelForSequenceClassification.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct", num_labels=1)',
    'class RewardTrainer(Trainer):',
    '    def compute_loss(self, model, inputs, return_outputs=False):',
    '        rewards = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"])[0]',
    '        bsz = rewards.size(0)',
    `        jidx = ${stride}`,
    '        kidx = jidx + 1',
    '        loss = -nn.functional.logsigmoid(rewards[jidx] - rewards[kidx]).mean()',
    '        return loss',
    'args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, bf16=True)',
    'RewardTrainer(model=model, args=args, train_dataset=train_dataset).train()',
    '',
  ].join('\n');

describe("a Trainer subclass's pairwise reward loss over one forward of both halves", () => {
  it('is a paired reward run: each example of the micro-batch is two sequences', () => {
    const r = analyzeHfPython(rewardScript('torch.arange(0, bsz, 2)'));
    const f = r.facts.find((x) => x.key === 'preference');
    assert.deepEqual([f?.value, f?.rawKey], ['reward', 'compute_loss']);
  });

  it('reads no preference without the split by position', () => {
    const r = analyzeHfPython(rewardScript('torch.arange(0, bsz)'));
    assert.equal(
      r.facts.some((x) => x.key === 'preference'),
      false,
    );
  });
});
