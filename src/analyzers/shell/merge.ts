// Joining the variables of the branches of an `if`, a `case` or a loop where they meet again. Pure: no I/O.
import { type VarVal, type Env, type Piece, unknownOf, textOf, isScriptArgument, quotedValue } from './fields';
import { layer, changedSince } from './layers';

/** At most this many values per branch-set variable are tried. */
export const MAX_CHOICES = 6;

function sameValue(a: VarVal | undefined, b: VarVal | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    unknownOf(a.pieces) === undefined && unknownOf(b.pieces) === undefined && textOf(a.pieces) === textOf(b.pieces)
  );
}

export function mergeEnvs(envs: readonly Env[], line: number, what: string, base?: Env): Env {
  // Only the names some branch changed are merged. Branches are layers over the snapshot taken where they start
  // (layer()), so the changed names are the layers' own keys; every other name is the snapshot's. Copying and
  // comparing every variable at each `if` / `fi` made a script with many variables and many if-blocks quadratic.
  const layered = base ? envs.map((e) => changedSince(e, base)) : [];
  let out: Env;
  const names = new Set<string>();
  if (base && layered.every((x) => x !== undefined)) {
    out = layer(base);
    for (const x of layered) for (const n of x!) names.add(n);
  } else {
    out = new Map(envs[0]);
    for (const e of envs) for (const k of e.keys()) names.add(k);
    for (const k of envs[0].keys()) names.add(k);
  }
  for (const name of names) {
    const vals = envs.map((e) => e.get(name));
    const first = vals[0];
    if (vals.every((v) => v === first)) {
      if (first) out.set(name, first);
      else out.delete(name);
      continue;
    }
    if (
      first &&
      vals.every((v) => v && unknownOf(v.pieces) === undefined && textOf(v.pieces) === textOf(first.pieces))
    ) {
      out.set(name, first);
      continue;
    }
    const described = [
      ...new Set(
        vals.map((v) => {
          if (!v) return 'unset';
          const u = unknownOf(v.pieces);
          if (u !== undefined) return u.length <= 60 ? u : 'unknown';
          return quotedValue(v.pieces);
        }),
      ),
    ];
    const last = [...vals].reverse().find((v) => v !== undefined)!;
    const reason = `\`${name}\` depends on the ${what} at line ${line} (${described.join(' or ')})`;
    const span = last.valueSpan ?? { start: 0, end: 0 };
    // The values each branch gives, when every one is known (a loop's are not choices: it may run any number of times;
    // a loop over the script's arguments is, as it runs no time without them: ARGUMENT_LOOP).
    const distinct = distinctValues(vals);
    // A branch value that is the script's own positional argument (`X=$2` ... `X=3` when it is empty) is a choice too:
    // launchOverChoices estimates the script's own value, what runs without the argument.
    const choosable =
      what !== 'loop' &&
      distinct.length <= MAX_CHOICES &&
      distinct.every((v) => v === undefined || unknownOf(v.pieces) === undefined || isScriptArgument(v.pieces));
    const open: Piece = { text: '', start: span.start, end: span.end, exact: false, unknown: reason };
    const start = choosable ? undefined : commonStart(vals);
    out.set(name, {
      pieces: start ? [...start, { text: ' ', start: span.start, end: span.start, exact: false }, open] : [open],
      exported: vals.some((v) => v?.exported),
      nameSpan: last.nameSpan,
      valueSpan: last.valueSpan,
      ...(choosable ? { choices: { values: distinct, what, line } } : {}),
      ...(!choosable && what !== 'loop' && distinct.length <= MAX_CHOICES
        ? { branches: { values: distinct, what, line } }
        : {}),
    });
  }
  return out;
}

/**
 * What every branch's value starts with where they differ only by words some branches add after it, one at least not
 * known (`CMD="${CMD} ${USE_BF16}"` under `if [ -n "${USE_BF16}" ]`, guotong1988/Train-8B-LLM run_sft.sh): the shortest
 * value's pieces, which the others repeat and go on from at a blank. A launch line built from the variable keeps those
 * words, and the rest is one word not known statically. Undefined where a branch leaves it unset or values part
 * otherwise.
 */
function commonStart(vals: readonly (VarVal | undefined)[]): readonly Piece[] | undefined {
  const known = vals.filter((v): v is VarVal => v !== undefined && v.elements === undefined);
  if (known.length !== vals.length) return undefined;
  const shortest = known.reduce((a, b) => (a.pieces.length <= b.pieces.length ? a : b)).pieces;
  const n = shortest.length;
  if (n === 0) return undefined;
  const same = (p: Piece, q: Piece | undefined): boolean =>
    q !== undefined && p.text === q.text && p.start === q.start && p.end === q.end;
  const atBlank = (next: Piece | undefined): boolean =>
    next === undefined || /^\s/.test(next.text) || /\s$/.test(shortest[n - 1].text);
  return known.every((v) => shortest.every((p, i) => same(p, v.pieces[i])) && atBlank(v.pieces[n]))
    ? shortest
    : undefined;
}

/** The different values of the branches, a branch's own choices spread among them, first seen first. */
function distinctValues(vals: readonly (VarVal | undefined)[]): (VarVal | undefined)[] {
  const distinct: (VarVal | undefined)[] = [];
  const add = (v: VarVal | undefined): void => {
    if (!distinct.some((d) => sameValue(d, v))) distinct.push(v);
  };
  for (const v of vals) {
    if (v?.choices) v.choices.values.forEach(add);
    else add(v);
  }
  return distinct;
}
