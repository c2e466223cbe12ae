// What Accelerate's FSDP preparation does to a run that its files do not say, by Accelerate release: the rules the
// pipeline applies to a Trainer-based tool's FSDP run (pipeline.ts accelerateFsdp), as a patch of the setup. Pure.
import { accelerateSyncsFsdp2, olderThan, type TrainingSetup } from '../core';

/** The tools whose FSDP runs through Accelerate's preparation (the HF Trainer and what builds on it). */
export const ACCELERATE_FSDP_TOOLS: ReadonlySet<string> = new Set([
  'hf-trainer',
  'trl',
  'accelerate',
  'axolotl',
  'llamafactory',
  'ms-swift',
]);

type FsdpFields = Pick<
  TrainingSetup,
  | 'fsdp'
  | 'fsdp_version'
  | 'fsdp_no_sync'
  | 'fsdp_tail_unit'
  | 'accelerate_version'
  | 'mixed_precision'
  | 'weights_dtype'
  | 'master_weights'
>;

/** The keys accelerateFsdpPatch may set. */
export interface AccelerateFsdpPatch {
  master_weights?: true;
  fsdp_no_sync?: false;
  fsdp_tail_unit?: true;
}

/**
 * The keys Accelerate's FSDP preparation changes (none when it changes nothing):
 * - `master_weights: true`: under mixed precision it upcasts the trainable parameters of a 16-bit model to fp32
 *   before sharding (accelerator.py prepare_model for FSDP1 from 0.30, huggingface/accelerate#2674;
 *   utils/fsdp_utils.py fsdp2_prepare_model from FSDP2's first release, 1.6), unless the files state the master;
 * - `fsdp_no_sync: false`: the HF Trainer's no_sync, when it is the tool's default and not a file's, is Accelerate's,
 *   which did nothing to an FSDP2 module before 1.11 (huggingface/accelerate#3762);
 * - `fsdp_tail_unit: true`: from 1.14 fsdp2_prepare_model gives untied embeddings an FSDP2 unit of their own and the
 *   final norm with the head one not resharded after the forward (huggingface/accelerate#4015), unless a file says.
 * Axolotl's FSDP2 runs through its own preparation, which does neither of the first and last.
 */
export function accelerateFsdpPatch(
  s: Partial<FsdpFields>,
  stated: { readonly masterWeightsStated: boolean; readonly noSyncFromDefault: boolean },
  tool?: string,
): AccelerateFsdpPatch {
  if (s.fsdp === undefined || s.fsdp === 'none') return {};
  // Axolotl replaces Accelerate's fsdp2_prepare_model with its own (axolotl-ai-cloud/axolotl@d6e4a61, July 2025,
  // monkeypatch/accelerate/fsdp2.py, patched in whenever fsdp_version is 2): it wraps the blocks and the root as the
  // policy says, with no fp32 upcast and no unit of the embeddings or the tail.
  if (tool === 'axolotl' && s.fsdp_version === 2) return noSyncPatch(s, stated);
  const out: AccelerateFsdpPatch = {};
  const half = s.mixed_precision === 'bf16' || s.mixed_precision === 'fp16';
  const sixteen = s.weights_dtype === 'bf16' || s.weights_dtype === 'fp16';
  const upcasts =
    s.fsdp_version === 2 ? !olderThan(s.accelerate_version, 1, 6) : !olderThan(s.accelerate_version, 0, 30);
  if (half && sixteen && !s.master_weights && !stated.masterWeightsStated && upcasts) out.master_weights = true;
  Object.assign(out, noSyncPatch(s, stated));
  if (s.fsdp_version === 2 && s.fsdp_tail_unit === undefined && !olderThan(s.accelerate_version, 1, 14))
    out.fsdp_tail_unit = true;
  return out;
}

/** The HF Trainer's no_sync as Accelerate's, which does nothing to an FSDP2 module before 1.11. */
function noSyncPatch(
  s: Partial<FsdpFields>,
  stated: { readonly noSyncFromDefault: boolean },
): Pick<AccelerateFsdpPatch, 'fsdp_no_sync'> {
  const fsdp2Ignores = accelerateSyncsFsdp2({ fsdp_version: s.fsdp_version, accelerate_version: s.accelerate_version });
  return s.fsdp_no_sync === true && stated.noSyncFromDefault && fsdp2Ignores ? { fsdp_no_sync: false } : {};
}
