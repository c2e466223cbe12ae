// Tells which training tool a YAML file belongs to from its top-level keys (and the file name only to exclude
// VRAM Lens scenario files, which have their own analyzer). Pure; never throws.
import { isForgeYaml } from './forge';
import { isMap, isScalar, type Node } from 'yaml';
import { MAX_ANALYZED_CHARS, notAnalyzed } from '../guards';
import { parseYaml } from '../yaml-parse';
import type { Format } from '../facts';
import { MAX_FLOW_DEPTH, flowDepth } from './common';
import { verlSchema } from '../verl/schema';
import { isHydraYaml } from '../hydra';
import { isLlmFoundryYaml } from './llmfoundry';
import { isNemoRlYaml } from './nemorl';
import { isSkyPilotYaml } from './skypilot';
import { isDstackYaml } from './dstack';
import { isKubernetesYaml } from './kubernetes';
import { isOumiYaml } from './oumi';
import { isAutotrainYaml } from './autotrain';
import { isLudwigYaml } from './ludwig';
import { isMistralFinetuneYaml } from './mistral-finetune';
import { isArcticYaml } from './arctic';
import { isAlignAnythingYaml } from './align-anything';
import { isGlmFinetuneYaml } from './glm-finetune';
import { isArealYaml } from './areal';
import { isSwiftArgsFile, swiftArgsSection } from './swift';
import { isProjectConfig } from './project-config';

const SCENARIO = /\.vram\.(ya?ml|json)$/i;

/** Keys that only an Accelerate config has (config_args.py ClusterConfig). */
const ACCELERATE = [
  'compute_environment',
  'distributed_type',
  'num_machines',
  'machine_rank',
  'main_training_function',
  'rdzv_backend',
  'same_network',
  'deepspeed_config',
  'downcast_bf16',
  'tpu_env',
  'gpu_ids',
  'enable_cpu_affinity',
];
const AXOLOTL = [
  'base_model',
  'micro_batch_size',
  'sequence_len',
  'adapter',
  'lora_target_linear',
  'sample_packing',
  'datasets',
  'num_epochs',
  'load_in_4bit',
  'load_in_8bit',
  'wandb_project',
  'special_tokens',
  'base_model_config',
];
const LLAMAFACTORY = [
  'stage',
  'finetuning_type',
  'cutoff_len',
  'template',
  'lora_rank',
  'lora_target',
  'quantization_bit',
  'dataset_dir',
  'pure_bf16',
  'flash_attn',
  'disable_gradient_checkpointing',
];
const LLAMAFACTORY_V1 = ['dist_config', 'kernel_config', 'model_class', 'quant_config', 'peft_config', 'train_dataset'];
/** The v1 schema's keys no other tool's config uses. */
const LLAMAFACTORY_V1_OWN = ['dist_config', 'kernel_config', 'model_class'];
/** Keys of LitGPT's configs (litgpt/finetune/*.py and pretrain.py setup() arguments, config_hub/*.yaml). */
const LITGPT = [
  'checkpoint_dir',
  'initial_checkpoint_dir',
  'model_name',
  'precision',
  'quantize',
  'devices',
  'num_nodes',
  'lora_query',
  'lora_key',
  'lora_value',
  'lora_projection',
  'lora_mlp',
  'lora_head',
  'out_dir',
  'logger_name',
  'tokenizer_dir',
  'train',
  'eval',
  // pretrain.py's model written out (litgpt/config.py Config).
  'model_config',
];
const HF = [
  'per_device_train_batch_size',
  'gradient_accumulation_steps',
  'learning_rate',
  'model_name_or_path',
  'output_dir',
  'num_train_epochs',
  'bf16',
  'fp16',
  'optim',
  'gradient_checkpointing',
  'max_length',
  'max_seq_length',
  'use_peft',
  'dataset_name',
  'lr_scheduler_type',
  'warmup_ratio',
  'logging_steps',
];

/**
 * Keys of lm-evaluation-harness task and run configs (lm_eval/api/task.py TaskConfig; the CLI's --config file): an
 * evaluation, not a training run, though it has batch_size and max_length.
 */
const LM_EVAL = [
  'task',
  'tasks',
  'dataset_path',
  'dataset_name',
  'doc_to_text',
  'doc_to_target',
  'doc_to_choice',
  'output_type',
  'metric_list',
  'test_split',
  'validation_split',
  'fewshot_split',
  'num_fewshot',
  'generation_kwargs',
  'model_args',
  'filter_list',
  'process_docs',
  'group',
  'tag',
];
/** Keys only a training config has (an lm-eval file with one of them is read as a training config after all). */
const TRAINING_ONLY = [
  'per_device_train_batch_size',
  'learning_rate',
  'num_train_epochs',
  'gradient_accumulation_steps',
  'max_steps',
  'lr_scheduler_type',
  'warmup_ratio',
  'warmup_steps',
  'optim',
  'gradient_checkpointing',
  'micro_batch_size',
  'sequence_len',
  'base_model',
  'stage',
  'finetuning_type',
];
/** HF keys that alone say "TrainingArguments" (the others, such as max_length or bf16, need a second). */
const HF_STRONG = [
  'per_device_train_batch_size',
  'gradient_accumulation_steps',
  'model_name_or_path',
  'num_train_epochs',
  'use_peft',
  'gradient_checkpointing',
];

/** Whether model_name_or_path is the only one of TrainingArguments' (or TRL's) keys at the top of the file. */
function onlyModelAtTop(keys: ReadonlySet<string>): boolean {
  return [...HF, ...HF_STRONG].every((k) => k === 'model_name_or_path' || !keys.has(k));
}

/** A plain YAML value without its trailing comment (a `#` after whitespace); linear in the value's length. */
function withoutComment(value: string): string {
  for (let i = value.indexOf('#'); i >= 0; i = value.indexOf('#', i + 1)) {
    if (i > 0 && /\s/.test(value[i - 1])) return value.slice(0, i);
  }
  return value;
}

/**
 * The top-level keys read line by line (block-style YAML, which every training config in the corpus uses): a
 * key at column 0 followed by a colon. Cheap enough to run on every keystroke; the full parse is the fallback
 * for flow-style documents.
 */
function topKeysByLine(text: string): { keys: Set<string>; components: boolean; scalarModel: boolean } | undefined {
  const keys = new Set<string>();
  let components = false;
  let scalarModel = false;
  let inBlockScalar = false;
  for (const line of text.split(/\r?\n/)) {
    if (inBlockScalar) {
      if (line.length === 0 || /^\s/.test(line)) continue;
      inBlockScalar = false;
    }
    const m = /^([A-Za-z_][\w.-]*)\s*:(?:\s|$)(.*)$/.exec(line);
    if (m) {
      keys.add(m[1]);
      const rest = withoutComment(m[2]).trim();
      if (m[1] === 'model' && rest.length > 0 && !rest.startsWith('{') && !rest.startsWith('&')) scalarModel = true;
      if (/^[|>]/.test(rest)) inBlockScalar = true;
    } else if (/^\s+_component_\s*:/.test(line)) {
      components = true;
    } else if (/^[{[]/.test(line.trim()) && keys.size === 0) {
      return undefined;
    }
  }
  return keys.size > 0 ? { keys, components, scalarModel } : undefined;
}

/** The top-level keys of a YAML text, and whether a mapping value carries a `_component_` key (torchtune). */
function topKeys(text: string): { keys: Set<string>; components: boolean; scalarModel: boolean } {
  // A text over the YAML size limit is not analyzed: its keys are not scanned for either (a 20 MB mutant took a second).
  if (text.length > MAX_ANALYZED_CHARS.yaml) return { keys: new Set(), components: false, scalarModel: false };
  const byLine = topKeysByLine(text);
  if (byLine) return byLine;
  const keys = new Set<string>();
  let components = false;
  let scalarModel = false;
  try {
    if (notAnalyzed(text, 'yaml') || flowDepth(text) > MAX_FLOW_DEPTH) return { keys, components, scalarModel };
    const doc = parseYaml(text, { uniqueKeys: false, strict: false });
    if (isMap(doc.contents)) {
      for (const pair of doc.contents.items) {
        const k = pair.key as Node | null;
        if (!k || !isScalar(k)) continue;
        const name = String(k.value);
        keys.add(name);
        const v = pair.value as Node | null;
        if (v && isMap(v) && v.items.some((p) => isScalar(p.key) && p.key.value === '_component_')) components = true;
        if (name === 'model' && v && isScalar(v) && typeof v.value === 'string') scalarModel = true;
      }
    }
  } catch {
    // A text the library cannot read belongs to no YAML format.
  }
  return { keys, components, scalarModel };
}

/**
 * The YAML format of a training config, or undefined when the text is not one (or is a *.vram.yaml scenario).
 * Accelerate, torchtune and LLaMA-Factory have keys nobody else uses; Axolotl and HF/TRL share a few (lora_r,
 * gradient_accumulation_steps), so those two are decided by counting distinctive keys.
 */
/** GPT-NeoX's (and Megatron's) hyphenated model keys. */
const NEOX = ['num-layers', 'hidden-size', 'num-attention-heads', 'seq-length', 'max-position-embeddings'];
/** The same keys as GPT-NeoX writes them since 2023 (`pipe_parallel_size`, `pos_emb`), none of them an HF argument. */
const NEOX_UNDERSCORED = [
  'pipe_parallel_size',
  'model_parallel_size',
  'pos_emb',
  'no_weight_tying',
  'make_vocab_size_divisible_by',
];

/** MLX-LM's LoRA config (`mlx_lm.lora --config lora_config.yaml`): keys of its own, none of them an HF argument. */
const MLX_LM = [
  'fine_tune_type',
  'lora_parameters',
  'adapter_path',
  'resume_adapter_file',
  'steps_per_report',
  'val_batches',
];

/**
 * A config of a framework that trains on no CUDA GPU through PyTorch: MLX-LM (Apple silicon) and Levanter (JAX: its
 * trainer's jmp precision policy `mp: p=f32,c=bfloat16` and named mesh axes). Read by the names of their keys as a
 * project's config, their batch and model keys made a PyTorch estimate of a run that is not one.
 */
function notPytorchRun(keys: ReadonlySet<string>, text: string): boolean {
  if (MLX_LM.filter((k) => keys.has(k)).length >= 2) return true;
  return /^\s+mp:\s*["']?p=\w+,/m.test(text) || /^\s+(?:fsdp_axis|batch_axis):/m.test(text);
}

export function detectYamlFormat(text: string, fileName?: string, byName = true): Format | undefined {
  if (fileName && SCENARIO.test(fileName)) return undefined;
  const { keys, components, scalarModel } = topKeys(text);
  if (keys.size === 0) return undefined;
  const count = (list: readonly string[]): number => list.filter((k) => keys.has(k)).length;
  if (components) return 'torchtune-yaml';
  // An lm-evaluation-harness task (task:, dataset_path:, doc_to_text:, ...) is not a training config.
  if (
    (keys.has('task') || keys.has('tasks') || keys.has('dataset_path')) &&
    count(LM_EVAL) >= 2 &&
    count(TRAINING_ONLY) === 0
  )
    return undefined;
  // GPT-NeoX's configs (EleutherAI/gpt-neox configs/*.yml: a model by its dimensions, `num-layers`, `hidden-size`, or
  // `num_layers` beside `pipe_parallel_size`, with DeepSpeed's batch and precision keys, `bf16: {enabled: true}`) are
  // not read: not taken for the HF arguments they share keys with.
  if (count(NEOX) >= 2 || (count(NEOX_UNDERSCORED) >= 2 && keys.has('num_layers'))) return undefined;
  if (notPytorchRun(keys, text)) return undefined;
  // AutoTrain's `base_model` beside `task` and `params` is not Axolotl's (below).
  if (isAutotrainYaml(keys)) return 'autotrain-yaml';
  // Ludwig's feature lists beside its `base_model` (an LLM) or a trainer: not Axolotl's either.
  if (isLudwigYaml(keys)) return 'ludwig-yaml';
  if (isMistralFinetuneYaml(keys)) return 'mistral-finetune-yaml';
  if (isAlignAnythingYaml(keys)) return 'align-anything-yaml';
  // distributed_type alone is Accelerate's unless the file names a model, which no Accelerate config does (ReLoRA's
  // training configs carry `distributed_type: ddp` beside model_name_or_path, read by its torchrun_main.py).
  const modelKey = keys.has('model_name_or_path') || keys.has('base_model');
  if ((keys.has('distributed_type') && !modelKey) || count(ACCELERATE) >= 2) return 'accelerate-yaml';
  if (verlSchema(keys, text)) return 'verl-yaml';
  // The DPO reference implementation's Hydra config (its max_length and gradient_accumulation_steps are HF's names too).
  if (isHydraYaml(keys, text)) return 'hydra-yaml';
  if (isLlmFoundryYaml(keys, text)) return 'llmfoundry-yaml';
  if (isNemoRlYaml(keys, text)) return 'nemorl-yaml';
  if (isSkyPilotYaml(keys)) return 'skypilot-yaml';
  if (isDstackYaml(keys, text)) return 'dstack-yaml';
  if (isKubernetesYaml(keys, text)) return 'kubernetes-yaml';
  if (isOumiYaml(keys, text)) return 'oumi-yaml';
  if (isArcticYaml(keys, text)) return 'arctic-yaml';
  if (isGlmFinetuneYaml(keys)) return 'glm-finetune-yaml';
  if (isArealYaml(keys, text)) return 'areal-yaml';
  if (isForgeYaml(keys, text)) return 'forge-yaml';
  if (keys.has('model_name_or_path') && (keys.has('stage') || keys.has('finetuning_type') || count(LLAMAFACTORY) >= 2))
    return 'llamafactory-yaml';
  // v1's examples carry model_class, train_dataset, dist_config and the rest together: a generic one of its keys alone
  // (universal-llm-trainer's `quant_config: False` beside `model: llama3.1`) is another project's.
  const v1 = count(LLAMAFACTORY_V1) >= 2 || LLAMAFACTORY_V1_OWN.some((k) => keys.has(k));
  if (scalarModel && (v1 || (keys.has('micro_batch_size') && keys.has('cutoff_len')))) return 'llamafactory-yaml';
  // ms-swift's argument files share TrainingArguments' names; their `model` and swift's own keys tell them apart.
  if (isSwiftArgsFile(keys, scalarModel)) return 'swift-yaml';
  // The same arguments in a section a project's wrapper passes on to `swift sft` (`args:`).
  if (!keys.has('model') && swiftArgsSection(text)) return 'swift-yaml';
  // LitGPT: a checkpoint or model name with LitGPT's own keys (Axolotl and HF YAML have neither checkpoint_dir nor the
  // lora_query/lora_value switches, and none of them nests its batch under `train:`).
  if (
    (keys.has('checkpoint_dir') || keys.has('model_name') || keys.has('initial_checkpoint_dir')) &&
    count(LITGPT) >= 4 &&
    !keys.has('base_model')
  )
    return 'litgpt-yaml';
  // Axolotl names its model `base_model`; TRL's ModelConfig shares load_in_4bit / load_in_8bit with it, and TRL recipes
  // often carry a wandb_project of their script's own: a file that names `model_name_or_path` instead is not Axolotl's.
  const axolotl = count(AXOLOTL);
  if (keys.has('base_model') || (axolotl >= 3 && !keys.has('model_name_or_path'))) return 'axolotl-yaml';
  if ((count(HF) >= 2 || count(HF_STRONG) >= 1) && !keys.has('stage') && !keys.has('finetuning_type'))
    // TrainingArguments' keys beside a model under a project's own name (`model_name: Qwen/...`, which no
    // HfArgumentParser field of TRL or transformers has): the project's config, read by its names.
    // So is a file whose only such key at the top is model_name_or_path, its training settings in sections of its own
    // (`sft:`, `lora:`; nhockid235/xling-grpo-sub3b configs/sft_qwen3b.yaml, read by `SFTConfig(**cfg["sft"])`).
    return byName && (!keys.has('model_name_or_path') || onlyModelAtTop(keys)) && isProjectConfig(text)
      ? 'project-yaml'
      : 'hf-yaml';
  if (count(LLAMAFACTORY) >= 2) return 'llamafactory-yaml';
  // Last: a project's own config, nested in sections of its own, read by the names of its keys.
  return byName && isProjectConfig(text) ? 'project-yaml' : undefined;
}
