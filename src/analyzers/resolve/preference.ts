// Paired preference training (DPO, KTO, ORPO / CPO / SimPO, reward modeling): which reference the trainer uses, how
// it takes the log-probabilities, and whether it adds the chosen half's NLL. A rule of FIELD_RULES; pure.
import type { Tool } from '../facts';
import type { TrainingSetup } from '../../core';
import { fileProv, type ResolveContext } from './context';

/** Trainers that take the log-probabilities by one log_softmax over the fp32 logits of the whole batch. */
const WHOLE_BATCH_LOGPS: ReadonlySet<Tool | undefined> = new Set<Tool>([
  'llamafactory',
  'dpo-reference',
  'halos',
  'nemo-rl',
  'rl2',
  // ArcticTraining's DPOTrainer: get_logprobs over logits.to(torch.float32) (trainer/dpo_trainer.py).
  'arctic-training',
  // A DPO loop the script writes (hf-python/loop-preference.ts), as DeepSpeed-Chat's: `.logits.to(torch.float32)`,
  // then one log_softmax over the batch, the reference implementation's _get_batch_logps.
  'pytorch',
]);

/**
 * Trainers whose passes return log-probabilities only, keeping no logits for metrics: the DPO reference
 * implementation's and HALOs' (trainers.py), NeMo-RL's DPOLossFn, RL2's dpo_loss, align-anything's compute_log_probs
 * (a log_softmax over each row's response in the logits' dtype, trainers/text_to_text/dpo.py).
 */
const LOGPS_ONLY: ReadonlySet<Tool | undefined> = new Set<Tool>([
  'dpo-reference',
  'halos',
  'nemo-rl',
  'rl2',
  'align-anything',
  // OpenRLHF's DPOTrainer.concatenated_forward returns the chosen and rejected log-probabilities (trainer/dpo_trainer.py).
  'openrlhf',
]);

/**
 * Paired preference training: which reference the trainer uses follows from the method (PEFT runs disable their
 * adapters instead of copying the model: TRL DPOTrainer, LLaMA-Factory create_ref_model); LLaMA-Factory takes the
 * log-probabilities over fp32 logits in one call, TRL row by row.
 */
export function resolvePreference(ctx: ResolveContext): void {
  const { decided, setup, prov, method } = ctx;
  const prefFact = decided.preference;
  if (prefFact && typeof prefFact.fact.value === 'string') {
    const v = prefFact.fact.value;
    const tool = prefFact.fact.tool;
    const given = decided.referenceModel?.fact.value;
    setup.preference = preferenceOf(v, {
      method,
      reference: given === 'precomputed' || given === 'given' ? given : undefined,
      tool,
      cpoAlpha: decided.cpoAlpha?.fact.value,
      rpo: typeof decided.rpoAlpha?.fact.value === 'number',
    });
    prov.preference = fileProv(prefFact);
    // LLaMA-Factory's reward models keep the LM head and add a value head (its logits computed but unused); TRL's
    // RewardTrainer loads a sequence classifier instead (head seq_cls).
    if (v === 'reward' && tool === 'llamafactory') {
      setup.value_head = true;
      prov.value_head = fileProv(prefFact);
    }
  }
}

/** What decides a preference run's reference and log-probabilities besides its kind. */
export interface PreferenceContext {
  readonly method: string | undefined;
  /** A reference the run is handed: its log-probabilities precomputed, or a model of its own (a copy). */
  readonly reference?: 'precomputed' | 'given';
  readonly tool?: Tool;
  readonly cpoAlpha?: unknown;
  /** DPOTrainer's rpo_alpha is set. */
  readonly rpo?: boolean;
}

/**
 * The setup's preference block for a kind of paired preference training ('dpo', 'kto', 'reference-free', 'reward'):
 * which reference the trainer uses (PEFT runs disable their adapters instead of copying the model), how it takes the
 * log-probabilities, and whether it adds the chosen half's NLL.
 */
export function preferenceOf(kind: string, p: PreferenceContext): NonNullable<TrainingSetup['preference']> {
  const peftMethod = p.method === 'lora' || p.method === 'qlora' || p.method === 'ia3';
  const reference =
    kind === 'reference-free' || kind === 'reward'
      ? 'none'
      : p.reference === 'precomputed'
        ? 'precomputed'
        : p.reference === 'given'
          ? 'copy'
          : peftMethod
            ? 'adapters-off'
            : 'copy';
  // LLaMA-Factory's get_batch_logps is the DPO reference implementation's _get_batch_logps (trainers.py), kept by
  // HALOs (BasicTrainer.get_batch_logps): one log_softmax over the fp32 logits of the batch.
  const logps = WHOLE_BATCH_LOGPS.has(p.tool) ? 'whole' : p.tool === 'torchtune' ? 'native' : 'rows';
  // TRL's ORPOTrainer and CPOTrainer (also behind Axolotl rl: orpo / simpo) add the chosen half's NLL unless
  // cpo_alpha is 0 (trl/trainer/orpo_trainer.py, cpo_trainer.py concatenated_forward); DPOTrainer adds it when
  // rpo_alpha is set (dpo_trainer.py concatenated_forward: `if self.args.rpo_alpha is not None`).
  const chosenNll =
    logps === 'rows' && ((kind === 'reference-free' && p.cpoAlpha !== 0) || (kind === 'dpo' && p.rpo === true));
  const logitsKept = LOGPS_ONLY.has(p.tool) ? { logits_kept: false } : {};
  return { reference, logps, paired: kind !== 'kto', ...(chosenNll ? { chosen_nll: true } : {}), ...logitsKept };
}
