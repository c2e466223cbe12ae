// Fields of TRL's configs given to transformers' own TrainingArguments, which has none of them. Pure: it reads the
// syntax tree and never runs code.
import { msg } from '../facts';
import type { Entry, PythonFile } from './file';

/**
 * Fields of TRL's configs that transformers' TrainingArguments does not have: the dataclass raises TypeError on them
 * (Navid-Gen-AI/llama3-orpo-lora-finetune's train_model.py passes beta, max_length and max_prompt_length to it for an
 * ORPOTrainer). Said at each, as the script as written stops there.
 */
const TRL_CONFIG_FIELDS: ReadonlySet<string> = new Set([
  'beta',
  'max_length',
  'max_prompt_length',
  'max_completion_length',
  'max_target_length',
  'max_seq_length',
  'packing',
  'dataset_text_field',
  'num_generations',
  'precompute_ref_log_probs',
  'rpo_alpha',
  'desirable_weight',
  'undesirable_weight',
  'generate_during_eval',
  'truncation_mode',
  'model_init_kwargs',
  'ref_model_init_kwargs',
  'use_vllm',
  'completion_only_loss',
  'assistant_only_loss',
]);

/** Each such field of a TrainingArguments(...) call, said at its key. */
export function trlFieldsOfTrainingArguments(file: PythonFile, entries: readonly Entry[]): void {
  for (const e of entries)
    if (TRL_CONFIG_FIELDS.has(e.rawKey))
      file.problem(
        'invalid-value',
        'warning',
        msg(
          "{0}: transformers' TrainingArguments has no {0} (a field of TRL's configs: SFTConfig, DPOConfig, " +
            'ORPOConfig, ...): the call raises TypeError when the script runs; pass it to the TRL config',
          e.rawKey,
        ),
        e.keySpan,
        e.rawKey,
      );
}
