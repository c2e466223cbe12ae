// The last results of a function of a text and a few small inputs, kept most recently used first, for the readings a
// keystroke would otherwise make again of files that did not change (a helper module, the script a launcher runs).
// The function reads nothing else, or its result is checked against what it read before it is given again: its result
// is the same for the same text, key and reads. Results are shared, never changed once made. Pure but for the list.

/** A bounded list of results by text and key (the key holds the other inputs, the text is compared whole). */
export class RecentResults<T> {
  private readonly entries: Array<{ readonly text: string; readonly key: string; readonly value: T }> = [];

  constructor(private readonly size: number) {}

  /**
   * The result kept for this text and key, else the one `make` gives, kept in front of the others. `valid` says
   * whether a kept result still stands (what it read elsewhere unchanged); one that does not is made again.
   */
  get(text: string, key: string, make: () => T, valid?: (value: T) => boolean): T {
    const at = this.entries.findIndex((e) => e.key === key && e.text === text);
    if (at >= 0) {
      const [hit] = this.entries.splice(at, 1);
      if (!valid || valid(hit.value)) {
        this.entries.unshift(hit);
        return hit.value;
      }
    }
    const value = make();
    this.entries.unshift({ text, key, value });
    if (this.entries.length > this.size) this.entries.pop();
    return value;
  }
}
