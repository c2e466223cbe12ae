// This folder owns the built-in catalog of popular Hugging Face checkpoints: the memory-relevant subset of each
// config.json plus its published parameter count, one file per vendor. Pure data: the files import only each other, and
// nothing does I/O, so both the VS Code extension and the CLI can bundle it.
import { JAMBA } from './ai21';
import { OLMO_1, OLMO_2, OLMOE, TULU } from './allenai';
import { BAICHUAN } from './baichuan';
import { STARCODER } from './bigcode';
import { BLOOM, BLOOM_176B, MT0 } from './bigscience';
import { CEREBRAS_GPT, COMMUNITY_MODELS, LLAVA, SHEARED_LLAMA, TINYLLAMA } from './community';
import { COHERE_MODELS } from './cohere';
import { H2O_DANUBE } from './h2oai';
import { DEEPSEEK_CODER_LLM_V2, DEEPSEEK_R1_DISTILLS, DEEPSEEK_V2_LITE, DEEPSEEK_V3 } from './deepseek';
import { PYTHIA_GPT_J_NEO, PYTHIA_NEOX } from './eleutherai';
import { ENCODERS } from './encoders';
import { BART, OPT_XLM_ROBERTA, ROBERTA } from './facebook';
import { GEMMA, GEMMA_3_270M, GEMMA_FINE_TUNES, PALIGEMMA } from './gemma';
import { BERT, BERT_T5_MT5, FLAN_T5, T5 } from './google';
import { IDEFICS3_SMOLVLM, OPEN_R1_TRL, SMOLLM, SMOLLM_ZEPHYR_DISTIL } from './huggingface';
import { GRANITE_3, GRANITE_4_H, GRANITE_DOCLING } from './ibm';
import { INTERNLM2 } from './internlm';
import { INTERNVL3 } from './opengvlab';
import { LLAMA_1_CODE_LLAMA, LLAMA_2_3, LLAMA_4 } from './llama';
import { LLM_JP_3 } from './llmjp';
import { MINICPM } from './openbmb';
import { DEBERTA, PHI_1_DIALOGPT, PHI_3_2, PHI_4 } from './microsoft';
import { MINISTRAL, MISTRAL_7B_MIXTRAL, MISTRAL_LARGE_CODESTRAL, MISTRAL_SMALL } from './mistral';
import { KIMI_LINEAR, MOONLIGHT } from './moonshot';
import { MINITRON_MODELS, NEMOTRON_H, NVIDIA_FINE_TUNES } from './nvidia';
import { GPT_2, GPT_OSS } from './openai';
import { PRE_QUANTIZED } from './quantized';
import { QWEN_1, QWEN_15_MOE, QWEN_2, QWEN_2_MATH_1M_V1, QWEN_2_VL } from './qwen';
import { QWEN_15 } from './qwen15';
import { QWEN_3, QWEN_3_235B, QWEN_3_CODER_EMBEDDING, QWEN_3_VL_NEXT } from './qwen3';
import { STABLELM } from './stabilityai';
import { FALCON, FALCON_H1 } from './tiiuae';
import { YI, YI_9B_CODER } from './yi';
import { CHATGLM, GLM_4, GLM_45 } from './zhipu';
import type { CatalogModel } from './types';

export type { CatalogModel, HfConfig, HfConfigValue } from './types';

/**
 * Every entry, in the order lookup indexes them (a later id or alias that normalizes like an earlier one replaces it),
 * which is the order of the single file the catalog used to be: keep it when moving entries between files.
 */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  ...LLAMA_2_3,
  ...MISTRAL_7B_MIXTRAL,
  ...QWEN_2,
  ...DEEPSEEK_R1_DISTILLS,
  ...QWEN_3,
  ...GPT_OSS,
  ...QWEN_15_MOE,
  ...DEEPSEEK_V2_LITE,
  ...MOONLIGHT,
  ...DEEPSEEK_V3,
  ...QWEN_2_VL,
  ...QWEN_3_VL_NEXT,
  ...GRANITE_4_H,
  ...KIMI_LINEAR,
  ...JAMBA,
  ...FALCON_H1,
  ...NEMOTRON_H,
  ...LLAMA_4,
  ...MISTRAL_SMALL,
  ...OLMO_2,
  ...OLMOE,
  ...GLM_4,
  ...PHI_4,
  ...DEBERTA,
  ...MINISTRAL,
  ...GEMMA_3_270M,
  ...QWEN_3_235B,
  ...GLM_45,
  ...QWEN_1,
  ...YI,
  ...TINYLLAMA,
  ...SMOLLM,
  ...IDEFICS3_SMOLVLM,
  ...GEMMA,
  ...PALIGEMMA,
  ...PHI_3_2,
  ...GPT_2,
  ...CEREBRAS_GPT,
  ...SHEARED_LLAMA,
  ...LLAVA,
  ...PYTHIA_NEOX,
  ...BERT,
  ...ROBERTA,
  ...T5,
  ...BLOOM,
  ...FLAN_T5,
  ...MT0,
  ...PRE_QUANTIZED,
  // Added with the catalog's growth to 400 checkpoints, after the entries above so that their order is kept.
  ...LLAMA_1_CODE_LLAMA,
  ...COMMUNITY_MODELS,
  ...OPT_XLM_ROBERTA,
  ...BERT_T5_MT5,
  ...PYTHIA_GPT_J_NEO,
  ...FALCON,
  ...STARCODER,
  ...PHI_1_DIALOGPT,
  ...MISTRAL_LARGE_CODESTRAL,
  ...QWEN_15,
  ...QWEN_2_MATH_1M_V1,
  ...QWEN_3_CODER_EMBEDDING,
  ...DEEPSEEK_CODER_LLM_V2,
  ...SMOLLM_ZEPHYR_DISTIL,
  ...OLMO_1,
  ...GRANITE_3,
  ...GRANITE_DOCLING,
  ...INTERNLM2,
  ...INTERNVL3,
  ...BAICHUAN,
  ...CHATGLM,
  ...YI_9B_CODER,
  ...NVIDIA_FINE_TUNES,
  ...BLOOM_176B,
  ...GEMMA_FINE_TUNES,
  ...ENCODERS,
  ...STABLELM,
  // Added for the checkpoints real training files name (open-instruct, open-r1, TRL, OpenRLHF, Axolotl).
  ...TULU,
  ...OPEN_R1_TRL,
  // Added for the checkpoints real Chinese fine-tuning repositories name.
  ...MINICPM,
  // Added for the checkpoints real Japanese fine-tuning files name.
  ...LLM_JP_3,
  // Added for the Cohere checkpoints real training files name (TRL's Tiny Aya example).
  ...COHERE_MODELS,
  // Added for the checkpoint H2O LLM Studio's example configs name.
  ...H2O_DANUBE,
  // Added with the Nemotron-4 family (model_type nemotron).
  ...MINITRON_MODELS,
  // Added with the BART family (model_type bart, mbart): the encoder-decoders real summarization and translation
  // scripts name.
  ...BART,
];
