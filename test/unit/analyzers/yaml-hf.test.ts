// HF TrainingArguments / TRL configs as YAML: which tool's defaults apply, next-line values, renamed keys, PEFT and
// quantization keys of TRL's ModelConfig; and the format detector of all YAML configs.
import * as assert from 'node:assert/strict';
import { analyzeHfYaml, detectYamlFormat } from '../../../src/analyzers/yaml';
import { estimate } from '../../../src/core/estimate';
import type { Estimate } from '../../../src/core/model';
import { resolveText, runFiles } from '../helpers';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { checkFacts, codes, corpusDir, corpusFiles, corpusSuite, factOf, robustnessProperty } from './yaml-common.test';

const TRL = `# Model arguments
model_name_or_path:
  Qwen/Qwen2.5-0.5B
dtype: bfloat16
attn_implementation: sdpa
use_peft: true
lora_r: 32
lora_alpha: 64
lora_dropout: 0.05
lora_target_modules: all-linear
load_in_4bit: true
bnb_4bit_quant_type: nf4
use_bnb_nested_quant: true
# Trainer
per_device_train_batch_size:
  8
gradient_accumulation_steps: 4
bf16: true
gradient_checkpointing: false
optim: paged_adamw_8bit
max_length: 2048
packing: true
use_liger_kernel: true
torch_compile: true
activation_offloading: true
deepspeed: configs/ds_z2.json
`;

const HF = `output_dir: out
per_device_train_batch_size: 16
fp16: true
fsdp: full_shard offload auto_wrap
fsdp_config:
  activation_checkpointing: true
optim: adamw_torch_fused
`;

describe('analyzeHfYaml', () => {
  it('uses TRL semantics when TRL keys appear, HF Trainer semantics otherwise', () => {
    assert.deepEqual(analyzeHfYaml(TRL).tools, ['trl']);
    assert.deepEqual(analyzeHfYaml(HF).tools, ['hf-trainer']);
    assert.ok(analyzeHfYaml(TRL).facts.every((f) => f.tool === 'trl'));
  });

  it('reads a GRPO reward model given by Hub id (trl grpo --config, reward_model_name_or_path)', () => {
    const t =
      'model_name_or_path: Qwen/Qwen2.5-0.5B\nnum_generations: 8\nreward_model_name_or_path: meta-llama/Llama-3.2-1B\n';
    checkFacts(analyzeHfYaml(t), t, [
      ['rewardModels', ['meta-llama/Llama-3.2-1B'], 'reward_model_name_or_path', 'meta-llama/Llama-3.2-1B'],
    ]);
  });

  it("reads TRL's use_liger_loss as Liger's fused loss (a GRPO config's completion logits are never made)", () => {
    const text = 'model_name_or_path: Qwen/Qwen2.5-7B\nnum_generations: 8\nuse_liger_loss: true\n';
    assert.equal(analyzeHfYaml(text).facts.find((f) => f.key === 'loss')?.value, 'fused');
    assert.equal(resolveText('grpo.yaml', text).setup?.loss, 'fused');
  });

  it('reads values written on the line after their key', () => {
    checkFacts(analyzeHfYaml(TRL), TRL, [
      ['model', 'Qwen/Qwen2.5-0.5B', 'model_name_or_path', 'Qwen/Qwen2.5-0.5B'],
      ['microBatchSize', 8, 'per_device_train_batch_size', '8'],
    ]);
  });

  it('reads TrainingArguments, TRL and ModelConfig keys', () => {
    checkFacts(analyzeHfYaml(TRL), TRL, [
      ['weightsDtype', 'bf16', 'dtype', 'bfloat16'],
      ['attention', 'sdpa'],
      ['method', 'lora', 'use_peft', 'true'],
      ['loraR', 32],
      ['loraAlpha', 64],
      ['loraDropout', 0.05],
      ['loraTargets', 'all-linear', 'lora_target_modules', 'all-linear'],
      ['quantBits', 4, 'load_in_4bit', 'true'],
      ['quantType', 'nf4'],
      ['doubleQuant', true, 'use_bnb_nested_quant', 'true'],
      ['gradientAccumulationSteps', 4],
      ['bf16', true],
      ['gradientCheckpointing', 'none', 'gradient_checkpointing', 'false'],
      ['optimizer', 'paged_adamw_8bit', 'optim', 'paged_adamw_8bit'],
      ['seqLen', 2048, 'max_length', '2048'],
      ['loss', 'fused', 'use_liger_kernel', 'true'],
      ['compile', true],
      ['activationOffloading', true],
      ['deepspeedConfig', 'configs/ds_z2.json', 'deepspeed', 'configs/ds_z2.json'],
    ]);
    assert.deepEqual(
      analyzeHfYaml(TRL).references.map((r) => r.path),
      ['configs/ds_z2.json'],
    );
  });

  it('reads save_strategy as whether checkpoints are written ("no": none) and flags a wrong value', () => {
    // transformers@00349ae:src/transformers/trainer_utils.py SaveStrategy: no, steps, epoch, best.
    const text = 'per_device_train_batch_size: 2\nsave_strategy: "no"\n';
    checkFacts(analyzeHfYaml(text), text, [['savesCheckpoints', false, 'save_strategy', '"no"']]);
    const epoch = 'per_device_train_batch_size: 2\nsave_strategy: epoch\n';
    checkFacts(analyzeHfYaml(epoch), epoch, [['savesCheckpoints', true, 'save_strategy', 'epoch']]);
    assert.ok(codes(analyzeHfYaml('per_device_train_batch_size: 2\nsave_strategy: daily\n')).includes('invalid-value'));
  });

  it('reads the fsdp option string and fsdp_config activation checkpointing', () => {
    checkFacts(analyzeHfYaml(HF), HF, [
      ['fsdp', 'full_shard', 'fsdp', 'full_shard offload auto_wrap'],
      ['fsdpOffload', true],
      ['gradientCheckpointing', 'full', 'activation_checkpointing', 'true'],
      ['fp16', true],
      ['optimizer', 'adamw_fused'],
    ]);
  });

  it("reads fsdp_config's backward_prefetch, with or without the fsdp_ prefix the Trainer strips", () => {
    // transformers training_args.py: fsdp_plugin_args["backward_prefetch"] = fsdp_config.get("backward_prefetch", "NO_PREFETCH").upper()
    const text = 'fsdp: full_shard\nfsdp_config:\n  backward_prefetch: backward_pre\n';
    checkFacts(analyzeHfYaml(text), text, [['fsdpBackwardPrefetch', 'pre', 'backward_prefetch', 'backward_pre']]);
    const prefixed = 'fsdp: full_shard\nfsdp_config:\n  fsdp_backward_prefetch: no_prefetch\n';
    checkFacts(analyzeHfYaml(prefixed), prefixed, [
      ['fsdpBackwardPrefetch', 'none', 'fsdp_backward_prefetch', 'no_prefetch'],
    ]);
    // Unset, the Trainer's default applies at resolve and is listed as an assumption where it matters (FSDP1 over
    // several GPUs): no prefetch, so no layer unit at the loss.
    const res = resolveText('args.yaml', 'model_name_or_path: meta-llama/Llama-2-7b-hf\nfsdp: full_shard\n', {
      gpusPerNode: 2,
    });
    assert.ok(res.setup);
    assert.equal(res.setup.fsdp_backward_prefetch, 'none');
    const e = estimate(res.setup, { provenance: res.provenance });
    assert.ok(e.ok);
    const assumed = e.estimate.assumptions.find((a) => a.key === 'fsdp_backward_prefetch');
    assert.equal(assumed?.value, 'none');
    assert.match(
      assumed?.source ?? '',
      /^default of hf-trainer: Accelerate's FSDP plugin runs FSDP1 without backward prefetch/,
    );
  });

  it("reads fsdp_config's cpu_ram_efficient_loading; unset, the Trainer's false is a default with its source", () => {
    // transformers training_args.py: cpu_ram_efficient_loading = str(self.fsdp_config.get("cpu_ram_efficient_loading",
    // "false")).lower(), set as FSDP_CPU_RAM_EFFICIENT_LOADING.
    const text = 'fsdp: full_shard\nfsdp_config:\n  cpu_ram_efficient_loading: true\n';
    checkFacts(analyzeHfYaml(text), text, [['fsdpCpuRamEfficientLoading', true, 'cpu_ram_efficient_loading', 'true']]);
    const prefixed = 'fsdp: full_shard\nfsdp_config:\n  fsdp_cpu_ram_efficient_loading: "false"\n';
    checkFacts(analyzeHfYaml(prefixed), prefixed, [
      ['fsdpCpuRamEfficientLoading', false, 'fsdp_cpu_ram_efficient_loading'],
    ]);
    const unset = resolveText('args.yaml', 'model_name_or_path: meta-llama/Llama-2-7b-hf\nfsdp: full_shard\n', {
      gpusPerNode: 2,
    });
    assert.equal(unset.setup?.fsdp_cpu_ram_efficient_loading, false);
    assert.equal(unset.provenance?.fsdp_cpu_ram_efficient_loading?.kind, 'default');
  });
  it("an Accelerate config that sets up FSDP without the key: accelerate launch's default, true, not the Trainer's", () => {
    // accelerate commands/launch.py: --fsdp_cpu_ram_efficient_loading "true" unless given; the Trainer sets the variable
    // from its fsdp_config only when its own TrainingArguments configure FSDP (transformers training_args.py).
    const files = [
      {
        file: 'fsdp.yaml',
        text: 'distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_offload_params: false\n',
      },
      { file: 'args.yaml', text: 'model_name_or_path: meta-llama/Llama-2-7b-hf\nper_device_train_batch_size: 2\n' },
    ];
    const r = runPipeline(files, { read: () => undefined, join: (_f: string, rel: string) => rel }, {});
    assert.equal(r.setup?.fsdp_cpu_ram_efficient_loading, true);
    assert.equal(r.provenance.fsdp_cpu_ram_efficient_loading?.kind, 'default');
    assert.equal((r.provenance.fsdp_cpu_ram_efficient_loading as { owner?: string }).owner, 'accelerate');
  });
  it("reads fsdp_config's use_orig_params, with or without the fsdp_ prefix; unset, the Trainer's true is an assumption", () => {
    // transformers training_args.py: fsdp_plugin_args["use_orig_params"] = str_to_bool(str(self.fsdp_config.get(
    // "use_orig_params", "true")).lower()), for FSDP1 only.
    const text = 'fsdp: full_shard offload\nfsdp_config:\n  use_orig_params: false\n';
    checkFacts(analyzeHfYaml(text), text, [['fsdpUseOrigParams', false, 'use_orig_params', 'false']]);
    const prefixed = 'fsdp: full_shard offload\nfsdp_config:\n  fsdp_use_orig_params: "true"\n';
    checkFacts(analyzeHfYaml(prefixed), prefixed, [['fsdpUseOrigParams', true, 'fsdp_use_orig_params']]);
    const bad = 'fsdp: full_shard offload\nfsdp_config:\n  use_orig_params: original\n';
    const rb = analyzeHfYaml(bad);
    assert.equal(rb.problems.find((p) => p.code === 'invalid-value')?.rawKey, 'fsdp_config.use_orig_params');
    assert.equal(factOf(rb, 'fsdpUseOrigParams'), undefined);
    const fsdp2 = 'fsdp: full_shard\nfsdp_config:\n  version: 2\n  use_orig_params: false\n';
    assert.equal(factOf(analyzeHfYaml(fsdp2), 'fsdpUseOrigParams'), undefined);
    // FSDP1 with CPU offload over 2 GPUs, fp32 weights gathered as stored: under use_orig_params each unsharded unit
    // keeps a GPU copy of its shard (core/terms/fsdp1-offload-shard-copy.ts), the root's throughout: Llama-2-7B's
    // embedding and head, 2 x 32,000 x 4,096 = 262,144,000 params / 2 ranks x 4 B = 524,288,000 B.
    const run = (extra: string) =>
      resolveText('args.yaml', `model_name_or_path: meta-llama/Llama-2-7b-hf\nfsdp: full_shard offload\n${extra}`, {
        gpusPerNode: 2,
      });
    const copies = (e: Estimate): Array<[string, number]> =>
      e.perGpu.phases.flatMap((p) =>
        p.components
          .filter((c) => c.label === "FSDP1 CPU offload: GPU copy of the root unit's shard")
          .map((c): [string, number] => [p.phase, c.bytes]),
      );
    const unset = run('');
    assert.ok(unset.setup);
    assert.equal(unset.setup.fsdp_use_orig_params, true);
    const e = estimate(unset.setup, { provenance: unset.provenance });
    assert.ok(e.ok);
    const assumed = e.estimate.assumptions.find((a) => a.key === 'fsdp_use_orig_params');
    assert.equal(assumed?.value, 'true');
    assert.match(assumed?.source ?? '', /^default of hf-trainer: the HF Trainer runs FSDP1 with use_orig_params/);
    assert.deepEqual(copies(e.estimate), [
      ['forward', 524_288_000],
      ['backward', 524_288_000],
    ]);
    // Said false in the file: no copy, no assumption, the peak 524,288,000 B lower.
    const off = run('fsdp_config:\n  use_orig_params: false\n');
    assert.ok(off.setup);
    assert.equal(off.setup.fsdp_use_orig_params, false);
    const eo = estimate(off.setup, { provenance: off.provenance });
    assert.ok(eo.ok);
    assert.ok(!eo.estimate.assumptions.some((a) => a.key === 'fsdp_use_orig_params'));
    assert.deepEqual(copies(eo.estimate), []);
    assert.equal(e.estimate.perGpu.peakBytes - eo.estimate.perGpu.peakBytes, 524_288_000);
  });

  it('reads max_seq_length as the sequence length and flags it as removed from TRL', () => {
    const text = 'use_peft: true\nmax_seq_length: 2048\n';
    const r = analyzeHfYaml(text);
    checkFacts(r, text, [['seqLen', 2048, 'max_seq_length', '2048']]);
    const dep = r.problems.find((p) => p.code === 'deprecated-key');
    assert.equal(dep && text.slice(dep.span.start, dep.span.end), 'max_seq_length');
  });

  it("reads SFTConfig's packing: packed rows fill max_length, unpacked ones are padded to the batch's longest", () => {
    // philschmid/deep-learning-pytorch-huggingface training/receipes/llama-3-1-8b-qlora.yaml writes `packing: true`.
    const on = 'model_name_or_path: meta-llama/Llama-3.1-8B\nmax_length: 1024\npacking: true\n';
    checkFacts(analyzeHfYaml(on), on, [
      ['batchLengths', 'fixed', 'packing', 'true'],
      ['paddedBatches', true, 'packing', 'true'],
    ]);
    assert.equal(resolveText('sft.yaml', on).setup!.batch_lengths, 'fixed');
    const off = on.replace('packing: true', 'packing: false');
    assert.equal(factOf(analyzeHfYaml(off), 'batchLengths')?.value, 'variable');
    assert.equal(factOf(analyzeHfYaml(off), 'paddedBatches'), undefined);
  });

  it("reads the preference trainer a TRL YAML's keys name: DPO, CPO / SimPO, KTO; beta alone assumes DPO and says so", () => {
    // philschmid/deep-learning-pytorch-huggingface training/receipes/dpo-llama-3-1-8b.yaml: beta 0.1, loss_type sigmoid.
    const dpo = 'model_name_or_path: meta-llama/Llama-3.1-8B\nbeta: 0.1\nmax_prompt_length: 768\nloss_type: sigmoid\n';
    checkFacts(analyzeHfYaml(dpo), dpo, [['preference', 'dpo', 'loss_type', 'sigmoid']]);
    assert.equal(resolveText('dpo.yaml', dpo).setup!.preference?.reference, 'copy');
    const pre = dpo + 'precompute_ref_log_probs: true\n';
    assert.equal(factOf(analyzeHfYaml(pre), 'referenceModel')?.value, 'precomputed');
    assert.equal(resolveText('dpo.yaml', pre).setup!.preference?.reference, 'precomputed');
    const lora = dpo + 'use_peft: true\nlora_r: 16\n';
    assert.equal(resolveText('dpo.yaml', lora).setup!.preference?.reference, 'adapters-off');
    const cpo = 'model_name_or_path: meta-llama/Llama-3.1-8B\nbeta: 2.0\nloss_type: simpo\ncpo_alpha: 0\n';
    assert.equal(factOf(analyzeHfYaml(cpo), 'preference')?.value, 'reference-free');
    assert.equal(resolveText('simpo.yaml', cpo).setup!.preference?.reference, 'none');
    const kto = 'model_name_or_path: meta-llama/Llama-3.1-8B\nbeta: 0.1\ndesirable_weight: 1.0\n';
    assert.equal(factOf(analyzeHfYaml(kto), 'preference')?.value, 'kto');
    // alignment-handbook's recipes/zephyr-7b-beta/dpo/config_full.yaml: beta and max_prompt_length, no loss_type.
    const bare = 'model_name_or_path: meta-llama/Llama-3.1-8B\nbeta: 0.01\nmax_prompt_length: 512\n';
    const r = resolveText('config_full.yaml', bare);
    assert.equal(r.setup!.preference?.reference, 'copy');
    assert.equal(r.provenance.preference?.kind, 'default');
    assert.match(String(r.provenance.preference?.note), /DPO assumed/);
    // GRPO's and SFT's YAMLs are not preference runs.
    const grpo = 'model_name_or_path: Qwen/Qwen2.5-0.5B\nbeta: 0.04\nnum_generations: 8\n';
    assert.equal(factOf(analyzeHfYaml(grpo), 'preference'), undefined);
    const sft = 'model_name_or_path: Qwen/Qwen2.5-0.5B\nbeta: 0.04\npacking: true\n';
    assert.equal(factOf(analyzeHfYaml(sft), 'preference'), undefined);
  });

  it('prefers max_length over max_seq_length', () => {
    const text = 'max_seq_length: 512\nmax_length: 1024\n';
    checkFacts(analyzeHfYaml(text), text, [['seqLen', 1024, 'max_length', '1024']]);
  });

  it('flags torch_dtype as renamed and reads auto as unknown', () => {
    const text = 'max_length: 10\ntorch_dtype: auto\n';
    const r = analyzeHfYaml(text);
    checkFacts(r, text, [['weightsDtype', { unknown: true }, 'torch_dtype', 'auto']]);
    assert.ok(codes(r).includes('deprecated-key'));
  });

  it("says nothing of torch_dtype where the project's TRL predates the rename (0.23)", () => {
    // princeton-nlp/SimPO-style config beside `trl==0.9.6`: torch_dtype is that release's own name.
    const config = 'model_name_or_path: Qwen/Qwen2.5-0.5B\ntorch_dtype: bfloat16\nbeta: 0.1\nmax_length: 1024\n';
    const renamed = (pin: string) =>
      runFiles({ '/w/c.yaml': config, '/w/requirements.txt': `${pin}\n` }, '/w/c.yaml').problems.some((p) =>
        /renamed `dtype`/.test(p.message),
      );
    assert.equal(renamed('trl==0.9.6'), false);
    assert.equal(renamed('trl==0.23.0'), true);
  });

  it("leaves torch_dtype alone where no TRL key says the file is TRL's (the HF examples' ModelArguments have it)", () => {
    // transformers examples/pytorch/language-modeling/run_clm.py: ModelArguments.torch_dtype, read by
    // parse_json_file(sys.argv[1]); bfloat16 is the dtype the model loads in.
    const text = '{"model_name_or_path": "gpt2", "torch_dtype": "bfloat16", "output_dir": "out"}\n';
    const r = analyzeHfYaml(text);
    checkFacts(r, text, [['weightsDtype', 'bf16', '"torch_dtype"', '"bfloat16"']]);
    assert.ok(!codes(r).includes('deprecated-key'));
  });

  it('reads model_init_kwargs dtype and attention', () => {
    const text = 'model_init_kwargs:\n  dtype: float16\n  attn_implementation: eager\n';
    checkFacts(analyzeHfYaml(text), text, [
      ['weightsDtype', 'fp16', 'dtype', 'float16'],
      ['attention', 'eager'],
    ]);
  });

  it("reads the alignment handbook's use_flash_attention_2 as FlashAttention-2 where attn_implementation is not given", () => {
    // uclaml/SPIN@a12ba80 configs/tulu-70B/config.yaml:3, handed to from_pretrained through model_init_kwargs.
    const text = 'model_name_or_path: allenai/tulu-2-70b\nuse_flash_attention_2: true\nbeta: 0.1\n';
    assert.equal(factOf(analyzeHfYaml(text), 'attention')?.value, 'flash');
    assert.equal(factOf(analyzeHfYaml(text.replace('true', 'false')), 'attention'), undefined);
    const both = `${text}attn_implementation: sdpa\n`;
    assert.equal(factOf(analyzeHfYaml(both), 'attention')?.value, 'sdpa');
  });

  it('flags both precisions on and impossible values', () => {
    assert.ok(codes(analyzeHfYaml('bf16: true\nfp16: true\n')).includes('conflicting-precision'));
    assert.ok(codes(analyzeHfYaml('per_device_train_batch_size: -8\n')).includes('invalid-value'));
    assert.equal(factOf(analyzeHfYaml('per_device_train_batch_size: -8\n'), 'microBatchSize'), undefined);
  });

  it('keeps spans exact after a long double-quoted string with escapes and non-ASCII', () => {
    const template = `"${'{# ───── defaults ───── #}\\n{%- if x -%}\\n'.repeat(300)}"`;
    const text = `chat_template: ${template}\nper_device_train_batch_size: 1\nmax_length: 65536\n`;
    checkFacts(analyzeHfYaml(text), text, [
      ['microBatchSize', 1, 'per_device_train_batch_size', '1'],
      ['seqLen', 65536, 'max_length', '65536'],
    ]);
  });

  it('never throws and keeps spans inside mutated texts (property, 2000 runs)', function () {
    this.timeout(20000);
    robustnessProperty(analyzeHfYaml, [TRL, HF, ...corpusFiles('hf-yaml').map((f) => f.text)]);
  });
});

corpusSuite('hf-yaml', analyzeHfYaml);

describe('detectYamlFormat', () => {
  it('recognizes each tool by its keys', () => {
    assert.equal(detectYamlFormat("distributed_type: 'NO'\nmixed_precision: 'no'\n"), 'accelerate-yaml');
    assert.equal(detectYamlFormat('compute_environment: LOCAL_MACHINE\nnum_machines: 1\n'), 'accelerate-yaml');
    assert.equal(detectYamlFormat('base_model: x\nmicro_batch_size: 1\n'), 'axolotl-yaml');
    assert.equal(detectYamlFormat('sequence_len: 2048\nadapter: lora\nmicro_batch_size: 2\n'), 'axolotl-yaml');
    assert.equal(detectYamlFormat('model_name_or_path: x\nstage: sft\nfinetuning_type: lora\n'), 'llamafactory-yaml');
    assert.equal(detectYamlFormat('model_name_or_path: x\ncutoff_len: 1024\ntemplate: llama3\n'), 'llamafactory-yaml');
    assert.equal(
      detectYamlFormat('model: Qwen/Qwen3-0.6B\ndist_config:\n  name: fsdp2\nmicro_batch_size: 1\n'),
      'llamafactory-yaml',
    );
    // One generic key of LLaMA-Factory v1's beside a model is another project's (universal-llm-trainer).
    assert.notEqual(detectYamlFormat('model: llama3.1\nquant_config: False\nbatch_size: 2\n'), 'llamafactory-yaml');
    assert.equal(
      detectYamlFormat('model:\n  _component_: torchtune.models.llama2.llama2_7b\nbatch_size: 2\n'),
      'torchtune-yaml',
    );
    assert.equal(
      detectYamlFormat('model_name_or_path: x\nper_device_train_batch_size: 4\nmax_length: 1024\n'),
      'hf-yaml',
    );
    assert.equal(detectYamlFormat('model_name_or_path:\n  Qwen/Qwen2.5-0.5B\nlearning_rate:\n  0.0001\n'), 'hf-yaml');
  });

  it("a TRL recipe with ModelConfig's quantization switches and a wandb_project is TRL's, not Axolotl's", () => {
    // MS0117/ATP configs/grpo.yaml (abridged): load_in_4bit, load_in_8bit and wandb_project are among Axolotl's keys
    // too, but Axolotl names its model base_model, never model_name_or_path.
    const recipe = [
      'model_name_or_path: kfdong/STP_model_Lean_0320',
      'per_device_train_batch_size: 8',
      'num_generations: 4',
      'use_peft: true',
      'load_in_4bit: false',
      'load_in_8bit: false',
      'lora_r: 64',
      'wandb_project: ATP',
      '',
    ].join('\n');
    assert.equal(detectYamlFormat(recipe), 'hf-yaml');
    assert.equal(detectYamlFormat(recipe.replace('model_name_or_path', 'base_model')), 'axolotl-yaml');
  });

  it('returns undefined for scenario files, empty texts and unrelated YAML', () => {
    assert.equal(
      detectYamlFormat('model: meta-llama/Llama-2-7b-hf\nmicro_batch_size: 2\n', 'run.vram.yaml'),
      undefined,
    );
    assert.equal(detectYamlFormat('model: x\n', 'a.VRAM.yml'), undefined);
    assert.equal(detectYamlFormat(''), undefined);
    assert.equal(detectYamlFormat('name: CI\non: [push]\njobs:\n  build: {}\n'), undefined);
    assert.equal(detectYamlFormat('- a\n- b\n'), undefined);
    assert.equal(detectYamlFormat('{{{ not yaml'), undefined);
  });

  it('recognizes every corpus file as its own format (skipped when ../shared/corpus is absent)', function () {
    if (!corpusDir()) this.skip();
    for (const sub of ['accelerate-yaml', 'axolotl-yaml', 'llamafactory-yaml', 'torchtune-yaml', 'hf-yaml']) {
      for (const f of corpusFiles(sub)) assert.equal(detectYamlFormat(f.text, f.name), sub, f.name);
    }
  });
});
