// The loss TRL's SFTTrainer runs when the files do not say it: SFTConfig's loss_type default (analyzers/defaults.ts
// TRL_SFT_LOSS_DEFAULT). Pure.
import { TRL_SFT_LOSS_DEFAULT } from '../defaults';
import type { ResolveContext } from './context';

/**
 * An SFTTrainer run (SFTConfig / SFTTrainer, `trl sft`, a TRL YAML with SFT-only keys) without a loss of its own
 * (loss_type, use_liger_kernel) gets SFTConfig's default, chunked_nll. Not for Unsloth, which restores "nll", nor for
 * the other trainers, whose log-probabilities are not SFT's loss.
 */
export function resolveTrlSftLoss(ctx: ResolveContext): void {
  const { setup, prov, decided, tools } = ctx;
  if (setup.loss !== undefined || decided.trlSft?.fact.value !== true || tools.includes('unsloth')) return;
  if (setup.preference !== undefined || setup.rollout !== undefined || setup.distillation !== undefined) return;
  setup.loss = TRL_SFT_LOSS_DEFAULT.value;
  prov.loss = { kind: 'default', owner: 'trl', note: TRL_SFT_LOSS_DEFAULT.note };
}
