// Every key of a loaded mapping laid over the parsed options (src/analyzers/hf-python/attribute-overlays.ts): research
// scripts parse a few argparse options, load a YAML, then `for k, v in cfg.items(): setattr(args, k, v)` (or
// `vars(args).update(cfg)`, `args.__dict__.update(cfg)`), so `args.model_name` read later is the YAML's where it has the
// key and the option's default where it has not. Before, the default (gpt2, batch 1 below) was taken silently.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { isUnknown, type CanonicalKey, type ConfigFacts } from '../../../src/analyzers/facts';

const script = (overlay: string) =>
  [
    'import argparse, yaml',
    'from transformers import AutoModelForCausalLM, TrainingArguments',
    'parser = argparse.ArgumentParser()',
    'parser.add_argument("--config", default="configs/train.yaml")',
    'parser.add_argument("--model_name", default="gpt2")',
    'parser.add_argument("--batch_size", type=int, default=1)',
    'parser.add_argument("--grad_accum", type=int, default=8)',
    'args = parser.parse_args()',
    'with open(args.config) as f:',
    '    cfg = yaml.safe_load(f)',
    ...overlay.split('\n'),
    'model = AutoModelForCausalLM.from_pretrained(args.model_name, torch_dtype="bfloat16")',
    'TrainingArguments(output_dir="o", per_device_train_batch_size=args.batch_size,',
    '                  gradient_accumulation_steps=args.grad_accum, bf16=True)',
    '',
  ].join('\n');
const YAML = 'model_name: Qwen/Qwen2.5-1.5B\nbatch_size: 4\n';
const analyze = (text: string, yaml = YAML) =>
  analyzeHfPython(text, undefined, (p) =>
    p === 'configs/train.yaml' && yaml ? { text: yaml, shownAs: p } : undefined,
  );
const value = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();
const values = (r: ConfigFacts) => [
  value(r, 'model')?.value,
  value(r, 'microBatchSize')?.value,
  value(r, 'gradientAccumulationSteps')?.value,
];

describe('hf-python: a mapping laid over the parsed options', () => {
  it('setattr in a loop over cfg.items(): the YAML value where it has the key, the default where it has not', () => {
    const r = analyze(script('for k, v in cfg.items():\n    setattr(args, k, v)'));
    assert.deepEqual(values(r), ['Qwen/Qwen2.5-1.5B', 4, 8]);
    assert.match(String(value(r, 'model')?.rawValue), /configs\/train\.yaml model_name/);
  });

  it('under an `if hasattr(args, k):`, and as vars(args).update(cfg) or args.__dict__.update(cfg)', () => {
    for (const overlay of [
      'for key, val in cfg.items():\n    if hasattr(args, key):\n        setattr(args, key, val)',
      'vars(args).update(cfg)',
      'args.__dict__.update(cfg)',
    ])
      assert.deepEqual(values(analyze(script(overlay))), ['Qwen/Qwen2.5-1.5B', 4, 8], overlay);
  });

  it('a literal dict laid over: its items; a key it lacks keeps the default', () => {
    const r = analyze(script('vars(args).update({"batch_size": 2})'));
    assert.deepEqual(values(r), ['gpt2', 2, 8]);
  });

  it('a mapping not known statically: the values it may set are unknown at their place, not the defaults', () => {
    const r = analyze(script('for k, v in cfg.items():\n    setattr(args, k, v)'), '');
    const model = value(r, 'model')?.value ?? null;
    assert.ok(isUnknown(model));
    assert.match(model.unknown, /args\.model_name may be set at line 11 by for k, v in cfg\.items\(\)/);
  });

  it('an overlay counts for the reads after it; a setattr of other names is no overlay', () => {
    const late = script('').replace('TrainingArguments(', 'vars(args).update(cfg)\nTrainingArguments(');
    assert.deepEqual(values(analyze(late)), ['gpt2', 4, 8]);
    const other = analyze(script('for k, v in cfg.items():\n    setattr(model_args, k, v)'));
    assert.deepEqual(values(other), ['gpt2', 1, 8]);
  });
});

describe('hf-python: an instance a function of the script returns, with a mapping laid over it', () => {
  // The shape of research scripts that keep their settings in a dataclass and lay the YAML over its defaults in a
  // loader: `cfg = TrainConfig(); for k, v in raw.items(): if hasattr(cfg, k): setattr(cfg, k, v); return cfg`.
  const script = [
    'import yaml',
    'from dataclasses import dataclass',
    'from transformers import AutoModelForCausalLM, TrainingArguments',
    '@dataclass',
    'class TrainConfig:',
    '    model_name: str = "gpt2"',
    '    batch_size: int = 1',
    '    grad_accum: int = 8',
    'def load_config(path="configs/train.yaml"):',
    '    cfg = TrainConfig()',
    '    with open(path) as f:',
    '        raw = yaml.safe_load(f)',
    '    for k, v in raw.items():',
    '        if hasattr(cfg, k):',
    '            setattr(cfg, k, v)',
    '    return cfg',
    'def main():',
    '    cfg = load_config()',
    '    model = AutoModelForCausalLM.from_pretrained(cfg.model_name, torch_dtype="bfloat16")',
    '    TrainingArguments(output_dir="o", per_device_train_batch_size=cfg.batch_size,',
    '                      gradient_accumulation_steps=cfg.grad_accum, bf16=True)',
    'main()',
    '',
  ].join('\n');

  it("reads each attribute as the function holds it at its return: the YAML's item, else the class's default", () => {
    const r = analyze(script);
    assert.deepEqual(values(r), ['Qwen/Qwen2.5-1.5B', 4, 8]);
    assert.equal(value(r, 'microBatchSize')?.rawValue, 'cfg.batch_size: configs/train.yaml batch_size');
  });

  it('without the YAML the attributes it may set stay unknown, not the dataclass defaults', () => {
    const model = value(analyze(script, ''), 'model')?.value ?? null;
    assert.ok(isUnknown(model));
  });
});
