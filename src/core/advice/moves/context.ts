// What every section of the Move table reads (the MoveContext, built once per table in advice/moves.ts), the Move
// itself, and the helpers the sections share. Pure; no I/O.
// Docs: docs/estimate/advice.md
import type { TrainingSetup } from '../../setup';
import { memoDerived } from '../../util/memo';

export interface Move {
  readonly id: string;
  readonly title: string;
  readonly changesResult: boolean;
  readonly group: string;
  apply(s: TrainingSetup): Partial<TrainingSetup> | undefined;
}

export interface MoveContext {
  /** The setup the advice starts from (titles and some moves depend on it). */
  readonly base: TrainingSetup;
  /** The GPU supports bf16. */
  readonly bf16: boolean;
  /** The 16-bit dtype of mixed precision: bf16 where the GPU supports it, fp16 otherwise. */
  readonly halfDtype: 'bf16' | 'fp16';
  /** GPUs in all (gpus_per_node x nodes) in the base setup. */
  readonly worldSize: number;
  /**
   * LoRA dropout of the moves to LoRA on all linear layers: 0 where PEFT puts lora.ParamWrapper on the model's fused
   * MoE experts (it refuses dropout: estimate/peft-moe.ts peftWrapsExperts), else 0.05.
   */
  readonly allLinearDropout: number;
  /** One derived block per source block and change, for every candidate of the table (derivedBlocks). */
  readonly derived: DerivedBlocks;
}

/** A block (a rollout, a preference block) with one change, made once per source block and change. */
export type DerivedBlocks = <T extends object>(source: T, change: string, make: () => T) => T;

/**
 * The blocks a table's moves derive, kept per source block (util/memo.ts memoDerived, one per table): every candidate
 * that applies a move to the same block gets the same object, which the estimator's memos compare by identity.
 */
export function derivedBlocks(): DerivedBlocks {
  return memoDerived<object, string, object>() as DerivedBlocks;
}

export const pow2Down = (n: number): number => Math.max(1, Math.floor(n / 2));

// bitsandbytes 8-bit layers cannot be sharded (FSDP refuses integer parameters, ZeRO-3 cannot partition them):
// no candidate shards the parameters of an int8 model; ZeRO-1/2 shard only the optimizer state and gradients.
export const isInt8 = (s: TrainingSetup): boolean => s.quantization?.type === 'int8';

/** A shorter sequence; with GRPO rollouts the prompt and the completion shrink in proportion. */
export function shorter(context: MoveContext, s: TrainingSetup, seq: number): Partial<TrainingSetup> {
  const rollout = s.rollout;
  if (!rollout) return { seq_len: seq };
  const completion = Math.max(1, Math.round((rollout.completion_len * seq) / s.seq_len));
  if (completion >= seq) return { seq_len: seq };
  return {
    seq_len: seq,
    rollout: context.derived(rollout, `completion_len=${completion}`, () => ({
      ...rollout,
      completion_len: completion,
    })),
  };
}
