// Launch commands: wrappers (srun, mpirun, env), launchers (torchrun, deepspeed, accelerate, tune, trl) and the
// training script's flags, into the facts of one command. Pure: no I/O, no node:* and no 'vscode'.
import { unfilledSlot } from './unfilled-slot';
import { isMegatronPretraining, megatronLaunch } from './megatron';
import { torchtuneBuiltinName } from '../yaml/torchtune-builtin';
import {
  evaluationStrategyRelease,
  msg,
  notModeled,
  UNMODELED_OBJECTIVES,
  type CanonicalKey,
  type Message,
  type Fact,
  type FactValue,
  type ParseProblem,
  type Reference,
  type Span,
  type Tool,
  type Unknown,
} from '../facts';
import { type Env, type Field } from './fields';
import {
  type FlagSpec,
  SCRIPT_FLAGS,
  TOOL_FLAGS,
  TORCHRUN_BOOL,
  TRL_SCRIPTS,
  VLLM_SERVE_FLAGS,
  VLLM_SERVE_BOOL,
  TRL_SUBCOMMANDS,
  isNumberText,
  listLiteral,
  toBool,
} from './flags';
import { known, type Opt, type Consume, type Parsed, looksLikeFlag, parseArgs, scriptReference } from './args';
import { isSwiftTrain, swiftExampleScript, swiftLaunch, swiftScript, swiftScriptLaunch } from './swift';
import { emitVisible, hidesEveryGpu, visibleDevices, type Visible } from './visible';
export { emitVisible, visibleDevices, type Visible } from './visible';
import { isLitgptTrain, litgptLaunch } from './litgpt';
import { isXtunerTrain, xtunerLaunch, xtunerModuleLaunch } from './xtuner';
import { evalCommands, innerCommands, SHELLS, shellCommandString } from './nested';
import { basename, skipWrappers } from './wrappers';
import { copiedOpenrlhfCommand, openrlhfCommand, openrlhfLaunch } from './openrlhf';
import { rl2Entry, rl2Launch } from './rl2';
import { verlEntry, verlFork, verlLaunch } from './verl';
import { isTorchtitanEntry, TORCHTITAN_LAUNCH } from './torchtitan';
import { isNemoRlEntry, NEMORL_LAUNCH } from './nemorl';
import { AUTOTRAIN_LAUNCH, configLaunch, LUDWIG_LAUNCH, OUMI_LAUNCH } from './config-launch';
import { alignAnythingConfig, alignAnythingLaunch, withZeroStageFile } from './align-anything-launch';
import { isPrimeRlLaunch, PRIME_RL_LAUNCH } from './prime-rl';
import { calledScript } from './called-script';
import {
  ALL_GPUS,
  arcticLaunch,
  deepspeedRef,
  isLauncherCommand,
  launcherConsume,
  launcherProgram,
  torchrunFacts,
  type LaunchedProgram,
} from './launchers';
export { deepspeedRef } from './launchers';
import { llamafactoryBashEra, llamafactoryStage } from './llamafactory';
import { PACKAGES } from '../hf-python/helper-modules';
import { abbreviatedOption } from './abbreviations';
import { isLlamaRecipesFinetuning, llamaRecipesEntryCopy, llamaRecipesLaunch } from './llama-recipes';
import { referenceByFlags } from './reference-flags';
import { PROGRAM_NAME, passesTrainerOptions, unreadProgramLaunch } from './unread-program';
import { hasFlag } from './fields';

/**
 * A Python module's dotted name (`python -m pkg.train.sft`). `-m` finds a module by its file's name, which the path
 * finder does not check for an identifier: `-m openai-oss-sft-lora` runs openai-oss-sft-lora.py
 * (Scicom-AI-Enterprise-Organization/small-ablation; importlib.util.find_spec finds it).
 */
const DOTTED_NAME = /^[\w][\w-]*(?:\.[\w][\w-]*)*$/;

/**
 * Packages whose modules a launch line runs from the installation, not from the checkout (`python -m
 * trl.scripts.sft`, `accelerate launch -m axolotl.cli.train`): their flags are read here, their code is no file of
 * the run.
 */
const INSTALLED_PACKAGES: ReadonlySet<string> = new Set([
  ...PACKAGES,
  'axolotl',
  'llamafactory',
  'swift',
  'openrlhf',
  'verl',
  'torchtune',
  'litgpt',
  'xtuner',
  'oumi',
  'nemo_rl',
  'torchtitan',
  'vllm',
  'sglang',
  'pip',
  'venv',
  'pytest',
  'huggingface_hub',
]);

export interface CmdResult {
  readonly facts: Fact[];
  readonly refs: Reference[];
  readonly problems: ParseProblem[];
  readonly tools: Tool[];
  training: boolean;
  launcherTool?: Tool;
  /** Inside an `if` or `case` branch: an alternative to the script's other launches rather than a run after them. */
  conditional?: boolean;
  /** A tool's command that reads the run's config but trains nothing (`python -m axolotl.cli.preprocess config.yml`). */
  preparesOnly?: true;
  /** Where the command starts (its first word after the variables it sets). */
  at?: Span;
}
const TRAINING_KEYS = new Set<CanonicalKey>([
  'microBatchSize',
  'gradientAccumulationSteps',
  'bf16',
  'fp16',
  'mixedPrecision',
  'optimizer',
  'gradientCheckpointing',
  'deepspeedConfig',
  'zeroStage',
  'fsdp',
  'seqLen',
  'loraR',
  'trainBatchSize',
  'pureBf16',
  'tensorParallel',
  'pipelineParallel',
  'gpusPerNode',
  'worldSize',
]);

export class Launch {
  readonly r: CmdResult = { facts: [], refs: [], problems: [], tools: [], training: false };

  constructor(private readonly text: string) {}

  slice(span: Span): string {
    return this.text.slice(span.start, span.end);
  }

  tool(t: Tool): void {
    if (!this.r.tools.includes(t)) this.r.tools.push(t);
  }

  fact(
    key: CanonicalKey,
    rawKey: string,
    keySpan: Span,
    valueSpan: Span,
    value: FactValue | Unknown,
    tool: Tool,
    defaultNote?: string,
  ): void {
    this.r.facts.push({
      key,
      rawKey,
      value,
      rawValue: this.text.slice(valueSpan.start, valueSpan.end),
      keySpan,
      valueSpan,
      tool,
      // A tool's default said at the option it follows from: resolve reports it as that tool's default.
      ...(defaultNote !== undefined ? { origin: 'call-default' as const, defaultNote } : {}),
    });
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      this.r.problems.push({
        code: 'not-static',
        severity: 'info',
        ...msg('{0}: {1}', rawKey, (value as Unknown).unknown),
        span: valueSpan,
        rawKey,
      });
    }
  }

  /** A tool's default made explicit at `at` (origin 'call-default': not written in the file), with where it is stated. */
  toolDefault(f: {
    key: CanonicalKey;
    rawKey: string;
    value: FactValue | Unknown;
    rawValue: string;
    at: Span;
    valueSpan?: Span;
    tool: Tool;
    note: string;
  }): void {
    const valueSpan = f.valueSpan ?? f.at;
    const { key, rawKey, value, rawValue, tool } = f;
    this.r.facts.push({
      key,
      rawKey,
      value,
      rawValue,
      keySpan: f.at,
      valueSpan,
      tool,
      origin: 'call-default',
      defaultNote: f.note,
    });
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      this.notStatic(valueSpan, msg('{0}: {1}', rawKey, (value as Unknown).unknown), rawKey);
  }

  ref(kind: Reference['kind'], path: string, span: Span): void {
    this.r.refs.push({ kind, path, span });
  }

  invalid(o: Opt, what: string): void {
    const span = o.value?.span ?? o.keySpan;
    const slot = unfilledSlot(o, span);
    if (slot) return void this.r.problems.push(slot);
    this.r.problems.push({
      code: 'invalid-value',
      severity: 'warning',
      ...msg("{0} expects {1}, got '{2}'", o.rawKey, what, o.value?.text ?? ''),
      span,
      rawKey: o.rawKey,
    });
  }

  /** A warning that what `rawKey` sets is not modeled, at `span`. */
  warnNotModeled(m: Message, span: Span, rawKey: string): void {
    this.r.problems.push({ code: 'not-modeled', severity: 'warning', ...m, span, rawKey });
  }

  notStatic(span: Span, m: Message, rawKey?: string): void {
    this.r.problems.push({ code: 'not-static', severity: 'info', ...m, span, rawKey });
  }

  /** Emits the facts of one option through its spec; a bare flag is `true` for booleans and ignored otherwise. */
  spec(s: FlagSpec, o: Opt, tool: Tool): void {
    const t = s.tool ?? tool;
    const valueSpan = o.value?.span ?? o.keySpan;
    if (!o.value) {
      if (s.kind === 'bool' || s.bareTrue) this.emit(s, o, true, valueSpan, t);
      return;
    }
    if (o.value.unknown !== undefined) {
      const elsewhere = s.key === 'model' ? folderElsewhere(o.value.text) : undefined;
      if (elsewhere !== undefined) {
        this.notStatic(valueSpan, msg('{0}: {1}; its last part names the folder', o.rawKey, o.value.unknown), o.rawKey);
        this.fact(s.key, o.rawKey, o.keySpan, valueSpan, elsewhere, t);
      } else if (!s.onlyKnown) this.fact(s.key, o.rawKey, o.keySpan, valueSpan, { unknown: o.value.unknown }, t);
      return;
    }
    const raw = o.value.text.trim();
    let v: FactValue;
    switch (s.kind) {
      case 'int':
        if (!isNumberText(raw) || !Number.isInteger(Number(raw))) return this.invalid(o, 'an integer');
        v = Number(raw);
        break;
      case 'num':
        if (!isNumberText(raw)) return this.invalid(o, 'a number');
        v = Number(raw);
        break;
      case 'bool': {
        const b = toBool(raw);
        if (b === undefined) return this.invalid(o, 'true or false');
        v = b;
        break;
      }
      case 'list':
        v = listLiteral(raw) ?? o.value.items ?? [raw];
        break;
      case 'str':
        v = raw;
        break;
    }
    this.emit(s, o, v, valueSpan, t);
  }

  private emit(s: FlagSpec, o: Opt, v: FactValue, valueSpan: Span, tool: Tool): void {
    const out = s.conv ? s.conv(v) : [[s.key, v] as [CanonicalKey, FactValue]];
    if (!out) return s.onlyKnown ? undefined : this.invalid(o, `a valid value for ${s.key}`);
    for (const [k, val] of out) this.fact(k, o.rawKey, o.keySpan, valueSpan, val, tool);
    // An option read by its name alone ranks below what any file does with the value.
    if (s.onlyKnown)
      for (let i = this.r.facts.length - out.length; i < this.r.facts.length; i++)
        this.r.facts[i] = { ...this.r.facts[i], byNameOnly: true };
  }
}

/** The training script's own flags (everything after the script path). */
function scriptFacts(l: Launch, p: Parsed, tool: Tool, configPositional: boolean): void {
  for (const o of p.opts) {
    if (o.name === 'deepspeed' || o.name === 'deepspeed_config') {
      deepspeedRef(l, o, tool);
      continue;
    }
    // `--config cfg.yaml`: the trl, torchtune and Axolotl CLIs' config, or the file a script's TrlParser reads.
    if (o.name === 'config') {
      if (!o.value) continue;
      if (o.value.unknown !== undefined)
        l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
      else if (/\.(ya?ml|json)$/i.test(o.value.text.trim())) l.ref('config', o.value.text.trim(), o.value.span);
      // `tune run <recipe> --config llama3_1/8B_lora_single_device`: a config torchtune ships, by its name.
      else if (tool === 'torchtune' && torchtuneBuiltinName(o.value.text))
        l.ref('config', o.value.text.trim(), o.value.span);
      continue;
    }
    // `--fsdp_config fsdp.json`: TrainingArguments' FSDP options, in the file it names (yaml/fsdp-config.ts).
    const fsdpFile = o.name === 'fsdp_config' ? known(o) : undefined;
    if (fsdpFile && /\.(json|ya?ml)$/i.test(fsdpFile)) l.ref('fsdp-config', fsdpFile, o.value!.span);
    const s = scriptFlag(tool, o.name);
    if (s) l.spec(s, o, tool);
    if (o.name === 'evaluation_strategy') datedByEvaluationStrategy(l, o, tool);
    // DeepSpeed-Chat step 3 (training/step3_rlhf_finetuning/main.py): PPO trains the actor beside a critic, a
    // reference and a reward model; the estimate is the actor's training step, and a warning says what it leaves out.
    if (o.name === 'actor_model_name_or_path') l.warnNotModeled(notModeled(`--${o.name}`, 'ppo'), o.keySpan, o.rawKey);
    // ChatGLM's ptuning main.py (and its forks): --pre_seq_len trains a prefix of keys and values in every layer.
    if (o.name === 'pre_seq_len' && o.value?.unknown === undefined && /^[1-9]\d*$/.test(o.value?.text.trim() ?? ''))
      l.warnNotModeled(msg('{0}: {1}', o.rawKey, P_TUNING), o.keySpan, o.rawKey);
    // Tevatron's and VLM2Vec's contrastive trainers: --grad_cache True runs the batch in chunks (gc_*_chunk_size).
    if (o.name === 'grad_cache' && (o.value === undefined || toBool(o.value.text.trim()) === true))
      l.warnNotModeled(msg('{0}: {1}', o.rawKey, GRAD_CACHE), o.keySpan, o.rawKey);
  }
  if (tool === 'llamafactory') llamafactoryStage(l, p.opts);
  const first = p.positionals[0];
  if (configPositional && first) {
    if (first.unknown !== undefined) l.notStatic(first.span, msg('the config file: {0}', first.unknown));
    else if (/\.(ya?ml|yml|json)$/i.test(first.text)) l.ref('config', first.text, first.span);
    // A YAML after other arguments (THUDM's GLM fine-tuning: `finetune.py <data_dir> <model_dir> configs/lora.yaml`).
    for (const later of p.positionals.slice(1))
      if (later.unknown === undefined && /\.ya?ml$/i.test(later.text)) l.ref('config', later.text, later.span);
  }
}

/** `--evaluation_strategy` dates the run's transformers (EVALUATION_STRATEGY_RELEASE), an assumption at the flag. */
function datedByEvaluationStrategy(l: Launch, o: Opt, tool: Tool): void {
  const valueSpan = o.value?.span ?? o.keySpan;
  l.r.facts.push(
    evaluationStrategyRelease({
      rawKey: o.rawKey,
      rawValue: o.value?.text ?? o.rawKey,
      keySpan: o.keySpan,
      valueSpan,
      tool,
    }),
  );
}

/**
 * A model folder whose path starts with what the files do not give (`$TMPDIR/$MODEL_NAME`, the job's scratch folder on
 * a cluster): the known rest, a path on a machine that is not this one (`/…/Llama-3.2-1B-Instruct`), whose last part
 * the model's resolution reads for the model it names. Undefined where the unknown part is not a leading one or the
 * known rest names no folder (`$BASE/models/$SIZE`).
 */
function folderElsewhere(known: string): string | undefined {
  return /^\/+[\w.-]+(?:\/[\w.-]+)*$/.test(known) && /[A-Za-z]/.test(known)
    ? `/…${known.replace(/^\/+/, '/')}`
    : undefined;
}

/** What a GradCache run is estimated as (Tevatron's GradCache trainer: the encoders run chunk by chunk). */
const GRAD_CACHE =
  'GradCache (the embeddings computed without a graph, then each chunk of gc_q_chunk_size / gc_p_chunk_size ' +
  "re-encoded for its gradient) is not modeled: the estimate holds the whole batch's activations at once, far above " +
  'what the run needs';

/** What a P-tuning v2 run (ChatGLM's PrefixEncoder) is estimated as. */
const P_TUNING =
  "P-tuning v2 (pre_seq_len trained keys and values before every layer's attention, the model frozen) is not " +
  'modeled: the estimate is the method the other flags give (full fine-tuning, or QLoRA with PEFT defaults over a ' +
  '4/8-bit --quantization_bit)';

/**
 * The training script's flag of this name, or of the option an abbreviation of it stands for (argparse takes a unique
 * prefix: `--per_device_train_batch` is `--per_device_train_batch_size`).
 */
function scriptFlag(tool: Tool, name: string): FlagSpec | undefined {
  const of = (n: string): FlagSpec | undefined => TOOL_FLAGS[tool]?.[n] ?? SCRIPT_FLAGS[n];
  const own = of(name);
  if (own) return own;
  const full = abbreviatedOption(name, (n) => of(n) !== undefined);
  return full === undefined ? undefined : of(full);
}

const scriptConsume =
  (tool: Tool) =>
  (name: string): Consume => {
    const s = scriptFlag(tool, name);
    if (name === 'deepspeed') return 'one';
    return s?.kind === 'bool' ? 'bool' : s?.kind === 'list' ? 'list' : 'one';
  };

/** The tool whose semantics the script's flags follow. */
function scriptTool(script: string, fields: readonly Field[], from: number): Tool {
  if (/^axolotl\.cli\.\w+/.test(script)) return 'axolotl';
  if (TRL_SCRIPTS.test(script) || /(^|\/)trl\//.test(script) || /^trl\./.test(script)) return 'trl';
  // LLaMA-Factory's entry point before its CLI (src/train_bash.py, then src/train.py), which takes --stage.
  if (
    /(^|\/)train_bash\.py$/.test(script) ||
    (/(^|\/)src\/train\.py$/.test(script) && hasFlag(fields, from, '--stage'))
  )
    return 'llamafactory';
  for (let k = from; k < fields.length; k++) {
    const t = fields[k].text;
    if (t === '--deepspeed_config' || t.startsWith('--deepspeed_config=')) return 'deepspeed';
    if (t === '--deepspeed' && (k + 1 >= fields.length || looksLikeFlag(fields[k + 1]))) return 'deepspeed';
  }
  return 'hf-trainer';
}

/** torchtune's recipes that do not train (torchtune/_recipe_registry.py): evaluation, generation, quantization. */
const TORCHTUNE_NOT_TRAINING = new Set(['eleuther_eval', 'generate', 'generate_v2', 'quantize']);

/** The tools' own training subcommands: LLaMA-Factory, Axolotl, torchtune, TRL (and its vLLM server), ms-swift, LitGPT, XTuner. */
const SUBCOMMAND_LAUNCHES: ReadonlyArray<(cmd: string, sub: string | undefined) => boolean> = [
  (cmd, sub) => (cmd === 'llamafactory-cli' || cmd === 'lmf') && sub === 'train',
  (cmd, sub) => cmd === 'axolotl' && sub === 'train',
  (cmd, sub) => cmd === 'tune' && sub === 'run',
  (cmd, sub) => cmd === 'trl' && sub !== undefined && (sub === 'vllm-serve' || TRL_SUBCOMMANDS.has(sub)),
  (cmd, sub) => cmd === 'swift' && isSwiftTrain(sub),
  (cmd, sub) => cmd === 'litgpt' && isLitgptTrain(sub),
  (cmd, sub) => cmd === 'xtuner' && isXtunerTrain(sub),
];

/** A launch by one of SUBCOMMAND_LAUNCHES, its command at `i`. */
function subcommandLaunch(
  l: Launch,
  fields: readonly Field[],
  i: number,
  env: Env,
  opaque: (f: Field) => void,
): CmdResult | undefined {
  const f0 = fields[i];
  const cmd = basename(f0.text);
  const sub = fields[i + 1]?.text;
  if ((cmd === 'llamafactory-cli' || cmd === 'lmf') && sub === 'train') {
    l.tool('llamafactory');
    const p = parseArgs(fields, i + 2, scriptConsume('llamafactory'), false, true, opaque);
    scriptFacts(l, p, 'llamafactory', true);
    // LLaMA-Factory runs torchrun itself when more than one device is visible (LLaMA-Factory@ff6d4d1:src/llamafactory/launcher.py:58-77).
    const nproc = visibleDevices(env, 'NPROC_PER_NODE');
    const nnodes = visibleDevices(env, 'NNODES');
    if (nnodes) emitVisible(l, nnodes, 'nodes', 'llamafactory');
    const vis = nproc ?? visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'llamafactory');
    else l.fact('gpusPerNode', f0.text, f0.span, f0.span, ALL_GPUS, 'llamafactory');
    l.r.training = true;
    l.r.launcherTool = 'llamafactory';
    return l.r;
  }
  if (cmd === 'axolotl' && sub === 'train') {
    l.tool('axolotl');
    const p = parseArgs(fields, i + 2, scriptConsume('axolotl'), false, false, opaque);
    scriptFacts(l, p, 'axolotl', true);
    const vis = visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'axolotl');
    l.r.training = true;
    l.r.launcherTool = 'axolotl';
    return l.r;
  }
  if (cmd === 'tune' && sub === 'run') {
    const p = parseArgs(fields, i + 2, launcherConsume(TORCHRUN_BOOL), true, false, opaque);
    l.tool('torchtune');
    // `tune run eleuther_eval --config ...` (or a copy, `./recipes/generate.py`): evaluates or generates; not the run.
    const recipe = fields[p.next]?.text.replace(/^.*\//, '').replace(/\.py$/, '');
    if (recipe !== undefined && TORCHTUNE_NOT_TRAINING.has(recipe)) {
      l.r.training = false;
      return l.r;
    }
    torchrunFacts(l, p.opts, env);
    const rest = parseArgs(fields, p.next + 1, scriptConsume('torchtune'), false, true, opaque);
    scriptFacts(l, rest, 'torchtune', false);
    l.r.training = true;
    l.r.launcherTool = 'torchtune';
    return l.r;
  }
  if (cmd === 'trl' && sub === 'vllm-serve') {
    // The vLLM server of GRPO's vllm_mode server (trl/scripts/vllm_serve.py ScriptArguments): not a training launch;
    // its tensor parallelism, memory share and longest sequence are read for the server check.
    l.tool('trl');
    const p = parseArgs(fields, i + 2, (name) => (VLLM_SERVE_BOOL.has(name) ? 'bool' : 'one'), false, false, opaque);
    for (const o of p.opts) {
      const s = VLLM_SERVE_FLAGS[o.name];
      if (s) l.spec(s, o, 'trl');
    }
    l.r.training = false;
    return l.r;
  }
  if (cmd === 'trl' && sub !== undefined && TRL_SUBCOMMANDS.has(sub)) {
    l.tool('trl');
    // The subcommand names the trainer: paired preference trainers, or objectives whose extra memory is not modeled.
    const subField = fields[i + 1];
    const pref = sub === 'dpo' || sub === 'kto' ? sub : sub === 'orpo' || sub === 'cpo' ? 'reference-free' : undefined;
    if (pref) l.fact('preference', `trl ${sub}`, subField.span, subField.span, pref, 'trl');
    if (sub === 'grpo' || sub === 'rloo') l.fact('rollout', `trl ${sub}`, subField.span, subField.span, sub, 'trl');
    if (sub === 'online_dpo') l.fact('rollout', `trl ${sub}`, subField.span, subField.span, 'online-dpo', 'trl');
    if (sub === 'sft') l.fact('trlSft', `trl ${sub}`, subField.span, subField.span, true, 'trl');
    const objective = sub === 'xpo' ? 'xpo' : sub;
    if (UNMODELED_OBJECTIVES[objective])
      l.warnNotModeled(notModeled(`trl ${sub}`, objective), subField.span, `trl ${sub}`);
    const p = parseArgs(fields, i + 2, scriptConsume('trl'), false, false, opaque);
    scriptFacts(l, p, 'trl', false);
    l.r.training = true;
    l.r.launcherTool = 'trl';
    return l.r;
  }
  if (cmd === 'swift' && isSwiftTrain(sub)) {
    return swiftLaunch(l, fields, i, env, opaque);
  }
  if (cmd === 'litgpt' && isLitgptTrain(sub)) return litgptLaunch(l, fields, i, opaque);
  if (cmd === 'xtuner' && isXtunerTrain(sub)) return xtunerLaunch(l, fields, i, env, opaque);
  return undefined;
}

/** The `-c` string of a shell under wrappers (`srun ... bash -c "..."`), with the variables they set (`env X=1`). */
export function shellScriptOf(fields: readonly Field[], envIn: Env): { script: Field; env: Env } | undefined {
  const start = skipWrappers(fields, envIn);
  const f0 = start && start.fields[start.i];
  if (!start || !f0 || f0.unknown !== undefined || !SHELLS.has(basename(f0.text))) return undefined;
  const script = shellCommandString(start.fields, start.i);
  return script && { script, env: start.env };
}

/** `bash -c "..."`: the first command of the string that is a launch (nested.ts). */
function nestedLaunch(text: string, fields: readonly Field[], at: number, env: Env): CmdResult | undefined {
  const script = shellCommandString(fields, at);
  return script ? firstLaunch(text, innerCommands(script), env) : undefined;
}

/**
 * The keys `tmux send-keys [-t pane] "<command>" ENTER` types into a session's shell (runnerup96's
 * run_train_hf.sh): the words after its options, up to the key that runs them.
 */
function tmuxKeys(fields: readonly Field[], from: number): Field[] {
  let k = from;
  for (; k < fields.length && /^-/.test(fields[k].text); k++) if (/^-[tN]$/.test(fields[k].text)) k++;
  const keys: Field[] = [];
  for (; k < fields.length && !/^(enter|c-m|kpenter)$/i.test(fields[k].text); k++) keys.push(fields[k]);
  return keys;
}

/** The first of the commands that is a launch. */
function firstLaunch(text: string, commands: readonly Field[][], env: Env): CmdResult | undefined {
  for (const command of commands) {
    const r = analyzeLaunch(text, command, env);
    if (r) return r;
  }
  return undefined;
}

export function analyzeLaunch(text: string, fields: readonly Field[], envIn: Env): CmdResult | undefined {
  const start = skipWrappers(fields, envIn);
  if (!start) return undefined;
  const r = launchAt(text, start.fields, start.i, start.env);
  const hidden = r && !r.preparesOnly && hidesEveryGpu(start.env);
  if (r && hidden && !r.problems.some((p) => p.code === 'runs-on-cpu')) r.problems.push(cpuRunProblem(text, hidden));
  return r;
}

/** What a launch that hides every GPU trains on, said at the variable: the CPU. */
function cpuRunProblem(text: string, hidden: Visible): ParseProblem {
  const span = { start: hidden.keySpan.start, end: hidden.valueSpan.end };
  return {
    code: 'runs-on-cpu',
    severity: 'warning',
    ...msg(
      '{0} hides every GPU: this launch trains on the CPU; the estimate is of the same run on GPUs',
      text.slice(span.start, span.end),
    ),
    span,
    rawKey: hidden.rawKey,
  };
}

/** The launch of the command at field `i`, its wrappers skipped (`env`: the variables the command sees). */
function launchAt(text: string, line: readonly Field[], i: number, env: Env): CmdResult | undefined {
  const l = new Launch(text);
  const fields = pythonNamedInterpreter(l, line, i);
  const opaque = opaqueArguments(l);
  const f0 = fields[i];
  if (!f0 || f0.unknown !== undefined) return undefined;
  const cmd = basename(f0.text);
  const sub = fields[i + 1]?.text;
  if (SHELLS.has(cmd)) return nestedLaunch(text, fields, i, env) ?? calledScript(fields, i, env, true);
  if (cmd === 'eval') return firstLaunch(text, evalCommands(fields.slice(i + 1)), env);
  if (cmd === 'tmux' && sub === 'send-keys') return firstLaunch(text, evalCommands(tmuxKeys(fields, i + 2)), env);
  // `uv run rl @ rl.toml`: prime-rl's entry points, which read the file after `@`.
  if (isPrimeRlLaunch(fields, i)) return configLaunch(l, fields, i, opaque, undefined, PRIME_RL_LAUNCH);
  // `oumi train -c x.yaml`: Oumi's trainer on one process.
  if (cmd === 'oumi' && sub === 'train') return configLaunch(l, fields, i, opaque, undefined, OUMI_LAUNCH);
  // `autotrain --config x.yml`: AutoTrain's LLM trainers, on every GPU the machine has (its config says how).
  if (cmd === 'autotrain' && sub === '--config') return configLaunch(l, fields, i, opaque, undefined, AUTOTRAIN_LAUNCH);
  // `ludwig train --config x.yaml`: Ludwig's trainer (its backend in the config says how it spreads).
  if (cmd === 'ludwig' && (sub === 'train' || sub === 'experiment'))
    return configLaunch(l, fields, i + 1, opaque, undefined, LUDWIG_LAUNCH);
  // `arctic_training run.yml --num_gpus 8`: ArcticTraining's trainer under the DeepSpeed launcher.
  if (cmd === 'arctic_training') return arcticLaunch(l, fields, i, env, opaque);
  let program: LaunchedProgram | undefined;
  if (isLauncherCommand(cmd, sub)) program = launcherProgram(l, fields, i, env, opaque);
  else if (SUBCOMMAND_LAUNCHES.some((test) => test(cmd, sub))) return subcommandLaunch(l, fields, i, env, opaque);
  else if (/\.py$/.test(f0.text)) program = { scriptAt: i };
  else if (passesTrainerOptions(fields, i))
    return unreadProgramLaunch(l, scriptLaunch(l, fields, { scriptAt: i }, f0, opaque), fields, i);
  else return calledScript(fields, i, env, false);
  return withZeroStageFile(program && programLaunch(l, fields, program, opaque, env), env);
}

/** An interpreter the script computes, named for Python: `"$(sol_python)"`, `$PYTHON_EXE` (a function's or a file's). */
const PYTHON_NAMED = /^"?\$(?:\(\s*\w*python\w*\s*\)|\{?\w*python\w*\}?)"?$/i;

/**
 * The line's words with a command not known statically but named for Python (`"$(sol_python)" -m verl.trainer.main_ppo`,
 * the function defined in a sourced file) read as `python`, where a module or a script follows; said at the command.
 */
function pythonNamedInterpreter(l: Launch, fields: readonly Field[], i: number): readonly Field[] {
  const f = fields[i];
  const next = fields[i + 1]?.text ?? '';
  if (f?.unknown === undefined || !(next === '-m' || /\.py$/.test(next)) || !PYTHON_NAMED.test(l.slice(f.span)))
    return fields;
  l.r.problems.push({
    code: 'read-by-name',
    severity: 'info',
    ...msg('{0} is read as the Python interpreter, by its name ({1})', l.slice(f.span), f.unknown),
    span: f.span,
  });
  const python: Field = { text: 'python', span: f.span, pieces: f.pieces, opaque: false };
  return [...fields.slice(0, i), python, ...fields.slice(i + 1)];
}

/** What a launch line passes that may add arguments not visible here (`$EXTRA_ARGS`, `"$@"`), noted at its place. */
function opaqueArguments(l: Launch): (f: Field) => void {
  return (f) => {
    const written = l.slice(f.span);
    l.notStatic(
      f.span,
      f.unknown === undefined
        ? msg('{0} may add arguments that are not visible here: not known statically', written)
        : msg('{0} may add arguments that are not visible here: {1}', written, f.unknown),
    );
  };
}

/**
 * The program a launch line runs from the field at `program.scriptAt`: a framework's entry point read by its own rules,
 * else the script (or `-m` module) with its flags; a launcher with no program left is still a training launch.
 */
function programLaunch(
  l: Launch,
  fields: readonly Field[],
  program: LaunchedProgram,
  opaque: (f: Field) => void,
  env: Env,
): CmdResult | undefined {
  const { scriptAt, moduleName, launcherTool } = program;
  const scriptField = fields[scriptAt];
  if (!scriptField) {
    if (!launcherTool) return undefined;
    l.r.training = true;
    l.r.launcherTool = launcherTool;
    return l.r;
  }
  const script = moduleName ?? scriptField.text;
  if (scriptField.opaque) opaque(scriptField);
  return (
    frameworkLaunch(l, fields, program, script, opaque, env) ?? scriptLaunch(l, fields, program, scriptField, opaque)
  );
}

/**
 * A framework's entry point the line runs (ms-swift, OpenRLHF, verl, rl2, torchtitan, NeMo-RL, Oumi, XTuner,
 * llama-recipes, align-anything; Megatron-LM's pretraining scripts, said as not modeled).
 */
function frameworkLaunch(
  l: Launch,
  fields: readonly Field[],
  program: LaunchedProgram,
  script: string,
  opaque: (f: Field) => void,
  env: Env,
): CmdResult | undefined {
  const { scriptAt, moduleName, launcherTool } = program;
  const swiftSub = swiftScript(script) ?? swiftExampleScript(script, fields, scriptAt + 1);
  if (swiftSub) return swiftScriptLaunch(l, fields, { at: scriptAt, sub: swiftSub, env }, opaque, launcherTool);
  const openrlhf = openrlhfCommand(script) ?? copiedOpenrlhfCommand(script, fields, scriptAt);
  if (openrlhf) return openrlhfLaunch(l, fields, scriptAt, openrlhf, opaque, launcherTool);
  const verl = verlEntry(script) ?? verlFork(l, fields, scriptAt);
  if (verl) return verlLaunch(l, fields, scriptAt, verl, opaque, launcherTool);
  const rl2 = rl2Entry(script);
  if (rl2) return rl2Launch(l, fields, scriptAt, rl2, opaque, launcherTool);
  const configured = isTorchtitanEntry(script, fields, scriptAt + 1)
    ? TORCHTITAN_LAUNCH
    : isNemoRlEntry(script, fields, scriptAt + 1)
      ? NEMORL_LAUNCH
      : moduleName === 'oumi' && fields[scriptAt + 1]?.text === 'train'
        ? OUMI_LAUNCH
        : undefined;
  if (configured) return configLaunch(l, fields, scriptAt, opaque, launcherTool, configured);
  if (moduleName === 'xtuner.tools.train') return xtunerModuleLaunch(l, fields, scriptAt + 1, opaque, launcherTool);
  if (isLlamaRecipesFinetuning(script) || llamaRecipesEntryCopy(script, fields, scriptAt))
    return llamaRecipesLaunch(l, fields, scriptAt, opaque, launcherTool);
  const alignConfig = alignAnythingConfig(script);
  if (alignConfig) return alignAnythingLaunch(l, fields, scriptAt, alignConfig, opaque, launcherTool);
  if (fields[scriptAt] && isMegatronPretraining(script, fields, scriptAt + 1))
    return megatronLaunch(l, fields[scriptAt]);
  return undefined;
}

/** The script itself is part of the run: its TrainingArguments, argparse defaults and model id, below these flags. */
function scriptLaunch(
  l: Launch,
  fields: readonly Field[],
  program: LaunchedProgram,
  scriptField: Field,
  opaque: (f: Field) => void,
): CmdResult {
  const { scriptAt, moduleName, launcherTool } = program;
  const script = moduleName ?? scriptField.text;
  const tool = scriptTool(script, fields, scriptAt + 1);
  const p = parseArgs(fields, scriptAt + 1, scriptConsume(tool), false, false, opaque);
  const rooted = moduleName === undefined ? variableRootedScript(l, scriptField) : undefined;
  if (rooted) l.r.refs.push(scriptReference(rooted, scriptField.span, p));
  else if (scriptField.unknown === undefined && !scriptField.opaque) {
    const ref = programReference(script, moduleName, scriptField, p);
    const byName = tool === 'trl' && TRL_SCRIPTS.test(script) && !/(^|\/)trl\//.test(script);
    if (ref) l.r.refs.push(byName ? { ...ref, toolByName: 'trl' } : ref);
  }
  scriptFacts(l, p, tool, true);
  if (tool === 'hf-trainer' && moduleName === undefined) referenceByFlags(l, p.opts);
  if (tool === 'llamafactory' && /(^|\/)train_bash\.py$/.test(script)) llamafactoryBashEra(l, p.opts, scriptField.span);
  // A plain script says which trainer it uses only through the flags it was given.
  if (tool !== 'hf-trainer' || l.r.facts.some((f) => f.tool === tool)) l.tool(tool);
  // open-instruct passes `--use_qlora --use_lora`: QLoRA is LoRA on 4-bit weights, so the LoRA switch does not undo it.
  if (l.r.facts.some((f) => f.key === 'method' && f.value === 'qlora')) {
    for (let k = l.r.facts.length - 1; k >= 0; k--)
      if (l.r.facts[k].key === 'method' && l.r.facts[k].value === 'lora') l.r.facts.splice(k, 1);
  }
  l.r.launcherTool = launcherTool;
  l.r.training = launcherTool !== undefined || l.r.facts.some((f) => TRAINING_KEYS.has(f.key));
  // Axolotl's other entry points (preprocess tokenises the dataset on the CPU, merge_lora, inference, evaluate, ...),
  // and its train entry point with --prepare_ds_only (which stops once the dataset is prepared), read the same config
  // and train nothing: the config is read, the command is no training launch.
  if (
    moduleName !== undefined &&
    (AXOLOTL_NOT_TRAINING.test(moduleName) ||
      (/^axolotl\./.test(moduleName) && hasFlag(fields, scriptAt + 1, '--prepare_ds_only')))
  ) {
    l.r.training = false;
    l.r.preparesOnly = true;
  }
  return l.r;
}

/** `python -m axolotl.cli.<x>` for every x but train (axolotl/cli/: preprocess.py, merge_lora.py, inference.py, ...). */
const AXOLOTL_NOT_TRAINING = /^axolotl\.cli\.(?!train\b)\w+$/;

/**
 * A script path under a variable the launch does not set (`${BASE_PATH}/src/modelling/dpo/sft.py`, BASE_PATH left to a
 * `.env` file): the path as written, `$BASE_PATH/src/modelling/dpo/sft.py`, which the collection reads from the
 * project's root where the file is there (collect/locate.ts variableRooted). Undefined for any other field.
 */
function variableRootedScript(l: Launch, field: Field): string | undefined {
  const [head, ...rest] = field.pieces;
  if (!head || head.unknown === undefined || rest.some((p) => p.unknown !== undefined)) return undefined;
  const variable = /^\$\{?(\w+)\}?$/.exec(l.slice({ start: head.start, end: head.end }))?.[1];
  const below = rest.map((p) => p.text).join('');
  return variable && /^\/[^$`]+\.py$/.test(below) ? `$${variable}${below}` : undefined;
}

/** The file of the run a line's script or `-m` module is (an installed package's module is none). */
function programReference(
  script: string,
  moduleName: string | undefined,
  scriptField: Field,
  p: Parsed,
): Reference | undefined {
  // A program run by its name may be a console script of the project (collect/index.ts followScript).
  if (moduleName === undefined && PROGRAM_NAME.test(script))
    return { ...scriptReference(script, scriptField.span, p), program: true };
  if (moduleName === undefined) return /\.py$/.test(script) ? scriptReference(script, scriptField.span, p) : undefined;
  if (!DOTTED_NAME.test(moduleName) || INSTALLED_PACKAGES.has(moduleName.split('.')[0])) return undefined;
  return { ...scriptReference(`${moduleName.replace(/\./g, '/')}.py`, scriptField.span, p), module: moduleName };
}
