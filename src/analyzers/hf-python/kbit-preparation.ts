// PEFT's prepare_model_for_kbit_training and what scripts do around it: the fp32 casts, the checkpointing it turns on
// for a 4/8-bit model, and QLoRA's qlora.py loop that puts the embeddings, the head and the adapters back in bf16.
// Pure.
import type { SyntaxNode } from '@lezer/common';
import type { Fact, FactValue, Span, Unknown } from '../facts';
import type { PythonFile } from './file';
import { callOnBranch } from './branches';
import { argument } from './calls';
import { clip, span } from './syntax';

/**
 * PEFT prepare_model_for_kbit_training(model, use_gradient_checkpointing=True): casts every parameter that is not
 * a 4/8-bit weight to fp32 (norms, embeddings, head, biases; on a model that is not quantized, all of them) and
 * enables gradient checkpointing unless use_gradient_checkpointing=False (peft/utils/other.py); its older name,
 * prepare_model_for_int8_training, was an alias of it from PEFT 0.4 until PEFT removed it. On a branch: as written
 * when the branch is known to run (its tests read from the script's defaults: qlora.py's `if not args.full_finetune:`),
 * nothing when it is known not to, unknown otherwise.
 */
export function kbitPreparation(file: PythonFile, call: SyntaxNode): void {
  const branch = callOnBranch(file, call, true);
  if (!branch) return;
  const { at, name, cond } = branch;
  // A call on a model no setting of the file quantizes: PEFT casts every 16-bit parameter to fp32 whatever the model,
  // but turns checkpointing on only for a 4/8-bit one (peft/utils/other.py `loaded_in_kbit`), which another file may make.
  const unquantized = !cond && !QUANTIZED_LOAD.test(file.text.replace(/#.*$/gm, ''));
  if (unquantized) file.facts.push(upcastFact(at, name, 'all'));
  if ((cond && quantizationTest(file, call)) || unquantized) {
    // `if quantization_config:` (razvanalex-phd/SeLeRoSa llm_finetune.py): the call runs where the model is quantized,
    // which the run's other facts decide (resolve/method.ts resolveKbitUpcast).
    const gc = argument(file.args(call))('use_gradient_checkpointing', 1);
    const gcValue = gc ? file.valueOf(gc) : undefined;
    const off = gcValue?.k === 'lit' && gcValue.v === false;
    file.facts.push({
      key: 'kbitUpcastWhenQuantized',
      rawKey: 'prepare_model_for_kbit_training',
      value: off ? 'all' : 'all-checkpointed',
      rawValue: `${name}(...)`,
      keySpan: at,
      valueSpan: at,
      tool: 'peft',
    });
    return;
  }
  if (cond) {
    // Under `if quantize:` (PEFT's DoRA example) the call runs only on the quantized branch: not known statically.
    file.facts.push(upcastFact(at, name, { unknown: `${name}(...) runs only when ${cond}` }));
    return;
  }
  file.facts.push(upcastFact(at, name, 'all'));
  const args = file.args(call);
  const gc = argument(args)('use_gradient_checkpointing', 1);
  if (!gc) {
    file.facts.push({
      key: 'gradientCheckpointing',
      rawKey: 'prepare_model_for_kbit_training',
      value: 'full',
      rawValue: `${name}: use_gradient_checkpointing default True`,
      keySpan: at,
      valueSpan: at,
      tool: 'peft',
      origin: 'call-default',
      overridesLauncher: true,
    });
    return;
  }
  const v = file.valueOf(gc);
  // False leaves checkpointing to the training arguments; an expression that is not a literal is reported as such.
  if (v.k === 'lit' && v.v === false) return;
  if (v.k === 'lit' && v.v === true) {
    file.facts.push({
      key: 'gradientCheckpointing',
      rawKey: 'prepare_model_for_kbit_training',
      value: 'full',
      rawValue: clip(file.text.slice(gc.valueSpan.start, gc.valueSpan.end)),
      keySpan: gc.keySpan,
      valueSpan: gc.valueSpan,
      tool: 'peft',
      overridesLauncher: true,
    });
  }
}

/** What in a file quantizes its model: a bitsandbytes or GPTQ setting, a 4/8-bit load, Unsloth's loader. */
const QUANTIZED_LOAD =
  /\b(BitsAndBytesConfig|GPTQConfig|AwqConfig|load_in_4bit|load_in_8bit|quantization_config|FastLanguageModel|FastModel|AutoGPTQForCausalLM)\b/;

/** The fp32 cast of prepare_model_for_kbit_training, at the call. */
function upcastFact(at: Span, name: string, value: FactValue | Unknown): Fact {
  return {
    key: 'kbitUpcast',
    rawKey: 'prepare_model_for_kbit_training',
    value,
    rawValue: `${name}(...)`,
    keySpan: at,
    valueSpan: at,
    tool: 'peft',
  };
}

/** A name of a quantization setting or switch: `quantization_config`, `bnb_config`, `args.load_in_4bit`, `use_qlora`. */
const QUANTIZATION_NAME = /^[\w.]*(quant|bnb|bitsandbytes|4_?bit|8_?bit|kbit|qlora|int4|int8)\w*$/i;

/**
 * Whether the `if` a call is under tests, in its first clause, that the model is quantized: a quantization setting or
 * switch, as it is or `is not None` (`if quantization_config:`, `if args.load_in_4bit or args.load_in_8bit:`).
 */
function quantizationTest(file: PythonFile, call: SyntaxNode): boolean {
  let child: SyntaxNode = call;
  for (let p = call.parent; p; child = p, p = p.parent) {
    if (p.name !== 'IfStatement') continue;
    const test = p.firstChild?.nextSibling;
    const body = test?.nextSibling;
    if (!test || body?.name !== 'Body' || child.from !== body.from) return false;
    const parts = file.text
      .slice(test.from, test.to)
      .replace(/\s+is\s+not\s+None\s*$/, '')
      .split(/\s+or\s+/);
    return parts.every((t) => QUANTIZATION_NAME.test(t.trim()));
  }
  return false;
}

/**
 * A test of a module's name against the head's or the embeddings' names: qlora.py's `'lm_head' in name or
 * 'embed_tokens' in name`, and `any(x in name for x in ["lm_head", "embed_tokens", "wte", "wpe"])` of the scripts that
 * name GPT-2-style modules too (pacman100/DHS-LLM-Workshop's personal_copilot train.py, StarCoder's wte / wpe).
 */
const HEAD_OR_EMBEDDING_TEST =
  /['"](lm_head|embed_tokens)['"]\s+in\b|\bany\(\s*\w+\s+in\s+\w+\s+for\s+\w+\s+in\s+[([][^)\]]*['"](lm_head|embed_tokens)['"]/;

/**
 * `module.to(torch.bfloat16)` in a loop over `model.named_modules()`, under a test of the module's name against the
 * head's and the embeddings' (HEAD_OR_EMBEDDING_TEST) or `if isinstance(module, LoraLayer)`: QLoRA's qlora.py
 * (get_accelerate_model), copied by many scripts, puts the embeddings and the head back in bf16 after
 * prepare_model_for_kbit_training upcast them (the norms stay fp32), and casts the LoRA layers to bf16. Each said
 * once per file; the casts apply under bf16 training (resolve/method.ts).
 */
export function kbitCastBack(file: PythonFile, call: SyntaxNode): void {
  const arg = file.args(call).positional[0];
  if (!arg || !/^torch\.bfloat16$/.test(file.text.slice(arg.from, arg.to))) return;
  let key: 'kbitCastBack' | 'loraCastBack' | undefined;
  let overModules = false;
  for (let p = call.parent; p; p = p.parent) {
    if (p.name === 'IfStatement') {
      const test = p.firstChild?.nextSibling;
      const t = test ? file.text.slice(test.from, test.to) : '';
      if (HEAD_OR_EMBEDDING_TEST.test(t)) key = 'kbitCastBack';
      else if (/\bisinstance\(\s*\w+\s*,\s*LoraLayer\s*\)/.test(t)) key = 'loraCastBack';
    }
    if (
      p.name === 'ForStatement' &&
      /\.named_modules\(\)/.test(file.text.slice(p.from, p.getChild('Body')?.from ?? p.to))
    )
      overModules = true;
    if (p.name === 'FunctionDefinition' || p.name === 'Script') break;
  }
  if (!key || !overModules || file.facts.some((f) => f.key === key)) return;
  const at = span(call);
  file.facts.push({
    key,
    rawKey: 'named_modules',
    value: true,
    rawValue: clip(file.text.slice(call.from, call.to)),
    keySpan: at,
    valueSpan: at,
    tool: 'peft',
  });
}
