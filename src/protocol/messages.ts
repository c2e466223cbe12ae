// The contract between the extension host and the VRAM panel (webview): zod schemas and their types for each
// direction. Both ends safeParse what they receive and drop (and log) anything that does not match.
// Imports only zod and the core's setup schema (the webview recomputes what-ifs with the core itself).
import { z } from 'zod';
import type { Estimate } from '../core/model';
import { TrainingSetupSchema } from '../core/setup';

const Bytes = z.number().finite();

export const ComponentView = z.object({ id: z.string(), label: z.string(), bytes: Bytes, formula: z.string() });
export const RuntimeView = z.object({ id: z.string(), label: z.string(), bytes: Bytes, formula: z.string() });
export const PhaseView = z.object({ phase: z.string(), allocatedBytes: Bytes, note: z.string() });

export const EstimateView = z.object({
  peakBytes: Bytes,
  reservedBytes: Bytes,
  deviceBytes: Bytes,
  phase: z.string(),
  components: z.array(ComponentView),
  runtime: z.array(RuntimeView),
  phases: z.array(PhaseView),
  cpuBytes: Bytes,
  nvmeBytes: Bytes,
  fits: z.boolean().nullable(),
  headroomBytes: Bytes.nullable(),
  parametersTotal: z.number(),
  parametersTrainable: z.number(),
  /** Variable-length batches: what the allocator can hold over a run (reported beside the fit). */
  variableLengths: z.object({ cacheBytes: Bytes, reservedBytes: Bytes, deviceBytes: Bytes, formula: z.string() }).nullable().optional(),
});
export type EstimateView = z.infer<typeof EstimateView>;

/** The estimate's fields the panel shows: sent by the host, and recomputed by the webview for a what-if. */
export function estimateView(e: Estimate): EstimateView {
  return {
    peakBytes: e.perGpu.peakBytes, reservedBytes: e.perGpu.reservedBytes, deviceBytes: e.perGpu.deviceBytes, phase: e.perGpu.phase,
    components: e.perGpu.components.map((c) => ({ id: c.id, label: c.label, bytes: c.bytes, formula: c.formula })),
    runtime: e.perGpu.runtime.map((r) => ({ id: r.id, label: r.label, bytes: r.bytes, formula: r.formula })),
    phases: e.perGpu.phases.map((p) => ({ phase: p.phase, allocatedBytes: p.allocatedBytes, note: p.note })),
    cpuBytes: e.cpuBytes, nvmeBytes: e.nvmeBytes, fits: e.fits ?? null, headroomBytes: e.headroomBytes ?? null,
    parametersTotal: e.parameters.total, parametersTrainable: e.parameters.trainable,
    variableLengths: e.perGpu.variableLengths ?? null,
  };
}

export const AdviceView = z.object({
  id: z.string(),
  title: z.string(),
  changes: z.array(z.object({ key: z.string(), value: z.unknown() })),
  savedBytes: Bytes,
  stepTimeFactor: z.number(),
  changesResult: z.boolean(),
  fits: z.boolean(),
  deviceBytes: Bytes,
  costExplain: z.array(z.string()),
  gpus: z.number(),
  /** Whether the host can apply it to the file (it has edits for this format). */
  applicable: z.boolean(),
});
export type AdviceView = z.infer<typeof AdviceView>;

export const PanelModel = z.object({
  /** File name shown in the header, e.g. "ds_config.json". */
  title: z.string(),
  format: z.string(),
  /** The resolved setup: the webview recomputes what-ifs from it with the core, no round trip. */
  setup: TrainingSetupSchema,
  gpu: z.object({ id: z.string(), memoryBytes: Bytes }).nullable(),
  headroomFraction: z.number().min(0).max(0.5),
  estimate: EstimateView,
  assumptions: z.array(z.object({ key: z.string(), value: z.string(), source: z.string() })),
  warnings: z.array(z.object({ key: z.string(), message: z.string() })),
  advice: z.array(AdviceView),
  maxMicroBatch: z.number().nullable(),
  maxSeqLen: z.number().nullable(),
  gpusNeeded: z.number().nullable(),
  /** Localised strings for the panel (VS Code l10n bundle entries), keyed by their English text. */
  strings: z.record(z.string(), z.string()),
});
export type PanelModel = z.infer<typeof PanelModel>;

export const ToWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('panelModel'), model: PanelModel }),
  z.object({ type: z.literal('noConfig'), reason: z.string() }),
]);
export type ToWebview = z.infer<typeof ToWebview>;

export const FromWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Apply one advice item to the file (the host looks the edits up by id; the webview never sends paths or edits). */
  z.object({ type: z.literal('applyAdvice'), adviceId: z.string() }),
  /** Reveal the key that sets a setup field in the editor. */
  z.object({ type: z.literal('revealKey'), key: z.string() }),
]);
export type FromWebview = z.infer<typeof FromWebview>;
