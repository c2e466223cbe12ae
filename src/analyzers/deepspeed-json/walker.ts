// The walk over the parse tree: each memory-relevant key becomes a Fact with exact spans (batch keys, precision
// blocks, optimizer, ZeRO with its offload blocks and buckets), and unknown, deprecated, duplicate or invalid keys
// become problems. Pure: no I/O, no node:* and no 'vscode'.
import { lineIndex, lineStarts } from '../line-index';
import type { Node } from 'jsonc-parser';
import {
  msg,
  normalizeOptimizer,
  type CanonicalKey,
  type Message,
  type Fact,
  type FactValue,
  type ParseProblem,
  type Span,
  type Unknown,
} from '../facts';
import { AUTO_REASON, DEEPSPEED_KEYS, ZERO_COUNTS, HF_BUCKET_FILL, DEPRECATED_ZERO } from './keys';
import type { Prepared } from './hjson';

/** The strings pydantic's lax mode takes as booleans (what DeepSpeed's config models read `"true"` as). */
const PYDANTIC_BOOL: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  on: true,
  off: false,
  '1': true,
  '0': false,
};

type Val =
  | { readonly kind: 'number'; readonly n: number }
  | { readonly kind: 'bool'; readonly b: boolean }
  | { readonly kind: 'auto' }
  | { readonly kind: 'placeholder'; readonly word: string }
  | { readonly kind: 'string'; readonly s: string }
  | { readonly kind: 'null' }
  | { readonly kind: 'object' | 'array' | 'missing' };

export interface Prop {
  readonly name: string;
  readonly path: string;
  readonly keyNode: Node;
  readonly keySpan: Span;
  readonly value: Node | undefined;
}

export class Walker {
  readonly facts: Fact[] = [];
  readonly problems: ParseProblem[];
  /** Where jsonc-parser found errors (original offsets), so that defaults are not assumed for a broken block. */
  readonly errorOffsets: number[] = [];
  private lineStarts: number[] | undefined;

  constructor(
    private readonly text: string,
    private readonly prep: Prepared,
    problems: ParseProblem[],
  ) {
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
    this.lineStarts ??= lineStarts(this.text);
    return lineIndex(this.lineStarts, offset) + 1;
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
      all.push({
        name: k.value,
        path: parent ? `${parent}.${k.value}` : k.value,
        keyNode: k,
        keySpan: this.keySpan(k),
        value: p.children?.[1],
      });
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
              code: 'duplicate-key',
              severity: 'error',
              span: ks,
              rawKey: k.value,
              ...msg(
                'duplicate key `{0}` (first on line {1}): DeepSpeed rejects duplicate keys ' +
                  '(config_utils.py dict_raise_error_on_duplicate_keys); json.load keeps the last one',
                k.value,
                this.line(first.start),
              ),
            });
          } else {
            seen.set(k.value, ks);
          }
        }
      }
      for (const c of n.children ?? [])
        if (c.type === 'object' || c.type === 'array' || c.type === 'property') todo.push(c);
    }
  }

  read(node: Node | undefined): Val {
    if (!node) return { kind: 'missing' };
    switch (node.type) {
      case 'number':
        return typeof node.value === 'number' && Number.isFinite(node.value)
          ? { kind: 'number', n: node.value }
          : { kind: 'string', s: String(node.value) };
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
    this.facts.push({
      key,
      rawKey: p.path,
      value,
      rawValue: this.text.slice(valueSpan.start, valueSpan.end),
      keySpan: p.keySpan,
      valueSpan,
      tool: 'deepspeed',
    });
  }

  problem(
    code: ParseProblem['code'],
    severity: ParseProblem['severity'],
    span: Span,
    m: Message,
    rawKey?: string,
  ): void {
    const { message, template } = m;
    this.problems.push(
      rawKey === undefined
        ? { code, severity, span, message, template }
        : { code, severity, span, message, template, rawKey },
    );
  }

  valueSpan(p: Prop): Span {
    return p.value ? this.span(p.value) : p.keySpan;
  }

  /** A placeholder (already reported by the pre-pass when bare) becomes an unknown fact. */
  placeholderFact(key: CanonicalKey, p: Prop, word: string): void {
    if (!this.prep.bare.has(this.valueSpan(p).start)) {
      this.problem(
        'placeholder',
        'error',
        this.valueSpan(p),
        msg('`{0}` is a template placeholder, not a value: replace it before training', word),
        p.path,
      );
    }
    this.fact(key, p, { unknown: `placeholder ${word}` });
  }

  autoFact(
    key: CanonicalKey,
    p: Prop,
    reason = AUTO_REASON,
    source = 'TrainingArguments or the launcher',
    fromHiddenSize = false,
  ): void {
    this.fact(key, p, fromHiddenSize ? { unknown: reason, fromHiddenSize } : { unknown: reason });
    this.problem(
      'unresolved-auto',
      'info',
      this.valueSpan(p),
      msg(
        '`{0}` is "auto": HF Trainer or Accelerate fill it from {1}; DeepSpeed alone does not accept "auto"',
        p.path,
        source,
      ),
      p.path,
    );
  }

  invalid(p: Prop, expected: string, severity: ParseProblem['severity'] = 'error', note?: string): void {
    const s = this.valueSpan(p);
    const got = p.value ? this.text.slice(s.start, s.end) : 'nothing';
    const shown = got.length > 60 ? got.slice(0, 57) + '...' : got;
    this.problem(
      'invalid-value',
      severity,
      s,
      note
        ? msg('`{0}` must be {1}, not {2}: {3}', p.path, expected, shown, note)
        : msg('`{0}` must be {1}, not {2}', p.path, expected, shown),
      p.path,
    );
  }

  // ----- top-level keys -----

  /** train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps: read with get_scalar_param (no coercion). */
  batchKey(key: CanonicalKey, p: Prop): void {
    const v = this.read(p.value);
    switch (v.kind) {
      case 'number':
        if (Number.isInteger(v.n) && v.n > 0) this.fact(key, p, v.n);
        else
          this.invalid(
            p,
            'a whole number greater than 0',
            'error',
            'DeepSpeed asserts it (config.py _batch_assertion)',
          );
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
    const coerced = v.kind === 'string' ? PYDANTIC_BOOL[v.s.trim().toLowerCase()] : undefined;
    if (v.kind === 'bool') this.fact(key, enabled, v.b);
    else if (v.kind === 'auto') this.autoFact(key, enabled);
    else if (v.kind === 'placeholder') this.placeholderFact(key, enabled, v.word);
    else if (coerced !== undefined) {
      // DeepSpeedBF16Config / DeepSpeedFP16Config are pydantic models (runtime/precision_config.py) that coerce such
      // strings to booleans: "true" is on.
      this.fact(key, enabled, coerced);
      this.invalid(
        enabled,
        `${coerced} (no quotes)`,
        'warning',
        `DeepSpeed's config model reads this string as ${coerced}`,
      );
    } else this.invalid(enabled, 'true, false or "auto"');
  }

  /**
   * "Adam" / "AdamW" in a DeepSpeed config is DeepSpeed's own FusedAdam (engine.py _configure_basic_optimizer: one
   * multi-tensor kernel, no temporaries of the states' size; DeepSpeedCPUAdam when the optimizer is offloaded), unless
   * `params.torch_adam` is true, which asks for torch.optim.Adam / AdamW.
   */
  private deepspeedAdam(name: string, props: Prop[]): string {
    if (name !== 'adamw') return name;
    const params = props.find((q) => q.name === 'params');
    const torchAdam =
      params?.value?.type === 'object'
        ? this.props(params.value, params.path).find((q) => q.name === 'torch_adam')
        : undefined;
    const t = torchAdam ? this.read(torchAdam.value) : undefined;
    return t?.kind === 'bool' && t.b ? 'adamw' : 'adamw_fused';
  }

  optimizer(p: Prop): void {
    if (!p.value || p.value.type !== 'object') {
      this.invalid(p, 'an object such as {"type": "AdamW", "params": {...}}');
      return;
    }
    const props = this.props(p.value, p.path);
    const type = props.find((q) => q.name === 'type');
    if (!type) return;
    const v = this.read(type.value);
    // DeepSpeed matches optimizer.type case-insensitively (config.py DEEPSPEED_OPTIMIZERS, engine.py _configure_basic_optimizer).
    if (v.kind === 'string' && v.s.trim() !== '')
      this.fact('optimizer', type, this.deepspeedAdam(normalizeOptimizer(v.s), props));
    else if (v.kind === 'placeholder') this.placeholderFact('optimizer', type, v.word);
    else if (v.kind === 'auto')
      this.invalid(
        type,
        'an optimizer name',
        'error',
        'neither HF Trainer nor DeepSpeed fills "auto" for optimizer.type',
      );
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
      this.problem(
        'deprecated-key',
        'warning',
        p.keySpan,
        msg('`"zero_optimization": {0}` is deprecated: use {"stage": {1}}', String(v.b), v.b ? 1 : 0),
        p.path,
      );
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
      else if (q.name === 'overlap_comm') this.zeroSwitch('zeroOverlapComm', q);
      else if (q.name === 'contiguous_gradients') this.zeroSwitch('zeroContiguousGradients', q);
      else if (q.name === 'mics_shard_size') this.groupSize('micsShardSize', q, -1);
      else if (count) {
        const other = counts.get(count.key);
        if (other) {
          // Both spellings of one pydantic field: the alias (stage3_ prefixed) is the one pydantic validates.
          const [keep, drop] = other.name.startsWith('stage3_')
            ? [other, q]
            : q.name.startsWith('stage3_')
              ? [q, other]
              : [q, other];
          this.problem(
            'duplicate-key',
            'warning',
            drop.keySpan,
            msg(
              '`{0}` and `{1}` are two spellings of the same DeepSpeed field; only `{1}` is used',
              drop.name,
              keep.name,
            ),
            drop.path,
          );
          counts.set(count.key, keep);
        } else {
          counts.set(count.key, q);
        }
      } else if (!DEEPSPEED_KEYS.zeroOptimization.has(q.name)) {
        this.unknownKey(q, DEEPSPEED_KEYS.zeroOptimization, true);
      }
      const dep = DEPRECATED_ZERO[q.name];
      if (dep)
        this.problem(
          'deprecated-key',
          'warning',
          q.keySpan,
          msg('`{0}` is deprecated: use {1} (deepspeed/runtime/zero/config.py)', q.name, dep),
          q.path,
        );
    }
    for (const c of ZERO_COUNTS) {
      const q = counts.get(c.key);
      if (q) this.zeroCount(c, q);
    }
    this.offload('offloadOptimizer', offloadOptimizer, cpuOffload, DEEPSPEED_KEYS.offloadOptimizer);
    this.offload('offloadParams', offloadParam, cpuOffloadParam, DEEPSPEED_KEYS.offloadParam);
  }

  /** A ZeRO switch (overlap_comm, contiguous_gradients): "auto" is dropped by DeepSpeed, so its default applies. */
  zeroSwitch(key: CanonicalKey, q: Prop): void {
    const v = this.read(q.value);
    if (v.kind === 'bool') this.fact(key, q, v.b);
    else if (v.kind === 'placeholder') this.placeholderFact(key, q, v.word);
    else if (v.kind !== 'auto') this.invalid(q, 'true or false', 'warning');
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
      this.invalid(
        q,
        '0, 1, 2 or 3',
        'warning',
        'neither HF Trainer nor Accelerate fills "auto" here, so DeepSpeed drops it and uses stage 0',
      );
    } else this.invalid(q, '0, 1, 2 or 3');
  }

  zeroCount(c: (typeof ZERO_COUNTS)[number], q: Prop): void {
    const v = this.read(q.value);
    if (v.kind === 'number' && Number.isInteger(v.n) && v.n >= 0) this.fact(c.key, q, v.n);
    else if (v.kind === 'string' && /^\d+$/.test(v.s.trim())) this.fact(c.key, q, Number(v.s.trim()));
    else if (v.kind === 'placeholder') this.placeholderFact(c.key, q, v.word);
    else if (v.kind === 'auto' && c.hfAuto === q.name) {
      const fill = HF_BUCKET_FILL[q.name] ?? 'hidden_size';
      this.autoFact(
        c.key,
        q,
        `auto: filled by HF Trainer from the model config (${fill})`,
        `the model config (${fill})`,
        true,
      );
    } else if (v.kind === 'auto') {
      this.fact(c.key, q, c.dflt);
      this.invalid(
        q,
        'a number',
        'warning',
        `HF Trainer fills "auto" only for ${c.hfAuto ?? 'other keys'}, so DeepSpeed drops it and uses its default ${c.dflt.toExponential().replace('+', '')}`,
      );
    } else this.invalid(q, 'a whole number of elements >= 0 (5e8 is fine)');
  }

  offload(
    key: 'offloadOptimizer' | 'offloadParams',
    block: Prop | undefined,
    legacy: Prop | undefined,
    known: ReadonlySet<string>,
  ): void {
    if (legacy) {
      const v = this.read(legacy.value);
      if (block) {
        this.problem(
          'invalid-value',
          'error',
          legacy.keySpan,
          msg(
            '`{0}` and `{1}` cannot be given together (DeepSpeed asserts "Cannot provide deprecated parameter and replacing parameter together")',
            legacy.name,
            block.name,
          ),
          legacy.path,
        );
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
      this.invalid(
        device,
        '"cpu", "nvme" or "none"',
        'warning',
        'nothing fills "auto" here, so DeepSpeed drops it and offloads nothing',
      );
    } else this.invalid(device, '"cpu", "nvme" or "none" (lower case; OffloadDeviceEnum)');
  }

  unknownKey(q: Prop, known: ReadonlySet<string>, always: boolean): void {
    const hit = suggest(q.name, known);
    if (!hit && !always) return;
    const m = !always
      ? msg(
          'unknown key `{0}` (did you mean `{1}`?): DeepSpeed ignores unknown top-level keys, so this setting has no effect',
          q.path,
          hit ?? '',
        )
      : hit
        ? msg(
            "unknown key `{0}` (did you mean `{1}`?): DeepSpeed's config model forbids unknown keys here",
            q.path,
            hit,
          )
        : msg("unknown key `{0}`: DeepSpeed's config model forbids unknown keys here", q.path);
    this.problem('unknown-key', 'warning', q.keySpan, m, q.path);
  }

  // ----- checks across keys -----

  crossChecks(zeroProp: Prop | undefined): void {
    const byKey = (k: CanonicalKey): Fact | undefined => this.facts.find((f) => f.key === k);
    const bf16 = byKey('bf16');
    const fp16 = byKey('fp16');
    if (bf16?.value === true && fp16?.value === true) {
      const second = bf16.valueSpan.start > fp16.valueSpan.start ? bf16 : fp16;
      this.problem(
        'conflicting-precision',
        'error',
        second.valueSpan,
        msg(
          'bf16 and fp16 are both enabled: DeepSpeed stops with "bfloat16 and fp16 modes cannot be simultaneously enabled"',
        ),
        second.rawKey,
      );
    }
    if (zeroProp) {
      const st = byKey('zeroStage');
      // A zero_optimization block without `stage` means stage 0 (zero/config.py DeepSpeedZeroConfig.stage default).
      const stage = st === undefined ? 0 : typeof st.value === 'number' ? st.value : undefined;
      if (stage !== undefined) {
        const op = byKey('offloadParams');
        if (op && (op.value === 'cpu' || op.value === 'nvme') && stage < 3) {
          this.problem(
            'offload-needs-zero',
            'warning',
            op.keySpan,
            msg(
              'offload_param needs ZeRO stage 3 (stage is {0}): parameters stay on the GPU (zero/config.py: "Valid only with stage 3")',
              stage,
            ),
            op.rawKey,
          );
        }
        const oo = byKey('offloadOptimizer');
        if (oo && (oo.value === 'cpu' || oo.value === 'nvme') && stage === 0) {
          this.problem(
            'offload-needs-zero',
            'warning',
            oo.keySpan,
            msg('offload_optimizer needs ZeRO stage 1, 2 or 3 (stage is 0): the optimizer state stays on the GPU'),
            oo.rawKey,
          );
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
        const parts = [m !== undefined ? `${m} (micro)` : '', g !== undefined ? `${g} (accumulation)` : '']
          .filter(Boolean)
          .join(' x ');
        this.problem(
          'batch-size-mismatch',
          'error',
          train.valueSpan,
          msg(
            'train_batch_size {0} is not a multiple of {1}: no whole number of GPUs satisfies ' +
              'train_batch_size = micro x accumulation x GPUs (config.py _batch_assertion)',
            t,
            `${parts}${m !== undefined && g !== undefined ? ` = ${per}` : ''}`,
          ),
          train.rawKey,
        );
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
