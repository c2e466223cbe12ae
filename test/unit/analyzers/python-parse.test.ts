// The bounded Python parse (src/analyzers/python-parse.ts): lines over MAX_LINE characters are blanked before the parse,
// with a located warning; the rest of the script is read as it is.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { MAX_LINE } from '../../../src/analyzers/python-parse';

describe('python-parse: over-long lines', () => {
  it("a blanked line keeps its triple quotes: a string opened there still closes below (PegasusArc's notebook export)", () => {
    // PegasusArc/LoRa-Finetuning-Mistral-with-Dolly15K: a Markdown cell with a pasted image is one `"""![image.png](data:
    // image/png;base64,...` line of 421,251 characters, its string closed thirty lines down; the trainer follows.
    const image = `"""![image.png](data:image/png;base64,${'A'.repeat(MAX_LINE + 10)})`;
    const text = [
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'from trl import SFTTrainer',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      image,
      '# Data Preparation',
      '"""',
      'trainer = SFTTrainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=2))',
      'trainer.train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const warning = r.problems.find((p) => p.code === 'not-analyzed');
    assert.equal(warning?.span.start, text.indexOf(image));
    assert.equal(r.facts.find((f) => f.key === 'microBatchSize')?.value, 2);
  });
});
