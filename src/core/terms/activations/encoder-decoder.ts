// What T5's and BART's tapes share: the decoder's own length, a stack's block context at its length, the result an
// encoder-decoder's blocks give the stage, and the backward's high point over what the two stacks keep. Pure
// arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { isEncoderDecoder, type Architecture } from '../../architecture';
import type { TrainingSetup } from '../../setup';
import type { SavedEntry, Tape } from '../saved-tensors';
import type { BlockContext } from './block';
import { linear } from './linear';
import { familyLayerNorm } from './norms';

/** What an encoder-decoder's replay of one encoder and one decoder layer gives the stage (block.ts keptByBlock). */
export interface EncoderDecoderBlocks {
  /** The two stacks' saved bytes spread over all their layers (encoder + decoder). */
  bytesPerLayer: number;
  entries: SavedEntry[];
  /** Tensors made once and held by every checkpointed layer (T5's position biases). */
  checkpointHeldBytes: number;
  backwardWorkingBytes: number;
  /** What the encoder's layers (and its embeddings) keep in all (estimate/backward-points.ts decoderEmbeddingPoint). */
  encoderStackBytes: number;
}

/** An encoder-decoder's decoder positions per sequence where target_len gives them; else undefined. */
export function decoderLength(ctx: { readonly model: { readonly arch: Architecture }; readonly setup: TrainingSetup }) {
  return isEncoderDecoder(ctx.model.arch) ? ctx.setup.target_len : undefined;
}

/** One stack's block context: its own tape, `s` positions per sequence, its linears and LayerNorm on that tape. */
export function stackContext(bc: BlockContext, tape: Tape, s: number): BlockContext {
  const T = bc.b * s;
  const own: BlockContext = {
    ...bc,
    tape,
    s,
    T,
    Tsp: T,
    linear: (x, name, outFeatures, what) => linear(own, x, name, outFeatures, what),
    norm: (x, what) => familyLayerNorm(bc.a, tape, x, x.elems / bc.a.hidden, bc.p.normsTrainable, what),
  };
  return own;
}

/** The stacks' lengths and what a decoder layer keeps, for encoderDecoderWorking. */
export interface StackWorking {
  /** Encoder and decoder positions per sequence. */
  readonly S: number;
  readonly Sd: number;
  readonly decoderBytes: number;
  /** Tensors of the MLP's width its backward holds at once (gated: 3, else 2). */
  readonly mlpWidth: number;
  /** Eager attention: the scores' gradient, per score (0: a fused kernel, whose backward makes no s x s tensor). */
  readonly scoreGradBytes: number;
}

/**
 * The backward's high point over what the layers keep: the backward begins with the decoder's last layer (its own
 * tokens, t x t and t x s scores), and reaches the encoder's layers only once every decoder layer has released what it
 * kept. CPU truth seq2seq/t5-small-v512-lora-fp32-t32: the peak is the last decoder layer's ReLU backward, 3.7 MB above
 * the backward's start, where one encoder layer's working set (8 x 256 tokens) would be 42 MB.
 */
export function encoderDecoderWorking(bc: BlockContext, w: StackWorking): number {
  const { p, a, tape, residualBytes } = bc;
  const cb = tape.computeBytes;
  const heads = a.heads / p.tp;
  const working = (rows: number, scores: number): number =>
    Math.max(w.mlpWidth * cb * rows * (a.ffn / p.tp), w.scoreGradBytes * p.batch * heads * scores) +
    2 * residualBytes * rows * a.hidden;
  const decoder = working(p.batch * w.Sd, w.Sd * Math.max(w.Sd, w.S));
  const encoder = working(p.batch * w.S, w.S * w.S);
  return Math.max(decoder, encoder - a.layers * w.decoderBytes);
}
