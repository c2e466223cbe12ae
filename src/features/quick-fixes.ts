// Quick fixes for the memory diagnostics: single changes (bf16, checkpointing, ZeRO stage, offload, 8-bit
// optimizer, micro-batch vs accumulation, ...) and the best advised combination, each with its edits in the
// user's own files and a title stating the saving and the cost. Editor-free and pure.
import type { AdviceItem } from '../core';
import { singleChanges } from '../core';
import type { GpuSpec } from '../core';
import { formatBytes } from '../core';
import type { Analysis } from './analysis';
import { editableFiles, editsForChanges, type EditData, type FixFile } from './fixes';

export interface QuickFix {
  readonly id: string;
  readonly title: string;
  readonly edits: readonly EditData[];
  readonly preferred: boolean;
  readonly item: AdviceItem;
}

type Translate = (message: string, ...args: Array<string | number>) => string;

/** Quick fixes offered at most (the lightbulb menu stays short). */
const MAX_FIXES = 8;
const identity: Translate = (m, ...args) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

export function fixFiles(a: Analysis): FixFile[] {
  const files = editableFiles(a.pipeline.files);
  if (a.scenario && a.format === 'scenario') {
    files.push({ file: a.file, text: a.text, format: 'scenario', facts: { format: 'scenario', facts: [], problems: [], references: [], tools: [] } });
  }
  return files;
}

/** "Enable gradient checkpointing (-18.2 GiB, ~+33% step time)". */
export function fixTitle(item: Pick<AdviceItem, 'title' | 'savedBytes' | 'stepTimeFactor' | 'changesResult' | 'fits'>, t: Translate = identity): string {
  const pct = Math.round((item.stepTimeFactor - 1) * 100);
  const cost = Math.abs(pct) < 2 ? t('no slower') : pct > 0 ? t('~+{0}% step time', pct) : t('~{0}% step time', pct);
  return `${item.title} (-${formatBytes(item.savedBytes)}, ${cost}${item.changesResult ? t(', changes what is trained') : ''}${item.fits ? '' : t(', still does not fit alone')})`;
}

/**
 * The advice item as the edited files deliver it: the saving and the fit of the estimate of the files as the fix
 * leaves them (the same pipeline over the edited texts), or undefined when the edited files give no estimate or no
 * saving, so that a title never promises what the written config does not deliver.
 */
function delivered(a: Analysis, item: AdviceItem, edits: readonly EditData[]): AdviceItem | undefined {
  const current = a.estimate;
  const after = a.withEdits(edits);
  if (!current || !after) return undefined;
  const saved = current.perGpu.deviceBytes - after.perGpu.deviceBytes;
  if (saved <= 0) return undefined;
  return { ...item, savedBytes: saved, fits: after.fits ?? item.fits, estimate: after };
}

/** The quick fixes for a document, best first; the first that fits without changing the result is preferred. */
export function quickFixes(a: Analysis, t: Translate = identity): QuickFix[] {
  if (!a.setup || !a.estimate) return [];
  const gpu = a.gpu ? { id: a.gpu.id, memoryBytes: a.gpu.memoryBytes, source: a.gpu.source } : undefined;
  const headroomFraction = a.settings.headroomPercent / 100;
  const items: AdviceItem[] = singleChanges(a.setup, { gpu, gpuSpec: a.gpu?.spec as GpuSpec | undefined, headroomFraction });
  const best = a.advice()?.items.find((i) => i.changes.length > 1 && !i.changesResult);
  if (best) items.unshift(best);
  const files = fixFiles(a);
  // Fitting before not fitting, result-preserving before result-changing, a single change before a combination.
  const rank = (i: AdviceItem): number => (i.fits ? 0 : 4) + (i.changesResult ? 2 : 0) + (i.changes.length > 1 && i.id.includes('+') ? 1 : 0);
  const order = (x: AdviceItem, y: AdviceItem): number => rank(x) - rank(y) || x.stepTimeFactor - y.stepTimeFactor || y.savedBytes - x.savedBytes;
  // The proposals in the order they would be shown; each is verified on the edited files until MAX_FIXES are offered.
  const out: QuickFix[] = [];
  for (const proposed of [...items].sort(order)) {
    if (out.length >= MAX_FIXES) break;
    const plan = editsForChanges(proposed.changes, files, a.file);
    if (plan.edits.length === 0 || plan.unsupported.length > 0) continue;
    const item = delivered(a, proposed, plan.edits);
    if (item) out.push({ id: item.id, title: fixTitle(item, t), edits: plan.edits, preferred: false, item });
  }
  out.sort((x, y) => order(x.item, y.item));
  if (out.length > 0) (out[0] as { preferred: boolean }).preferred = true;
  return out;
}
