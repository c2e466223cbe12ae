// Constants a training script imports from a module of its project (src/analyzers/hf-python/imported-constants.ts):
// `from config import MODEL_NAME`, `import config` with `config.BATCH_SIZE`, `from .consts import *`, read through
// the pipeline's reader, each fact located where the script reads the name and saying where its value is written.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { projectImports } from '../../../src/analyzers/hf-python/imported-constants';
import { runFact } from '../helpers';
import { isUnknown } from '../../../src/analyzers/facts';

const CONFIG = `MODEL_NAME = "meta-llama/Llama-3.2-1B"
BATCH_SIZE = 4
MAX_LEN = 1024
_PRIVATE = "Qwen/Qwen2.5-7B"
`;
const TRAINER = (imports: string, model: string, batch: string): string => `${imports}
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer

model = AutoModelForCausalLM.from_pretrained(${model})
args = TrainingArguments(output_dir="out", per_device_train_batch_size=${batch}, bf16=True)
Trainer(model=model, args=args).train()
`;

function runOf(files: Record<string, string>, entry: string): PipelineResult {
  const reader: FileReader = {
    read: (p) => files[p],
    join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
  };
  return runPipeline([{ file: entry, text: files[entry] }], reader, {});
}

describe('hf-python: constants imported from the project', () => {
  it('`from config import NAME`: the value where the script reads it, and the module line that writes it', () => {
    const text = TRAINER('from config import MODEL_NAME, BATCH_SIZE as BS', 'MODEL_NAME', 'BS');
    const r = runOf({ '/p/train.py': text, '/p/config.py': CONFIG }, '/p/train.py');
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-1B');
    assert.equal(r.setup?.micro_batch_size, 4);
    const model = runFact(r, 'model')!;
    assert.deepEqual([model.file, model.at], ['/p/train.py', 'MODEL_NAME']);
    assert.match(model.fact.rawValue, /MODEL_NAME in config\.py, line 1/);
    assert.equal(runFact(r, 'microBatchSize')?.at, 'BS');
  });

  it('a module read again is read as it is now: its edited constant, not the last reading (the modules read are kept by their text)', () => {
    const text = TRAINER('from config import MODEL_NAME, BATCH_SIZE as BS', 'MODEL_NAME', 'BS');
    const files = { '/p/train.py': text, '/p/config.py': CONFIG };
    assert.equal(runOf(files, '/p/train.py').setup?.micro_batch_size, 4);
    const edited = { ...files, '/p/config.py': CONFIG.replace('BATCH_SIZE = 4', 'BATCH_SIZE = 16') };
    assert.equal(runOf(edited, '/p/train.py').setup?.micro_batch_size, 16);
    assert.equal(runOf(files, '/p/train.py').setup?.micro_batch_size, 4);
    // The same text under another name is said where it is: its facts' sources name the file they come from.
    const renamed = { '/p/train.py': text.replace('from config', 'from settings'), '/p/settings.py': CONFIG };
    assert.match(runFact(runOf(renamed, '/p/train.py'), 'model')!.fact.rawValue, /MODEL_NAME in settings\.py, line 1/);
  });

  it('an imported constant as the default of an option parsed in set_args() (liucongg/ChatGLM-Finetuning and copies)', () => {
    // xuanhua/chatglm2-finetuning train/finetuning_lora_with_pipeline.py, cut: `set_args()` returns the parsed command
    // line, its --model_name_or_path defaulting to a constant of config.py.
    const text = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
      'from config import MODEL_NAME',
      'def set_args():',
      '    parser = argparse.ArgumentParser(description="")',
      '    parser.add_argument("--model_name_or_path", default=MODEL_NAME, type=str, help="")',
      '    return parser.parse_args()',
      'def main():',
      '    args = set_args()',
      '    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)',
      '    Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      'main()',
      '',
    ].join('\n');
    const r = runOf({ '/p/train.py': text, '/p/config.py': CONFIG }, '/p/train.py');
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-1B');
  });

  it('an item of a dict constant the script imports: `TRAINING_CONFIG["per_device_train_batch_size"]`', () => {
    // Olmioris/LLM-instruction-tuning-qwen2-qlora src/training/config.py (abridged): TRAINING_CONFIG = {...}, read
    // by the trainer module as TRAINING_CONFIG["per_device_train_batch_size"]; an item the dict lacks stays unknown.
    const config = 'TRAINING_CONFIG = {\n    "per_device_train_batch_size": 1,\n    "max_length": 1024,\n}\n';
    const read = (key: string) =>
      runOf(
        {
          '/p/train.py': TRAINER('from config import TRAINING_CONFIG as TC', '"gpt2"', `TC["${key}"]`),
          '/p/config.py': config,
        },
        '/p/train.py',
      );
    const r = read('per_device_train_batch_size');
    assert.equal(r.setup?.micro_batch_size, 1);
    assert.match(
      runFact(r, 'microBatchSize')!.fact.rawValue,
      /TRAINING_CONFIG\["per_device_train_batch_size"\] in config\.py, line 2/,
    );
    assert.equal(read('batch').setup?.micro_batch_size, 8);
  });

  it('`**NAME` of an imported dict constant passes its items (umbertogriffo/llm-finetuning-playground)', () => {
    // src/finetune.py (abridged): `from config import PEFT_CONFIG, TRAINING_ARGS`, then
    // `get_peft_model(model, **PEFT_CONFIG)` and `TrainingArguments(**TRAINING_ARGS)`, the dicts in src/config.py. The
    // spreads were left out with no word, so the LoRA was PEFT's default r 8 on q/v and the batch the Trainer's 8.
    const config =
      'LORA_RANK = 64\nPEFT_CONFIG = {"r": LORA_RANK, "lora_alpha": LORA_RANK, "target_modules": ["q_proj", "v_proj"]}\n' +
      'TRAINING_ARGS = {"per_device_train_batch_size": 1, "gradient_accumulation_steps": 4, "output_dir": "o"}\n';
    const script =
      'from config import PEFT_CONFIG, TRAINING_ARGS\n' +
      'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
      'from peft import LoraConfig, get_peft_model\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B")\n' +
      'model = get_peft_model(model, LoraConfig(**PEFT_CONFIG))\n' +
      'Trainer(model=model, args=TrainingArguments(**TRAINING_ARGS)).train()\n';
    const r = runOf({ '/p/train.py': script, '/p/config.py': config }, '/p/train.py');
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.gradient_accumulation_steps, r.setup?.lora?.r], [1, 4, 64]);
    assert.match(
      runFact(r, 'microBatchSize')!.fact.rawValue,
      /TRAINING_ARGS\["per_device_train_batch_size"\] in config\.py, line 3/,
    );
  });

  it("an item of an imported dict constant keyed by an option: its default, or the launch line's value", () => {
    // Infernaught/HPML_Final_Project training/grpo_training.py (abridged): `--model` defaults to "phi", and
    // `BASE_MODEL = AVAILABLE_MODELS[args.model]` with the dict in training/constants.py.
    const constants =
      'AVAILABLE_MODELS = {\n    "phi": "microsoft/Phi-3.5-mini-instruct",\n    "llama": "meta-llama/Llama-3.2-1B",\n}\n';
    const script = TRAINER(
      'import argparse\nfrom training.constants import AVAILABLE_MODELS\nparser = argparse.ArgumentParser()\n' +
        'parser.add_argument("--model", default="phi", choices=AVAILABLE_MODELS.keys())\nargs = parser.parse_args()',
      'AVAILABLE_MODELS[args.model]',
      '4',
    );
    const files = { '/p/grpo_training.py': script, '/p/training/constants.py': constants };
    const alone = runOf(files, '/p/grpo_training.py');
    assert.equal(alone.setup?.model, 'microsoft/Phi-3.5-mini-instruct');
    assert.match(runFact(alone, 'model')!.fact.rawValue, /AVAILABLE_MODELS\["phi"\] in .*constants\.py, line 2/);
    // A launch line that names another key: the script is read again with it.
    const launched = runOf({ ...files, '/p/run.sh': 'python grpo_training.py --model llama\n' }, '/p/run.sh');
    assert.equal(launched.setup?.model, 'meta-llama/Llama-3.2-1B');
  });

  it("an arguments dataclass imported from the project: its fields' defaults are the script's options", () => {
    // The split many research scripts use: `from arguments import ModelArguments`, then HfArgumentParser over it and
    // TrainingArguments; the model and LoRA rank are the module's defaults unless the launch line gives them.
    const module =
      'from dataclasses import dataclass, field\nfrom typing import Optional\n\n@dataclass\nclass ModelArguments:\n' +
      '    model_name_or_path: Optional[str] = field(default="meta-llama/Llama-3.2-1B")\n' +
      '    lora_r: int = 32\n    lora_alpha: int = field(default=64)\n';
    const script =
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      'from peft import LoraConfig, get_peft_model\nfrom arguments import ModelArguments\n\n' +
      'parser = HfArgumentParser((ModelArguments, TrainingArguments))\n' +
      'model_args, training_args = parser.parse_args_into_dataclasses()\n' +
      'model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n' +
      'model = get_peft_model(model, LoraConfig(r=model_args.lora_r, lora_alpha=model_args.lora_alpha))\n' +
      'Trainer(model=model, args=training_args).train()\n';
    const files = { '/p/train.py': script, '/p/arguments.py': module };
    const alone = runOf(files, '/p/train.py');
    assert.equal(alone.setup?.model, 'meta-llama/Llama-3.2-1B');
    assert.deepEqual([alone.setup?.lora?.r, alone.setup?.lora?.alpha], [32, 64]);
    const model = runFact(alone, 'model')!;
    assert.equal(model.at, 'model_args.model_name_or_path');
    assert.match(model.fact.rawValue, /ModelArguments\.model_name_or_path default in arguments\.py, line 6/);
    const launched = runOf(
      { ...files, '/p/run.sh': 'python train.py --model_name_or_path Qwen/Qwen2.5-0.5B --lora_r 8 --output_dir o\n' },
      '/p/run.sh',
    );
    assert.deepEqual([launched.setup?.model, launched.setup?.lora?.r], ['Qwen/Qwen2.5-0.5B', 8]);
    // The project's own TrainingArguments (transformers' under that name, a length added): its defaults too.
    const args =
      'from dataclasses import dataclass, field\nimport transformers\n\n@dataclass\n' +
      'class TrainingArguments(transformers.TrainingArguments):\n    model_max_length: int = field(default=1024)\n';
    const trainer =
      'import transformers\nfrom args import TrainingArguments\n\n' +
      'parser = transformers.HfArgumentParser((TrainingArguments,))\n' +
      '(training_args,) = parser.parse_args_into_dataclasses()\n' +
      'model = transformers.AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n' +
      'tokenizer = transformers.AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")\n' +
      'def tokenize(x):\n' +
      '    return tokenizer(x["text"], truncation=True, max_length=training_args.model_max_length, padding="max_length")\n' +
      'transformers.Trainer(model=model, args=training_args).train()\n';
    const own = runOf({ '/p/train.py': trainer, '/p/args.py': args }, '/p/train.py');
    assert.equal(own.setup?.seq_len, 1024);
    // Its defaults of the Trainer's own fields are the run's settings where the parsed object goes to the Trainer
    // (siminzheng/train_llama's configs/training_args.py: CustomArguments(transformers.TrainingArguments) with
    // per_device_train_batch_size 1 and bf16 True; transformers' defaults are 8 and False), located at the class in
    // the parser call.
    const custom =
      'from dataclasses import dataclass, field\nimport transformers\n\n@dataclass\n' +
      'class CustomArguments(transformers.TrainingArguments):\n' +
      '    per_device_train_batch_size: int = field(default=1)\n    bf16: bool = field(default=True)\n';
    const script2 = trainer
      .replace('from args import TrainingArguments', 'from args import CustomArguments')
      .replace('HfArgumentParser((TrainingArguments,))', 'HfArgumentParser(CustomArguments)');
    const sub = runOf({ '/p/train.py': script2, '/p/args.py': custom }, '/p/train.py');
    assert.deepEqual([sub.setup?.micro_batch_size, sub.setup?.mixed_precision], [1, 'bf16']);
    const batch = runFact(sub, 'microBatchSize')!;
    assert.deepEqual([batch.file, batch.at], ['/p/train.py', 'CustomArguments']);
  });

  it("an argparse parser a project module builds in `get_args()`: its options are the script's, `get_args().x` too", () => {
    // yohai7700/llm-identifiability-explainability (abridged): args.py's get_args() parses the command line;
    // models/classification_model.py loads `get_args().classification_model_name` at its top level, and the trainer
    // imports that model.
    const argsModule =
      'import argparse\n\ndef get_args():\n    parser = argparse.ArgumentParser()\n' +
      '    parser.add_argument("--classification_model_name", type=str, default="distilbert-base-uncased")\n' +
      '    parser.add_argument("--batch_size", type=int, default="16")\n' +
      '    return parser.parse_args()\n';
    const modelModule =
      'from transformers import AutoModelForSequenceClassification\nfrom args import get_args\n\n' +
      'model_name = get_args().classification_model_name\n' +
      'model = AutoModelForSequenceClassification.from_pretrained(model_name, num_labels=2)\n';
    const trainer =
      'from transformers import TrainingArguments, Trainer\nfrom args import get_args\n' +
      'from models.classification_model import model\n\n' +
      'args = get_args()\n' +
      'training_args = TrainingArguments(output_dir="o", per_device_train_batch_size=args.batch_size)\n' +
      'Trainer(model=model, args=training_args).train()\n';
    const files = {
      '/p/args.py': argsModule,
      '/p/models/classification_model.py': modelModule,
      '/p/train.py': trainer,
    };
    const alone = runOf(files, '/p/train.py');
    assert.equal(alone.setup?.model, 'distilbert-base-uncased');
    // type=int converts the string default, as argparse does.
    assert.equal(alone.setup?.micro_batch_size, 16);
    const batch = runFact(alone, 'microBatchSize')!;
    assert.match(batch.fact.rawValue, /argparse default of --batch_size in args\.py, line 6/);
    // The launch line's option wins over the module's default.
    const launched = runOf(
      { ...files, '/p/run.sh': 'python train.py --classification_model_name bert-base-uncased --batch_size 4\n' },
      '/p/run.sh',
    );
    assert.deepEqual([launched.setup?.model, launched.setup?.micro_batch_size], ['bert-base-uncased', 4]);
  });

  it('a parser a project module builds and returns, parsed by the script (`parser = get_arg_parser()`)', () => {
    // VarunGumma/LLM-Finetuning (abridged): utils.py's get_arg_parser() returns the parser with --max_seq_length
    // default 4096; dpo.py, importing utils whole or by name, parses it and hands max_length=args.max_seq_length.
    const utils =
      'import argparse\n\ndef get_arg_parser():\n    parser = argparse.ArgumentParser()\n' +
      '    parser.add_argument("--model", type=str, default="Qwen/Qwen2.5-0.5B")\n' +
      '    parser.add_argument("--max_seq_length", type=int, default=4096)\n' +
      '    return parser\n';
    const dpo = (imports: string): string =>
      `from transformers import AutoModelForCausalLM\nfrom trl import DPOConfig, DPOTrainer\n${imports}\n` +
      'def main(args):\n    model = AutoModelForCausalLM.from_pretrained(args.model)\n' +
      '    config = DPOConfig(output_dir="o", max_length=args.max_seq_length)\n' +
      '    DPOTrainer(model=model, args=config).train()\n\n' +
      'if __name__ == "__main__":\n    parser = get_arg_parser()\n    args = parser.parse_args()\n    main(args)\n';
    for (const imports of ['from utils import *', 'from utils import get_arg_parser']) {
      const r = runOf({ '/p/utils.py': utils, '/p/dpo.py': dpo(imports) }, '/p/dpo.py');
      assert.deepEqual([r.setup?.model, r.setup?.seq_len], ['Qwen/Qwen2.5-0.5B', 4096], imports);
    }
  });

  it("a module imported whole that parses the command line at its top level: its `args` is the script's", () => {
    // `from config import *`, config.py building the parser and binding `args = parser.parse_args()` at its top level.
    const config =
      'import argparse\nparser = argparse.ArgumentParser()\n' +
      'parser.add_argument("--model_path", default="meta-llama/Llama-2-7b-hf")\n' +
      'parser.add_argument("--batch_size", type=int, default=4)\n' +
      'args = parser.parse_args()\n';
    const trainer =
      'from config import *\nfrom transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
      'model = AutoModelForCausalLM.from_pretrained(args.model_path)\n' +
      'targs = TrainingArguments(output_dir="o", per_device_train_batch_size=args.batch_size, bf16=True)\n' +
      'Trainer(model=model, args=targs).train()\n';
    const files = { '/p/config.py': config, '/p/train.py': trainer };
    const alone = runOf(files, '/p/train.py');
    assert.deepEqual([alone.setup?.model, alone.setup?.micro_batch_size], ['meta-llama/Llama-2-7b-hf', 4]);
    const batch = runFact(alone, 'microBatchSize')!;
    assert.match(batch.fact.rawValue, /argparse default of --batch_size in config\.py, line 4/);
    const launched = runOf(
      { ...files, '/p/run.sh': 'python train.py --model_path Qwen/Qwen2.5-0.5B --batch_size 2\n' },
      '/p/run.sh',
    );
    assert.deepEqual([launched.setup?.model, launched.setup?.micro_batch_size], ['Qwen/Qwen2.5-0.5B', 2]);
    // A module imported whole that parses nothing at its top level gives the script no `args`.
    const inFunction = config.replace('args = parser.parse_args()', 'def get():\n    return parser.parse_args()');
    const none = runOf({ '/p/config.py': inFunction, '/p/train.py': trainer }, '/p/train.py');
    assert.equal(none.setup?.model, undefined);
  });

  it("an HfArgumentParser a project module builds in `parse_args()`: its dataclasses' fields are options, `args[1].x` too", () => {
    // sophus1004/Portfolio llm_dpo_trainer (abridged): arguments.py's parse_args() returns the dataclasses it parses,
    // train.py takes `model_args = args[1]` and loads with `attn_implementation=model_args.attention_implementation`.
    const argsModule =
      'from dataclasses import dataclass, field\nfrom transformers import HfArgumentParser\n' +
      '@dataclass\nclass ModeArguments:\n    use_qlora: bool = field(default=True)\n' +
      '@dataclass\nclass ModelArguments:\n    model_name_or_path: str = field(default="google/gemma-2-2b-it")\n' +
      '    attention_implementation: str = field(default="sdpa")\n' +
      'def parse_args():\n    parser = HfArgumentParser((ModeArguments, ModelArguments))\n' +
      '    return parser.parse_args_into_dataclasses()\n';
    const trainer =
      'import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'from arguments import parse_args\n' +
      'args = parse_args()\nmode_args = args[0]\nmodel_args = args[1]\n' +
      'model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path,\n' +
      '    attn_implementation=model_args.attention_implementation,\n' +
      '    torch_dtype=torch.float32 if not mode_args.use_qlora == True else "auto")\n' +
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()\n';
    const files = { '/p/arguments.py': argsModule, '/p/train.py': trainer };
    const alone = runOf(files, '/p/train.py');
    assert.deepEqual([alone.setup?.model, alone.setup?.attention], ['google/gemma-2-2b-it', 'sdpa']);
    const launched = runOf(
      { ...files, '/p/run.sh': 'python train.py --use_qlora False --attention_implementation eager\n' },
      '/p/run.sh',
    );
    assert.deepEqual([launched.setup?.attention, launched.setup?.weights_dtype], ['eager', 'fp32']);
  });

  it("an arguments dataclass a src layout's package re-exports; a module called only on a branch that does not run", () => {
    // xiyang-aads-lilly/alignment-handbook scripts/run_sft.py (abridged): `from alignment import ModelArguments`, the
    // package under src/ taking it from `.configs`; `if model_args.use_unsloth:` (False by default) imports and calls
    // alignment/unsloth.py's 4-bit loader, which is then not part of the run.
    const script =
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      'from alignment import ModelArguments\n' +
      'parser = HfArgumentParser((ModelArguments, TrainingArguments))\n' +
      'model_args, training_args = parser.parse_args_into_dataclasses()\n' +
      'if model_args.use_unsloth:\n    from alignment.unsloth import load_4bit\n' +
      '    model = load_4bit(model_args.model_name_or_path)\n' +
      'else:\n    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n' +
      'Trainer(model=model, args=training_args).train()\n';
    const files = {
      '/p/train.py': script,
      '/p/src/alignment/__init__.py': 'from .configs import ModelArguments\n',
      '/p/src/alignment/configs.py':
        'from dataclasses import dataclass\n@dataclass\nclass ModelArguments:\n' +
        '    model_name_or_path: str = "Qwen/Qwen2.5-0.5B"\n    use_unsloth: bool = False\n',
      '/p/src/alignment/unsloth.py':
        'from transformers import AutoModelForCausalLM, BitsAndBytesConfig\n' +
        'def load_4bit(m):\n' +
        '    return AutoModelForCausalLM.from_pretrained(m, quantization_config=BitsAndBytesConfig(load_in_4bit=True))\n',
    };
    const r = runOf(files, '/p/train.py');
    assert.deepEqual([r.setup?.model, r.setup?.quantization], ['Qwen/Qwen2.5-0.5B', undefined]);
    assert.ok(!r.files.some((f) => f.file.endsWith('unsloth.py')));
    // A test not known statically (H4ArgumentParser.parse() takes its values from the YAML the launch line gives):
    // the branch whose alternative loads the model with the library is not followed either; one with no such
    // alternative is.
    const unknown = script.replace('if model_args.use_unsloth:', 'if sys.argv[-1] == "unsloth":');
    const u = runOf({ ...files, '/p/train.py': unknown }, '/p/train.py');
    assert.equal(u.setup?.quantization, undefined);
    const only = unknown.replace(/else:\n {4}model = [^\n]+\n/, '');
    const o = runOf({ ...files, '/p/train.py': only }, '/p/train.py');
    assert.ok(o.files.some((f) => f.file.endsWith('unsloth.py')));
  });

  it('`import config` then `config.NAME`, and `from .consts import *` (its underscore names left out)', () => {
    const dotted = TRAINER('import config', 'config.MODEL_NAME', 'config.BATCH_SIZE');
    const a = runOf({ '/p/train.py': dotted, '/p/config.py': CONFIG }, '/p/train.py');
    assert.deepEqual([a.setup?.model, a.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 4]);
    const star = TRAINER('from .consts import *', 'MODEL_NAME', 'BATCH_SIZE');
    const b = runOf({ '/p/pkg/train.py': star, '/p/pkg/consts.py': CONFIG }, '/p/pkg/train.py');
    assert.deepEqual([b.setup?.model, b.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 4]);
    const hidden = TRAINER('from .consts import *', '_PRIVATE', 'BATCH_SIZE');
    const c = runOf({ '/p/pkg/train.py': hidden, '/p/pkg/consts.py': CONFIG }, '/p/pkg/train.py');
    assert.equal(c.setup, undefined);
  });

  it('class attributes of an imported module: `config.LLMConfig.BASE_MODEL`, `from config import LoRAConfig`', () => {
    // daniilgorenkov/LLM-with-RAG config.py (abridged): settings kept as attributes of classes (`class LLMConfig:` /
    // `BASE_MODEL = "..."`), read as `config.LLMConfig.BASE_MODEL`; an attribute the class sets twice is not read.
    const config =
      'class LLMConfig:\n    ONLINE: bool = False\n    BASE_MODEL = "Qwen/Qwen2.5-14B-Instruct"\n' +
      'class TrainConfig:\n    BATCH = 2\n    TWICE = 1\n    TWICE = 3\n';
    const a = runOf(
      {
        '/p/train.py': TRAINER('import config', 'config.LLMConfig.BASE_MODEL', 'config.TrainConfig.BATCH'),
        '/p/config.py': config,
      },
      '/p/train.py',
    );
    assert.deepEqual([a.setup?.model, a.setup?.micro_batch_size], ['Qwen/Qwen2.5-14B-Instruct', 2]);
    assert.match(runFact(a, 'model')!.fact.rawValue, /LLMConfig\.BASE_MODEL in config\.py, line 3/);
    const b = runOf(
      {
        '/p/train.py': TRAINER('from config import LLMConfig, TrainConfig as TC', 'LLMConfig.BASE_MODEL', 'TC.BATCH'),
        '/p/config.py': config,
      },
      '/p/train.py',
    );
    assert.deepEqual([b.setup?.model, b.setup?.micro_batch_size], ['Qwen/Qwen2.5-14B-Instruct', 2]);
    const twice = runOf(
      {
        '/p/train.py': TRAINER('import config', 'config.LLMConfig.BASE_MODEL', 'config.TrainConfig.TWICE'),
        '/p/config.py': config,
      },
      '/p/train.py',
    );
    assert.ok(isUnknown(runFact(twice, 'microBatchSize')!.fact.value));
    // A list of strings, `TARGET_MODULES = ["q_proj", ...]` handed to LoraConfig (train/lora_trainer.py): the list.
    const lora = runOf(
      {
        '/p/train.py': TRAINER('import config', 'config.LLMConfig.BASE_MODEL', '2').replace(
          'Trainer(model=model',
          'from peft import LoraConfig, get_peft_model\n' +
            'model = get_peft_model(model, LoraConfig(r=8, target_modules=config.LoRAConfig.TARGET_MODULES))\n' +
            'Trainer(model=model',
        ),
        '/p/config.py': `${config}class LoRAConfig:\n    TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj"]\n`,
      },
      '/p/train.py',
    );
    assert.deepEqual(lora.setup?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
  });

  it('a module-level instance of a dataclass the module defines: `from .config import train_config`', () => {
    // Nguyen3007/decode-only src/config.py (abridged): `@dataclass class TrainingConfig:` with field defaults and
    // `train_config = TrainingConfig()`, read by src/trainer.py as `train_config.model_name`; a keyword the call passes
    // wins over the field's default, and an instance made with a positional argument gives none.
    const config = (made: string): string =>
      'from dataclasses import dataclass\n@dataclass\nclass TrainingConfig:\n' +
      '    model_name: str = "Qwen/Qwen2.5-1.5B-Instruct"\n    per_device_train_batch_size: int = 1\n' +
      `train_config = ${made}\n`;
    const trainer = TRAINER(
      'from .config import train_config',
      'train_config.model_name',
      'train_config.per_device_train_batch_size',
    );
    const a = runOf({ '/p/train.py': trainer, '/p/config.py': config('TrainingConfig()') }, '/p/train.py');
    assert.deepEqual([a.setup?.model, a.setup?.micro_batch_size], ['Qwen/Qwen2.5-1.5B-Instruct', 1]);
    assert.match(runFact(a, 'model')!.fact.rawValue, /TrainingConfig\.model_name in config\.py, line 4/);
    const kw = runOf(
      { '/p/train.py': trainer, '/p/config.py': config('TrainingConfig(per_device_train_batch_size=4)') },
      '/p/train.py',
    );
    assert.equal(kw.setup?.micro_batch_size, 4);
    const positional = runOf(
      { '/p/train.py': trainer, '/p/config.py': config('TrainingConfig("gpt2")') },
      '/p/train.py',
    );
    assert.ok(isUnknown(runFact(positional, 'model')!.fact.value));
  });

  it('an instance the script makes of a class it imports: `config = TrainingConfig()`, then `config.BASE_MODEL_NAME`', () => {
    // zeyrek2323/msra-c-standards-checker train_lora.py: `from config import TrainingConfig`, `config =
    // TrainingConfig()`, `from_pretrained(config.BASE_MODEL_NAME)`; config.py keeps its settings as class attributes.
    const module = 'class TrainingConfig:\n    BASE_MODEL_NAME = "meta-llama/Meta-Llama-3-8B"\n    BATCH_SIZE = 1\n';
    const trainer = (made: string): string =>
      TRAINER('from config import TrainingConfig', 'config.BASE_MODEL_NAME', 'config.BATCH_SIZE').replace(
        /^(from config import TrainingConfig\n)/,
        `$1config = ${made}\n`,
      );
    const r = runOf({ '/p/train.py': trainer('TrainingConfig()'), '/p/config.py': module }, '/p/train.py');
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['meta-llama/Meta-Llama-3-8B', 1]);
    const kw = runOf({ '/p/train.py': trainer('TrainingConfig(BATCH_SIZE=4)'), '/p/config.py': module }, '/p/train.py');
    assert.equal(kw.setup?.micro_batch_size, 4);
  });

  it("an imported dataclass holding the module's other dataclasses: `config.training.BATCH_SIZE`", () => {
    // A config.py in cudnah124/ChartQA's shape: Config's fields made by default_factory (a class, a lambda's call with
    // a keyword) and field(default=...); the script imports Config, or a module-level instance of it.
    const module = [
      'from dataclasses import dataclass, field',
      '@dataclass',
      'class ModelConfig:',
      '    name: str = "meta-llama/Meta-Llama-3-8B"',
      '@dataclass',
      'class TrainConfig:',
      '    BATCH_SIZE: int = field(default=1)',
      '    ACCUM: int = 8',
      '@dataclass',
      'class Config:',
      '    model: ModelConfig = field(default_factory=ModelConfig)',
      '    training: TrainConfig = field(default_factory=lambda: TrainConfig(BATCH_SIZE=2))',
      'default_config = Config()',
      '',
    ].join('\n');
    const trainer = (imports: string, made: string): string =>
      TRAINER(imports, 'config.model.name', 'config.training.BATCH_SIZE').replace(
        `${imports}\n`,
        `${imports}\n${made}`,
      );
    const r = runOf(
      { '/p/train.py': trainer('from config import Config', 'config = Config()\n'), '/p/config.py': module },
      '/p/train.py',
    );
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['meta-llama/Meta-Llama-3-8B', 2]);
    assert.match(
      JSON.stringify(runFact(r, 'microBatchSize')?.fact),
      /Config\.training\.BATCH_SIZE in config\.py, line 12/,
    );
    const instance = runOf(
      { '/p/train.py': trainer('from config import default_config as config', ''), '/p/config.py': module },
      '/p/train.py',
    );
    assert.deepEqual([instance.setup?.model, instance.setup?.micro_batch_size], ['meta-llama/Meta-Llama-3-8B', 2]);
    // A keyword of the script's call that makes the inner instance is not followed: unknown, not the class's value.
    const given = runOf(
      {
        '/p/train.py': trainer('from config import Config', 'config = Config(training=make())\n'),
        '/p/config.py': module,
      },
      '/p/train.py',
    );
    assert.ok(isUnknown(runFact(given, 'microBatchSize')!.fact.value));
  });

  it("`from package import module` then `module.NAME`, and a name of the package's __init__.py", () => {
    // ferrazzipietro/mistral_finetuning finetuning_qwen.py: `from config.finetuning_qwen import config,
    // training_params`, then `config.BASE_MODEL_CHECKPOINT` (config/finetuning_qwen/config.py; the package's
    // __init__.py is empty).
    const text = TRAINER(
      'from config.finetuning_qwen import config, training_params',
      'config.MODEL_NAME',
      'training_params.BATCH_SIZE',
    );
    const files = {
      '/p/train.py': text,
      '/p/config/finetuning_qwen/__init__.py': '',
      '/p/config/finetuning_qwen/config.py': CONFIG,
      '/p/config/finetuning_qwen/training_params.py': 'BATCH_SIZE = 2\n',
    };
    const r = runOf(files, '/p/train.py');
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['meta-llama/Llama-3.2-1B', 2]);
    const pkg = TRAINER('from settings import MODEL_NAME', 'MODEL_NAME', '4');
    const s = runOf({ '/p/train.py': pkg, '/p/settings/__init__.py': CONFIG }, '/p/train.py');
    assert.equal(s.setup?.model, 'meta-llama/Llama-3.2-1B');
  });

  it('a name the script binds itself wins; a module that is not there leaves the name unknown, said where it is read', () => {
    const own = TRAINER('from config import MODEL_NAME\nMODEL_NAME = "gpt2"', 'MODEL_NAME', '2');
    assert.equal(runOf({ '/p/train.py': own, '/p/config.py': CONFIG }, '/p/train.py').setup?.model, 'gpt2');
    const missing = runOf(
      { '/p/train.py': TRAINER('from config import MODEL_NAME', 'MODEL_NAME', '2') },
      '/p/train.py',
    );
    assert.equal(missing.setup, undefined);
    assert.match(JSON.stringify(runFact(missing, 'model')?.fact.value), /MODEL_NAME is not assigned in this file/);
  });

  it('a constant the module works out from literals: os.path.join, `+`, an f-string, a list', () => {
    // ChaoChienHung/Fine-TunedLLaMa config.py: `MODEL = os.path.join("meta-llama", "Llama-2-7b-hf")`;
    // SzJS/unsloth-qwen4b training/model.py: `LORA_TARGET_MODULES = [...]`, read by `target_modules=`.
    const config = [
      'import os',
      'from datetime import datetime',
      'ORG = "meta-llama"',
      'MODEL = os.path.join(ORG, "Llama-2-7b")',
      'CHAT = MODEL + "-chat-hf"',
      'OUT = f"out/{ORG}"',
      'TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]',
      'STAMP = datetime.today().strftime("%Y")',
      '',
    ].join('\n');
    const text = TRAINER('from config import CHAT, TARGETS, STAMP', 'CHAT', '2').replace(
      'Trainer(model=model',
      'model = get_peft_model(model, LoraConfig(r=8, target_modules=TARGETS))\nTrainer(model=model',
    );
    const r = runOf({ '/p/train.py': text, '/p/config.py': config }, '/p/train.py');
    assert.equal(r.setup?.model, 'meta-llama/Llama-2-7b-chat-hf');
    assert.match(runFact(r, 'model')!.fact.rawValue, /CHAT in config\.py, line 5/);
    assert.deepEqual(r.setup?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
  });

  it("a helper called several times with different models: the call whose result the trainer gets (kshahmir49's dpo.ipynb)", () => {
    // kshahmir49/LLM-Post-Training: helper.py's load_model_and_tokenizer(model_name, use_gpu) is called for a trained
    // checkpoint to compare with, then for the model the DPOTrainer trains, then again after training.
    const helper =
      'from transformers import AutoModelForCausalLM, AutoTokenizer\n' +
      'def load_model_and_tokenizer(model_name, use_gpu=False):\n' +
      '    tokenizer = AutoTokenizer.from_pretrained(model_name)\n' +
      '    model = AutoModelForCausalLM.from_pretrained(model_name)\n' +
      '    return model, tokenizer\n';
    const script = [
      'from trl import DPOTrainer, DPOConfig',
      'from helper import load_model_and_tokenizer',
      'model, tokenizer = load_model_and_tokenizer("Qwen/Qwen2.5-0.5B-Instruct", True)',
      'model, tokenizer = load_model_and_tokenizer("HuggingFaceTB/SmolLM2-135M-Instruct", True)',
      'dpo_trainer = DPOTrainer(model=model, args=DPOConfig(output_dir="o", per_device_train_batch_size=1))',
      'dpo_trainer.train()',
      'model, tokenizer = load_model_and_tokenizer("Qwen/Qwen2.5-0.5B-Instruct", True)',
      '',
    ].join('\n');
    const r = runOf({ '/p/helper.py': helper, '/p/train.py': script }, '/p/train.py');
    assert.equal(r.setup?.model, 'HuggingFaceTB/SmolLM2-135M-Instruct', JSON.stringify(r.problems));
  });

  it("a helper module reads the constants it imports itself (the script's run loads its model there)", () => {
    // ChaoChienHung/Fine-TunedLLaMa: train_ddp.py calls model.py's load_model(tokenizer); model.py has
    // `from config import MODEL` and loads `AutoModelForCausalLM.from_pretrained(MODEL, ...)` in a try block.
    const files = {
      '/p/config.py': 'import os\nMODEL = os.path.join("meta-llama", "Llama-2-7b-hf")\nMAX_LENGTH = 2048\n',
      '/p/model.py': [
        'from config import MODEL',
        'from transformers import AutoModelForCausalLM',
        'def load_model(tokenizer):',
        '    try:',
        '        model = AutoModelForCausalLM.from_pretrained(MODEL, torch_dtype=torch.bfloat16)',
        '    except Exception as e:',
        '        raise',
        '    return model',
        '',
      ].join('\n'),
      '/p/train_ddp.py': [
        'from model import load_model',
        'from transformers import Trainer, TrainingArguments',
        'model = load_model(tokenizer)',
        'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, gradient_accumulation_steps=16)',
        'Trainer(model=model, args=args).train()',
        '',
      ].join('\n'),
    };
    const r = runOf(files, '/p/train_ddp.py');
    assert.equal(r.setup?.model, 'meta-llama/Llama-2-7b-hf');
    const model = runFact(r, 'model')!;
    assert.deepEqual([model.file, model.at], ['/p/model.py', 'MODEL']);
    assert.match(model.fact.rawValue, /MODEL in config\.py, line 2/);
  });

  it('installed packages are no project modules', () => {
    const imports = projectImports('import torch\nfrom transformers import Trainer\nfrom utils.consts import A as B\n');
    assert.deepEqual(imports, [{ path: 'utils/consts.py', names: [['B', 'A']], star: false }]);
  });
});
