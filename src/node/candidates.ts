// The files under a folder that can take part in a run (launch scripts, training scripts, configs), breadth first and
// bounded: what the workspace index of runs (server/runs.ts) and the CLI's search for a file's launcher (launchers.ts)
// read.
import * as path from 'node:path';
import { listEntries } from './files';

/** File kinds that can take part in a run. */
const CANDIDATE = /\.(sh|bash|slurm|sbatch|py|ipynb|ya?ml|json|jsonc|hjson|conf)$/i;
/** Folders never scanned. */
const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  'env',
  '__pycache__',
  'site-packages',
  'dist',
  'build',
  'out',
  '.tox',
  '.mypy_cache',
  'wandb',
  'outputs',
  'checkpoints',
]);
const MAX_FILES = 5000;
const MAX_DEPTH = 8;

/** The candidate files under a folder, breadth first, bounded in count and depth. */
export function candidates(root: string): string[] {
  const out: string[] = [];
  let level = [root];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && out.length < MAX_FILES; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      for (const e of listEntries(dir)) {
        const name = path.basename(e.path);
        if (e.folder && !SKIP_DIRS.has(name) && !name.startsWith('.')) next.push(e.path);
        else if (!e.folder && CANDIDATE.test(name)) out.push(e.path);
        if (out.length >= MAX_FILES) break;
      }
    }
    level = next;
  }
  return out;
}
