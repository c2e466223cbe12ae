// The variables of a block as a layer over the variables where the block starts. Pure: no I/O.
import type { VarVal, Env } from './fields';

/**
 * The variables inside a block: a layer over the variables where the block starts. Writes stay in the layer (a
 * deleted name is kept as undefined), reads fall through to the parent, so starting a block costs nothing and the
 * names a block changed are the layers' own keys. Chains are flattened past MAX_LAYERS so a read stays short.
 */
export class LayeredEnv extends Map<string, VarVal> {
  readonly depth: number;

  constructor(readonly parent: Env) {
    super();
    this.depth = parent instanceof LayeredEnv ? parent.depth + 1 : 1;
  }

  override get(name: string): VarVal | undefined {
    return super.has(name) ? super.get(name) : this.parent.get(name);
  }

  override has(name: string): boolean {
    return super.has(name) ? super.get(name) !== undefined : this.parent.has(name);
  }

  override set(name: string, v: VarVal): this {
    super.set(name, v);
    return this;
  }

  override delete(name: string): boolean {
    const had = this.has(name);
    super.set(name, undefined as unknown as VarVal);
    return had;
  }

  override get size(): number {
    let n = 0;
    for (const _ of this.entries()) n++;
    return n;
  }

  ownKeys(): IterableIterator<string> {
    return super.keys();
  }

  override entries(): MapIterator<[string, VarVal]> {
    return flatten(this).entries();
  }

  /** The layer's own writes, oldest first; undefined values are deletions. */
  ownEntries(): IterableIterator<[string, VarVal | undefined]> {
    return super.entries();
  }

  override *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  override *values(): MapIterator<VarVal> {
    for (const [, v] of this.entries()) yield v;
  }

  override [Symbol.iterator](): MapIterator<[string, VarVal]> {
    return this.entries();
  }

  override forEach(f: (v: VarVal, k: string, m: Map<string, VarVal>) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this);
  }
}

export const MAX_LAYERS = 24;

/** A fresh layer over env. */
export function layer(env: Env): Env {
  return new LayeredEnv(env);
}

/** The variables of a chain of layers as one plain map: the root's, then each layer's writes from the oldest. */
export function flatten(env: Env): Map<string, VarVal> {
  const chain: LayeredEnv[] = [];
  let e: Env = env;
  while (e instanceof LayeredEnv) {
    chain.push(e);
    e = e.parent;
  }
  const out = new Map(e);
  for (let k = chain.length - 1; k >= 0; k--) {
    for (const [name, v] of chain[k].ownEntries()) {
      if (v === undefined) out.delete(name);
      else out.set(name, v);
    }
  }
  return out;
}

/** env, flattened when its chain of layers is long (a block's snapshot: the layers of the block are read through it). */
export function shallow(env: Env): Env {
  return env instanceof LayeredEnv && env.depth >= MAX_LAYERS ? flatten(env) : env;
}

/** The names env set or deleted since base, when env is a chain of layers over base; undefined otherwise. */
export function changedSince(env: Env, base: Env): string[] | undefined {
  const out: string[] = [];
  let e: Env = env;
  for (let guard = 0; e !== base; guard++) {
    if (!(e instanceof LayeredEnv) || guard > MAX_LAYERS + 1) return undefined;
    for (const k of e.ownKeys()) out.push(k);
    e = e.parent;
  }
  return out;
}
