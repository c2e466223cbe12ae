// The console scripts a project declares for a Python file: pyproject.toml's `[project.scripts]` (PEP 621) and
// `[tool.poetry.scripts]` entries `name = "package.module:function"` whose module is that file. A script's usage line
// often runs it by that name (`qlora-train --config configs/qwen3/1.7b.yaml` for qwen_qlora_train/train.py,
// techwithsergiu/qwen-qlora-train). Pure: the reader gives the texts; a pyproject.toml that does not parse gives none.
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

/** The console scripts of a pyproject.toml's text whose module is `relativePath` (from the pyproject's folder). */
export function consoleScriptNames(pyproject: string, relativePath: string): string[] {
  let root: Record<string, unknown>;
  try {
    root = parse(pyproject) as Record<string, unknown>;
  } catch {
    return [];
  }
  const project = root.project as Record<string, unknown> | undefined;
  const poetry = (root.tool as Record<string, Record<string, unknown>> | undefined)?.poetry;
  const entries = [...scriptsTable(project?.scripts), ...scriptsTable(poetry?.scripts)];
  return entries.filter(([, entry]) => moduleFiles(entry).includes(relativePath)).map(([name]) => name);
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
