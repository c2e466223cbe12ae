// ms-swift command lines: `swift sft|pt|rlhf --model ... --train_type lora ...`, with the NPROC_PER_NODE / NNODES
// environment that makes swift start torchrun itself. The flags follow ms-swift 3.x (swift/llm/argument/*.py,
// swift/trainers/arguments.py; 4.x renamed train_type to tuner_type and keeps the rest); those that mean what they
// mean to the HF Trainer are read through SCRIPT_FLAGS. The defaults that depend on the command (LoRA as the training
// type, the accumulation swift derives from the world size, the sequence length of the model) are facts at the
// subcommand with origin 'call-default'; the others are TOOL_DEFAULTS['ms-swift']. Pure: no I/O, no node:*, no 'vscode'.
import { SHIPPED_Z3_BUCKETS } from '../deepspeed-json/bundled';
import {
  msg,
  notModeled,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type Span,
  type Tool,
  type Unknown,
} from '../facts';
import { known, parseArgs, type Consume, type Opt } from './args';
import type { Env, Field } from './fields';
import { SCRIPT_FLAGS, spec, isNumberText, type FlagSpec } from './flags';
import { type CmdResult, type Launch, type Visible, visibleDevices } from './launch';
import { type DeepspeedPreset, type PresetZero, deepspeedPreset, toolProcesses } from './tool-launcher';
import { SWIFT2_LORA_DEFAULTS, SWIFT2_MODEL_TYPES } from './swift2-models';

const SUBCOMMANDS = new Set(['sft', 'pt', 'rlhf']);

/** Whether `swift <sub>` is a training command. */
export const isSwiftTrain = (sub: string | undefined): boolean => sub !== undefined && SUBCOMMANDS.has(sub);

const ATTN: Record<string, FactValue | Unknown> = {
  flash_attn: 'flash',
  flash_attention_2: 'flash',
  flash_attention_3: 'flash',
  sdpa: 'sdpa',
  eager: 'eager',
  flex_attention: { unknown: 'flex attention is not modeled' },
};

/** A reference model the command names: loaded beside the policy. */
const GIVEN_REFERENCE = spec('referenceModel', 'str', (v) =>
  typeof v === 'string' && v ? [['referenceModel', 'given']] : undefined,
);

/**
 * swift's modules_to_save (`--modules_to_save`, 2.x's `--lora_modules_to_save`): its special names are the input
 * embedding (EMBEDDING), the output head (LM_HEAD) and every norm (LN, copies of hidden-size vectors, left out of the
 * count); other names are the model's own (modelscope/ms-swift@v2.6.1 swift/llm/utils/argument.py
 * handle_lora_modules_to_save).
 */
const SAVED_MODULES = spec('loraModulesToSave', 'list', (v) => {
  const items = (Array.isArray(v) ? v : String(v).split(/[\s,]+/)).map((x) => String(x).trim()).filter((x) => x);
  const special: Record<string, string | undefined> = { EMBEDDING: 'embed_tokens', LM_HEAD: 'lm_head', LN: undefined };
  const names = items.flatMap((x) => (x.toUpperCase() in special ? (special[x.toUpperCase()] ?? []) : [x]));
  return [['loraModulesToSave', names]];
});

/** Flags whose name or meaning is swift's own; everything else is looked up in SCRIPT_FLAGS. */
const SWIFT_FLAGS: Record<string, FlagSpec> = {
  target_modules: spec('loraTargets', 'list', (v) => {
    const items = (Array.isArray(v) ? v : String(v).split(/[\s,]+/)).map((x) => String(x).trim()).filter((x) => x);
    return [['loraTargets', items.length === 1 && items[0] === 'all-linear' ? 'all-linear' : items]];
  }),
  attn_impl: spec('attention', 'str', (v) => {
    const k = String(v).toLowerCase();
    return k in ATTN ? [['attention', ATTN[k]]] : undefined;
  }),
  use_dora: spec('loraDora', 'bool'),
  sequence_parallel_size: spec('contextParallel', 'int'),
  teacher_model: spec('teacherModel', 'str'),
  modules_to_save: SAVED_MODULES,
  lora_modules_to_save: SAVED_MODULES,
  ref_model: GIVEN_REFERENCE,
  // swift 2.x's DPO loads a reference model of its own by type or path (DPOArguments ref_model_type,
  // ref_model_id_or_path), not the policy with its adapters off.
  ref_model_type: GIVEN_REFERENCE,
  ref_model_id_or_path: GIVEN_REFERENCE,
  model: spec('model', 'str'),
  // swift 2.x's names (modelscope/ms-swift@v2.6.1:swift/llm/utils/argument.py SftArguments).
  model_id_or_path: spec('model', 'str'),
  batch_size: spec('microBatchSize', 'int'),
  lora_dropout_p: spec('loraDropout', 'num'),
  // `--use_flash_attn false` (or absent): the transformers default attention.
  use_flash_attn: spec('attention', 'bool', (v) => (v === true ? [['attention', 'flash']] : [])),
  // swift 3.x's GRPO arguments for its vLLM engine (swift/trainers/rlhf_arguments.py GRPOArguments, later vllm_*):
  // the engine's tensor parallelism, not the training's (swift trains with Megatron's tensor_model_parallel_size),
  // and its sleep level (1 or 2: the engine sleeps while the policy trains).
  tensor_parallel_size: spec('vllmTensorParallel', 'int'),
  sleep_level: spec('vllmSleep', 'int', (v) => [['vllmSleep', Number(v) > 0]]),
  // The model's and the optimizer's states moved to the host while the colocated engine generates, back to train.
  offload_model: spec('weightsGpu', 'bool', (v) => [['weightsGpu', v === true ? 'training' : 'always']]),
  offload_optimizer: spec('optimizerStatesGpu', 'bool', (v) => [
    ['optimizerStatesGpu', v === true ? 'training' : 'always'],
  ]),
};
/** Flags read below rather than through a spec. */
const OWN = new Set([
  'train_type',
  'tuner_type',
  'quant_bits',
  'quant_method',
  'torch_dtype',
  'deepspeed',
  'fsdp',
  'rlhf_type',
  'config',
  // swift 2.x
  'model_type',
  'sft_type',
  'dtype',
  'quantization_bit',
  'lora_target_modules',
]);

/**
 * swift's DeepSpeed presets (modelscope/ms-swift@8773ecd:swift/llm/ds_config/*.json, swift/config/*.json from 4.0):
 * stage, CPU offload and the files' buckets. ZeRO-0 to 2: 2e8-element reduce and all-gather buckets, contiguous
 * gradients; ZeRO-3: "auto" buckets and thresholds, 1e9 live parameters, reuse distance and sub-group. overlap_comm is
 * false from 3.3 (ms-swift@ea8d56e, March 2025), true before.
 */
const Z2_BUCKETS = {
  allgather_bucket_size: 2e8,
  reduce_bucket_size: 2e8,
  overlap_comm: false,
  contiguous_gradients: true,
} as const;
const Z3_BUCKETS = SHIPPED_Z3_BUCKETS;
const shipped = (name: string, settings: PresetZero['settings']): PresetZero => ({
  file: `ms-swift's ${name}.json`,
  settings,
});
const DS_PRESETS: Record<string, DeepspeedPreset> = {
  zero0: [0, 'none', 'none', shipped('zero0', Z2_BUCKETS)],
  zero1: [1, 'none', 'none', shipped('zero1', Z2_BUCKETS)],
  zero2: [2, 'none', 'none', shipped('zero2', Z2_BUCKETS)],
  zero2_offload: [2, 'cpu', 'none', shipped('zero2_offload', Z2_BUCKETS)],
  zero3: [3, 'none', 'none', shipped('zero3', Z3_BUCKETS)],
  zero3_offload: [3, 'cpu', 'cpu', shipped('zero3_offload', Z3_BUCKETS)],
  // swift 2.x's names for its files (swift/llm/utils/argument.py deepspeed_mapping, v2.2-v2.6), whose zero3_offload.json
  // offloaded the parameters only (v2.6.1 swift/llm/ds_config/zero3_offload.json: offload_optimizer "none"), with
  // overlap_comm true.
  'default-zero2': [2, 'none', 'none', shipped('zero2', { ...Z2_BUCKETS, overlap_comm: true })],
  'default-zero3': [3, 'none', 'none', shipped('zero3', { ...Z3_BUCKETS, overlap_comm: true })],
  'zero2-offload': [2, 'cpu', 'none', shipped('zero2_offload', { ...Z2_BUCKETS, overlap_comm: true })],
  'zero3-offload': [3, 'none', 'cpu', shipped('zero3_offload', { ...Z3_BUCKETS, overlap_comm: true })],
};

/** `swift rlhf --rlhf_type`: the preference objective or the rollout it trains with (rlhf_args.py, default dpo). */
const RLHF: Record<string, readonly [CanonicalKey, string] | undefined> = {
  dpo: ['preference', 'dpo'],
  kto: ['preference', 'kto'],
  orpo: ['preference', 'reference-free'],
  simpo: ['preference', 'reference-free'],
  cpo: ['preference', 'reference-free'],
  rm: ['preference', 'reward'],
  grpo: ['rollout', 'grpo'],
  ppo: undefined,
  gkd: undefined,
};

const consume = (name: string): Consume => {
  if (name === 'lora_target_modules') return 'list';
  if (OWN.has(name)) return 'one';
  const s = SWIFT_FLAGS[name] ?? SCRIPT_FLAGS[name];
  return s?.kind === 'bool' ? 'bool' : s?.kind === 'list' ? 'list' : 'one';
};

/** A default of swift's made explicit at the subcommand (not written in the file: origin 'call-default'). */
function defaultFact(
  l: Launch,
  key: CanonicalKey,
  rawKey: string,
  at: Span,
  value: FactValue | Unknown,
  rawValue: string,
): void {
  const f: Fact = {
    key,
    rawKey,
    value,
    rawValue,
    keySpan: at,
    valueSpan: at,
    tool: 'ms-swift',
    origin: 'call-default',
  };
  l.r.facts.push(f);
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    l.notStatic(at, msg('{0}: {1}', rawKey, (value as Unknown).unknown), rawKey);
}

/** `swift sft|pt|rlhf ...` from fields[i] (the `swift` word): the facts of the run, its world size and swift's defaults. */
export function swiftLaunch(
  l: Launch,
  fields: readonly Field[],
  i: number,
  env: Env,
  opaque: (f: Field) => void,
): CmdResult {
  return swiftArgs(l, fields, i + 1, fields[i + 1].text, opaque, () => worldFacts(l, env, fields[i]));
}

/** The sub-command of swift's entry script (`swift/cli/sft.py`, `-m swift.cli.rlhf`), if `script` is one. */
export function swiftScript(script: string): string | undefined {
  return (/(?:^|\/)swift\/cli\/(sft|pt|rlhf)\.py$/.exec(script) ?? /^swift\.cli\.(sft|pt|rlhf)$/.exec(script))?.[1];
}

/**
 * ms-swift 2.x's example entry scripts (`python llm_sft.py --model_id_or_path ... --sft_type lora`, examples/pytorch/llm
 * of modelscope/ms-swift@v2.6.1: `from swift.llm import sft_main; sft_main()`, llm_dpo.py and llm_rlhf.py the same for
 * rlhf_main), and the copies projects make of them: the sub-command, where the line passes a flag only swift 2.x has.
 */
export function swiftExampleScript(script: string, fields: readonly Field[], from: number): string | undefined {
  const m = /(?:^|\/)llm_(sft|pt|dpo|rlhf)\.py$/.exec(script);
  if (!m) return undefined;
  const v2 = fields
    .slice(from)
    .some((f) => /^--(sft_type|model_id_or_path|model_type|lora_target_modules)(=|$)/.test(f.text));
  return v2 ? (m[1] === 'dpo' ? 'rlhf' : m[1]) : undefined;
}

/**
 * `torchrun|deepspeed|accelerate launch|python [-m] swift/cli/sft.py ...` from fields[at] (the script): the launcher's
 * facts are already read, and its process count is the world size of swift's accumulation default. Under plain python,
 * one process: over several visible GPUs it splits the model over them (device_map), as `swift sft` does.
 */
export function swiftScriptLaunch(
  l: Launch,
  fields: readonly Field[],
  script: { at: number; sub: string; env: Env },
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  const { at, sub, env } = script;
  const vis = launcher ? undefined : visibleDevices(env);
  if (vis?.count !== undefined && vis.count > 1) deviceMapSplit(l, vis, vis.count, 1);
  const num = (k: CanonicalKey): number | undefined => {
    const f = l.r.facts.filter((x) => x.key === k).pop();
    return f && typeof f.value === 'number' ? f.value : undefined;
  };
  const r = swiftArgs(l, fields, at, sub, opaque, () => {
    // Plain python is one process, whatever GPUs it splits the model over.
    if (!launcher) return 1;
    const total =
      num('worldSize') ?? (num('gpusPerNode') !== undefined ? num('gpusPerNode')! * (num('nodes') ?? 1) : undefined);
    return total ?? `the process count of ${launcher} is not known here`;
  });
  if (launcher) r.launcherTool = launcher;
  return r;
}

/** swift's arguments from fields[subAt + 1]; fields[subAt] is the subcommand or the entry script (where defaults are said). */
function swiftArgs(
  l: Launch,
  fields: readonly Field[],
  subAt: number,
  sub: string,
  opaque: (f: Field) => void,
  worldOf: () => number | string,
): CmdResult {
  const subField = fields[subAt];
  const i = subAt - 1;
  const p = parseArgs(fields, i + 2, consume, false, false, opaque);
  // `swift sft args.yaml` (4.x: the first argument, swift/cli/main.py parse_yaml_args) or `--config args.yaml` (3.x):
  // the file is read with the run (yaml/swift.ts), so swift's defaults are not made explicit where it may set them.
  const argFile =
    fields[i + 2] && fields[i + 2].unknown === undefined && /\.(ya?ml|json)$/i.test(fields[i + 2].text)
      ? fields[i + 2]
      : undefined;
  const config = [...p.opts].reverse().find((o) => o.name === 'config');
  const file = argFile
    ? { path: argFile.text, span: argFile.span }
    : config?.value && known(config) !== undefined
      ? { path: config.value.text, span: config.value.span }
      : undefined;
  if (file) l.r.refs.push({ kind: 'config', path: file.path, span: file.span });
  return swiftOptFacts(l, p.opts, { span: subField.span, sub, defaults: !argFile && !config }, worldOf);
}

/** Where swift's subcommand is written (its defaults are said there), which it is, and whether its defaults apply. */
export interface SwiftCommand {
  readonly span: Span;
  readonly sub: string;
  /** False where an argument file may set what the defaults would (the file is read on its own). */
  readonly defaults: boolean;
}

/**
 * The facts of swift's options (from a command line, or the keys of an argument file: yaml/swift.ts), its
 * subcommand's defaults, and the accumulation swift derives from the world size `worldOf` gives.
 */
export function swiftOptFacts(
  l: Launch,
  opts: readonly Opt[],
  cmd: SwiftCommand,
  worldOf: () => number | string,
): CmdResult {
  l.tool('ms-swift');
  const last = (...names: string[]): Opt | undefined => [...opts].reverse().find((o) => names.includes(o.name));
  for (const o of opts) {
    if (o.name === 'deepspeed') deepspeedFlag(l, o);
    else if (o.name === 'fsdp') {
      if (known(o) === 'fsdp2') l.fact('fsdp', o.rawKey, o.keySpan, o.value!.span, 'full_shard', 'ms-swift');
      else l.spec(SCRIPT_FLAGS.fsdp, o, 'ms-swift');
    } else if (o.name === 'max_length' && known(o)?.trim() === '-1') {
      // swift 2.x's `max_length: int = 2048  # -1: no limit` (ms-swift 2.x llm/utils/argument.py): nothing is cut.
      const why = '--max_length -1 truncates nothing (swift 2.x): the longest sample sets the length; give a number';
      l.fact('seqLen', o.rawKey, o.keySpan, o.value!.span, { unknown: why }, 'ms-swift');
    } else if (o.name !== 'config' && !OWN.has(o.name)) {
      const s = SWIFT_FLAGS[o.name] ?? SCRIPT_FLAGS[o.name];
      if (s) l.spec(s, o, 'ms-swift');
    }
  }
  const { defaults, sub } = cmd;
  const v2 = swift2Facts(l, opts, cmd.span, defaults);
  const quant = quantFacts(l, last('quant_bits', 'quantization_bit'), last('quant_method'));
  methodFacts(l, last('train_type', 'tuner_type', 'sft_type'), quant === 4, cmd.span, defaults);
  dtypeFacts(
    l,
    last('torch_dtype'),
    opts.some((o) => o.name === 'bf16' || o.name === 'fp16'),
  );
  if (sub === 'rlhf') rlhfFacts(l, last('rlhf_type'), cmd.span, defaults);
  const world = worldOf();
  if (defaults && !last('gradient_accumulation_steps'))
    accumulationDefault(l, last('per_device_train_batch_size', 'batch_size'), world, cmd.span);
  if (defaults && !last('max_length') && !v2) {
    defaultFact(
      l,
      'seqLen',
      'max_length',
      cmd.span,
      { unknown: "max_length defaults to the model's longest context (max_model_len); give --max_length" },
      'max_length: None',
    );
  }
  l.r.training = true;
  l.r.launcherTool = 'ms-swift';
  return l.r;
}

/** `--deepspeed zero2|zero3_offload|...` (a preset swift ships) or a path / inline JSON (a DeepSpeed reference). */
function deepspeedFlag(l: Launch, o: Opt): void {
  const name = deepspeedPreset(l, o, DS_PRESETS, 'ms-swift');
  if (name !== undefined) l.fact('deepspeedConfig', o.rawKey, o.keySpan, o.value!.span, name, 'ms-swift');
}

/** `--quant_bits 4|8` with `--quant_method bnb|hqq|eetq|...` (quant_args.py); returns the bits when known. */
function quantFacts(l: Launch, bits: Opt | undefined, method: Opt | undefined): number | undefined {
  if (!bits?.value) return undefined;
  if (bits.value.unknown !== undefined) {
    l.fact('quantBits', bits.rawKey, bits.keySpan, bits.value.span, { unknown: bits.value.unknown }, 'ms-swift');
    return undefined;
  }
  const n = Number(bits.value.text.trim());
  if (n !== 4 && n !== 8) {
    l.warnNotModeled(
      msg('{0}: {1}-bit weights are not modeled (4 and 8 are)', bits.rawKey, bits.value.text.trim()),
      bits.value.span,
      bits.rawKey,
    );
    return undefined;
  }
  l.fact('quantBits', bits.rawKey, bits.keySpan, bits.value.span, n, 'ms-swift');
  const m = known(method)?.toLowerCase();
  if (m !== undefined && m !== 'bnb' && method?.value) {
    l.warnNotModeled(
      msg('{0}: {1} quantization is estimated as bitsandbytes {2}-bit weights', method.rawKey, m, n),
      method.value.span,
      method.rawKey,
    );
  }
  return n;
}

/**
 * `--train_type` (3.x) / `--tuner_type` (4.x), lora by default (base_args.py): LoRA and LongLoRA are LoRA (QLoRA over
 * 4-bit weights), full is full fine-tuning; the other tuners are not modeled.
 */
function methodFacts(l: Launch, o: Opt | undefined, fourBit: boolean, sub: Span, defaults: boolean): void {
  const lora = fourBit ? 'qlora' : 'lora';
  if (!o?.value) {
    if (!defaults) return;
    l.r.facts.push({
      key: 'method',
      rawKey: 'train_type',
      value: lora,
      rawValue: 'train_type: lora (swift default)',
      keySpan: sub,
      valueSpan: sub,
      tool: 'ms-swift',
      origin: 'call-default',
    });
    return;
  }
  if (o.value.unknown !== undefined)
    return l.fact('method', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'ms-swift');
  const t = o.value.text.trim().toLowerCase();
  if (t === 'full') l.fact('method', o.rawKey, o.keySpan, o.value.span, 'full', 'ms-swift');
  else if (t === 'lora' || t === 'longlora') l.fact('method', o.rawKey, o.keySpan, o.value.span, lora, 'ms-swift');
  else {
    l.warnNotModeled(
      msg('{0}: the {1} tuner is not modeled; the estimate is not for this run', o.rawKey, t),
      o.value.span,
      o.rawKey,
    );
  }
}

/**
 * `--torch_dtype`: the dtype the model is loaded in; without --bf16 / --fp16, swift turns on bf16 autocast for
 * bfloat16 and fp16 autocast for float16 and float32 (model_args.py _init_mixed_precision).
 */
function dtypeFacts(l: Launch, o: Opt | undefined, explicitAmp: boolean): void {
  if (!o) return;
  l.spec(SCRIPT_FLAGS.torch_dtype, o, 'ms-swift');
  const t = known(o)?.toLowerCase();
  if (explicitAmp || !o.value || t === undefined) return;
  const amp =
    t === 'bfloat16' || t === 'bf16'
      ? 'bf16'
      : t === 'float16' || t === 'fp16' || t === 'float32' || t === 'fp32'
        ? 'fp16'
        : undefined;
  if (amp) l.fact('mixedPrecision', o.rawKey, o.keySpan, o.value.span, amp, 'ms-swift');
}

/** `swift rlhf --rlhf_type ...` (dpo by default): the preference objective or rollout, or a not-modeled warning. */
function rlhfFacts(l: Launch, o: Opt | undefined, sub: Span, defaults: boolean): void {
  if (!o && !defaults) return;
  const t = o ? known(o)?.toLowerCase() : 'dpo';
  if (t === undefined) {
    if (o?.value)
      l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown ?? 'not known statically'), o.rawKey);
    return;
  }
  const key = o?.rawKey ?? 'rlhf_type';
  const span = o?.value?.span ?? sub;
  const m = RLHF[t];
  if (m) {
    if (o) l.fact(m[0], key, o.keySpan, span, m[1], 'ms-swift');
    else
      l.r.facts.push({
        key: m[0],
        rawKey: key,
        value: m[1],
        rawValue: 'rlhf_type: dpo (swift default)',
        keySpan: sub,
        valueSpan: sub,
        tool: 'ms-swift',
        origin: 'call-default',
      });
  } else if (t === 'ppo') {
    l.warnNotModeled(notModeled(key, 'ppo'), span, key);
  }
}

/**
 * The processes: with NPROC_PER_NODE or NNODES swift starts torchrun with them (swift/cli/main.py get_torchrun_args);
 * without, one process. A process that sees more GPUs than the processes of its node share splits the model over its
 * own (swift/utils/env.py is_mp; swift/llm/model/register.py: device_map over them): the layers in stages, one
 * micro-batch at a time. Returns the world size swift counts (its processes), a number or the reason it is not known.
 */
function worldFacts(l: Launch, env: Env, swiftWord: Field): number | string {
  const nproc = toolProcesses(l, env, swiftWord, 'ms-swift');
  const nnodes = visibleDevices(env, 'NNODES');
  const vis = visibleDevices(env);
  const perProc = nproc ? nproc.count : 1;
  if (vis?.count !== undefined && perProc !== undefined && vis.count > perProc)
    deviceMapSplit(l, vis, vis.count, perProc);
  const a = nproc ? (nproc.count ?? nproc.unknown ?? 'NPROC_PER_NODE is not known') : 1;
  const b = nnodes ? (nnodes.count ?? nnodes.unknown ?? 'NNODES is not known') : 1;
  return typeof a === 'number' && typeof b === 'number' ? a * b : typeof a === 'string' ? a : (b as string);
}

/**
 * The visible GPUs split among a node's processes, each process's share holding the model's layers in stages
 * (pipeline_schedule device_map); a count that does not divide evenly is said as not modeled.
 */
function deviceMapSplit(l: Launch, vis: Visible, gpus: number, perProc: number): void {
  if (gpus % perProc !== 0) {
    l.warnNotModeled(
      msg(
        '{0}: {1} GPUs for {2} process(es): swift splits the model over the GPUs of each process (device_map), ' +
          'and these do not divide evenly; the estimate is for one GPU per process',
        vis.rawKey,
        gpus,
        perProc,
      ),
      vis.valueSpan,
      vis.rawKey,
    );
    return;
  }
  const at = (key: CanonicalKey, value: FactValue) =>
    l.fact(key, vis.rawKey, vis.keySpan, vis.valueSpan, value, 'ms-swift');
  at('gpusPerNode', gpus);
  at('pipelineParallel', gpus / perProc);
  at('pipelineSchedule', 'device_map');
}

/**
 * gradient_accumulation_steps unset: max(1, ceil(16 / per_device_train_batch_size / world_size))
 * (modelscope/ms-swift@8773ecd:swift/trainers/arguments.py TrainArgumentsMixin.__post_init__), a default made explicit.
 */
function accumulationDefault(l: Launch, micro: Opt | undefined, world: number | string, sub: Span): void {
  const m = known(micro);
  const per = micro ? (m !== undefined && isNumberText(m) && Number(m) >= 1 ? Number(m) : undefined) : 1;
  const formula = `max(1, ceil(16 / ${per ?? 'per_device_train_batch_size'} / ${typeof world === 'number' ? world : 'world_size'}))`;
  const value: FactValue | Unknown =
    per === undefined
      ? { unknown: `${formula}: the per-device batch is not known statically` }
      : typeof world === 'string'
        ? { unknown: `${formula}: the world size is not known (${world})` }
        : Math.max(1, Math.ceil(16 / per / world));
  defaultFact(
    l,
    'gradientAccumulationSteps',
    'gradient_accumulation_steps',
    sub,
    value,
    `gradient_accumulation_steps: ${formula}`,
  );
}

/** Flags only swift 2.x has (SftArguments of modelscope/ms-swift@v2.6.1:swift/llm/utils/argument.py). */
const V2_ONLY = ['sft_type', 'model_id_or_path', 'lora_target_modules', 'lora_dropout_p', 'dtype', 'quantization_bit'];

/**
 * A swift 2.x command (`swift sft --model_type qwen1half-7b-chat --sft_type lora ...`): a flag only 2.x has, or a
 * model type of 2.x's own (swift2-models.ts). Its model type names the model where no --model_id_or_path does; its
 * defaults differ from 3.x's: LoRA on the type's LoRATM (`DEFAULT`), max_length 2048, dtype AUTO (bf16 where the GPU
 * has it, and autocast in the same dtype). Returns whether the command is 2.x's.
 */
function swift2Facts(l: Launch, opts: readonly Opt[], sub: Span, defaults: boolean): boolean {
  const last = (name: string): Opt | undefined => [...opts].reverse().find((o) => o.name === name);
  const typeOpt = last('model_type');
  const typeName = known(typeOpt)?.toLowerCase();
  const entry = typeName !== undefined ? SWIFT2_MODEL_TYPES[typeName] : undefined;
  if (entry === undefined && !V2_ONLY.some((n) => last(n))) return false;
  if (typeOpt?.value && !last('model_id_or_path') && !last('model')) {
    const value: FactValue | Unknown =
      typeOpt.value.unknown !== undefined
        ? { unknown: typeOpt.value.unknown }
        : (entry?.[0] ?? {
            unknown: `swift 2.x model type ${typeName ?? ''}: not a text model whose checkpoint is in the built-in catalog; pass --model_id_or_path`,
          });
    l.fact('model', typeOpt.rawKey, typeOpt.keySpan, typeOpt.value.span, value, 'ms-swift');
  }
  swift2Targets(l, last('lora_target_modules'), entry?.[1], sub, defaults);
  swift2Dtype(l, last('dtype'), sub, defaults);
  if (defaults) swift2Transformers(l, sub);
  if (defaults && !last('max_length'))
    defaultFact(l, 'seqLen', 'max_length', sub, 2048, 'max_length: 2048 (swift 2.x default)');
  return true;
}

/**
 * The transformers release a swift 2.x command runs: a 4.x one, which ms-swift 2.x pins (transformers>=4.33,<4.40 in
 * modelscope/ms-swift@003ee51 requirements/framework.txt; later 2.x releases allowed the 4.4x of late 2024), years before
 * transformers 5. 4.45 stands in, an assumption a pin in the project overrides: under transformers 5 a MoE model's
 * experts would be fused parameters that LoRA on all linear layers does not reach.
 */
function swift2Transformers(l: Launch, sub: Span): void {
  l.r.facts.push({
    key: 'transformersVersion',
    rawKey: 'swift',
    value: SWIFT2_TRANSFORMERS,
    rawValue: 'swift 2.x',
    keySpan: sub,
    valueSpan: sub,
    tool: 'ms-swift',
    origin: 'call-default',
    defaultNote:
      `ms-swift 2.x's flags date the run to a transformers 4 release (ms-swift 2.x pinned transformers from <4.40 on): ` +
      `${SWIFT2_TRANSFORMERS} is assumed; set transformers_version`,
  });
}

/** The transformers release a swift 2.x command is taken to run (swift2Transformers). */
const SWIFT2_TRANSFORMERS = '4.45';

/** `--lora_target_modules` of swift 2.x: ALL is every linear layer, DEFAULT (and AUTO, its default) the type's LoRATM. */
function swift2Targets(l: Launch, o: Opt | undefined, group: string | undefined, sub: Span, defaults: boolean): void {
  const fallback = group !== undefined ? SWIFT2_LORA_DEFAULTS[group] : undefined;
  if (!o?.value) {
    if (defaults && fallback)
      defaultFact(
        l,
        'loraTargets',
        'lora_target_modules',
        sub,
        fallback,
        `lora_target_modules: DEFAULT (${fallback.join(', ')})`,
      );
    return;
  }
  if (o.value.unknown !== undefined)
    return l.fact('loraTargets', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'ms-swift');
  const items = (o.value.items ?? o.value.text.split(/[\s,]+/)).map((x) => x.trim()).filter((x) => x);
  const upper = items.map((x) => x.toUpperCase());
  if (upper.includes('ALL')) return l.fact('loraTargets', o.rawKey, o.keySpan, o.value.span, 'all-linear', 'ms-swift');
  const named = items.filter((_x, k) => upper[k] !== 'DEFAULT' && upper[k] !== 'AUTO');
  const wantsDefault = named.length < items.length;
  if (wantsDefault && !fallback) {
    const why = "DEFAULT is the LoRATM of swift 2.x's model type, which is not known here: name the modules";
    return l.fact('loraTargets', o.rawKey, o.keySpan, o.value.span, { unknown: why }, 'ms-swift');
  }
  const targets = wantsDefault ? [...fallback!, ...named] : named;
  l.fact('loraTargets', o.rawKey, o.keySpan, o.value.span, targets, 'ms-swift');
}

/** `--dtype bf16|fp16|fp32|AUTO` of swift 2.x: the weights' dtype and autocast in it (fp32: none). */
function swift2Dtype(l: Launch, o: Opt | undefined, sub: Span, defaults: boolean): void {
  const t = o ? known(o)?.toLowerCase() : 'auto';
  const pair: Record<string, readonly [string, string]> = {
    bf16: ['bf16', 'bf16'],
    fp16: ['fp16', 'fp16'],
    fp32: ['fp32', 'none'],
  };
  if (t === 'auto' || t === undefined) {
    if (o?.value?.unknown !== undefined)
      l.fact('weightsDtype', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'ms-swift');
    else if (defaults || o) {
      const at = o?.value?.span ?? sub;
      const note = 'dtype: AUTO (swift 2.x: bf16 where the GPU supports it, else fp16)';
      defaultFact(l, 'weightsDtype', 'dtype', at, 'bf16', note);
      defaultFact(l, 'mixedPrecision', 'dtype', at, 'bf16', note);
    }
    return;
  }
  const p = pair[t];
  if (!o?.value || !p) return;
  l.fact('weightsDtype', o.rawKey, o.keySpan, o.value.span, p[0], 'ms-swift');
  l.fact('mixedPrecision', o.rawKey, o.keySpan, o.value.span, p[1], 'ms-swift');
}
