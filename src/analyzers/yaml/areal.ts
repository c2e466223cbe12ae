// AReaL's experiment config (inclusionAI/AReaL `examples/*/*.yaml`, run by `python3 examples/math/gsm8k_rl.py --config
// x.yaml`): the actor's training engine, whose GPUs are apart from the inference engine's (`rollout.backend:
// "sglang:d4"` beside `actor.backend: "fsdp:d4"`; the older `allocation_mode: sglang:d4+fsdp:d4`). The FSDP engine
// loads `actor.path` in `actor.dtype` with `attn_impl` (flash_attention_2 unless set), shards it with FSDP2 over the
// engine's data-parallel GPUs (MixedPrecisionPolicy param_dtype `dtype`, reduce_dtype `grad_reduce_dtype`),
// checkpoints its layers non-reentrantly under `gradient_checkpointing`, steps with torch's fused AdamW (`adam`), and
// packs each micro-batch up to `mb_spec.max_tokens_per_mb` tokens. Sources: inclusionAI/AReaL@4aef98d
// areal/api/cli_args.py, areal/engine/fsdp_engine.py, areal/engine/fsdp_utils/parallel.py, areal/trainer/rl_trainer.py.
// Pure: no I/O.
import { msg, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { asBool, asCheckpointing, asPosInt, boolOf, dtypeOf, listOf, numOf, strOf, type Entry } from './values';

export const AREAL_SOURCE = 'inclusionAI/AReaL@4aef98d';

/** Whether top-level keys are an AReaL experiment config: its `actor` engine, its `gconfig`, and the inference side. */
export function isArealYaml(keys: ReadonlySet<string>, text: string): boolean {
  return (
    keys.has('actor') &&
    keys.has('gconfig') &&
    (keys.has('rollout') || keys.has('allocation_mode')) &&
    /^\s+path\s*:/m.test(text)
  );
}

export function analyzeArealYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'areal-yaml', tool: 'areal', omegaconf: true });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const actorAt = top.get('actor');
  if (!actorAt) return;
  const actor = ctx.sub(actorAt);
  ctx.put('model', actor.get('path'), (v) => strOf(v)?.trim() || undefined);
  engine(ctx, top, actor, actorAt);
  precision(ctx, actor);
  const ckpt = ctx.put('gradientCheckpointing', actor.get('gradient_checkpointing'), asCheckpointing);
  if (ckpt?.value === 'full') ctx.add('checkpointReentrant', actor.get('gradient_checkpointing')!, false);
  ctx.put('attention', actor.get('attn_impl'), (v) => (/flash/.test(strOf(v) ?? '') ? 'flash' : undefined));
  optimizer(ctx, actor);
  packing(ctx, ctx.sub(actor.get('mb_spec')), actor.get('mb_spec') ?? actorAt);
  lora(ctx, actor);
  const offload = ctx.sub(actor.get('fsdp')).get('offload_params');
  ctx.put('fsdpOffload', offload, asBool);
  reference(ctx, top, actor);
  if (top.get('critic'))
    ctx.problem(
      'not-modeled',
      'warning',
      msg('{0}: a critic engine is trained beside the actor; the estimate is the actor alone', 'critic'),
      top.get('critic')!.keySpan,
      'critic',
    );
}

/**
 * The actor's engine and GPUs: `actor.backend` ("fsdp:d4p1t1": data, pipeline and tensor parallel degrees), else the
 * training side of `allocation_mode` ("sglang:d4p1t1+fsdp:d4p1t1" or "sglang.d4p1t1+d4p1t1"). The inference engine
 * runs on GPUs of its own, and is not counted.
 */
function engine(ctx: YamlCtx, top: ReadonlyMap<string, Entry>, actor: ReadonlyMap<string, Entry>, at: Entry): void {
  const backend = actor.get('backend');
  const allocation = top.get('allocation_mode');
  const source = backend ?? allocation;
  const text = source ? strOf(ctx.view(source))?.trim() : undefined;
  const train = text?.split('+').pop();
  const m = train ? /^(?:(fsdp|megatron|archon)[:.])?d(\d+)(?:p(\d+))?(?:t(\d+))?/.exec(train) : null;
  if (!source || !m) return;
  if (m[1] === 'megatron' || m[1] === 'archon') {
    ctx.problem(
      'not-modeled',
      'warning',
      msg("{0}: AReaL's {1} engine is not modeled: the estimate is its FSDP engine's step", source.path, m[1]),
      source.valueSpan,
      source.path,
    );
  }
  const [d, p, t] = [Number(m[2]), Number(m[3] ?? 1), Number(m[4] ?? 1)];
  ctx.add('worldSize', source, d * p * t);
  ctx.add('fsdp', source, 'full_shard');
  ctx.add('fsdpVersion', source, 2);
  if (t > 1) ctx.add('tensorParallel', source, t);
  if (p > 1) ctx.add('pipelineParallel', source, p);
  const perNode = numOf(ctx.view(ctx.sub(top.get('cluster')).get('n_gpus_per_node') ?? at));
  if (perNode !== undefined && Number.isInteger(perNode) && perNode > 0 && d * p * t > perNode)
    ctx.add('gpusPerNode', source, perNode);
  const rollout = ctx.sub(top.get('rollout')).get('backend') ?? allocation;
  if (rollout)
    ctx.problem(
      'not-modeled',
      'info',
      msg(
        "{0}: the inference engine runs on GPUs of its own; the estimate is the training engine's GPUs",
        rollout.path,
      ),
      rollout.valueSpan,
      rollout.path,
    );
}

/** `dtype` (bfloat16 unless set): the dtype the model is loaded in and FSDP2's param_dtype. */
function precision(ctx: YamlCtx, actor: ReadonlyMap<string, Entry>): void {
  const dtype = actor.get('dtype');
  const written = dtype ? strOf(ctx.view(dtype)) : undefined;
  const d = written !== undefined ? dtypeOf(written) : undefined;
  if (!dtype || d === undefined) return;
  ctx.add('weightsDtype', dtype, d);
  if (d !== 'fp32') ctx.add('mixedPrecision', dtype, d);
}

/** `optimizer.type`: adam is torch's fused AdamW, adam_bf16 AnyPrecisionAdamW with bf16 states, sgd; null: none. */
function optimizer(ctx: YamlCtx, actor: ReadonlyMap<string, Entry>): void {
  const o = actor.get('optimizer');
  const type = ctx.sub(o).get('type');
  ctx.put('optimizer', type, (v) => {
    const s = strOf(v)?.trim();
    return s === 'adam' ? 'adamw_fused' : s === 'adam_bf16' ? 'adamw' : s === 'sgd' ? 'sgd' : undefined;
  });
}

/**
 * `mb_spec.max_tokens_per_mb`: each micro-batch packs sequences up to that many tokens, estimated as one full row (an
 * upper bound, said); without it the batch is split into `n_mbs` micro-batches whose length the config does not say.
 */
function packing(ctx: YamlCtx, spec: ReadonlyMap<string, Entry>, at: Entry): void {
  const tokens = spec.get('max_tokens_per_mb');
  const n = tokens ? numOf(ctx.view(tokens)) : undefined;
  if (!tokens || n === undefined || !Number.isInteger(n) || n < 1) {
    ctx.add('seqLen', tokens ?? at, {
      unknown: 'actor.mb_spec.max_tokens_per_mb is not set: the micro-batches are n_mbs shares of the batch',
    });
    return;
  }
  const note =
    `AReaL packs sequences into micro-batches of at most ${n} tokens (mb_spec.max_tokens_per_mb); ` +
    'estimated as one full micro-batch, an upper bound';
  for (const [key, value] of [
    ['microBatchSize', 1],
    ['seqLen', n],
    ['batchLengths', 'fixed'],
  ] as const) {
    // The fact just added, marked as the assumption it is.
    const f = ctx.add(key, tokens, value);
    ctx.facts[ctx.facts.length - 1] = { ...f, assumed: note };
  }
}

/** `use_lora` with `lora_rank` (32 unless set), `lora_alpha` and `target_modules` (`[all-linear]`). */
function lora(ctx: YamlCtx, actor: ReadonlyMap<string, Entry>): void {
  const on = actor.get('use_lora');
  if (!on || boolOf(ctx.view(on)) !== true) return;
  ctx.add('method', on, 'lora');
  const rank = actor.get('lora_rank');
  if (rank) ctx.put('loraR', rank, asPosInt);
  else ctx.addDefault('loraR', on, 32, `lora_rank defaults to 32 (${AREAL_SOURCE}:areal/api/cli_args.py)`);
  ctx.put('loraAlpha', actor.get('lora_alpha'), (v) => numOf(v));
  ctx.put('loraTargets', actor.get('target_modules'), (v) => {
    const items = listOf(v);
    return items?.length === 1 && items[0] === 'all-linear' ? 'all-linear' : items;
  });
}

/** A KL reference (`actor.kl_ctl` above 0, 0.1 unless set, with a `ref` engine) colocated with the actor. */
function reference(ctx: YamlCtx, top: ReadonlyMap<string, Entry>, actor: ReadonlyMap<string, Entry>): void {
  const ref = top.get('ref');
  const kl = actor.get('kl_ctl');
  const beta = kl ? numOf(ctx.view(kl)) : 0.1;
  if (!ref || beta === undefined || beta <= 0) return;
  ctx.problem(
    'not-modeled',
    'warning',
    msg(
      '{0}: the KL reference engine (kl_ctl {1}) is colocated with the actor; its sharded weights and its scoring pass are not counted',
      'ref',
      String(beta),
    ),
    ref.keySpan,
    'ref',
  );
}
