// Jupyter notebooks (.ipynb): the code cells read as one Python script (the Python analyzer's), each source line put
// on the line the notebook's JSON has it, so that a fact's line is the file's line; spans are mapped back from the
// script to the JSON text, escapes and all. IPython's shell escapes and line magics (`!pip install ...`, `%env ...`)
// are read as comments, as is a cell whose cell magic runs something other than Python (`%%bash`, `%%writefile
// config.yaml`); `%%capture`, `%%time` and `%%writefile train.py` cells are Python. The cells after the last that
// trains are not read. A notebook takes no quick fix (its cells are edited in the notebook). Pure: no I/O.
import { parseTree, type Node } from 'jsonc-parser';
import { msg, type ConfigFacts, type Span } from './facts';
import { analyzeHfPython } from './hf-python';
import { lineIndex, lineStarts } from './line-index';

/** The code cells as one script, and where each of its characters is written in the notebook's JSON. */
export interface NotebookCode {
  readonly text: string;
  /** Where in the JSON text the script's character at `offset` is written (the end of the text past the script). */
  readonly rawOffset: (offset: number) => number;
  /** Where in the JSON text the script's character at `offset` ends (after its escape: `\\"` is two characters). */
  readonly rawEnd: (offset: number) => number;
}

/** Cell magics whose body is Python (IPython's %%capture, %%time, %%timeit; %%writefile of a .py file). */
const PYTHON_CELL_MAGIC = /^%%(capture|time|timeit|prun)\b|^%%writefile\s+(-a\s+)?\S+\.py\s*$/;

/** The code cells of a notebook's JSON text as one script; undefined when the text is no notebook. */
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
  // The cells after the last that trains (`trainer.train()`, `.fit(`, a loop's `.backward(`) test, merge or reload
  // what was trained (`from_pretrained("outputs/merged")`): they are not the run.
  const trains = code.map((strings) => TRAINS.test(strings.map((s) => String(s.value)).join('')));
  const last = trains.lastIndexOf(true);
  const script = new ScriptBuilder(raw);
  for (const strings of last < 0 ? code : code.slice(0, last + 1)) script.cell(strings);
  return script.done();
}

/** A call that trains: a trainer's `.train(`, Lightning's `.fit(`, a written-out loop's `.backward(`. */
const TRAINS = /\.(train|fit|backward)\s*\(/;

function property(obj: Node, key: string): Node | undefined {
  for (const p of obj.children ?? []) if (p.children?.[0]?.value === key) return p.children[1];
  return undefined;
}

/** Builds the script line by line, keeping each character's offset in the JSON text. */
class ScriptBuilder {
  private readonly chars: string[] = [];
  private readonly offsets: number[] = [];
  private readonly ends: number[] = [];
  private line = 0;
  private readonly lineStarts: number[];

  constructor(private readonly raw: string) {
    this.lineStarts = lineStarts(raw);
  }

  /** One code cell: its strings, each decoded where the JSON writes it; the cell ends its last line. */
  cell(strings: readonly Node[]): void {
    const decoded = strings.map((s) => decode(this.raw, s));
    const whole = decoded.map((d) => d.text).join('');
    const firstLine = whole.split('\n', 1)[0];
    const python = !firstLine.startsWith('%%') || PYTHON_CELL_MAGIC.test(firstLine);
    let lineStart = true;
    for (let k = 0; k < strings.length; k++) {
      // Each string on the script's line of the same number, while the lines allow (a string with several lines in
      // it pushes the next ones down).
      const at = lineIndex(this.lineStarts, strings[k].offset);
      while (this.line < at) this.push('\n', strings[k].offset, strings[k].offset);
      const { text, offsets, ends } = decoded[k];
      for (let i = 0; i < text.length; i++) {
        let c = text[i];
        if (c === '\n') lineStart = true;
        else if (lineStart && c !== ' ' && c !== '\t') {
          // `!cmd` and `%magic` at a line's start, and every line of a cell that is not Python: a comment.
          if (!python || c === '!' || c === '%') c = '#';
          lineStart = false;
        }
        this.push(c, offsets[i], ends[i]);
      }
    }
    const last = strings[strings.length - 1];
    const after = last ? last.offset + last.length : this.raw.length;
    if (this.chars.length && this.chars[this.chars.length - 1] !== '\n') this.push('\n', after, after);
  }

  done(): NotebookCode {
    const text = this.chars.join('');
    const { offsets, ends } = this;
    const end = this.raw.length;
    return {
      text,
      rawOffset: (i) => (i < offsets.length ? offsets[i] : end),
      rawEnd: (i) => (i < ends.length ? ends[i] : end),
    };
  }

  private push(c: string, offset: number, end: number): void {
    this.chars.push(c);
    this.offsets.push(offset);
    this.ends.push(end);
    if (c === '\n') this.line++;
  }
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

/**
 * The facts of a notebook: its code cells read by the Python analyzer, every span moved to where the JSON text has
 * it. A text that is no notebook has none, with a problem that says so.
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
  const r = analyzeHfPython(code.text);
  const at = (s: Span): Span => {
    const start = code.rawOffset(s.start);
    return { start, end: s.end > s.start ? code.rawEnd(s.end - 1) : start };
  };
  return {
    ...r,
    format: 'notebook',
    facts: r.facts.map((f) => ({
      ...f,
      keySpan: at(f.keySpan),
      valueSpan: at(f.valueSpan),
      ...(f.originSpan ? { originSpan: at(f.originSpan) } : {}),
    })),
    problems: r.problems.map((p) => ({ ...p, span: at(p.span) })),
    references: r.references.map((x) => ({ ...x, span: at(x.span) })),
    ...(r.modelBeforeArguments ? { modelBeforeArguments: at(r.modelBeforeArguments) } : {}),
  };
}
