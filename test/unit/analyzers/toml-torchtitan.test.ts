// torchtitan's TOML job config (src/analyzers/toml/torchtitan.ts) and its launch line (shell/torchtitan.ts): what each
// key means comes from pytorch/torchtitan@238fa99 torchtitan/config/job_config.py (the defaults: local_batch_size 8,
// seq_len 2048, global_batch_size -1, data_parallel_shard_degree -1, mode "selective" with option "2", AdamW
// "fused") and models/*/__init__.py (the flavors). test/fixtures/torchtitan/qwen3_8b.toml: Qwen3 8B over 2 x 8 GPUs.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeTorchtitanToml } from '../../../src/analyzers/toml/torchtitan';
import { readToml } from '../../../src/analyzers/toml/parse';
import { tomlSet } from '../../../src/features/fixes/writers/toml';
import { detectFormat } from '../../../src/analyzers/detect';
import { estimate } from '../../../src/core/estimate';
import { findGpu } from '../../../src/core/lookup';

const FIXTURE = fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/torchtitan/qwen3_8b.toml'), 'utf8');

const value = (text: string, key: string) =>
  analyzeTorchtitanToml(text)
    .facts.filter((f) => f.key === key)
    .pop()?.value;

describe('torchtitan TOML job configs', () => {
  it('reads where each key and value is written: tables, dotted keys, a comment after a value, a multi-line array', () => {
    const doc = readToml(FIXTURE);
    const impl = doc.entries.get('optimizer.implementation')!;
    assert.equal(FIXTURE.slice(impl.keySpan.start, impl.keySpan.end), 'implementation');
    assert.equal(impl.rawValue, '"foreach"');
    assert.equal(impl.value, 'foreach');
    const components = doc.entries.get('compile.components')!;
    assert.deepEqual(components.value, ['model', 'loss']);
    assert.match(components.rawValue, /^\[\n {2}"model",\n {2}"loss",\n\]$/);
    const dotted = readToml('[a]\nb.c = 3 # x\n').entries.get('a.b.c')!;
    assert.deepEqual([dotted.value, dotted.rawValue], [3, '3']);
  });

  it('a TOML syntax error is one error at the line the parser names, and no facts', () => {
    const r = analyzeTorchtitanToml('[model]\nname = "llama3"\nflavor = \n[training]\n');
    assert.equal(r.facts.length, 0);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0].code, 'syntax-error');
    assert.match(r.problems[0].message, /^TOML syntax error: /);
    assert.equal(r.problems[0].span.start, '[model]\nname = "llama3"\nflavor = '.length - 'flavor = '.length + 9);
  });

  it('the fixture: Qwen3 8B, 2 x 4,096 tokens, HSDP 2 x 8 (16 GPUs), op-level SAC, compile, foreach AdamW', () => {
    assert.equal(detectFormat('qwen3_8b.toml', FIXTURE), 'torchtitan-toml');
    const r = runFiles({ '/t/qwen3_8b.toml': FIXTURE }, '/t/qwen3_8b.toml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.equal(s.model, 'Qwen/Qwen3-8B');
    assert.deepEqual([s.micro_batch_size, s.seq_len], [2, 4096]);
    // 64 = 2 (local) x accumulation x 16 data-parallel GPUs: accumulation 2.
    assert.deepEqual([s.gpus_per_node * s.nodes, s.gradient_accumulation_steps], [16, 2]);
    assert.deepEqual([s.fsdp, s.fsdp_version, s.fsdp_shard_size], ['hybrid_shard', 2, 8]);
    assert.deepEqual([s.gradient_checkpointing, s.compile, s.optimizer], ['selective', true, 'adamw']);
    // torchtitan's defaults: fp32 parameters, bf16 param_dtype, the embeddings and the head in units of their own.
    assert.deepEqual(
      [s.weights_dtype, s.mixed_precision, s.fsdp_shard_embeddings, s.fsdp_tail_unit],
      ['fp32', 'bf16', true, true],
    );
    assert.equal(r.provenance.fsdp_tail_unit?.kind, 'default');
  });

  it('a degree so large that the GPU count overflows is said in words, not as Infinity', () => {
    // The fuzz campaign's mutant of the fixture: pipeline_parallel_degree = 1e308, so 2 x 8 x 1e308 GPUs.
    const text = FIXTURE.replace(/pipeline_parallel_degree = \d+/, 'pipeline_parallel_degree = 1e308');
    const r = runFiles({ '/t/qwen3_8b.toml': text }, '/t/qwen3_8b.toml');
    const p = r.problems.find((x) => x.code === 'invalid-value' && /gpus_per_node/.test(x.message));
    assert.match(p?.message ?? '', /`gpus_per_node` must be a finite number \(found a number too large to hold\)/);
    assert.ok(!r.problems.some((x) => x.message.includes('Infinity')));
  });

  it('the layout before June 2025: training.batch_size, the degrees under [training], optimizer.fused', () => {
    const old =
      `[model]\nname = "llama3"\nflavor = "70B"\n[optimizer]\nname = "AdamW"\n[training]\nbatch_size = 4\n` +
      `seq_len = 8192\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 8\ncompile = true\n` +
      `[experimental]\npipeline_parallel_degree = 2\n`;
    assert.equal(value(old, 'model'), 'meta-llama/Llama-3.1-70B');
    assert.deepEqual(
      [value(old, 'microBatchSize'), value(old, 'tensorParallel'), value(old, 'pipelineParallel')],
      [4, 8, 2],
    );
    assert.equal(value(old, 'compile'), true);
    // `fused` defaulted to false then: torch's foreach AdamW.
    assert.equal(value(old, 'optimizer'), 'adamw');
    assert.equal(value(old.replace('name = "AdamW"', 'name = "AdamW"\nfused = true'), 'optimizer'), 'adamw_fused');
  });

  it('activation checkpointing: op-level SAC, every block, every second block (said), rarer ones (said, upper bound)', () => {
    const ac = (body: string) =>
      `[model]\nname = "llama3"\nflavor = "8B"\n[training]\n[activation_checkpoint]\n${body}\n`;
    assert.equal(value(ac('mode = "full"'), 'gradientCheckpointing'), 'full');
    assert.equal(value(ac('mode = "none"'), 'gradientCheckpointing'), 'none');
    assert.equal(value(ac('mode = "selective"\nselective_ac_option = "1"'), 'gradientCheckpointing'), 'full');
    const two = analyzeTorchtitanToml(ac('mode = "selective"'));
    assert.equal(two.facts.find((f) => f.key === 'gradientCheckpointing')?.value, 'selective');
    assert.match(two.problems[0].message, /every second block checkpointed is estimated as op-level selective/);
    const four = analyzeTorchtitanToml(ac('mode = "selective"\nselective_ac_option = "4"'));
    assert.equal(four.facts.find((f) => f.key === 'gradientCheckpointing')?.value, 'none');
    assert.match(four.problems[0].message, /one block in 4 checkpointed is estimated without checkpointing/);
  });

  it('flavors: the catalog model of the same architecture; the debug model and an unknown flavor are unknown', () => {
    const m = (name: string, flavor: string) =>
      value(`[model]\nname = "${name}"\nflavor = "${flavor}"\n[training]\n`, 'model');
    assert.equal(m('deepseek_v3', '16B'), 'deepseek-ai/DeepSeek-V2-Lite');
    assert.equal(m('qwen3', '30B-A3B'), 'Qwen/Qwen3-30B-A3B');
    assert.equal(m('llama4', '17bx16e'), 'meta-llama/Llama-4-Scout-17B-16E');
    assert.deepEqual(m('llama3', 'debugmodel'), {
      unknown: "llama3 debugmodel is torchtitan's small test model, not a published one",
    });
    assert.deepEqual(m('llama3', '3B'), { unknown: "torchtitan's llama3 flavor 3B is not one VRAM Lens knows" });
  });

  it('the launch line: -m torchtitan.train reads --job.config_file, and its --table.key options win', () => {
    const files = {
      '/t/run.sh':
        'NGPU=16\ntorchrun --nproc_per_node=${NGPU} -m torchtitan.train --job.config_file ./qwen3_8b.toml ' +
        '--training.local_batch_size 1 --training.seq_len=8192\n',
      '/t/qwen3_8b.toml': FIXTURE,
    };
    const r = runFiles(files, '/t/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual([r.setup.model, r.setup.micro_batch_size, r.setup.seq_len], ['Qwen/Qwen3-8B', 1, 8192]);
    // 64 = 1 x accumulation x 16: accumulation 4.
    assert.equal(r.setup.gradient_accumulation_steps, 4);
  });

  it("a published run read from its own TOML: torchtitan's Llama 3.1 8B FSDP benchmark, 82.4 GiB reserved", () => {
    // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md line 27 (code 9dec370, 2024-12): FSDP over 8
    // H100s (94.5 GiB), local batch size 2, selective op-level AC, `| FSDP | 5,762 | 82.4 |` (max_memory_reserved).
    // test/fixtures/torchtitan/published/llama3_8b.toml is that commit's train_configs/llama3_8b.toml (batch_size 1:
    // the benchmark's 2 is the launch line's), in the layout before June 2025 (embeddings, norm and head in the root).
    const dir = path.join(__dirname, '../../../../test/fixtures/torchtitan/published');
    const toml = fs.readFileSync(path.join(dir, 'llama3_8b.toml'), 'utf8');
    const launch = 'torchrun --nproc_per_node=8 train.py --job.config_file llama3_8b.toml --training.batch_size 2\n';
    const r = runFiles({ '/b/run.sh': launch, '/b/llama3_8b.toml': toml }, '/b/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual(
      [s.model, s.gpus_per_node, s.micro_batch_size, s.seq_len],
      ['meta-llama/Llama-3.1-8B', 8, 2, 8192],
    );
    assert.deepEqual(
      [s.gradient_checkpointing, s.optimizer, s.fsdp_shard_embeddings, s.fsdp_tail_unit],
      ['selective', 'adamw', false, false],
    );
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const gpu = { id: 'H100 96GB', memoryBytes: 94.5 * 2 ** 30, source: 'the benchmark', spec: h100.gpu.spec };
    const e = estimate(s, { provenance: r.provenance, gpu });
    assert.ok(e.ok);
    const reserved = e.estimate.perGpu.reservedBytes / 2 ** 30;
    assert.ok(Math.abs(reserved / 82.4 - 1) < 0.03, `reserved ${reserved.toFixed(2)} GiB vs 82.4 published`);
  });

  it('quick fixes are written as TOML: a value replaced in place, a key added to its table, a table added', () => {
    const replaced = tomlSet(FIXTURE, { path: ['training', 'local_batch_size'], value: 1 });
    assert.ok('text' in replaced);
    assert.match(replaced.text, /^local_batch_size = 1$/m);
    assert.equal(replaced.text.length, FIXTURE.length - 1 + 1);
    const added = tomlSet(FIXTURE, { path: ['training', 'enable_cpu_offload'], value: true });
    assert.ok('text' in added);
    assert.match(added.text, /dataset = "c4"\nenable_cpu_offload = true\n/);
    const table = tomlSet('[model]\nname = "llama3"\n', { path: ['activation_checkpoint', 'mode'], value: 'full' });
    assert.deepEqual(table, { text: '[model]\nname = "llama3"\n\n[activation_checkpoint]\nmode = "full"\n' });
    assert.ok('reason' in tomlSet('[model\n', { path: ['model', 'name'], value: 'x' }));
  });
});
