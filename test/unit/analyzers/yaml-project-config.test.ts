// A project's own training config read by the names of its keys (src/analyzers/yaml/project-config.ts). The files are
// shaped as the project configs of the fresh real-file samples that no format took (a `model:` / `lora:` /
// `quantization:` / `training:` layout, names of their own such as `lora.r`, `training.batch_size`, `grad_accum`,
// `max_seq_len`, `precision: bf16`, two stage sections `sft:` and `dpo:`); the values asserted are the files' own.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { detectFormat } from '../../../src/analyzers/detect';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { catalogResolver } from '../../../src/analyzers/resolve';
import { analyzeProjectConfig } from '../../../src/analyzers/yaml/project-config';
import { estimate } from '../../../src/core/estimate';
import { analyzeDocument } from '../../../src/features/analysis';
import { applyEditData } from '../../../src/features/fixes';
import { quickFixes } from '../../../src/features/quick-fixes';

const reader = { read: () => undefined, join: (_f: string, r: string) => r };
const run = (file: string, text: string) => runPipeline([{ file, text }], reader, {});

const NESTED = [
  'model:',
  '  model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct',
  '  torch_dtype: bfloat16',
  'data:',
  '  max_seq_length: 1024',
  'quantization:',
  '  load_in_4bit: true',
  '  bnb_4bit_quant_type: nf4',
  '  bnb_4bit_use_double_quant: true',
  'lora:',
  '  r: 16',
  '  alpha: 32',
  '  dropout: 0.05',
  '  target_modules: [q_proj, k_proj, v_proj, o_proj]',
  'training:',
  '  per_device_train_batch_size: 1',
  '  gradient_accumulation_steps: 8',
  '  optim: paged_adamw_32bit',
  '  gradient_checkpointing: true',
  '  bf16: true',
  'eval:',
  '  per_device_eval_batch_size: 64',
  '',
].join('\n');

describe("analyzers: a project's own config read by the names of its keys", () => {
  it("Anyscale LLMForge's names: train_batch_size_per_device, context_length, flash_attention_2, deepspeed.config_path", () => {
    // anyscale/templates e2e-llm-workflows configs/training/lora/llama-3-70b.yaml (abridged): read as HF YAML by its
    // learning_rate and output_dir, it named no model; by its names it is the run.
    const text = [
      'model_id: meta-llama/Llama-2-70b-chat-hf',
      'context_length: 4096',
      'num_devices: 32',
      'train_batch_size_per_device: 8',
      'eval_batch_size_per_device: 8',
      'learning_rate: 1e-4',
      'output_dir: /mnt/local_storage',
      'deepspeed:',
      '  config_path: configs/deepspeed/zero_3.json',
      'flash_attention_2: true',
      'lora_config:',
      '  r: 8',
      '  lora_alpha: 16',
      '  target_modules: [q_proj, v_proj]',
      '',
    ].join('\n');
    assert.equal(detectFormat('llama-3-70b.yaml', text), 'project-yaml');
    const facts = analyzeProjectConfig(text).facts;
    const value = (key: string) => facts.find((f) => f.key === key)?.value;
    assert.deepEqual(
      [value('model'), value('microBatchSize'), value('evalBatchSize'), value('seqLen'), value('loraR')],
      ['meta-llama/Llama-2-70b-chat-hf', 8, 8, 4096, 8],
    );
    assert.equal(value('attention'), 'flash');
    // The DeepSpeed config is a reference by its path, not an inline config.
    const refs = analyzeProjectConfig(text).references;
    assert.ok(refs.some((r) => r.path === 'configs/deepspeed/zero_3.json'));
  });

  it('a model:/lora:/quantization:/training: layout is read at its nested keys', () => {
    assert.equal(detectFormat('configs/sft.yaml', NESTED), 'project-yaml');
    const r = run('configs/sft.yaml', NESTED);
    const s = r.setup;
    assert.equal(s?.model, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.equal(s?.method, 'lora');
    assert.deepEqual([s?.lora?.r, s?.lora?.alpha], [16, 32]);
    assert.deepEqual(s?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
    assert.deepEqual([s?.quantization?.bits, s?.quantization?.type, s?.quantization?.double_quant], [4, 'nf4', true]);
    assert.deepEqual([s?.micro_batch_size, s?.gradient_accumulation_steps, s?.seq_len], [1, 8, 1024]);
    assert.equal(s?.gradient_checkpointing, 'full');
    assert.equal(s?.mixed_precision, 'bf16');
    // The eval section is not the training run: its batch is not the training batch.
    assert.deepEqual(r.provenance.micro_batch_size, {
      kind: 'file',
      file: 'configs/sft.yaml',
      line: 16,
      key: 'training.per_device_train_batch_size',
    });
    const note = r.problems.find((p) => p.code === 'read-by-name');
    assert.equal(note?.line, 2);
    assert.match(
      note?.message ?? '',
      /data\.max_seq_length as max_length, .*lora\.r as lora_r, lora\.alpha as lora_alpha/,
    );
    assert.doesNotMatch(note?.message ?? '', /as use_peft/);
  });

  it('the same settings written flat as a TRL YAML give the same estimate', () => {
    const flat = [
      'model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct',
      'torch_dtype: bfloat16',
      'max_length: 1024',
      'load_in_4bit: true',
      'bnb_4bit_quant_type: nf4',
      'use_bnb_nested_quant: true',
      'use_peft: true',
      'lora_r: 16',
      'lora_alpha: 32',
      'lora_dropout: 0.05',
      'lora_target_modules: [q_proj, k_proj, v_proj, o_proj]',
      'per_device_train_batch_size: 1',
      'gradient_accumulation_steps: 8',
      'optim: paged_adamw_32bit',
      'gradient_checkpointing: true',
      'bf16: true',
      '',
    ].join('\n');
    assert.equal(detectFormat('sft.yaml', flat), 'hf-yaml');
    const bytes = (text: string) => {
      const r = run('sft.yaml', text);
      const e = r.setup && estimate(r.setup, {});
      return e?.ok ? e.estimate.perGpu.deviceBytes : undefined;
    };
    // The TRL YAML names TRL's keys (use_peft): TRL's defaults; the project's file names none of them, so the
    // Trainer's apply, which differ on nothing this file leaves out but the loss.
    assert.ok(bytes(NESTED) !== undefined);
    assert.equal(
      bytes(NESTED.replace('training:\n', 'training:\n  packing: false\n')),
      bytes(flat.concat('packing: false\n')),
    );
  });

  it("names of the project's own: batch_size, grad_accum, max_seq_len, precision, lora.rank; the Trainer's defaults", () => {
    const text = [
      'model:',
      '  name: mistralai/Mistral-7B-v0.1',
      'lora:',
      '  rank: 64',
      '  alpha: 128',
      'training:',
      '  batch_size: 4',
      '  grad_accum: 4',
      '  max_seq_len: 2048',
      '  precision: bf16',
      '',
    ].join('\n');
    const r = run('config.yaml', text);
    const s = r.setup;
    assert.equal(s?.model, 'mistralai/Mistral-7B-v0.1');
    assert.deepEqual([s?.method, s?.lora?.r, s?.lora?.alpha], ['lora', 64, 128]);
    assert.deepEqual([s?.micro_batch_size, s?.gradient_accumulation_steps, s?.seq_len], [4, 4, 2048]);
    assert.equal(s?.mixed_precision, 'bf16');
    // No TRL-only name: the HF Trainer's gradient_checkpointing=False.
    assert.equal(s?.gradient_checkpointing, 'none');
    assert.match(
      r.problems.find((p) => p.code === 'read-by-name')?.message ?? '',
      /training\.batch_size as per_device/,
    );
  });

  it("a batch section's size is the micro-batch; a benchmark's batch is not the run's (farhan-syah/unsloth-finetuning)", () => {
    // The notebook's colab_config.yaml: the script reads config.training.batch.size; benchmark.batch_size is its
    // inference benchmark's, which was taken for the training batch (8 instead of 2).
    const text = [
      'model:',
      '  base_model: Qwen/Qwen2.5-1.5B-Instruct',
      'training:',
      '  batch:',
      '    size: 2',
      '    gradient_accumulation_steps: 4',
      '  lora:',
      '    rank: 16',
      'benchmark:',
      '  batch_size: 8',
      '',
    ].join('\n');
    const s = run('colab_config.yaml', text).setup;
    assert.deepEqual([s?.micro_batch_size, s?.gradient_accumulation_steps], [2, 4]);
  });

  it("georgian-io's LLM-Finetuning-Toolkit: model.hf_model_ckpt, training.training_args and sft_args", () => {
    // georgian-io/LLM-Finetuning-Toolkit examples/mistral_config.yml, cut to the keys that decide the run.
    const text = [
      'model:',
      '  hf_model_ckpt: "mistralai/Mistral-7B-v0.1"',
      '  quantize: true',
      '  bitsandbytes:',
      '    load_in_4bit: true',
      'lora:',
      '  r: 32',
      'training:',
      '  training_args:',
      '    per_device_train_batch_size: 4',
      '    gradient_accumulation_steps: 4',
      '    bf16: true',
      '  sft_args:',
      '    max_seq_length: 5000',
      '',
    ].join('\n');
    const s = run('mistral_config.yml', text).setup;
    assert.equal(s?.model, 'mistralai/Mistral-7B-v0.1');
    assert.deepEqual([s?.method, s?.lora?.r, s?.quantization?.bits], ['lora', 32, 4]);
    assert.deepEqual([s?.micro_batch_size, s?.gradient_accumulation_steps, s?.seq_len], [4, 4, 5000]);
  });

  it('sections switched off are not read: lora.enabled false is a full fine-tune, quantization.enabled false no 4-bit', () => {
    const text = [
      'model:',
      '  base_model: meta-llama/Llama-3.1-8B',
      'lora:',
      '  enabled: false',
      '  r: 16',
      'quantization:',
      '  enabled: false',
      '  load_in_4bit: true',
      'training:',
      '  per_device_train_batch_size: 2',
      '  gradient_accumulation_steps: 16',
      '',
    ].join('\n');
    const s = run('finetune.yaml', text).setup;
    assert.equal(s?.method, 'full');
    assert.equal(s?.quantization, undefined);
    assert.deepEqual([s?.micro_batch_size, s?.gradient_accumulation_steps], [2, 16]);
  });

  it('a switch beside a section that names it turns the section off (DimensionSTP/llm-fine-tune-hf configs/sft.yaml)', () => {
    // `is_quantized: false` next to `quantization_config:` and `is_peft: false` next to `peft_config:`: the blocks
    // are the settings the project's script applies only when its switch is on, so the run is a 16-bit full fine-tune.
    const text = [
      'pretrained_model_name: Qwen/Qwen2.5-7B',
      'batch_size: 16',
      'max_length: 4096',
      'precision: bf16',
      'is_quantized: false',
      'quantization_config:',
      '  load_in_4bit: true',
      '  bnb_4bit_quant_type: nf4',
      'is_peft: false',
      'peft_config:',
      '  r: 128',
      '  lora_alpha: 512',
      'gradient_checkpointing: true',
      '',
    ].join('\n');
    const r = run('sft.yaml', text);
    assert.deepEqual([r.setup?.method, r.setup?.quantization, r.setup?.micro_batch_size], ['full', undefined, 16]);
    assert.deepEqual(r.provenance.method, { kind: 'file', file: 'sft.yaml', line: 9, key: 'is_peft' });
    // Switched on, the same blocks are read: LoRA of rank 128 over a 4-bit model.
    const on = run(
      'sft.yaml',
      text.replace('is_quantized: false', 'is_quantized: true').replace('is_peft: false', 'is_peft: true'),
    );
    assert.deepEqual([on.setup?.method, on.setup?.lora?.r, on.setup?.quantization?.bits], ['lora', 128, 4]);
  });

  it('of two stage sections the first is read; the other is said at its key', () => {
    const text = [
      'policy_name: meta-llama/Meta-Llama-3-8B',
      'sft_training:',
      '  batch_size: 8',
      '  gradient_accumulation: 4',
      '  max_length: 512',
      'dpo_training:',
      '  batch_size: 16',
      '  gradient_accumulation: 2',
      '',
    ].join('\n');
    const r = run('config.yaml', text);
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.gradient_accumulation_steps], [8, 4]);
    const left = r.problems.find((p) => p.code === 'read-by-name' && p.line === 6);
    assert.match(
      left?.message ?? '',
      /`dpo_training` is another training stage, not read: the file is read as its `sft_training` section/,
    );
  });

  it("a stage section's name gives the objective: `orpo:` under `training:` keeps no reference model", () => {
    // The shape of gustavecortal/eliciting_emotional_reasoning configs/config_8b.yaml, whose train_orpo.py hands
    // training.orpo to TRL's ORPOConfig and ORPOTrainer: beta and max_prompt_length alone would assume DPO.
    const text = [
      'model:',
      '  base_path: Qwen/Qwen3-8B',
      'training:',
      '  lora:',
      '    r: 4',
      '    target_modules: [q_proj, v_proj]',
      '  orpo:',
      '    per_device_train_batch_size: 1',
      '    gradient_accumulation_steps: 8',
      '    max_length: 1024',
      '    max_prompt_length: 128',
      '    beta: 0.1',
      '    bf16: true',
      '',
    ].join('\n');
    const r = run('config_8b.yaml', text);
    // preferenceOf: reference-free is reference none, with ORPO's chosen-half NLL (cpo_alpha unset).
    assert.deepEqual(r.setup?.preference, { reference: 'none', logps: 'rows', paired: true, chosen_nll: true });
    assert.deepEqual(r.provenance.preference, { kind: 'file', file: 'config_8b.yaml', line: 7, key: 'training.orpo' });
    // A `dpo:` section keeps the DPO reading, with its reference (the model with its adapters off under LoRA).
    const dpo = run('config_8b.yaml', text.replace('  orpo:', '  dpo:'));
    assert.equal(dpo.setup?.preference?.reference, 'adapters-off');
    const kto = run('config_8b.yaml', text.replace('  orpo:', '  kto_config:'));
    assert.equal(kto.setup?.preference?.paired, false);
  });

  it("universal-llm-trainer's names: bit, a gradient_checkpointing section's switch, an adapter config's path", () => {
    // ljm565/universal-llm-trainer config/llm_llama3.1_lora.yaml (abridged): it carries LLaMA-Factory v1's
    // quant_config, and was read as a v1 config before (fp32 full fine-tune, batch 8 x 2,048: 126 GiB allocated
    // against the 36 G its docs/gpu_test.md reports).
    const text = [
      'model: meta-llama/Llama-3.1-8B-Instruct',
      'bit: bfloat16',
      'quant_config: False',
      'max_length: 8192',
      'batch_size: 2',
      'gradient_checkpointing:',
      '  activate: True',
      "  checkpoint_type: 'hf_checkpoint'",
      'peft_config_path: config_lora/llm_lora_config.yaml',
      '',
    ].join('\n');
    assert.equal(detectFormat('/p/config/llm.yaml', text), 'project-yaml');
    const r = run('/p/config/llm.yaml', text);
    assert.deepEqual(
      [
        r.setup?.weights_dtype,
        r.setup?.method,
        r.setup?.gradient_checkpointing,
        r.setup?.micro_batch_size,
        r.setup?.seq_len,
      ],
      ['bf16', 'lora', 'full', 2, 8192],
    );
    const full = run(
      '/p/config/llm.yaml',
      text.replace(/peft_config_path: .*\n/, '').replace('bit: bfloat16', 'bit: 4'),
    );
    assert.deepEqual([full.setup?.method, full.setup?.quantization?.bits], ['qlora', 4]);
  });

  it('files that name a model but are not training configs are not read this way', () => {
    // A tokenizer's config, a PEFT adapter's, a model's config: no batch or accumulation.
    const tokenizer = '{"name_or_path": "Qwen/Qwen2.5-7B", "model_max_length": 32768, "padding_side": "right"}';
    const adapter =
      '{"base_model_name_or_path": "meta-llama/Llama-2-7b-hf", "r": 8, "lora_alpha": 16, "target_modules": ["q_proj"]}';
    const inference = 'model:\n  name: Qwen/Qwen2.5-7B\ngeneration:\n  batch_size: 8\n  max_new_tokens: 256\n';
    assert.equal(detectFormat('tokenizer_config.json', tokenizer), undefined);
    assert.equal(detectFormat('adapter_config.json', adapter), undefined);
    assert.equal(detectFormat('infer.yaml', inference), undefined);
    // Larger than any project's config (32 KiB): a data file, not parsed on every keystroke to find out.
    const big = NESTED + 'rows:\n' + '  - {text: "a sample row of a data file"}\n'.repeat(1000);
    assert.ok(big.length > 32 * 1024);
    assert.equal(detectFormat('data.yaml', big), undefined);
    // A model named by a word under a section key is not enough: a Hub id, or a model key of its own.
    assert.equal(
      detectFormat('c.yaml', 'model:\n  name: gpt\ntraining:\n  batch_size: 8\n  grad_accum: 2\n'),
      undefined,
    );
    // ... but a name that carries the model's size is one: a local clone named as the Hub's checkpoint.
    const sized =
      'model:\n  pretrained_model_path: "Qwen2.5-3B-Instruct"\ntraining:\n  batch_size: 8\n  grad_accum: 2\n';
    assert.equal(detectFormat('c.yaml', sized), 'project-yaml');
    assert.equal(run('c.yaml', sized).setup?.model, 'Qwen2.5-3B-Instruct');
  });

  it('facts rank below a script of the run, and are located at the keys the file writes', () => {
    const facts = analyzeProjectConfig(NESTED).facts;
    const micro = facts.find((f) => f.key === 'microBatchSize');
    assert.equal(micro?.byNameOnly, true);
    assert.deepEqual(micro?.fromData?.keys, ['training', 'per_device_train_batch_size']);
    // PEFT switched on by the rank written is not a value the file writes: no key to rewrite for it.
    assert.equal(facts.find((f) => f.key === 'method')?.fromData, undefined);
  });

  it('a quick fix rewrites the nested key the file holds', () => {
    const text = NESTED.replace('per_device_train_batch_size: 1', 'per_device_train_batch_size: 64').replace(
      'gradient_checkpointing: true',
      'gradient_checkpointing: false',
    );
    const doc = analyzeDocument(
      { file: '/p/configs/sft.yaml', text },
      { gpu: 'RTX-4090', headroomPercent: 5 },
      {
        reader: { read: () => undefined, join: (from, rel) => path.posix.join(path.posix.dirname(from), rel) },
        resolver: catalogResolver,
        related: [],
      },
    );
    assert.equal(doc.estimate?.fits, false);
    const micro = quickFixes(doc).find((q) => /Micro-batch \d+, accumulation \d+/.test(q.title));
    assert.ok(
      micro,
      quickFixes(doc)
        .map((q) => q.title)
        .join('\n'),
    );
    const after = applyEditData(text, micro.edits);
    const m = /training:\n {2}per_device_train_batch_size: (\d+)\n {2}gradient_accumulation_steps: (\d+)/.exec(after);
    assert.ok(m, after);
    // The global batch stays 64 x 8 = 512.
    assert.equal(Number(m[1]) * Number(m[2]), 512);
  });
  it("a config a launch line hands its script, which no format takes, is read by its names below the script's facts", () => {
    // bill-lee-mk/qwen32b-sft scripts/train_sft.sh: `deepspeed --num_gpus=8 --module training.full_finetune --config
    // configs/training_config.yaml`, whose module loads the file into dataclasses of its own (not followed).
    const files: Record<string, string> = {
      '/w/run.sh': 'deepspeed --num_gpus=8 train.py --config config.yaml\n',
      '/w/train.py': 'import yaml\nfrom mypipeline import run\nrun(yaml.safe_load(open(parse()["config"])))\n',
      '/w/config.yaml': NESTED,
    };
    const inMemory = {
      read: (p: string) => files[p],
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    const r = runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory, {}, catalogResolver);
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual(
      [
        r.setup.model,
        r.setup.quantization?.bits,
        r.setup.micro_batch_size,
        r.setup.gradient_accumulation_steps,
        r.setup.gpus_per_node,
      ],
      ['Qwen/Qwen2.5-1.5B-Instruct', 4, 1, 8, 8],
    );
    assert.ok(r.problems.some((p) => p.code === 'read-by-name'));
  });

  it('`quant: 4bit` is a 4-bit load; "auto" in an inline DeepSpeed block is no value (the Trainer fills it)', () => {
    // AcidicSoil/llm-finetuned-supportbot configs/sft.yaml (abridged): `quant: 4bit  # one of: 4bit, 8bit, none`, read
    // as an unquantized bf16 model before. OpenEuroLLM/post-training configs/trl/sft.yaml: a `deepspeed:` block with
    // `gradient_accumulation_steps: "auto"` was an invalid-value error at that line.
    const quant = [
      'model: mistralai/Mistral-7B-Instruct-v0.3',
      'quant: 4bit',
      'bnb_quant_type: nf4',
      'bnb_double_quant: true',
      'lora_r: 16',
      'per_device_train_batch_size: 1',
      'gradient_accumulation_steps: 4',
      '',
    ].join('\n');
    const facts = analyzeProjectConfig(quant).facts;
    const value = (key: string) => facts.find((f) => f.key === key)?.value;
    assert.deepEqual([value('quantBits'), value('quantType'), value('doubleQuant')], [4, 'nf4', true]);
    const eight = analyzeProjectConfig(quant.replace('quant: 4bit', 'quant: 8bit')).facts;
    assert.equal(eight.find((f) => f.key === 'quantBits')?.value, 8);
    const none = analyzeProjectConfig(quant.replace('quant: 4bit', 'quant: none')).facts;
    assert.equal(
      none.find((f) => f.key === 'quantBits'),
      undefined,
    );
    const inline = [
      'model:',
      '  name_or_path: Qwen/Qwen2.5-7B',
      'training:',
      '  per_device_train_batch_size: 2',
      '  gradient_accumulation_steps: 8',
      '  bf16: true',
      'deepspeed:',
      '  zero_optimization:',
      '    stage: 2',
      '  train_micro_batch_size_per_gpu: "auto"',
      '  gradient_accumulation_steps: "auto"',
      '',
    ].join('\n');
    const r = run('/w/sft.yaml', inline);
    assert.deepEqual(
      r.problems.filter((p) => p.code === 'invalid-value'),
      [],
    );
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.gradient_accumulation_steps], [2, 8]);
  });

  it('a model at an absolute path is read (its name gives the model); a tags or tracker section names none', () => {
    // TheSleepGod/RL configs/sft_qwen2_7b.yaml: `model: {name: /opt/tiger/model/Qwen2-7B}`, refused as no training
    // config before. Kalyankr/nemotron-sft-finetune configs/sft.yaml: `tags: {model: nemotron-3-nano-30b}` is a tracker's
    // tag, and the file names no model (its script does).
    const text = (model: string) =>
      [
        model,
        'lora:',
        '  r: 16',
        'training:',
        '  per_device_train_batch_size: 2',
        '  gradient_accumulation_steps: 8',
        '',
      ].join('\n');
    const abs = run('/w/configs/sft.yaml', text('model:\n  name: /opt/tiger/model/Qwen2-7B'));
    assert.equal(abs.setup?.model, '/opt/tiger/model/Qwen2-7B');
    assert.equal(abs.setup?.architecture?.hidden_size, 3584);
    assert.equal(detectFormat('sft.yaml', text('tags:\n  model: nemotron-3-nano-30b')), undefined);
  });

  it('a model_name_or_path at the top with the training settings in sections of their own is a project config', () => {
    // nhockid235/xling-grpo-sub3b configs/sft_qwen3b.yaml (abridged), read by src/trainers/sft.py as
    // `SFTConfig(**cfg["sft"])` and `LoraConfig(**cfg["lora"])`; read as a flat HF YAML, its sections were left out
    // without a word: a full fine-tune with the Trainer's batch of 8.
    const text = [
      'extends: base.yaml',
      'model_name_or_path: Qwen/Qwen2.5-3B-Instruct',
      'sft:',
      '  per_device_train_batch_size: 2',
      '  gradient_accumulation_steps: 8',
      '  max_seq_length: 2048',
      '  bf16: true',
      '  gradient_checkpointing: true',
      'lora:',
      '  enabled: true',
      '  r: 16',
      '  target_modules: [q_proj, k_proj, v_proj, o_proj]',
      '',
    ].join('\n');
    assert.equal(detectFormat('sft_qwen3b.yaml', text), 'project-yaml');
    const s = run('/w/configs/sft_qwen3b.yaml', text).setup!;
    assert.deepEqual([s.method, s.lora?.r, s.micro_batch_size, s.gradient_accumulation_steps], ['lora', 16, 2, 8]);
    assert.deepEqual([s.seq_len, s.mixed_precision, s.gradient_checkpointing], [2048, 'bf16', 'full']);
    // A file with TrainingArguments' keys at the top stays an HF YAML.
    assert.equal(
      detectFormat('sft.yaml', 'model_name_or_path: Qwen/Qwen2.5-3B\nper_device_train_batch_size: 2\n'),
      'hf-yaml',
    );
  });
});
