// The parsed command line as a dict: `args = vars(parser.parse_args())`, then `args["model_path"]`; also through a
// function that takes it as its keywords, `main(**vars(args))` or `args = vars(args)` then `main(**args)` with
// `def main(**args)` (yxuansu/OpenAlpaca's train_sft.py). `args["x"]` is option x as `args.x` reads it: its default,
// or the launch line's value. Pure; never throws on user text.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Scope, Val } from './file';
import { calledAs } from './attributes';
import { memberValue, parsedOption, parsesCommandLine } from './script-defaults';
import { isKeywordsParameter, parameters } from './syntax';

/** `name[key]` read at `use` where `name` is the parsed command line as a dict; undefined otherwise. */
export function parsedArgsItem(file: PythonFile, obj: SyntaxNode, key: string, depth: number): Val | undefined {
  if (obj.name !== 'VariableName' || !/^\w+$/.test(key)) return undefined;
  const name = file.text.slice(obj.from, obj.to);
  // An item the function sets on it before (`args['ds_config_path'] = f'dsconfig/{args["model"]}.json'`).
  const found = file.lookup(name, obj);
  const scope = found.k === 'binding' ? found.scope : found.param?.scope;
  const set = scope?.items.get(name)?.filter((i) => i.key === key && i.pos < obj.from && i.condLine === undefined);
  if (set?.length) return file.evalNode(set[set.length - 1].valueNode, depth + 1);
  const parsed = varsArgument(file, name, obj, 0);
  if (!parsed) return undefined;
  // `vars(parser.parse_args())`: the option itself; `vars(args)`: as `args.x` reads it.
  if (parsed.name !== 'VariableName') return parsedOption(file, key, obj, depth + 1);
  return memberValue(file, `${file.text.slice(parsed.from, parsed.to)}.${key}`, parsed, depth + 1);
}

/** What `vars(...)` is called on (a name, or the parsing call itself), for a name bound to that call or a `**` parameter its one call fills with it. */
function varsArgument(file: PythonFile, name: string, at: SyntaxNode, hops: number): SyntaxNode | undefined {
  if (hops > 3) return undefined;
  const found = file.lookup(name, at);
  const value =
    found.k === 'binding'
      ? found.binding.kind === 'assign'
        ? found.binding.valueNode
        : null
      : found.param
        ? keywordsSpread(file, found.param.scope, found.param.name)
        : null;
  if (value?.name === 'VariableName') return varsArgument(file, file.text.slice(value.from, value.to), value, hops + 1);
  if (value?.name !== 'CallExpression' || file.calleeName(value) !== 'vars') return undefined;
  const a = file.args(value);
  const inner = a.positional.length === 1 && a.entries.length === 0 ? a.positional[0] : undefined;
  return inner?.name === 'VariableName' || parsesCommandLine(file, inner) ? inner : undefined;
}

/** What the one call of a function spreads into its `**name` parameter (`main(**args)`: `args`). */
function keywordsSpread(file: PythonFile, scope: Scope, name: string): SyntaxNode | null {
  const fn = scope.node.name === 'FunctionDefinition' ? scope.node : null;
  const param = parameters(file.text, fn?.getChild('ParamList') ?? null).find((p) => p.name === name);
  if (!param || !isKeywordsParameter(param)) return null;
  const calls = file.callsNamed(calledAs(file, scope));
  if (calls.length !== 1) return null;
  let spread: SyntaxNode | null = null;
  for (let c = calls[0].getChild('ArgList')?.firstChild ?? null; c; c = c.nextSibling)
    if (c.name === '**') {
      if (spread) return null;
      spread = c.nextSibling;
    }
  return spread;
}
