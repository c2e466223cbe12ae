// Mixture-of-experts blocks: which decoder layers hold one and how they are sized (Mixtral, Qwen-MoE, gpt-oss,
// Qwen3-Next / 3.5, Kimi Linear, DeepSeek-V2/V3, GLM-4.5, Llama 4), and the two other ways transformers builds the
// same experts (per-expert linears under bitsandbytes for Llama 4, fused 3-D parameters in transformers 5). The MoE
// blocks of the Mamba hybrids (Granite 4.0 H, Jamba, Nemotron) are read with their layer patterns in hybrids.ts.
import { FAMILY_TRAITS } from './families';
import { num, type ParseContext } from './read';
import type { Architecture, Family, MoeSpec, PeftMoePattern } from './types';
import type { Dimensions } from './parse';

/**
 * Families whose experts transformers 5 fuses into 3-D parameters, or that only ever had those (FamilyTraits.fusedExperts
 * 'from-5.0' or 'only'); gpt-oss and Llama 4 always had their own.
 */
export const FUSED_EXPERT_FAMILIES: ReadonlySet<Family> = new Set<Family>(
  (Object.keys(FAMILY_TRAITS) as Family[]).filter(
    (f) => FAMILY_TRAITS[f].fusedExperts === 'from-5.0' || FAMILY_TRAITS[f].fusedExperts === 'only',
  ),
);

/**
 * The model types whose LoRA target_modules PEFT (0.19 on, with transformers 5) converts onto the fused experts, and with
 * which pattern: transformers' `_MODEL_TO_CONVERSION_PATTERN` (conversion_mapping.py, 5.17) sends them to 'mixtral' or
 * 'qwen2_moe', and PEFT adds 'mixtral' itself (peft/utils/transformers_weight_conversion.py). Only the model types the
 * estimator reads: qwen2_moe itself is no key of that table, so PEFT converts nothing for it (its experts stay out of
 * target_modules' reach); neither for Qwen3.5-MoE (qwen3_5_moe_text -> qwen3_5_text), Qwen3-VL-MoE, Jamba or gpt-oss.
 */
export const PEFT_MOE_PATTERNS: Readonly<Record<string, PeftMoePattern>> = {
  mixtral: 'mixtral',
  qwen3_moe: 'qwen2_moe',
  qwen3_next: 'qwen2_moe',
  deepseek_v2: 'qwen2_moe',
  deepseek_v3: 'qwen2_moe',
  glm4_moe: 'qwen2_moe',
  olmoe: 'qwen2_moe',
};

const sequentialExpertsCache = new WeakMap<Architecture, Architecture>();
const fusedExpertsCache = new WeakMap<Architecture, Architecture>();

/** `a` with `change` applied, made once per architecture and kept in `cache` (so memos keyed by the object still hit). */
export function variant(
  cache: WeakMap<Architecture, Architecture>,
  a: Architecture,
  change: Partial<Architecture>,
): Architecture {
  let out = cache.get(a);
  if (!out) {
    out = { ...a, ...change };
    cache.set(a, out);
  }
  return out;
}

/**
 * The architecture with per-expert linear layers (see Architecture.expertsAsLinear): Llama 4 as bitsandbytes loads it,
 * gpt-oss as Unsloth loads it in 4 bits; one object per architecture.
 */
export function withSequentialExperts(a: Architecture): Architecture {
  return variant(sequentialExpertsCache, a, { expertsAsLinear: true });
}

/** The architecture as transformers 5 builds it (see Architecture.fusedExperts); one object per architecture. */
export function withFusedExperts(a: Architecture): Architecture {
  return FUSED_EXPERT_FAMILIES.has(a.family) && !a.fusedExperts
    ? variant(fusedExpertsCache, a, { fusedExperts: true })
    : a;
}

/**
 * Whether each MoE layer's experts are 3-D parameters whose first dimension is the expert count: transformers 5's fused
 * experts, and gpt-oss's and Llama 4's own ([E, h, 2I] gate_up_proj, [E, I, h] down_proj; gpt-oss's biases [E, 2I],
 * [E, h]) unless bitsandbytes loads Llama 4's per expert. What FSDP2 shards along dim 0.
 */
export function expertsIn3dParameters(a: Architecture): boolean {
  if (a.moe === undefined || a.expertsAsLinear === true) return false;
  return a.fusedExperts === true || FAMILY_TRAITS[a.family].fusedExperts === 'own';
}

/**
 * Whether transformers' grouped_mm multiplies this model's experts (unless its 4.x loop runs them one after another):
 * transformers 5's fused experts, and gpt-oss's own (Llama 4's go through torch.bmm over every token).
 */
export function groupedMmExperts(a: Architecture): boolean {
  return a.moe !== undefined && (a.fusedExperts === true || a.family === 'gpt_oss');
}

export interface ExpertsParse {
  readonly moe?: MoeSpec;
  readonly layerPattern?: Architecture['layerPattern'];
}

/** Decoder layers i in [0, layers) that `isMoe(i)` marks. */
function countLayers(layers: number, isMoe: (i: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < layers; i++) if (isMoe(i)) n++;
  return n;
}

/** The MoE block of a decoder whose every MoE layer has the same routed experts (and maybe shared ones). */
export function parseExperts(ctx: ParseContext, dims: Dimensions): ExpertsParse {
  const { cfg, family } = ctx;
  switch (family) {
    case 'mixtral':
    case 'qwen2_moe':
    case 'qwen3_moe':
    case 'gpt_oss':
    case 'olmoe':
      return { moe: sparseMoe(ctx, dims) };
    case 'qwen3_next':
      return (num(cfg, 'num_experts') ?? 0) > 0 ? { moe: qwen3NextMoe(ctx, dims) } : {};
    case 'kimi_linear':
      return (num(cfg, 'num_experts', 'num_local_experts', 'n_routed_experts') ?? 0) > 0
        ? { moe: kimiMoe(ctx, dims) }
        : {};
    case 'deepseek_v3':
    case 'glm4_moe':
      return { moe: deepseekMoe(ctx, dims) };
    case 'llama4':
      return llama4Layers(ctx, dims);
    case 'minicpm':
      // MiniCPM-MoE-8x2B writes its experts into the same model_type (modeling_minicpm.py MiniCPMMoE).
      if ((num(cfg, 'num_experts') ?? 0) > 0) ctx.problem('num_experts', "MiniCPM-MoE's experts are not modeled");
      return {};
    default:
      return {};
  }
}

/** Mixtral, Qwen2-MoE, Qwen3-MoE, gpt-oss, OLMoE: every decoder_sparse_step-th layer not in mlp_only_layers is MoE. */
function sparseMoe(ctx: ParseContext, dims: Dimensions): MoeSpec {
  const { cfg, family } = ctx;
  const { layers, ffn } = dims;
  // Mixtral, gpt-oss and OLMoE: intermediate_size is the width of one expert (no moe_intermediate_size).
  const localExperts = family === 'mixtral' || family === 'gpt_oss' || family === 'olmoe';
  const experts = ctx.need(
    num(cfg, 'num_local_experts', 'num_experts'),
    family === 'mixtral' || family === 'gpt_oss' ? 'num_local_experts' : 'num_experts',
  );
  const topK = ctx.need(num(cfg, 'num_experts_per_tok', 'experts_per_token'), 'num_experts_per_tok');
  // gpt-oss: intermediate_size is the width of one expert (modeling_gpt_oss.py GptOssExperts.expert_dim).
  const expertFfn = localExperts ? ffn : ctx.need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
  const sharedExpertFfn = family === 'qwen2_moe' ? (num(cfg, 'shared_expert_intermediate_size') ?? 0) : 0;
  const step = num(cfg, 'decoder_sparse_step') ?? 1;
  const onlyMlp = Array.isArray(cfg['mlp_only_layers'])
    ? ((cfg['mlp_only_layers'] as unknown[]).filter((x) => typeof x === 'number') as number[])
    : [];
  let moeLayers = countLayers(layers, (i) => !onlyMlp.includes(i) && experts > 0 && (i + 1) % step === 0);
  if (localExperts) moeLayers = layers;
  return {
    experts,
    topK,
    expertFfn,
    sharedExpertFfn,
    sharedExpertGate: family === 'qwen2_moe' && sharedExpertFfn > 0,
    moeLayers,
  };
}

/**
 * Qwen3NextDecoderLayer: a sparse MoE block where (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers,
 * else a dense MLP of intermediate_size; Qwen3_5MoeDecoderLayer: a sparse MoE block in every layer. The block has
 * routed experts of moe_intermediate_size, a router without bias, one shared expert of
 * shared_expert_intermediate_size and its one-output sigmoid gate.
 */
function qwen3NextMoe(ctx: ParseContext, dims: Dimensions): MoeSpec {
  const { cfg, modelType } = ctx;
  const experts = ctx.need(num(cfg, 'num_experts'), 'num_experts');
  const everyLayer = modelType === 'qwen3_5_moe' || modelType === 'qwen3_5_moe_text';
  const step = everyLayer ? 1 : (num(cfg, 'decoder_sparse_step') ?? 1);
  const onlyMlp =
    !everyLayer && Array.isArray(cfg['mlp_only_layers'])
      ? ((cfg['mlp_only_layers'] as unknown[]).filter((x) => typeof x === 'number') as number[])
      : [];
  const moeLayers = countLayers(dims.layers, (i) => !onlyMlp.includes(i) && (i + 1) % step === 0);
  const sharedExpertFfn = num(cfg, 'shared_expert_intermediate_size') ?? 0;
  return {
    experts,
    topK: ctx.need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'),
    expertFfn: ctx.need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size'),
    sharedExpertFfn,
    sharedExpertGate: sharedExpertFfn > 0,
    moeLayers,
  };
}

/**
 * KimiDecoderLayer: KimiSparseMoeBlock where layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0,
 * else KimiMLP of intermediate_size; the shared experts are one KimiMLP of moe_intermediate_size x num_shared_experts.
 */
function kimiMoe(ctx: ParseContext, dims: Dimensions): MoeSpec {
  const { cfg } = ctx;
  const experts = ctx.need(num(cfg, 'num_experts', 'num_local_experts', 'n_routed_experts'), 'num_experts');
  const firstDense = num(cfg, 'first_k_dense_replace') ?? 0;
  const freq = num(cfg, 'moe_layer_freq') ?? 1;
  const expertFfn = ctx.need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
  const moeLayers = countLayers(dims.layers, (i) => i >= firstDense && i % freq === 0);
  return {
    experts,
    topK: ctx.need(num(cfg, 'num_experts_per_token', 'num_experts_per_tok'), 'num_experts_per_token'),
    expertFfn,
    sharedExpertFfn: expertFfn * (num(cfg, 'num_shared_experts', 'n_shared_experts') ?? 0),
    sharedExpertGate: false,
    moeLayers,
  };
}

/**
 * DeepseekV3DecoderLayer: layers from first_k_dense_replace on are MoE (every moe_layer_freq-th), the first ones a
 * dense MLP of intermediate_size; the shared experts are one MLP of moe_intermediate_size x n_shared_experts.
 * Glm4MoeDecoderLayer: the same rule without moe_layer_freq.
 */
function deepseekMoe(ctx: ParseContext, dims: Dimensions): MoeSpec {
  const { cfg } = ctx;
  const experts = ctx.need(num(cfg, 'n_routed_experts'), 'n_routed_experts');
  const firstDense = num(cfg, 'first_k_dense_replace') ?? 0;
  const freq = num(cfg, 'moe_layer_freq') ?? 1;
  const expertFfn = ctx.need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size');
  const moeLayers = countLayers(dims.layers, (i) => i >= firstDense && i % freq === 0);
  return {
    experts,
    topK: ctx.need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'),
    expertFfn,
    sharedExpertFfn: expertFfn * (num(cfg, 'n_shared_experts') ?? 0),
    sharedExpertGate: false,
    moeLayers,
  };
}

/**
 * Llama4TextConfig: moe_layers defaults to every interleave_moe_layer_step-th layer (from step - 1); no_rope_layers
 * to 1 (rotary) except every no_rope_layer_interval-th layer (4).
 */
function llama4Layers(ctx: ParseContext, dims: Dimensions): ExpertsParse {
  const { cfg } = ctx;
  const { layers } = dims;
  const experts = ctx.need(num(cfg, 'num_local_experts') ?? 16, 'num_local_experts');
  const step = num(cfg, 'interleave_moe_layer_step') ?? 1;
  const listed = Array.isArray(cfg.moe_layers)
    ? new Set((cfg.moe_layers as unknown[]).filter((x): x is number => typeof x === 'number'))
    : undefined;
  const noRope = Array.isArray(cfg.no_rope_layers) ? (cfg.no_rope_layers as unknown[]) : undefined;
  const interval = num(cfg, 'no_rope_layer_interval') ?? 4;
  const moeFlags = Array.from({ length: layers }, (_, i) =>
    listed ? listed.has(i) : step > 0 && i >= step - 1 && (i - (step - 1)) % step === 0,
  );
  const ropeFlags = Array.from({ length: layers }, (_, i) =>
    noRope ? noRope[i] !== 0 && noRope[i] !== false : (i + 1) % interval !== 0,
  );
  const tuning = cfg.attn_temperature_tuning;
  const layerPattern = {
    moe: moeFlags,
    rope: ropeFlags,
    temperatureTuning: tuning === undefined || tuning === null ? true : Boolean(tuning),
  };
  const expertFfn = ctx.need(num(cfg, 'intermediate_size') ?? 8192, 'intermediate_size');
  const moe: MoeSpec = {
    experts,
    topK: ctx.need(num(cfg, 'num_experts_per_tok') ?? 1, 'num_experts_per_tok'),
    expertFfn,
    sharedExpertFfn: expertFfn,
    sharedExpertGate: false,
    moeLayers: moeFlags.filter(Boolean).length,
  };
  return { moe, layerPattern };
}
