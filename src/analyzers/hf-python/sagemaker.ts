// A SageMaker training job a script or notebook starts: `HuggingFace(entry_point="run_sft.py", source_dir="./scripts",
// hyperparameters={...}, instance_type="ml.g5.2xlarge", instance_count=1, ...)` (sagemaker.huggingface, and the
// PyTorch estimator of sagemaker.pytorch). The job runs the entry point in the source folder with the hyperparameters
// as `--key value` options (sagemaker's HuggingFace containers), on instance_count instances of the instance type's
// GPUs: one process per instance unless `distribution` starts one per GPU (torch_distributed, pytorchddp,
// smdistributed's data parallelism). Read as a launch of that script, with the instance's GPU and counts as facts at
// the call, and the container's transformers release. Pure; never throws on user text.
// Docs: docs/formats.md (Python scripts)
import type { SyntaxNode } from '@lezer/common';
import type { Fact, FactValue, LaunchArgument } from '../facts';
import type { Entry, PythonFile, Val } from './file';
import { span } from './syntax';
import { SCRIPT_FLAGS, type FlagSpec } from '../shell/flags';

/** The estimator classes that start a training job from an entry point. */
export const SAGEMAKER_ESTIMATORS: ReadonlySet<string> = new Set(['HuggingFace', 'PyTorch']);

/**
 * GPU instance types by family and size: the GPU of the catalog and how many an instance has (AWS's accelerated
 * computing instance pages: g4dn T4, g5 A10G, g6 L4, p3 V100 16 GB, p3dn V100 32 GB, p4d A100 40 GB, p4de A100 80 GB,
 * p5 H100).
 */
const INSTANCE_GPUS: Readonly<
  Record<string, { readonly gpu: string; readonly counts: Readonly<Record<string, number>> }>
> = {
  g4dn: { gpu: 'T4', counts: { '12xlarge': 4, metal: 8 } },
  g5: { gpu: 'A10G', counts: { '12xlarge': 4, '24xlarge': 4, '48xlarge': 8 } },
  g6: { gpu: 'L4', counts: { '12xlarge': 4, '24xlarge': 4, '48xlarge': 8 } },
  p3: { gpu: 'V100-16GB', counts: { '8xlarge': 4, '16xlarge': 8 } },
  p3dn: { gpu: 'V100-32GB', counts: { '24xlarge': 8 } },
  p4d: { gpu: 'A100-40GB', counts: { '24xlarge': 8 } },
  p4de: { gpu: 'A100-80GB', counts: { '24xlarge': 8 } },
  p5: { gpu: 'H100-80GB', counts: { '48xlarge': 8 } },
};

/** `ml.g5.12xlarge`: its GPU and how many it has (one for the sizes not listed), or undefined. */
export function instanceGpus(type: string): { readonly gpu: string; readonly count: number } | undefined {
  const m = /^(?:ml\.)?([a-z0-9]+)\.([a-z0-9]+)$/.exec(type.trim());
  const family = m ? INSTANCE_GPUS[m[1]] : undefined;
  if (!m || !family) return undefined;
  return { gpu: family.gpu, count: family.counts[m[2]] ?? 1 };
}

/** The value of an estimator keyword known statically, or undefined. */
function keywordValue(file: PythonFile, entries: readonly Entry[], key: string): Val | undefined {
  const e = entries.find((x) => x.rawKey === key);
  return e ? file.valueOf(e) : undefined;
}

/** The hyperparameters as the job's command line: each a `--key value` option; values not known statically are null. */
function hyperparameters(file: PythonFile, entries: readonly Entry[]): LaunchArgument[] {
  return entries.map((e) => {
    const x = file.valueOf(e);
    const value = x.k === 'lit' && x.v !== null && typeof x.v !== 'object' ? String(x.v) : null;
    return { name: e.rawKey, value };
  });
}

/**
 * The hyperparameters that are the HF Trainer's or TRL's own flags (`per_device_train_batch_size`, `bf16`,
 * `gradient_checkpointing`, `max_seq_length`, ...: shell/flags.ts SCRIPT_FLAGS), read as a launch line's flags are, at
 * the notebook's key: the job's command line passes them to the script's parser.
 */
function trainerFlags(file: PythonFile, entries: readonly Entry[]): void {
  for (const e of entries) {
    const s = SCRIPT_FLAGS[e.rawKey];
    const x = file.valueOf(e);
    if (!s || x.k !== 'lit' || x.v === null) continue;
    const value = flagValue(s, x.v);
    const out = value === undefined ? undefined : s.conv ? s.conv(value) : [[s.key, value] as const];
    for (const [key, fv] of out ?? [])
      file.facts.push({
        key,
        rawKey: e.rawKey,
        value: fv,
        rawValue: file.text.slice(e.valueSpan.start, e.valueSpan.end),
        keySpan: e.keySpan,
        valueSpan: e.valueSpan,
        tool: s.tool ?? 'hf-trainer',
      });
  }
}

/** A Python literal as a flag of that kind takes it, or undefined where it is not one. */
function flagValue(s: FlagSpec, v: FactValue): FactValue | undefined {
  switch (s.kind) {
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
    case 'num':
      return typeof v === 'number' ? v : undefined;
    case 'bool':
      return typeof v === 'boolean' ? v : undefined;
    case 'str':
      return typeof v === 'string' ? v : undefined;
    case 'list':
      return Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined;
  }
}

/**
 * The hyperparameters keyword's items: a dict, or the keywords of a call that makes the object (`Hyperparameters(
 * model_id=..., ...)`), also through `.to_dict()` of it, where written or where a name bound to it is.
 */
function hyperparameterEntries(file: PythonFile, entries: readonly Entry[]): readonly Entry[] {
  const e = entries.find((x) => x.rawKey === 'hyperparameters');
  if (!e?.valueNode) return [];
  const v = file.valueOf(e);
  if (v.k === 'dict') return v.entries;
  if (v.k !== 'call') return [];
  let node = v.node;
  for (let hops = 0; hops < 3; hops++) {
    const callee = node.firstChild;
    const receiver = callee?.name === 'MemberExpression' ? callee.firstChild : null;
    if (
      !receiver ||
      receiver.name !== 'CallExpression' ||
      !/\.to_dict$/.test(file.text.slice(callee!.from, callee!.to))
    )
      break;
    node = receiver;
  }
  return file.args(node).entries;
}

/** A training job an estimator starts: the entry point's run, its GPUs and the containers' releases. */
export function sagemakerEstimator(file: PythonFile, call: SyntaxNode): void {
  const { entries } = file.args(call);
  const entry = keywordValue(file, entries, 'entry_point');
  if (entry?.k !== 'lit' || typeof entry.v !== 'string') return;
  const source = keywordValue(file, entries, 'source_dir');
  const folder = source?.k === 'lit' && typeof source.v === 'string' ? source.v.replace(/\/+$/, '') : '.';
  const path = `${folder}/${entry.v}`.replace(/^\.\//, '');
  const at = span(call.firstChild!);
  const given = hyperparameterEntries(file, entries);
  file.references.push({ kind: 'script', path, span: at, args: hyperparameters(file, given) });
  trainerFlags(file, given);
  const fact = (key: Fact['key'], rawKey: string, value: FactValue, rawValue: string): void => {
    const e = entries.find((x) => x.rawKey === rawKey);
    file.facts.push({
      key,
      rawKey,
      value,
      rawValue,
      keySpan: e?.keySpan ?? at,
      valueSpan: e?.valueSpan ?? at,
      tool: 'hf-trainer',
    });
  };
  const type = keywordValue(file, entries, 'instance_type');
  const instance = type?.k === 'lit' && typeof type.v === 'string' ? instanceGpus(type.v) : undefined;
  if (instance) {
    fact('gpu', 'instance_type', instance.gpu, `${String(type?.k === 'lit' ? type.v : '')}: ${instance.gpu}`);
    const distribution = entries.find((x) => x.rawKey === 'distribution');
    const written = distribution ? file.text.slice(distribution.valueSpan.start, distribution.valueSpan.end) : '';
    const distributed = /torch_distributed|pytorchddp|smdistributed|mpi/.test(written);
    const per = distributed ? instance.count : 1;
    fact(
      'gpusPerNode',
      'instance_type',
      per,
      distributed
        ? `${instance.count} x ${instance.gpu}, one process per GPU (distribution)`
        : `one process on ${instance.count} x ${instance.gpu} (no distribution)`,
    );
  }
  const count = keywordValue(file, entries, 'instance_count');
  if (count?.k === 'lit' && typeof count.v === 'number') fact('nodes', 'instance_count', count.v, String(count.v));
  // The container's transformers release (its PyTorch release is the image's, not a fact of the run here).
  const release = keywordValue(file, entries, 'transformers_version');
  if (release?.k === 'lit' && typeof release.v === 'string')
    fact('transformersVersion', 'transformers_version', release.v, release.v);
}
