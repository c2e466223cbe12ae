// Jupyter notebooks (.ipynb): the code cells read as one Python script (the Python analyzer's), each source line put
// on the line the notebook's JSON has it, so that a fact's line is the file's line; spans are mapped back from the
// script to the JSON text, escapes and all. IPython's shell escapes and line magics (`!pip install ...`, `%env ...`)
// are read as comments, as is a cell whose cell magic runs something other than Python (`%%bash`, `%%writefile
// config.yaml`); `%%capture`, `%%time` and `%%writefile train.py` cells are Python. The cells after the last that
// trains are not read. A notebook none of whose cells trains but whose shell commands launch a run (`!python train.py
// ...`, `!accelerate launch ...`, a `%%bash` cell) is read as the shell script those commands make. A notebook takes
// no quick fix (its cells are edited in the notebook). Pure: no I/O.
import { parseTree, type Node } from 'jsonc-parser';
import { msg, type ConfigFacts, type ParseProblem, type Span } from './facts';
import { notAnalyzed, tooLarge } from './guards';
import { movedSpans } from './moved-spans';
import { analyzeHfPython } from './hf-python';
import { withWrittenConfigs, writtenFiles, type WrittenFile } from './hf-python/written-files';
import { analyzeShell } from './shell';
import type { Env } from './shell/fields';
import { lineIndex, lineStarts } from './line-index';
import { TRAINS, callPattern, trainingFunctions } from './trains';

/** The code cells as one script, and where each of its characters is written in the notebook's JSON. */
export interface NotebookScript {
  readonly text: string;
  /** Where in the JSON text the script's character at `offset` is written (the end of the text past the script). */
  readonly rawOffset: (offset: number) => number;
  /** Where in the JSON text the script's character at `offset` ends (after its escape: `\\"` is two characters). */
  readonly rawEnd: (offset: number) => number;
}

/** A notebook's code: its Python, its shell commands (`!cmd` lines and `%%bash` cells), and whether a cell trains. */
export interface NotebookCode extends NotebookScript {
  readonly shell: NotebookScript;
  readonly trains: boolean;
  /** The files its `%%writefile <name>` cells write (a config a launch line then reads), Python files aside. */
  readonly written: readonly WrittenFile[];
  /** Its code cells hold more than the Python analyzer reads (guards.ts): they are not read, and this says so. */
  readonly tooLarge?: ParseProblem;
}

const NO_SCRIPT: NotebookScript = { text: '', rawOffset: () => 0, rawEnd: () => 0 };

/** Cell magics whose body is Python (IPython's %%capture, %%time, %%timeit; %%writefile of a .py file). */
const PYTHON_CELL_MAGIC = /^%%(capture|time|timeit|prun)\b|^%%writefile\s+(-a\s+)?\S+\.py\s*$/;
/** Cell magics whose body is a shell script. */
const SHELL_CELL_MAGIC = /^%%(bash|sh|script\s+(ba)?sh)\b/;

/** The code cells of a notebook's JSON text; undefined when the text is no notebook. */
export function notebookCode(raw: string): NotebookCode | undefined {
  const root = parseTree(raw, [], { allowTrailingComma: true, disallowComments: false });
  const cells = root?.type === 'object' ? property(root, 'cells') : undefined;
  if (!cells || cells.type !== 'array') return undefined;
  const code: Node[][] = [];
  for (const cell of cells.children ?? []) {
    if (cell.type !== 'object' || property(cell, 'cell_type')?.value !== 'code') continue;
    const source = property(cell, 'source');
    const strings = source?.type === 'array' ? (source.children ?? []) : source ? [source] : [];
    code.push(strings.filter((s) => s.type === 'string'));
  }
  // The cells after the last that trains (`trainer.train()`, `.fit(`, a loop's `.backward(`, or a call of a function
  // of the notebook that does) test, merge or reload what was trained (`from_pretrained("outputs/merged")`): they are
  // not the run.
  const texts = code.map((strings) => strings.map((s) => String(s.value)).join(''));
  // Cells over the Python analyzer's limit are not read (each character's place would be kept: seconds for megabytes).
  const large = tooLarge(
    texts.reduce((n, t) => n + t.length, 0),
    'python',
  );
  if (large) return { ...NO_SCRIPT, shell: NO_SCRIPT, trains: false, written: [], tooLarge: large };
  // Top-level `def` blocks of the cells: the functions that train, or call one that does (rohan-paul's notebooks
  // define `train_and_save_model(trainer, ...)` in one cell and run the pipeline from another).
  const trainers = trainingFunctions(texts.flatMap(topLevelDefs));
  const calls = callPattern(trainers);
  const trains = texts.map((t) => TRAINS.test(t) || calls?.test(t) === true);
  const last = trains.lastIndexOf(true);
  const builder = new CellReader(raw);
  for (const strings of last < 0 ? code : code.slice(0, last + 1)) builder.cell(strings);
  return { ...builder.python.done(), shell: builder.shell.done(), trains: last >= 0, written: writtenCells(texts) };
}

/** `%%writefile config.yaml` cells: the file each writes (its body, after the magic line); Python files aside. */
function writtenCells(texts: readonly string[]): WrittenFile[] {
  const out: WrittenFile[] = [];
  for (const t of texts) {
    const m = /^%%writefile[ \t]+(?:-a[ \t]+)?(\S+)[ \t]*\r?\n/.exec(t);
    if (m && !/\.py$/i.test(m[1])) out.push({ path: m[1].replace(/^(['"])(.*)\1$/, '$2'), text: t.slice(m[0].length) });
  }
  return out;
}

/** `def name(...)` blocks at a cell's top level: the name and the block's text up to the next unindented line. */
function topLevelDefs(text: string): { name: string; body: string }[] {
  const out: { name: string; body: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:async\s+)?def\s+(\w+)\s*\(/.exec(lines[i]);
    if (!m) continue;
    let j = i + 1;
    while (j < lines.length && (/^\s/.test(lines[j]) || /^\s*(#.*)?$/.test(lines[j]))) j++;
    out.push({ name: m[1], body: lines.slice(i, j).join('\n') });
    i = j - 1;
  }
  return out;
}

function property(obj: Node, key: string): Node | undefined {
  for (const p of obj.children ?? []) if (p.children?.[0]?.value === key) return p.children[1];
  return undefined;
}

/** One script built line by line, each character with its place in the JSON text. */
class ScriptSink {
  private readonly chars: string[] = [];
  private readonly offsets: number[] = [];
  private readonly ends: number[] = [];
  line = 0;

  constructor(private readonly rawLength: number) {}

  push(c: string, offset: number, end: number): void {
    this.chars.push(c);
    this.offsets.push(offset);
    this.ends.push(end);
    if (c === '\n') this.line++;
  }

  /** Ends the current line, if one is open. */
  endLine(at: number): void {
    if (this.chars.length && this.chars[this.chars.length - 1] !== '\n') this.push('\n', at, at);
  }

  done(): NotebookScript {
    const { offsets, ends, rawLength } = this;
    return {
      text: this.chars.join(''),
      rawOffset: (i) => (i < offsets.length ? offsets[i] : rawLength),
      rawEnd: (i) => (i < ends.length ? ends[i] : rawLength),
    };
  }
}

/** What a line of a cell is: Python, a shell command (`!cmd` and its `\\` continuations, a %%bash body) or neither. */
type LineKind = 'python' | 'shell' | 'comment';

/** Reads the code cells into a Python script and a shell script, each line where the JSON has it. */
class CellReader {
  readonly python: ScriptSink;
  readonly shell: ScriptSink;
  private readonly lineStarts: number[];

  constructor(private readonly raw: string) {
    this.lineStarts = lineStarts(raw);
    this.python = new ScriptSink(raw.length);
    this.shell = new ScriptSink(raw.length);
  }

  /** One code cell: its strings, each decoded where the JSON writes it; the cell ends its last line. */
  cell(strings: readonly Node[]): void {
    const decoded = strings.map((s) => decode(this.raw, s));
    const firstLine = decoded
      .map((d) => d.text)
      .join('')
      .split('\n', 1)[0];
    const cellKind: LineKind = !firstLine.startsWith('%%')
      ? 'python'
      : PYTHON_CELL_MAGIC.test(firstLine)
        ? 'python'
        : SHELL_CELL_MAGIC.test(firstLine)
          ? 'shell'
          : 'comment';
    let kind: LineKind | undefined;
    let magicLine = true;
    let continued = false;
    let prev = '';
    for (let k = 0; k < strings.length; k++) {
      // Each string on the scripts' line of the same number, while the lines allow (a string with several lines in
      // it pushes the next ones down).
      const at = lineIndex(this.lineStarts, strings[k].offset);
      for (const sink of [this.python, this.shell])
        while (sink.line < at) sink.push('\n', strings[k].offset, strings[k].offset);
      const { text, offsets, ends } = decoded[k];
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        let first = false;
        if (c !== '\n' && c !== ' ' && c !== '\t' && kind === undefined) {
          first = true;
          kind = lineKind(cellKind, magicLine, continued, c);
          magicLine = false;
        }
        // In the Python script a line that is not Python is a comment (its first character a `#`); in the shell
        // script `!` is a blank, and a line that is no command keeps only its indentation (a continuation line's
        // blanks part its words from the line before).
        this.python.push(first && kind !== 'python' ? '#' : c, offsets[i], ends[i]);
        if (kind === 'shell' || kind === undefined) this.shell.push(first && c === '!' ? ' ' : c, offsets[i], ends[i]);
        else if (c === '\n') this.shell.push(c, offsets[i], ends[i]);
        if (c === '\n') {
          continued = kind === 'shell' && prev === '\\';
          kind = undefined;
        }
        if (c !== '\n' && c !== ' ' && c !== '\t') prev = c;
      }
    }
    const last = strings[strings.length - 1];
    const after = last ? last.offset + last.length : this.raw.length;
    this.python.endLine(after);
    this.shell.endLine(after);
  }
}

/** The kind of a cell's line from its first character: `!` a shell command, `%` a magic, else the cell's kind. */
function lineKind(cellKind: LineKind, magicLine: boolean, continued: boolean, first: string): LineKind {
  if (cellKind !== 'python') return magicLine ? 'comment' : cellKind;
  if (continued || first === '!') return 'shell';
  return first === '%' ? 'comment' : 'python';
}

/** A JSON string's characters, and where in `raw` each is written and ends (an escape: from its backslash). */
function decode(raw: string, node: Node): { text: string; offsets: number[]; ends: number[] } {
  const out: string[] = [];
  const offsets: number[] = [];
  const ends: number[] = [];
  const end = node.offset + node.length - 1;
  for (let i = node.offset + 1; i < end; i++) {
    const c = raw[i];
    offsets.push(i);
    if (c !== '\\') {
      out.push(c);
      ends.push(i + 1);
      continue;
    }
    const e = raw[i + 1];
    if (e === 'u') {
      out.push(String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16) || 0xfffd));
      i += 5;
    } else {
      out.push({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' }[e as 'n'] ?? e ?? '');
      i += 1;
    }
    ends.push(i + 1);
  }
  return { text: out.join(''), offsets, ends };
}

/** `NAME = 32`, `NAME = 'full'` at a cell's top level: a number or a plain string, its value as the shell reads it. */
const PYTHON_LITERAL =
  /^([A-Za-z_]\w*)[ \t]*=[ \t]*(-?\d+(?:\.\d+)?(?:e-?\d+)?|'[^'\\\n]*'|"[^"\\\n]*")[ \t]*(?:#.*)?$/gm;

/**
 * The notebook's Python variables that IPython puts into its `!` lines (`--per-device-train-batch-size
 * {TRAIN_BATCH_SIZE}`, or `$TRAIN_BATCH_SIZE`), where a cell's top level sets them to a number or a plain string:
 * each name's last such value, read where the line expands it. Another name stays unknown.
 */
function pythonValues(python: string): Env {
  const env: Env = new Map();
  for (const m of python.matchAll(PYTHON_LITERAL)) {
    const raw = m[2];
    const text = /^['"]/.test(raw) ? raw.slice(1, -1) : raw;
    env.set(m[1], { pieces: [{ text, start: 0, end: 0, exact: false }], exported: false, atUse: true });
  }
  return env;
}

/**
 * The facts of a notebook: its code cells read by the Python analyzer, or, where no cell trains, its shell commands by
 * the shell analyzer; every span moved to where the JSON text has it. A text that is no notebook has none, with a
 * problem that says so.
 */
export function analyzeNotebook(raw: string): ConfigFacts {
  const code = notebookCode(raw);
  if (!code) {
    return {
      format: 'notebook',
      facts: [],
      references: [],
      tools: [],
      problems: [
        {
          code: 'syntax-error',
          severity: 'error',
          span: { start: 0, end: Math.min(1, raw.length) },
          ...msg('{0}: {1}', 'notebook', 'no "cells" list: not a Jupyter notebook'),
        },
      ],
    };
  }
  // Its code over the limits of the analyzers that read it (guards.ts) is not read: the notebook says so, at its top.
  const unread = code.tooLarge ?? notAnalyzed(code.text, 'python') ?? notAnalyzed(code.shell.text, 'shell');
  if (unread) return { format: 'notebook', facts: [], references: [], tools: [], problems: [unread] };
  // A notebook that trains in no cell of its own but runs a launch line (`!python train.py --model_name_or_path ...`,
  // `!accelerate launch ...`) is that launch: read as the shell script its commands make.
  const shell =
    !code.trains && /\S/.test(code.shell.text)
      ? withWrittenConfigs(analyzeShell(code.shell.text, pythonValues(code.text), undefined, { ipython: true }), [
          ...code.written,
          ...writtenFiles(code.text),
        ])
      : undefined;
  const launches = shell !== undefined && (shell.references.length > 0 || shell.facts.length > 0);
  const script: NotebookScript = launches ? code.shell : code;
  const r = launches ? shell : analyzeHfPython(code.text);
  const at = (s: Span): Span => {
    const start = script.rawOffset(s.start);
    return { start, end: s.end > s.start ? script.rawEnd(s.end - 1) : start };
  };
  return { ...movedSpans(r, at), format: 'notebook', ...(launches ? { launchesRun: true as const } : {}) };
}
