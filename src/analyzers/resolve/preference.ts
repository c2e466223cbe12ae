// Paired preference training (DPO, KTO, ORPO / CPO / SimPO, reward modeling): which reference the trainer uses, how
// it takes the log-probabilities, and whether it adds the chosen half's NLL. A rule of FIELD_RULES; pure.
import { fileProv, type ResolveContext } from './context';

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
    const peftMethod = method === 'lora' || method === 'qlora' || method === 'ia3';
    const given = decided.referenceModel?.fact.value;
    const reference =
      v === 'reference-free' || v === 'reward'
        ? 'none'
        : given === 'precomputed'
          ? 'precomputed'
          : given === 'given'
            ? 'copy'
            : peftMethod
              ? 'adapters-off'
              : 'copy';
    const tool = prefFact.fact.tool;
    const logps = tool === 'llamafactory' ? 'whole' : tool === 'torchtune' ? 'native' : 'rows';
    // TRL's ORPOTrainer and CPOTrainer (also behind Axolotl rl: orpo / simpo) add the chosen half's NLL unless
    // cpo_alpha is 0 (trl/trainer/orpo_trainer.py, cpo_trainer.py concatenated_forward); DPOTrainer adds it when
    // rpo_alpha is set (dpo_trainer.py concatenated_forward: `if self.args.rpo_alpha is not None`).
    const alpha = decided.cpoAlpha?.fact.value;
    const rpo = typeof decided.rpoAlpha?.fact.value === 'number';
    const chosenNll = logps === 'rows' && ((v === 'reference-free' && alpha !== 0) || (v === 'dpo' && rpo));
    setup.preference = { reference, logps, paired: v !== 'kto', ...(chosenNll ? { chosen_nll: true } : {}) };
    prov.preference = fileProv(prefFact);
    // LLaMA-Factory's reward models keep the LM head and add a value head (its logits computed but unused); TRL's
    // RewardTrainer loads a sequence classifier instead (head seq_cls).
    if (v === 'reward' && tool === 'llamafactory') {
      setup.value_head = true;
      prov.value_head = fileProv(prefFact);
    }
  }
}
