// A script whose command line is a function's parameters: `fire.Fire(train)` (Python Fire, as Alpaca-LoRA and its many
// descendants run). Fire calls `train` with the command line's `--name value` pairs as keyword arguments, so each
// parameter with a default is an option of the script, as an argparse option is: its default is what runs when the
// launch line passes nothing, and a launch line's `--name` replaces it. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { type CommandOption, noteCommand, topLevelFunction } from './command-line';
import { parameters } from './syntax';

/** The callee names of Fire's entry point (`import fire` then `fire.Fire(f)`, or `from fire import Fire`). */
const FIRE_CALLEES = new Set(['fire.Fire', 'Fire']);

/**
 * Notes the function a module-level `fire.Fire(f)` runs (PythonFile.commandEntry), and each of its parameters as an
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
  const options: CommandOption[] = [];
  for (const p of parameters(file.text, def.getChild('ParamList'))) {
    if (p.starred) break;
    // No default: Fire refuses to run without `--name`, which only the launch line gives.
    options.push({ param: p.name, flag: p.name, def: p.def ?? undefined, required: !p.def, at: p.nameNode });
  }
  noteCommand(file, { kind: 'fire', fn: name, how: `fire.Fire(${name})`, callsRunCommand: false }, options);
}
