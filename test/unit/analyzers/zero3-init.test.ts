// Whether a ZeRO-3 model is made inside deepspeed.zero.Init (src/analyzers/zero3-init.ts, the accelerate config's
// zero3_init_flag): a script's own Accelerate loop follows the flag; the HF Trainer's TrainingArguments hands
// DeepSpeed's config to from_pretrained whatever it says (transformers training_args.py __post_init__:
// DeepSpeedPlugin() then set_deepspeed_weakref()).
import * as assert from 'node:assert/strict';
import { analyzeAccelerateYaml } from '../../../src/analyzers/yaml';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline, type FileReader } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';
import { checkFacts, factOf } from './yaml-common.test';

const ACCELERATE = (flag: string) =>
  'distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\n' +
  `${flag}num_processes: 8\nmixed_precision: bf16\n`;

// A script's own loop over Llama-3.1-8B (Accelerate prepares the model it made first).
const LOOP =
  'import torch\nfrom accelerate import Accelerator\nfrom transformers import AutoModelForCausalLM\n' +
  'accelerator = Accelerator()\n' +
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16)\n' +
  'optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)\n' +
  'model, optimizer = accelerator.prepare(model, optimizer)\n' +
  'for batch in loader:\n    loss = model(**batch).loss\n    accelerator.backward(loss)\n    optimizer.step()\n';

// The same model through the HF Trainer.
const TRAINER =
  'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n' +
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")\n' +
  'Trainer(model=model, args=args).train()\n';

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p: string) => files[p],
  join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
});

function launch(config: string, script: string, line = 'accelerate launch --config_file ds.yaml train.py\n') {
  const files = { '/w/run.sh': line, '/w/ds.yaml': config, '/w/train.py': script };
  return runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
}

describe('analyzers: a ZeRO-3 model made inside deepspeed.zero.Init or before it', () => {
  it("reads Accelerate's zero3_init_flag at its line", () => {
    const text = ACCELERATE('  zero3_init_flag: false\n');
    checkFacts(analyzeAccelerateYaml(text), text, [['zero3Init', false, 'zero3_init_flag', 'false']]);
    assert.equal(factOf(analyzeAccelerateYaml(ACCELERATE('')), 'zero3Init'), undefined);
  });

  it("a script's own loop follows the flag: made first, so DeepSpeed 0.16.5 keeps its linear weights", () => {
    const r = launch(ACCELERATE('  zero3_init_flag: false\n'), LOOP);
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.zero3_init, false);
    assert.equal(r.provenance.zero3_init?.kind, 'file');
    const e = estimate({ ...r.setup!, deepspeed_version: '0.16.5', micro_batch_size: 1, seq_len: 2048 });
    assert.ok(e.ok);
    const kept = e.estimate.perGpu.components.find((c) => c.label.includes('linear weights kept for the backward'));
    // 32 layers x 218,103,808 linear weights (Llama-3.1-8B), in bf16
    assert.equal(kept?.inputs?.keptParams, 6_979_321_856);
  });

  it('the launch line can say it too (--zero3_init_flag false)', () => {
    const line = 'accelerate launch --config_file ds.yaml --zero3_init_flag false train.py\n';
    assert.equal(launch(ACCELERATE(''), LOOP, line).setup?.zero3_init, false);
  });

  it("PEFT's adapters: cast with the module when it was made first, fp32 under ZeRO-Init (DeepSpeed 0.19.2+)", () => {
    // engine.py _configure_distributed_model: only a model made under ZeRO-Init escapes the 16-bit cast
    // (deepspeedai/DeepSpeed#8066; src/analyzers/deepspeed-adapters.ts)
    const lora = LOOP.replace('import torch\n', 'import torch\nfrom peft import LoraConfig, get_peft_model\n').replace(
      'optimizer = ',
      'model = get_peft_model(model, LoraConfig(r=16, target_modules="all-linear"))\noptimizer = ',
    );
    const first = launch(ACCELERATE('  zero3_init_flag: false\n'), lora);
    assert.equal(first.setup?.method, 'lora');
    assert.equal(first.setup?.lora?.dtype, 'bf16');
    assert.equal(launch(ACCELERATE('  zero3_init_flag: true\n'), lora).setup?.lora?.dtype, 'fp32');
  });

  it('a 4-bit model is loaded outside ZeRO-Init, so DeepSpeed casts its adapters to bf16', () => {
    // modeling_utils.py: zero.Init only `if is_deepspeed_zero3_enabled() and not is_quantized`; engine.py then casts
    // the module it is handed. CPU truth zero/*-wide-*-qlora-* ran with bf16 adapters (tools/truth/FINDINGS.md §90).
    const qlora = TRAINER.replace(
      'from transformers import AutoModelForCausalLM,',
      'from peft import LoraConfig, get_peft_model\nfrom transformers import AutoModelForCausalLM, BitsAndBytesConfig,',
    ).replace(
      'from_pretrained("meta-llama/Llama-3.1-8B")\n',
      'from_pretrained("meta-llama/Llama-3.1-8B", quantization_config=BitsAndBytesConfig(load_in_4bit=True))\n' +
        'model = get_peft_model(model, LoraConfig(r=16, target_modules="all-linear"))\n',
    );
    const r = launch(ACCELERATE('  zero3_init_flag: true\n'), qlora);
    assert.equal(r.setup?.method, 'qlora');
    assert.equal(r.setup?.zero3_init, false);
    const p = r.provenance.zero3_init;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /quantized model outside deepspeed\.zero\.Init/);
    assert.equal(r.setup?.lora?.dtype, 'bf16');
  });

  it('the HF Trainer loads under ZeRO-Init whatever the flag says, and says why', () => {
    const r = launch(ACCELERATE('  zero3_init_flag: false\n'), TRAINER);
    assert.equal(r.setup?.zero3_init, true);
    const p = r.provenance.zero3_init;
    assert.equal(p?.kind, 'default');
    assert.match(
      p?.kind === 'default' ? (p.note ?? '') : '',
      /set_deepspeed_weakref.*zero3_init_flag in \/w\/ds\.yaml/,
    );
  });

  it('a Trainer script that loads its model before its arguments: made whole, whatever the flag says', () => {
    // The model first, then TrainingArguments (test/fixtures/same-run/accelerate/train.py has this order too)
    const first = TRAINER.replace(
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n' +
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")\n',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")\n' +
        'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n',
    );
    assert.notEqual(first, TRAINER);
    const r = launch(ACCELERATE('  zero3_init_flag: true\n'), first);
    assert.equal(r.setup?.zero3_init, false);
    assert.deepEqual(r.provenance.zero3_init, { kind: 'file', file: '/w/train.py', line: 2, key: 'from_pretrained' });
    // With a HfArgumentParser the parse makes the arguments; loading inside another function leaves the order unread.
    const parsed =
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      'def load():\n    return AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")\n' +
      'model = load()\n(args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()\n' +
      'Trainer(model=model, args=args).train()\n';
    assert.equal(launch(ACCELERATE('  zero3_init_flag: false\n'), parsed).setup?.zero3_init, true);
  });

  it("a parse of the script's own dataclasses alone makes no training arguments: the load before them is whole", () => {
    // codingchild2424/lm-trainer-v3 run_clm_dpo.py, shortened: `HfArgumentParser(ScriptArguments)` parses first, the
    // model loads, and only then `TrainingArguments(..., deepspeed=...)` is made.
    const script = (parser: string) =>
      'from dataclasses import dataclass\n' +
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments\n' +
      '@dataclass\nclass ScriptArguments:\n    model_name: str = "meta-llama/Llama-3.1-8B"\n' +
      `parser = HfArgumentParser(${parser})\n` +
      'script_args = parser.parse_args_into_dataclasses()[0]\n' +
      'model = AutoModelForCausalLM.from_pretrained(script_args.model_name)\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n' +
      'Trainer(model=model, args=args).train()\n';
    const own = launch(ACCELERATE('  zero3_init_flag: true\n'), script('ScriptArguments'));
    assert.equal(own.setup?.zero3_init, false);
    assert.deepEqual(own.provenance.zero3_init, { kind: 'file', file: '/w/train.py', line: 8, key: 'from_pretrained' });
    // Given TrainingArguments too, the parse makes them before the load.
    const both = launch(ACCELERATE('  zero3_init_flag: true\n'), script('(ScriptArguments, TrainingArguments)'));
    assert.equal(both.setup?.zero3_init, true);
  });
});

describe('analyzers: DeepSpeed with neither bf16 nor fp16 under the HF Trainer', () => {
  // transformers integrations/deepspeed.py trainer_config_process: fill_match("bf16.enabled", args.bf16 or
  // args.bf16_full_eval); DeepSpeed partition_parameters.py Init._set_dtype: bf16, else fp16, else torch.float.
  const DS = (stage: number) =>
    `{"zero_optimization": {"stage": ${stage}}, "bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto"}`;
  const script = (bf16: string) =>
    'import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
    `args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, deepspeed="ds.json"${bf16})\n` +
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16)\n' +
    'Trainer(model=model, args=args).train()\n';
  const run = (stage: number, bf16 = '') => {
    const line = 'deepspeed --num_gpus 8 train.py\n';
    const files = { '/w/run.sh': line, '/w/ds.json': DS(stage), '/w/train.py': script(bf16) };
    return runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
  };
  const note = (p: { kind: string; note?: string } | undefined) => (p?.kind === 'default' ? (p.note ?? '') : '');

  it('"auto" with the Trainer\'s bf16 unset is off: ZeRO-Init makes the bf16 checkpoint fp32 weights', () => {
    const r = run(3);
    assert.equal(r.setup?.mixed_precision, 'none');
    assert.equal(r.setup?.weights_dtype, 'fp32');
    assert.match(note(r.provenance.mixed_precision), /HF Trainer fills bf16\.enabled "auto" at ds\.json:1/);
    assert.match(note(r.provenance.weights_dtype), /Init\._set_dtype.*bf16 checkpoint/);
    const e = estimate({ ...r.setup!, seq_len: 1024 });
    assert.ok(e.ok);
    // 8,030,261,248 parameters (Llama-3.1-8B) x 4 B / 8 GPUs
    assert.equal(e.estimate.perGpu.components.find((c) => c.label === 'Weights')?.bytes, 4_015_130_624);
  });

  it("the Trainer's bf16=True fills it on: 16-bit weights with DeepSpeed's fp32 copy", () => {
    const r = run(3, ', bf16=True');
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.equal(r.setup?.master_weights, true);
  });

  it('at stage 2 the model is made outside ZeRO-Init and trains in the dtype it was loaded in', () => {
    const r = run(2);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.equal(r.setup?.mixed_precision, 'none');
    assert.match(note(r.provenance.mixed_precision), /neither bf16 nor fp16/);
  });
});

describe("analyzers: a loop's own deepspeed.initialize", () => {
  it("a loop that hands deepspeed.initialize its own from_pretrained gets a model made whole, at the load's line", () => {
    // liucongg/ChatGLM-Finetuning's train.py: from_pretrained, then `deepspeed.initialize(model=model, ...)`, with no
    // HfDeepSpeedConfig before the load.
    const ds = '{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3}, "bf16": {"enabled": true}}';
    const loop = (before: string) =>
      'import deepspeed, json\nfrom transformers import AutoModelForCausalLM, AutoConfig\n' +
      'ds_config = json.load(open("ds.json"))\n' +
      before +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")\n' +
      'model, optimizer, _, _ = deepspeed.initialize(model=model, config=ds_config)\n' +
      'for batch in loader:\n    loss = model(**batch).loss\n    model.backward(loss)\n    model.step()\n';
    const line = 'deepspeed --num_gpus 8 train.py\n';
    const runOf = (script: string) => {
      const files = { '/w/run.sh': line, '/w/ds.json': ds, '/w/train.py': script };
      return runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
    };
    const whole = runOf(loop(''));
    assert.equal(whole.setup?.zero_stage, 3);
    assert.equal(whole.setup?.zero3_init, false);
    assert.deepEqual(whole.provenance.zero3_init, {
      kind: 'file',
      file: '/w/train.py',
      line: 4,
      key: 'from_pretrained',
    });
    // transformers' integration made first: from_pretrained builds the model partitioned.
    const partitioned = runOf(loop('dschf = HfDeepSpeedConfig(ds_config)\n'));
    assert.notEqual(partitioned.setup?.zero3_init, false);
    // The class picked at run time there (`MODE[args.mode]["model"].from_pretrained(...)`) is a model load too.
    const picked = loop('').replace('AutoModelForCausalLM.from_pretrained', 'MODE[mode]["model"].from_pretrained');
    assert.ok(analyzeHfPython(picked).loopModelOutsideZeroInit);
  });
});
