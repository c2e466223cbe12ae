// Term: ZeRO-3's gathered parameters, per GPU. Inside a layer: max(module running, min(stage3_max_live_parameters,
// one layer + prefetch bucket)), or what the prefetch runs ahead to (stage3_max_live_parameters and one module) when
// the layer's modules are smaller than the bucket; kept from the forward into the backward when their reuse comes
// within stage3_max_reuse_distance; at the loss only those, what the output head's fetch prefetches, or the running
// ahead. All in the gather dtype, plus the small parameters, which stay unsharded; and the flat buffers of the
// prefetches, which the all-gather stream's pool holds (estimate/runtime.ts). Sources:
// deepspeed/runtime/zero/partitioned_param_coordinator.py (fetch_sub_module, __params_to_release), config.py.
// CPU truth: tools/truth/scenarios/zero (DeepSpeed 0.19.6). Docs: docs/estimate/parallelism.md. Pure arithmetic.
import type { LinearModule } from '../architecture';
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';
import { zeroValue, type ZeroConfig } from '../estimate/zero-config';
import { zero3EmbeddingAfterBackward, zero3RecomputeKept } from './zero3-recompute-kept';
import { zero3LinearKept, type Zero3LinearKept } from './zero3-linear-kept';
import { zero3BnbKept } from './zero3-bnb-kept';
import { deepspeedCountDrifts } from '../estimate/deepspeed-release';

/** One linear module's parameters: a fused 3-D expert tensor holds its experts (this rank's share of `ep`). */
export function linearModuleParams(ctx: EstimateContext, m: LinearModule, ep: number): number {
  const moe = ctx.model.arch.moe;
  return m.inFeatures * m.outFeatures * (m.parameter && m.group === 'expert' && moe ? moe.experts / ep : 1);
}

/** What ZeRO-3 holds gathered: inside a layer, kept for reuse (when more), and at the loss. */
export interface Zero3Gathered {
  readonly gathered: Component;
  readonly held: Component | undefined;
  readonly atLoss: Component;
  /** At the end of a reentrant backward, where DeepSpeed keeps the recomputed frozen layers (zero3-recompute-kept.ts). */
  readonly atBackwardEnd: Component | undefined;
  /** The input embedding gathered beside them once the backward is done (zero3-recompute-kept.ts). */
  readonly embeddingAfterBackward: Component | undefined;
  /**
   * Where torch's linear keeps each layer's gathered weights for its backward (zero3-linear-kept.ts), or bitsandbytes'
   * 4-bit matmuls keep their codes to the backward's end (zero3-bnb-kept.ts).
   */
  readonly linearKept: Zero3LinearKept | undefined;
  /**
   * Bytes of the flat buffer a prefetch gathers into, alive beside the gathered parameters while they are copied out:
   * inside a layer, and when the output head is prefetched for the loss.
   */
  readonly inFlight: GatherInFlight;
}

/** The modules of one layer on this GPU, in the forward's order (the fused experts are one module). */
function layerModules(ctx: EstimateContext): number[] {
  const { tensorParallel: tp, expertParallel: ep } = ctx.layout;
  const mods = ctx.model.modules.filter((m) => !m.layerKind);
  const experts = mods.filter((m) => m.parameter && m.group === 'expert');
  const fused = experts.reduce((t, m) => t + linearModuleParams(ctx, m, ep), 0);
  const others = mods.filter((m) => !(m.parameter && m.group === 'expert')).map((m) => linearModuleParams(ctx, m, ep));
  return (fused > 0 ? [...others, fused] : others).map((p) => p / tp);
}

/**
 * ZeRO-3's gathered parameters. Inside a layer: the module running, whatever stage3_max_live_parameters says (the
 * limit caps what is held beyond it, the prefetch: max_params_to_prefetch = max_live minus what is available), one
 * layer + the prefetch bucket below the limit, or the running ahead (zero3RunAhead). From the end of the forward the
 * layers kept for their reuse (zero3Retained) when they are more. At the loss (`atLoss`) the layers' modules have been
 * released after their forward except those kept for reuse, what the output head's fetch prefetches
 * (zero3HeadPrefetch), or the running ahead. All add the small parameters, which stay unsharded (below
 * stage3_param_persistence_threshold).
 */
export function zero3Gathered(
  ctx: EstimateContext,
  st: StageContext,
  zbIn: ZeroConfig,
  gather: { blockUnit: number; bytesPerParam: number; dtype: string },
): Zero3Gathered {
  const { modules: mods, inventory: inv } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  const wb = ctx.dtypes.weightBytes;
  const { blockUnit, bytesPerParam, dtype } = gather;
  const perElement = bytesPerParam / ctx.dtypes.half;
  const zb = limitsInWeights(zbIn, perElement);
  const modules = layerModules(ctx);
  const largestModule = Math.max(0, ...modules);
  // The prefetch fetches the modules ahead in the trace: no more than the model holds beyond the running layer.
  const prefetch = Math.min(zb.stage3_prefetch_bucket_size, Math.max(0, inv.total / tp - blockUnit));
  const retained = zero3Retained(ctx, st, zb.stage3_max_reuse_distance);
  const drift = availableCountDrift(ctx, st);
  const runAhead = zero3RunAhead(ctx, st, zb, modules, drift);
  const inLayer = Math.max(
    Math.min(largestModule, blockUnit),
    Math.min(zb.stage3_max_live_parameters, blockUnit + prefetch),
  );
  const live = Math.max(inLayer, runAhead.layerParams);
  const linear = mods.reduce((s, m) => s + m.inFeatures * m.outFeatures * m.count, 0);
  const persistentSmall = Math.max(0, inv.total - inv.embedding - inv.head - inv.vision - linear);
  const small = (): string => `unsharded small params ${formatCount(persistentSmall)} x ${wb} B`;
  const held =
    retained.params > live
      ? comp(
          ctx,
          'gathered-params',
          'ZeRO-3 gathered parameters (kept for their reuse in the backward)',
          retained.params * bytesPerParam + persistentSmall * wb,
          () => `${retained.formula()} = ${formatCount(retained.params)} params x ${dtype} + ${small()}`,
          () => ({ retainedParams: Math.round(retained.params), maxReuseDistance: zb.stage3_max_reuse_distance }),
        )
      : undefined;
  const headPrefetch = zero3HeadPrefetch(ctx, st, zb, { retained: retained.params, drift }, modules);
  const released = Math.min(st.blockParams / tp, retained.params + headPrefetch.params);
  const atLossParams = Math.max(released, runAhead.atLossParams);
  const atLoss = comp(
    ctx,
    'gathered-params',
    'ZeRO-3 gathered parameters (at the loss)',
    atLossParams * bytesPerParam + persistentSmall * wb,
    () =>
      (atLossParams > released
        ? `${runAhead.formula()}, less the output head`
        : `(retained for reuse ${formatCount(retained.params)} + ${headPrefetch.formula()}): every other layer ` +
          'module was released after its forward') + ` = ${formatCount(atLossParams)} params x ${dtype} + ${small()}`,
    () => ({ retainedParams: Math.round(retained.params), prefetchedParams: Math.round(headPrefetch.params) }),
  );
  const gathered = comp(
    ctx,
    'gathered-params',
    'ZeRO-3 gathered parameters',
    live * bytesPerParam + persistentSmall * wb,
    () =>
      (live > inLayer
        ? runAhead.formula()
        : `max(module running ${formatCount(Math.min(largestModule, blockUnit))}, ` +
          `min(max_live ${formatCount(zb.stage3_max_live_parameters)}, one layer ${formatCount(blockUnit)} + ` +
          `prefetch ${formatCount(prefetch)}))`) +
      ` x ${dtype} + unsharded small params ` +
      `(< ${zeroValue(zbIn, 'stage3_param_persistence_threshold')} elements) ${formatCount(persistentSmall)} x ${wb} B` +
      (perElement !== 1
        ? `; in weights: DeepSpeed's limits count stored elements, ${+perElement.toFixed(3)} per weight here`
        : ''),
    () => ({
      layerParams: Math.round(blockUnit),
      prefetch: zb.stage3_prefetch_bucket_size,
      maxLive: zb.stage3_max_live_parameters,
    }),
  );
  const inFlight = inFlightBuffers(ctx, st, zbIn, modules, largestModule * bytesPerParam);
  // The text is a function: only the formulas that quote it build it (lean estimates never do).
  const smallHeld = { bytes: persistentSmall * wb, text: small };
  const atBackwardEnd = zero3RecomputeKept(ctx, st, gather, smallHeld);
  const embeddingAfterBackward = atBackwardEnd ? zero3EmbeddingAfterBackward(ctx, st) : undefined;
  const heldParams = { live, atLoss: atLossParams, lastLayer: held ? retained.params : live };
  const linearKept =
    zero3LinearKept(ctx, st, gather, smallHeld, heldParams, zb.stage3_param_persistence_threshold) ??
    zero3BnbKept(ctx, st, gather, smallHeld, { ...heldParams, retained: retained.params });
  const result = { gathered, held, atLoss, atBackwardEnd, embeddingAfterBackward, linearKept, inFlight };
  return zero3GathersNothing(ctx) ? nothingGathered(ctx, result) : result;
}

/**
 * DeepSpeed counts a parameter's stored elements: a 4-bit layer packed into a 16-bit storage holds a quarter of an
 * element per weight (`perElement`), so its limits reach that many more weights.
 */
function limitsInWeights(zb: ZeroConfig, perElement: number): ZeroConfig {
  if (perElement === 1) return zb;
  return {
    ...zb,
    stage3_prefetch_bucket_size: zb.stage3_prefetch_bucket_size / perElement,
    stage3_max_live_parameters: zb.stage3_max_live_parameters / perElement,
    stage3_max_reuse_distance: zb.stage3_max_reuse_distance / perElement,
  };
}

/** The prefetch's flat buffer in flight inside a layer (the largest module's) and at the loss (the output head's). */
function inFlightBuffers(
  ctx: EstimateContext,
  st: StageContext,
  zb: ZeroConfig,
  modules: readonly number[],
  largestModuleBytes: number,
): Zero3Gathered['inFlight'] {
  const head = st.last ? (ctx.model.arch.vocab * ctx.model.arch.hidden) / ctx.layout.tensorParallel : 0;
  const half = ctx.dtypes.half;
  return {
    layer: prefetchFlatBuffer(zb, modules, half, largestModuleBytes),
    atLoss: head > 0 ? prefetchFlatBuffer(zb, modules, half, head * half) : 0,
  };
}

/**
 * Whether ZeRO-3 gathers nothing: parameters partitioned over one rank and kept on the GPU. DeepSpeed then points each
 * parameter at its partition (partition_parameters.py NoGatherCoalescedHandle: `param.data = param.ds_tensor.data`),
 * which the weights already count; with the parameters offloaded, the copy to the GPU is a new tensor.
 */
export function zero3GathersNothing(ctx: EstimateContext): boolean {
  return ctx.sharding.shardParams <= 1 && ctx.setup.offload_params === 'none';
}

/** The same components at 0 bytes, saying why, and no prefetch buffers. */
function nothingGathered(ctx: EstimateContext, z3: Zero3Gathered): Zero3Gathered {
  const none = <T extends Component | undefined>(c: T): T =>
    (c &&
      comp(
        ctx,
        c.id,
        c.label,
        0,
        () =>
          'over one rank DeepSpeed points each parameter at its partition and gathers nothing (NoGatherCoalescedHandle)',
        () => c.inputs,
      )) as T;
  const kept = z3.linearKept;
  return {
    gathered: none(z3.gathered),
    held: none(z3.held),
    atLoss: none(z3.atLoss),
    atBackwardEnd: none(z3.atBackwardEnd),
    embeddingAfterBackward: none(z3.embeddingAfterBackward),
    linearKept: kept && {
      forwardLayer: none(kept.forwardLayer),
      atLoss: none(kept.atLoss),
      lastLayer: none(kept.lastLayer),
      ...(kept.firstLayer ? { firstLayer: none(kept.firstLayer) } : {}),
    },
    inFlight: { layer: 0, atLoss: 0 },
  };
}

/**
 * The prefetch running ahead. Each fetch prefetches whole parameters ahead in the trace until their elements reach
 * stage3_prefetch_bucket_size, passing over those already gathered, while the available elements are below
 * stage3_max_live_parameters. When a layer has modules smaller than the bucket (a grouped-query k_proj, v_proj) a
 * fetch prefetches several of them while the model runs one, so the prefetched front gains on the running module
 * until the limit stops it: from then on about max_live elements are gathered, one parameter more at most (the one
 * that crossed the limit), through the rest of the forward and the backward. The output head counts among them; a
 * head that alone fills max_live leaves nothing to run ahead at the loss. CPU truth, a tiny 8-layer Llama with a
 * bucket and limit in a real run's proportion to its modules (DeepSpeed 0.19.6): the available elements reach the
 * limit within three layers and stay above it by at most one parameter.
 */
function zero3RunAhead(
  ctx: EstimateContext,
  st: StageContext,
  zb: ZeroConfig,
  modules: readonly number[],
  drift: number,
): { layerParams: number; atLossParams: number; formula: () => string } {
  const a = ctx.model.arch;
  const { inventory: inv } = ctx.model;
  const tp = ctx.layout.tensorParallel;
  const maxLive = zb.stage3_max_live_parameters;
  const gains = modules.length > 1 && Math.min(...modules) < zb.stage3_prefetch_bucket_size && maxLive > 0;
  if (!gains) return { layerParams: 0, atLossParams: 0, formula: () => '' };
  const head = st.last ? (a.vocab * a.hidden) / tp : 0;
  const embedding = st.first && !a.tied ? inv.embedding / tp : 0;
  const layers = st.blockParams / tp;
  const largest = Math.max(...modules);
  const ahead = maxLive + drift + largest;
  return {
    layerParams: Math.min(layers + embedding, ahead),
    atLossParams: maxLive + drift > head ? Math.min(layers + embedding, ahead - head) : 0,
    formula: () =>
      `the prefetch running ahead to max_live ${formatCount(maxLive)} + one module ${formatCount(largest)} ` +
      (drift > 0
        ? `+ the embedding's ${formatCount(drift)}, which took the count of available parameters below zero ` +
          '(DeepSpeed < 0.15.4) '
        : '') +
      `(the layer's modules smaller than the ${formatCount(zb.stage3_prefetch_bucket_size)} prefetch bucket)`,
  };
}

/**
 * DeepSpeed before 0.15.4 set its count of available parameters to zero at the end of each backward (stage3.py
 * backward: reset_step) while the embedding, fetched for the backward's last module, was still gathered; its release at
 * the step took the count below zero, and the prefetch, which fetches while the count is below
 * stage3_max_live_parameters, then held that many elements more through the next forward and backward. 0.15.4 moved
 * the reset to the start of the forward (deepspeedai/DeepSpeed#6662). H100, Llama-3.1-8B LoRA under 0.15.0 against
 * 0.16.5 (FINDINGS §67): the embedding's 1.0 GiB more gathered at the loss and in the layers; CPU, a tiny 8-layer
 * Llama LoRA under the same two releases: the estimate within 1 % of both. 0 with a later release.
 */
function availableCountDrift(ctx: EstimateContext, st: StageContext): number {
  if (!deepspeedCountDrifts(ctx.setup) || !st.first) return 0;
  const a = ctx.model.arch;
  return (a.vocab * a.hidden) / ctx.layout.tensorParallel;
}

/**
 * What ZeRO-3 holds gathered for the backward when the output head is fetched for the loss. The fetch prefetches the
 * modules next in the trace while what is available (the head, the layers kept for reuse) is below
 * stage3_max_live_parameters: whole parameters until their elements reach stage3_prefetch_bucket_size, passing over
 * those already gathered (partitioned_param_coordinator.py fetch_sub_module). Passing over the last layer's last
 * module, still gathered as it finishes, marks it for its backward, which keeps it ("Don't release params whose
 * reuse was skipped by prefetch", __params_to_release). So: nothing when the head alone fills max_live; otherwise the
 * modules of the backward's order, from the last layer's last one (or from the first beyond the layers kept for
 * reuse), whose elements reach the bucket.
 */
function zero3HeadPrefetch(
  ctx: EstimateContext,
  st: StageContext,
  zb: ZeroConfig,
  count: { retained: number; drift: number },
  modules: readonly number[],
): { params: number; formula: () => string } {
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const head = st.last ? (a.vocab * a.hidden) / tp : 0;
  const { retained, drift } = count;
  const room = Math.min(zb.stage3_prefetch_bucket_size, zb.stage3_max_live_parameters + drift - head - retained);
  if (!(room > 0) || !st.last) return { params: 0, formula: () => 'nothing prefetched (the head fills max_live)' };
  const backwardOrder = [...modules].reverse();
  const keptByScan = retained > 0 ? 0 : (backwardOrder.shift() ?? 0);
  let fetched = 0;
  for (const p of backwardOrder) {
    if (fetched >= room) break;
    fetched += p;
  }
  return {
    params: keptByScan + fetched,
    formula: () =>
      (keptByScan > 0 ? `the last layer's last module ${formatCount(keptByScan)} + ` : '') +
      `${formatCount(fetched)} prefetched (bucket ${formatCount(room)})`,
  };
}

/**
 * The layer parameters ZeRO-3 keeps gathered from the end of the forward into the backward. Once the module trace is
 * complete (every step after the first), a module's parameters are not released after its forward when they are used
 * again within stage3_max_reuse_distance elements of the modules ahead in the trace (deepspeed/runtime/zero/
 * partitioned_param_coordinator.py __params_to_release). A layer's next use is its backward (frozen weights too:
 * their input's gradient): between them lie the rest of the forward, the output head's forward and backward, and the
 * backward of every later layer; with checkpointing, the recompute and backward of every later layer. So with x layer
 * parameters after a module and an output head of H, it stays gathered while 2x + 2H (3x + 2H checkpointed) is below
 * the distance: the last (D - 2H) / 2 (/ 3) of the stage's layer parameters, all of them in a small model. They are
 * released as their backward passes, so the first layer's backward holds one layer again.
 */
function zero3Retained(
  ctx: EstimateContext,
  st: StageContext,
  distance: number,
): { params: number; formula: () => string } {
  const a = ctx.model.arch;
  const tp = ctx.layout.tensorParallel;
  const head = st.last ? (a.vocab * a.hidden) / tp : 0;
  const checkpointed = ctx.setup.gradient_checkpointing !== 'none';
  const layerParams = st.blockParams / tp;
  const span = Math.max(0, (distance - 2 * head) / (checkpointed ? 3 : 2));
  return {
    params: Math.min(layerParams, span),
    formula: () =>
      `min(the stage's layer params ${formatCount(layerParams)}, (stage3_max_reuse_distance ` +
      `${formatCount(distance)} - 2 x head ${formatCount(head)}) / ${checkpointed ? '3 (checkpointed)' : '2'})`,
  };
}

/** The flat buffers of ZeRO-3's prefetches, in bytes: inside a layer, and the one that takes the output head. */
export interface GatherInFlight {
  readonly layer: number;
  readonly atLoss: number;
  /**
   * FSDP2: the root unit's all-gather (its output and inputs), and its output alone, which is held while the first
   * layer is gathered beside it (terms/fsdp2-side-streams.ts).
   */
  readonly rootGather?: number;
  readonly rootHeld?: number;
}

/**
 * The flat buffer of one prefetch, in bytes: the bucket's elements (DeepSpeed counts stored elements, in the 16-bit
 * storage) and the parameter that crosses it, `largest` bytes at most (a layer module, or the output head). A fetch of
 * several parameters gathers them into one flat tensor (partition_parameters.py _all_gather_dtype:
 * torch.empty(partition_sz x world_size)) and then copies each parameter out of it (AllGatherCoalescedHandle.wait:
 * torch.cat of its partitions), so the buffer is alive beside the copies; a prefetch takes whole parameters until
 * their elements reach the bucket, the last one crossing it. A fetch of one parameter gathers straight into it
 * (_all_gather_sequential), and nothing is prefetched with max_live at 0.
 */
function prefetchFlatBuffer(zb: ZeroConfig, modules: readonly number[], half: number, largest: number): number {
  const bucket = zb.stage3_prefetch_bucket_size;
  if (!(bucket > 0) || !(zb.stage3_max_live_parameters > 0) || modules.length < 2) return 0;
  return bucket * half + largest;
}

/** What the all-gather stream's pool holds at the step's points, in bytes (each without a prefetch's flat buffer). */
export interface GatherPoolUnits {
  /** Gathered inside a layer. */
  readonly inLayer: number;
  /** Inside the forward's last layer where the layers before keep their linear weights (zero3-linear-kept.ts). */
  readonly forwardLayer?: number;
  readonly lastLayer: number;
  /** At the end of the backward (ZeRO-3 keeping a reentrant backward's frozen layers: zero3-recompute-kept.ts). */
  readonly firstLayer: number;
  /** Once the backward is done: what it keeps with the input embedding ZeRO-3 gathers last (zero3-recompute-kept.ts). */
  readonly afterBackward?: number;
  /** At the loss, with the output head. */
  readonly atLossWithHead: number;
  /** Held beside the units at every other point too: the output head under TRL's chunked loss (sharding-buffers.ts). */
  readonly headHeld?: number;
  /** Between two layers' backwards: FSDP1 without backward prefetch holds two units (sharding-buffers.ts). */
  readonly layerTransition?: number;
}

/**
 * The most the all-gather stream holds at once: the gathered parameters inside a layer (where the layers keep their
 * linear weights, through the last layer's backward), at the loss with the head, or at the end of the backward, each
 * with the flat buffer of the prefetch that brings them (ZeRO-3) or the copy-in inputs of the unit being gathered
 * (FSDP2), or FSDP2's root unit gathered at the forward's start and held while the first layer is gathered (with none in
 * flight, FSDP's units alone). The full and the lean estimate both take the pool's capacity from here.
 */
export function gatherPoolCapacity(flight: GatherInFlight, units: GatherPoolUnits): number {
  const inLayer = Math.max(
    units.forwardLayer !== undefined ? Math.max(units.forwardLayer, units.lastLayer) : units.inLayer,
    units.layerTransition ?? 0,
  );
  const held = units.headHeld ?? 0;
  return Math.max(
    inLayer + held + flight.layer,
    flight.atLoss > 0 ? units.atLossWithHead + flight.atLoss : 0,
    units.firstLayer + held + flight.layer,
    (units.afterBackward ?? 0) + held,
    flight.rootGather ?? 0,
    flight.rootHeld !== undefined ? flight.rootHeld + units.firstLayer + flight.layer : 0,
  );
}
