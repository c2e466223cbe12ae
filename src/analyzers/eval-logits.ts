// HF Trainer with compute_metrics and no eval_accumulation_steps (nor preprocess_logits_for_metrics) keeps the logits
// of every evaluation batch on the GPU until the evaluation ends (transformers trainer.py evaluation_loop:
// EvalLoopContainer gathers them on the device), so what an evaluation holds grows with the evaluation set. The
// estimate cannot bound it (the set's size is not in the files): a warning at the call says how much one batch holds,
// for the CLI and the editor alike. Pure.
import { msg } from './facts';
import { locateOffset } from './resolve';
import type { Problem } from './scenario';
import { formatBytes, parseArchitecture, type TrainingSetup } from '../core';
import type { AnalyzedFile } from './resolve';

/** The warning at the Trainer call whose compute_metrics keeps the evaluation's logits; undefined where none does. */
export function keptEvalLogits(setup: TrainingSetup | undefined, files: readonly AnalyzedFile[]): Problem | undefined {
  const evalBatch = setup?.eval_batch_size;
  // A sequence classifier's logits are its labels' few per row, not a vocabulary's per token: nothing to warn of.
  if (!setup || evalBatch === undefined || setup.head === 'seq_cls' || setup.head === 'none') return undefined;
  // eval_accumulation_steps, prediction_loss_only, batch_eval_metrics or predict_with_generate in any file of the run.
  if (files.some((f) => f.facts.facts.some((x) => x.key === 'evalLogitsReleased' && x.value === true)))
    return undefined;
  const file = files.find((f) => f.facts.facts.some((x) => x.key === 'evalKeepsLogits' && x.value === true));
  const kept = file?.facts.facts.find((x) => x.key === 'evalKeepsLogits' && x.value === true);
  const arch = parseArchitecture(setup.architecture);
  if (!file || !kept || !arch.ok) return undefined;
  const bytes = setup.mixed_precision !== 'none' || setup.weights_dtype !== 'fp32' ? 2 : 4;
  const perBatch = evalBatch * setup.seq_len * arch.arch.vocab * bytes;
  return {
    ...locateOffset(file.file, file.text, kept.keySpan.start, kept.keySpan.end),
    severity: 'warning',
    code: 'eval-logits-kept',
    key: kept.rawKey,
    ...msg(
      'compute_metrics without eval_accumulation_steps: the Trainer keeps the logits of every evaluation batch on the GPU until the evaluation ends, ' +
        '{0} per batch ({1} x {2} tokens x {3} vocabulary x {4} B), so the total grows with the evaluation set. ' +
        'Set eval_accumulation_steps, or reduce the logits in preprocess_logits_for_metrics (e.g. argmax).',
      formatBytes(perBatch),
      evalBatch,
      setup.seq_len,
      arch.arch.vocab,
      bytes,
    ),
  };
}
