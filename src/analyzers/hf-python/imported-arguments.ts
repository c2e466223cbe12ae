// Arguments dataclasses a script imports from a module of its project (`from arguments import ModelArguments`, then
// `HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))`): the fields the module's class gives a
// default are the script's options as a class of its own would make them, so `model_args.model_name_or_path` reads the
// default the module writes unless the launch line gives the option, said where the script reads it and naming the
// module's line. A field's default is evaluated in the module (a literal, or what the module works out from its own
// constants); one that is not known statically stays unknown. The module is read through the pipeline's reader
// (ModuleRead). Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from '../python-parse';
import { PythonFile } from './file';
import { besideModule, projectImports } from './imported-constants';
import type { FactValue, Tool } from '../facts';
import { mapEntry } from './mapping';
import { HF_ARGS, TRL_CONFIGS } from './vocab';
import { noteDefault, PARSED_ARGS_CALL, parsesCommandLine, type ScriptDefault } from './script-defaults';
import { children, clip, span, writtenNames } from './syntax';
import { dataclassFields, isArgparseOption, noteArgparse } from './classes';
import { postInitSplits } from './post-init-splits';

/**
 * The classes given to the file's parser that it imports from its project, each read for its fields' defaults; a
 * project's own `TrainingArguments` (a subclass of transformers' under that name, `model_max_length` added) among them.
 */
export function importedArgumentClasses(file: PythonFile): void {
  const wanted = [...file.parsedClasses].filter((n) => !file.localClasses.has(n));
  if (!file.readModule || wanted.length === 0) return;
  for (const imp of projectImports(file.text, file.root)) {
    for (const [local, original] of imp.names) {
      if (original === undefined || !wanted.includes(local)) continue;
      const found = definingModule(file, imp.path, original);
      if (found) noteFields(file, local, original, found);
    }
  }
}

/**
 * A function the file imports from its project that builds an argparse parser and returns what it parses (`from args
 * import get_args`, then `get_args().model_name` or `args = get_args()`): the module's options are the script's, their
 * defaults read in the module and said where they are written, as the file's own options would be (one command line).
 */
export function importedArgumentParsers(file: PythonFile): void {
  // Most scripts import no such function: answered from the text before the imports are parsed.
  if (!file.readModule || !/\b(get|parse)_(args|arguments|config)\b|_parser\b/.test(file.text)) return;
  const parses = PARSES_ARGS.test(file.text);
  for (const imp of projectImports(file.text, file.root)) {
    for (const [local, original] of imp.names) {
      if (original === undefined || !(PARSED_ARGS_CALL.test(original) || (parses && PARSER_BUILDER.test(original))))
        continue;
      const found = definingModule(file, imp.path, original);
      if (found && /\.add_argument\s*\(/.test(found.text)) noteOptions(file, local, found);
      else if (found && /\bHfArgumentParser\s*\(/.test(found.text)) noteParserClasses(file, local, found);
    }
  }
}

/**
 * A function that builds and returns an argparse parser, whose result the file parses itself (`parser =
 * get_arg_parser()`, then `args = parser.parse_args()`: VarunGumma/LLM-Finetuning's dpo.py and utils.py).
 */
const PARSER_BUILDER = /^(get|build|make|create|setup|init)_(arg_?|argument_)?parser$/;
const PARSES_ARGS = /\.parse_(known_)?args\s*\(/;

/**
 * A module of the project imported whole (`from config import *`) that builds an argparse parser and parses the command
 * line at its top level (`args = parser.parse_args()`): its options are the script's, and the name it binds (`args`)
 * holds them in the script, their defaults read in the module and said at the import.
 */
export function starImportedParser(file: PythonFile): void {
  // Most scripts import no module whole: answered from the text before the imports are parsed.
  if (!file.readModule || !/^\s*from\s+\S+\s+import\s+\*/m.test(file.text)) return;
  for (const imp of projectImports(file.text, file.root)) {
    if (!imp.star) continue;
    const found = definingModule(file, imp.path);
    if (!found || !/\.add_argument\s*\(/.test(found.text)) continue;
    const module = parsedModule(found.text);
    const names = parsedAtTop(module);
    const at = starImportAt(file, imp.path);
    if (names.length === 0 && at) starImportedBuilder(file, module, found);
    if (names.length === 0 || !at) continue;
    for (const name of names) file.starParsedArgs.add(name);
    noteOptions(file, names[0], found, at);
  }
}

/** A parser builder of a module imported whole that the file calls and parses the result of (PARSER_BUILDER). */
function starImportedBuilder(
  file: PythonFile,
  module: PythonFile,
  found: { readonly text: string; readonly shownAs: string },
): void {
  if (!PARSES_ARGS.test(file.text)) return;
  for (const st of children(module.root)) {
    const name = st.name === 'FunctionDefinition' ? st.getChild('VariableName') : null;
    const local = name ? module.text.slice(name.from, name.to) : '';
    if (PARSER_BUILDER.test(local) && file.callsNamed(local).length > 0) noteOptions(file, local, found);
  }
}

/** The names a module binds at its top level to what its parser parses (`args = parser.parse_args()`). */
function parsedAtTop(module: PythonFile): string[] {
  return children(module.root).flatMap((st) => {
    const target = st.name === 'AssignStatement' ? st.firstChild : null;
    const value = st.lastChild;
    if (target?.name !== 'VariableName' || target.nextSibling?.name !== 'AssignOp') return [];
    return parsesCommandLine(module, value) ? [module.text.slice(target.from, target.to)] : [];
  });
}

/** The `from x import *` statement of the file for the module at `path`. */
function starImportAt(file: PythonFile, path: string): SyntaxNode | undefined {
  const module = path.replace(/(\/__init__)?\.py$/, '').replace(/\//g, '.');
  return children(file.root).find(
    (st) =>
      st.name === 'ImportStatement' &&
      st.getChild('*') !== null &&
      new RegExp(`^from\\s+\\.?${module.replace(/\./g, '\\.')}\\s+import`).test(file.text.slice(st.from, st.to)),
  );
}

/** A module's text as a file of its own, parsed. */
function parsedModule(text: string): PythonFile {
  const module = new PythonFile(text);
  module.root = parsePython(text).tree.topNode;
  return module;
}

/** A module's calls whose callee's last name is `name` (`parser.add_argument(...)`, `HfArgumentParser(...)`), in order. */
function callsEndingIn(module: PythonFile, name: string): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  module.root.cursor().iterate((n) => {
    if (n.name === 'CallExpression' && module.calleeName(n.node)?.split('.').pop() === name) out.push(n.node);
  });
  return out;
}

/** The argparse options of a module, as the file's options, located at the imported name's use in the file. */
function noteOptions(
  file: PythonFile,
  local: string,
  found: { readonly text: string; readonly shownAs: string },
  at?: SyntaxNode,
): void {
  const module = parsedModule(found.text);
  for (const c of callsEndingIn(module, 'add_argument')) noteArgparse(module, c);
  const where = at ?? file.callsNamed(local)[0] ?? file.root;
  for (const name of module.requiredOptions) file.requiredOptions.add(name);
  for (const name of module.manyOptions) file.manyOptions.add(name);
  for (const [name, d] of module.fieldDefaults) {
    if (!file.fieldDefaults.has(name)) file.fieldDefaults.set(name, { ...d, where: `${d.where} in ${found.shownAs}` });
  }
  for (const [name, d] of module.scriptDefaults) {
    if (d === 'ambiguous') continue;
    const v = d.node ? module.evalNode(d.node, 1) : { k: 'lit' as const, v: d.lit ?? null };
    if (v.k !== 'lit') continue;
    const line = module.line(d.valueSpan.start);
    noteModuleDefault(file, name, v.v, where, d.where, `${d.where} in ${found.shownAs}, line ${line}`, d.type);
  }
}

/**
 * A default a module of the project writes for one of the file's options, as the file's own: located at `where` in
 * the file, saying where the module writes it (ScriptDefault.elsewhere), and not the launch line's.
 */
function noteModuleDefault(
  file: PythonFile,
  name: string,
  value: FactValue,
  where: SyntaxNode,
  described: string,
  source: string,
  type?: ScriptDefault['type'],
  splitBy?: string,
): void {
  noteDefault(file, name, {
    node: null,
    lit: value,
    keySpan: span(where),
    valueSpan: span(where),
    where: described,
    ...(type ? { type } : {}),
    ...(splitBy !== undefined ? { splitBy } : {}),
    elsewhere: { source, launched: false },
  });
}

/**
 * The module that defines `name` for an import of `path`: the module itself or its package's `__init__.py` (also under
 * `src/`), or the module that one takes the name from (`from .configs import ModelArguments` in alignment-handbook's
 * `alignment/__init__.py`), followed once.
 */
export function definingModule(
  file: PythonFile,
  path: string,
  name?: string,
): { readonly text: string; readonly shownAs: string } | undefined {
  const read = file.readModule!;
  const init = path.replace(/\.py$/, '/__init__.py');
  // A src layout's package (installed to run so) too, as collect/locate.ts finds the module.
  const places = /^\.\.?\//.test(path) ? [path, init] : [path, init, `src/${path}`, `src/${init}`];
  const at = places.find((p) => read(p) !== undefined);
  const found = at === undefined ? undefined : read(at);
  if (!at || !found || name === undefined || definesName(found.text, name)) return found;
  const via = projectImports(found.text).find((i) => i.names.some(([local]) => local === name));
  const inNext = via?.names.find(([local]) => local === name)?.[1];
  if (!via || inNext === undefined) return found;
  const next = besideModule(at, via.path);
  return read(next) ?? read(next.replace(/\.py$/, '/__init__.py')) ?? found;
}

/** Whether a module's text defines a class or a function of that name at its top level. */
function definesName(text: string, name: string): boolean {
  return new RegExp(`^(class|def)\\s+${name}\\b`, 'm').test(text);
}

/** The defaults of one imported class's fields, as the script's options, located at the class's name in the parser call. */
function noteFields(
  file: PythonFile,
  local: string,
  original: string,
  found: { readonly text: string; readonly shownAs: string },
): void {
  const module = parsedModule(found.text);
  const cls = dataclassAtTop(module, original);
  let where: SyntaxNode | undefined;
  for (const c of file.calls) {
    const list = c.getChild('ArgList');
    where = list ? nameIn(file, list, local) : undefined;
    if (where) break;
  }
  if (!cls || !where) return;
  noteClassFields(file, module, cls, original, found, where);
}

/**
 * The dataclasses an imported function hands its own HfArgumentParser (sophus1004/Portfolio's arguments.py:
 * `parse_args()` returns `HfArgumentParser((TrainingModeArguments, ModelArguments, ...)).parse_args_into_dataclasses()`,
 * then `model_args = args[1]` in the script): each one's field defaults are the script's options, located at the
 * imported function's call in the script.
 */
function noteParserClasses(
  file: PythonFile,
  local: string,
  found: { readonly text: string; readonly shownAs: string },
): void {
  const module = parsedModule(found.text);
  const parser = callsEndingIn(module, 'HfArgumentParser')[0];
  const where = file.callsNamed(local)[0];
  const list = parser?.getChild('ArgList');
  if (!where || !list) return;
  for (const name of writtenNames(module.text, list)) {
    const cls = dataclassAtTop(module, name);
    if (cls) noteClassFields(file, module, cls, name, found, where);
  }
}

/** A module's dataclass's field defaults as the file's options (and trainer settings, for a TrainingArguments subclass). */
function noteClassFields(
  file: PythonFile,
  module: PythonFile,
  cls: SyntaxNode,
  original: string,
  found: { readonly text: string; readonly shownAs: string },
  where: SyntaxNode,
): void {
  const trainerTool = trainingArgumentsBase(module, cls);
  const splits = postInitSplits(module, cls);
  for (const f of dataclassFields(module, cls)) {
    if (!f.valueNode || isArgparseOption(file, f.rawKey)) continue;
    const v = module.evalNode(f.valueNode, 1);
    const line = module.line(f.valueSpan.start);
    const text = clip(found.text.slice(f.valueSpan.start, f.valueSpan.end));
    file.fieldDefaults.set(f.rawKey, { text, line, where: `dataclass default in ${found.shownAs}` });
    if (v.k !== 'lit') continue;
    const source = `${original}.${f.rawKey} default in ${found.shownAs}, line ${line}`;
    const splitBy = splits.get(f.rawKey);
    noteModuleDefault(file, f.rawKey, v.v, where, `${original}.${f.rawKey} default`, source, undefined, splitBy);
    // A subclass of TrainingArguments (or of a TRL config) is the trainer's arguments: its defaults are the run's
    // settings where the script hands the parsed object to the trainer, located at the class in the parser call.
    if (trainerTool && v.v !== null) {
      const at = span(where);
      const entry = { rawKey: f.rawKey, keySpan: at, valueNode: null, valueSpan: at, value: v };
      mapEntry(file, 'dataclass', entry, trainerTool, 'dataclass-default', trainerTool === 'trl');
    }
  }
}

/** The trainer whose arguments a class extends: transformers' TrainingArguments (or Seq2Seq's), a TRL config. */
function trainingArgumentsBase(module: PythonFile, cls: SyntaxNode): Tool | undefined {
  const bases = cls.getChild('ArgList');
  const names = bases ? children(bases).map((b) => module.text.slice(b.from, b.to).split('.').pop() ?? '') : [];
  if (names.some((n) => TRL_CONFIGS.has(n))) return 'trl';
  return names.some((n) => HF_ARGS.has(n)) ? 'hf-trainer' : undefined;
}

/** A top-level `@dataclass class <name>` of the module. */
function dataclassAtTop(module: PythonFile, name: string): SyntaxNode | undefined {
  for (const st of children(module.root)) {
    if (st.name !== 'DecoratedStatement') continue;
    const cls = st.getChild('ClassDefinition');
    const named = cls?.getChild('VariableName');
    const decorated = st.getChildren('Decorator').some((d) => /\bdataclass\b/.test(module.text.slice(d.from, d.to)));
    if (cls && named && decorated && module.text.slice(named.from, named.to) === name) return cls;
  }
  return undefined;
}

/** The name `local` written as an argument of the list (or inside a tuple or list there). */
function nameIn(file: PythonFile, list: SyntaxNode, local: string): SyntaxNode | undefined {
  for (const ch of children(list)) {
    if (ch.name === 'VariableName' && file.text.slice(ch.from, ch.to) === local) return ch;
    if (ch.name === 'TupleExpression' || ch.name === 'ArrayExpression' || ch.name === 'ParenthesizedExpression') {
      const inner = nameIn(file, ch, local);
      if (inner) return inner;
    }
  }
  return undefined;
}
