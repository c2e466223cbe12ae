// PEFT's default LoRA targets per config.json model_type: what LoraConfig without target_modules adapts (and, for a
// model type missing here, get_peft_model raises "Please specify `target_modules` in `peft_config`"). Pure data.
// Docs: docs/scenario.md

export const PEFT_LORA_DEFAULT_SOURCE =
  'peft src/peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING';

/**
 * PEFT's default LoRA targets per config.json model_type, used when LoraConfig has no target_modules
 * (huggingface/peft@00073fe src/peft/utils/constants.py, TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING).
 */
export const PEFT_LORA_DEFAULT_TARGETS: Readonly<Record<string, readonly string[]>> = {
  t5: ['q', 'v'],
  mt5: ['q', 'v'],
  bart: ['q_proj', 'v_proj'],
  gpt2: ['c_attn'],
  bloom: ['query_key_value'],
  'blip-2': ['q', 'v', 'q_proj', 'v_proj'],
  opt: ['q_proj', 'v_proj'],
  gptj: ['q_proj', 'v_proj'],
  gpt_neox: ['query_key_value'],
  gpt_neo: ['q_proj', 'v_proj'],
  bert: ['query', 'value'],
  roberta: ['query', 'value'],
  distilbert: ['q_lin', 'v_lin'],
  'xlm-roberta': ['query', 'value'],
  electra: ['query', 'value'],
  'deberta-v2': ['query_proj', 'value_proj'],
  deberta: ['in_proj'],
  layoutlm: ['query', 'value'],
  llama: ['q_proj', 'v_proj'],
  llama4: ['q_proj', 'v_proj'],
  chatglm: ['query_key_value'],
  gpt_bigcode: ['c_attn'],
  mpt: ['Wqkv'],
  RefinedWebModel: ['query_key_value'],
  RefinedWeb: ['query_key_value'],
  falcon: ['query_key_value'],
  btlm: ['c_proj', 'c_attn'],
  codegen: ['qkv_proj'],
  mistral: ['q_proj', 'v_proj'],
  mixtral: ['q_proj', 'v_proj'],
  stablelm: ['q_proj', 'v_proj'],
  phi: ['q_proj', 'v_proj', 'fc1', 'fc2'],
  gemma: ['q_proj', 'v_proj'],
  gemma2: ['q_proj', 'v_proj'],
  gemma3_text: ['q_proj', 'v_proj'],
  qwen2: ['q_proj', 'v_proj'],
  qwen3: ['q_proj', 'v_proj'],
};

/** PEFT's default LoRA targets for a config.json model_type, or undefined where PEFT has none. */
export function peftDefaultLoraTargets(modelType: unknown): readonly string[] | undefined {
  return typeof modelType === 'string' && Object.hasOwn(PEFT_LORA_DEFAULT_TARGETS, modelType)
    ? PEFT_LORA_DEFAULT_TARGETS[modelType]
    : undefined;
}
