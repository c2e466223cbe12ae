// ChatGLM's remote code builds its weights in its config's 16 bits under transformers 4 too, where from_pretrained
// without a dtype loads Llama-style code in float32 (FamilyTraits.ownWeightDtype; src/analyzers/resolve/model.ts and
// src/analyzers/pinned-versions.ts).
import * as assert from 'node:assert/strict';
import { runFiles as runOf } from '../helpers';

describe("ChatGLM's remote code keeps its 16-bit weights under transformers 4", () => {
  it('chatglm3-6b without a dtype under 4.x: float16 (its config), not float32', () => {
    // THUDM/ChatGLM3 finetune_demo (abridged): loaded with trust_remote_code, no dtype; Trainer(tokenizer=) dates it
    // to transformers 4.x, where Llama-style code would load float32.
    const script = (model: string): string =>
      [
        'from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments',
        `model = AutoModelForCausalLM.from_pretrained("${model}", trust_remote_code=True)`,
        `tok = AutoTokenizer.from_pretrained("${model}", trust_remote_code=True)`,
        'Trainer(model=model, args=TrainingArguments(output_dir="o"), tokenizer=tok).train()',
        '',
      ].join('\n');
    const glm = runOf({ '/p/t.py': script('THUDM/chatglm3-6b') }, '/p/t.py');
    assert.equal(glm.setup?.transformers_version, '4.57');
    assert.equal(glm.setup?.weights_dtype, 'fp16');
    const p = glm.provenance?.weights_dtype;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /_config_to_kwargs: dtype=config\.torch_dtype/);
    const llama = runOf({ '/p/t.py': script('meta-llama/Llama-2-7b-hf') }, '/p/t.py');
    assert.equal(llama.setup?.weights_dtype, 'fp32');
  });

  it('under a transformers 4 pin of the project too (pinned-versions.ts)', () => {
    const script =
      'from transformers import AutoModel, Trainer, TrainingArguments\n' +
      'model = AutoModel.from_pretrained("THUDM/chatglm2-6b", trust_remote_code=True)\n' +
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()\n';
    const pinned = runOf({ '/p/t.py': script, '/p/requirements.txt': 'transformers==4.30.2\n' }, '/p/t.py');
    assert.equal(pinned.setup?.transformers_version, '4.30.2');
    assert.equal(pinned.setup?.weights_dtype, 'fp16');
    const p = pinned.provenance?.weights_dtype;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /float16 under transformers 4\.30\.2 too: ChatGLM2/);
  });
});
