// Configuration files a script loads through its project's modules (src/analyzers/hf-python/module-loaders.ts, read
// by data-files.ts and imported-constants.ts): a loader function a module defines and the script calls with a path,
// and a name a module binds to a file it loads at its top level. Each script is shaped as the fresh real-file samples
// that got no estimate before: Gabriel-Hong/qlora-function-calling (`from src.data_utils import load_yaml_config`, a
// pathlib `Path(path).open()`), achi9629/efficient-llm-finetuning (`from ..utils import load_config`, the package's
// __init__.py taking it from `.experiment_io`), CuongMDev/VietnamMathReasoning (`from config import GRPO_CFG`),
// Dhruvil03/RL_based_LLM_Finetuning (a loader that returns `Config(**cfg_dict)`).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runPipeline } from '../../src/analyzers/pipeline';
import { nodeFileReader } from '../../src/node/files';
import { runProject, tempDir } from './helpers';

const TRAIN = [
  'model = AutoModelForCausalLM.from_pretrained(model_cfg["model"]["name"])',
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=train_cfg["training"]["batch_size"])',
  'Trainer(model=model, args=args).train()',
];
const MODEL_YAML = 'model:\n  name: Qwen/Qwen2.5-1.5B-Instruct\n';
const TRAIN_YAML = 'training:\n  batch_size: 4\n';

describe('configuration files loaded through project modules', () => {
  it("a loader function of a helper module: the file its path argument names, at the file's keys", () => {
    const script = [
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'from src.data_utils import load_yaml_config',
      'model_cfg = load_yaml_config("config/model_config.yaml")',
      'train_cfg = load_yaml_config(path="config/training_config.yaml")',
      ...TRAIN,
      '',
    ].join('\n');
    const utils = [
      'import yaml',
      'from pathlib import Path',
      'def load_yaml_config(path: str) -> dict:',
      '    config_path = Path(path)',
      '    with config_path.open("r", encoding="utf-8") as f:',
      '        return yaml.safe_load(f)',
      '',
    ].join('\n');
    const run = runProject(
      {
        'scripts/train.py': script,
        'src/data_utils.py': utils,
        'config/model_config.yaml': MODEL_YAML,
        'config/training_config.yaml': TRAIN_YAML,
      },
      'scripts/train.py',
    );
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['Qwen/Qwen2.5-1.5B-Instruct', 4]);
    // Located in the YAML that writes it: line 2 of model_config.yaml, line 2 of training_config.yaml.
    assert.equal(run.decided.model?.file, path.join(run.root, 'config/model_config.yaml'));
    assert.equal(run.decided.model?.location.line, 2);
    assert.equal(run.decided.microBatchSize?.file, path.join(run.root, 'config/training_config.yaml'));
  });

  it("a package's __init__.py that takes the loader from a module of its own is followed once", () => {
    const script = [
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'from ..utils import load_config',
      'def main():',
      '    model_cfg = load_config("configs/model_config.yaml")',
      '    train_cfg = load_config("configs/train_qlora.yaml")',
      ...TRAIN.map((l) => `    ${l}`),
      'main()',
      '',
    ].join('\n');
    const io = [
      'import yaml',
      'from pathlib import Path',
      'def load_config(config_path: str) -> dict:',
      '    config_path = Path(config_path)',
      '    if not config_path.exists():',
      '        raise FileNotFoundError(config_path)',
      '    with open(config_path, "r") as f:',
      '        return yaml.safe_load(f)',
      '',
    ].join('\n');
    const run = runProject(
      {
        'src/fin/training/train.py': script,
        'src/fin/utils/__init__.py': 'from .experiment_io import load_config, save_metrics\n',
        'src/fin/utils/experiment_io.py': io,
        'configs/model_config.yaml': MODEL_YAML,
        'configs/train_qlora.yaml': TRAIN_YAML,
      },
      'src/fin/training/train.py',
    );
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['Qwen/Qwen2.5-1.5B-Instruct', 4]);
    assert.equal(run.decided.microBatchSize?.file, path.join(run.root, 'configs/train_qlora.yaml'));
  });

  it('a name a module binds to a file it loads at its top level', () => {
    const config = [
      'import yaml',
      'with open("config.yml", "r") as f:',
      '    SFT_CFG = yaml.safe_load(f)',
      'with open("grpo_config.yml", "r") as f:',
      '    GRPO_CFG = yaml.safe_load(f)',
      'MODEL_CACHE_PATH = "./hf_cache/model"',
      '',
    ].join('\n');
    const script = [
      'from transformers import AutoModelForCausalLM',
      'from trl import GRPOTrainer, GRPOConfig',
      'from config import GRPO_CFG, MODEL_CACHE_PATH',
      'MODEL_NAME = GRPO_CFG["model"]["name"]',
      'model = AutoModelForCausalLM.from_pretrained(MODEL_NAME, cache_dir=MODEL_CACHE_PATH)',
      'cfg = GRPOConfig(output_dir="o", per_device_train_batch_size=GRPO_CFG["train"]["batch_size"],',
      '    num_generations=4)',
      'GRPOTrainer(model=model, args=cfg, reward_funcs=[]).train()',
      '',
    ].join('\n');
    const run = runProject(
      {
        'train_grpo.py': script,
        'config.py': config,
        'grpo_config.yml': 'model:\n  name: Qwen/Qwen3-1.7B\ntrain:\n  batch_size: 8\n',
        'config.yml': 'model:\n  name: other/model\n',
      },
      'train_grpo.py',
    );
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['Qwen/Qwen3-1.7B', 8]);
    assert.equal(run.decided.model?.file, path.join(run.root, 'grpo_config.yml'));
  });

  it("a loader of the script that returns a dataclass built from the file's items (`Config(**cfg_dict)`)", () => {
    const script = [
      'import yaml',
      'from dataclasses import dataclass',
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      '@dataclass',
      'class Config:',
      '    model_name: str',
      '    batch_size: int',
      'def load_config(path: str) -> Config:',
      '    with open(path, "r") as f:',
      '        cfg_dict = yaml.safe_load(f)',
      '    cfg_dict["batch_size"] = int(cfg_dict["batch_size"])',
      '    return Config(**cfg_dict)',
      'cfg = load_config("config.yaml")',
      'model = AutoModelForCausalLM.from_pretrained(cfg.model_name)',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=cfg.batch_size)',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const yaml = 'model_name: TinyLlama/TinyLlama-1.1B-Chat-v1.0\nbatch_size: 2\n';
    const run = runProject({ 'train.py': script, 'config.yaml': yaml }, 'train.py');
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['TinyLlama/TinyLlama-1.1B-Chat-v1.0', 2]);
    assert.equal(run.decided.model?.file, path.join(run.root, 'config.yaml'));
  });

  it('a loader returning `DotMap(data)`, imported after a dozen installed packages (jiangxinke/Agentic-RAG-R1)', () => {
    // src/train.py imports rich, dotenv, swanlab, deepspeed, ... before `from src.utils.utils import (load_config, ...)`:
    // a package that is not in the project costs a failed look-up, not the budget of modules read.
    const installed = [
      'dotenv',
      'rich',
      'swanlab',
      'deepspeed',
      'pdb',
      'datetime',
      'pathlib',
      'einops',
      'tqdm',
      'fire',
    ];
    const script = [
      ...installed.map((m) => `from ${m} import something_${m}`),
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'from src.utils.utils import (',
      '    load_config,',
      '    set_random_seed,',
      ')',
      'def main():',
      '    config = load_config("src/config/config.yaml")',
      '    model = AutoModelForCausalLM.from_pretrained(config.model.name)',
      '    Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const utils = [
      'import yaml',
      'from dotmap import DotMap',
      'def load_config(config_file: str = "src/config/config.yaml") -> DotMap:',
      '    """Loads the configuration."""',
      '    with open(config_file, "r", encoding="utf-8") as f:',
      '        config_data = yaml.safe_load(f)',
      '    return DotMap(config_data)',
      '',
    ].join('\n');
    const run = runProject(
      {
        'src/train.py': script,
        'src/utils/utils.py': utils,
        'src/config/config.yaml': 'model:\n  name: Qwen/Qwen2.5-3B-Instruct\n',
      },
      'src/train.py',
    );
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-3B-Instruct');
  });

  it('a helper function that loads a file the script names is not a loader when it returns something else', () => {
    const script = [
      'from transformers import AutoModelForCausalLM',
      'from utils import load_rows',
      'rows = load_rows("data.json")',
      'model = AutoModelForCausalLM.from_pretrained(rows["model"])',
      '',
    ].join('\n');
    const utils =
      'import json\ndef load_rows(p):\n    with open(p) as f:\n        data = json.load(f)\n    return len(data)\n';
    const run = runProject(
      { 'train.py': script, 'utils.py': utils, 'data.json': '{"model": "Qwen/Qwen3-1.7B"}' },
      'train.py',
    );
    assert.equal(run.setup, undefined);
  });
});

describe('a configuration file the launch line names', () => {
  // W-Kaski/qwen-qlora-sql-benchmark: scripts/train_r16.sh runs `python -m qwen_qlora_sql_benchmark.train.train_qlora
  // --config configs/train_lora_r16.yaml` (a src layout); the module's --config is required, its run_training(config)
  // reads parts of the YAML through names and conversions.
  const module = [
    'import argparse',
    'from pathlib import Path',
    'from qwen_qlora_sql_benchmark.utils.config import load_yaml_config',
    'def run_training(config):',
    '    from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments',
    '    from peft import LoraConfig, get_peft_model',
    '    quantization = config.get("quantization", {})',
    '    bnb_config = BitsAndBytesConfig(load_in_4bit=bool(quantization.get("load_in_4bit", True)))',
    '    model = AutoModelForCausalLM.from_pretrained(config["model"]["name"], quantization_config=bnb_config)',
    '    lora = LoraConfig(r=int(config["lora"]["r"]), target_modules=list(config["lora"]["target_modules"]))',
    '    model = get_peft_model(model, lora)',
    '    train_cfg = config["training"]',
    '    args = TrainingArguments(output_dir="o",',
    '        per_device_train_batch_size=int(train_cfg["per_device_train_batch_size"]))',
    '    Trainer(model=model, args=args).train()',
    'def main():',
    '    parser = argparse.ArgumentParser()',
    '    parser.add_argument("--config", required=True, type=Path)',
    '    args = parser.parse_args()',
    '    config = load_yaml_config(args.config)',
    '    run_training(config)',
    'if __name__ == "__main__":',
    '    main()',
    '',
  ].join('\n');
  const loader =
    'import yaml\ndef load_yaml_config(path):\n    with open(path) as f:\n        return yaml.safe_load(f)\n';
  const yaml = [
    'model:',
    '  name: Qwen/Qwen2.5-1.5B-Instruct',
    'training:',
    '  per_device_train_batch_size: 2',
    'quantization:',
    '  load_in_4bit: true',
    'lora:',
    '  r: 16',
    '  target_modules: [q_proj, v_proj]',
    '',
  ].join('\n');
  const files = {
    'scripts/train_r16.sh':
      'python -m qwen_qlora_sql_benchmark.train.train_qlora --config configs/train_lora_r16.yaml\n',
    'src/qwen_qlora_sql_benchmark/train/train_qlora.py': module,
    'src/qwen_qlora_sql_benchmark/utils/config.py': loader,
    'configs/train_lora_r16.yaml': yaml,
  };

  it("`python -m` of a src layout's module, its required --config read from the line", () => {
    const run = runProject(files, 'scripts/train_r16.sh');
    const s = run.setup;
    assert.deepEqual(
      [s?.model, s?.micro_batch_size, s?.quantization?.bits, s?.lora?.r, s?.lora?.target_modules],
      ['Qwen/Qwen2.5-1.5B-Instruct', 2, 4, 16, ['q_proj', 'v_proj']],
    );
    // Each at its key of the YAML (lines 2 and 4).
    const yamlFile = path.join(run.root, 'configs/train_lora_r16.yaml');
    assert.deepEqual(
      [run.decided.model?.file, run.decided.model?.location.line, run.decided.microBatchSize?.location.line],
      [yamlFile, 2, 4],
    );
    assert.ok(!run.unrecognized.includes(yamlFile));
  });

  it('a module of an installed package (`python -m pip`) is no file of the run and is skipped without a word', () => {
    const run = runProject(
      {
        ...files,
        'scripts/train_r16.sh': `python -m pip install -r requirements.txt\n${files['scripts/train_r16.sh']}`,
      },
      'scripts/train_r16.sh',
    );
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.ok(!run.problems.some((p) => /pip/.test(p.message)));
  });

  it('a constant a function imports from a project module (a lazy import)', () => {
    // SzJS/unsloth-qwen4b src/training/sft.py: `def main(): from training.model import MODEL_NAME_DEFAULT`.
    const script = [
      'def main():',
      '    import argparse',
      '    from training.model import MODEL_NAME_DEFAULT',
      '    from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--model", type=str, default=MODEL_NAME_DEFAULT)',
      '    args = parser.parse_args()',
      '    model = AutoModelForCausalLM.from_pretrained(args.model)',
      '    Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      'main()',
      '',
    ].join('\n');
    const run = runProject(
      { 'src/training/sft.py': script, 'src/training/model.py': 'MODEL_NAME_DEFAULT = "Qwen/Qwen3-4B"\n' },
      'src/training/sft.py',
    );
    assert.equal(run.setup?.model, 'Qwen/Qwen3-4B');
  });
});

describe('a configuration file above the script', () => {
  // Sunshine535/nips-grpo-dynamics scripts/run_all_experiments.sh: `PROJ_DIR_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"`,
  // `python "$SCRIPT_DIR/train_grpo_sweep.py" --config "$PROJ_DIR_ROOT/configs/sweep_grid.yaml"`.
  const script = [
    'import argparse, yaml',
    'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
    'parser = argparse.ArgumentParser()',
    'parser.add_argument("--config", type=str, default="configs/sweep_grid.yaml")',
    'parser.add_argument("--model_name", type=str, default=None)',
    'args = parser.parse_args()',
    'with open(args.config) as f:',
    '    cfg = yaml.safe_load(f)',
    'model = AutoModelForCausalLM.from_pretrained(args.model_name or cfg["model"]["name"])',
    'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
    '',
  ].join('\n');
  const launcher = [
    'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
    'PROJ_DIR_ROOT="${PROJ_DIR_ROOT:-$(cd "$SCRIPT_DIR/.." && pwd)}"',
    'python "$SCRIPT_DIR/train_grpo_sweep.py" --config "$PROJ_DIR_ROOT/configs/grid.yaml"',
    '',
  ].join('\n');

  it("the project's folder from the launcher's, and `args.model_name or cfg[...]` with the option's None default", () => {
    const run = runProject(
      {
        'scripts/run_all.sh': launcher,
        'scripts/train_grpo_sweep.py': script,
        'configs/grid.yaml': 'model:\n  name: Qwen/Qwen2.5-1.5B-Instruct\n',
      },
      'scripts/run_all.sh',
    );
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.equal(run.decided.model?.file, path.join(run.root, 'configs/grid.yaml'));
  });

  it('`./config/x.yaml` from a script under src/: the working folder is the root it runs from, as for `config/x.yaml`', () => {
    // ashishrb/llama-finetune-project-template src/training/train.py: `--model_config` defaults to
    // "./config/model_config.yaml", loaded by load_model_config(path), read by setup_model_and_tokenizer.
    const train = [
      'import argparse, yaml',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'def load_model_config(config_path: str = "config/model_config.yaml"):',
      '    with open(config_path, "r") as f:',
      '        config = yaml.safe_load(f)',
      '    return config',
      'def main():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--model_config", type=str, default="./config/model_config.yaml")',
      '    args = parser.parse_args()',
      '    model_config = load_model_config(args.model_config)',
      '    model = AutoModelForCausalLM.from_pretrained(model_config["model"]["base_model"])',
      '    Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      'main()',
      '',
    ].join('\n');
    const yaml = 'model:\n  base_model: meta-llama/Llama-3.2-3B-Instruct\n';
    const run = runProject(
      { 'src/training/train.py': train, 'config/model_config.yaml': yaml },
      'src/training/train.py',
    );
    assert.equal(run.setup?.model, 'meta-llama/Llama-3.2-3B-Instruct');
    assert.equal(run.decided.model?.file, path.join(run.root, 'config/model_config.yaml'));
    // `../config/x.yaml` starts above the working folder: not looked for in the folders above the script.
    const up = runProject(
      { 'src/training/train.py': train.replace('"./config/', '"../config/'), 'config/model_config.yaml': yaml },
      'src/training/train.py',
    );
    assert.equal(up.setup, undefined);
  });

  it("a project function that loads a fixed file and returns the item its argument names (locuslab/tofu's utils.py)", () => {
    // locuslab/tofu finetune.py: `model_cfg = get_model_identifiers_from_yaml(cfg.model_family)` then
    // `model_id = model_cfg["hf_key"]`; utils.py opens "config/model_config.yaml" and returns model_configs[model_family].
    const utils = [
      'import yaml',
      'def get_model_identifiers_from_yaml(model_family):',
      '    model_configs = {}',
      '    with open("config/model_config.yaml", "r") as f:',
      '        model_configs = yaml.load(f, Loader=yaml.FullLoader)',
      '    return model_configs[model_family]',
      '',
    ].join('\n');
    const train = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'from utils import get_model_identifiers_from_yaml',
      'MODEL_FAMILY = "llama2-7b"',
      'model_cfg = get_model_identifiers_from_yaml(MODEL_FAMILY)',
      'model = AutoModelForCausalLM.from_pretrained(model_cfg["hf_key"])',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const yaml = 'llama2-7b:\n  hf_key: "NousResearch/Llama-2-7b-chat-hf"\nphi:\n  hf_key: "microsoft/phi-1_5"\n';
    const files = { 'finetune.py': train, 'utils.py': utils, 'config/model_config.yaml': yaml };
    const run = runProject(files, 'finetune.py');
    assert.equal(run.setup?.model, 'NousResearch/Llama-2-7b-chat-hf');
    assert.equal(run.decided.model?.file, path.join(run.root, 'config/model_config.yaml'));
    // Another family, another item.
    const phi = runProject({ ...files, 'finetune.py': train.replace('"llama2-7b"', '"phi"') }, 'finetune.py');
    assert.equal(phi.setup?.model, 'microsoft/phi-1_5');
  });

  it('a star-imported loader that returns the mapping through a converter of its own (Joshua-Ren/SFT_vs_RL)', () => {
    // utils/config_read.py: `with open(config_path) as f: config = yaml.safe_load(f)`, then `return convert_none(config)`
    // of a function nested in the loader; the script takes it with `from utils.config_read import *`.
    const loader = [
      'import yaml',
      'def load_config(config_path="config.yaml"):',
      '    with open(config_path, "r", encoding="utf-8") as f:',
      '        config = yaml.safe_load(f)',
      '    def convert_none(obj):',
      '        return obj',
      '    return convert_none(config)',
      '',
    ].join('\n');
    const script = [
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'from utils.config_read import *',
      'config = load_config("./configs/train_basic.yaml")',
      'model = AutoModelForCausalLM.from_pretrained(config["model"]["name"])',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=config["train"]["batch_size"])',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const yaml = 'model:\n  name: "Qwen/Qwen2.5-1.5B-Instruct"\ntrain:\n  batch_size: 4\n';
    const files = { 'train.py': script, 'utils/config_read.py': loader, 'configs/train_basic.yaml': yaml };
    const run = runProject(files, 'train.py');
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['Qwen/Qwen2.5-1.5B-Instruct', 4]);
    assert.equal(run.decided.model?.file, path.join(run.root, 'configs/train_basic.yaml'));
    // A converter that is a class (`Config(config)`, whose attributes are its own) is not read as the file's items.
    const cls = loader.replace('return convert_none(config)', 'return Config(config)');
    assert.equal(runProject({ ...files, 'utils/config_read.py': cls }, 'train.py').setup, undefined);
  });

  it("an imported function that hands back a copy of the mapping it is given keeps the file's items (YYHDBL/qwen3-qlora-reasoning)", () => {
    // src/common/config.py: `updated = copy.deepcopy(dict(config))`, the overrides set on it, `return updated`.
    const module = [
      'import copy',
      'import yaml',
      'from pathlib import Path',
      'def load_yaml_config(path):',
      '    value = yaml.safe_load(Path(path).read_text(encoding="utf-8"))',
      '    if not isinstance(value, dict):',
      '        raise ValueError(path)',
      '    return value',
      'def apply_overrides(config, overrides):',
      '    updated = copy.deepcopy(dict(config))',
      '    for override in overrides:',
      '        key, value = override.split("=", 1)',
      '        updated[key] = value',
      '    return updated',
      '',
    ].join('\n');
    const script = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'from common.config import apply_overrides, load_yaml_config',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--config", default="configs/c.yaml")',
      'parser.add_argument("--set", nargs="*", default=[])',
      'args = parser.parse_args()',
      'config = apply_overrides(load_yaml_config(args.config), args.set)',
      'model = AutoModelForCausalLM.from_pretrained(config["model"]["id"])',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=config["training"]["batch_size"])',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const yaml = 'model:\n  id: Qwen/Qwen2.5-1.5B\ntraining:\n  batch_size: 4\n';
    const files = { 'train.py': script, 'common/config.py': module, 'configs/c.yaml': yaml };
    const run = runProject(files, 'train.py');
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['Qwen/Qwen2.5-1.5B', 4]);
    // A function that returns something else built from it (`Config(**config)` of a class) is no copy.
    const built = module.replace('updated = copy.deepcopy(dict(config))', 'updated = build(config)');
    assert.equal(runProject({ ...files, 'common/config.py': built }, 'train.py').setup, undefined);
  });

  it('a file above the working folder is not read, though the script names it', () => {
    const root = tempDir('vram-lens-above-');
    const project = path.join(root, 'project');
    fs.mkdirSync(path.join(project, 'scripts'), { recursive: true });
    fs.writeFileSync(path.join(root, 'outside.yaml'), 'model:\n  name: Qwen/Qwen2.5-1.5B-Instruct\n');
    const text = script.replace('default="configs/sweep_grid.yaml"', 'default="../../outside.yaml"');
    const file = path.join(project, 'scripts', 'train.py');
    fs.writeFileSync(file, text);
    const run = runPipeline([{ file, text }], nodeFileReader(project), {});
    assert.equal(run.setup, undefined);
  });

  it("an absolute path of the author's machine is read as the checkout's file with its last parts, never itself", () => {
    // tathagatoroy/Controllable_Summarization_Experiments naacl/*.py (abridged): `--config_path` defaults to the author's
    // /home2/.../naacl/configs/joint_multi_attribute_dpo.yaml, and the model is config["experiments"][name]["model_id"].
    const train = [
      'import argparse, yaml',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--config_path", default="/home2/someone/proj/naacl/configs/run.yaml")',
      'args = parser.parse_args()',
      'with open(args.config_path) as f:',
      '    config = yaml.safe_load(f)',
      'model = AutoModelForCausalLM.from_pretrained(config["experiments"]["a"]["model_id"])',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const yaml = 'experiments:\n  a:\n    model_id: Qwen/Qwen2.5-0.5B\n';
    const run = runProject({ 'naacl/train.py': train, 'naacl/configs/run.yaml': yaml }, 'naacl/train.py');
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-0.5B');
    // One last part alone (run.yaml) is no match: a file of that name elsewhere in the checkout is not taken.
    const single = train.replace('/home2/someone/proj/naacl/configs/run.yaml', '/home2/run.yaml');
    assert.equal(
      runProject({ 'naacl/train.py': single, 'naacl/configs/run.yaml': yaml }, 'naacl/train.py').setup,
      undefined,
    );
  });
});
