// Analysis -> PanelModel: the serializable view the webview renders (src/protocol/messages.ts). Editor-free.
import { estimateView, type AdviceView, type PanelModel } from '../protocol/messages';
import type { Analysis } from './analysis';
import { editsForChanges } from './fixes';
import { fixFiles } from './quick-fixes';

function baseName(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}


/** The panel model, or undefined with the reason when there is no estimate. */
export function buildPanelModel(a: Analysis, strings: Record<string, string>): { model?: PanelModel; reason?: string } {
  if (!a.setup || !a.estimate) {
    const why = a.findings.find((f) => f.code === 'unknown-model')?.message ?? a.pipeline.problems.find((p) => p.severity === 'error')?.message ?? 'the setup is incomplete';
    return { reason: why };
  }
  const advice = a.advice();
  const files = fixFiles(a);
  const items: AdviceView[] = (advice?.items ?? []).slice(0, 30).map((i) => {
    const plan = editsForChanges(i.changes, files, a.file);
    return {
      id: i.id, title: i.title, changes: i.changes.map((c) => ({ key: String(c.key), value: c.value })), savedBytes: i.savedBytes,
      stepTimeFactor: i.stepTimeFactor, changesResult: i.changesResult, fits: i.fits, deviceBytes: i.estimate.perGpu.deviceBytes,
      costExplain: [...i.costExplain], gpus: i.gpus, applicable: plan.edits.length > 0 && plan.unsupported.length === 0,
    };
  });
  return {
    model: {
      title: baseName(a.file), format: a.format ?? 'unknown', setup: a.setup,
      gpu: a.gpu ? { id: a.gpu.id, memoryBytes: a.gpu.memoryBytes } : null,
      headroomFraction: Math.min(0.5, a.settings.headroomPercent / 100),
      estimate: estimateView(a.estimate),
      assumptions: a.estimate.assumptions.map((x) => ({ key: String(x.key), value: x.value, source: x.source })),
      warnings: a.estimate.warnings.map((w) => ({ key: String(w.key), message: w.message })),
      advice: items,
      maxMicroBatch: advice?.maxMicroBatch ?? null, maxSeqLen: advice?.maxSeqLen ?? null, gpusNeeded: advice?.gpusNeeded ?? null,
      strings,
    },
  };
}
