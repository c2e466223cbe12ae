// LLaMA-Factory YAML: the flat schema (finetuning_type, lora_*, quantization_bit, cutoff_len, checkpointing ON by
// default, optimizer replacements, fsdp list) and the v1 schema (model:, micro_batch_size, dist_config, kernel_config).
import * as assert from 'node:assert/strict';
import { analyzeLlamaFactoryYaml } from '../../../src/analyzers/yaml';
import { analyzeAs, detectFormat } from '../../../src/analyzers/detect';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import { component, phase, resolveText, run } from '../helpers';
import { checkFacts, codes, corpusFiles, corpusSuite, factOf, robustnessProperty } from './yaml-common.test';

const LORA = `### model
model_name_or_path: Qwen/Qwen3-4B-Instruct-2507
quantization_bit: 4  # choices: [8, 4]
quantization_method: bnb
double_quantization: false

### method
stage: sft
finetuning_type: lora
lora_rank: 16
lora_alpha: 32
lora_dropout: 0.1
lora_target: q_proj,v_proj
additional_target: embed_tokens,lm_head

### train
per_device_train_batch_size: 2
gradient_accumulation_steps: 8
cutoff_len: 4096
bf16: true
flash_attn: fa2
enable_liger_kernel: true
use_unsloth_gc: true
deepspeed: examples/deepspeed/ds_z3_config.json
`;

const V1 = `model: Qwen/Qwen3-0.6B
model_class: llm
kernel_config:
  name: liger_kernel
quant_config: null
dist_config:
  name: fsdp2
micro_batch_size: 4
cutoff_len: 1024
bf16: true
`;

describe('analyzeLlamaFactoryYaml', () => {
  it('reads examples/deepspeed/ds_z3_offload_config.json as LLaMA-Factory ships it when no checkout is beside the file', () => {
    // hiyouga/LLaMA-Factory examples/deepspeed/ds_z3_offload_config.json: stage 3, optimizer and parameters on the CPU.
    const t =
      'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nfinetuning_type: full\nbf16: true\ndeepspeed: examples/deepspeed/ds_z3_offload_config.json\n';
    const r = resolveText('/w/sft.yaml', t, { gpusPerNode: 8 });
    assert.deepEqual([r.setup?.zero_stage, r.setup?.offload_optimizer, r.setup?.offload_params], [3, 'cpu', 'cpu']);
    assert.equal(r.provenance.offload_params?.kind, 'default');
    assert.ok(!r.problems.some((x) => x.code === 'reference-not-found'));
  });

  it('leaves lora_rank to LoRA: a full run may set it to 0', () => {
    // LLaMA-Factory reads lora_rank only when finetuning_type is lora (its default); a full run that sets 0 trains
    // no adapters, and a LoRA run with 0 is an error at the key (PEFT's LoraConfig needs r > 0).
    const full = 'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nfinetuning_type: full\nlora_rank: 0\n';
    const r = resolveText('/w/full.yaml', full);
    assert.equal(r.setup?.method, 'full');
    assert.ok(!r.problems.some((p) => p.key === 'lora_rank'));
    const lora = resolveText('/w/lora.yaml', 'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nlora_rank: 0\n');
    assert.deepEqual(
      lora.problems.filter((p) => p.key === 'lora_rank').map((p) => [p.code, p.severity]),
      [['invalid-value', 'error']],
    );
  });

  it('reads the JSON arguments `llamafactory-cli train args.json` takes, and writes a fix there as JSON', () => {
    // llamafactory/hparams/parser.py read_args: a .json file is read with json.load, as a .yaml one with yaml.
    const json = JSON.stringify(
      {
        stage: 'sft',
        do_train: true,
        model_name_or_path: 'Qwen/Qwen2.5-0.5B',
        finetuning_type: 'lora',
        per_device_train_batch_size: 8,
        gradient_accumulation_steps: 2,
        cutoff_len: 1024,
      },
      null,
      2,
    );
    assert.equal(detectFormat('train_qwen.json', json), 'llamafactory-yaml');
    const r = resolveText('/w/train_qwen.json', json);
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size, r.setup?.seq_len], ['Qwen/Qwen2.5-0.5B', 8, 1024]);
    const f = {
      file: 'train_qwen.json',
      text: json,
      format: 'llamafactory-yaml' as const,
      facts: analyzeAs('llamafactory-yaml', json),
    };
    const plan = editsForChanges([{ key: 'micro_batch_size', value: 4 }], [f], 'train_qwen.json');
    assert.deepEqual(plan.unsupported, []);
    const after = applyEditData(json, plan.edits);
    assert.equal((JSON.parse(after) as Record<string, unknown>).per_device_train_batch_size, 4);
  });

  it("without finetuning_type a run is LoRA, LLaMA-Factory's default (QLoRA over quantization_bit 4); v1 without peft_config is full", () => {
    // LLaMA-Factory hparams/finetuning_args.py: finetuning_type: Literal["lora", "freeze", "full"] = "lora"
    // (JJH12234/ScaleBench Code/finetune/Qwen2.5-VL.sh: the launch line ends at a comment before --finetuning_type).
    const lora = resolveText('/w/sft.yaml', 'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\n');
    assert.deepEqual([lora.setup?.method, lora.setup?.lora?.r], ['lora', 8]);
    assert.deepEqual(lora.provenance.method, {
      kind: 'default',
      owner: 'llamafactory',
      note: 'LLaMA-Factory finetuning_type defaults to lora (LLaMA-Factory@ff6d4d1 hparams/finetuning_args.py)',
    });
    const qlora = resolveText('/w/q.yaml', 'model_name_or_path: Qwen/Qwen3-4B\nstage: sft\nquantization_bit: 4\n');
    assert.equal(qlora.setup?.method, 'qlora');
    assert.equal(resolveText('/w/v1.yaml', V1).setup?.method, 'full');
  });

  it('use_dora: DoRA adapters', () => {
    const t = `${LORA}use_dora: true\n`;
    checkFacts(analyzeLlamaFactoryYaml(t), t, [['loraDora', true, 'use_dora', 'true']]);
    assert.equal(resolveText('lf.yaml', t).setup?.lora?.use_dora, true);
  });

  it('reads stage: dpo as preference training; pref_loss orpo / simpo need no reference, ref_model names one', () => {
    const dpo = LORA.replace('stage: sft', 'stage: dpo');
    checkFacts(analyzeLlamaFactoryYaml(dpo), dpo, [['preference', 'dpo', 'stage', 'dpo']]);
    const orpo = `${dpo}pref_loss: orpo\n`;
    checkFacts(analyzeLlamaFactoryYaml(orpo), orpo, [['preference', 'reference-free', 'stage', 'dpo']]);
    const ref = `${dpo}ref_model: Qwen/Qwen3-4B-Instruct-2507\n`;
    checkFacts(analyzeLlamaFactoryYaml(ref), ref, [
      ['preference', 'dpo', 'stage', 'dpo'],
      ['referenceModel', 'given', 'ref_model', 'Qwen/Qwen3-4B-Instruct-2507'],
    ]);
    const kto = LORA.replace('stage: sft', 'stage: kto');
    checkFacts(analyzeLlamaFactoryYaml(kto), kto, [['preference', 'kto', 'stage', 'kto']]);
    assert.equal(factOf(analyzeLlamaFactoryYaml(LORA), 'preference'), undefined);
    assert.ok(
      analyzeLlamaFactoryYaml(LORA.replace('stage: sft', 'stage: ppo')).problems.some(
        (p) => p.code === 'not-modeled' && /reward and value/.test(p.message),
      ),
    );
    // LoRA disables its adapters for the reference; LLaMA-Factory takes the log-probs over fp32 logits in one call.
    const r = resolveText('dpo.yaml', dpo.replace(/deepspeed:.*\n/, ''));
    assert.deepEqual(r.setup?.preference, { reference: 'adapters-off', logps: 'whole', paired: true });
  });

  it('reads stage: rm as reward-model training: the pairs through a value head on the causal LM', () => {
    const rm = LORA.replace('stage: sft', 'stage: rm');
    checkFacts(analyzeLlamaFactoryYaml(rm), rm, [['preference', 'reward', 'stage', 'rm']]);
    const r = resolveText('rm.yaml', rm.replace(/deepspeed:.*\n/, ''));
    assert.deepEqual(r.setup?.preference, { reference: 'none', logps: 'whole', paired: true });
    assert.equal(r.setup?.value_head, true);
    // AutoModelForCausalLMWithValueHead computes the logits and their fp32 copy, unused: no gradient of the logits in
    // backward (tools/peak/measure_step.py --lf-rm profiles this pass).
    const e = run(r.setup!);
    assert.ok(!e.perGpu.phases.some((p) => p.components.some((c) => c.id === 'loss-backward' && c.bytes > 0)));
    const T = 2 * r.setup!.micro_batch_size * r.setup!.seq_len;
    const V = 151_936;
    assert.equal(
      e.perGpu.phases
        .find((p) => p.phase === 'forward')
        ?.components.find((c) => c.label.startsWith('LM logits, computed and unused'))?.bytes,
      (2 + 4) * T * V,
    );
  });

  it('a trained vision tower (freeze_vision_tower: false): its gradients and states counted for a full fine-tune', () => {
    const text = `${LORA.replace(/model_name_or_path: .*/, 'model_name_or_path: Qwen/Qwen2.5-VL-7B-Instruct')}freeze_vision_tower: false\n`;
    const facts = analyzeLlamaFactoryYaml(text);
    const f = facts.facts.find((x) => x.key === 'visionTowerTrained');
    assert.equal(f?.value, true);
    assert.equal(text.slice(f!.valueSpan.start, f!.valueSpan.end), 'false');
    assert.equal(
      analyzeLlamaFactoryYaml(`${LORA}freeze_vision_tower: true\n`).facts.find((x) => x.key === 'visionTowerTrained')
        ?.value,
      false,
    );
    // Under LoRA the vision tower (676,550,144 parameters) is loaded beside the language model and kept frozen, said.
    const r = resolveText('vl.yaml', text);
    assert.ok(r.setup);
    const e = run(r.setup);
    assert.equal(e.parameters.total, 8_292_166_656);
    assert.ok(e.warnings.some((w) => w.key === 'vision_tower_trained' && /not modeled for a lora run/.test(w.message)));
    // A full fine-tune trains it: every one of the 8,292,166,656 parameters has a gradient and AdamW's two states (pure
    // bf16: 2 B each), 676,550,144 more than with the tower frozen.
    const full = text
      .replace('finetuning_type: lora', 'finetuning_type: full')
      .replace('quantization_bit: 4  # choices: [8, 4]\n', '');
    const s = resolveText('vl.yaml', full).setup!;
    const states = (setup: typeof s): number =>
      component(phase(run({ ...setup, zero_stage: 0, gpus_per_node: 1 }), 'optimizer'), 'optimizer-states');
    const sb = s.master_weights || s.weights_dtype === 'fp32' ? 4 : 2;
    assert.equal(states(s) - states({ ...s, vision_tower_trained: false }), 2 * sb * 676_550_144);
    assert.equal(run(s).parameters.trainable, 8_292_166_656);
  });

  it('reads upcast_layernorm as the fp32 upcast of the norms (model_utils/checkpointing.py prepare_model_for_training)', () => {
    const text = `${LORA}upcast_layernorm: true\n`;
    checkFacts(analyzeLlamaFactoryYaml(text), text, [['kbitUpcast', 'norms', 'upcast_layernorm']]);
  });

  it('additional_target copies are fp32 as cast_trainable_params_to_fp32 makes them, and keep the model dtype under pure_bf16', () => {
    // LLaMA-Factory model/adapter.py init_adapter: every trainable parameter to fp32 unless pure_bf16 (or BAdam).
    const text = LORA.replace('quantization_bit: 4  # choices: [8, 4]\n', '').replace(/deepspeed:.*\n/, '');
    const upcast = resolveText('lf.yaml', text).setup?.lora;
    assert.deepEqual(upcast?.modules_to_save, ['embed_tokens', 'lm_head']);
    assert.equal(upcast?.saved_dtype, 'fp32');
    const pure = resolveText('lf.yaml', text.replace('bf16: true', 'pure_bf16: true')).setup?.lora;
    assert.equal(pure?.saved_dtype, undefined);
  });

  it('a full fine-tune under bf16 autocast trains fp32 weights; not under pure_bf16, BAdam, DeepSpeed or FSDP', () => {
    // LLaMA-Factory@01d87b8 model/adapter.py init_adapter: "Upcasting trainable params to float32" unless pure_bf16 or
    // use_badam, or ZeRO-3 / FSDP; a DeepSpeed bf16 block casts the model back to bf16 with an fp32 master copy.
    // GAIR-NLP/cs2916 2024/hw2/finetune/run.sh trains Qwen1.5-0.5B so, with bf16 and no DeepSpeed.
    const full = 'model_name_or_path: Qwen/Qwen2.5-0.5B\nstage: sft\nfinetuning_type: full\nbf16: true\n';
    const r = resolveText('lf.yaml', full);
    assert.deepEqual([r.setup?.weights_dtype, r.setup?.mixed_precision], ['fp32', 'bf16']);
    const p = r.provenance.weights_dtype;
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /casts the trainable parameters of a full fine-tune to float32/,
    );
    assert.equal(resolveText('lf.yaml', full.replace('bf16: true', 'pure_bf16: true')).setup?.weights_dtype, 'bf16');
    assert.equal(resolveText('lf.yaml', `${full}use_badam: true\n`).setup?.weights_dtype, 'bf16');
    const ds = resolveText('lf.yaml', `${full}deepspeed: examples/deepspeed/ds_z2_config.json\n`).setup;
    assert.deepEqual([ds?.weights_dtype, ds?.master_weights], ['bf16', true]);
    // LoRA keeps its 16-bit base (only the adapters are cast).
    const lora = resolveText('lf.yaml', full.replace('finetuning_type: full', 'finetuning_type: lora')).setup;
    assert.equal(lora?.weights_dtype, 'bf16');
  });

  it('bf16: false and no fp16: the model still loads in 16 bits (infer_optim_dtype), trained without autocast', () => {
    // LLaMA-Factory@01a6700 model/patcher.py patch_config: compute_dtype None becomes infer_optim_dtype(config
    // .torch_dtype), passed as torch_dtype; BruceRichard/lora_demo's train_config.yaml runs so on an 8 GB card.
    const text = LORA.replace('bf16: true', 'bf16: false').replace(/deepspeed:.*\n/, '');
    const r = resolveText('lf.yaml', text);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.equal(r.setup?.mixed_precision, 'none');
    const p = r.provenance.weights_dtype;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /infer_optim_dtype\(config\.torch_dtype\)/);
  });

  it('reads packing, and stage pt (packing on by default) as fixed-length batches; sft without packing leaves the default', () => {
    const packed = `${LORA}packing: true\n`;
    checkFacts(analyzeLlamaFactoryYaml(packed), packed, [['batchLengths', 'fixed', 'packing', 'true']]);
    const pt = LORA.replace('stage: sft', 'stage: pt');
    checkFacts(analyzeLlamaFactoryYaml(pt), pt, [['batchLengths', 'fixed', 'stage', 'pt']]);
    assert.equal(factOf(analyzeLlamaFactoryYaml(LORA), 'batchLengths'), undefined);
  });

  it('reads model, method, LoRA, quantization and training keys with exact spans', () => {
    checkFacts(analyzeLlamaFactoryYaml(LORA), LORA, [
      ['model', 'Qwen/Qwen3-4B-Instruct-2507', 'model_name_or_path', 'Qwen/Qwen3-4B-Instruct-2507'],
      ['quantBits', 4, 'quantization_bit', '4'],
      ['doubleQuant', false, 'double_quantization', 'false'],
      ['method', 'lora', 'finetuning_type', 'lora'],
      ['loraR', 16, 'lora_rank', '16'],
      ['loraAlpha', 32],
      ['loraDropout', 0.1],
      ['loraTargets', ['q_proj', 'v_proj'], 'lora_target', 'q_proj,v_proj'],
      ['loraModulesToSave', ['embed_tokens', 'lm_head'], 'additional_target', 'embed_tokens,lm_head'],
      ['microBatchSize', 2, 'per_device_train_batch_size', '2'],
      ['gradientAccumulationSteps', 8],
      ['seqLen', 4096, 'cutoff_len', '4096'],
      ['bf16', true],
      ['attention', 'flash', 'flash_attn', 'fa2'],
      ['loss', 'fused', 'enable_liger_kernel', 'true'],
      ['activationOffloading', true, 'use_unsloth_gc', 'true'],
      ['deepspeedConfig', 'examples/deepspeed/ds_z3_config.json', 'deepspeed', 'examples/deepspeed/ds_z3_config.json'],
    ]);
    assert.deepEqual(
      analyzeLlamaFactoryYaml(LORA).references.map((r) => r.path),
      ['examples/deepspeed/ds_z3_config.json'],
    );
  });

  it('reads lora_target: all as all-linear and leaves lora_alpha absent when unwritten (resolve doubles the rank)', () => {
    const text = 'model_name_or_path: x\nfinetuning_type: lora\nlora_rank: 8\nlora_target: all\n';
    const r = analyzeLlamaFactoryYaml(text);
    checkFacts(r, text, [['loraTargets', 'all-linear', 'lora_target', 'all']]);
    assert.equal(factOf(r, 'loraAlpha'), undefined);
  });

  it('records gradient checkpointing none only through disable_gradient_checkpointing: true', () => {
    const off = 'disable_gradient_checkpointing: true\n';
    checkFacts(analyzeLlamaFactoryYaml(off), off, [
      ['gradientCheckpointing', 'none', 'disable_gradient_checkpointing', 'true'],
    ]);
    assert.equal(factOf(analyzeLlamaFactoryYaml('bf16: true\n'), 'gradientCheckpointing'), undefined);
  });

  it('reads pure_bf16 and flags bf16 with fp16', () => {
    const text = 'pure_bf16: true\n';
    checkFacts(analyzeLlamaFactoryYaml(text), text, [['pureBf16', true, 'pure_bf16', 'true']]);
    assert.ok(codes(analyzeLlamaFactoryYaml('bf16: true\nfp16: true\n')).includes('conflicting-precision'));
  });

  it("reads flash_attn auto as transformers' default, disabled as eager", () => {
    // LLaMA-Factory model/model_utils/attention.py configure_attn_implementation: auto returns before setting anything.
    const a = 'model_name_or_path: Qwen/Qwen2.5-7B\nflash_attn: auto\n';
    const r = analyzeLlamaFactoryYaml(a);
    assert.equal(factOf(r, 'attention'), undefined);
    assert.deepEqual(codes(r), []);
    const d = 'flash_attn: disabled\n';
    checkFacts(analyzeLlamaFactoryYaml(d), d, [['attention', 'eager']]);
  });

  it('says at the key that Gemma 2 under flash_attn auto depends on flash-attn being installed', () => {
    // The same function: Gemma 2 under auto takes FlashAttention-2 where flash-attn is installed, else eager.
    const a = 'model_name_or_path: google/gemma-2-9b\nflash_attn: auto\n';
    const r = analyzeLlamaFactoryYaml(a);
    checkFacts(r, a, [['attention', { unknown: true }, 'flash_attn', 'auto']]);
    assert.deepEqual(codes(r), ['not-static']);
    // Not written: the default auto, said at the model.
    const b = 'model_name_or_path: google/gemma-2-2b-it\n';
    const rb = analyzeLlamaFactoryYaml(b);
    checkFacts(rb, b, [['attention', { unknown: true }, 'model_name_or_path', 'google/gemma-2-2b-it']]);
    assert.deepEqual(codes(rb), ['not-static']);
    // Gemma 3, Gemma 1 2B (gemma-2b) and an explicit choice are not this case.
    for (const t of [
      'model_name_or_path: google/gemma-3-4b-it\n',
      'model_name_or_path: google/gemma-2b\n',
      'model_name_or_path: google/gemma-2-9b\nflash_attn: fa2\n',
    ])
      assert.deepEqual(codes(analyzeLlamaFactoryYaml(t)), []);
  });

  it('derives the quantization type from a GPTQ/AWQ model id (pre-quantized checkpoint)', () => {
    const text = 'model_name_or_path: TechxGenus/Meta-Llama-3-8B-Instruct-GPTQ\nfinetuning_type: lora\n';
    const r = analyzeLlamaFactoryYaml(text);
    checkFacts(r, text, [['quantType', 'gptq', 'model_name_or_path', 'TechxGenus/Meta-Llama-3-8B-Instruct-GPTQ']]);
    assert.equal(factOf(r, 'quantBits'), undefined);
    const awq = 'model_name_or_path: hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4\n';
    checkFacts(analyzeLlamaFactoryYaml(awq), awq, [
      ['quantType', 'awq'],
      ['quantBits', 4],
    ]);
  });

  it('reads quantization_method gptq as the quantization type', () => {
    const text = 'quantization_bit: 8\nquantization_method: gptq\n';
    checkFacts(analyzeLlamaFactoryYaml(text), text, [
      ['quantBits', 8],
      ['quantType', 'gptq', 'quantization_method', 'gptq'],
    ]);
  });

  it('reads freeze tuning', () => {
    const text = 'finetuning_type: freeze\nfreeze_trainable_layers: 8\n';
    checkFacts(analyzeLlamaFactoryYaml(text), text, [
      ['method', 'freeze'],
      ['freezeTrainableLayers', 8, 'freeze_trainable_layers', '8'],
    ]);
  });

  it('reads GaLore and BAdam over the optim optimizer, records other replacements by name (Adam-mini) and normalizes optim', () => {
    const g =
      'use_galore: true\ngalore_layerwise: true\ngalore_rank: 64\ngalore_target: q_proj,v_proj\noptim: adamw_torch\n';
    checkFacts(analyzeLlamaFactoryYaml(g), g, [
      ['galore', 'galore', 'use_galore', 'true'],
      ['galoreLayerwise', true, 'galore_layerwise', 'true'],
      ['galoreRank', 64, 'galore_rank', '64'],
      ['galoreTargets', ['q_proj', 'v_proj'], 'galore_target', 'q_proj,v_proj'],
      ['optimizer', 'adamw', 'optim', 'adamw_torch'],
    ]);
    const r = resolveText(
      'lf.yaml',
      `model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: full\n${g}`,
    );
    assert.deepEqual(r.setup?.galore, {
      kind: 'galore',
      rank: 64,
      target_modules: ['q_proj', 'v_proj'],
      layerwise: true,
    });
    // galore_rank's default (16) is an assumption.
    const d = resolveText(
      'lf.yaml',
      'model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: full\nuse_galore: true\n',
    );
    assert.deepEqual(d.setup?.galore, { kind: 'galore', rank: 16, target_modules: 'all-linear', layerwise: false });
    // APOLLO: the same projected states, its random projection regenerated from a seed.
    const ap = resolveText(
      'lf.yaml',
      'model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: full\nuse_apollo: true\napollo_rank: 256\n',
    );
    assert.deepEqual(ap.setup?.galore, { kind: 'apollo', rank: 256, target_modules: 'all-linear', layerwise: false });
    // BAdam trains one layer at a time over the optim optimizer (layer mode by default).
    const b = 'use_badam: true\n';
    checkFacts(analyzeLlamaFactoryYaml(b), b, [['badam', 'layer', 'use_badam', 'true']]);
    const ratio = 'use_badam: true\nbadam_mode: ratio\nbadam_update_ratio: 0.1\n';
    checkFacts(analyzeLlamaFactoryYaml(ratio), ratio, [
      ['badam', 'ratio', 'badam_mode', 'ratio'],
      ['badamUpdateRatio', 0.1, 'badam_update_ratio', '0.1'],
    ]);
    const rr = resolveText(
      'lf.yaml',
      `model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: full\npure_bf16: true\n${ratio}`,
    );
    assert.deepEqual(rr.setup?.badam, { mode: 'ratio', update_ratio: 0.1 });
    assert.ok(!rr.problems.some((p) => p.key === 'badam_mode'));
    const a = 'use_adam_mini: true\n';
    checkFacts(analyzeLlamaFactoryYaml(a), a, [['optimizer', 'adam_mini']]);
    const o = 'optim: paged_adamw_8bit\n';
    checkFacts(analyzeLlamaFactoryYaml(o), o, [['optimizer', 'paged_adamw_8bit', 'optim', 'paged_adamw_8bit']]);
  });

  it('reads fsdp as a YAML list or a string, with offload, and flags the v4 key', () => {
    const list = 'fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer\n';
    const r = analyzeLlamaFactoryYaml(list);
    checkFacts(r, list, [['fsdp', 'full_shard', 'fsdp', '- full_shard\n  - auto_wrap']]);
    assert.ok(codes(r).includes('deprecated-key'));
    const str = 'fsdp: "shard_grad_op offload auto_wrap"\n';
    checkFacts(analyzeLlamaFactoryYaml(str), str, [
      ['fsdp', 'shard_grad_op', 'fsdp', '"shard_grad_op offload auto_wrap"'],
      ['fsdpOffload', true],
    ]);
  });

  it("reads fsdp_config's use_orig_params as TrainingArguments does: the fsdp_ prefix stripped, FSDP1 only", () => {
    const text = 'fsdp: full_shard offload\nfsdp_config:\n  fsdp_use_orig_params: false\n';
    checkFacts(analyzeLlamaFactoryYaml(text), text, [['fsdpUseOrigParams', false, 'fsdp_use_orig_params', 'false']]);
    const fsdp2 = 'fsdp: full_shard\nfsdp_config:\n  version: 2\n  use_orig_params: false\n';
    assert.equal(factOf(analyzeLlamaFactoryYaml(fsdp2), 'fsdpUseOrigParams'), undefined);
  });

  it('reads the v1 schema', () => {
    checkFacts(analyzeLlamaFactoryYaml(V1), V1, [
      ['model', 'Qwen/Qwen3-0.6B', 'model', 'Qwen/Qwen3-0.6B'],
      ['microBatchSize', 4, 'micro_batch_size', '4'],
      ['seqLen', 1024],
      ['loss', 'fused', 'name', 'liger_kernel'],
      ['fsdp', 'full_shard', 'name', 'fsdp2'],
      ['bf16', true],
    ]);
    assert.equal(factOf(analyzeLlamaFactoryYaml(V1), 'quantBits'), undefined);
    // Tuned in full (no peft_config), the v1 model engine casts the model to fp32 (v1/core/model_engine.py); with
    // LoRA it keeps the checkpoint's dtype.
    assert.equal(factOf(analyzeLlamaFactoryYaml(V1), 'weightsDtype')?.value, 'fp32');
    const lora = `${V1}peft_config:\n  name: lora\n  r: 16\n`;
    assert.equal(factOf(analyzeLlamaFactoryYaml(lora), 'weightsDtype'), undefined);
  });

  it('resolves OmegaConf interpolation for memory keys', () => {
    const text = 'bs: 4\nper_device_train_batch_size: ${bs}\n';
    checkFacts(analyzeLlamaFactoryYaml(text), text, [['microBatchSize', 4, 'per_device_train_batch_size', '${bs}']]);
  });

  it('flags invalid values', () => {
    const text = 'per_device_train_batch_size: 0\nquantization_bit: 5\nfinetuning_type: adapter\n';
    assert.equal(codes(analyzeLlamaFactoryYaml(text)).filter((c) => c === 'invalid-value').length, 3);
  });

  it('never throws and keeps spans inside mutated texts (property, 2000 runs)', function () {
    this.timeout(20000);
    robustnessProperty(analyzeLlamaFactoryYaml, [LORA, V1, ...corpusFiles('llamafactory-yaml').map((f) => f.text)]);
  });
});

corpusSuite('llamafactory-yaml', analyzeLlamaFactoryYaml);
