// Editor features without an editor: hover text, findings (diagnostics) and settings, through analyzeDocument.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { catalogResolver } from '../../src/analyzers/resolve';
import { detectFormat } from '../../src/analyzers/detect';
import { analyzeDocument, type AnalysisSettings } from '../../src/features/analysis';
import { applyEditData } from '../../src/features/fixes';
import { hoverAt } from '../../src/features/hover';
import { estimate, findGpu, gpuTarget, type Estimate } from '../../src/core';
import { whatIfEffects } from '../../src/features/hover/what-ifs';
import { identity, signed } from '../../src/features/hover/render';
import { keyFixes } from '../../src/features/quick-fixes';
import { SettingsSchema, SETTING_KEYS } from '../../src/features/settings';
import { setupFor } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..');
const settings: AnalysisSettings = { gpu: 'A100-40GB', headroomPercent: 5 };
const files = new Map<string, string>();
const reader = {
  read: (p: string) => files.get(p),
  join: (from: string, rel: string) => path.join(path.dirname(from), rel),
};

function analyze(file: string, text: string, s: AnalysisSettings = settings) {
  return analyzeDocument({ file, text }, s, { reader, resolver: catalogResolver });
}

/** Marks the cursor with ‸ in the text, like yaml-language-server's tests. */
function checkHover(file: string, marked: string, expect: RegExp[], s: AnalysisSettings = settings): string {
  const offset = marked.indexOf('‸');
  const text = marked.replace('‸', '');
  const a = analyze(file, text, s);
  const md = hoverAt(a, offset, text);
  assert.ok(md, `a hover at ${JSON.stringify(marked.slice(Math.max(0, offset - 20), offset + 20))}`);
  for (const re of expect) assert.match(md, re);
  return md;
}

describe('features: fused MoE experts (transformers 5)', () => {
  it('an Axolotl QLoRA of Qwen3-30B-A3B gets a warning at load_in_4bit, not at lora_target_linear', () => {
    // 29.0B expert and router parameters stay bf16 (bitsandbytes#1849); lora_target_linear reaches the experts through
    // PEFT's conversion of the 4.x names (a current PEFT: peft/utils/transformers_weight_conversion.py).
    const text =
      'base_model: Qwen/Qwen3-30B-A3B\n' +
      'adapter: qlora\n' +
      'load_in_4bit: true\n' +
      'lora_r: 16\n' +
      'lora_target_linear: true\n' +
      'bf16: true\n' +
      'sequence_len: 2048\n' +
      'micro_batch_size: 1\n';
    const found = analyze('/w/qwen3-moe.yml', text).findings.filter((x) => x.code === 'fused-experts');
    assert.deepEqual(found.map((f) => text.slice(f.span.start, f.span.end)).sort(), ['load_in_4bit']);
    assert.ok(found.every((f) => f.severity === 'warning'));
    assert.match(
      found.find((f) => /bitsandbytes/.test(f.message))!.message,
      /29\.00B expert and router params stay bf16/,
    );
    // With transformers 4.x set, the experts are per-expert nn.Linear layers again: no such warning.
    const old = analyze('/w/qwen3-moe.yml', text, { ...settings, transformersVersion: '4.57' });
    assert.equal(old.findings.filter((x) => x.code === 'fused-experts').length, 0);
  });
});

describe('features: vramLens.transformersVersion over a release the files only imply', () => {
  it("evaluation_strategy implies transformers 4.45; the setting, the environment's own release, replaces it", () => {
    const text =
      'model_name_or_path: meta-llama/Llama-2-7b-hf\nper_device_train_batch_size: 1\nevaluation_strategy: "no"\nbf16: true\n';
    const implied = analyze('/w/args.yaml', text);
    assert.equal(implied.setup?.transformers_version, '4.45');
    const set = analyze('/w/args.yaml', text, { ...settings, transformersVersion: '4.40' });
    assert.equal(set.setup?.transformers_version, '4.40');
    assert.deepEqual(set.pipeline.provenance.transformers_version, {
      kind: 'setting',
      setting: 'vramLens.transformersVersion',
    });
  });
});

describe('features: settings the model code ignores', () => {
  it('an Axolotl LoRA of Kimi Linear gets a no-effect warning at gradient_checkpointing', () => {
    // modeling_kimi.py calls every decoder layer itself: gradient_checkpointing_enable() checkpoints nothing.
    const text =
      'base_model: moonshotai/Kimi-Linear-48B-A3B-Instruct\n' +
      'trust_remote_code: true\n' +
      'adapter: lora\n' +
      'load_in_8bit: true\n' +
      'lora_r: 16\n' +
      'lora_target_modules:\n' +
      '  - q_proj\n' +
      '  - v_proj\n' +
      'bf16: true\n' +
      'sequence_len: 2048\n' +
      'micro_batch_size: 1\n' +
      'gradient_checkpointing: true\n';
    const found = analyze('/w/kimi.yml', text).findings.filter((x) => x.code === 'no-effect');
    assert.deepEqual(
      found.map((f) => text.slice(f.span.start, f.span.end)),
      ['gradient_checkpointing'],
    );
    assert.match(found[0].message, /all 27 layers keep their activations/);
    const off = analyze('/w/kimi.yml', text.replace('gradient_checkpointing: true\n', ''));
    assert.equal(off.findings.filter((x) => x.code === 'no-effect').length, 0);
  });
});

describe('features: Axolotl quantize_moe_experts', () => {
  it('reaches the setup: the fused experts are quantized, and no fused-experts warning is left at load_in_4bit', () => {
    const text =
      'base_model: zai-org/GLM-4.5-Air\n' +
      'load_in_4bit: true\n' +
      'quantize_moe_experts: true\n' +
      'adapter: qlora\n' +
      'lora_r: 16\n' +
      'lora_target_modules:\n' +
      '  - q_proj\n' +
      'sequence_len: 2048\n' +
      'micro_batch_size: 2\n' +
      'gradient_accumulation_steps: 1\n' +
      'bf16: true\n' +
      'gradient_checkpointing: true\n';
    const a = analyze('/w/glm.yml', text, { ...settings, gpu: 'H100-80GB' });
    assert.equal(a.setup?.quantization?.experts, true);
    assert.equal(
      a.findings.filter((x) => x.code === 'fused-experts' && text.slice(x.span.start, x.span.end) === 'load_in_4bit')
        .length,
      0,
    );
    // The hover at the key prices leaving the experts in bf16: 45 x 128 x 3 x 1,408 x 4,096 params at 2 B instead of NF4.
    const marked = text.replace('quantize_moe_experts', 'quantize_moe‸_experts');
    checkHover('/w/glm.yml', marked, [/fused experts quantized -> left in 16 bits: \+1[0-9]{2}\.\d GiB/], {
      ...settings,
      gpu: 'H100-80GB',
    });
    const without = analyze('/w/glm.yml', text.replace('quantize_moe_experts: true\n', ''), {
      ...settings,
      gpu: 'H100-80GB',
    });
    assert.equal(without.setup?.quantization?.experts, undefined);
    assert.equal(
      without.findings.filter(
        (x) => x.code === 'fused-experts' && text.slice(x.span.start, x.span.end) === 'load_in_4bit',
      ).length,
      1,
    );
  });
});

describe('features: what the chosen GPU cannot run', () => {
  it('bf16 and FlashAttention-2 on a T4 are flagged at their keys; on an A100 nothing is said', () => {
    // Turing (T4) has no bf16 hardware and flash-attn's kernels need Ampere or newer.
    const text =
      'base_model: meta-llama/Llama-3.2-1B\n' +
      'adapter: lora\n' +
      'lora_r: 16\n' +
      'lora_target_linear: true\n' +
      'bf16: true\n' +
      'flash_attention: true\n' +
      'sequence_len: 1024\n' +
      'micro_batch_size: 1\n';
    const t4 = analyze('/w/small.yml', text, { ...settings, gpu: 'T4' }).findings.filter(
      (x) => x.code === 'gpu-unsupported',
    );
    assert.deepEqual(
      t4.map((f) => [text.slice(f.span.start, f.span.end), f.severity]),
      [
        ['bf16', 'warning'],
        ['flash_attention', 'error'],
      ],
    );
    assert.match(t4[0].message, /T4 has no bf16 hardware/);
    assert.equal(analyze('/w/small.yml', text).findings.filter((x) => x.code === 'gpu-unsupported').length, 0);
    // Axolotl's bf16: auto trains in fp16 there: nothing to say about it.
    const auto = analyze('/w/small.yml', text.replace('bf16: true', 'bf16: auto'), {
      ...settings,
      gpu: 'T4',
    }).findings.filter((x) => x.code === 'gpu-unsupported');
    assert.deepEqual(
      auto.map((f) => f.severity),
      ['error'],
    );
    // sdpa and fp16 run on a T4: nothing to say.
    const ok = text.replace('bf16: true', 'fp16: true').replace('flash_attention: true', 'sdp_attention: true');
    assert.equal(
      analyze('/w/small.yml', ok, { ...settings, gpu: 'T4' }).findings.filter((x) => x.code === 'gpu-unsupported')
        .length,
      0,
    );
  });
  it('xformers and flex attention are not flash-attn: no Ampere requirement, and the kernel is read from the files', () => {
    // Both keep no s x s matrix (attention 'flash' for memory), but xformers' memory_efficient_attention and
    // FlexAttention have kernels for pre-Ampere GPUs; only flash-attn is refused there.
    const text =
      'base_model: meta-llama/Llama-3.2-1B\n' +
      'adapter: lora\n' +
      'lora_r: 16\n' +
      'lora_target_linear: true\n' +
      'fp16: true\n' +
      'xformers_attention: true\n' +
      'sequence_len: 1024\n' +
      'micro_batch_size: 1\n';
    for (const [flag, kernel] of [
      ['xformers_attention: true', 'xformers'],
      ['flex_attention: true', 'flex'],
      ['attn_implementation: flex_attention', 'flex'],
    ]) {
      const a = analyze('/w/small.yml', text.replace('xformers_attention: true', flag), { ...settings, gpu: 'T4' });
      assert.equal(a.setup?.attention, 'flash', flag);
      assert.equal(a.setup?.attention_kernel, kernel, flag);
      assert.equal(a.findings.filter((x) => x.code === 'gpu-unsupported').length, 0, flag);
    }
    // A Python script and a launch script name it the same way.
    const py =
      'from transformers import AutoModelForCausalLM\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", attn_implementation="flex_attention")\n';
    const sh = 'python train.py --model_name_or_path meta-llama/Llama-3.2-1B --attn_implementation flex_attention\n';
    for (const [file, body] of [
      ['/w/train.py', py],
      ['/w/run.sh', sh],
    ]) {
      const a = analyze(file, body);
      assert.deepEqual([a.setup?.attention, a.setup?.attention_kernel], ['flash', 'flex'], file);
    }
    const fa2 = analyze('/w/small.yml', text.replace('xformers_attention: true', 'flash_attention: true'), {
      ...settings,
      gpu: 'T4',
    });
    assert.equal(fa2.setup?.attention_kernel, undefined);
    assert.equal(fa2.findings.filter((x) => x.code === 'gpu-unsupported').length, 1);
  });
});

describe('features: Qwen3.5 (Gated DeltaNet layers)', () => {
  it('hovering the attention key of a Qwen3.5 config also prices the Gated DeltaNet kernels, and the kernels are an assumption', () => {
    const text =
      'base_model: Qwen/Qwen3.5-9B\n' +
      'adapter: lora\n' +
      'lora_r: 16\n' +
      'lora_target_linear: true\n' +
      'bf16: true\n' +
      'sequence_len: 4096\n' +
      'micro_batch_size: 1\n' +
      '‸attn_implementation: flash_attention_2\n';
    const md = checkHover('/w/qwen35.yml', text, [/Gated DeltaNet kernels fla -> torch/]);
    assert.ok(md.length > 0);
    const a = analyze('/w/qwen35.yml', text.replace('‸', ''));
    assert.ok(a.estimate?.assumptions.some((x) => x.key === 'linear_attention_kernels' && x.value === 'fla'));
  });
});

describe('features: auto_find_batch_size', () => {
  it('an over-budget micro-batch is a warning at auto_find_batch_size, with the halving the Trainer will run', () => {
    // Qwen2.5-0.5B full fine-tune in bf16 at 2,048 tokens on an A100-40GB: micro-batch 32 does not fit; the Trainer
    // halves it after the out-of-memory error until a step runs.
    const text =
      'from transformers import TrainingArguments\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=32, bf16=True, ' +
      'auto_find_batch_size=True)\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype=torch.bfloat16)\n';
    const a = analyze('/w/auto.py', text);
    const f = a.findings.find((x) => x.code === 'exceeds-gpu-memory');
    assert.equal(f?.severity, 'warning');
    assert.equal(f && text.slice(f.span.start, f.span.end), 'auto_find_batch_size');
    const m = /trains at (\d+) per GPU/.exec(f?.message ?? '');
    assert.ok(m, f?.message);
    const micro = Number(m![1]);
    const { estimate } = require('../../src/core/estimate') as typeof import('../../src/core/estimate');
    const gpu = { id: a.gpu!.id, memoryBytes: a.gpu!.memoryBytes, source: 'test' };
    const at = estimate({ ...a.setup!, micro_batch_size: micro }, { gpu });
    const above = estimate({ ...a.setup!, micro_batch_size: micro * 2 }, { gpu });
    assert.ok(at.ok && at.estimate.fits === true && above.ok && above.estimate.fits === false);
    // Without the flag the same setup is an error at the key that drives it.
    assert.equal(
      analyze('/w/plain.py', text.replace(', auto_find_batch_size=True', '')).findings.find(
        (x) => x.code === 'exceeds-gpu-memory',
      )?.severity,
      'error',
    );
  });
});

describe('features: hover', () => {
  it('on a DPO config: the reference and what precomputing its log-probs saves', () => {
    const text =
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", ' +
      'torch_dtype=torch.bfloat16)\n' +
      'args = ‸DPOConfig(output_dir="o", per_device_train_batch_size=2, max_length=1024, bf16=True)\n';
    checkHover('/w/dpo.py', text, [
      /`DPOConfig`/,
      /Reference model weights/,
      /reference log-probs precomputed: -\d/,
      /plain training \(no preference objective\): -\d/,
    ]);
  });

  it("on a GRPO config: the completion length's cost and the generation engines", () => {
    const text =
      'args = GRPOConfig(output_dir="o", per_device_train_batch_size=8, ‸max_completion_length=1024, bf16=True, use_vllm=False)\n' +
      'trainer = GRPOTrainer(model="Qwen/Qwen2.5-1.5B-Instruct", args=args, reward_funcs=f)\n';
    checkHover('/w/grpo.py', text, [/`max_completion_length`/, /completions 1024 -> 512 tokens: -\d/]);
    const engine = text.replace('‸', '').replace('use_vllm=False', '‸use_vllm=False');
    checkHover('/w/grpo.py', engine, [/vLLM colocated: \+\d/, /vLLM server on other GPUs: [+-]\d/]);
  });

  it('on an online DPO config: what fewer generated tokens and vLLM would cost', () => {
    const text =
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B-Instruct", torch_dtype="bfloat16")\n' +
      'args = OnlineDPOConfig(output_dir="o", per_device_train_batch_size=4, ‸max_new_tokens=256, max_length=1024, bf16=True)\n' +
      'trainer = OnlineDPOTrainer(model=model, args=args, reward_funcs=["Qwen/Qwen2.5-0.5B"])\n';
    // Under bf16 autocast Accelerate hands the trainer fp32 logits of every position: the loss backward's zero-filled
    // gradients of all of them (2 x 4·T·V) are the peak, and T is max_length whatever the completions' share.
    checkHover('/w/odpo.py', text, [/`max_new_tokens`/, /completions 256 -> 128 tokens: [+-]\d/]);
    const engine = text.replace('‸', '').replace('bf16=True', 'bf16=True, ‸use_vllm=False');
    checkHover('/w/odpo.py', engine, [/vLLM colocated: \+\d/]);
  });

  it('on LLaMA-Factory GaLore and BAdam keys: what full optimizer states would cost', () => {
    const text =
      'model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: full\nuse_galore: ‸true\ngalore_rank: 128\npure_bf16: true\n';
    checkHover('/w/lf.yaml', text, [/GaLore rank 128 -> 256: \+\d/, /no GaLore \(full optimizer states\): \+\d/]);
    const badam =
      'model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: full\nuse_badam: ‸true\npure_bf16: true\n';
    checkHover('/w/lf.yaml', badam, [/no BAdam \(every layer trains at once\): \+\d/]);
    // Ratio mode: half the update ratio halves the sparse gradients and states; layer mode keeps one layer's dense ones.
    const ratio =
      'model_name_or_path: meta-llama/Meta-Llama-3-8B\n' +
      'stage: sft\n' +
      'finetuning_type: full\n' +
      'use_badam: true\n' +
      'badam_mode: ratio\n' +
      'badam_update_ratio: ‸0.05\n' +
      'pure_bf16: true\n';
    checkHover('/w/lf.yaml', ratio, [/BAdam update ratio 0.05 -> 0.025: -\d/, /BAdam ratio -> layer mode: [+-]\d/]);
  });

  it('on a GRPO reward model by Hub id: what scoring with reward functions only would save', () => {
    const text =
      'args = GRPOConfig(output_dir="o", per_device_train_batch_size=8, max_completion_length=256, bf16=True)\n' +
      'trainer = GRPOTrainer(model="Qwen/Qwen2.5-1.5B-Instruct", args=args, ‸reward_funcs=[f, "meta-llama/Llama-3.2-1B"])\n';
    checkHover('/w/grpo.py', text, [/no reward model \(reward functions only\): -\d/]);
  });

  it('on Axolotl sequence splitting: what a wider or narrower context-parallel split costs', () => {
    // Llama-3.2-3B at 32,768 tokens split over 4 GPUs: splitting over 8 saves memory per GPU, over 2 costs it.
    const text =
      'base_model: meta-llama/Llama-3.2-3B\n' +
      'sequence_len: 32768\n' +
      'sequence_parallel_degree: ‸4\n' +
      'flash_attention: true\n' +
      'bf16: true\n' +
      'gradient_checkpointing: true\n';
    checkHover('/w/sp.yaml', text, [
      /context parallel 4 -> 8 \(GPUs x2\): -\d/,
      /context parallel 4 -> 2 \(GPUs \/2\): \+\d/,
    ]);
  });

  it('a setup the estimator refuses: the reason at the key, in the diagnostics and the hover', () => {
    const text = 'model: Qwen/Qwen2.5-0.5B\nseq_len: 512\nrollout:\n  batch: 8\n  completion_len: 600\n';
    const a = analyze('/w/grpo.vram.yaml', text);
    const f = a.findings.find((x) => x.code === 'invalid-value' && x.severity === 'error');
    assert.ok(
      f && /completion_len \(600\) must be shorter than seq_len \(512\)/.test(f.message),
      JSON.stringify(a.findings),
    );
    assert.equal(text.slice(f.span.start, f.span.end), 'rollout');
    assert.match(hoverAt(a, text.indexOf('seq_len'), text) ?? '', /No estimate yet: completion_len/);
  });

  it('torchtune without dataset.packed: batches padded per batch (torchtune default), the run-long reserved figure in the hover', () => {
    const text =
      'model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_attn_modules: [q_proj, v_proj]\n  lora_rank: 8\n' +
      'tokenizer:\n  max_seq_len: 2048\nbatch_size: ‸2\ndtype: bf16\nenable_activation_checkpointing: True\n';
    const md = checkHover('/w/8B_lora.yaml', text, [
      /over a run \(variable lengths\)\s+[\d.]+ GiB nvidia-smi \(\+[\d.]+ GiB cached\)/,
    ]);
    const packed = `${text.replace('‸', '')}dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n  packed: ‸False\n`;
    // Packing removes the cache of earlier batches (two sets of loss tensors: 2 x 12 x 4096 x 128,256 B = 11.74 GiB);
    // the what-if prints the difference of the two over-a-run device figures, which rounds to 11.8 GiB.
    checkHover('/w/8B_lora.yaml', packed, [/variable -> fixed batch lengths: -11\.8 GiB over a run/]);
    const a = analyze('/w/8B_lora.yaml', text.replace('‸', ''));
    const e = a.estimate!;
    // Llama-3.1-8B vocab 128,256, T = 2 x 2048, full CE on bf16 logits: 12·T·V = 6,304,448,512 B a set, two sets.
    assert.equal(e.perGpu.variableLengths?.cacheBytes, 2 * 12 * 4096 * 128_256);
    const assumed = e.assumptions.find((x) => x.key === 'batch_lengths' && x.value === 'variable');
    assert.match(assumed?.source ?? '', /torchtune/);
    assert.doesNotMatch(md, /undefined|NaN/);
  });

  it('scenario: micro_batch_size shows the breakdown and what one more micro-batch costs', () => {
    const md = checkHover(
      '/w/run.vram.yaml',
      'model: meta-llama/Llama-2-7b-hf\nweights_dtype: bf16\nmethod: lora\nmicro_batch_size: ‸4\nseq_len: 1024\n',
      [
        /^\*\*fits: [\d.]+ GiB of 39\.4 GiB on A100-40GB\*\* · `micro_batch_size`\n\nmicro-batch 4 -> 5/,
        /```vram-breakdown/,
        /= device \(nvidia-smi\)/,
        /micro-batch 4 -> 5: \+[\d.]+ (GiB|MiB)/,
        /micro-batch 4 -> 3: -[\d.]+ (GiB|MiB)/,
        /command:vramLens.openPanel/,
        /A100-40GB/,
      ],
    );
    assert.doesNotMatch(md, /undefined|NaN/);
  });

  it("FSDP1's use_orig_params: the hover says what switching it changes and marks the FSDP terms it drives", () => {
    // Llama-2-7B, fp32 weights offloaded over 2 GPUs: under use_orig_params the root unit keeps a GPU copy of its shard,
    // 2 x 32,000 x 4,096 params / 2 ranks x 4 B = 524,288,000 B = 500 MiB allocated (core/terms/fsdp1-offload-shard-copy.ts);
    // the device figure of the what-if adds what the allocator caches on top, which the FSDP1 replay
    // (core/terms/fsdp1-step-cache.ts) stands for under use_orig_params and the flat terms without.
    const text =
      'model_name_or_path: meta-llama/Llama-2-7b-hf\nfsdp: full_shard offload\nfsdp_config:\n  use_orig_params: ‸false\n';
    const s = { ...settings, gpusPerNode: 2 };
    const md = checkHover(
      '/w/args.yaml',
      text,
      [
        /· `fsdp_config\.use_orig_params`\n\nuse_orig_params false -> true: \+[\d.]+ [MG]iB\n/,
        /^\* FSDP root unit kept unsharded \(embeddings \+ output head\)\s+1000 MiB$/m,
      ],
      s,
    );
    assert.doesNotMatch(md, /undefined|NaN/);
    const a = analyze('/w/args.yaml', text.replace('‸', ''), s);
    const on = estimate({ ...a.setup!, fsdp_use_orig_params: true });
    assert.ok(on.ok);
    const copy = (e: Estimate): number[] =>
      e.perGpu.components
        .filter((c) => c.label === "FSDP1 CPU offload: GPU copy of the root unit's shard")
        .map((c) => c.bytes);
    assert.deepEqual([copy(a.estimate!), copy(on.estimate)], [[], [524_288_000]]);
    // FSDP2 has no such option: the key is not read and its hover has no what-if.
    const fsdp2 = text.replace('fsdp_config:\n', 'fsdp_config:\n  version: 2\n').replace('‸', '');
    const a2 = analyze('/w/args.yaml', fsdp2, s);
    assert.equal(a2.setup?.fsdp_use_orig_params, true);
    assert.doesNotMatch(hoverAt(a2, fsdp2.indexOf('use_orig_params'), fsdp2) ?? '', /use_orig_params (true|false) ->/);
  });

  it('answer first: the verdict, then what the key does, then at most the largest terms; formulas only in the panel', () => {
    // Llama-3.1-8B LoRA at micro-batch 4 x 4,096 on an RTX 4090: does not fit; the diagnostic sits at micro_batch_size.
    const text =
      'base_model: meta-llama/Llama-3.1-8B\n' +
      'adapter: lora\n' +
      'lora_r: 16\n' +
      'lora_target_linear: true\n' +
      'sequence_len: 4096\n' +
      'micro_batch_size: 4\n' +
      'gradient_accumulation_steps: 2\n' +
      'bf16: true\n' +
      'gradient_checkpointing: true\n' +
      'optimizer: adamw_torch\n';
    const s = { ...settings, gpu: 'RTX-4090' };
    const a = analyze('/w/ax.yml', text, s);
    const over = a.findings.find((f) => f.code === 'exceeds-gpu-memory');
    assert.ok(over, JSON.stringify(a.findings.map((f) => f.message)));
    const at = (key: string): string => hoverAt(a, text.indexOf(key) + 1, text) ?? '';
    const keyWithDiagnostic = text.slice(over.span.start, over.span.end);
    const mb = at(keyWithDiagnostic);
    // Line 1: the verdict; line 2: what this key does (with the largest micro-batch that fits).
    const [first, , second] = mb.split('\n');
    assert.match(first, /^\*\*[\d.]+ GiB > 23\.6 GiB on RTX-4090 \([\d.]+ GiB over\)\*\* · `/);
    if (keyWithDiagnostic === 'micro_batch_size')
      assert.match(
        second,
        /^micro-batch 4 -> 5: \+[\d.]+ GiB · micro-batch 4 -> 3: -[\d.]+ GiB( \(fits\))? · (\d+ fits|no micro-batch fits)$/,
      );
    // The key with the diagnostic repeats neither its message nor its related lines (the editor shows them beside it).
    assert.ok(!mb.includes(over.message.split('. Peak')[0] + ', assuming'), mb);
    for (const r of over.related) assert.ok(!mb.includes(r.message.split(':')[0]), `${r.message} repeated in\n${mb}`);
    assert.doesNotMatch(mb, /= peak allocated|= reserved/);
    // Another key: a small block of the largest terms (at most 3 + the key's own + the rest + the total), no formulas.
    const seq = at('sequence_len');
    const block = /```vram-breakdown\n([\s\S]*?)\n```/.exec(seq)?.[1] ?? '';
    assert.ok(block.split('\n').length <= 7, block);
    assert.match(block, /^\* Activations saved for backward/m);
    assert.doesNotMatch(seq, /·\s*\d+ x|= peak allocated/);
    assert.match(seq, /\[Full breakdown, formulas and advice\]\(command:vramLens\.openPanel\)$/);
    // Not the same table on every key: the key's own terms are marked.
    const rank = at('lora_r');
    assert.notEqual(/```vram-breakdown\n([\s\S]*?)\n```/.exec(rank)?.[1], block);
  });

  it('micro-batch that does not fit: the largest that fits is named', () => {
    const text =
      'model: meta-llama/Llama-2-7b-hf\nweights_dtype: bf16\nmethod: lora\ngradient_checkpointing: full\nmicro_batch_size: ‸32\nseq_len: 1024\n';
    const md = checkHover('/w/run.vram.yaml', text, [/^\*\*[\d.]+ GiB > 23\.6 GiB on RTX-4090/, /· (\d+) fits/], {
      ...settings,
      gpu: 'RTX-4090',
    });
    const m = Number(/· (\d+) fits/.exec(md)![1]);
    const fits = (n: number): boolean | undefined =>
      analyze('/w/run.vram.yaml', text.replace('‸', '').replace('micro_batch_size: 32', `micro_batch_size: ${n}`), {
        ...settings,
        gpu: 'RTX-4090',
      }).estimate?.fits;
    assert.equal(fits(m), true);
    assert.equal(fits(m + 1), false);
  });

  it('Python: the hover at a model id constant\'s definition is the model\'s (MODEL_ID = "..." then from_pretrained(MODEL_ID))', () => {
    const text =
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'MODEL_‸ID = "Qwen/Qwen2.5-7B"\n' +
      'model = AutoModelForCausalLM.from_pretrained(MODEL_ID)\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n';
    checkHover('/w/train.py', text, [/`MODEL_ID`/, /7\.62B parameters/, /qwen2: 28 layers, hidden 3584/, /catalog/]);
  });

  it('DeepSpeed JSON: zero_optimization.stage shows the saving of the next stage (with the launcher beside it)', () => {
    files.clear();
    files.set(
      '/w/ds.json',
      '{\n  "train_micro_batch_size_per_gpu": 2,\n  "gradient_accumulation_steps": 4,\n  "bf16": {"enabled": true},\n' +
        '  "zero_optimization": {"stage": 1}\n}\n',
    );
    const launcher = {
      file: '/w/train.sh',
      text: 'deepspeed --num_gpus 8 train.py --model_name_or_path meta-llama/Llama-2-7b-hf --deepspeed ds.json --max_seq_length 2048\n',
    };
    const text = files.get('/w/ds.json')!;
    const offset = text.indexOf('"stage"') + 2;
    const a = analyzeDocument({ file: '/w/ds.json', text }, settings, {
      reader,
      resolver: catalogResolver,
      related: [launcher],
    });
    const md = hoverAt(a, offset, text);
    assert.ok(md);
    // With gradient accumulation the earlier micro-steps' gradients are held: ZeRO-2 shards them, ZeRO-1 does not.
    assert.match(md, /stage 1 -> 2: -[\d.]+ (GiB|MiB)/);
    assert.match(md, /stage 1 -> 0: \+[\d.]+ GiB/);
    assert.equal(a.setup?.gpus_per_node, 8);
    assert.equal(a.setup?.zero_stage, 1);
  });

  it('Python: hovering the model id shows the architecture and the parameter count with its source', () => {
    checkHover(
      '/w/train.py',
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
        'm = AutoModelForCausalLM.from_pretrained("‸meta-llama/Meta-Llama-3-8B")\n' +
        'args = TrainingArguments(per_device_train_batch_size=1, bf16=True, gradient_checkpointing=True)\n',
      [/llama: 32 layers, hidden 4096, 32 heads \(8 kv\)/, /8\.03B parameters/, /catalog/],
    );
  });

  it('Python: prepare_model_for_kbit_training shows what its fp32 upcast costs and turns checkpointing on', () => {
    const text = [
      'import torch',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments',
      'from peft import prepare_model_for_kbit_training',
      'bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)',
      'm = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", quantization_config=bnb, torch_dtype=torch.bfloat16)',
      'm = ‸prepare_model_for_kbit_training(m)',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)',
      '',
    ].join('\n');
    // Embeddings + head of Llama-3-8B: 2 x 128,256 x 4096 params, 2 B more each in fp32, plus the head's bf16 copy
    // (2 B each): about 1.96 + 0.98 GiB, and the fp32 residual stream on top.
    const md = checkHover('/w/train.py', text, [
      /fp32 upcast \(all\) -> none: -([3-9]|\d\d)\.\d+ GiB/,
      /fp32 upcast all -> norms only: -/,
    ]);
    assert.doesNotMatch(md, /undefined|NaN/);
    const a = analyze('/w/train.py', text.replace('‸', ''));
    assert.equal(a.setup?.kbit_upcast, 'all');
    assert.equal(a.setup?.gradient_checkpointing, 'full');
    assert.equal(a.setup?.method, 'qlora');
  });

  it('Python: a 4-bit model under TRL without prepare_model_for_kbit_training names the TRL version question as an assumption', () => {
    const text = [
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig',
      'from trl import SFTConfig, SFTTrainer',
      'm = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", ' +
        'quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4"))',
      'cfg = SFTConfig(output_dir="o", per_device_train_batch_size=1, max_length=2048)',
      '',
    ].join('\n');
    const a = analyze('/w/sft.py', text);
    // trl/trainer/sft_trainer.py (0.26+): nothing upcast, the trainable parameters of a quantized model cast to bf16.
    assert.equal(a.setup?.kbit_upcast, 'none');
    const kb = a.estimate?.assumptions.find((x) => x.key === 'kbit_upcast');
    assert.match(
      kb?.source ?? '',
      /default of trl: .*16 bits.*before TRL 0\.26 it called prepare_model_for_kbit_training/,
    );
  });

  it('tiled_mlp: the hover on the key prices turning it off (Llama-3.1-8B LoRA at 65,536 tokens, fused CE)', () => {
    const yml =
      'base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\nsequence_len: 65536\n' +
      'gradient_checkpointing: true\n' +
      'attn_implementation: flash_attention_2\n' +
      'bf16: true\n' +
      'cut_cross_entropy: true\n' +
      'plugins:\n' +
      '  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\n' +
      'tiled_mlp: true\n';
    checkHover('/w/axolotl.yml', yml.replace('tiled_mlp', '‸tiled_mlp'), [/tiled MLP on -> off: \+/]);
  });

  it("evaluation during training: HF's default eval batch of 8 is an assumption; Axolotl evaluates at micro_batch_size", () => {
    const py =
      'from transformers import TrainingArguments\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True, ' +
      'gradient_checkpointing=True, eval_strategy="steps")\n' +
      'm = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B")\n';
    const a = analyze('/w/train.py', py);
    assert.equal(a.setup?.eval_batch_size, 8);
    assert.match(
      a.estimate?.assumptions.find((x) => x.key === 'eval_batch_size')?.source ?? '',
      /per_device_eval_batch_size defaults to 8/,
    );
    assert.ok(a.estimate?.perGpu.phases.some((p) => p.phase === 'evaluation'));
    const off = analyze(
      '/w/train.py',
      py.replace('eval_strategy="steps"', 'eval_strategy="no", per_device_eval_batch_size=4'),
    );
    assert.equal(off.setup?.eval_batch_size, undefined, 'no evaluation, no phase');
    const yml =
      'base_model: meta-llama/Meta-Llama-3-8B\nadapter: lora\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\nsequence_len: 2048\nval_set_size: 0.05\n';
    const ax = analyze('/w/axolotl.yml', yml);
    assert.equal(ax.setup?.eval_batch_size, 2);
    checkHover('/w/axolotl.yml', yml.replace('val_set_size', '‸val_set_size'), [
      /eval batch 2 -> 1: [+-]/,
      /no evaluation during training: [+-]/,
    ]);
  });

  it("eval-logits-kept: compute_metrics with evaluation on keeps every eval batch's logits; eval_accumulation_steps releases them", () => {
    const py = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'm = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B")',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, per_device_eval_batch_size=4, eval_strategy="steps", bf16=True)',
      'trainer = Trainer(model=m, args=args, compute_metrics=metrics)',
      '',
    ].join('\n');
    const a = analyze('/w/train.py', py);
    const f = a.findings.find((x) => x.code === 'eval-logits-kept');
    assert.ok(f, a.findings.map((x) => x.code).join(', '));
    assert.equal(py.slice(f.span.start, f.span.end), 'compute_metrics');
    // transformers Trainer.evaluation_loop: logits of 4 x 2048 tokens x 128,256 vocabulary in bf16 per batch
    // = 2,101,346,304 B (2.0 GiB).
    assert.match(f.message, /2\.0 GiB per batch \(4 x 2048 tokens x 128256 vocabulary x 2 B\)/);
    for (const fix of ['eval_accumulation_steps=8, ', 'prediction_loss_only=True, ', 'predict_with_generate=True, ']) {
      const ok = analyze('/w/train.py', py.replace('eval_strategy=', `${fix}eval_strategy=`));
      assert.ok(!ok.findings.some((x) => x.code === 'eval-logits-kept'), fix);
    }
    const reduced = analyze(
      '/w/train.py',
      py.replace('compute_metrics=metrics', 'compute_metrics=metrics, preprocess_logits_for_metrics=argmax'),
    );
    assert.ok(!reduced.findings.some((x) => x.code === 'eval-logits-kept'));
    const noEval = analyze('/w/train.py', py.replace('eval_strategy="steps"', 'eval_strategy="no"'));
    assert.ok(!noEval.findings.some((x) => x.code === 'eval-logits-kept'));
    // nik9ta5/fine_tuning_llm_v2 tools/tuning.py: `compute_metrics=compute_metrics` of `def CreateTrainer_SF(...,
    // compute_metrics=None)`, whose one call passes none: None, no logits kept.
    const helper = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'def make(m, compute_metrics=None):',
      '    args = TrainingArguments(output_dir="o", per_device_eval_batch_size=4, eval_strategy="steps", bf16=True)',
      '    return Trainer(model=m, args=args, compute_metrics=compute_metrics)',
      'make(AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B")).train()',
      '',
    ].join('\n');
    assert.ok(!analyze('/w/train.py', helper).findings.some((x) => x.code === 'eval-logits-kept'));
    const passed = helper.replace('Meta-Llama-3-8B"))', 'Meta-Llama-3-8B"), compute_metrics=metrics)');
    assert.ok(analyze('/w/train.py', passed).findings.some((x) => x.code === 'eval-logits-kept'));
  });

  it('YAML (Axolotl): sequence_len shows the effect of doubling it', () => {
    checkHover(
      '/w/axolotl.yml',
      'base_model: mistralai/Mistral-7B-v0.1\nadapter: qlora\nload_in_4bit: true\nmicro_batch_size: 2\nsequence_len: ‸4096\ngradient_checkpointing: true\n',
      [/sequence 4096 -> 8192: \+/, /qlora|4-bit/i],
    );
  });

  it('no hover away from keys; a clear "no estimate" without a model', () => {
    const text = '{\n  "train_micro_batch_size_per_gpu": 4\n}\n';
    files.clear();
    const a = analyze('/w/lonely_ds_config.json', text);
    assert.equal(hoverAt(a, 0, text), undefined);
    const md = hoverAt(a, text.indexOf('train_micro'), text);
    assert.match(md ?? '', /No estimate yet/);
    assert.match(md ?? '', /vramLens\.model/);
  });
});

describe('features: findings', () => {
  it('exceeds-gpu-memory points at the key that drives the peak, with related information', () => {
    const text = 'model: meta-llama/Llama-2-7b-hf\nweights_dtype: bf16\nmicro_batch_size: 16\nseq_len: 4096\n';
    const a = analyze('/w/big.vram.yaml', text);
    const f = a.findings.find((x) => x.code === 'exceeds-gpu-memory');
    assert.ok(f, JSON.stringify(a.findings));
    assert.equal(text.slice(f.span.start, f.span.end), 'micro_batch_size');
    assert.ok(f.related.length >= 2);
    // The verdict first (issue: the Problems view cuts long messages): the need, the GPU and the amount over.
    assert.match(f.message, /^[\d.]+ GiB > 39\.4 GiB on A100-40GB \([\d.]+ GiB over\)/);
  });

  it('near-gpu-memory when less than the headroom stays free', () => {
    // Pick the GPU size just above the need: the run fits but with < 5 % left.
    const text =
      'model: meta-llama/Llama-2-7b-hf\nweights_dtype: bf16\nmethod: lora\nmicro_batch_size: 1\nseq_len: 512\n';
    const a0 = analyze('/w/near.vram.yaml', text, { gpu: '', headroomPercent: 5 });
    const need = a0.estimate!.perGpu.deviceBytes;
    const a = analyze('/w/near.vram.yaml', text, {
      gpu: `${((need * 1.02) / 2 ** 30).toFixed(3)}GiB`,
      headroomPercent: 5,
    });
    assert.ok(
      a.findings.some((x) => x.code === 'near-gpu-memory'),
      JSON.stringify(a.findings.map((x) => x.code)),
    );
  });

  it('variable-length-cache (info) when the cache of earlier, shorter batches would fill the GPU; none with fixed lengths', () => {
    const text =
      'model: Qwen/Qwen2-7B\nweights_dtype: bf16\nmethod: lora\ngradient_checkpointing: full\nseq_len: 2048\nbatch_lengths: variable\n';
    const need = analyze('/w/v.vram.yaml', text, { gpu: '', headroomPercent: 5 }).estimate!.perGpu.deviceBytes;
    // 12 % above the per-step need: fits with headroom, but two sets of loss tensors (7.0 GiB) would not.
    const gpu = `${((need * 1.12) / 2 ** 30).toFixed(3)}GiB`;
    const a = analyze('/w/v.vram.yaml', text, { gpu, headroomPercent: 5 });
    const f = a.findings.find((x) => x.code === 'variable-length-cache');
    assert.ok(f, JSON.stringify(a.findings.map((x) => x.code)));
    assert.equal(f.severity, 'info');
    assert.equal(text.slice(f.span.start, f.span.end), 'batch_lengths');
    assert.match(f.message, /expandable_segments/);
    assert.ok(!a.findings.some((x) => x.code === 'near-gpu-memory' || x.code === 'exceeds-gpu-memory'));
    const fixed = analyze('/w/v.vram.yaml', text.replace('variable', 'fixed'), { gpu, headroomPercent: 5 });
    assert.ok(!fixed.findings.some((x) => x.code === 'variable-length-cache'));
  });

  it('batch-size-mismatch and conflicting-precision from a DeepSpeed file are reported at their keys', () => {
    const text =
      '{\n' +
      '  "train_batch_size": 63,\n' +
      '  "train_micro_batch_size_per_gpu": 4,\n' +
      '  "gradient_accumulation_steps": 2,\n' +
      '  "bf16": {"enabled": true},\n' +
      '  "fp16": {"enabled": true}\n' +
      '}\n';
    files.clear();
    const a = analyze('/w/ds_config.json', text);
    const codes = a.findings.map((f) => f.code);
    assert.ok(codes.includes('batch-size-mismatch'), codes.join());
    assert.ok(codes.includes('conflicting-precision'), codes.join());
    assert.ok(codes.includes('unknown-model'), codes.join());
  });

  it('unresolved references are located on the reference', () => {
    files.clear();
    const text = 'deepspeed --num_gpus 2 train.py --deepspeed missing_ds.json --model_name_or_path gpt2\n';
    const a = analyze('/w/run.sh', text);
    const f = a.findings.find((x) => x.code === 'reference-not-found');
    assert.ok(f, JSON.stringify(a.pipeline.problems));
  });
});

describe('features: settings', () => {
  it('package.json defaults equal the zod schema defaults (settings checklist, STYLE.md §8)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
      contributes: { configuration: Array<{ properties: Record<string, { default: unknown }> }> };
    };
    const props: Record<string, unknown> = {};
    for (const group of pkg.contributes.configuration)
      for (const [k, v] of Object.entries(group.properties)) props[k] = v.default;
    const defaults = SettingsSchema.parse({});
    for (const k of SETTING_KEYS) assert.deepEqual(props[`vramLens.${k}`], defaults[k], `vramLens.${k}`);
    assert.equal(Object.keys(props).length, SETTING_KEYS.length);
  });

  it('vramLens.pytorchVersion 1.10 adds the softmax input of every eager layer; a version in the file wins', () => {
    // bert-large, fp32, eager, b=4, s=512: 24 layers x 4 x 16 heads x 512 x 512 x 4 B = 1,610,612,736 B more saved.
    const text =
      'model: google-bert/bert-large-uncased\nweights_dtype: fp32\nmicro_batch_size: 4\nseq_len: 512\nattention: eager\n';
    const saved = (a: ReturnType<typeof analyze>): number =>
      a
        .estimate!.perGpu.phases.find((p) => p.phase === 'forward')!
        .components.filter((c) => c.id === 'activations')
        .reduce((t, c) => t + c.bytes, 0);
    const now = analyze('/w/run.vram.yaml', text);
    const old = analyze('/w/run.vram.yaml', text, { ...settings, pytorchVersion: '1.10' });
    assert.equal(saved(old) - saved(now), 24 * 4 * 16 * 512 * 512 * 4);
    const pinned = analyze('/w/run.vram.yaml', `${text}pytorch_version: "2.4"\n`, {
      ...settings,
      pytorchVersion: '1.10',
    });
    assert.equal(saved(pinned), saved(now));
    assert.equal(SettingsSchema.shape.pytorchVersion.safeParse('latest').success, false);
  });

  it('vramLens.transformersVersion 4.57 quantizes the experts of a 4-bit Mixtral again; a version in the file wins', () => {
    // Mixtral-8x7B's experts: 32 layers x 8 x 3 x 4096 x 14336 = 45,097,156,608 params, and 32 x 8 x 4096 = 1,048,576
    // router params; transformers 5 stores both as bare parameters that bitsandbytes does not quantize.
    const text = 'model: mistralai/Mixtral-8x7B-v0.1\nmethod: qlora\nquantization: { bits: 4 }\nweights_dtype: bf16\n';
    const now = analyze('/w/run.vram.yaml', text).estimate!;
    const old = analyze('/w/run.vram.yaml', text, { ...settings, transformersVersion: '4.57' }).estimate!;
    assert.equal(old.parameters.quantized - now.parameters.quantized, 45_097_156_608 + 1_048_576);
    const pinned = analyze('/w/run.vram.yaml', `${text}transformers_version: "5.1"\n`, {
      ...settings,
      transformersVersion: '4.57',
    }).estimate!;
    assert.equal(pinned.parameters.quantized, now.parameters.quantized);
    assert.equal(SettingsSchema.shape.transformersVersion.safeParse('v5').success, false);
  });
});

describe('features: no false alarms', () => {
  // lm-evaluation-harness lm_eval/tasks/arc/arc_easy.yaml, with the batch_size and max_length an evaluation run sets.
  const LM_EVAL_TASK = [
    'tag:',
    '  - ai2_arc',
    'task: arc_easy',
    'dataset_path: allenai/ai2_arc',
    'dataset_name: ARC-Easy',
    'output_type: multiple_choice',
    'training_split: train',
    'validation_split: validation',
    'test_split: test',
    'doc_to_text: "Question: {{question}}\\nAnswer:"',
    'doc_to_target: "{{choices.label.index(answerKey)}}"',
    'doc_to_choice: "{{choices.text}}"',
    'batch_size: 8',
    'max_length: 2048',
    'metric_list:',
    '  - metric: acc',
    '    aggregation: mean',
    '    higher_is_better: true',
    'metadata:',
    '  version: 1.0',
    '',
  ].join('\n');
  // transformers docs/source/en/deepspeed.md, "ZeRO-2 example" (ds_config_zero2.json), as HF Trainer users copy it.
  const HF_ZERO2 = JSON.stringify(
    {
      fp16: {
        enabled: 'auto',
        loss_scale: 0,
        loss_scale_window: 1000,
        initial_scale_power: 16,
        hysteresis: 2,
        min_loss_scale: 1,
      },
      bf16: { enabled: 'auto' },
      optimizer: { type: 'AdamW', params: { lr: 'auto', betas: 'auto', eps: 'auto', weight_decay: 'auto' } },
      scheduler: {
        type: 'WarmupLR',
        params: { warmup_min_lr: 'auto', warmup_max_lr: 'auto', warmup_num_steps: 'auto' },
      },
      zero_optimization: {
        stage: 2,
        offload_optimizer: { device: 'cpu', pin_memory: true },
        allgather_partitions: true,
        allgather_bucket_size: 2e8,
        overlap_comm: true,
        reduce_scatter: true,
        reduce_bucket_size: 2e8,
        contiguous_gradients: true,
      },
      gradient_accumulation_steps: 'auto',
      gradient_clipping: 'auto',
      steps_per_print: 2000,
      train_batch_size: 'auto',
      train_micro_batch_size_per_gpu: 'auto',
      wall_clock_breakdown: false,
    },
    null,
    4,
  );

  it('an lm-evaluation-harness task YAML is not a training config: no format, so no "no model found"', () => {
    assert.equal(detectFormat('/w/tasks/arc_easy.yaml', LM_EVAL_TASK), undefined);
    // A training YAML that also names a task is still read.
    assert.equal(
      detectFormat('/w/sft.yaml', `${LM_EVAL_TASK}per_device_train_batch_size: 4\nlearning_rate: 2.0e-5\n`),
      'hf-yaml',
    );
    // One loose key alone (max_length) does not make a YAML TrainingArguments.
    assert.equal(detectFormat('/w/generation.yaml', 'max_length: 512\ntemperature: 0.7\n'), undefined);
  });

  it('a GPT-NeoX config (a model by its dimensions) is not read, not taken for the HF arguments it shares keys with', () => {
    // EleutherAI/gpt-neox configs/finetuning_configs/6-9B.yml, shortened: DeepSpeed's keys beside `num-layers`.
    const neox = [
      '{',
      '  "num-layers": 32,',
      '  "hidden-size": 4096,',
      '  "num-attention-heads": 32,',
      '  "seq-length": 2048,',
      '  "train_micro_batch_size_per_gpu": 8,',
      '  "gradient_accumulation_steps": 2,',
      '  "fp16": { "fp16": true, "enabled": true },',
      '}',
      '',
    ].join('\n');
    assert.equal(detectFormat('/w/configs/6-9B.yml', neox), undefined);
    // EleutherAI/gpt-neox configs/llemma/7B.yml, shortened: the underscored keys of its current configs. Read as HF
    // arguments, its DeepSpeed `"bf16": {"enabled": true}` was an error ("expected true or false, found a mapping").
    const llemma = [
      '{',
      '  "pipe_parallel_size": 0,',
      '  "model_parallel_size": 2,',
      '  "num_layers": 32,',
      '  "hidden_size": 4096,',
      '  "pos_emb": "rotary",',
      '  "train_micro_batch_size_per_gpu": 4,',
      '  "gradient_accumulation_steps": 2,',
      '  "bf16": { "enabled": true },',
      '}',
      '',
    ].join('\n');
    assert.equal(detectFormat('/w/configs/llemma/7B.yml', llemma), undefined);
  });

  it('an MLX-LM or a Levanter config (no PyTorch run on a CUDA GPU) is not read as a project config by its names', () => {
    // ml-explore/mlx-lm mlx_lm/examples/lora_config.yaml, shortened: read by name, its LoRA on Apple silicon was a
    // 58 GiB full fine-tune's activations on an A100.
    const mlx = [
      'model: "mlx-community/Llama-3.2-1B-Instruct-bf16"',
      'train: true',
      'fine_tune_type: lora',
      'batch_size: 4',
      'grad_accumulation_steps: 1',
      'max_seq_length: 2048',
      'adapter_path: "adapters"',
      'lora_parameters:',
      '  rank: 8',
      '',
    ].join('\n');
    assert.equal(detectFormat('/w/lora_config.yaml', mlx), undefined);
    // stanford-crfm/levanter config/sft_llama3.1_tulu3.yaml, shortened: JAX, its jmp policy and mesh axes.
    const levanter = [
      'model_name_or_path: meta-llama/Llama-3.1-8B',
      'initialize_from_hf: true',
      'trainer:',
      '  mp: p=f32,c=bfloat16',
      '  train_batch_size: 128',
      '  fsdp_axis: "embed"',
      '  batch_axis: "batch"',
      'optimizer:',
      '  learning_rate: 5e-6',
      '',
    ].join('\n');
    assert.equal(detectFormat('/w/config/sft.yaml', levanter), undefined);
  });

  it("HfArgumentParser's JSON arguments (python run_clm.py args.json) are TrainingArguments, not a DeepSpeed config", () => {
    // They share bf16 and gradient_accumulation_steps with DeepSpeed, whose "bf16" is an object: read as DeepSpeed's,
    // `"bf16": true` was an error ("must be an object").
    const args =
      '{"model_name_or_path": "meta-llama/Llama-2-7b-hf", "per_device_train_batch_size": 4, ' +
      '"gradient_accumulation_steps": 2, "bf16": true, "gradient_checkpointing": true, "output_dir": "out"}\n';
    assert.equal(detectFormat('/w/args.json', args), 'hf-yaml');
    const r = analyze('/w/args.json', args);
    assert.deepEqual(
      r.findings.filter((f) => f.code === 'invalid-value'),
      [],
    );
    // A DeepSpeed key that TrainingArguments lacks keeps it a DeepSpeed config; so does its name.
    assert.equal(
      detectFormat('/w/args.json', args.replace('{', '{"zero_optimization": {"stage": 2}, ')),
      'deepspeed-json',
    );
    assert.equal(detectFormat('/w/ds_config.json', args), 'deepspeed-json');
    assert.equal(detectFormat('/w/ds.json', HF_ZERO2), 'deepspeed-json');
  });

  it('the HF ZeRO-2 JSON\'s "auto" values are no diagnostics on their own or beside a Trainer launcher; the hover says what fills them', () => {
    const file = '/w/ds_config_zero2.json';
    assert.deepEqual(
      analyze(file, HF_ZERO2).findings.filter((f) => f.code === 'unresolved-auto'),
      [],
    );
    const launcher = {
      file: '/w/train.sh',
      text:
        'deepspeed --num_gpus 4 train.py --deepspeed ds_config_zero2.json ' +
        '--model_name_or_path meta-llama/Llama-2-7b-hf --per_device_train_batch_size 4 ' +
        '--gradient_accumulation_steps 2 --bf16\n',
    };
    const a = analyzeDocument({ file, text: HF_ZERO2 }, settings, {
      reader,
      resolver: catalogResolver,
      related: [launcher],
    });
    assert.deepEqual(
      a.findings.filter((f) => f.code === 'unresolved-auto'),
      [],
    );
    const md =
      hoverAt(a, HF_ZERO2.indexOf('"auto"', HF_ZERO2.indexOf('train_micro_batch_size_per_gpu')) + 2, HF_ZERO2) ?? '';
    assert.match(md, /HF Trainer or Accelerate fill it from TrainingArguments/);
    assert.match(md, /In this run: `4` \(from `--per_device_train_batch_size` in `train\.sh`\)/);
    // DeepSpeed's own launcher with deepspeed.initialize fills nothing: there "auto" is said.
    const plain = {
      file: '/w/train.sh',
      text: 'deepspeed --num_gpus 4 pretrain.py --deepspeed_config ds_config_zero2.json\n',
    };
    const b = analyzeDocument({ file, text: HF_ZERO2 }, settings, {
      reader,
      resolver: catalogResolver,
      related: [plain],
    });
    assert.ok(b.findings.some((f) => f.code === 'unresolved-auto'));
    // ... once: the hover at such a value does not repeat the diagnostic.
    const at = HF_ZERO2.indexOf('"auto"', HF_ZERO2.indexOf('train_micro_batch_size_per_gpu')) + 2;
    assert.doesNotMatch(hoverAt(b, at, HF_ZERO2) ?? '', /DeepSpeed alone does not accept/);
  });

  it('a missing model is said once, and the setting it names is not asked for twice', () => {
    const b = analyzeDocument({ file: '/w/ds.json', text: HF_ZERO2 }, settings, {
      reader,
      resolver: catalogResolver,
      related: [{ file: '/w/train.sh', text: 'deepspeed --num_gpus 4 pretrain.py --deepspeed_config ds.json\n' }],
    });
    const m = b.findings.filter((f) => f.code === 'unknown-model');
    assert.equal(m.length, 1);
    assert.equal(m[0].message.match(/vramLens\.model/g)?.length, 1, m[0].message);
  });
});

describe('features: deprecated Axolotl attention switches', () => {
  it('flash_attention: true gets a fix that writes attn_implementation: flash_attention_2 in its place', () => {
    const text =
      'base_model: meta-llama/Llama-3.1-8B\n' +
      'adapter: lora\n' +
      'lora_r: 16\n' +
      'sequence_len: 2048\n' +
      'micro_batch_size: 2\n' +
      'gradient_accumulation_steps: 4\n' +
      'flash_attention: true  # fast\n' +
      'bf16: true\n';
    const a = analyze('/w/ax.yml', text);
    assert.ok(
      a.findings.some((f) => f.code === 'deprecated-key' && text.slice(f.span.start, f.span.end) === 'flash_attention'),
    );
    const fixes = keyFixes(a);
    assert.equal(fixes.length, 1);
    assert.equal(fixes[0].title, 'Use attn_implementation: flash_attention_2 (the current key for flash_attention)');
    const edited = applyEditData(text, fixes[0].edits);
    assert.match(edited, /^attn_implementation: flash_attention_2\nbf16: true$/m);
    const after = analyze('/w/ax.yml', edited);
    assert.equal(after.findings.filter((f) => f.code === 'deprecated-key').length, 0);
    assert.equal(after.setup?.attention, a.setup?.attention);
    // With attn_implementation already set, the switch is removed.
    const both = `${text}attn_implementation: sdpa\n`;
    const [remove] = keyFixes(analyze('/w/ax.yml', both));
    assert.equal(remove.title, 'Remove the deprecated flash_attention');
    assert.doesNotMatch(applyEditData(both, remove.edits), /flash_attention:/);
  });
});

describe('hover what-ifs: estimated for the same GPU as the estimate they are set against', () => {
  it("a what-if on an H100 counts the GPU's own kernels (cuBLAS workspaces, the softmax backward's temporary)", () => {
    // Mistral-7B LoRA with eager attention over 2 x 2,048 tokens: on a GPU, ATen's softmax backward keeps a 1 GiB fp32
    // temporary and the process two 32 MiB cuBLAS workspaces. A what-if made without the GPU's spec left them out, so
    // its difference was off by that much whatever the change.
    const found = findGpu('H100');
    assert.ok(found.ok);
    const s = setupFor('mistralai/Mistral-7B-v0.1', {
      method: 'lora',
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      attention: 'eager',
      micro_batch_size: 2,
      seq_len: 2048,
    });
    const gpu = gpuTarget(found.gpu);
    const base = estimate(s, { gpu });
    const more = estimate({ ...s, micro_batch_size: 3 }, { gpu });
    assert.ok(base.ok && more.ok);
    const effects = whatIfEffects('microBatchSize', s, base.estimate, identity);
    const expected = `micro-batch 2 -> 3: ${signed(more.estimate.perGpu.deviceBytes - base.estimate.perGpu.deviceBytes)}`;
    assert.ok(effects.includes(expected), `${effects.join('; ')} vs ${expected}`);
  });
});
