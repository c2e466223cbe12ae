// `C.attr` of a class the file defines, read from the class body: notebooks keep their settings as class constants
// (`class ModelConfig:` / `model_name: str = "google/gemma-2-2b"`, then `from_pretrained(ModelConfig.model_name)`).
// Only a body that sets the attribute once, in a file that sets no `.attr` anywhere else, gives a value. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import { clip } from './syntax';
import { calledFunctionBody, soleReturn } from './expressions';
import { decidedOperand } from './boolean-operators';
import { calledAs, positionalParameters } from './attributes';
import { importedName } from './imported-constants';
import { fieldArgument } from './module-constants';

/** The value the class body gives `C.attr`, or undefined when C is not a class of this file or attr is not constant. */
export function classConstant(file: PythonFile, dotted: string, use: SyntaxNode, depth: number): Val | undefined {
  const parts = dotted.split('.');
  // Set on an instance somewhere (`cfg.lr = ...`), it may not be the class's value; set on `self`, bodyValue decides.
  if (parts.length < 2 || file.optionsAssigned.has(parts[parts.length - 1])) return undefined;
  if (parts.length > 2) return nestedConstant(file, parts, use, depth);
  const [name, attr] = parts;
  const bound = bindingOf(file, name, use);
  if (!bound) return undefined;
  ({ use } = bound);
  const { found } = bound;
  const made =
    found.binding.kind === 'assign'
      ? instanceMadeBy(file, madeBy(file, found.binding.valueNode, depth), use)
      : undefined;
  if (found.binding.kind === 'assign' && !made) return importedInstance(file, found.binding.valueNode, attr, use);
  if (found.binding.kind !== 'def' && !made) return undefined;
  // `cfg = Config(batch_size=8)`: the keyword the call gives, else the class body's value.
  const given = made?.keywords.find((e) => e.rawKey === attr);
  if (given) return file.valueOf(given);
  const cls = made?.cls ?? classAt(use, found.binding.pos);
  return cls ? bodyValue(file, cls, attr, name, depth, made !== undefined) : undefined;
}

/**
 * `config.training.bf16` of `config = Config()`, whose dataclass holds instances of the file's other dataclasses
 * (`training: TrainConfig = field(default_factory=TrainConfig)`): each step the keyword the call that made the
 * instance passes, else the field's default; the last attribute a literal, as for `cfg.attr`.
 */
function nestedConstant(file: PythonFile, parts: readonly string[], use: SyntaxNode, depth: number): Val | undefined {
  const bound = bindingOf(file, parts[0], use);
  if (bound?.found.binding.kind !== 'assign') return undefined;
  const value = madeBy(file, bound.found.binding.valueNode, depth);
  let made = instanceMadeBy(file, value, bound.use);
  if (!made) return importedInstance(file, value, parts.slice(1).join('.'), bound.use);
  for (const attr of parts.slice(1, -1)) made = made && memberInstance(file, made, attr, bound.use);
  if (!made) return undefined;
  const attr = parts[parts.length - 1];
  const given = made.keywords.find((e) => e.rawKey === attr);
  if (given) return file.valueOf(given);
  return bodyValue(file, made.cls, attr, parts.slice(0, -1).join('.'), depth, true);
}

type Instance = NonNullable<ReturnType<typeof instanceOf>>;

/**
 * The instance an attribute of an instance holds when a class of this file makes it: the keyword's call, else the
 * field's default, `Sub()`, `field(default_factory=Sub)` or `field(default_factory=lambda: Sub(k=v))`.
 */
function memberInstance(file: PythonFile, made: Instance, attr: string, use: SyntaxNode): Instance | undefined {
  const given = made.keywords.find((e) => e.rawKey === attr);
  if (given) return instanceOf(file, given.valueNode, use);
  const value = onlyAssignment(file, made.cls, attr);
  if (!value) return undefined;
  const factory = fieldArgument(file.text, value, 'default_factory');
  if (factory === value) return instanceOf(file, value, use);
  if (factory?.name === 'LambdaExpression') return instanceOf(file, factory.lastChild, use);
  if (factory?.name !== 'VariableName') return undefined;
  return classNamed(file, file.text.slice(factory.from, factory.to), use);
}

/** An instance of the class of this file a name binds, made with no arguments (a default_factory's). */
function classNamed(file: PythonFile, name: string, use: SyntaxNode): Instance | undefined {
  const found = file.lookup(name, use);
  if (found.k !== 'binding' || found.binding.kind !== 'def') return undefined;
  const cls = classAt(use, found.binding.pos);
  const className = cls?.getChild('VariableName');
  return cls && className && file.text.slice(className.from, className.to) === name ? { cls, keywords: [] } : undefined;
}

/**
 * The literal a class body gives an attribute (`attr = v`, `attr: T = v`, `attr: T = field(default=v)`, pydantic's
 * `Field(v)`), or for an instance the one `self.attr = v` of its `__init__`, located at the value and said as
 * `owner.attr = v at line N` (`attr = v` without an owner).
 */
function bodyValue(
  file: PythonFile,
  cls: SyntaxNode,
  attr: string,
  owner: string | undefined,
  depth: number,
  instance: boolean,
): Val | undefined {
  // An instance's attribute that `__init__` sets once is that value; the class's own is the body's, set on no instance.
  const onSelf = selfAssignments(file, cls, attr);
  const assigned =
    onSelf === 0
      ? onlyAssignment(file, cls, attr)
      : onSelf === 1 && instance
        ? initAssignment(file, cls, attr)
        : undefined;
  const value = assigned && fieldArgument(file.text, assigned, 'default');
  if (!value) return undefined;
  const v = file.evalNode(value, depth + 1);
  if (v.k !== 'lit') return undefined;
  const named = owner === undefined ? attr : `${owner}.${attr}`;
  const text = `${named} = ${clip(file.text.slice(value.from, value.to), 40)} at line ${file.line(value.from)}`;
  return { ...v, via: { text, span: { start: value.from, end: value.to } } };
}

/**
 * `cfg = TrainingConfig()` of a class the script imports from its project (`from config import TrainingConfig`,
 * zeyrek2323/msra-c-standards-checker train_lora.py): `cfg.attr` is the keyword the call passes, else the class's
 * attribute as its module writes it (imported-constants.ts), also through its fields' instances (`cfg.training.lr`).
 * Undefined for any other value.
 */
function importedInstance(file: PythonFile, value: SyntaxNode | null, attr: string, use: SyntaxNode): Val | undefined {
  const callee = value?.name === 'CallExpression' ? value.firstChild : null;
  if (!value || callee?.name !== 'VariableName') return undefined;
  const cls = file.text.slice(callee.from, callee.to);
  if (file.lookup(cls, use).k === 'binding') return undefined;
  const args = file.args(value);
  if (args.positional.length > 0 || args.opaque.length > 0) return undefined;
  // `cfg.training.lr` of `cfg = Config(training=...)`: the keyword's instance is not followed.
  const [first, ...rest] = attr.split('.');
  const given = args.entries.find((e) => e.rawKey === first);
  if (given && rest.length > 0) return undefined;
  return given ? file.valueOf(given) : importedName(file, `${cls}.${attr}`, use);
}

/** At most this many calls are followed back from a parameter to the name its caller passes. */
const MAX_CALLERS = 3;

/**
 * The binding of a name where it is used; for a parameter of a function the file calls once, the binding of the name
 * that call passes, in the caller (`create_trainer(model, tokenizer, dataset, cfg)` with `cfg = SFTTrainingConfig()`).
 */
function bindingOf(
  file: PythonFile,
  name: string,
  use: SyntaxNode,
  hops = 0,
): { found: Extract<ReturnType<PythonFile['lookup']>, { k: 'binding' }>; use: SyntaxNode } | undefined {
  const found = file.lookup(name, use);
  if (found.k === 'binding') return { found, use };
  const scope = found.param?.scope;
  if (!scope || hops >= MAX_CALLERS) return undefined;
  const callee = calledAs(file, scope);
  const sites = file.callsNamed(callee);
  if (sites.length !== 1) return undefined;
  const a = file.args(sites[0]);
  const i = positionalParameters(file, scope).indexOf(name);
  const arg = a.entries.find((e) => e.rawKey === name)?.valueNode ?? (i >= 0 ? a.positional[i] : undefined);
  if (arg?.name !== 'VariableName') return undefined;
  return bindingOf(file, file.text.slice(arg.from, arg.to), arg, hops + 1);
}

/**
 * The expression a name's value is made by: the operand `cfg or Config()` takes (`cfg` a parameter that is None), or
 * what the file's own function returns, called without arguments (`config = get_config()` with
 * `def get_config(): return Config()`).
 */
function madeBy(file: PythonFile, value: SyntaxNode | null, depth: number): SyntaxNode | null {
  if (value?.name === 'BinaryExpression') return decidedOperand(file, value, depth) ?? value;
  if (value?.name !== 'CallExpression' || !noArguments(file, value)) return value;
  const body = calledFunctionBody(file, value);
  const returned = body && soleReturn(body);
  const made = returned?.lastChild;
  return made?.name === 'CallExpression' ? made : value;
}

function noArguments(file: PythonFile, call: SyntaxNode): boolean {
  const a = file.args(call);
  return a.positional.length === 0 && a.entries.length === 0 && a.opaque.length === 0;
}

/**
 * `Config()` or `Config(k=v)` of a class this file defines, called with keywords only: the class and the keywords
 * (an instance's attribute is the class body's value unless the call or the file sets it).
 */
function instanceOf(
  file: PythonFile,
  value: SyntaxNode | null,
  use: SyntaxNode,
): { cls: SyntaxNode; keywords: ReturnType<PythonFile['args']>['entries'] } | undefined {
  const callee = value?.name === 'CallExpression' ? value.firstChild : null;
  if (!value || callee?.name !== 'VariableName') return undefined;
  const found = file.lookup(file.text.slice(callee.from, callee.to), use);
  if (found.k !== 'binding' || found.binding.kind !== 'def') return undefined;
  const cls = classAt(use, found.binding.pos);
  const className = cls?.getChild('VariableName');
  const named = className && file.text.slice(className.from, className.to) === file.text.slice(callee.from, callee.to);
  const args = file.args(value);
  if (!cls || !named || args.positional.length > 0 || args.opaque.length > 0) return undefined;
  return { cls, keywords: args.entries };
}

/** An instance of a class of this file a call makes: the class's own call, or one of its class methods'. */
function instanceMadeBy(file: PythonFile, value: SyntaxNode | null, use: SyntaxNode): Instance | undefined {
  return instanceOf(file, value, use) ?? classMethodInstance(file, value, use);
}

/**
 * The instance a class method of the file's class makes (`Config.from_dict(raw)` whose one return is
 * `cls(model=ModelConfig(**raw["model"]), ...)`): the class and that call's keywords, evaluated where the method writes
 * them (its parameters are what the one call of it passes).
 */
function classMethodInstance(file: PythonFile, value: SyntaxNode | null, use: SyntaxNode): Instance | undefined {
  const callee = value?.name === 'CallExpression' ? value.firstChild : null;
  const owner = callee?.name === 'MemberExpression' ? callee.firstChild : null;
  const prop = callee?.lastChild;
  if (owner?.name !== 'VariableName' || prop?.name !== 'PropertyName') return undefined;
  const ownerName = file.text.slice(owner.from, owner.to);
  const made = classNamed(file, ownerName, use);
  const method = made && methodNamed(file, made.cls, file.text.slice(prop.from, prop.to));
  const returned = method && soleReturn(method);
  const call = returned?.lastChild;
  const head = call?.name === 'CallExpression' ? call.firstChild : null;
  const headName = head?.name === 'VariableName' ? file.text.slice(head.from, head.to) : undefined;
  if (!made || !call || (headName !== 'cls' && headName !== ownerName)) return undefined;
  const args = file.args(call);
  return args.positional.length === 0 && args.opaque.length === 0
    ? { cls: made.cls, keywords: args.entries }
    : undefined;
}

/**
 * The value `__init__` sets `self.attr` to at its top level, where no other statement of the class sets it (Sayyam-
 * Karnavat/algorand_assistant_vscode: `class ModelConfig: def __init__(self): self.model_name = "unsloth/..."`).
 */
function initAssignment(file: PythonFile, cls: SyntaxNode, attr: string): SyntaxNode | undefined {
  const body = methodNamed(file, cls, '__init__');
  for (let st = body?.firstChild ?? null; st; st = st.nextSibling) {
    const target = st.name === 'AssignStatement' ? st.firstChild : null;
    if (target?.name !== 'MemberExpression' || file.text.slice(target.from, target.to) !== `self.${attr}`) continue;
    const value = st.lastChild;
    return value && value.from > target.to && st.getChildren('AssignOp').length === 1 ? value : undefined;
  }
  return undefined;
}

/** How many statements of the class set `self.attr` (`=`, `+=`, ...). */
function selfAssignments(file: PythonFile, cls: SyntaxNode, attr: string): number {
  const text = file.text.slice(cls.from, cls.to);
  return text.includes(`self.${attr}`)
    ? (text.match(new RegExp(`\\bself\\.${attr}\\s*(?:[-+*/|&]|//)?=(?!=)`, 'g'))?.length ?? 0)
    : 0;
}

/** The body of the method `name` a class defines (decorated or not). */
function methodNamed(file: PythonFile, cls: SyntaxNode, name: string): SyntaxNode | undefined {
  for (let st = cls.getChild('Body')?.firstChild ?? null; st; st = st.nextSibling) {
    const fn = st.name === 'DecoratedStatement' ? st.getChild('FunctionDefinition') : st;
    const fnName = fn?.name === 'FunctionDefinition' ? fn.getChild('VariableName') : null;
    if (fnName && file.text.slice(fnName.from, fnName.to) === name) return fn!.getChild('Body') ?? undefined;
  }
  return undefined;
}

/** The class definition that starts at `pos` (its binding's place), found from any node of the file. */
function classAt(node: SyntaxNode, pos: number): SyntaxNode | undefined {
  let root = node;
  while (root.parent) root = root.parent;
  for (let n: SyntaxNode | null = root.resolveInner(pos, 1); n; n = n.parent)
    if (n.name === 'ClassDefinition') return n;
  return undefined;
}

/** The value of the one statement of the class body that sets `attr` (`attr = v`, `attr: T = v`); none if two do. */
function onlyAssignment(file: PythonFile, cls: SyntaxNode, attr: string): SyntaxNode | undefined {
  let value: SyntaxNode | undefined;
  for (let st = cls.getChild('Body')?.firstChild ?? null; st; st = st.nextSibling) {
    if (st.name !== 'AssignStatement') continue;
    const target = st.firstChild;
    const last = st.lastChild;
    if (target?.name !== 'VariableName' || file.text.slice(target.from, target.to) !== attr) continue;
    if (value || !last || last.from === target.from || !st.getChild('AssignOp')) return undefined;
    value = last;
  }
  return value;
}

/**
 * Attribute `attr` of the instance a call makes (`FinetuneConfig()`, `Config(batch_size=8)` of a class this file
 * defines, keywords only): the call's keyword, else the class body's value; undefined for any other call.
 */
export function instanceAttribute(file: PythonFile, call: SyntaxNode, attr: string, depth: number): Val | undefined {
  const made = instanceOf(file, call, call);
  if (!made) return undefined;
  const given = made.keywords.find((e) => e.rawKey === attr);
  if (given) return file.valueOf(given);
  return bodyValue(file, made.cls, attr, undefined, depth, true);
}
