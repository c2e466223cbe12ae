// A Makefile given alone (`make 13b` runs `accelerate launch -m axolotl.cli.train ./axolotl-13b.yml`, kallewoof/qlora):
// the recipe of its first target that starts a training run, read as the launch script it is, in place: the recipe's
// lines (their tab and a leading `@` or `-` blanked) and the file's variable definitions as shell assignments, every
// other line blanked (offsets and lines kept). Make's `$(NAME)` is written `${NAME}` (the same length), and a definition
// `NAME = value` (`:=`, `?=`, `export NAME = value`) becomes `NAME=value` with its name moved right, so that its value
// keeps its offsets; a value with spaces in it is set for its own line only, as the shell reads it, and stays unknown
// where the recipe reads it. A recipe that runs make again, a pattern rule and a function call (`$(shell ...)`) are not
// followed. Pure.
import { blank, LAUNCH_COMMAND, PYTHON_RUN } from './readme-command';

/** What names a target, a script or a module for training (`train:`, `sft.py`, `-m pkg.train_dpo`). */
const TRAINING_NAME = /train|finetune|fine[-_]tune|sft|dpo|grpo|ppo|pretrain|rlhf/i;

/** A target line: names, a colon (not `:=`), its prerequisites. */
const TARGET = /^[^\s#=:][^=:]*:(?!=)/;

/** A variable definition: `NAME = value`, `NAME := value`, `NAME ?= value`, `NAME += value`, after an optional export. */
const DEFINITION = /^(export\s+)?([A-Za-z_][\w]*)(\s*)([:?+]?=)(\s*)/;

/** Whether a file is named as make reads it. */
export function isMakefile(file: string): boolean {
  return /(?:^|[\\/])(?:GNUmakefile|[Mm]akefile|[^\\/]+\.mk)$/.test(file);
}

/** The Makefile read as the launch script of its first training target; undefined where no recipe starts one. */
export function makefileLaunch(text: string): string | undefined {
  const lines = text.split('\n');
  const recipe = trainingRecipe(lines);
  if (!recipe) return undefined;
  return lines
    .map((line, i) => {
      if (recipe.has(i)) return makeReferences(line.replace(/^\t([@-]+)?/, (m) => ' '.repeat(m.length)));
      const def = /^\t/.test(line) ? null : DEFINITION.exec(line);
      return def && def[4] !== '+=' ? makeReferences(assignment(line, def)) : blank(line);
    })
    .join('\n');
}

/**
 * The lines of the first target's recipe that starts a training run with a launcher or a training tool, else of the
 * first that runs Python for training (the target, or the script or module, named for it): `dataset:` running
 * `python convert-raw-dataset.py` is not the run.
 */
function trainingRecipe(lines: readonly string[]): Set<number> | undefined {
  const recipes = targets(lines);
  const launches = recipes.find((r) => r.lines.some((j) => LAUNCH_COMMAND.test(lines[j])));
  const trains = (line: string): boolean => {
    const m = PYTHON_RUN.exec(line);
    return m !== null && TRAINING_NAME.test(m[1] ?? m[2]);
  };
  const python = recipes.find(
    (r) =>
      r.lines.some((j) => trains(lines[j])) ||
      (TRAINING_NAME.test(r.name) && r.lines.some((j) => PYTHON_RUN.test(lines[j]))),
  );
  const chosen = launches ?? python;
  return chosen ? new Set(chosen.lines) : undefined;
}

/** Each target (not a special `.TARGET`) with its recipe's lines. */
function targets(lines: readonly string[]): { name: string; lines: number[] }[] {
  const out: { name: string; lines: number[] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!TARGET.test(lines[i]) || /^\./.test(lines[i])) continue;
    const recipe: number[] = [];
    for (let j = i + 1; j < lines.length && (/^\t/.test(lines[j]) || lines[j].trim() === ''); j++)
      if (/^\t/.test(lines[j])) recipe.push(j);
    out.push({ name: lines[i].slice(0, lines[i].indexOf(':')).trim(), lines: recipe });
  }
  return out;
}

/** `NAME = value` as `NAME=value`, the name moved right so the value keeps its offset (`export` kept before it). */
function assignment(line: string, def: RegExpExecArray): string {
  const [whole, exported, name] = def;
  const lead = exported ? 'export ' : '';
  const head = `${lead}${name}=`;
  return ' '.repeat(whole.length - head.length) + head + line.slice(whole.length);
}

/** Make's `$(NAME)` as the shell's `${NAME}`; `$$` (make's escaped dollar) at a word's start as the shell's `$`. */
function makeReferences(line: string): string {
  return line
    .replace(/\$\(([A-Za-z_]\w*)\)/g, (_, name: string) => `\${${name}}`)
    .replace(/(^|\s)\$\$/g, (_, lead: string) => `${lead} $`);
}
