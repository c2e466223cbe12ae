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

/** The rule a trainer module's text shows: 'prompts' (before TRL 0.15), 'completions' (since), or undefined. */
export function grpoBatchRule(text: string): 'prompts' | 'completions' | undefined {
  if (/\bRepeat\w*Sampler\b/.test(text)) return 'completions';
  const perPrompt =
    /repeat_interleave\(\s*self\.num_generations\b|num_return_sequences\s*=\s*self\.num_generations\b|\.n\s*=\s*self\.num_generations\b/;
  return perPrompt.test(text) ? 'prompts' : undefined;
}

/**
 * A GRPO trainer class the script imports from its project and names (`trainer_cls = Qwen2VLGRPOTrainer if ... else
 * ...`): the fact `grpoPromptBatch` (true: per_device_train_batch_size counts prompts) at its name, from the first
 * such class whose module shows a rule.
 */
export function projectGrpoTrainers(file: PythonFile): void {
  if (!file.readModule || !/GRPO\w*Trainer/.test(file.text)) return;
  for (const imp of projectImports(file.text, file.root)) {
    for (const [local, original] of imp.names) {
      if (original === undefined || !/GRPO\w*Trainer/.test(original)) continue;
      const use = usedAt(file.text, local);
      const found = use === undefined ? undefined : definingModule(file, imp.path, original);
      if (use === undefined || !found || !new RegExp(`^class\\s+${original}\\b`, 'm').test(found.text)) continue;
      const rule = grpoBatchRule(found.text);
      if (!rule) continue;
      const at = { start: use, end: use + local.length };
      file.facts.push({
        key: 'grpoPromptBatch',
        rawKey: local,
        value: rule === 'prompts',
        rawValue: `class ${original} in ${found.shownAs}`,
        keySpan: at,
        valueSpan: at,
        tool: 'trl',
      });
      return;
    }
  }
}

/** Where the file uses an imported name after its imports (its first use outside an import line), or undefined. */
function usedAt(text: string, name: string): number | undefined {
  for (const m of text.matchAll(new RegExp(`\\b${name}\\b`, 'g'))) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (!/^\s*(from|import)\b/.test(text.slice(lineStart, m.index))) return m.index;
  }
  return undefined;
}
