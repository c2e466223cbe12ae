// Hover text, answer first (VS Code shows about 250 px of it): the first line is the verdict ("48.0 GiB > 24.0 GiB on
// RTX-4090 (24.0 GiB over)" or "fits: 18.2 of 24.0 GiB on RTX-4090"), the second what the hovered key does
// ("micro-batch 4 -> 5: +8.2 GiB · 2 fits"); then the three largest terms and the ones this key drives, in a small
// block of the `vram-breakdown` language (highlighted by syntaxes/vram-breakdown.tmLanguage.json); the formulas
// and the rest are behind a command link that opens the panel. A key that carries a diagnostic does not repeat it:
// the editor shows the diagnostic (with its largest terms as related lines) in the same hover. Editor-free and pure.
// The what-ifs of each key are WHAT_IFS (what-ifs.ts); the text blocks are in render.ts.
import type { CanonicalKey, Fact, Span } from '../../analyzers/facts';
import { isUnknown } from '../../analyzers/facts';
import { parseArchitecture } from '../../core';
import { formatCount } from '../../core';
import type { Analysis } from '../analysis';
import { componentsDrivenBy, SETUP_FIELD_KEY, type Finding } from '../findings';
import { mdCode, mdText, messageMarkdown } from '../markdown';
import { compactBlock, identity, verdictLine, type Translate } from './render';
import { whatIfEffects } from './what-ifs';
export { breakdownBlock, verdictLine } from './render';

export const OPEN_PANEL_COMMAND = 'vramLens.openPanel';

interface HoverTarget {
  readonly key: CanonicalKey | string;
  readonly rawKey: string;
  readonly rawValue: string;
  readonly span: Span;
  readonly valueSpan?: Span;
  readonly fact?: Fact;
}

function targetAt(a: Analysis, offset: number, text: string): HoverTarget | undefined {
  const inside = (s: Span): boolean => offset >= s.start && offset <= s.end;
  const f: Fact | undefined = [...a.facts.facts].reverse().find((x) => inside(x.keySpan) || inside(x.valueSpan));
  if (f)
    return { key: f.key, rawKey: f.rawKey, rawValue: f.rawValue, span: f.keySpan, valueSpan: f.valueSpan, fact: f };
  const defined = definitionAt(a, offset, text);
  if (defined) return defined;
  if (a.scenario) {
    for (const [k, loc] of Object.entries(a.scenario.keyLocations)) {
      const v = a.scenario.valueLocations[k];
      if (inside(loc) || (v && inside(v)))
        return {
          key: SETUP_FIELD_KEY[k] ?? k,
          rawKey: k,
          rawValue: v ? text.slice(v.start, v.end) : '',
          span: loc,
          valueSpan: v,
        };
    }
  }
  return undefined;
}

/**
 * A model id given through a constant (`MODEL_ID = "Qwen/Qwen3-8B"` then `from_pretrained(MODEL_ID)`): the hover at
 * the constant's definition is the model's, like the one at the call. The analyzer names the definition in the raw
 * value ("MODEL_ID (MODEL_ID = "..." at line 2)").
 */
function definitionAt(a: Analysis, offset: number, text: string): HoverTarget | undefined {
  for (const f of a.facts.facts) {
    if (f.key !== 'model') continue;
    const m = /\((\w+) = .* at line (\d+)\)\s*$/.exec(f.rawValue);
    if (!m) continue;
    const [, name, line] = m;
    let start = 0;
    for (let i = 1; i < Number(line) && start >= 0; i++) {
      const nl = text.indexOf('\n', start);
      start = nl < 0 ? -1 : nl + 1;
    }
    if (start < 0) continue;
    const end = text.indexOf('\n', start);
    const lineText = text.slice(start, end < 0 ? text.length : end);
    const at = lineText.search(new RegExp(`\\b${name}\\s*=`));
    if (at < 0 || offset < start + at || offset > start + lineText.length) continue;
    const span = { start: start + at, end: start + at + name.length };
    return {
      key: 'model',
      rawKey: name,
      rawValue: f.rawValue,
      span,
      valueSpan: { start: span.start, end: start + lineText.length },
      fact: f,
    };
  }
  return undefined;
}

/** The findings shown at the hovered key or its value (the editor puts them in the same hover). */
function findingsAt(a: Analysis, target: HoverTarget): Finding[] {
  const overlaps = (s: Span, x: Span | undefined): boolean => x !== undefined && s.start <= x.end && x.start <= s.end;
  return a.findings.filter((f) => overlaps(f.span, target.span) || overlaps(f.span, target.valueSpan));
}

/** The setup field a canonical key sets (the inverse of SETUP_FIELD_KEY), for the provenance of an "auto" value. */
function fieldOf(key: string): string | undefined {
  return Object.entries(SETUP_FIELD_KEY).find(([, k]) => k === key)?.[0];
}

/** What fills an "auto" value of a DeepSpeed JSON: the analyzer's note, and the value the run gives it, if any. */
function autoLine(a: Analysis, target: HoverTarget, here: readonly Finding[], t: Translate): string | undefined {
  const f = target.fact;
  if (!f || !isUnknown(f.value) || !/^auto\b/.test(f.value.unknown)) return undefined;
  const p = a.facts.problems.find((x) => x.code === 'unresolved-auto' && x.span.start === f.valueSpan.start);
  const lines: string[] = [];
  if (p && !here.some((x) => x.code === 'unresolved-auto')) lines.push(messageMarkdown(p.message, p.template, t));
  const field = fieldOf(String(target.key));
  const prov = field
    ? (a.pipeline.provenance as Record<string, (typeof a.pipeline.provenance)[keyof typeof a.pipeline.provenance]>)[
        field
      ]
    : undefined;
  const value = field && a.setup ? (a.setup as unknown as Record<string, unknown>)[field] : undefined;
  if (prov && (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')) {
    const from =
      prov.kind === 'file'
        ? t('{0} in {1}', mdCode(prov.key), mdCode(prov.file.split(/[\\/]/).pop() ?? prov.file))
        : prov.kind === 'default'
          ? mdText(`${prov.owner}: ${prov.note}`)
          : prov.kind === 'setting'
            ? mdCode(prov.setting)
            : prov.kind === 'flag'
              ? mdCode(prov.flag)
              : '';
    if (from) lines.push(t('In this run: {0} (from {1}).', mdCode(String(value)), from));
  }
  return lines.length > 0 ? lines.join(' ') : undefined;
}

/** Markdown for a hover at `offset`, or undefined when the offset is not on a memory-relevant key. */
export function hoverAt(a: Analysis, offset: number, text: string, t: Translate = identity): string | undefined {
  const target = targetAt(a, offset, text);
  if (!target) return undefined;
  const here = findingsAt(a, target);
  const lines: string[] = [];
  const e = a.estimate;
  const link = `[${t('Full breakdown, formulas and advice')}](command:${OPEN_PANEL_COMMAND})`;
  const model: string[] = [];
  if (target.key === 'model' && a.setup) {
    const arch = parseArchitecture(a.setup.architecture);
    const src = a.pipeline.provenance.architecture;
    const params = a.estimate?.parameters;
    if (params)
      model.push(
        t(
          '{0} parameters ({1} trainable) · source: {2}',
          formatCount(params.total),
          formatCount(params.trainable),
          mdText(src?.kind === 'catalog' ? src.entry : params.source),
        ),
      );
    if (arch.ok) {
      const x = arch.arch;
      model.push(
        t(
          '{0}: {1} layers, hidden {2}, {3} heads ({4} kv), MLP {5}, vocab {6}',
          x.family,
          x.layers,
          x.hidden,
          x.heads,
          x.kvHeads,
          x.ffn,
          x.vocab,
        ),
      );
    }
  }
  if (!a.setup || !e) {
    // The reason is said once: by the diagnostic at this key when there is one, else here.
    const reason =
      a.findings.find((f) => f.code === 'unknown-model') ??
      a.pipeline.problems.find((p) => p.severity === 'error') ??
      a.estimateErrors?.[0];
    const shown = reason && here.some((f) => f.message === reason.message);
    const why = reason
      ? messageMarkdown(reason.message, 'template' in reason ? reason.template : undefined, t)
      : mdText(t('the setup is incomplete'));
    lines.push(shown ? `${t('No estimate yet')} · ${mdCode(target.rawKey)}` : t('No estimate yet: {0}', why));
    const auto = autoLine(a, target, here, t);
    if (auto) lines.push(auto);
    return lines.join('\n\n');
  }
  // 1. The verdict, 2. what this key does.
  lines.push(`**${verdictLine(e, t)}** · ${mdCode(target.rawKey)}`);
  if (model.length > 0) lines.push(model.join('  \n'));
  const effects = whatIfEffects(String(target.key), a.setup, e, t);
  if (effects.length > 0) lines.push(effects.join(' · '));
  const auto = autoLine(a, target, here, t);
  if (auto) lines.push(auto);
  // 3. The largest terms and those this key drives, unless the diagnostic here lists them already.
  const fitHere = here.some((f) => f.code === 'exceeds-gpu-memory' || f.code === 'near-gpu-memory');
  if (!fitHere) lines.push('```vram-breakdown\n' + compactBlock(e, componentsDrivenBy(String(target.key))) + '\n```');
  lines.push(link);
  return lines.join('\n\n');
}
