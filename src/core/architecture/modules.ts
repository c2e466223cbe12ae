// Linear modules of each family in Hugging Face naming (q_proj, c_attn, query_key_value, experts.gate_up_proj ...), the
// units LoRA attaches to and quantization replaces, with their shapes and how many the model has. Structural: one
// `case` per family layout. Pure.
import { FAMILY_TRAITS } from './families';
import type { Architecture, Family, LinearModule } from './types';

const modulesCache = new WeakMap<Architecture, LinearModule[]>();

/** Linear layers of one decoder block (or encoder block) in HF naming, with their shapes. Memoized per architecture. */
export function linearModules(a: Architecture): LinearModule[] {
  let m = modulesCache.get(a);
  if (!m) {
    m = linearModulesUncached(a);
    modulesCache.set(a, m);
  }
  return m;
}

type AddLinear = (
  name: string,
  inF: number,
  outF: number,
  bias: boolean,
  count: number,
  group: LinearModule['group'],
  tokenFraction?: number,
  parameter?: boolean,
) => void;

/** q/k/v/o nn.Linear projections of grouped-query attention (q/k/v biases per qkvBias, o per outBias). */
function gqaAttention(a: Architecture, add: AddLinear): void {
  const qd = a.heads * a.headDim;
  const kvd = a.kvHeads * a.headDim;
  add('q_proj', a.hidden, qd, a.qkvBias, a.layers, 'attention');
  add('k_proj', a.hidden, kvd, a.qkvBias, a.layers, 'attention');
  add('v_proj', a.hidden, kvd, a.qkvBias, a.layers, 'attention');
  add('o_proj', qd, a.hidden, a.outBias, a.layers, 'attention');
}

/**
 * The routed experts of the MoE layers: one nn.Linear per expert projection (transformers 4), or the two 3-D
 * parameters of transformers 5 (Architecture.fusedExperts), the same parameter count.
 */
function routedExperts(a: Architecture, add: AddLinear, [gate, up, down]: readonly [string, string, string]): void {
  const moe = a.moe!;
  const h = a.hidden;
  const frac = moe.topK / moe.experts;
  const n = moe.moeLayers * moe.experts;
  if (a.fusedExperts) {
    add('experts.gate_up_proj', h, 2 * moe.expertFfn, false, n, 'expert', frac, true);
    add('experts.down_proj', moe.expertFfn, h, false, n, 'expert', frac, true);
    return;
  }
  add(`experts.${gate}`, h, moe.expertFfn, false, n, 'expert', frac);
  add(`experts.${up}`, h, moe.expertFfn, false, n, 'expert', frac);
  add(`experts.${down}`, moe.expertFfn, h, false, n, 'expert', frac);
}

/**
 * DeepSeek-V3's MLPs (modeling_deepseek_v3.py; GLM-4.5 reuses them): a dense gate/up/down MLP in the first layers, then
 * per MoE layer the routed experts, a router that is a bare nn.Parameter (DeepseekV3TopkRouter.weight) and the shared
 * experts as one MLP named shared_experts.
 */
function deepseekMlps(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const moe = a.moe!;
  const dense = a.layers - moe.moeLayers;
  add('gate_proj', h, a.ffn, false, dense, 'mlp');
  add('up_proj', h, a.ffn, false, dense, 'mlp');
  add('down_proj', a.ffn, h, false, dense, 'mlp');
  routedExperts(a, add, FAMILY_TRAITS[a.family].expertNames);
  add('gate', h, moe.experts, false, moe.moeLayers, 'router', 1, true);
  if (moe.sharedExpertFfn > 0) {
    add('shared_experts.gate_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
    add('shared_experts.up_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
    add('shared_experts.down_proj', moe.sharedExpertFfn, h, false, moe.moeLayers, 'mlp');
  }
}

/** The widths every module list reads: hidden, the query and key-value projections' outputs, the layer count. */
function widths(a: Architecture): { h: number; qd: number; kvd: number; L: number } {
  return { h: a.hidden, qd: a.heads * a.headDim, kvd: a.kvHeads * a.headDim, L: a.layers };
}

/** GPT-2: a fused c_attn and c_proj, the MLP's c_fc and c_proj (Conv1D, all with biases). */
function gpt2Modules(a: Architecture, add: AddLinear): void {
  const { h, L } = widths(a);
  add('c_attn', h, 3 * h, true, L, 'attention');
  add('c_proj', h, h, true, L, 'attention');
  add('c_fc', h, a.ffn, true, L, 'mlp');
  add('mlp.c_proj', a.ffn, h, true, L, 'mlp');
}

/** GPT-NeoX: a fused query_key_value and dense, the MLP's dense_h_to_4h and dense_4h_to_h. */
function gptNeoxModules(a: Architecture, add: AddLinear): void {
  const { h, L } = widths(a);
  add('query_key_value', h, 3 * h, a.qkvBias, L, 'attention');
  add('dense', h, h, a.outBias, L, 'attention');
  add('dense_h_to_4h', h, a.ffn, a.mlpBias, L, 'mlp');
  add('dense_4h_to_h', a.ffn, h, a.mlpBias, L, 'mlp');
}

/** Qwen (v1): c_attn with bias, c_proj, and the MLP's w1, w2 and c_proj. */
function qwenModules(a: Architecture, add: AddLinear): void {
  const { h, L } = widths(a);
  add('c_attn', h, 3 * h, true, L, 'attention');
  add('c_proj', h, h, false, L, 'attention');
  add('w1', h, a.ffn, false, L, 'mlp');
  add('w2', h, a.ffn, false, L, 'mlp');
  add('mlp.c_proj', a.ffn, h, false, L, 'mlp');
}

/** The six linear modules of a post-LayerNorm encoder layer, all with biases: BERT's names and DistilBERT's. */
export interface EncoderLinears {
  readonly q: string;
  readonly k: string;
  readonly v: string;
  readonly out: string;
  readonly up: string;
  readonly down: string;
}

/** BERT and RoBERTa: query, key, value and the attention's output dense, the intermediate and output dense. */
export const BERT_LINEARS: EncoderLinears = {
  q: 'query',
  k: 'key',
  v: 'value',
  out: 'attention.output.dense',
  up: 'intermediate.dense',
  down: 'output.dense',
};

/** DistilBERT: q_lin, k_lin, v_lin and out_lin, the FFN's lin1 and lin2. */
export const DISTILBERT_LINEARS: EncoderLinears = {
  q: 'q_lin',
  k: 'k_lin',
  v: 'v_lin',
  out: 'out_lin',
  up: 'lin1',
  down: 'lin2',
};

/** DeBERTa-v2 / v3: query_proj, key_proj and value_proj; BERT's output, intermediate and output dense. */
export const DEBERTA_LINEARS: EncoderLinears = { ...BERT_LINEARS, q: 'query_proj', k: 'key_proj', v: 'value_proj' };

const encoderModules =
  (n: EncoderLinears) =>
  (a: Architecture, add: AddLinear): void => {
    const { h, qd, L } = widths(a);
    add(n.q, h, qd, true, L, 'attention');
    add(n.k, h, qd, true, L, 'attention');
    add(n.v, h, qd, true, L, 'attention');
    add(n.out, qd, h, true, L, 'attention');
    add(n.up, h, a.ffn, true, L, 'mlp');
    add(n.down, a.ffn, h, true, L, 'mlp');
  };

/**
 * DeBERTa-v2 / v3: BERT's encoder linears under DeBERTa's names; with share_att_key off, each layer's pos_key_proj (for
 * c2p) and pos_query_proj (for p2c) project the relative embeddings, both biased.
 */
function debertaModules(a: Architecture, add: AddLinear): void {
  encoderModules(DEBERTA_LINEARS)(a, add);
  const d = a.deberta;
  if (!d || d.shareAttKey) return;
  const { h, qd, L } = widths(a);
  if (d.c2p) add('pos_key_proj', h, qd, true, L, 'attention');
  if (d.p2c) add('pos_query_proj', h, qd, true, L, 'attention');
}

/** BloomAttention: query_key_value (h -> 3h) and dense, BloomMLP: dense_h_to_4h and dense_4h_to_h, all with biases. */
function bloomModules(a: Architecture, add: AddLinear): void {
  const { h, qd, L } = widths(a);
  add('query_key_value', h, 3 * qd, true, L, 'attention');
  add('dense', qd, h, true, L, 'attention');
  add('dense_h_to_4h', h, a.ffn, true, L, 'mlp');
  add('dense_4h_to_h', a.ffn, h, true, L, 'mlp');
}

/** Phi (1, 1.5, 2): q/k/v and dense with biases, the MLP's fc1 and fc2. */
function phiModules(a: Architecture, add: AddLinear): void {
  const { h, qd, kvd, L } = widths(a);
  add('q_proj', h, qd, true, L, 'attention');
  add('k_proj', h, kvd, true, L, 'attention');
  add('v_proj', h, kvd, true, L, 'attention');
  add('dense', qd, h, true, L, 'attention');
  add('fc1', h, a.ffn, true, L, 'mlp');
  add('fc2', a.ffn, h, true, L, 'mlp');
}

/** GLM-4-0414: grouped-query attention and a fused gate_up_proj. */
function glm4Modules(a: Architecture, add: AddLinear): void {
  const { h, L } = widths(a);
  gqaAttention(a, add);
  add('gate_up_proj', h, 2 * a.ffn, false, L, 'mlp');
  add('down_proj', a.ffn, h, false, L, 'mlp');
}

/** Phi-3: a fused qkv_proj and gate_up_proj. */
function phi3Modules(a: Architecture, add: AddLinear): void {
  const { h, qd, kvd, L } = widths(a);
  add('qkv_proj', h, qd + 2 * kvd, false, L, 'attention');
  add('o_proj', qd, h, false, L, 'attention');
  add('gate_up_proj', h, 2 * a.ffn, false, L, 'mlp');
  add('down_proj', a.ffn, h, false, L, 'mlp');
}

/** Glm4MoeAttention: q/k/v with attention_bias, o_proj without (outBias is false); then DeepSeek-V3's dense and MoE MLPs. */
function glm4MoeModules(a: Architecture, add: AddLinear): void {
  gqaAttention(a, add);
  deepseekMlps(a, add);
}

/** The linear modules of a family whose layers are not the Llama decoder's (decoderModules), by family. */
const FAMILY_MODULES: Partial<Record<Family, (a: Architecture, add: AddLinear, m: LinearModule[]) => void>> = {
  gpt2: gpt2Modules,
  gpt_neox: gptNeoxModules,
  qwen: qwenModules,
  bert: encoderModules(BERT_LINEARS),
  roberta: encoderModules(BERT_LINEARS),
  distilbert: encoderModules(DISTILBERT_LINEARS),
  deberta_v2: debertaModules,
  t5: t5Modules,
  bart: bartModules,
  mbart: bartModules,
  opt: namedDecoderModules,
  gptj: namedDecoderModules,
  nemotron: namedDecoderModules,
  gpt_neo: namedDecoderModules,
  falcon: namedDecoderModules,
  chatglm: namedDecoderModules,
  chatglm1: namedDecoderModules,
  gpt_bigcode: namedDecoderModules,
  starcoder2: namedDecoderModules,
  internlm2: namedDecoderModules,
  baichuan: namedDecoderModules,
  bloom: bloomModules,
  phi: phiModules,
  glm4: glm4Modules,
  phi3: phi3Modules,
  gpt_oss: gptOssModules,
  deepseek_v3: deepseekV3Modules,
  kimi_linear: (a, add, m) => kimiLinearModules(a, m, add),
  llama4: llama4Modules,
  glm4_moe: glm4MoeModules,
  nemotron_h: nemotronModules,
  jamba: jambaModules,
  falcon_h1: falconH1Modules,
  granite_hybrid: graniteHybridModules,
};

function linearModulesUncached(a: Architecture): LinearModule[] {
  const m: LinearModule[] = [];
  const add: AddLinear = (name, inF, outF, bias, count, group, tokenFraction = 1, parameter = false) => {
    if (count > 0)
      m.push({
        name,
        inFeatures: inF,
        outFeatures: outF,
        bias,
        count,
        group,
        tokenFraction,
        ...(parameter ? { parameter } : {}),
      });
  };
  (FAMILY_MODULES[a.family] ?? decoderModules)(a, add, m);
  return m;
}

/** T5's encoder and decoder: q, k, v, o in self-attention (both stacks) and cross-attention (decoder), wi (or wi_0 / wi_1 gated) and wo. */
function t5Modules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const qd = a.heads * a.headDim;
  const L = a.layers;
  const E = a.encoderLayers;
  for (const [n, c, g] of [
    ['q', E + 2 * L, 'attention'],
    ['k', E + 2 * L, 'attention'],
    ['v', E + 2 * L, 'attention'],
  ] as const) {
    add(n, h, qd, false, c, g);
  }
  add('o', qd, h, false, E + 2 * L, 'attention');
  if (a.gatedMlp) {
    add('wi_0', h, a.ffn, false, E + L, 'mlp');
    add('wi_1', h, a.ffn, false, E + L, 'mlp');
  } else {
    add('wi', h, a.ffn, false, E + L, 'mlp');
  }
  add('wo', a.ffn, h, false, E + L, 'mlp');
}

/**
 * BART's and mBART's encoder and decoder (modeling_bart.py BartAttention, BartEncoderLayer, BartDecoderLayer): q_proj,
 * k_proj, v_proj, out_proj with biases in self-attention (both stacks) and encoder_attn (decoder); fc1 and fc2.
 */
function bartModules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const qd = a.heads * a.headDim;
  const attentions = a.encoderLayers + 2 * a.layers;
  for (const n of ['q_proj', 'k_proj', 'v_proj'] as const) add(n, h, qd, true, attentions, 'attention');
  add('out_proj', qd, h, true, attentions, 'attention');
  add('fc1', h, a.ffn, true, a.encoderLayers + a.layers, 'mlp');
  add('fc2', a.ffn, h, true, a.encoderLayers + a.layers, 'mlp');
}

/** gpt-oss: attention projections, the experts and the router as 3-D parameters. */
function gptOssModules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const L = a.layers;
  // GptOssAttention: q/k/v/o nn.Linear with attention_bias; GptOssExperts: 3-D parameters gate_up_proj (E, h, 2f)
  // with bias (E, 2f) and down_proj (E, f, h) with bias (E, h); GptOssTopKRouter: weight (E, h) and bias (E).
  // The experts and the router are not nn.Linear, so PEFT's all-linear reaches only the attention projections.
  // Unsloth's 4-bit load (unsloth_zoo temporary_patches/gpt_oss.py GptOssExpertsBnb4bit) makes the experts ModuleLists
  // of nn.Linear with bias, gate_up_projs and down_projs, which bitsandbytes quantizes; the router stays a parameter.
  const moe = a.moe!;
  const linear = a.expertsAsLinear === true;
  const routed = moe.topK / moe.experts;
  gqaAttention(a, add);
  add(
    `experts.gate_up_proj${linear ? 's' : ''}`,
    h,
    2 * moe.expertFfn,
    true,
    L * moe.experts,
    'expert',
    routed,
    !linear,
  );
  add(`experts.down_proj${linear ? 's' : ''}`, moe.expertFfn, h, true, L * moe.experts, 'expert', routed, !linear);
  add('router', h, moe.experts, true, L, 'router', 1, true);
}

/** DeepSeek-V3: multi-head latent attention, then the dense and MoE MLPs. */
function deepseekV3Modules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const qd = a.heads * a.headDim;
  const L = a.layers;
  // DeepseekV3Attention (MLA) and DeepseekV3MoE: the router is a bare nn.Parameter (DeepseekV3TopkRouter.weight),
  // the shared experts one DeepseekV3MLP named shared_experts.
  const mla = a.mla!;
  if (mla.qLoraRank > 0) {
    add('q_a_proj', h, mla.qLoraRank, a.qkvBias, L, 'attention');
    add('q_b_proj', mla.qLoraRank, qd, false, L, 'attention');
  } else {
    add('q_proj', h, qd, false, L, 'attention');
  }
  add('kv_a_proj_with_mqa', h, mla.kvLoraRank + mla.qkRope, a.qkvBias, L, 'attention');
  add('kv_b_proj', mla.kvLoraRank, a.heads * (mla.qkNope + mla.vHeadDim), false, L, 'attention');
  add('o_proj', a.heads * mla.vHeadDim, h, a.outBias, L, 'attention');
  deepseekMlps(a, add);
}

/** Llama 4: attention, dense MLPs, the experts (3-D, or per-expert linears under bitsandbytes), the router and the shared expert. */
function llama4Modules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const L = a.layers;
  // Llama4TextAttention q/k/v/o (attention_bias); dense layers Llama4TextMLP of intermediate_size_mlp; MoE layers
  // Llama4TextExperts as 3-D parameters (gate_up_proj E x h x 2f, down_proj E x f x h: not nn.Linear, so PEFT's
  // all-linear leaves them), Llama4Router (an nn.Linear) and the shared expert. transformers runs every token
  // through every expert (a bmm over all E, the tokens scaled by their sigmoid scores, zero off the top-k).
  const moe = a.moe!;
  gqaAttention(a, add);
  const dense = L - moe.moeLayers;
  add('gate_proj', h, a.ffn, false, dense, 'mlp');
  add('up_proj', h, a.ffn, false, dense, 'mlp');
  add('down_proj', a.ffn, h, false, dense, 'mlp');
  if (a.expertsAsLinear) {
    add('experts.gate_proj', h, moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert');
    add('experts.up_proj', h, moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert');
    add('experts.down_proj', moe.expertFfn, h, false, moe.moeLayers * moe.experts, 'expert');
  } else {
    add('experts.gate_up_proj', h, 2 * moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert', 1, true);
    add('experts.down_proj', moe.expertFfn, h, false, moe.moeLayers * moe.experts, 'expert', 1, true);
  }
  add('router', h, moe.experts, false, moe.moeLayers, 'router');
  add('shared_expert.gate_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
  add('shared_expert.up_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
  add('shared_expert.down_proj', moe.sharedExpertFfn, h, false, moe.moeLayers, 'mlp');
}

/** Jamba: attention or Mamba-1 mixers, dense MLPs or Mixtral's MoE. */
function jambaModules(a: Architecture, add: AddLinear): void {
  const { h, qd, kvd, L } = widths(a);
  // JambaAttention q/k/v/o without bias on the attention layers; the Mamba-1 mixer's in_proj and out_proj
  // (mamba_proj_bias), x_proj (no bias) and dt_proj (with bias) on the others; JambaMLP (gate/up/down) on the dense
  // layers, the router and Mixtral's experts on the MoE layers.
  const m1 = a.mamba1!;
  const att = L - m1.layers;
  add('q_proj', h, qd, false, att, 'attention');
  add('k_proj', h, kvd, false, att, 'attention');
  add('v_proj', h, kvd, false, att, 'attention');
  add('o_proj', qd, h, false, att, 'attention');
  add('in_proj', h, 2 * m1.inner, m1.projBias, m1.layers, 'attention');
  add('x_proj', m1.inner, m1.dtRank + 2 * m1.state, false, m1.layers, 'attention');
  add('dt_proj', m1.dtRank, m1.inner, true, m1.layers, 'attention');
  add('out_proj', m1.inner, h, m1.projBias, m1.layers, 'attention');
  const moe = a.moe;
  const dense = moe ? L - moe.moeLayers : L;
  add('gate_proj', h, a.ffn, false, dense, 'mlp');
  add('up_proj', h, a.ffn, false, dense, 'mlp');
  add('down_proj', a.ffn, h, false, dense, 'mlp');
  if (moe) {
    routedExperts(a, add, ['gate_proj', 'up_proj', 'down_proj']);
    add('router', h, moe.experts, false, moe.moeLayers, 'router');
  }
}

/** Falcon-H1: a Mamba2 mixer, Llama attention and a SwiGLU MLP in every layer. */
function falconH1Modules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const L = a.layers;
  // FalconH1DecoderLayer: the Mamba2 mixer's in_proj (mamba_proj_bias) and out_proj (projectors_bias), Llama attention
  // (attention_bias on q/k/v and o) and the SwiGLU MLP (mlp_bias), all in every layer.
  const mb = a.mamba!;
  const inner = mb.heads * mb.headDim;
  add('in_proj', h, 2 * inner + 2 * mb.groups * mb.state + mb.heads, mb.projBias, L, 'attention');
  add('out_proj', inner, h, mb.outBias, L, 'attention');
  gqaAttention(a, add);
  add('gate_proj', h, a.ffn, a.mlpBias, L, 'mlp');
  add('up_proj', h, a.ffn, a.mlpBias, L, 'mlp');
  add('down_proj', a.ffn, h, a.mlpBias, L, 'mlp');
}

/** Granite 4.0 H: attention or Mamba2 mixers, the shared MLP everywhere, the MoE block when there is one. */
function graniteHybridModules(a: Architecture, add: AddLinear): void {
  const { h, qd, kvd, L } = widths(a);
  // GraniteMoeHybridAttention q/k/v/o (attention_bias) on the attention layers, the Mamba2 mixer's in_proj and out_proj
  // (mamba_proj_bias) on the others, the shared MLP's input_linear (gate and up) and output_linear everywhere.
  const mb = a.mamba!;
  const full = L - mb.layers;
  const inner = mb.heads * mb.headDim;
  add('q_proj', h, qd, a.qkvBias, full, 'attention');
  add('k_proj', h, kvd, a.qkvBias, full, 'attention');
  add('v_proj', h, kvd, a.qkvBias, full, 'attention');
  add('o_proj', qd, h, a.outBias, full, 'attention');
  add('in_proj', h, 2 * inner + 2 * mb.groups * mb.state + mb.heads, mb.projBias, mb.layers, 'attention');
  add('out_proj', inner, h, mb.outBias, mb.layers, 'attention');
  add('input_linear', h, 2 * a.ffn, false, L, 'mlp');
  add('output_linear', a.ffn, h, false, L, 'mlp');
  const moe = a.moe;
  if (moe) {
    const frac = moe.topK / moe.experts;
    add('block_sparse_moe.input_linear', h, 2 * moe.expertFfn, false, L * moe.experts, 'expert', frac, true);
    add('block_sparse_moe.output_linear', moe.expertFfn, h, false, L * moe.experts, 'expert', frac, true);
    add('block_sparse_moe.router.layer', h, moe.experts, false, L, 'router');
  }
}

/** Kimi Linear: its MLA and KDA layers both have q_proj and o_proj, of different shapes: each is tagged with its layer kind. */
function kimiLinearModules(a: Architecture, m: LinearModule[], add: AddLinear): void {
  const h = a.hidden;
  const qd = a.heads * a.headDim;
  const L = a.layers;
  // modeling_kimi.py: KimiMLAAttention on the full-attention layers (q_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj);
  // KimiDeltaAttention on the KDA layers (q_proj, k_proj, v_proj of heads x head_dim, the forget gate f_a_proj ->
  // f_b_proj and output gate g_a_proj -> g_b_proj of rank head_dim, b_proj to one beta per head, o_proj), all
  // without bias. The MLPs are KimiMLP (gate_proj, up_proj, down_proj) in the dense layers and as shared_experts;
  // the routed experts are KimiBlockSparseMLP (w1 gate, w3 up, w2 down) each; the router KimiMoEGate is a bare weight.
  const mla = a.mla!;
  const la = a.linearAttention;
  const kdaLayers = la?.layers ?? 0;
  const full = L - kdaLayers;
  const addIn =
    (kind: 'linear' | 'full'): AddLinear =>
    (name, inF, outF, bias, count, group) => {
      if (count > 0)
        m.push({ name, inFeatures: inF, outFeatures: outF, bias, count, group, tokenFraction: 1, layerKind: kind });
    };
  const addFull = addIn('full');
  addFull('q_proj', h, qd, false, full, 'attention');
  addFull('kv_a_proj_with_mqa', h, mla.kvLoraRank + mla.qkRope, false, full, 'attention');
  addFull('kv_b_proj', mla.kvLoraRank, a.heads * (mla.qkNope + mla.vHeadDim), false, full, 'attention');
  addFull('o_proj', a.heads * mla.vHeadDim, h, false, full, 'attention');
  if (la && kdaLayers > 0) {
    const addKda = addIn('linear');
    const P = la.keyHeads * la.keyDim;
    addKda('q_proj', h, P, false, kdaLayers, 'attention');
    addKda('k_proj', h, P, false, kdaLayers, 'attention');
    addKda('v_proj', h, P, false, kdaLayers, 'attention');
    addKda('f_a_proj', h, la.keyDim, false, kdaLayers, 'attention');
    addKda('f_b_proj', la.keyDim, P, false, kdaLayers, 'attention');
    addKda('b_proj', h, la.keyHeads, false, kdaLayers, 'attention');
    addKda('g_a_proj', h, la.keyDim, false, kdaLayers, 'attention');
    addKda('g_b_proj', la.keyDim, P, false, kdaLayers, 'attention');
    addKda('o_proj', P, h, false, kdaLayers, 'attention');
  }
  if (a.moe) deepseekMlps(a, add);
  else {
    add('gate_proj', h, a.ffn, false, L, 'mlp');
    add('up_proj', h, a.ffn, false, L, 'mlp');
    add('down_proj', a.ffn, h, false, L, 'mlp');
  }
}

/** Nemotron-H: one mixer per layer (Mamba2, attention, ReLU² MLP or MoE), by the block pattern. */
function nemotronModules(a: Architecture, add: AddLinear): void {
  const h = a.hidden;
  const qd = a.heads * a.headDim;
  const kvd = a.kvHeads * a.headDim;
  // One mixer per layer: NemotronHMamba2Mixer in_proj / out_proj ('M'), q/k/v/o without bias ('*'), the ReLU² MLP's
  // up_proj / down_proj ('-').
  const mb = a.mamba!;
  const kinds = a.blockKinds!;
  const att = kinds.filter((k) => k === '*').length;
  const mlps = kinds.filter((k) => k === '-').length;
  const inner = mb.heads * mb.headDim;
  add('q_proj', h, qd, false, att, 'attention');
  add('k_proj', h, kvd, false, att, 'attention');
  add('v_proj', h, kvd, false, att, 'attention');
  add('o_proj', qd, h, false, att, 'attention');
  add('in_proj', h, 2 * inner + 2 * mb.groups * mb.state + mb.heads, mb.projBias, mb.layers, 'attention');
  add('out_proj', inner, h, mb.outBias, mb.layers, 'attention');
  add('up_proj', h, a.ffn, a.mlpBias, mlps, 'mlp');
  add('down_proj', a.ffn, h, a.mlpBias, mlps, 'mlp');
  const moe = a.moe;
  if (moe) {
    // Experts as 3-D parameters (non-gated), the router's bare weight, the shared experts and latent projections.
    const d = a.moeLatent ?? h;
    const frac = moe.topK / moe.experts;
    add('experts.up_proj', d, moe.expertFfn, false, moe.moeLayers * moe.experts, 'expert', frac, true);
    add('experts.down_proj', moe.expertFfn, d, false, moe.moeLayers * moe.experts, 'expert', frac, true);
    add('gate', h, moe.experts, false, moe.moeLayers, 'router', 1, true);
    add('shared_experts.up_proj', h, moe.sharedExpertFfn, a.mlpBias, moe.moeLayers, 'mlp');
    add('shared_experts.down_proj', moe.sharedExpertFfn, h, a.mlpBias, moe.moeLayers, 'mlp');
    if (a.moeLatent) {
      add('fc1_latent_proj', h, a.moeLatent, false, moe.moeLayers, 'mlp');
      add('fc2_latent_proj', a.moeLatent, h, false, moe.moeLayers, 'mlp');
    }
  }
}

/** Llama-style decoders (and Qwen3-Next / Qwen3.5 with their Gated DeltaNet layers): attention, a gated MLP, MoE experts. */
function decoderModules(a: Architecture, add: AddLinear): void {
  const { h, qd, kvd, L } = widths(a);
  if (a.linearAttention) {
    // Qwen3NextAttention on the full-attention layers: q_proj gives the queries and their output gate (2 x heads x
    // head_dim). Qwen3NextGatedDeltaNet on the others: q, k, v, z and b, a projections (fused in Qwen3-Next, split
    // in Qwen3.5) and out_proj, all without bias.
    const la = a.linearAttention;
    const full = L - la.layers;
    const kd = la.keyHeads * la.keyDim;
    const vd = la.valueHeads * la.valueDim;
    add('q_proj', h, 2 * qd, a.qkvBias, full, 'attention');
    add('k_proj', h, kvd, a.qkvBias, full, 'attention');
    add('v_proj', h, kvd, a.qkvBias, full, 'attention');
    add('o_proj', qd, h, a.outBias, full, 'attention');
    if (la.splitProjections) {
      add('in_proj_qkv', h, 2 * kd + vd, false, la.layers, 'attention');
      add('in_proj_z', h, vd, false, la.layers, 'attention');
      add('in_proj_b', h, la.valueHeads, false, la.layers, 'attention');
      add('in_proj_a', h, la.valueHeads, false, la.layers, 'attention');
    } else {
      add('in_proj_qkvz', h, 2 * kd + 2 * vd, false, la.layers, 'attention');
      add('in_proj_ba', h, 2 * la.valueHeads, false, la.layers, 'attention');
    }
    add('out_proj', vd, h, false, la.layers, 'attention');
  } else {
    gqaAttention(a, add);
  }
  const moe = a.moe;
  const dense = moe ? L - moe.moeLayers : L;
  add('gate_proj', h, a.ffn, a.mlpBias, dense, 'mlp');
  add('up_proj', h, a.ffn, a.mlpBias, dense, 'mlp');
  add('down_proj', a.ffn, h, a.mlpBias, dense, 'mlp');
  if (moe) {
    routedExperts(a, add, FAMILY_TRAITS[a.family].expertNames);
    // transformers 4: an nn.Linear; 5: the TopKRouter's bare weight, used with F.linear.
    add('gate', h, moe.experts, false, moe.moeLayers, 'router', 1, a.fusedExperts === true);
    if (moe.sharedExpertFfn > 0) {
      add('shared_expert.gate_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
      add('shared_expert.up_proj', h, moe.sharedExpertFfn, false, moe.moeLayers, 'mlp');
      add('shared_expert.down_proj', moe.sharedExpertFfn, h, false, moe.moeLayers, 'mlp');
      add('shared_expert_gate', h, 1, false, moe.moeLayers, 'router');
    }
  }
}

/**
 * Decoders whose modules have names of their own (OPT, GPT-J, GPT-Neo, Falcon, ChatGLM, StarCoder, StarCoder2, InternLM2,
 * Baichuan 2): one `case` each, with the names LoRA's target_modules match.
 */
function namedDecoderModules(a: Architecture, add: AddLinear): void {
  const { h, qd, kvd, L } = widths(a);
  switch (a.family) {
    case 'opt':
      // OPTAttention: q_proj, k_proj, v_proj, out_proj; OPTDecoderLayer: fc1, fc2 (ReLU); biases per enable_bias.
      add('q_proj', h, qd, a.qkvBias, L, 'attention');
      add('k_proj', h, qd, a.qkvBias, L, 'attention');
      add('v_proj', h, qd, a.qkvBias, L, 'attention');
      add('out_proj', qd, h, a.outBias, L, 'attention');
      add('fc1', h, a.ffn, a.mlpBias, L, 'mlp');
      add('fc2', a.ffn, h, a.mlpBias, L, 'mlp');
      break;
    case 'gptj':
      // GPTJAttention: q/k/v_proj and out_proj without bias; GPTJMLP: fc_in, fc_out with bias.
      add('q_proj', h, qd, false, L, 'attention');
      add('k_proj', h, qd, false, L, 'attention');
      add('v_proj', h, qd, false, L, 'attention');
      add('out_proj', qd, h, false, L, 'attention');
      add('fc_in', h, a.ffn, true, L, 'mlp');
      add('fc_out', a.ffn, h, true, L, 'mlp');
      break;
    case 'nemotron':
      // NemotronAttention: q/k/v/o_proj (attention_bias); NemotronMLP: up_proj, relu^2, down_proj (mlp_bias).
      gqaAttention(a, add);
      add('up_proj', h, a.ffn, a.mlpBias, L, 'mlp');
      add('down_proj', a.ffn, h, a.mlpBias, L, 'mlp');
      break;
    case 'gpt_neo':
      // GPTNeoSelfAttention: q/k/v_proj without bias, out_proj with bias; GPTNeoMLP: c_fc, c_proj with bias.
      add('q_proj', h, qd, false, L, 'attention');
      add('k_proj', h, qd, false, L, 'attention');
      add('v_proj', h, qd, false, L, 'attention');
      add('out_proj', qd, h, true, L, 'attention');
      add('c_fc', h, a.ffn, true, L, 'mlp');
      add('c_proj', a.ffn, h, true, L, 'mlp');
      break;
    case 'falcon':
    case 'chatglm':
    case 'chatglm1':
      // FalconAttention / ChatGLM's SelfAttention: one query_key_value for the heads and the kv heads (groups), dense;
      // FalconMLP: dense_h_to_4h, dense_4h_to_h; ChatGLM's MLP: dense_h_to_4h is gate and up (SwiGLU), twice as wide.
      add('query_key_value', h, qd + 2 * kvd, a.qkvBias, L, 'attention');
      add('dense', qd, h, a.outBias, L, 'attention');
      add('dense_h_to_4h', h, (a.gatedMlp ? 2 : 1) * a.ffn, a.mlpBias, L, 'mlp');
      add('dense_4h_to_h', a.ffn, h, a.mlpBias, L, 'mlp');
      break;
    case 'gpt_bigcode':
      // GPTBigCodeAttention: c_attn to the queries and one key and value head (multi_query) or all of them, c_proj; the
      // MLP's c_fc and c_proj (named mlp.c_proj here, as for GPT-2); all with biases.
      add('c_attn', h, qd + 2 * kvd, true, L, 'attention');
      add('c_proj', qd, h, true, L, 'attention');
      add('c_fc', h, a.ffn, true, L, 'mlp');
      add('mlp.c_proj', a.ffn, h, true, L, 'mlp');
      break;
    case 'starcoder2':
      // Starcoder2Attention q/k/v/o_proj and Starcoder2MLP c_fc / c_proj, biases per use_bias.
      gqaAttention(a, add);
      add('c_fc', h, a.ffn, a.mlpBias, L, 'mlp');
      add('c_proj', a.ffn, h, a.mlpBias, L, 'mlp');
      break;
    case 'internlm2':
      // InternLM2Attention: wqkv (q, then each kv group's k and v), wo; InternLM2MLP: w1 (gate), w3 (up), w2 (down).
      add('wqkv', h, qd + 2 * kvd, a.qkvBias, L, 'attention');
      add('wo', qd, h, a.outBias, L, 'attention');
      add('w1', h, a.ffn, false, L, 'mlp');
      add('w3', h, a.ffn, false, L, 'mlp');
      add('w2', a.ffn, h, false, L, 'mlp');
      break;
    case 'baichuan':
      // BaichuanAttention: W_pack (q, k, v), o_proj, no biases; Llama's MLP.
      add('W_pack', h, 3 * qd, false, L, 'attention');
      add('o_proj', qd, h, false, L, 'attention');
      add('gate_proj', h, a.ffn, false, L, 'mlp');
      add('up_proj', h, a.ffn, false, L, 'mlp');
      add('down_proj', a.ffn, h, false, L, 'mlp');
      break;
    default:
      throw new Error(`namedDecoderModules: no modules for ${a.family}`);
  }
}
