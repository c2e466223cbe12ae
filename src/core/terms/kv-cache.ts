// Term: the generation cache. Keys and values per token and layer (sliding-window layers keep their window), and
// the per-sequence states of linear-attention and Mamba layers. Docs: docs/estimate/generation.md. Pure arithmetic;
// no I/O.
import { attentionLayerCount, type Architecture } from '../architecture';
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';

/**
 * The layers without keys and values in a generation cache and what each keeps per sequence: Gated DeltaNet an fp32
 * recurrent state per value head (key x value head width, as the kernel returns it) and the conv1d's last inputs
 * (Qwen3NextDynamicCache); Mamba2 an SSM state of heads x head_dim x state and the conv's last inputs; Mamba-1 an SSM
 * state of inner x state and the conv's last inputs (HybridMambaAttentionDynamicCache); `cb` bytes where the model dtype
 * applies.
 */
export function recurrentStates(a: Architecture, cb: number): { layers: number; perLayer: number } {
  const la = a.linearAttention;
  if (la)
    return {
      layers: la.layers,
      perLayer:
        la.valueHeads * la.keyDim * la.valueDim * 4 +
        (2 * la.keyHeads * la.keyDim + la.valueHeads * la.valueDim) * la.convKernel * cb,
    };
  const mb = a.mamba;
  if (mb)
    return {
      layers: mb.layers,
      perLayer:
        (mb.heads * mb.headDim * mb.state + (mb.heads * mb.headDim + 2 * mb.groups * mb.state) * mb.convKernel) * cb,
    };
  const m1 = a.mamba1;
  if (m1) return { layers: m1.layers, perLayer: m1.inner * (m1.state + m1.convKernel) * cb };
  return { layers: 0, perLayer: 0 };
}

/** The cache's shape on one GPU of a stage: key/value heads, bytes per token and layer, layers of each kind. */
export interface KvCacheShape {
  readonly kvHeadsHere: number;
  readonly kvLayerToken: number;
  readonly slidingHere: number;
  readonly linearHere: number;
  readonly stateSequence: number;
  readonly cachedHere: number;
}

/** The generation cache's shape on this stage's GPU. */
export function kvCacheShape(ctx: EstimateContext, st: StageContext): KvCacheShape {
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const cb = ctx.dtypes.computeBytes;
  const { layersHere } = st;
  const kvHeadsHere = Math.max(1, a.kvHeads / tp);
  // Keys and values per token and layer; sliding-window layers keep only their window (DynamicSlidingWindowLayer).
  // MLA caches every head's full key (nope + rope wide) and value (v_head_dim), not the compressed latent
  // (modeling_deepseek_v3.py: past_key_value.update(key_states, value_states)).
  const kvLayerToken = kvHeadsHere * (a.headDim + (a.mla ? a.mla.vHeadDim : a.headDim)) * cb;
  const slidingHere = a.slidingLayers * (layersHere / a.layers);
  // Linear-attention and Mamba layers cache no keys and values but per-sequence states (recurrentStates).
  const states = recurrentStates(a, cb);
  const linearHere = states.layers * (layersHere / a.layers);
  const stateSequence = states.perLayer / tp;
  const cachedHere = attentionLayerCount(a) * (layersHere / a.layers);
  return { kvHeadsHere, kvLayerToken, slidingHere, linearHere, stateSequence, cachedHere };
}

/** The KV cache (and recurrent states) of G sequences of `tokens` tokens. */
export function kvCache(ctx: EstimateContext, shape: KvCacheShape, G: number, tokens: number): Component {
  const a = ctx.model.arch;
  const { kvHeadsHere, kvLayerToken, slidingHere, linearHere, stateSequence, cachedHere } = shape;
  const kvBytes = (tokens: number): number =>
    G * kvLayerToken * ((cachedHere - slidingHere) * tokens + slidingHere * Math.min(tokens, a.slidingWindow)) +
    G * linearHere * stateSequence;
  return comp(
    ctx,
    'kv-cache',
    `KV cache (${G} sequences x ${tokens} tokens)`,
    kvBytes(tokens),
    () => kvCacheFormula(ctx, shape, G, tokens),
    () => ({ sequences: G, tokens, kvHeads: kvHeadsHere, headDim: a.headDim }),
  );
}

/** The KV cache's formula, from its parts: attention layers (sliding windows), linear-attention, Mamba2 and Mamba layers. */
function kvCacheFormula(ctx: EstimateContext, shape: KvCacheShape, G: number, tokens: number): string {
  const a = ctx.model.arch;
  const cb = ctx.dtypes.computeBytes;
  const { kvHeadsHere, slidingHere, linearHere, cachedHere } = shape;
  const la = a.linearAttention;
  const mb = a.mamba;
  const m1 = a.mamba1;
  const layers = `${G} sequences x ${tokens} tokens x ${+cachedHere.toFixed(1)} layers x 2 (K, V) x ${kvHeadsHere} kv heads x ${a.headDim} x ${cb} B`;
  const sliding =
    slidingHere > 0 ? `; ${+slidingHere.toFixed(1)} sliding-window layers keep ${a.slidingWindow} tokens` : '';
  const linear = la
    ? ` + ${+linearHere.toFixed(1)} linear-attention layers x ${G} sequences x (recurrent state ${la.valueHeads} x ${la.keyDim} x ${la.valueDim} x 4 B` +
      ` + conv state ${2 * la.keyHeads * la.keyDim + la.valueHeads * la.valueDim} x ${la.convKernel} x ${cb} B)`
    : '';
  const mamba2 = mb
    ? ` + ${+linearHere.toFixed(1)} Mamba2 layers x ${G} sequences x (SSM state ${mb.heads} x ${mb.headDim} x ${mb.state}` +
      ` + conv state ${mb.heads * mb.headDim + 2 * mb.groups * mb.state} x ${mb.convKernel}) x ${cb} B`
    : '';
  const mamba1 = m1
    ? ` + ${+linearHere.toFixed(1)} Mamba layers x ${G} sequences x (SSM state ${m1.inner} x ${m1.state} + conv state ${m1.inner} x ${m1.convKernel}) x ${cb} B`
    : '';
  return `${layers}${sliding}${linear}${mamba2}${mamba1}`;
}

/**
 * vLLM sizes its KV cache after a profile run (gpu_worker.py determine_available_memory, gpu_model_runner.py
 * profile_run; vLLM >= 0.9.2): the share minus the weights, the run's torch peak and non-torch memory. The run is a
 * forward over max_num_batched_tokens dummy tokens (about T·(6·I/tp + 8·h) bytes in 16 bits: the MLP's gate/up output
 * and activation, a few hidden-width tensors; I the routed width for MoE) and a sampler run over min(max_num_seqs, T)
 * rows of full-vocabulary logits, which the top-k/top-p path sorts and rescales in fp32 (about 32 bytes per logit with
 * TRL's processed log-probs). CUDA graphs are captured after the KV cache, outside the share.
 */
export function profileRunPeak(a: Architecture, tokens: number, rows: number, tp: number): number {
  const width = a.moe ? a.moe.topK * a.moe.expertFfn + a.moe.sharedExpertFfn : a.ffn;
  return Math.max(
    tokens * ((6 * width) / tp + 8 * a.hidden),
    Math.min(rows, tokens) * a.vocab * 32 + 2 * tokens * a.hidden,
  );
}
