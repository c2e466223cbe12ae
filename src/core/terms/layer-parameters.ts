// A decoder layer's parameters as the step replays allocate them (terms/step-replay.ts and the replays built on it):
// each linear module's weight, bias and LoRA pair in module order, then the norms, with each one's linear op in the
// layer's forward sequence where the two agree. Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md
import type { EstimateContext } from '../estimate/context';
import type { LinearOp } from './saved-tensors';

/**
 * One parameter of a layer walk: `rows` x `cols` elements of `bytes` each, trained or frozen, and the linear op whose
 * backward makes its gradient where the layer's forward sequence was matched (walkLayerParameters).
 */
export type ParameterVisit = (rows: number, cols: number, bytes: number, trainable: boolean, op?: number) => void;

/** A walked parameter, before the visit. */
interface Walked {
  readonly rows: number;
  readonly cols: number;
  readonly bytes: number;
  readonly trainable: boolean;
  readonly op: number | undefined;
}

/**
 * One decoder layer's parameters in module order: each linear module's weight [out, in] and bias, a LoRA pair (lora_A
 * [r, in], lora_B [out, r]) after each targeted one, then the layer's vectors (norms). A bare parameter that holds the
 * layer's experts ([E, out, in] fused experts, gpt-oss's and Llama 4's own) is one tensor, its bias [E, out] another.
 * Under LoRA the base is frozen. Each weight, its bias and each adapter is numbered with its linear op when the module
 * order is the order the block's forward ran its linear ops (`ops`: the same count, each with its weight's elements).
 * False when the modules do not divide evenly over the layers.
 */
export function walkLayerParameters(ctx: EstimateContext, visit: ParameterVisit, ops?: readonly LinearOp[]): boolean {
  const walked = layerParameters(ctx);
  if (!walked) return false;
  const matched = ops !== undefined && sameOps(walked.opElems, ops);
  for (const p of walked.parameters) visit(p.rows, p.cols, p.bytes, p.trainable, matched ? p.op : undefined);
  return true;
}

/** Whether the walk's linear ops are the forward's, one for one by their weights' elements. */
function sameOps(elems: readonly number[], ops: readonly LinearOp[]): boolean {
  return elems.length === ops.length && elems.every((e, i) => e === ops[i].weightElems);
}

/** The walk: each parameter with its linear op, and each op's weight elements; undefined for uneven modules. */
function layerParameters(ctx: EstimateContext): { parameters: Walked[]; opElems: number[] } | undefined {
  const a = ctx.model.arch;
  const { weightBytes, adapterBytes } = ctx.dtypes;
  const full = ctx.setup.method === 'full';
  const r = ctx.methods.lora?.r ?? 0;
  const parameters: Walked[] = [];
  const opElems: number[] = [];
  const add = (rows: number, cols: number, bytes: number, trainable: boolean, op: number | undefined): void => {
    parameters.push({ rows, cols, bytes, trainable, op });
  };
  const newOp = (elems: number): number => opElems.push(elems) - 1;
  let linear = 0;
  for (const m of ctx.model.modules) {
    const perLayer = m.count / a.layers;
    if (!Number.isInteger(perLayer)) return undefined;
    // Each expert's [out, in] of a 3-D parameter is a slice of one tensor, allocated (loaded, gathered) at once.
    const slices = m.parameter ? perLayer : 1;
    const adapted = !full && ctx.methods.targets.has(m.name);
    for (let k = 0; k < perLayer / slices; k++) {
      const op = newOp(m.outFeatures * slices * m.inFeatures);
      add(m.outFeatures * slices, m.inFeatures, weightBytes, full, op);
      if (m.bias) add(m.outFeatures * slices, 1, weightBytes, full, op);
      for (let j = 0; j < slices && adapted; j++) {
        add(r, m.inFeatures, adapterBytes, true, newOp(r * m.inFeatures));
        add(m.outFeatures, r, adapterBytes, true, newOp(m.outFeatures * r));
      }
    }
    linear += perLayer * (m.inFeatures * m.outFeatures + (m.bias ? m.outFeatures : 0));
  }
  // The blocks' count holds the final norm, which is the root's (FSDP's root unit), not a layer's.
  const { blocks, finalNorm } = ctx.model.inventory;
  const vectors = Math.max(0, Math.round((blocks - finalNorm) / a.layers) - linear);
  for (let rest = vectors; rest > 0; rest -= a.hidden) add(Math.min(a.hidden, rest), 1, weightBytes, full, undefined);
  return { parameters, opElems };
}
