// A launch line whose variables were set differently on the branches of an `if` or `case`: analyzed per combination
// of their values, each unknown fact taking the worst for memory. Also the allocator settings a launch sees. Pure.
import {
  expandableSegmentsOf,
  msg,
  wordBool,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type ParseProblem,
  type Unknown,
} from '../facts';
import type { Seg, WordTok } from './lexer';
import {
  type VarVal,
  type Env,
  unknownOf,
  textOf,
  type Field,
  SCRIPT_ARGUMENT,
  isScriptArgument,
  quotedValue,
  tooLong,
} from './fields';
import { expandSegs, fieldsOf } from './expand';
import { type CmdResult, analyzeLaunch } from './launch';
import { argumentsOf } from './argv';

/** At most this many combinations of the variables' values are tried at once. */
const MAX_COMBINATIONS = 16;
/** At most this many analyses of one launch line are tried when its facts are decided one group at a time. */
const MAX_ANALYSES = 64;

/** The branch-set variables some facts of a launch line use, and the line analyzed once per combination of them. */
interface ChoiceGroup {
  readonly used: [string, VarVal][];
  readonly rs: CmdResult[];
}

/**
 * One launch line analyzed as written; when it uses variables set differently on the branches of an `if` or `case`,
 * also once per combination of their values, and each fact the variables leave unknown takes the worst of the
 * values it can take (chooseWorst), said as an assumption. All the variables are combined at once where their
 * combinations are few; else each fact's own (a script whose argument loop may set a dozen variables).
 */
export function launchOverChoices(
  text: string,
  words: readonly WordTok[],
  fields: Field[],
  env: Env,
): CmdResult | undefined {
  const asWritten = withAgreedFlags(text, words, env, analyzeLaunch(text, fields, env));
  // A word of the line that expands to what the script is given (`"$CONFIG_FILE"` of `${1:-config.yaml}`) may hide a
  // config file or flags: read as the script runs without arguments, too.
  const hidden = fields.some((f) => f.unknown !== undefined);
  if (!asWritten || !(hidden || asWritten.facts.some((f) => isUnknownValue(f.value)))) return asWritten;
  const pinned = withoutArguments(text, words, env);
  if (!pinned) return decideChoices(text, words, env, asWritten);
  const r = analyzeLaunch(text, fieldsOf(text, words, pinned.env), pinned.env);
  if (!r || r.facts.length < asWritten.facts.length) return decideChoices(text, words, env, asWritten);
  noteReferencesWithoutArguments(text, asWritten, r, pinned.values);
  for (let k = 0; k < r.facts.length; k++) {
    const f = r.facts[k];
    const note = pinnedNote(text.slice(f.valueSpan.start, f.valueSpan.end), pinned.values);
    if (note && !isUnknownValue(f.value) && f.assumed === undefined)
      r.facts[k] = { ...f, assumed: `${note}; ${f.rawKey} is ${JSON.stringify(f.value)}${WITHOUT_ARGUMENTS}` };
  }
  return decideChoices(text, words, pinned.env, r);
}

const WITHOUT_ARGUMENTS = ' when the script is run without that argument (a value passed on its command line wins)';

/**
 * A file the line names only when the script runs without arguments (`accelerate launch -m axolotl.cli.train
 * "$CONFIG_FILE"` after `CONFIG_FILE=${1:-configs/axolotl.yaml}`): said where the line names it, as a fact's assumption is.
 */
function noteReferencesWithoutArguments(text: string, asWritten: CmdResult, pinned: CmdResult, values: Env): void {
  for (const ref of pinned.refs) {
    if (asWritten.refs.some((a) => a.path === ref.path)) continue;
    const note = pinnedNote(text.slice(ref.span.start, ref.span.end), values);
    if (note === undefined) continue;
    pinned.problems.push({
      code: 'not-static',
      severity: 'info',
      span: ref.span,
      ...msg('{0}: {1}', note, `${ref.path} is read${WITHOUT_ARGUMENTS}`),
    });
  }
}

/**
 * The variables of the launch line whose branch values are one value of the script's own and the script's arguments
 * (an argument loop's `--model) M=$2` over `M=default`, `${1:-default}`, `[ -z "$M" ] && M=default`), each set to the
 * script's own value: the script run as written, without arguments. Undefined when there are none.
 */
function withoutArguments(text: string, words: readonly WordTok[], env: Env): { env: Env; values: Env } | undefined {
  const line = words.length ? text.slice(words[0].start, words[words.length - 1].end) : '';
  const values: Env = new Map();
  const out: Env = new Map(env);
  for (const [name, v] of usedChoices(line, env)) {
    const own = v.choices!.values.filter((c) => c === undefined || !isScriptArgument(c.pieces));
    if (own.length !== 1 || own[0] === undefined || unknownOf(own[0].pieces) !== undefined) continue;
    values.set(name, v);
    out.set(name, own[0]);
  }
  // `${1:-default}` written in the line itself: the positional parameter unset, so its default stands.
  for (const m of line.matchAll(INLINE_DEFAULT)) {
    const unset: VarVal = { pieces: [], exported: false, argumentless: true };
    values.set(m[1], unset);
    out.set(m[1], unset);
  }
  return values.size ? { env: out, values } : undefined;
}

/** `${1:-default}` / `${2-default}`: a positional parameter with a default (group 1: its number; group 2: the default). */
const INLINE_DEFAULT = /\$\{([1-9]):?[-=]([^}]*)\}/g;

/** What a fact's value owes to the variables pinned to the script's own values, or undefined when it uses none. */
function pinnedNote(spanText: string, values: Env): string | undefined {
  const used = usedChoices(spanText, values);
  const inline = [...spanText.matchAll(INLINE_DEFAULT)].map(
    (m) => `\`${m[0]}\` is its default '${m[2].replace(/^(['"])(.*)\1$/, '$2')}' without argument $${m[1]}`,
  );
  if (used.length === 0 && inline.length === 0) return undefined;
  return [...(used.length ? [variablesNote(used)] : []), ...inline].join('; ');
}

/** The branch values of variables, as an assumption says them. */
function variablesNote(used: readonly [string, VarVal][]): string {
  return used
    .map(
      ([name, v]) =>
        `\`${name}\` is ${v.choices!.values.map(describeChoice).join(' or ')}` +
        ` depending on the ${v.choices!.what} at line ${v.choices!.line}`,
    )
    .join('; ');
}

/**
 * The launch's facts that branch-set variables leave unknown, each decided over the values the variables can take:
 * the worst for memory among them, said as an assumption.
 */
function decideChoices(text: string, words: readonly WordTok[], env: Env, r: CmdResult): CmdResult {
  if (!r.facts.some((f) => isUnknownValue(f.value))) return r;
  const groups = choiceGroups(text, words, env, r);
  if (groups.every((g) => g === undefined)) return r;
  const noteOf = (f: Fact, used: [string, VarVal][]): string => {
    const named = used.filter(
      ([name]) =>
        usedChoices(text.slice(f.valueSpan.start, f.valueSpan.end), new Map([[name, env.get(name)!]])).length > 0,
    );
    return variablesNote(named.length > 0 ? named : used);
  };
  const facts = r.facts.map((f, k) => {
    const group = groups[k];
    if (!isUnknownValue(f.value) || !group) return f;
    const all = group.rs.map((x) => x.facts[k].value);
    // `X=$2; if [ "$X" == "" ]; then X=3; fi`: without the argument the script's own value runs, as an argparse default
    // does when the launcher passes nothing; a value passed on the command line replaces it.
    const values = all.filter((v) => !isUnknownValue(v)) as FactValue[];
    const dropped = all.filter(isUnknownValue);
    if (values.length === 0 || !dropped.every((v) => SCRIPT_ARGUMENT.test((v as Unknown).unknown))) return f;
    const distinct = [...new Set(values.map((v) => JSON.stringify(v)))];
    // One value (whatever its kind: a model id too) needs no ranking.
    const worst = distinct.length === 1 ? values[0] : chooseWorst(f.key, values);
    if (worst === undefined) return f;
    const note = noteOf(f, group.used);
    const withoutArgs = dropped.length > 0 ? WITHOUT_ARGUMENTS : '';
    const assumed =
      distinct.length === 1
        ? `${note}; ${f.rawKey} is ${distinct[0]}${withoutArgs || ' either way'}`
        : `${note}; ${f.rawKey} can be ${distinct.join(' or ')}${withoutArgs}: the worst for memory ` +
          `(${JSON.stringify(worst)}) is estimated`;
    return { ...f, value: worst, assumed };
  });
  const decided = new Set(
    facts.filter((f, k) => f !== r.facts[k]).map((f) => `${f.valueSpan.start}:${f.valueSpan.end}`),
  );
  // A config path decided so (`--deepspeed $DS_CONFIG_PATH`, the script's own path unless an argument replaces it)
  // is followed as the launch that runs it names it.
  const refs = [...new Set(groups)]
    .flatMap((g) => g?.rs ?? [])
    .flatMap((x) => x.refs)
    .filter((ref) => decided.has(`${ref.span.start}:${ref.span.end}`));
  for (const ref of refs) {
    if (r.refs.some((x) => x.path === ref.path && x.span.start === ref.span.start)) continue;
    // Before the script, as a config named by a literal flag is (launch.ts adds the script last).
    const at = r.refs.findIndex((x) => x.kind === 'script');
    r.refs.splice(at < 0 ? r.refs.length : at, 0, ref);
  }
  // The script the launch runs gets the decided values as its options (its branches on them: launch-args.ts).
  const chosen = facts.filter((f, k) => f !== r.facts[k] && !isUnknownValue(f.value));
  for (let i = 0; i < r.refs.length; i++) {
    const ref = r.refs[i];
    if (ref.kind === 'script' && ref.args) r.refs[i] = { ...ref, args: ref.args.map((a) => argDecided(a, chosen)) };
  }
  r.facts.splice(0, r.facts.length, ...facts);
  const settled = (p: ParseProblem): boolean =>
    (p.code === 'not-static' || p.code === 'reference-not-found') && decided.has(`${p.span.start}:${p.span.end}`);
  const problems = r.problems.filter((p) => !settled(p));
  r.problems.splice(0, r.problems.length, ...problems);
  return r;
}

/**
 * For each fact of the launch, the group of branch-set variables it is decided over (undefined where none): every
 * variable the unknown facts use at once where that is at most MAX_COMBINATIONS analyses, else each fact's own.
 */
function choiceGroups(text: string, words: readonly WordTok[], env: Env, r: CmdResult): (ChoiceGroup | undefined)[] {
  const spanText = (f: Fact): string => text.slice(f.valueSpan.start, f.valueSpan.end);
  const unknownFacts = r.facts.filter((f) => isUnknownValue(f.value));
  const all = usedChoices(unknownFacts.map(spanText).join(' '), env);
  const joint = all.length ? analyzeCombinations(text, words, env, all, r) : undefined;
  if (joint) {
    const group: ChoiceGroup = { used: all, rs: joint };
    return r.facts.map((f) => (isUnknownValue(f.value) ? group : undefined));
  }
  const byNames = new Map<string, ChoiceGroup | undefined>();
  let analyses = 0;
  return r.facts.map((f) => {
    if (!isUnknownValue(f.value)) return undefined;
    const used = usedChoices(spanText(f), env);
    const key = used.map(([name]) => name).join(' ');
    if (used.length === 0 || byNames.has(key)) return byNames.get(key);
    const rs = analyses < MAX_ANALYSES ? analyzeCombinations(text, words, env, used, r) : undefined;
    analyses += rs?.length ?? 0;
    const group = rs && { used, rs };
    byNames.set(key, group);
    return group;
  });
}

/** The launch analyzed once per combination of the variables' values; undefined past MAX_COMBINATIONS, or where a
 * combination gives other facts than the line as written. */
function analyzeCombinations(
  text: string,
  words: readonly WordTok[],
  env: Env,
  used: readonly [string, VarVal][],
  r: CmdResult,
): CmdResult[] | undefined {
  const combos = combinations(env, used);
  if (!combos) return undefined;
  const rs = combos.map((e) => analyzeLaunch(text, fieldsOf(text, words, e), e));
  const same = (x: CmdResult | undefined): x is CmdResult =>
    !!x && x.facts.length === r.facts.length && x.facts.every((f, k) => f.key === r.facts[k].key);
  return rs.every(same) ? rs : undefined;
}

/**
 * `X=${1:-default}` (or `${1-default}`): run as written, without arguments, the default runs; an argument replaces it.
 * The value is then a choice of the two, like a variable set on the branches of an `if` on `$1` (merge.ts).
 */
export function argumentDefault(
  text: string,
  segs: readonly Seg[],
  val: VarVal,
  line: number,
  env: Env,
): VarVal | undefined {
  const parts = segs.filter((g) => !(g.k === 'lit' && g.text === ''));
  const g = parts.length === 1 ? parts[0] : undefined;
  if (!g || g.k !== 'param' || (g.op !== ':-' && g.op !== '-')) return undefined;
  const fallback = expandSegs(text, g.arg ?? [], env, false).map((x) => ({ ...x, split: false }));
  if (unknownOf(fallback) !== undefined) return undefined;
  const span = { start: g.start, end: g.end };
  const own: VarVal = { pieces: fallback, exported: false, valueSpan: span };
  const from = env.get(g.name)?.choices;
  if (from) {
    // `X=${X:-default}` after a loop over the arguments: each of X's values, the default where it is unset (or empty).
    const empty = (c: VarVal): boolean => g.op === ':-' && unknownOf(c.pieces) === undefined && textOf(c.pieces) === '';
    const values = from.values.map((c) => (c === undefined || empty(c) ? own : c));
    return { ...val, choices: { ...from, values: values.filter((c, i) => values.indexOf(c) === i) } };
  }
  if (!/^[1-9]$/.test(g.name) || argumentsOf(env)) return undefined;
  const reason = `positional argument $${g.name} of the script`;
  const argument: VarVal = {
    pieces: [{ text: '', start: g.start, end: g.end, exact: false, unknown: reason }],
    exported: false,
    valueSpan: span,
  };
  return {
    ...val,
    pieces: [{ text: '', start: g.start, end: g.end, exact: false, unknown: `${reason}, else '${textOf(fallback)}'` }],
    choices: { values: [own, argument], what: `default of $${g.name}`, line },
  };
}

/**
 * The flags a branch-set variable of several words adds to the line (`base_training_args="$base_training_args --fsdp
 * ..."` on some branches of an `if`): those every combination of its values passes, with the same value, and the files
 * they all name, are the line's; the others stay hidden (the line says so).
 */
function withAgreedFlags(text: string, words: readonly WordTok[], env: Env, r: CmdResult | undefined): typeof r {
  const line = words.length ? text.slice(words[0].start, words[words.length - 1].end) : '';
  const used = usedChoices(line, env).filter(([, v]) =>
    v.choices!.values.some((c) => c && /\s/.test(textOf(c.pieces))),
  );
  if (!r || used.length === 0) return r;
  const rs = combinations(env, used)?.map((e) => analyzeLaunch(text, fieldsOf(text, words, e), e));
  if (!rs || !rs.every((x) => x !== undefined)) return r;
  const id = (f: Fact): string => `${f.key} ${f.rawKey} ${JSON.stringify(f.value)}`;
  const have = new Set(r.facts.map(id));
  for (const f of rs[0].facts)
    if (!have.has(id(f)) && !isUnknownValue(f.value) && rs.every((x) => x.facts.some((g) => id(g) === id(f)))) {
      r.facts.push(f);
      have.add(id(f));
    }
  for (const ref of rs[0].refs)
    if (!r.refs.some((x) => x.path === ref.path) && rs.every((x) => x.refs.some((y) => y.path === ref.path)))
      r.refs.push(ref);
  return r;
}

/**
 * A variable set from one set differently on the branches of an `if` or `case` (`training_args="$base_training_args
 * --model_name_or_path $model_path"`): its value for each of that one's values, so a launch that uses it is analyzed
 * per value too. Undefined when the value uses no such variable, or more than one.
 */
export function carriedChoices(text: string, segs: readonly Seg[], env: Env, val: VarVal): VarVal | undefined {
  const from = [...new Set(segs.flatMap((g) => (g.k === 'param' && env.get(g.name)?.choices ? [g.name] : [])))];
  if (from.length !== 1) return undefined;
  const choices = env.get(from[0])!.choices!;
  const values: VarVal[] = [];
  for (const c of choices.values) {
    const e = new Map(env);
    if (c === undefined) e.delete(from[0]);
    else e.set(from[0], c);
    const pieces = expandSegs(text, segs, e, false).map((x) => ({ ...x, split: false }));
    // A value that doubles at every line keeps no choices past the bound (the value itself is cut: interpreter.ts).
    if (tooLong(pieces)) return undefined;
    values.push({ ...val, pieces });
  }
  return { ...val, choices: { ...choices, values } };
}

/** Each combination of the variables' values, as an environment; undefined past MAX_COMBINATIONS. */
function combinations(env: Env, used: readonly [string, VarVal][]): Env[] | undefined {
  let combos: Env[] = [env];
  for (const [name, v] of used) {
    const next: Env[] = [];
    for (const e of combos)
      for (const c of v.choices!.values) {
        const e2 = new Map(e);
        if (c === undefined) e2.delete(name);
        else e2.set(name, c);
        next.push(e2);
      }
    combos = next;
    if (combos.length > MAX_COMBINATIONS) return undefined;
  }
  return combos;
}

/**
 * PYTORCH_CUDA_ALLOC_CONF as the training command sees it (exported or a prefix).
 */
export function allocatorConf(text: string, r: CmdResult, env: Env): void {
  const v = env.get('PYTORCH_CUDA_ALLOC_CONF');
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan) return;
  const rawValue = text.slice(v.valueSpan.start, v.valueSpan.end);
  const u = unknownOf(v.pieces);
  const value: FactValue | Unknown = u !== undefined ? { unknown: u } : expandableSegmentsOf(textOf(v.pieces));
  r.facts.push({
    key: 'expandableSegments',
    rawKey: 'PYTORCH_CUDA_ALLOC_CONF',
    value,
    rawValue,
    keySpan: v.nameSpan,
    valueSpan: v.valueSpan,
    tool: r.launcherTool ?? r.tools[0] ?? 'torchrun',
  });
}

/** The variable transformers reads to load a model under FSDP on rank 0 alone (modeling_utils.py is_fsdp_enabled). */
export const RAM_EFFICIENT_ENV = 'FSDP_CPU_RAM_EFFICIENT_LOADING';

/**
 * FSDP_CPU_RAM_EFFICIENT_LOADING as the training command sees it (exported or a prefix), read with strtobool. Not
 * under `accelerate launch`, which sets it from its own config over the environment (accelerate commands/launch.py);
 * the HF Trainer's own FSDP arguments set it too, from transformers 4.41 (pipeline.ts trainerRamEfficientLoading).
 */
export function ramEfficientLoading(text: string, r: CmdResult, env: Env): void {
  const v = env.get(RAM_EFFICIENT_ENV);
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan || r.launcherTool === 'accelerate') return;
  const u = unknownOf(v.pieces);
  const word = wordBool(textOf(v.pieces));
  const value: FactValue | Unknown =
    u !== undefined ? { unknown: u } : (word ?? { unknown: `'${textOf(v.pieces)}' is not a switch` });
  r.facts.push({
    key: 'fsdpCpuRamEfficientLoading',
    rawKey: RAM_EFFICIENT_ENV,
    value,
    rawValue: text.slice(v.valueSpan.start, v.valueSpan.end),
    keySpan: v.nameSpan,
    valueSpan: v.valueSpan,
    tool: r.launcherTool ?? r.tools[0] ?? 'torchrun',
  });
}

const isUnknownValue = (v: Fact['value']): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One value a branch-set variable can take, as the note says it. */
function describeChoice(c: VarVal | undefined): string {
  if (c === undefined) return 'unset';
  const u = unknownOf(c.pieces);
  return u !== undefined ? `the script's argument ${/\$[1-9]/.exec(u)?.[0] ?? ''}`.trim() : quotedValue(c.pieces);
}

/** The branch-set variables a launch line names (`$X`, `${X...}`). */
function usedChoices(line: string, env: Env): [string, VarVal][] {
  const out: [string, VarVal][] = [];
  for (const [name, v] of env) {
    if (!v.choices) continue;
    if (new RegExp(`\\$(\\{[#!]?)?${name}(?![A-Za-z0-9_])`).test(line)) out.push([name, v]);
  }
  return out;
}

/** Keys whose memory grows as the value shrinks (more sharding, more GPUs to share state). */
const SMALLER_IS_WORSE = new Set<CanonicalKey>([
  'zeroStage',
  'gpusPerNode',
  'nodes',
  'worldSize',
  'tensorParallel',
  'pipelineParallel',
  'contextParallel',
]);
/** Keys whose memory grows with the value. */
const LARGER_IS_WORSE = new Set<CanonicalKey>([
  'microBatchSize',
  'seqLen',
  'loraR',
  'evalBatchSize',
  'gradientAccumulationSteps',
  'trainBatchSize',
]);
/** Switches whose `false` costs more memory. */
const FALSE_IS_WORSE = new Set<CanonicalKey>(['gradientCheckpointing', 'bf16', 'fp16']);
const METHOD_COST = ['full', 'freeze', 'lora', 'qlora'];

/** The value of the several a key can take that needs the most memory; undefined when there is no such order. */
export function chooseWorst(key: CanonicalKey, values: readonly FactValue[]): FactValue | undefined {
  const first = values[0];
  if (values.every((v) => JSON.stringify(v) === JSON.stringify(first))) return first;
  if (values.every((v) => typeof v === 'number')) {
    const ns = values as number[];
    if (SMALLER_IS_WORSE.has(key)) return Math.min(...ns);
    if (LARGER_IS_WORSE.has(key)) return Math.max(...ns);
    return undefined;
  }
  if (values.every((v) => typeof v === 'boolean') && FALSE_IS_WORSE.has(key)) return false;
  if (key === 'method' && values.every((v) => typeof v === 'string' && METHOD_COST.includes(v))) {
    return METHOD_COST[Math.min(...values.map((v) => METHOD_COST.indexOf(v as string)))];
  }
  return undefined;
}

/** A script option the launch passed from a variable, with the value its choices decided (`--model_name_or_path $MODEL`). */
function argDecided(
  a: { readonly name: string; readonly value?: string | null },
  chosen: readonly Fact[],
): { readonly name: string; readonly value?: string | null } {
  if (a.value !== null) return a;
  const f = chosen.find((x) => x.rawKey.replace(/^-+/, '').replace(/-/g, '_') === a.name.replace(/-/g, '_'));
  const v = f?.value;
  if (typeof v === 'string' || typeof v === 'number') return { ...a, value: String(v) };
  if (typeof v === 'boolean') return { ...a, value: v ? 'True' : 'False' };
  return a;
}
