// A Makefile given alone (collect/makefile.ts): the recipe of its first target that starts a training run, read as a
// launch script in place, with its variable definitions (kallewoof/qlora's Makefile, whose `13b` target runs
// `accelerate launch -m axolotl.cli.train ./axolotl-13b.yml` after a `dataset` target that runs a conversion script;
// abridged, the model named in a variable). Each expected value is written in the test's own files.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';
import { makefileLaunch } from '../../../src/analyzers/collect/makefile';

const MAKEFILE = [
  'MODEL = Qwen/Qwen2.5-0.5B',
  'BATCH := 4',
  '',
  'dataset:',
  '\tpython ./convert-raw-dataset.py',
  '',
  'train: dataset',
  '\t@echo training',
  '\ttorchrun --nproc_per_node 2 train.py --model_name_or_path $(MODEL) \\',
  '\t\t--per_device_train_batch_size $(BATCH)',
  '',
].join('\n');

describe('Makefile given alone', () => {
  it("the first target that launches training, with the Makefile's variables: not the dataset target's python", () => {
    const run = runFiles({ '/m/Makefile': MAKEFILE }, '/m/Makefile');
    assert.deepEqual(
      [run.setup?.model, run.setup?.gpus_per_node, run.setup?.micro_batch_size],
      ['Qwen/Qwen2.5-0.5B', 2, 4],
    );
    assert.equal(run.unrecognized.length, 0);
  });

  it('keeps every offset: a value stays where it is written, the other lines blanked', () => {
    const script = makefileLaunch(MAKEFILE)!;
    assert.equal(script.length, MAKEFILE.length);
    const at = MAKEFILE.indexOf('Qwen/Qwen2.5-0.5B');
    assert.equal(script.slice(at, at + 17), 'Qwen/Qwen2.5-0.5B');
    assert.match(script.split('\n')[0], /^ +MODEL=Qwen/);
    assert.equal(script.split('\n')[4].trim(), '', "the dataset target's recipe is blanked");
    // No target that trains: not read as a launch script.
    assert.equal(makefileLaunch('all:\n\tpython convert.py\n'), undefined);
  });
});
