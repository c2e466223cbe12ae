// Interpreter: walks the commands in order, keeps the variables the script sets (through `if`, `case` and loops,
// merged where branches disagree), and analyzes each launch. Pure: no I/O, no node:* and no 'vscode'.
import { lineIndex, lineStarts } from '../line-index';
import type { ParseProblem, Reference } from '../facts';
import { type Heredoc, type WordTok, type OpTok, type Tok, Lexer, REDIRECTS } from './lexer';
import {
  type Piece,
  type VarVal,
  type Env,
  type Field,
  ARGUMENT_LOOP,
  arrayPieces,
  scriptArgumentOfLoop,
  MAX_VALUE_CHARS,
  MAX_VALUE_PIECES,
  tooLong,
} from './fields';
import { expandSegs, fieldsOf } from './expand';
import { changedFolder, inFolder } from './folders';
import { type CmdResult, shellScriptOf } from './launch';
import { innerScriptText, MAX_NESTED_SCRIPTS, MAX_NESTING, type Nesting, withoutDropped } from './nested';
import {
  type Tri,
  type IfFrame,
  type LoopFrame,
  type CaseFrame,
  type Frame,
  type Command,
  and3,
  or3,
  literalWord,
  assignParts,
  commandOutcome,
  evalTest,
  isTestCommand,
} from './syntax';
import { layer, shallow } from './layers';
import { mergeEnvs } from './merge';
import { lineLaunch } from './command-choices';
import { argumentDefault, carriedChoices } from './choices';
import { readHeredoc } from './read';
import { copiedConfig } from './copied-config';
import { type Narrowing, applyNarrowing, emptinessTest, narrowingOf } from './narrow';
import { shiftArguments } from './argv';
import { runOptionLoop } from './option-loop';
import { sourceFile, type SourcedVariables } from './sourced';
import { exportedOnly, withEnvironment } from './called-script';
import { PassThroughFunctions } from './pass-through';

export { chooseWorst } from './choices';

/** The most tokens of a `while` / `until` condition looked at for the script's arguments. */
const MAX_CONDITION_TOKENS = 64;

/** A `while` / `until` condition that reads the script's arguments: `$1`, `$#`, `getopts`. */
const ARGUMENT_TEST = /\$\{?[1#]\}?|\bgetopts\b/;

export class Interpreter {
  env: Env;
  readonly frames: Frame[] = [];
  dead = false;
  pos = 0;
  negate = false;
  pendingFunc = false;
  private readonly passThrough = new PassThroughFunctions();
  lastTri: Tri = true;
  /** The last command's test of a variable's emptiness, for an assignment after `&&` / `||` (narrow.ts). */
  lastNarrowing: Narrowing | undefined;
  readonly results: CmdResult[] = [];
  readonly problems: ParseProblem[] = [];
  /** The files the script sources (`source file.sh`), as references. */
  readonly sources: Reference[] = [];
  /** The absolute folder a `cd` moved to (`cd /app/project/src`), known statically; undefined before any. */
  private cwd: string | undefined;
  private readonly nesting: Nesting;

  /**
   * @param nesting where a `-c` string's interpreter sits (innerScript); a file's own has none.
   * @param sourced the variables of the files the script sources, as the pipeline read them.
   */
  constructor(
    private readonly text: string,
    private readonly toks: Tok[],
    seeds: Env,
    nesting?: Nesting,
    private readonly sourced?: SourcedVariables,
  ) {
    this.env = new Map(seeds);
    this.nesting = nesting ?? { lineStarts: lineStarts(text), depth: 0, count: { scripts: 0 } };
  }

  private get lineStarts(): number[] {
    return this.nesting.lineStarts;
  }

  lineOf(offset: number): number {
    return lineIndex(this.lineStarts, offset) + 1;
  }

  // ----- control flow -----

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

  /** The variables where the first condition of an `if` failed: its snapshot, the tested variable narrowed. */
  private elseEnv(f: IfFrame): Env {
    const env = layer(f.snapshot);
    if (f.narrowing) applyNarrowing(env, f.narrowing, false);
    return env;
  }

  /** Handles a reserved word at the start of a command; false when the word is not one. */
  private keyword(kw: string, t: WordTok): boolean {
    const line = this.lineOf(t.start);
    switch (kw) {
      case 'for':
      case 'select':
        this.parseFor(line);
        return true;
      case 'case':
        this.openCase(line);
        return true;
      case 'function':
        this.functionKeyword();
        return true;
      case 'if':
        this.openIf(line);
        break;
      case 'then':
        this.ifThen();
        break;
      case 'elif':
      case 'else':
        this.ifElse(kw);
        break;
      case 'fi':
        this.closeIf();
        break;
      case 'while':
      case 'until':
        this.openLoop(line);
        break;
      case 'do':
        break;
      case 'done':
        this.closeLoop();
        break;
      case 'esac':
        this.closeCase();
        break;
      case '{':
        this.openGroup();
        break;
      case '}':
        this.closeGroup();
        break;
      case '!':
        this.negate = true;
        break;
      default:
        return false;
    }
    this.pos++;
    return true;
  }

  private openIf(line: number): void {
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
  }

  private ifThen(): void {
    const top = this.top();
    if (top?.kind !== 'if') return;
    if (top.branches.some((b) => b.cond === true)) top.cond = false;
    top.state = 'body';
    this.dead = top.parentDead || top.cond === false;
    if (top.narrowing && top.branches.length === 0) applyNarrowing(this.env, top.narrowing, true);
  }

  private ifElse(kw: 'elif' | 'else'): void {
    const top = this.top();
    if (top?.kind !== 'if') return;
    top.branches.push({ env: this.env, cond: top.cond });
    this.env = this.elseEnv(top);
    this.dead = top.parentDead;
    if (kw === 'elif') {
      top.state = 'cond';
      top.cond = undefined;
      return;
    }
    top.sawElse = true;
    top.state = 'body';
    top.cond = this.branchCondElse(top);
    this.dead = top.parentDead || top.cond === false;
  }

  /** `fi`: the variables of the branches that may run, merged (the one branch that runs, where it is known). */
  private closeIf(): void {
    const top = this.top();
    if (top?.kind !== 'if') return;
    this.frames.pop();
    top.branches.push({ env: this.env, cond: top.cond });
    if (!top.sawElse) top.branches.push({ env: this.elseEnv(top), cond: this.branchCondElse(top) });
    const live = top.branches.filter((b) => b.cond !== false);
    const envs = live.length > 0 ? live.map((b) => b.env) : [top.snapshot];
    this.env = envs.length === 1 ? envs[0] : mergeEnvs(envs, top.line, '`if`', top.snapshot);
    this.dead = top.parentDead;
  }

  private openLoop(line: number): void {
    this.frames.push({
      kind: 'loop',
      line,
      snapshot: (this.env = shallow(this.env)),
      parentDead: this.dead,
      runsOnce: false,
      overArguments: ARGUMENT_TEST.test(this.conditionText()),
      start: this.pos,
    });
    this.env = layer(this.env);
  }

  private closeLoop(): void {
    const top = this.top();
    if (top?.kind === 'loop') this.endLoop(top);
  }

  /** `case WORD in`: past the word and `in`, its branches to come. */
  private openCase(line: number): void {
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
  }

  private closeCase(): void {
    const top = this.top();
    if (top?.kind !== 'case') return;
    if (top.state === 'body') top.branches.push(this.env);
    this.finishCase(top);
  }

  /** `{`: a group, or a function's body after `name()` or `function name`. */
  private openGroup(): void {
    this.passThrough.groupOpens(this.pendingFunc);
    this.frames.push({
      kind: this.pendingFunc ? 'func' : 'group',
      snapshot: (this.env = shallow(this.env)),
      parentDead: this.dead,
    });
    this.env = layer(this.env);
    this.pendingFunc = false;
  }

  private closeGroup(): void {
    const top = this.top();
    if (!top || (top.kind !== 'group' && top.kind !== 'func')) return;
    this.passThrough.groupCloses();
    this.frames.pop();
    if (top.kind === 'func') this.env = top.snapshot;
    this.dead = top.parentDead;
  }

  /** `function name` (and its optional `()`): the group that follows is the function's body. */
  private functionKeyword(): void {
    const name = this.toks[this.pos + 1];
    this.passThrough.named(name?.t === 'word' ? literalWord(name) : undefined);
    this.pos += 2;
    const a = this.toks[this.pos];
    const b = this.toks[this.pos + 1];
    if (a?.t === 'op' && a.op === '(' && b?.t === 'op' && b.op === ')') this.pos += 2;
    this.pendingFunc = true;
  }

  private finishCase(top: CaseFrame): void {
    this.frames.pop();
    const envs = top.sawDefault ? top.branches : [...top.branches, top.snapshot];
    this.env = envs.length ? mergeEnvs(envs, top.line, '`case`', top.snapshot) : top.snapshot;
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

  /** `done`: what the loop set, merged with what was set before it unless it runs exactly once. */
  private endLoop(top: LoopFrame): void {
    this.frames.pop();
    // A loop over the options a calling script passes, run over them (option-loop.ts).
    const ran = top.overArguments && top.start !== undefined && !top.parentDead;
    const range = { from: top.start!, to: this.pos, variable: top.variable };
    const parsed = ran ? runOptionLoop(this.text, this.toks, range, top.snapshot) : undefined;
    const what = top.overArguments ? ARGUMENT_LOOP : 'loop';
    this.env = parsed ?? (top.runsOnce ? this.env : mergeEnvs([top.snapshot, this.env], top.line, what, top.snapshot));
    this.dead = top.parentDead;
  }

  /** The words of a `while` / `until` condition, as written: from after the keyword to its `do`. */
  private conditionText(): string {
    let end = this.pos + 1;
    // A condition is a few words; the bound keeps a file of `while`s without `do` linear.
    const bound = Math.min(this.toks.length, this.pos + 1 + MAX_CONDITION_TOKENS);
    while (end < bound) {
      const x = this.toks[end];
      if (x.t === 'word' && literalWord(x) === 'do') break;
      end++;
    }
    const first = this.toks[this.pos + 1];
    const last = this.toks[end - 1];
    return first && last && end > this.pos + 1 ? this.text.slice(first.start, last.end) : '';
  }

  private parseFor(line: number): void {
    const start = this.pos++;
    const n = this.toks[this.pos];
    const frame: LoopFrame = {
      kind: 'loop',
      line,
      snapshot: (this.env = shallow(this.env)),
      parentDead: this.dead,
      runsOnce: false,
      start,
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
    // `for a in "$@"` (or no `in`): each `a` is one of the script's arguments, and the loop runs no time without them.
    const overArguments =
      !hasIn || (words.length === 1 && /^"?\$[@*]"?$/.test(this.text.slice(words[0].start, words[0].end)));
    frame.overArguments = overArguments;
    if (this.dead || !/^[A-Za-z_]\w*$/.test(name)) return;
    frame.variable = name;
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
      const reason = overArguments
        ? scriptArgumentOfLoop(name, line)
        : `\`${name}\` is the variable of the \`for\` loop at line ${line} (${list || 'no items'})`;
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
    const arrays = new Map<WordTok, WordTok[]>();
    const heredocs: Heredoc[] = [];
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
          if (t.heredoc) heredocs.push(t.heredoc);
          this.pos++;
          continue;
        }
        if (t.op === '(') {
          const next = toks[this.pos + 1];
          const last = words[words.length - 1];
          if (words.length === 1 && next?.t === 'op' && next.op === ')') {
            this.pendingFunc = true;
            this.passThrough.named(literalWord(words[0]));
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
            arrays.set(last, this.readArrayElements());
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
    return words.length ? { words, arrays, heredocs } : undefined;
  }

  /** The words of an array assignment's parentheses (`NAME=( ... )`), read up to the closing one. */
  private readArrayElements(): WordTok[] {
    const toks = this.toks;
    const elements: WordTok[] = [];
    let depth = 0;
    while (this.pos < toks.length) {
      const x = toks[this.pos++];
      if (x.t === 'op' && x.op === '(') depth++;
      else if (x.t === 'op' && x.op === ')') depth--;
      else if (x.t === 'word' && depth === 1) elements.push(x);
      if (depth <= 0) break;
    }
    return elements;
  }

  /** A test of a variable's emptiness (narrow.ts), its sides swapped under `!`. */
  private narrowingOfTest(words: readonly WordTok[], env: Env, negate: boolean): Narrowing | undefined {
    const test = emptinessTest(this.text, words);
    const n = test && narrowingOf(test, env);
    return n && negate ? { ...n, whenTrue: n.whenFalse, whenFalse: n.whenTrue } : n;
  }

  private assign(
    w: WordTok,
    env: Env,
    exported: boolean,
    mode: 'set' | 'skip' | 'maybe',
    array: readonly WordTok[] | undefined,
    kept?: Narrowing & { skippedSide: boolean },
  ): void {
    const p = assignParts(w);
    if (!p || mode === 'skip') return;
    let old = env.get(p.name);
    // An array's elements are its words as the shell splits them at the assignment (`A=( $X )` splits $X).
    let elements: (readonly Piece[])[] | undefined = array
      ? array.flatMap((e) => fieldsOf(this.text, [e], env).map((f) => f.pieces.map((x) => ({ ...x, split: false }))))
      : undefined;
    let pieces: Piece[] = elements
      ? arrayPieces(elements)
      : expandSegs(this.text, p.valueSegs, env, false).map((x) => (x.split === false ? x : { ...x, split: false }));
    if (p.append && old) {
      if (elements) elements = [...(old.elements ?? [old.pieces]), ...elements];
      pieces = elements ? arrayPieces(elements) : [...old.pieces, ...pieces];
    }
    // A value that doubles at every line (`X="$X$X"`) would grow past memory: past the bound it is not expanded (said).
    if (tooLong(pieces)) {
      const reason = `\`${p.name}\` grows past ${MAX_VALUE_CHARS / 1024} KiB or ${MAX_VALUE_PIECES} parts here: not expanded`;
      pieces = [{ text: '', start: p.valueSpan.start, end: p.valueSpan.end, exact: false, unknown: reason }];
      elements = undefined;
    }
    let val: VarVal = {
      pieces,
      exported: exported || (old?.exported ?? false),
      nameSpan: p.nameSpan,
      valueSpan: p.valueSpan,
      ...(elements ? { elements } : {}),
    };
    if (!elements)
      val =
        argumentDefault(this.text, p.valueSegs, val, this.lineOf(w.start), env) ??
        (p.append ? undefined : carriedChoices(this.text, p.valueSegs, env, val)) ??
        val;
    if (mode === 'maybe') {
      if (kept?.name === p.name) {
        const side = new Map(old ? [[p.name, old]] : []);
        applyNarrowing(side, kept, kept.skippedSide);
        old = side.get(p.name);
      }
      const tmpA: Env = new Map(old ? [[p.name, old]] : []);
      const tmpB: Env = new Map([[p.name, val]]);
      val = mergeEnvs([tmpA, tmpB], this.lineOf(w.start), 'condition').get(p.name) ?? val;
    }
    env.set(p.name, val);
  }

  private exec(cmd: Command, connector: string | undefined): void {
    const negate = this.negate;
    this.negate = false;
    const words = cmd.words;
    const priorNarrowing = this.lastNarrowing;
    this.lastNarrowing = undefined;
    if (this.dead) return;
    let i = 0;
    while (i < words.length && assignParts(words[i])) i++;
    if (i === words.length) {
      this.assignmentsOnly(cmd, connector, priorNarrowing);
      return;
    }
    let env = this.env;
    if (i > 0) {
      env = new Map(this.env);
      for (const w of words.slice(0, i)) this.assign(w, env, true, 'set', cmd.arrays.get(w));
    }
    this.passThrough.command(this.text, words, i);
    // A top-level `exit`, not after `&&` / `||`, ends the script (thesis_app's llama2_7B.sh: a launch kept below it).
    const exits = literalWord(words[i]) === 'exit' && connector === undefined && this.frames.length === 0;
    if (exits) this.dead = true;
    if (exits || this.builtin(cmd, i, env)) return;
    let fields = fieldsOf(this.text, words.slice(i), env);
    if (!fields.length) return;
    // A call of the script's function that runs its arguments: the command is the words after its own.
    const own = this.passThrough.ownWords(fields[0].text);
    if (own !== undefined && fields.length > own && fieldsOf(this.text, words.slice(i, i + own), env).length === own)
      [i, fields] = [i + own, fields.slice(own)];
    this.noteOutcome(fields, words.slice(i), env, { negate, connector });
    if (fields[0].text === 'read' && cmd.heredocs.length) {
      readHeredoc(
        this.text,
        fields,
        cmd.heredocs[cmd.heredocs.length - 1],
        this.env,
        this.lineOf(cmd.heredocs[0].opStart),
      );
      return;
    }
    if (this.innerScript(fields, env)) return;
    const r = lineLaunch(this.text, words.slice(i), fields, env);
    if (!r) return;
    const placed = withEnvironment(this.cwd === undefined ? r : inFolder(r, this.cwd), env);
    const branch = this.frames.some((f) => f.kind === 'if' || f.kind === 'case') ? { conditional: true } : {};
    this.results.push({ ...placed, at: { start: words[i].start, end: words[i].end }, ...branch });
  }

  /**
   * A command of assignments only (`X=1 Y=2`): set, skipped or maybe set by the `&&` / `||` before it, as the previous
   * command's outcome decides; `[ -z "$X" ] && X=default` keeps, where the assignment does not run, the values of X
   * that skip it.
   */
  private assignmentsOnly(cmd: Command, connector: string | undefined, priorNarrowing: Narrowing | undefined): void {
    const prior = this.lastTri;
    const runs = connector === '&&' ? prior : connector === '||' ? (prior === undefined ? undefined : !prior) : true;
    const mode = runs === true ? 'set' : runs === false ? 'skip' : 'maybe';
    const skippedSide = connector === '&&' ? false : connector === '||' ? true : undefined;
    const kept = skippedSide === undefined || !priorNarrowing ? undefined : { ...priorNarrowing, skippedSide };
    for (const w of cmd.words) this.assign(w, this.env, false, mode, cmd.arrays.get(w), kept);
    this.lastTri = true;
  }

  /** The builtins that change the shell's variables or read a file (export / declare, shift, source, unset): handled. */
  private builtin(cmd: Command, i: number, env: Env): boolean {
    const words = cmd.words;
    const head = literalWord(words[i]);
    if (head && ['export', 'declare', 'typeset', 'local', 'readonly'].includes(head)) {
      let exported = head === 'export';
      for (const w of words.slice(i + 1)) {
        const lit = literalWord(w);
        if (lit && /^[-+][a-zA-Z]+$/.test(lit)) {
          if (lit.includes('x')) exported = true;
          continue;
        }
        if (assignParts(w)) this.assign(w, this.env, exported, 'set', cmd.arrays.get(w));
        else if (lit && exported && this.env.has(lit)) this.env.set(lit, { ...this.env.get(lit)!, exported: true });
      }
      this.lastTri = true;
      return true;
    }
    if (head === 'shift' && shiftArguments(this.env, words.length > i + 1 ? Number(literalWord(words[i + 1])) : 1))
      return true;
    if (head === 'source' || head === '.') {
      const [path, ...args] = fieldsOf(this.text, words.slice(i + 1), env);
      const ref = sourceFile(path, args, this.env, this.sourced);
      if (ref) this.sources.push(ref);
      return true;
    }
    const copied = head === 'cp' ? copiedConfig(this.text, words.slice(i + 1), env) : undefined;
    if (copied) this.env.set(copied.name, copied.value);
    if (head === 'cd') {
      this.cwd = changedFolder(this.cwd, fieldsOf(this.text, words.slice(i + 1), env));
      this.lastTri = true;
      return true;
    }
    if (head !== 'unset') return false;
    for (const lit of words.slice(i + 1).map(literalWord)) if (lit) this.env.delete(lit);
    this.lastTri = true;
    return true;
  }

  /**
   * A command's outcome as far as it is known (a test, `true`, `false`; other commands are assumed to succeed, so
   * `mkdir -p x && X=1` sets X, while a test with an unknown outcome does not), and in an `if`'s condition the
   * branch's condition and the narrowing of a variable its test gives.
   */
  private noteOutcome(
    fields: ReturnType<typeof fieldsOf>,
    words: Command['words'],
    env: Env,
    { negate, connector }: { negate: boolean; connector: string | undefined },
  ): void {
    const top = this.top();
    const inCond = top?.kind === 'if' && top.state === 'cond';
    const isTest = isTestCommand(fields[0].text);
    const tested = isTest ? evalTest(fields) : undefined;
    const narrowing = isTest && tested === undefined ? this.narrowingOfTest(words, env, negate) : undefined;
    const tri = commandOutcome(fields[0].text, tested, negate, narrowing);
    this.lastNarrowing = narrowing;
    if (inCond && top?.kind === 'if' && connector === undefined && top.branches.length === 0) top.narrowing = narrowing;
    if (inCond && top?.kind === 'if')
      top.cond = connector === '&&' ? and3(top.cond, tri) : connector === '||' ? or3(top.cond, tri) : tri;
    this.lastTri = isTest ? tri : (tri ?? true);
  }

  /**
   * `srun ... bash -c "..."` (one quoted word): its commands run as a script of their own, read where they are written
   * (nested.ts innerScriptText), with the outer variables a double-quoted string expands (the exported ones for a
   * single-quoted one). False when the string is not such a word or holds no launch: the command is read as before.
   */
  private innerScript(fields: readonly Field[], env: Env): boolean {
    const { depth, count } = this.nesting;
    if (depth >= MAX_NESTING || count.scripts >= MAX_NESTED_SCRIPTS) return false;
    const found = shellScriptOf(fields, env);
    const inner = found && innerScriptText(this.text, found.script);
    if (!found || inner === undefined) return false;
    count.scripts++;
    const singleQuoted = this.text[found.script.span.start - 1] === "'";
    const seeds = singleQuoted ? exportedOnly(found.env) : found.env;
    const sub = new Interpreter(inner, new Lexer(inner).run().toks, seeds, {
      lineStarts: this.lineStarts,
      depth: depth + 1,
      count,
    });
    sub.run();
    if (!sub.results.length) return false;
    this.results.push(...withoutDropped(sub.results));
    this.problems.push(...withoutDropped(sub.problems));
    return true;
  }
}
