#!/usr/bin/env node
// Writes src/analyzers/yaml/catalog/llamafactory-examples.ts: the training examples LLaMA-Factory ships
// (examples/train_full, train_lora and train_qlora of hiyouga/LLaMA-Factory), each as its last version in the
// repository's history (a file renamed or removed since, `llama3_full_sft.yaml`, as it was last written), cut to the
// keys VRAM Lens reads: what `llamafactory-cli train examples/train_full/llama3_full_sft.yaml` runs from a LLaMA-Factory
// checkout that is not among the run's files.
//
//   node tools/llamafactory-examples/generate.mjs [--mirror DIR]
//
// DIR holds hiyouga+LLaMA-Factory/repo (a bare git copy); default /work/.mirror. The commits read are in the file.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const mirror = args.includes('--mirror') ? args[args.indexOf('--mirror') + 1] : '/work/.mirror';
const git = (...a) =>
  execFileSync('git', ['--git-dir', path.join(mirror, 'hiyouga+LLaMA-Factory', 'repo'), ...a], {
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();

const FOLDERS = ['examples/train_full', 'examples/train_lora', 'examples/train_qlora'];
/** Keys that say nothing about memory: outputs, logging, the learning-rate schedule, data preprocessing. */
const DROP = new Set([
  'output_dir',
  'logging_steps',
  'save_steps',
  'save_strategy',
  'plot_loss',
  'overwrite_output_dir',
  'save_only_model',
  'report_to',
  'learning_rate',
  'num_train_epochs',
  'lr_scheduler_type',
  'warmup_ratio',
  'ddp_timeout',
  'resume_from_checkpoint',
  'overwrite_cache',
  'preprocessing_num_workers',
  'dataloader_num_workers',
  'max_samples',
  'dataset_dir',
  'tokenized_path',
  'eval_dataset',
  'val_size',
  'eval_strategy',
  'eval_steps',
  'per_device_eval_batch_size',
  'trust_remote_code',
]);

const head = git('rev-parse', 'HEAD').trim();
const paths = [
  ...new Set(
    git('log', '--name-only', '--format=', '--', ...FOLDERS)
      .split('\n')
      .filter((f) => /^examples\/train_(full|lora|qlora)\/[\w.-]+\.ya?ml$/.test(f)),
  ),
].sort();
const out = {};
for (const f of paths) {
  // The last commit that touched the file: its version there, or before it where that commit removed it.
  const last = git('log', '-1', '--format=%H', head, '--', f).trim();
  let text;
  let commit = last;
  try {
    text = git('show', `${last}:${f}`);
  } catch {
    commit = git('rev-parse', `${last}^`).trim();
    text = git('show', `${commit}:${f}`);
  }
  const doc = YAML.parse(text);
  if (!doc || typeof doc !== 'object' || !doc.model_name_or_path || doc.do_train === false) continue;
  if (doc.do_predict === true || doc.do_eval === true) continue;
  const kept = {};
  for (const [k, v] of Object.entries(doc)) if (!DROP.has(k) && v !== null) kept[k] = v;
  out[f.replace(/^examples\//, '')] = { commit, lines: YAML.stringify(kept, { lineWidth: 0 }).trimEnd().split('\n') };
}

const names = Object.keys(out).sort();
const body = names
  .map(
    (n) =>
      `  ${JSON.stringify(n)}: {\n    commit: ${JSON.stringify(out[n].commit.slice(0, 7))},\n    lines: [\n` +
      `${out[n].lines.map((l) => `      ${JSON.stringify(l)},`).join('\n')}\n    ],\n  },`,
  )
  .join('\n');
const ts = `// The training examples LLaMA-Factory ships (hiyouga/LLaMA-Factory examples/train_full, train_lora, train_qlora), each
// at its last version in the history up to ${head.slice(0, 7)} and cut to the keys VRAM Lens reads: what
// \`llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml\` runs from a LLaMA-Factory checkout that is not
// among the run's files. Written by tools/llamafactory-examples/generate.mjs; do not edit by hand. Data only.

export const LLAMAFACTORY_EXAMPLES_HEAD = '${head}';

/** Each example by its path under examples/ (\`train_full/llama3_full_sft.yaml\`): the commit of the version kept, and its lines. */
export const LLAMAFACTORY_EXAMPLES: Readonly<Record<string, { readonly commit: string; readonly lines: readonly string[] }>> = {
${body}
};
`;
const target = path.join(here, '..', '..', 'src', 'analyzers', 'yaml', 'catalog', 'llamafactory-examples.ts');
fs.writeFileSync(target, ts);
// The repository's formatter writes the file as the lint checks it.
execFileSync('npx', ['prettier', '--write', target], { stdio: 'ignore' });
console.log(`${names.length} examples, ${ts.length} characters -> ${path.relative(process.cwd(), target)}`);
