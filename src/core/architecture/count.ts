// Exact parameter counts, family by family, as the modeling_*.py files declare the tensors: embeddings, the blocks'
// linears, norms and small tensors, the head for a task, a vision tower. Also the number of layers that keep keys and
// values. Pure; memoized per architecture.
import type { Head } from '../setup';
import { FAMILY_TRAITS, type FamilyTraits } from './families';
import { linearModules } from './modules';
import type { Architecture, Family, LinearModule, Mamba1Spec, Mamba2Spec, ParameterCount } from './types';

/** Decoder layers with a key/value cache: all but the linear-attention, Mamba2 and (Nemotron-H) MLP-only layers. */
export function attentionLayerCount(a: Architecture): number {
  if (a.blockKinds) return a.blockKinds.filter((k) => k === '*').length;
  if (a.mamba?.parallel) return a.layers;
  return a.layers - (a.linearAttention?.layers ?? 0) - (a.mamba?.layers ?? 0) - (a.mamba1?.layers ?? 0);
}

/** A Mamba2 mixer's parameters outside its two linears: conv1d weight (and bias), dt_bias, A_log, D, the gated norm. */
function mambaExtra(mb: Mamba2Spec): number {
  const convDim = mb.heads * mb.headDim + 2 * mb.groups * mb.state;
  return (
    convDim * mb.convKernel + (mb.convBias ? convDim : 0) + 3 * mb.heads + (mb.gatedNorm ? mb.heads * mb.headDim : 0)
  );
}

/** A Mamba-1 mixer's parameters outside its linears: conv1d weight (and bias), A_log, D, the dt / B / C norms. */
function mamba1Extra(m: Mamba1Spec): number {
  return m.inner * m.convKernel + (m.convBias ? m.inner : 0) + m.inner * m.state + m.inner + m.dtRank + 2 * m.state;
}

/** Norms per block by FamilyTraits.normPlacement. */
const NORMS_PER_BLOCK: Readonly<Record<FamilyTraits['normPlacement'], number>> = {
  shared: 1,
  pre: 2,
  post: 2,
  sandwich: 4,
};

const countCache = new WeakMap<Architecture, Map<string, ParameterCount>>();

/** Exact parameter count of the model with the given task head; formulas per family in the comments. Memoized. */
export function countParameters(a: Architecture, head: Head = a.defaultHead, numLabels = 2): ParameterCount {
  let byHead = countCache.get(a);
  if (!byHead) {
    byHead = new Map();
    countCache.set(a, byHead);
  }
  const key = `${head}:${numLabels}`;
  let c = byHead.get(key);
  if (!c) {
    c = countParametersUncached(a, head, numLabels);
    byHead.set(key, c);
  }
  return c;
}

/** A block's norms and the small tensors outside its linears, all blocks together; finalNorm where a family sets it. */
interface BlockExtras {
  readonly blockNorms: number;
  readonly extra: number;
  readonly finalNorm?: number;
}

/** Families whose blocks hold norms or tensors beyond the default placement's (DEFAULT_EXTRAS), by family. */
/** Two norms per layer, and q_norm / k_norm as wide as the q and k projections (OLMo 2, OLMoE). */
function wholeProjectionQkNorms(a: Architecture, normSize: number): BlockExtras {
  return { blockNorms: 2 * normSize * a.layers, extra: (a.heads + a.kvHeads) * a.headDim * a.layers };
}

const FAMILY_EXTRAS: Partial<Record<Family, (a: Architecture, normSize: number) => BlockExtras>> = {
  // Encoder blocks: 2 norms; decoder blocks: 3 norms; relative attention bias (32 buckets x heads) in the first layer
  // of the encoder and of the decoder; final norms of both stacks.
  t5: (a) => ({
    blockNorms: a.hidden * (2 * a.encoderLayers + 3 * a.layers),
    extra: 2 * 32 * a.heads,
    finalNorm: 2 * a.hidden,
  }),
  // BART: two LayerNorms per encoder layer and three per decoder layer; mBART adds each stack's final layer_norm.
  bart: bartExtras,
  mbart: bartExtras,
  // Two post-LayerNorms per layer; the encoder's rel_embeddings (2 x buckets rows) and their LayerNorm; the ConvLayer
  // beside the first layer (Conv1d h -> h over conv_kernel_size taps in conv_groups groups, with bias, and a LayerNorm).
  deberta_v2: (a, normSize) => {
    const d = a.deberta!;
    const h = a.hidden;
    const conv = d.conv ? (h * h * d.conv.kernel) / d.conv.groups + h + normSize : 0;
    return { blockNorms: 2 * normSize * a.layers, extra: d.relRows * h + (d.relNorm ? normSize : 0) + conv };
  },
  // input and post-attention norms, q_a_layernorm (with a q LoRA rank) and kv_a_layernorm per layer. The router's
  // e_score_correction_bias is a buffer, not a parameter.
  deepseek_v3: (a) => ({
    blockNorms: (2 * a.hidden + (a.mla!.qLoraRank > 0 ? a.mla!.qLoraRank : 0) + a.mla!.kvLoraRank) * a.layers,
    extra: 0,
  }),
  // Input and post-attention norms in every layer; kv_a_layernorm in the MLA layers; in each KDA layer the three
  // ShortConvolution weights (P x K each, no bias), A_log (one per head), dt_bias (P) and the gated output norm's
  // weight (head_dim); the router's e_score_correction_bias (one per expert) is an nn.Parameter in KimiMoEGate.
  kimi_linear: (a, normSize) => {
    const la = a.linearAttention;
    const kda = la?.layers ?? 0;
    const P = la ? la.keyHeads * la.keyDim : 0;
    const kdaExtra = la ? kda * (3 * P * la.convKernel + la.keyHeads + P + la.keyDim) : 0;
    return {
      blockNorms: 2 * normSize * a.layers + a.mla!.kvLoraRank * (a.layers - kda),
      extra: kdaExtra + (a.moe?.experts ?? 0) * (a.moe?.moeLayers ?? 0),
    };
  },
  // Two LayerNorms (one with use_parallel_residual); with qk_layernorm, a LayerNorm without bias per head of q and k
  // (StableLmLayerNormPerHead).
  stablelm: (a, normSize) => ({
    blockNorms: (a.normsPerBlock ?? 2) * normSize * a.layers,
    extra: a.qkNorm ? (a.heads + a.kvHeads) * a.headDim * a.layers : 0,
  }),
  // Cohere: one CohereLayerNorm per block; with use_qk_norm (Command R+), q_norm and k_norm weights of (heads, head_dim)
  // and (kv heads, head_dim) (modeling_cohere.py CohereAttention).
  cohere: (a, normSize) => ({
    blockNorms: normSize * a.layers,
    extra: a.qkNorm ? (a.heads + a.kvHeads) * a.headDim * a.layers : 0,
  }),
  // OLMo 2's post_attention and post_feedforward norms, OLMoE's input and post-attention norms (modeling_olmoe.py);
  // both with q_norm and k_norm over the whole q and k projections.
  olmo2: wholeProjectionQkNorms,
  olmoe: wholeProjectionQkNorms,
  // One norm per layer; each Mamba2 layer's conv1d, dt_bias, A_log, D and gated norm.
  nemotron_h: (a, normSize) => ({ blockNorms: normSize * a.layers, extra: a.mamba!.layers * mambaExtra(a.mamba!) }),
  // input_layernorm and pre_ff_layernorm; each Mamba-1 layer's depthwise conv1d (with its bias), A_log (inner x state),
  // D, and the dt / B / C RMSNorms (dt_proj's bias is counted with the linears).
  jamba: (a, normSize) => ({ blockNorms: 2 * normSize * a.layers, extra: a.mamba1!.layers * mamba1Extra(a.mamba1!) }),
  // input_layernorm and pre_ff_layernorm; each layer's Mamba2 conv1d, dt_bias, A_log, D (and gated norm with
  // mamba_rms_norm). The µP multipliers are config floats and mup_vector a non-persistent buffer: no parameters.
  falcon_h1: (a, normSize) => ({ blockNorms: 2 * normSize * a.layers, extra: a.layers * mambaExtra(a.mamba!) }),
  // Input and post-attention norms in every layer; in each Mamba2 layer the depthwise conv1d over x, B and C (with its
  // bias), dt_bias, A_log and D per head and the gated norm over the inner width.
  granite_hybrid: (a, normSize) => ({
    blockNorms: 2 * normSize * a.layers,
    extra: a.mamba!.layers * mambaExtra(a.mamba!),
  }),
  // Input and post-attention norms in every layer; q_norm and k_norm (head_dim each) in the full-attention layers; in
  // each Gated DeltaNet layer the depthwise conv1d over the q, k, v channels (no bias), dt_bias and A_log per value head
  // and the gated RMSNorm's weight (value head width, shared by the heads).
  qwen3_next: (a, normSize) => {
    const la = a.linearAttention!;
    const convDim = 2 * la.keyHeads * la.keyDim + la.valueHeads * la.valueDim;
    return {
      blockNorms: 2 * normSize * a.layers,
      extra:
        2 * a.headDim * (a.layers - la.layers) +
        la.layers * (convDim * la.convKernel + 2 * la.valueHeads + la.valueDim),
    };
  },
};

/** BART / mBART: LayerNorms per block (2 in the encoder's, 3 in the decoder's), mBART's final norm in each stack. */
function bartExtras(a: Architecture, normSize: number): BlockExtras {
  return {
    blockNorms: normSize * (2 * a.encoderLayers + 3 * a.layers),
    extra: 0,
    finalNorm: FAMILY_TRAITS[a.family].finalNorm ? 2 * normSize : 0,
  };
}

/**
 * One shared norm (Phi-2), two (before, or after, attention and the MLP), or four (sandwich: input, post_attention,
 * pre_feedforward, post_feedforward); q_norm and k_norm per head; attention sinks, one learned logit per head (gpt-oss).
 */
function defaultExtras(a: Architecture, normSize: number): BlockExtras {
  const traits = FAMILY_TRAITS[a.family];
  const qk = a.qkNorm ? 2 * a.headDim * a.layers : 0;
  const sinks = traits.attentionSinks ? a.heads * a.layers : 0;
  // Mllama's cross-attention layers: q_norm and k_norm over a head's width, the attention's and the MLP's tanh gates.
  const cross = (a.crossAttentionLayers ?? 0) * (2 * a.headDim + 2);
  return {
    blockNorms: (a.normsPerBlock ?? NORMS_PER_BLOCK[traits.normPlacement]) * normSize * a.layers,
    extra: qk + sinks + cross,
  };
}

/**
 * Token embeddings (narrower than the hidden size in OPT-350m, with projections in and out); a learned position table
 * (GPT-2's wpe, BERT's position_embeddings, OPT's with 2 extra rows); the BERT family's token-type embeddings; an
 * embedding LayerNorm (BLOOM's word_embeddings_layernorm, BERT's embeddings.LayerNorm).
 */
function embeddingParameters(a: Architecture, normSize: number): number {
  const traits = FAMILY_TRAITS[a.family];
  const h = a.hidden;
  let embedding = (a.vocab + (a.embedExtraRows ?? 0)) * (a.embedWidth ?? h);
  if (a.embedWidth !== undefined) embedding += 2 * a.embedWidth * h;
  // An encoder-decoder's encoder and decoder each have their own position table and embedding LayerNorm (BART).
  const stacks = traits.stack === 'encoder-decoder' ? 2 : 1;
  if (a.positions === 'learned') embedding += stacks * (a.maxPositions + traits.positionOffset) * h;
  if (traits.stack === 'encoder') embedding += a.typeVocab * h;
  if (traits.embeddingNorm) embedding += stacks * normSize;
  return embedding;
}

/** The task head's parameters. */
function headParameters(a: Architecture, head: Head, numLabels: number): number {
  const traits = FAMILY_TRAITS[a.family];
  const h = a.hidden;
  const encoder = traits.stack === 'encoder';
  switch (head) {
    case 'causal_lm':
    case 'seq2seq_lm':
      return (a.tied ? 0 : a.vocab * (a.embedWidth ?? h)) + (traits.lmHeadBias ? a.vocab : 0);
    case 'masked_lm':
      // BertLMPredictionHead: transform dense h*h + h, LayerNorm 2h, decoder tied to the embedding plus a V bias
      // (BertForMaskedLM builds BertModel without its pooler).
      return encoder ? h * h + h + 2 * h + a.vocab : a.tied ? 0 : a.vocab * h;
    case 'seq_cls':
      // Pooler (BERT; RoBERTa's classification head has the same dense layer) + classifier; decoder models score with a
      // bias-free linear on the last token.
      return encoder ? h * h + h + h * numLabels + numLabels : h * numLabels;
    case 'none':
      // BertModel/RobertaModel keep their pooler; DistilBertModel and DebertaV2Model have none (DeBERTa's ContextPooler
      // belongs to its sequence classifier).
      return encoder && a.family !== 'distilbert' && a.family !== 'deberta_v2' ? h * h + h : 0;
  }
  return 0;
}

function countParametersUncached(a: Architecture, head: Head, numLabels: number): ParameterCount {
  const mods = linearModules(a);
  let linear = 0;
  let linearBias = 0;
  for (const m of mods) {
    linear += m.inFeatures * m.outFeatures * m.count;
    if (m.bias) linearBias += m.outFeatures * m.count;
  }
  const traits = FAMILY_TRAITS[a.family];
  // Norm weights (and biases for LayerNorm) per block, as the modeling files declare them.
  const normSize = a.normAffine === false ? 0 : a.norm === 'layer' && traits.layerNormBias ? 2 * a.hidden : a.hidden;
  const embedding = embeddingParameters(a, normSize);
  const extras = (FAMILY_EXTRAS[a.family] ?? defaultExtras)(a, normSize);
  const finalNorm = extras.finalNorm ?? ((a.finalNorm ?? traits.finalNorm) ? normSize : 0);
  const blocks = linear + linearBias + extras.blockNorms + extras.extra;
  const headParams = headParameters(a, head, numLabels);
  return {
    total: embedding + blocks + finalNorm + headParams + a.visionParams,
    embedding,
    head: headParams,
    blocks: blocks + finalNorm,
    finalNorm,
    largestBlock: largestBlockOf(a, mods, blocks, normSize),
    linear,
    other: linearBias + extras.blockNorms + extras.extra + finalNorm,
    vision: a.visionParams,
  };
}

/**
 * One encoder layer's parameters: each attention and MLP linear once (the decoder's cross-attention is not the
 * encoder's) and two norms. Zero for a model without an encoder.
 */
export function encoderLayerParameters(a: Architecture): number {
  if (a.encoderLayers === 0) return 0;
  const traits = FAMILY_TRAITS[a.family];
  const normSize = a.norm === 'layer' && traits.layerNormBias ? 2 * a.hidden : a.hidden;
  return linearModules(a).reduce((t, m) => t + withBias(m), 0) + 2 * normSize;
}

/** A linear's weights and bias. */
const withBias = (m: LinearModule): number => m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0);

/**
 * One block's parameters: the largest block where the blocks differ (dense and MoE layers, hybrid mixers, an
 * encoder-decoder's decoder: T5, BART).
 */
function largestBlockOf(a: Architecture, mods: readonly LinearModule[], blocks: number, normSize: number): number {
  const h = a.hidden;
  const encoderDecoder = FAMILY_TRAITS[a.family].stack === 'encoder-decoder';
  // A module's count spreads over encoder + decoder blocks (the decoder's attention twice: self and cross).
  const blocksHolding = (m: LinearModule): number =>
    encoderDecoder ? (m.group === 'mlp' ? a.encoderLayers + a.layers : a.encoderLayers + 2 * a.layers) : a.layers;
  const perBlockLinear = mods.reduce((s, m) => s + withBias(m) * (m.count / blocksHolding(m)), 0);
  // A model whose first layers are dense (DeepSeek) or that mixes dense and MoE layers: its largest block is the
  // larger of the two kinds, not the average.
  const moe = a.moe;
  let largestBlock = encoderDecoder ? Math.round(perBlockLinear + 3 * normSize) : Math.round(blocks / a.layers);
  if (moe && moe.moeLayers > 0 && moe.moeLayers < a.layers) {
    const per = (g: (m: LinearModule) => boolean, n: number): number =>
      mods.filter(g).reduce((t, m) => t + m.inFeatures * m.outFeatures * m.count, 0) / n;
    const moeMlp = per(
      (m) => m.group === 'expert' || m.group === 'router' || m.name.startsWith('shared_expert'),
      moe.moeLayers,
    );
    const denseMlp = per((m) => m.group === 'mlp' && !m.name.startsWith('shared_expert'), a.layers - moe.moeLayers);
    largestBlock = Math.round(
      blocks / a.layers -
        (moeMlp * moe.moeLayers + denseMlp * (a.layers - moe.moeLayers)) / a.layers +
        Math.max(moeMlp, denseMlp),
    );
  }
  const la = a.linearAttention ?? a.mamba ?? a.mamba1;
  if (a.blockKinds) {
    // Nemotron-H: a layer is one norm and one mixer; the largest block is the largest of the three kinds present.
    const sizeOf = (names: string[], extraParams: number): number =>
      mods.filter((m) => names.includes(m.name)).reduce((t, m) => t + withBias(m), 0) + extraParams + h;
    const present = new Set(a.blockKinds);
    const moeBlock =
      mods
        .filter(
          (m) =>
            m.group === 'expert' ||
            m.group === 'router' ||
            m.name.startsWith('shared_experts') ||
            m.name.includes('latent_proj'),
        )
        .reduce((t, m) => t + withBias(m) * (m.count / (a.moe?.moeLayers || 1)), 0) + h;
    largestBlock = Math.max(
      present.has('M') ? sizeOf(['in_proj', 'out_proj'], mambaExtra(a.mamba!)) : 0,
      present.has('*') ? sizeOf(['q_proj', 'k_proj', 'v_proj', 'o_proj'], 0) : 0,
      present.has('-') ? sizeOf(['up_proj', 'down_proj'], 0) : 0,
      present.has('E') ? moeBlock : 0,
    );
  } else if (la && la.layers > 0 && la.layers < a.layers) {
    // Linear-attention (or Mamba2) and full-attention layers differ in their attention half: the largest block has the
    // larger one.
    const kda = a.linearAttention?.kda === true;
    const lin = a.linearAttention;
    const mixerExtra = kda
      ? lin!.keyHeads * lin!.keyDim * (3 * lin!.convKernel + 1) + lin!.keyHeads + lin!.keyDim
      : lin
        ? (2 * lin.keyHeads * lin.keyDim + lin.valueHeads * lin.valueDim) * lin.convKernel +
          2 * lin.valueHeads +
          lin.valueDim
        : a.mamba
          ? mambaExtra(a.mamba)
          : mamba1Extra(a.mamba1!);
    const isFull = (m: LinearModule): boolean =>
      kda ? m.layerKind === 'full' : ['q_proj', 'k_proj', 'v_proj', 'o_proj'].includes(m.name);
    const isLinear = (m: LinearModule): boolean =>
      kda ? m.layerKind === 'linear' : m.group === 'attention' && m.count === la.layers && !isFull(m);
    const linearHalf = mods.filter(isLinear).reduce((t, m) => t + withBias(m), 0) + mixerExtra;
    const fullHalf =
      mods.filter(isFull).reduce((t, m) => t + withBias(m), 0) +
      (a.qkNorm ? 2 * a.headDim : 0) +
      (kda ? a.mla!.kvLoraRank : 0);
    const mean = (linearHalf * la.layers + fullHalf * (a.layers - la.layers)) / a.layers;
    largestBlock = Math.round(largestBlock - mean + Math.max(linearHalf, fullHalf));
  }
  return largestBlock;
}
