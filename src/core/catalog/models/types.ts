// The shape of a built-in catalog entry and the conventions every vendor file follows. Types and one helper; no imports.

/**
 * One value of a config.json field.
 * Nested objects occur only where the checkpoint itself nests them (quantization_config, text_config), and lists of
 * lists where it writes them (Mllama's supported_aspect_ratios).
 */
export type HfConfigValue =
  | string
  | number
  | boolean
  | null
  | readonly (string | number | readonly number[])[]
  | { readonly [key: string]: HfConfigValue };

/** Raw Hugging Face config.json fields, exactly as named and valued in the checkpoint's config.json. */
export type HfConfig = Readonly<Record<string, HfConfigValue>>;

export interface CatalogModel {
  /** Canonical Hub id, e.g. 'meta-llama/Llama-2-7b-hf'. */
  readonly id: string;
  /** Other ids people write for the same weights (e.g. 'NousResearch/Llama-2-7b-hf', old names like 'meta-llama/Meta-Llama-3.1-8B'). */
  readonly aliases?: readonly string[];
  /** For an upload read from its name (Unsloth bnb-4bit, GPTQ, AWQ): the listed entry whose architecture it takes. */
  readonly derivedFrom?: string;
  /** How a derived entry relates to derivedFrom, where not as a 16-bit or quantized upload of it (a stage sibling). */
  readonly derivedAs?: string;
  /**
   * For a fine-tune listed under its own name (an instruct or chat model, a domain fine-tune, a LoRA adapter's repo): the
   * checkpoint it was trained from, as its model card or config.json says. Its config is its own config.json's fields,
   * which for most fine-tunes are the base's. (Not derivedFrom: that one marks an entry made up from a name.)
   */
  readonly baseModel?: string;
  /** The memory-relevant subset of config.json, with HF's own field names and values. */
  readonly config: HfConfig;
  /** Exact total parameter count when published (model card, safetensors metadata total, or a paper); omit if you are not sure. */
  readonly publishedParams?: number;
  /** Where config and count come from (URL of config.json / model card). */
  readonly source: string;
}

// Conventions used throughout the catalog:
// - A field is listed only when the checkpoint's config.json contains it, so an absent field means the
//   transformers default for that model_type applies (for example old t5 configs have no feed_forward_proj,
//   which defaults to "relu", and no tie_word_embeddings, which defaults to true).
// - Aliases may also name fine-tunes (Instruct/Chat variants) whose config.json has the same
//   architecture fields, because the memory estimate is identical for them.
// - publishedParams counts each tensor once, so tied input and output embeddings count once. For
//   encoder-only models it is the bare encoder class including the pooler (BertModel, RobertaModel),
//   and for gpt2 it is GPT2Model, whose lm_head is tied to wte.
// - publishedParams is left out for pre-quantized checkpoints, whose safetensors totals count packed
//   integer storage rather than logical parameters, and wherever the count was not certain.

export const hf = (id: string): string => `https://huggingface.co/${id}/blob/main/config.json`;

/** Copies of published config.json fields that entries were checked against: repository@commit and path. */
export const COPIES = {
  litgpt: 'Lightning-AI/litgpt@26857050 litgpt/config.py',
  mlc: 'mlc-ai/mlc-llm@79d603f0 python/mlc_llm/model/model_preset.py',
  llmjp: 'llm-jp/instruct3@93d16280 megatron_configs/llm-jp-3-*.yaml',
} as const;

/** The config.json URL, and the copy whose size fields the entry was checked against. */
export const checked = (id: string, copy: keyof typeof COPIES): string =>
  `${hf(id)} (sizes checked against ${COPIES[copy]})`;

/** The config.json URL of a fine-tune whose architecture fields are its base model's. */
export const fineTune = (id: string, base: string): string =>
  `${hf(id)} (a fine-tune of ${base} with its architecture fields)`;
