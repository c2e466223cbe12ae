// bitsandbytes' kept inputs: its autograd Functions keep a quantized linear's input for backward as a ctx attribute,
// not through save_for_backward (bitsandbytes/autograd/_functions.py):
//   MatMul8bitLt (LLM.int8), every release:  ctx.tensors = (CAt, subA, A)
//   MatMul4Bit (NF4 / FP4), before 0.43.2:   ctx.tensors = (A, B)   (bitsandbytes-foundation/bitsandbytes#1270,
//                                                                     July 2024: (None, B), A was never used)
// whenever the input or the weight needs a gradient. A ctx attribute is invisible to saved-tensor hooks, so
// non-reentrant checkpointing (torch.utils.checkpoint use_reentrant=False, FSDP's checkpoint_wrapper NO_REENTRANT) and
// hook-based activation offloading keep it on the GPU for every layer until that layer's backward; reentrant
// checkpointing runs the forward under no_grad, where nothing needs a gradient and nothing is kept.
// Docs: docs/estimate/activations.md. Pure arithmetic; no I/O.
import type { TrainingSetup } from '../../setup';
import { olderThan } from '../../util/version';

/** Whether the setup's bitsandbytes layers keep their input as a ctx attribute (int8 always; 4-bit before 0.43.2). */
export function bitsandbytesKeepsInputs(setup: Pick<TrainingSetup, 'quantization' | 'bitsandbytes_version'>): boolean {
  const q = setup.quantization;
  if (!q || q.library === 'torchao') return false;
  if (q.type === 'int8') return true;
  return (q.type === 'nf4' || q.type === 'fp4') && olderThan(setup.bitsandbytes_version, 0, 43, 2);
}

/**
 * use_reentrant of the checkpointed layers: the setup's, else transformers' gradient_checkpointing_enable default
 * (modeling_utils.py: {"use_reentrant": True} through 4.x, {"use_reentrant": False} from 5.0).
 */
export function checkpointReentrant(
  setup: Pick<TrainingSetup, 'checkpoint_reentrant' | 'transformers_version'>,
): boolean {
  return setup.checkpoint_reentrant ?? olderThan(setup.transformers_version, 5, 0);
}

/**
 * The kept inputs of the layers whose saved tensors checkpointing drops (and offloading moves to the host): every
 * such layer's, unless the reentrant form never builds the forward's graph. 0 without checkpointing (the layers' saved
 * bytes already count them).
 */
export function keptInputBytes(
  setup: Pick<TrainingSetup, 'checkpoint_reentrant' | 'transformers_version'>,
  checkpointing: TrainingSetup['gradient_checkpointing'],
  perLayer: number,
  layers: number,
): number {
  if (perLayer <= 0 || checkpointing === 'none' || checkpointReentrant(setup)) return 0;
  return perLayer * layers;
}
