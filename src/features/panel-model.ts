// Analysis -> PanelModel: the serializable view the webview renders (src/protocol/messages.ts). Editor-free.
import { estimateView, type AdviceView, type BlockedKind, type PanelModel } from '../protocol/messages';
import type { Analysis } from './analysis';
import { editsForChanges, type FixPlan } from './fixes';
import { fixFiles } from './quick-fixes';

/** The panel shows six applicable items and folds the rest; the model carries a few more of each. */
export const MAX_APPLICABLE = 12;
export const MAX_BLOCKED = 24;

function baseName(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}

/**
 * The kind of a fix planner reason (src/features/fixes.ts words them for people, not for machines). The patterns
 * are ordered: the first match wins, and a reason none matches is 'other', which the panel words generically.
 */
const KIND_PATTERNS: ReadonlyArray<readonly [BlockedKind, RegExp]> = [
  [
    'layout',
    new RegExp(
      String.raw`syntax errors|break the file's syntax|is not (?:an object|a mapping|a list)|not closed|` +
        String.raw`no source range|block scalar|shares its line|start (?:their|on its own) line|mapping is empty|` +
        String.raw`unsupported YAML shape|no colon after the key|no value to write`,
    ),
  ],
  ['environment', /package version|in the environment/],
  [
    'code',
    /needs? (?:new )?code|code changes|builds no |\(\.\.\.\) call|does not import|another trainer|FastLanguageModel|shell expression/,
  ],
  [
    'elsewhere',
    new RegExp(
      String.raw`change that file|live in |is set in the DeepSpeed config|deepspeed_config_file|` +
        String.raw`uses FSDP, not DeepSpeed|the trainer picks|takes the accumulation from|derives the weights dtype|` +
        String.raw`set \S+ there|no TrainingArguments \/ TRL config call`,
    ),
  ],
  ['by-hand', /by hand|accelerate config/],
  [
    'format',
    new RegExp(
      String.raw`has no |have no |no setting for|no key for|no .*flag|flags? (?:are|is) unknown|no .* option for|` +
        String.raw`no .* for \S+$|cannot express|is not written in|is a \S+ (?:config )?(?:key|setting)|are \S+ keys|` +
        String.raw`a \S+ setting|\bonly\b|is not one of|do(?:es)? not take|is the legacy form|no distributed launcher|` +
        String.raw`no training command|no \S+ launcher|no chunked-loss switch|no method |reject|is nf4|whole layers|` +
        String.raw`is not a lora_ builder|alone cannot be written|changes more than`,
    ),
  ],
];

export function blockedKindOf(reason: string): BlockedKind {
  return KIND_PATTERNS.find(([, re]) => re.test(reason))?.[0] ?? 'other';
}

/** Why a plan writes nothing, or null when it writes every change. Paths become file names. */
function blockedOf(plan: FixPlan, files: readonly string[]): AdviceView['blocked'] {
  if (plan.unsupported.length === 0) return plan.edits.length > 0 ? null : { kind: 'nothing', detail: '' };
  const named = (text: string): string => files.reduce((t, f) => t.split(f).join(baseName(f)), text);
  const reasons = [...new Set(plan.unsupported.map((u) => named(u.reason)))];
  return { kind: blockedKindOf(reasons[0]), detail: reasons.join('; ') };
}

/** The panel model, or undefined with the reason when there is no estimate. */
export function buildPanelModel(a: Analysis, strings: Record<string, string>): { model?: PanelModel; reason?: string } {
  if (!a.setup || !a.estimate) {
    const why =
      a.findings.find((f) => f.code === 'unknown-model')?.message ??
      a.pipeline.problems.find((p) => p.severity === 'error')?.message ??
      'the setup is incomplete';
    return { reason: why };
  }
  const advice = a.advice();
  const files = fixFiles(a);
  const paths = [...new Set([a.file, ...files.map((f) => f.file)])].sort((x, y) => y.length - x.length);
  // Every item is planned, in rank order, so that applicable items further down the ranking are not lost behind
  // ones the files cannot express; the model keeps the best of each kind, still in rank order.
  const items: AdviceView[] = [];
  let applicable = 0;
  let blocked = 0;
  for (const i of advice?.items ?? []) {
    const why = blockedOf(editsForChanges(i.changes, files, a.file), paths);
    if (why ? blocked >= MAX_BLOCKED : applicable >= MAX_APPLICABLE) continue;
    if (why) blocked++;
    else applicable++;
    items.push({
      id: i.id,
      title: i.title,
      changes: i.changes.map((c) => ({ key: String(c.key), value: c.value })),
      savedBytes: i.savedBytes,
      stepTimeFactor: i.stepTimeFactor,
      changesResult: i.changesResult,
      fits: i.fits,
      deviceBytes: i.deviceBytes,
      costExplain: [...i.costExplain],
      gpus: i.gpus,
      applicable: why === null,
      blocked: why,
    });
  }
  return {
    model: {
      title: baseName(a.file),
      format: a.format ?? 'unknown',
      setup: a.setup,
      gpu: a.gpu ? { id: a.gpu.id, memoryBytes: a.gpu.memoryBytes } : null,
      headroomFraction: Math.min(0.5, a.settings.headroomPercent / 100),
      estimate: estimateView(a.estimate),
      assumptions: a.estimate.assumptions.map((x) => ({ key: String(x.key), value: x.value, source: x.source })),
      warnings: a.estimate.warnings.map((w) => ({ key: String(w.key), message: w.message })),
      advice: items,
      maxMicroBatch: advice?.maxMicroBatch ?? null,
      maxSeqLen: advice?.maxSeqLen ?? null,
      gpusNeeded: advice?.gpusNeeded ?? null,
      strings,
    },
  };
}
