// Tests of the Python analyzer: worked cases per pattern (spans checked by slicing the text), the expected facts of
// our own fixture programs, and a fast-check property that mutated programs never make it throw or leave the text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { detectFormat } from '../../../src/analyzers/detect';
import { resolveText, runProject } from '../helpers';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';
import {
  isUnknown,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
} from '../../../src/analyzers/facts';

interface Want {
  key: CanonicalKey;
  /** The value, or 'unknown' for an unknown fact. */
  value: FactValue | 'unknown';
  /** Text expected at keySpan and valueSpan. */
  keyText?: string;
  valueText?: string;
  origin?: Fact['origin'];
}

function facts(r: ConfigFacts, key: CanonicalKey): Fact[] {
  return r.facts.filter((f) => f.key === key);
}

/** Analyzes `text` and checks that each wanted fact exists with its value and exact spans. */
function checkFacts(text: string, wants: Want[]): ConfigFacts {
  const r = analyzeHfPython(text);
  for (const w of wants) {
    const cands = facts(r, w.key).filter((f) =>
      w.value === 'unknown'
        ? isUnknown(f.value)
        : !isUnknown(f.value) && JSON.stringify(f.value) === JSON.stringify(w.value),
    );
    assert.ok(
      cands.length > 0,
      `${w.key} = ${JSON.stringify(w.value)} among ${JSON.stringify(facts(r, w.key).map((f) => f.value))}`,
    );
    const f =
      w.keyText === undefined ? cands[0] : cands.find((c) => text.slice(c.keySpan.start, c.keySpan.end) === w.keyText);
    assert.ok(f, `${w.key}: a fact whose key text is ${w.keyText}`);
    if (w.valueText !== undefined)
      assert.equal(text.slice(f.valueSpan.start, f.valueSpan.end), w.valueText, `${w.key} value span`);
    if (w.origin !== undefined) assert.equal(f.origin, w.origin, `${w.key} origin`);
  }
  return r;
}

function reason(r: ConfigFacts, key: CanonicalKey): string {
  const f = facts(r, key).find((x) => isUnknown(x.value));
  assert.ok(f, `an unknown ${key}`);
  return (f.value as { unknown: string }).unknown;
}

describe('analyzeHfPython', () => {
  it('from_config(AutoConfig.from_pretrained(id)) names the model: random weights of that architecture', () => {
    // huggingface/accelerate examples/torch_native_parallelism/fsdp2_fp8.py
    const r = analyzeHfPython(
      'MODEL_ID = "NousResearch/Hermes-3-Llama-3.1-8B"\n' +
        'model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(MODEL_ID, use_cache=False), ' +
        'torch_dtype=torch.bfloat16)\n',
    );
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'NousResearch/Hermes-3-Llama-3.1-8B');
    assert.equal(r.facts.find((f) => f.key === 'weightsDtype')?.value, 'bf16');
    // A config built in another way names no model.
    const none = analyzeHfPython('cfg = make_config()\nmodel = AutoModelForCausalLM.from_config(cfg)\n');
    assert.equal(
      none.facts.find((f) => f.key === 'model'),
      undefined,
    );
  });

  it('a name that holds a model class loads the model: the class the branch that runs sets (EhsanEslamiDev/GemmaTextToSQLSupervisedFT)', () => {
    // sft_sql.ipynb: the class chosen by the model id, as Google's Gemma 3 QLoRA guide writes it.
    const text = [
      'model_id = "google/gemma-3-1b-pt"',
      'if model_id == "google/gemma-3-1b-pt":',
      '    model_class = AutoModelForCausalLM',
      'else:',
      '    model_class = AutoModelForImageTextToText',
      'model = model_class.from_pretrained(model_id, torch_dtype=torch.bfloat16)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'google/gemma-3-1b-pt');
    assert.equal(r.facts.find((f) => f.key === 'weightsDtype')?.value, 'bf16');
    // The class a branch picks decides the head: a sequence classifier's score layer replaces the LM head.
    const cls = analyzeHfPython(
      text.replace('model_class = AutoModelForCausalLM', 'model_class = AutoModelForSequenceClassification'),
    );
    assert.equal(cls.facts.find((f) => f.key === 'head')?.value, 'seq_cls');
    const other = analyzeHfPython(text.replace('model_id == "google', 'model_id != "google'));
    assert.equal(
      other.facts.find((f) => f.key === 'head'),
      undefined,
    );
    // A name that holds anything else (a loader of the project) loads nothing the script names.
    const none = analyzeHfPython(text.replace(/model_class = \w+/g, 'model_class = make_loader()'));
    assert.equal(
      none.facts.find((f) => f.key === 'model'),
      undefined,
    );
  });

  it("warns where the script freezes its model (LLaVA's --tune_mm_mlp_adapter), unless that branch is known not to run", () => {
    // haotian-liu/LLaVA llava/train/train.py: the option is copied onto the config and the training arguments first
    // (which does not change it), then `if model_args.tune_mm_mlp_adapter: model.requires_grad_(False)`.
    const script = (dflt: string) =>
      [
        'from dataclasses import dataclass',
        'import transformers',
        '@dataclass',
        'class ModelArguments:',
        `    tune_mm_mlp_adapter: bool = ${dflt}`,
        'parser = transformers.HfArgumentParser((ModelArguments, transformers.TrainingArguments))',
        'model_args, training_args = parser.parse_args_into_dataclasses()',
        'model = transformers.AutoModelForCausalLM.from_pretrained("lmsys/vicuna-13b-v1.5")',
        'model.config.tune_mm_mlp_adapter = training_args.tune_mm_mlp_adapter = model_args.tune_mm_mlp_adapter',
        'if model_args.tune_mm_mlp_adapter:',
        '    model.requires_grad_(False)',
        '    for p in model.get_model().mm_projector.parameters():',
        '        p.requires_grad = True',
        'transformers.Trainer(model=model, args=training_args).train()',
        '',
      ].join('\n');
    const frozen = (t: string) =>
      analyzeHfPython(t).problems.filter((p) => p.code === 'not-modeled' && /requires_grad_/.test(p.message));
    assert.equal(frozen(script('False')).length, 0);
    const on = frozen(script('True'));
    assert.equal(on.length, 1);
    assert.equal(script('True').slice(on[0].span.start, on[0].span.end), 'model.requires_grad_(False)');
  });

  it('reads a plain TrainingArguments call with literal values', () => {
    const text =
      'from transformers import TrainingArguments\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, ' +
      'gradient_accumulation_steps=16, bf16=True, optim="adamw_torch_fused", ' +
      'gradient_checkpointing=True, learning_rate=2e-5)\n';
    const r = checkFacts(text, [
      { key: 'microBatchSize', value: 4, keyText: 'per_device_train_batch_size', valueText: '4' },
      { key: 'gradientAccumulationSteps', value: 16, keyText: 'gradient_accumulation_steps', valueText: '16' },
      { key: 'bf16', value: true, keyText: 'bf16', valueText: 'True' },
      { key: 'optimizer', value: 'adamw_fused', valueText: '"adamw_torch_fused"' },
      { key: 'gradientCheckpointing', value: 'full', valueText: 'True' },
    ]);
    assert.deepEqual(r.tools, ['hf-trainer']);
    assert.equal(
      r.facts.every((f) => f.tool === 'hf-trainer'),
      true,
    );
    assert.deepEqual(r.problems, []);
  });

  it('reads optim="adamw_torch_4bit" as torchao 4-bit AdamW, not plain AdamW', () => {
    const text =
      'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="o", optim="adamw_torch_4bit")\n';
    checkFacts(text, [{ key: 'optimizer', value: 'adamw_4bit', valueText: '"adamw_torch_4bit"' }]);
  });

  it('reads optim="rmsprop" as torch.optim.RMSprop, and leaves bitsandbytes\' RMSprop unmodeled', () => {
    // transformers OptimizerNames.RMSPROP builds torch.optim.RMSprop; rmsprop_bnb* are bitsandbytes' fused RMSprop.
    const text = (optim: string): string =>
      `from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="o", optim="${optim}")\n`;
    checkFacts(text('rmsprop'), [{ key: 'optimizer', value: 'rmsprop', valueText: '"rmsprop"' }]);
    checkFacts(text('rmsprop_bnb_8bit'), [
      { key: 'optimizer', value: 'rmsprop_bnb_8bit', valueText: '"rmsprop_bnb_8bit"' },
    ]);
  });

  it('flags PEFT methods other than LoRA and IA3 at the config call instead of estimating a full fine-tune in silence', () => {
    const text =
      'from peft import PromptTuningConfig\nconfig = PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=200)\n';
    const p = analyzeHfPython(text).problems.find((x) => x.code === 'not-modeled');
    assert.equal(p && text.slice(p.span.start, p.span.end), 'PromptTuningConfig');
    assert.equal(
      analyzeHfPython('c = LoraConfig(r=8)\n').problems.some((x) => x.code === 'not-modeled'),
      false,
    );
  });

  it('TRL GKD: the teacher from GKDConfig(teacher_model_name_or_path) or GKDTrainer(teacher_model="id"); beta as klBeta', () => {
    const cfg =
      'from trl import GKDConfig\nargs = GKDConfig(output_dir="o", teacher_model_name_or_path="Qwen/Qwen2.5-7B-Instruct", beta=0.3)\n';
    const f = analyzeHfPython(cfg);
    assert.equal(f.facts.find((x) => x.key === 'teacherModel')?.value, 'Qwen/Qwen2.5-7B-Instruct');
    assert.equal(f.facts.find((x) => x.key === 'klBeta')?.value, 0.3);
    // GKD is modeled (teacher, loss and the on-policy generation rounds): no not-modeled warning.
    assert.equal(
      f.problems.some((x) => x.code === 'not-modeled'),
      false,
    );
    const rounds = analyzeHfPython(cfg.replace('beta=0.3', 'beta=0.3, lmbda=0.0, max_new_tokens=256'));
    assert.deepEqual(
      ['onPolicyFraction', 'maxNewTokens'].map((k) => rounds.facts.find((x) => x.key === k)?.value),
      [0, 256],
    );
    const trainer =
      'from trl import GKDTrainer\ntrainer = GKDTrainer(model=model, teacher_model="Qwen/Qwen2.5-7B-Instruct", args=args)\n';
    assert.equal(
      analyzeHfPython(trainer).facts.find((x) => x.key === 'teacherModel')?.value,
      'Qwen/Qwen2.5-7B-Instruct',
    );
    // A teacher given as a model object was loaded elsewhere: nothing to read here.
    assert.equal(
      analyzeHfPython(trainer.replace('"Qwen/Qwen2.5-7B-Instruct"', 'teacher')).facts.some(
        (x) => x.key === 'teacherModel',
      ),
      false,
    );
  });

  it('reads LoraConfig(target_parameters=...): LoRA on bare expert parameters, located at the keyword', () => {
    const text =
      'from peft import LoraConfig\n' +
      'c = LoraConfig(r=16, target_modules="all-linear", ' +
      'target_parameters=["7.mlp.experts.gate_up_proj", "7.mlp.experts.down_proj"])\n';
    const r = analyzeHfPython(text);
    assert.equal(
      r.problems.some((x) => x.code === 'not-modeled'),
      false,
    );
    const f = r.facts.find((x) => x.key === 'loraTargetParameters');
    assert.deepEqual(f?.value, ['7.mlp.experts.gate_up_proj', '7.mlp.experts.down_proj']);
    assert.equal(f && text.slice(f.keySpan.start, f.keySpan.end), 'target_parameters');
  });

  it('reads a qualified call nested in Trainer(args=...)', () => {
    const text =
      'import transformers\n' +
      'trainer = transformers.Trainer(\n' +
      '    model=model,\n' +
      '    args=transformers.TrainingArguments(per_device_train_batch_size=2, fp16=True, ' +
      'gradient_checkpointing=False),\n' +
      ')\n';
    const r = checkFacts(text, [
      { key: 'microBatchSize', value: 2, keyText: 'per_device_train_batch_size', valueText: '2' },
      { key: 'fp16', value: true, valueText: 'True' },
      { key: 'gradientCheckpointing', value: 'none', valueText: 'False' },
    ]);
    assert.equal(facts(r, 'model').length, 0, 'a model object is not a model id');
  });

  it('follows a module-level constant and mentions its binding line', () => {
    const text =
      'BATCH = 8\nGAS = 4\n\ndef main():\n    return TrainingArguments(per_device_train_batch_size=BATCH, gradient_accumulation_steps=GAS)\n';
    const r = checkFacts(text, [
      { key: 'microBatchSize', value: 8, keyText: 'per_device_train_batch_size', valueText: 'BATCH' },
      { key: 'gradientAccumulationSteps', value: 4, valueText: 'GAS' },
    ]);
    const f = facts(r, 'microBatchSize')[0];
    assert.match(f.rawValue, /BATCH = 8 at line 1/);
    assert.ok(f.originSpan);
    assert.equal(text.slice(f.originSpan.start, f.originSpan.end), '8');
  });

  it('reads a dict(...) spread, with later item assignments and a conditional one', () => {
    const text = [
      'def main(args):',
      '    config_kwargs = dict(',
      '        per_device_train_batch_size=args.per_device_train_batch_size,',
      '        gradient_accumulation_steps=2,',
      '    )',
      '    config_kwargs["max_length"] = 4096',
      '    if args.long:',
      '        config_kwargs["gradient_checkpointing"] = False',
      '    return GRPOConfig(**config_kwargs)',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      {
        key: 'microBatchSize',
        value: 'unknown',
        keyText: 'per_device_train_batch_size',
        valueText: 'args.per_device_train_batch_size',
      },
      { key: 'gradientAccumulationSteps', value: 2, keyText: 'gradient_accumulation_steps', valueText: '2' },
      { key: 'seqLen', value: 4096, keyText: 'max_length', valueText: '4096' },
      { key: 'gradientCheckpointing', value: 'unknown', keyText: 'gradient_checkpointing', valueText: 'False' },
    ]);
    assert.equal(reason(r, 'gradientCheckpointing'), 'set conditionally at line 7');
    assert.deepEqual(r.tools, ['trl']);
    assert.ok(
      r.problems.some(
        (p) => p.code === 'not-static' && p.severity === 'info' && p.rawKey === 'per_device_train_batch_size',
      ),
    );
  });

  it('reads a {...} literal spread and reports an unreadable spread', () => {
    const text = 'common = {"bf16": True, **extra}\nargs = TrainingArguments(**common, **make_kwargs())\n';
    const r = checkFacts(text, [{ key: 'bf16', value: true, keyText: 'bf16', valueText: 'True' }]);
    assert.equal(r.problems.filter((p) => p.code === 'not-static').length, 2);
  });

  it('reports the field defaults of a dataclass that shadows TrainingArguments', () => {
    // FastChat's train_lora.py, cut: it builds its LoraConfig from these fields (PEFT imported).
    const text = [
      'from peft import LoraConfig, get_peft_model',
      '@dataclass',
      'class TrainingArguments(transformers.TrainingArguments):',
      '    cache_dir: Optional[str] = field(default=None)',
      '    optim: str = field(default="adamw_torch")',
      '    model_max_length: int = field(default=512, metadata={"help": "max length"})',
      '    gradient_checkpointing: bool = True',
      '',
      '@dataclass',
      'class LoraArguments:',
      '    lora_r: int = 64',
      '    lora_target_modules: List[str] = field(default_factory=lambda: ["q_proj", "v_proj"])',
      '    q_lora: bool = False',
      '',
      'parser = transformers.HfArgumentParser((TrainingArguments, LoraArguments))',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      { key: 'optimizer', value: 'adamw', keyText: 'optim', valueText: '"adamw_torch"', origin: 'dataclass-default' },
      { key: 'seqLen', value: 512, keyText: 'model_max_length', valueText: '512', origin: 'dataclass-default' },
      { key: 'gradientCheckpointing', value: 'full', keyText: 'gradient_checkpointing', valueText: 'True' },
      { key: 'loraR', value: 64, keyText: 'lora_r', valueText: '64', origin: 'dataclass-default' },
      { key: 'loraTargets', value: ['q_proj', 'v_proj'], valueText: '["q_proj", "v_proj"]' },
    ]);
    assert.equal(facts(r, 'quantBits').length, 0, 'q_lora=False sets nothing');
    assert.deepEqual(r.tools, ['hf-trainer']);
    // Without PEFT in the script the LoRA fields set no LoRA (tokarev-i-v/ScaleQuest's qpo_train/train.py keeps lora_r,
    // lora_alpha and lora_dropout in its ScriptArguments and trains the whole model).
    const unused = analyzeHfPython(text.replace('from peft import LoraConfig, get_peft_model\n', ''));
    assert.equal(facts(unused, 'loraR').length + facts(unused, 'loraTargets').length, 0);
    assert.equal(facts(unused, 'seqLen').length, 1);
  });

  it('gives the dataclass and argparse defaults as the reason of an attribute value', () => {
    const text = [
      '@dataclass',
      'class LoraArguments:',
      '    lora_r: int = 8',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--micro-batch", dest="micro", type=int, default=3)',
      'cfg = LoraConfig(r=lora_args.lora_r, lora_alpha=16)',
      'ta = TrainingArguments(per_device_train_batch_size=args.micro)',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      { key: 'loraR', value: 8, keyText: 'lora_r', origin: 'dataclass-default' },
      { key: 'loraR', value: 'unknown', keyText: 'r', valueText: 'lora_args.lora_r' },
      { key: 'loraAlpha', value: 16, valueText: '16' },
      { key: 'microBatchSize', value: 'unknown', valueText: 'args.micro' },
    ]);
    assert.match(reason(r, 'loraR'), /dataclass default is 8 \(line 3\)/);
    assert.match(reason(r, 'microBatchSize'), /argparse default is 3 \(line 5\)/);
  });

  it('reads LoraConfig and BitsAndBytesConfig, and calls LoRA over 4-bit weights QLoRA', () => {
    const text = [
      'bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", ' +
        'quantization_config=bnb, torch_dtype=torch.bfloat16, attn_implementation="flash_attention_2")',
      'tok = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")',
      'lora = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules="all-linear", modules_to_save=["lm_head"])',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      { key: 'quantBits', value: 4, keyText: 'load_in_4bit', valueText: 'True' },
      { key: 'quantType', value: 'nf4', valueText: '"nf4"' },
      { key: 'doubleQuant', value: true },
      { key: 'model', value: 'meta-llama/Llama-3.1-8B', valueText: '"meta-llama/Llama-3.1-8B"' },
      { key: 'weightsDtype', value: 'bf16', keyText: 'torch_dtype', valueText: 'torch.bfloat16' },
      { key: 'attention', value: 'flash', valueText: '"flash_attention_2"' },
      { key: 'loraR', value: 16, keyText: 'r', valueText: '16' },
      { key: 'loraAlpha', value: 32 },
      { key: 'loraDropout', value: 0.05 },
      { key: 'loraTargets', value: 'all-linear', valueText: '"all-linear"' },
      { key: 'loraModulesToSave', value: ['lm_head'] },
      { key: 'method', value: 'qlora', keyText: 'LoraConfig' },
    ]);
    assert.equal(facts(r, 'model').length, 1, 'the tokenizer id is not the model');
    assert.equal(facts(r, 'quantBits').length, 1, 'a BnB config passed by name is read once');
  });

  it('a modules_to_save set on a branch the file cannot decide is said at the call, not dropped silently', () => {
    // Qwen-1's finetune.py (QwenLM/Qwen@e8e15962): None for a chat model, ["wte", "lm_head"] for a base model.
    const text = [
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen-7B", torch_dtype=torch.bfloat16)',
      'if q_lora or "chat" in name.lower():',
      '    modules_to_save = None',
      'else:',
      '    modules_to_save = ["wte", "lm_head"]',
      'config = LoraConfig(r=64, target_modules=["c_attn"], modules_to_save=modules_to_save)',
      '',
    ].join('\n');
    const r = resolveText('/w/finetune.py', text);
    assert.equal((r.setup?.lora?.modules_to_save ?? []).length, 0);
    const p = r.problems.find((x) => x.code === 'not-static' && x.key === 'modules_to_save');
    assert.ok(p, 'a warning at modules_to_save');
    assert.equal(p.severity, 'warning');
    assert.equal(p.line, 6);
    assert.match(p.message, /modules_to_save is set conditionally at line 2\): the trained copies .* are not counted/);
    // An argparse option whose default is None saves nothing when the run passes none: no warning.
    const option = [
      'p = argparse.ArgumentParser()',
      'p.add_argument("--modules_to_save", type=str, nargs="+", default=None)',
      'args = p.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'config = LoraConfig(r=8, target_modules=["q_proj"], modules_to_save=args.modules_to_save)',
      '',
    ].join('\n');
    const quiet = resolveText('/w/train.py', option);
    assert.ok(!quiet.problems.some((x) => x.key === 'modules_to_save'));
  });

  it('`--target_modules all` through find_all_linear_names, on the `else` of `if args.peft_path is not None` (MedicalGPT)', () => {
    // shibing624/MedicalGPT training/supervised_finetuning.py: target_modules defaults to "all", which the script turns
    // into every linear layer's name; the branch runs because peft_path defaults to None (`None is not None` is False),
    // and modules_to_save stays None, which saves no module.
    const text = [
      'import torch',
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
      'from peft import LoraConfig, get_peft_model',
      '',
      '@dataclass',
      'class ScriptArguments:',
      '    use_peft: bool = field(default=True)',
      '    target_modules: Optional[str] = field(default="all")',
      '    modules_to_save: Optional[str] = field(default=None)',
      '    peft_path: Optional[str] = field(default=None)',
      '',
      'def find_all_linear_names(peft_model, int4=False, int8=False):',
      '    cls = torch.nn.Linear',
      '    lora_module_names = set()',
      '    for name, module in peft_model.named_modules():',
      '        if isinstance(module, cls):',
      "            if 'lm_head' in name:",
      '                continue',
      "            names = name.split('.')",
      '            lora_module_names.add(names[0] if len(names) == 1 else names[-1])',
      '    return sorted(lora_module_names)',
      '',
      'def main():',
      '    parser = HfArgumentParser((ScriptArguments, TrainingArguments))',
      '    script_args, training_args = parser.parse_args_into_dataclasses()',
      '    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      '    if script_args.use_peft:',
      '        if script_args.peft_path is not None:',
      '            model = PeftModel.from_pretrained(model, script_args.peft_path, is_trainable=True)',
      '        else:',
      "            target_modules = script_args.target_modules.split(',') if script_args.target_modules else None",
      "            if target_modules and 'all' in target_modules:",
      '                target_modules = find_all_linear_names(model)',
      '            modules_to_save = script_args.modules_to_save',
      '            if modules_to_save is not None:',
      "                modules_to_save = modules_to_save.split(',')",
      '            config = LoraConfig(r=8, target_modules=target_modules, modules_to_save=modules_to_save)',
      '            model = get_peft_model(model, config)',
      '    Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const r = resolveText('/w/supervised_finetuning.py', text);
    assert.equal(r.setup?.lora?.target_modules, 'all-linear');
    assert.deepEqual(r.setup?.lora?.modules_to_save ?? [], []);
    assert.ok(!r.problems.some((p) => p.key === 'target_modules' || p.key === 'modules_to_save'));
    // `is` and `is not` against None, True and False decide a branch; a string is not None.
    const method = (test: string): string | undefined =>
      resolveText(
        '/w/t.py',
        [
          'import argparse',
          'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
          'from peft import LoraConfig, get_peft_model',
          'p = argparse.ArgumentParser()',
          'p.add_argument("--adapter", type=str, default=None)',
          'p.add_argument("--lora", action="store_true")',
          'p.add_argument("--name", type=str, default="run")',
          'args = p.parse_args()',
          'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
          `if ${test}:`,
          '    model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj"]))',
          'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
          '',
        ].join('\n'),
      ).setup?.method;
    assert.equal(method('args.adapter is None'), 'lora');
    assert.equal(method('args.adapter is not None'), 'full');
    assert.equal(method('args.lora is False'), 'lora');
    assert.equal(method('args.lora is not False'), 'full');
    assert.equal(method('args.name is None'), 'full');
  });

  it('`parser.parse_args_into_dataclasses(...)[0]` holds the parsed options (MedicalGPT dpo_training.py)', () => {
    const text = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForCausalLM, HfArgumentParser',
      'from trl import DPOConfig',
      '@dataclass',
      'class ScriptArguments:',
      '    max_source_length: int = field(default=1024)',
      '    max_target_length: int = field(default=512)',
      'parser = HfArgumentParser(ScriptArguments)',
      'args = parser.parse_args_into_dataclasses(return_remaining_strings=True)[0]',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'config = DPOConfig(output_dir="o", max_length=args.max_source_length + args.max_target_length)',
      '',
    ].join('\n');
    assert.equal(resolveText('/w/dpo.py', text).setup?.seq_len, 1536);
    // Another index is not the first dataclass: the script's sum is not known, and the arguments' own pair stands,
    // 1024 + 512 at max_target_length (a prompt and its response together), not DPOConfig's default.
    const other = resolveText('/w/dpo.py', text.replace(')[0]', ')[1]'));
    assert.equal(other.setup?.seq_len, 1536);
    assert.deepEqual(other.provenance.seq_len, {
      kind: 'file',
      file: '/w/dpo.py',
      line: 7,
      key: 'max_source_length + max_target_length',
    });
  });

  it("ReFT (pyreft's get_reft_model) is a method that is not modeled: a warning at the call, not a silent full fine-tune", () => {
    // stanfordnlp/pyreft examples/alpaca/train.py: reft_model = get_reft_model(model, reft_config).
    const text =
      'import torch, transformers\nfrom pyreft import ReftConfig, get_reft_model\n' +
      'model = transformers.AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b", torch_dtype=torch.bfloat16)\n' +
      'reft_config = ReftConfig(representations=[])\nreft_model = get_reft_model(model, reft_config)\n';
    const r = analyzeHfPython(text);
    const warned = r.problems
      .filter((p) => p.code === 'not-modeled' && !/^no Trainer/.test(p.message))
      .map((p) => text.slice(p.span.start, p.span.end));
    assert.deepEqual(warned, ['ReftConfig', 'get_reft_model']);
  });

  it("arithmetic of known numbers and `x op= y`: MedicalGPT's DPO length, XTuner's accumulation", () => {
    // shibing624/MedicalGPT training/dpo_training.py: full_max_length = max_source_length + max_target_length,
    // passed as DPOConfig(max_length=...); with the argparse defaults 1024 and 512 that is 1536.
    const dpo = [
      'import argparse',
      'from trl import DPOConfig',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--max_source_length", type=int, default=1024)',
      'p.add_argument("--max_target_length", type=int, default=512)',
      'args = p.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'full_max_length = args.max_source_length + args.max_target_length',
      'config = DPOConfig(output_dir="o", max_length=full_max_length)',
      '',
    ].join('\n');
    // Computed from options, the sum is read again with the options as the run has them: the defaults here, the
    // launch line's where one passes them (a launch line's --max_source_length replaces that option, not the sum).
    assert.match(
      JSON.stringify(facts(analyzeHfPython(dpo), 'seqLen').pop()?.value),
      /computed from the script's options/,
    );
    assert.equal(resolveText('/w/dpo.py', dpo).setup?.seq_len, 1536);
    // InternLM/xtuner configs: accumulative_counts = 16, then *= sequence_parallel_size (1); 64 // 4 - 2 = 14.
    const aug = (body: string): unknown =>
      facts(analyzeHfPython(`from transformers import TrainingArguments\n${body}`), 'gradientAccumulationSteps').pop()
        ?.value;
    assert.equal(
      aug('sp = 1\nn = 16\nn *= sp\nTrainingArguments(output_dir="o", gradient_accumulation_steps=n)\n'),
      16,
    );
    assert.equal(aug('n = 64 // 4 - 2\nTrainingArguments(output_dir="o", gradient_accumulation_steps=n)\n'), 14);
    // In a loop the update runs any number of times: unknown, not one application.
    const looped = aug(
      'n = 2\nfor i in range(3):\n    n *= 2\nTrainingArguments(output_dir="o", gradient_accumulation_steps=n)\n',
    );
    assert.ok(typeof looped === 'object' && looped !== null && 'unknown' in looped);
    // A division by zero is no number.
    const zero = aug('n = 4 // 0\nTrainingArguments(output_dir="o", gradient_accumulation_steps=n)\n');
    assert.ok(typeof zero === 'object' && zero !== null && 'unknown' in zero);
  });

  it('reads prepare_model_for_kbit_training: fp32 upcast of unquantized parameters, and checkpointing it turns on', () => {
    // peft/utils/other.py: every non-4/8-bit parameter to fp32; use_gradient_checkpointing defaults to True and enables
    // checkpointing on a 4/8-bit model, which TrainingArguments(gradient_checkpointing=False) does not undo.
    const load = 'model = AutoModelForCausalLM.from_pretrained("gpt2", load_in_4bit=True)\n';
    const text = [
      'model = prepare_model_for_kbit_training(model)',
      'args = TrainingArguments(output_dir="o", gradient_checkpointing=False, bf16=True)',
      '',
    ].join('\n');
    const r = checkFacts(load + text, [
      { key: 'kbitUpcast', value: 'all', keyText: 'prepare_model_for_kbit_training' },
      {
        key: 'gradientCheckpointing',
        value: 'full',
        keyText: 'prepare_model_for_kbit_training',
        origin: 'call-default',
      },
    ]);
    const gc = facts(r, 'gradientCheckpointing');
    assert.equal(gc[gc.length - 1].value, 'full', 'the call decides over the training arguments');
    const off = analyzeHfPython(
      `${load}m = peft.prepare_model_for_kbit_training(m, use_gradient_checkpointing=False)\nargs = TrainingArguments(gradient_checkpointing=False)\n`,
    );
    assert.deepEqual(
      facts(off, 'gradientCheckpointing').map((f) => f.value),
      ['none'],
      'use_gradient_checkpointing=False leaves it to the arguments',
    );
    assert.deepEqual(
      facts(off, 'kbitUpcast').map((f) => f.value),
      ['all'],
    );
    // Its older name, an alias of it from PEFT 0.4 until PEFT removed it (peft/utils/other.py "For backward
    // compatibility"): songxiaoshuai/postEdit's finetune.py calls prepare_model_for_int8_training(model).
    const older = analyzeHfPython(`${load}model = prepare_model_for_int8_training(model)\n`);
    assert.deepEqual(
      [facts(older, 'kbitUpcast').map((f) => f.value), facts(older, 'gradientCheckpointing').map((f) => f.value)],
      [['all'], ['full']],
    );
  });

  it('prepare_model_for_kbit_training on a model no setting of the file quantizes: the fp32 cast, no checkpointing', () => {
    // PEFT turns checkpointing on only `if loaded_in_kbit` (peft/utils/other.py); the cast runs for any model
    // (devikamsba2024/WSDM_ChatbotArena's gemma-2-2b classifier notebook). A 4/8-bit load in another file still
    // turns it on (resolve/method.ts resolveKbitCheckpointing).
    const text = [
      'model = AutoModelForSequenceClassification.from_pretrained("google/gemma-2-2b", torch_dtype=torch.bfloat16)',
      'model = prepare_model_for_kbit_training(model)',
      'args = TrainingArguments(output_dir="o", fp16=True)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.deepEqual(
      facts(r, 'kbitUpcast').map((f) => f.value),
      ['all'],
    );
    assert.deepEqual(facts(r, 'gradientCheckpointing'), []);
    assert.deepEqual(
      facts(r, 'kbitUpcastWhenQuantized').map((f) => f.value),
      ['all-checkpointed'],
    );
    assert.equal(resolveText('train.py', text).setup?.gradient_checkpointing, 'none');
  });

  it('makes the library defaults of BitsAndBytesConfig and LoraConfig explicit', () => {
    const text =
      'q = BitsAndBytesConfig(load_in_4bit=True)\nl = LoraConfig()\nm = AutoModelForCausalLM.from_pretrained("gpt2", load_in_8bit=True)\n';
    const r = checkFacts(text, [
      { key: 'quantType', value: 'fp4', keyText: 'BitsAndBytesConfig', origin: 'call-default' },
      { key: 'doubleQuant', value: false, origin: 'call-default' },
      { key: 'loraR', value: 8, keyText: 'LoraConfig', origin: 'call-default' },
      { key: 'loraAlpha', value: 8, origin: 'call-default' },
      { key: 'quantBits', value: 8, keyText: 'load_in_8bit' },
    ]);
    assert.equal(facts(r, 'method')[0].value, 'qlora');
  });

  it('marks 4-bit loading that depends on a flag as unknown but keeps the quantization type', () => {
    const text =
      'm = AutoModelForCausalLM.from_pretrained(\n' +
      '    path,\n' +
      '    quantization_config=BitsAndBytesConfig(load_in_4bit=True, ' +
      'bnb_4bit_quant_type="nf4") if args.q_lora else None,\n' +
      ')\n';
    const r = checkFacts(text, [
      { key: 'quantBits', value: 'unknown', keyText: 'load_in_4bit' },
      { key: 'quantType', value: 'nf4' },
      { key: 'model', value: 'unknown', valueText: 'path' },
    ]);
    assert.match(reason(r, 'quantBits'), /args\.q_lora is true \(line 3\)/);
    assert.equal(facts(r, 'quantBits').length, 1);
  });

  it('reads PEFT IA3Config as method ia3 with its target and feed-forward modules', () => {
    const text =
      'from peft import IA3Config, get_peft_model\n' +
      'cfg = IA3Config(task_type="CAUSAL_LM", target_modules=["k_proj", "v_proj", ' +
      '"down_proj"], feedforward_modules=["down_proj"])\n';
    checkFacts(text, [
      { key: 'method', value: 'ia3', keyText: 'IA3Config', valueText: 'IA3Config' },
      { key: 'ia3Targets', value: ['k_proj', 'v_proj', 'down_proj'], keyText: 'target_modules' },
      { key: 'ia3Feedforward', value: ['down_proj'], keyText: 'feedforward_modules' },
    ]);
  });

  it('reads SFTConfig packing as fixed-length batches (and packing=False as per-batch padding)', () => {
    checkFacts('from trl import SFTConfig\ncfg = SFTConfig(output_dir="o", packing=True)\n', [
      { key: 'batchLengths', value: 'fixed', keyText: 'packing', valueText: 'True' },
      // Packed rows are told apart by position ids, from which transformers builds an attention mask.
      { key: 'paddedBatches', value: true, keyText: 'packing', valueText: 'True' },
    ]);
    checkFacts('from trl import SFTConfig\ncfg = SFTConfig(output_dir="o", packing=False)\n', [
      { key: 'batchLengths', value: 'variable', keyText: 'packing', valueText: 'False' },
    ]);
  });

  it('reads a padding collator as variable-length batches and padding="max_length" as fixed ones (not in comments)', () => {
    const collator =
      'from transformers import DataCollatorForSeq2Seq\n' +
      '# padding="max_length" would pad every batch\n' +
      'collator = DataCollatorForSeq2Seq(tokenizer, model=model, pad_to_multiple_of=8)\n';
    const r = checkFacts(collator, [
      {
        key: 'batchLengths',
        value: 'variable',
        keyText: 'DataCollatorForSeq2Seq',
        valueText: 'DataCollatorForSeq2Seq',
      },
    ]);
    assert.equal(facts(r, 'batchLengths').length, 1);
    const padded =
      'enc = tokenizer(batch["text"], padding="max_length", truncation=True, max_length=512)\ncollator = DataCollatorWithPadding(tokenizer)\n';
    const p = checkFacts(padded, [
      { key: 'batchLengths', value: 'fixed', keyText: 'padding', valueText: '"max_length"' },
      { key: 'paddedBatches', value: true, keyText: 'padding', valueText: '"max_length"' },
    ]);
    assert.equal(
      facts(p, 'batchLengths').length,
      1,
      'the tokenizer pads to max_length, so the collator has nothing to pad',
    );
  });

  it('leaves the TRL defaults to resolve and records the trl tool', () => {
    const text =
      'from trl import SFTConfig\n' +
      'cfg = SFTConfig(output_dir="o", per_device_train_batch_size=2, max_length=2048, ' +
      'activation_offloading=True, use_liger_kernel=True, torch_compile=True)\n';
    const r = checkFacts(text, [
      { key: 'microBatchSize', value: 2 },
      { key: 'seqLen', value: 2048, keyText: 'max_length', valueText: '2048' },
      { key: 'activationOffloading', value: true },
      { key: 'loss', value: 'fused', keyText: 'use_liger_kernel' },
      { key: 'compile', value: true },
    ]);
    assert.deepEqual(r.tools, ['trl']);
    assert.equal(facts(r, 'bf16').length, 0, 'bf16 is not written, so resolve applies the TRL default');
    assert.equal(facts(r, 'gradientCheckpointing').length, 0);
    assert.ok(r.facts.every((f) => f.tool === 'trl'));
  });

  it('reads model_init_kwargs, ModelConfig and a trainer model id', () => {
    const text = [
      'cfg = trl.DPOConfig(model_init_kwargs={"dtype": "bfloat16", "attn_implementation": "sdpa"}, max_length=1024)',
      'mc = ModelConfig(model_name_or_path="Qwen/Qwen2-0.5B", use_peft=True, lora_r=32, load_in_4bit=True)',
      'trainer = DPOTrainer(model="Qwen/Qwen2-0.5B-Instruct", args=cfg)',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      { key: 'weightsDtype', value: 'bf16', keyText: 'dtype', valueText: '"bfloat16"' },
      { key: 'attention', value: 'sdpa', keyText: 'attn_implementation' },
      { key: 'seqLen', value: 1024 },
      { key: 'model', value: 'Qwen/Qwen2-0.5B', keyText: 'model_name_or_path' },
      { key: 'model', value: 'Qwen/Qwen2-0.5B-Instruct', keyText: 'model', valueText: '"Qwen/Qwen2-0.5B-Instruct"' },
      { key: 'loraR', value: 32, keyText: 'lora_r' },
      { key: 'quantBits', value: 4 },
      { key: 'method', value: 'qlora', keyText: 'use_peft' },
    ]);
    assert.deepEqual(r.tools, ['trl']);
  });

  it('turns f-strings, parameters, attributes, conditionals and run-time values into unknowns with reasons', () => {
    const text = [
      'def build(bs, ds_path="ds.json"):',
      '    gas = 4 if bs < 8 else 1',
      '    return TrainingArguments(',
      '        output_dir=f"out/{bs}",',
      '        per_device_train_batch_size=bs,',
      '        gradient_accumulation_steps=gas,',
      '        deepspeed=f"configs/{ds_path}",',
      '        optim=cfg.optimizer,',
      '        bf16=torch.cuda.device_count() > 1,',
      '    )',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      { key: 'microBatchSize', value: 'unknown', valueText: 'bs' },
      { key: 'gradientAccumulationSteps', value: 'unknown', valueText: 'gas' },
      { key: 'deepspeedConfig', value: 'unknown', valueText: 'f"configs/{ds_path}"' },
      { key: 'optimizer', value: 'unknown', valueText: 'cfg.optimizer' },
      { key: 'bf16', value: 'unknown' },
    ]);
    assert.match(reason(r, 'microBatchSize'), /parameter of build\(\)/);
    assert.match(reason(r, 'gradientAccumulationSteps'), /chosen at run time/);
    assert.match(reason(r, 'deepspeedConfig'), /f-string/);
    assert.equal(r.references.length, 0);
    assert.equal(r.problems.filter((p) => p.code === 'not-static').length, 5);
  });

  it('treats a name assigned under if as unknown', () => {
    const text = 'bs = 4\nif big:\n    bs = 1\nargs = TrainingArguments(per_device_train_batch_size=bs)\n';
    const r = checkFacts(text, [{ key: 'microBatchSize', value: 'unknown', valueText: 'bs' }]);
    assert.match(reason(r, 'microBatchSize'), /set conditionally at line 2/);
  });

  it('ignores calls inside docstrings and comments', () => {
    const text =
      '"""Usage:\n    TrainingArguments(per_device_train_batch_size=64)\n"""\n# SFTConfig(max_length=99)\nx = "LoraConfig(r=4)"\n';
    const r = analyzeHfPython(text);
    assert.deepEqual(r.facts, []);
    assert.deepEqual(r.tools, []);
    assert.deepEqual(r.problems, []);
  });

  it('keeps UTF-16 offsets after astral and BMP characters', () => {
    const text =
      '"""Fine-tune with 🤗 peft — fast, 🤗 again."""\n' +
      '# café — naïve\n' +
      'args = TrainingArguments(per_device_train_batch_size=3, optim="paged_adamw_8bit")\n';
    const r = checkFacts(text, [
      { key: 'microBatchSize', value: 3, keyText: 'per_device_train_batch_size', valueText: '3' },
      { key: 'optimizer', value: 'paged_adamw_8bit', keyText: 'optim', valueText: '"paged_adamw_8bit"' },
    ]);
    assert.equal(facts(r, 'microBatchSize')[0].keySpan.start, text.indexOf('per_device_train_batch_size'));
  });

  it('handles CRLF line endings', () => {
    const text =
      'bs = 2\r\nargs = TrainingArguments(\r\n    per_device_train_batch_size=bs,\r\n    fp16=True,\r\n)\r\n';
    checkFacts(text, [
      { key: 'microBatchSize', value: 2, valueText: 'bs' },
      { key: 'fp16', value: true, valueText: 'True' },
    ]);
  });

  it('reads deepspeed paths as references and inline configs as unknown', () => {
    const text =
      'a = TrainingArguments(deepspeed="./ds_zero3.json")\n' +
      'b = TrainingArguments(deepspeed=\'{"zero_optimization": {"stage": 3}}\')\n' +
      'c = TrainingArguments(deepspeed={"train_batch_size": "auto"})\n';
    const r = checkFacts(text, [{ key: 'deepspeedConfig', value: './ds_zero3.json', valueText: '"./ds_zero3.json"' }]);
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path, text.slice(x.span.start, x.span.end)]),
      [['deepspeed', './ds_zero3.json', '"./ds_zero3.json"']],
    );
    assert.equal(facts(r, 'deepspeedConfig').filter((f) => isUnknown(f.value)).length, 2);
  });

  it('reads fsdp in its string, list and bool forms', () => {
    const text =
      'a = TrainingArguments(fsdp="full_shard auto_wrap")\n' +
      'b = TrainingArguments(fsdp="shard_grad_op offload")\n' +
      'c = TrainingArguments(fsdp=True)\n' +
      'd = TrainingArguments(fsdp="offload")\n' +
      // No sharding option: the Trainer still turns FSDP on, Accelerate's plugin shards FULL_SHARD by default.
      'e = TrainingArguments(fsdp="auto_wrap")\n';
    const r = analyzeHfPython(text);
    assert.deepEqual(
      facts(r, 'fsdp').map((f) => f.value),
      ['full_shard', 'shard_grad_op', 'full_shard', { unknown: 'offload without a sharding mode' }, 'full_shard'],
    );
    assert.deepEqual(
      facts(r, 'fsdpOffload').map((f) => f.value),
      [true, true],
    );
    assert.ok(r.problems.some((p) => p.code === 'invalid-value' && p.rawKey === 'fsdp'));
  });

  it('flags bf16=True with fp16=True in one call', () => {
    const text = 'args = TrainingArguments(bf16=True, fp16=True)\nother = TrainingArguments(bf16=True)\n';
    const r = analyzeHfPython(text);
    const p = r.problems.filter((x) => x.code === 'conflicting-precision');
    assert.equal(p.length, 1);
    assert.equal(text.slice(p[0].span.start, p[0].span.end), 'fp16=True');
  });

  it('maps dtypes and attention implementations', () => {
    const text = [
      'a = AutoModelForCausalLM.from_pretrained("m", torch_dtype=torch.float16, attn_implementation="eager")',
      'b = LlamaForCausalLM.from_pretrained("m", dtype="auto", attn_implementation="kernels-community/flash-attn3")',
      'c = AutoModel.from_pretrained(pretrained_model_name_or_path="org/enc", dtype=torch.float32)',
      'd = PeftModel.from_pretrained(a, "org/adapter")',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.deepEqual(
      facts(r, 'weightsDtype').map((f) => (isUnknown(f.value) ? 'unknown' : f.value)),
      ['fp16', 'unknown', 'fp32'],
    );
    assert.deepEqual(
      facts(r, 'attention').map((f) => f.value),
      ['eager', 'flash'],
    );
    assert.deepEqual(
      facts(r, 'model').map((f) => f.value),
      ['m', 'm', 'org/enc'],
    );
  });

  it('reports invalid literal types', () => {
    const r = analyzeHfPython('args = TrainingArguments(per_device_train_batch_size="4", bf16="yes")\n');
    assert.equal(r.problems.filter((p) => p.code === 'invalid-value').length, 2);
    assert.ok(facts(r, 'microBatchSize').every((f) => isUnknown(f.value)));
  });

  it('reports a syntax error only when it is inside a training call', () => {
    const inCall = analyzeHfPython('args = TrainingArguments(per_device_train_batch_size=4, fp16=\n');
    assert.ok(inCall.problems.some((p) => p.code === 'syntax-error' && p.severity === 'error'));
    assert.equal(facts(inCall, 'microBatchSize')[0].value, 4);
    const elsewhere = analyzeHfPython(
      'def broken(:\n    pass\nargs = TrainingArguments(per_device_train_batch_size=4)\n',
    );
    assert.equal(elsewhere.problems.filter((p) => p.code === 'syntax-error').length, 0);
  });

  it('never throws on empty, binary or deeply nested input', () => {
    for (const t of [
      '',
      '\0\x01\x02',
      '('.repeat(5000),
      'x = ' + '['.repeat(3000),
      'TrainingArguments(' + 'a='.repeat(2000),
      '"""unterminated',
      '\uD83E',
      'a = b = c = TrainingArguments(bf16=a)\n',
    ]) {
      const r = analyzeHfPython(t);
      assert.equal(r.format, 'hf-python');
    }
  });
});

// Our own fixture programs: each has an expected file written by reading the program.
const fixturesDir = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'hf-python');
const expectedDir = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'corpus-expected', 'hf-python');

/** The value resolve would take from one file: the last known fact of the key, else an unknown one. */
function decided(r: ConfigFacts, key: CanonicalKey): unknown {
  const fs = facts(r, key);
  const known = fs.filter((f) => !isUnknown(f.value));
  if (known.length) return known[known.length - 1].value;
  return fs.length ? { unknown: true } : undefined;
}

// The Unsloth notebook pattern (unsloth README, "Finetune for Free" notebooks): a pre-quantized model, LoRA on the
// seven projections, Unsloth's offloaded checkpointing, TRL's SFTTrainer.
const UNSLOTH_NOTEBOOK = `from unsloth import FastLanguageModel
from trl import SFTTrainer, SFTConfig

max_seq_length = 2048
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "unsloth/Meta-Llama-3.1-8B-bnb-4bit",
    max_seq_length = max_seq_length,
    dtype = None,
    load_in_4bit = True,
)
model = FastLanguageModel.get_peft_model(
    model,
    r = 16,
    target_modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha = 16,
    lora_dropout = 0,
    use_gradient_checkpointing = "unsloth",
)
trainer = SFTTrainer(
    model = model,
    train_dataset = dataset,
    args = SFTConfig(
        per_device_train_batch_size = 2,
        gradient_accumulation_steps = 4,
        max_steps = 60,
        optim = "adamw_8bit",
        output_dir = "outputs",
    ),
)
`;

describe('analyzeHfPython: Unsloth scripts', () => {
  it('a 4-bit upload loaded with load_in_4bit=False is its 16-bit upload (Unsloth INT_TO_FLOAT_MAPPER)', () => {
    // GauravASY/Lllama3_Instruct_Finetune's notebook: unsloth/models/loader_utils.py __get_model_name maps the 4-bit
    // name to `unsloth/Llama-3.2-1B-Instruct` when load_in_4bit is False: plain 16-bit LoRA, no NF4 weights.
    const load = (four: string) =>
      resolveText(
        '/w/train.py',
        'from unsloth import FastLanguageModel\n' +
          'model, tokenizer = FastLanguageModel.from_pretrained(model_name="unsloth/Llama-3.2-1B-Instruct-unsloth-bnb-4bit", ' +
          `max_seq_length=2048, load_in_4bit=${four})\n` +
          'model = FastLanguageModel.get_peft_model(model, r=16)\n',
      ).setup;
    const sixteen = load('False');
    assert.equal(sixteen?.model, 'unsloth/Llama-3.2-1B-Instruct');
    assert.equal(sixteen?.quantization, undefined);
    assert.equal(load('True')?.quantization?.bits, 4);
  });

  it("gpt-oss in 4 bits, as Unsloth's notebook trains it: the published 14 GB (20b) and 65 GB (120b)", () => {
    // unsloth.ai's gpt-oss guide (August 2025): gpt-oss-20b QLoRA fits in 14 GB of VRAM, gpt-oss-120b in 65 GB, with its
    // notebook's setup (r 8 on q/k/v/o, batch 1 with accumulation 4, 1,024 tokens, adamw_8bit). Unsloth loads the
    // experts as per-expert 4-bit linears (unsloth_zoo temporary_patches/gpt_oss.py GptOssExpertsBnb4bit).
    const notebook = (id: string) => `from unsloth import FastLanguageModel
from trl import SFTConfig, SFTTrainer
model, tokenizer = FastLanguageModel.from_pretrained(model_name="${id}", dtype=None, max_seq_length=1024,
    load_in_4bit=True, full_finetuning=False)
model = FastLanguageModel.get_peft_model(model, r=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
    lora_alpha=16, lora_dropout=0, use_gradient_checkpointing="unsloth")
trainer = SFTTrainer(model=model, args=SFTConfig(per_device_train_batch_size=1, gradient_accumulation_steps=4,
    optim="adamw_8bit"))
trainer.train()
`;
    const device = (id: string): number => {
      const r = resolveText('gpt_oss.py', notebook(id));
      const e = estimate(r.setup!, { provenance: r.provenance });
      assert.ok(e.ok);
      return e.estimate.perGpu.deviceBytes / 1e9;
    };
    const small = device('unsloth/gpt-oss-20b');
    const large = device('unsloth/gpt-oss-120b');
    assert.ok(Math.abs(small - 14) / 14 < 0.05, `${small} GB`);
    assert.ok(Math.abs(large - 65) / 65 < 0.05, `${large} GB`);
  });

  it("a preference trainer over an Unsloth model takes the logits: Unsloth's fused loss needs labels", () => {
    // NickKornienko/CMPE-297-HW3's DPO_Zephyr_Unsloth_Example.ipynb: TRL's DPOTrainer over an Unsloth model. Unsloth's
    // fused cross-entropy runs only where the model is given labels (unsloth/models/llama.py CausalLM_fast_forward);
    // DPO calls it without and takes the log-probabilities of the logits, so the loss is not the fused one.
    const dpo = UNSLOTH_NOTEBOOK.replace(
      'from trl import SFTTrainer, SFTConfig',
      'from trl import DPOTrainer, DPOConfig',
    )
      .replace('trainer = SFTTrainer(', 'trainer = DPOTrainer(\n    ref_model = None,')
      .replace('args = SFTConfig(', 'args = DPOConfig(');
    const r = resolveText('dpo.py', dpo);
    assert.ok(r.setup?.preference);
    assert.equal(r.setup?.loss, 'full');
    const p = r.provenance.loss;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /a preference trainer calls it without/);
    // SFT keeps Unsloth's fused loss.
    assert.equal(resolveText('sft.py', UNSLOTH_NOTEBOOK).setup?.loss, 'fused');
  });

  it('reads FastLanguageModel.from_pretrained and get_peft_model of the notebook pattern', () => {
    const r = checkFacts(UNSLOTH_NOTEBOOK, [
      {
        key: 'model',
        value: 'unsloth/Meta-Llama-3.1-8B-bnb-4bit',
        keyText: 'model_name',
        valueText: '"unsloth/Meta-Llama-3.1-8B-bnb-4bit"',
      },
      { key: 'seqLen', value: 2048, keyText: 'max_seq_length', valueText: 'max_seq_length' },
      { key: 'quantBits', value: 4, keyText: 'load_in_4bit', valueText: 'True' },
      { key: 'quantType', value: 'nf4', origin: 'call-default' },
      { key: 'doubleQuant', value: true, origin: 'call-default' },
      { key: 'method', value: 'qlora', keyText: 'FastLanguageModel.get_peft_model' },
      { key: 'loraR', value: 16, valueText: '16' },
      { key: 'loraAlpha', value: 16 },
      { key: 'loraTargets', value: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
      { key: 'gradientCheckpointing', value: 'full', keyText: 'use_gradient_checkpointing', valueText: '"unsloth"' },
      { key: 'activationOffloading', value: true, keyText: 'use_gradient_checkpointing' },
      { key: 'kbitUpcast', value: 'none', origin: 'call-default' },
      { key: 'microBatchSize', value: 2 },
      { key: 'optimizer', value: 'adamw_8bit' },
    ]);
    assert.ok(r.tools.includes('unsloth') && r.tools.includes('trl'));
    // dtype=None is Unsloth's automatic choice: no fact, the unsloth default decides.
    assert.equal(facts(r, 'weightsDtype').length, 0);
  });

  it("makes Unsloth's defaults explicit: 4-bit NF4, 2,048 tokens, r=16 on seven projections, offloaded checkpointing", () => {
    const text =
      'model, tok = FastLanguageModel.from_pretrained("unsloth/Qwen2.5-7B")\nmodel = FastLanguageModel.get_peft_model(model)\n';
    checkFacts(text, [
      { key: 'model', value: 'unsloth/Qwen2.5-7B', valueText: '"unsloth/Qwen2.5-7B"' },
      { key: 'seqLen', value: 2048, keyText: 'FastLanguageModel.from_pretrained', origin: 'call-default' },
      { key: 'quantBits', value: 4, origin: 'call-default' },
      { key: 'loraR', value: 16, keyText: 'FastLanguageModel.get_peft_model', origin: 'call-default' },
      { key: 'loraAlpha', value: 16, origin: 'call-default' },
      { key: 'loraDropout', value: 0, origin: 'call-default' },
      {
        key: 'loraTargets',
        value: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
        origin: 'call-default',
      },
      {
        key: 'gradientCheckpointing',
        value: 'full',
        keyText: 'FastLanguageModel.get_peft_model',
        origin: 'call-default',
      },
      { key: 'activationOffloading', value: true, origin: 'call-default' },
    ]);
    // FastModel targets every linear layer of the language model when target_modules is None.
    checkFacts('m, t = FastModel.from_pretrained("unsloth/gemma-3-4b-it")\nm = FastModel.get_peft_model(m)\n', [
      { key: 'loraTargets', value: 'all-linear', origin: 'call-default' },
    ]);
  });

  it('reads a per-architecture class as FastLanguageModel, with its own 4,096-token default (unsloth/models/qwen2.py)', () => {
    // EmreCandan0/fine-tuned-llm-tool-calling finetuning.ipynb: FastQwen2Model, every argument by keyword, a comment
    // after the last one (no trailing comma).
    const text = [
      'from unsloth import FastQwen2Model',
      'model, tokenizer = FastQwen2Model.from_pretrained(',
      '    model_name="unsloth/Qwen2.5-Coder-1.5B-Instruct",',
      '    load_in_4bit=False,',
      '    fix_tokenizer=False',
      '    # token = "hf_...", # use one if using gated models like meta-llama/Llama-2-7b-hf',
      ')',
      'model = FastQwen2Model.get_peft_model(model, r = 16, # Choose any number > 0',
      '    lora_alpha = 16)',
      '',
    ].join('\n');
    const r = checkFacts(text, [
      { key: 'model', value: 'unsloth/Qwen2.5-Coder-1.5B-Instruct' },
      { key: 'seqLen', value: 4096, keyText: 'FastQwen2Model.from_pretrained', origin: 'call-default' },
      { key: 'loraR', value: 16, valueText: '16' },
      {
        key: 'loraTargets',
        value: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
        origin: 'call-default',
      },
    ]);
    assert.equal(facts(r, 'quantBits').length, 0, 'load_in_4bit=False loads 16-bit weights');
    assert.ok(r.tools.includes('unsloth'));
  });

  it('reads full_finetuning and 8-bit loading, and plain checkpointing without offload', () => {
    const full = checkFacts(
      'm, t = FastLanguageModel.from_pretrained("unsloth/Qwen3-8B", full_finetuning=True, use_gradient_checkpointing=True)\n',
      [
        { key: 'method', value: 'full', keyText: 'full_finetuning', valueText: 'True' },
        { key: 'gradientCheckpointing', value: 'full', valueText: 'True' },
        { key: 'activationOffloading', value: false },
      ],
    );
    assert.equal(facts(full, 'quantBits').length, 0, 'full fine-tuning turns 4/8-bit loading off');
    checkFacts('m, t = FastLanguageModel.from_pretrained("unsloth/Qwen3-8B", load_in_8bit=True)\n', [
      { key: 'quantBits', value: 8, keyText: 'load_in_8bit' },
    ]);
    const off = checkFacts(
      'm, t = FastLanguageModel.from_pretrained("unsloth/Qwen3-8B", load_in_4bit=False)\n' +
        'm = FastLanguageModel.get_peft_model(m, use_gradient_checkpointing=False)\n',
      [{ key: 'gradientCheckpointing', value: 'none', valueText: 'False' }],
    );
    assert.equal(facts(off, 'quantBits').length, 0);
  });

  it('resolves the notebook to a QLoRA setup whose checkpointing the trainer arguments cannot turn off', () => {
    const text = UNSLOTH_NOTEBOOK.replace(
      'output_dir = "outputs",',
      'output_dir = "outputs",\n        gradient_checkpointing = False,',
    );
    const res = resolveText('train.py', text);
    const s = res.setup!;
    assert.ok(s, JSON.stringify(res.problems));
    assert.equal(s.method, 'qlora');
    assert.deepEqual([s.quantization?.bits, s.quantization?.type, s.quantization?.double_quant], [4, 'nf4', true]);
    assert.equal(s.gradient_checkpointing, 'full');
    assert.equal(s.activation_offloading, true);
    assert.equal(s.loss, 'fused');
    assert.equal(s.attention, 'flash');
    assert.equal(s.kbit_upcast, 'none');
    assert.equal(s.kernels, 'unsloth');
    assert.equal(s.lora?.dtype, 'fp32');
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.lora?.r], [2, 2048, 16]);
    assert.equal(s.architecture?.hidden_size, 4096, 'unsloth/Meta-Llama-3.1-8B-bnb-4bit is Llama-3.1-8B');
    const loss = res.provenance.loss;
    assert.ok(
      loss?.kind === 'default' && loss.owner === 'unsloth' && /chunked fused cross-entropy/.test(loss.note ?? ''),
      JSON.stringify(loss),
    );
  });
});

describe('analyzeHfPython: checkpoints', () => {
  it('reads save_strategy as a string or a SaveStrategy member: "no" writes none', () => {
    checkFacts('args = TrainingArguments(output_dir="o", save_strategy="no")\n', [
      { key: 'savesCheckpoints', value: false, keyText: 'save_strategy', valueText: '"no"' },
    ]);
    checkFacts('args = TrainingArguments(output_dir="o", save_strategy=SaveStrategy.EPOCH)\n', [
      { key: 'savesCheckpoints', value: true },
    ]);
  });
});

describe('analyzeHfPython: allocator settings', () => {
  it('reads PYTORCH_CUDA_ALLOC_CONF set in os.environ (not in comments) and torch_empty_cache_steps', () => {
    const text =
      'import os\n' +
      '# os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:False"\n' +
      'os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"\n' +
      'args = TrainingArguments(output_dir="o", torch_empty_cache_steps=8)\n';
    const r = checkFacts(text, [
      {
        key: 'expandableSegments',
        value: true,
        keyText: 'PYTORCH_CUDA_ALLOC_CONF',
        valueText: 'expandable_segments:True',
      },
      { key: 'emptyCacheSteps', value: 8, keyText: 'torch_empty_cache_steps', valueText: '8' },
    ]);
    assert.equal(facts(r, 'expandableSegments').length, 1);
    checkFacts('os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")\n', [
      { key: 'expandableSegments', value: true },
    ]);
  });
});

describe('analyzeHfPython: GaLore', () => {
  it('optim galore_adamw with optim_target_modules and optim_args: projected AdamW states', () => {
    const text =
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", torch_dtype=torch.bfloat16)\n' +
      'args = TrainingArguments(output_dir="o", optim="galore_adamw_8bit_layerwise", ' +
      'optim_target_modules=["attn", "mlp"], optim_args="rank=64, update_proj_gap=100, scale=0.10")\n';
    checkFacts(text, [
      { key: 'galore', value: 'galore', keyText: 'optim' },
      { key: 'galoreRank', value: 64, keyText: 'optim_args' },
    ]);
    const r = resolveText('train.py', text);
    assert.deepEqual(r.setup?.galore, { kind: 'galore', rank: 64, target_modules: ['attn', 'mlp'], layerwise: true });
    assert.equal(r.setup?.optimizer, 'adamw_8bit');
  });
});

describe('analyzeHfPython: DoRA', () => {
  it('LoraConfig(use_dora=True) trains DoRA adapters', () => {
    const text =
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-3B")\n' +
      'model = get_peft_model(model, LoraConfig(r=32, target_modules=["q_proj", "v_proj"], ' +
      'use_dora=True))\n';
    checkFacts(text, [{ key: 'loraDora', value: true, keyText: 'use_dora', valueText: 'True' }]);
    assert.equal(resolveText('train.py', text).setup?.lora?.use_dora, true);
  });
});

describe('analyzeHfPython: the dtype a model id is loaded in', () => {
  const trainer = (load: string): string =>
    `${load}\nargs = TrainingArguments(output_dir="o", bf16=True)\ntrainer = Trainer(model=model, args=args)\n`;
  it('from_pretrained without a dtype: the checkpoint\'s (transformers 5 dtype="auto"); an explicit dtype wins', () => {
    // meta-llama/Llama-3.2-1B stores torch_dtype bfloat16 in its config.json.
    const auto = resolveText(
      'train.py',
      trainer('model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")'),
    );
    assert.equal(auto.setup?.weights_dtype, 'bf16');
    const p = auto.provenance.weights_dtype;
    assert.ok(p?.kind === 'default' && /transformers 5/.test(p.note ?? ''), JSON.stringify(p));
    const pinned = resolveText(
      'train.py',
      trainer('model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", torch_dtype=torch.float32)'),
    );
    assert.equal(pinned.setup?.weights_dtype, 'fp32');
  });
  it('from_pretrained of the option a launch line gives: the load the script shows, fp32 before transformers 5', () => {
    // bytebarde/llm_alpaca train.py: `AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path, ...)`, no dtype,
    // the id from the launch line; transformers 4.44 loads float32 (the `torch_dtype` default). The dtype had been
    // taken from the LoRA recipes' habit, 16 bits, as for a model whose load the files do not show.
    const script = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: str = field(default="facebook/opt-125m")',
      'model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()',
      'model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)',
      'model = get_peft_model(model, LoraConfig(r=8))',
      'Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const line = 'python train.py --model_name_or_path meta-llama/Llama-3.2-1B --output_dir o --fp16 True\n';
    const r = runProject(
      { 'train.py': script, 'run.sh': line, 'requirements.txt': 'transformers==4.44.0\n' },
      'run.sh',
    );
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-1B');
    assert.equal(r.setup?.weights_dtype, 'fp32');
    const p = r.provenance.weights_dtype;
    assert.ok(p?.kind === 'default' && p.owner === 'hf-trainer', JSON.stringify(p));
  });

  it("reads a trainer's own model_init_kwargs keyword (TRL's trainers before their configs took it)", () => {
    // TRL 0.7's DPOTrainer(model, ref_model, model_init_kwargs=...), and trainers written on it (uclaml/SPIN's
    // SPINTrainer): the from_pretrained keywords of the model the trainer loads from a string.
    const text = [
      'kw = dict(use_flash_attention_2=True, torch_dtype=torch.bfloat16)',
      'trainer = DPOTrainer("mistralai/Mistral-7B-v0.1", None, model_init_kwargs=kw, args=training_args)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(r.facts.find((f) => f.key === 'attention')?.value, 'flash');
    assert.equal(r.facts.find((f) => f.key === 'weightsDtype')?.value, 'bf16');
  });

  it('a model id given to a TRL trainer: float32 (TRL 0.27+) unless model_init_kwargs says otherwise', () => {
    // trl create_model_from_path: kwargs.get("dtype", "float32") since trl#4778; test/unit/analyzers/trl-reference.test.ts
    // has the releases before.
    const sft = 'args = SFTConfig(output_dir="o")\ntrainer = SFTTrainer(model="meta-llama/Llama-3.2-1B", args=args)\n';
    const r = resolveText('train.py', sft);
    assert.equal(r.setup?.weights_dtype, 'fp32');
    assert.match(JSON.stringify(r.provenance.weights_dtype), /float32 unless a dtype is given, TRL 0\.27\+/);
    const bf16 =
      'args = SFTConfig(output_dir="o", model_init_kwargs={"dtype": "bfloat16"})\ntrainer = SFTTrainer(model="meta-llama/Llama-3.2-1B", args=args)\n';
    assert.equal(resolveText('train.py', bf16).setup?.weights_dtype, 'bf16');
  });
});

describe('analyzeHfPython: GRPO', () => {
  // The TRL GRPO quick start (trl docs, grpo_trainer.md) with LoRA, vLLM colocated and a KL term.
  const grpo = (
    args: string,
    peft = ', peft_config=LoraConfig(r=16, target_modules="all-linear")',
  ): string => `from trl import GRPOConfig, GRPOTrainer
from peft import LoraConfig

training_args = GRPOConfig(output_dir="out"${args})
trainer = GRPOTrainer(model="Qwen/Qwen2.5-7B-Instruct", reward_funcs=reward_len, args=training_args, train_dataset=dataset${peft})
trainer.train()
`;
  it('reads the generation round, the lengths, the KL reference and the vLLM engine', () => {
    const text = grpo(
      ', per_device_train_batch_size=8, gradient_accumulation_steps=4, max_prompt_length=512, ' +
        'max_completion_length=1024, beta=0.04, use_vllm=True, vllm_mode="colocate", ' +
        'vllm_gpu_memory_utilization=0.4',
    );
    checkFacts(text, [
      { key: 'rollout', value: 'grpo', keyText: 'GRPOConfig' },
      { key: 'completionLen', value: 1024, keyText: 'max_completion_length', valueText: '1024' },
      { key: 'vllmMode', value: 'colocate', keyText: 'vllm_mode', valueText: '"colocate"' },
      { key: 'klBeta', value: 0.04, keyText: 'beta', valueText: '0.04' },
    ]);
    const r = resolveText('train_grpo.py', text);
    // One round: 8 x 4 completions per GPU; each sequence 512 + 1,024 tokens; beta > 0 with LoRA: the adapters are
    // disabled for the reference; vLLM's importance-sampling correction recomputes the old log-probs.
    assert.deepEqual(r.setup?.rollout, {
      objective: 'policy-gradient',
      batch: 32,
      completion_len: 1024,
      engine: 'vllm-colocate',
      vllm_memory_fraction: 0.4,
      vllm_tensor_parallel: 1,
      vllm_sleep: false,
      vllm_shared_weights: false,
      vllm_memory_of: 'total',
      logps: 'trl',
      reference: 'adapters-off',
      old_logps: true,
      gather_weights: true,
      reward_models: [],
    });
    assert.equal(r.setup?.seq_len, 1536);
    assert.ok(!r.problems.some((p) => p.code === 'not-modeled'));
    // vllm_tensor_parallel_size splits the colocated engine over GPUs.
    const tp2 = resolveText(
      'train_grpo.py',
      text.replace('vllm_gpu_memory_utilization=0.4', 'vllm_gpu_memory_utilization=0.4, vllm_tensor_parallel_size=2'),
    );
    assert.equal(tp2.setup?.rollout?.vllm_tensor_parallel, 2);
  });
  it("fills in TRL's defaults and lists them as assumptions", () => {
    const r = resolveText('train_grpo.py', grpo('', ''));
    // per_device_train_batch_size 8 (TrainingArguments) x steps_per_generation = gradient_accumulation_steps 1; a 512-token
    // prompt and 256 generated tokens; beta 0.0: no reference; use_vllm False: the policy generates itself.
    assert.deepEqual(r.setup?.rollout, {
      objective: 'policy-gradient',
      batch: 8,
      completion_len: 256,
      engine: 'generate',
      vllm_memory_fraction: 0.3,
      vllm_tensor_parallel: 1,
      vllm_sleep: false,
      vllm_shared_weights: false,
      vllm_memory_of: 'total',
      logps: 'trl',
      reference: 'none',
      old_logps: false,
      gather_weights: true,
      reward_models: [],
    });
    assert.equal(r.setup?.seq_len, 768);
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    const keys = e.estimate.assumptions.map((a) => a.key);
    for (const k of ['rollout.batch', 'rollout.completion_len', 'rollout.engine', 'rollout.reference', 'seq_len'])
      assert.ok(keys.includes(k), k);
    assert.ok(e.estimate.perGpu.phases.some((p) => p.phase === 'generation'));
  });
  it('counts a reward model given by name: its weights on every GPU and its forward over the round', () => {
    const text = grpo('', '').replace(
      'reward_funcs=reward_len',
      'reward_funcs=[reward_len, "meta-llama/Llama-3.2-1B"]',
    );
    checkFacts(text, [
      {
        key: 'rewardModels',
        value: ['meta-llama/Llama-3.2-1B'],
        keyText: 'reward_funcs',
        valueText: '[reward_len, "meta-llama/Llama-3.2-1B"]',
      },
    ]);
    const r = resolveText('train_grpo.py', text);
    assert.deepEqual(
      r.setup?.rollout?.reward_models.map((m) => m.model),
      ['meta-llama/Llama-3.2-1B'],
    );
    assert.ok(!r.problems.some((x) => x.code === 'not-modeled'));
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    // AutoModelForSequenceClassification with num_labels 1: Llama-3.2-1B's 1,235,814,400 parameters (tied embeddings, so
    // no lm_head to drop) + the score head 2048 x 1, in the policy's load dtype (bf16: dtype="auto").
    const w = e.estimate.perGpu.components.find((c) => c.label.startsWith('Reward model weights'));
    assert.equal(w?.bytes, (1_235_814_400 + 2048) * 2);
    assert.ok(!e.estimate.assumptions.some((a) => a.key === 'rollout.reward_models'));
    // A reward model that cannot be resolved (offline, not in the catalog) is a warning that names it.
    const unknown = resolveText(
      'train_grpo.py',
      grpo('').replace(
        'reward_funcs=reward_len',
        'reward_funcs=[reward_len, "OpenAssistant/reward-model-deberta-v3-large-v2"]',
      ),
    );
    const p = unknown.problems.filter((x) => x.code === 'not-modeled');
    assert.equal(p.length, 1);
    assert.match(p[0].message, /OpenAssistant\/reward-model-deberta-v3-large-v2.*not counted/);
    assert.deepEqual(unknown.setup?.rollout?.reward_models, []);
    assert.ok(!analyzeHfPython(grpo('')).problems.some((x) => x.code === 'not-modeled'));
  });
  it('Unsloth fast_inference: GRPO generates with the colocated vLLM engine that holds the trained weights', () => {
    // The Unsloth GRPO notebooks: Qwen2.5-3B in 4 bits, a vLLM engine at 0.6 of the GPU, LoRA r=64.
    const text =
      `from unsloth import FastLanguageModel
from trl import GRPOConfig, GRPOTrainer
model, tokenizer = FastLanguageModel.from_pretrained(model_name="Qwen/Qwen2.5-3B-Instruct", max_seq_length=1024, ` +
      `load_in_4bit=True, fast_inference=True, max_lora_rank=64, gpu_memory_utilization=0.6)
model = FastLanguageModel.get_peft_model(model, r=64, lora_alpha=64, use_gradient_checkpointing="unsloth")
args = GRPOConfig(per_device_train_batch_size=6, num_generations=6, max_prompt_length=256, max_completion_length=768, output_dir="o")
trainer = GRPOTrainer(model=model, reward_funcs=[f], args=args, train_dataset=ds)
`;
    const r = resolveText('grpo.py', text);
    const ro = r.setup?.rollout;
    assert.ok(
      ro && ro.engine === 'vllm-colocate' && ro.vllm_shared_weights && ro.vllm_memory_fraction === 0.6,
      JSON.stringify(ro),
    );
    // On a 40 GiB GPU the engine takes 0.6 x 40 GiB in all, the 4-bit weights it shares with the policy included.
    const gpu = { id: 'A100-40GB', memoryBytes: 40 * 2 ** 30, source: 'test' };
    const e = estimate(r.setup!, { gpu, provenance: r.provenance });
    assert.ok(e.ok);
    const ph = e.estimate.perGpu.phases.find((p) => p.phase === 'optimizer')!;
    const sharedBytes = ph.components
      .filter((c) => c.id === 'weights' || c.id === 'quantization-constants')
      .reduce((x, c) => x + c.bytes, 0);
    const engine = ph.components.find((c) => c.id === 'rollout-engine');
    assert.equal(engine?.bytes, Math.round(0.6 * 40 * 2 ** 30 - sharedBytes));
  });
  it("Liger-Kernel's LigerORPOTrainer computes ORPO's loss with its fused linear kernel: no logits", () => {
    // linkedin/Liger-Kernel examples/alignment/run_orpo.py.
    const text = `from liger_kernel.transformers.trainer import LigerORPOTrainer
from transformers import AutoModelForCausalLM
from trl import ORPOConfig
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct", torch_dtype="bfloat16")
args = ORPOConfig(output_dir="o", per_device_train_batch_size=32, max_length=128, bf16=True)
trainer = LigerORPOTrainer(model=model, args=args, train_dataset=ds)
`;
    const r = resolveText('run_orpo.py', text);
    assert.equal(r.setup?.loss, 'fused');
    assert.equal(r.setup?.preference?.reference, 'none');
    assert.deepEqual(r.provenance.loss, { kind: 'file', file: 'run_orpo.py', line: 6, key: 'LigerORPOTrainer' });
  });
  it("Unsloth's GRPO notebooks: the completion is max_seq_length less the prompt, standby sleeps the engine", () => {
    // waqqasansari/qwen3-grpo-finetune and osamaaltaf-pk/LLMs-Unsloth, copied from Unsloth's Qwen3 GRPO notebook: the
    // prompt's length is measured on the data (`maximum_length + 1`), the completion gets the rest of 2048 tokens.
    const text = `import os
os.environ["UNSLOTH_VLLM_STANDBY"] = "1"
from unsloth import FastLanguageModel
from trl import GRPOConfig, GRPOTrainer
max_seq_length = 2048
model, tokenizer = FastLanguageModel.from_pretrained(model_name="unsloth/Qwen3-4B-Base", max_seq_length=max_seq_length,
    load_in_4bit=False, load_in_fp8=True, fast_inference=True, max_lora_rank=32, gpu_memory_utilization=0.7)
model = FastLanguageModel.get_peft_model(model, r=32, lora_alpha=64, use_gradient_checkpointing="unsloth")
maximum_length = int(np.max(tokenized["L"]))
max_prompt_length = maximum_length + 1
max_completion_length = max_seq_length - max_prompt_length
args = GRPOConfig(per_device_train_batch_size=1, num_generations=4, max_prompt_length=max_prompt_length,
    max_completion_length=max_completion_length, output_dir="outputs")
trainer = GRPOTrainer(model=model, reward_funcs=[f], args=args, train_dataset=ds)
`;
    const r = resolveText('grpo.py', text);
    // The prompt's length is the data's: TRL's 512 stands in; the completion takes the other 2048 - 512 = 1536.
    assert.equal(r.setup?.rollout?.completion_len, 1536);
    assert.equal(r.setup?.seq_len, 2048);
    const prov = r.provenance as Record<string, { kind: string; note?: string } | undefined>;
    const note = prov['rollout.completion_len'];
    assert.match(note?.kind === 'default' ? (note.note ?? '') : '', /prompt and completion share 2048 tokens/);
    // UNSLOTH_VLLM_STANDBY=1: the engine sleeps while the policy trains.
    assert.equal(r.setup?.rollout?.vllm_sleep, true);
    assert.deepEqual(prov['rollout.vllm_sleep'], {
      kind: 'file',
      file: 'grpo.py',
      line: 2,
      key: 'UNSLOTH_VLLM_STANDBY',
    });
    // load_in_fp8: not modeled, said at the keyword; the weights stay 16-bit.
    const w = r.problems.find((p) => p.code === 'not-modeled' && p.key === 'load_in_fp8');
    assert.match(w?.message ?? '', /Unsloth's FP8 weights are not modeled/);
    // Without standby the engine keeps its share (vllm_enable_sleep_mode defaults to False).
    const awake = resolveText('grpo.py', text.replace('os.environ["UNSLOTH_VLLM_STANDBY"] = "1"\n', ''));
    assert.equal(awake.setup?.rollout?.vllm_sleep, false);
  });
  it('a round must hold whole groups of num_generations: an error for TRL, Unsloth raises the micro-batch', () => {
    // 4 completions per GPU on one GPU, 6 per prompt: GRPOConfig raises "generation_batch_size (4) must be divisible by
    // num_generations (6)". Read alone, the script states no GPU count: one is assumed, and the run's own count may make
    // whole groups (3 GPUs: 12), so a warning; a launcher that runs it on one GPU makes it an error.
    const text = grpo(', per_device_train_batch_size=4, num_generations=6');
    const r = resolveText('train_grpo.py', text);
    const w = r.problems.find((x) => x.code === 'invalid-value' && x.key === 'num_generations');
    assert.ok(w && w.severity === 'warning', JSON.stringify(r.problems));
    assert.match(w.message, /4 completions per GPU x 1 GPUs, a GPU count the files leave open/);
    const reader = {
      read: (f: string) => (f === '/w/train_grpo.py' ? text : undefined),
      join: (_f: string, x: string) => `/w/${x}`,
    };
    const launched = runPipeline(
      [
        { file: '/w/run.sh', text: 'torchrun --nproc_per_node 1 train_grpo.py\n' },
        { file: '/w/train_grpo.py', text },
      ],
      reader,
      {},
    );
    const p = launched.problems.find((x) => x.code === 'invalid-value' && x.severity === 'error');
    assert.ok(p && /not a multiple of num_generations \(6\)/.test(p.message), JSON.stringify(launched.problems));
    assert.equal(text.slice(p.start, p.end), '6');
    // The GRPOConfig default (8 per prompt) against TrainingArguments' default batch (8): fine.
    assert.ok(!resolveText('train_grpo.py', grpo('')).problems.some((x) => x.severity === 'error'));
    // Unsloth: per_device_train_batch_size 1 with num_generations 6 becomes 6.
    const unsloth = `from unsloth import FastLanguageModel
model, tok = FastLanguageModel.from_pretrained(model_name="Qwen/Qwen2.5-3B-Instruct", max_seq_length=1024)
model = FastLanguageModel.get_peft_model(model, r=16)
args = GRPOConfig(per_device_train_batch_size=1, num_generations=6, output_dir="o")
trainer = GRPOTrainer(model=model, args=args, reward_funcs=[f])
`;
    const u = resolveText('grpo.py', unsloth);
    assert.equal(u.setup?.micro_batch_size, 6);
    assert.equal(u.setup?.rollout?.batch, 6);
    assert.match(
      u.provenance.micro_batch_size?.kind === 'default' ? (u.provenance.micro_batch_size.note ?? '') : '',
      /multiple of num_generations \(6\)/,
    );
  });
  it("RLOO (TRL 0.23 and later) has GRPO's structure, with a reference by default (beta 0.05)", () => {
    const text = grpo(', per_device_train_batch_size=4', '').replace(/GRPO/g, 'RLOO');
    checkFacts(text, [{ key: 'rollout', value: 'rloo', keyText: 'RLOOConfig' }]);
    const r = resolveText('train_rloo.py', text);
    assert.equal(r.setup?.rollout?.reference, 'copy');
    assert.ok(!r.problems.some((p) => p.code === 'not-modeled'));
  });
  it('a generation_batch_size counts every GPU; steps_per_generation above the accumulation recomputes old log-probs', () => {
    const r = resolveText(
      'train_grpo.py',
      grpo(', per_device_train_batch_size=4, gradient_accumulation_steps=2, steps_per_generation=8'),
    );
    assert.equal(r.setup?.rollout?.batch, 32);
    assert.equal(r.setup?.rollout?.old_logps, true);
  });
});

describe('analyzeHfPython: preference trainers', () => {
  const script = (
    extra: string,
    trainer = 'DPOTrainer',
    config = 'DPOConfig',
  ): string => `model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16)
args = ${config}(output_dir="o", per_device_train_batch_size=2, max_length=1024${extra})
trainer = ${trainer}(model=model, args=args, train_dataset=ds, PEFT)
`;
  const resolve = (text: string) => resolveText('train.py', text).setup;
  it('DPO copies the model as its reference, or disables the adapters of a PEFT model', () => {
    const full = script('').replace(', PEFT', '');
    checkFacts(full, [{ key: 'preference', value: 'dpo', keyText: 'DPOConfig' }]);
    assert.deepEqual(resolve(full)?.preference, { reference: 'copy', logps: 'rows', paired: true });
    const peft = script('').replace('PEFT', 'peft_config=LoraConfig(r=16)');
    assert.deepEqual(resolve(peft)?.preference, { reference: 'adapters-off', logps: 'rows', paired: true });
  });
  it('warns where an objective with generation or extra models is set (PPO, RLOO, online DPO, GKD)', () => {
    const text = 'args = PPOConfig(output_dir="o", per_device_train_batch_size=4)\n';
    const p = analyzeHfPython(text).problems.find((x) => x.code === 'not-modeled');
    assert.ok(p && p.severity === 'warning' && /rollout generation/.test(p.message), JSON.stringify(p));
    assert.equal(text.slice(p.span.start, p.span.end), 'PPOConfig');
    assert.ok(!analyzeHfPython(script('')).problems.some((x) => x.code === 'not-modeled'));
    // GRPO is modeled: no warning, a rollout fact on the config class.
    const grpo = 'args = GRPOConfig(output_dir="o", per_device_train_batch_size=4)\n';
    assert.ok(!analyzeHfPython(grpo).problems.some((x) => x.code === 'not-modeled'));
    checkFacts(grpo, [{ key: 'rollout', value: 'grpo', keyText: 'GRPOConfig' }]);
  });

  it('reads precompute_ref_log_probs, an explicit ref_model and the reference-free trainers', () => {
    const pre = script(', precompute_ref_log_probs=True').replace(', PEFT', '');
    checkFacts(pre, [
      { key: 'referenceModel', value: 'precomputed', keyText: 'precompute_ref_log_probs', valueText: 'True' },
    ]);
    assert.equal(resolve(pre)?.preference?.reference, 'precomputed');
    const ref = script('').replace('PEFT', 'ref_model=ref, peft_config=LoraConfig(r=16)');
    assert.equal(resolve(ref)?.preference?.reference, 'copy');
    // The reference as the second positional argument (DPOTrainer(model, ref_model=None, args=None, ...)), held on
    // self: rahulpal7G42/bilingual-llm-adaptation adapt_llama.py `DPOTrainer(self.model, self.ref_model, args=...)`.
    const positional = script('')
      .replace('trainer = DPOTrainer(model=model,', 'trainer = DPOTrainer(self.model, self.ref_model,')
      .replace(', PEFT', '');
    checkFacts(positional, [{ key: 'referenceModel', value: 'given', keyText: 'self.ref_model' }]);
    assert.equal(resolve(positional)?.preference?.reference, 'copy');
    const positionalNone = positional.replace('self.ref_model,', 'None,');
    assert.equal(resolve(positionalNone)?.preference?.reference, 'copy');
    assert.ok(!analyzeHfPython(positionalNone).facts.some((f) => f.key === 'referenceModel'));
    // KTO: single completions (not pairs), with a reference; an explicit ref_model is a copy.
    const kto = script('', 'KTOTrainer', 'KTOConfig').replace('PEFT', 'ref_model=ref');
    assert.deepEqual(resolve(kto)?.preference, { reference: 'copy', logps: 'rows', paired: false });
    const orpo = script('', 'ORPOTrainer', 'ORPOConfig').replace(', PEFT', '');
    assert.equal(resolve(orpo)?.preference?.reference, 'none');
    // ORPO and CPO add the chosen half's NLL (trl orpo_trainer.py / cpo_trainer.py); CPO skips it with cpo_alpha=0.
    assert.equal(resolve(orpo)?.preference?.chosen_nll, true);
    assert.equal(resolve(script('', 'CPOTrainer', 'CPOConfig').replace(', PEFT', ''))?.preference?.chosen_nll, true);
    assert.equal(
      resolve(script(', cpo_alpha=0.0', 'CPOTrainer', 'CPOConfig').replace(', PEFT', ''))?.preference?.chosen_nll,
      undefined,
    );
    // DPO with rpo_alpha set (even 0) adds the same NLL; unset (None), it does not.
    assert.equal(
      resolve(script(', rpo_alpha=1.0', 'DPOTrainer', 'DPOConfig').replace(', PEFT', ''))?.preference?.chosen_nll,
      true,
    );
    assert.equal(
      resolve(script(', rpo_alpha=None', 'DPOTrainer', 'DPOConfig').replace(', PEFT', ''))?.preference?.chosen_nll,
      undefined,
    );
    // A plain TrainingArguments with a DPOTrainer (older TRL scripts): the trainer names the objective.
    const old = script('', 'DPOTrainer', 'TrainingArguments').replace(', PEFT', '').replace(', max_length=1024', '');
    checkFacts(old, [{ key: 'preference', value: 'dpo', keyText: 'DPOTrainer' }]);
    assert.equal(resolve(script('', 'SFTTrainer', 'SFTConfig').replace(', PEFT', ''))?.preference, undefined);
  });
});

describe('resolution of pre-quantized checkpoints', () => {
  it('takes the quantization of a GPTQ or bnb-4bit upload from its quantization_config, and LoRA over it is QLoRA', () => {
    const script = (id: string): string =>
      `model = AutoModelForCausalLM.from_pretrained("${id}", torch_dtype=torch.bfloat16)\n` +
      `peft_config = LoraConfig(r=16)\n` +
      `args = TrainingArguments(output_dir="o", bf16=True)\n`;
    const gptq = resolveText('train.py', script('TheBloke/Llama-2-7B-GPTQ'));
    assert.equal(gptq.setup?.method, 'qlora');
    assert.deepEqual(
      [gptq.setup?.quantization?.bits, gptq.setup?.quantization?.type, gptq.setup?.quantization?.block_size],
      [4, 'gptq', 128],
    );
    assert.equal(gptq.provenance.quantization?.kind, 'catalog');
    const bnb = resolveText('train.py', script('unsloth/Meta-Llama-3.1-8B-bnb-4bit'));
    assert.deepEqual(
      [bnb.setup?.method, bnb.setup?.quantization?.type, bnb.setup?.quantization?.double_quant],
      ['qlora', 'nf4', true],
    );
    // A quantization written in the files wins over the checkpoint's.
    const own = resolveText(
      'train.py',
      script('meta-llama/Llama-3.1-8B') + 'q = BitsAndBytesConfig(load_in_8bit=True)\n',
    );
    assert.deepEqual([own.setup?.quantization?.bits, own.provenance.quantization?.kind], [8, 'file']);
  });
});

describe('detectFormat for Python files', () => {
  it('recognizes training calls whose arguments start on the next line or with a string', () => {
    assert.equal(detectFormat('train.py', 'args = SFTConfig(\n    output_dir="out",\n)\n'), 'hf-python');
    assert.equal(
      detectFormat('train.py', 'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")\n'),
      'hf-python',
    );
    assert.equal(
      detectFormat('train.py', 'model = FastLanguageModel.get_peft_model(\n    model, r=16)\n'),
      'hf-python',
    );
    assert.equal(detectFormat('util.py', 'def add(a, b):\n    return a + b\n'), undefined);
  });
});

describe('analyzeHfPython on the fixture programs', () => {
  const files = fs.existsSync(fixturesDir) ? fs.readdirSync(fixturesDir).filter((f) => f.endsWith('.py')) : [];
  it('has an expected file for every fixture', () => {
    assert.ok(files.length >= 11);
    for (const f of files) assert.ok(fs.existsSync(path.join(expectedDir, `${f}.expected.json`)), f);
  });
  for (const f of files) {
    it(`matches ${f}.expected.json`, () => {
      const text = fs.readFileSync(path.join(fixturesDir, f), 'utf8');
      const exp = JSON.parse(fs.readFileSync(path.join(expectedDir, `${f}.expected.json`), 'utf8')) as {
        format: string;
        facts: Record<string, unknown>;
        problems: string[];
        references: string[];
      };
      const r = analyzeHfPython(text);
      assert.equal(r.format, exp.format);
      for (const [k, v] of Object.entries(exp.facts)) assert.deepEqual(decided(r, k as CanonicalKey), v, k);
      assert.deepEqual([...new Set(r.facts.map((x) => x.key))].sort(), Object.keys(exp.facts).sort(), 'keys found');
      for (const code of exp.problems)
        assert.ok(
          r.problems.some((p) => p.code === code),
          code,
        );
      assert.deepEqual(
        r.references.map((x) => x.path),
        exp.references,
      );
      for (const x of r.facts) {
        assert.equal(text.slice(x.keySpan.start, x.keySpan.end).length, x.keySpan.end - x.keySpan.start);
        if (!x.origin && x.rawKey !== 'pretrained_model_name_or_path')
          assert.equal(text.slice(x.keySpan.start, x.keySpan.end), x.rawKey, `${x.key} key span`);
      }
    });
  }
});

describe('analyzeHfPython property: mutated programs', () => {
  it('never throws and keeps every span inside the text (2,000 runs over our fixtures)', function () {
    this.timeout(60_000);
    const texts = fs.existsSync(fixturesDir)
      ? fs
          .readdirSync(fixturesDir)
          .filter((f) => f.endsWith('.py'))
          .map((f) => fs.readFileSync(path.join(fixturesDir, f), 'utf8'))
      : [];
    if (texts.length === 0) this.skip();
    const garbage = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        '(',
        ')',
        '"""',
        "'",
        '**',
        '=',
        ':',
        '🤗',
        '—',
        '\\',
        '\n',
        '\r\n',
        'TrainingArguments(',
        'dict(',
        '{',
        '}',
        '[',
        'if x:\n',
        '@dataclass\n',
        '\t',
      ),
    );
    const mutation = fc.record({
      file: fc.nat(),
      op: fc.constantFrom('truncate', 'delete', 'insert', 'swap'),
      a: fc.nat(),
      b: fc.nat(),
      g: garbage,
    });
    fc.assert(
      fc.property(mutation, (m) => {
        const src = texts[m.file % texts.length];
        let t = src;
        const at = m.a % (src.length + 1);
        if (m.op === 'truncate') t = src.slice(0, at);
        else if (m.op === 'delete') t = src.slice(0, at) + src.slice(at + 1);
        else if (m.op === 'insert') t = src.slice(0, at) + m.g + src.slice(at);
        else {
          const lines = src.split('\n');
          const i = m.a % lines.length;
          const j = m.b % lines.length;
          [lines[i], lines[j]] = [lines[j], lines[i]];
          t = lines.join('\n');
        }
        const r = analyzeHfPython(t);
        const inside = (s: { start: number; end: number }): boolean =>
          s.start >= 0 && s.start <= s.end && s.end <= t.length;
        for (const f of r.facts) {
          if (!inside(f.keySpan) || !inside(f.valueSpan) || (f.originSpan && !inside(f.originSpan))) return false;
        }
        return r.problems.every((p) => inside(p.span)) && r.references.every((x) => inside(x.span));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('analyzeHfPython: online DPO', () => {
  // The shape of trl/scripts/online_dpo.py: a causal LM policy, a sequence-classification reward model passed to
  // OnlineDPOTrainer(reward_model=...), LoRA.
  const script = (rewardId: string, extra = ''): string => `
from peft import LoraConfig
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification
from trl import OnlineDPOConfig, OnlineDPOTrainer

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct", torch_dtype="bfloat16")
reward_model = AutoModelForSequenceClassification.from_pretrained(${rewardId}, num_labels=1)
training_args = OnlineDPOConfig(output_dir="out", per_device_train_batch_size=2, gradient_accumulation_steps=4, bf16=True${extra})
trainer = OnlineDPOTrainer(model=model, reward_model=reward_model, args=training_args, peft_config=LoraConfig(r=16, target_modules="all-linear"))
trainer.train()
`;
  it('models the trainer: two completions per prompt, max_new_tokens 64 and max_length 512 by default, the adapters disabled for the reference', () => {
    const r = resolveText('online_dpo.py', script('"Qwen/Qwen2.5-0.5B"'));
    // The reward model's from_pretrained names the reward model, not the policy.
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-7B-Instruct');
    const ro = r.setup?.rollout;
    assert.equal(ro?.objective, 'online-dpo');
    assert.equal(ro?.batch, 4);
    assert.equal(ro?.completion_len, 64);
    assert.equal(ro?.engine, 'generate');
    assert.equal(ro?.reference, 'adapters-off');
    assert.deepEqual(
      ro?.reward_models.map((m) => m.model),
      ['Qwen/Qwen2.5-0.5B'],
    );
    assert.equal(r.setup?.seq_len, 512);
    assert.ok(!r.problems.some((p) => p.code === 'not-modeled'), JSON.stringify(r.problems));
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    // The reward model (Qwen2.5-0.5B: 494,032,768 params with its tied embeddings; the classification head 896 x 1 instead)
    // sits on the GPU in the policy's dtype.
    assert.ok(
      e.estimate.perGpu.phases[0].components.some((c) => c.label.startsWith('Reward model weights (Qwen/Qwen2.5-0.5B')),
    );
    for (const k of ['rollout.batch', 'rollout.completion_len', 'rollout.reference', 'seq_len'])
      assert.ok(
        e.estimate.assumptions.some((a) => a.key === k),
        k,
      );
  });
  it('a model wrapped by get_peft_model and no peft_config: OnlineDPOTrainer copies it for the reference', () => {
    // trl/experimental/online_dpo/online_dpo_trainer.py: "if peft_config is None: self.ref_model =
    // create_reference_model(model)", whatever the model is. CPU truth trl/*-online-dpo-lora-bf16 (a PeftModel and no
    // peft_config): the optimizer phase holds the copy's weights, -49 % when counted as adapters disabled.
    const wrapped = script('"Qwen/Qwen2.5-0.5B"')
      .replace('from peft import LoraConfig', 'from peft import LoraConfig, get_peft_model')
      .replace(
        'reward_model = ',
        'model = get_peft_model(model, LoraConfig(r=16, target_modules="all-linear"))\nreward_model = ',
      )
      .replace(', peft_config=LoraConfig(r=16, target_modules="all-linear"))', ')');
    const r = resolveText('online_dpo.py', wrapped);
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.rollout?.reference, 'copy');
    assert.equal(resolveText('online_dpo.py', script('"Qwen/Qwen2.5-0.5B"')).setup?.rollout?.reference, 'adapters-off');
  });
  it('reads max_new_tokens, max_length and vLLM (colocated by default, 0.55 of the GPU); a reward model object it cannot name is a warning', () => {
    const r = resolveText(
      'online_dpo.py',
      script('training_args.reward_model_path', ', max_new_tokens=128, max_length=1024, use_vllm=True'),
    );
    assert.equal(r.setup?.rollout?.completion_len, 128);
    assert.equal(r.setup?.seq_len, 1024);
    assert.equal(r.setup?.rollout?.engine, 'vllm-colocate');
    assert.equal(r.setup?.rollout?.vllm_memory_fraction, 0.55);
    const w = r.problems.find((p) => p.code === 'not-modeled');
    assert.equal(w?.key, 'reward_model');
    assert.match(w?.message ?? '', /which model it is is not known here/);
    // XPO and Nash-MD stay unmodeled and say so.
    const x = resolveText('xpo.py', 'from trl import XPOConfig\nargs = XPOConfig(output_dir="o")\n');
    assert.ok(x.problems.some((p) => p.code === 'not-modeled' && /XPOConfig/.test(p.message)));
  });
});

describe('analyzeHfPython: sequence classifiers and reward models', () => {
  it("reads the head from from_pretrained's class and num_labels: no vocabulary logits, the head swapped in the count", () => {
    const r = resolveText(
      'cls.py',
      'model = AutoModelForSequenceClassification.from_pretrained("meta-llama/Llama-3.1-8B", num_labels=3, torch_dtype="bfloat16")\n' +
        'args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, bf16=True)\n',
    );
    assert.deepEqual([r.setup?.head, r.setup?.num_labels], ['seq_cls', 3]);
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    // Llama-3.1-8B's published 8,030,261,248 parameters with the untied lm_head (128,256 x 4,096) replaced by a
    // bias-free score layer 4,096 x 3 (LlamaForSequenceClassification).
    assert.equal(e.estimate.parameters.total, 8_030_261_248 - 128_256 * 4096 + 4096 * 3);
    assert.ok(!e.estimate.perGpu.phases.some((p) => p.components.some((c) => c.id === 'logits-loss')));
  });
  it('RewardTrainer: a one-label classifier trained on the chosen and the rejected sequence of each pair', () => {
    const r = resolveText(
      'reward.py',
      'from trl import RewardConfig, RewardTrainer\nargs = RewardConfig(output_dir="rm", per_device_train_batch_size=4, max_length=1024, bf16=True)\n' +
        'trainer = RewardTrainer(model="Qwen/Qwen2.5-0.5B", args=args, train_dataset=ds)\n',
    );
    assert.deepEqual([r.setup?.head, r.setup?.num_labels], ['seq_cls', 1]);
    assert.deepEqual(r.setup?.preference, { reference: 'none', logps: 'rows', paired: true });
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    // Qwen2.5-0.5B ties its embeddings: no lm_head to remove, a 896 x 1 score layer added to 494,032,768.
    assert.equal(e.estimate.parameters.total, 494_032_768 + 896);
  });
});

describe('analyzeHfPython: label smoothing', () => {
  it("label_smoothing_factor above 0 hands the loss to the HF Trainer's LabelSmoother", () => {
    const text = (f: string): string =>
      `model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", torch_dtype="bfloat16")\n` +
      `args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, bf16=True, ` +
      `label_smoothing_factor=${f})\n`;
    assert.equal(resolveText('train.py', text('0.1')).setup?.label_smoothing, true);
    assert.equal(resolveText('train.py', text('0.0')).setup?.label_smoothing, undefined);
  });
});

describe('hf-python: a DeepSpeed config the script hands DeepSpeed itself', () => {
  // yxuansu/OpenAlpaca's train_sft.py: `args['ds_config_path'] = f'dsconfig/{args["model"]}.json'` then
  // `HfDeepSpeedConfig(args['ds_config_path'])`; DeepSpeed-Chat's `deepspeed.initialize(..., config=ds_config)`.
  const script = (arg: string): string =>
    'import deepspeed\nfrom transformers import AutoModelForCausalLM\n' +
    'from transformers.integrations import HfDeepSpeedConfig\n' +
    `dschf = HfDeepSpeedConfig(${arg})\n` +
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
    'engine, *_ = deepspeed.initialize(model=model, config=dschf.config)\n';

  it('a path is followed as a DeepSpeed config', () => {
    const r = analyzeHfPython(script("'ds_z3_config.json'"));
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['deepspeed', 'ds_z3_config.json']],
    );
  });

  it('a path built at run time is said where it is named: the estimate is without ZeRO', () => {
    const r = resolveText('train.py', script('f"dsconfig/{name}.json"'));
    // The last of the two places that name it (deepspeed.initialize's config=dschf.config) says so.
    const warning = r.problems.find((p) => p.code === 'not-static' && p.severity === 'warning');
    assert.equal(warning?.key, 'config');
    assert.match(warning?.message ?? '', /dschf.config is not known statically: the estimate is without ZeRO/);
    assert.equal(r.setup?.zero_stage, 0);
  });
});

describe('hf-python: an image encoder a model class loads as its vision tower', () => {
  it('is not the model that trains (CLIPVisionModel beside the language model)', () => {
    // nkkbr/241121_qwerty@2f8ba35 qwerty_qwen2.py loads CLIPVisionModel.from_pretrained(CLIP_MODEL_NAME) inside its
    // Qwen2 model class; the run had been read as the CLIP model, an unknown model.
    const text = [
      'from transformers import AutoModelForCausalLM, CLIPVisionModel, Trainer, TrainingArguments',
      'vision = CLIPVisionModel.from_pretrained("openai/clip-vit-large-patch14-336")',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const models = analyzeHfPython(text)
      .facts.filter((f) => f.key === 'model')
      .map((f) => f.value);
    assert.deepEqual(models, ['Qwen/Qwen2.5-0.5B']);
  });
});

describe('hf-python: from_pretrained(use_flash_attention_2=True)', () => {
  it("is FlashAttention-2, transformers 4.34-4.35's switch still honoured in 4.4x; False leaves the default", () => {
    const load = (v: string): unknown[] =>
      analyzeHfPython(
        `from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", use_flash_attention_2=${v})\n`,
      )
        .facts.filter((f) => f.key === 'attention')
        .map((f) => f.value);
    assert.deepEqual(load('True'), ['flash']);
    assert.deepEqual(load('False'), []);
  });
});
