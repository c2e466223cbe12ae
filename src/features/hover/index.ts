// Hover text: the per-GPU breakdown at a memory-relevant key, the phase of the peak, capacity and headroom,
// and the marginal effect of the hovered key ("micro-batch 4 -> 5: +2.1 GiB"). Markdown with a fenced block in
// the `vram-breakdown` language (highlighted by syntaxes/vram-breakdown.tmLanguage.json) and a command link
// that opens the panel. Editor-free and pure. The what-ifs of each key are WHAT_IFS (what-ifs.ts); the text blocks
// are in render.ts.
import type { CanonicalKey, Fact, Span } from '../../analyzers/facts';
import { isUnknown } from '../../analyzers/facts';
import { parseArchitecture } from '../../core';
import { formatCount } from '../../core';
import type { Analysis } from '../analysis';
import { SETUP_FIELD_KEY } from '../findings';
import { mdCode, mdText, messageMarkdown } from '../markdown';
import { breakdownBlock, identity, type Translate } from './render';
import { whatIfEffects } from './what-ifs';
export { breakdownBlock } from './render';

export const OPEN_PANEL_COMMAND = 'vramLens.openPanel';

interface HoverTarget {
  readonly key: CanonicalKey | string;
  readonly rawKey: string;
  readonly rawValue: string;
  readonly span: Span;
}

function targetAt(a: Analysis, offset: number, text: string): HoverTarget | undefined {
  const inside = (s: Span): boolean => offset >= s.start && offset <= s.end;
  const f: Fact | undefined = [...a.facts.facts].reverse().find((x) => inside(x.keySpan) || inside(x.valueSpan));
  if (f) return { key: f.key, rawKey: f.rawKey, rawValue: f.rawValue, span: f.keySpan };
  if (a.scenario) {
    for (const [k, loc] of Object.entries(a.scenario.keyLocations)) {
      const v = a.scenario.valueLocations[k];
      if (inside(loc) || (v && inside(v))) return { key: SETUP_FIELD_KEY[k] ?? k, rawKey: k, rawValue: v ? text.slice(v.start, v.end) : '', span: loc };
    }
  }
  return undefined;
}

/** Markdown for a hover at `offset`, or undefined when the offset is not on a memory-relevant key. */
export function hoverAt(a: Analysis, offset: number, text: string, t: Translate = identity): string | undefined {
  const target = targetAt(a, offset, text);
  if (!target) return undefined;
  const lines: string[] = [];
  lines.push(`**VRAM Lens** · ${mdCode(target.rawKey)}`);
  if (target.key === 'model' && a.setup) {
    const arch = parseArchitecture(a.setup.architecture);
    const src = a.pipeline.provenance.architecture;
    const params = a.estimate?.parameters;
    if (arch.ok) {
      const x = arch.arch;
      lines.push(t('{0}: {1} layers, hidden {2}, {3} heads ({4} kv), MLP {5}, vocab {6}', x.family, x.layers, x.hidden, x.heads, x.kvHeads, x.ffn, x.vocab));
    }
    if (params) lines.push(t('{0} parameters ({1} trainable) · source: {2}', formatCount(params.total), formatCount(params.trainable),
      mdText(src?.kind === 'catalog' ? src.entry : params.source)));
  }
  const e = a.estimate;
  if (!a.setup || !e) {
    const reason = a.findings.find((f) => f.code === 'unknown-model') ?? a.pipeline.problems.find((p) => p.severity === 'error') ?? a.estimateErrors?.[0];
    const why = reason ? messageMarkdown(reason.message, 'template' in reason ? reason.template : undefined, t) : mdText(t('the setup is incomplete'));
    lines.push('', t('No estimate yet: {0}', why));
    return lines.join('\n\n');
  }
  lines.push('```vram-breakdown\n' + breakdownBlock(e, true) + '\n```');
  const effects = whatIfEffects(String(target.key), a.setup, e, t);
  if (effects.length > 0) lines.push(t('**This key:** {0}', effects.join(' · ')));
  if (isUnknown({ unknown: '' }) && target.rawValue === '"auto"') lines.push(t('"auto" is filled in by the trainer from TrainingArguments.'));
  lines.push(`[${t('Open the VRAM panel')}](command:${OPEN_PANEL_COMMAND})`);
  return lines.join('\n\n');
}
