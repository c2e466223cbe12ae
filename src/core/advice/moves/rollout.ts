// Preference and GRPO training: a precomputed reference, the vLLM engine asleep, fewer completions, no KL term.
// Part of the Move table, in its order (advice/moves.ts). Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { Move, MoveContext } from './context';

export function rolloutMoves(context: MoveContext): Move[] {
  const { derived } = context;
  const m: Move[] = [];
  // DPO with a reference: its log-probabilities computed once before training (TRL precompute_ref_log_probs) free the
  // reference copy and its forward from every step; the loss is the same.
  m.push({
    id: 'precompute-ref',
    group: 'reference',
    title: 'Precompute the reference log-probabilities before training (precompute_ref_log_probs)',
    changesResult: false,
    apply: (s) =>
      s.preference && (s.preference.reference === 'copy' || s.preference.reference === 'adapters-off')
        ? {
            preference: derived(s.preference, 'reference=precomputed', () => ({
              ...s.preference!,
              reference: 'precomputed' as const,
            })),
          }
        : undefined,
  });
  // GRPO: the colocated vLLM engine can sleep while the policy trains (its weights go to the host and come back each
  // round); fewer completions per round shrink the KV cache at the price of more rounds; dropping the KL term (beta = 0)
  // removes the reference, which changes the objective.
  m.push({
    id: 'vllm-sleep',
    group: 'rollout',
    title: 'Let the colocated vLLM engine sleep while the policy trains (vllm_enable_sleep_mode)',
    changesResult: false,
    apply: (s) =>
      s.rollout?.engine === 'vllm-colocate' && s.rollout.objective !== 'online-dpo' && !s.rollout.vllm_sleep
        ? { rollout: derived(s.rollout, 'vllm_sleep', () => ({ ...s.rollout!, vllm_sleep: true })) }
        : undefined,
  });
  m.push({
    id: 'rollout-half',
    group: 'rollout',
    title: 'Generate half as many completions per round (steps_per_generation)',
    changesResult: false,
    apply: (s) =>
      s.rollout?.engine === 'generate' &&
      s.rollout.objective !== 'online-dpo' &&
      s.rollout.batch % (2 * s.micro_batch_size) === 0
        ? { rollout: derived(s.rollout, 'batch/2', () => ({ ...s.rollout!, batch: s.rollout!.batch / 2 })) }
        : undefined,
  });
  m.push({
    id: 'kl-off',
    group: 'rollout',
    title: 'Drop the KL term (beta = 0): no reference model',
    changesResult: true,
    apply: (s) =>
      s.rollout && s.rollout.objective !== 'online-dpo' && s.rollout.reference !== 'none'
        ? { rollout: derived(s.rollout, 'reference=none', () => ({ ...s.rollout!, reference: 'none' as const })) }
        : undefined,
  });
  return m;
}
