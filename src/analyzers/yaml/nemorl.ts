// NeMo-RL's config YAML (NVIDIA/NeMo-RL examples/configs/*.yaml and recipes/llm/*.yaml, run by `uv run python
// examples/run_sft.py --config x.yaml`, run_dpo.py, run_grpo_math.py): the policy's model, batch and sequence, its
// training backend (the DTensor worker: FSDP2 over the data-parallel mesh with tensor parallelism; the FSDP1 worker
// otherwise), the optimizer, the cluster's GPUs, and the algorithm: SFT, DPO (the reference's log-probabilities
// taken in a pass of their own, its weights swapped in for the policy's), GRPO with a colocated vLLM engine that sleeps
// while the policy trains. A `defaults:` parent config is read as a file the config inherits (its values rank below).
// Sources: NVIDIA/NeMo-RL@54bec9d nemo_rl/models/policy/dtensor_policy_worker.py, fsdp1_policy_worker.py,
// nemo_rl/models/dtensor/parallelize.py, nemo_rl/algorithms/{sft,dpo,grpo}.py, nemo_rl/models/generation/vllm.py,
// nemo_rl/utils/config.py. Pure: no I/O.
import { about, msg, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { asBool, asCheckpointing, asPosInt, boolOf, Invalid, numOf, strOf, type Entry, type View } from './values';

export const NEMORL_SOURCE = 'NVIDIA/NeMo-RL@54bec9d';

/**
 * Whether top-level keys are a NeMo-RL config: a `policy` with `model_name`, and an algorithm, a `cluster` or a
 * `defaults:` parent file.
 */
export function isNemoRlYaml(keys: ReadonlySet<string>, text: string): boolean {
  return (
    keys.has('policy') &&
    /^\s+model_name\s*:/m.test(text) &&
    (keys.has('cluster') ||
      ['sft', 'dpo', 'grpo', 'rm', 'distillation'].some((k) => keys.has(k)) ||
      /^defaults\s*:\s*["']?[\w./-]+\.ya?ml["']?\s*$/m.test(text))
  );
}

export function analyzeNemoRlYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'nemorl-yaml', tool: 'nemo-rl', omegaconf: true });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const parent = top.get('defaults');
  const parentPath = parent ? strOf(ctx.view(parent))?.trim() : undefined;
  // nemo_rl/utils/config.py load_config: `defaults: parent.yaml` (relative to this file) merged under this file.
  if (parent && parentPath)
    ctx.references.push({ kind: 'config', path: parentPath, span: parent.valueSpan, base: true });
  const policy = ctx.sub(top.get('policy'));
  ctx.put('model', policy.get('model_name'), (v) => strOf(v)?.trim() || undefined);
  ctx.put('microBatchSize', policy.get('train_micro_batch_size'), asPosInt);
  ctx.put('trainBatchSize', policy.get('train_global_batch_size'), asPosInt);
  ctx.put('seqLen', policy.get('max_total_sequence_length'), asPosInt);
  ctx.put('mixedPrecision', policy.get('precision'), precisionOf);
  backend(ctx, policy);
  optimizer(ctx, ctx.sub(policy.get('optimizer')));
  const cluster = ctx.sub(top.get('cluster'));
  ctx.put('gpusPerNode', cluster.get('gpus_per_node'), asPosInt);
  ctx.put('nodes', cluster.get('num_nodes'), asPosInt);
  if (top.get('dpo')) dpo(ctx, top.get('dpo')!);
  if (top.get('grpo')) grpo(ctx, top, policy);
  for (const other of ['rm', 'distillation'])
    if (top.get(other))
      ctx.problem(
        'not-modeled',
        'warning',
        msg('{0}: NeMo-RL {1} is estimated as the policy training on its own', other, other),
        top.get(other)!.keySpan,
        other,
      );
}

/** `precision`: the parameters stay fp32 (both workers load in float32); bfloat16 / float16 is FSDP's param_dtype. */
function precisionOf(v: View): 'bf16' | 'fp16' | 'none' | Invalid | undefined {
  const s = strOf(v)?.trim();
  if (s === 'bfloat16') return 'bf16';
  if (s === 'float16') return 'fp16';
  if (s === 'float32') return 'none';
  return new Invalid(about('{0}: expected "bfloat16", "float16" or "float32"'));
}

/**
 * The training backend: `dtensor_cfg.enabled` runs the DTensor worker (each decoder layer and the root fully_shard over
 * the data-parallel mesh, MixedPrecisionPolicy with an fp32 output, tensor_parallel_size, sequence_parallel, CPU
 * offload; its activation_checkpointing wraps each layer's MLP only, estimated as op-level selective checkpointing and
 * said); otherwise the FSDP1 worker (size_based_auto_wrap_policy: units of 100M parameters or more, estimated as one
 * unit per layer and said; fsdp_offload_enabled; activation_checkpointing_enabled: every layer, non-reentrant).
 */
function backend(ctx: YamlCtx, policy: ReadonlyMap<string, Entry>): void {
  const dt = policy.get('dtensor_cfg');
  const d = ctx.sub(dt);
  const enabled = d.get('enabled');
  const on = enabled ? boolOf(ctx.view(enabled)) === true : false;
  const at = enabled ?? policy.get('model_name');
  if (!at) return;
  if (on) {
    ctx.add('fsdp', at, 'full_shard');
    ctx.add('fsdpVersion', at, 2);
    ctx.put('fsdpOffload', d.get('cpu_offload'), asBool);
    ctx.put('tensorParallel', d.get('tensor_parallel_size'), asPosInt);
    ctx.put('sequenceParallel', d.get('sequence_parallel'), asBool);
    const ac = d.get('activation_checkpointing');
    if (ac && boolOf(ctx.view(ac)) === true) {
      ctx.add('gradientCheckpointing', ac, 'selective');
      ctx.problem(
        'not-modeled',
        'warning',
        msg("{0}: NeMo-RL checkpoints each layer's MLP only; estimated as op-level selective checkpointing", ac.path),
        ac.valueSpan,
        ac.path,
      );
    } else ctx.put('gradientCheckpointing', ac, (v) => (boolOf(v) === false ? 'none' : undefined));
    return;
  }
  ctx.add('fsdp', at, 'full_shard');
  ctx.add('fsdpVersion', at, 1);
  ctx.problem(
    'not-modeled',
    'info',
    msg(
      '{0}: the FSDP1 worker wraps modules of 100M parameters or more (size_based_auto_wrap_policy); estimated as one unit per layer',
      enabled?.path ?? 'policy',
    ),
    at.valueSpan,
    enabled?.path,
  );
  ctx.put('fsdpOffload', policy.get('fsdp_offload_enabled'), asBool);
  const ac = policy.get('activation_checkpointing_enabled');
  ctx.put('gradientCheckpointing', ac, asCheckpointing);
  if (ac && boolOf(ctx.view(ac)) === true) ctx.add('checkpointReentrant', ac, false);
}

/** `optimizer.name` (torch.optim.AdamW / Adam) with its kwargs' `fused` and `foreach` (torch's defaults: foreach). */
function optimizer(ctx: YamlCtx, o: ReadonlyMap<string, Entry>): void {
  const name = o.get('name');
  if (!name) return;
  const kwargs = ctx.sub(o.get('kwargs'));
  const flag = (k: string): boolean | undefined => {
    const e = kwargs.get(k);
    return e ? boolOf(ctx.view(e)) : undefined;
  };
  ctx.put('optimizer', name, (v) => {
    const s = strOf(v)?.trim() ?? '';
    if (!/^torch\.optim\.(AdamW|Adam)$/.test(s)) return { unknown: `optimizer ${s} is not one VRAM Lens models here` };
    if (flag('fused') === true) return 'adamw_fused';
    return flag('foreach') === false ? 'adamw_hf' : 'adamw';
  });
}

/**
 * DPO: chosen and rejected in one pass, the batches counted in pairs (algorithms/dpo.py trains with gbs and mbs of
 * train_global_batch_size x 2 and train_micro_batch_size x 2 sequences); the reference's log-probabilities come from a
 * pass of their own before the policy trains (its weights swapped in: dtensor_policy_worker use_reference_model), so the
 * training step holds no reference.
 */
function dpo(ctx: YamlCtx, e: Entry): void {
  ctx.add('preference', e, 'dpo', 'dpo');
  ctx.add('referenceModel', e, 'precomputed', 'dpo');
}

/**
 * GRPO: num_prompts_per_step x num_generations_per_prompt completions a step, generated by a colocated vLLM engine
 * (`generation.backend: vllm`, `colocated.enabled`) that sleeps while the policy trains (vllm.py sleep(level=1));
 * the KL reference's weights are swapped in for its log-probabilities, so none is resident while the policy trains.
 */
function grpo(ctx: YamlCtx, top: ReadonlyMap<string, Entry>, policy: ReadonlyMap<string, Entry>): void {
  const g = ctx.sub(top.get('grpo'));
  const at = top.get('grpo')!;
  ctx.add('rollout', at, 'grpo', 'grpo');
  const n = ctx.put('numGenerations', g.get('num_generations_per_prompt'), asPosInt);
  const prompts = g.get('num_prompts_per_step');
  const p = prompts ? numOf(ctx.view(prompts)) : undefined;
  if (n && typeof n.value === 'number' && p !== undefined && prompts)
    ctx.add('generationBatchSize', prompts, p * n.value, 'grpo.num_prompts_per_step');
  // The KL reference's weights are swapped into the policy's module for its log-probabilities (use_reference_model):
  // none is resident while the policy trains, whatever reference_policy_kl_penalty weighs it.
  const kl = ctx.sub(top.get('loss_fn')).get('reference_policy_kl_penalty');
  ctx.add('klBeta', kl ?? at, 0, kl?.path ?? 'grpo');
  // Every token's log-probability is taken, over sequences of up to max_total_sequence_length (also vLLM's
  // max_model_len): the completion is counted as all of the sequence but its first token (logits_to_keep = completion
  // + 1 covers the sequence).
  const total = policy.get('max_total_sequence_length');
  ctx.put('completionLen', total, (v) => {
    const t = numOf(v);
    return t !== undefined && Number.isInteger(t) && t > 1 ? t - 1 : undefined;
  });
  const gen = ctx.sub(policy.get('generation'));
  const engine = gen.get('backend');
  if (!engine) return;
  const vllm = strOf(ctx.view(engine))?.trim() === 'vllm';
  ctx.add('useVllm', engine, vllm);
  if (!vllm) return;
  const colocated = ctx.sub(gen.get('colocated')).get('enabled');
  const apart = colocated !== undefined && boolOf(ctx.view(colocated)) === false;
  ctx.add('vllmMode', colocated ?? engine, apart ? 'server' : 'colocate');
  if (apart) return;
  ctx.add('vllmSleep', engine, true);
  const cfg = ctx.sub(gen.get('vllm_cfg'));
  ctx.put('vllmMemoryFraction', cfg.get('gpu_memory_utilization'), (v) => numOf(v));
  ctx.put('vllmTensorParallel', cfg.get('tensor_parallel_size'), asPosInt);
}
