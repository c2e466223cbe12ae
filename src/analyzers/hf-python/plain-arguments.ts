// A TRL trainer handed transformers' own TrainingArguments (`SFTTrainer(args=TrainingArguments(...))`, the pattern of
// many notebooks): the run trains with TrainingArguments' defaults, not TRL's. SFTTrainer turns the object into an
// SFTConfig with every field of TrainingArguments written out (`SFTConfig(**args.to_dict())`, trl 1.13
// trl/trainer/sft_trainer.py), so bf16 is the False TrainingArguments defaults to, and TRL's `bf16 = not fp16`
// (trl/trainer/base_config.py __post_init__, for a bf16 left None) never applies; gradient_checkpointing is
// TrainingArguments' False, not TRL's True. Older TRL trainers used the object as it was, with the same values.
// Pure; never throws on user text.
// Docs: docs/formats.md (Python scripts)
import type { SyntaxNode } from '@lezer/common';
import type { CanonicalKey, FactValue } from '../facts';
import type { Entry, PythonFile } from './file';
import { span } from './syntax';

/** The defaults of TrainingArguments that TRL's configs change, and the keywords that set them. */
const PLAIN_DEFAULTS: ReadonlyArray<{
  readonly key: CanonicalKey;
  readonly keywords: readonly string[];
  readonly value: FactValue;
  /** The default as TrainingArguments writes it. */
  readonly written: string;
  readonly note: string;
}> = [
  {
    // bf16=False with fp16 unset: no autocast, the mixed precision the run has.
    key: 'mixedPrecision',
    keywords: ['bf16', 'fp16'],
    value: 'none',
    written: 'bf16=False',
    note:
      "transformers' TrainingArguments defaults bf16=False, and a TRL trainer given it keeps that value " +
      '(SFTTrainer makes an SFTConfig from args.to_dict(), trl 1.13 trl/trainer/sft_trainer.py): no autocast, ' +
      "not TRL's bf16 default",
  },
  {
    key: 'gradientCheckpointing',
    keywords: ['gradient_checkpointing'],
    value: 'none',
    written: 'gradient_checkpointing=False',
    note:
      "transformers' TrainingArguments defaults gradient_checkpointing=False, and a TRL trainer given it keeps that " +
      "value (SFTTrainer makes an SFTConfig from args.to_dict(), trl 1.13 trl/trainer/sft_trainer.py), not TRL's True",
  },
];

/**
 * The `args` a TRL trainer call is given, where it is a call of transformers' TrainingArguments (not a TRL config,
 * not a class of the script's own): its defaults that TRL's configs change are facts at that call, as defaults.
 */
export function plainArgumentsDefaults(file: PythonFile, trainerArgs: readonly Entry[]): void {
  const given = trainerArgs.find((e) => e.rawKey === 'args');
  if (!given) return;
  const v = file.valueOf(given);
  if (v.k !== 'call') return;
  const parts = v.callee.split('.');
  const name = parts[parts.length - 1];
  if (name !== 'TrainingArguments' || parts[0] === 'trl' || file.localArgs.has(name)) return;
  argumentsDefaults(file, v.node);
}

function argumentsDefaults(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  // Keywords spread from a dict not known statically may set any of them.
  if (args.opaque.length > 0) return;
  const at = span(call.firstChild!);
  for (const d of PLAIN_DEFAULTS) {
    if (args.entries.some((e) => d.keywords.includes(e.rawKey))) continue;
    file.facts.push({
      key: d.key,
      rawKey: d.keywords[0],
      value: d.value,
      rawValue: `TrainingArguments: default ${d.written}`,
      keySpan: at,
      valueSpan: at,
      tool: 'hf-trainer',
      origin: 'call-default',
      defaultNote: d.note,
      // A default: any file of the run that sets the value by what it does wins (Unsloth's get_peft_model in a
      // helper module switches checkpointing on whatever the trainer's arguments say).
      byNameOnly: true,
    });
  }
}
