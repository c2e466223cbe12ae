// Term: optimizer step temporaries, live at the step only. AdamW foreach: one copy of exp_avg_sq (_foreach_sqrt), two
// before PyTorch 2.1, the largest tensor's before 2.0 (the per-tensor loop), and FSDP1's largest flat parameter before
// 2.1; RMSprop foreach: one copy of square_avg;
// HF AdamW: the largest tensor's denominator; Adafactor: 2 fp32 tensors of the largest; torchao AdamW4bit: the largest
// tensor's two states in fp32; Muon: Newton-Schulz iterates of the largest hidden matrix in bf16; GaLore: the SVD of
// the largest target in fp32; ZeRO-1/2: the fp32 gradient partition, or the overflow check before it when larger;
// ZeRO-3: one sub-group's fp32 gradients.
// Sources: torch/optim/adamw.py, torch/optim/rmsprop.py, deepspeed/runtime/zero/stage3.py, galore_torch, Muon (Jordan et al. 2024).
// Docs: docs/estimate/optimizer-states.md. Pure arithmetic; no I/O.
import type { EstimateContext, StageContext } from '../estimate/context';
import type { TrainingSetup } from '../setup';
import { formatCount } from '../units';
import { zeroConfig } from '../estimate/zero-config';
import { olderThan } from '../util/version';
import type { Allocation, CachingAllocator } from './allocator';
import { savedSplit } from './adapters';
import { zero1EpilogueChecks } from './zero-offload-checks';

/**
 * What torch.optim.AdamW's step allocates beside the states, by PyTorch release. The foreach implementation, the
 * default on CUDA from 2.0 (pytorch/pytorch#92306), takes `_foreach_sqrt(exp_avg_sqs)` of every state it is handed
 * and, before 2.1, `denom = torch._foreach_add(exp_avg_sq_sqrt, eps)` beside it (made in place by
 * pytorch/pytorch#104898, July 2023): one or two copies. Before 2.0 the default was the per-tensor loop,
 * `(exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`: one tensor's square root and quotient at a time. None for
 * the other optimizers and for a step in the backward.
 */
export type AdamwTemporaries =
  { readonly kind: 'none' } | { readonly kind: 'foreach'; readonly copies: 1 | 2 } | { readonly kind: 'per-tensor' };

const NO_TEMPORARIES: AdamwTemporaries = { kind: 'none' };
const PER_TENSOR: AdamwTemporaries = { kind: 'per-tensor' };
const FOREACH: readonly AdamwTemporaries[] = [
  { kind: 'foreach', copies: 1 },
  { kind: 'foreach', copies: 2 },
];

export function adamwTemporariesOf(
  setup: Pick<
    TrainingSetup,
    'optimizer' | 'optimizer_in_backward' | 'pytorch_version' | 'fsdp' | 'fsdp_version' | 'fsdp_use_orig_params'
  >,
): AdamwTemporaries {
  if (setup.optimizer !== 'adamw' || setup.optimizer_in_backward) return NO_TEMPORARIES;
  if (olderThan(setup.pytorch_version, 2, 0) || steppedFlatParameters(setup)) return PER_TENSOR;
  return FOREACH[olderThan(setup.pytorch_version, 2, 1) ? 1 : 0];
}

/**
 * FSDP1's FlatParameters handed to a PyTorch 2.0 optimizer (use_orig_params false): 2.0's foreach default takes only
 * tensors whose type is exactly Tensor or Parameter (torch/optim/optimizer.py _default_to_fused_or_foreach:
 * `type(p) in _default_foreach_fused_supported_types`), and FlatParameter was a subclass of Parameter until 2.1 made
 * it a plain Parameter marked _is_flat_param (flat_param.py FlatParameter.__new__): the per-tensor loop, one flat
 * parameter at a time.
 */
function steppedFlatParameters(
  setup: Pick<TrainingSetup, 'pytorch_version' | 'fsdp' | 'fsdp_version' | 'fsdp_use_orig_params'>,
): boolean {
  const fsdp1 = setup.fsdp !== 'none' && setup.fsdp_version !== 2 && setup.fsdp_use_orig_params === false;
  return fsdp1 && olderThan(setup.pytorch_version, 2, 1);
}

/** A short key of the temporaries, for the replays' memo keys. */
export const adamwTemporariesKey = (t: AdamwTemporaries): string => (t.kind === 'foreach' ? `f${t.copies}` : t.kind);

/** The step's temporaries in an allocator replay, over the states of `sizes` bytes each, all freed at its end. */
export function replayAdamwTemporaries(
  allocator: CachingAllocator,
  sizes: readonly number[],
  t: AdamwTemporaries,
): void {
  if (t.kind === 'per-tensor') {
    for (const size of sizes) {
      const root = allocator.malloc(size);
      const quotient = allocator.malloc(size);
      allocator.free(root);
      allocator.free(quotient);
    }
  } else if (t.kind === 'foreach') {
    const temps = Array.from({ length: t.copies }, () => sizes.map((size) => allocator.malloc(size))).flat();
    for (const h of temps) allocator.free(h);
  }
}

/**
 * A replay's optimizer step: the states made at the first step and kept, or, when they are on the GPU for the step only
 * (`eachStep`: optimizer_states_gpu 'step'), moved in before every step (each tensor's states in turn) and out after it;
 * the step's temporaries over them.
 */
export function replayOptimizerStep(
  allocator: CachingAllocator,
  sizes: readonly number[],
  statesPerTensor: number,
  when: { readonly first: boolean; readonly eachStep: boolean },
  t: AdamwTemporaries,
): void {
  const made: Allocation[] = [];
  if (when.first || when.eachStep)
    for (const size of sizes) for (let k = 0; k < statesPerTensor; k++) made.push(allocator.malloc(size));
  replayAdamwTemporaries(allocator, sizes, t);
  if (when.eachStep) for (const h of made) allocator.free(h);
}

/**
 * ZeRO-1/2's overflow check before the step (stage_1_and_2.py has_overflow_partitioned_grads_serial, in every fp16 run
 * and in bf16 from DeepSpeed 0.17.1, bf16.check_grad_overflow defaulting to true): for each parameter's piece of the
 * gradient partition, _has_inf_or_nan takes its fp32 copy, its isnan and isinf masks, their logical_or and that mask's
 * fp32 copy, 4 + 1 + 1 + 1 + 4 B per element (since 0.13.3; x.float().sum() before): the largest piece at once, no
 * more than the partition. CPU truth zero/llama-w8-z2-full: the optimizer phase peaks there.
 */
function zeroOverflowCheck(piece: number): { label: string; bytes: number; formula: () => string } {
  return {
    label: 'ZeRO-1/2 overflow check of the gradient partition',
    bytes: piece * 11,
    formula: () =>
      `largest piece of the partition ${formatCount(piece)} x (fp32 copy 4 B + isnan, isinf and their logical_or ` +
      '3 x 1 B + the mask in fp32 4 B)',
  };
}

/**
 * torch.optim.AdamW's step temporaries. Foreach: `_foreach_sqrt(exp_avg_sq)` (and before PyTorch 2.1 its sum with eps,
 * adamwTemporariesOf) over what one step() is handed: under ZeRO-3 one sub-group's flat fp32 partition at a time
 * (stage3.py _optimizer_step sets the group's params to [fp32_partitioned_groups_flat[sub_group_id]] and steps),
 * elsewhere every local state. Before 2.0, the per-tensor loop: `(exp_avg_sq.sqrt() / bias_correction2_sqrt)`, the
 * square root and its quotient of the largest tensor at once.
 */
function adamwTemporaries(ctx: EstimateContext, subGroupElements: number | undefined, local: number): StepTemporary {
  const temporaries = adamwTemporariesOf(ctx.setup);
  if (temporaries.kind !== 'foreach') {
    return perTensorTemporaries(
      ctx,
      'AdamW per-tensor temporaries',
      2,
      'exp_avg_sq.sqrt() and its quotient by the bias correction',
    );
  }
  const copies = temporaries.copies;
  const what =
    copies === 2 ? '_foreach_sqrt(exp_avg_sq) and its sum with eps (PyTorch < 2.1)' : '_foreach_sqrt(exp_avg_sq)';
  return foreachTemporaries(
    ctx,
    'AdamW foreach temporaries',
    copies,
    what,
    subGroupElements ?? local,
    subGroupElements,
  );
}

/**
 * torch.optim.RMSprop's step temporaries with its defaults (no weight decay, momentum or centering): foreach, the default
 * on CUDA from PyTorch 2.0, takes `avg = torch._foreach_sqrt(square_avgs)` and adds eps to it in place
 * (torch/optim/rmsprop.py _multi_tensor_rmsprop): one copy of the states it is handed. Before 2.0 the per-tensor loop,
 * `square_avg.sqrt().add_(eps)`: the largest tensor's square root.
 */
function rmspropTemporaries(ctx: EstimateContext, subGroupElements: number | undefined, local: number): StepTemporary {
  if (olderThan(ctx.setup.pytorch_version, 2, 0))
    return perTensorTemporaries(ctx, 'RMSprop per-tensor temporaries', 1, 'square_avg.sqrt()');
  const what = '_foreach_sqrt(square_avg)';
  return foreachTemporaries(ctx, 'RMSprop foreach temporaries', 1, what, subGroupElements ?? local, subGroupElements);
}

/**
 * A per-tensor loop's temporaries (PyTorch before 2.0, or FSDP1's flat parameters before 2.1): `copies` of the largest
 * trainable tensor at once; of FSDP1's, the largest unit's flat shard (the root's embeddings and head, or a layer).
 */
function perTensorTemporaries(ctx: EstimateContext, label: string, copies: number, what: string): StepTemporary {
  const { stateBytes, savedStateBytes } = ctx.dtypes;
  const inv = ctx.model.inventory;
  const flat = steppedFlatParameters(ctx.setup) && ctx.setup.method === 'full';
  const largest = flat
    ? Math.max(inv.largestBlock, inv.embedding + inv.head) / ctx.sharding.shardParams
    : inv.largestTrainableTensor;
  // A modules_to_save copy (the embedding or the head) is the largest trainable tensor when there is one.
  const sb = inv.savedModules > 0 ? savedStateBytes : stateBytes;
  const why = flat
    ? `FSDP1's flat parameters under PyTorch ${ctx.setup.pytorch_version} are stepped one at a time (foreach takes ` +
      'them from 2.1)'
    : `PyTorch ${ctx.setup.pytorch_version} steps one tensor at a time (foreach from 2.0)`;
  return {
    label,
    bytes: copies * largest * sb,
    formula: () =>
      `${why}: ${what}, of the largest ${flat ? 'flat parameter shard' : 'tensor'}: ` +
      `${copies > 1 ? `${copies} x ` : ''}${formatCount(largest)} x ${sb} B`,
  };
}

/**
 * A foreach step's temporaries: `copies` of the `stepped` state elements one step() is handed (a ZeRO-3 sub-group's
 * flat fp32 partition, `subGroupElements`, else every local state).
 */
function foreachTemporaries(
  ctx: EstimateContext,
  label: string,
  copies: number,
  what: string,
  stepped: number,
  subGroupElements: number | undefined,
): StepTemporary {
  const { stateBytes, savedStateBytes } = ctx.dtypes;
  // A ZeRO-3 sub-group is one flat fp32 partition; elsewhere the modules_to_save copies' states are in their own
  // dtype. Foreach steps one (device, dtype) group after the other, and a group's temporaries are still bound when the
  // next group's are made (torch/optim/adamw.py _multi_tensor_adamw): with two groups, both at once.
  const split =
    subGroupElements === undefined
      ? savedSplit(ctx, stepped, stateBytes, savedStateBytes)
      : { bytes: stepped * stateBytes, formula: () => `${formatCount(stepped)} x ${stateBytes} B` };
  return {
    label,
    bytes: copies * split.bytes,
    formula: () =>
      `${copies > 1 ? `${copies} x ` : ''}torch.${what}` +
      `${subGroupElements !== undefined ? ' of one ZeRO-3 sub-group' : ''}: ${split.formula('')}`,
  };
}

/** A temporary of the optimizer step. */
export interface StepTemporary {
  readonly label: string;
  readonly bytes: number;
  readonly formula: () => string;
}

/**
 * The optimizer phase's high point: its temporaries, and the gradients the model still holds there (`gradAtStep`, what
 * the backward leaves, or none). ZeRO-1/2 with an fp32 master copy frees the 16-bit gradients before its step
 * (stage_1_and_2.py step: free_grad_in_param_list over the parameters outside and inside the partition once the fp32
 * partition is made), so the step holds the fp32 partition and the optimizer's temporaries; the overflow check before
 * it holds the 16-bit gradients. The higher of the two. GPU truth: H100, Llama-3.1-8B full under ZeRO-2, rank 0 of 8,
 * optimizer phase 36.32 GB measured (+5.7 % with the 16-bit gradients at the step, FINDINGS §72).
 */
export function optimizerStepPoint(
  ctx: EstimateContext,
  st: StageContext,
  gradAtStep: number,
): { temporaries: StepTemporary[]; gradients: number } {
  const epilogue = zero1EpilogueChecks(ctx);
  if (epilogue) return { temporaries: [epilogue], gradients: gradAtStep };
  const temporaries = optimizerStepTerms(ctx, st);
  const { masterCopy } = ctx.dtypes;
  const { zeroStage: zero, offloadOptimizer, fsdpOffload } = ctx.sharding;
  if (!(masterCopy && zero >= 1 && zero < 3) || offloadOptimizer || fsdpOffload) {
    return { temporaries, gradients: gradAtStep };
  }
  const check = zeroOverflowCheck(overflowPiece(ctx, st));
  const step = temporaries.reduce((t, x) => t + x.bytes, 0);
  return check.bytes + gradAtStep > step
    ? { temporaries: [check], gradients: gradAtStep }
    : { temporaries, gradients: 0 };
}

/** The largest piece of the gradient partition the overflow check copies at once. */
function overflowPiece(ctx: EstimateContext, st: StageContext): number {
  return Math.min(
    st.trainableHere / ctx.sharding.shardOptimizer,
    ctx.model.inventory.largestTrainableTensor / ctx.layout.tensorParallel,
  );
}

/** Temporaries of the optimizer step, by optimizer (none when the step runs on the host). */
function optimizerStepTerms(ctx: EstimateContext, st: StageContext): StepTemporary[] {
  const { shardOptimizer, offloadOptimizer, fsdpOffload, zeroStage } = ctx.sharding;
  if (offloadOptimizer || fsdpOffload) return [];
  const { trainableHere } = st;
  const subGroup = ctx.dtypes.masterCopy && zeroStage === 3 ? zero3SubGroup(ctx, trainableHere) : undefined;
  const step = optimizerTemporaries(ctx, subGroup?.elements, trainableHere / shardOptimizer);
  return [
    ...(step ? [step] : []),
    ...muonTemporaries(ctx, st),
    ...galoreSvd(ctx),
    ...gradientUpcast(ctx, st, subGroup),
  ];
}

/** The step's own temporaries, by optimizer: `local` elements on this rank, `subGroup` those of a ZeRO-3 sub-group. */
function optimizerTemporaries(
  ctx: EstimateContext,
  subGroup: number | undefined,
  local: number,
): StepTemporary | undefined {
  const setup = ctx.setup;
  const inv = ctx.model.inventory;
  const { trainableBytes, stateBytes } = ctx.dtypes;
  const { badamRatio } = ctx.methods;
  if (badamRatio !== undefined)
    // BlockOptimizerRatio._sparse_adam, one tensor at a time: the coalesced gradient (values and indices), the two
    // state updates, and the numerator and denominator clones.
    return {
      label: 'BAdam sparse Adam temporaries (largest tensor)',
      bytes: inv.largestTrainableTensor * badamRatio * (5 * trainableBytes + 16),
      formula: () =>
        `largest trainable tensor ${formatCount(inv.largestTrainableTensor)} x ${badamRatio} x ` +
        `(coalesced gradient ${trainableBytes} B + 16 B indices, 4 temporaries x ${trainableBytes} B)`,
    };
  if (setup.optimizer === 'adamw' && !setup.optimizer_in_backward) return adamwTemporaries(ctx, subGroup, local);
  if (setup.optimizer === 'rmsprop' && !setup.optimizer_in_backward) return rmspropTemporaries(ctx, subGroup, local);
  if (setup.optimizer === 'adafactor')
    return {
      label: 'Adafactor step temporaries',
      bytes: 2 * inv.largestTrainableTensor * 4,
      formula: () => '2 fp32 temporaries of the largest trainable tensor (grad², update)',
    };
  if (setup.optimizer === 'adamw_4bit')
    // torchao steps one parameter at a time in a compiled function that dequantizes both states to fp32
    // (exp_avg.float().lerp(...), exp_avg_sq.float().lerp(...)) before requantizing them block by block.
    return {
      label: 'AdamW 4-bit per-parameter temporaries',
      bytes: inv.largestTrainableTensor * 2 * 4,
      formula: () => "the largest tensor's two states dequantized to fp32 (2 x 4 B per element)",
    };
  if (setup.optimizer === 'adamw_hf')
    return {
      label: 'AdamW per-parameter temporaries',
      bytes: inv.largestTrainableTensor * stateBytes,
      formula: () => 'denominator of the largest tensor',
    };
  return undefined;
}

/**
 * Muon orthogonalizes each update by Newton-Schulz iterations in bf16: for the largest hidden matrix, its bf16 copy and
 * the next iterate (2 x rows x cols) and X Xᵀ with its square and combination (3 x min²).
 */
function muonTemporaries(ctx: EstimateContext, st: StageContext): StepTemporary[] {
  if (ctx.setup.optimizer !== 'muon' || st.trainableHere <= 0) return [];
  let best = 0;
  let small = 0;
  for (const m of ctx.model.modules)
    if (m.inFeatures * m.outFeatures > best)
      [best, small] = [m.inFeatures * m.outFeatures, Math.min(m.inFeatures, m.outFeatures)];
  const bytes = ((2 * best + 3 * small * small) * 2) / ctx.layout.tensorParallel;
  if (bytes <= 0) return [];
  return [
    {
      label: 'Muon Newton-Schulz temporaries (largest matrix)',
      bytes,
      formula: () =>
        'bf16: the update and its next iterate 2 x rows x cols + X Xᵀ, its square and their combination 3 x min(rows, cols)²',
    },
  ];
}

/**
 * GaLore refreshes each projection every update_proj_gap steps from an SVD of the (fp32) gradient: for the largest
 * target, the gradient copy and the factors U (rows x k) and Vh (k x cols), k = min(rows, cols).
 */
function galoreSvd(ctx: EstimateContext): StepTemporary[] {
  const { galore } = ctx.methods;
  if (!galore || ctx.setup.galore!.kind === 'apollo') return [];
  const [m, n] = galore.largest;
  const k = Math.min(m, n);
  const bytes = ((m * n + m * k + k * n) * 4) / ctx.layout.tensorParallel;
  if (bytes <= 0) return [];
  return [
    {
      label: 'GaLore projection update (SVD of the largest target)',
      bytes,
      formula: () =>
        `every update_proj_gap steps: the largest target's gradient in fp32 and its SVD factors, ` +
        `(${m} x ${n} + both factors) x 4 B`,
    },
  ];
}

/**
 * DeepSpeed's fp32 copy of the gradients for the step: the whole partition under ZeRO-1/2 (ZeRO-2 estimator:
 * 4_grads_32bit), one sub-group's under ZeRO-3.
 */
function gradientUpcast(
  ctx: EstimateContext,
  st: StageContext,
  subGroup: { elements: number; formula: string } | undefined,
): StepTemporary[] {
  const { shardOptimizer, zeroStage } = ctx.sharding;
  const { trainableHere } = st;
  if (ctx.dtypes.masterCopy && zeroStage >= 1 && zeroStage < 3)
    return [
      {
        label: 'fp32 gradient partition',
        bytes: (trainableHere * 4) / shardOptimizer,
        formula: () => `${formatCount(trainableHere)} x 4 B / ${shardOptimizer}`,
      },
    ];
  if (!subGroup) return [];
  return [
    {
      label: 'fp32 gradients of one optimizer sub-group (ZeRO-3)',
      bytes: subGroup.elements * 4,
      formula: () => `${subGroup.formula} x 4 B`,
    },
  ];
}

/**
 * The elements of one ZeRO-3 optimizer sub-group. ZeRO-3 steps one sub-group at a time (stage3.py step:
 * _prepare_fp32_grad_for_sub_group, _optimizer_step, _release_sub_group); _create_fp16_sub_groups adds whole
 * parameters until a group reaches sub_group_size, so a group holds at least one parameter's partition (Axolotl's
 * configs set sub_group_size 0: one parameter per group), and no more than the rank's partition.
 */
function zero3SubGroup(ctx: EstimateContext, trainableHere: number): { elements: number; formula: string } {
  const subGroup = zeroConfig(ctx.setup, ctx.model.arch.hidden).sub_group_size;
  const shard = ctx.sharding.shardOptimizer;
  const partition = trainableHere / shard;
  const oneParam = ctx.model.inventory.largestTrainableTensor / ctx.layout.tensorParallel / shard;
  return {
    elements: Math.min(partition, Math.max(subGroup, oneParam)),
    formula:
      `min(partition ${formatCount(partition)}, max(sub_group_size ${formatCount(subGroup)}, ` +
      `largest parameter's partition ${formatCount(oneParam)}))`,
  };
}
