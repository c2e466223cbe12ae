// The DeepSpeed JSON analyzer: reads a ds_config (strict JSON, or the hjson superset DeepSpeed itself loads) with
// jsonc-parser and turns its memory-relevant keys into Facts with exact spans, plus DeepSpeed's batch-size algorithm.
// Pure: no I/O, no node:* and no 'vscode' imports; never throws on user text.
//
// Sources (../shared/FORMATS.md §1): deepspeedai/DeepSpeed@edaa722:deepspeed/runtime/{config.py, constants.py,
// config_utils.py, zero/config.py, zero/offload_config.py}; huggingface/transformers@0234833:
// src/transformers/integrations/deepspeed.py for which "auto" values HF Trainer fills.
import { createScanner, parseTree, printParseErrorCode, SyntaxKind, type Node, type ParseError } from 'jsonc-parser';
import { MAX_PROBLEMS, msg, normalizeOptimizer, type CanonicalKey, type Message, type ConfigFacts, type Fact, type FactValue, type ParseProblem,
  type Span, type Unknown } from './facts';

/** The reason carried by facts whose value is "auto" (resolve fills them from TrainingArguments or the launcher). */
export const AUTO_REASON = 'auto: filled from TrainingArguments / launcher';

/** Keys DeepSpeed knows, per block (deepspeed/runtime/constants.py, zero/config.py, zero/offload_config.py @edaa722). */
export const DEEPSPEED_KEYS: {
  readonly topLevel: ReadonlySet<string>;
  readonly zeroOptimization: ReadonlySet<string>;
  readonly offloadOptimizer: ReadonlySet<string>;
  readonly offloadParam: ReadonlySet<string>;
} = {
  topLevel: new Set([
    'train_batch_size', 'train_micro_batch_size_per_gpu', 'gradient_accumulation_steps', 'steps_per_print', 'dump_state',
    'disable_allgather', 'communication_data_type', 'seq_parallel_comm_data_type', 'prescale_gradients', 'gradient_predivide_factor',
    'sparse_gradients', 'gradient_clipping', 'graph_harvesting', 'fp16', 'bf16', 'bfloat16', 'amp', 'torch_autocast', 'optimizer',
    'scheduler', 'zero_optimization', 'zero_allow_untested_optimizer', 'zero_force_ds_cpu_optimizer', 'activation_checkpointing',
    'wall_clock_breakdown', 'memory_breakdown', 'flops_profiler', 'comms_logger', 'tensorboard', 'wandb', 'csv_monitor', 'comet',
    'elasticity', 'sparse_attention', 'pipeline', 'progressive_layer_drop', 'curriculum_learning', 'data_efficiency', 'eigenvalue',
    'quantize_training', 'compression_training', 'weight_quantization', 'checkpoint', 'data_types', 'aio', 'nebula', 'autotuning',
    'hybrid_engine', 'compile', 'timers', 'tensor_parallel', 'expert_parallel', 'sequence_parallel_size', 'dataloader_drop_last',
    'vocabulary_size', 'use_data_before_expert_parallelism', 'allgather_size',
  ]),
  zeroOptimization: new Set([
    'stage', 'contiguous_gradients', 'reduce_scatter', 'reduce_bucket_size', 'use_multi_rank_bucket_allreduce', 'allgather_partitions',
    'allgather_bucket_size', 'overlap_comm', 'load_from_fp32_weights', 'elastic_checkpoint', 'offload_param', 'offload_optimizer',
    'zenflow', 'sub_group_size', 'cpu_offload_param', 'cpu_offload_use_pin_memory', 'cpu_offload',
    'prefetch_bucket_size', 'stage3_prefetch_bucket_size', 'param_persistence_threshold', 'stage3_param_persistence_threshold',
    'model_persistence_threshold', 'stage3_model_persistence_threshold', 'max_live_parameters', 'stage3_max_live_parameters',
    'max_reuse_distance', 'stage3_max_reuse_distance', 'gather_16bit_weights_on_model_save', 'stage3_gather_16bit_weights_on_model_save',
    'module_granularity_threshold', 'stage3_module_granularity_threshold', 'use_all_reduce_for_fetch_params',
    'stage3_use_all_reduce_for_fetch_params', 'allgather_sequential', 'stage3_allgather_sequential', 'partition_stream_chunk_size',
    'stage3_partition_stream_chunk_size', 'stage3_gather_fp16_weights_on_model_save', 'ignore_unused_parameters', 'legacy_stage1',
    'round_robin_gradients', 'zero_hpz_partition_size', 'zero_quantized_weights', 'zero_quantized_nontrainable_weights',
    'zero_quantized_gradients', 'zeropp_loco_param', 'mics_shard_size', 'mics_hierarchical_params_gather', 'memory_efficient_linear',
    'pipeline_loading_checkpoint', 'override_module_apply', 'log_trace_cache_warnings', 'enable_sanity_checks',
    'save_muon_momentum_buffer_in_memory', 'leaf_module',
  ]),
  offloadOptimizer: new Set([
    'device', 'nvme_path', 'buffer_count', 'pin_memory', 'pipeline_read', 'pipeline_write', 'fast_init', 'ratio', 'super_offload',
    'convert_grad_on_cpu', 'cpuadam_cores_perc',
  ]),
  offloadParam: new Set(['device', 'nvme_path', 'buffer_count', 'buffer_size', 'max_in_cpu', 'pin_memory']),
};

/**
 * The ZeRO count fields that have a canonical key. Each field is accepted under both spellings (pydantic alias with
 * populate_by_name, zero/config.py); `hfAuto` names the spelling HF Trainer fills when it is "auto" (its is_auto()
 * checks only the stage3_-prefixed names), and `dflt` is DeepSpeed's default, which applies when DeepSpeed drops an
 * unfilled "auto" (config_utils.py DeepSpeedConfigModel.__init__ filters "auto" out in non-strict mode).
 */
const ZERO_COUNTS: readonly { key: CanonicalKey; names: readonly string[]; hfAuto?: string; dflt: number }[] = [
  { key: 'reduceBucketSize', names: ['reduce_bucket_size'], hfAuto: 'reduce_bucket_size', dflt: 5e8 },
  { key: 'allgatherBucketSize', names: ['allgather_bucket_size'], dflt: 5e8 },
  { key: 'stage3PrefetchBucketSize', names: ['stage3_prefetch_bucket_size', 'prefetch_bucket_size'], hfAuto: 'stage3_prefetch_bucket_size', dflt: 5e7 },
  { key: 'stage3MaxLiveParameters', names: ['stage3_max_live_parameters', 'max_live_parameters'], dflt: 1e9 },
  { key: 'stage3ParamPersistenceThreshold', names: ['stage3_param_persistence_threshold', 'param_persistence_threshold'],
    hfAuto: 'stage3_param_persistence_threshold', dflt: 1e5 },
  { key: 'subGroupSize', names: ['sub_group_size'], dflt: 1e9 },
];

/** What HF Trainer fills each of those "auto" values with (transformers integrations/deepspeed.py trainer_config_finalize). */
const HF_BUCKET_FILL: Record<string, string> = {
  reduce_bucket_size: 'hidden_size²',
  stage3_prefetch_bucket_size: '0.9 × hidden_size²',
  stage3_param_persistence_threshold: '10 × hidden_size',
};

/** Deprecated keys and what replaces them. */
const DEPRECATED_ZERO: Record<string, string> = {
  cpu_offload: 'offload_optimizer: {"device": "cpu"}',
  cpu_offload_param: 'offload_param: {"device": "cpu"}',
  cpu_offload_use_pin_memory: 'offload_optimizer.pin_memory / offload_param.pin_memory',
  stage3_gather_fp16_weights_on_model_save: 'stage3_gather_16bit_weights_on_model_save',
};

const MAX_DEPTH = 512;

// ---------------------------------------------------------------------------------------------------------------
// Pre-pass: hjson-isms that jsonc-parser does not read are rewritten so that it can, keeping a map back to the text.

type Bare = { readonly word: string; readonly kind: 'placeholder' | 'string' | 'python' };

interface Prepared {
  /** The text jsonc-parser reads: `#` comments blanked, bare words wrapped in double quotes. */
  readonly json: string;
  /** Positions (in `json`) of the quotes the pre-pass inserted, ascending. */
  readonly inserts: readonly number[];
  /** Bare words by their start offset in the original text. */
  readonly bare: ReadonlyMap<number, Bare>;
  /** Brackets nest deeper than MAX_DEPTH: jsonc-parser recurses per level, so such text is not parsed. */
  readonly tooDeep: boolean;
}

/** A placeholder: `$VAR`, `${VAR}`, `{{var}}`, or an identifier in capitals (`BATCH_SIZE_PER_GPU`, `QuantW_FORWARD`). */
function isPlaceholder(word: string): boolean {
  if (/^\$/.test(word) || /^\{\{.*\}\}$/.test(word)) return true;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(word) && /[A-Z]/.test(word) && (word === word.toUpperCase() || word.includes('_'));
}

const PY_LITERAL: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

function prepare(text: string, problems: ParseProblem[]): Prepared {
  // A pathological file has a problem per token: beyond the cap, they are not even built (capProblems says so).
  const report = (p: () => ParseProblem): void => {
    if (problems.length <= MAX_PROBLEMS) problems.push(p());
  };
  const scanner = createScanner(text, false);
  const pieces: string[] = [];
  const inserts: number[] = [];
  const bare = new Map<number, Bare>();
  let copied = 0;
  let outLen = 0;
  const copyTo = (end: number): void => {
    if (end > copied) {
      pieces.push(text.slice(copied, end));
      outLen += end - copied;
      copied = end;
    }
  };
  // The open brackets: tell keys from values for bare words, and bound the nesting depth.
  const stack: ('{' | '[')[] = [];
  let prev: SyntaxKind | undefined;
  let lastComma = -1;
  let depthExceeded = false;
  if (text.charCodeAt(0) === 0xfeff) {
    // A byte-order mark is not JSON whitespace for jsonc-parser; blank it (the caller reports it).
    pieces.push(' ');
    outLen = 1;
    copied = 1;
    scanner.setPosition(1);
  }
  for (;;) {
    const kind = scanner.scan();
    if (kind === SyntaxKind.EOF) break;
    const off = scanner.getTokenOffset();
    // The scanner counts one past the end for an unterminated block comment; spans stay inside the text.
    const len = Math.min(scanner.getTokenLength(), text.length - off);
    switch (kind) {
      case SyntaxKind.LineCommentTrivia:
      case SyntaxKind.BlockCommentTrivia:
        report(() => strictProblem({ start: off, end: off + len },
          msg('a comment: DeepSpeed reads it through hjson, but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it')));
        continue;
      case SyntaxKind.Trivia:
      case SyntaxKind.LineBreakTrivia:
        continue;
      case SyntaxKind.OpenBraceToken:
      case SyntaxKind.OpenBracketToken:
        stack.push(kind === SyntaxKind.OpenBraceToken ? '{' : '[');
        if (stack.length > MAX_DEPTH) depthExceeded = true;
        break;
      case SyntaxKind.CloseBraceToken:
      case SyntaxKind.CloseBracketToken:
        if (prev === SyntaxKind.CommaToken && lastComma >= 0)
          report(() => strictProblem({ start: lastComma, end: lastComma + 1 },
          msg('a trailing comma: DeepSpeed reads it through hjson, but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it')));
        stack.pop();
        break;
      case SyntaxKind.CommaToken:
        lastComma = off;
        break;
      case SyntaxKind.Unknown: {
        if (text[off] === '#') {
          // An hjson `#` comment runs to the end of the line; blank it so jsonc-parser skips it.
          let eol = off;
          while (eol < text.length && text[eol] !== '\n' && text[eol] !== '\r') eol++;
          copyTo(off);
          pieces.push(' '.repeat(eol - off));
          outLen += eol - off;
          copied = eol;
          report(() => strictProblem({ start: off, end: eol },
            msg('a `#` comment: DeepSpeed reads it through hjson, but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it')));
          scanner.setPosition(eol);
          continue;
        }
        const end = bareWordEnd(text, scanner, off + len);
        const word = text.slice(off, end);
        // A bare word is a key when a colon follows it (hjson keys may also follow a line break instead of a comma).
        let after = end;
        while (after < text.length && (text[after] === ' ' || text[after] === '\t')) after++;
        const atKey = stack[stack.length - 1] === '{' && text[after] === ':';
        const py = PY_LITERAL[word];
        copyTo(off);
        if (py !== undefined && !atKey) {
          // True/False/None have the same length as their JSON spelling, so no offset moves.
          pieces.push(py);
          outLen += py.length;
          copied = end;
          bare.set(off, { word, kind: 'python' });
          report(() => strictProblem({ start: off, end },
            msg('the Python literal `{0}` (JSON spells it `{1}`): hjson reads it as the string "{0}", but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it', word, py)));
        } else {
          pieces.push('"');
          inserts.push(outLen);
          outLen += 1;
          copyTo(end);
          pieces.push('"');
          inserts.push(outLen);
          outLen += 1;
          const placeholder = !atKey && isPlaceholder(word);
          bare.set(off, { word, kind: placeholder ? 'placeholder' : 'string' });
          if (placeholder) {
            report(() => ({
              code: 'placeholder', severity: 'error', span: { start: off, end },
              ...msg('`{0}` is a template placeholder, not a value: replace it before training (neither json.load nor DeepSpeed can use it)', word),
            }));
          } else {
            report(() => strictProblem({ start: off, end },
              atKey ? msg('the unquoted key `{0}`: DeepSpeed reads it through hjson, but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it', word) : msg('the unquoted string `{0}`: DeepSpeed reads it through hjson, but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it', word)));
          }
        }
        scanner.setPosition(end);
        prev = SyntaxKind.StringLiteral;
        continue;
      }
      default:
        break;
    }
    prev = kind;
  }
  copyTo(text.length);
  return { json: pieces.join(''), inserts, bare, tooDeep: depthExceeded };
}

/** Extends a bare word over `${...}` / `$(...)` and over further words on the same line (an hjson quoteless string). */
function bareWordEnd(text: string, scanner: ReturnType<typeof createScanner>, end: number): number {
  for (;;) {
    if (text[end - 1] === '$' && (text[end] === '{' || text[end] === '(')) {
      const open = text[end];
      const close = open === '{' ? '}' : ')';
      let depth = 0;
      let i = end;
      for (; i < text.length && text[i] !== '\n' && text[i] !== '\r'; i++) {
        if (text[i] === open) depth++;
        else if (text[i] === close && --depth === 0) break;
      }
      if (i >= text.length || text[i] !== close) return end;
      end = i + 1;
      // Anything glued to the closing brace (`${X}_suffix`) belongs to the same word.
      while (end < text.length && !/[\s{}[\],:"]/.test(text[end])) end++;
      continue;
    }
    let j = end;
    while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
    if (j === end || j >= text.length) return end;
    scanner.setPosition(j);
    const k = scanner.scan();
    if (k !== SyntaxKind.Unknown || text[j] === '#') return end;
    end = scanner.getTokenOffset() + scanner.getTokenLength();
  }
}

/** A construct json.load rejects; the message says what it is, how DeepSpeed reads it, and who rejects it. */
function strictProblem(span: Span, m: Message): ParseProblem {
  return { code: 'strict-json-comments', severity: 'warning', span, ...m };
}

// ---------------------------------------------------------------------------------------------------------------
// The walk over the parse tree.

type Val =
  | { readonly kind: 'number'; readonly n: number }
  | { readonly kind: 'bool'; readonly b: boolean }
  | { readonly kind: 'auto' }
  | { readonly kind: 'placeholder'; readonly word: string }
  | { readonly kind: 'string'; readonly s: string }
  | { readonly kind: 'null' }
  | { readonly kind: 'object' | 'array' | 'missing' };

interface Prop {
  readonly name: string;
  readonly path: string;
  readonly keyNode: Node;
  readonly keySpan: Span;
  readonly value: Node | undefined;
}

class Walker {
  readonly facts: Fact[] = [];
  readonly problems: ParseProblem[];
  /** Where jsonc-parser found errors (original offsets), so that defaults are not assumed for a broken block. */
  readonly errorOffsets: number[] = [];
  private lineStarts: number[] | undefined;

  constructor(private readonly text: string, private readonly prep: Prepared, problems: ParseProblem[]) {
    this.problems = problems;
  }

  /** Maps an offset in the pre-pass text back to the original text. */
  orig(n: number): number {
    const ins = this.prep.inserts;
    let lo = 0;
    let hi = ins.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ins[mid] < n) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, Math.min(this.text.length, n - lo));
  }

  span(node: Node): Span {
    const start = this.orig(node.offset);
    return { start, end: Math.max(start, this.orig(node.offset + node.length)) };
  }

  line(offset: number): number {
    if (!this.lineStarts) {
      this.lineStarts = [0];
      for (let i = 0; i < this.text.length; i++) if (this.text[i] === '\n') this.lineStarts.push(i + 1);
    }
    let lo = 0;
    let hi = this.lineStarts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The key's span without its quotes, so that text.slice(span) is the key as written. */
  keySpan(keyNode: Node): Span {
    const s = this.span(keyNode);
    // An unterminated key (a truncated file) has an opening quote and no closing one.
    const start = this.text[s.start] === '"' && s.end > s.start ? s.start + 1 : s.start;
    const end = s.end > start && this.text[s.end - 1] === '"' ? s.end - 1 : s.end;
    return { start, end };
  }

  /** The properties of an object, later duplicates reported; the last one of each name wins, as in json.load. */
  props(obj: Node, parent: string): Prop[] {
    const all: Prop[] = [];
    for (const p of obj.children ?? []) {
      const k = p.children?.[0];
      if (p.type !== 'property' || !k || typeof k.value !== 'string') continue;
      all.push({ name: k.value, path: parent ? `${parent}.${k.value}` : k.value, keyNode: k, keySpan: this.keySpan(k), value: p.children?.[1] });
    }
    const last = new Map<string, Prop>();
    for (const p of all) last.set(p.name, p);
    return all.filter((p) => last.get(p.name) === p);
  }

  /** Reports duplicate keys in every object of the document (DeepSpeed loads with dict_raise_error_on_duplicate_keys). */
  checkDuplicates(root: Node): void {
    const todo: Node[] = [root];
    while (todo.length > 0) {
      const n = todo.pop()!;
      if (n.type === 'object') {
        const seen = new Map<string, Span>();
        for (const p of n.children ?? []) {
          const k = p.children?.[0];
          if (!k || typeof k.value !== 'string') continue;
          const ks = this.keySpan(k);
          const first = seen.get(k.value);
          if (first) {
            this.problems.push({
              code: 'duplicate-key', severity: 'error', span: ks, rawKey: k.value,
              ...msg('duplicate key `{0}` (first on line {1}): DeepSpeed rejects duplicate keys (config_utils.py dict_raise_error_on_duplicate_keys); json.load keeps the last one', k.value, this.line(first.start)),
            });
          } else {
            seen.set(k.value, ks);
          }
        }
      }
      for (const c of n.children ?? []) if (c.type === 'object' || c.type === 'array' || c.type === 'property') todo.push(c);
    }
  }

  read(node: Node | undefined): Val {
    if (!node) return { kind: 'missing' };
    switch (node.type) {
      case 'number':
        return typeof node.value === 'number' && Number.isFinite(node.value) ? { kind: 'number', n: node.value } : { kind: 'string', s: String(node.value) };
      case 'boolean':
        return { kind: 'bool', b: node.value === true };
      case 'null':
        return { kind: 'null' };
      case 'string': {
        const s = String(node.value);
        const b = this.prep.bare.get(this.orig(node.offset));
        if (b?.kind === 'placeholder') return { kind: 'placeholder', word: b.word };
        if (b && /^'.*'$/.test(s)) return { kind: 'string', s: s.slice(1, -1) };
        if (s === 'auto') return { kind: 'auto' };
        if (!b && isStringPlaceholder(s)) return { kind: 'placeholder', word: s };
        return { kind: 'string', s };
      }
      case 'object':
      case 'array':
        return { kind: node.type };
      default:
        return { kind: 'missing' };
    }
  }

  fact(key: CanonicalKey, p: Prop, value: FactValue | Unknown, valueNode?: Node): void {
    const valueSpan = valueNode ? this.span(valueNode) : p.value ? this.span(p.value) : p.keySpan;
    this.facts.push({ key, rawKey: p.path, value, rawValue: this.text.slice(valueSpan.start, valueSpan.end), keySpan: p.keySpan,
      valueSpan, tool: 'deepspeed' });
  }

  problem(code: ParseProblem['code'], severity: ParseProblem['severity'], span: Span, m: Message, rawKey?: string): void {
    const { message, template } = m;
    this.problems.push(rawKey === undefined ? { code, severity, span, message, template } : { code, severity, span, message, template, rawKey });
  }

  valueSpan(p: Prop): Span {
    return p.value ? this.span(p.value) : p.keySpan;
  }

  /** A placeholder (already reported by the pre-pass when bare) becomes an unknown fact. */
  placeholderFact(key: CanonicalKey, p: Prop, word: string): void {
    if (!this.prep.bare.has(this.valueSpan(p).start)) {
      this.problem('placeholder', 'error', this.valueSpan(p), msg('`{0}` is a template placeholder, not a value: replace it before training', word), p.path);
    }
    this.fact(key, p, { unknown: `placeholder ${word}` });
  }

  autoFact(key: CanonicalKey, p: Prop, reason = AUTO_REASON, source = 'TrainingArguments or the launcher'): void {
    this.fact(key, p, { unknown: reason });
    this.problem('unresolved-auto', 'info', this.valueSpan(p),
      msg('`{0}` is "auto": HF Trainer or Accelerate fill it from {1}; DeepSpeed alone does not accept "auto"', p.path, source), p.path);
  }

  invalid(p: Prop, expected: string, severity: ParseProblem['severity'] = 'error', note?: string): void {
    const s = this.valueSpan(p);
    const got = p.value ? this.text.slice(s.start, s.end) : 'nothing';
    const shown = got.length > 60 ? got.slice(0, 57) + '...' : got;
    this.problem('invalid-value', severity, s, note ? msg('`{0}` must be {1}, not {2}: {3}', p.path, expected, shown, note)
      : msg('`{0}` must be {1}, not {2}', p.path, expected, shown), p.path);
  }

  // ----- top-level keys -----

  /** train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps: read with get_scalar_param (no coercion). */
  batchKey(key: CanonicalKey, p: Prop): void {
    const v = this.read(p.value);
    switch (v.kind) {
      case 'number':
        if (Number.isInteger(v.n) && v.n > 0) this.fact(key, p, v.n);
        else this.invalid(p, 'a whole number greater than 0', 'error', 'DeepSpeed asserts it (config.py _batch_assertion)');
        return;
      case 'auto':
        this.autoFact(key, p);
        return;
      case 'placeholder':
        this.placeholderFact(key, p, v.word);
        return;
      case 'null':
        // None is what DeepSpeed uses for "not given": the value is derived (config.py _set_batch_related_parameters).
        return;
      default:
        this.invalid(p, 'a whole number greater than 0, or "auto" under HF Trainer / Accelerate');
    }
  }

  precision(key: 'bf16' | 'fp16', p: Prop): void {
    if (!p.value || p.value.type !== 'object') {
      this.invalid(p, `an object such as {"enabled": true}`);
      return;
    }
    const enabled = this.props(p.value, p.path).find((q) => q.name === 'enabled');
    if (!enabled) return;
    const v = this.read(enabled.value);
    if (v.kind === 'bool') this.fact(key, enabled, v.b);
    else if (v.kind === 'auto') this.autoFact(key, enabled);
    else if (v.kind === 'placeholder') this.placeholderFact(key, enabled, v.word);
    else this.invalid(enabled, 'true, false or "auto"');
  }

  optimizer(p: Prop): void {
    if (!p.value || p.value.type !== 'object') {
      this.invalid(p, 'an object such as {"type": "AdamW", "params": {...}}');
      return;
    }
    const type = this.props(p.value, p.path).find((q) => q.name === 'type');
    if (!type) return;
    const v = this.read(type.value);
    // DeepSpeed matches optimizer.type case-insensitively (config.py DEEPSPEED_OPTIMIZERS, engine.py _configure_basic_optimizer).
    if (v.kind === 'string' && v.s.trim() !== '') this.fact('optimizer', type, normalizeOptimizer(v.s));
    else if (v.kind === 'placeholder') this.placeholderFact('optimizer', type, v.word);
    else if (v.kind === 'auto') this.invalid(type, 'an optimizer name', 'error', 'neither HF Trainer nor DeepSpeed fills "auto" for optimizer.type');
    else this.invalid(type, 'an optimizer name such as "AdamW"');
  }

  compile(p: Prop): void {
    if (!p.value || p.value.type !== 'object') return;
    // `deepcompile` (current CompileConfig) and `enabled` (older CompileConfig) switch compilation on; the code still
    // has to call engine.compile() (deepspeed/runtime/compiler.py).
    for (const q of this.props(p.value, p.path)) {
      if (q.name !== 'deepcompile' && q.name !== 'enabled') continue;
      const v = this.read(q.value);
      if (v.kind === 'bool') this.fact('compile', q, v.b);
      else if (v.kind === 'placeholder') this.placeholderFact('compile', q, v.word);
      else this.invalid(q, 'true or false', 'warning');
      return;
    }
  }

  sequenceParallel(p: Prop): void {
    const v = this.read(p.value);
    // DeepSpeed-Ulysses: each of sequence_parallel_size ranks holds its share of every sequence.
    if (v.kind === 'number' && Number.isInteger(v.n) && v.n >= 1) this.fact('contextParallel', p, v.n);
    else if (v.kind === 'placeholder') this.placeholderFact('contextParallel', p, v.word);
    else this.invalid(p, 'a whole number >= 1', 'warning');
  }

  tensorParallel(p: Prop): void {
    if (!p.value || p.value.type !== 'object') return;
    const size = this.props(p.value, p.path).find((q) => q.name === 'autotp_size');
    if (!size) return;
    const v = this.read(size.value);
    // autotp_size 0 (the default) means no AutoTP, which is a tensor-parallel degree of 1.
    if (v.kind === 'number' && Number.isInteger(v.n) && v.n >= 0) this.fact('tensorParallel', size, Math.max(1, v.n));
    else if (v.kind === 'placeholder') this.placeholderFact('tensorParallel', size, v.word);
    else this.invalid(size, 'a whole number', 'warning');
  }

  // ----- zero_optimization -----

  zero(p: Prop): void {
    const v = this.read(p.value);
    if (v.kind === 'bool') {
      // The legacy form `"zero_optimization": true` means stage 1 (zero/config.py read_zero_config_deprecated).
      this.fact('zeroStage', p, v.b ? 1 : 0);
      this.problem('deprecated-key', 'warning', p.keySpan,
        msg('`"zero_optimization": {0}` is deprecated: use {"stage": {1}}', String(v.b), v.b ? 1 : 0), p.path);
      return;
    }
    if (v.kind === 'placeholder') {
      this.placeholderFact('zeroStage', p, v.word);
      return;
    }
    if (!p.value || p.value.type !== 'object') {
      this.invalid(p, 'an object such as {"stage": 2}');
      return;
    }
    const props = this.props(p.value, p.path);
    const counts = new Map<CanonicalKey, Prop>();
    let offloadOptimizer: Prop | undefined;
    let cpuOffload: Prop | undefined;
    let offloadParam: Prop | undefined;
    let cpuOffloadParam: Prop | undefined;
    for (const q of props) {
      const count = ZERO_COUNTS.find((c) => c.names.includes(q.name));
      if (q.name === 'stage') this.stage(q);
      else if (q.name === 'offload_optimizer') offloadOptimizer = q;
      else if (q.name === 'offload_param') offloadParam = q;
      else if (q.name === 'cpu_offload') cpuOffload = q;
      else if (q.name === 'cpu_offload_param') cpuOffloadParam = q;
      else if (q.name === 'zero_hpz_partition_size') this.groupSize('zeroHpzPartitionSize', q, 1);
      else if (q.name === 'mics_shard_size') this.groupSize('micsShardSize', q, -1);
      else if (count) {
        const other = counts.get(count.key);
        if (other) {
          // Both spellings of one pydantic field: the alias (stage3_ prefixed) is the one pydantic validates.
          const [keep, drop] = other.name.startsWith('stage3_') ? [other, q] : q.name.startsWith('stage3_') ? [q, other] : [q, other];
          this.problem('duplicate-key', 'warning', drop.keySpan,
            msg('`{0}` and `{1}` are two spellings of the same DeepSpeed field; only `{1}` is used', drop.name, keep.name), drop.path);
          counts.set(count.key, keep);
        } else {
          counts.set(count.key, q);
        }
      } else if (!DEEPSPEED_KEYS.zeroOptimization.has(q.name)) {
        this.unknownKey(q, DEEPSPEED_KEYS.zeroOptimization, true);
      }
      const dep = DEPRECATED_ZERO[q.name];
      if (dep) this.problem('deprecated-key', 'warning', q.keySpan,
        msg('`{0}` is deprecated: use {1} (deepspeed/runtime/zero/config.py)', q.name, dep), q.path);
    }
    for (const c of ZERO_COUNTS) {
      const q = counts.get(c.key);
      if (q) this.zeroCount(c, q);
    }
    this.offload('offloadOptimizer', offloadOptimizer, cpuOffload, DEEPSPEED_KEYS.offloadOptimizer);
    this.offload('offloadParams', offloadParam, cpuOffloadParam, DEEPSPEED_KEYS.offloadParam);
  }

  /** A ZeRO group size (hpZ, MiCS); `off` is DeepSpeed's default that turns the feature off (1 for hpZ, -1 for MiCS). */
  groupSize(key: CanonicalKey, q: Prop, off: number): void {
    const v = this.read(q.value);
    if (v.kind === 'number' && Number.isInteger(v.n) && (v.n >= 1 || v.n === off)) this.fact(key, q, v.n);
    else if (v.kind === 'placeholder') this.placeholderFact(key, q, v.word);
    else this.invalid(q, off < 0 ? 'a number of GPUs >= 1, or -1 (off)' : 'a number of GPUs >= 1', 'warning');
  }

  stage(q: Prop): void {
    const v = this.read(q.value);
    if (v.kind === 'number' && Number.isInteger(v.n) && v.n >= 0 && v.n <= 3) this.fact('zeroStage', q, v.n);
    else if (v.kind === 'string' && /^[0-3]$/.test(v.s.trim())) this.fact('zeroStage', q, Number(v.s.trim()));
    else if (v.kind === 'placeholder') this.placeholderFact('zeroStage', q, v.word);
    else if (v.kind === 'auto') {
      // Nothing fills "auto" for the stage; DeepSpeed drops it and the default stage 0 applies.
      this.fact('zeroStage', q, 0);
      this.invalid(q, '0, 1, 2 or 3', 'warning', 'neither HF Trainer nor Accelerate fills "auto" here, so DeepSpeed drops it and uses stage 0');
    } else this.invalid(q, '0, 1, 2 or 3');
  }

  zeroCount(c: (typeof ZERO_COUNTS)[number], q: Prop): void {
    const v = this.read(q.value);
    if (v.kind === 'number' && Number.isInteger(v.n) && v.n >= 0) this.fact(c.key, q, v.n);
    else if (v.kind === 'string' && /^\d+$/.test(v.s.trim())) this.fact(c.key, q, Number(v.s.trim()));
    else if (v.kind === 'placeholder') this.placeholderFact(c.key, q, v.word);
    else if (v.kind === 'auto' && c.hfAuto === q.name) {
      const fill = HF_BUCKET_FILL[q.name] ?? 'hidden_size';
      this.autoFact(c.key, q, `auto: filled by HF Trainer from the model config (${fill})`, `the model config (${fill})`);
    } else if (v.kind === 'auto') {
      this.fact(c.key, q, c.dflt);
      this.invalid(q, 'a number', 'warning', `HF Trainer fills "auto" only for ${c.hfAuto ?? 'other keys'}, so DeepSpeed drops it and uses its default ${c.dflt.toExponential().replace('+', '')}`);
    } else this.invalid(q, 'a whole number of elements >= 0 (5e8 is fine)');
  }

  offload(key: 'offloadOptimizer' | 'offloadParams', block: Prop | undefined, legacy: Prop | undefined, known: ReadonlySet<string>): void {
    if (legacy) {
      const v = this.read(legacy.value);
      if (block) {
        this.problem('invalid-value', 'error', legacy.keySpan,
          msg('`{0}` and `{1}` cannot be given together (DeepSpeed asserts "Cannot provide deprecated parameter and replacing parameter together")',
          legacy.name, block.name), legacy.path);
      } else if (v.kind === 'bool') {
        this.fact(key, legacy, v.b ? 'cpu' : 'none');
      } else if (v.kind === 'placeholder') {
        this.placeholderFact(key, legacy, v.word);
      } else if (v.kind !== 'null') {
        this.invalid(legacy, 'true or false');
      }
    }
    // A key whose value is missing (a syntax error, already reported) says nothing.
    if (!block || !block.value) return;
    if (block.value.type === 'null') {
      this.fact(key, block, 'none');
      return;
    }
    const bv = this.read(block.value);
    if (bv.kind === 'placeholder') {
      this.placeholderFact(key, block, bv.word);
      return;
    }
    if (block.value.type !== 'object') {
      this.invalid(block, 'an object such as {"device": "cpu"}');
      return;
    }
    let device: Prop | undefined;
    for (const q of this.props(block.value, block.path)) {
      if (q.name === 'device') device = q;
      else if (!known.has(q.name)) this.unknownKey(q, known, true);
    }
    if (!device) {
      // The device defaults to "none" (zero/offload_config.py), so a complete block without one offloads nothing;
      // a block cut by a syntax error may have lost its device, so it says nothing.
      const s = this.span(block.value);
      if (!this.errorOffsets.some((o) => o >= s.start && o <= s.end)) this.fact(key, block, 'none');
      return;
    }
    const v = this.read(device.value);
    if (v.kind === 'string' && (v.s === 'cpu' || v.s === 'nvme' || v.s === 'none')) this.fact(key, device, v.s);
    else if (v.kind === 'placeholder') this.placeholderFact(key, device, v.word);
    else if (v.kind === 'auto') {
      this.fact(key, device, 'none');
      this.invalid(device, '"cpu", "nvme" or "none"', 'warning', 'nothing fills "auto" here, so DeepSpeed drops it and offloads nothing');
    } else this.invalid(device, '"cpu", "nvme" or "none" (lower case; OffloadDeviceEnum)');
  }

  unknownKey(q: Prop, known: ReadonlySet<string>, always: boolean): void {
    const hit = suggest(q.name, known);
    if (!hit && !always) return;
    const m = !always
      ? msg('unknown key `{0}` (did you mean `{1}`?): DeepSpeed ignores unknown top-level keys, so this setting has no effect', q.path, hit ?? '')
      : hit
        ? msg('unknown key `{0}` (did you mean `{1}`?): DeepSpeed\'s config model forbids unknown keys here', q.path, hit)
        : msg('unknown key `{0}`: DeepSpeed\'s config model forbids unknown keys here', q.path);
    this.problem('unknown-key', 'warning', q.keySpan, m, q.path);
  }

  // ----- checks across keys -----

  crossChecks(zeroProp: Prop | undefined): void {
    const byKey = (k: CanonicalKey): Fact | undefined => this.facts.find((f) => f.key === k);
    const bf16 = byKey('bf16');
    const fp16 = byKey('fp16');
    if (bf16?.value === true && fp16?.value === true) {
      const second = bf16.valueSpan.start > fp16.valueSpan.start ? bf16 : fp16;
      this.problem('conflicting-precision', 'error', second.valueSpan,
        msg('bf16 and fp16 are both enabled: DeepSpeed stops with "bfloat16 and fp16 modes cannot be simultaneously enabled"'), second.rawKey);
    }
    if (zeroProp) {
      const st = byKey('zeroStage');
      // A zero_optimization block without `stage` means stage 0 (zero/config.py DeepSpeedZeroConfig.stage default).
      const stage = st === undefined ? 0 : typeof st.value === 'number' ? st.value : undefined;
      if (stage !== undefined) {
        const op = byKey('offloadParams');
        if (op && (op.value === 'cpu' || op.value === 'nvme') && stage < 3) {
          this.problem('offload-needs-zero', 'warning', op.keySpan,
            msg('offload_param needs ZeRO stage 3 (stage is {0}): parameters stay on the GPU (zero/config.py: "Valid only with stage 3")', stage), op.rawKey);
        }
        const oo = byKey('offloadOptimizer');
        if (oo && (oo.value === 'cpu' || oo.value === 'nvme') && stage === 0) {
          this.problem('offload-needs-zero', 'warning', oo.keySpan,
            msg('offload_optimizer needs ZeRO stage 1, 2 or 3 (stage is 0): the optimizer state stays on the GPU'), oo.rawKey);
        }
      }
    }
    const num = (k: CanonicalKey): Fact | undefined => {
      const f = byKey(k);
      return f && typeof f.value === 'number' ? f : undefined;
    };
    const train = num('trainBatchSize');
    const micro = num('microBatchSize');
    const gas = num('gradientAccumulationSteps');
    if (train) {
      const t = train.value as number;
      const m = micro ? (micro.value as number) : undefined;
      const g = gas ? (gas.value as number) : undefined;
      const per = (m ?? 1) * (g ?? 1);
      if ((m !== undefined || g !== undefined) && t % per !== 0) {
        const parts = [m !== undefined ? `${m} (micro)` : '', g !== undefined ? `${g} (accumulation)` : ''].filter(Boolean).join(' x ');
        this.problem('batch-size-mismatch', 'error', train.valueSpan,
          msg('train_batch_size {0} is not a multiple of {1}: no whole number of GPUs satisfies train_batch_size = micro x accumulation x GPUs (config.py _batch_assertion)', t, `${parts}${m !== undefined && g !== undefined ? ` = ${per}` : ''}`),
          train.rawKey);
      }
    }
  }
}

function isStringPlaceholder(s: string): boolean {
  return /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(s) || /^\{\{\s*[\w.]+\s*\}\}$/.test(s);
}

/** The closest known key within a small edit distance (typos such as stage3_max_live_parameter). */
function suggest(name: string, known: ReadonlySet<string>): string | undefined {
  // Short names get a tight limit so that `a` does not suggest `amp`.
  const limit = name.length >= 12 ? 3 : name.length >= 6 ? 2 : 1;
  let best: string | undefined;
  let bestD = limit + 1;
  for (const k of known) {
    if (Math.abs(k.length - name.length) > limit) continue;
    const d = editDistance(name.toLowerCase(), k, bestD);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best;
}

function editDistance(a: string, b: string, cap: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, cur[j]);
    }
    if (rowMin > cap) return cap + 1;
    prev = cur;
  }
  return prev[b.length];
}

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

function analyze(text: string, problems: ParseProblem[]): Fact[] {
  if (text.charCodeAt(0) === 0xfeff) {
    problems.push({ code: 'syntax-error', severity: 'warning', span: { start: 0, end: 1 },
      ...msg('the file starts with a byte-order mark, which json.load rejects') });
  }
  const prep = prepare(text, problems);
  const w = new Walker(text, prep, problems);
  if (prep.tooDeep) {
    w.problem('syntax-error', 'error', { start: 0, end: Math.min(1, text.length) }, msg('the JSON nests deeper than {0} levels; it is not read', MAX_DEPTH));
    return w.facts;
  }
  const errors: ParseError[] = [];
  const root = parseTree(prep.json, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  for (const e of errors.slice(0, MAX_PROBLEMS)) {
    const start = w.orig(e.offset);
    const end = Math.max(start, w.orig(e.offset + e.length));
    const code = printParseErrorCode(e.error);
    w.errorOffsets.push(start);
    // hjson lets a line break stand in for a comma.
    if (code === 'CommaExpected' && /[\r\n]/.test(prevGap(text, start))) {
      problems.push(strictProblem({ start, end }, msg('a missing comma before this line: DeepSpeed reads it through hjson, but HF Trainer, Accelerate and Axolotl load this file with json.load, which rejects it')));
      continue;
    }
    problems.push({ code: 'syntax-error', severity: 'error', span: { start, end }, ...msg('{0} (line {1})', ERROR_TEXT[code] ?? code, w.line(start)) });
  }
  if (!root) {
    if (text.trim() === '') problems.push({ code: 'syntax-error', severity: 'error', span: { start: 0, end: 0 },
      ...msg('the file is empty: a DeepSpeed config is a JSON object') });
    return w.facts;
  }
  if (root.type !== 'object') {
    w.problem('invalid-value', 'error', w.span(root), msg('a DeepSpeed config is a JSON object ({ ... })'));
    return w.facts;
  }
  w.checkDuplicates(root);
  const top = w.props(root, '');
  let zeroProp: Prop | undefined;
  const hasBf16 = top.some((p) => p.name === 'bf16');
  for (const p of top) {
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
        zeroProp = p;
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
        w.problem('deprecated-key', 'warning', p.keySpan,
          hasBf16 ? msg('`bfloat16` is the legacy name of `bf16`, and `bf16` is also given, so this block is ignored')
          : msg('`bfloat16` is the legacy name of this block: use `bf16`'), p.path);
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
  w.crossChecks(zeroProp);
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
    problems.push({ code: 'syntax-error', severity: 'error', span: { start: 0, end: 0 },
      ...msg('the file could not be read: {0}', err instanceof Error ? err.message : String(err)) });
  }
  return { format: 'deepspeed-json', facts, problems, references: [], tools: ['deepspeed'] };
}

// ---------------------------------------------------------------------------------------------------------------
// DeepSpeed's batch-size algorithm, for resolve once the data-parallel world size is known.

export type BatchKey = 'trainBatchSize' | 'microBatchSize' | 'gradientAccumulationSteps';

export interface BatchInput {
  readonly trainBatchSize?: number;
  readonly microBatchSize?: number;
  readonly gradientAccumulationSteps?: number;
}

export type BatchDerivation =
  | { readonly ok: true; readonly trainBatchSize: number; readonly microBatchSize: number; readonly gradientAccumulationSteps: number;
    readonly derived: readonly BatchKey[] }
  | { readonly ok: false; readonly message: string; readonly missing: readonly BatchKey[] };

/**
 * DeepSpeed's `_set_batch_related_parameters` (deepspeedai/DeepSpeed@edaa722:deepspeed/runtime/config.py): given any
 * subset of the three batch keys and the data-parallel world size, computes the missing ones with Python's floor
 * division. train+micro: gas = train // micro // world; train+gas: micro = train // world // gas; micro+gas:
 * train = micro * gas * world; train only: gas = 1, micro = train // world; micro only: gas = 1, train = micro * world.
 * Gas alone or nothing cannot be derived. The result is not checked against the rule; see checkBatchRule.
 */
export function deriveBatch(given: BatchInput, worldSize: number): BatchDerivation {
  if (!Number.isInteger(worldSize) || worldSize < 1) {
    return { ok: false, message: `the data-parallel world size must be a whole number >= 1, not ${worldSize}`, missing: [] };
  }
  const t = given.trainBatchSize;
  const m = given.microBatchSize;
  const g = given.gradientAccumulationSteps;
  const fdiv = (a: number, b: number): number => Math.floor(a / b);
  if (t !== undefined && m !== undefined && g !== undefined)
    return { ok: true, trainBatchSize: t, microBatchSize: m, gradientAccumulationSteps: g, derived: [] };
  if (t !== undefined && m !== undefined) return { ok: true, trainBatchSize: t, microBatchSize: m,
    gradientAccumulationSteps: m === 0 ? 0 : fdiv(fdiv(t, m), worldSize), derived: ['gradientAccumulationSteps'] };
  if (t !== undefined && g !== undefined) return { ok: true, trainBatchSize: t, microBatchSize: g === 0 ? 0 : fdiv(fdiv(t, worldSize), g),
    gradientAccumulationSteps: g, derived: ['microBatchSize'] };
  if (m !== undefined && g !== undefined) return { ok: true, trainBatchSize: m * g * worldSize, microBatchSize: m, gradientAccumulationSteps: g,
    derived: ['trainBatchSize'] };
  if (t !== undefined) return { ok: true, trainBatchSize: t, microBatchSize: fdiv(t, worldSize), gradientAccumulationSteps: 1,
    derived: ['microBatchSize', 'gradientAccumulationSteps'] };
  if (m !== undefined) return { ok: true, trainBatchSize: m * worldSize, microBatchSize: m, gradientAccumulationSteps: 1,
    derived: ['trainBatchSize', 'gradientAccumulationSteps'] };
  return {
    ok: false,
    message: 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided (DeepSpeed config.py)',
    missing: g === undefined ? ['trainBatchSize', 'microBatchSize', 'gradientAccumulationSteps'] : ['trainBatchSize', 'microBatchSize'],
  };
}

/**
 * DeepSpeed's `_batch_assertion` after `_set_batch_related_parameters`, with the world size resolve found: a located
 * 'batch-size-mismatch' problem, or undefined when the rule holds or the numbers are not all known (auto, placeholders,
 * or neither train_batch_size nor the micro batch given; deriveBatch reports that case).
 */
export function checkBatchRule(facts: ConfigFacts, worldSize: number): ParseProblem | undefined {
  const pick = (k: BatchKey): Fact | undefined => {
    let hit: Fact | undefined;
    for (const f of facts.facts) if (f.key === k) hit = f;
    return hit && typeof hit.value === 'number' ? hit : undefined;
  };
  const tf = pick('trainBatchSize');
  const mf = pick('microBatchSize');
  const gf = pick('gradientAccumulationSteps');
  const anyUnknown = facts.facts.some((f) => (f.key === 'trainBatchSize' || f.key === 'microBatchSize' || f.key === 'gradientAccumulationSteps')
    && typeof f.value !== 'number');
  if (anyUnknown) return undefined;
  const d = deriveBatch({ trainBatchSize: tf?.value as number | undefined, microBatchSize: mf?.value as number | undefined,
    gradientAccumulationSteps: gf?.value as number | undefined }, worldSize);
  if (!d.ok) return undefined;
  const at = tf ?? mf ?? gf;
  if (!at) return undefined;
  const tag = (k: BatchKey): string => (d.derived.includes(k) ? ', derived' : '');
  const lhs = `train_batch_size ${d.trainBatchSize}${tf ? '' : ' (derived)'}`;
  const rhs = `${d.microBatchSize} (micro${tag('microBatchSize')}) x ${d.gradientAccumulationSteps} (accumulation${tag('gradientAccumulationSteps')}) x ${worldSize} (GPUs)`;
  const span = at.valueSpan;
  if (d.microBatchSize <= 0 || d.gradientAccumulationSteps <= 0) {
    const m = d.microBatchSize <= 0
      ? msg('with {0} GPUs the micro batch per GPU comes out as {1}, and DeepSpeed requires it to be greater than 0: {2} vs {3}', worldSize,
        d.microBatchSize, lhs, rhs)
      : msg('with {0} GPUs gradient accumulation comes out as {1}, and DeepSpeed requires it to be greater than 0: {2} vs {3}', worldSize,
        d.gradientAccumulationSteps, lhs, rhs);
    return { code: 'batch-size-mismatch', severity: 'error', span, rawKey: at.rawKey, ...m };
  }
  const product = d.microBatchSize * d.gradientAccumulationSteps * worldSize;
  if (product === d.trainBatchSize) return undefined;
  return { code: 'batch-size-mismatch', severity: 'error', span, rawKey: at.rawKey, ...msg('{0} != {1} = {2}', lhs, rhs, product) };
}
