// The output head as LitGPT builds it. Its GPT makes the head a linear of its own (litgpt/model.py,
// `self.lm_head = nn.Linear(config.n_embd, config.padded_vocab_size, ...)` beside `wte = nn.Embedding(...)`), and its
// checkpoint conversion copies the embedding into that head when the checkpoint has none
// (litgpt/scripts/convert_hf_checkpoint.py: `state_dict["lm_head.weight"] = state_dict["transformer.wte.weight"]`).
// The fine-tuning scripts refuse train.tie_embeddings, so a tied model (Gemma, Llama 3.2 1B / 3B, Qwen2.5 up to 3B)
// fine-tunes with a V x h head beside its embedding. Pretraining ties them when train.tie_embeddings is set
// (litgpt/pretrain.py: `model.transformer.wte.weight = model.lm_head.weight`), whatever the config says. Pure.
// Docs: docs/estimate/parameters.md
import { variant } from './experts';
import type { Architecture } from './types';

const copies = new WeakMap<Architecture, Architecture>();
const shared = new WeakMap<Architecture, Architecture>();

/** The architecture as LitGPT's GPT builds it, `tieEmbeddings` being train.tie_embeddings; one object per architecture. */
export function litgptHead(a: Architecture, tieEmbeddings: boolean): Architecture {
  if (tieEmbeddings) return a.tied ? a : variant(shared, a, { tied: true, headByCode: 'shared' });
  return a.tied ? variant(copies, a, { tied: false, headByCode: 'copy' }) : a;
}
