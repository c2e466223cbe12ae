// Term: generation (src/core/terms/generation.ts, terms/kv-cache.ts): GRPO rollouts and online DPO, against numbers
// worked out by hand and profiled; each test names its source.
import * as assert from 'node:assert/strict';
import { estimate } from '../../../src/core/estimate';
import { lossMemory, noGradLayerBytes } from '../../../src/core/terms/activations';
import { findGpu, findModel } from '../../../src/core/lookup';
import { GiB } from '../../../src/core/units';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { component, near, phase, run, setupFor } from '../helpers';
import { archOf } from './helpers';

describe('estimate: GRPO rollouts', () => {
  // Qwen2.5-7B-Instruct: 28 layers, 4 kv heads of 128, vocab 152,064. LoRA r=16 on every linear layer, bf16 weights under
  // bf16 autocast, 8 sequences per micro-batch of a 512-token prompt and a 256-token completion, 4 micro-batches per
  // round (32 completions), checkpointing on.
  const V = 152_064;
  const kvPerToken = 28 * 2 * 4 * 128 * 2; // 57,344 B: keys and values of every layer, bf16
  const grpo = {
    method: 'lora' as const,
    lora: { r: 16, target_modules: 'all-linear' as const },
    weights_dtype: 'bf16' as const,
    mixed_precision: 'bf16' as const,
    micro_batch_size: 8,
    gradient_accumulation_steps: 4,
    seq_len: 768,
    gradient_checkpointing: 'full' as const,
    rollout: { batch: 32, completion_len: 256 },
  };
  const qwen = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof setupFor> =>
    setupFor('Qwen/Qwen2.5-7B-Instruct', { ...grpo, ...extra });

  it('vLLM engines: a colocated share too small for the weights and one sequence, a server whose default max_model_len does not fit', () => {
    const g = findGpu('RTX-4090');
    assert.ok(g.ok);
    const gpu = { gpu: g.gpu };
    // Colocated at 0.3 of the GPU: the 16-bit weights 7,615,616,512 x 2 B alone exceed the share. vLLM's profile run
    // (TRL: 4,096 tokens, 32 sequences) peaks in the forward: 4,096 x (6 x 18,944 + 8 x 3,584) bytes, above the sampler's
    // 32 x 152,064 logits x 32 B + 2 x 4,096 x 3,584.
    const colocated = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate' } }), gpu);
    const w = colocated.warnings.find((x) => x.key === 'rollout.vllm_memory_fraction');
    const need = 7_615_616_512 * 2 + kvPerToken * 768 + 4096 * (6 * 18_944 + 8 * 3584);
    assert.match(
      w?.message ?? '',
      new RegExp(`at least ${(Math.ceil((100 * need) / g.gpu.memoryBytes) / 100).toFixed(2)}`),
    );
    assert.ok(
      !run(
        qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_memory_fraction: 0.7 } }),
        gpu,
      ).warnings.some((x) => x.key === 'rollout.vllm_memory_fraction'),
    );
    // Split over 2 GPUs (vllm_tensor_parallel_size 2) each engine holds half the weights and half the 4 kv heads: 0.35
    // of a 24 GiB card (8.4 GiB) holds 7.1 GiB of weights and its cache.
    assert.ok(
      !run(
        qwen({
          rollout: {
            batch: 32,
            completion_len: 256,
            engine: 'vllm-colocate',
            vllm_memory_fraction: 0.35,
            vllm_tensor_parallel: 2,
          },
        }),
        gpu,
      ).warnings.some((x) => x.key === 'rollout.vllm_memory_fraction'),
    );
    assert.ok(
      run(
        qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_memory_fraction: 0.35 } }),
        gpu,
      ).warnings.some((x) => x.key === 'rollout.vllm_memory_fraction'),
    );
    // A server on one such GPU at 0.9 (21.6 GiB): vLLM's profile run with its defaults on a 24 GiB card (8,192 tokens,
    // 256 sequences) peaks in the sampler: 256 x 152,064 logits x 32 B + 2 x 8,192 x 3,584 for Qwen2.5-7B, above the
    // forward's 8,192 x (6 x 18,944 + 8 x 3,584). Beside 14.2 GiB of weights it leaves room for 32,768 tokens of cache
    // (--max_model_len 32768: 1.75 GiB, the Instruct checkpoint's max_position_embeddings, so also its default), not
    // for the base checkpoint's 131,072 positions (7.0 GiB).
    assert.ok(
      !run(
        qwen({
          rollout: {
            batch: 32,
            completion_len: 256,
            engine: 'vllm-server',
            vllm_server: { tensor_parallel: 1, memory_fraction: 0.9, max_model_len: 32_768 },
          },
        }),
        gpu,
      ).warnings.some((x) => x.key === 'rollout.engine'),
    );
    const qwenFit = Math.floor(
      (0.9 * g.gpu.memoryBytes - 7_615_616_512 * 2 - (256 * V * 32 + 2 * 8192 * 3584)) / kvPerToken,
    );
    const server = { rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' as const } };
    assert.ok(!run(qwen(server), gpu).warnings.some((x) => x.key === 'rollout.engine'));
    assert.match(
      run(setupFor('Qwen/Qwen2.5-7B', { ...grpo, ...server }), gpu).warnings.find((x) => x.key === 'rollout.engine')
        ?.message ?? '',
      new RegExp(`--max_model_len between 768 and ${qwenFit} tokens`),
    );
    // Llama-3.1-8B (131,072 B per token: 32 layers x 2 x 8 kv heads x 128 x 2 B): its sampler run 256 x 128,256 x 32 B +
    // 2 x 8,192 x 4,096 exceeds its forward's 8,192 x (6 x 14,336 + 8 x 4,096).
    const llama = run(
      setupFor('meta-llama/Llama-3.1-8B', {
        ...grpo,
        rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' },
      }),
      gpu,
    );
    const fit = Math.floor(
      (0.9 * g.gpu.memoryBytes - 8_030_261_248 * 2 - (256 * 128_256 * 32 + 2 * 8192 * 4096)) / 131_072,
    );
    assert.match(
      llama.warnings.find((x) => x.key === 'rollout.engine')?.message ?? '',
      new RegExp(`--max_model_len between 768 and ${fit} tokens`),
    );
    // On an H100-80GB vLLM's defaults are 16,384 tokens and 1,024 sequences: Llama-3.1-70B's 141 GB of weights need two
    // GPUs at 0.9 (65.7 GiB each, with the sampler run's 1,024 x 128,256 x 32 B + 2 x 16,384 x 8,192 beside them).
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const big = run(
      setupFor('meta-llama/Llama-3.1-70B', {
        ...grpo,
        rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' },
      }),
      { gpu: h100.gpu },
    );
    const msg = big.warnings.find((x) => x.key === 'rollout.engine')?.message ?? '';
    assert.match(msg, /16,384 tokens, 1,024 sampled sequences/);
    assert.match(msg, /serve it over 2 GPUs/);
  });
  it('a reward model by Hub id: frozen weights on every GPU (sharded under ZeRO-3) and one no-grad forward over the round', () => {
    const m = findModel('meta-llama/Llama-3.1-8B');
    assert.ok(m.ok);
    const reward = { model: m.model.id, architecture: m.model.config };
    const e = run(
      qwen({
        seq_len: 1536,
        micro_batch_size: 4,
        rollout: { batch: 16, completion_len: 1024, engine: 'vllm-server', reward_models: [reward] },
      }),
    );
    // LlamaForSequenceClassification, 1 label: 8,030,261,248 - the untied lm_head 128,256 x 4096 + the score 4096 x 1.
    const params = 8_030_261_248 - 128_256 * 4096 + 4096;
    const w = phase(e, 'forward').components.find((c) => c.label.startsWith('Reward model weights'));
    assert.equal(w?.bytes, params * 2);
    // Its forward over the 16 x 1,536 tokens of the round (T = 24,576, h 4096, 14,336 MLP, bf16, flash): the layer input,
    // the residual and the norm output 6·T·h, and the MLP's gate, up and product 3 x 2·T·14,336 (larger than attention's).
    const T = 16 * 1536;
    const fwd = phase(e, 'generation').components.find(
      (c) => c.label.startsWith('Reward model') && c.label.includes('forward'),
    );
    assert.equal(fwd?.bytes, 6 * T * 4096 + 6 * T * 14_336);
    // ZeRO-3 over 4 GPUs: the weights sharded as the policy's; two of its layers gathered for the forward.
    const z3 = run(
      qwen({
        seq_len: 1536,
        micro_batch_size: 4,
        gpus_per_node: 4,
        zero_stage: 3,
        rollout: { batch: 16, completion_len: 1024, engine: 'vllm-server', reward_models: [reward] },
      }),
    );
    assert.equal(
      phase(z3, 'forward').components.find((c) => c.label.startsWith('Reward model weights'))?.bytes,
      Math.round((params * 2) / 4),
    );
    // The adapters' merge for vLLM gathers the whole policy before generation; the reward model scores after it, with
    // the policy's weights released: the phase holds the larger of the two, not both.
    const gen = phase(z3, 'generation').components;
    assert.ok(gen.some((c) => c.label === 'ZeRO-3 weights gathered to merge the adapters for vLLM'));
    assert.ok(!gen.some((c) => c.label.startsWith('Reward model') && c.label.includes('forward')));
    // Without that gather the reward model's forward is the phase's tail: two of its layers gathered beside it.
    const z3NoGather = run(
      qwen({
        seq_len: 1536,
        micro_batch_size: 4,
        gpus_per_node: 4,
        zero_stage: 3,
        rollout: {
          batch: 16,
          completion_len: 1024,
          engine: 'vllm-server',
          gather_weights: false,
          reward_models: [reward],
        },
      }),
    );
    const layer = 4096 * (4096 + 2 * 1024 + 4096) + 3 * 4096 * 14_336 + 2 * 4096;
    assert.equal(
      phase(z3NoGather, 'generation').components.find(
        (c) => c.label.startsWith('Reward model') && c.label.includes('forward'),
      )?.bytes,
      6 * T * 4096 + 6 * T * 14_336 + 2 * layer * 2,
    );
  });
  it("trains on the completion tokens' log-probs only, row by row (TRL logits_to_keep, selective_log_softmax)", () => {
    // T = 8 x 256 completion tokens; T·V = 311,427,072. Saved: the rows' fp32 log_softmax outputs 4·T·V. Forward beyond
    // them: the bf16 logits (the undivided ones are freed once divided) and one row's fp32 copy, 2·T·V + 4 x 256 x V.
    // Backward beyond them: one row's fp32 temporaries 2 x 4 x 256 x V at the start; at the end the rows' bf16 gradients
    // and their stack 2 x 2·T·V take what the freed outputs took. Checked against the profiler (tools/peak: GRPO cases).
    const TV = 8 * 256 * V;
    const l = lossMemory({
      tokens: 8 * 256,
      vocab: V,
      hidden: 3584,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      preferenceRowTokens: 256,
      amp: true,
      policyGradient: true,
    });
    assert.deepEqual(
      [l.savedBytes, l.forwardTransientBytes, l.backwardTransientBytes],
      [4 * TV, 2 * TV + 4 * 256 * V, 8 * 256 * V],
    );
    const e = run(qwen());
    const saved = phase(e, 'forward').components.find((c) => c.label.startsWith('Completion logits'));
    // Beside them the final norm keeps its fp32 input and inverse RMS over all 8 x 768 tokens (the head runs after it).
    assert.equal(saved?.bytes, 4 * TV + 8 * 768 * (3584 * 4 + 4));
    // The same run as plain SFT at 768 tokens keeps the fp32 log-softmax of all 6,144 tokens: three times as much.
    const sft = run(qwen({ rollout: undefined }));
    assert.ok(component(phase(sft, 'forward'), 'logits-loss') > 2.9 * 4 * TV);
    // Activations cover the prompt and the completion: the same as the 768-token SFT run.
    assert.equal(component(phase(e, 'forward'), 'activations'), component(phase(sft, 'forward'), 'activations'));
  });

  it('generation: the KV cache of the whole round, prefill or decoding, whichever is larger', () => {
    const e = run(qwen());
    const gen = phase(e, 'generation');
    const pers = phase(e, 'optimizer')
      .components.filter((c) => ['weights', 'adapter-weights', 'optimizer-states'].includes(c.id))
      .reduce((s, c) => s + c.bytes, 0);
    // Decoding ends with 32 x 768 tokens cached: 1,409,286,144 B. Meanwhile the previous step's fp32 logits and
    // probabilities (2 x 4 B x 32 x V) are held, and attention with the prompts' padding mask repeats the 4 key and value
    // heads of one layer to 28 (2 x 32 x 768 x 28 x 128 x 2 B = 352,321,536 B), more than the layer's torch.cat copy.
    const decodeEnd = 32 * 768 * kvPerToken + 2 * 32 * V * 4 + 352_321_536;
    assert.equal(32 * 768 * kvPerToken, 1_409_286_144);
    // Prefill: 32 x 512 tokens cached and one layer's no-grad forward over them (its input, residual and norm output,
    // and the MLP's activation, up projection and product: 3 x 16,384 x 18,944 x 2 B).
    const prefill =
      32 * 512 * kvPerToken + noGradLayerBytes(archOf('Qwen/Qwen2.5-7B-Instruct'), 32 * 512, 512, 2, 'sdpa');
    assert.equal(
      noGradLayerBytes(archOf('Qwen/Qwen2.5-7B-Instruct'), 32 * 512, 512, 2, 'sdpa'),
      3 * 16_384 * 3584 * 2 + 3 * 16_384 * 18_944 * 2,
    );
    near(gen.allocatedBytes, pers + Math.max(decodeEnd, prefill), 1e-9, 'generation phase');
    assert.ok(gen.components.some((c) => c.id === 'kv-cache'));
  });

  it('sliding-window layers keep only their window in the cache (Gemma 3: 29 of 34 layers at 1,024 tokens)', () => {
    // gemma-3-4b: 34 layers, every 6th global (5), 4 kv heads of 256: 4,096 B per layer and token in bf16. 8 completions
    // of 512 + 3,584 tokens at the last decoding step: 8 x 4,096 x (5 x 4,096 + 29 x 1,024) = 1,644,167,168 B.
    const e = run(
      setupFor('google/gemma-3-4b-it', {
        method: 'lora',
        lora: { r: 16, target_modules: 'all-linear' },
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        micro_batch_size: 2,
        gradient_accumulation_steps: 4,
        seq_len: 4096,
        gradient_checkpointing: 'full',
        attention: 'flash',
        rollout: { batch: 8, completion_len: 3584 },
      }),
    );
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    assert.equal(kv?.bytes, 1_644_167_168);
  });

  it('Gated DeltaNet layers cache a recurrent state, not keys and values (Qwen3.5-9B: 8 of 32 layers cache)', () => {
    // 8 full-attention layers x 2 (K, V) x 4 kv heads x 256 x 2 B = 32,768 B per token; 8 completions of 512 + 3,584
    // tokens at the last decoding step: 8 x 32,768 x 4,096 = 1,073,741,824 B. Each of the 24 Gated DeltaNet layers keeps
    // per sequence a state of 32 value heads x 128 x 128 x 4 B (fp32) and the conv's last 4 inputs of 2 x 16 x 128 +
    // 32 x 128 = 8,192 channels x 2 B: 8 x 24 x (2,097,152 + 65,536) = 415,236,096 B.
    const e = run(
      setupFor('Qwen/Qwen3.5-9B', {
        method: 'lora',
        lora: { r: 16, target_modules: 'all-linear' },
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        micro_batch_size: 2,
        gradient_accumulation_steps: 4,
        seq_len: 4096,
        gradient_checkpointing: 'full',
        attention: 'flash',
        rollout: { batch: 8, completion_len: 3584 },
      }),
    );
    const kv = phase(e, 'generation').components.find((c) => c.id === 'kv-cache');
    assert.equal(kv?.bytes, 1_073_741_824 + 415_236_096);
  });

  it('a KL reference (beta > 0) scores the round without grad; a full fine-tune holds a frozen copy', () => {
    // With the adapters disabled, one micro-batch's completion logits (2·T·V), divided by the temperature (2·T·V).
    const TV = 8 * 256 * V;
    const e = run(
      qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-server', reference: 'adapters-off' } }),
    );
    const scoring = phase(e, 'generation').components.find((c) => c.label.startsWith('Scoring'));
    assert.equal(scoring?.bytes, 4 * TV);
    // vLLM on other GPUs: no KV cache on the training GPU.
    assert.ok(!phase(e, 'generation').components.some((c) => c.id === 'kv-cache'));
    const full = { method: 'full' as const, lora: undefined, optimizer: 'adamw_8bit' as const };
    const none = run(qwen({ ...full, rollout: { batch: 32, completion_len: 256, engine: 'vllm-server' } }));
    const copy = run(
      qwen({ ...full, rollout: { batch: 32, completion_len: 256, engine: 'vllm-server', reference: 'copy' } }),
    );
    assert.equal(
      component(phase(copy, 'optimizer'), 'weights') - component(phase(none, 'optimizer'), 'weights'),
      7_615_616_512 * 2,
    );
  });

  it("weights_gpu 'training' (verl's param_offload): the weights leave while the engine generates, back to score", () => {
    // verl's GRPO actor: a full fine-tune of Qwen2.5-7B-Instruct (7,615,616,512 parameters) in fp32 under FSDP1 over
    // 8 GPUs, a colocated engine sleeping outside generation at 0.6 x 80 GiB. verl moves the actor's shards to the host
    // once the engine has the weights (fsdp_workers.py rollout_mode, offload_fsdp_model_to_cpu) and back for the old
    // policy's scoring and the update: 7,615,616,512 x 4 B / 8 = 3,807,808,256 B less in the engine's generation.
    const gpu = { id: 'H100-80GB', memoryBytes: 80 * GiB, source: 'test' };
    const verl = (weights_gpu: 'always' | 'training', vllm_memory_fraction = 0.6) =>
      run(
        qwen({
          method: 'full',
          lora: undefined,
          weights_dtype: 'fp32',
          gpus_per_node: 8,
          fsdp: 'full_shard',
          micro_batch_size: 4,
          gradient_accumulation_steps: 1,
          rollout: {
            batch: 32,
            completion_len: 256,
            engine: 'vllm-colocate',
            vllm_sleep: true,
            vllm_memory_fraction,
            old_logps: true,
          },
          weights_gpu,
        }),
        { gpu },
      );
    const always = verl('always');
    const training = verl('training');
    const W = (7_615_616_512 * 4) / 8;
    for (const p of ['forward', 'backward', 'optimizer'] as const)
      assert.equal(phase(training, p).allocatedBytes, phase(always, p).allocatedBytes, p);
    // The engine's 48 GiB outweigh the scoring's logits and the weights together: the generation's peak is the engine's.
    assert.equal(phase(always, 'generation').allocatedBytes - phase(training, 'generation').allocatedBytes, W);
    assert.equal(component(phase(training, 'generation'), 'weights'), 0);
    assert.equal(component(phase(always, 'generation'), 'weights'), W);
    // The host holds each GPU's shard: 8 x 3,807,808,256 B per node.
    assert.equal(training.cpuBytes - always.cpuBytes, 8 * W);
    // With a small share (0.05 x 80 GiB = 4,294,967,296 B) the old policy's scoring, which holds the weights again,
    // outweighs the engine without them: the generation phase is the persistent rest, the weights, the gathered units
    // and the scoring's logits, so it is the engine's share less the scoring's logits below the phase with the weights
    // kept, which the engine decided.
    const kept = phase(verl('always', 0.05), 'generation');
    const moved = phase(verl('training', 0.05), 'generation');
    assert.equal(component(moved, 'weights'), W);
    assert.equal(component(kept, 'logits-loss'), 0);
    assert.equal(component(moved, 'rollout-engine'), 0);
    assert.equal(kept.allocatedBytes - moved.allocatedBytes, 0.05 * 80 * GiB - component(moved, 'logits-loss'));
  });

  it('a colocated vLLM engine holds its share of the GPU, in every phase unless it sleeps', () => {
    const gpu = { id: 'A100-80GB', memoryBytes: 80 * GiB, source: 'test' };
    const share = 0.3 * 80 * GiB;
    const awake = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate' } }), { gpu });
    for (const p of awake.perGpu.phases) assert.equal(component(p, 'rollout-engine'), share, p.phase);
    const asleep = run(
      qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate', vllm_sleep: true } }),
      { gpu },
    );
    assert.equal(component(phase(asleep, 'backward'), 'rollout-engine'), 0);
    assert.equal(component(phase(asleep, 'generation'), 'rollout-engine'), share);
    // Asleep, the training phases run without the share: the peak is the higher of those and the generation phase.
    const trainingPeak = Math.max(
      ...asleep.perGpu.phases.filter((p) => p.phase !== 'generation').map((p) => p.allocatedBytes),
    );
    assert.equal(asleep.perGpu.peakBytes, Math.max(trainingPeak, phase(asleep, 'generation').allocatedBytes));
    assert.equal(
      awake.perGpu.peakBytes,
      share + Math.max(trainingPeak, phase(asleep, 'generation').allocatedBytes - share),
    );
    // Without a GPU the share cannot be counted, and a warning says so.
    const blind = run(qwen({ rollout: { batch: 32, completion_len: 256, engine: 'vllm-colocate' } }));
    assert.ok(blind.warnings.some((w) => w.key === 'rollout.engine'));
  });

  it('ZeRO-3 gathers the full 16-bit weights for generation (ds3_gather_for_generation)', () => {
    const z3 = {
      method: 'full' as const,
      lora: undefined,
      gpus_per_node: 8,
      zero_stage: 3 as const,
      master_weights: true,
      mixed_precision: 'none' as const,
    };
    const e = run(qwen({ ...z3, rollout: { batch: 32, completion_len: 256 } }));
    const gathered = phase(e, 'generation').components.find((c) => c.label.startsWith('ZeRO-3 weights gathered'));
    assert.equal(gathered?.bytes, 7_615_616_512 * 2);
    const off = run(qwen({ ...z3, rollout: { batch: 32, completion_len: 256, gather_weights: false } }));
    assert.ok(!phase(off, 'generation').components.some((c) => c.label.startsWith('ZeRO-3 weights gathered')));
  });

  it("the adapters' merge for vLLM gathers the whole model for the weight sync only: the old policy scores without it", () => {
    // TRL _move_model_to_vllm merges under gather_if_zero3 and releases the weights before vLLM generates; the old
    // policy's no-grad scoring then gathers layer by layer (hzhang57/opt-r2 grpo_trl.sh: 13.7 -> 12.9 GiB).
    const e = run(
      qwen({
        gpus_per_node: 4,
        zero_stage: 3,
        rollout: { batch: 32, completion_len: 256, engine: 'vllm-server', old_logps: true },
      }),
    );
    const gen = phase(e, 'generation').components;
    const merge = gen.some((c) => c.label === 'ZeRO-3 weights gathered to merge the adapters for vLLM');
    const scoring = gen.some((c) => c.label.startsWith('Scoring'));
    assert.ok(merge !== scoring, 'the merge and the scoring are never held at once');
  });

  it('rejects a completion as long as the whole sequence, and rollouts next to a preference objective', () => {
    const bad = estimate(qwen({ rollout: { batch: 32, completion_len: 768 } }));
    assert.ok(!bad.ok && bad.errors.some((x) => x.key === 'rollout.completion_len'));
    const both = estimate(qwen({ preference: { reference: 'none' } }));
    assert.ok(!both.ok && both.errors.some((x) => x.key === 'rollout'));
  });
});

describe('estimate: online DPO (TRL OnlineDPOTrainer)', () => {
  // Qwen2.5-7B-Instruct, LoRA r=16 on every linear layer, bf16 weights under bf16 autocast, 2 prompts per micro-batch,
  // 4 micro-batches per step, max_length 512 (prompt + completion), max_new_tokens 64, checkpointing on.
  // trl/trainer/online_dpo_trainer.py training_step: two completions per prompt are generated, the policy runs over the
  // 4 sequences, then the reference (the policy with its adapters disabled) without grad, then the DPO loss on the pair.
  const V = 152_064;
  const setup = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof setupFor> =>
    setupFor('Qwen/Qwen2.5-7B-Instruct', {
      method: 'lora',
      lora: { r: 16, target_modules: 'all-linear' },
      weights_dtype: 'bf16',
      mixed_precision: 'bf16',
      micro_batch_size: 2,
      gradient_accumulation_steps: 4,
      seq_len: 512,
      gradient_checkpointing: 'full',
      rollout: { objective: 'online-dpo', batch: 4, completion_len: 64, reference: 'adapters-off' },
      ...extra,
    });
  const labelled = (e: ReturnType<typeof run>, ph: 'forward' | 'backward', label: string) =>
    phase(e, ph).components.find((c) => c.label.startsWith(label));
  const T = 4 * 512; // 2 completions x 2 prompts, 512 tokens each: logits exist for every position
  const Tc = 4 * 64; // the completion slice that goes through log_softmax

  it('log-probs: the logits of every position, one fp32 log_softmax over the completion slice kept for backward', () => {
    // Saved: log_softmax's fp32 output 4·Tc·V = 155,713,536 B. Forward beyond it: the bf16 logits of all 2,048 positions
    // 2·T·V = 622,854,144 B and autocast's fp32 copy of the slice 4·Tc·V. Backward: the gather's and log_softmax's
    // gradients 2 x 4·Tc·V = 311,427,072 B beside the kept output; then, that output freed, the two SliceBackward nodes of
    // logits[:, a:b] (the batch dimension's `:` is recorded too) each fill a zero bf16 gradient of all the logits, the
    // second while the first is copied into it: 2 x 2·T·V - 4·Tc·V = 1,089,994,752 B beyond the kept output.
    const l = lossMemory({
      tokens: T,
      vocab: V,
      hidden: 3584,
      logitsBytes: 2,
      loss: 'full',
      chunks: 8,
      softcap: false,
      amp: true,
      completionShare: 64 / 512,
    });
    assert.equal(l.savedBytes, 155_713_536);
    assert.equal(l.forwardTransientBytes, 622_854_144 + 155_713_536);
    assert.equal(l.backwardTransientBytes, 1_089_994_752);
    // Without autocast (fp32 model, fp32 logits): log_softmax's kernel copies the non-contiguous slice (4·Tc·V).
    // tools/peak/measure_step.py --online-dpo profiles this on the CPU (test/fixtures/peak/golden.json, peak-golden.test.ts).
    const f = lossMemory({
      tokens: T,
      vocab: V,
      hidden: 3584,
      logitsBytes: 4,
      loss: 'full',
      chunks: 8,
      softcap: false,
      completionShare: 64 / 512,
    });
    assert.deepEqual(
      [f.savedBytes, f.forwardTransientBytes, f.backwardTransientBytes],
      [4 * Tc * V, 4 * T * V + 4 * Tc * V, 8 * T * V - 4 * Tc * V],
    );
  });

  it("the reference runs after the policy's forward, generation runs inside the micro-step with the earlier gradients held", () => {
    const e = run(setup());
    // The reference's no-grad logits of every position, fp32 from Accelerate's convert_outputs_to_fp32 under bf16
    // autocast, 4·T·V, and the slice's copy and log_softmax 2 x 4·Tc·V, while the policy's saved log-probs and
    // activations are held.
    assert.equal(labelled(e, 'forward', 'Reference forward')?.bytes, 4 * T * V + 8 * Tc * V);
    // Generation: 2 completions for each of the 2 prompts; its high point here is the prefill of the 4 prompts of 448
    // tokens (512 - 64), their KV cache (28 layers x 2 x 4 kv heads x 128 x 2 B = 57,344 B per token) beside one layer's
    // no-grad forward; the LoRA gradients of the 3 earlier micro-steps stay allocated.
    const gen = phase(e, 'generation');
    assert.equal(
      gen.components.find((c) => c.label === 'KV cache (4 sequences x 448 tokens)')?.bytes,
      4 * 448 * 57_344,
    );
    assert.match(gen.note, /two completions for each of the micro-batch's 2 prompts/);
    assert.ok(gen.components.some((c) => c.id === 'gradients' && /earlier micro-steps/.test(c.formula)));
    assert.ok(e.assumptions.some((x) => x.key === 'rollout.batch' && x.value === '4 completions per micro-step'));
    // A full fine-tune keeps a frozen copy of the model as the reference (TRL create_reference_model).
    const full = run(
      setup({
        method: 'full',
        lora: undefined,
        rollout: { objective: 'online-dpo', batch: 4, completion_len: 64, reference: 'copy' },
      }),
    );
    assert.equal(labelled(full, 'forward', 'Reference model weights')?.bytes, 7_615_616_512 * 2);
  });

  it("refuses online DPO without a reference, and trains twice the micro-batch's sequences", () => {
    const r = estimate(
      setup({ rollout: { objective: 'online-dpo', batch: 4, completion_len: 64, reference: 'none' } }),
    );
    assert.ok(!r.ok && r.errors.some((x) => x.key === 'rollout.reference'));
    // The layer inputs kept by checkpointing: 28 layers x 4 sequences x 512 tokens x 3,584 x 2 B.
    assert.equal(labelled(run(setup()), 'forward', 'Activations saved for backward')?.bytes, 28 * T * 3584 * 2);
  });
});
