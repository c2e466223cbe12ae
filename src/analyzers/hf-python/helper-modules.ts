// The helper modules a training script imports from beside itself and calls into: PEFT's examples/sft/train.py
// builds its model, BitsAndBytesConfig and LoraConfig in `utils.create_and_prepare_model(model_args, ...)`, so what
// runs is written in utils.py and decided by train.py's options. Each such import is a `module` reference; the
// pipeline reads the module when it is a file beside the script, with the script's options as the run has them
// (PythonFile.inherited). Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { span } from './syntax';

/** Top-level packages that are never a file of the project: no read is tried for them. */
const PACKAGES = new Set([
  'accelerate',
  'argparse',
  'bitsandbytes',
  'collections',
  'dataclasses',
  'datasets',
  'deepspeed',
  'functools',
  'json',
  'logging',
  'math',
  'numpy',
  'os',
  'peft',
  'random',
  're',
  'sys',
  'time',
  'torch',
  'transformers',
  'trl',
  'typing',
  'unsloth',
  'wandb',
  '__future__',
]);

/** At most this many modules are followed from one file. */
const MAX_MODULES = 8;

/** One import statement: the module it names (dots for a relative one) and the local names it binds. */
interface Imported {
  readonly module: string;
  readonly node: SyntaxNode;
  readonly names: readonly string[];
}

/** `from utils import a, b as c` / `import pkg.helpers as h` / `from .helpers import f`, read from the tree. */
function importOf(file: PythonFile, st: SyntaxNode): Imported | undefined {
  const first = st.firstChild;
  if (!first) return undefined;
  const parts: string[] = [];
  const names: string[] = [];
  let node: SyntaxNode | undefined;
  let ch: SyntaxNode | null = first.nextSibling;
  // The module path: names and dots up to `import` (for `from`) or to `as` / `,` / the end (for `import`).
  for (; ch && ch.name !== 'import' && ch.name !== 'as' && ch.name !== ','; ch = ch.nextSibling) {
    if (ch.name !== 'VariableName' && ch.name !== '.') return undefined;
    node ??= ch;
    parts.push(file.text.slice(ch.from, ch.to));
  }
  if (!node) return undefined;
  if (first.name === 'import') {
    const module = parts.join('');
    if (ch?.name === 'as' && ch.nextSibling?.name === 'VariableName')
      names.push(file.text.slice(ch.nextSibling.from, ch.nextSibling.to));
    else names.push(parts[0]);
    return { module, node, names };
  }
  for (ch = ch?.nextSibling ?? null; ch; ch = ch.nextSibling) {
    if (ch.name !== 'VariableName') continue;
    const alias = ch.nextSibling?.name === 'as' ? ch.nextSibling.nextSibling : null;
    names.push(file.text.slice((alias ?? ch).from, (alias ?? ch).to));
    if (alias) ch = alias;
  }
  return { module: parts.join(''), node, names };
}

/**
 * The file a module path names, relative to the importing file: `utils` -> utils.py, `pkg.a` -> pkg/a.py (an absolute
 * import, found beside the file or from a folder above it, as a project run from its root has it on sys.path), `.a.b`
 * -> ./a/b.py and `..a` -> ../a.py (relative imports: the package's own folders only).
 */
function modulePath(module: string): string | undefined {
  const m = /^(\.*)([\w.]*)$/.exec(module);
  if (!m || m[2] === '' || m[2].endsWith('.')) return undefined;
  const dots = m[1].length;
  const up = dots === 0 ? '' : dots === 1 ? './' : '../'.repeat(dots - 1);
  return `${up}${m[2].split('.').join('/')}.py`;
}

/**
 * The helper modules of a script: the imports from which it calls a name (`create_and_prepare_model(...)`,
 * `helpers.load(...)`), as `module` references, the known packages left out.
 */
export function helperModules(file: PythonFile, imports: readonly SyntaxNode[]): void {
  const called = new Set<string>();
  for (const c of file.calls) {
    const callee = file.calleeName(c);
    if (callee) called.add(callee.split('.')[0]);
  }
  let n = 0;
  for (const st of imports) {
    const imp = importOf(file, st);
    if (!imp || PACKAGES.has(imp.module.replace(/^\.+/, '').split('.')[0])) continue;
    if (!imp.names.some((x) => called.has(x))) continue;
    const path = modulePath(imp.module);
    if (!path || n++ >= MAX_MODULES) continue;
    file.references.push({ kind: 'module', path, span: span(imp.node) });
  }
}
