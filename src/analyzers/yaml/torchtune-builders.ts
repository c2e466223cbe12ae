// torchtune's generic model builders (`torchtune.models.llama2.lora_llama2`, `torchtune.models.qwen2.qwen2`, ...),
// which take the model's dimensions as arguments instead of naming a checkpoint: a config that builds DeepSeek-Math 7B
// through `lora_llama2` with vocab_size 102400 and 30 layers. The arguments become the config.json fields of the
// architecture the builder makes, with torchtune's own defaults for those left out
// (pytorch/torchtune@bd2a0fc:torchtune/models/*/_component_builders.py). Pure: no I/O.
import type { HfConfig } from '../../core';
import type { Unknown } from '../facts';
import type { YamlCtx } from './common';
import { boolOf, numOf, type Entry } from './values';

/** A generic builder's family: the Hugging Face model_type it makes and how its defaults differ. */
interface GenericFamily {
  readonly modelType: string;
  /** The MLP width when intermediate_dim is left out: scale_hidden_dim_for_mlp(embed_dim), or none (required). */
  readonly scaledMlp: boolean;
  /** tie_word_embeddings' default (llama3_2: True; the builders of the other families take no such argument or False). */
  readonly tied: boolean;
  /** q/k/v projection biases and QK norms are arguments (qwen2, qwen3: biases on, norms off unless given). */
  readonly qwen?: true;
  /** The vocabulary of the family's tokenizer, as its sized builders pass it (llama3_2_1b: 128,256). */
  readonly vocab: number;
}

const LLAMA: GenericFamily = { modelType: 'llama', scaledMlp: true, tied: false, vocab: 32_000 };
const LLAMA3: GenericFamily = { ...LLAMA, vocab: 128_256 };
const QWEN: GenericFamily = { modelType: 'qwen2', scaledMlp: false, tied: false, qwen: true, vocab: 151_936 };

/** The generic builders by family name (the builder's name without its lora_ / qlora_ prefix). */
const GENERIC: Readonly<Record<string, GenericFamily>> = {
  llama2: LLAMA,
  llama3: LLAMA3,
  llama3_1: LLAMA3,
  llama3_2: { ...LLAMA3, tied: true },
  mistral: { modelType: 'mistral', scaledMlp: false, tied: false, vocab: 32_000 },
  qwen2: QWEN,
  qwen3: QWEN,
  // torchtune's phi3 keeps q/k/v and gate/up as separate projections (transformers' Phi-3 fuses them into qkv_proj and
  // gate_up_proj, and its checkpoints are split on load: phi3_hf_to_tune), so the model it builds is Llama-shaped.
  phi3: { modelType: 'llama', scaledMlp: false, tied: false, vocab: 32_064 },
};

/**
 * Sized builders whose model torchtune's code builds in another shape than transformers' does: the arguments they
 * pass to their generic builder (pytorch/torchtune@bd2a0fc:torchtune/models/phi3/_model_builders.py phi3_mini,
 * torchtune/models/phi4/_model_builders.py phi4_14b).
 */
const SIZED: Readonly<Record<string, { readonly family: string; readonly args: Readonly<Record<string, number>> }>> = {
  phi3_mini: {
    family: 'phi3',
    args: {
      vocab_size: 32_064,
      num_layers: 32,
      num_heads: 32,
      num_kv_heads: 32,
      embed_dim: 3072,
      intermediate_dim: 8192,
      max_seq_len: 4096,
    },
  },
  phi4_14b: {
    family: 'phi3',
    args: {
      vocab_size: 100_352,
      num_layers: 40,
      num_heads: 40,
      num_kv_heads: 10,
      embed_dim: 5120,
      intermediate_dim: 17_920,
      max_seq_len: 16_384,
    },
  },
};

/** The architecture torchtune's code builds for a sized builder whose checkpoint has another shape; else undefined. */
export function sizedBuilderArchitecture(builder: string): HfConfig | undefined {
  const sized = SIZED[builder];
  const family = sized ? GENERIC[sized.family] : undefined;
  return sized && family ? configOf(family, sized.args, () => undefined) : undefined;
}

/** torchtune's scale_hidden_dim_for_mlp(dim, multiple_of=256): 4 * int(2 * dim / 3), rounded up to 256. */
export function scaledHiddenDim(dim: number): number {
  const hidden = 4 * Math.trunc((2 * dim) / 3);
  return 256 * Math.ceil(hidden / 256);
}

/**
 * What a generic builder's arguments make: the architecture (with the vocabulary assumed where the config leaves it to
 * the recipe, `vocab_size: null`), or why it is not known (and at which argument).
 */
export type BuilderArchitecture =
  | { readonly config: HfConfig; readonly assumedVocab?: { readonly vocab: number; readonly at?: Entry } }
  | { readonly unknown: Unknown; readonly at?: Entry };

const REQUIRED = ['vocab_size', 'num_layers', 'num_heads', 'num_kv_heads', 'embed_dim', 'max_seq_len'] as const;

/**
 * The architecture a generic builder makes from the model block's arguments; undefined when `builder` is not one of
 * the generic builders read here (a sized builder such as llama3_1_8b names its checkpoint instead).
 */
export function builderArchitecture(
  ctx: YamlCtx,
  builder: string,
  args: ReadonlyMap<string, Entry>,
): BuilderArchitecture | undefined {
  const family = GENERIC[builder];
  if (!family) return undefined;
  const dims: Record<string, number> = {};
  for (const name of [...REQUIRED, 'intermediate_dim', 'head_dim'] as const) {
    const e = args.get(name);
    if (!e) continue;
    const v = ctx.view(e);
    if (v.t === 'absent') continue;
    const n = v.t === 'unknown' ? undefined : numOf(v);
    if (n === undefined || !Number.isSafeInteger(n) || n < 1) {
      const why = v.t === 'unknown' ? v.reason : `${ctx.raw(e)} is not a positive whole number`;
      return { unknown: { unknown: `torchtune builder ${builder}: ${name} ${why}` }, at: e };
    }
    dims[name] = n;
  }
  // `vocab_size: null`, set by the recipe at run time (a tokenizer extended with new tokens): the family's own is assumed.
  const assumedVocab = dims.vocab_size === undefined ? { vocab: family.vocab, at: args.get('vocab_size') } : undefined;
  if (assumedVocab) dims.vocab_size = family.vocab;
  const missing = REQUIRED.find((name) => dims[name] === undefined);
  if (missing) return { unknown: { unknown: `torchtune builder ${builder}: ${missing} is not given` } };
  if (dims.intermediate_dim === undefined && !family.scaledMlp)
    return { unknown: { unknown: `torchtune builder ${builder}: intermediate_dim is not given` } };
  const flag = (name: string): boolean | undefined => {
    const e = args.get(name);
    return e ? boolOf(ctx.view(e)) : undefined;
  };
  if (family.qwen) {
    // Qwen2's layout is biased q/k/v projections; Qwen3's is unbiased projections with RMS norms on q and k.
    const biased = (flag('q_proj_bias') ?? true) || (flag('k_proj_bias') ?? true) || (flag('v_proj_bias') ?? true);
    const normed = (flag('q_norm') ?? false) || (flag('k_norm') ?? false);
    if (normed === biased)
      return { unknown: { unknown: `torchtune builder ${builder}: ${qwenLayout(biased, normed)} is not read` } };
    const config = configOf(biased ? family : { ...family, modelType: 'qwen3' }, dims, flag);
    return assumedVocab ? { config, assumedVocab } : { config };
  }
  const config = configOf(family, dims, flag);
  return assumedVocab ? { config, assumedVocab } : { config };
}

/** The config.json fields of the model a family's builder makes from its arguments and switches. */
function configOf(
  family: GenericFamily,
  dims: Readonly<Record<string, number>>,
  flag: (name: string) => boolean | undefined,
): HfConfig {
  const config: Record<string, unknown> = {
    model_type: family.modelType,
    vocab_size: dims.vocab_size,
    num_hidden_layers: dims.num_layers,
    num_attention_heads: dims.num_heads,
    num_key_value_heads: dims.num_kv_heads,
    hidden_size: dims.embed_dim,
    intermediate_size: dims.intermediate_dim ?? scaledHiddenDim(dims.embed_dim),
    max_position_embeddings: dims.max_seq_len,
    hidden_act: 'silu',
    tie_word_embeddings: flag('tie_word_embeddings') ?? family.tied,
  };
  if (dims.head_dim !== undefined) config.head_dim = dims.head_dim;
  if (family.modelType === 'mistral') config.sliding_window = null;
  return config;
}

function qwenLayout(biased: boolean, normed: boolean): string {
  return `${biased ? 'biased' : 'unbiased'} q/k/v projections ${normed ? 'with' : 'without'} q/k norms`;
}
