// Term: what PEFT's prepare_model_for_kbit_training leaves reserved. On a 4/8-bit model, which the load put on the GPU,
// it casts every parameter that is not quantized and not fp32 to fp32, one at a time (peft/utils/other.py:
// `param.data = param.data.to(torch.float32)`): each fp32 tensor is allocated while its 16-bit one still lives, and the
// 16-bit one is freed into the caching allocator. TRL's SFTTrainer before its November 2025 clean-up
// (peft_module_casting_to_bf16, trl@v0.24.0 trl/models/utils.py) and qlora.py's loop then cast the embeddings and the
// head back to bf16: the bf16 tensors take the cached 16-bit blocks, and the fp32 copies are freed in their turn.
// max_memory_reserved keeps the set-up's level: the weights as they end up, and the copies that are not part of them
// (the fp32 embeddings and head after a cast back, their 16-bit originals otherwise). Nothing frees those segments
// (no empty_cache), and the step's tensors take their free blocks first, so they count where that level exceeds the
// step's own. The GPU's memory bounds the level: a request that finds no room makes the allocator free its wholly free
// segments before it reports out of memory. Published figure: TRL's sft_trl_lora_qlora notebook (trl@f6834206a,
// Qwen3-14B QLoRA under TRL 0.24 on a T4) prints 12.074 GB reserved once the trainer is made and 14.041 GB at the end.
// Pure arithmetic; no I/O. Docs: docs/estimate/runtime.md
import type { PhaseEstimate, RuntimeTerm } from '../model';
import type { EstimateContext } from '../estimate/context';
import { MODEL_TENSOR_IDS, runtimeTerm, sum, usableGpuBytes } from '../estimate/component';
import { formatBytes, formatCount } from '../units';

/**
 * The copies the set-up made and freed, in bytes, and what they are; undefined where prepare_model_for_kbit_training
 * does not run on the GPU's copy of a quantized model (no upcast, GPTQ, a model FSDP or ZeRO-3 shards).
 */
function kbitSetupCopies(ctx: EstimateContext): { bytes: number; what: string } | undefined {
  const { setup } = ctx;
  const { kbitQuantized, weightBytes } = ctx.dtypes;
  const { fsdp, zeroStage } = ctx.sharding;
  if (kbitQuantized === 'none' || fsdp || zeroStage === 3) return undefined;
  if (ctx.layout.tensorParallel > 1 || ctx.layout.pipelineParallel > 1) return undefined;
  const { embedding, head } = ctx.model.inventory;
  const params = embedding + head;
  if (params <= 0) return undefined;
  if (kbitQuantized === 'norms' && setup.kbit_cast_back)
    return {
      bytes: params * 4,
      what: `${formatCount(params)} embedding and head params x 4 B (fp32 copies, cast back)`,
    };
  if (kbitQuantized === 'all' && weightBytes < 4)
    return {
      bytes: params * weightBytes,
      what: `${formatCount(params)} embedding and head params x ${weightBytes} B (their ${weightBytes * 8}-bit originals)`,
    };
  return undefined;
}

/**
 * The set-up's reserved level where it exceeds the step's (`reservedSoFar`), within the GPU beside `outside` (what is
 * outside the allocator, and a paged optimizer's working state, which the step needs resident): the allocator frees
 * these blocks before it runs out of memory, so they never decide the fit.
 */
export function kbitSetupCacheTerm(
  ctx: EstimateContext,
  peak: PhaseEstimate,
  reservedSoFar: number,
  outside: number,
): RuntimeTerm | undefined {
  const copies = kbitSetupCopies(ctx);
  if (!copies) return undefined;
  // The model's own tensors as the set-up leaves them: the weights as cast, the 4/8-bit storage and the adapters,
  // which get_peft_model adds before TRL's cast back.
  const weights = sum(peak.components.filter((c) => MODEL_TENSOR_IDS.has(c.id)));
  const level = Math.min(weights + copies.bytes, usableGpuBytes(ctx) - outside);
  return runtimeTerm(
    ctx,
    'kbit-setup-cache',
    "Blocks prepare_model_for_kbit_training's casts left cached",
    level - reservedSoFar,
    () =>
      `the model's tensors ${formatBytes(weights)} (weights, 4/8-bit storage, adapters) + ${copies.what} ` +
      `${formatBytes(copies.bytes)}: max_memory_reserved keeps the set-up's level; the step's tensors reuse those ` +
      `free blocks, so it counts above the step's ${formatBytes(reservedSoFar)}`,
  );
}
