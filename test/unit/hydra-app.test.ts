// A Hydra application's config read by its script (src/analyzers/hf-python/hydra-app.ts): `@hydra.main(config_path=
// "config", config_name="train")` over `def main(cfg)`, its primary config composed with the group options its defaults
// list chooses and the launch line's overrides. Shaped on rubenbalbastre/grpo-llm-unlearning's train.py (config/
// train.yaml, `cfg.model.name`, `cfg.training.grpo.per_device_train_batch_size`) and TrongNV2003/LLM-finetuning's
// src/conf (a `model` group of one file per model).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { nodeFileReader } from '../../src/node/files';
import { launchersOf } from '../../src/node/launchers';
import { runProject } from './helpers';

const SCRIPT = [
  'import hydra',
  'from omegaconf import DictConfig',
  'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
  '',
  '@hydra.main(version_base=None, config_path="config", config_name="train")',
  'def main(cfg: DictConfig) -> None:',
  '    model = AutoModelForCausalLM.from_pretrained(cfg.model.name)',
  '    args = TrainingArguments(',
  '        output_dir="o",',
  '        per_device_train_batch_size=cfg.training.batch_size,',
  '        gradient_accumulation_steps=cfg.training.get("accum", 1),',
  '        max_steps=cfg.training.get("max_steps", 100),',
  '    )',
  '    Trainer(model=model, args=args).train()',
  '',
  'if __name__ == "__main__":',
  '    main()',
  '',
].join('\n');

const FILES: Readonly<Record<string, string>> = {
  'train.py': SCRIPT,
  'config/train.yaml': [
    'defaults:',
    '  - model: qwen',
    '  - _self_',
    'training:',
    '  batch_size: 4',
    '  accum: ${training.batch_size}',
    '',
  ].join('\n'),
  'config/model/qwen.yaml': 'name: Qwen/Qwen2.5-1.5B-Instruct\n',
  'config/model/llama.yaml': 'name: meta-llama/Llama-3.2-1B\n',
};

describe('a Hydra application read by its script', () => {
  it("the primary config composed with its group's option, each value located in the file that writes it", () => {
    const run = runProject(FILES, 'train.py');
    const s = run.setup;
    // accumulation: `${training.batch_size}` followed to 4.
    assert.deepEqual(
      [s?.model, s?.micro_batch_size, s?.gradient_accumulation_steps],
      ['Qwen/Qwen2.5-1.5B-Instruct', 4, 4],
    );
    assert.equal(run.decided.model?.file, path.join(run.root, 'config/model/qwen.yaml'));
    assert.equal(run.decided.model?.location.line, 1);
    assert.equal(run.decided.microBatchSize?.file, path.join(run.root, 'config/train.yaml'));
    assert.equal(run.decided.microBatchSize?.location.line, 5);
    assert.deepEqual(run.unrecognized, []);
  });

  it("the launch line's overrides: another option of the group, and a value", () => {
    const run = runProject({ ...FILES, 'run.sh': 'python train.py model=llama training.batch_size=8\n' }, 'run.sh');
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 8]);
  });

  it('a YAML of the config folder is a file of the run of the script that composes it', () => {
    const run = runProject(FILES, 'train.py');
    const reader = nodeFileReader(run.root);
    for (const yaml of ['config/train.yaml', 'config/model/qwen.yaml'])
      assert.deepEqual(launchersOf(path.join(run.root, yaml), run.root, reader), [path.join(run.root, 'train.py')]);
  });

  it("a fork of the DPO reference implementation's config (no `trainer:` key) is read as any application's", () => {
    // linfeng-du/direct-preference-optimization (abridged): config.yaml has the reference implementation's shape
    // (`defaults` with `model: ???`, `max_prompt_length`), but its own src/train.py, no `trainer`, and
    // `config.model.model` where the reference has `model.name_or_path`.
    const files = {
      'src/train.py': [
        'import hydra',
        'import torch',
        'from transformers import AutoModelForCausalLM',
        "@hydra.main(version_base=None, config_path='../config', config_name='config')",
        'def main(config):',
        '    policy = AutoModelForCausalLM.from_pretrained(',
        '        config.model.model, torch_dtype=getattr(torch, config.model.policy_dtype))',
        '    loss.backward()',
        '',
      ].join('\n'),
      'config/config.yaml':
        'defaults:\n  - _self_\n  - model: ???\n  - loss: dpo\nmax_length: 512\nmax_prompt_length: 256\nbatch_size: 4\n',
      'config/model/llama1B-instruct.yaml':
        'model: meta-llama/Llama-3.2-1B-Instruct\npolicy_dtype: float32\nreference_dtype: float16\n',
      'config/loss/dpo.yaml': 'name: dpo\nbeta: 0.1\n',
      'run.sh': 'accelerate launch src/train.py model=llama1B-instruct\n',
    };
    const run = runProject(files, 'run.sh');
    assert.deepEqual([run.setup?.model, run.setup?.weights_dtype], ['meta-llama/Llama-3.2-1B-Instruct', 'fp32']);
    assert.equal(run.decided.model?.file, path.join(run.root, 'config/model/llama1B-instruct.yaml'));
    assert.equal(
      run.problems.find((p) => p.code === 'not-modeled' && /whose application is not read/.test(p.message)),
      undefined,
    );
  });

  it('a primary config that is not in the project leaves the values unknown, said at the decorator', () => {
    const run = runProject({ 'train.py': SCRIPT }, 'train.py');
    assert.equal(run.setup, undefined);
    assert.ok(run.problems.some((p) => p.code === 'reference-not-found' && /config\/train\.yaml/.test(p.message)));
  });
});
