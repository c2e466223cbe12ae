// The fit map: micro-batch x sequence length, each cell estimated with the core (lean) and classified as
// fits (device <= capacity x (1 - headroom)), near (within the headroom) or oom. Pure (no DOM); render.ts draws it.
import { estimate } from '../../src/core';
import type { TrainingSetup } from '../../src/core';

export const FIT_MICROS: readonly number[] = [1, 2, 4, 8, 16, 32];
export const FIT_SEQS: readonly number[] = [512, 1024, 2048, 4096, 8192, 16384, 32768];

export type CellStatus = 'fits' | 'near' | 'oom' | 'error';

export interface FitCell {
  readonly micro: number;
  readonly seq: number;
  readonly status: CellStatus;
  /** nvidia-smi bytes of the busiest GPU; NaN when the estimate failed. */
  readonly deviceBytes: number;
}

export interface FitMap {
  readonly micros: readonly number[];
  readonly seqs: readonly number[];
  /** rows[i][j]: sequence seqs[i], micro-batch micros[j]. */
  readonly rows: readonly (readonly FitCell[])[];
  readonly capacityBytes: number;
  readonly headroomFraction: number;
  /** Estimates run to build it. */
  readonly evaluated: number;
}

export function classify(deviceBytes: number, capacityBytes: number, headroomFraction: number): CellStatus {
  if (!Number.isFinite(deviceBytes)) return 'error';
  if (deviceBytes <= capacityBytes * (1 - headroomFraction)) return 'fits';
  if (deviceBytes <= capacityBytes) return 'near';
  return 'oom';
}

/**
 * Estimates every (micro-batch, sequence) pair. Memory grows monotonically with both, so once a row goes
 * out of memory the rest of it is marked oom without estimating (the values are then +Infinity).
 */
export function computeFitMap(
  setup: TrainingSetup,
  gpu: { readonly id: string; readonly memoryBytes: number },
  headroomFraction: number,
  micros: readonly number[] = FIT_MICROS,
  seqs: readonly number[] = FIT_SEQS,
): FitMap {
  const opts = { gpu: { ...gpu, source: 'fit map' }, headroomFraction, lean: true } as const;
  let evaluated = 0;
  const rows = seqs.map((seq) => {
    let over = false;
    return micros.map((micro): FitCell => {
      if (over) return { micro, seq, status: 'oom', deviceBytes: Infinity };
      const r = estimate({ ...setup, micro_batch_size: micro, seq_len: seq }, opts);
      evaluated++;
      const device = r.ok ? r.estimate.perGpu.deviceBytes : NaN;
      const status = classify(device, gpu.memoryBytes, headroomFraction);
      if (status === 'oom') over = true;
      return { micro, seq, status, deviceBytes: device };
    });
  });
  return { micros, seqs, rows, capacityBytes: gpu.memoryBytes, headroomFraction, evaluated };
}
