// A tied model as LitGPT runs it: its GPT builds the output head as a linear of its own (litgpt/model.py,
// `self.lm_head = nn.Linear(config.n_embd, config.padded_vocab_size, ...)` beside `wte = nn.Embedding(...)`), and its
// checkpoint conversion copies the embedding into that head when the checkpoint has none
// (litgpt/scripts/convert_hf_checkpoint.py: `state_dict["lm_head.weight"] = state_dict["transformer.wte.weight"]`).
// Nothing ties the two again, so a tied model (Gemma, Llama 3.2 1B / 3B, Qwen2.5 up to 3B) trains and stores a
// V x h head beside its embedding. Pure.
// Docs: docs/estimate/parameters.md
import type { Architecture } from './types';

const copiedHeads = new WeakMap<Architecture, Architecture>();

/** The architecture with its tied head copied into a parameter of its own; one object per architecture. */
export function withCopiedHead(a: Architecture): Architecture {
  if (!a.tied) return a;
  let out = copiedHeads.get(a);
  if (!out) {
    out = { ...a, tied: false, copiedHead: true };
    copiedHeads.set(a, out);
  }
  return out;
}
