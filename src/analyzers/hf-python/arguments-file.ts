// The file an HfArgumentParser reads its dataclasses from: `parser.parse_yaml_file(yaml_file="training_configs/
// mistral-7b-base-dpo.yaml")` (or parse_json_file) of a path known statically is a config of the run, as a launch
// line's is. Of a script's option (`parse_yaml_file(args.config)`, jonathanlu31/final_project's run_dpo.py;
// `parse_json_file(json_file=train_args_file)` of `train_args_file = args.train_args_file`, yangjianxin1/Firefly's
// train.py), the file the launch line names, else the option's default: its keys fill the dataclasses as TrlParser's
// config file's do (the launch line's own flags come after them, collect/reading.ts), and the launcher, which names
// the file from where it runs, finds it. Pure.
import type { SyntaxNode } from '@lezer/common';
import { CONFIG_OPTION } from '../config-arguments';
import type { PythonFile } from './file';
import { span } from './syntax';

/** Notes the file a parse_yaml_file / parse_json_file / parse_yaml_and_args call reads. */
export function noteArgumentsFile(file: PythonFile, call: SyntaxNode): void {
  const a = file.args(call);
  const arg = a.positional[0] ?? a.entries.find((e) => e.rawKey === 'yaml_file' || e.rawKey === 'json_file')?.valueNode;
  if (!arg) return;
  const option = optionRead(file, arg);
  const v = file.evalNode(arg, 0);
  const named = v.k === 'lit' && typeof v.v === 'string' && /\.(ya?ml|json)$/i.test(v.v) ? v.v : undefined;
  const launched = v.k === 'lit' && v.dflt !== undefined && / on the launch line$/.test(v.dflt.where);
  const path = named !== undefined && !launched ? named : undefined;
  if (option) file.readsConfigOption = { option, ...(path !== undefined ? { path } : {}) };
  // A launch line's `--config` is a reference of the launcher (shell/launch.ts); another option's file is the script's.
  if (named !== undefined && (!launched || option !== CONFIG_OPTION))
    file.references.push({ kind: 'config', path: named, span: span(arg) });
}

/**
 * The script's option whose value the call reads: `args.x` of an option x of the script, or a name assigned once from
 * one (`train_args_file = args.train_args_file`); `config` for the script's first positional word (`sys.argv[1]`,
 * also inside `os.path.abspath(...)`: alignment-handbook's `parse_yaml_and_args(os.path.abspath(sys.argv[1]), ...)`),
 * which the launch line gives where it names no `--config`. Else undefined.
 */
function optionRead(file: PythonFile, arg: SyntaxNode): string | undefined {
  const text = file.text.slice(arg.from, arg.to).replace(/\s+/g, '');
  if (/^(os\.path\.abspath\()?sys\.argv\[1\]\)?$/.test(text)) return CONFIG_OPTION;
  const value = arg.name === 'VariableName' ? soleAssignedValue(file, text) : text;
  const m = value === undefined ? null : /^\w+\.(\w+)$/.exec(value);
  if (!m) return undefined;
  const isOption = m[1] === CONFIG_OPTION || file.scriptDefaults.has(m[1]) || file.requiredOptions.has(m[1]);
  return isOption ? m[1] : undefined;
}

/** The text (spaces removed) of the one value a name is assigned in the file; undefined where it is assigned otherwise. */
function soleAssignedValue(file: PythonFile, name: string): string | undefined {
  const values: string[] = [];
  file.root.cursor().iterate((n) => {
    if (n.name !== 'AssignStatement') return;
    const target = n.node.firstChild;
    if (target?.name === 'VariableName' && file.text.slice(target.from, target.to) === name) {
      const value = n.node.lastChild;
      values.push(value ? file.text.slice(value.from, value.to).replace(/\s+/g, '') : '');
    }
  });
  return values.length === 1 ? values[0] : undefined;
}
