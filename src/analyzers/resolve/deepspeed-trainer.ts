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
import type { AnalyzedFile } from './types';
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
  checkPrecisionMatch(ctx, deepspeedFiles);
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

/** The files' roles, most decisive first: a launch line's flag is the Trainer's argument over a script's keyword. */
const ROLE_ORDER: readonly AnalyzedFile['role'][] = ['launcher', 'config', 'referenced'];

/**
 * `fp16.enabled` / `bf16.enabled` written true or false in the DeepSpeed config: the Trainer fills them from, and
 * checks them against, its fp16 and bf16 arguments (fill_match of "fp16.enabled" against `args.fp16 or
 * args.fp16_full_eval` with the amp backend, of "bf16.enabled" against `args.bf16 or args.bf16_full_eval`), so a run
 * with `--bf16` and `"fp16": {"enabled": true}` stops at start-up (artidoro/detect-gentext's gpt-neo script). The
 * Trainer's value is the one the files give, else its default: False (a TRL config's bf16 default is left unchecked).
 */
function checkPrecisionMatch(ctx: ResolveContext, deepspeedFiles: readonly AnalyzedFile[]): void {
  const others = ctx.files.filter((f) => f.facts.format !== 'deepspeed-json');
  const hfDefaults =
    ctx.tools.includes('hf-trainer') && !ctx.tools.some((t) => t === 'axolotl' || t === 'llamafactory');
  for (const key of ['fp16', 'bf16'] as const) {
    // A value the files give that is not known statically (`fp16=args.fp16` of an option set elsewhere): not checked.
    if (others.some((f) => f.facts.facts.some((x) => x.key === key && typeof x.value !== 'boolean'))) continue;
    // The most decisive file's value: the launch line's flag over the script's keyword (the last in a file).
    const given = ROLE_ORDER.map((role) =>
      others
        .filter((f) => f.role === role)
        .flatMap((f) =>
          f.facts.facts.filter((x) => x.key === key && typeof x.value === 'boolean').map((x) => ({ f, x })),
        ),
    )
      .find((list) => list.length > 0)
      ?.pop();
    const trainer = given
      ? (given.x.value as boolean)
      : hfDefaults && (key === 'fp16' || !ctx.tools.includes('trl'))
        ? false
        : undefined;
    if (trainer === undefined) continue;
    for (const f of deepspeedFiles) {
      const fact = f.facts.facts.find((x) => x.key === key && typeof x.value === 'boolean');
      if (!fact || fact.value === trainer) continue;
      const how = given ? givenAt(given.f, given.x) : "the Trainer's default";
      ctx.problems.push({
        ...locateOffset(f.file, f.text, fact.valueSpan.start, fact.valueSpan.end),
        severity: 'error',
        code: 'conflicting-precision',
        key: fact.rawKey,
        ...msg(
          '{0}.enabled {1} here, {0} {2} in the training arguments ({3}): the HF Trainer stops at start-up ("Please ' +
            'correct the following DeepSpeed config values that mismatch TrainingArguments values"); set it to "auto"',
          key,
          String(fact.value),
          String(trainer),
          how,
        ),
      });
    }
  }
}

/** Where a file gives a training argument: `--bf16 at run.sh:18`. */
function givenAt(file: AnalyzedFile, fact: AnalyzedFile['facts']['facts'][number]): string {
  const line = locateOffset(file.file, file.text, fact.keySpan.start, fact.keySpan.end).line;
  return `${fact.rawKey} at ${file.file.slice(file.file.lastIndexOf('/') + 1)}:${line}`;
}
