// Term: the small pool's cache at the loss. The caching allocator serves requests of at most 1 MiB from 2 MiB segments
// of their own (kSmallBuffer), which larger requests never use (c10/cuda/CUDACachingAllocator.cpp get_pool). LoRA's
// adapter matrices are mostly that small (r x in x 4 B: 256 KiB at r 16 and 4,096 features), and so are their
// gradients and AdamW's foreach temporaries (torch._foreach_sqrt of the second moments, a copy of each state tensor).
// The previous step held them together at its optimizer step and freed them (zero_grad(set_to_none=True), the step's
// end); by the loss's backward the forward's small saved tensors (lora_A outputs, per-row statistics) have taken some
// of those blocks back, and the rest stays cached and free. Replaying HF Trainer sequences shows it: 18.9 MB free in
// the small pool at the loss of a two-layer Llama-2-7B-width LoRA on every linear (tools/truth/FINDINGS.md §8).
// Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import { runtimeTerm } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import type { RuntimeTerm } from '../model';
import { formatBytes, formatCount } from '../units';
import { SMALL_SIZE } from './allocator';
import type { StageForward } from './forward-cache';

/**
 * The small pool's free bytes at the loss's backward under LoRA: the previous step's small adapter gradients and
 * AdamW foreach temporaries, less the small tensors the stage's layers saved since. Undefined without LoRA, with
 * sharded or offloaded gradients or optimizer (ZeRO, FSDP: flat buffers), under tensor parallelism, and when nothing
 * is left.
 */
export function smallPoolTerm(ctx: EstimateContext, forward: StageForward): RuntimeTerm | undefined {
  const setup = ctx.setup;
  const { lora, targets } = ctx.methods;
  const { zeroStage, fsdp, offloadOptimizer, fsdpOffload } = ctx.sharding;
  if (
    !lora ||
    zeroStage > 0 ||
    fsdp ||
    offloadOptimizer ||
    fsdpOffload ||
    ctx.layout.tensorParallel > 1 ||
    setup.optimizer_in_backward
  )
    return undefined;
  const { adapterBytes, stateBytes } = ctx.dtypes;
  const share = forward.layers / ctx.model.arch.layers;
  let smallParams = 0;
  for (const m of ctx.model.modules) {
    if (!targets.has(m.name)) continue;
    const shapes = [lora.r * m.inFeatures, m.outFeatures * lora.r, ...(lora.use_dora ? [m.outFeatures] : [])];
    for (const elems of shapes) if (elems * adapterBytes <= SMALL_SIZE) smallParams += elems * m.count * share;
  }
  // With gradient accumulation the gradients stay allocated from one micro-step to the next (counted in the peak).
  const grads = setup.gradient_accumulation_steps > 1 ? 0 : smallParams * adapterBytes;
  const temps = setup.optimizer === 'adamw' ? smallParams * stateBytes : 0;
  const saved = setup.gradient_checkpointing === 'none' ? smallSavedPerLayer(forward) * forward.layers : 0;
  return runtimeTerm(
    ctx,
    'small-pool',
    "Small pool: the previous step's adapter gradients and optimizer temporaries",
    Math.round(grads + temps - saved),
    () =>
      `adapter tensors of at most 1 MiB (${formatCount(smallParams)} params): gradients ${formatBytes(grads)} + ` +
      `AdamW foreach temporaries ${formatBytes(temps)}, freed into 2 MiB small-pool segments that only small ` +
      `requests reuse, less the layers' small saved tensors ${formatBytes(saved)}`,
  );
}

/** Bytes of the small tensors (at most 1 MiB) one block's forward keeps for backward. */
function smallSavedPerLayer(forward: StageForward): number {
  const seq = forward.sequence;
  if (!seq) return 0;
  let sum = 0;
  seq.bytes.forEach((b, i) => {
    if ((seq.saved[i] || seq.held[i]) && b > 0 && b <= SMALL_SIZE) sum += b;
  });
  return sum;
}
