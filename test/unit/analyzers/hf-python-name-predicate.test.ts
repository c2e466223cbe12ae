// A script's own function that tests a model name against patterns decides the branches that set the model's loading
// (src/analyzers/hf-python/name-predicate.ts), and a model loaded on a branch known not to run loads nothing. Each
// expected value is the one the test's own script gives on the branch Python takes for its model name.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';

const run = (text: string) =>
  runPipeline([{ file: '/w/train.py', text }], { read: () => undefined, join: (_f, r) => r }, {});

/** razvanalex-phd/SeLeRoSa llm_finetune.py, cut to its attention choice (requires_eager_attention, lines 394-401). */
const script = (model: string, predicate: string[]): string =>
  [
    'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer',
    'EAGER = ["gemma-2-"]',
    'def requires_eager_attention(model_name: str) -> bool:',
    '    """Models whose attention needs the eager implementation."""',
    ...predicate,
    `BASE = "${model}"`,
    'model_kwargs = {"device_map": "auto"}',
    'if requires_eager_attention(BASE):',
    '    model_kwargs["attn_implementation"] = "eager"',
    'model = AutoModelForCausalLM.from_pretrained(BASE, **model_kwargs)',
    'Trainer(model=model, args=TrainingArguments(output_dir="o")).train()',
    '',
  ].join('\n');

const SELEROSA = [
  '    model_name_lower = model_name.lower()',
  '    eager_attention_patterns = [',
  '        "gemma-2",',
  '        "gemma-3",',
  '    ]',
  '    return any(pattern in model_name_lower for pattern in eager_attention_patterns)',
];

describe("hf-python: a script's own predicate on the model name", () => {
  it('`any(p in name.lower() for p in [...])` is true for gemma-3: eager attention, located at the item', () => {
    const r = run(script('google/gemma-3-27b-it', SELEROSA));
    assert.equal(r.setup?.attention, 'eager');
    assert.deepEqual(r.provenance.attention, {
      kind: 'file',
      file: '/w/train.py',
      line: 14,
      key: 'attn_implementation',
    });
    // False for Llama: the item is never set, and the HF Trainer's default stands (sdpa, transformers >= 4.36).
    const llama = run(script('meta-llama/Llama-3.1-8B', SELEROSA));
    assert.equal(llama.setup?.attention, 'sdpa');
    assert.equal(llama.provenance.attention?.kind, 'default');
  });

  it('startswith with a tuple, `or`, `not`, `==` and a module constant are read; anything else is not', () => {
    const tests: [string, string, string][] = [
      ['    return model_name.lower().startswith(("google/gemma", "rogemma"))', 'google/gemma-2-9b', 'eager'],
      ['    return "gemma" in model_name or model_name == "x"', 'meta-llama/Llama-3.1-8B', 'sdpa'],
      ['    return not ("llama" in model_name.lower())', 'meta-llama/Llama-3.1-8B', 'sdpa'],
      ['    return any(p in model_name for p in EAGER)', 'google/gemma-2-9b', 'eager'],
    ];
    for (const [body, model, attention] of tests)
      assert.equal(run(script(model, [body])).setup?.attention, attention, body);
    // A call of the runtime (a network look-up) is not read: the attention is not known, and said so.
    const opaque = run(script('google/gemma-3-27b-it', ['    return AutoConfig.from_pretrained(model_name).x']));
    assert.equal(opaque.provenance.attention?.kind, 'default');
    const note = opaque.provenance.attention?.kind === 'default' ? (opaque.provenance.attention.note ?? '') : '';
    assert.match(note, /the file's value "eager" is not known statically/);
  });

  it('a model loaded on a branch known not to run loads nothing (simplescaling/s1 sft.py: its 70B branch)', () => {
    // `if "70B" in config.model_name:` loads with FlashAttention-2; the 32B model loads in bf16 on the else branch.
    const text = [
      'import torch, transformers',
      'MODEL = "Qwen/Qwen2.5-32B-Instruct"',
      'if "70B" in MODEL:',
      '    kwargs = {"device_map": "auto", "attn_implementation": "flash_attention_2"}',
      '    model = transformers.AutoModelForCausalLM.from_pretrained(MODEL, **kwargs)',
      'else:',
      '    model = transformers.AutoModelForCausalLM.from_pretrained(MODEL, torch_dtype=torch.bfloat16)',
      'transformers.Trainer(model=model, args=transformers.TrainingArguments(output_dir="o")).train()',
      '',
    ].join('\n');
    const r = run(text);
    assert.equal(r.setup?.attention, 'sdpa');
    // With a 70B model the first branch runs: FlashAttention-2 at its keyword.
    assert.equal(run(text.replace('Qwen/Qwen2.5-32B-Instruct', 'meta-llama/Llama-3.1-70B')).setup?.attention, 'flash');
  });
});
