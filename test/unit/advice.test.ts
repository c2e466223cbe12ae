// The advice engine on hand-checked cases.
import * as assert from 'node:assert/strict';
import { advise, neededBytes, singleChanges } from '../../src/core/advice';
import { moves } from '../../src/core/advice/moves';
import { everyKey, fitsOnGpu, forEachChain, type Light, ParetoFront } from '../../src/core/advice/search';
import { estimate } from '../../src/core/estimate';
import { findGpu } from '../../src/core/lookup';
import { stepTime, tokenEfficiency } from '../../src/core/step-time';
import { TrainingSetupSchema } from '../../src/core/setup';
import { analyzeAs } from '../../src/analyzers/detect';
import { shippedZeroConfigFor } from '../../src/analyzers/shipped-zero';
import { phase, setupFor } from './helpers';
import { FSDP1_SHARDED_SAVE, llama31FsdpAccum, llama3ZeroFull } from './terms/helpers';

function gpu(name: string) {
  const g = findGpu(name);
  assert.ok(g.ok);
  return g.gpu;
}

describe('advice', () => {
  it("gives each item's figures from the numbers and its full estimate, formulas included, when read", () => {
    // The bench's GRPO case (bench/speed.ts): Qwen2.5-7B full, 32 completions of 1,024 tokens, on one A100 80GB.
    // Each listed item's device figure and saving are those of its full estimate, made only when `estimate` is read.
    const s = setupFor('Qwen/Qwen2.5-7B-Instruct', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 8,
      gradient_accumulation_steps: 4,
      seq_len: 1536,
      gradient_checkpointing: 'full',
      rollout: { batch: 32, completion_len: 1024, engine: 'generate', reference: 'copy', old_logps: true },
    });
    const a100 = gpu('A100-80GB');
    const r = advise(s, { gpu: a100, gpuSpec: a100.spec });
    assert.ok(r && r.items.length > 10, `${r?.items.length}`);
    for (const i of r.items) {
      assert.equal(i.deviceBytes, i.estimate.perGpu.deviceBytes, i.id);
      assert.equal(i.savedBytes, neededBytes(r.current) - neededBytes(i.estimate), i.id);
      assert.equal(i.fits, i.estimate.fits, i.id);
      assert.ok(
        i.estimate.perGpu.components.every((c) => c.formula.length > 0),
        i.id,
      );
      assert.ok(i.estimate.assumptions.length > 0, i.id);
      assert.equal(JSON.parse(JSON.stringify(i)).estimate.perGpu.deviceBytes, i.deviceBytes, 'a copy has it');
    }
  });

  it('every candidate of a search has every setup key, in one order, and reads as its chain of moves made it', () => {
    // The search copies candidates from a setup with every schema key present (everyKey) and writes each patch over
    // the copy: one object shape for the estimator to read. An unset key reads undefined, as an absent one does.
    // The bench's advice case (bench/speed.ts): Llama-2-7B full, 8 x 4,096 tokens, eager attention, two GPUs.
    const s = setupFor('meta-llama/Llama-2-7b-hf', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 8,
      gradient_accumulation_steps: 4,
      seq_len: 4096,
      attention: 'eager',
      gpus_per_node: 2,
    });
    const root = everyKey(s);
    const order = Object.keys(root).join();
    for (const k of Object.keys(s) as (keyof typeof s)[]) assert.equal(root[k], s[k], k);
    assert.equal(root.lora, undefined);
    let candidates = 0;
    forEachChain(s, moves(s, true), 3, (a) => {
      candidates++;
      assert.equal(Object.keys(a.setup).join(), order);
      // The candidate is its parent with the patch written over it.
      const parent = a.parent!.setup;
      for (const k of Object.keys(a.setup) as (keyof typeof s)[])
        assert.equal(a.setup[k], k in a.patch! ? a.patch![k] : parent[k], k);
    });
    // 2,509 chains of the 49 moves this setup gets (singles, pairs and triples from different groups): the bench's
    // 2,549 candidates evaluated less the 40 probes of the micro-batch, sequence and GPU-count searches.
    assert.equal(candidates, 2509);
  });

  it('7B full fine-tune on one 24 GB GPU: nothing fits without LoRA/QLoRA or offload', () => {
    const g = gpu('RTX-4090');
    const s = setupFor('meta-llama/Llama-2-7b-hf', {
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 4,
      seq_len: 2048,
      gradient_accumulation_steps: 4,
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    assert.ok(r.items.length > 0);
    for (const it of r.items.filter((i) => i.gpus === 1)) {
      const keys = it.changes.map((c) => `${c.key}=${JSON.stringify(c.value)}`).join(' ');
      const rescued = /method=/.test(keys) || /offload_(optimizer|params)="cpu"/.test(keys) || /"nvme"/.test(keys);
      assert.ok(rescued, `claimed fit without LoRA/QLoRA/offload: ${it.title} (${keys})`);
      assert.ok(it.fits && it.savedBytes > 0);
    }
    assert.ok(r.evaluated >= 500);
    assert.ok(
      r.items.some((i) => i.gpus > 1),
      'scale-out is offered too',
    );
  });

  it('torchtune 0.1 QLoRA with torchao 0.1 on an 8 GiB card: upgrading torchao alone fits, at no step-time cost', () => {
    // The load phase (8.4 GiB reserved after the model's build and load, terms/nf4-load.ts) is what does not fit;
    // torchao 0.2 quantizes in 1M-element chunks (pytorch/ao#196) and the step itself needs about 4.5 GiB.
    const base = {
      method: 'qlora',
      weights_dtype: 'bf16',
      mixed_precision: 'none',
      micro_batch_size: 2,
      seq_len: 512,
      gradient_checkpointing: 'full',
      quantization: { bits: 4, type: 'nf4', double_quant: true, scope: 'all-linear' },
      torchao_version: '0.1',
    } as const;
    const lora = {
      r: 8,
      alpha: 16,
      dropout: 0,
      target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
      dtype: 'bf16' as const,
    };
    const g = { id: '8 GiB', memoryBytes: 8 * 2 ** 30, source: 'test' };
    const r = advise(setupFor('meta-llama/Llama-2-7b-hf', { ...base, lora }), { gpu: g });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    const first = r.items[0];
    assert.deepEqual(first.changes, [{ key: 'torchao_version', value: '0.2' }]);
    assert.ok(first.fits && Math.abs(first.stepTimeFactor - 1) < 1e-9 && !first.changesResult);
    assert.ok(first.estimate.perGpu.deviceBytes < 5.5 * 2 ** 30, `${first.estimate.perGpu.deviceBytes}`);
  });

  it('bitsandbytes 0.43.1 QLoRA under non-reentrant checkpointing on 24 GB: its kept inputs go with either fix', () => {
    // Llama-2-7B, 4 x 2,048 tokens: every layer keeps T x (3h + ffn) x 2 B = 8,192 x 23,296 x 2 = 381,681,664 B of
    // quantized linears' inputs (kept-inputs.ts), 32 layers: 11.4 GiB. Reentrant checkpointing or bitsandbytes 0.43.2
    // drops them (23.4 GiB on the device -> 11.5 GiB), and neither changes the training result.
    const s = setupFor('meta-llama/Llama-2-7b-hf', {
      method: 'qlora',
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      quantization: { bits: 4, type: 'nf4', double_quant: true },
      lora: { r: 16, target_modules: 'all-linear' },
      micro_batch_size: 4,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      checkpoint_reentrant: false,
      bitsandbytes_version: '0.43.1',
    });
    const r = advise(s, { gpu: { id: '16 GiB', memoryBytes: 16 * 2 ** 30, source: 'test' } });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    // Both fixes leave the same memory, so the list keeps one of them (distinct trade-offs): the upgrade comes first.
    assert.deepEqual(r.items[0].changes, [{ key: 'bitsandbytes_version', value: '0.43.2' }]);
    assert.ok(r.items[0].fits && !r.items[0].changesResult);
    // LLM.int8 keeps its inputs in every release: there, reentrant checkpointing is the fix.
    const int8 = advise(
      { ...s, quantization: { ...s.quantization!, bits: 8, type: 'int8' } },
      { gpu: { id: '16 GiB', memoryBytes: 16 * 2 ** 30, source: 'test' } },
    );
    assert.ok(int8 && !int8.current.fits);
    assert.deepEqual(int8.items[0].changes, [{ key: 'checkpoint_reentrant', value: true }]);
    assert.ok(int8.items[0].fits && !int8.items[0].changesResult);
  });

  it('FSDP1 sharded checkpoints with Accelerate 0.28: FULL_STATE_DICT or Accelerate 0.31 fits, at no step-time cost', () => {
    // Llama-2-7B LoRA over two GPUs: the save clones this rank's shard of every parameter (6.75B params x 2 B / 2,
    // terms/checkpoint-save.ts, test/unit/terms/checkpoint-save.test.ts) beside the 6.3 GiB of sharded weights, so the
    // save (13.2 GiB allocated) is the run's peak; the training step alone needs about 7.8 GiB.
    const s = setupFor('meta-llama/Llama-2-7b-hf', FSDP1_SHARDED_SAVE);
    const g = { id: '12 GiB', memoryBytes: 12 * 2 ** 30, source: 'test' };
    const r = advise(s, { gpu: g });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    assert.equal(r.current.perGpu.phase, 'checkpoint-save');
    const first = r.items[0];
    assert.deepEqual(first.changes, [{ key: 'fsdp_state_dict_type', value: 'full' }]);
    assert.ok(first.fits && Math.abs(first.stepTimeFactor - 1) < 1e-9 && !first.changesResult);
    assert.notEqual(first.estimate.perGpu.phase, 'checkpoint-save');
    // The upgrade leaves the same memory (the list keeps one of two equal items); each is a single change of its own.
    const singles = singleChanges(s, { gpu: g });
    const full = singles.find((i) => i.id === 'fsdp-full-state-dict');
    const upgrade = singles.find((i) => i.id === 'accelerate-shards-to-cpu');
    assert.ok(full && upgrade && full.fits && upgrade.fits);
    assert.deepEqual(upgrade.changes, [{ key: 'accelerate_version', value: '0.31' }]);
    assert.equal(upgrade.estimate.perGpu.deviceBytes, full.estimate.perGpu.deviceBytes);
    // A run that saves no checkpoints, or an Accelerate that builds them on the host, is offered neither.
    for (const other of [{ saves_checkpoints: false }, { accelerate_version: '1.15' }]) {
      const ids = singleChanges({ ...s, ...other }, { gpu: g }).map((i) => i.id);
      assert.ok(!ids.includes('fsdp-full-state-dict') && !ids.includes('accelerate-shards-to-cpu'), ids.join(' '));
    }
  });

  it("FSDP under the HF Trainer's no_sync: reducing every micro-batch leads the advice, and more GPUs come with it", () => {
    // Llama-3.1-8B full fine-tune, FSDP over 8 GPUs, 4 micro-batches: no_sync keeps 8.03B x 2 B = 16.1 GB of
    // unsharded gradients on every GPU (terms/gradients.ts), which no GPU count shrinks.
    const s = llama31FsdpAccum({ fsdp_no_sync: true });
    const g24 = { id: '24 GiB', memoryBytes: 24 * 2 ** 30, source: 'test' };
    const r = advise(s, { gpu: g24 });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    assert.deepEqual(r.items[0].changes, [{ key: 'fsdp_no_sync', value: false }]);
    assert.ok(r.items[0].fits && !r.items[0].changesResult);
    // At least the unsharded bf16 gradients less the fp32 shards that are kept between micro-batches instead.
    assert.ok(r.items[0].savedBytes >= 8_030_261_248 * 2 - (8_030_261_248 * 4) / 8);
    // With every micro-batch reduced the 8 GPUs it has are enough.
    assert.equal(r.gpusNeeded, 8);
  });

  it('QLoRA with the fp32 upcast of prepare_model_for_kbit_training on 12 GB: dropping the upcast leads the advice', () => {
    const g = gpu('RTX-3060-12GB');
    const base = {
      method: 'qlora',
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      quantization: { bits: 4, type: 'nf4', double_quant: true },
      lora: { r: 16, target_modules: 'all-linear' },
      gradient_checkpointing: 'full',
      seq_len: 2048,
      micro_batch_size: 1,
    } as const;
    const s = setupFor('meta-llama/Meta-Llama-3-8B', { ...base, kbit_upcast: 'all' });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    // The upcast costs 2 x 128,256 x 4096 x 2 B (fp32 embeddings and head) + 128,256 x 4096 x 2 B (the head's bf16
    // copy) + 32 x 2048 x 4096 x 2 B (fp32 checkpointed layer inputs) + 65 x 4096 x 2 B (fp32 norms) = 3.44 GiB
    // allocated at the peak; without it the run fits.
    const none = estimate(setupFor('meta-llama/Meta-Llama-3-8B', base), { gpu: g });
    assert.ok(none.ok);
    assert.equal(none.estimate.fits, true);
    assert.equal(
      r.current.perGpu.peakBytes - none.estimate.perGpu.peakBytes,
      3 * 128_256 * 4096 * 2 + 32 * 2048 * 4096 * 2 + 65 * 4096 * 2,
    );
    const first = r.items[0];
    assert.ok(
      first.changes.some((c) => c.key === 'kbit_upcast' && c.value === 'none'),
      first.title,
    );
    assert.equal(first.changesResult, false);
  });

  it('Qwen3.5-9B LoRA without checkpointing on the torch fallback: installing the Gated DeltaNet kernels is offered', () => {
    // 4,096 tokens without checkpointing: the torch fallback keeps its fp32 chunk products in all 24 linear layers
    // (tools/activations/gated_deltanet.py), several times what fla keeps; with the kernels alone the run fits.
    const g = gpu('H100-80GB');
    const base = {
      method: 'lora',
      lora: { r: 16, target_modules: 'all-linear' },
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 1,
      seq_len: 4096,
      gradient_checkpointing: 'none',
      attention: 'flash',
    } as const;
    const s = setupFor('Qwen/Qwen3.5-9B', { ...base, linear_attention_kernels: 'torch' });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    const fla = estimate(setupFor('Qwen/Qwen3.5-9B', { ...base, linear_attention_kernels: 'fla' }), { gpu: g });
    assert.ok(fla.ok);
    assert.equal(fla.estimate.fits, true);
    // The kernels lead the advice (paired with the fused loss, which costs nothing either).
    const first = r.items[0];
    assert.ok(
      first.changes.some((c) => c.key === 'linear_attention_kernels' && c.value === 'fla'),
      first.title,
    );
    assert.equal(first.changesResult, false);
  });

  it('70B full fine-tune with ZeRO-3 on 8 x 80 GB does not fit as is; the advice moves the optimizer state off the GPU (paged, or offloaded)', () => {
    const g = gpu('A100-80GB');
    const s = setupFor('meta-llama/Llama-3.1-70B', {
      weights_dtype: 'bf16',
      master_weights: true,
      optimizer: 'adamw_fused',
      gpus_per_node: 8,
      zero_stage: 3,
      micro_batch_size: 1,
      seq_len: 4096,
      gradient_checkpointing: 'full',
      attention: 'flash',
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.equal(r.current.fits, false, `current ${(r.current.perGpu.deviceBytes / 2 ** 30).toFixed(1)} GiB`);
    const noResultChange = r.items.filter((i) => !i.changesResult);
    assert.ok(noResultChange.length > 0);
    // Paged 8-bit AdamW (its state partly in host RAM, paged at each step) is cheaper than CPU offload with its CPU Adam
    // step; both are offered, neither is free.
    const best = noResultChange[0];
    assert.ok(
      best.changes.some(
        (c) =>
          (c.key === 'optimizer' && c.value === 'paged_adamw_8bit') ||
          (c.key === 'offload_optimizer' && c.value === 'cpu'),
      ),
      `best: ${best.title}`,
    );
    assert.ok(best.stepTimeFactor > 1, 'moving the state off the GPU is not free');
    assert.ok(noResultChange.some((i) => i.changes.some((c) => c.key === 'offload_optimizer' && c.value === 'cpu')));
  });

  it('items are sorted: result-preserving first, then by step time', () => {
    const g = gpu('A100-40GB');
    const r = advise(
      setupFor('meta-llama/Llama-3.2-3B', { weights_dtype: 'bf16', micro_batch_size: 8, seq_len: 4096 }),
      { gpu: g, gpuSpec: g.spec },
    );
    assert.ok(r);
    for (let i = 1; i < r.items.length; i++) {
      const a = r.items[i - 1];
      const b = r.items[i];
      assert.ok(
        Number(a.changesResult) < Number(b.changesResult) ||
          (a.changesResult === b.changesResult &&
            (a.gpus < b.gpus || (a.gpus === b.gpus && a.stepTimeFactor <= b.stepTimeFactor + 1e-12))),
      );
    }
  });

  it('finds the largest micro-batch and sequence length that fit', () => {
    const g = gpu('A100-80GB');
    const s = setupFor('meta-llama/Llama-3.2-3B', {
      weights_dtype: 'bf16',
      method: 'lora',
      lora: { r: 16 },
      micro_batch_size: 1,
      seq_len: 2048,
      gradient_checkpointing: 'full',
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r?.maxMicroBatch && r.maxMicroBatch > 1);
    const { estimate } = require('../../src/core/estimate') as typeof import('../../src/core/estimate');
    const at = estimate({ ...s, micro_batch_size: r.maxMicroBatch }, { gpu: g });
    const above = estimate({ ...s, micro_batch_size: r.maxMicroBatch + 1 }, { gpu: g });
    assert.ok(at.ok && at.estimate.fits === true);
    assert.ok(above.ok && above.estimate.fits === false);
    assert.ok(r.maxSeqLen && r.maxSeqLen >= 2048);
  });
});

describe('advice for GRPO', () => {
  it('puts the colocated vLLM engine to sleep first; dropping the KL term is marked as changing the result', () => {
    // Qwen2.5-7B full fine-tune in bf16, 32 completions of 1,024 tokens per round, vLLM colocated at 0.3 of an 80 GiB
    // GPU (24 GiB in every phase) and a frozen reference copy (beta > 0): about 111 GiB, far over 80.
    const s = setupFor('Qwen/Qwen2.5-7B-Instruct', {
      method: 'full',
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 8,
      gradient_accumulation_steps: 4,
      seq_len: 1536,
      gradient_checkpointing: 'full',
      rollout: { batch: 32, completion_len: 1024, engine: 'vllm-colocate', reference: 'copy', old_logps: true },
    });
    const g = { id: 'A100-80GB', memoryBytes: 80 * 2 ** 30, source: 'test' };
    const r = advise(s, { gpu: g });
    assert.ok(r && r.current.fits === false);
    // Paged 8-bit AdamW fits too, its state partly in host RAM (paged in and out at each step, priced over PCIe);
    // among the changes that keep everything on the GPU, sleeping the engine comes first.
    const resident = r.items.filter((x) => x.estimate.perGpu.pagedToHostBytes === undefined);
    assert.ok(resident[0].id.split('+').includes('vllm-sleep'), resident[0].id);
    assert.ok(
      r.items.filter((x) => x.estimate.perGpu.pagedToHostBytes !== undefined).every((x) => x.stepTimeFactor > 1),
    );
    // Sleeping frees the 24 GiB share outside the generation phase.
    const sleep = estimate({ ...s, rollout: { ...s.rollout!, vllm_sleep: true } }, { gpu: g });
    assert.ok(sleep.ok);
    // (less the generation phase's excess over the training peak, which now sets the peak with the share in it)
    const genExcess =
      phase(sleep.estimate, 'generation').allocatedBytes -
      0.3 * 80 * 2 ** 30 -
      Math.max(...sleep.estimate.perGpu.phases.filter((p) => p.phase !== 'generation').map((p) => p.allocatedBytes));
    assert.equal(
      r.current.perGpu.peakBytes - sleep.estimate.perGpu.peakBytes,
      0.3 * 80 * 2 ** 30 - Math.max(0, 0.3 * 80 * 2 ** 30 + genExcess),
    );
    const kl = advise(s, { gpu: g, maxCombination: 1 });
    const k = kl?.items.find((x) => x.id === 'kl-off');
    assert.ok(!k || k.changesResult);
  });
});

describe('step time', () => {
  it('full checkpointing costs one more forward: 8/6 of the compute', () => {
    const s = setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', seq_len: 4096 });
    const a = stepTime(s, 6.7e9);
    const b = stepTime({ ...s, gradient_checkpointing: 'full' }, 6.7e9);
    assert.ok(Math.abs(b.computeSeconds / a.computeSeconds - 8 / 6) < 1e-9);
  });
  it('small micro-batches run less efficiently: T / (T + 256)', () => {
    assert.equal(tokenEfficiency(256), 0.5);
    assert.ok(tokenEfficiency(8192) > 0.96);
  });
  it('GRPO generation: decoding reads every weight and the cache so far once per token, at HBM bandwidth', () => {
    // Llama-2-7B bf16, 8 sequences of a 256-token prompt + 256 generated tokens, one round per optimizer step, on the
    // default GPU (A100: 2,039 GB/s, 312 TFLOPS bf16). Per token: 6,738,415,616 x 2 B of weights + the cache of 8 x
    // (256 + 128) tokens on average x 524,288 B (32 layers x 2 x 32 heads x 128 x 2 B) = 15.087 GB; x 256 tokens
    // / 2,039 GB/s = 1.894 s. The prefill is a forward over 8 x 256 tokens at 40 % MFU.
    const s = setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', micro_batch_size: 8, seq_len: 512 });
    const a = stepTime(s, 6.7e9);
    const b = stepTime(
      {
        ...s,
        rollout: {
          objective: 'policy-gradient',
          batch: 8,
          completion_len: 256,
          engine: 'generate',
          vllm_memory_fraction: 0.3,
          vllm_sleep: false,
          vllm_shared_weights: false,
          vllm_memory_of: 'total',
          logps: 'trl',
          reference: 'none',
          old_logps: false,
          gather_weights: true,
          reward_models: [],
          vllm_tensor_parallel: 1,
        },
      },
      6.7e9,
    );
    const decode = (256 * (6_738_415_616 * 2 + 8 * 384 * 524_288)) / 2039e9;
    const fwd = 2 * 6_738_415_616 + 4 * 32 * 512 * 32 * 128;
    const prefill = (fwd * 8 * 256) / (312e12 * 0.4 * tokenEfficiency(2048));
    assert.ok(Math.abs(decode - 1.894) < 0.001);
    assert.ok(Math.abs(b.seconds - a.seconds - (decode + prefill)) < 1e-9);
  });
  it('optimizer offload adds PCIe traffic and CPU Adam time', () => {
    const s = setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', zero_stage: 2 });
    const a = stepTime(s, 6.7e9);
    const b = stepTime({ ...s, offload_optimizer: 'cpu' }, 6.7e9);
    assert.ok(b.offloadSeconds > 0 && b.seconds > a.seconds);
  });
  it('FSDP CPU offload streams the parameter shards too, whichever key asked for it', () => {
    // FSDP's CPUOffload(offload_params=True) is its only offload: offload_optimizer alone moves the parameters as well.
    const s = setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', fsdp: 'full_shard', gpus_per_node: 2 });
    const opt = stepTime({ ...s, offload_optimizer: 'cpu' }, 6.7e9);
    const both = stepTime({ ...s, offload_optimizer: 'cpu', offload_params: 'cpu' }, 6.7e9);
    assert.equal(opt.offloadSeconds, both.offloadSeconds);
    assert.ok(opt.explain.some((l) => l.startsWith('parameter offload')));
  });
});

describe('advice lists distinct trade-offs', () => {
  it('no two items with the same GPUs, result change and number of changes tie within 2 % of step time and 2 % of the GPU', () => {
    // Qwen3-4B full fine-tune on one RTX 4090 (LLaMA-Factory qwen3_full_sft without its DeepSpeed file): 8-bit AdamW and
    // its paged variant, or FlashAttention-2 beside SDPA, made items that differed by nothing the model can tell.
    const g = gpu('RTX-4090');
    const s = setupFor('Qwen/Qwen3-4B-Instruct-2507', {
      weights_dtype: 'bf16',
      micro_batch_size: 1,
      gradient_accumulation_steps: 2,
      seq_len: 2048,
      gradient_checkpointing: 'full',
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r && r.items.length > 3);
    const eps = 0.02 * g.memoryBytes;
    for (const [i, a] of r.items.entries()) {
      for (const b of r.items.slice(i + 1)) {
        if (a.gpus !== b.gpus || a.changesResult !== b.changesResult || a.changes.length !== b.changes.length) continue;
        const tie =
          Math.abs(a.stepTimeFactor - b.stepTimeFactor) <= 0.02 &&
          Math.abs(a.estimate.perGpu.deviceBytes - b.estimate.perGpu.deviceBytes) <= eps;
        assert.ok(!tie, `${a.title} ~ ${b.title}`);
      }
    }
  });
});

describe('advice: one setup, one item, by its shortest chain of moves', () => {
  it('Llama-3.1-8B full with ZeRO-3 on 8 A100s: offloading parameters is not also listed behind "ZeRO-3 with the optimizer offloaded"', () => {
    // examples/llama3-8b-zero3.vram.yaml. Both chains reach ZeRO-3 with parameters and optimizer on the host; the
    // search met the three-move chain first, which used to be the one shown.
    const g = gpu('A100-80GB');
    const s = setupFor('meta-llama/Llama-3.1-8B', {
      method: 'full',
      weights_dtype: 'bf16',
      master_weights: true,
      optimizer: 'adamw_fused',
      micro_batch_size: 2,
      gradient_accumulation_steps: 8,
      seq_len: 4096,
      gradient_checkpointing: 'full',
      attention: 'flash',
      gpus_per_node: 8,
      zero_stage: 3,
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.ok(
      r.items.some((i) => i.id === 'chunked-loss+offload-params'),
      r.items.map((i) => i.id).join(' | '),
    );
    assert.ok(
      !r.items.some((i) => i.id.includes('zero3-offload-opt') && i.id.includes('offload-params')),
      r.items.map((i) => i.id).join(' | '),
    );
  });
});

describe('advice: moves that change one setting the others do not see', () => {
  it('a batch of 1 for the evaluation is an item of its own when the evaluation sets the peak', () => {
    // Llama-3-8B LoRA, 2,048 tokens, eval batch 32 on an RTX 4090: the evaluation's logits (32 x 2048 x 128,256) peak.
    // (At 4,096 tokens the training step's own loss no longer fits beside the 16-bit logits' cached block.)
    const g = gpu('RTX-4090');
    const r = advise(
      setupFor('meta-llama/Meta-Llama-3-8B', {
        method: 'lora',
        weights_dtype: 'bf16',
        seq_len: 2048,
        eval_batch_size: 32,
        gradient_checkpointing: 'full',
        attention: 'flash',
      }),
      { gpu: g, gpuSpec: g.spec },
    );
    assert.ok(r);
    assert.equal(r.current.perGpu.phase, 'evaluation');
    assert.deepEqual(r.items[0]?.changes, [{ key: 'eval_batch_size', value: 1 }]);
  });
  it('a tiled MLP at 131,072 tokens: fits on one H100, one more MLP forward per step', () => {
    const g = gpu('H100-80GB');
    const r = advise(
      setupFor('meta-llama/Llama-3.1-8B', {
        method: 'lora',
        weights_dtype: 'bf16',
        seq_len: 131072,
        gradient_checkpointing: 'full',
        attention: 'flash',
        loss: 'fused',
      }),
      { gpu: g, gpuSpec: g.spec },
    );
    assert.ok(r);
    const tiled = r.items.find((i) => i.id === 'tiled-mlp');
    assert.ok(tiled && tiled.fits && tiled.stepTimeFactor > 1 && tiled.stepTimeFactor < 1.1, tiled?.title);
    assert.deepEqual(tiled.changes, [{ key: 'tiled_mlp', value: true }]);
  });
});

describe('advice under FSDP', () => {
  // GLM-4.5-Air LoRA over 2 H100s with FSDP: the weights alone are 99.5 GiB per GPU.
  const s = setupFor('zai-org/GLM-4.5-Air', {
    method: 'lora',
    weights_dtype: 'bf16',
    seq_len: 4096,
    gradient_checkpointing: 'full',
    attention: 'flash',
    gpus_per_node: 2,
    fsdp: 'full_shard',
  });
  const g = gpu('H100-80GB');
  const found = advise(s, { gpu: g, gpuSpec: g.spec });
  assert.ok(found);
  const r = found;
  it("names FSDP's CPU offload for what it is, and charges its parameter traffic", () => {
    const off = r.items.find((i) => i.changes.length === 1 && i.changes[0].key === 'offload_optimizer');
    assert.ok(off);
    assert.match(off.title, /^FSDP CPU offload/);
    assert.ok(off.stepTimeFactor > 1.5, `step time x${off.stepTimeFactor}`);
  });
  it('never chains an FSDP mode with the switch to DeepSpeed ZeRO-3 NVMe offload that undoes it', () => {
    for (const i of r.items)
      assert.ok(!(/FSDP (FULL_SHARD|SHARD_GRAD_OP|HYBRID_SHARD)/.test(i.title) && /NVMe/.test(i.title)), i.title);
    assert.ok(r.items.filter((i) => /NVMe/.test(i.title)).every((i) => /Switch to DeepSpeed ZeRO-3/.test(i.title)));
  });
});

describe('advice under FSDP: lower bounds first, the step replay where they cannot decide', () => {
  // Llama-3.1-8B full fine-tune, fp32 weights under bf16 autocast, FSDP2 over 8 RTX 4090s, 2 x 4,096 tokens without
  // checkpointing: does not fit (the activations alone are about 29 GiB per GPU).
  const g = gpu('RTX-4090');
  const s = setupFor('meta-llama/Llama-3.1-8B', {
    weights_dtype: 'fp32',
    mixed_precision: 'bf16',
    micro_batch_size: 2,
    seq_len: 4096,
    gpus_per_node: 8,
    fsdp: 'full_shard',
    fsdp_version: 2,
  });

  it("an FSDP2 run's bounds: the peak allocated is exact, reserved and device bytes are the flat terms' (no more than the replay's)", () => {
    // With checkpointing at 1,024 tokens one sequence fits (the bounds do not rule it out before its replay).
    const fitting = { ...s, gradient_checkpointing: 'full' as const, micro_batch_size: 1, seq_len: 1024 };
    const low = estimate(fitting, { gpu: g, lean: true, reservedLowerBound: true });
    const full = estimate(fitting, { gpu: g, lean: true });
    assert.ok(low.ok && full.ok);
    assert.equal(low.estimate.perGpu.reservedLowerBound, true);
    assert.equal(full.estimate.perGpu.reservedLowerBound, undefined);
    assert.equal(low.estimate.perGpu.peakBytes, full.estimate.perGpu.peakBytes);
    // FSDP2's replay only raises the flat terms (the allocator reserve, the stream pools), so they are the bound: the
    // peak allocated and 1.13 GB more here, below the replay's figure.
    assert.equal(low.estimate.perGpu.reservedBytes - low.estimate.perGpu.peakBytes, 1_132_425_830);
    assert.ok(low.estimate.perGpu.reservedBytes <= full.estimate.perGpu.reservedBytes);
    assert.ok(low.estimate.perGpu.deviceBytes <= full.estimate.perGpu.deviceBytes);
    // The closer bound: the replay's first micro-batch, before AdamW's state exists, flagged, between the two (a setup
    // not replayed yet: 1,032 tokens); once the whole replay is known, its exact figures, unflagged.
    const fresh = { ...fitting, seq_len: 1032 };
    const first = estimate(fresh, { gpu: g, lean: true, reservedLowerBound: 'first-micro-batch' });
    const freshLow = estimate(fresh, { gpu: g, lean: true, reservedLowerBound: true });
    const whole = estimate(fresh, { gpu: g, lean: true });
    assert.ok(first.ok && freshLow.ok && whole.ok);
    assert.equal(first.estimate.perGpu.reservedLowerBound, true);
    assert.equal(first.estimate.perGpu.peakBytes, whole.estimate.perGpu.peakBytes);
    assert.ok(first.estimate.perGpu.reservedBytes >= freshLow.estimate.perGpu.reservedBytes);
    assert.ok(first.estimate.perGpu.reservedBytes < whole.estimate.perGpu.reservedBytes);
    const again = estimate(fresh, { gpu: g, lean: true, reservedLowerBound: 'first-micro-batch' });
    assert.ok(again.ok);
    assert.equal(again.estimate.perGpu.reservedLowerBound, undefined);
    assert.equal(again.estimate.perGpu.deviceBytes, whole.estimate.perGpu.deviceBytes);
  });

  it('the two-step replay is skipped too (its bound is the peak); a run with no replay is estimated in full', () => {
    const single = setupFor('meta-llama/Llama-3.2-1B', { weights_dtype: 'bf16', seq_len: 2048 });
    const low = estimate(single, { gpu: g, lean: true, reservedLowerBound: true });
    const full = estimate(single, { gpu: g, lean: true });
    assert.ok(low.ok && full.ok);
    assert.equal(low.estimate.perGpu.reservedLowerBound, true);
    assert.equal(low.estimate.perGpu.peakBytes, full.estimate.perGpu.peakBytes);
    assert.equal(low.estimate.perGpu.reservedBytes, low.estimate.perGpu.peakBytes);
    assert.ok(low.estimate.perGpu.reservedBytes <= full.estimate.perGpu.reservedBytes);
    // QLoRA's reserved bytes come from the flat terms, which no replay stands for.
    const qlora = { ...single, method: 'qlora' as const, quantization: { bits: 4 as const } };
    const qLow = estimate(TrainingSetupSchema.parse(qlora), { gpu: g, lean: true, reservedLowerBound: true });
    const qFull = estimate(TrainingSetupSchema.parse(qlora), { gpu: g, lean: true });
    assert.ok(qLow.ok && qFull.ok);
    assert.equal(qLow.estimate.perGpu.reservedLowerBound, undefined);
    assert.equal(qLow.estimate.perGpu.deviceBytes, qFull.estimate.perGpu.deviceBytes);
  });

  it('a run whose states with its activations, or whose states alone, exceed the GPU is bounded there: no more than the full estimate', () => {
    // QLoRA at 64 x 4,096 tokens: the activations its forward saves are past the card's 24 GiB, so the lean bounds stop
    // at the model states and those activations (the forward holds both at its end), before the rest is worked out.
    const single = setupFor('meta-llama/Llama-3.2-1B', { weights_dtype: 'bf16', seq_len: 2048 });
    const qlora = TrainingSetupSchema.parse({
      ...single,
      method: 'qlora',
      quantization: { bits: 4 },
      micro_batch_size: 64,
      seq_len: 4096,
    });
    const qLow = estimate(qlora, { gpu: g, lean: true, reservedLowerBound: true });
    const qFull = estimate(qlora, { gpu: g, lean: true });
    assert.ok(qLow.ok && qFull.ok);
    assert.equal(qLow.estimate.perGpu.reservedLowerBound, true);
    assert.equal(qLow.estimate.fits, false);
    assert.equal(qFull.estimate.fits, false);
    const [phase] = qLow.estimate.perGpu.phases;
    assert.equal(qLow.estimate.perGpu.phases.length, 1);
    const activations = phase.components.find((c) => c.id === 'activations');
    assert.ok(activations && activations.bytes > 24 * 2 ** 30, `${activations?.bytes}`);
    assert.ok(qLow.estimate.perGpu.peakBytes < qFull.estimate.perGpu.peakBytes);
    assert.ok(qLow.estimate.perGpu.deviceBytes <= qFull.estimate.perGpu.deviceBytes);
    // The forward of the full lean estimate holds what the bound counts.
    const forward = qFull.estimate.perGpu.phases.find((p) => p.phase === 'forward');
    assert.ok(forward && forward.allocatedBytes >= qLow.estimate.perGpu.peakBytes);
    // Llama-2-7B full in bf16 on one card: 6.74e9 x (2 B weights + 2 x 2 B AdamW states) = 37.7 GiB before any
    // activation. The bound is that one phase of model states.
    const big = setupFor('meta-llama/Llama-2-7b-hf', { weights_dtype: 'bf16', seq_len: 2048 });
    const low = estimate(big, { gpu: g, lean: true, reservedLowerBound: true });
    const full = estimate(big, { gpu: g, lean: true });
    assert.ok(low.ok && full.ok);
    assert.equal(low.estimate.perGpu.reservedLowerBound, true);
    assert.equal(low.estimate.fits, false);
    assert.equal(low.estimate.perGpu.phases.length, 1);
    assert.equal(low.estimate.perGpu.peakBytes, 6 * low.estimate.parameters.total);
    assert.ok(low.estimate.perGpu.peakBytes < full.estimate.perGpu.peakBytes);
    assert.ok(low.estimate.perGpu.deviceBytes <= full.estimate.perGpu.deviceBytes);
  });

  it('the largest micro-batch that fits is the one the full estimate says fits, one more does not', () => {
    // With checkpointing at 1,024 tokens one sequence fits (23.5 GiB of the card's 24) and four do not (26.5 GiB).
    const ckpt = { ...s, gradient_checkpointing: 'full' as const, micro_batch_size: 1, seq_len: 1024 };
    const r = advise(ckpt, { gpu: g, gpuSpec: g.spec });
    assert.ok(r?.maxMicroBatch, `${r?.maxMicroBatch}`);
    const at = estimate({ ...ckpt, micro_batch_size: r.maxMicroBatch }, { gpu: g });
    const above = estimate({ ...ckpt, micro_batch_size: r.maxMicroBatch + 1 }, { gpu: g });
    assert.ok(at.ok && at.estimate.fits === true);
    assert.ok(above.ok && above.estimate.fits === false);
    assert.equal(fitsOnGpu({ ...ckpt, micro_batch_size: r.maxMicroBatch + 1 }, { gpu: g }), false);
  });

  it('every item the search keeps fits and saves memory in the full estimate', () => {
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r && r.items.length > 0);
    for (const i of r.items.filter((x) => x.gpus === 8)) assert.ok(i.fits && i.savedBytes > 0, i.title);
  });
});

describe('advice: the Pareto front', () => {
  const light = (deviceGiB: number, stepTimeFactor: number): Light => ({
    applied: { setup: setupFor('meta-llama/Llama-3.2-1B') },
    deviceBytes: deviceGiB * 2 ** 30,
    stepTimeFactor,
    changesResult: false,
    gpus: 1,
    nChanges: 1,
    nMoves: 1,
    order: 0,
  });

  it('rejects what add would leave out, and still does at more memory or a slower step', () => {
    // On an 80 GiB GPU the memory tolerance is 2 % of it: 1.6 GiB.
    const front = new ParetoFront(80 * 2 ** 30);
    front.add(light(40, 1.0));
    assert.equal(front.rejects(light(45, 1.1)), true);
    assert.equal(front.rejects(light(50, 1.3)), true);
    assert.equal(front.rejects(light(30, 1.1)), false, 'saves 10 GiB more: a trade-off of its own');
    assert.equal(front.rejects(light(45, 0.9)), false, 'faster: a trade-off of its own');
  });

  it('of two candidates that tie, keeps the earlier of the enumeration whichever comes first', () => {
    // The search replays FSDP candidates fastest first, not in the enumeration's order: the item kept must not
    // depend on that. 40 and 40.5 GiB at steps 1.00 and 1.01 tie (within 1.6 GiB and 2 % of the step).
    for (const [first, second] of [
      [7, 3],
      [3, 7],
    ]) {
      const front = new ParetoFront(80 * 2 ** 30);
      front.add({ ...light(40, 1.0), order: first });
      front.add({ ...light(40.5, 1.01), order: second });
      assert.deepEqual(
        front.front().map((c) => c.order),
        [3],
      );
    }
  });
});

describe('advice: bitsandbytes 8-bit layers cannot be sharded', () => {
  it('no candidate shards an int8 model (ZeRO-3, FSDP, parameter offload, more GPUs), and the estimate warns at FSDP', () => {
    // FSDP refuses integer parameters (accelerate#1415, bitsandbytes#1709) and ZeRO-3 cannot partition Int8Params
    // (bitsandbytes#89): only ZeRO-1/2, smaller batches, shorter sequences or a 4-bit base remain.
    const g = gpu('RTX-3060-12GB');
    const s = setupFor('meta-llama/Llama-2-7b-hf', {
      method: 'lora',
      quantization: { bits: 8, type: 'int8' },
      lora: { r: 16, target_modules: 'all-linear' },
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      gradient_checkpointing: 'full',
      micro_batch_size: 4,
      seq_len: 2048,
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    for (const it of r.items) {
      const keys = it.changes.map((c) => `${String(c.key)}=${JSON.stringify(c.value)}`).join(' ');
      const stillInt8 = !/quantization=/.test(keys) && !/method="qlora"/.test(keys);
      if (stillInt8)
        assert.ok(!/zero_stage=3|fsdp=|offload_params=/.test(keys), `shards an 8-bit model: ${it.title} (${keys})`);
    }
    assert.equal(r.gpusNeeded, undefined);
    const fsdp = estimate({ ...s, gpus_per_node: 2, fsdp: 'full_shard' }, { gpu: g });
    assert.ok(fsdp.ok);
    assert.match(
      fsdp.estimate.warnings.find((w) => w.key === 'fsdp')?.message ?? '',
      /8-bit layers cannot be sharded by FSDP/,
    );
  });
});

describe('advice: fused MoE experts left in 16 bits', () => {
  it('GLM-4.5-Air QLoRA on one H100: quantizing the experts (Axolotl quantize_moe_experts) leads, and it fits', () => {
    // transformers 5 keeps the 45 x 128 experts as 3-D bf16 parameters under load_in_4bit (about 180 GiB); quantized
    // to NF4 they take a quarter, with one layer's experts dequantized at a time.
    const g = gpu('H100-80GB');
    const s = setupFor('zai-org/GLM-4.5-Air', {
      method: 'qlora',
      quantization: { bits: 4, type: 'nf4', double_quant: true },
      lora: { r: 16, target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 2,
      seq_len: 2048,
      gradient_checkpointing: 'full',
      attention: 'flash',
      loss: 'fused',
    });
    const r = advise(s, { gpu: g, gpuSpec: g.spec });
    assert.ok(r);
    assert.equal(r.current.fits, false);
    assert.equal(r.items[0].id, 'quantize-experts');
    assert.ok(r.items[0].fits && r.items[0].gpus === 1 && !r.items[0].changesResult);
    assert.deepEqual(
      r.items[0].changes.map((c) => c.key),
      ['quantization'],
    );
  });
});

describe('advice: a ZeRO change takes the settings of the DeepSpeed file its quick fix writes', () => {
  // Llama-3-8B full fine-tune in bf16, 1 x 4,096 tokens, checkpointed, on 4 x A100-40GB, from an Axolotl config that
  // names no DeepSpeed file. Its ZeRO-3 quick fix writes `deepspeed: deepspeed_configs/zero3_bf16.json`, whose
  // settings (analyzers/shipped-zero.ts, as Axolotl ships it) are "auto" buckets and no live-parameter limit; the
  // advice's ZeRO-3 item estimates that run, not one with DeepSpeed's defaults.
  const g = gpu('A100-40GB');
  const s = llama3ZeroFull({ micro_batch_size: 1, seq_len: 4096, gpus_per_node: 4 });
  const axolotl = (text: string) => analyzeAs('axolotl-yaml', text);
  const written = shippedZeroConfigFor(axolotl('base_model: meta-llama/Meta-Llama-3-8B\nbf16: true\n'), s);

  it("reads the shipped file for the stage and offload asked, and nothing for a file of the user's own", () => {
    assert.ok(written);
    assert.deepEqual(written(3, 'none', 'none'), {
      stage3_max_live_parameters: 0,
      stage3_max_reuse_distance: 0,
      sub_group_size: 0,
      reduce_bucket_size: 'auto',
      stage3_prefetch_bucket_size: 'auto',
      stage3_param_persistence_threshold: 'auto',
      overlap_comm: true,
      contiguous_gradients: true,
    });
    // Axolotl ships no ZeRO-3 file with only the optimizer offloaded: its fix is refused, the settings stay.
    assert.equal(written(3, 'cpu', 'none'), undefined);
    assert.equal(shippedZeroConfigFor(axolotl('base_model: x\ndeepspeed: my/ds.json\n'), s), undefined);
    assert.equal(shippedZeroConfigFor(analyzeAs('hf-yaml', 'bf16: true\n'), s), undefined);
  });

  it("the ZeRO-3 item is the estimate of the written file's run", () => {
    const r = advise(s, { gpu: g, gpuSpec: g.spec, zeroConfigFor: written });
    const z3 = r?.items.find((i) => i.id === 'zero3');
    assert.ok(z3, r?.items.map((i) => i.id).join(', '));
    const file = estimate({ ...s, zero_stage: 3, zero_buckets: written!(3, 'none', 'none') }, { gpu: g });
    assert.ok(file.ok);
    assert.equal(z3.estimate.perGpu.deviceBytes, file.estimate.perGpu.deviceBytes);
    // With DeepSpeed's defaults it would read 954 MiB of gradient bucket (5e8 x 2 B) where the file's "auto" makes
    // 4096² x 2 B = 33,554,432 B, and about 1e9 gathered elements where the file keeps one module.
    const defaults = estimate({ ...s, zero_stage: 3 }, { gpu: g });
    assert.ok(defaults.ok);
    assert.ok(defaults.estimate.perGpu.deviceBytes - z3.estimate.perGpu.deviceBytes > 2e9);
  });
});
