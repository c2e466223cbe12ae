// A symbolic autograd tape: each architecture family replays its forward op by op, and this records which
// tensors autograd keeps for backward, with their dtype and size. The rules mirror PyTorch's derivatives.yaml:
// an input is saved only when the derivative of another input that requires grad needs it
// (tools/autograd/gen_variable_type.py guards each SavedVariable with should_compute_output), so frozen
// layers (LoRA base weights, frozen embeddings) save less. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md

/** How the forward runs: all fp32; everything in 16-bit ("pure" bf16/fp16); or fp32 weights under autocast. */
export type ComputeMode = 'fp32' | 'half' | 'amp';

export interface Tensor {
  readonly id: number;
  readonly what: string;
  /** Elements per micro-batch (already multiplied out). */
  readonly elems: number;
  readonly bytesPerElem: number;
  /** Whether autograd tracks it (some input up the graph requires grad). */
  readonly rg: boolean;
  /** Storage it lives in: views share their base's storage, and saving any view keeps the whole storage alive. */
  readonly storage: number;
  readonly storageBytes: number;
}

/**
 * A temporary a quantized weight's matmul makes (bitsandbytes' dequantization, torchao's weight.to(input.dtype)): held
 * through the matmul, or (`untilNext`) freed once the next one exists (a dequantized copy cast to the compute dtype).
 */
export interface MatmulTemporary {
  readonly what: string;
  readonly bytes: number;
  readonly untilNext?: boolean;
  /**
   * The matmul's weight operand itself (a GPTQ weight dequantized in torch, `torch.matmul(x, weight)`): autograd keeps
   * it for the input's gradient when the input requires grad, else it is freed with the others.
   */
  readonly keptForInputGrad?: boolean;
}

export interface Weight {
  readonly what: string;
  readonly elems: number;
  readonly trainable: boolean;
  /** What the matmul makes before it runs and frees after: a quantized weight dequantized for it (in order). */
  readonly dequant?: readonly MatmulTemporary[];
  /** Storage bytes per element of the weight itself (fp32 under autocast, 2 for bf16/fp16 weights). */
  readonly bytesPerElem: number;
  /**
   * A 4/8-bit bitsandbytes layer: the input is cast to the compute dtype for the matmul and the output back to the
   * input's dtype (bnb nn.Linear4bit.forward `out.to(inp_dtype)`), so an fp32 input gives an fp32 output.
   */
  readonly keepsInputDtype?: boolean;
  /**
   * The matmul is not autocast-enabled (transformers 5 grouped_mm over fused 3-D experts: integrations/moe.py
   * _grouped_mm calls torch.nn.functional.grouped_mm(input.to(weight.dtype), weight, ...)): the input is cast to the
   * weight's dtype, the output is in that dtype, and no 16-bit copy of the weight is made.
   */
  readonly notAutocast?: boolean;
  /**
   * DeepSpeed ZeRO-3's linear (deepspeed/runtime/zero/linear.py LinearFunctionForZeroStage3, which replaces
   * torch.nn.functional.linear from the engine's construction on) saves its input and weight as passed, whether or not
   * either needs a gradient: a frozen linear keeps its input too.
   */
  readonly savesInput?: boolean;
  /**
   * The weight is a view of a larger parameter (gpt-oss experts), used this many times per block: autocast caches only
   * leaf tensors, so each use casts anew and the matmul keeps that 16-bit copy as a saved tensor of the block.
   */
  readonly uncachedCopies?: number;
  /**
   * Separate weights of this shape the matmul stands for, each cast by autocast on its own (transformers 4.x's looped
   * experts: one nn.Linear per expert, every one of which a real batch reaches). 1 when unset.
   */
  readonly copies?: number;
}

export interface SavedEntry {
  readonly what: string;
  readonly bytes: number;
}

/**
 * One block's forward as the allocator sees it: every tensor the replay creates, in order, and when it is freed. A
 * tensor autograd does not keep is freed once the op that last reads it has made its output (Python drops the
 * reference after the call returns); a saved one lives until its backward, or, when the block is checkpointed, also
 * only to its last read. The block's input is the previous block's output and is not allocated here.
 */
export interface ForwardSequence {
  /** Bytes of each tensor the forward creates, in order. */
  readonly bytes: readonly number[];
  /** The index of the allocation after which each one is freed, unless kept. */
  readonly freeAfter: readonly number[];
  /** Whether autograd keeps it for backward. */
  readonly saved: readonly boolean[];
  /**
   * How many of the allocations a checkpoint's recompute makes: non-reentrant checkpointing stops the recompute at the
   * last pack of a saved tensor (torch/utils/checkpoint.py early stop, on by default: _StopRecomputationError), so the
   * op that packs last never makes its output and nothing after it runs.
   */
  readonly recomputeEnd: number;
  /**
   * Whether it is held to the forward's end whether or not the block is checkpointed: autocast's cache of 16-bit weight
   * copies lives until the autocast region exits.
   */
  readonly held: readonly boolean[];
  /**
   * Of the held copies, those autocast does not cache: a frozen fp32 weight's, cast anew at each use (cached_cast caches
   * only a leaf that requires grad), which the matmul keeps for the input's gradient where autograd saves and which a
   * checkpointed forward frees after its use. Unset: none.
   */
  readonly uncached?: readonly boolean[];
  /**
   * Whether an autograd Function holds it as a plain ctx attribute (Tape.holdInContext): saved-tensor hooks never see
   * it, so non-reentrant checkpointing keeps it to the backward like an unchecked layer does.
   */
  readonly contextHeld: readonly boolean[];
  /** Which allocation is the block's input (not allocated: the previous block's output) and which its output. */
  readonly input: number;
  readonly output: number;
  /** The block's linear ops in the order they ran (base layers and LoRA's A and B). */
  readonly linears: readonly LinearOp[];
}

/** A linear op of a block's forward, for the backward that makes its weight's gradient. */
export interface LinearOp {
  /** Elements of its weight. */
  readonly weightElems: number;
  /**
   * The allocation it saved as its input for the weight's gradient; -1 where it saved none (a frozen weight) or the
   * input is not one of the block's allocations.
   */
  readonly input: number;
  /** The allocation of its output. */
  readonly output: number;
}

/** A point of a tape to roll back to (Tape.mark). */
/** A LoRA branch's input as the tape noted it (Tape.noteLoraInput), and how many linear ops had run by then. */
interface LoraInputNote {
  readonly storage: number;
  readonly bytes: number;
  readonly linears: number;
}

interface TapeMark {
  readonly saved: number;
  readonly matmuls: number;
  readonly weightCopyBytes: number;
  readonly cachedWeightCopyBytes: number;
  readonly lastPack: number;
  readonly lastLoraInput: LoraInputNote | undefined;
}

/** Records saved tensors (deduplicated by tensor identity) for one replay. */
export class Tape {
  private nextId = 1;
  private readonly saved = new Map<number, SavedEntry>();
  /** The bytes of `saved`, kept as it changes (totalBytes is asked after every linear). */
  private savedBytes = 0;
  /** Bytes of every matmul output in forward order (what op-level selective checkpointing chooses from). */
  readonly matmulOutputs: number[] = [];
  /** Bytes an attention kernel saves of its own outputs (output + logsumexp, or the softmax probabilities). */
  attentionOutputBytes = 0;
  /**
   * 16-bit copies of fp32 weights made by autocast and kept for backward (about 2 B per linear parameter):
   * a per-parameter cost, kept apart from the per-token activations.
   */
  weightCopyBytes = 0;
  /** Of weightCopyBytes, the copies autocast caches to the forward's end: those of weights that require grad. */
  cachedWeightCopyBytes = 0;
  /** Every allocation in forward order: its storage and bytes (the allocator replay's input, forwardSequence). */
  private readonly allocations: { storage: number; bytes: number }[] = [];
  /** For each storage, the index of the allocation made by the op that read it last. */
  private readonly lastUse = new Map<number, number>();
  /** Storages held to the forward's end without being a saved tensor (autocast's 16-bit weight copies). */
  private readonly held = new Set<number>();
  /** Of `held`, the copies of frozen weights, which autocast does not cache (ForwardSequence.uncached). */
  private readonly uncached = new Set<number>();
  /** Storages an autograd Function keeps as a ctx attribute rather than through save_for_backward. */
  private readonly contextHeld = new Set<number>();
  /** How many allocations were made when a tensor was last packed for backward (save, saveExtra): -1 before any. */
  private lastPack = -1;
  /** How many times each storage was kept for backward (by save, holdInContext or its dedupe). */
  private readonly keptBy = new Map<number, number>();
  /** Linear ops so far (base layers and adapters). */
  private linears = 0;
  /**
   * Each linear op's weight elements, the storage it saved as its input for the weight's gradient (-1: none) and the
   * storage of its output.
   */
  private readonly linearOps: { weightElems: number; storage: number; output: number }[] = [];
  /** The input of the last LoRA branch, and how many linear ops had run once it had. */
  private lastLoraInput: LoraInputNote | undefined;

  /**
   * @param fused torch.compile: Inductor's min-cut partitioner saves the inputs of fused elementwise chains and
   *   recomputes their intermediates in backward (functorch/_src/partitioners.py, min_cut_rematerialization_partition).
   */
  constructor(
    readonly mode: ComputeMode,
    readonly half: 2 | 4,
    readonly fused = false,
  ) {}

  /** Bytes per element of activations produced by matmuls (the autocast / model dtype). */
  get computeBytes(): number {
    return this.mode === 'fp32' ? 4 : this.half;
  }

  tensor(what: string, elems: number, bytesPerElem: number, rg: boolean): Tensor {
    const id = this.nextId++;
    this.allocations.push({ storage: id, bytes: elems * bytesPerElem });
    return { id, what, elems, bytesPerElem, rg, storage: id, storageBytes: elems * bytesPerElem };
  }

  /** A view (slice, chunk, transpose, reshape without copy) of x: same storage. */
  view(x: Tensor, what: string, elems: number): Tensor {
    return {
      id: this.nextId++,
      what,
      elems,
      bytesPerElem: x.bytesPerElem,
      rg: x.rg,
      storage: x.storage,
      storageBytes: x.storageBytes,
    };
  }

  /** The next op reads these tensors: they stay allocated until its output exists. */
  use(...xs: Tensor[]): void {
    for (const x of xs) this.lastUse.set(x.storage, this.allocations.length);
  }

  /**
   * A Python local that holds these tensors to the end of its function: they stay allocated until the last allocation
   * so far exists, however early their last reader ran (CPython frees a tensor when its last reference goes).
   */
  keepThrough(...xs: Tensor[]): void {
    const last = this.allocations.length - 1;
    for (const x of xs) this.lastUse.set(x.storage, Math.max(last, this.lastUse.get(x.storage) ?? last));
  }

  /** The forward's allocations as a replay program (see ForwardSequence), for a block with this input and output. */
  forwardSequence(input: Tensor, output: Tensor): ForwardSequence {
    const n = this.allocations.length;
    const bytes: number[] = [];
    const freeAfter: number[] = [];
    const saved: boolean[] = [];
    const held: boolean[] = [];
    const uncached: boolean[] = [];
    const contextHeld: boolean[] = [];
    let inputIndex = -1;
    let outputIndex = n - 1;
    const indexOf = new Map<number, number>();
    this.allocations.forEach((a, i) => {
      indexOf.set(a.storage, i);
      bytes.push(a.bytes);
      freeAfter.push(Math.min(n - 1, Math.max(i, this.lastUse.get(a.storage) ?? i)));
      saved.push(this.saved.has(a.storage));
      held.push(this.held.has(a.storage));
      uncached.push(this.uncached.has(a.storage));
      contextHeld.push(this.contextHeld.has(a.storage));
      if (a.storage === input.storage) inputIndex = i;
      if (a.storage === output.storage) outputIndex = i;
    });
    const recomputeEnd = this.lastPack < 0 ? n : Math.min(n, this.lastPack);
    const linears = this.linearOps.map((op) => ({
      weightElems: op.weightElems,
      input: indexOf.get(op.storage) ?? -1,
      output: indexOf.get(op.output) ?? -1,
    }));
    return {
      bytes,
      freeAfter,
      saved,
      recomputeEnd,
      held,
      ...(this.uncached.size > 0 ? { uncached } : {}),
      contextHeld,
      input: inputIndex,
      output: outputIndex,
      linears,
    };
  }

  save(t: Tensor): void {
    this.lastPack = this.allocations.length;
    this.record(t);
  }

  /** Records a tensor kept for backward, once (by storage). */
  private record(t: Tensor): void {
    this.keptBy.set(t.storage, (this.keptBy.get(t.storage) ?? 0) + 1);
    if (this.saved.has(t.storage)) return;
    this.saved.set(t.storage, { what: t.what, bytes: t.storageBytes });
    this.savedBytes += t.storageBytes;
  }

  /**
   * Kept for backward by an autograd Function as a plain attribute (bitsandbytes' `ctx.tensors = (..., A)`) rather
   * than through save_for_backward: saved like any other tensor, but out of reach of saved-tensor hooks, so
   * non-reentrant checkpointing and activation offloading leave it on the GPU.
   */
  holdInContext(t: Tensor): void {
    this.record(t);
    this.contextHeld.add(t.storage);
  }

  /** A LoRA branch's input (after its dropout), once its lora_B has run. */
  noteLoraInput(x: Tensor): void {
    this.lastLoraInput = { storage: x.storage, bytes: x.storageBytes, linears: this.linears };
  }

  /**
   * What the block's backward releases before its first high point: the input of the block's last linear op's LoRA
   * branch, where only that branch keeps it. The branch's nodes were made after the base layer's, so autograd runs
   * them first (higher sequence numbers), and its lora_A node frees the input before the base layer's backward runs.
   */
  releasedFirst(): number {
    const l = this.lastLoraInput;
    if (!l || l.linears !== this.linears || this.keptBy.get(l.storage) !== 1) return 0;
    return l.bytes;
  }

  /** Bytes held as ctx attributes (holdInContext), less the block's input (counted on its own by checkpointing). */
  contextHeldBytes(input: Tensor): number {
    let s = 0;
    for (const id of this.contextHeld) if (id !== input.storage) s += this.saved.get(id)?.bytes ?? 0;
    return s;
  }

  /** A point to roll back to: what is saved so far. */
  mark(): TapeMark {
    return {
      saved: this.saved.size,
      matmuls: this.matmulOutputs.length,
      weightCopyBytes: this.weightCopyBytes,
      cachedWeightCopyBytes: this.cachedWeightCopyBytes,
      lastPack: this.lastPack,
      lastLoraInput: this.lastLoraInput,
    };
  }

  /**
   * Forgets what was saved since `mark` (ops that ran without grad, as inside a recomputing autograd function) and
   * returns how much that was.
   */
  rollback(mark: TapeMark): {
    savedBytes: number;
    weightCopyBytes: number;
  } {
    let savedBytes = 0;
    [...this.saved.keys()].slice(mark.saved).forEach((k) => {
      savedBytes += this.saved.get(k)!.bytes;
      this.saved.delete(k);
      this.contextHeld.delete(k);
    });
    this.savedBytes -= savedBytes;
    this.matmulOutputs.length = mark.matmuls;
    this.lastPack = mark.lastPack;
    // What the rolled-back ops kept is kept no longer (a tiled MLP's shards), nor is their LoRA branch the last one.
    this.lastLoraInput = mark.lastLoraInput;
    const weightCopyBytes = this.weightCopyBytes - mark.weightCopyBytes;
    this.weightCopyBytes = mark.weightCopyBytes;
    this.cachedWeightCopyBytes = mark.cachedWeightCopyBytes;
    return { savedBytes, weightCopyBytes };
  }

  /** Extra saved bytes that are not a tensor of the graph (e.g. a cast weight copy under autocast). */
  saveExtra(what: string, bytes: number): void {
    const id = this.nextId++;
    this.allocations.push({ storage: id, bytes });
    this.lastPack = this.allocations.length;
    this.saved.set(id, { what, bytes });
    this.savedBytes += bytes;
  }

  entries(): SavedEntry[] {
    return [...this.saved.values()];
  }

  totalBytes(): number {
    return this.savedBytes;
  }

  /** A tensor cast to the autocast dtype: under autocast a new 16-bit copy per call (not cached for activations). */
  castForMatmul(x: Tensor): Tensor {
    if (this.mode === 'amp' && x.bytesPerElem === 4) {
      this.use(x);
      return this.tensor(`${x.what} (autocast copy)`, x.elems, this.half, x.rg);
    }
    return x;
  }

  /**
   * y = x W^T (+ b). Saves x when W is trainable (grad of W), and W when x requires grad (grad of x): W itself is a
   * parameter and costs nothing extra, except under autocast where its 16-bit copy is kept until backward.
   */
  linear(x: Tensor, w: Weight, outFeatures: number, what: string): Tensor {
    this.linears++;
    if (w.notAutocast) return this.groupedMm(x, w, outFeatures, what);
    if (x.rg && this.mode === 'amp' && w.bytesPerElem === 4) {
      // Autocast casts fp32 weights to 16 bits for the matmul; mm keeps the copy for the input's gradient. Its
      // cached_cast of F.linear's arguments makes the weight's copy before the input's (an H100 trace: the bias, the
      // weight, then the input).
      if (w.uncachedCopies)
        this.saveExtra(`${w.what} 16-bit copies (autocast, one per use)`, w.uncachedCopies * w.elems * this.half);
      else this.weightCopy(w.elems * (w.copies ?? 1) * this.half, w.trainable);
    }
    const xin = this.castForMatmul(x);
    if (w.savesInput) this.save(x);
    else if (w.trainable) this.save(xin);
    const tokens = x.elems / (w.elems / outFeatures);
    const { held: temporaries, operand } = this.matmulTemporaries(w.dequant);
    if (operand && x.rg) this.save(operand);
    // Under autocast the matmul runs in 16 bits; otherwise in the wider of input and weight dtypes (an fp32
    // LoRA adapter on a bf16 model computes in fp32).
    const outBytes = w.keepsInputDtype
      ? x.bytesPerElem
      : this.mode === 'amp'
        ? this.half
        : Math.max(xin.bytesPerElem, w.bytesPerElem);
    this.use(xin, ...temporaries);
    const y = this.tensor(what, tokens * outFeatures, outBytes, x.rg || w.trainable);
    this.matmulOutputs.push(y.storageBytes);
    const input = w.trainable ? (w.savesInput ? x : xin).storage : -1;
    this.linearOps.push({ weightElems: w.elems, storage: input, output: y.storage });
    return y;
  }

  /**
   * The temporaries a matmul makes before it runs (a dequantized weight), in order; returns those held through the
   * matmul, which the caller frees once the output exists (use, before the output's allocation), and the one that is
   * the matmul's operand where autograd may keep it (MatmulTemporary.keptForInputGrad).
   */
  private matmulTemporaries(temps: readonly MatmulTemporary[] | undefined): { held: Tensor[]; operand?: Tensor } {
    const held: Tensor[] = [];
    let operand: Tensor | undefined;
    let previous: Tensor | undefined;
    for (const t of temps ?? []) {
      if (previous) this.use(previous);
      const made = this.tensor(t.what, t.bytes, 1, false);
      if (t.keptForInputGrad) operand = made;
      if (t.untilNext) previous = made;
      else {
        previous = undefined;
        held.push(made);
      }
    }
    if (previous) held.push(previous);
    return { held, ...(operand ? { operand } : {}) };
  }

  /**
   * Autocast's 16-bit copy of an fp32 weight, kept for backward: cached to the forward's end where the weight requires
   * grad, cast anew at each use where it is frozen (aten/src/ATen/autocast_mode.cpp cached_cast: `arg.requires_grad()
   * && arg.is_leaf()`; torch 2.13 on the CPU: three calls of an nn.Linear make one copy of a trained fp32 weight, three
   * of a frozen one, under no_grad too).
   */
  private weightCopy(bytes: number, cached: boolean): void {
    this.weightCopyBytes += bytes;
    if (cached) this.cachedWeightCopyBytes += bytes;
    const id = this.nextId++;
    this.allocations.push({ storage: id, bytes });
    this.held.add(id);
    if (!cached) this.uncached.add(id);
  }

  /** A matmul outside autocast: the input cast to the weight's dtype (a copy when it differs), the output in it. */
  groupedMm(x: Tensor, w: Weight, outFeatures: number, what: string): Tensor {
    const xin =
      x.bytesPerElem === w.bytesPerElem
        ? x
        : this.tensor(`${x.what} (cast to the weight dtype)`, x.elems, w.bytesPerElem, x.rg);
    if (w.trainable) this.save(xin);
    const tokens = x.elems / (w.elems / outFeatures);
    this.use(xin);
    const y = this.tensor(what, tokens * outFeatures, w.bytesPerElem, x.rg || w.trainable);
    this.matmulOutputs.push(y.storageBytes);
    this.linearOps.push({ weightElems: w.elems, storage: w.trainable ? xin.storage : -1, output: y.storage });
    return y;
  }

  /** Elementwise a*b of two tensors: each is saved for the other's gradient. */
  mul(a: Tensor, b: Tensor, what: string, bytesPerElem?: number): Tensor {
    if (b.rg) this.save(a);
    if (a.rg) this.save(b);
    this.use(a, b);
    return this.tensor(
      what,
      Math.max(a.elems, b.elems),
      bytesPerElem ?? Math.max(a.bytesPerElem, b.bytesPerElem),
      a.rg || b.rg,
    );
  }

  /** Elementwise op whose backward needs its input (silu, gelu, pow, tanh input). */
  unarySavesInput(x: Tensor, what: string, bytesPerElem?: number): Tensor {
    if (x.rg) this.save(x);
    this.use(x);
    return this.tensor(what, x.elems, bytesPerElem ?? x.bytesPerElem, x.rg);
  }

  /** Elementwise op whose backward needs its output (rsqrt, softmax, log_softmax, exp, tanh). */
  unarySavesOutput(x: Tensor, what: string, bytesPerElem?: number, elems?: number): Tensor {
    this.use(x);
    const y = this.tensor(what, elems ?? x.elems, bytesPerElem ?? x.bytesPerElem, x.rg);
    if (x.rg) this.save(y);
    return y;
  }

  /** Ops whose backward needs nothing big: add, scalar mul, view, transpose, .to(dtype), reductions to a small shape. */
  free(x: Tensor, what: string, elems?: number, bytesPerElem?: number): Tensor {
    this.use(x);
    return this.tensor(what, elems ?? x.elems, bytesPerElem ?? x.bytesPerElem, x.rg);
  }

  /** A dtype conversion: a new tensor unless the dtype already matches. */
  to(x: Tensor, bytesPerElem: number, what: string): Tensor {
    return x.bytesPerElem === bytesPerElem ? x : this.free(x, what, x.elems, bytesPerElem);
  }

  /** Dropout with p > 0 saves a 1-byte mask (native_dropout); p == 0 returns its input (ATen _dropout). */
  dropout(x: Tensor, p: number, what: string): Tensor {
    if (p <= 0) return x;
    if (x.rg) this.saveExtra(`${what} mask (bool)`, x.elems);
    return this.free(x, what);
  }

  /** matmul(a, b) with output size outElems. */
  matmul(a: Tensor, b: Tensor, outElems: number, what: string): Tensor {
    const a2 = this.castForMatmul(a);
    const b2 = this.castForMatmul(b);
    if (b2.rg) this.save(a2);
    if (a2.rg) this.save(b2);
    this.use(a2, b2);
    return this.tensor(what, outElems, this.computeBytes, a.rg || b.rg);
  }

  /** nn.LayerNorm: saves input, mean and rstd (fp32, one per row); autocast runs it in fp32. */
  layerNorm(x: Tensor, rows: number, trainable: boolean, what: string): Tensor {
    const xin = this.mode === 'amp' ? this.to(x, 4, `${x.what} (fp32 for layer_norm)`) : x;
    if (x.rg || trainable) {
      this.save(xin);
      this.saveExtra(`${what} mean+rstd (fp32)`, 2 * rows * 4);
    }
    this.use(xin);
    return this.tensor(what, x.elems, xin.bytesPerElem, x.rg || trainable);
  }

  /**
   * RMSNorm as written in HF LlamaRMSNorm / torchtune RMSNorm: x.float(), pow(2).mean, rsqrt, multiply,
   * cast back, times weight. Saves the fp32 input, the fp32 rsqrt per row, the normalized input in the input
   * dtype (for the weight grad) and returns the output (Gemma's (1 + weight) variant saves the same).
   */
  rmsNorm(
    x: Tensor,
    rows: number,
    trainable: boolean,
    what: string,
    weightBytes: number,
    style: 'llama' | 't5' | 'gemma' | 'gpt_oss' = 'llama',
  ): Tensor {
    if (this.fused) {
      // One fused kernel: backward needs the input and the per-row rsqrt; the rest is recomputed.
      this.use(x);
      const rsq = this.tensor(`${what} rsqrt (fp32)`, rows, 4, x.rg);
      if (x.rg || trainable) this.save(x);
      if (x.rg) this.save(rsq);
      this.use(x, rsq);
      return this.tensor(`${what} output`, x.elems, Math.max(x.bytesPerElem, weightBytes), x.rg || trainable);
    }
    const x32 = this.to(x, 4, `${what} input (fp32 upcast)`);
    // pow(2) of the fp32 input, reduced by mean to one value per row: a transient of the input's size.
    const squares = this.free(x32, `${what} input squared (fp32)`, x.elems, 4);
    this.use(squares);
    const rsq = this.tensor(`${what} rsqrt (fp32)`, rows, 4, x.rg);
    if (x.rg) {
      this.save(x32); // pow(2) needs it; llama/gemma also multiply it by rsqrt
      this.save(rsq);
      // T5LayerNorm multiplies the original (16-bit) hidden states by the fp32 rsqrt: both are kept.
      if (style === 't5') this.save(x);
    }
    this.use(x32, rsq);
    const normed32 = this.tensor(`${what} normalized (fp32)`, x.elems, 4, x.rg);
    if (style === 'gpt_oss') {
      // GptOssRMSNorm: (weight * normalized_fp32).to(input_dtype): the fp32 normalized input is kept for the weight.
      if (trainable) this.save(normed32);
      this.use(normed32);
      return this.tensor(`${what} output`, x.elems, x.bytesPerElem, x.rg || trainable);
    }
    if (style === 'gemma') {
      // Gemma: normed.float() * (1 + weight.float()), then cast back: the fp32 normalized input and the fp32
      // (1 + weight) vector are kept.
      if (trainable) this.save(normed32);
      if (x.rg) this.saveExtra(`${what} (1 + weight) fp32`, (x.elems / rows) * 4);
      this.use(normed32);
      return this.tensor(`${what} output`, x.elems, x.bytesPerElem, x.rg || trainable);
    }
    // .to(input_dtype), then weight * normed: the product takes the wider of the two dtypes. LlamaRMSNorm's local
    // hidden_states holds the fp32 normalized input until the function returns.
    const normed = this.to(normed32, x.bytesPerElem, `${what} normalized`);
    if (trainable) this.save(normed);
    this.use(normed);
    const out = this.tensor(`${what} output`, x.elems, Math.max(x.bytesPerElem, weightBytes), x.rg || trainable);
    this.keepThrough(normed32);
    return out;
  }
}
