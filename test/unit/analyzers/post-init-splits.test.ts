// A dataclass field that its class's __post_init__ splits into a list (hf-python/post-init-splits.ts): the shape of
// hiyouga/ChatGLM-Efficient-Tuning's FinetuningArguments (`lora_target: Optional[str] = field(default=
// "query_key_value")`, then `self.lora_target = [target.strip() for target in self.lora_target.split(",")]`), also in
// LLaMA-Factory's releases. PEFT reads a str target_modules as a regular expression matched against whole module
// names and a list by suffix (peft/tuners/tuners_utils.py check_target_module_exists), so the split decides LoRA.
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const script = [
  'from dataclasses import dataclass, field',
  'from typing import Optional',
  'from peft import LoraConfig, get_peft_model',
  'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
  '',
  '@dataclass',
  'class FinetuningArguments:',
  '    lora_target: Optional[str] = field(default="q_proj, v_proj")',
  '    checkpoint_dir: Optional[str] = field(default=None)',
  '',
  '    def __post_init__(self):',
  '        if isinstance(self.lora_target, str):',
  '            self.lora_target = [target.strip() for target in self.lora_target.split(",")]',
  '        if self.checkpoint_dir is not None:',
  '            self.checkpoint_dir = [cd.strip() for cd in self.checkpoint_dir.split(",")]',
  '',
  'parser = HfArgumentParser((FinetuningArguments, TrainingArguments))',
  'ft, training_args = parser.parse_args_into_dataclasses()',
  'name = "Qwen/Qwen2.5-7B" if ft.checkpoint_dir is None else ft.checkpoint_dir[0]',
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
  'model = get_peft_model(model, LoraConfig(r=8, target_modules=ft.lora_target))',
  'Trainer(model=model, args=training_args).train()',
  '',
].join('\n');

describe('hf-python: a field its __post_init__ splits into a list', () => {
  it("the default's parts are the LoRA targets (a list PEFT matches by suffix, not a regular expression)", () => {
    const r = runProject({ 'train.py': script }, 'train.py');
    assert.deepEqual(r.setup?.lora?.target_modules, ['q_proj', 'v_proj']);
    assert.ok(!r.problems.some((p) => /regular expression/.test(p.message)));
  });

  it("the launch line's string is split the same way", () => {
    const line = 'python train.py --output_dir o --lora_target q_proj,k_proj,v_proj --checkpoint_dir a,b\n';
    const r = runProject({ 'train.py': script, 'run.sh': line }, 'run.sh');
    assert.deepEqual(r.setup?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj']);
  });

  it('a list is not None (`x is not None and ...` decides the branch as Python does)', () => {
    const text = [
      'from transformers import AutoModelForCausalLM',
      'x = ["a", "b"]',
      'mode = "lora"',
      'if x is not None and mode == "full":',
      '    name = "Qwen/Qwen2.5-7B"',
      'else:',
      '    name = "Qwen/Qwen2.5-0.5B"',
      'AutoModelForCausalLM.from_pretrained(name)',
      '',
    ].join('\n');
    const r = runProject({ 'load.py': text }, 'load.py');
    assert.equal(r.decided.model?.fact.value, 'Qwen/Qwen2.5-0.5B');
  });
});
