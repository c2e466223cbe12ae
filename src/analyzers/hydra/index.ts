// Hydra applications: which YAML files are theirs, a file read on its own, and the run the pipeline composes from the
// primary config, its group options and the launch line's overrides (compose.ts), read by the application's rules
// (dpo.ts, halos.ts, rl2.ts). Pure: files come through `read`.
import { msg, type ConfigFacts, type LaunchArgument, type ParseProblem, type Tool } from '../facts';
import { composeHydra, defaultsOptionFiles, type Composition, type HydraFile, type HydraRead } from './compose';
import { dpoModelFacts, dpoReferenceFacts, isDpoReference, type FactsByFile } from './dpo';
import { HALOS_PRIMARY, halosFacts, isHalos } from './halos';
import { isRl2, rl2Facts } from './rl2';

/** Keys of the DPO reference implementation's primary config (config/config.yaml) beside its defaults list. */
const DPO_PRIMARY = ['max_prompt_length', 'activation_checkpointing', 'gradient_accumulation_steps', 'eval_batch_size'];

/**
 * Whether a YAML file's top-level keys are a Hydra application's VRAM Lens reads: the DPO reference implementation's,
 * HALOs' or RL2's primary config (a defaults list, its trainer and its own keys), an option of their `model` group (the
 * checkpoint with the policy's and the reference's dtypes, or with the layer class FSDP wraps), or of their `loss`
 * group (a DPO loss by name; HALOs' trainer and dataloader).
 */
export function isHydraYaml(keys: ReadonlySet<string>, text: string): boolean {
  if (keys.has('defaults') && keys.has('trainer')) {
    if (DPO_PRIMARY.filter((k) => keys.has(k)).length >= 2) return true;
    if (HALOS_PRIMARY.filter((k) => keys.has(k)).length >= 2) return true;
  }
  return isModelOption(keys) || isLossOption(keys, text) || isHalosLossOption(keys, text) || isRl2Primary(keys, text);
}

/**
 * RL2's primary config (RL2/trainer/config/sft.yaml, ppo.yaml): its trainer with a worker group in its defaults list
 * (`- actor: fsdp`), or, in forks that keep the older layout, the worker's keys written out (`actor:` with
 * `model_name` and `max_length_per_device`).
 */
function isRl2Primary(keys: ReadonlySet<string>, text: string): boolean {
  if (!keys.has('trainer')) return false;
  if (keys.has('defaults') && /^\s*-\s*(?:actor|critic)\s*:\s*[\w-]+\s*$/m.test(text)) return true;
  return keys.has('actor') && /^\s+model_name\s*:/m.test(text) && /^\s+max_length_per_device\s*:/m.test(text);
}

function isModelOption(keys: ReadonlySet<string>): boolean {
  const settings = keys.has('policy_dtype') || keys.has('reference_dtype') || keys.has('block_name');
  return keys.has('name_or_path') && settings && !keys.has('trainer');
}

/** An option of HALOs' `loss` group: the trainer class of train/trainers.py and its dataloader (config/loss/kto.yaml). */
function isHalosLossOption(keys: ReadonlySet<string>, text: string): boolean {
  return keys.has('trainer') && keys.has('dataloader') && /^trainer:\s*['"]?\w+Trainer\b/m.test(text);
}

/** An option of its `loss` group: a preference loss's name with DPO's beta or reference_free (config/loss/dpo.yaml). */
function isLossOption(keys: ReadonlySet<string>, text: string): boolean {
  return (
    keys.has('name') &&
    (keys.has('beta') || keys.has('reference_free')) &&
    keys.size <= 8 &&
    /^name:\s*['"]?(?:dpo|ipo|sft)\b/m.test(text)
  );
}

/** Whether a Hydra config is its application's primary config (a defaults list and the trainer), not a group option. */
export function isHydraPrimary(text: string): boolean {
  const keys = topKeys(text);
  return (keys.has('defaults') && keys.has('trainer')) || isRl2Primary(keys, text);
}

/** A file of the run with what it says: its facts and problems (ConfigFacts of format hydra-yaml). */
export interface HydraRunFile {
  readonly path: string;
  readonly text: string;
  readonly facts: ConfigFacts;
}

/** How a Hydra run is read: the launch line's overrides, the files of its config directory, and its primary config. */
export interface HydraRunInputs {
  readonly overrides: readonly LaunchArgument[];
  /** A file of the config directory, by its path relative to it. */
  readonly read: HydraRead;
  /** The primary config (`../config.yaml` of a group option), for a file that is not one. */
  readonly readPrimary: () => HydraFile | undefined;
  /** The file opened is its application's primary config (the one @hydra.main or a launch line names). */
  readonly primary?: boolean;
  /** The launcher whose line writes the overrides (with their places): their facts are said there. */
  readonly launcher?: string;
}

/**
 * The files of a Hydra run and their facts: from its primary config with the launch line's `overrides`, or from an
 * option of one of its groups (`model/pythia28.yaml`, `loss/dpo.yaml`: the primary is then `../config.yaml`, read with
 * `<group>=<option>`, or, without one, the option alone). The launcher's own facts, where the line places its
 * overrides, come with a file of its path and no text.
 */
export function hydraRun(opened: HydraFile, inputs: HydraRunInputs): HydraRunFile[] {
  const { overrides, read, launcher } = inputs;
  if (inputs.primary || isHydraPrimary(opened.text))
    return filesOf(composeHydra(opened, overrides, read, launcher), opened, launcher);
  const parts = opened.path.split(/[\\/]/);
  const option = (parts.pop() ?? '').replace(/\.ya?ml$/i, '');
  const group = parts.pop() || 'model';
  const primary = inputs.readPrimary();
  if (primary && topKeys(primary.text).has('defaults')) {
    const composed = composeHydra(primary, [{ name: group, value: option }, ...overrides], read, launcher);
    if (composed.files.some((f) => f.path === opened.path)) return filesOf(composed, opened, launcher);
  }
  return filesOf(
    composeHydra(asOnlyOption(opened, group), overrides, () => opened, launcher),
    opened,
    launcher,
  );
}

/** A group option read without its primary: composed as the only option of its group. */
function asOnlyOption(option: HydraFile, group: string): HydraFile {
  return { path: `${option.path}#alone`, text: `defaults:\n- ${group}: option\n` };
}

/** A file read on its own (no other file of the run at hand): its own values as its run's, where they are its own. */
export function analyzeHydraYaml(text: string): ConfigFacts {
  const opened: HydraFile = { path: '', text };
  const files = hydraRun(opened, { overrides: [], read: () => undefined, readPrimary: () => undefined });
  const own = files.find((f) => f.path === '')?.facts;
  if (!own) return { format: 'hydra-yaml', facts: [], problems: [], references: [], tools: ['dpo-reference'] };
  // The options its defaults list names are read with the run (collect/), not here; they are its references, so
  // that the workspace's index of runs puts them in the run of the file that names this one.
  const references = defaultsOptionFiles(text).map((o) => ({ kind: 'config' as const, path: o.path, span: o.span }));
  return { ...own, references, problems: own.problems.filter((p) => p.code !== 'reference-not-found') };
}

/**
 * Whether a primary config composes into an application VRAM Lens reads by its own rules (the DPO reference
 * implementation, HALOs, RL2): a fork that changed its config's keys is read as any Hydra application's is.
 */
export function knownHydraApplication(
  primary: HydraFile,
  overrides: readonly LaunchArgument[],
  read: HydraRead,
): boolean {
  return applicationOf(composeHydra(primary, overrides, read)).known;
}

/** The application a composition is of, with its reading and the tools it names. */
function applicationOf(c: Composition): { byFile: FactsByFile; tools: Tool[]; known: boolean; alone: boolean } {
  if (isHalos(c)) return { byFile: halosFacts(c), tools: ['halos', 'accelerate'], known: true, alone: false };
  if (isRl2(c)) return { byFile: rl2Facts(c), tools: ['rl2'], known: true, alone: false };
  const tools: Tool[] = ['dpo-reference', 'pytorch'];
  if (isDpoReference(c)) return { byFile: dpoReferenceFacts(c), tools, known: true, alone: false };
  const alone = !c.values.has('trainer') && c.values.has('model.name_or_path');
  return { byFile: alone ? dpoModelFacts(c) : new Map(), tools, known: false, alone };
}

/**
 * The composition's files with their facts and problems. A model option read without its primary config gives the
 * model and its dtypes; an application VRAM Lens does not read is said at the top of the file opened. The facts of the
 * overrides a launcher writes (`launcher`) come last, under its path, with no text.
 */
function filesOf(c: Composition, opened: HydraFile, launcher: string | undefined): HydraRunFile[] {
  const { byFile, tools, known, alone } = applicationOf(c);
  const problems = new Map<string, ParseProblem[]>();
  const say = (file: string, p: ParseProblem): void => void problems.set(file, [...(problems.get(file) ?? []), p]);
  for (const p of c.problems) say(p.file, p.problem);
  const top = { start: 0, end: 0 };
  if (alone)
    say(opened.path, {
      code: 'not-static',
      severity: 'info',
      span: top,
      ...msg(
        "a model option of a Hydra config read without its primary config (../config.yaml): the trainer's settings are its defaults",
      ),
    });
  else if (!known)
    say(opened.path, {
      code: 'not-modeled',
      severity: 'warning',
      span: top,
      ...msg(
        "a Hydra config whose application is not read: VRAM Lens reads the DPO reference implementation's, HALOs' and RL2's",
      ),
    });
  const files: HydraFile[] = c.files.filter((f) => !f.path.endsWith('#alone'));
  if (!files.some((f) => f.path === opened.path)) files.unshift(opened);
  if (launcher !== undefined && byFile.has(launcher)) files.push({ path: launcher, text: '' });
  return files.map((f) => ({
    path: f.path,
    text: f.text,
    facts: {
      format: 'hydra-yaml',
      facts: byFile.get(f.path)?.facts ?? [],
      problems: [...(problems.get(f.path) ?? []), ...(byFile.get(f.path)?.problems ?? [])],
      references: [],
      tools,
    },
  }));
}

/** The top-level keys of a YAML text, line by line (block style, as Hydra configs are written). */
function topKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const m of text.matchAll(/^([A-Za-z_][\w.-]*)\s*:/gm)) keys.add(m[1]);
  return keys;
}
