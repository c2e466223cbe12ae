// The names of a file's calls, each worked out once per reading, and the calls of a name. A parameter's value is looked
// for among the calls of its function again and again (script-defaults.ts singleCallArgument, for every `self.x` and
// `args.x` read), so each call's dotted name is kept by its span and the calls are indexed by name once. Pure.
import type { SyntaxNode } from '@lezer/common';

/**
 * A call is kept by its span as one number, from · SPAN + to: exact and one per span for texts under 64 Mi characters
 * (the readers stop at 4 MiB, the editor at 1 MiB).
 */
const SPAN = 2 ** 26;

export class CallNames {
  private readonly names = new Map<number, string | undefined>();
  private index?: { readonly of: readonly SyntaxNode[]; readonly byName: Map<string | undefined, SyntaxNode[]> };

  constructor(private readonly nameOf: (call: SyntaxNode) => string | undefined) {}

  /** The call's name as nameOf gives it, worked out once. */
  name(call: SyntaxNode): string | undefined {
    const key = call.from * SPAN + call.to;
    if (this.names.has(key)) return this.names.get(key);
    const name = this.nameOf(call);
    this.names.set(key, name);
    return name;
  }

  /** The calls of `calls` whose name is `name`, in their order; the index is made again when `calls` is another list. */
  named(calls: readonly SyntaxNode[], name: string | undefined): readonly SyntaxNode[] {
    if (name === undefined) return [];
    if (this.index?.of !== calls) {
      const byName = new Map<string | undefined, SyntaxNode[]>();
      for (const c of calls) {
        const n = this.name(c);
        const list = byName.get(n);
        if (list) list.push(c);
        else byName.set(n, [c]);
      }
      this.index = { of: calls, byName };
    }
    return this.index.byName.get(name) ?? [];
  }
}
