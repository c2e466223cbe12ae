// A script whose command line is a function's parameters: Python Fire (`fire.Fire(train)`, fire.ts), a click command
// (`@click.command()` with `@click.option(...)`, click.ts) or a typer command (`typer.run(main)`, `@app.command()`,
// typer.ts). Each option of the command is an option of the script, as an argparse option is: its default is what runs
// when the launch line passes nothing, and the launch line's `--flag` replaces it. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { noteDefault } from './script-defaults';
import { span } from './syntax';
import { trainingFunctions } from '../trains';

export interface CommandEntry {
  /** The library that reads the command line into the function's parameters. */
  readonly kind: 'fire' | 'click' | 'typer';
  /** The function the command line calls. */
  readonly fn: string;
  /** How the script makes it the command, for messages: `fire.Fire(train)`, `@click.command() main`. */
  readonly how: string;
  /** Each option's flag on the command line, without its dashes (`input-model`), by parameter name. */
  readonly flags: ReadonlyMap<string, string>;
  /**
   * The parameters the command line's positional words fill, in order: a click or typer command's arguments; every
   * parameter of Fire's function (Fire takes each by position or by its flag).
   */
  readonly positional: readonly string[];
  /**
   * Whether a call of the function in the file runs the command (a click or typer command reads the command line when
   * `main()` is called); Fire's function is an ordinary function where the file calls it.
   */
  readonly callsRunCommand: boolean;
}

/** One option of a command, as its decorator or parameter declares it. */
export interface CommandOption {
  readonly param: string;
  /** The flag without dashes; undefined for a positional argument. */
  readonly flag: string | undefined;
  /** The default as written, or undefined when the declaration gives none. */
  readonly def: SyntaxNode | undefined;
  /** The value without a default node (a flag's False). */
  readonly lit?: boolean;
  readonly required: boolean;
  /** Where the option is declared (its flag's string, or the parameter's name). */
  readonly at: SyntaxNode;
  /** click `type=int` / `type=float`: a string default is converted. */
  readonly type?: 'int' | 'float';
  /** A boolean flag's off flag without dashes (`no-x` of click's `--x/--no-x`, typer's bool options). */
  readonly offFlag?: string;
}

/** Records the command and its options: a default as a script default, an option without one as required. */
export function noteCommand(
  file: PythonFile,
  entry: Omit<CommandEntry, 'flags' | 'positional'>,
  options: readonly CommandOption[],
): void {
  const flags = new Map<string, string>();
  for (const o of options) {
    // An argument (no flag) is given by position.
    if (o.flag !== undefined) flags.set(o.param, o.flag);
    if (o.required) {
      file.requiredOptions.add(o.param);
      continue;
    }
    if (!o.def && o.lit === undefined) continue;
    const kind = { fire: entry.how, click: 'click.option', typer: 'typer.Option' }[entry.kind];
    noteDefault(file, o.param, {
      node: o.def ?? null,
      ...(o.lit !== undefined ? { lit: o.lit } : {}),
      keySpan: span(o.at),
      valueSpan: span(o.def ?? o.at),
      where:
        o.flag !== undefined ? `${kind} default of --${o.flag}` : `default of the argument ${o.param} (${entry.how})`,
      ...(o.type ? { type: o.type } : {}),
      ...(o.offFlag !== undefined ? { offFlag: o.offFlag } : {}),
    });
  }
  const positional = options.filter((o) => entry.kind === 'fire' || o.flag === undefined).map((o) => o.param);
  file.commandEntry = { ...entry, flags, positional };
}

/** A function defined at the top of the module, decorated or not, or in a top-level `if` block. */
export function topLevelFunction(file: PythonFile, name: string): SyntaxNode | undefined {
  return topLevelFunctions(file).find((f) => functionName(file, f) === name);
}

/** The functions defined at the top of the module (and in its top-level `if` blocks), decorated ones included. */
export function topLevelFunctions(file: PythonFile): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const inBlock = (block: SyntaxNode): void => {
    for (let st = block.firstChild; st; st = st.nextSibling) {
      if (st.name === 'FunctionDefinition') out.push(st);
      else if (st.name === 'DecoratedStatement') {
        const def = st.getChild('FunctionDefinition');
        if (def) out.push(def);
      } else if (st.name === 'IfStatement') {
        const body = st.getChild('Body');
        if (body) inBlock(body);
      }
    }
  };
  inBlock(file.root);
  return out;
}

export function functionName(file: PythonFile, def: SyntaxNode): string | undefined {
  const n = def.getChild('VariableName');
  return n ? file.text.slice(n.from, n.to) : undefined;
}

/** The decorators of a function, outermost first. */
export function decoratorsOf(def: SyntaxNode): SyntaxNode[] {
  return def.parent?.name === 'DecoratedStatement' ? def.parent.getChildren('Decorator') : [];
}

/** A decorator's dotted name (`click.option`), without its arguments. */
export function decoratorName(file: PythonFile, d: SyntaxNode): string {
  const end = d.getChild('ArgList')?.from ?? d.to;
  return file.text.slice(d.from, end).replace(/^@/, '').replace(/\s+/g, '');
}

/**
 * Of several commands of one application (`@app.command()` on generate_data, eval and train), the one that trains:
 * its body trains, or calls a function of the file that does (RobotSail/mini-grpo's `train` steps through
 * train_policy_on_rollouts). Undefined unless exactly one does.
 */
export function trainingCommand(file: PythonFile, commands: readonly SyntaxNode[]): SyntaxNode | undefined {
  const functions = topLevelFunctions(file).flatMap((f) => {
    const name = functionName(file, f);
    const body = f.getChild('Body');
    return name && body ? [{ name, body: file.text.slice(body.from, body.to) }] : [];
  });
  const trains = trainingFunctions(functions);
  const found = commands.filter((c) => trains.has(functionName(file, c) ?? ''));
  return found.length === 1 ? found[0] : undefined;
}
