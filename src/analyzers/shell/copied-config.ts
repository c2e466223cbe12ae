// `cp recipes/config_full.yaml "$new_config_file"`, then `train.py "$new_config_file"` (ZIYU-DEEP/eva
// scripts/llama-8b/train.sh): the launch reads a copy made by the script, under a name the script builds at run time.
// The copy holds the source's text, so the variable is read as the source's path from the cp line on. Only a
// config file copied to a variable naming a file of the same kind counts: a copy into a folder (`cp a.yaml "$OUT"`)
// leaves the folder's variable as it is. Pure.
import type { WordTok } from './lexer';
import { fieldsOf } from './expand';
import type { Env, VarVal } from './fields';

/** A config file's kind by its name. */
const CONFIG_FILE = /\.(ya?ml|json|toml)$/i;

/**
 * The variable a `cp` command's destination is, and its value from then on: the source's path. Undefined for any other
 * copy (an option other than -f, -v, -p, -a, -i, -u, several sources, a source not known statically).
 */
export function copiedConfig(
  text: string,
  operands: readonly WordTok[],
  env: Env,
): { readonly name: string; readonly value: VarVal } | undefined {
  const options = operands.filter((w) => text[w.start] === '-');
  if (options.some((w) => !/^-[fvpaiu]+$/.test(text.slice(w.start, w.end)))) return undefined;
  const words = operands.filter((w) => !options.includes(w));
  if (words.length !== 2) return undefined;
  const name = /^"?\$\{?(\w+)\}?"?$/.exec(text.slice(words[1].start, words[1].end))?.[1];
  const [source] = fieldsOf(text, [words[0]], env);
  if (!name || !source || source.unknown !== undefined || source.opaque) return undefined;
  const extension = CONFIG_FILE.exec(source.text)?.[1]?.toLowerCase();
  const old = env.get(name);
  const destination = old?.pieces.map((p) => p.text).join('') ?? '';
  if (!extension || CONFIG_FILE.exec(destination)?.[1]?.toLowerCase() !== extension) return undefined;
  const pieces = source.pieces.map((p) => ({ ...p, split: false }));
  return {
    name,
    value: { pieces, exported: old?.exported ?? false, nameSpan: old?.nameSpan, valueSpan: source.span },
  };
}
