// Reads the memory-relevant settings of Hugging Face training programs written in Python: TrainingArguments and TRL
// config calls, PEFT LoraConfig, BitsAndBytesConfig, from_pretrained and arguments dataclasses. It walks the
// @lezer/python tree and evaluates only literals, names bound to literals and dict spreads; it never runs code.
//
// The parts: file.ts (the state of one file and its static evaluation), calls.ts (the calls it recognizes), mapping.ts
// (each call's keys to canonical keys) with values.ts (value conversions), loop.ts (a training loop the script writes
// out, no Trainer), unsloth.ts (Unsloth's loaders), classes.ts (arguments dataclasses, HfArgumentParser and argparse
// defaults), vocab.ts (class and trainer names) and syntax.ts (helpers over nodes and literals). This file walks the
// tree and dispatches each call.
import { weightQuantizationCall } from './gptq-config';
import { noteOverlay } from './attribute-overlays';
import type { ModuleRead } from './imported-constants';
import { importsXtuner, xtunerConfig } from './xtuner';
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from '../python-parse';
import { msg, type ConfigFacts, type Fact, type Tool } from '../facts';
import { NO_TRAINING_ESTIMATE, NO_TRAINING_SEEN, runsWithoutTraining, TRAINING_TOOLS, TRAINS } from '../trains';
import { analyzeShellOut } from './shell-out';
import {
  HF_ARGS,
  TRL_CONFIGS,
  TRL_TRAINERS,
  PADDING_COLLATORS,
  OTHER_PEFT_CONFIGS,
  PARSERS,
  UNSLOTH_CLASSES,
} from './vocab';
import { PythonFile, type Entry } from './file';
import { branchTaken, conditionOf, inUncalledFunction } from './branches';
import { isModelClass, isTrailingDotFloat, span } from './syntax';
import { dropUnusedConfigs } from './unused-config';
import { fullUnlessSwitchedOn, loraConfig, onlyTakenLora } from './lora-branches';
import { isLigerPatch, ligerPatch } from './liger-patch';
import { attentionPatch, isAttentionPatch } from './attention-patch';
import { repeatedKeywords } from './repeated-keywords';
import { resizedEmbeddings } from './resized-embeddings';
import { frozenByName } from './frozen-by-name';
import { checkpointingAttribute } from './checkpointing-attribute';
import { minimumVersion } from './min-version';
import { modelCasts } from './model-cast';
import { deepspeedPluginCall } from './deepspeed-plugin';
import { CONFIG_OPTION } from '../config-arguments';
import { noteArgumentsFile } from './arguments-file';
import { hasHydraMain, hydraEntryPoint } from './hydra-app';
import {
  trainingCall,
  boundModelClass,
  classAttributeModelClass,
  fromPretrained,
  fromConfig,
  bnbCall,
  padToMaxLength,
  allocatorConf,
  trainerCall,
  pretrainedConfigCall,
  ligerTrainer,
  syntaxIn,
  checkpointingCall,
} from './calls';
import { kbitCastBack, kbitPreparation } from './kbit-preparation';
import { scoringModel, scoringModels, type Scorers } from './scoring-models';
import { handedLoaderBatch, loopFacts, trainingLoop } from './loop';
import { trainerRewardPairs } from './loop-preference';
import { trainerOptimizers } from './optimizer-calls';
import { llamaRecipesFacts, llamaRecipesTrainCall } from './llama-recipes';
import { labelsLength, sequenceLength } from './sequence-length';
import { analyzeLitgptScript, isLitgptScript } from './litgpt-script';
import { analyzeFsdpQloraScript, isFsdpQloraScript } from './fsdp-qlora';
import { analyzeNanogptConfig, analyzeNanogptScript, isNanogptConfig, isNanogptScript } from './nanogpt';
import { dataConnect, fabricCall, importsLitgpt, isLitgptConfigCall, litgptModelCall } from './litgpt-api';
import { loopModelOutsideZeroInit, modelBeforeArguments } from './zero-init';
import { unslothLoad, unslothPeft } from './unsloth';
import { deepspeedEntry, mapEntry } from './mapping';
import {
  noteParser,
  noteArgparseCall,
  noteArgsClass,
  collectClasses,
  libraryTrainer,
  noteTrainerByName,
  otherFrameworkTrainer,
  noteOtherFrameworkTrainer,
} from './classes';
import { importedArgumentClasses, importedArgumentParsers, starImportedParser } from './imported-arguments';
import { projectGrpoTrainers } from './grpo-forks';
import { visionTowerUnfrozen } from './vision-tower';
import { SAGEMAKER_ESTIMATORS, sagemakerEstimator } from './sagemaker';
import { internvlAttention, internvlCheckpointing, internvlFrozenLlm, internvlLlmLora } from './internvl';
import { attributesSetOnParsed } from './config-attributes';
import { helperModules, reachableCalls, starEntries } from './helper-modules';
import { h4Parse, scriptOptions } from './script-defaults';
import { noteFireEntry } from './fire';
import { noteClickCommand } from './click';
import { noteTyperCommand } from './typer';
import { loadedAdapter } from './peft-loaded';
import { ownModelCode } from './own-model-code';
import type { ModuleContext } from '../facts';
export { UNSLOTH_CLASSES } from './vocab';

/** `from config import ModelConfig` (also in a parenthesized list): a ModelConfig of a module other than trl's. */
const OTHER_MODEL_CONFIG_IMPORT =
  /from\s+(?!trl\b)[\w.]+\s+import\s+(\([^)]*\bModelConfig\b[^)]*\)|[^\n]*\bModelConfig\b)/;

/**
 * The facts of a Python training file. `module`: the file is a helper module read for the script that imports it,
 * with that script's options as the run has them (see PythonFile.settled) and the names of it the script calls.
 */
export function analyzeHfPython(
  text: string,
  module?: ModuleContext,
  readModule?: ModuleRead,
  environment?: ReadonlyMap<string, string>,
): ConfigFacts {
  // Lit-GPT's own scripts of 2023 set their run in module constants and setup()'s defaults (litgpt-script.ts).
  if (!module && isLitgptScript(text)) return analyzeLitgptScript(text);
  // Answer.AI's fsdp_qlora train.py builds its run from its `@call_parse` main()'s options (fsdp-qlora.ts).
  if (isFsdpQloraScript(text)) return analyzeFsdpQloraScript(text, module?.options);
  // nanoGPT's train.py sets its run in module globals that its command line overrides (nanogpt.ts).
  if (isNanogptScript(text)) return analyzeNanogptScript(text, module?.options);
  if (!module && isNanogptConfig(text)) return analyzeNanogptConfig(text);
  // A script that trains by running a launch command, not in its own code (shell-out.ts).
  const launched = !module && !TRAINS.test(text) ? analyzeShellOut(text) : undefined;
  if (launched) return launched;
  const file = new PythonFile(text, module?.options, readModule, module !== undefined && module.settled !== false);
  file.moduleCallArgs = module?.callArgs;
  file.imported = module?.imported === true;
  file.environment = environment;
  file.hydraOverrides = module?.hydraOverrides ?? [];
  try {
    run(file, module?.calls ?? [], module?.starImport === true);
  } catch {
    // A parser or walker failure must not hide what was found before it; the partial result is returned.
  }
  if (!module) hydraEntry(file);
  return file.result();
}

/**
 * A Hydra application's entry point, `@hydra.main(config_path="config", config_name="config")`: its primary config,
 * composed with the launch line's overrides (analyzers/hydra). Literal arguments only; Hydra 1.2+'s default
 * config_path (none) leaves nothing to read.
 */
function hydraEntry(file: PythonFile): void {
  const entry = hydraEntryPoint(file);
  if (!entry) return;
  file.references.push({
    kind: 'config',
    path: `${entry.dir || '.'}/${entry.name}.yaml`,
    span: span(entry.at),
    hydra: true,
  });
  // Its config says how it trains: a `Trainer` class of its own package (RL2's) is not the HF Trainer.
  if (!file.facts.some((f) => f.tool === 'hf-trainer')) file.tools.delete('hf-trainer');
}

function run(file: PythonFile, entries: readonly string[], starImport: boolean): void {
  const parsed = parsePython(file.text);
  file.problems.push(...parsed.problems);
  file.root = parsed.tree.topNode;
  const classes: SyntaxNode[] = [];
  const calls: SyntaxNode[] = [];
  const imports: SyntaxNode[] = [];
  const cur = file.root.cursor();
  for (;;) {
    // `0.` is a float, not an error (syntax.ts isTrailingDotFloat).
    if (cur.type.isError && !(cur.node.parent && isTrailingDotFloat(file.text, cur.node.parent)))
      file.errors.push(cur.from);
    if (cur.name === 'ClassDefinition') classes.push(cur.node);
    else if (cur.name === 'CallExpression') calls.push(cur.node);
    else if (cur.name === 'ImportStatement') imports.push(cur.node);
    else if (cur.name === 'AssignStatement' || cur.name === 'UpdateStatement') noteAttributeAssignment(file, cur.node);
    else if (cur.name === 'ForStatement' || cur.name === 'ExpressionStatement') noteOverlay(file, cur.node);
    if (cur.firstChild()) continue;
    while (!cur.nextSibling())
      if (!cur.parent()) {
        const called = starImport ? starEntries(file, entries) : entries;
        return afterWalk(file, classes, calls, imports, called, starImport);
      }
  }
}

/**
 * `args.x = ...` / `args.x += ...`: the option x is changed at run time, so its default is not what runs; not where
 * the value is another object's x, nor where the object is `self` (PythonFile.optionsAssigned).
 */
function noteAttributeAssignment(file: PythonFile, st: SyntaxNode): void {
  const value = st.lastChild;
  const copied =
    value?.name === 'MemberExpression' && value.lastChild?.name === 'PropertyName' ? value.lastChild : null;
  for (let ch = st.firstChild; ch && ch.name !== 'AssignOp' && ch.name !== 'UpdateOp'; ch = ch.nextSibling) {
    const prop = ch.name === 'MemberExpression' ? ch.lastChild : null;
    if (prop?.name !== 'PropertyName') continue;
    const name = file.text.slice(prop.from, prop.to);
    // `model.config.x = training_args.x = model_args.x` (LLaVA) copies option x onto other objects: x keeps its value.
    if (copied && st.name === 'AssignStatement' && file.text.slice(copied.from, copied.to) === name) continue;
    file.attrAssigned.add(name);
    const object = ch.firstChild;
    if (!(object?.name === 'VariableName' && file.text.slice(object.from, object.to) === 'self')) {
      file.optionsAssigned.add(name);
      file.optionAssignments.set(name, [...(file.optionAssignments.get(name) ?? []), st]);
    }
  }
}

function afterWalk(
  file: PythonFile,
  classes: SyntaxNode[],
  allCalls: SyntaxNode[],
  imports: SyntaxNode[],
  entries: readonly string[],
  starImport: boolean,
): void {
  // A settled helper module: only what runs for the script (the functions it calls, and theirs, on branches that run).
  const reachable = file.settled ? reachableCalls(file, allCalls, entries, starImport) : allCalls;
  const calls = file.settled ? reachable.filter((c) => branchTaken(file, c) !== false) : allCalls;
  // A LoraConfig the module builds only on a branch known not to run (`if model_args.lora:` with the script's
  // `lora: bool = False`): the run is a full fine-tune, said at the test (fullUnlessSwitchedOn).
  const loraSwitchedOff = file.settled
    ? reachable.filter((c) => file.calleeName(c)?.split('.').pop() === 'LoraConfig' && !calls.includes(c))
    : [];
  file.calls = calls;
  repeatedKeywords(file, allCalls);
  // Parsers and argparse options first: they tell which dataclasses are arguments and give the defaults of `args.x`.
  for (const c of calls) {
    const callee = file.calleeName(c);
    const last = callee?.split('.').pop() ?? '';
    if (PARSERS.has(last)) noteParser(file, c, last);
    else if (last === 'parse_yaml_file' || last === 'parse_json_file' || last === 'parse_yaml_and_args')
      noteArgumentsFile(file, c);
    else if (last === 'add_argument' || last === 'set_defaults') noteArgparseCall(file, c, last);
    else if (last === 'parse_args_and_config' || h4Parse(file, callee))
      file.readsConfigOption = { option: CONFIG_OPTION };
    else noteArgsClass(file, c);
  }
  // The command the command line runs: Fire's function, else a click command, else a typer command.
  noteFireEntry(file, calls);
  if (!file.commandEntry) noteClickCommand(file);
  if (!file.commandEntry) noteTyperCommand(file, calls);
  collectClasses(file, classes);
  importedArgumentClasses(file);
  importedArgumentParsers(file);
  starImportedParser(file);
  visionTowerUnfrozen(file, projectGrpoTrainers(file));
  // From here on what the file's tests read is settled (its options, arguments classes and command): each test's truth
  // is worked out once (branches.ts testValue).
  file.testValues = new Map();
  readSettled(file, runningCalls(file, calls), imports, entries, loraSwitchedOff);
}

/**
 * The calls that run once the file's options are known: none in a function that never runs for them (a method called
 * only on a branch known not to run: branches.ts neverCalled). A call on such a branch stays: its reader says what
 * the branch leaves out (a LoraConfig switched off makes the run a full fine-tune).
 */
function runningCalls(file: PythonFile, calls: readonly SyntaxNode[]): SyntaxNode[] {
  const running = calls.filter((c) => !inUncalledFunction(file, c));
  file.calls = running;
  return running;
}

/** What the file's calls say, read once its options, arguments classes and command are known. */
function readSettled(
  file: PythonFile,
  calls: SyntaxNode[],
  imports: SyntaxNode[],
  entries: readonly string[],
  loraSwitchedOff: SyntaxNode[],
): void {
  helperModules(file, imports, entries);
  if (file.references.some((r) => r.kind === 'module')) {
    file.options = scriptOptions(file);
    // An option only a command line gives that the script does not read itself is read by the modules it calls into
    // (castorini/visa's train.py hands model_args to ragvisa.py, which loads model_name_or_path).
    if (!file.settled && file.requiredOptions.size > 0) file.readsLaunchOptions = true;
  }
  const padsToMax = padToMaxLength(file);
  allocatorConf(file);
  const trainerClasses = new Set(
    calls.map((c) => libraryTrainer(file, file.calleeName(c)?.split('.').pop() ?? '')?.trainer),
  );
  trainerClasses.delete(undefined);
  const walk: CallWalk = {
    padsToMax,
    scorers: scoringModels(file, calls),
    loraSwitchedOff,
    trainersToChoose: trainerClasses.size > 1,
  };
  internvlAttention(file);
  for (const c of calls) readCall(file, c, walk);
  internvlFrozenLlm(file, calls);
  // Fabric converts the module it is given after the script loads it: its precision is read after every load.
  for (const c of calls) if (file.calleeName(c)?.split('.').pop() === 'Fabric') fabricCall(file, c);
  afterCalls(file, calls, walk.loraSwitchedOff);
  attributesSetOnParsed(file, file.tools.has('trl') ? 'trl' : 'hf-trainer');
  if (importsXtuner(file.text)) xtunerConfig(file, calls);
  noTrainingSeen(file);
  frozenByName(file);
  lastStageOnly(file);
  minimumVersion(file, calls);
  // A value set on a branch whose test reads the script's options: decided with the run's options
  // (launch-args.ts withBranchesDecided), which need the script's options; a script read again with a launch line's
  // options (ConfigFacts.readsLaunchOptions) needs them to know which take several words.
  // An option of argparse `type=bool` makes a launch line's `--x False` true (collect/bool-typed-options.ts).
  const boolTyped = (): boolean =>
    [...file.scriptDefaults.values()].some((d) => d !== 'ambiguous' && d.type === 'bool');
  if (
    file.options.length === 0 &&
    !file.settled &&
    (file.readsLaunchOptions || file.facts.some(setConditionally) || boolTyped())
  )
    file.options = scriptOptions(file);
}

/**
 * A file that trains in stages of different kinds (a notebook's DPO, then GRPO): an offline preference stage and an
 * online one with generation are not one run. The stage the file trains last is estimated (its trainer's facts come
 * later, so its settings win); the other's kind is dropped, said at its place.
 */
function lastStageOnly(file: PythonFile): void {
  const preference = file.facts.filter((f) => f.key === 'preference');
  const rollout = file.facts.filter((f) => f.key === 'rollout');
  if (preference.length === 0 || rollout.length === 0) return;
  const start = (fs: typeof preference): number => Math.max(...fs.map((f) => f.keySpan.start));
  const [earlier, later] = start(preference) < start(rollout) ? [preference, rollout] : [rollout, preference];
  const dropped = new Set(earlier);
  file.facts.splice(0, file.facts.length, ...file.facts.filter((f) => !dropped.has(f)));
  const at = earlier[earlier.length - 1];
  file.problem(
    'not-modeled',
    'info',
    msg(
      '{0}: this file trains in stages; the later one ({1}, line {2}) is estimated',
      at.rawKey,
      later[later.length - 1].rawKey,
      file.line(later[later.length - 1].keySpan.start),
    ),
    at.keySpan,
    at.rawKey,
  );
}

/**
 * A model the file loads with nothing in it that trains it (no Trainer, TRL trainer or loop that calls backward): its
 * training, if any, runs in code not read here (a library's train function, llama-cookbook's `train(...)`), or it only
 * runs the model. The estimate then takes HF Trainer's defaults for the batch, precision and checkpointing: said at the
 * model, not left to the assumptions list alone.
 */
function noTrainingSeen(file: PythonFile): void {
  if (file.settled || [...file.tools].some((t) => TRAINING_TOOLS.has(t))) return;
  // A Hydra application's entry point: its config says how it trains (hydraEntry).
  if (hasHydraMain(file.text)) return;
  const model = file.facts.find((f) => f.key === 'model');
  if (!model) return;
  if (runsWithoutTraining(file.text)) {
    inferenceOnly(file, model);
    return;
  }
  file.problem(
    'not-modeled',
    'warning',
    msg(
      '{0}: {1}',
      NO_TRAINING_SEEN,
      "the batch, precision and checkpointing are HF Trainer's defaults; a training function this file calls from " +
        'another library is not read',
    ),
    model.valueSpan,
    model.rawKey,
  );
}

/**
 * A file that runs its model (generate, eval, no_grad) and calls nothing that trains: said at the model, whose facts are
 * dropped so that no training estimate is made of it.
 */
function inferenceOnly(file: PythonFile, model: Fact): void {
  file.problem(
    'not-modeled',
    'warning',
    msg(
      '{0}: this file runs the model (generate, eval or no_grad) and calls nothing that trains: {1}',
      model.rawKey,
      NO_TRAINING_ESTIMATE,
    ),
    model.valueSpan,
    model.rawKey,
  );
  file.facts.splice(0, file.facts.length, ...file.facts.filter((f) => f.key !== 'model'));
}

/**
 * A fact the run's options decide: a value set on a branch of an `if` the walk did not decide (file.ts evalName), a
 * call on such a branch (calls.ts checkpointingCall: `if training_args.do_train: model.gradient_checkpointing_enable()`),
 * LoRA applied or a quantization config used there or in a conditional expression (`... if args.qlora else None`), or
 * a value computed from the options (expressions.ts combine): read again with the options as the run has them.
 */
export const setConditionally = (f: Fact): boolean =>
  typeof f.value === 'object' &&
  f.value !== null &&
  !Array.isArray(f.value) &&
  CONDITIONAL.test((f.value as { unknown: string }).unknown);

// A name or a dict item set on a branch (`x is set conditionally at line N`; file.ts applyItems).
const CONDITIONAL = new RegExp(
  [
    String.raw`(^| is )set conditionally at line \d+$`,
    String.raw` is computed from the script's options`,
    String.raw` only when (the if at line \d+ runs this branch|.+ is (true|false) \(line \d+\))$`,
  ].join('|'),
);

/** What reading one call of the script needs from the others. */
interface CallWalk {
  /** The script pads every batch to its maximum length, so a padding collator makes no variable-length batches. */
  readonly padsToMax: boolean;
  /** The models of the script that score rather than train (reward models). */
  readonly scorers: Scorers;
  /** LoraConfig calls on a branch known not to run. */
  readonly loraSwitchedOff: SyntaxNode[];
  /** The script makes trainers of more than one class (on the branches of an `if`: trainerCall). */
  readonly trainersToChoose: boolean;
}

/**
 * The model class whose `from_pretrained` a callee's parts name: the class written (`AutoModelForCausalLM`), the one
 * a local name holds (`model_class = AutoModelForCausalLM`, chosen by the model id: calls.ts boundModelClass), or the
 * one a class attribute holds (`cls.TRANSFORMER_CLS`: calls.ts classAttributeModelClass).
 */
function modelClassOf(file: PythonFile, parts: readonly string[], call: SyntaxNode): string | undefined {
  const written = parts[parts.length - 2];
  if (isModelClass(written)) return written;
  if (parts.length === 3) return classAttributeModelClass(file, parts[0], parts[1], call);
  return parts.length === 2 ? boundModelClass(file, parts[0], call) : undefined;
}

/** One call of the script: the arguments and configs it builds, the model it loads, the trainer it makes. */
function readCall(file: PythonFile, c: SyntaxNode, walk: CallWalk): void {
  const callee = file.calleeName(c);
  if (!callee) return;
  const parts = callee.split('.');
  const last = parts[parts.length - 1];
  const calleeNode = c.firstChild!;
  const otherTrainer = otherFrameworkTrainer(file, parts);
  // Liger's patch of the model classes (AutoLigerKernelForCausalLM's load is a load besides).
  if (isLigerPatch(last, parts)) ligerPatch(file, c, 'hf-trainer');
  if (isAttentionPatch(last)) attentionPatch(file, c, 'hf-trainer');
  if (isLitgptConfigCall(file, parts)) {
    litgptModelCall(file, c);
  } else if (last === 'connect' && parts.length >= 2 && importsLitgpt(file.text)) {
    dataConnect(file, c);
  } else if (HF_ARGS.has(last) || TRL_CONFIGS.has(last) || file.localArgs.has(last)) {
    const tool: Tool = TRL_CONFIGS.has(last) || parts[0] === 'trl' ? 'trl' : (file.localArgs.get(last) ?? 'hf-trainer');
    file.tools.add(tool);
    trainingCall(file, c, tool, TRL_CONFIGS.has(last) || file.localArgs.has(last));
    syntaxIn(file, c, last);
  } else if (
    (last === 'from_pretrained' || last === 'get_peft_model') &&
    parts.length >= 2 &&
    UNSLOTH_CLASSES.has(parts[parts.length - 2])
  ) {
    unslothCall(file, c, last, parts[parts.length - 2]);
  } else if (last === 'from_pretrained' && parts.length === 2 && parts[0] === 'PeftModel') {
    loadedAdapter(file, c);
  } else if (last === 'from_pretrained' && parts.length >= 2 && modelClassOf(file, parts, c)) {
    const cls = modelClassOf(file, parts, c);
    // A load on a branch known not to run (s1's `if "70B" in config.model_name:` for a 32B model) loads nothing.
    if (branchTaken(file, c) === false) return;
    if (!scoringModel(file, c, walk.scorers, cls)) fromPretrained(file, c, cls);
  } else if (
    (last === 'from_config' && parts.length >= 2 && isModelClass(parts[parts.length - 2])) ||
    // A model class called with a config (the HF course's `GPT2LMHeadModel(config)` from AutoConfig.from_pretrained).
    (parts.length === 1 && isModelClass(last) && pretrainedConfigArgument(file, c))
  ) {
    fromConfig(file, c);
  } else if (last === 'BitsAndBytesConfig') {
    bnbCall(file, c);
    syntaxIn(file, c, last);
  } else if (last === 'GPTQConfig' || last === 'AwqConfig') {
    weightQuantizationCall(file, c, last === 'GPTQConfig' ? 'gptq' : 'awq');
  } else if (last === 'LoraConfig') {
    loraConfig(file, c, walk.loraSwitchedOff);
  } else if (OTHER_PEFT_CONFIGS.has(last)) {
    file.tools.add('peft');
    file.problem(
      'not-modeled',
      'warning',
      msg(
        '{0}: this PEFT method is not modeled; unless a method is set elsewhere the model is estimated as fully fine-tuned, far above what it needs',
        last,
      ),
      span(calleeNode),
      last,
    );
    syntaxIn(file, c, last);
  } else if (last === 'IA3Config') {
    for (const e of file.args(c).entries) mapEntry(file, 'ia3', e, 'peft');
    file.facts.push({
      key: 'method',
      rawKey: 'IA3Config',
      value: 'ia3',
      rawValue: 'IA3Config(...)',
      keySpan: span(calleeNode),
      valueSpan: span(calleeNode),
      tool: 'peft',
    });
    syntaxIn(file, c, last);
  } else if (
    last === 'ModelConfig' &&
    // A project's own ModelConfig, defined in the file or imported from another module (cudnah124/ChartQA's config
    // dataclass), is no TRL config.
    ((parts.length === 1 && !file.localClasses.has('ModelConfig') && !OTHER_MODEL_CONFIG_IMPORT.test(file.text)) ||
      parts[0] === 'trl')
  ) {
    file.tools.add('trl');
    for (const e of file.args(c).entries) mapEntry(file, 'trl-model', e, 'trl');
  } else if ((PADDING_COLLATORS.has(last) || last === 'pad_sequence') && !walk.padsToMax) {
    // Each batch is padded to its longest sample: the allocator caches blocks of shorter batches. Also torch's
    // pad_sequence in a collator of the script's own (stanford_alpaca's train.py DataCollatorForSupervisedDataset and its
    // copies, OFA-Sys/gsm8k-ScRel train_llama2_70b.py).
    file.facts.push({
      key: 'batchLengths',
      rawKey: last,
      value: 'variable',
      rawValue: `${last}(...)`,
      keySpan: span(calleeNode),
      valueSpan: span(calleeNode),
      tool: 'hf-trainer',
    });
  } else if (otherTrainer) {
    noteOtherFrameworkTrainer(file, c, otherTrainer);
  } else if (libraryTrainer(file, last) && !(walk.trainersToChoose && branchTaken(file, c) === false)) {
    // Of the trainers a script chooses between, one the options decide against is not read (calls.ts trainerCall).
    const { trainer, byName } = libraryTrainer(file, last)!;
    if (byName) noteTrainerByName(file, c, last, trainer);
    if (/^Liger\w*Trainer$/.test(last) && file.text.includes('liger_kernel')) ligerTrainer(file, c, last);
    const tool: Tool = TRL_TRAINERS.test(trainer) ? 'trl' : 'hf-trainer';
    file.tools.add(tool);
    trainerCall(file, c, tool, trainer, walk.trainersToChoose);
  } else if (last === 'HfDeepSpeedConfig' || (last === 'initialize' && parts[0] === 'deepspeed')) {
    deepspeedConfigCall(file, c, last);
  } else if (last === 'DeepSpeedPlugin') {
    deepspeedPluginCall(file, c);
  } else if (last === 'requires_grad_' && parts.length >= 2) {
    frozenModel(file, c, parts);
  } else if (last === 'prepare_model_for_kbit_training' || last === 'prepare_model_for_int8_training') {
    kbitPreparation(file, c);
  } else if (SAGEMAKER_ESTIMATORS.has(last) && /\bsagemaker\b/.test(file.text)) {
    sagemakerEstimator(file, c);
  } else if (last === 'wrap_llm_lora' && parts.length >= 2 && parts[0] !== 'self') {
    // (The model's own `self.wrap_llm_lora(...)` in its __init__ runs from a config the script's call decides.)
    internvlLlmLora(file, c);
  } else if (last === 'convert_linear_layer_to_lora' && parts.length === 1) {
    deepspeedChatLora(file, calleeNode);
  } else if (
    last === '_set_gradient_checkpointing' &&
    parts.length >= 2 &&
    parts[parts.length - 2] === 'language_model'
  ) {
    internvlCheckpointing(file, c);
  } else if (last === 'to' && parts.length >= 2) {
    kbitCastBack(file, c);
  }
}

/**
 * A DeepSpeed config a script hands DeepSpeed itself: `HfDeepSpeedConfig(path)` (transformers' integration, made before
 * the model so ZeRO-3 builds it partitioned) or `deepspeed.initialize(config=...)` (config_params before 0.8): read
 * like TrainingArguments' deepspeed (a path is followed; a value not known statically is said, so that an estimate
 * without ZeRO shows it rests on that).
 */
function deepspeedConfigCall(file: PythonFile, c: SyntaxNode, last: string): void {
  const a = file.args(c);
  const names = last === 'HfDeepSpeedConfig' ? ['config_file_or_dict'] : ['config', 'config_params'];
  const named = a.entries.find((e) => names.includes(e.rawKey));
  const first = last === 'HfDeepSpeedConfig' ? a.positional[0] : undefined;
  const entry: Entry | undefined =
    named ??
    (first ? { rawKey: last, keySpan: span(c.firstChild!), valueNode: first, valueSpan: span(first) } : undefined);
  if (entry) deepspeedEntry(file, entry, 'deepspeed');
}

/**
 * `model.requires_grad_(False)` (LLaVA's `--tune_mm_mlp_adapter` and `--freeze_backbone`: the language model frozen,
 * a projector the architecture does not have trained): the weights of the model are not trained where this runs, and
 * what the script unfreezes after it is not read. A warning at the call, unless its branch is known not to run.
 */
function frozenModel(file: PythonFile, c: SyntaxNode, parts: readonly string[]): void {
  const receiver = parts.slice(0, -1).join('.');
  if (!/(^|\.)(model|base_model|get_model\(\))(\.model)?$/.test(receiver)) return;
  const arg = file.args(c).positional[0];
  if (arg?.name !== 'Boolean' || file.text.slice(arg.from, arg.to) !== 'False') return;
  if (branchTaken(file, c) === false) return;
  const cond = conditionOf(file, c);
  file.problem(
    'not-modeled',
    'warning',
    cond
      ? msg(
          '{0}.requires_grad_(False) (when {1}) freezes these weights; what the script trains after it is not read: estimated as trained',
          receiver,
          cond,
        )
      : msg(
          '{0}.requires_grad_(False) freezes these weights; what the script trains after it is not read: estimated as trained',
          receiver,
        ),
    span(c),
    'requires_grad_',
  );
}

/**
 * A helper module's data function the script runs (`dataset.map(tokenize)` of `from tokenizer import tokenize`) that
 * tokenizes to a max_length with truncation or padding: the length its rows have, the run's where no file sets one.
 */
function moduleDataBound(file: PythonFile, calls: readonly SyntaxNode[]): void {
  if (file.facts.some((f) => f.key === 'seqLen')) return;
  const before = file.facts.length;
  sequenceLength(file, calls, 'hf-trainer');
  for (let i = before; i < file.facts.length; i++)
    if (file.facts[i].key === 'seqLen') file.facts[i] = { ...file.facts[i], moduleDataBound: true };
}

/**
 * What the calls say together once each is read: the Trainer's or the written-out loop's run, the script's own model
 * code, checkpointing turned on in the model, kept evaluation logits, prepare_model_for_kbit_training's facts in
 * order, Unsloth's checkpointing, LoRA switched off, QLoRA over 4-bit weights, conflicting precisions.
 */
function afterCalls(file: PythonFile, calls: readonly SyntaxNode[], loraSwitchedOff: SyntaxNode[]): void {
  const trainer = file.tools.has('hf-trainer') || file.tools.has('trl');
  // A Trainer script that loads its model before its arguments exist hands ZeRO-3 a model made outside zero.Init.
  if (trainer) modelBeforeArguments(file, calls);
  if (trainer) trainerRewardPairs(file);
  if (trainer) trainerOptimizers(file, calls, file.tools.has('trl') ? 'trl' : 'hf-trainer');
  // A loop the script writes out runs instead of a Trainer: its DataLoader, optimizer and precision are the run's.
  const loop = trainer ? undefined : trainingLoop(file, calls);
  if (loop) loopFacts(file, calls, loop);
  if (loop) loopModelOutsideZeroInit(file, calls);
  else if (!trainer) handedLoaderBatch(file, calls);
  if (trainer || loop) for (const read of [ownModelCode, dropUnusedConfigs, resizedEmbeddings]) read(file, calls);
  // llama-recipes' train(), the loop of a library the file hands its model and train_config to.
  const recipes = trainer || loop ? undefined : llamaRecipesTrainCall(file, calls);
  if (recipes) llamaRecipesFacts(file, calls, recipes);
  const trainerTool = file.tools.has('trl') ? 'trl' : 'hf-trainer';
  if (trainer && !file.facts.some((f) => f.key === 'seqLen')) sequenceLength(file, calls, trainerTool);
  else if (trainer && !file.facts.some((f) => f.key === 'targetLen')) labelsLength(file, calls, trainerTool);
  else if (!trainer && !loop && file.imported && file.settled) moduleDataBound(file, calls);
  // gradient_checkpointing_enable() and apply_activation_checkpointing() turn checkpointing on in the model itself;
  // Trainer only ever turns it on, so the call decides over a gradient_checkpointing=False, and comes after it.
  for (const c of calls) {
    const last = file.calleeName(c)?.split('.').pop() ?? '';
    if (
      (last === 'gradient_checkpointing_enable' || last === 'apply_activation_checkpointing') &&
      !delegates(file, c, last)
    )
      checkpointingCall(file, c, last, loop ? 'pytorch' : 'hf-trainer');
  }
  checkpointingAttribute(file, loop ? 'pytorch' : 'hf-trainer');
  modelCasts(file, calls, loop ? 'pytorch' : 'hf-trainer');
  // prepare_model_for_kbit_training turns checkpointing on in the model itself; Trainer only ever turns it on, so
  // the call decides over a gradient_checkpointing=False (or its absence) anywhere in the file.
  const released = file.facts.some((f) => f.key === 'evalLogitsReleased');
  if (!released) for (const { e, tool } of file.keptLogits) file.push('evalKeepsLogits', e, true, tool);
  const prepared = file.facts.filter((f) => f.rawKey === 'prepare_model_for_kbit_training');
  if (prepared.length > 0) {
    // Checkpointing first, the upcast last: a hover on the call speaks of the upcast.
    file.facts = file.facts.filter((f) => f.rawKey !== 'prepare_model_for_kbit_training');
    file.facts.push(
      ...prepared.filter((f) => f.key === 'gradientCheckpointing'),
      ...prepared.filter((f) => f.key !== 'gradientCheckpointing'),
    );
  }
  // Unsloth enables checkpointing on the model; the trainer's gradient_checkpointing=False does not undo it.
  // get_peft_model sets it again after from_pretrained, so the latter's speaks only when there is no get_peft_model.
  const gc = file.unslothCheckpointing;
  file.facts.push(...(gc.peft.length > 0 ? gc.peft : gc.load));
  fullUnlessSwitchedOn(file, loraSwitchedOff);
  onlyTakenLora(file, loraSwitchedOff);
  // LoRA over 4-bit base weights is QLoRA (FORMATS.md §2.5).
  if (file.facts.some((f) => f.key === 'quantBits' && f.value === 4)) {
    for (let i = 0; i < file.facts.length; i++)
      if (file.facts[i].key === 'method' && file.facts[i].value === 'lora')
        file.facts[i] = { ...file.facts[i], value: 'qlora' };
  }
  precisionConflicts(file);
}

/**
 * Unsloth's loader or get_peft_model: read as it runs, unless it sits on a branch: nothing when the branch is known not
 * to run (`if args.use_unsloth:` with use_unsloth False), the method unknown when it is not known either way.
 */
function unslothCall(file: PythonFile, c: SyntaxNode, last: string, cls: string): void {
  const taken = branchTaken(file, c);
  if (taken === false) return;
  const cond = taken === undefined ? conditionOf(file, c) : undefined;
  if (cond) {
    const at = span(c.firstChild!);
    file.facts.push({
      key: 'method',
      rawKey: last,
      value: { unknown: `${cls}.${last} runs only when ${cond}` },
      rawValue: `${cls}.${last}(...)`,
      keySpan: at,
      valueSpan: at,
      tool: 'unsloth',
    });
    return;
  }
  file.tools.add('unsloth');
  if (last === 'from_pretrained') unslothLoad(file, c, cls);
  else unslothPeft(file, c, cls);
  syntaxIn(file, c, last);
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
      file.problem(
        'conflicting-precision',
        'error',
        msg('bf16=True and fp16=True together: TrainingArguments raises a ValueError'),
        { start: later.keySpan.start, end: later.valueSpan.end },
        later.rawKey,
      );
    }
  }
}

/**
 * A call inside a method of the same name (`def gradient_checkpointing_enable(self):
 * self.pretrained_model.gradient_checkpointing_enable()`, a value-head wrapper in HALOs' train/models.py): the
 * wrapper passes the call on to the model it holds; whether checkpointing is on is the caller's.
 */
function delegates(file: PythonFile, call: SyntaxNode, name: string): boolean {
  for (let p = call.parent; p; p = p.parent) {
    if (p.name !== 'FunctionDefinition') continue;
    const own = p.getChild('VariableName');
    return own !== null && file.text.slice(own.from, own.to) === name;
  }
  return false;
}

/**
 * DeepSpeed-Chat's `convert_linear_layer_to_lora(model, lora_module_name, lora_dim)` (utils/module/lora.py, copied by
 * BELLE, Yi and others) wraps the chosen linears in LinearLayer_LoRA, whose base weight still trains: only
 * `only_optimize_lora_parameters(model)`, run for `--only_optimize_lora` (which DeepSpeed-Chat refuses with gradient
 * checkpointing), freezes it (that flag reads as LoRA, flags.ts). So the method is full fine-tuning, whether or not the
 * call runs (`if args.lora_dim > 0`, decided by the launch line), said at the call, and the adapters are not counted.
 */
function deepspeedChatLora(file: PythonFile, callee: SyntaxNode): void {
  const at = span(callee);
  file.facts.push({
    key: 'method',
    rawKey: 'convert_linear_layer_to_lora',
    value: 'full',
    rawValue: 'convert_linear_layer_to_lora(...)',
    keySpan: at,
    valueSpan: at,
    tool: 'deepspeed',
  });
  file.problem(
    'not-modeled',
    'warning',
    msg(
      "{0}: DeepSpeed-Chat's LoRA layers leave the base weights trainable: a full fine-tune unless --only_optimize_lora; the adapters are not counted",
      'convert_linear_layer_to_lora',
    ),
    at,
    'convert_linear_layer_to_lora',
  );
}

/**
 * Whether a call's first argument is a checkpoint's config, `AutoConfig.from_pretrained("gpt2", ...)` or a name bound to
 * one: what makes `GPT2LMHeadModel(config)` a model built from that checkpoint (a data collator named `...For...` is not).
 */
function pretrainedConfigArgument(file: PythonFile, c: SyntaxNode): boolean {
  return pretrainedConfigCall(file, file.args(c).positional[0]) !== undefined;
}
