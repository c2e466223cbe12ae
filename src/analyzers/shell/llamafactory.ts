// LLaMA-Factory's stage on a launch line (`llamafactory-cli train --stage dpo ...`, and the `--stage` of the
// `src/train_bash.py` of its releases before the CLI): what its YAML's `stage` says (yaml/llamafactory.ts), read from
// the flags. Pure: no I/O, no node:* and no 'vscode'.
import { notModeled } from '../facts';
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
