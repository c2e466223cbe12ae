// config.json model_type -> Family: the model types the estimator reads, with what each one shares with its family.
// Data only; its order is the order `SUPPORTED_MODEL_TYPES` lists them in messages.
import type { Family } from './types';

export const FAMILY_ALIASES: Record<string, Family> = {
  llama: 'llama',
  mistral: 'mistral',
  qwen2: 'qwen2',
  qwen3: 'qwen3',
  yi: 'llama',
  gemma: 'gemma',
  gemma2: 'gemma2',
  phi3: 'phi3',
  phi: 'phi',
  qwen: 'qwen',
  gpt2: 'gpt2',
  gpt_neox: 'gpt_neox',
  bert: 'bert',
  roberta: 'roberta',
  t5: 't5',
  mt5: 't5',
  // BART (post-LayerNorm) and mBART (pre-LayerNorm, with a final LayerNorm in each stack): learned positions with 2
  // extra rows, a LayerNorm on the embeddings, biased linears, GELU (modeling_bart.py, modeling_mbart.py).
  bart: 'bart',
  mbart: 'mbart',
  bloom: 'bloom',
  mixtral: 'mixtral',
  qwen2_moe: 'qwen2_moe',
  qwen3_moe: 'qwen3_moe',
  smollm3: 'llama',
  gpt_oss: 'gpt_oss',
  gemma3_text: 'gemma3',
  gemma3: 'gemma3',
  // DeepSeek-V2 and V3 share the decoder (MLA attention, routed + shared experts, dense first layers); Kimi K2 and
  // Moonlight are DeepSeek-V3 checkpoints (modeling_deepseek_v3.py).
  deepseek_v3: 'deepseek_v3',
  deepseek_v2: 'deepseek_v3',
  kimi_k2: 'deepseek_v3',
  // Moonshot Kimi Linear (48B-A3B): Kimi Delta Attention layers (kda_layers) and MLA layers without rotary embedding
  // (full_attn_layers), a dense MLP in the first first_k_dense_replace layers and DeepSeek-V3-style MoE after them
  // (routed experts as one w1/w2/w3 MLP each, shared experts); the trust_remote_code modeling_kimi.py that Axolotl
  // trains with (axolotl/monkeypatch/models/kimi_linear).
  kimi_linear: 'kimi_linear',
  // GLM-4.5 / 4.5-Air / 4.6: grouped-query attention with q/k/v biases, partial rotary and optional per-head q/k norms,
  // then DeepSeek-V3's MoE block after the first dense layers (modeling_glm4_moe.py).
  glm4_moe: 'glm4_moe',
  // GLM-4-0414 (9B, 32B): norms before and after the attention and the MLP, q/k/v biases, a fused gate_up_proj and half
  // of each head rotated with interleaved pairs (modeling_glm4.py).
  glm4: 'glm4',
  // Llama 4 (Scout, Maverick): the text model under text_config of the image-text checkpoints (modeling_llama4.py).
  llama4: 'llama4',
  llama4_text: 'llama4',
  // Mistral Small 3.1 / 3.2: the Mistral language model under text_config beside a Pixtral vision tower.
  mistral3: 'mistral',
  // Llama 3.2 Vision (mllama): Llama 3.1's layers with cross-attention layers among them, beside a tiled ViT
  // (modeling_mllama.py); its text_config's own model_type.
  mllama_text_model: 'llama',
  // LLaVA 1.5: its text_config's language model (Llama's by default) beside a CLIP vision tower (modeling_llava.py).
  llava: 'llama',
  // LLaVA-NeXT (1.6): LLaVA 1.5's layout with a learned image_newline vector of the text width (modeling_llava_next.py).
  llava_next: 'llama',
  // PaliGemma 1 and 2: Gemma or Gemma 2 under text_config beside a SigLIP tower (modeling_paligemma.py).
  paligemma: 'gemma',
  // OLMo 2 and 3: norms after the attention and the MLP only, q/k RMSNorms over the whole projections
  // (modeling_olmo2.py; OLMo 3 adds sliding-window layers, read from layer_types).
  olmo2: 'olmo2',
  olmo3: 'olmo2',
  // OLMoE (1B-7B): Llama's pre-norm layers with q/k RMSNorms over the whole projections and a sparse MoE block of
  // num_experts SwiGLU experts of intermediate_size, num_experts_per_tok of them per token (modeling_olmoe.py).
  olmoe: 'olmoe',
  // Qwen2-VL and Qwen2.5-VL: Qwen2 language models (multimodal rotary positions save nothing more) beside a ViT and a
  // patch merger (modeling_qwen2_vl.py, modeling_qwen2_5_vl.py).
  qwen2_vl: 'qwen2',
  qwen2_5_vl: 'qwen2',
  // Qwen3-VL (dense): a Qwen3 language model; the deepstack features added to the first layers' hidden states keep
  // nothing per layer beyond the image tokens' rows (modeling_qwen3_vl.py).
  qwen3_vl: 'qwen3',
  // Qwen3-VL MoE (30B-A3B, 235B-A22B): a Qwen3-MoE language model whose experts are 3-D parameters in every
  // transformers release (Qwen3VLMoeTextExperts), beside Qwen3-VL's vision tower (modeling_qwen3_vl_moe.py).
  qwen3_vl_moe: 'qwen3_moe',
  // Qwen3-Next and Qwen3.5 (dense and MoE): Gated DeltaNet linear-attention layers with one gated full-attention layer in
  // every full_attention_interval (modeling_qwen3_next.py, modular_qwen3_5.py, modular_qwen3_5_moe.py). Qwen3.5's
  // checkpoints are image-text models: the language model under text_config beside Qwen3-VL's vision tower without its
  // deepstack mergers.
  qwen3_next: 'qwen3_next',
  qwen3_5: 'qwen3_next',
  qwen3_5_text: 'qwen3_next',
  qwen3_5_moe: 'qwen3_next',
  qwen3_5_moe_text: 'qwen3_next',
  // IBM Granite 4.0 (granitemoehybrid): Mamba2 and attention layers by layer_types, each with a gated shared MLP
  // (input_linear chunked into gate and up, output_linear); the H models use no position embedding.
  granitemoehybrid: 'granite_hybrid',
  // AI21 Jamba (v0.1, 1.5-1.7 Mini and Large): Mamba-1 layers with one attention layer (no position embedding) in every
  // attn_layer_period, and an MoE block (Mixtral's) in every expert_layer_period-th layer (modeling_jamba.py).
  jamba: 'jamba',
  // TII Falcon-H1: in every layer a Mamba2 mixer and Llama attention side by side on the input norm's output, then a
  // SwiGLU MLP; µP multipliers are scalar products (and a non-persistent mup_vector buffer) (modeling_falcon_h1.py).
  falcon_h1: 'falcon_h1',
  // NVIDIA Nemotron-H and Nemotron Nano 2: one norm and one mixer per layer, Mamba2, attention (no position embedding)
  // or a ReLU² MLP, by hybrid_override_pattern (modeling_nemotron_h.py).
  nemotron_h: 'nemotron_h',
  // IBM Granite 3.x: Llama's layers; its embedding, residual, attention and logits multipliers are scalar products
  // that keep nothing for backward (modeling_granite.py), so memory follows Llama.
  granite: 'llama',
  // Meta OPT (125m-66b, and Galactica, which is an OPT): pre-LayerNorm blocks (OPT-350m: post) with biased q/k/v/out and
  // fc1 / fc2 (ReLU), learned positions with 2 extra rows, tied embeddings (modeling_opt.py).
  opt: 'opt',
  // EleutherAI GPT-J: one LayerNorm feeding attention (q/k/v/out_proj without bias, rotary on rotary_dim of each head)
  // and the MLP (fc_in, fc_out) side by side; an untied lm_head with a bias (modeling_gptj.py).
  gptj: 'gptj',
  // EleutherAI GPT-Neo: GPT-2's block with separate q/k/v_proj (no bias) and out_proj, local attention on alternate
  // layers, learned positions, tied embeddings (modeling_gpt_neo.py).
  gpt_neo: 'gpt_neo',
  // TII Falcon (7B, 40B, 180B, RW, 11B) and its first remote-code names: a fused query_key_value (multi-query, or kv
  // groups in the new decoder architecture), parallel attention and MLP, rotary or ALiBi, tied (modeling_falcon.py).
  falcon: 'falcon',
  refinedwebmodel: 'falcon',
  refinedweb: 'falcon',
  // BigCode StarCoder / StarCoderBase / SantaCoder-style GPT-2 blocks with multi-query attention (modeling_gpt_bigcode.py).
  gpt_bigcode: 'gpt_bigcode',
  // BigCode StarCoder2: LayerNorms with biases, GQA with biases (use_bias), a c_fc / c_proj GELU MLP (modeling_starcoder2.py).
  starcoder2: 'starcoder2',
  // Allen AI OLMo (1): Llama's layers with a LayerNorm that has no weight or bias (modeling_olmo.py).
  olmo: 'olmo',
  // InternLM (the first generation, remote code modeling_internlm.py): Llama's layers, q/k/v/o_proj with biases as the
  // config's `bias` says (True by default), the MLP without.
  internlm: 'internlm',
  // InternLM2 / 2.5 (remote code modeling_internlm2.py): Llama's layers as wqkv, wo, w1 / w3 / w2.
  internlm2: 'internlm2',
  // Baichuan 2 (remote code modeling_baichuan.py): Llama's layers with one W_pack for q/k/v and a normalized head.
  baichuan: 'baichuan',
  // ChatGLM2 / ChatGLM3 / GLM-4-9B-Chat (remote code modeling_chatglm.py): a fused query_key_value with kv groups and
  // biases, SwiGLU in one dense_h_to_4h, RMSNorm, rotary on half of each head.
  // ChatGLM-6B (the first generation, remote code of THUDM/chatglm-6b) writes the same model_type; its config keys
  // (inner_hidden_size, position_encoding_2d) select the family chatglm1 (parse.ts familyOf).
  chatglm: 'chatglm',
  // DistilBERT: six of BERT's post-LayerNorm layers as q_lin / k_lin / v_lin / out_lin and lin1 / lin2, no token types,
  // no pooler, no dropout after the attention's output (modeling_distilbert.py).
  distilbert: 'distilbert',
  // DeBERTa-v2 and v3 (and mDeBERTa-v3): BERT's post-LayerNorm layers as query_proj / key_proj / value_proj, whose
  // attention adds content-to-position and position-to-content scores over log-bucketed relative positions
  // (modeling_deberta_v2.py); no token types and, in v3, no absolute positions.
  'deberta-v2': 'deberta_v2',
  // XLM-RoBERTa: RoBERTa's layers over a 250,002-token vocabulary (modeling_xlm_roberta.py).
  'xlm-roberta': 'roberta',
  // Stability AI StableLM (3B-4E1T, 2 1.6B / 12B, Stable Code): Llama's modules with LayerNorms, partial rotary, q/k/v
  // biases with use_qkv_bias; the 12B runs attention and the MLP in parallel with per-head q/k LayerNorms (modeling_stablelm.py).
  stablelm: 'stablelm',
  stablelm_epoch: 'stablelm',
  // OpenBMB MiniCPM-2B (remote code modeling_minicpm.py, transformers 4.36's Llama code): Llama's modules and
  // attention classes with tied embeddings by default; the embedding, residual and logits multipliers (scale_emb,
  // scale_depth, dim_model_base) are scalar products that keep nothing for backward; rms_layernorm multiplies the
  // 16-bit input by the fp32 rsqrt as T5LayerNorm does; the loss is 4.36's (logits.float(), the shifted slice).
  minicpm: 'minicpm',
  // Cohere Command R / Aya 23 / Aya Expanse (modeling_cohere.py): Llama's modules, one weight-only LayerNorm (computed in
  // fp32) feeding attention and the SwiGLU MLP side by side, rotary on interleaved pairs in fp32, a tied head whose
  // logits are multiplied by logit_scale, q/k LayerNorms where use_qk_norm says (Command R+).
  cohere: 'cohere',
  // Cohere 2 (Command R7B, Command A, Tiny Aya; modeling_cohere2.py): Cohere's block with sliding-window layers
  // (layer_types) and full-attention layers that take no rotary.
  cohere2: 'cohere2',
  // NVIDIA Nemotron-4 / Minitron / Nemotron-Mini (modeling_nemotron.py): Llama's attention with rotary on half of each
  // head (partial_rotary_factor 0.5), LayerNorm1P (a LayerNorm whose weight is stored minus one), an ungated MLP
  // (up_proj, relu^2, down_proj), an untied head.
  nemotron: 'nemotron',
};

/** Every model_type the estimator reads, in the order messages list them. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = Object.keys(FAMILY_ALIASES);
