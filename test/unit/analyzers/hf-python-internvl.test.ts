// InternVL's own fine-tuning script (src/analyzers/hf-python/internvl.ts): the LoRA its model makes itself, the
// checkpointing it turns on in the language model and the FlashAttention-2 it sets, read from an abridged copy of
// OpenGVLab/InternVL internvl_chat/internvl/train/internvl_chat_finetune.py as IntMeGroup/DFBench runs it.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { runFact, runProject } from '../helpers';

const SCRIPT = `from dataclasses import dataclass, field
from typing import Optional
import torch
from transformers import HfArgumentParser, Trainer, TrainingArguments
from internvl.model.internvl_chat import InternVLChatConfig, InternVLChatModel


@dataclass
class ModelArguments:
    model_name_or_path: Optional[str] = field(default=None)
    freeze_llm: bool = field(default=False)
    use_llm_lora: int = field(default=0)
    grad_checkpoint: Optional[bool] = field(default=True)


@dataclass
class DataTrainingArguments:
    max_seq_length: Optional[int] = field(default=2048)


def _freeze_params(module):
    for param in module.parameters():
        param.requires_grad = False


def main():
    parser = HfArgumentParser((ModelArguments, DataTrainingArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    config = InternVLChatConfig.from_pretrained(model_args.model_name_or_path)
    if config.llm_config.model_type == 'internlm2':
        config.llm_config.attn_implementation = 'flash_attention_2'
    else:
        config.llm_config._attn_implementation = 'flash_attention_2'
    model = InternVLChatModel.from_pretrained(model_args.model_name_or_path, torch_dtype=torch.bfloat16, config=config)
    if model_args.grad_checkpoint:
        model.language_model._set_gradient_checkpointing()
    if model_args.freeze_llm:
        _freeze_params(model.language_model)
    if model_args.use_llm_lora:
        model.wrap_llm_lora(r=model_args.use_llm_lora, lora_alpha=2 * model_args.use_llm_lora)
    trainer = Trainer(model=model, args=training_args)
    trainer.train()


if __name__ == '__main__':
    main()
`;

/** InternVLChatModel's own LoRA methods (modeling_internvl_chat.py, shortened): read where the script calls them. */
const MODELING = `from peft import LoraConfig, get_peft_model
from transformers import PreTrainedModel


class InternVLChatModel(PreTrainedModel):
    def __init__(self, config, vision_model=None, language_model=None):
        super().__init__(config)
        if config.use_backbone_lora:
            self.wrap_backbone_lora(r=config.use_backbone_lora, lora_alpha=2 * config.use_backbone_lora)
        if config.use_llm_lora:
            self.wrap_llm_lora(r=config.use_llm_lora, lora_alpha=2 * config.use_llm_lora)

    def wrap_backbone_lora(self, r=128, lora_alpha=256, lora_dropout=0.05):
        lora_config = LoraConfig(r=r, target_modules=['attn.qkv', 'attn.proj', 'mlp.fc1', 'mlp.fc2'], lora_alpha=lora_alpha)
        self.vision_model = get_peft_model(self.vision_model, lora_config)

    def wrap_llm_lora(self, r=128, lora_alpha=256, lora_dropout=0.05):
        lora_config = LoraConfig(r=r, target_modules=['wqkv', 'wo', 'w1', 'w2', 'w3'], lora_alpha=lora_alpha)
        self.language_model = get_peft_model(self.language_model, lora_config)
`;

/** The script beside InternVL's model package, in a folder of its own (module files are looked for on disk). */
function runWithModel(launch: string): PipelineResult {
  return runProject(
    {
      'internvl/train/finetune.py': SCRIPT,
      'internvl/model/internvl_chat/__init__.py':
        'from .modeling_internvl_chat import InternVLChatModel\nfrom .configuration_internvl_chat import InternVLChatConfig\n',
      'internvl/model/internvl_chat/modeling_internvl_chat.py': MODELING,
      'internvl/model/internvl_chat/configuration_internvl_chat.py': 'class InternVLChatConfig:\n    pass\n',
      'train.sh': launch,
    },
    'train.sh',
  );
}

function run(launch: string): PipelineResult {
  const files: Record<string, string> = { '/p/internvl/train/finetune.py': SCRIPT, '/p/train.sh': launch };
  const reader: FileReader = {
    read: (p) => files[p],
    join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
  };
  return runPipeline([{ file: '/p/train.sh', text: launch }], reader, {});
}

const LAUNCH = (extra: string): string =>
  'torchrun --nproc_per_node=1 internvl/train/finetune.py --model_name_or_path internlm/internlm2_5-7b-chat ' +
  `--output_dir out --bf16 True --per_device_train_batch_size 4 --max_seq_length 4096 ${extra}\n`;

describe('hf-python: InternVL fine-tuning script', () => {
  it('--use_llm_lora 8: LoRA r 8, alpha 16 on every linear layer of the language model, checkpointed, FlashAttention-2', () => {
    const r = run(LAUNCH('--use_llm_lora 8'));
    assert.equal(r.setup?.method, 'lora');
    // wrap_llm_lora(r=model_args.use_llm_lora, lora_alpha=2 * model_args.use_llm_lora), read with the launch line's 8.
    assert.deepEqual([r.setup?.lora?.r, r.setup?.lora?.alpha, r.setup?.lora?.target_modules], [8, 16, 'all-linear']);
    assert.equal(r.setup?.lora?.dropout, 0.05);
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    assert.equal(r.setup?.attention, 'flash');
    assert.equal(runFact(r, 'method')?.at, 'model.wrap_llm_lora');
  });

  it('without --use_llm_lora the branch does not run: a full fine-tune; --grad_checkpoint False turns checkpointing off', () => {
    const full = run(LAUNCH('--grad_checkpoint False'));
    assert.notEqual(full.setup?.method, 'lora');
    assert.notEqual(full.setup?.gradient_checkpointing, 'full');
    assert.ok(!full.problems.some((p) => p.code === 'not-modeled'));
  });

  it("the model's own LoraConfigs, read with the run, are not the run's: its call in the script decides", () => {
    // OpenGVLab/InternVL internvl2_5_8b_dynamic_res_2nd_finetune_full.sh had been read as the vision tower's LoRA over
    // the language model (0 parameters trained), and the LoRA script's r from the model's __init__.
    const full = runWithModel(LAUNCH(''));
    assert.ok(full.files.some((f) => f.file.endsWith('modeling_internvl_chat.py')));
    assert.equal(full.setup?.method, 'full');
    assert.ok(!full.problems.some((p) => /Target modules/.test(p.message)));
    const lora = runWithModel(LAUNCH('--use_llm_lora 16'));
    assert.deepEqual([lora.setup?.method, lora.setup?.lora?.r, lora.setup?.lora?.alpha], ['lora', 16, 32]);
  });

  it('--freeze_llm True without LoRA: a warning at _freeze_params that what trains instead is not read', () => {
    // InternVL's projector-only stage (freeze_llm and freeze_backbone, mlp1 trained): estimated as trained, said so.
    const frozen = run(LAUNCH('--freeze_llm True'));
    const warning = frozen.problems.find((p) => p.code === 'not-modeled');
    assert.match(warning?.message ?? '', /model\.language_model is frozen here.*: estimated as trained/);
    // With the language model's LoRA the frozen base is what LoRA trains over: no warning.
    const lora = run(LAUNCH('--freeze_llm True --use_llm_lora 8'));
    assert.ok(!lora.problems.some((p) => p.code === 'not-modeled'));
    assert.equal(lora.setup?.method, 'lora');
  });
});

describe('hf-python: a LoraConfig built in a function called only where it does not run', () => {
  it('is a full fine-tune (a copy of wrap_backbone_lora under `if margs.use_backbone_lora:` defaulting to 0)', () => {
    const script = [
      'import torch, transformers',
      'from dataclasses import dataclass, field',
      'from peft import LoraConfig, get_peft_model',
      '@dataclass',
      'class ModelArguments:',
      '    use_backbone_lora: int = field(default=0)',
      'class Wrapper(torch.nn.Module):',
      '    def wrap_backbone_lora(self, r=128):',
      '        self.vision_model = get_peft_model(self.vision_model, LoraConfig(r=r, target_modules=["attn.qkv"]))',
      'parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))',
      'margs, targs = parser.parse_args_into_dataclasses()',
      'lm = transformers.AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B-Instruct")',
      'model = Wrapper()',
      'if margs.use_backbone_lora:',
      '    model.wrap_backbone_lora(r=margs.use_backbone_lora)',
      'transformers.Trainer(model=lm, args=targs).train()',
      '',
    ].join('\n');
    const r = runProject({ 'train.py': script, 'run.sh': 'python train.py --output_dir o\n' }, 'run.sh');
    assert.equal(r.setup?.method, 'full');
  });
});
