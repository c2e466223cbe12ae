// Accelerate config YAML: process counts, the 'no' trap, DeepSpeed and FSDP plugin blocks, N-D parallelism.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeAccelerateYaml } from '../../../src/analyzers/yaml';
import { checkFacts, codes, corpusFiles, corpusSuite, factOf, robustnessProperty } from './yaml-common.test';

const FSDP1 = `compute_environment: LOCAL_MACHINE
distributed_type: FSDP
mixed_precision: 'bf16'
num_machines: 2
num_processes: 16
fsdp_config:
  fsdp_sharding_strategy: SHARD_GRAD_OP
  fsdp_offload_params: true  # slow
  fsdp_activation_checkpointing: true
`;

const DS = `distributed_type: DEEPSPEED
deepspeed_config:
  gradient_accumulation_steps: 4
  offload_optimizer_device: cpu
  offload_param_device: nvme
  zero_stage: 3
num_processes: 8
mixed_precision: fp16
`;

describe('analyzeAccelerateYaml', () => {
  it('reads an Accelerate config written as JSON (accelerate launch --config_file fsdp_offload.json)', () => {
    // modelscope/ms-swift examples/train/multi-gpu/fsdp_qlora/fsdp_offload.json; Accelerate loads .json config files
    // with ClusterConfig.from_json_file (accelerate/commands/config/config_args.py load_config_from_file).
    const json =
      '{\n  "distributed_type": "FSDP",\n  "fsdp_config": {\n    "fsdp_offload_params": true,\n' +
      '    "fsdp_sharding_strategy": "FULL_SHARD"\n  },\n  "mixed_precision": "no",\n  "num_processes": 2\n}\n';
    assert.equal(detectFormat('/w/fsdp_offload.json', json), 'accelerate-yaml');
    const facts = analyzeAccelerateYaml(json);
    assert.equal(factOf(facts, 'fsdp')?.value, 'full_shard');
    assert.equal(factOf(facts, 'fsdpOffload')?.value, true);
    assert.equal(factOf(facts, 'mixedPrecision')?.value, 'none');
    // A DeepSpeed config stays a DeepSpeed config.
    assert.equal(detectFormat('/w/config.json', '{"zero_optimization": {"stage": 2}}'), 'deepspeed-json');
  });

  it('reads num_processes as the world size over all machines and num_machines as nodes', () => {
    checkFacts(analyzeAccelerateYaml(FSDP1), FSDP1, [
      ['worldSize', 16, 'num_processes', '16'],
      ['nodes', 2, 'num_machines', '2'],
    ]);
  });

  it('normalizes quoted and unquoted no / NO (YAML 1.1 booleans) to mixed precision none', () => {
    for (const raw of ["'no'", 'no', 'NO', '"no"', 'false']) {
      const text = `distributed_type: 'NO'\nmixed_precision: ${raw}\n`;
      checkFacts(analyzeAccelerateYaml(text), text, [['mixedPrecision', 'none', 'mixed_precision', raw]]);
    }
  });

  it('accepts an unquoted distributed_type: NO (False under PyYAML) without complaint', () => {
    const text = 'distributed_type: NO\nnum_processes: 1\n';
    const r = analyzeAccelerateYaml(text);
    assert.deepEqual(codes(r), []);
  });

  it("a project's config with distributed_type beside its model is not Accelerate's (ReLoRA's training configs)", () => {
    // Guitaricet/relora training_configs/1B_v1.0.yaml, cut: torchrun_main.py's own keys, its --distributed_type ddp.
    const relora =
      'model_name_or_path: EleutherAI/pythia-1b\nuse_peft: true\nlora_r: 128\nbatch_size: 8\ndistributed_type: ddp\n';
    assert.notEqual(detectFormat('/w/training_configs/1B_v1.0.yaml', relora), 'accelerate-yaml');
    // distributed_type alone, or with another Accelerate key, still is.
    assert.equal(detectFormat('/w/a.yaml', 'distributed_type: MULTI_GPU\n'), 'accelerate-yaml');
    assert.equal(
      detectFormat('/w/a.yaml', 'distributed_type: FSDP\nnum_machines: 1\nbase_model: x\n'),
      'accelerate-yaml',
    );
  });

  it('reads bf16, fp16 and fp8 mixed precision and rejects other values', () => {
    const text = 'distributed_type: MULTI_GPU\nmixed_precision: fp8\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['mixedPrecision', 'fp8', 'mixed_precision', 'fp8']]);
    const bad = 'distributed_type: MULTI_GPU\nmixed_precision: fp4\n';
    assert.ok(codes(analyzeAccelerateYaml(bad)).includes('invalid-value'));
  });

  it('turns a legacy fp16: true into mixed precision fp16 and flags the key as deprecated', () => {
    const text = 'distributed_type: MULTI_GPU\nfp16: true\n';
    const r = analyzeAccelerateYaml(text);
    checkFacts(r, text, [['mixedPrecision', 'fp16', 'fp16', 'true']]);
    assert.ok(codes(r).includes('deprecated-key'));
  });

  it('reads the FSDP1 block: strategy, offload, activation checkpointing', () => {
    checkFacts(analyzeAccelerateYaml(FSDP1), FSDP1, [
      ['mixedPrecision', 'bf16', 'mixed_precision', "'bf16'"],
      ['fsdp', 'shard_grad_op', 'fsdp_sharding_strategy', 'SHARD_GRAD_OP'],
      ['fsdpOffload', true, 'fsdp_offload_params', 'true'],
      ['gradientCheckpointing', 'full', 'fsdp_activation_checkpointing', 'true'],
    ]);
  });

  it('accepts FSDP sharding strategies as integers 1-5 and keys without the fsdp_ prefix', () => {
    const text = 'distributed_type: FSDP\nfsdp_config:\n  sharding_strategy: 4\n  offload_params: false\n';
    checkFacts(analyzeAccelerateYaml(text), text, [
      ['fsdp', 'hybrid_shard', 'sharding_strategy', '4'],
      ['fsdpOffload', false, 'offload_params', 'false'],
    ]);
  });

  it('reads the FSDP1 checkpoint format: names, integers (1 full, 2 local, 3 sharded) and a wrong value at its place', () => {
    // accelerate@16cb6eb:src/accelerate/utils/constants.py FSDP_STATE_DICT_TYPE, torch StateDictType (1-3).
    const text = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_state_dict_type: SHARDED_STATE_DICT\n';
    checkFacts(analyzeAccelerateYaml(text), text, [
      ['fsdpStateDictType', 'sharded', 'fsdp_state_dict_type', 'SHARDED_STATE_DICT'],
    ]);
    const byInt = 'distributed_type: FSDP\nfsdp_config:\n  state_dict_type: 2\n';
    checkFacts(analyzeAccelerateYaml(byInt), byInt, [['fsdpStateDictType', 'local', 'state_dict_type', '2']]);
    const bad = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_state_dict_type: HALF_STATE_DICT\n';
    assert.ok(codes(analyzeAccelerateYaml(bad)).includes('invalid-value'));
  });

  it("reads FSDP1's backward prefetch: names in any case, the pre-0.21 _policy key, the enum's integers, a wrong value", () => {
    // accelerate utils/dataclasses.py FullyShardedDataParallelPlugin: NO_PREFETCH -> None, a name of
    // FSDP_BACKWARD_PREFETCH, or an integer of torch's BackwardPrefetch (1 BACKWARD_PRE, 2 BACKWARD_POST).
    const text = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_backward_prefetch: BACKWARD_PRE\n';
    checkFacts(analyzeAccelerateYaml(text), text, [
      ['fsdpBackwardPrefetch', 'pre', 'fsdp_backward_prefetch', 'BACKWARD_PRE'],
    ]);
    const old = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_backward_prefetch_policy: backward_post\n';
    checkFacts(analyzeAccelerateYaml(old), old, [
      ['fsdpBackwardPrefetch', 'post', 'fsdp_backward_prefetch_policy', 'backward_post'],
    ]);
    const off = 'distributed_type: FSDP\nfsdp_config:\n  backward_prefetch: NO_PREFETCH\n';
    checkFacts(analyzeAccelerateYaml(off), off, [['fsdpBackwardPrefetch', 'none', 'backward_prefetch', 'NO_PREFETCH']]);
    const byInt = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_backward_prefetch: 2\n';
    checkFacts(analyzeAccelerateYaml(byInt), byInt, [['fsdpBackwardPrefetch', 'post', 'fsdp_backward_prefetch', '2']]);
    const bad = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_backward_prefetch: BACKWARD_BOTH\n';
    const r = analyzeAccelerateYaml(bad);
    assert.ok(codes(r).includes('invalid-value'));
    assert.ok(!r.facts.some((f) => f.key === 'fsdpBackwardPrefetch'));
  });

  it('reads fsdp_cpu_ram_efficient_loading, under FSDP1 and FSDP2', () => {
    // accelerate utils/launch.py: FSDP_CPU_RAM_EFFICIENT_LOADING from the config's fsdp_cpu_ram_efficient_loading; read
    // by transformers' from_pretrained whatever the FSDP version.
    const text = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_cpu_ram_efficient_loading: false\n';
    checkFacts(analyzeAccelerateYaml(text), text, [
      ['fsdpCpuRamEfficientLoading', false, 'fsdp_cpu_ram_efficient_loading', 'false'],
    ]);
    const v2 = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_cpu_ram_efficient_loading: true\n';
    checkFacts(analyzeAccelerateYaml(v2), v2, [['fsdpCpuRamEfficientLoading', true, 'fsdp_cpu_ram_efficient_loading']]);
  });
  it("reads FSDP1's use_orig_params with or without its prefix, as booleans or strings; a wrong value; not under FSDP2", () => {
    // accelerate utils/dataclasses.py: use_orig_params = str_to_bool(os.environ.get("FSDP_USE_ORIG_PARAMS", ...)), the
    // launcher setting FSDP_USE_ORIG_PARAMS from the config's fsdp_use_orig_params (utils/launch.py).
    const text = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_offload_params: true\n  fsdp_use_orig_params: false\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['fsdpUseOrigParams', false, 'fsdp_use_orig_params', 'false']]);
    const str = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_use_orig_params: "true"\n';
    checkFacts(analyzeAccelerateYaml(str), str, [['fsdpUseOrigParams', true, 'fsdp_use_orig_params']]);
    const bare = 'distributed_type: FSDP\nfsdp_config:\n  use_orig_params: False\n';
    checkFacts(analyzeAccelerateYaml(bare), bare, [['fsdpUseOrigParams', false, 'use_orig_params', 'False']]);
    const bad = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_use_orig_params: sometimes\n';
    const r = analyzeAccelerateYaml(bad);
    const p = r.problems.find((x) => x.code === 'invalid-value');
    assert.equal(p?.rawKey, 'fsdp_config.fsdp_use_orig_params');
    assert.equal(bad.slice(p.span.start, p.span.end), 'sometimes');
    assert.ok(!r.facts.some((f) => f.key === 'fsdpUseOrigParams'));
    // FSDP2 has no such option (fully_shard keeps the original parameters): nothing is read, nothing is said.
    const fsdp2 = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_use_orig_params: false\n';
    const r2 = analyzeAccelerateYaml(fsdp2);
    assert.ok(!r2.facts.some((f) => f.key === 'fsdpUseOrigParams'));
    assert.deepEqual(codes(r2), []);
  });

  it('reads FSDP2 reshard_after_forward: false as shard_grad_op', () => {
    const text = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['fsdp', 'shard_grad_op', 'fsdp_reshard_after_forward', 'false']]);
  });

  it('defaults FSDP to full_shard at distributed_type when no strategy is written', () => {
    const text = 'distributed_type: FSDP\nnum_processes: 4\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['fsdp', 'full_shard', 'distributed_type', 'FSDP']]);
  });

  it('does not record activation checkpointing when fsdp_activation_checkpointing is false', () => {
    const text = 'distributed_type: FSDP\nfsdp_config:\n  fsdp_activation_checkpointing: false\n';
    assert.equal(factOf(analyzeAccelerateYaml(text), 'gradientCheckpointing'), undefined);
  });

  it('reads the DeepSpeed plugin keys', () => {
    checkFacts(analyzeAccelerateYaml(DS), DS, [
      ['zeroStage', 3, 'zero_stage', '3'],
      ['offloadOptimizer', 'cpu', 'offload_optimizer_device', 'cpu'],
      ['offloadParams', 'nvme', 'offload_param_device', 'nvme'],
      ['gradientAccumulationSteps', 4, 'gradient_accumulation_steps', '4'],
      ['mixedPrecision', 'fp16'],
      ['worldSize', 8],
    ]);
  });

  it("takes gradient_accumulation_steps: 'auto' as the script's own value, without a problem", () => {
    // TideDra/VL-RLHF accelerate_config/zero2.yaml: Accelerate's DeepSpeed plugin keeps 'auto' and the HF Trainer fills
    // it from its own argument (DeepSpeedPlugin.__post_init__: `int(gas) if gas.isdigit() else gas`).
    const text =
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  gradient_accumulation_steps: 'auto'\n  zero_stage: 2\n";
    const r = analyzeAccelerateYaml(text);
    assert.equal(factOf(r, 'gradientAccumulationSteps'), undefined);
    assert.deepEqual(codes(r), []);
    // Any other word stays a located error.
    const bad = analyzeAccelerateYaml(text.replace("'auto'", 'many'));
    assert.deepEqual(codes(bad), ['invalid-value']);
  });

  it('defaults zero_stage to 2 for DEEPSPEED without a stage or a config file', () => {
    const text = 'distributed_type: DEEPSPEED\nnum_processes: 2\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['zeroStage', 2, 'distributed_type', 'DEEPSPEED']]);
  });

  it('records deepspeed_config_file as a reference, as written, and lets the file decide the stage', () => {
    const text =
      'distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: ../ds/zero3.json # comment\n';
    const r = analyzeAccelerateYaml(text);
    checkFacts(r, text, [['deepspeedConfig', '../ds/zero3.json', 'deepspeed_config_file', '../ds/zero3.json']]);
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path, text.slice(x.span.start, x.span.end)]),
      [['deepspeed', '../ds/zero3.json', '../ds/zero3.json']],
    );
    assert.equal(factOf(r, 'zeroStage'), undefined);
  });

  it('ignores the DeepSpeed block when distributed_type is not DEEPSPEED', () => {
    const text = 'distributed_type: MULTI_GPU\ndeepspeed_config:\n  zero_stage: 3\n';
    assert.equal(factOf(analyzeAccelerateYaml(text), 'zeroStage'), undefined);
  });

  it('reads parallelism_config: tp size, and hybrid sharding when dp_replicate and dp_shard are both > 1', () => {
    const text =
      'distributed_type: FSDP\n' +
      'parallelism_config:\n' +
      '  parallelism_config_dp_replicate_size: 2\n' +
      '  parallelism_config_dp_shard_size: 4\n' +
      '  parallelism_config_tp_size: 2\n';
    checkFacts(analyzeAccelerateYaml(text), text, [
      ['tensorParallel', 2, 'parallelism_config_tp_size', '2'],
      ['fsdpShardSize', 4, 'parallelism_config_dp_shard_size', '4'],
      ['fsdp', 'hybrid_shard', 'parallelism_config_dp_replicate_size', '2'],
    ]);
  });

  it('reads parallelism_config cp_size as context parallelism', () => {
    const text = 'distributed_type: FSDP\nparallelism_config:\n  parallelism_config_cp_size: 2\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['contextParallel', 2, 'parallelism_config_cp_size', '2']]);
  });

  it('reads num_processes: -1 as unknown (given at launch)', () => {
    const text = 'distributed_type: MULTI_GPU\nnum_processes: -1\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['worldSize', { unknown: true }, 'num_processes', '-1']]);
  });

  it('flags impossible values and unknown keys', () => {
    const text = 'distributed_type: MULTI_GPU\nnum_processes: -4\nnum_machine: 2\n';
    const r = analyzeAccelerateYaml(text);
    assert.ok(codes(r).includes('invalid-value'));
    const unknown = r.problems.find((p) => p.code === 'unknown-key');
    assert.equal(unknown && text.slice(unknown.span.start, unknown.span.end), 'num_machine');
  });

  it('reads a dynamo backend as torch.compile on', () => {
    const text = 'distributed_type: NO\ndynamo_config:\n  dynamo_backend: INDUCTOR\n';
    checkFacts(analyzeAccelerateYaml(text), text, [['compile', true, 'dynamo_backend', 'INDUCTOR']]);
  });

  it('keeps spans exact despite trailing whitespace and no final newline', () => {
    const text = 'compute_environment: LOCAL_MACHINE            \ndistributed_type: FSDP   \nnum_processes: 2       ';
    checkFacts(analyzeAccelerateYaml(text), text, [['worldSize', 2, 'num_processes', '2']]);
  });

  it('never throws and keeps spans inside mutated texts (property, 2000 runs)', function () {
    this.timeout(20000);
    robustnessProperty(analyzeAccelerateYaml, [FSDP1, DS, ...corpusFiles('accelerate-yaml').map((f) => f.text)]);
  });
});

corpusSuite('accelerate-yaml', analyzeAccelerateYaml);
