// Term: FSDP2's root unit holds a tied head's unsharded gradient until the embedding's backward is done.
//   FSDP2 reduce-scatters a unit's gradients in that unit's post-backward (torch/distributed/fsdp/_fully_shard
//   _fsdp_param_group.py post_backward, foreach_reduce), which for the root unit (embeddings, final norm and a tied
//   output head: what the per-layer fully_shard calls leave over) runs once the last of its parameters has its
//   gradient: the embedding's, after the first layer. A tied head's gradient, made at the loss in the compute dtype,
//   waits through the whole backward beside the lookup's gradient and their sum; the root's sharded gradient does not
//   exist yet:
//     at the embedding's backward: + V x h / TP x 16-bit (the head's gradient), - the root's sharded gradient.
//   GPU truth (H100, 2026-11-26): qwen2.5-1.5b (tied) full fine-tune, fp32 weights, FSDP2 over 8 ranks, 2 x 128
//   tokens: max_memory_allocated 5,021.9 MB at the embedding's backward, with 4 x 466.75 MB live (the root's bf16
//   parameters, the head's gradient, the lookup's, their sum) and none of the root's 116.7 MB sharded gradient.
//   FSDP1 makes a flat gradient of its root instead (terms/fsdp1-root-gradient.ts).
// Docs: docs/estimate/parallelism.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { tiedGradientBytes, tiedGradientFormula } from './gradients';

/** What FSDP2's root unit holds at the embedding's backward: the tied head's gradient, and the root's shard not made. */
export interface Fsdp2RootGradient {
  /** The tied head's unsharded gradient (empty where the root holds none). */
  readonly held: Component[];
  /** The root's sharded gradient, reduce-scattered only after the embedding's backward (bytes). */
  readonly shardLaterBytes: number;
}

const NONE: Fsdp2RootGradient = { held: [], shardLaterBytes: 0 };

/** FSDP2's root unit at the embedding's backward, for a full fine-tune of a model with a tied head on one stage. */
export function fsdp2RootGradient(ctx: EstimateContext, st: StageContext): Fsdp2RootGradient {
  const setup = ctx.setup;
  const a = ctx.model.arch;
  const { rootUnit, fsdpOffload, shardGrads } = ctx.sharding;
  const applies =
    rootUnit &&
    setup.fsdp_version === 2 &&
    setup.method === 'full' &&
    a.tied &&
    ctx.model.lmHead &&
    st.first &&
    st.last;
  if (!applies) return NONE;
  const bytes = tiedGradientBytes(ctx);
  const held = comp(
    ctx,
    'backward-working',
    "FSDP2 root unit: the tied head's unsharded gradient",
    bytes,
    () =>
      `${tiedGradientFormula(ctx)}: made at the loss, kept until the root's post-backward reduce-scatters it after ` +
      "the embedding's gradient",
    () => ({ vocab: a.vocab, hidden: a.hidden }),
  );
  // Under CPU offload FSDP2 moves each sharded gradient to the host: none is on the GPU at the end (gradAtEnd 0).
  const shardLaterBytes = fsdpOffload
    ? 0
    : ((ctx.model.inventory.embedding / ctx.layout.tensorParallel) * ctx.dtypes.gradBytes) / shardGrads;
  return { held: [held], shardLaterBytes };
}
