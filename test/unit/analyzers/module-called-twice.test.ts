// A project module that several files of the run import and call into is read for every name they call, with the
// arguments of each call (collect/index.ts moduleEntries), and a package's `__init__.py` that passes its modules'
// names on is no step of its own. The shape of hiyouga/ChatGLM-Efficient-Tuning's src/utils: the package's
// `__init__.py` takes plot_loss from other.py and load_pretrained from common.py, whose load_pretrained calls
// other.py's prepare_model_for_training(model, ...) with use_gradient_checkpointing=True by default.
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const files = {
  'run.sh': 'python src/train.py --output_dir out\n',
  'src/train.py': [
    'from transformers import Trainer, TrainingArguments',
    'from utils import load_pretrained, plot_loss',
    'model = load_pretrained("Qwen/Qwen2.5-0.5B")',
    'Trainer(model=model, args=TrainingArguments(output_dir="out")).train()',
    'plot_loss("out")',
    '',
  ].join('\n'),
  'src/utils/__init__.py': 'from .common import load_pretrained\nfrom .other import plot_loss\n',
  'src/utils/common.py': [
    'from transformers import AutoModelForCausalLM',
    'from .other import prepare_model_for_training',
    'def load_pretrained(name):',
    '    model = AutoModelForCausalLM.from_pretrained(name)',
    '    model = prepare_model_for_training(model, "lora")',
    '    return model',
    '',
  ].join('\n'),
  'src/utils/other.py': [
    'def prepare_model_for_training(model, finetuning_type, use_gradient_checkpointing=True):',
    '    if use_gradient_checkpointing:',
    '        model.gradient_checkpointing_enable()',
    '    return model',
    '',
    'def plot_loss(path):',
    '    pass',
    '',
  ].join('\n'),
};

describe('collect: a module two files of the run call into', () => {
  it("reads every function they call, with each call's arguments: the helper's default turns checkpointing on", () => {
    const r = runProject(files, 'run.sh');
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    assert.equal(r.files.filter((f) => f.file.endsWith('other.py')).length, 1);
  });

  it('the call that passes use_gradient_checkpointing=False leaves it off', () => {
    const off = {
      ...files,
      'src/utils/common.py': files['src/utils/common.py'].replace(
        'prepare_model_for_training(model, "lora")',
        'prepare_model_for_training(model, "lora", use_gradient_checkpointing=False)',
      ),
    };
    assert.equal(runProject(off, 'run.sh').setup?.gradient_checkpointing, 'none');
  });
});
