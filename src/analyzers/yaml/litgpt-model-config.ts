// LitGPT's pretraining config with the model written out (`model_config:` in a `litgpt pretrain --config` YAML,
// litgpt/config.py Config): its dimensions as the config.json fields the estimator reads, so a model trained from
// scratch, whose `model_name` no hub knows, is estimated by its own architecture. LLaMA-style blocks (`LLaMAMLP`:
// model_type llama) and their mixture of experts (`LLaMAMoE`: mixtral) are read; another MLP class is said not read.
// Sources: Lightning-AI/litgpt litgpt/config.py (Config, padded_vocab_size a multiple of 512 when unset,
// n_query_groups = n_head when unset), litgpt/model.py (LLaMAMLP, LLaMAMoE: a bias-free gate over the experts). Pure.
import { msg } from '../facts';
import type { YamlCtx } from './common';
import type { Entry } from './values';
import { numOf, strOf } from './values';

/** LitGPT's MLP classes read, as the Hugging Face model type with the same parameters. */
const MODEL_TYPES: Readonly<Record<string, 'llama' | 'mixtral'>> = { LLaMAMLP: 'llama', LLaMAMoE: 'mixtral' };

/** `model_config:` as the architecture fact, at its key; a config of another MLP class is said not read. */
export function litgptModelConfig(ctx: YamlCtx, block: Entry | undefined): void {
  if (!block) return;
  const m = ctx.sub(block);
  if (m.size === 0) return;
  const num = (key: string): number | undefined => {
    const e = m.get(key);
    return e ? numOf(ctx.view(e)) : undefined;
  };
  const str = (key: string): string | undefined => {
    const e = m.get(key);
    return e ? strOf(ctx.view(e)) : undefined;
  };
  const mlp = str('mlp_class_name') ?? 'GptNeoxMLP';
  const type = MODEL_TYPES[mlp];
  const [hidden, layers, heads] = [num('n_embd'), num('n_layer'), num('n_head')];
  const ffn =
    type === 'mixtral' ? (num('moe_intermediate_size') ?? num('intermediate_size')) : num('intermediate_size');
  const vocab = num('padded_vocab_size') ?? roundUp(num('vocab_size'), 512);
  const noExperts = type === 'mixtral' && !num('n_expert');
  if (!type || hidden === undefined || layers === undefined || heads === undefined || !ffn || !vocab || noExperts) {
    const why = !type
      ? `mlp_class_name ${mlp} is not read (LLaMAMLP and LLaMAMoE are)`
      : 'it needs n_embd, n_layer, n_head, intermediate_size, vocab_size (and n_expert for LLaMAMoE)';
    ctx.problem('not-modeled', 'warning', msg('{0}: {1}', 'model_config', why), block.keySpan, 'model_config');
    return;
  }
  const bias = str('bias') === 'true';
  const config: Record<string, unknown> = {
    model_type: type,
    hidden_size: hidden,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: num('n_query_groups') ?? heads,
    head_dim: num('head_size') ?? hidden / heads,
    intermediate_size: ffn,
    vocab_size: vocab,
    max_position_embeddings: num('block_size') ?? 4096,
    rms_norm_eps: num('norm_eps') ?? 1e-5,
    rope_theta: num('rope_base') ?? 10000,
    attention_bias: bias,
    mlp_bias: bias,
    tie_word_embeddings: false,
    ...(type === 'mixtral'
      ? { num_local_experts: num('n_expert'), num_experts_per_tok: num('n_expert_per_token') }
      : {}),
  };
  ctx.add('architecture', block, JSON.stringify(config), 'model_config');
}

const roundUp = (n: number | undefined, multiple: number): number | undefined =>
  n === undefined ? undefined : Math.ceil(n / multiple) * multiple;
