// What a model's own remote code decides (src/analyzers/remote-code.ts): Qwen-1's modeling_qwen.py takes no
// attn_implementation; with use_flash_attn "auto" it runs flash-attn where installed (Qwen's fine-tuning README has it
// installed; QwenLM/Qwen@e8e1596's table: "Flash attention 2 is applied"), else torch 2's SDPA.
import * as assert from 'node:assert/strict';
import { resolveText } from '../helpers';

const script = (dtype: string) =>
  [
    'import torch',
    'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
    `model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen-7B", trust_remote_code=True, torch_dtype=${dtype})`,
    'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=1)).train()',
    '',
  ].join('\n');

describe("analyzers: attention a model's own code picks", () => {
  it("Qwen-1 in 16 bits runs flash-attn's kernel, not transformers' default, said as such", () => {
    const r = resolveText('train.py', script('torch.bfloat16'));
    assert.equal(r.setup?.attention, 'flash');
    const p = r.provenance.attention;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /Qwen-1's modeling_qwen\.py runs flash-attn/);
  });

  it('asked for fp32 by torch_dtype, it casts itself to bf16 all the same and runs flash-attn', () => {
    // modeling_qwen.py: autoset_precision sets config.bf16, then use_flash_attn "auto" turns on for 16 bits.
    const r = resolveText('train.py', script('torch.float32')).setup;
    assert.deepEqual([r?.weights_dtype, r?.attention], ['bf16', 'flash']);
  });

  it('an attention a file gives stands, and other models keep their defaults', () => {
    const given = script('torch.bfloat16').replace(
      'trust_remote_code=True,',
      'trust_remote_code=True, attn_implementation="eager",',
    );
    assert.equal(resolveText('train.py', given).setup?.attention, 'eager');
    const qwen2 = resolveText('train.py', script('torch.bfloat16').replace('Qwen/Qwen-7B', 'Qwen/Qwen2.5-7B'));
    assert.equal(qwen2.setup?.attention, 'sdpa');
  });

  it('Qwen-1 loaded without a dtype is cast to bf16 by its own code, its config naming no precision', () => {
    // nju-websoft/FormulaReasoning run_qwen.py: from_pretrained(model_path) with no torch_dtype; Qwen/Qwen-7B's
    // config.json has bf16, fp16 and fp32 all false, so QWenLMHeadModel.__init__ sets bf16 (autoset_precision).
    const plain = script('torch.bfloat16').replace(', torch_dtype=torch.bfloat16', '');
    const r = resolveText('train.py', plain);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    const p = r.provenance.weights_dtype;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /autoset_precision/);
    // A dtype the load asks is cast the same (LB-Young/LLM_finetune's qwen_dpo.py: torch_dtype='auto' over a config
    // without torch_dtype had read as fp32, 79.3 GiB against about 45): the model's __init__ reads only bf16 / fp16 /
    // fp32 of its config, and says so at the file's dtype.
    for (const dtype of ['torch.float32', '"auto"']) {
      const given = resolveText('train.py', script(dtype));
      assert.equal(given.setup?.weights_dtype, 'bf16');
      const g = given.provenance.weights_dtype;
      assert.match(
        g?.kind === 'default' ? (g.note ?? '') : '',
        /whatever dtype from_pretrained loaded \(torch_dtype at train\.py:3\)/,
      );
    }
  });
});
