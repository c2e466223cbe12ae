// Reads the memory-relevant settings of Hugging Face training programs written in Python: TrainingArguments and TRL
// config calls, PEFT LoraConfig, BitsAndBytesConfig, from_pretrained and arguments dataclasses. It walks the
// @lezer/python tree and evaluates only literals, names bound to literals and dict spreads; it never runs code.
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from './python-parse';
import {
  evaluationOn, expandableSegmentsOf, galoreOf, galoreRankOf, msg, normalizeOptimizer, notModeled, rewardModelObjectNotCounted,
  type CanonicalKey, type Message, type ConfigFacts, type Fact, type FactValue, type ParseProblem, type Reference, type Span, type Tool, type Unknown,
} from './facts';

// Training argument classes. TRL configs subclass TrainingArguments and change its defaults
// (trl@f2cd577:trl/trainer/base_config.py), so their facts carry the 'trl' tool.
const HF_ARGS = new Set(['TrainingArguments', 'Seq2SeqTrainingArguments']);
const TRL_CONFIGS = new Set([
  'SFTConfig', 'DPOConfig', 'GRPOConfig', 'RLOOConfig', 'ORPOConfig', 'KTOConfig', 'PPOConfig', 'RewardConfig', 'CPOConfig',
  'BCOConfig', 'GKDConfig', 'PRMConfig', 'NashMDConfig', 'OnlineDPOConfig', 'XPOConfig', 'IterativeSFTConfig', 'GOLDConfig',
  'MiniLLMConfig', 'AlignPropConfig', 'DDPOConfig',
]);
const TRL_TRAINERS = /^(SFT|DPO|GRPO|RLOO|ORPO|KTO|PPO|Reward|CPO|BCO|GKD|PRM|NashMD|OnlineDPO|XPO|IterativeSFT|GOLD|MiniLLM)Trainer$/;
const HF_TRAINERS = new Set(['Trainer', 'Seq2SeqTrainer']);
/** transformers collators that pad each batch to its longest sample unless padding="max_length". */
const PADDING_COLLATORS = new Set(['DataCollatorForSeq2Seq', 'DataCollatorWithPadding']);
/** PEFT methods other than LoRA and IA3 (peft/tuners): their adapters and saved tensors are not modeled. */
const OTHER_PEFT_CONFIGS = new Set(['PromptTuningConfig', 'PrefixTuningConfig', 'PromptEncoderConfig', 'MultitaskPromptTuningConfig', 'AdaptionPromptConfig',
  'CPTConfig', 'LoHaConfig', 'LoKrConfig', 'AdaLoraConfig', 'OFTConfig', 'BOFTConfig', 'VeraConfig', 'FourierFTConfig', 'LNTuningConfig', 'BoneConfig',
  'MissConfig', 'HRAConfig', 'VBLoRAConfig', 'C3AConfig', 'ShiraConfig', 'RoadConfig', 'TrainableTokensConfig', 'XLoraConfig', 'PolyConfig',
  'RandLoraConfig', 'WaveFTConfig', 'DeloraConfig', 'GraloraConfig', 'OSFConfig']);
const PARSERS = new Set(['HfArgumentParser', 'TrlParser']);
/**
 * TRL's paired preference trainers: chosen and rejected run in one forward. DPO compares with a reference model (a
 * frozen copy, or the model with its adapters disabled); ORPO and CPO (SimPO with cpo_alpha=0) need none.
 */
const UNMODELED_TRL: Readonly<Record<string, string>> = {
  PPOConfig: 'ppo', NashMDConfig: 'xpo', XPOConfig: 'xpo',
};
const PREFERENCE_CONFIGS: Readonly<Record<string, string>> = {
  DPOConfig: 'dpo', DPOTrainer: 'dpo', KTOConfig: 'kto', KTOTrainer: 'kto', ORPOConfig: 'reference-free', ORPOTrainer: 'reference-free',
    CPOConfig: 'reference-free', CPOTrainer: 'reference-free',
  // RewardTrainer scores the chosen and the rejected sequence of each pair with a sequence classifier, no reference.
  RewardConfig: 'reward', RewardTrainer: 'reward',
};
/**
 * TRL's online RL trainers whose rollouts are modeled: GRPO generates completions, scores them, then trains on them;
 * RLOO has the same structure since TRL 0.23 (a leave-one-out baseline instead of the group's, beta 0.05 by default);
 * online DPO generates two completions per prompt in each micro-step and trains on the pair.
 */
const ROLLOUT_CONFIGS: Readonly<Record<string, string>> = {
  GRPOConfig: 'grpo', GRPOTrainer: 'grpo', RLOOConfig: 'rloo', RLOOTrainer: 'rloo', OnlineDPOConfig: 'online-dpo', OnlineDPOTrainer: 'online-dpo',
};
/** Unsloth's model classes (unsloth/models/loader.py FastLanguageModel and FastModel, vision.py FastVisionModel). */
export const UNSLOTH_CLASSES: ReadonlySet<string> = new Set(['FastLanguageModel', 'FastModel', 'FastVisionModel']);
/** FastLanguageModel.get_peft_model's target_modules default (unsloth/models/llama.py). */
const UNSLOTH_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
/** Sequence-length names used by TRL configs, the HF example scripts and the Alpaca/FastChat family (FORMATS.md §2.3). */
const SEQ_KEYS = new Set(['max_seq_length', 'model_max_length', 'max_seq_len', 'block_size', 'cutoff_len', 'sequence_len']);

type Val =
  | { readonly k: 'lit'; readonly v: FactValue; readonly via?: Via }
  | { readonly k: 'dotted'; readonly text: string; readonly via?: Via }
  | { readonly k: 'call'; readonly callee: string; readonly node: SyntaxNode; readonly via?: Via }
  | { readonly k: 'dict'; readonly entries: readonly Entry[]; readonly opaque: string[]; readonly via?: Via }
  | { readonly k: 'unknown'; readonly reason: string; readonly via?: Via };

/** The name binding a value came through, for rawValue and originSpan. */
interface Via {
  readonly text: string;
  readonly span: Span;
}

/** One key/value pair as written: a keyword argument, a dict entry, a dataclass field or an item assignment. */
interface Entry {
  readonly rawKey: string;
  readonly keySpan: Span;
  readonly valueNode: SyntaxNode | null;
  readonly valueSpan: Span;
  /** Set when the value is known not to be static whatever it says (an assignment under `if`). */
  readonly forced?: string;
}

interface Binding {
  readonly kind: 'assign' | 'unpack' | 'aug' | 'loop' | 'def';
  readonly valueNode: SyntaxNode | null;
  readonly pos: number;
  /** End of the binding statement: a use inside it (`x = x + 1`) sees the earlier binding. */
  readonly end: number;
  readonly condLine?: number;
}

interface ItemAssign {
  readonly keyNode: SyntaxNode;
  readonly key: string;
  readonly valueNode: SyntaxNode;
  readonly pos: number;
  readonly condLine?: number;
}

interface Scope {
  readonly node: SyntaxNode;
  readonly fn?: string;
  readonly params: Map<string, SyntaxNode | null>;
  readonly bindings: Map<string, Binding[]>;
  readonly items: Map<string, ItemAssign[]>;
}

type Ctx = 'train' | 'load' | 'bnb' | 'lora' | 'ia3' | 'trl-model' | 'dataclass';

const MAX_DEPTH = 40;

export function analyzeHfPython(text: string): ConfigFacts {
  const file = new PythonFile(text);
  try {
    run(file);
  } catch {
    // A parser or walker failure must not hide what was found before it; the partial result is returned.
  }
  return file.result();
}

/**
 * One Python file under analysis: what it has found so far (facts, problems, references, tools), the indexes built
 * over its tree (scopes and bindings, local argument classes, field defaults), and the static evaluation that every
 * recognized call uses. The calls themselves are read by functions of this state (trainingCall, mapEntry, ...).
 */
class PythonFile {
  facts: Fact[] = [];
  /** Trainer calls with compute_metrics and no preprocess_logits_for_metrics (see trainerCall). */
  readonly keptLogits: Array<{ e: Entry; tool: Tool }> = [];
  /** eval_accumulation_steps, prediction_loss_only=True or batch_eval_metrics=True seen in training arguments. */
  logitsReleased = false;
  /** Reward models loaded with from_pretrained and passed to a trainer whose Hub id is a literal. */
  scoringIds = 0;
  /** Checkpointing set on the model by Unsloth's from_pretrained / get_peft_model: it decides over the trainer's. */
  readonly unslothCheckpointing = { load: [] as Fact[], peft: [] as Fact[] };
  readonly problems: ParseProblem[] = [];
  readonly references: Reference[] = [];
  readonly tools = new Set<Tool>();
  private readonly lineStarts: number[] = [0];
  private readonly scopeKeys = new Map<string, Scope>();
  /** Local classes that subclass a training-arguments class, with the tool of their root. */
  readonly localArgs = new Map<string, Tool>();
  /** Field defaults of the file's dataclasses and argparse options, for the reasons of `args.x` unknowns. */
  readonly fieldDefaults = new Map<string, { text: string; line: number; where: string }>();
  readonly parsedClasses = new Set<string>();
  readonly errors: number[] = [];
  root!: SyntaxNode;

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  result(): ConfigFacts {
    const tools = [...this.tools].sort((x, y) => (x === 'trl' ? -1 : y === 'trl' ? 1 : 0));
    return { format: 'hf-python', facts: this.facts, problems: this.problems, references: this.references, tools };
  }

  // ---- Facts and problems ----

  push(key: CanonicalKey, e: Entry, value: FactValue | Unknown, tool: Tool, from?: Val, origin?: Fact['origin']): void {
    const written = this.text.slice(e.valueSpan.start, e.valueSpan.end);
    const rawValue = clip(from?.via ? `${written} (${from.via.text})` : written);
    const fact: Fact = {
      key, rawKey: e.rawKey, value, rawValue, keySpan: e.keySpan, valueSpan: e.valueSpan, tool,
      ...(from?.via ? { originSpan: from.via.span } : {}),
      ...(origin ? { origin } : {}),
    };
    this.facts.push(fact);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      this.problem('not-static', 'info', msg('{0} is not known statically: {1}', e.rawKey, (value as Unknown).unknown), e.valueSpan, e.rawKey);
    }
  }

  problem(code: ParseProblem['code'], severity: ParseProblem['severity'], m: Message, at: Span, rawKey?: string): void {
    this.problems.push({ code, severity, message: m.message, template: m.template, span: at, ...(rawKey ? { rawKey } : {}) });
  }

  opaqueSpreads(list: readonly { reason: string; span: Span }[]): void {
    for (const o of list) this.problem('not-static', 'info', msg('{0}: the keys it sets are not known statically', o.reason), o.span);
  }

  // ---- Arguments of a call ----

  args(call: SyntaxNode): { positional: SyntaxNode[]; entries: Entry[]; opaque: { reason: string; span: Span }[] } {
    const positional: SyntaxNode[] = [];
    const entries: Entry[] = [];
    const opaque: { reason: string; span: Span }[] = [];
    const list = call.getChild('ArgList');
    if (!list) return { positional, entries, opaque };
    for (let ch = list.firstChild; ch; ch = ch.nextSibling) {
      const n = ch.name;
      if (n === '(' || n === ')' || n === ',' || ch.type.isError) continue;
      if (n === '**' || n === '*') {
        const target = ch.nextSibling;
        if (!target || target.name === ')' || target.name === ',') continue;
        ch = target;
        if (n === '*') continue;
        const v = this.evalNode(target, 0);
        if (v.k === 'dict') {
          entries.push(...v.entries);
          for (const r of v.opaque) opaque.push({ reason: r, span: span(target) });
        } else {
          opaque.push({ reason: `**${clip(this.text.slice(target.from, target.to))} is ${this.describe(v)}`, span: span(target) });
        }
        continue;
      }
      const next = ch.nextSibling;
      if (n === 'VariableName' && next?.name === 'AssignOp') {
        const value = next.nextSibling;
        const valueOk = value && value.name !== ',' && value.name !== ')' && !value.type.isError;
        entries.push({
          rawKey: this.text.slice(ch.from, ch.to), keySpan: span(ch), valueNode: valueOk ? value : null,
          valueSpan: valueOk ? span(value) : { start: next.to, end: next.to }, ...(valueOk ? {} : { forced: 'the value is missing' }),
        });
        ch = valueOk ? value : next;
        continue;
      }
      positional.push(ch);
    }
    return { positional, entries, opaque };
  }

  valueOf(e: Entry): Val {
    if (e.forced) return { k: 'unknown', reason: e.forced };
    if (!e.valueNode) return { k: 'unknown', reason: 'the value is missing' };
    return this.evalNode(e.valueNode, 0);
  }

  // ---- Static evaluation ----

  evalNode(node: SyntaxNode, depth: number): Val {
    if (depth > MAX_DEPTH) return { k: 'unknown', reason: 'too deeply nested to read' };
    const t = this.text.slice(node.from, node.to);
    switch (node.name) {
      case 'Number': {
        const n = parseNumber(t);
        return n === undefined ? { k: 'unknown', reason: `the number ${t} is not a plain int or float` } : { k: 'lit', v: n };
      }
      case 'UnaryExpression': {
        const op = node.firstChild;
        const arg = op?.nextSibling;
        if (op && arg && (op.name === 'ArithOp') && arg.name === 'Number') {
          const n = parseNumber(this.text.slice(arg.from, arg.to));
          const sign = this.text.slice(op.from, op.to);
          if (n !== undefined && (sign === '-' || sign === '+')) return { k: 'lit', v: sign === '-' ? -n : n };
        }
        return { k: 'unknown', reason: `${clip(t)} is computed at run time` };
      }
      case 'String': {
        const s = pyString(t);
        return s === undefined ? { k: 'unknown', reason: `the string ${clip(t)} is not a plain str literal` } : { k: 'lit', v: s };
      }
      case 'FormatString':
        if (node.getChild('FormatReplacement')) return { k: 'unknown', reason: `the f-string ${clip(t)} is formatted at run time` };
        {
          const s = pyString(t);
          return s === undefined ? { k: 'unknown', reason: `the f-string ${clip(t)} is formatted at run time` }
            : { k: 'lit', v: s.replace(/\{\{/g, '{').replace(/\}\}/g, '}') };
        }
      case 'ContinuedString': {
        let acc = '';
        for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
          const v = this.evalNode(ch, depth + 1);
          if (v.k !== 'lit' || typeof v.v !== 'string') return { k: 'unknown', reason: `${clip(t)} is formatted at run time` };
          acc += v.v;
        }
        return { k: 'lit', v: acc };
      }
      case 'Boolean': return { k: 'lit', v: t === 'True' };
      case 'None': return { k: 'lit', v: null };
      case 'ParenthesizedExpression': {
        const inner = node.firstChild?.nextSibling;
        return inner && inner.name !== ')' ? this.evalNode(inner, depth + 1) : { k: 'unknown', reason: 'empty parentheses' };
      }
      case 'ArrayExpression': case 'TupleExpression': {
        const items: string[] = [];
        for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
          if (['[', ']', '(', ')', ','].includes(ch.name)) continue;
          const v = this.evalNode(ch, depth + 1);
          if (v.k !== 'lit' || typeof v.v !== 'string') return { k: 'unknown', reason: `${clip(t)} is not a list of string literals` };
          items.push(v.v);
        }
        return { k: 'lit', v: items };
      }
      case 'DictionaryExpression': return this.dictLiteral(node, depth);
      case 'CallExpression': {
        const callee = this.calleeName(node) ?? clip(this.text.slice(node.firstChild?.from ?? node.from, node.firstChild?.to ?? node.to));
        if (callee === 'dict') return this.dictCall(node, depth);
        return { k: 'call', callee, node };
      }
      case 'VariableName': return this.evalName(node, depth);
      case 'MemberExpression': {
        const d = this.dotted(node);
        if (d) return { k: 'dotted', text: d };
        return { k: 'unknown', reason: `${clip(t)} is looked up at run time` };
      }
      case 'ConditionalExpression':
        return { k: 'unknown', reason: `${clip(t)} is chosen at run time` };
      default:
        return { k: 'unknown', reason: `${clip(t)} is computed at run time` };
    }
  }

  private dictLiteral(node: SyntaxNode, depth: number): Val {
    const entries: Entry[] = [];
    const opaque: string[] = [];
    for (let ch = node.firstChild; ch; ch = ch.nextSibling) {
      if (ch.name === '{' || ch.name === '}' || ch.name === ',' || ch.type.isError) continue;
      if (ch.name === '**') {
        const target = ch.nextSibling;
        if (!target) break;
        ch = target;
        const v = this.evalNode(target, depth + 1);
        if (v.k === 'dict') {
          entries.push(...v.entries);
          opaque.push(...v.opaque);
        } else opaque.push(`**${clip(this.text.slice(target.from, target.to))} is ${this.describe(v)}`);
        continue;
      }
      const colon = ch.nextSibling;
      if (!colon || colon.name !== ':') continue;
      const value = colon.nextSibling;
      const key = ch.name === 'String' ? pyString(this.text.slice(ch.from, ch.to)) : undefined;
      if (key === undefined) opaque.push(`the key ${clip(this.text.slice(ch.from, ch.to))} is computed at run time`);
      else if (value && value.name !== ',' && value.name !== '}')
        entries.push({ rawKey: key, keySpan: stringInner(this.text, ch), valueNode: value, valueSpan: span(value) });
      ch = value && value.name !== ',' && value.name !== '}' ? value : colon;
    }
    return { k: 'dict', entries, opaque };
  }

  private dictCall(node: SyntaxNode, depth: number): Val {
    if (depth > MAX_DEPTH) return { k: 'unknown', reason: 'too deeply nested to read' };
    const a = this.args(node);
    const opaque = a.opaque.map((o) => o.reason);
    if (a.positional.length) opaque.push('dict(...) built from a positional argument');
    return { k: 'dict', entries: a.entries, opaque };
  }

  private evalName(node: SyntaxNode, depth: number): Val {
    const name = this.text.slice(node.from, node.to);
    const found = this.lookup(name, node);
    if (found.k !== 'binding') return { k: 'unknown', reason: found.reason };
    const b = found.binding;
    const line = this.line(b.pos);
    if (b.kind !== 'assign' || !b.valueNode) {
      const why = { unpack: 'is unpacked from a call', aug: 'is updated in place', loop: 'is a loop variable', def: 'is a function or class',
        assign: 'has no value' }[b.kind];
      return { k: 'unknown', reason: `${name} ${why} (line ${line})` };
    }
    if (b.condLine !== undefined) return { k: 'unknown', reason: `${name} is set conditionally at line ${b.condLine}` };
    const inner = this.evalNode(b.valueNode, depth + 1);
    const via: Via = inner.via ?? { text: `${name} = ${clip(this.text.slice(b.valueNode.from, b.valueNode.to), 40)} at line ${line}`,
      span: span(b.valueNode) };
    if (inner.k === 'dict') return { ...inner, entries: this.applyItems(name, found.scope, b, node, inner.entries), via };
    if (inner.k === 'unknown') return { k: 'unknown', reason: clip(`${name} = ${inner.reason} (line ${line})`, 240), via };
    return { ...inner, via };
  }

  /** Later `name["key"] = value` statements change a dict; under `if` the key's value is no longer static. */
  private applyItems(name: string, scope: Scope, b: Binding, use: SyntaxNode, entries: readonly Entry[]): Entry[] {
    const out = [...entries];
    const sameScope = this.scopeChain(use)[0] === scope;
    for (const it of scope.items.get(name) ?? []) {
      if (it.pos <= b.pos || (sameScope && it.pos > use.from)) continue;
      const entry: Entry = {
        rawKey: it.key, keySpan: stringInner(this.text, it.keyNode), valueNode: it.valueNode, valueSpan: span(it.valueNode),
        ...(it.condLine !== undefined ? { forced: `set conditionally at line ${it.condLine}` } : {}),
      };
      const i = out.findIndex((x) => x.rawKey === it.key);
      if (i >= 0) out.splice(i, 1);
      out.push(entry);
    }
    return out;
  }

  private lookup(name: string, use: SyntaxNode): { k: 'binding'; binding: Binding; scope: Scope } | { k: 'none'; reason: string } {
    const chain = this.scopeChain(use);
    for (let i = 0; i < chain.length; i++) {
      const s = chain[i];
      if (s.params.has(name)) {
        const d = s.params.get(name);
        return { k: 'none', reason: `${name} is a parameter of ${s.fn ?? 'a function'}()${d ? ` (default ${clip(this.text.slice(d.from, d.to), 40)})` : ''}` };
      }
      const bs = s.bindings.get(name);
      if (!bs || bs.length === 0) continue;
      const before = i === 0 ? bs.filter((b) => b.end <= use.from) : bs;
      const pick = (before.length ? before : bs)[(before.length ? before : bs).length - 1];
      return { k: 'binding', binding: pick, scope: s };
    }
    return { k: 'none', reason: `${name} is not assigned in this file` };
  }

  bindingValue(node: SyntaxNode): SyntaxNode | null {
    const found = this.lookup(this.text.slice(node.from, node.to), node);
    return found.k === 'binding' && found.binding.kind === 'assign' ? found.binding.valueNode : null;
  }

  /** Innermost first: enclosing functions, then the module. Class bodies are not scopes for the code inside them. */
  private scopeChain(node: SyntaxNode): Scope[] {
    const chain: Scope[] = [];
    for (let p: SyntaxNode | null = node.parent; p; p = p.parent) {
      if (p.name === 'FunctionDefinition' || p.name === 'LambdaExpression') chain.push(this.scopeOf(p));
    }
    chain.push(this.scopeOf(this.root));
    return chain;
  }

  private scopeOf(node: SyntaxNode): Scope {
    const key = `${node.name}@${node.from}`;
    const hit = this.scopeKeys.get(key);
    if (hit) return hit;
    const nameNode = node.name === 'FunctionDefinition' ? node.getChild('VariableName') : null;
    const scope: Scope = { node, fn: nameNode ? this.text.slice(nameNode.from, nameNode.to) : undefined, params: new Map(),
      bindings: new Map(), items: new Map() };
    this.scopeKeys.set(key, scope);
    const params = node.name === 'Script' ? null : node.getChild('ParamList');
    if (params) {
      for (let ch = params.firstChild; ch; ch = ch.nextSibling) {
        if (ch.name !== 'VariableName' || ch.prevSibling?.name === 'AssignOp') continue;
        let def: SyntaxNode | null = null;
        for (let n = ch.nextSibling; n && n.name !== ','; n = n.nextSibling) if (n.name === 'AssignOp') def = n.nextSibling;
        scope.params.set(this.text.slice(ch.from, ch.to), def);
      }
    }
    const body = node.name === 'Script' ? node : node.getChild('Body');
    if (body && node.name !== 'LambdaExpression') this.collectBindings(scope, body, undefined, 0);
    return scope;
  }

  private collectBindings(scope: Scope, node: SyntaxNode, condLine: number | undefined, depth: number): void {
    if (depth > 200) return;
    for (let st = node.firstChild; st; st = st.nextSibling) {
      switch (st.name) {
        case 'AssignStatement': this.assignment(scope, st, condLine); break;
        case 'UpdateStatement': {
          const target = st.firstChild;
          if (target?.name === 'VariableName') this.bind(scope, this.text.slice(target.from, target.to),
            { kind: 'aug', valueNode: null, pos: st.from, end: st.to, condLine });
          break;
        }
        case 'FunctionDefinition': case 'ClassDefinition': {
          const n = st.getChild('VariableName');
          if (n) this.bind(scope, this.text.slice(n.from, n.to), { kind: 'def', valueNode: null, pos: st.from, end: st.to, condLine });
          break;
        }
        case 'DecoratedStatement': this.collectBindings(scope, st, condLine, depth + 1); break;
        case 'ForStatement': {
          for (let ch = st.firstChild; ch && ch.name !== 'in'; ch = ch.nextSibling) {
            if (ch.name === 'VariableName') this.bind(scope, this.text.slice(ch.from, ch.to),
              { kind: 'loop', valueNode: null, pos: st.from, end: st.to, condLine });
          }
          this.collectBlocks(scope, st, condLine ?? this.line(st.from), depth);
          break;
        }
        case 'IfStatement': {
          const cond = this.text.slice(st.firstChild?.to ?? st.from, st.getChild('Body')?.from ?? st.from);
          const mainGuard = /__name__\s*==\s*['"]__main__['"]/.test(cond);
          this.collectBlocks(scope, st, mainGuard ? condLine : condLine ?? this.line(st.from), depth);
          break;
        }
        case 'WhileStatement': case 'TryStatement': case 'WithStatement': case 'MatchStatement':
          this.collectBlocks(scope, st, condLine ?? this.line(st.from), depth);
          break;
        default: break;
      }
    }
  }

  private collectBlocks(scope: Scope, st: SyntaxNode, condLine: number | undefined, depth: number): void {
    for (let ch = st.firstChild; ch; ch = ch.nextSibling) {
      if (ch.name === 'Body') this.collectBindings(scope, ch, condLine, depth + 1);
      else if (ch.name === 'MatchBody') this.collectBlocks(scope, ch, condLine, depth + 1);
      else if (ch.name === 'MatchClause') this.collectBlocks(scope, ch, condLine, depth + 1);
    }
  }

  private assignment(scope: Scope, st: SyntaxNode, condLine: number | undefined): void {
    const value = st.lastChild;
    if (!value || value.name === 'AssignOp') return;
    const targets: SyntaxNode[] = [];
    let sawOp = false;
    for (let ch = st.firstChild; ch && ch.from < value.from; ch = ch.nextSibling) {
      if (ch.name === 'AssignOp') { sawOp = true; continue; }
      if (ch.name !== 'TypeDef' && ch.name !== ',') targets.push(ch);
    }
    if (!sawOp) return;
    const unpack = targets.length > 1 || targets.some((t) => t.name === 'TupleExpression' || t.name === 'ArrayExpression');
    for (const t of targets) {
      if (t.name === 'VariableName') {
        this.bind(scope, this.text.slice(t.from, t.to), { kind: unpack ? 'unpack' : 'assign', valueNode: unpack ? null : value, pos: st.from,
          end: st.to, condLine });
      } else if (t.name === 'TupleExpression' || t.name === 'ArrayExpression' || t.name === 'ParenthesizedExpression') {
        for (let ch = t.firstChild; ch; ch = ch.nextSibling) {
          if (ch.name === 'VariableName') this.bind(scope, this.text.slice(ch.from, ch.to),
            { kind: 'unpack', valueNode: null, pos: st.from, end: st.to, condLine });
        }
      } else if (t.name === 'MemberExpression') {
        // `name["key"] = value`: an item assignment on a dict bound to `name`.
        const obj = t.firstChild;
        const open = obj?.nextSibling;
        const key = open?.nextSibling;
        if (obj?.name === 'VariableName' && open?.name === '[' && key?.name === 'String') {
          const k = pyString(this.text.slice(key.from, key.to));
          if (k !== undefined) {
            const name = this.text.slice(obj.from, obj.to);
            const list = scope.items.get(name) ?? [];
            list.push({ keyNode: key, key: k, valueNode: value, pos: st.from, condLine });
            scope.items.set(name, list);
          }
        }
      }
    }
  }

  private bind(scope: Scope, name: string, b: Binding): void {
    const list = scope.bindings.get(name) ?? [];
    list.push(b);
    scope.bindings.set(name, list);
  }

  // ---- Helpers over nodes ----

  /** The condition under which a call's value is used: a conditional expression or an `if` around it (not the main guard). */
  conditionOf(call: SyntaxNode): string | undefined {
    let child: SyntaxNode = call;
    for (let p = call.parent; p; child = p, p = p.parent) {
      if (p.name === 'ConditionalExpression') {
        const kw = p.getChild('if');
        const els = p.getChild('else');
        if (kw && els && child.from < kw.from) return `${clip(this.text.slice(kw.to, els.from).trim(), 60)} is true (line ${this.line(kw.from)})`;
        if (kw && els && child.from > els.from) return `${clip(this.text.slice(kw.to, els.from).trim(), 60)} is false (line ${this.line(kw.from)})`;
      }
      if (p.name === 'IfStatement') {
        const cond = this.text.slice(p.firstChild?.to ?? p.from, p.getChild('Body')?.from ?? p.from).trim();
        if (!/__name__\s*==\s*['"]__main__['"]/.test(cond)) return `the if at line ${this.line(p.from)} runs this branch`;
      }
      if (p.name === 'FunctionDefinition' || p.name === 'Script') return undefined;
    }
    return undefined;
  }

  calleeName(call: SyntaxNode): string | undefined {
    const c = call.firstChild;
    return c ? this.dotted(c) : undefined;
  }

  /** `a.b.c` as text when the node is only names and attributes (at most 64 deep), else undefined. */
  dotted(node: SyntaxNode): string | undefined {
    const props: string[] = [];
    let n: SyntaxNode = node;
    for (let i = 0; i < 64; i++) {
      if (n.name === 'VariableName') return [this.text.slice(n.from, n.to), ...props.reverse()].join('.');
      if (n.name !== 'MemberExpression') return undefined;
      const obj = n.firstChild;
      const dot = obj?.nextSibling;
      const prop = dot?.nextSibling;
      if (!obj || dot?.name !== '.' || prop?.name !== 'PropertyName' || prop.nextSibling) return undefined;
      props.push(this.text.slice(prop.from, prop.to));
      n = obj;
    }
    return undefined;
  }

  /** Why a value is not a static literal, with the dataclass or argparse default of `x.field` when the file has one. */
  describe(v: Val): string {
    switch (v.k) {
      case 'unknown': return v.reason;
      case 'dotted': {
        const field = v.text.split('.').pop()!;
        const d = this.fieldDefaults.get(field);
        const hint = d ? `; the ${d.where} is ${d.text} (line ${d.line})` : '';
        return `${v.text} is read at run time${hint}`;
      }
      case 'call': return `computed by ${clip(v.callee, 60)}(...) at run time`;
      case 'dict': return 'a dict';
      case 'lit': return `the literal ${fmt(v.v)}`;
    }
  }

  line(pos: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

function run(file: PythonFile): void {
  const parsed = parsePython(file.text);
  file.problems.push(...parsed.problems);
  file.root = parsed.tree.topNode;
  const classes: SyntaxNode[] = [];
  const calls: SyntaxNode[] = [];
  const cur = file.root.cursor();
  for (;;) {
    if (cur.type.isError) file.errors.push(cur.from);
    if (cur.name === 'ClassDefinition') classes.push(cur.node);
    else if (cur.name === 'CallExpression') calls.push(cur.node);
    if (cur.firstChild()) continue;
    while (!cur.nextSibling()) if (!cur.parent()) return afterWalk(file, classes, calls);
  }
}

function afterWalk(file: PythonFile, classes: SyntaxNode[], calls: SyntaxNode[]): void {
  // Parsers and argparse options first: they tell which dataclasses are arguments and give the defaults of `args.x`.
  for (const c of calls) {
    const callee = file.calleeName(c);
    const last = callee?.split('.').pop() ?? '';
    if (PARSERS.has(last)) noteParser(file, c, last);
    else if (last === 'add_argument') noteArgparse(file, c);
  }
  collectClasses(file, classes);
  const padsToMax = padToMaxLength(file);
  allocatorConf(file);
  const scorers = scoringModelNames(file, calls);
  for (const c of calls) {
    const callee = file.calleeName(c);
    if (!callee) continue;
    const parts = callee.split('.');
    const last = parts[parts.length - 1];
    const calleeNode = c.firstChild!;
    if (HF_ARGS.has(last) || TRL_CONFIGS.has(last) || file.localArgs.has(last)) {
      const tool: Tool = TRL_CONFIGS.has(last) || parts[0] === 'trl' ? 'trl' : file.localArgs.get(last) ?? 'hf-trainer';
      file.tools.add(tool);
      trainingCall(file, c, tool, TRL_CONFIGS.has(last) || file.localArgs.has(last));
      syntaxIn(file, c, last);
    } else if ((last === 'from_pretrained' || last === 'get_peft_model') && parts.length >= 2 && UNSLOTH_CLASSES.has(parts[parts.length - 2])) {
      file.tools.add('unsloth');
      if (last === 'from_pretrained') unslothLoad(file, c);
      else unslothPeft(file, c, parts[parts.length - 2]);
      syntaxIn(file, c, last);
    } else if (last === 'from_pretrained' && parts.length >= 2 && isModelClass(parts[parts.length - 2])) {
      const target = assignedName(c, file.text);
      if (target !== undefined && scorers.has(target)) scoringModel(file, c);
      else fromPretrained(file, c);
    } else if (last === 'BitsAndBytesConfig') {
      bnbCall(file, c);
      syntaxIn(file, c, last);
    } else if (last === 'LoraConfig') {
      loraCall(file, c);
      file.facts.push({ key: 'method', rawKey: 'LoraConfig', value: 'lora', rawValue: 'LoraConfig(...)', keySpan: span(calleeNode),
        valueSpan: span(calleeNode), tool: 'peft' });
      syntaxIn(file, c, last);
    } else if (OTHER_PEFT_CONFIGS.has(last)) {
      file.tools.add('peft');
      file.problem('not-modeled', 'warning', msg('{0}: this PEFT method is not modeled; unless a method is set elsewhere the model is estimated as fully fine-tuned, far above what it needs', last), span(calleeNode), last);
      syntaxIn(file, c, last);
    } else if (last === 'IA3Config') {
      for (const e of file.args(c).entries) mapEntry(file, 'ia3', e, 'peft');
      file.facts.push({ key: 'method', rawKey: 'IA3Config', value: 'ia3', rawValue: 'IA3Config(...)', keySpan: span(calleeNode),
        valueSpan: span(calleeNode), tool: 'peft' });
      syntaxIn(file, c, last);
    } else if (last === 'ModelConfig' && (parts.length === 1 || parts[0] === 'trl')) {
      file.tools.add('trl');
      for (const e of file.args(c).entries) mapEntry(file, 'trl-model', e, 'trl');
    } else if (PADDING_COLLATORS.has(last) && !padsToMax) {
      // Each batch is padded to its longest sample: the allocator caches blocks of shorter batches.
      file.facts.push({ key: 'batchLengths', rawKey: last, value: 'variable', rawValue: `${last}(...)`, keySpan: span(calleeNode),
        valueSpan: span(calleeNode), tool: 'hf-trainer' });
    } else if (HF_TRAINERS.has(last) || TRL_TRAINERS.test(last)) {
      file.tools.add(TRL_TRAINERS.test(last) ? 'trl' : 'hf-trainer');
      trainerCall(file, c, TRL_TRAINERS.test(last) ? 'trl' : 'hf-trainer');
    } else if (last === 'prepare_model_for_kbit_training') {
      kbitPreparation(file, c);
    }
  }
  // prepare_model_for_kbit_training turns checkpointing on in the model itself; Trainer only ever turns it on, so
  // the call decides over a gradient_checkpointing=False (or its absence) anywhere in the file.
  if (!file.logitsReleased) for (const { e, tool } of file.keptLogits) file.push('evalKeepsLogits', e, true, tool);
  const prepared = file.facts.filter((f) => f.rawKey === 'prepare_model_for_kbit_training');
  if (prepared.length > 0) {
    // Checkpointing first, the upcast last: a hover on the call speaks of the upcast.
    file.facts = file.facts.filter((f) => f.rawKey !== 'prepare_model_for_kbit_training');
    file.facts.push(...prepared.filter((f) => f.key === 'gradientCheckpointing'), ...prepared.filter((f) => f.key !== 'gradientCheckpointing'));
  }
  // Unsloth enables checkpointing on the model; the trainer's gradient_checkpointing=False does not undo it.
  // get_peft_model sets it again after from_pretrained, so the latter's speaks only when there is no get_peft_model.
  const gc = file.unslothCheckpointing;
  file.facts.push(...(gc.peft.length > 0 ? gc.peft : gc.load));
  // LoRA over 4-bit base weights is QLoRA (FORMATS.md §2.5).
  if (file.facts.some((f) => f.key === 'quantBits' && f.value === 4)) {
    for (let i = 0; i < file.facts.length; i++) if (file.facts[i].key === 'method' && file.facts[i].value === 'lora')
      file.facts[i] = { ...file.facts[i], value: 'qlora' };
  }
  precisionConflicts(file);
}

function trainingCall(file: PythonFile, call: SyntaxNode, tool: Tool, trlOrLocal: boolean): void {
  const args = file.args(call);
  const name = file.calleeName(call)?.split('.').pop() ?? '';
  const pref = PREFERENCE_CONFIGS[name];
  const unmodeled = UNMODELED_TRL[name];
  if (unmodeled) file.problem('not-modeled', 'warning', notModeled(name, unmodeled), span(call.firstChild!), name);
  if (pref) calleeFact(file, call, 'preference', name, pref, `${name}(...)`, tool);
  if (ROLLOUT_CONFIGS[name]) calleeFact(file, call, 'rollout', name, ROLLOUT_CONFIGS[name], `${name}(...)`, tool);
  if (name === 'RewardConfig') rewardHead(file, call, name, tool);
  for (const e of args.entries) mapEntry(file, 'train', e, tool, undefined, trlOrLocal);
  file.opaqueSpreads(args.opaque);
}

/**
 * Names passed to a trainer as its reward model (OnlineDPOTrainer reward_model=, GRPOTrainer reward_funcs=, PPO's
 * value_model=): their from_pretrained loads a scoring model beside the policy, not the model that trains.
 */
function scoringModelNames(file: PythonFile, calls: readonly SyntaxNode[]): Set<string> {
  const out = new Set<string>();
  for (const c of calls) {
    if (!/Trainer$/.test(file.calleeName(c)?.split('.').pop() ?? '')) continue;
    for (const e of file.args(c).entries) {
      if (!['reward_model', 'reward_funcs', 'value_model'].includes(e.rawKey) || !e.valueNode) continue;
      const nodes = e.valueNode.name === 'VariableName' ? [e.valueNode] : children(e.valueNode).filter((n) => n.name === 'VariableName');
      for (const n of nodes) out.add(file.text.slice(n.from, n.to));
    }
  }
  return out;
}

/** A reward model's from_pretrained: a Hub id string names it (counted like GRPO's reward_funcs ids); its keywords are its own. */
function scoringModel(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  const first = args.positional[0] ?? args.entries.find((e) => e.rawKey === 'pretrained_model_name_or_path')?.valueNode ?? undefined;
  if (!first) return;
  const v = file.evalNode(first, 0);
  if (v.k === 'lit' && typeof v.v === 'string') {
    file.push('rewardModels', { rawKey: 'reward_model', keySpan: span(first), valueNode: first, valueSpan: span(first) }, [v.v], 'trl');
    file.scoringIds++;
  }
}

function fromPretrained(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  // A sequence classifier's class replaces the LM head with a score layer (no vocabulary logits); the other model
  // classes load the head of the model's family.
  const cls = file.calleeName(call)?.split('.').slice(-2, -1)[0] ?? '';
  if (/ForSequenceClassification$/.test(cls)) {
    const node = call.firstChild!;
    const callee = file.text.slice(node.from, node.to);
    file.facts.push({ key: 'head', rawKey: callee, value: 'seq_cls', rawValue: `${callee}(...)`, keySpan: span(node),
      valueSpan: span(node), tool: 'hf-trainer' });
  }
  const first = args.positional[0];
  if (first) {
    const e: Entry = { rawKey: 'pretrained_model_name_or_path', keySpan: span(first), valueNode: first, valueSpan: span(first) };
    emitModel(file, e, 'hf-trainer');
  }
  const entries = args.entries;
  const named = entries.find((e) => e.rawKey === 'pretrained_model_name_or_path');
  if (!first && named) emitModel(file, named, 'hf-trainer');
  for (const e of entries) mapEntry(file, 'load', e, 'hf-trainer');
  implicitBnbDefaults(file, entries, call, 'hf-trainer');
  file.opaqueSpreads(args.opaque);
}

function bnbCall(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  const cond = file.conditionOf(call);
  for (const e of args.entries) {
    if (cond && (e.rawKey === 'load_in_4bit' || e.rawKey === 'load_in_8bit')) {
      const v = file.valueOf(e);
      if (v.k === 'lit' && v.v === true) {
        file.push('quantBits', e, { unknown: `the quantization config is used only when ${cond}` }, 'hf-trainer');
        continue;
      }
    }
    mapEntry(file, 'bnb', e, 'hf-trainer');
  }
  implicitBnbDefaults(file, args.entries, call, 'hf-trainer');
  file.opaqueSpreads(args.opaque);
}

/**
 * BitsAndBytesConfig defaults to fp4 without double quantization (transformers quantization_config.py), while TRL's
 * ModelConfig defaults to nf4, so a 4-bit load that names no type gets an explicit 'fp4' fact.
 */
function implicitBnbDefaults(file: PythonFile, entries: readonly Entry[], call: SyntaxNode, tool: Tool): void {
  const has = (k: string): boolean => entries.some((e) => e.rawKey === k);
  const four = entries.find((e) => e.rawKey === 'load_in_4bit');
  if (!four) return;
  const v = file.valueOf(four);
  if (v.k !== 'lit' || v.v !== true) return;
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  if (!has('bnb_4bit_quant_type')) {
    file.facts.push({ key: 'quantType', rawKey: 'bnb_4bit_quant_type', value: 'fp4', rawValue: `${name}: default "fp4"`, keySpan: at, valueSpan: at, tool,
      origin: 'call-default' });
  }
  if (!has('bnb_4bit_use_double_quant')) {
    file.facts.push({ key: 'doubleQuant', rawKey: 'bnb_4bit_use_double_quant', value: false, rawValue: `${name}: default False`, keySpan: at, valueSpan: at,
      tool, origin: 'call-default' });
  }
}

/**
 * `padding="max_length"` passed to a call (the tokenizer or a collator): every batch has the maximum length. Found
 * by a scan of the text, kept only where the syntax tree has a keyword argument (not a comment or a string).
 */
function padToMaxLength(file: PythonFile): boolean {
  let found = false;
  for (const m of file.text.matchAll(/\bpadding(\s*=\s*)(["'])max_length\2/g)) {
    const at = m.index ?? 0;
    const node = file.root.resolveInner(at, 1);
    if (node.name !== 'VariableName' || node.parent?.name !== 'ArgList') continue;
    const keySpan = { start: at, end: at + 'padding'.length };
    const valueSpan = { start: keySpan.end + m[1].length, end: at + m[0].length };
    file.facts.push({ key: 'batchLengths', rawKey: 'padding', value: 'fixed', rawValue: file.text.slice(valueSpan.start, valueSpan.end), keySpan,
      valueSpan, tool: 'hf-trainer' });
    found = true;
  }
  return found;
}

/**
 * `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "..."` (or os.environ.setdefault) in the script: the caching allocator
 * reads it at the first CUDA allocation, so a script that sets it before training configures its own run.
 */
function allocatorConf(file: PythonFile): void {
  const re = /\bos\.environ(?:\s*\[\s*(["'])PYTORCH_CUDA_ALLOC_CONF\1\s*\]\s*=\s*|\.setdefault\(\s*(["'])PYTORCH_CUDA_ALLOC_CONF\2\s*,\s*)(["'])([^"'\n]*)\3/g;
  for (const m of file.text.matchAll(re)) {
    const at = m.index ?? 0;
    if (file.root.resolveInner(at, 1).name !== 'VariableName') continue;
    const keyStart = at + m[0].indexOf('PYTORCH_CUDA_ALLOC_CONF');
    const valueStart = at + m[0].length - m[4].length - 1;
    const keySpan = { start: keyStart, end: keyStart + 'PYTORCH_CUDA_ALLOC_CONF'.length };
    const valueSpan = { start: valueStart, end: valueStart + m[4].length };
    file.facts.push({ key: 'expandableSegments', rawKey: 'PYTORCH_CUDA_ALLOC_CONF', value: expandableSegmentsOf(m[4]), rawValue: m[4], keySpan,
      valueSpan, tool: 'hf-trainer' });
  }
}

/** PEFT LoraConfig: r=8 and lora_alpha=8 when absent (peft@5d602fd:src/peft/tuners/lora/config.py). */
function loraCall(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  for (const e of args.entries) mapEntry(file, 'lora', e, 'peft');
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  const opaque = args.opaque.length > 0;
  if (!opaque && !args.entries.some((e) => e.rawKey === 'r')) {
    file.facts.push({ key: 'loraR', rawKey: 'r', value: 8, rawValue: `${name}: default 8`, keySpan: at, valueSpan: at, tool: 'peft',
      origin: 'call-default' });
  }
  if (!opaque && !args.entries.some((e) => e.rawKey === 'lora_alpha')) {
    file.facts.push({ key: 'loraAlpha', rawKey: 'lora_alpha', value: 8, rawValue: `${name}: default 8`, keySpan: at, valueSpan: at, tool: 'peft',
      origin: 'call-default' });
  }
  file.opaqueSpreads(args.opaque);
}

/**
 * PEFT prepare_model_for_kbit_training(model, use_gradient_checkpointing=True): casts every parameter that is not
 * a 4/8-bit weight to fp32 (norms, embeddings, head, biases; on a model that is not quantized, all of them) and
 * enables gradient checkpointing unless use_gradient_checkpointing=False (peft/utils/other.py).
 */
function kbitPreparation(file: PythonFile, call: SyntaxNode): void {
  const calleeNode = call.firstChild!;
  const at = span(calleeNode);
  const name = file.text.slice(at.start, at.end);
  file.facts.push({ key: 'kbitUpcast', rawKey: 'prepare_model_for_kbit_training', value: 'all', rawValue: `${name}(...)`, keySpan: at,
    valueSpan: at, tool: 'peft' });
  const args = file.args(call);
  const gc = argument(args)('use_gradient_checkpointing', 1);
  if (!gc) {
    file.facts.push({ key: 'gradientCheckpointing', rawKey: 'prepare_model_for_kbit_training', value: 'full',
      rawValue: `${name}: use_gradient_checkpointing default True`, keySpan: at, valueSpan: at, tool: 'peft', origin: 'call-default' });
    return;
  }
  const v = file.valueOf(gc);
  // False leaves checkpointing to the training arguments; an expression that is not a literal is reported as such.
  if (v.k === 'lit' && v.v === false) return;
  if (v.k === 'lit' && v.v === true) {
    file.facts.push({ key: 'gradientCheckpointing', rawKey: 'prepare_model_for_kbit_training', value: 'full',
      rawValue: clip(file.text.slice(gc.valueSpan.start, gc.valueSpan.end)), keySpan: gc.keySpan, valueSpan: gc.valueSpan, tool: 'peft' });
  }
}

/**
 * Unsloth FastLanguageModel / FastModel.from_pretrained (unsloth/models/loader.py): model_name, max_seq_length,
 * dtype (None: bfloat16 where supported, else float16), load_in_4bit=True by default (bitsandbytes NF4 with double
 * quantization), load_in_8bit, full_finetuning (which turns 4/8-bit loading off), use_gradient_checkpointing
 * ("unsloth" by default). A quantization_config argument is read where it is built (BitsAndBytesConfig).
 */
function unslothLoad(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  const arg = argument(args);
  const isTrue = (e: Entry | undefined): boolean => {
    const v = e ? file.valueOf(e) : undefined;
    return v?.k === 'lit' && v.v === true;
  };
  const model = arg('model_name', 0);
  if (model) emitModel(file, model, 'unsloth');
  else unslothDefault(file, call, 'model', 'model_name', 'unsloth/Llama-3.2-1B-Instruct', 'model_name default "unsloth/Llama-3.2-1B-Instruct"');
  const seq = arg('max_seq_length', 1);
  if (seq) emitAs(file, 'seqLen', seq, (x) => numberOf(file, x, seq, true));
  else unslothDefault(file, call, 'seqLen', 'max_seq_length', 2048, 'max_seq_length default 2048');
  const dtype = arg('dtype', 2) ?? arg('torch_dtype');
  if (dtype) emitAs(file, 'weightsDtype', dtype, (x) => dtypeOf(file, x));
  const full = arg('full_finetuning');
  const eight = arg('load_in_8bit', 4);
  const four = arg('load_in_4bit', 3);
  const quantConfig = arg('quantization_config');
  if (isTrue(full)) {
    file.push('method', full!, 'full', 'unsloth');
  } else if (isTrue(eight)) {
    file.push('quantBits', eight!, 8, 'unsloth');
  } else if (!quantConfig && !isTrue(arg('load_in_16bit'))) {
    if (four) emitAs(file, 'quantBits', four, (x) => mapBool(boolOf(file, x, four), (b) => (b ? 4 : undefined)));
    else unslothDefault(file, call, 'quantBits', 'load_in_4bit', 4, 'load_in_4bit default True');
    if (!four || isTrue(four)) {
      unslothDefault(file, call, 'quantType', 'bnb_4bit_quant_type', 'nf4', 'loads 4-bit weights as bitsandbytes NF4');
      unslothDefault(file, call, 'doubleQuant', 'bnb_4bit_use_double_quant', true, 'with double quantization');
    }
  }
  if (!isTrue(full)) {
    // Unsloth's prepare_model_for_kbit_training casts only the LoRA weights to fp32 (unsloth/models/_utils.py).
    unslothDefault(file, call, 'kbitUpcast', isTrue(eight) ? 'load_in_8bit' : 'load_in_4bit', 'none',
      'keeps norms, embeddings and head of a 4/8-bit model in the model dtype');
  }
  unslothDefault(file, call, 'kernels', 'from_pretrained', 'unsloth', 'patches the model with Unsloth\'s fused kernels');
  // fast_inference=True loads the model into a vLLM engine in the same process (gpu_memory_utilization of the GPU, 0.5
  // by default) whose weights the policy trains on; Unsloth's GRPO then generates with it (use_vllm set for it).
  const fast = arg('fast_inference');
  if (fast && isTrue(fast)) {
    file.push('useVllm', fast, true, 'unsloth');
    file.push('vllmMode', fast, 'colocate', 'unsloth');
    file.push('vllmSharedWeights', fast, true, 'unsloth');
    const util = arg('gpu_memory_utilization');
    if (util) emitAs(file, 'vllmMemoryFraction', util, (x) => numberOf(file, x, util, false));
    else unslothDefault(file, call, 'vllmMemoryFraction', 'gpu_memory_utilization', 0.5, 'gpu_memory_utilization default 0.5');
  }
  unslothGc(file, call, arg('use_gradient_checkpointing'), file.unslothCheckpointing.load);
  file.opaqueSpreads(args.opaque);
}

/**
 * Unsloth get_peft_model: r=16, lora_alpha=16, lora_dropout=0, use_gradient_checkpointing="unsloth"; target_modules
 * default to the attention and MLP projections (FastLanguageModel) or to every linear layer of the language model
 * (FastModel, FastVisionModel: target_modules=None) (unsloth/models/llama.py, vision.py).
 */
function unslothPeft(file: PythonFile, call: SyntaxNode, cls: string): void {
  const args = file.args(call);
  const arg = argument(args);
  calleeFact(file, call, 'method', 'get_peft_model', 'lora', `${file.text.slice(call.firstChild!.from, call.firstChild!.to)}(...)`, 'unsloth');
  for (const e of args.entries) if (e.rawKey !== 'use_gradient_checkpointing') mapEntry(file, 'lora', e, 'unsloth');
  const has = (k: string): boolean => args.entries.some((e) => e.rawKey === k) || args.opaque.length > 0;
  if (!has('r')) unslothDefault(file, call, 'loraR', 'r', 16, 'r default 16');
  if (!has('lora_alpha')) unslothDefault(file, call, 'loraAlpha', 'lora_alpha', 16, 'lora_alpha default 16');
  if (!has('lora_dropout')) unslothDefault(file, call, 'loraDropout', 'lora_dropout', 0, 'lora_dropout default 0');
  if (!has('target_modules')) {
    if (cls === 'FastLanguageModel') unslothDefault(file, call, 'loraTargets', 'target_modules', UNSLOTH_TARGETS,
      `target_modules default ${UNSLOTH_TARGETS.join(', ')}`);
    else unslothDefault(file, call, 'loraTargets', 'target_modules', 'all-linear', 'target_modules default: every attention and MLP linear layer');
  }
  unslothGc(file, call, arg('use_gradient_checkpointing'), file.unslothCheckpointing.peft);
  file.opaqueSpreads(args.opaque);
}

/** use_gradient_checkpointing: "unsloth" (the default) checkpoints every layer and keeps its input in host memory. */
function unslothGc(file: PythonFile, call: SyntaxNode, e: Entry | undefined, out: Fact[]): void {
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  const v = e ? file.valueOf(e) : undefined;
  const offload = !e || (v?.k === 'lit' && v.v === 'unsloth');
  const on = offload || (v?.k === 'lit' && v.v === true);
  const off = v?.k === 'lit' && (v.v === false || v.v === null);
  const where = e ? { keySpan: e.keySpan, valueSpan: e.valueSpan, rawValue: clip(file.text.slice(e.valueSpan.start, e.valueSpan.end)) }
    : { keySpan: at, valueSpan: at, rawValue: `${name}: use_gradient_checkpointing default "unsloth"`, origin: 'call-default' as const };
  const fact = (key: CanonicalKey, value: FactValue | Unknown): Fact => ({ key, rawKey: 'use_gradient_checkpointing', value, tool: 'unsloth', ...where });
  if (!on && !off) {
    out.push(fact('gradientCheckpointing', { unknown: file.describe(v!) }));
    return;
  }
  out.push(fact('gradientCheckpointing', on ? 'full' : 'none'), fact('activationOffloading', offload));
}

/** An Unsloth default made explicit at the call (origin 'call-default'). */
function unslothDefault(file: PythonFile, call: SyntaxNode, key: CanonicalKey, rawKey: string, value: FactValue, why: string): void {
  calleeFact(file, call, key, rawKey, value, `${file.text.slice(call.firstChild!.from, call.firstChild!.to)}: ${why}`, 'unsloth', 'call-default');
}

/** A fact that the call itself states, located at its callee. */
/**
 * TRL's RewardTrainer trains a sequence classifier with one label: a model id is loaded with
 * AutoModelForSequenceClassification(num_labels=1) (trl/trainer/reward_trainer.py); a model loaded by the script
 * keeps the head of its own from_pretrained class, which is read there and wins.
 */
function rewardHead(file: PythonFile, call: SyntaxNode, name: string, tool: Tool): void {
  calleeFact(file, call, 'head', name, 'seq_cls', `${name}(...)`, tool, 'call-default');
  calleeFact(file, call, 'numLabels', name, 1, `${name}(...)`, tool, 'call-default');
}

function calleeFact(file: PythonFile, call: SyntaxNode, key: CanonicalKey, rawKey: string, value: FactValue, rawValue: string, tool: Tool,
  origin?: Fact['origin']): void {
  const at = span(call.firstChild!);
  file.facts.push({ key, rawKey, value, rawValue, keySpan: at, valueSpan: at, tool, ...(origin ? { origin } : {}) });
}

/** A keyword argument, or the positional one at `pos`, as an Entry. */
function argument(args: { positional: SyntaxNode[]; entries: Entry[] }): (k: string, pos?: number) => Entry | undefined {
  return (k, pos) => {
    const named = args.entries.find((e) => e.rawKey === k);
    if (named) return named;
    const p = pos !== undefined ? args.positional[pos] : undefined;
    return p ? { rawKey: k, keySpan: span(p), valueNode: p, valueSpan: span(p) } : undefined;
  };
}

function emitAs(file: PythonFile, key: CanonicalKey, e: Entry, conv: (x: Val) => FactValue | Unknown | undefined): void {
  const x = file.valueOf(e);
  const value = conv(x);
  if (value !== undefined) file.push(key, e, value, 'unsloth', x);
}

function trainerCall(file: PythonFile, call: SyntaxNode, tool: Tool): void {
  const args = file.args(call);
  const trainer = file.calleeName(call)?.split('.').pop() ?? '';
  const pref = PREFERENCE_CONFIGS[trainer];
  // The trainer names the objective when the arguments are a plain TrainingArguments (older TRL scripts).
  if (pref && !file.facts.some((f) => f.key === 'preference')) calleeFact(file, call, 'preference', trainer, pref, `${trainer}(...)`, tool);
  const rollout = ROLLOUT_CONFIGS[trainer];
  if (rollout && !file.facts.some((f) => f.key === 'rollout')) calleeFact(file, call, 'rollout', trainer, rollout, `${trainer}(...)`, tool);
  if (trainer === 'RewardTrainer' && !file.facts.some((f) => f.key === 'head' && f.rawKey === 'RewardConfig')) rewardHead(file, call, trainer, tool);
  const isNone = (e: Entry): boolean => {
    const v = file.valueOf(e);
    return v.k === 'lit' && v.v === null;
  };
  const present = (k: string): boolean => args.entries.some((e) => e.rawKey === k && !isNone(e));
  for (const e of args.entries) {
    if (e.rawKey === 'compute_metrics') {
      // Trainer.evaluation_loop keeps each batch's logits on the device (EvalLoopContainer) unless
      // eval_accumulation_steps moves them to the host or preprocess_logits_for_metrics reduces them.
      if (!isNone(e) && !present('preprocess_logits_for_metrics')) file.keptLogits.push({ e, tool });
    } else if (e.rawKey === 'model') {
      const v = file.valueOf(e);
      // Only a model id string names the model; a model object was loaded elsewhere (from_pretrained is read there).
      if (v.k === 'lit' && typeof v.v === 'string') emitModel(file, e, tool);
    } else if (e.rawKey === 'teacher_model' && trainer === 'GKDTrainer') {
      // GKDTrainer(teacher_model="org/model") loads the teacher by its Hub id; a model object was loaded elsewhere.
      const v = file.valueOf(e);
      if (v.k === 'lit' && typeof v.v === 'string') file.push('teacherModel', e, v.v, tool);
    } else if (e.rawKey === 'ref_model' && (pref === 'dpo' || pref === 'kto' || rollout === 'online-dpo')) {
      // An explicit reference model is a second resident model (TRL keeps it even with PEFT).
      if (!isNone(e)) file.push('referenceModel', e, 'given', tool);
    } else if (e.rawKey === 'reward_funcs' && rollout && e.valueNode) {
      // A string names a reward model: GRPOTrainer loads it (AutoModelForSequenceClassification) on every GPU.
      const node = e.valueNode;
      const strings = node.name === 'String' ? [node]
        : node.name === 'ArrayExpression' || node.name === 'TupleExpression' ? children(node).filter((c) => c.name === 'String') : [];
      const ids = strings.map((str) => file.evalNode(str, 0)).flatMap((v) => (v.k === 'lit' && typeof v.v === 'string' ? [v.v] : []));
      if (ids.length > 0) file.push('rewardModels', e, ids, tool);
    } else if (e.rawKey === 'reward_model' && rollout === 'online-dpo' && !isNone(e) && file.scoringIds === 0) {
      // OnlineDPOTrainer(reward_model=...) takes a model loaded elsewhere: it sits on every GPU, but which model it is
      // is not known here (OnlineDPOConfig reward_model_path, or reward_funcs with a Hub id, name it).
      file.problem('not-modeled', 'warning', rewardModelObjectNotCounted(), e.keySpan, 'reward_model');
    } else if (e.rawKey === 'peft_config') {
      const v = file.valueOf(e);
      if (v.k === 'lit' && v.v === null) continue;
      if (v.k === 'call' && /(^|\.)(LoraConfig|IA3Config)$/.test(v.callee)) continue;
      file.push('method', e, { unknown: `peft_config is ${file.describe(v)}` }, tool);
    }
  }
}

function emitModel(file: PythonFile, e: Entry, tool: Tool): void {
  const v = file.valueOf(e);
  if (v.k === 'lit' && typeof v.v === 'string') file.push('model', e, v.v, tool, v);
  else if (!(v.k === 'lit' && v.v === null)) file.push('model', e, { unknown: file.describe(v) }, tool, v);
}

/** Maps one key/value to canonical facts for the given kind of call. */
function mapEntry(file: PythonFile, ctx: Ctx, e: Entry, tool: Tool, origin?: Fact['origin'], trlOrLocal = false): void {
  const k = e.rawKey;
  const v = (): Val => file.valueOf(e);
  const train = ctx === 'train' || ctx === 'dataclass';
  const script = ctx === 'dataclass' || ctx === 'trl-model';
  const emit = (key: CanonicalKey, conv: (x: Val) => FactValue | Unknown | undefined): void => {
    const x = v();
    const value = conv(x);
    if (value !== undefined) file.push(key, e, value, tool, x, origin);
  };
  if (train) {
    switch (k) {
      case 'per_device_train_batch_size': case 'per_gpu_train_batch_size':
        return emit('microBatchSize', (x) => numberOf(file, x, e, true));
      case 'per_device_eval_batch_size': case 'per_gpu_eval_batch_size':
        return emit('evalBatchSize', (x) => numberOf(file, x, e, true));
      case 'eval_accumulation_steps': case 'prediction_loss_only': case 'batch_eval_metrics': {
        const x = v();
        if (!(x.k === 'lit' && (x.v === null || x.v === false || x.v === 0))) file.logitsReleased = true;
        return;
      }
      case 'eval_strategy': case 'evaluation_strategy':
        // "no" / IntervalStrategy.NO: no evaluation; "steps" / "epoch": evaluation runs during training.
        return emit('evalStrategy', (x) => {
          if (x.k === 'lit' && x.v === null) return undefined;
          const on = x.k === 'lit' && typeof x.v === 'string' ? evaluationOn(x.v) : x.k === 'dotted' ? evaluationOn(x.text) : undefined;
          return on ?? { unknown: file.describe(x) };
        });
      case 'gradient_accumulation_steps':
        return emit('gradientAccumulationSteps', (x) => numberOf(file, x, e, true));
      case 'use_liger_loss':
        // DPOConfig: Liger's fused linear DPO loss takes the log-probabilities without materializing the logits.
        return emit('loss', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'fused' : undefined)));
      case 'torch_empty_cache_steps':
        return emit('emptyCacheSteps', (x) => numberOf(file, x, e, true));
      case 'label_smoothing_factor': return emit('labelSmoothing', (x) => numberOf(file, x, e, false));
      // GRPOConfig: prompt and completion lengths, the generation round, the KL reference and the vLLM engine.
      case 'max_prompt_length': return emit('promptLen', (x) => numberOf(file, x, e, true));
      case 'max_completion_length': return emit('completionLen', (x) => numberOf(file, x, e, true));
      case 'steps_per_generation': return emit('stepsPerGeneration', (x) => numberOf(file, x, e, true));
      case 'generation_batch_size': return emit('generationBatchSize', (x) => numberOf(file, x, e, true));
      case 'num_iterations': return emit('numIterations', (x) => numberOf(file, x, e, true));
      case 'num_generations': return emit('numGenerations', (x) => numberOf(file, x, e, true));
      case 'beta': return emit('klBeta', (x) => numberOf(file, x, e, false));
      case 'cpo_alpha': return emit('cpoAlpha', (x) => numberOf(file, x, e, false));
      case 'rpo_alpha': return emit('rpoAlpha', (x) => (x.k === 'lit' && x.v === null ? undefined : numberOf(file, x, e, false)));
      // GKDConfig: the on-policy share, the tokens of an on-policy round, the teacher the student is distilled from.
      case 'lmbda': return emit('onPolicyFraction', (x) => numberOf(file, x, e, false));
      case 'max_new_tokens': return emit('maxNewTokens', (x) => numberOf(file, x, e, true));
      case 'teacher_model_name_or_path': return emit('teacherModel',
        (x) => (x.k === 'lit' && typeof x.v === 'string' ? x.v : x.k === 'lit' && x.v === null ? undefined : { unknown: file.describe(x) }));
      case 'use_vllm': return emit('useVllm', (x) => boolOf(file, x, e));
      case 'vllm_mode': return emit('vllmMode', (x) =>
        (x.k === 'lit' && (x.v === 'colocate' || x.v === 'server') ? x.v : x.k === 'lit' && x.v === null ? undefined : { unknown: file.describe(x) }));
      case 'vllm_gpu_memory_utilization': return emit('vllmMemoryFraction', (x) => numberOf(file, x, e, false));
      // OnlineDPOConfig before TRL 0.20: the colocated engine's share; reward_model_path: the reward model's Hub id or path.
      case 'gpu_memory_utilization': return emit('vllmMemoryFraction', (x) => numberOf(file, x, e, false));
      case 'reward_model_path': return emit('rewardModels',
        (x) => (x.k === 'lit' && typeof x.v === 'string' ? [x.v] : x.k === 'lit' && x.v === null ? undefined : { unknown: file.describe(x) }));
      case 'vllm_tensor_parallel_size': return emit('vllmTensorParallel', (x) => numberOf(file, x, e, true));
      case 'vllm_enable_sleep_mode': return emit('vllmSleep', (x) => boolOf(file, x, e));
      case 'ds3_gather_for_generation': return emit('gatherForGeneration', (x) => boolOf(file, x, e));
      case 'precompute_ref_log_probs':
        // DPOConfig: the reference log-probabilities are computed once before training; no reference forward per step.
        return emit('referenceModel', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'precomputed' : undefined)));
      case 'bf16': return emit('bf16', (x) => boolOf(file, x, e));
      case 'fp16': return emit('fp16', (x) => boolOf(file, x, e));
      case 'optim': {
        const x = v();
        const g = x.k === 'lit' && typeof x.v === 'string' ? galoreOf(x.v) : undefined;
        if (g) {
          file.push('galore', e, 'galore', tool, x, origin);
          file.push('galoreLayerwise', e, g.layerwise, tool, x, origin);
        }
        return emit('optimizer', (y) => optimizerOf(file, y, e));
      }
      case 'optim_target_modules': return emit('galoreTargets', (x) => (x.k === 'lit' && typeof x.v === 'string' ? [x.v] : stringListOf(file, x, e)));
      case 'optim_args': return emit('galoreRank', (x) => (x.k === 'lit' && typeof x.v === 'string' ? galoreRankOf(x.v) : undefined));
      case 'gradient_checkpointing':
        return emit('gradientCheckpointing', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'full' : 'none')));
      case 'activation_offloading': return emit('activationOffloading', (x) => boolOf(file, x, e));
      case 'auto_find_batch_size': return emit('autoFindBatchSize', (x) => boolOf(file, x, e));
      case 'torch_compile': return emit('compile', (x) => boolOf(file, x, e));
      case 'use_liger_kernel':
        // Liger's fused linear cross-entropy never materializes the logits (HF use_liger_kernel, TRL loss with liger);
        // its RMSNorm, RoPE and SwiGLU kernels replace the block's ops (transformers _apply_liger_kernel_to_instance).
        return emit('loss', (x) => {
          const on = mapBool(boolOf(file, x, e), (b) => b || undefined);
          if (on !== undefined) file.push('kernels', e, on === true ? 'liger' : on, tool, x, origin);
          return on === true ? 'fused' : on;
        });
      case 'deepspeed': return deepspeedEntry(file, e, tool, origin);
      case 'fsdp': return fsdpEntry(file, e, tool, origin);
      case 'model_init_kwargs': return nestedLoad(file, e, tool);
      case 'packing':
        // TRL SFTConfig packing: samples concatenated to max_length; otherwise each batch is padded to its longest.
        if (trlOrLocal || ctx === 'dataclass') return emit('batchLengths', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'fixed' : 'variable')));
        return;
      case 'max_length':
        if (trlOrLocal || ctx === 'dataclass') return emit('seqLen', (x) => numberOf(file, x, e, true));
        return;
      default:
        if (SEQ_KEYS.has(k)) return emit('seqLen', (x) => numberOf(file, x, e, true));
    }
  }
  if (ctx === 'load' || script) {
    switch (k) {
      case 'dtype': case 'torch_dtype': return emit('weightsDtype', (x) => dtypeOf(file, x));
      case 'attn_implementation': return emit('attention', (x) => attentionOf(file, x));
      case 'num_labels': return emit('numLabels', (x) => numberOf(file, x, e, true));
      case 'quantization_config': {
        const x = v();
        if (x.k === 'lit' && x.v === null) return;
        if (x.k === 'call' && /(^|\.)BitsAndBytesConfig$/.test(x.callee)) return;
        if (x.k === 'dict') return nestedBnb(file, x, tool);
        // A BitsAndBytesConfig(...) written inside the value (e.g. `BitsAndBytesConfig(...) if q_lora else None`) speaks for itself.
        if (e.valueNode && /\bBitsAndBytesConfig\s*\(/.test(file.text.slice(e.valueNode.from, e.valueNode.to))) return;
        return file.push('quantBits', e, { unknown: `quantization_config is ${file.describe(x)}` }, tool, x, origin);
      }
    }
  }
  if (ctx === 'load' || ctx === 'bnb' || script) {
    switch (k) {
      case 'load_in_4bit':
        return emit('quantBits', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 4 : undefined)));
      case 'load_in_8bit':
        return emit('quantBits', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 8 : undefined)));
      case 'bnb_4bit_quant_type': return emit('quantType', (x) => enumOf(file, x, e, ['nf4', 'fp4']));
      case 'bnb_4bit_use_double_quant': case 'use_bnb_nested_quant': case 'use_nested_quant':
        return emit('doubleQuant', (x) => boolOf(file, x, e));
    }
  }
  if (ctx === 'ia3') {
    switch (k) {
      case 'target_modules': return emit('ia3Targets', (x) => stringListOf(file, x, e));
      case 'feedforward_modules': return emit('ia3Feedforward', (x) => stringListOf(file, x, e));
    }
  }
  if (ctx === 'lora') {
    switch (k) {
      case 'r': return emit('loraR', (x) => numberOf(file, x, e, true));
      case 'lora_alpha': return emit('loraAlpha', (x) => numberOf(file, x, e, false));
      case 'lora_dropout': return emit('loraDropout', (x) => numberOf(file, x, e, false));
      case 'target_modules': return emit('loraTargets', (x) => targetsOf(file, x, e));
      case 'modules_to_save': return emit('loraModulesToSave', (x) => stringListOf(file, x, e));
      case 'use_dora': return emit('loraDora', (x) => boolOf(file, x, e));
      case 'target_parameters': return emit('loraTargetParameters', (x) => stringListOf(file, x, e));
    }
  }
  if (script) {
    switch (k) {
      case 'model_name_or_path': case 'pretrained_model_name_or_path': case 'base_model_name_or_path': {
        const x = v();
        if (x.k === 'lit' && x.v === null) return;
        return file.push('model', e, x.k === 'lit' && typeof x.v === 'string' ? x.v : { unknown: file.describe(x) }, tool, x, origin);
      }
      case 'lora_r': case 'lora_rank': return emit('loraR', (x) => numberOf(file, x, e, true));
      case 'lora_alpha': return emit('loraAlpha', (x) => numberOf(file, x, e, false));
      case 'lora_dropout': return emit('loraDropout', (x) => numberOf(file, x, e, false));
      case 'lora_target_modules': return emit('loraTargets', (x) => targetsOf(file, x, e));
      case 'lora_modules_to_save': return emit('loraModulesToSave', (x) => stringListOf(file, x, e));
      case 'use_dora': return emit('loraDora', (x) => boolOf(file, x, e));
      case 'use_peft': return emit('method', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'lora' : undefined)));
      // FastChat's q_lora and the PEFT SFT example's use_4bit_quantization load the base model in 4 bits.
      case 'q_lora': case 'use_4bit_quantization': case 'use_qlora':
        return emit('quantBits', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 4 : undefined)));
      case 'use_flash_attn':
        return emit('attention', (x) => mapBool(boolOf(file, x, e), (b) => (b ? 'flash' : undefined)));
    }
  }
}

function deepspeedEntry(file: PythonFile, e: Entry, tool: Tool, origin?: Fact['origin']): void {
  const x = file.valueOf(e);
  if (x.k === 'lit' && x.v === null) return;
  if (x.k === 'lit' && typeof x.v === 'string') {
    if (x.v.trimStart().startsWith('{')) {
      return file.push('deepspeedConfig', e, { unknown: 'an inline DeepSpeed JSON string; its keys are not read here' }, tool, x, origin);
    }
    file.push('deepspeedConfig', e, x.v, tool, x, origin);
    file.references.push({ kind: 'deepspeed', path: x.v, span: x.via?.span ?? e.valueSpan });
    return;
  }
  if (x.k === 'dict') return file.push('deepspeedConfig', e, { unknown: 'an inline DeepSpeed dict; its keys are not read here' }, tool, x, origin);
  file.push('deepspeedConfig', e, { unknown: file.describe(x) }, tool, x, origin);
}

/** HF `fsdp`: bool, a space-separated string or a list of FSDPOption values (transformers training_args.py). */
function fsdpEntry(file: PythonFile, e: Entry, tool: Tool, origin?: Fact['origin']): void {
  const x = file.valueOf(e);
  if (x.k === 'lit' && x.v === null) return;
  let opts: string[] | undefined;
  if (x.k === 'lit' && typeof x.v === 'boolean') opts = x.v ? ['full_shard'] : [];
  else if (x.k === 'lit' && typeof x.v === 'string') opts = x.v.split(/\s+/).filter(Boolean);
  else if (x.k === 'lit' && Array.isArray(x.v)) opts = [...(x.v as readonly string[])];
  if (!opts) return file.push('fsdp', e, { unknown: file.describe(x) }, tool, x, origin);
  const mode = opts.find((o) => ['full_shard', 'shard_grad_op', 'hybrid_shard', 'hybrid_shard_zero2', 'no_shard'].includes(o));
  const value = mode === 'hybrid_shard_zero2' ? 'hybrid_shard' : mode ?? (opts.includes('offload') ? undefined : 'none');
  if (value === undefined) {
    file.problem('invalid-value', 'warning', msg('fsdp "offload" needs a sharding mode such as full_shard'), e.valueSpan, e.rawKey);
    file.push('fsdp', e, { unknown: 'offload without a sharding mode' }, tool, x, origin);
  } else {
    file.push('fsdp', e, value, tool, x, origin);
  }
  if (opts.includes('offload')) file.push('fsdpOffload', e, true, tool, x, origin);
}

/** TRL model_init_kwargs: the from_pretrained keywords used when the trainer loads the model from a string. */
function nestedLoad(file: PythonFile, e: Entry, tool: Tool): void {
  const x = file.valueOf(e);
  if (x.k === 'lit' && x.v === null) return;
  if (x.k !== 'dict') {
    file.problem('not-static', 'info', msg('model_init_kwargs is {0}; the load dtype and attention are not known', file.describe(x)), e.valueSpan, e.rawKey);
    return;
  }
  for (const inner of x.entries) mapEntry(file, 'load', inner, tool);
  implicitBnbDefaults(file, x.entries, e.valueNode ?? file.root, tool);
  file.opaqueSpreads(x.opaque.map((r) => ({ reason: r, span: e.valueSpan })));
}

function nestedBnb(file: PythonFile, x: Extract<Val, { k: 'dict' }>, tool: Tool): void {
  for (const inner of x.entries) mapEntry(file, 'bnb', inner, tool);
}

function numberOf(file: PythonFile, x: Val, e: Entry, integer: boolean): number | Unknown | undefined {
  if (x.k === 'lit') {
    if (x.v === null) return undefined;
    if (typeof x.v === 'number' && (!integer || Number.isInteger(x.v))) return x.v;
    file.problem('invalid-value', 'warning', msg(integer ? '{0} expects an integer, not {1}' : '{0} expects a number, not {1}', e.rawKey,
      file.text.slice(e.valueSpan.start, e.valueSpan.end)), e.valueSpan, e.rawKey);
    return { unknown: `not a number: ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

function boolOf(file: PythonFile, x: Val, e: Entry): boolean | Unknown | undefined {
  if (x.k === 'lit') {
    if (x.v === null) return undefined;
    if (typeof x.v === 'boolean') return x.v;
    file.problem('invalid-value', 'warning', msg('{0} expects True or False', e.rawKey), e.valueSpan, e.rawKey);
    return { unknown: `not a boolean: ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

function enumOf(file: PythonFile, x: Val, e: Entry, allowed: readonly string[]): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && typeof x.v === 'string') {
    if (allowed.includes(x.v)) return x.v;
    file.problem('invalid-value', 'warning', msg('{0} is one of {1}', e.rawKey, allowed.join(', ')), e.valueSpan, e.rawKey);
    return { unknown: `unexpected value ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

function optimizerOf(file: PythonFile, x: Val, e: Entry): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && typeof x.v === 'string') return normalizeOptimizer(x.v);
  // OptimizerNames.ADAMW_TORCH_FUSED: the enum member's value is its lower-cased name.
  if (x.k === 'dotted' && /(^|\.)OptimizerNames\.\w+$/.test(x.text)) return normalizeOptimizer(x.text.split('.').pop()!.toLowerCase());
  if (x.k === 'lit') return enumOf(file, x, e, []);
  return { unknown: file.describe(x) };
}

function dtypeOf(file: PythonFile, x: Val): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  let name: string | undefined;
  if (x.k === 'dotted' && /^torch\.\w+$/.test(x.text)) name = x.text.slice(6);
  else if (x.k === 'lit' && typeof x.v === 'string') name = x.v.replace(/^torch\./, '');
  if (name === undefined) return { unknown: file.describe(x) };
  if (name === 'auto') return { unknown: 'dtype "auto" takes the dtype stored in the checkpoint config' };
  const d = ({ bfloat16: 'bf16', bf16: 'bf16', float16: 'fp16', fp16: 'fp16', half: 'fp16', float32: 'fp32', fp32: 'fp32',
    float: 'fp32' } as Record<string, string>)[name];
  return d ?? { unknown: `dtype ${name} has no estimate` };
}

function attentionOf(file: PythonFile, x: Val): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && typeof x.v === 'string') {
    const s = x.v;
    if (s === 'eager' || s === 'sdpa') return s;
    if (/^flash_attention_[23]$|flash[-_]?attn/.test(s)) return 'flash';
    return { unknown: `attention "${s}" has no estimate` };
  }
  return { unknown: file.describe(x) };
}

function stringListOf(file: PythonFile, x: Val, e: Entry): readonly string[] | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  if (x.k === 'lit' && Array.isArray(x.v)) return x.v as readonly string[];
  if (x.k === 'lit' && typeof x.v === 'string') return [x.v];
  if (x.k === 'lit') {
    file.problem('invalid-value', 'warning', msg('{0} expects a list of module names', e.rawKey), e.valueSpan, e.rawKey);
    return { unknown: `not a list: ${fmt(x.v)}` };
  }
  return { unknown: file.describe(x) };
}

/** PEFT target_modules: a list, "all-linear", or any other string, which PEFT treats as a regex. */
function targetsOf(file: PythonFile, x: Val, e: Entry): FactValue | Unknown | undefined {
  if (x.k === 'lit' && typeof x.v === 'string') return x.v === 'all-linear' ? 'all-linear'
    : { unknown: `the regular expression ${fmt(x.v)} selects modules by name` };
  return stringListOf(file, x, e);
}

/** HF TrainingArguments raises when bf16 and fp16 are both True (training_args.py __post_init__). */
function precisionConflicts(file: PythonFile): void {
  const byCall = new Map<string, Fact[]>();
  for (const f of file.facts) {
    if ((f.key === 'bf16' || f.key === 'fp16') && f.value === true && !f.origin) {
      const node = file.root.resolveInner(f.keySpan.start, 1);
      let c: SyntaxNode | null = node;
      while (c && c.name !== 'CallExpression') c = c.parent;
      const id = c ? `${c.from}` : 'file';
      byCall.set(id, [...(byCall.get(id) ?? []), f]);
    }
  }
  for (const fs of byCall.values()) {
    if (fs.some((f) => f.key === 'bf16') && fs.some((f) => f.key === 'fp16')) {
      const later = fs[fs.length - 1];
      file.problem('conflicting-precision', 'error', msg('bf16=True and fp16=True together: TrainingArguments raises a ValueError'),
        { start: later.keySpan.start, end: later.valueSpan.end }, later.rawKey);
    }
  }
}

/** A syntax error inside a recognized call changes what the call says; elsewhere the Python extension reports it. */
function syntaxIn(file: PythonFile, call: SyntaxNode, name: string): void {
  const at = file.errors.find((p) => p >= call.from && p <= call.to);
  if (at === undefined) return;
  const end = Math.min(file.text.length, at + 1);
  file.problem('syntax-error', 'error', msg('Python syntax error inside {0}(...): the values after it may be missing', name),
    { start: at, end: Math.max(at, end) });
}

function noteParser(file: PythonFile, call: SyntaxNode, which: string): void {
  const args = file.args(call);
  const first = args.positional[0] ?? args.entries.find((e) => e.rawKey === 'dataclass_types')?.valueNode ?? null;
  if (!first) return;
  const target = first.name === 'VariableName' ? file.bindingValue(first) ?? first : first;
  const names: string[] = [];
  if (target.name === 'TupleExpression' || target.name === 'ArrayExpression') {
    for (let ch = target.firstChild; ch; ch = ch.nextSibling) {
      const n = file.dotted(ch);
      if (n) names.push(n.split('.').pop()!);
    }
  } else {
    const n = file.dotted(target);
    if (n) names.push(n.split('.').pop()!);
  }
  for (const n of names) {
    file.parsedClasses.add(n);
    if (TRL_CONFIGS.has(n) || n === 'ModelConfig') file.tools.add('trl');
    else if (HF_ARGS.has(n)) file.tools.add('hf-trainer');
  }
  if (which === 'TrlParser') file.tools.add('trl');
}

function noteArgparse(file: PythonFile, call: SyntaxNode): void {
  const args = file.args(call);
  const flag = args.positional.map((p) => file.evalNode(p, 0)).find((v) => v.k === 'lit' && typeof v.v === 'string' && v.v.startsWith('--'));
  if (!flag || flag.k !== 'lit') return;
  const dest = args.entries.find((e) => e.rawKey === 'dest');
  const destVal = dest ? file.valueOf(dest) : undefined;
  const name = destVal?.k === 'lit' && typeof destVal.v === 'string' ? destVal.v : String(flag.v).replace(/^-+/, '').replace(/-/g, '_');
  const def = args.entries.find((e) => e.rawKey === 'default');
  const action = args.entries.find((e) => e.rawKey === 'action');
  const actionVal = action ? file.valueOf(action) : undefined;
  if (def?.valueNode) file.fieldDefaults.set(name, { text: clip(file.text.slice(def.valueSpan.start, def.valueSpan.end)),
    line: file.line(def.valueSpan.start), where: 'argparse default' });
  else if (actionVal?.k === 'lit' && actionVal.v === 'store_true')
    file.fieldDefaults.set(name, { text: 'False', line: file.line(call.from), where: 'argparse store_true default' });
}

/** Arguments dataclasses: subclasses of TrainingArguments/TRL configs, classes given to HfArgumentParser, *Arguments. */
function collectClasses(file: PythonFile, classes: SyntaxNode[]): void {
  const info = classes.map((c) => {
    const nameNode = c.getChild('VariableName');
    const bases: string[] = [];
    const argList = c.getChild('ArgList');
    if (argList) for (let ch = argList.firstChild; ch; ch = ch.nextSibling) { const d = file.dotted(ch); if (d) bases.push(d); }
    const deco = c.parent?.name === 'DecoratedStatement'
      ? c.parent.getChildren('Decorator').some((d) => /\bdataclass\b/.test(file.text.slice(d.from, d.to))) : false;
    return { node: c, name: nameNode ? file.text.slice(nameNode.from, nameNode.to) : '', bases, dataclass: deco };
  });
  // Subclass chains resolve over a few rounds (a local class may extend another local class).
  for (let round = 0; round < 4; round++) {
    for (const c of info) {
      for (const b of c.bases) {
        const last = b.split('.').pop()!;
        const root: Tool | undefined = TRL_CONFIGS.has(last) || b.startsWith('trl.') ? 'trl' : HF_ARGS.has(last) ? 'hf-trainer' : file.localArgs.get(last);
        if (root && !file.localArgs.has(c.name)) file.localArgs.set(c.name, root);
      }
    }
  }
  const selected = info.filter((c) => c.dataclass && (file.localArgs.has(c.name) || file.parsedClasses.has(c.name) || /(Arguments|Args)$/.test(c.name)));
  // Field defaults first (for the reasons of `x.field` unknowns), then the facts themselves.
  const fields = selected.map((c) => ({ c, fields: dataclassFields(file, c.node) }));
  for (const { fields: fs } of fields) {
    for (const f of fs) if (f.valueNode) file.fieldDefaults.set(f.rawKey,
      { text: clip(file.text.slice(f.valueSpan.start, f.valueSpan.end)), line: file.line(f.valueSpan.start), where: 'dataclass default' });
  }
  for (const { c, fields: fs } of fields) {
    const tool = file.localArgs.get(c.name) ?? (file.tools.has('trl') && file.parsedClasses.has(c.name) ? 'trl' : 'hf-trainer');
    if (file.localArgs.has(c.name)) file.tools.add(tool);
    for (const f of fs) {
      const x = file.valueOf(f);
      if (x.k === 'lit' && x.v === null) continue;
      mapEntry(file, 'dataclass', f, tool, 'dataclass-default', tool === 'trl');
    }
  }
}

/** Dataclass fields with a default: `name: T = value`, `field(default=...)`, `field(default_factory=lambda: [...])`. */
function dataclassFields(file: PythonFile, cls: SyntaxNode): Entry[] {
  const out: Entry[] = [];
  const body = cls.getChild('Body');
  if (!body) return out;
  for (let st = body.firstChild; st; st = st.nextSibling) {
    if (st.name !== 'AssignStatement') continue;
    const nameNode = st.firstChild;
    const value = st.lastChild;
    if (!nameNode || nameNode.name !== 'VariableName' || !value || value.from === nameNode.from || !st.getChild('TypeDef')) continue;
    const rawKey = file.text.slice(nameNode.from, nameNode.to);
    let vnode: SyntaxNode | null = value;
    if (value.name === 'CallExpression' && /^(dataclasses\.)?field$/.test(file.calleeName(value) ?? '')) {
      const args = file.args(value);
      const def = args.entries.find((e) => e.rawKey === 'default');
      const fac = args.entries.find((e) => e.rawKey === 'default_factory');
      vnode = def?.valueNode ?? (fac?.valueNode?.name === 'LambdaExpression' ? fac.valueNode.lastChild : null);
    }
    if (!vnode) continue;
    out.push({ rawKey, keySpan: span(nameNode), valueNode: vnode, valueSpan: span(vnode) });
  }
  return out;
}

/** The variable a call's result is assigned to (`name = call(...)`), if any. */
function assignedName(call: SyntaxNode, text: string): string | undefined {
  const parent = call.parent;
  if (parent?.name !== 'AssignStatement') return undefined;
  const target = parent.firstChild;
  return target?.name === 'VariableName' && target.nextSibling?.name === 'AssignOp' ? text.slice(target.from, target.to) : undefined;
}

/** Model classes whose from_pretrained loads trainable weights (not tokenizers, processors, configs or adapters). */
function isModelClass(name: string): boolean {
  if (/Tokenizer|Processor|Config|FeatureExtractor|Peft|Adapter/.test(name)) return false;
  return /^Auto\w*Model\w*$|For[A-Z]\w*$|(LM|Model)$|LMHeadModel$/.test(name);
}

/** The child nodes of a syntax node, in order. */
function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

function span(n: SyntaxNode): Span {
  return { start: n.from, end: n.to };
}

/** The characters between the quotes of a string literal node, so that slicing gives the key as written. */
function stringInner(text: string, n: SyntaxNode): Span {
  const raw = text.slice(n.from, n.to);
  const m = /^[rRbBuUfF]*('''|"""|'|")/.exec(raw);
  if (!m) return span(n);
  const q = m[1];
  const start = n.from + m[0].length;
  const end = raw.length >= m[0].length + q.length && raw.endsWith(q) ? n.to - q.length : n.to;
  return { start: Math.min(start, end), end };
}

function parseNumber(t: string): number | undefined {
  const s = t.replace(/_/g, '');
  if (/[jJ]$/.test(s)) return undefined;
  if (/^0[0-7]+$/.test(s) && !/^0+$/.test(s)) return undefined;
  const n = /^0[xXoObB]/.test(s) ? Number(s.toLowerCase()) : Number(s.replace(/[lL]$/, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** The value of a Python str literal (not bytes), or undefined when it is not one. */
function pyString(raw: string): string | undefined {
  const m = /^([rRbBuUfF]*)('''|"""|'|")/.exec(raw);
  if (!m) return undefined;
  const prefix = m[1].toLowerCase();
  if (prefix.includes('b')) return undefined;
  const q = m[2];
  if (raw.length < m[0].length + q.length || !raw.endsWith(q)) return undefined;
  const body = raw.slice(m[0].length, raw.length - q.length);
  if (prefix.includes('r')) return body;
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\n|.)/g, (_, c: string) => {
    if (c[0] === 'u' || c[0] === 'x') return String.fromCharCode(parseInt(c.slice(1), 16));
    return ({ n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '\n': '', '0': '\0' } as Record<string, string>)[c] ?? `\\${c}`;
  });
}

function mapBool<T>(b: boolean | Unknown | undefined, f: (b: boolean) => T | undefined): T | Unknown | undefined {
  if (b === undefined) return undefined;
  if (typeof b === 'boolean') return f(b);
  return b;
}

function fmt(v: FactValue): string {
  return typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) ? JSON.stringify(v) : String(v);
}

function clip(s: string, n = 200): string {
  const one = s.replace(/\s*\n\s*/g, ' ');
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

