// Config files a script or notebook writes before it launches a run with them (LLaMA-Factory's Colab notebook:
// `json.dump(args, open("train_llama3.json", "w"))` then `!llamafactory-cli train train_llama3.json`; Axolotl's:
// `yaml.dump(yaml.safe_load(yaml_string), file)` in a `with open("config.yaml", "w") as file:` block, then
// `!accelerate launch -m axolotl.cli.train config.yaml`): the file's path and its text, from a dict or a string the
// script writes out statically. Pure: it never runs code.
import type { SyntaxNode } from '@lezer/common';
import { stringify } from 'yaml';
import { parsePython } from '../python-parse';
import type { ConfigFacts } from '../facts';
import { PythonFile, type Val } from './file';

/** A file the script writes, as the run reads it. */
export interface WrittenFile {
  readonly path: string;
  readonly text: string;
}

/** The most files read from one script, and the deepest dict written out. */
const MAX_FILES = 16;
const MAX_DEPTH = 8;

/** The config files a script writes with json.dump, yaml.dump / safe_dump or a file's write(), statically known. */
export function writtenFiles(text: string): WrittenFile[] {
  const out: WrittenFile[] = [];
  try {
    const file = new PythonFile(text);
    file.root = parsePython(text).tree.topNode;
    const cur = file.root.cursor();
    do {
      if (cur.name !== 'CallExpression' || out.length >= MAX_FILES) continue;
      const w = writeOf(file, cur.node);
      if (w) out.push(w);
    } while (cur.next());
  } catch {
    // What was found before a failure is kept.
  }
  return out;
}

/** One call that writes a file: `json.dump(x, f)`, `yaml.dump(x, f)`, `yaml.safe_dump(x, f)`, `f.write(s)`. */
function writeOf(file: PythonFile, call: SyntaxNode): WrittenFile | undefined {
  const callee = file.calleeName(call) ?? '';
  const a = file.args(call);
  const dump = /^(json|yaml)\.(dump|safe_dump)$/.exec(callee);
  if (dump && a.positional.length >= 2) {
    const path = target(file, a.positional[1]);
    const text = path ? contents(file, a.positional[0], dump[1] as 'json' | 'yaml') : undefined;
    return path && text !== undefined ? { path, text } : undefined;
  }
  // `Path(...).write_text(yaml.dump(cfg))` / `json.dumps(cfg)` / a string: the path is the object's value.
  const writeText = /\.write_text$/.test(callee) && a.positional.length === 1 ? call.firstChild?.firstChild : undefined;
  if (writeText) {
    const path = file.evalNode(writeText, 0);
    const text = writtenText(file, a.positional[0]);
    return path.k === 'lit' && typeof path.v === 'string' && text !== undefined ? { path: path.v, text } : undefined;
  }
  const write = /^(\w+)\.write$/.exec(callee);
  if (write && a.positional.length === 1) {
    const head = call.firstChild?.firstChild;
    const path = head ? target(file, head) : undefined;
    const v = path ? file.evalNode(a.positional[0], 0) : undefined;
    return path && v?.k === 'lit' && typeof v.v === 'string' ? { path, text: v.v } : undefined;
  }
  return undefined;
}

/** The path a file object is opened on for writing: `open("x.json", "w")`, or a `with open(...) as f:` name. */
function target(file: PythonFile, node: SyntaxNode): string | undefined {
  if (node.name === 'CallExpression') return openedForWriting(file, node);
  const opened = node.name === 'VariableName' ? withOpened(file, node) : undefined;
  return opened && openedForWriting(file, opened);
}

/** The call a `with <call> as name:` around `node` binds `name` to (`with open(path) as f:`), if any. */
export function withOpened(file: Pick<PythonFile, 'text'>, node: SyntaxNode): SyntaxNode | undefined {
  const name = file.text.slice(node.from, node.to);
  for (let p: SyntaxNode | null = node.parent; p; p = p.parent) {
    if (p.name !== 'WithStatement') continue;
    for (let ch = p.firstChild; ch; ch = ch.nextSibling) {
      const as = ch.nextSibling;
      const bound = as?.name === 'as' ? as.nextSibling : null;
      if (
        ch.name === 'CallExpression' &&
        bound?.name === 'VariableName' &&
        file.text.slice(bound.from, bound.to) === name
      )
        return ch;
    }
  }
  return undefined;
}

function openedForWriting(file: PythonFile, call: SyntaxNode): string | undefined {
  if (file.calleeName(call) !== 'open') return undefined;
  const a = file.args(call);
  const path = a.positional[0] ? file.evalNode(a.positional[0], 0) : undefined;
  const modeNode = a.positional[1] ?? a.entries.find((e) => e.rawKey === 'mode')?.valueNode;
  const mode = modeNode ? file.evalNode(modeNode, 0) : undefined;
  const writes = mode?.k === 'lit' && typeof mode.v === 'string' && /^w/.test(mode.v);
  return writes && path?.k === 'lit' && typeof path.v === 'string' ? path.v : undefined;
}

/** The text a `write_text` argument makes: `yaml.dump(x)` / `yaml.safe_dump(x)` / `json.dumps(x)`, or a string. */
function writtenText(file: PythonFile, node: SyntaxNode): string | undefined {
  if (node.name === 'CallExpression') {
    const dumps = /^(?:(yaml)\.(?:safe_)?dump|(json)\.dumps)$/.exec(file.calleeName(node) ?? '');
    const value = file.args(node).positional[0];
    if (dumps && value) return contents(file, value, dumps[1] ? 'yaml' : 'json');
  }
  const v = file.evalNode(node, 0);
  return v.k === 'lit' && typeof v.v === 'string' ? v.v : undefined;
}

/**
 * A launch's configs that the script or notebook writes itself before it runs them (a `%%writefile` cell, or a dict or
 * a string its Python dumps to the file): their text, which the pipeline reads in place of a file on disk.
 */
export function withWrittenConfigs(r: ConfigFacts, files: readonly WrittenFile[]): ConfigFacts {
  if (!r.references.some((x) => x.kind === 'config' || x.kind === 'deepspeed')) return r;
  const norm = (p: string): string => p.trim().replace(/^\.\//, '');
  const references = r.references.map((x) => {
    if (x.kind !== 'config' && x.kind !== 'deepspeed') return x;
    const hit = [...files].reverse().find((f) => norm(f.path) === norm(x.path));
    return hit ? { ...x, text: hit.text } : x;
  });
  return { ...r, references };
}

/** What json.dump / yaml.dump write of a value: a dict as JSON or YAML; `yaml.safe_load(s)` of a string as s. */
function contents(file: PythonFile, node: SyntaxNode, as: 'json' | 'yaml'): string | undefined {
  const v = file.evalNode(node, 0);
  if (v.k === 'call' && /^yaml\.(safe_)?load$/.test(v.callee)) {
    const arg = file.args(v.node).positional[0];
    const s = arg ? file.evalNode(arg, 0) : undefined;
    return s?.k === 'lit' && typeof s.v === 'string' ? s.v : undefined;
  }
  const obj = plain(file, v, 0);
  if (obj === undefined || typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  return as === 'json' ? JSON.stringify(obj, null, 2) : stringify(obj);
}

/** A value as plain data: literals, lists, and dicts whose values are known (those that are not are left out). */
function plain(file: PythonFile, v: Val, depth: number): unknown {
  if (v.k === 'lit') return v.v;
  if (v.k !== 'dict' || depth > MAX_DEPTH) return undefined;
  const o: Record<string, unknown> = {};
  for (const e of v.entries) {
    if (!e.valueNode || e.forced) continue;
    const x = plain(file, file.evalNode(e.valueNode, 0), depth + 1);
    if (x !== undefined) o[e.rawKey] = x;
  }
  return o;
}
