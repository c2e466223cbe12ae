// A TRL trainer handed transformers' own TrainingArguments (src/analyzers/hf-python/plain-arguments.ts): the run keeps
// TrainingArguments' defaults, bf16=False and gradient_checkpointing=False, where TRL's configs default to bf16 = not
// fp16 and gradient_checkpointing=True. Source: trl 1.13.0 trl/trainer/sft_trainer.py lines 947-952
// (`elif isinstance(args, TrainingArguments) and not isinstance(args, SFTConfig): dict_args = args.to_dict(); ...
// args = SFTConfig(**dict_args)`) and trl/trainer/base_config.py line 105 (`self.bf16 = not (self.fp16) if self.bf16
// is None else self.bf16`): the False written out by to_dict() stays. The script is the notebook of
// nghdunggg/Finetuning-LLM-for-CyberSecurity-Using-MixLoRA (main.ipynb), cut to its training calls.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';

const reader = { read: () => undefined, join: (_f: string, r: string) => r };
const script = (args: string, config = 'TrainingArguments') =>
  'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments\n' +
  'from trl import SFTTrainer, SFTConfig\nfrom peft import LoraConfig\n' +
  'bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)\n' +
  'model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.3", quantization_config=bnb_config)\n' +
  'peft_config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")\n' +
  `training_args = ${config}(output_dir="o", per_device_train_batch_size=2, gradient_accumulation_steps=8${args})\n` +
  'trainer = SFTTrainer(model=model, train_dataset=ds, peft_config=peft_config, args=training_args)\n' +
  'trainer.train()\n';
const run = (text: string) => runPipeline([{ file: 'main.py', text }], reader, {});
const noteOf = (r: ReturnType<typeof run>, field: 'mixed_precision' | 'gradient_checkpointing'): string => {
  const p = r.provenance[field];
  return p?.kind === 'default' ? (p.note ?? '') : '';
};

describe("analyzers: a TRL trainer given transformers' TrainingArguments keeps their defaults", () => {
  it('no bf16 or gradient_checkpointing written: no autocast and no checkpointing, said as the defaults', () => {
    const r = run(script(''));
    assert.equal(r.setup?.mixed_precision, 'none');
    assert.equal(r.setup?.gradient_checkpointing, 'none');
    assert.match(noteOf(r, 'mixed_precision'), /TrainingArguments defaults bf16=False/);
    assert.match(noteOf(r, 'gradient_checkpointing'), /TrainingArguments defaults gradient_checkpointing=False/);
  });

  it('what the call writes is kept: gradient_checkpointing=True, fp16=True', () => {
    const r = run(script(', gradient_checkpointing=True, fp16=True'));
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    assert.equal(r.setup?.mixed_precision, 'fp16');
  });

  it("an SFTConfig keeps TRL's defaults: bf16 and checkpointing", () => {
    const r = run(script('', 'SFTConfig'));
    assert.equal(r.setup?.mixed_precision, 'bf16');
    assert.equal(r.setup?.gradient_checkpointing, 'full');
  });

  it("a file of the run that switches checkpointing on wins over the arguments' default", () => {
    // SabaPivot/kmmlu_summary (abridged): train/model.py calls Unsloth's get_peft_model with
    // use_gradient_checkpointing="unsloth"; train/main.py hands SFTTrainer a TrainingArguments without the key.
    const files: Record<string, string> = {
      '/p/main.py':
        'from transformers import TrainingArguments\nfrom trl import SFTTrainer\nfrom model import load_model\n' +
        'model, tokenizer = load_model()\n' +
        'args = TrainingArguments(output_dir="o", per_device_train_batch_size=2)\n' +
        'SFTTrainer(model=model, args=args).train()\n',
      '/p/model.py':
        'from unsloth import FastLanguageModel\ndef load_model():\n' +
        '    model, tok = FastLanguageModel.from_pretrained("unsloth/Qwen2.5-7B-Instruct", load_in_4bit=True)\n' +
        '    model = FastLanguageModel.get_peft_model(model, r=16, use_gradient_checkpointing="unsloth")\n' +
        '    return model, tok\n',
    };
    const reader = {
      read: (p: string) => files[p],
      join: (f: string, r: string) => `${f.slice(0, f.lastIndexOf('/'))}/${r}`,
    };
    const r = runPipeline([{ file: '/p/main.py', text: files['/p/main.py'] }], reader, {});
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    assert.equal(r.setup?.mixed_precision, 'none');
  });

  it('keywords spread from a dict not known statically may set them: nothing assumed at the call', () => {
    const r = run(script(', **extra'));
    assert.notEqual(noteOf(r, 'mixed_precision').includes('TrainingArguments defaults'), true);
    assert.notEqual(noteOf(r, 'gradient_checkpointing').includes('TrainingArguments defaults'), true);
  });
});

describe("analyzers: a project's own class named like a TRL config is not TRL's", () => {
  // 631068264/TigerBot's train/train_sft.py: `@dataclass class SFTConfig:` (its own fields) given to HfArgumentParser
  // beside TrainingArguments, and transformers.Trainer; TRL is not imported. The run keeps TrainingArguments'
  // defaults (gradient_checkpointing=False), not TRL's (True).
  const text = (cls: string, imports = 'import transformers\n') =>
    'from dataclasses import dataclass, field\n' +
    imports +
    '@dataclass\n' +
    `${cls}:\n` +
    '    model_name_or_path: str = field(default="meta-llama/Llama-2-7b-hf")\n' +
    'parser = transformers.HfArgumentParser((SFTConfig, transformers.TrainingArguments))\n' +
    'cfg, training_args = parser.parse_args_into_dataclasses()\n' +
    'model = transformers.AutoModelForCausalLM.from_pretrained(cfg.model_name_or_path)\n' +
    'transformers.Trainer(model=model, args=training_args).train()\n';

  it("its own dataclass: the HF Trainer's defaults", () => {
    const r = run(text('class SFTConfig'));
    assert.equal(r.setup?.gradient_checkpointing, 'none');
    const p = r.provenance.gradient_checkpointing;
    assert.equal(p?.kind === 'default' ? p.owner : p?.kind, 'hf-trainer');
  });

  it("a subclass of TRL's SFTConfig, or TRL's own imported, is TRL's", () => {
    const sub = run(text('class SFTConfig(trl.SFTConfig)', 'import transformers, trl\n'));
    assert.equal(sub.setup?.gradient_checkpointing, 'full');
    const imported = run(
      'import transformers\nfrom trl import SFTConfig\n' +
        'parser = transformers.HfArgumentParser((SFTConfig,))\n(cfg,) = parser.parse_args_into_dataclasses()\n' +
        'model = transformers.AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
        'transformers.Trainer(model=model, args=cfg).train()\n',
    );
    assert.equal(imported.setup?.gradient_checkpointing, 'full');
  });
});

describe("analyzers: a TRL config's field given to transformers' TrainingArguments", () => {
  // Navid-Gen-AI/llama3-orpo-lora-finetune's models/train_model.py: TrainingArguments(beta=0.1, max_length=1024,
  // max_prompt_length=512, ...) for an ORPOTrainer. The dataclass has none of them: TypeError when the script runs.
  it('is said at each field; a TRL config takes them', () => {
    const r = run(script(', beta=0.1, max_length=1024, max_prompt_length=512'));
    const said = r.problems.filter((p) => p.code === 'invalid-value').map((p) => p.message);
    assert.equal(said.length, 3, JSON.stringify(said));
    assert.match(said[0], /^beta: transformers' TrainingArguments has no beta .* raises TypeError/);
    const ok = run(script(', beta=0.1, max_length=1024', 'DPOConfig'));
    assert.ok(!ok.problems.some((p) => p.code === 'invalid-value'));
  });
});
