// Whether a Trainer script makes its model before its TrainingArguments exist. TrainingArguments hands DeepSpeed's
// config to transformers when it is made (training_args.py __post_init__: HfTrainerDeepSpeedConfig for --deepspeed, or
// Accelerate's DeepSpeedPlugin and set_deepspeed_weakref under `accelerate launch`), and from_pretrained builds the
// model inside deepspeed.zero.Init only once it has: a model loaded before is made whole and handed to
// deepspeed.initialize, whatever Accelerate's zero3_init_flag says. That changes ZeRO-3's memory (the linears' saved
// weights before DeepSpeed 0.19.4, PEFT's adapters cast with the module: core/terms/zero3-linear-kept.ts,
// analyzers/deepspeed-adapters.ts). Read where the order is plain: both calls in the same function or both at module
// level. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { enclosingFunction } from './loop';
import { isModelLoad, span } from './syntax';
import { HF_ARGS, TRL_CONFIGS } from './vocab';

/** HfArgumentParser's and TrlParser's methods that make the arguments dataclasses. */
const PARSE_METHODS = new Set([
  'parse_args_into_dataclasses',
  'parse_args_and_config',
  'parse_yaml_file',
  'parse_json_file',
  'parse_dict',
]);

/** The first call, in the text's order, that `pick` accepts. */
function firstCall(
  file: PythonFile,
  calls: readonly SyntaxNode[],
  pick: (parts: string[]) => boolean,
): SyntaxNode | undefined {
  let first: SyntaxNode | undefined;
  for (const c of calls) {
    const parts = file.calleeName(c)?.split('.') ?? [];
    if (parts.length > 0 && pick(parts) && (!first || c.from < first.from)) first = c;
  }
  return first;
}

/**
 * Notes the model's from_pretrained when a Trainer script loads it before it makes its TrainingArguments (or parses
 * them), in the same function (analyzers/zero3-init.ts decides from it, over Accelerate's flag).
 */
export function modelBeforeArguments(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const args = firstCall(file, calls, (parts) => {
    const last = parts[parts.length - 1];
    return HF_ARGS.has(last) || TRL_CONFIGS.has(last) || file.localArgs.has(last) || PARSE_METHODS.has(last);
  });
  const load = firstCall(file, calls, isModelLoad);
  if (!args || !load || load.from > args.from) return;
  if (enclosingFunction(file, load) !== enclosingFunction(file, args)) return;
  file.modelBeforeArguments = span(load.firstChild!);
}
