// Fix builders: turn setup changes (scenario-key terms, as advice produces them) into text edits of the user's own
// files, written in each tool's vocabulary and in each file's style. Pure: no 'vscode', no node:* and no I/O; edits
// are plain data (offsets into the original text) that vscode/convert.ts turns into a WorkspaceEdit.
//
// Shape: a planner per format (planners/) turns one change into path operations (`Op`, ops.ts: "set this key to
// this value"), using one vocabulary table per tool (planners/vocab.ts, FORMATS.md §1-§8); a writer per syntax
// (writers/: JSON, YAML, Python, shell) applies the operations to the text; the final text is diffed against the
// original into small EditData hunks (diff.ts). choose.ts decides which files a change is written to.
import { analyzeAs } from '../../analyzers/detect';
import type { AnalyzedFile } from '../../analyzers/resolve';
import type { CanonicalKey, FactValue } from '../../analyzers/facts';
import { analyzeScenario } from '../../analyzers/scenario';
import type { SetupChange } from '../../core';
import { type EditData, type FixFile, type FixPlan, type Op, failed } from './ops';
import { diffEdits } from './diff';
import { planChange } from './choose';
import { PLANNERS } from './planners';
export type { EditData, FixFile, FixPlan } from './ops';
export { applyEditData } from './diff';

/**
 * The analyzed files a quick fix may edit: inline and bundled DeepSpeed configs (AnalyzedFile.origin) are not on disk,
 * and a file that was not analyzed (over the size or nesting limits) is not parsed again to be written.
 */
export function editableFiles(files: readonly AnalyzedFile[]): FixFile[] {
  return files
    .filter((f) => !f.origin && !f.facts.problems.some((p) => p.code === 'not-analyzed'))
    .map((f) => ({ file: f.file, text: f.text, format: f.facts.format, facts: f.facts }));
}

function syntaxErrors(file: FixFile, text: string): number {
  if (file.format === 'scenario')
    return analyzeScenario(text, file.file).problems.filter((p) => p.code === 'syntax-error').length;
  return analyzeAs(file.format, text).problems.filter((p) => p.code === 'syntax-error').length;
}

/**
 * The syntax errors of a file as it is, counted once per file: every advice item written to it compares its edit with
 * them (a 50 KB YAML is read again in about 30 ms).
 */
const errorsBefore = new WeakMap<FixFile, number>();
function syntaxErrorsBefore(file: FixFile): number {
  let n = errorsBefore.get(file);
  if (n === undefined) {
    n = syntaxErrors(file, file.text);
    errorsBefore.set(file, n);
  }
  return n;
}

/** Edits that apply a list of setup changes (scenario-key terms) to the user's own files, in each file's format and style. */
export function editsForChanges(
  changes: readonly SetupChange[],
  files: readonly FixFile[],
  primaryFile: string,
): FixPlan {
  const unsupported: { key: string; reason: string }[] = [];
  const perFile = new Map<FixFile, { key: string; op: Op }[]>();
  for (const ch of changes) {
    const r = planChange(ch, changes, files, primaryFile);
    if ('reason' in r && typeof r.reason === 'string') {
      unsupported.push({ key: ch.key, reason: r.reason });
      continue;
    }
    for (const [f, ops] of r as Map<FixFile, readonly Op[]>) {
      const list = perFile.get(f) ?? [];
      for (const o of ops) list.push({ key: ch.key, op: o });
      perFile.set(f, list);
    }
  }
  if (unsupported.length > 0) return { edits: [], unsupported };
  const edits: EditData[] = [];
  for (const [f, ops] of perFile) {
    let text = f.text;
    for (const { key, op: o } of ops) {
      const w = PLANNERS[f.format].write(f, text, o);
      if (failed(w)) {
        unsupported.push({ key, reason: `${f.file}: ${w.reason}` });
        break;
      }
      text = w.text;
    }
    if (text !== f.text && syntaxErrors(f, text) > syntaxErrorsBefore(f)) {
      unsupported.push({ key: ops[0]?.key ?? '', reason: `${f.file}: the edit would break the file's syntax` });
    }
    edits.push(...diffEdits(f.file, f.text, text));
  }
  if (unsupported.length > 0) return { edits: [], unsupported };
  return { edits, unsupported: [] };
}

/** Canonical keys that have a setup-key counterpart, for setKey. */
const CANONICAL_TO_SETUP: Partial<Record<CanonicalKey, string>> = {
  microBatchSize: 'micro_batch_size',
  gradientAccumulationSteps: 'gradient_accumulation_steps',
  seqLen: 'seq_len',
  gradientCheckpointing: 'gradient_checkpointing',
  weightsDtype: 'weights_dtype',
  mixedPrecision: 'mixed_precision',
  optimizer: 'optimizer',
  attention: 'attention',
  loss: 'loss',
  compile: 'compile',
  activationOffloading: 'activation_offloading',
  zeroStage: 'zero_stage',
  offloadOptimizer: 'offload_optimizer',
  offloadParams: 'offload_params',
  fsdp: 'fsdp',
  method: 'method',
  gpusPerNode: 'gpus_per_node',
  nodes: 'nodes',
};

/** One setting in one file: replace the value where the key is written, else insert the key where the format puts it. */
export function setKey(file: FixFile, key: CanonicalKey, value: FactValue): EditData[] | undefined {
  let ch: SetupChange | undefined;
  const setup = CANONICAL_TO_SETUP[key];
  if (setup) ch = { key: setup as SetupChange['key'], value };
  else if (key === 'bf16' || key === 'fp16') ch = { key: 'mixed_precision', value: value === true ? key : 'none' };
  else if (key === 'loraR' || key === 'loraAlpha' || key === 'loraDropout') {
    const field = key === 'loraR' ? 'r' : key === 'loraAlpha' ? 'alpha' : 'dropout';
    ch = { key: 'lora', value: { [field]: value } };
  }
  if (!ch) return undefined;
  const plan = editsForChanges([ch], [file], file.file);
  return plan.unsupported.length > 0 ? undefined : [...plan.edits];
}
