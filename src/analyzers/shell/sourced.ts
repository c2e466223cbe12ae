// `source file.sh` / `. ./file.sh`: a file whose commands run in this shell, the variables it sets set here from that
// line on (princeton-nlp/LESS: `source less/scripts/train/base_training_args.sh` gives the flags its launch line
// expands). The analyzer reads no file: the pipeline reads the sourced file's variables (variablesOf, index.ts) and
// reads the script again with them. Pure: no I/O, no node:* and no 'vscode'.
import type { Reference, Span } from '../facts';
import type { Env, Field } from './fields';
import { exportedValues } from './called-script';

/** A variable a sourced file leaves set: its value's parts, each a text or a part not known statically and why. */
export interface SourcedVariable {
  readonly name: string;
  readonly parts: readonly { readonly text: string; readonly unknown?: string }[];
  readonly exported: boolean;
}

/** The variables each sourced file leaves set, by the path the script writes. */
export type SourcedVariables = ReadonlyMap<string, readonly SourcedVariable[]>;

/** Sets the variables of a sourced file in `env`, each read at the `source` line (`site`) of this script. */
export function applySourced(env: Env, variables: readonly SourcedVariable[], site: Span): void {
  for (const v of variables) {
    const prior = env.get(v.name);
    env.set(v.name, {
      pieces: v.parts.map((p) => ({ ...p, start: site.start, end: site.end, exact: false, expanded: true })),
      exported: v.exported || (prior?.exported ?? false),
      valueSpan: site,
    });
  }
}

/**
 * `source file.sh`: its reference, with the variables set so far, which a launch the file runs sees (it runs in this
 * shell); the file's variables set in `env` from here on, where the pipeline read them. Undefined where the path is not
 * known statically.
 */
export function sourceFile(
  path: Field | undefined,
  args: readonly Field[],
  env: Env,
  sourced: SourcedVariables | undefined,
): Reference | undefined {
  if (!path || path.unknown !== undefined || path.opaque) return undefined;
  // `source train.sh a b` runs the file with a and b as its positional parameters (none given: they are unknown here).
  const words = args.map((f) => (f.unknown === undefined && !f.opaque ? f.text : null));
  const shell = { words, exported: exportedValues(env, true) };
  const variables = sourced?.get(path.text);
  const ref: Reference = { kind: 'sourced', path: path.text, span: path.span, shell };
  if (variables) applySourced(env, variables, path.span);
  return ref;
}
