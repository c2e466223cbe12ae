// Term: the generation cache. Keys and values per token and layer (sliding-window layers keep their window), and
// the per-sequence states of linear-attention and Mamba layers. Docs: docs/estimate/generation.md. Pure arithmetic;
// no I/O.
import type { Architecture } from '../architecture';

/**
 * The layers without keys and values in a generation cache and what each keeps per sequence: Gated DeltaNet an fp32
 * recurrent state per value head (key x value head width, as the kernel returns it) and the conv1d's last inputs
 * (Qwen3NextDynamicCache); Mamba2 an SSM state of heads x head_dim x state and the conv's last inputs; Mamba-1 an SSM
 * state of inner x state and the conv's last inputs (HybridMambaAttentionDynamicCache); `cb` bytes where the model dtype
 * applies.
 */
export function recurrentStates(a: Architecture, cb: number): { layers: number; perLayer: number } {
  const la = a.linearAttention;
  if (la) return { layers: la.layers, perLayer: la.valueHeads * la.keyDim * la.valueDim * 4 + (2 * la.keyHeads * la.keyDim + la.valueHeads * la.valueDim) * la.convKernel * cb };
  const mb = a.mamba;
  if (mb) return { layers: mb.layers, perLayer: (mb.heads * mb.headDim * mb.state + (mb.heads * mb.headDim + 2 * mb.groups * mb.state) * mb.convKernel) * cb };
  const m1 = a.mamba1;
  if (m1) return { layers: m1.layers, perLayer: m1.inner * (m1.state + m1.convKernel) * cb };
  return { layers: 0, perLayer: 0 };
}
