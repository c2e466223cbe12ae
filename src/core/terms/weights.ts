// Term: weights. Docs: docs/estimate/weights-and-quantization.md. Pure arithmetic; no I/O.
import type { Architecture } from '../architecture';

/** Families whose attention layers each kept rotary cos/sin tables for every position before transformers 4.39. */
export const ROPE_TABLES_PER_LAYER: ReadonlySet<Architecture['family']> = new Set(['llama', 'mistral', 'qwen2', 'mixtral']);
