// Python writer: keyword arguments of one call, found on the @lezer/python tree; nothing outside the call changes.
// Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from '../../../analyzers/python-parse';
import { UNSLOTH_CLASSES } from '../../../analyzers/hf-python';
import { PythonFile } from '../../../analyzers/hf-python/file';
import { type Val, type Op, type PyCall, type Written, isRaw, isObj, eolOf, lineStartOf, splice } from '../ops';

const TRL_CONFIGS = new Set([
  'SFTConfig',
  'DPOConfig',
  'GRPOConfig',
  'RLOOConfig',
  'ORPOConfig',
  'KTOConfig',
  'PPOConfig',
  'RewardConfig',
  'CPOConfig',
  'BCOConfig',
  'GKDConfig',
  'PRMConfig',
  'NashMDConfig',
  'OnlineDPOConfig',
  'XPOConfig',
  'IterativeSFTConfig',
  'GOLDConfig',
  'MiniLLMConfig',
]);

/** Callees longer than this are no name the writer knows (a broken file's error recovery can make one span it all). */
const MAX_CALLEE_CHARS = 256;

function calleeName(text: string, call: SyntaxNode): string {
  const c = call.firstChild;
  return c && c.to - c.from <= MAX_CALLEE_CHARS ? text.slice(c.from, c.to).replace(/\s+/g, '') : '';
}

function callKind(name: string): PyCall | 'trl' | undefined {
  const parts = name.split('.');
  const last = parts.pop() ?? '';
  if (UNSLOTH_CLASSES.has(parts[parts.length - 1] ?? ''))
    return last === 'from_pretrained' ? 'unsloth-load' : last === 'get_peft_model' ? 'unsloth-peft' : undefined;
  if (last === 'TrainingArguments' || last === 'Seq2SeqTrainingArguments') return 'train';
  if (TRL_CONFIGS.has(last)) return 'trl';
  if (last === 'LoraConfig') return 'lora';
  if (last === 'BitsAndBytesConfig') return 'bnb';
  if (last === 'from_pretrained') return 'load';
  return undefined;
}

interface PyArg {
  readonly from: number;
  readonly to: number;
  readonly kw?: string;
  readonly value?: { readonly from: number; readonly to: number };
}

interface PyCallSite {
  readonly kind: PyCall | 'trl';
  readonly open: number;
  readonly close: number;
  readonly args: readonly PyArg[];
  readonly trailingComma: boolean;
  /** The `**mapping` arguments the call takes keywords from. */
  readonly spreads: readonly SyntaxNode[];
}

export function pyCalls(text: string): PyCallSite[] {
  const tree = parsePython(text).tree;
  const out: PyCallSite[] = [];
  tree.iterate({
    enter: (n) => {
      if (n.name !== 'CallExpression') return;
      const site = callSite(text, n.node);
      if (site) out.push(site);
    },
  });
  return out;
}

/** The arguments of a call the planners write to (its kind from the callee), or undefined for any other call. */
function callSite(text: string, node: SyntaxNode): PyCallSite | undefined {
  const kind = callKind(calleeName(text, node));
  const argList = node.getChild('ArgList');
  if (!kind || !argList) return undefined;
  const kids: SyntaxNode[] = [];
  for (let c = argList.firstChild; c; c = c.nextSibling) kids.push(c);
  const open = kids[0];
  const close = kids[kids.length - 1];
  if (!open || open.name !== '(' || !close || close.name !== ')') return undefined;
  const args: PyArg[] = [];
  let cur: SyntaxNode[] = [];
  let trailingComma = false;
  const flush = (): void => {
    if (cur.length === 0) return;
    const a = cur[0]!;
    const b = cur[cur.length - 1]!;
    const eq = cur.findIndex((x) => x.name === 'AssignOp');
    if (eq === 1 && a.name === 'VariableName' && cur[2]) {
      args.push({ from: a.from, to: b.to, kw: text.slice(a.from, a.to), value: { from: cur[2].from, to: b.to } });
    } else {
      args.push({ from: a.from, to: b.to });
    }
    cur = [];
  };
  for (const k of kids.slice(1, -1)) {
    if (k.name === ',') {
      flush();
      trailingComma = true;
    } else {
      cur.push(k);
      trailingComma = false;
    }
  }
  flush();
  const spreads = kids.flatMap((k) => (k.name === '**' && k.nextSibling ? [k.nextSibling] : []));
  return { kind, open: open.from, close: close.from, args, trailingComma, spreads };
}

function pyLiteral(v: Val, quote: string): string {
  if (isRaw(v)) return v.raw;
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyLiteral(x, quote)).join(', ')}]`;
  if (isObj(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${quote}${k}${quote}: ${pyLiteral(x, quote)}`)
      .join(', ')}}`;
  const s = String(v);
  return quote === "'" ? `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(s);
}

const PY_CALL_NAMES: Record<PyCall, string> = {
  train: 'TrainingArguments / TRL config',
  lora: 'LoraConfig',
  bnb: 'BitsAndBytesConfig',
  load: 'from_pretrained',
  'unsloth-load': 'FastLanguageModel.from_pretrained',
  'unsloth-peft': 'FastLanguageModel.get_peft_model',
};

/**
 * Whether a `**mapping` argument may hold `kw`: true unless it is a dict the analyzer reads whole (a literal or a
 * `dict(...)` bound to a name, with the keys later `name["key"] = ...` statements add, on any branch) without it.
 */
function mayPass(text: string, node: SyntaxNode, kw: string): boolean {
  const file = new PythonFile(text);
  file.root = parsePython(text).tree.topNode;
  const v = file.evalNode(node, 0);
  const names = ALIASES.find((group) => group.includes(kw)) ?? [kw];
  return v.k !== 'dict' || v.opaque.length > 0 || v.entries.some((e) => names.includes(e.rawKey));
}

/** Keywords that set one setting under two names (a mapping holding one and the call the other would conflict). */
const ALIASES: readonly (readonly string[])[] = [
  ['dtype', 'torch_dtype'],
  ['eval_strategy', 'evaluation_strategy'],
  ['max_length', 'max_seq_length'],
];

export function pySet(text: string, o: Op): Written {
  const want = o.call ?? 'train';
  const calls = pyCalls(text).filter((c) => c.kind === want || (want === 'train' && c.kind === 'trl'));
  const kw = o.path[0]!;
  if (o.path.length !== 1) return { reason: `nested keyword \`${o.path.join('.')}\` is not written in Python` };
  const site = calls.find((c) => c.args.some((a) => a.kw === kw)) ?? calls[0];
  if (!site) return { reason: `no ${PY_CALL_NAMES[want]}(...) call to write \`${kw}\` into` };
  const quote = /^'/.test(text.slice(site.open, site.close).match(/=\s*(['"])/)?.[1] ?? '"') ? "'" : '"';
  const value = pyLiteral(o.value, quote);
  const arg = site.args.find((a) => a.kw === kw);
  if (arg?.value) {
    if (o.when === 'absent') return { text };
    return { text: splice(text, arg.value.from, arg.value.to, value) };
  }
  if (o.when === 'present') return { text };
  // `f(x, **kwargs)`: unless the mapping's keys are known and the keyword is not one of them, it may pass the keyword
  // already, and Python raises on a keyword passed twice.
  if (site.spreads.some((node) => mayPass(text, node, kw)))
    return {
      reason: `${PY_CALL_NAMES[want]}(...) takes keywords from a ** argument that may already set \`${kw}\`: it is not written beside it`,
    };
  const item = `${kw}=${value}`;
  const last = site.args[site.args.length - 1];
  if (!last) return { text: splice(text, site.open + 1, site.close, item) };
  const eol = eolOf(text);
  const inner = text.slice(site.open + 1, last.to);
  const firstArg = site.args[0]!;
  const multiLine = /\n/.test(text.slice(site.open, firstArg.from));
  if (multiLine) {
    // One argument per line: the new keyword gets its own line at the indentation of the last one.
    const ls = lineStartOf(text, last.from);
    const indent = text.slice(ls, last.from).match(/^[ \t]*/)?.[0] ?? '';
    if (site.trailingComma) {
      const comma = text.indexOf(',', last.to);
      return { text: splice(text, comma + 1, comma + 1, `${eol}${indent}${item},`) };
    }
    return { text: splice(text, last.to, last.to, `,${eol}${indent}${item}`) };
  }
  if (/\n/.test(inner)) {
    // Hanging indentation: continue under the last argument.
    const col = last.from - lineStartOf(text, last.from);
    const at = site.trailingComma ? text.indexOf(',', last.to) + 1 : last.to;
    return { text: splice(text, at, at, `${site.trailingComma ? '' : ','}${eol}${' '.repeat(col)}${item}`) };
  }
  if (site.trailingComma) {
    const comma = text.indexOf(',', last.to);
    return { text: splice(text, comma + 1, comma + 1, ` ${item}`) };
  }
  return { text: splice(text, last.to, last.to, `, ${item}`) };
}
