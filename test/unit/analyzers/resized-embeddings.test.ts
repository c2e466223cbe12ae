// resize_token_embeddings(len(tokenizer)) with a tokenizer from another place than the model (src/analyzers/
// hf-python/resized-embeddings.ts): ymcui/Chinese-LLaMA-Alpaca-2@2a334d1 run_clm_sft_with_peft.py resizes Llama-2's
// 32,000 rows to its 55,296-token tokenizer, whose size no file gives; said, not guessed.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

const script = (tokenizerSource: string): string =>
  [
    'from transformers import LlamaForCausalLM, LlamaTokenizer, Trainer, TrainingArguments',
    `tokenizer = LlamaTokenizer.from_pretrained(${tokenizerSource})`,
    'model = LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")',
    'model.resize_token_embeddings(len(tokenizer))',
    'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
    '',
  ].join('\n');

describe('resize_token_embeddings', () => {
  it("to a tokenizer loaded from elsewhere: a warning at its size, the checkpoint's vocabulary kept", () => {
    const text = script('"hfl/chinese-llama-2-tokenizer"');
    const w = analyzeHfPython(text).problems.find((p) => p.rawKey === 'resize_token_embeddings');
    assert.equal(w?.severity, 'warning');
    assert.equal(w?.code, 'not-modeled');
    assert.match(
      w?.message ?? '',
      /tokenizer loaded from "hfl\/chinese-llama-2-tokenizer", not the model's checkpoint/,
    );
    assert.equal(text.slice(w!.span.start, w!.span.end), 'len(tokenizer)');
  });

  it("to the model's own tokenizer (a pad token added): nothing said", () => {
    const text = script('"meta-llama/Llama-2-7b-hf"');
    assert.equal(
      analyzeHfPython(text).problems.some((p) => p.rawKey === 'resize_token_embeddings'),
      false,
    );
  });
});
