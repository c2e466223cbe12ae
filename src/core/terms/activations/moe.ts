// Routed mixture-of-experts blocks: the routers, the expert MLPs (looped or grouped), and the family variants
// (DeepSeek, Llama 4, gpt-oss, Kimi Linear, Nemotron 3). Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { type Architecture, groupedMmExperts } from '../../architecture';
import { gatedMlp } from './mlp';
import type { ActivationPlan, LinearFn } from './plan';
import { Tape, type Tensor, type Weight } from '../saved-tensors';

/**
 * Nemotron 3's MoE block (NemotronHMoE in modeling_nemotron_h.py), from the layer norm's output to the block output:
 * the router in fp32 (F.linear of fp32 copies of the input and the weight, sigmoid, the correction bias, group and
 * top-k selection, gathered and normalized weights times routed_scaling_factor, not under no_grad), the routed experts
 * through transformers 5's default grouped_mm implementation (sorted tokens, sentinel masks, two grouped matmuls with
 * relu² between, the fp32 weighted products summed over the top-k), optional latent projections, and the shared expert
 * (up_proj, relu², down_proj). The routed part is tools/activations/nemotron_moe.py's closed form (82 measured cases,
 * exact), which no term of depends on which experts the tokens reach.
 */
export function nemotronMoe(
  tape: Tape,
  p: ActivationPlan,
  x: Tensor,
  linear: LinearFn,
): { out: Tensor; workingBytes: number } {
  const a = p.arch;
  const moe = a.moe!;
  const r = a.moeRouting ?? { groups: 1, topkGroups: 1, normTopk: true };
  const T = x.elems / a.hidden;
  const S = T * moe.topK;
  const d = a.moeLatent ?? a.hidden;
  const E = moe.experts;
  const Im = moe.expertFfn;
  const routedIn = a.moeLatent ? linear(x, 'fc1_latent_proj', d, 'fc1_latent_proj output') : x;
  if (x.rg || p.baseTrainable) {
    const trained = p.baseTrainable;
    const perPair = 41 + (trained ? 4 : 2) * Im + (trained ? 4 : 2) * d - (r.normTopk ? 0 : 4);
    const perToken = 5 * E + 16 * r.groups + 8 * r.topkGroups + 4 + (trained ? 4 * a.hidden : 0) - (r.normTopk ? 0 : 4);
    tape.saveExtra(
      'router (fp32 scores, masks, indices, weights) and routed experts (grouped_mm inputs, relu², weighted products)',
      S * perPair + T * perToken + 4 * E * (a.hidden + 1),
    );
    // Axolotl's quantize_moe_experts: the grouped matmuls keep the dequantized up and down weights (E x Im x d each).
    if ((p.dequantizedExperts ?? 0) > 0 && x.rg)
      tape.saveExtra(
        'dequantized expert weights (NF4 -> 16-bit, kept by the grouped matmuls)',
        p.dequantizedExperts! * 2 * Im * d * tape.half,
      );
  }
  let routed = tape.tensor('routed experts output', T * d, tape.computeBytes, routedIn.rg || p.baseTrainable);
  if (a.moeLatent) routed = linear(routed, 'fc2_latent_proj', a.hidden, 'fc2_latent_proj output');
  const up = linear(x, 'shared_experts.up_proj', moe.sharedExpertFfn, 'shared expert up_proj output');
  const act = tape.unarySavesOutput(up, 'relu(shared up_proj output)');
  const shared = linear(tape.free(act, 'relu(...)^2'), 'shared_experts.down_proj', a.hidden, 'shared expert output');
  return {
    out: tape.tensor('routed + shared', T * a.hidden, tape.computeBytes, routed.rg || shared.rg),
    workingBytes: 0,
  };
}

/**
 * F.linear(x.float(), weight.float()), the router of DeepSeek-V3 and Kimi Linear: fp32 copies of both, which autocast
 * casts back to 16 bits for the matmul; without autocast the fp32 copy of a 16-bit weight is kept for the input's
 * gradient.
 */
function fp32Router(tape: Tape, p: ActivationPlan, x: Tensor): Tensor {
  const a = p.arch;
  const experts = a.moe!.experts;
  const x32 = tape.to(x, 4, 'router input (fp32)');
  const rw: Weight = { what: 'router', elems: a.hidden * experts, trainable: p.baseTrainable, bytesPerElem: 4 };
  if (x32.rg && tape.mode !== 'amp' && p.weightBytes !== 4)
    tape.saveExtra('router weight (fp32 copy)', a.hidden * experts * 4);
  return tape.linear(x32, rw, experts, 'router logits');
}

/**
 * Kimi Linear's MoE block as Axolotl's modeling_kimi.py trains it (KimiSparseMoeBlock._training_forward): the router
 * F.linear(x.float(), W.float()) (its fp32 weight copy kept), softmax over every expert in fp32 (kept), top-k (int64
 * indices kept) renormalised (the chosen weights and their sum kept) and scaled; the routed pairs sorted by expert:
 * argsort and its inverse, the repeated token index and the gathered inputs (four int64 indices per pair kept by the
 * index ops); one KimiBlockSparseMLP (w1, w3, w2) per expert on its slice; the outputs concatenated and multiplied by
 * the fp32 weights (both kept; the product and so the block's output are fp32), un-permuted and summed per token; the
 * shared experts on every token. tools/activations/kimi_linear.py measures it byte for byte.
 */
export function kimiMoe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  const S = T * moe.topK;
  const probs = tape.unarySavesOutput(
    tape.to(fp32Router(tape, p, x), 4, 'router logits (fp32)'),
    'router softmax (fp32)',
  );
  if (probs.rg) {
    tape.saveExtra('top-k, sorted, token and inverse indices (int64, four per routed pair)', 32 * S);
    if (moe.topK > 1 && (a.moeRouting?.normTopk ?? true)) {
      tape.saveExtra('top-k weights before normalisation and the gathered weights (fp32)', 8 * S);
      tape.saveExtra('top-k weight sum (fp32)', 4 * T);
    } else {
      tape.saveExtra('gathered top-k weights (fp32)', 4 * S);
    }
  }
  const routed = tape.tensor('routed tokens (gathered, sorted by expert)', S * a.hidden, x.bytesPerElem, x.rg);
  const down = expertMlp(tape, a, routed, linear, ['w1', 'w3', 'w2']);
  tape.save(down); // the concatenated expert outputs, kept by the product with the fp32 weights
  if (moe.sharedExpertFfn > 0)
    gatedMlp(
      tape,
      moe.sharedExpertFfn,
      a.hidden,
      x,
      (xx, name, out, what) => linear(xx, `shared_experts.${name}`, out, what),
      'llama',
    );
  return tape.tensor('moe output (fp32)', T * a.hidden, 4, true);
}

/**
 * The routed tokens through their experts' gated MLPs: one nn.Linear per projection (transformers 4), or the fused
 * gate_up_proj chunked into two views and down_proj of transformers 5 (MixtralExperts.forward and its grouped_mm
 * implementation keep the same tensors: the gathered input, gate_up, act(gate), the product).
 */
function expertMlp(
  tape: Tape,
  a: Architecture,
  routed: Tensor,
  linear: LinearFn,
  [gate, up, down]: readonly [string, string, string],
  dequantizedExperts = 0,
): Tensor {
  const ffn = a.moe!.expertFfn;
  if (a.fusedExperts) {
    // Axolotl's quantize_moe_experts: the NF4 experts are dequantized whole (E x 2f x h and E x h x f in 16 bits) for
    // the grouped matmuls, which keep them for the routed input's gradient (bitsandbytes nn/parametrize.py,
    // transformers integrations/moe.py grouped_mm).
    if (dequantizedExperts > 0 && routed.rg)
      tape.saveExtra(
        'dequantized expert weights (NF4 -> 16-bit, kept by the grouped matmuls)',
        dequantizedExperts * 3 * ffn * a.hidden * tape.half,
      );
    const gu = linear(routed, 'experts.gate_up_proj', 2 * ffn, 'expert gate_up output');
    const g = tape.view(gu, 'expert gate (view)', gu.elems / 2);
    const u = tape.view(gu, 'expert up (view)', gu.elems / 2);
    const act = tape.unarySavesInput(g, 'expert act');
    return linear(tape.mul(act, u, 'expert act * up'), 'experts.down_proj', a.hidden, 'expert down output');
  }
  const g = linear(routed, `experts.${gate}`, ffn, 'expert gate output');
  const u = linear(routed, `experts.${up}`, ffn, 'expert up output');
  const act = tape.unarySavesInput(g, 'expert act');
  const prod = tape.mul(act, u, 'expert act * up');
  return linear(prod, `experts.${down}`, a.hidden, 'expert down output');
}

/**
 * transformers 5's default experts implementation over fused 3-D experts (gpt-oss has no other kind): one grouped matmul
 * per projection.
 */
const groupedExperts = (p: ActivationPlan): boolean => groupedMmExperts(p.arch) && p.expertsLooped !== true;

/**
 * What an MoE block tells the layer's backward working set (set by the blocks that run transformers' experts loop or
 * its grouped_mm: moeMlp, deepseekMoe, gptOssMoe): whether its experts run one after another (p.expertsLooped), what it
 * holds at the end of its routed experts' forward beside what it saves when they run through grouped_mm (0 when
 * looped), and what it saves after that point (its shared expert).
 */
export interface MoeInfo {
  looped: boolean;
  forwardEnd: number;
  savedAfterRouted: number;
}

/**
 * transformers 5 grouped_mm (integrations/moe.py) at the top-k sum, beside what is saved: the gathered tokens and
 * their sorted copy, the gated product (routed tokens x expert width), the MoE input, and in the routing weights'
 * dtype (fp32 from DeepSeek's fp32 router) the weighted output, its unsorted copy and the sum.
 */
function groupedForwardEnd(a: Architecture, T: number, cb: number, weightBytes: number): number {
  const routed = T * a.moe!.topK;
  return (
    cb * (2 * routed * a.hidden + routed * a.moe!.expertFfn + T * a.hidden) +
    weightBytes * (2 * routed * a.hidden + T * a.hidden)
  );
}

/** Sparse MoE block: router softmax, top-k, each token through k experts (expected s*b*k/E tokens per expert). */
export function moeMlp(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, info?: MoeInfo): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  // Jamba's router is named `router` and its top-k weights are not renormalized (JambaSparseMoeBlock).
  const jamba = a.family === 'jamba';
  const logits = linear(x, jamba ? 'router' : 'gate', moe.experts, 'router logits');
  tape.unarySavesOutput(logits, 'router softmax (fp32)', 4);
  // Expert inputs are gathered copies of the routed tokens: T*k rows in all.
  const routed = tape.tensor('routed tokens', T * moe.topK * a.hidden, x.bytesPerElem, x.rg);
  const down = expertMlp(
    tape,
    a,
    routed,
    linear,
    a.family === 'mixtral' ? ['w1', 'w3', 'w2'] : ['gate_proj', 'up_proj', 'down_proj'],
    p.dequantizedExperts,
  );
  // Each expert output is scaled by its routing weight (saved for the weight's grad); index_add_ keeps its
  // source (the weighted output) and the int64 token indices; top-k indices and the weight normalisation
  // (clone + sum) are kept too.
  const weighted = tape.mul(
    down,
    tape.tensor('routing weights (16-bit)', T * moe.topK, x.bytesPerElem, x.rg),
    'weighted expert output',
  );
  if (info) info.looped = p.expertsLooped === true;
  if (groupedExperts(p)) {
    if (info) info.forwardEnd = groupedForwardEnd(a, T, tape.computeBytes, x.bytesPerElem);
    // transformers 5 grouped_mm (integrations/moe.py): the weighted outputs are put back in token order by an index
    // (which keeps its int64 indices, not its source) and summed over the top-k; the tokens were gathered by their
    // index and sorted by expert (argsort, and its inverse): three int64 index tensors.
    tape.saveExtra('token, sort and unsort indices (int64)', 3 * T * moe.topK * 8);
  } else {
    tape.save(weighted);
    tape.saveExtra('token indices per expert (int64)', T * moe.topK * 8);
  }
  tape.saveExtra('top-k indices (int64)', T * moe.topK * 8);
  if (!jamba) tape.saveExtra('routing weights before normalisation (fp32) and their sum', T * moe.topK * 4 + T * 4);
  if (moe.sharedExpertFfn > 0) {
    const before = tape.totalBytes();
    const sg = linear(x, 'shared_expert.gate_proj', moe.sharedExpertFfn, 'shared expert gate');
    const su = linear(x, 'shared_expert.up_proj', moe.sharedExpertFfn, 'shared expert up');
    const sa = tape.unarySavesInput(sg, 'shared expert act');
    const sp = tape.mul(sa, su, 'shared expert act * up');
    const sd = linear(sp, 'shared_expert.down_proj', a.hidden, 'shared expert down');
    const gate = linear(x, 'shared_expert_gate', 1, 'shared expert gate logit');
    const sig = tape.unarySavesOutput(gate, 'sigmoid(gate)');
    tape.mul(sig, sd, 'gated shared expert');
    if (info) info.savedAfterRouted = tape.totalBytes() - before;
  }
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/**
 * DeepSeek MoE (modeling_deepseek_v3.py DeepseekV3TopkRouter + DeepseekV3MoE): the router is F.linear of the fp32
 * hidden states and fp32 weight (autocast runs it in 16 bits), then sigmoid; the chosen scores are gathered (int64
 * indices kept), normalised in place (a copy and the sum kept) and scaled. Each routed token goes through its expert
 * (the token index and the gathered input kept), its output times its weight in the weights' dtype (both kept) is
 * index_add_-ed into a zero tensor of that dtype (the product kept); the shared experts run on every token.
 */
export function deepseekMoe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, info?: MoeInfo): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  const routedTokens = T * moe.topK;
  const logits = fp32Router(tape, p, x);
  const scores = tape.unarySavesOutput(logits, 'router sigmoid');
  const wb = scores.bytesPerElem;
  if (scores.rg) {
    tape.saveExtra('top-k indices (int64)', routedTokens * 8);
    tape.saveExtra('top-k scores before normalisation and their sum', routedTokens * wb + T * wb);
  }
  const routed = tape.tensor('routed tokens (gathered)', routedTokens * a.hidden, x.bytesPerElem, x.rg);
  // torch.where(mask[e]) returns the token and slot indices as views of one nonzero() result: 2 x int64 per token.
  const grouped = groupedExperts(p);
  // transformers 5 grouped_mm: the token, sort and unsort indices (int64); the 4.x loop: torch.where(mask[e]) returns
  // the token and slot indices as views of one nonzero() result, 2 x int64 per token.
  if (x.rg)
    tape.saveExtra(
      grouped ? 'token, sort and unsort indices (int64)' : 'token and slot indices per expert (int64)',
      routedTokens * (grouped ? 24 : 16),
    );
  const down = expertMlp(tape, a, routed, linear, ['gate_proj', 'up_proj', 'down_proj'], p.dequantizedExperts);
  const weighted = tape.mul(
    down,
    tape.tensor('routing weight per routed token', routedTokens, wb, scores.rg),
    'weighted expert output',
    wb,
  );
  if (info) info.looped = p.expertsLooped === true;
  if (grouped && info) info.forwardEnd = groupedForwardEnd(a, T, tape.computeBytes, wb);
  if (!grouped) tape.save(weighted); // index_add_ keeps its source (grouped_mm's index back to token order does not)
  if (moe.sharedExpertFfn > 0) {
    const before = tape.totalBytes();
    gatedMlp(
      tape,
      moe.sharedExpertFfn,
      a.hidden,
      x,
      (xx, name, out, what) => linear(xx, name.replace(/^(gate|up|down)_proj$/, 'shared_experts.$1_proj'), out, what),
      'llama',
    );
    if (info) info.savedAfterRouted = tape.totalBytes() - before;
  }
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/**
 * Llama 4 MoE as transformers runs it (modeling_llama4.py Llama4TextMoe, Llama4Router, Llama4TextExperts): every token
 * goes through every expert. The router (an nn.Linear) gives E logits, top-k keeps k of them (int64 indices kept),
 * scatter_ fills the rest with -inf, sigmoid in fp32 (its output kept) cast back; the hidden states are repeated E
 * times and scaled by their score (both factors kept: the repeated copy for the scores' gradient, the transposed
 * scores, a copy, for the input's); bmm with gate_up_proj (E x h x 2f: its input kept only when the experts train,
 * its 16-bit copy under autocast), silu of the gate half (the whole gate_up output kept), times the up half (the
 * activation kept), bmm with down_proj, summed over the experts onto the shared expert's output.
 */
export function llama4Moe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const E = moe.experts;
  const f = moe.expertFfn;
  const T = x.elems / a.hidden;
  const logits = linear(x, 'router', E, 'router logits');
  const cb = logits.bytesPerElem;
  if (logits.rg) {
    tape.saveExtra('top-k indices (int64)', T * moe.topK * 8);
    tape.saveExtra('router sigmoid output (fp32)', T * E * 4);
  }
  const scores = tape.tensor('routing scores (transposed copy)', T * E, cb, logits.rg);
  const repeated = tape.tensor(`hidden states repeated x ${E}`, E * T * a.hidden, x.bytesPerElem, x.rg);
  const routedIn = tape.mul(repeated, scores, 'scaled expert inputs');
  if (a.expertsAsLinear) {
    // bitsandbytes: SequentialLlama4TextExperts runs one Llama4TextMLP per expert over its slice of the E x T rows.
    gatedMlp(tape, f, a.hidden, routedIn, (xx, name, out, what) => linear(xx, `experts.${name}`, out, what), 'llama');
  } else {
    llama4BmmExperts(tape, p, routedIn);
  }
  gatedMlp(
    tape,
    moe.sharedExpertFfn,
    a.hidden,
    x,
    (xx, name, out, what) => linear(xx, `shared_expert.${name}`, out, what),
    'llama',
  );
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}

/** Llama4TextExperts: bmm of the E x T rows with the 3-D gate_up_proj, silu of the gate half times the up half, bmm with down_proj. */
function llama4BmmExperts(tape: Tape, p: ActivationPlan, routedIn: Tensor): void {
  const a = p.arch;
  const E = a.moe!.experts;
  const f = a.moe!.expertFfn;
  const expertWeight = (what: string, elems: number): Weight => ({
    what,
    elems,
    trainable: p.baseTrainable,
    bytesPerElem: p.weightBytes,
    uncachedCopies: E,
  });
  // Axolotl's quantize_moe_experts: bmm takes the whole dequantized 3-D weights and keeps them for the input's gradient.
  if ((p.dequantizedExperts ?? 0) > 0 && routedIn.rg)
    tape.saveExtra(
      'dequantized expert weights (NF4 -> 16-bit, kept by bmm)',
      p.dequantizedExperts! * 3 * f * a.hidden * tape.half,
    );
  const gateUp = tape.linear(routedIn, expertWeight('experts.gate_up_proj', a.hidden * 2 * f), 2 * f, 'expert gate_up');
  tape.save(gateUp); // silu keeps the gate half, a view of gate_up; the product keeps the up half
  const rows = routedIn.elems / a.hidden; // E x T
  const act = tape.tensor('silu(gate)', rows * f, gateUp.bytesPerElem, gateUp.rg);
  const prod = tape.mul(tape.view(gateUp, 'up (view)', rows * f), act, 'up * silu(gate)');
  tape.linear(prod, expertWeight('experts.down_proj', f * a.hidden), a.hidden, 'expert down');
}

/**
 * gpt-oss MoE in training (modeling_gpt_oss.py GptOssTopKRouter + GptOssExperts, the per-expert loop of
 * transformers >= 4.57, which indexes the expert weights with a 0-d index: views, nothing copied). Router: a linear
 * with bias, top-k (int64 indices kept), softmax over the k values (kept), scattered into a T x E score matrix.
 * Each expert: its tokens gathered (index keeps the int64 token indices), gate_up = x W + b, the gate and up halves
 * clamped (clamp keeps its input: the whole gate_up), glu = gate * sigmoid(1.702 gate) (sigmoid output and the clamped
 * gate kept), (up + 1) * glu (both kept), out = . W_down + b, out * routing weight (both kept), index_add_.
 * Per routed token: 2f + 4f + h elements and 8 B of index; full fine-tuning adds the inputs of both matmuls.
 */
export function gptOssMoe(tape: Tape, p: ActivationPlan, x: Tensor, linear: LinearFn, info?: MoeInfo): Tensor {
  const a = p.arch;
  const moe = a.moe!;
  const T = x.elems / a.hidden;
  const f = moe.expertFfn;
  const routedTokens = T * moe.topK;
  const rw: Weight = {
    what: 'router',
    elems: a.hidden * moe.experts,
    trainable: p.baseTrainable,
    bytesPerElem: p.weightBytes,
  };
  const logits = tape.linear(x, rw, moe.experts, 'router logits');
  if (logits.rg) {
    tape.saveExtra('top-k indices (int64)', routedTokens * 8);
    tape.unarySavesOutput(tape.tensor('top-k logits', routedTokens, logits.bytesPerElem, true), 'top-k softmax');
  }
  const routed = tape.tensor('routed tokens (gathered)', routedTokens * a.hidden, x.bytesPerElem, x.rg);
  // transformers 5 runs the experts through grouped_mm: the tokens gathered, sorted by expert and put back in token
  // order by an index (token, sort and unsort indices, int64), nothing kept of the weighted outputs; the 4.x loop keeps
  // each expert's token indices and index_add_'s source.
  const grouped = groupedExperts(p);
  if (x.rg)
    tape.saveExtra(
      grouped ? 'token, sort and unsort indices (int64)' : 'token indices per expert (int64)',
      routedTokens * (grouped ? 24 : 8),
    );
  // At the top-k sum grouped_mm also holds the gathered tokens and their sorted copy, the biases gathered per routed
  // token (gate_up's and down's), the gated product, the weighted output and its unsorted copy, the MoE input and the
  // sum (profiled: tools/peak/measure_step.py --moe-checkpointing).
  const cb = tape.computeBytes;
  if (info) info.looped = p.expertsLooped === true;
  if (grouped && info) info.forwardEnd = cb * (5 * routedTokens * a.hidden + 3 * routedTokens * f + 2 * T * a.hidden);
  // Axolotl's quantize_moe_experts: each expert's matmul takes a view of the whole dequantized 3-D weight, which its
  // views keep alive for the input's gradient (as in expertMlp).
  if ((p.dequantizedExperts ?? 0) > 0 && routed.rg)
    tape.saveExtra(
      'dequantized expert weights (NF4 -> 16-bit, kept by the expert matmuls)',
      p.dequantizedExperts! * 3 * f * a.hidden * tape.half,
    );
  // Each expert's matmul uses a view of its slice of the 3-D parameter: under autocast every view is cast anew (not a
  // leaf, so not cached) and each copy is kept for the input's gradient: one per expert, per layer.
  const expertWeight = (what: string, elems: number): Weight => ({
    what,
    elems,
    trainable: p.baseTrainable,
    bytesPerElem: p.weightBytes,
    uncachedCopies: moe.experts,
  });
  // The biases are added after the matmul, so the sum takes the wider dtype (fp32 with fp32 weights under autocast).
  // Unsloth's 4-bit experts (Architecture.expertsAsLinear): each expert's nn.Linear, as any quantized linear runs.
  const perExpert = a.expertsAsLinear === true;
  const gateUp0 = perExpert
    ? linear(routed, 'experts.gate_up_projs', 2 * f, 'expert gate_up')
    : tape.linear(routed, expertWeight('experts.gate_up_proj', a.hidden * 2 * f), 2 * f, 'expert gate_up');
  const gateUp = tape.free(gateUp0, 'expert gate_up + bias', undefined, Math.max(gateUp0.bytesPerElem, p.weightBytes));
  tape.save(gateUp); // clamp of the gate and of the up view keeps the input
  const gate = tape.tensor('clamped gate', routedTokens * f, gateUp.bytesPerElem, gateUp.rg);
  const sig = tape.unarySavesOutput(tape.free(gate, '1.702 gate'), 'sigmoid(1.702 gate)');
  const glu = tape.mul(gate, sig, 'glu');
  const upPlus = tape.tensor('clamped up + 1', routedTokens * f, gateUp.bytesPerElem, gateUp.rg);
  const gated = tape.mul(upPlus, glu, '(up + 1) * glu');
  const out0 = perExpert
    ? linear(gated, 'experts.down_projs', a.hidden, 'expert down')
    : tape.linear(gated, expertWeight('experts.down_proj', f * a.hidden), a.hidden, 'expert down');
  const out = tape.free(out0, 'expert down + bias', undefined, Math.max(out0.bytesPerElem, p.weightBytes));
  const weighted = tape.mul(
    out,
    tape.tensor('routing weight per routed token', routedTokens, tape.computeBytes, logits.rg),
    'weighted expert output',
  );
  if (!grouped) tape.save(weighted); // index_add_ keeps its source (derivatives.yaml: grad.index_select(...).expand_as(source))
  return tape.tensor('moe output', T * a.hidden, x.bytesPerElem, true);
}
