// HALOs (ContextualAI/HALOs, the DPO reference implementation's descendant on Accelerate): its composed Hydra config
// (compose.ts) read as launch.py and train/trainers.py use it, each fact in the file its value comes from. The loss
// option names the trainer (`loss.trainer`); the model option holds the run's settings: `model.batch_size` is the whole
// step's, split over `model.gradient_accumulation_steps` and the processes (launch.py: microbatch_size = batch_size /
// (num_processes x gradient_accumulation_steps)); the policy and, for every trainer that uses one, the reference are
// loaded in `model.policy_dtype` / `model.reference_dtype` with `model.attn_implementation` (eager for a float32
// policy), the policy checkpointed by gradient_checkpointing_enable() under `model.activation_checkpointing`, a PEFT
// LoRA under `model.use_peft` (its layers cast to the policy's dtype), the optimizer `getattr(torch.optim, optimizer)`;
// Accelerate prepares the policy and the reference (FSDP from the launch's Accelerate config). Log-probabilities are
// one log_softmax over the fp32 logits of the batch (BasicTrainer.get_batch_logps); paired trainers run chosen and
// rejected in one forward; KTOTrainer runs each batch and a mismatched KL batch without grad.
// Sources: ContextualAI/HALOs@4831988 launch.py, train/trainers.py, config/. Pure.
import { msg, normalizeOptimizer, type FactValue } from '../facts';
import type { ComposedValue, Composition } from './compose';
import { ComposedFacts, type FactsByFile } from './composed-facts';

/** HALOs' trainers by what they run (train/trainers.py `use_reference_model` and their base classes). */
const PAIRED_WITH_REFERENCE = new Set(['DPOTrainer', 'CDPOTrainer', 'IPOTrainer', 'SimPOTrainer']);
const PAIRED_WITHOUT_REFERENCE = new Set(['SLiCTrainer']);
const ATTENTION: Readonly<Record<string, FactValue>> = {
  eager: 'eager',
  sdpa: 'sdpa',
  flash_attention_2: 'flash',
};

/** Keys of HALOs' primary config (config/config.yaml) beside its defaults list and trainer. */
export const HALOS_PRIMARY = ['cache_reference_logprobs', 'humanline', 'frac_unique_desirable', 'n_examples', 'online'];

/**
 * Whether a composition is HALOs': a `model` and a `loss` group, and the loss option naming a trainer and a dataloader,
 * or (no loss option chosen yet) the primary config's own keys.
 */
export function isHalos(c: Composition): boolean {
  if (!c.groups.has('loss') || !c.groups.has('model')) return false;
  const trainer = c.values.get('loss.trainer')?.view;
  if (trainer?.t === 'str' && /Trainer$/.test(trainer.v) && c.values.has('loss.dataloader')) return true;
  return c.groups.get('loss')?.option === null && HALOS_PRIMARY.filter((k) => c.values.has(k)).length >= 2;
}

/** The facts of HALOs' composed config, by file. */
export function halosFacts(c: Composition): FactsByFile {
  const d = new ComposedFacts(c, 'halos');
  model(d);
  const policy = d.dtype('model.policy_dtype', 'weightsDtype');
  attention(d, policy);
  d.count('model.batch_size', 'trainBatchSize');
  d.count('model.gradient_accumulation_steps', 'gradientAccumulationSteps');
  d.count('model.max_length', 'seqLen');
  const ckpt = d.get('model.activation_checkpointing');
  if (ckpt?.view.t === 'bool') d.add(ckpt, 'gradientCheckpointing', ckpt.view.v ? 'full' : 'none');
  lora(d);
  const optimizer = d.get('optimizer');
  const name = d.text(optimizer);
  if (optimizer && name) d.add(optimizer, 'optimizer', normalizeOptimizer(name));
  trainer(d);
  return d.byFile;
}

/**
 * The policy's checkpoint: `model.name_or_path` names the model; `load_from` and `from_checkpoint` (a run's own
 * directory of the same model, loaded in its place) do not change what is estimated.
 */
function model(d: ComposedFacts): void {
  const v = d.get('model.name_or_path');
  const group = d.c.groups.get('model');
  if (!v) {
    if (group)
      d.addAt(group.file, group.span, 'model', {
        unknown: `no model option is composed (model: ${group.option ?? '???'}): pass model=<option>`,
      });
    return;
  }
  const name = d.text(v);
  if (name && name !== '???') d.add(v, 'model', name);
  else
    d.add(
      v,
      'model',
      d.unknownOf(v) ?? { unknown: 'model.name_or_path is not given: pass ++model.name_or_path=<model>' },
    );
}

/** `model.attn_implementation` for a 16-bit policy; launch.py loads a float32 one with eager attention. */
function attention(d: ComposedFacts, policy: string | undefined): void {
  const v = d.get('model.attn_implementation');
  if (!v) return;
  if (policy === 'fp32') {
    d.add(v, 'attention', 'eager');
    d.problem(
      v,
      'not-static',
      'info',
      msg('a float32 policy is loaded with eager attention whatever attn_implementation says (launch.py)'),
    );
    return;
  }
  const name = d.text(v) ?? '';
  const unknown = d.unknownOf(v);
  if (unknown || ATTENTION[name] !== undefined) d.add(v, 'attention', unknown ?? ATTENTION[name]);
  else
    d.problem(
      v,
      'invalid-value',
      'error',
      msg('{0}: expected eager, sdpa or flash_attention_2, found {1}', v.rawKey, v.rawValue),
    );
}

/**
 * `model.use_peft`: PEFT LoRA with `model.peft`'s rank, alpha, dropout and targets (bias none). The `peft` keys are
 * read whether or not it is on, as the file writes them: they are where a change to LoRA is written.
 */
function lora(d: ComposedFacts): void {
  const on = d.get('model.use_peft');
  if (on?.view.t === 'bool') d.add(on, 'method', on.view.v ? 'lora' : 'full');
  d.loraSettings({
    r: 'model.peft.lora_r',
    alpha: 'model.peft.lora_alpha',
    dropout: 'model.peft.lora_dropout',
    targets: 'model.peft.target_modules',
  });
}

/** `loss.trainer`: what the step runs beside the policy's forward and backward. */
function trainer(d: ComposedFacts): void {
  // Without a loss option (`loss: ???`, said at its defaults entry) the run is read as supervised fine-tuning.
  const v = d.get('loss.trainer');
  if (!v) return;
  const name = d.text(v) ?? '';
  if (name === 'SFTTrainer') return;
  if (name === 'BradleyTerryTrainer') {
    d.add(v, 'preference', 'reward');
    return;
  }
  if (PAIRED_WITHOUT_REFERENCE.has(name)) {
    d.add(v, 'preference', 'reference-free');
    return;
  }
  if (PAIRED_WITH_REFERENCE.has(name) || name === 'KTOTrainer') {
    d.add(v, 'preference', name === 'KTOTrainer' ? 'kto' : 'dpo');
    reference(d, v);
    return;
  }
  d.problem(
    v,
    'not-modeled',
    'warning',
    msg(
      "{0} is not read: the run is estimated as supervised fine-tuning, without its reference model's passes",
      v.rawValue,
    ),
  );
}

/**
 * The reference: a model of its own that launch.py loads in `model.reference_dtype` (LoRA runs too: the adapters are
 * not disabled to stand for it), or log-probabilities cached before training (`cache_reference_logprobs`).
 */
function reference(d: ComposedFacts, trainer: ComposedValue): void {
  const cached = d.get('cache_reference_logprobs');
  if (cached?.view.t === 'bool' && cached.view.v) {
    d.add(cached, 'referenceModel', 'precomputed');
    return;
  }
  d.add(trainer, 'referenceModel', 'given');
  d.dtype('model.reference_dtype', 'referenceDtype');
}
