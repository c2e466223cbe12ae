// A model class of the script whose forward computes a fused linear cross-entropy (src/analyzers/hf-python/own-loss.ts).
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
  });

  it('reads nothing of another method, or of a plain cross-entropy over the logits', () => {
    assert.equal(lossOf(script('ChunkedCE.apply(x_, self.lm_head.weight, labels, True)', 'score')), undefined);
    assert.equal(lossOf(script('torch.nn.functional.cross_entropy(self.lm_head(x_), labels)')), undefined);
  });
});
