// Bytes per element of each kind of tensor (weights, unquantized parameters after the kbit upcast, embeddings,
// activations, adapters, optimizer states, gradients), the compute mode, and the attention implementation that runs.
// Docs: docs/estimate/weights-and-quantization.md. Pure.
import type { Architecture } from '../architecture';
import { FAMILY_TRAITS } from '../architecture/families';
import type { TrainingSetup } from '../setup';
import type { ComputeMode } from '../terms/saved-tensors';
import { DTYPE_BYTES } from '../units';
import { olderThan } from '../util/version';
import type { Layout } from '../model';
import type { DtypePlan, MethodPlan, PlanningContext, ShardingPlan } from './context';

/**
 * LitGPT's CausalSelfAttention computes the scores itself when the model soft-caps them (Gemma 2): `q @ k.mT * scale`,
 * the cap, the mask added, an fp32 softmax cast back, then `@ v` (litgpt/model.py scaled_dot_product_attention: "with
 * softcapping we cannot use SDPA").
 */
const LITGPT_SOFTCAP_ATTENTION = {
  replaces: ['sdpa', 'flash'],
  why:
    'LitGPT computes attention itself for a model that soft-caps its attention scores ' +
    "(model.py: 'with softcapping we cannot use SDPA'): eager attention is used",
} as const;

export const dtypeBytes = (d: 'fp32' | 'bf16' | 'fp16'): number => DTYPE_BYTES[d];

/** The dtypes of the run (warns of an upcast of a model that is not 4/8-bit and of pure fp16 training). */
export function planDtypes(
  ctx: PlanningContext,
  a: Architecture,
  layout: Layout,
  sharding: ShardingPlan,
  adapterPlan: Pick<MethodPlan, 'peft' | 'adapters' | 'lora' | 'ia3'> & { effectiveSetup: TrainingSetup },
  badamRatio: number | undefined,
): DtypePlan {
  const setup = ctx.setup;
  const { warnings } = ctx.notes;
  const cp = layout.contextParallel;
  const fsdp = sharding.fsdp;
  const { peft, adapters, lora, ia3, effectiveSetup: effSetup } = adapterPlan;
  // PEFT prepare_model_for_kbit_training casts every 16-bit parameter that is not a quantized weight to fp32
  // (peft/utils/other.py); GPTQ models are skipped. On a model that is not quantized that is every parameter.
  const q8 = effSetup.quantization;
  const kbit = setup.kbit_upcast !== 'none' && q8?.type !== 'gptq' ? setup.kbit_upcast : 'none';
  const wholeModelUpcast = kbit === 'all' && !q8 && setup.weights_dtype !== 'fp32';
  if (wholeModelUpcast) {
    warnings.push({
      key: 'kbit_upcast',
      message:
        'prepare_model_for_kbit_training on a model that is not 4/8-bit casts every 16-bit parameter to fp32: weights take twice the memory',
    });
  }
  const wb = wholeModelUpcast ? 4 : dtypeBytes(setup.weights_dtype);
  // With a quantized model: norms (and biases) in fp32; with 'all' also the embeddings and the output head.
  const kbitQ = q8 ? kbit : 'none';
  const denseBytes = kbitQ !== 'none' ? 4 : wb;
  // qlora.py's loop after the preparation puts fp32 embeddings and head in bf16 (`if args.bf16 and module.weight.dtype
  // == torch.float32: module.to(torch.bfloat16)`), those of a model loaded in fp32 too (kbit_cast_back, bf16 only).
  const embBytes = kbitQ === 'all' ? 4 : kbitQ === 'norms' && setup.kbit_cast_back ? 2 : wb;
  const half: 2 | 4 = setup.mixed_precision !== 'none' ? 2 : wb === 4 ? 4 : 2;
  const mode: ComputeMode = setup.mixed_precision !== 'none' ? 'amp' : wb === 4 ? 'fp32' : 'half';
  const adapterBytes = peft ? dtypeBytes(lora!.dtype) : ia3 ? dtypeBytes(ia3.dtype) : wb;
  const trainableBytes = adapters ? adapterBytes : wb;
  // DeepSpeed's fp16 (weights in 16 bits, an fp32 master copy and a loss scaler) is not that, nor are fp32 adapters
  // over an fp16 base (QLoRA's: the updates are made in fp32).
  if (
    setup.mixed_precision === 'none' &&
    setup.weights_dtype === 'fp16' &&
    !setup.master_weights &&
    trainableBytes < 4
  ) {
    warnings.push({
      key: 'weights_dtype',
      message: 'pure fp16 training without loss scaling or master weights is numerically fragile',
    });
  }
  const masterCopy = setup.master_weights && trainableBytes < 4;
  // BAdam ratio: per trainable entry, the sparse gradient's share (a value and two int64 indices) and each sparse Adam
  // state's share (a value).
  const stateBytes = badamRatio !== undefined ? badamRatio * trainableBytes : masterCopy ? 4 : trainableBytes;
  // FSDP mixed precision stores only the fp32 shard (the master); the 16-bit copy exists only when all-gathered,
  // and sharded gradients are kept in the fp32 parameter dtype (reduce_dtype fp32).
  const fsdpMaster = fsdp && masterCopy;
  const gradBytes = badamRatio !== undefined ? badamRatio * (trainableBytes + 16) : fsdpMaster ? 4 : trainableBytes;
  // modules_to_save copies are copies of the embedding or the head as loaded (peft/utils/other.py
  // ModulesToSaveWrapper): their gradients and torch optimizer states follow their dtype; an fp32 master (DeepSpeed,
  // FSDP mixed precision) steps them in fp32 like every trainable parameter.
  const savedDtype = peft ? lora!.saved_dtype : undefined;
  const savedModuleBytes = savedDtype ? dtypeBytes(savedDtype) : embBytes;
  const savedMaster = setup.master_weights === true && savedModuleBytes < 4;
  const savedStateBytes = savedMaster ? 4 : savedModuleBytes;
  const savedGradBytes = fsdp && savedMaster ? 4 : savedModuleBytes;
  // Context parallelism runs attention block by block with flash kernels (torchtitan's ring attention over SDPA flash,
  // ring-flash-attn, DeepSpeed-Ulysses over flash-attention); no s x s matrix is kept.
  // Families whose attention transformers runs in eager code for some implementations (architecture/families.ts).
  const eagerOnly =
    setup.model_code === 'litgpt' && a.attnLogitSoftcap
      ? LITGPT_SOFTCAP_ATTENTION
      : FAMILY_TRAITS[a.family].eagerOnlyAttention;
  const attention = cp > 1 ? 'flash' : eagerOnly?.replaces.includes(setup.attention) ? 'eager' : setup.attention;
  // Before PyTorch 1.11 the softmax / log_softmax backward took the input too (derivatives.yaml:
  // _softmax_backward_data(grad, result, dim, self)), so both were saved.
  const oldSoftmax = olderThan(setup.pytorch_version, 1, 11);
  const cb = mode === 'fp32' ? 4 : half;
  // prepare_model_for_kbit_training ('all') leaves the embeddings, norms and head in fp32, and bitsandbytes' 4/8-bit
  // layers cast their output back to their input's dtype (bnb/nn/modules.py Linear4bit.forward): without autocast the
  // hidden states stay fp32 and the fp32 head makes fp32 logits, which the loss's .float() leaves as they are (CPU
  // truth qlora/llama-qlora-all-ckpt-upcast-all: the forward's peak holds 4·T·V of logits, no 16-bit copy).
  const logitsBytes = mode === 'half' && kbitQ === 'all' ? 4 : cb;
  return {
    kbit,
    kbitQuantized: kbitQ,
    wholeModelUpcast,
    weightBytes: wb,
    denseBytes,
    embeddingBytes: embBytes,
    half,
    mode,
    computeBytes: cb,
    residualBytes: mode === 'amp' && wb === 4 ? 4 : cb,
    logitsBytes,
    adapterBytes,
    trainableBytes,
    masterCopy,
    stateBytes,
    fsdpMaster,
    gradBytes,
    savedModuleBytes,
    savedGradBytes,
    savedStateBytes,
    attention,
    eagerOnly,
    oldSoftmax,
  };
}
