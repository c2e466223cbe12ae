// A training script's options as the launch line that runs it passes them: the environment a script or its helper
// module is read in, the facts its options fill in, and the values it sets on branches of those options. Pure.
import { setConditionally } from './hf-python';
import { keptPythonReading } from './kept-python';
import {
  isUnknown,
  type ArgumentEnvironment,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
  type InheritedOption,
  type Reference,
  type Unknown,
} from './facts';
import { splitValue } from './hf-python/post-init-splits';

/**
 * The options a helper module's `args.x` reads: the importing script's defaults (and those it inherited itself), with
 * the launch line's values over them; an option passed from a variable the launch line does not set is unknown.
 */
export function argumentEnvironment(
  options: ConfigFacts['options'],
  launchArgs: Reference['args'],
  outer: ArgumentEnvironment | undefined,
  scriptFile: string,
): ArgumentEnvironment {
  const env = new Map<string, InheritedOption>(outer ?? []);
  const script = scriptFile.split(/[\\/]/).pop() ?? scriptFile;
  for (const o of options ?? [])
    env.set(o.name, {
      value: o.value,
      source: `${o.where} ${o.value === null ? 'None' : JSON.stringify(o.value)} (${script} line ${o.line})`,
      launched: false,
    });
  const many = new Set((options ?? []).filter((o) => o.many).map((o) => o.name));
  const splits = new Map((options ?? []).flatMap((o) => (o.splitBy !== undefined ? [[o.name, o.splitBy]] : [])));
  const textual = new Set((options ?? []).filter((o) => typeof o.value === 'string').map((o) => o.name));
  // A bare flag that turns an option off (argparse store_false, click's `--no-x`): False, whatever the word says.
  const offs = new Map(
    (options ?? []).flatMap((o) => (o.offFlag !== undefined ? [[o.offFlag.replace(/-/g, '_'), o.name]] : [])),
  );
  const truthOfWord = new Set((options ?? []).filter((o) => o.truthOfWord).map((o) => o.name));
  for (const a of launchArgs ?? []) {
    const name = a.name.replace(/-/g, '_');
    const turnsOff = offs.get(name);
    if (turnsOff !== undefined && a.value === undefined && !a.positional) {
      env.set(turnsOff, { value: false, source: `--${a.name} on the launch line`, launched: true });
      continue;
    }
    const words = many.has(name) && a.value !== undefined ? [a.value, ...(a.more ?? [])] : undefined;
    if (
      a.value === undefined &&
      !a.positional &&
      (textual.has(name) || truthOfWord.has(name) || MODEL_OPTION.test(name))
    ) {
      // A bare flag of an option that takes a word (a path, a name): argparse stops ("expected one argument").
      const source = bareFlag(a.name);
      env.set(name, { value: null, source, launched: true, unknown: source });
    } else if (a.value === null || words?.includes(null)) {
      const source = a.positional
        ? `the ${a.name} the launch line gives by position, from a value not known statically`
        : `--${a.name} on the launch line, from a value not known statically`;
      env.set(name, { value: null, source, launched: true, unknown: source });
    } else
      env.set(name, {
        // An option that takes several words (nargs) is the list of them, as argparse gives it.
        value: words
          ? words.map((w) => String(launchValue(w ?? '')))
          : truthOfWord.has(name) && a.value !== undefined
            ? unquoted(a.value) !== ''
            : splitValue(launchValue(a.value), splits.get(name)),
        source: a.from
          ? `${a.name}: ${a.value ?? ''} in ${a.from}, the config file the script reads`
          : a.positional
            ? `${a.value ?? ''}, the ${a.name} the launch line gives by position`
            : `--${a.name} ${(words ?? [a.value ?? '']).join(' ')} on the launch line`,
        launched: true,
      });
  }
  return env;
}

/** An option that takes a word given as a bare flag, as the run's parser answers it. */
function bareFlag(name: string): string {
  return (
    `--${name} on the launch line has no value (the next word is another option, or none): ` +
    `the script's parser stops with "expected one argument"`
  );
}

/** Options that name a model (a path or a Hub id), never a switch. */
const MODEL_OPTION = /^(model_name_or_path|model_path|model_name|model_id|base_model|pretrained_model_name_or_path)$/;

/** A launch-line value as the script's parser gives it: a bare flag true, True / False, numbers, else the text. */
function launchValue(text: string | undefined): FactValue {
  if (text === undefined) return true;
  const t = text.trim().replace(/^(['"])(.*)\1$/, '$2');
  if (/^(True|true)$/.test(t)) return true;
  if (/^(False|false)$/.test(t)) return false;
  if (t === 'None') return null;
  if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return stringList(t) ?? t;
}

/**
 * A list of quoted strings written as a Python or JSON literal (`--target_modules '["q_proj", "v_proj"]'`): the list,
 * as Python Fire gives it to its function (it reads each value as a literal; mulin-ahu/DenseLoRA's launchers), and as
 * the `ast.literal_eval` / `json.loads` an argparse script runs on such a word.
 */
function stringList(t: string): string[] | undefined {
  if (!/^\[.*\]$/s.test(t)) return undefined;
  const inner = t.slice(1, -1).trim();
  if (inner === '') return [];
  const items = inner.split(',').map((x) => x.trim());
  const strings = items.map((x) => /^(['"])([^'"]*)\1$/.exec(x)?.[2]);
  return strings.every((x) => x !== undefined) ? (strings as string[]) : undefined;
}

/** Keys whose value is a number, and keys whose value is a switch, when a script's option gives them. */
const NUMBER_KEYS = new Set<CanonicalKey>([
  'microBatchSize',
  'gradientAccumulationSteps',
  'seqLen',
  'loraR',
  'loraAlpha',
  'evalBatchSize',
  'trainBatchSize',
  'quantBits',
  'zeroStage',
]);
const SWITCH_KEYS = new Set<CanonicalKey>(['bf16', 'fp16', 'gradientCheckpointing', 'pureBf16']);

/**
 * The script's own options as the launch line runs it: a value the script reads from `args.x` of an argparse option
 * `--x` is the launcher's `--x`, else the option's default as the script writes it. Only numbers, switches and the
 * model id are filled in; any other value stays unknown, as does an option the launcher passes from a variable.
 */
export function withLaunchArgs(facts: ConfigFacts, args: NonNullable<Reference['args']>): ConfigFacts {
  const norm = (n: string): string => n.replace(/-/g, '_');
  const out = facts.facts.map((f): Fact => {
    if (f.origin === 'dataclass-default') return withLaunchedField(f, args);
    const scriptDefault = f.origin === 'script-default';
    if (!f.fromArg || !(isUnknown(f.value) || scriptDefault)) return f;
    const off = f.fromArg.off;
    const passed = [...args]
      .reverse()
      .find((a) => norm(a.name) === norm(f.fromArg!.name) || (off !== undefined && norm(a.name) === norm(off)));
    // The script's default already stands where the launch line passes nothing.
    if (scriptDefault && !passed) return f;
    if (passed && passed.value === null) {
      return scriptDefault
        ? { ...f, value: { unknown: `--${f.fromArg.name} is passed from a variable the launch line does not set` } }
        : f;
    }
    const truthOfWord = f.fromArg.truthOfWord === true;
    if (
      passed &&
      passed.value === undefined &&
      (truthOfWord || (!f.fromArg.switched && off === undefined && !SWITCH_KEYS.has(f.key)))
    )
      // A bare flag of an option that takes a word (a path, a number): argparse stops ("expected one argument").
      return { ...f, value: { unknown: bareFlag(f.fromArg.name) } };
    const turnedOff = off !== undefined && passed !== undefined && norm(passed.name) === norm(off);
    const written = turnedOff ? 'False' : passed ? (passed.value ?? 'True') : f.fromArg.default;
    // argparse's `type=bool` is bool() of the word: `--use_lora=False` is True (a default written as a string too).
    const text = truthOfWord && written !== undefined ? wordTruth(written, passed !== undefined) : written;
    const switched = f.fromArg.switched;
    const equals = f.fromArg.equals;
    const v =
      text === undefined
        ? undefined
        : equals
          ? (unquoted(text) === equals.value) !== equals.negated
          : f.fromArg.split !== undefined
            ? unquoted(text).split(f.fromArg.split)
            : switched
              ? switchValue(switched, text)
              : optionValue(f.key, text);
    if (v === undefined) {
      // The launch line overrides the script's default with a value not read here: unknown, not the default.
      return scriptDefault && passed
        ? { ...f, value: { unknown: `--${f.fromArg.name} ${passed.value ?? ''} on the launch line is not read` } }
        : f;
    }
    const how = passed?.from
      ? `${passed.name} in ${passed.from}, the config file the script reads`
      : passed
        ? `--${turnedOff ? off : f.fromArg.name} on the launch line`
        : `the default of --${f.fromArg.name} (line ${f.fromArg.line})`;
    return { ...f, value: v, rawValue: `${f.rawValue} = ${(text ?? '').trim()}, ${how}` };
  });
  return { ...facts, facts: out };
}

/**
 * Values a training script sets on the branches of an `if` whose test reads its own options (Qwen-1's finetune.py:
 * `modules_to_save = None` when `lora_args.q_lora or "chat" in model_args.model_name_or_path.lower()`, else the
 * embedding and the head): the script read again with its options as the run has them (the launch line's, else their
 * defaults), as a helper module is, which decides the tests on them; an option the launch line passes from a value it
 * cannot read leaves a test on it undecided. The launch line's options count when the script declares none of its own
 * (its argument dataclasses in a module it imports, the training arguments' `--do_train`).
 */
export function withBranchesDecided(
  facts: ConfigFacts,
  text: string,
  launchArgs: Reference['args'],
  file: string,
  environment?: ReadonlyMap<string, string>,
): ConfigFacts {
  if (!facts.facts.some(setConditionally)) return facts;
  const options = argumentEnvironment(facts.options, launchArgs, undefined, file);
  // The script read as a helper module is, its tests decided by its options (kept: a keystroke in the launcher or a
  // config of the run does not read the unchanged script a third time).
  const settled = keptPythonReading(text, { options, calls: [] }, undefined, environment);
  const chosen = withTrainerChosen(facts, settled);
  // A call on a branch the options decide not to run (`X(...) runs only when ...`: checkpointing, a Liger patch) sets
  // nothing: the settled run has no fact of its key.
  const notRun = (f: Fact): boolean =>
    setConditionally(f) &&
    /^[\w.]+\(\.\.\.\) runs only when /.test((f.value as Unknown).unknown) &&
    !settled.facts.some((g) => g.key === f.key);
  const out = { ...chosen, facts: chosen.facts.filter((f) => !notRun(f)) };
  const decided = out.facts.map((f): Fact => {
    if (!setConditionally(f)) return f;
    const same = (g: Fact): boolean => g.key === f.key && g.valueSpan.start === f.valueSpan.start;
    // A value the settled run reads from an option's default is located at that default: the one fact of its key.
    const only = (list: readonly Fact[]): Fact[] => list.filter((x) => x.key === f.key);
    const sole =
      only(facts.facts).length === 1 && only(settled.facts).length === 1 ? only(settled.facts)[0] : undefined;
    const g = [settled.facts.find(same), sole].find((x) => x !== undefined && !isUnknown(x.value));
    if (!g) return f;
    const how = launchArgs?.length ? "the script's options as the launch line passes them" : "the script's defaults";
    const computed = / is computed from the script's options/.test((f.value as Unknown).unknown);
    // A number the options do not decide is the largest over its branches, an assumption the settled reading says.
    if (g.assumed) return { ...f, value: g.value, rawValue: g.rawValue, assumed: g.assumed };
    const rawValue = computed ? `${f.rawValue}: computed with ${how}` : `${f.rawValue}: on the branch ${how} take`;
    return { ...f, value: g.value, rawValue };
  });
  // What only the branches the run takes set (`if args.lora:` around `if args.qlora:` around
  // prepare_model_for_kbit_training, both skipped on the defaults): facts of keys the defaults leave unset.
  const keys = new Set(facts.facts.map((f) => f.key));
  const how = launchArgs?.length ? "the script's options as the launch line passes them" : "the script's defaults";
  for (const g of settled.facts)
    if (!keys.has(g.key) && !isUnknown(g.value))
      decided.push({ ...g, rawValue: `${g.rawValue}: on the branch ${how} take` });
  return { ...out, facts: decided };
}

/** A fact of a trainer's class on a branch of the script's choice of trainer (hf-python/calls.ts trainerCall). */
const onTrainerBranch = (f: Fact): boolean =>
  setConditionally(f) && /^\w*Trainer\(\.\.\.\) runs only when /.test((f.value as Unknown).unknown);

/**
 * A script that chooses its trainer on the branches of an `if`: each fact its trainers' classes give is the settled
 * run's fact of that key (the trainer whose branch its options take), or none; the tools are the settled run's.
 */
function withTrainerChosen(facts: ConfigFacts, settled: ConfigFacts): ConfigFacts {
  if (!facts.facts.some(onTrainerBranch)) return facts;
  const has = (g: Fact): boolean =>
    facts.facts.some((f) => f.key === g.key && f.keySpan.start === g.keySpan.start && !onTrainerBranch(f));
  const chosen = facts.facts.flatMap((f) =>
    onTrainerBranch(f) ? settled.facts.filter((g) => g.key === f.key && !isUnknown(g.value) && !has(g)) : [f],
  );
  return { ...facts, facts: chosen, tools: settled.tools };
}

/**
 * A field default of the script's own arguments dataclass is the default of HfArgumentParser's `--field`: where the
 * launch line passes that option from a value it cannot read (a variable it does not set), the field's value is
 * unknown, not the default. A value it can read is the launcher's own fact, which outranks the default.
 */
function withLaunchedField(f: Fact, args: NonNullable<Reference['args']>): Fact {
  const norm = (n: string): string => n.replace(/-/g, '_');
  const passed = [...args].reverse().find((a) => norm(a.name) === norm(f.rawKey));
  if (passed && passed.value === undefined && typeof f.value !== 'boolean' && !SWITCH_KEYS.has(f.key))
    return { ...f, value: { unknown: bareFlag(passed.name) } };
  if (passed?.value !== null) return f;
  return { ...f, value: { unknown: `--${passed.name} is passed from a variable the launch line does not set` } };
}

/**
 * An option of `type=bool` as argparse gives it, written as a Python literal: bool() of the launch line's word, and of
 * a default written as a string; a default written otherwise (`default=True`) as it is.
 */
function wordTruth(text: string, launched: boolean): string {
  const quoted = /^\s*(['"])(.*)\1\s*$/s.exec(text);
  if (!launched && !quoted) return text;
  return (launched ? unquoted(text) : quoted![2]) !== '' ? 'True' : 'False';
}

/** A launch word as the script receives it: quotes the shell or the script's default kept stripped. */
export const unquoted = (text: string): string => text.trim().replace(/^(['"])(.*)\1$/s, '$2');

/** The value a switch option decides: `on` for a true flag, `off` for a false one, undefined for anything else. */
function switchValue(switched: { on: FactValue; off: FactValue }, text: string): FactValue | undefined {
  const t = text.trim();
  return /^(True|true|1)$/.test(t) ? switched.on : /^(False|false|0)$/.test(t) ? switched.off : undefined;
}

function optionValue(key: CanonicalKey, text: string): FactValue | undefined {
  const t = text.trim();
  if (NUMBER_KEYS.has(key)) return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : undefined;
  if (SWITCH_KEYS.has(key)) {
    const on = /^(True|true|1)$/.test(t) ? true : /^(False|false|0)$/.test(t) ? false : undefined;
    // Checkpointing is a mode: a switch turns on the whole layers' (the Trainer's gradient_checkpointing=True).
    return key === 'gradientCheckpointing' && on !== undefined ? (on ? 'full' : 'none') : on;
  }
  if (key === 'model') {
    const m = /^(['"])([^'"]+)\1$/.exec(t) ?? /^()([\w./-]+)$/.exec(t);
    return m && m[2] !== 'None' ? m[2] : undefined;
  }
  return undefined;
}
