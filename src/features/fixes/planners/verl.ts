// The verl planner (a launch script running verl.trainer.main_ppo or fsdp_sft_trainer, or EasyR1's verl.trainer.main;
// a verl or EasyR1 config YAML: analyzers/verl): a change is an override `key=value` on a launch line, rewritten where
// the line writes it or added after its last override (the trainers' configs take every key, so a new one is safe), or
// the key in a YAML. The SFT trainer's GPU count is the launcher's (the shell planner's); PPO's is
// trainer.n_gpus_per_node. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Planned, op, ok, no, type PlanCtx, type Lora, type Op } from '../ops';
import { str } from './common';

/** The keys a trainer writes for what a change sets; undefined where it has none. */
interface Keys {
  readonly name: string;
  readonly micro: string;
  readonly checkpointing: string;
  readonly rank: string;
  readonly alpha: string;
  readonly targets: string;
  readonly strategy?: string;
  readonly promptLen?: string;
  readonly responseLen?: string;
  readonly freeCache?: string;
  readonly gpuMemory?: string;
  readonly tensorParallel?: string;
  readonly dynamic?: string;
}
const PPO: Keys = {
  name: 'verl',
  micro: 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu',
  checkpointing: 'actor_rollout_ref.model.enable_gradient_checkpointing',
  rank: 'actor_rollout_ref.model.lora_rank',
  alpha: 'actor_rollout_ref.model.lora_alpha',
  targets: 'actor_rollout_ref.model.target_modules',
  strategy: 'actor_rollout_ref.actor.strategy',
  promptLen: 'data.max_prompt_length',
  responseLen: 'data.max_response_length',
  freeCache: 'actor_rollout_ref.rollout.free_cache_engine',
  gpuMemory: 'actor_rollout_ref.rollout.gpu_memory_utilization',
  tensorParallel: 'actor_rollout_ref.rollout.tensor_model_parallel_size',
  dynamic: 'actor_rollout_ref.actor.use_dynamic_bsz',
};
const SFT: Keys = {
  name: 'verl',
  micro: 'data.micro_batch_size_per_gpu',
  checkpointing: 'model.enable_gradient_checkpointing',
  rank: 'model.lora_rank',
  alpha: 'model.lora_alpha',
  targets: 'model.target_modules',
  strategy: 'model.strategy',
};
/** EasyR1 (hiyouga/EasyR1): FSDP1 only, and its vLLM engine always sleeps while the actor trains. */
const EASYR1: Keys = {
  name: 'EasyR1',
  micro: 'worker.actor.micro_batch_size_per_device_for_update',
  checkpointing: 'worker.actor.model.enable_gradient_checkpointing',
  rank: 'worker.actor.model.lora.rank',
  alpha: 'worker.actor.model.lora.alpha',
  targets: 'worker.actor.model.lora.target_modules',
  promptLen: 'data.max_prompt_length',
  responseLen: 'data.max_response_length',
  gpuMemory: 'worker.rollout.gpu_memory_utilization',
  tensorParallel: 'worker.rollout.tensor_parallel_size',
};

/** Which trainer's keys a file writes: EasyR1's (its entry point or its `worker:` block), verl's PPO, else verl's SFT. */
function keysOf(c: PlanCtx): Keys {
  const { text, format } = c.file;
  if (format === 'shell' ? /verl[./]trainer[./]main\b/.test(text) : /^worker\s*:/m.test(text)) return EASYR1;
  const ppo =
    c.file.facts.facts.some((f) => f.tool === 'verl' && f.key === 'rollout') || /^actor_rollout_ref\s*:/m.test(text);
  return ppo ? PPO : SFT;
}

/** One override (a `key=value` on a launch line; a key in a YAML). */
const set = (key: string, value: Val): Planned => ok(op(key, value, { hydra: true }));

/** verl's overrides for one change; undefined where the shell planner's launcher options apply (SFT's GPUs). */
export function planVerl(c: PlanCtx, ch: SetupChange): Planned | undefined {
  const k = keysOf(c);
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      if (k.dynamic && c.has(k.dynamic))
        return no('with use_dynamic_bsz the micro-step is ppo_max_token_len_per_gpu tokens; change that by hand');
      return set(k.micro, Number(v));
    case 'gradient_checkpointing':
      return v === 'selective' ? no(`${k.name} has no selective checkpointing`) : set(k.checkpointing, v === 'full');
    case 'seq_len':
      return k.promptLen ? promptLength(c, k, Number(v)) : set('data.max_length', Number(v));
    case 'gpus_per_node':
    case 'nodes':
      if (!k.promptLen) return undefined;
      return set(ch.key === 'nodes' ? 'trainer.nnodes' : 'trainer.n_gpus_per_node', Number(v));
    case 'fsdp_version':
      return k.strategy ? set(k.strategy, Number(v) === 2 ? 'fsdp2' : 'fsdp') : no(`${k.name} shards with FSDP1 only`);
    case 'lora':
      return loraOverrides(k, v as Lora);
    case 'rollout':
      return k.promptLen ? rolloutOverrides(c, k, v as Record<string, unknown>) : no('the SFT trainer has no rollout');
    case 'method':
      return c.fact('method')?.value === v || (v === 'full' && !c.fact('method'))
        ? ok()
        : v === 'lora'
          ? no(`LoRA is ${k.rank}=<rank>: choose the rank and add it`)
          : no(`${k.name} trains full or LoRA models only; ${str(v)} is not one of them`);
    default:
      return no(`no ${k.name} override for ${ch.key}`);
  }
}

/** A shorter sequence: the prompt's share (data.max_prompt_length) beside the response, as changed or as written. */
function promptLength(c: PlanCtx, k: Keys, seq: number): Planned {
  const f = c.fact('completionLen');
  const changed = c.changed('rollout') as { completion_len?: number } | undefined;
  const response = changed?.completion_len ?? (typeof f?.value === 'number' ? f.value : 512);
  return seq > response
    ? set(k.promptLen!, seq - response)
    : no(`the sequence (${seq}) must be longer than the response (max_response_length ${response})`);
}

function loraOverrides(k: Keys, l: Lora): Planned {
  const ops = [];
  if (l.r !== undefined) ops.push(op(k.rank, l.r, { hydra: true }));
  if (l.alpha !== undefined) ops.push(op(k.alpha, l.alpha, { hydra: true }));
  if (l.target_modules !== undefined) {
    const targets = l.target_modules === 'all-linear' ? 'all-linear' : l.target_modules.join(',');
    // verl's Hydra list `[q_proj,v_proj]`; EasyR1's comma-separated string.
    ops.push(
      op(k.targets, k === EASYR1 || targets === 'all-linear' ? targets : { raw: `[${targets}]` }, { hydra: true }),
    );
  }
  if (l.dropout !== undefined && l.dropout !== 0) return no(`${k.name}'s LoraConfig takes no dropout`);
  return ok(...ops);
}

/** A number a fact of the file gives, else the trainer's default. */
function current(c: PlanCtx, key: Parameters<PlanCtx['fact']>[0], otherwise: number): number {
  const f = c.fact(key);
  return typeof f?.value === 'number' ? f.value : otherwise;
}

/**
 * The rollout's engine: whether it sleeps while the actor trains (verl's free_cache_engine), its share of the GPU, its
 * tensor parallelism and the response length. The round's size (data.train_batch_size x rollout.n over the GPUs) is
 * not one key: a change of it is refused with the keys to change.
 */
function rolloutOverrides(c: PlanCtx, k: Keys, r: Record<string, unknown>): Planned {
  const ops: Op[] = [];
  if (r.vllm_sleep !== undefined && r.vllm_sleep !== (c.fact('vllmSleep')?.value ?? true)) {
    if (!k.freeCache) return no(`${k.name}'s engine always sleeps while the actor trains`);
    ops.push(op(k.freeCache, r.vllm_sleep as boolean, { hydra: true }));
  }
  if (typeof r.completion_len === 'number' && r.completion_len !== current(c, 'completionLen', 512))
    ops.push(op(k.responseLen!, r.completion_len, { hydra: true }));
  if (typeof r.vllm_memory_fraction === 'number' && k.gpuMemory)
    if (r.vllm_memory_fraction !== current(c, 'vllmMemoryFraction', k === EASYR1 ? 0.6 : 0.5))
      ops.push(op(k.gpuMemory, r.vllm_memory_fraction, { hydra: true }));
  if (typeof r.vllm_tensor_parallel === 'number' && k.tensorParallel)
    if (r.vllm_tensor_parallel !== current(c, 'vllmTensorParallel', 2))
      ops.push(op(k.tensorParallel, r.vllm_tensor_parallel, { hydra: true }));
  const round = c.fact('generationBatchSize');
  const gpus = current(c, 'gpusPerNode', 8) * current(c, 'nodes', 1);
  const perGpu = typeof round?.value === 'number' ? round.value / gpus : undefined;
  if (typeof r.batch === 'number' && perGpu !== undefined && Number.isInteger(perGpu) && r.batch !== perGpu)
    return no(
      `the round's completions are data.${k === EASYR1 ? 'rollout_batch_size' : 'train_batch_size'} x rollout.n over ` +
        'the GPUs; change one of them by hand',
    );
  return ok(...ops);
}
