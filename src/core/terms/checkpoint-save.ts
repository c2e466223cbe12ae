// Term: a checkpoint written by FSDP1 as a sharded state dict, with Accelerate before 0.31. FSDP1's
// SHARDED_STATE_DICT builds the state dict unit by unit: each unit is unsharded on the GPU in its stored dtype
// (_sharded_pre_state_dict_hook), and every parameter is replaced by a ShardedTensor whose local shard is a clone of
// this rank's chunk (_sharded_post_state_dict_hook -> _create_chunk_sharded_tensor: `chunks[rank].clone()`), moved to
// the CPU only when ShardedStateDictConfig.offload_to_cpu is set (its default is False). Accelerate's FSDP plugin set
// that config for FULL_STATE_DICT only until 0.31 (huggingface/accelerate#2762, May 2024, sets
// ShardedStateDictConfig(offload_to_cpu=True)), so with an older release the whole dict of clones stays on the GPU
// until the checkpoint is written: a second copy of this rank's shard of every parameter, beside the root unit and one
// unit unsharded. The HF Trainer saves the model this way at every checkpoint (trainer.py _save_optimizer_and_scheduler
// -> accelerate save_fsdp_model; PEFT's get_peft_model_state_dict also calls model.state_dict() first).
// Sources: torch/distributed/fsdp/_state_dict_utils.py, _shard_utils.py, api.py (StateDictConfig);
// accelerate@67308ca:src/accelerate/utils/dataclasses.py set_state_dict_type.
// Docs: docs/estimate/checkpoint-save.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import type { TrainingSetup } from '../setup';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatBytes, formatCount } from '../units';
import { olderThan } from '../util/version';
import { quantBytesPerParam, unshardedConstantsPerParam } from './quantization';

/** The first Accelerate release whose FSDP plugin moves SHARDED_STATE_DICT shards to the CPU as they are made. */
export const ACCELERATE_SHARDS_TO_CPU = '0.31';

/** FSDP1 sharding the parameters (not NO_SHARD, not FSDP2) writes its checkpoints as a sharded state dict. */
export function fsdp1ShardedCheckpoints(
  setup: Pick<TrainingSetup, 'fsdp' | 'fsdp_version' | 'fsdp_state_dict_type'>,
): boolean {
  return (
    setup.fsdp !== 'none' &&
    setup.fsdp !== 'no_shard' &&
    setup.fsdp_version !== 2 &&
    setup.fsdp_state_dict_type === 'sharded'
  );
}

/**
 * The files ask for FSDP1 sharded checkpoints built on the GPU: checkpoints saved (the Trainer's default) as a sharded
 * state dict with Accelerate before 0.31. What the advice can change (advice/moves/checkpoints.ts).
 */
export function shardedSaveOnGpu(
  setup: Pick<
    TrainingSetup,
    'fsdp' | 'fsdp_version' | 'fsdp_state_dict_type' | 'saves_checkpoints' | 'accelerate_version'
  >,
): boolean {
  return (
    fsdp1ShardedCheckpoints(setup) && setup.saves_checkpoints !== false && olderThan(setup.accelerate_version, 0, 31)
  );
}

/** The run writes FSDP1 sharded checkpoints whose shards stay on the GPU, over several shards and not under ZeRO. */
export function savesShardsOnGpu(ctx: EstimateContext): boolean {
  return shardedSaveOnGpu(ctx.setup) && ctx.sharding.zeroStage === 0 && ctx.sharding.shardParams > 1;
}

/**
 * The clones of this rank's shard of every parameter the state dict holds at its end: the stored bytes of the
 * stage's parameters (4/8-bit layers as their packed codes, which is what the flat parameter holds; the quantization
 * constants are module attributes, outside it), its adapters, divided by the shard degree.
 */
export function shardClones(ctx: EstimateContext, st: StageContext): Component {
  const setup = ctx.setup;
  const { shardParams } = ctx.sharding;
  const { fsdpMaster, adapterBytes } = ctx.dtypes;
  const tp = ctx.layout.tensorParallel;
  // FSDP mixed precision keeps a full fine-tune's flat parameters in fp32 (the master copy): the state dict is in fp32.
  const denseBytes = fsdpMaster && setup.method === 'full' ? st.unquantizedParams * 4 : st.modelBytes;
  const q = ctx.effectiveSetup.quantization;
  const codes = q ? quantBytesPerParam(q, setup.torchao_version).bytes - unshardedConstantsPerParam(q) : 0;
  const adapters = (ctx.model.inventory.adapter * st.layerShare) / tp;
  const params = st.unquantizedParams + st.quantizedHere + adapters;
  const bytes = (denseBytes + st.quantizedHere * codes + adapters * adapterBytes) / shardParams;
  return comp(
    ctx,
    'checkpoint-save',
    "Sharded checkpoint: this rank's shard of every parameter, cloned on the GPU",
    bytes,
    () =>
      `${formatCount(params)} params in their stored dtype${q ? ` (${q.bits}-bit layers as packed codes)` : ''} / ` +
      `${shardParams}: SHARDED_STATE_DICT clones each parameter's chunk (ShardedStateDictConfig offload_to_cpu=False, ` +
      `which Accelerate < ${ACCELERATE_SHARDS_TO_CPU} left unset) and keeps them all until the checkpoint is written`,
    () => ({ params: Math.round(params), shard: shardParams }),
  );
}

/**
 * The units unsharded while the state dict is built, in their stored dtype (the state dict unshards at full
 * precision): the root unit for the whole of it, and one layer unit at a time. The last layer unit is resharded before
 * the root's own shards are cloned, so the high point holds max(the layer unit, the root's clones) beside the other
 * clones: the layer unit counts for what it exceeds the root's clones by.
 */
export function unshardedForSave(
  ctx: EstimateContext,
  gathered: readonly Component[],
  headGather: readonly Component[],
): Component[] {
  const setup = ctx.setup;
  const { fsdpMaster, half } = ctx.dtypes;
  const widen = fsdpMaster && setup.method === 'full' ? 4 / half : 1;
  const unit = (gathered.reduce((s, c) => s + c.bytes, 0) / 2) * widen;
  const root = headGather.reduce((s, c) => s + c.bytes, 0) * widen;
  const rootClones = root / ctx.sharding.shardParams;
  const out: Component[] = [];
  if (root > 0)
    out.push(
      comp(
        ctx,
        'gathered-params',
        'FSDP root unit unsharded for the state dict',
        root,
        () => 'embeddings + output head in their stored dtype, unsharded while every unit below is saved',
        () => ({}),
      ),
    );
  if (unit > rootClones)
    out.push(
      comp(
        ctx,
        'gathered-params',
        'FSDP layer unit unsharded for the state dict',
        unit - rootClones,
        () =>
          rootClones > 0
            ? `one layer unit at a time in its stored dtype, ${formatBytes(unit)}, less the root's ` +
              `${formatBytes(rootClones)} of clones, made after the last layer is resharded`
            : 'one layer unit at a time, in its stored dtype',
        () => ({}),
      ),
    );
  return out;
}
