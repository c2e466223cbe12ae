// The scenario format (*.vram.yaml, *.vram.yml, *.vram.json): read with eemeli/yaml (JSON is read by the same
// parser, so both keep source ranges), validated with the TrainingSetup schema, every problem located at its
// key or value. Pure: text in, values and located problems out; never throws on user text.
import { LineCounter, isMap, isScalar, isSeq, visit, type Document, type Node } from 'yaml';
import { parseYaml } from './yaml-parse';
import { z } from 'zod';
import { DistillationSchema, HfConfigSchema, RewardModelSchema, RolloutSchema, TrainingSetupSchema } from '../core';
import { msg, quoteWritten, type Message, type MessageTemplate } from './facts';
import { notAnalyzed } from './guards';
import { describeSetupIssue, valueAt } from './issues';

export interface Location {
  readonly file: string;
  /** UTF-16 offsets, half-open, as VS Code counts. */
  readonly start: number;
  readonly end: number;
  /** 1-based line and column of start. */
  readonly line: number;
  readonly column: number;
}

export interface Problem extends Location {
  /** `info`: a note at its place (where a reference was found), not a fault. */
  readonly severity: 'error' | 'warning' | 'info';
  readonly code: string;
  readonly message: string;
  /** `message` as a template for translation (see ParseProblem.template). */
  readonly template?: MessageTemplate;
  /** Dotted key path the problem is about, when there is one. */
  readonly key?: string;
}

export interface ScenarioFacts {
  readonly file: string;
  /** The values as written (unknown keys and invalid values left out). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Where each top-level key is written (the key's range; the value's range in valueLocations). */
  readonly keyLocations: Readonly<Record<string, Location>>;
  readonly valueLocations: Readonly<Record<string, Location>>;
  readonly problems: readonly Problem[];
}

/**
 * The scenario schema: a TrainingSetup in which `architecture` may be left to the `model` reference, a distillation
 * teacher's architecture to its `teacher_model`, and a reward model's to its `model`.
 */
export const ScenarioSchema = TrainingSetupSchema.extend({
  architecture: HfConfigSchema.optional(),
  distillation: DistillationSchema.extend({ teacher_architecture: HfConfigSchema.optional() }).optional(),
  rollout: RolloutSchema.extend({
    reward_models: z.array(RewardModelSchema.extend({ architecture: HfConfigSchema.optional() })).default([]),
  }).optional(),
});

export const SCENARIO_FILE = /\.vram\.(ya?ml|json)$/i;

export function isScenarioFile(fileName: string): boolean {
  return SCENARIO_FILE.test(fileName);
}

function locate(file: string, lc: LineCounter, start: number, end: number): Location {
  const pos = lc.linePos(start);
  return { file, start, end, line: pos.line, column: pos.col };
}

function nodeRange(node: unknown): [number, number] | undefined {
  const r = (node as Node | undefined)?.range;
  return r ? [r[0], r[1]] : undefined;
}

/** The key node of a path in the document (for unknown-key problems), or the value node. */
function findNode(doc: Document, path: readonly PropertyKey[], wantKey: boolean): [number, number] | undefined {
  let node: unknown = doc.contents;
  let keyRange: [number, number] | undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return keyRange ?? nodeRange(node);
      keyRange = nodeRange(pair.key);
      node = pair.value;
    } else if (
      node &&
      typeof node === 'object' &&
      'items' in node &&
      Array.isArray((node as { items: unknown[] }).items) &&
      typeof seg === 'number'
    ) {
      node = (node as { items: unknown[] }).items[seg];
      keyRange = nodeRange(node);
    } else {
      break;
    }
  }
  return wantKey ? (keyRange ?? nodeRange(node)) : (nodeRange(node) ?? keyRange);
}

/** The first key of a mapping that is itself a mapping or a list (`{ {a: 1}: 2 }`), anywhere in the document. */
function collectionKey(doc: Document): Node | undefined {
  let found: Node | undefined;
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key as Node | null;
      if (key && (isMap(key) || isSeq(key))) {
        found = key;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** A file no YAML reading takes (binary, too large): the refusal, located, and no values. */
function refusedScenario(
  text: string,
  file: string,
  refused: NonNullable<ReturnType<typeof notAnalyzed>>,
): ScenarioFacts {
  const lc = new LineCounter();
  lc.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0 && i < refused.span.start; i = text.indexOf('\n', i + 1))
    lc.addNewLine(i + 1);
  const problem: Problem = {
    ...locate(file, lc, refused.span.start, refused.span.end),
    severity: 'warning',
    code: refused.code,
    message: refused.message,
    template: refused.template,
  };
  return { file, values: {}, keyLocations: {}, valueLocations: {}, problems: [problem] };
}

/** What reading a scenario works with: its file, text, parsed document and line index, and the problems so far. */
interface ScenarioReading {
  readonly file: string;
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly lc: LineCounter;
  readonly problems: Problem[];
}

/** The YAML library's errors and warnings, located. */
function yamlProblems(r: ScenarioReading): void {
  const { file, lc, doc, problems } = r;
  for (const e of doc.errors) {
    problems.push({
      ...locate(file, lc, e.pos[0], e.pos[1]),
      severity: 'error',
      code: 'syntax-error',
      ...msg('{0}', e.message.split('\n')[0]),
    });
  }
  for (const w of doc.warnings) {
    problems.push({
      ...locate(file, lc, w.pos[0], w.pos[1]),
      severity: 'warning',
      code: 'syntax-warning',
      ...msg('{0}', w.message.split('\n')[0]),
    });
  }
}

/**
 * The document as plain values, undefined where it cannot be. A mapping or a list as a key: no scenario has one, and
 * converting it makes the YAML library write every nested key out as text (a few dozen nested `{` took seconds).
 */
function plainValues(r: ScenarioReading): unknown {
  const { file, text, lc, doc, problems } = r;
  const complexKey = collectionKey(doc);
  try {
    if (!complexKey) return doc.toJS({ maxAliasCount: 100 });
    const range = nodeRange(complexKey) ?? [0, 0];
    problems.push({
      ...locate(file, lc, range[0], range[1]),
      severity: 'error',
      code: 'syntax-error',
      ...msg('{0}: {1}', 'key', "a mapping or a list cannot be a scenario's key: keys are names"),
    });
  } catch (err) {
    problems.push({
      ...locate(file, lc, 0, Math.min(1, text.length)),
      severity: 'error',
      code: 'syntax-error',
      ...msg('{0}', err instanceof Error ? err.message : String(err)),
    });
  }
  return undefined;
}

/** Where each top-level key and its value are written. */
function locations(r: ScenarioReading): Pick<ScenarioFacts, 'keyLocations' | 'valueLocations'> {
  const keyLocations: Record<string, Location> = {};
  const valueLocations: Record<string, Location> = {};
  if (!isMap(r.doc.contents)) return { keyLocations, valueLocations };
  for (const pair of r.doc.contents.items) {
    if (!isScalar(pair.key)) continue;
    const k = String(pair.key.value);
    const kr = nodeRange(pair.key);
    if (kr) keyLocations[k] = locate(r.file, r.lc, kr[0], kr[1]);
    const vr = nodeRange(pair.value);
    if (vr) valueLocations[k] = locate(r.file, r.lc, vr[0], vr[1]);
  }
  return { keyLocations, valueLocations };
}

/** The values the schema takes: each issue located at its key or value, the top-level keys it concerns left out. */
function checkedValues(r: ScenarioReading, raw: Record<string, unknown>): Record<string, unknown> {
  const { file, text, lc, doc, problems } = r;
  const values: Record<string, unknown> = { ...raw };
  const parsed = ScenarioSchema.safeParse(values);
  if (parsed.success) return values;
  const writtenAt = (path: readonly PropertyKey[]): string | undefined => {
    const range = findNode(doc, path, false);
    return range ? quoteWritten(text.slice(range[0], range[1])) : undefined;
  };
  const bad = new Set<string>();
  for (const issue of parsed.error.issues) {
    for (const d of describeIssue(issue, values, writtenAt)) {
      const range = findNode(doc, d.path, d.atKey) ?? [0, 0];
      problems.push({
        ...locate(file, lc, range[0], range[1]),
        severity: 'error',
        code: d.code,
        message: d.message,
        template: d.template,
        key: d.path.join('.'),
      });
      if (d.path.length > 0) bad.add(String(d.path[0]));
    }
  }
  for (const k of bad) delete values[k];
  return values;
}

/** Reads a scenario file. Problems: syntax errors, unknown keys, wrong types, impossible values. */
export function analyzeScenario(text: string, file: string): ScenarioFacts {
  const refused = notAnalyzed(text, 'yaml');
  if (refused) return refusedScenario(text, file, refused);
  const lc = new LineCounter();
  const doc = parseYaml(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const r: ScenarioReading = { file, text, doc, lc, problems: [] };
  yamlProblems(r);
  const raw = plainValues(r);
  const { keyLocations, valueLocations } = locations(r);
  const problems = r.problems;
  if (raw === null || raw === undefined) {
    if (problems.length === 0)
      problems.push({
        ...locate(file, lc, 0, 0),
        severity: 'error',
        code: 'missing-model',
        ...msg('the scenario is empty: it needs at least a model'),
      });
    return { file, values: {}, keyLocations, valueLocations, problems };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const range = nodeRange(doc.contents) ?? [0, text.length];
    problems.push({
      ...locate(file, lc, range[0], range[1]),
      severity: 'error',
      code: 'invalid-value',
      ...msg('a scenario is a mapping of keys to values'),
    });
    return { file, values: {}, keyLocations, valueLocations, problems };
  }
  // A missing model is reported by resolve: another file or --model may provide it.
  const values = checkedValues(r, raw as Record<string, unknown>);
  return { file, values, keyLocations, valueLocations, problems };
}

interface Described extends Message {
  readonly path: readonly PropertyKey[];
  readonly atKey: boolean;
  readonly code: string;
}

function describeIssue(
  issue: z.core.$ZodIssue,
  values: unknown,
  writtenAt: (path: readonly PropertyKey[]) => string | undefined,
): Described[] {
  const path = issue.path;
  const where = path.length > 0 ? `\`${path.join('.')}\`` : 'the scenario';
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => {
      const key = [...path, k].join('.');
      const hit = suggestKey(k, path);
      return {
        path: [...path, k],
        atKey: true,
        code: 'unknown-key',
        ...(hit ? msg('unknown key `{0}` (did you mean `{1}`?)', key, hit) : msg('unknown key `{0}`', key)),
      };
    });
  }
  return [
    {
      path,
      atKey: false,
      code: 'invalid-value',
      ...describeSetupIssue(issue, where, valueAt(values, path), writtenAt(path)),
    },
  ];
}

const TOP_KEYS = Object.keys(ScenarioSchema.shape);

function suggestKey(k: string, path: readonly PropertyKey[]): string | undefined {
  if (path.length > 0) return undefined;
  const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const n = norm(k);
  const hit = TOP_KEYS.find((t) => norm(t) === n) ?? TOP_KEYS.find((t) => norm(t).includes(n) || n.includes(norm(t)));
  return hit;
}
