// The fuzz harness: mutates real configs and runs each mutant through the entry the extension uses (analysis, the
// hover at every key, quick fixes, the panel model), checking what must hold for any input: no exception, no input
// over the time budget, every byte count a safe integer, every range inside the text, no message that shows
// "Infinity", "NaN" or a schema library's own wording. Deterministic for a given seed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeDocument, type AnalysisSettings } from '../../src/features/analysis';
import { hoverAt } from '../../src/features/hover';
import { buildPanelModel } from '../../src/features/panel-model';
import { quickFixes } from '../../src/features/quick-fixes';
import type { FileReader } from '../../src/analyzers/pipeline';
import { catalogResolver } from '../../src/analyzers/resolve';

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Seed {
  readonly file: string;
  readonly text: string;
}

const NUMBERS = [
  '0',
  '-1',
  '1e308',
  '-1e308',
  '1e15',
  '1e-300',
  'NaN',
  'Infinity',
  '-Infinity',
  '.inf',
  '9007199254740993',
  '1.5',
  '0x10',
  '1_000',
  '2e9',
  '65536',
];
const PAYLOADS = [
  '`` ` ``',
  '[link](http://example.invalid/x)',
  '![img](http://example.invalid/x.png)',
  '<img src=x onerror=alert(1)>',
  '\u001b]8;;http://example.invalid\u0007click\u001b]8;;\u0007',
  '\u001b[2J\u001b[H',
  '\u001b]0;title\u0007',
  '\u202eevil',
  '${a:-${b:-${c}}}',
  '$((1+2*3))',
  '"unterminated',
  "'",
  '{{ var }}',
  '\\',
  '\t',
  '\r\n',
  '\u0000',
];

type Mutator = (text: string, r: () => number) => string;
const pick = <T>(xs: readonly T[], r: () => number): T => xs[Math.floor(r() * xs.length)];
const at = (text: string, r: () => number): number => Math.floor(r() * (text.length + 1));

function repeat(unit: string, n: number): string {
  return unit.repeat(Math.max(1, n));
}

const MUTATORS: readonly Mutator[] = [
  // A number replaced with an extreme or malformed one.
  (t, r) => {
    const nums = [...t.matchAll(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi)];
    if (nums.length === 0) return t;
    const m = pick(nums, r);
    return t.slice(0, m.index) + pick(NUMBERS, r) + t.slice(m.index! + m[0].length);
  },
  // A markup or terminal payload inserted anywhere.
  (t, r) => {
    const i = at(t, r);
    return t.slice(0, i) + pick(PAYLOADS, r) + t.slice(i);
  },
  // A long run of one kind of character (the shapes that make regexes backtrack).
  (t, r) => {
    const i = at(t, r);
    const unit = pick(['1', 'a', ' ', '${', '-', '=', ',', '"', '\\', 'a_', '0.', '[', '{', ':', '#'], r);
    return t.slice(0, i) + repeat(unit, Math.floor(r() * 6000)) + t.slice(i);
  },
  // Deep nesting.
  (t, r) => {
    const i = at(t, r);
    const n = Math.floor(r() * 20000);
    const [open, close] = pick(
      [
        ['[', ']'],
        ['{a: ', '}'],
        ['(', ')'],
        ['{"a":', '}'],
      ],
      r,
    );
    return t.slice(0, i) + repeat(open, n) + repeat(close, r() < 0.5 ? n : 0) + t.slice(i);
  },
  // A line duplicated many times.
  (t, r) => {
    const lines = t.split('\n');
    const k = Math.floor(r() * lines.length);
    const n = Math.floor(r() * 400);
    lines.splice(k, 0, ...Array<string>(n).fill(lines[k] ?? ''));
    return lines.join('\n');
  },
  // A span deleted.
  (t, r) => {
    const i = at(t, r);
    return t.slice(0, i) + t.slice(Math.min(t.length, i + Math.floor(r() * 200)));
  },
  // A character changed.
  (t, r) => {
    if (t.length === 0) return t;
    const i = Math.floor(r() * t.length);
    return t.slice(0, i) + String.fromCharCode(Math.floor(r() * 128)) + t.slice(i + 1);
  },
  // A long model id or value.
  (t, r) => {
    const i = at(t, r);
    return t.slice(0, i) + 'org/' + repeat('model-7b-', Math.floor(r() * 3000)) + t.slice(i);
  },
];

/** One mutant of a seed: one to four mutations. */
export function mutate(seed: Seed, r: () => number): string {
  let t = seed.text;
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) t = pick(MUTATORS, r)(t, r);
  return t;
}

export interface Violation {
  readonly kind: 'exception' | 'slow' | 'unsafe-number' | 'range' | 'wording';
  readonly detail: string;
}

export interface CheckResult {
  readonly violations: readonly Violation[];
  readonly millis: {
    readonly analysis: number;
    readonly hovers: number;
    readonly fixes: number;
    readonly panel: number;
  };
}

const NO_FILES: FileReader = { read: () => undefined, join: (_f, r) => r };
const SETTINGS: AnalysisSettings = { gpu: 'RTX-4090', headroomPercent: 5 };
/** A schema library's own wording, never the product's. */
const SCHEMA_WORDING =
  /Invalid input|expected number, received|Too (small|big):|Unrecognized key|invalid_type|too_big|too_small|Invalid option/;

/** A message in the product's words: no schema wording, and no Infinity or NaN that the user did not write. */
function badWording(message: string, text: string): boolean {
  if (SCHEMA_WORDING.test(message)) return true;
  return ['Infinity', 'NaN'].some(
    (w) => message.includes(w) && !text.includes(w) && !(w === 'Infinity' && /\.inf/i.test(text)),
  );
}

function walkNumbers(v: unknown, where: string, out: Violation[]): void {
  if (typeof v === 'number') {
    if (/bytes$|Bytes$/i.test(where) && !Number.isSafeInteger(v))
      out.push({ kind: 'unsafe-number', detail: `${where} = ${v}` });
    return;
  }
  if (Array.isArray(v)) v.forEach((x, i) => walkNumbers(x, `${where}[${i}]`, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walkNumbers(x, k, out);
}

function checkSpan(s: { start: number; end: number }, len: number, what: string, out: Violation[]): void {
  if (!(s.start >= 0 && s.end >= s.start && s.end <= len))
    out.push({ kind: 'range', detail: `${what} ${s.start}-${s.end} outside 0-${len}` });
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t0 };
}

/** Runs one input through every editor entry and returns what went wrong. */
export function checkInput(file: string, text: string, budgetMs = 1000): CheckResult {
  const out: Violation[] = [];
  const millis = { analysis: 0, hovers: 0, fixes: 0, panel: 0 };
  try {
    const a = timed(() => analyzeDocument({ file, text }, SETTINGS, { reader: NO_FILES, resolver: catalogResolver }));
    millis.analysis = a.ms;
    const analysis = a.value;
    for (const f of analysis.findings) {
      checkSpan(f.span, text.length, `finding ${f.code}`, out);
      if (badWording(f.message, text)) out.push({ kind: 'wording', detail: `${f.code}: ${f.message.slice(0, 200)}` });
    }
    if (analysis.estimate) walkNumbers(analysis.estimate, 'estimate', out);
    const h = timed(() => analysis.facts.facts.slice(0, 40).map((f) => hoverAt(analysis, f.keySpan.start, text)));
    millis.hovers = h.ms;
    for (const md of h.value)
      if (md && badWording(md, text)) out.push({ kind: 'wording', detail: `hover: ${md.slice(0, 200)}` });
    const q = timed(() => quickFixes(analysis));
    millis.fixes = q.ms;
    for (const fix of q.value)
      for (const e of fix.edits) if (e.file === file) checkSpan(e, text.length, `fix ${fix.id}`, out);
    const p = timed(() => buildPanelModel(analysis, {}));
    millis.panel = p.ms;
    if (p.value.model) walkNumbers(p.value.model, 'panel', out);
  } catch (e) {
    out.push({
      kind: 'exception',
      detail:
        e instanceof Error
          ? `${e.name}: ${e.message.slice(0, 200)}\n${(e.stack ?? '').split('\n').slice(1, 4).join('\n')}`
          : String(e),
    });
  }
  const total = millis.analysis + millis.hovers + millis.fixes + millis.panel;
  if (millis.analysis > budgetMs || total > 4 * budgetMs)
    out.push({
      kind: 'slow',
      detail:
        `analysis ${millis.analysis.toFixed(0)} ms, hovers ${millis.hovers.toFixed(0)}, ` +
        `fixes ${millis.fixes.toFixed(0)}, panel ${millis.panel.toFixed(0)}`,
    });
  return { violations: out, millis };
}

const repo = path.resolve(__dirname, '..', '..', '..');

/**
 * The seeds: the examples, our fixtures, the verl-family files of test/real-files (their YAML has a reader of its own)
 * and, where it is beside the checkout, ../shared/corpus.
 */
export function seeds(): Seed[] {
  const dirs = [
    'examples',
    'test/fixtures/deepspeed-json',
    'test/fixtures/halos',
    'test/fixtures/hydra',
    'test/fixtures/llmfoundry',
    'test/fixtures/nemorl',
    'test/fixtures/oumi',
    'test/fixtures/arctic',
    'test/fixtures/hf-python',
    'test/fixtures/notebook',
    'test/fixtures/same-run',
    'test/fixtures/scenario',
    'test/fixtures/shell',
    'test/fixtures/skypilot',
    'test/fixtures/dstack',
    'test/fixtures/torchtitan',
    'test/fixtures/forge',
    'test/fixtures/project-config',
    'test/real-files/files/hiyouga__EasyR1',
    'test/real-files/files/mosaicml__llm-foundry',
    'test/real-files/files/volcengine__verl',
    '../shared/corpus',
  ];
  const list = (d: string): string[] =>
    fs.existsSync(d)
      ? fs
          .readdirSync(d, { withFileTypes: true })
          .flatMap((e) => (e.isDirectory() ? list(path.join(d, e.name)) : [path.join(d, e.name)]))
      : [];
  return dirs
    .flatMap((d) => list(path.join(repo, d)))
    .filter((f) => !/\.(md|tsv)$|expected\.json$|[\\/]LICENSE$/.test(f))
    .sort()
    .map((f) => ({ file: f, text: fs.readFileSync(f, 'utf8') }));
}
