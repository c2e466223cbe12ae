// Defaults of the script's own options (argparse options and arguments-dataclass fields) and of function parameters,
// read where `args.x` or a parameter is used: the value that runs when the command line passes nothing. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue, ScriptOption, Span } from '../facts';
import type { PythonFile, Scope, ScriptDefault, Val } from './file';
import { fmt, MAX_DEPTH, parameters, readingNoneDefaults, span } from './syntax';
import { assignedAttribute } from './attributes';

/**
 * A default that gives no value: an empty string, or one that stands for "fill this in" ("path/to/model", "<model>",
 * "your-model"). Not taken as the value.
 */
function emptyDefault(v: FactValue): boolean {
  return v === '' || (typeof v === 'string' && /^(\.?\/?path\/to\b|<[^>]*>$|your[-_ ])/i.test(v));
}

/** Records a default of the script's own options; two different defaults of one name make it ambiguous. */
export function noteDefault(file: PythonFile, name: string, d: ScriptDefault): void {
  const prev = file.scriptDefaults.get(name);
  if (prev === undefined) file.scriptDefaults.set(name, d);
  else if (prev !== 'ambiguous' && defaultText(file, prev) !== defaultText(file, d))
    file.scriptDefaults.set(name, 'ambiguous');
}

export function defaultText(file: PythonFile, d: ScriptDefault): string {
  return d.node ? file.text.slice(d.node.from, d.node.to) : fmt(d.lit ?? null);
}

/** `a.b` read where it is used: the value an `a.b = ...` before it sets (attributes.ts), else the script's default. */
export function memberValue(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  return assignedAttribute(file, dotted, use, depth) ?? scriptDefault(file, dotted, use, depth);
}

/**
 * `args.x`, where `args` holds the parsed command line (`parser.parse_args()`, a tuple of HfArgumentParser's
 * dataclasses, or a function parameter named `*args`), reads the default of option / field x when the script has one
 * and never assigns `.x` itself: the value that runs when the launcher passes nothing (a launcher flag wins in
 * resolve, as the launcher's facts outrank the script's). None, "" and computed defaults stay unknown.
 */
export function scriptDefault(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const parts = dotted.split('.');
  if (parts.length !== 2 || (file.scriptDefaults.size === 0 && !file.inherited)) return undefined;
  const [obj, field] = parts;
  const d = file.scriptDefaults.get(field);
  // A module of the script's process reads the launch line's value of its own options too (one command line).
  if (file.inherited && (d === undefined || file.inherited.get(field)?.launched))
    return inheritedOption(file, obj, field, use);
  if (d === undefined || d === 'ambiguous' || file.attrAssigned.has(field) || !holdsParsedArgs(file, obj, use))
    return undefined;
  let v: Val = d.node ? file.evalNode(d.node, depth + 1) : { k: 'lit', v: d.lit ?? null };
  if (v.k === 'lit' && v.v === null && file.noneDefaults) return { k: 'lit', v: null, dflt: d };
  if (v.k !== 'lit' || v.v === null || emptyDefault(v.v)) return undefined;
  if (d.type && typeof v.v === 'string') {
    const n = Number(v.v);
    if (v.v.trim() === '' || !Number.isFinite(n) || (d.type === 'int' && !Number.isInteger(n))) return undefined;
    v = { k: 'lit', v: n };
  }
  return { k: 'lit', v: v.v, dflt: d };
}

/**
 * `args.x` in a helper module, where `args` is a parameter holding the importing script's parsed options: the value
 * the run gives option x (the launch line's, else the script's default), located where the module reads it.
 */
function inheritedOption(file: PythonFile, obj: string, field: string, use: SyntaxNode): Val | undefined {
  const o = file.inherited?.get(field);
  if (!o || file.attrAssigned.has(field) || !holdsParsedArgs(file, obj, use)) return undefined;
  if (o.unknown !== undefined) return { k: 'unknown', reason: `${obj}.${field}: ${o.unknown}` };
  const d: ScriptDefault = {
    node: null,
    lit: o.value,
    keySpan: span(use),
    valueSpan: span(use),
    where: o.source,
    elsewhere: { source: o.source, launched: o.launched },
  };
  if (o.value === null) return file.noneDefaults ? { k: 'lit', v: null, dflt: d } : undefined;
  if (emptyDefault(o.value)) return undefined;
  return { k: 'lit', v: o.value, dflt: d };
}

/** The script's options with their defaults as literals (None included), for the helper modules it imports. */
export function scriptOptions(file: PythonFile): ScriptOption[] {
  const out: ScriptOption[] = [];
  for (const [name, d] of file.scriptDefaults) {
    if (d === 'ambiguous' || file.attrAssigned.has(name)) continue;
    const v = readingNoneDefaults(file, () =>
      d.node ? file.evalNode(d.node, 0) : { k: 'lit' as const, v: d.lit ?? null },
    );
    if (v.k === 'lit') out.push({ name, value: v.v, where: d.where, line: file.line(d.valueSpan.start) });
  }
  return out;
}

function holdsParsedArgs(file: PythonFile, obj: string, use: SyntaxNode): boolean {
  const found = file.lookup(obj, use);
  const parsing = (n: SyntaxNode | null | undefined): boolean => {
    // `parser.parse_args_into_dataclasses(return_remaining_strings=True)[0]` (MedicalGPT): the first dataclass.
    const first = n?.name === 'MemberExpression' && /^\[\s*0\s*\]$/.test(file.text.slice(n.firstChild!.to, n.to));
    if (first) return parsing(n!.firstChild);
    if (!n || n.name !== 'CallExpression') return false;
    const last = file.calleeName(n)?.split('.').pop() ?? '';
    return /^parse_(known_)?args|^parse_(dict|json_file|yaml_file)$|^(get|parse)_(args|arguments|config)$/.test(last);
  };
  if (found.k === 'binding')
    return parsing(
      found.binding.kind === 'assign'
        ? found.binding.valueNode
        : found.binding.kind === 'unpack'
          ? found.binding.rhs
          : null,
    );
  return found.param !== undefined && /(^|_)(args|arguments)$/.test(obj);
}

/**
 * A parameter's value when its function is called exactly once in the file: the argument at that call (by keyword
 * or position), else the parameter's default; a parameter of the function fire.Fire runs is an option of the script
 * (fireParameter). Two call sites, or none, stay unknown.
 */
export function singleCallArgument(file: PythonFile, scope: Scope, name: string, depth: number): Val | undefined {
  if (!scope.fn || depth > MAX_DEPTH / 2) return undefined;
  const sites = file.calls.filter((c) => file.calleeName(c) === scope.fn);
  if (sites.length === 0 && scope.fn === file.fireEntry) return fireParameter(file, name, depth);
  if (sites.length !== 1) return undefined;
  const params = parameters(file.text, scope.node.getChild('ParamList'));
  const names = params.filter((p) => !p.starred).map((p) => p.name);
  const a = file.args(sites[0]);
  const kw = a.entries.find((e) => e.rawKey === name);
  const i = names.indexOf(name);
  const node = kw?.valueNode ?? (i >= 0 && i < a.positional.length ? a.positional[i] : null);
  if (kw === undefined && a.opaque.length > 0) return undefined;
  if (node) {
    const v = file.evalNode(node, depth + 1);
    if (v.k === 'lit' && v.v === null && !file.noneDefaults) return undefined;
    return v.k === 'lit' || v.k === 'dict' ? v : undefined;
  }
  const def = scope.params.get(name);
  if (!def) return undefined;
  const v = file.evalNode(def, depth + 1);
  if (v.k === 'lit' && v.v === null && file.noneDefaults) return v;
  if (v.k !== 'lit' || v.v === null || emptyDefault(v.v)) return undefined;
  const nameNode = params.find((p) => p.name === name)?.nameNode;
  const at: Span = nameNode ? span(nameNode) : span(def);
  return {
    k: 'lit',
    v: v.v,
    dflt: { node: def, keySpan: at, valueSpan: span(def), where: `default of ${scope.fn}(${name})` },
  };
}

/**
 * A parameter of the fire entry read in its body: the value the run gives it. Read again with the script's options as
 * the launch line passes them (PythonFile.inherited, where the file is settled), that option's value; otherwise its
 * default, which a launch line's `--name` replaces (launch-args.ts withLaunchArgs); without a default, unknown but for
 * the launch line's `--name`. None, "" and fill-in defaults ("path/to/model") stay unknown, as an argparse option's do
 * (scriptDefault).
 */
export function fireParameter(file: PythonFile, name: string, depth: number): Val | undefined {
  const d = file.scriptDefaults.get(name);
  const o = file.inherited?.get(name);
  if (o?.unknown !== undefined) return { k: 'unknown', reason: `${name}: ${o.unknown}` };
  if (d === undefined && file.requiredOptions.has(name)) {
    if (o !== undefined && o.value !== null) return { k: 'lit', v: o.value };
    const reason = `${name} is a required option of the script (fire.Fire(${file.fireEntry}) --${name})`;
    return { k: 'unknown', reason, option: name };
  }
  if (d === undefined || d === 'ambiguous') return undefined;
  const v: Val = o
    ? { k: 'lit', v: o.value }
    : d.node
      ? file.evalNode(d.node, depth + 1)
      : { k: 'unknown', reason: '' };
  if (v.k !== 'lit') return undefined;
  if (v.v === null) return file.noneDefaults ? { k: 'lit', v: null, dflt: d } : undefined;
  if (emptyDefault(v.v)) return undefined;
  return { k: 'lit', v: v.v, dflt: o ? { ...d, where: o.source } : d };
}
