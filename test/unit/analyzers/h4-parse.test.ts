// alignment-handbook's `H4ArgumentParser(...).parse()` (alignment/configs.py): with a YAML first on the command line,
// `parse_yaml_and_args(os.path.abspath(sys.argv[1]), sys.argv[2:])`, the file's keys fill the dataclasses and the line's
// flags go over them. The shape of taishan1994/DPO-Finetuning's finetune_dpo.py, whose YAML sets
// `use_flash_attention_2: true` for `from_pretrained(..., use_flash_attention_2=model_args.use_flash_attention_2)`.
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const files = {
  'train.py': [
    'from dataclasses import dataclass, field',
    'from alignment import H4ArgumentParser',
    'from transformers import AutoModelForCausalLM',
    'from trl import DPOConfig, DPOTrainer',
    '@dataclass',
    'class ModelArguments:',
    '    model_name_or_path: str = field(default="Qwen/Qwen2.5-0.5B")',
    '    use_flash_attention_2: bool = field(default=False)',
    'parser = H4ArgumentParser((ModelArguments, DPOConfig))',
    'model_args, training_args = parser.parse()',
    'model = AutoModelForCausalLM.from_pretrained(',
    '    model_args.model_name_or_path, use_flash_attention_2=model_args.use_flash_attention_2)',
    'DPOTrainer(model=model, args=training_args).train()',
    '',
  ].join('\n'),
  'config.yaml': 'model_name_or_path: Qwen/Qwen2.5-1.5B\nuse_flash_attention_2: true\n',
  'run.sh': 'accelerate launch train.py config.yaml --output_dir out\n',
};

describe('hf-python: H4ArgumentParser.parse() reads the YAML first on the command line', () => {
  it("the YAML's keys fill the dataclasses: its model and its FlashAttention-2 switch", () => {
    const r = runProject(files, 'run.sh');
    assert.equal(r.decided.model?.fact.value, 'Qwen/Qwen2.5-1.5B');
    assert.equal(r.setup?.attention, 'flash');
  });
});
