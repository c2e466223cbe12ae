// The lean estimate (numbers only, used by the advice search) must give exactly the same peak, reserved and device
// bytes, phase and fit as the full estimate with formulas, for any setup.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { estimate } from '../../src/core/estimate';
import { findModel } from '../../src/core/lookup';
import { TrainingSetupSchema } from '../../src/core/setup';

const models = [
  'meta-llama/Llama-2-7b-hf',
  'meta-llama/Meta-Llama-3-8B',
  'mistralai/Mixtral-8x7B-v0.1',
  'gpt2',
  'google-bert/bert-large-uncased',
  'Qwen/Qwen2.5-0.5B',
  't5-small',
  'google/gemma-2b',
  'moonshotai/Moonlight-16B-A3B',
  'Qwen/Qwen3-30B-A3B',
  'zai-org/GLM-4.5-Air',
].map((id) => {
  const m = findModel(id);
  assert.ok(m.ok, id);
  return m.model;
});

describe('lean estimate = full estimate (property, 2,000 setups)', () => {
  it('same peak, reserved, device, phase and fit; the lower bounds below both, the first micro-batch between', () => {
    fc.assert(
      fc.property(
        fc.record({
          model: fc.integer({ min: 0, max: models.length - 1 }),
          method: fc.constantFrom('full', 'lora', 'qlora', 'freeze'),
          weights: fc.constantFrom('fp32', 'bf16'),
          mixed: fc.constantFrom('none', 'bf16'),
          master: fc.boolean(),
          optimizer: fc.constantFrom(
            'adamw',
            'adamw_fused',
            'adamw_hf',
            'adamw_8bit',
            'paged_adamw_8bit',
            'adafactor',
            'sgd',
            'lion',
            'adam_mini',
            'muon',
            'adamw_4bit',
          ),
          micro: fc.integer({ min: 1, max: 16 }),
          ga: fc.integer({ min: 1, max: 8 }),
          seq: fc.constantFrom(128, 512, 2048, 4096),
          ck: fc.constantFrom('none', 'full', 'selective'),
          attention: fc.constantFrom('eager', 'sdpa', 'flash'),
          loss: fc.constantFrom('full', 'chunked', 'fused'),
          compile: fc.boolean(),
          gpus: fc.constantFrom(1, 2, 8),
          nodes: fc.constantFrom(1, 2),
          zero: fc.constantFrom(0, 1, 2, 3),
          fsdp: fc.constantFrom('none', 'none', 'full_shard', 'shard_grad_op', 'hybrid_shard'),
          fsdpVersion: fc.constantFrom(1, 2),
          prefetch: fc.constantFrom('pre', 'post', 'none'),
          offOpt: fc.constantFrom('none', 'none', 'cpu', 'nvme'),
          offParams: fc.constantFrom('none', 'none', 'cpu'),
          tp: fc.constantFrom(1, 1, 2),
          pp: fc.constantFrom(1, 1, 2),
          actOff: fc.boolean(),
          zeroGrad: fc.boolean(),
          optInBwd: fc.boolean(),
          gpuGiB: fc.constantFrom(16, 24, 40, 80),
          kbit: fc.constantFrom('none', 'norms', 'all'),
          evalBatch: fc.constantFrom(undefined, 1, 8),
          preference: fc.constantFrom(undefined, undefined, 'copy', 'adapters-off', 'precomputed', 'none'),
          logps: fc.constantFrom('rows', 'whole', 'native'),
          kernels: fc.constantFrom('pytorch', 'liger', 'unsloth'),
          rollout: fc.constantFrom(undefined, undefined, 'generate', 'vllm-colocate', 'vllm-server'),
          rolloutRef: fc.constantFrom('copy', 'adapters-off', 'none'),
          rolloutBatch: fc.integer({ min: 1, max: 64 }),
          rolloutObjective: fc.constantFrom('policy-gradient', 'online-dpo'),
          paired: fc.boolean(),
          chosenNll: fc.boolean(),
          valueHead: fc.boolean(),
          seqCls: fc.boolean(),
          labelSmoothing: fc.boolean(),
          sleep: fc.boolean(),
          shared: fc.boolean(),
          dora: fc.boolean(),
          galore: fc.constantFrom(undefined, undefined, 'all', 'attn', 'layerwise'),
          badam: fc.boolean(),
          oldLogps: fc.boolean(),
          cp: fc.constantFrom(1, 1, 2),
          ep: fc.constantFrom(1, 1, 2),
          distill: fc.boolean(),
          keepOutputs: fc.boolean(),
          useCache: fc.boolean(),
          oldBnb: fc.boolean(),
          // DeepSpeed 0.16.5 with the model made outside ZeRO-Init (terms/zero3-linear-kept.ts)
          oldZero: fc.boolean(),
          // reentrant checkpointing: under ZeRO-3 with frozen layers a current DeepSpeed keeps them gathered
          reentrant: fc.boolean(),
        }),
        (r) => {
          const m = models[r.model];
          const setup = TrainingSetupSchema.parse({
            architecture: m.config,
            parameters: m.publishedParams,
            method: r.method,
            lora:
              r.method === 'lora' || r.method === 'qlora'
                ? { r: 16, target_modules: 'all-linear', use_dora: r.dora }
                : undefined,
            quantization: r.method === 'qlora' ? { bits: 4 } : undefined,
            weights_dtype: r.weights,
            mixed_precision: r.mixed,
            master_weights: r.master,
            optimizer: r.optimizer,
            micro_batch_size: r.micro,
            gradient_accumulation_steps: r.ga,
            seq_len: r.seq,
            gradient_checkpointing: r.ck,
            attention: r.attention,
            loss: r.loss,
            compile: r.compile,
            gpus_per_node: r.gpus * r.tp * r.pp * r.cp,
            nodes: r.nodes,
            context_parallel: r.cp,
            expert_parallel: r.ep,
            distillation: r.distill ? { teacher_architecture: m.config } : undefined,
            zero_stage: r.zero,
            fsdp: r.fsdp,
            fsdp_version: r.fsdpVersion,
            fsdp_backward_prefetch: r.prefetch,
            offload_optimizer: r.offOpt,
            offload_params: r.offParams,
            tensor_parallel: r.tp,
            pipeline_parallel: r.pp,
            activation_offloading: r.actOff,
            zero_grad_set_to_none: r.zeroGrad,
            loop_keeps_outputs: r.keepOutputs,
            use_cache: r.useCache,
            ...(r.oldBnb ? { bitsandbytes_version: '0.42.0' } : {}),
            ...(r.oldZero ? { deepspeed_version: '0.16.5', zero3_init: false } : {}),
            checkpoint_reentrant: r.reentrant,
            optimizer_in_backward: r.optInBwd,
            kbit_upcast: r.kbit,
            eval_batch_size: r.evalBatch,
            preference:
              r.preference && !r.rollout
                ? {
                    reference: r.preference,
                    logps: r.logps,
                    paired: r.paired,
                    ...(r.chosenNll ? { chosen_nll: true } : {}),
                  }
                : undefined,
            kernels: r.kernels,
            ...(r.valueHead ? { value_head: true } : {}),
            ...(r.labelSmoothing ? { label_smoothing: true } : {}),
            ...(r.seqCls ? { head: 'seq_cls' as const, num_labels: 1 } : {}),
            badam: r.badam ? { mode: 'layer' } : undefined,
            galore: r.galore
              ? {
                  rank: 64,
                  target_modules: r.galore === 'attn' ? ['attn'] : 'all-linear',
                  layerwise: r.galore === 'layerwise',
                }
              : undefined,
            rollout: r.rollout
              ? {
                  objective: r.rolloutObjective,
                  batch: r.rolloutBatch,
                  completion_len: r.seq / 2,
                  engine: r.rollout,
                  reference: r.rolloutRef,
                  vllm_sleep: r.sleep,
                  vllm_shared_weights: r.shared,
                  old_logps: r.oldLogps,
                }
              : undefined,
          });
          const gpu = { id: 'test', memoryBytes: r.gpuGiB * 2 ** 30, source: 'test' };
          // Before any whole replay of the setup: where one is known, the first micro-batch's bounds are its figures.
          const first = estimate(setup, { gpu, lean: true, reservedLowerBound: 'first-micro-batch' });
          const full = estimate(setup, { gpu });
          const lean = estimate(setup, { gpu, lean: true });
          assert.equal(lean.ok, full.ok);
          if (!full.ok || !lean.ok) return;
          const pick = (e: typeof full.estimate) => [
            e.perGpu.peakBytes,
            e.perGpu.reservedBytes,
            e.perGpu.deviceBytes,
            e.perGpu.phase,
            e.fits,
            e.perGpu.stage,
          ];
          assert.deepEqual(pick(lean.estimate), pick(full.estimate));
          // The lower bounds the advice search judges candidates on first (model states, then with the activations
          // saved, then the peak allocated) never rule out a setup that fits, and never exceed the estimate.
          const bound = estimate(setup, { gpu, lean: true, reservedLowerBound: true });
          assert.ok(bound.ok);
          if (bound.estimate.fits === false && bound.estimate.perGpu.reservedLowerBound)
            assert.equal(lean.estimate.fits, false);
          assert.ok(bound.estimate.perGpu.deviceBytes <= lean.estimate.perGpu.deviceBytes);
          // The next bounds, where an FSDP replay runs its first micro-batch only: between the two, flagged where
          // they are bounds, the estimate itself where they are not.
          assert.ok(first.ok);
          const device = first.estimate.perGpu.deviceBytes;
          assert.ok(bound.estimate.perGpu.deviceBytes <= device, `${bound.estimate.perGpu.deviceBytes} > ${device}`);
          assert.ok(device <= lean.estimate.perGpu.deviceBytes, `${device} > ${lean.estimate.perGpu.deviceBytes}`);
          if (first.estimate.fits === false) assert.equal(lean.estimate.fits, false);
          if (!first.estimate.perGpu.reservedLowerBound) assert.deepEqual(pick(first.estimate), pick(lean.estimate));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
