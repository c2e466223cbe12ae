// Shell writer: flags are found through the analyzer's facts (spans of `--k v` and `--k=v`); new flags join the
// training command's continuation block. Pure: no I/O.
import { analyzeAs } from '../../../analyzers/detect';
import type { Span, Tool } from '../../../analyzers/facts';
import { type FixFile, type Val, type Op, type Written, isRaw, eolOf, lineStartOf, splice } from '../ops';

const LAUNCHER_TOOLS = new Set<Tool>(['torchrun', 'accelerate', 'deepspeed']);
const SCRIPT_TOOLS = new Set<Tool>([
  'hf-trainer',
  'trl',
  'llamafactory',
  'axolotl',
  'torchtune',
  'peft',
  'vram-lens',
  'ms-swift',
  'litgpt',
  'openrlhf',
  'verl',
]);

/** Where a flag or override is written: its key and its value. */
interface Site {
  readonly rawKey: string;
  readonly keySpan: Span;
  readonly valueSpan: Span;
}

function shellWord(v: Val, existing?: string): string {
  if (isRaw(v)) return v.raw;
  if (typeof v === 'boolean') {
    const cased = existing && /^[a-z]/.test(existing) ? (v ? 'true' : 'false') : v ? 'True' : 'False';
    return cased;
  }
  if (Array.isArray(v)) return v.map((x) => shellWord(x)).join(' ');
  const s = v === null ? '' : String(v);
  if (existing && /^".*"$/.test(existing)) return JSON.stringify(s);
  if (existing && /^'.*'$/.test(existing)) return `'${s}'`;
  return /^[\w./:,=+-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}

export function shellSet(file: FixFile, text: string, o: Op): Written {
  const facts = analyzeAs('shell', text).facts;
  const name = o.path.join('.');
  const flagRe = o.hydra
    ? new RegExp(`^\\+{0,2}${name.replace(/\./g, '\\.')}$`)
    : new RegExp(`^--?${name.replace(/[._-]/g, '[._-]')}$`, 'i');
  // A default made explicit at the command (OpenRLHF's, with its source) is not written in the file.
  const hits = facts.filter(
    (f) =>
      flagRe.test(f.rawKey) &&
      f.defaultNote === undefined &&
      (o.launcher ? LAUNCHER_TOOLS.has(f.tool) || f.tool === 'torchtune' : true),
  );
  const seen = new Set<number>();
  const sites: Site[] = hits.filter((f) => !seen.has(f.keySpan.start) && seen.add(f.keySpan.start));
  // A Hydra override the analyzer reads through the config it composes (RL2's line): found as the word it is.
  if (sites.length === 0 && o.hydra) sites.push(...overrideWords(text, name));
  if (sites.length > 0) {
    if (o.when === 'absent') return { text };
    let t = text;
    for (const f of [...sites].sort((a, b) => b.keySpan.start - a.keySpan.start)) {
      const bare = f.valueSpan.start === f.keySpan.start && f.valueSpan.end === f.keySpan.end;
      if (bare) {
        if (o.value === true) continue;
        if (o.value === false) {
          t = removeShellWord(t, f.keySpan.start, f.keySpan.end);
          continue;
        }
        return { reason: `\`${f.rawKey}\` is written without a value; edit it by hand` };
      }
      const existing = t.slice(f.valueSpan.start, f.valueSpan.end);
      if (
        /\$/.test(existing) &&
        !/^[\w.]+$/.test(existing) &&
        o.value !== null &&
        typeof o.value === 'object' &&
        !Array.isArray(o.value)
      ) {
        return { reason: `\`${f.rawKey}\` takes its value from a shell expression` };
      }
      t = splice(t, f.valueSpan.start, f.valueSpan.end, shellWord(o.value, existing));
    }
    return { text: t };
  }
  if (o.when === 'present') return { text };
  const word = o.hydra ? `${name}=${shellWord(o.value)}` : `--${name} ${shellWord(o.value)}`;
  if (o.launcher) return shellInsertLauncher(text, o.launcher, word);
  const script = facts.filter((f) =>
    o.hydra
      ? f.tool === 'verl' && f.defaultNote === undefined && f.rawKey.includes('.')
      : /^--?\w/.test(f.rawKey) && SCRIPT_TOOLS.has(f.tool),
  );
  const last = script.sort((a, b) => a.keySpan.start - b.keySpan.start)[script.length - 1];
  if (!last) return { reason: `no training command with flags in ${file.file} to add \`--${name}\` to` };
  const end = Math.max(last.keySpan.end, last.valueSpan.end);
  const ls = lineStartOf(text, end);
  const nl = text.indexOf('\n', end);
  const lineEnd = nl < 0 ? text.length : nl > 0 && text[nl - 1] === '\r' ? nl - 1 : nl;
  const rest = text.slice(end, lineEnd);
  const line = text.slice(ls, lineEnd);
  const flagFirst = o.hydra ? /^\s*\+{0,2}[A-Za-z_][\w.]*=/.test(line) : /^\s*-/.test(line);
  const indent = line.match(/^[ \t]*/)?.[0] ?? '';
  const eol = eolOf(text);
  if (/^\s*\\\s*$/.test(rest) && flagFirst) {
    const at = nl < 0 ? text.length : nl + 1;
    return { text: splice(text, at, at, `${indent}${word} \\${eol}`) };
  }
  const prevLine = text.slice(lineStartOf(text, Math.max(0, ls - 1)), Math.max(0, ls - 1)).replace(/\r$/, '');
  if (/^\s*$/.test(rest) && flagFirst && /\\$/.test(prevLine)) {
    return { text: splice(text, end, lineEnd, ` \\${eol}${indent}${word}`) };
  }
  return { text: splice(text, end, end, ` ${word}`) };
}

/**
 * The `key=value` words of a Hydra override outside comments (`+key=` and `++key=` too), as spans of key and value:
 * where a launch line writes an override whose fact is said through the config it composes.
 */
function overrideWords(text: string, name: string): Site[] {
  const out: Site[] = [];
  const re = new RegExp(`(^|[ \\t])(\\+{0,2}${name.replace(/\./g, '\\.')})=([^\\s\\\\]*)`, 'gm');
  for (const m of text.matchAll(re)) {
    const start = (m.index ?? 0) + m[1].length;
    const line = text.slice(lineStartOf(text, start), start);
    if (line.includes('#')) continue;
    const keyEnd = start + m[2].length;
    out.push({
      rawKey: m[2],
      keySpan: { start, end: keyEnd },
      valueSpan: { start: keyEnd + 1, end: keyEnd + 1 + m[3].length },
    });
  }
  return out;
}

/** Removes one word (a bare flag) and the blank it leaves; a line left with only `\` goes too. */
function removeShellWord(text: string, start: number, end: number): string {
  const ls = lineStartOf(text, start);
  const nl = text.indexOf('\n', end);
  const le = nl < 0 ? text.length : nl + 1;
  const line = text.slice(ls, le);
  const without = text.slice(ls, start) + text.slice(end, le);
  if (/^\s*\\?\s*$/.test(without)) {
    // The line held only this flag. If it ended the command, the previous line's `\` must go as well.
    if (!/\\\s*$/.test(line.replace(/\r?\n$/, '')) && ls > 0) {
      const prevEnd = ls - 1;
      const prevStart = lineStartOf(text, prevEnd);
      const prev = text.slice(prevStart, prevEnd).replace(/\r$/, '');
      const cut = prev.replace(/\s*\\$/, '');
      const cr = text[prevEnd - 1] === '\r' ? '\r' : '';
      return text.slice(0, prevStart) + cut + cr + '\n' + text.slice(le);
    }
    return text.slice(0, ls) + text.slice(le);
  }
  let e = end;
  while (text[e] === ' ' || text[e] === '\t') e++;
  return splice(text, start, e, '');
}

function shellInsertLauncher(text: string, launcher: NonNullable<Op['launcher']>, word: string): Written {
  const re = {
    torchrun: /(^|[\s;&|(])(torchrun|python3? -m torch\.distributed\.(?:run|launch))(?=[ \t])/m,
    deepspeed: /(^|[\s;&|(])(deepspeed)(?=[ \t]+(?!-)\S)/m,
    accelerate: /(^|[\s;&|(])(accelerate[ \t]+launch)(?=[ \t])/m,
    tune: /(^|[\s;&|(])(tune[ \t]+run)(?=[ \t])/m,
  }[launcher];
  const m = re.exec(text);
  if (!m) return { reason: `no ${launcher} launcher command to add \`${word.split(' ')[0]}\` to` };
  const at = m.index + (m[1] ?? '').length + (m[2] ?? '').length;
  return { text: splice(text, at, at, ` ${word}`) };
}
