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
  const a = new Analyzer(text);
  try {
    a.run();
  } catch {
    // A parser or walker failure must not hide what was found before it; the partial result is returned.
  }
  return a.result();
}

class Analyzer {
  private facts: Fact[] = [];
  /** Trainer calls with compute_metrics and no preprocess_logits_for_metrics (see trainerCall). */
  private readonly keptLogits: Array<{ e: Entry; tool: Tool }> = [];
  /** eval_accumulation_steps, prediction_loss_only=True or batch_eval_metrics=True seen in training arguments. */
  private logitsReleased = false;
  /** Reward models loaded with from_pretrained and passed to a trainer whose Hub id is a literal. */
  private scoringIds = 0;
  /** Checkpointing set on the model by Unsloth's from_pretrained / get_peft_model: it decides over the trainer's. */
  private readonly unslothCheckpointing = { load: [] as Fact[], peft: [] as Fact[] };
  private readonly problems: ParseProblem[] = [];
  private readonly references: Reference[] = [];
  private readonly tools = new Set<Tool>();
  private readonly lineStarts: number[] = [0];
  private readonly scopeKeys = new Map<string, Scope>();
  /** Local classes that subclass a training-arguments class, with the tool of their root. */
  private readonly localArgs = new Map<string, Tool>();
  /** Field defaults of the file's dataclasses and argparse options, for the reasons of `args.x` unknowns. */
  private readonly fieldDefaults = new Map<string, { text: string; line: number; where: string }>();
  private readonly parsedClasses = new Set<string>();
  private readonly errors: number[] = [];
  private root!: SyntaxNode;

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  result(): ConfigFacts {
    const tools = [...this.tools].sort((x, y) => (x === 'trl' ? -1 : y === 'trl' ? 1 : 0));
    return { format: 'hf-python', facts: this.facts, problems: this.problems, references: this.references, tools };
  }

  run(): void {
    const parsed = parsePython(this.text);
    this.problems.push(...parsed.problems);
    this.root = parsed.tree.topNode;
    const classes: SyntaxNode[] = [];
    const calls: SyntaxNode[] = [];
    const cur = this.root.cursor();
    for (;;) {
      if (cur.type.isError) this.errors.push(cur.from);
      if (cur.name === 'ClassDefinition') classes.push(cur.node);
      else if (cur.name === 'CallExpression') calls.push(cur.node);
      if (cur.firstChild()) continue;
      while (!cur.nextSibling()) if (!cur.parent()) return this.afterWalk(classes, calls);
    }
  }

  private afterWalk(classes: SyntaxNode[], calls: SyntaxNode[]): void {
    // Parsers and argparse options first: they tell which dataclasses are arguments and give the defaults of `args.x`.
    for (const c of calls) {
      const callee = this.calleeName(c);
      const last = callee?.split('.').pop() ?? '';
      if (PARSERS.has(last)) this.noteParser(c, last);
      else if (last === 'add_argument') this.noteArgparse(c);
    }
    this.collectClasses(classes);
    const padsToMax = this.padToMaxLength();
    this.allocatorConf();
    const scorers = this.scoringModelNames(calls);
    for (const c of calls) {
      const callee = this.calleeName(c);
      if (!callee) continue;
      const parts = callee.split('.');
      const last = parts[parts.length - 1];
      const calleeNode = c.firstChild!;
      if (HF_ARGS.has(last) || TRL_CONFIGS.has(last) || this.localArgs.has(last)) {
        const tool: Tool = TRL_CONFIGS.has(last) || parts[0] === 'trl' ? 'trl' : this.localArgs.get(last) ?? 'hf-trainer';
        this.tools.add(tool);
        this.trainingCall(c, tool, TRL_CONFIGS.has(last) || this.localArgs.has(last));
        this.syntaxIn(c, last);
      } else if ((last === 'from_pretrained' || last === 'get_peft_model') && parts.length >= 2 && UNSLOTH_CLASSES.has(parts[parts.length - 2])) {
        this.tools.add('unsloth');
        if (last === 'from_pretrained') this.unslothLoad(c);
        else this.unslothPeft(c, parts[parts.length - 2]);
        this.syntaxIn(c, last);
      } else if (last === 'from_pretrained' && parts.length >= 2 && isModelClass(parts[parts.length - 2])) {
        const target = assignedName(c, this.text);
        if (target !== undefined && scorers.has(target)) this.scoringModel(c);
        else this.fromPretrained(c);
      } else if (last === 'BitsAndBytesConfig') {
        this.bnbCall(c);
        this.syntaxIn(c, last);
      } else if (last === 'LoraConfig') {
        this.loraCall(c);
        this.facts.push({ key: 'method', rawKey: 'LoraConfig', value: 'lora', rawValue: 'LoraConfig(...)', keySpan: span(calleeNode),
          valueSpan: span(calleeNode), tool: 'peft' });
        this.syntaxIn(c, last);
      } else if (OTHER_PEFT_CONFIGS.has(last)) {
        this.tools.add('peft');
        this.problem('not-modeled', 'warning', msg('{0}: this PEFT method is not modeled; unless a method is set elsewhere the model is estimated as fully fine-tuned, far above what it needs', last), span(calleeNode), last);
        this.syntaxIn(c, last);
      } else if (last === 'IA3Config') {
        for (const e of this.args(c).entries) this.mapEntry('ia3', e, 'peft');
        this.facts.push({ key: 'method', rawKey: 'IA3Config', value: 'ia3', rawValue: 'IA3Config(...)', keySpan: span(calleeNode),
          valueSpan: span(calleeNode), tool: 'peft' });
        this.syntaxIn(c, last);
      } else if (last === 'ModelConfig' && (parts.length === 1 || parts[0] === 'trl')) {
        this.tools.add('trl');
        for (const e of this.args(c).entries) this.mapEntry('trl-model', e, 'trl');
      } else if (PADDING_COLLATORS.has(last) && !padsToMax) {
        // Each batch is padded to its longest sample: the allocator caches blocks of shorter batches.
        this.facts.push({ key: 'batchLengths', rawKey: last, value: 'variable', rawValue: `${last}(...)`, keySpan: span(calleeNode),
          valueSpan: span(calleeNode), tool: 'hf-trainer' });
      } else if (HF_TRAINERS.has(last) || TRL_TRAINERS.test(last)) {
        this.tools.add(TRL_TRAINERS.test(last) ? 'trl' : 'hf-trainer');
        this.trainerCall(c, TRL_TRAINERS.test(last) ? 'trl' : 'hf-trainer');
      } else if (last === 'prepare_model_for_kbit_training') {
        this.kbitPreparation(c);
      }
    }
    // prepare_model_for_kbit_training turns checkpointing on in the model itself; Trainer only ever turns it on, so
    // the call decides over a gradient_checkpointing=False (or its absence) anywhere in the file.
    if (!this.logitsReleased) for (const { e, tool } of this.keptLogits) this.push('evalKeepsLogits', e, true, tool);
    const prepared = this.facts.filter((f) => f.rawKey === 'prepare_model_for_kbit_training');
    if (prepared.length > 0) {
      // Checkpointing first, the upcast last: a hover on the call speaks of the upcast.
      this.facts = this.facts.filter((f) => f.rawKey !== 'prepare_model_for_kbit_training');
      this.facts.push(...prepared.filter((f) => f.key === 'gradientCheckpointing'), ...prepared.filter((f) => f.key !== 'gradientCheckpointing'));
    }
    // Unsloth enables checkpointing on the model; the trainer's gradient_checkpointing=False does not undo it.
    // get_peft_model sets it again after from_pretrained, so the latter's speaks only when there is no get_peft_model.
    const gc = this.unslothCheckpointing;
    this.facts.push(...(gc.peft.length > 0 ? gc.peft : gc.load));
    // LoRA over 4-bit base weights is QLoRA (FORMATS.md §2.5).
    if (this.facts.some((f) => f.key === 'quantBits' && f.value === 4)) {
      for (let i = 0; i < this.facts.length; i++) if (this.facts[i].key === 'method' && this.facts[i].value === 'lora')
        this.facts[i] = { ...this.facts[i], value: 'qlora' };
    }
    this.precisionConflicts();
  }

  // ---- Recognized calls ----

  private trainingCall(call: SyntaxNode, tool: Tool, trlOrLocal: boolean): void {
    const args = this.args(call);
    const name = this.calleeName(call)?.split('.').pop() ?? '';
    const pref = PREFERENCE_CONFIGS[name];
    const unmodeled = UNMODELED_TRL[name];
    if (unmodeled) this.problem('not-modeled', 'warning', notModeled(name, unmodeled), span(call.firstChild!), name);
    if (pref) this.calleeFact(call, 'preference', name, pref, `${name}(...)`, tool);
    if (ROLLOUT_CONFIGS[name]) this.calleeFact(call, 'rollout', name, ROLLOUT_CONFIGS[name], `${name}(...)`, tool);
    if (name === 'RewardConfig') this.rewardHead(call, name, tool);
    for (const e of args.entries) this.mapEntry('train', e, tool, undefined, trlOrLocal);
    this.opaqueSpreads(args.opaque);
  }

  /**
   * Names passed to a trainer as its reward model (OnlineDPOTrainer reward_model=, GRPOTrainer reward_funcs=, PPO's
   * value_model=): their from_pretrained loads a scoring model beside the policy, not the model that trains.
   */
  private scoringModelNames(calls: readonly SyntaxNode[]): Set<string> {
    const out = new Set<string>();
    for (const c of calls) {
      if (!/Trainer$/.test(this.calleeName(c)?.split('.').pop() ?? '')) continue;
      for (const e of this.args(c).entries) {
        if (!['reward_model', 'reward_funcs', 'value_model'].includes(e.rawKey) || !e.valueNode) continue;
        const nodes = e.valueNode.name === 'VariableName' ? [e.valueNode] : children(e.valueNode).filter((n) => n.name === 'VariableName');
        for (const n of nodes) out.add(this.text.slice(n.from, n.to));
      }
    }
    return out;
  }

  /** A reward model's from_pretrained: a Hub id string names it (counted like GRPO's reward_funcs ids); its keywords are its own. */
  private scoringModel(call: SyntaxNode): void {
    const args = this.args(call);
    const first = args.positional[0] ?? args.entries.find((e) => e.rawKey === 'pretrained_model_name_or_path')?.valueNode ?? undefined;
    if (!first) return;
    const v = this.evalNode(first, 0);
    if (v.k === 'lit' && typeof v.v === 'string') {
      this.push('rewardModels', { rawKey: 'reward_model', keySpan: span(first), valueNode: first, valueSpan: span(first) }, [v.v], 'trl');
      this.scoringIds++;
    }
  }

  private fromPretrained(call: SyntaxNode): void {
    const args = this.args(call);
    // A sequence classifier's class replaces the LM head with a score layer (no vocabulary logits); the other model
    // classes load the head of the model's family.
    const cls = this.calleeName(call)?.split('.').slice(-2, -1)[0] ?? '';
    if (/ForSequenceClassification$/.test(cls)) {
      const node = call.firstChild!;
      const callee = this.text.slice(node.from, node.to);
      this.facts.push({ key: 'head', rawKey: callee, value: 'seq_cls', rawValue: `${callee}(...)`, keySpan: span(node),
        valueSpan: span(node), tool: 'hf-trainer' });
    }
    const first = args.positional[0];
    if (first) {
      const e: Entry = { rawKey: 'pretrained_model_name_or_path', keySpan: span(first), valueNode: first, valueSpan: span(first) };
      this.emitModel(e, 'hf-trainer');
    }
    const entries = args.entries;
    const named = entries.find((e) => e.rawKey === 'pretrained_model_name_or_path');
    if (!first && named) this.emitModel(named, 'hf-trainer');
    for (const e of entries) this.mapEntry('load', e, 'hf-trainer');
    this.implicitBnbDefaults(entries, call, 'hf-trainer');
    this.opaqueSpreads(args.opaque);
  }

  private bnbCall(call: SyntaxNode): void {
    const args = this.args(call);
    const cond = this.conditionOf(call);
    for (const e of args.entries) {
      if (cond && (e.rawKey === 'load_in_4bit' || e.rawKey === 'load_in_8bit')) {
        const v = this.valueOf(e);
        if (v.k === 'lit' && v.v === true) {
          this.push('quantBits', e, { unknown: `the quantization config is used only when ${cond}` }, 'hf-trainer');
          continue;
        }
      }
      this.mapEntry('bnb', e, 'hf-trainer');
    }
    this.implicitBnbDefaults(args.entries, call, 'hf-trainer');
    this.opaqueSpreads(args.opaque);
  }

  /**
   * BitsAndBytesConfig defaults to fp4 without double quantization (transformers quantization_config.py), while TRL's
   * ModelConfig defaults to nf4, so a 4-bit load that names no type gets an explicit 'fp4' fact.
   */
  private implicitBnbDefaults(entries: readonly Entry[], call: SyntaxNode, tool: Tool): void {
    const has = (k: string): boolean => entries.some((e) => e.rawKey === k);
    const four = entries.find((e) => e.rawKey === 'load_in_4bit');
    if (!four) return;
    const v = this.valueOf(four);
    if (v.k !== 'lit' || v.v !== true) return;
    const at = span(call.firstChild!);
    const name = this.text.slice(at.start, at.end);
    if (!has('bnb_4bit_quant_type')) {
      this.facts.push({ key: 'quantType', rawKey: 'bnb_4bit_quant_type', value: 'fp4', rawValue: `${name}: default "fp4"`, keySpan: at, valueSpan: at, tool,
        origin: 'call-default' });
    }
    if (!has('bnb_4bit_use_double_quant')) {
      this.facts.push({ key: 'doubleQuant', rawKey: 'bnb_4bit_use_double_quant', value: false, rawValue: `${name}: default False`, keySpan: at, valueSpan: at,
        tool, origin: 'call-default' });
    }
  }

  /**
   * `padding="max_length"` passed to a call (the tokenizer or a collator): every batch has the maximum length. Found
   * by a scan of the text, kept only where the syntax tree has a keyword argument (not a comment or a string).
   */
  private padToMaxLength(): boolean {
    let found = false;
    for (const m of this.text.matchAll(/\bpadding(\s*=\s*)(["'])max_length\2/g)) {
      const at = m.index ?? 0;
      const node = this.root.resolveInner(at, 1);
      if (node.name !== 'VariableName' || node.parent?.name !== 'ArgList') continue;
      const keySpan = { start: at, end: at + 'padding'.length };
      const valueSpan = { start: keySpan.end + m[1].length, end: at + m[0].length };
      this.facts.push({ key: 'batchLengths', rawKey: 'padding', value: 'fixed', rawValue: this.text.slice(valueSpan.start, valueSpan.end), keySpan,
        valueSpan, tool: 'hf-trainer' });
      found = true;
    }
    return found;
  }

  /**
   * `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "..."` (or os.environ.setdefault) in the script: the caching allocator
   * reads it at the first CUDA allocation, so a script that sets it before training configures its own run.
   */
  private allocatorConf(): void {
    const re = /\bos\.environ(?:\s*\[\s*(["'])PYTORCH_CUDA_ALLOC_CONF\1\s*\]\s*=\s*|\.setdefault\(\s*(["'])PYTORCH_CUDA_ALLOC_CONF\2\s*,\s*)(["'])([^"'\n]*)\3/g;
    for (const m of this.text.matchAll(re)) {
      const at = m.index ?? 0;
      if (this.root.resolveInner(at, 1).name !== 'VariableName') continue;
      const keyStart = at + m[0].indexOf('PYTORCH_CUDA_ALLOC_CONF');
      const valueStart = at + m[0].length - m[4].length - 1;
      const keySpan = { start: keyStart, end: keyStart + 'PYTORCH_CUDA_ALLOC_CONF'.length };
      const valueSpan = { start: valueStart, end: valueStart + m[4].length };
      this.facts.push({ key: 'expandableSegments', rawKey: 'PYTORCH_CUDA_ALLOC_CONF', value: expandableSegmentsOf(m[4]), rawValue: m[4], keySpan,
        valueSpan, tool: 'hf-trainer' });
    }
  }

  /** PEFT LoraConfig: r=8 and lora_alpha=8 when absent (peft@5d602fd:src/peft/tuners/lora/config.py). */
  private loraCall(call: SyntaxNode): void {
    const args = this.args(call);
    for (const e of args.entries) this.mapEntry('lora', e, 'peft');
    const at = span(call.firstChild!);
    const name = this.text.slice(at.start, at.end);
    const opaque = args.opaque.length > 0;
    if (!opaque && !args.entries.some((e) => e.rawKey === 'r')) {
      this.facts.push({ key: 'loraR', rawKey: 'r', value: 8, rawValue: `${name}: default 8`, keySpan: at, valueSpan: at, tool: 'peft',
        origin: 'call-default' });
    }
    if (!opaque && !args.entries.some((e) => e.rawKey === 'lora_alpha')) {
      this.facts.push({ key: 'loraAlpha', rawKey: 'lora_alpha', value: 8, rawValue: `${name}: default 8`, keySpan: at, valueSpan: at, tool: 'peft',
        origin: 'call-default' });
    }
    this.opaqueSpreads(args.opaque);
  }

  /**
   * PEFT prepare_model_for_kbit_training(model, use_gradient_checkpointing=True): casts every parameter that is not
   * a 4/8-bit weight to fp32 (norms, embeddings, head, biases; on a model that is not quantized, all of them) and
   * enables gradient checkpointing unless use_gradient_checkpointing=False (peft/utils/other.py).
   */
  private kbitPreparation(call: SyntaxNode): void {
    const calleeNode = call.firstChild!;
    const at = span(calleeNode);
    const name = this.text.slice(at.start, at.end);
    this.facts.push({ key: 'kbitUpcast', rawKey: 'prepare_model_for_kbit_training', value: 'all', rawValue: `${name}(...)`, keySpan: at,
      valueSpan: at, tool: 'peft' });
    const args = this.args(call);
    const gc = this.argument(args)('use_gradient_checkpointing', 1);
    if (!gc) {
      this.facts.push({ key: 'gradientCheckpointing', rawKey: 'prepare_model_for_kbit_training', value: 'full',
        rawValue: `${name}: use_gradient_checkpointing default True`, keySpan: at, valueSpan: at, tool: 'peft', origin: 'call-default' });
      return;
    }
    const v = this.valueOf(gc);
    // False leaves checkpointing to the training arguments; an expression that is not a literal is reported as such.
    if (v.k === 'lit' && v.v === false) return;
    if (v.k === 'lit' && v.v === true) {
      this.facts.push({ key: 'gradientCheckpointing', rawKey: 'prepare_model_for_kbit_training', value: 'full',
        rawValue: clip(this.text.slice(gc.valueSpan.start, gc.valueSpan.end)), keySpan: gc.keySpan, valueSpan: gc.valueSpan, tool: 'peft' });
    }
  }

  /**
   * Unsloth FastLanguageModel / FastModel.from_pretrained (unsloth/models/loader.py): model_name, max_seq_length,
   * dtype (None: bfloat16 where supported, else float16), load_in_4bit=True by default (bitsandbytes NF4 with double
   * quantization), load_in_8bit, full_finetuning (which turns 4/8-bit loading off), use_gradient_checkpointing
   * ("unsloth" by default). A quantization_config argument is read where it is built (BitsAndBytesConfig).
   */
  private unslothLoad(call: SyntaxNode): void {
    const args = this.args(call);
    const arg = this.argument(args);
    const isTrue = (e: Entry | undefined): boolean => {
      const v = e ? this.valueOf(e) : undefined;
      return v?.k === 'lit' && v.v === true;
    };
    const model = arg('model_name', 0);
    if (model) this.emitModel(model, 'unsloth');
    else this.unslothDefault(call, 'model', 'model_name', 'unsloth/Llama-3.2-1B-Instruct', 'model_name default "unsloth/Llama-3.2-1B-Instruct"');
    const seq = arg('max_seq_length', 1);
    if (seq) this.emitAs('seqLen', seq, (x) => this.num(x, seq, true));
    else this.unslothDefault(call, 'seqLen', 'max_seq_length', 2048, 'max_seq_length default 2048');
    const dtype = arg('dtype', 2) ?? arg('torch_dtype');
    if (dtype) this.emitAs('weightsDtype', dtype, (x) => this.dtype(x));
    const full = arg('full_finetuning');
    const eight = arg('load_in_8bit', 4);
    const four = arg('load_in_4bit', 3);
    const quantConfig = arg('quantization_config');
    if (isTrue(full)) {
      this.push('method', full!, 'full', 'unsloth');
    } else if (isTrue(eight)) {
      this.push('quantBits', eight!, 8, 'unsloth');
    } else if (!quantConfig && !isTrue(arg('load_in_16bit'))) {
      if (four) this.emitAs('quantBits', four, (x) => mapBool(this.bool(x, four), (b) => (b ? 4 : undefined)));
      else this.unslothDefault(call, 'quantBits', 'load_in_4bit', 4, 'load_in_4bit default True');
      if (!four || isTrue(four)) {
        this.unslothDefault(call, 'quantType', 'bnb_4bit_quant_type', 'nf4', 'loads 4-bit weights as bitsandbytes NF4');
        this.unslothDefault(call, 'doubleQuant', 'bnb_4bit_use_double_quant', true, 'with double quantization');
      }
    }
    if (!isTrue(full)) {
      // Unsloth's prepare_model_for_kbit_training casts only the LoRA weights to fp32 (unsloth/models/_utils.py).
      this.unslothDefault(call, 'kbitUpcast', isTrue(eight) ? 'load_in_8bit' : 'load_in_4bit', 'none',
        'keeps norms, embeddings and head of a 4/8-bit model in the model dtype');
    }
    this.unslothDefault(call, 'kernels', 'from_pretrained', 'unsloth', 'patches the model with Unsloth\'s fused kernels');
    // fast_inference=True loads the model into a vLLM engine in the same process (gpu_memory_utilization of the GPU, 0.5
    // by default) whose weights the policy trains on; Unsloth's GRPO then generates with it (use_vllm set for it).
    const fast = arg('fast_inference');
    if (fast && isTrue(fast)) {
      this.push('useVllm', fast, true, 'unsloth');
      this.push('vllmMode', fast, 'colocate', 'unsloth');
      this.push('vllmSharedWeights', fast, true, 'unsloth');
      const util = arg('gpu_memory_utilization');
      if (util) this.emitAs('vllmMemoryFraction', util, (x) => this.num(x, util, false));
      else this.unslothDefault(call, 'vllmMemoryFraction', 'gpu_memory_utilization', 0.5, 'gpu_memory_utilization default 0.5');
    }
    this.unslothGc(call, arg('use_gradient_checkpointing'), this.unslothCheckpointing.load);
    this.opaqueSpreads(args.opaque);
  }

  /**
   * Unsloth get_peft_model: r=16, lora_alpha=16, lora_dropout=0, use_gradient_checkpointing="unsloth"; target_modules
   * default to the attention and MLP projections (FastLanguageModel) or to every linear layer of the language model
   * (FastModel, FastVisionModel: target_modules=None) (unsloth/models/llama.py, vision.py).
   */
  private unslothPeft(call: SyntaxNode, cls: string): void {
    const args = this.args(call);
    const arg = this.argument(args);
    this.calleeFact(call, 'method', 'get_peft_model', 'lora', `${this.text.slice(call.firstChild!.from, call.firstChild!.to)}(...)`, 'unsloth');
    for (const e of args.entries) if (e.rawKey !== 'use_gradient_checkpointing') this.mapEntry('lora', e, 'unsloth');
    const has = (k: string): boolean => args.entries.some((e) => e.rawKey === k) || args.opaque.length > 0;
    if (!has('r')) this.unslothDefault(call, 'loraR', 'r', 16, 'r default 16');
    if (!has('lora_alpha')) this.unslothDefault(call, 'loraAlpha', 'lora_alpha', 16, 'lora_alpha default 16');
    if (!has('lora_dropout')) this.unslothDefault(call, 'loraDropout', 'lora_dropout', 0, 'lora_dropout default 0');
    if (!has('target_modules')) {
      if (cls === 'FastLanguageModel') this.unslothDefault(call, 'loraTargets', 'target_modules', UNSLOTH_TARGETS,
        `target_modules default ${UNSLOTH_TARGETS.join(', ')}`);
      else this.unslothDefault(call, 'loraTargets', 'target_modules', 'all-linear', 'target_modules default: every attention and MLP linear layer');
    }
    this.unslothGc(call, arg('use_gradient_checkpointing'), this.unslothCheckpointing.peft);
    this.opaqueSpreads(args.opaque);
  }

  /** use_gradient_checkpointing: "unsloth" (the default) checkpoints every layer and keeps its input in host memory. */
  private unslothGc(call: SyntaxNode, e: Entry | undefined, out: Fact[]): void {
    const at = span(call.firstChild!);
    const name = this.text.slice(at.start, at.end);
    const v = e ? this.valueOf(e) : undefined;
    const offload = !e || (v?.k === 'lit' && v.v === 'unsloth');
    const on = offload || (v?.k === 'lit' && v.v === true);
    const off = v?.k === 'lit' && (v.v === false || v.v === null);
    const where = e ? { keySpan: e.keySpan, valueSpan: e.valueSpan, rawValue: clip(this.text.slice(e.valueSpan.start, e.valueSpan.end)) }
      : { keySpan: at, valueSpan: at, rawValue: `${name}: use_gradient_checkpointing default "unsloth"`, origin: 'call-default' as const };
    const fact = (key: CanonicalKey, value: FactValue | Unknown): Fact => ({ key, rawKey: 'use_gradient_checkpointing', value, tool: 'unsloth', ...where });
    if (!on && !off) {
      out.push(fact('gradientCheckpointing', { unknown: this.describe(v!) }));
      return;
    }
    out.push(fact('gradientCheckpointing', on ? 'full' : 'none'), fact('activationOffloading', offload));
  }

  /** An Unsloth default made explicit at the call (origin 'call-default'). */
  private unslothDefault(call: SyntaxNode, key: CanonicalKey, rawKey: string, value: FactValue, why: string): void {
    this.calleeFact(call, key, rawKey, value, `${this.text.slice(call.firstChild!.from, call.firstChild!.to)}: ${why}`, 'unsloth', 'call-default');
  }

  /** A fact that the call itself states, located at its callee. */
  /**
   * TRL's RewardTrainer trains a sequence classifier with one label: a model id is loaded with
   * AutoModelForSequenceClassification(num_labels=1) (trl/trainer/reward_trainer.py); a model loaded by the script
   * keeps the head of its own from_pretrained class, which is read there and wins.
   */
  private rewardHead(call: SyntaxNode, name: string, tool: Tool): void {
    this.calleeFact(call, 'head', name, 'seq_cls', `${name}(...)`, tool, 'call-default');
    this.calleeFact(call, 'numLabels', name, 1, `${name}(...)`, tool, 'call-default');
  }

  private calleeFact(call: SyntaxNode, key: CanonicalKey, rawKey: string, value: FactValue, rawValue: string, tool: Tool, origin?: Fact['origin']): void {
    const at = span(call.firstChild!);
    this.facts.push({ key, rawKey, value, rawValue, keySpan: at, valueSpan: at, tool, ...(origin ? { origin } : {}) });
  }

  /** A keyword argument, or the positional one at `pos`, as an Entry. */
  private argument(args: { positional: SyntaxNode[]; entries: Entry[] }): (k: string, pos?: number) => Entry | undefined {
    return (k, pos) => {
      const named = args.entries.find((e) => e.rawKey === k);
      if (named) return named;
      const p = pos !== undefined ? args.positional[pos] : undefined;
      return p ? { rawKey: k, keySpan: span(p), valueNode: p, valueSpan: span(p) } : undefined;
    };
  }

  private emitAs(key: CanonicalKey, e: Entry, conv: (x: Val) => FactValue | Unknown | undefined): void {
    const x = this.valueOf(e);
    const value = conv(x);
    if (value !== undefined) this.push(key, e, value, 'unsloth', x);
  }

  private trainerCall(call: SyntaxNode, tool: Tool): void {
    const args = this.args(call);
    const trainer = this.calleeName(call)?.split('.').pop() ?? '';
    const pref = PREFERENCE_CONFIGS[trainer];
    // The trainer names the objective when the arguments are a plain TrainingArguments (older TRL scripts).
    if (pref && !this.facts.some((f) => f.key === 'preference')) this.calleeFact(call, 'preference', trainer, pref, `${trainer}(...)`, tool);
    const rollout = ROLLOUT_CONFIGS[trainer];
    if (rollout && !this.facts.some((f) => f.key === 'rollout')) this.calleeFact(call, 'rollout', trainer, rollout, `${trainer}(...)`, tool);
    if (trainer === 'RewardTrainer' && !this.facts.some((f) => f.key === 'head' && f.rawKey === 'RewardConfig')) this.rewardHead(call, trainer, tool);
    const isNone = (e: Entry): boolean => {
      const v = this.valueOf(e);
      return v.k === 'lit' && v.v === null;
    };
    const present = (k: string): boolean => args.entries.some((e) => e.rawKey === k && !isNone(e));
    for (const e of args.entries) {
      if (e.rawKey === 'compute_metrics') {
        // Trainer.evaluation_loop keeps each batch's logits on the device (EvalLoopContainer) unless
        // eval_accumulation_steps moves them to the host or preprocess_logits_for_metrics reduces them.
        if (!isNone(e) && !present('preprocess_logits_for_metrics')) this.keptLogits.push({ e, tool });
      } else if (e.rawKey === 'model') {
        const v = this.valueOf(e);
        // Only a model id string names the model; a model object was loaded elsewhere (from_pretrained is read there).
        if (v.k === 'lit' && typeof v.v === 'string') this.emitModel(e, tool);
      } else if (e.rawKey === 'teacher_model' && trainer === 'GKDTrainer') {
        // GKDTrainer(teacher_model="org/model") loads the teacher by its Hub id; a model object was loaded elsewhere.
        const v = this.valueOf(e);
        if (v.k === 'lit' && typeof v.v === 'string') this.push('teacherModel', e, v.v, tool);
      } else if (e.rawKey === 'ref_model' && (pref === 'dpo' || pref === 'kto' || rollout === 'online-dpo')) {
        // An explicit reference model is a second resident model (TRL keeps it even with PEFT).
        if (!isNone(e)) this.push('referenceModel', e, 'given', tool);
      } else if (e.rawKey === 'reward_funcs' && rollout && e.valueNode) {
        // A string names a reward model: GRPOTrainer loads it (AutoModelForSequenceClassification) on every GPU.
        const node = e.valueNode;
        const strings = node.name === 'String' ? [node]
          : node.name === 'ArrayExpression' || node.name === 'TupleExpression' ? children(node).filter((c) => c.name === 'String') : [];
        const ids = strings.map((str) => this.evalNode(str, 0)).flatMap((v) => (v.k === 'lit' && typeof v.v === 'string' ? [v.v] : []));
        if (ids.length > 0) this.push('rewardModels', e, ids, tool);
      } else if (e.rawKey === 'reward_model' && rollout === 'online-dpo' && !isNone(e) && this.scoringIds === 0) {
        // OnlineDPOTrainer(reward_model=...) takes a model loaded elsewhere: it sits on every GPU, but which model it is
        // is not known here (OnlineDPOConfig reward_model_path, or reward_funcs with a Hub id, name it).
        this.problem('not-modeled', 'warning', rewardModelObjectNotCounted(), e.keySpan, 'reward_model');
      } else if (e.rawKey === 'peft_config') {
        const v = this.valueOf(e);
        if (v.k === 'lit' && v.v === null) continue;
        if (v.k === 'call' && /(^|\.)(LoraConfig|IA3Config)$/.test(v.callee)) continue;
        this.push('method', e, { unknown: `peft_config is ${this.describe(v)}` }, tool);
      }
    }
  }

  private emitModel(e: Entry, tool: Tool): void {
    const v = this.valueOf(e);
    if (v.k === 'lit' && typeof v.v === 'string') this.push('model', e, v.v, tool, v);
    else if (!(v.k === 'lit' && v.v === null)) this.push('model', e, { unknown: this.describe(v) }, tool, v);
  }

  // ---- Key mapping ----

  /** Maps one key/value to canonical facts for the given kind of call. */
  private mapEntry(ctx: Ctx, e: Entry, tool: Tool, origin?: Fact['origin'], trlOrLocal = false): void {
    const k = e.rawKey;
    const v = (): Val => this.valueOf(e);
    const train = ctx === 'train' || ctx === 'dataclass';
    const script = ctx === 'dataclass' || ctx === 'trl-model';
    const emit = (key: CanonicalKey, conv: (x: Val) => FactValue | Unknown | undefined): void => {
      const x = v();
      const value = conv(x);
      if (value !== undefined) this.push(key, e, value, tool, x, origin);
    };
    if (train) {
      switch (k) {
        case 'per_device_train_batch_size': case 'per_gpu_train_batch_size':
          return emit('microBatchSize', (x) => this.num(x, e, true));
        case 'per_device_eval_batch_size': case 'per_gpu_eval_batch_size':
          return emit('evalBatchSize', (x) => this.num(x, e, true));
        case 'eval_accumulation_steps': case 'prediction_loss_only': case 'batch_eval_metrics': {
          const x = v();
          if (!(x.k === 'lit' && (x.v === null || x.v === false || x.v === 0))) this.logitsReleased = true;
          return;
        }
        case 'eval_strategy': case 'evaluation_strategy':
          // "no" / IntervalStrategy.NO: no evaluation; "steps" / "epoch": evaluation runs during training.
          return emit('evalStrategy', (x) => {
            if (x.k === 'lit' && x.v === null) return undefined;
            const on = x.k === 'lit' && typeof x.v === 'string' ? evaluationOn(x.v) : x.k === 'dotted' ? evaluationOn(x.text) : undefined;
            return on ?? { unknown: this.describe(x) };
          });
        case 'gradient_accumulation_steps':
          return emit('gradientAccumulationSteps', (x) => this.num(x, e, true));
        case 'use_liger_loss':
          // DPOConfig: Liger's fused linear DPO loss takes the log-probabilities without materializing the logits.
          return emit('loss', (x) => mapBool(this.bool(x, e), (b) => (b ? 'fused' : undefined)));
        case 'torch_empty_cache_steps':
          return emit('emptyCacheSteps', (x) => this.num(x, e, true));
        case 'label_smoothing_factor': return emit('labelSmoothing', (x) => this.num(x, e, false));
        // GRPOConfig: prompt and completion lengths, the generation round, the KL reference and the vLLM engine.
        case 'max_prompt_length': return emit('promptLen', (x) => this.num(x, e, true));
        case 'max_completion_length': return emit('completionLen', (x) => this.num(x, e, true));
        case 'steps_per_generation': return emit('stepsPerGeneration', (x) => this.num(x, e, true));
        case 'generation_batch_size': return emit('generationBatchSize', (x) => this.num(x, e, true));
        case 'num_iterations': return emit('numIterations', (x) => this.num(x, e, true));
        case 'num_generations': return emit('numGenerations', (x) => this.num(x, e, true));
        case 'beta': return emit('klBeta', (x) => this.num(x, e, false));
        case 'cpo_alpha': return emit('cpoAlpha', (x) => this.num(x, e, false));
        case 'rpo_alpha': return emit('rpoAlpha', (x) => (x.k === 'lit' && x.v === null ? undefined : this.num(x, e, false)));
        // GKDConfig: the on-policy share, the tokens of an on-policy round, the teacher the student is distilled from.
        case 'lmbda': return emit('onPolicyFraction', (x) => this.num(x, e, false));
        case 'max_new_tokens': return emit('maxNewTokens', (x) => this.num(x, e, true));
        case 'teacher_model_name_or_path': return emit('teacherModel',
          (x) => (x.k === 'lit' && typeof x.v === 'string' ? x.v : x.k === 'lit' && x.v === null ? undefined : { unknown: this.describe(x) }));
        case 'use_vllm': return emit('useVllm', (x) => this.bool(x, e));
        case 'vllm_mode': return emit('vllmMode', (x) =>
          (x.k === 'lit' && (x.v === 'colocate' || x.v === 'server') ? x.v : x.k === 'lit' && x.v === null ? undefined : { unknown: this.describe(x) }));
        case 'vllm_gpu_memory_utilization': return emit('vllmMemoryFraction', (x) => this.num(x, e, false));
        // OnlineDPOConfig before TRL 0.20: the colocated engine's share; reward_model_path: the reward model's Hub id or path.
        case 'gpu_memory_utilization': return emit('vllmMemoryFraction', (x) => this.num(x, e, false));
        case 'reward_model_path': return emit('rewardModels',
          (x) => (x.k === 'lit' && typeof x.v === 'string' ? [x.v] : x.k === 'lit' && x.v === null ? undefined : { unknown: this.describe(x) }));
        case 'vllm_tensor_parallel_size': return emit('vllmTensorParallel', (x) => this.num(x, e, true));
        case 'vllm_enable_sleep_mode': return emit('vllmSleep', (x) => this.bool(x, e));
        case 'ds3_gather_for_generation': return emit('gatherForGeneration', (x) => this.bool(x, e));
        case 'precompute_ref_log_probs':
          // DPOConfig: the reference log-probabilities are computed once before training; no reference forward per step.
          return emit('referenceModel', (x) => mapBool(this.bool(x, e), (b) => (b ? 'precomputed' : undefined)));
        case 'bf16': return emit('bf16', (x) => this.bool(x, e));
        case 'fp16': return emit('fp16', (x) => this.bool(x, e));
        case 'optim': {
          const x = v();
          const g = x.k === 'lit' && typeof x.v === 'string' ? galoreOf(x.v) : undefined;
          if (g) {
            this.push('galore', e, 'galore', tool, x, origin);
            this.push('galoreLayerwise', e, g.layerwise, tool, x, origin);
          }
          return emit('optimizer', (y) => this.optim(y, e));
        }
        case 'optim_target_modules': return emit('galoreTargets', (x) => (x.k === 'lit' && typeof x.v === 'string' ? [x.v] : this.strList(x, e)));
        case 'optim_args': return emit('galoreRank', (x) => (x.k === 'lit' && typeof x.v === 'string' ? galoreRankOf(x.v) : undefined));
        case 'gradient_checkpointing':
          return emit('gradientCheckpointing', (x) => mapBool(this.bool(x, e), (b) => (b ? 'full' : 'none')));
        case 'activation_offloading': return emit('activationOffloading', (x) => this.bool(x, e));
        case 'auto_find_batch_size': return emit('autoFindBatchSize', (x) => this.bool(x, e));
        case 'torch_compile': return emit('compile', (x) => this.bool(x, e));
        case 'use_liger_kernel':
          // Liger's fused linear cross-entropy never materializes the logits (HF use_liger_kernel, TRL loss with liger);
          // its RMSNorm, RoPE and SwiGLU kernels replace the block's ops (transformers _apply_liger_kernel_to_instance).
          return emit('loss', (x) => {
            const on = mapBool(this.bool(x, e), (b) => b || undefined);
            if (on !== undefined) this.push('kernels', e, on === true ? 'liger' : on, tool, x, origin);
            return on === true ? 'fused' : on;
          });
        case 'deepspeed': return this.deepspeed(e, tool, origin);
        case 'fsdp': return this.fsdp(e, tool, origin);
        case 'model_init_kwargs': return this.nestedLoad(e, tool);
        case 'packing':
          // TRL SFTConfig packing: samples concatenated to max_length; otherwise each batch is padded to its longest.
          if (trlOrLocal || ctx === 'dataclass') return emit('batchLengths', (x) => mapBool(this.bool(x, e), (b) => (b ? 'fixed' : 'variable')));
          return;
        case 'max_length':
          if (trlOrLocal || ctx === 'dataclass') return emit('seqLen', (x) => this.num(x, e, true));
          return;
        default:
          if (SEQ_KEYS.has(k)) return emit('seqLen', (x) => this.num(x, e, true));
      }
    }
    if (ctx === 'load' || script) {
      switch (k) {
        case 'dtype': case 'torch_dtype': return emit('weightsDtype', (x) => this.dtype(x));
        case 'attn_implementation': return emit('attention', (x) => this.attention(x));
        case 'num_labels': return emit('numLabels', (x) => this.num(x, e, true));
        case 'quantization_config': {
          const x = v();
          if (x.k === 'lit' && x.v === null) return;
          if (x.k === 'call' && /(^|\.)BitsAndBytesConfig$/.test(x.callee)) return;
          if (x.k === 'dict') return this.nestedBnb(x, tool);
          // A BitsAndBytesConfig(...) written inside the value (e.g. `BitsAndBytesConfig(...) if q_lora else None`) speaks for itself.
          if (e.valueNode && /\bBitsAndBytesConfig\s*\(/.test(this.text.slice(e.valueNode.from, e.valueNode.to))) return;
          return this.push('quantBits', e, { unknown: `quantization_config is ${this.describe(x)}` }, tool, x, origin);
        }
      }
    }
    if (ctx === 'load' || ctx === 'bnb' || script) {
      switch (k) {
        case 'load_in_4bit':
          return emit('quantBits', (x) => mapBool(this.bool(x, e), (b) => (b ? 4 : undefined)));
        case 'load_in_8bit':
          return emit('quantBits', (x) => mapBool(this.bool(x, e), (b) => (b ? 8 : undefined)));
        case 'bnb_4bit_quant_type': return emit('quantType', (x) => this.enumStr(x, e, ['nf4', 'fp4']));
        case 'bnb_4bit_use_double_quant': case 'use_bnb_nested_quant': case 'use_nested_quant':
          return emit('doubleQuant', (x) => this.bool(x, e));
      }
    }
    if (ctx === 'ia3') {
      switch (k) {
        case 'target_modules': return emit('ia3Targets', (x) => this.strList(x, e));
        case 'feedforward_modules': return emit('ia3Feedforward', (x) => this.strList(x, e));
      }
    }
    if (ctx === 'lora') {
      switch (k) {
        case 'r': return emit('loraR', (x) => this.num(x, e, true));
        case 'lora_alpha': return emit('loraAlpha', (x) => this.num(x, e, false));
        case 'lora_dropout': return emit('loraDropout', (x) => this.num(x, e, false));
        case 'target_modules': return emit('loraTargets', (x) => this.targets(x, e));
        case 'modules_to_save': return emit('loraModulesToSave', (x) => this.strList(x, e));
        case 'use_dora': return emit('loraDora', (x) => this.bool(x, e));
        case 'target_parameters': return emit('loraTargetParameters', (x) => this.strList(x, e));
      }
    }
    if (script) {
      switch (k) {
        case 'model_name_or_path': case 'pretrained_model_name_or_path': case 'base_model_name_or_path': {
          const x = v();
          if (x.k === 'lit' && x.v === null) return;
          return this.push('model', e, x.k === 'lit' && typeof x.v === 'string' ? x.v : { unknown: this.describe(x) }, tool, x, origin);
        }
        case 'lora_r': case 'lora_rank': return emit('loraR', (x) => this.num(x, e, true));
        case 'lora_alpha': return emit('loraAlpha', (x) => this.num(x, e, false));
        case 'lora_dropout': return emit('loraDropout', (x) => this.num(x, e, false));
        case 'lora_target_modules': return emit('loraTargets', (x) => this.targets(x, e));
        case 'lora_modules_to_save': return emit('loraModulesToSave', (x) => this.strList(x, e));
        case 'use_dora': return emit('loraDora', (x) => this.bool(x, e));
        case 'use_peft': return emit('method', (x) => mapBool(this.bool(x, e), (b) => (b ? 'lora' : undefined)));
        // FastChat's q_lora and the PEFT SFT example's use_4bit_quantization load the base model in 4 bits.
        case 'q_lora': case 'use_4bit_quantization': case 'use_qlora':
          return emit('quantBits', (x) => mapBool(this.bool(x, e), (b) => (b ? 4 : undefined)));
        case 'use_flash_attn':
          return emit('attention', (x) => mapBool(this.bool(x, e), (b) => (b ? 'flash' : undefined)));
      }
    }
  }

  private deepspeed(e: Entry, tool: Tool, origin?: Fact['origin']): void {
    const x = this.valueOf(e);
    if (x.k === 'lit' && x.v === null) return;
    if (x.k === 'lit' && typeof x.v === 'string') {
      if (x.v.trimStart().startsWith('{')) {
        return this.push('deepspeedConfig', e, { unknown: 'an inline DeepSpeed JSON string; its keys are not read here' }, tool, x, origin);
      }
      this.push('deepspeedConfig', e, x.v, tool, x, origin);
      this.references.push({ kind: 'deepspeed', path: x.v, span: x.via?.span ?? e.valueSpan });
      return;
    }
    if (x.k === 'dict') return this.push('deepspeedConfig', e, { unknown: 'an inline DeepSpeed dict; its keys are not read here' }, tool, x, origin);
    this.push('deepspeedConfig', e, { unknown: this.describe(x) }, tool, x, origin);
  }

  /** HF `fsdp`: bool, a space-separated string or a list of FSDPOption values (transformers training_args.py). */
  private fsdp(e: Entry, tool: Tool, origin?: Fact['origin']): void {
    const x = this.valueOf(e);
    if (x.k === 'lit' && x.v === null) return;
    let opts: string[] | undefined;
    if (x.k === 'lit' && typeof x.v === 'boolean') opts = x.v ? ['full_shard'] : [];
    else if (x.k === 'lit' && typeof x.v === 'string') opts = x.v.split(/\s+/).filter(Boolean);
    else if (x.k === 'lit' && Array.isArray(x.v)) opts = [...(x.v as readonly string[])];
    if (!opts) return this.push('fsdp', e, { unknown: this.describe(x) }, tool, x, origin);
    const mode = opts.find((o) => ['full_shard', 'shard_grad_op', 'hybrid_shard', 'hybrid_shard_zero2', 'no_shard'].includes(o));
    const value = mode === 'hybrid_shard_zero2' ? 'hybrid_shard' : mode ?? (opts.includes('offload') ? undefined : 'none');
    if (value === undefined) {
      this.problem('invalid-value', 'warning', msg('fsdp "offload" needs a sharding mode such as full_shard'), e.valueSpan, e.rawKey);
      this.push('fsdp', e, { unknown: 'offload without a sharding mode' }, tool, x, origin);
    } else {
      this.push('fsdp', e, value, tool, x, origin);
    }
    if (opts.includes('offload')) this.push('fsdpOffload', e, true, tool, x, origin);
  }

  /** TRL model_init_kwargs: the from_pretrained keywords used when the trainer loads the model from a string. */
  private nestedLoad(e: Entry, tool: Tool): void {
    const x = this.valueOf(e);
    if (x.k === 'lit' && x.v === null) return;
    if (x.k !== 'dict') {
      this.problem('not-static', 'info', msg('model_init_kwargs is {0}; the load dtype and attention are not known', this.describe(x)), e.valueSpan, e.rawKey);
      return;
    }
    for (const inner of x.entries) this.mapEntry('load', inner, tool);
    this.implicitBnbDefaults(x.entries, e.valueNode ?? this.root, tool);
    this.opaqueSpreads(x.opaque.map((r) => ({ reason: r, span: e.valueSpan })));
  }

  private nestedBnb(x: Extract<Val, { k: 'dict' }>, tool: Tool): void {
    for (const inner of x.entries) this.mapEntry('bnb', inner, tool);
  }

  // ---- Value conversions ----

  private num(x: Val, e: Entry, integer: boolean): number | Unknown | undefined {
    if (x.k === 'lit') {
      if (x.v === null) return undefined;
      if (typeof x.v === 'number' && (!integer || Number.isInteger(x.v))) return x.v;
      this.problem('invalid-value', 'warning', msg(integer ? '{0} expects an integer, not {1}' : '{0} expects a number, not {1}', e.rawKey,
        this.text.slice(e.valueSpan.start, e.valueSpan.end)), e.valueSpan, e.rawKey);
      return { unknown: `not a number: ${fmt(x.v)}` };
    }
    return { unknown: this.describe(x) };
  }

  private bool(x: Val, e: Entry): boolean | Unknown | undefined {
    if (x.k === 'lit') {
      if (x.v === null) return undefined;
      if (typeof x.v === 'boolean') return x.v;
      this.problem('invalid-value', 'warning', msg('{0} expects True or False', e.rawKey), e.valueSpan, e.rawKey);
      return { unknown: `not a boolean: ${fmt(x.v)}` };
    }
    return { unknown: this.describe(x) };
  }

  private enumStr(x: Val, e: Entry, allowed: readonly string[]): string | Unknown | undefined {
    if (x.k === 'lit' && x.v === null) return undefined;
    if (x.k === 'lit' && typeof x.v === 'string') {
      if (allowed.includes(x.v)) return x.v;
      this.problem('invalid-value', 'warning', msg('{0} is one of {1}', e.rawKey, allowed.join(', ')), e.valueSpan, e.rawKey);
      return { unknown: `unexpected value ${fmt(x.v)}` };
    }
    return { unknown: this.describe(x) };
  }

  private optim(x: Val, e: Entry): string | Unknown | undefined {
    if (x.k === 'lit' && x.v === null) return undefined;
    if (x.k === 'lit' && typeof x.v === 'string') return normalizeOptimizer(x.v);
    // OptimizerNames.ADAMW_TORCH_FUSED: the enum member's value is its lower-cased name.
    if (x.k === 'dotted' && /(^|\.)OptimizerNames\.\w+$/.test(x.text)) return normalizeOptimizer(x.text.split('.').pop()!.toLowerCase());
    if (x.k === 'lit') return this.enumStr(x, e, []);
    return { unknown: this.describe(x) };
  }

  private dtype(x: Val): string | Unknown | undefined {
    if (x.k === 'lit' && x.v === null) return undefined;
    let name: string | undefined;
    if (x.k === 'dotted' && /^torch\.\w+$/.test(x.text)) name = x.text.slice(6);
    else if (x.k === 'lit' && typeof x.v === 'string') name = x.v.replace(/^torch\./, '');
    if (name === undefined) return { unknown: this.describe(x) };
    if (name === 'auto') return { unknown: 'dtype "auto" takes the dtype stored in the checkpoint config' };
    const d = ({ bfloat16: 'bf16', bf16: 'bf16', float16: 'fp16', fp16: 'fp16', half: 'fp16', float32: 'fp32', fp32: 'fp32',
      float: 'fp32' } as Record<string, string>)[name];
    return d ?? { unknown: `dtype ${name} has no estimate` };
  }

  private attention(x: Val): string | Unknown | undefined {
    if (x.k === 'lit' && x.v === null) return undefined;
    if (x.k === 'lit' && typeof x.v === 'string') {
      const s = x.v;
      if (s === 'eager' || s === 'sdpa') return s;
      if (/^flash_attention_[23]$|flash[-_]?attn/.test(s)) return 'flash';
      return { unknown: `attention "${s}" has no estimate` };
    }
    return { unknown: this.describe(x) };
  }

  private strList(x: Val, e: Entry): readonly string[] | Unknown | undefined {
    if (x.k === 'lit' && x.v === null) return undefined;
    if (x.k === 'lit' && Array.isArray(x.v)) return x.v as readonly string[];
    if (x.k === 'lit' && typeof x.v === 'string') return [x.v];
    if (x.k === 'lit') {
      this.problem('invalid-value', 'warning', msg('{0} expects a list of module names', e.rawKey), e.valueSpan, e.rawKey);
      return { unknown: `not a list: ${fmt(x.v)}` };
    }
    return { unknown: this.describe(x) };
  }

  /** PEFT target_modules: a list, "all-linear", or any other string, which PEFT treats as a regex. */
  private targets(x: Val, e: Entry): FactValue | Unknown | undefined {
    if (x.k === 'lit' && typeof x.v === 'string') return x.v === 'all-linear' ? 'all-linear'
      : { unknown: `the regular expression ${fmt(x.v)} selects modules by name` };
    return this.strList(x, e);
  }

  // ---- Facts and problems ----

  private push(key: CanonicalKey, e: Entry, value: FactValue | Unknown, tool: Tool, from?: Val, origin?: Fact['origin']): void {
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

  private problem(code: ParseProblem['code'], severity: ParseProblem['severity'], m: Message, at: Span, rawKey?: string): void {
    this.problems.push({ code, severity, message: m.message, template: m.template, span: at, ...(rawKey ? { rawKey } : {}) });
  }

  private opaqueSpreads(list: readonly { reason: string; span: Span }[]): void {
    for (const o of list) this.problem('not-static', 'info', msg('{0}: the keys it sets are not known statically', o.reason), o.span);
  }

  /** HF TrainingArguments raises when bf16 and fp16 are both True (training_args.py __post_init__). */
  private precisionConflicts(): void {
    const byCall = new Map<string, Fact[]>();
    for (const f of this.facts) {
      if ((f.key === 'bf16' || f.key === 'fp16') && f.value === true && !f.origin) {
        const node = this.root.resolveInner(f.keySpan.start, 1);
        let c: SyntaxNode | null = node;
        while (c && c.name !== 'CallExpression') c = c.parent;
        const id = c ? `${c.from}` : 'file';
        byCall.set(id, [...(byCall.get(id) ?? []), f]);
      }
    }
    for (const fs of byCall.values()) {
      if (fs.some((f) => f.key === 'bf16') && fs.some((f) => f.key === 'fp16')) {
        const later = fs[fs.length - 1];
        this.problem('conflicting-precision', 'error', msg('bf16=True and fp16=True together: TrainingArguments raises a ValueError'),
          { start: later.keySpan.start, end: later.valueSpan.end }, later.rawKey);
      }
    }
  }

  /** A syntax error inside a recognized call changes what the call says; elsewhere the Python extension reports it. */
  private syntaxIn(call: SyntaxNode, name: string): void {
    const at = this.errors.find((p) => p >= call.from && p <= call.to);
    if (at === undefined) return;
    const end = Math.min(this.text.length, at + 1);
    this.problem('syntax-error', 'error', msg('Python syntax error inside {0}(...): the values after it may be missing', name),
      { start: at, end: Math.max(at, end) });
  }

  // ---- Classes, parsers, argparse ----

  private noteParser(call: SyntaxNode, which: string): void {
    const args = this.args(call);
    const first = args.positional[0] ?? args.entries.find((e) => e.rawKey === 'dataclass_types')?.valueNode ?? null;
    if (!first) return;
    const target = first.name === 'VariableName' ? this.bindingValue(first) ?? first : first;
    const names: string[] = [];
    if (target.name === 'TupleExpression' || target.name === 'ArrayExpression') {
      for (let ch = target.firstChild; ch; ch = ch.nextSibling) {
        const n = this.dotted(ch);
        if (n) names.push(n.split('.').pop()!);
      }
    } else {
      const n = this.dotted(target);
      if (n) names.push(n.split('.').pop()!);
    }
    for (const n of names) {
      this.parsedClasses.add(n);
      if (TRL_CONFIGS.has(n) || n === 'ModelConfig') this.tools.add('trl');
      else if (HF_ARGS.has(n)) this.tools.add('hf-trainer');
    }
    if (which === 'TrlParser') this.tools.add('trl');
  }

  private noteArgparse(call: SyntaxNode): void {
    const args = this.args(call);
    const flag = args.positional.map((p) => this.evalNode(p, 0)).find((v) => v.k === 'lit' && typeof v.v === 'string' && v.v.startsWith('--'));
    if (!flag || flag.k !== 'lit') return;
    const dest = args.entries.find((e) => e.rawKey === 'dest');
    const destVal = dest ? this.valueOf(dest) : undefined;
    const name = destVal?.k === 'lit' && typeof destVal.v === 'string' ? destVal.v : String(flag.v).replace(/^-+/, '').replace(/-/g, '_');
    const def = args.entries.find((e) => e.rawKey === 'default');
    const action = args.entries.find((e) => e.rawKey === 'action');
    const actionVal = action ? this.valueOf(action) : undefined;
    if (def?.valueNode) this.fieldDefaults.set(name, { text: clip(this.text.slice(def.valueSpan.start, def.valueSpan.end)),
      line: this.line(def.valueSpan.start), where: 'argparse default' });
    else if (actionVal?.k === 'lit' && actionVal.v === 'store_true')
      this.fieldDefaults.set(name, { text: 'False', line: this.line(call.from), where: 'argparse store_true default' });
  }

  /** Arguments dataclasses: subclasses of TrainingArguments/TRL configs, classes given to HfArgumentParser, *Arguments. */
  private collectClasses(classes: SyntaxNode[]): void {
    const info = classes.map((c) => {
      const nameNode = c.getChild('VariableName');
      const bases: string[] = [];
      const argList = c.getChild('ArgList');
      if (argList) for (let ch = argList.firstChild; ch; ch = ch.nextSibling) { const d = this.dotted(ch); if (d) bases.push(d); }
      const deco = c.parent?.name === 'DecoratedStatement'
        ? c.parent.getChildren('Decorator').some((d) => /\bdataclass\b/.test(this.text.slice(d.from, d.to))) : false;
      return { node: c, name: nameNode ? this.text.slice(nameNode.from, nameNode.to) : '', bases, dataclass: deco };
    });
    // Subclass chains resolve over a few rounds (a local class may extend another local class).
    for (let round = 0; round < 4; round++) {
      for (const c of info) {
        for (const b of c.bases) {
          const last = b.split('.').pop()!;
          const root: Tool | undefined = TRL_CONFIGS.has(last) || b.startsWith('trl.') ? 'trl' : HF_ARGS.has(last) ? 'hf-trainer' : this.localArgs.get(last);
          if (root && !this.localArgs.has(c.name)) this.localArgs.set(c.name, root);
        }
      }
    }
    const selected = info.filter((c) => c.dataclass && (this.localArgs.has(c.name) || this.parsedClasses.has(c.name) || /(Arguments|Args)$/.test(c.name)));
    // Field defaults first (for the reasons of `x.field` unknowns), then the facts themselves.
    const fields = selected.map((c) => ({ c, fields: this.fields(c.node) }));
    for (const { fields: fs } of fields) {
      for (const f of fs) if (f.valueNode) this.fieldDefaults.set(f.rawKey,
        { text: clip(this.text.slice(f.valueSpan.start, f.valueSpan.end)), line: this.line(f.valueSpan.start), where: 'dataclass default' });
    }
    for (const { c, fields: fs } of fields) {
      const tool = this.localArgs.get(c.name) ?? (this.tools.has('trl') && this.parsedClasses.has(c.name) ? 'trl' : 'hf-trainer');
      if (this.localArgs.has(c.name)) this.tools.add(tool);
      for (const f of fs) {
        const x = this.valueOf(f);
        if (x.k === 'lit' && x.v === null) continue;
        this.mapEntry('dataclass', f, tool, 'dataclass-default', tool === 'trl');
      }
    }
  }

  /** Dataclass fields with a default: `name: T = value`, `field(default=...)`, `field(default_factory=lambda: [...])`. */
  private fields(cls: SyntaxNode): Entry[] {
    const out: Entry[] = [];
    const body = cls.getChild('Body');
    if (!body) return out;
    for (let st = body.firstChild; st; st = st.nextSibling) {
      if (st.name !== 'AssignStatement') continue;
      const nameNode = st.firstChild;
      const value = st.lastChild;
      if (!nameNode || nameNode.name !== 'VariableName' || !value || value.from === nameNode.from || !st.getChild('TypeDef')) continue;
      const rawKey = this.text.slice(nameNode.from, nameNode.to);
      let vnode: SyntaxNode | null = value;
      if (value.name === 'CallExpression' && /^(dataclasses\.)?field$/.test(this.calleeName(value) ?? '')) {
        const args = this.args(value);
        const def = args.entries.find((e) => e.rawKey === 'default');
        const fac = args.entries.find((e) => e.rawKey === 'default_factory');
        vnode = def?.valueNode ?? (fac?.valueNode?.name === 'LambdaExpression' ? fac.valueNode.lastChild : null);
      }
      if (!vnode) continue;
      out.push({ rawKey, keySpan: span(nameNode), valueNode: vnode, valueSpan: span(vnode) });
    }
    return out;
  }

  // ---- Arguments of a call ----

  private args(call: SyntaxNode): { positional: SyntaxNode[]; entries: Entry[]; opaque: { reason: string; span: Span }[] } {
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

  private valueOf(e: Entry): Val {
    if (e.forced) return { k: 'unknown', reason: e.forced };
    if (!e.valueNode) return { k: 'unknown', reason: 'the value is missing' };
    return this.evalNode(e.valueNode, 0);
  }

  // ---- Static evaluation ----

  private evalNode(node: SyntaxNode, depth: number): Val {
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
        if (v.k === 'dict') { entries.push(...v.entries); opaque.push(...v.opaque); } else opaque.push(`**${clip(this.text.slice(target.from, target.to))} is ${this.describe(v)}`);
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

  private bindingValue(node: SyntaxNode): SyntaxNode | null {
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
  private conditionOf(call: SyntaxNode): string | undefined {
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

  private calleeName(call: SyntaxNode): string | undefined {
    const c = call.firstChild;
    return c ? this.dotted(c) : undefined;
  }

  /** `a.b.c` as text when the node is only names and attributes (at most 64 deep), else undefined. */
  private dotted(node: SyntaxNode): string | undefined {
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
  private describe(v: Val): string {
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

  private line(pos: number): number {
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

