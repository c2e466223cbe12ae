// A project's constants as a training script passes them on (sids07/LLM_finetuning sft-dpo-trainer, Apache-2.0:
// scripts/script_dpo.py imports `model_args` and `training_args` dicts from src/config_dpo.py, run with src/ on the
// path, hands them to `train(model_args, data_args, training_args)`, and passes `model_args["MODEL_NAME"]` to
// DPOTrainer as its first argument). Each expected value is written in the test's own files.
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const TRAIN = (imports: string, call: string): string =>
  `${imports}\nfrom trl import DPOTrainer\n\n` +
  'def train(model_args, training_args):\n' +
  '    model = model_args["MODEL_NAME"]\n' +
  `    trainer = ${call}\n` +
  '    trainer.train()\n\n' +
  'if __name__ == "__main__":\n    train(model_args, training_args)\n';

const CONFIG =
  'model_args = {"MODEL_NAME": "Qwen/Qwen2.5-0.5B-Instruct"}\ntraining_args = {"per_device_train_batch_size": 4}\n';

describe('hf-python: constants a script imports and passes on', () => {
  it("a dict constant passed to the function's parameter is the constant: its items where the function reads them", () => {
    const r = runProject(
      {
        'scripts/script_dpo.py': TRAIN('from config_dpo import model_args, training_args', 'DPOTrainer(model=model)'),
        'scripts/config_dpo.py': CONFIG,
      },
      'scripts/script_dpo.py',
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B-Instruct');
  });

  it("a module under src/ (run with src/ on the path) and the trainer's first argument as its model", () => {
    const r = runProject(
      {
        'scripts/script_dpo.py': TRAIN('from config_dpo import model_args, training_args', 'DPOTrainer(model, None)'),
        'src/config_dpo.py': CONFIG,
      },
      'scripts/script_dpo.py',
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B-Instruct');
  });
});
