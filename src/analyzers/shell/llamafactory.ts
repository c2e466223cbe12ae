// LLaMA-Factory's stage on a launch line (`llamafactory-cli train --stage dpo ...`, and the `--stage` of the
// `src/train_bash.py` of its releases before the CLI): what its YAML's `stage` says (yaml/llamafactory.ts), read from
// the flags. Pure: no I/O, no node:* and no 'vscode'.
import { notModeled, type Span } from '../facts';
import type { Opt } from './args';
import type { Launch } from './launch';

/** The preference stage, the reference model and a pre-training run's packing that `--stage` and its options set. */
export function llamafactoryStage(l: Launch, opts: readonly Opt[]): void {
  const last = (name: string): Opt | undefined => [...opts].reverse().find((o) => o.name === name);
  const stage = last('stage');
  const value = stage?.value;
  if (!stage || !value || value.unknown !== undefined) return;
  const s = value.text.trim().toLowerCase();
  // train/dpo/workflow.py: ORPO and SimPO need no reference model; stage rm scores pairs with a value head.
  const loss = last('pref_loss')?.value?.text.trim().toLowerCase();
  const referenceFree = loss === 'orpo' || loss === 'simpo';
  const preference =
    s === 'dpo' ? (referenceFree ? 'reference-free' : 'dpo') : s === 'kto' ? 'kto' : s === 'rm' ? 'reward' : undefined;
  if (preference) l.fact('preference', stage.rawKey, stage.keySpan, value.span, preference, 'llamafactory');
  if (s === 'ppo') l.warnNotModeled(notModeled(`--stage ${s}`, s), stage.keySpan, stage.rawKey);
  // Packing defaults on for pre-training (hparams/data_args.py: packing None becomes stage == "pt").
  if (s === 'pt' && !opts.some((o) => o.name === 'packing' || o.name === 'neat_packing'))
    l.fact('batchLengths', stage.rawKey, stage.keySpan, value.span, 'fixed', 'llamafactory');
  const ref = last('ref_model');
  if (ref?.value && ref.value.unknown === undefined && ref.value.text && !referenceFree && (s === 'dpo' || s === 'kto'))
    l.fact('referenceModel', ref.rawKey, ref.keySpan, ref.value.span, 'given', 'llamafactory');
}

/**
 * `src/train_bash.py`, LLaMA-Factory's entry point until May 2024 (its llmtuner package): cutoff_len defaulted to 1024
 * there (hiyouga/LLaMA-Factory@adbe50c src/llmtuner/hparams/data_args.py), 2048 only from November 2024. Where the
 * line gives no `--cutoff_len`, that release's default, said at the script.
 */
export function llamafactoryBashEra(l: Launch, opts: readonly Opt[], script: Span): void {
  if (opts.some((o) => o.name === 'cutoff_len')) return;
  l.toolDefault({
    key: 'seqLen',
    rawKey: 'cutoff_len',
    value: 1024,
    rawValue: l.slice(script),
    at: script,
    tool: 'llamafactory',
    note:
      'src/train_bash.py is LLaMA-Factory before May 2024, whose cutoff_len defaulted to 1024 ' +
      '(LLaMA-Factory@adbe50c src/llmtuner/hparams/data_args.py; 2048 from November 2024)',
  });
}
