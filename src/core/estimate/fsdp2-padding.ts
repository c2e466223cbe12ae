// FSDP2's dim-0 shards of fused MoE experts. fully_shard splits each parameter along dim 0 into chunks of ceil(d0 / S)
// rows and pads every rank's shard to the first chunk's size (torch/distributed/fsdp/_fully_shard/_fsdp_param.py
// FSDPParam._init_sharded_param: _chunk_with_empty, padded_sharded_param_size = chunks[0].size()); the all-gather
// output is S padded shards. For a linear weight d0 is thousands of rows and the padding nothing; for the 3-D experts
// of transformers 5 ([E, 2I, H] gate_up_proj, [E, H, I] down_proj) and of gpt-oss and Llama 4 (their own [E, H, 2I]
// and [E, I, H], gpt-oss's biases [E, 2I] and [E, H]) d0 is the expert count, so when S does not divide E
// a rank holds ceil(E / S) experts of each tensor: S x ceil(E / S) / E times its even share (Mixtral's 8 experts over
// 16 GPUs: 2x). FSDP1 flattens a unit's parameters into one flat parameter and pads only its end. Pure.
// Docs: docs/estimate/parallelism.md
import { expertsIn3dParameters } from '../architecture';
import type { EstimateContext } from './context';

/**
 * How many times its even share (1 / S) of the fused expert parameters a rank holds under FSDP2 sharding over S
 * GPUs: S x ceil(E / S) / E; 1 where FSDP2 does not shard fused experts this way (FSDP1, ZeRO, per-expert linears,
 * expert parallelism, which places whole experts).
 */
export function fsdp2ExpertPadding(ctx: EstimateContext, S: number): number {
  const a = ctx.model.arch;
  const setup = ctx.setup;
  const fsdp2 = setup.fsdp_version === 2 && setup.fsdp !== 'none' && setup.fsdp !== 'no_shard';
  if (!a.moe || !expertsIn3dParameters(a) || !fsdp2 || ctx.layout.expertParallel > 1) return 1;
  if (!Number.isFinite(S) || S <= 1) return 1;
  const E = a.moe.experts;
  return (S * Math.ceil(E / S)) / E;
}

/** Says where FSDP2's padding of the experts adds memory, with the numbers, and asks for fsdp_version where unknown. */
export function fsdp2PaddingNotes(ctx: EstimateContext): void {
  const a = ctx.model.arch;
  const setup = ctx.setup;
  const S = ctx.sharding.shardParams;
  if (!a.moe || !expertsIn3dParameters(a) || setup.fsdp === 'none' || setup.fsdp === 'no_shard' || S <= 1) return;
  const E = a.moe.experts;
  if (E % S === 0 || ctx.layout.expertParallel > 1) return;
  const perRank = Math.ceil(E / S);
  const times = `${+((S * perRank) / E).toFixed(2)}x`;
  if (setup.fsdp_version === undefined) {
    ctx.notes.assumptions.push({
      key: 'fsdp_version',
      value: '1',
      source:
        `VRAM Lens default: FSDP1, Accelerate's default (fsdp_version: 2 would shard the ${E} fused experts of each ` +
        `layer along dim 0 over ${S} GPUs: ${perRank} per GPU, ${times} the even share)`,
    });
    return;
  }
  if (setup.fsdp_version !== 2) return;
  ctx.notes.warnings.push({
    key: 'fsdp_version',
    code: 'fused-experts',
    message:
      `FSDP2 shards each fused expert tensor along its first dimension, the ${E} experts: over ${S} GPUs every GPU ` +
      `holds ${perRank} (padded), ${times} the even share, in its weight, gradient and optimizer ` +
      `shards, and each all-gather fills ${S * perRank} experts' rows; a GPU count that divides ${E} avoids it`,
  });
}
