// Host memory for offload: what DeepSpeed's CPU Adam / FSDP's CPU offload keep on each node (fp32 master weights,
// optimizer state and fp32 gradients per trainable parameter; the parameters themselves under parameter offload),
// in RAM or on NVMe, paged optimizer state evicted from the GPU, and states kept on the host between their uses.
// Docs: docs/estimate/parallelism.md. Pure.
import { optimizerStateBytes } from '../terms/optimizer-states';
import type { EstimateContext } from './context';

/** Bytes per node in host RAM and on NVMe. */
export function hostMemory(
  ctx: EstimateContext,
  pagedBytes: number,
  pagedResident: number,
): { cpuBytes: number; nvmeBytes: number } {
  const setup = ctx.setup;
  const inv = ctx.model.inventory;
  const { shardOptimizer, shardParams, offloadOptimizer: offloadOpt, offloadParams, fsdpOffload } = ctx.sharding;
  const wb = ctx.dtypes.weightBytes;
  const perNode = setup.gpus_per_node;
  let cpuBytes = 0;
  let nvmeBytes = 0;
  if (offloadOpt || fsdpOffload) {
    // DeepSpeed CPU Adam / FSDP CPU offload keep fp32 master weights, optimizer state and fp32 gradients on the host.
    const perRank = (inv.trainable / shardOptimizer) * (4 + optimizerStateBytes(ctx).perParamBytes + 4);
    if (setup.offload_optimizer === 'nvme') nvmeBytes += perRank * perNode;
    else cpuBytes += perRank * perNode;
  }
  // States moved to the host between their uses (RL2, prime-rl, verl) live there the rest of the time.
  if (setup.optimizer_states_gpu !== 'always' && !offloadOpt && !fsdpOffload)
    cpuBytes += (optimizerStateBytes(ctx).bytes / shardOptimizer) * perNode;
  // Weights moved to the host while a colocated engine generates (verl's param_offload): each GPU's shard.
  if (setup.weights_gpu === 'training' && !offloadParams && !fsdpOffload)
    cpuBytes += (inv.total / shardParams) * wb * perNode;
  // Paged optimizer state that does not fit beside the rest lives in host RAM.
  cpuBytes += (pagedBytes - pagedResident) * perNode;
  if (offloadParams || fsdpOffload) {
    const perRank = (inv.total / shardParams) * wb;
    if (setup.offload_params === 'nvme') nvmeBytes += perRank * perNode;
    else cpuBytes += perRank * perNode;
  }
  return { cpuBytes, nvmeBytes };
}
