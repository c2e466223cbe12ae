// Interpreter: walks the commands in order, keeps the variables the script sets (through `if`, `case` and loops,
// merged where branches disagree), and analyzes each launch. Pure: no I/O, no node:* and no 'vscode'.
import {
  expandableSegmentsOf,
  type CanonicalKey,
  type Fact,
  type FactValue,
  type ParseProblem,
  type Span,
  type Unknown,
} from '../facts';
import { type Seg, type WordTok, type OpTok, type Tok, REDIRECTS } from './lexer';
import { type Piece, type VarVal, type Env, unknownOf, textOf, type Field } from './fields';
import { expandSegs, fieldsOf } from './expand';
import { type CmdResult, analyzeLaunch } from './launch';

type Tri = boolean | undefined;

interface IfFrame {
  kind: 'if';
  line: number;
  snapshot: Env;
  branches: { env: Env; cond: Tri }[];
  cond: Tri;
  state: 'cond' | 'body';
  parentDead: boolean;
  sawElse: boolean;
}
interface LoopFrame {
  kind: 'loop';
  line: number;
  snapshot: Env;
  parentDead: boolean;
  runsOnce: boolean;
}
interface CaseFrame {
  kind: 'case';
  line: number;
  snapshot: Env;
  branches: Env[];
  state: 'pattern' | 'body';
  parentDead: boolean;
  sawDefault: boolean;
}
interface BlockFrame {
  kind: 'group' | 'func' | 'sub';
  snapshot: Env;
  parentDead: boolean;
}
type Frame = IfFrame | LoopFrame | CaseFrame | BlockFrame;

interface Command {
  readonly words: WordTok[];
  readonly arrays: Set<WordTok>;
}

const and3 = (a: Tri, b: Tri): Tri =>
  a === false || b === false ? false : a === true && b === true ? true : undefined;
const or3 = (a: Tri, b: Tri): Tri => (a === true || b === true ? true : a === false && b === false ? false : undefined);

function literalWord(w: WordTok): string | undefined {
  if (w.segs.length !== 1) return undefined;
  const s = w.segs[0];
  return s.k === 'lit' && !s.quoted ? s.text : undefined;
}

function assignParts(
  w: WordTok,
): { name: string; append: boolean; valueSegs: Seg[]; nameSpan: Span; valueSpan: Span } | undefined {
  const s = w.segs[0];
  if (!s || s.k !== 'lit' || s.quoted || !s.exact) return undefined;
  const m = /^([A-Za-z_]\w*)(\+?)=/.exec(s.text);
  if (!m) return undefined;
  const rest = s.text.slice(m[0].length);
  const valueSegs: Seg[] = [];
  if (rest)
    valueSegs.push({ k: 'lit', text: rest, start: s.start + m[0].length, end: s.end, quoted: false, exact: true });
  valueSegs.push(...w.segs.slice(1));
  return {
    name: m[1],
    append: m[2] === '+',
    valueSegs,
    nameSpan: { start: s.start, end: s.start + m[1].length },
    valueSpan: { start: s.start + m[0].length, end: w.end },
  };
}

/**
 * The variables inside a block: a layer over the variables where the block starts. Writes stay in the layer (a
 * deleted name is kept as undefined), reads fall through to the parent, so starting a block costs nothing and the
 * names a block changed are the layers' own keys. Chains are flattened past MAX_LAYERS so a read stays short.
 */
class LayeredEnv extends Map<string, VarVal> {
  readonly depth: number;

  constructor(readonly parent: Env) {
    super();
    this.depth = parent instanceof LayeredEnv ? parent.depth + 1 : 1;
  }

  override get(name: string): VarVal | undefined {
    return super.has(name) ? super.get(name) : this.parent.get(name);
  }

  override has(name: string): boolean {
    return super.has(name) ? super.get(name) !== undefined : this.parent.has(name);
  }

  override set(name: string, v: VarVal): this {
    super.set(name, v);
    return this;
  }

  override delete(name: string): boolean {
    const had = this.has(name);
    super.set(name, undefined as unknown as VarVal);
    return had;
  }

  override get size(): number {
    let n = 0;
    for (const _ of this.entries()) n++;
    return n;
  }

  ownKeys(): IterableIterator<string> {
    return super.keys();
  }

  override entries(): MapIterator<[string, VarVal]> {
    return flatten(this).entries();
  }

  /** The layer's own writes, oldest first; undefined values are deletions. */
  ownEntries(): IterableIterator<[string, VarVal | undefined]> {
    return super.entries();
  }

  override *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  override *values(): MapIterator<VarVal> {
    for (const [, v] of this.entries()) yield v;
  }

  override [Symbol.iterator](): MapIterator<[string, VarVal]> {
    return this.entries();
  }

  override forEach(f: (v: VarVal, k: string, m: Map<string, VarVal>) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this);
  }
}

const MAX_LAYERS = 24;

/** A fresh layer over env. */
function layer(env: Env): Env {
  return new LayeredEnv(env);
}

/** The variables of a chain of layers as one plain map: the root's, then each layer's writes from the oldest. */
function flatten(env: Env): Map<string, VarVal> {
  const chain: LayeredEnv[] = [];
  let e: Env = env;
  while (e instanceof LayeredEnv) {
    chain.push(e);
    e = e.parent;
  }
  const out = new Map(e);
  for (let k = chain.length - 1; k >= 0; k--) {
    for (const [name, v] of chain[k].ownEntries()) {
      if (v === undefined) out.delete(name);
      else out.set(name, v);
    }
  }
  return out;
}

/** env, flattened when its chain of layers is long (a block's snapshot: the layers of the block are read through it). */
function shallow(env: Env): Env {
  return env instanceof LayeredEnv && env.depth >= MAX_LAYERS ? flatten(env) : env;
}

/** The names env set or deleted since base, when env is a chain of layers over base; undefined otherwise. */
function changedSince(env: Env, base: Env): string[] | undefined {
  const out: string[] = [];
  let e: Env = env;
  for (let guard = 0; e !== base; guard++) {
    if (!(e instanceof LayeredEnv) || guard > MAX_LAYERS + 1) return undefined;
    for (const k of e.ownKeys()) out.push(k);
    e = e.parent;
  }
  return out;
}

/** At most this many values per branch-set variable, and this many analyses of one launch line, are tried. */
const MAX_CHOICES = 6;
const MAX_COMBINATIONS = 16;

function sameValue(a: VarVal | undefined, b: VarVal | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    unknownOf(a.pieces) === undefined && unknownOf(b.pieces) === undefined && textOf(a.pieces) === textOf(b.pieces)
  );
}

export class Interpreter {
  env: Env;
  readonly frames: Frame[] = [];
  dead = false;
  pos = 0;
  negate = false;
  pendingFunc = false;
  lastTri: Tri = true;
  readonly results: CmdResult[] = [];
  readonly problems: ParseProblem[] = [];
  private readonly lineStarts: number[] = [0];

  constructor(
    private readonly text: string,
    private readonly toks: Tok[],
    seeds: Env,
  ) {
    this.env = new Map(seeds);
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  // ----- control flow -----

  private merge(envs: readonly Env[], line: number, what: string, base?: Env): Env {
    // Only the names some branch changed are merged. Branches are layers over the snapshot taken where they start
    // (layer()), so the changed names are the layers' own keys; every other name is the snapshot's. Copying and
    // comparing every variable at each `if` / `fi` made a script with many variables and many if-blocks quadratic.
    const layered = base ? envs.map((e) => changedSince(e, base)) : [];
    let out: Env;
    const names = new Set<string>();
    if (base && layered.every((x) => x !== undefined)) {
      out = layer(base);
      for (const x of layered) for (const n of x!) names.add(n);
    } else {
      out = new Map(envs[0]);
      for (const e of envs) for (const k of e.keys()) names.add(k);
      for (const k of envs[0].keys()) names.add(k);
    }
    for (const name of names) {
      const vals = envs.map((e) => e.get(name));
      const first = vals[0];
      if (vals.every((v) => v === first)) {
        if (first) out.set(name, first);
        else out.delete(name);
        continue;
      }
      if (
        first &&
        vals.every((v) => v && unknownOf(v.pieces) === undefined && textOf(v.pieces) === textOf(first.pieces))
      ) {
        out.set(name, first);
        continue;
      }
      const described = [
        ...new Set(
          vals.map((v) => {
            if (!v) return 'unset';
            const u = unknownOf(v.pieces);
            if (u !== undefined) return u.length <= 60 ? u : 'unknown';
            return `'${textOf(v.pieces).slice(0, 40)}'`;
          }),
        ),
      ];
      const last = [...vals].reverse().find((v) => v !== undefined)!;
      const reason = `\`${name}\` depends on the ${what} at line ${line} (${described.join(' or ')})`;
      const span = last.valueSpan ?? { start: 0, end: 0 };
      // The values each branch gives, when every one is known (a loop's are not choices: it may run any number of times).
      const distinct: (VarVal | undefined)[] = [];
      for (const v of vals) {
        if (v?.choices) {
          for (const c of v.choices.values) if (!distinct.some((d) => sameValue(d, c))) distinct.push(c);
          continue;
        }
        if (!distinct.some((d) => sameValue(d, v))) distinct.push(v);
      }
      const choosable =
        what !== 'loop' &&
        distinct.length <= MAX_CHOICES &&
        distinct.every((v) => v === undefined || unknownOf(v.pieces) === undefined);
      out.set(name, {
        pieces: [{ text: '', start: span.start, end: span.end, exact: false, unknown: reason }],
        exported: vals.some((v) => v?.exported),
        nameSpan: last.nameSpan,
        valueSpan: last.valueSpan,
        ...(choosable ? { choices: { values: distinct, what, line } } : {}),
      });
    }
    return out;
  }

  private top(): Frame | undefined {
    return this.frames[this.frames.length - 1];
  }

  run(): void {
    const toks = this.toks;
    let connector: string | undefined;
    let guard = 0;
    while (this.pos < toks.length) {
      if (++guard > toks.length * 4 + 16) break;
      const t = toks[this.pos];
      const top = this.top();
      if (top?.kind === 'case' && top.state === 'pattern') {
        if (t.t === 'op' && (t.op === '\n' || t.op === ';')) {
          this.pos++;
          continue;
        }
        this.casePattern(top);
        continue;
      }
      if (t.t === 'op') {
        const op = t.op;
        if (op === '\n' || op === ';' || op === '&') {
          connector = undefined;
          this.lastTri = true;
          this.pos++;
          continue;
        }
        if (op === '&&' || op === '||' || op === '|' || op === '|&') {
          connector = op;
          this.pos++;
          continue;
        }
        if (op === ';;' || op === ';&' || op === ';;&') {
          if (top?.kind === 'case' && top.state === 'body') {
            top.branches.push(this.env);
            this.env = layer(top.snapshot);
            top.state = 'pattern';
            this.dead = top.parentDead;
          }
          connector = undefined;
          this.pos++;
          continue;
        }
        if (op === '(') {
          const n = toks[this.pos + 1];
          if (n && n.t === 'op' && n.op === '(' && n.start === t.end) {
            this.skipArithCommand();
            continue;
          }
          this.frames.push({ kind: 'sub', snapshot: (this.env = shallow(this.env)), parentDead: this.dead });
          this.env = layer(this.env);
          this.pos++;
          continue;
        }
        if (op === ')') {
          if (top?.kind === 'sub') {
            this.frames.pop();
            this.env = top.snapshot;
            this.dead = top.parentDead;
          }
          this.pos++;
          continue;
        }
      } else {
        const kw = literalWord(t);
        if (kw !== undefined && this.keyword(kw, t)) continue;
      }
      const before = this.pos;
      const cmd = this.readCommand();
      if (cmd) this.exec(cmd, connector);
      connector = undefined;
      if (this.pos === before) this.pos++;
    }
  }

  private skipArithCommand(): void {
    let depth = 0;
    while (this.pos < this.toks.length) {
      const t = this.toks[this.pos++];
      if (t.t !== 'op') continue;
      if (t.op === '(') depth++;
      else if (t.op === ')') {
        depth--;
        if (depth <= 0) break;
      }
    }
  }

  private branchCondElse(f: IfFrame): Tri {
    if (f.branches.some((b) => b.cond === true)) return false;
    return f.branches.every((b) => b.cond === false) ? true : undefined;
  }

  /** Handles a reserved word at the start of a command; false when the word is not one. */
  private keyword(kw: string, t: WordTok): boolean {
    const top = this.top();
    const line = this.lineOf(t.start);
    switch (kw) {
      case 'if':
        this.frames.push({
          kind: 'if',
          line,
          snapshot: (this.env = shallow(this.env)),
          branches: [],
          cond: undefined,
          state: 'cond',
          parentDead: this.dead,
          sawElse: false,
        });
        this.env = layer(this.env);
        this.pos++;
        return true;
      case 'then':
        if (top?.kind === 'if') {
          if (top.branches.some((b) => b.cond === true)) top.cond = false;
          top.state = 'body';
          this.dead = top.parentDead || top.cond === false;
        }
        this.pos++;
        return true;
      case 'elif':
      case 'else':
        if (top?.kind === 'if') {
          top.branches.push({ env: this.env, cond: top.cond });
          this.env = layer(top.snapshot);
          this.dead = top.parentDead;
          if (kw === 'elif') {
            top.state = 'cond';
            top.cond = undefined;
          } else {
            top.sawElse = true;
            top.state = 'body';
            top.cond = this.branchCondElse(top);
            this.dead = top.parentDead || top.cond === false;
          }
        }
        this.pos++;
        return true;
      case 'fi':
        if (top?.kind === 'if') {
          this.frames.pop();
          top.branches.push({ env: this.env, cond: top.cond });
          if (!top.sawElse) top.branches.push({ env: top.snapshot, cond: this.branchCondElse(top) });
          const live = top.branches.filter((b) => b.cond !== false);
          this.env =
            live.length === 0
              ? top.snapshot
              : live.length === 1
                ? live[0].env
                : this.merge(
                    live.map((b) => b.env),
                    top.line,
                    '`if`',
                    top.snapshot,
                  );
          this.dead = top.parentDead;
        }
        this.pos++;
        return true;
      case 'for':
      case 'select':
        this.parseFor(line);
        return true;
      case 'while':
      case 'until':
        this.frames.push({
          kind: 'loop',
          line,
          snapshot: (this.env = shallow(this.env)),
          parentDead: this.dead,
          runsOnce: false,
        });
        this.env = layer(this.env);
        this.pos++;
        return true;
      case 'do':
        this.pos++;
        return true;
      case 'done':
        if (top?.kind === 'loop') {
          this.frames.pop();
          this.env = top.runsOnce ? this.env : this.merge([top.snapshot, this.env], top.line, 'loop', top.snapshot);
          this.dead = top.parentDead;
        }
        this.pos++;
        return true;
      case 'case': {
        this.pos++;
        if (this.toks[this.pos]?.t === 'word') this.pos++;
        const n = this.toks[this.pos];
        if (n && n.t === 'word' && literalWord(n) === 'in') this.pos++;
        this.frames.push({
          kind: 'case',
          line,
          snapshot: (this.env = shallow(this.env)),
          branches: [],
          state: 'pattern',
          parentDead: this.dead,
          sawDefault: false,
        });
        this.env = layer(this.env);
        return true;
      }
      case 'esac':
        if (top?.kind === 'case') {
          if (top.state === 'body') top.branches.push(this.env);
          this.finishCase(top);
        }
        this.pos++;
        return true;
      case '{':
        this.frames.push({
          kind: this.pendingFunc ? 'func' : 'group',
          snapshot: (this.env = shallow(this.env)),
          parentDead: this.dead,
        });
        this.env = layer(this.env);
        this.pendingFunc = false;
        this.pos++;
        return true;
      case '}':
        if (top && (top.kind === 'group' || top.kind === 'func')) {
          this.frames.pop();
          if (top.kind === 'func') this.env = top.snapshot;
          this.dead = top.parentDead;
        }
        this.pos++;
        return true;
      case 'function': {
        this.pos += 2;
        const a = this.toks[this.pos];
        const b = this.toks[this.pos + 1];
        if (a?.t === 'op' && a.op === '(' && b?.t === 'op' && b.op === ')') this.pos += 2;
        this.pendingFunc = true;
        return true;
      }
      case '!':
        this.negate = true;
        this.pos++;
        return true;
      default:
        return false;
    }
  }

  private finishCase(top: CaseFrame): void {
    this.frames.pop();
    const envs = top.sawDefault ? top.branches : [...top.branches, top.snapshot];
    this.env = envs.length ? this.merge(envs, top.line, '`case`', top.snapshot) : top.snapshot;
    this.dead = top.parentDead;
  }

  private casePattern(top: CaseFrame): void {
    const t = this.toks[this.pos];
    if (t.t === 'word' && literalWord(t) === 'esac') {
      this.finishCase(top);
      this.pos++;
      return;
    }
    while (this.pos < this.toks.length) {
      const x = this.toks[this.pos++];
      if (x.t === 'op' && x.op === ')') break;
      if (x.t === 'word' && literalWord(x) === '*') top.sawDefault = true;
    }
    top.state = 'body';
    this.env = layer(top.snapshot);
    this.dead = top.parentDead;
  }

  private parseFor(line: number): void {
    this.pos++;
    const n = this.toks[this.pos];
    const frame: LoopFrame = {
      kind: 'loop',
      line,
      snapshot: (this.env = shallow(this.env)),
      parentDead: this.dead,
      runsOnce: false,
    };
    this.env = layer(this.env);
    if (!n || n.t === 'op') {
      // `for ((i = 0; ...))`: skip the header; the body runs an unknown number of times.
      while (this.pos < this.toks.length) {
        const x = this.toks[this.pos];
        if (x.t === 'word' && literalWord(x) === 'do') break;
        this.pos++;
      }
      this.frames.push(frame);
      return;
    }
    const name = literalWord(n) ?? '';
    this.pos++;
    const words: WordTok[] = [];
    let hasIn = false;
    while (this.pos < this.toks.length && this.toks[this.pos].t === 'op' && (this.toks[this.pos] as OpTok).op === '\n')
      this.pos++;
    const inTok = this.toks[this.pos];
    if (inTok && inTok.t === 'word' && literalWord(inTok) === 'in') {
      hasIn = true;
      this.pos++;
      while (this.pos < this.toks.length && this.toks[this.pos].t === 'word')
        words.push(this.toks[this.pos++] as WordTok);
    }
    this.frames.push(frame);
    if (this.dead || !/^[A-Za-z_]\w*$/.test(name)) return;
    const fields = hasIn ? fieldsOf(this.text, words, this.env) : [];
    frame.runsOnce = hasIn && fields.length > 0 && fields.every((f) => !f.opaque);
    const span = { start: n.start, end: n.end };
    if (fields.length === 1 && fields[0].unknown === undefined) {
      this.env.set(name, {
        pieces: [{ text: fields[0].text, start: fields[0].span.start, end: fields[0].span.end, exact: false }],
        exported: false,
        nameSpan: span,
        valueSpan: fields[0].span,
      });
    } else {
      const list = fields
        .map((f) => (f.unknown === undefined ? f.text : '?'))
        .slice(0, 6)
        .join(', ');
      const reason = hasIn
        ? `\`${name}\` is the variable of the \`for\` loop at line ${line} (${list || 'no items'})`
        : `\`${name}\` loops over the script's arguments`;
      this.env.set(name, {
        pieces: [{ text: '', start: span.start, end: span.end, exact: false, unknown: reason }],
        exported: false,
        nameSpan: span,
        valueSpan: span,
      });
    }
  }

  private readCommand(): Command | undefined {
    const words: WordTok[] = [];
    const arrays = new Set<WordTok>();
    const toks = this.toks;
    while (this.pos < toks.length) {
      const t = toks[this.pos];
      if (t.t === 'op') {
        if (REDIRECTS.has(t.op)) {
          this.pos++;
          if (toks[this.pos]?.t === 'word') this.pos++;
          continue;
        }
        if (t.op === '<<' || t.op === '<<-') {
          this.pos++;
          continue;
        }
        if (t.op === '(') {
          const next = toks[this.pos + 1];
          const last = words[words.length - 1];
          if (words.length === 1 && next?.t === 'op' && next.op === ')') {
            this.pendingFunc = true;
            this.pos += 2;
            return undefined;
          }
          if (
            last &&
            t.start === last.end &&
            /=$/.test(
              literalWord(last) ??
                (last.segs[last.segs.length - 1]?.k === 'lit'
                  ? (last.segs[last.segs.length - 1] as { text: string }).text
                  : ''),
            )
          ) {
            let depth = 0;
            while (this.pos < toks.length) {
              const x = toks[this.pos++];
              if (x.t === 'op' && x.op === '(') depth++;
              else if (x.t === 'op' && x.op === ')') {
                depth--;
                if (depth <= 0) break;
              }
            }
            arrays.add(last);
            continue;
          }
        }
        break;
      }
      if (words.length === 0 && literalWord(t) === '[[') {
        while (this.pos < toks.length) {
          const x = toks[this.pos++];
          const w: WordTok =
            x.t === 'word'
              ? x
              : {
                  t: 'word',
                  segs: [{ k: 'lit', text: x.op, start: x.start, end: x.end, quoted: false, exact: true }],
                  start: x.start,
                  end: x.end,
                };
          words.push(w);
          if (x.t === 'word' && literalWord(x) === ']]') break;
          if (x.t === 'op' && x.op === '\n') break;
        }
        break;
      }
      words.push(t);
      this.pos++;
    }
    return words.length ? { words, arrays } : undefined;
  }

  private assign(w: WordTok, env: Env, exported: boolean, mode: 'set' | 'skip' | 'maybe', array: boolean): void {
    const p = assignParts(w);
    if (!p || mode === 'skip') return;
    let pieces: Piece[] = array
      ? [
          {
            text: '',
            start: p.valueSpan.start,
            end: p.valueSpan.end,
            exact: false,
            unknown: `\`${p.name}\` is an array`,
          },
        ]
      : expandSegs(this.text, p.valueSegs, env, false).map((x) => ({ ...x, split: false }));
    const old = env.get(p.name);
    if (p.append && old) pieces = [...old.pieces, ...pieces];
    let val: VarVal = {
      pieces,
      exported: exported || (old?.exported ?? false),
      nameSpan: p.nameSpan,
      valueSpan: p.valueSpan,
    };
    if (mode === 'maybe') {
      const tmpA: Env = new Map(old ? [[p.name, old]] : []);
      const tmpB: Env = new Map([[p.name, val]]);
      val = this.merge([tmpA, tmpB], this.lineOf(w.start), 'condition').get(p.name) ?? val;
    }
    env.set(p.name, val);
  }

  private evalTest(fields: Field[]): Tri {
    let args = fields.slice(1);
    const head = fields[0].text;
    if (head === '[' || head === '[[') {
      if (args.length === 0 || args[args.length - 1].text !== (head === '[' ? ']' : ']]')) return undefined;
      args = args.slice(0, -1);
    }
    let neg = false;
    if (args[0]?.text === '!') {
      neg = true;
      args = args.slice(1);
    }
    if (args.some((a) => a.unknown !== undefined)) return undefined;
    let r: Tri;
    const int = (s: string): number | undefined => (/^\s*[-+]?\d+\s*$/.test(s) ? Number.parseInt(s, 10) : undefined);
    if (args.length === 1) r = args[0].text !== '';
    else if (args.length === 2)
      r = args[0].text === '-z' ? args[1].text === '' : args[0].text === '-n' ? args[1].text !== '' : undefined;
    else if (args.length === 3) {
      const [a, op, b] = [args[0].text, args[1].text, args[2].text];
      const x = int(a);
      const y = int(b);
      switch (op) {
        case '=':
        case '==':
          r = a === b;
          break;
        case '!=':
          r = a !== b;
          break;
        case '-eq':
          r = x === undefined || y === undefined ? undefined : x === y;
          break;
        case '-ne':
          r = x === undefined || y === undefined ? undefined : x !== y;
          break;
        case '-lt':
          r = x === undefined || y === undefined ? undefined : x < y;
          break;
        case '-le':
          r = x === undefined || y === undefined ? undefined : x <= y;
          break;
        case '-gt':
          r = x === undefined || y === undefined ? undefined : x > y;
          break;
        case '-ge':
          r = x === undefined || y === undefined ? undefined : x >= y;
          break;
        default:
          r = undefined;
      }
    }
    return neg && r !== undefined ? !r : r;
  }

  /**
   * One launch line analyzed as written; when it uses variables set differently on the branches of an `if` or `case`,
   * also once per combination of their values, and each fact the variables leave unknown takes the worst of the
   * values it can take (chooseWorst), said as an assumption.
   */
  private launchOverChoices(words: readonly WordTok[], fields: Field[], env: Env): CmdResult | undefined {
    const r = analyzeLaunch(this.text, fields, env);
    if (!r || !r.facts.some((f) => isUnknownValue(f.value))) return r;
    const used = usedChoices(this.text.slice(words[0].start, words[words.length - 1].end), env);
    if (used.length === 0) return r;
    let combos: Env[] = [env];
    for (const [name, v] of used) {
      const next: Env[] = [];
      for (const e of combos)
        for (const c of v.choices!.values) {
          const e2 = new Map(e);
          if (c === undefined) e2.delete(name);
          else e2.set(name, c);
          next.push(e2);
        }
      combos = next;
      if (combos.length > MAX_COMBINATIONS) return r;
    }
    const rs = combos.map((e) => analyzeLaunch(this.text, fieldsOf(this.text, words, e), e));
    if (rs.some((x) => !x || x.facts.length !== r.facts.length || x.facts.some((f, k) => f.key !== r.facts[k].key)))
      return r;
    const noteOf = (f: Fact): string => {
      const named = used.filter(
        ([name]) =>
          usedChoices(this.text.slice(f.valueSpan.start, f.valueSpan.end), new Map([[name, env.get(name)!]])).length >
          0,
      );
      return (named.length > 0 ? named : used)
        .map(
          ([name, v]) =>
            `\`${name}\` is ${v.choices!.values.map((c) => (c === undefined ? 'unset' : `'${textOf(c.pieces).slice(0, 40)}'`)).join(' or ')}` +
            ` depending on the ${v.choices!.what} at line ${v.choices!.line}`,
        )
        .join('; ');
    };
    const facts = r.facts.map((f, k) => {
      if (!isUnknownValue(f.value)) return f;
      const values = rs.map((x) => x!.facts[k].value);
      if (values.some(isUnknownValue)) return f;
      const worst = chooseWorst(f.key, values as FactValue[]);
      if (worst === undefined) return f;
      const distinct = [...new Set(values.map((v) => JSON.stringify(v)))];
      const note = noteOf(f);
      const assumed =
        distinct.length === 1
          ? `${note}; ${f.rawKey} is ${distinct[0]} either way`
          : `${note}; ${f.rawKey} can be ${distinct.join(' or ')}: the worst for memory (${JSON.stringify(worst)}) is estimated`;
      return { ...f, value: worst, assumed };
    });
    const decided = new Set(
      facts.filter((f, k) => f !== r.facts[k]).map((f) => `${f.valueSpan.start}:${f.valueSpan.end}`),
    );
    r.facts.splice(0, r.facts.length, ...facts);
    const problems = r.problems.filter(
      (p) => !(p.code === 'not-static' && decided.has(`${p.span.start}:${p.span.end}`)),
    );
    r.problems.splice(0, r.problems.length, ...problems);
    return r;
  }

  private exec(cmd: Command, connector: string | undefined): void {
    const negate = this.negate;
    this.negate = false;
    const words = cmd.words;
    const top = this.top();
    const inCond = top?.kind === 'if' && top.state === 'cond';
    if (this.dead) return;
    let i = 0;
    while (i < words.length && assignParts(words[i])) i++;
    const prior = this.lastTri;
    if (i === words.length) {
      const mode =
        connector === '&&'
          ? prior === true
            ? 'set'
            : prior === false
              ? 'skip'
              : 'maybe'
          : connector === '||'
            ? prior === false
              ? 'set'
              : prior === true
                ? 'skip'
                : 'maybe'
            : 'set';
      for (const w of words) this.assign(w, this.env, false, mode, cmd.arrays.has(w));
      this.lastTri = true;
      return;
    }
    let env = this.env;
    if (i > 0) {
      env = new Map(this.env);
      for (const w of words.slice(0, i)) this.assign(w, env, true, 'set', cmd.arrays.has(w));
    }
    const head = literalWord(words[i]);
    if (head && ['export', 'declare', 'typeset', 'local', 'readonly'].includes(head)) {
      let exported = head === 'export';
      for (const w of words.slice(i + 1)) {
        const lit = literalWord(w);
        if (lit && /^[-+][a-zA-Z]+$/.test(lit)) {
          if (lit.includes('x')) exported = true;
          continue;
        }
        if (assignParts(w)) this.assign(w, this.env, exported, 'set', cmd.arrays.has(w));
        else if (lit && exported && this.env.has(lit)) this.env.set(lit, { ...this.env.get(lit)!, exported: true });
      }
      this.lastTri = true;
      return;
    }
    if (head === 'unset') {
      for (const w of words.slice(i + 1)) {
        const lit = literalWord(w);
        if (lit) this.env.delete(lit);
      }
      this.lastTri = true;
      return;
    }
    const fields = fieldsOf(this.text, words.slice(i), env);
    if (!fields.length) return;
    const name = fields[0].text;
    const isTest = name === '[' || name === '[[' || name === 'test';
    let tri: Tri = isTest
      ? this.evalTest(fields)
      : name === 'true' || name === ':'
        ? true
        : name === 'false'
          ? false
          : undefined;
    if (negate && tri !== undefined) tri = !tri;
    if (inCond && top?.kind === 'if')
      top.cond = connector === '&&' ? and3(top.cond, tri) : connector === '||' ? or3(top.cond, tri) : tri;
    // Other commands are assumed to succeed, so `mkdir -p x && X=1` sets X; a test with an unknown outcome does not.
    this.lastTri = isTest ? tri : (tri ?? true);
    const r = this.launchOverChoices(words.slice(i), fields, env);
    if (r) {
      allocatorConf(this.text, r, env);
      this.results.push(r);
    }
  }
}

/**
 * PYTORCH_CUDA_ALLOC_CONF as the training command sees it (exported or a prefix).
 */
function allocatorConf(text: string, r: CmdResult, env: Env): void {
  const v = env.get('PYTORCH_CUDA_ALLOC_CONF');
  if (!v || !v.exported || !v.nameSpan || !v.valueSpan) return;
  const rawValue = text.slice(v.valueSpan.start, v.valueSpan.end);
  const u = unknownOf(v.pieces);
  const value: FactValue | Unknown = u !== undefined ? { unknown: u } : expandableSegmentsOf(textOf(v.pieces));
  r.facts.push({
    key: 'expandableSegments',
    rawKey: 'PYTORCH_CUDA_ALLOC_CONF',
    value,
    rawValue,
    keySpan: v.nameSpan,
    valueSpan: v.valueSpan,
    tool: r.launcherTool ?? r.tools[0] ?? 'torchrun',
  });
}

const isUnknownValue = (v: Fact['value']): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The branch-set variables a launch line names (`$X`, `${X...}`). */
function usedChoices(line: string, env: Env): [string, VarVal][] {
  const out: [string, VarVal][] = [];
  for (const [name, v] of env) {
    if (!v.choices) continue;
    if (new RegExp(`\\$(\\{[#!]?)?${name}(?![A-Za-z0-9_])`).test(line)) out.push([name, v]);
  }
  return out;
}

/** Keys whose memory grows as the value shrinks (more sharding, more GPUs to share state). */
const SMALLER_IS_WORSE = new Set<CanonicalKey>([
  'zeroStage',
  'gpusPerNode',
  'nodes',
  'worldSize',
  'tensorParallel',
  'pipelineParallel',
  'contextParallel',
]);
/** Keys whose memory grows with the value. */
const LARGER_IS_WORSE = new Set<CanonicalKey>([
  'microBatchSize',
  'seqLen',
  'loraR',
  'evalBatchSize',
  'gradientAccumulationSteps',
  'trainBatchSize',
]);
/** Switches whose `false` costs more memory. */
const FALSE_IS_WORSE = new Set<CanonicalKey>(['gradientCheckpointing', 'bf16', 'fp16']);
const METHOD_COST = ['full', 'freeze', 'lora', 'qlora'];

/** The value of the several a key can take that needs the most memory; undefined when there is no such order. */
export function chooseWorst(key: CanonicalKey, values: readonly FactValue[]): FactValue | undefined {
  const first = values[0];
  if (values.every((v) => JSON.stringify(v) === JSON.stringify(first))) return first;
  if (values.every((v) => typeof v === 'number')) {
    const ns = values as number[];
    if (SMALLER_IS_WORSE.has(key)) return Math.min(...ns);
    if (LARGER_IS_WORSE.has(key)) return Math.max(...ns);
    return undefined;
  }
  if (values.every((v) => typeof v === 'boolean') && FALSE_IS_WORSE.has(key)) return false;
  if (key === 'method' && values.every((v) => typeof v === 'string' && METHOD_COST.includes(v))) {
    return METHOD_COST[Math.min(...values.map((v) => METHOD_COST.indexOf(v as string)))];
  }
  return undefined;
}
