// Whether a ZeRO-3 model is made inside deepspeed.zero.Init. Accelerate's zero3_init_flag (true unless given at stage
// 3) decides for a script's own loop: the plugin hands DeepSpeed's config to transformers (set_deepspeed_weakref) only
// when it is set. The HF Trainer's TrainingArguments does so whatever the flag says (training_args.py __post_init__:
// DeepSpeedPlugin() then set_deepspeed_weakref(), or HfTrainerDeepSpeedConfig with --deepspeed), so from_pretrained
// builds the model under ZeRO-Init in every Trainer-based tool, unless the script loads it before it makes those
// arguments (hf-python/zero-init.ts notes the load), which then decides. The rule the pipeline applies after the files
// are merged (pipeline.ts). Pure.
import type { ProvenanceMap, TrainingSetup } from '../core';
import type { Tool } from './facts';
import { locateOffset, type AnalyzedFile } from './resolve';
import { deepspeedRunsWithoutHalf } from './resolve/precision';
import { ZERO_INIT_CONTEXT } from './hf-python/zero-init';

/** Tools that load the model through the HF Trainer's TrainingArguments, or under ZeRO-Init of their own. */
const ZERO_INIT_TOOLS: ReadonlySet<Tool> = new Set([
  'hf-trainer',
  'trl',
  'axolotl',
  'llamafactory',
  'ms-swift',
  'openrlhf',
]);

/** Whether the value came from Accelerate's flag (its config key or the launch line's option), or from nowhere. */
function fromFlagOrUnset(p: ProvenanceMap[keyof ProvenanceMap] | undefined): boolean {
  return p === undefined || (p.kind === 'file' && /(^|[.-])zero3_init_flag$/.test(p.key));
}

/**
 * The setup with zero3_init as the run makes the model: false at a Trainer script's model load made before its
 * arguments, true where Accelerate's flag said false but a Trainer-based tool loads under ZeRO-Init anyway; as it is
 * otherwise (a scenario's own value, a script's own loop, which follows the flag).
 */
export function trainerZeroInit(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  files: readonly AnalyzedFile[],
): TrainingSetup {
  const tools = files.flatMap((f) => f.facts.tools);
  if (!tools.some((t) => ZERO_INIT_TOOLS.has(t)) || !fromFlagOrUnset(provenance.zero3_init)) return setup;
  const early = files.find((f) => f.facts.modelBeforeArguments !== undefined);
  if (early) {
    const at = early.facts.modelBeforeArguments!;
    const line = locateOffset(early.file, early.text, at.start, at.end).line;
    provenance.zero3_init = { kind: 'file', file: early.file, line, key: 'from_pretrained' };
    return { ...setup, zero3_init: false };
  }
  if (setup.zero3_init !== false) return setup;
  const from = provenance.zero3_init;
  const where = from?.kind === 'file' ? ` (${from.key} in ${from.file} is for a script's own loop)` : '';
  provenance.zero3_init = {
    kind: 'default',
    owner: 'transformers',
    note:
      "TrainingArguments hands DeepSpeed's config to from_pretrained (set_deepspeed_weakref), which makes the " +
      `model under deepspeed.zero.Init at stage 3${where}`,
  };
  return { ...setup, zero3_init: true };
}

/**
 * The setup with zero3_init false where a written-out loop hands deepspeed.initialize a model it loaded outside
 * zero.Init (hf-python/zero-init.ts loopModelOutsideZeroInit), and no file names HfDeepSpeedConfig or zero.Init (the
 * load may sit in a helper module beside a config made there). Accelerate's flag does not reach such a loop.
 */
export function loopOutsideZeroInit(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  files: readonly AnalyzedFile[],
): TrainingSetup {
  if (setup.zero_stage !== 3 || setup.zero3_init === false || !fromFlagOrUnset(provenance.zero3_init)) return setup;
  // A launcher's Trainer-style option names do not make a script a Trainer's; a script that runs one does.
  const scripts = files.filter((f) => f.facts.format === 'hf-python');
  if (scripts.some((f) => f.facts.tools.some((t) => ZERO_INIT_TOOLS.has(t)))) return setup;
  if (files.some((f) => ZERO_INIT_CONTEXT.test(f.text))) return setup;
  const loop = files.find((f) => f.facts.loopModelOutsideZeroInit !== undefined);
  if (!loop) return setup;
  const at = loop.facts.loopModelOutsideZeroInit!;
  const line = locateOffset(loop.file, loop.text, at.start, at.end).line;
  provenance.zero3_init = { kind: 'file', file: loop.file, line, key: 'from_pretrained' };
  return { ...setup, zero3_init: false };
}

/**
 * The setup with zero3_init false where the model is quantized at its load (bitsandbytes, GPTQ, AWQ through
 * transformers' quantizers): from_pretrained makes it under deepspeed.zero.Init only `if is_deepspeed_zero3_enabled()
 * and not is_quantized` (modeling_utils.py, 4.x and 5.x), whatever Accelerate's flag or the Trainer says. DeepSpeed's
 * 16-bit mode then casts the whole module, PEFT's adapters included (CPU truth zero/*-wide-*-qlora-*, FINDINGS §90).
 * A scenario's own value stays.
 */
export function quantizedOutsideZeroInit(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const q = setup.quantization;
  if (setup.zero_stage !== 3 || !q || q.library === 'torchao' || setup.zero3_init === false) return setup;
  const p = provenance.zero3_init;
  if (!(fromFlagOrUnset(p) || p?.kind === 'default')) return setup;
  provenance.zero3_init = {
    kind: 'default',
    owner: 'transformers',
    note:
      'from_pretrained makes a quantized model outside deepspeed.zero.Init (`is_deepspeed_zero3_enabled() and not ' +
      "is_quantized`), and DeepSpeed's 16-bit mode casts the whole module, adapters included",
  };
  return { ...setup, zero3_init: false };
}

/**
 * The setup with fp32 weights where a model made under deepspeed.zero.Init meets a DeepSpeed config with neither bf16
 * nor fp16: ZeRO-Init makes every floating-point parameter in DeepSpeed's dtype as the module is built, bf16 or fp16
 * where enabled, else torch.float (deepspeedai/DeepSpeed partition_parameters.py Init._set_dtype, the tensor
 * constructors it wraps), whatever dtype from_pretrained is given, and the checkpoint's 16-bit values are copied into
 * them. PEFT's adapters follow their fp32 base layers. A model made outside ZeRO-Init keeps its load's dtype.
 */
export function zeroInitWithoutHalf(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  files: readonly AnalyzedFile[],
): TrainingSetup {
  const loaded = setup.weights_dtype;
  if (setup.zero_stage !== 3 || setup.zero3_init === false || setup.quantization) return setup;
  if (loaded !== 'bf16' && loaded !== 'fp16') return setup;
  if (!deepspeedRunsWithoutHalf(provenance.mixed_precision)) return setup;
  const tools = files.flatMap((f) => f.facts.tools);
  if (setup.zero3_init === undefined && !tools.some((t) => ZERO_INIT_TOOLS.has(t))) return setup;
  provenance.weights_dtype = {
    kind: 'default',
    owner: 'deepspeed',
    note:
      `deepspeed.zero.Init makes the parameters in DeepSpeed's dtype, fp32 without bf16 or fp16 in its config ` +
      `(partition_parameters.py Init._set_dtype), and from_pretrained copies the ${loaded} checkpoint into them`,
  };
  const lora = setup.lora && setup.lora.dtype === loaded ? { ...setup.lora, dtype: 'fp32' as const } : setup.lora;
  return { ...setup, weights_dtype: 'fp32', ...(lora ? { lora } : {}) };
}
