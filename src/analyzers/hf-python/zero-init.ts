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
import { isModelLoad, span, writtenNames } from './syntax';
import { HF_ARGS, TRL_CONFIGS } from './vocab';

/** HfArgumentParser's and TrlParser's methods that make the arguments dataclasses. */
const PARSE_METHODS = new Set([
  'parse_args_into_dataclasses',
  'parse_args_and_config',
  'parse_yaml_file',
  'parse_json_file',
  'parse_dict',
]);

/** The argument parsers whose parse makes the dataclasses they were given. */
const PARSERS = new Set(['HfArgumentParser', 'TrlParser', 'H4ArgumentParser']);

/** The first call, in the text's order, that `pick` accepts. */
function firstCall(
  file: PythonFile,
  calls: readonly SyntaxNode[],
  pick: (parts: string[], call: SyntaxNode) => boolean,
): SyntaxNode | undefined {
  let first: SyntaxNode | undefined;
  for (const c of calls) {
    const parts = file.calleeName(c)?.split('.') ?? [];
    if (parts.length > 0 && pick(parts, c) && (!first || c.from < first.from)) first = c;
  }
  return first;
}

/**
 * Whether a parse call makes the training arguments: false only where its parser is seen given dataclasses none of
 * which is TrainingArguments, a TRL config or a subclass of one (codingchild2424/lm-trainer-v3's
 * `HfArgumentParser(ScriptArguments)`, whose script makes `TrainingArguments(..., deepspeed=...)` after its load).
 */
function parseMakesTrainingArguments(file: PythonFile, call: SyntaxNode): boolean {
  const callee = call.firstChild;
  let parser = callee?.name === 'MemberExpression' ? callee.firstChild : null;
  if (parser?.name === 'VariableName') {
    const found = file.lookup(file.text.slice(parser.from, parser.to), parser);
    parser = found.k === 'binding' && found.binding.kind === 'assign' ? found.binding.valueNode : null;
  }
  if (parser?.name !== 'CallExpression' || !PARSERS.has(file.calleeName(parser)?.split('.').pop() ?? '')) return true;
  const list = parser.getChild('ArgList');
  const names = list ? writtenNames(file.text, list) : [];
  if (names.length === 0) return true;
  return names.some((n) => HF_ARGS.has(n) || TRL_CONFIGS.has(n) || file.localArgs.has(n) || !file.localClasses.has(n));
}

/**
 * Notes the model's from_pretrained when a Trainer script loads it before it makes its TrainingArguments (or parses
 * them), in the same function (analyzers/zero3-init.ts decides from it, over Accelerate's flag).
 */
export function modelBeforeArguments(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const args = firstCall(file, calls, (parts, call) => {
    const last = parts[parts.length - 1];
    if (PARSE_METHODS.has(last)) return parseMakesTrainingArguments(file, call);
    return HF_ARGS.has(last) || TRL_CONFIGS.has(last) || file.localArgs.has(last);
  });
  const load = firstCall(file, calls, isModelLoad);
  if (!args || !load || load.from > args.from) return;
  if (enclosingFunction(file, load) !== enclosingFunction(file, args)) return;
  file.modelBeforeArguments = span(load.firstChild!);
}

/** What makes the model under zero.Init in any file of a run: transformers' integration or DeepSpeed's own context. */
export const ZERO_INIT_CONTEXT = /\b(?:HfDeepSpeedConfig|zero\.Init)\s*\(/;

/** The same in the loop's own file, or an Accelerator, whose plugin hands transformers DeepSpeed's config. */
const ZERO_INIT_MAKERS = new RegExp(`${ZERO_INIT_CONTEXT.source}|\\bAccelerator\\s*\\(`);

/**
 * Notes the model's from_pretrained where a written-out loop hands its model to deepspeed.initialize itself, after the
 * load and with nothing in the file that would make the model under zero.Init (HfDeepSpeedConfig, `with
 * deepspeed.zero.Init()`, an Accelerator whose plugin hands transformers DeepSpeed's config): from_pretrained makes it
 * whole, and at stage 3 DeepSpeed moves it to the GPU before it partitions it (analyzers/zero3-init.ts decides).
 */
export function loopModelOutsideZeroInit(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const init = firstCall(file, calls, (parts) => parts[0] === 'deepspeed' && parts[parts.length - 1] === 'initialize');
  const load = firstCall(file, calls, isModelLoad) ?? calls.find((c) => modelLoadByText(file, c));
  if (!init || !load || load.from > init.from || ZERO_INIT_MAKERS.test(file.text)) return;
  file.loopModelOutsideZeroInit = span(load.firstChild!);
}

/**
 * A from_pretrained / from_config whose class is picked at run time, not a tokenizer's, a config's or a processor's
 * (ChatGLM-Finetuning's `MODE[args.mode]["model"].from_pretrained(...)`).
 */
function modelLoadByText(file: PythonFile, call: SyntaxNode): boolean {
  const callee = call.firstChild;
  if (callee?.name !== 'MemberExpression') return false;
  const text = file.text.slice(callee.from, callee.to);
  return /\.(?:from_pretrained|from_config)$/.test(text) && !/tokenizer|config|processor|feature_extractor/i.test(text);
}
