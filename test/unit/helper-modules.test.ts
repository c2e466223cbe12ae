// A training script that builds its model in a helper module beside it (`from helpers import build_model`, as PEFT's
// examples/sft/train.py does with utils.py): the pipeline reads the module with the script's options as the launch
// line sets them, so the load dtype, the 4-bit config and LoRA written there are the run's. The texts below are
// written for these tests in the shape of that example (dataclass options, a loader whose branches the options pick).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeHfPython } from '../../src/analyzers/hf-python';
import { detectFormat } from '../../src/analyzers/detect';
import { argumentEnvironment } from '../../src/analyzers/launch-args';
import { runPipeline, type FileReader } from '../../src/analyzers/pipeline';
import type { CanonicalKey } from '../../src/analyzers/facts';
import { estimate } from '../../src/core/estimate';
import { RunIndex } from '../../src/server/runs';
import { runsModuleEntry } from '../../src/node/launchers';
import { Workspace } from '../../src/server/workspace';
import { nodeFileReader } from '../../src/node/files';
import { findGpu } from '../../src/core/lookup';
import { SCRIPT_WITH_MAIN, tempDir, inMemory } from './helpers';

const TRAIN = `from dataclasses import dataclass, field
from typing import Optional
from transformers import HfArgumentParser, TrainingArguments
from trl import SFTTrainer
from helpers import build_model
import data_tools


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="meta-llama/Llama-3.1-8B")
    lora_r: Optional[int] = field(default=64)
    use_4bit: Optional[bool] = field(default=False)
    storage_dtype: Optional[str] = field(default="uint8")
    use_flash_attn: Optional[bool] = field(default=False)


def main(model_args, training_args):
    model, peft_config = build_model(model_args, training_args)
    trainer = SFTTrainer(model=model, args=training_args, peft_config=peft_config)
    trainer.train()


if __name__ == "__main__":
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    main(model_args, training_args)
`;

const HELPERS = `import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from peft import LoraConfig


def build_model(args, training_args):
    bnb_config = None
    storage = None
    if args.use_4bit:
        storage = getattr(torch, args.storage_dtype)
        bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_storage=storage)
    elif args.use_8bit:
        bnb_config = BitsAndBytesConfig(load_in_8bit=True)
    dtype = storage if storage and storage.is_floating_point else torch.float32
    kwargs = {"dtype": dtype}
    if args.use_flash_attn:
        kwargs["attn_implementation"] = "flash_attention_2"
    if bnb_config is not None:
        kwargs["quantization_config"] = bnb_config
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, **kwargs)
    peft_config = LoraConfig(r=args.lora_r, lora_alpha=16, target_modules="all-linear")
    return model, peft_config
`;

const LAUNCH =
  'accelerate launch --num_processes 2 train.py --bf16 True --per_device_train_batch_size 1 --max_length 1024';

/** The run of /run/launch.sh with the given launch-line options after train.py. */
function run(extra: string, files: Record<string, string> = {}) {
  const all: Record<string, string> = {
    '/run/launch.sh': `${LAUNCH} ${extra}\n`,
    '/run/train.py': TRAIN,
    '/run/helpers.py': HELPERS,
    ...files,
  };
  return runPipeline([{ file: '/run/launch.sh', text: all['/run/launch.sh'] }], inMemory(all), {});
}

const decided = (r: ReturnType<typeof run>, key: CanonicalKey) => r.decided[key];

/** The editor's index of runs over a folder, its background scan finished. */
async function scannedIndex(dir: string): Promise<RunIndex> {
  const workspace = new Workspace(true, { HOME: '/nonexistent' });
  workspace.setFolders([dir]);
  const index = new RunIndex(workspace, () => undefined);
  index.rebuild();
  for (let i = 0; i < 400 && !index.ready; i++) await new Promise((res) => setTimeout(res, 5));
  assert.ok(index.ready);
  return index;
}
describe('helper modules a training script imports', () => {
  it('an import the script calls into is a module reference; packages and names it never calls are not', () => {
    const refs = analyzeHfPython(TRAIN).references;
    // helpers.build_model is called; data_tools is imported but nothing of it is called; transformers / trl are packages.
    assert.deepEqual(
      refs.map((r) => [r.kind, r.path, TRAIN.slice(r.span.start, r.span.end)]),
      [['module', 'helpers.py', 'helpers']],
    );
    const relative = analyzeHfPython(
      'from .pkg.loader import load\nfrom ..common import setup as s\nimport tools.models as tm\n' +
        'load()\ns()\ntm.make()\n',
    ).references;
    assert.deepEqual(
      relative.map((r) => r.path),
      ['./pkg/loader.py', '../common.py', 'tools/models.py'],
    );
    // A package's own module named like one of the standard library (`from .types import ...`) is the package's; an
    // absolute import of a standard or installed package is not read.
    const named = analyzeHfPython(
      'from .types import make_config\nfrom types import SimpleNamespace\nimport omegaconf\n' +
        'make_config()\nSimpleNamespace()\nomegaconf.OmegaConf.create({})\n',
    ).references;
    assert.deepEqual(
      named.map((r) => r.path),
      ['./types.py'],
    );
  });

  it('installed packages take none of the modules followed from a file (at most 8): the project modules after them are read', () => {
    // chrisjcc/text-to-sql-refine-tuning's scripts/train.py imports pathlib and omegaconf before its own modules; with
    // those two counted, its config builder and GRPO trainer were the ninth and tenth, and not read.
    const own = Array.from({ length: 8 }, (_, i) => `from src.part${i} import make${i}`);
    const calls = Array.from({ length: 8 }, (_, i) => `make${i}()`);
    const lines = [
      'from pathlib import Path',
      'from omegaconf import OmegaConf',
      ...own,
      'Path(".")',
      'OmegaConf.create({})',
    ];
    assert.deepEqual(
      analyzeHfPython(`${[...lines, ...calls].join('\n')}\n`).references.map((r) => r.path),
      own.map((_, i) => `src/part${i}.py`),
    );
  });

  it("the script's options and their defaults go with its facts, for its modules", () => {
    const options = analyzeHfPython(TRAIN).options ?? [];
    const byName = new Map(options.map((o) => [o.name, o]));
    assert.deepEqual(byName.get('lora_r'), {
      name: 'lora_r',
      value: 64,
      where: 'ModelArguments.lora_r default',
      line: 12,
    });
    assert.equal(byName.get('use_4bit')?.value, false);
    // A script without module references carries none.
    assert.equal(
      analyzeHfPython('from transformers import TrainingArguments\nTrainingArguments(bf16=True)\n').options,
      undefined,
    );
  });

  it('the launch line over the defaults; an option passed from a variable is unknown', () => {
    const env = argumentEnvironment(
      [
        { name: 'lora_r', value: 64, where: 'ModelArguments.lora_r default', line: 11 },
        { name: 'use_4bit', value: false, where: 'ModelArguments.use_4bit default', line: 12 },
        { name: 'storage_dtype', value: 'uint8', where: 'ModelArguments.storage_dtype default', line: 13 },
      ],
      [
        { name: 'use_4bit', value: 'True' },
        { name: 'storage-dtype', value: '"bfloat16"' },
        { name: 'lora_r', value: null },
        { name: 'use_flash_attn' },
      ],
      undefined,
      '/run/train.py',
    );
    assert.deepEqual(env.get('use_4bit'), {
      value: true,
      source: '--use_4bit True on the launch line',
      launched: true,
    });
    assert.equal(env.get('storage_dtype')?.value, 'bfloat16');
    assert.equal(env.get('use_flash_attn')?.value, true);
    // Unknown, not the default: a test on it stays undecided (pipeline.ts withBranchesDecided).
    assert.equal(env.get('lora_r')?.value, null);
    assert.equal(env.get('lora_r')?.unknown, '--lora_r on the launch line, from a value not known statically');
    const kept = argumentEnvironment(
      [{ name: 'lora_r', value: 64, where: 'ModelArguments.lora_r default', line: 11 }],
      [],
      undefined,
      '/run/train.py',
    );
    assert.equal(kept.get('lora_r')?.source, 'ModelArguments.lora_r default 64 (train.py line 11)');
  });

  it('defaults: the loader runs its fp32 branch, located in the module, with LoRA r from the script default', () => {
    const r = run('');
    assert.deepEqual(
      r.files.map((f) => [path.basename(f.file), f.role]),
      [
        ['launch.sh', 'launcher'],
        ['train.py', 'referenced'],
        ['helpers.py', 'referenced'],
      ],
    );
    // use_4bit defaults to False: `storage` stays None, so `dtype = ... else torch.float32`.
    const w = decided(r, 'weightsDtype');
    assert.equal(w?.fact.value, 'fp32');
    assert.equal(w?.file, '/run/helpers.py');
    assert.equal(w?.location.line, 15);
    // No BitsAndBytesConfig runs (use_8bit is not an option of the script: its elif is not known, but its if is).
    assert.equal(decided(r, 'quantBits'), undefined);
    assert.equal(decided(r, 'attention'), undefined);
    const lora = decided(r, 'loraR');
    assert.equal(lora?.fact.value, 64);
    assert.match(lora?.fact.rawValue ?? '', /ModelArguments\.lora_r default 64 \(train\.py line 12\)/);
    assert.equal(lora?.file, '/run/helpers.py');
    assert.equal(r.setup?.weights_dtype, 'fp32');
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.lora?.r, 64);
    assert.deepEqual(
      r.problems.filter((p) => p.severity !== 'info'),
      [],
    );
    // Llama-3.1-8B's 8,030,261,248 parameters loaded in fp32, FSDP-free over 2 GPUs (DDP): 4 B each on every GPU.
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    assert.equal(e.estimate.perGpu.components.find((c) => c.label === 'Weights')?.bytes, 8_030_261_248 * 4);
  });

  it('the launch line turns the 4-bit branch on: NF4 stored in bf16, flash attention, r from the flag', () => {
    const r = run('--use_4bit True --storage_dtype bfloat16 --use_flash_attn True --lora_r 16');
    assert.equal(decided(r, 'quantBits')?.fact.value, 4);
    assert.equal(decided(r, 'quantBits')?.file, '/run/helpers.py');
    // getattr(torch, "bfloat16") is a float type: dtype = storage.
    assert.equal(decided(r, 'weightsDtype')?.fact.value, 'bf16');
    assert.equal(decided(r, 'attention')?.fact.value, 'flash');
    assert.equal(r.setup?.method, 'qlora');
    assert.equal(r.setup?.lora?.r, 16);
    // An integer storage type is not a float: the model is loaded in fp32 beside its 4-bit layers.
    assert.equal(run('--use_4bit True --storage_dtype uint8').setup?.weights_dtype, 'fp32');
  });

  it("only what runs for the script is read: the functions it calls and theirs, not the module's others", () => {
    const helpers = `import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig


def quant_config(args):
    return BitsAndBytesConfig(load_in_4bit=True)


def build_model(args, training_args):
    return AutoModelForCausalLM.from_pretrained(
        args.model_name_or_path, dtype=torch.bfloat16, quantization_config=quant_config(args)
    )


def load_for_inference(path):
    return AutoModelForCausalLM.from_pretrained(path, dtype=torch.float16)
`;
    const r = run('', { '/run/helpers.py': helpers });
    // build_model -> quant_config: bf16 and 4-bit; load_for_inference (fp16), which the script never calls, is not read.
    assert.equal(decided(r, 'weightsDtype')?.fact.value, 'bf16');
    assert.equal(decided(r, 'weightsDtype')?.location.line, 11);
    assert.equal(decided(r, 'quantBits')?.fact.value, 4);
    const refs = analyzeHfPython(TRAIN).references;
    assert.deepEqual(refs[0].calls, ['build_model']);
    // `import tools.models` called as `tools.models.make(...)`: the module's name is `make`.
    assert.deepEqual(
      analyzeHfPython('import tools.models\ntools.models.make()\n').references.map((x) => [x.path, x.calls]),
      [['tools/models.py', ['make']]],
    );
  });

  it('a module that is not beside the script (an installed package) is skipped without a word', () => {
    const r = runPipeline([{ file: '/run/train.py', text: TRAIN }], inMemory({ '/run/train.py': TRAIN }), {});
    assert.deepEqual(
      r.files.map((f) => path.basename(f.file)),
      ['train.py'],
    );
    assert.ok(!r.problems.some((p) => p.code === 'reference-not-found'));
    assert.equal(r.setup?.weights_dtype, 'bf16');
  });

  it("a module function the script calls once takes the script's arguments (Navid-Gen-AI/llama3-orpo-lora-finetune)", () => {
    // main.py: `base_model = "meta-llama/Meta-Llama-3-8B"`, `load_model(base_model, torch_dtype)` and
    // `train_model(model, tokenizer, peft_config, dataset)` from the project's models/ package; load_model loads
    // `from_pretrained(model_name, ...)` of its parameter. main.py is read as the thin entry point it is.
    const main = [
      'from models.load_model import load_model',
      'from models.train_model import train_model',
      'def main():',
      '    base_model = "meta-llama/Meta-Llama-3-8B"',
      '    model, tokenizer, peft_config = load_model(base_model, torch_dtype)',
      '    train_model(model, tokenizer, peft_config, dataset)',
      'if __name__ == "__main__":',
      '    main()',
      '',
    ].join('\n');
    const loader = [
      'from transformers import AutoModelForCausalLM',
      'def load_model(model_name, torch_dtype, lora_r=16):',
      '    model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch_dtype)',
      '    peft_config = LoraConfig(r=lora_r, lora_alpha=32, target_modules="all-linear")',
      '    return model, None, peft_config',
      '',
    ].join('\n');
    const trainer =
      'def train_model(model, tokenizer, peft_config, dataset):\n' +
      '    ORPOTrainer(model=model, args=ORPOConfig(output_dir="o"), peft_config=peft_config).train()\n';
    assert.equal(detectFormat('main.py', main), 'hf-python');
    const files = { '/p/main.py': main, '/p/models/load_model.py': loader, '/p/models/train_model.py': trainer };
    const r = runPipeline([{ file: '/p/main.py', text: main }], inMemory(files), {});
    assert.equal(r.setup?.model, 'meta-llama/Meta-Llama-3-8B');
    assert.equal(r.setup?.lora?.r, 16);
    const model = r.files.flatMap((f) => f.facts.facts).find((f) => f.key === 'model');
    assert.match(model?.rawValue ?? '', /the script's call of load_model\(\) \(line 5\)/);
  });

  it('a star import (`from utils import *`) is read for the names the script calls that the module defines (starsuzi/T-SAS)', () => {
    // run_tsas.py: `from utils import *`, then `model, tokenizer = load_model(args)`; utils.py's load_model wraps
    // flan-t5 in LoRA r 8 (abridged). Before, the star import named no function and the run was read as a full fine-tune.
    const script = [
      'import torch',
      'from utils import *',
      'def main():',
      '    model, tokenizer = load_model("google/flan-t5-xl")',
      '    print(len(tokenizer))',
      '    opt = torch.optim.AdamW(model.parameters(), lr=3e-5)',
      '    for batch in loader:',
      '        model(**batch).loss.backward()',
      '        opt.step()',
      'main()',
      '',
    ].join('\n');
    const utils = [
      'from transformers import AutoModelForSeq2SeqLM',
      'from peft import LoraConfig, get_peft_model',
      'def load_model(name):',
      '    model = AutoModelForSeq2SeqLM.from_pretrained(name)',
      '    return get_peft_model(model, LoraConfig(task_type="SEQ_2_SEQ_LM", r=8, lora_alpha=32)), None',
      'def load_other(name):',
      '    return AutoModelForSeq2SeqLM.from_pretrained(name, torch_dtype=torch.float16)',
      '',
    ].join('\n');
    const refs = analyzeHfPython(script).references.filter((x) => x.kind === 'module');
    // Every name called, or called a method of, that no definition or other import of the script binds (main is its
    // own): the module keeps those it defines, load_model.
    assert.deepEqual(
      refs.map((x) => [x.path, x.calls, x.starImport]),
      [['utils.py', ['load_model', 'print', 'len', 'model', 'opt'], true]],
    );
    // The launch line makes run.py the program, which names no library class itself.
    const launch = 'python run.py\n';
    const files = { '/p/run.sh': launch, '/p/run.py': script, '/p/utils.py': utils };
    const r = runPipeline([{ file: '/p/run.sh', text: launch }], inMemory(files), {});
    assert.deepEqual(
      r.files.map((f) => path.basename(f.file)),
      ['run.sh', 'run.py', 'utils.py'],
    );
    assert.equal(r.setup?.model, 'google/flan-t5-xl');
    assert.equal(r.setup?.lora?.r, 8);
    // load_other, which nothing calls, is not read: its fp16 is not the run's.
    assert.notEqual(r.setup?.weights_dtype, 'fp16');
  });

  it('a script that imports its training function inside main() is read for that module (MaxiRuess/preference-collapse-dpo)', () => {
    // scripts/05a_train_sft.py: no ML import of its own; main() loads `--config` (default configs/config.yaml), then
    // `from src.sft_training import train_sft_ideology` and calls it with the loaded dict, whose
    // `config["training"].get("sft_base_model", ...)` and `sft` section give the model and the batch (abridged).
    const script = [
      'import argparse',
      'import yaml',
      'def main():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--config", default="configs/config.yaml")',
      '    args = parser.parse_args()',
      '    with open(args.config) as f:',
      '        config = yaml.safe_load(f)',
      '    from src.sft_training import train_sft_ideology',
      '    train_sft_ideology(None, config, "sft_right")',
      'if __name__ == "__main__":',
      '    main()',
      '',
    ].join('\n');
    const module = [
      'from transformers import AutoModelForCausalLM',
      'from trl import SFTConfig, SFTTrainer',
      'def train_sft_ideology(sft_dataset, config, condition_name):',
      '    base = config["training"].get("sft_base_model", "mistralai/Mistral-7B-Instruct-v0.2")',
      '    sft_cfg = config["training"].get("sft", {})',
      '    model = AutoModelForCausalLM.from_pretrained(base)',
      '    args = SFTConfig(output_dir="o", per_device_train_batch_size=sft_cfg.get("per_device_batch_size", 4),',
      '                     gradient_accumulation_steps=sft_cfg.get("gradient_accumulation_steps", 2), bf16=True)',
      '    SFTTrainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const yaml = [
      'training:',
      '  sft_base_model: "mistralai/Mistral-7B-v0.1"',
      '  sft:',
      '    per_device_batch_size: 8',
      '    gradient_accumulation_steps: 3',
      '',
    ].join('\n');
    assert.equal(detectFormat('scripts/05a_train_sft.py', script), 'hf-python');
    const dir = tempDir('vram-lens-lazy-import-');
    const files: Record<string, string> = {
      'scripts/05a_train_sft.py': script,
      'src/sft_training.py': module,
      'configs/config.yaml': yaml,
    };
    for (const [p, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      fs.writeFileSync(path.join(dir, p), text);
    }
    const entry = path.join(dir, 'scripts/05a_train_sft.py');
    const r = runPipeline([{ file: entry, text: script }], nodeFileReader(dir), {});
    assert.ok(r.files.some((f) => f.file === path.join(dir, 'src/sft_training.py')));
    const s = r.setup;
    assert.deepEqual(
      [s?.model, s?.micro_batch_size, s?.gradient_accumulation_steps],
      ['mistralai/Mistral-7B-v0.1', 8, 3],
    );
  });

  it("a static or class method called through the imported class takes the call's arguments", () => {
    // alijammoul2005/fineTune main.py: `from src.model_eng import ModelEngine`, then
    // `ModelEngine.build_qlora_model(MODEL_ID, {...})`, a @staticmethod whose `from_pretrained(model_id, ...)` loads it;
    // a @classmethod's `cls` is not among the arguments the call passes.
    const main = [
      'from src.model_eng import ModelEngine',
      'MODEL_ID = "mistralai/Mistral-7B-v0.1"',
      'model = ModelEngine.build_qlora_model(MODEL_ID, 8)',
      'SFTTrainer(model=model, args=SFTConfig(output_dir="o")).train()',
      '',
    ].join('\n');
    for (const decorator of [
      '@staticmethod\n    def build_qlora_model(model_id, r):',
      '@classmethod\n    def build_qlora_model(cls, model_id, r):',
    ]) {
      const engine = [
        'from transformers import AutoModelForCausalLM',
        'class ModelEngine:',
        `    ${decorator}`,
        '        model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.bfloat16)',
        '        return get_peft_model(model, LoraConfig(r=r, lora_alpha=16, target_modules="all-linear"))',
        '',
      ].join('\n');
      const files = { '/p/main.py': main, '/p/src/model_eng.py': engine };
      const r = runPipeline([{ file: '/p/main.py', text: main }], inMemory(files), {});
      assert.equal(r.setup?.model, 'mistralai/Mistral-7B-v0.1', decorator);
      assert.equal(r.setup?.lora?.r, 8, decorator);
    }
  });

  it("a thin entry point the launch line runs is read for the module it calls (LLaVA's train_mem.py)", () => {
    // haotian-liu/LLaVA scripts/v1_5/finetune_lora.sh runs llava/train/train_mem.py, whose whole text is the import
    // and the call below; llava/train/train.py builds LoraConfig(target_modules=find_all_linear_names(model)) under
    // `if training_args.lora_enable:`, find_all_linear_names collecting every nn.Linear name but the head's.
    const entry = 'from llava.train.train import train\n\nif __name__ == "__main__":\n    train()\n';
    const train = [
      'from dataclasses import dataclass, field',
      'import torch',
      'import transformers',
      'from peft import LoraConfig, get_peft_model',
      '',
      '@dataclass',
      'class TrainingArguments(transformers.TrainingArguments):',
      '    lora_enable: bool = False',
      '    lora_r: int = 64',
      '    lora_alpha: int = 16',
      '',
      'def find_all_linear_names(model):',
      '    cls = torch.nn.Linear',
      '    lora_module_names = set()',
      '    for name, module in model.named_modules():',
      '        if isinstance(module, cls):',
      '            names = name.split(".")',
      '            lora_module_names.add(names[0] if len(names) == 1 else names[-1])',
      '',
      '    if "lm_head" in lora_module_names:',
      '        lora_module_names.remove("lm_head")',
      '    return list(lora_module_names)',
      '',
      'def train():',
      '    parser = transformers.HfArgumentParser((TrainingArguments,))',
      '    (training_args,) = parser.parse_args_into_dataclasses()',
      '    model = transformers.AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")',
      '    if training_args.lora_enable:',
      '        config = LoraConfig(r=training_args.lora_r, lora_alpha=training_args.lora_alpha,',
      '                            target_modules=find_all_linear_names(model))',
      '        model = get_peft_model(model, config)',
      '    transformers.Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const files = {
      '/repo/finetune_lora.sh': 'deepspeed llava/train/train_mem.py --lora_enable True --lora_r 128 --lora_alpha 256\n',
      '/repo/llava/train/train_mem.py': entry,
      '/repo/llava/train/train.py': train,
    };
    const r = runPipeline(
      [{ file: '/repo/finetune_lora.sh', text: files['/repo/finetune_lora.sh'] }],
      { read: (p) => files[p as keyof typeof files], join: (_from, rel) => path.posix.join('/repo', rel) },
      {},
    );
    assert.deepEqual(
      r.files.map((f) => path.basename(f.file)),
      ['finetune_lora.sh', 'train_mem.py', 'train.py'],
    );
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.lora?.r, 128);
    assert.equal(r.setup?.lora?.target_modules, 'all-linear');
    // Opened alone it is a training file too, read for the module it calls; a file of another name that calls
    // another function is not.
    assert.equal(detectFormat('llava/train/train_mem.py', entry), 'hf-python');
    assert.equal(detectFormat('tools/serve.py', entry), undefined);
    assert.equal(detectFormat('train_x.py', 'from app.cli import main\n\nmain()\n'), undefined);
    // shivam13juna/Accelerate-LLM-FineTune's train_fsdp.py passes its own batch size: `train(batch_size=BATCH_SIZE)`.
    const withArgs =
      'from src.train import train\n\nBATCH_SIZE = 8\n\nif __name__ == "__main__":\n    train(batch_size=BATCH_SIZE)  # note\n';
    assert.equal(detectFormat('train_fsdp.py', withArgs), 'hf-python');
  });

  it("runs a module's own entry only where the importer calls what its main block calls", () => {
    const module = 'def train(): ...\ndef helper(): ...\n\nif __name__ == "__main__":\n    train()\n';
    // LLaVA's train_mem.py: `from llava.train.train import train`, then `train(attn_implementation=...)`.
    assert.ok(runsModuleEntry('llava/train/train.py', module, 'from llava.train.train import train\ntrain(x=1)\n'));
    assert.ok(runsModuleEntry('train.py', module, 'import train as base\nbase.train()\n'));
    // Helpers taken beside a trainer of the importer's own: the main block never runs.
    assert.ok(
      !runsModuleEntry('train.py', module, 'from train import (\n    helper,\n)\nhelper()\ndef train(): ...\n'),
    );
    // A module without a main block is run by whoever imports it.
    assert.ok(runsModuleEntry('utils.py', 'def helper(): ...\n', 'from utils import helper\n'));
  });

  it('in the editor a script another only takes helpers from is first its own run', async () => {
    const dir = tempDir('vram-lens-helpers-');
    try {
      const own = SCRIPT_WITH_MAIN;
      const importer =
        'from train import build\nfrom transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
        'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
        'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=16)).train()\n';
      fs.writeFileSync(path.join(dir, 'train.py'), own);
      fs.writeFileSync(path.join(dir, 'train_full.py'), importer);
      const index = await scannedIndex(dir);
      const entries = index.runsOf(path.join(dir, 'train.py')).map((x) => path.basename(x.entry));
      assert.deepEqual(entries[0], 'train.py');
      assert.ok(entries.includes('train_full.py'), JSON.stringify(entries));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in the editor the module belongs to the run of the launcher that runs its script', async () => {
    const dir = tempDir('vram-lens-helpers-');
    try {
      fs.writeFileSync(path.join(dir, 'launch.sh'), `${LAUNCH}\n`);
      fs.writeFileSync(path.join(dir, 'train.py'), TRAIN);
      fs.writeFileSync(path.join(dir, 'helpers.py'), HELPERS);
      const index = await scannedIndex(dir);
      assert.deepEqual(
        index.runsOf(path.join(dir, 'helpers.py')).map((x) => path.basename(x.entry)),
        ['launch.sh'],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // PEFT's own example (test/real-files, huggingface/peft@5d602fd): run_peft_fsdp.sh runs train.py, whose
  // create_and_prepare_model in utils.py loads Llama-2-70B in fp32 unless a float 4-bit storage type is given.
  const sft = path.resolve(
    __dirname,
    '..',
    '..',
    '..',
    'test',
    'real-files',
    'files',
    'huggingface__peft',
    'examples',
    'sft',
  );
  const peftRun = (launcher: string) => {
    const file = path.join(sft, launcher);
    return runPipeline([{ file, text: fs.readFileSync(file, 'utf8') }], nodeFileReader(sft), {});
  };

  it("PEFT's run_peft_fsdp.sh: the base loaded in fp32 by utils.py, sharded over 8 GPUs", function () {
    if (!fs.existsSync(path.join(sft, 'utils.py'))) this.skip();
    const r = peftRun('run_peft_fsdp.sh');
    assert.ok(r.files.some((f) => path.basename(f.file) === 'utils.py'));
    assert.equal(r.decided.weightsDtype?.fact.value, 'fp32');
    assert.equal(path.basename(r.decided.weightsDtype?.file ?? ''), 'utils.py');
    assert.equal(r.setup?.weights_dtype, 'fp32');
    assert.equal(r.setup?.gpus_per_node, 8);
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    const e = estimate(r.setup!, { provenance: r.provenance, gpu: h100.gpu });
    assert.ok(e.ok);
    // 68,976,648,192 parameters (Llama-2-70B) x 4 B / 8 ranks, FULL_SHARD. PEFT's docs give 72-80 GB (90-98 %) per
    // H100 for this run (FINDINGS §62); with the base in bf16, as assumed before the module was read, 53.4 GiB.
    assert.equal(e.estimate.perGpu.components.find((c) => c.label === 'Weights')?.bytes, (68_976_648_192 * 4) / 8);
    assert.ok(!e.estimate.assumptions.some((a) => a.key === 'weights_dtype'));
  });

  it("PEFT's run_peft_qlora_fsdp.sh: --use_4bit_quantization turns utils.py's 4-bit branch on, stored in bf16", function () {
    if (!fs.existsSync(path.join(sft, 'utils.py'))) this.skip();
    const r = peftRun('run_peft_qlora_fsdp.sh');
    assert.equal(r.decided.weightsDtype?.fact.value, 'bf16');
    // LoRA (--use_peft_lora) over the 4-bit base: the quantized layers NF4, the rest in the bf16 storage type.
    assert.equal(r.setup?.quantization?.bits, 4);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.ok(!r.problems.some((p) => p.code === 'not-static' && /dtype/.test(p.message)));
  });
});

describe('config objects a project module builds at its top level', () => {
  // RaidenEiMyFriend/LoRA-Finetune-Medical-Chatbot main.py: `from configs.lora_config import lora_config` (a LoraConfig
  // built on import), `from configs.train_config import train_config` (an SFTConfig), and
  // `trainer = get_trainer(model, tokenizer, dataset, train_config, lora_config)` then `trainer.train()`.
  const files: Record<string, string> = {
    '/p/main.py': [
      'from model.model_loader import load_model_and_tokenizer',
      'from configs.lora_config import lora_config',
      'from configs.train_config import train_config',
      'from trainer.trainer import get_trainer',
      'def main():',
      '    model, tokenizer = load_model_and_tokenizer("Qwen/Qwen2.5-7B-Instruct")',
      '    trainer = get_trainer(model, tokenizer, None, train_config, lora_config)',
      '    trainer.train()',
      '',
    ].join('\n'),
    '/p/model/model_loader.py': [
      'from transformers import AutoModelForCausalLM',
      'def load_model_and_tokenizer(model_name):',
      '    return AutoModelForCausalLM.from_pretrained(model_name), None',
      '',
    ].join('\n'),
    '/p/configs/lora_config.py':
      'from peft import LoraConfig\nlora_config = LoraConfig(r=8, lora_alpha=8, target_modules="all-linear", task_type="CAUSAL_LM")\n',
    '/p/configs/train_config.py':
      'from trl import SFTConfig\ntrain_config = SFTConfig(output_dir="o", per_device_train_batch_size=2, gradient_accumulation_steps=2)\n',
    '/p/trainer/trainer.py': [
      'from trl import SFTTrainer',
      'def get_trainer(model, tokenizer, dataset, train_config, lora_config):',
      '    return SFTTrainer(model=model, args=train_config, peft_config=lora_config)',
      '',
    ].join('\n'),
  };

  it('a script that calls a project function building its trainer is detected, and the imported configs are read', () => {
    assert.equal(detectFormat('/p/main.py', files['/p/main.py']), 'hf-python');
    const r = runPipeline([{ file: '/p/main.py', text: files['/p/main.py'] }], inMemory(files), {});
    const s = r.setup;
    assert.deepEqual(
      [s?.model, s?.method, s?.lora?.r, s?.lora?.target_modules, s?.micro_batch_size, s?.gradient_accumulation_steps],
      ['Qwen/Qwen2.5-7B-Instruct', 'lora', 8, 'all-linear', 2, 2],
    );
    // The module that builds the LoraConfig is a file of the run: its values are located there.
    assert.ok(r.files.some((f) => f.file === '/p/configs/lora_config.py'));
  });

  it('a model a project module loads at its top level, which the script imports, is the run model', () => {
    // yohai7700/llm-identifiability-explainability training/trainer.py: `from models.classification_model import
    // model, tokenizer`, the module's `model = AutoModelForSequenceClassification.from_pretrained(model_name, ...)`.
    const project: Record<string, string> = {
      '/p/trainer.py': [
        'from transformers import TrainingArguments, Trainer',
        'from models.classification_model import model, tokenizer',
        'args = TrainingArguments(output_dir="o", per_device_train_batch_size=16)',
        'trainer = Trainer(model=model, args=args, tokenizer=tokenizer)',
        'trainer.train()',
        '',
      ].join('\n'),
      '/p/models/classification_model.py': [
        'from transformers import AutoTokenizer, AutoModelForSequenceClassification',
        'model_name = "distilbert-base-uncased"',
        'model = AutoModelForSequenceClassification.from_pretrained(model_name, num_labels=2)',
        'tokenizer = AutoTokenizer.from_pretrained(model_name)',
        '',
      ].join('\n'),
    };
    const r = runPipeline([{ file: '/p/trainer.py', text: project['/p/trainer.py'] }], inMemory(project), {});
    assert.deepEqual(
      [r.setup?.model, r.setup?.head, r.setup?.micro_batch_size],
      ['distilbert-base-uncased', 'seq_cls', 16],
    );
    assert.ok(r.files.some((f) => f.file === '/p/models/classification_model.py'));
  });

  it('a trainer built by a set_ / prepare_ / load_ function of the project makes the script an entry point', () => {
    // SabaPivot/kmmlu_summary train/main.py: `from train import set_trainer`, then in main()
    // `trainer = set_trainer(model, tokenizer, train_data)` and `trainer.train()`; no ML import of its own.
    for (const verb of ['set', 'prepare', 'load', 'configure']) {
      const main = [
        'import yaml',
        `from train import ${verb}_trainer`,
        'def main():',
        `    trainer = ${verb}_trainer(None, None, None)`,
        '    trainer.train()',
        '',
      ].join('\n');
      assert.equal(detectFormat('/p/main.py', main), 'hf-python', verb);
    }
    // Without the .train() call the function's name alone says nothing.
    assert.equal(detectFormat('/p/main.py', 'from train import set_trainer\nt = set_trainer()\n'), undefined);
  });

  it("a trainer class of the project's own, made and trained by the script, makes it an entry point", () => {
    // daniilgorenkov/LLM-with-RAG train/train.py: `from lora_trainer import LoraQATrainer`, then
    // `trainer = LoraQATrainer(model_name=config.LLMConfig.BASE_MODEL, ...)` and `trainer.train()`; the class's
    // methods load the model from `self.model_name` and run SFTTrainer.
    const main = [
      'from lora_trainer import LoraQATrainer',
      'if __name__ == "__main__":',
      '    trainer = LoraQATrainer(model_name="Qwen/Qwen2.5-7B-Instruct", batch_size=2)',
      '    trainer.train()',
      '',
    ].join('\n');
    assert.equal(detectFormat('/p/train/train.py', main), 'hf-python');
    const module = [
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'from trl import SFTTrainer',
      'class LoraQATrainer:',
      '    def __init__(self, model_name: str, batch_size: int = 1):',
      '        self.model_name = model_name',
      '        self.batch_size = batch_size',
      '    def train(self):',
      '        model = AutoModelForCausalLM.from_pretrained(self.model_name)',
      '        args = TrainingArguments(output_dir="o", per_device_train_batch_size=self.batch_size, bf16=True)',
      '        SFTTrainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const files = { '/p/train/train.py': main, '/p/train/lora_trainer.py': module };
    const r = runPipeline([{ file: '/p/train/train.py', text: main }], inMemory(files), {});
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['Qwen/Qwen2.5-7B-Instruct', 2]);
    // The class's name alone, without the .train() call, says nothing.
    assert.equal(
      detectFormat('/p/main.py', 'from lora_trainer import LoraQATrainer\nt = LoraQATrainer()\n'),
      undefined,
    );
  });

  it("transformers' Trainer built from the project's functions makes the script an entry point (its arguments too)", () => {
    // Engmhabib/Qwen3-Local-FineTune src/train.py: the model from src/load_model.py, the TrainingArguments from
    // src/config.py's get_training_args(), then `Trainer(model=model, args=args, ...)` and `trainer.train()`.
    const main = [
      'from transformers import Trainer',
      'from src.load_model import load_qwen',
      'from src.config import get_training_args',
      'model = load_qwen()',
      'trainer = Trainer(model=model, args=get_training_args())',
      'trainer.train()',
      '',
    ].join('\n');
    assert.equal(detectFormat('/p/train.py', main), 'hf-python');
    const files = {
      '/p/train.py': main,
      '/p/src/load_model.py':
        'from transformers import AutoModelForCausalLM\n' +
        'def load_qwen(model_id="Qwen/Qwen1.5-14B"):\n    return AutoModelForCausalLM.from_pretrained(model_id)\n',
      '/p/src/config.py':
        'from transformers import TrainingArguments\n' +
        'def get_training_args():\n    return TrainingArguments(output_dir="o", per_device_train_batch_size=1, fp16=True)\n',
    };
    const r = runPipeline([{ file: '/p/train.py', text: main }], inMemory(files), {});
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['Qwen/Qwen1.5-14B', 1]);
    // Lightning's Trainer, or a transformers import without a Trainer built, is not one.
    assert.equal(
      detectFormat('/p/fit.py', 'import lightning as L\ntrainer = L.Trainer(devices=1)\ntrainer.fit(m)\n'),
      undefined,
    );
    assert.equal(detectFormat('/p/tok.py', 'from transformers import Trainer\nprint(Trainer)\n'), undefined);
  });
  it("a package's __init__.py the script imports from, and its LoraConfig on a branch the script's defaults switch off", () => {
    // FreedomIntelligence/LLMZoo train.py: `from llmzoo.models import build_model` (llmzoo/models/__init__.py), whose
    // `if model_args.lora:` builds the LoraConfig; ModelArguments has `lora: bool = False` beside `lora_r = 16`.
    const train = [
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      'import transformers',
      'from llmzoo.models import build_model',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: Optional[str] = field(default="meta-llama/Llama-2-7b-hf")',
      '    lora: Optional[bool] = field(default=False)',
      '    lora_r: Optional[int] = field(default=16)',
      'def train():',
      '    parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))',
      '    model_args, training_args = parser.parse_args_into_dataclasses()',
      '    model = build_model(model_args, training_args)',
      '    transformers.Trainer(model=model, args=training_args).train()',
      'train()',
      '',
    ].join('\n');
    const init = [
      'import transformers',
      'from peft import LoraConfig, get_peft_model',
      'def build_model(model_args, training_args):',
      '    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)',
      '    if model_args.lora:',
      '        model = get_peft_model(model, LoraConfig(r=model_args.lora_r, target_modules=["q_proj", "v_proj"]))',
      '    return model',
      '',
    ].join('\n');
    const files = { '/p/train.py': train, '/p/llmzoo/models/__init__.py': init };
    const r = runPipeline([{ file: '/p/train.py', text: train }], inMemory(files), {});
    assert.ok(r.files.some((f) => f.file === '/p/llmzoo/models/__init__.py'));
    // The lora_r default alone read as LoRA before the module's test was read.
    assert.equal(r.setup?.method, 'full');
    assert.equal(r.decided.method?.file, '/p/llmzoo/models/__init__.py');
    // With the switch on by default, it is LoRA with the dataclass's rank.
    const on = train.replace('default=False)', 'default=True)');
    const lora = runPipeline([{ file: '/p/train.py', text: on }], inMemory({ ...files, '/p/train.py': on }), {});
    assert.deepEqual([lora.setup?.method, lora.setup?.lora?.r], ['lora', 16]);
  });
});

describe("a package's __init__.py that takes the script's functions from its own modules", () => {
  it('follows each name the script calls into the module the package imports it from, with the arguments given', () => {
    // cudnah124/ChartQA sft/train.py: `from sft import (get_config, load_model_and_processor, create_trainer)`, where
    // sft/__init__.py only re-exports (`from .model import load_model_and_processor`) and sft/model.py loads
    // Qwen3-VL-2B-Thinking in fp16 with LoRA on q/k/v/o, its rank read from the config object. Shapes and values as
    // the repository writes them.
    const train = [
      'from sft import (',
      '    get_config,',
      '    load_model_and_processor,',
      '    create_trainer,',
      ')',
      'def main():',
      '    config = get_config()',
      '    model, processor = load_model_and_processor(config)',
      '    trainer = create_trainer(model, config)',
      '    trainer.train()',
      'if __name__ == "__main__":',
      '    main()',
      '',
    ].join('\n');
    const init = [
      '"""SFT module."""',
      '__version__ = "1.0.0"',
      'from .config import (',
      '    Config,',
      '    get_config,',
      ')',
      'from .model import (',
      '    load_model_and_processor,',
      '    print_trainable_parameters,',
      ')',
      'from .trainer import create_trainer',
      '',
    ].join('\n');
    const model = [
      'import torch',
      'from transformers import Qwen3VLForConditionalGeneration, AutoProcessor',
      'from peft import LoraConfig, get_peft_model',
      'def load_model_and_processor(config):',
      '    model = Qwen3VLForConditionalGeneration.from_pretrained(',
      '        "Qwen/Qwen3-VL-2B-Thinking",',
      '        torch_dtype=torch.float16,',
      '        device_map="auto",',
      '    )',
      '    processor = AutoProcessor.from_pretrained("Qwen/Qwen3-VL-2B-Thinking")',
      '    peft_config = LoraConfig(',
      '        r=config.lora.r,',
      '        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],',
      '    )',
      '    model = get_peft_model(model, peft_config)',
      '    return model, processor',
      'def print_trainable_parameters(model):',
      '    print(model)',
      '',
    ].join('\n');
    const trainer = [
      'from transformers import Trainer, TrainingArguments',
      'def create_trainer(model, config):',
      '    args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, gradient_accumulation_steps=8, fp16=True)',
      '    return Trainer(model=model, args=args)',
      '',
    ].join('\n');
    const files = {
      '/p/sft/train.py': train,
      '/p/sft/__init__.py': init,
      '/p/sft/model.py': model,
      '/p/sft/trainer.py': trainer,
      // The project's own ModelConfig, built by name: not TRL's, whose defaults (gradient checkpointing on) would apply.
      '/p/sft/config.py': [
        'from dataclasses import dataclass, field',
        '@dataclass',
        'class ModelConfig:',
        '    model_name: str = "Qwen/Qwen3-VL-2B-Thinking"',
        '@dataclass',
        'class Config:',
        '    model: ModelConfig = field(default_factory=ModelConfig)',
        '    @classmethod',
        '    def from_dict(cls, d):',
        '        return cls(model=ModelConfig(**d.get("model", {})))',
        'def get_config():',
        '    return Config()',
        '',
      ].join('\n'),
    };
    // Run from the repository's root (python -m sft.train): `sft` is the folder above the script, as the CLI's reader
    // looks a module up from the folders above a file.
    const reader: FileReader = {
      ...inMemory(files),
      lookup: (from, rel) => [path.posix.join(path.posix.dirname(from), rel), path.posix.join('/p', rel)],
    };
    const r = runPipeline([{ file: '/p/sft/train.py', text: train }], reader, {});
    assert.ok(r.files.some((f) => f.file === '/p/sft/model.py'));
    assert.equal(r.decided.model?.file, '/p/sft/model.py');
    assert.deepEqual(
      [r.setup?.method, r.setup?.lora?.r, r.setup?.micro_batch_size, r.setup?.gradient_accumulation_steps],
      ['lora', 8, 1, 8],
    );
    // The rank comes from a config object built at run time: PEFT's default 8 stands in, said at the file's value.
    const open = r.problems.find((p) => p.code === 'not-static' && p.key === 'r');
    assert.equal(open?.file, '/p/sft/model.py');
    assert.equal(open?.line, 12);
    assert.equal(
      open?.message,
      'r is not known statically (config.lora.r is read at run time): the default 8 is assumed',
    );
    assert.equal(r.setup?.gradient_checkpointing, 'none');
    assert.deepEqual(r.provenance.gradient_checkpointing, {
      kind: 'default',
      owner: 'hf-trainer',
      note: 'gradient_checkpointing defaults to False (transformers@00349ae:src/transformers/training_args.py)',
    });
  });
});

describe("a src layout's package, imported by a script of scripts/", () => {
  it('reads src/<package>/<module>.py, the config path it is given, and the module that loads the model', () => {
    // eliashossain001/gpt-oss-20B-finetune: scripts/train.py imports run_training from src/gpt_oss_finetune/train.py
    // (installed with pip -e) and passes it --config's default; run_training loads the YAML and hands its values to
    // load_base_model of .model, which calls FastLanguageModel.from_pretrained. Values as the repository writes them.
    const dir = tempDir('vram-lens-src-layout-');
    const files: Record<string, string> = {
      'scripts/train.py': [
        'import argparse',
        'from gpt_oss_finetune.train import run_training',
        'ap = argparse.ArgumentParser()',
        'ap.add_argument("--config", "-c", default="configs/train.yaml")',
        'args = ap.parse_args()',
        'run_training(args.config)',
        '',
      ].join('\n'),
      'src/gpt_oss_finetune/__init__.py': '',
      'src/gpt_oss_finetune/train.py': [
        'import yaml',
        'from trl import SFTConfig, SFTTrainer',
        'from .model import load_base_model, apply_lora',
        'def run_training(config_path):',
        '    with open(config_path) as f:',
        '        cfg = yaml.safe_load(f)',
        '    model, tokenizer = load_base_model(model_name=cfg["model_name"], max_seq_length=cfg["max_seq_length"],',
        '                                       load_in_4bit=cfg["load_in_4bit"])',
        '    model = apply_lora(model, r=cfg["lora"]["r"])',
        '    args = SFTConfig(**cfg["training"])',
        '    SFTTrainer(model=model, args=args).train()',
        '',
      ].join('\n'),
      'src/gpt_oss_finetune/model.py': [
        'from unsloth import FastLanguageModel',
        'def load_base_model(model_name, max_seq_length=1024, load_in_4bit=True):',
        '    return FastLanguageModel.from_pretrained(model_name=model_name, max_seq_length=max_seq_length,',
        '                                             load_in_4bit=load_in_4bit)',
        'def apply_lora(model, r):',
        '    return FastLanguageModel.get_peft_model(model, r=r, target_modules=["q_proj", "v_proj"])',
        '',
      ].join('\n'),
      'configs/train.yaml': [
        'model_name: "Qwen/Qwen2.5-7B-Instruct"',
        'max_seq_length: 2048',
        'load_in_4bit: true',
        'lora:',
        '  r: 8',
        'training:',
        '  per_device_train_batch_size: 2',
        '  gradient_accumulation_steps: 4',
        '',
      ].join('\n'),
    };
    for (const [p, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      fs.writeFileSync(path.join(dir, p), text);
    }
    const entry = path.join(dir, 'scripts/train.py');
    const r = runPipeline([{ file: entry, text: files['scripts/train.py'] }], nodeFileReader(dir), {});
    assert.ok(r.files.some((f) => f.file === path.join(dir, 'src/gpt_oss_finetune/train.py')));
    const s = r.setup;
    assert.deepEqual(
      [s?.model, s?.method, s?.lora?.r, s?.seq_len, s?.micro_batch_size, s?.gradient_accumulation_steps],
      ['Qwen/Qwen2.5-7B-Instruct', 'qlora', 8, 2048, 2, 4],
    );
  });
});

describe("a class's attributes set in __init__, read in its methods", () => {
  it("a helper module's class given the loaded YAML: self.<part>.get(...) and self.<part>[...] are the file's items", () => {
    // The pattern of project loaders (a ModelLoader(config) whose __init__ keeps parts of the config and whose load()
    // calls FastLanguageModel.from_pretrained with them), as 2Phuong5Nam4/ChatBotSynthetic's training/sft writes it.
    const files: Record<string, string> = {
      '/p/train.py': [
        'import yaml',
        'from model_loader import ModelLoader',
        'from trl import SFTTrainer, SFTConfig',
        'with open("configs/sft.yaml") as f:',
        '    config = yaml.safe_load(f)',
        'loader = ModelLoader(config)',
        'model, tokenizer = loader.load()',
        'SFTTrainer(model=model, args=SFTConfig(per_device_train_batch_size=config["training"]["batch_size"])).train()',
        '',
      ].join('\n'),
      '/p/model_loader.py': [
        'from unsloth import FastLanguageModel',
        'class ModelLoader:',
        '    def __init__(self, config):',
        '        self.model_config = config.get("model", {})',
        '        self.lora = config["lora"]',
        '    def load(self):',
        '        model, tok = FastLanguageModel.from_pretrained(',
        '            model_name=self.model_config.get("name", "unsloth/Llama-3.2-3B-Instruct"),',
        '            max_seq_length=self.model_config.get("max_seq_length", 2048))',
        '        model = FastLanguageModel.get_peft_model(model, r=self.lora["r"])',
        '        return model, tok',
        '',
      ].join('\n'),
      '/p/configs/sft.yaml':
        'model:\n  name: Qwen/Qwen3-8B\n  max_seq_length: 4096\nlora:\n  r: 32\ntraining:\n  batch_size: 2\n',
    };
    const r = runPipeline([{ file: '/p/train.py', text: files['/p/train.py'] }], inMemory(files), {});
    const s = r.setup;
    assert.deepEqual([s?.model, s?.seq_len, s?.lora?.r, s?.micro_batch_size], ['Qwen/Qwen3-8B', 4096, 32, 2]);
    // Read where the module passes it, said to be the YAML's item.
    assert.deepEqual(r.decided.model?.fact.fromData, { path: 'configs/sft.yaml', keys: ['model', 'name'] });
  });

  it("an instance of the file's config dataclass passed to a class: self.config.<field> is the field's default", () => {
    // strykesg/ea finetuner/src/finetune.py: `config = FinetuneConfig()`, `DeepSeekFinetuner(config)`, whose
    // `__init__` keeps `self.config = config` and whose methods load `self.config.model_name`.
    const text = [
      'from dataclasses import dataclass',
      'from unsloth import FastLanguageModel',
      'from trl import SFTTrainer, SFTConfig',
      '@dataclass',
      'class FinetuneConfig:',
      '    model_name: str = "deepseek-ai/DeepSeek-V2-Lite"',
      '    max_seq_length: int = 16384',
      '    per_device_train_batch_size: int = 24',
      'class DeepSeekFinetuner:',
      '    def __init__(self, config: FinetuneConfig):',
      '        self.config = config',
      '        self.model = None',
      '    def load_model_and_tokenizer(self):',
      '        self.model, self.tokenizer = FastLanguageModel.from_pretrained(',
      '            model_name=self.config.model_name, max_seq_length=self.config.max_seq_length)',
      '    def train(self):',
      '        args = SFTConfig(per_device_train_batch_size=self.config.per_device_train_batch_size)',
      '        SFTTrainer(model=self.model, args=args).train()',
      'def main():',
      '    config = FinetuneConfig()',
      '    finetuner = DeepSeekFinetuner(config)',
      '    finetuner.load_model_and_tokenizer()',
      '    finetuner.train()',
      'main()',
      '',
    ].join('\n');
    const r = runPipeline([{ file: '/p/finetune.py', text }], inMemory({ '/p/finetune.py': text }), {});
    const s = r.setup;
    assert.deepEqual([s?.model, s?.seq_len, s?.micro_batch_size], ['deepseek-ai/DeepSeek-V2-Lite', 16384, 24]);
  });

  it("a class's __init__ that keeps an option as its own attribute (self.model_name = model_name) leaves the option as it is", () => {
    // kylebrussell/cap-rlvr scripts/train_sft_lora.py: main() parses --model_name (default Qwen/Qwen3-14B) and makes
    // LegalReasoningLoRATrainer(args.model_name, args.output_dir), whose __init__ keeps self.model_name = model_name and
    // whose method loads self.model_name (abridged). An assignment to self's attribute is no change of the option.
    const text = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'class LoRATrainer:',
      '    def __init__(self, model_name: str, output_dir: str):',
      '        self.model_name = model_name',
      '        self.output_dir = output_dir',
      '    def train(self):',
      '        model = AutoModelForCausalLM.from_pretrained(self.model_name)',
      '        Trainer(model=model, args=TrainingArguments(output_dir=self.output_dir)).train()',
      'def main():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--model_name", default="Qwen/Qwen3-14B")',
      '    parser.add_argument("--output_dir", default="out")',
      '    args = parser.parse_args()',
      '    LoRATrainer(args.model_name, args.output_dir).train()',
      'main()',
      '',
    ].join('\n');
    const r = runPipeline([{ file: '/p/train.py', text }], inMemory({ '/p/train.py': text }), {});
    assert.equal(r.setup?.model, 'Qwen/Qwen3-14B');
    // `args.model_name = ...` does change it: the default is no longer what runs.
    const changed = text.replace(
      '    args = parser.parse_args()\n',
      '    args = parser.parse_args()\n    args.model_name = args.model_name.strip()\n',
    );
    const r2 = runPipeline([{ file: '/p/train.py', text: changed }], inMemory({ '/p/train.py': changed }), {});
    assert.equal(r2.setup, undefined);
  });

  it("a dict the class's one call passes: self.config['model_name'], also through `config or self.get_default_config()`", () => {
    // Yosef-Ali/amharic-llm-finetuning advanced_lora_trainer.py: main() builds `config = {...}` and makes
    // AdvancedLoRATrainer(config), whose __init__ keeps `self.config = config or self.get_default_config()`; the values
    // that run are main()'s, not the default method's (abridged).
    const text = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'class LoRATrainer:',
      '    def __init__(self, config=None):',
      '        self.config = config or self.get_default_config()',
      '    def get_default_config(self):',
      "        return {'model_name': 'gpt2', 'batch_size': 2}",
      '    def train(self):',
      "        model = AutoModelForCausalLM.from_pretrained(self.config['model_name'])",
      "        args = TrainingArguments(output_dir='o', per_device_train_batch_size=self.config['batch_size'])",
      '        Trainer(model=model, args=args).train()',
      'def main():',
      "    config = {'model_name': 'gpt2-medium', 'batch_size': 1}",
      '    LoRATrainer(config).train()',
      'main()',
      '',
    ].join('\n');
    const r = runPipeline([{ file: '/p/train.py', text }], inMemory({ '/p/train.py': text }), {});
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['gpt2-medium', 1]);
  });

  it('a helper class whose __init__ keeps what its own loader method returns: self.config = self._load_config()', () => {
    // Showmick119/Fine-Tuning-Open-Source-LLM: run_lora_finetune.py (under train/ there) passes --lora_config's default to
    // model/load_base_model.py's ModelLoader, whose _load_config() returns json.load of open(self.config_path) and whose
    // load_base_model() loads self.config['base_model_name'] in 4 bits and prepares it with use_gradient_checkpointing=True,
    // while the training arguments' JSON says gradient_checkpointing false (abridged).
    const script = [
      'import argparse, json',
      'from transformers import Trainer, TrainingArguments',
      'from model.load_base_model import ModelLoader',
      'def run_training(training_config_path, lora_config_path):',
      '    with open(training_config_path) as f:',
      '        training_config = json.load(f)',
      '    model_loader = ModelLoader(lora_config_path)',
      '    model = model_loader.load_base_model()',
      '    Trainer(model=model, args=TrainingArguments(**training_config)).train()',
      'if __name__ == "__main__":',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--training_config", default="configs/training_args.json")',
      '    parser.add_argument("--lora_config", default="configs/lora_config.json")',
      '    args = parser.parse_args()',
      '    run_training(training_config_path=args.training_config, lora_config_path=args.lora_config)',
      '',
    ].join('\n');
    const loader = [
      'import json',
      'from pathlib import Path',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig',
      'from peft import prepare_model_for_kbit_training',
      'class ModelLoader:',
      '    def __init__(self, config_path):',
      '        self.config_path = Path(config_path)',
      '        self.config = self._load_config()',
      '    def _load_config(self):',
      '        with open(self.config_path, "r") as f:',
      '            return json.load(f)',
      '    def load_base_model(self):',
      '        model = AutoModelForCausalLM.from_pretrained(',
      '            self.config["base_model_name"], quantization_config=BitsAndBytesConfig(load_in_4bit=True))',
      '        return prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)',
      '',
    ].join('\n');
    const files = {
      '/p/run_lora_finetune.py': script,
      '/p/model/load_base_model.py': loader,
      '/p/configs/lora_config.json': '{"base_model_name": "codellama/CodeLlama-7b-Instruct-hf"}\n',
      '/p/configs/training_args.json': '{"per_device_train_batch_size": 4, "gradient_checkpointing": false}\n',
    };
    // A relative path the module opens is looked for from the folders above it, the root the script runs from.
    const reader: FileReader = {
      ...inMemory(files),
      lookup: (from, rel) => [path.posix.join(path.posix.dirname(from), rel), path.posix.join('/p', rel)],
    };
    const r = runPipeline([{ file: '/p/run_lora_finetune.py', text: script }], reader, {});
    assert.equal(r.setup?.model, 'codellama/CodeLlama-7b-Instruct-hf');
    assert.equal(r.setup?.micro_batch_size, 4);
    // prepare_model_for_kbit_training turns checkpointing on, which the Trainer's false does not turn off.
    assert.equal(r.setup?.gradient_checkpointing, 'full');
  });

  it("a helper's default turns checkpointing on behind getattr(model, 'supports_gradient_checkpointing', False)", () => {
    // zjunlp/DeepKE example/llm/InstructKGC (LLaMA-Efficient-Tuning's layout): loader.py calls
    // prepare_model_for_training(model=model, finetuning_args=finetuning_args), whose use_gradient_checkpointing
    // defaults to True and whose test reads the model's supports_gradient_checkpointing (True for transformers' models).
    const adapter =
      'def prepare_model_for_training(model, finetuning_args, use_gradient_checkpointing=True):\n' +
      '    if use_gradient_checkpointing and getattr(model, "supports_gradient_checkpointing", False):\n' +
      '        model.gradient_checkpointing_enable()\n' +
      '    return model\n';
    const script =
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'from adapter import prepare_model_for_training\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=2)\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'model = prepare_model_for_training(model=model, finetuning_args=None)\n' +
      'Trainer(model=model, args=args).train()\n';
    const files = { '/w/adapter.py': adapter, '/w/train.py': script };
    const r = runPipeline([{ file: '/w/train.py', text: script }], inMemory(files), {});
    assert.equal(r.setup?.gradient_checkpointing, 'full');
  });

  it("a find_all_linear_names the script imports from its project's module collects every linear layer (all-linear)", () => {
    // DAMO-NLP-SG/VideoLLaMA2 videollama2/train.py: `from videollama2.videollama2_trainer import (..., find_all_linear_names,
    // ...)`, then LoraConfig(target_modules=find_all_linear_names(model)); read as q_proj / v_proj it had 40.4M trainable
    // of the 323.0M its r=128 LoRA over every linear layer trains.
    const utils = [
      'import torch',
      'def find_all_linear_names(model):',
      '    names = set()',
      '    for name, module in model.named_modules():',
      '        if isinstance(module, torch.nn.Linear):',
      "            names.add(name.split('.')[-1])",
      "    names.discard('lm_head')",
      '    return list(names)',
      'def other():',
      '    return 1',
      '',
    ].join('\n');
    const script = (imports: string) =>
      [
        'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
        'from peft import LoraConfig, get_peft_model',
        imports,
        'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
        'model = get_peft_model(model, LoraConfig(r=8, target_modules=find_all_linear_names(model)))',
        'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
        '',
      ].join('\n');
    for (const imports of ['from pkg.utils import (other,\n    find_all_linear_names)', 'from pkg.utils import *']) {
      const files = { '/w/pkg/utils.py': utils, '/w/train.py': script(imports) };
      const r = runPipeline([{ file: '/w/train.py', text: files['/w/train.py'] }], inMemory(files), {});
      assert.equal(r.setup?.lora?.target_modules, 'all-linear', imports);
    }
    // A function of that name that collects nothing of the kind is not read so.
    const plain = utils.replace('isinstance(module, torch.nn.Linear)', 'name.endswith("proj")');
    const files = { '/w/pkg/utils.py': plain, '/w/train.py': script('from pkg.utils import find_all_linear_names') };
    const r = runPipeline([{ file: '/w/train.py', text: files['/w/train.py'] }], inMemory(files), {});
    assert.notEqual(r.setup?.lora?.target_modules, 'all-linear');
  });
});
