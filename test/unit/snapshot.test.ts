// Full-output snapshot: every field of every estimate (bytes, components and their order, labels, formula strings,
// inputs, assumptions, warnings, phases, runtime terms, layout, fit) in full and lean mode, and every editor output
// (findings, hover markdown at each key, quick-fix titles and edits, panel model, advice), over the bench cases, the
// examples, the profiled golden cases, every catalog model under a set of training variants, and the real configs
// of ../shared/corpus through the pipeline. Moving code must leave it byte-identical; a change that is meant to
// change what users see refreshes it with UPDATE_EXPECT=1 (review the diff). The large sets are kept as one hash
// per case; on a mismatch the actual outputs are written to out/snapshot-actual/ so they can be diffed against a
// run of the previous commit; SNAPSHOT_DUMP=<dir> writes every output in full.
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { caseGpu, caseToSetup, type MeasuredCase } from '../../bench/measured-cases';
import { nodeFileReader } from '../../src/node/files';
import { offlineModelResolver } from '../../src/node/models';
import { advise } from '../../src/core/advice';
import { MODEL_CATALOG } from '../../src/core/catalog/models';
import { estimate, type EstimateOptions } from '../../src/core/estimate';
import { findGpu } from '../../src/core/lookup';
import { TrainingSetupSchema, type TrainingSetup, type TrainingSetupInput } from '../../src/core/setup';
import { analyzeDocument, type AnalysisSettings } from '../../src/features/analysis';
import { hoverAt } from '../../src/features/hover';
import { buildPanelModel } from '../../src/features/panel-model';
import { quickFixes } from '../../src/features/quick-fixes';
import { peakInput, type PeakCase } from './golden-cases';
import { sharedDir } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..');
const snapshotDir = path.join(repo, 'test', 'fixtures', 'snapshot');
const actualDir = path.join(repo, 'out', 'snapshot-actual');
const update = process.env.UPDATE_EXPECT === '1';
const env = { HOME: '/nonexistent', HF_HUB_CACHE: '/nonexistent', XDG_CACHE_HOME: '/nonexistent' };

const hash = (s: string): string => crypto.createHash('sha256').update(s).digest('hex').slice(0, 20);

/** Training variants applied to every catalog model: each exercises other terms of the estimate. */
const VARIANTS: Readonly<Record<string, Partial<TrainingSetupInput>>> = {
  defaults: {},
  'full bf16 AMP flash': {
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    master_weights: true,
    micro_batch_size: 2,
    seq_len: 2048,
    gradient_checkpointing: 'full',
    attention: 'flash',
  },
  'full fp32 eager': {
    weights_dtype: 'fp32',
    mixed_precision: 'none',
    micro_batch_size: 1,
    seq_len: 512,
    attention: 'eager',
  },
  'lora all-linear sdpa': {
    method: 'lora',
    lora: { r: 16, target_modules: 'all-linear' },
    weights_dtype: 'bf16',
    seq_len: 1024,
    attention: 'sdpa',
  },
  'qlora nf4 paged': {
    method: 'qlora',
    lora: { r: 64, target_modules: 'all-linear' },
    quantization: { bits: 4, type: 'nf4', double_quant: true },
    weights_dtype: 'bf16',
    optimizer: 'paged_adamw_8bit',
    gradient_checkpointing: 'full',
    seq_len: 2048,
  },
  'dora eager': {
    method: 'lora',
    lora: { r: 8, use_dora: true },
    weights_dtype: 'bf16',
    attention: 'eager',
    seq_len: 512,
  },
  ia3: { method: 'ia3', weights_dtype: 'bf16' },
  freeze: { method: 'freeze', weights_dtype: 'bf16', seq_len: 1024 },
  'zero3 offload x8': {
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    master_weights: true,
    gpus_per_node: 8,
    zero_stage: 3,
    offload_optimizer: 'cpu',
    offload_params: 'cpu',
    gradient_checkpointing: 'full',
  },
  'zero2 x4 8-bit adam': {
    weights_dtype: 'bf16',
    gpus_per_node: 4,
    zero_stage: 2,
    optimizer: 'adamw_8bit',
    micro_batch_size: 4,
    seq_len: 1024,
  },
  'fsdp x8 selective': {
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    gpus_per_node: 8,
    fsdp: 'full_shard',
    gradient_checkpointing: 'selective',
    seq_len: 4096,
  },
  'tp2 pp2 sp x8': {
    weights_dtype: 'bf16',
    gpus_per_node: 8,
    tensor_parallel: 2,
    pipeline_parallel: 2,
    sequence_parallel: true,
    gradient_checkpointing: 'full',
  },
  'grpo vllm colocate': {
    method: 'lora',
    lora: { r: 16 },
    weights_dtype: 'bf16',
    rollout: { batch: 8, completion_len: 256, engine: 'vllm-colocate' },
    seq_len: 768,
  },
  'dpo reference copy': {
    weights_dtype: 'bf16',
    preference: { reference: 'copy' },
    micro_batch_size: 2,
    seq_len: 1024,
    gradient_checkpointing: 'full',
  },
  'liger chunked fp16': {
    weights_dtype: 'fp32',
    mixed_precision: 'fp16',
    kernels: 'liger',
    loss: 'chunked',
    optimizer: 'adafactor',
  },
  'transformers 4.38 variable lengths': {
    weights_dtype: 'bf16',
    transformers_version: '4.38',
    batch_lengths: 'variable',
    expandable_segments: true,
    micro_batch_size: 4,
  },
  'unsloth qlora': {
    method: 'qlora',
    lora: { r: 16 },
    quantization: { bits: 4, type: 'nf4' },
    weights_dtype: 'bf16',
    kernels: 'unsloth',
    gradient_checkpointing: 'full',
  },
  'galore layerwise': { weights_dtype: 'bf16', galore: { rank: 128, layerwise: true }, optimizer: 'adamw' },
};

interface Case {
  readonly id: string;
  readonly setup: TrainingSetup;
  readonly opts: EstimateOptions;
}

function measuredCases(shared: string | undefined): Case[] {
  if (!shared) return [];
  const cases = JSON.parse(fs.readFileSync(path.join(shared, 'reference', 'measured.json'), 'utf8')) as MeasuredCase[];
  return cases.flatMap((c) => {
    const conv = caseToSetup(c);
    return conv.ok ? [{ id: `measured ${c.id}`, setup: conv.setup, opts: { gpu: caseGpu(c) } }] : [];
  });
}

function goldenCases(): Case[] {
  const file = path.join(repo, 'test', 'fixtures', 'peak', 'golden.json');
  const golden = JSON.parse(fs.readFileSync(file, 'utf8')) as { cases: PeakCase[] };
  return golden.cases.map((c, i) => ({
    id: `peak golden #${i} ${c.family}`,
    setup: TrainingSetupSchema.parse(peakInput(c)),
    opts: {},
  }));
}

function catalogCases(): Case[] {
  const out: Case[] = [];
  const gpu = findGpu('A100-80GB');
  const target = gpu.ok ? { id: gpu.gpu.id, memoryBytes: gpu.gpu.memoryBytes, source: gpu.gpu.source } : undefined;
  for (const m of MODEL_CATALOG) {
    for (const [name, patch] of Object.entries(VARIANTS)) {
      const parsed = TrainingSetupSchema.safeParse({
        model: m.id,
        architecture: m.config,
        parameters: m.publishedParams,
        ...patch,
      });
      if (parsed.success) out.push({ id: `${m.id} / ${name}`, setup: parsed.data, opts: { gpu: target } });
    }
  }
  return out;
}

/** The output of one case in full and lean mode, as one JSON text. */
function estimateText(c: Case): string {
  const full = estimate(c.setup, c.opts);
  const lean = estimate(c.setup, { ...c.opts, lean: true });
  return JSON.stringify({ full, lean });
}

const listFiles = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((d) => (d.isDirectory() ? listFiles(path.join(dir, d.name)) : [path.join(dir, d.name)]))
    : [];
const documentsOnly = (files: string[]): string[] =>
  files.filter((f) => !/\.(md|tsv)$|\.expected\.json$/.test(f)).sort();

/** The examples and our own fixtures, as the editor would open them. */
function ourDocuments(): string[] {
  const dirs = [
    'examples',
    'test/fixtures/deepspeed-json',
    'test/fixtures/hf-python',
    'test/fixtures/notebook',
    'test/fixtures/same-run',
    'test/fixtures/scenario',
    'test/fixtures/shell',
  ];
  return documentsOnly(dirs.flatMap((d) => listFiles(path.join(repo, d))));
}

/** The real configs of ../shared/corpus. */
function corpusDocuments(shared: string): string[] {
  return documentsOnly(listFiles(path.join(shared, 'corpus')));
}

const SETTINGS: AnalysisSettings = { gpu: 'RTX-4090', headroomPercent: 5 };

/** What the editor shows for one document: findings, the hover at every key, quick fixes, the panel model. */
function documentText(file: string): string {
  const text = fs.readFileSync(file, 'utf8');
  const reader = nodeFileReader(path.dirname(file));
  const resolver = offlineModelResolver({ cwd: path.dirname(file), env });
  const a = analyzeDocument({ file, text }, SETTINGS, { reader, resolver });
  const hovers = a.facts.facts.map((f) => hoverAt(a, f.keySpan.start, text) ?? null);
  const fixes = quickFixes(a).map((q) => ({ title: q.title, preferred: q.preferred, edits: q.edits }));
  const panel = buildPanelModel(a, {});
  const shared = sharedDir() ?? '<no shared dir>';
  const rel = (s: string): string =>
    s.split(repo).join('<repo>').split(path.dirname(file)).join('<dir>').split(shared).join('<shared>');
  return rel(
    JSON.stringify({
      findings: a.findings,
      estimate: a.estimate ?? null,
      errors: a.estimateErrors ?? null,
      hovers,
      fixes,
      panel,
    }),
  );
}

/** Compares a map of case id -> output text against the stored hashes (or rewrites them under UPDATE_EXPECT=1). */
function checkAgainst(name: string, outputs: ReadonlyMap<string, string>): void {
  const file = path.join(snapshotDir, `${name}.json`);
  const actual: Record<string, string> = {};
  for (const [id, text] of outputs) actual[id] = hash(text);
  const dump = process.env.SNAPSHOT_DUMP;
  if (dump) {
    fs.mkdirSync(path.join(dump, name), { recursive: true });
    for (const [id, text] of outputs) fs.writeFileSync(path.join(dump, name, `${hash(id)}.json`), `${id}\n${text}\n`);
  }
  if (update) {
    fs.mkdirSync(snapshotDir, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(actual, null, 1)}\n`);
    return;
  }
  const expected = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  const changed = [...outputs.keys()].filter((id) => expected[id] !== actual[id]);
  const missing = Object.keys(expected).filter((id) => !(id in actual));
  if (changed.length > 0) {
    const dir = path.join(actualDir, name);
    fs.mkdirSync(dir, { recursive: true });
    for (const id of changed) fs.writeFileSync(path.join(dir, `${hash(id)}.json`), `${id}\n${outputs.get(id)}\n`);
  }
  assert.deepEqual(
    { changed: changed.slice(0, 10), changedCount: changed.length, missing: missing.slice(0, 10) },
    { changed: [], changedCount: 0, missing: [] },
    `${name}: outputs differ from test/fixtures/snapshot/${name}.json (actual outputs in out/snapshot-actual/${name}/)`,
  );
}

describe('full-output snapshot (UPDATE_EXPECT=1 refreshes it)', function () {
  this.timeout(600_000);
  const shared = sharedDir();

  it('estimates of the bench cases, the profiled golden cases and every catalog model under 18 variants, full and lean', () => {
    const outputs = new Map<string, string>();
    for (const c of [...goldenCases(), ...catalogCases()]) outputs.set(c.id, estimateText(c));
    assert.ok(outputs.size > 2000, `${outputs.size} cases`);
    checkAgainst('estimates', outputs);
  });

  it('estimates of the published measurements (needs ../shared/reference)', function () {
    if (!shared) this.skip();
    const outputs = new Map<string, string>();
    for (const c of measuredCases(shared)) outputs.set(c.id, estimateText(c));
    checkAgainst('measured', outputs);
  });

  it("advice over the catalog variants of three models (the examples' advice is in their panel model)", () => {
    const outputs = new Map<string, string>();
    const gpu = findGpu('RTX-4090');
    assert.ok(gpu.ok);
    const target = { id: gpu.gpu.id, memoryBytes: gpu.gpu.memoryBytes, source: gpu.gpu.source };
    const picks = new Set(['meta-llama/Llama-2-7b-hf', 'Qwen/Qwen2.5-7B', 'mistralai/Mixtral-8x7B-v0.1']);
    for (const c of catalogCases().filter((x) => picks.has(x.setup.model ?? ''))) {
      outputs.set(
        c.id,
        JSON.stringify(advise(c.setup, { gpu: target, gpuSpec: gpu.gpu.spec, headroomFraction: 0.05 }) ?? null),
      );
    }
    assert.ok(outputs.size >= 40, `${outputs.size} advice cases`);
    checkAgainst('advice', outputs);
  });

  it('editor outputs (findings, hovers, quick fixes, panel) over the examples and our fixtures', () => {
    const outputs = new Map<string, string>();
    for (const f of ourDocuments()) outputs.set(path.relative(repo, f), documentText(f));
    assert.ok(outputs.size >= 20);
    checkAgainst('documents', outputs);
  });

  it('editor outputs over the real configs of ../shared/corpus', function () {
    if (!shared) this.skip();
    const outputs = new Map<string, string>();
    for (const f of corpusDocuments(shared!)) outputs.set(path.relative(shared!, f), documentText(f));
    assert.ok(outputs.size >= 57);
    checkAgainst('corpus', outputs);
  });
});
