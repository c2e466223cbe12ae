// Quick fixes for the memory diagnostics: single changes (bf16, checkpointing, ZeRO stage, offload, 8-bit
// optimizer, micro-batch vs accumulation, ...) and the best advised combination, each with its edits in the
// user's own files and a title stating the saving and the cost. Editor-free and pure.
import type { AdviceItem } from '../core';
import { singleChanges } from '../core';
import type { GpuSpec } from '../core';
import { formatBytes } from '../core';
import type { Analysis } from './analysis';
import { editableFiles, editsForChanges, type EditData, type FixFile } from './fixes';
import { shippedZeroConfigFor } from '../analyzers/shipped-zero';

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
    files.push({
      file: a.file,
      text: a.text,
      format: 'scenario',
      facts: { format: 'scenario', facts: [], problems: [], references: [], tools: [] },
    });
  }
  return files;
}

/** Short names of the single changes (the lightbulb menu is narrow); a change without one keeps its advice title. */
const SHORT: Readonly<Record<string, string>> = {
  'gc-full': 'Gradient checkpointing',
  'gc-selective': 'Selective checkpointing',
  'chunked-loss': 'Chunked cross-entropy',
  adam8bit: '8-bit AdamW',
  paged8bit: 'Paged 8-bit AdamW',
  'offload-opt': 'Optimizer offload to CPU',
  'offload-params': 'Parameter and optimizer offload to CPU',
  'zero3-offload-opt': 'ZeRO-3, optimizer offload to CPU',
  sdpa: 'SDPA attention',
  flash: 'FlashAttention-2',
  'tiled-mlp': 'Tiled MLP',
  'pure-bf16': 'Load the model in bf16',
  adafactor: 'Adafactor optimizer',
  'seq-half': 'Halve the sequence length',
  'seq-3/4': 'Sequence length x3/4',
  'eval-batch-1': 'Eval batch 1',
  lora: 'LoRA r=16 instead of full fine-tuning',
  qlora: 'QLoRA (4-bit base, LoRA r=16)',
  'lora-attn': 'LoRA r=16 on attention only',
  'lora-rank': 'Lower the LoRA rank',
  'quantize-experts': 'Quantize the MoE experts too',
  'vllm-sleep': 'vLLM sleep mode',
  'rollout-half': 'Half the completions per round',
  'kl-off': 'No KL term (beta 0)',
  'precompute-ref': 'Precomputed reference log-probs',
  'no-dora': 'Plain LoRA instead of DoRA',
  'fsdp-full-state-dict': 'FSDP checkpoints as FULL_STATE_DICT',
};

/** The short name of one change, with the values it writes where the name alone would be ambiguous. */
function shortTitle(item: Pick<AdviceItem, 'id' | 'title' | 'changes'>, t: Translate): string {
  const ids = item.id.split('+');
  const titles = item.title.split(' + ');
  const value = (k: string): unknown => item.changes.find((c) => c.key === k)?.value;
  const parts = ids.map((id, i) => {
    if (id.startsWith('micro-') && typeof value('micro_batch_size') === 'number') {
      return t(
        'Micro-batch {0}, accumulation {1}',
        String(value('micro_batch_size')),
        String(value('gradient_accumulation_steps') ?? '?'),
      );
    }
    const r = /^lora-r(\d+)$/.exec(id);
    if (r) return t('LoRA r={0} on all linear layers', r[1]);
    const z = /^zero(\d)$/.exec(id);
    if (z) return t('ZeRO stage {0}', z[1]);
    return SHORT[id] ? t(SHORT[id]) : titles.length === ids.length ? titles[i] : item.title;
  });
  return [...new Set(parts)].join(' + ');
}

/**
 * "-18.2 GiB · Gradient checkpointing (~+33% step time)": the saving first, then the change, then what it costs;
 * `needs` names a package the edit relies on (use_liger_kernel needs liger-kernel installed).
 */
export function fixTitle(
  item: Pick<AdviceItem, 'id' | 'title' | 'changes' | 'savedBytes' | 'stepTimeFactor' | 'changesResult' | 'fits'>,
  t: Translate = identity,
  needs?: string,
): string {
  const pct = Math.round((item.stepTimeFactor - 1) * 100);
  const notes: string[] = [];
  if (needs) notes.push(t('needs {0}', needs));
  if (Math.abs(pct) >= 2) notes.push(pct > 0 ? t('~+{0}% step time', pct) : t('~{0}% step time', pct));
  if (item.changesResult) notes.push(t('changes what is trained'));
  if (!item.fits) notes.push(t('still does not fit alone'));
  return `-${formatBytes(item.savedBytes)} · ${shortTitle(item, t)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

/** A package an edit relies on that a training environment may lack, named in the title. */
function packageNeeded(edits: readonly EditData[]): string | undefined {
  return edits.some((e) => /liger/i.test(e.newText)) ? 'liger-kernel' : undefined;
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
  // Field by field: a search item's full estimate is made when read (core/advice withFullEstimate), and is replaced here.
  const { id, title, changes, stepTimeFactor, changesResult, costExplain, gpus } = item;
  return {
    id,
    title,
    changes,
    savedBytes: saved,
    stepTimeFactor,
    changesResult,
    fits: after.fits ?? item.fits,
    deviceBytes: after.perGpu.deviceBytes,
    estimate: after,
    costExplain,
    gpus,
  };
}

/** The quick fixes for a document, best first; the first that fits without changing the result is preferred. */
export function quickFixes(a: Analysis, t: Translate = identity): QuickFix[] {
  if (!a.setup || !a.estimate) return [];
  const gpu = a.gpu ? { id: a.gpu.id, memoryBytes: a.gpu.memoryBytes, source: a.gpu.source } : undefined;
  const headroomFraction = a.settings.headroomPercent / 100;
  const items: AdviceItem[] = singleChanges(a.setup, {
    gpu,
    gpuSpec: a.gpu?.spec as GpuSpec | undefined,
    headroomFraction,
    zeroConfigFor: shippedZeroConfigFor(a.facts, a.setup),
  });
  const best = a.advice()?.items.find((i) => i.changes.length > 1 && !i.changesResult);
  if (best) items.unshift(best);
  const files = fixFiles(a);
  // Fitting before not fitting, result-preserving before result-changing, a single change before a combination.
  const rank = (i: AdviceItem): number =>
    (i.fits ? 0 : 4) + (i.changesResult ? 2 : 0) + (i.changes.length > 1 && i.id.includes('+') ? 1 : 0);
  const order = (x: AdviceItem, y: AdviceItem): number =>
    rank(x) - rank(y) || x.stepTimeFactor - y.stepTimeFactor || y.savedBytes - x.savedBytes;
  // The proposals in the order they would be shown; each is verified on the edited files until MAX_FIXES are offered.
  // Two proposals that write the same edits, or that would read the same, are one row (the first, the better ranked).
  const out: QuickFix[] = [];
  const seen = new Set<string>();
  for (const proposed of [...items].sort(order)) {
    if (out.length >= MAX_FIXES) break;
    const plan = editsForChanges(proposed.changes, files, a.file);
    if (plan.edits.length === 0 || plan.unsupported.length > 0) continue;
    const same = JSON.stringify([...plan.edits].sort((x, y) => x.file.localeCompare(y.file) || x.start - y.start));
    if (seen.has(same)) continue;
    const item = delivered(a, proposed, plan.edits);
    if (!item) continue;
    const title = fixTitle(item, t, packageNeeded(plan.edits));
    const name = title.replace(/^-\S+ \S+ · /, '');
    if (seen.has(name)) continue;
    seen.add(same);
    seen.add(name);
    out.push({ id: item.id, title, edits: plan.edits, preferred: false, item });
  }
  out.sort((x, y) => order(x.item, y.item));
  if (out.length > 0) (out[0] as { preferred: boolean }).preferred = true;
  return out;
}

/** A fix that is not a memory change: a deprecated key written the current way. */
export interface KeyFix {
  readonly id: string;
  readonly title: string;
  readonly edits: readonly EditData[];
  /** The finding it answers (its code and span start). */
  readonly code: string;
  readonly at: number;
}

/**
 * Fixes for the key findings: Axolotl's deprecated attention switches (`flash_attention: true`) rewritten as the
 * current key (`attn_implementation: flash_attention_2`), or removed when the file already sets attn_implementation.
 */
export function keyFixes(a: Analysis, t: Translate = identity): KeyFix[] {
  if (a.format !== 'axolotl-yaml') return [];
  const out: KeyFix[] = [];
  const hasImpl = /^attn_implementation\s*:/m.test(a.text);
  for (const f of a.findings) {
    if (f.code !== 'deprecated-key') continue;
    const m =
      /^`(\w+)` is deprecated: use `attn_implementation: (\w+)`/.exec(f.message) ??
      /^`(\w+)`.*`attn_implementation: (\w+)`/.exec(
        f.template?.text.replace('{0}', String(f.template.args[0])).replace('{1}', String(f.template.args[1])) ?? '',
      );
    if (!m) continue;
    const [, key, impl] = m;
    const lineStart = a.text.lastIndexOf('\n', f.span.start - 1) + 1;
    if (a.text.slice(lineStart, f.span.start).trim() !== '') continue; // only a top-level `key: value` line
    const nl = a.text.indexOf('\n', f.span.start);
    const lineEnd = nl < 0 ? a.text.length : nl;
    const line = /^(\w+)\s*:\s*([^#\s]*)\s*(#.*)?$/.exec(a.text.slice(f.span.start, lineEnd));
    if (!line || line[1] !== key) continue;
    const on = /^(true|yes|on|True)$/.test(line[2]);
    if (on && !hasImpl) {
      out.push({
        id: `key:${key}`,
        code: f.code,
        at: f.span.start,
        title: t('Use attn_implementation: {0} (the current key for {1})', impl, key),
        edits: [{ file: a.file, start: f.span.start, end: lineEnd, newText: `attn_implementation: ${impl}` }],
      });
    } else {
      out.push({
        id: `key:${key}`,
        code: f.code,
        at: f.span.start,
        title: t('Remove the deprecated {0}', key),
        edits: [{ file: a.file, start: lineStart, end: nl < 0 ? lineEnd : nl + 1, newText: '' }],
      });
    }
  }
  return out;
}
