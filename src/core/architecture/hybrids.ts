// Layer patterns of the hybrid decoders, whose layers do not all run the same mixer: Gated DeltaNet (Qwen3-Next,
// Qwen3.5) and Kimi Delta Attention (Kimi Linear) beside full attention, Mamba2 (Granite 4.0 H, Falcon-H1,
// Nemotron-H) and Mamba-1 (Jamba) beside attention, and the MoE blocks read with those patterns. Pure.
import { bool, num, obj, str, type ParseContext } from './read';
import type { Architecture, LinearAttentionSpec, Mamba1Spec, Mamba2Spec, MoeSpec } from './types';
import type { Dimensions } from './parse';

type BlockKind = 'M' | '*' | '-' | 'E';

/**
 * Nemotron-H's layer list (hybrid_override_pattern, or layers_block_type / layer_types): one mixer per layer, Mamba2
 * ('M'), attention ('*'), a ReLU² MLP ('-') or MoE ('E'). Undefined, with a problem, when the config has none.
 */
export function nemotronPattern(ctx: ParseContext): BlockKind[] | undefined {
  const { cfg } = ctx;
  const pat = str(cfg, 'hybrid_override_pattern');
  const list = Array.isArray(cfg.layers_block_type)
    ? (cfg.layers_block_type as unknown[])
    : Array.isArray(cfg.layer_types)
      ? (cfg.layer_types as unknown[])
      : undefined;
  const kindOf = (t: unknown): BlockKind | undefined =>
    t === 'M' || t === 'mamba' || t === 'linear_attention'
      ? 'M'
      : t === '*' || t === 'attention' || t === 'full_attention'
        ? '*'
        : t === '-' || t === 'mlp'
          ? '-'
          : t === 'E' || t === 'moe'
            ? 'E'
            : undefined;
  const raw = pat !== undefined ? [...pat] : list;
  if (!raw || raw.length === 0) {
    ctx.problem('hybrid_override_pattern', 'a nemotron_h config needs hybrid_override_pattern (or layers_block_type)');
    return undefined;
  }
  const kinds = raw.map(kindOf);
  const bad = raw.filter((_, i) => kinds[i] === undefined);
  if (bad.length > 0) {
    ctx.problem(
      'hybrid_override_pattern',
      `unknown layer kinds ${[...new Set(bad.map(String))].join(', ')} (M mamba, * attention, - MLP, E MoE)`,
    );
  }
  return kinds.filter((k): k is BlockKind => k !== undefined);
}

/** What the hybrid parts of a config add to the architecture; `moe` is the MoE block after them (they may set it). */
export interface HybridParse {
  readonly moe?: MoeSpec;
  readonly linearAttention?: LinearAttentionSpec;
  readonly mamba?: Mamba2Spec;
  readonly mamba1?: Mamba1Spec;
  readonly moeMask?: readonly boolean[];
  readonly blockKinds?: readonly BlockKind[];
  readonly moeLatent?: number;
  readonly moeRouting?: Architecture['moeRouting'];
}

/** The hybrid mixers of a family and the MoE block they come with; `moe` is what the experts step found. */
export function parseHybrid(
  ctx: ParseContext,
  dims: Dimensions,
  moe: MoeSpec | undefined,
  nemotronKinds: readonly BlockKind[] | undefined,
): HybridParse {
  const { cfg } = ctx;
  switch (ctx.family) {
    case 'qwen3_next':
      return { moe, linearAttention: gatedDeltaNet(ctx, dims) };
    case 'kimi_linear': {
      const linearAttention = kimiDeltaAttention(ctx, dims);
      // KimiSparseMoeBlock renormalises the chosen weights when moe_renormalize (default true) and top-k > 1.
      const moeRouting = moe
        ? {
            groups: num(cfg, 'num_expert_group') ?? 1,
            topkGroups: num(cfg, 'topk_group') ?? 1,
            normTopk: bool(cfg, 'moe_renormalize') ?? true,
          }
        : undefined;
      return { moe, ...(linearAttention ? { linearAttention } : {}), ...(moeRouting ? { moeRouting } : {}) };
    }
    case 'granite_hybrid':
      return { moe, ...graniteLayers(ctx, dims) };
    case 'falcon_h1':
      return { moe, mamba: falconH1Mixer(ctx, dims) };
    case 'jamba':
      return { moe, ...jambaLayers(ctx, dims) };
    case 'nemotron_h':
      return nemotronKinds ? { moe, ...nemotronLayers(ctx, nemotronKinds) } : { moe };
    default:
      return { moe };
  }
}

/**
 * Gated DeltaNet layers: layer_types when listed, else every full_attention_interval-th layer (4) is full attention
 * (Qwen3NextConfig). Defaults of the linear-attention fields as in configuration_qwen3_next.py.
 */
function gatedDeltaNet(ctx: ParseContext, { layers }: Dimensions): LinearAttentionSpec {
  const { cfg, modelType } = ctx;
  const listed = Array.isArray(cfg.layer_types) ? (cfg.layer_types as unknown[]) : undefined;
  const interval = num(cfg, 'full_attention_interval') ?? 4;
  const pattern = Array.from({ length: layers }, (_, i) =>
    listed ? listed[i] !== 'full_attention' : (i + 1) % Math.max(1, interval) !== 0,
  );
  if (listed && listed.length !== layers)
    ctx.problem('layer_types', `layer_types lists ${listed.length} layers, num_hidden_layers is ${layers}`);
  const la: LinearAttentionSpec = {
    layers: pattern.filter(Boolean).length,
    pattern,
    keyHeads: ctx.need(num(cfg, 'linear_num_key_heads') ?? 16, 'linear_num_key_heads'),
    valueHeads: ctx.need(num(cfg, 'linear_num_value_heads') ?? 32, 'linear_num_value_heads'),
    keyDim: ctx.need(num(cfg, 'linear_key_head_dim') ?? 128, 'linear_key_head_dim'),
    valueDim: ctx.need(num(cfg, 'linear_value_head_dim') ?? 128, 'linear_value_head_dim'),
    convKernel: ctx.need(num(cfg, 'linear_conv_kernel_dim') ?? 4, 'linear_conv_kernel_dim'),
    splitProjections: modelType !== 'qwen3_next',
  };
  if (la.valueHeads % la.keyHeads !== 0) {
    ctx.problem(
      'linear_num_value_heads',
      `linear_num_value_heads (${la.valueHeads}) must be a multiple of linear_num_key_heads (${la.keyHeads})`,
    );
  }
  return la;
}

/**
 * KimiLinearConfig.linear_attn_config: kda_layers lists the KDA layers (1-based), the others are MLA layers; num_heads
 * heads of head_dim for q, k and v alike; short_conv_kernel_size taps (modeling_kimi.py KimiDeltaAttention).
 */
function kimiDeltaAttention(ctx: ParseContext, { layers }: Dimensions): LinearAttentionSpec | undefined {
  const lac = obj(ctx.cfg, 'linear_attn_config');
  if (!lac) {
    ctx.problem(
      'linear_attn_config',
      'a kimi_linear config needs linear_attn_config (kda_layers, num_heads, head_dim, short_conv_kernel_size)',
    );
    return undefined;
  }
  const listed = Array.isArray(lac.kda_layers)
    ? (lac.kda_layers as unknown[]).filter((x): x is number => typeof x === 'number')
    : undefined;
  if (!listed)
    ctx.problem(
      'linear_attn_config.kda_layers',
      'linear_attn_config needs kda_layers (the 1-based indices of the KDA layers)',
    );
  const bad = (listed ?? []).filter((x) => !Number.isInteger(x) || x < 1 || x > layers);
  if (bad.length > 0)
    ctx.problem(
      'linear_attn_config.kda_layers',
      `kda_layers ${bad.join(', ')} are outside 1..${layers} (the indices are 1-based)`,
    );
  const kdaSet = new Set(listed ?? []);
  const pattern = Array.from({ length: layers }, (_, i) => kdaSet.has(i + 1));
  const kh = ctx.need(num(lac, 'num_heads'), 'linear_attn_config.num_heads');
  const kdim = ctx.need(num(lac, 'head_dim'), 'linear_attn_config.head_dim');
  return {
    layers: pattern.filter(Boolean).length,
    pattern,
    keyHeads: kh,
    valueHeads: kh,
    keyDim: kdim,
    valueDim: kdim,
    convKernel: ctx.need(num(lac, 'short_conv_kernel_size') ?? 4, 'linear_attn_config.short_conv_kernel_size'),
    splitProjections: true,
    kda: true,
  };
}

/**
 * Granite 4.0: layer_types (or layers_block_type) lists "mamba" / "attention", all "mamba" when absent
 * (GraniteMoeHybridConfig). The MoE models (num_local_experts > 0) keep their experts in
 * GraniteMoeHybridParallelExperts (3-D weights) beside the shared MLP in every layer, with a top-k router that is an
 * nn.Linear; experts are intermediate_size wide (gate and up fused).
 */
function graniteLayers(ctx: ParseContext, { hidden, layers }: Dimensions): { moe?: MoeSpec; mamba: Mamba2Spec } {
  const { cfg } = ctx;
  const experts = num(cfg, 'num_local_experts') ?? 0;
  const moe: MoeSpec | undefined =
    experts > 0
      ? {
          experts,
          topK: ctx.need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'),
          expertFfn: ctx.need(num(cfg, 'intermediate_size'), 'intermediate_size'),
          sharedExpertFfn: 0,
          sharedExpertGate: false,
          moeLayers: layers,
        }
      : undefined;
  const listed = Array.isArray(cfg.layer_types)
    ? (cfg.layer_types as unknown[])
    : Array.isArray(cfg.layers_block_type)
      ? (cfg.layers_block_type as unknown[])
      : undefined;
  if (listed && listed.length !== layers)
    ctx.problem('layer_types', `layer_types lists ${listed.length} layers, num_hidden_layers is ${layers}`);
  const pattern = Array.from({ length: layers }, (_, i) => (listed ? listed[i] !== 'attention' : true));
  const inner = (num(cfg, 'mamba_expand') ?? 2) * hidden;
  const mHeads = ctx.need(num(cfg, 'mamba_n_heads') ?? 128, 'mamba_n_heads');
  const headDimM = num(cfg, 'mamba_d_head') ?? inner / mHeads;
  if (headDimM * mHeads !== inner) {
    ctx.problem(
      'mamba_d_head',
      `mamba_n_heads (${mHeads}) x mamba_d_head (${headDimM}) must equal mamba_expand x hidden_size (${inner})`,
    );
  }
  const mamba: Mamba2Spec = {
    layers: pattern.filter(Boolean).length,
    pattern,
    heads: mHeads,
    headDim: headDimM,
    groups: ctx.need(num(cfg, 'mamba_n_groups') ?? 1, 'mamba_n_groups'),
    state: ctx.need(num(cfg, 'mamba_d_state') ?? 256, 'mamba_d_state'),
    convKernel: ctx.need(num(cfg, 'mamba_d_conv') ?? 4, 'mamba_d_conv'),
    chunk: ctx.need(num(cfg, 'mamba_chunk_size') ?? 256, 'mamba_chunk_size'),
    convBias: bool(cfg, 'mamba_conv_bias') ?? true,
    projBias: bool(cfg, 'mamba_proj_bias') ?? false,
    normGroups: 1,
    gatedNorm: true,
    outBias: bool(cfg, 'mamba_proj_bias') ?? false,
  };
  return { ...(moe ? { moe } : {}), mamba };
}

/**
 * FalconH1Config: the mixer's inner width is mamba_d_ssm (1024 when the key is absent, mamba_expand x hidden_size when
 * it is null), mamba_d_head "auto" = inner / mamba_n_heads; the gated norm only with mamba_rms_norm, grouped by
 * mamba_n_groups; in_proj's bias is mamba_proj_bias, out_proj's projectors_bias.
 */
function falconH1Mixer(ctx: ParseContext, { hidden, layers }: Dimensions): Mamba2Spec {
  const { cfg } = ctx;
  const dssm = cfg.mamba_d_ssm;
  const inner =
    dssm === null ? (num(cfg, 'mamba_expand') ?? 2) * hidden : ctx.need(num(cfg, 'mamba_d_ssm') ?? 1024, 'mamba_d_ssm');
  const mHeads = ctx.need(num(cfg, 'mamba_n_heads') ?? 128, 'mamba_n_heads');
  const headDimM = num(cfg, 'mamba_d_head') ?? inner / mHeads;
  if (headDimM * mHeads !== inner) {
    ctx.problem(
      'mamba_d_head',
      `mamba_n_heads (${mHeads}) x mamba_d_head (${headDimM}) must equal the mixer's inner width mamba_d_ssm (${inner})`,
    );
  }
  const groups = ctx.need(num(cfg, 'mamba_n_groups') ?? 1, 'mamba_n_groups');
  return {
    layers,
    pattern: Array.from({ length: layers }, () => true),
    heads: mHeads,
    headDim: headDimM,
    groups,
    state: ctx.need(num(cfg, 'mamba_d_state') ?? 256, 'mamba_d_state'),
    convKernel: ctx.need(num(cfg, 'mamba_d_conv') ?? 4, 'mamba_d_conv'),
    chunk: ctx.need(num(cfg, 'mamba_chunk_size') ?? 256, 'mamba_chunk_size'),
    convBias: bool(cfg, 'mamba_conv_bias') ?? true,
    projBias: bool(cfg, 'mamba_proj_bias') ?? false,
    outBias: bool(cfg, 'projectors_bias') ?? false,
    normGroups: groups,
    gatedNorm: bool(cfg, 'mamba_rms_norm') ?? false,
    parallel: true,
  };
}

/**
 * Jamba (JambaConfig): layer i is attention when i % attn_layer_period == attn_layer_offset (8, 4), else Mamba-1; it
 * holds the MoE block when num_experts > 1 and i % expert_layer_period == expert_layer_offset (2, 1). Mamba-1 inner
 * width mamba_expand x hidden, dt rank "auto" = ceil(hidden / 16).
 */
function jambaLayers(
  ctx: ParseContext,
  { hidden, layers, ffn }: Dimensions,
): { moe?: MoeSpec; moeMask?: boolean[]; mamba1: Mamba1Spec } {
  const { cfg } = ctx;
  const period = ctx.need(num(cfg, 'attn_layer_period') ?? 8, 'attn_layer_period');
  const offset = num(cfg, 'attn_layer_offset') ?? 4;
  const ePeriod = ctx.need(num(cfg, 'expert_layer_period') ?? 2, 'expert_layer_period');
  const eOffset = num(cfg, 'expert_layer_offset') ?? 1;
  const pattern = Array.from({ length: layers }, (_, i) => i % period !== offset);
  const experts = num(cfg, 'num_experts') ?? 16;
  let moe: MoeSpec | undefined;
  let moeMask: boolean[] | undefined;
  if (experts > 1) {
    moeMask = Array.from({ length: layers }, (_, i) => i % ePeriod === eOffset);
    moe = {
      experts,
      topK: ctx.need(num(cfg, 'num_experts_per_tok') ?? 2, 'num_experts_per_tok'),
      expertFfn: ffn,
      sharedExpertFfn: 0,
      sharedExpertGate: false,
      moeLayers: moeMask.filter(Boolean).length,
    };
  }
  const rank = cfg.mamba_dt_rank;
  const mamba1: Mamba1Spec = {
    layers: pattern.filter(Boolean).length,
    pattern,
    inner: ctx.need(num(cfg, 'mamba_expand') ?? 2, 'mamba_expand') * hidden,
    state: ctx.need(num(cfg, 'mamba_d_state') ?? 16, 'mamba_d_state'),
    dtRank:
      rank === undefined || rank === null || rank === 'auto'
        ? Math.ceil(hidden / 16)
        : ctx.need(num(cfg, 'mamba_dt_rank'), 'mamba_dt_rank'),
    convKernel: ctx.need(num(cfg, 'mamba_d_conv') ?? 4, 'mamba_d_conv'),
    convBias: bool(cfg, 'mamba_conv_bias') ?? true,
    projBias: bool(cfg, 'mamba_proj_bias') ?? false,
    useKernels: bool(cfg, 'use_mamba_kernels') ?? true,
  };
  return { ...(moe ? { moe, moeMask } : {}), mamba1 };
}

/**
 * NemotronHConfig fields and defaults: mamba_num_heads 128 x mamba_head_dim 64, n_groups 8, ssm_state_size 128,
 * conv_kernel 4 with bias, chunk_size 128, no projection biases; the gated norm is grouped by n_groups.
 */
function nemotronLayers(ctx: ParseContext, blockKinds: readonly BlockKind[]): HybridParse {
  const { cfg } = ctx;
  const moeLayers = blockKinds.filter((k) => k === 'E').length;
  let moe: MoeSpec | undefined;
  let moeLatent: number | undefined;
  let moeRouting: Architecture['moeRouting'];
  if (moeLayers > 0) {
    // NemotronHMoE: n_routed_experts non-gated ReLU² experts (3-D up_proj / down_proj), a sigmoid router (a bare weight
    // and an fp32 correction-bias buffer), shared experts of moe_shared_expert_intermediate_size; with moe_latent_size
    // the routed experts work in that width between fc1_latent_proj and fc2_latent_proj.
    const latent = num(cfg, 'moe_latent_size');
    if (latent !== undefined && latent > 0) moeLatent = latent;
    moeRouting = {
      groups: num(cfg, 'n_group') ?? 1,
      topkGroups: num(cfg, 'topk_group') ?? 1,
      normTopk: bool(cfg, 'norm_topk_prob') ?? true,
    };
    moe = {
      experts: ctx.need(num(cfg, 'n_routed_experts'), 'n_routed_experts'),
      topK: ctx.need(num(cfg, 'num_experts_per_tok'), 'num_experts_per_tok'),
      expertFfn: ctx.need(num(cfg, 'moe_intermediate_size'), 'moe_intermediate_size'),
      sharedExpertFfn: (num(cfg, 'moe_shared_expert_intermediate_size') ?? 0) * (num(cfg, 'n_shared_experts') ?? 1),
      sharedExpertGate: false,
      moeLayers,
    };
  }
  const groups = ctx.need(num(cfg, 'n_groups', 'mamba_n_groups') ?? 8, 'n_groups');
  const pattern = blockKinds.map((k) => k === 'M');
  const mamba: Mamba2Spec = {
    layers: pattern.filter(Boolean).length,
    pattern,
    heads: ctx.need(num(cfg, 'mamba_num_heads') ?? 128, 'mamba_num_heads'),
    headDim: ctx.need(num(cfg, 'mamba_head_dim') ?? 64, 'mamba_head_dim'),
    groups,
    state: ctx.need(num(cfg, 'ssm_state_size', 'mamba_state_dim') ?? 128, 'ssm_state_size'),
    convKernel: ctx.need(num(cfg, 'conv_kernel', 'mamba_d_conv') ?? 4, 'conv_kernel'),
    chunk: ctx.need(num(cfg, 'chunk_size') ?? 128, 'chunk_size'),
    convBias: bool(cfg, 'use_conv_bias') ?? bool(cfg, 'mamba_conv_bias') ?? true,
    projBias: bool(cfg, 'use_bias') ?? false,
    outBias: bool(cfg, 'use_bias') ?? false,
    normGroups: groups,
    gatedNorm: true,
  };
  return {
    ...(moe ? { moe } : {}),
    ...(moeLatent ? { moeLatent } : {}),
    ...(moeRouting ? { moeRouting } : {}),
    blockKinds,
    mamba,
  };
}
