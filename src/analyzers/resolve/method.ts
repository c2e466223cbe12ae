// The model reference, the training method and what it brings: IA3 and LoRA settings (the files', else the tool's
// defaults), the 4/8-bit quantization block, and the fp32 upcast of a quantized model. Rules of FIELD_RULES; pure.
import { toolDefault } from '../defaults';
import { msg, type CanonicalKey, type FactValue, type Unknown } from '../facts';
import { baseName, fileProv, num, type ResolveContext } from './context';
import type { WinningFact } from './types';

/** The 4/8-bit load the files ask for (load_in_4bit, quantization_bit, ...), as a number of bits. */
function quantBitsOf(decided: ResolveContext['decided']): number | undefined {
  return decided.quantBits ? num(decided.quantBits.fact.value as FactValue) : undefined;
}

/** The model reference: the file's, unless --model or vramLens.model gives one. */
export function resolveModelRef(ctx: ResolveContext): void {
  const { overrides, setup, prov } = ctx;
  ctx.fromFact('model', 'model', (v) => (typeof v === 'string' ? v : undefined));
  if (overrides.model) {
    setup.model = overrides.model;
    prov.model =
      overrides.origin === 'setting'
        ? { kind: 'setting', setting: 'vramLens.model' }
        : { kind: 'flag', flag: '--model' };
  }
}

/**
 * The training method: the files', else LoRA (QLoRA over a 4-bit load) when LoRA keys are set; fixes ctx.method. A
 * tool's default alpha stated where the tool would take it (EasyR1's worker.actor.model.lora.alpha 64 beside its rank
 * 0, which leaves LoRA off) sets no LoRA by itself.
 */
export function resolveMethod(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  ctx.fromFact('method', 'method');
  // An arguments dataclass's LoRA fields that only default (FuseLLM's lora_r = 64 beside `--training_mode full`, its
  // LoraConfig in a function only the qlora mode calls) apply no adapter by themselves: the script's LoraConfig says
  // LoRA (a 'method' fact), and so does a launch line's or a config's LoRA key, or a PEFT config the script hands a
  // trainer that is not read (`peft_config=peft_config` from a module not among the files).
  const peftUnread = ctx.unknownOnly.method !== undefined;
  const set = (w: WinningFact | undefined): WinningFact | undefined =>
    w?.fact.origin === 'dataclass-default' && !peftUnread ? undefined : w;
  const alpha = decided.loraAlpha?.fact.origin === 'call-default' ? undefined : set(decided.loraAlpha);
  const hasLora = set(decided.loraR) || set(decided.loraTargets) || alpha;
  const quantBits = quantBitsOf(decided);
  if (setup.method === undefined && hasLora) {
    setup.method = quantBits === 4 ? 'qlora' : 'lora';
    const w = (set(decided.loraR) ?? set(decided.loraTargets) ?? alpha)!;
    prov.method = fileProv(w);
  }
  // A tool whose own default method is LoRA (LLaMA-Factory's finetuning_type): QLoRA over a 4-bit load.
  const d = setup.method === undefined ? toolDefault(ctx.tools, 'method') : undefined;
  if (d) {
    setup.method = d.value === 'lora' && quantBits === 4 ? 'qlora' : d.value;
    prov.method = { kind: 'default', owner: d.tool, note: d.note };
  }
  ctx.method = (setup.method as string | undefined) ?? 'full';
}

/** IA3's targets: the files', else PEFT's defaults for llama-family models. */
export function resolveIa3(ctx: ResolveContext): void {
  const { decided, setup, prov, method } = ctx;
  if (method === 'ia3') {
    // PEFT's IA3 defaults for llama-family models (TRANSFORMERS_MODELS_TO_IA3_TARGET_MODULES_MAPPING and the
    // feed-forward mapping in peft/utils/constants.py).
    const targets = decided.ia3Targets?.fact.value;
    const ff = decided.ia3Feedforward?.fact.value;
    setup.ia3 = {
      target_modules: Array.isArray(targets) ? targets : ['k_proj', 'v_proj', 'down_proj'],
      feedforward_modules: Array.isArray(ff) ? ff : ['down_proj'],
      dtype: 'fp32',
    };
    const w = decided.ia3Targets ?? decided.method;
    prov.ia3 = w ? fileProv(w) : { kind: 'default', owner: 'peft', note: 'IA3Config defaults for llama-family models' };
  }
}

/** LoRA's rank, alpha, dropout and targets: the files', else the first tool's defaults; its dtype is the tool's. */
export function resolveLora(ctx: ResolveContext): void {
  const { decided, tools, setup, prov, method } = ctx;
  if (method === 'lora' || method === 'qlora') {
    const lora: Record<string, unknown> = {};
    const loraField = (name: string, key: CanonicalKey, def: Parameters<typeof toolDefault>[1]): void => {
      const w = decided[key];
      if (w) {
        lora[name] = w.fact.value;
      } else {
        const d = toolDefault(tools, def);
        if (d) lora[name] = d.value;
        if (d) openLoraField(ctx, key, d);
      }
    };
    loraField('r', 'loraR', 'lora.r');
    loraField('alpha', 'loraAlpha', 'lora.alpha');
    loraField('dropout', 'loraDropout', 'lora.dropout');
    loraField('target_modules', 'loraTargets', 'lora.target_modules');
    if (decided.loraModulesToSave) {
      lora.modules_to_save = decided.loraModulesToSave.fact.value;
      // The copies' dtype where the tool upcasts its trainable parameters (not under LLaMA-Factory's pure_bf16).
      const saved = toolDefault(tools, 'lora.saved_dtype');
      if (saved && decided.pureBf16?.fact.value !== true) lora.saved_dtype = saved.value;
    }
    // An option whose default is None (`--modules_to_save`, nargs) saves nothing unless the launch passes it.
    const openSaved = decided.loraModulesToSave ? undefined : ctx.unknownOnly.loraModulesToSave;
    if (openSaved && openSaved.fact.fromArg?.default !== 'None') {
      // Qwen-1's finetune.py: `modules_to_save` is None for a chat model and ["wte", "lm_head"] for a base model, on
      // an `if` whose test reads the model name at run time. Not counted, and said where the file sets it.
      ctx.problems.push({
        ...openSaved.location,
        severity: 'warning',
        code: 'not-static',
        ...msg(
          '{0} is not known statically ({1}): the trained copies of the modules it would name are not counted',
          openSaved.fact.rawKey,
          (openSaved.fact.value as Unknown).unknown,
        ),
        key: openSaved.fact.rawKey,
      });
    }
    if (decided.loraTargetParameters) lora.target_parameters = decided.loraTargetParameters.fact.value;
    if (decided.loraDora?.fact.value === true) lora.use_dora = true;
    const dt = toolDefault(tools, 'lora.dtype');
    lora.dtype = dt?.value === 'model' ? 'model' : dt?.value;
    setup.lora = lora;
    const w = decided.loraR ?? decided.loraTargets;
    prov.lora = w ? fileProv(w) : { kind: 'default', owner: dt?.tool ?? 'peft', note: 'LoRA settings of the tool' };
  }
}

/**
 * A LoRA setting the file writes with a value not known statically (`r=config.lora.r` of a config object built at run
 * time): the tool's default stands in, said at the file's value.
 */
function openLoraField(ctx: ResolveContext, key: CanonicalKey, d: NonNullable<ReturnType<typeof toolDefault>>): void {
  const open = ctx.unknownOnly[key];
  if (!open) return;
  const reason = (open.fact.value as Unknown).unknown;
  ctx.problems.push({
    ...open.location,
    severity: 'warning',
    code: 'not-static',
    ...msg('{0} is not known statically ({1}): the default {2} is assumed', open.fact.rawKey, reason, String(d.value)),
    key: open.fact.rawKey,
  });
}

/** A 4/8-bit load: the quantization block with the tool's type and double quantization; full fine-tuning becomes QLoRA. */
export function resolveQuantization(ctx: ResolveContext): void {
  const { decided, tools, setup, prov, method } = ctx;
  const quantBits = quantBitsOf(decided);
  if (quantBits === 4 || quantBits === 8) {
    const q: Record<string, unknown> = { bits: quantBits };
    // bnb_4bit_quant_type is read by bitsandbytes' 4-bit layers only: an 8-bit load beside `bnb_4bit_quant_type="nf4"`
    // (one BitsAndBytesConfig for both, `load_in_8bit=num_bits == 8`) is LLM.int8.
    const written = decided.quantType?.fact.value;
    const int8 = quantBits === 8 && (written === undefined || written === 'nf4' || written === 'fp4');
    q.type = int8 ? 'int8' : (written ?? toolDefault(tools, 'quantization.type')?.value ?? 'nf4');
    q.double_quant = decided.doubleQuant?.fact.value ?? toolDefault(tools, 'quantization.double_quant')?.value ?? false;
    // torchtune's qlora builders quantize every linear of the blocks: LoRA-wrapped ones and, when quantize_base is set,
    // the others as FrozenNF4Linear (torchtune/models/*/_component_builders.py); the output head stays 16-bit.
    if (tools[0] === 'torchtune') {
      q.scope = 'all-linear';
      q.library = 'torchao';
    }
    // LitGPT quantizes through Lightning Fabric's BitsandbytesPrecision: every nn.Linear, the output head included,
    // quantized from fp16 (lightning/fabric/plugins/precision/bitsandbytes.py module_init_context, _Linear4bit.quantize).
    if (tools[0] === 'litgpt') {
      q.head = true;
      q.dequant_dtype = 'fp16';
    }
    if (decided.quantizeExperts?.fact.value === true) q.experts = true;
    setup.quantization = q;
    const w = decided.quantBits!;
    prov.quantization = fileProv(w);
    if (method === 'full') setup.method = 'qlora';
  }
}

/**
 * prepare_model_for_kbit_training under a test that the model is quantized (`if quantization_config:`), on a quantized
 * model, runs: with use_gradient_checkpointing left True it turns checkpointing on whatever the training arguments say.
 */
export function resolveKbitCheckpointing(ctx: ResolveContext): void {
  const f = ctx.decided.kbitUpcastWhenQuantized;
  if (!f || f.fact.value !== 'all-checkpointed' || ctx.setup.quantization === undefined) return;
  if (ctx.setup.gradient_checkpointing === 'full') return;
  ctx.setup.gradient_checkpointing = 'full';
  ctx.prov.gradient_checkpointing = fileProv(f);
}

/** prepare_model_for_kbit_training under a test that the model is quantized, on a quantized model: it runs. */
function fileKbitUpcast(ctx: ResolveContext, f: NonNullable<ResolveContext['decided']['kbitUpcast']>): true {
  ctx.setup.kbit_upcast = 'all';
  ctx.prov.kbit_upcast = fileProv(f);
  return true;
}

/**
 * Which parameters a 4/8-bit model keeps in fp32 (kbit_upcast): the files' (a prepare_model_for_kbit_training call,
 * then qlora.py's loop that puts the embeddings and head back in bf16), or Axolotl's loader's. A TRL run's comes with
 * its release, once the pins are read (pipeline.ts trlQuantized).
 */
export function resolveKbitUpcast(ctx: ResolveContext): void {
  const { tools, setup, prov, decided } = ctx;
  const whenQuantized = decided.kbitUpcastWhenQuantized;
  const fromFiles =
    ctx.fromFact('kbit_upcast', 'kbitUpcast') ||
    (setup.quantization !== undefined && whenQuantized !== undefined && fileKbitUpcast(ctx, whenQuantized));
  // qlora.py's loop after prepare_model_for_kbit_training: under bf16 the embeddings and the head go back to bf16, the
  // norms stay fp32 (resolvePrecision has decided the mixed precision by now).
  const castBack = decided.kbitCastBack;
  if (fromFiles && setup.kbit_upcast === 'all' && castBack && setup.mixed_precision === 'bf16') {
    setup.kbit_upcast = 'norms';
    setup.kbit_cast_back = true;
    prov.kbit_upcast = fileProv(castBack);
  }
  // The same loop's `isinstance(module, LoraLayer)` branch: the adapters in bf16 (their gradients and AdamW state too).
  const lora = setup.lora as Record<string, unknown> | undefined;
  if (lora && decided.loraCastBack && setup.mixed_precision === 'bf16') lora.dtype = 'bf16';
  if (!fromFiles && setup.quantization !== undefined && tools[0] === 'axolotl') {
    // Axolotl's ModelLoader.load (src/axolotl/loaders/model.py): prepare_model(), for an adapter on a load_in_4bit /
    // load_in_8bit model, calls peft's prepare_model_for_kbit_training (every unquantized parameter to fp32) unless
    // QLoRA under FSDP, fsdp_cpu_ram_efficient_loading or ZeRO-3 skips it; then, for a lora / qlora adapter outside
    // QLoRA+FSDP (should_convert), convert_embedding_modules_dtype puts the norms, embeddings and head back in
    // torch_dtype. What stays fp32 are the biases of quantized linears and MoE router gates: a few MB, not modeled.
    setup.kbit_upcast = 'none';
    prov.kbit_upcast = { kind: 'default', owner: 'axolotl', note: AXOLOTL_KBIT_NOTE };
  }
}

/** What Axolotl's loader leaves in fp32 of a quantized model (resolveKbitUpcast). */
export const AXOLOTL_KBIT_NOTE =
  "Axolotl's loader calls prepare_model_for_kbit_training (unquantized parameters to fp32; skipped under QLoRA+FSDP and ZeRO-3), " +
  'then casts the norms, embeddings and head back to torch_dtype for a lora / qlora adapter ' +
  '(src/axolotl/loaders/model.py, ModelLoader.load); only biases and MoE router gates stay fp32';

/**
 * A vision-language model's tower trained in a full fine-tune where the script's batches carry images and nothing in
 * the run freezes it (hf-python/vision-tower.ts: requires_grad stays True), unless a file says whether it trains.
 */
export function resolveVisionUnfrozen(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  const w = decided.visionUnfrozen;
  if (setup.vision_tower_trained !== undefined || w?.fact.value !== true) return;
  if (setup.method !== undefined && setup.method !== 'full') return;
  setup.vision_tower_trained = true;
  prov.vision_tower_trained = {
    kind: 'default',
    owner: w.fact.tool,
    note:
      `the batches carry images (${w.fact.rawValue}, ${baseName(w.file)}:${w.location.line}) and nothing in the run ` +
      "freezes the vision tower: PyTorch leaves its parameters' requires_grad True, so a full fine-tune trains it",
  };
}
