// The values and bindings of the static evaluation (file.ts PythonFile.evalNode): what an expression of a script is
// known to be, the key/value pairs calls and dicts write, and the scopes and bindings names resolve through. Types only.
import type { SyntaxNode } from '@lezer/common';
import type { FactValue, Span } from '../facts';
import type { ScriptDefault } from './script-defaults';

export type Val =
  | {
      readonly k: 'lit';
      readonly v: FactValue;
      readonly via?: Via;
      readonly dflt?: ScriptDefault;
      /** One of the values the script can give, the worst for memory (branches.ts largestOverBranches): Fact.assumed. */
      readonly assumed?: string;
    }
  | { readonly k: 'dotted'; readonly text: string; readonly via?: Via }
  | { readonly k: 'call'; readonly callee: string; readonly node: SyntaxNode; readonly via?: Via }
  | { readonly k: 'dict'; readonly entries: readonly Entry[]; readonly opaque: string[]; readonly via?: Via }
  /** The parsed contents of a JSON / YAML file the script loads (data-files.ts), at `keys` within it. */
  | {
      readonly k: 'data';
      readonly value: unknown;
      readonly source: string;
      /** The file's path as the script writes it. */
      readonly path: string;
      readonly keys: readonly string[];
      /** Composed from several files (a Hydra application's config): where each value is written, by its dotted key. */
      readonly origins?: ReadonlyMap<string, DataOrigin>;
      readonly via?: Via;
    }
  | {
      readonly k: 'unknown';
      readonly reason: string;
      readonly via?: Via;
      readonly option?: string;
      readonly argv?: true;
    };

/** The file a composed value is written in, as the script finds it, and its keys there. */
export interface DataOrigin {
  readonly path: string;
  readonly keys: readonly string[];
}

/** The name binding a value came through, for rawValue and originSpan. */
export interface Via {
  readonly text: string;
  readonly span: Span;
}

/** One key/value pair as written: a keyword argument, a dict entry, a dataclass field or an item assignment. */
export interface Entry {
  readonly rawKey: string;
  readonly keySpan: Span;
  readonly valueNode: SyntaxNode | null;
  readonly valueSpan: Span;
  /** Set when the value is known not to be static whatever it says (an assignment under `if`). */
  readonly forced?: string;
  /** The value itself where no node of the file writes it: an item of a loaded JSON / YAML file (data-files.ts). */
  readonly value?: Val;
}

export interface Binding {
  readonly kind: 'assign' | 'unpack' | 'aug' | 'loop' | 'def';
  readonly valueNode: SyntaxNode | null;
  /** The right-hand side an unpacked name comes from (`a, b = parser.parse_args_into_dataclasses()`). */
  readonly rhs?: SyntaxNode;
  /** An unpacked name's place among the names of a flat target list (`a, b = ...`: b is 1). */
  readonly index?: number;
  readonly pos: number;
  /** End of the binding statement: a use inside it (`x = x + 1`) sees the earlier binding. */
  readonly end: number;
  readonly condLine?: number;
}

export interface ItemAssign {
  readonly keyNode: SyntaxNode;
  readonly key: string;
  readonly valueNode: SyntaxNode;
  readonly pos: number;
  readonly condLine?: number;
}

export interface Scope {
  readonly node: SyntaxNode;
  readonly fn?: string;
  readonly params: Map<string, SyntaxNode | null>;
  readonly bindings: Map<string, Binding[]>;
  readonly items: Map<string, ItemAssign[]>;
}
