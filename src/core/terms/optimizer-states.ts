// Term: optimizer states. Bytes per trainable parameter, unsharded (then divided by the optimizer shard degree):
//   AdamW (torch, fused, HF): 2 states x the state dtype (4 B with an fp32 master copy); bitsandbytes' paged 32-bit
//   AdamW: 2 fp32 states whatever the parameter's dtype;
//   8-bit (bitsandbytes AdamW / Lion): 1 B + 4 B / 2048 absmax per state, tensors under 4096 elements 4 B;
//   4-bit (torchao AdamW4bit): 0.5 B + scale / 128 per state, small tensors in the parameter dtype;
//   Adafactor: 4 B x (rows + cols) per matrix, 4 B per vector element; SGD: 0; SGD momentum, Lion: 1 state;
//   RMSprop: 1 state (square_avg; torch's defaults: no momentum buffer, not centered);
//   Adam-mini: 1 state + one fp32 second moment per matrix row; Muon: 1 state per hidden-matrix element, 2 elsewhere;
//   GaLore / APOLLO: the states of the projected gradients plus the projection matrices; BAdam ratio: 2 sparse states.
// Sources: Loshchilov & Hutter (AdamW); bitsandbytes functional.py; torchao/optim/adam.py; Shazeer & Stern 2018;
// Zhang et al. 2024 (Adam-mini); Jordan et al. 2024 (Muon); Zhao et al. 2024 (GaLore); BAdam BlockOptimizerRatio.
// Docs: docs/estimate/optimizer-states.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import type { TrainingSetup } from '../setup';
import { formatCount } from '../units';

/** bitsandbytes blockwise 8-bit optimizers: 2048-element blocks with an fp32 absmax; tensors under 4096 elements stay 32-bit. */
export const BNB_BLOCK = 2048;
export const BNB_MIN_8BIT = 4096;
/** torchao AdamW4bit's default quantization block (torchao/optim/adam.py). */
export const TORCHAO_4BIT_BLOCK = 128;

/** Optimizer state bytes for all trainable parameters (unsharded), and bytes per parameter on average. */
export function optimizerStateBytes(ctx: EstimateContext): { bytes: number; perParamBytes: number; formula: string } {
  const setup = ctx.setup;
  const { modules: mods, inventory: inv } = ctx.model;
  const { stateBytes, trainableBytes } = ctx.dtypes;
  const { galore, badamRatio } = ctx.methods;
  const sb = stateBytes;
  // GaLore: the optimizer sees each target's gradient projected to rank x max(rows, cols); the projection matrix
  // (rank x min(rows, cols)) is kept beside it.
  const n = galore ? inv.trainable - galore.targetElems + galore.projectedElems : inv.trainable;
  // (A full fine-tune lists the linear modules first, then the embedding and the head.)
  const matricesForState = galore
    ? [...galore.matrices, ...inv.trainableMatrices.slice(mods.length)]
    : inv.trainableMatrices;
  const apollo = setup.galore?.kind === 'apollo';
  const projector = galore && !apollo ? galore.projectorElems * sb : 0;
  const galoreNote = galore
    ? ` (${apollo ? 'APOLLO' : 'GaLore'} ` +
      `rank ${setup.galore!.rank}: ${formatCount(galore.targetElems)} target params ` +
      `as ${formatCount(galore.projectedElems)} ` +
      `projected${apollo ? '; random projections regenerated from a seed' : ` + projection matrices ${formatCount(galore.projectorElems)} x ${sb} B`})`
    : '';
  const out = galore ? baseStates(ctx, n, matricesForState) : adapterAndSavedStates(ctx, n, matricesForState);
  if (badamRatio !== undefined) {
    out.formula =
      `2 sparse Adam states (exp_avg, exp_avg_sq) x ${trainableBytes} B for the ${badamRatio} ` +
      `share of every trainable tensor (BAdam BlockOptimizerRatio)`;
  }
  return {
    bytes: out.bytes + projector,
    perParamBytes: inv.trainable > 0 ? (out.bytes + projector) / inv.trainable : 0,
    formula: `${out.formula}${galoreNote}`,
  };
}

/** What an optimizer's states are sized by: n trainable parameters, their matrices as [rows, cols, count], the rest vectors. */
interface StateInputs {
  readonly n: number;
  readonly matricesForState: ReadonlyArray<[number, number, number]>;
  /** Elements of the trainable tensors that are not matrices. */
  readonly vectors: number;
  /** Vocabulary size: Muon steps the embedding and the head with AdamW. */
  readonly vocab: number;
  /** Bytes per element of a state. */
  readonly sb: number;
}

/** An optimizer's state bytes over its trainable parameters, with the formula. */
type StateRule = (x: StateInputs) => { bytes: number; formula: string };

const adamw: StateRule = ({ n, sb }) => ({
  bytes: 2 * sb * n,
  formula: `2 states (exp_avg, exp_avg_sq) x ${sb} B x trainable params`,
});

/**
 * bitsandbytes' 32-bit AdamW (paged_adamw_32bit): Optimizer2State.init_state makes state1 and state2 with
 * get_state_buffer(p, dtype=torch.float32) when optim_bits is 32 (bitsandbytes/optim/optimizer.py), whatever the
 * parameter's dtype: 4 B each, also beside bf16 adapters.
 */
const bnb32bit: StateRule = ({ n }) => ({
  bytes: 2 * 4 * n,
  formula: '2 states (state1, state2) x 4 B (bitsandbytes keeps them fp32) x trainable params',
});

/** bitsandbytes blockwise 8-bit states (AdamW: 2, Lion: 1). */
const bnb8bit =
  (states: number): StateRule =>
  ({ n, matricesForState, vectors }) => {
    let big = 0;
    let small = 0;
    for (const [r, c, k] of matricesForState) {
      if (r * c >= BNB_MIN_8BIT) big += r * c * k;
      else small += r * c * k;
    }
    small += vectors;
    const scale = Math.max(0, n / Math.max(1, big + small));
    const bytes = states * (big * scale * (1 + 4 / BNB_BLOCK) + small * scale * 4);
    return {
      bytes,
      formula: `${states} x (1 B + 4 B/${BNB_BLOCK} absmax) per param of tensors >= ${BNB_MIN_8BIT} elements; 4 B for smaller tensors`,
    };
  };

/**
 * torchao AdamW4bit (torchao/optim/adam.py, subclass_4bit.py): each state of a tensor with >= 4096 elements
 * (and a multiple of the block size 128) is 4-bit codes, two to a byte, plus one scale per 128 elements in the
 * parameter's dtype; smaller tensors keep zeros_like(param) states.
 */
const torchao4bit: StateRule = ({ n, matricesForState, vectors, sb }) => {
  let big = 0;
  let small = 0;
  for (const [r, c, k] of matricesForState) {
    if (r * c >= BNB_MIN_8BIT && (r * c) % TORCHAO_4BIT_BLOCK === 0) big += r * c * k;
    else small += r * c * k;
  }
  small += vectors;
  const scale = Math.max(0, n / Math.max(1, big + small));
  const bytes = 2 * (big * scale * (0.5 + sb / TORCHAO_4BIT_BLOCK) + small * scale * sb);
  return {
    bytes,
    formula:
      `2 x (0.5 B + ${sb} B/${TORCHAO_4BIT_BLOCK} scale) per param of tensors ` +
      `>= ${BNB_MIN_8BIT} elements; ${sb} B for smaller tensors (torchao AdamW4bit)`,
  };
};

/**
 * Factored second moment (row + column vectors) for matrices, full for vectors; no first moment
 * (HF Adafactor beta1=None). Shazeer & Stern 2018.
 */
const adafactor: StateRule = ({ n, matricesForState }) => {
  let elems = 0;
  let covered = 0;
  for (const [r, c, k] of matricesForState) {
    elems += (r + c) * k;
    covered += r * c * k;
  }
  elems += Math.max(0, n - covered);
  return {
    bytes: 4 * elems,
    formula: '4 B x (rows + cols) per matrix, 4 B per element of vectors (factored second moment, no momentum)',
  };
};

const momentum: StateRule = ({ n, sb }) => ({
  bytes: sb * n,
  formula: `1 state (momentum) x ${sb} B x trainable params`,
});

/**
 * Adam-mini (Zhang et al. 2024): the first moment of every parameter, one second moment per block (a head of
 * q and k, an output neuron elsewhere, a token row of the embedding and the head): about one per matrix row.
 */
const adamMini: StateRule = ({ n, matricesForState, sb }) => {
  let rows = 0;
  let covered = 0;
  for (const [r, c, k] of matricesForState) {
    rows += r * k;
    covered += r * c * k;
  }
  const bytes = sb * n + 4 * (rows + Math.max(0, n - covered));
  return {
    bytes,
    formula: `first moment ${sb} B x trainable params + one fp32 second moment per matrix row (Adam-mini blocks)`,
  };
};

/**
 * torch.optim.RMSprop with its defaults (momentum 0, centered False): one state, square_avg, made like its parameter
 * (torch/optim/rmsprop.py _init_group: torch.zeros_like(p)); the momentum buffer and the centered grad_avg are made only
 * when those are set.
 */
const rmsprop: StateRule = ({ n, sb }) => ({
  bytes: sb * n,
  formula: `1 state (square_avg) x ${sb} B x trainable params`,
});

/**
 * Muon (Jordan et al. 2024) keeps one momentum per hidden weight matrix; the embedding, the head and the vectors
 * are stepped with AdamW (2 states).
 */
const muon: StateRule = ({ n, matricesForState, vocab, sb }) => {
  let hidden = 0;
  for (const [r, c, k] of matricesForState) if (r !== vocab && c !== vocab) hidden += r * c * k;
  const bytes = sb * hidden + 2 * sb * Math.max(0, n - hidden);
  return {
    bytes,
    formula: `1 momentum x ${sb} B per hidden-matrix param (Muon) + 2 AdamW states x ${sb} B for the embedding, head and vectors`,
  };
};

/** The optimizer's own states, by optimizer: an optimizer added to the setup schema does not compile until it has a row. */
export const OPTIMIZER_STATES: Readonly<Record<TrainingSetup['optimizer'], StateRule>> = {
  adamw,
  adamw_fused: adamw,
  adamw_hf: adamw,
  paged_adamw: bnb32bit,
  adamw_8bit: bnb8bit(2),
  paged_adamw_8bit: bnb8bit(2),
  lion_8bit: bnb8bit(1),
  adamw_4bit: torchao4bit,
  adafactor,
  sgd: () => ({ bytes: 0, formula: 'plain SGD keeps no state' }),
  sgd_momentum: momentum,
  rmsprop,
  lion: momentum,
  adam_mini: adamMini,
  muon,
  none: () => ({ bytes: 0, formula: 'no optimizer' }),
};

/** The states of the optimizer itself over `n` trainable parameters, the matrices among them as [rows, cols, count]. */
function baseStates(
  ctx: EstimateContext,
  n: number,
  matricesForState: ReadonlyArray<[number, number, number]>,
  sb: number = ctx.dtypes.stateBytes,
  vectors: number = ctx.model.inventory.trainableVectors,
): { bytes: number; formula: string } {
  return OPTIMIZER_STATES[ctx.setup.optimizer]({
    n,
    matricesForState,
    vectors,
    vocab: ctx.model.arch.vocab,
    sb,
  });
}

/**
 * The states over the adapters and, apart, over the modules_to_save copies, whose states follow the copies' dtype
 * (a torch optimizer makes each state like its parameter). The inventory lists the copies' matrices last.
 */
function adapterAndSavedStates(
  ctx: EstimateContext,
  n: number,
  matricesForState: ReadonlyArray<[number, number, number]>,
): { bytes: number; formula: string } {
  const saved = ctx.model.inventory.savedModules;
  const { stateBytes, savedStateBytes } = ctx.dtypes;
  if (saved <= 0 || savedStateBytes === stateBytes) return baseStates(ctx, n, matricesForState);
  const adapters = baseStates(ctx, n - saved, matricesForState.slice(0, -1));
  const savedStates = baseStates(ctx, saved, matricesForState.slice(-1), savedStateBytes, 0);
  return {
    bytes: adapters.bytes + savedStates.bytes,
    formula: `adapters: ${adapters.formula}; modules_to_save copies: ${savedStates.formula}`,
  };
}

/** The optimizer states on this stage's GPU, and BAdam's sparse masks (first stage). */
export function optimizerStates(ctx: EstimateContext, st: StageContext): Component[] {
  const setup = ctx.setup;
  const { arch: a, modules: mods, inventory: inv } = ctx.model;
  const { shardOptimizer, offloadOptimizer: offloadOpt, fsdpOffload } = ctx.sharding;
  const { weightBytes: wb, stateBytes } = ctx.dtypes;
  const { badamRatio, paged } = ctx.methods;
  const { first, trainableHere } = st;
  const persistent: Component[] = [];
  const opt = optimizerStateBytes(ctx);
  const optHere = inv.trainable > 0 ? (opt.bytes * trainableHere) / inv.trainable : 0;
  if (badamRatio !== undefined && first) {
    // keep_mask: one sparse mask per distinct tensor shape, kept for switch_every steps (values in the parameter dtype
    // and int64 indices; a vector's one index row).
    const shapes = new Map<string, number>();
    for (const m of mods)
      if (m.group !== 'expert' || !m.parameter)
        shapes.set(`${m.inFeatures}x${m.outFeatures}`, m.inFeatures * m.outFeatures);
    const maskBytes =
      [...shapes.values()].reduce((t, n) => t + Math.floor(n * badamRatio) * (wb + 16), 0) +
      Math.floor(a.hidden * badamRatio) * (wb + 8);
    persistent.push(
      comp(
        ctx,
        'optimizer-states',
        'BAdam sparse masks (one per tensor shape)',
        maskBytes,
        () =>
          `${shapes.size} matrix shapes x ${badamRatio} of their entries x (${wb} B + 2 x 8 B indices) + the norm vectors' mask`,
        () => ({ shapes: shapes.size + 1 }),
      ),
    );
  }
  if (!offloadOpt && !fsdpOffload && !paged && optHere > 0) {
    persistent.push(
      comp(
        ctx,
        'optimizer-states',
        `Optimizer states (${badamRatio !== undefined ? 'BAdam sparse Adam' : setup.optimizer})`,
        optHere / shardOptimizer,
        () => `${opt.formula}${shardOptimizer > 1 ? ` / ${shardOptimizer} (sharded)` : ''}`,
        () => ({ params: Math.round(trainableHere), stateBytes, shard: shardOptimizer }),
      ),
    );
  }
  return persistent;
}
