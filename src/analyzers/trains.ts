// Which functions of a script or notebook train: a call of a trainer's `.train(`, Lightning's `.fit(` or a written-out
// loop's `.backward(` in their body, or a call of a function that does. Pure text matching over the bodies given. And
// which tools say a file trains, for the note on a file that loads a model and trains nothing.
import type { Tool } from './facts';

/** Tools whose facts say how a file trains: a Trainer, a TRL trainer, a loop it writes out, LitGPT, XTuner's runner. */
export const TRAINING_TOOLS: ReadonlySet<Tool> = new Set(['hf-trainer', 'trl', 'pytorch', 'litgpt', 'xtuner']);

/** Tools of a file that loads or adapts a model without training it (an evaluation script's PEFT or Unsloth load). */
const LOADING_ONLY: ReadonlySet<Tool> = new Set(['vram-lens', 'peft', 'unsloth']);

/** Whether a file of a run trains: a trainer, a training loop, a launcher or a training tool's config among its tools. */
export function runTrains(files: readonly { readonly facts: { readonly tools: readonly Tool[] } }[]): boolean {
  return files.some((f) => f.facts.tools.some((t) => !LOADING_ONLY.has(t)));
}

/**
 * Whether a run trains on the CPU: a launch of it hides every GPU or its Accelerate config sets `use_cpu` (the
 * `runs-on-cpu` warning). Of the runs of a file, one on GPUs is the run to estimate (a CPU debug launcher beside it).
 */
export function runOnCpu(
  files: readonly { readonly facts: { readonly problems: readonly { readonly code: string }[] } }[],
): boolean {
  return files.some((f) => f.facts.problems.some((p) => p.code === 'runs-on-cpu'));
}

/** The end of the warning of a file that trains nothing: no estimate is made of it (and no missing model is said). */
export const NO_TRAINING_ESTIMATE = 'a training estimate does not apply';

/** The warning of a script that loads a model and has no trainer or loop (hf-python/index.ts noTrainingSeen). */
export const NO_TRAINING_SEEN = 'no Trainer, TRL trainer or training loop in this file';

/** A call that trains: a trainer's `.train(`, Lightning's `.fit(`, a written-out loop's `.backward(`. */
export const TRAINS = /\.(train|fit|backward)\s*\(/;

/** A function by its name and the text of its body. */
export interface NamedBody {
  readonly name: string;
  readonly body: string;
}

/** The names of the functions that train, directly or through the others (to a fixed point of four rounds). */
export function trainingFunctions(functions: readonly NamedBody[]): Set<string> {
  const found = new Set<string>();
  for (let round = 0; round < 4; round++) {
    const before = found.size;
    const calls = callPattern(found);
    for (const f of functions)
      if (!found.has(f.name) && (TRAINS.test(f.body) || calls?.test(f.body) === true)) found.add(f.name);
    if (found.size === before) break;
  }
  return found;
}

/** A call of one of the functions (not the function's own `def`), one pattern for them all; undefined for none. */
export function callPattern(names: ReadonlySet<string>): RegExp | undefined {
  if (names.size === 0) return undefined;
  return new RegExp(`(?<!def\\s+)(?<![\\w.])(?:${[...names].join('|')})\\s*\\(`);
}

/**
 * A call whose name speaks of training: `trainer.train(`, `train(`, `run_training(`, `.fit(`, `.backward(`, `SFTTrainer(`,
 * `TrainingArguments(` (not `from_pretrained(`).
 */
const TRAINING_CALL = /(?:^|[^a-z])(?:train|fit|backward|finetun|fine_tun)\w*\s*\(|trainer\w*\s*\(|training\w*\s*\(/i;
/** The model run for its outputs: `.generate(`, `.eval()`, `torch.no_grad()`, `torch.inference_mode()`. */
const INFERENCE = /\.generate\s*\(|\.eval\s*\(\s*\)|\bno_grad\s*\(|\binference_mode\s*\(/;

/**
 * A script or notebook that runs its model and calls nothing that trains (no trainer, no `train(` of any function, no
 * `.fit(` or `.backward(`): an inference or evaluation file, for which a training estimate does not apply.
 */
export function runsWithoutTraining(text: string): boolean {
  const code = withoutModeSwitches(text.replace(/#[^\n]*/g, ''));
  return INFERENCE.test(code) && !TRAINING_CALL.test(code);
}

/** A name bound to a model the file loads or wraps (`peft_model = PeftModel(model, config)`). */
const MODEL_BINDING = /^[ \t]*(\w+)[ \t]*=[ \t]*[\w.]*(?:from_pretrained|PeftModel|get_peft_model)[ \t]*\(/gm;

/** The code without `m.train()` of a name bound to a model: nn.Module's mode switch, which trains nothing. */
function withoutModeSwitches(code: string): string {
  const models = new Set([...code.matchAll(MODEL_BINDING)].map((m) => m[1]));
  if (models.size === 0) return code;
  const names = [...models].join('|');
  return code.replace(new RegExp(`(?<![\\w.])(?:${names})\\.train\\(\\s*(?:True)?\\s*\\)`, 'g'), '');
}
