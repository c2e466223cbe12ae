// What is trained and how: the rollout or on-policy generation, the LoRA / IA3 / QLoRA blocks with PEFT's defaults,
// the modules adapters target (the parameter inventory), GaLore's projected shapes, LoRA on bare expert parameters.
// Impossible combinations are errors; defaults filled in and targets that match nothing are warnings. Pure.
// Docs: docs/estimate/index.md
import { type Architecture, linearModules, peftDefaultLoraTargets } from '../architecture';
import { fsdp1Sharded, generationBatch, type TrainingSetup } from '../setup';
import { galoreShapes } from '../terms/galore';
import { quantizesWholeAtLoad } from '../terms/quantization';
import { formatCount } from '../units';
import { memoDerived } from '../util/memo';
import { vllmEngineChecks } from './checks';
import type { MethodPlan, PlanningContext, ShardingPlan } from './context';
import type { ParameterTarget } from './inventory';
import type { PeftMoeConversion } from './peft-moe';
import { memoInventory } from './inventory';
import type { EstimateFailure } from './normalize';

type Rollout = NonNullable<TrainingSetup['rollout']>;

/**
 * The rollout as one round generates it: the rollout with its batch of completions, one object per rollout block and
 * batch (the advice search's candidates share their rollout block, and a copy of it was a twentieth of the search).
 */
const generations = memoDerived<Rollout, number, Rollout>();
const generationOf = (rollout: Rollout, batch: number): Rollout =>
  generations(rollout, batch, () => ({ ...rollout, batch }));

/** Online RL's rollout or GKD's on-policy rounds: what generates, how many, and the colocated engine's share. */
export function planRollout(
  ctx: PlanningContext,
  gkd: boolean,
): Pick<MethodPlan, 'rollout' | 'gkdGeneration' | 'onlineDpo' | 'generation' | 'vllmShare'> | EstimateFailure {
  const setup = ctx.setup;
  const { warnings, assumptions } = ctx.notes;
  const rollout = setup.rollout;
  // TRL GKD's on-policy rounds: with probability lmbda the student regenerates the micro-batch's completions with
  // generate() (its own KV cache, the weights gathered under ZeRO-3) before the training step; no reference scores it.
  const gkdGeneration =
    gkd && setup.distillation!.on_policy > 0
      ? {
          batch: setup.micro_batch_size,
          completion_len: Math.min(setup.distillation!.max_new_tokens, setup.seq_len - 1),
          engine: 'generate' as const,
          vllm_memory_fraction: 0.3,
          vllm_sleep: false,
          vllm_shared_weights: false,
          reference: 'none' as const,
          old_logps: false,
          gather_weights: true,
        }
      : undefined;
  // TRL OnlineDPOTrainer: each micro-step generates two completions per prompt, then trains on the pair.
  const onlineDpo = rollout?.objective === 'online-dpo';
  const generation = rollout ? generationOf(rollout, generationBatch(setup)) : gkdGeneration;
  if (onlineDpo && !ctx.lean) {
    assumptions.push({
      key: 'rollout.batch',
      value: `${2 * setup.micro_batch_size} completions per micro-step`,
      source:
        "TRL OnlineDPOTrainer: two completions for each prompt of the micro-batch (the rollout block's batch is not used)",
    });
  }
  if (onlineDpo && rollout.reference === 'none') {
    return {
      ok: false,
      errors: [
        {
          key: 'rollout.reference',
          message:
            'online DPO always scores the completions with a reference: a frozen copy of the model ' +
            "('copy') or, with PEFT, the model with its adapters disabled ('adapters-off')",
        },
      ],
    };
  }
  if (rollout && setup.preference) {
    return {
      ok: false,
      errors: [
        {
          key: 'rollout',
          message: 'rollout (online RL with generation) and preference (offline DPO-style training) cannot both be set',
        },
      ],
    };
  }
  if (rollout && rollout.completion_len >= setup.seq_len) {
    return {
      ok: false,
      errors: [
        {
          key: 'rollout.completion_len',
          message: `completion_len (${rollout.completion_len}) must be shorter than seq_len (${setup.seq_len}), which counts the prompt and the completion`,
        },
      ],
    };
  }
  // A colocated vLLM engine takes a fixed share of the GPU's memory, so the GPU must be known.
  const vllmShare =
    rollout?.engine === 'vllm-colocate' ? (ctx.gpu ? rollout.vllm_memory_fraction * ctx.gpu.memoryBytes : 0) : 0;
  if (rollout?.engine === 'vllm-colocate' && !ctx.gpu) {
    warnings.push({
      key: 'rollout.engine',
      message: `the colocated vLLM engine takes ${rollout.vllm_memory_fraction} of the GPU's memory; choose a GPU to count it`,
    });
  }
  return { rollout, gkdGeneration, onlineDpo, generation, vllmShare };
}

/** The LoRA, IA3 and quantization blocks as run: PEFT's defaults where the method asks for one without its block. */
export function adapterDefaults(ctx: PlanningContext): {
  lora: TrainingSetup['lora'];
  ia3: TrainingSetup['ia3'];
  effectiveSetup: TrainingSetup;
  peft: boolean;
  adapters: boolean;
} {
  const setup = ctx.setup;
  const { warnings, assumptions } = ctx.notes;
  const loraDefaults = (setup.method === 'lora' || setup.method === 'qlora') && !setup.lora;
  // LoraConfig's defaults: r 8, no dropout, PEFT's targets for the model type (q_proj, v_proj where it has none).
  const defaultTargets = loraDefaults
    ? [...(peftDefaultLoraTargets(setup.architecture.model_type) ?? ['q_proj', 'v_proj'])]
    : [];
  if (loraDefaults) {
    warnings.push({
      key: 'lora',
      message: `method '${setup.method}' without a lora block: PEFT defaults used (r=8 on ${defaultTargets.join(', ')})`,
    });
  }
  const lora =
    setup.lora ??
    (loraDefaults
      ? {
          r: 8,
          dropout: 0,
          target_modules: defaultTargets,
          modules_to_save: [],
          dtype: 'fp32' as const,
          use_dora: false,
        }
      : undefined);
  // Copy the setup only when defaults must be filled in (the advice search calls this thousands of times).
  let effSetup: TrainingSetup = lora === setup.lora ? setup : { ...setup, lora };
  if (setup.method === 'ia3' && !setup.ia3) {
    warnings.push({
      key: 'ia3',
      message:
        "method 'ia3' without an ia3 block: PEFT defaults used (k_proj, v_proj, down_proj; down_proj feed-forward)",
    });
    effSetup = {
      ...effSetup,
      ia3: { target_modules: ['k_proj', 'v_proj', 'down_proj'], feedforward_modules: ['down_proj'], dtype: 'fp32' },
    };
  }
  const ia3 = setup.method === 'ia3' ? effSetup.ia3 : undefined;
  if (setup.method === 'qlora' && !setup.quantization) {
    if (effSetup === setup) effSetup = { ...setup };
    warnings.push({ key: 'quantization', message: "method 'qlora' without a quantization block: 4-bit NF4 assumed" });
    effSetup.quantization = { bits: 4, type: 'nf4', double_quant: false, scope: 'all-linear' };
    assumptions.push({ key: 'quantization', value: 'nf4 4-bit', source: 'VRAM Lens default for qlora' });
  }
  if (setup.quantization && setup.method === 'full') {
    warnings.push({
      key: 'quantization',
      message: 'quantized weights cannot be fully fine-tuned; use method lora/qlora',
    });
  }
  const peft = setup.method === 'lora' || setup.method === 'qlora';
  // Adapters of any kind: a frozen base with small trainable tensors beside it.
  const adapters = peft || ia3 !== undefined;
  return { lora, ia3, effectiveSetup: effSetup, peft, adapters };
}

/** What the inventory step gives the context: the modules, the inventory, the adapters' targets, GaLore's shapes. */
type TrainingPlan = Pick<
  MethodPlan,
  'targets' | 'parameterTargets' | 'peftMoe' | 'galore' | 'paged' | 'oldTorchaoNf4'
> & {
  modules: ReturnType<typeof linearModules>;
  inventory: ReturnType<typeof memoInventory>['inv'];
};

/** The modules, the inventory and the adapters' targets, GaLore's shapes, and the checks they allow. */
export function planTraining(
  ctx: PlanningContext,
  a: Architecture,
  defaults: ReturnType<typeof adapterDefaults>,
  sharding: ShardingPlan,
): TrainingPlan {
  const setup = ctx.setup;
  const { lora, ia3, effectiveSetup: effSetup } = defaults;
  const rollout = setup.rollout;
  const offloadOpt = sharding.offloadOptimizer;
  const { warnings, assumptions } = ctx.notes;
  const mods = linearModules(a);
  const { targets: adapted, inv } = memoInventory(effSetup, a, mods);
  const { modules: targets, parameters: paramTargets, peftMoe } = adapted;
  const oldTorchaoNf4 = quantizesWholeAtLoad(effSetup);
  if (setup.galore && setup.method !== 'full') {
    warnings.push({
      key: 'galore',
      message: `GaLore projects the gradients of full-parameter training; with method '${setup.method}' it is ignored`,
    });
  }
  const galore = setup.galore && setup.method === 'full' ? galoreShapes(setup.galore, mods) : undefined;
  // (A quantized checkpoint is loaded by vLLM in its stored bits, which this check does not follow: skipped.)
  if (
    rollout &&
    rollout.engine !== 'generate' &&
    !rollout.vllm_shared_weights &&
    !setup.quantization &&
    ctx.gpu &&
    !ctx.lean
  )
    vllmEngineChecks(ctx, a, inv, rollout.engine, ctx.gpu);
  const visionTrained = inv.vision > 0 && setup.vision_tower_trained;
  if (visionTrained && !ctx.lean)
    warnings.push({
      key: 'vision_tower_trained',
      message:
        setup.method === 'full'
          ? `the vision tower (${formatCount(inv.vision)} params) trains too: its gradients ` +
            'and optimizer states are counted; its activations over the images are not (the files give no image sizes)'
          : `the vision tower (${formatCount(inv.vision)} params) trains too: its gradients, ` +
            `optimizer states and activations over the images are not modeled for a ${setup.method} run; the estimate keeps it frozen`,
    });
  if (inv.vision > 0 && !(visionTrained && setup.method === 'full') && !ctx.lean) {
    assumptions.push({
      key: 'architecture',
      value: `vision tower ${formatCount(inv.vision)} params: weights only`,
      source:
        'VRAM Lens: the vision tower is frozen (the default of LLaMA-Factory freeze_vision_tower and ms-swift freeze_vit) ' +
        'or never reached by text-only batches: no activations, gradients or optimizer state; its ' +
        "no-grad forward over a batch's images runs before the language model and is not counted; " +
        'it is loaded with the language model in its dtype',
    });
  }
  // PEFT target_parameters: LoRA on bare expert parameters (ParamWrapper), the setup's and those PEFT's MoE
  // conversion adds (peft-moe.ts).
  if (paramTargets.unmatched.length > 0) {
    const bare = mods.filter((m) => m.parameter && m.group === 'expert').map((m) => m.name);
    const linearExperts = a.moe ? ' (its experts are nn.Linear layers: target_modules reaches them)' : '';
    const missing =
      bare.length > 0
        ? `expert parameter of this ${a.family} model (${bare.join(', ')})`
        : `3-D expert parameter in this ${a.family} model${linearExperts}`;
    warnings.push({
      key: 'lora.target_parameters',
      message:
        `${paramTargets.unmatched.join(', ')}: no ${missing}; ` +
        `no adapter counted for ${paramTargets.unmatched.length > 1 ? 'them' : 'it'}`,
    });
  }
  if ((lora || ia3) && targets.size === 0 && paramTargets.targets.length === 0) {
    warnings.push({
      key: ia3 ? 'ia3.target_modules' : 'lora.target_modules',
      message: `none of the ${ia3 ? 'IA3' : 'LoRA'} target modules match ${a.family} layers (${mods
        .filter((m) => !m.parameter)
        .map((m) => m.name)
        .join(', ')})`,
    });
  }
  if (lora && paramTargets.targets.length > 0) paramWrapperChecks(ctx, lora, paramTargets.targets, peftMoe);
  const paged = setup.optimizer.startsWith('paged_') && !offloadOpt;
  return {
    modules: mods,
    inventory: inv,
    targets,
    parameterTargets: paramTargets,
    peftMoe,
    galore,
    paged,
    oldTorchaoNf4,
  };
}

/**
 * What PEFT refuses on bare parameters (peft/tuners/lora/layer.py ParamWrapper.__init__): DoRA and LoRA dropout each
 * make get_peft_model raise ValueError, and so does a fused pair of 4.x expert names given in part
 * (transformers_weight_conversion.py `_convert_peft_config_moe`), or, on PEFT 0.19, target_modules 'all-linear' on a
 * model it converts. And what fails once it runs: under FSDP1 with PEFT's wrapping the adapters of a ParamWrapper are
 * never gathered (tools/truth/FINDINGS.md §93). The estimate goes on as if the run had started: DoRA on the modules
 * only, no dropout on the parameters, the half-named pair without an adapter.
 */
function paramWrapperChecks(
  ctx: PlanningContext,
  lora: NonNullable<TrainingSetup['lora']>,
  targets: readonly ParameterTarget[],
  peftMoe: PeftMoeConversion | undefined,
): void {
  const { warnings } = ctx.notes;
  const names = targets
    .map((t) => (t.module.group === 'router' ? `${t.module.name}.weight` : t.module.name))
    .join(', ');
  const via = peftMoe ? ' (where PEFT converted target_modules for transformers 5)' : '';
  const refused = (what: string, error: string): string =>
    `PEFT refuses ${what} on bare parameters: LoRA on ${names}${via} is a lora.ParamWrapper, and get_peft_model ` +
    `raises ValueError ("lora.ParamWrapper does not work with ${error}")`;
  if (lora.use_dora)
    warnings.push({
      key: 'lora.use_dora',
      message: `${refused('DoRA', 'use_dora=True')}; estimated with DoRA on the modules only`,
    });
  if (lora.dropout > 0)
    warnings.push({
      key: 'lora.dropout',
      message: `${refused('LoRA dropout', 'lora_dropout != 0')}; set dropout: 0`,
    });
  if (peftMoe?.partial) {
    const { present, missing, into } = peftMoe.partial;
    warnings.push({
      key: 'lora.target_modules',
      message:
        `PEFT fuses ${[...present, ...missing].join(' and ')} into ${into} on transformers 5 and converts them only ` +
        `together: get_peft_model raises ValueError ("Cannot convert PEFT target(s) ${present.join(', ')} without ` +
        `also targeting ${missing.join(', ')}"); no adapter counted for ${into}`,
    });
  }
  if (fsdp1Sharded(ctx.setup))
    warnings.push({
      key: 'fsdp',
      message:
        `PEFT's lora.ParamWrapper (LoRA on ${names}${via}) reads its adapter weights outside their own forward, which ` +
        "FSDP1 never gathers when PEFT's fsdp_auto_wrap_policy (the HF Trainer's for a PEFT model) makes them units " +
        'of their own: the first forward fails on an empty storage, with use_orig_params true or false (CPU truth of ' +
        'PEFT 0.21, torch 2.13). FSDP2 (fsdp_version: 2) runs it; estimated as if it ran',
    });
  if (peftMoe?.stringSplit)
    warnings.push({
      key: 'peft_version',
      message:
        "PEFT 0.19 cannot convert target_modules 'all-linear' for transformers 5's fused experts: it splits the " +
        'string into characters and get_peft_model finds no target (huggingface/peft#3229, fixed in 0.20); ' +
        'estimated as PEFT 0.20 places the adapters',
    });
}
