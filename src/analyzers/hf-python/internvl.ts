// InternVL's own fine-tuning script (OpenGVLab/InternVL internvl_chat/internvl/train/internvl_chat_finetune.py and the
// many copies of it): the model makes its LoRA itself, `model.wrap_llm_lora(r=..., lora_alpha=...)` under `if
// model_args.use_llm_lora:` (InternVLChatModel.wrap_llm_lora: PEFT's LoraConfig over every linear layer of the language
// model, q/k/v/o and the MLP's, InternLM2's wqkv / wo / w1-w3; r 128, alpha 256, dropout 0.05 unless given), turns
// checkpointing on with `model.language_model._set_gradient_checkpointing()` under `if model_args.grad_checkpoint:`,
// and sets FlashAttention-2 on the language model's config. Read as facts of the run, each at its call or assignment;
// on a branch as the branch runs. Pure; never throws on user text.
// Docs: docs/formats.md (Python scripts)
import type { SyntaxNode } from '@lezer/common';
import { msg, type Fact } from '../facts';
import { callOnBranch } from './branches';
import type { PythonFile } from './file';
import { mapEntry } from './mapping';

/** InternVLChatModel.wrap_llm_lora's defaults (modeling_internvl_chat.py). */
const WRAP_DEFAULTS = { r: 128, lora_alpha: 256, lora_dropout: 0.05 } as const;

const LORA_NOTE =
  "InternVLChatModel.wrap_llm_lora adapts every linear layer of the language model (q/k/v/o and the MLP's; " +
  "InternLM2's wqkv, wo, w1-w3), not the output head";

/** `model.wrap_llm_lora(...)`: LoRA on the language model, where its branch runs. */
export function internvlLlmLora(file: PythonFile, call: SyntaxNode): void {
  const branch = callOnBranch(file, call);
  if (!branch) return;
  const { at, name, cond } = branch;
  const args = file.args(call);
  for (const e of args.entries) if (e.rawKey in WRAP_DEFAULTS) mapEntry(file, 'lora', e, 'peft');
  const given = new Set(args.entries.map((e) => e.rawKey));
  const fact = (key: Fact['key'], rawKey: string, value: Fact['value'], rawValue: string, note?: string): void => {
    file.facts.push({
      key,
      rawKey,
      value,
      rawValue,
      keySpan: at,
      valueSpan: at,
      tool: 'peft',
      origin: 'call-default',
      ...(note ? { defaultNote: note } : {}),
    });
  };
  if (!given.has('r')) fact('loraR', 'r', WRAP_DEFAULTS.r, `${name}: default r=${WRAP_DEFAULTS.r}`);
  if (!given.has('lora_alpha'))
    fact(
      'loraAlpha',
      'lora_alpha',
      WRAP_DEFAULTS.lora_alpha,
      `${name}: default lora_alpha=${WRAP_DEFAULTS.lora_alpha}`,
    );
  if (!given.has('lora_dropout'))
    fact('loraDropout', 'lora_dropout', WRAP_DEFAULTS.lora_dropout, `${name}: default lora_dropout=0.05`);
  fact('loraTargets', 'target_modules', 'all-linear', `${name}: every linear layer of the language model`, LORA_NOTE);
  file.facts.push({
    key: 'method',
    rawKey: 'wrap_llm_lora',
    value: cond ? { unknown: `LoRA is applied only when ${cond}` } : 'lora',
    rawValue: `${name}(...)`,
    keySpan: at,
    valueSpan: at,
    tool: 'peft',
  });
  file.tools.add('peft');
}

/** `model.language_model._set_gradient_checkpointing()`: checkpointing in the language model, where its branch runs. */
export function internvlCheckpointing(file: PythonFile, call: SyntaxNode): void {
  const branch = callOnBranch(file, call, true);
  if (!branch) return;
  const { at, name, cond } = branch;
  file.facts.push({
    key: 'gradientCheckpointing',
    rawKey: '_set_gradient_checkpointing',
    value: cond ? { unknown: `checkpointing is turned on only when ${cond}` } : 'full',
    rawValue: `${name}()`,
    keySpan: at,
    valueSpan: at,
    tool: 'hf-trainer',
  });
}

/**
 * `config.llm_config.attn_implementation = 'flash_attention_2'` (also `_attn_implementation`): the language model
 * runs FlashAttention-2, as InternVL's script sets it for InternLM2 and the others alike.
 */
export function internvlAttention(file: PythonFile): void {
  if (!file.text.includes('llm_config')) return;
  const re = /\b\w+(?:\.\w+)*\.llm_config\._?attn_implementation\s*=\s*(['"])flash_attention_2\1/g;
  for (const m of file.text.matchAll(re)) {
    const start = m.index + m[0].indexOf('attn_implementation');
    const valueStart = m.index + m[0].lastIndexOf(m[1], m[0].length - 2);
    file.facts.push({
      key: 'attention',
      rawKey: 'attn_implementation',
      value: 'flash',
      rawValue: 'flash_attention_2',
      keySpan: { start, end: start + 'attn_implementation'.length },
      valueSpan: { start: valueStart, end: valueStart + 'flash_attention_2'.length + 2 },
      tool: 'hf-trainer',
    });
    return;
  }
}

/**
 * `_freeze_params(model.language_model)` under `if model_args.freeze_llm:` with no LoRA on the language model: only
 * what InternVL leaves trainable trains (the projector, the vision tower unless frozen too), which is not read: a
 * warning at the call, as for a model's `requires_grad_(False)`; the language model is estimated as trained.
 */
export function internvlFrozenLlm(file: PythonFile, calls: readonly SyntaxNode[]): void {
  // Run for every script: answered from the text before any call is read.
  if (!file.text.includes('_freeze_params')) return;
  if (file.facts.some((f) => f.rawKey === 'wrap_llm_lora' && f.value === 'lora')) return;
  for (const c of calls) {
    if (file.calleeName(c) !== '_freeze_params') continue;
    const args = file.args(c).positional;
    if (args.length !== 1 || !/(^|\.)language_model$/.test(file.text.slice(args[0].from, args[0].to))) continue;
    const branch = callOnBranch(file, c);
    if (!branch) continue;
    const what = file.text.slice(args[0].from, args[0].to);
    file.problem(
      'not-modeled',
      'warning',
      branch.cond
        ? msg(
            '{0} is frozen here (when {1}); what the script trains instead is not read: estimated as trained',
            what,
            branch.cond,
          )
        : msg('{0} is frozen here; what the script trains instead is not read: estimated as trained', what),
      branch.at,
      '_freeze_params',
    );
    return;
  }
}
