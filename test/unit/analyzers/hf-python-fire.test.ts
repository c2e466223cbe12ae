// Scripts whose command line is a function's parameters: `fire.Fire(train)`, as tloen/alpaca-lora's finetune.py
// (test/real-files) and its descendants (Chinese-Vicuna, Huatuo-Llama-Med-Chinese, LLM-Adapters) run. Python Fire calls
// train() with the command line's `--name value` pairs as keyword arguments, so a parameter's default is what runs when
// the launch line passes nothing, and the launch line's `--name` replaces it.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { CanonicalKey, ConfigFacts } from '../../../src/analyzers/facts';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { runProject } from '../helpers';

/** Alpaca-LoRA's finetune.py, shortened to what decides memory (tloen/alpaca-lora finetune.py). */
const FINETUNE = [
  'import fire',
  'import torch',
  'import transformers',
  'from transformers import LlamaForCausalLM',
  'def train(',
  '    base_model: str = "huggyllama/llama-7b",',
  '    batch_size: int = 128,',
  '    micro_batch_size: int = 4,',
  '    cutoff_len: int = 256,',
  '    lora_r: int = 8,',
  '):',
  '    gradient_accumulation_steps = batch_size // micro_batch_size',
  '    model = LlamaForCausalLM.from_pretrained(base_model, load_in_8bit=True, torch_dtype=torch.float16)',
  '    def tokenize(prompt):',
  '        return tokenizer(prompt, truncation=True, max_length=cutoff_len, padding=False)',
  '    config = LoraConfig(r=lora_r, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")',
  '    model = get_peft_model(model, config)',
  '    trainer = transformers.Trainer(',
  '        model=model,',
  '        args=transformers.TrainingArguments(',
  '            per_device_train_batch_size=micro_batch_size,',
  '            gradient_accumulation_steps=gradient_accumulation_steps,',
  '            fp16=True,',
  '            output_dir="out",',
  '        ),',
  '    )',
  '    trainer.train()',
  'if __name__ == "__main__":',
  '    fire.Fire(train)',
  '',
].join('\n');

const last = (r: ConfigFacts, key: CanonicalKey): unknown => r.facts.filter((f) => f.key === key).pop()?.value;

function pipeline(launch: string | undefined) {
  const reader = {
    read: (f: string): string | undefined => (f === '/w/finetune.py' ? FINETUNE : undefined),
    join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
  };
  const files = launch === undefined ? [] : [{ file: '/w/run.sh', text: launch }];
  return runPipeline([...files, { file: '/w/finetune.py', text: FINETUNE }], reader, {});
}

describe('analyzers: fire.Fire(train) scripts', () => {
  it("reads train()'s defaults as the script's options: the model, the micro-batch, LoRA's r, cutoff_len", () => {
    const r = analyzeHfPython(FINETUNE);
    assert.equal(last(r, 'model'), 'huggyllama/llama-7b');
    assert.equal(last(r, 'microBatchSize'), 4);
    assert.equal(last(r, 'loraR'), 8);
    // tokenizer(..., truncation=True, max_length=cutoff_len): rows are at most 256 tokens (Trainer scripts too).
    assert.equal(last(r, 'seqLen'), 256);
    const model = r.facts.find((f) => f.key === 'model')!;
    assert.equal(model.origin, 'script-default');
    assert.equal(model.fromArg?.name, 'base_model');
    assert.match(model.rawValue, /fire\.Fire\(train\) default of --base_model, line 6/);
  });

  it('alone, the accumulation is 128 // 4 = 32, computed from the defaults', () => {
    const run = pipeline(undefined);
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.model, 'huggyllama/llama-7b');
    assert.equal(run.setup.micro_batch_size, 4);
    assert.equal(run.setup.gradient_accumulation_steps, 32);
    assert.equal(run.setup.seq_len, 256);
  });

  it("a launch line's --name replaces the default, also inside what is computed from it (128 // 16 = 8)", () => {
    const run = pipeline(
      'python finetune.py --base_model meta-llama/Llama-2-13b-hf --micro_batch_size 16 --cutoff_len 512\n',
    );
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.model, 'meta-llama/Llama-2-13b-hf');
    assert.equal(run.setup.micro_batch_size, 16);
    assert.equal(run.setup.gradient_accumulation_steps, 8);
    assert.equal(run.setup.seq_len, 512);
  });

  it('a list of strings on the launch line is the list Fire gives the parameter, not one name', () => {
    // mulin-ahu/DenseLoRA commonsense_reasoning/llama3_8B_denselora.sh: --target_modules '["q_proj", "k_proj", ...]'.
    const text = [
      'import fire',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'from peft import LoraConfig, get_peft_model',
      'def train(base_model: str = "meta-llama/Meta-Llama-3-8B", target_modules: list = None):',
      '    model = AutoModelForCausalLM.from_pretrained(base_model)',
      '    model = get_peft_model(model, LoraConfig(r=16, target_modules=target_modules))',
      '    Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      'if __name__ == "__main__":',
      '    fire.Fire(train)',
      '',
    ].join('\n');
    const launch = `python ft.py --target_modules '["q_proj", "k_proj", "v_proj", "up_proj", "down_proj"]'\n`;
    const run = runProject({ 'ft.py': text, 'run.sh': launch }, 'run.sh');
    assert.deepEqual(run.setup?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj', 'up_proj', 'down_proj']);
  });

  it('an empty default (base_model: str = "", "the only required argument") stays unknown', () => {
    const r = analyzeHfPython(FINETUNE.replace('"huggyllama/llama-7b"', '""'));
    const model = r.facts.find((f) => f.key === 'model');
    assert.ok(model && typeof model.value === 'object' && model.value !== null && 'unknown' in model.value);
    // Given alone beside a README.md whose command passes it (aerner/aerner-alpaca, alpaca-lora's README): that value.
    const readme =
      "```bash\npython finetune.py \\\n    --base_model 'decapoda-research/llama-7b-hf' \\\n    --micro_batch_size 2\n```\n";
    const run = runProject(
      { 'finetune.py': FINETUNE.replace('"huggyllama/llama-7b"', '""'), 'README.md': readme },
      'finetune.py',
    );
    assert.deepEqual([run.setup?.model, run.setup?.micro_batch_size], ['decapoda-research/llama-7b-hf', 2]);
  });

  it("a parameter without a default is required: only the launch line's --name gives it (hmosousa/tradutor)", () => {
    const script = FINETUNE.replace('base_model: str = "huggyllama/llama-7b",', 'base_model: str,');
    const alone = analyzeHfPython(script);
    const model = alone.facts.find((f) => f.key === 'model')!;
    assert.deepEqual(model.value, {
      unknown: 'base_model is a required option of the script (fire.Fire(train) --base_model)',
    });
    assert.equal(model.fromArg?.name, 'base_model');
    const reader = {
      read: (f: string): string | undefined => (f === '/w/finetune.py' ? script : undefined),
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    const run = runPipeline(
      [
        { file: '/w/run.sh', text: 'accelerate launch finetune.py --base_model google/gemma-2-2b-it\n' },
        { file: '/w/finetune.py', text: script },
      ],
      reader,
      {},
    );
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.model, 'google/gemma-2-2b-it');
  });

  it("the launch line's positional words fill the parameters by position, those it names by flag left out", () => {
    // Fire assigns positional arguments to the function's parameters in order (`python finetune.py gpt2 64`).
    const script = FINETUNE.replace('base_model: str = "huggyllama/llama-7b",', 'base_model: str,');
    const reader = {
      read: (f: string): string | undefined => (f === '/w/finetune.py' ? script : undefined),
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    const run = (line: string) =>
      runPipeline(
        [
          { file: '/w/run.sh', text: line },
          { file: '/w/finetune.py', text: script },
        ],
        reader,
        {},
      ).setup;
    assert.equal(run('python finetune.py google/gemma-2-2b-it\n')?.model, 'google/gemma-2-2b-it');
    // --base_model named, the first positional word is batch_size: 64 // 8 = 8 accumulation steps.
    const named = run('python finetune.py 64 --base_model google/gemma-2-2b-it --micro_batch_size 8\n');
    assert.deepEqual([named?.model, named?.gradient_accumulation_steps], ['google/gemma-2-2b-it', 8]);
  });

  it('fire.Fire() of the whole module, or of a name that is no function here, reads no defaults', () => {
    for (const call of ['fire.Fire()', 'fire.Fire(main)']) {
      const r = analyzeHfPython(FINETUNE.replace('fire.Fire(train)', call));
      const model = r.facts.find((f) => f.key === 'model');
      assert.ok(model && typeof model.value === 'object' && model.value !== null && 'unknown' in model.value, call);
    }
  });

  it("a conditional on a parameter's default takes the launch line's value (jooinjang/on-device-LLM-demo)", () => {
    // `deepspeed=ds_config_file if ds_config_file else None` with `ds_config_file: str = None`: alone no DeepSpeed;
    // launched with `--ds_config_file ds_config.json`, that file's ZeRO stage 3.
    const script = FINETUNE.replace(
      '    lora_r: int = 8,',
      '    lora_r: int = 8,\n    ds_config_file: str = None,',
    ).replace(
      '            fp16=True,',
      '            fp16=True,\n            deepspeed=ds_config_file if ds_config_file else None,',
    );
    const files = {
      'finetune.py': script,
      'ds_config.json': '{"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto"}',
      'run.sh': 'torchrun --nproc_per_node=4 finetune.py --ds_config_file ds_config.json\n',
    };
    assert.equal(runProject(files, 'finetune.py').setup?.zero_stage, 0);
    const launched = runProject(files, 'run.sh');
    assert.deepEqual([launched.setup?.zero_stage, launched.setup?.gpus_per_node], [3, 4]);
  });
});
