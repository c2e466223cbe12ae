// Defaults of the script's own options (argparse options and arguments-dataclass fields) and of function parameters,
// read where `args.x` or a parameter is used: the value that runs when the command line passes nothing. Pure.
import type { SyntaxNode } from '@lezer/common';
import { splitValue } from './post-init-splits';
import type { CallArguments, DataItem, Fact, FactValue, ScriptOption, Span } from '../facts';
import type { PythonFile, Scope, Val } from './file';
import { branchTaken } from './branches';
import { clip, fmt, isKeywordsParameter, MAX_DEPTH, parameters, readingNoneDefaults, span } from './syntax';
import { mappedFunction } from './mapped-functions';
import {
  argumentNode,
  assignedAttribute,
  calledAs,
  classNameOf,
  initAttribute,
  initAttributeMember,
  positionalParameters,
  returnedKeyword,
  returnedNameAttribute,
  scriptCallArgumentOf,
  selfHoldsParsedArgs,
} from './attributes';

/**
 * A default of the script's own options: an argparse `default=` (or store_true's False) or a field default of an
 * arguments dataclass. It is what runs when the command line does not set the option, so `args.x` reads it, and the
 * fact is located at the default (keySpan: the option or field name, valueSpan: the default).
 */
export interface ScriptDefault {
  readonly node: SyntaxNode | null;
  /** The value when no node gives it (store_true: False). */
  readonly lit?: FactValue;
  readonly keySpan: Span;
  readonly valueSpan: Span;
  /** 'argparse default of --model_name' / 'ScriptArguments.model_name default'. */
  readonly where: string;
  /**
   * argparse `type=int` / `type=float` / `type=bool`: a string default is converted (argparse applies type to string
   * defaults), and so is the launch line's word (`bool("False")` is True: only an empty word is False).
   */
  readonly type?: 'int' | 'float' | 'bool';
  /** A boolean flag's off flag without its dashes (click's `--x/--no-x`, typer's bool options): False when passed. */
  readonly offFlag?: string;
  /** The class's `__post_init__` splits the string into a list on this separator (post-init-splits.ts). */
  readonly splitBy?: string;
  /**
   * The value is the option compared with a string (`args.cpu_offload == "on"`, expressions.ts evalComparison): the
   * launch line's word decides it the same way.
   */
  readonly equals?: { readonly value: string; readonly negated: boolean };
  /**
   * The script splits the option's string where it uses it (`training_args.trainable.split(",")`, expressions.ts
   * staticSplit): the launch line's word is split the same way.
   */
  readonly splitOnUse?: string;
  /**
   * The option belongs to the script that imports this module (PythonFile.inherited): the fact is located where the
   * module reads it, and says where the value comes from.
   */
  readonly elsewhere?: {
    readonly source: string;
    readonly launched: boolean;
    /** An item of a file the script loads, with its value as written there (data-files.ts). */
    readonly data?: DataItem & { readonly raw: FactValue };
  };
}

/**
 * A function whose call returns the parsed command line (`parser.parse_args()`, a script's `get_args()`, `set_args()`
 * of liucongg/ChatGLM-Finetuning and its copies, `setup_args()`).
 */
export const PARSED_ARGS_CALL = new RegExp(
  [
    '^parse_(known_)?args',
    '^parse_(dict|json_file|yaml_file|yaml_and_args)$',
    '^(get|parse|parser)_(args|arguments|config)$',
    '^(set|setup|init|build|load)_(args|arguments)$',
  ].join('|'),
);

/**
 * Whether a call returns the parsed command line (PARSED_ARGS_CALL): by the name it calls, also where that is a method
 * of an object made in place, `HfArgumentParser((A, TrainingArguments)).parse_args_into_dataclasses()` (LC1332/Luotuo-QA),
 * which has no dotted name.
 */
export function parsesCommandLine(file: PythonFile, call: SyntaxNode | null | undefined): boolean {
  if (call?.name !== 'CallExpression') return false;
  const callee = call.firstChild;
  const method =
    file.calleeName(call)?.split('.').pop() ??
    (callee?.name === 'MemberExpression' && callee.lastChild?.name === 'PropertyName'
      ? file.text.slice(callee.lastChild.from, callee.lastChild.to)
      : '');
  return PARSED_ARGS_CALL.test(method) || h4Parse(file, file.calleeName(call));
}

/**
 * alignment-handbook's `H4ArgumentParser(...).parse()`: the YAML the command line gives first (`train.py
 * recipes/x.yaml --key=value`) fills the dataclasses, the line's own flags over it (alignment/configs.py parse:
 * parse_yaml_and_args(os.path.abspath(sys.argv[1]), sys.argv[2:])), as TrlParser's `--config` file does.
 */
export function h4Parse(file: PythonFile, callee: string | undefined): boolean {
  const m = callee === undefined ? null : /^(\w+)\.parse$/.exec(callee);
  return m !== null && new RegExp(`\\b${m[1]}\\s*=\\s*H4ArgumentParser\\s*\\(`).test(file.text);
}

/**
 * A default that gives no value: an empty string, or one that stands for "fill this in" ("path/to/model", "<model>",
 * "your-model"). Not taken as the value.
 */
function emptyDefault(v: FactValue): boolean {
  return v === '' || (typeof v === 'string' && /^(\.?\/?path\/to\b|<[^>]*>$|your[-_ ])/i.test(v));
}

/**
 * A literal that another place writes (a module's constant, a loaded file's key, the importing script's call), located
 * at `at` where this file reads it, its raw value saying where it is written.
 */
export function writtenElsewhere(
  value: FactValue,
  at: Span,
  source: string,
  data?: DataItem & { readonly raw: FactValue },
): Val {
  const dflt: ScriptDefault = {
    node: null,
    lit: value,
    keySpan: at,
    valueSpan: at,
    where: source,
    elsewhere: { source, launched: true, ...(data ? { data } : {}) },
  };
  return { k: 'lit', v: value, dflt };
}

/** Records a default of the script's own options; two different defaults of one name make it ambiguous. */
export function noteDefault(file: PythonFile, name: string, d: ScriptDefault): void {
  const prev = file.scriptDefaults.get(name);
  if (prev === undefined) file.scriptDefaults.set(name, d);
  else if (prev !== 'ambiguous' && defaultText(file, prev) !== defaultText(file, d))
    file.scriptDefaults.set(name, 'ambiguous');
}

/**
 * The command-line option a script default belongs to (its flag, or the arguments dataclass field), with the default
 * as written, for a launcher to fill in (launch-args.ts withLaunchArgs); a boolean flag's `--no-x` with it.
 */
export function optionOfDefault(file: PythonFile, d: ScriptDefault): Pick<Fact, 'fromArg'> {
  const option =
    /^(?:argparse|fire\.Fire\(\w+\)|click\.option|typer\.Option) default of --([\w-]+)/.exec(d.where)?.[1] ??
    /^\w+\.(\w+) default$/.exec(d.where)?.[1];
  if (!option) return {};
  const off = d.offFlag !== undefined ? { off: d.offFlag } : {};
  const equals = d.equals ? { equals: d.equals } : {};
  const split = d.splitOnUse !== undefined ? { split: d.splitOnUse } : {};
  const truth = d.type === 'bool' ? { truthOfWord: true as const } : {};
  const line = file.line(d.valueSpan.start);
  return { fromArg: { name: option, default: defaultText(file, d), line, ...off, ...equals, ...split, ...truth } };
}

export function defaultText(file: PythonFile, d: ScriptDefault): string {
  return d.node ? file.text.slice(d.node.from, d.node.to) : fmt(d.lit ?? null);
}

/** `a.b` read where it is used: the value an `a.b = ...` before it sets (attributes.ts), else the script's default. */
export function memberValue(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  return (
    assignedAttribute(file, dotted, use, depth) ??
    initAttribute(file, dotted, use, depth) ??
    initAttributeMember(file, dotted, use, depth) ??
    returnedKeyword(file, dotted, use, depth) ??
    returnedNameAttribute(file, dotted, use, depth) ??
    scriptDefault(file, dotted, use, depth)
  );
}

/**
 * `args.x`, where `args` holds the parsed command line (`parser.parse_args()`, a tuple of HfArgumentParser's
 * dataclasses, or a function parameter named `*args`), reads the default of option / field x when the script has one
 * and never assigns `.x` itself: the value that runs when the launcher passes nothing (a launcher flag wins in
 * resolve, as the launcher's facts outrank the script's). None, "" and computed defaults stay unknown.
 */
export function scriptDefault(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const parts = dotted.split('.');
  if (parts.length !== 2) return undefined;
  const [obj, field] = parts;
  return optionValue(file, field, use, depth, () => holdsParsedArgs(file, obj, use));
}

/**
 * The default of option x as written, for `args.x` where `args` holds the parsed command line and the script never
 * assigns `.x`: the expression itself, for a reading that works it out on the GPU the estimate is for (bf16-support.ts).
 */
export function parsedDefaultNode(file: PythonFile, dotted: string, use: SyntaxNode): SyntaxNode | undefined {
  const parts = dotted.split('.');
  if (parts.length !== 2) return undefined;
  const d = file.scriptDefaults.get(parts[1]);
  if (d === undefined || d === 'ambiguous' || !d.node || d.elsewhere || assignedAtRunTime(file, parts[1]))
    return undefined;
  return holdsParsedArgs(file, parts[0], use) ? d.node : undefined;
}

/**
 * `get_args().x`: an attribute of a call that returns the parsed command line (PARSED_ARGS_CALL), read as `args.x`
 * (yohai7700/llm-identifiability-explainability models/classification_model.py: `model_name =
 * get_args().classification_model_name`, get_args imported from its args.py).
 */
export function parsedCallMember(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const obj = node.firstChild;
  const prop = node.lastChild;
  if (obj?.name !== 'CallExpression' || prop?.name !== 'PropertyName' || obj.nextSibling?.name !== '.')
    return undefined;
  if (!parsesCommandLine(file, obj)) return undefined;
  return parsedOption(file, file.text.slice(prop.from, prop.to), node, depth);
}

/** Option `field` of an object known to hold the parsed command line (`self.args` set from `parser.parse_args()`). */
export function parsedOption(file: PythonFile, field: string, use: SyntaxNode, depth: number): Val | undefined {
  return optionValue(file, field, use, depth, () => true);
}

/** Option `field` of the parsed command line read at `use`, where `parsed` says the object holds it. */
function optionValue(
  file: PythonFile,
  field: string,
  use: SyntaxNode,
  depth: number,
  parsed: () => boolean,
): Val | undefined {
  const noOptions = file.scriptDefaults.size === 0 && file.requiredOptions.size === 0 && !file.inherited;
  if (noOptions) return undefined;
  const d = file.scriptDefaults.get(field);
  // A module of the script's process reads the launch line's value of its own options too (one command line).
  if (file.inherited && (d === undefined || file.inherited.get(field)?.launched))
    return inheritedOption(file, field, use, parsed);
  if (d === undefined || d === 'ambiguous' || assignedAtRunTime(file, field) || !parsed()) {
    if (d === undefined && file.requiredOptions.has(field)) noValueAlone(file);
    return undefined;
  }
  // An option a module of the project declares (imported-arguments.ts): its fact is located here, with no flag for a
  // launcher to fill in, so a launch line with options reads the script again with them.
  if (d.elsewhere && !d.elsewhere.launched) readsLaunchOptions(file);
  const v: Val = d.node ? file.evalNode(d.node, depth + 1) : { k: 'lit', v: d.lit ?? null };
  // A test reads an empty default too: `x if args.target_modules else [...]` with `default=""` takes the else branch.
  if (v.k === 'lit' && (v.v === null || v.v === '') && file.noneDefaults) return { k: 'lit', v: v.v, dflt: d };
  if (v.k !== 'lit' || v.v === null || emptyDefault(v.v)) {
    if (v.k === 'lit') noValueAlone(file);
    return undefined;
  }
  const value = splitValue(typed(v.v, d), d.splitBy);
  return value === undefined ? undefined : { k: 'lit', v: value, dflt: d };
}

/**
 * Whether the script changes option x at run time: an `args.x = ...` that may run. One on a branch known not to run
 * leaves the option its value (RUCAIBox/LLMBox train.py: `if args.qlora: args.lora = True` with qlora False).
 */
function assignedAtRunTime(file: PythonFile, name: string): boolean {
  const statements = file.optionAssignments.get(name);
  if (!statements) return false;
  // Asked at every read of the option: worked out once its tests are settled (PythonFile.testValues).
  const known = file.testValues ? file.optionsAssignedAtRunTime.get(name) : undefined;
  if (known !== undefined) return known;
  if (file.optionsChecking.has(name)) return true;
  file.optionsChecking.add(name);
  try {
    const assigned = statements.some((st) => branchTaken(file, st) !== false);
    if (file.testValues) file.optionsAssignedAtRunTime.set(name, assigned);
    return assigned;
  } finally {
    file.optionsChecking.delete(name);
  }
}

/** An option the script reads has no value but the launch line's: a launch line with options reads the script again. */
function noValueAlone(file: PythonFile): void {
  readsLaunchOptions(file);
}

/** What the script works out depends on its options: a launch line with options reads the script again with them. */
export function readsLaunchOptions(file: PythonFile): void {
  if (!file.settled) file.readsLaunchOptions = true;
}

/** A string default of an option with `type=int` / `float` / `bool` as the parser converts it; undefined if it cannot. */
function typed(v: FactValue, d: ScriptDefault): FactValue | undefined {
  if (!d.type || typeof v !== 'string') return v;
  if (d.type === 'bool') return v !== '';
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (d.type === 'int' && !Number.isInteger(n))) return undefined;
  return n;
}

/**
 * `args.x` in a helper module, where `args` is a parameter holding the importing script's parsed options: the value
 * the run gives option x (the launch line's, else the script's default), located where the module reads it.
 */
function inheritedOption(file: PythonFile, field: string, use: SyntaxNode, parsed: () => boolean): Val | undefined {
  const o = file.inherited?.get(field);
  if (!o || assignedAtRunTime(file, field) || !parsed()) return undefined;
  if (o.unknown !== undefined)
    return { k: 'unknown', reason: `${clip(file.text.slice(use.from, use.to))}: ${o.unknown}` };
  const d: ScriptDefault = {
    node: null,
    lit: o.value,
    keySpan: span(use),
    valueSpan: span(use),
    where: o.source,
    elsewhere: { source: o.source, launched: o.launched },
  };
  if ((o.value === null || o.value === '') && file.noneDefaults) return { k: 'lit', v: o.value, dflt: d };
  if (o.value === null) return undefined;
  if (emptyDefault(o.value)) return undefined;
  // The module's own class may split the option's string in its __post_init__ (post-init-splits.ts).
  const own = file.scriptDefaults.get(field);
  return { k: 'lit', v: splitValue(o.value, own === 'ambiguous' ? undefined : own?.splitBy), dflt: d };
}

/** The script's options with their defaults as literals (None included), for the helper modules it imports. */
export function scriptOptions(file: PythonFile): ScriptOption[] {
  const out: ScriptOption[] = [];
  for (const [name, d] of file.scriptDefaults) {
    if (d === 'ambiguous' || assignedAtRunTime(file, name)) continue;
    const v = readingNoneDefaults(file, () =>
      d.node ? file.evalNode(d.node, 0) : { k: 'lit' as const, v: d.lit ?? null },
    );
    if (v.k !== 'lit') continue;
    const many = file.manyOptions.has(name) ? { many: true as const } : {};
    const split = d.splitBy !== undefined ? { splitBy: d.splitBy } : {};
    const off = d.offFlag !== undefined ? { offFlag: d.offFlag } : {};
    const truth = d.type === 'bool' ? { truthOfWord: true as const } : {};
    const value = splitValue(d.type === 'bool' ? typed(v.v, d)! : v.v, d.splitBy);
    out.push({ name, value, where: d.where, line: file.line(d.valueSpan.start), ...many, ...split, ...off, ...truth });
  }
  return out;
}

function holdsParsedArgs(file: PythonFile, obj: string, use: SyntaxNode, hops = 0): boolean {
  const found = file.lookup(obj, use);
  const parsing = (n: SyntaxNode | null | undefined): boolean => {
    // `parser.parse_args_into_dataclasses(return_remaining_strings=True)[0]` (MedicalGPT): the first dataclass; `args[1]`
    // of `args = parse_args()` returning the parser's dataclasses (sophus1004/Portfolio): another, its fields options
    // of the one command line as well.
    const index =
      n?.name === 'MemberExpression' ? /^\[\s*(\d)\s*\]$/.exec(file.text.slice(n.firstChild!.to, n.to)) : null;
    const of = index ? n!.firstChild! : undefined;
    if (of?.name === 'VariableName' && hops < 3)
      return holdsParsedArgs(file, file.text.slice(of.from, of.to), of, hops + 1);
    if (of && index![1] === '0') return parsing(of);
    // `model_args, data_args, training_args = parsed` of `parsed = parser.parse_yaml_file(args.config)`
    // (jonathanlu31/final_project's run_dpo.py): the name the parser's result was bound to first.
    if (n?.name === 'VariableName' && hops < 3)
      return holdsParsedArgs(file, file.text.slice(n.from, n.to), n, hops + 1);
    // `args = self.args`, which `__init__` set from `parser.parse_args()` (tdolega/rag-tge's init_trainer).
    if (n?.name === 'MemberExpression') return selfHoldsParsedArgs(file, file.text.slice(n.from, n.to), n);
    return parsesCommandLine(file, n);
  };
  if (found.k === 'binding')
    return parsing(
      found.binding.kind === 'assign'
        ? found.binding.valueNode
        : found.binding.kind === 'unpack'
          ? found.binding.rhs
          : null,
    );
  // Not bound here: a name a star-imported module binds to its parse_args() (`from config import *`).
  if (found.param === undefined) return file.starParsedArgs.has(obj);
  return /(^|_)(args|arguments)$/.test(obj) || (hops < 3 && passedParsedArgs(file, found.param, hops + 1));
}

/**
 * A parameter of a function called once (a class's `__init__`: the class called once) whose call passes a name holding
 * the parsed command line: `Trainer(args)` into `def __init__(self, parser)`.
 */
function passedParsedArgs(file: PythonFile, param: { scope: Scope; name: string }, hops: number): boolean {
  const arg = argumentNode(file, param);
  return arg?.name === 'VariableName' && holdsParsedArgs(file, file.text.slice(arg.from, arg.to), arg, hops);
}

/**
 * A parameter's value when its function is called exactly once in the file: the argument at that call (by keyword
 * or position), else the parameter's default; a parameter of the command the command line runs (fire.Fire's function,
 * a click or typer command) is an option of the script (commandParameter), and so is a keyword argument a call passes
 * on from the command's `**kwargs`. Called more than once, the value every call gives it when they all give the same
 * one (superxx533/Qwen2-VL-RS2's train.py builds its model twice from `args.base_model_dir`); calls that differ, or
 * none, leave it unknown.
 */
export function singleCallArgument(file: PythonFile, scope: Scope, name: string, depth: number): Val | undefined {
  if (!scope.fn || depth > MAX_DEPTH / 2) return undefined;
  // A class's __init__ is called by the class's name.
  const callee = calledAs(file, scope);
  // A class or static method is called through its class (`Config.from_dict(data)`).
  const owner = scope.fn !== '__init__' ? classNameOf(file, scope.node) : undefined;
  const through = owner === undefined ? undefined : `${owner}.${scope.fn}`;
  const sites = [...file.callsNamed(callee), ...file.callsNamed(through)].sort((a, b) => a.from - b.from);
  const entry = file.commandEntry;
  if (scope.fn === entry?.fn && (sites.length === 0 || entry.callsRunCommand))
    return commandParameter(file, name, depth);
  // The importing script calls a class's __init__ by the class's name (`ModelLoader(config)`).
  const called = callee === undefined ? undefined : file.moduleCallArgs?.[callee];
  if (sites.length === 0 && called) return scriptCallArgument(file, scope, name, called, depth);
  if (sites.length === 0)
    return partialArgument(file, callee, name, depth) ?? mappedDefault(file, scope, callee, name, depth);
  if (sites.length > 8) return undefined;
  const values = sites.map((site) => argumentAt(file, scope, name, site, depth));
  const first = values[0];
  if (values.length === 1) return first;
  if (first?.k !== 'lit') return undefined;
  const same = values.every((v) => v?.k === 'lit' && JSON.stringify(v.v) === JSON.stringify(first.v));
  return same ? first : undefined;
}

/**
 * A parameter of a helper module's function that the importing script calls once: the literal (or the mapping loaded
 * from a JSON / YAML file) its call passes (by keyword or position), said to come from the script's call; the
 * parameter's default where the call passes none.
 */
function scriptCallArgument(
  file: PythonFile,
  scope: Scope,
  name: string,
  called: CallArguments,
  depth: number,
): Val | undefined {
  const arg = scriptCallArgumentOf(file, scope, name, called);
  if (arg === null)
    return { k: 'unknown', reason: `${name} is what the script's call (${called.at}) passes, not known statically` };
  if (arg === undefined) {
    const def = scope.params.get(name);
    const v = def ? file.evalNode(def, depth + 1) : undefined;
    return v?.k === 'lit' && v.v !== null ? v : undefined;
  }
  const from = `the script's call of ${calledAs(file, scope) ?? scope.fn}() (${called.at})`;
  // A mapping the script loaded from a file: its items, said to come from the file's keys.
  if ('loaded' in arg) return { k: 'data', ...arg.loaded, via: { text: from, span: span(scope.node) } };
  // A model class is no value: calls.ts boundModelClass reads it where the module calls its from_pretrained.
  if ('modelClass' in arg) return undefined;
  return writtenElsewhere(arg.value, span(scope.node), from);
}

/**
 * A function called only through `functools.partial(fn, name=value)` (RethinkFun/sft: `collate_fn =
 * functools.partial(sft_collate, tokenizer=tokenizer, max_length=500)`, handed to the DataLoader): the keyword it binds,
 * which every call through it passes; undefined where it binds none or more than one partial does.
 */
function partialArgument(file: PythonFile, callee: string | undefined, name: string, depth: number): Val | undefined {
  if (!callee) return undefined;
  const bound = [...file.callsNamed('functools.partial'), ...file.callsNamed('partial')].filter((c) => {
    const first = file.args(c).positional[0];
    return first !== undefined && file.text.slice(first.from, first.to) === callee;
  });
  if (bound.length !== 1) return undefined;
  const kw = file.args(bound[0]).entries.find((e) => e.rawKey === name);
  if (!kw?.valueNode) return undefined;
  const v = file.evalNode(kw.valueNode, depth + 1);
  return v.k === 'lit' && v.v !== null ? v : undefined;
}

/**
 * A parameter of a function the file only hands to a dataset's `.map(` (`raw.map(tokenize, batched=True)` with `def
 * tokenize(examples, MAX_LEN=520)`): datasets passes the batch alone, and `fn_kwargs=` the keywords it names, so any
 * other parameter is its default (genji970/mistralai-7B_training_using_DeepSpeed's tokenizer.py).
 */
function mappedDefault(
  file: PythonFile,
  scope: Scope,
  callee: string | undefined,
  name: string,
  depth: number,
): Val | undefined {
  if (!callee) return undefined;
  const maps = file.calls.filter((c) => {
    const f = mappedFunction(file, c);
    return f !== undefined && file.text.slice(f.from, f.to) === callee;
  });
  if (maps.length !== 1 || file.args(maps[0]).entries.some((e) => e.rawKey === 'fn_kwargs')) return undefined;
  if (positionalParameters(file, scope)[0] === name) return undefined;
  const def = scope.params.get(name);
  const v = def ? file.evalNode(def, depth + 1) : undefined;
  return v?.k === 'lit' && v.v !== null ? v : undefined;
}

/** The value one call gives a parameter: its argument by keyword or position, else the parameter's default. */
export function argumentAt(
  file: PythonFile,
  scope: Scope,
  name: string,
  site: SyntaxNode,
  depth: number,
): Val | undefined {
  const params = parameters(file.text, scope.node.getChild('ParamList'));
  const a = file.args(site);
  const kw = a.entries.find((e) => e.rawKey === name);
  const i = positionalParameters(file, scope).indexOf(name);
  const node = kw?.valueNode ?? (i >= 0 && i < a.positional.length ? a.positional[i] : null);
  if (!node && passesCommandKeywords(file, site)) return commandParameter(file, name, depth);
  if (kw === undefined && a.opaque.length > 0) return undefined;
  if (node) {
    const v = file.evalNode(node, depth + 1);
    if (v.k === 'lit' && v.v === null && !file.noneDefaults) return undefined;
    // A required option or argument of the command, passed on to here: unknown, with its flag for the launch line.
    return v.k === 'lit' || v.k === 'dict' || v.k === 'data' || (v.k === 'unknown' && v.argv) ? v : undefined;
  }
  const def = scope.params.get(name);
  if (!def) return undefined;
  const v = file.evalNode(def, depth + 1);
  if (v.k === 'lit' && (v.v === null || v.v === '') && file.noneDefaults) return v;
  if (v.k !== 'lit' || v.v === null || emptyDefault(v.v)) return undefined;
  const nameNode = params.find((p) => p.name === name)?.nameNode;
  const at: Span = nameNode ? span(nameNode) : span(def);
  return {
    k: 'lit',
    v: v.v,
    dflt: { node: def, keySpan: at, valueSpan: span(def), where: `default of ${scope.fn}(${name})` },
  };
}

/** Whether a call passes on `**kwargs` of the command's function (`def main(**kwargs): train(**kwargs)`). */
function passesCommandKeywords(file: PythonFile, call: SyntaxNode): boolean {
  const entry = file.commandEntry;
  const list = call.getChild('ArgList');
  if (!entry?.callsRunCommand || !list) return false;
  for (let ch = list.firstChild; ch; ch = ch.nextSibling) {
    const target = ch.name === '**' ? ch.nextSibling : null;
    if (target?.name !== 'VariableName') continue;
    const found = file.lookup(file.text.slice(target.from, target.to), target);
    const p = found.k === 'none' ? found.param : undefined;
    if (p?.scope.fn !== entry.fn) continue;
    const declared = parameters(file.text, p.scope.node.getChild('ParamList')).find((x) => x.name === p.name);
    if (declared && isKeywordsParameter(declared)) return true;
  }
  return false;
}

/**
 * A parameter of the command the command line runs, read in its body: the value the run gives it. Read again with the
 * script's options as the launch line passes them (PythonFile.inherited, where the file is settled), that option's
 * value; otherwise its default, which a launch line's flag replaces (launch-args.ts withLaunchArgs); without a default,
 * unknown but for the launch line's flag. None, "" and fill-in defaults ("path/to/model") stay unknown, as an argparse
 * option's do (scriptDefault).
 */
export function commandParameter(file: PythonFile, name: string, depth: number): Val | undefined {
  const d = file.scriptDefaults.get(name);
  const o = file.inherited?.get(name);
  if (o?.unknown !== undefined) return { k: 'unknown', reason: `${name}: ${o.unknown}` };
  if (d === undefined && file.requiredOptions.has(name)) {
    if (o !== undefined && o.value !== null) return { k: 'lit', v: o.value };
    noValueAlone(file);
    const entry = file.commandEntry;
    const flag = entry?.flags.get(name);
    if (flag === undefined)
      return {
        k: 'unknown',
        reason: `${name} is an argument the command line gives by position (${entry?.how})`,
        argv: true,
      };
    const reason = `${name} is a required option of the script (${entry?.how} --${flag})`;
    return { k: 'unknown', reason, option: flag, argv: true };
  }
  if (d === undefined || d === 'ambiguous') return undefined;
  const v: Val = o
    ? { k: 'lit', v: o.value }
    : d.node
      ? file.evalNode(d.node, depth + 1)
      : { k: 'unknown', reason: '' };
  if (v.k !== 'lit') return undefined;
  if ((v.v === null || v.v === '') && file.noneDefaults) return { k: 'lit', v: v.v, dflt: d };
  const value = v.v === null ? undefined : splitValue(o ? v.v : typed(v.v, d), d.splitBy);
  // None or "" (alpaca-lora's `base_model: str = ""`, "the only required argument"): the launch line's value only.
  if (value === undefined || emptyDefault(value)) {
    noValueAlone(file);
    return undefined;
  }
  return { k: 'lit', v: value, dflt: o ? { ...d, where: o.source } : d };
}
