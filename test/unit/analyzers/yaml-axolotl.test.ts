// Axolotl YAML: batch keys, LoRA/QLoRA, bf16 "auto", checkpointing/offload, attention flags, kernels, FSDP forms.
import * as assert from 'node:assert/strict';
import { isUnknown } from '../../../src/analyzers/facts';
import { analyzeAxolotlYaml } from '../../../src/analyzers/yaml';
import { resolveText } from '../helpers';
import { checkFacts, codes, corpusFiles, corpusSuite, factOf, robustnessProperty } from './yaml-common.test';

const QLORA = `base_model: NousResearch/Llama-2-7b-hf
load_in_4bit: true
adapter: qlora
lora_r: 32
lora_alpha: 16
lora_dropout: 0.05
lora_target_modules:
  - q_proj
  - v_proj
sequence_len: 4096
micro_batch_size: 2
gradient_accumulation_steps: 4
optimizer: paged_adamw_8bit
bf16: auto
fp16:
gradient_checkpointing: true
attn_implementation: flash_attention_2
deepspeed: deepspeed_configs/zero2.json
`;

const FSDP2 = `base_model: meta-llama/Llama-3.2-3B
micro_batch_size: 16
gradient_accumulation_steps: 1
plugins:
  - axolotl.integrations.liger.LigerPlugin
liger_fused_linear_cross_entropy: true
torch_compile: true
fp8: true
fsdp_version: 2
fsdp_config:
  offload_params: true
  reshard_after_forward: false
  activation_checkpointing: true
tensor_parallel_size: 2
dp_shard_size: 4
expert_parallel_size: 2
`;

describe('analyzeAxolotlYaml', () => {
  it('reads model, batch, sequence and LoRA keys with exact spans', () => {
    checkFacts(analyzeAxolotlYaml(QLORA), QLORA, [
      ['model', 'NousResearch/Llama-2-7b-hf', 'base_model', 'NousResearch/Llama-2-7b-hf'],
      ['microBatchSize', 2, 'micro_batch_size', '2'],
      ['gradientAccumulationSteps', 4, 'gradient_accumulation_steps', '4'],
      ['seqLen', 4096, 'sequence_len', '4096'],
      ['method', 'qlora', 'adapter', 'qlora'],
      ['loraR', 32, 'lora_r', '32'],
      ['loraAlpha', 16],
      ['loraDropout', 0.05],
      ['loraTargets', ['q_proj', 'v_proj'], 'lora_target_modules', '- q_proj\n  - v_proj'],
      ['quantBits', 4, 'load_in_4bit', 'true'],
      ['optimizer', 'paged_adamw_8bit'],
      ['gradientCheckpointing', 'full'],
      ['attention', 'flash', 'attn_implementation', 'flash_attention_2'],
    ]);
  });

  it('adapter: qlora needs load_in_4bit: true; a value that is no boolean is said at its key, the run read as 4-bit', () => {
    const without = analyzeAxolotlYaml(QLORA.replace('load_in_4bit: true\n', ''));
    assert.deepEqual(
      without.problems.filter((p) => p.code === 'invalid-value').map((p) => p.message),
      ['adapter: qlora requires load_in_4bit: true'],
    );
    // truefoundry/llm-finetune's config-base.yaml: `load_in_4bit: auto`, which the project's own script fills in.
    const text = QLORA.replace('load_in_4bit: true', 'load_in_4bit: auto');
    const auto = analyzeAxolotlYaml(text);
    const p = auto.problems.find((x) => x.code === 'not-static');
    assert.equal(p && text.slice(p.span.start, p.span.end), 'auto');
    assert.ok(!auto.problems.some((x) => x.code === 'invalid-value'));
    assert.equal(factOf(auto, 'quantBits')?.value, 4);
  });

  it('adapter: lora with load_in_4bit: true loads no 4-bit weights: prepare_model_for_kbit_training upcasts them', () => {
    // axolotl-ai-cloud/axolotl@067b021 src/axolotl/loaders/model.py: the 4-bit BitsAndBytesConfig is built for
    // adapter: qlora only, and _prepare_model_for_quantization runs prepare_model_for_kbit_training for lora too
    // (moeru-ai/Moeru-Llama-3-8B lora.yml).
    const text = QLORA.replace('adapter: qlora', 'adapter: lora').replace(
      'deepspeed: deepspeed_configs/zero2.json\n',
      '',
    );
    const r = analyzeAxolotlYaml(text);
    assert.equal(factOf(r, 'quantBits'), undefined);
    assert.equal(factOf(r, 'kbitUpcast')?.value, 'all');
    const p = r.problems.find((x) => x.code === 'no-effect');
    assert.equal(p && text.slice(p.span.start, p.span.end), 'load_in_4bit');
    const s = resolveText('/w/axolotl.yml', text).setup;
    assert.deepEqual([s?.method, s?.quantization, s?.kbit_upcast], ['lora', undefined, 'all']);
  });

  it("fp16: 'auto' is said at its key and read as unset: bf16 decides", () => {
    // truefoundry/llm-finetune's config-base.yaml writes `bf16: auto` and `fp16: auto` for its script to fill in;
    // Axolotl's schema takes 'auto' for bf16 only.
    const text = QLORA.replace(/^fp16:.*$/m, 'fp16: auto');
    const r = analyzeAxolotlYaml(text);
    assert.ok(!r.problems.some((x) => x.code === 'invalid-value'));
    const p = r.problems.find((x) => x.rawKey === 'fp16');
    assert.equal(p?.severity, 'warning');
    assert.equal(p && text.slice(p.span.start, p.span.end), 'auto');
    assert.equal(factOf(r, 'fp16'), undefined);
    const bf16 = factOf(r, 'bf16');
    assert.ok(bf16 && isUnknown(bf16.value), 'bf16: auto stays unknown');
    // Any other value that is no boolean is still Axolotl's error.
    const bad = analyzeAxolotlYaml(QLORA.replace(/^fp16:.*$/m, 'fp16: maybe'));
    assert.deepEqual(
      bad.problems.filter((x) => x.code === 'invalid-value').map((x) => x.message),
      ['fp16: expected true or false, found "maybe"'],
    );
  });

  it('peft_use_dora: DoRA adapters', () => {
    const t = `${QLORA}peft_use_dora: true\n`;
    checkFacts(analyzeAxolotlYaml(t), t, [['loraDora', true, 'peft_use_dora', 'true']]);
  });

  it('reads rl: dpo / ipo as preference training with a reference, orpo / simpo as reference-free', () => {
    for (const [rl, want] of [
      ['dpo', 'dpo'],
      ['ipo', 'dpo'],
      ['orpo', 'reference-free'],
      ['simpo', 'reference-free'],
    ]) {
      const t = `${QLORA}rl: ${rl}\n`;
      checkFacts(analyzeAxolotlYaml(t), t, [['preference', want, 'rl', rl]]);
    }
    const kto = `${QLORA}rl: kto\n`;
    checkFacts(analyzeAxolotlYaml(kto), kto, [['preference', 'kto', 'rl', 'kto']]);
    // GRPO: rollouts, with TRL's generation settings under trl:.
    const grpo = `${QLORA}rl: grpo\ntrl:\n  beta: 0.001\n  max_completion_length: 512\n  use_vllm: true\n`;
    checkFacts(analyzeAxolotlYaml(grpo), grpo, [
      ['rollout', 'grpo', 'rl', 'grpo'],
      ['klBeta', 0.001, 'beta', '0.001'],
      ['completionLen', 512, 'max_completion_length', '512'],
      ['useVllm', true, 'use_vllm', 'true'],
    ]);
    assert.ok(!analyzeAxolotlYaml(grpo).problems.some((p) => p.code === 'not-modeled'));
    // A reward model given by its Hub id (loaded on every GPU) is read; a module.function is not. Resolved from the
    // catalog it is counted; one that cannot be resolved is a warning that names it.
    const rm = `${grpo}  reward_funcs:\n    - rewards.accuracy_reward\n    - meta-llama/Llama-3.2-1B\n`;
    assert.deepEqual(analyzeAxolotlYaml(rm).facts.find((f) => f.key === 'rewardModels')?.value, [
      'meta-llama/Llama-3.2-1B',
    ]);
    assert.deepEqual(
      resolveText('/w/axolotl.yml', rm).setup?.rollout?.reward_models.map((m) => m.model),
      ['meta-llama/Llama-3.2-1B'],
    );
    const unknown = resolveText(
      '/w/axolotl.yml',
      rm.replace('meta-llama/Llama-3.2-1B', 'OpenAssistant/reward-model-deberta-v3-large-v2'),
    );
    const flagged = unknown.problems.filter((p) => p.code === 'not-modeled');
    assert.equal(flagged.length, 1);
    assert.match(flagged[0].message, /OpenAssistant\/reward-model-deberta-v3-large-v2/);
  });

  it('carries the "auto" buckets of a shipped stage-3 file to the estimate, which fills them from the hidden size', () => {
    // deepspeed_configs/zero3_bf16.json: reduce_bucket_size, stage3_prefetch_bucket_size and
    // stage3_param_persistence_threshold "auto", no live-parameter limit (0), sub_group_size 0.
    const r = resolveText('/w/axolotl.yml', `${QLORA}deepspeed: deepspeed_configs/zero3_bf16.json\n`, {
      gpusPerNode: 8,
    });
    assert.ok(r.setup);
    const zb = r.setup.zero_buckets as Record<string, unknown>;
    assert.deepEqual(
      [zb.reduce_bucket_size, zb.stage3_prefetch_bucket_size, zb.stage3_param_persistence_threshold],
      ['auto', 'auto', 'auto'],
    );
    assert.deepEqual([zb.stage3_max_live_parameters, zb.sub_group_size], [0, 0]);
  });

  it('reads a shipped DeepSpeed config that is not beside the file as Axolotl publishes it, as an Axolotl default', () => {
    // deepspeed_configs/zero3_bf16_cpuoffload_all.json (axolotl-ai-cloud/axolotl): stage 3, optimizer and parameters on the CPU.
    const t = `${QLORA}deepspeed: deepspeed_configs/zero3_bf16_cpuoffload_all.json\n`;
    const r = resolveText('/w/axolotl.yml', t, { gpusPerNode: 4 });
    assert.ok(r.setup);
    assert.deepEqual([r.setup.zero_stage, r.setup.offload_optimizer, r.setup.offload_params], [3, 'cpu', 'cpu']);
    const p = r.provenance.zero_stage;
    assert.ok(
      p &&
        p.kind === 'default' &&
        p.owner === 'axolotl' &&
        /zero3_bf16_cpuoffload_all\.json as Axolotl ships it/.test(p.note ?? ''),
      JSON.stringify(p),
    );
    assert.ok(!r.problems.some((x) => x.code === 'reference-not-found'));
    // A bare name is the shipped file of that name (NexusAI-tddi/NexusAI's Qwen2-72B YAML:
    // `deepspeed: zero3_bf16_cpuoffload_params.json`, stage 3 with the parameters on the CPU).
    const bare = resolveText('/w/axolotl.yml', `${QLORA}deepspeed: zero3_bf16_cpuoffload_params.json\n`);
    assert.deepEqual([bare.setup?.zero_stage, bare.setup?.offload_params], [3, 'cpu']);
    assert.ok(!bare.problems.some((x) => x.code === 'reference-not-found'));
    // A path of the user's own is still reported missing, and a file found beside the config is read instead.
    assert.ok(
      resolveText('/w/axolotl.yml', `${QLORA}deepspeed: my/zero3.json\n`).problems.some(
        (x) => x.code === 'reference-not-found',
      ),
    );
    const { runPipeline } =
      require('../../../src/analyzers/pipeline') as typeof import('../../../src/analyzers/pipeline');
    const own = runPipeline(
      [{ file: '/w/axolotl.yml', text: t }],
      {
        read: (f: string) =>
          f.endsWith('zero3_bf16_cpuoffload_all.json') ? '{"zero_optimization": {"stage": 2}}' : undefined,
        join: (_f: string, rel: string) => `/w/${rel}`,
      },
      { gpusPerNode: 4 },
    );
    assert.deepEqual(
      [own.setup?.zero_stage, own.setup?.offload_optimizer, own.provenance.zero_stage?.kind],
      [2, 'none', 'file'],
    );
  });

  it('reads lora_target_parameters into the LoRA block: adapters on fused MoE experts are counted', () => {
    const t = `${QLORA}lora_target_parameters:\n  - mlp.experts.gate_up_proj\n  - mlp.experts.down_proj\n`;
    const r = analyzeAxolotlYaml(t);
    assert.equal(r.problems.filter((x) => x.code === 'not-modeled').length, 0);
    assert.deepEqual(r.facts.find((x) => x.key === 'loraTargetParameters')?.value, [
      'mlp.experts.gate_up_proj',
      'mlp.experts.down_proj',
    ]);
    assert.deepEqual(resolveText('/w/axolotl.yml', t).setup?.lora?.target_parameters, [
      'mlp.experts.gate_up_proj',
      'mlp.experts.down_proj',
    ]);
  });

  it('reads sample_packing / pad_to_sequence_len as fixed-length batches, both off as per-batch padding', () => {
    const packed = `${QLORA}sample_packing: true\n`;
    checkFacts(analyzeAxolotlYaml(packed), packed, [
      ['batchLengths', 'fixed', 'sample_packing', 'true'],
      ['paddedBatches', true, 'sample_packing', 'true'],
    ]);
    const padded = `${QLORA}sample_packing: false\npad_to_sequence_len: true\n`;
    checkFacts(analyzeAxolotlYaml(padded), padded, [
      ['batchLengths', 'fixed', 'pad_to_sequence_len', 'true'],
      ['paddedBatches', true, 'pad_to_sequence_len', 'true'],
    ]);
    const off = `${QLORA}sample_packing: false\n`;
    checkFacts(analyzeAxolotlYaml(off), off, [['batchLengths', 'variable', 'sample_packing', 'false']]);
  });

  it('reads bf16: auto as unknown (bf16 on Ampere+, fp16 otherwise) and an empty fp16: as absent', () => {
    const r = analyzeAxolotlYaml(QLORA);
    checkFacts(r, QLORA, [['bf16', { unknown: true }, 'bf16', 'auto']]);
    assert.equal(factOf(r, 'fp16'), undefined);
    // `fp16: false` beside it (Elijah-Bodden/My-Simulacrum's config.yml) leaves bf16 to Axolotl's auto: still bf16.
    const off = 'base_model: meta-llama/Llama-2-7b-hf\nadapter: lora\nmicro_batch_size: 1\nbf16: auto\nfp16: false\n';
    assert.equal(resolveText('/w/axolotl.yml', off).setup?.mixed_precision, 'bf16');
    const none = off.replace('bf16: auto', 'bf16: false');
    assert.equal(resolveText('/w/axolotl.yml', none).setup?.mixed_precision, 'none');
  });

  it('records the DeepSpeed path as a reference and a fact', () => {
    const r = analyzeAxolotlYaml(QLORA);
    checkFacts(r, QLORA, [
      ['deepspeedConfig', 'deepspeed_configs/zero2.json', 'deepspeed', 'deepspeed_configs/zero2.json'],
    ]);
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['deepspeed_configs/zero2.json'],
    );
  });

  it('reads lora_target_linear: true as all-linear and a single lora_target_modules string as a list', () => {
    const a = 'adapter: lora\nlora_target_linear: true\nlora_target_modules: q_proj\n';
    checkFacts(analyzeAxolotlYaml(a), a, [['loraTargets', 'all-linear', 'lora_target_linear', 'true']]);
    const b = 'adapter: lora\nlora_target_linear:\nlora_target_modules: q_proj\n';
    checkFacts(analyzeAxolotlYaml(b), b, [['loraTargets', ['q_proj'], 'lora_target_modules', 'q_proj']]);
  });

  it('reads load_in_8bit as 8-bit base weights', () => {
    const text = 'load_in_8bit: true\nload_in_4bit: false\nadapter: lora\n';
    checkFacts(analyzeAxolotlYaml(text), text, [['quantBits', 8, 'load_in_8bit', 'true']]);
  });

  it('says why a 4/8-bit adapter run keeps no fp32 upcast: the loader casts norms and embeddings back after prepare_model_for_kbit_training', () => {
    // axolotl src/axolotl/loaders/model.py ModelLoader.load: prepare_model() then convert_embedding_modules_dtype(torch_dtype).
    for (const text of [
      'base_model: NousResearch/Llama-2-7b-hf\n' +
        'adapter: qlora\n' +
        'load_in_4bit: true\n' +
        'bf16: true\n' +
        'sequence_len: 2048\n' +
        'micro_batch_size: 1\n' +
        'gradient_accumulation_steps: 1\n',
      'base_model: NousResearch/Llama-2-7b-hf\n' +
        'adapter: lora\n' +
        'load_in_8bit: true\n' +
        'bf16: true\n' +
        'sequence_len: 2048\n' +
        'micro_batch_size: 1\n' +
        'gradient_accumulation_steps: 1\n',
    ]) {
      const res = resolveText('/w/axolotl.yml', text);
      assert.ok(res.setup, JSON.stringify(res.problems));
      assert.equal(res.setup.kbit_upcast, 'none');
      const p = res.provenance.kbit_upcast;
      assert.ok(
        p?.kind === 'default' &&
          p.owner === 'axolotl' &&
          /prepare_model_for_kbit_training/.test(p.note ?? '') &&
          /loaders\/model\.py/.test(p.note ?? ''),
        JSON.stringify(p),
      );
    }
    const full = resolveText(
      '/w/axolotl.yml',
      'base_model: NousResearch/Llama-2-7b-hf\nbf16: true\nsequence_len: 2048\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\n',
    );
    assert.notEqual(full.provenance.kbit_upcast?.kind === 'default' && full.provenance.kbit_upcast.owner, 'axolotl');
  });

  it('flags adapter: qlora without load_in_4bit', () => {
    const text = 'adapter: qlora\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\n';
    assert.ok(codes(analyzeAxolotlYaml(text)).includes('invalid-value'));
  });

  it('reads batch_size as the total batch and flags batch_size with gradient_accumulation_steps', () => {
    const ok = 'batch_size: 32\nmicro_batch_size: 4\n';
    const r = analyzeAxolotlYaml(ok);
    checkFacts(r, ok, [
      ['trainBatchSize', 32, 'batch_size', '32'],
      ['microBatchSize', 4],
    ]);
    assert.equal(factOf(r, 'gradientAccumulationSteps'), undefined);
    const bad = 'batch_size: 32\nmicro_batch_size: 4\ngradient_accumulation_steps: 2\n';
    assert.ok(codes(analyzeAxolotlYaml(bad)).includes('invalid-value'));
  });

  it('warns when fewer than two of micro_batch_size / gradient_accumulation_steps / batch_size are given', () => {
    const text = 'base_model: x\nmicro_batch_size: 2\n';
    const p = analyzeAxolotlYaml(text).problems.find((x) => x.code === 'invalid-value');
    assert.equal(p?.severity, 'warning');
    assert.equal(p && text.slice(p.span.start, p.span.end), 'micro_batch_size');
  });

  it('a LoRA value the estimator refuses is reported at its own key, as written', () => {
    // 1e999 reads as Infinity: the message quotes the file's text, at lora_dropout, not the model's line.
    const text =
      'base_model: NousResearch/Llama-2-7b-hf\nadapter: lora\nlora_r: 8\nlora_dropout: 1e999\n' +
      'micro_batch_size: 1\ngradient_accumulation_steps: 1\n';
    const p = resolveText('/w/axolotl.yml', text).problems.find((x) => x.code === 'invalid-value');
    assert.equal(p?.message, '`lora_dropout` must be a finite number (found 1e999)');
    assert.deepEqual(p && [p.line, p.key], [4, 'lora_dropout']);
  });

  it('reads an inline DeepSpeed mapping', () => {
    const text = 'deepspeed:\n  zero_optimization:\n    stage: 3\n    offload_param:\n      device: cpu\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [
      ['deepspeedConfig', '{inline json}', 'deepspeed'],
      ['zeroStage', 3, 'stage', '3'],
      ['offloadParams', 'cpu', 'device', 'cpu'],
    ]);
    assert.deepEqual(r.references, []);
  });

  it('flags a negative batch size as invalid', () => {
    const text = 'micro_batch_size: -2\n';
    const r = analyzeAxolotlYaml(text);
    assert.equal(factOf(r, 'microBatchSize'), undefined);
    const p = r.problems.find((x) => x.code === 'invalid-value');
    assert.equal(p && text.slice(p.span.start, p.span.end), '-2');
  });

  it('flags bf16 and fp16 both true as conflicting precision', () => {
    const text = 'bf16: true\nfp16: true\n';
    assert.ok(codes(analyzeAxolotlYaml(text)).includes('conflicting-precision'));
  });

  it('reads gradient_checkpointing: offload as full checkpointing plus activation offloading', () => {
    const text = 'gradient_checkpointing: offload\n';
    checkFacts(analyzeAxolotlYaml(text), text, [
      ['gradientCheckpointing', 'full', 'gradient_checkpointing', 'offload'],
      ['activationOffloading', true, 'gradient_checkpointing', 'offload'],
    ]);
    // "unsloth", the older name, is "offload" (Axolotl's check_offload_grad_checkpointing; e-p-armstrong/augmentoolkit's
    // _model_training_configs/verus-qwen-1_5.yaml writes it).
    const older = 'gradient_checkpointing: unsloth\n';
    checkFacts(analyzeAxolotlYaml(older), older, [
      ['gradientCheckpointing', 'full', 'gradient_checkpointing', 'unsloth'],
      ['activationOffloading', true, 'gradient_checkpointing', 'unsloth'],
    ]);
  });

  it('reads activation_offloading values true / legacy / disk', () => {
    for (const v of ['true', 'legacy', 'disk']) {
      const text = `gradient_checkpointing: true\nactivation_offloading: ${v}\n`;
      checkFacts(analyzeAxolotlYaml(text), text, [['activationOffloading', true, 'activation_offloading', v]]);
    }
  });

  it('reads tiled_mlp (shards from tiled_mlp_num_shards, or from the sequence length) and flags a non-boolean', () => {
    const on = 'tiled_mlp: true\n';
    checkFacts(analyzeAxolotlYaml(on), on, [['tiledMlp', true, 'tiled_mlp', 'true']]);
    const eight = 'tiled_mlp: true\ntiled_mlp_num_shards: 8\n';
    checkFacts(analyzeAxolotlYaml(eight), eight, [['tiledMlp', 8, 'tiled_mlp_num_shards', '8']]);
    assert.equal(factOf(analyzeAxolotlYaml('tiled_mlp: false\ntiled_mlp_num_shards: 8\n'), 'tiledMlp')?.value, false);
    assert.ok(codes(analyzeAxolotlYaml('tiled_mlp: sometimes\n')).includes('invalid-value'));
    // Llama-3.1-8B at 65,536 tokens: ceil(65536 / 4096) = 16 shards, listed as an assumption.
    const r = resolveText(
      'ax.yaml',
      'base_model: meta-llama/Llama-3.1-8B\nsequence_len: 65536\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\ntiled_mlp: true\n',
    );
    assert.equal(r.setup?.tiled_mlp, true);
  });

  it('normalizes optimizer names, torchao 4-bit AdamW included', () => {
    for (const [raw, norm] of [
      ['adamw_torch_fused', 'adamw_fused'],
      ['adamw_bnb_8bit', 'adamw_8bit'],
      ['adamw_torch_4bit', 'adamw_4bit'],
      ['adafactor', 'adafactor'],
      ['lion_8bit', 'lion_8bit'],
    ] as const) {
      const text = `optimizer: ${raw}\n`;
      checkFacts(analyzeAxolotlYaml(text), text, [['optimizer', norm, 'optimizer', raw]]);
    }
  });

  it('maps attention implementations and the deprecated booleans', () => {
    for (const [raw, norm] of [
      ['eager', 'eager'],
      ['sdpa', 'sdpa'],
      ['xformers', 'flash'],
      ['flex_attention', 'flash'],
      ['kernels-community/vllm-flash-attn3', 'flash'],
    ] as const) {
      const text = `attn_implementation: ${raw}\n`;
      checkFacts(analyzeAxolotlYaml(text), text, [['attention', norm, 'attn_implementation', raw]]);
    }
    const text = 'flash_attention: true\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [['attention', 'flash', 'flash_attention', 'true']]);
    const dep = r.problems.find((p) => p.code === 'deprecated-key');
    assert.equal(dep && text.slice(dep.span.start, dep.span.end), 'flash_attention');
    const sdp = 'sdp_attention: true\n';
    checkFacts(analyzeAxolotlYaml(sdp), sdp, [['attention', 'sdpa']]);
  });

  it('reads Liger fused cross-entropy, torch_compile, fp8 and FSDP2 config keys', () => {
    checkFacts(analyzeAxolotlYaml(FSDP2), FSDP2, [
      ['loss', 'fused', 'liger_fused_linear_cross_entropy', 'true'],
      ['compile', true, 'torch_compile', 'true'],
      ['mixedPrecision', 'fp8', 'fp8', 'true'],
      ['fsdp', 'shard_grad_op', 'reshard_after_forward', 'false'],
      ['fsdpOffload', true, 'offload_params', 'true'],
      ['gradientCheckpointing', 'full', 'activation_checkpointing', 'true'],
      ['tensorParallel', 2, 'tensor_parallel_size', '2'],
      ['fsdpShardSize', 4, 'dp_shard_size', '4'],
      ['expertParallel', 2, 'expert_parallel_size', '2'],
    ]);
    // basetenlabs/ml-cookbook's gpt-oss-120b config: `reshard_after_forward: 8`, which Accelerate's FSDP2 plugin refuses
    // (a bool is required there), said as such rather than as a wrong FSDP1 strategy name.
    const int = FSDP2.replace('reshard_after_forward: false', 'reshard_after_forward: 8');
    const bad = analyzeAxolotlYaml(int).problems.find((p) => p.code === 'invalid-value');
    assert.match(bad?.message ?? '', /expected true or false \(Accelerate takes a bool under FSDP2\), found 8/);
  });

  it("fsdp_config's activation_checkpointing checkpoints the layers beside gradient_checkpointing: false", () => {
    // shisa-ai/shisa-v2@ac58903 train/ablations/mi300x-llama3.1-base-70b-fft.fsdp.yaml, shortened: Axolotl sets
    // FSDP_ACTIVATION_CHECKPOINTING from the FSDP key (utils/trainer.py setup_fsdp_envs), whatever
    // gradient_checkpointing says; the older `fsdp_` prefix is the same key.
    for (const key of ['activation_checkpointing', 'fsdp_activation_checkpointing']) {
      const text = `base_model: meta-llama/Llama-3.1-8B\ngradient_checkpointing: false\nfsdp_config:\n  ${key}: true\n`;
      const r = resolveText('fsdp.yaml', text);
      assert.equal(r.setup?.gradient_checkpointing, 'full', key);
      assert.equal(r.setup?.checkpoint_wrapper, true, key);
    }
    const off =
      'base_model: meta-llama/Llama-3.1-8B\ngradient_checkpointing: false\nfsdp_config:\n  activation_checkpointing: false\n';
    assert.equal(resolveText('fsdp.yaml', off).setup?.gradient_checkpointing, 'none');
  });

  it('expert_parallel_size with no GPU count: expert_parallel x dp_shard_size x tensor_parallel_size GPUs at least', () => {
    // Axolotl's examples/qwen3/qwen3-30b-a3b-ep-fsdp-fft.yaml: "world size 4 minimum: expert_parallel_size x
    // dp_shard_size". Alone, expert_parallel_size 8 needs 8 GPUs: one GPU cannot hold the layout.
    const r = resolveText('moe.yaml', 'base_model: Qwen/Qwen3-30B-A3B\nmicro_batch_size: 1\nexpert_parallel_size: 8\n');
    assert.deepEqual([r.setup?.gpus_per_node, r.setup?.expert_parallel], [8, 8]);
    assert.match(JSON.stringify(r.provenance.gpus_per_node), /the FSDP shard group x expert_parallel = 8 GPUs/);
    const ep = resolveText('ep.yaml', 'base_model: Qwen/Qwen3-30B-A3B\nexpert_parallel_size: 2\ndp_shard_size: 2\n');
    assert.deepEqual([ep.setup?.gpus_per_node, ep.setup?.nodes], [4, 1]);
    // tensor_parallel_size 2 x dp_shard_size 4 x expert_parallel_size 2: 16 GPUs, two nodes of 8.
    const all = resolveText('fsdp2.yaml', FSDP2);
    assert.deepEqual([all.setup?.gpus_per_node, all.setup?.nodes], [8, 2]);
  });

  it('runs tensor_parallel_size x dp_shard_size GPUs when the launcher count is not in the files', () => {
    // tensor_parallel_size 2 x dp_shard_size 4: 8 GPUs, one node; the shard group is 4.
    const r = resolveText('fsdp2.yaml', FSDP2.replace('expert_parallel_size: 2\n', ''));
    assert.deepEqual([r.setup?.gpus_per_node, r.setup?.nodes, r.setup?.fsdp_shard_size], [8, 1, 4]);
    assert.deepEqual(r.provenance.gpus_per_node && r.provenance.gpus_per_node.kind, 'default');
    // Axolotl's gpt-oss-120b FSDP2 example: dp_shard_size 16, "requires 2x8xH100 nodes".
    const big = resolveText(
      'gptoss.yaml',
      'base_model: openai/gpt-oss-120b\nfsdp_version: 2\nfsdp_config:\n  offload_params: true\ndp_shard_size: 16\n',
    );
    assert.deepEqual([big.setup?.gpus_per_node, big.setup?.nodes], [8, 2]);
  });

  it('reads context_parallel_size (and its older name sequence_parallel_degree) as GPUs that split each sequence', () => {
    for (const k of ['context_parallel_size', 'sequence_parallel_degree']) {
      const t = `${k}: 4\n`;
      checkFacts(analyzeAxolotlYaml(t), t, [['contextParallel', 4, k, '4']]);
    }
    const r = resolveText(
      'sp.yaml',
      'base_model: meta-llama/Llama-3.2-3B\nsequence_len: 32768\nsequence_parallel_degree: 4\nflash_attention: true\n',
    );
    assert.deepEqual([r.setup?.context_parallel, r.setup?.gpus_per_node], [4, 4]);
    // SequenceParallelContextManager hooks the model for all of trainer.train(): evaluation is split too.
    assert.equal(r.setup?.eval_sequence_split, true);
    const one = resolveText('sp1.yaml', 'base_model: meta-llama/Llama-3.2-3B\ncontext_parallel_size: 1\n');
    assert.equal(one.setup?.eval_sequence_split, undefined);
  });

  it('estimates fp8: true as bf16 mixed precision and says so at the key', () => {
    const r = resolveText('fp8.yaml', 'base_model: meta-llama/Llama-3.2-3B\nfp8: true\n');
    assert.equal(r.setup?.mixed_precision, 'bf16');
    const p = r.problems.find((x) => x.code === 'not-modeled');
    assert.equal(p?.key, 'fp8');
    assert.equal(p?.line, 2);
    assert.equal(r.setup?.fp8_all_gather, false);
    // fp8_enable_fsdp_float8_all_gather: FSDP2 gathers the float8 linears' weights in fp8.
    const ag = resolveText(
      'fp8.yaml',
      'base_model: meta-llama/Llama-3.2-3B\nfp8: true\nfp8_enable_fsdp_float8_all_gather: true\nfsdp_version: 2\nfsdp_config:\n  reshard_after_forward: true\n',
    );
    assert.equal(ag.setup?.fp8_all_gather, true);
  });

  it('Liger and Cut Cross Entropy keys without their plugin listed do nothing, said at each key', () => {
    // danielcherubini/DeltaCoder qwen3.5/v1.1/configs/deltacoder-9b-lora-v1.2-fsdp.yaml: three liger_* keys and no
    // plugins. Axolotl registers plugins and merges their keys into its schema only from `plugins:`
    // (axolotl@067b021 src/axolotl/cli/config.py:214), so the full logits of 32,768 tokens are built: the estimate
    // was 38.3 GiB per GPU with the fused loss, 141.4 GiB without.
    const text = 'liger_fused_linear_cross_entropy: true\nliger_rms_norm: true\ncut_cross_entropy: true\n';
    const r = analyzeAxolotlYaml(text);
    assert.equal(factOf(r, 'loss'), undefined);
    assert.equal(factOf(r, 'kernels'), undefined);
    const said = r.problems.filter((p) => p.code === 'no-effect').map((p) => text.slice(p.span.start, p.span.end));
    assert.deepEqual(said, ['liger_fused_linear_cross_entropy', 'cut_cross_entropy', 'liger_rms_norm']);
    const listed = `plugins:\n  - axolotl.integrations.liger.LigerPlugin\n${text}`;
    assert.equal(factOf(analyzeAxolotlYaml(listed), 'loss')?.value, 'fused');
    assert.equal(factOf(analyzeAxolotlYaml(listed), 'kernels')?.value, 'liger');
  });

  it('reads the Cut Cross Entropy plugin as fused loss (cut_cross_entropy defaults to true)', () => {
    const text = 'plugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\n';
    checkFacts(analyzeAxolotlYaml(text), text, [
      ['loss', 'fused', 'plugins', '- axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin'],
    ]);
    const off = `${text}cut_cross_entropy: false\n`;
    assert.equal(factOf(analyzeAxolotlYaml(off), 'loss'), undefined);
  });

  it('reads the deprecated fsdp list with its offload option and fsdp_-prefixed fsdp_config keys', () => {
    const text = 'fsdp:\n  - full_shard\n  - offload\n  - auto_wrap\nfsdp_config:\n  fsdp_offload_params: true\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [
      ['fsdp', 'full_shard', 'fsdp', '- full_shard\n  - offload\n  - auto_wrap'],
      ['fsdpOffload', true],
    ]);
    assert.ok(codes(r).filter((c) => c === 'deprecated-key').length >= 2);
  });

  it("reads fsdp_config's backward_prefetch (Accelerate's names)", () => {
    const text = 'fsdp_version: 1\nfsdp_config:\n  backward_prefetch: BACKWARD_PRE\n';
    checkFacts(analyzeAxolotlYaml(text), text, [['fsdpBackwardPrefetch', 'pre', 'backward_prefetch', 'BACKWARD_PRE']]);
  });

  it("reads fsdp_config's use_orig_params, prefixed or not, for FSDP1 only", () => {
    const text = 'fsdp_version: 1\nfsdp_config:\n  offload_params: true\n  use_orig_params: false\n';
    checkFacts(analyzeAxolotlYaml(text), text, [['fsdpUseOrigParams', false, 'use_orig_params', 'false']]);
    // The examples' QLoRA FSDP1 configs still write the prefix, which Axolotl strips with a deprecation warning.
    const prefixed = 'fsdp_config:\n  fsdp_offload_params: true\n  fsdp_use_orig_params: true\n';
    const r = analyzeAxolotlYaml(prefixed);
    checkFacts(r, prefixed, [['fsdpUseOrigParams', true, 'fsdp_use_orig_params', 'true']]);
    assert.ok(codes(r).includes('deprecated-key'));
    const bad = 'fsdp_version: 1\nfsdp_config:\n  use_orig_params: 2\n';
    assert.ok(codes(analyzeAxolotlYaml(bad)).includes('invalid-value'));
    const fsdp2 = 'fsdp_version: 2\nfsdp_config:\n  use_orig_params: false\n';
    assert.equal(factOf(analyzeAxolotlYaml(fsdp2), 'fsdpUseOrigParams'), undefined);
  });

  it('defaults fsdp to full_shard when fsdp_config is given without a strategy', () => {
    const text = 'fsdp_config:\n  fsdp_version: 2\n  offload_params: false\n';
    checkFacts(analyzeAxolotlYaml(text), text, [
      ['fsdp', 'full_shard', 'fsdp_config'],
      ['fsdpOffload', false],
    ]);
  });

  it('reads weight dtype switches (bfloat16 / float16 / float32: true)', () => {
    const text = 'bfloat16: true\n';
    checkFacts(analyzeAxolotlYaml(text), text, [['weightsDtype', 'bf16', 'bfloat16', 'true']]);
  });

  it('reads a learning rate written 2e-5 without disturbing memory keys (YAML 1.1 string)', () => {
    const text = 'learning_rate: 2e-5\nmicro_batch_size: 16\n';
    const r = analyzeAxolotlYaml(text);
    assert.deepEqual(codes(r), []);
    checkFacts(r, text, [['microBatchSize', 16]]);
  });

  it("another tool's name for a setting is no Axolotl key: a warning at it names Axolotl's", () => {
    // YGueguen16u/dsti-ml-final-project mixtral-finetune.yaml:52 `use_gradient_checkpointing: true`: Axolotl's schema
    // ignores keys it does not declare, so the run kept every activation, said nowhere.
    const text =
      'base_model: mistralai/Mixtral-8x7B-v0.1\nuse_gradient_checkpointing: true\nuse_flash_attention: false\n';
    const r = analyzeAxolotlYaml(text);
    const warned = r.problems.filter((p) => p.code === 'unknown-key');
    assert.deepEqual(
      warned.map((p) => [text.slice(p.span.start, p.span.end), p.message]),
      [
        [
          'use_gradient_checkpointing',
          '`use_gradient_checkpointing` is not an Axolotl key, so it has no effect; Axolotl reads `gradient_checkpointing`',
        ],
        [
          'use_flash_attention',
          '`use_flash_attention` is not an Axolotl key, so it has no effect; Axolotl reads `flash_attention`',
        ],
      ],
    );
    assert.equal(factOf(r, 'gradientCheckpointing'), undefined);
    // Beside the Axolotl key, the look-alike is left alone.
    const both = analyzeAxolotlYaml(`${text}gradient_checkpointing: true\n`);
    assert.equal(both.problems.filter((p) => p.rawKey === 'use_gradient_checkpointing').length, 0);
  });

  it('never throws and keeps spans inside mutated texts (property, 2000 runs)', function () {
    this.timeout(20000);
    robustnessProperty(analyzeAxolotlYaml, [QLORA, FSDP2, ...corpusFiles('axolotl-yaml').map((f) => f.text)]);
  });
});

corpusSuite('axolotl-yaml', analyzeAxolotlYaml);
