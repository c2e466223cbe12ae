// Dense MLPs: the gated MLP of the Llama family and its variants, Granite 4.0 H's shared MLP, GPT-2's gelu_new.
// Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { ActivationPlan, LinearFn } from './plan';
import { Tape, type Tensor } from '../saved-tensors';

/**
 * Granite 4.0 H's MLP half: the shared MLP (input_linear chunked into gate and up, silu, output_linear) and, in the MoE
 * models, GraniteMoeHybridMoE beside it (modeling_granitemoehybrid.py): an nn.Linear router with fp32 logits, top-k and
 * an fp32 softmax cast back, the sorted routing indices, the gathered inputs through the experts' input_linear (a loop of
 * F.linear over GraniteMoeHybridParallelExperts' 3-D weight), silu(gate) x up, output_linear, the gate products and an
 * index_add that keeps its source. The MoE terms are tools/activations/granite_moe.py's closed form (18 cases, exact;
 * none depends on which experts are hit).
 */
export function graniteMlp(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, moeBlock: boolean): Tensor {
  const a = p.arch;
  const out = gatedMlp(tape, a.ffn / p.tp, a.hidden, x, linear, 'granite');
  const moe = a.moe;
  if (moe && moeBlock && (x.rg || p.baseTrainable)) {
    const T = x.elems / a.hidden;
    const pairs = T * moe.topK;
    const Ie = moe.expertFfn;
    tape.saveExtra(
      'router (int64 indices, fp32 softmax, gates), expert activations, gated outputs and the index_add source',
      p.baseTrainable ? pairs * (30 + 8 * Ie + 6 * a.hidden) : pairs * (30 + 6 * Ie + 4 * a.hidden),
    );
    // Axolotl's quantize_moe_experts: each expert's F.linear takes a view of the whole dequantized input_linear (2 x Ie)
    // and output_linear weights, which the views keep alive for the input's gradient.
    if ((p.dequantizedExperts ?? 0) > 0 && x.rg)
      tape.saveExtra(
        'dequantized expert weights (NF4 -> 16-bit, kept by the expert matmuls)',
        p.dequantizedExperts! * 3 * Ie * a.hidden * tape.half,
      );
    // The router's and the experts' weight gradients need the block input (one storage with the shared MLP's).
    if (p.baseTrainable) tape.save(x);
  }
  return out;
}

/** act(gate(x)) * up(x) -> down: Llama/Mistral/Qwen/Gemma MLP (phi3 and Qwen v1 fuse or rename the projections). */
export function gatedMlp(
  tape: Tape,
  ffn: number,
  hidden: number,
  x: Tensor,
  linear: LinearFn,
  style: 'llama' | 'phi3' | 'qwen' | 'granite',
): Tensor {
  if (style === 'phi3' || style === 'granite') {
    // gate_up_proj output is chunked into two views; silu saves the gate view, the product saves both halves. Granite
    // 4.0's shared MLP does the same with input_linear and output_linear.
    const [upName, downName] = style === 'granite' ? ['input_linear', 'output_linear'] : ['gate_up_proj', 'down_proj'];
    const gu = linear(x, upName, 2 * ffn, `${upName} output`);
    const tokens = gu.elems / (2 * ffn);
    const gate = tape.view(gu, 'gate (view)', tokens * ffn);
    const up = tape.view(gu, 'up (view)', tokens * ffn);
    const act = tape.unarySavesInput(gate, 'act(gate)');
    const prod = tape.mul(up, act, 'up * act(gate)');
    return linear(prod, downName, hidden, `${downName} output`);
  }
  if (style === 'qwen') {
    const a1 = linear(x, 'w1', ffn, 'w1 output');
    const a2 = linear(x, 'w2', ffn, 'w2 output');
    const act = tape.unarySavesInput(a2, 'silu(w2 x)');
    const prod = tape.mul(a1, act, 'w1 x * silu(w2 x)');
    return linear(prod, 'mlp.c_proj', hidden, 'c_proj output');
  }
  const g = linear(x, 'gate_proj', ffn, 'gate_proj output');
  if (!tape.fused) {
    // LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x)), evaluated left to right.
    const act = tape.unarySavesInput(g, 'act(gate_proj)');
    const u = linear(x, 'up_proj', ffn, 'up_proj output');
    const prod = tape.mul(act, u, 'act(gate) * up');
    return linear(prod, 'down_proj', hidden, 'down_proj output');
  }
  // torch.compile: act(g) * u as one kernel; backward recomputes act(g) from the saved g and u.
  const u = linear(x, 'up_proj', ffn, 'up_proj output');
  if (g.rg || u.rg) {
    tape.save(g);
    tape.save(u);
  }
  tape.use(g, u);
  return linear(
    tape.tensor('act(gate) * up', g.elems, g.bytesPerElem, g.rg || u.rg),
    'down_proj',
    hidden,
    'down_proj output',
  );
}

/**
 * gelu_new written out in Python (NewGELUActivation): 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))).
 * Under CUDA autocast, pow runs in fp32, so x is upcast and the chain after it stays fp32.
 */
export function geluNew(tape: Tape, x: Tensor): Tensor {
  const x32 = tape.mode === 'amp' ? tape.to(x, 4, 'gelu input (fp32 for pow)') : x;
  const cube = tape.unarySavesInput(x32, 'x^3'); // pow saves its input
  const inner = tape.free(cube, 'x + 0.044715 x^3', undefined, Math.max(x.bytesPerElem, cube.bytesPerElem));
  const th = tape.unarySavesOutput(inner, 'tanh(...)');
  const half = tape.free(x, '0.5 * x');
  const onePlus = tape.free(th, '1 + tanh');
  return tape.mul(half, onePlus, 'gelu_new output');
}

/**
 * The ungated MLPs of the decoder families that are not Llama-shaped in their MLP: the up and down projections' module
 * names and what the activation keeps. FalconMLP (nn.GELU), GPTBigCode and Starcoder2 (gelu_pytorch_tanh: F.gelu keeps
 * its input), OPT (ReLU keeps its output: the same size), GPT-J and GPT-Neo (gelu_new written out).
 */
const PLAIN_MLPS: Readonly<Record<string, readonly [string, string, 'input' | 'output' | 'gelu_new' | 'relu2']>> = {
  falcon: ['dense_h_to_4h', 'dense_4h_to_h', 'input'],
  gpt_bigcode: ['c_fc', 'mlp.c_proj', 'input'],
  starcoder2: ['c_fc', 'c_proj', 'input'],
  opt: ['fc1', 'fc2', 'output'],
  gptj: ['fc_in', 'fc_out', 'gelu_new'],
  gpt_neo: ['c_fc', 'c_proj', 'gelu_new'],
  nemotron: ['up_proj', 'down_proj', 'relu2'],
};

/**
 * ReLUSquaredActivation (transformers activations.py): relu keeps its output; torch.square, a pow that autocast runs in
 * fp32, keeps its input as it runs it (the fp32 copy under autocast) and returns fp32 there.
 */
function reluSquared(tape: Tape, up: Tensor): Tensor {
  const relu = tape.unarySavesOutput(up, 'relu output');
  const input = tape.mode === 'amp' ? tape.to(relu, 4, 'relu output (fp32 for pow)') : relu;
  return tape.unarySavesInput(input, 'relu output squared');
}

/** An ungated MLP (up, activation, down) for a family of PLAIN_MLPS; undefined for the others. */
export function plainMlp(
  tape: Tape,
  family: string,
  ffn: number,
  hidden: number,
  x: Tensor,
  linear: LinearFn,
): Tensor | undefined {
  const plain = PLAIN_MLPS[family];
  if (!plain) return undefined;
  const [upName, downName, keeps] = plain;
  const up = linear(x, upName, ffn, `${upName} output`);
  const act =
    keeps === 'gelu_new'
      ? geluNew(tape, up)
      : keeps === 'relu2'
        ? reluSquared(tape, up)
        : keeps === 'output'
          ? tape.unarySavesOutput(up, 'relu output')
          : tape.unarySavesInput(up, 'gelu output');
  return linear(act, downName, hidden, `${downName} output`);
}
