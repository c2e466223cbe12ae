// Shared machinery of the YAML analyzers (Accelerate, Axolotl, LLaMA-Factory, torchtune, HF/TRL): one eemeli/yaml
// parse with exact ranges (blocks.ts caches it per top-level block), mapping walks that follow anchors, aliases, merge
// keys and OmegaConf `${...}` interpolation, and fact/problem recording; values.ts has the lenient value readers.
// Pure: no I/O, no node:* imports; nothing here throws on user text.
import { Document, LineCounter, Scalar, YAMLMap, isAlias, isMap, isScalar, isSeq, type Node } from 'yaml';
import { parseYaml } from '../yaml-parse';
import { bySubject, msg, useReentrantOfJson } from '../facts';
import type {
  CanonicalKey,
  ConfigFacts,
  Fact,
  FactValue,
  Format,
  Message,
  ParseProblem,
  ProblemCode,
  Reference,
  Span,
  SubjectMessage,
  Tool,
  Unknown,
} from '../facts';
import { PARSE_OPTIONS, parseCachedBlocks } from './blocks';
import { isWholeValue, maskExpressions, expressionIn, templateExpressions } from './templates';
import {
  type Entry,
  type View,
  Invalid,
  type Conv,
  asBool,
  asPosInt,
  asEnumInt,
  asOffload,
  boolOf,
  describe,
  numOf,
  strOf,
} from './values';

export interface CtxOptions {
  readonly format: Format;
  readonly tool: Tool;
  /** OmegaConf loaders (LLaMA-Factory, torchtune) reject duplicate keys and resolve `${...}`; PyYAML keeps the last key. */
  readonly omegaconf: boolean;
  /**
   * The mapping `${...}` paths are relative to, where it is not the document's top (a MosaicML platform run's
   * `parameters`, the YAML its trainer reads); a path found there first, else from the top.
   */
  readonly interpolationRoot?: string;
}

const MAX_ALIAS_DEPTH = 16;

/**
 * Flow collections nested deeper than this are refused before parsing: eemeli/yaml 2.9 aborts the whole process
 * (a V8 "RegExpCompiler allocation failed" crash, not a catchable error) after a few parses of ~1000-deep `[[[`.
 * Real configs nest a handful of levels; brackets inside quoted strings are counted too, which only errs on the
 * safe side.
 */
export const MAX_FLOW_DEPTH = 256;

/** The deepest unclosed `[` / `{` nesting of a text (a linear scan, quotes not excluded). */
export function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      depth++;
      if (depth > max) max = depth;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return max;
}

/** The parse state of one file and the facts, problems and references found so far. */
export class YamlCtx {
  readonly facts: Fact[] = [];
  readonly problems: ParseProblem[] = [];
  readonly references: Reference[] = [];
  readonly tools: Tool[];
  readonly lines = new LineCounter();
  readonly doc: Document.Parsed | undefined;
  readonly root: YAMLMap | undefined;
  private rootEntries: Map<string, Entry> | undefined;
  /** The `{{ ... }}` expressions of a file read as a template (templates.ts), sorted; empty otherwise. */
  private expressions: readonly Span[] = [];
  private readonly seenDuplicates = new Set<string>();

  /** The tool whose semantics the facts follow; an analyzer may settle it after looking at the keys. */
  tool: Tool;

  constructor(
    readonly text: string,
    readonly opts: CtxOptions,
  ) {
    this.tool = opts.tool;
    this.tools = [opts.tool];
    let doc: Document.Parsed | undefined;
    try {
      if (flowDepth(text) > MAX_FLOW_DEPTH) {
        this.problem(
          'syntax-error',
          'error',
          msg('brackets nested more than {0} levels deep; the file is not read', MAX_FLOW_DEPTH),
          { start: 0, end: 0 },
        );
      } else {
        doc = parseCachedBlocks(text, this.lines) ?? parseYaml(text, { lineCounter: this.lines, ...PARSE_OPTIONS });
      }
    } catch (err) {
      // eemeli/yaml reports problems in doc.errors; this guards the never-throw contract against library bugs.
      this.problem(
        'syntax-error',
        'error',
        msg('YAML could not be parsed: {0}', err instanceof Error ? err.message : String(err)),
        { start: 0, end: 0 },
      );
    }
    if (doc) doc = this.renderedTemplate(doc);
    this.doc = doc;
    for (const e of doc?.errors ?? []) {
      this.problem(
        'syntax-error',
        'error',
        e.message.split('\n')[0] !== undefined ? msg('{0}', e.message.split('\n')[0]) : msg('YAML syntax error'),
        this.span(e.pos[0], e.pos[1]),
      );
    }
    const contents = doc?.contents;
    this.root = isMap(contents) ? contents : undefined;
    if (contents && !this.root && !(isScalar(contents) && contents.value === null)) {
      this.problem(
        'syntax-error',
        'error',
        msg('expected a mapping of keys to values at the top level'),
        this.nodeSpan(contents),
      );
    }
  }

  /**
   * A file that is a template (templates.ts): the parse of its text with the `{{ ... }}`
   * expressions masked, when that parse is clean, said once at the first one; else the parse as it was.
   */
  private renderedTemplate(doc: Document.Parsed): Document.Parsed {
    const expressions = templateExpressions(this.text);
    if (expressions.length === 0) return doc;
    // A file that parses is a template only where an expression is a whole value (`batch_size: {{ bs }}`, a mapping
    // inside a mapping to YAML, which PyYAML refuses as an unhashable key); elsewhere `{{` is text (a chat template).
    if (doc.errors.length === 0 && !expressions.some((p) => isWholeValue(this.text, p))) return doc;
    const masked = parseYaml(maskExpressions(this.text, expressions), {
      lineCounter: new LineCounter(),
      ...PARSE_OPTIONS,
    });
    if (masked.errors.length > 0) return doc;
    this.expressions = expressions;
    const first = this.text.slice(expressions[0].start, expressions[0].end);
    this.problem(
      'placeholder',
      'info',
      msg(
        'read as a template: {0} `{{ ... }}` placeholders (the first, `{1}`) are filled in when it is rendered; ' +
          'a setting written with one is not known',
        expressions.length,
        first,
      ),
      expressions[0],
    );
    return masked;
  }

  /** A span clamped into the text, so that broken input never yields an out-of-range position. */
  span(start: number, end: number): Span {
    const n = this.text.length;
    const s = Math.max(0, Math.min(Number.isFinite(start) ? start : 0, n));
    const e = Math.max(s, Math.min(Number.isFinite(end) ? end : s, n));
    return { start: s, end: e };
  }

  /** The written extent of a node: scalars and flow collections end at their last character, block collections at their last item. */
  nodeSpan(node: Node | null | undefined, depth = 0): Span {
    const r = node?.range;
    if (!node || !r) return this.span(0, 0);
    if ((isMap(node) || isSeq(node)) && !node.flow && depth < 64) {
      let end = r[0];
      for (const item of node.items as unknown[]) {
        // A map item is a pair: its extent ends with its value, or with its key when the value is empty.
        const pair = isMap(node) ? (item as { key: Node | null; value: Node | null }) : undefined;
        const last = pair ? (pair.value?.range ? pair.value : pair.key) : (item as Node);
        if (last) end = Math.max(end, this.nodeSpan(last, depth + 1).end);
      }
      return this.span(r[0], end);
    }
    return this.span(r[0], r[1]);
  }

  problem(code: ProblemCode, severity: ParseProblem['severity'], m: Message, span: Span, rawKey?: string): void {
    const { message, template } = m;
    this.problems.push(
      rawKey === undefined
        ? { code, severity, message, template, span }
        : { code, severity, message, template, span, rawKey },
    );
  }

  line(offset: number): number {
    return this.lines.linePos(offset).line;
  }

  /** The entries of the top-level mapping (empty when the document is not a mapping). */
  top(): Map<string, Entry> {
    if (!this.rootEntries) this.rootEntries = this.root ? this.entries(this.root, '') : new Map();
    return this.rootEntries;
  }

  /**
   * The entries of a mapping. Merge keys (`<<: *a` or `<<: [*a, *b]`) contribute the anchored map's pairs at the
   * alias site, explicit keys override merged ones (YAML merge semantics), and a repeated key is reported as
   * 'duplicate-key' and the last one wins (PyYAML's behaviour; OmegaConf refuses the file).
   */
  entries(map: YAMLMap, prefix: string, depth = 0): Map<string, Entry> {
    const out = new Map<string, Entry>();
    const merged = new Map<string, Entry>();
    if (depth > MAX_ALIAS_DEPTH) return out;
    for (const pair of map.items) {
      const keyNode = pair.key as Node | null;
      const keyName =
        keyNode && isScalar(keyNode)
          ? String(keyNode.value)
          : keyNode && isAlias(keyNode)
            ? `*${keyNode.source}`
            : undefined;
      if (keyName === undefined || !keyNode) continue;
      const keySpan = this.nodeSpan(keyNode);
      if (keyName === '<<' && isScalar(keyNode) && keyNode.type === 'PLAIN') {
        this.mergeInto(merged, pair.value as Node | null, prefix, depth);
        continue;
      }
      const path = prefix ? `${prefix}.${keyName}` : keyName;
      const entry = this.makeEntry(keyName, path, keySpan, pair.value as Node | null);
      const prev = out.get(keyName);
      if (prev) {
        const dupId = `${keySpan.start}`;
        if (!this.seenDuplicates.has(dupId)) {
          this.seenDuplicates.add(dupId);
          const severity = this.opts.omegaconf ? 'error' : 'warning';
          const line = this.line(prev.keySpan.start);
          const m = this.opts.omegaconf
            ? msg('`{0}` is already set on line {1}; OmegaConf refuses the file', path, line)
            : msg('`{0}` is already set on line {1}; the last one wins', path, line);
          this.problem('duplicate-key', severity, m, keySpan, path);
        }
      }
      out.set(keyName, entry);
    }
    for (const [k, e] of merged) if (!out.has(k)) out.set(k, e);
    return out;
  }

  private mergeInto(merged: Map<string, Entry>, value: Node | null, prefix: string, depth: number): void {
    const sources = value && isSeq(value) ? (value.items as Node[]) : [value];
    for (const src of sources) {
      if (!src || !isAlias(src)) continue;
      const target = this.resolveAlias(src);
      if (!target || !isMap(target)) continue;
      const site = this.nodeSpan(src);
      for (const [k, e] of this.entries(target, prefix, depth + 1)) {
        // The first merged map wins over later ones, as in YAML 1.1 merge keys.
        if (merged.has(k)) continue;
        merged.set(k, { ...e, keySpan: site, valueSpan: site, originSpan: e.originSpan ?? e.valueSpan });
      }
    }
  }

  private resolveAlias(node: Node): Node | undefined {
    let cur: Node | undefined = node;
    for (let i = 0; cur && isAlias(cur) && i < MAX_ALIAS_DEPTH; i++) {
      try {
        cur = this.doc ? (cur.resolve(this.doc) as Node | undefined) : undefined;
      } catch {
        cur = undefined;
      }
    }
    return cur && isAlias(cur) ? undefined : cur;
  }

  private makeEntry(key: string, path: string, keySpan: Span, raw: Node | null): Entry {
    if (!raw) return { key, path, keySpan, node: null, valueSpan: this.span(keySpan.end, keySpan.end) };
    const valueSpan = this.nodeSpan(raw);
    if (isAlias(raw)) {
      const target = this.resolveAlias(raw);
      if (!target)
        return { key, path, keySpan, node: null, valueSpan, unresolved: `alias ${raw.source} has no anchor` };
      return { key, path, keySpan, node: target, valueSpan, originSpan: this.nodeSpan(target) };
    }
    return { key, path, keySpan, node: raw, valueSpan };
  }

  /** Follows OmegaConf interpolations (`${a.b}`) written as the whole value; other strings are left alone. */
  private interpolate(e: Entry): Entry {
    if (!this.opts.omegaconf) return e;
    let cur: Entry = e;
    for (let hops = 0; hops < MAX_ALIAS_DEPTH; hops++) {
      const n = cur.node;
      if (!n || !isScalar(n) || typeof n.value !== 'string') return cur;
      const m = /^\$\{\s*([^${}]+?)\s*\}$/.exec(n.value.trim());
      if (!m) return n.value.includes('${') ? this.interpolateString(e, n.value) : cur;
      const ref = m[1] ?? '';
      if (ref.includes(':'))
        return {
          ...e,
          node: null,
          unresolved: `\`${n.value}\` is an OmegaConf resolver call, known only at launch time`,
        };
      const path = ref.replace(/^\.+/, '');
      const root = this.opts.interpolationRoot;
      const target = (root !== undefined ? this.lookup(`${root}.${path}`) : undefined) ?? this.lookup(path);
      if (!target)
        return {
          ...e,
          node: null,
          unresolved: `\`${n.value}\`: no key \`${ref}\` in this file (it may come from a command-line override)`,
        };
      cur = {
        ...e,
        node: target.node,
        originSpan: target.originSpan ?? target.valueSpan,
        unresolved: target.unresolved,
      };
    }
    return { ...e, node: null, unresolved: 'interpolation cycle' };
  }

  /**
   * `${upload_user}/${model_type}`: each reference a plain scalar of this file (DimensionSTP/llm-fine-tune-hf
   * configs/sft.yaml), the text built as OmegaConf builds it; else not known statically.
   */
  private interpolateString(e: Entry, text: string): Entry {
    let known = true;
    const built = text.replace(/\$\{\s*([^${}]+?)\s*\}/g, (_whole, ref: string) => {
      const path = ref.replace(/^\.+/, '');
      const root = this.opts.interpolationRoot;
      const target = ref.includes(':')
        ? undefined
        : ((root !== undefined ? this.lookup(`${root}.${path}`) : undefined) ?? this.lookup(path));
      const v = target?.node && isScalar(target.node) ? target.node.value : undefined;
      if ((typeof v === 'string' && !v.includes('${')) || typeof v === 'number' || typeof v === 'boolean')
        return String(v);
      known = false;
      return '';
    });
    if (!known || built.includes('${'))
      return { ...e, node: null, unresolved: `\`${text}\` is built by OmegaConf string interpolation at launch time` };
    return { ...e, node: new Scalar(built) };
  }

  /** A dotted path from the root (`tokenizer.max_seq_len`). */
  lookup(path: string): Entry | undefined {
    let entries = this.top();
    const parts = path.split('.');
    for (let i = 0; i < parts.length; i++) {
      const e = entries.get(parts[i] ?? '');
      if (!e) return undefined;
      if (i === parts.length - 1) return e;
      if (!e.node || !isMap(e.node)) return undefined;
      entries = this.entries(e.node, e.path);
    }
    return undefined;
  }

  /**
   * gradient_checkpointing_kwargs (a mapping, or JSON text as HF's dict arguments accept): its use_reentrant, the
   * torch.utils.checkpoint form the checkpointed layers run. Other keys do not change memory.
   */
  checkpointKwargs(e: Entry | undefined): void {
    if (!e) return;
    const inner = this.sub(e).get('use_reentrant');
    if (inner) {
      this.put('checkpointReentrant', inner, asBool);
      return;
    }
    const v = this.view(e);
    const r = v.t === 'str' ? useReentrantOfJson(v.v) : undefined;
    if (r !== undefined) this.add('checkpointReentrant', e, r);
  }

  /**
   * An FSDP config's activation_checkpointing set to true: Accelerate (and the HF Trainer through it) wraps each layer
   * in checkpoint_wrapper with CheckpointImpl.NO_REENTRANT (accelerate/accelerator.py, utils/fsdp_utils.py).
   */
  fsdpCheckpointing(e: Entry | undefined): void {
    if (!e || this.view(e).t === 'absent' || boolOf(this.view(e)) !== true) return;
    this.add('checkpointReentrant', e, false);
    this.add('checkpointWrapper', e, true);
  }

  /**
   * The HF Trainer's fsdp_config use_orig_params (a `fsdp_` prefix is stripped): TrainingArguments passes it to
   * Accelerate's plugin for FSDP1 only (transformers training_args.py), so a version 2 config leaves it unread.
   */
  trainerOrigParams(fsdpCfg: Map<string, Entry>): void {
    const version = fsdpCfg.get('version') ?? fsdpCfg.get('fsdp_version');
    if (version && numOf(this.view(version)) === 2) return;
    this.put('fsdpUseOrigParams', fsdpCfg.get('use_orig_params') ?? fsdpCfg.get('fsdp_use_orig_params'), asBool);
  }

  /**
   * The HF Trainer's fsdp_config cpu_ram_efficient_loading (a `fsdp_` prefix is stripped): TrainingArguments sets
   * Accelerate's plugin and FSDP_CPU_RAM_EFFICIENT_LOADING from it, "false" unless given (transformers training_args.py).
   */
  trainerCpuRamEfficient(fsdpCfg: Map<string, Entry>): void {
    const e = fsdpCfg.get('cpu_ram_efficient_loading') ?? fsdpCfg.get('fsdp_cpu_ram_efficient_loading');
    this.put('fsdpCpuRamEfficientLoading', e, asBool);
  }

  /**
   * The HF Trainer's accelerator_config (TrainingArguments; Axolotl passes its own through): with
   * gradient_accumulation_kwargs.sync_each_batch true every micro-batch reduces its gradients (no no_sync), false keeps
   * the Trainer's no_sync (transformers trainer.py, Accelerate GradientAccumulationPlugin).
   */
  syncEachBatch(acceleratorConfig: Entry | undefined): void {
    const e = this.sub(this.sub(acceleratorConfig).get('gradient_accumulation_kwargs')).get('sync_each_batch');
    this.put('fsdpNoSync', e, (v) => {
      const b = boolOf(v);
      return b === undefined ? asBool(v) : !b;
    });
  }

  /** The entries of a nested mapping value (an empty map when the value is not a mapping). */
  sub(e: Entry | undefined): Map<string, Entry> {
    return e && e.node && isMap(e.node) ? this.entries(e.node, e.path) : new Map();
  }

  /** How the tool reads an entry's value. */
  view(e: Entry): View {
    const template = this.templateView(e);
    if (template) return template;
    const r = this.interpolate(e);
    if (r.unresolved) return { t: 'unknown', reason: r.unresolved };
    return this.viewNode(r.node, 0);
  }

  private viewNode(node: Node | null | undefined, depth: number): View {
    if (!node) return { t: 'absent' };
    if (isAlias(node))
      return depth > MAX_ALIAS_DEPTH ? { t: 'absent' } : this.viewNode(this.resolveAlias(node), depth + 1);
    if (isMap(node)) return { t: 'map', node };
    if (isSeq(node))
      return depth > MAX_ALIAS_DEPTH
        ? { t: 'seq', items: [] }
        : { t: 'seq', items: (node.items as Node[]).map((i) => this.viewNode(i, depth + 1)) };
    if (!isScalar(node)) return { t: 'absent' };
    const v = node.value;
    const plain = node.type === 'PLAIN' || node.type === undefined;
    if (v === null || v === undefined) return { t: 'absent' };
    if (typeof v === 'boolean') return { t: 'bool', v };
    if (typeof v === 'number') return { t: 'num', v };
    if (typeof v === 'bigint') return { t: 'num', v: Number(v) };
    if (typeof v === 'string') {
      // PyYAML (YAML 1.1) reads `~` and empty plain scalars as null, like YAML 1.2; eemeli already did that.
      return { t: 'str', v, plain };
    }
    return { t: 'absent' };
  }

  /** A value written as (or with) a template expression: not known until the template is rendered. */
  private templateView(e: Entry): View | undefined {
    if (this.expressions.length === 0) return undefined;
    const p = expressionIn(this.expressions, e.originSpan ?? e.valueSpan);
    if (!p) return undefined;
    const written = this.text.slice(p.start, p.end);
    return {
      t: 'unknown',
      reason: `\`${written}\` is a template placeholder, filled in when the template is rendered`,
    };
  }

  /** The value text as written (the alias or interpolation for indirect values). */
  raw(e: Entry): string {
    return this.text.slice(e.valueSpan.start, e.valueSpan.end);
  }

  /**
   * Records a fact from an entry. Absent values record nothing; values that cannot be known statically become
   * unknown facts with a 'not-static' problem; values the tool would reject become 'invalid-value' problems.
   */
  put(key: CanonicalKey, e: Entry | undefined, conv: Conv, rawKey?: string): Fact | undefined {
    if (!e) return undefined;
    const template = this.templateView(e);
    const resolved = template ? e : this.interpolate(e);
    const view: View =
      template ??
      (resolved.unresolved ? { t: 'unknown', reason: resolved.unresolved } : this.viewNode(resolved.node, 0));
    if (view.t === 'absent') return undefined;
    if (view.t === 'unknown') {
      this.problem('not-static', 'warning', msg('{0}: {1}', e.path, view.reason), e.valueSpan, e.path);
      return this.add(key, e, { unknown: view.reason }, rawKey);
    }
    const value = conv(view);
    if (value === undefined) return undefined;
    if (value instanceof Invalid) {
      this.problem('invalid-value', value.severity, bySubject(value.why, e.path), e.valueSpan, e.path);
      return undefined;
    }
    return this.add(key, resolved, value, rawKey);
  }

  /** Records a fact with a value already computed (derived facts such as method from a component name). */
  add(
    key: CanonicalKey,
    e: Entry,
    value: FactValue | Unknown,
    rawKey?: string,
    spans?: { keySpan?: Span; valueSpan?: Span },
  ): Fact {
    const valueSpan = spans?.valueSpan ?? e.valueSpan;
    const base = {
      key,
      rawKey: rawKey ?? e.path,
      value,
      rawValue: this.text.slice(valueSpan.start, valueSpan.end),
      keySpan: spans?.keySpan ?? e.keySpan,
      valueSpan,
      tool: this.tool,
    };
    const fact: Fact = e.originSpan && !spans?.valueSpan ? { ...base, originSpan: e.originSpan } : base;
    this.facts.push(fact);
    return fact;
  }

  /** Records a tool's default made explicit at the key it follows from (origin 'call-default'): an assumption in resolve. */
  addDefault(key: CanonicalKey, e: Entry, value: FactValue, defaultNote: string): Fact {
    const fact: Fact = { ...this.add(key, e, value), origin: 'call-default', defaultNote };
    this.facts[this.facts.length - 1] = fact;
    return fact;
  }

  /** Records a fact read outside the YAML tree (a comment), at the given spans. */
  addAt(key: CanonicalKey, value: FactValue, rawKey: string, keySpan: Span, valueSpan: Span): Fact {
    const fact: Fact = {
      key,
      rawKey,
      value,
      rawValue: this.text.slice(valueSpan.start, valueSpan.end),
      keySpan,
      valueSpan,
      tool: this.tool,
    };
    this.facts.push(fact);
    return fact;
  }

  setTool(tool: Tool): void {
    this.tool = tool;
    this.tools.splice(0, this.tools.length, tool);
  }

  has(key: CanonicalKey): boolean {
    return this.facts.some((f) => f.key === key);
  }

  get(key: CanonicalKey): Fact | undefined {
    for (let i = this.facts.length - 1; i >= 0; i--) if (this.facts[i]?.key === key) return this.facts[i];
    return undefined;
  }

  /** Records a DeepSpeed config path as a Reference (followed by resolve relative to this file) and a fact. */
  deepspeedRef(e: Entry | undefined): void {
    if (!e) return;
    const v = this.view(e);
    if (v.t === 'str') {
      const p = v.v.trim();
      if (!p) return;
      if (p.startsWith('{')) {
        this.add('deepspeedConfig', e, '{inline json}');
        return;
      }
      this.references.push({ kind: 'deepspeed', path: p, span: e.valueSpan });
      this.add('deepspeedConfig', e, p);
    } else if (v.t === 'map') {
      this.add('deepspeedConfig', e, '{inline json}');
      this.inlineDeepspeed(e);
    } else if (v.t === 'unknown') {
      this.put('deepspeedConfig', e, () => undefined);
    } else if (v.t !== 'absent') {
      this.problem(
        'invalid-value',
        'error',
        msg('{0}: expected the path of a DeepSpeed JSON file', e.path),
        e.valueSpan,
        e.path,
      );
    }
  }

  /** The memory keys of a DeepSpeed config written inline as a mapping (FORMATS.md §1.4). */
  private inlineDeepspeed(e: Entry): void {
    const ds = this.sub(e);
    this.zeroBlock(ds.get('zero_optimization'));
    this.put('microBatchSize', ds.get('train_micro_batch_size_per_gpu'), asPosInt);
    this.put('gradientAccumulationSteps', ds.get('gradient_accumulation_steps'), asPosInt);
    this.put('trainBatchSize', ds.get('train_batch_size'), asPosInt);
  }

  /** An inline DeepSpeed config's zero_optimization: its stage and the offload devices; returns the mapping. */
  zeroBlock(e: Entry | undefined): ReadonlyMap<string, Entry> {
    const zero = this.sub(e);
    this.put('zeroStage', zero.get('stage'), asEnumInt([0, 1, 2, 3]));
    this.put('offloadOptimizer', this.sub(zero.get('offload_optimizer')).get('device'), asOffload);
    this.put('offloadParams', this.sub(zero.get('offload_param')).get('device'), asOffload);
    return zero;
  }

  /** Flags bf16 and fp16 both switched on (the tools raise "cannot be simultaneously enabled"). */
  checkPrecisionConflict(): void {
    const bf = this.get('bf16');
    const fp = this.get('fp16');
    if (bf && fp && bf.value === true && fp.value === true) {
      const later = bf.keySpan.start > fp.keySpan.start ? bf : fp;
      this.problem(
        'conflicting-precision',
        'error',
        msg('bf16 and fp16 are both enabled; the trainer refuses to start'),
        later.keySpan,
        later.rawKey,
      );
    }
  }

  /** `why` is about the key path: `about('`{0}` is deprecated: use ...')`. */
  deprecated(e: Entry | undefined, why: SubjectMessage, severity: ParseProblem['severity'] = 'warning'): void {
    if (e) this.problem('deprecated-key', severity, bySubject(why, e.path), e.keySpan, e.path);
  }

  result(): ConfigFacts {
    return {
      format: this.opts.format,
      facts: this.facts,
      problems: this.problems,
      references: this.references,
      tools: this.tools,
    };
  }
}

/** Runs an analyzer body and turns any internal failure into a located problem, keeping what was found. */
export function guarded(ctx: YamlCtx, body: () => void): ConfigFacts {
  try {
    body();
  } catch (err) {
    ctx.problem(
      'syntax-error',
      'error',
      msg('could not analyze the file: {0}', err instanceof Error ? err.message : String(err)),
      ctx.span(0, 0),
    );
  }
  return ctx.result();
}

/**
 * A precision given by name (LitGPT's Fabric names, Composer's): the weights' dtype and the autocast dtype its table
 * gives, at the key; a name not in the table is said with the names `expected`.
 */
export function precisionByName(
  ctx: YamlCtx,
  e: Entry | undefined,
  table: Readonly<Record<string, readonly [string, string]>>,
  expected: string,
): void {
  if (!e) return;
  const v = ctx.view(e);
  if (v.t === 'absent') return;
  const pair = table[(strOf(v) ?? (v.t === 'num' ? String(v.v) : '')).trim().toLowerCase()];
  if (!pair) {
    ctx.problem(
      'invalid-value',
      'warning',
      msg('{0}: expected {1}, found {2}', e.path, expected, describe(v)),
      e.valueSpan,
      e.path,
    );
    return;
  }
  ctx.add('weightsDtype', e, pair[0]);
  ctx.add('mixedPrecision', e, pair[1]);
}
