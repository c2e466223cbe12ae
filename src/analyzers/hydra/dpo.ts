// The DPO reference implementation (eric-mitchell/direct-preference-optimization, and the projects that keep its
// trainers and config): its composed Hydra config (compose.ts) read as train.py and trainers.py use it, each fact in
// the file its value comes from. train.py loads the policy with `torch_dtype=model.policy_dtype` and, for the dpo and
// ipo losses, a frozen reference in `model.reference_dtype`; BasicTrainer spreads both over the visible GPUs
// (`device_map='balanced'`) in one process; FSDPTrainer wraps each `model.block_name` layer as an FSDP unit (FULL_SHARD,
// BACKWARD_PRE, use_orig_params False; MixedPrecision in `model.fsdp_policy_mp` when set) and checkpoints them
// (non-reentrant) under `activation_checkpointing`; the optimizer is `getattr(torch.optim, optimizer)`; `batch_size`
// is the whole step's, split over the accumulation steps and the ranks; chosen and rejected run in one forward, the
// log-probabilities taken by one log_softmax over the fp32 logits (trainers.py concatenated_forward, _get_batch_logps).
// Sources: eric-mitchell/direct-preference-optimization@f8b8c0f train.py, trainers.py, config/. Pure.
import { msg, normalizeOptimizer } from '../facts';
import type { ComposedValue, Composition } from './compose';
import { ComposedFacts, dtypeOf, type FactsByFile } from './composed-facts';

export type { FactsByFile } from './composed-facts';

const TRAINERS = new Set(['BasicTrainer', 'FSDPTrainer', 'TensorParallelTrainer']);
/** Losses with a reference model (train.py: `if config.loss.name in {'dpo', 'ipo'}`). */
const WITH_REFERENCE = new Set(['dpo', 'ipo']);

/** Whether a composition is the DPO reference implementation's config: its trainer, loss and model keys. */
export function isDpoReference(c: Composition): boolean {
  const trainer = c.values.get('trainer')?.view;
  return trainer?.t === 'str' && TRAINERS.has(trainer.v) && c.values.has('max_prompt_length') && c.groups.has('model');
}

/** The facts of the DPO reference implementation's composed config, by file. */
export function dpoReferenceFacts(c: Composition): FactsByFile {
  const d = new ComposedFacts(c, 'dpo-reference');
  model(d);
  d.dtype('model.policy_dtype', 'weightsDtype');
  const trainer = d.get('trainer')!;
  const kind = d.text(trainer);
  if (kind === 'FSDPTrainer') fsdpTrainer(d, trainer);
  else if (kind === 'TensorParallelTrainer')
    d.add(trainer, 'tensorParallel', { unknown: 'TensorParallelTrainer (the tensor_parallel library) is not modeled' });
  else basicTrainer(d, trainer);
  d.count('batch_size', 'trainBatchSize');
  d.count('gradient_accumulation_steps', 'gradientAccumulationSteps');
  d.count('max_length', 'seqLen');
  const optimizer = d.get('optimizer');
  const name = d.text(optimizer);
  if (optimizer && name) d.add(optimizer, 'optimizer', normalizeOptimizer(name));
  loss(d);
  return d.byFile;
}

/** The model and its dtype alone: a model option read without the primary config it belongs to. */
export function dpoModelFacts(c: Composition): FactsByFile {
  const d = new ComposedFacts(c, 'dpo-reference');
  model(d);
  d.dtype('model.policy_dtype', 'weightsDtype');
  return d.byFile;
}

/**
 * model.name_or_path: the policy's checkpoint (and the reference's); `???` must be given on the command line. Without
 * a model option (none chosen, or not there) it is unknown at the defaults entry of the `model` group.
 */
function model(d: ComposedFacts): void {
  const v = d.get('model.name_or_path');
  const group = d.c.groups.get('model');
  if (!v && group) {
    const reason = `no model option is composed (model: ${group.option ?? '???'}): pass model=<option> or model.name_or_path=<model>`;
    d.addAt(group.file, group.span, 'model', { unknown: reason });
    return;
  }
  if (!v) return;
  const name = d.text(v);
  if (name && name !== '???') d.add(v, 'model', name);
  else
    d.add(
      v,
      'model',
      d.unknownOf(v) ?? {
        unknown: 'model.name_or_path is not given in the config: pass model=<option> or model.name_or_path=<model>',
      },
    );
}

/** FSDPTrainer: FSDP1 over the blocks, MixedPrecision in fsdp_policy_mp, non-reentrant checkpointing when asked. */
function fsdpTrainer(d: ComposedFacts, trainer: ComposedValue): void {
  d.add(trainer, 'fsdp', 'full_shard');
  d.add(trainer, 'fsdpVersion', 1);
  d.add(trainer, 'fsdpBackwardPrefetch', 'pre');
  d.add(trainer, 'fsdpUseOrigParams', false);
  const mp = d.get('model.fsdp_policy_mp');
  const mpDtype = mp ? dtypeOf(d.text(mp)) : undefined;
  if (mp && mpDtype && mpDtype !== 'fp32') d.add(mp, 'mixedPrecision', mpDtype);
  const ckpt = d.get('activation_checkpointing');
  if (ckpt?.view.t === 'bool') {
    d.add(ckpt, 'gradientCheckpointing', ckpt.view.v ? 'full' : 'none');
    if (ckpt.view.v) d.add(ckpt, 'checkpointReentrant', false);
  }
}

/** BasicTrainer: one process holding the policy (and the reference) spread over the visible GPUs; no checkpointing. */
function basicTrainer(d: ComposedFacts, trainer: ComposedValue): void {
  d.problem(
    trainer,
    'not-modeled',
    'info',
    msg(
      "BasicTrainer loads the model with device_map='balanced', spread over every visible GPU in one process: the estimate is for one GPU holding all of it",
    ),
  );
  const ckpt = d.get('activation_checkpointing');
  if (ckpt?.view.t === 'bool' && ckpt.view.v)
    d.problem(
      ckpt,
      'not-modeled',
      'info',
      msg('activation_checkpointing is applied by FSDPTrainer only (trainers.py): BasicTrainer keeps every activation'),
    );
  if (ckpt) d.add(ckpt, 'gradientCheckpointing', 'none');
}

/** loss.name: sft trains on the chosen responses alone; dpo and ipo against a reference in model.reference_dtype. */
function loss(d: ComposedFacts): void {
  const v = d.get('loss.name');
  const name = d.text(v);
  // Without a loss option (none composed: said at its defaults entry) the run is read as sft, the primary's default.
  if (!v || name === 'sft') return;
  if (!name || !WITH_REFERENCE.has(name)) {
    d.problem(
      v,
      'not-modeled',
      'warning',
      msg("loss '{0}' is not read: the run is estimated as supervised fine-tuning", v.rawValue),
    );
    return;
  }
  const free = d.get('loss.reference_free');
  if (free?.view.t === 'bool' && free.view.v) {
    d.add(free, 'preference', 'reference-free');
    return;
  }
  d.add(v, 'preference', 'dpo');
  d.dtype('model.reference_dtype', 'referenceDtype');
}
