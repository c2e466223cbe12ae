// A function a script hands to a dataset's `.map(` (`raw.map(tokenize, batched=True)`, `.map(function=tokenize)`):
// datasets calls it in the script's process with the batch alone (and `fn_kwargs`' keywords). Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';

/** The function a `.map(` call is handed, as written; undefined for any other call. */
export function mappedFunction(file: PythonFile, call: SyntaxNode): SyntaxNode | undefined {
  if (!/\.map$/.test(file.calleeName(call) ?? '')) return undefined;
  const args = file.args(call);
  return args.entries.find((e) => e.rawKey === 'function')?.valueNode ?? args.positional[0] ?? undefined;
}
