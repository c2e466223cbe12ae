// The DeepSpeed JSON analyzer: reads a ds_config (strict JSON, or the hjson superset DeepSpeed itself loads) with
// jsonc-parser and turns its memory-relevant keys into Facts with exact spans, plus DeepSpeed's batch-size algorithm.
// Pure: no I/O, no node:* and no 'vscode' imports; never throws on user text.
//
// Sources (../shared/FORMATS.md §1): deepspeedai/DeepSpeed@edaa722:deepspeed/runtime/{config.py, constants.py,
// config_utils.py, zero/config.py, zero/offload_config.py}; huggingface/transformers@0234833:
// src/transformers/integrations/deepspeed.py for which "auto" values HF Trainer fills.
//
// The parts: hjson.ts (the pre-pass that lets jsonc-parser read hjson), walker.ts (the walk over the parse tree),
// keys.ts (the keys DeepSpeed knows), batch.ts (the batch-size algorithm), schema.ts (the zod schema behind the
// contributed JSON Schema) and bundled.ts (the DeepSpeed configs Axolotl and LLaMA-Factory ship).
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { MAX_PROBLEMS, msg, type ConfigFacts, type Fact, type ParseProblem } from '../facts';
import { DEEPSPEED_KEYS } from './keys';
import { MAX_DEPTH, prepare, strictProblem } from './hjson';
import { type Prop, Walker } from './walker';
export { AUTO_REASON, DEEPSPEED_KEYS } from './keys';
export { deriveBatch, checkBatchRule } from './batch';
export type { BatchKey, BatchInput, BatchDerivation } from './batch';

const ERROR_TEXT: Partial<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'a key in double quotes is expected here',
  ValueExpected: 'a value is expected here',
  ColonExpected: 'a colon is expected here',
  CommaExpected: 'a comma is expected here',
  CloseBraceExpected: 'a closing } is expected here',
  CloseBracketExpected: 'a closing ] is expected here',
  EndOfFileExpected: 'the JSON ends before this text',
  UnexpectedEndOfComment: 'the comment is not closed',
  UnexpectedEndOfString: 'the string is not closed',
  UnexpectedEndOfNumber: 'the number is cut off',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape in a string',
  InvalidCharacter: 'a control character inside a string',
};

/** The parse errors jsonc-parser reports, located in the original text; hjson's line break for a comma said apart. */
function parseErrors(text: string, w: Walker, errors: readonly ParseError[], problems: ParseProblem[]): void {
  for (const e of errors.slice(0, MAX_PROBLEMS)) {
    const start = w.orig(e.offset);
    const end = Math.max(start, w.orig(e.offset + e.length));
    const code = printParseErrorCode(e.error);
    w.errorOffsets.push(start);
    // hjson lets a line break stand in for a comma.
    if (code === 'CommaExpected' && /[\r\n]/.test(prevGap(text, start))) {
      problems.push(
        strictProblem(
          { start, end },
          msg(
            'a missing comma before this line: DeepSpeed reads it through hjson, ' +
              'but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it',
          ),
        ),
      );
      continue;
    }
    problems.push({
      code: 'syntax-error',
      severity: 'error',
      span: { start, end },
      ...msg('{0} (line {1})', ERROR_TEXT[code] ?? code, w.line(start)),
    });
  }
}

/** One top-level key of the config, read by what it configures. */
function topLevelKey(w: Walker, p: Prop, hasBf16: boolean): void {
  switch (p.name) {
    case 'train_micro_batch_size_per_gpu':
      w.batchKey('microBatchSize', p);
      break;
    case 'gradient_accumulation_steps':
      w.batchKey('gradientAccumulationSteps', p);
      break;
    case 'train_batch_size':
      w.batchKey('trainBatchSize', p);
      break;
    case 'zero_optimization':
      w.zero(p);
      break;
    case 'fp16':
      w.precision('fp16', p);
      break;
    case 'bf16':
      w.precision('bf16', p);
      break;
    case 'bfloat16':
      // The legacy spelling is read only when there is no `bf16` block (config.py get_bfloat16_config).
      w.problem(
        'deprecated-key',
        'warning',
        p.keySpan,
        hasBf16
          ? msg('`bfloat16` is the legacy name of `bf16`, and `bf16` is also given, so this block is ignored')
          : msg('`bfloat16` is the legacy name of this block: use `bf16`'),
        p.path,
      );
      if (!hasBf16) w.precision('bf16', p);
      break;
    case 'optimizer':
      w.optimizer(p);
      break;
    case 'compile':
      w.compile(p);
      break;
    case 'sequence_parallel_size':
      w.sequenceParallel(p);
      break;
    case 'tensor_parallel':
      w.tensorParallel(p);
      break;
    default:
      if (!DEEPSPEED_KEYS.topLevel.has(p.name)) w.unknownKey(p, DEEPSPEED_KEYS.topLevel, false);
  }
}

function analyze(text: string, problems: ParseProblem[]): Fact[] {
  if (text.charCodeAt(0) === 0xfeff) {
    problems.push({
      code: 'syntax-error',
      severity: 'warning',
      span: { start: 0, end: 1 },
      ...msg('the file starts with a byte-order mark, which json.load rejects'),
    });
  }
  const prep = prepare(text, problems);
  const w = new Walker(text, prep, problems);
  if (prep.tooDeep) {
    w.problem(
      'syntax-error',
      'error',
      { start: 0, end: Math.min(1, text.length) },
      msg('the JSON nests deeper than {0} levels; it is not read', MAX_DEPTH),
    );
    return w.facts;
  }
  const errors: ParseError[] = [];
  const root = parseTree(prep.json, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  parseErrors(text, w, errors, problems);
  if (!root) {
    if (text.trim() === '')
      problems.push({
        code: 'syntax-error',
        severity: 'error',
        span: { start: 0, end: 0 },
        ...msg('the file is empty: a DeepSpeed config is a JSON object'),
      });
    return w.facts;
  }
  if (root.type !== 'object') {
    w.problem('invalid-value', 'error', w.span(root), msg('a DeepSpeed config is a JSON object ({ ... })'));
    return w.facts;
  }
  w.checkDuplicates(root);
  const top = w.props(root, '');
  const hasBf16 = top.some((p) => p.name === 'bf16');
  for (const p of top) topLevelKey(w, p, hasBf16);
  // The ZeRO block DeepSpeed reads: the last one (a duplicate key is said where it is).
  w.crossChecks([...top].reverse().find((p) => p.name === 'zero_optimization'));
  return w.facts;
}

/** The whitespace and comments just before an offset (to tell a missing comma at a line break from one inside a line). */
function prevGap(text: string, offset: number): string {
  let i = offset;
  while (i > 0 && /[\s]/.test(text[i - 1])) i--;
  return text.slice(i, offset);
}

/** Reads a DeepSpeed config. Facts follow DeepSpeed's semantics (`tool: 'deepspeed'`); problems are located. */
export function analyzeDeepSpeedJson(text: string): ConfigFacts {
  const problems: ParseProblem[] = [];
  let facts: Fact[] = [];
  try {
    facts = analyze(typeof text === 'string' ? text : String(text), problems);
  } catch (err) {
    // A last guard so that an editor or CLI never sees an exception from user text (e.g. a stack overflow).
    problems.push({
      code: 'syntax-error',
      severity: 'error',
      span: { start: 0, end: 0 },
      ...msg('the file could not be read: {0}', err instanceof Error ? err.message : String(err)),
    });
  }
  return { format: 'deepspeed-json', facts, problems, references: [], tools: ['deepspeed'] };
}
