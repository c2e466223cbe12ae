// A DPO loop the script writes itself (DeepSpeed-Chat's style: jessicazhu123/Deepspeed_LLM's
// training/direct_preference_optimization/main.py): a second model loaded as the reference (`reference_model =
// AutoModelForCausalLM.from_pretrained(...)`, then its own `deepspeed.initialize`), run on the concatenated chosen and
// rejected rows under no_grad, and the DPO loss (`-logsigmoid(beta * (pi_logratios - ref_logratios))`). The run is a
// paired preference run with a reference copy: both halves of each pair are rows of the batch, and the reference's
// weights are the model's again (sharded as the policy's). Without those marks no preference is read. Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';
import { assignedName, isModelLoad, span } from './syntax';

const LOOP = 'pytorch';

/** A name the script gives a reference model (`ref_model`, `reference_model`, `ref_policy`, `model_ref`). */
const REFERENCE_NAME = /^(?:ref|reference)(?:_\w+)?$|^\w+_ref$/;
/** The DPO loss over the two halves of each pair. */
const DPO_LOSS = /\blogsigmoid\b/;

/** The preference facts of a loop that trains against a reference model it loads: DPO, a copy as the reference. */
export function loopReferenceModel(file: PythonFile, calls: readonly SyntaxNode[]): void {
  if (file.facts.some((f) => f.key === 'preference')) return;
  if (!DPO_LOSS.test(file.text) || !/chosen/.test(file.text) || !/rejected/.test(file.text)) return;
  for (const c of calls) {
    if (!isModelLoad(file.calleeName(c)?.split('.') ?? [])) continue;
    const name = assignedName(c, file.text);
    if (!name || !REFERENCE_NAME.test(name)) continue;
    // The reference is run: called on a batch (`reference_model(batch["input_ids"], ...)`).
    if (!new RegExp(`\\b${name}\\s*\\(`).test(file.text)) continue;
    const at = span(c.firstChild!);
    const rawValue = `${name} = ${file.text.slice(at.start, at.end)}(...), the loss's reference (DPO)`;
    file.facts.push({
      key: 'preference',
      rawKey: name,
      value: 'dpo',
      rawValue,
      keySpan: at,
      valueSpan: at,
      tool: LOOP,
    });
    file.facts.push({
      key: 'referenceModel',
      rawKey: name,
      value: 'given',
      rawValue,
      keySpan: at,
      valueSpan: at,
      tool: LOOP,
    });
    return;
  }
}

/** The pairs' rewards split by position in a batch of both halves: `torch.arange(0, bsz, 2)`. */
const PAIR_STRIDE = /\btorch\.arange\(\s*0\s*,\s*[\w.()[\]]+\s*,\s*2\s*\)/;
/** A Trainer subclass's own loss. */
const COMPUTE_LOSS = /\bdef\s+compute_loss\s*\(/;

/**
 * A pairwise reward model trained by a Trainer subclass of TRL's stack_llama reward script (copied by RLHFlow's
 * RLHF-Reward-Modeling bradley-terry-rm and many since): its collator puts each pair's chosen and rejected sequences
 * into one batch, and compute_loss splits the rewards of that single forward by position (`jidx = torch.arange(0, bsz,
 * 2)`) into `-logsigmoid(rewards_j - rewards_k)`. The run is a paired reward run: each example of the micro-batch is
 * two sequences, no reference. Without those marks no preference is read.
 */
export function trainerRewardPairs(file: PythonFile): void {
  if (file.facts.some((f) => f.key === 'preference')) return;
  if (!COMPUTE_LOSS.test(file.text) || !DPO_LOSS.test(file.text)) return;
  const m = PAIR_STRIDE.exec(file.text);
  if (!m) return;
  const at = { start: m.index, end: m.index + m[0].length };
  file.facts.push({
    key: 'preference',
    rawKey: 'compute_loss',
    value: 'reward',
    rawValue: `${m[0]}: the chosen and rejected rewards of one forward over both halves of each pair`,
    keySpan: at,
    valueSpan: at,
    tool: 'hf-trainer',
  });
}
