// Term: the layer inputs FSDP1's reshard hooks keep through the backward. An FSDP1 unit whose parameters are all frozen
// (a decoder layer under PEFT's wrapping policy, each adapter a unit of its own) reshards through a multi-grad hook on
// its forward's inputs (torch/distributed/fsdp/_runtime_utils.py _register_post_backward_reshard_only_hook, from torch
// 2.1). transformers before 4.52 checkpoints a layer around the unit's call (`self._gradient_checkpointing_func(
// decoder_layer.__call__, ...)`; GradientCheckpointingLayer, huggingface/transformers#37223, moved it inside the layer):
// in the backward, reentrant checkpointing reruns the unit on a detached copy of its saved input (checkpoint.py
// detach_variable), a leaf that requires grad, and the hook is registered on it. register_multi_grad_hook keeps the
// leaf's AccumulateGrad node, which holds the leaf, in the hook the leaf itself holds (autograd/graph.py): a cycle that
// lives until FSDP removes the hook after the whole backward (_finalize_params). So each layer's input and its
// gradient stay allocated to the backward's end: at the first layer's backward, those of all the others, 2 x (L - 1) x
// tokens x hidden x the residual stream's bytes. A checkpoint_wrapper put inside the units (Accelerate's FSDP
// activation_checkpointing, apply_activation_checkpointing on the wrapped model) reruns no FSDP hook, and the
// non-reentrant form detaches nothing.
// Measured: fms-acceleration's A100 benchmark (torch 2.4.1, transformers 4.48.1, PEFT 0.13.2): Mistral-7B LoRA and
// QLoRA under FSDP1 on 2 GPUs at 2 and 4 x 4,096 tokens, and Llama-2-70B QLoRA, whose peaks are the first layer's
// backward with these tensors (test/published/measured-collected). Pure arithmetic.
// Docs: docs/estimate/parallelism.md
import type { Component } from '../model';
import type { TrainingSetup } from '../setup';
import { olderThan } from '../util/version';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { adaptersInOwnUnits } from '../estimate/fsdp-units';
import { checkpointReentrant } from './activations/kept-inputs';

/**
 * Whether the run checkpoints each layer around its frozen FSDP1 unit's call with the reentrant form: transformers'
 * own gradient checkpointing before 4.52 (the model's code, no checkpoint_wrapper), reentrant, over FSDP1 units that
 * hold frozen parameters only, on a PyTorch whose FSDP1 reshards them through input hooks (2.1 on).
 */
export function keepsFrozenUnitInputs(setup: TrainingSetup): boolean {
  return (
    setup.gradient_checkpointing === 'full' &&
    setup.checkpoint_wrapper !== true &&
    (setup.model_code ?? 'transformers') === 'transformers' &&
    setup.transformers_version !== undefined &&
    olderThan(setup.transformers_version, 4, 52) &&
    checkpointReentrant(setup) &&
    adaptersInOwnUnits(setup) &&
    !olderThan(setup.pytorch_version, 2, 1)
  );
}

/** At the first layer's backward: the other layers' inputs and their gradients, kept by the units' hooks. */
export function frozenUnitInputs(ctx: EstimateContext, st: StageContext, layerInputBytes: number): Component[] {
  if (!keepsFrozenUnitInputs(ctx.setup) || st.layersHere < 2) return [];
  const kept = st.layersHere - 1;
  return [
    comp(
      ctx,
      'activations',
      "Layer inputs and their gradients kept by FSDP1's reshard hooks (reentrant checkpointing around frozen units)",
      2 * kept * layerInputBytes,
      () =>
        `2 x ${kept} layers x tokens x hidden x residual bytes: each recomputed layer's detached input and its ` +
        "gradient, held by the frozen unit's multi-grad hook until the backward ends (transformers before 4.52 " +
        'checkpoints around the FSDP unit)',
      () => ({ perLayerBytes: Math.round(2 * layerInputBytes) }),
    ),
  ];
}
