// verl's configuration read from its overrides (`key=value`, as a launch line or a config YAML gives them): the FSDP
// workers' training step is the estimate: the actor under FSDP1 or FSDP2 with its fp32 master weights, bf16 compute
// and AdamW, and for PPO the rollout in a colocated vLLM / SGLang engine that releases its memory while the actor
// trains. verl's defaults that the overrides leave out are facts with origin 'call-default' and their source, said
// where the run starts (the module of the launch line, the top of the YAML); the others are TOOL_DEFAULTS.verl.
// Sources: volcengine/verl@b178a3c (verl/trainer/config/_generated_ppo_trainer.yaml, sft_trainer.yaml,
// verl/workers/fsdp_workers.py, verl/trainer/fsdp_sft_trainer.py). Pure: no I/O, no node:*, no 'vscode'.
import { msg, type CanonicalKey, type FactValue, type Span, type Unknown } from '../facts';
import { known, type Opt } from '../shell/args';
import { isNumberText, spec, toBool, type FlagSpec } from '../shell/flags';
import type { Launch } from '../shell/launch';

export const VERL_SOURCE = 'volcengine/verl@b178a3c';
const PPO_CONFIG = `${VERL_SOURCE}:verl/trainer/config/_generated_ppo_trainer.yaml`;
const SFT_CONFIG = `${VERL_SOURCE}:verl/trainer/config/sft_trainer.yaml`;
const SFT_ENGINE_CONFIG = `${VERL_SOURCE}:verl/trainer/config/sft_trainer_engine.yaml`;
const WORKERS = `${VERL_SOURCE}:verl/workers/fsdp_workers.py`;

/** 'sft': fsdp_sft_trainer and its forks; 'sft-engine': the engine-based sft_trainer (sft_trainer_engine.yaml). */
export type VerlCommand = 'ppo' | 'sft' | 'sft-engine';

/** The verl entry point of a module (`verl.trainer.main_ppo`) or script path (`verl/trainer/main_ppo.py`). */
export function verlCommand(script: string): VerlCommand | undefined {
  const s = script.replace(/\.py$/, '').replace(/\//g, '.');
  if (/(^|\.)verl\.trainer\.main_ppo(_\w+)?$/.test(s) || /(^|\.)recipe\.(\w+\.)+main_\w+$/.test(s)) return 'ppo';
  if (/(^|\.)verl\.trainer\.sft_trainer$/.test(s)) return 'sft-engine';
  // A fork's copy under its own name reads as verl's (Parallel-R1's verl.trainer.fsdp_parallel_sft_trainer).
  if (/(^|\.)verl\.trainer\.(\w+_)?sft_trainer(_\w+)?$/.test(s)) return 'sft';
  return undefined;
}

const gcOf = (v: FactValue): Array<[CanonicalKey, FactValue]> => [['gradientCheckpointing', v ? 'full' : 'none']];
const DTYPES: Record<string, FactValue> = {
  fp32: 'fp32',
  float32: 'fp32',
  bf16: 'bf16',
  bfloat16: 'bf16',
  fp16: 'fp16',
  float16: 'fp16',
};
const dtypeOf = (v: FactValue): Array<[CanonicalKey, FactValue]> | undefined => {
  const d = DTYPES[String(v).toLowerCase()];
  return d === undefined ? undefined : [['weightsDtype', d]];
};
/** `strategy=fsdp|fsdp2`: torch's FullyShardedDataParallel or fully_shard; Megatron is said apart. */
const strategyOf = (v: FactValue): Array<[CanonicalKey, FactValue]> | undefined =>
  v === 'fsdp' ? [['fsdpVersion', 1]] : v === 'fsdp2' ? [['fsdpVersion', 2]] : v === 'megatron' ? [] : undefined;
/** Hydra's list (`[q_proj,v_proj]`) or one name (`all-linear`). */
const targetsOf = (v: FactValue): Array<[CanonicalKey, FactValue]> => {
  const items = String(v)
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((x) => x.trim().replace(/^['"]|['"]$/g, ''))
    .filter((x) => x);
  return [['loraTargets', items.length === 1 && items[0] === 'all-linear' ? 'all-linear' : items]];
};
const whenTrue =
  (...facts: Array<[CanonicalKey, FactValue]>): FlagSpec['conv'] =>
  (v) =>
    v === true ? facts : [];

/** The overrides read through a spec, for both entry points (the SFT trainer's own names are below). */
const PPO_KEYS: Record<string, FlagSpec> = {
  'actor_rollout_ref.model.path': spec('model', 'str'),
  'actor_rollout_ref.model.lora_alpha': spec('loraAlpha', 'num'),
  'actor_rollout_ref.model.target_modules': spec('loraTargets', 'str', targetsOf),
  'actor_rollout_ref.model.enable_gradient_checkpointing': spec('gradientCheckpointing', 'bool', gcOf),
  'actor_rollout_ref.model.enable_activation_offload': spec('activationOffloading', 'bool'),
  'actor_rollout_ref.model.use_liger': spec('kernels', 'bool', whenTrue(['kernels', 'liger'])),
  'actor_rollout_ref.actor.strategy': spec('fsdpVersion', 'str', strategyOf),
  'actor_rollout_ref.actor.fsdp_config.model_dtype': spec('weightsDtype', 'str', dtypeOf),
  'actor_rollout_ref.actor.fsdp_config.offload_policy': spec('fsdpOffload', 'bool'),
  // verl moves AdamW's states to the host after the actor's update and back before the next (fsdp_workers.py).
  'actor_rollout_ref.actor.fsdp_config.optimizer_offload': spec('optimizerStatesGpu', 'bool', (v) => [
    ['optimizerStatesGpu', v === true ? 'training' : 'always'],
  ]),
  // verl moves the actor's FSDP shards to the host once the engine has its weights, back for the passes that score
  // and train (fsdp_workers.py rollout_mode / generate_sequences, offload_fsdp_model_to_cpu).
  'actor_rollout_ref.actor.fsdp_config.param_offload': spec('weightsGpu', 'bool', (v) => [
    ['weightsGpu', v === true ? 'training' : 'always'],
  ]),
  'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu': spec('microBatchSize', 'int'),
  'actor_rollout_ref.actor.ppo_epochs': spec('numIterations', 'int'),
  // Ulysses: each sequence's tokens split over the group's GPUs (all-to-all around attention), FSDP still over all.
  'actor_rollout_ref.actor.ulysses_sequence_parallel_size': spec('contextParallel', 'int'),
  'actor_rollout_ref.actor.freeze_vision_tower': spec('visionTowerTrained', 'bool', (v) => [
    ['visionTowerTrained', !v],
  ]),
  'actor_rollout_ref.rollout.gpu_memory_utilization': spec('vllmMemoryFraction', 'num'),
  'actor_rollout_ref.rollout.tensor_model_parallel_size': spec('vllmTensorParallel', 'int'),
  'actor_rollout_ref.rollout.free_cache_engine': spec('vllmSleep', 'bool'),
  'actor_rollout_ref.rollout.n': spec('numGenerations', 'int'),
  'data.max_prompt_length': spec('promptLen', 'int'),
  'data.max_response_length': spec('completionLen', 'int'),
  'trainer.n_gpus_per_node': spec('gpusPerNode', 'int'),
  'trainer.nnodes': spec('nodes', 'int'),
};
const SFT_KEYS: Record<string, FlagSpec> = {
  'model.partial_pretrain': spec('model', 'str'),
  'model.lora_alpha': spec('loraAlpha', 'num'),
  'model.target_modules': spec('loraTargets', 'str', targetsOf),
  'model.enable_gradient_checkpointing': spec('gradientCheckpointing', 'bool', gcOf),
  'model.use_liger': spec('kernels', 'bool', whenTrue(['kernels', 'liger'])),
  'model.strategy': spec('fsdpVersion', 'str', strategyOf),
  'model.fsdp_config.model_dtype': spec('weightsDtype', 'str', dtypeOf),
  // Before micro_batch_size_per_gpu (TinyZero's verl): the same per-GPU count (fsdp_sft_trainer.py split it so).
  'data.micro_batch_size': spec('microBatchSize', 'int'),
  'data.micro_batch_size_per_gpu': spec('microBatchSize', 'int'),
  'data.train_batch_size': spec('trainBatchSize', 'int'),
  'data.max_length': spec('seqLen', 'int'),
  ulysses_sequence_parallel_size: spec('contextParallel', 'int'),
};

/** The engine-based SFT trainer's keys (model/hf_model.yaml under `model`, engine/fsdp.yaml under `engine`). */
const SFT_ENGINE_KEYS: Record<string, FlagSpec> = {
  'model.path': spec('model', 'str'),
  'model.lora_alpha': SFT_KEYS['model.lora_alpha'],
  'model.target_modules': SFT_KEYS['model.target_modules'],
  'model.enable_gradient_checkpointing': SFT_KEYS['model.enable_gradient_checkpointing'],
  'model.use_liger': SFT_KEYS['model.use_liger'],
  'engine.strategy': spec('fsdpVersion', 'str', strategyOf),
  'engine.model_dtype': spec('weightsDtype', 'str', dtypeOf),
  'engine.ulysses_sequence_parallel_size': spec('contextParallel', 'int'),
  'data.train_batch_size': SFT_KEYS['data.train_batch_size'],
  'data.max_length': SFT_KEYS['data.max_length'],
};

/** Overrides that change the memory in a way the estimate does not model: said where they are written. */
const NOT_MODELED: Record<string, (v: string) => string | undefined> = {
  'reward_model.enable': (v) =>
    toBool(v) ? "a model-based reward model's weights and forward are not counted" : undefined,
};

/** What one command reads: its spec table, the keys of its LoRA rank and its defaults' source. */
interface CommandKeys {
  readonly specs: Record<string, FlagSpec>;
  readonly rank: string;
  readonly source: string;
}
const COMMANDS: Record<VerlCommand, CommandKeys> = {
  ppo: { specs: PPO_KEYS, rank: 'actor_rollout_ref.model.lora_rank', source: PPO_CONFIG },
  sft: { specs: SFT_KEYS, rank: 'model.lora_rank', source: SFT_CONFIG },
  'sft-engine': { specs: SFT_ENGINE_KEYS, rank: 'model.lora_rank', source: SFT_ENGINE_CONFIG },
};

/**
 * Whose PPO trainer reads the overrides: verl's, or a fork that keeps its workers under other key names and defaults
 * (EasyR1: easyr1.ts). The overrides are given in verl's names; `names` gives back the ones the files write.
 */
export interface Dialect {
  /** Whose defaults these are, as a default fact says it (`verl default`). */
  readonly name: string;
  /** Where the defaults are stated. */
  readonly source: string;
  /** verl's key -> its value when the run does not set it; absent where there is none (verl stops without it). */
  readonly defaults: Readonly<Record<string, FactValue>>;
  /** verl's key -> the key the run's files write; absent where it is verl's own. */
  readonly names: Readonly<Record<string, string>>;
  /** Why the engine sleeps while the actor trains, where the fork has no free_cache_engine. */
  readonly sleepNote?: string;
  /** The fork's own keys that change the memory in a way the estimate does not model, by the fork's name. */
  readonly notModeled?: Readonly<Record<string, (value: string) => string | undefined>>;
  /** The reference policy's facts, where the fork keeps it otherwise than verl. */
  readonly reference?: (line: VerlLine) => void;
}

/** verl's SFT trainer (fsdp_sft_trainer): the defaults of sft_trainer.yaml. */
const SFT_DIALECT: Dialect = {
  name: 'verl',
  source: SFT_CONFIG,
  defaults: { 'data.micro_batch_size_per_gpu': 4, 'data.train_batch_size': 256, 'data.max_length': 1024 },
  names: {},
};

export const VERL_DIALECT: Dialect = {
  name: 'verl',
  source: PPO_CONFIG,
  defaults: {
    'trainer.n_gpus_per_node': 8,
    'trainer.nnodes': 1,
    'data.max_prompt_length': 512,
    'data.max_response_length': 512,
    'data.train_batch_size': 1024,
    'actor_rollout_ref.rollout.n': 1,
    'actor_rollout_ref.actor.ppo_epochs': 1,
    'actor_rollout_ref.actor.ppo_mini_batch_size': 256,
    'actor_rollout_ref.actor.ppo_max_token_len_per_gpu': 16384,
    'actor_rollout_ref.rollout.gpu_memory_utilization': 0.5,
    'actor_rollout_ref.rollout.tensor_model_parallel_size': 2,
    'actor_rollout_ref.rollout.free_cache_engine': true,
    'algorithm.adv_estimator': 'gae',
  },
  names: {},
};

/** The canonical key an override's spec gives, if it has one. */
export const specKeyOf = (command: VerlCommand, name: string): CanonicalKey | undefined =>
  COMMANDS[command].specs[name]?.key;

/** The reading of one run: where its facts go, its overrides (the last of a key wins), and where defaults are said. */
export interface VerlLine {
  readonly l: Launch;
  readonly opts: readonly Opt[];
  /** Where the run starts (the module on the launch line, the top of a YAML): verl's defaults are said there. */
  readonly at: Span;
  readonly command: VerlCommand;
  /** The overrides whose own facts are said here (all of them unless given): a YAML leaves the launch line's to it. */
  readonly emitted?: readonly Opt[];
  /** verl's unless given. */
  readonly dialect?: Dialect;
  /** Only the overrides' own facts: the config file they override says the defaults and the arithmetic. */
  readonly overridesOnly?: boolean;
}

const dialectOf = (line: VerlLine): Dialect => line.dialect ?? VERL_DIALECT;
/** The key the run's files write for one of verl's. */
export const shown = (line: VerlLine, name: string): string => dialectOf(line).names[name] ?? name;
/** A number the run sets (undefined when it sets it to a value not known statically), else the dialect's default. */
function intOrDefault(line: VerlLine, name: string): number | undefined {
  const o = last(line, name);
  if (o) return intOf(o);
  const d = dialectOf(line).defaults[name];
  return typeof d === 'number' ? d : undefined;
}

/** The facts of one verl run from its overrides: each key through its spec, then verl's defaults and arithmetic. */
export function verlRun(line: VerlLine): void {
  const { l } = line;
  l.tool('verl');
  const keys = COMMANDS[line.command];
  for (const o of line.emitted ?? line.opts) {
    const s = keys.specs[o.name];
    if (s) l.spec(s, o, 'verl');
    else if (o.name === keys.rank) rankFacts(l, o);
    else notModeledAt(l, o, dialectOf(line));
  }
  l.r.training = true;
  if (line.overridesOnly) return;
  if (line.command === 'ppo') ppoDefaults(line);
  else if (line.command === 'sft') sftDefaults(line);
  else sftEngineDefaults(line);
}

export function megatron(l: Launch, span: Span, rawKey: string): void {
  l.warnNotModeled(
    msg('{0}: {1}', rawKey, "verl's Megatron workers are not modeled: the estimate is the FSDP workers' step"),
    span,
    rawKey,
  );
}

function notModeledAt(l: Launch, o: Opt, dialect: Dialect): void {
  const text = known(o);
  const why = text === undefined ? undefined : (NOT_MODELED[o.name] ?? dialect.notModeled?.[o.name])?.(text);
  if (why) l.warnNotModeled(msg('{0}: {1}', o.rawKey, why), o.keySpan, o.rawKey);
}

/** `lora_rank=N`: LoRA above 0 (get_peft_model with these LoraConfig fields), full fine-tuning at 0. */
function rankFacts(l: Launch, o: Opt): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined)
    return l.fact('loraR', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'verl');
  const t = o.value.text.trim();
  if (!/^\d+$/.test(t)) return l.invalid(o, 'an integer');
  const r = Number(t);
  if (r > 0) l.fact('loraR', o.rawKey, o.keySpan, o.value.span, r, 'verl');
  l.fact('method', o.rawKey, o.keySpan, o.value.span, r === 0 ? 'full' : 'lora', 'verl');
}

/** The last override of `name`, if given. */
const last = (line: VerlLine, name: string): Opt | undefined => [...line.opts].reverse().find((o) => o.name === name);
/** An override's whole-number value, when it is known. */
function intOf(o: Opt | undefined): number | undefined {
  const t = known(o);
  return t !== undefined && isNumberText(t) && Number.isInteger(Number(t)) ? Number(t) : undefined;
}

/** A default of verl's made explicit at the module (origin 'call-default'), with where it is stated. */
function defaultFact(
  line: VerlLine,
  key: CanonicalKey,
  rawKey: string,
  value: FactValue | Unknown,
  note: string,
): void {
  const text = typeof value === 'object' && value !== null ? '?' : String(value);
  line.l.toolDefault({
    key,
    rawKey,
    value,
    rawValue: `${rawKey}=${text} (${dialectOf(line).name} default)`,
    at: line.at,
    tool: 'verl',
    note,
  });
}

/** A default stated once in the trainer's config, unless the run gives the key (named as the run's files write it). */
function unlessGiven(line: VerlLine, name: string, key: CanonicalKey): void {
  const value = dialectOf(line).defaults[name];
  if (last(line, name) || value === undefined) return;
  const written = shown(line, name);
  defaultFact(line, key, written, value, `${written} defaults to ${String(value)} (${dialectOf(line).source})`);
}

/** The sharding every verl FSDP worker uses: FULL_SHARD over all GPUs, unless reshard_after_forward says otherwise. */
function shardingFacts(line: VerlLine, prefix: string, strategyDefault: 1 | 2, source: string): void {
  const reshard = last(line, `${prefix}.reshard_after_forward`);
  const noReshard = reshard !== undefined && toBool(known(reshard) ?? '') === false;
  const fsdp = noReshard ? 'shard_grad_op' : 'full_shard';
  if (reshard?.value && known(reshard) !== undefined)
    line.l.fact('fsdp', reshard.rawKey, reshard.keySpan, reshard.value.span, fsdp, 'verl');
  else
    defaultFact(
      line,
      'fsdp',
      `${prefix}.reshard_after_forward`,
      fsdp,
      `verl shards the model with FSDP over all GPUs, FULL_SHARD with reshard_after_forward true (${source})`,
    );
  const size = intOf(last(line, `${prefix}.fsdp_size`));
  if (size !== undefined && size > 0) {
    const o = last(line, `${prefix}.fsdp_size`)!;
    line.l.fact('fsdpShardSize', o.rawKey, o.keySpan, o.value!.span, size, 'verl');
  }
  const strategyKey =
    line.command === 'ppo'
      ? 'actor_rollout_ref.actor.strategy'
      : line.command === 'sft'
        ? 'model.strategy'
        : 'engine.strategy';
  const strategy = last(line, strategyKey);
  if (!strategy)
    defaultFact(
      line,
      'fsdpVersion',
      strategyKey,
      strategyDefault,
      `${strategyKey} defaults to ${strategyDefault === 1 ? 'fsdp' : 'fsdp2'} (${source})`,
    );
  else if (known(strategy) === 'megatron') megatron(line.l, strategy.keySpan, strategy.rawKey);
}

/** PPO / GRPO (main_ppo): verl's defaults, the batch arithmetic, the rollout engine, the reference and the critic. */
function ppoDefaults(line: VerlLine): void {
  const { l } = line;
  shardingFacts(line, 'actor_rollout_ref.actor.fsdp_config', 1, PPO_CONFIG);
  defaultFact(
    line,
    'rollout',
    'algorithm.adv_estimator',
    'grpo',
    `verl's PPO trainer: generation, then the actor's update (${VERL_SOURCE}:verl/trainer/ppo/ray_trainer.py)`,
  );
  unlessGiven(line, 'trainer.n_gpus_per_node', 'gpusPerNode');
  unlessGiven(line, 'trainer.nnodes', 'nodes');
  unlessGiven(line, 'data.max_prompt_length', 'promptLen');
  unlessGiven(line, 'data.max_response_length', 'completionLen');
  unlessGiven(line, 'actor_rollout_ref.rollout.n', 'numGenerations');
  unlessGiven(line, 'actor_rollout_ref.actor.ppo_epochs', 'numIterations');
  unlessGiven(line, 'actor_rollout_ref.rollout.gpu_memory_utilization', 'vllmMemoryFraction');
  unlessGiven(line, 'actor_rollout_ref.rollout.tensor_model_parallel_size', 'vllmTensorParallel');
  unlessGiven(line, 'actor_rollout_ref.model.lora_alpha', 'loraAlpha');
  if (!last(line, 'actor_rollout_ref.actor.freeze_vision_tower')) {
    const written = shown(line, 'actor_rollout_ref.actor.freeze_vision_tower');
    line.l.toolDefault({
      key: 'visionTowerTrained',
      rawKey: written,
      value: true,
      rawValue: `${written}=false (${dialectOf(line).name} default)`,
      at: line.at,
      tool: 'verl',
      note: `${written} defaults to false: a vision-language model's vision tower trains too (${dialectOf(line).source})`,
    });
  }
  if (!last(line, 'actor_rollout_ref.rollout.free_cache_engine'))
    defaultFact(
      line,
      'vllmSleep',
      shown(line, 'actor_rollout_ref.rollout.free_cache_engine'),
      true,
      dialectOf(line).sleepNote ??
        `free_cache_engine defaults to true: the engine releases its weights and KV cache while the actor trains (${PPO_CONFIG})`,
    );
  defaultFact(
    line,
    'vllmSharedWeights',
    'actor_rollout_ref.rollout',
    false,
    `the engine holds its own bf16 copy of the weights, synced from the actor before each rollout (${WORKERS})`,
  );
  engineFacts(line);
  (dialectOf(line).reference ?? referenceFacts)(line);
  batchFacts(line);
  const adv = last(line, 'algorithm.adv_estimator');
  const estimator = adv ? known(adv) : dialectOf(line).defaults['algorithm.adv_estimator'];
  if (estimator === 'gae' || last(line, 'critic.model.path')) {
    const span = adv?.keySpan ?? line.at;
    const rawKey = adv?.rawKey ?? 'algorithm.adv_estimator';
    l.warnNotModeled(
      msg(
        '{0}: {1}',
        rawKey,
        `${adv ? 'gae' : 'gae (the default)'} trains a critic beside the actor on the same GPUs; its FSDP weights, ` +
          'gradients and AdamW states are not counted, so the estimate is the actor alone',
      ),
      span,
      rawKey,
    );
  }
}

/**
 * The rollout engine: rollout.name vllm or sglang is an engine colocated with the actor (hybrid_engine), hf is the
 * actor's own generate(). Current verl requires the name; releases before 0.5 defaulted to vllm.
 */
function engineFacts(line: VerlLine): void {
  const { l } = line;
  const name = last(line, 'actor_rollout_ref.rollout.name');
  const text = known(name);
  if (name?.value && text !== undefined) {
    const engine = text === 'vllm' || text === 'sglang';
    l.fact('useVllm', name.rawKey, name.keySpan, name.value.span, engine, 'verl');
    if (engine) l.fact('vllmMode', name.rawKey, name.keySpan, name.value.span, 'colocate', 'verl');
    return;
  }
  if (name?.value) {
    // vllm and sglang are both engines colocated with the actor; the 'hf' rollout is rare: one of them is assumed.
    const why = `${name.rawKey} is not known statically: a colocated vLLM / SGLang engine assumed (${PPO_CONFIG})`;
    l.fact('useVllm', name.rawKey, name.keySpan, name.value.span, true, 'verl', why);
    l.fact('vllmMode', name.rawKey, name.keySpan, name.value.span, 'colocate', 'verl', why);
    return;
  }
  const engine = dialectOf(line).defaults['actor_rollout_ref.rollout.name'];
  const written = shown(line, 'actor_rollout_ref.rollout.name');
  const note =
    engine === undefined
      ? `rollout.name has no default in current verl (the run stops without it); releases before 0.5 used vllm (${PPO_CONFIG})`
      : `${written} defaults to ${String(engine)}, colocated with the actor (${dialectOf(line).source})`;
  defaultFact(line, 'useVllm', written, true, note);
  defaultFact(line, 'vllmMode', written, 'colocate', note);
}

/**
 * The reference policy (use_kl_loss or use_kl_in_reward): verl wraps it with FSDP's CPU offload (FSDP1 CPUOffload,
 * FSDP2 CPUOffloadPolicy, fsdp_workers.py _build_model_optimizer) and scores with it in a pass of its own, so it holds
 * no GPU memory during the actor's update; with LoRA it is the actor with its adapters off.
 */
function referenceFacts(line: VerlLine): void {
  const kl = [last(line, 'actor_rollout_ref.actor.use_kl_loss'), last(line, 'algorithm.use_kl_in_reward')];
  const on = kl.find((o) => o && toBool(known(o) ?? '') === true);
  const note =
    'the reference policy is kept on the CPU (FSDP CPU offload, forced for it in ' +
    `${WORKERS}) and scores in a pass of its own: it is not counted beside the actor's update`;
  if (on?.value) line.l.fact('klBeta', on.rawKey, on.keySpan, on.value.span, 0, 'verl', note);
  else
    defaultFact(
      line,
      'klBeta',
      'actor_rollout_ref.actor.use_kl_loss',
      0,
      `use_kl_loss defaults to false (${PPO_CONFIG})`,
    );
}

/** The counts of a verl line that its batch arithmetic reads: completions per prompt, GPUs, prompts per round. */
interface VerlCounts {
  readonly n: number | undefined;
  readonly world: number | undefined;
  readonly prompts: number | undefined;
  /** Ulysses group size: a group of sp GPUs shares its sequences. */
  readonly sp: number;
  /** Completions of a round per data-parallel group: what one GPU's update and scoring passes split. */
  readonly round: number | undefined;
}

/**
 * verl's batch arithmetic (fsdp_workers.py _normalize_config): ppo_mini_batch_size prompts x rollout.n over the GPUs
 * per optimizer step, ppo_micro_batch_size_per_gpu sequences per micro-step, so accumulation = mini x n / GPUs /
 * micro; a round generates data.train_batch_size x n completions. use_dynamic_bsz packs ppo_max_token_len_per_gpu
 * tokens per micro-step instead.
 */
function batchFacts(line: VerlLine): void {
  const n = intOrDefault(line, 'actor_rollout_ref.rollout.n');
  const gpus = intOrDefault(line, 'trainer.n_gpus_per_node');
  const nodes = intOrDefault(line, 'trainer.nnodes');
  const world = gpus !== undefined && nodes !== undefined ? gpus * nodes : undefined;
  const tbs = last(line, 'data.train_batch_size');
  const prompts = intOrDefault(line, 'data.train_batch_size');
  if (prompts !== undefined && n !== undefined) {
    const written = shown(line, 'data.train_batch_size');
    const note = `${written} (${prompts} prompts${tbs ? '' : ', the default'}) x rollout.n (${n}) completions per round`;
    if (tbs?.value) line.l.fact('generationBatchSize', tbs.rawKey, tbs.keySpan, tbs.value.span, prompts * n, 'verl');
    else defaultFact(line, 'generationBatchSize', written, prompts * n, `${note} (${dialectOf(line).source})`);
  }
  const dynamic = last(line, 'actor_rollout_ref.actor.use_dynamic_bsz');
  const seq = promptPlusResponse(line);
  const sp = intOf(last(line, 'actor_rollout_ref.actor.ulysses_sequence_parallel_size')) ?? 1;
  const round =
    prompts !== undefined && n !== undefined && world !== undefined ? (prompts * n) / (world / sp) : undefined;
  const counts: VerlCounts = { n, world, prompts, sp, round };
  scoringBatch(line, counts);
  if (dynamic && toBool(known(dynamic) ?? '') === true) return dynamicMicro(line, dynamic, seq, sp);
  const micro = last(line, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu');
  const globalMicro = last(line, 'actor_rollout_ref.actor.ppo_micro_batch_size');
  let microValue = intOf(micro);
  if (!micro && globalMicro?.value) {
    const g = intOf(globalMicro);
    const v: FactValue | Unknown =
      g !== undefined && world !== undefined
        ? Math.max(1, Math.floor(g / (world / sp)))
        : { unknown: `${globalMicro.rawKey} / GPUs: not known statically` };
    line.l.fact('microBatchSize', globalMicro.rawKey, globalMicro.keySpan, globalMicro.value.span, v, 'verl');
    microValue = typeof v === 'number' ? v : undefined;
  } else if (!micro && dialectOf(line).defaults['actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu'] !== undefined) {
    unlessGiven(line, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu', 'microBatchSize');
    microValue = intOrDefault(line, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu');
  } else if (!micro)
    line.l.r.problems.push({
      code: 'invalid-value',
      severity: 'warning',
      ...msg(
        '{0}: {1}',
        'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu',
        'not set, and verl stops without it (or ppo_micro_batch_size, or use_dynamic_bsz)',
      ),
      span: line.at,
      rawKey: 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu',
    });
  accumulation(line, counts, microValue, !micro && globalMicro?.value !== undefined);
}

/**
 * Accumulation = the mini-batch's sequences per GPU / the micro-batch. With the global micro-batch key, verl 0.1's
 * reading too (Fact.valueInVerl01): its micro-batch of prompts x n, at most the mini-batch, which is at most the round.
 */
function accumulation(line: VerlLine, c: VerlCounts, microValue: number | undefined, global: boolean): void {
  const { n, world, prompts, sp } = c;
  const mini = last(line, 'actor_rollout_ref.actor.ppo_mini_batch_size');
  const miniPrompts = intOrDefault(line, 'actor_rollout_ref.actor.ppo_mini_batch_size');
  if (microValue === undefined || miniPrompts === undefined || n === undefined || world === undefined) return;
  // The update splits the round's train_batch_size prompts into mini-batches: one can hold no more than the round;
  // a Ulysses group of sp GPUs shares its sequences, so the mini-batch is split over world / sp groups.
  const perGpu = (Math.min(miniPrompts, prompts ?? miniPrompts) * n) / (world / sp);
  const gas = Math.max(1, Math.floor(perGpu / microValue));
  const note =
    `${shown(line, 'actor_rollout_ref.actor.ppo_mini_batch_size')} (${miniPrompts}) x rollout.n (${n}) / ` +
    (sp > 1 ? `(${world} GPUs / Ulysses ${sp})` : `${world} GPUs`) +
    ` / micro-batch ${microValue}`;
  // From the line's own values, a setting of the file; from one of verl's defaults, an assumption that says so.
  if (mini?.value && last(line, 'trainer.n_gpus_per_node'))
    line.l.fact('gradientAccumulationSteps', mini.rawKey, mini.keySpan, mini.value.span, gas, 'verl');
  else
    defaultFact(
      line,
      'gradientAccumulationSteps',
      shown(line, 'actor_rollout_ref.actor.ppo_mini_batch_size'),
      gas,
      `${note} (${dialectOf(line).source})`,
    );
  if (!global) return;
  const micro01 = Math.max(1, Math.min(microValue * n, Math.floor(perGpu)));
  inVerl01(line, 'microBatchSize', micro01);
  inVerl01(line, 'gradientAccumulationSteps', Math.max(1, Math.ceil(perGpu / micro01)));
}

/** verl 0.1's value of the last fact of `key` the line made (Fact.valueInVerl01). */
function inVerl01(line: VerlLine, key: CanonicalKey, value: number): void {
  const facts = line.l.r.facts;
  for (let i = facts.length - 1; i >= 0; i--)
    if (facts[i].key === key) {
      facts[i] = { ...facts[i], valueInVerl01: value };
      return;
    }
}

/**
 * The actor's no-grad pass that recomputes the old policy's log-probabilities of a round (compute_log_prob) runs
 * rollout.log_prob_micro_batch_size_per_gpu sequences at a time, or the deprecated global log_prob_micro_batch_size
 * over the GPUs of the data-parallel groups (fsdp_workers.py _normalize_config); not the training micro-batch, and no
 * more than the round's completions on the GPU. verl 0.1 counts the global one in prompts (Fact.valueInVerl01).
 */
function scoringBatch(line: VerlLine, c: VerlCounts): void {
  const perGpu = last(line, 'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu');
  const global = last(line, 'actor_rollout_ref.rollout.log_prob_micro_batch_size');
  const at = perGpu ?? global;
  if (!at?.value) return;
  const given = intOf(at);
  const groups = c.world !== undefined ? c.world / c.sp : undefined;
  const cap = (k: number): number => Math.max(1, c.round !== undefined ? Math.min(k, Math.floor(c.round)) : k);
  const value: FactValue | Unknown =
    given === undefined
      ? { unknown: `${at.rawKey}: not known statically` }
      : at === perGpu
        ? cap(given)
        : groups !== undefined
          ? cap(Math.floor(given / groups))
          : { unknown: `${at.rawKey} / GPUs: not known statically` };
  line.l.fact('scoringBatchSize', at.rawKey, at.keySpan, at.value.span, value, 'verl');
  if (at === global && given !== undefined && groups !== undefined && c.n !== undefined)
    inVerl01(line, 'scoringBatchSize', cap(Math.floor(given / groups) * c.n));
}

/** The longest sequence: max_prompt_length + max_response_length (512 each by default), when both are known. */
function promptPlusResponse(line: VerlLine): number | undefined {
  const a = intOrDefault(line, 'data.max_prompt_length');
  const b = intOrDefault(line, 'data.max_response_length');
  return a !== undefined && b !== undefined ? a + b : undefined;
}

/**
 * use_dynamic_bsz: each micro-step packs up to ppo_max_token_len_per_gpu tokens (16384) per GPU (rearrange_micro_batches
 * balances the round's sequences over ceil(tokens / budget) micro-batches); a Ulysses group of sp GPUs packs sp times as
 * many and splits them (dp_actor.py update_policy). Counted in sequences of the longest length, rounded up: a budget
 * of 32,768 over 17,408-token sequences (agentica-project/deepscaler's 16k run) holds up to 32,768 tokens, near two
 * sequences, not one.
 */
function dynamicMicro(line: VerlLine, dynamic: Opt, seq: number | undefined, sp: number): void {
  const tokensOpt = last(line, 'actor_rollout_ref.actor.ppo_max_token_len_per_gpu');
  const tokens = tokensOpt ? intOf(tokensOpt) : 16384;
  const value: FactValue | Unknown =
    tokens === undefined || seq === undefined
      ? { unknown: 'ppo_max_token_len_per_gpu / (max_prompt_length + max_response_length): not known statically' }
      : Math.max(1, Math.ceil((tokens * sp) / seq));
  const note =
    `use_dynamic_bsz packs up to ${tokens ?? 'ppo_max_token_len_per_gpu'} tokens` +
    (sp > 1 ? ` x Ulysses ${sp} into each micro-step, split over the ${sp} GPUs` : ' into each micro-step') +
    `: estimated as ${typeof value === 'number' ? `${value} sequences` : 'that many tokens'} of the longest length, ` +
    'rounded up' +
    (tokensOpt ? '' : ` (ppo_max_token_len_per_gpu defaults to 16384; ${PPO_CONFIG})`);
  const at = tokensOpt ?? dynamic;
  line.l.fact('microBatchSize', at.rawKey, at.keySpan, at.value?.span ?? at.keySpan, value, 'verl', note);
}

/** The SFT trainer (fsdp_sft_trainer): its defaults, FSDP's own CPU offload, and the torchrun launcher's GPUs. */
function sftDefaults(line: VerlLine): void {
  shardingFacts(line, 'model.fsdp_config', 2, SFT_CONFIG);
  const sft: VerlLine = { ...line, dialect: SFT_DIALECT };
  // Forks before micro_batch_size_per_gpu (TinyZero) name the same per-GPU count data.micro_batch_size.
  if (!last(line, 'data.micro_batch_size')) unlessGiven(sft, 'data.micro_batch_size_per_gpu', 'microBatchSize');
  unlessGiven(sft, 'data.train_batch_size', 'trainBatchSize');
  unlessGiven(sft, 'data.max_length', 'seqLen');
  // SFTDataset pads every sample to max_length (verl/utils/dataset/sft_dataset.py).
  defaultFact(
    line,
    'batchLengths',
    'data.max_length',
    'fixed',
    `SFTDataset pads every sample to max_length (${VERL_SOURCE}:verl/utils/dataset/sft_dataset.py)`,
  );
  // model.fsdp_config.cpu_offload wraps the model with FSDP's CPUOffload(offload_params=offload_params).
  const cpu = last(line, 'model.fsdp_config.cpu_offload');
  const params = last(line, 'model.fsdp_config.offload_params');
  if (cpu?.value && toBool(known(cpu) ?? '') === true) {
    const on = params !== undefined && toBool(known(params) ?? '') === true;
    const at = on ? params : cpu;
    line.l.fact('fsdpOffload', at.rawKey, at.keySpan, at.value!.span, on, 'verl');
  }
}

/** The engine-based SFT trainer's defaults (sft_trainer_engine.yaml, model/hf_model.yaml, engine/fsdp.yaml). */
const SFT_ENGINE_DIALECT: Dialect = {
  name: 'verl',
  source: SFT_ENGINE_CONFIG,
  defaults: { 'data.micro_batch_size_per_gpu': 4, 'data.train_batch_size': 256, 'data.max_length': 1024 },
  names: {},
};

/**
 * The engine-based SFT trainer (`-m verl.trainer.sft_trainer`): FSDP1 (engine.strategy fsdp) over all GPUs, every layer
 * checkpointed (model.enable_gradient_checkpointing true), and data.use_dynamic_bsz on by default: each micro-step
 * packs up to data.max_token_len_per_gpu (8192) tokens, no padding (pad_mode no_padding), counted in sequences of
 * data.max_length, rounded up.
 */
function sftEngineDefaults(line: VerlLine): void {
  shardingFacts(line, 'engine', 1, SFT_ENGINE_CONFIG);
  const sft: VerlLine = { ...line, dialect: SFT_ENGINE_DIALECT };
  unlessGiven(sft, 'data.train_batch_size', 'trainBatchSize');
  unlessGiven(sft, 'data.max_length', 'seqLen');
  if (!last(line, 'model.enable_gradient_checkpointing'))
    defaultFact(
      line,
      'gradientCheckpointing',
      'model.enable_gradient_checkpointing',
      'full',
      `model.enable_gradient_checkpointing defaults to true (${VERL_SOURCE}:verl/trainer/config/model/hf_model.yaml)`,
    );
  const dynamic = last(line, 'data.use_dynamic_bsz');
  if (dynamic && toBool(known(dynamic) ?? '') === false) {
    const micro = last(line, 'data.micro_batch_size_per_gpu');
    if (micro?.value) line.l.spec(SFT_KEYS['data.micro_batch_size_per_gpu'], micro, 'verl');
    else unlessGiven(sft, 'data.micro_batch_size_per_gpu', 'microBatchSize');
    return;
  }
  const budgetOpt = last(line, 'data.max_token_len_per_gpu');
  const budget = budgetOpt ? intOf(budgetOpt) : 8192;
  const seq = intOf(last(line, 'data.max_length')) ?? 1024;
  const value: FactValue | Unknown =
    budget === undefined
      ? { unknown: 'data.max_token_len_per_gpu: not known statically' }
      : Math.max(1, Math.ceil(budget / seq));
  const note =
    `data.use_dynamic_bsz (true by default) packs up to ${budget ?? 'max_token_len_per_gpu'} tokens into each ` +
    `micro-step, without padding: estimated as ${typeof value === 'number' ? `${value} sequence${value === 1 ? '' : 's'}` : 'that many sequences'} of ` +
    `max_length ${seq}, rounded up (max_token_len_per_gpu defaults to 8192; ${SFT_ENGINE_CONFIG})`;
  const at = budgetOpt ?? dynamic;
  if (at) line.l.fact('microBatchSize', at.rawKey, at.keySpan, at.value?.span ?? at.keySpan, value, 'verl', note);
  else defaultFact(line, 'microBatchSize', 'data.use_dynamic_bsz', value, note);
  defaultFact(line, 'batchLengths', 'data.max_token_len_per_gpu', 'fixed', note);
}
