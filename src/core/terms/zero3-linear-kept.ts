// Term: ZeRO-3's linear weights kept gathered for their backward, where the model was made outside
// deepspeed.zero.Init and DeepSpeed is older than 0.19.4. ZeRO-3 frees a gathered parameter by pointing it at an empty
// tensor (partition_parameters.py _release_param: param.data = torch.empty(0)); torch's linear saves the weight's
// transpose, a view of the gathered storage, for the input's gradient, so the storage stays until the layer's
// backward. DeepSpeed's LinearFunctionForZeroStage3 saves the parameter itself, whose data the release empties; it was
// installed only inside zero.Init until 0.19.4 installed it in deepspeed.initialize too (deepspeedai/DeepSpeed#8189:
// "the standard Linear implementation can retain the gathered weight storage until backward completes"). So every
// layer that saves activations holds its linear weights from its forward to its backward: all of them at the loss,
// beside which the prefetch's own (the last layers, never released) are the same storage. CPU truth: a tiny 8-layer
// Llama full fine-tune under DeepSpeed 0.15.0 and 0.16.5 against 0.19.6 (tools/truth/FINDINGS.md §67, §68).
// Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import type { TrainingSetup } from '../setup';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { deepspeedWrapsLinearOutsideInit } from '../estimate/deepspeed-release';
import { formatCount } from '../units';

/** The first DeepSpeed release that wraps the linears of a model made outside ZeRO-Init. */
export const LINEAR_WRAPPED_SINCE = '0.19.4';

/**
 * Whether the run's linears save gathered weights under ZeRO-3 (the release aside): a model made outside ZeRO-Init,
 * layers not checkpointed (a checkpointed layer saves nothing; its recompute holds its own layer only), and nn.Linear
 * weights (a 4/8-bit base multiplies through bitsandbytes' or torchao's own functions).
 */
export function linearsSaveGatheredWeights(setup: TrainingSetup): boolean {
  return (
    setup.zero_stage === 3 &&
    setup.zero3_init === false &&
    setup.gradient_checkpointing === 'none' &&
    setup.quantization === undefined
  );
}

/** Whether the linears keep their gathered weights under the run's DeepSpeed (before 0.19.4). */
export function linearsKeepGatheredWeights(setup: TrainingSetup): boolean {
  return linearsSaveGatheredWeights(setup) && !deepspeedWrapsLinearOutsideInit(setup);
}

/**
 * Whether DeepSpeed's own linear (LinearFunctionForZeroStage3) runs the model's linears under ZeRO-3: inside zero.Init
 * in every release, outside it from 0.19.4. It saves its input whether or not anything needs it, so a frozen linear
 * keeps its input; torch's linear, which runs otherwise, saves the input only for the weight's gradient. GPU truth:
 * Qwen2.5-7B attention-only LoRA, 4,096 tokens, 8 ranks: the MLP's inputs (184.6 MB a layer) are in 0.19.6's
 * histories and 0.16.5's under zero.Init, not in 0.16.5's outside it (tools/truth/FINDINGS.md §70).
 */
export function deepspeedLinearRuns(setup: TrainingSetup, zeroStage: number | undefined): boolean {
  return zeroStage === 3 && (setup.zero3_init !== false || deepspeedWrapsLinearOutsideInit(setup));
}

/** What ZeRO-3 holds gathered where the linears keep their weights: the forward's last layer, the loss, the backward's. */
export interface Zero3LinearKept {
  readonly forwardLayer: Component;
  readonly atLoss: Component;
  readonly lastLayer: Component;
  /** In the first layer's backward, where the weights are kept to the backward's end (zero3-bnb-kept.ts). */
  readonly firstLayer?: Component;
}

/** The gathered parameters ZeRO-3 holds anyway, in parameters: inside a layer, at the loss, in the last layer's backward. */
export interface Zero3HeldParams {
  readonly live: number;
  readonly atLoss: number;
  readonly lastLayer: number;
}

/**
 * The linear weights of the stage's layers that save activations (a freeze run's trainable last layers; every layer
 * otherwise), per GPU over tensor parallelism: the modules that are nn.Linear, a rank's own experts.
 */
function keptLinearParams(
  ctx: EstimateContext,
  st: StageContext,
  persistenceThreshold: number,
): { params: number; layers: number } {
  const { setup } = ctx;
  const tp = ctx.layout.tensorParallel;
  const ep = ctx.layout.expertParallel;
  const linear = ctx.model.modules
    .filter((m) => !m.parameter)
    .reduce((t, m) => t + (m.inFeatures * m.outFeatures * m.count) / (m.group === 'expert' ? ep : 1), 0);
  const adapters = keptAdapterParams(ctx, persistenceThreshold) * st.layerShare;
  const stage = (Math.min(st.blockParams, linear * st.layerShare) + adapters) / tp;
  const layers = st.layersHere;
  const saving = setup.method === 'freeze' ? Math.min(layers, setup.freeze_trainable_layers ?? 2) : layers;
  return { params: layers > 0 ? (stage * saving) / layers : 0, layers: saving };
}

/**
 * LoRA's lora_A (r x in) and lora_B (out x r) are nn.Linear too: those ZeRO-3 partitions (more elements than
 * stage3_param_persistence_threshold; smaller ones stay whole on every rank and are never released) keep their
 * gathered weights the same way. CPU truth: the tiny Llama's all-linear r 16 adapters, 591,872 params, all above its
 * threshold of 1,000 (tools/truth/FINDINGS.md §70).
 */
function keptAdapterParams(ctx: EstimateContext, persistenceThreshold: number): number {
  const lora = ctx.methods.lora;
  if (!ctx.methods.peft || !lora) return 0;
  let params = 0;
  for (const m of ctx.model.modules) {
    if (m.parameter || !ctx.methods.targets.has(m.name)) continue;
    for (const elements of [lora.r * m.inFeatures, lora.r * m.outFeatures])
      if (elements > persistenceThreshold) params += elements * m.count;
  }
  return params;
}

/**
 * What ZeRO-3 holds gathered when torch's linear keeps each layer's gathered weights for its backward (DeepSpeed
 * before 0.19.4, a model made outside ZeRO-Init): the forward's last layer holds the weights of the saving layers
 * before it beside what is gathered there; the loss and the last layer's backward hold every saving layer's, or what
 * the prefetch holds when more (the same storage: the layers it keeps were never released). Undefined otherwise.
 */
export function zero3LinearKept(
  ctx: EstimateContext,
  st: StageContext,
  gather: { bytesPerParam: number; dtype: string },
  small: { bytes: number; text: () => string },
  held: Zero3HeldParams,
  persistenceThreshold: number,
): Zero3LinearKept | undefined {
  const { setup } = ctx;
  if (!linearsKeepGatheredWeights(setup)) return undefined;
  const kept = keptLinearParams(ctx, st, persistenceThreshold);
  if (!(kept.params > 0)) return undefined;
  const release = setup.deepspeed_version ?? `before ${LINEAR_WRAPPED_SINCE}`;
  const before = kept.layers > 1 ? (kept.params * (kept.layers - 1)) / kept.layers : 0;
  const why = (): string =>
    `: the model made outside deepspeed.zero.Init, DeepSpeed ${release} runs torch's linear, whose saved weight ` +
    'keeps the gathered storage until the backward';
  const component = (label: string, params: number, formula: () => string): Component =>
    comp(
      ctx,
      'gathered-params',
      `ZeRO-3 gathered parameters (${label})`,
      params * gather.bytesPerParam + small.bytes,
      () => `${formula()} = ${formatCount(params)} params x ${gather.dtype} + ${small.text()}${why()}`,
      () => ({ keptParams: Math.round(kept.params), keptLayers: kept.layers, deepspeedVersion: release }),
    );
  const all = `the ${kept.layers} saving layers' linear weights ${formatCount(kept.params)}`;
  return {
    forwardLayer: component(
      "the layers before keep their linears' weights",
      before + held.live,
      () =>
        `the ${kept.layers - 1} layers before ${formatCount(before)} + gathered in the layer ${formatCount(held.live)}`,
    ),
    atLoss: component(
      'linear weights kept for the backward, at the loss',
      Math.max(held.atLoss, kept.params),
      () => `max(${all}, the prefetch's ${formatCount(held.atLoss)})`,
    ),
    lastLayer: component(
      'linear weights kept for the backward',
      Math.max(held.lastLayer, kept.params),
      () => `max(${all}, gathered ${formatCount(held.lastLayer)})`,
    ),
  };
}
