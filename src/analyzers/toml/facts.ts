// The facts of one TOML file, each at the key that gives it: what the TOML analyzers (torchtitan, prime-rl) share.
// Pure: no I/O.
import {
  msg,
  type CanonicalKey,
  type ConfigFacts,
  type FactValue,
  type ParseProblem,
  type Tool,
  type Unknown,
} from '../facts';
import type { TomlDoc, TomlEntry } from './parse';

export class TomlFacts {
  readonly facts: ConfigFacts['facts'][number][] = [];
  readonly problems: ParseProblem[];
  constructor(
    readonly doc: TomlDoc,
    readonly tool: Tool,
  ) {
    this.problems = [...doc.problems];
  }

  /** The entry at the first of `paths` the file writes. */
  get(...paths: string[]): TomlEntry | undefined {
    for (const p of paths) {
      const e = this.doc.entries.get(p);
      if (e) return e;
    }
    return undefined;
  }

  add(key: CanonicalKey, e: TomlEntry, value: FactValue | Unknown): void {
    this.facts.push({
      key,
      rawKey: e.path,
      value,
      rawValue: e.rawValue,
      keySpan: e.keySpan,
      valueSpan: e.valueSpan,
      tool: this.tool,
    });
  }

  /** A behaviour of the tool the file does not write, at the key it follows from: an assumption with its source. */
  assume(key: CanonicalKey, e: TomlEntry, value: FactValue, note: string): void {
    this.add(key, e, value);
    this.facts[this.facts.length - 1] = {
      ...this.facts[this.facts.length - 1],
      origin: 'call-default',
      defaultNote: note,
    };
  }

  warn(e: TomlEntry, message: ReturnType<typeof msg>): void {
    this.problems.push({ code: 'not-modeled', severity: 'warning', ...message, span: e.valueSpan, rawKey: e.path });
  }

  invalid(e: TomlEntry, expected: string): void {
    this.problems.push({
      code: 'invalid-value',
      severity: 'error',
      ...msg('{0}: expected {1}, found {2}', e.path, expected, e.rawValue),
      span: e.valueSpan,
      rawKey: e.path,
    });
  }

  /** A positive whole number at the first of `paths` the file writes; an error at a value that is not one. */
  count(key: CanonicalKey, ...paths: string[]): number | undefined {
    const e = this.get(...paths);
    if (!e) return undefined;
    if (typeof e.value !== 'number' || !Number.isInteger(e.value) || e.value < 1) {
      this.invalid(e, 'a positive whole number');
      return undefined;
    }
    this.add(key, e, e.value);
    return e.value;
  }
}
