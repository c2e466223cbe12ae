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

/**
 * A preference trainer over an Unsloth model (DPO, KTO, ORPO, ...): Unsloth's fused linear cross-entropy runs only where
 * the model is called with labels (unsloth/models/llama.py CausalLM_fast_forward: `if not RETURN_LOGITS and labels is
 * not None`), and TRL's preference trainers call it without, then take the log-probabilities of the whole logits
 * (NickKornienko/CMPE-297-HW3's Unsloth DPO notebook: 4 x 1,024 tokens of Gemma-2's 256k vocabulary were not counted).
 */
export function resolveUnslothPreferenceLoss(ctx: ResolveContext): void {
  const { setup, prov, tools } = ctx;
  if (setup.loss !== undefined || !tools.includes('unsloth') || setup.preference === undefined) return;
  setup.loss = 'full';
  prov.loss = {
    kind: 'default',
    owner: 'unsloth',
    note:
      "Unsloth's fused cross-entropy runs only where the model is given labels (unsloth/models/llama.py " +
      'CausalLM_fast_forward); a preference trainer calls it without and takes the log-probabilities of the logits',
  };
}
