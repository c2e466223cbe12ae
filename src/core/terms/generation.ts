// Term: generation (GRPO / online DPO rollouts, GKD's on-policy rounds) and the colocated vLLM engine's share. Per
// round, with generate(): the KV cache of G sequences (terms/kv-cache.ts) beside the prefill's or a decoding step's
// temporaries (next-token logits in fp32, the growing cache's torch.cat copy, repeated key/value heads); the
// reference's and the old policy's no-grad log-probabilities; the reward models' forwards; ZeRO-3 gathers the whole
// model for it. A colocated vLLM engine takes vllm_gpu_memory_utilization x the GPU, less the weights it shares.
// Sources: TRL GRPOTrainer / OnlineDPOTrainer / GKDTrainer, transformers generation utils (_sample, DynamicCache),
// vLLM gpu_worker.py. Docs: docs/estimate/generation.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp, sum } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatBytes, formatCount, GiB } from '../units';
import { noGradLayerBytes } from './activations';
import { kvCache, kvCacheShape, profileRunPeak } from './kv-cache';
import { logitTokens } from './logits-loss';
import { rewardForward, wholeReferenceGather } from './reference-models';

/** The colocated vLLM engine's share of the GPU, less the weights it shares with the policy (given the persistent components so far). */
export function rolloutEngine(
  ctx: EstimateContext,
  persistent: readonly Component[],
  contextBytes: number,
): Component[] {
  const { rollout, vllmShare } = ctx.methods;
  if (rollout?.engine === 'vllm-colocate' && rollout.vllm_memory_of === 'free' && ctx.gpu)
    return freeMemoryEngine(ctx, persistent, contextBytes);
  // A colocated vLLM engine (TRL vllm_mode="colocate") reserves its share of the GPU for its own copy of the weights,
  // its KV cache and CUDA graphs at start-up (vLLM gpu_memory_utilization is a fraction of the GPU's total memory),
  // and keeps it while the policy trains unless sleep mode releases it.
  // Unsloth's fast_inference engine holds the weights the policy trains on: its share counts them once.
  const sharedWeights = rollout?.vllm_shared_weights
    ? sum(persistent.filter((c) => c.id === 'weights' || c.id === 'quantization-constants'))
    : 0;
  const engineBytes = Math.max(0, vllmShare - sharedWeights);
  const engineC =
    engineBytes > 0
      ? [
          comp(
            ctx,
            'rollout-engine',
            'vLLM engine (colocated)',
            engineBytes,
            () =>
              `vllm_gpu_memory_utilization ${rollout!.vllm_memory_fraction} ` +
              `x ${(ctx.gpu!.memoryBytes / GiB).toFixed(1)} GiB ` +
              `(${ctx.gpu!.id})${sharedWeights > 0 ? ` - the weights it shares with the policy (${formatBytes(sharedWeights)})` : ''}`,
            () => ({ fraction: rollout!.vllm_memory_fraction, gpuBytes: ctx.gpu!.memoryBytes }),
          ),
        ]
      : [];
  return engineC;
}

/**
 * The vLLM 0.3.1-0.6.3 workers verl 0.1 vendors size the KV cache from the memory free when the engine starts
 * (verl/third_party/vllm/vllm_v_0_6_3/worker.py determine_num_available_blocks: `free_gpu_memory *
 * gpu_memory_utilization`, after its profile run): the actor's weights and the CUDA context are on the GPU then (the
 * rollout is made last, verl/trainer/ppo/ray_trainer.py init_workers), its optimizer states not yet (AdamW makes them at
 * the first step), the engine's own 16-bit weights (one tensor-parallel share) and its profile run's blocks (verl's
 * max_num_batched_tokens, 8,192, and vLLM's 256 sequences) are. The engine holds its weights and that share.
 */
function freeMemoryEngine(ctx: EstimateContext, persistent: readonly Component[], contextBytes: number): Component[] {
  const rollout = ctx.methods.rollout!;
  const gpuBytes = ctx.gpu!.memoryBytes;
  const tp = rollout.vllm_tensor_parallel;
  const weights = (ctx.model.inventory.total * 2) / tp;
  const profile = profileRunPeak(ctx.model.arch, 8192, 256, tp);
  const atStart = sum(persistent.filter((c) => c.id !== 'optimizer-states')) + contextBytes;
  const free = Math.max(0, gpuBytes - atStart - weights - profile);
  const u = rollout.vllm_memory_fraction;
  return [
    comp(
      ctx,
      'rollout-engine',
      'vLLM engine (colocated)',
      weights + u * free,
      () =>
        `its 16-bit weights ${formatBytes(weights)}${tp > 1 ? ` (1/${tp})` : ''} + gpu_memory_utilization ${u} x the ` +
        `memory free at its start, ${formatBytes(free)} = ${(gpuBytes / GiB).toFixed(1)} GiB (${ctx.gpu!.id}) - ` +
        `${formatBytes(atStart)} of the actor's weights and the CUDA context - its weights - its profile run ` +
        `${formatBytes(profile)} (the vLLM workers verl 0.1 vendors: a share of the free memory)`,
      () => ({ fraction: u, gpuBytes, freeBytes: free }),
    ),
  ];
}

/** What the stage holds besides generation's own tensors, from the other terms. */
export interface GenerationInputs {
  /** The weights on the host while the engine generates: back on the GPU for the passes that score. */
  readonly weightsOffWhileGenerating: readonly Component[];
  readonly gathered: readonly Component[];
  readonly headGather: readonly Component[];
  readonly engineC: readonly Component[];
  readonly gradStored: number;
  readonly gradLabel: string;
  readonly gradFormula: () => string;
  readonly gradsKeptInEval: number;
}

/**
 * Generation (GRPO rollouts): once per round, before its micro-batches train, with the optimizer step done and the
 * gradients freed. TRL's transformers path (unwrap_model_for_generation, checkpointing switched off, use_cache)
 * prefills the prompts and decodes the completions of the whole round at once; DynamicCache grows each layer's keys
 * and values by torch.cat, a new tensor per step. DeepSpeed ZeRO-3 gathers the full weights for it
 * (ds3_gather_for_generation) and FSDP summons its root unit. vLLM generates in its own memory (its share of the
 * GPU, or another GPU); merging LoRA adapters into ZeRO-3 weights for the weight sync gathers them all. The
 * reference's (beta > 0) and the old policy's log-probabilities are then taken without grad, one training
 * micro-batch at a time.
 */
export function generationComponents(ctx: EstimateContext, st: StageContext, inputs: GenerationInputs): Component[] {
  const setup = ctx.setup;
  const lmHead = ctx.model.lmHead;
  const zero = ctx.sharding.zeroStage;
  const { weightBytes: wb, half } = ctx.dtypes;
  const { peft, rollout, gkdGeneration, onlineDpo, generation, rewardModels } = ctx.methods;
  const { first, unquantizedParams, modelBytes } = st;
  const { gathered, headGather, engineC, gradStored, gradLabel, gradFormula, gradsKeptInEval } = inputs;
  const genComps: Component[] = [];
  if (generation && lmHead) {
    const G = generation.batch;
    const C = generation.completion_len;
    const P = setup.seq_len - C;
    // GKD generates inside the training step: the gradients of the earlier micro-steps of an accumulation are held.
    // Online DPO generates in every micro-step too.
    const inStep = gkdGeneration !== undefined || onlineDpo;
    const gradsAtGeneration = inStep && setup.gradient_accumulation_steps > 1 ? gradStored : gradsKeptInEval;
    genComps.push(
      ...(gradsAtGeneration > 0
        ? [
            comp(
              ctx,
              'gradients',
              gradLabel,
              gradsAtGeneration,
              () =>
                `${gradFormula()} (${inStep ? 'from the earlier micro-steps of the accumulation' : 'not freed: zero_grad(set_to_none=False)'})`,
              () => ({}),
            ),
          ]
        : []),
    );
    // The policy's gathered weights: held while it generates (or merges its adapters for vLLM) and scores, not while a
    // frozen model gathered whole or a reward model runs alone.
    let policyUnits: readonly Component[] = gathered;
    if (zero === 3 && generation.gather_weights && (generation.engine === 'generate' || peft)) {
      policyUnits = [
        comp(
          ctx,
          'gathered-params',
          generation.engine === 'generate'
            ? 'ZeRO-3 weights gathered for generation'
            : 'ZeRO-3 weights gathered to merge the adapters for vLLM',
          (modelBytes * half) / wb,
          () => `${formatCount(unquantizedParams)} params x ${half} B, every layer at once (ds3_gather_for_generation)`,
          () => ({ params: Math.round(unquantizedParams) }),
        ),
      ];
    } else {
      genComps.push(...headGather);
    }
    const tails: Component[][] = [];
    if (generation.engine === 'generate') tails.push(...decodeTails(ctx, st, G, P).map((t) => [...policyUnits, ...t]));
    // A sleeping engine holds its share only while it generates: TRL and verl put it back to sleep before scoring.
    else tails.push([...policyUnits, ...(generation.vllm_sleep ? engineC : [])]);
    const scoring = scoringTail(ctx, st, C);
    // The adapters' merge for vLLM gathers the whole model only for the weight sync (TRL _move_model_to_vllm under
    // gather_if_zero3), released before vLLM generates and the old policy scores layer by layer.
    const scoringUnits = generation.engine === 'generate' ? policyUnits : gathered;
    if (scoring)
      tails.push(
        scoring.alone
          ? scoring.components
          : [...inputs.weightsOffWhileGenerating, ...scoringUnits, ...scoring.components],
      );
    // Scoring the round's completions: each reward model runs one no-grad forward over the round's G sequences at once.
    if (rollout && !onlineDpo && first) for (const rm of rewardModels) tails.push([rewardForward(ctx, rm, G)]);
    genComps.push(...tails.reduce((m, t) => (sum(t) > sum(m) ? t : m)));
  }
  return genComps;
}

/**
 * Generation with generate(): the prefill of G prompts of P tokens and the decoding steps up to `total` tokens (the
 * sequence length unless given), each beside the KV cache it holds.
 */
export function decodeTails(
  ctx: EstimateContext,
  st: StageContext,
  G: number,
  P: number,
  total = ctx.setup.seq_len,
): Component[][] {
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const { computeBytes: cb, attention } = ctx.dtypes;
  const { layersHere } = st;
  const shape = kvCacheShape(ctx, st);
  const { kvHeadsHere, kvLayerToken, slidingHere } = shape;
  const kv = (tokens: number): Component => kvCache(ctx, shape, G, tokens);
  const tails: Component[][] = [];
  const prefill = noGradLayerBytes(a, G * P, P, cb, attention, tp);
  tails.push([
    kv(P),
    comp(
      ctx,
      'backward-working',
      `Prefill: one layer's forward over ${G} prompts (no grad)`,
      prefill,
      () =>
        `the layer's input, residual and norm output, and the larger of the MLP's and the attention's temporaries, at ${G} x ${P} tokens`,
      () => ({ sequences: G, tokens: P }),
    ),
  ]);
  // Each step: the previous step's fp32 next-token logits and probabilities are still held (transformers _sample)
  // while the layers run; in a layer, torch.cat copies its keys (and values) to a longer tensor, and attention
  // with a padding mask repeats the key and value heads for grouped-query attention (repeat_kv). At the end of the
  // step: the model's logits, their fp32 copy, the scores and the probabilities, the previous ones being replaced.
  const VL = G * (a.vocab / tp);
  // The longest layer cache: a global layer's, or the window when every layer slides.
  const longest = slidingHere < layersHere ? total : Math.min(total, a.slidingWindow);
  const layerKv = (G * kvLayerToken * longest) / 2;
  const nhHere = a.heads / tp;
  const repeated = attention !== 'flash' && kvHeadsHere < nhHere ? 2 * G * longest * nhHere * a.headDim * cb : 0;
  const decode = Math.max(VL * (cb + 3 * 4), 2 * VL * 4 + Math.max(layerKv, repeated));
  tails.push([
    kv(total),
    comp(
      ctx,
      'backward-working',
      "Decoding: next-token logits, the growing cache's copy and repeated heads",
      decode,
      () =>
        `max(${G} x V x (${cb} B logits + 3 x 4 B: fp32 copy, scores, probabilities), the ` +
        `previous step's fp32 logits and probabilities 2 x 4 B x ${G} x V + max(one layer's keys ` +
        `at full length (torch.cat), its keys and values repeated to ${nhHere} heads (repeat_kv)))`,
      () => ({ sequences: G, vocab: a.vocab }),
    ),
  ]);
  return tails;
}

/**
 * The stage as a scoring forward sees it: the rollout's scoring batch (verl's log_prob_micro_batch_size_per_gpu) in
 * place of the training micro-batch, at the same tokens per sequence.
 */
function scoringStage(ctx: EstimateContext, st: StageContext): StageContext {
  const k = ctx.methods.rollout?.scoring_batch;
  if (k === undefined || k === st.sequences) return st;
  return { ...st, sequences: k, tokens: Math.round((st.tokens / st.sequences) * k) };
}

/** The reference's and the old policy's log-probabilities of the round's completions, without grad. */
function scoringTail(
  ctx: EstimateContext,
  training: StageContext,
  C: number,
): { components: Component[]; alone: boolean } | undefined {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const { computeBytes: cb, mode, attention, residualBytes } = ctx.dtypes;
  const { rollout, onlineDpo } = ctx.methods;
  const st = scoringStage(ctx, training);
  const { sequences: seqs, tokens: T } = st;
  const lossTokens = logitTokens(ctx, st);
  if (!(rollout && !onlineDpo && (rollout.reference !== 'none' || rollout.old_logps))) return undefined;
  const tokensText = rollout.logps === 'verl' ? `${seqs} x ${T / seqs} tokens` : `${seqs} x ${C} completion tokens`;
  const rowOut = mode === 'amp' ? 4 : cb;
  const TV = lossTokens * (a.vocab / tp);
  // verl's actor divides its logits by the temperature in place and takes the log-probs with flash-attn's cross-entropy
  // (verl/workers/actor/dp_actor.py `logits_rmpad.div_(temperature)`, its compiled entropy_from_logits): the logits
  // and an fp32 loss and logsumexp per token, as its training pass (preference-logps.ts verlLogps).
  const verl = rollout?.logps === 'verl';
  const logps = verl ? cb * TV + 8 * lossTokens : cb * TV + Math.max(cb * TV, rowOut * C * (a.vocab / tp));
  const fwd = noGradLayerBytes(a, T, setup.seq_len, cb, attention, tp, residualBytes);
  // A reference copy under FSDP2 is gathered whole while it scores (TRL prepare_fsdp): that beside its logits.
  const whole = wholeReferenceGather(ctx);
  if (whole > 0 && whole + cb * TV > Math.max(logps, fwd)) {
    // The reference scores alone: the policy's layer units are resharded.
    return {
      alone: true,
      components: [
        comp(
          ctx,
          'gathered-params',
          'Scoring: the reference model gathered whole (one FSDP2 unit), no grad',
          whole + cb * TV,
          () =>
            `its all-gather output and unsharded parameters ${formatBytes(whole)} (TRL prepare_fsdp) and the ` +
            `completion logits ${cb}·T·V (T = ${tokensText})`,
          () => ({ sequences: seqs, tokens: lossTokens, vocab: a.vocab }),
        ),
      ],
    };
  }
  const who = [
    rollout.reference === 'copy'
      ? 'the reference model'
      : rollout.reference === 'adapters-off'
        ? 'the model with its adapters disabled'
        : '',
    rollout.old_logps ? 'the old policy' : '',
  ]
    .filter((x) => x)
    .join(' and ');
  const scoring =
    logps >= fwd
      ? comp(
          ctx,
          'logits-loss',
          `Scoring: ${who}, no grad, ${seqs} sequences`,
          logps,
          () =>
            verl
              ? `logits ${cb}·T·V, divided in place by the temperature, and an fp32 loss and logsumexp 8·T (verl, ` +
                `flash-attn cross_entropy_loss; T = ${tokensText})`
              : `completion logits ${cb}·T·V, divided by the temperature ${cb}·T·V or one row's ` +
                `log_softmax ${rowOut}·C·V (T = ${tokensText})`,
          () => ({ sequences: seqs, tokens: lossTokens, vocab: a.vocab }),
        )
      : comp(
          ctx,
          'backward-working',
          `Scoring: ${who}, one layer's forward (no grad)`,
          fwd,
          () =>
            "the layer's input, residual and norm output, and the larger of the MLP's and the attention's temporaries, at " +
            (seqs === training.sequences ? 'the training micro-batch' : `the scoring batch of ${seqs} sequences`),
          () => ({ sequences: seqs }),
        );
  return { components: [scoring], alone: false };
}
