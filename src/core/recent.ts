/**
 * The last few keys and their values, newest first, searched with an equality test before a slower memo: the advice
 * search asks for the same few plans again and again, and comparing fields costs less than building and hashing a key
 * string. Pure; a fixed-size list.
 */
export class Recent<K, V> {
  private readonly items: Array<{ key: K; value: V }> = [];

  constructor(
    private readonly size: number,
    private readonly same: (a: K, b: K) => boolean,
  ) {}

  get(key: K, compute: (key: K) => V): V {
    for (const r of this.items) if (this.same(r.key, key)) return r.value;
    const value = compute(key);
    if (this.items.length >= this.size) this.items.pop();
    this.items.unshift({ key, value });
    return value;
  }
}
