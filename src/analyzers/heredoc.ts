// Heredocs (`cmd <<EOF ... EOF`, `read -r -d '' cmds <<EOF`): their bodies are not read as commands (OpenRLHF's
// examples keep the whole training command in one and run it later as `$training_commands`). This finds the first one
// so that a refusal can point at it. Pure.

/** Line and column (1-based) of the first heredoc operator of a shell text, with its delimiter; undefined when none. */
export function firstHeredoc(text: string): { line: number; column: number; offset: number; delimiter: string } | undefined {
  const re = /<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // `<<<` is a here-string, not a heredoc.
    if (text[m.index + 2] === '<' || (m.index > 0 && text[m.index - 1] === '<')) continue;
    const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
    const before = text.slice(lineStart, m.index);
    if (/^\s*#/.test(before)) continue;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (text.charCodeAt(i) === 10) line++;
    return { line, column: m.index - lineStart + 1, offset: m.index, delimiter: m[2] };
  }
  return undefined;
}
