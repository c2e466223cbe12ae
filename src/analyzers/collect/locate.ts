// Where the file a reference names is found (collect/index.ts): the text the referencing file writes, a module's file
// under the names Python finds it by, a file a tool ships, else the file at its path; and why one is not read.
// Pure: files come through the pipeline's FileReader.
import { bundledFileName, bundledNote, findBundledDeepspeed } from '../deepspeed-json/bundled';
import { detectFormat } from '../detect';
import { msg, type Format, type Reference } from '../facts';
import type { AnalyzedFile } from '../resolve';
import { rl2Shipped, shippedHydraOrigin } from '../hydra/rl2-shipped';
import { torchtuneBuiltin } from '../yaml/torchtune-builtin';
import { llamafactoryExample } from '../yaml/llamafactory-examples';
import { trlAccelerateConfig } from '../yaml/trl-accelerate-configs';
import { findModule, findReference, type FileReader } from '../file-reader';
import type { VisitHow } from './reading';
import { README_NAMES, blank, escape, withAssignments } from './readme-command';
import { README_LINES, usageArguments, type UsageCommand } from '../hf-python/usage-line';

/**
 * A file a tool ships, for a reference that finds none: a DeepSpeed config that Axolotl or LLaMA-Factory ships, named
 * as their examples do, or a config torchtune ships, named by `tune run ... --config <name>`; read as published, its
 * values said to be that tool's.
 */
export function shippedFile(
  ref: Reference,
  format: Format | undefined,
): { file: string; text: string; how: Pick<VisitHow, 'forced' | 'origin'> } | undefined {
  const deepspeed = ref.kind === 'deepspeed' ? findBundledDeepspeed(ref.path, format) : undefined;
  if (deepspeed) {
    return {
      file: bundledFileName(deepspeed),
      text: JSON.stringify(deepspeed.config, null, 2),
      how: { forced: 'deepspeed-json', origin: { kind: 'bundled', ...bundledNote(deepspeed) } },
    };
  }
  const rl2 = ref.kind === 'config' && ref.hydra ? rl2Shipped(ref.path) : undefined;
  if (rl2)
    return { file: rl2.file, text: rl2.text, how: { forced: 'hydra-yaml', origin: shippedHydraOrigin(rl2.file) } };
  if (ref.kind !== 'config') return undefined;
  for (const { find, forced, underHydra } of SHIPPED_CONFIGS) {
    const shipped = ref.hydra && !underHydra ? undefined : find(ref.path);
    if (shipped) {
      const { owner, note } = shipped;
      return { file: shipped.file, text: shipped.text, how: { forced, origin: { kind: 'bundled', owner, note } } };
    }
  }
  return undefined;
}

/** A config a tool ships: its synthetic file name, its text, and whose it is, said so. */
interface ShippedConfig {
  readonly file: string;
  readonly text: string;
  readonly owner: string;
  readonly note: string;
}

/**
 * The configs tools ship, looked up by the path a config reference names, in this order: LLaMA-Factory's examples,
 * TRL's Accelerate configs, torchtune's built-in recipes' configs (also named under a Hydra launch), each read as its
 * format.
 */
const SHIPPED_CONFIGS: readonly {
  readonly find: (path: string) => ShippedConfig | undefined;
  readonly forced: Format;
  readonly underHydra: boolean;
}[] = [
  { find: llamafactoryExample, forced: 'llamafactory-yaml', underHydra: false },
  { find: trlAccelerateConfig, forced: 'accelerate-yaml', underHydra: false },
  { find: torchtuneBuiltin, forced: 'torchtune-yaml', underHydra: true },
];

/** The file a reference names as the referencing file writes it (Reference.text), under a name of its own. */
function written(file: string, ref: Reference): ReturnType<typeof findReference> {
  return { path: `${ref.writtenBy ?? file}#${ref.path}`, text: ref.text, above: false, up: 0 };
}

/** The path of the file a reference names, as the pipeline finds it (for the files that run a file: node/launchers.ts, server/runs.ts). */
export function referencedPath(reader: FileReader, file: string, ref: Reference): string {
  if (ref.kind === 'module') return findModule(reader, file, ref.path).path;
  return located(reader, file, ref).path;
}

/**
 * A script a launch line runs under a folder no file of the run sets (`${BASE_PATH}/src/modelling/dpo/sft.py`, the
 * variable left to a `.env` file): the variable and the path below it, read in the project as a path from its root.
 */
export function variableRooted(ref: Reference): { variable: string; rest: string } | undefined {
  if (ref.kind !== 'script' || ref.module !== undefined) return undefined;
  const m = /^\$\{?(\w+)\}?\/+([^$`{}]+)$/.exec(ref.path.trim());
  return m && /\.py$/.test(m[2]) ? { variable: m[1], rest: m[2] } : undefined;
}

/** A reference's file: the text the referencing file writes, a module's file, else the file at its path. */
export function located(
  reader: FileReader,
  file: string,
  ref: Reference,
): ReturnType<typeof findReference> & { place?: string; moved?: string; rooted?: string; below?: string } {
  const found = locatedAsWritten(reader, file, ref);
  if (found.text !== undefined || ref.kind !== 'script' || ref.module !== undefined || ref.text !== undefined)
    return found;
  return foundBelow(reader, file, ref.path) ?? found;
}

/**
 * A training script found nowhere else, in the one subfolder of the launcher's folder or a folder above it that holds
 * its path (a subproject the script runs in after a `cd` the launcher does not write); undefined where none or several
 * do, or where one is refused.
 */
function foundBelow(
  reader: FileReader,
  file: string,
  relative: string,
): (ReturnType<typeof findReference> & { below: string }) | undefined {
  const hits: Array<{ path: string; text: string }> = [];
  for (const place of reader.below?.(file, relative) ?? []) {
    const text = reader.read(place);
    if (text !== undefined) hits.push({ path: place, text });
    if (hits.length > 1) return undefined;
  }
  const hit = hits[0];
  return hit ? { path: hit.path, text: hit.text, above: false, up: 0, below: hit.path } : undefined;
}

function locatedAsWritten(
  reader: FileReader,
  file: string,
  ref: Reference,
): ReturnType<typeof findReference> & { place?: string; moved?: string; rooted?: string } {
  if (ref.text !== undefined) return written(file, ref);
  const find = (path: string): ReturnType<typeof findReference> & { place?: string } =>
    ref.module !== undefined ? moduleFile(reader, file, path) : findReference(reader, file, path);
  const rooted = variableRooted(ref);
  if (rooted) {
    const inProject = find(rooted.rest);
    return inProject.text !== undefined ? { ...inProject, rooted: rooted.variable } : { ...inProject, path: ref.path };
  }
  const found = find(ref.path);
  if (found.text !== undefined || ref.cwd === undefined || reader.refusal?.(found.path) !== undefined) return found;
  // A path relative to the folder a launch script `cd`s to on its author's machine: its last parts in this checkout.
  const movedPath = `${ref.cwd}/${ref.path}`;
  const moved = find(movedPath);
  return moved.text !== undefined ? { ...moved, moved: movedPath } : found;
}

/**
 * The file of a module a launch line runs (`python -m pkg.train` names pkg/train.py): the file, else the package's
 * `__main__.py`, each also under `src/` (a src layout's package, installed to run so).
 */
function moduleFile(
  reader: FileReader,
  file: string,
  path: string,
): ReturnType<typeof findReference> & { place: string } {
  const main = path.replace(/\.py$/, '/__main__.py');
  for (const place of [path, main, `src/${path}`, `src/${main}`]) {
    const found = findReference(reader, file, place);
    if (found.text !== undefined) return { ...found, place };
  }
  return { ...findReference(reader, file, path), place: path };
}

/** The path with the other YAML ending (.yaml and .yml), where the reader has a file there; else undefined. */
export function otherYamlEnding(reader: FileReader, path: string): string | undefined {
  const m = /\.(ya?ml)$/i.exec(path);
  if (!m) return undefined;
  const other = path.slice(0, m.index) + (m[1].toLowerCase() === 'yaml' ? '.yml' : '.yaml');
  return reader.read(other) !== undefined ? other : undefined;
}

/** A file a shell script sources, where it launches a run itself (a shell script of the launch formats); else undefined. */
export function sourcedLaunch(
  reader: FileReader,
  file: string,
  ref: Reference,
): { path: string; text: string } | undefined {
  const found = findReference(reader, file, ref.path);
  return found.text !== undefined && detectFormat(found.path, found.text) === 'shell'
    ? { path: found.path, text: found.text }
    : undefined;
}

/**
 * Why a referenced file is not read (refused, missing, not the DeepSpeed config it is named as); undefined when it is.
 * A missing file whose name with the other YAML ending is there (`deepspeed_zero3.yaml` beside `deepspeed_zero3.yml`,
 * sdiehl/tiny-r1) is said: the launch stops on the name as written, and that file is not read for it.
 */
export function notRead(
  ref: Reference,
  target: string,
  text: string | undefined,
  refusal: string | undefined,
  sibling?: string,
): ReturnType<typeof msg> | undefined {
  if (refusal) return msg('the referenced file {0} is not read: {1}', ref.path, refusal);
  if (text === undefined && sibling !== undefined)
    return msg(
      'referenced file not found: {0} (looked for {1}); {2} is there, with the other YAML ending, but the launch stops on the name as written',
      ref.path,
      target,
      sibling,
    );
  // A DeepSpeed config not there leaves the run's ZeRO stage and offload unknown: said, as the estimate goes without.
  if (text === undefined && ref.kind === 'deepspeed')
    return msg(
      'referenced file not found: {0} (looked for {1}); the estimate is without ZeRO and offload, which the file would set',
      ref.path,
      target,
    );
  if (text === undefined) return msg('referenced file not found: {0} (looked for {1})', ref.path, target);
  const notDeepspeed = ref.kind === 'deepspeed' ? notADeepspeedConfig(text) : undefined;
  if (notDeepspeed)
    return msg('the referenced file {0} is not a DeepSpeed config ({1}); it is not read', ref.path, notDeepspeed);
  return undefined;
}

/** The files no format takes but those a script of the run loads for its values (read by the script, not missing one). */
export function notLoadedData(
  unrecognized: readonly string[],
  files: readonly AnalyzedFile[],
  reader: FileReader,
): string[] {
  const loaded = new Set(
    files.flatMap((f) =>
      f.facts.references.filter((r) => r.kind === 'data').map((r) => findReference(reader, f.file, r.path).path),
    ),
  );
  const key = (p: string): string => p.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const loadedKeys = [...loaded].map(key);
  // The same file named from two places: relative to the working folder by a launch line (a README's command), and
  // as the script finds it, from a folder above it (an absolute path ending in the relative one).
  const isLoaded = (u: string): boolean =>
    loaded.has(u) || loadedKeys.some((l) => l === key(u) || l.endsWith(`/${key(u)}`) || key(u).endsWith(`/${l}`));
  return unrecognized.filter((u) => !isLoaded(u));
}

/**
 * Why a file named as a DeepSpeed config is not one, or undefined when it may be: a DeepSpeed config is a JSON (or
 * hjson) object, so its first character after blanks and comments is `{`. Files that are not configs of the run are
 * never analyzed, so nothing of their content reaches a message.
 */
export function notADeepspeedConfig(text: string): string | undefined {
  const body = text.replace(/^\uFEFF/, '');
  let i = 0;
  while (i < body.length) {
    if (/\s/.test(body[i])) i++;
    else if (body.startsWith('//', i) || body[i] === '#') i = nextLine(body, i);
    else if (body.startsWith('/*', i)) i = body.indexOf('*/', i + 2) < 0 ? body.length : body.indexOf('*/', i + 2) + 2;
    else break;
  }
  if (i >= body.length) return 'it is empty';
  return body[i] === '{' ? undefined : 'it is not a JSON object';
}

function nextLine(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl < 0 ? text.length : nl + 1;
}

/**
 * The README.md beside a script whose first command that runs it (hf-python/usage-line.ts) is read as a launch script in
 * place: the README's text with every other line blanked (offsets and lines kept), a shell prompt before the command
 * (`$ `) blanked too. Undefined where the folder has no README that runs the script.
 */
export function readmeLaunch(reader: FileReader, file: string): { path: string; text: string } | undefined {
  const found = readmeCommand(reader, file);
  if (!found) return undefined;
  // The command with the variables its code block sets before it (`MODEL_PATH="deepseek-ai/..."` above
  // `deepspeed finetune_deepseekcoder.py --model_name_or_path $MODEL_PATH`), every other line blanked.
  const lines = found.text.split('\n');
  const command = Array.from(
    { length: found.usage.lastLine - found.usage.line + 1 },
    (_, k) => found.usage.line - 1 + k,
  );
  const kept = withAssignments(lines, found.usage.line - 1, command);
  const only = lines.map((l, k) => (kept.has(k) ? l : blank(l))).join('\n');
  return {
    path: found.path,
    text: only.replace(/^([ \t]*)([$>] )/m, (_, lead: string, prompt: string) => lead + ' '.repeat(prompt.length)),
  };
}

/**
 * The README.md of a script's folder whose text shows a command that runs the script, with that command; else the
 * README of the folder above, where its command runs the script by its path from there (`python src/train.py`) or by
 * its name alone when no file of that name is beside the README (nlpxucan/WizardLM's WizardCoder/README.md:
 * `deepspeed train_wizardcoder.py ...` for src/train_wizardcoder.py, which its steps copy into place).
 */
export function readmeCommand(
  reader: FileReader,
  file: string,
  commands: readonly string[] = [],
): { name: string; path: string; text: string; usage: UsageCommand } | undefined {
  const script = file.split(/[\\/]/);
  const base = script[script.length - 1];
  const folder = script[script.length - 2];
  for (const up of folder && !['', '.', '..'].includes(folder) ? ['', '../'] : ['']) {
    if (up && reader.read(reader.join(file, `../${base}`)) !== undefined) break;
    for (const name of README_NAMES) {
      const path = reader.join(file, `${up}${name}`);
      const text = reader.read(path);
      const usage = text === undefined ? undefined : usageArguments(text, file, README_LINES, commands);
      if (text === undefined || !usage) continue;
      if (up && !usage.command && !runsFromAbove(text, usage, base, folder)) continue;
      return { name: `${up}${name}`, path, text, usage };
    }
  }
  return undefined;
}

/** Whether a README's command names the script bare or by its folder's path (`train.py`, `./src/train.py`). */
function runsFromAbove(text: string, usage: UsageCommand, base: string, folder: string): boolean {
  const lines = text
    .split('\n')
    .slice(usage.line - 1, usage.lastLine)
    .join(' ');
  const named = new RegExp(`(?:^|\\s)(\\S*?)${escape(base)}(?=\\s|$)`).exec(lines);
  return named !== null && ['', './', `${folder}/`, `./${folder}/`].includes(named[1]);
}
