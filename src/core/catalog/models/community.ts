// Built-in catalog: smaller labs and community fine-tunes (TinyLlama, Cerebras-GPT, Vicuna, OpenLLaMA, SOLAR, Hermes,
// Dolly, RedPajama, StableLM-Alpha, Orca 2, WizardCoder ...). Pure data.

import { checked, fineTune, hf, type CatalogModel } from './types';

export const TINYLLAMA: readonly CatalogModel[] = [
  {
    id: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
    aliases: ['TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T', 'TinyLlama/TinyLlama_v1.1'],
    config: {
      model_type: 'llama',
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      hidden_act: 'silu',
      hidden_size: 2048,
      intermediate_size: 5632,
      max_position_embeddings: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 22,
      num_key_value_heads: 4,
      rms_norm_eps: 1e-5,
      tie_word_embeddings: false,
      torch_dtype: 'bfloat16',
      vocab_size: 32000,
    },
    publishedParams: 1_100_048_384,
    source: hf('TinyLlama/TinyLlama-1.1B-Chat-v1.0'),
  },
];

export const CEREBRAS_GPT: readonly CatalogModel[] = [
  {
    // Cerebras-GPT 1.3B: GPT-2 layers at width 2048, 24 layers, a 4x MLP (n_inner 8192), 2,048 learned positions
    // (Dey et al. 2023, Cerebras-GPT, Table 1). No exact published count: 1,315,723,264 counted from the architecture.
    id: 'cerebras/Cerebras-GPT-1.3B',
    config: {
      model_type: 'gpt2',
      architectures: ['GPT2Model'],
      activation_function: 'gelu',
      n_ctx: 2048,
      n_embd: 2048,
      n_head: 16,
      n_inner: 8192,
      n_layer: 24,
      n_positions: 2048,
      vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-1.3B'),
  },
];

export const COMMUNITY_MODELS: readonly CatalogModel[] = [
  {
    // Vicuna v1.5: Llama 2 fine-tuned on ShareGPT conversations (its model card names Llama 2 as the base).
    id: 'lmsys/vicuna-7b-v1.5',
    baseModel: 'meta-llama/Llama-2-7b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, rms_norm_eps: 1e-05, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: fineTune('lmsys/vicuna-7b-v1.5', 'meta-llama/Llama-2-7b-hf'),
  },
  {
    id: 'lmsys/vicuna-13b-v1.5',
    baseModel: 'meta-llama/Llama-2-13b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 4096, num_attention_heads: 40, num_hidden_layers: 40, rms_norm_eps: 1e-05, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: fineTune('lmsys/vicuna-13b-v1.5', 'meta-llama/Llama-2-13b-hf'),
  },
  {
    // Vicuna v1.3: LLaMA (1) fine-tunes.
    id: 'lmsys/vicuna-7b-v1.3',
    baseModel: 'huggyllama/llama-7b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rms_norm_eps: 1e-06, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: fineTune('lmsys/vicuna-7b-v1.3', 'huggyllama/llama-7b'),
  },
  {
    id: 'lmsys/vicuna-13b-v1.3',
    baseModel: 'huggyllama/llama-13b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 2048, num_attention_heads: 40, num_hidden_layers: 40, rms_norm_eps: 1e-06, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: fineTune('lmsys/vicuna-13b-v1.3', 'huggyllama/llama-13b'),
  },
  {
    id: 'lmsys/vicuna-33b-v1.3',
    baseModel: 'huggyllama/llama-30b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 6656, intermediate_size: 17920,
      max_position_embeddings: 2048, num_attention_heads: 52, num_hidden_layers: 60, rms_norm_eps: 1e-06, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: fineTune('lmsys/vicuna-33b-v1.3', 'huggyllama/llama-30b'),
  },
  {
    // OpenLLaMA: a reproduction of LLaMA trained on RedPajama (v2: on a new data mix, the same shapes).
    id: 'openlm-research/open_llama_3b',
    aliases: ['openlm-research/open_llama_3b_v2'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 3200, intermediate_size: 8640,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 26, rms_norm_eps: 1e-06, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: checked('openlm-research/open_llama_3b', 'litgpt'),
  },
  {
    id: 'openlm-research/open_llama_7b',
    aliases: ['openlm-research/open_llama_7b_v2'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rms_norm_eps: 1e-06, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: checked('openlm-research/open_llama_7b', 'litgpt'),
  },
  {
    id: 'openlm-research/open_llama_13b',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 2048, num_attention_heads: 40, num_hidden_layers: 40, rms_norm_eps: 1e-06, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32000,
    },
    source: checked('openlm-research/open_llama_13b', 'litgpt'),
  },
  {
    // SOLAR 10.7B: Mistral-7B layers depth-upscaled to 48 (Kim et al. 2023), loaded as Llama.
    id: 'upstage/SOLAR-10.7B-v1.0',
    aliases: ['upstage/SOLAR-10.7B-Instruct-v1.0'],
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 48, num_key_value_heads: 8, rms_norm_eps: 1e-05, rope_theta: 10000,
      tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
    },
    source: hf('upstage/SOLAR-10.7B-v1.0'),
  },
  {
    // Mistral-7B-v0.1 fine-tunes that add the two ChatML tokens: a 32,002-token vocabulary.
    id: 'teknium/OpenHermes-2.5-Mistral-7B',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05, rope_theta: 10000,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32002,
    },
    source: fineTune('teknium/OpenHermes-2.5-Mistral-7B', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    id: 'NousResearch/Nous-Hermes-2-Mistral-7B-DPO',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05, rope_theta: 10000,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32002,
    },
    source: fineTune('NousResearch/Nous-Hermes-2-Mistral-7B-DPO', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    id: 'openchat/openchat-3.5-0106',
    aliases: ['openchat/openchat_3.5', 'berkeley-nest/Starling-LM-7B-alpha'],
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 8192, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05, rope_theta: 10000,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32002,
    },
    source: fineTune('openchat/openchat-3.5-0106', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    // Orca 2: Llama 2 fine-tunes with a pad token added (32,003).
    id: 'microsoft/Orca-2-7b',
    baseModel: 'meta-llama/Llama-2-7b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 11008,
      max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, rms_norm_eps: 1e-05, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32003,
    },
    source: fineTune('microsoft/Orca-2-7b', 'meta-llama/Llama-2-7b-hf'),
  },
  {
    id: 'microsoft/Orca-2-13b',
    baseModel: 'meta-llama/Llama-2-13b-hf',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 5120, intermediate_size: 13824,
      max_position_embeddings: 4096, num_attention_heads: 40, num_hidden_layers: 40, rms_norm_eps: 1e-05, tie_word_embeddings: false,
      torch_dtype: 'float16', vocab_size: 32003,
    },
    source: fineTune('microsoft/Orca-2-13b', 'meta-llama/Llama-2-13b-hf'),
  },
  {
    // WizardCoder 15B: StarCoder fine-tuned with Evol-Instruct; one token added (49,153).
    id: 'WizardLMTeam/WizardCoder-15B-V1.0',
    baseModel: 'bigcode/starcoder',
    config: {
      model_type: 'gpt_bigcode', architectures: ['GPTBigCodeForCausalLM'], activation_function: 'gelu_pytorch_tanh', attention_softmax_in_fp32: true,
      attn_pdrop: 0.1, embd_pdrop: 0.1, layer_norm_epsilon: 1e-05, multi_query: true, n_embd: 6144, n_head: 48, n_inner: 24576, n_layer: 40,
      n_positions: 8192, resid_pdrop: 0.1, torch_dtype: 'float16', vocab_size: 49153,
    },
    source: fineTune('WizardLMTeam/WizardCoder-15B-V1.0', 'bigcode/starcoder'),
  },
  {
    // Dolly v2: Pythia fine-tunes on databricks-dolly-15k (vocabulary 50,280).
    id: 'databricks/dolly-v2-3b',
    baseModel: 'EleutherAI/pythia-2.8b',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 2560, intermediate_size: 10240,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', use_parallel_residual: true, vocab_size: 50280,
    },
    source: fineTune('databricks/dolly-v2-3b', 'EleutherAI/pythia-2.8b'),
  },
  {
    id: 'databricks/dolly-v2-7b',
    baseModel: 'EleutherAI/pythia-6.9b',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 4096, intermediate_size: 16384,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', use_parallel_residual: true, vocab_size: 50280,
    },
    source: fineTune('databricks/dolly-v2-7b', 'EleutherAI/pythia-6.9b'),
  },
  {
    id: 'databricks/dolly-v2-12b',
    baseModel: 'EleutherAI/pythia-12b',
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 5120, intermediate_size: 20480,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 40, num_hidden_layers: 36, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', use_parallel_residual: true, vocab_size: 50280,
    },
    source: fineTune('databricks/dolly-v2-12b', 'EleutherAI/pythia-12b'),
  },
  {
    id: 'togethercomputer/RedPajama-INCITE-Base-3B-v1',
    aliases: ['togethercomputer/RedPajama-INCITE-Chat-3B-v1', 'togethercomputer/RedPajama-INCITE-Instruct-3B-v1'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 2560, intermediate_size: 10240,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rotary_pct: 1,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: false, vocab_size: 50432,
    },
    source: checked('togethercomputer/RedPajama-INCITE-Base-3B-v1', 'mlc'),
  },
  {
    id: 'togethercomputer/RedPajama-INCITE-7B-Base',
    aliases: ['togethercomputer/RedPajama-INCITE-7B-Chat', 'togethercomputer/RedPajama-INCITE-7B-Instruct'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 4096, intermediate_size: 16384,
      layer_norm_eps: 1e-05, max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 32, rotary_pct: 1,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: false, vocab_size: 50432,
    },
    source: hf('togethercomputer/RedPajama-INCITE-7B-Base'),
  },
  {
    // StableLM-Alpha: GPT-NeoX layers, 4,096 positions.
    id: 'stabilityai/stablelm-base-alpha-3b',
    aliases: ['stabilityai/stablelm-tuned-alpha-3b'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 4096, intermediate_size: 16384,
      layer_norm_eps: 1e-05, max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 16, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50688,
    },
    source: hf('stabilityai/stablelm-base-alpha-3b'),
  },
  {
    id: 'stabilityai/stablelm-base-alpha-7b',
    aliases: ['stabilityai/stablelm-tuned-alpha-7b'],
    config: {
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_act: 'gelu', hidden_size: 6144, intermediate_size: 24576,
      layer_norm_eps: 1e-05, max_position_embeddings: 4096, num_attention_heads: 48, num_hidden_layers: 16, rotary_pct: 0.25,
      tie_word_embeddings: false, torch_dtype: 'float16', use_parallel_residual: true, vocab_size: 50432,
    },
    source: hf('stabilityai/stablelm-base-alpha-7b'),
  },
  {
    // Cerebras-GPT 111M: GPT-2 layers with a 4x MLP and 2,048 learned positions (Dey et al. 2023, Table 1).
    id: 'cerebras/Cerebras-GPT-111M',
    config: {
      model_type: 'gpt2', architectures: ['GPT2Model'], activation_function: 'gelu', n_ctx: 2048, n_embd: 768, n_head: 12, n_inner: 3072,
      n_layer: 10, n_positions: 2048, vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-111M'),
  },
  {
    // Cerebras-GPT 256M: GPT-2 layers with a 4x MLP and 2,048 learned positions (Dey et al. 2023, Table 1).
    id: 'cerebras/Cerebras-GPT-256M',
    config: {
      model_type: 'gpt2', architectures: ['GPT2Model'], activation_function: 'gelu', n_ctx: 2048, n_embd: 1088, n_head: 17, n_inner: 4352,
      n_layer: 14, n_positions: 2048, vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-256M'),
  },
  {
    // Cerebras-GPT 590M: GPT-2 layers with a 4x MLP and 2,048 learned positions (Dey et al. 2023, Table 1).
    id: 'cerebras/Cerebras-GPT-590M',
    config: {
      model_type: 'gpt2', architectures: ['GPT2Model'], activation_function: 'gelu', n_ctx: 2048, n_embd: 1536, n_head: 12, n_inner: 6144,
      n_layer: 18, n_positions: 2048, vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-590M'),
  },
  {
    // Cerebras-GPT 2.7B: GPT-2 layers with a 4x MLP and 2,048 learned positions (Dey et al. 2023, Table 1).
    id: 'cerebras/Cerebras-GPT-2.7B',
    config: {
      model_type: 'gpt2', architectures: ['GPT2Model'], activation_function: 'gelu', n_ctx: 2048, n_embd: 2560, n_head: 32, n_inner: 10240,
      n_layer: 32, n_positions: 2048, vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-2.7B'),
  },
  {
    // Cerebras-GPT 6.7B: GPT-2 layers with a 4x MLP and 2,048 learned positions (Dey et al. 2023, Table 1).
    id: 'cerebras/Cerebras-GPT-6.7B',
    config: {
      model_type: 'gpt2', architectures: ['GPT2Model'], activation_function: 'gelu', n_ctx: 2048, n_embd: 4096, n_head: 32, n_inner: 16384,
      n_layer: 32, n_positions: 2048, vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-6.7B'),
  },
  {
    // Cerebras-GPT 13B: GPT-2 layers with a 4x MLP and 2,048 learned positions (Dey et al. 2023, Table 1).
    id: 'cerebras/Cerebras-GPT-13B',
    config: {
      model_type: 'gpt2', architectures: ['GPT2Model'], activation_function: 'gelu', n_ctx: 2048, n_embd: 5120, n_head: 40, n_inner: 20480,
      n_layer: 40, n_positions: 2048, vocab_size: 50257,
    },
    source: hf('cerebras/Cerebras-GPT-13B'),
  },
  {
    // Hermes 3: Llama 3.1 fine-tunes (the base's config.json fields).
    id: 'NousResearch/Hermes-3-Llama-3.1-8B',
    baseModel: 'meta-llama/Llama-3.1-8B',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 4096,
      intermediate_size: 14336, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 32, num_hidden_layers: 32,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 128256,
    },
    source: fineTune('NousResearch/Hermes-3-Llama-3.1-8B', 'meta-llama/Llama-3.1-8B'),
  },
  {
    id: 'NousResearch/Hermes-3-Llama-3.1-70B',
    baseModel: 'meta-llama/Llama-3.1-70B',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], attention_bias: false, hidden_act: 'silu', hidden_size: 8192,
      intermediate_size: 28672, max_position_embeddings: 131072, mlp_bias: false, num_attention_heads: 64, num_hidden_layers: 80,
      num_key_value_heads: 8, rms_norm_eps: 1e-05, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 128256,
    },
    source: fineTune('NousResearch/Hermes-3-Llama-3.1-70B', 'meta-llama/Llama-3.1-70B'),
  },
  {
    id: 'Intel/neural-chat-7b-v3-1',
    baseModel: 'mistralai/Mistral-7B-v0.1',
    config: {
      model_type: 'mistral', architectures: ['MistralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-05,
      sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16', vocab_size: 32000,
    },
    source: fineTune('Intel/neural-chat-7b-v3-1', 'mistralai/Mistral-7B-v0.1'),
  },
  {
    // Adds the two ChatML tokens: 32,002.
    id: 'NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO',
    baseModel: 'mistralai/Mixtral-8x7B-v0.1',
    config: {
      model_type: 'mixtral', architectures: ['MixtralForCausalLM'], hidden_act: 'silu', hidden_size: 4096, intermediate_size: 14336,
      max_position_embeddings: 32768, num_attention_heads: 32, num_experts_per_tok: 2, num_hidden_layers: 32, num_key_value_heads: 8,
      num_local_experts: 8, rms_norm_eps: 1e-05, router_aux_loss_coef: 0.02, sliding_window: null, tie_word_embeddings: false,
      torch_dtype: 'bfloat16', vocab_size: 32002,
    },
    source: fineTune('NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO', 'mistralai/Mixtral-8x7B-v0.1'),
  },
  {
    // An earlier TinyLlama chat fine-tune with three tokens added (32,003).
    id: 'TinyLlama/TinyLlama-1.1B-Chat-v0.4',
    baseModel: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
    config: {
      model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_act: 'silu', hidden_size: 2048, intermediate_size: 5632,
      max_position_embeddings: 2048, num_attention_heads: 32, num_hidden_layers: 22, num_key_value_heads: 4, rms_norm_eps: 1e-05,
      tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32003,
    },
    source: checked('TinyLlama/TinyLlama-1.1B-Chat-v0.4', 'mlc'),
  },
];
