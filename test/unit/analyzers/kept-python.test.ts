// A Python file's reading kept between analyses (src/analyzers/kept-python.ts): given again for the same text, module
// context and environment while every project file it read reads the same, and read anew when one of them changed,
// appeared or went away. The files are written for these tests.
import * as assert from 'node:assert/strict';
import { keptPythonReading } from '../../../src/analyzers/kept-python';
import { projectModules, type FileReader } from '../../../src/analyzers/file-reader';

const SCRIPT = `from settings import MODEL_NAME, BATCH
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer
model = AutoModelForCausalLM.from_pretrained(MODEL_NAME)
Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=BATCH)).train()
`;

function readerOf(files: Record<string, string>): FileReader {
  return { read: (p) => files[p], join: (from, rel) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}` };
}

const batchOf = (facts: ReturnType<typeof keptPythonReading>): unknown =>
  facts.facts.find((f) => f.key === 'microBatchSize')?.value;

describe('a Python reading kept between analyses', () => {
  it('is given again while the modules it read are unchanged, and read anew when one changes', () => {
    const files: Record<string, string> = { '/p/settings.py': 'MODEL_NAME = "gpt2"\nBATCH = 4\n' };
    const read = () => keptPythonReading(SCRIPT, undefined, projectModules(readerOf(files), '/p/train.py'), undefined);
    const first = read();
    assert.equal(batchOf(first), 4);
    assert.equal(read(), first, 'the same reading, kept');
    files['/p/settings.py'] = 'MODEL_NAME = "gpt2"\nBATCH = 32\n';
    assert.equal(batchOf(read()), 32);
  });

  it('a module that was not there, then is, is read', () => {
    const files: Record<string, string> = {};
    const read = () => keptPythonReading(SCRIPT, undefined, projectModules(readerOf(files), '/q/train.py'), undefined);
    assert.deepEqual(batchOf(read()), { unknown: 'BATCH is not assigned in this file' });
    files['/q/settings.py'] = 'MODEL_NAME = "gpt2"\nBATCH = 8\n';
    assert.equal(batchOf(read()), 8);
    delete files['/q/settings.py'];
    assert.deepEqual(batchOf(read()), { unknown: 'BATCH is not assigned in this file' }, 'and gone again');
  });

  it('other options or another environment are another reading', () => {
    const text =
      'import os\nfrom transformers import TrainingArguments\nTrainingArguments(output_dir="o", per_device_train_batch_size=int(os.getenv("BS", "2")))\n';
    const withBs = (bs: string | undefined) =>
      batchOf(keptPythonReading(text, undefined, undefined, bs === undefined ? new Map() : new Map([['BS', bs]])));
    assert.equal(withBs(undefined), 2);
    assert.equal(withBs('16'), 16);
    assert.equal(withBs(undefined), 2);
  });
});
