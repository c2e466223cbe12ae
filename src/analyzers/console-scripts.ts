// The console scripts a project declares: pyproject.toml's `[project.scripts]` (PEP 621) and `[tool.poetry.scripts]`
// entries `name = "package.module:function"`, and setuptools' `console_scripts` in setup.py or setup.cfg. A script's
// usage line often runs it by that name (`qlora-train --config configs/qwen3/1.7b.yaml` for qwen_qlora_train/train.py,
// techwithsergiu/qwen-qlora-train), and a launcher does (`petrogpt-train --stage sft ...`, PetroGPT/PetroGPT's
// scripts/train_sft.sh): the file's names, and a name's file. Pure: the reader gives the texts; a pyproject.toml that
// does not parse gives none.
import { parse } from 'smol-toml';
import type { FileReader } from './file-reader';

/** Folders above a script where its project's pyproject.toml is looked for (the package folder, `src/`, the root). */
const LEVELS_UP = 3;

/** The entry points of one scripts table, by name: their `module:function` text. */
function scriptsTable(table: unknown): Array<[string, string]> {
  if (!table || typeof table !== 'object' || Array.isArray(table)) return [];
  return Object.entries(table as Record<string, unknown>).filter(
    (e): e is [string, string] => typeof e[1] === 'string',
  );
}

/** The files a module path names from the project's folder: `a.b` is a/b.py or a/b/__init__.py, also under src/. */
function moduleFiles(entry: string): string[] {
  const module = entry.split(':')[0].trim();
  if (!/^[A-Za-z_][\w.]*$/.test(module)) return [];
  const path = module.split('.').join('/');
  const files = [`${path}.py`, `${path}/__init__.py`, `${path}/__main__.py`];
  return [...files, ...files.map((f) => `src/${f}`)];
}

/** The entry points of a pyproject.toml's text (PEP 621 and Poetry), by name; none where it does not parse. */
function pyprojectEntries(pyproject: string): Array<[string, string]> {
  let root: Record<string, unknown>;
  try {
    root = parse(pyproject) as Record<string, unknown>;
  } catch {
    return [];
  }
  const project = root.project as Record<string, unknown> | undefined;
  const poetry = (root.tool as Record<string, Record<string, unknown>> | undefined)?.poetry;
  return [...scriptsTable(project?.scripts), ...scriptsTable(poetry?.scripts)];
}

/**
 * setuptools' console scripts: setup.py's `entry_points={"console_scripts": ["petrogpt-train = petrogpt_cli.train:
 * cli_main", ...]}` (each `"name = module:function"` string of a file that declares console_scripts), or setup.cfg's
 * `console_scripts =` lines under `[options.entry_points]`.
 */
function setuptoolsEntries(text: string): Array<[string, string]> {
  const at = text.indexOf('console_scripts');
  if (at < 0) return [];
  const entry = /["']?\s*([A-Za-z][\w.-]*)\s*=\s*([A-Za-z_][\w.]*\s*:\s*[\w.]+)\s*["']?/g;
  const out: Array<[string, string]> = [];
  for (const m of text.slice(at).matchAll(entry)) out.push([m[1], m[2].replace(/\s+/g, '')]);
  return out;
}

/** The files that declare a project's console scripts, and how each is read. */
const DECLARING: ReadonlyArray<readonly [string, (text: string) => Array<[string, string]>]> = [
  ['pyproject.toml', pyprojectEntries],
  ['setup.py', setuptoolsEntries],
  ['setup.cfg', setuptoolsEntries],
];

/** The console scripts of a pyproject.toml's text whose module is `relativePath` (from the pyproject's folder). */
export function consoleScriptNames(pyproject: string, relativePath: string): string[] {
  return pyprojectEntries(pyproject)
    .filter(([, entry]) => moduleFiles(entry).includes(relativePath))
    .map(([name]) => name);
}

/**
 * The module a console script of the project runs (`petrogpt-train` of PetroGPT/PetroGPT's setup.py, the module
 * petrogpt_cli/train.py), from the nearest pyproject.toml, setup.py or setup.cfg that declares it, in the launcher's
 * folder or up to three folders above; undefined where none does (a program installed from elsewhere).
 */
export function consoleScriptModule(
  reader: FileReader,
  from: string,
  name: string,
): { readonly path: string; readonly text: string } | undefined {
  for (let up = 0; up <= LEVELS_UP; up++) {
    for (const [declaring, entries] of DECLARING) {
      const place = reader.join(from, `${'../'.repeat(up)}${declaring}`);
      const text = reader.read(place, 'dependency');
      const entry = text === undefined ? undefined : entries(text).find(([n]) => n === name)?.[1];
      if (entry === undefined) continue;
      for (const relative of moduleFiles(entry)) {
        const path = reader.join(place, relative);
        const module = reader.read(path);
        if (module !== undefined) return { path, text: module };
      }
    }
  }
  return undefined;
}

/** The console scripts that run `file`, from the nearest pyproject.toml in its folder or up to three folders above. */
export function consoleScriptsOf(reader: FileReader, file: string): string[] {
  const parts = file.split(/[\\/]/);
  for (let up = 0; up <= LEVELS_UP && up < parts.length - 1; up++) {
    const text = reader.read(reader.join(file, `${'../'.repeat(up)}pyproject.toml`), 'dependency');
    if (text === undefined) continue;
    return consoleScriptNames(text, parts.slice(parts.length - 1 - up).join('/'));
  }
  return [];
}
