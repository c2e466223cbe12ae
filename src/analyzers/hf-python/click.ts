// A click command (`@click.command()` over `@click.option("--input-model", default=DEFAULT_INPUT_MODEL)`, as databricks'
// dolly runs its trainer): click calls the function with each option's value as the keyword argument of its name, so an
// option is an option of the script, its `default=` what runs when the launch line passes nothing. Names as click 8
// derives them (core.py Option._parse_decls): an identifier among the declarations is the parameter's name, else the
// longest-prefixed flag with `-` as `_`, lower-cased; `--x/--no-x` is a boolean flag, False unless given, as `is_flag`
// is. An argument (`@click.argument("model")`) is given by position: required unless it has a default. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import {
  type CommandOption,
  decoratorName,
  decoratorsOf,
  functionName,
  noteCommand,
  topLevelFunctions,
  trainingCommand,
} from './command-line';

/** `@click.command()`, `@command()` imported from click, and a group's `@cli.command()`. */
const COMMAND = /^(?:click\.)?command$|^\w+\.command$/;

/**
 * Notes the file's click command when it imports click: its one command, or of a group's several (the launch line
 * names the one it runs) the one that trains.
 */
export function noteClickCommand(file: PythonFile): void {
  if (!file.text.includes('click') || !/^\s*(?:import\s+click\b|from\s+click\s+import\b)/m.test(file.text)) return;
  const commands = topLevelFunctions(file).filter((f) =>
    decoratorsOf(f).some((d) => COMMAND.test(decoratorName(file, d))),
  );
  const def = commands.length === 1 ? commands[0] : trainingCommand(file, commands);
  if (!def) return;
  const fn = functionName(file, def);
  if (!fn) return;
  const options: CommandOption[] = [];
  for (const d of decoratorsOf(def)) {
    const name = decoratorName(file, d);
    if (/^(?:click\.)?option$/.test(name)) pushOption(file, d, false, options);
    else if (/^(?:click\.)?argument$/.test(name)) pushOption(file, d, true, options);
  }
  noteCommand(file, { kind: 'click', fn, how: `@click.command() ${fn}`, callsRunCommand: true }, options);
}

/** One `@click.option(...)` or `@click.argument(...)`: its parameter, flag and default. */
function pushOption(file: PythonFile, d: SyntaxNode, argument: boolean, out: CommandOption[]): void {
  const a = file.args(d);
  const decls: { text: string; node: SyntaxNode }[] = [];
  for (const p of a.positional) {
    const v = file.evalNode(p, 0);
    if (v.k === 'lit' && typeof v.v === 'string') decls.push({ text: v.v, node: p });
  }
  const named = argument ? argumentName(decls) : optionName(decls);
  if (!named) return;
  const kw = (k: string): SyntaxNode | undefined => a.entries.find((e) => e.rawKey === k)?.valueNode ?? undefined;
  const truthy = (k: string): boolean => {
    const n = kw(k);
    const v = n ? file.evalNode(n, 0) : undefined;
    return v?.k === 'lit' && v.v === true;
  };
  const def = kw('default');
  // Many values (`multiple=True`, `nargs`) are a tuple the estimate does not take.
  if (truthy('multiple') || kw('nargs')) return;
  const flag = !argument && (truthy('is_flag') || named.off !== undefined);
  const requiredKw = kw('required');
  const required = def === undefined && !flag && (requiredKw ? truthy('required') : argument);
  const typeText = kw('type') ? file.text.slice(kw('type')!.from, kw('type')!.to) : '';
  const type = typeText === 'int' ? 'int' : typeText === 'float' ? 'float' : undefined;
  out.push({
    param: named.param,
    flag: argument ? undefined : named.flag,
    def,
    ...(def === undefined && flag ? { lit: false } : {}),
    required,
    at: named.at,
    ...(type ? { type } : {}),
    ...(named.off !== undefined ? { offFlag: named.off } : {}),
  });
}

/**
 * An option's parameter name and flag: an identifier declaration names the parameter; the flag is the one with the
 * longest prefix (`--` before `-`), the first of those; `--x/--no-x` declares the off flag `no-x`.
 */
function optionName(
  decls: readonly { text: string; node: SyntaxNode }[],
): { param: string; flag: string; at: SyntaxNode; off?: string } | undefined {
  let param: string | undefined;
  let off: string | undefined;
  const flags: { text: string; node: SyntaxNode }[] = [];
  for (const d of decls) {
    if (/^[A-Za-z_]\w*$/.test(d.text)) {
      param = d.text;
      continue;
    }
    const [first, second] = d.text.split('/', 2);
    if (second !== undefined) off = second.trim().replace(/^-+/, '');
    if (first.trim().startsWith('-')) flags.push({ text: first.trim(), node: d.node });
  }
  const prefix = (s: string): number => /^-*/.exec(s)![0].length;
  const best = [...flags].sort((x, y) => prefix(y.text) - prefix(x.text))[0];
  if (!best) return undefined;
  const flag = best.text.replace(/^-+/, '');
  return { param: param ?? flag.replace(/-/g, '_').toLowerCase(), flag, at: best.node, ...(off ? { off } : {}) };
}

function argumentName(
  decls: readonly { text: string; node: SyntaxNode }[],
): { param: string; flag: string; at: SyntaxNode; off?: string } | undefined {
  const d = decls[0];
  if (!d) return undefined;
  return { param: d.text.replace(/-/g, '_').toLowerCase(), flag: d.text, at: d.node };
}
