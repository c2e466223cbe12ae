// The backward's candidate high points with their components: at the loss, through the last layer (its recompute, FSDP's
// second layer and the transition between two layers), at the first layer, at the tied embedding and at FSDP1's root
// gradient. The highest is the backward's phase (estimate/phases.ts); lean-phases.ts adds the same totals. Pure.
import type { Component } from '../model';
import { encoderLayerParameters } from '../architecture';
import { comp } from './component';
import type { EstimateContext, StageContext } from './context';
import { recomputePeakComponents } from '../terms/activations/recompute';
import { reducedHeadGradient, tiedGradientBytes, tiedGradientFormula } from '../terms/gradients';
import { gradientsAtLastLayer, lastLayerWorkingBytes, LOSS_BACKWARD_NOTE, opensWithOutputNorm } from './lean-phases';
import type { GradientShare, StageTerms } from './phases';
import { headCheckComponents } from '../terms/zero-offload-checks';

/** A backward high point: what it holds and its note. */
export type BackwardPoint = [Component[], string];

/**
 * One layer's backward working set, at the first layer and at the last (lastLayerWorkingBytes: with the MLP's weight
 * gradients, or less what the layers above a lower one released).
 */
function workingComponents(ctx: EstimateContext, terms: StageTerms): { working: Component; lastWorking: Component } {
  const { layer } = terms.activations;
  const workingOf = (bytes: number, note: string): Component =>
    comp(
      ctx,
      'backward-working',
      'Backward working set of one layer',
      bytes,
      () => 'gradients of the largest intermediates of one layer (MLP or attention) + residual stream gradients' + note,
      () => ({}),
    );
  const working = workingOf(layer.backwardWorkingBytes, '');
  const lastBytes = lastLayerWorkingBytes(ctx, terms);
  const lastNote = opensWithOutputNorm(ctx, terms)
    ? " (the layer's output norm opens its backward: its gradient's temporaries beside all the layer saved)"
    : " (the attention's or mixer's with the MLP's weight gradients, made before it)";
  const lastWorking =
    lastBytes === layer.backwardWorkingBytes
      ? working
      : workingOf(lastBytes, lastBytes > layer.backwardWorkingBytes ? lastNote : '');
  return { working, lastWorking };
}

/** What the backward's points share, each component made once. */
interface BackwardParts {
  readonly persistent: Component[];
  /** The head's gradient, the first made; and what exists of the gradients at the loss's backward. */
  readonly headGradient: Component;
  readonly headGradientAtLoss: Component;
  /** Gradients kept unsharded under no_sync: all of them, and those the first layer's backward has made. */
  readonly unsyncedAll: Component[];
  readonly unsyncedFirst: Component[];
  /** The gathered head, where the backward holds it past the loss. */
  readonly headHeld: Component[];
  readonly recompute: Component[];
  readonly working: Component;
  readonly lastWorking: Component;
  /** The high point inside a layer's recompute (terms/activations/recompute.ts), empty without one. */
  readonly recomputePeak: Component[];
  /** What the loop keeps through the backward: this step's logits and cache (terms/previous-step.ts). */
  readonly kept: Component[];
}

function backwardParts(ctx: EstimateContext, st: StageContext, terms: StageTerms, gradC: GradientShare): BackwardParts {
  const { gradsInForward, unsynced } = terms.grads;
  const { recompute } = terms.activations;
  const headGradient = gradC(Math.max(gradsInForward, reducedHeadGradient(ctx, st)), ' (first gradients: output head)');
  const recomputeC =
    recompute > 0
      ? [
          comp(
            ctx,
            'checkpoint-recompute',
            'Recomputed layer (checkpointing)',
            recompute,
            () => "one layer's saved tensors, recomputed during its backward",
            () => ({ perLayerBytes: Math.round(recompute) }),
          ),
        ]
      : [];
  return {
    persistent: terms.persistent,
    headGradient,
    // The head's weight gradient comes after the loss backward (its matmul runs next), except with a chunked loss,
    // where the chunks before the current one have already added theirs to it.
    headGradientAtLoss: terms.headGradAtLoss ? headGradient : gradC(gradsInForward, terms.grads.inForwardNote),
    unsyncedAll: unsynced ? [unsynced.all] : [],
    unsyncedFirst: unsynced ? [unsynced.atFirstLayer] : [],
    headHeld: terms.headHeldInBackward ? terms.headGather : [],
    recompute: recomputeC,
    recomputePeak: recomputePeakComponents(ctx, terms.activations.checkpointedLayer),
    ...workingComponents(ctx, terms),
    kept: [...terms.held.logits, ...terms.held.stepCache],
  };
}

/** The start of the backward: all activations, the loss gradients, and what exists of the gradients. */
function atLossPoint(ctx: EstimateContext, terms: StageTerms, parts: BackwardParts): Component[] {
  const a = ctx.model.arch;
  const { half } = ctx.dtypes;
  const { headAccum } = terms;
  const { actComp, maskHeld, castComp } = terms.activations;
  const accumC =
    headAccum > 0
      ? [
          comp(
            ctx,
            'backward-working',
            "Output head gradient of one chunk (summed into the head's gradient)",
            headAccum,
            () =>
              `V x h / TP x ${half} B: each output chunk's weight gradient is added to the running sum (autograd InputBuffer)`,
            () => ({ vocab: a.vocab, hidden: a.hidden }),
          ),
        ]
      : [];
  return [
    ...parts.persistent,
    parts.headGradientAtLoss,
    ...parts.unsyncedAll,
    ...terms.gatheredAt.loss,
    ...terms.headGather,
    ...terms.backwardStart,
    actComp,
    ...maskHeld,
    ...(ctx.setup.gradient_checkpointing === 'full' ? [] : castComp),
    ...terms.outside,
    lossBackward(ctx, terms),
    ...terms.headDequant,
    ...accumC,
    ...parts.kept,
  ];
}

/** Through the last layer: the loss's buffers freed, the head's gradient made, one layer recomputed and in flight. */
function atLastLayerPoint(ctx: EstimateContext, terms: StageTerms, parts: BackwardParts): Component[] {
  const { actComp, maskHeld, castComp } = terms.activations;
  return [
    ...parts.persistent,
    parts.headGradient,
    ...parts.unsyncedAll,
    ...terms.gatheredAt.lastLayer,
    ...parts.headHeld,
    ...gradientsAtLastLayer(ctx, terms),
    actComp,
    ...maskHeld,
    ...castComp,
    ...parts.recompute,
    parts.lastWorking,
    ...terms.dequantC,
    ...parts.kept,
  ];
}

/** What the first and the second layers' backward points share (LayerPointParts). */
function layerPointParts(terms: StageTerms, parts: BackwardParts): LayerPointParts {
  return {
    head: parts.persistent,
    afterGrads: parts.unsyncedFirst,
    afterUnits: [...parts.headHeld, ...terms.gatheredGrads],
    tail: [...terms.activations.maskHeld, ...parts.recompute, parts.working, ...terms.dequantC, ...parts.kept],
  };
}

/**
 * Inside a layer's recompute, before its backward's working set: the recompute's own high point, which holds a
 * quantized weight's dequantized copy where its matmul runs (the sequence makes it), instead of the recomputed layer,
 * its working set and dequantized weight; empty without such a point.
 */
function inRecompute(terms: StageTerms, parts: BackwardParts, point: Component[], working: Component): Component[] {
  if (parts.recomputePeak.length === 0) return [];
  const replaced = new Set([working, ...parts.recompute, ...terms.dequantC]);
  return [...point.filter((c) => !replaced.has(c)), ...parts.recomputePeak];
}

/**
 * The candidate high points of the backward: at the loss, through the last layer, at the first layer, and at the
 * tied embedding (empty when the head is not tied).
 */
export function backwardCandidates(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  gradC: GradientShare,
): BackwardPoint[] {
  const { gatheredAt } = terms;
  const { gradAtFirst, embGradLater, unsynced } = terms.grads;
  const parts = backwardParts(ctx, st, terms, gradC);
  const atLastLayer = atLastLayerPoint(ctx, terms, parts);
  const layerParts = layerPointParts(terms, parts);
  const atFirstLayer: Component[] = [
    ...layerParts.head,
    gradC(gradAtFirst, embGradLater > 0 ? " (all but the embedding's, which comes after the first layer)" : ''),
    ...layerParts.afterGrads,
    ...gatheredAt.firstLayer,
    ...layerParts.afterUnits,
    ...terms.frozenUnitInputs,
    ...layerParts.tail,
  ];
  const lastLayer = [...gatheredAt.lastLayer, ...parts.recompute, parts.lastWorking, ...terms.dequantC];
  const endHeld = [...parts.unsyncedFirst, ...parts.headHeld];
  const rootUnsynced = unsynced ? [unsynced.atRootGradient, ...parts.headHeld] : undefined;
  const embeddingHeld = [...parts.unsyncedFirst, ...gatheredAt.firstLayer, ...parts.headHeld];
  return [
    [atLossPoint(ctx, terms, parts), LOSS_BACKWARD_NOTE],
    [atLastLayer, 'backward through the last layer: activations + one layer recomputed/in flight'],
    [
      inRecompute(terms, parts, atLastLayer, parts.lastWorking),
      "inside the last layer's recompute: activations + the recomputed layer at its high point",
    ],
    [
      secondLayerPoint(ctx, st, terms, gradC, layerParts),
      "backward through the second layer: the first layer's unit prefetched",
    ],
    [
      transitionPoint(ctx, terms, atLastLayer, lastLayer),
      "between two layers' backwards: the next layer's unit gathered before the last is resharded",
    ],
    [
      headCheckPoint(ctx, st, terms, parts),
      "ZeRO-Offload checks the output head's gradient as the final norm's arrives: activations + the head's gradient",
    ],
    [atFirstLayer, 'end of backward: all gradients + the first layer in flight'],
    [
      inRecompute(terms, parts, atFirstLayer, parts.working),
      "end of backward: all gradients + the first layer's recompute at its high point",
    ],
    [
      embGradLater > 0 ? [...parts.persistent, gradC(terms.grads.gradAtEnd, ''), ...embeddingHeld, ...parts.kept] : [],
      "end of backward: all gradients, the token embedding's made after the first layer's backward",
    ],
    [
      embeddingPoint(ctx, terms, gradC, [...parts.persistent], embeddingHeld),
      'end of backward: all gradients + the embedding gradient of the tied head',
    ],
    [
      // FSDP's root unit (the shared embedding and the head) is still gathered there.
      decoderEmbeddingPoint(ctx, terms, gradC, [...parts.persistent, ...parts.headHeld]),
      "the decoder's embedding backward: the encoder's activations all kept, the decoder's and the head's gradients made",
    ],
    [
      rootGradientPoint(terms, gradC, parts.persistent, endHeld),
      "end of backward: FSDP1's root unit makes its flat gradient",
    ],
    [
      rootUnsynced ? unsyncedRootGradientPoint(terms, parts.persistent, rootUnsynced) : [],
      "end of a micro-batch's backward before the last: FSDP1's root unit makes its flat gradient beside every unit's " +
        'kept unsharded gradient (no_sync)',
    ],
  ];
}

/**
 * ZeRO-Offload's check of the output head's gradient (terms/zero-offload-checks.ts), after the loss's buffers and the
 * head's matmul are gone: every activation, the last layer's parameters gathered ahead, the gradient of the hidden
 * states and the head's whole gradient with its checks; empty where no head is checked.
 */
function headCheckPoint(ctx: EstimateContext, st: StageContext, terms: StageTerms, parts: BackwardParts): Component[] {
  const head = headCheckComponents(ctx, st);
  if (head.length === 0) return [];
  const { actComp, maskHeld, castComp } = terms.activations;
  return [
    ...parts.persistent,
    ...terms.gatheredAt.lastLayer,
    actComp,
    ...maskHeld,
    ...castComp,
    hiddenGradient(ctx, terms, "the final norm's input"),
    ...head,
    ...parts.kept,
  ];
}

/** The gradient of a layer's output (or the final norm's input): tokens x hidden in the residual stream's bytes. */
function hiddenGradient(ctx: EstimateContext, terms: StageTerms, what: string): Component {
  return comp(
    ctx,
    'activations',
    `Gradient of ${what}`,
    terms.activations.layer.layerInputBytes,
    () => 'tokens x hidden x the residual stream bytes',
    () => ({}),
  );
}

/**
 * FSDP1 without backward prefetch, between two layers' backwards (GatheredAt.layerTransition): the last-layer point
 * without its layer (`layer`: its unit, recompute, working set and dequantized weight), with the two units and the
 * gradient of the layer output that passes between them; empty where there is no such point.
 */
function transitionPoint(
  ctx: EstimateContext,
  terms: StageTerms,
  atLastLayer: Component[],
  layer: Component[],
): Component[] {
  const units = terms.gatheredAt.layerTransition;
  if (!units) return [];
  const passed = hiddenGradient(ctx, terms, "a layer's output (between two layers' backwards)");
  return [...atLastLayer.filter((c) => !layer.includes(c)), ...units, passed];
}

/** What the first and the second layers' backward points share, in the order they are listed. */
interface LayerPointParts {
  /** The persistent components. */
  readonly head: Component[];
  /** After the gradients: the unsynced ones. */
  readonly afterGrads: Component[];
  /** After the gathered units: the root unit and one unit's unsharded gradients. */
  readonly afterUnits: Component[];
  /** The mask, the recomputed layer, its working set, dequantized weights and held blocks. */
  readonly tail: Component[];
}

/**
 * FSDP with backward prefetch: the second layer's backward, with the first layer's unit gathered beside its own, the
 * first layer's kept activations and every layer's sharded gradient but the first's (empty without prefetch). Its
 * sharded gradient is smaller than a unit, so with many ranks this is the backward's high point: H100 history of
 * Llama-3.1-8B under FSDP2 at 16 ranks, the local highs of the layers' backwards rise by 37.7 MB a layer (a 54,528,000 B
 * gradient shard made, a 16,777,216 B checkpointed input freed) up to the second layer's, 12,900.7 MB; the first
 * layer's, with nothing to prefetch, is 398 MB below it.
 */
function secondLayerPoint(
  ctx: EstimateContext,
  st: StageContext,
  terms: StageTerms,
  gradC: GradientShare,
  parts: LayerPointParts,
): Component[] {
  const second = terms.gatheredAt.secondLayer;
  if (!second) return [];
  const { actComp } = terms.activations;
  const grads = Math.max(0, terms.grads.gradAtFirst - second.layerGradBytes);
  return [
    ...parts.head,
    gradC(grads, " (all but the first layer's and the embedding's)"),
    ...parts.afterGrads,
    ...second.units,
    ...parts.afterUnits,
    comp(
      ctx,
      'activations',
      "The first layer's kept activations",
      st.layersHere > 0 ? actComp.bytes / st.layersHere : 0,
      () => `${actComp.label}: one layer's share`,
      () => ({}),
    ),
    ...parts.tail,
  ];
}

/**
 * FSDP1's root unit makes its flat gradient once the embedding's is produced (terms/fsdp1-root-gradient.ts): every
 * layer unit's sharded gradient, the root's unsharded parameters and its gradients, before its own reduce-scatter
 * (empty without a root unit that trains). `held`: the unsynced gradients and the root unit, listed after the gradients.
 */
function rootGradientPoint(
  terms: StageTerms,
  gradC: GradientShare,
  persistent: Component[],
  held: Component[],
): Component[] {
  if (terms.rootGradient.length === 0) return [];
  const grads = terms.grads.gradAtEnd - terms.grads.rootGradShard;
  return [
    ...persistent,
    gradC(grads, " (every layer unit's; the root's is reduce-scattered next)"),
    ...held,
    ...terms.rootGradient,
    ...terms.held.logits,
    ...terms.held.stepCache,
  ];
}

/**
 * The same under no_sync in a micro-batch before the last: no unit has reduce-scattered, so every layer unit's unsharded
 * gradient is there (and the root's of the micro-batches before, into which the new flat gradient is then added in
 * place), and no sharded gradient. LitGPT's Gemma-2B full fine-tune over 4 A10Gs under Fabric's FSDP1 (config hub,
 * April 2024, 4 micro-batches a step): 17.43 GB published, 15.4 GB from the last micro-batch's points.
 */
function unsyncedRootGradientPoint(terms: StageTerms, persistent: Component[], held: Component[]): Component[] {
  if (terms.rootGradient.length === 0) return [];
  return [...persistent, ...held, ...terms.rootGradient, ...terms.held.logits, ...terms.held.stepCache];
}

/** The loss's backward: the gradient of the logits, by the kind of log-probabilities. */
function lossBackward(ctx: EstimateContext, terms: StageTerms): Component {
  const setup = ctx.setup;
  const { rollout, onlineDpo } = ctx.methods;
  const pref = setup.preference;
  return comp(
    ctx,
    'loss-backward',
    'Loss backward (gradient of logits)',
    terms.lossBwd,
    () =>
      onlineDpo
        ? "the gather's and log_softmax's gradients of the completion slice, then the zero-filled gradient of every position's logits"
        : (pref?.logps === 'rows' || rollout) && setup.loss !== 'fused'
          ? "the rows' log_softmax gradients and the logits' gradient stacked from them"
          : setup.loss === 'chunked-nll'
            ? "the last chunk's recompute under checkpointing (TRL chunked_nll), then its nll_loss and log_softmax gradients"
            : 'nll_loss and log_softmax gradients of the logits',
    () => ({}),
  );
}

/**
 * The embedding's backward, after the first layer's: its gradient meets the tied head's there (empty where the head is
 * not tied, or nothing trains it). Under FSDP2 the root unit still holds the head's unsharded gradient and has not made
 * its shard (terms/fsdp2-root-gradient.ts).
 */
function embeddingPoint(
  ctx: EstimateContext,
  terms: StageTerms,
  gradC: GradientShare,
  persistent: Component[],
  held: Component[],
): Component[] {
  if (terms.tiedAccum <= 0) return [];
  const { shardLaterBytes, held: rootGradient } = terms.fsdp2Root;
  const note = shardLaterBytes > 0 ? " (all but the root unit's, reduce-scattered after the embedding's)" : '';
  return [
    ...persistent,
    gradC(terms.grads.gradAtEnd - shardLaterBytes, note),
    ...held,
    ...rootGradient,
    tiedAccumComponent(ctx, terms.tiedAccum),
    ...terms.held.logits,
    ...terms.held.stepCache,
  ];
}

/**
 * An encoder-decoder's (T5's, BART's) full fine-tune: the decoder's token lookup needs only its first layer's gradient, so its
 * backward runs before any encoder layer's, with the encoder's activations all kept. The shared embedding's gradient is
 * not stored yet (the encoder's lookup adds to it last): the lookup's gradient in autograd's buffer, beside the tied
 * head's and their sum. CPU truth seq2seq/t5-small-full-fp32-t32: the backward's peak, `aten::add <
 * EmbeddingBackward0`, 764 MB above the step's start. Empty for a decoder-only model or a frozen embedding.
 */
function decoderEmbeddingPoint(
  ctx: EstimateContext,
  terms: StageTerms,
  gradC: GradientShare,
  persistent: readonly Component[],
): Component[] {
  const encoder = terms.activations.layer.encoderStackBytes;
  const { arch: a, inventory: inv } = ctx.model;
  // Checkpointed, the encoder keeps only its layers' inputs there: a point below the others.
  const checkpointed = ctx.setup.gradient_checkpointing !== 'none';
  if (encoder === undefined || ctx.setup.method !== 'full' || inv.trainable <= 0 || checkpointed) return [];
  const encoderParams = a.encoderLayers * encoderLayerParameters(a);
  const made = Math.max(0, 1 - (encoderParams + inv.embedding) / inv.trainable);
  // A tied head's gradient waits in the same buffer: with the lookup's and their sum (tiedAccum) three tensors.
  const one = tiedGradientBytes(ctx);
  const lookup = terms.tiedAccum > 0 ? terms.tiedAccum + one : one;
  return [
    ...persistent,
    gradC(terms.grads.gradAtEnd * made, " (the decoder's layers' and the head's; the encoder's come later)"),
    comp(
      ctx,
      'activations',
      "The encoder's activations (its layers' backward comes after the decoder's)",
      encoder,
      () => `${a.encoderLayers} encoder layers x saved per layer`,
      () => ({ layers: a.encoderLayers }),
    ),
    comp(
      ctx,
      'backward-working',
      "The decoder's token lookup's gradient (the shared embedding's, not stored before the encoder's adds to it)",
      lookup,
      () =>
        terms.tiedAccum > 0
          ? `${Math.round(lookup / one)} x ${tiedGradientFormula(ctx)}: the tied head's, the lookup's and their sum`
          : tiedGradientFormula(ctx),
      () => ({ vocab: a.vocab, hidden: a.hidden }),
    ),
  ];
}

/**
 * The tied weight's second gradient at the embedding's backward (terms/gradients.ts accumulationBuffers): beside the
 * head's, the lookup's and, when the head's is a matmul's view, their sum in a new tensor.
 */
function tiedAccumComponent(ctx: EstimateContext, tiedAccum: number): Component {
  const a = ctx.model.arch;
  const one = tiedGradientBytes(ctx);
  const copies = Math.round(tiedAccum / one);
  const each = tiedGradientFormula(ctx);
  return comp(
    ctx,
    'backward-working',
    "Embedding gradient summed with the tied output head's",
    tiedAccum,
    () =>
      copies > 1
        ? `${copies} x ${each}: the lookup's gradient and its sum with the head's, a view of the head's matmul that ` +
          'autograd cannot add to in place: all three alive until the sum is stored'
        : `${each}: the lookup's gradient, added in place to the head's (a sum of chunks already, a new tensor from ` +
          "autocast's cast of the fp32 head, or the fused loss's own)",
    () => ({ vocab: a.vocab, hidden: a.hidden, copies }),
  );
}
