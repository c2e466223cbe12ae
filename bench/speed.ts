// npm run bench — times estimate() on a large setup (a 70B MoE-free model with ZeRO-3, LoRA off, pipeline
// stages, eager attention) and prints one JSON line per measurement:
// {"name": ..., "unit": "ms", "median": ..., "p99": ..., "n": ...}. Later benchmarks add their own lines.
import { estimate } from '../src/core/estimate';
import { findModel } from '../src/core/lookup';
import { TrainingSetupSchema } from '../src/core/setup';

/**
 * Times fn n times after a warm-up and prints the median and the 99th percentile (the sample at index floor(0.99 n) of
 * the sorted times: with n = 200 the second-largest, with n < 100 the largest).
 */
function time(name: string, n: number, fn: () => void): void {
  for (let i = 0; i < Math.min(200, n); i++) fn(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    xs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  xs.sort((a, b) => a - b);
  const q = (p: number): number => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  console.log(
    JSON.stringify({ name, unit: 'ms', median: Number(q(0.5).toFixed(5)), p99: Number(q(0.99).toFixed(5)), n }),
  );
}

const llama70 = findModel('meta-llama/Llama-3.1-70B');
const mixtral = findModel('mistralai/Mixtral-8x7B-v0.1');
if (!llama70.ok || !mixtral.ok) throw new Error('catalog entries missing');
const large = TrainingSetupSchema.parse({
  model: llama70.model.id,
  architecture: llama70.model.config,
  method: 'full',
  weights_dtype: 'bf16',
  master_weights: true,
  optimizer: 'adamw',
  micro_batch_size: 4,
  gradient_accumulation_steps: 16,
  seq_len: 8192,
  gradient_checkpointing: 'selective',
  attention: 'flash',
  gpus_per_node: 8,
  nodes: 16,
  zero_stage: 3,
  tensor_parallel: 2,
  pipeline_parallel: 4,
});
const moeLora = TrainingSetupSchema.parse({
  model: mixtral.model.id,
  architecture: mixtral.model.config,
  method: 'qlora',
  lora: { r: 64, target_modules: 'all-linear', dropout: 0.05 },
  quantization: { bits: 4, type: 'nf4', double_quant: true },
  weights_dtype: 'bf16',
  mixed_precision: 'bf16',
  optimizer: 'paged_adamw_8bit',
  micro_batch_size: 2,
  seq_len: 4096,
  gradient_checkpointing: 'full',
  attention: 'eager',
});
time('estimate: Llama-3.1-70B full, ZeRO-3 + TP2 + PP4, 128 GPUs', 5000, () => estimate(large));
time('estimate: Mixtral-8x7B QLoRA all-linear, eager attention', 5000, () => estimate(moeLora));
// torchao < 0.2: the model's build and load replayed through the caching-allocator model, once per model shape (the
// estimator keeps the result); timed here without that cache, as for the first estimate of a file.
import { simulateNf4Load } from '../src/core/terms/nf4-load';
{
  const h = 4096,
    ffn = 11008,
    r = 8;
  const lin = (i: number, o: number) => ({ elements: i * o, quantized: true, adapterElements: [r * i, r * o] });
  const llama2 = {
    layers: 32,
    linears: [lin(h, h), lin(h, h), lin(h, h), lin(h, h), lin(h, ffn), lin(ffn, h), lin(h, ffn)],
    layerOtherBytes: [2 * h, 2 * h, 4096 * 128 * 4],
    outsideBytes: [2 * 32000 * h, 2 * 32000 * h, 2 * h],
    adapterBytesPerElement: 2,
  };
  time('model-load replay: Llama-2-7B QLoRA, torchtune 0.1 + torchao 0.1 (uncached)', 50, () =>
    simulateNf4Load(llama2),
  );
}

// Advice search: every candidate is a full estimate; the target is p99 < 20 ms for >= 2,000 candidates.
import { advise } from '../src/core/advice';
import { findGpu } from '../src/core/lookup';
const gpu = findGpu('RTX-4090');
if (!gpu.ok) throw new Error('GPU catalog entry missing');
const llama7 = findModel('meta-llama/Llama-2-7b-hf');
if (!llama7.ok) throw new Error('catalog entry missing');
const adviceSetup = TrainingSetupSchema.parse({
  architecture: llama7.model.config,
  parameters: llama7.model.publishedParams,
  weights_dtype: 'bf16',
  mixed_precision: 'bf16',
  micro_batch_size: 8,
  gradient_accumulation_steps: 4,
  seq_len: 4096,
  attention: 'eager',
  gpus_per_node: 2,
});
let candidates = 0;
time('advice: Llama-2-7B full on 2 x RTX-4090 (all singles, pairs, triples)', 200, () => {
  const r = advise(adviceSetup, { gpu: gpu.gpu, gpuSpec: gpu.gpu.spec });
  candidates = r?.evaluated ?? 0;
});
console.log(
  JSON.stringify({
    name: 'advice: candidates evaluated per search',
    unit: 'count',
    median: candidates,
    p99: candidates,
    n: 1,
  }),
);
// GRPO: the rollout moves (fewer completions per round, no KL reference) join the search, and every candidate has a
// generation phase.
const qwen7 = findModel('Qwen/Qwen2.5-7B-Instruct');
const a100 = findGpu('A100-80GB');
if (!qwen7.ok || !a100.ok) throw new Error('catalog entry missing');
const grpoSetup = TrainingSetupSchema.parse({
  architecture: qwen7.model.config,
  parameters: qwen7.model.publishedParams,
  weights_dtype: 'bf16',
  mixed_precision: 'bf16',
  micro_batch_size: 8,
  gradient_accumulation_steps: 4,
  seq_len: 1536,
  gradient_checkpointing: 'full',
  rollout: { batch: 32, completion_len: 1024, engine: 'generate', reference: 'copy', old_logps: true },
});
time('advice: Qwen2.5-7B full GRPO on 1 x A100-80GB', 200, () => {
  advise(grpoSetup, { gpu: a100.gpu, gpuSpec: a100.gpu.spec });
});
// Hybrid families: Gated DeltaNet (Qwen3.5) and parallel Mamba2 + attention (Falcon-H1) layers in every candidate.
for (const id of ['Qwen/Qwen3.5-27B', 'tiiuae/Falcon-H1-7B-Base']) {
  const m = findModel(id);
  if (!m.ok) throw new Error(`catalog entry missing: ${id}`);
  const s = TrainingSetupSchema.parse({
    architecture: m.model.config,
    parameters: m.model.publishedParams,
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    micro_batch_size: 4,
    gradient_accumulation_steps: 4,
    seq_len: 4096,
  });
  time(`advice: ${id.split('/')[1]} full on 1 x A100-80GB`, 200, () => {
    advise(s, { gpu: a100.gpu, gpuSpec: a100.gpu.spec });
  });
}
// Kimi Linear: KDA and MLA layers, 256 experts per MoE layer, 8-bit base layers under LoRA (Axolotl's example).
{
  const m = findModel('moonshotai/Kimi-Linear-48B-A3B-Instruct');
  if (!m.ok) throw new Error('catalog entry missing: Kimi-Linear-48B-A3B-Instruct');
  const s = TrainingSetupSchema.parse({
    architecture: m.model.config,
    parameters: m.model.publishedParams,
    method: 'lora',
    lora: {
      r: 16,
      alpha: 32,
      target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    },
    quantization: { bits: 8, type: 'int8' },
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    micro_batch_size: 2,
    gradient_accumulation_steps: 2,
    seq_len: 2048,
  });
  time('advice: Kimi-Linear-48B-A3B 8-bit LoRA on 1 x A100-80GB', 200, () => {
    advise(s, { gpu: a100.gpu, gpuSpec: a100.gpu.spec });
  });
}

// FSDP2 over 8 GPUs: every candidate that its lower bounds do not rule out replays the load and two steps through the
// allocator with FSDP2's three streams (terms/fsdp2-step-cache.ts). The first search is timed apart: it replays every
// such candidate's plan. On 8 RTX 4090s the run does not fit, and the bounds rule out most candidates.
{
  const m = findModel('meta-llama/Llama-3.1-8B');
  const h100 = findGpu('H100-80GB');
  if (!m.ok || !h100.ok) throw new Error('catalog entry missing: Llama-3.1-8B or H100-80GB');
  const fsdp2 = (seq: number) =>
    TrainingSetupSchema.parse({
      architecture: m.model.config,
      parameters: m.model.publishedParams,
      weights_dtype: 'fp32',
      mixed_precision: 'bf16',
      micro_batch_size: 1,
      seq_len: seq,
      gradient_checkpointing: 'full',
      gpus_per_node: 8,
      fsdp: 'full_shard',
      fsdp_version: 2,
    });
  let seq = 2048;
  time('advice: Llama-3.1-8B full FSDP2 on 8 x H100-80GB, first search of a setup', 20, () => {
    advise(fsdp2((seq += 8)), { gpu: h100.gpu, gpuSpec: h100.gpu.spec });
  });
  const same = fsdp2(4096);
  time('advice: Llama-3.1-8B full FSDP2 on 8 x H100-80GB, repeated', 50, () => {
    advise(same, { gpu: h100.gpu, gpuSpec: h100.gpu.spec });
  });
  const rtx = findGpu('RTX-4090');
  if (!rtx.ok) throw new Error('catalog entry missing: RTX-4090');
  seq = 4096;
  time('advice: Llama-3.1-8B full FSDP2 on 8 x RTX-4090 (does not fit), first search of a setup', 20, () => {
    advise(
      { ...fsdp2((seq += 8)), micro_batch_size: 2, gradient_checkpointing: 'none' },
      {
        gpu: rtx.gpu,
        gpuSpec: rtx.gpu.spec,
      },
    );
  });
}

// Analysis per change (the editor's hot path): analyze the text, resolve the setup, estimate.
import { runPipeline } from '../src/analyzers/pipeline';
import { catalogResolver } from '../src/analyzers/resolve';
import { estimate as estimateSetup } from '../src/core/estimate';

function bigYaml(lines: number): string {
  const out = [
    'base_model: meta-llama/Llama-2-7b-hf',
    'adapter: lora',
    'lora_r: 16',
    'lora_alpha: 32',
    'lora_target_linear: true',
    'micro_batch_size: 2',
    'gradient_accumulation_steps: 8',
    'sequence_len: 4096',
    'bf16: true',
    'gradient_checkpointing: true',
    'datasets:',
  ];
  for (let i = 0; out.length < lines; i++)
    out.push(`  - path: org/dataset-${i}`, `    type: alpaca`, `    split: train[:${i}%]`);
  return out.slice(0, lines).join('\n') + '\n';
}
function bigPython(lines: number): string {
  const out = ['import torch', 'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer', ''];
  for (let i = 0; out.length < lines - 12; i++)
    out.push(`def helper_${i}(x, y=${i}):`, `    """Helper ${i}."""`, `    return [v * ${i} for v in x if v > y]`, '');
  out.push(
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)',
    'BATCH = 4',
    'args = TrainingArguments(',
    '    output_dir="out",',
    '    per_device_train_batch_size=BATCH,',
    '    gradient_accumulation_steps=8,',
    '    bf16=True,',
    '    gradient_checkpointing=True,',
    ')',
    'trainer = Trainer(model=model, args=args)',
  );
  return out.join('\n') + '\n';
}
const noFiles = { read: () => undefined, join: (_f: string, r: string) => r };
// Each iteration is one keystroke: the micro-batch value changes, as when the user types.
for (const [name, file, text, key] of [
  ['analysis per change: 1,000-line Axolotl YAML', 'config.yml', bigYaml(1000), 'micro_batch_size: 2'],
  ['analysis per change: 2,000-line Python (TrainingArguments)', 'train.py', bigPython(2000), 'BATCH = 4'],
] as const) {
  let i = 0;
  time(name, 300, () => {
    const edited = text.replace(key, key.replace(/\d+$/, String(1 + (i++ % 9))));
    const r = runPipeline([{ file, text: edited }], noFiles, { gpu: 'A100-80GB', origin: 'setting' }, catalogResolver);
    if (!r.setup) throw new Error(`${name}: no setup: ${JSON.stringify(r.problems.slice(0, 2))}`);
    estimateSetup(r.setup);
  });
}

// A script that loads its model in a helper module beside it (PEFT's examples/sft shape): the script is edited, the
// 2,000-line module is read and analyzed again with the script's options on each change.
{
  const helper = bigPython(2000).replace(
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)',
    'def build(args):\n    return AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.float32 if args.fp32 else torch.bfloat16)',
  );
  const script = (batch: number): string =>
    [
      'from dataclasses import dataclass, field',
      'from transformers import HfArgumentParser, TrainingArguments, Trainer',
      'from helpers import build',
      '@dataclass',
      'class ModelArguments:',
      '    model: str = field(default="meta-llama/Llama-2-7b-hf")',
      '    fp32: bool = field(default=False)',
      'model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()',
      'model = build(model_args)',
      `args = TrainingArguments(output_dir="out", per_device_train_batch_size=${batch}, bf16=True)`,
      'trainer = Trainer(model=model, args=args)',
    ].join('\n') + '\n';
  const reader = {
    read: (p: string) => (p === '/w/helpers.py' ? helper : undefined),
    join: (f: string, r: string) => `${f.slice(0, f.lastIndexOf('/'))}/${r}`,
  };
  let i = 0;
  time('analysis per change: a script and the 2,000-line helper module it calls into', 300, () => {
    const r = runPipeline(
      [{ file: '/w/train.py', text: script(1 + (i++ % 9)) }],
      reader,
      { gpu: 'A100-80GB', origin: 'setting' },
      catalogResolver,
    );
    if (r.setup?.weights_dtype !== 'bf16') throw new Error('helper module: the load dtype was not read');
    estimateSetup(r.setup);
  });
}

// The same, over the real training files in test/real-files (bench/real-files-analysis.ts).
import { realFilesAnalysis } from './real-files-analysis';
realFilesAnalysis();
