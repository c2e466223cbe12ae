// Term: the 4-bit codes bitsandbytes keeps gathered under ZeRO-3. Linear4bit.forward hands its parameter to
// MatMul4Bit, which keeps it for the input's gradient as a plain attribute, `ctx.tensors = (None, B)` with
// `B = B.view(-1, 1)` (bitsandbytes autograd/_functions.py, 0.50.1; `(A, B)` before 0.43.2): a view of the storage ZeRO-3
// gathered. DeepSpeed releases a parameter by pointing it at an empty tensor (partition_parameters.py free_param:
// param.data = torch.empty(0)), which leaves the view's storage allocated, and the attribute is no saved tensor, so
// neither DeepSpeed's own linear nor non-reentrant checkpointing's hooks take it: every 4-bit weight whose matmul the
// forward records stays gathered until the step's graph is freed after the backward. Reentrant checkpointing runs the
// forward without a graph; its recompute holds one layer, as the gathered parameters already count. The layer the
// non-reentrant recompute runs again holds its own gathered codes the same way until the recompute returns.
// CPU truth: DeepSpeed 0.19.6 and bitsandbytes 0.50.1's own code, Llama and Qwen2 with wide layers over 2 and 8 ranks
// (tools/truth/scenarios/zero/*-wide-*-z3-qlora-*, FINDINGS §90). Docs: docs/estimate/parallelism.md. Pure arithmetic.
import type { Component } from '../model';
import type { TrainingSetup } from '../setup';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatBytes, formatCount } from '../units';
import { checkpointReentrant } from './activations/kept-inputs';
import type { Zero3HeldParams, Zero3LinearKept } from './zero3-linear-kept';
import { keepsRecomputedFrozen, recomputesFrozenUnderZero3 } from './zero3-recompute-kept';

/**
 * Whether ZeRO-3 gathers bitsandbytes 4-bit codes: parameters partitioned over more than one rank (over one, DeepSpeed
 * points each parameter at its partition, NoGatherCoalescedHandle) and a bitsandbytes 4-bit base.
 */
function gathersBnb4bitCodes(ctx: EstimateContext): boolean {
  return (
    ctx.sharding.zeroStage === 3 &&
    ctx.model.bitsandbytes &&
    ctx.sharding.shardParams > 1 &&
    bnb4bitBase(ctx.setup.quantization)
  );
}

/** A bitsandbytes 4-bit base: not torchao's NF4 (codes and constants in its own tensor subclass), not GPTQ / AWQ / 8-bit. */
function bnb4bitBase(q: TrainingSetup['quantization']): boolean {
  return q !== undefined && q.bits === 4 && q.library !== 'torchao' && (q.type === 'nf4' || q.type === 'fp4');
}

/**
 * Whether the run's 4-bit matmuls keep their gathered codes under ZeRO-3: ZeRO-3 gathers bitsandbytes 4-bit codes,
 * and the forward records its graph (no checkpointing, or the non-reentrant form).
 */
export function bnbMatmulsKeepGatheredCodes(ctx: EstimateContext): boolean {
  return gathersBnb4bitCodes(ctx) && bnbKeepsCodesUnderZero3(ctx.setup);
}

/**
 * The setup's side of it, for the advice: ZeRO-3, a bitsandbytes 4-bit base (not torchao's NF4, not a GPTQ / AWQ
 * checkpoint), and a forward that records its graph.
 */
export function bnbKeepsCodesUnderZero3(
  setup: Pick<
    TrainingSetup,
    'zero_stage' | 'quantization' | 'gradient_checkpointing' | 'checkpoint_reentrant' | 'transformers_version'
  >,
): boolean {
  if (setup.zero_stage !== 3 || !bnb4bitBase(setup.quantization)) return false;
  return setup.gradient_checkpointing === 'none' || !checkpointReentrant(setup);
}

/** Elements of the 4-bit weights of the stage's layers on this GPU (its share over tensor parallelism). */
function stageQuantized(ctx: EstimateContext, st: StageContext): number {
  return (ctx.model.inventory.quantized * st.layerShare) / ctx.layout.tensorParallel;
}

/**
 * What ZeRO-3 holds gathered where bitsandbytes' 4-bit matmuls keep their weights: the codes of every quantized linear
 * of the stage's layers (this GPU's share over tensor parallelism, 4 bits a weight), beside what DeepSpeed has gathered
 * anew (the layers it keeps for their reuse are the same storage). Inside the forward's last layer, the layers before
 * it; at the loss and through the backward, all of them; in the last layer's non-reentrant recompute, that layer's
 * codes once more, or what DeepSpeed gathers there when more. Undefined where the matmuls keep nothing.
 */
export function zero3BnbKept(
  ctx: EstimateContext,
  st: StageContext,
  gather: { bytesPerParam: number; dtype: string },
  small: { bytes: number; text: () => string },
  held: Zero3HeldParams & { retained: number },
): Zero3LinearKept | undefined {
  if (!bnbMatmulsKeepGatheredCodes(ctx)) return undefined;
  const layers = st.layersHere;
  const codesPerWeight = 0.5;
  const quantized = stageQuantized(ctx, st);
  const kept = quantized * codesPerWeight;
  if (!(kept > 0) || !(layers > 0)) return undefined;
  const layerCodes = kept / layers;
  const recompute = ctx.setup.gradient_checkpointing !== 'none';
  const bpp = gather.bytesPerParam;
  const why = (): string =>
    `: bitsandbytes' MatMul4Bit keeps each 4-bit weight it ran (ctx.tensors), a view of the gathered storage that ` +
    "ZeRO-3's release (param.data = torch.empty(0)) leaves allocated, until the step's graph is freed";
  const codes = (n: number): string => `${formatCount(n * (quantized / layers))} 4-bit weights x 0.5 B`;
  const component = (label: string, bytes: number, formula: () => string): Component =>
    comp(
      ctx,
      'gathered-params',
      `ZeRO-3 gathered parameters (${label})`,
      bytes + small.bytes,
      () => `${formula()} + ${small.text()}${why()}`,
      () => ({ keptCodeBytes: Math.round(kept), layers, recompute }),
    );
  const beyondRetained = (params: number): number => Math.max(0, params - held.retained) * bpp;
  const lastLayerGathered = recompute ? Math.max(held.lastLayer * bpp, layerCodes) : held.lastLayer * bpp;
  return {
    forwardLayer: component(
      'the layers before keep their 4-bit codes',
      layerCodes * (layers - 1) + Math.max(held.live * bpp, layerCodes),
      () =>
        `the ${layers - 1} layers before: ${codes(layers - 1)} + max(gathered in the layer ` +
        `${formatCount(held.live)} x ${gather.dtype}, its own codes ${formatBytes(layerCodes)}, which its matmuls keep)`,
    ),
    atLoss: component(
      '4-bit codes kept for the backward, at the loss',
      kept + beyondRetained(held.atLoss),
      () =>
        `the ${layers} layers' ${codes(layers)} = ${formatBytes(kept)} + gathered beyond the layers kept for their ` +
        `reuse ${formatCount(Math.max(0, held.atLoss - held.retained))} x ${gather.dtype}`,
    ),
    lastLayer: component(
      '4-bit codes kept for the backward',
      kept + Math.max(0, lastLayerGathered - held.retained * bpp),
      () =>
        `the ${layers} layers' ${codes(layers)} = ${formatBytes(kept)} + ` +
        (recompute
          ? `max(gathered ${formatCount(held.lastLayer)} x ${gather.dtype}, the recomputed layer's codes ` +
            `${formatBytes(layerCodes)}, which its own matmuls keep)`
          : `gathered ${formatCount(held.lastLayer)} x ${gather.dtype}`),
    ),
    firstLayer: component(
      "4-bit codes kept to the backward's end",
      kept + Math.max(held.live * bpp, recompute ? layerCodes : 0),
      () => `the ${layers} layers' ${codes(layers)} = ${formatBytes(kept)} + the first layer's gathered`,
    ),
  };
}

/**
 * A layer's 4-bit codes held twice in its own backward under reentrant checkpointing, by DeepSpeed releases before
 * 0.19.3 (which release a recomputed layer's frozen parameters after its forward, terms/zero3-recompute-kept.ts): the
 * recompute runs the layer's forward with a graph, so MatMul4Bit keeps each weight it ran (ctx.tensors, a view of the
 * gathered storage) until the layer's backward is done, and the backward's pre-hook gathers the released parameters
 * anew. CPU truth (DeepSpeed 0.14.4, 0.15.0 and 0.16.5, bitsandbytes 0.50.1, tools/truth/FINDINGS.md §114): Llama
 * with wide layers over 2 ranks peaks in the last layer's MatMul4BitBackward with one layer's codes, 5,799,936 B, above
 * what 0.19.6 holds there. Undefined elsewhere.
 */
export function zero3BnbRecomputeCopy(ctx: EstimateContext, st: StageContext): Component | undefined {
  const { setup } = ctx;
  if (!gathersBnb4bitCodes(ctx) || !recomputesFrozenUnderZero3(setup) || keepsRecomputedFrozen(setup)) return undefined;
  if (!(st.layersHere > 0)) return undefined;
  const layerWeights = stageQuantized(ctx, st) / st.layersHere;
  const release = setup.deepspeed_version ?? 'before 0.19.3';
  return comp(
    ctx,
    'gathered-params',
    "ZeRO-3 gathered parameters (a layer's 4-bit codes kept from its reentrant recompute)",
    layerWeights * 0.5,
    () =>
      `${formatCount(layerWeights)} 4-bit weights of one layer x 0.5 B: its recompute's MatMul4Bit keeps each weight ` +
      `(ctx.tensors) while DeepSpeed ${release} releases the parameters after the recompute and gathers them anew ` +
      'for the backward',
    () => ({ layerWeights: Math.round(layerWeights), deepspeedVersion: release }),
  );
}
