// Markdown built from user text without letting it become markup: text quoted from a config (keys, values, model
// ids, paths, messages that quote them) is shown in code spans, so a backtick cannot break out, and links, images
// and HTML written in a config are shown as text, never rendered. Editor-free and pure.
import { cleanText, type MessageTemplate } from '../analyzers/facts';

/**
 * The characters that can open markup inside a line of text: code, emphasis, links and images, HTML and entities,
 * strikethrough, tables; `_` only where it can start or end emphasis (intraword underscores, as in `seq_len`, cannot).
 */
const MARKDOWN_SPECIAL = /[\\`*[\]<>&~|!]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g;
/** Addresses that a Markdown renderer would turn into links by themselves (GFM autolinks, command URIs). */
const AUTOLINK = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.|command:|vscode:|file:)[^\s<>()]*/gi;

/** Plain text as Markdown that renders it literally (no emphasis, links, images or HTML); addresses become code. */
export function mdText(s: string): string {
  const text = cleanText(s, 2000);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(AUTOLINK)) {
    out += text.slice(last, m.index).replace(MARKDOWN_SPECIAL, (c) => `\\${c}`) + mdCode(m[0]);
    last = m.index + m[0].length;
  }
  return out + text.slice(last).replace(MARKDOWN_SPECIAL, (c) => `\\${c}`);
}

/** Any text as one inline code span: the fence is longer than the longest run of backticks inside. */
export function mdCode(s: string, max = 120): string {
  const text = cleanText(s, max);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text.length === 0 ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

type Translate = (message: string, ...args: Array<string | number>) => string;

/**
 * A message as Markdown: the template's own words escaped, its code spans kept as code spans (with the arguments
 * they quote inside a long enough fence), and the other arguments escaped as text. Without a template the whole
 * message is escaped text.
 */
export function messageMarkdown(message: string, template: MessageTemplate | undefined, t?: Translate): string {
  if (!template) return mdText(message);
  const text = t ? t(template.text, ...template.args.map((_, i) => `{${i}}`)) : template.text;
  const arg = (i: string): string => String(template.args[Number(i)] ?? '');
  return text
    .split(/(`[^`]*`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length >= 2)
        return mdCode(
          part.slice(1, -1).replace(/\{(\d+)\}/g, (_, i: string) => arg(i)),
          200,
        );
      return mdText(part.replace(/\{(\d+)\}/g, (_, i: string) => arg(i)));
    })
    .join('');
}
