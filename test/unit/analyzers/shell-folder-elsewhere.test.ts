// A model folder whose path starts with what the files do not give (shell/launch.ts folderElsewhere): RyanS161/cutlist's
// sbatch script (MIT) untars its model into the job's scratch folder and trains `$TMPDIR/$MODEL_NAME` with
// MODEL_NAME="Llama-3.2-1B-Instruct". The known rest is a path on another machine, whose last part names the model
// (core/model-from-path.ts), said at the value.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { modelFromPathName } from '../../../src/core/model-from-path';

const model = (text: string) => analyzeShell(text).facts.find((f) => f.key === 'model');

describe('shell: a model folder under a path the files do not give', () => {
  it('$TMPDIR/$MODEL_NAME is the folder /…/Llama-3.2-1B-Instruct, and the unknown start is said', () => {
    const text = 'MODEL_NAME="Llama-3.2-1B-Instruct"\ntorchrun train.py --model_name_or_path $TMPDIR/$MODEL_NAME\n';
    assert.equal(model(text)?.value, '/…/Llama-3.2-1B-Instruct');
    const said = analyzeShell(text).problems.find((p) => p.code === 'not-static');
    assert.match(said?.message ?? '', /TMPDIR.*its last part names the folder/);
    assert.equal(modelFromPathName('/…/Llama-3.2-1B-Instruct')?.id, 'meta-llama/Llama-3.2-1B');
  });

  it('an unknown last part, or nothing known, leaves the model unknown', () => {
    assert.deepEqual(Object.keys(model('torchrun t.py --model_name_or_path $BASE/models/$SIZE\n')?.value ?? {}), [
      'unknown',
    ]);
    assert.deepEqual(Object.keys(model('torchrun t.py --model_name_or_path $MODEL\n')?.value ?? {}), ['unknown']);
  });
});
