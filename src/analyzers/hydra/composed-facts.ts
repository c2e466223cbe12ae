// What reading a composed Hydra config writes: facts and problems, each in the file its value comes from, for the
// application that reads it (hydra/dpo.ts, hydra/halos.ts). Pure.
import {
  msg,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type ParseProblem,
  type Span,
  type Tool,
  type Unknown,
} from '../facts';
import type { ComposedValue, Composition } from './compose';

/** Facts and problems by the file they are in. */
export type FactsByFile = Map<string, { facts: Fact[]; problems: ParseProblem[] }>;

const DTYPES: Readonly<Record<string, 'fp32' | 'bf16' | 'fp16'>> = {
  float32: 'fp32',
  bfloat16: 'bf16',
  float16: 'fp16',
};

/** A torch dtype's name as the configs write it (`bfloat16`), in the setup's vocabulary; undefined for another. */
export const dtypeOf = (name: string | undefined): 'fp32' | 'bf16' | 'fp16' | undefined => DTYPES[name ?? ''];

/** What one read of the composition writes: facts and problems, each in its file. */
export class ComposedFacts {
  readonly byFile: FactsByFile = new Map();

  constructor(
    readonly c: Composition,
    private readonly tool: Tool,
  ) {}

  private of(file: string): { facts: Fact[]; problems: ParseProblem[] } {
    let e = this.byFile.get(file);
    if (!e) this.byFile.set(file, (e = { facts: [], problems: [] }));
    return e;
  }

  get(path: string): ComposedValue | undefined {
    return this.c.values.get(path);
  }

  /** The value's text, where it is a string or a number. */
  text(v: ComposedValue | undefined): string | undefined {
    const view = v?.view;
    return view?.t === 'str' ? view.v.trim() : view?.t === 'num' ? String(view.v) : undefined;
  }

  /** A fact at the value's place; `extra` adds what the read says of it (an assumption, how the model loads). */
  add(
    v: ComposedValue,
    key: CanonicalKey,
    value: FactValue | Unknown,
    extra?: Partial<Pick<Fact, 'assumed' | 'loadsCheckpointDtype' | 'rawValue'>>,
  ): void {
    this.of(v.file).facts.push({
      key,
      rawKey: v.rawKey,
      value,
      rawValue: v.rawValue,
      keySpan: v.keySpan,
      valueSpan: v.valueSpan,
      tool: this.tool,
      ...extra,
    });
  }

  /** A fact at a place that holds no composed value (a defaults entry). */
  addAt(file: string, span: Span, key: CanonicalKey, value: FactValue | Unknown): void {
    const rawValue = this.c.files.find((f) => f.path === file)?.text.slice(span.start, span.end) ?? '';
    const fact: Fact = {
      key,
      rawKey: 'defaults',
      value,
      rawValue,
      keySpan: span,
      valueSpan: span,
      tool: this.tool,
    };
    this.of(file).facts.push(fact);
  }

  problem(
    v: ComposedValue,
    code: ParseProblem['code'],
    severity: ParseProblem['severity'],
    m: ReturnType<typeof msg>,
  ): void {
    this.of(v.file).problems.push({ code, severity, span: v.valueSpan, rawKey: v.rawKey, ...m });
  }

  /** A problem at a place that holds no composed value (a defaults entry). */
  problemAt(file: string, span: Span, code: ParseProblem['code'], m: ReturnType<typeof msg>): void {
    this.of(file).problems.push({ code, severity: 'warning', span, ...m });
  }

  /** A value that is not known statically: unknown at its place (an interpolation, a launch-line variable). */
  unknownOf(v: ComposedValue): Unknown | undefined {
    return v.view.t === 'unknown' ? { unknown: v.view.reason } : undefined;
  }

  /** A positive whole number, or the problem said at its place. */
  count(path: string, key: CanonicalKey): number | undefined {
    const v = this.get(path);
    if (!v) return undefined;
    const unknown = this.unknownOf(v);
    if (unknown) {
      this.add(v, key, unknown);
      return undefined;
    }
    const n = v.view.t === 'num' ? v.view.v : Number(this.text(v));
    if (!Number.isSafeInteger(n) || n < 1) {
      this.problem(
        v,
        'invalid-value',
        'error',
        msg('{0}: expected a positive integer, found {1}', v.rawKey, v.rawValue),
      );
      return undefined;
    }
    this.add(v, key, n);
    return n;
  }

  /** A torch dtype's name (`bfloat16`) as the setup's dtype, or the problem said at its place; the dtype read. */
  dtype(path: string, key: CanonicalKey): 'fp32' | 'bf16' | 'fp16' | undefined {
    const v = this.get(path);
    if (!v || v.view.t === 'absent') return undefined;
    const unknown = this.unknownOf(v);
    const d = dtypeOf(this.text(v));
    if (unknown) this.add(v, key, unknown);
    else if (d) this.add(v, key, d);
    else
      this.problem(
        v,
        'invalid-value',
        'error',
        msg('{0}: expected float32, bfloat16 or float16, found {1}', v.rawKey, v.rawValue),
      );
    return d;
  }

  /**
   * A LoRA section's settings at the paths given: rank, alpha and dropout as numbers (or unknown at their place), the
   * targets as one name (`all-linear`) or a list of names.
   */
  loraSettings(paths: { r: string; alpha: string; dropout: string; targets: string }): void {
    const number = (path: string, key: 'loraR' | 'loraAlpha' | 'loraDropout'): void => {
      const v = this.get(path);
      const unknown = v ? this.unknownOf(v) : undefined;
      if (v?.view.t === 'num') this.add(v, key, v.view.v);
      else if (v && unknown) this.add(v, key, unknown);
    };
    number(paths.r, 'loraR');
    number(paths.alpha, 'loraAlpha');
    number(paths.dropout, 'loraDropout');
    const targets = this.get(paths.targets);
    const view = targets?.view;
    if (targets && view?.t === 'str')
      this.add(targets, 'loraTargets', view.v === 'all-linear' ? 'all-linear' : [view.v]);
    else if (targets && view?.t === 'seq') {
      const names = view.items.flatMap((i) => (i.t === 'str' ? [i.v] : []));
      if (names.length > 0) this.add(targets, 'loraTargets', names);
    }
  }
}
