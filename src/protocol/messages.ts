// The contract between the extension host and the VRAM panel (webview): zod schemas and their types for each
// direction. Both ends safeParse what they receive and drop (and log) anything that does not match.
// Imports only zod and the core's setup schema (the webview recomputes what-ifs with the core itself).
import { z } from 'zod';
import type { Estimate } from '../core';
import { TrainingSetupSchema } from '../core';

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
  variableLengths: z
    .object({ cacheBytes: Bytes, reservedBytes: Bytes, deviceBytes: Bytes, formula: z.string() })
    .nullable()
    .optional(),
});
export type EstimateView = z.infer<typeof EstimateView>;

/** The estimate's fields the panel shows: sent by the host, and recomputed by the webview for a what-if. */
export function estimateView(e: Estimate): EstimateView {
  return {
    peakBytes: e.perGpu.peakBytes,
    reservedBytes: e.perGpu.reservedBytes,
    deviceBytes: e.perGpu.deviceBytes,
    phase: e.perGpu.phase,
    components: e.perGpu.components.map((c) => ({ id: c.id, label: c.label, bytes: c.bytes, formula: c.formula })),
    runtime: e.perGpu.runtime.map((r) => ({ id: r.id, label: r.label, bytes: r.bytes, formula: r.formula })),
    phases: e.perGpu.phases.map((p) => ({ phase: p.phase, allocatedBytes: p.allocatedBytes, note: p.note })),
    cpuBytes: e.cpuBytes,
    nvmeBytes: e.nvmeBytes,
    fits: e.fits ?? null,
    headroomBytes: e.headroomBytes ?? null,
    parametersTotal: e.parameters.total,
    parametersTrainable: e.parameters.trainable,
    variableLengths: e.perGpu.variableLengths ?? null,
  };
}

/** One setup change in scenario-key terms (core/advice SetupChange): `{ key: 'zero_stage', value: 3 }`. */
export const SetupChangeView = z.object({
  key: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/)
    .max(64),
  value: z.unknown(),
});
export type SetupChangeView = z.infer<typeof SetupChangeView>;

/**
 * Why an advice item cannot be written into the run's files, as a kind the panel puts in words:
 * format: the format has no setting for it; code: it needs code changes; elsewhere: it is set in another file that
 * VRAM Lens does not edit; by-hand: the planner leaves it to a manual edit; environment: a package upgrade;
 * layout: the file is written in a way the writer does not edit (syntax errors, shapes); nothing: no edit to make;
 * other: none of these.
 */
export const BlockedKind = z.enum([
  'format',
  'code',
  'elsewhere',
  'by-hand',
  'environment',
  'layout',
  'nothing',
  'other',
]);
export type BlockedKind = z.infer<typeof BlockedKind>;

export const AdviceView = z.object({
  id: z.string(),
  title: z.string(),
  changes: z.array(SetupChangeView),
  savedBytes: Bytes,
  stepTimeFactor: z.number(),
  changesResult: z.boolean(),
  fits: z.boolean(),
  deviceBytes: Bytes,
  costExplain: z.array(z.string()),
  gpus: z.number(),
  /** Whether the host can apply it to the file (it has edits for this format). */
  applicable: z.boolean(),
  /** Why it cannot be applied (null when it can): the kind, and the fix planner's reasons with file names only. */
  blocked: z.object({ kind: BlockedKind, detail: z.string() }).nullable(),
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

/** A file the host edited, named for display; the webview asks for it back by id (it never sees a path). */
export const EditedFile = z.object({ id: z.string().regex(/^f\d+$/), name: z.string() });

export const ToWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('panelModel'), model: PanelModel }),
  z.object({ type: z.literal('noConfig'), reason: z.string() }),
  /**
   * The answer to applyAdvice or applyChanges (same requestId): whether the edit was written, why not, and the files
   * it changed (revealFile takes their ids).
   */
  z.object({
    type: z.literal('adviceApplied'),
    requestId: z.number().int().nonnegative(),
    applied: z.boolean(),
    message: z.string().optional(),
    files: z.array(EditedFile),
  }),
]);
export type ToWebview = z.infer<typeof ToWebview>;

export const FromWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Apply one advice item to the file (the host looks the edits up by id; the webview never sends paths or edits). */
  z.object({ type: z.literal('applyAdvice'), adviceId: z.string(), requestId: z.number().int().nonnegative() }),
  /** Write the what-if's changed setup keys into the run's files, where their format can express them. */
  z.object({
    type: z.literal('applyChanges'),
    changes: z.array(SetupChangeView).min(1).max(32),
    requestId: z.number().int().nonnegative(),
  }),
  /** Reveal the key that sets a setup field in the editor. */
  z.object({ type: z.literal('revealKey'), key: z.string() }),
  /** Show a file the host edited (an id from adviceApplied). */
  z.object({ type: z.literal('revealFile'), fileId: z.string().regex(/^f\d+$/) }),
]);
export type FromWebview = z.infer<typeof FromWebview>;

/** Host -> language server (Methods.applyChanges): write the what-if's setup changes into the run's files. */
export const ApplyChangesParams = z.object({ uri: z.string(), changes: z.array(SetupChangeView).min(1).max(32) });
export type ApplyChangesParams = z.infer<typeof ApplyChangesParams>;

/** What vramLens/applyAdvice and vramLens/applyChanges answer. */
export const ApplyResult = z.object({ applied: z.boolean(), message: z.string().optional() });
export type ApplyResult = z.infer<typeof ApplyResult>;
