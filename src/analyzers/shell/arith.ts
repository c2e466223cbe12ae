// Arithmetic `$(( ... ))`: integers, + - * / % ** and parentheses over variables the script sets. Pure: no I/O, no
// node:* and no 'vscode'.
import { type Piece, unknownOf, textOf } from './fields';

type Num = { ok: true; v: number } | { ok: false; reason: string };

export function evalArith(expr: string, lookup: (name: string) => Piece[] | string): Num {
  const toks =
    expr.match(/\s+|0[xX][0-9a-fA-F]+|\d+|\$\{[^}]*\}|\$[A-Za-z_]\w*|\$[0-9@#*?]|[A-Za-z_]\w*|\*\*|[-+*/%()]|./g) ?? [];
  const ts = toks.filter((t) => !/^\s+$/.test(t));
  let i = 0;
  const fail = (reason: string): Num => ({ ok: false, reason });
  const variable = (raw: string): Num => {
    const name = raw.replace(/^\$\{?/, '').replace(/\}$/, '');
    if (!/^[A-Za-z_]\w*$/.test(name)) return fail(`\`${raw}\` in $((${expr.trim()})) is not known statically`);
    const v = lookup(name);
    if (typeof v === 'string') return fail(v);
    const u = unknownOf(v);
    if (u !== undefined) return fail(u);
    const t = textOf(v).trim();
    if (!/^[-+]?\d+$/.test(t)) return fail(`\`${name}\` is not an integer ('${t}')`);
    return { ok: true, v: Number.parseInt(t, 10) };
  };
  const atom = (): Num => {
    const t = ts[i++];
    if (t === undefined) return fail(`incomplete arithmetic $((${expr.trim()}))`);
    if (t === '(') {
      const r = sum();
      if (ts[i] !== ')') return fail(`unbalanced parentheses in $((${expr.trim()}))`);
      i++;
      return r;
    }
    if (/^0[xX]/.test(t)) return { ok: true, v: Number.parseInt(t, 16) };
    if (/^\d+$/.test(t)) return { ok: true, v: Number.parseInt(t, 10) };
    if (/^\$?[A-Za-z_{]/.test(t) || t.startsWith('$')) return variable(t);
    return fail(`unsupported '${t}' in $((${expr.trim()}))`);
  };
  const unary = (): Num => {
    if (ts[i] === '-' || ts[i] === '+') {
      const neg = ts[i++] === '-';
      const r = unary();
      return r.ok && neg ? { ok: true, v: -r.v } : r;
    }
    const base = atom();
    if (ts[i] === '**') {
      i++;
      const e = unary();
      if (!base.ok) return base;
      if (!e.ok) return e;
      return { ok: true, v: base.v ** e.v };
    }
    return base;
  };
  const product = (): Num => {
    let l = unary();
    while (ts[i] === '*' || ts[i] === '/' || ts[i] === '%') {
      const op = ts[i++];
      const r = unary();
      if (!l.ok) return l;
      if (!r.ok) return r;
      if (op !== '*' && r.v === 0) return fail(`division by zero in $((${expr.trim()}))`);
      l = { ok: true, v: op === '*' ? l.v * r.v : op === '/' ? Math.trunc(l.v / r.v) : l.v % r.v };
    }
    return l;
  };
  const sum = (): Num => {
    let l = product();
    while (ts[i] === '+' || ts[i] === '-') {
      const op = ts[i++];
      const r = product();
      if (!l.ok) return l;
      if (!r.ok) return r;
      l = { ok: true, v: op === '+' ? l.v + r.v : l.v - r.v };
    }
    return l;
  };
  const r = sum();
  if (r.ok && i < ts.length) return fail(`unsupported arithmetic $((${expr.trim()}))`);
  if (r.ok && !Number.isSafeInteger(r.v)) return fail(`$((${expr.trim()})) overflows`);
  return r;
}
