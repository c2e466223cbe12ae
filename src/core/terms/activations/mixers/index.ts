// One token mixer or MLP half alone, the unit the ground-truth scripts in tools/activations measure. Pure
// arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { linearModules } from '../../../architecture';
import { gatedDeltaNet } from './gated-deltanet';
import { kimiDeltaAttention } from './kda';
import { mamba1Mixer } from './mamba1';
import { mamba2Mixer } from './mamba2';
import { graniteMlp } from '../mlp';
import { kimiMoe, nemotronMoe } from '../moe';
import type { ActivationPlan, LinearFn } from '../plan';
import { Tape, type Tensor } from '../../saved-tensors';

/** Granite 4.0 H's MLP half alone: the shared MLP and the MoE block (see mixerSavedBytes). */
export const graniteMlpSavedBytes = (p: ActivationPlan): number =>
  mixerSavedBytes(p, (tape, plan, x, linear) => graniteMlp(tape, plan, x, linear, true));

/** Nemotron 3's MoE block alone (see mixerSavedBytes). */
export const nemotronMoeSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, nemotronMoe);

/**
 * What one token mixer alone saves (its input, the input norm's output, requiring grad), with its weights trainable or
 * frozen as the plan says: the unit the ground-truth scripts measure (gated_deltanet.py, mamba2.py).
 */
function mixerSavedBytes(
  p: ActivationPlan,
  mixer: (tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn) => unknown,
): number {
  const tape = new Tape(p.mode, p.half, false);
  const x = tape.tensor('mixer input', p.batch * p.seq * p.arch.hidden, p.half, true);
  const linear: LinearFn = (xin, name, outFeatures, what) => {
    const m = linearModules(p.arch).find((l) => l.name === name && l.layerKind !== 'full');
    const y = tape.linear(
      xin,
      {
        what: name,
        elems: (m ? m.inFeatures : p.arch.hidden) * outFeatures,
        trainable: p.baseTrainable,
        bytesPerElem: p.weightBytes,
      },
      outFeatures,
      what,
    );
    if (p.bnbKeepsInput && xin.rg && !p.baseTrainable && !m?.parameter) tape.holdInContext(xin); // bitsandbytes keeps its input
    return y;
  };
  mixer(tape, p, x, linear);
  return tape.totalBytes();
}

/** A Mamba2 mixer alone (see mixerSavedBytes). */
export const mamba2SavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, mamba2Mixer);

/** A Mamba-1 mixer alone (see mixerSavedBytes). */
export const mamba1SavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, mamba1Mixer);

/** A Gated DeltaNet token mixer alone (see mixerSavedBytes). */
export const gatedDeltaNetSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, gatedDeltaNet);

/** A Kimi Delta Attention token mixer alone (see mixerSavedBytes). */
export const kimiDeltaAttentionSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, kimiDeltaAttention);

/** Kimi Linear's MoE block alone (see mixerSavedBytes). */
export const kimiMoeSavedBytes = (p: ActivationPlan): number => mixerSavedBytes(p, kimiMoe);
