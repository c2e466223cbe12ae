// A launch line's option that its script declares and never reads (mesolitica/malaya's qwen2.5 72B run passes
// `--block_size 24576` to a train.py whose DataTrainingArguments declares block_size, a field copied from run_clm, and
// trains on pre-packed 8,192-token rows: nothing reads the field). The launcher reads a sequence length from such
// flags by their names (shell/flags.ts); where the script is read and the name stands nowhere in it but in its
// declaration, nor in a project module it imports, the flag sets nothing of the run. Only names no Trainer or TRL
// config reads itself count: a `max_seq_length` field of the script's SFTConfig subclass is read by TRL. Pure.
import { msg, type ConfigFacts, type Fact, type Message, type ParseProblem } from '../facts';
import type { AnalyzedFile } from '../resolve';

/** Sequence-length flags read by name that only the script's own code reads (no Trainer or TRL config field). */
const SCRIPT_ONLY = new Set([
  'block_size',
  'model_max_length',
  'cutoff_len',
  'seq_length',
  'max_seq_len',
  'sequence_len',
]);

/**
 * A script that reads its arguments by a name computed at run time (`vars(args)`, `asdict(...)`, `getattr(a, k)`; not
 * `getattr(torch, model_args.torch_dtype)`, which reads a library's attribute).
 */
const DYNAMIC_READ =
  /\bvars\s*\(|\basdict\s*\(|__dict__|\bgetattr\s*\(\s*(?!torch\b|nn\b|np\b|math\b)\w+\s*,\s*[^'"\s]/;

/** The launcher's facts without the options its script declares and never reads, with a note at each such flag. */
export function withoutUnreadOptions(
  given: ConfigFacts,
  script: AnalyzedFile,
  modules: readonly AnalyzedFile[],
): ConfigFacts {
  const declared = new Map((script.facts.options ?? []).map((o) => [o.name, o]));
  const optionOf = (f: Fact): string => f.rawKey.replace(/^-+/, '').replace(/-/g, '_');
  const launcher = withoutQloraByName(given, script, modules, declared, optionOf);
  // The flags that could be such options first: most launch lines pass none, and the texts are not read then.
  const candidates = launcher.facts.filter(
    (f) => f.key === 'seqLen' && SCRIPT_ONLY.has(optionOf(f)) && declared.has(optionOf(f)),
  );
  if (candidates.length === 0) return launcher;
  const texts = [script.text, ...modules.map((m) => m.text)];
  if (texts.some((t) => DYNAMIC_READ.test(t))) return launcher;
  const dropped = candidates.filter((f) => occurrences(texts, optionOf(f)) === 1);
  return withoutFlags(launcher, dropped, 'no-effect', (f) =>
    msg(
      '{0}: the script declares it ({1}, line {2}) but nothing of the run reads it: it sets no sequence length',
      ...declaredAt(declared, optionOf, f),
    ),
  );
}

/**
 * A script's own default of such an option that nothing of the run reads (hquzhuguofeng/LLM-RoadMap's
 * train_qwen2_sft2.py declares `model_max_length: int = field(default=512)` in its TrainingArguments subclass and never
 * truncates with it): it sets no sequence length either, as the launch line's value of it does not (withoutUnreadOptions).
 * Said at the field.
 */
export function withoutUnreadDefaults(script: AnalyzedFile, modules: readonly AnalyzedFile[]): AnalyzedFile {
  const candidates = script.facts.facts.filter(
    (f) =>
      (f.key === 'seqLen' &&
        (f.origin === 'dataclass-default' || f.origin === 'script-default') &&
        SCRIPT_ONLY.has(f.rawKey)) ||
      plainClassTrainerField(script.text, f),
  );
  if (candidates.length === 0) return script;
  const texts = [script.text, ...modules.map((m) => m.text)];
  if (texts.some((t) => DYNAMIC_READ.test(t))) return script;
  // Declared in this script (a dataclass field, an argparse option), and named nowhere else of the run: a field of a
  // class the script imports is declared in its module, whose text this count does not see.
  const declared = (name: string): boolean =>
    new RegExp(`^[ \\t]*${name}[ \\t]*:|add_argument\\(\\s*['"]--${name}['"]`, 'm').test(script.text);
  const dropped = candidates.filter((f) => declared(f.rawKey) && occurrences(texts, f.rawKey) === 1);
  if (dropped.length === 0) return script;
  const notes = dropped.map((f): ParseProblem => ({
    code: 'no-effect',
    severity: 'info',
    ...(f.key === 'seqLen'
      ? msg('{0}: nothing of the run reads this field: it sets no sequence length', f.rawKey)
      : msg(
          "{0}: nothing of the run reads this field of the script's own arguments class, which is no TrainingArguments: " +
            'it sets nothing of the training',
          f.rawKey,
        )),
    span: f.keySpan,
    rawKey: f.rawKey,
  }));
  const facts = script.facts.facts.filter((f) => !dropped.includes(f));
  return { ...script, facts: { ...script.facts, facts, problems: [...script.facts.problems, ...notes] } };
}

/** The training arguments' settings a field of the script's own arguments class gives by its name. */
const TRAINER_SETTINGS: ReadonlySet<Fact['key']> = new Set([
  'gradientCheckpointing',
  'bf16',
  'fp16',
  'microBatchSize',
  'gradientAccumulationSteps',
  'optimizer',
]);

/**
 * A field default of a training setting by its name in a dataclass of the script that extends nothing
 * (sagerpascal/deepspeed-llm's finetune_llama.py: `gradient_checkpointing: Optional[bool] = field(default=True)` in
 * `class ScriptArguments:`, which its `TrainingArguments(...)` never takes): the trainer reads it only where the script
 * hands it on, which a name standing once in the run does not (withoutUnreadDefaults). A field of a subclass of the
 * training arguments is the Trainer's own, read by it.
 */
function plainClassTrainerField(text: string, f: Fact): boolean {
  if (f.origin !== 'dataclass-default' || !TRAINER_SETTINGS.has(f.key)) return false;
  const classes = [...text.slice(0, f.keySpan.start).matchAll(/^class\s+\w+\s*(\(([^)]*)\))?\s*:/gm)];
  const header = classes[classes.length - 1];
  return header !== undefined && (header[2] ?? '').trim().replace(/^object$/, '') === '';
}

/** QLoRA switches read by their names (shell/flags.ts): `--qlora`, `--use_qlora`, `--q_lora`. */
const QLORA_SWITCHES = new Set(['qlora', 'q_lora', 'use_qlora']);

/** What loads quantized weights: a bitsandbytes config or switch, a GPTQ or AWQ config, Unsloth's 4-bit load. */
const QUANTIZES = /\bBitsAndBytesConfig\b|\bload_in_(4|8)bit\b|\bbnb_4bit|\bGPTQConfig\b|\bAwqConfig\b/;

/**
 * A QLoRA switch read by its name that the script declares and reads itself, in a run that loads nothing quantized:
 * what its code does with it decides (hao-ai-lab/Consistency_LLM's `--qlora` runs prepare_model_for_kbit_training and
 * LoRA on a bf16 model, with no BitsAndBytesConfig: no 4-bit weights), not the name. Said at the flag.
 */
function withoutQloraByName(
  launcher: ConfigFacts,
  script: AnalyzedFile,
  modules: readonly AnalyzedFile[],
  declared: ReadonlyMap<string, { readonly where: string; readonly line: number }>,
  optionOf: (f: Fact) => string,
): ConfigFacts {
  const named = launcher.facts.filter(
    (f) =>
      (f.key === 'method' || f.key === 'quantBits') && QLORA_SWITCHES.has(optionOf(f)) && declared.has(optionOf(f)),
  );
  if (named.length === 0) return launcher;
  const texts = [script.text, ...modules.map((m) => m.text)];
  // Where the run quantizes somewhere, the name agrees with what the switch turns on (RUCAIBox/LLMBox's `--qlora`).
  if (texts.some((t) => QUANTIZES.test(t.replace(/#.*$/gm, '')))) return launcher;
  const dropped = named.filter((f) => occurrences(texts, optionOf(f)) > 1);
  return withoutFlags(launcher, dropped, 'read-by-name', (f) =>
    msg(
      '{0}: the script declares it ({1}, line {2}) and reads it itself: its code decides the quantization, not the name',
      ...declaredAt(declared, optionOf, f),
    ),
  );
}

/** A flag's name, and where the script declares its option: a note's first three values. */
function declaredAt(
  declared: ReadonlyMap<string, { readonly where: string; readonly line: number }>,
  optionOf: (f: Fact) => string,
  f: Fact,
): [string, string, string] {
  const o = declared.get(optionOf(f))!;
  return [f.rawKey, o.where, String(o.line)];
}

/** How many times `name` stands as a word in the texts. */
function occurrences(texts: readonly string[], name: string): number {
  const word = new RegExp(`\\b${name}\\b`, 'g');
  return texts.reduce((n, t) => n + (t.match(word)?.length ?? 0), 0);
}

/** The launcher's facts less `dropped`, with an info note at each of their flags (once per flag). */
function withoutFlags(
  launcher: ConfigFacts,
  dropped: readonly Fact[],
  code: ParseProblem['code'],
  note: (f: Fact) => Message,
): ConfigFacts {
  if (dropped.length === 0) return launcher;
  const flags = [...new Map(dropped.map((f) => [f.rawKey, f])).values()];
  const notes = flags.map((f): ParseProblem => ({
    code,
    severity: 'info',
    ...note(f),
    span: f.keySpan,
    rawKey: f.rawKey,
  }));
  return {
    ...launcher,
    facts: launcher.facts.filter((f) => !dropped.includes(f)),
    problems: [...launcher.problems, ...notes],
  };
}
