// The script's own values: module constants, argparse defaults, arguments-dataclass defaults and the arguments of a
// function called once, read where `args.x` uses them; each is a fact located at its default, and a launcher's flag
// wins over it. Snippets follow the real scripts they are cut from (cited per test).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';
import {
  isUnknown,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
  type Unknown,
} from '../../../src/analyzers/facts';

function facts(r: ConfigFacts, key: CanonicalKey): Fact[] {
  return r.facts.filter((f) => f.key === key);
}
function last(r: ConfigFacts, key: CanonicalKey): Fact | undefined {
  const fs = facts(r, key);
  return fs[fs.length - 1];
}
const at = (text: string, f: Fact | undefined): string => (f ? text.slice(f.valueSpan.start, f.valueSpan.end) : '');

describe("hf-python: the script's own values", () => {
  it('a float with a trailing dot (weight_decay=0., num_train_epochs=3.) is a number, not a syntax error', () => {
    // songxiaoshuai/postEdit finetune.py: `weight_decay=0.,` inside TrainingArguments(...). lezer's Python grammar
    // reads `0.` as the number's member with its name missing; the call's other values were said to be lost with it.
    const text = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")',
      'args = TrainingArguments(output_dir="o", weight_decay=0., num_train_epochs=3.,',
      '    per_device_train_batch_size=4, gradient_accumulation_steps=8)',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.deepEqual(
      r.problems.filter((p) => p.code === 'syntax-error'),
      [],
    );
    assert.deepEqual([last(r, 'microBatchSize')?.value, last(r, 'gradientAccumulationSteps')?.value], [4, 8]);
    // A real error beside it is still one.
    const broken = analyzeHfPython(text.replace('num_train_epochs=3.,', 'num_train_epochs=3.,,'));
    assert.equal(broken.problems.filter((p) => p.code === 'syntax-error').length, 1);
  });

  it('a model with nothing in the file that trains it is said to take HF Trainer defaults, at the model', () => {
    // llama-cookbook's quickstart notebook trains through llama_cookbook's own train(...): no Trainer, TRL trainer or
    // loop is read, so the batch and precision are HF Trainer's defaults. (A file that only runs its model,
    // generate / eval / no_grad with no call that trains, gives no estimate: hf-python-inference-only.test.ts.)
    const text =
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\nresults = train(model, train_config)\n';
    const r = analyzeHfPython(text);
    const p = r.problems.find((x) => x.code === 'not-modeled');
    assert.ok(p && p.severity === 'warning', JSON.stringify(r.problems));
    assert.match(p.message, /^no Trainer, TRL trainer or training loop in this file: .*HF Trainer's defaults/);
    assert.equal(text.slice(p.span.start, p.span.end), '"meta-llama/Llama-2-7b-hf"');
    // A Trainer, a TRL trainer or a loop that calls backward says how it trains: no warning.
    for (const trains of [
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      'SFTTrainer(model=model).train()',
      'for b in dl:\n    loss = model(**b).loss\n    loss.backward()',
    ]) {
      const t = analyzeHfPython(`model = AutoModelForCausalLM.from_pretrained("gpt2")\n${trains}\n`);
      assert.ok(!t.problems.some((x) => x.code === 'not-modeled' && /no Trainer/.test(x.message)), trains);
    }
  });

  it('comments inside an argument list or a list are not values (a comment after the last argument)', () => {
    const text = [
      'model = AutoModelForCausalLM.from_pretrained(',
      '    "mistralai/Mistral-7B-v0.1",  # the base',
      '    torch_dtype=torch.bfloat16',
      '    # device_map="auto",',
      ')',
      'config = LoraConfig(r=8, target_modules=[',
      '    "q_proj",  # attention',
      '    "v_proj",',
      '])',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'mistralai/Mistral-7B-v0.1');
    assert.deepEqual(last(r, 'loraTargets')?.value, ['q_proj', 'v_proj']);
  });

  it('int(), float(), bool(), list() of a value known statically convert it as Python does', () => {
    // W-Kaski/qwen-qlora-sql-benchmark train_qlora.py: `r=int(config["lora"]["r"])`, `list(...target_modules)`.
    const text = [
      'BS = "4"',
      'args = TrainingArguments(per_device_train_batch_size=int(BS), gradient_accumulation_steps=int("2.5"),',
      '    learning_rate=float("2e-4"), gradient_checkpointing=bool(1), bf16=bool(""))',
      'config = LoraConfig(r=int(16.0), target_modules=list(["q_proj", "v_proj"]))',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    // int("2.5") raises in Python: not a value.
    assert.equal(typeof last(r, 'gradientAccumulationSteps')?.value, 'object');
    assert.equal(last(r, 'gradientCheckpointing')?.value, 'full');
    assert.equal(last(r, 'loraR')?.value, 16);
    assert.deepEqual(last(r, 'loraTargets')?.value, ['q_proj', 'v_proj']);
    // A set literal is as static as a list (lun2hang/playgemma_textcls_sft gemma2b_sft_Qlora_cls.py:52:
    // `target_modules={"q_proj", "k_proj", "v_proj", "o_proj"}`; it was read as not known, and q_proj,v_proj assumed).
    const set = analyzeHfPython('config = LoraConfig(r=8, target_modules={"q_proj", "k_proj", "v_proj", "o_proj"})\n');
    assert.deepEqual(last(set, 'loraTargets')?.value, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
  });

  it('bf16 / fp16 that ask the GPU for bf16: 16-bit mixed precision, bf16 said as the reading of such a GPU', () => {
    // Unsloth's notebooks (ihassangrewal/LLM-LLama-3-8b-Fine-Tuning Llama_3_8b_Fine_Tuning.ipynb cell 17):
    // `fp16 = not is_bfloat16_supported(), bf16 = is_bfloat16_supported()`: one of the two is on on every GPU. It was
    // read as neither known, so no mixed precision.
    const text = [
      'from unsloth import is_bfloat16_supported',
      'import torch',
      'use_bf16 = torch.cuda.is_bf16_supported()',
      'args = TrainingArguments(output_dir="o", fp16=not is_bfloat16_supported(), bf16=is_bfloat16_supported())',
      'other = TrainingArguments(output_dir="o", fp16=not use_bf16, bf16=use_bf16)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const seen = (key: CanonicalKey): unknown[] => facts(r, key).map((f) => [f.value, f.origin, f.tool]);
    assert.deepEqual(seen('bf16'), [
      [true, 'call-default', 'vram-lens'],
      [true, 'call-default', 'vram-lens'],
    ]);
    assert.deepEqual(seen('fp16'), [
      [false, 'call-default', 'vram-lens'],
      [false, 'call-default', 'vram-lens'],
    ]);
    assert.match(last(r, 'bf16')?.defaultNote ?? '', /^use_bf16 is True on GPUs that compute in bf16 .* fp16 mixed/);
    // `fp16=torch.cuda.is_available()` ("use 16-bit if GPU", Ycmmn/T5-CNN-dailymail-summarization src/config.py:13):
    // True on the GPU the estimate is for. It was read as not known, so no mixed precision.
    const cuda = analyzeHfPython(
      'import torch\ngpu = torch.cuda.is_available()\na = TrainingArguments(output_dir="o", fp16=gpu, bf16=not gpu)\n',
    );
    assert.deepEqual([last(cuda, 'fp16')?.value, last(cuda, 'bf16')?.value], [true, false]);
    assert.equal(last(cuda, 'fp16')?.defaultNote, 'gpu is True on the GPU the estimate is for');
    // Anything else about the GPU stays unknown.
    const other = analyzeHfPython('args = TrainingArguments(output_dir="o", bf16=torch.cuda.device_count() > 1)\n');
    assert.ok(isUnknown(last(other, 'bf16')?.value as FactValue | Unknown));
  });

  it('bf16 chosen by the GPU compute capability: worked out on an 8.x GPU, said at the keyword', () => {
    // THULiusj/Flan-T5-Deepspeed-Vertex run_seq2seq_deepspeed.py:95
    // `BF_16 = True if torch.cuda.get_device_capability()[0] == 8 else False`: on for A100 (8.0), A10 (8.6), RTX 40
    // (8.9), off on H100 (9.0) and T4 (7.5). It was read as not known, so the fp32 ZeRO-3 run on every GPU.
    const read = (expr: string): unknown => {
      const r = analyzeHfPython(
        `import torch\nBF_16 = ${expr}\nargs = TrainingArguments(output_dir="o", bf16=BF_16)\n`,
      );
      return last(r, 'bf16')?.value;
    };
    assert.equal(read('True if torch.cuda.get_device_capability()[0] == 8 else False'), true);
    assert.equal(read('False if torch.cuda.get_device_capability()[0] == 8 else True'), false);
    assert.equal(read('torch.cuda.get_device_capability()[0] >= 8'), true);
    assert.equal(read('torch.cuda.get_device_capability()[0] >= 9'), false);
    assert.equal(read('torch.cuda.get_device_capability() >= (8, 0)'), true);
    const r = analyzeHfPython(
      'import torch\nargs = TrainingArguments(output_dir="o", bf16=torch.cuda.get_device_capability()[0] == 8)\n',
    );
    assert.match(last(r, 'bf16')?.defaultNote ?? '', /compute capability 8\.x .* an H100 \(9\.0\)/);
    assert.ok(isUnknown(read('torch.cuda.get_device_capability()[1] == 0') as FactValue | Unknown));
  });

  it("the same test as an argparse option's default, handed to the training arguments: worked out so too", () => {
    // tohtana/ds_repro_2746 run_seq2seq_deepspeed_peft.py: `parser.add_argument("--bf16", type=bool, default=True if
    // torch.cuda.get_device_capability()[0] == 8 else False)`, then `bf16=args.bf16`. It was read as not known (no
    // bf16 on an A100: 20.5 GiB where the run takes 13.6).
    const r = analyzeHfPython(
      [
        'import argparse, torch',
        'parser = argparse.ArgumentParser()',
        'parser.add_argument("--bf16", type=bool, default=True if torch.cuda.get_device_capability()[0] == 8 else False)',
        'args = parser.parse_args()',
        'targs = Seq2SeqTrainingArguments(output_dir="o", bf16=args.bf16)',
        '',
      ].join('\n'),
    );
    assert.equal(last(r, 'bf16')?.value, true);
    assert.match(
      last(r, 'bf16')?.defaultNote ?? '',
      /^args\.bf16 \(its default, True if .* else False,\) is worked out/,
    );
  });

  it('a list comprehension that cleans a split option: its items, as Python makes them', () => {
    // jruokola/llm-granite-ft function-finetune-torchao-fsdp2.py: `--lora_target_modules` defaults to "q_proj,v_proj",
    // and LoraConfig takes `[m.strip() for m in args.lora_target_modules.split(",")]`; it was read as no target_modules.
    const script = (targets: string): string =>
      [
        'import argparse',
        'cli = argparse.ArgumentParser()',
        'cli.add_argument("--lora_target_modules", default="q_proj, v_proj,")',
        'args = cli.parse_args()',
        `config = LoraConfig(r=16, target_modules=${targets})`,
        '',
      ].join('\n');
    const strip = analyzeHfPython(script('[m.strip() for m in args.lora_target_modules.split(",")]'));
    assert.deepEqual(last(strip, 'loraTargets')?.value, ['q_proj', 'v_proj', '']);
    const kept = analyzeHfPython(script('[m.strip() for m in args.lora_target_modules.split(",") if m.strip()]'));
    assert.deepEqual(last(kept, 'loraTargets')?.value, ['q_proj', 'v_proj']);
    const upper = analyzeHfPython(script('[x.upper() for x in ["q", "v"] if x]'));
    assert.deepEqual(last(upper, 'loraTargets')?.value, ['Q', 'V']);
    // Another element or condition is computed at run time: no list is made up.
    const other = analyzeHfPython(script('[m for m in ["q_proj", "lm_head"] if m != "lm_head"]'));
    assert.ok(isUnknown(last(other, 'loraTargets')?.value as FactValue | Unknown));
  });

  it('names assigned together: `a, b = "x", "y"` gives each its value, `a = b = "x"` both the one', () => {
    // tinvietle/sft_medical dpo-training.ipynb: `model_id, output_dir = "meta-llama/Llama-3.2-3B-Instruct", "..."`.
    const text = [
      'model_id, output_dir = "meta-llama/Llama-3.2-3B-Instruct", "Llama-3.2-3B-Instruct-DPO"',
      '(bs, accum) = (4, 8)',
      'lr = warm = 2e-4',
      'args = TrainingArguments(output_dir=output_dir, per_device_train_batch_size=bs,',
      '    gradient_accumulation_steps=accum, learning_rate=lr)',
      'model = AutoModelForCausalLM.from_pretrained(model_id)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'meta-llama/Llama-3.2-3B-Instruct');
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    assert.equal(last(r, 'gradientAccumulationSteps')?.value, 8);
    // A call's items are not written out: still unknown.
    const call = analyzeHfPython('model_id, out = pick()\nm = AutoModelForCausalLM.from_pretrained(model_id)\n');
    assert.equal(typeof last(call, 'model')?.value, 'object');
  });

  it('statements on one line joined by `;` each bind their names, at the top level and in a function', () => {
    // Notebook cells and short scripts write `model_id = "..."; bs = 4`; the names were "not assigned in this file".
    const text = [
      'model_id = "Qwen/Qwen2.5-1.5B"; bs = 4',
      'def main():',
      '    accum = 8; lr = 2e-4',
      '    model = AutoModelForCausalLM.from_pretrained(model_id)',
      '    TrainingArguments(output_dir="o", per_device_train_batch_size=bs, gradient_accumulation_steps=accum)',
      'main()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'Qwen/Qwen2.5-1.5B');
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    assert.equal(last(r, 'gradientAccumulationSteps')?.value, 8);
  });

  it('the parsed command line as a dict: `vars(parser.parse_args())["x"]`, and `def main(**args)` called with it', () => {
    // yxuansu/OpenAlpaca train_sft.py (abridged): `args = parser_args()`, `args = vars(args)`, `main(**args)`, where
    // `main` reads `args["model_path"]` and sets `args['ds_config_path'] = f'dsconfig/{args["model"]}.json'` for
    // HfDeepSpeedConfig; the items were "looked up at run time", so the DeepSpeed config (ZeRO-3) was not read.
    const inline = [
      'import argparse',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--model_path", default="Qwen/Qwen2.5-1.5B")',
      'parser.add_argument("--batch_size", type=int, default=4)',
      'args = vars(parser.parse_args())',
      'model = AutoModelForCausalLM.from_pretrained(args["model_path"])',
      'TrainingArguments(output_dir="o", per_device_train_batch_size=args["batch_size"])',
      '',
    ].join('\n');
    const r = analyzeHfPython(inline);
    assert.equal(last(r, 'model')?.value, 'Qwen/Qwen2.5-1.5B');
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    const kwargs = [
      'import argparse',
      'from transformers.integrations import HfDeepSpeedConfig',
      'def parser_args():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--model", type=str, default="openllama")',
      '    parser.add_argument("--model_path", type=str, default="openlm-research/open_llama_3b")',
      '    return parser.parse_args()',
      'def main(**args):',
      '    args["ds_config_path"] = f"dsconfig/{args[\'model\']}.json"',
      '    dschf = HfDeepSpeedConfig(args["ds_config_path"])',
      '    model = AutoModelForCausalLM.from_pretrained(args["model_path"])',
      '    model.train()',
      'if __name__ == "__main__":',
      '    args = parser_args()',
      '    args = vars(args)',
      '    main(**args)',
      '',
    ].join('\n');
    const k = analyzeHfPython(kwargs);
    assert.equal(last(k, 'model')?.value, 'openlm-research/open_llama_3b');
    assert.deepEqual(
      k.references.filter((x) => x.kind === 'deepspeed').map((x) => x.path),
      ['dsconfig/openllama.json'],
    );
  });

  it('max() and min() of numbers known statically: the largest and the smallest', () => {
    // Farhamdur/llama3-alignment-drift train_dpo.py: `per_device_eval_batch_size=max(1, args.batch_size)`.
    const text = [
      'import argparse',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--batch_size", type=int, default=2)',
      'args = p.parse_args()',
      'cfg = TrainingArguments(per_device_train_batch_size=min(8, args.batch_size, 4),',
      '    per_device_eval_batch_size=max(1, args.batch_size), gradient_accumulation_steps=max(args.steps))',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'microBatchSize')?.value, 2);
    assert.equal(last(r, 'evalBatchSize')?.value, 2);
    // One argument is an iterable's maximum: not read.
    assert.equal(typeof last(r, 'gradientAccumulationSteps')?.value, 'object');
  });

  it("a name set in a `try` body is set past the statement; one a handler sets too is the handler's, conditional", () => {
    // Rakavi-RP/Session-30-LLM smollm2-refined.ipynb: `try: config = AutoConfig.from_pretrained(model_id)` with an
    // `except` that returns, then `AutoModelForCausalLM.from_config(config)` in another `try`.
    const text = [
      'def setup():',
      '    model_id = "HuggingFaceTB/SmolLM2-1.7B"',
      '    try:',
      '        config = AutoConfig.from_pretrained(model_id)',
      '    except Exception as e:',
      '        return None',
      '    try:',
      '        model = AutoModelForCausalLM.from_config(config)',
      '    except Exception:',
      '        return None',
      '    return model',
      '',
      'model = setup()',
      'try:',
      '    bs = int("4")',
      'except ValueError:',
      '    raise',
      'else:',
      '    steps = 2',
      'finally:',
      '    print("done")',
      'args = TrainingArguments(per_device_train_batch_size=bs, gradient_accumulation_steps=steps)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'HuggingFaceTB/SmolLM2-1.7B');
    // The `else` body runs where the `try` body raised nothing.
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    assert.equal(last(r, 'gradientAccumulationSteps')?.value, 2);
    // `try: import flash_attn; attn = "flash_attention_2"` / `except ImportError: attn = "eager"`: either may run.
    const both = [
      'try:',
      '    import flash_attn',
      '    attn = "flash_attention_2"',
      'except ImportError:',
      '    attn = "eager"',
      'model = AutoModelForCausalLM.from_pretrained("gpt2", attn_implementation=attn)',
      '',
    ].join('\n');
    const attention = last(analyzeHfPython(both), 'attention');
    assert.match((attention?.value as Unknown).unknown, /attn is set conditionally at line 4/);
  });

  it('`sys.argv[1] if len(sys.argv) > 1 else "..."`: the default when the command line gives no argument', () => {
    // After-Wind/grpo_gsm8k train_grpo.py.
    const text = [
      'import sys',
      'model_name = sys.argv[1] if len(sys.argv) > 1 else "meta-llama/Llama-2-7b-chat-hf"',
      'model = AutoModelForCausalLM.from_pretrained(model_name)',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'meta-llama/Llama-2-7b-chat-hf');
    assert.equal(model?.origin, 'script-default');
    assert.equal(at(text, model), '"meta-llama/Llama-2-7b-chat-hf"');
    // Any other test of the command line stays unknown.
    const other = text.replace('len(sys.argv) > 1', 'sys.argv[2] == "x"');
    assert.equal(typeof last(analyzeHfPython(other), 'model')?.value, 'object');
  });

  it("the launch line's positional word replaces the `sys.argv[1]` default (After-Wind/grpo_gsm8k run.sh)", () => {
    // run.sh: `accelerate launch ... train_grpo.py "$MODEL_NAME" "${TRAIN_ARGS[@]}"`; the script parses the flags after
    // the model from sys.argv[2:]. Before, the script's default Llama-2-7B was estimated for a Qwen2.5-3B run.
    const script = [
      'import sys',
      'model_name = sys.argv[1] if len(sys.argv) > 1 else "meta-llama/Llama-2-7b-chat-hf"',
      'model = AutoModelForCausalLM.from_pretrained(model_name)',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const reader = {
      read: (f: string): string | undefined => (f === '/w/train_grpo.py' ? script : undefined),
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    const run = (line: string) =>
      runPipeline(
        [
          { file: '/w/run.sh', text: line },
          { file: '/w/train_grpo.py', text: script },
        ],
        reader,
        {},
      );
    const given = run(
      'MODEL_NAME="Qwen/Qwen2.5-3B-Instruct"\naccelerate launch train_grpo.py "$MODEL_NAME" --bf16 True\n',
    );
    assert.equal(given.setup?.model, 'Qwen/Qwen2.5-3B-Instruct');
    // No word at that position: the script's default.
    assert.equal(run('accelerate launch train_grpo.py --bf16 True\n').setup?.model, 'meta-llama/Llama-2-7b-chat-hf');
    // A word after one of unknown length (`"$EXTRA"` may be any number of words) is at no known place: the model is
    // unknown, not the default, and not that word.
    const unplaced = run('accelerate launch train_grpo.py $EXTRA Qwen/Qwen2.5-3B-Instruct\n');
    assert.equal(unplaced.setup, undefined);
    assert.ok(unplaced.problems.some((p) => /sys.argv\[1\] the launch line gives by position/.test(p.message)));
  });

  it('`obj.attr = value` before its use is read back (meta-llama/llama-cookbook quickstart_peft_finetuning.ipynb)', () => {
    const text = [
      'train_config = TRAIN_CONFIG()',
      'train_config.model_name = "meta-llama/Meta-Llama-3.1-8B"',
      'train_config.lr = 3e-4',
      'model = LlamaForCausalLM.from_pretrained(train_config.model_name, torch_dtype=torch.float16)',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'meta-llama/Meta-Llama-3.1-8B');
    assert.equal(at(text, model), 'train_config.model_name');
    assert.match(model?.rawValue ?? '', /train_config.model_name = "meta-llama\/Meta-Llama-3.1-8B" at line 2/);
    // Set on a branch, in a loop or after the use: not known.
    for (const before of [
      'if big:\n    cfg.model_name = "meta-llama/Llama-2-70b-hf"\n',
      'for m in ms:\n    cfg.model_name = m\n',
    ]) {
      const r = analyzeHfPython(
        `cfg = C()\ncfg.model_name = "gpt2"\n${before}AutoModelForCausalLM.from_pretrained(cfg.model_name)\n`,
      );
      assert.ok(typeof last(r, 'model')?.value === 'object', before);
    }
    const after = analyzeHfPython('cfg = C()\nAutoModelForCausalLM.from_pretrained(cfg.name)\ncfg.name = "gpt2"\n');
    assert.ok(typeof last(after, 'model')?.value === 'object');
    // Inside a function, an assignment of the module is not taken (the function may run before it).
    const inFn = analyzeHfPython(
      'cfg.name = "gpt2"\ndef main():\n    AutoModelForCausalLM.from_pretrained(cfg.name)\n',
    );
    assert.ok(typeof last(inFn, 'model')?.value === 'object');
  });

  it("a BitsAndBytesConfig on a branch the script decides statically is the run's quantization", () => {
    // i-am-mushfiq/FirstAidQA-gemma2b-QLoRA train.py: `def get_bnb_config(quant): if quant == "4bit": return
    // BitsAndBytesConfig(load_in_4bit=True, ...) elif quant == "8bit": ...`, called with the --quant default "4bit";
    // lsdlBlueDragon/qwen25vl-chartqa-qlora: `if args.load_in_4bit:` with BooleanOptionalAction default=True. The
    // branch taken gives 4 bits, the other stays unknown; a module constant decides it as an option's default does.
    const text = [
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments, Trainer',
      'def get_bnb_config(quant):',
      '    if quant == "4bit":',
      '        return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")',
      '    elif quant == "8bit":',
      '        return BitsAndBytesConfig(load_in_8bit=True)',
      '    return None',
      'QUANT = "4bit"',
      'model = AutoModelForCausalLM.from_pretrained("google/gemma-2b", quantization_config=get_bnb_config(QUANT))',
      'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const r = runPipeline([{ file: '/p/train.py', text }], { read: () => undefined, join: path.join }, {});
    assert.deepEqual([r.setup?.method, r.setup?.quantization?.bits, r.setup?.quantization?.type], ['qlora', 4, 'nf4']);
    assert.equal(r.decided.quantBits?.location.line, 4);
    const eight = runPipeline(
      [{ file: '/p/train.py', text: text.replace('QUANT = "4bit"', 'QUANT = "8bit"') }],
      { read: () => undefined, join: path.join },
      {},
    );
    assert.equal(eight.setup?.quantization?.bits, 8);
  });

  it("checkpointing turned on only by prepare_model_for_kbit_training runs reentrant (torch's default for {})", () => {
    // PEFT passes gradient_checkpointing_kwargs={} (peft/utils/other.py), which transformers 5 keeps (its
    // use_reentrant=False is for None), so torch.utils.checkpoint takes use_reentrant=True. The Trainer's own
    // gradient_checkpointing=True enables it again later with None: transformers' default then.
    const text = (trainerFlag: string): string =>
      [
        'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments, Trainer',
        'from peft import prepare_model_for_kbit_training',
        'bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")',
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb)',
        'model = prepare_model_for_kbit_training(model)',
        `Trainer(model=model, args=TrainingArguments(output_dir="o"${trainerFlag})).train()`,
        '',
      ].join('\n');
    const run = (flag: string) =>
      runPipeline([{ file: '/p/train.py', text: text(flag) }], { read: () => undefined, join: path.join }, {});
    const alone = run('');
    assert.deepEqual([alone.setup?.gradient_checkpointing, alone.setup?.checkpoint_reentrant], ['full', true]);
    const prov = alone.provenance.checkpoint_reentrant;
    assert.equal(prov?.kind === 'default' ? prov.owner : prov?.kind, 'peft');
    const trainer = run(', gradient_checkpointing=True');
    assert.deepEqual([trainer.setup?.gradient_checkpointing, trainer.setup?.checkpoint_reentrant], ['full', undefined]);
  });

  it('one BitsAndBytesConfig for 4 and 8 bits: an 8-bit load beside bnb_4bit_quant_type="nf4" is LLM.int8', () => {
    // UKPLab/arxiv2024-lfqa-hallucination src/modelling/dpo/sft.py and rui-ye/OpenFedLLM: `load_in_8bit=bits == 8,
    // load_in_4bit=bits == 4, bnb_4bit_quant_type="nf4"`; bitsandbytes' 8-bit layers never read the 4-bit type.
    const text = (bits: number): string =>
      [
        'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments, Trainer',
        `BITS = ${bits}`,
        'bnb = BitsAndBytesConfig(load_in_8bit=BITS == 8, load_in_4bit=BITS == 4, bnb_4bit_quant_type="nf4")',
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb)',
        'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
        '',
      ].join('\n');
    const run = (bits: number) =>
      runPipeline([{ file: '/p/train.py', text: text(bits) }], { read: () => undefined, join: path.join }, {}).setup;
    assert.deepEqual([run(8)?.quantization?.bits, run(8)?.quantization?.type], [8, 'int8']);
    assert.deepEqual([run(4)?.quantization?.bits, run(4)?.quantization?.type], [4, 'nf4']);
  });

  it('`cfg.x` of a function that returns one config built from the parsed options (FirstAidQA-gemma2b-QLoRA)', () => {
    // i-am-mushfiq/FirstAidQA-gemma2b-QLoRA train.py: `def parse_args() -> TrainConfig: ... return
    // TrainConfig(per_device_train_batch_size=args.batch_size, ...)`, `cfg = parse_args()`, `train(cfg)`, and
    // TrainingArguments(per_device_train_batch_size=cfg.per_device_train_batch_size) in train(). --batch_size: 3.
    const text = [
      'import argparse',
      'from dataclasses import dataclass',
      '@dataclass',
      'class TrainConfig:',
      '    per_device_train_batch_size: int = 2',
      'def train(cfg: TrainConfig):',
      '    model = AutoModelForCausalLM.from_pretrained("google/gemma-2b")',
      '    args = TrainingArguments(output_dir="o", per_device_train_batch_size=cfg.per_device_train_batch_size)',
      '    Trainer(model=model, args=args).train()',
      'def parse_args() -> TrainConfig:',
      '    p = argparse.ArgumentParser()',
      '    p.add_argument("--batch_size", type=int, default=3)',
      '    args = p.parse_args()',
      '    return TrainConfig(per_device_train_batch_size=args.batch_size)',
      'if __name__ == "__main__":',
      '    cfg = parse_args()',
      '    train(cfg)',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'microBatchSize')?.value, 3);
  });

  it("`self.x` that the class's __init__ sets once from the parsed command line (yushengsu-thu/mup_training)", () => {
    // code/finetune_llm.py: `class Trainer: def __init__(self, parser): self.llm = parser.llm`, a method loads
    // `from_pretrained(self.llm)`, and `Trainer(args)` with `args = parser.parse_args()` (--llm's default).
    const text = [
      'import argparse',
      'class Runner:',
      '    def __init__(self, parser):',
      '        self.llm = parser.llm',
      '        self.model = None',
      '    def load(self):',
      '        self.model = GPTNeoXForCausalLM.from_pretrained(self.llm)',
      'if __name__ == "__main__":',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--llm", type=str, default="EleutherAI/pythia-70m")',
      '    args = parser.parse_args()',
      '    Runner(args).load()',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'EleutherAI/pythia-70m');
    // Set again by another method of the class: not known.
    const twice = text.replace(
      '        self.model = None',
      '        self.model = None\n    def swap(self):\n        self.llm = "gpt2"',
    );
    assert.ok(typeof last(analyzeHfPython(twice), 'model')?.value === 'object');
  });

  it('a constant of a class the file defines (SCCSMARTCODE/Deep-Learning-03-LLM-FineTuning fine_tuning_gemma_2b.ipynb)', () => {
    const text = [
      'class ModelConfig:',
      '    model_name: str = "google/gemma-2-2b"',
      '    max_len = 512',
      'model = AutoModelForCausalLM.from_pretrained(',
      '    pretrained_model_name_or_path=ModelConfig.model_name,',
      ')',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'google/gemma-2-2b');
    assert.equal(at(text, model), 'ModelConfig.model_name');
    assert.match(model?.rawValue ?? '', /ModelConfig.model_name = "google\/gemma-2-2b" at line 2/);
    // Set twice in the body, or set again on the class or an instance: not known.
    for (const again of [
      text.replace('    max_len = 512', '    model_name = "gpt2"'),
      `${text}ModelConfig.model_name = "gpt2"\n`,
      text.replace('    max_len = 512', '    def __init__(self):\n        self.model_name = "gpt2"'),
    ])
      assert.ok(typeof last(analyzeHfPython(again), 'model')?.value === 'object', again);
  });

  it("an instance's attribute that its class's __init__ sets once (Sayyam-Karnavat/algorand_assistant_vscode)", () => {
    // Fine_tune/qwen13b_mode_training.py (abridged): `class ModelConfig: def __init__(self): self.model_name = ...`,
    // `config = ModelConfig()`, then `load_model_and_tokenizer(config)` reads `config.model_name`: "read at run time".
    const text = [
      'from unsloth import FastLanguageModel',
      'class ModelConfig:',
      '    def __init__(self):',
      '        self.model_name = "unsloth/Meta-Llama-3.1-8B"',
      '        self.max_seq_length = 2048',
      'def load(config):',
      '    return FastLanguageModel.from_pretrained(model_name=config.model_name, max_seq_length=config.max_seq_length)',
      'config = ModelConfig()',
      'model, tokenizer = load(config)',
      'trainer.train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'unsloth/Meta-Llama-3.1-8B');
    assert.equal(last(r, 'seqLen')?.value, 2048);
    // Set again by a method, or on the instance: not known.
    for (const again of [
      text.replace('    return FastLanguageModel', '    config.model_name = pick()\n    return FastLanguageModel'),
      text.replace('def load(config):', '    def reset(self):\n        self.model_name = "gpt2"\ndef load(config):'),
    ])
      assert.ok(typeof last(analyzeHfPython(again), 'model')?.value === 'object', again);
  });

  it('an instance of a class the file defines: the keyword its call gives, else the class body (Coluding/partition-classifier)', () => {
    const text = [
      'class Config:',
      '    model_name = "microsoft/deberta-v3-large"',
      '    batch_size = 4',
      'def main():',
      '    cfg = Config(batch_size=8)',
      '    model = AutoModelForSequenceClassification.from_pretrained(cfg.model_name)',
      '    args = TrainingArguments(output_dir="o", per_device_train_batch_size=cfg.batch_size)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.deepEqual([last(r, 'model')?.value, last(r, 'microBatchSize')?.value], ['microsoft/deberta-v3-large', 8]);
    // A positional argument (an __init__ the estimate does not read) or a function of the same shape: not known.
    for (const other of [
      text.replace('Config(batch_size=8)', 'Config("gpt2")'),
      text
        .replace('class Config:', 'def make():\n    return 1\nclass Config:')
        .replace('Config(batch_size=8)', 'make()'),
    ])
      assert.ok(typeof last(analyzeHfPython(other), 'model')?.value === 'object', other);
  });

  it("a field's default_factory naming a function of the class or the file: its sole return (SIFT's train.py shape)", () => {
    // `def default_lora_modules(): return [...]` in the TrainingArguments subclass's body, then
    // `lora_targetmodules: List[str] = field(default_factory=default_lora_modules)` and
    // `LoraConfig(target_modules=training_args.lora_targetmodules)`: the seven modules, not PEFT's q_proj, v_proj.
    const text = (where: 'class' | 'module') =>
      [
        'import transformers',
        'from dataclasses import dataclass, field',
        'from typing import List',
        'from peft import LoraConfig, get_peft_model',
        ...(where === 'module'
          ? [
              'def default_lora_modules():',
              '    return ["q_proj", "k_proj", "v_proj", "o_proj", "down_proj", "gate_proj", "up_proj"]',
            ]
          : []),
        '@dataclass',
        'class TrainingArguments(transformers.TrainingArguments):',
        '    lora_r: int = field(default=8)',
        ...(where === 'class'
          ? [
              '    def default_lora_modules():',
              '        return ["q_proj", "k_proj", "v_proj", "o_proj", "down_proj", "gate_proj", "up_proj"]',
            ]
          : []),
        '    lora_targetmodules: List[str] = field(default_factory=default_lora_modules)',
        'parser = transformers.HfArgumentParser((TrainingArguments,))',
        '(training_args,) = parser.parse_args_into_dataclasses()',
        'model = transformers.AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")',
        'model = get_peft_model(model, LoraConfig(r=training_args.lora_r, target_modules=training_args.lora_targetmodules))',
        '',
      ].join('\n');
    for (const where of ['class', 'module'] as const)
      assert.deepEqual(
        last(analyzeHfPython(text(where)), 'loraTargets')?.value,
        ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'down_proj', 'gate_proj', 'up_proj'],
        where,
      );
  });

  it("an instance's dataclass holding the file's other dataclasses: config.training.bf16 (cudnah124/ChartQA's shape)", () => {
    // A Config of ModelConfig and TrainConfig fields, each made by its default_factory, a lambda's call or a keyword of
    // the call that makes the instance; a field(default=...) of the innermost class; the instance made by the file's
    // get_config(). Written for this test in the shape of cudnah124/ChartQA sft/config.py.
    const text = [
      'from dataclasses import dataclass, field',
      '@dataclass',
      'class ModelConfig:',
      '    model_name: str = "Qwen/Qwen2.5-1.5B"',
      '@dataclass',
      'class TrainConfig:',
      '    per_device_train_batch_size: int = 4',
      '    gradient_accumulation_steps: int = field(default=8)',
      '@dataclass',
      'class Config:',
      '    model: ModelConfig = field(default_factory=ModelConfig)',
      '    training: TrainConfig = field(default_factory=lambda: TrainConfig(per_device_train_batch_size=2))',
      'def get_config():',
      '    return Config()',
      'def main():',
      '    config = get_config()',
      '    model = AutoModelForCausalLM.from_pretrained(config.model.model_name)',
      '    args = TrainingArguments(',
      '        output_dir="o",',
      '        per_device_train_batch_size=config.training.per_device_train_batch_size,',
      '        gradient_accumulation_steps=config.training.gradient_accumulation_steps,',
      '    )',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const model = last(r, 'model');
    assert.deepEqual(
      [model?.value, last(r, 'microBatchSize')?.value, last(r, 'gradientAccumulationSteps')?.value],
      ['Qwen/Qwen2.5-1.5B', 2, 8],
    );
    assert.match(model?.rawValue ?? '', /config\.model\.model_name = "Qwen\/Qwen2\.5-1\.5B" at line 4/);
    // The call that makes the instance names the inner one: its keyword wins.
    const given = analyzeHfPython(
      text.replace('config = get_config()', 'config = Config(training=TrainConfig(per_device_train_batch_size=16))'),
    );
    assert.equal(last(given, 'microBatchSize')?.value, 16);
    // pydantic models of the same shape: Field(v, description=...) and Field(default_factory=...).
    const pydantic = text
      .replace(/@dataclass\n/g, '')
      .replace(/class (\w+):/g, 'class $1(BaseModel):')
      .replace('field(default=8)', 'Field(8, description="accumulation")')
      .replace(/ field\(default_factory/g, ' Field(default_factory');
    const p = analyzeHfPython(pydantic);
    assert.deepEqual(
      [last(p, 'model')?.value, last(p, 'microBatchSize')?.value, last(p, 'gradientAccumulationSteps')?.value],
      ['Qwen/Qwen2.5-1.5B', 2, 8],
    );
    // An attribute set again elsewhere, or an inner field made by a function: not known.
    for (const other of [
      `${text}    config.training.per_device_train_batch_size = 32\n`,
      text.replace('field(default_factory=lambda: TrainConfig(per_device_train_batch_size=2))', 'make_training()'),
    ])
      assert.ok(typeof last(analyzeHfPython(other), 'microBatchSize')?.value === 'object', other);
  });

  it("the model class a dict of the transformers examples maps the script's --model_type to (MODEL_CLASSES)", () => {
    // transformers' examples before the Auto classes (run_glue.py, run_lm_finetuning.py) and the scripts copied from
    // them: `config_class, model_class, tokenizer_class = MODEL_CLASSES[args.model_type]`, then
    // `model_class.from_pretrained(args.model_name_or_path)`. Written for this test in that shape.
    const text = [
      'import argparse',
      'MODEL_CLASSES = {',
      '    "bert": (BertConfig, BertForSequenceClassification, BertTokenizer),',
      '    "gpt2": (GPT2Config, GPT2LMHeadModel, GPT2Tokenizer),',
      '}',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--model_type", default="bert")',
      'parser.add_argument("--model_name_or_path", default="bert-base-uncased")',
      'args = parser.parse_args()',
      'config_class, model_class, tokenizer_class = MODEL_CLASSES[args.model_type]',
      'model = model_class.from_pretrained(args.model_name_or_path)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.deepEqual([last(r, 'model')?.value, last(r, 'head')?.value], ['bert-base-uncased', 'seq_cls']);
    // The GPT-2 entry loads its LM head: no classifier; a name not in the dict loads nothing known.
    const gpt2 = analyzeHfPython(text.replace('default="bert")', 'default="gpt2")'));
    assert.deepEqual([last(gpt2, 'model')?.value, last(gpt2, 'head')], ['bert-base-uncased', undefined]);
    assert.equal(last(analyzeHfPython(text.replace('default="bert")', 'default="xlnet")')), 'model'), undefined);
  });

  it('an attribute of `Namespace(...)` made of keywords, also through a parameter (dtdo90/finetune_llama3.2)', () => {
    const text = [
      'from argparse import Namespace',
      'script_args = Namespace(gradient_accumulation_steps=4, model_name="meta-llama/Llama-3.2-1B-Instruct")',
      'def create_and_prepare_model(args):',
      '    return AutoModelForCausalLM.from_pretrained(args.model_name)',
      'model = create_and_prepare_model(script_args)',
      'TrainingArguments(output_dir="o", gradient_accumulation_steps=script_args.gradient_accumulation_steps)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.deepEqual(
      [last(r, 'model')?.value, last(r, 'gradientAccumulationSteps')?.value],
      ['meta-llama/Llama-3.2-1B-Instruct', 4],
    );
  });

  it('membership and string methods known statically: `"chat" in NAME.lower()`, `not in` a list', () => {
    const r = analyzeHfPython(
      [
        'NAME = "Qwen/Qwen-7B-Chat"',
        'r = 16 if "chat" in NAME.lower() else 64',
        'a = 8 if "llama" not in ["qwen", "mistral"] else 4',
        'LoraConfig(r=r, lora_alpha=a, target_modules=["c_attn"])',
        '',
      ].join('\n'),
    );
    assert.equal(last(r, 'loraR')?.value, 16);
    assert.equal(last(r, 'loraAlpha')?.value, 8);
  });

  it('an f-string of known strings is formatted; a format spec, a conversion or a number leaves it to run time', () => {
    const model = (expr: string): FactValue | Unknown | undefined =>
      last(
        analyzeHfPython(
          ['ORG = "meta-llama"', 'SIZE = "8B"', 'N = 8', `AutoModelForCausalLM.from_pretrained(${expr})`, ''].join(
            '\n',
          ),
        ),
        'model',
      )?.value;
    assert.equal(model('f"{ORG}/Llama-3.1-{SIZE}"'), 'meta-llama/Llama-3.1-8B');
    assert.equal(model("f'{ORG}/{{x}}'"), 'meta-llama/{x}');
    assert.equal(model('rf"{ORG}\\n"'), 'meta-llama\\n');
    // 8 and 8.0 are the same number once evaluated; Python formats them apart.
    for (const runtime of ['f"{ORG}/Llama-3.1-{N}B"', 'f"{ORG!r}"', 'f"{ORG:>12}"', 'f"{os.environ[\'M\']}"']) {
      const v = model(runtime);
      assert.ok(v !== undefined && isUnknown(v), runtime);
    }
  });

  it("LoRA targets a function of the script collects from the model's linear layers are all-linear (qlora.py)", () => {
    // artidoro/qlora qlora.py: find_all_linear_names keeps every bnb Linear4bit / Linear8bitLt / nn.Linear name but
    // lm_head, and `modules` is bound and used in one `else:` block.
    const text = [
      'def find_all_linear_names(args, model):',
      '    cls = bnb.nn.Linear4bit if args.bits == 4 else torch.nn.Linear',
      '    lora_module_names = set()',
      '    for name, module in model.named_modules():',
      '        if isinstance(module, cls):',
      '            lora_module_names.add(name.split(".")[-1])',
      '',
      '    if "lm_head" in lora_module_names:',
      '        lora_module_names.remove("lm_head")',
      '    return list(lora_module_names)',
      '',
      'def get_accelerate_model(args, checkpoint_dir):',
      '    if checkpoint_dir is not None:',
      '        model = PeftModel.from_pretrained(model, checkpoint_dir)',
      '    else:',
      '        modules = find_all_linear_names(args, model)',
      '        config = LoraConfig(r=64, lora_alpha=16, target_modules=modules)',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'loraTargets')?.value, 'all-linear');
    // Bound on one branch and used after it, the name is still set conditionally.
    const outside = text.replace('        config = LoraConfig', '    config = LoraConfig');
    const v = last(analyzeHfPython(outside), 'loraTargets')?.value;
    assert.ok(v !== undefined && isUnknown(v));
    // A function that returns other names is run-time.
    const other = text.replace('isinstance(module, cls)', '"attn" in name').replace(/Linear/g, 'Conv');
    const w = last(analyzeHfPython(other), 'loraTargets')?.value;
    assert.ok(w !== undefined && isUnknown(w));
  });

  it("so are they through a parameter the function is given by its one call (a notebook's setup_lora)", () => {
    // Yousra-Chahinez/llama-qlora-finetuning-arabic-sentiment-analysis: `modules = find_all_linear_names(model)`, then
    // `setup_lora(model, modules)`, whose LoraConfig takes `target_modules=modules`.
    const text = [
      'def find_all_linear_names(model):',
      '    names = set()',
      '    for name, module in model.named_modules():',
      '        if isinstance(module, bnb.nn.Linear4bit):',
      '            names.add(name.split(".")[-1])',
      '    return list(names)',
      'def setup_lora(model, modules):',
      '    return get_peft_model(model, LoraConfig(r=16, target_modules=modules))',
      'modules = find_all_linear_names(model)',
      'model = setup_lora(model, modules)',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'loraTargets')?.value, 'all-linear');
    // The call written in the argument reads the same; another value given there stays unknown.
    const inline = text.replace(
      'model = setup_lora(model, modules)',
      'model = setup_lora(model, find_all_linear_names(model))',
    );
    assert.equal(last(analyzeHfPython(inline), 'loraTargets')?.value, 'all-linear');
    const other = text.replace('model = setup_lora(model, modules)', 'model = setup_lora(model, pick(model))');
    const v = last(analyzeHfPython(other), 'loraTargets')?.value;
    assert.ok(v !== undefined && isUnknown(v));
  });

  it('argparse defaults, a module constant as the default: the model and the sequence length, located at the default', () => {
    // huggingface/accelerate examples/torch_native_parallelism/nd_parallel_trainer.py
    const text = [
      'import argparse',
      'from transformers import AutoModelForCausalLM, TrainingArguments',
      'MODEL_ID = "NousResearch/Hermes-3-Llama-3.1-8B"',
      'def parse_args():',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--sequence-length", type=int, default=4096)',
      '    parser.add_argument("--batch-size", type=int, default="8")',
      '    parser.add_argument("--model-name", type=str, default=MODEL_ID)',
      '    parser.add_argument("--bf16", action="store_true")',
      '    return parser.parse_args()',
      'def main():',
      '    args = parse_args()',
      '    model = AutoModelForCausalLM.from_pretrained(args.model_name, use_cache=False)',
      '    training_args = TrainingArguments(per_device_train_batch_size=args.batch_size, bf16=args.bf16, output_dir="out")',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const model = last(r, 'model');
    assert.equal(model?.value, 'NousResearch/Hermes-3-Llama-3.1-8B');
    assert.equal(model?.origin, 'script-default');
    assert.equal(at(text, model), 'MODEL_ID', 'located at the argparse default');
    assert.equal(text.slice(model!.keySpan.start, model!.keySpan.end), '--model-name');
    assert.match(
      model!.rawValue,
      /args\.model_name: the script's default MODEL_ID \(argparse default of --model-name, line 8\)/,
    );
    // argparse applies type=int to a string default.
    assert.equal(last(r, 'microBatchSize')?.value, 8);
    // store_true: False unless the flag is given.
    assert.equal(last(r, 'bf16')?.value, false);
  });

  it("argparse: a dest's first option gives its default, and set_defaults gives it over every option", () => {
    // daniazie/SW-Capstone sft.py: `--bf16` (store_true) then `--no-bf16` (dest bf16, store_false), then
    // parser.set_defaults(bf16=False). argparse sets each dest from its first option (parse_known_args skips a dest
    // the namespace already has) and set_defaults writes over the options' defaults: bf16 is False. Read as two
    // defaults of one name, the run was taken to autocast in bf16.
    const text = (extra: string): string =>
      [
        'import argparse',
        'from transformers import AutoModelForCausalLM, TrainingArguments',
        'parser = argparse.ArgumentParser()',
        "parser.add_argument('--bf16', action='store_true')",
        "parser.add_argument('--no-bf16', dest='bf16', action='store_false')",
        extra,
        'args = parser.parse_args()',
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-3B")',
        'training_args = TrainingArguments(output_dir="o", bf16=args.bf16)',
        '',
      ].join('\n');
    const first = analyzeHfPython(text(''));
    assert.equal(last(first, 'bf16')?.value, false);
    const src = text('parser.set_defaults(bf16=True)');
    const set = last(analyzeHfPython(src), 'bf16');
    assert.equal(set?.value, true);
    assert.equal(at(src, set), 'True', 'located at the set_defaults keyword');
    // The --no-bf16 switch turns a launcher's --bf16 back off; a launch line's flag still wins over set_defaults.
    const launched = runPipeline(
      [
        { file: '/p/run.sh', text: 'python train.py --bf16\n' },
        { file: '/p/train.py', text: text('parser.set_defaults(bf16=False)') },
      ],
      { read: () => undefined, join: path.join },
      {},
    );
    assert.equal(launched.setup?.mixed_precision, 'bf16');
  });

  it('HfArgumentParser dataclasses: a field default read through parse_args_into_dataclasses', () => {
    // tatsu-lab/stanford_alpaca train.py, lm-sys/FastChat fastchat/train/train.py
    const text = [
      'from dataclasses import dataclass, field',
      'import transformers',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: str = field(default="facebook/opt-125m")',
      '@dataclass',
      'class LoraArguments:',
      '    lora_r: int = 8',
      '    lora_target_modules: list = field(default_factory=lambda: ["q_proj", "v_proj"])',
      'def train():',
      '    parser = transformers.HfArgumentParser((ModelArguments, LoraArguments, transformers.TrainingArguments))',
      '    model_args, lora_args, training_args = parser.parse_args_into_dataclasses()',
      '    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)',
      '    config = LoraConfig(r=lora_args.lora_r, target_modules=lora_args.lora_target_modules)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    const model = last(r, 'model');
    assert.equal(model?.value, 'facebook/opt-125m');
    assert.equal(model?.rawKey, 'pretrained_model_name_or_path');
    assert.equal(at(text, model), '"facebook/opt-125m"');
    assert.equal(last(r, 'loraR')?.value, 8);
    assert.deepEqual(last(r, 'loraTargets')?.value, ['q_proj', 'v_proj']);
    assert.ok(
      !r.problems.some((p) => p.code === 'not-static' && /model_name_or_path/.test(p.message)),
      JSON.stringify(r.problems),
    );
  });

  it('HfArgumentParser made in place: `HfArgumentParser((A, B)).parse_args_into_dataclasses()` (LC1332/Luotuo-QA)', () => {
    // LC1332/Luotuo-QA train/train.py, cut: the parsed dataclass's field reaches the loader through its one call.
    const text = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModel, HfArgumentParser, Trainer, TrainingArguments',
      '@dataclass',
      'class FineTuneArguments:',
      '    model_path: str = field(default="THUDM/chatglm-6b")',
      'def load_train_model(model_path, lora_rank):',
      '    return AutoModel.from_pretrained(model_path, trust_remote_code=True)',
      'def main():',
      '    fine_tune_args, training_args = HfArgumentParser(',
      '        (FineTuneArguments, TrainingArguments)',
      '    ).parse_args_into_dataclasses()',
      '    model = load_train_model(fine_tune_args.model_path, 8)',
      '    Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'model')?.value, 'THUDM/chatglm-6b');
  });

  it('a function called once takes the argument of its call site (PEFT DoRA example: train_model(base_model=args.base_model))', () => {
    // huggingface/peft examples/dora_finetuning/dora_finetuning.py
    const text = [
      'def train_model(base_model: str, batch_size: int, cutoff_len: int = 256):',
      '    model = AutoModelForCausalLM.from_pretrained(base_model)',
      '    args = TrainingArguments(per_device_train_batch_size=batch_size, output_dir="o")',
      'if __name__ == "__main__":',
      '    import argparse',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--base_model", type=str, default="huggyllama/llama-7b")',
      '    parser.add_argument("--batch_size", type=int, default=1)',
      '    args = parser.parse_args()',
      '    train_model(base_model=args.base_model, batch_size=args.batch_size)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'huggyllama/llama-7b');
    assert.equal(at(text, last(r, 'model')), '"huggyllama/llama-7b"');
    assert.equal(last(r, 'microBatchSize')?.value, 1);
    // Two call sites that differ: the parameter stays unknown.
    const twice = analyzeHfPython(`${text}    train_model(base_model="gpt2", batch_size=2)\n`);
    assert.ok(isUnknown(last(twice, 'model')!.value));
    // Two that agree (superxx533/Qwen2-VL-RS2 train.py builds the model again for its evaluation): that value.
    const again = analyzeHfPython(`${text}    train_model(args.base_model, batch_size=args.batch_size)\n`);
    assert.equal(last(again, 'model')?.value, 'huggyllama/llama-7b');
  });

  it('leaves unknown: None defaults, placeholders, required options, options the script reassigns, and clashing names', () => {
    const base = (opts: string, extra = ''): string =>
      [
        'import argparse',
        'parser = argparse.ArgumentParser()',
        opts,
        'args = parser.parse_args()',
        extra,
        'model = AutoModelForCausalLM.from_pretrained(args.model)',
        '',
      ].join('\n');
    for (const [opts, extra] of [
      ['parser.add_argument("--model", type=str, default=None)', ''],
      ['parser.add_argument("--model", type=str, default="path/to/model")', ''],
      ['parser.add_argument("--model", type=str, required=True, default="gpt2")', ''],
      ['parser.add_argument("--model", type=str, default="gpt2")', 'args.model = resolve(args.model)'],
      [
        'parser.add_argument("--model", type=str, default="gpt2")\nparser.add_argument("--model", dest="model", default="gpt2-xl")',
        '',
      ],
    ]) {
      const r = analyzeHfPython(base(opts, extra));
      const m = last(r, 'model');
      assert.ok(m && isUnknown(m.value), `${opts} ${extra}: ${JSON.stringify(m?.value)}`);
    }
    // An attribute of something that is not the parsed command line is not an option.
    const other = analyzeHfPython(
      'parser.add_argument("--model", default="gpt2")\nmodel = AutoModelForCausalLM.from_pretrained(cfg.model)\n',
    );
    assert.ok(isUnknown(last(other, 'model')!.value));
  });

  it("a launcher flag wins over the script's default; without it the default runs, said as such", () => {
    const script = [
      'import argparse',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--model_name_or_path", type=str, default="Qwen/Qwen2.5-0.5B")',
      'parser.add_argument("--per_device_train_batch_size", type=int, default=4)',
      'args = parser.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)',
      'training_args = TrainingArguments(per_device_train_batch_size=args.per_device_train_batch_size, output_dir="o")',
      '',
    ].join('\n');
    const reader = {
      read: (f: string): string | undefined => (f === '/w/train.py' ? script : undefined),
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    // The launcher and the script it runs, analyzed together (as `vram-lens estimate run.sh train.py` and the editor's run index do).
    const launched = runPipeline(
      [
        { file: '/w/run.sh', text: 'torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 16\n' },
        { file: '/w/train.py', text: script },
      ],
      reader,
      {},
    );
    assert.ok(launched.setup, JSON.stringify(launched.problems));
    assert.equal(launched.setup.micro_batch_size, 16);
    assert.equal(launched.setup.model, 'Qwen/Qwen2.5-0.5B');
    const alone = runPipeline([{ file: '/w/train.py', text: script }], reader, {});
    assert.ok(alone.setup, JSON.stringify(alone.problems));
    assert.equal(alone.setup.micro_batch_size, 4);
    const p = alone.provenance.micro_batch_size;
    assert.ok(p && p.kind === 'file' && p.line === 4, JSON.stringify(p));
  });

  it('prepare_model_for_kbit_training under `if quantize:` runs where the model is quantized (PEFT DoRA example)', () => {
    const text =
      'if quantize:\n' +
      '    model = AutoModelForCausalLM.from_pretrained("gpt2")\n' +
      '    model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)\n';
    const r = analyzeHfPython(text);
    // Not taken as run by itself: the run's quantization decides (resolve/method.ts resolveKbitUpcast).
    assert.equal(last(r, 'kbitUpcast'), undefined);
    assert.equal(last(r, 'kbitUpcastWhenQuantized')?.value, 'all-checkpointed');
    assert.equal(facts(r, 'gradientCheckpointing').length, 0);
    // A test of something else stays not known.
    const other = analyzeHfPython(text.replace('if quantize:', 'if args.upcast:'));
    assert.ok(isUnknown(last(other, 'kbitUpcast')!.value));
  });

  it('a comparison of a default with a literal is known (artidoro/qlora qlora.py: load_in_4bit=args.bits == 4, bits defaulting to 4)', () => {
    const text = [
      '@dataclass',
      'class TrainingArguments(transformers.Seq2SeqTrainingArguments):',
      '    bits: int = field(default=4, metadata={"help": "How many bits to use."})',
      'def get_accelerate_model(args):',
      '    model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-12b", load_in_4bit=args.bits == 4, load_in_8bit=args.bits == 8)',
      '',
    ].join('\n');
    const q = facts(analyzeHfPython(text), 'quantBits');
    assert.deepEqual(
      q.map((f) => f.value),
      [4],
    );
    assert.equal(at(text, q[0]), '4');
  });

  it("a hub download's folder is the model it names (datawhalechina/self-llm phi4/05-Phi-4-Lora-Ner.py)", () => {
    // `from modelscope import snapshot_download` fetches LLM-Research/phi-4 into cache_dir and returns the folder.
    const text = [
      'model_id = "LLM-Research/phi-4"',
      'model_dir = snapshot_download(model_id, cache_dir="/root/autodl-tmp/", revision="master")',
      'model = AutoModelForCausalLM.from_pretrained(model_dir, device_map="auto", torch_dtype=torch.bfloat16)',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'LLM-Research/phi-4');
    // huggingface_hub's keyword form.
    const kw =
      'p = huggingface_hub.snapshot_download(repo_id="Qwen/Qwen2.5-0.5B")\nm = AutoModelForCausalLM.from_pretrained(p)\n';
    assert.equal(last(analyzeHfPython(kw), 'model')?.value, 'Qwen/Qwen2.5-0.5B');
  });

  it("a folder joined onto a Hub cache repository's snapshots is that repository (Aryan-Jadhav3009/LEX-GEN finetune.ipynb)", () => {
    // The notebook lists the snapshots folder at run time: `os.listdir(snapshots_dir)[0]` is a commit hash.
    const text = [
      'base_dir = "/content/drive/MyDrive/hf_models/mistral/models--mistralai--Mistral-7B-Instruct-v0.3"',
      'snapshots_dir = os.path.join(base_dir, "snapshots")',
      'snapshot_subdir = os.listdir(snapshots_dir)[0]',
      'model_path = os.path.join(snapshots_dir, snapshot_subdir)',
      'model = AutoModelForCausalLM.from_pretrained(model_path, device_map="auto")',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(
      model?.value,
      '/content/drive/MyDrive/hf_models/mistral/models--mistralai--Mistral-7B-Instruct-v0.3/snapshots',
    );
    // A folder that is not one of the cache's repositories stays unknown.
    const plain = text.replace('models--mistralai--Mistral-7B-Instruct-v0.3', 'mistral-7b');
    assert.ok(isUnknown(last(analyzeHfPython(plain), 'model')?.value ?? null));
  });

  it("a name unpacked from a function of the file is that function's returned item (rohan-paul's CodeLlama-34B QLoRA notebook)", () => {
    const text = [
      'def setup_environment():',
      '    output_dir = "./results"',
      '    model_name = "codellama/CodeLlama-34b-hf"',
      '    return output_dir, model_name',
      'def create_base_model(model_name):',
      '    return AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.bfloat16)',
      'output_dir, model_name = setup_environment()',
      'base_model = create_base_model(model_name)',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'codellama/CodeLlama-34b-hf');
    assert.equal(at(text, model), 'model_name');
    assert.match(model?.rawValue ?? '', /model_name = "codellama\/CodeLlama-34b-hf" at line 3/);
    // Two returns, or a count that does not match: not known.
    const branches = text.replace(
      '    return output_dir, model_name',
      '    if x:\n        return 1, 2\n    return output_dir, model_name',
    );
    assert.ok(isUnknown(last(analyzeHfPython(branches), 'model')?.value ?? null));
    const short = text.replace('return output_dir, model_name', 'return (output_dir,)');
    assert.ok(isUnknown(last(analyzeHfPython(short), 'model')?.value ?? null));
  });

  it('a dataclass built from the parsed command line has its fields as options (kencoken/qwen-grpo train.py)', () => {
    const text = [
      '@dataclass',
      'class Config:',
      '    model: str = "Qwen/Qwen2.5-1.5B-Instruct"',
      '    per_device_batch: int = 8',
      'def parse_config():',
      '    parser = argparse.ArgumentParser()',
      '    for f in fields(Config):',
      '        parser.add_argument(f"--{f.name}", type=type(f.default), default=f.default)',
      '    return Config(**vars(parser.parse_args()))',
      'def main():',
      '    cfg = parse_config()',
      '    args = GRPOConfig(output_dir="o", per_device_train_batch_size=cfg.per_device_batch)',
      '    GRPOTrainer(model=cfg.model, args=args).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.equal(last(r, 'model')?.fromArg?.name, 'model');
    assert.equal(last(r, 'microBatchSize')?.value, 8);
  });

  it("a dataclass built from argparse's options takes each option's value: fields without defaults, defaults overridden", () => {
    // JChangCL/grpo-qwen25-gsm8k-finetune train_grpo.py: `model_name_or_path: str` (no default) in TrainConfig, the
    // default on `--model_name_or_path`, and `return TrainConfig(**vars(parser.parse_args()))`.
    const text = [
      '@dataclass',
      'class TrainConfig:',
      '    model_name_or_path: str',
      '    per_device_train_batch_size: int = 16',
      'def parse_args() -> TrainConfig:',
      '    parser = argparse.ArgumentParser()',
      '    parser.add_argument("--model_name_or_path", default="Qwen/Qwen2.5-1.5B-Instruct")',
      '    parser.add_argument("--per_device_train_batch_size", type=int, default=2)',
      '    return TrainConfig(**vars(parser.parse_args()))',
      'def main():',
      '    args = parse_args()',
      '    training_args = GRPOConfig(per_device_train_batch_size=args.per_device_train_batch_size)',
      '    GRPOTrainer(model=args.model_name_or_path, args=training_args).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    // The field without a default is no value (it was read as its annotation, `: str`).
    assert.deepEqual(
      facts(r, 'model').map((f) => f.value),
      ['Qwen/Qwen2.5-1.5B-Instruct'],
    );
    assert.equal(at(text, last(r, 'model')), '"Qwen/Qwen2.5-1.5B-Instruct"');
    // The option's default 2, not the field's 16: the class is built from the parsed options.
    assert.deepEqual(
      facts(r, 'microBatchSize').map((f) => f.value),
      [2],
    );
  });

  it('d["key"] of a dict the file writes is that entry (a notebook\'s CONFIG dict)', () => {
    const text = [
      'CONFIG = {"model_name": "Qwen/Qwen2.5-3B-Instruct", "batch": 4}',
      'CONFIG["batch"] = 2',
      'model = AutoModelForCausalLM.from_pretrained(CONFIG["model_name"])',
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=CONFIG["batch"])',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'Qwen/Qwen2.5-3B-Instruct');
    assert.equal(last(r, 'microBatchSize')?.value, 2);
    // A key the dict does not have, or a computed key: not known.
    const missing = 'CONFIG = {"a": 1}\nmodel = AutoModelForCausalLM.from_pretrained(CONFIG["model_name"])\n';
    assert.ok(isUnknown(last(analyzeHfPython(missing), 'model')?.value ?? null));
  });

  it('paths from the script file: Path(__file__).parents[k] / "x", os.path.join(os.path.dirname(__file__), ...)', () => {
    // kingjameschan/gemma-math-sft-grpo v3/E2_sft/train/01_sft.py: ROOT = Path(__file__).resolve().parents[3],
    // DEFAULT_MODEL = ROOT / "models" / "gemma-2-2b-it", `--model` defaulting to str(DEFAULT_MODEL).
    const text = [
      'ROOT = Path(__file__).resolve().parents[3]',
      'DEFAULT_MODEL = ROOT / "models" / "gemma-2-2b-it"',
      'ap = argparse.ArgumentParser()',
      'ap.add_argument("--model", default=str(DEFAULT_MODEL))',
      'args = ap.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained(Path(args.model))',
      'ds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "ds_z2.json")',
      'training_args = TrainingArguments(output_dir="o", deepspeed=ds)',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    // Relative to the script's folder: parents[0] is that folder, parents[3] three folders above it.
    assert.equal(last(r, 'model')?.value, '../../../models/gemma-2-2b-it');
    assert.deepEqual(
      r.references.filter((x) => x.kind === 'deepspeed').map((x) => x.path),
      ['./configs/ds_z2.json'],
    );
    assert.equal(
      last(analyzeHfPython('m = AutoModelForCausalLM.from_pretrained(Path(__file__).parent / "ckpt")\n'), 'model')
        ?.value,
      './ckpt',
    );
  });

  it('`args.x or "..."` with an empty default: the right-hand side, as the script runs without arguments', () => {
    const text = [
      'import argparse',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--model_path", default="")',
      'args = parser.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained(args.model_path or "Qwen/Qwen2.5-0.5B")',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'model')?.value, 'Qwen/Qwen2.5-0.5B');
    // The empty default alone is no model: it is the launch line's to give.
    const alone = text.replace('args.model_path or "Qwen/Qwen2.5-0.5B"', 'args.model_path');
    assert.ok(isUnknown(last(analyzeHfPython(alone), 'model')?.value ?? null));
  });

  it("a parameter the function binds anew, and `cfg = cfg or Config()` of an uncalled function's None default", () => {
    // Olmioris/LLM-instruction-tuning-qwen2-qlora src/training/trainer.py (abridged): run_sft_training(cfg=None) is
    // called by nothing in the file; `cfg = cfg or SFTTrainingConfig()` makes the dataclass, whose model_name
    // default is the module's MODEL_NAME, and load_fp16_model(cfg.model_name) loads it.
    const text = [
      'MODEL_NAME = "Qwen/Qwen2-0.5B-Instruct"',
      '@dataclass',
      'class SFTTrainingConfig:',
      '    model_name: str = MODEL_NAME',
      'def load_fp16_model(model_name: str = MODEL_NAME):',
      '    return AutoModelForCausalLM.from_pretrained(model_name)',
      'def run_sft_training(cfg=None):',
      '    cfg = cfg or SFTTrainingConfig()',
      '    model = load_fp16_model(cfg.model_name)',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'model')?.value, 'Qwen/Qwen2-0.5B-Instruct');
    // Bound anew without `or`: the binding, not the parameter.
    const rebound = text.replace('cfg = cfg or SFTTrainingConfig()', 'cfg = SFTTrainingConfig()');
    assert.equal(last(analyzeHfPython(rebound), 'model')?.value, 'Qwen/Qwen2-0.5B-Instruct');
    // A call in the file that passes the parameter: what it passes is not known, so neither is the model.
    const called = `${text}run_sft_training(make_config())\n`;
    assert.ok(isUnknown(last(analyzeHfPython(called), 'model')?.value ?? null));
  });

  it("an instance a function passes on to the one function that takes it: that function reads the class's values", () => {
    // Olmioris/LLM-instruction-tuning-qwen2-qlora (abridged): run_sft_training makes the dataclass and passes it to
    // create_trainer(model, cfg), the file's one call of it, whose TrainingArguments read cfg.<field>.
    const text = [
      '@dataclass',
      'class Cfg:',
      '    per_device_train_batch_size: int = 2',
      'def create_trainer(model, cfg: Cfg):',
      '    return Trainer(model=model, args=TrainingArguments(output_dir="o",',
      '        per_device_train_batch_size=cfg.per_device_train_batch_size))',
      'def run():',
      '    cfg = Cfg()',
      '    create_trainer(None, cfg).train()',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'microBatchSize')?.value, 2);
    // Two calls that may pass different instances: not followed.
    const twice = text.replace(
      '    create_trainer(None, cfg).train()',
      '    create_trainer(None, cfg).train()\n    create_trainer(None, other)',
    );
    assert.notEqual(last(analyzeHfPython(twice), 'microBatchSize')?.value, 2);
  });

  it("a path joined onto the script's root twice is that path (xsxmt0721/Qwen-GRPO-Text2KG)", () => {
    // src/alignment/nodes_grpotrainer.py: PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent; main() passes
    // str(PROJECT_ROOT / args.config) and run_grpo_training joins PROJECT_ROOT onto it again, which Python's absolute
    // paths leave as it is: config/grpo_nodes.yaml at the repository's root (abridged).
    const text = [
      'PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent',
      'def run(config_path="config/grpo_nodes.yaml"):',
      '    full = PROJECT_ROOT / config_path',
      '    model = AutoModelForCausalLM.from_pretrained(str(full))',
      'def main():',
      '    ap = argparse.ArgumentParser()',
      '    ap.add_argument("--config", default="config/grpo_nodes.yaml")',
      '    args = ap.parse_args()',
      '    run(config_path=str(PROJECT_ROOT / args.config))',
      'main()',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'model')?.value, '../../config/grpo_nodes.yaml');
    // A relative path written onto the root that does not start from it is joined as it is.
    const once =
      'ROOT = Path(__file__).resolve().parents[2]\nm = AutoModelForCausalLM.from_pretrained(ROOT / "../x")\n';
    assert.equal(last(analyzeHfPython(once), 'model')?.value, '../../../x');
  });

  it('Path(x).expanduser() and os.getenv("X", default) keep the value they wrap (self-llm DeepSeek-V4-Flash LoRA)', () => {
    const text = [
      'DEFAULT_MODEL_PATH = "Qwen/Qwen3-8B"',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--model-path", default=os.getenv("DS_V4_MODEL_PATH", DEFAULT_MODEL_PATH))',
      'args = parser.parse_args()',
      'model_path = Path(args.model_path).expanduser()',
      'model = AutoModelForCausalLM.from_pretrained(str(model_path))',
      '',
    ].join('\n');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'Qwen/Qwen3-8B');
    assert.equal(model?.fromArg?.name, 'model-path');
    // Without a default the environment gives it: unknown, and said so.
    const env =
      'model = AutoModelForCausalLM.from_pretrained(os.environ.get("BASE_MODEL"))\nTrainer(model=model).train()\n';
    const unknown = last(analyzeHfPython(env), 'model')?.value ?? null;
    assert.ok(isUnknown(unknown) && /BASE_MODEL comes from the environment/.test((unknown as Unknown).unknown));
  });

  it("a name set on both branches of an `if` on a path's existence is what loads without that path (Kshqsz/nlp_learning)", () => {
    // qwen3_1.7b_finetune_project/lora_dpo_qwen3_1.7b.py (abridged): the trained checkpoint when it is there, else the
    // model it was trained from.
    const script = (test: string, then: string, otherwise: string): string =>
      [
        'ORIGINAL_MODEL_PATH = "Qwen/Qwen3-1.7B"',
        'BASE_MODEL_PATH = "/root/data/qwen3_1.7b_pretrain"',
        'def load():',
        `    if ${test}:`,
        `        model_path = ${then}`,
        '    else:',
        `        model_path = ${otherwise}`,
        '    return AutoModelForCausalLM.from_pretrained(model_path)',
        '',
      ].join('\n');
    const exists = 'os.path.exists(BASE_MODEL_PATH) and os.path.exists(os.path.join(BASE_MODEL_PATH, "config.json"))';
    const text = script(exists, 'BASE_MODEL_PATH', 'ORIGINAL_MODEL_PATH');
    const model = last(analyzeHfPython(text), 'model');
    assert.equal(model?.value, 'Qwen/Qwen3-1.7B');
    assert.match(
      model?.rawValue ?? '',
      /where os\.path\.exists\(BASE_MODEL_PATH\) and .* is false \(the if at line 4\)/,
    );
    // Negated (`if not path.exists():` downloads), the branch under the test.
    const negated = script('not Path(BASE_MODEL_PATH).exists()', 'ORIGINAL_MODEL_PATH', 'BASE_MODEL_PATH');
    assert.equal(last(analyzeHfPython(negated), 'model')?.value, 'Qwen/Qwen3-1.7B');
    // Any other test leaves the name set conditionally.
    const other = last(analyzeHfPython(script('USE_BASE', 'BASE_MODEL_PATH', 'ORIGINAL_MODEL_PATH')), 'model');
    assert.ok(isUnknown(other?.value ?? null) && /set conditionally/.test((other!.value as Unknown).unknown));
  });
});

describe("analyzeHfPython: qlora.py's preparation of the 4-bit model", () => {
  const reader = { read: (): string | undefined => undefined, join: (f: string, r: string) => path.posix.join(f, r) };
  // artidoro/qlora qlora.py get_accelerate_model: prepare_model_for_kbit_training under `if not args.full_finetune:`
  // (full_finetune defaults to False), then a loop over named_modules() that keeps the norms in fp32 and, under bf16,
  // casts the LoRA layers to bf16 and puts the embeddings and the head back in bf16.
  const script = (bf16: boolean) =>
    [
      'import torch, transformers',
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig',
      'from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training',
      '@dataclass',
      'class TrainingArguments(transformers.Seq2SeqTrainingArguments):',
      '    full_finetune: bool = field(default=False)',
      'def get_accelerate_model(args):',
      '    model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b", torch_dtype=torch.bfloat16,',
      '        quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4"))',
      '    if not args.full_finetune:',
      '        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)',
      '    model = get_peft_model(model, LoraConfig(r=64, lora_alpha=16, target_modules=["q_proj", "v_proj"]))',
      '    for name, module in model.named_modules():',
      '        if isinstance(module, LoraLayer):',
      '            if args.bf16:',
      '                module = module.to(torch.bfloat16)',
      "        if 'norm' in name:",
      '            module = module.to(torch.float32)',
      "        if 'lm_head' in name or 'embed_tokens' in name:",
      "            if hasattr(module, 'weight'):",
      '                if args.bf16 and module.weight.dtype == torch.float32:',
      '                    module = module.to(torch.bfloat16)',
      '    return model',
      `training_args = TrainingArguments(output_dir="o", per_device_train_batch_size=1${bf16 ? ', bf16=True' : ''})`,
      '',
    ].join('\n');

  it('`not args.full_finetune` is known from the default: the preparation runs (every unquantized parameter in fp32)', () => {
    const r = analyzeHfPython(script(false));
    assert.equal(last(r, 'kbitUpcast')?.value, 'all');
    assert.equal(last(r, 'kbitCastBack')?.value, true);
    assert.equal(last(r, 'loraCastBack')?.value, true);
    const setup = runPipeline([{ file: '/w/qlora.py', text: script(false) }], reader, {}).setup;
    assert.equal(setup?.kbit_upcast, 'all');
    assert.equal(setup?.lora?.dtype, 'fp32');
  });

  it('under bf16 the loop puts the embeddings and the head back: the norms alone stay fp32, located at the loop', () => {
    const r = runPipeline([{ file: '/w/qlora.py', text: script(true) }], reader, {});
    assert.equal(r.setup?.kbit_upcast, 'norms');
    assert.equal(r.setup?.lora?.dtype, 'bf16');
    const p = r.provenance.kbit_upcast;
    assert.ok(p?.kind === 'file' && p.line === 23, JSON.stringify(p));
  });

  it('the loop written with any() over GPT-2-style names, on a model loaded in fp32: embeddings and head in bf16', () => {
    // pacman100/DHS-LLM-Workshop personal_copilot/training/train.py (StarCoder QLoRA, the HF "Personal Copilot" blog):
    // `if any(x in name for x in ["lm_head", "embed_tokens", "wte", "wpe"]): ... if args.bf16 and
    // module.weight.dtype == torch.float32: module = module.to(torch.bfloat16)` after a from_pretrained with no dtype.
    // Qwen2.5-0.5B: 151,936 x 896 = 136.1M embedding parameters (tied head): 2 B each, not the fp32 load's 4 B.
    const text = [
      'import torch',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments',
      'from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training',
      'from peft.tuners.lora import LoraLayer',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B",',
      '    quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4"))',
      'model = prepare_model_for_kbit_training(model)',
      'model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))',
      'trainer = Trainer(model=model, args=TrainingArguments(output_dir="o", bf16=True), train_dataset=ds)',
      'for name, module in trainer.model.named_modules():',
      '    if any(x in name for x in ["lm_head", "embed_tokens", "wte", "wpe"]):',
      '        if hasattr(module, "weight"):',
      '            if module.weight.dtype == torch.float32:',
      '                module = module.to(torch.bfloat16)',
      'trainer.train()',
      '',
    ].join('\n');
    assert.equal(last(analyzeHfPython(text), 'kbitCastBack')?.value, true);
    const r = runPipeline([{ file: '/w/train.py', text }], reader, {});
    assert.equal(r.setup?.kbit_upcast, 'norms');
    const e = estimate(r.setup!);
    assert.ok(e.ok);
    const components = e.estimate.perGpu.components;
    const weights = components.find((c) => c.label === 'Weights');
    assert.match(weights?.formula ?? '', /136\.1M embedding\/head params x 2 B/);
    assert.ok(!components.some((c) => /Autocast copy of the fp32 output head/.test(c.label)));
  });
});

describe("hf-python: transformers' HfArg fields", () => {
  it('a field written with HfArg(default=...) has that default, as field(default=...) does (RUCAIBox/LLMBox train.py)', () => {
    // LLMBox training/train.py: `lora_r: Optional[int] = HfArg(default=16, help='Lora attention dimension (the "rank")')`
    // in a TrainingArguments subclass; transformers.hf_argparser.HfArg returns dataclasses.field with the same default.
    const text = [
      'from dataclasses import dataclass',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
      'from transformers.hf_argparser import HfArg',
      'from peft import LoraConfig, get_peft_model',
      '@dataclass',
      'class Arguments(TrainingArguments):',
      '    model_name_or_path: str = HfArg(default="meta-llama/Llama-2-7b-hf", help="The model")',
      '    lora_r: int = HfArg(default=16, help="Lora attention dimension")',
      'args = HfArgumentParser(Arguments).parse_args_into_dataclasses()[0]',
      'model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)',
      'model = get_peft_model(model, LoraConfig(r=args.lora_r))',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const run = runPipeline(
      [{ file: '/w/train.py', text }],
      { read: () => undefined, join: (a: string, b: string) => path.posix.join(path.posix.dirname(a), b) },
      {},
    );
    assert.equal(run.setup?.model, 'meta-llama/Llama-2-7b-hf');
    assert.equal(run.setup?.lora?.r, 16);
  });
});

describe('hf-python: environment helpers of the script', () => {
  it("a function that returns os.getenv(name, default), converted or not, gives the call's default", () => {
    // hwang2006/finetuning-gpt-oss-on-hpc train_unsloth_flex.py: env_str / env_int over os.getenv.
    const text = [
      'import os',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'def env_str(name: str, default: str) -> str:',
      '    return os.getenv(name, default)',
      'def env_int(name: str, default: int) -> int:',
      '    return int(os.getenv(name, str(default)))',
      'MODEL_ID = env_str("MODEL_ID", "Qwen/Qwen2.5-7B-Instruct")',
      'BATCH = env_int("BATCH", 4)',
      'model = AutoModelForCausalLM.from_pretrained(MODEL_ID)',
      'Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=BATCH)).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'model')?.value, 'Qwen/Qwen2.5-7B-Instruct');
    assert.equal(last(r, 'microBatchSize')?.value, 4);
    // A helper that does more than read the variable is not read.
    const other = analyzeHfPython(
      text.replace('return os.getenv(name, default)', 'return os.getenv(name.upper(), default)'),
    );
    assert.equal(typeof last(other, 'model')?.value, 'object');
  });

  it('a helper that reads a switch from the environment gives the default as a switch', () => {
    // hwang2006/finetuning-gpt-oss-on-hpc train_unsloth_flex.py l. 34-39, 84: env_bool01("USE_4BIT", 1).
    const text = [
      'import os',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments',
      'def env_bool01(name: str, default: int) -> bool:',
      '    val = os.getenv(name, str(default)).strip().lower()',
      '    if val in ("1", "true", "yes", "on"):  return True',
      '    if val in ("0", "false", "no", "off"): return False',
      '    return bool(val)',
      'BF16 = env_bool01("BF16", 1)',
      'GC = env_bool01("GRADIENT_CHECKPOINTING", "0")',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")',
      'args = TrainingArguments(output_dir="o", bf16=BF16, gradient_checkpointing=GC)',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'bf16')?.value, true);
    assert.equal(last(r, 'gradientCheckpointing')?.value, 'none');
    // A helper that returns the text it read is no switch.
    const other = analyzeHfPython(text.replace('    return bool(val)', '    return val'));
    assert.notEqual(last(other, 'bf16')?.value, true);
  });
});

describe('hf-python: a mapping spread through a function that filters it', () => {
  it("DPOConfig(**supported(DPOConfig, {...})) takes the mapping's items", () => {
    // Chrissie-1/qlora-dpo-trainer crucible/dpo.py: supported() keeps the keys the installed release accepts.
    const text = [
      'import inspect',
      'from transformers import AutoModelForCausalLM',
      'from trl import DPOConfig, DPOTrainer',
      'def supported(cls, names: dict) -> dict:',
      '    accepted = set(inspect.signature(cls.__init__).parameters)',
      '    return {k: v for k, v in names.items() if k in accepted}',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-3B-Instruct")',
      'config = DPOConfig(**supported(DPOConfig, {"per_device_train_batch_size": 1, "optim": "paged_adamw_8bit"}))',
      'DPOTrainer(model=model, args=config).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'microBatchSize')?.value, 1);
    assert.equal(last(r, 'optimizer')?.value, 'paged_adamw_8bit');
    // A function that returns something else of the mapping is not read so.
    const other = analyzeHfPython(
      text.replace('return {k: v for k, v in names.items() if k in accepted}', 'return {}'),
    );
    assert.equal(last(other, 'microBatchSize'), undefined);
  });
});

describe('hf-python: comparisons of torch dtypes', () => {
  it('bf16=(model_dtype == torch.bfloat16) with model_dtype = torch.bfloat16 is True (guc1/Meaning-in-Temperatures)', () => {
    const text = [
      'import torch',
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'model_dtype = torch.bfloat16',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-3B", torch_dtype=model_dtype)',
      'args = TrainingArguments(output_dir="o", bf16=(model_dtype == torch.bfloat16), fp16=(model_dtype == torch.half))',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(text);
    assert.equal(last(r, 'bf16')?.value, true);
    // torch.half is torch.float16: not bfloat16.
    assert.equal(last(r, 'fp16')?.value, false);
    // A name that is no torch dtype is not compared.
    const other = analyzeHfPython(text.replace('model_dtype = torch.bfloat16', 'model_dtype = config.dtype'));
    assert.equal(typeof last(other, 'bf16')?.value, 'object');
  });
});
