// The state of one Python file under analysis (facts, problems, the indexes built over its tree) and the static
// evaluation every recognized call uses: the arguments of a call, literals, names bound to literals, dict spreads and
// item assignments, scopes and bindings. Pure: no I/O, no node:* and no 'vscode'; it never runs code.
import { lineIndex, lineStarts } from '../line-index';
import type { SyntaxNode } from '@lezer/common';
import {
  msg,
  type CallArguments,
  type CanonicalKey,
  type ConfigOptionRead,
  type Message,
  type ConfigFacts,
  type Fact,
  type FactValue,
  type LaunchArgument,
  type ParseProblem,
  type Reference,
  type ArgumentEnvironment,
  type ScriptOption,
  type Span,
  type Tool,
  type Unknown,
} from '../facts';
import { optionOfDefault, singleCallArgument, type ScriptDefault } from './script-defaults';
import { lazyCallee } from './lazy-config';
import type { CommandEntry } from './command-line';
import { importedName, type ImportedConstants, type ModuleRead } from './imported-constants';
import { describeVal, evalCall, evalMember, evalUnary } from './member-and-call';
import { dataItemOf, importedData } from './data-files';
import { hydraConfig } from './hydra-app';
import { branchTaken, existenceFallback, largestOverBranches, setWhereUsed, settledBinding } from './branches';
import { evalBoolean } from './boolean-operators';
import {
  evalArithmetic,
  evalComparison,
  evalConditional,
  evalFormatString,
  evalUpdate,
  returnedItem,
  SCRIPT_FILE,
} from './expressions';
import {
  span,
  stringInner,
  parseNumber,
  pyString,
  fmt,
  clip,
  MAX_DEPTH,
  parameters,
  assignmentTargets,
  targetNames,
  writtenItems,
  listItems,
} from './syntax';
import { CallNames } from './call-names';
import { libraryAliases } from './library-aliases';
import { evalComprehension } from './comprehension';
import { dictCall, dictLiteral } from './dict-values';
import type { Overlay } from './attribute-overlays';
import { callArguments, classAlias, type CallArgs } from './call-arguments';

export type { DataOrigin, Entry, Binding, ItemAssign, Scope, Val, Via } from './static-values';

/** Calls that make an object of their keywords (`argparse.Namespace(**kw)`, `types.SimpleNamespace(**kw)`). */
const NAMESPACES = new Set(['Namespace', 'argparse.Namespace', 'SimpleNamespace', 'types.SimpleNamespace']);
import type { Binding, Entry, Scope, Val, Via } from './static-values';

/**
 * One Python file under analysis: what it has found so far (facts, problems, references, tools), the indexes built
 * over its tree (scopes and bindings, local argument classes, field defaults), and the static evaluation that every
 * recognized call uses. The calls themselves are read by functions of this state (trainingCall, mapEntry, ...).
 */
export class PythonFile {
  facts: Fact[] = [];
  /** Trainer calls with compute_metrics and no preprocess_logits_for_metrics (see trainerCall). */
  readonly keptLogits: Array<{ e: Entry; tool: Tool }> = [];
  /** Reward models loaded with from_pretrained and passed to a trainer whose Hub id is a literal. */
  scoringIds = 0;
  /** Checkpointing set on the model by Unsloth's from_pretrained / get_peft_model: it decides over the trainer's. */
  readonly unslothCheckpointing = { load: [] as Fact[], peft: [] as Fact[] };
  /** The TRL release an API TRL 0.20 removed dates, by trainer and arguments name (trl-dated-calls.ts), read once. */
  readonly removedTrlApi = new Map<string, Fact | undefined>();
  readonly problems: ParseProblem[] = [];
  readonly references: Reference[] = [];
  readonly tools = new Set<Tool>();
  private readonly lineStarts: number[];
  /** Each scope by its node's place: its start · 4 + its kind (the module, a def, a lambda). */
  private readonly scopeKeys = new Map<number, Scope>();
  /** Local classes that subclass a training-arguments class, with the tool of their root. */
  readonly localArgs = new Map<string, Tool>();
  /** Local classes that subclass a trainer of transformers or TRL, with the library's class they extend. */
  readonly localTrainers = new Map<string, string>();
  private importedAliases?: ReadonlyMap<string, string>;
  readonly localClasses = new Set<string>();
  /** Field defaults of the file's dataclasses and argparse options, for the reasons of `args.x` unknowns. */
  readonly fieldDefaults = new Map<string, { text: string; line: number; where: string }>();
  readonly requiredOptions = new Set<string>(); // argparse required=True, no default: only the launch line gives one
  /** argparse options with nargs "+", "*" or a count above 1: they take several words. */
  readonly manyOptions = new Set<string>();
  /** Each argparse dest's first option: its parser (the receiver of add_argument) and its flag. */
  readonly argparseDests = new Map<string, { readonly parser: string; readonly flag: string }>();
  readonly parsedClasses = new Set<string>();
  /** Names a star-imported module of the project binds to its parsed command line (`from config import *`). */
  readonly starParsedArgs = new Set<string>();
  /** Script defaults by option / field name; 'ambiguous' when two options or fields of that name disagree. */
  readonly scriptDefaults = new Map<string, ScriptDefault | 'ambiguous'>();
  /** Attribute names assigned anywhere (`args.x = ...`): a default of that name may not be what runs. */
  readonly attrAssigned = new Set<string>();
  /** Statements that set an attribute for each key of a mapping (attribute-overlays.ts). */
  readonly overlays: Overlay[] = [];
  /** Where the text sets each dotted name assigned (attributes.ts setSites), found once. */
  readonly attributeSetSites = new Map<string, readonly number[]>();
  /** Of those, names set on an object other than `self` (`args.x = ...`): an option of that name may change at run time. */
  readonly optionsAssigned = new Set<string>();
  /** The statements that assign each of them (script-defaults.ts assignedAtRunTime). */
  readonly optionAssignments = new Map<string, SyntaxNode[]>();
  /** The options whose assignments are being looked at: one whose test reads the option itself stays assigned. */
  readonly optionsChecking = new Set<string>();
  /** Whether each option is assigned at run time, once the tests are settled (script-defaults.ts assignedAtRunTime). */
  readonly optionsAssignedAtRunTime = new Map<string, boolean>();
  /** For a helper module: the arguments the importing script passes the functions it calls (ModuleContext.callArgs). */
  moduleCallArgs?: Readonly<Record<string, CallArguments>>;
  /** A module the script imports (ModuleContext.imported): its main guard's block does not run. */
  imported = false;
  /** The environment variables the launch line gives the script, known statically (os.getenv reads them). */
  environment?: ReadonlyMap<string, string>;
  /** The folders the file saves a model to, with where (saved-checkpoints.ts), once found. */
  savedFolders?: readonly { folder: string; at: number }[];
  /** Whether the text calls a JSON / YAML loader at all (data-files.ts), once known. */
  loadsData?: boolean;
  /** Whether the file makes a `Namespace(...)` anywhere (member-and-call.ts namespaceAttribute), once tested. */
  makesNamespaces?: boolean;
  /** The JSON / YAML files the script loads, by the path it opens them with (data-files.ts). */
  readonly loadedData = new Map<string, Val>();
  /** A Hydra application's composed config by its primary's path; null where the pipeline composes it (hydra-app.ts). */
  readonly hydraConfigs = new Map<string, Val | null>();
  /** Set while a test is evaluated: None and empty-string defaults are read there (they pick a branch). */
  noneDefaults = false;
  /** Every call of the file, for the call sites of a function whose parameter a value comes from. */
  calls: SyntaxNode[] = [];
  /** Each `if` test's truth once the options are known, by its span; each def's neverCalled by `def <from>` (branches.ts). */
  testValues?: Map<string, boolean | undefined>;
  /** The tests being worked out before then: one that leads back to itself is not known (branches.ts testValue). */
  readonly testsPending = new Set<string>();
  /** Each function block's `if` statements that return or raise, by the block's start (branches.ts exitedBefore). */
  readonly exitGuards = new Map<number, readonly SyntaxNode[]>();
  readonly errors: number[] = [];
  /** The script's own options with their defaults, for the helper modules it imports (set after the walk). */
  options: ScriptOption[] = [];
  /** A Trainer script's model load before its arguments exist (zero-init.ts). */
  modelBeforeArguments: Span | undefined;
  /** A loop's model load handed to deepspeed.initialize outside zero.Init (zero-init.ts). */
  loopModelOutsideZeroInit: Span | undefined;
  /** The function the command line calls (fire.Fire, a click or typer command): its parameters are options. */
  commandEntry: CommandEntry | undefined;
  /** A TRL trainer is handed a LoraConfig / IA3Config as peft_config and makes the PEFT model itself. */
  peftByTrainer = false;
  /** The arguments come from a file an option names (TrlParser's `--config`): the option, and its default path. */
  readsConfigOption: ConfigOptionRead | undefined;
  /** nanoGPT's train.py: configurator.py sets its globals from the command line (nanogpt.ts). */
  readsConfigurator = false;
  /** The highest `sys.argv[i]` read with a default (`sys.argv[1] if len(sys.argv) > 1 else "..."`). */
  argvPositions = 0;
  /** The script reads an option it has no value for alone, or loads a file it cannot name alone (ConfigFacts.readsLaunchOptions). */
  readsLaunchOptions = false;
  /** The script reads only the model's name from the ModelConfig it parses (ConfigFacts.modelConfigNameOnly). */
  modelConfigNameOnly = false;
  /** The script parses TrainingArguments or a TRL config from its command line (ConfigFacts.readsTrainerFlags). */
  readsTrainerFlags = false;
  private readonly callNames = new CallNames((call) => {
    const c = call.firstChild;
    const name = c ? this.dotted(c) : undefined;
    return name === 'dict' ? (lazyCallee(this, call) ?? name) : (classAlias(this, c, name) ?? name);
  });
  /** The launch line's Hydra overrides, for a Hydra application's config (hydra-app.ts). */
  hydraOverrides: readonly LaunchArgument[] = [];
  root!: SyntaxNode;
  /** The imported project constants once read (imported-constants.ts importsOf), null when there are none. */
  importsRead: ImportedConstants | null | undefined;
  /**
   * A helper module read for the script that imports it: the options its `args.x` reads are the script's, as the run
   * has them (the launch line applied), so every test on them is settled: a branch known not to run is not read, and
   * a name bound on a branch known to run has that value.
   */
  readonly settled: boolean;

  /**
   * @param inherited for a helper module: the importing script's options as the run has them.
   * @param readModule finds a project module the file imports, for the constants it takes from it (imported-constants.ts).
   * @param settled whether the options settle its tests (a helper module's do; a script read again with its launch
   *   line's options is read whole, ModuleContext.settled).
   */
  /** The names the file imports transformers' and TRL's classes under, to those names (library-aliases.ts). */
  get libraryAliases(): ReadonlyMap<string, string> {
    return (this.importedAliases ??= libraryAliases(this.text));
  }

  constructor(
    readonly text: string,
    readonly inherited?: ArgumentEnvironment,
    readonly readModule?: ModuleRead,
    settled = inherited !== undefined,
  ) {
    this.lineStarts = lineStarts(text);
    this.settled = settled;
  }

  result(): ConfigFacts {
    const tools = [...this.tools].sort((x, y) => (x === 'trl' ? -1 : y === 'trl' ? 1 : 0));
    return {
      format: 'hf-python',
      facts: this.facts,
      problems: this.problems,
      references: this.references,
      tools,
      ...(this.options.length > 0 ? { options: this.options } : {}),
      ...(this.modelBeforeArguments ? { modelBeforeArguments: this.modelBeforeArguments } : {}),
      ...(this.loopModelOutsideZeroInit ? { loopModelOutsideZeroInit: this.loopModelOutsideZeroInit } : {}),
      ...(this.peftByTrainer ? { peftByTrainer: true as const } : {}),
      ...(this.readsConfigOption ? { readsConfigOption: this.readsConfigOption } : {}),
      ...(this.readsConfigurator ? { readsConfigurator: true as const } : {}),
      ...(this.readsLaunchOptions ? { readsLaunchOptions: true as const } : {}),
      ...(this.readsTrainerFlags ? { readsTrainerFlags: true as const } : {}),
      ...(this.modelConfigNameOnly ? { modelConfigNameOnly: true as const } : {}),
      ...this.commandArgumentNames(),
    };
  }

  /** What the launch line's positional words fill, in order: the command's parameters, else `sys.argv[1]`, .... */
  private commandArgumentNames(): { commandArguments?: readonly string[] } {
    const argv = Array.from({ length: this.commandEntry ? 0 : this.argvPositions }, (_, i) => `sys.argv[${i + 1}]`);
    const names = this.commandEntry?.positional.length ? this.commandEntry.positional : argv;
    return names.length ? { commandArguments: names } : {};
  }

  // ---- Facts and problems ----

  push(key: CanonicalKey, e: Entry, value: FactValue | Unknown, tool: Tool, from?: Val, origin?: Fact['origin']): void {
    const written = this.text.slice(e.valueSpan.start, e.valueSpan.end);
    const d = from?.k === 'lit' ? from.dflt : undefined;
    if (d?.elsewhere) {
      // An option of the importing script: located where this module reads it, with where its value comes from.
      this.facts.push({
        key,
        rawKey: e.rawKey,
        value,
        rawValue: clip(`${written}: ${d.elsewhere.source}`),
        keySpan: e.keySpan,
        valueSpan: e.valueSpan,
        tool,
        ...(d.elsewhere.launched ? {} : { origin: 'script-default' as const }),
        ...dataItemOf(d, from),
      });
      return;
    }
    if (d) {
      // The script's default: located where it is defined, and said to be a default the command line can override.
      const rawValue = clip(
        `${written}: the script's default ` +
          `${this.text.slice(d.valueSpan.start, d.valueSpan.end) || fmt(value as FactValue)} (${d.where}, line ${this.line(d.valueSpan.start)})`,
      );
      const fromArg = optionOfDefault(this, d);
      this.facts.push({
        key,
        rawKey: e.rawKey,
        value,
        rawValue,
        keySpan: d.keySpan,
        valueSpan: d.valueSpan,
        tool,
        origin: 'script-default',
        ...fromArg,
      });
      return;
    }
    const rawValue = clip(from?.via ? `${written} (${from.via.text})` : written);
    const fact: Fact = {
      key,
      rawKey: e.rawKey,
      value,
      rawValue,
      keySpan: e.keySpan,
      valueSpan: e.valueSpan,
      tool,
      ...(from?.via ? { originSpan: from.via.span } : {}),
      ...(from?.k === 'lit' && from.assumed ? { assumed: from.assumed } : {}),
      ...(origin ? { origin } : {}),
      ...(typeof value === 'object' && value !== null && !Array.isArray(value) ? this.argOf(from) : {}),
    };
    this.facts.push(fact);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      this.problem(
        'not-static',
        'info',
        msg('{0} is not known statically: {1}', e.rawKey, (value as Unknown).unknown),
        e.valueSpan,
        e.rawKey,
      );
    }
  }

  problem(code: ParseProblem['code'], severity: ParseProblem['severity'], m: Message, at: Span, rawKey?: string): void {
    this.problems.push({
      code,
      severity,
      message: m.message,
      template: m.template,
      span: at,
      ...(rawKey ? { rawKey } : {}),
    });
  }

  opaqueSpreads(list: readonly { reason: string; span: Span }[]): void {
    for (const o of list)
      this.problem('not-static', 'info', msg('{0}: the keys it sets are not known statically', o.reason), o.span);
  }

  /** A call's positional arguments, keywords (`**` spreads of known mappings included) and opaque spreads. */
  args(call: SyntaxNode): CallArgs {
    return callArguments(this, call);
  }

  valueOf(e: Entry): Val {
    if (e.value) return e.value;
    if (e.forced) return { k: 'unknown', reason: e.forced };
    if (!e.valueNode) return { k: 'unknown', reason: 'the value is missing' };
    return this.evalNode(e.valueNode, 0);
  }

  // ---- Static evaluation ----

  evalNode(node: SyntaxNode, depth: number): Val {
    if (depth > MAX_DEPTH) return { k: 'unknown', reason: 'too deeply nested to read' };
    const t = this.text.slice(node.from, node.to);
    switch (node.name) {
      case 'Number': {
        const n = parseNumber(t);
        return n === undefined
          ? { k: 'unknown', reason: `the number ${t} is not a plain int or float` }
          : { k: 'lit', v: n };
      }
      case 'UnaryExpression':
        return evalBoolean(this, node, depth) ?? evalUnary(this, node, t);
      case 'String': {
        const s = pyString(t);
        return s === undefined
          ? { k: 'unknown', reason: `the string ${clip(t)} is not a plain str literal` }
          : { k: 'lit', v: s };
      }
      case 'FormatString':
        return evalFormatString(this, node, t, depth);
      case 'ContinuedString': {
        let acc = '';
        for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
          if (ch.name === 'Comment') continue;
          const v = this.evalNode(ch, depth + 1);
          if (v.k !== 'lit' || typeof v.v !== 'string')
            return { k: 'unknown', reason: `${clip(t)} is formatted at run time` };
          acc += v.v;
        }
        return { k: 'lit', v: acc };
      }
      case 'Boolean':
        return { k: 'lit', v: t === 'True' };
      case 'None':
        return { k: 'lit', v: null };
      case 'ParenthesizedExpression': {
        const inner = node.firstChild?.nextSibling;
        return inner && inner.name !== ')'
          ? this.evalNode(inner, depth + 1)
          : { k: 'unknown', reason: 'empty parentheses' };
      }
      // A set of strings reads as a list (`target_modules={"q_proj", "v_proj"}`: PEFT takes any iterable of names).
      case 'ArrayExpression':
      case 'TupleExpression':
      case 'SetExpression': {
        const items: string[] = [];
        for (const ch of listItems(node)) {
          const v = this.evalNode(ch, depth + 1);
          if (v.k !== 'lit' || typeof v.v !== 'string')
            return { k: 'unknown', reason: `${clip(t)} is not a list of string literals` };
          items.push(v.v);
        }
        return { k: 'lit', v: items };
      }
      case 'DictionaryExpression':
        return dictLiteral(this, node, depth);
      case 'ArrayComprehensionExpression':
        return evalComprehension(this, node, depth);
      case 'CallExpression': {
        const callee =
          this.calleeName(node) ??
          clip(this.text.slice(node.firstChild?.from ?? node.from, node.firstChild?.to ?? node.to));
        // `Namespace(model_name="...", lr=2e-4)`: an object whose attributes are its keywords, read as dict(...).
        if (callee === 'dict' || NAMESPACES.has(callee)) return dictCall(this, node, depth);
        return evalCall(this, node, callee, depth);
      }
      case 'VariableName':
        return this.evalName(node, depth);
      case 'MemberExpression':
        return evalMember(this, node, t, depth);
      case 'BinaryExpression':
        return evalBoolean(this, node, depth) ?? evalArithmetic(this, node, depth) ?? evalComparison(this, node, depth);
      case 'ConditionalExpression':
        return evalConditional(this, node, depth);
      default:
        return { k: 'unknown', reason: `${clip(t)} is computed at run time` };
    }
  }

  private evalName(node: SyntaxNode, depth: number): Val {
    const name = this.text.slice(node.from, node.to);
    const found = this.lookup(name, node);
    if (found.k !== 'binding' && name === '__file__') return { k: 'lit', v: SCRIPT_FILE };
    if (found.k !== 'binding') {
      const imported = found.param ? undefined : (importedName(this, name, node) ?? importedData(this, name, node));
      if (imported) return imported;
      const arg = found.param
        ? (hydraConfig(this, found.param.scope.node, found.param.name) ??
          singleCallArgument(this, found.param.scope, found.param.name, depth))
        : undefined;
      return arg ?? { k: 'unknown', reason: found.reason };
    }
    const b = this.settled ? settledBinding(this, name, found.binding, found.scope, node) : found.binding;
    const line = this.line(b.pos);
    // `x *= y` outside any block (in a loop it runs any number of times): x as bound before, under the operator.
    if (b.kind === 'aug' && b.rhs && b.condLine === undefined) return evalUpdate(this, b.rhs, depth);
    const unpacked = b.kind === 'unpack' && b.rhs ? returnedItem(this, b.rhs, b.index, depth) : undefined;
    if (unpacked && b.rhs) {
      const text = `${name} = ${clip(this.text.slice(b.rhs.from, b.rhs.to), 40)} at line ${line}`;
      return unpacked.via ? unpacked : { ...unpacked, via: { text, span: span(b.rhs) } };
    }
    if (b.kind !== 'assign' || !b.valueNode) {
      const why = {
        unpack: 'is unpacked from a call',
        aug: 'is updated in place',
        loop: 'is a loop variable',
        def: 'is a function or class',
        assign: 'has no value',
      }[b.kind];
      return { k: 'unknown', reason: `${name} ${why} (line ${line})` };
    }
    const setHere = setWhereUsed(this, b, b.valueNode, node);
    // Set on both branches of an `if` on a path's existence: what loads where the path is not there.
    const fallback = setHere ? undefined : existenceFallback(this, name, b);
    const largest = setHere || fallback ? undefined : largestOverBranches(this, name, found.scope, node, depth);
    if (largest)
      return {
        k: 'lit',
        v: largest.value,
        via: { text: largest.text, span: span(largest.node) },
        assumed: largest.text,
      };
    if (!setHere && !fallback) return { k: 'unknown', reason: `${name} is set conditionally at line ${b.condLine}` };
    const valueNode = fallback?.value ?? b.valueNode;
    const inner = this.evalNode(valueNode, depth + 1);
    const assigned = `${name} = ${clip(this.text.slice(valueNode.from, valueNode.to), 40)} at line ${this.line(valueNode.from)}`;
    const via: Via = fallback
      ? {
          text: `${assigned}, where ${fallback.test} is false (the if at line ${fallback.line})`,
          span: inner.via?.span ?? span(valueNode),
        }
      : (inner.via ?? { text: assigned, span: span(valueNode) });
    if (inner.k === 'dict')
      return { ...inner, entries: this.applyItems(name, found.scope, b, node, inner.entries), via };
    if (inner.k === 'unknown')
      return { k: 'unknown', reason: clip(`${name} = ${inner.reason} (line ${line})`, 240), via };
    const changed =
      inner.k === 'lit' && Array.isArray(inner.v) ? changedInPlace(this.text, name, b.end, node.from) : undefined;
    if (changed !== undefined)
      return { k: 'unknown', reason: `${name} is changed in place (line ${this.line(changed)})`, via };
    return { ...inner, via };
  }

  /** Later `name["key"] = value` statements change a dict; under `if` the key's value is no longer static. */
  private applyItems(name: string, scope: Scope, b: Binding, use: SyntaxNode, entries: readonly Entry[]): Entry[] {
    const out = [...entries];
    const sameScope = this.scopeChain(use)[0] === scope;
    for (const it of scope.items.get(name) ?? []) {
      if (it.pos <= b.pos || (sameScope && it.pos > use.from)) continue;
      // In a settled module a branch's test is known: an item set on a branch that runs is as written, on one that
      // does not, absent.
      const taken = this.settled && it.condLine !== undefined ? branchTaken(this, it.valueNode) : undefined;
      if (taken === false) continue;
      const entry: Entry = {
        rawKey: it.key,
        keySpan: stringInner(this.text, it.keyNode),
        valueNode: it.valueNode,
        valueSpan: span(it.valueNode),
        ...(it.condLine !== undefined && taken !== true ? { forced: `set conditionally at line ${it.condLine}` } : {}),
      };
      const i = out.findIndex((x) => x.rawKey === it.key);
      if (i >= 0) out.splice(i, 1);
      out.push(entry);
    }
    return out;
  }

  lookup(
    name: string,
    use: SyntaxNode,
  ):
    | { k: 'binding'; binding: Binding; scope: Scope }
    | { k: 'none'; reason: string; param?: { scope: Scope; name: string } } {
    const chain = this.scopeChain(use);
    for (let i = 0; i < chain.length; i++) {
      const s = chain[i];
      const bs = s.bindings.get(name);
      const before = i === 0 ? (bs ?? []).filter((b) => b.end <= use.from) : (bs ?? []);
      // A parameter the function binds anew outside any branch (`cfg = cfg or Config()`) is that binding after it; one
      // it binds on a branch (`if args is None: args = {}`) stays the parameter, as callers pass it.
      const rebound = s.params.has(name) && before.some((b) => b.condLine === undefined);
      if (s.params.has(name) && !rebound) {
        const d = s.params.get(name);
        return {
          k: 'none',
          param: { scope: s, name },
          reason: `${name} is a parameter of ${s.fn ?? 'a function'}()${d ? ` (default ${clip(this.text.slice(d.from, d.to), 40)})` : ''}`,
        };
      }
      if (!bs || bs.length === 0) continue;
      const pick = (before.length ? before : bs)[(before.length ? before : bs).length - 1];
      return { k: 'binding', binding: pick, scope: s };
    }
    return { k: 'none', reason: `${name} is not assigned in this file` };
  }

  bindingValue(node: SyntaxNode): SyntaxNode | null {
    const found = this.lookup(this.text.slice(node.from, node.to), node);
    return found.k === 'binding' && found.binding.kind === 'assign' ? found.binding.valueNode : null;
  }

  /** Innermost first: enclosing functions, then the module. Class bodies are not scopes for the code inside them. */
  private scopeChain(node: SyntaxNode): Scope[] {
    const chain: Scope[] = [];
    for (let p: SyntaxNode | null = node.parent; p; p = p.parent) {
      if (p.name === 'FunctionDefinition' || p.name === 'LambdaExpression') chain.push(this.scopeOf(p));
    }
    chain.push(this.scopeOf(this.root));
    return chain;
  }

  private scopeOf(node: SyntaxNode): Scope {
    const key = node.from * 4 + (node.name === 'Script' ? 0 : node.name === 'FunctionDefinition' ? 1 : 2);
    const hit = this.scopeKeys.get(key);
    if (hit) return hit;
    const nameNode = node.name === 'FunctionDefinition' ? node.getChild('VariableName') : null;
    const scope: Scope = {
      node,
      fn: nameNode ? this.text.slice(nameNode.from, nameNode.to) : undefined,
      params: new Map(),
      bindings: new Map(),
      items: new Map(),
    };
    this.scopeKeys.set(key, scope);
    const params = node.name === 'Script' ? null : node.getChild('ParamList');
    for (const p of parameters(this.text, params)) scope.params.set(p.name, p.def);
    const body = node.name === 'Script' ? node : node.getChild('Body');
    if (body && node.name !== 'LambdaExpression') this.collectBindings(scope, body, undefined, 0);
    return scope;
  }

  private collectBindings(scope: Scope, node: SyntaxNode, condLine: number | undefined, depth: number): void {
    if (depth > 200) return;
    for (let st = node.firstChild; st; st = st.nextSibling) {
      switch (st.name) {
        case 'AssignStatement':
          this.assignment(scope, st, condLine);
          break;
        case 'UpdateStatement': {
          const target = st.firstChild;
          if (target?.name === 'VariableName')
            this.bind(scope, this.text.slice(target.from, target.to), {
              kind: 'aug',
              valueNode: null,
              rhs: st,
              pos: st.from,
              end: st.to,
              condLine,
            });
          break;
        }
        case 'FunctionDefinition':
        case 'ClassDefinition': {
          const n = st.getChild('VariableName');
          if (n)
            this.bind(scope, this.text.slice(n.from, n.to), {
              kind: 'def',
              valueNode: null,
              pos: st.from,
              end: st.to,
              condLine,
            });
          break;
        }
        case 'DecoratedStatement':
        case 'StatementGroup': // `model_id = "..."; bs = 4`
          this.collectBindings(scope, st, condLine, depth + 1);
          break;
        case 'ForStatement': {
          for (let ch = st.firstChild; ch && ch.name !== 'in'; ch = ch.nextSibling) {
            if (ch.name === 'VariableName')
              this.bind(scope, this.text.slice(ch.from, ch.to), {
                kind: 'loop',
                valueNode: null,
                pos: st.from,
                end: st.to,
                condLine,
              });
          }
          this.collectBlocks(scope, st, condLine ?? this.line(st.from), depth);
          break;
        }
        case 'IfStatement': {
          const cond = this.text.slice(st.firstChild?.to ?? st.from, st.getChild('Body')?.from ?? st.from);
          const mainGuard = /__name__\s*==\s*['"]__main__['"]/.test(cond);
          this.collectBlocks(scope, st, mainGuard ? condLine : (condLine ?? this.line(st.from)), depth);
          break;
        }
        case 'TryStatement':
          this.collectTry(scope, st, condLine, depth);
          break;
        case 'WhileStatement':
        case 'MatchStatement':
          this.collectBlocks(scope, st, condLine ?? this.line(st.from), depth);
          break;
        // A with-block's body runs once, whenever the statement does (`with open(path) as f: config = json.load(f)`).
        case 'WithStatement':
          this.collectBlocks(scope, st, condLine, depth);
          break;
        default:
          break;
      }
    }
  }

  /** A `try`: its body, `else` and `finally` run on the path past it; each handler only when its exception is raised. */
  private collectTry(scope: Scope, st: SyntaxNode, condLine: number | undefined, depth: number): void {
    let handler = false;
    for (let ch = st.firstChild; ch; ch = ch.nextSibling) {
      if (ch.name === 'except') handler = true;
      else if (ch.name === 'else' || ch.name === 'finally') handler = false;
      else if (ch.name === 'Body')
        this.collectBindings(scope, ch, handler ? (condLine ?? this.line(ch.from)) : condLine, depth + 1);
    }
  }

  private collectBlocks(scope: Scope, st: SyntaxNode, condLine: number | undefined, depth: number): void {
    for (let ch = st.firstChild; ch; ch = ch.nextSibling) {
      if (ch.name === 'Body') this.collectBindings(scope, ch, condLine, depth + 1);
      else if (ch.name === 'MatchBody') this.collectBlocks(scope, ch, condLine, depth + 1);
      else if (ch.name === 'MatchClause') this.collectBlocks(scope, ch, condLine, depth + 1);
    }
  }

  private assignment(scope: Scope, st: SyntaxNode, condLine: number | undefined): void {
    const value = st.lastChild;
    if (!value || value.name === 'AssignOp') return;
    const parts = assignmentTargets(st);
    if (!parts) return;
    const { targets, ops } = parts;
    const unpack =
      ops === 1 &&
      (targets.length > 1 || targets.some((t) => t.name === 'TupleExpression' || t.name === 'ArrayExpression'));
    const flat = targets.every((t) => t.name === 'VariableName');
    // `model_id, output_dir = "meta-llama/...", "out"` (names bare or in parentheses): as many values written as names,
    // each name its own value.
    const names = unpack ? targetNames(targets) : undefined;
    const items = names ? writtenItems(st) : [];
    if (names && items.length === names.length) {
      for (const [index, t] of names.entries())
        this.bind(scope, this.text.slice(t.from, t.to), {
          kind: 'assign',
          valueNode: items[index],
          pos: st.from,
          end: st.to,
          condLine,
        });
      return;
    }
    for (const [index, t] of targets.entries()) {
      if (t.name === 'VariableName') {
        this.bind(scope, this.text.slice(t.from, t.to), {
          kind: unpack ? 'unpack' : 'assign',
          valueNode: unpack ? null : value,
          pos: st.from,
          end: st.to,
          condLine,
          ...(unpack ? { rhs: value, ...(flat ? { index } : {}) } : {}),
        });
      } else if (t.name === 'TupleExpression' || t.name === 'ArrayExpression' || t.name === 'ParenthesizedExpression') {
        for (let ch = t.firstChild; ch; ch = ch.nextSibling) {
          if (ch.name === 'VariableName')
            this.bind(scope, this.text.slice(ch.from, ch.to), {
              kind: 'unpack',
              valueNode: null,
              pos: st.from,
              end: st.to,
              condLine,
              rhs: value,
            });
        }
      } else if (t.name === 'MemberExpression') {
        // `name["key"] = value`: an item assignment on a dict bound to `name`.
        const obj = t.firstChild;
        const open = obj?.nextSibling;
        const key = open?.nextSibling;
        if (obj?.name === 'VariableName' && open?.name === '[' && key?.name === 'String') {
          const k = pyString(this.text.slice(key.from, key.to));
          if (k !== undefined) {
            const name = this.text.slice(obj.from, obj.to);
            const list = scope.items.get(name) ?? [];
            list.push({ keyNode: key, key: k, valueNode: value, pos: st.from, condLine });
            scope.items.set(name, list);
          }
        }
      }
    }
  }

  private bind(scope: Scope, name: string, b: Binding): void {
    const list = scope.bindings.get(name) ?? [];
    list.push(b);
    scope.bindings.set(name, list);
  }

  // ---- Helpers over nodes ----

  /** The file's calls of a name (`train`, `Config.from_dict`), in the file's order. */
  callsNamed(name: string | undefined): readonly SyntaxNode[] {
    return this.callNames.named(this.calls, name);
  }

  /** The dotted name a call calls; an mmengine lazy `dict(type=X, ...)` is a call of X (lazy-config.ts). */
  calleeName(call: SyntaxNode): string | undefined {
    return this.callNames.name(call);
  }

  /** `a.b.c` as text when the node is only names and attributes (at most 64 deep), else undefined. */
  dotted(node: SyntaxNode): string | undefined {
    const props: string[] = [];
    let n: SyntaxNode = node;
    for (let i = 0; i < 64; i++) {
      if (n.name === 'VariableName') return [this.text.slice(n.from, n.to), ...props.reverse()].join('.');
      if (n.name !== 'MemberExpression') return undefined;
      const obj = n.firstChild;
      const dot = obj?.nextSibling;
      const prop = dot?.nextSibling;
      if (!obj || dot?.name !== '.' || prop?.name !== 'PropertyName' || prop.nextSibling) return undefined;
      props.push(this.text.slice(prop.from, prop.to));
      n = obj;
    }
    return undefined;
  }

  /** `args.x` of an option `--x` of this file or a field x of its arguments dataclasses: for a launcher to fill in. */
  private argOf(from: Val | undefined): Pick<Fact, 'fromArg'> {
    if (from?.k === 'unknown' && from.option !== undefined) return { fromArg: { name: from.option } };
    if (from?.k !== 'dotted' || from.text.split('.').length !== 2) return {};
    const name = from.text.split('.')[1];
    const d = this.fieldDefaults.get(name);
    if (!d && this.requiredOptions.has(name)) return { fromArg: { name } };
    if (
      !d ||
      !(d.where.startsWith('argparse') || (d.where.startsWith('dataclass default') && this.parsedClasses.size > 0))
    )
      return {};
    return { fromArg: { name, default: d.text, line: d.line } };
  }

  /** Why a value is not a static literal, with the dataclass or argparse default of `x.field` when the file has one. */
  describe(v: Val): string {
    return describeVal(this, v);
  }

  line(pos: number): number {
    return lineIndex(this.lineStarts, pos) + 1;
  }
}

/** List and set methods that change the object in place. */
const IN_PLACE = 'append|extend|insert|remove|pop|clear|sort|reverse|add|discard|update';

/**
 * Where a list or set bound to `name` is first changed in place between its binding and a use (`rows.append(line)` in
 * a loop, `rows[0] = x`), whose value the literal no longer is (unoa-eng/dalbitalba-train-data's ORPO script: `rows = []`
 * filled by a loop before `if not rows: return 0`, a guard not known to exit).
 */
function changedInPlace(text: string, name: string, from: number, to: number): number | undefined {
  // Most names are not written again before their use: answered without a regular expression.
  const next = text.indexOf(name, from);
  if (next < 0 || next >= to) return undefined;
  const re = new RegExp(`(?<![\\w.])${name}\\s*(?:\\.\\s*(?:${IN_PLACE})\\s*\\(|\\[[^\\]\\n]*\\]\\s*=(?!=))`, 'g');
  re.lastIndex = next;
  const m = re.exec(text);
  return m && m.index < to ? m.index : undefined;
}
