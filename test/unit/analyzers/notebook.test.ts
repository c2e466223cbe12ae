// Jupyter notebooks: the code cells read as one Python script, each fact located in the notebook's JSON text. The
// notebook below is the shape of the many Colab "fine-tune Llama 2 with QLoRA" notebooks (nbformat 4, one JSON string
// per source line, as Jupyter and Colab save them), shortened to the cells that decide memory.
import * as assert from 'node:assert/strict';
import { analyzeAs, detectFormat } from '../../../src/analyzers/detect';
import type { CanonicalKey, ConfigFacts } from '../../../src/analyzers/facts';
import { notebookCode } from '../../../src/analyzers/notebook';
import { PLANNERS } from '../../../src/features/fixes/planners';
import { resolveText } from '../helpers';

const code = (source: string | string[], outputs: unknown[] = []) => ({
  cell_type: 'code',
  execution_count: null,
  metadata: {},
  outputs,
  source,
});

const CELLS = [
  { cell_type: 'markdown', metadata: {}, source: ['# Fine-tune Llama 2 with QLoRA\n', 'A "quoted" note.'] },
  code(['!pip install -q accelerate peft bitsandbytes transformers trl\n']),
  code(['%%bash\n', 'accelerate launch --num_processes 8 train.py\n']),
  code(['import torch\n', 'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments\n']),
  code([
    'model_name = "NousResearch/Llama-2-7b-chat-hf"\n',
    'bnb_config = BitsAndBytesConfig(\n',
    '    load_in_4bit=True,\n',
    '    bnb_4bit_quant_type="nf4",\n',
    '    bnb_4bit_compute_dtype=torch.float16,\n',
    ')\n',
    'model = AutoModelForCausalLM.from_pretrained(model_name, quantization_config=bnb_config)\n',
  ]),
  code([
    '%%capture\n',
    'peft_config = LoraConfig(lora_alpha=16, lora_dropout=0.1, r=64, task_type="CAUSAL_LM")\n',
    'args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, optim="paged_adamw_32bit")\n',
    'trainer = SFTTrainer(model=model, peft_config=peft_config, max_seq_length=512, args=args)\n',
    'trainer.train()',
  ]),
];
/** What notebooks do once trained: reload the merged model for a test (Qwen's and Unsloth's notebooks). */
const AFTER = [
  code(['merged = AutoModelForCausalLM.from_pretrained("outputs/merged")\n', 'merged.generate(**inputs)\n']),
];

const notebook = (cells: unknown[], indent = 1): string =>
  JSON.stringify({ cells, metadata: { accelerator: 'GPU' }, nbformat: 4, nbformat_minor: 0 }, null, indent);

const fact = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();
const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

describe('analyzers: Jupyter notebooks', () => {
  const raw = notebook(CELLS);

  it('is recognised by its extension and read cell by cell, located where the JSON writes each value', () => {
    assert.equal(detectFormat('llama2_qlora.ipynb', raw), 'notebook');
    const r = analyzeAs('notebook', raw);
    assert.equal(r.format, 'notebook');
    assert.equal(fact(r, 'model')?.value, 'NousResearch/Llama-2-7b-chat-hf');
    assert.equal(fact(r, 'quantBits')?.value, 4);
    assert.equal(fact(r, 'loraR')?.value, 64);
    assert.equal(fact(r, 'microBatchSize')?.value, 4);
    assert.equal(fact(r, 'seqLen')?.value, 512);
    // A string value is located with its escaped quotes; every fact on the JSON line of its source line.
    const quant = fact(r, 'quantType')!;
    assert.equal(raw.slice(quant.valueSpan.start, quant.valueSpan.end), '\\"nf4\\"');
    assert.equal(raw.slice(quant.keySpan.start, quant.keySpan.end), 'bnb_4bit_quant_type');
    const micro = fact(r, 'microBatchSize')!;
    const line = raw.split('\n')[lineOf(raw, micro.valueSpan.start) - 1];
    assert.match(line, /per_device_train_batch_size=4/);
  });

  it("keeps the script on the notebook's lines; shell escapes and non-Python cells are comments, %%capture is Python", () => {
    const nb = notebookCode(raw)!;
    const lines = nb.text.split('\n');
    const rawLines = raw.split('\n');
    const at = (needle: string): number => lines.findIndex((l) => l.includes(needle));
    const modelLine = at('model_name = ');
    assert.match(rawLines[modelLine], /model_name = /);
    assert.equal(lines[at('pip install')].trimStart()[0], '#');
    assert.equal(lines[at('%capture')].trimStart()[0], '#');
    assert.ok(lines[at('peft_config = LoraConfig')].startsWith('peft_config'));
    // A comment takes the place of the line's first character, so each character keeps its place in the JSON.
    assert.equal(lines[at('ccelerate launch')].trimStart(), '#ccelerate launch --num_processes 8 train.py');
  });

  it('resolves to a run: the 4-bit model, LoRA r 64 and the paged optimizer; the cells after training are not the run', () => {
    const r = resolveText('/w/llama2_qlora.ipynb', notebook([...CELLS, ...AFTER]));
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.equal(r.setup.model, 'NousResearch/Llama-2-7b-chat-hf');
    assert.equal(r.setup.method, 'qlora');
    assert.equal(r.setup.micro_batch_size, 4);
    assert.equal(r.setup.seq_len, 512);
  });

  it("a cell that calls the notebook's own training function trains (rohan-paul's CodeLlama-34B QLoRA notebook)", () => {
    const nb = notebook([
      code([
        'def setup_environment():\n',
        '    model_name = "codellama/CodeLlama-34b-hf"\n',
        '    return "./results", model_name\n',
      ]),
      code(['def create_base_model(model_name):\n', '    return AutoModelForCausalLM.from_pretrained(model_name)\n']),
      code(['def train_and_save_model(trainer, output_dir):\n', '    trainer.train()\n']),
      code(['def run(trainer):\n', '    train_and_save_model(trainer, "o")\n']),
      code([
        'output_dir, model_name = setup_environment()\n',
        'base_model = create_base_model(model_name)\n',
        'run(SFTTrainer(model=base_model))\n',
      ]),
      ...AFTER,
    ]);
    const code0 = notebookCode(nb)!;
    assert.match(code0.text, /run\(SFTTrainer/);
    assert.doesNotMatch(code0.text, /outputs\/merged/);
    assert.equal(fact(analyzeAs('notebook', nb), 'model')?.value, 'codellama/CodeLlama-34b-hf');
  });

  it("a config the notebook writes before its launch line reads it (LLaMA-Factory's Colab notebook, an Axolotl one)", () => {
    // hiyouga/LLaMA-Factory's Colab notebook (copied by vishnusureshperumbavoor/fine_tuning llama_factory.ipynb):
    // `args = dict(...)`, `json.dump(args, open("train_llama3.json", "w", encoding="utf-8"), indent=2)`, then
    // `!llamafactory-cli train train_llama3.json`.
    const lf = notebook([
      code([
        'import json\n',
        'args = dict(\n',
        '  stage="sft",\n',
        '  do_train=True,\n',
        '  model_name_or_path="unsloth/llama-3-8b-Instruct-bnb-4bit",\n',
        '  finetuning_type="lora",\n',
        '  lora_target="all",\n',
        '  per_device_train_batch_size=2,\n',
        '  gradient_accumulation_steps=4,\n',
        '  fp16=True,\n',
        ')\n',
        'json.dump(args, open("train_llama3.json", "w", encoding="utf-8"), indent=2)\n',
      ]),
      code(['!llamafactory-cli train train_llama3.json\n']),
    ]);
    const r = resolveText('/w/llama_factory.ipynb', lf);
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual(
      [r.setup.model, r.setup.method, r.setup.micro_batch_size, r.setup.gradient_accumulation_steps],
      ['unsloth/llama-3-8b-Instruct-bnb-4bit', 'qlora', 2, 4],
    );
    // skihyeon/DACON-HANSOL-QA notebooks/axolotl.ipynb: a YAML string dumped with yaml.dump(yaml.safe_load(s), file)
    // in a `with open("config.yaml", "w") as file:` block; and the same config in a %%writefile cell.
    const yaml = 'base_model: Qwen/Qwen2.5-0.5B\nadapter: lora\nlora_r: 16\nmicro_batch_size: 3\nsequence_len: 1024\n';
    const dumped = notebook([
      code([
        'import yaml\n',
        'yaml_string = """\n',
        ...yaml.split(/(?<=\n)/),
        '"""\n',
        'with open("config.yaml", "w") as file:\n',
        '    yaml.dump(yaml.safe_load(yaml_string), file)\n',
      ]),
      code(['!accelerate launch -m axolotl.cli.train config.yaml\n']),
    ]);
    const written = notebook([code(['%%writefile config.yaml\n', yaml]), code(['!axolotl train config.yaml\n'])]);
    for (const nb of [dumped, written]) {
      const a = resolveText('/w/axolotl.ipynb', nb);
      assert.ok(a.setup, JSON.stringify(a.problems));
      assert.deepEqual(
        [a.setup.model, a.setup.lora?.r, a.setup.micro_batch_size, a.setup.seq_len],
        ['Qwen/Qwen2.5-0.5B', 16, 3, 1024],
      );
    }
  });

  it('reads a single-string source, a notebook on one line, and one whose outputs are far beyond the JSON limit', () => {
    const single = notebook([
      code('model = AutoModelForCausalLM.from_pretrained("gpt2")\nTrainingArguments(output_dir="o")\n'),
    ]);
    assert.equal(fact(analyzeAs('notebook', single), 'model')?.value, 'gpt2');
    const flat = notebook(CELLS, 0);
    const r = analyzeAs('notebook', flat);
    const quant = fact(r, 'quantType')!;
    assert.equal(flat.slice(quant.valueSpan.start, quant.valueSpan.end), '\\"nf4\\"');
    // A 2 MiB image output (base64): the code is read all the same.
    const image = { output_type: 'display_data', data: { 'image/png': 'A'.repeat(2 * 1024 * 1024) }, metadata: {} };
    const big = notebook([
      code(['model = AutoModelForCausalLM.from_pretrained("gpt2")\n'], [image]),
      ...CELLS.slice(5),
    ]);
    assert.equal(fact(analyzeAs('notebook', big), 'model')?.value, 'gpt2');
    // 60,000 lines of printed output (noahwei682/qwen2.5-0.5b-rl QwenGRPO.ipynb prints its rollouts) before the cell
    // that trains: the script keeps each cell line on its JSON line, so the trainer sits 60,000 blank lines down.
    const printed = {
      output_type: 'stream',
      name: 'stdout',
      text: Array.from({ length: 60_000 }, (_, i) => `line ${i}\n`),
    };
    const long = notebook([
      code(['model_name = snapshot_download("Qwen/Qwen2.5-0.5B-Instruct")\n'], [printed]),
      code([
        'trainer = GRPOTrainer(model=model_name, reward_funcs=[f], args=GRPOConfig(output_dir="o"))\n',
        'trainer.train()',
      ]),
    ]);
    const r2 = analyzeAs('notebook', long);
    assert.ok(!r2.problems.some((p) => p.code === 'not-analyzed'), JSON.stringify(r2.problems.map((p) => p.message)));
    // snapshot_download(repo) is that repository's folder: the model is the repository.
    assert.equal(fact(r2, 'model')?.value, 'Qwen/Qwen2.5-0.5B-Instruct');
  });

  it("code cells over the Python analyzer's 1 MiB are not read: one not-analyzed warning, nothing else", () => {
    // 200,000 `!torchrun t.py` lines (3,000,000 characters of code, 2.9 MiB): each character's place was kept, seconds of analysis.
    const many = notebook([code(Array.from({ length: 200_000 }, () => '!torchrun t.py\n'))]);
    const r = analyzeAs('notebook', many);
    assert.deepEqual(
      r.problems.map((p) => p.code),
      ['not-analyzed'],
    );
    assert.match(r.problems[0].message, /2\.9 MiB of text.*up to 1\.0 MiB/);
    assert.deepEqual(r.facts, []);
  });

  it("a notebook whose cells train nothing but run a launch line is read as that launch (QwenLM/Qwen's LoRA recipe)", () => {
    const nb = notebook([
      code(['!pip install -q peft\n']),
      code([
        '!python ../../finetune.py \\\n',
        '    --model_name_or_path "Qwen/Qwen-1_8B-Chat"\\\n',
        '    --per_device_train_batch_size 1 \\\n',
        '    --gradient_accumulation_steps 16 \\\n',
        '    --model_max_length 512 \\\n',
        '    --use_lora\n',
      ]),
      code(['model = AutoModelForCausalLM.from_pretrained("output_qwen_merged")\n']),
    ]);
    assert.equal(detectFormat('finetune_lora_single_gpu.ipynb', nb), 'notebook');
    const r = analyzeAs('notebook', nb);
    assert.equal(fact(r, 'model')?.value, 'Qwen/Qwen-1_8B-Chat');
    assert.equal(fact(r, 'microBatchSize')?.value, 1);
    assert.equal(fact(r, 'gradientAccumulationSteps')?.value, 16);
    assert.equal(fact(r, 'seqLen')?.value, 512);
    const model = fact(r, 'model')!;
    assert.equal(nb.slice(model.valueSpan.start, model.valueSpan.end), 'Qwen/Qwen-1_8B-Chat');
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['script', '../../finetune.py']],
    );
    // With a cell that trains, the notebook's Python is the run, and its `!` lines are comments.
    const trains = notebook([...CELLS.slice(0, 6), code(['!python train.py --model_name_or_path gpt2\n'])]);
    assert.equal(fact(analyzeAs('notebook', trains), 'model')?.value, 'NousResearch/Llama-2-7b-chat-hf');
  });

  it("a launch line's {NAME} and $NAME are the notebook's Python values, as IPython expands them", () => {
    // shreyashreddyk/json-extraction-qlora-dpo notebooks/02_sft_review.ipynb (abridged): TRAIN_BATCH_SIZE = 32 in one
    // cell, `--per-device-train-batch-size {TRAIN_BATCH_SIZE}` in the next; the batch was "expects an integer".
    const nb = notebook([
      code(["MODEL = 'Qwen/Qwen2.5-1.5B-Instruct'\n", 'TRAIN_BATCH_SIZE = 32\n', 'GA = 8  # accumulation\n']),
      code([
        '!python train.py \\\n',
        '    --model_name_or_path {MODEL} \\\n',
        '    --per_device_train_batch_size {TRAIN_BATCH_SIZE} \\\n',
        '    --gradient_accumulation_steps $GA \\\n',
        '    --output_dir {OUT}\n',
      ]),
    ]);
    const r = analyzeAs('notebook', nb);
    assert.equal(fact(r, 'model')?.value, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.equal(fact(r, 'microBatchSize')?.value, 32);
    assert.equal(fact(r, 'gradientAccumulationSteps')?.value, 8);
    // Located where the line expands it.
    const batch = fact(r, 'microBatchSize')!;
    assert.equal(nb.slice(batch.valueSpan.start, batch.valueSpan.end), '{TRAIN_BATCH_SIZE}');
    assert.ok(!r.problems.some((p) => p.code === 'invalid-value'), JSON.stringify(r.problems));
  });

  it('a JSON without cells is said to be no notebook, at its start; no quick fix writes a notebook', () => {
    const r = analyzeAs('notebook', '{"metadata": {}}');
    assert.equal(r.facts.length, 0);
    assert.match(r.problems[0].message, /not a Jupyter notebook/);
    assert.deepEqual(r.problems[0].span, { start: 0, end: 1 });
    const written = PLANNERS.notebook.write({ file: 'a.ipynb', format: 'notebook' } as never, raw, {} as never);
    assert.ok('reason' in written && /edited in the notebook/.test(written.reason));
  });
});
