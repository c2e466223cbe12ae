// Precision: the weights' dtype, mixed precision and the fp32 master copy, from DeepSpeed's bf16/fp16 blocks (16-bit
// model with an fp32 master copy), the HF and Accelerate switches (autocast over the loaded weights), LLaMA-Factory's
// pure_bf16 and torchtune's dtype (pure), and FP8 (estimated as bf16 autocast). A rule of FIELD_RULES; pure.
import type { Provenance } from '../../core';
import { toolDefault } from '../defaults';
import { msg, type FactValue } from '../facts';
import { baseName, bool, fileProv, type ResolveContext } from './context';
import { trainerIntegration } from './deepspeed-trainer';
import { loadsFromPretrained } from './model';
import type { WinningFact } from './types';

/** The 16-bit dtype the files switch on (bf16, fp16, Accelerate's mixed_precision; FP8 as bf16), and the fact that does. */
function halfSwitch(ctx: ResolveContext): { half?: 'bf16' | 'fp16'; fact?: WinningFact; fp8: boolean } {
  const { decided } = ctx;
  const bf16 = decided.bf16 ? bool(decided.bf16.fact.value as FactValue) : undefined;
  const fp16 = decided.fp16 ? bool(decided.fp16.fact.value as FactValue) : undefined;
  const mp = decided.mixedPrecision?.fact.value;
  // FP8 training (Accelerate mixed_precision fp8, Axolotl and LLaMA-Factory fp8): Accelerate autocasts to bf16 around
  // the FP8 linears, and torchao's Float8Linear keeps its bf16 input and weight for backward
  // (torchao/float8/float8_linear.py matmul_with_hp_or_float8_args: save_for_backward(input_hp, weight_hp_t)); the FP8
  // casts are per-layer transients. Memory is estimated as bf16 autocast, and the file says so at the key.
  const fp8 = mp === 'fp8' && !bf16 && !fp16;
  const half = bf16 ? 'bf16' : fp16 ? 'fp16' : mp === 'bf16' || mp === 'fp16' ? mp : fp8 ? 'bf16' : undefined;
  const fact = bf16 ? decided.bf16 : fp16 ? decided.fp16 : decided.mixedPrecision;
  // A switch left open takes the tool's default; `fp16: false` beside Axolotl's `bf16: auto` leaves bf16 to it.
  if (bf16 === undefined && fp16 !== true && mp === undefined && !half) {
    const d = toolDefault(ctx.tools, 'mixed_precision');
    if (d && (d.value === 'bf16' || (d.value === 'fp16' && fp16 === undefined))) {
      ctx.prov.mixed_precision = { kind: 'default', owner: d.tool, note: d.note + unknownSwitchNote(ctx) };
      return { half: d.value, fp8 };
    }
  }
  return { half, fact, fp8 };
}

/**
 * Where the files set bf16 or fp16 but not statically (`args.bf16 = True` under `if capability >= 8:`), what the
 * assumption of mixed precision adds: that value, and that it is not known. Empty when none is.
 */
function unknownSwitchNote(ctx: ResolveContext): string {
  const w = unsettledSwitch(ctx);
  // Axolotl's `bf16: auto` is what its default's note explains (bf16 on Ampere and newer).
  return w && w.fact.rawValue.trim().toLowerCase() !== 'auto'
    ? `; the file's ${w.fact.rawKey} is not known statically (${w.fact.rawValue} at ${baseName(w.file)}:${w.location.line})`
    : '';
}

/** The first bf16 / fp16 / mixed-precision switch the files set but not statically, other than one the Trainer fills. */
function unsettledSwitch(ctx: ResolveContext): WinningFact | undefined {
  const { bf16, fp16, mixedPrecision } = ctx.unknownOnly;
  return [bf16, fp16, mixedPrecision].find((w) => w !== undefined && !trainerFilledAuto(ctx, w));
}

/**
 * Whether the switch is a DeepSpeed config's "auto" that the HF Trainer fills from its own bf16 / fp16 arguments
 * (transformers integrations/deepspeed.py HfTrainerDeepSpeedConfig.trainer_config_process: fill_match of
 * "bf16.enabled" with `args.bf16 or args.bf16_full_eval`, of "fp16.enabled" with fp16 under amp): what the Trainer's
 * switches say, off where they are not set.
 */
function trainerFilledAuto(ctx: ResolveContext, w: WinningFact): boolean {
  const word = w.fact.rawValue
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();
  if (word !== 'auto' || !trainerIntegration(ctx)) return false;
  return ctx.files.some((f) => f.file === w.file && f.facts.format === 'deepspeed-json');
}

/** How the provenance of mixed_precision begins where DeepSpeed's config turns on neither bf16 nor fp16. */
const DEEPSPEED_WITHOUT_HALF = "DeepSpeed's config enables neither bf16 nor fp16";

/** Whether the run's DeepSpeed engine runs without its 16-bit mode (the provenance deepspeedWithoutHalf gives). */
export function deepspeedRunsWithoutHalf(p: Provenance | undefined): boolean {
  return p?.kind === 'default' && p.owner === 'deepspeed' && p.note?.startsWith(DEEPSPEED_WITHOUT_HALF) === true;
}

/**
 * DeepSpeed with neither bf16 nor fp16 casts nothing (engine.py _configure_distributed_model) and runs no autocast:
 * the model trains as loaded, or as ZeRO-Init makes it (zero3-init.ts zeroInitWithoutHalf). Said with the "auto" the
 * HF Trainer fills, where one is.
 */
function deepspeedWithoutHalf(ctx: ResolveContext): void {
  const { bf16, fp16 } = ctx.unknownOnly;
  const auto = [bf16, fp16].find((w) => w !== undefined && trainerFilledAuto(ctx, w));
  const filled = auto
    ? ` (the HF Trainer fills ${auto.fact.rawKey} "auto" at ${baseName(auto.file)}:${auto.location.line} from its ` +
      'bf16 / fp16 arguments, off here: integrations/deepspeed.py trainer_config_process)'
    : '';
  ctx.setup.mixed_precision = 'none';
  ctx.prov.mixed_precision = {
    kind: 'default',
    owner: 'deepspeed',
    note: `${DEEPSPEED_WITHOUT_HALF}${filled}: the engine casts nothing and runs no autocast`,
  };
}

/**
 * The DeepSpeed config the script hands DeepSpeed, where the files give it only as a value made at run time (a dict a
 * project function returns: DeepSpeed-Chat's `get_train_ds_config(offload=..., stage=...)`, copied by BELLE and many
 * others), and no config file is read: its bf16 / fp16 blocks are not known.
 */
function unreadDeepspeedConfig(ctx: ResolveContext): WinningFact | undefined {
  if (ctx.decided.deepspeedConfig || ctx.files.some((f) => f.facts.format === 'deepspeed-json')) return undefined;
  return ctx.unknownOnly.deepspeedConfig;
}

/**
 * DeepSpeed's 16-bit engine for a config made at run time: a DeepSpeed run whose config turns on neither bf16 nor fp16
 * trains fp32 weights with fp32 states, which the configs such code builds do not (DeepSpeed-Chat's turns fp16 on, or
 * bf16 by its --dtype). Said with the place of the config, as an assumption a file or setting overrides.
 */
function deepspeedHalfOfUnreadConfig(ctx: ResolveContext, built: WinningFact): void {
  ctx.prov.mixed_precision = {
    kind: 'default',
    owner: 'VRAM Lens',
    note:
      `DeepSpeed's config is made at run time (${baseName(built.file)}:${built.location.line}), its bf16 / fp16 ` +
      "blocks not read: DeepSpeed's 16-bit engine is assumed (16-bit weights, an fp32 master copy and fp32 optimizer " +
      'states; without either block the weights and states stay fp32): set mixed_precision and weights_dtype',
  };
  deepspeedHalf(ctx, 'bf16', undefined);
}

/** FP8 matmuls are estimated as bf16 mixed precision, said at the key; torchao's float8 all-gather under FSDP2 is read. */
function fp8Training(ctx: ResolveContext): void {
  const { decided, setup, prov, problems } = ctx;
  const w = decided.mixedPrecision;
  if (w?.fact.value !== 'fp8') return;
  problems.push({
    ...w.location,
    severity: 'warning',
    code: 'not-modeled',
    key: w.fact.rawKey,
    ...msg(
      '{0}: FP8 matmuls are estimated as bf16 mixed precision ' +
        "(torchao Float8Linear keeps bf16 inputs for backward; Transformer Engine's smaller FP8 copies are not modeled)",
      w.fact.rawKey,
    ),
  });
  // torchao's float8 all-gather under FSDP2: the linear weights travel and wait in fp8.
  const ag = decided.fp8AllGather;
  if (ag && ag.fact.value === true) {
    setup.fp8_all_gather = true;
    prov.fp8_all_gather = fileProv(ag);
  }
}

/**
 * DeepSpeed casts every floating-point parameter to its 16-bit dtype (engine.py _cast_module_mixed_precision; under
 * ZeRO-Init as they are made), adapters included, and its optimizer steps an fp32 copy; Accelerate runs no autocast
 * under DeepSpeed (accelerator.py: native_amp stays off for DistributedType.DEEPSPEED).
 */
function deepspeedHalf(ctx: ResolveContext, half: 'bf16' | 'fp16', fact: WinningFact | undefined): void {
  const { setup, prov } = ctx;
  setup.weights_dtype = half;
  setup.master_weights = true;
  setup.mixed_precision = 'none';
  for (const adapter of [setup.lora, setup.ia3] as Array<Record<string, unknown> | undefined>)
    if (adapter) adapter.dtype = half;
  const p: Provenance = fact ? fileProv(fact) : (prov.mixed_precision ?? { kind: 'default', owner: 'deepspeed' });
  prov.weights_dtype = prov.master_weights = prov.mixed_precision = p;
}

/**
 * Autocast over the loaded weights. Axolotl and LLaMA-Factory load the model in the compute dtype. Elsewhere the files
 * give no dtype for the base (its load is not in them, or gives none): most LoRA recipes load a 16-bit base, which VRAM
 * Lens takes and says. LitGPT's precision decides it (its default bf16-mixed keeps fp32 weights under autocast: the
 * tool's default). verl loads every trained model in fsdp_config.model_dtype, fp32 by default (its tool default).
 */
function autocastHalf(ctx: ResolveContext, half: 'bf16' | 'fp16', fact: WinningFact | undefined): void {
  const { setup, prov, tools, method } = ctx;
  setup.mixed_precision = half;
  if (fact) prov.mixed_precision = fileProv(fact);
  const first = tools[0];
  const ownLoad = first === 'axolotl' || first === 'llamafactory';
  const loraBase = first !== 'litgpt' && first !== 'verl' && (ownLoad || method === 'qlora' || method === 'lora');
  if (setup.weights_dtype !== undefined || !loraBase) return;
  // A load the files show without a dtype is the checkpoint's dtype under transformers 5 (dtype="auto", model.ts) and
  // float32 under a 4.x pin (pinned-versions.ts): what the load does, not the recipes' habit.
  if (!ownLoad && method === 'lora' && loadsWithoutDtype(ctx)) return;
  if (first === 'llamafactory' && llamafactoryUpcasts(ctx)) return;
  setup.weights_dtype = half;
  prov.weights_dtype = ownLoad
    ? { kind: 'default', owner: first, note: `the base model is loaded in ${half} when ${half} training is on` }
    : {
        kind: 'default',
        owner: 'VRAM Lens',
        note:
          `these files give no dtype for the base model: with ${half} training it is taken to be loaded in ${half}, ` +
          `as most LoRA recipes do; loaded in fp32 (as PEFT's examples/sft loads it) its weights take twice the ` +
          `memory: set torch_dtype (dtype) or weights_dtype`,
      };
}

/**
 * LLaMA-Factory's full fine-tuning under autocast: init_adapter casts the trainable parameters to float32 unless
 * pure_bf16, BAdam, ZeRO-3 or FSDP (hiyouga/LLaMA-Factory@01d87b8 src/llamafactory/model/adapter.py: "Upcasting
 * trainable params to float32"), so the model loaded in the compute dtype trains fp32 weights. True where it sets that.
 */
function llamafactoryUpcasts(ctx: ResolveContext): boolean {
  const { decided, setup, prov, method } = ctx;
  const fsdp = decided.fsdp?.fact.value;
  const sharded = fsdp !== undefined && fsdp !== 'none';
  if (method !== 'full' || decided.badam || sharded) return false;
  setup.weights_dtype = 'fp32';
  prov.weights_dtype = {
    kind: 'default',
    owner: 'llamafactory',
    note:
      'init_adapter casts the trainable parameters of a full fine-tune to float32 unless pure_bf16, use_badam, ' +
      'DeepSpeed ZeRO-3 or FSDP (src/llamafactory/model/adapter.py): fp32 weights under autocast',
  };
  return true;
}

/** Whether the model is a from_pretrained (or a TRL trainer's model id) the files show, given no dtype at all. */
function loadsWithoutDtype(ctx: ResolveContext): boolean {
  const unknown = ctx.unknownOnly.weightsDtype?.fact;
  // `torch_dtype=model_args.torch_dtype` of an option that defaults to None and no launch line sets (princeton-nlp/
  // LESS): from_pretrained is given None, its own default.
  const noneByDefault = unknown?.fromArg?.default === 'None';
  if (!ctx.decided.model || ctx.decided.weightsDtype || (unknown && !noneByDefault)) return false;
  return loadsFromPretrained(ctx);
}

/**
 * Precision: DeepSpeed bf16/fp16 blocks run the model in 16 bits, adapters included, with an fp32 master copy; HF/Accelerate
 * bf16/fp16 switches are autocast over the loaded weights; LLaMA-Factory pure_bf16 and torchtune dtype are pure.
 */
export function resolvePrecision(ctx: ResolveContext): void {
  const { files, decided, tools, setup, prov } = ctx;
  // `deepspeed=null` on a LLaMA-Factory line (shell/launchers.ts: zero stage 0 from the value null) turns DeepSpeed off,
  // though its YAML's DeepSpeed config is still among the files: the trainer then upcasts what trains in place.
  const stage = decided.zeroStage;
  const turnedOff = stage?.fact.value === 0 && /^(null|~)$/i.test(String(stage.fact.rawValue).trim());
  const deepspeedOn = !turnedOff && (stage !== undefined || files.some((f) => f.facts.format === 'deepspeed-json'));
  const mp = decided.mixedPrecision?.fact.value;
  fp8Training(ctx);
  const { half, fact } = halfSwitch(ctx);
  const pure = decided.pureBf16 && decided.pureBf16.fact.value === true;
  ctx.fromFact('weights_dtype', 'weightsDtype');
  if (pure) {
    setup.weights_dtype = 'bf16';
    setup.mixed_precision = 'none';
    prov.weights_dtype = prov.mixed_precision = {
      kind: 'file',
      file: decided.pureBf16!.file,
      line: decided.pureBf16!.location.line,
      key: decided.pureBf16!.fact.rawKey,
    };
  } else if (half && deepspeedOn) deepspeedHalf(ctx, half, fact);
  else if (half) autocastHalf(ctx, half, fact);
  else if (mp === 'none' && decided.mixedPrecision) {
    // A file that says "no autocast" (Accelerate mixed_precision: no, LitGPT's *-true precisions).
    setup.mixed_precision = 'none';
    prov.mixed_precision = fileProv(decided.mixedPrecision);
  } else if (tools[0] === 'torchtune' && setup.weights_dtype !== undefined) {
    setup.mixed_precision = 'none';
  }
  const unknownSwitch = setup.mixed_precision === undefined ? unknownSwitchNote(ctx) : '';
  const settled = !unsettledSwitch(ctx);
  if (deepspeedOn && !half && !pure && mp === undefined && setup.mixed_precision === undefined && settled) {
    const built = unreadDeepspeedConfig(ctx);
    if (built) deepspeedHalfOfUnreadConfig(ctx, built);
    else deepspeedWithoutHalf(ctx);
  }
  if (unknownSwitch) {
    setup.mixed_precision = 'none';
    prov.mixed_precision = { kind: 'default', owner: 'VRAM Lens', note: `no autocast${unknownSwitch}` };
  }
  if (setup.weights_dtype === undefined) ctx.fromDefault('weights_dtype', 'weights_dtype');
  // Adapters in the model dtype (torchtune) follow the resolved weights dtype.
  const loraSetup = setup.lora as Record<string, unknown> | undefined;
  if (loraSetup && loraSetup.dtype === 'model') loraSetup.dtype = setup.weights_dtype ?? 'fp32';
  if (setup.weights_dtype === 'bf16' && deepspeedOn && setup.master_weights === undefined && zeroKeepsFp32Copy(ctx))
    setup.master_weights = true;
}

/**
 * Without DeepSpeed's bf16 / fp16 blocks, a model loaded in bf16 keeps an fp32 copy only under ZeRO stages 1-3: their
 * optimizers step fp32 partitions of the weights (stage_1_and_2.py single_partition_of_fp32_groups, stage3.py
 * fp32_partitioned_groups_flat). At stage 0 (a DeepSpeed config without zero_optimization included) the engine wraps
 * no optimizer and steps the weights as loaded (deepspeedai/DeepSpeed@edaa722 engine.py _do_optimizer_sanity_check:
 * fp32 model and gradient dtypes give no wrapper; _configure_distributed_model casts nothing without bf16 / fp16).
 */
function zeroKeepsFp32Copy(ctx: ResolveContext): boolean {
  const stage = ctx.decided.zeroStage?.fact.value;
  if (stage === undefined) return false;
  const n = typeof stage === 'number' ? stage : Number(stage);
  return !(Number.isFinite(n) && n === 0);
}
