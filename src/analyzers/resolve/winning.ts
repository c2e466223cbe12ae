// Ranking: the file problems resolve reports, the fact that decides each canonical key (launcher over config over
// referenced file, the later file on ties, a known value over an unknown one), and the order in which the tools'
// defaults apply. Pure.
import { isUnknown, type CanonicalKey, type Tool } from '../facts';
import type { Problem } from '../scenario';
import { locateOffset } from './locate';
import { NO_TRAINING_SEEN, TRAINING_TOOLS } from '../trains';
import type { AnalyzedFile, FileRole, WinningFact } from './types';

const RANK: Record<FileRole, number> = { referenced: 1, config: 2, launcher: 3 };

/**
 * The warnings and errors of the files' analyses, located. A script that loads the model and trains nothing itself is
 * not warned about when another file of the run trains it (a project module's trainer it calls).
 */
export function fileProblems(files: readonly AnalyzedFile[]): Problem[] {
  const problems: Problem[] = [];
  const trains = files.some((f) => f.facts.tools.some((t) => TRAINING_TOOLS.has(t)));
  for (const f of files) {
    for (const p of f.facts.problems) {
      // Notes stay with their file, but how a file was read (by its names alone) and which of its launches is estimated
      // are the run's to say.
      if (p.severity === 'info' && p.code !== 'read-by-name' && p.code !== 'several-launches') continue;
      if (trains && p.code === 'not-modeled' && p.message.startsWith(NO_TRAINING_SEEN)) continue;
      problems.push({
        ...locateOffset(f.file, f.text, p.span.start, p.span.end),
        severity: p.severity,
        code: p.code,
        message: p.message,
        ...(p.template ? { template: p.template } : {}),
        key: p.rawKey,
      });
    }
  }
  return problems;
}

/** The winning fact per canonical key, and the unknown fact of each key that has no known one. */
export function winningFacts(files: readonly AnalyzedFile[]): {
  decided: Partial<Record<CanonicalKey, WinningFact>>;
  unknownOnly: Partial<Record<CanonicalKey, WinningFact>>;
} {
  // Winning fact per key: highest rank, later file on ties; a known value beats an unknown one of any rank, and the
  // unknown ones are ranked alike.
  const decided: Partial<Record<CanonicalKey, WinningFact>> = {};
  const unknownOnly: Partial<Record<CanonicalKey, WinningFact>> = {};
  for (const f of files) {
    for (const fact of f.facts.facts) {
      const w: WinningFact = {
        fact,
        file: f.file,
        location: locateOffset(f.file, f.text, fact.valueSpan.start, fact.valueSpan.end),
        ...(f.origin?.kind === 'bundled' ? { bundled: { owner: f.origin.owner, note: f.origin.note } } : {}),
        ...(f.facts.format === 'script-data' && fact.fromData ? { dataKey: fact.fromData.keys.join('.') } : {}),
      };
      const rankOf = (fa: typeof fact, role: FileRole): number =>
        fa.overridesLauncher ? RANK.launcher + 1 : fa.byNameOnly || fa.moduleDataBound ? 0 : RANK[role];
      const rankOfWinner = (x: WinningFact | undefined): number =>
        x ? rankOf(x.fact, files.find((y) => y.file === x.file)?.role ?? 'config') : -1;
      // An unknown value is said where the highest-ranked file leaves it open (the launch line's `$MODEL`, not the
      // script's default it overrides).
      const into = isUnknown(fact.value) ? unknownOnly : decided;
      if (rankOf(fact, f.role) >= rankOfWinner(into[fact.key])) into[fact.key] = w;
    }
  }
  return { decided, unknownOnly };
}

/** Tools in priority order for defaults: the trainer named by the most specific file wins. */
export function toolOrder(files: readonly AnalyzedFile[]): Tool[] {
  const order: Tool[] = [];
  const prio: Tool[] = [
    'unsloth',
    'ms-swift',
    'openrlhf',
    'verl',
    'xtuner',
    'dpo-reference',
    'halos',
    'llm-foundry',
    'torchtitan',
    'nemo-rl',
    'rl2',
    'areal',
    'prime-rl',
    'oumi',
    'autotrain',
    'ludwig',
    'mistral-finetune',
    'align-anything',
    'arctic-training',
    'trl',
    'llamafactory',
    'axolotl',
    'torchtune',
    'litgpt',
    'pytorch',
    'hf-trainer',
    'accelerate',
    'deepspeed',
  ];
  const seen = new Set<Tool>();
  for (const f of files) for (const t of f.facts.tools) seen.add(t);
  for (const f of files) for (const fact of f.facts.facts) seen.add(fact.tool);
  for (const t of prio) if (seen.has(t)) order.push(t);
  return order;
}
