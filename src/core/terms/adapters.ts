// Term: adapter weights. Per GPU, sharded over the parameter shard degree:
//   LoRA: r x (in + out) per targeted module (+ out for DoRA's magnitude) x the adapter dtype; on bare expert parameters
//   (PEFT target_parameters) r·E x (in + out) per targeted layer, E = 1 for a router's 2-D weight and r doubled for a
//   gate_up_proj PEFT converted from both 4.x halves (estimate/peft-moe.ts); (IA)^3: one value per output feature
//   (input feature of feed-forward targets) x the adapter dtype; modules_to_save: a trainable copy in the dtype of the
//   module it copies, whose gradient and optimizer states follow that dtype (savedSplit).
//   Under parameter offload (FSDP CPUOffload, ZeRO-3 offload_param) the adapters' shards live in host memory with the
//   rest of the parameters (torch/distributed/fsdp/_init_utils.py offloads every FlatParameter, the adapters' units
//   included) and count 0 here; a layer's adapters are gathered with it.
// Sources: peft/tuners/lora/layer.py (ParamWrapper.update_layer), peft/utils/transformers_weight_conversion.py,
// peft/tuners/ia3/layer.py, peft/utils/other.py (ModulesToSaveWrapper).
// Docs: docs/estimate/adapters.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';

/** LoRA / IA3 adapter weights and modules_to_save copies on this stage's GPU. */
export function adapterWeights(ctx: EstimateContext, st: StageContext): Component[] {
  const inv = ctx.model.inventory;
  const tp = ctx.layout.tensorParallel;
  const { shardParams: shards, offloadParams, fsdpOffload } = ctx.sharding;
  const { savedModuleBytes: sb, adapterBytes } = ctx.dtypes;
  const { lora, ia3, targets } = ctx.methods;
  const { layerShare } = st;
  const persistent: Component[] = [];
  const offloaded = offloadParams || fsdpOffload;
  const shardParams = offloaded ? Infinity : shards;
  const shard = offloaded
    ? ', offloaded to host memory with the parameters'
    : shardParams > 1
      ? ` / ${shardParams} (sharded)`
      : '';
  const adapterHere = (inv.adapter * layerShare) / tp;
  if (adapterHere > 0) {
    persistent.push(
      ia3
        ? comp(
            ctx,
            'adapter-weights',
            'IA3 scaling vectors',
            (adapterHere * adapterBytes) / shardParams,
            () =>
              `one per output feature (input feature of feed-forward targets) ` +
              `of ${[...targets].join(', ')} = ${formatCount(adapterHere)} params x ${adapterBytes} B${shard}`,
            () => ({ targets: [...targets].join(','), params: Math.round(adapterHere) }),
          )
        : comp(
            ctx,
            'adapter-weights',
            'LoRA adapter weights',
            (adapterHere * adapterBytes) / shardParams,
            () => `r x (in + out) x targeted modules = ${formatCount(adapterHere)} params x ${adapterBytes} B${shard}`,
            () => ({ r: lora!.r, targets: [...targets].join(','), params: Math.round(adapterHere) }),
          ),
    );
  }
  if (inv.savedModules > 0) {
    persistent.push(
      comp(
        ctx,
        'adapter-weights',
        'modules_to_save copies',
        (inv.savedModules * sb) / shardParams,
        () =>
          `${formatCount(inv.savedModules)} params x ${sb} B${shard} (trainable copy kept next to the frozen original)`,
        () => ({ params: inv.savedModules }),
      ),
    );
  }
  return persistent;
}

/**
 * Bytes of `trainable` parameters of this GPU (a share of every trainable parameter, as the stage context spreads them)
 * with the adapters' `bytes` per element and the modules_to_save copies' `savedBytes`: the copies' share of it is
 * inventory.savedModules / inventory.trainable. `saved` is that part of the count; `formula(noun)` writes the count
 * times its bytes ("N <noun>x 4 B", with "+ M modules_to_save x 2 B" when there are copies).
 */
export function savedSplit(
  ctx: EstimateContext,
  trainable: number,
  bytes: number,
  savedBytes: number,
): { bytes: number; saved: number; formula: (noun: string) => string } {
  const inv = ctx.model.inventory;
  const saved = inv.trainable > 0 && inv.savedModules > 0 ? (trainable * inv.savedModules) / inv.trainable : 0;
  const formula = (noun: string): string =>
    saved > 0
      ? `${formatCount(trainable - saved)} ${noun}x ${bytes} B + ${formatCount(saved)} modules_to_save x ${savedBytes} B`
      : `${formatCount(trainable)} ${noun}x ${bytes} B`;
  return { bytes: (trainable - saved) * bytes + saved * savedBytes, saved, formula };
}
