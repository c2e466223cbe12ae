// Term: optimizer step temporaries (src/core/terms/optimizer-step.ts), against numbers worked out by hand.
import * as assert from 'node:assert/strict';
import { component, near, phase, run, setupFor } from '../helpers';
import { gpuPointRun, llama3ZeroFull, truthPeak, truthSetup } from './helpers';

describe('estimate: ZeRO-3 optimizer sub-groups', () => {
  /** Llama-3.1-70B bf16 with fp32 master weights, ZeRO-3 over 8 GPUs: a partition of 70,553,706,496 / 8 = 8.8B. */
  const llama70bZero3 = (extra: Record<string, unknown>) =>
    setupFor('meta-llama/Llama-3.1-70B', {
      weights_dtype: 'bf16',
      master_weights: true,
      gpus_per_node: 8,
      zero_stage: 3,
      micro_batch_size: 1,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      ...extra,
    });

  it('the step upcasts the gradients of one sub-group of sub_group_size parameters, not the whole partition', () => {
    // DeepSpeed stage3.py steps sub-groups of sub_group_size (1e9 by default) one at a time.
    const s = (extra: Record<string, unknown>) => llama70bZero3({ optimizer: 'adamw_fused', ...extra });
    const step = (e: ReturnType<typeof run>): number => component(phase(e, 'optimizer'), 'optimizer-step');
    assert.equal(step(run(s({}))), 1e9 * 4);
    assert.equal(step(run(s({ zero_buckets: { sub_group_size: 5e8 } }))), 5e8 * 4);
    // ZeRO-2 upcasts its whole gradient partition at once.
    assert.equal(step(run(s({ zero_stage: 2 }))), (70_553_706_496 / 8) * 4);
  });

  it("torch AdamW's foreach temporary is one sub-group's, as ZeRO-3 hands the optimizer one sub-group per step()", () => {
    // stage3.py _optimizer_step sets the group's params to [fp32_partitioned_groups_flat[sub_group_id]] and steps, so
    // _foreach_sqrt(exp_avg_sq) copies that sub-group only: Llama-3.1-70B over 8 GPUs (partition 8.8B) with the default
    // sub_group_size 1e9: 1e9 x 4 B of temporaries beside 1e9 x 4 B of fp32 gradients; ZeRO-2 steps its whole
    // partition at once: 8,819,213,312 x 4 B each.
    const s = (extra: Record<string, unknown>) => llama70bZero3({ optimizer: 'adamw', ...extra });
    const temps = (e: ReturnType<typeof run>): number =>
      phase(e, 'optimizer').components.find((c) => c.label === 'AdamW foreach temporaries')!.bytes;
    assert.equal(temps(run(s({}))), 1e9 * 4);
    assert.equal(temps(run(s({ zero_buckets: { sub_group_size: 5e8 } }))), 5e8 * 4);
    assert.equal(temps(run(s({ zero_stage: 2 }))), (70_553_706_496 / 8) * 4);
  });

  it('sub_group_size 0 steps one parameter at a time: the fp32 gradients of the largest partition, not nothing', () => {
    // Llama-3-8B over 8 GPUs: the largest parameter is an embedding 128,256 x 4,096 = 525,336,576, a partition of
    // 65,667,072 x 4 B. DeepSpeed's default sub_group_size 1e9 holds 1e9 params x 4 B (the partition is 1.0037e9).
    const sub = (e: ReturnType<typeof run>): number =>
      phase(e, 'optimizer').components.find((c) => c.label === 'fp32 gradients of one optimizer sub-group (ZeRO-3)')!
        .bytes;
    assert.equal(
      sub(run(llama3ZeroFull({ zero_stage: 3, zero_buckets: { sub_group_size: 0 } }))),
      (525_336_576 / 8) * 4,
    );
    assert.equal(sub(run(llama3ZeroFull({ zero_stage: 3 }))), 1e9 * 4);
  });

  it("a fused expert stack is one parameter: a sub-group holds at least that parameter's partition", () => {
    // transformers 5 keeps each Mixtral-8x7B MoE layer's experts in one 3-D parameter, gate_up_proj [8, 2 x 14,336,
    // 4,096] = 939,524,096 elements, larger than the head (32,000 x 4,096 = 131,072,000). DeepSpeed partitions each
    // parameter over the 8 ranks and fills a sub-group parameter by parameter, so with sub_group_size 1e7 a group holds
    // one expert stack's partition: 117,440,512 x 4 B of fp32 gradients and as much for AdamW's foreach temporary.
    // transformers 4's per-expert nn.Linear leave the head's partition the largest, 16,384,000 x 4 B each.
    const mixtral = (transformers: string) =>
      setupFor('mistralai/Mixtral-8x7B-v0.1', {
        transformers_version: transformers,
        weights_dtype: 'bf16',
        master_weights: true,
        gpus_per_node: 8,
        zero_stage: 3,
        zero_buckets: { sub_group_size: 1e7 },
        micro_batch_size: 1,
        seq_len: 512,
        gradient_checkpointing: 'full',
      });
    const step = (e: ReturnType<typeof run>): number => component(phase(e, 'optimizer'), 'optimizer-step');
    assert.equal(step(run(mixtral('5.0'))), 2 * 117_440_512 * 4);
    assert.equal(step(run(mixtral('4.57'))), 2 * 16_384_000 * 4);
  });
});

describe("estimate: ZeRO-1/2's overflow check before the step", () => {
  // stage_1_and_2.py _has_inf_or_nan over each parameter's piece of the bf16 gradient partition: its fp32 copy, the
  // isnan and isinf masks, their logical_or and that mask's fp32 copy, 11 B per element. Llama-3-8B over 8 GPUs: the
  // partition is 8,030,261,248 / 8 = 1,003,782,656 elements and its largest piece the embedding (or head), 128,256 x
  // 4096 = 525,336,576 elements: 5,778,702,336 B, less than the step's fp32 gradients and foreach temporary (8 B x the
  // partition, 8,030,261,248 B), which stay the phase's high point.
  const s = (gpus_per_node: number) => llama3ZeroFull({ zero_stage: 2, gpus_per_node });
  const label = (e: ReturnType<typeof run>): string[] =>
    phase(e, 'optimizer')
      .components.filter((c) => c.id === 'optimizer-step')
      .map((c) => c.label);

  it("is the step's high point when the largest piece is most of the partition", () => {
    assert.deepEqual(label(run(s(8))), ['AdamW foreach temporaries', 'fp32 gradient partition']);
    // Over 64 GPUs the partition, 125,472,832 elements, is one piece: 11 B x 125,472,832 = 1,380,201,152 B against the
    // step's 8 B x 125,472,832.
    const e = run(s(64));
    assert.deepEqual(label(e), ['ZeRO-1/2 overflow check of the gradient partition']);
    assert.equal(component(phase(e, 'optimizer'), 'optimizer-step'), 1_380_201_152);
  });

  it('matches DeepSpeed 0.19.6 on the CPU better than the step alone (the optimizer phase, not the peak)', () => {
    // zero/llama-w8-z2-full: measured 19,404,144 B at aten::max inside the check; the step's temporaries alone gave
    // 16.85 MB (-13 %).
    const e = run(truthSetup('zero/llama-w8-z2-full'));
    near(phase(e, 'optimizer').allocatedBytes, 19_404_144, 0.07, 'optimizer phase');
    near(e.perGpu.peakBytes, truthPeak('zero/llama-w8-z2-full'), 0.01, 'peak');
  });

  it('the step itself holds no 16-bit gradients: Llama-3.1-8B on an H100 within 0.5 % (was +5.7 % with them)', () => {
    // stage_1_and_2.py step frees the gradients of the parameters outside and inside the partition once the fp32
    // partition is made, before _optimizer_step. Rank 0 of 8, full fine-tune, 2 x 2,048 tokens: 36,322,948,608 B in the
    // optimizer phase (tools/truth/gpu/results/2026-11-26b-h100). By hand: bf16 weights 16,060,522,496 + fp32 master
    // 4,015,130,624 + AdamW states 8,030,261,248 + cuBLAS workspaces 67,108,864 + fp32 gradient partition and
    // _foreach_sqrt 2 x 4,015,130,624 = 36,203,284,480 B; the check before it holds the 16-bit gradients, less.
    const { estimate: e, peak } = gpuPointRun('llama-3.1-8b-full-s2048-b2-ckpt-z2-w8');
    const optimizer = phase(e, 'optimizer');
    assert.equal(optimizer.allocatedBytes, 36_203_284_480);
    assert.equal(component(optimizer, 'gradients'), 0);
    near(optimizer.allocatedBytes, peak, 0.005, 'optimizer phase');
  });
});

describe("estimate: torch AdamW's step temporaries by PyTorch release", () => {
  // Qwen2.5-0.5B full fine-tune in bf16 on one GPU: 494,032,768 trainable parameters (tied head), bf16 states (2 B);
  // the largest tensor is the embedding, 151,936 x 896 = 136,134,656.
  const s = (pytorch_version?: string) =>
    setupFor('Qwen/Qwen2.5-0.5B', {
      weights_dtype: 'bf16',
      optimizer: 'adamw',
      seq_len: 512,
      ...(pytorch_version ? { pytorch_version } : {}),
    });
  const temps = (e: ReturnType<typeof run>) =>
    phase(e, 'optimizer').components.find((c) => c.label.startsWith('AdamW') && c.label.endsWith('temporaries'))!;

  it('foreach from 2.1: one copy of every exp_avg_sq (_foreach_sqrt, then in place)', () => {
    assert.equal(temps(run(s('2.4'))).bytes, 494_032_768 * 2);
    assert.equal(temps(run(s())).bytes, 494_032_768 * 2);
  });

  it('foreach in 2.0: the square roots and their sum with eps, two copies (pytorch/pytorch#104898 made it in place)', () => {
    const t = temps(run(s('2.0')));
    assert.equal(t.bytes, 2 * 494_032_768 * 2);
    assert.match(t.formula, /2 x torch\._foreach_sqrt\(exp_avg_sq\) and its sum with eps \(PyTorch < 2\.1\)/);
  });

  it("before 2.0, the per-tensor loop: the largest tensor's square root and its quotient", () => {
    const t = temps(run(s('1.13')));
    assert.equal(t.label, 'AdamW per-tensor temporaries');
    assert.equal(t.bytes, 2 * 136_134_656 * 2);
  });

  it("FSDP1's flat parameters under 2.0: the per-tensor loop, the largest unit's flat shard at a time", () => {
    // Llama-2-7B full over 4 GPUs, use_orig_params false (llama-recipes' llama_finetuning.py, torch==2.0.1): 2.0's
    // foreach takes only exact Tensor and Parameter types, and FlatParameter subclassed Parameter until 2.1. The largest
    // flat parameter is the root unit's embedding and head, 2 x 32,000 x 4,096 = 262,144,000 over 4 ranks; fp32 states.
    const fsdp = (pytorch_version: string, fsdp_use_orig_params: boolean) =>
      setupFor('meta-llama/Llama-2-7b-hf', {
        weights_dtype: 'fp32',
        mixed_precision: 'bf16',
        optimizer: 'adamw',
        gpus_per_node: 4,
        fsdp: 'full_shard',
        fsdp_version: 1,
        fsdp_use_orig_params,
        pytorch_version,
        seq_len: 512,
      });
    const flat = temps(run(fsdp('2.0.1', false)));
    assert.equal(flat.label, 'AdamW per-tensor temporaries');
    assert.equal(flat.bytes, 2 * (262_144_000 / 4) * 4);
    assert.match(flat.formula, /FSDP1's flat parameters under PyTorch 2\.0\.1 are stepped one at a time/);
    // With the original parameters, or from 2.1, foreach over the whole shard (2.0: two copies).
    assert.equal(temps(run(fsdp('2.0.1', true))).bytes, 2 * (6_738_415_616 / 4) * 4);
    assert.equal(temps(run(fsdp('2.1', false))).bytes, (6_738_415_616 / 4) * 4);
  });

  it('names the release in the replays: the two-step replay reserves more for 2.0 than for 2.4', () => {
    const reserved = (v: string) => run(s(v)).perGpu.reservedBytes;
    assert.ok(reserved('2.0') > reserved('2.4'));
  });
});

describe("estimate: torch RMSprop's step", () => {
  const s = (extra: Record<string, unknown>) =>
    setupFor('meta-llama/Meta-Llama-3-8B', {
      optimizer: 'rmsprop',
      weights_dtype: 'bf16',
      micro_batch_size: 1,
      seq_len: 512,
      ...extra,
    });
  const temps = (e: ReturnType<typeof run>): { label: string; bytes: number }[] =>
    phase(e, 'optimizer')
      .components.filter((c) => c.id === 'optimizer-step')
      .map((c) => ({ label: c.label, bytes: c.bytes }));

  it('foreach (PyTorch 2.0 on): one copy of every square_avg, _foreach_sqrt, eps added in place', () => {
    // torch/optim/rmsprop.py _multi_tensor_rmsprop: avg = torch._foreach_sqrt(square_avgs); torch._foreach_add_(avg,
    // eps). Llama-3-8B pure bf16: 8,030,261,248 x 2 B. CPU truth peft/*-full-*-rmsprop (foreach=True, as CUDA tensors
    // get it): the optimizer phase within 0.1 %.
    assert.deepEqual(temps(run(s({}))), [{ label: 'RMSprop foreach temporaries', bytes: 8_030_261_248 * 2 }]);
  });

  it("before PyTorch 2.0, the per-tensor loop: the largest tensor's square root", () => {
    // _single_tensor_rmsprop: avg = square_avg.sqrt().add_(eps), one tensor at a time; the largest is the embedding or
    // the head, 128,256 x 4,096 = 525,336,576 elements x 2 B.
    assert.deepEqual(temps(run(s({ pytorch_version: '1.13' }))), [
      { label: 'RMSprop per-tensor temporaries', bytes: 525_336_576 * 2 },
    ]);
  });
});
