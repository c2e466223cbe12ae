// Arguments classes: dataclasses that subclass TrainingArguments or a TRL config, or are given to HfArgumentParser /
// TrlParser, with their field defaults; and argparse defaults, which explain `args.x` unknowns. Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg, type Tool } from '../facts';
import { HF_ARGS, HF_TRAINERS, PREFERENCE_CONFIGS, ROLLOUT_CONFIGS, TRL_CONFIGS, TRL_TRAINERS } from './vocab';
import { type Entry, PythonFile, type Val } from './file';
import { noteDefault, parsedOption, readsLaunchOptions } from './script-defaults';
import { children, span, clip, stringInner } from './syntax';
import { mapEntry } from './mapping';
import { postInitSplits } from './post-init-splits';
import { definedFunctionBody, soleReturn } from './expressions';

export function noteParser(file: PythonFile, call: SyntaxNode, which: string): void {
  const args = file.args(call);
  const first = args.positional[0] ?? args.entries.find((e) => e.rawKey === 'dataclass_types')?.valueNode ?? null;
  if (!first) return;
  const target = first.name === 'VariableName' ? (file.bindingValue(first) ?? first) : first;
  const names: string[] = [];
  const nodes = target.name === 'TupleExpression' || target.name === 'ArrayExpression' ? children(target) : [target];
  for (const node of nodes) {
    const n = file.dotted(node)?.split('.').pop();
    if (!n) continue;
    names.push(n);
    objectiveOfParsedConfig(file, node, n, which);
  }
  for (const n of names) {
    file.parsedClasses.add(n);
    if ((TRL_CONFIGS.has(n) || n === 'ModelConfig') && !projectClass(file, n)) file.tools.add('trl');
    else if (HF_ARGS.has(n)) file.tools.add('hf-trainer');
  }
  if (which === 'TrlParser') file.tools.add('trl');
  if ((which === 'HfArgumentParser' || which === 'TrlParser') && needsOutputDir(file, names)) {
    readsLaunchOptions(file);
    file.readsTrainerFlags = true;
  }
}

/**
 * A class of the project named like a library's (631068264/TigerBot's train_sft.py: `@dataclass class SFTConfig:` given
 * to HfArgumentParser beside TrainingArguments, no TRL imported): defined in the file, or imported from a module other
 * than TRL's. The parsers are read before the file's classes are collected, so the definition is looked for in the text.
 */
function projectClass(file: PythonFile, name: string): boolean {
  if (file.localClasses.has(name)) return true;
  const escaped = name.replace(/[^\w]/g, '');
  // A subclass of TRL's config of that name (`class SFTConfig(trl.SFTConfig)`) is TRL's still.
  const defined = new RegExp(`^[ \\t]*class[ \\t]+${escaped}\\b[ \\t]*(\\([^)]*\\))?`, 'm').exec(file.text);
  if (defined) return !/\btrl\.|\b\w+Config\b/.test(defined[1] ?? '');
  const from = new RegExp(`^[ \\t]*from[ \\t]+([\\w.]+)[ \\t]+import[^\\n]*\\b${escaped}\\b`, 'm').exec(file.text);
  return from !== null && !/^trl(\.|$)/.test(from[1]);
}

/**
 * The objective a TRL config class given to the parser names (`TrlParser((GRPOScriptArguments, GRPOConfig,
 * ModelConfig))`): the run's trainer takes that config, so its objective is the config's, also where the trainer is a
 * class of the project that no file of the run shows (Deep-Agent/R1-V's grpo.py picks Qwen2VLGRPOTrainer or
 * Qwen2VLGRPOVLLMTrainerModified by `use_vllm`) or one read by its name.
 */
function objectiveOfParsedConfig(file: PythonFile, node: SyntaxNode, name: string, which: string): void {
  if (projectClass(file, name)) return;
  const rollout = ROLLOUT_CONFIGS[name];
  const preference = rollout === undefined && name.endsWith('Config') ? PREFERENCE_CONFIGS[name] : undefined;
  if (rollout === undefined && preference === undefined) return;
  const tool: Tool = 'trl';
  file.tools.add(tool);
  const at = span(node);
  const key = rollout !== undefined ? 'rollout' : 'preference';
  const value = rollout ?? preference!;
  file.facts.push({
    key,
    rawKey: name,
    value,
    rawValue: `${which}((..., ${name}, ...))`,
    keySpan: at,
    valueSpan: at,
    tool,
  });
}

/**
 * `parser.parse_args_into_dataclasses()` (HfArgumentParser) or `parse_args_and_config()` (TrlParser) of the process's own
 * command line (no `args=` list given).
 */
const PARSES_COMMAND_LINE =
  /\.parse_args_into_dataclasses\(\s*\)|\.parse_args_and_config\(\s*(?:return_remaining_strings\s*=\s*True\s*)?\)/;

/**
 * Whether the parser's classes include transformers' TrainingArguments (or a TRL config, a subclass of it) read from
 * the command line: its output_dir had no default before transformers 4.50 (huggingface/transformers#35735), so the
 * script runs only with a command line that names one, and its README's command is the run's (collect/reading.ts).
 */
function needsOutputDir(file: PythonFile, names: readonly string[]): boolean {
  const trainerArgs = names.some((n) => (HF_ARGS.has(n) || TRL_CONFIGS.has(n)) && !file.localClasses.has(n));
  return trainerArgs && PARSES_COMMAND_LINE.test(file.text);
}

/**
 * `Config(**vars(parser.parse_args()))` (or of a name bound to parse_args): a class of the script built from the parsed
 * command line, whose fields are then the script's options, as HfArgumentParser's dataclasses are
 * (kencoken/qwen-grpo's train.py adds an option per field of its Config dataclass and builds it so).
 */
export function noteArgsClass(file: PythonFile, call: SyntaxNode): void {
  const name = file.calleeName(call);
  if (!name || !/^\w+$/.test(name)) return;
  const list = call.getChild('ArgList');
  for (let ch = list?.firstChild ?? null; ch; ch = ch.nextSibling) {
    const target = ch.name === '**' ? ch.nextSibling : null;
    if (target?.name !== 'CallExpression' || file.calleeName(target) !== 'vars') continue;
    const inner = file.args(target).positional[0];
    const from = inner?.name === 'VariableName' ? file.bindingValue(inner) : inner;
    if (from?.name === 'CallExpression' && /^parse_(known_)?args$/.test(file.calleeName(from)?.split('.').pop() ?? ''))
      file.parsedClasses.add(name);
  }
}

/** An argparse call of the script, in the order it runs: an option (add_argument) or parser defaults (set_defaults). */
export function noteArgparseCall(file: PythonFile, call: SyntaxNode, method: 'add_argument' | 'set_defaults'): void {
  if (method === 'add_argument') noteArgparse(file, call);
  else noteSetDefaults(file, call);
}

export function noteArgparse(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  const flag = args.positional
    .map((p) => file.evalNode(p, 0))
    .find((v) => v.k === 'lit' && typeof v.v === 'string' && v.v.startsWith('--'));
  if (!flag || flag.k !== 'lit') return;
  const dest = args.entries.find((e) => e.rawKey === 'dest');
  const destVal = dest ? file.valueOf(dest) : undefined;
  const name =
    destVal?.k === 'lit' && typeof destVal.v === 'string'
      ? destVal.v
      : String(flag.v).replace(/^-+/, '').replace(/-/g, '_');
  const def = args.entries.find((e) => e.rawKey === 'default');
  const action = args.entries.find((e) => e.rawKey === 'action');
  const actionVal = action ? file.valueOf(action) : undefined;
  const flagNode = args.positional.find((p) => {
    const v = file.evalNode(p, 0);
    return v.k === 'lit' && v.v === flag.v;
  })!;
  const typeEntry = args.entries.find((e) => e.rawKey === 'type');
  const typeName = typeEntry?.valueNode ? file.text.slice(typeEntry.valueSpan.start, typeEntry.valueSpan.end) : '';
  // `type=bool` is Python's bool() of the word: any word but the empty one is True, "False" too.
  const type = typeName === 'int' || typeName === 'float' || typeName === 'bool' ? typeName : undefined;
  const nargs = args.entries.find((e) => e.rawKey === 'nargs');
  const nargsVal = nargs ? file.valueOf(nargs) : undefined;
  if (
    nargsVal?.k === 'lit' &&
    (nargsVal.v === '+' || nargsVal.v === '*' || (typeof nargsVal.v === 'number' && nargsVal.v > 1))
  )
    file.manyOptions.add(name);
  // argparse gives a dest the default of its first option (parse_known_args sets each action's default only where the
  // namespace has none yet): a later `--no-x` (dest x, store_false) is that flag's off switch, not a second default.
  // The same flag twice is a conflict argparse refuses (or, under conflict_handler="resolve", the later one): unknown.
  const parser = file.calleeName(call)?.split('.').slice(0, -1).join('.') ?? '';
  const first = file.argparseDests.get(name);
  if (first && first.parser === parser && first.flag !== String(flag.v)) {
    offSwitch(file, name, actionVal?.k === 'lit' ? actionVal.v : undefined, String(flag.v));
    return;
  }
  if (!first) file.argparseDests.set(name, { parser, flag: String(flag.v) });
  const required = args.entries.find((e) => e.rawKey === 'required');
  const isRequired = required
    ? (() => {
        const r = file.valueOf(required);
        return r.k === 'lit' && r.v === true;
      })()
    : false;
  if (def?.valueNode) {
    file.fieldDefaults.set(name, {
      text: clip(file.text.slice(def.valueSpan.start, def.valueSpan.end)),
      line: file.line(def.valueSpan.start),
      where: 'argparse default',
    });
    if (!isRequired)
      noteDefault(file, name, {
        node: def.valueNode,
        keySpan: stringInner(file.text, flagNode),
        valueSpan: def.valueSpan,
        where: `argparse default of ${String(flag.v)}`,
        ...(type ? { type } : {}),
      });
  } else if (actionVal?.k === 'lit' && (actionVal.v === 'store_true' || actionVal.v === 'store_false')) {
    const off = actionVal.v === 'store_true';
    file.fieldDefaults.set(name, {
      text: off ? 'False' : 'True',
      line: file.line(call.from),
      where: `argparse ${actionVal.v} default`,
    });
    noteDefault(file, name, {
      node: null,
      lit: !off,
      keySpan: stringInner(file.text, flagNode),
      valueSpan: stringInner(file.text, flagNode),
      where: `argparse ${String(actionVal.v)} of ${String(flag.v)}: ${off ? 'False' : 'True'} unless given`,
      // A store_false flag turns its option off when given (pacman100/DHS-LLM-Workshop's `--no_fp16`, then
      // `fp16=args.no_fp16`): the launch line's bare flag is False.
      ...(off ? {} : { offFlag: String(flag.v).replace(/^-+/, '') }),
    });
  } else if (isRequired) {
    // Required, no default: only the command line gives it, so a launcher that runs the script fills it in.
    file.requiredOptions.add(name);
  } else if (!def) {
    // No default: argparse gives None, which stays unknown; a second option of the name with a default is ambiguous.
    noteDefault(file, name, {
      node: null,
      lit: null,
      keySpan: stringInner(file.text, flagNode),
      valueSpan: stringInner(file.text, flagNode),
      where: `argparse option ${String(flag.v)} without a default`,
    });
  }
}

/** A store_false option of a dest a store_true option gave first (`--bf16` then `--no-bf16`): its off flag. */
function offSwitch(file: PythonFile, name: string, action: unknown, flag: string): void {
  const d = file.scriptDefaults.get(name);
  if (action !== 'store_false' || d === undefined || d === 'ambiguous' || d.lit !== false) return;
  file.scriptDefaults.set(name, { ...d, offFlag: flag.replace(/^-+/, '') });
}

/**
 * `parser.set_defaults(x=value)`: the default of dest x whatever its options say (argparse writes it over their
 * defaults), located at the keyword; a launch line's flag still sets it.
 */
function noteSetDefaults(file: PythonFile, call: SyntaxNode): void {
  for (const e of file.args(call).entries) {
    if (!e.rawKey || !e.valueNode) continue;
    const option = file.argparseDests.get(e.rawKey)?.flag ?? `--${e.rawKey}`;
    file.fieldDefaults.set(e.rawKey, {
      text: clip(file.text.slice(e.valueSpan.start, e.valueSpan.end)),
      line: file.line(e.valueSpan.start),
      where: 'argparse set_defaults',
    });
    const prev = file.scriptDefaults.get(e.rawKey);
    file.scriptDefaults.set(e.rawKey, {
      node: e.valueNode,
      keySpan: e.keySpan,
      valueSpan: e.valueSpan,
      where: `argparse default of ${option}, from set_defaults`,
      ...(prev && prev !== 'ambiguous' && prev.offFlag !== undefined ? { offFlag: prev.offFlag } : {}),
    });
  }
}

/** Arguments dataclasses: subclasses of TrainingArguments/TRL configs, classes given to HfArgumentParser, *Arguments. */
export function collectClasses(file: PythonFile, classes: SyntaxNode[]): void {
  const info = classes.map((c) => {
    const nameNode = c.getChild('VariableName');
    const bases: string[] = [];
    const argList = c.getChild('ArgList');
    if (argList)
      for (let ch = argList.firstChild; ch; ch = ch.nextSibling) {
        const d = file.dotted(ch);
        if (d) bases.push(d);
      }
    const deco =
      c.parent?.name === 'DecoratedStatement'
        ? c.parent.getChildren('Decorator').some((d) => /\bdataclass\b/.test(file.text.slice(d.from, d.to)))
        : false;
    return { node: c, name: nameNode ? file.text.slice(nameNode.from, nameNode.to) : '', bases, dataclass: deco };
  });
  for (const c of info) file.localClasses.add(c.name);
  unslothTrainerClasses(file);
  // Subclass chains resolve over a few rounds (a local class may extend another local class).
  for (let round = 0; round < 4; round++) {
    for (const c of info) {
      for (const b of c.bases) {
        const last = b.split('.').pop()!;
        const root: Tool | undefined =
          TRL_CONFIGS.has(last) || b.startsWith('trl.')
            ? 'trl'
            : HF_ARGS.has(last)
              ? 'hf-trainer'
              : file.localArgs.get(last);
        if (root && !file.localArgs.has(c.name)) file.localArgs.set(c.name, root);
        // A base imported under another name is the library's trainer (`Seq2SeqTrainer as _Seq2SeqTrainer`).
        const library = file.libraryAliases.get(last) ?? last;
        const trainer = HF_TRAINERS.has(library) || TRL_TRAINERS.test(library) ? library : file.localTrainers.get(last);
        if (trainer && !file.localTrainers.has(c.name)) file.localTrainers.set(c.name, trainer);
      }
    }
  }
  const selected = info.filter(
    (c) =>
      c.dataclass && (file.localArgs.has(c.name) || file.parsedClasses.has(c.name) || /(Arguments|Args)$/.test(c.name)),
  );
  // Field defaults first (for the reasons of `x.field` unknowns), then the facts themselves. A class built from the
  // parsed command line (`Config(**vars(parser.parse_args()))`) takes each argparse option's value over its own default.
  const fields = selected.map((c) => ({
    c,
    fields: dataclassFields(file, c.node).filter(
      (f) => !(file.parsedClasses.has(c.name) && isArgparseOption(file, f.rawKey)),
    ),
  }));
  // A field of a class given to the parser that has no default: HfArgumentParser makes its option required, so only the
  // command line gives it (as argparse's required=True).
  for (const { c } of fields)
    if (file.parsedClasses.has(c.name))
      for (const name of fieldsWithoutDefault(file, c.node)) file.requiredOptions.add(name);
  for (const { c, fields: fs } of fields) {
    const splits = postInitSplits(file, c.node);
    for (const f of fs)
      if (f.valueNode) {
        file.fieldDefaults.set(f.rawKey, {
          text: clip(file.text.slice(f.valueSpan.start, f.valueSpan.end)),
          line: file.line(f.valueSpan.start),
          where: 'dataclass default',
        });
        noteDefault(file, f.rawKey, {
          node: f.valueNode,
          keySpan: f.keySpan,
          valueSpan: f.valueSpan,
          where: `${c.name}.${f.rawKey} default`,
          ...(splits.has(f.rawKey) ? { splitBy: splits.get(f.rawKey) } : {}),
        });
      }
  }
  // LoRA fields of a script that never uses PEFT set no LoRA (tokarev-i-v/ScaleQuest's qpo_train/train.py keeps
  // lora_r, lora_alpha and lora_dropout in its ScriptArguments and trains the whole model with DPOTrainer).
  const peft = PEFT_USE.test(file.text);
  for (const { c, fields: fs } of fields) {
    const tool =
      file.localArgs.get(c.name) ?? (file.tools.has('trl') && file.parsedClasses.has(c.name) ? 'trl' : 'hf-trainer');
    if (file.localArgs.has(c.name)) file.tools.add(tool);
    const generation = generationFields(fs);
    for (const f of fs) {
      const x = file.valueOf(f);
      if (x.k === 'lit' && x.v === null) continue;
      if (!peft && /^lora(_|$)/i.test(f.rawKey)) continue;
      // A generation config's max_length bounds what it generates, not the training sample.
      if (generation && f.rawKey === 'max_length') continue;
      mapEntry(file, 'dataclass', f, tool, 'dataclass-default', tool === 'trl');
    }
    sourceAndTarget(file, fs, tool);
  }
}

/** Fields only a generation config has (ChatGLM-Efficient-Tuning's GeneratingArguments: top_p, top_k, num_beams). */
const GENERATION_FIELDS = new Set(['top_p', 'top_k', 'num_beams', 'temperature', 'repetition_penalty', 'do_sample']);

/** Whether a dataclass's fields are a generation config's (two or more fields only one has). */
function generationFields(fs: readonly Entry[]): boolean {
  return fs.filter((f) => GENERATION_FIELDS.has(f.rawKey)).length >= 2;
}

/**
 * A dataclass with max_source_length and max_target_length (ChatGLM- and LLaMA-Efficient-Tuning's data arguments,
 * 512 each): a training sample is the prompt and the response together, up to their sum (its preprocessing's
 * `max_length = data_args.max_source_length + data_args.max_target_length`), located at max_target_length.
 */
function sourceAndTarget(file: PythonFile, fs: readonly Entry[], tool: Tool): void {
  const source = fs.find((f) => f.rawKey === 'max_source_length');
  const target = fs.find((f) => f.rawKey === 'max_target_length');
  // As the run has them: a launch line's --max_source_length / --max_target_length, else the fields' defaults.
  const run = (e: Entry | undefined): Val | undefined =>
    e && ((e.valueNode && parsedOption(file, e.rawKey, e.valueNode, 0)) || file.valueOf(e));
  const s = run(source);
  const t = run(target);
  if (!target || s?.k !== 'lit' || t?.k !== 'lit' || typeof s.v !== 'number' || typeof t.v !== 'number') return;
  file.facts.push({
    key: 'seqLen',
    rawKey: 'max_source_length + max_target_length',
    value: s.v + t.v,
    rawValue: `${s.v} + ${t.v}`,
    keySpan: target.keySpan,
    valueSpan: target.valueSpan,
    tool,
    origin: 'dataclass-default',
  });
}

/** What shows a script using PEFT (or a library that makes LoRA with it: Unsloth's get_peft_model, TRL's peft_config). */
const PEFT_USE = /\bpeft\b|Peft|LoraConfig|get_peft|peft_config|use_peft|use_lora/;

/**
 * dataclasses' `field(...)`, and transformers' `HfArg(...)` (transformers/hf_argparser.py: a field with `help` and
 * `aliases` in its metadata, the same `default` and `default_factory`), as LLMBox's training arguments write theirs.
 */
const FIELD = /^(?:(?:dataclasses\.)?field|(?:transformers\.)?(?:hf_argparser\.)?HfArg)$/;

/** A dataclass's fields with no default: a bare annotation, or `field(...)` without default or default_factory. */
function fieldsWithoutDefault(file: PythonFile, cls: SyntaxNode): string[] {
  const out: string[] = [];
  const body = cls.getChild('Body');
  for (let st = body?.firstChild ?? null; st; st = st.nextSibling) {
    const nameNode = st.firstChild;
    if (nameNode?.name !== 'VariableName' || !st.getChild('TypeDef')) continue;
    const value = st.getChild('AssignOp') ? st.lastChild : null;
    const bare = value === null;
    const noDefault =
      value?.name === 'CallExpression' &&
      FIELD.test(file.calleeName(value) ?? '') &&
      !file.args(value).entries.some((e) => e.rawKey === 'default' || e.rawKey === 'default_factory');
    if (bare || noDefault) out.push(file.text.slice(nameNode.from, nameNode.to));
  }
  return out;
}

/** Whether an argparse option of the file gives `name` (with a default, a store_true / store_false, or required). */
export function isArgparseOption(file: PythonFile, name: string): boolean {
  return file.fieldDefaults.get(name)?.where.startsWith('argparse') === true || file.requiredOptions.has(name);
}

/**
 * Dataclass fields with a default: `name: T = value`, `field(default=...)`, `field(default_factory=lambda: [...])`; a
 * field with none (`name: T`) is given where the class is built.
 */
export function dataclassFields(file: PythonFile, cls: SyntaxNode): Entry[] {
  const out: Entry[] = [];
  const body = cls.getChild('Body');
  if (!body) return out;
  for (let st = body.firstChild; st; st = st.nextSibling) {
    if (st.name !== 'AssignStatement') continue;
    const nameNode = st.firstChild;
    const value = st.lastChild;
    if (
      !nameNode ||
      nameNode.name !== 'VariableName' ||
      !value ||
      value.from === nameNode.from ||
      !st.getChild('TypeDef') ||
      !st.getChild('AssignOp')
    )
      continue;
    const rawKey = file.text.slice(nameNode.from, nameNode.to);
    let vnode: SyntaxNode | null = value;
    if (value.name === 'CallExpression' && FIELD.test(file.calleeName(value) ?? '')) {
      const args = file.args(value);
      const def = args.entries.find((e) => e.rawKey === 'default');
      const fac = args.entries.find((e) => e.rawKey === 'default_factory');
      vnode = def?.valueNode ?? (fac?.valueNode ? factoryValue(file, body, fac.valueNode) : null);
    }
    if (!vnode) continue;
    out.push({ rawKey, keySpan: span(nameNode), valueNode: vnode, valueSpan: span(vnode) });
  }
  return out;
}

/**
 * What a dataclass field's default_factory makes: a lambda's body (`lambda: ["q_proj", "v_proj"]`), or the sole return
 * of a function defined in the class body before the field or in the file (`def default_lora_modules(): return [...]`,
 * then `field(default_factory=default_lora_modules)`, SIFT's train.py). Null for a class or anything else.
 */
function factoryValue(file: PythonFile, classBody: SyntaxNode, factory: SyntaxNode): SyntaxNode | null {
  if (factory.name === 'LambdaExpression') return factory.lastChild;
  if (factory.name !== 'VariableName') return null;
  const name = file.text.slice(factory.from, factory.to);
  const inClass = classBody.getChildren('FunctionDefinition').find((fn) => {
    const n = fn.getChild('VariableName');
    return n !== null && file.text.slice(n.from, n.to) === name;
  });
  const body = inClass?.getChild('Body') ?? definedFunctionBody(file, factory);
  return (body && soleReturn(body)?.lastChild) ?? null;
}

/**
 * Unsloth's trainer classes, imported from unsloth (unsloth/trainer.py): UnslothTrainingArguments extends TRL's
 * SFTConfig (transformers' TrainingArguments where TRL has none) and adds an embedding learning rate; UnslothTrainer
 * extends SFTTrainer. Read as those, unless the file defines a class of the name itself.
 */
function unslothTrainerClasses(file: PythonFile): void {
  if (!/^\s*from\s+unsloth(?:\.trainer)?\s+import\b[^\n]*\bUnsloth(?:Trainer|TrainingArguments)\b/m.test(file.text))
    return;
  if (!file.localClasses.has('UnslothTrainingArguments')) file.localArgs.set('UnslothTrainingArguments', 'trl');
  if (!file.localClasses.has('UnslothTrainer')) file.localTrainers.set('UnslothTrainer', 'SFTTrainer');
}

/**
 * A class named after a TRL trainer it extends (`ONN_GRPOTrainer`, `CustomDPOTrainer`, `Qwen2VLGRPOTrainer`): the TRL
 * trainer's name after a prefix that is a word of its own, with a lowercase letter, a digit or an underscore in it.
 * `SPPOTrainer` (ZIYU-DEEP/eva: self-play preference optimization, a DPOTrainer copy over transformers' Trainer) is no
 * PPOTrainer: its `S` is a letter of the acronym.
 */
const NAMED_AFTER_TRL = new RegExp(`^(\\w+?)${TRL_TRAINERS.source.slice(1)}`);

/**
 * A class named as a TRL trainer with a word of its own before `Trainer` (xuanduy04/trl_tool's GRPOToolTrainer,
 * `class GRPOToolTrainer(GRPOTrainer)` in its vendored TRL): that trainer.
 */
const TRL_NAME_EXTENDED = new RegExp(`${TRL_TRAINERS.source.slice(0, -'Trainer$'.length)}[A-Z][A-Za-z0-9]*Trainer$`);

/**
 * The transformers or TRL trainer a class is: the class itself, the library class a class of this file extends
 * (localTrainers), or, for a class defined in another file, the TRL trainer its name ends with or starts with
 * (`byName`: said where it is called, as the class may change what its base keeps).
 */
export function libraryTrainer(file: PythonFile, name: string): { trainer: string; byName?: true } | undefined {
  const local = file.localTrainers.get(name);
  if (local) return { trainer: local };
  // A class of the file by a trainer's name that extends no trainer is the file's own (yushengsu-thu/mup_training's
  // `class Trainer:` runs a written-out loop).
  if (file.localClasses.has(name)) return undefined;
  const library = file.libraryAliases.get(name) ?? name;
  if (HF_TRAINERS.has(library) || TRL_TRAINERS.test(library)) return { trainer: library };
  const trainer = trlTrainerNamed(name);
  return trainer ? { trainer, byName: true } : undefined;
}

/** The TRL trainer a class defined elsewhere is named after (NAMED_AFTER_TRL, TRL_NAME_EXTENDED), if any. */
function trlTrainerNamed(name: string): string | undefined {
  const m = NAMED_AFTER_TRL.exec(name);
  if (m && /[a-z0-9_]/.test(m[1])) return `${m[2]}Trainer`;
  const e = TRL_NAME_EXTENDED.exec(name);
  return e ? `${e[1]}Trainer` : undefined;
}

/** The note at a call of a class read as the TRL trainer its name ends with. */
export function noteTrainerByName(file: PythonFile, call: SyntaxNode, name: string, trainer: string): void {
  file.problem(
    'not-static',
    'info',
    msg("{0} is defined in another file: read as TRL's {1}, the trainer its name ends with", name, trainer),
    call.firstChild ? span(call.firstChild) : span(call),
  );
}

/** Packages whose `Trainer` runs a loop of its own, not transformers' (PyTorch Lightning, CoLLiE, MosaicML Composer). */
const OTHER_TRAINER_PACKAGES: Readonly<Record<string, string>> = {
  pytorch_lightning: 'PyTorch Lightning',
  lightning: 'PyTorch Lightning',
  'lightning.pytorch': 'PyTorch Lightning',
  collie: 'CoLLiE',
  composer: 'MosaicML Composer',
};

/**
 * The framework whose `Trainer` a call builds when it is not transformers' (`pl.Trainer(...)` after
 * `import pytorch_lightning as pl`; `Trainer(...)` after `from collie import Trainer`), else undefined.
 */
export function otherFrameworkTrainer(file: PythonFile, parts: readonly string[]): string | undefined {
  if (parts[parts.length - 1] !== 'Trainer' || parts.length > 2) return undefined;
  const qualifier = parts.length === 2 ? parts[0] : undefined;
  for (const [pkg, framework] of Object.entries(OTHER_TRAINER_PACKAGES))
    if (bindsTrainer(file.text, pkg, qualifier)) return framework;
  return undefined;
}

/**
 * Whether the text takes `Trainer` from the package (`from collie import Trainer`), or, for a qualified call, names the
 * package by the qualifier (`import pytorch_lightning as pl`, or the package's own name).
 */
function bindsTrainer(text: string, pkg: string, qualifier: string | undefined): boolean {
  if (qualifier === pkg.split('.')[0]) return true;
  // Both forms name the package: a text that does not is not searched (this runs at every Trainer call).
  if (!text.includes(pkg)) return false;
  const module = pkg.replace('.', String.raw`\.`);
  if (qualifier === undefined) {
    const from = String.raw`^[ \t]*from[ \t]+${module}(?:\.[\w.]+)?[ \t]+import[ \t]+`;
    return new RegExp(from + String.raw`(?:\([^)]*\bTrainer\b|[^\n]*\bTrainer\b)`, 'm').test(text);
  }
  return new RegExp(String.raw`^[ \t]*import[ \t]+${module}[ \t]+as[ \t]+${qualifier}\b`, 'm').test(text);
}

/** The warning at a call of another framework's Trainer: its loop is not read, the HF Trainer's defaults stand in. */
export function noteOtherFrameworkTrainer(file: PythonFile, call: SyntaxNode, framework: string): void {
  file.problem(
    'not-modeled',
    'warning',
    msg(
      "this Trainer is {0}'s, not transformers': its loop, batch, precision and strategy are not read; the HF Trainer's defaults stand in",
      framework,
    ),
    call.firstChild ? span(call.firstChild) : span(call),
  );
}
