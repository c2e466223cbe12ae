// Value conversions: an evaluated Python value to the canonical vocabulary (numbers, booleans, dtypes, attention,
// optimizer names, module lists), or an unknown with the reason and an invalid-value problem. Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg, normalizeOptimizer, type FactValue, type Unknown } from '../facts';
import { type Val, type Entry, PythonFile } from './file';
import { fmt } from './syntax';
import { soleCallArgumentNode } from './attributes';
import { projectImports } from './imported-constants';
import { definingModule } from './imported-arguments';

export function numberOf(file: PythonFile, x: Val, e: Entry, integer: boolean): number | Unknown | undefined {
  if (x.k === 'lit') {
    if (x.v === null) return undefined;
    if (typeof x.v === 'number' && (!integer || Number.isInteger(x.v))) return x.v;
    file.problem(
      'invalid-value',
      'warning',
      msg(
        integer ? '{0} expects an integer, not {1}' : '{0} expects a number, not {1}',
        e.rawKey,
        file.text.slice(e.valueSpan.start, e.valueSpan.end),
      ),
      e.valueSpan,
      e.rawKey,
    );
    return { unknown: `not a number: ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

export function boolOf(file: PythonFile, x: Val, e: Entry): boolean | Unknown | undefined {
  if (x.k === 'lit') {
    if (x.v === null) return undefined;
    if (typeof x.v === 'boolean') return x.v;
    file.problem('invalid-value', 'warning', msg('{0} expects True or False', e.rawKey), e.valueSpan, e.rawKey);
    return { unknown: `not a boolean: ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

export function enumOf(file: PythonFile, x: Val, e: Entry, allowed: readonly string[]): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && typeof x.v === 'string') {
    if (allowed.includes(x.v)) return x.v;
    file.problem(
      'invalid-value',
      'warning',
      msg('{0} is one of {1}', e.rawKey, allowed.join(', ')),
      e.valueSpan,
      e.rawKey,
    );
    return { unknown: `unexpected value ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

export function optimizerOf(file: PythonFile, x: Val, e: Entry): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && typeof x.v === 'string') return normalizeOptimizer(x.v);
  // OptimizerNames.ADAMW_TORCH_FUSED: the enum member's value is its lower-cased name.
  if (x.k === 'dotted' && /(^|\.)OptimizerNames\.\w+$/.test(x.text))
    return normalizeOptimizer(x.text.split('.').pop()!.toLowerCase());
  if (x.k === 'lit') return enumOf(file, x, e, []);
  return { unknown: file.describe(x) };
}

export function dtypeOf(file: PythonFile, x: Val): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  let name: string | undefined;
  if (x.k === 'dotted' && /^torch\.\w+$/.test(x.text)) name = x.text.slice(6);
  else if (x.k === 'lit' && typeof x.v === 'string') name = x.v.replace(/^torch\./, '');
  if (name === undefined) return { unknown: file.describe(x) };
  if (name === 'auto')
    return { unknown: 'dtype "auto" takes the dtype stored in the checkpoint config', fromCheckpoint: true };
  const d = (
    {
      bfloat16: 'bf16',
      bf16: 'bf16',
      float16: 'fp16',
      fp16: 'fp16',
      half: 'fp16',
      float32: 'fp32',
      fp32: 'fp32',
      float: 'fp32',
    } as Record<string, string>
  )[name];
  return d ?? { unknown: `dtype ${name} has no estimate` };
}

export function attentionOf(file: PythonFile, x: Val): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && typeof x.v === 'string') {
    const s = x.v;
    if (s === 'eager' || s === 'sdpa') return s;
    // Kernels that keep no s x s matrix; resolve/attention.ts tells flex, xformers and sage from flash-attn.
    if (/^flash_attention_[23]$|flash[-_]?attn|^flex_attention$|xformers|^sage/.test(s)) return 'flash';
    return { unknown: `attention "${s}" has no estimate` };
  }
  return { unknown: file.describe(x) };
}

/** HF TrainingArguments save_strategy ("no", "steps", "epoch", "best", or the SaveStrategy enum): whether checkpoints are written. */
export function savesCheckpointsOf(file: PythonFile, x: Val): boolean | Unknown | undefined {
  if (x.k === 'lit' && typeof x.v === 'string') {
    const s = x.v.toLowerCase();
    if (s === 'no') return false;
    return s === 'steps' || s === 'epoch' || s === 'best' ? true : undefined;
  }
  if (x.k === 'dotted' && /(^|\.)(IntervalStrategy|SaveStrategy)\.(NO|STEPS|EPOCH|BEST)$/.test(x.text))
    return !x.text.endsWith('.NO');
  return { unknown: file.describe(x) };
}

export function stringListOf(file: PythonFile, x: Val, e: Entry): readonly string[] | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && Array.isArray(x.v)) return x.v as readonly string[];
  if (x.k === 'lit' && typeof x.v === 'string') return [x.v];
  if (x.k === 'lit') {
    file.problem(
      'invalid-value',
      'warning',
      msg('{0} expects a list of module names', e.rawKey),
      e.valueSpan,
      e.rawKey,
    );
    return { unknown: `not a list: ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

/** PEFT target_modules: a list, "all-linear", or any other string, which PEFT treats as a regex. */
export function targetsOf(file: PythonFile, x: Val, e: Entry): FactValue | Unknown | undefined {
  if (x.k === 'call' && collectsLinearNames(file, x.callee, x.node)) return 'all-linear';
  if (x.k === 'unknown' && e.valueNode && linearNamesGiven(file, e.valueNode)) return 'all-linear';
  if (x.k === 'lit' && typeof x.v === 'string')
    return x.v === 'all-linear'
      ? 'all-linear'
      : { unknown: `the regular expression ${fmt(x.v)} selects modules by name` };
  return stringListOf(file, x, e);
}

/**
 * A script's own lora_target_modules option (a dataclass field or argparse option, not LoraConfig's): a
 * comma-separated string is the list the script splits before it builds LoraConfig (PEFT examples/sft utils.py:
 * `args.lora_target_modules.split(",")`); "all-linear" and one name stay as they are.
 */
export function scriptTargetsOf(file: PythonFile, x: Val, e: Entry): FactValue | Unknown | undefined {
  if (x.k === 'lit' && typeof x.v === 'string') {
    const s = x.v.trim();
    if (s === 'all-linear') return 'all-linear';
    const names = s
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t.length > 0);
    if (names.length > 0 && names.every((t) => /^[\w.-]+$/.test(t))) return names;
    return { unknown: `${fmt(x.v)} is not a comma-separated list of module names` };
  }
  return stringListOf(file, x, e);
}

export function mapBool<T>(
  b: boolean | Unknown | undefined,
  f: (b: boolean) => T | undefined,
): T | Unknown | undefined {
  if (b === undefined) return undefined;
  if (typeof b === 'boolean') return f(b);
  return b;
}

/**
 * A name bound to such a function's result, or a parameter the function's one call in the file gives it
 * (Yousra-Chahinez/llama-qlora-finetuning-arabic-sentiment-analysis: `setup_lora(model, find_all_linear_names(model))`,
 * then `LoraConfig(target_modules=modules)` in setup_lora).
 */
function linearNamesGiven(file: PythonFile, node: SyntaxNode, depth = 0): boolean {
  if (depth > 4) return false;
  if (node.name === 'CallExpression') {
    const callee = file.calleeName(node);
    return callee !== undefined && collectsLinearNames(file, callee, node);
  }
  if (node.name !== 'VariableName') return false;
  const found = file.lookup(file.text.slice(node.from, node.to), node);
  // The target's own name bound to the call is read as its value already; an argument's name bound to it at the
  // call site counts where the binding is unconditional.
  if (found.k === 'binding') {
    const b = found.binding;
    return depth > 0 && b.kind === 'assign' && b.condLine === undefined && b.valueNode !== null
      ? linearNamesGiven(file, b.valueNode, depth + 1)
      : false;
  }
  const arg = found.param ? soleCallArgumentNode(file, found.param.scope, found.param.name) : undefined;
  return arg !== undefined && linearNamesGiven(file, arg, depth + 1);
}

/**
 * A function of the script that collects the names of the model's linear layers for LoRA (artidoro/qlora's and
 * LLaVA's `find_all_linear_names`: every module `isinstance` of nn.Linear, or of bitsandbytes' 4 / 8-bit linear, from
 * `model.named_modules()`, the head left out, and in LLaVA the projector and the vision tower too): PEFT's
 * "all-linear" over the language model.
 */
function collectsLinearNames(file: PythonFile, callee: string, call: SyntaxNode): boolean {
  if (!/^\w+$/.test(callee)) return false;
  // The function the call's name is bound to in its scope (a `def` binding spans the whole definition).
  const found = file.lookup(callee, call);
  const body =
    found.k === 'binding' && found.binding.kind === 'def'
      ? file.text.slice(found.binding.pos, found.binding.end)
      : importedDefinition(file, callee);
  // The class tested may be named in the isinstance call or bound before it (qlora.py: `cls = bnb.nn.Linear4bit if ...`).
  return (
    body !== undefined &&
    /\.named_modules\(\)/.test(body) &&
    /\bisinstance\(/.test(body) &&
    /Linear/.test(body) &&
    /\breturn\b/.test(body)
  );
}

/**
 * The text of a function the file imports from a module of its project by that name (VideoLLaMA2's
 * `from videollama2.videollama2_trainer import (..., find_all_linear_names, ...)`), from its `def` to the module's next top-level statement.
 */
function importedDefinition(file: PythonFile, name: string): string | undefined {
  if (!file.readModule) return undefined;
  for (const imp of projectImports(file.text, file.root)) {
    const named = imp.names.find(([local]) => local === name);
    const original = named ? named[1] : imp.star ? name : undefined;
    if (original === undefined) continue;
    const text = definingModule(file, imp.path, original)?.text;
    const at = text?.search(new RegExp(`^def\\s+${original}\\s*\\(`, 'm')) ?? -1;
    if (text === undefined || at < 0) continue;
    const end = text.slice(at).search(/\n(?=\S)/);
    return end < 0 ? text.slice(at) : text.slice(at, at + end);
  }
  return undefined;
}
