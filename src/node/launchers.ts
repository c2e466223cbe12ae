// The files that run a given file (a launch script its training script, a launcher its DeepSpeed config, a script the
// project module it imports): found under a folder, as the workspace index of runs finds them (server/runs.ts), for
// the CLI given one file of a run. A file is read only when it names the given one's base name (a module's, its stem);
// its references are then resolved as the pipeline resolves them.
import * as path from 'node:path';
import { analyzeAs, detectFormat } from '../analyzers/detect';
import { projectModules, referencedPath, type FileReader } from '../analyzers/pipeline';
import { candidates } from './candidates';
import { hasHydraMain } from '../analyzers/hf-python/hydra-app';
import { usageArguments } from '../analyzers/hf-python/usage-line';
import { findReference } from '../analyzers/file-reader';
import { variableRooted } from '../analyzers/collect/locate';
import { alignAnythingModuleOf } from '../analyzers/shell/align-anything-launch';

/** The files under `root` whose references reach `file` (absolute paths, in path order). */
export function launchersOf(file: string, root: string, reader: FileReader): string[] {
  const target = path.resolve(file);
  const name = path.basename(target);
  // A module is named by its stem in the import statement of a script that imports it (`from config import Config`).
  const stem = /\.py$/i.test(name) ? name.slice(0, -3) : undefined;
  const importing =
    stem && /^\w+$/.test(stem) ? new RegExp(`^[ \\t]*(from|import)[ \\t]+[\\w.]*\\b${stem}\\b`, 'm') : undefined;
  // align-anything's launch lines name the trainer module that reads the config, not the file.
  const module = alignAnythingModuleOf(target);
  const out: string[] = [];
  for (const f of candidates(root)) {
    if (path.resolve(f) === target) continue;
    const text = reader.read(f);
    const named =
      text !== undefined &&
      (text.includes(name) ||
        readsHydraConfigs(text, name) ||
        (importing !== undefined && importing.test(text)) ||
        (module !== undefined && (text.includes(module) || text.includes(module.replace(/\./g, '/')))));
    if (text === undefined || !named) continue;
    if (filesReferencedBy(reader, f, text)?.includes(target)) out.push(path.resolve(f));
  }
  return out.sort();
}

/**
 * The files a config references, resolved as the pipeline resolves them (absolute paths): its references, the
 * files it loads through its project's modules (`load_config` of utils.py), the config its own usage line names, and
 * the project modules whose names it reads (`from config import MODEL_NAME`, a dataclass config), as its analysis
 * read them. Undefined for a file that is no config VRAM Lens reads.
 */
export function filesReferencedBy(reader: FileReader, file: string, text: string): string[] | undefined {
  const format = detectFormat(file, text);
  if (!format || format === 'scenario') return undefined;
  const modules: string[] = [];
  const read = projectModules(reader, file);
  const readModule: typeof read = (p, kind) => {
    const r = read(p, kind);
    if (r?.found !== undefined && kind !== 'data' && /\.py$/i.test(r.found)) modules.push(path.resolve(r.found));
    return r;
  };
  // A shell script's other launches count too: each is a run of its own of the files it names.
  const facts = analyzeAs(format, text, { readModule });
  const refs = [...facts.references, ...(facts.otherLaunchReferences ?? [])]
    .filter((r) => (!/[$`]|\{\{/.test(r.path) || variableRooted(r)) && !/^\s*\{/.test(r.path))
    .map((r) => path.resolve(referencedPath(reader, file, r)));
  return [...new Set([...refs, ...usageFiles(reader, file, text), ...modules])];
}

/**
 * A Hydra application reads the YAML files of its config folder by name without extension (`config_name="train"`) and
 * the options of its groups by the defaults list's choices (hf-python/hydra-app.ts): any YAML may be one of them.
 */
function readsHydraConfigs(text: string, name: string): boolean {
  return /\.ya?ml$/i.test(name) && hasHydraMain(text);
}

/**
 * The files a script's own usage line passes (its docstring's `python scripts/run_grpo.py --config configs/grpo.yaml`),
 * where they are: the run a script whose --config is required shows for itself (hf-python/usage-line.ts).
 */
export function usageFiles(reader: FileReader, file: string, text: string): string[] {
  if (!/\.py$/i.test(file)) return [];
  const out: string[] = [];
  for (const a of usageArguments(text, file)?.args ?? []) {
    if (typeof a.value !== 'string' || !/\.(ya?ml|json|toml)$/i.test(a.value)) continue;
    const found = findReference(reader, file, a.value);
    if (found.text !== undefined) out.push(path.resolve(found.path));
  }
  return out;
}

/** `if __name__ == "__main__":` and the block under it. */
const MAIN_BLOCK = /^if\s+__name__\s*==\s*(['"])__main__\1\s*:[^\n]*\n((?:[ \t]+[^\n]*\n?|[ \t]*\n)*)/m;

/**
 * Whether a Python file that imports a module runs the module's own entry: it calls a function the module's
 * `if __name__ == "__main__":` block calls, imported by name (`from train import train`, LLaVA's train_mem.py) or
 * through the module (`import train_reasoning_grpo as base`, then `base.main()`). Importing a module runs none of its
 * main block: a script that only takes helpers of another (`from train_reasoning_grpo import (...)` beside a trainer of
 * its own) is not that script's run. A module without a main block is run by whoever imports it.
 */
export function runsModuleEntry(moduleFile: string, moduleText: string, importerText: string): boolean {
  const block = MAIN_BLOCK.exec(moduleText)?.[2];
  if (block === undefined) return true;
  const stem = path.basename(moduleFile).replace(/\.py$/i, '');
  const called = new Set([...block.matchAll(/\b([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1] ?? ''));
  const aliases = [
    ...importerText.matchAll(
      new RegExp(String.raw`^[ \t]*import[ \t]+(?:[\w.]*\.)?${stem}(?:[ \t]+as[ \t]+(\w+))?`, 'gm'),
    ),
  ].map((m) => m[1] ?? stem);
  const fromImports = [
    ...importerText.matchAll(
      new RegExp(String.raw`^[ \t]*from[ \t]+(?:[\w.]*\.)?${stem}[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)`, 'gm'),
    ),
  ].flatMap((m) => (m[1] ?? '').replace(/[()]/g, ' ').split(/[\s,]+/));
  for (const name of called) {
    if (fromImports.includes(name) && new RegExp(String.raw`\b${name}\s*\(`).test(importerText)) return true;
    if (aliases.some((a) => new RegExp(String.raw`\b${a}\.${name}\s*\(`).test(importerText))) return true;
  }
  return false;
}
