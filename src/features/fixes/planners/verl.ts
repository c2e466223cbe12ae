// The verl planner (a launch script running verl.trainer.main_ppo or fsdp_sft_trainer, analyzers/shell/verl.ts): a
// change is a Hydra override `key=value`, rewritten where the command line writes it, or added after its last override
// (verl's config takes every key, so a new one is safe). The SFT trainer's GPU count is the launcher's (the shell
// planner's); PPO's is trainer.n_gpus_per_node. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Planned, op, ok, no, type PlanCtx, type Lora } from '../ops';
import { str } from './common';

type Keys = Readonly<Record<'micro' | 'checkpointing' | 'rank' | 'alpha' | 'targets' | 'strategy', string>>;
const PPO: Keys = {
  micro: 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu',
  checkpointing: 'actor_rollout_ref.model.enable_gradient_checkpointing',
  rank: 'actor_rollout_ref.model.lora_rank',
  alpha: 'actor_rollout_ref.model.lora_alpha',
  targets: 'actor_rollout_ref.model.target_modules',
  strategy: 'actor_rollout_ref.actor.strategy',
};
const SFT: Keys = {
  micro: 'data.micro_batch_size_per_gpu',
  checkpointing: 'model.enable_gradient_checkpointing',
  rank: 'model.lora_rank',
  alpha: 'model.lora_alpha',
  targets: 'model.target_modules',
  strategy: 'model.strategy',
};

/** One Hydra override. */
const set = (key: string, value: Val): Planned => ok(op(key, value, { hydra: true }));

/** verl's overrides for one change; undefined where the shell planner's launcher options apply (SFT's GPUs). */
export function planVerl(c: PlanCtx, ch: SetupChange): Planned | undefined {
  const ppo = c.file.facts.facts.some((f) => f.tool === 'verl' && f.key === 'rollout');
  const k = ppo ? PPO : SFT;
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      if (ppo && c.has('actor_rollout_ref.actor.use_dynamic_bsz'))
        return no('with use_dynamic_bsz the micro-step is ppo_max_token_len_per_gpu tokens; change that by hand');
      return set(k.micro, Number(v));
    case 'gradient_checkpointing':
      return v === 'selective' ? no('verl has no selective checkpointing') : set(k.checkpointing, v === 'full');
    case 'seq_len':
      return ppo ? promptLength(c, Number(v)) : set('data.max_length', Number(v));
    case 'gpus_per_node':
    case 'nodes':
      if (!ppo) return undefined;
      return set(ch.key === 'nodes' ? 'trainer.nnodes' : 'trainer.n_gpus_per_node', Number(v));
    case 'fsdp_version':
      return set(k.strategy, Number(v) === 2 ? 'fsdp2' : 'fsdp');
    case 'lora':
      return loraOverrides(k, v as Lora);
    case 'rollout':
      return ppo ? rolloutOverrides(c, v as Record<string, unknown>) : no('the SFT trainer has no rollout');
    case 'method':
      return c.fact('method')?.value === v || (v === 'full' && !c.fact('method'))
        ? ok()
        : v === 'lora'
          ? no(`LoRA is ${k.rank}=<rank>: choose the rank and add it`)
          : no(`verl trains full or LoRA models only; ${str(v)} is not one of them`);
    default:
      return no(`no verl override for ${ch.key}`);
  }
}

/** A shorter sequence: the prompt's share (data.max_prompt_length) beside the response, as changed or as written. */
function promptLength(c: PlanCtx, seq: number): Planned {
  const f = c.fact('completionLen');
  const changed = c.changed('rollout') as { completion_len?: number } | undefined;
  const response = changed?.completion_len ?? (typeof f?.value === 'number' ? f.value : 512);
  return seq > response
    ? set('data.max_prompt_length', seq - response)
    : no(`the sequence (${seq}) must be longer than the response (max_response_length ${response})`);
}

function loraOverrides(k: Keys, l: Lora): Planned {
  const ops = [];
  if (l.r !== undefined) ops.push(op(k.rank, l.r, { hydra: true }));
  if (l.alpha !== undefined) ops.push(op(k.alpha, l.alpha, { hydra: true }));
  if (l.target_modules !== undefined)
    ops.push(
      op(k.targets, l.target_modules === 'all-linear' ? 'all-linear' : { raw: `[${l.target_modules.join(',')}]` }, {
        hydra: true,
      }),
    );
  if (l.dropout !== undefined && l.dropout !== 0) return no("verl's LoraConfig takes no dropout");
  return ok(...ops);
}

/** The rollout's engine sleeping while the actor trains (free_cache_engine) and its response length. */
function rolloutOverrides(c: PlanCtx, r: Record<string, unknown>): Planned {
  const ops = [];
  if (r.vllm_sleep !== undefined && r.vllm_sleep !== (c.fact('vllmSleep')?.value ?? true))
    ops.push(op('actor_rollout_ref.rollout.free_cache_engine', r.vllm_sleep as boolean, { hydra: true }));
  const f = c.fact('completionLen');
  if (typeof r.completion_len === 'number' && r.completion_len !== (typeof f?.value === 'number' ? f.value : 512))
    ops.push(op('data.max_response_length', r.completion_len, { hydra: true }));
  if (typeof r.vllm_memory_fraction === 'number') {
    const g = c.fact('vllmMemoryFraction');
    if (r.vllm_memory_fraction !== (typeof g?.value === 'number' ? g.value : 0.5))
      ops.push(op('actor_rollout_ref.rollout.gpu_memory_utilization', r.vllm_memory_fraction, { hydra: true }));
  }
  return ok(...ops);
}
