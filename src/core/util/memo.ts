// Memoization for the estimator's pure, repeated computations (the advice search estimates thousands of candidates
// that share most of their inputs). One keyed, bounded memo; and a per-object one for derived keys. Pure: no clock,
// no I/O; results depend only on the arguments.

/** How a memo finds a result. */
export interface MemoOptions<K> {
  /** The result's identity as a string: every input the computation reads must be in it (or in `scope`). */
  readonly key: (k: K) => string;
  /** Entries per map (per scope): a map holding more is emptied before the next entry goes in. */
  readonly limit: number;
  /** An object the entries belong to (an Architecture): kept in a WeakMap, so its entries go with it. */
  readonly scope?: (k: K) => object;
  /**
   * The last `size` arguments and their results, compared with `same` before any key string is built (cheaper than
   * building and hashing a key when the same few arguments come again and again). Newest first.
   */
  readonly recent?: { readonly size: number; readonly same: (a: K, b: K) => boolean };
}

/** The map an argument's entries go in: its scope's (kept in a WeakMap), or the one map when there is no scope. */
function scopedMaps<K, I, V>(scope: ((k: K) => object) | undefined): (k: K) => Map<I, V> {
  const unscoped = new Map<I, V>();
  if (!scope) return () => unscoped;
  const scoped = new WeakMap<object, Map<I, V>>();
  return (k: K): Map<I, V> => {
    const s = scope(k);
    let m = scoped.get(s);
    if (!m) {
      m = new Map();
      scoped.set(s, m);
    }
    return m;
  };
}

/** `compute`, remembered by `options.key` (and scope), bounded by `options.limit`, with an optional front list of recent arguments. */
export function memo<K, V>(compute: (k: K) => V, options: MemoOptions<K>): (k: K) => V {
  const { key, limit, scope, recent } = options;
  const mapOf = scopedMaps<K, string, V>(scope);
  const byKey = (k: K): V => {
    const map = mapOf(k);
    const id = key(k);
    let hit = map.get(id);
    if (hit === undefined) {
      if (map.size > limit) map.clear();
      hit = compute(k);
      map.set(id, hit);
    }
    return hit;
  };
  if (!recent) return byKey;
  const items: Array<{ key: K; value: V }> = [];
  const { size, same } = recent;
  return (k: K): V => {
    for (const r of items) if (same(r.key, k)) return r.value;
    const value = byKey(k);
    if (items.length >= size) items.pop();
    items.unshift({ key: k, value });
    return value;
  };
}

/** What memoByObject keeps for a result that is undefined (a WeakMap's get cannot tell it from a miss). */
const NO_RESULT: object = Object.freeze({});

/** `make`, remembered per object (a WeakMap): keys derived from a block of a setup, shared by the candidates that share it. */
export function memoByObject<T extends object, V>(make: (o: T) => V): (o: T) => V {
  const cache = new WeakMap<T, V | typeof NO_RESULT>();
  return (o: T): V => {
    const hit = cache.get(o);
    if (hit !== undefined) return (hit === NO_RESULT ? undefined : hit) as V;
    const v = make(o);
    cache.set(o, v === undefined ? NO_RESULT : v);
    return v;
  };
}

/** How a hash memo finds a result: a number that equal arguments share, and the equality that decides. */
export interface HashMemoOptions<K> {
  /** Equal arguments (by `same`) must get equal numbers; unequal ones may share one (`same` tells them apart). */
  readonly hash: (k: K) => number;
  /** Whether two arguments give the same result: every input the computation reads must be compared (or in `scope`). */
  readonly same: (a: K, b: K) => boolean;
  /** Hash values per map (per scope): a map holding more is emptied before the next one goes in. */
  readonly limit: number;
  /** An object the entries belong to (an Architecture): kept in a WeakMap, so its entries go with it. */
  readonly scope?: (k: K) => object;
}

/**
 * `compute`, remembered by a numeric hash of its argument, then `same` within the hash's entries: no key string to
 * build and hash, which for an argument of forty fields costs more than the comparison it saves.
 */
export function memoByHash<K, V>(compute: (k: K) => V, options: HashMemoOptions<K>): (k: K) => V {
  const { hash, same, limit, scope } = options;
  const mapOf = scopedMaps<K, number, Array<{ key: K; value: V }>>(scope);
  return (k: K): V => {
    const map = mapOf(k);
    const h = hash(k);
    let entries = map.get(h);
    if (entries) {
      for (const e of entries) if (same(e.key, k)) return e.value;
    } else {
      if (map.size > limit) map.clear();
      entries = [];
      map.set(h, entries);
    }
    const value = compute(k);
    entries.push({ key: k, value });
    return value;
  };
}

/**
 * A block derived from another with one change (`change` names it), made once per source object and change and then
 * shared: the estimator's memos compare blocks by identity, so every caller that derives the same change from the same
 * block gets the same object.
 */
export function memoDerived<T extends object, I, V>(): (source: T, change: I, make: () => V) => V {
  const bySource = memoByObject((_: T) => new Map<I, V>());
  return (source: T, change: I, make: () => V): V => {
    const made = bySource(source);
    let v = made.get(change);
    if (v === undefined) {
      v = make();
      made.set(change, v);
    }
    return v;
  };
}
