// A script whose command line is a function's parameters: `fire.Fire(train)` (Python Fire, as Alpaca-LoRA and its many
// descendants run). Fire calls `train` with the command line's `--name value` pairs as keyword arguments, so each
// parameter with a default is an option of the script, as an argparse option is: its default is what runs when the
// launch line passes nothing, and a launch line's `--name` replaces it. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { noteDefault } from './script-defaults';
import { parameters, span } from './syntax';

/** The callee names of Fire's entry point (`import fire` then `fire.Fire(f)`, or `from fire import Fire`). */
const FIRE_CALLEES = new Set(['fire.Fire', 'Fire']);

/**
 * Notes the function a module-level `fire.Fire(f)` runs (PythonFile.fireEntry), and each of its parameters as an
 * option of the script: one with a default as a script default, one without as a required option. `fire.Fire()`
 * (every function of the module) and `fire.Fire(obj)` of a class or a dict name no single function and are left alone.
 */
export function noteFireEntry(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const fire = calls.find((c) => FIRE_CALLEES.has(file.calleeName(c) ?? ''));
  if (!fire) return;
  const first = file.args(fire).positional[0];
  if (first?.name !== 'VariableName') return;
  const name = file.text.slice(first.from, first.to);
  const def = topLevelFunction(file, name);
  if (!def) return;
  file.fireEntry = name;
  for (const p of parameters(file.text, def.getChild('ParamList'))) {
    if (p.starred) break;
    // No default: Fire refuses to run without `--name`, which only the launch line gives.
    if (!p.def) file.requiredOptions.add(p.name);
    else
      noteDefault(file, p.name, {
        node: p.def,
        keySpan: span(p.nameNode),
        valueSpan: span(p.def),
        where: `fire.Fire(${name}) default of --${p.name}`,
      });
  }
}

/** A function defined at the top of the module (or in a top-level `if` block). */
function topLevelFunction(file: PythonFile, name: string): SyntaxNode | undefined {
  const inBlock = (block: SyntaxNode): SyntaxNode | undefined => {
    for (let st = block.firstChild; st; st = st.nextSibling) {
      if (st.name === 'FunctionDefinition') {
        const n = st.getChild('VariableName');
        if (n && file.text.slice(n.from, n.to) === name) return st;
      } else if (st.name === 'IfStatement') {
        const body = st.getChild('Body');
        const hit = body ? inBlock(body) : undefined;
        if (hit) return hit;
      }
    }
    return undefined;
  };
  return inBlock(file.root);
}
