// The calls a training program is read from: training arguments and TRL configs, trainers, from_pretrained (the
// policy, or a reward model), BitsAndBytesConfig, LoraConfig, prepare_model_for_kbit_training, and what the text says
// around them (padding, PYTORCH_CUDA_ALLOC_CONF). Pure: no I/O, no node:* and no 'vscode'.
import type { SyntaxNode } from '@lezer/common';
import {
  expandableSegmentsOf,
  msg,
  notModeled,
  rewardModelObjectNotCounted,
  TRAINER_TOKENIZER_RELEASE,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type Unknown,
  type Tool,
} from '../facts';
import { UNMODELED_TRL, PREFERENCE_CONFIGS, ROLLOUT_CONFIGS } from './vocab';
import { type Binding, type Entry, PythonFile } from './file';
import { calledAs, scriptCallArgumentOf, soleCallArgumentNode } from './attributes';
import type { Scope } from './static-values';
import { branchTaken, conditionOf } from './branches';
import { runsBesideCheckpointingGuard } from './checkpointing-guard';
import { dictEntryNode } from './expressions';
import { children, span, clip, isModelClass, readingNoneDefaults } from './syntax';
import { implicitBnbDefaults, mapEntry } from './mapping';
import { savedEarlier } from './saved-checkpoints';
import { plainArgumentsDefaults } from './plain-arguments';
import { trlReleaseOfCall, trlReleaseOfRemovedApi } from './trl-dated-calls';
import { attentionSetOnConfig, attributesSetAfter } from './config-attributes';
import { trlFieldsOfTrainingArguments } from './trl-fields';

export function trainingCall(file: PythonFile, call: SyntaxNode, tool: Tool, trlOrLocal: boolean): void {
  const args = file.args(call);
  const name = file.calleeName(call)?.split('.').pop() ?? '';
  const pref = PREFERENCE_CONFIGS[name];
  const unmodeled = UNMODELED_TRL[name];
  if (unmodeled) file.problem('not-modeled', 'warning', notModeled(name, unmodeled), span(call.firstChild!), name);
  if (pref) calleeFact(file, call, 'preference', name, pref, `${name}(...)`, tool);
  if (ROLLOUT_CONFIGS[name]) calleeFact(file, call, 'rollout', name, ROLLOUT_CONFIGS[name], `${name}(...)`, tool);
  if (name === 'RewardConfig') rewardHead(file, call, name, tool);
  if (name === 'SFTConfig') calleeFact(file, call, 'trlSft', name, true, `${name}(...)`, tool);
  if (name === 'TrainingArguments' && !trlOrLocal) trlFieldsOfTrainingArguments(file, args.entries);
  for (const e of args.entries) mapEntry(file, 'train', e, tool, undefined, trlOrLocal);
  file.opaqueSpreads(args.opaque);
  attributesSetAfter(file, call, tool, trlOrLocal);
}

/**
 * The model class a local name holds where its `from_pretrained` is called (`model_class = AutoModelForCausalLM`, set
 * on the branch of an `if` that runs where the test is known, `if model_id == "...":`, else the last set before the
 * call): the class's name, or undefined when the name holds something else.
 */
export function boundModelClass(file: PythonFile, name: string, use: SyntaxNode): string | undefined {
  const found = file.lookup(name, use);
  if (found.k !== 'binding')
    return found.param ? parameterModelClass(file, found.param.scope, found.param.name) : undefined;
  const all = (found.scope.bindings.get(name) ?? []).filter((b) => b.end <= use.from);
  const runs = [...all].reverse().find((b) => !b.valueNode || branchTaken(file, b.valueNode) !== false);
  const bound = runs ?? found.binding;
  if (bound.kind === 'unpack') return unpackedModelClass(file, bound);
  const value = bound.kind === 'assign' ? bound.valueNode : null;
  if (value?.name !== 'VariableName' && value?.name !== 'MemberExpression') return undefined;
  const cls = file.text.slice(value.from, value.to).split('.').pop()!.trim();
  return isModelClass(cls) ? cls : undefined;
}

/**
 * The model class a function's parameter holds (DeepSpeed-Chat's `create_hf_model(model_class, model_name_or_path, ...)`
 * and the projects that copy it, called with `AutoModelForCausalLM`): the class the function's one call in this file
 * passes it, by keyword or position, or the one the importing script's call passes (ModuleContext.callArgs).
 */
function parameterModelClass(file: PythonFile, scope: Scope, name: string): string | undefined {
  // A class's __init__ is called by the class's name.
  const callee = calledAs(file, scope);
  const called = callee === undefined ? undefined : file.moduleCallArgs?.[callee];
  if (called) {
    const arg = scriptCallArgumentOf(file, scope, name, called);
    return arg && 'modelClass' in arg ? arg.modelClass : undefined;
  }
  const node = soleCallArgumentNode(file, scope, name);
  const cls = node ? file.text.slice(node.from, node.to).split('.').pop()!.trim() : '';
  return isModelClass(cls) ? cls : undefined;
}

/**
 * The model class a class attribute holds where a method reads it through `cls` or `self` (Tevatron's encoders and
 * the retrieval projects that copy them: `TRANSFORMER_CLS = Qwen2VLForConditionalGeneration` in the class body, then
 * `cls.TRANSFORMER_CLS.from_pretrained(...)` in its `build` classmethod), or through the class's own name: the class
 * the body assigns once, by name, when it is a model class. A subclass that assigns it again is not told apart.
 */
export function classAttributeModelClass(
  file: PythonFile,
  owner: string,
  attr: string,
  use: SyntaxNode,
): string | undefined {
  const cls = owner === 'cls' || owner === 'self' ? enclosingClass(use) : classNamed(file, owner);
  const body = cls?.getChild('Body');
  if (!body) return undefined;
  const values: string[] = [];
  for (const st of children(body)) {
    if (st.name !== 'AssignStatement' || st.firstChild?.name !== 'VariableName') continue;
    if (file.text.slice(st.firstChild.from, st.firstChild.to) !== attr) continue;
    const value = st.lastChild;
    values.push(value ? file.text.slice(value.from, value.to).split('.').pop()!.trim() : '');
  }
  return values.length === 1 && isModelClass(values[0]) ? values[0] : undefined;
}

/** The class whose body holds a node (a method's call). */
function enclosingClass(node: SyntaxNode): SyntaxNode | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.name === 'ClassDefinition') return p;
  return undefined;
}

/** A class the file defines at its top level, by name. */
export function classNamed(file: PythonFile, name: string): SyntaxNode | undefined {
  for (let st = file.root.firstChild; st; st = st.nextSibling) {
    const def = st.name === 'DecoratedStatement' ? st.getChild('ClassDefinition') : st;
    const id = def?.name === 'ClassDefinition' ? def.getChild('VariableName') : null;
    if (def && id && file.text.slice(id.from, id.to) === name) return def;
  }
  return undefined;
}

/**
 * The model class an unpacked name takes from a tuple a dict constant maps the script's choice to (the transformers
 * examples' `config_class, model_class, tokenizer_class = MODEL_CLASSES[args.model_type]` with `"bert": (BertConfig,
 * BertForSequenceClassification, BertTokenizer)`): the class at the name's place, or undefined.
 */
function unpackedModelClass(file: PythonFile, b: Binding): string | undefined {
  const entry = b.rhs && b.index !== undefined ? dictEntryNode(file, b.rhs, 0) : undefined;
  const tuple = entry?.name === 'ParenthesizedExpression' ? entry.firstChild?.nextSibling : entry;
  if (tuple?.name !== 'TupleExpression') return undefined;
  const items = children(tuple).filter((n) => n.name === 'VariableName' || n.name === 'MemberExpression');
  const item = items[b.index!];
  const cls = item ? file.text.slice(item.from, item.to).split('.').pop()! : '';
  return isModelClass(cls) ? cls : undefined;
}

/** A model class's `from_pretrained` call (`modelClass`: the class, also where the callee is a name that holds it). */
export function fromPretrained(file: PythonFile, call: SyntaxNode, modelClass?: string): void {
  const args = file.args(call);
  classifierHead(file, call, modelClass);
  const first = args.positional[0];
  if (first) {
    const e: Entry = {
      rawKey: 'pretrained_model_name_or_path',
      keySpan: span(first),
      valueNode: first,
      valueSpan: span(first),
    };
    emitModel(file, e, 'hf-trainer');
  }
  const entries = withoutBareQuantization(file, args.entries);
  const named = entries.find((e) => e.rawKey === 'pretrained_model_name_or_path');
  if (!first && named) emitModel(file, named, 'hf-trainer');
  for (const e of entries) mapEntry(file, 'load', e, 'hf-trainer');
  attentionSetOnConfig(file, call, entries);
  implicitBnbDefaults(file, entries, call, 'hf-trainer');
  file.opaqueSpreads(args.opaque);
}

/**
 * A sequence classifier's class (`AutoModelForSequenceClassification.from_pretrained(...)` or `.from_config(...)`)
 * replaces the LM head with a score layer (no vocabulary logits); the other model classes load the head of the model's
 * family.
 */
function classifierHead(file: PythonFile, call: SyntaxNode, modelClass?: string): void {
  const cls = modelClass ?? file.calleeName(call)?.split('.').slice(-2, -1)[0] ?? '';
  if (!/ForSequenceClassification$/.test(cls)) return;
  const node = call.firstChild!;
  const callee = file.text.slice(node.from, node.to);
  file.facts.push({
    key: 'head',
    rawKey: callee,
    value: 'seq_cls',
    rawValue: `${callee}(...)`,
    keySpan: span(node),
    valueSpan: span(node),
    tool: 'hf-trainer',
  });
}

/**
 * `AutoModelForCausalLM.from_config(AutoConfig.from_pretrained("id", ...), ...)` (Accelerate's fsdp2_fp8.py), or of a name
 * bound to that config: a model
 * built from that checkpoint's config, with random weights of the same architecture and size; the keywords are
 * from_config's (torch_dtype, attn_implementation), read as from_pretrained's. A config built otherwise names no model.
 */
export function fromConfig(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  classifierHead(file, call);
  const first = args.positional[0] ?? args.entries.find((e) => e.rawKey === 'config')?.valueNode ?? undefined;
  // The config call itself, or a name bound to it (GaLore's torchrun_main.py: `model_config =
  // AutoConfig.from_pretrained(args.model_config)`, then `AutoModelForCausalLM.from_config(model_config)`).
  const inner = pretrainedConfigCall(file, first);
  if (inner) {
    const id = file.args(inner).positional[0];
    if (id)
      emitModel(
        file,
        { rawKey: 'pretrained_model_name_or_path', keySpan: span(id), valueNode: id, valueSpan: span(id) },
        'hf-trainer',
      );
  }
  for (const e of args.entries) mapEntry(file, 'load', e, 'hf-trainer');
  file.opaqueSpreads(args.opaque);
}

/** `AutoConfig.from_pretrained("id", ...)` as the node itself or the call a name is bound to; else undefined. */
export function pretrainedConfigCall(file: PythonFile, node: SyntaxNode | null | undefined): SyntaxNode | undefined {
  const bound = node?.name === 'VariableName' ? file.evalNode(node, 0) : undefined;
  const inner = node?.name === 'CallExpression' ? node : bound?.k === 'call' ? bound.node : undefined;
  return inner && /(^|\.)\w*Config\.from_pretrained$/.test(file.calleeName(inner) ?? '') ? inner : undefined;
}

/**
 * A load given `load_in_4bit=True` (or 8-bit) and a `quantization_config` together (emaroppo/phish-gen's kto.py):
 * recent transformers releases raise ValueError ("You can't pass `load_in_4bit`or `load_in_8bit` as a kwarg when
 * passing `quantization_config` argument at the same time": hiyouga/LLaMA-Factory#4157 under transformers 4.38.2), where
 * older ones loaded with the config. The config is read; the bare switch is said at its key and left out.
 */
function withoutBareQuantization(file: PythonFile, entries: readonly Entry[]): Entry[] {
  const config = entries.find((e) => e.rawKey === 'quantization_config');
  const configValue = config ? file.valueOf(config) : undefined;
  if (!config || (configValue?.k === 'lit' && configValue.v === null)) return [...entries];
  const bare = entries.filter((e) => {
    if (e.rawKey !== 'load_in_4bit' && e.rawKey !== 'load_in_8bit') return false;
    const v = file.valueOf(e);
    return v.k === 'lit' && v.v === true;
  });
  for (const e of bare)
    file.problem(
      'invalid-value',
      'warning',
      msg(
        '{0}=True beside quantization_config: recent transformers releases raise ValueError ("You can\'t pass ' +
          'load_in_4bit or load_in_8bit as a kwarg when passing quantization_config"); the estimate reads ' +
          'quantization_config',
        e.rawKey,
      ),
      e.keySpan,
      e.rawKey,
    );
  return entries.filter((e) => !bare.includes(e));
}

/** The lengths DPOTrainer, KTOTrainer, ORPOTrainer and CPOTrainer took as their own arguments before TRL 0.12. */
const OLD_PREFERENCE_LENGTHS: ReadonlySet<string> = new Set(['max_length', 'max_prompt_length', 'max_target_length']);

export function bnbCall(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  const cond = conditionOf(file, call);
  for (const e of args.entries) {
    if (cond && (e.rawKey === 'load_in_4bit' || e.rawKey === 'load_in_8bit')) {
      const v = file.valueOf(e);
      if (v.k === 'lit' && v.v === true) {
        file.push('quantBits', e, { unknown: `the quantization config is used only when ${cond}` }, 'hf-trainer');
        continue;
      }
    }
    mapEntry(file, 'bnb', e, 'hf-trainer');
  }
  implicitBnbDefaults(file, args.entries, call, 'hf-trainer');
  file.opaqueSpreads(args.opaque);
}

/**
 * `padding="max_length"` passed to a call (the tokenizer or a collator): every batch has the maximum length. Found
 * by a scan of the text, kept only where the syntax tree has a keyword argument (not a comment or a string).
 */
export function padToMaxLength(file: PythonFile): boolean {
  let found = false;
  for (const m of file.text.matchAll(/\bpadding(\s*=\s*)(["'])max_length\2/g)) {
    const at = m.index ?? 0;
    const node = file.root.resolveInner(at, 1);
    if (node.name !== 'VariableName' || node.parent?.name !== 'ArgList') continue;
    const keySpan = { start: at, end: at + 'padding'.length };
    const valueSpan = { start: keySpan.end + m[1].length, end: at + m[0].length };
    const rawValue = file.text.slice(valueSpan.start, valueSpan.end);
    file.facts.push({
      key: 'batchLengths',
      rawKey: 'padding',
      value: 'fixed',
      rawValue,
      keySpan,
      valueSpan,
      tool: 'hf-trainer',
    });
    // Rows shorter than the maximum end in padding tokens, so the model builds an attention mask.
    file.facts.push({
      key: 'paddedBatches',
      rawKey: 'padding',
      value: true,
      rawValue,
      keySpan,
      valueSpan,
      tool: 'hf-trainer',
    });
    found = true;
  }
  return found;
}

/**
 * `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "..."` (or os.environ.setdefault) in the script: the caching allocator
 * reads it at the first CUDA allocation, so a script that sets it before training configures its own run.
 */
export function allocatorConf(file: PythonFile): void {
  const re =
    /\bos\.environ(?:\s*\[\s*(["'])PYTORCH_CUDA_ALLOC_CONF\1\s*\]\s*=\s*|\.setdefault\(\s*(["'])PYTORCH_CUDA_ALLOC_CONF\2\s*,\s*)(["'])([^"'\n]*)\3/g;
  for (const m of file.text.matchAll(re)) {
    const at = m.index ?? 0;
    if (file.root.resolveInner(at, 1).name !== 'VariableName') continue;
    const keyStart = at + m[0].indexOf('PYTORCH_CUDA_ALLOC_CONF');
    const valueStart = at + m[0].length - m[4].length - 1;
    const keySpan = { start: keyStart, end: keyStart + 'PYTORCH_CUDA_ALLOC_CONF'.length };
    const valueSpan = { start: valueStart, end: valueStart + m[4].length };
    file.facts.push({
      key: 'expandableSegments',
      rawKey: 'PYTORCH_CUDA_ALLOC_CONF',
      value: expandableSegmentsOf(m[4]),
      rawValue: m[4],
      keySpan,
      valueSpan,
      tool: 'hf-trainer',
    });
  }
}

/** PEFT LoraConfig: r=8 and lora_alpha=8 when absent (peft@5d602fd:src/peft/tuners/lora/config.py). */
export function loraCall(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  for (const e of args.entries) mapEntry(file, 'lora', e, 'peft');
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  const opaque = args.opaque.length > 0;
  if (!opaque && !args.entries.some((e) => e.rawKey === 'r')) {
    file.facts.push({
      key: 'loraR',
      rawKey: 'r',
      value: 8,
      rawValue: `${name}: default 8`,
      keySpan: at,
      valueSpan: at,
      tool: 'peft',
      origin: 'call-default',
    });
  }
  if (!opaque && !args.entries.some((e) => e.rawKey === 'lora_alpha')) {
    file.facts.push({
      key: 'loraAlpha',
      rawKey: 'lora_alpha',
      value: 8,
      rawValue: `${name}: default 8`,
      keySpan: at,
      valueSpan: at,
      tool: 'peft',
      origin: 'call-default',
    });
  }
  file.opaqueSpreads(args.opaque);
}

/** The fact just pushed decides over a launch line's (a call that sets it on the model itself). */
export function overLauncher(file: PythonFile): void {
  const last = file.facts.length - 1;
  if (last >= 0) file.facts[last] = { ...file.facts[last], overridesLauncher: true };
}

/**
 * The classes `apply_activation_checkpointing`'s check_fn wraps where they are parts of a layer, its attention or its
 * MLP (seopbo/llmpy's `check_fn=lambda submodule: isinstance(submodule, LlamaAttention)`), else undefined: only their
 * insides are recomputed, the rest of each layer's activations kept.
 */
function sublayerCheckFn(file: PythonFile, call: SyntaxNode): string | undefined {
  let node = file.args(call).entries.find((x) => x.rawKey === 'check_fn')?.valueNode ?? null;
  if (node?.name === 'VariableName') node = file.bindingValue(node);
  const text = node ? file.text.slice(node.from, node.to).replace(/\s+/g, ' ').trim() : '';
  const m = /^lambda (\w+) ?: ?isinstance\( ?\1 ?, ?\(?([\w., ]+?)\)? ?\)$/.exec(text);
  const classes = m?.[2]
    .split(',')
    .map((c) => c.trim().split('.').pop() ?? '')
    .filter((c) => c !== '');
  if (!classes?.length || !classes.every((c) => /(Attention\w*|MLP|FeedForward)$/.test(c))) return undefined;
  return classes.join(', ');
}

/**
 * `model.gradient_checkpointing_enable(...)` checkpoints every layer whatever the training arguments say (Trainer only
 * turns it on). torch's `apply_activation_checkpointing(model, ...)` wraps the layers in checkpoint_wrapper, NO_REENTRANT
 * unless the script names CheckpointImpl.REENTRANT (torch/distributed/algorithms/_checkpoint/checkpoint_wrapper.py).
 * On a branch: on when it is known to run (or its test's unknown part only asks whether the model checkpoints already),
 * nothing when it is known not to, unknown otherwise.
 */
export function checkpointingCall(file: PythonFile, call: SyntaxNode, last: string, tool: Tool): void {
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  const taken = branchTaken(file, call);
  if (taken === false) return;
  const cond = taken === undefined && !runsBesideCheckpointingGuard(file, call) ? conditionOf(file, call) : undefined;
  const e: Entry = { rawKey: last, keySpan: at, valueNode: call.firstChild, valueSpan: at };
  const part = last === 'apply_activation_checkpointing' ? sublayerCheckFn(file, call) : undefined;
  const mode = part ? 'selective' : 'full';
  file.push('gradientCheckpointing', e, cond ? { unknown: `${clip(name)}(...) runs only when ${cond}` } : mode, tool);
  if (cond) return;
  if (part) {
    const said = msg(
      "check_fn wraps only {0}, part of each layer: the layer's other activations are kept; estimated as op-level selective checkpointing",
      part,
    );
    file.problem('not-modeled', 'info', said, at);
  }
  // On whatever the training arguments say, in any file of the run, a launch line's flag included.
  overLauncher(file);
  if (last === 'gradient_checkpointing_enable') {
    const kwargs = argument(file.args(call))('gradient_checkpointing_kwargs', 0);
    if (kwargs) mapEntry(file, 'train', kwargs, tool);
    return;
  }
  const reentrant = /\bCheckpointImpl\.REENTRANT\b/.test(file.text);
  const nonReentrant = /\bCheckpointImpl\.NO_REENTRANT\b/.test(file.text);
  if (reentrant && nonReentrant) return;
  file.facts.push({
    key: 'checkpointReentrant',
    rawKey: last,
    value: reentrant,
    rawValue: reentrant ? 'CheckpointImpl.REENTRANT' : `${clip(name)}: default CheckpointImpl.NO_REENTRANT`,
    keySpan: at,
    valueSpan: at,
    tool,
    ...(reentrant || nonReentrant ? {} : { origin: 'call-default' as const }),
  });
  // Inside each unit of the model it is given (FSDP scripts call it on the wrapped model): no FSDP hook reruns.
  file.facts.push({
    key: 'checkpointWrapper',
    rawKey: last,
    value: true,
    rawValue: clip(name),
    keySpan: at,
    valueSpan: at,
    tool,
  });
}

/**
 * TRL's RewardTrainer trains a sequence classifier with one label: a model id is loaded with
 * AutoModelForSequenceClassification(num_labels=1) (trl/trainer/reward_trainer.py); a model loaded by the script
 * keeps the head of its own from_pretrained class, which is read there and wins.
 */
function rewardHead(file: PythonFile, call: SyntaxNode, name: string, tool: Tool): void {
  calleeFact(file, call, 'head', name, 'seq_cls', `${name}(...)`, tool, 'call-default');
  calleeFact(file, call, 'numLabels', name, 1, `${name}(...)`, tool, 'call-default');
}

/** A fact that the call itself states, located at its callee. */
export function calleeFact(
  file: PythonFile,
  call: SyntaxNode,
  key: CanonicalKey,
  rawKey: string,
  value: FactValue | Unknown,
  rawValue: string,
  tool: Tool,
  origin?: Fact['origin'],
): void {
  const at = span(call.firstChild!);
  file.facts.push({ key, rawKey, value, rawValue, keySpan: at, valueSpan: at, tool, ...(origin ? { origin } : {}) });
}

/** A keyword argument, or the positional one at `pos`, as an Entry. */
export function argument(args: {
  positional: SyntaxNode[];
  entries: Entry[];
}): (k: string, pos?: number) => Entry | undefined {
  return (k, pos) => {
    const named = args.entries.find((e) => e.rawKey === k);
    if (named) return named;
    const p = pos !== undefined ? args.positional[pos] : undefined;
    return p ? { rawKey: k, keySpan: span(p), valueNode: p, valueSpan: span(p) } : undefined;
  };
}

/**
 * TRL's PPOTrainer trains the policy and a value model together (PolicyAndValueWrapper) beside a frozen reference
 * policy and reward model, and generates each rollout's responses: only the policy's step is estimated, said at the call.
 */
function ppoNotModeled(file: PythonFile, call: SyntaxNode): void {
  const callee = call.firstChild!;
  file.problem(
    'not-modeled',
    'warning',
    msg(
      "{0}: TRL's PPO value model (trained with the policy), reference policy, reward model and response " +
        "generation are not modeled; the estimate is the policy's training step alone",
      file.text.slice(callee.from, callee.to),
    ),
    span(callee),
  );
}

/**
 * transformers' own Trainer or Seq2SeqTrainer called with `tokenizer=` (TRAINER_TOKENIZER_RELEASE): the run's
 * transformers is 4.x, an assumption at the keyword. A subclass of the script's own may take the keyword itself.
 */
function datedByTrainerTokenizer(file: PythonFile, call: SyntaxNode, trainer: string, entries: readonly Entry[]): void {
  const callee = file.text.slice(call.firstChild!.from, call.firstChild!.to).split('.').pop();
  const e = entries.find((x) => x.rawKey === 'tokenizer');
  if (!e || callee !== trainer || !['Trainer', 'Seq2SeqTrainer'].includes(trainer)) return;
  if (file.facts.some((f) => f.key === 'transformersVersion')) return;
  const rawValue = file.text.slice(e.valueSpan.start, e.valueSpan.end);
  const { version, note } = TRAINER_TOKENIZER_RELEASE;
  file.facts.push({
    key: 'transformersVersion',
    rawKey: 'tokenizer',
    value: version,
    rawValue,
    keySpan: e.keySpan,
    valueSpan: e.valueSpan,
    tool: 'hf-trainer',
    origin: 'call-default',
    defaultNote: note,
  });
}

/** A trainer's construction: `trainer` is the library's class it is (the class called, or the one it extends). */
export function trainerCall(file: PythonFile, call: SyntaxNode, tool: Tool, trainer: string, choosing = false): void {
  const args = file.args(call);
  // A script that chooses its trainer on the branches of an `if` (`if args.task_type == 'dpo': DPOTrainer(...)` else
  // `Trainer(...)`, yangjianxin1/Firefly's train.py): what the trainer's class says holds only where its branch runs,
  // decided with the script's options as the run has them (launch-args.ts withBranchesDecided).
  const cond = choosing && branchTaken(file, call) !== true ? conditionOf(file, call) : undefined;
  const onBranch = (v: FactValue): FactValue | Unknown =>
    cond ? { unknown: `${trainer}(...) runs only when ${cond}` } : v;
  if (!file.facts.some((f) => f.key === 'hfTrainer')) {
    const callee = file.text.slice(call.firstChild!.from, call.firstChild!.to);
    calleeFact(file, call, 'hfTrainer', callee, onBranch(trainer), `${callee}(...)`, tool);
  }
  const pref = PREFERENCE_CONFIGS[trainer];
  // The trainer names the objective when the arguments are a plain TrainingArguments (older TRL scripts).
  if (pref && !file.facts.some((f) => f.key === 'preference'))
    calleeFact(file, call, 'preference', trainer, onBranch(pref), `${trainer}(...)`, tool);
  const rollout = ROLLOUT_CONFIGS[trainer];
  if (rollout && !file.facts.some((f) => f.key === 'rollout'))
    calleeFact(file, call, 'rollout', trainer, onBranch(rollout), `${trainer}(...)`, tool);
  if (trainer === 'SFTTrainer' && !file.facts.some((f) => f.key === 'trlSft'))
    calleeFact(file, call, 'trlSft', trainer, onBranch(true), `${trainer}(...)`, tool);
  if (trainer === 'RewardTrainer' && !file.facts.some((f) => f.key === 'head' && f.rawKey === 'RewardConfig'))
    rewardHead(file, call, trainer, tool);
  if (trainer === 'PPOTrainer') ppoNotModeled(file, call);
  if (tool === 'hf-trainer') datedByTrainerTokenizer(file, call, trainer, args.entries);
  if (tool === 'trl') plainArgumentsDefaults(file, args.entries);
  const dated = file.facts.some((f) => f.key === 'trlVersion')
    ? undefined
    : (trlReleaseOfCall(file, trainer, args.entries, tool) ??
      trlReleaseOfRemovedApi(file, trainer, args.entries, tool));
  if (dated) file.facts.push(dated);
  const isNone = (e: Entry): boolean => {
    const v = file.valueOf(e);
    return v.k === 'lit' && v.v === null;
  };
  const present = (k: string): boolean => args.entries.some((e) => e.rawKey === k && !isNone(e));
  // OnlineDPOTrainer uses the adapters-off model as its reference only when it is given peft_config; handed a model
  // that get_peft_model already wrapped, it copies it (create_reference_model: trl/experimental/online_dpo
  // online_dpo_trainer.py, "if peft_config is None: self.ref_model = create_reference_model(model)").
  if (trainer === 'OnlineDPOTrainer' && !present('peft_config') && !present('ref_model'))
    calleeFact(file, call, 'referenceModel', trainer, 'copied', `${trainer}(...) without peft_config`, tool);
  // The trainers' first parameter is the model: a Hub id there loads it as `model=` does (DPOTrainer(model, ref_model,
  // ...) with `model = model_args["MODEL_NAME"]`, sids07/LLM_finetuning).
  const first = args.positional[0];
  if (first && !present('model')) {
    const v = file.evalNode(first, 0);
    if (v.k === 'lit' && typeof v.v === 'string')
      emitModel(file, { rawKey: 'model', keySpan: span(first), valueNode: first, valueSpan: span(first) }, tool);
  }
  const referenceTaker = pref === 'dpo' || pref === 'kto' || rollout === 'online-dpo';
  // The reference is the second parameter too (DPOTrainer(model, ref_model=None, args=None, ...), KTOTrainer's and
  // OnlineDPOTrainer's alike): DPOTrainer(self.model, self.ref_model, args=...), rahulpal7G42/bilingual-llm-adaptation.
  const second = args.positional[1];
  if (referenceTaker && second && !args.entries.some((e) => e.rawKey === 'ref_model')) {
    const e: Entry = { rawKey: 'ref_model', keySpan: span(second), valueNode: second, valueSpan: span(second) };
    // A reference looked up at run time (`components['ref_model']`, None unless the run is a full fine-tune in Firefly's
    // train.py) is not known to be a model: the trainer's own default (a copy, or the adapters off) stands.
    const v = file.evalNode(second, 0);
    if (v.k === 'unknown') file.push('referenceModel', e, { unknown: `the reference model: ${v.reason}` }, tool);
    else if (!isNone(e)) file.push('referenceModel', e, onBranch('given'), tool);
  }
  for (const e of args.entries) {
    if (
      (trainer === 'SFTTrainer' && (e.rawKey === 'packing' || e.rawKey === 'max_seq_length')) ||
      (pref !== undefined && OLD_PREFERENCE_LENGTHS.has(e.rawKey)) ||
      e.rawKey === 'model_init_kwargs'
    ) {
      // TRL < 0.12's trainer arguments, later its configs' (DPOTrainer(max_length=...), SPIN's model_init_kwargs).
      mapEntry(file, 'train', e, tool, undefined, true);
    } else if (e.rawKey === 'compute_metrics') {
      // Trainer.evaluation_loop keeps each batch's logits on the device (EvalLoopContainer) unless
      // eval_accumulation_steps moves them to the host or preprocess_logits_for_metrics reduces them.
      // A parameter of the function that builds the trainer, left at its None default by its one call, keeps none.
      const none = readingNoneDefaults(file, () => isNone(e));
      if (!none && !present('preprocess_logits_for_metrics')) file.keptLogits.push({ e, tool });
    } else if (e.rawKey === 'model') {
      const v = file.valueOf(e);
      // Only a model id string names the model; a model object was loaded elsewhere (from_pretrained is read there).
      if (v.k === 'lit' && typeof v.v === 'string') emitModel(file, e, tool);
    } else if (e.rawKey === 'teacher_model' && trainer === 'GKDTrainer') {
      // GKDTrainer(teacher_model="org/model") loads the teacher by its Hub id; a model object was loaded elsewhere.
      const v = file.valueOf(e);
      if (v.k === 'lit' && typeof v.v === 'string') file.push('teacherModel', e, v.v, tool);
    } else if (e.rawKey === 'ref_model' && referenceTaker) {
      // An explicit reference model is a second resident model (TRL keeps it even with PEFT).
      // A reference looked up at run time (`components['ref_model']`, None unless the run is a full fine-tune in Firefly's
      // train.py) is not known to be a model: the trainer's own default (a copy, or the adapters off) stands. The
      // keyword's own value (teome/dpo-lora-alignment's `DPOTrainer(model, ref_model=None, args=..., max_length=1512)`
      // had its later arguments dropped when the missing second positional argument was read instead).
      // A name passed as the reference is a model the script made (`ref_model=ref`), whatever its binding reads as.
      const v = e.valueNode ? file.evalNode(e.valueNode, 0) : undefined;
      if (v?.k === 'unknown' && e.valueNode?.name !== 'VariableName')
        file.push('referenceModel', e, { unknown: `the reference model: ${v.reason}` }, tool);
      else if (!isNone(e)) file.push('referenceModel', e, onBranch('given'), tool);
    } else if (e.rawKey === 'reward_funcs' && rollout && e.valueNode) {
      // A string names a reward model: GRPOTrainer loads it (AutoModelForSequenceClassification) on every GPU.
      const node = e.valueNode;
      const strings =
        node.name === 'String'
          ? [node]
          : node.name === 'ArrayExpression' || node.name === 'TupleExpression'
            ? children(node).filter((c) => c.name === 'String')
            : [];
      const ids = strings
        .map((str) => file.evalNode(str, 0))
        .flatMap((v) => (v.k === 'lit' && typeof v.v === 'string' ? [v.v] : []));
      if (ids.length > 0) file.push('rewardModels', e, ids, tool);
    } else if (e.rawKey === 'reward_model' && rollout === 'online-dpo' && !isNone(e) && file.scoringIds === 0) {
      // OnlineDPOTrainer(reward_model=...) takes a model loaded elsewhere: it sits on every GPU, but which model it is
      // is not known here (OnlineDPOConfig reward_model_path, or reward_funcs with a Hub id, name it).
      file.problem('not-modeled', 'warning', rewardModelObjectNotCounted(), e.keySpan, 'reward_model');
    } else if (e.rawKey === 'peft_config') {
      const v = file.valueOf(e);
      if (v.k === 'lit' && v.v === null) continue;
      if (v.k === 'call' && /(^|\.)(LoraConfig|IA3Config)$/.test(v.callee)) {
        // TRL makes the PEFT model itself (get_peft_model in the trainer's __init__).
        if (tool === 'trl') file.peftByTrainer = true;
        continue;
      }
      file.push('method', e, { unknown: `peft_config is ${file.describe(v)}` }, tool);
    }
  }
}

export function emitModel(file: PythonFile, e: Entry, tool: Tool): void {
  const v = file.valueOf(e);
  if (v.k === 'lit' && typeof v.v === 'string' && savedEarlier(file, v.v, e)) return;
  if (v.k === 'lit' && typeof v.v === 'string') file.push('model', e, v.v, tool, v);
  else if (!(v.k === 'lit' && v.v === null)) file.push('model', e, { unknown: file.describe(v) }, tool, v);
}

/** A syntax error inside a recognized call changes what the call says; elsewhere the Python extension reports it. */
export function syntaxIn(file: PythonFile, call: SyntaxNode, name: string): void {
  const at = file.errors.find((p) => p >= call.from && p <= call.to);
  if (at === undefined) return;
  const end = Math.min(file.text.length, at + 1);
  file.problem(
    'syntax-error',
    'error',
    msg('Python syntax error inside {0}(...): the values after it may be missing', name),
    { start: at, end: Math.max(at, end) },
  );
}

/**
 * Liger-Kernel's trainers (`from liger_kernel.transformers.trainer import LigerORPOTrainer`): TRL's trainer whose loss
 * is Liger's fused linear one over the hidden states and the head's weight, the logits never materialized
 * (linkedin/Liger-Kernel src/liger_kernel/transformers/trainer/orpo_trainer.py, LigerFusedLinearORPOLoss).
 */
export function ligerTrainer(file: PythonFile, call: SyntaxNode, name: string): void {
  const at = span(call.firstChild!);
  file.facts.push({
    key: 'loss',
    rawKey: name,
    value: 'fused',
    rawValue: `${name}(...)`,
    keySpan: at,
    valueSpan: at,
    tool: 'trl',
  });
}
