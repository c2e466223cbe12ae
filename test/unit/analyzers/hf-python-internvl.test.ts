// InternVL's own fine-tuning script (src/analyzers/hf-python/internvl.ts): the LoRA its model makes itself, the
// checkpointing it turns on in the language model and the FlashAttention-2 it sets, read from an abridged copy of
// OpenGVLab/InternVL internvl_chat/internvl/train/internvl_chat_finetune.py as IntMeGroup/DFBench runs it.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { runFact } from '../helpers';

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
