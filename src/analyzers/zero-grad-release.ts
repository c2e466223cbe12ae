// Whether zero_grad frees the gradients, by the PyTorch release a run pins: set_to_none became the default of
// Optimizer.zero_grad and nn.Module.zero_grad in PyTorch 2.0 (torch/optim/optimizer.py, torch/nn/modules/module.py).
// Before it the HF Trainer's `model.zero_grad()` and a loop's `optimizer.zero_grad()` zero the gradients in place, and
// they stay allocated through the next forward. Not under DeepSpeed or FSDP, whose engines keep their own gradient
// buffers. Pure.
import { olderThan, type TrainingSetup } from '../core';
import type { PipelineResult } from './pipeline';

/** An explicit `zero_grad(set_to_none=True)`. */
const SET_TO_NONE = /\bzero_grad\(\s*set_to_none\s*=\s*True\b/;

/** The tools whose step calls zero_grad with torch's default. */
const DEFAULT_ZERO_GRAD: ReadonlySet<string> = new Set(['hf-trainer', 'trl', 'pytorch', 'accelerate']);

/** zero_grad_set_to_none false, with why, where the run pins a PyTorch before 2.0; else the result as is. */
export function zeroGradOfRelease(r: PipelineResult): PipelineResult {
  const s = r.setup;
  if (!s || !keepsGradients(s) || r.provenance.zero_grad_set_to_none?.kind === 'file') return r;
  const tool = r.files.flatMap((f) => f.facts.tools).find((t) => DEFAULT_ZERO_GRAD.has(t));
  // A loop that says set_to_none=True frees them whatever the release.
  if (!tool || r.files.some((f) => SET_TO_NONE.test(f.text))) return r;
  return {
    ...r,
    setup: { ...s, zero_grad_set_to_none: false },
    provenance: {
      ...r.provenance,
      zero_grad_set_to_none: {
        kind: 'default',
        owner: tool,
        note:
          `zero_grad() zeroes the gradients in place before PyTorch 2.0 (torch ${s.pytorch_version} pinned; ` +
          'set_to_none became its default in 2.0): they stay allocated through the next forward',
      },
    },
  };
}

/** A pinned PyTorch before 2.0, with neither DeepSpeed's nor FSDP's gradient buffers. */
function keepsGradients(s: TrainingSetup): boolean {
  const v = s.pytorch_version;
  return (
    v !== undefined && olderThan(v, 2, 0) && (s.zero_stage ?? 0) === 0 && (s.fsdp === undefined || s.fsdp === 'none')
  );
}
