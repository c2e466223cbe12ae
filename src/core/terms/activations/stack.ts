// The stack of decoder layers: one block replay per kind of layer (dense or MoE, rotary or NoPE, linear or full
// attention, a Nemotron-H mixer), averaged by layer count. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { blockActivations } from './block';
import type { ActivationPlan, LayerActivations } from './plan';

/**
 * What one block saves, averaged over the layer kinds of the model (uncached: see layerActivations). Under adapters,
 * also what the first block saves when its input does not require grad (`frozenInputBytes`), in the same memo entry.
 */
export function layerActivationsUncached(p: ActivationPlan): LayerActivations {
  const layer = stackActivations(p);
  if (!p.inputRequiresGrad || !(p.lora || p.ia3 || p.expertLora)) return layer;
  return { ...layer, frozenInputBytes: stackActivations({ ...p, inputRequiresGrad: false }).bytesPerLayer };
}

function stackActivations(p: ActivationPlan): LayerActivations {
  const moe = p.arch.moe;
  const pattern = p.arch.layerPattern;
  const linearPattern = p.arch.linearAttention?.pattern ?? p.arch.mamba?.pattern ?? p.arch.mamba1?.pattern;
  const mixedLinear = linearPattern !== undefined && linearPattern.some((x) => x !== linearPattern[0]);
  // LoRA on expert parameters of some layers only (target_parameters naming layer indices).
  const someLayers = p.expertLora?.targets.some((t) => t.indices !== undefined) === true;
  const blockKinds = p.arch.blockKinds;
  if (
    !(moe && moe.moeLayers < p.arch.layers) &&
    !(pattern && pattern.rope.some((r) => r !== pattern.rope[0])) &&
    !mixedLinear &&
    !someLayers &&
    !blockKinds
  ) {
    return blockActivations(
      p,
      true,
      true,
      linearPattern?.[0] === true,
      p.expertLora ? p.expertLora.targets.map((t) => t.name) : [],
    );
  }
  // Layers of different kinds: dense and MoE (DeepSeek's and GLM-4.5's first layers, Qwen2-MoE's mlp_only_layers,
  // Llama 4 Maverick), rotary and NoPE (Llama 4), linear and full attention (Qwen3-Next, Qwen3.5): the average block,
  // weighted by layer count.
  const kinds = new Map<
    string,
    {
      moeBlock: boolean;
      rope: boolean;
      linearLayer: boolean;
      adapted: string[];
      blockKind?: 'M' | '*' | '-' | 'E';
      n: number;
    }
  >();
  const order: string[] = [];
  for (let i = 0; i < p.arch.layers; i++) {
    const moeBlock = blockKinds
      ? blockKinds[i] === 'E'
      : pattern
        ? pattern.moe[i]
        : p.arch.moeMask
          ? p.arch.moeMask[i]
          : i >= p.arch.layers - (moe?.moeLayers ?? 0);
    const rope = pattern ? pattern.rope[i] : true;
    const linearLayer = linearPattern?.[i] === true;
    const adapted =
      moeBlock && p.expertLora
        ? p.expertLora.targets.filter((t) => !t.indices || t.indices.has(i)).map((t) => t.name)
        : [];
    const blockKind = blockKinds?.[i];
    const k = `${moeBlock}|${rope}|${linearLayer}|${adapted.join(',')}|${blockKind ?? ''}`;
    order.push(k);
    const c = kinds.get(k);
    if (c) c.n++;
    else kinds.set(k, { moeBlock, rope, linearLayer, adapted, ...(blockKind ? { blockKind } : {}), n: 1 });
  }
  const byKey = new Map(
    [...kinds].map(([k, c]) => [k, blockActivations(p, c.moeBlock, c.rope, c.linearLayer, c.adapted, c.blockKind)]),
  );
  const blocks = [...kinds].map(([k, c]) => ({ ...c, l: byKey.get(k)! }));
  const sum = (bs: typeof blocks, f: (l: LayerActivations) => number): number =>
    bs.reduce((t, c) => t + f(c.l) * c.n, 0);
  const count = (bs: typeof blocks): number => bs.reduce((t, c) => t + c.n, 0);
  const avg = (f: (l: LayerActivations) => number): number => sum(blocks, f) / p.arch.layers;
  const sparse = blocks.filter((c) => c.moeBlock);
  const dense = blocks.filter((c) => !c.moeBlock);
  const largest = blocks.reduce((a, b) => (b.l.bytesPerLayer > a.l.bytesPerLayer ? b : a));
  return {
    ...(sparse[0] ?? blocks[0]).l,
    bytesPerLayer: avg((l) => l.bytesPerLayer),
    selectiveBytes: avg((l) => l.selectiveBytes),
    weightCopyBytesPerLayer: avg((l) => l.weightCopyBytesPerLayer),
    cachedWeightCopyBytesPerLayer: avg((l) => l.cachedWeightCopyBytesPerLayer ?? l.weightCopyBytesPerLayer),
    contextHeldBytes: avg((l) => l.contextHeldBytes ?? 0),
    backwardWorkingBytes: Math.max(...blocks.map((c) => c.l.backwardWorkingBytes)),
    workingWithMlpGradientsBytes: Math.max(
      ...blocks.map((c) => c.l.workingWithMlpGradientsBytes ?? c.l.backwardWorkingBytes),
    ),
    ...outputNormWorking(blocks.map((c) => c.l)),
    ...(p.baseTrainable ? {} : { workingBelowReleasedBytes: workingBelowReleased(order.map((k) => byKey.get(k)!)) }),
    largestLayerBytes: largest.l.bytesPerLayer,
    ...highestRecompute(blocks.map((c) => c.l)),
    ...highestCheckpointedForward(blocks.map((c) => c.l)),
    kinds: {
      dense: dense.length ? sum(dense, (l) => l.bytesPerLayer) / count(dense) : 0,
      moe: sparse.length ? sum(sparse, (l) => l.bytesPerLayer) / count(sparse) : 0,
      denseLayers: count(dense),
    },
  };
}

/** The kind of layer whose recompute holds the most, with the gradients beside it (a layer of every kind is recomputed). */
function highestRecompute(
  layers: readonly LayerActivations[],
): Pick<LayerActivations, 'recomputeHighBytes' | 'recomputeEntryGradBytes'> {
  const total = (l: LayerActivations): number => (l.recomputeHighBytes ?? 0) + (l.recomputeEntryGradBytes ?? 0);
  const top = layers.reduce((m, l) => (total(l) > total(m) ? l : m));
  return top.recomputeHighBytes === undefined
    ? {}
    : { recomputeHighBytes: top.recomputeHighBytes, recomputeEntryGradBytes: top.recomputeEntryGradBytes };
}

/**
 * The kind of layer whose checkpointed forward holds the most (the last layer of that kind runs with every input
 * kept); unknown when a kind has no such figure (a mixer's kernel).
 */
function highestCheckpointedForward(
  layers: readonly LayerActivations[],
): Pick<LayerActivations, 'checkpointedForwardHighBytes'> {
  const highs = layers.map((l) => l.checkpointedForwardHighBytes);
  return { checkpointedForwardHighBytes: highs.every((h) => h !== undefined) ? Math.max(...highs) : undefined };
}

/**
 * The backward runs the layers last to first, each releasing what it saved: at layer i the layers above it hold
 * nothing. The largest of (working set of layer i - bytes saved by the layers after i), layers in model order.
 */
function workingBelowReleased(layers: readonly LayerActivations[]): number {
  let released = 0;
  let high = -Infinity;
  for (let i = layers.length - 1; i >= 0; i--) {
    high = Math.max(high, layers[i].backwardWorkingBytes - released);
    released += layers[i].bytesPerLayer;
  }
  return high;
}

/** The largest output norm's backward working set over the blocks that end in one (LayerActivations.outputNormWorkingBytes). */
function outputNormWorking(ls: readonly LayerActivations[]): { outputNormWorkingBytes?: number } {
  const bytes = Math.max(0, ...ls.map((l) => l.outputNormWorkingBytes ?? 0));
  return bytes > 0 ? { outputNormWorkingBytes: bytes } : {};
}
