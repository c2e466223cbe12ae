// Adapters inside their decoder layer's FSDP1 unit. FSDP1 flattens a unit's parameters into one FlatParameter; with
// use_orig_params=True it accepts frozen and trainable parameters in one unit, and the FlatParameter then requires
// grad, so the unsharded views the layers compute with require grad too: autograd saves what the frozen weights'
// gradients need (the layers save what a full fine-tune saves), computes those gradients into the unit's flat
// gradient, and FSDP reduce-scatters and keeps the whole shard until the next forward (torch.distributed.fsdp
// FullyShardedDataParallel docs: mixing frozen and non-frozen parameters in one instance is supported with
// use_orig_params=True, "but ... higher than expected gradient memory usage"; _flat_param.py _use_unsharded_views,
// _reset_flat_param_grad_info_if_needed). PEFT's fsdp_auto_wrap_policy wraps each adapter layer as a unit of its own,
// so the layer units hold frozen parameters only; the HF Trainer sets it for a PEFT model (transformers
// distributed/fsdp.py update_fsdp_plugin_peft). LitGPT's FSDP1 runs wrap whole Blocks with the adapters inside
// (Lightning Fabric FSDPStrategy(auto_wrap_policy={Block}), whose setup sets use_orig_params=True; finetune/lora.py
// from lit-gpt 2023 to LitGPT 0.5.10, fully_shard from 0.5.11). FSDP2 keeps requires_grad per parameter. Pure.
// Docs: docs/estimate/parallelism.md
import type { TrainingSetup } from '../setup';
import type { EstimateContext } from './context';

/** Where the adapters' FSDP units matter: FSDP1 over a 16/32-bit model with LoRA or IA3 adapters. */
export function adapterUnitsMatter(setup: TrainingSetup): boolean {
  return (
    setup.fsdp !== 'none' &&
    setup.fsdp !== 'no_shard' &&
    setup.fsdp_version !== 2 &&
    (setup.method === 'lora' || setup.method === 'ia3') &&
    setup.quantization === undefined
  );
}

/**
 * Whether each adapter layer is an FSDP1 unit of its own: fsdp_adapters_wrapped as given, else true (PEFT's policy,
 * the HF Trainer's) except under LitGPT's model code, whose Fabric FSDPStrategy wraps whole Blocks.
 */
export function adaptersWrapped(setup: TrainingSetup): boolean {
  return setup.fsdp_adapters_wrapped ?? setup.model_code !== 'litgpt';
}

/**
 * Each adapter is an FSDP1 unit of its own: a LoRA, QLoRA or IA3 run under FSDP1 with PEFT's wrapping policy (the
 * Trainer's for a PEFT model, and always for a 4-bit one).
 */
export function adaptersInOwnUnits(setup: TrainingSetup): boolean {
  const peft = setup.method === 'lora' || setup.method === 'qlora' || setup.method === 'ia3';
  return (
    peft && setup.fsdp !== 'none' && setup.fsdp !== 'no_shard' && setup.fsdp_version !== 2 && adaptersWrapped(setup)
  );
}

/** The adapters share their decoder layer's FSDP1 unit (fsdp_adapters_wrapped: false). */
export function adaptersInLayerUnits(ctx: EstimateContext): boolean {
  return ctx.sharding.fsdp && adapterUnitsMatter(ctx.setup) && !adaptersWrapped(ctx.setup);
}
