// The dtype of PEFT's adapters under DeepSpeed ZeRO-3 with a 16-bit mode. The model is made under ZeRO-Init (the HF
// Trainer loads it so when its DeepSpeed config is at stage 3) and PEFT adds the adapters afterwards, in fp32 from PEFT
// 0.12 (get_peft_model's autocast_adapter_dtype). DeepSpeed before 0.19.2 casts the whole module to its 16-bit dtype
// (engine.py module.bfloat16()), adapters included; from 0.19.2 it leaves a ZeRO-Init model's parameters as they are
// (deepspeedai/DeepSpeed#8066), so the adapters stay fp32 and PEFT casts each target's input to fp32. Measured on an
// H100 (tools/truth/gpu/results/2026-11-26b-h100): the inputs' fp32 copies are in 0.19.6's history and not in 0.16.5's.
// Not where TRL 1.7+ makes the PEFT model from a peft_config under ZeRO-3 (autocast_adapter_dtype=False, trl#6091), nor
// for a model made outside ZeRO-Init, which every release casts whole.
// The rule the pipeline applies after the pins (pipeline.ts). Pure.
import { deepspeedCastsZeroInitModel, olderThan, type ProvenanceMap, type TrainingSetup } from '../core';
import type { Tool } from './facts';

/**
 * Tools whose LoRA weights are PEFT's own, added after the model's load (a script's own loop reads LoRA from PEFT's
 * LoraConfig / get_peft_model only).
 */
const PEFT_ADAPTER_TOOLS: ReadonlySet<Tool> = new Set(['hf-trainer', 'trl', 'axolotl', 'peft', 'pytorch']);

/**
 * The setup with LoRA weights in fp32 where DeepSpeed ZeRO-3 leaves PEFT's adapters as PEFT made them; the setup as
 * it is otherwise. The precision rule (resolve/precision.ts) gave them the 16-bit dtype DeepSpeed runs in.
 */
export function zeroInitAdapterDtype(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  tools: readonly Tool[],
  peftByTrainer = false,
): TrainingSetup {
  const lora = setup.lora;
  const half = setup.weights_dtype === 'bf16' || setup.weights_dtype === 'fp16';
  if (
    !lora ||
    setup.zero_stage !== 3 ||
    !half ||
    setup.mixed_precision !== 'none' ||
    lora.dtype !== setup.weights_dtype
  )
    return setup;
  // A model made outside ZeRO-Init is cast whole by every release (engine.py _cast_module_mixed_precision).
  if (setup.zero3_init === false) return setup;
  // From TRL 1.7 a trainer that makes the PEFT model under ZeRO-3 keeps the adapters in the model's dtype
  // (get_peft_model(..., autocast_adapter_dtype=False), huggingface/trl#6091).
  if (peftByTrainer && tools.includes('trl') && !olderThan(setup.trl_version, 1, 7)) return setup;
  if (!tools.some((t) => PEFT_ADAPTER_TOOLS.has(t)) || deepspeedCastsZeroInitModel(setup)) return setup;
  if (setup.peft_version !== undefined && olderThan(setup.peft_version, 0, 12)) return setup;
  // The LoRA settings keep their place in the files; a LoRA from defaults says why its weights are fp32. The release
  // assumed without a pin is said by the estimate (estimate/assumptions.ts deepspeedVersionDefault).
  if (provenance.lora?.kind === 'default') {
    provenance.lora = {
      kind: 'default',
      owner: 'deepspeed',
      note:
        `DeepSpeed ${setup.deepspeed_version ?? '0.19.2 or later'} leaves the parameters of a model made under ` +
        'ZeRO-Init in their dtype, and PEFT adds its adapters after the load in fp32 (autocast_adapter_dtype)',
    };
  }
  return { ...setup, lora: { ...lora, dtype: 'fp32' } };
}

/**
 * The setup without prepare_model_for_kbit_training's fp32 upcast where DeepSpeed's engine casts the module back to its
 * 16-bit dtype: in a bf16 / fp16 run the engine casts every floating-point parameter of a model made outside ZeRO-Init
 * (deepspeedai/DeepSpeed@v0.16.5 engine.py _configure_distributed_model `self.module.bfloat16()`; current
 * _cast_module_mixed_precision), every release, and of one made under ZeRO-Init before 0.19.2. The 4/8-bit weights
 * are integers and stay as they are; the norms, embeddings and head PEFT upcast go back to 16 bits, and the hidden
 * states with them. The setup as it is otherwise.
 */
export function deepspeedCastsKbitUpcast(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  tools: readonly Tool[],
): TrainingSetup {
  const half = setup.weights_dtype === 'bf16' || setup.weights_dtype === 'fp16';
  if (setup.kbit_upcast === 'none' || !tools.includes('deepspeed') || !half) return setup;
  // resolve/precision.ts deepspeedHalf decides the 16-bit engine, the weights, the master copy and no autocast at once,
  // from one switch: a bf16 model under DeepSpeed without its bf16 block keeps a master copy apart from it.
  const engine = provenance.master_weights !== undefined && provenance.master_weights === provenance.mixed_precision;
  if (setup.mixed_precision !== 'none' || setup.master_weights !== true || !engine) return setup;
  const zeroInit = setup.zero_stage === 3 && setup.zero3_init !== false;
  if (zeroInit && !deepspeedCastsZeroInitModel(setup)) return setup;
  provenance.kbit_upcast = {
    kind: 'default',
    owner: 'deepspeed',
    note:
      `DeepSpeed's ${setup.weights_dtype} engine casts every floating-point parameter to ${setup.weights_dtype} ` +
      "(engine.py), undoing prepare_model_for_kbit_training's fp32 upcast of the norms, embeddings and head",
  };
  return { ...setup, kbit_upcast: 'none' };
}
