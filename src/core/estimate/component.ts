// Components of a phase: how one is made (lean: numbers only), sums, and the sets of component ids that stay
// allocated between steps. Pure.
// Docs: docs/estimate/index.md
import type { Component, ComponentId, PhaseEstimate, RuntimeTerm } from '../model';

const NO_INPUTS: Readonly<Record<string, never>> = Object.freeze({});

/**
 * A component of a phase. Its formula and inputs are built only outside lean mode (the advice search estimates
 * thousands of candidates and shows none of them; the items it shows are estimated again in full).
 */
export function comp(
  ctx: { readonly lean: boolean },
  id: ComponentId,
  label: string,
  bytes: number,
  formula: () => string,
  inputs: () => Record<string, number | string | boolean>,
): Component {
  return {
    id,
    label,
    bytes: Math.max(0, Math.round(bytes)),
    formula: ctx.lean ? '' : formula(),
    inputs: ctx.lean ? NO_INPUTS : inputs(),
  };
}

/**
 * A runtime term (reserved or device bytes beside the allocated peak) when it holds any bytes, undefined otherwise; its
 * formula is built only outside lean mode, as a component's.
 */
export function runtimeTerm(
  ctx: { readonly lean: boolean },
  id: RuntimeTerm['id'],
  label: string,
  bytes: number,
  formula: () => string,
): RuntimeTerm | undefined {
  if (bytes <= 0) return undefined;
  return { id, label, bytes, formula: ctx.lean ? '' : formula() };
}

/**
 * The bytes of the chosen GPU a setup may use, its headroom left free (whole bytes: 1 - headroom need not be one);
 * unbounded without a GPU. The cached terms that never decide the fit count only up to what the rest leaves of it.
 */
export function usableGpuBytes(ctx: {
  readonly gpu?: { readonly memoryBytes: number };
  readonly headroomFraction: number;
}): number {
  return ctx.gpu ? Math.floor(ctx.gpu.memoryBytes * (1 - ctx.headroomFraction)) : Infinity;
}

/** Components that are the model's own tensors (what a model load leaves allocated). */
export const MODEL_TENSOR_IDS: ReadonlySet<ComponentId> = new Set<ComponentId>([
  'weights',
  'quantization-constants',
  'adapter-weights',
  'rotary-tables',
]);
/** Components allocated once (they do not fragment the allocator's pool). */
export const PERSISTENT_IDS = new Set<ComponentId>([
  ...MODEL_TENSOR_IDS,
  'master-weights',
  'optimizer-states',
  'ddp-buckets',
  'blas-workspaces',
  'zero-grad-bucket',
  'rollout-engine',
]);

export const sum = (cs: readonly Component[]): number => cs.reduce((s, c) => s + c.bytes, 0);

/** The model's load as a phase: its components at their high point, and what the load does (none in lean runs). */
export function loadPhase(ctx: { readonly lean: boolean }, components: Component[], note: () => string): PhaseEstimate {
  return { phase: 'load', allocatedBytes: sum(components), components, note: ctx.lean ? '' : note() };
}
