// GRPO trainers a project writes itself from TRL's (the R1-style multimodal repositories: Deep-Agent/R1-V,
// tulerfeng/Video-R1, om-ai-lab/VLM-R1): which of TRL's two rules for per_device_train_batch_size the class follows,
// read in the module that defines it. Before TRL 0.15 the trainer took that many prompts and generated num_generations
// completions of each in the same step (`prompt_mask.repeat_interleave(self.num_generations, dim=0)`, a generation
// config with `num_return_sequences=self.num_generations`, vLLM's `sampling_params.n = self.num_generations`); from 0.15
// the sampler repeats each prompt (`RepeatRandomSampler`) and the batch counts completions (huggingface/trl#2776). A
// fork keeps the rule of the release it was copied from, whatever TRL the project pins (Video-R1 pins 0.16.0 and
// keeps 0.14's). Pure: the module comes through the file's ModuleRead.
import type { PythonFile } from './file';
import { definingModule } from './imported-arguments';
import { projectImports } from './imported-constants';

/**
 * The rule a trainer module's text shows: 'prompts' (before TRL 0.15), 'completions' (since), or undefined. The
 * group statistics of the rewards are repeated per completion in every release (`mean_grouped_rewards.
 * repeat_interleave(self.num_generations, dim=0)`), so that repeat shows no rule (weirayao/X-R1's XGRPOTrainer, on
 * TRL 0.15's GRPOTrainer and its sampler).
 */
export function grpoBatchRule(text: string): 'prompts' | 'completions' | undefined {
  if (/\bRepeat\w*Sampler\b/.test(text)) return 'completions';
  const perPrompt =
    /(?<!grouped_rewards)\.repeat_interleave\(\s*self\.num_generations\b|num_return_sequences\s*=\s*self\.num_generations\b|\.n\s*=\s*self\.num_generations\b/;
  return perPrompt.test(text) ? 'prompts' : undefined;
}

/**
 * The LoRA targets a trainer module sets itself on the config it is given (om-ai-lab/VLM-R1's VLMGRPOTrainer:
 * `peft_config.target_modules = find_all_linear_names(model, self.vision_modules_keywords)`, a function of the module
 * that collects every nn.Linear of `model.named_modules()` outside the vision tower): PEFT's all-linear over the
 * language model; undefined where the module sets none.
 */
export function trainerLoraTargets(text: string): string | undefined {
  const set =
    /\bpeft_config\.target_modules\s*=\s*(\w+)\s*\(/.exec(text) ?? /\btarget_modules\s*=\s*(\w+)\s*\(/.exec(text);
  if (!set || !/\bpeft_config\.target_modules\s*=/.test(text)) return undefined;
  const def = new RegExp(`^\\s*def\\s+${set[1]}\\s*\\(([\\s\\S]*?)(?=^\\s*(?:def|class)\\s|(?![\\s\\S]))`, 'm').exec(
    text,
  );
  const body = def?.[1] ?? '';
  return /\.named_modules\(\)/.test(body) && /\bisinstance\(/.test(body) && /Linear/.test(body) ? set[1] : undefined;
}

/**
 * A GRPO trainer class the script imports from its project and names (`trainer_cls = Qwen2VLGRPOTrainer if ... else
 * ...`), read in its module: the fact `grpoPromptBatch` (true: per_device_train_batch_size counts prompts) and the LoRA
 * targets the trainer sets itself, at the class's name, from the first such class whose module is found; that module's
 * text is returned (for what else the run reads in it: vision-tower.ts), none where no module is found.
 */
export function projectGrpoTrainers(file: PythonFile): string[] {
  if (!file.readModule || !/GRPO\w*Trainer/.test(file.text)) return [];
  for (const imp of projectImports(file.text, file.root)) {
    for (const [local, original] of imp.names) {
      if (original === undefined || !/GRPO\w*Trainer/.test(original)) continue;
      const use = usedAt(file.text, local);
      const found = use === undefined ? undefined : definingModule(file, imp.path, original);
      if (use === undefined || !found || !new RegExp(`^class\\s+${original}\\b`, 'm').test(found.text)) continue;
      const rule = grpoBatchRule(found.text);
      const targets = trainerLoraTargets(found.text);
      if (!rule && !targets) return [found.text];
      const at = { start: use, end: use + local.length };
      const where = `class ${original} in ${found.shownAs}`;
      const fact = { rawKey: local, keySpan: at, valueSpan: at, tool: 'trl' as const };
      if (rule) file.facts.push({ ...fact, key: 'grpoPromptBatch', value: rule === 'prompts', rawValue: where });
      if (targets)
        file.facts.push({ ...fact, key: 'loraTargets', value: 'all-linear', rawValue: `${targets}(...) of ${where}` });
      return [found.text];
    }
  }
  return [];
}

/** Where the file uses an imported name after its imports (its first use outside an import line), or undefined. */
function usedAt(text: string, name: string): number | undefined {
  for (const m of text.matchAll(new RegExp(`\\b${name}\\b`, 'g'))) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (!/^\s*(from|import)\b/.test(text.slice(lineStart, m.index))) return m.index;
  }
  return undefined;
}
