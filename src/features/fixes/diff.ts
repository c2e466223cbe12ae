// Line hunks between the original and the edited text, trimmed to characters, as EditData; and applying them. Pure: no I/O.
import type { EditData } from './ops';

/** A run of lines replaced: a[a0..a1) by b[b0..b1), in line indices. */
interface Hunk {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
}

/** Most edits the line diff looks for before it gives the whole middle as one hunk. */
const MAX_EDITS = 4000;

/**
 * Line hunks between two texts (common prefix/suffix, then Myers' shortest edit script over the middle lines), trimmed
 * to characters. The edits are checked to give `b` from `a`; where they would not, or the texts differ in more than
 * MAX_EDITS lines, the middle is one hunk.
 */
export function diffEdits(file: string, a: string, b: string): EditData[] {
  if (a === b) return [];
  const split = (s: string): string[] => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const la = split(a);
  const lb = split(b);
  let p = 0;
  while (p < la.length && p < lb.length && la[p] === lb[p]) p++;
  let s = 0;
  while (s < la.length - p && s < lb.length - p && la[la.length - 1 - s] === lb[lb.length - 1 - s]) s++;
  const whole: Hunk[] = [{ a0: p, a1: la.length - s, b0: p, b1: lb.length - s }];
  const matches = myersMatches(la.slice(p, la.length - s), lb.slice(p, lb.length - s), MAX_EDITS);
  const fine = matches ? hunksBetween(matches, p, la.length - s - p, lb.length - s - p) : whole;
  const edits = editsOf(file, la, lb, fine);
  if (fine === whole || applyEditData(a, edits) === b) return edits;
  return editsOf(file, la, lb, whole);
}

/** The hunks as character edits of the original text, each trimmed to what differs. */
function editsOf(file: string, la: readonly string[], lb: readonly string[], hunks: readonly Hunk[]): EditData[] {
  const offA: number[] = [0];
  for (const l of la) offA.push(offA[offA.length - 1]! + l.length);
  return hunks.map((h) => {
    const start = offA[h.a0]!;
    const end = offA[h.a1]!;
    const oldText = la.slice(h.a0, h.a1).join('');
    const newText = lb.slice(h.b0, h.b1).join('');
    let x = 0;
    while (x < oldText.length && x < newText.length && oldText[x] === newText[x]) x++;
    let y = 0;
    while (
      y < oldText.length - x &&
      y < newText.length - x &&
      oldText[oldText.length - 1 - y] === newText[newText.length - 1 - y]
    )
      y++;
    return { file, start: start + x, end: end - y, newText: newText.slice(x, newText.length - y) };
  });
}

/** The runs between matched line pairs (offset by `p`, the common prefix), over n lines of a and m of b. */
function hunksBetween(matches: readonly (readonly [number, number])[], p: number, n: number, m: number): Hunk[] {
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  for (const [mi, mj] of [...matches, [n, m] as const]) {
    if (mi > i || mj > j) hunks.push({ a0: p + i, a1: p + mi, b0: p + j, b1: p + mj });
    i = mi + 1;
    j = mj + 1;
  }
  return hunks;
}

/**
 * The line pairs a shortest edit script keeps (E. Myers, "An O(ND) difference algorithm and its variations", 1986:
 * the furthest reaching paths per diagonal, then back from the end), in order; undefined past `maxEdits` edits.
 */
function myersMatches(a: readonly string[], b: readonly string[], maxEdits: number): [number, number][] | undefined {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(n + m, maxEdits); d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, offset, n, m);
    }
  }
  return undefined;
}

/** The matched pairs of the path that myersMatches found, from the saved rounds. */
function backtrack(trace: readonly Int32Array[], offset: number, n: number, m: number): [number, number][] {
  const matches: [number, number][] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : v[offset + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      matches.push([x, y]);
    }
    x = prevX;
    y = prevY;
  }
  return matches.reverse();
}

/** Applies edits (offsets into the original text) to a text; used by callers and tests. */
export function applyEditData(text: string, edits: readonly EditData[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end))
    out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}
