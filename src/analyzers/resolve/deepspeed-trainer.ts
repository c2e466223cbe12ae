// The HF Trainer's DeepSpeed integration checks the DeepSpeed config against TrainingArguments at start-up
// (transformers integrations/deepspeed.py HfTrainerDeepSpeedConfig.trainer_config_process: fill_match of
// train_micro_batch_size_per_gpu against per_device_train_batch_size and of gradient_accumulation_steps;
// trainer_config_finalize raises "Please correct the following DeepSpeed config values that mismatch
// TrainingArguments values" for each value that is not "auto" and differs). A run whose script builds a transformers
// or TRL trainer, or an Axolotl or LLaMA-Factory run (their trainers are the HF Trainer's), with such a mismatch does
// not start: an error at the DeepSpeed value. A loop of its own that calls deepspeed.initialize reads the DeepSpeed
// value and is not checked. Pure.
import { msg, type CanonicalKey } from '../facts';
import type { ResolveContext } from './context';
import { locateOffset } from './locate';

/** The DeepSpeed keys the Trainer fills from (and checks against) its arguments, as canonical keys. */
const MATCHED: readonly CanonicalKey[] = ['microBatchSize', 'gradientAccumulationSteps'];

/** Whether the run's DeepSpeed config goes through the HF Trainer's integration. */
export function trainerIntegration(ctx: ResolveContext): boolean {
  if (ctx.tools.includes('axolotl') || ctx.tools.includes('llamafactory')) return true;
  return ctx.files.some((f) => f.facts.facts.some((x) => x.key === 'hfTrainer'));
}

export function checkTrainerDeepspeedMatch(ctx: ResolveContext): void {
  const deepspeedFiles = ctx.files.filter((f) => f.facts.format === 'deepspeed-json');
  if (deepspeedFiles.length === 0 || !trainerIntegration(ctx)) return;
  for (const key of MATCHED) {
    const w = ctx.decided[key];
    if (!w || typeof w.fact.value !== 'number') continue;
    for (const f of deepspeedFiles) {
      const fact = f.file === w.file ? undefined : f.facts.facts.find((x) => x.key === key);
      if (!fact || typeof fact.value !== 'number' || fact.value === w.fact.value) continue;
      ctx.problems.push({
        ...locateOffset(f.file, f.text, fact.valueSpan.start, fact.valueSpan.end),
        severity: 'error',
        code: 'batch-size-mismatch',
        key: fact.rawKey,
        ...msg(
          '{0} {1} here, {2} {3} at {4}:{5}: the HF Trainer stops at start-up ("Please correct the following ' +
            'DeepSpeed config values that mismatch TrainingArguments values"); set it to "auto" (or {3}); estimated with {3}',
          fact.rawKey,
          fact.value,
          w.fact.rawKey,
          w.fact.value,
          w.file.slice(w.file.lastIndexOf('/') + 1),
          w.location.line,
        ),
      });
    }
  }
}
