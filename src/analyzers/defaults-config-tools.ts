// The defaults of the training tools run from one config file of their own (Oumi, AutoTrain, mistral-finetune,
// Ludwig, align-anything) for the values the file leaves out, with where each comes from: part of TOOL_DEFAULTS (defaults.ts). Pure data.
import type { Field, ToolDefault } from './defaults';
import type { Tool } from './facts';

const OUMI = 'oumi-ai/oumi@d8ed077:src/oumi/core/configs/params';
const AUTOTRAIN = 'huggingface/autotrain-advanced@b5c98fb:src/autotrain/trainers/clm';
const MISTRAL_FINETUNE = 'mistralai/mistral-finetune@1943535';
const LUDWIG = 'ludwig-ai/ludwig@be821e4 (v0.10.4):ludwig/schema/trainer.py';
const ALIGN_ANYTHING = 'PKU-Alignment/align-anything@3f9decc:align_anything';

export const CONFIG_TOOL_DEFAULTS: Partial<Record<Tool, Partial<Record<Field, ToolDefault>>>> = {
  oumi: {
    micro_batch_size: { value: 8, note: `Oumi per_device_train_batch_size defaults to 8 (${OUMI}/training_params.py)` },
    gradient_checkpointing: {
      value: 'none',
      note: `Oumi enable_gradient_checkpointing defaults to False (${OUMI}/training_params.py)`,
    },
    optimizer: { value: 'adamw', note: `Oumi optimizer defaults to adamw_torch (${OUMI}/training_params.py)` },
    mixed_precision: {
      value: 'none',
      note: `Oumi mixed_precision_dtype defaults to NONE: no autocast (${OUMI}/training_params.py)`,
    },
  },
  autotrain: {
    micro_batch_size: { value: 2, note: `AutoTrain batch_size defaults to 2 (${AUTOTRAIN}/params.py)` },
    gradient_accumulation_steps: {
      value: 4,
      note: `AutoTrain gradient_accumulation defaults to 4 (${AUTOTRAIN}/params.py)`,
    },
    gradient_checkpointing: {
      value: 'full',
      note: `AutoTrain checkpoints unless disable_gradient_checkpointing (${AUTOTRAIN}/utils.py configure_training_args)`,
    },
    optimizer: { value: 'adamw', note: `AutoTrain optimizer defaults to adamw_torch (${AUTOTRAIN}/params.py)` },
    mixed_precision: {
      value: 'none',
      note: `AutoTrain mixed_precision defaults to None: no autocast (${AUTOTRAIN}/params.py)`,
    },
  },
  'mistral-finetune': {
    micro_batch_size: {
      value: 1,
      note: `mistral-finetune batch_size defaults to 1 (${MISTRAL_FINETUNE}:finetune/args.py)`,
    },
    gradient_accumulation_steps: {
      value: 1,
      note: `mistral-finetune num_microbatches defaults to 1 (${MISTRAL_FINETUNE}:finetune/args.py)`,
    },
    seq_len: { value: 2048, note: `mistral-finetune seq_len defaults to 2048 (${MISTRAL_FINETUNE}:finetune/args.py)` },
    batch_lengths: {
      value: 'fixed',
      note: `mistral-finetune packs samples into seq_len tokens per sequence (${MISTRAL_FINETUNE}:finetune/data/data_loader.py)`,
    },
    gradient_checkpointing: {
      value: 'full',
      note: `mistral-finetune checkpoint defaults to True (${MISTRAL_FINETUNE}:finetune/args.py)`,
    },
    optimizer: { value: 'adamw', note: `mistral-finetune steps torch.optim.AdamW (${MISTRAL_FINETUNE}:train.py)` },
    model_logits_fp32: {
      value: true,
      note:
        `mistral-finetune's Transformer returns fp32 logits to its loss (${MISTRAL_FINETUNE}:model/transformer.py: ` +
        '`return self.output(self.norm(h)).float()`)',
    },
    'lora.dtype': {
      value: 'bf16',
      note: `mistral-finetune makes the LoRA weights in bf16 (${MISTRAL_FINETUNE}:finetune/wrapped_model.py)`,
    },
  },
  ludwig: {
    micro_batch_size: { value: 1, note: `Ludwig's finetune trainer batch_size defaults to 1 from v0.10.2 (${LUDWIG})` },
    gradient_accumulation_steps: {
      value: 1,
      note: `Ludwig gradient_accumulation_steps "auto" is 1 without an effective_batch_size (${LUDWIG})`,
    },
    gradient_checkpointing: {
      value: 'none',
      note: `Ludwig enable_gradient_checkpointing defaults to False (${LUDWIG})`,
    },
    optimizer: { value: 'adamw', note: `Ludwig's optimizer defaults to adam, torch.optim.Adam (${LUDWIG})` },
    mixed_precision: {
      value: 'none',
      note: `Ludwig use_mixed_precision defaults to False: no autocast (${LUDWIG})`,
    },
  },
  'align-anything': {
    weights_dtype: {
      value: 'bf16',
      note: `align-anything loads the model in bfloat16 (${ALIGN_ANYTHING}/models/pretrained_model.py load_pretrained_models)`,
    },
    optimizer: {
      value: 'adamw_fused',
      note: `align-anything steps DeepSpeed's FusedAdam (${ALIGN_ANYTHING}/trainers/base/supervised_trainer.py init_deepspeed_engines)`,
    },
    loss: {
      value: 'full',
      note: `align-anything's trainers take the log-probabilities or the loss over the full logits (${ALIGN_ANYTHING}/trainers/text_to_text)`,
    },
    batch_lengths: {
      value: 'variable',
      note:
        'align-anything pads each batch to its longest sample, up to model_max_length ' +
        `(${ALIGN_ANYTHING}/datasets/text_to_text/supervised.py, utils/tools.py right_padding)`,
    },
  },
};
