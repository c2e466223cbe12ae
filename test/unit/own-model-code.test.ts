// The script's own model code (src/analyzers/hf-python/own-model-code.ts): a model class whose forward computes a fused
// linear cross-entropy, and module classes of the script set into the model.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../src/analyzers/hf-python';

/** mesolitica/malaya@ddbfe3ba session/qwen2.5/train.py lines 286-305, shortened, with the loss call given. */
const script = (loss: string, method = 'forward'): string =>
  [
    'from transformers import Qwen2ForCausalLM, Trainer, TrainingArguments',
    'from chunk_loss_lora.ce import ChunkedCE',
    'class Model(Qwen2ForCausalLM):',
    '    def __init__(self, config):',
    '        super().__init__(config)',
    `    def ${method}(self, input_ids, attention_mask=None, labels=None, **kwargs):`,
    '        super_out = self.model.forward(input_ids=input_ids, attention_mask=attention_mask)',
    '        x_ = super_out.last_hidden_state.reshape(-1, super_out.last_hidden_state.shape[-1])',
    `        loss = ${loss}`,
    '        return {"loss": loss}',
    'model = Model.from_pretrained("Qwen/Qwen2.5-7B")',
    'trainer = Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=3))',
    'trainer.train()',
    '',
  ].join('\n');

const lossOf = (text: string) => analyzeHfPython(text).facts.find((f) => f.key === 'loss')?.value;

describe("a loss the script's model class computes itself", () => {
  it('reads a fused linear cross-entropy in its forward as the fused loss (no full logits)', () => {
    assert.equal(lossOf(script('ChunkedCE.apply(x_, self.lm_head.weight, labels, True)')), 'fused');
    // small-ablation's openai-oss-sft-lora.py: Liger's loss module; cut-cross-entropy's function.
    assert.equal(lossOf(script('LigerFusedLinearCrossEntropyLoss()(self.lm_head.weight, x_, labels)')), 'fused');
    assert.equal(lossOf(script('linear_cross_entropy(x_, self.lm_head.weight, labels)')), 'fused');
    // Scicom-AI-Enterprise-Organization/small-ablation@a664148 fsdp1-peft-vs-fsdp2/fsdp1-peft.py lines 104 and 118: the
    // module made in __init__ (`self.loss = LigerFusedLinearCrossEntropyLoss(reduction="sum")`), called in forward.
    const held = script('self.loss(self.lm_head.weight, x_, labels)').replace(
      '        super().__init__(config)',
      '        super().__init__(config)\n        self.loss = LigerFusedLinearCrossEntropyLoss(reduction="sum")',
    );
    assert.equal(lossOf(held), 'fused');
    // An attribute holding another loss is not one.
    assert.equal(lossOf(held.replace('LigerFusedLinearCrossEntropyLoss(', 'nn.CrossEntropyLoss(')), undefined);
  });

  it('reads nothing of another method, or of a plain cross-entropy over the logits', () => {
    assert.equal(lossOf(script('ChunkedCE.apply(x_, self.lm_head.weight, labels, True)', 'score')), undefined);
    assert.equal(lossOf(script('torch.nn.functional.cross_entropy(self.lm_head(x_), labels)')), undefined);
  });
});

describe('module classes of the script set into the model', () => {
  it('warns that their parameters are not counted, once per class, at its call', () => {
    // Scicom-AI-Enterprise-Organization/small-ablation@a664148 malaysian-reasoning/openai-oss-sft-lora.py lines 144,
    // 237, 380-419, shortened.
    const text = [
      'import torch.nn as nn',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'class LinearLoRA(nn.Module):',
      '    def __init__(self, linear, r, alpha):',
      '        super().__init__()',
      '        self.lora_A = nn.Linear(linear.in_features, r, bias=False)',
      'model = AutoModelForCausalLM.from_pretrained("openai/gpt-oss-20b")',
      'for name, param in model.named_parameters():',
      '    param.requires_grad = False',
      'for name, module in model.named_modules():',
      '    for child_name, child in module.named_children():',
      '        if child_name in ("q_proj", "v_proj"):',
      '            lora = LinearLoRA(child, r=64, alpha=128)',
      '            setattr(module, child_name, lora)',
      '        if child_name == "o_proj":',
      '            setattr(module, child_name, LinearLoRA(child, r=64, alpha=128))',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const warnings = analyzeHfPython(text).problems.filter(
      (p) => p.code === 'not-modeled' && /LinearLoRA/.test(p.message),
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /a module class of the script set into the model/);
    assert.equal(text.slice(warnings[0].span.start, warnings[0].span.end), 'LinearLoRA');
    // A class the script does not define, or one that is no module, is not said.
    const other = text.replace('class LinearLoRA(nn.Module):', 'class LinearLoRA:');
    assert.ok(!analyzeHfPython(other).problems.some((p) => /LinearLoRA/.test(p.message)));
  });
});
