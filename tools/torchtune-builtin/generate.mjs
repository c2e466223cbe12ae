#!/usr/bin/env node
// Writes src/analyzers/yaml/catalog/torchtune-configs.ts: the configs torchtune ships (`tune run <recipe> --config
// llama3_1/8B_lora_single_device`, recipes/configs/** of pytorch/torchtune), each cut to the keys VRAM Lens reads
// (the model and its adapters, the tokenizer's max_seq_len, the dataset's packing, the batch, the optimizer and the
// loss, dtype, compile, activation checkpointing and offloading, the parallel dims and FSDP's options).
//
//   node tools/torchtune-builtin/generate.mjs [--mirror DIR]
//
// DIR holds pytorch+torchtune/repo (a bare git copy); default /work/.mirror. The commit read is written in the file.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const mirror = args.includes('--mirror') ? args[args.indexOf('--mirror') + 1] : '/work/.mirror';
const git = (...a) =>
  execFileSync('git', ['--git-dir', path.join(mirror, 'pytorch+torchtune', 'repo'), ...a], {
    maxBuffer: 64 << 20,
  }).toString();

const KEEP = new Set([
  'model',
  'teacher_model',
  'tokenizer',
  'dataset',
  'batch_size',
  'gradient_accumulation_steps',
  'optimizer',
  'loss',
  'dtype',
  'compile',
  'enable_activation_checkpointing',
  'enable_activation_offloading',
  'ac_mode',
  'ac_option',
  'fsdp_cpu_offload',
  'fsdp_reshard_after_forward',
  'custom_sharded_layers',
  'optimizer_in_bwd',
  'tensor_parallel_dim',
  'context_parallel_dim',
  'data_parallel_shard_dim',
  'data_parallel_replicate_dim',
  'device',
  'quantizer',
]);
/** Keys of a block that say nothing about memory (paths, learning rates, names of files). */
const DROP_IN_BLOCK = new Set([
  'path',
  'source',
  'lr',
  'weight_decay',
  'betas',
  'eps',
  'merges_file',
  'special_tokens_path',
  'prompt_template',
  'split',
  'column_map',
  'data_files',
  'name',
  'new_system_prompt',
  'train_on_input',
]);

const commit = git('rev-parse', 'HEAD').trim();
const files = git('ls-tree', '-r', '--name-only', 'HEAD', 'recipes/configs')
  .split('\n')
  .filter((f) => /\.ya?ml$/.test(f));
const out = {};
for (const f of files) {
  const name = f.replace(/^recipes\/configs\//, '').replace(/\.ya?ml$/, '');
  const doc = YAML.parse(git('show', `HEAD:${f}`));
  if (!doc || typeof doc !== 'object' || !doc.model) continue;
  const kept = {};
  for (const [k, v] of Object.entries(doc)) if (KEEP.has(k)) kept[k] = prune(v);
  out[name] = YAML.stringify(kept, { lineWidth: 0 }).trimEnd();
}

function prune(v) {
  if (Array.isArray(v)) return v.map(prune);
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) if (!DROP_IN_BLOCK.has(k)) o[k] = prune(x);
    return o;
  }
  return v;
}

const names = Object.keys(out).sort();
const body = names
  .map(
    (n) =>
      `  ${JSON.stringify(n)}: [\n${out[n]
        .split('\n')
        .map((l) => `    ${JSON.stringify(l)},`)
        .join('\n')}\n  ],`,
  )
  .join('\n');
const ts = `// The configs torchtune ships (pytorch/torchtune@${commit.slice(0, 7)} recipes/configs/**), each cut to the keys VRAM Lens
// reads: what \`tune run <recipe> --config <name>\` runs when no file of that name is beside the launch line. Written by
// tools/torchtune-builtin/generate.mjs; do not edit by hand. Data only.

export const TORCHTUNE_COMMIT = '${commit}';

/** The config of each name torchtune's \`--config\` takes (\`llama3_1/8B_lora_single_device\`), as the lines of its YAML. */
export const TORCHTUNE_BUILTIN_CONFIGS: Readonly<Record<string, readonly string[]>> = {
${body}
};
`;
const target = path.join(here, '..', '..', 'src', 'analyzers', 'yaml', 'catalog', 'torchtune-configs.ts');
fs.writeFileSync(target, ts);
// The repository's formatter writes the file as the lint checks it.
execFileSync('npx', ['prettier', '--write', target], { stdio: 'ignore' });
console.log(`${names.length} configs, ${ts.length} characters -> ${path.relative(process.cwd(), target)}`);
