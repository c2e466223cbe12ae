// The library versions a run uses, where they change what it allocates: the pins of the run's own `pip install` lines
// and of the project's dependency files (pins.ts), a release the files' keys imply, and what a release does that the
// setup follows from (the dtype from_pretrained loads in, TRL's dated defaults and its quantized-model preparation,
// PEFT's adapter dtype, ZeRO-3's model init). Pure: the reader is the caller's.
import { catalogModel, olderThan, releasePredatesModel, type ProvenanceMap, type TrainingSetup } from '../core';
import type { Problem } from './scenario';
import type { Tool } from './facts';
import { deepspeedCastsKbitUpcast, zeroInitAdapterDtype } from './deepspeed-adapters';
import { openrlhfAttentionOfRelease } from './openrlhf-dated-defaults';
import type { FileReader, InputFile, PipelineResult } from './pipeline';
import { DEPENDENCY_FILES, dependencyPins, type GitPin, installPins, PARENT_LEVELS, type Pin, type Pins } from './pins';
import { transformersOfGitCommit, type TransformersFromGit } from './transformers-git';
import { locateOffset } from './resolve';
import { AUTO_DTYPE_NOTE, AUTO_DTYPE_WHY, ownWeightDtype } from './resolve/model';
import { FROM_PRETRAINED_FP32_NOTE, SDPA_DEFAULT_NOTE } from './defaults';
import { isAttentionPatch } from './hf-python/attention-patch';
import { TORCH_DTYPE_RENAMED } from './yaml/hf-yaml';
import {
  transformersOfTrlRelease,
  trlOfTransformersRelease,
  trlDatedDefaults,
  trlLigerKernelOfRelease,
  trlOldLogpsOfRelease,
  trlRewardPassesOfRelease,
  trlGrpoBetaOfRelease,
  trlGrpoPromptBatchOfRelease,
  trlPreferenceLengthOfRelease,
  oldRlooNote,
} from './trl-dated-defaults';
import { bitsandbytesLoad, trlQuantizedPreparation } from './trl-quantized';
import { trlZero3Reentrant } from './trl-zero3';
import { loopOutsideZeroInit, quantizedOutsideZeroInit, trainerZeroInit, zeroInitWithoutHalf } from './zero3-init';
import { type AxolotlPin, axolotlLoraOver4bit, loraOver4bitKey } from './axolotl-release';

/**
 * Where a dependency file may be, nearest first: beside the config, then each folder above it up to the repository's
 * top or the reader's root (FileReader.lookup), and at least PARENT_LEVELS folders up. LitGPT's config hub files sit
 * three folders below the pyproject.toml that pins its bitsandbytes (config_hub/finetune/<model>/qlora.yaml).
 */
function dependencyPlaces(reader: FileReader, first: string, name: string): string[] {
  const near = reader.lookup?.(first, name) ?? [];
  const fixed = Array.from({ length: PARENT_LEVELS + 1 }, (_, up) => reader.join(first, `${'../'.repeat(up)}${name}`));
  // Entry i of either list is i folders up: the fixed levels fill in beyond where the lookup stopped.
  return [...near, ...fixed.slice(near.length)];
}

/** The setup field each pinned package's version goes to. */
const PINNED_FIELDS = [
  ['transformers', 'transformers_version'],
  ['torch', 'pytorch_version'],
  ['torchao', 'torchao_version'],
  ['trl', 'trl_version'],
  ['peft', 'peft_version'],
  ['bitsandbytes', 'bitsandbytes_version'],
  ['deepspeed', 'deepspeed_version'],
  ['accelerate', 'accelerate_version'],
  ['openrlhf', 'openrlhf_version'],
] as const;

/** A Databricks notebook exported as Python source: its first line, then cells whose magics are `# MAGIC` comments. */
const DATABRICKS_SOURCE = /^# Databricks notebook source\r?\n/;

/**
 * The transformers / PyTorch / torchao / TRL / bitsandbytes versions the project pins (the `pip install` lines of the run's
 * notebook or launch script first, then requirements.txt, pyproject.toml, environment.yml beside the first config or in
 * the folders above it, dependencyPlaces), for a setup that does not give them itself. A pinned TRL
 * takes back the defaults its release did not have yet (trl-dated-defaults.ts: checkpointing before 0.22, bf16 before
 * 0.19, SFTConfig's chunked_nll before 1.7), and a TRL run's quantized model gets what its release does to it
 * (trlQuantized).
 */
export function withPinnedVersions(
  r: PipelineResult,
  inputs: readonly InputFile[],
  reader: FileReader,
): PipelineResult {
  const first = inputs[0]?.file;
  if (!r.setup || !first) return r;
  let setup = r.setup;
  // torchao's version matters for torchtune's NF4 weights (torchao NF4Tensor); other trainers quantize with bitsandbytes.
  const torchtune = r.files.some((f) => f.facts.tools.includes('torchtune'));
  const trl = r.files.some((f) => f.facts.tools.includes('trl'));
  const q = setup.quantization;
  const want = {
    // A release the config's keys imply (evaluation_strategy: 4.45 or earlier) gives way to a pin.
    transformers: setup.transformers_version === undefined || r.provenance.transformers_version?.kind === 'default',
    torch: setup.pytorch_version === undefined,
    // A release the config's tool version implies (torchtune 0.1: torchao 0.1) gives way to a pin.
    torchao: torchtune && (setup.torchao_version === undefined || r.provenance.torchao_version?.kind === 'default'),
    // A release the config's tool pins (AutoTrain's requirements) gives way to the project's own pin.
    trl: trl && (setup.trl_version === undefined || r.provenance.trl_version?.kind === 'default'),
    peft:
      setup.lora !== undefined && (setup.peft_version === undefined || r.provenance.peft_version?.kind === 'default'),
    // A release the config's tool version implies (a default: LitGPT before OptimizerArgs) gives way to a pin.
    bitsandbytes:
      q !== undefined &&
      !torchtune &&
      q.library !== 'torchao' &&
      (setup.bitsandbytes_version === undefined || r.provenance.bitsandbytes_version?.kind === 'default'),
    deepspeed: (setup.zero_stage ?? 0) >= 1 && setup.deepspeed_version === undefined,
    accelerate: setup.fsdp !== undefined && setup.fsdp !== 'none' && setup.accelerate_version === undefined,
    openrlhf: setup.actor_logps !== undefined && setup.openrlhf_version === undefined,
    // Axolotl's release decides what `load_in_4bit` beside `adapter: lora` loads (axolotl-release.ts).
    axolotl: loraOver4bitKey(setup, r.provenance) !== undefined,
  };
  const provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]> = { ...r.provenance };
  const problems: Problem[] = [];
  let axolotl: AxolotlPin | undefined;
  let fromGit: TransformersFromGit | undefined;
  const take = (pins: Pins, path: string, text: string): void => {
    // transformers installed from a git commit names no release: dated by the file's other pins, said at the line.
    if (want.transformers && !pins.transformers && pins.transformersGit) {
      want.transformers = false;
      const { start, end, ref } = pins.transformersGit;
      fromGit = { at: locateOffset(path, text, start, end), ref, pins };
    }
    // TRL from a branch, or a commit not of its main history: no release, said at the line.
    if (want.trl && !pins.trl && pins.trlGit) {
      want.trl = false;
      problems.push(trlGitNote(path, text, pins.trlGit));
    }
    if (want.axolotl && pins.axolotl) {
      want.axolotl = false;
      const { line } = locateOffset(path, text, pins.axolotl.start, pins.axolotl.end);
      axolotl = { version: pins.axolotl.version, file: path, line };
    }
    for (const [tool, field] of PINNED_FIELDS) {
      const pin = pins[tool];
      if (!want[tool] || !pin) continue;
      want[tool] = false;
      // A transformers pin older than the model's code is other code's (a fork's root requirements.txt): said at it.
      const predates =
        tool === 'transformers' ? releasePredatesModel(pin.version, catalogModelType(setup.model)) : undefined;
      if (predates) {
        const at = locateOffset(path, text, pin.start, pin.end);
        problems.push({
          ...at,
          severity: 'warning',
          code: 'no-effect',
          message: `${predates.why} (the pin belongs to other code of the repository, or a later install replaced it)`,
          key: 'transformers',
        });
        setup = { ...setup, transformers_version: predates.firstRelease };
        provenance.transformers_version = {
          kind: 'default',
          owner: 'VRAM Lens',
          note: `the first release with the model's code; ${pin.version}, pinned in ${path.split('/').pop()}:${at.line}, predates it`,
        };
        continue;
      }
      setup = { ...setup, [field]: pin.version };
      if (pin.commit) problems.push(commitReadNote(path, text, pin, tool));
      provenance[field] = {
        kind: 'file',
        file: path,
        line: locateOffset(path, text, pin.start, pin.end).line,
        key: tool,
      };
    }
  };
  // What the run's own notebook or launch script installs (`%pip install "transformers==4.40.0"`) comes first; a
  // Databricks notebook kept as Python source runs its `# MAGIC %pip install` cells too.
  for (const f of r.files)
    if (f.facts.format === 'notebook' || f.facts.format === 'shell' || DATABRICKS_SOURCE.test(f.text))
      take(installPins(f.text), f.file, f.text);
  // The entry's folders first, then those of a script it runs from a folder of its own (Deep-Agent/R1-V's
  // src/scripts/*.sh runs src/r1-v/src/open_r1/grpo.py, whose src/r1-v/setup.py pins trl 0.14.0).
  const starts = dependencyStarts(first, r.files);
  for (const start of starts) {
    const places = Object.values(want).some(Boolean)
      ? DEPENDENCY_FILES.map((name) => dependencyPlaces(reader, start, name))
      : [];
    const depth = Math.max(0, ...places.map((p) => p.length));
    for (let up = 0; up < depth && Object.values(want).some(Boolean); up++) {
      places.forEach((level, i) => {
        const path = level[up];
        const text = path === undefined ? undefined : reader.read(path, 'dependency');
        if (path !== undefined && text !== undefined) take(dependencyPins(DEPENDENCY_FILES[i], text), path, text);
      });
    }
  }
  if (want.openrlhf) {
    const vendored = vendoredOpenrlhf(reader, starts);
    if (vendored) {
      setup = { ...setup, openrlhf_version: vendored.version };
      provenance.openrlhf_version = { kind: 'file', file: vendored.file, line: 1, key: 'openrlhf' };
    }
  }
  setup = openrlhfAttentionOfRelease(setup, provenance);
  const tools = r.files.flatMap((f) => f.facts.tools);
  const loaded = axolotlLoraOver4bit(setup, provenance, r.problems, axolotl);
  setup = loaded.setup;
  if (fromGit) setup = transformersOfGitCommit(setup, provenance, problems, fromGit);
  setup = transformersOfTrlRelease(setup, provenance);
  if (trl) setup = trlOfTransformersRelease(setup, provenance);
  setup = float32BeforeTransformers5(setup, provenance);
  setup = eagerBeforeTransformers436(setup, provenance);
  setup = attentionPatchBefore436(setup, provenance);
  setup = trainerCacheUnderWrapper(setup, provenance, tools, ownCheckpointing(r.files));
  setup = trlDatedDefaults(setup, provenance);
  setup = trlLigerKernelOfRelease(setup, provenance);
  setup = trlOldLogpsOfRelease(setup, provenance);
  setup = trlPreferenceLengthOfRelease(setup, provenance);
  setup = trlRewardPassesOfRelease(setup, provenance, tools);
  setup = trlGrpoBetaOfRelease(setup, provenance);
  setup = trlGrpoPromptBatchOfRelease(
    setup,
    provenance,
    numberFact(r.files, 'numGenerations'),
    r.files.some((f) => f.facts.facts.some((x) => x.key === 'grpoPromptBatch')),
  );
  setup = peftAdapterDtype(setup, provenance, tools);
  setup = trainerZeroInit(setup, provenance, r.files);
  setup = loopOutsideZeroInit(setup, provenance, r.files);
  setup = quantizedOutsideZeroInit(setup, provenance);
  setup = zeroInitWithoutHalf(setup, provenance, r.files);
  setup = zeroInitAdapterDtype(
    setup,
    provenance,
    tools,
    r.files.some((f) => f.facts.peftByTrainer),
  );
  // Unsloth and Axolotl load and prepare the model themselves (Unsloth patches TRL's trainers too).
  if (tools.includes('trl') && !tools.some((t) => t === 'unsloth' || t === 'axolotl')) {
    setup = trlQuantized(setup, provenance, wrapsPeftModel(r.files));
    setup = trlZero3Reentrant(setup, provenance);
  }
  setup = deepspeedCastsKbitUpcast(setup, provenance, tools);
  problems.push(...oldRloo(r, setup.trl_version));
  // A TRL config's `torch_dtype` is its own release's name where the project's TRL predates the rename (0.23).
  const renamed = olderThan(setup.trl_version, 0, 23) && provenance.trl_version?.kind === 'file';
  const kept = renamed ? loaded.problems.filter((p) => p.template?.text !== TORCH_DTYPE_RENAMED) : loaded.problems;
  if (setup === r.setup && problems.length === 0 && kept === r.problems) return r;
  return { ...r, setup, provenance: provenance as ProvenanceMap, problems: [...kept, ...problems] };
}

/**
 * Where the dependency files are looked for from: the entry, then each Python script of the run in a folder that is
 * not the entry's nor one above it (a folder above is searched from the entry already).
 */
function dependencyStarts(first: string, files: PipelineResult['files']): string[] {
  const folder = (f: string): string => f.slice(0, f.lastIndexOf('/') + 1);
  const starts = [first];
  for (const f of files) {
    const dir = folder(f.file);
    if (!f.file.endsWith('.py') || starts.some((s) => folder(s).startsWith(dir))) continue;
    starts.push(f.file);
  }
  return starts;
}

/** The value of a numeric fact the run's files give (the last file's), or undefined. */
function numberFact(files: PipelineResult['files'], key: string): number | undefined {
  const values = files.flatMap((f) => f.facts.facts.filter((x) => x.key === key).map((x) => x.value));
  const last = values[values.length - 1];
  return typeof last === 'number' && Number.isSafeInteger(last) && last > 0 ? last : undefined;
}

/** The model_type of a model the catalog has, for what its code's first transformers release rules out. */
function catalogModelType(model: unknown): unknown {
  if (typeof model !== 'string') return undefined;
  return catalogModel(model)?.config.model_type;
}

/**
 * A from_pretrained without a dtype, read as loading the checkpoint's dtype (transformers 5's dtype="auto"), loads
 * float32 under a transformers 4 release a pin gives (modeling_utils.py: torch_dtype None is the default dtype).
 */
function float32BeforeTransformers5(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const p = provenance.weights_dtype;
  if (!olderThan(setup.transformers_version, 5, 0) || p?.kind !== 'default') return setup;
  // Read as the Trainer's fp32 load where the release was already a 4.x one (a file's construct dates it): a
  // bitsandbytes load still makes it float16 (below).
  const trainerFp32 = p.note === FROM_PRETRAINED_FP32_NOTE && setup.weights_dtype === 'fp32';
  if (trainerFp32 && !bitsandbytesLoad(setup.quantization)) return setup;
  if (!trainerFp32 && !p.note?.startsWith(AUTO_DTYPE_NOTE)) return setup;
  const config = setup.architecture ?? (setup.model ? catalogModel(setup.model)?.config : undefined);
  const own = config ? ownWeightDtype(config) : undefined;
  if (own && !trainerFp32) {
    const note = p.note.replace(AUTO_DTYPE_WHY, `under transformers ${setup.transformers_version} too: ${own}`);
    provenance.weights_dtype = { ...p, note };
    return setup;
  }
  // bitsandbytes' quantizer makes a missing dtype float16 (Bnb4BitHfQuantizer / Bnb8BitHfQuantizer update_torch_dtype:
  // "Overriding torch_dtype=None with torch_dtype=torch.float16"), for what it leaves unquantized.
  const bnb = bitsandbytesLoad(setup.quantization);
  provenance.weights_dtype = {
    kind: 'default',
    owner: 'hf-trainer',
    note: bnb
      ? `from_pretrained without a dtype of a bitsandbytes-quantized model loads float16 under transformers ${setup.transformers_version} ` +
        '(the quantizer overrides torch_dtype=None with torch.float16)'
      : `from_pretrained without a dtype loads float32 under transformers ${setup.transformers_version} (dtype="auto" is the default from 5.0)`,
  };
  return { ...setup, weights_dtype: bnb ? 'fp16' : 'fp32' };
}

/** Tools whose default attention is the one transformers gives the model they load (not LitGPT's or torchtune's own). */
const LOAD_THROUGH: ReadonlySet<string> = new Set(['hf-trainer', 'trl', 'axolotl', 'llamafactory', 'ms-swift']);

/**
 * The HF Trainer's and TRL's default attention, SDPA from transformers 4.36 (its release notes: SDPA by default), is the
 * eager one under an earlier release a pin gives, and under a PyTorch before 2.1.1, for which transformers reports no
 * SDPA (utils/import_utils.py is_torch_sdpa_available: "We require torch>=2.1.1 to avoid a numerical issue in SDPA with
 * non-contiguous inputs"): the attention weights of every head are materialized.
 */
function eagerBeforeTransformers436(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const p = provenance.attention;
  const transformersDefault =
    p?.kind === 'default' && (p.note?.startsWith(SDPA_DEFAULT_NOTE) || LOAD_THROUGH.has(p.owner));
  if (!transformersDefault || setup.attention !== 'sdpa') return setup;
  const note = olderThan(setup.transformers_version, 4, 36)
    ? `transformers ${setup.transformers_version} runs the eager attention (sdpa is the default from 4.36)`
    : olderThan(setup.pytorch_version, 2, 1, 1)
      ? `PyTorch ${setup.pytorch_version} runs the eager attention: transformers takes SDPA from torch 2.1.1 on ` +
        '(is_torch_sdpa_available)'
      : undefined;
  if (!note) return setup;
  provenance.attention = { kind: 'default', owner: p.owner, note };
  return { ...setup, attention: 'eager' };
}

/**
 * FastChat's and LLaVA's patches of LlamaAttention.forward (hf-python/attention-patch.ts) reach the model only while
 * transformers builds LlamaAttention itself: from 4.36 its default is LlamaSdpaAttention, whose own forward runs, and
 * the run's attention is SDPA (said at the call's provenance).
 */
function attentionPatchBefore436(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const p = provenance.attention;
  if (
    p?.kind !== 'file' ||
    !isAttentionPatch(p.key.split('.').pop() ?? '') ||
    olderThan(setup.transformers_version, 4, 36)
  )
    return setup;
  const release = setup.transformers_version ?? 'a current release';
  provenance.attention = {
    kind: 'default',
    owner: 'hf-trainer',
    note:
      `${p.key}() patches LlamaAttention.forward, which transformers ${release} does not run: ` +
      'its default from 4.36 is SDPA, with a forward of its own',
  };
  return { ...setup, attention: 'sdpa', attention_kernel: undefined };
}

/** The trainers whose training forward takes the model's use_cache as it is (not Axolotl's, LLaMA-Factory's, Unsloth's). */
const CACHE_KEEPING_TOOLS: ReadonlySet<Tool> = new Set(['hf-trainer', 'trl']);
const CACHE_CLEARING_TOOLS: ReadonlySet<Tool> = new Set(['axolotl', 'llamafactory', 'unsloth', 'ms-swift']);

/**
 * The HF Trainer and TRL before transformers 5 leave the model's use_cache on (5.0's TrainingArguments.use_cache turns
 * it off), and transformers turns it off only under its own gradient checkpointing: under torch's checkpoint_wrapper
 * (Accelerate's FSDP activation_checkpointing) the training forward builds the cache, which the checkpointed layers
 * keep for their recompute through the step (terms/previous-step.ts). A use_cache the files set stands.
 */
function trainerCacheUnderWrapper(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  tools: readonly Tool[],
  ownAlso: boolean,
): TrainingSetup {
  const wrapped = setup.checkpoint_wrapper === true && setup.gradient_checkpointing !== 'none' && !ownAlso;
  if (!wrapped || setup.use_cache || !olderThan(setup.transformers_version, 5, 0)) return setup;
  if (!tools.some((t) => CACHE_KEEPING_TOOLS.has(t)) || tools.some((t) => CACHE_CLEARING_TOOLS.has(t))) return setup;
  if (provenance.use_cache !== undefined && provenance.use_cache.kind !== 'default') return setup;
  provenance.use_cache = {
    kind: 'default',
    owner: 'hf-trainer',
    note:
      `the config's use_cache (on by default) is left on under transformers ${setup.transformers_version}: ` +
      "torch's checkpoint_wrapper is not transformers' gradient checkpointing, which alone turns it off",
  };
  return { ...setup, use_cache: true };
}

/**
 * A copy of OpenRLHF the project keeps (its setup.py names the package "openrlhf" and reads the release from the
 * version.txt beside it: Rubric-RM's rubric_rm/OpenRLHF at 0.6.1.post1), found where a dependency file would be.
 */
function vendoredOpenrlhf(
  reader: FileReader,
  starts: readonly string[],
): { version: string; file: string } | undefined {
  for (const start of starts) {
    for (const setupPy of dependencyPlaces(reader, start, 'setup.py')) {
      const text = reader.read(setupPy, 'dependency');
      // `name="openrlhf"`, or `_fetch_package_name()` returning it (0.4.x), the release read from version.txt.
      if (text === undefined || !/["']openrlhf["']/.test(text) || !/version\.txt/.test(text)) continue;
      const file = reader.join(setupPy, 'version.txt');
      const version = /^\s*(\d+\.\d+(?:\.\d+)?)/.exec(reader.read(file, 'dependency') ?? '')?.[1];
      if (version) return { version, file };
    }
  }
  return undefined;
}

/** Whether a Python script of the run wraps the model in PEFT itself (`model = get_peft_model(model, config)`). */
function wrapsPeftModel(files: PipelineResult['files']): boolean {
  // A notebook's code lines are JSON strings: the assignment starts after the opening quote.
  const call = /(?:^|")[ \t]*\w+\s*=\s*(?:peft\.)?get_peft_model\s*\(/m;
  return files.some((f) => /\.(py|ipynb)$/.test(f.file) && call.test(f.text));
}

/**
 * Whether a script of the run turns on the model's own gradient checkpointing (`model.gradient_checkpointing_enable()`
 * where it runs), which turns use_cache off in training whatever wrapper checkpoints the layers besides (small-ablation's
 * fsdp1-peft.py under an FSDP config with activation_checkpointing).
 */
function ownCheckpointing(files: PipelineResult['files']): boolean {
  return files.some((f) =>
    f.facts.facts.some(
      (x) => x.key === 'gradientCheckpointing' && x.rawKey === 'gradient_checkpointing_enable' && x.value === 'full',
    ),
  );
}

/**
 * What the TRL release does to a quantized model (trl-quantized.ts), unless the files call
 * prepare_model_for_kbit_training themselves: the fp32 upcast, and the LoRA weights cast to bf16.
 */
function trlQuantized(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  wrapped: boolean,
): TrainingSetup {
  const prep = trlQuantizedPreparation(setup);
  if (!prep) return setup;
  // A script that prepares the model itself, or wraps it in PEFT itself (get_peft_model), hands TRL a PeftModel, which
  // TRL's preparation and its casts skip (`if not isinstance(model, PeftModel)`); the cast of a release without the
  // preparation applies to any quantized model.
  const fromFiles =
    (provenance.kbit_upcast !== undefined && provenance.kbit_upcast.kind !== 'default') || (wrapped && prep.prepares);
  const casts = prep.adapterDtype !== undefined && !(fromFiles && prep.prepares);
  const lora = setup.lora && casts ? { ...setup.lora, dtype: prep.adapterDtype! } : setup.lora;
  if (fromFiles) return lora === setup.lora ? setup : { ...setup, lora };
  provenance.kbit_upcast = { kind: 'default', owner: 'trl', note: prep.note };
  const checkpointed = prep.checkpointing !== undefined && setup.gradient_checkpointing !== 'full';
  if (checkpointed) provenance.gradient_checkpointing = { kind: 'default', owner: 'trl', note: prep.checkpointing! };
  return {
    ...setup,
    lora,
    kbit_upcast: prep.kbitUpcast,
    kbit_cast_back: prep.kbitUpcast === 'norms',
    ...(checkpointed ? { gradient_checkpointing: 'full' as const } : {}),
  };
}

/** Tools whose LoRA weights are PEFT's own (no upcast or cast of the tool's on top). */
const PEFT_DTYPE_TOOLS: ReadonlySet<Tool> = new Set(['hf-trainer', 'trl', 'axolotl', 'peft', 'verl', 'xtuner']);
const OWN_DTYPE_TOOLS: ReadonlySet<Tool> = new Set([
  'llamafactory',
  'torchtune',
  'litgpt',
  'ms-swift',
  'unsloth',
  'openrlhf',
]);

/**
 * The dtype of PEFT's LoRA weights under the pinned PEFT. From 0.6.0 to 0.11.x, LoraLayer.update_layer moved them to
 * the base layer's device and dtype when that weight is floating point (huggingface/peft@v0.6.2
 * src/peft/tuners/lora/layer.py); 0.12.0 made get_peft_model upcast 16-bit adapters to fp32 (autocast_adapter_dtype),
 * and before 0.6.0 they stayed in torch's default fp32. Over a 4/8-bit base (an integer weight) they stay fp32.
 */
function peftAdapterDtype(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  tools: readonly Tool[],
): TrainingSetup {
  const lora = setup.lora;
  const v = setup.peft_version;
  if (!lora || !v || setup.quantization !== undefined || setup.weights_dtype === undefined) return setup;
  if (!tools.some((t) => PEFT_DTYPE_TOOLS.has(t)) || tools.some((t) => OWN_DTYPE_TOOLS.has(t))) return setup;
  // prepare_model_for_kbit_training on a model left unquantized casts its layers to fp32 before the adapters are made.
  const base = setup.kbit_upcast === 'all' ? 'fp32' : setup.weights_dtype;
  if (olderThan(v, 0, 6) || !olderThan(v, 0, 12) || lora.dtype === base) return setup;
  if (provenance.lora?.kind === 'default') {
    provenance.lora = {
      kind: 'default',
      owner: 'peft',
      note: `PEFT ${v} (pinned) gives LoRA weights the base layer's dtype (upcast to fp32 from 0.12)`,
    };
  }
  return { ...setup, lora: { ...lora, dtype: base } };
}

/** A warning at an RLOO trainer of a TRL release before its rewrite (trl-dated-defaults.ts oldRlooNote). */
function oldRloo(r: PipelineResult, trlVersion: string | undefined): Problem[] {
  const note = oldRlooNote(trlVersion);
  if (!note) return [];
  for (const f of r.files) {
    const fact = f.facts.facts.find((x) => x.key === 'rollout' && x.value === 'rloo');
    if (!fact) continue;
    const at = locateOffset(f.file, f.text, fact.keySpan.start, fact.keySpan.end);
    return [{ ...at, severity: 'warning', code: 'not-modeled', message: note, key: fact.rawKey }];
  }
  return [];
}

/** An info note at a git requirement of TRL that names no release (a branch, or a commit the table does not have). */
function trlGitNote(path: string, text: string, git: GitPin): Problem {
  const what = git.ref ? `commit or branch ${git.ref.slice(0, 12)}` : 'default branch';
  return {
    ...locateOffset(path, text, git.start, git.end),
    severity: 'info',
    code: 'not-static',
    message:
      `trl installed from its repository's ${what} names no release: a current one is assumed (TRL's defaults ` +
      "changed across releases: GRPO's beta and generation round, checkpointing, the loss); set trl_version",
    key: 'trl',
  };
}

/** An info note at a git requirement read as the release line its commit declares. */
function commitReadNote(path: string, text: string, pin: Pin, tool: string): Problem {
  return {
    ...locateOffset(path, text, pin.start, pin.end),
    severity: 'info',
    code: 'pinned-release',
    message:
      `${tool} installed from commit ${pin.commit!.slice(0, 8)}, whose tree declares the ${pin.version} line: read as ` +
      `${tool} ${pin.version} (a development commit may predate some of that release's changes); set ${tool}_version otherwise`,
    key: tool,
  };
}
