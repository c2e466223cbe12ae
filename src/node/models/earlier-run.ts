// A model path that is the output folder of another run of the project: a DPO config's `model_name: outputs/sft_full`
// where the SFT config beside it writes `output_dir: outputs/sft_full` and fine-tunes meta-llama/Llama-3.1-8B
// (jsalfeld/slim-lm), or a GRPO config's `model_path: checkpoints/sft` (baremetaldevx86/Qwen-2.5-1.5B-GRPO). A
// fine-tune keeps its base's architecture, so the base the earlier run names stands for the folder, with a note that
// says which file writes it; so does a merge that exports it (LLaMA-Factory's `export_dir`, juyongjiang/CodeUp's
// three stages, each trained on the merge of the one before). Node-side: lists and reads the project's files through the bounded reader.
import * as path from 'node:path';
import { catalogResolver } from '../../analyzers/resolve';
import { modelFromPathName } from '../../core';
import { candidates } from '../candidates';
import { readBounded, type ReadPolicy } from '../read';
import { downloads } from './downloads';
import type { ModelInfo } from './types';

/** The run that writes a folder: its file, the key and line of the folder, and the catalog model it trains. */
export interface EarlierRun {
  readonly file: string;
  readonly key: string;
  readonly line: number;
  readonly model: ModelInfo;
  /** The model as that file names it. */
  readonly named: string;
  /** The file downloads the model into the folder (downloads.ts) rather than trains it there. */
  readonly downloaded?: true;
}

/** `key: value`, `key=value`, `--key value`, `"key": "value"` or `call("value")` of one of `names`: the key and value. */
const assignment = (names: readonly string[], separators: string): RegExp =>
  new RegExp(
    `(?:^|[\\s,{(])["']?-{0,2}(${names.join('|')})["']?\\s*(?:[${separators}]\\s*|\\s+)["']?([^\\s"',)#]+)`,
    'g',
  );

/** Keys and calls that name the folder a run writes its model to. */
const OUTPUT = assignment(
  [
    'output_dir',
    'output-dir',
    'save_dir',
    'save_path',
    'output_path',
    'out_dir',
    'checkpoint_dir',
    'OUTPUT_DIR',
    'SAVE_DIR',
    'save_pretrained',
    'save_model',
    // LLaMA-Factory's `llamafactory-cli export`: the merged model of model_name_or_path and its adapter.
    'export_dir',
  ],
  ':=(',
);

/** Keys that name the model a run trains (the first whose value the catalog knows is taken). */
const MODEL = assignment(
  [
    'model_name_or_path',
    'pretrained_model_name_or_path',
    'base_model',
    'model_name',
    'model_path',
    'model_id',
    'MODEL_NAME',
    'MODEL_PATH',
    'BASE_MODEL',
    'model',
    'name',
  ],
  ':=',
);

/** Folder names too common to tell one run's output from another's by themselves. */
const GENERIC = new Set(['model', 'models', 'output', 'outputs', 'checkpoint', 'checkpoints', 'final', 'final_model']);

/** How many runs deep a run that starts from an earlier run's output is followed. */
const MAX_HOPS = 3;

/** The last parts of a path that identify it: the last one, or the last two where the last is a common name. */
function tail(p: string): string[] {
  const parts = p
    .trim()
    .replace(/^['"]|['"]$/g, '')
    .split(/[\\/]+/)
    .filter((x) => x && x !== '.');
  const last = parts[parts.length - 1];
  if (!last) return [];
  return GENERIC.has(last.toLowerCase()) ? parts.slice(-2) : [last];
}

/** Whether a folder a run writes is the folder `want` names (same identifying last parts). */
function sameFolder(written: string, want: readonly string[]): boolean {
  const parts = written.replace(/\/+$/, '').split(/[\\/]+/);
  return (
    want.length > 0 && parts.length >= want.length && want.every((w, i) => parts[parts.length - want.length + i] === w)
  );
}

/** The catalog model a file's model key names: the first that resolves, an earlier run's output followed. */
function modelOf(text: string, search: Search, hops: number): { model: ModelInfo; named: string } | undefined {
  // Comment lines are prose (LLaMA-Factory's `### model` heading above its model_name_or_path).
  for (const m of text.replace(/^[ \t]*#.*$/gm, '').matchAll(MODEL)) {
    const value = m[2];
    // A local folder of the author's is its model by its name (`/data/Models/Meta-Llama-3-8B`).
    const byName = /[\\/]/.test(value) ? modelFromPathName(value) : undefined;
    const hit = catalogResolver(byName?.id ?? value);
    if (hit.ok) return { model: { ...hit.model, notes: [] }, named: value };
    const earlier = hops < MAX_HOPS && /[\\/]/.test(value) ? findRun(value, search, hops + 1) : undefined;
    if (earlier) return { model: earlier.model, named: value };
  }
  return undefined;
}

interface Search {
  readonly root: string;
  readonly files: readonly string[];
  readonly policy: ReadPolicy;
  readonly exclude: string;
}

/** The run among the project's files that writes the folder `ref` names, with the model it trains. */
function findRun(ref: string, search: Search, hops: number): EarlierRun | undefined {
  const want = tail(ref);
  if (want.length === 0) return undefined;
  const needle = want[want.length - 1];
  for (const file of search.files) {
    if (path.resolve(file) === search.exclude) continue;
    const r = readBounded(file, 'config', search.policy);
    if (!r.ok || !r.text.includes(needle)) continue;
    const fetched = downloadInto(r.text, want);
    if (fetched) return { file: path.relative(search.root, file), ...fetched };
    for (const m of r.text.matchAll(OUTPUT)) {
      if (!sameFolder(m[2], want)) continue;
      const model = modelOf(r.text, search, hops);
      if (!model) continue;
      const line = r.text.slice(0, m.index).split('\n').length + (m[0].startsWith('\n') ? 1 : 0);
      return { file: path.relative(search.root, file), key: m[1], line, ...model };
    }
  }
  return undefined;
}

/** The catalog model a download step of the text fetches into the folder `want` names, where it says so. */
function downloadInto(text: string, want: readonly string[]): Omit<EarlierRun, 'file'> | undefined {
  for (const d of downloads(text)) {
    if (!sameFolder(d.folder, want)) continue;
    const hit = catalogResolver(d.id);
    if (!hit.ok) continue;
    const line = text.slice(0, d.index).split('\n').length;
    return { key: d.key, line, model: { ...hit.model, notes: [] }, named: d.id, downloaded: true };
  }
  return undefined;
}

/**
 * Searches made in the last seconds, by folder, naming file and reference: the editor resolves the model again on every
 * change of a file, and a search reads every file under the folder. An answer stands for RECENT_MS.
 */
const recent = new Map<string, { readonly at: number; readonly run: EarlierRun | undefined }>();
const RECENT_MS = 5000;
const RECENT_MAX = 32;

/**
 * The earlier run of the project whose output folder `ref` is, among the files under the working folder (the folder of
 * the file that names it where that is outside): undefined when no such file writes that folder.
 */
export function earlierRun(
  ref: string,
  opts: { readonly cwd: string; readonly from?: string },
  policy: ReadPolicy,
): EarlierRun | undefined {
  const from = opts.from ? path.resolve(opts.cwd, opts.from) : undefined;
  const cwd = path.resolve(opts.cwd);
  const inside = from === undefined || !path.relative(cwd, from).startsWith('..');
  const root = inside ? cwd : path.dirname(from);
  const key = `${root}\0${from ?? ''}\0${ref}`;
  const now = Date.now();
  const cached = recent.get(key);
  if (cached && now - cached.at < RECENT_MS) return cached.run;
  const files = candidates(root).filter((f) => /\.(ya?ml|json|sh|py|ipynb|toml)$/i.test(f));
  const run = findRun(ref, { root, files, policy, exclude: from ?? '' }, 0);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
  recent.set(key, { at: now, run });
  return run;
}
