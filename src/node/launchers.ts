// The files that run a given file (a launch script its training script, a launcher its DeepSpeed config): found under
// a folder, as the workspace index of runs finds them (server/runs.ts), for the CLI given one file of a run. A file
// is read only when it names the given one's base name; its references are then resolved as the pipeline resolves
// them.
import * as path from 'node:path';
import { analyzeAs, detectFormat } from '../analyzers/detect';
import { projectModules, referencedPath, type FileReader } from '../analyzers/pipeline';
import { candidates } from './candidates';
import { HYDRA_MAIN } from '../analyzers/hf-python/hydra-app';
import { usageArguments } from '../analyzers/hf-python/usage-line';
import { findReference } from '../analyzers/file-reader';

/** The files under `root` whose references reach `file` (absolute paths, in path order). */
export function launchersOf(file: string, root: string, reader: FileReader): string[] {
  const target = path.resolve(file);
  const name = path.basename(target);
  const out: string[] = [];
  for (const f of candidates(root)) {
    if (path.resolve(f) === target) continue;
    const text = reader.read(f);
    if (text === undefined || !(text.includes(name) || readsHydraConfigs(text, name))) continue;
    const format = detectFormat(f, text);
    if (!format || format === 'scenario') continue;
    // A script's references include the files it loads through its project's modules (`load_config` of utils.py).
    const refs = analyzeAs(format, text, { readModule: projectModules(reader, f) }).references.filter(
      (r) => !/[$`]|\{\{/.test(r.path) && !/^\s*\{/.test(r.path),
    );
    if (
      refs.some((r) => path.resolve(referencedPath(reader, f, r)) === target) ||
      usageFiles(reader, f, text).includes(target)
    )
      out.push(path.resolve(f));
  }
  return out.sort();
}

/**
 * A Hydra application reads the YAML files of its config folder by name without extension (`config_name="train"`) and
 * the options of its groups by the defaults list's choices (hf-python/hydra-app.ts): any YAML may be one of them.
 */
function readsHydraConfigs(text: string, name: string): boolean {
  return /\.ya?ml$/i.test(name) && HYDRA_MAIN.test(text);
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
