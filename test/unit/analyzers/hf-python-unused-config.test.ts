// A LoraConfig the script makes and never hands on applies no adapter, nor a TRL ModelConfig of which it reads only
// the model's name (src/analyzers/hf-python/unused-config.ts).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runProject } from '../helpers';

/** datawhalechina/self-llm MiniCPM/train.py, cut to what decides the method: its get_peft_model is commented out. */
const SCRIPT = [
  'import torch',
  'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
  'from peft import LoraConfig, TaskType, get_peft_model',
  'model = AutoModelForCausalLM.from_pretrained("openbmb/MiniCPM-2B-sft-bf16", torch_dtype=torch.bfloat16)',
  'config = LoraConfig(task_type=TaskType.CAUSAL_LM, target_modules=["q_proj", "v_proj"], r=8, lora_alpha=32)',
  '# model = get_peft_model(model, config)',
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)',
  'Trainer(model=model, args=args).train()',
  '',
].join('\n');

describe('hf-python: a PEFT config nothing reads', () => {
  it('is no LoRA: the method stays a full fine-tune, said at the call', () => {
    const r = analyzeHfPython(SCRIPT);
    assert.equal(
      r.facts.find((f) => f.key === 'method'),
      undefined,
    );
    assert.equal(
      r.facts.find((f) => f.key === 'loraR'),
      undefined,
    );
    const note = r.problems.find((p) => p.code === 'no-effect');
    assert.match(note?.message ?? '', /LoraConfig\(\.\.\.\) is made as config, which nothing in the script reads/);
    assert.equal(SCRIPT.slice(note!.span.start, note!.span.end), 'LoraConfig');
    assert.equal(runProject({ 'train.py': SCRIPT }, 'train.py').setup?.method, 'full');
  });

  it('handed on (the call not commented out), it is LoRA as before', () => {
    const used = SCRIPT.replace('# model = get_peft_model', 'model = get_peft_model');
    const r = analyzeHfPython(used);
    assert.equal(r.facts.find((f) => f.key === 'method')?.value, 'lora');
    assert.equal(r.facts.find((f) => f.key === 'loraR')?.value, 8);
  });

  it('a BitsAndBytesConfig nothing reads quantizes nothing (D-Katt/llm_tuning train_lora.py)', () => {
    // D-Katt/llm_tuning@a90f48e src/train_lora.py: the config is made, its use in from_pretrained commented out.
    const script = [
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments',
      'quant_config = BitsAndBytesConfig(load_in_8bit=True)',
      'model = AutoModelForCausalLM.from_pretrained(',
      '    "Qwen/Qwen2.5-0.5B",',
      '    # quantization_config=quant_config,',
      ')',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(script);
    assert.equal(
      r.facts.find((f) => f.key === 'quantBits'),
      undefined,
    );
    const note = r.problems.find((p) => p.code === 'no-effect');
    assert.match(note?.message ?? '', /quant_config, which nothing in the script reads: the model is not quantized/);
    assert.equal(runProject({ 'train.py': script }, 'train.py').setup?.quantization, undefined);
    const used = script.replace('# quantization_config', 'quantization_config');
    assert.equal(analyzeHfPython(used).facts.find((f) => f.key === 'quantBits')?.value, 8);
  });

  it('a BitsAndBytesConfig read only on the side of a conditional the launch line does not take quantizes nothing', () => {
    // The from_pretrained of cywsg/llama-recipes-cy's llama_qlora_finetuning.py (`quantization_config=bnb_config if
    // train_config.quantization else None`), with the switch an argparse store_true option.
    const script = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--quantization", action="store_true")',
      'args = p.parse_args()',
      'bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")',
      'model = AutoModelForCausalLM.from_pretrained(',
      '    "meta-llama/Llama-2-7b-hf", quantization_config=bnb_config if args.quantization else None',
      ')',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const off = analyzeHfPython(script);
    assert.equal(
      off.facts.find((f) => f.key === 'quantBits'),
      undefined,
    );
    const note = off.problems.find((p) => p.code === 'no-effect');
    assert.match(
      note?.message ?? '',
      /bnb_config, which the script reads only on branches that do not run: the model is not/,
    );
    const run = (line: string) =>
      runProject({ 'train.py': script, 'run.sh': `python train.py ${line}\n` }, 'run.sh').setup?.quantization?.bits;
    assert.equal(run(''), undefined);
    // The launch line turns the switch on: the config is the load's.
    assert.equal(run('--quantization'), 4);
  });

  it("a TRL ModelConfig read only for the model's name: its 4-bit load, dtype and LoRA do not apply (LiMing)", () => {
    // 0xSingletOnly/LiMing grpo.ipynb (abridged): ModelConfig(load_in_4bit=True, use_peft=True) is built, and the trainer
    // gets model_config.model_name_or_path, a string TRL loads itself; the LoRA comes from the LoraConfig passed in.
    const grpo = [
      'from trl import GRPOConfig, GRPOTrainer, ModelConfig',
      'from peft import LoraConfig',
      'model_config = ModelConfig(model_name_or_path="Qwen/Qwen3-0.6B", torch_dtype="bfloat16", use_peft=True, load_in_4bit=True)',
      'peft_config = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear")',
      'args = GRPOConfig(output_dir="o", per_device_train_batch_size=2, max_completion_length=256, num_generations=2)',
      'trainer = GRPOTrainer(model=model_config.model_name_or_path, reward_funcs=[], args=args, peft_config=peft_config)',
      'trainer.train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(grpo);
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'Qwen/Qwen3-0.6B');
    assert.equal(
      r.facts.find((f) => f.key === 'quantBits'),
      undefined,
    );
    const note = r.problems.find((p) => p.code === 'no-effect');
    assert.match(
      note?.message ?? '',
      /reads only the model name: its torch_dtype, use_peft, load_in_4bit do not apply/,
    );
    const run = runProject({ 'train.py': grpo }, 'train.py').setup;
    assert.deepEqual([run?.method, run?.quantization, run?.lora?.r], ['lora', undefined, 16]);
    // Handed on through TRL's helper, the 4-bit load applies: QLoRA.
    const handed = grpo.replace(
      'trainer = GRPOTrainer(',
      'from trl import get_quantization_config\nq = get_quantization_config(model_config)\ntrainer = GRPOTrainer(',
    );
    assert.equal(analyzeHfPython(handed).facts.find((f) => f.key === 'quantBits')?.value, 4);
    assert.equal(runProject({ 'train.py': handed }, 'train.py').setup?.method, 'qlora');
  });

  it("a ModelConfig parsed from the command line and read only for the name: the line's --dtype reaches no load", () => {
    // The shape of Carlos-Mero/proofrl@072e54e main.py: TrlParser((ScriptArguments, GRPOConfig, ModelConfig)) and
    // GRPOTrainer(model=model_cfg.model_name_or_path, args=grpo_cfg), no model_init_kwargs; its launcher passes
    // --dtype bfloat16. TRL loads the id itself, in float32 from 0.27 (trl/trainer/utils.py create_model_from_path).
    const script = [
      'from trl import GRPOConfig, GRPOTrainer, ModelConfig, ScriptArguments, TrlParser',
      'parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))',
      'script_cfg, grpo_cfg, model_cfg = parser.parse_args_and_config()',
      'GRPOTrainer(model=model_cfg.model_name_or_path, args=grpo_cfg, reward_funcs=[]).train()',
      '',
    ].join('\n');
    const line = 'accelerate launch main.py --model_name_or_path Qwen/Qwen3-8B --dtype bfloat16\n';
    const r = runProject({ 'main.py': script, 'run.sh': line }, 'run.sh');
    assert.equal(r.setup?.weights_dtype, 'fp32');
    const w = r.problems.find((p) => p.code === 'no-effect' && p.key === '--dtype');
    assert.equal(w?.severity, 'warning');
    assert.match(w?.message ?? '', /of which it reads only the model name: the trainer loads the model id/);
    // Handed on (model_init_kwargs from model_cfg.dtype, as TRL's own scripts do), the flag holds.
    const handed = script.replace(
      'GRPOTrainer(',
      'grpo_cfg.model_init_kwargs = dict(dtype=model_cfg.dtype)\nGRPOTrainer(',
    );
    assert.equal(runProject({ 'main.py': handed, 'run.sh': line }, 'run.sh').setup?.weights_dtype, 'bf16');
  });
});
