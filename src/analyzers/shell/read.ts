// `read [-r] [-d ''] VAR <<EOF ... EOF`: the builtin reading a heredoc into a variable (OpenRLHF's examples keep their
// whole training command in one and run it later as `deepspeed --module $training_commands`). The variable gets the
// heredoc's text with the spans of its body, so a later `$VAR` splits into words that point into the heredoc. Pure:
// no I/O, no node:* and no 'vscode'.
import type { Heredoc } from './lexer';
import { type Env, type Field, type Piece, pieceSlice, trimPieces } from './fields';
import { heredocText } from './expand';

/** Options of `read` that take an argument (bash's read builtin: -a -d -i -n -N -p -t -u). */
const WITH_ARG = 'adinNptu';

/**
 * Sets the variable of `read ... VAR` from heredoc `h` (its standard input): the text up to the first delimiter
 * (a newline, or `-d X`; `-d ''` reads it all), less the blanks and newlines at both ends. With several names, an
 * array (-a), a count (-n, -N) or another descriptor (-u), the names are set to unknown values with the reason.
 */
export function readHeredoc(script: string, fields: readonly Field[], h: Heredoc, env: Env, line: number): void {
  let delim = '\n';
  let followed = true;
  let k = 1;
  for (; k < fields.length; k++) {
    const f = fields[k];
    if (f.unknown !== undefined || !/^-[A-Za-z]+$/.test(f.text)) {
      if (f.text === '--') k++;
      break;
    }
    for (let c = 1; c < f.text.length; c++) {
      const ch = f.text[c];
      if (!WITH_ARG.includes(ch)) continue;
      // The argument is the rest of the cluster (`-d:`) or the next word (`-d ''`).
      const rest = f.text.slice(c + 1);
      const arg = rest || fields[++k]?.text;
      if (ch === 'd') delim = arg === undefined ? '\n' : arg.slice(0, 1);
      else if (ch === 'a' || ch === 'n' || ch === 'N' || (ch === 'u' && arg !== '0')) followed = false;
      break;
    }
  }
  const names = fields.slice(k).filter((f) => f.unknown === undefined && /^[A-Za-z_]\w*$/.test(f.text));
  if (!names.length) return;
  if (!followed || names.length > 1) {
    for (const n of names) {
      const reason = `\`${n.text}\` is read by \`read\` from the heredoc at line ${line}, split over several names or options that are not followed`;
      env.set(n.text, {
        pieces: [{ text: '', start: n.span.start, end: n.span.end, exact: false, unknown: reason }],
        exported: env.get(n.text)?.exported ?? false,
        nameSpan: n.span,
        valueSpan: n.span,
      });
    }
    return;
  }
  let pieces = heredocText(script, h, env);
  if (delim !== '') pieces = upTo(pieces, delim);
  pieces = trimPieces(pieces, ' \t\n', ' \t\n');
  const name = names[0];
  env.set(name.text, {
    pieces,
    exported: env.get(name.text)?.exported ?? false,
    nameSpan: name.span,
    valueSpan: { start: h.bodyStart, end: h.bodyEnd },
  });
}

/** The pieces before the first `ch` (read stops at its delimiter). */
function upTo(pieces: readonly Piece[], ch: string): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const at = p.unknown === undefined ? p.text.indexOf(ch) : -1;
    if (at < 0) {
      out.push(p);
      continue;
    }
    if (at > 0) out.push(pieceSlice(p, 0, at));
    break;
  }
  return out;
}
