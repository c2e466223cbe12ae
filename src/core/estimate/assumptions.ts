// Assumptions: the values no file, flag or setting gave, and where they came from instead (VRAM Lens's default with
// its reason, a tool's default, a catalog entry). Pushed in the order the estimate has always listed them. Pure.
// Docs: docs/estimate/index.md
import { fsdp1ShardedCheckpoints } from '../terms/checkpoint-save';
import { deepspeedDatedBy } from './deepspeed-release';
import { recomputesFrozenUnderZero3 } from '../terms/zero3-recompute-kept';
import { linearsKeepGatheredWeights, linearsSaveGatheredWeights } from '../terms/zero3-linear-kept';
import type { Architecture } from '../architecture';
import { adaptersWrapped, adapterUnitsMatter } from './fsdp-units';
import {
  fsdp1BackwardPrefetch,
  fsdp1Sharded,
  defersGradientSync,
  fsdpAccumulates,
  fsdpTailUnit,
  type Provenance,
  ROLLOUT_DEFAULT_NOTES,
  SCHEMA_DEFAULT_NOTES,
  type TrainingSetup,
} from '../setup';
import type { PlanningContext } from './context';
import { bitsandbytesKeepsInputs, checkpointReentrant } from '../terms/activations/kept-inputs';
import { bnbKeepsCodesUnderZero3 } from '../terms/zero3-bnb-kept';
import { bitsandbytes4bit } from '../terms/quantization';
import { olderThan } from '../util/version';

/**
 * A tool's default names the tool; a value VRAM Lens inferred (owner 'VRAM Lens', or the analyzers' tool 'vram-lens')
 * or left at the schema default
 * says so with its reason.
 */
function defaultSource(p: Provenance | undefined, schemaNote: string): string {
  return p?.kind !== 'default'
    ? `VRAM Lens default: ${schemaNote}`
    : p.owner === 'VRAM Lens' || p.owner === 'vram-lens'
      ? `VRAM Lens default: ${p.note ?? schemaNote}`
      : `default of ${p.owner}${p.note ? `: ${p.note}` : ''}`;
}

/** The assumptions of the setup's defaults: schema fields, distillation, a catalog's quantization, the rollout and GaLore blocks. */
export function defaultAssumptions(
  ctx: PlanningContext,
  code: Architecture['modelCode'],
  gkd: boolean,
  family: string,
): void {
  const setup = ctx.setup;
  const prov = ctx.provenance;
  const { assumptions } = ctx.notes;
  // A model one of several the files can give (a launcher's `MODEL` that the script's arguments can replace).
  if (prov.model?.kind === 'default' && typeof setup.model === 'string')
    assumptions.push({ key: 'model', value: setup.model, source: defaultSource(prov.model, '') });
  // An architecture a program builds from values it gets at run time in part (nanoGPT's vocabulary from meta.pkl).
  if (prov.architecture?.kind === 'default')
    assumptions.push({ key: 'architecture', value: family, source: defaultSource(prov.architecture, '') });
  // A release the files' keys imply (evaluation_strategy: transformers 4.45 or earlier).
  if (prov.transformers_version?.kind === 'default' && setup.transformers_version !== undefined)
    assumptions.push({
      key: 'transformers_version',
      value: setup.transformers_version,
      source: defaultSource(prov.transformers_version, ''),
    });
  // A TRL release the files' calls imply (`SFTTrainer(max_seq_length=...)`: TRL 0.12 or earlier).
  if (prov.trl_version?.kind === 'default' && setup.trl_version !== undefined)
    assumptions.push({ key: 'trl_version', value: setup.trl_version, source: defaultSource(prov.trl_version, '') });
  schemaDefaults(ctx, code, gkd, family);
  if (!ctx.lean && gkd) {
    const d = setup.distillation!;
    assumptions.push({
      key: 'distillation',
      value: `generalized JSD, beta ${d.jsd_beta}${d.on_policy > 0 ? `, on-policy rounds (lmbda ${d.on_policy}) of ${d.max_new_tokens} new tokens` : ''}`,
      source:
        'TRL GKDTrainer: the loss runs over the completion positions, counted here over all ' +
        'seq_len positions (the most a batch holds); beta, lmbda and max_new_tokens are ' +
        "GKDConfig's (0.5, 0.5, 128 unless set); an on-policy round generates the micro-batch's " +
        'completions after a prompt of seq_len minus max_new_tokens',
    });
  }

  // A preference objective a file's keys imply without naming its trainer (a TRL YAML with beta alone).
  if (!ctx.lean && setup.preference && prov.preference?.kind === 'default')
    assumptions.push({
      key: 'preference',
      value: `${setup.preference.paired ? 'paired' : 'unpaired'}, reference ${setup.preference.reference}`,
      source: defaultSource(prov.preference, ''),
    });
  // Chosen and rejected as two forwards (TRL's RewardTrainer before 0.24), from the run's TRL release.
  const passes = (prov as Readonly<Record<string, Provenance | undefined>>)['preference.separate_passes'];
  if (!ctx.lean && setup.preference?.separate_passes && passes?.kind === 'default')
    assumptions.push({
      key: 'preference.separate_passes',
      value: 'chosen and rejected as two forwards',
      source: defaultSource(passes, ''),
    });

  // A pre-quantized checkpoint's quantization comes from its catalog entry (or one derived from its name), not a file.
  const qp = prov.quantization;
  if (!ctx.lean && setup.quantization && qp?.kind === 'catalog') {
    const q = setup.quantization;
    assumptions.push({ key: 'quantization', value: `${q.type} ${q.bits}-bit`, source: qp.entry });
  }
  blockDefaults(ctx);
  bitsandbytesDefaults(ctx);
  gradientSyncDefault(ctx);
  backwardPrefetchDefault(ctx);
  limitAllGathersDefault(ctx);
  zeroGradDefault(ctx);
  origParamsDefault(ctx);
  checkpointSaveDefaults(ctx);
  fsdpVersionDefault(ctx);
  adapterUnitsDefault(ctx);
  deepspeedVersionDefault(ctx);
  zero3InitDefault(ctx);
  fourBitLoadDefault(ctx);
  longestBatchFirst(ctx);
}

/**
 * A loop that keeps its outputs and runs its longest batch first: the estimate counts that batch with no earlier
 * step's outputs, and takes the shorter batches after it, with what they keep of the one before, to stay below it.
 */
function longestBatchFirst(ctx: PlanningContext): void {
  const setup = ctx.setup;
  if (ctx.lean || !setup.longest_batch_first || setup.loop_keeps_outputs !== true) return;
  ctx.notes.assumptions.push({
    key: 'longest_batch_first',
    value: 'the batches after the first stay below it',
    source:
      "the longest batch runs first, before any step has left outputs (Lit-GPT's finetune scripts, June 2023 to " +
      'February 2024); a later batch holds what the loop kept of the one before it, as long as that one: counted ' +
      'as not reaching the first, which holds for batches padded to samples of varied lengths',
  });
}

/**
 * How a bitsandbytes 4-bit model reaches FSDP1 or ZeRO-3 (terms/bnb-load.ts), said where no file or pin gave what
 * decides it: the transformers release (unset: a current one, which loads the model whole onto each GPU after the
 * warm-up), and under transformers 4 FSDP's CPU-RAM-efficient loading (unset: on, as `accelerate launch` runs it).
 */
function fourBitLoadDefault(ctx: PlanningContext): void {
  const { setup } = ctx;
  const q = setup.quantization;
  if (ctx.lean || setup.bnb_load !== undefined || !q || !bitsandbytes4bit(q)) return;
  if (setup.fsdp === 'none' && setup.zero_stage === 3 && setup.transformers_version === undefined) {
    ctx.notes.assumptions.push({
      key: 'transformers_version',
      value: 'current (5.x)',
      source:
        "VRAM Lens default: a current release, which loads the 4-bit model whole onto each GPU after its allocator's " +
        'warm-up, so the quantization constants pin segments ZeRO-3 frees when it partitions the model; transformers 4 ' +
        "sent each quantized weight's codes to the host: set transformers_version for an earlier one",
    });
    return;
  }
  if (setup.fsdp === 'none' || setup.fsdp_version === 2 || (setup.zero_stage ?? 0) > 0) return;
  if (setup.transformers_version === undefined) {
    ctx.notes.assumptions.push({
      key: 'transformers_version',
      value: 'current (5.x)',
      source:
        "VRAM Lens default: a current release, which loads the 4-bit model whole onto each GPU after its allocator's " +
        'warm-up, so the quantization constants pin the segments FSDP1 frees when it shards it; transformers 4 under ' +
        "FSDP's CPU-RAM-efficient loading sent each quantized weight to the host: set transformers_version for an " +
        'earlier one',
    });
    return;
  }
  if (!olderThan(setup.transformers_version, 5, 0)) return;
  const p = ctx.provenance.fsdp_cpu_ram_efficient_loading;
  if (setup.fsdp_cpu_ram_efficient_loading !== undefined && (!p || p.kind !== 'default')) return;
  ctx.notes.assumptions.push({
    key: 'fsdp_cpu_ram_efficient_loading',
    value: String(setup.fsdp_cpu_ram_efficient_loading ?? true),
    source: defaultSource(
      p,
      '`accelerate launch`\'s default (--fsdp_cpu_ram_efficient_loading "true", accelerate commands/launch.py) and ' +
        'what `accelerate config` writes: transformers 4 then sends each quantized weight to the host as it loads and ' +
        "FSDP1 builds the units from there; the HF Trainer's own fsdp_config defaults to false, which loads the model " +
        'whole onto each GPU: set fsdp_cpu_ram_efficient_loading',
    ),
  });
}

/**
 * The DeepSpeed release, said where it changes the estimate and no file or pin gave it: under ZeRO-1/2 (where it moves
 * the gradient buckets) and under ZeRO-3 when frozen layers are recomputed by reentrant checkpointing (what 0.19.3 keeps
 * gathered). One before 0.18.2 where an older transformers release dates the run, else a current one
 * (estimate/deepspeed-release.ts).
 */
function deepspeedVersionDefault(ctx: PlanningContext): void {
  const { setup } = ctx;
  if (ctx.lean || setup.deepspeed_version !== undefined) return;
  const zero12 = setup.zero_stage === 1 || setup.zero_stage === 2;
  const recompute = recomputesFrozenUnderZero3(setup);
  const linears = linearsSaveGatheredWeights(setup);
  if (!zero12 && !recompute && !linears && !fp32AdaptersUnderZero3(setup)) return;
  const dated = deepspeedDatedBy(setup);
  ctx.notes.assumptions.push({
    key: 'deepspeed_version',
    value: dated
      ? 'before 0.18.2'
      : zero12
        ? 'current (0.18.7 or later)'
        : `current (0.19.${linears ? 4 : recompute ? 3 : 2} or later)`,
    source: zero12 ? zero12Source(dated) : linears ? zero3LinearSource(dated) : zero3RecomputeSource(dated, recompute),
  });
}

/** A model made outside ZeRO-Init, its layers not checkpointed: what the release does with the linears' weights. */
function zero3LinearSource(dated: string | undefined): string {
  const effect =
    "releases before 0.19.4 run torch's linear for a model made outside deepspeed.zero.Init, whose saved weights keep " +
    "every layer's gathered linear weights until its backward (deepspeedai/DeepSpeed#8189)";
  return dated
    ? `VRAM Lens default: transformers ${dated} predates DeepSpeed 0.18.2, and ${effect}: set deepspeed_version for a ` +
        'newer release'
    : `VRAM Lens default: a current release, which wraps the linears of any ZeRO-3 model; ${effect}: set ` +
        'deepspeed_version for an earlier one';
}

/**
 * Whether the model is made under ZeRO-Init, said where it changes the estimate and no file gave it: ZeRO-3 layers
 * not checkpointed under a DeepSpeed release before 0.19.4, where a model made outside it keeps its linear weights
 * gathered (terms/zero3-linear-kept.ts).
 */
function zero3InitDefault(ctx: PlanningContext): void {
  const { setup } = ctx;
  if (ctx.lean || setup.zero3_init !== undefined) return;
  if (!linearsKeepGatheredWeights({ ...setup, zero3_init: false })) return;
  ctx.notes.assumptions.push({
    key: 'zero3_init',
    value: 'true',
    source:
      'VRAM Lens default: the model is made inside deepspeed.zero.Init, as the HF Trainer loads it at stage 3 and ' +
      "Accelerate's zero3_init_flag defaults to; a model made before deepspeed.initialize keeps every layer's gathered " +
      'linear weights until its backward under DeepSpeed before 0.19.4: set zero3_init: false for such a loop',
  });
}

/** ZeRO-3 in DeepSpeed's 16-bit mode with fp32 LoRA weights: what 0.19.2 leaves of PEFT's adapters. */
function fp32AdaptersUnderZero3(setup: PlanningContext['setup']): boolean {
  const half = setup.weights_dtype === 'bf16' || setup.weights_dtype === 'fp16';
  return setup.zero_stage === 3 && half && setup.mixed_precision === 'none' && setup.lora?.dtype === 'fp32';
}

function zero12Source(dated: string | undefined): string {
  return dated
    ? `VRAM Lens default: transformers ${dated} predates DeepSpeed 0.18.2 (October and November 2025), whose ` +
        "ZeRO-1/2 backward() still made the gradient buckets before the loss's backward, where they count beside " +
        "the logits' gradients: set deepspeed_version for a newer release"
    : "VRAM Lens default: a current release, whose ZeRO-1/2 gradient buckets are made at the backward's first " +
        'gradient (the backward prologue runs from a hook, deepspeedai/DeepSpeed#7665; before 0.18.2 in backward(), ' +
        "beside the logits' gradients), and which flattens the weights on the GPU beside them, their blocks left " +
        'cached (deepspeedai/DeepSpeed#7828; before 0.18.7 through the host): set deepspeed_version for an earlier one';
}

function zero3RecomputeSource(dated: string | undefined, recompute: boolean): string {
  if (dated)
    return (
      `VRAM Lens default: transformers ${dated} predates DeepSpeed 0.18.2, and releases before 0.19.3 free the ` +
      "frozen layers' gathered parameters after a reentrant recomputation uses them: set deepspeed_version for a " +
      'newer release'
    );
  const adapters =
    "from 0.19.2 DeepSpeed's 16-bit mode leaves a ZeRO-Init model's parameters in their dtype, so PEFT's adapters, " +
    'added after the load, stay fp32 (deepspeedai/DeepSpeed#8066; earlier releases cast them)';
  return recompute
    ? 'VRAM Lens default: a current release; from 0.19.3 ZeRO-3 keeps the frozen layers recomputed by reentrant ' +
        'checkpointing gathered until the optimizer step (deepspeedai/DeepSpeed#8148; measured on an H100), every ' +
        `layer at the end of the backward, and ${adapters}: set deepspeed_version, or checkpoint_reentrant: false`
    : `VRAM Lens default: a current release; ${adapters}: set deepspeed_version for an earlier one`;
}

/** The FSDP release a tool's version implies (LitGPT's finetune_lora before OptimizerArgs), said where a file dated it. */
function fsdpVersionDefault(ctx: PlanningContext): void {
  const { setup, provenance: prov } = ctx;
  const p = prov.fsdp_version;
  if (ctx.lean || p?.kind !== 'default' || setup.fsdp === 'none' || setup.fsdp_version === undefined) return;
  ctx.notes.assumptions.push({
    key: 'fsdp_version',
    value: String(setup.fsdp_version),
    source: defaultSource(p, 'the FSDP release the tool runs'),
  });
}

/** Where FSDP1 puts the adapters (estimate/fsdp-units.ts), said where it matters and no file gave it. */
function adapterUnitsDefault(ctx: PlanningContext): void {
  const setup = ctx.setup;
  if (ctx.lean || !adapterUnitsMatter(setup) || setup.fsdp_adapters_wrapped !== undefined) return;
  const litgpt = setup.model_code === 'litgpt';
  ctx.notes.assumptions.push({
    key: 'fsdp_adapters_wrapped',
    value: String(adaptersWrapped(setup)),
    source: litgpt
      ? "LitGPT's FSDP1 runs: Lightning Fabric's FSDPStrategy(auto_wrap_policy={Block}) puts the adapters in their " +
        "Block's unit and sets use_orig_params=True, so the layers save and FSDP keeps what the frozen weights' " +
        'gradients need (finetune/lora.py to LitGPT 0.5.10; 0.5.11 shards LoRA with fully_shard: set fsdp_version: 2)'
      : "VRAM Lens default: each adapter layer an FSDP unit of its own (PEFT's fsdp_auto_wrap_policy, which the HF " +
        'Trainer sets for a PEFT model); a loop that wraps whole decoder layers with use_orig_params=True also saves ' +
        "and keeps what the frozen weights' gradients need: set fsdp_adapters_wrapped: false",
  });
}

/**
 * Whether FSDP defers the gradient sync to the last micro-batch (terms/gradients.ts unsyncedGradients): said where it
 * matters (sharded FSDP over several GPUs with accumulation) and no file gave it.
 */
function gradientSyncDefault(ctx: PlanningContext): void {
  const { setup, provenance: prov } = ctx;
  if (ctx.lean || !fsdpAccumulates(setup) || setup.gpus_per_node * setup.nodes <= 1) return;
  const p = prov.fsdp_no_sync;
  if (p && p.kind !== 'default') return;
  const defers = defersGradientSync(setup);
  ctx.notes.assumptions.push({
    key: 'fsdp_no_sync',
    value: String(defers),
    source: defaultSource(
      p,
      defers
        ? 'the micro-batches before the last keep their unsharded gradients (no_sync), as under the HF Trainer, ' +
            "Accelerate's accumulate() and Lightning; set fsdp_no_sync: false for a loop that reduces every micro-batch"
        : `every micro-batch reduces its gradients: Accelerate ${setup.accelerate_version}'s no_sync() did nothing to ` +
            'an FSDP2 module before 1.11 (huggingface/accelerate#3762); set fsdp_no_sync: true for a loop that defers them',
    ),
  });
}

/**
 * FSDP1's backward prefetch (terms/sharding-buffers.ts: under BACKWARD_PRE the last layer's unit is gathered at the
 * loss's backward): said where it matters (FULL_SHARD FSDP1 over several GPUs) and no file gave it.
 */
function backwardPrefetchDefault(ctx: PlanningContext): void {
  const { setup, provenance: prov } = ctx;
  const value = fsdp1BackwardPrefetch(setup);
  if (ctx.lean || value === undefined) return;
  const p = prov.fsdp_backward_prefetch;
  if (p && p.kind !== 'default') return;
  ctx.notes.assumptions.push({
    key: 'fsdp_backward_prefetch',
    value,
    source: defaultSource(
      p,
      "BACKWARD_PRE, FullyShardedDataParallel's default and what `accelerate config` writes: the root's pre-backward " +
        "hook gathers the last layer's unit as the loss's backward starts; Accelerate's plugin and the HF Trainer's " +
        'fsdp_config leave it off (NO_PREFETCH) when the key is absent: set fsdp_backward_prefetch: none',
    ),
  });
}

/**
 * FSDP1's rate limiter where no file sets it (analyzers/limit-all-gathers.ts: the default of what builds the units at
 * the run's release): without it the CPU runs ahead of a GPU-bound forward (terms/fsdp1-launch-lead.ts).
 */
function limitAllGathersDefault(ctx: PlanningContext): void {
  const { setup, provenance: prov } = ctx;
  const p = prov.fsdp_limit_all_gathers;
  if (ctx.lean || !fsdp1Sharded(setup) || setup.fsdp_limit_all_gathers === undefined || p?.kind !== 'default') return;
  ctx.notes.assumptions.push({
    key: 'fsdp_limit_all_gathers',
    value: String(setup.fsdp_limit_all_gathers),
    source: defaultSource(p, ''),
  });
}

/** zero_grad keeping the gradients, where the run's PyTorch release decided it (analyzers/zero-grad-release.ts). */
function zeroGradDefault(ctx: PlanningContext): void {
  const p = ctx.provenance.zero_grad_set_to_none;
  if (ctx.lean || p?.kind !== 'default') return;
  ctx.notes.assumptions.push({
    key: 'zero_grad_set_to_none',
    value: String(ctx.setup.zero_grad_set_to_none),
    source: defaultSource(p, ''),
  });
}

/**
 * FSDP1's use_orig_params, said where it matters and no file gave it: CPU offload (a GPU copy of each unit's shard,
 * terms/fsdp1-offload-shard-copy.ts) or adapters in units of their own under mixed precision (PEFT casts the layers'
 * inputs to the fp32 shard's dtype, terms/activations/stage.ts), over several GPUs.
 */
function origParamsDefault(ctx: PlanningContext): void {
  const { setup, provenance: prov } = ctx;
  const adapters = adapterUnitsMatter(setup) && adaptersWrapped(setup) && setup.mixed_precision !== 'none';
  const matters = setup.offload_params !== 'none' || adapters;
  if (ctx.lean || !fsdp1Sharded(setup) || !matters) return;
  const p = prov.fsdp_use_orig_params;
  if (setup.fsdp_use_orig_params !== undefined && (!p || p.kind !== 'default')) return;
  ctx.notes.assumptions.push({
    key: 'fsdp_use_orig_params',
    // The default a tool's file states (verl's false), else the HF Trainer's true.
    value: String(setup.fsdp_use_orig_params ?? true),
    source: defaultSource(
      p,
      "the HF Trainer's default (fsdp_config use_orig_params) and what `accelerate config` writes: with CPU offload " +
        'each unsharded unit keeps a GPU copy of its shard, and PEFT casts the inputs of adapters wrapped in units of ' +
        "their own to their fp32 shard's dtype; a FullyShardedDataParallel call's default, and Accelerate's plugin's " +
        'when the config omits the key, is false: set fsdp_use_orig_params: false',
    ),
  });
}

/**
 * What decides whether an FSDP1 sharded checkpoint keeps its shards on the GPU (terms/checkpoint-save.ts): said where
 * it matters (SHARDED_STATE_DICT over several GPUs) and no file gave it.
 */
function checkpointSaveDefaults(ctx: PlanningContext): void {
  const { setup } = ctx;
  if (ctx.lean || !fsdp1ShardedCheckpoints(setup) || setup.gpus_per_node * setup.nodes <= 1) return;
  if (setup.saves_checkpoints === undefined)
    ctx.notes.assumptions.push({
      key: 'saves_checkpoints',
      value: 'true',
      source:
        'VRAM Lens default: the HF Trainer saves checkpoints (save_strategy "steps"); a run that saves none sets ' +
        'save_strategy "no" (saves_checkpoints: false in a scenario)',
    });
  if (setup.accelerate_version === undefined)
    ctx.notes.assumptions.push({
      key: 'accelerate_version',
      value: 'current (0.31 or later)',
      source:
        'VRAM Lens default: a current release, whose FSDP plugin moves each shard of a SHARDED_STATE_DICT checkpoint to the ' +
        'CPU as it is made (huggingface/accelerate#2762, May 2024); earlier releases kept them all on the GPU until the ' +
        'checkpoint was written: set accelerate_version for them',
    });
}

/**
 * What the full cross-entropy is for this model, where it is not transformers' ForCausalLMLoss: Qwen-1's own loss on
 * 16-bit weights without autocast runs in the logits' dtype (terms/shifted-logits.ts logitsDtypeLoss).
 */
function fullLossNote(ctx: PlanningContext, family: string, note: string): string {
  const setup = ctx.setup;
  const halfNoAutocast = setup.mixed_precision === 'none' && setup.weights_dtype !== 'fp32';
  if (family !== 'qwen') return note;
  return halfNoAutocast
    ? "cross-entropy on the full logits in their 16-bit dtype (Qwen-1's own loss, modeling_qwen.py: no .float(), " +
        'and no autocast upcasts it here)'
    : "cross-entropy on the full logits, upcast to fp32 by autocast or held in fp32 (Qwen-1's own loss, modeling_qwen.py)";
}

/** The setup fields left at their schema default (or a tool's). */
function schemaDefaults(ctx: PlanningContext, code: Architecture['modelCode'], gkd: boolean, family: string): void {
  const setup = ctx.setup;
  const prov = ctx.provenance;
  const { assumptions } = ctx.notes;
  if (!ctx.lean)
    for (const [key, note] of Object.entries(SCHEMA_DEFAULT_NOTES)) {
      const k = key as keyof TrainingSetup;
      // Only under FSDP; the root unit is no longer where the embeddings are when FSDP2 has a tail unit.
      if (k === 'fsdp_shard_embeddings' && (setup.fsdp === 'none' || setup.fsdp === 'no_shard' || fsdpTailUnit(setup)))
        continue;
      if (k === 'kbit_upcast' && !setup.quantization && setup.method !== 'qlora') continue; // only matters for 4/8-bit models
      if (k === 'attention' && code) continue; // fixed by the model's code (above)
      // A sequence classifier's loss is over its num_labels logits: no vocabulary-wide loss to assume.
      if (k === 'loss' && setup.head === 'seq_cls') continue;
      // A phase offload (RL2's offload_optimizer / offload_model, verl's optimizer_offload / param_offload) is its own
      // field, said where the files set it.
      if (k === 'offload_optimizer' && setup.optimizer_states_gpu !== 'always') continue;
      if (k === 'offload_params' && setup.weights_gpu !== 'always') continue;
      const p = prov[k];
      if (p === undefined || p.kind === 'default') {
        const v = setup[k];
        if (v === undefined) continue;
        // GKD trains on the generalized JSD, not the cross-entropy: 'full' means its logits are whole (no fused kernel).
        const gkdLoss = k === 'loss' && gkd;
        assumptions.push({
          key: k,
          value: String(v),
          source: defaultSource(
            p,
            gkdLoss
              ? 'the generalized JSD over the whole logits of the student and the teacher (no Liger fused linear JSD)'
              : k === 'loss' && v === 'full'
                ? fullLossNote(ctx, family, note)
                : note,
          ),
        });
      }
    }
}

/**
 * What bitsandbytes' layers keep for backward depends on its release and on the checkpointing form
 * (terms/activations/kept-inputs.ts): both are said for a run with bitsandbytes layers when no file gives them.
 */
function bitsandbytesDefaults(ctx: PlanningContext): void {
  const { setup, provenance: prov } = ctx;
  const { assumptions } = ctx.notes;
  const q = setup.quantization;
  if (ctx.lean || !q || q.library === 'torchao' || q.type === 'gptq' || q.type === 'awq') return;
  if ((q.type === 'nf4' || q.type === 'fp4') && setup.bitsandbytes_version === undefined)
    assumptions.push({
      key: 'bitsandbytes_version',
      value: 'current (0.43.2 or later)',
      source:
        'VRAM Lens default: a current release, whose 4-bit matmul keeps no input for backward ' +
        "(bitsandbytes-foundation/bitsandbytes#1270, July 2024); earlier releases kept every 4-bit linear's input: " +
        'set bitsandbytes_version for them',
    });
  // A release a tool's default implies (LitGPT's pin at the time its config was written for).
  const release = prov.bitsandbytes_version;
  if (setup.bitsandbytes_version !== undefined && release?.kind === 'default')
    assumptions.push({
      key: 'bitsandbytes_version',
      value: setup.bitsandbytes_version,
      source: defaultSource(release, ''),
    });
  const p = prov.checkpoint_reentrant;
  if (setup.gradient_checkpointing === 'none' || (p && p.kind !== 'default')) return;
  // Where the form decides what bitsandbytes' 4-bit matmuls keep: their inputs (before 0.43.2), or under ZeRO-3 their
  // gathered weights (terms/zero3-bnb-kept.ts, asked of the setup as if non-reentrant).
  const keepsInputs = bitsandbytesKeepsInputs(setup);
  const keepsCodes = bnbKeepsCodesUnderZero3({ ...setup, checkpoint_reentrant: false });
  if (!keepsInputs && !keepsCodes) return;
  const reentrant = checkpointReentrant(setup);
  assumptions.push({
    key: 'checkpoint_reentrant',
    value: String(reentrant),
    source: defaultSource(
      p,
      `transformers' gradient_checkpointing_enable default (use_reentrant=True before 5.0, False since): ` +
        (keepsInputs
          ? "non-reentrant checkpointing keeps bitsandbytes' kept inputs of every layer"
          : 'non-reentrant checkpointing keeps every gathered 4-bit weight under ZeRO-3 until the backward ends'),
    ),
  });
}

/** The fields of the rollout and galore blocks that no file wrote, or that a tool's default filled in. */
function blockDefaults(ctx: PlanningContext): void {
  const setup = ctx.setup;
  const prov = ctx.provenance;
  const { assumptions } = ctx.notes;
  const blockAssumption = (block: string, field: string, value: unknown, note: string): void => {
    const p = (prov as Readonly<Record<string, Provenance | undefined>>)[`${block}.${field}`];
    if (p === undefined || p.kind === 'default') {
      assumptions.push({ key: `${block}.${field}`, value: String(value), source: defaultSource(p, note) });
    }
  };
  // LoRA targets a scenario left to PEFT's per-model default (analyzers/resolve/scenarios.ts), said with their source.
  const targetsFrom = (prov as Readonly<Record<string, Provenance | undefined>>)['lora.target_modules'];
  if (!ctx.lean && setup.lora && targetsFrom?.kind === 'default')
    blockAssumption('lora', 'target_modules', [setup.lora.target_modules].flat().join(', '), targetsFrom.note ?? '');
  if (!ctx.lean && setup.rollout) {
    const r = setup.rollout;
    for (const [f, note] of Object.entries(ROLLOUT_DEFAULT_NOTES) as Array<[keyof typeof r, string]>) {
      if (
        (f === 'vllm_memory_fraction' ||
          f === 'vllm_sleep' ||
          f === 'vllm_shared_weights' ||
          f === 'vllm_tensor_parallel') &&
        r.engine !== 'vllm-colocate'
      )
        continue;
      if (f === 'gather_weights' && setup.zero_stage !== 3) continue;
      // The share is of the GPU's total but in a project's vendored verl 0.1, which its files say (collect/vendored-verl.ts).
      if (f === 'vllm_memory_of') continue;
      // TRL's log-probabilities are the rollout's own way unless a tool says otherwise (verl, with its source).
      if (
        f === 'logps' &&
        r.logps === 'trl' &&
        (prov as Readonly<Record<string, unknown>>)['rollout.logps'] === undefined
      )
        continue;
      // Online DPO generates two completions per prompt of each micro-batch and takes no old policy's log-probabilities.
      if ((f === 'batch' || f === 'old_logps') && r.objective === 'online-dpo') continue;
      if (f === 'vllm_server' && (r.engine !== 'vllm-server' || r.vllm_server)) continue;
      blockAssumption(
        'rollout',
        f,
        f === 'reward_models'
          ? r.reward_models.length > 0
            ? r.reward_models.map((m) => m.model).join(', ')
            : 'none'
          : f === 'vllm_server'
            ? 'tensor_parallel 1, memory_fraction 0.9'
            : r[f],
        note,
      );
    }
  }
  if (!ctx.lean && setup.galore) {
    blockAssumption('galore', 'rank', setup.galore.rank, "rank 128 (transformers' GaLore default)");
    blockAssumption('galore', 'target_modules', setup.galore.target_modules, 'every linear layer');
  }
}
