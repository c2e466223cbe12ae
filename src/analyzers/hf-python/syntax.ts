// Helpers over @lezer/python nodes and Python literals (spans, string and number literals, clipped text). Pure.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue, Span } from '../facts';

/** How deep static evaluation follows nested expressions and names before it gives up. */
export const MAX_DEPTH = 40;

/** The variable a call's result is assigned to (`name = call(...)`), if any. */
/**
 * f's result with the None defaults of the script's options read as None, not as unknown: in a test (`if x is not
 * None`), or for a key where None has a meaning of its own (modules_to_save: no module).
 */
export function readingNoneDefaults<T>(file: { noneDefaults: boolean }, f: () => T): T {
  const before = file.noneDefaults;
  file.noneDefaults = true;
  try {
    return f();
  } finally {
    file.noneDefaults = before;
  }
}

export function assignedName(call: SyntaxNode, text: string): string | undefined {
  const parent = call.parent;
  if (parent?.name !== 'AssignStatement') return undefined;
  const target = parent.firstChild;
  return target?.name === 'VariableName' && target.nextSibling?.name === 'AssignOp'
    ? text.slice(target.from, target.to)
    : undefined;
}

/** Model classes whose from_pretrained loads trainable weights (not tokenizers, processors, configs or adapters). */
export function isModelClass(name: string): boolean {
  if (/Tokenizer|Processor|Config|FeatureExtractor|Peft|Adapter/.test(name)) return false;
  // An image encoder a model class of the project loads as its vision tower (nkkbr/241121_qwerty's
  // `CLIPVisionModel.from_pretrained(CLIP_MODEL_NAME)`) is not the model that trains; Unsloth's FastVisionModel is.
  if (/(?<!Fast)Vision(Model|Transformer|Tower|Encoder)$|^(CLIP|Siglip2?|ViT|Dinov2)Model$/.test(name)) return false;
  return /^Auto\w*Model\w*$|For[A-Z]\w*$|(LM|Model)$|LMHeadModel$/.test(name);
}

/** Whether a callee's dotted parts load a model's weights: a model class's from_pretrained or from_config. */
export function isModelLoad(parts: readonly string[]): boolean {
  const last = parts[parts.length - 1];
  return (
    (last === 'from_pretrained' || last === 'from_config') && parts.length >= 2 && isModelClass(parts[parts.length - 2])
  );
}

/** The items of a list, tuple or set literal: its children less the brackets, commas and comments. */
export function listItems(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling)
    if (!['[', ']', '(', ')', '{', '}', ',', 'Comment'].includes(c.name)) out.push(c);
  return out;
}

/** The names written in an argument list, also inside a tuple or list there (`HfArgumentParser((A, B))`'s classes). */
export function writtenNames(text: string, list: SyntaxNode): string[] {
  return children(list).flatMap((ch) =>
    ch.name === 'VariableName'
      ? [text.slice(ch.from, ch.to)]
      : ch.name === 'TupleExpression' || ch.name === 'ArrayExpression' || ch.name === 'ParenthesizedExpression'
        ? writtenNames(text, ch)
        : [],
  );
}

/** The child nodes of a syntax node, in order. */
export function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

/** One parameter of a function: its name, its default (null when none), and whether it follows `*` or `**`. */
export interface Parameter {
  readonly name: string;
  readonly nameNode: SyntaxNode;
  readonly def: SyntaxNode | null;
  readonly starred: boolean;
}

/** The parameters of a ParamList node, in order (a `*args` / `**kwargs` name, and those after it, are starred). */
export function parameters(text: string, list: SyntaxNode | null): Parameter[] {
  const out: Parameter[] = [];
  let starred = false;
  for (let ch = list?.firstChild ?? null; ch; ch = ch.nextSibling) {
    if (ch.name === '*' || ch.name === '**') starred = true;
    if (ch.name !== 'VariableName' || ch.prevSibling?.name === 'AssignOp') continue;
    let def: SyntaxNode | null = null;
    for (let n = ch.nextSibling; n && n.name !== ','; n = n.nextSibling) if (n.name === 'AssignOp') def = n.nextSibling;
    out.push({ name: text.slice(ch.from, ch.to), nameNode: ch, def, starred });
  }
  return out;
}

/** Whether the parameter is the function's `**name`, which takes every keyword argument. */
export function isKeywordsParameter(p: Parameter): boolean {
  return p.nameNode.prevSibling?.name === '**';
}

export function span(n: SyntaxNode): Span {
  return { start: n.from, end: n.to };
}

/** The characters between the quotes of a string literal node, so that slicing gives the key as written. */
export function stringInner(text: string, n: SyntaxNode): Span {
  const raw = text.slice(n.from, n.to);
  const m = /^[rRbBuUfF]*('''|"""|'|")/.exec(raw);
  if (!m) return span(n);
  const q = m[1];
  const start = n.from + m[0].length;
  const end = raw.length >= m[0].length + q.length && raw.endsWith(q) ? n.to - q.length : n.to;
  return { start: Math.min(start, end), end };
}

/**
 * A float written with a trailing dot (`weight_decay=0.`, `1.e5`): lezer's Python grammar reads `0.` as the number's
 * member with its name missing (an error node) and `1.e5` as its member `e5`. The member expression is that number.
 */
export function isTrailingDotFloat(text: string, node: SyntaxNode): boolean {
  const number = node.firstChild;
  if (node.name !== 'MemberExpression' || number?.name !== 'Number' || number.nextSibling?.name !== '.') return false;
  return /^\d[\d_]*\.(?:[eE]\d+)?$/.test(text.slice(node.from, node.to));
}

export function parseNumber(t: string): number | undefined {
  const s = t.replace(/_/g, '');
  if (/[jJ]$/.test(s)) return undefined;
  if (/^0[0-7]+$/.test(s) && !/^0+$/.test(s)) return undefined;
  const n = /^0[xXoObB]/.test(s) ? Number(s.toLowerCase()) : Number(s.replace(/[lL]$/, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** The value of a Python str literal (not bytes), or undefined when it is not one. */
export function pyString(raw: string): string | undefined {
  const m = /^([rRbBuUfF]*)('''|"""|'|")/.exec(raw);
  if (!m) return undefined;
  const prefix = m[1].toLowerCase();
  if (prefix.includes('b')) return undefined;
  const q = m[2];
  if (raw.length < m[0].length + q.length || !raw.endsWith(q)) return undefined;
  const body = raw.slice(m[0].length, raw.length - q.length);
  if (prefix.includes('r')) return body;
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\n|.)/g, (_, c: string) => {
    if (c[0] === 'u' || c[0] === 'x') return String.fromCharCode(parseInt(c.slice(1), 16));
    return (
      ({ n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '\n': '', '0': '\0' } as Record<string, string>)[
        c
      ] ?? `\\${c}`
    );
  });
}

export function fmt(v: FactValue): string {
  return typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? JSON.stringify(v) : String(v);
}

export function clip(s: string, n = 200): string {
  // One pass that stops past n characters (as `s.replace(/\s*\n\s*/g, ' ')` would read, but that regex backtracks
  // over long runs of blanks, and a value thousands of characters long is clipped again at every evaluation).
  let one = '';
  for (let i = 0; i < s.length && one.length <= n;) {
    if (!BLANK.test(s[i])) {
      one += s[i++];
      continue;
    }
    const start = i;
    let newline = false;
    for (; i < s.length && BLANK.test(s[i]); i++) if (s[i] === '\n') newline = true;
    one += newline ? ' ' : s.slice(start, i);
  }
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

const BLANK = /\s/;

/** Python's truth of a literal: a list by its length, anything else as bool() reads it. */
export function pyTruthy(v: unknown): boolean {
  return Array.isArray(v) ? v.length > 0 : Boolean(v);
}

/**
 * The values an assignment writes after its last `=`, where it writes several: `x, y = "a", "b"` (bare or in
 * parentheses); empty for one value (a call, a name) whose items are not written out.
 */
export function writtenItems(st: SyntaxNode): SyntaxNode[] {
  let after: SyntaxNode | null = null;
  for (let ch = st.firstChild; ch; ch = ch.nextSibling) if (ch.name === 'AssignOp') after = ch.nextSibling;
  const values: SyntaxNode[] = [];
  for (let ch = after; ch; ch = ch.nextSibling) if (ch.name !== ',') values.push(ch);
  if (values.length > 1) return values;
  const only = values[0];
  if (only?.name !== 'TupleExpression') return [];
  const inner: SyntaxNode[] = [];
  for (let ch = only.firstChild; ch; ch = ch.nextSibling) if (!['(', ')', ','].includes(ch.name)) inner.push(ch);
  return inner;
}

/** An assignment's names where they are plain names, bare (`a, b`) or in one tuple or list (`(a, b)`); else undefined. */
export function targetNames(targets: readonly SyntaxNode[]): SyntaxNode[] | undefined {
  const inner = (t: SyntaxNode): SyntaxNode[] => {
    const out: SyntaxNode[] = [];
    for (let ch = t.firstChild; ch; ch = ch.nextSibling) if (!['(', ')', '[', ']', ','].includes(ch.name)) out.push(ch);
    return out;
  };
  const list =
    targets.length === 1 && (targets[0].name === 'TupleExpression' || targets[0].name === 'ArrayExpression')
      ? inner(targets[0])
      : [...targets];
  return list.every((t) => t.name === 'VariableName') ? list : undefined;
}

/**
 * An assignment's targets, those before its last `=` (`a, b = "x", "y"` writes its values as siblings of the names, after
 * the `=`), and how many `=` it has (`a = b = "x"` binds both names to the value); undefined without one.
 */
export function assignmentTargets(st: SyntaxNode): { targets: SyntaxNode[]; ops: number } | undefined {
  let lastOp: SyntaxNode | null = null;
  let ops = 0;
  for (let ch = st.firstChild; ch; ch = ch.nextSibling) {
    if (ch.name !== 'AssignOp') continue;
    lastOp = ch;
    ops++;
  }
  if (!lastOp) return undefined;
  const targets: SyntaxNode[] = [];
  for (let ch = st.firstChild; ch && ch.from < lastOp.from; ch = ch.nextSibling)
    if (ch.name !== 'TypeDef' && ch.name !== ',' && ch.name !== 'AssignOp') targets.push(ch);
  return { targets, ops };
}

/** Every node under `node` in document order; not inside functions, classes or lambdas defined there unless `all`. */
export function walk(node: SyntaxNode, visit: (n: SyntaxNode) => void, all = false): void {
  for (let c = node.firstChild; c; c = c.nextSibling) {
    const nested = c.name === 'FunctionDefinition' || c.name === 'ClassDefinition' || c.name === 'LambdaExpression';
    if (nested && !all) continue;
    visit(c);
    walk(c, visit, all);
  }
}
