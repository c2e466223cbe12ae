// Offsets to 1-based lines and columns, for the problems and provenance resolve reports. Pure; the last text's line
// starts are kept, since a file's facts are located one after another.
import type { Location } from '../scenario';
import { lineIndex, lineStarts } from '../line-index';

let lastLineStarts: { text: string; starts: number[] } | undefined;

function startsOf(text: string): number[] {
  if (lastLineStarts && lastLineStarts.text === text) return lastLineStarts.starts;
  const starts = lineStarts(text);
  lastLineStarts = { text, starts };
  return starts;
}

/** 1-based line and column of a UTF-16 offset (binary search over the line starts). */
export function locateOffset(file: string, text: string, start: number, end = start): Location {
  const stop = Math.min(Math.max(0, start), text.length);
  const starts = startsOf(text);
  const line = lineIndex(starts, stop);
  return { file, start, end, line: line + 1, column: stop - starts[line] + 1 };
}
