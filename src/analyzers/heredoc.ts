// Heredocs (`cmd <<EOF ... EOF`): their bodies are not read as commands. Two are read as the value of a variable
// by the shell analyzer (OpenRLHF's examples keep the whole training command in one and run it later as
// `$training_commands`): `read [-r] [-d ''] VAR <<EOF` and `VAR=$(cat <<EOF ... EOF)`. This finds the others so that
// a refusal can point at one. Pure.

export interface Heredoc {
  readonly line: number;
  readonly column: number;
  /** Offset of the `<<` operator. */
  readonly offset: number;
  readonly delimiter: string;
  /** The lines between the operator's line and the closing delimiter (to the end of the text when it is missing). */
  readonly body: string;
  /** Fed to `read VAR` or `$(cat`: the shell analyzer reads its text as the value of a variable. */
  readonly assigned: boolean;
  /** The delimiter is quoted (`<<'EOF'`): the body is written as it stands, no `$` expanded. */
  readonly quoted: boolean;
  /** The rest of the operator's line after the delimiter (`> ds.json` in `cat <<EOF > ds.json`). */
  readonly after: string;
  /** The text before the operator on its line (`cat > ds.json` in `cat > ds.json <<EOF`). */
  readonly before: string;
}

/** The text before `<<` on its line feeds the heredoc to `read ... VAR` or to `$(cat`. */
const ASSIGNED = /(?:(?:^|[\s;&|({])read(?:[ \t]+[^\s;&|<>()]+)*[ \t]+[A-Za-z_]\w*|\$\([ \t]*cat)[ \t]*$/;

/** The heredocs of a shell text, in order (at most 50). */
export function heredocs(text: string): Heredoc[] {
  const out: Heredoc[] = [];
  const re = /<<(-?)[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2/g;
  for (let m = re.exec(text); m && out.length < 50; m = re.exec(text)) {
    // `<<<` is a here-string, not a heredoc; `#` starts a comment.
    if (text[m.index + 2] === '<' || (m.index > 0 && text[m.index - 1] === '<')) continue;
    const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
    const before = text.slice(lineStart, m.index);
    if (before.includes('#')) continue;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (text.charCodeAt(i) === 10) line++;
    const nl = text.indexOf('\n', m.index);
    const bodyStart = nl < 0 ? text.length : nl + 1;
    const close = new RegExp(`^${m[1] ? '\\t*' : ''}${m[3]}[ \\t]*$`, 'm');
    const rest = text.slice(bodyStart);
    const end = rest.search(close);
    out.push({
      line,
      column: m.index - lineStart + 1,
      offset: m.index,
      delimiter: m[3],
      body: end < 0 ? rest : rest.slice(0, end),
      assigned: ASSIGNED.test(before),
      quoted: m[2] !== '',
      after: text.slice(m.index + m[0].length, nl < 0 ? text.length : nl),
      before,
    });
    re.lastIndex = end < 0 ? text.length : bodyStart + end;
  }
  return out;
}

/** The first heredoc that is not read, or undefined. */
export function firstHeredoc(text: string): Heredoc | undefined {
  return heredocs(text).find((h) => !h.assigned);
}

/** The first heredoc that is not read whose body passes a model option (`--model.model_name_or_path`, `--pretrain`, `--model`). */
export function heredocNamingModel(text: string): Heredoc | undefined {
  return heredocs(text).find((h) => !h.assigned && /(^|\s)--[\w.-]*(model|pretrain)[\w.-]*[\s=]/i.test(h.body));
}

/** A file a heredoc writes: its path as the script names it, and the text written. */
export interface HeredocFile {
  readonly path: string;
  readonly text: string;
}

/** `cat > PATH` (or `>>`, `tee PATH`) before the operator, or `cat <<EOF > PATH` after the delimiter. */
const WRITES_BEFORE = /(?:^|[\s;&|({])(?:cat[ \t]*>>?|tee(?:[ \t]+-a)?)[ \t]*([^\s;&|<>()$`]+)[ \t]*$/;
const WRITES_AFTER = /^[ \t]*>>?[ \t]*([^\s;&|<>()$`]+)/;

/**
 * The files a shell text writes from heredocs (`cat > ds_config.json <<'EOF' ... EOF`, a launcher writing the config it
 * then names): those whose text is known, the delimiter quoted, or every `$NAME` / `${NAME}` of the body one of
 * `values` (the script's variables known statically); a body with a command substitution or another expansion is not.
 */
export function heredocFiles(text: string, values?: ReadonlyMap<string, string>): HeredocFile[] {
  const out: HeredocFile[] = [];
  for (const h of heredocs(text)) {
    if (h.assigned) continue;
    const body = h.quoted ? h.body : expanded(h.body, values);
    if (body === undefined) continue;
    const m =
      WRITES_BEFORE.exec(h.before) ?? (/(?:^|[\s;&|({])cat[ \t]*$/.test(h.before) ? WRITES_AFTER.exec(h.after) : null);
    const path = m?.[1].replace(/^(['"])(.*)\1$/, '$2');
    if (path && path !== '/dev/null') out.push({ path, text: body });
  }
  return out;
}

/** An unquoted heredoc's body with its variables put in; undefined where one is not known or is no plain variable. */
function expanded(body: string, values: ReadonlyMap<string, string> | undefined): string | undefined {
  if (!/[$`\\]/.test(body)) return body;
  if (!values || /`|\$\(|\\/.test(body)) return undefined;
  let unknown = false;
  const out = body.replace(/\$\{(\w+)\}|\$(\w+)|\$/g, (whole, braced?: string, plain?: string) => {
    const v = values.get(braced ?? plain ?? '');
    if (v === undefined) unknown = true;
    return v ?? whole;
  });
  return unknown ? undefined : out;
}
