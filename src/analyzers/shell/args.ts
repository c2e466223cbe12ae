// Command-line arguments: `--k v`, `--k=v`, bare flags and `key=value` overrides, over fields that keep their
// spans. Pure: no I/O, no node:* and no 'vscode'.
import type { LaunchArgument, Reference, Span } from '../facts';
import { type Piece, unknownOf, type Field, pieceSlice, subSpan } from './fields';
import { normName, toBool } from './flags';

/** A flag value: the text after `=` or the next field. */
interface Val {
  readonly text: string;
  readonly span: Span;
  readonly unknown?: string;
  readonly items?: readonly string[];
}

export interface Opt {
  readonly name: string;
  readonly rawKey: string;
  readonly keySpan: Span;
  readonly value?: Val;
  /** The words after a one-word value up to the next option (LaunchArgument.more); they are positionals too. */
  readonly more?: Field[];
}

/** The pieces of field characters [a, b). */
export function pieceRange(f: Field, a: number, b: number): Piece[] {
  const out: Piece[] = [];
  let pos = 0;
  for (const p of f.pieces) {
    const pa = pos;
    const pb = pos + p.text.length;
    pos = pb;
    if (p.text.length === 0) {
      if (pa >= a && pa <= b && p.unknown !== undefined) out.push(p);
      continue;
    }
    const lo = Math.max(a, pa);
    const hi = Math.min(b, pb);
    if (lo < hi) out.push(pieceSlice(p, lo - pa, hi - pa));
  }
  return out;
}

export type Consume = 'never' | 'bool' | 'list' | 'one';

export interface Parsed {
  readonly opts: Opt[];
  readonly positionals: Field[];
  readonly next: number;
}

/** An option's value as written, when it is known (trimmed); undefined when absent or not known statically. */
export const known = (o: Opt | undefined): string | undefined =>
  o?.value && o.value.unknown === undefined ? o.value.text.trim() : undefined;

/**
 * A flag: `--k`, `-k`, or `--k=<value>` whose name and `=` are written out even when the value is not known, in the
 * line or in the value of a variable the line expands (`header="torchrun --nnodes=$num_nodes ..."`, then `$header`).
 */
export const looksLikeFlag = (f: Field): boolean =>
  /^-[A-Za-z-]/.test(f.text) &&
  (f.unknown === undefined ||
    ((!f.pieces[0]?.expanded || f.pieces[0].exact) && /^-[A-Za-z-][\w.-]*=/.test(f.pieces[0]?.text ?? '')));

/**
 * Parses `--k v`, `--k=v`, bare flags and (with `kv`) `key=value` overrides from fields[j]. A launcher stops at its
 * first positional (the script); a script's arguments run to the end.
 */
export function parseArgs(
  fields: readonly Field[],
  j: number,
  consume: (name: string) => Consume,
  stopAtPositional: boolean,
  kv: boolean,
  opaque: (f: Field) => void,
): Parsed {
  const opts: Opt[] = [];
  const positionals: Field[] = [];
  // The last option whose one-word value was just taken: the words after it may be more of its values.
  let valued: Opt | undefined;
  // After a word of unknown length (`"${1}"`, `$EXTRA_ARGS`), a positional word's place among them is not known.
  let afterOpaque = false;
  while (j < fields.length) {
    const f = fields[j];
    if (f.opaque) {
      opaque(f);
      afterOpaque = true;
      j++;
      continue;
    }
    if (f.text === '--') {
      j++;
      if (stopAtPositional) break;
      continue;
    }
    if (looksLikeFlag(f)) {
      valued = undefined;
      const eq = f.text.indexOf('=');
      if (eq > 0) {
        const vp = pieceRange(f, eq + 1, f.text.length);
        opts.push({
          name: normName(f.text.slice(0, eq)),
          rawKey: f.text.slice(0, eq),
          keySpan: subSpan(f, 0, eq),
          value: { text: f.text.slice(eq + 1), span: subSpan(f, eq + 1, f.text.length), unknown: unknownOf(vp) },
        });
        j++;
        continue;
      }
      const name = normName(f.text);
      const c = consume(name);
      const next = fields[j + 1];
      let value: Val | undefined;
      if (c === 'list') {
        let k = j + 1;
        while (k < fields.length && !looksLikeFlag(fields[k]) && !(kv && /^[A-Za-z_][\w.-]*=/.test(fields[k].text)))
          k++;
        if (k > j + 1) {
          const items = fields.slice(j + 1, k);
          value = {
            text: items.map((x) => x.text).join(' '),
            items: items.map((x) => x.text),
            span: { start: items[0].span.start, end: items[items.length - 1].span.end },
            unknown: items.find((x) => x.unknown !== undefined)?.unknown,
          };
        }
        opts.push({ name, rawKey: f.text, keySpan: f.span, value });
        j = k;
        continue;
      }
      const takes =
        next !== undefined &&
        !looksLikeFlag(next) &&
        c !== 'never' &&
        (c !== 'bool' || next.unknown !== undefined || toBool(next.text) !== undefined) &&
        !(kv && next.unknown === undefined && /^[A-Za-z_][\w.-]*=/.test(next.text));
      if (takes) value = { text: next.text, span: next.span, unknown: next.unknown };
      const opt: Opt = { name, rawKey: f.text, keySpan: f.span, value, ...(takes ? { more: [] } : {}) };
      opts.push(opt);
      valued = takes ? opt : undefined;
      j += takes ? 2 : 1;
      continue;
    }
    // Hydra's `+key=value` adds a key, `++key=value` adds or overrides one, `~key` (or `~key=value`) deletes it.
    const m = kv ? /^(?:~|\+\+?)?([A-Za-z_][\w.-]*)=/.exec(f.text) : null;
    if (m) {
      valued = undefined;
      if (!f.text.startsWith('~')) {
        const eq = m[0].length - 1;
        const vp = pieceRange(f, eq + 1, f.text.length);
        opts.push({
          name: m[1].replace(/-/g, '_').toLowerCase(),
          rawKey: m[1],
          keySpan: subSpan(f, 0, eq),
          value: { text: f.text.slice(eq + 1), span: subSpan(f, eq + 1, f.text.length), unknown: unknownOf(vp) },
        });
      }
      j++;
      continue;
    }
    if (stopAtPositional) break;
    const unplaced = `${f.text}: its place among the arguments is not known (a word before it may be any number of words)`;
    const placed = afterOpaque ? { ...f, unknown: f.unknown ?? unplaced } : f;
    valued?.more?.push(placed);
    positionals.push(placed);
    j++;
  }
  return { opts, positionals, next: j };
}

export function skipOpts(fields: readonly Field[], i: number, valued: Set<string>): number {
  while (i < fields.length && /^-/.test(fields[i].text)) {
    const t = fields[i].text;
    const name = t.replace(/^-+/, '').replace(/-/g, '_');
    if (t.includes('=')) i++;
    else if (name === 'mca' || name === 'gmca') i += 3;
    else if (valued.has(name)) i += 2;
    else i++;
  }
  return i;
}

/**
 * The training script a launch line runs, with the options it passes (a value not known statically is null) and the
 * Python files among its positional arguments (nanoGPT's configurator.py execs them over train.py's globals).
 */
export function scriptReference(script: string, span: Span, p: Parsed): Reference {
  const args = p.opts.map((o) => ({
    name: o.name,
    ...(o.value ? { value: o.value.unknown === undefined ? o.value.text : null } : {}),
    ...(o.more?.length ? { more: o.more.map((f) => (f.unknown === undefined ? f.text : null)) } : {}),
  }));
  const files = p.positionals.filter((f) => f.unknown === undefined && /\.py$/.test(f.text)).map((f) => f.text);
  const overrides = hydraOverrides(p.positionals);
  const positionals = p.positionals.map((f) => (f.unknown === undefined ? f.text : null));
  return {
    kind: 'script',
    path: script,
    span,
    args,
    ...(files.length > 0 ? { positionalFiles: files } : {}),
    ...(positionals.length > 0 ? { positionals } : {}),
    ...(overrides.length > 0 ? { overrides } : {}),
  };
}

/**
 * Hydra's overrides among a script's positional arguments: `key=value`, `+key=value` (added), `++key=value` (added or
 * set); `~key` (deleted) is left out. The name as written after the `+`, the value null when not known statically.
 */
function hydraOverrides(positionals: readonly Field[]): LaunchArgument[] {
  const out: LaunchArgument[] = [];
  for (const f of positionals) {
    const m = /^\+{0,2}([A-Za-z_][\w.-]*)=(.*)$/s.exec(f.text);
    if (m) out.push({ name: m[1], value: f.unknown === undefined ? m[2] : null });
  }
  return out;
}
