// EasyR1 (hiyouga/EasyR1), a fork of verl that keeps its FSDP workers and vLLM rollout under its own config:
// `python3 -m verl.trainer.main config=examples/config.yaml worker.actor.model.model_path=...`, OmegaConf overrides of
// a YAML whose keys are EasyR1's (worker.actor / worker.rollout / worker.ref, data, algorithm, trainer). Its keys are
// read as the verl keys they stand for, with EasyR1's defaults (run.ts Dialect). Sources: hiyouga/EasyR1@b44b311
// (verl/trainer/config.py, verl/workers/actor/config.py, verl/workers/rollout/config.py, verl/workers/fsdp_workers.py,
// verl/workers/rollout/vllm_rollout_spmd.py). Pure: no I/O, no node:*, no 'vscode'.
import { msg } from '../facts';
import { known, type Opt } from '../shell/args';
import { toBool } from '../shell/flags';
import { type Dialect, type VerlLine } from './run';

export const EASYR1_SOURCE = 'hiyouga/EasyR1@b44b311';
const CONFIGS = `${EASYR1_SOURCE}:verl/trainer/config.py, verl/workers/actor/config.py, verl/workers/rollout/config.py`;
const WORKERS = `${EASYR1_SOURCE}:verl/workers/fsdp_workers.py`;

/** The entry point of EasyR1's trainer: `python3 -m verl.trainer.main` (verl's own is main_ppo). */
export const isEasyr1Entry = (script: string): boolean =>
  /(^|\.)verl\.trainer\.main$/.test(script.replace(/\.py$/, '').replace(/\//g, '.'));

/** EasyR1's key -> the verl key it stands for (the same meaning in verl's workers). */
const VERL_NAMES: Readonly<Record<string, string>> = {
  'worker.actor.model.model_path': 'actor_rollout_ref.model.path',
  'worker.actor.model.lora.rank': 'actor_rollout_ref.model.lora_rank',
  'worker.actor.model.lora.alpha': 'actor_rollout_ref.model.lora_alpha',
  'worker.actor.model.lora.target_modules': 'actor_rollout_ref.model.target_modules',
  'worker.actor.model.enable_gradient_checkpointing': 'actor_rollout_ref.model.enable_gradient_checkpointing',
  'worker.actor.model.freeze_vision_tower': 'actor_rollout_ref.actor.freeze_vision_tower',
  'worker.actor.strategy': 'actor_rollout_ref.actor.strategy',
  'worker.actor.fsdp.torch_dtype': 'actor_rollout_ref.actor.fsdp_config.model_dtype',
  // FULL_SHARD, or SHARD_GRAD_OP when false (fsdp_workers.py _build_model_optimizer): verl's reshard_after_forward.
  'worker.actor.fsdp.enable_full_shard': 'actor_rollout_ref.actor.fsdp_config.reshard_after_forward',
  // FSDP's CPUOffload(offload_params=True): the parameters, their gradients and AdamW's states on the CPU.
  'worker.actor.fsdp.enable_cpu_offload': 'actor_rollout_ref.actor.fsdp_config.offload_policy',
  'worker.actor.fsdp.fsdp_size': 'actor_rollout_ref.actor.fsdp_config.fsdp_size',
  'worker.actor.offload.offload_params': 'actor_rollout_ref.actor.fsdp_config.param_offload',
  'worker.actor.offload.offload_optimizer': 'actor_rollout_ref.actor.fsdp_config.optimizer_offload',
  // Dynamic batching packs micro_batch_size_per_device_for_update x the longest length tokens per micro-step
  // (actor/dp_actor.py update_policy): as many as that many whole sequences, which the micro-batch already counts.
  'worker.actor.micro_batch_size_per_device_for_update': 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu',
  // Sequences per optimizer step over all GPUs, x rollout.n (fsdp_workers.py _init_config): verl's mini-batch.
  'worker.actor.global_batch_size': 'actor_rollout_ref.actor.ppo_mini_batch_size',
  'worker.actor.ppo_epochs': 'actor_rollout_ref.actor.ppo_epochs',
  'worker.actor.ulysses_size': 'actor_rollout_ref.actor.ulysses_sequence_parallel_size',
  'worker.rollout.name': 'actor_rollout_ref.rollout.name',
  'worker.rollout.n': 'actor_rollout_ref.rollout.n',
  'worker.rollout.gpu_memory_utilization': 'actor_rollout_ref.rollout.gpu_memory_utilization',
  'worker.rollout.tensor_parallel_size': 'actor_rollout_ref.rollout.tensor_model_parallel_size',
  'data.rollout_batch_size': 'data.train_batch_size',
};

/** verl's key -> EasyR1's, for what a default fact names. */
const EASYR1_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(VERL_NAMES).map(([easy, verl]) => [verl, easy]),
);

/** EasyR1's options under verl's names (the rest keep theirs), each still said as the file writes it. */
export function asVerlOpts(opts: readonly Opt[]): Opt[] {
  return opts.map((o) => (VERL_NAMES[o.name] ? { ...o, name: VERL_NAMES[o.name] } : o));
}

/** The verl key an EasyR1 key stands for, or the key itself. */
export const verlNameOf = (name: string): string => VERL_NAMES[name] ?? name;

export const EASYR1_DIALECT: Dialect = {
  name: 'EasyR1',
  source: CONFIGS,
  defaults: {
    'trainer.n_gpus_per_node': 8,
    'trainer.nnodes': 1,
    'data.max_prompt_length': 512,
    'data.max_response_length': 512,
    'data.train_batch_size': 512,
    'actor_rollout_ref.rollout.name': 'vllm',
    'actor_rollout_ref.rollout.n': 1,
    'actor_rollout_ref.actor.ppo_epochs': 1,
    'actor_rollout_ref.actor.ppo_mini_batch_size': 256,
    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu': 4,
    'actor_rollout_ref.rollout.gpu_memory_utilization': 0.6,
    'actor_rollout_ref.rollout.tensor_model_parallel_size': 2,
    'actor_rollout_ref.model.lora_alpha': 64,
    'algorithm.adv_estimator': 'grpo',
  },
  names: EASYR1_NAMES,
  sleepNote:
    'the vLLM engine is built with enable_sleep_mode and sleeps (level 1: weights and KV cache released) while the ' +
    `actor trains (${EASYR1_SOURCE}:verl/workers/rollout/vllm_rollout_spmd.py, sharding_manager/fsdp_vllm.py)`,
  reference: easyr1Reference,
  notModeled: {
    'worker.actor.optim.strategy': (v) =>
      v === 'adamw_bf16'
        ? 'AnyPrecisionAdamW keeps its momentum, variance and Kahan compensation in bf16 (6 B per trainable parameter); ' +
          "the estimate counts fp32 AdamW's two states (8 B)"
        : undefined,
  },
};

const on = (o: Opt | undefined): boolean => o !== undefined && toBool(known(o) ?? '') === true;
const lastOf = (line: VerlLine, name: string): Opt | undefined => [...line.opts].reverse().find((o) => o.name === name);

/**
 * EasyR1's reference policy (fsdp_workers.py): there is one unless algorithm.disable_kl; with LoRA it is the actor with
 * its adapters off; else a model of its own in bf16, sharded over the GPUs like the actor, which stays on them unless
 * worker.ref.fsdp.enable_cpu_offload (FSDP's CPU offload) or worker.ref.offload.offload_params moves it off. It scores
 * in a pass of its own, before the update.
 */
function easyr1Reference(line: VerlLine): void {
  const { l } = line;
  const disabled = lastOf(line, 'algorithm.disable_kl');
  const rank = Number(known(lastOf(line, 'actor_rollout_ref.model.lora_rank')) ?? '0');
  const offloaded = [
    lastOf(line, 'worker.ref.fsdp.enable_cpu_offload'),
    lastOf(line, 'worker.ref.offload.offload_params'),
  ]
    .filter(on)
    .pop();
  const why = on(disabled)
    ? 'algorithm.disable_kl: no reference policy'
    : rank > 0
      ? 'with LoRA the reference policy is the actor with its adapters off: no weights of its own'
      : offloaded
        ? `${offloaded.rawKey}: the reference policy's weights are on the CPU outside its own scoring pass`
        : undefined;
  const at = on(disabled) ? disabled : offloaded;
  if (at?.value) l.fact('klBeta', at.rawKey, at.keySpan, at.value.span, 0, 'verl', `${why} (${WORKERS})`);
  else
    l.toolDefault({
      key: 'klBeta',
      rawKey: 'algorithm.disable_kl',
      value: 0,
      rawValue: 'algorithm.disable_kl=false (EasyR1 default)',
      at: line.at,
      tool: 'verl',
      note: `${why ?? 'the reference policy scores in a pass of its own, before the update'} (${WORKERS})`,
    });
  if (why === undefined)
    l.warnNotModeled(
      msg(
        '{0}: {1}',
        'worker.ref',
        "the reference policy's bf16 weights, sharded over the GPUs, stay on them while the actor trains " +
          '(2 B x parameters / GPUs); they are not counted. worker.ref.fsdp.enable_cpu_offload=true moves them off',
      ),
      line.at,
      'worker.ref',
    );
}
