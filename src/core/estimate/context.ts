// What every step of the estimate reads. Types only.
import type { GpuSpec } from '../catalog/gpus';
import type { ProvenanceMap } from '../setup';

export interface EstimateOptions {
  /** GPU memory to check the fit against (driver-reported total), with its catalog id. */
  readonly gpu?: { readonly id: string; readonly memoryBytes: number; readonly source: string; readonly nvlink?: boolean; readonly spec?: GpuSpec };
  /** Where each setup value came from; values without a file/flag/setting source become assumptions. */
  readonly provenance?: ProvenanceMap;
  /** Margin kept free below the GPU size for 'fits' (fraction, e.g. 0.05). */
  readonly headroomFraction?: number;
  /** Numbers only: no formula text and no assumptions (the advice search estimates thousands of candidates). */
  readonly lean?: boolean;
}
