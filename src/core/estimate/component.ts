// Components of a phase: sums and the sets of component ids that stay allocated between steps. Pure.
import type { Component, ComponentId } from '../model';

/** Components that are the model's own tensors (what a model load leaves allocated). */
export const MODEL_TENSOR_IDS: ReadonlySet<ComponentId> = new Set<ComponentId>(['weights', 'quantization-constants', 'adapter-weights', 'rotary-tables']);
/** Components allocated once (they do not fragment the allocator's pool). */
export const PERSISTENT_IDS = new Set<ComponentId>([...MODEL_TENSOR_IDS, 'master-weights', 'optimizer-states', 'ddp-buckets', 'rollout-engine']);

export const sum = (cs: readonly Component[]): number => cs.reduce((s, c) => s + c.bytes, 0);
