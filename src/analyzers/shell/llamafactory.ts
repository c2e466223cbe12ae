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
  if (sourceAndTarget(l, opts)) return;
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

/**
 * LLaMA-Efficient-Tuning before cutoff_len (its releases to 0.1.x, and ChatGLM-Efficient-Tuning): a sample's prompt up
 * to max_source_length tokens and its response up to max_target_length, 512 each by default; supervised and preference
 * samples are both (`max_length = data_args.max_source_length + data_args.max_target_length`), a pre-training run packs
 * blocks of max_source_length (`block_size`; codefuse-ai/CodeFuse-DevOps-Model src/llmtuner/dsets/preprocess.py, its
 * hparams/data_args.py). False where the line gives neither.
 */
function sourceAndTarget(l: Launch, opts: readonly Opt[]): boolean {
  const last = (name: string): Opt | undefined => [...opts].reverse().find((o) => o.name === name);
  const source = last('max_source_length');
  const target = last('max_target_length');
  const at = source ?? target;
  if (!at?.value) return false;
  const tokens = (o: Opt | undefined): number | undefined => {
    if (!o) return 512;
    const t = o.value?.unknown === undefined ? o.value?.text.trim() : undefined;
    return t !== undefined && /^\d+$/.test(t) ? Number(t) : undefined;
  };
  const s = tokens(source);
  const pt = last('stage')?.value?.text.trim().toLowerCase() === 'pt';
  const t = pt ? 0 : tokens(target);
  const value =
    s !== undefined && t !== undefined
      ? s + t
      : { unknown: `${pt ? 'max_source_length' : 'max_source_length + max_target_length'}: not known statically` };
  l.fact('seqLen', at.rawKey, at.keySpan, at.value.span, value, 'llamafactory');
  return true;
}
