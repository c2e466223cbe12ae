// Attention pieces shared by the block replays. Pure arithmetic; no I/O.
import type { ActivationPlan } from './plan';
import { Tape, type Tensor } from '../saved-tensors';

/** Before PyTorch 1.11 the softmax node also saved its input (see ActivationPlan.softmaxSavesInput). */
export function legacySoftmaxInput(tape: Tape, p: ActivationPlan, scores: Tensor, what: string, bytesPerElem: number): void {
  if (p.softmaxSavesInput && scores.rg) tape.save(tape.tensor(`${what} (PyTorch < 1.11)`, scores.elems, bytesPerElem, true));
}
