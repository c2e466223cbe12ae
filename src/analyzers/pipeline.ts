// From the files a user points at to one TrainingSetup: detect each file's format, analyze it, follow the
// references it makes (a DeepSpeed JSON named by TrainingArguments, a launcher flag, an Accelerate or Axolotl
// key) relative to the referencing file (collect/), then merge everything with precedence and tool defaults.
// Pure: file access goes through the FileReader the caller provides (the CLI and the extension each have one).
import { msg, type Fact, type LaunchArgument } from './facts';
import { catalogResolver, resolveScenarios, type ModelResolver, type Overrides } from './resolve';
import { locateOffset, resolveFacts, type AnalyzedFile, type FactResolution } from './resolve';
import { ScenarioSchema, type Problem, type ScenarioFacts } from './scenario';
import { olderThan, type Provenance, type ProvenanceMap, type TrainingSetup } from '../core';
import { ACCELERATE_FSDP_TOOLS, accelerateFsdpPatch } from './accelerate-fsdp';
import { limitAllGathersDefault } from './limit-all-gathers';
import { zeroGradOfRelease } from './zero-grad-release';
import { TRAINER_DDP_TOOLS, trainerFindUnused } from './trainer-ddp';
import { RAM_EFFICIENT_ENV } from './shell/choices';
import { trlDefault, trlLoadDtype, trlLoadsPolicy, trlReferenceDtype, trlRewardDtype } from './trl-reference';
import { checkpointDtype } from './resolve/model';
import { withPinnedVersions } from './pinned-versions';
import { readOnce, type FileReader } from './file-reader';
import { collectFiles, type MissingScript } from './collect';
import { trainerDefaultOptimizer } from './trainer-optimizer';
import { keptEvalLogits } from './eval-logits';
import { ownAttention, ownPrecision } from './remote-code';

export { findReference, projectModules, type FileReader, type ReadKind } from './file-reader';
export { referencedPath } from './collect';

export interface InputFile {
  readonly file: string;
  readonly text: string;
  readonly languageId?: string;
  /**
   * For a Python script given as the run's entry: the options it is run with, as a launch line would pass them (a
   * config file handed to the script's `--config` that no file of the project names: node/config-readers.ts).
   */
  readonly args?: readonly LaunchArgument[];
  /** For a shell script given as the run's entry: the words it is run with (`bash train.sh configs/x.yaml`). */
  readonly words?: readonly string[];
}

export interface PipelineResult {
  readonly setup?: TrainingSetup;
  readonly provenance: ProvenanceMap;
  readonly problems: readonly Problem[];
  readonly files: readonly AnalyzedFile[];
  readonly scenarios: readonly ScenarioFacts[];
  readonly gpu?: string;
  readonly decided: FactResolution['decided'];
  /** Files given that are not a recognised format. */
  readonly unrecognized: readonly string[];
}

/** The whole path: files -> facts -> TrainingSetup with provenance and located problems. */
export function runPipeline(
  inputs: readonly InputFile[],
  reader: FileReader,
  overrides: Overrides,
  resolver: ModelResolver = catalogResolver,
): PipelineResult {
  // One analysis reads each path once (file-reader.ts readOnce).
  const once = readOnce(reader);
  const pinned = withPinnedVersions(mergeFiles(inputs, once, overrides, resolver), inputs, once);
  return evalLogits(
    trainerDdp(
      trlLoads(
        zeroGradOfRelease(
          limitAllGathersDefault(accelerateFsdp(trainerRamEfficientLoading(trainerOptimizer(remoteCode(pinned))))),
        ),
      ),
    ),
  );
}

/** The precision, then the attention, a model's own code picks where no file says (remote-code.ts). */
function remoteCode(r0: PipelineResult): PipelineResult {
  let r = r0;
  const precision = r.setup ? ownPrecision(r.setup, r.provenance.weights_dtype) : undefined;
  if (precision && r.setup)
    r = {
      ...r,
      setup: { ...r.setup, weights_dtype: precision.weights },
      provenance: { ...r.provenance, weights_dtype: precision.provenance },
    };
  const own = r.setup ? ownAttention(r.setup, r.provenance.attention) : undefined;
  if (!own || !r.setup) return r;
  return {
    ...r,
    setup: { ...r.setup, attention: own.attention },
    provenance: { ...r.provenance, attention: own.provenance },
  };
}

/** The evaluation's kept logits, said at the Trainer's compute_metrics (eval-logits.ts). */
function evalLogits(r: PipelineResult): PipelineResult {
  const kept = keptEvalLogits(r.setup, r.files);
  return kept ? { ...r, problems: [...r.problems, kept] } : r;
}

/** A Trainer-based tool's default optimizer as the run's releases default it (trainer-optimizer.ts). */
function trainerOptimizer(r: PipelineResult): PipelineResult {
  if (!r.setup) return r;
  const { setup, provenance } = trainerDefaultOptimizer(r.setup, r.provenance);
  return setup === r.setup ? r : { ...r, setup, provenance };
}

/**
 * FSDP_CPU_RAM_EFFICIENT_LOADING from the launch line's environment, where the HF Trainer's own arguments configure
 * FSDP: from transformers 4.41 TrainingArguments sets it from fsdp_config's cpu_ram_efficient_loading, "false" unless
 * given, over the environment (huggingface/transformers#30002, training_args.py); before, the environment's value is
 * what the load reads. So under a release from 4.41 on, the Trainer's own value (its fsdp_config, else its default)
 * replaces the environment's.
 */
function trainerRamEfficientLoading(r: PipelineResult): PipelineResult {
  const s = r.setup;
  const prov = r.provenance.fsdp_cpu_ram_efficient_loading;
  const fsdpTool = r.decided.fsdp?.fact.tool;
  if (!s || prov?.kind !== 'file' || prov.key !== RAM_EFFICIENT_ENV) return r;
  if (!fsdpTool || !TRAINER_DDP_TOOLS.has(fsdpTool) || olderThan(s.transformers_version, 4, 41)) return r;
  const own = r.files
    .flatMap((f) => f.facts.facts.map((fact) => ({ fact, file: f })))
    .filter(({ fact }) => fact.key === 'fsdpCpuRamEfficientLoading' && fact.rawKey !== RAM_EFFICIENT_ENV)
    .pop();
  const value = typeof own?.fact.value === 'boolean' ? own.fact.value : false;
  const provenance: Provenance = own
    ? {
        kind: 'file',
        file: own.file.file,
        line: locateOffset(own.file.file, own.file.text, own.fact.valueSpan.start, own.fact.valueSpan.end).line,
        key: own.fact.rawKey,
      }
    : {
        kind: 'default',
        owner: fsdpTool,
        note:
          `from transformers 4.41 the HF Trainer sets ${RAM_EFFICIENT_ENV} from its fsdp_config over the launch ` +
          `line's (huggingface/transformers#30002): cpu_ram_efficient_loading defaults to "false"`,
      };
  return {
    ...r,
    setup: { ...s, fsdp_cpu_ram_efficient_loading: value },
    provenance: { ...r.provenance, fsdp_cpu_ram_efficient_loading: provenance },
  };
}

/**
 * What TRL loads by a name, in the pinned release (trl-reference.ts): the policy given to a trainer as a model id, in
 * TRL's load dtype where no file gives one, and the reference it loads by the policy's name where that dtype differs.
 */
function trlLoads(r: PipelineResult): PipelineResult {
  const s0 = r.setup;
  if (!s0 || !r.files.some((f) => f.facts.tools.includes('trl'))) return r;
  const facts = r.files.flatMap((f) => f.facts.facts);
  const ckpt = s0.architecture ? checkpointDtype(s0.architecture) : undefined;
  let setup = s0;
  const provenance: ProvenanceMap = { ...r.provenance };
  const load = trlLoadsPolicy(facts) ? trlDefault(setup, ckpt) : undefined;
  const unread = load ? unreadModelConfigDtype(r) : undefined;
  const problems = unread ? [...r.problems, unread] : r.problems;
  if (
    load &&
    (unread || (provenance.weights_dtype?.kind === 'default' && !facts.some((f) => f.key === 'weightsDtype')))
  ) {
    setup = { ...setup, weights_dtype: load.value };
    provenance.weights_dtype = { kind: 'default', owner: 'trl', note: `the trainer loads a model id ${load.why}` };
  }
  const reference = setup.reference_dtype === undefined ? trlReferenceDtype(setup, facts, ckpt) : undefined;
  if (reference) {
    setup = { ...setup, reference_dtype: reference.value };
    provenance.reference_dtype = { kind: 'default', owner: 'trl', note: reference.note };
  }
  setup = withRewardDtypes(setup, facts);
  return setup === s0 && provenance.weights_dtype === r.provenance.weights_dtype
    ? r
    : { ...r, setup, provenance, problems };
}

/**
 * The launch line's `--dtype` (or `--torch_dtype`) where the script parses TRL's ModelConfig and reads only the model's
 * name from it (ConfigFacts.modelConfigNameOnly): the flag reaches no load, and the trainer loads the model id with
 * its own default (Carlos-Mero/proofrl: `GRPOTrainer(model=model_cfg.model_name_or_path, args=grpo_cfg)`). A note at
 * the flag; undefined where the weights' dtype does not come from such a flag.
 */
function unreadModelConfigDtype(r: PipelineResult): Problem | undefined {
  const p = r.provenance.weights_dtype;
  if (p?.kind !== 'file' || !/^-*(torch_)?dtype$/.test(p.key ?? '')) return undefined;
  if (!r.files.some((f) => f.facts.modelConfigNameOnly)) return undefined;
  const launcher = r.files.find((f) => f.file === p.file && f.facts.format === 'shell');
  const flag = launcher?.facts.facts.find((f) => f.key === 'weightsDtype' && f.rawKey === p.key);
  if (!launcher || !flag) return undefined;
  return {
    ...locateOffset(launcher.file, launcher.text, flag.keySpan.start, flag.keySpan.end),
    severity: 'warning',
    code: 'no-effect',
    key: p.key,
    ...msg(
      '{0} sets the dtype of the ModelConfig the script parses, of which it reads only the model name: the trainer ' +
        'loads the model id with its own default',
      p.key ?? '',
    ),
  };
}

/** Reward models given by name, in the dtype GRPOTrainer loads them in (trl-reference.ts trlRewardDtype). */
function withRewardDtypes(setup: TrainingSetup, facts: readonly Fact[]): TrainingSetup {
  const models = setup.rollout?.reward_models ?? [];
  if (models.length === 0) return setup;
  const dtype = trlLoadDtype(facts);
  const typed = models.map((m) => {
    const d = m.dtype ?? trlRewardDtype(setup, dtype, checkpointDtype(m.architecture));
    return d && d !== m.dtype ? { ...m, dtype: d } : m;
  });
  return typed.every((m, i) => m === models[i])
    ? setup
    : { ...setup, rollout: { ...setup.rollout!, reward_models: typed } };
}

/**
 * A training script the launch line names that is not in the project: a warning where no other file names the model
 * (the estimate stops at the model), else an info note at its name, since what the script sets itself (LoRA,
 * checkpointing, precision) is then not read. One in another checkout (LLaMA-Factory's src/train.py) is said too.
 */
function missingScriptProblems(
  missing: readonly MissingScript[],
  noModel: boolean,
  problems: readonly Problem[],
): Problem[] {
  if (noModel && !problems.some((p) => p.code === 'unknown-model')) return [];
  return missing.map((m): Problem =>
    noModel
      ? {
          ...m,
          severity: 'warning',
          code: 'reference-not-found',
          ...msg('the training script {0} was not found, and no other file of the run names the model', m.path),
        }
      : {
          ...m,
          severity: 'info',
          code: 'reference-not-found',
          ...msg(
            "the training script {0} was not found: the estimate reads the launch line and the tools' defaults, " +
              'not what the script sets itself (LoRA, checkpointing, precision)',
            m.path,
          ),
        },
  );
}

function mergeFiles(
  inputs: readonly InputFile[],
  reader: FileReader,
  overrides: Overrides,
  resolver: ModelResolver,
): PipelineResult {
  const { files, scenarios, problems, unrecognized, missingScripts } = collectFiles(inputs, reader);
  const noModel = !files.some((f) => f.facts.facts.some((x) => x.key === 'model'));
  const withMissing = (ps: Problem[]): Problem[] => [...ps, ...missingScriptProblems(missingScripts, noModel, ps)];
  if (files.length === 0) {
    const r = resolveScenarios(scenarios, overrides, resolver);
    return {
      setup: r.setup,
      provenance: r.provenance,
      problems: [...problems, ...r.problems],
      files,
      scenarios,
      gpu: r.gpu,
      decided: {},
      unrecognized,
    };
  }
  // Scenario values (what-ifs) apply on top of the config files; flags and settings still win.
  const scenarioModel = scenarios
    .map((s) => s.values.model)
    .filter((m): m is string => typeof m === 'string')
    .pop();
  const fr = resolveFacts(files, { ...overrides, model: overrides.model ?? scenarioModel }, resolver);
  const all = withMissing([...problems, ...fr.problems, ...scenarios.flatMap((s) => s.problems)]);
  if (!fr.setup || scenarios.length === 0)
    return {
      setup: fr.setup,
      provenance: fr.provenance,
      problems: all,
      files,
      scenarios,
      gpu: fr.gpu,
      decided: fr.decided,
      unrecognized,
    };
  const merged: Record<string, unknown> = { ...fr.setup };
  const prov = { ...fr.provenance } as Record<string, ProvenanceMap[keyof ProvenanceMap]>;
  for (const s of scenarios) {
    for (const [k, v] of Object.entries(s.values)) {
      const p = prov[k];
      if (p && (p.kind === 'flag' || p.kind === 'setting')) continue;
      merged[k] = v;
      prov[k] = { kind: 'file', file: s.file, line: s.keyLocations[k]?.line, key: k };
    }
  }
  const parsed = ScenarioSchema.safeParse(merged);
  if (!parsed.success || !parsed.data.architecture) {
    return {
      setup: fr.setup,
      provenance: fr.provenance,
      problems: all,
      files,
      scenarios,
      gpu: fr.gpu,
      decided: fr.decided,
      unrecognized,
    };
  }
  const setup = parsed.data as TrainingSetup;
  return {
    setup,
    provenance: prov as ProvenanceMap,
    problems: all,
    files,
    scenarios,
    gpu: setup.gpu,
    decided: fr.decided,
    unrecognized,
  };
}

/**
 * What Accelerate's FSDP preparation does that the files do not say, by its release (a pin, or current):
 * - under mixed precision it upcasts the trainable parameters of a 16-bit model to fp32 before sharding, "DeepSpeed's
 *   strategy to hold the parameters in full precision" (accelerator.py prepare_model for FSDP1 from 0.30,
 *   huggingface/accelerate#2674; utils/fsdp_utils.py fsdp2_prepare_model from FSDP2's first release, 1.6): the shard
 *   is the fp32 master, 16-bit copies exist only all-gathered;
 * - the HF Trainer's no_sync is Accelerate's, which did nothing to an FSDP2 module before 1.11;
 * - from 1.14 FSDP2 puts the final norm and the head in a unit kept unsharded from its forward to its backward.
 */
/**
 * Why a 16-bit Axolotl FSDP2 run under mixed precision keeps no fp32 master: Axolotl's own fsdp2_prepare_model, which
 * replaces Accelerate's, upcasts nothing (accelerate-fsdp.ts). Undefined where that does not apply or a file says.
 */
function axolotlFsdp2(s: TrainingSetup, tool: string, stated: boolean): Provenance | undefined {
  const half = s.mixed_precision === 'bf16' || s.mixed_precision === 'fp16';
  const sixteen = s.weights_dtype === 'bf16' || s.weights_dtype === 'fp16';
  if (tool !== 'axolotl' || s.fsdp_version !== 2 || !half || !sixteen || s.master_weights || stated) return undefined;
  return {
    kind: 'default',
    owner: 'axolotl',
    note:
      "Axolotl's FSDP2 preparation replaces Accelerate's and upcasts nothing (axolotl-ai-cloud/axolotl@d6e4a61 " +
      'monkeypatch/accelerate/fsdp2.py, from July 2025): the shards, their gradients and the optimizer states stay in ' +
      `${s.weights_dtype}, and the final norm and head are in the root unit`,
  };
}

/**
 * FSDP the run's own loop wraps itself (`model = FSDP(model, ...)` of a script whose tools are PyTorch's alone): no
 * Accelerate preparation, whatever a launch line's flags read by their names make of the run (Srini-98/TEXT2SQL-EHRSQL's
 * `--model_path` had made it an HF Trainer run, its bf16 Mistral-7B shards fp32 masters).
 */
function ownFsdpWrap(r: PipelineResult): boolean {
  const p = r.provenance.fsdp;
  const file = p?.kind === 'file' ? r.files.find((f) => f.file === p.file) : undefined;
  const tools = file?.facts.tools ?? [];
  return tools.includes('pytorch') && !tools.some((t) => ACCELERATE_FSDP_TOOLS.has(t));
}

function accelerateFsdp(r: PipelineResult): PipelineResult {
  const s0 = r.setup;
  if (!s0 || s0.fsdp === undefined || s0.fsdp === 'none') return r;
  const tool = r.files.flatMap((f) => f.facts.tools).find((t) => ACCELERATE_FSDP_TOOLS.has(t));
  if (!tool || ownFsdpWrap(r)) return r;
  const provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]> = { ...r.provenance };
  const syncProv = provenance.fsdp_no_sync;
  const patch = accelerateFsdpPatch(
    s0,
    { masterWeightsStated: provenance.master_weights !== undefined, noSyncFromDefault: syncProv?.kind === 'default' },
    tool,
  );
  const own = axolotlFsdp2(s0, tool, provenance.master_weights !== undefined);
  if (own) provenance.master_weights = own;
  if (Object.keys(patch).length === 0) return own ? { ...r, provenance: provenance as ProvenanceMap } : r;
  const setup = { ...s0, ...patch };
  if (patch.master_weights) {
    provenance.master_weights = {
      kind: 'default',
      owner: tool,
      note:
        "Accelerate's FSDP preparation upcasts the trainable parameters of a 16-bit model to fp32 under mixed " +
        'precision (huggingface/accelerate#2674, FSDP2 from 1.6): each shard is the fp32 master',
    };
  }
  if (patch.fsdp_tail_unit) {
    provenance.fsdp_tail_unit = {
      kind: 'default',
      owner: tool,
      note:
        `Accelerate ${setup.accelerate_version ?? '1.14 or later'} wraps FSDP2's final norm and output head in a unit ` +
        'not resharded after the forward, and untied embeddings in one of their own (huggingface/accelerate#4015)',
    };
  }
  if (patch.fsdp_no_sync === false && syncProv?.kind === 'default') {
    provenance.fsdp_no_sync = {
      kind: 'default',
      owner: syncProv.owner,
      note:
        `the HF Trainer's no_sync is Accelerate's, which before 1.11 (accelerate ${setup.accelerate_version} pinned) ` +
        'did nothing to an FSDP2 module (huggingface/accelerate#3762): every micro-batch reduces its gradients',
    };
  }
  return { ...r, setup, provenance: provenance as ProvenanceMap };
}

/**
 * The HF Trainer's DDP find_unused_parameters where no file gives ddp_find_unused_parameters (trainer-ddp.ts): true
 * for a PEFT model or a model without gradient checkpointing, said as the tool's default.
 */
function trainerDdp(r: PipelineResult): PipelineResult {
  const s0 = r.setup;
  if (!s0 || r.provenance.ddp_find_unused_parameters !== undefined) return r;
  const tools = r.files.flatMap((f) => f.facts.tools).filter((t) => TRAINER_DDP_TOOLS.has(t));
  // Axolotl and LLaMA-Factory decide it before the Trainer does.
  const tool = tools.find((t) => t === 'axolotl' || t === 'llamafactory') ?? tools[0];
  const rule = tool ? trainerFindUnused(tool, s0) : undefined;
  if (!rule || !tool) return r;
  return {
    ...r,
    setup: { ...s0, ddp_find_unused_parameters: rule.value },
    provenance: { ...r.provenance, ddp_find_unused_parameters: { kind: 'default', owner: tool, note: rule.note } },
  };
}
