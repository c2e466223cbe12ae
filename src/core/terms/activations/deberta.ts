// Term: DeBERTa-v2 / v3's disentangled self-attention in the block replays. Sources: transformers
// models/deberta_v2/modeling_deberta_v2.py (DisentangledSelfAttention.forward, disentangled_attention_bias, 5.17).
// Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import { weight } from './linear';
import { eagerSoftmax } from './attention';
import type { BlockContext } from './block';
import type { Tensor } from '../saved-tensors';

/**
 * The attention sublayer of a DeBERTa-v2 / v3 layer, from its input to the context before the output's dense:
 * - q, k and v projected and reshaped by transpose_for_scores, a contiguous copy each (the projection's output freed);
 * - `bmm(q, k^T / scale)`: the scaled key is a new tensor, kept by the bmm with q;
 * - the relative embeddings through the layer's pos_dropout, projected by query_proj and key_proj (share_att_key) or by
 *   pos_query_proj and pos_key_proj, each reshaped and repeated over the batch (b x P rows), kept by the bmm that reads
 *   it;
 * - c2p: `bmm(q, pos_key^T)` (b x heads x s x P), its clamped int64 index (s x s, kept by gather), the gather (b x
 *   heads x s x s), divided by the scale and added to 0 (a copy); p2c: `bmm(k, pos_query^T)`, its own index (three int64
 *   s x s steps: negate, add, clamp), gather, transpose (a view), divided and added in place;
 * - the content scores plus the relative ones, masked_fill with the inverted boolean of the encoder's mask (b x s x s,
 *   kept), the softmax (kept), its dropout, `bmm(probs, v)` and the context permuted back into a contiguous copy.
 */
export function disentangledAttention(bc: BlockContext, x0: Tensor): Tensor {
  const { a, tape, linear, qd, b, s, heads, T } = bc;
  const d = a.deberta;
  const scoresElems = b * heads * s * s;
  const projected = (name: string): Tensor =>
    tape.free(linear(x0, name, qd, `${name} output`), `${name} (transpose_for_scores copy)`);
  const q = projected('query_proj');
  const k = projected('key_proj');
  const v = projected('value_proj');
  const kScaled = tape.free(k, 'key_layer^T / scale');
  let scores = tape.matmul(q, kScaled, scoresElems, 'content scores (q · k^T / scale)');
  if (d && d.relRows > 0 && (d.c2p || d.p2c)) {
    const rel = relativeScores(bc, q, k, d);
    tape.use(scores, rel);
    scores = tape.tensor(
      'content + relative scores',
      scoresElems,
      Math.max(scores.bytesPerElem, rel.bytesPerElem),
      true,
    );
  }
  // attention_mask.bool(), then ~: two b x s x s booleans, the second kept by masked_fill.
  const maskBool = tape.tensor('attention_mask.bool() (b x s x s)', b * s * s, 1, false);
  tape.use(maskBool);
  tape.tensor('~attention_mask (b x s x s)', b * s * s, 1, false);
  if (scores.rg) tape.saveExtra('~attention_mask kept by masked_fill (bool)', b * s * s);
  const masked = tape.free(scores, 'masked_fill(scores)');
  const probs = tape.dropout(
    eagerSoftmax(bc, masked, scoresElems, { causalRepeat: false, softmaxFp32: false, dropout: a.attentionDropout }),
    a.attentionDropout,
    'attention dropout',
  );
  tape.attentionOutputBytes += probs.storageBytes;
  const context = tape.matmul(probs, v, T * qd, 'context (probs · v)');
  return tape.free(context, 'context (permuted, contiguous)');
}

/** The c2p and p2c scores of one layer, summed (disentangled_attention_bias). */
function relativeScores(bc: BlockContext, q: Tensor, k: Tensor, d: NonNullable<BlockContext['a']['deberta']>): Tensor {
  const { p, a, tape, b, s, heads, qd } = bc;
  const P = d.relRows;
  const scoresElems = b * heads * s * s;
  // rel_embeddings (the encoder's, LayerNorm'd once per forward) through this layer's pos_dropout (hidden dropout).
  const relEmbeddings = tape.tensor(
    'rel_embeddings (LayerNorm output)',
    P * a.hidden,
    p.mode === 'amp' ? 4 : tape.computeBytes,
    p.normsTrainable,
  );
  const relIn = tape.dropout(relEmbeddings, a.hiddenDropout, 'rel_embeddings pos_dropout');
  const relProjection = (name: string): Tensor => {
    // A LoRA target adapts the relative embeddings' projection too (its dropout, lora_A and lora_B on P rows, and a
    // gradient through them); otherwise the layer's query_proj / key_proj again, whose 16-bit copy autocast cached at
    // the content projection: no second copy.
    const w = weight(bc, name);
    const y = bc.p.lora?.targets.has(name)
      ? bc.linear(relIn, name, qd, `${name}(rel_embeddings)`)
      : tape.linear(
          relIn,
          { ...w, bytesPerElem: p.mode === 'amp' ? tape.computeBytes : w.bytesPerElem },
          qd,
          `${name}(rel_embeddings)`,
        );
    return tape.free(
      tape.free(y, `${name} (transpose_for_scores copy)`),
      `${name} repeated over the batch`,
      b * P * qd,
    );
  };
  const index = (what: string, steps: number): void => {
    for (let i = 1; i < steps; i++) tape.use(tape.tensor(`${what} step ${i} (int64)`, s * s, 8, false));
    if (q.rg || k.rg) tape.saveExtra(`${what} (int64, kept by gather)`, s * s * 8);
  };
  // gather's backward takes the tensor it read whole (GatherBackward0 keeps self and index): b x heads x s x P.
  const gatherKeeps = (x: Tensor): void => {
    if (x.rg) tape.save(x);
  };
  let score: Tensor | undefined;
  if (d.c2p) {
    const posKey = relProjection(d.shareAttKey ? 'key_proj' : 'pos_key_proj');
    const c2p = tape.matmul(q, posKey, b * heads * s * P, 'c2p scores (q · pos_key^T)');
    index('c2p index: clamp(relative_pos + span)', 2);
    gatherKeeps(c2p);
    const gathered = tape.free(c2p, 'c2p gathered (b x heads x s x s)', scoresElems);
    score = tape.free(tape.free(gathered, 'c2p / scale'), 'c2p added to 0 (copy)');
  }
  if (d.p2c) {
    const posQuery = relProjection(d.shareAttKey ? 'query_proj' : 'pos_query_proj');
    const p2c = tape.matmul(k, posQuery, b * heads * s * P, 'p2c scores (k · pos_query^T)');
    index('p2c index: clamp(-relative_pos + span)', 3);
    gatherKeeps(p2c);
    const scaled = tape.free(tape.free(p2c, 'p2c gathered (b x heads x s x s)', scoresElems), 'p2c / scale');
    if (score) tape.use(score, scaled);
    score = score ?? tape.free(scaled, 'p2c added to 0 (copy)');
  }
  return score!;
}
