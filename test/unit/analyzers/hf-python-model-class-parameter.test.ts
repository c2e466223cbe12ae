// A model class handed to a function as a parameter (hf-python/calls.ts boundModelClass, parameterModelClass):
// DeepSpeed-Chat's `create_hf_model(model_class, model_name_or_path, tokenizer, ds_config=None, ...)`
// (deepspeedai/DeepSpeedExamples applications/DeepSpeed-Chat/dschat/utils/model/model_utils.py), which the projects
// that copy it call as `create_hf_model(AutoModelForCausalLM, args.model_name_or_path, tokenizer, ds_config)`; its
// `model_class.from_pretrained(model_name_or_path, ...)` loads the model. cpppy/TrainGPT's finetune_qwen.py (MIT) runs
// it from `finetune/` with the repository root on sys.path and `--model_name_or_path` defaulting to
// "/data/Qwen/Qwen2.5-0.5B-Instruct".
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runFact, runProject } from '../helpers';

const MODEL_UTILS = `from transformers import AutoConfig

def create_hf_model(model_class, model_name_or_path, tokenizer, ds_config=None, rlhf_training=False):
    model_config = AutoConfig.from_pretrained(model_name_or_path)
    if rlhf_training:
        model = model_class.from_config(model_config)
    else:
        model = model_class.from_pretrained(model_name_or_path, config=model_config)
    return model
`;

const SCRIPT = `import argparse
import sys
sys.path.append('..')
from transformers import AutoModelForCausalLM, AutoTokenizer
from dschat.utils.model.model_utils import create_hf_model

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", type=str, default="Qwen/Qwen2.5-0.5B-Instruct")
    args = parser.parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = create_hf_model(AutoModelForCausalLM, args.model_name_or_path, tokenizer, None)
    loss = model(**batch).loss
    loss.backward()

main()
`;

describe('hf-python: a model class given to a function as its parameter', () => {
  it("the importing script's call gives a helper module's function its class: DeepSpeed-Chat's create_hf_model", () => {
    const r = runProject(
      { 'finetune/train.py': SCRIPT, 'dschat/utils/model/model_utils.py': MODEL_UTILS },
      'finetune/train.py',
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B-Instruct');
    const model = runFact(r, 'model')!;
    assert.equal(model.file, path.join(r.root, 'dschat/utils/model/model_utils.py'));
  });

  it("the function's one call in the same file gives it, by position or keyword; a class that is no model gives none", () => {
    const own = (args: string) =>
      runProject(
        {
          'train.py':
            'from transformers import AutoModelForCausalLM, AutoTokenizer\n\n' +
            'def build(model_class, name):\n    return model_class.from_pretrained(name)\n\n' +
            `model = build(${args})\nmodel(**batch).loss.backward()\n`,
        },
        'train.py',
      );
    assert.equal(own('AutoModelForCausalLM, "gpt2"').setup?.model, 'gpt2');
    assert.equal(own('name="gpt2", model_class=AutoModelForCausalLM').setup?.model, 'gpt2');
    assert.equal(own('AutoTokenizer, "gpt2"').setup?.model, undefined);
  });
});

describe("hf-python: a package's __init__.py that re-exports its modules whole", () => {
  it('`from .model import *`: the class the script calls is read in the module that defines it', () => {
    // Humanity-Unleashed/pretraining (an OpenRLHF fork, Apache-2.0): train_sft.py calls `Model(args.pretrain, ...)` from
    // `.models`, whose __init__.py is `from .model import *` / `from .loss import *`; Model.__init__ loads the model.
    const r = runProject(
      {
        'run.sh': 'deepspeed --module pkg.train_sft --bf16\n',
        'pkg/__init__.py': '',
        'pkg/train_sft.py':
          'from .models import Model\n\ndef train(loader):\n    model = Model("Qwen/Qwen2.5-1.5B-Instruct", bf16=True)\n' +
          '    for batch in loader:\n        model(**batch).loss.backward()\n\ntrain([])\n',
        'pkg/models/__init__.py': 'from .model import *\nfrom .loss import *\n',
        'pkg/models/loss.py': 'class GPTLMLoss:\n    pass\n',
        'pkg/models/model.py':
          'from transformers import AutoModelForCausalLM\n\nclass Model:\n' +
          '    def __init__(self, pretrain_or_model, bf16=True):\n' +
          '        self.model = AutoModelForCausalLM.from_pretrained(pretrain_or_model)\n',
      },
      'run.sh',
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-1.5B-Instruct');
  });
});

describe("hf-python: DeepSpeed-Chat's LoRA layers (utils/module/lora.py convert_linear_layer_to_lora)", () => {
  // DeepSpeed-Chat's step-1 main.py, cut to what decides the method: LinearLayer_LoRA keeps the wrapped weight
  // trainable, and only only_optimize_lora_parameters(model) (for --only_optimize_lora) freezes it.
  const main = `import argparse
from transformers import AutoModelForCausalLM
from utils.module.lora import convert_linear_layer_to_lora, only_optimize_lora_parameters

def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", type=str, default="facebook/opt-1.3b")
    parser.add_argument("--lora_dim", type=int, default=0)
    parser.add_argument("--lora_module_name", type=str, default="decoder.layers.")
    parser.add_argument("--only_optimize_lora", action="store_true")
    return parser.parse_args()

def main():
    args = parse_args()
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)
    if args.lora_dim > 0:
        model = convert_linear_layer_to_lora(model, args.lora_module_name, args.lora_dim)
        if args.only_optimize_lora:
            model = only_optimize_lora_parameters(model)
    model(**batch).loss.backward()

if __name__ == "__main__":
    main()
`;
  const run = (flags: string) =>
    runProject({ 'main.py': main, 'run.sh': `deepspeed main.py --zero_stage 2 ${flags}\n` }, 'run.sh');
  const said = (r: ReturnType<typeof run>) => r.problems.find((p) => p.key === 'convert_linear_layer_to_lora');

  it('--lora_dim alone: every weight still trains (full fine-tuning), and the adapters are said not to be counted', () => {
    const r = run('--lora_dim 128');
    assert.equal(r.setup?.method, 'full');
    assert.equal(said(r)?.severity, 'warning');
    assert.equal(said(r)?.code, 'not-modeled');
  });

  it('--only_optimize_lora: only the adapters train (LoRA); without --lora_dim the model trains whole all the same', () => {
    assert.equal(run('--lora_dim 128 --only_optimize_lora').setup?.method, 'lora');
    assert.equal(run('').setup?.method, 'full');
  });
});
