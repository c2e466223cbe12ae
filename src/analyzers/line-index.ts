// Lines of a text: the offset where each starts, and the line an offset falls on (a binary search over those starts).
// Shared by the analyzers and resolve, which locate their facts and problems by line. Pure.

/** The offset where each line of `text` starts (the first is 0). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Whether one of the sorted offsets `at` is within [from, to) (a binary search). */
export function offsetWithin(at: readonly number[], from: number, to: number): boolean {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < at.length && at[lo] < to;
}

/** The 0-based line of `offset`: the last line that starts at or before it. */
export function lineIndex(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
