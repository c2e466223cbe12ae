// OpenRLHF command lines: the module openrlhf.cli.train_<command> given to `deepspeed --module`, `python -m`,
// `torchrun -m` or `ray job submit -- python3 -m` (OpenRLHF's examples write it into a heredoc read into a variable:
// `read -r -d '' training_commands <<EOF ... EOF`, then `deepspeed --module $training_commands`). Two spellings of the
// flags are read: the dotted CLI of OpenRLHF since 2026-04 (--model.model_name_or_path, --train.micro_batch_size,
// --ds.zero_stage; OpenRLHF/OpenRLHF@3c3be62:openrlhf/cli/*.py) and the flat one before it (--pretrain,
// --micro_train_batch_size, --zero_stage, --bf16, --flash_attn; @c1ba971, and @0489850 for train_kd / train_kto /
// train_prm, @78da0e9 for train_ppo). The defaults that differ by command (the micro-batch, max_len, the global batch,
// ZeRO stage 2, PPO's actor GPUs) are facts at the module with origin 'call-default' and their source
// (OPENRLHF_DEFAULTS, openrlhf-defaults.ts); the others are TOOL_DEFAULTS.openrlhf. Pure: no I/O, no node:*, no 'vscode'.
import { msg, notModeled, type CanonicalKey, type FactValue, type Span, type Tool, type Unknown } from '../facts';
import { OPENRLHF_DEFAULTS, type OpenrlhfDefaults } from './openrlhf-defaults';
import { ORLHF, ORLHF_REMOVED } from '../defaults';
import { known, parseArgs, type Consume, type Opt } from './args';
import type { Field } from './fields';
import { SCRIPT_FLAGS, spec, isNumberText, type FlagSpec } from './flags';
import type { CmdResult, Launch } from './launch';

type Out = Array<[CanonicalKey, FactValue | Unknown]>;

/**
 * The OpenRLHF command of a module (`openrlhf.cli.train_sft`) or script path (`openrlhf/cli/train_sft.py`). A fork's
 * variant of a command, named after it (`openrlhf/cli/train_sft_dev.py`, `openrlhf.cli.train_dpo_v2`), is read as the
 * longest command its name begins with (`variant`: said at the module, since the fork may have changed it).
 */
export function openrlhfCommand(script: string): { command: string; variant: boolean } | undefined {
  const m =
    /^openrlhf\.cli\.(train_\w+)$/.exec(script) ?? /(?:^|\/)openrlhf\/cli\/(train_\w+)\.py$/.exec(script) ?? undefined;
  if (!m) return undefined;
  const name = m[1];
  if (name in OPENRLHF_DEFAULTS) return { command: name, variant: false };
  const base = Object.keys(OPENRLHF_DEFAULTS)
    .filter((c) => name.startsWith(`${c}_`))
    .sort((x, y) => y.length - x.length)[0];
  return base ? { command: base, variant: true } : undefined;
}

/**
 * A copy of OpenRLHF inside the project, under a package of its own (`src.cli.train_sft` with `src/models/actor.py`,
 * `src/trainer/sft_trainer.py`: course and research repositories vendor it so): a module or script path ending in
 * `cli.train_<command>` whose launch line passes OpenRLHF's own flags, the model as --pretrain or
 * --model.model_name_or_path and the micro-batch as --micro_train_batch_size or --train.micro_batch_size. Read as that
 * command (`copy`: said at the module, since the copy may have changed it).
 */
export function copiedOpenrlhfCommand(
  script: string,
  fields: readonly Field[],
  at: number,
): { command: string; variant: boolean; copy: true } | undefined {
  // Also a copy beside the launcher under a name of its own (`train_rm_.py`, NotTheStallion/RLHF-Zero2Hero), told by
  // OpenRLHF's own flags below.
  const m =
    /(?:^|\.)cli\.(train_\w+)$/.exec(script) ??
    /(?:^|\/)cli\/(train_\w+)\.py$/.exec(script) ??
    /(?:^|\/)(train_[a-z]+?)_*\.py$/.exec(script);
  const command = m ? openrlhfCommand(`openrlhf.cli.${m[1]}`) : undefined;
  if (!command) return undefined;
  const flags = new Set(fields.slice(at + 1).map((f) => f.text.replace(/=.*$/s, '')));
  const model = flags.has('--pretrain') || flags.has('--model.model_name_or_path');
  const micro = flags.has('--micro_train_batch_size') || flags.has('--train.micro_batch_size');
  return model && micro ? { ...command, copy: true } : undefined;
}

const when =
  (...facts: Out): FlagSpec['conv'] =>
  (v) =>
    v === true ? facts : [];
const GC = spec('gradientCheckpointing', 'bool', when(['gradientCheckpointing', 'full']));
const MODEL = spec('model', 'str');
const MICRO = spec('microBatchSize', 'int');
const BATCH = spec('trainBatchSize', 'int');
const SEQ = spec('seqLen', 'int');
/** `--ds.param_dtype bf16|fp16` (argparse choices): the dtype the model is loaded in and DeepSpeed's 16-bit block. */
const DTYPE = spec('bf16', 'str', (v) =>
  v === 'bf16'
    ? [
        ['bf16', true],
        ['weightsDtype', 'bf16'],
      ]
    : v === 'fp16'
      ? [
          ['fp16', true],
          ['weightsDtype', 'fp16'],
        ]
      : undefined,
);
/** `--ds.attn_implementation`: transformers' names, and kernel-hub flash kernels (kernels-community/vllm-flash-attn3). */
const ATTN = spec('attention', 'str', (v) => {
  const s = String(v).toLowerCase();
  if (s.includes('flash')) return [['attention', 'flash']];
  if (s === 'sdpa' || s === 'eager') return [['attention', s]];
  return s === 'flex_attention' ? [['attention', { unknown: 'flex attention is not modeled' }]] : undefined;
});
const OFFLOAD = spec('offloadOptimizer', 'bool', when(['offloadOptimizer', 'cpu']));
const PACKING = spec('batchLengths', 'bool', (v) => [['batchLengths', v === true ? 'fixed' : 'variable']]);
const TARGETS = spec('loraTargets', 'list', (v) => {
  const items = (Array.isArray(v) ? v : String(v).split(/[\s,]+/)).map((x) => String(x).trim()).filter((x) => x);
  return [['loraTargets', items.length === 1 && items[0] === 'all-linear' ? 'all-linear' : items]];
});
const FOUR_BIT = spec(
  'quantBits',
  'bool',
  when(['quantBits', 4], ['quantType', 'nf4'], ['doubleQuant', true]), // models/actor.py BitsAndBytesConfig
);
/** `--optim adam|muon` (DeepSpeed builds FusedAdam, or its Muon with an Adam group for the other parameters). */
const OPTIM = spec('optimizer', 'str', (v) =>
  v === 'adam' ? [['optimizer', 'adamw_fused']] : v === 'muon' ? [['optimizer', 'muon']] : undefined,
);
const REFERENCE = spec('referenceModel', 'str', (v) =>
  typeof v === 'string' && v ? [['referenceModel', 'given']] : undefined,
);
/** DPO's NLL term on the chosen half (dpo_trainer.py: on when nll_loss_coef > 1e-8), as TRL's rpo_alpha. */
const NLL = spec('rpoAlpha', 'num', (v) => (typeof v === 'number' && v > 1e-8 ? [['rpoAlpha', v]] : []));
const LIGER = spec('kernels', 'bool', when(['kernels', 'liger']));

/** The flags read through a spec: the dotted name and the flat one of each. */
const FLAGS: Record<string, FlagSpec> = {
  'model.model_name_or_path': MODEL,
  'actor.model_name_or_path': MODEL,
  pretrain: MODEL,
  'train.micro_batch_size': MICRO,
  micro_train_batch_size: MICRO,
  'train.batch_size': BATCH,
  train_batch_size: BATCH,
  'data.max_len': SEQ,
  max_len: SEQ,
  prompt_max_len: spec('promptLen', 'int'),
  generate_max_len: spec('completionLen', 'int'),
  'ds.zero_stage': SCRIPT_FLAGS.zero_stage,
  zero_stage: SCRIPT_FLAGS.zero_stage,
  'ds.param_dtype': DTYPE,
  param_dtype: DTYPE,
  bf16: spec('bf16', 'bool', when(['bf16', true], ['weightsDtype', 'bf16'])),
  'ds.attn_implementation': ATTN,
  attn_implementation: ATTN,
  flash_attn: spec('attention', 'bool', when(['attention', 'flash'])),
  'model.gradient_checkpointing_enable': GC,
  'actor.gradient_checkpointing_enable': GC,
  gradient_checkpointing: GC,
  'ds.adam_offload': OFFLOAD,
  adam_offload: OFFLOAD,
  'ds.packing_samples': PACKING,
  packing_samples: PACKING,
  'ds.tensor_parallel_size': spec('tensorParallel', 'int'),
  ds_tensor_parallel_size: spec('tensorParallel', 'int'),
  'ds.ring_attn_size': spec('contextParallel', 'int'),
  ring_attn_size: spec('contextParallel', 'int'),
  'ds.zpg': spec('zeroHpzPartitionSize', 'int'),
  zpg: spec('zeroHpzPartitionSize', 'int'),
  'ds.use_liger_kernel': LIGER,
  use_liger_kernel: LIGER,
  'ds.lora.alpha': spec('loraAlpha', 'num'),
  lora_alpha: spec('loraAlpha', 'num'),
  'ds.lora.dropout': spec('loraDropout', 'num'),
  lora_dropout: spec('loraDropout', 'num'),
  'ds.lora.target_modules': TARGETS,
  target_modules: TARGETS,
  'ds.load_in_4bit': FOUR_BIT,
  load_in_4bit: FOUR_BIT,
  optim: OPTIM,
  'actor.optim': OPTIM,
  'actor.num_gpus_per_node': spec('gpusPerNode', 'int'),
  actor_num_gpus_per_node: spec('gpusPerNode', 'int'),
  'actor.num_nodes': spec('nodes', 'int'),
  actor_num_nodes: spec('nodes', 'int'),
  'ref.model_name_or_path': REFERENCE,
  ref_pretrain: REFERENCE,
  'model.nll_loss_coef': NLL,
  nll_loss_coef: NLL,
  teacher_model: spec('teacherModel', 'str'),
};
/** Read below rather than through FLAGS. */
const RANK = new Set(['ds.lora.rank', 'lora_rank']);
const DYNAMIC = ['train.dynamic_batch_enable', 'use_dynamic_batch'];
const MAX_TOKENS = ['train.max_tokens_per_gpu', 'train_max_tokens_per_gpu'];
/** Flags that change the memory in a way the estimate does not model: said where they are written. */
const NOT_MODELED: Record<string, string> = {
  'ref.offload': 'the reference model is kept on the CPU between its forwards; the estimate keeps it on the GPU',
  ref_offload: 'the reference model is kept on the CPU between its forwards; the estimate keeps it on the GPU',
  teacher_offload: 'the teacher is kept on the CPU between its forwards; the estimate keeps it on the GPU',
  'ds.grad_accum_dtype': 'gradients accumulated in another dtype are not modeled',
  grad_accum_dtype: 'gradients accumulated in another dtype are not modeled',
};

const consume = (name: string): Consume => {
  const s = FLAGS[name];
  // argparse store_true switches take no value.
  if (s?.kind === 'bool' || DYNAMIC.includes(name)) return 'never';
  return s?.kind === 'list' ? 'list' : 'one';
};

/**
 * `<launcher> openrlhf.cli.train_<command> ...` from fields[at] (the module or script): the facts of the run, with the
 * launcher's (already read) as its processes, except PPO on Ray, whose actor GPUs its own flags give.
 */
export function openrlhfLaunch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  { command, variant, copy }: { command: string; variant: boolean; copy?: boolean },
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  l.tool('openrlhf');
  const d = OPENRLHF_DEFAULTS[command];
  const module = fields[at];
  if (copy)
    l.r.problems.push({
      code: 'read-by-name',
      severity: 'info',
      ...msg(
        "{0}: read as OpenRLHF's {1}: the project's own copy of OpenRLHF, named by its flags (the copy may differ from it)",
        module.text,
        command,
      ),
      span: module.span,
      rawKey: module.text,
    });
  else if (variant)
    l.r.problems.push({
      code: 'read-by-name',
      severity: 'info',
      ...msg(
        "{0}: read as OpenRLHF's {1}, whose name it extends (a fork's variant may differ from it)",
        module.text,
        command,
      ),
      span: module.span,
      rawKey: module.text,
    });
  const p = parseArgs(fields, at + 1, consume, false, false, opaque);
  const last = (names: readonly string[]): Opt | undefined => [...p.opts].reverse().find((o) => names.includes(o.name));
  const dotted = p.opts.some((o) => o.name.includes('.')) || !p.opts.length;
  const name = (dottedName: string, flatName: string): string => (dotted ? dottedName : flatName);
  const dynamic = last(DYNAMIC) !== undefined;
  const fourBit = p.opts.some((o) => (o.name === 'ds.load_in_4bit' || o.name === 'load_in_4bit') && !o.value);
  for (const o of p.opts) {
    const s = FLAGS[o.name];
    if (s && !(dynamic && s === MICRO)) l.spec(s, o, 'openrlhf');
    else if (RANK.has(o.name)) rankFacts(l, o, fourBit);
    else if (NOT_MODELED[o.name]) l.warnNotModeled(msg('{0}: {1}', o.rawKey, NOT_MODELED[o.name]), o.keySpan, o.rawKey);
  }
  commandFacts(l, command, module, last);
  // The defaults that differ by command, made explicit at the module.
  const at0 = module.span;
  const dflt = (key: CanonicalKey, raw: string, value: FactValue, note: string): void =>
    defaultFact(l, key, raw, at0, value, `${raw} ${note} (${d.source})`);
  const seq = seqFacts(l, d, p.opts, at0, dotted);
  if (dynamic) dynamicMicro(l, last(MAX_TOKENS), seq, d, at0, dotted);
  else if (!last(['train.micro_batch_size', 'micro_train_batch_size']))
    dflt('microBatchSize', name('train.micro_batch_size', 'micro_train_batch_size'), d.micro, `defaults to ${d.micro}`);
  if (!last(['train.batch_size', 'train_batch_size']))
    dflt(
      'trainBatchSize',
      name('train.batch_size', 'train_batch_size'),
      d.batch,
      `(the global batch) defaults to ${d.batch}`,
    );
  if (!last(['ds.zero_stage', 'zero_stage']))
    dflt('zeroStage', name('ds.zero_stage', 'zero_stage'), d.zeroStage, `defaults to ${d.zeroStage}`);
  if (d.actor) {
    // PPO on Ray: the actor's DeepSpeed group is its own GPUs (the critic, reference and reward models have theirs).
    const [gpus, nodes] = d.actor;
    if (!last(['actor.num_gpus_per_node', 'actor_num_gpus_per_node']))
      dflt('gpusPerNode', name('actor.num_gpus_per_node', 'actor_num_gpus_per_node'), gpus, `defaults to ${gpus}`);
    if (!last(['actor.num_nodes', 'actor_num_nodes']))
      dflt('nodes', name('actor.num_nodes', 'actor_num_nodes'), nodes, `defaults to ${nodes}`);
  }
  l.r.training = true;
  l.r.launcherTool = launcher ?? 'openrlhf';
  return l.r;
}

/** `--ds.lora.rank N` (flat: --lora_rank): LoRA above 0 (QLoRA over --ds.load_in_4bit), full fine-tuning at 0. */
function rankFacts(l: Launch, o: Opt, fourBit: boolean): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined)
    return l.fact('loraR', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'openrlhf');
  const t = o.value.text.trim();
  if (!/^\d+$/.test(t)) return l.invalid(o, 'an integer');
  const r = Number(t);
  if (r > 0) l.fact('loraR', o.rawKey, o.keySpan, o.value.span, r, 'openrlhf');
  l.fact('method', o.rawKey, o.keySpan, o.value.span, r === 0 ? 'full' : fourBit ? 'qlora' : 'lora', 'openrlhf');
}

/** What the command trains: the preference pairs of DPO / KTO / RM, RM's score head, KD's teacher, PPO's warning. */
function commandFacts(
  l: Launch,
  command: string,
  module: Field,
  last: (names: readonly string[]) => Opt | undefined,
): void {
  const at = module.span;
  const fact = (key: CanonicalKey, value: FactValue): void => l.fact(key, module.text, at, at, value, 'openrlhf');
  if (command === 'train_sft' || command === 'train_dpo') actorFacts(l, command, at);
  // DPO and KTO load the reference as an Actor of its own, --ref_pretrain defaulting to the policy's, LoRA or not.
  if (command === 'train_dpo' || command === 'train_kto')
    defaultFact(
      l,
      'referenceModel',
      'ref_pretrain',
      at,
      'given',
      `${command} loads the reference as an Actor of its own (--ref_pretrain, the policy's model by default), ` +
        `also under LoRA (${command === 'train_dpo' ? `${ORLHF}cli/` : ORLHF_REMOVED}${command}.py)`,
    );
  if (command === 'train_dpo') fact('preference', 'dpo');
  else if (command === 'train_kto') fact('preference', 'kto');
  else if (command === 'train_rm') {
    // A reward model: the base model with a one-output score layer, no LM head (models/model.py _get_reward_model).
    fact('preference', 'reward');
    fact('head', 'seq_cls');
    fact('numLabels', 1);
  } else if (command === 'train_kd' && last(['teacher_model'])) {
    // KDLoss (models/loss.py): the teacher's softmax against the student's log-softmax over the full vocabulary, on
    // the dataset's completions: the memory of TRL GKD's generalized JSD at beta 0 with no on-policy rounds.
    defaultFact(l, 'onPolicyFraction', 'teacher_model', at, 0, 'KDLoss distils on the dataset, with no generation');
    defaultFact(l, 'klBeta', 'teacher_model', at, 0, 'KDLoss is the forward KL of the teacher against the student');
  } else if (command === 'train_ppo_ray' || command === 'train_ppo') {
    l.warnNotModeled(notModeled(module.text, 'ppo'), at, module.text);
  }
}

/**
 * How the Actor takes SFT's and DPO's log-probabilities (setup.actor_logps): the logits cast to fp32, flash-attn's
 * cross-entropy. SFT's loop keeps `output`, and with it those fp32 logits, until the next micro-batch's forward returns
 * (openrlhf/trainer/sft_trainer.py fit: `per_token_log_probs, output = self.model(...)`); DPO's concatenated_forward
 * returns log-probabilities only (trainer/dpo_trainer.py).
 */
function actorFacts(l: Launch, command: string, at: Span): void {
  defaultFact(
    l,
    'actorLogps',
    command,
    at,
    'openrlhf',
    `the Actor casts the head's logits to fp32 and takes the tokens' log-probabilities with flash-attn's ` +
      `cross_entropy_loss, a requirement of OpenRLHF (${ORLHF}models/actor.py forward, models/utils.py log_probs_from_logits)`,
  );
  if (command !== 'train_sft') return;
  defaultFact(
    l,
    'loopKeepsOutputs',
    command,
    at,
    true,
    `the training loop keeps \`output\` (the Actor's fp32 logits) until the next micro-batch's forward returns ` +
      `(${ORLHF}trainer/sft_trainer.py fit: per_token_log_probs, output = self.model(...))`,
  );
}

/**
 * The sequence length: --data.max_len (flat: --max_len), or PPO's --prompt_max_len + --generate_max_len in the flat CLI
 * before e7ae02e (2026-03), else the command's default. Returns it when known.
 */
function seqFacts(l: Launch, d: OpenrlhfDefaults, opts: readonly Opt[], at: Span, dotted: boolean): number | undefined {
  const pick = (...names: string[]): Opt | undefined => [...opts].reverse().find((o) => names.includes(o.name));
  const num = (o: Opt | undefined): number | undefined => {
    const t = known(o);
    return t !== undefined && isNumberText(t) && Number.isInteger(Number(t)) ? Number(t) : undefined;
  };
  const maxLen = pick('data.max_len', 'max_len');
  if (maxLen) return num(maxLen);
  const prompt = pick('prompt_max_len');
  const gen = pick('generate_max_len');
  if (prompt || gen || Array.isArray(d.maxLen)) {
    const [pd, gd] = Array.isArray(d.maxLen) ? d.maxLen : [1024, 1024];
    const a = prompt ? num(prompt) : pd;
    const b = gen ? num(gen) : gd;
    const both = [prompt, gen].filter((o): o is Opt => o !== undefined);
    const raw = 'prompt_max_len + generate_max_len';
    const value: FactValue | Unknown =
      a !== undefined && b !== undefined ? a + b : { unknown: `${raw}: a length is not known statically` };
    if (both.length) {
      const span = { start: both[0].keySpan.start, end: (both[both.length - 1].value?.span ?? both[0].keySpan).end };
      l.fact('seqLen', raw, both[0].keySpan, span, value, 'openrlhf');
    } else defaultFact(l, 'seqLen', raw, at, value, `prompt ${pd} + generated ${gd} tokens by default (${d.source})`);
    return typeof value === 'number' ? value : undefined;
  }
  const n = d.maxLen as number;
  defaultFact(l, 'seqLen', dotted ? 'data.max_len' : 'max_len', at, n, `max_len defaults to ${n} (${d.source})`);
  return n;
}

/**
 * Dynamic batching (--train.dynamic_batch_enable, flat --use_dynamic_batch): each micro-step packs samples up to
 * --train.max_tokens_per_gpu tokens instead of a count of samples, estimated as that many tokens over max_len.
 */
function dynamicMicro(
  l: Launch,
  tokens: Opt | undefined,
  seq: number | undefined,
  d: OpenrlhfDefaults,
  at: Span,
  dotted: boolean,
): void {
  const t = tokens ? known(tokens) : String(d.maxTokens ?? 16192);
  const n = t !== undefined && /^\d+$/.test(t) ? Number(t) : undefined;
  const raw = tokens?.rawKey.replace(/^-+/, '') ?? (dotted ? 'train.max_tokens_per_gpu' : 'train_max_tokens_per_gpu');
  const value: FactValue | Unknown =
    n === undefined
      ? { unknown: `${raw} is not known statically` }
      : seq === undefined
        ? { unknown: `${raw} / max_len: max_len is not known statically` }
        : Math.max(1, Math.floor(n / seq));
  const note =
    `dynamic batching packs up to ${n ?? raw} tokens into each micro-step: estimated as ` +
    `${typeof value === 'number' ? `${value} sequences` : 'that many tokens'} of max_len` +
    (tokens ? '' : ` (${raw} defaults to ${d.maxTokens ?? 16192}; ${d.source})`);
  defaultFact(l, 'microBatchSize', raw, tokens?.keySpan ?? at, value, note, tokens?.value?.span);
}

/** A default of OpenRLHF's made explicit (not written in the file: origin 'call-default'), with where it is stated. */
function defaultFact(
  l: Launch,
  key: CanonicalKey,
  rawKey: string,
  at: Span,
  value: FactValue | Unknown,
  note: string,
  valueSpan: Span = at,
): void {
  const shown = typeof value === 'object' && value !== null ? '?' : String(value);
  l.toolDefault({
    key,
    rawKey,
    value,
    rawValue: `${rawKey}: ${shown} (OpenRLHF default)`,
    at,
    valueSpan,
    tool: 'openrlhf',
    note,
  });
}
