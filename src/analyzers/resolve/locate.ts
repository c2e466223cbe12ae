// Offsets to 1-based lines and columns, for the problems and provenance resolve reports. Pure; the last text's line
// starts are kept, since a file's facts are located one after another.
import type { Location } from '../scenario';

let lastLineStarts: { text: string; starts: number[] } | undefined;

function lineStarts(text: string): number[] {
  if (lastLineStarts && lastLineStarts.text === text) return lastLineStarts.starts;
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  lastLineStarts = { text, starts };
  return starts;
}

/** 1-based line and column of a UTF-16 offset (binary search over the line starts). */
export function locateOffset(file: string, text: string, start: number, end = start): Location {
  const stop = Math.min(Math.max(0, start), text.length);
  const starts = lineStarts(text);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= stop) lo = mid;
    else hi = mid - 1;
  }
  return { file, start, end, line: lo + 1, column: stop - starts[lo] + 1 };
}
