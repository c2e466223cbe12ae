// ArcticTraining's training config (src/analyzers/yaml/arctic.ts) and its command line (`arctic_training run.yml
// --num_gpus N`). Keys and defaults from snowflakedb/ArcticTraining@b28638e: config/trainer.py (micro_batch_size 1,
// build_deepspeed_config's stage 2 where zero_optimization is absent and bfloat16 for a bf16 model, set_max_length's
// max_position_embeddings), config/model.py (dtype bf16, attn sdpa), model/hf_factory.py (checkpointing unless
// disable_activation_checkpoint), arctic_training_cli.py (the DeepSpeed launcher's options after the config). The
// configs (test/fixtures/arctic and below) are written for these tests after projects/sequence-parallelism/run-h100-sp8-llama-8b.yml.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeArcticYaml } from '../../../src/analyzers/yaml/arctic';
import { estimate } from '../../../src/core/estimate';
import { editsForChanges, applyEditData } from '../../../src/features/fixes';
import { runFiles } from '../helpers';

const SP8 = fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/arctic/run-sp8-llama-8b.yml'), 'utf8');

const PLAIN = `micro_batch_size: 2
gradient_accumulation_steps: 4
model:
  name_or_path: meta-llama/Llama-3.1-8B-Instruct
data:
  sources:
    - HuggingFaceH4/ultrachat_200k
`;

const value = (text: string, key: string) =>
  [...analyzeArcticYaml(text).facts].reverse().find((f) => f.key === key)?.value;

describe('ArcticTraining training config', () => {
  it('is told by model.name_or_path and data.sources beside a trainer key; a project YAML without them is not', () => {
    assert.equal(detectFormat('run-h100-sp8-llama-8b.yml', SP8), 'arctic-yaml');
    assert.equal(detectFormat('sft.yaml', PLAIN), 'arctic-yaml');
    // Windows line ends, a comment after `model:` and a column-0 comment inside its block.
    const crlf = PLAIN.replace('model:\n', 'model:  # the base\n# pick one\n').replace(/\n/g, '\r\n');
    assert.equal(detectFormat('sft.yaml', crlf), 'arctic-yaml');
    const own = 'model:\n  name_or_path: gpt2\ntraining:\n  micro_batch_size: 2\n  lr: 1e-4\n';
    assert.notEqual(detectFormat('train.yaml', own), 'arctic-yaml');
  });

  it('ALST: sequence parallel 8, checkpoints offloaded, tiled MLP, Liger, ZeRO-3 with CPU Adam, max_length "1M"', () => {
    const r = runFiles({ '/a/sp8.yml': SP8 }, '/a/sp8.yml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual(
      [s.model, s.micro_batch_size, s.seq_len, s.context_parallel, s.gpus_per_node],
      ['meta-llama/Llama-3.1-8B-Instruct', 1, 1_000_000, 8, 8],
    );
    assert.deepEqual(
      [s.activation_offloading, s.tiled_mlp, s.gradient_checkpointing, s.kernels, s.loss, s.attention],
      [true, true, 'full', 'liger', 'fused', 'flash'],
    );
    assert.deepEqual(
      [s.zero_stage, s.offload_optimizer, s.optimizer, s.weights_dtype, s.master_weights],
      [3, 'cpu', 'adamw_fused', 'bf16', true],
    );
    // ZeRO-3 over the 8 GPUs the sequence is split over: 8,030,261,248 parameters x 2 B / 8 = 2,007,565,312 B.
    const e = estimate(s);
    assert.ok(e.ok);
    const weights = e.estimate.perGpu.components.find((c) => c.label === 'Weights');
    assert.equal(weights?.bytes, (8_030_261_248 * 2) / 8);
  });

  it("ArcticTraining's defaults: stage 2, bf16, checkpointing, micro-batch 1, max_length = max_position_embeddings", () => {
    const r = runFiles({ '/a/sft.yaml': PLAIN.replace('micro_batch_size: 2\n', '') }, '/a/sft.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    // Llama 3.1's config.json: max_position_embeddings 131,072.
    assert.deepEqual(
      [s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len, s.batch_lengths],
      [1, 4, 131_072, 'variable'],
    );
    assert.deepEqual(
      [s.zero_stage, s.weights_dtype, s.master_weights, s.gradient_checkpointing, s.optimizer, s.loss],
      [2, 'bf16', true, 'full', 'adamw_fused', 'full'],
    );
    assert.match(JSON.stringify(r.provenance.seq_len), /max_position_embeddings, 131072/);
    assert.match(JSON.stringify(r.provenance.zero_stage), /fills a missing zero_optimization with stage 2/);
  });

  it('model keys: fp32 weights turn no 16-bit mode on; checkpointing off; LoRA from peft_config; packing', () => {
    const text = PLAIN.replace(
      '  name_or_path: meta-llama/Llama-3.1-8B-Instruct\n',
      '  name_or_path: meta-llama/Llama-3.1-8B-Instruct\n  dtype: float32\n  disable_activation_checkpoint: true\n' +
        '  peft_config:\n    peft_type: LORA\n    r: 32\n    lora_alpha: 64\n    target_modules: [q_proj, k_proj]\n',
    ).replace(
      '    - HuggingFaceH4/ultrachat_200k\n',
      '    - HuggingFaceH4/ultrachat_200k\n  max_length: 4Ki\n  pack_samples: true\n',
    );
    assert.deepEqual(
      [value(text, 'weightsDtype'), value(text, 'bf16'), value(text, 'gradientCheckpointing'), value(text, 'method')],
      ['fp32', undefined, 'none', 'lora'],
    );
    assert.deepEqual(
      [value(text, 'loraR'), value(text, 'loraTargets'), value(text, 'seqLen'), value(text, 'batchLengths')],
      [32, ['q_proj', 'k_proj'], 4096, 'fixed'],
    );
  });

  it('sequence parallel without Liger is estimated as a fused loss, said as an assumption; DPO has its reference', () => {
    const tiled = SP8.replace('  type: "liger"\n', '');
    const loss = analyzeArcticYaml(tiled).facts.find((f) => f.key === 'loss');
    assert.deepEqual([loss?.value, loss?.origin], ['fused', 'call-default']);
    assert.match(loss?.defaultNote ?? '', /TiledFusedLogitsLoss/);
    const dpo = `type: dpo\n${PLAIN}ref_model:\n  name_or_path: meta-llama/Llama-3.1-8B-Instruct\n`;
    assert.deepEqual([value(dpo, 'preference'), value(dpo, 'referenceModel')], ['dpo', 'given']);
    // get_logprobs: one log_softmax over the batch's logits cast to fp32 (trainer/dpo_trainer.py), not TRL's rows.
    const run = runFiles({ '/a/dpo.yml': dpo }, '/a/dpo.yml');
    assert.deepEqual([run.setup?.preference?.logps, run.setup?.preference?.reference], ['whole', 'copy']);
    const own = analyzeArcticYaml(
      `type: swiftkv\ncode: train.py\n${PLAIN}`.replace(
        'Instruct\n',
        'Instruct\n  hf_config_kwargs:\n    num_hidden_layers: 2\n',
      ),
    );
    const said = own.problems.map((p) => `${p.rawKey}: ${p.message}`).join('\n');
    assert.match(said, /swiftkv is a trainer of the project's own/);
    // hf_config_kwargs is read (test/unit/analyzers/config-overrides.test.ts): no warning at it.
    assert.doesNotMatch(said, /hf_config_kwargs/);
  });

  it('the command line: the config, then the DeepSpeed launcher options; every GPU of the node without --num_gpus', () => {
    const files = {
      '/a/run4.sh': 'export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\narctic_training sft.yaml --num_gpus 4\n',
      '/a/all.sh': 'arctic_training train sft.yaml\n',
      '/a/data.sh': 'arctic_training process-data sft.yaml\n',
      '/a/sft.yaml': PLAIN,
    };
    const four = runFiles(files, '/a/run4.sh');
    assert.ok(four.setup, JSON.stringify(four.problems));
    assert.deepEqual(
      [four.setup.gpus_per_node, four.setup.micro_batch_size, four.setup.expandable_segments],
      [4, 2, true],
    );
    const all = runFiles(files, '/a/all.sh');
    assert.equal(all.setup?.gpus_per_node, 1);
    assert.match(
      JSON.stringify(all.provenance.gpus_per_node),
      /arctic_training \(DeepSpeed's launcher\) without --num_gpus uses every GPU of the node \(arctic_training at line 1\); one GPU is estimated/,
    );
    assert.equal(runFiles(files, '/a/data.sh').files.length, 1);
    // A config given alone is run by the command its README shows for it (collect/readme-command.ts).
    const readme =
      '# SFT\n```\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\narctic_training sft.yaml --num_gpus 2\n```\n';
    const alone = runFiles({ '/b/sft.yaml': PLAIN, '/b/README.md': readme }, '/b/sft.yaml');
    assert.equal(alone.setup?.gpus_per_node, 2);
    // The README given alone: its code block is read as the launch script, the config it names with it.
    const doc = runFiles({ '/b/sft.yaml': PLAIN, '/b/README.md': readme }, '/b/README.md');
    assert.deepEqual([doc.setup?.gpus_per_node, doc.setup?.model], [2, 'meta-llama/Llama-3.1-8B-Instruct']);
  });

  it("quick fixes are written at ArcticTraining's keys, the offload with DeepSpeed's CPU Adam", () => {
    const file = { file: 'sft.yaml', text: PLAIN, format: 'arctic-yaml' as const, facts: analyzeArcticYaml(PLAIN) };
    const plan = editsForChanges(
      [
        { key: 'micro_batch_size', value: 1 },
        { key: 'offload_optimizer', value: 'cpu' },
        { key: 'seq_len', value: 4096 },
      ],
      [file],
      'sft.yaml',
    );
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(PLAIN, plan.edits);
    assert.match(after, /^micro_batch_size: 1$/m);
    assert.match(after, /deepspeed:\n {2}zero_optimization:\n {4}offload_optimizer:\n {6}device: cpu/);
    assert.match(after, /optimizer:\n {2}type: cpu_adam/);
    assert.match(after, /data:\n {2}sources:\n {4}- HuggingFaceH4\/ultrachat_200k\n {2}max_length: 4096/);
  });
});
