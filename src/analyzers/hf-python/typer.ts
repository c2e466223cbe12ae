// A typer command: `typer.run(main)`, or one `@app.command()` of `app = typer.Typer()`. typer makes each parameter of
// the function an option or an argument (typer main.py get_click_param): one with a default is an option `--name` with
// `_` as `-` (a `typer.Option(default, "--flag", ...)` default gives its default and flags, `...` for required), one
// without is an argument given by position, as is a `typer.Argument(...)` default; `Annotated[str, typer.Option(...)]`
// keeps the default after `=`. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import {
  type CommandOption,
  decoratorName,
  decoratorsOf,
  functionName,
  noteCommand,
  topLevelFunction,
  topLevelFunctions,
  trainingCommand,
} from './command-line';
import { parameters, type Parameter } from './syntax';

/**
 * Notes the function typer runs: the function of a module-level `typer.run(f)`, else the file's one `@x.command()`
 * where x is made by `typer.Typer(...)`, or of several the one that trains. A file that does not import typer is left
 * alone.
 */
export function noteTyperCommand(file: PythonFile, calls: readonly SyntaxNode[]): void {
  if (!file.text.includes('typer') || !/^\s*(?:import\s+typer\b|from\s+typer\s+import\b)/m.test(file.text)) return;
  const run = calls.find((c) => /^(?:typer\.)?run$/.test(file.calleeName(c) ?? ''));
  const first = run ? file.args(run).positional[0] : undefined;
  let def = first?.name === 'VariableName' ? topLevelFunction(file, file.text.slice(first.from, first.to)) : undefined;
  let how = def ? `typer.run(${functionName(file, def)})` : '';
  if (!def) {
    const apps = new Set(
      calls
        .filter((c) => /^(?:typer\.)?Typer$/.test(file.calleeName(c) ?? ''))
        .map((c) => assignedTo(file, c))
        .filter((n) => n !== undefined),
    );
    const commands = topLevelFunctions(file).filter((f) =>
      decoratorsOf(f).some((d) => {
        const name = decoratorName(file, d);
        return name.endsWith('.command') && apps.has(name.slice(0, -'.command'.length));
      }),
    );
    def = commands.length === 1 ? commands[0] : trainingCommand(file, commands);
    if (!def) return;
    how = `@app.command() ${functionName(file, def)}`;
  }
  const fn = functionName(file, def);
  if (!fn) return;
  const options = parameters(file.text, def.getChild('ParamList'))
    .filter((p) => !(p.nameNode.prevSibling?.name === '*' || p.nameNode.prevSibling?.name === '**'))
    .map((p) => typerOption(file, p));
  noteCommand(file, { kind: 'typer', fn, how, callsRunCommand: true }, options);
}

/** The name a call is assigned to (`app = typer.Typer(...)`: `app`). */
function assignedTo(file: PythonFile, call: SyntaxNode): string | undefined {
  const st = call.parent;
  if (st?.name !== 'AssignStatement' || st.firstChild?.name !== 'VariableName') return undefined;
  return file.text.slice(st.firstChild.from, st.firstChild.to);
}

/** A parameter as typer reads it: its default (or a typer.Option / Argument's), its flag, and whether it is required. */
function typerOption(file: PythonFile, p: Parameter): CommandOption {
  const flagOf = (decls: readonly string[]): string =>
    (decls.find((d) => d.startsWith('--')) ?? `--${p.name.replace(/_/g, '-')}`).split('/')[0].replace(/^-+/, '');
  const declared = (p.def ? typerCall(file, p.def) : undefined) ?? annotatedCall(file, p);
  if (p.def && declared && p.def === declared.call) {
    // `x: str = typer.Option("gpt2", "--model")`: the call's first argument is the default (`...`: required).
    const a = file.args(declared.call);
    const first = a.entries.find((e) => e.rawKey === 'default')?.valueNode ?? a.positional[0];
    const decls = a.positional.slice(1).flatMap((n) => stringValue(file, n));
    const required = !first || first.name === 'Ellipsis';
    const flag = declared.argument ? undefined : flagOf(decls);
    const def = required ? undefined : first;
    return { param: p.name, flag, def, required, at: p.nameNode, ...offFlag(file, flag, def) };
  }
  const argument = !p.def || declared?.argument === true;
  const decls = declared ? file.args(declared.call).positional.flatMap((n) => stringValue(file, n)) : [];
  const flag = argument ? undefined : flagOf(decls);
  const def = p.def ?? undefined;
  return { param: p.name, flag, def, required: !p.def, at: p.nameNode, ...offFlag(file, flag, def) };
}

/** A bool option's `--no-x`, which typer adds to `--x` (a default of True or False). */
function offFlag(file: PythonFile, flag: string | undefined, def: SyntaxNode | undefined): { offFlag?: string } {
  const text = def ? file.text.slice(def.from, def.to) : '';
  return flag !== undefined && (text === 'True' || text === 'False') ? { offFlag: `no-${flag}` } : {};
}

/** `typer.Option(...)` / `typer.Argument(...)` (or imported bare), and which. */
function typerCall(file: PythonFile, n: SyntaxNode): { call: SyntaxNode; argument: boolean } | undefined {
  if (n.name !== 'CallExpression') return undefined;
  const callee = file.calleeName(n) ?? '';
  if (/^(?:typer\.)?Option$/.test(callee)) return { call: n, argument: false };
  if (/^(?:typer\.)?Argument$/.test(callee)) return { call: n, argument: true };
  return undefined;
}

/** The typer.Option / Argument inside a parameter's `Annotated[...]` type. */
function annotatedCall(file: PythonFile, p: Parameter): { call: SyntaxNode; argument: boolean } | undefined {
  const type = p.nameNode.nextSibling?.name === 'TypeDef' ? p.nameNode.nextSibling : null;
  const expr = type?.lastChild;
  if (!expr || !/^Annotated\b|^typing\.Annotated\b/.test(file.text.slice(expr.from, expr.to))) return undefined;
  for (let ch = expr.firstChild; ch; ch = ch.nextSibling) {
    const hit = typerCall(file, ch);
    if (hit) return hit;
  }
  return undefined;
}

function stringValue(file: PythonFile, n: SyntaxNode): string[] {
  const v = file.evalNode(n, 0);
  return v.k === 'lit' && typeof v.v === 'string' ? [v.v] : [];
}
