// Line hunks between the original and the edited text, trimmed to characters, as EditData; and applying them. Pure: no I/O.
import type { EditData } from './ops';

/** Line hunks between two texts (common prefix/suffix, then an LCS over the middle lines), trimmed to characters. */
export function diffEdits(file: string, a: string, b: string): EditData[] {
  if (a === b) return [];
  const split = (s: string): string[] => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const la = split(a);
  const lb = split(b);
  let p = 0;
  while (p < la.length && p < lb.length && la[p] === lb[p]) p++;
  let s = 0;
  while (s < la.length - p && s < lb.length - p && la[la.length - 1 - s] === lb[lb.length - 1 - s]) s++;
  const ma = la.slice(p, la.length - s);
  const mb = lb.slice(p, lb.length - s);
  const offA: number[] = [0];
  for (const l of la) offA.push(offA[offA.length - 1]! + l.length);
  const hunks: { a0: number; a1: number; b0: number; b1: number }[] = [];
  if (ma.length * mb.length > 4_000_000) {
    hunks.push({ a0: p, a1: la.length - s, b0: p, b1: lb.length - s });
  } else {
    const n = ma.length;
    const m = mb.length;
    const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        dp[i]![j] = ma[i] === mb[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
    let i = 0;
    let j = 0;
    let open: { a0: number; b0: number } | undefined;
    const close = (): void => {
      if (open) hunks.push({ a0: p + open.a0, a1: p + i, b0: p + open.b0, b1: p + j });
      open = undefined;
    };
    while (i < n || j < m) {
      if (i < n && j < m && ma[i] === mb[j]) {
        close();
        i++;
        j++;
      } else {
        open ??= { a0: i, b0: j };
        if (j < m && (i >= n || dp[i]![j + 1]! >= dp[i + 1]![j]!)) j++;
        else i++;
      }
    }
    close();
  }
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

/** Applies edits (offsets into the original text) to a text; used by callers and tests. */
export function applyEditData(text: string, edits: readonly EditData[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end))
    out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}
