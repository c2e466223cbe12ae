// This folder owns the built-in catalog of popular Hugging Face checkpoints: the memory-relevant subset of each
// config.json plus its published parameter count, one file per vendor. Pure data: the files import only each other, and
// nothing does I/O, so both the VS Code extension and the CLI can bundle it.
import { JAMBA } from './ai21';
import { OLMO_2 } from './allenai';
import { BLOOM, MT0 } from './bigscience';
import { CEREBRAS_GPT, TINYLLAMA } from './community';
import { DEEPSEEK_R1_DISTILLS, DEEPSEEK_V2_LITE, DEEPSEEK_V3 } from './deepseek';
import { PYTHIA_NEOX } from './eleutherai';
import { ROBERTA } from './facebook';
import { GEMMA, GEMMA_3_270M } from './gemma';
import { BERT, FLAN_T5, T5 } from './google';
import { SMOLLM } from './huggingface';
import { GRANITE_4_H } from './ibm';
import { LLAMA_2_3, LLAMA_4 } from './llama';
import { PHI_3_2, PHI_4 } from './microsoft';
import { MINISTRAL, MISTRAL_7B_MIXTRAL, MISTRAL_SMALL } from './mistral';
import { KIMI_LINEAR, MOONLIGHT } from './moonshot';
import { NEMOTRON_H } from './nvidia';
import { GPT_2, GPT_OSS } from './openai';
import { PRE_QUANTIZED } from './quantized';
import { QWEN_1, QWEN_15_MOE, QWEN_2, QWEN_2_VL } from './qwen';
import { QWEN_3, QWEN_3_235B, QWEN_3_VL_NEXT } from './qwen3';
import { FALCON_H1 } from './tiiuae';
import { YI } from './yi';
import { GLM_4, GLM_45 } from './zhipu';
import type { CatalogModel } from './types';

export type { CatalogModel, HfConfig, HfConfigValue } from './types';

/**
 * Every entry, in the order lookup indexes them (a later id or alias that normalizes like an earlier one replaces it),
 * which is the order of the single file the catalog used to be: keep it when moving entries between files.
 */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  ...LLAMA_2_3, ...MISTRAL_7B_MIXTRAL, ...QWEN_2, ...DEEPSEEK_R1_DISTILLS, ...QWEN_3, ...GPT_OSS, ...QWEN_15_MOE,
  ...DEEPSEEK_V2_LITE, ...MOONLIGHT, ...DEEPSEEK_V3, ...QWEN_2_VL, ...QWEN_3_VL_NEXT, ...GRANITE_4_H, ...KIMI_LINEAR,
  ...JAMBA, ...FALCON_H1, ...NEMOTRON_H, ...LLAMA_4, ...MISTRAL_SMALL, ...OLMO_2, ...GLM_4, ...PHI_4, ...MINISTRAL,
  ...GEMMA_3_270M, ...QWEN_3_235B, ...GLM_45, ...QWEN_1, ...YI, ...TINYLLAMA, ...SMOLLM, ...GEMMA, ...PHI_3_2,
  ...GPT_2, ...CEREBRAS_GPT, ...PYTHIA_NEOX, ...BERT, ...ROBERTA, ...T5, ...BLOOM, ...FLAN_T5, ...MT0,
  ...PRE_QUANTIZED,
];
