// FORMATS: the training-config formats VRAM Lens reads, one row each: the syntax a file is written in (it sets the
// size and nesting limits of guards.ts, and the fix writer), the tool whose format it is, how a file is recognised and
// its analyzer. A Format without a row does not compile; detect.ts runs the rows. Pure: no I/O.
import { analyzeFsdpConfigJson } from './yaml/fsdp-config';
import { analyzeForgeYaml } from './yaml/forge';
import { analyzeDeepSpeedJson } from './deepspeed-json';
import { emptyFacts, type ConfigFacts, type Format, type Tool } from './facts';
import type { Syntax } from './guards';
import { mayShellOut, shellOut } from './hf-python/shell-out';
import { analyzeHfPython } from './hf-python';
import { isNanogptConfig } from './hf-python/nanogpt';
import { isScenarioFile } from './scenario';
import { analyzeShell } from './shell';
import {
  analyzeAccelerateYaml,
  analyzeAxolotlYaml,
  analyzeHfYaml,
  analyzeLitgptYaml,
  analyzeLlamaFactoryYaml,
  analyzeLlmFoundryYaml,
  analyzeNemoRlYaml,
  analyzeSkyPilotYaml,
  analyzeDstackYaml,
  analyzeKubernetesYaml,
  analyzeOumiYaml,
  analyzeAutotrainYaml,
  analyzeLudwigYaml,
  analyzeMistralFinetuneYaml,
  analyzeAlignAnythingYaml,
  analyzeArcticYaml,
  analyzeSwiftArgsFile,
  analyzeTorchtuneYaml,
  detectYamlFormat,
} from './yaml';
import { analyzeVerlYaml } from './verl/yaml';
import { analyzeHydraYaml } from './hydra';
import { analyzeNotebook } from './notebook';
import { analyzeTorchtitanToml, isTorchtitanToml } from './toml/torchtitan';
import { analyzePrimeRlToml, primeRlKind } from './toml/prime-rl';
import { analyzeArealYaml } from './yaml/areal';
import { analyzeGlmFinetuneYaml } from './yaml/glm-finetune';
import { analyzeProjectConfig } from './yaml/project-config';
import { YamlCtx } from './yaml/common';

const DS_KEYS = new RegExp(
  String.raw`"(zero_optimization|train_micro_batch_size_per_gpu|train_batch_size|gradient_accumulation_steps|` +
    String.raw`zero_allow_untested_optimizer|bf16|fp16|steps_per_print|gradient_clipping)"\s*:`,
);
// HfArgumentParser's JSON arguments (`python run_clm.py args.json`, parse_json_file) share bf16, fp16 and
// gradient_accumulation_steps with DeepSpeed; a JSON with TrainingArguments' own keys and none that only DeepSpeed has
// is read as those arguments (hf-yaml), not as a DeepSpeed config.
const HF_ARGUMENT_KEYS = new RegExp(
  String.raw`"(per_device_train_batch_size|model_name_or_path|output_dir|num_train_epochs|learning_rate|` +
    String.raw`lr_scheduler_type|save_strategy|logging_steps|per_device_eval_batch_size|warmup_ratio)"\s*:`,
);
const DEEPSPEED_ONLY_KEYS = new RegExp(
  String.raw`"(zero_optimization|train_micro_batch_size_per_gpu|train_batch_size|steps_per_print|gradient_clipping|` +
    String.raw`zero_allow_untested_optimizer|optimizer|scheduler|wall_clock_breakdown|activation_checkpointing)"\s*:`,
);
const isDeepspeedJson = (file: DetectionInput): boolean => {
  if (/^ds_?config|deepspeed|zero[0-3]?/.test(file.name)) return true;
  const head = file.text.slice(0, 200_000);
  return DS_KEYS.test(head) && (!HF_ARGUMENT_KEYS.test(head) || DEEPSPEED_ONLY_KEYS.test(head));
};
// A name, or a call whose opening parenthesis may be followed by anything (a newline, a quote).
const PY_TRAINING = new RegExp(
  String.raw`\b(?:TrainingArguments|Seq2SeqTrainingArguments|LoraConfig|BitsAndBytesConfig|HfArgumentParser|H4ArgumentParser|TrlParser)\b|` +
    String.raw`\b(?:[A-Z][A-Za-z]*Config|from_pretrained|get_peft_model)\s*\(|` +
    // mmengine's lazy configs (XTuner): `llm=dict(type=AutoModelForCausalLM.from_pretrained, ...)`.
    String.raw`\btype\s*=\s*[\w.]+\.from_pretrained\b|` +
    // Lit-GPT's own fine-tuning scripts of 2023 (hf-python/litgpt-script.ts) and LitGPT's Python API (litgpt-api.ts).
    String.raw`^\s*(?:from|import)\s+lit_?gpt\b|` +
    // A SageMaker training job's estimator (hf-python/sagemaker.ts): `from sagemaker.huggingface import HuggingFace`.
    String.raw`^\s*from\s+sagemaker\.(?:huggingface|pytorch)\s+import\b`,
  'm',
);
/** Blanks between a command's words, a line continuation (`python \` at a line's end) included. */
const GAP = String.raw`(?:\s|\\\r?\n)+`;
const SHELL_LAUNCH = new RegExp(
  String.raw`\b(torchrun|torch\.distributed\.(launch|run)|deepspeed|accelerate${GAP}launch|accelerate\.commands\.launch|` +
    String.raw`llamafactory-cli|axolotl|tune${GAP}run|(?:rl|sft)${GAP}@${GAP}\S+\.toml|` +
    String.raw`trl${GAP}(sft|dpo|grpo|rloo|kto|reward|orpo|ppo|online_dpo|xpo|gkd|cpo|bco)|swift${GAP}(sft|pt|rlhf)|` +
    String.raw`litgpt${GAP}(finetune\w*|pretrain)|xtuner${GAP}train|oumi${GAP}(train|distributed)|autotrain${GAP}--config|ludwig${GAP}(?:train|experiment)|` +
    String.raw`arctic_training|openrlhf\.cli\.train_\w+|` +
    String.raw`verl\.trainer\.(?:main_ppo|main|(?:\w+_)?sft_trainer(?:_\w+)?)|recipe\.(?:\w+\.)+main_\w+|` +
    String.raw`python3?(?:${GAP}-[A-Za-z]+)*${GAP}\S+\.py|srun|mpirun)\b|` +
    // `python -m pkg.train.sft`, `-m llama_recipes.finetuning`: a module named for training (a module such as pip is no
    // launch).
    String.raw`\bpython3?(?:${GAP}-[A-Za-z]+)*${GAP}-m${GAP}[\w.]*(?:train|tune|tuning|sft|dpo|grpo|orpo|kto|ppo|rlhf|distill)[\w.]*|` +
    // uv running a script or a module with the project's Python: `uv run train.py`, `uv run --extra gpu -m pkg.train`.
    String.raw`\buv${GAP}run\b[^\n]*?(?:${GAP}(?:-m|--module)${GAP}[\w.]+|\S+\.py\b)|` +
    // The interpreter in a variable: `PYTHON_BIN="${PYTHON:-python3}"`, then `$PYTHON_BIN src/train.py`.
    String.raw`(?:^|[\s;&|(])\$\{?[A-Za-z_]*(?:PYTHON|[Pp]ython)\w*\}?(?:${GAP}-[A-Za-z]+)*${GAP}\S+\.py\b`,
  'm',
);

/** `python "$SCRIPT"` (options before it allowed): the interpreter given a script held in a variable. */
const PYTHON_OF_VARIABLE = new RegExp(String.raw`\bpython3?(?:${GAP}-[A-Za-z]+)*${GAP}"?\$\{?(\w+)\}?"?(?=\s|$)`, 'gm');

/**
 * A launch line that runs a Python script held in a variable the file sets to a `.py` path
 * (`PYTHON_SCRIPT_TO_RUN="$SLURM_SUBMIT_DIR/fine_tuning/train.py"`, then `python "$PYTHON_SCRIPT_TO_RUN" --model ...`).
 */
function pythonOfScriptVariable(text: string): boolean {
  for (const m of text.matchAll(PYTHON_OF_VARIABLE)) {
    const set = new RegExp(String.raw`^\s*(?:export\s+)?${m[1]}=["']?[^\s"']*\.py["']?\s*(?:#.*)?$`, 'm');
    if (set.test(text)) return true;
  }
  return false;
}

/**
 * A shell script named as a command: `bash [-x] scripts/train.sh`, `./finetune.sh`, `source "$(dirname "$0")/common.sh"`
 * (`shells`: the words before it).
 */
const scriptCall = (shells: string): string =>
  String.raw`(?:(?:${shells})\s+(?:-[a-z]+\s+)*)?["']?(?:\$\((?:[^()\n]|\([^()\n]*\))*\)/|\$\{?\w+\}?/)?(?:\./)?[\w./-]*\.(?:sh|bash)\b`;

/**
 * Another shell script run as a command (`bash scripts/train_dpo.sh --lr 1e-6`, `./finetune.sh`), whose run is read,
 * or sourced (`source base_training_args.sh`), whose variables are.
 */
/**
 * A program run by its name with the HF Trainer's options (`petrogpt-train --stage sft --model_name_or_path ...
 * --per_device_train_batch_size 4`, a project's console script: shell/unread-program.ts): the model's option and one
 * only TrainingArguments has, in the script's text.
 */
const TRAINER_ONLY = String.raw`--(?:per_device_train_batch_size|gradient_accumulation_steps|deepspeed)\b`;
const TRAINER_PROGRAM = new RegExp(
  String.raw`--model_name_or_path\b[\s\S]*?${TRAINER_ONLY}|${TRAINER_ONLY}[\s\S]*?--model_name_or_path\b`,
);

const SHELL_CALL = new RegExp(
  String.raw`^[ \t]*(?:[A-Z_]\w*=\S*\s+)*` + scriptCall(String.raw`(?:ba|z|da)?sh|source|\.`),
  'm',
);

/** A notebook's shell command that runs a shell script (`!bash train.sh --model ...`), in the notebook's JSON text. */
const NOTEBOOK_SHELL_CALL = new RegExp(String.raw`!\s*` + scriptCall('(?:ba|z|da)?sh'));

/**
 * A training entry point that only imports the project's `train` and calls it (LLaVA's and FastChat's
 * `train_mem.py`: `from llava.train.train import train` ... `train()`; shivam13juna/Accelerate-LLM-FineTune's
 * `train_fsdp.py`: `train(batch_size=BATCH_SIZE)`), named for training: read for the module it calls.
 */
/**
 * A Trainer of transformers or TRL built in the script (`from transformers import Trainer`, then `Trainer(model=...,
 * args=get_training_args())`): its model and arguments may come from the project's modules (Engmhabib/Qwen3-Local-
 * FineTune's src/train.py), which are read for them.
 */
const IMPORTS_TRAINER = /^\s*from\s+(?:transformers|trl)\s+import\s+(?:\([^)]*\bTrainer\b|[^\n]*\w*Trainer\b)/m;
const BUILDS_TRAINER = /(?<![\w.])\w*Trainer\s*\(/;
const hfTrainerScript = (text: string): boolean => IMPORTS_TRAINER.test(text) && BUILDS_TRAINER.test(text);

/** A Python script that runs a launch command (`subprocess.run(["accelerate", "launch", ...])`, hf-python/shell-out.ts). */
function launchesThroughShell(text: string): boolean {
  if (!mayShellOut(text)) return false;
  const commands = shellOut(text);
  return commands !== undefined && SHELL_LAUNCH.test(commands.text);
}

const trainEntryPoint = (file: DetectionInput): boolean =>
  (/train/.test(file.name) &&
    /^from\s+[\w.]+\s+import\s+(?:\([^)]*\btrain\b[^)]*\)|[^\n]*\btrain\b)/m.test(file.text) &&
    /^\s*train\([^\n]*\)\s*(?:#.*)?$/m.test(file.text)) ||
  callsImportedTraining(file.text);

/** A function named for training a model: `train_model`, `sft_train`, `run_training_pipeline`, `finetune`. */
const TRAINING_FUNCTION = /^(train_\w+|\w+_train|(?:run|start|do|launch|begin)_training\w*|fine_?tune\w*)$/;

/**
 * A script that imports a training function of its project and calls it (`from models.train_model import
 * train_model` ... `train_model(model, tokenizer, peft_config, dataset)`, in a main.py), or a function that builds a
 * trainer whose `.train()` it calls (`trainer = get_trainer(...)`, `set_trainer(...)`, a trainer class of its own:
 * `trainer = LoraQATrainer(...)`): read for the modules it calls. The import may be
 * inside a function (`def main(): from src.sft_training import train_sft_ideology`, a lazy import).
 * A bare `train` counts only in a file named for training (above): `serve.py` may import one too.
 */
function callsImportedTraining(text: string): boolean {
  const head = text.slice(0, 20_000);
  let names = 0;
  for (const m of head.matchAll(/^[ \t]*from\s+\.?[\w.]+\s+import\s+(?:\(([^)]*)\)|([\w \t,]+))/gm)) {
    for (const name of (m[1] ?? m[2] ?? '').split(',').map((x) => x.trim())) {
      // A script imports a few dozen names at most; past that it is no script to detect by them.
      if (++names > 200) return false;
      const rest = head.slice((m.index ?? 0) + m[0].length);
      // `trainer = get_trainer(model, ...)` then `trainer.train()`: a trainer a project module builds; or a trainer
      // class of its own (`trainer = LoraQATrainer(model_name=...)`, `trainer.train()`).
      if (
        /^(?:get|build|create|make|setup|set|init|prepare|load|configure|construct)_?\w*trainer$/i.test(name) ||
        /^[A-Z]\w*Trainer$/.test(name)
      ) {
        const bound = new RegExp(`^[ \\t]*(\\w+)\\s*=\\s*${name}\\(`, 'm').exec(rest);
        if (bound && new RegExp(`\\b${bound[1]}\\.train\\(`).test(rest)) return true;
        continue;
      }
      if (!TRAINING_FUNCTION.test(name) || name === 'train_test_split') continue;
      if (new RegExp(`(^|[^\\w.])${name}\\(`, 'm').test(rest)) return true;
    }
  }
  return false;
}

function baseName(fileName: string): string {
  const i = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  return (i >= 0 ? fileName.slice(i + 1) : fileName).toLowerCase();
}

/** A file as detection sees it: its name, extension, language id and text. */
export class DetectionInput {
  /** The base name, lower-cased. */
  readonly name: string;
  /** The extension of the base name, lower-cased ('' when it has none). */
  readonly ext: string;
  private yaml?: { readonly format: Format | undefined };

  constructor(
    readonly fileName: string,
    readonly text: string,
    readonly languageId?: string,
    /** Whether a project's own config is read by the names of its keys (yaml/project-config.ts). */
    readonly byName = true,
  ) {
    this.name = baseName(fileName);
    this.ext = this.name.includes('.') ? this.name.slice(this.name.lastIndexOf('.') + 1) : '';
  }

  /** The YAML format of the text (yaml/detect.ts decides among the YAML formats at once), computed once. */
  get yamlFormat(): Format | undefined {
    this.yaml ??= { format: detectYamlFormat(this.text, this.fileName, this.byName) };
    return this.yaml.format;
  }
}

export interface FormatSpec {
  /** The syntax the format is written in: the size and nesting limits (guards.ts) and the fix writer follow from it. */
  readonly syntax: Syntax;
  /**
   * The tool whose format this is (HF Trainer for TrainingArguments in Python or YAML, torchrun for launch scripts).
   * Which tool's defaults apply is decided from the facts (each names its tool); this says whose files they are.
   */
  readonly tool: Tool;
  /**
   * Other syntaxes its files may be written in, read by the same analyzer: Accelerate also loads its config from JSON
   * (accelerate/commands/config/config_args.py load_config_from_file: `.json` -> ClusterConfig.from_json_file), which
   * the YAML reader parses as the subset of YAML it is.
   */
  readonly alsoIn?: readonly Syntax[];
  /** Whether a file that SYNTAX_CLAIMS gives to this format's syntax is of this format. */
  readonly detect: (file: DetectionInput) => boolean;
  /** The analyzer: text to facts with spans. It never throws on user text. */
  readonly analyze: (text: string) => ConfigFacts;
}

const yamlFormat = (format: Format, tool: Tool, analyze: (text: string) => ConfigFacts): FormatSpec => ({
  syntax: 'yaml',
  tool,
  detect: (file) => file.yamlFormat === format,
  analyze,
});

export const FORMATS: Readonly<Record<Format, FormatSpec>> = {
  // *.vram.yaml / *.vram.json scenario files have their own reader (scenario.ts analyzeScenario), found by name.
  scenario: {
    syntax: 'yaml',
    tool: 'vram-lens',
    detect: (file) => isScenarioFile(file.name),
    analyze: () => emptyFacts('scenario'),
  },
  'deepspeed-json': {
    syntax: 'json',
    tool: 'deepspeed',
    analyze: analyzeDeepSpeedJson,
    detect: isDeepspeedJson,
  },
  // Jupyter notebooks: the code cells read as one Python script (notebook.ts).
  notebook: {
    syntax: 'notebook',
    tool: 'hf-trainer',
    detect: (file) =>
      PY_TRAINING.test(file.text) || SHELL_LAUNCH.test(file.text) || NOTEBOOK_SHELL_CALL.test(file.text),
    analyze: analyzeNotebook,
  },
  'hf-python': {
    syntax: 'python',
    tool: 'hf-trainer',
    detect: (file) =>
      PY_TRAINING.test(file.text) ||
      trainEntryPoint(file) ||
      hfTrainerScript(file.text) ||
      isNanogptConfig(file.text) ||
      launchesThroughShell(file.text),
    analyze: analyzeHfPython,
  },
  shell: {
    syntax: 'shell',
    tool: 'torchrun',
    detect: (file) =>
      SHELL_LAUNCH.test(file.text) ||
      SHELL_CALL.test(file.text) ||
      pythonOfScriptVariable(file.text) ||
      TRAINER_PROGRAM.test(file.text),
    analyze: analyzeShell,
  },
  'accelerate-yaml': { ...yamlFormat('accelerate-yaml', 'accelerate', analyzeAccelerateYaml), alsoIn: ['json'] },
  'axolotl-yaml': yamlFormat('axolotl-yaml', 'axolotl', analyzeAxolotlYaml),
  // `llamafactory-cli train args.json` reads JSON too (llamafactory/hparams/parser.py read_args).
  'llamafactory-yaml': {
    ...yamlFormat('llamafactory-yaml', 'llamafactory', analyzeLlamaFactoryYaml),
    alsoIn: ['json'],
  },
  'torchtune-yaml': yamlFormat('torchtune-yaml', 'torchtune', analyzeTorchtuneYaml),
  // HfArgumentParser.parse_json_file reads the same arguments from JSON (`python run_clm.py args.json`).
  'hf-yaml': { ...yamlFormat('hf-yaml', 'hf-trainer', analyzeHfYaml), alsoIn: ['json'] },
  'litgpt-yaml': yamlFormat('litgpt-yaml', 'litgpt', analyzeLitgptYaml),
  // verl's and EasyR1's config YAML (a launch line's overrides of it come through the pipeline: detect.ts analyzeAs).
  'verl-yaml': yamlFormat('verl-yaml', 'verl', (text) => analyzeVerlYaml(text)),
  // A Hydra application's config (the DPO reference implementation's): composed with its group options and the launch
  // line's overrides in the pipeline (hydra/index.ts hydraRun); alone here.
  'hydra-yaml': yamlFormat('hydra-yaml', 'dpo-reference', analyzeHydraYaml),
  // llm-foundry's training YAML, alone or as a MosaicML platform run's parameters.
  'llmfoundry-yaml': yamlFormat('llmfoundry-yaml', 'llm-foundry', analyzeLlmFoundryYaml),
  // ms-swift's argument files (`swift sft args.yaml`), YAML or JSON.
  'swift-yaml': { ...yamlFormat('swift-yaml', 'ms-swift', analyzeSwiftArgsFile), alsoIn: ['json'] },
  // NeMo-RL's config YAML (`examples/run_grpo_math.py --config x.yaml`), with the `defaults:` parent it inherits.
  'nemorl-yaml': yamlFormat('nemorl-yaml', 'nemo-rl', analyzeNemoRlYaml),
  // A SkyPilot task: its `run:` script read as a launch script in place.
  'skypilot-yaml': yamlFormat('skypilot-yaml', 'torchrun', analyzeSkyPilotYaml),
  // A dstack task: its `commands:` read as a launch script in place.
  'dstack-yaml': yamlFormat('dstack-yaml', 'torchrun', analyzeDstackYaml),
  'kubernetes-yaml': yamlFormat('kubernetes-yaml', 'torchrun', analyzeKubernetesYaml),
  // Oumi's training config (`oumi train -c x.yaml`).
  'oumi-yaml': yamlFormat('oumi-yaml', 'oumi', analyzeOumiYaml),
  // Hugging Face AutoTrain's LLM config (`autotrain --config x.yml`).
  'autotrain-yaml': yamlFormat('autotrain-yaml', 'autotrain', analyzeAutotrainYaml),
  // Ludwig's LLM config (`ludwig train --config x.yaml`).
  'ludwig-yaml': yamlFormat('ludwig-yaml', 'ludwig', analyzeLudwigYaml),
  // mistral-finetune's training config (`torchrun -m train example/7B.yaml`).
  'mistral-finetune-yaml': yamlFormat('mistral-finetune-yaml', 'mistral-finetune', analyzeMistralFinetuneYaml),
  // align-anything's training config (`deepspeed --module align_anything.trainers.text_to_text.sft`).
  'align-anything-yaml': yamlFormat('align-anything-yaml', 'align-anything', analyzeAlignAnythingYaml),
  // ArcticTraining's training config (`arctic_training run.yml`).
  'arctic-yaml': yamlFormat('arctic-yaml', 'arctic-training', analyzeArcticYaml),
  // THUDM's GLM fine-tuning configs (`finetune.py <data_dir> <model_dir> configs/lora.yaml`).
  'glm-finetune-yaml': yamlFormat('glm-finetune-yaml', 'hf-trainer', analyzeGlmFinetuneYaml),
  // AReaL's experiment config (`python3 examples/math/gsm8k_rl.py --config x.yaml`).
  'areal-yaml': yamlFormat('areal-yaml', 'areal', analyzeArealYaml),
  // meta-pytorch/forge's app configs: torchtitan's job config, at the top or under `trainer:`.
  'forge-yaml': yamlFormat('forge-yaml', 'torchtitan', analyzeForgeYaml),
  // torchtitan's TOML job config (`--job.config_file`).
  'torchtitan-toml': {
    syntax: 'toml',
    tool: 'torchtitan',
    detect: (file) => isTorchtitanToml(file.text),
    analyze: analyzeTorchtitanToml,
  },
  // A JSON / YAML file a script loads for its values: a file of the script's run, its facts the items the script
  // takes (script-data.ts, read in the pipeline); nothing in its text alone says it is a training config.
  'script-data': {
    syntax: 'yaml',
    tool: 'hf-trainer',
    alsoIn: ['json'],
    detect: () => false,
    // Alone, only its syntax: a fix's edit is checked against it.
    analyze: (text) => new YamlCtx(text, { format: 'script-data', tool: 'hf-trainer', omegaconf: false }).result(),
  },
  // The file TrainingArguments' fsdp_config names: FSDP's options for the HF Trainer, read where a run names it.
  'fsdp-config-json': {
    syntax: 'yaml',
    tool: 'hf-trainer',
    alsoIn: ['json'],
    detect: () => false,
    analyze: analyzeFsdpConfigJson,
  },
  // prime-rl's configs (`uv run rl @ rl.toml`, `uv run sft @ sft.toml`).
  'prime-rl-toml': {
    syntax: 'toml',
    tool: 'prime-rl',
    detect: (file) => primeRlKind(file.text) !== undefined,
    analyze: analyzePrimeRlToml,
  },
  // A project's own training config that no tool's format takes, read by the names of its keys; tried last.
  'project-yaml': { ...yamlFormat('project-yaml', 'hf-trainer', analyzeProjectConfig), alsoIn: ['json'] },
};

/** A line that starts with a launch command, after the variables it sets (`CUDA_VISIBLE_DEVICES=0,1 accelerate launch`). */
const LAUNCH_LINE = new RegExp(
  String.raw`^[ ]*(?:[A-Za-z_]\w*=\S*[ \t]+)*(?:torchrun|deepspeed|accelerate[ \t]+launch|python3?[ \t]+(?:-m[ \t]+)?\S+|` +
    String.raw`llamafactory-cli|axolotl|swift[ \t]+(?:sft|pt|rlhf)|tune[ \t]+run|srun|mpirun)\b`,
  'm',
);

/** Files that are not shell scripts whatever their lines look like. */
const NOT_SHELL = /^(?:makefile|gnumakefile|dockerfile|containerfile|procfile|justfile|license|readme|notice)\b/;

/**
 * A launch script saved without an extension or a shebang (PetyoKaratov88/FDSP-Accelerate-Finetune's `bash_train`,
 * jbaron34/train-llm's `runfile`: `accelerate launch --config_file ... train.py ...`), or under a batch system's
 * extension (`.pbs`, `.job`, `.lsf`, `.qsub`): a line of it starts with a launch command.
 */
function launchFileWithoutExtension(f: DetectionInput): boolean {
  const bare = f.ext === '' || ['pbs', 'job', 'lsf', 'qsub'].includes(f.ext);
  return bare && f.languageId !== 'python' && !NOT_SHELL.test(f.name) && LAUNCH_LINE.test(f.text);
}

/**
 * The syntax of a file, by its extension or language id (a shebang also makes a shell script): the first claim that
 * holds decides, and only that syntax's formats are tried. A file no claim takes is not a training config.
 */
export const SYNTAX_CLAIMS: ReadonlyArray<readonly [Syntax, (file: DetectionInput) => boolean]> = [
  ['notebook', (f) => f.ext === 'ipynb' || f.languageId === 'jupyter'],
  [
    'json',
    (f) =>
      f.ext === 'json' ||
      f.ext === 'jsonc' ||
      f.ext === 'conf' ||
      f.ext === 'hjson' ||
      f.languageId === 'json' ||
      f.languageId === 'jsonc',
  ],
  ['python', (f) => f.ext === 'py' || f.languageId === 'python'],
  [
    'shell',
    (f) =>
      f.ext === 'sh' ||
      f.ext === 'bash' ||
      f.ext === 'slurm' ||
      f.ext === 'sbatch' ||
      f.languageId === 'shellscript' ||
      /^#!.*\b(ba)?sh\b/.test(f.text) ||
      launchFileWithoutExtension(f),
  ],
  ['yaml', (f) => f.ext === 'yaml' || f.ext === 'yml' || f.languageId === 'yaml'],
  ['toml', (f) => f.ext === 'toml' || f.languageId === 'toml'],
];
