// A JSON or YAML file the script loads itself and reads items of (src/analyzers/hf-python/data-files.ts). The script is
// shaped as sarelWeinberger/qwen-hebrew-finetuning training/deepspeed/train.py (`--config` defaulting to
// cpt_config.json, `with open(args.config) as f: config = json.loads(f.read())`, then `config["..."]` into
// from_pretrained and TrainingArguments), the YAML reader as the custom configs of research repositories
// (`cfg = yaml.safe_load(f)`, `cfg["train"]["micro_batch_size"]`, OmegaConf's `cfg.model.name`).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import type { CanonicalKey, ConfigFacts } from '../../../src/analyzers/facts';
import { runFiles } from '../helpers';

const SCRIPT = `import argparse, json
from transformers import AutoModelForCausalLM, TrainingArguments

def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=str, default="cpt_config.json")
    return parser.parse_args()

def main():
    args = parse_args()
    with open(args.config, 'r', encoding='utf8') as f:
        config = json.loads(f.read())
    model = AutoModelForCausalLM.from_pretrained(config["model_name_or_path"], torch_dtype="bfloat16")
    training_args = TrainingArguments(
        output_dir=config["output_dir"],
        per_device_train_batch_size=config["per_device_train_batch_size"],
        gradient_accumulation_steps=config.get("gradient_accumulation_steps", 1),
        gradient_checkpointing=config.get("gradient_checkpointing", True),
        bf16=True,
    )

main()
`;
const CONFIG = '{"model_name_or_path": "Qwen/Qwen2.5-7B", "output_dir": "out", "per_device_train_batch_size": 2}\n';

const value = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();

describe('hf-python: a JSON / YAML file the script loads', () => {
  it("reads the file its --config default names, each item said to come from the file's key", () => {
    const reads: string[] = [];
    const r = analyzeHfPython(SCRIPT, undefined, (p, kind) => {
      reads.push(`${p} ${kind}`);
      return p === 'cpt_config.json' ? { text: CONFIG, shownAs: p } : undefined;
    });
    assert.deepEqual(reads, ['cpt_config.json data']);
    assert.equal(value(r, 'model')?.value, 'Qwen/Qwen2.5-7B');
    assert.equal(value(r, 'model')?.rawValue, 'config["model_name_or_path"]: cpt_config.json model_name_or_path');
    assert.equal(value(r, 'microBatchSize')?.value, 2);
    // `.get(key, default)` of a key the file does not have: the default as written.
    assert.equal(value(r, 'gradientAccumulationSteps')?.value, 1);
    assert.equal(value(r, 'gradientCheckpointing')?.value, 'full');
    // The file ties the script to its run (the workspace's runs, the CLI given the JSON alone).
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['data', 'cpt_config.json']],
    );
  });

  it("pathlib's read_text: yaml.safe_load(args.config.read_text(encoding=...)) reads the file the option names", () => {
    // quizshin/tau2-grpo tau3_grpo/training/sft/train.py: `--config` is a Path option, and
    // `config = yaml.safe_load(args.config.read_text(encoding="utf-8"))` (abridged).
    const script = [
      'import argparse, yaml',
      'from pathlib import Path',
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--config", type=Path, default=Path("configs/sft.yaml"))',
      'args = parser.parse_args()',
      'config = yaml.safe_load(args.config.read_text(encoding="utf-8"))',
      'model = AutoModelForCausalLM.from_pretrained(config["model"]["name_or_path"])',
      'TrainingArguments(output_dir="o", per_device_train_batch_size=config["train"]["per_device_batch_size"])',
      '',
    ].join('\n');
    const yaml = 'model:\n  name_or_path: Qwen/Qwen2.5-7B-Instruct\ntrain:\n  per_device_batch_size: 1\n';
    const r = analyzeHfPython(script, undefined, (p) =>
      p === 'configs/sft.yaml' ? { text: yaml, shownAs: p } : undefined,
    );
    assert.deepEqual([value(r, 'model')?.value, value(r, 'microBatchSize')?.value], ['Qwen/Qwen2.5-7B-Instruct', 1]);
  });

  it("a loader function of the script reads each call's own file, or its parameter's default when given none", () => {
    // nasim-raj-laskar/QwenDrive-QLoRA train.py: one load_config(path) for configs/model.yaml, lora.yaml and
    // training.yaml; AshishIITD/llm-finetuning-benchmark train_sft.py: `def load_config(path="configs/...")`, called
    // as load_config().
    const script = [
      'import yaml',
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'def load_config(path="configs/training.yaml"):',
      '    with open(path) as f:',
      '        return yaml.safe_load(f)',
      'model_cfg = load_config("configs/model.yaml")',
      'lora_cfg = load_config("configs/lora.yaml")',
      'train_cfg = load_config()',
      'model = AutoModelForCausalLM.from_pretrained(model_cfg["model_name"])',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=train_cfg["batch_size"])',
      '',
    ].join('\n');
    const files: Record<string, string> = {
      'configs/model.yaml': 'model_name: Qwen/Qwen2.5-3B-Instruct\n',
      'configs/lora.yaml': 'r: 16\n',
      'configs/training.yaml': 'batch_size: 2\n',
    };
    const r = analyzeHfPython(script, undefined, (p) => (files[p] ? { text: files[p], shownAs: p } : undefined));
    assert.equal(value(r, 'model')?.value, 'Qwen/Qwen2.5-3B-Instruct');
    assert.equal(value(r, 'microBatchSize')?.value, 2);
    assert.deepEqual(
      r.references.filter((x) => x.kind === 'data').map((x) => x.path),
      ['configs/model.yaml', 'configs/training.yaml'],
    );
  });

  it('a function of the script that hands back the mapping it is given keeps its items (TheSleepGod/RL)', () => {
    // sft/train_sft_lora.py: `cfg = apply_overrides(load_config(args.config), args.set)`, where apply_overrides sets
    // the launch line's `key=value` items in place and returns cfg (abridged); with no --set, the file's items.
    const script = [
      'import argparse, yaml',
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'def load_config(path):',
      '    with open(path) as f:',
      '        return yaml.safe_load(f)',
      'def apply_overrides(cfg, overrides):',
      '    for it in overrides or []:',
      '        k, v = it.split("=", 1)',
      '        cfg[k] = v',
      '    return cfg',
      'def rebuilt(cfg):',
      '    cfg = dict(cfg)',
      '    return cfg',
      'def replaced(cfg):',
      '    cfg = {"model_name": "gpt2"}',
      '    return cfg',
      'ap = argparse.ArgumentParser()',
      'ap.add_argument("--config", default="configs/sft.yaml")',
      'ap.add_argument("--set", nargs="*", default=None)',
      'args = ap.parse_args()',
      'cfg = apply_overrides(load_config(args.config), args.set)',
      'model = AutoModelForCausalLM.from_pretrained(cfg["model_name"])',
      'other = AutoModelForCausalLM.from_pretrained(rebuilt(load_config(args.config))["model_name"])',
      'third = AutoModelForCausalLM.from_pretrained(replaced(load_config(args.config))["model_name"])',
      'tcfg = cfg["train"]',
      'targs = TrainingArguments(output_dir="o", per_device_train_batch_size=int(tcfg.get("batch", 2)))',
      '',
    ].join('\n');
    const files: Record<string, string> = {
      'configs/sft.yaml': 'model_name: meta-llama/Meta-Llama-3-8B\ntrain:\n  batch: 4\n',
    };
    const r = analyzeHfPython(script, undefined, (p) => (files[p] ? { text: files[p], shownAs: p } : undefined));
    const models = r.facts.filter((f) => f.key === 'model');
    assert.equal(models[0]?.value, 'meta-llama/Meta-Llama-3-8B');
    // A copy of its parameter is the same items (the rule of an imported module's function too); a function that
    // binds its parameter to another mapping is not read through.
    assert.equal(models[1]?.value, 'meta-llama/Meta-Llama-3-8B');
    assert.notEqual(models[2]?.value, 'meta-llama/Meta-Llama-3-8B');
    // A part of the mapping and its .get(...) items.
    assert.equal(value(r, 'microBatchSize')?.value, 4);
  });

  it('YAML items and OmegaConf attributes; the run of the script with the YAML says nothing of its format', () => {
    const script = [
      'import yaml',
      'from omegaconf import OmegaConf',
      'with open("configs/sft.yaml") as f:',
      '    cfg = yaml.safe_load(f)',
      'oc = OmegaConf.load("configs/sft.yaml")',
      'model = AutoModelForCausalLM.from_pretrained(oc.model.name)',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=cfg["train"]["micro_batch_size"],',
      '    gradient_accumulation_steps=cfg["train"].get("grad_accum", 1))',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const yaml = 'model:\n  name: mistralai/Mistral-7B-v0.1\ntrain:\n  micro_batch_size: 2\n  grad_accum: 8\n';
    const run = runFiles({ '/p/train.py': script, '/p/configs/sft.yaml': yaml }, '/p/train.py', '/p/configs/sft.yaml');
    assert.deepEqual(run.unrecognized, []);
    assert.deepEqual(
      [run.setup?.model, run.setup?.micro_batch_size, run.setup?.gradient_accumulation_steps],
      ['mistralai/Mistral-7B-v0.1', 2, 8],
    );
  });

  it('a mapping of the file spread into TrainingArguments, and the file passed to the function that loads the model', () => {
    // tomsbergmanis/llm4mt_finetuning finetune.py: `hparams = yaml.load(hpf, Loader=yaml.FullLoader)` of lora.yaml,
    // `TrainingArguments(**hparams["training_args"])`, `main(training_args, hparams)` reading `hparams["model"]`.
    const script = [
      'import yaml',
      'def load(model_name):',
      '    return AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.bfloat16)',
      'def main(training_args, hparams):',
      '    model = load(hparams["model"])',
      '    Trainer(model=model, args=training_args).train()',
      'if __name__ == "__main__":',
      "    with open('lora.yaml') as hpf:",
      '        hparams = yaml.load(hpf, Loader=yaml.FullLoader)',
      '    training_args = TrainingArguments(**hparams["training_args"])',
      '    main(training_args, hparams)',
      '',
    ].join('\n');
    const yaml = 'model: "mistralai/Mistral-7B-v0.1"\ntraining_args:\n  per_device_train_batch_size: 8\n  bf16: true\n';
    const r = analyzeHfPython(script, undefined, () => ({ text: yaml, shownAs: 'lora.yaml' }));
    assert.equal(value(r, 'model')?.value, 'mistralai/Mistral-7B-v0.1');
    assert.equal(value(r, 'microBatchSize')?.value, 8);
    assert.equal(
      value(r, 'microBatchSize')?.rawValue,
      'hparams["training_args"]: lora.yaml training_args.per_device_train_batch_size',
    );
  });

  it('a copy of a section spread into a config less the keys popped from it, LoRA under a chained .get test', () => {
    // nhockid235/xling-grpo-sub3b src/trainers/grpo.py: `grpo_kwargs = dict(cfg["grpo"])`, a key popped for the model's
    // kwargs, `GRPOConfig(**grpo_kwargs)`; `if cfg.get("lora", {}).get("enabled", False):` around
    // `lora_cfg = dict(cfg["lora"]); lora_cfg.pop("enabled", None); LoraConfig(**lora_cfg)`.
    const script = [
      'import yaml',
      'from trl import GRPOConfig, GRPOTrainer',
      'from peft import LoraConfig',
      'def main():',
      '    with open("cfg.yaml") as f:',
      '        cfg = yaml.safe_load(f)',
      '    grpo_kwargs = dict(cfg["grpo"])',
      '    batch = grpo_kwargs.pop("gradient_accumulation_steps", 1)',
      '    grpo_config = GRPOConfig(output_dir="out", **grpo_kwargs)',
      '    peft_config = None',
      '    if cfg.get("lora", {}).get("enabled", False):',
      '        lora_cfg = dict(cfg["lora"])',
      '        lora_cfg.pop("enabled", None)',
      '        peft_config = LoraConfig(**lora_cfg)',
      '    GRPOTrainer(model=cfg["model_name_or_path"], args=grpo_config, peft_config=peft_config).train()',
      'main()',
      '',
    ].join('\n');
    const yaml = [
      'model_name_or_path: Qwen/Qwen2.5-1.5B',
      'grpo:',
      '  per_device_train_batch_size: 6',
      '  gradient_accumulation_steps: 16',
      '  max_completion_length: 3584',
      'lora:',
      '  enabled: true',
      '  r: 16',
      '  target_modules: [q_proj, v_proj]',
      '',
    ].join('\n');
    const r = analyzeHfPython(script, undefined, () => ({ text: yaml, shownAs: 'cfg.yaml' }));
    assert.equal(value(r, 'microBatchSize')?.value, 6);
    assert.equal(value(r, 'microBatchSize')?.rawValue, 'grpo_kwargs: cfg.yaml grpo.per_device_train_batch_size');
    assert.equal(value(r, 'completionLen')?.value, 3584);
    // Popped before the spread: GRPOConfig is not given it.
    assert.equal(value(r, 'gradientAccumulationSteps'), undefined);
    assert.ok(r.facts.some((f) => f.key === 'method' && f.value === 'lora'));
    assert.equal(value(r, 'loraR')?.value, 16);
    // The switch off: no LoRA.
    const off = analyzeHfPython(script, undefined, () => ({
      text: yaml.replace('enabled: true', 'enabled: false'),
      shownAs: 'cfg.yaml',
    }));
    assert.ok(!off.facts.some((f) => f.key === 'method' && f.value === 'lora'));
  });

  it("a dataclass config built from the file's sections by a class method (Config.from_yaml / Config.from_dict)", () => {
    // The shape of the research configs that nest a dataclass per section (found in public repositories: `model:
    // ModelConfig = field(default_factory=ModelConfig)` and `cls(model=ModelConfig(**raw.get("model", {})), ...)`):
    // each attribute the file's section gives, else the class's default. Written for this test.
    const classes = [
      'import yaml',
      'from dataclasses import dataclass, field',
      '@dataclass',
      'class ModelConfig:',
      '    model_name: str = "Qwen/Qwen2.5-1.5B"',
      '@dataclass',
      'class TrainConfig:',
      '    per_device_train_batch_size: int = 4',
      '    gradient_accumulation_steps: int = 8',
      '@dataclass',
      'class Config:',
      '    model: ModelConfig = field(default_factory=ModelConfig)',
      '    training: TrainConfig = field(default_factory=TrainConfig)',
      '    @classmethod',
      '    def from_yaml(cls, path):',
      '        with open(path) as f:',
      '            raw = yaml.safe_load(f)',
      '        return cls(model=ModelConfig(**raw.get("model", {})), training=TrainConfig(**raw.get("training", {})))',
      '    @classmethod',
      '    def from_dict(cls, raw):',
      '        return cls(model=ModelConfig(**raw["model"]), training=TrainConfig(**raw["training"]))',
    ];
    const reading = [
      'model = AutoModelForCausalLM.from_pretrained(config.model.model_name)',
      'TrainingArguments(',
      '    output_dir="o",',
      '    per_device_train_batch_size=config.training.per_device_train_batch_size,',
      '    gradient_accumulation_steps=config.training.gradient_accumulation_steps,',
      ')',
      '',
    ];
    const yaml = 'model:\n  model_name: Qwen/Qwen2.5-0.5B\ntraining:\n  per_device_train_batch_size: 6\n';
    const read = () => ({ text: yaml, shownAs: 'c.yaml' });
    const byYaml = analyzeHfPython(
      [...classes, 'config = Config.from_yaml("c.yaml")', ...reading].join('\n'),
      undefined,
      read,
    );
    const loaded = ['with open("c.yaml") as f:', '    data = yaml.safe_load(f)', 'config = Config.from_dict(data)'];
    const byDict = analyzeHfPython([...classes, ...loaded, ...reading].join('\n'), undefined, read);
    for (const r of [byYaml, byDict]) {
      assert.deepEqual(
        [value(r, 'model')?.value, value(r, 'microBatchSize')?.value, value(r, 'gradientAccumulationSteps')?.value],
        ['Qwen/Qwen2.5-0.5B', 6, 8],
      );
      assert.match(value(r, 'microBatchSize')?.rawValue ?? '', /c\.yaml training\.per_device_train_batch_size/);
    }
  });

  it('a path joined from a folder and the option, and the data made a namespace (PJLAB-CHIP/HPCTransCompile)', () => {
    // TrainEngine/train.py: `open(config_dir + args.config)`, `config = dict2namespace(config)`, `config.model.x`.
    const text = [
      'import argparse, yaml',
      'from easydict import EasyDict',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--config", type=str, default="QwenCoder_14b.yaml")',
      'args = parser.parse_args()',
      'config_dir = "./config/"',
      'with open(config_dir + args.config, "r") as f:',
      '    config = yaml.load(f, Loader=yaml.FullLoader)',
      'config = dict2namespace(config)',
      'cfg = EasyDict(yaml.safe_load(open("other.yaml")))',
      'def main():',
      '    model = AutoModelForCausalLM.from_pretrained(config.model.model_path)',
      '    args = TrainingArguments(output_dir="o", per_device_train_batch_size=cfg.train.bs)',
      '',
    ].join('\n');
    const files: Record<string, string> = {
      './config/QwenCoder_14b.yaml': 'model:\n  model_path: Qwen/Qwen2.5-14B\n',
      'other.yaml': 'train:\n  bs: 2\n',
    };
    const r = analyzeHfPython(text, undefined, (p) => (files[p] ? { text: files[p], shownAs: p } : undefined));
    assert.deepEqual([value(r, 'model')?.value, value(r, 'microBatchSize')?.value], ['Qwen/Qwen2.5-14B', 2]);
    // Another helper is not taken for one that keeps the items.
    const other = analyzeHfPython(
      text.replace('config = dict2namespace(config)', 'config = summarize(config)'),
      undefined,
      (p) => (files[p] ? { text: files[p], shownAs: p } : undefined),
    );
    assert.equal(typeof value(other, 'model')?.value, 'object');
  });

  it('a file outside the project (absolute, `~`, `..` past two folders or inside the path) is never read', () => {
    // `../configs/x.yaml` (a script in scripts/ reading the repository's configs) is asked of the reader, which reads
    // it only inside the project (imported-data.test.ts: a file above the working folder is refused).
    for (const p of ['/home/u/.docker/config.json', '../../../secrets.json', '~/keys.yaml', 'a/../../b.json']) {
      const reads: string[] = [];
      const r = analyzeHfPython(
        `import json\ncfg = json.load(open("${p}"))\nm = AutoModelForCausalLM.from_pretrained(cfg["model"])\n`,
        undefined,
        (x) => (reads.push(x), { text: '{"model": "secret"}', shownAs: x }),
      );
      assert.deepEqual(reads, [], p);
      assert.equal(typeof value(r, 'model')?.value, 'object', p);
    }
    const missing = analyzeHfPython(
      'import json\ncfg = json.load(open("c.json"))\nm = AutoModelForCausalLM.from_pretrained(cfg["model"])\n',
      undefined,
      () => ({ text: '{"name": "gpt2"}', shownAs: 'c.json' }),
    );
    assert.deepEqual(value(missing, 'model')?.value, { unknown: 'c.json has no key model' });
  });
});
