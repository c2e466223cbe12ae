// The fine-tuning configs of THUDM's GLM repositories (THUDM/ChatGLM3 finetune_demo/configs/*.yaml, THUDM/GLM-4
// finetune/configs/*.yaml, and the projects that copy them), which `finetune_hf.py` / `finetune.py <data_dir>
// <model_dir> <config_file>` reads: `training_args` are Seq2SeqTrainingArguments, `peft_config` is PEFT's
// get_peft_config(config_dict=...) (LORA, or PREFIX_TUNING for P-tuning v2), and every sample is cut to
// max_input_length + max_output_length + 1 tokens (process_batch: `max_length = max_input_length + max_output_length
// + 1`), the batch padded to its longest (DataCollatorForSeq2Seq, padding='longest'). Their evaluation set has no labels
// (process_batch_eval: input_ids and output_ids), so with predict_with_generate the evaluation only generates. The
// model is the command line's
// second argument, not in the file. Sources: THUDM/GLM-4@3f79b54 finetune/finetune.py and configs/lora.yaml,
// THUDM/ChatGLM3 finetune_demo/finetune_hf.py. Pure: no I/O.
// Docs: docs/formats.md
import type { ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { analyzeHfEntries } from './hf-yaml';
import { peftConfigMapping } from './peft-config';
import { asBool, asPosInt, type Entry } from './values';

/** Whether top-level keys are a GLM fine-tuning config: `data_config` and `training_args` beside the two lengths. */
export function isGlmFinetuneYaml(keys: ReadonlySet<string>): boolean {
  return (
    keys.has('data_config') &&
    keys.has('training_args') &&
    keys.has('max_input_length') &&
    keys.has('max_output_length')
  );
}

export function analyzeGlmFinetuneYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'glm-finetune-yaml', tool: 'hf-trainer', omegaconf: false });
  return guarded(ctx, () => {
    const top = ctx.top();
    const args = ctx.sub(top.get('training_args'));
    analyzeHfEntries(ctx, args);
    lengths(ctx, top.get('max_input_length'), top.get('max_output_length'));
    evaluationByGeneration(ctx, args, top.get('max_input_length'));
    peftConfigMapping(ctx, ctx.sub(top.get('peft_config')));
  });
}

/** The longest sample, max_input_length + max_output_length + 1, at max_output_length; batches padded to their longest. */
function lengths(ctx: YamlCtx, input: Entry | undefined, output: Entry | undefined): void {
  if (!input || !output) return;
  const a = asPosInt(ctx.view(input));
  const b = asPosInt(ctx.view(output));
  if (typeof a !== 'number' || typeof b !== 'number') return;
  ctx.add('seqLen', output, a + b + 1, 'max_input_length + max_output_length + 1');
  ctx.add('batchLengths', output, 'variable', 'max_output_length');
}

/**
 * predict_with_generate over the scripts' evaluation set, which has no labels (process_batch_eval returns input_ids and
 * output_ids; their Seq2SeqTrainer.prediction_step pops output_ids): Seq2SeqTrainer generates, at most
 * generation_config.max_new_tokens after prompts of up to max_input_length + 1 tokens (the prompt cut to
 * max_input_length and the assistant's role token), and runs no loss forward (has_labels is False).
 */
function evaluationByGeneration(ctx: YamlCtx, args: ReadonlyMap<string, Entry>, input: Entry | undefined): void {
  const generate = args.get('predict_with_generate');
  const maxNew = ctx.sub(args.get('generation_config')).get('max_new_tokens');
  if (!generate || !maxNew || !input || asBool(ctx.view(generate)) !== true) return;
  const tokens = asPosInt(ctx.view(maxNew));
  const prompt = asPosInt(ctx.view(input));
  if (typeof tokens !== 'number' || typeof prompt !== 'number') return;
  ctx.add('evalNewTokens', maxNew, tokens, 'generation_config.max_new_tokens');
  ctx.add('evalPromptLen', input, prompt + 1, 'max_input_length + 1');
}
