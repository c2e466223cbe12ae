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
import {
  msg,
  normalizeOptimizer,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type ParseProblem,
  type Span,
  type Unknown,
} from '../facts';
import type { ComposedValue, Composition } from './compose';

/** Facts and problems by the file they are in. */
export type FactsByFile = Map<string, { facts: Fact[]; problems: ParseProblem[] }>;

const TRAINERS = new Set(['BasicTrainer', 'FSDPTrainer', 'TensorParallelTrainer']);
const DTYPES: Readonly<Record<string, 'fp32' | 'bf16' | 'fp16'>> = {
  float32: 'fp32',
  bfloat16: 'bf16',
  float16: 'fp16',
};
/** Losses with a reference model (train.py: `if config.loss.name in {'dpo', 'ipo'}`). */
const WITH_REFERENCE = new Set(['dpo', 'ipo']);

/** Whether a composition is the DPO reference implementation's config: its trainer, loss and model keys. */
export function isDpoReference(c: Composition): boolean {
  const trainer = c.values.get('trainer')?.view;
  return trainer?.t === 'str' && TRAINERS.has(trainer.v) && c.values.has('max_prompt_length') && c.groups.has('model');
}

/** What one read of the composition writes: facts and problems, each in its file. */
class DpoFacts {
  readonly byFile: FactsByFile = new Map();

  constructor(readonly c: Composition) {}

  private of(file: string): { facts: Fact[]; problems: ParseProblem[] } {
    let e = this.byFile.get(file);
    if (!e) this.byFile.set(file, (e = { facts: [], problems: [] }));
    return e;
  }

  get(path: string): ComposedValue | undefined {
    return this.c.values.get(path);
  }

  /** The value's text, where it is a string or a number. */
  text(v: ComposedValue | undefined): string | undefined {
    const view = v?.view;
    return view?.t === 'str' ? view.v.trim() : view?.t === 'num' ? String(view.v) : undefined;
  }

  add(v: ComposedValue, key: CanonicalKey, value: FactValue | Unknown): void {
    this.of(v.file).facts.push({
      key,
      rawKey: v.rawKey,
      value,
      rawValue: v.rawValue,
      keySpan: v.keySpan,
      valueSpan: v.valueSpan,
      tool: 'dpo-reference',
    });
  }

  /** A fact at a place that holds no composed value (a defaults entry). */
  addAt(file: string, span: Span, key: CanonicalKey, value: FactValue | Unknown): void {
    const rawValue = this.c.files.find((f) => f.path === file)?.text.slice(span.start, span.end) ?? '';
    const fact: Fact = {
      key,
      rawKey: 'defaults',
      value,
      rawValue,
      keySpan: span,
      valueSpan: span,
      tool: 'dpo-reference',
    };
    this.of(file).facts.push(fact);
  }

  problem(
    v: ComposedValue,
    code: ParseProblem['code'],
    severity: ParseProblem['severity'],
    m: ReturnType<typeof msg>,
  ): void {
    this.of(v.file).problems.push({ code, severity, span: v.valueSpan, rawKey: v.rawKey, ...m });
  }

  /** A value that is not known statically: unknown at its place (an interpolation, a launch-line variable). */
  unknownOf(v: ComposedValue): Unknown | undefined {
    return v.view.t === 'unknown' ? { unknown: v.view.reason } : undefined;
  }

  /** A positive whole number, or the problem said at its place. */
  count(path: string, key: CanonicalKey): number | undefined {
    const v = this.get(path);
    if (!v) return undefined;
    const unknown = this.unknownOf(v);
    if (unknown) {
      this.add(v, key, unknown);
      return undefined;
    }
    const n = v.view.t === 'num' ? v.view.v : Number(this.text(v));
    if (!Number.isSafeInteger(n) || n < 1) {
      this.problem(
        v,
        'invalid-value',
        'error',
        msg('{0}: expected a positive integer, found {1}', v.rawKey, v.rawValue),
      );
      return undefined;
    }
    this.add(v, key, n);
    return n;
  }

  dtype(path: string, key: CanonicalKey): void {
    const v = this.get(path);
    if (!v || v.view.t === 'absent') return;
    const unknown = this.unknownOf(v);
    const d = DTYPES[this.text(v) ?? ''];
    if (unknown || d) this.add(v, key, unknown ?? d);
    else
      this.problem(
        v,
        'invalid-value',
        'error',
        msg('{0}: expected float32, bfloat16 or float16, found {1}', v.rawKey, v.rawValue),
      );
  }
}

/** The facts of the DPO reference implementation's composed config, by file. */
export function dpoReferenceFacts(c: Composition): FactsByFile {
  const d = new DpoFacts(c);
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
  const d = new DpoFacts(c);
  model(d);
  d.dtype('model.policy_dtype', 'weightsDtype');
  return d.byFile;
}

/**
 * model.name_or_path: the policy's checkpoint (and the reference's); `???` must be given on the command line. Without
 * a model option (none chosen, or not there) it is unknown at the defaults entry of the `model` group.
 */
function model(d: DpoFacts): void {
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
function fsdpTrainer(d: DpoFacts, trainer: ComposedValue): void {
  d.add(trainer, 'fsdp', 'full_shard');
  d.add(trainer, 'fsdpVersion', 1);
  d.add(trainer, 'fsdpBackwardPrefetch', 'pre');
  d.add(trainer, 'fsdpUseOrigParams', false);
  const mp = d.get('model.fsdp_policy_mp');
  const mpDtype = mp ? DTYPES[d.text(mp) ?? ''] : undefined;
  if (mp && mpDtype && mpDtype !== 'fp32') d.add(mp, 'mixedPrecision', mpDtype);
  const ckpt = d.get('activation_checkpointing');
  if (ckpt?.view.t === 'bool') {
    d.add(ckpt, 'gradientCheckpointing', ckpt.view.v ? 'full' : 'none');
    if (ckpt.view.v) d.add(ckpt, 'checkpointReentrant', false);
  }
}

/** BasicTrainer: one process holding the policy (and the reference) spread over the visible GPUs; no checkpointing. */
function basicTrainer(d: DpoFacts, trainer: ComposedValue): void {
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
function loss(d: DpoFacts): void {
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
