// An attribute of the training arguments set after they are made (`args.bf16 = True`), read as the call's keyword
// (src/analyzers/hf-python/config-attributes.ts); on a branch not known statically, not known, said in the assumption.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runProject } from '../helpers';

/** The shape of SakibAhmedShuva/Gemma-3-LLM-Fine-Tuning's qlora-training.ipynb, cut to what decides the precision. */
function script(set: readonly string[]): string {
  return [
    'import torch',
    'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)',
    'args = TrainingArguments(output_dir="o", per_device_train_batch_size=2, bf16=False, fp16=False)',
    ...set,
    'Trainer(model=model, args=args).train()',
    '',
  ].join('\n');
}

const fact = (text: string, key: string): unknown => analyzeHfPython(text).facts.find((f) => f.key === key)?.value;

describe('hf-python: training arguments set after the call', () => {
  it('`args.bf16 = True` after TrainingArguments(bf16=False) is bf16 autocast, located at the assignment', () => {
    const text = script(['args.bf16 = True']);
    const r = analyzeHfPython(text);
    const bf16 = r.facts.filter((f) => f.key === 'bf16');
    assert.deepEqual(
      bf16.map((f) => f.value),
      [false, true],
    );
    assert.equal(text.slice(bf16[1].keySpan.start, bf16[1].keySpan.end), 'bf16');
    assert.ok(bf16[1].keySpan.start > text.indexOf('args.bf16'));
    assert.equal(runProject({ 'train.py': text }, 'train.py').setup?.mixed_precision, 'bf16');
  });

  it('set only under `if capability >= 8:`: not known, the call’s bf16=False dropped, the assumption says so', () => {
    const text = script([
      'if torch.cuda.get_device_capability(0)[0] >= 8:',
      '    args.bf16 = True',
      'else:',
      '    args.fp16 = True',
    ]);
    assert.deepEqual(fact(text, 'bf16'), { unknown: 'set only when the if at line 5 runs this branch' });
    assert.deepEqual(fact(text, 'fp16'), { unknown: 'set only when the if at line 5 runs this branch' });
    const run = runProject({ 'train.py': text }, 'train.py');
    // Nothing known switches autocast on: fp32 compute (the larger estimate), and the note names the file's line.
    assert.equal(run.setup?.mixed_precision, 'none');
    const p = run.provenance?.mixed_precision;
    assert.equal(p?.kind, 'default');
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /bf16 is not known statically \(True at train\.py:6\)/);
  });

  it('on a branch known not to run (`if False:`), the assignment is left out', () => {
    const text = script(['if False:', '    args.bf16 = True']);
    assert.equal(fact(text, 'bf16'), false);
    assert.equal(runProject({ 'train.py': text }, 'train.py').setup?.mixed_precision, 'none');
  });

  it('an attribute of another object (`model.config.use_cache = False`) is no training argument', () => {
    const text = script(['model.config.bf16 = True']);
    assert.equal(fact(text, 'bf16'), false);
  });

  it("`setattr(training_args, 'max_length', 512)` is the keyword max_length, located at the name's string", () => {
    // biosharp18/CS245-project train_DPO.py: DPOConfig(output_dir=...) and then setattr for the batch and lengths.
    const text = [
      'from transformers import AutoModelForCausalLM',
      'from trl import DPOConfig, DPOTrainer',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")',
      'training_args = DPOConfig(output_dir="out")',
      "setattr(training_args, 'per_device_train_batch_size', 4)",
      "setattr(training_args, 'max_prompt_length', 128)",
      "setattr(training_args, 'max_length', 512)",
      "setattr(model, 'max_length', 64)",
      'setattr(training_args, name, 2)',
      'DPOTrainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const mb = r.facts.find((f) => f.key === 'microBatchSize');
    assert.equal(mb?.value, 4);
    assert.equal(text.slice(mb?.keySpan.start, mb?.keySpan.end), 'per_device_train_batch_size');
    const run = runProject({ 'train_DPO.py': text }, 'train_DPO.py');
    // Not TRL's defaults (8 per GPU, max_length 1024): the model's setattr and the one with a variable name set nothing.
    assert.deepEqual([run.setup?.micro_batch_size, run.setup?.seq_len], [4, 512]);
  });

  it('set on the training arguments HfArgumentParser parsed: over the launch line, and use_cpu warned', () => {
    // aarentai/Qwen trl/train_ppo.py:78-83: `training_args.fp16 = True` and `training_args.use_cpu = True` right after
    // parse_args_into_dataclasses(); its launcher passes neither. They were dropped: TRL's bf16 default was assumed.
    const text = [
      'from transformers import AutoModelForCausalLM, HfArgumentParser',
      'from trl import ModelConfig, PPOConfig, PPOTrainer',
      'parser = HfArgumentParser((ScriptArguments, PPOConfig, ModelConfig))',
      'script_args, training_args, model_args = parser.parse_args_into_dataclasses()',
      'training_args.fp16 = True',
      'training_args.use_cpu = True',
      'model_args.lora_r = 16',
      'policy = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-1b-deduped")',
      'trainer = PPOTrainer(args=training_args, model=policy)',
      'trainer.train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const fp16 = r.facts.find((f) => f.key === 'fp16');
    assert.deepEqual([fp16?.value, fp16?.overridesLauncher], [true, true]);
    assert.equal(text.slice(fp16!.keySpan.start, fp16!.keySpan.end), 'fp16');
    // Another parsed dataclass's attribute that is no training argument gives nothing.
    assert.equal(
      r.facts.some((f) => f.key === 'loraR'),
      false,
    );
    const codes = r.problems.map((p) => [p.code, p.severity, p.message.split(':')[0]]);
    assert.deepEqual(
      codes.filter(([c]) => c === 'runs-on-cpu'),
      [['runs-on-cpu', 'warning', 'use_cpu=True']],
    );
    // PPOTrainer's value, reference and reward models are said not to be modeled, at the call.
    const ppo = r.problems.find((p) => p.code === 'not-modeled' && /PPO value model/.test(p.message));
    assert.equal(text.slice(ppo?.span.start, ppo?.span.end), 'PPOTrainer');
    const run = runProject({ 'train_ppo.py': text, 'run.sh': 'python train_ppo.py --fp16 False\n' }, 'run.sh');
    assert.equal(run.setup?.mixed_precision, 'fp16');
  });

  it('set in the function the parsed arguments are handed to, through its one call (weirayao/X-R1 grpo.py)', () => {
    // X-R1@c74d64d src/x_r1/grpo.py:216 sets `training_args.gradient_checkpointing = False` in main(), which the module
    // calls once with what TrlParser parsed; its recipe YAML sets gradient_checkpointing: true.
    const text = [
      'from trl import GRPOConfig, GRPOTrainer, ModelConfig, ScriptArguments, TrlParser',
      'def main(script_args, training_args, model_args):',
      '    training_args.gradient_checkpointing = False',
      '    GRPOTrainer(model=model_args.model_name_or_path, reward_funcs=[], args=training_args).train()',
      'if __name__ == "__main__":',
      '    parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))',
      '    script_args, training_args, model_args = parser.parse_args_and_config()',
      '    main(script_args, training_args, model_args)',
      '',
    ].join('\n');
    const gc = analyzeHfPython(text).facts.find((f) => f.key === 'gradientCheckpointing');
    assert.deepEqual([gc?.value, gc?.overridesLauncher], ['none', true]);
    // Called twice, the parameter holds no one value: nothing is taken.
    const twice = text + '    main(script_args, training_args, model_args)\n';
    assert.equal(
      analyzeHfPython(twice).facts.some((f) => f.key === 'gradientCheckpointing'),
      false,
    );
  });

  it("`config._attn_implementation = ...` on the config a load is given is the load's attn_implementation", () => {
    // RUCAIBox/LLMBox training/train.py:72, 169-172: `use_flash_attention: bool = HfArg(default=True)`, then
    // `if args.use_flash_attention: config._attn_implementation = "flash_attention_2"` before
    // `from_pretrained(..., config=config)`. It was read as the Trainer's default, SDPA.
    const text = (flag: string) =>
      [
        'from dataclasses import dataclass',
        'from transformers import AutoConfig, AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
        '@dataclass',
        'class Arguments(TrainingArguments):',
        `    use_flash_attention: bool = HfArg(default=${flag})`,
        'args = HfArgumentParser(Arguments).parse_args_into_dataclasses()[0]',
        'config = AutoConfig.from_pretrained("meta-llama/Llama-2-7b-hf")',
        'if args.use_flash_attention:',
        '    config._attn_implementation = "flash_attention_2"',
        'else:',
        '    config._attn_implementation = "eager"',
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", config=config)',
        'Trainer(model=model, args=args).train()',
        '',
      ].join('\n');
    assert.equal(fact(text('True'), 'attention'), 'flash');
    assert.equal(fact(text('False'), 'attention'), 'eager');
    // Set after the load, or on another object, it is not the load's.
    const after = text('True').replace(
      /if args[\s\S]*?"eager"\n(model = .*\n)/,
      '$1config._attn_implementation = "flash_attention_2"\n',
    );
    assert.equal(fact(after, 'attention'), undefined);
  });
});
