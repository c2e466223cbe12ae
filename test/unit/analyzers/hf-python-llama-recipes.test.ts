// llama-recipes (llama-cookbook) train(): a script or notebook that fills the library's train_config and hands its model
// to the library's loop (hf-python/llama-recipes.ts). The script is getting-started/finetuning's
// quickstart_peft_finetuning.ipynb (meta-llama/llama-recipes), cut to what decides the run; the defaults are
// train_config's (meta-llama/llama-cookbook@1a97f6f src/llama_cookbook/configs/training.py).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import type { CanonicalKey, ConfigFacts } from '../../../src/analyzers/facts';
import { editsForChanges } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';

const SCRIPT = `import torch
from transformers import LlamaForCausalLM
from llama_cookbook.configs import train_config as TRAIN_CONFIG

train_config = TRAIN_CONFIG()
train_config.model_name = "meta-llama/Meta-Llama-3.1-8B"
train_config.gradient_accumulation_steps = 4
train_config.batch_size_training = 1
train_config.use_fp16 = True
train_config.context_length = 1024 if torch.cuda.get_device_properties(0).total_memory < 16e9 else 2048
train_config.batching_strategy = "packing"

model = LlamaForCausalLM.from_pretrained(train_config.model_name, torch_dtype=torch.float16)

import torch.optim as optim
from llama_cookbook.utils.train_utils import train

optimizer = optim.AdamW(model.parameters(), lr=train_config.lr)
results = train(model, train_dataloader, eval_dataloader, tokenizer, optimizer, scheduler,
                train_config.gradient_accumulation_steps, train_config, None, None, None, wandb_run=None)
`;

const fact = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();

describe("hf-python: llama-recipes' train() with the script's train_config", () => {
  it('reads the fields the script sets: the batch, the accumulation, packing and fp16 autocast', () => {
    const r = analyzeHfPython(SCRIPT);
    assert.ok(r.tools.includes('pytorch'));
    assert.equal(fact(r, 'model')?.value, 'meta-llama/Meta-Llama-3.1-8B');
    assert.equal(fact(r, 'microBatchSize')?.value, 1);
    assert.equal(fact(r, 'gradientAccumulationSteps')?.value, 4);
    assert.equal(fact(r, 'batchLengths')?.value, 'fixed');
    assert.equal(fact(r, 'mixedPrecision')?.value, 'fp16');
    assert.equal(fact(r, 'optimizer')?.value, 'adamw');
    // The context length depends on the GPU the notebook runs on: unknown, said where it is set.
    const seq = fact(r, 'seqLen')!;
    assert.ok(typeof seq.value === 'object' && seq.value !== null && 'unknown' in seq.value);
    assert.equal(SCRIPT.slice(seq.keySpan.start, seq.keySpan.end), 'context_length');
    // The loop is the library's: no "no Trainer or loop" warning.
    assert.ok(!r.problems.some((p) => p.code === 'not-modeled'), JSON.stringify(r.problems));
  });

  it("a field the script leaves is train_config's default, said at the train() call", () => {
    const text = SCRIPT.replace(/^train_config\.(batch_size_training|use_fp16|context_length).*\n/gm, '');
    const r = analyzeHfPython(text);
    const micro = fact(r, 'microBatchSize')!;
    assert.deepEqual([micro.value, micro.origin], [4, 'call-default']);
    assert.equal(fact(r, 'seqLen')?.value, 4096);
    assert.equal(fact(r, 'mixedPrecision')?.value, 'none');
    assert.match(
      micro.defaultNote ?? '',
      /train_config\.batch_size_training defaults to 4 \(meta-llama\/llama-cookbook/,
    );
    assert.equal(text.slice(micro.keySpan.start, micro.keySpan.end), 'train');
  });

  it("a train() of the file's own, or llama-recipes imported without its train(), is not the library's loop", () => {
    const own = analyzeHfPython(SCRIPT.replace('from llama_cookbook.utils.train_utils import train', ''));
    assert.ok(!own.tools.includes('pytorch'));
    assert.equal(fact(own, 'microBatchSize'), undefined);
  });
});

describe('quick fixes of a llama-recipes train() file: none written, the train_config field named', () => {
  it('each change train() reads is left to the file, with the field that sets it', () => {
    const facts = analyzeHfPython(SCRIPT);
    const file = { file: '/w/nb.py', text: SCRIPT, format: 'hf-python' as const, facts };
    const plan = (key: string, value: unknown) => editsForChanges([{ key, value } as SetupChange], [file], file.file);
    const micro = plan('micro_batch_size', 2);
    assert.deepEqual(micro.edits, []);
    assert.match(micro.unsupported[0]?.reason ?? '', /set train_config\.batch_size_training by hand/);
    assert.match(plan('seq_len', 512).unsupported[0]?.reason ?? '', /train_config\.context_length/);
  });
});
