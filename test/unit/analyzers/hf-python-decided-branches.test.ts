// Values a script sets on branches its launch options decide (RUCAIBox/LLMBox training/train.py: `if args.qlora:
// args.lora = True`, then `if args.lora:` around `if args.qlora: prepare_model_for_kbit_training(model)`, and the
// quantization config passed as `BitsAndBytesConfig(...) if args.qlora else None`): the script read again with the
// launch line's options takes the branches they decide. Each expected value is written in the test's own files or is
// the library default named beside it.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

/** LLMBox's train.py, cut to what decides the model's loading and its adapters. */
const TRAIN = `from dataclasses import dataclass, field
from typing import Optional
from transformers import HfArgumentParser, TrainingArguments, AutoModelForCausalLM, BitsAndBytesConfig, Trainer
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

@dataclass
class Arguments(TrainingArguments):
    model_name_or_path: str = field(default="meta-llama/Llama-2-7b-hf")
    lora: Optional[bool] = field(default=False)
    qlora: Optional[bool] = field(default=False)
    lora_r: int = field(default=16)

def train():
    parser = HfArgumentParser(Arguments)
    args = parser.parse_args_into_dataclasses()[0]
    if args.qlora:
        args.lora = True
    model = AutoModelForCausalLM.from_pretrained(
        args.model_name_or_path,
        quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4") if args.qlora else None,
    )
    if args.lora:
        if args.qlora:
            model = prepare_model_for_kbit_training(model)
        model = get_peft_model(model, LoraConfig(r=args.lora_r))
    trainer = Trainer(model=model, args=args)
    trainer.train()

if __name__ == "__main__":
    train()
`;

/** The run of /w/run.sh launching /w/train.py with `options`. */
function runWith(options: string): PipelineResult {
  const launcher = `torchrun --nproc_per_node=8 train.py --output_dir out --per_device_train_batch_size 8 ${options}\n`;
  return runPipeline(
    [{ file: '/w/run.sh', text: launcher }],
    inMemory({ '/w/run.sh': launcher, '/w/train.py': TRAIN }),
    {},
  );
}

describe('branches a launch line decides in the script it runs', () => {
  it('--qlora True: lora set on its branch, the 4-bit config taken, prepare_model_for_kbit_training run', () => {
    const r = runWith('--qlora True');
    assert.equal(r.setup?.method, 'qlora');
    assert.equal(r.setup?.quantization?.bits, 4, 'BitsAndBytesConfig(load_in_4bit=True) if args.qlora else None');
    assert.equal(r.setup?.quantization?.type, 'nf4');
    assert.equal(r.setup?.lora?.r, 16, 'LoraConfig(r=args.lora_r), the field default');
    // prepare_model_for_kbit_training: use_gradient_checkpointing defaults to True, and it upcasts the parameters
    // left unquantized to fp32 (peft/utils/other.py).
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    assert.equal(r.setup?.kbit_upcast, 'all');
    const script = r.files.find((f) => f.file === '/w/train.py');
    // The script is read with the launch line's options (its `... if args.qlora else None` reads --qlora): the fact is
    // the preparation's own default, located at the call on the branch --qlora True takes.
    const gc = script?.facts.facts.find((f) => f.key === 'gradientCheckpointing');
    assert.match(gc?.rawValue ?? '', /prepare_model_for_kbit_training: use_gradient_checkpointing default True/);
    assert.equal(TRAIN.slice(gc!.keySpan.start, gc!.keySpan.end), 'prepare_model_for_kbit_training');
  });

  it('--lora True alone: LoRA on the 16-bit model, neither the 4-bit config nor the k-bit preparation', () => {
    const r = runWith('--lora True');
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.quantization, undefined);
    assert.notEqual(r.setup?.gradient_checkpointing, 'full', 'no gradient_checkpointing option and no preparation');
    assert.notEqual(r.setup?.kbit_upcast, 'all');
  });

  it('neither option on the line: `args.lora = True` on the untaken qlora branch leaves lora False, a full fine-tune', () => {
    // RUCAIBox/LLMBox training/bash/run_ds3.sh passes neither: the run trains the whole model.
    const r = runWith('');
    assert.equal(r.setup?.method, 'full');
    assert.equal(r.setup?.quantization, undefined);
  });

  it("a module the script imports does not run its main guard's block (its model load there is not the run's)", () => {
    // tathagatoroy/Controllable_Summarization_Experiments: utils.py loads a model of its own under
    // `if __name__ == "__main__":`; the script that imports it trains another.
    const utils = [
      'from config import *',
      'from transformers import AutoModelForCausalLM',
      'def count_params(model):',
      '    return sum(p.numel() for p in model.parameters())',
      'if __name__ == "__main__":',
      '    model = AutoModelForCausalLM.from_pretrained(model_name)',
      '    print(count_params(model))',
      '',
    ].join('\n');
    const script = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'from trl import SFTTrainer',
      'from utils import count_params',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--checkpoint_path", type=str, default="TinyLlama/TinyLlama-1.1B-Chat-v1.0")',
      'args = parser.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained(args.checkpoint_path)',
      'print(count_params(model))',
      'SFTTrainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=2)).train()',
      '',
    ].join('\n');
    const files = {
      '/w/train.py': script,
      '/w/utils.py': utils,
      '/w/config.py': 'model_name = "EleutherAI/pythia-1b"\n',
      '/w/run.sh': 'accelerate launch train.py --output_dir out\n',
    };
    const r = runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory(files), {});
    assert.equal(r.setup?.model, 'TinyLlama/TinyLlama-1.1B-Chat-v1.0', JSON.stringify(r.problems));
  });

  it('the same script read again with other options takes their branches (its settled readings are kept by their options)', () => {
    for (let i = 0; i < 2; i++) {
      assert.equal(runWith('--qlora True').setup?.method, 'qlora');
      assert.equal(runWith('--lora True').setup?.method, 'lora');
      assert.equal(runWith('--lora True --lora_r 64').setup?.lora?.r, 64);
      assert.equal(runWith('--lora True').setup?.lora?.r, 16);
    }
  });

  it('a use_peft field that is False is a full fine-tune; a helper that returns before its LoraConfig makes none', () => {
    // taishan1994/DPO-Finetuning (abridged): arguments.py's ModelArguments has `use_peft: bool = False` beside LoRA's
    // fields; utils.py's get_peft_config returns None `if model_args.use_peft is False` before its LoraConfig.
    const args =
      'from dataclasses import dataclass, field\n@dataclass\nclass ModelArguments:\n' +
      '    model_name_or_path: str = field(default="Qwen/Qwen2-0.5B-Instruct")\n' +
      '    use_peft: bool = field(default=False)\n    lora_r: int = field(default=16)\n' +
      '    lora_target_modules: str = field(default=None)\n';
    const utils =
      'from peft import LoraConfig\nfrom arguments import ModelArguments\n' +
      'def get_peft_config(model_args: ModelArguments):\n' +
      '    if model_args.use_peft is False:\n        return None\n' +
      '    peft_config = LoraConfig(r=model_args.lora_r, target_modules=model_args.lora_target_modules)\n' +
      '    return peft_config\n';
    const script =
      'from transformers import AutoModelForCausalLM, HfArgumentParser\nfrom trl import DPOTrainer, DPOConfig\n' +
      'from arguments import ModelArguments\nfrom utils import get_peft_config\n' +
      'parser = HfArgumentParser((ModelArguments, DPOConfig))\n' +
      'model_args, training_args = parser.parse_args_into_dataclasses()\n' +
      'model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)\n' +
      'DPOTrainer(model=model, args=training_args, peft_config=get_peft_config(model_args)).train()\n';
    const files = { '/w/arguments.py': args, '/w/utils.py': utils, '/w/train.py': script };
    const run = (line: string): PipelineResult => {
      const launcher = `accelerate launch train.py --output_dir out ${line}\n`;
      return runPipeline([{ file: '/w/run.sh', text: launcher }], inMemory({ ...files, '/w/run.sh': launcher }), {});
    };
    const off = run('');
    assert.equal(off.setup?.method, 'full');
    // The helper's LoraConfig is after its return: its not-static target_modules is not said.
    assert.ok(!off.problems.some((p) => p.key === 'target_modules'), JSON.stringify(off.problems));
    assert.equal(run('--use_peft true').setup?.method, 'lora');
  });

  it("len() of a known option; the model's own checkpointing under an FSDP wrapper leaves no KV cache", () => {
    // Scicom-AI-Enterprise-Organization/small-ablation@a664148 fsdp1-peft-vs-fsdp2/fsdp1-peft.py lines 208-209 (abridged):
    // `if training_args.fsdp is not None and len(training_args.fsdp): model.gradient_checkpointing_enable(...)`, the
    // launch line passing --fsdp and fsdp.json activation_checkpointing (torch's checkpoint_wrapper) besides.
    const train = (enable: string): string =>
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      '(training_args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
      enable +
      'Trainer(model=model, args=training_args).train()\n';
    const run = (enable: string, fsdp = '--fsdp "full_shard auto_wrap" --fsdp_config fsdp.json '): PipelineResult => {
      const files = {
        '/w/run.sh': `torchrun --nproc_per_node 8 train.py ${fsdp}--output_dir o --gradient_checkpointing false\n`,
        '/w/train.py': train(enable),
        '/w/fsdp.json': '{"activation_checkpointing": true}',
        '/w/requirements.txt': 'transformers==4.57.1\n',
      };
      return runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory(files), {});
    };
    const guarded =
      'if training_args.fsdp is not None and len(training_args.fsdp):\n' +
      '    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})\n';
    const on = run(guarded);
    assert.equal(on.setup?.gradient_checkpointing, 'full');
    // transformers turns use_cache off under its own checkpointing, whatever wrapper checkpoints the layers besides.
    assert.notEqual(on.setup?.use_cache, true);
    // fsdp.json's activation_checkpointing alone wraps every layer, --gradient_checkpointing false notwithstanding,
    // and leaves the config's use_cache on under transformers 4 (the cache the layers keep).
    const wrapped = run('');
    assert.deepEqual([wrapped.setup?.gradient_checkpointing, wrapped.setup?.checkpoint_wrapper], ['full', true]);
    assert.deepEqual(wrapped.provenance.gradient_checkpointing, {
      kind: 'file',
      file: '/w/fsdp.json',
      line: 1,
      key: 'activation_checkpointing',
    });
    assert.equal(wrapped.setup?.use_cache, true);
    // Without FSDP, the guard is false and the flag stands.
    assert.equal(run(guarded, '').setup?.gradient_checkpointing, 'none');
  });

  it('a list filled in place before `if not rows: return` is not known empty: the guard is not known to exit', () => {
    // unoa-eng/dalbitalba-train-data's ORPO script (abridged): `rows = []` filled by a loop over the data file, then
    // `if not rows: return 0` before the model loads; read as always empty, the load had been dead code (no model).
    const body = (fill: string): string =>
      'from transformers import AutoModelForCausalLM\nfrom trl import ORPOConfig, ORPOTrainer\n' +
      `def main():\n    rows = []\n${fill}    if not rows:\n        return 0\n` +
      '    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-8B-Base")\n' +
      '    ORPOTrainer(model=model, args=ORPOConfig(output_dir="o")).train()\n' +
      'main()\n';
    const run = (fill: string): PipelineResult => {
      const text = body(fill);
      return runPipeline([{ file: '/w/train.py', text }], inMemory({ '/w/train.py': text }), {});
    };
    assert.equal(
      run('    for line in open("pairs.jsonl"):\n        rows.append(line)\n').setup?.model,
      'Qwen/Qwen3-8B-Base',
    );
    assert.equal(run('    rows[0:0] = open("pairs.jsonl").readlines()\n').setup?.model, 'Qwen/Qwen3-8B-Base');
    // Never filled, the list is empty and the function returns before the load.
    assert.equal(run('').setup, undefined);
  });

  it("PEFT's examples/sft use_peft_lora field, False, is a full fine-tune beside lora_r (NJUDeepEngine/meteora)", () => {
    // meteora_train.py: `lora_r: Optional[int] = field(default=64)` and `use_peft_lora: ... default=False`; the path
    // that runs builds no LoraConfig. lora_r alone had made the run LoRA r 64 (27.3M trainable for Llama-3-8B).
    const script =
      'from dataclasses import dataclass, field\nfrom typing import Optional\n' +
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      '@dataclass\nclass ScriptArguments:\n    lora_r: Optional[int] = field(default=64)\n' +
      '    use_peft_lora: Optional[bool] = field(default=False)\n' +
      '    model_name: Optional[str] = field(default="meta-llama/Meta-Llama-3-8B")\n' +
      'args, training_args = HfArgumentParser((ScriptArguments, TrainingArguments)).parse_args_into_dataclasses()\n' +
      'model = AutoModelForCausalLM.from_pretrained(args.model_name)\n' +
      'Trainer(model=model, args=training_args).train()\n';
    const files = { '/w/train.py': script };
    const run = (line: string): PipelineResult => {
      const launcher = `python train.py --output_dir out ${line}\n`;
      return runPipeline([{ file: '/w/run.sh', text: launcher }], inMemory({ ...files, '/w/run.sh': launcher }), {});
    };
    assert.equal(run('').setup?.method, 'full');
    assert.equal(run('--use_peft_lora True').setup?.method, 'lora');
  });

  it('--use_peft False on the launch line skips a LoRA branch taken by default, a trainable adapter load too', () => {
    // zrkdy/MedicalGPT training/supervised_finetuning.py (abridged): ScriptArguments.use_peft defaults to True;
    // `if script_args.use_peft:` holds PeftModel.from_pretrained(..., is_trainable=True) when peft_path is given, else a
    // LoraConfig; its `else:` trains every weight. run_full_sft.sh passes `--use_peft False`.
    const script =
      'from dataclasses import dataclass, field\nfrom typing import Optional\n' +
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Seq2SeqTrainingArguments, Trainer\n' +
      'from peft import LoraConfig, PeftModel, get_peft_model\n' +
      '@dataclass\nclass ScriptArguments:\n' +
      '    model_name_or_path: str = field(default="Qwen/Qwen2.5-0.5B-Instruct")\n' +
      '    use_peft: bool = field(default=True)\n    peft_path: Optional[str] = field(default=None)\n' +
      '    lora_rank: int = field(default=8)\n' +
      'def main():\n' +
      '    parser = HfArgumentParser((Seq2SeqTrainingArguments, ScriptArguments))\n' +
      '    training_args, script_args = parser.parse_args_into_dataclasses()\n' +
      '    model = AutoModelForCausalLM.from_pretrained(script_args.model_name_or_path)\n' +
      '    if script_args.use_peft:\n' +
      '        if script_args.peft_path is not None:\n' +
      '            model = PeftModel.from_pretrained(model, script_args.peft_path, is_trainable=True)\n' +
      '        else:\n' +
      '            model = get_peft_model(model, LoraConfig(r=script_args.lora_rank, target_modules=["q_proj"]))\n' +
      '    else:\n        model = model.float()\n' +
      '    Trainer(model=model, args=training_args).train()\n' +
      'if __name__ == "__main__":\n    main()\n';
    const run = (line: string): PipelineResult => {
      const launcher = `torchrun --nproc_per_node 2 train.py --output_dir out ${line}\n`;
      const files = { '/w/train.py': script, '/w/run.sh': launcher };
      return runPipeline([{ file: '/w/run.sh', text: launcher }], inMemory(files), {});
    };
    const lora = run('');
    assert.equal(lora.setup?.method, 'lora');
    // The adapter load is on the skipped `peft_path is not None` branch: the LoraConfig's rank and targets stand.
    assert.deepEqual([lora.setup?.lora?.r, lora.setup?.lora?.target_modules], [8, ['q_proj']]);
    assert.equal(run('--use_peft False').setup?.method, 'full');
  });

  it("the script's own dataclass field `use_peft: bool = False` beside LoRA's fields is a full fine-tune, said at it", () => {
    // alignment-handbook's ModelArguments (tillson/llm-fine-tuning's alignment/configs.py): use_peft False by default.
    const text =
      'from dataclasses import dataclass, field\nfrom transformers import AutoModelForCausalLM, HfArgumentParser\n' +
      'from trl import SFTTrainer, SFTConfig\n@dataclass\nclass ModelArguments:\n' +
      '    use_peft: bool = field(default=False)\n    lora_r: int = field(default=16)\n' +
      'model_args, args = HfArgumentParser((ModelArguments, SFTConfig)).parse_args_into_dataclasses()\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-0.5B")\n' +
      'SFTTrainer(model=model, args=args).train()\n';
    const r = runPipeline([{ file: '/w/train.py', text }], inMemory({ '/w/train.py': text }), {});
    assert.equal(r.setup?.method, 'full');
    assert.deepEqual(r.provenance.method, { kind: 'file', file: '/w/train.py', line: 6, key: 'use_peft' });
  });

  it('a test of membership in a list of numbers is decided with the launch line: `load_in_kbits in [4, 8]`', () => {
    // ymcui/Chinese-Mixtral run_clm_sft_with_peft.py:315 builds its BitsAndBytesConfig under
    // `if training_args.load_in_kbits in [4, 8]:` (default 16) and run_sft.sh passes --load_in_kbits 4: a list of
    // numbers was no value, the test unknown, and Mixtral-8x7B was estimated in fp16 (112.2 GiB against 49.0).
    const train = (test: string): string => `from dataclasses import dataclass, field
from typing import Optional
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, HfArgumentParser, TrainingArguments, Trainer

@dataclass
class MyTrainingArguments(TrainingArguments):
    load_in_kbits: Optional[int] = field(default=16)

training_args, = HfArgumentParser((MyTrainingArguments,)).parse_args_into_dataclasses()
if ${test}:
    quantization_config = BitsAndBytesConfig(load_in_4bit=training_args.load_in_kbits == 4)
else:
    quantization_config = None
model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", quantization_config=quantization_config)
Trainer(model=model, args=training_args).train()
`;
    const run = (test: string, bits: number): PipelineResult => {
      const files = {
        '/w/run.sh': `python train.py --output_dir o --load_in_kbits ${bits}\n`,
        '/w/train.py': train(test),
      };
      return runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory(files), {});
    };
    assert.equal(run('training_args.load_in_kbits in [4, 8]', 4).setup?.quantization?.bits, 4);
    assert.equal(run('training_args.load_in_kbits in (4, 8)', 16).setup?.quantization, undefined);
    assert.equal(run('training_args.load_in_kbits not in [4, 8]', 4).setup?.quantization, undefined);
  });

  it("an arguments dataclass's LoRA fields that only default apply no adapter (FuseLLM's --training_mode full)", () => {
    // fanqiwan/FuseAI FuseLLM src/utils/config.py:84 `lora_r: int = field(default=64)`; under `--training_mode full`
    // src/utils/common.py loads the model with no PEFT (its LoraConfig is in a function only the qlora mode calls).
    // Read as LoRA r 64 it was 14.0 GiB against the full fine-tune's 28.2.
    const train = `from dataclasses import dataclass, field
from typing import Optional
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments

@dataclass
class Arguments(TrainingArguments):
    training_mode: Optional[str] = field(default="full")
    lora_r: int = field(default=64)
    lora_alpha: int = field(default=16)

args, = HfArgumentParser((Arguments,)).parse_args_into_dataclasses()
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
Trainer(model=model, args=args).train()
`;
    const run = (flags: string): PipelineResult => {
      const sh = `python train.py --output_dir o${flags}\n`;
      return runPipeline([{ file: '/w/run.sh', text: sh }], inMemory({ '/w/run.sh': sh, '/w/train.py': train }), {});
    };
    assert.equal(run(' --training_mode full').setup?.method, 'full');
    // A LoRA key the launch line sets is the run's own setting: LoRA, as before.
    assert.equal(run(' --lora_r 16').setup?.method, 'lora');
  });
});
