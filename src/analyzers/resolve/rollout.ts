// The rollout of TRL's online trainers: GRPO / RLOO (a round of generated completions per optimizer step, the
// reference, the old policy's log-probabilities, the vLLM engine and reward models) and online DPO (two completions
// per prompt in each micro-step). Each field is the file's or the trainer's default, said in provenance. Pure.
import { msg, rewardModelNotCounted, type CanonicalKey, type FactValue, type Tool } from '../facts';
import type { Provenance } from '../../core';
import { dataParallelWorld } from './batch';
import { fileProv, num, numberOf, type ResolveContext } from './context';
import type { WinningFact } from './types';
import type { Problem } from '../scenario';

/** The rollout of GRPO / RLOO or online DPO, when the files name one of those trainers. A rule of FIELD_RULES. */
export function resolveRollout(ctx: ResolveContext): void {
  if (ctx.decided.rollout) grpoRollout(ctx, dataParallelWorld(ctx.setup));
}

/** A rollout field from its winning fact, or the trainer's default with the note that says so. */
function rolloutValue<T>(
  ctx: ResolveContext,
  key: CanonicalKey,
  field: string,
  fallback: T,
  note: string,
  owner: Tool = 'trl',
): T {
  const { decided, unknownOnly, prov } = ctx;
  const w = decided[key];
  if (w && w.fact.value !== null && typeof w.fact.value !== 'object') {
    prov[`rollout.${field}`] = fileProv(w);
    return w.fact.value as T;
  }
  const u = unknownOnly[key];
  prov[`rollout.${field}`] = {
    kind: 'default',
    owner,
    note: u ? `${u.fact.rawKey} is not known statically (${u.fact.rawValue}); ${note}` : note,
  };
  return fallback;
}

/**
 * The round holds whole groups of num_generations completions: TRL's GRPOConfig raises a ValueError otherwise, and
 * Unsloth raises per_device_train_batch_size to num_generations instead (unsloth rl.py). The group size, if known.
 */
function generationsPerPrompt(ctx: ResolveContext): number | undefined {
  const { decided, tools, setup, prov } = ctx;
  const value = decided.numGenerations?.fact.value;
  const ng = typeof value === 'number' ? value : undefined;
  if (
    ng !== undefined &&
    tools.includes('unsloth') &&
    ((setup.micro_batch_size as number | undefined) ?? 8) % ng !== 0
  ) {
    setup.micro_batch_size = ng;
    prov.micro_batch_size = {
      kind: 'default',
      owner: 'unsloth',
      note: `Unsloth raises per_device_train_batch_size to a multiple of num_generations (${ng})`,
    };
  }
  return ng;
}

/** The GRPO defaults of the trainer that runs it where the files give none: the engine's mode and share, and beta. */
interface GrpoDefaults {
  readonly owner: Tool;
  readonly mode: 'server' | 'colocate';
  readonly modeNote: string;
  readonly fraction: number;
  readonly fractionNote: string;
  readonly beta: number;
  readonly betaNote: string;
}

const TRL_GRPO: GrpoDefaults = {
  owner: 'trl',
  mode: 'server',
  modeNote: 'use_vllm=True generates with a vLLM server on other GPUs unless vllm_mode="colocate"',
  fraction: 0.3,
  fractionNote: 'vllm_gpu_memory_utilization defaults to 0.3',
  beta: 0,
  betaNote: 'GRPOConfig beta defaults to 0.0 (0.04 before TRL 0.19): no reference model is loaded',
};

/**
 * ms-swift's GRPO: vllm_mode colocate and vllm_gpu_memory_utilization 0.9 (swift/trainers/arguments.py
 * GRPOArgumentsMixin, 3.5 to 3.11; 3.12 requires a mode), beta 0.04 where the run gives none (rlhf_args.py).
 */
const SWIFT_GRPO: GrpoDefaults = {
  owner: 'ms-swift',
  mode: 'colocate',
  modeNote:
    "ms-swift's vllm_mode defaults to colocate (3.5 to 3.11; 3.12 requires it): a vLLM engine on each training GPU",
  fraction: 0.9,
  fractionNote: "ms-swift's vllm_gpu_memory_utilization defaults to 0.9 (GRPOArgumentsMixin)",
  beta: 0.04,
  betaNote: "ms-swift's GRPO beta defaults to 0.04: the reference model scores every round",
};

const grpoDefaults = (tools: readonly Tool[]): GrpoDefaults => (tools.includes('ms-swift') ? SWIFT_GRPO : TRL_GRPO);

/** beta: the KL term's weight, whose reference pass RLOO runs by default and GRPO (since TRL 0.19) does not. */
function klBeta(ctx: ResolveContext): number {
  const objective = ctx.decided.rollout?.fact.value;
  if (objective === 'rloo')
    return rolloutValue(
      ctx,
      'klBeta',
      'reference',
      0.05,
      'RLOOConfig beta defaults to 0.05: the reference scores every round',
    );
  const d = objective === 'grpo' ? grpoDefaults(ctx.tools) : TRL_GRPO;
  return rolloutValue(ctx, 'klBeta', 'reference', d.beta, d.betaNote, d.owner);
}

/** A trl vllm-serve line in the launch script: the server's tensor parallelism, memory share and longest sequence. */
function vllmServer(ctx: ResolveContext, r: Record<string, unknown>): void {
  const { decided, prov } = ctx;
  const srvFacts = [decided.vllmServerTp, decided.vllmServerMemoryFraction, decided.vllmServerMaxModelLen];
  if (r.engine !== 'vllm-server' || !srvFacts.some((f) => f !== undefined)) return;
  const maxLen = numberOf(decided.vllmServerMaxModelLen, 0);
  r.vllm_server = {
    tensor_parallel: numberOf(decided.vllmServerTp, 1),
    memory_fraction: numberOf(decided.vllmServerMemoryFraction, 0.9),
    ...(maxLen > 0 ? { max_model_len: maxLen } : {}),
  };
  prov['rollout.vllm_server'] = fileProv(srvFacts.find((f) => f !== undefined)!);
}

/**
 * Where the old policy's log-probabilities come from, said in provenance: recomputed when each round is optimized more
 * than once, when a round serves more micro-batches than one optimizer step, and with vLLM's importance sampling.
 */
function oldLogpsProvenance(ctx: ResolveContext, iterations: number, spg: number | undefined, gas: number): void {
  const { decided, prov } = ctx;
  const why =
    iterations > 1
      ? decided.numIterations
      : (spg ?? gas) > gas
        ? decided.stepsPerGeneration
        : decided.useVllm?.fact.value === true
          ? decided.useVllm
          : undefined;
  prov['rollout.old_logps'] = why
    ? fileProv(why)
    : {
        kind: 'default',
        owner: 'trl',
        note: "one optimization pass per round, one round per optimizer step and no vLLM: the training pass's own log-probabilities serve as the old policy's",
      };
}

/**
 * GRPO (TRL GRPOConfig, trl@006d32c:trl/trainer/grpo_config.py): a round generates per_device_train_batch_size x
 * steps_per_generation completions per GPU (steps_per_generation defaults to gradient_accumulation_steps; a
 * generation_batch_size counts all GPUs); each sequence is the prompt and max_completion_length (256) tokens. beta
 * defaults to 0.0, which loads no reference model. vLLM's mode defaults to "server" (other GPUs) and its colocated
 * share to 0.3 of the GPU. The old policy's log-probabilities are recomputed when a round serves more micro-batches
 * than one optimizer step, when each round is optimized more than once, and with vLLM's importance-sampling correction.
 */
function grpoRollout(ctx: ResolveContext, dpWorld: number): void {
  const { decided, tools, setup, prov } = ctx;
  if (decided.rollout?.fact.value === 'online-dpo') {
    onlineDpo(ctx);
    return;
  }
  const { batch, gas, spg } =
    promptsTimesGenerations(ctx) ?? generationRoundBatch(ctx, dpWorld, generationsPerPrompt(ctx));
  const completion =
    completionFromBudget(ctx) ??
    rolloutValue(ctx, 'completionLen', 'completion_len', 256, 'GRPOConfig max_completion_length defaults to 256');
  rolloutSeqLen(ctx, completion);
  const useVllm = decided.useVllm?.fact.value === true;
  const d = grpoDefaults(tools);
  const engine = engineOf(ctx, d.mode, d.modeNote, d.owner);
  const beta = klBeta(ctx);
  const peftMethod = ['lora', 'qlora', 'ia3'].includes(String(setup.method ?? 'full'));
  const iterations = decided.numIterations ? (num(decided.numIterations.fact.value as FactValue) ?? 1) : 1;
  const r: Record<string, unknown> = {
    batch,
    completion_len: completion,
    engine,
    reference: beta > 0 ? (peftMethod && !decided.referenceModel ? 'adapters-off' : 'copy') : 'none',
    old_logps: iterations > 1 || (spg ?? gas) > gas || useVllm,
    gather_weights: rolloutValue(
      ctx,
      'gatherForGeneration',
      'gather_weights',
      true,
      'ds3_gather_for_generation defaults to True',
    ),
  };
  const scoring = decided.scoringBatchSize;
  if (scoring && typeof scoring.fact.value === 'number') {
    r.scoring_batch = scoring.fact.value;
    prov['rollout.scoring_batch'] = fileProv(scoring);
  }
  if (tools.includes('verl')) {
    r.logps = 'verl';
    prov['rollout.logps'] = {
      kind: 'default',
      owner: 'verl',
      note:
        "verl's actor takes the log-probabilities of every token's logits in the compute dtype with flash-attn's " +
        'cross-entropy (verl/workers/actor/dp_actor.py)',
    };
  }
  vllmServer(ctx, r);
  if (engine === 'vllm-colocate') colocatedEngine(ctx, r, d.fraction, d.fractionNote);
  oldLogpsProvenance(ctx, iterations, spg, gas);
  if (setup.loss === undefined) {
    setup.loss = 'full';
    prov.loss = rolloutLossProvenance(tools);
  }
  finishRollout(ctx, r);
}

/**
 * A GRPO trainer of the project that counts per_device_train_batch_size in prompts (grpo-forks.ts: TRL's rule before
 * 0.15): each micro-step generates num_generations (8) completions of each prompt and trains on them at once, so the
 * micro-batch is prompts x num_generations and the round is that micro-step's own; no group check (the fork has none).
 */
function promptsTimesGenerations(ctx: ResolveContext): { batch: number; gas: number; spg: undefined } | undefined {
  const { decided, setup, prov } = ctx;
  const w = decided.grpoPromptBatch;
  if (w?.fact.value !== true) return undefined;
  const groups = generationsPerPrompt(ctx) ?? 8;
  const prompts = setup.micro_batch_size as number | undefined;
  const micro = (prompts !== undefined && Number.isSafeInteger(prompts) && prompts > 0 ? prompts : 1) * groups;
  const gas = setup.gradient_accumulation_steps as number | undefined;
  const how = `per_device_train_batch_size prompts x num_generations (${groups}): ${w.fact.rawValue} generates them in each step`;
  setup.micro_batch_size = micro;
  prov.micro_batch_size = { kind: 'file', file: w.file, line: w.location.line, key: how };
  prov['rollout.batch'] = { kind: 'file', file: w.file, line: w.location.line, key: how };
  return { batch: micro, gas: gas !== undefined && Number.isSafeInteger(gas) && gas > 0 ? gas : 1, spg: undefined };
}

/** Where the completions of a generation round come from when no file gives them: TRL's rule, or said to stand in. */
function roundBatchDefault(tools: readonly Tool[]): Provenance {
  const other = tools.find((t) => t === 'rl2' || t === 'openrlhf' || t === 'nemo-rl' || t === 'verl');
  if (!other)
    return {
      kind: 'default',
      owner: 'trl',
      note: 'per_device_train_batch_size x steps_per_generation, which defaults to gradient_accumulation_steps',
    };
  return {
    kind: 'default',
    owner: 'vram-lens',
    note:
      `the micro-batch x the accumulation steps, as TRL's per_device_train_batch_size x steps_per_generation: ` +
      `${other}'s own count of the completions its engine generates at once is not read`,
  };
}

/**
 * Completions per GPU in one generation round: generation_batch_size over the GPUs, else per_device_train_batch_size x
 * steps_per_generation (gradient_accumulation_steps unless set). Whole groups of num_generations, or TRL stops.
 */
function generationRoundBatch(
  ctx: ResolveContext,
  dpWorld: number,
  ng: number | undefined,
): { batch: number; gas: number; spg: number | undefined } {
  const { decided, setup, prov, problems } = ctx;
  // Only whole positive counts are counts (a mutated or overflowing literal such as -1e999 reads as -Infinity).
  const count = (n: number | undefined): number | undefined =>
    n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
  const micro = count(setup.micro_batch_size as number | undefined) ?? 1;
  const gas = count(setup.gradient_accumulation_steps as number | undefined) ?? 1;
  const gbs = count(decided.generationBatchSize ? num(decided.generationBatchSize.fact.value as FactValue) : undefined);
  const spg = count(decided.stepsPerGeneration ? num(decided.stepsPerGeneration.fact.value as FactValue) : undefined);
  let batch: number;
  if (gbs !== undefined && Number.isInteger(gbs / dpWorld)) {
    batch = gbs / dpWorld;
    const w = decided.generationBatchSize!;
    prov['rollout.batch'] = { kind: 'file', file: w.file, line: w.location.line, key: `${w.fact.rawKey} / GPUs` };
  } else {
    batch = micro * (spg ?? gas);
    const w = decided.stepsPerGeneration;
    prov['rollout.batch'] = w
      ? { kind: 'file', file: w.file, line: w.location.line, key: `per_device_train_batch_size x ${w.fact.rawKey}` }
      : roundBatchDefault(ctx.tools);
  }
  // num_generations defaults to 8 (GRPOConfig) or 2 (RLOOConfig).
  const groups = ng ?? (decided.rollout?.fact.value === 'rloo' ? 2 : 8);
  const at = decided.numGenerations ?? decided.rollout!;
  // A GPU or node count the files leave open (a variable, or no launcher at all: one GPU is assumed later) is assumed:
  // the run's own count may make whole groups.
  const assumed =
    prov.gpus_per_node === undefined || prov.gpus_per_node.kind === 'default' || prov.nodes?.kind === 'default';
  // A GPU or node count that is no count (`trainer.nnodes=-1e308`) is said at its key by the setup's check.
  const counted = Number.isSafeInteger(dpWorld) && dpWorld > 0 && batch > 0;
  if (counted && (batch * dpWorld) % groups !== 0)
    problems.push(wholeGroupsProblem(at, { batch, dpWorld, groups, assumed }));
  return { batch, gas, spg };
}

/**
 * A generation round that holds no whole number of num_generations groups: TRL's ValueError, or with a GPU count the
 * files leave open, a warning that the run's count must make it whole.
 */
function wholeGroupsProblem(
  at: WinningFact,
  r: { batch: number; dpWorld: number; groups: number; assumed: boolean },
): Problem {
  return {
    ...at.location,
    severity: r.assumed ? 'warning' : 'error',
    code: 'invalid-value',
    key: at.fact.rawKey,
    ...(r.assumed
      ? msg(
          'the generation batch ({0} completions per GPU x {1} GPUs, a GPU count the files leave open) is not a ' +
            'multiple of num_generations ({2}): the run needs a GPU count that makes it one, or the trainer stops ' +
            'with a ValueError',
          r.batch,
          r.dpWorld,
          r.groups,
        )
      : msg(
          'the generation batch ({0} completions per GPU x {1} GPUs) is not a multiple of num_generations ({2}): the trainer stops with a ValueError',
          r.batch,
          r.dpWorld,
          r.groups,
        )),
  };
}

/** The sequence: the longest prompt (max_prompt_length, 512 when unset) and the completion, unless --seq-len says otherwise. */
/**
 * A completion length the files write as a budget less the prompt (`max_seq_length - max_prompt_length`,
 * hf-python/completion-budget.ts) whose prompt length is not known statically: the budget less the prompt length the
 * run has (its file's value, else TRL's 512), said with the budget; undefined where the completion is known, or no
 * budget is written.
 */
function completionFromBudget(ctx: ResolveContext): number | undefined {
  const { decided, prov } = ctx;
  const budget = decided.completionBudget;
  const known = decided.completionLen && typeof decided.completionLen.fact.value === 'number';
  if (!budget || known || typeof budget.fact.value !== 'number') return undefined;
  const promptFact = decided.promptLen;
  const prompt = promptFact && typeof promptFact.fact.value === 'number' ? promptFact.fact.value : 512;
  const completion = Math.max(1, budget.fact.value - prompt);
  const promptSource = promptFact
    ? promptFact.fact.rawKey
    : "TRL's default max_prompt_length, the file's not known statically";
  prov['rollout.completion_len'] = {
    kind: 'default',
    owner: 'trl',
    note:
      `${budget.fact.rawValue}: prompt and completion share ${budget.fact.value} tokens (${budget.file}:` +
      `${budget.location.line}); the prompt takes ${prompt} (${promptSource}), the completion the other ${completion}`,
  };
  return completion;
}

function rolloutSeqLen(ctx: ResolveContext, completion: number): void {
  const { overrides, decided, setup, prov } = ctx;
  // ms-swift's GRPO cuts each prompt to max_length (truncation_strategy left): its prompt limit.
  const swiftPrompt =
    decided.seqLen?.fact.tool === 'ms-swift' && typeof decided.seqLen.fact.value === 'number'
      ? decided.seqLen
      : undefined;
  const promptFact = decided.promptLen ?? swiftPrompt;
  const prompt = promptFact && typeof promptFact.fact.value === 'number' ? promptFact.fact.value : 512;
  // NeMo-RL's max_total_sequence_length is the whole sequence (vLLM's max_model_len too): the file's sequence stands.
  const whole = decided.seqLen?.fact.tool === 'nemo-rl';
  if (overrides.seqLen === undefined && !whole) {
    setup.seq_len = prompt + completion;
    const lens = [promptFact, decided.completionLen].filter((w): w is WinningFact => w !== undefined);
    // ms-swift has no prompt limit of its own: max_length, when the files give none, is the model's longest context.
    const swift = ctx.tools.includes('ms-swift');
    const promptDefault = promptFact
      ? ''
      : swift
        ? " (ms-swift cuts a prompt only at max_length, which defaults to the model's longest context: the dataset's " +
          'prompts set it; 512 stands in, set max_length to the longest prompt)'
        : ' (max_prompt_length: 512 in TRL releases that truncate prompts; set it to the longest prompt)';
    prov.seq_len =
      lens.length === 2
        ? {
            kind: 'file',
            file: lens[1].file,
            line: lens[1].location.line,
            key: `${lens[0].fact.rawKey} + ${lens[1].fact.rawKey}`,
          }
        : {
            kind: 'default',
            owner: !promptFact && swift ? 'VRAM Lens' : 'trl',
            note: `prompt ${prompt}${promptDefault} + completion ${completion} tokens`,
          };
  }
}

/**
 * Online DPO (TRL OnlineDPOConfig / OnlineDPOTrainer, trl@013d375 and later: trl/trainer/online_dpo_trainer.py): each
 * micro-step generates two completions of up to max_new_tokens (64) for every prompt, then runs the policy and the
 * reference over prompt + completion, cut from the left to max_length (512). The reference is a frozen copy of the
 * model, or with PEFT the model with its adapters disabled (beta only weighs it). use_vllm generates in a colocated
 * engine unless vllm_mode says "server", with vllm_gpu_memory_utilization (gpu_memory_utilization before TRL 0.20) 0.55.
 */
function onlineDpo(ctx: ResolveContext): void {
  const { overrides, decided, setup, prov } = ctx;
  prov['rollout.batch'] = { kind: 'default', owner: 'trl', note: 'two completions for each prompt of the micro-batch' };
  const completion = rolloutValue(
    ctx,
    'maxNewTokens',
    'completion_len',
    64,
    'OnlineDPOConfig max_new_tokens defaults to 64',
  );
  if (overrides.seqLen === undefined && setup.seq_len === undefined) {
    setup.seq_len = 512;
    prov.seq_len = {
      kind: 'default',
      owner: 'trl',
      note: 'OnlineDPOConfig max_length defaults to 512: prompt + completion, the prompt cut from the left',
    };
  }
  const engine = engineOf(
    ctx,
    'colocate',
    'use_vllm=True generates in a vLLM engine colocated with the policy unless vllm_mode="server"',
  );
  const peftMethod = ['lora', 'qlora', 'ia3'].includes(String(setup.method ?? 'full'));
  const given = decided.referenceModel;
  prov['rollout.reference'] = given
    ? fileProv(given)
    : {
        kind: 'default',
        owner: 'trl',
        note: peftMethod
          ? 'OnlineDPOTrainer given peft_config and no ref_model: the reference is the model with its adapters disabled'
          : 'OnlineDPOTrainer without ref_model: a frozen copy of the model (create_reference_model)',
      };
  const r: Record<string, unknown> = {
    objective: 'online-dpo',
    batch: 2 * ((setup.micro_batch_size as number | undefined) ?? 1),
    completion_len: completion,
    engine,
    reference: peftMethod && !given ? 'adapters-off' : 'copy',
    old_logps: false,
    gather_weights: rolloutValue(
      ctx,
      'gatherForGeneration',
      'gather_weights',
      true,
      'ds3_gather_for_generation defaults to True',
    ),
  };
  prov['rollout.objective'] = fileProv(decided.rollout!);
  if (engine === 'vllm-colocate')
    colocatedEngine(ctx, r, 0.55, 'OnlineDPOConfig vllm_gpu_memory_utilization defaults to 0.55');
  if (setup.loss === undefined) {
    setup.loss = 'full';
    prov.loss = {
      kind: 'default',
      owner: 'trl',
      note: "OnlineDPOTrainer takes the completions' log-probabilities from the model's logits: one log_softmax over the completion slice",
    };
  }
  finishRollout(ctx, r);
}

/** Where completions are generated: the policy's generate() unless use_vllm, then vllm_mode or the trainer's default mode. */
function engineOf(
  ctx: ResolveContext,
  defaultMode: 'server' | 'colocate',
  note: string,
  owner: Tool = 'trl',
): 'generate' | 'vllm-colocate' | 'vllm-server' {
  const { decided, prov } = ctx;
  const w = decided.useVllm;
  if (w?.fact.value !== true) {
    prov['rollout.engine'] = w
      ? fileProv(w)
      : {
          kind: 'default',
          owner: 'trl',
          note: 'use_vllm defaults to False: the policy generates with transformers on the training GPU',
        };
    return 'generate';
  }
  return rolloutValue<string>(ctx, 'vllmMode', 'engine', defaultMode, note, owner) === 'colocate'
    ? 'vllm-colocate'
    : 'vllm-server';
}

/** A colocated vLLM engine's share of the GPU (each trainer's default), tensor parallelism, sleep mode and weights. */
function colocatedEngine(
  ctx: ResolveContext,
  r: Record<string, unknown>,
  fraction: number,
  fractionNote: string,
): void {
  r.vllm_memory_fraction = rolloutValue(ctx, 'vllmMemoryFraction', 'vllm_memory_fraction', fraction, fractionNote);
  r.vllm_tensor_parallel = rolloutValue(
    ctx,
    'vllmTensorParallel',
    'vllm_tensor_parallel',
    1,
    "vllm_tensor_parallel_size defaults to 1: each GPU's engine holds the whole model",
  );
  r.vllm_sleep = rolloutValue(
    ctx,
    'vllmSleep',
    'vllm_sleep',
    false,
    'vllm_enable_sleep_mode defaults to False: the engine keeps its share while the policy trains',
  );
  r.vllm_shared_weights = rolloutValue(
    ctx,
    'vllmSharedWeights',
    'vllm_shared_weights',
    false,
    "TRL's colocated engine loads its own copy of the weights",
  );
  // Only a project's vendored verl 0.1 says 'free' (collect/vendored-verl.ts); elsewhere the share is of the GPU.
  if (ctx.decided.vllmMemoryOf?.fact.value === 'free') {
    r.vllm_memory_of = 'free';
    ctx.prov['rollout.vllm_memory_of'] = fileProv(ctx.decided.vllmMemoryOf);
  }
}

/** Reward models and the rollout block, shared by GRPO / RLOO and online DPO. */
function finishRollout(ctx: ResolveContext, r: Record<string, unknown>): void {
  const { resolveModel, decided, setup, prov, problems } = ctx;
  // Reward models named by Hub id: resolved like the policy (catalog, model folder, or the Hub when allowed); one that
  // cannot be resolved is a warning at reward_funcs, not counted.
  const rm = decided.rewardModels;
  if (rm && Array.isArray(rm.fact.value)) {
    const models: Array<{ model: string; architecture: Record<string, unknown> }> = [];
    for (const id of rm.fact.value as readonly string[]) {
      const t = resolveModel(id);
      if (t.ok) models.push({ model: id, architecture: t.model.config });
      else
        problems.push({
          ...rm.location,
          severity: 'warning',
          code: 'not-modeled',
          key: rm.fact.rawKey,
          ...rewardModelNotCounted(id, t.message, rm.fact.rawKey),
        });
    }
    r.reward_models = models;
    prov['rollout.reward_models'] = fileProv(rm);
  }
  setup.rollout = r;
  const w = decided.rollout!;
  prov.rollout = fileProv(w);
}

/** Where the rollout's loss comes from: the trainer that takes the completion tokens' log-probabilities. */
function rolloutLossProvenance(tools: readonly Tool[]): Provenance {
  if (tools.includes('nemo-rl'))
    return {
      kind: 'default',
      owner: 'nemo-rl',
      note:
        "NeMo-RL's ClippedPGLossFn takes log_softmax over the fp32 logits of every token; counted as TRL's " +
        "row-by-row log-probabilities of the sequence's tokens (the same for one sequence a micro-batch)",
    };
  if (tools.includes('rl2'))
    return {
      kind: 'default',
      owner: 'rl2',
      note:
        "RL2's actor casts the logits to float32, divides them by the temperature and takes each token's " +
        "log-probability and the entropy from them (RL2/utils/functions.py); counted as TRL's row-by-row " +
        'log-probabilities of the sequence (one packed sequence a micro-batch)',
    };
  if (tools.includes('verl'))
    return {
      kind: 'default',
      owner: 'verl',
      note:
        "verl's actor divides the logits by the temperature and takes each response token's log-probability from them " +
        "(verl/utils/torch_functional.py logprobs_from_logits, workers/actor/dp_actor.py); counted as TRL's row-by-row " +
        'log-probabilities of the sequence',
    };
  if (tools.includes('openrlhf'))
    return {
      kind: 'default',
      owner: 'openrlhf',
      note:
        "OpenRLHF's actor takes the action tokens' log-probabilities from the logits (openrlhf/models/utils.py " +
        "log_probs_from_logits); counted as TRL's row-by-row log-probabilities of the sequence",
    };
  return {
    kind: 'default',
    owner: 'trl',
    note: "the completion tokens' log-probabilities are taken row by row from the logits (selective_log_softmax); use_liger_loss fuses them with the head",
  };
}
