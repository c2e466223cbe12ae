// Chooses the analyzer for a file by its name and content (not by extension alone), and runs it.
// Pure: no I/O; never throws on user text.
import { analyzeDeepSpeedJson } from './deepspeed-json';
import { emptyFacts, type ConfigFacts, type Format } from './facts';
import { capProblems, MAX_PROBLEMS, notAnalyzed, type Syntax } from './guards';
import { analyzeHfPython } from './hf-python';
import { isScenarioFile } from './scenario';
import { analyzeShell } from './shell';
import { analyzeAccelerateYaml, analyzeAxolotlYaml, analyzeHfYaml, analyzeLlamaFactoryYaml, analyzeTorchtuneYaml, detectYamlFormat } from './yaml';

const DS_KEYS = /"(zero_optimization|train_micro_batch_size_per_gpu|train_batch_size|gradient_accumulation_steps|zero_allow_untested_optimizer|bf16|fp16|steps_per_print|gradient_clipping)"\s*:/;
// A name, or a call whose opening parenthesis may be followed by anything (a newline, a quote).
const PY_TRAINING = /\b(?:TrainingArguments|Seq2SeqTrainingArguments|LoraConfig|BitsAndBytesConfig|HfArgumentParser|TrlParser)\b|\b(?:[A-Z][A-Za-z]*Config|from_pretrained|get_peft_model)\s*\(/;
const SHELL_LAUNCH = /\b(torchrun|torch\.distributed\.(launch|run)|deepspeed|accelerate\s+launch|llamafactory-cli|axolotl|tune\s+run|trl\s+(sft|dpo|grpo|rloo|kto|reward|orpo|ppo|online_dpo|xpo|gkd|cpo|bco)|python3?\s+\S+\.py|srun|mpirun)\b/;

function baseName(fileName: string): string {
  const i = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  return (i >= 0 ? fileName.slice(i + 1) : fileName).toLowerCase();
}

/** The format of a file, or undefined when it is not a training config VRAM Lens reads. */
export function detectFormat(fileName: string, text: string, languageId?: string): Format | undefined {
  const name = baseName(fileName);
  if (isScenarioFile(name)) return 'scenario';
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : '';
  if (ext === 'json' || ext === 'jsonc' || ext === 'conf' || ext === 'hjson' || languageId === 'json' || languageId === 'jsonc') {
    if (/^ds_?config|deepspeed|zero[0-3]?/.test(name) || DS_KEYS.test(text.slice(0, 200_000))) return 'deepspeed-json';
    return undefined;
  }
  if (ext === 'py' || languageId === 'python') return PY_TRAINING.test(text) ? 'hf-python' : undefined;
  if (ext === 'sh' || ext === 'bash' || ext === 'slurm' || ext === 'sbatch' || languageId === 'shellscript' || /^#!.*\b(ba)?sh\b/.test(text)) {
    return SHELL_LAUNCH.test(text) ? 'shell' : undefined;
  }
  if (ext === 'yaml' || ext === 'yml' || languageId === 'yaml') return detectYamlFormat(text, fileName);
  return undefined;
}

const SYNTAX: Readonly<Record<Format, Syntax>> = {
  'deepspeed-json': 'json', 'hf-python': 'python', shell: 'shell', 'accelerate-yaml': 'yaml', 'axolotl-yaml': 'yaml',
  'llamafactory-yaml': 'yaml', 'torchtune-yaml': 'yaml', 'hf-yaml': 'yaml', scenario: 'yaml',
};

/**
 * Runs the analyzer of a format (the scenario format has its own reader: analyzeScenario). A text over the size or
 * nesting limits (guards.ts) is not parsed: its facts are empty, with a problem that says why.
 */
export function analyzeAs(format: Format, text: string): ConfigFacts {
  const refused = notAnalyzed(text, SYNTAX[format]);
  if (refused) return { ...emptyFacts(format), problems: [refused] };
  const facts = analyzeWith(format, text);
  return facts.problems.length > MAX_PROBLEMS ? { ...facts, problems: capProblems(facts.problems) } : facts;
}

function analyzeWith(format: Format, text: string): ConfigFacts {
  switch (format) {
    case 'deepspeed-json': return analyzeDeepSpeedJson(text);
    case 'hf-python': return analyzeHfPython(text);
    case 'shell': return analyzeShell(text);
    case 'accelerate-yaml': return analyzeAccelerateYaml(text);
    case 'axolotl-yaml': return analyzeAxolotlYaml(text);
    case 'llamafactory-yaml': return analyzeLlamaFactoryYaml(text);
    case 'torchtune-yaml': return analyzeTorchtuneYaml(text);
    case 'hf-yaml': return analyzeHfYaml(text);
    case 'scenario': return emptyFacts('scenario');
  }
}
