// Tests of the Python analyzer on training loops the script writes out (src/analyzers/hf-python/loop.ts): the loop
// is found from its backward call, and the run's settings come from what the script builds (DataLoader, Accelerator,
// autocast, the optimizer, FSDP's wrapping, the tokenizer), not from the Trainer's defaults. Each script is a
// condensed form of a common pattern: Accelerate's examples/by_feature and transformers' run_clm_no_trainer.py
// (`outputs = model(**batch)` kept in the loop), torch FSDP tutorials (FSDP(...), apply_activation_checkpointing).
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { isUnknown, type CanonicalKey, type ConfigFacts, type Fact } from '../../../src/analyzers/facts';
import { resolveText, runFact, runProject } from '../helpers';
import { runPipeline } from '../../../src/analyzers/pipeline';

function only(r: ConfigFacts, key: CanonicalKey): Fact {
  const fs = r.facts.filter((f) => f.key === key);
  assert.equal(fs.length, 1, `one ${key} fact, found ${JSON.stringify(fs.map((f) => f.value))}`);
  return fs[0];
}

function text(r: ConfigFacts, src: string, key: CanonicalKey): string {
  const f = only(r, key);
  return src.slice(f.valueSpan.start, f.valueSpan.end);
}

const ACCELERATE_LOOP = `import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer
from peft import LoraConfig, get_peft_model
from accelerate import Accelerator

accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=4)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")

def collate(rows):
    return tokenizer(rows, padding="max_length", max_length=1024, truncation=True, return_tensors="pt")

eval_dataloader = DataLoader(eval_ds, batch_size=16, collate_fn=collate)
train_dataloader = DataLoader(train_ds, batch_size=4, shuffle=True, collate_fn=collate)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)

for epoch in range(3):
    model.train()
    for step, batch in enumerate(train_dataloader):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
    model.eval()
    for batch in eval_dataloader:
        with torch.no_grad():
            outputs = model(**batch)
`;

describe('hf-python: a training loop written out', () => {
  it('reads the run from what the script builds, not from the Trainer defaults', () => {
    const r = analyzeHfPython(ACCELERATE_LOOP);
    assert.ok(r.tools.includes('pytorch'));
    // The DataLoader the loop iterates (train_dataloader), not the evaluation one.
    assert.equal(only(r, 'microBatchSize').value, 4);
    assert.equal(text(r, ACCELERATE_LOOP, 'microBatchSize'), '4');
    assert.equal(only(r, 'mixedPrecision').value, 'bf16');
    assert.equal(only(r, 'gradientAccumulationSteps').value, 4);
    assert.equal(only(r, 'seqLen').value, 1024);
    assert.equal(only(r, 'optimizer').value, 'adamw');
    assert.equal(only(r, 'gradientCheckpointing').value, 'full');
    assert.equal(only(r, 'checkpointReentrant').value, false);
    // `outputs` is rebound each step and never deleted: the step's outputs live into the next forward.
    const kept = only(r, 'loopKeepsOutputs');
    assert.equal(kept.value, true);
    assert.equal(ACCELERATE_LOOP.slice(kept.keySpan.start, kept.keySpan.end), 'outputs');
    assert.equal(text(r, ACCELERATE_LOOP, 'loopKeepsOutputs'), 'model(**batch)');
  });

  it("a DataLoader a function of the script builds for training and for evaluation: the training call's batch", () => {
    // Srini-98/TEXT2SQL-EHRSQL train.py: `def get_dataloader(..., batch_size): ... DataLoader(..., batch_size=batch_size)`
    // called as `train_sampler, train_dataloader = get_dataloader(..., batch_size=train_batch_size)` (4) and for the
    // evaluation with 2; an epoch loop around `tqdm(enumerate(train_dataloader))`. It was 1, "not known statically".
    const src = [
      'import torch',
      'from torch.utils.data import DataLoader',
      'from transformers import AutoModelForCausalLM',
      'def get_dataloader(dataset, shuffle, batch_size):',
      '    sampler = None',
      '    return sampler, DataLoader(dataset, shuffle=shuffle, batch_size=batch_size)',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B").cuda()',
      'optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)',
      'train_batch_size = 4',
      'train_sampler, train_dataloader = get_dataloader(train_ds, True, batch_size=train_batch_size)',
      'eval_sampler, val_loader = get_dataloader(eval_ds, False, batch_size=2)',
      'for epoch in range(3):',
      '    pbar = tqdm(enumerate(train_dataloader))',
      '    for step, batch in pbar:',
      '        model(**batch).loss.backward()',
      '        optimizer.step()',
      '',
    ].join('\n');
    assert.equal(only(analyzeHfPython(src), 'microBatchSize').value, 4);
  });

  it('an optimizer stepped under `if (idx + 1) % N == 0:` accumulates N micro-batches (the default of its option)', () => {
    // go-akshit/spring2024-assignment5-alignment@a835324 cs336_alignment/instruction_finetuning.py:145, its argparse
    // default --gradient_accumulation_steps 16; read as one micro-batch a step before.
    const src = [
      'import argparse, torch',
      'from torch.utils.data import DataLoader',
      'from transformers import AutoModelForCausalLM',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--gradient_accumulation_steps", type=int, default=16)',
      'args = parser.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B").to("cuda")',
      'optimizer = torch.optim.AdamW(model.parameters())',
      'for idx, batch in enumerate(DataLoader(data, batch_size=2)):',
      '    loss = model(**batch).loss / args.gradient_accumulation_steps',
      '    loss.backward()',
      '    if (idx + 1) % args.gradient_accumulation_steps == 0:',
      '        optimizer.step()',
      '        optimizer.zero_grad()',
      '',
    ].join('\n');
    const r = analyzeHfPython(src);
    assert.equal(only(r, 'gradientAccumulationSteps').value, 16);
    // Located at the option's default, which decides it.
    assert.equal(text(r, src, 'gradientAccumulationSteps'), '16');
    // Stepped every micro-batch, nothing is read.
    const every = src
      .replace('    if (idx + 1) % args.gradient_accumulation_steps == 0:\n        optimizer', '    optimizer')
      .replace('\n        optimizer.zero_grad()', '\n    optimizer.zero_grad()');
    assert.equal(
      analyzeHfPython(every).facts.some((f) => f.key === 'gradientAccumulationSteps'),
      false,
    );
  });

  it('resolves the loop script with its own defaults and no Trainer ones', () => {
    const res = resolveText('train.py', ACCELERATE_LOOP);
    const s = res.setup as Record<string, unknown>;
    assert.equal(s.micro_batch_size, 4);
    assert.equal(s.mixed_precision, 'bf16');
    assert.equal(s.seq_len, 1024);
    assert.equal(s.gradient_checkpointing, 'full');
    assert.equal(s.loop_keeps_outputs, true);
    assert.equal(s.gradient_accumulation_steps, 4);
  });

  const keeps = (src: string): boolean => analyzeHfPython(src).facts.some((f) => f.key === 'loopKeepsOutputs');

  it('deleting the outputs before the backward, or taking only the loss, keeps nothing', () => {
    const deleted = ACCELERATE_LOOP.replace(
      '            loss = outputs.loss\n',
      '            loss = outputs.loss\n            del outputs\n',
    );
    assert.equal(keeps(deleted), false);
    const lossOnly = ACCELERATE_LOOP.replace(
      'outputs = model(**batch)\n            loss = outputs.loss',
      'loss = model(**batch).loss',
    );
    assert.equal(keeps(lossOnly), false);
    // The logits alone are kept the same way.
    const logits = ACCELERATE_LOOP.replace(
      'outputs = model(**batch)\n            loss = outputs.loss',
      'logits = model(**batch).logits\n            loss = loss_fn(logits, batch["labels"])',
    );
    assert.equal(only(analyzeHfPython(logits), 'loopKeepsOutputs').value, true);
  });

  it('released after the backward (del, or rebound to None as Answer.AI’s train.py does), the outputs live to the release', () => {
    // AnswerDotAI/fsdp_qlora@05ed9f2:train.py: `output = None` after the optimizer step, before the next batch.
    const released = (line: string): ConfigFacts =>
      analyzeHfPython(
        ACCELERATE_LOOP.replace('            optimizer.zero_grad()\n', `            optimizer.zero_grad()\n${line}`),
      );
    for (const line of ['            del outputs, loss\n', '            outputs = None\n']) {
      const kept = only(released(line), 'loopKeepsOutputs');
      assert.equal(kept.value, 'step');
      assert.equal(ACCELERATE_LOOP.slice(kept.keySpan.start, kept.keySpan.end), 'outputs');
    }
    const res = resolveText(
      'train.py',
      ACCELERATE_LOOP.replace('optimizer.zero_grad()\n', 'optimizer.zero_grad()\n            outputs = None\n'),
    );
    assert.equal((res.setup as Record<string, unknown>).loop_keeps_outputs, 'step');
  });

  it("GaLore's torchrun_main.py: a model from a config the launch line names, a required option, a dataset that batches", () => {
    // jiaweizzhao/GaLore torchrun_main.py (condensed) and scripts/benchmark_c4/llama_1b.sh: `--model_config` and
    // `--batch_size` are required argparse options; the DataLoader's batch_size=None leaves the batching to the
    // dataset, built with batch_size=args.batch_size; the model is from_config of a name bound to AutoConfig.
    const script = [
      'import argparse',
      'import torch',
      'from transformers import AutoConfig, AutoModelForCausalLM',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--model_config", type=str, required=True)',
      'parser.add_argument("--batch_size", type=int, required=True)',
      'args = parser.parse_args()',
      'dataset = PreprocessedIterableDataset(data, tokenizer, batch_size=args.batch_size, max_length=256)',
      'dataloader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=8)',
      'model_config = AutoConfig.from_pretrained(args.model_config)',
      'model = AutoModelForCausalLM.from_config(model_config)',
      'optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)',
      'for batch in dataloader:',
      '    loss = model(**batch, labels=batch["input_ids"]).loss',
      '    loss.backward()',
      '',
    ].join('\n');
    const r = analyzeHfPython(script);
    assert.equal(text(r, script, 'microBatchSize'), 'args.batch_size');
    assert.equal(text(r, script, 'model'), 'args.model_config');
    const files: Record<string, string> = {
      '/g/run.sh': 'torchrun --nproc_per_node 8 main.py --model_config meta-llama/Llama-3.2-1B --batch_size 16\n',
      '/g/main.py': script,
    };
    const run = runPipeline(
      [{ file: '/g/run.sh', text: files['/g/run.sh'] }],
      { read: (p) => files[p], join: (_from, rel) => `/g/${rel}` },
      {},
    );
    assert.equal(run.setup?.model, 'meta-llama/Llama-3.2-1B');
    assert.equal(run.setup?.micro_batch_size, 16);
    assert.equal(run.setup?.gpus_per_node, 8);
  });

  it('a DataLoader without batch_size is torch’s default of 1; no optimizer falls back to a stated assumption', () => {
    const src = `from transformers import AutoModelForCausalLM
from torch.utils.data import DataLoader
model = AutoModelForCausalLM.from_pretrained("gpt2")
loader = DataLoader(ds, shuffle=True)
opt = make_optimizer(model)
for batch in loader:
    loss = model(**batch).loss
    loss.backward()
    opt.step()
`;
    const r = analyzeHfPython(src);
    const f = only(r, 'microBatchSize');
    assert.deepEqual([f.value, f.origin], [1, 'call-default']);
    const res = resolveText('train.py', src);
    assert.equal((res.setup as Record<string, unknown>).optimizer, 'adamw');
    assert.equal(res.provenance.optimizer?.kind, 'default');
    assert.match(String((res.provenance.optimizer as { note?: string }).note), /no optimizer class/);
    assert.equal(res.provenance.micro_batch_size?.kind, 'file');
  });

  it('reads torch.autocast, the optimizer class and its options', () => {
    const src = `import torch, bitsandbytes as bnb
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B").cuda()
opt = bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-5)
sched = torch.optim.SGD(other.parameters(), lr=0.1, momentum=0.9)
for batch in loader:
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        out = model(input_ids=batch["input_ids"], labels=batch["labels"])
    out.loss.backward()
    opt.step()
`;
    const r = analyzeHfPython(src);
    assert.equal(only(r, 'mixedPrecision').value, 'bf16');
    // The optimizer the loop steps, not the first one constructed.
    assert.equal(only(r, 'optimizer').value, 'paged_adamw_8bit');
    assert.equal(only(r, 'loopKeepsOutputs').value, true);
    const fused = src.replace(
      'bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-5)',
      'torch.optim.AdamW(model.parameters(), fused=True)',
    );
    assert.equal(only(analyzeHfPython(fused), 'optimizer').value, 'adamw_fused');
    const loop = src.replace(
      'bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-5)',
      'torch.optim.AdamW(model.parameters(), foreach=False)',
    );
    assert.equal(only(analyzeHfPython(loop), 'optimizer').value, 'adamw_hf');
    // bitsandbytes' 32-bit classes with optim_bits=8 keep 8-bit states (yushengsu-thu/mup_training's bnb.optim.Lion).
    for (const [cls, want] of [
      ['bnb.optim.Lion', 'lion_8bit'],
      ['bnb.optim.AdamW', 'adamw_8bit'],
    ]) {
      const eight = src.replace(
        'bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-5)',
        `${cls}(model.parameters(), lr=1e-5, optim_bits=8)`,
      );
      assert.equal(only(analyzeHfPython(eight), 'optimizer').value, want);
    }
    // torch.optim.RMSprop with its defaults (the DPO reference implementation's trainers.py); with momentum, centered
    // or weight decay its step keeps more than the one state modeled, and resolve warns that AdamW is assumed.
    const rms = (args: string): string =>
      src.replace('bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-5)', `torch.optim.RMSprop(${args})`);
    assert.equal(only(analyzeHfPython(rms('model.parameters(), lr=5e-7')), 'optimizer').value, 'rmsprop');
    assert.equal(resolveText('train.py', rms('model.parameters(), lr=5e-7')).setup?.optimizer, 'rmsprop');
    const momentum = resolveText('train.py', rms('model.parameters(), lr=5e-7, momentum=0.9'));
    assert.equal(momentum.setup?.optimizer, 'adamw');
    assert.ok(momentum.problems.some((p) => /'torch.optim.RMSprop\(momentum=0.9\)' is not modeled/.test(p.message)));
    // torch.cuda.amp.autocast() without a dtype is float16; a CPU autocast changes nothing on the GPU.
    const amp = src.replace('torch.autocast(device_type="cuda", dtype=torch.bfloat16)', 'torch.cuda.amp.autocast()');
    assert.equal(only(analyzeHfPython(amp), 'mixedPrecision').value, 'fp16');
    const cpu = src.replace('torch.autocast(device_type="cuda", dtype=torch.bfloat16)', 'torch.autocast("cpu")');
    assert.equal(
      analyzeHfPython(cpu).facts.some((f) => f.key === 'mixedPrecision'),
      false,
    );
  });

  it('reads torch FSDP wrapping and activation checkpointing written by hand', () => {
    const src = `import functools, torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy, CPUOffload, MixedPrecision
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import apply_activation_checkpointing, checkpoint_wrapper, CheckpointImpl
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
model = FSDP(model, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP, cpu_offload=CPUOffload(offload_params=True),
             mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32))
wrapper = functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.REENTRANT)
apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrapper)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
for batch in dataloader:
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
`;
    const r = analyzeHfPython(src);
    assert.equal(only(r, 'fsdp').value, 'shard_grad_op');
    assert.equal(only(r, 'fsdpVersion').value, 1);
    assert.equal(only(r, 'fsdpOffload').value, true);
    assert.equal(only(r, 'mixedPrecision').value, 'bf16');
    assert.equal(only(r, 'gradientCheckpointing').value, 'full');
    assert.equal(only(r, 'checkpointReentrant').value, true);
    // Inside each unit of the wrapped model: no recomputed input for FSDP1's hooks to keep (terms/fsdp1-frozen-inputs.ts).
    assert.equal(only(r, 'checkpointWrapper').value, true);
    // A check_fn that wraps only the attention (seopbo/llmpy's `lambda submodule: isinstance(submodule,
    // LlamaAttention)`, also through a name): the MLP and the norms keep their activations; op-level selective, said.
    const attention = (check: string): ReturnType<typeof analyzeHfPython> =>
      analyzeHfPython(
        src.replace('checkpoint_wrapper_fn=wrapper)', `checkpoint_wrapper_fn=wrapper, check_fn=${check})`),
      );
    const part = attention('lambda submodule: isinstance(submodule, LlamaAttention)');
    assert.equal(only(part, 'gradientCheckpointing').value, 'selective');
    assert.match(part.problems.find((p) => /check_fn wraps only/.test(p.message))?.message ?? '', /LlamaAttention/);
    const named = src
      .replace('wrapper = ', 'check_fn = lambda m: isinstance(m, (LlamaAttention, LlamaMLP))\nwrapper = ')
      .replace('checkpoint_wrapper_fn=wrapper)', 'checkpoint_wrapper_fn=wrapper, check_fn=check_fn)');
    assert.equal(only(analyzeHfPython(named), 'gradientCheckpointing').value, 'selective');
    const layer = attention('lambda m: isinstance(m, LlamaDecoderLayer)');
    assert.equal(only(layer, 'gradientCheckpointing').value, 'full');
    // FullyShardedDataParallel's backward_prefetch defaults to BACKWARD_PRE (fully_sharded_data_parallel.py); None
    // turns it off.
    const pre = only(r, 'fsdpBackwardPrefetch');
    assert.deepEqual([pre.value, pre.rawKey], ['pre', 'backward_prefetch']);
    const off = analyzeHfPython(src.replace('cpu_offload=', 'backward_prefetch=None, cpu_offload='));
    assert.equal(only(off, 'fsdpBackwardPrefetch').value, 'none');
    const post = analyzeHfPython(
      src.replace('cpu_offload=', 'backward_prefetch=BackwardPrefetch.BACKWARD_POST, cpu_offload='),
    );
    assert.equal(only(post, 'fsdpBackwardPrefetch').value, 'post');
    // use_orig_params defaults to False in FullyShardedDataParallel's constructor (fully_sharded_data_parallel.py), as a
    // call-default fact at the call; True when the call says so; a non-boolean is an invalid value at its key.
    const orig = only(r, 'fsdpUseOrigParams');
    assert.deepEqual([orig.value, orig.rawKey, orig.origin], [false, 'use_orig_params', 'call-default']);
    const on = src.replace('cpu_offload=', 'use_orig_params=True, cpu_offload=');
    assert.equal(text(analyzeHfPython(on), on, 'fsdpUseOrigParams'), 'True');
    assert.equal(only(analyzeHfPython(on), 'fsdpUseOrigParams').value, true);
    const bad = analyzeHfPython(src.replace('cpu_offload=', 'use_orig_params="yes", cpu_offload='));
    assert.equal(bad.problems.find((p) => p.code === 'invalid-value')?.rawKey, 'use_orig_params');
    const fsdp2 = `from torch.distributed.fsdp import fully_shard, CPUOffloadPolicy
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
for layer in model.model.layers:
    fully_shard(layer, reshard_after_forward=False, offload_policy=CPUOffloadPolicy())
fully_shard(model)
for batch in dataloader:
    model(**batch).loss.backward()
`;
    const r2 = analyzeHfPython(fsdp2);
    assert.deepEqual(
      [only(r2, 'fsdpVersion').value, only(r2, 'fsdp').value, only(r2, 'fsdpOffload').value],
      [2, 'shard_grad_op', true],
    );
  });

  it("DDP's find_unused_parameters from the wrapper's call: False by default, True when the call says so", () => {
    // torch/nn/parallel/distributed.py DistributedDataParallel.__init__(..., find_unused_parameters=False, ...).
    const ddp = (args: string) => `import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B").to("cuda")
model = DDP(model, device_ids=[0]${args})
for batch in dataloader:
    model(**batch).loss.backward()
`;
    const plain = only(analyzeHfPython(ddp('')), 'ddpFindUnused');
    assert.deepEqual([plain.value, plain.rawKey, plain.origin], [false, 'find_unused_parameters', 'call-default']);
    const src = ddp(', find_unused_parameters=True');
    const on = analyzeHfPython(src);
    assert.deepEqual([only(on, 'ddpFindUnused').value, text(on, src, 'ddpFindUnused')], [true, 'True']);
    assert.equal(resolveText('train.py', src).setup?.ddp_find_unused_parameters, true);
  });

  it("whether the micro-batches defer FSDP's gradient sync: accumulate(), no_sync, set_requires_gradient_sync, sync_each_batch", () => {
    // accelerate accelerator.py accumulate: no_sync(model) on every micro-batch but the last, unless the
    // GradientAccumulationPlugin says sync_each_batch.
    const acc = only(analyzeHfPython(ACCELERATE_LOOP), 'fsdpNoSync');
    assert.deepEqual([acc.value, acc.rawKey, acc.tool], [true, 'accumulate', 'accelerate']);
    const each = ACCELERATE_LOOP.replace(
      'accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=4)',
      'from accelerate.utils import GradientAccumulationPlugin\n' +
        'plugin = GradientAccumulationPlugin(num_steps=4, sync_each_batch=True)\n' +
        'accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_plugin=plugin)',
    );
    assert.equal(only(analyzeHfPython(each), 'fsdpNoSync').value, false);
    const fsdp2 = (body: string) => `from torch.distributed.fsdp import fully_shard
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
fully_shard(model)
for step, batch in enumerate(dataloader):
${body}    model(**batch).loss.backward()
`;
    const deferred = analyzeHfPython(fsdp2('    model.set_requires_gradient_sync(step % 4 == 3)\n'));
    assert.equal(only(deferred, 'fsdpNoSync').value, true);
    // A plain loop says nothing: the pytorch tool's default (every micro-batch reduced) applies at resolve.
    assert.equal(analyzeHfPython(fsdp2('')).facts.filter((f) => f.key === 'fsdpNoSync').length, 0);
    assert.equal(
      analyzeHfPython(fsdp2('    model.set_requires_gradient_sync(True)\n')).facts.filter((f) => f.key === 'fsdpNoSync')
        .length,
      0,
    );
    const res = resolveText('train.py', fsdp2(''));
    assert.equal((res.setup as Record<string, unknown>).fsdp_no_sync, false);
    assert.deepEqual(
      [res.provenance.fsdp_no_sync?.kind, (res.provenance.fsdp_no_sync as { owner?: string }).owner],
      ['default', 'pytorch'],
    );
  });

  it("TrainingArguments(accelerator_config=...): sync_each_batch turns the Trainer's no_sync off", () => {
    const src = (v: string) => `from transformers import TrainingArguments
args = TrainingArguments(output_dir="o", gradient_accumulation_steps=4,
    accelerator_config={"gradient_accumulation_kwargs": {"sync_each_batch": ${v}}})
`;
    assert.equal(only(analyzeHfPython(src('True')), 'fsdpNoSync').value, false);
    assert.equal(only(analyzeHfPython(src('False')), 'fsdpNoSync').value, true);
  });

  it('TrainingArguments(fsdp_config=...): use_orig_params as transformers reads it, the fsdp_ prefix stripped, FSDP1 only', () => {
    // transformers training_args.py: str_to_bool(str(self.fsdp_config.get("use_orig_params", "true")).lower()).
    const src = (cfg: string) => `from transformers import TrainingArguments
args = TrainingArguments(output_dir="o", fsdp="full_shard offload", fsdp_config=${cfg})
`;
    const off = src('{"use_orig_params": False}');
    assert.equal(only(analyzeHfPython(off), 'fsdpUseOrigParams').value, false);
    assert.equal(text(analyzeHfPython(off), off, 'fsdpUseOrigParams'), 'False');
    assert.equal(only(analyzeHfPython(src('{"fsdp_use_orig_params": "false"}')), 'fsdpUseOrigParams').value, false);
    assert.equal(only(analyzeHfPython(src('{"use_orig_params": "True"}')), 'fsdpUseOrigParams').value, true);
    const bad = analyzeHfPython(src('{"use_orig_params": "sometimes"}'));
    assert.equal(bad.problems.find((p) => p.code === 'invalid-value')?.rawKey, 'use_orig_params');
    const fsdp2 = analyzeHfPython(src('{"version": 2, "use_orig_params": False}'));
    assert.ok(!fsdp2.facts.some((f) => f.key === 'fsdpUseOrigParams'));
    // Unset, the Trainer's default (true) applies at resolve, with its source.
    const trainer =
      'from transformers import AutoModelForCausalLM, Trainer\n' +
      src('{"transformer_layer_cls_to_wrap": ["LlamaDecoderLayer"]}') +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'Trainer(model=model, args=args, train_dataset=ds).train()\n';
    const res = resolveText('train.py', trainer);
    assert.equal((res.setup as Record<string, unknown>).fsdp_use_orig_params, true);
    const prov = res.provenance.fsdp_use_orig_params as { kind?: string; owner?: string; note?: string };
    assert.deepEqual([prov.kind, prov.owner], ['default', 'hf-trainer']);
    assert.match(prov.note ?? '', /fsdp_config\.get\("use_orig_params", "true"\)/);
  });

  it("the training forward's cache: on by transformers' default, off where the script says so", () => {
    // No checkpointing here: the kept outputs carry the DynamicCache unless use_cache is off.
    const src = ACCELERATE_LOOP.replace(
      'model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})\n',
      '',
    );
    const res = resolveText('train.py', src);
    assert.equal((res.setup as Record<string, unknown>).use_cache, true);
    assert.equal(res.provenance.use_cache?.kind, 'default');
    const off = src.replace(
      'def collate(rows):',
      'def setup():\n    model.config.use_cache = False\n\ndef collate(rows):',
    );
    const f = only(analyzeHfPython(off), 'useCache');
    assert.deepEqual([f.value, off.slice(f.keySpan.start, f.keySpan.end)], [false, 'model.config.use_cache']);
    const call = src.replace('outputs = model(**batch)', 'outputs = model(**batch, use_cache=False)');
    assert.equal(only(analyzeHfPython(call), 'useCache').value, false);
    assert.equal((resolveText('train.py', call).setup as Record<string, unknown>).use_cache, false);
  });

  it('a backward inside a step function called from the loop; its locals keep nothing', () => {
    const src = `from transformers import AutoModelForCausalLM
from torch.utils.data import DataLoader
model = AutoModelForCausalLM.from_pretrained("gpt2")
loader = DataLoader(ds, batch_size=8)
def train_step(batch):
    outputs = model(**batch)
    outputs.loss.backward()
for batch in loader:
    train_step(batch)
`;
    const r = analyzeHfPython(src);
    assert.ok(r.tools.includes('pytorch'));
    assert.equal(only(r, 'microBatchSize').value, 8);
    assert.equal(keeps(src), false);
  });

  it('a Trainer script is not a loop; gradient_checkpointing_enable() wins over gradient_checkpointing=False', () => {
    const src = `from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
from torch.utils.data import DataLoader
model = AutoModelForCausalLM.from_pretrained("gpt2")
model.gradient_checkpointing_enable()
args = TrainingArguments("out", per_device_train_batch_size=2, gradient_checkpointing=False)
probe = DataLoader(ds, batch_size=64)
for batch in probe:
    model(**batch).loss.backward()
Trainer(model=model, args=args).train()
`;
    const r = analyzeHfPython(src);
    assert.equal(r.tools.includes('pytorch'), false);
    assert.deepEqual(
      r.facts.filter((f) => f.key === 'microBatchSize').map((f) => f.value),
      [2],
    );
    const s = resolveText('train.py', src).setup as Record<string, unknown>;
    assert.equal(s.gradient_checkpointing, 'full');
    // Under a branch whose test is not known, the call is reported as unknown at its place.
    const branched = src.replace(
      'model.gradient_checkpointing_enable()',
      'if use_gc:\n    model.gradient_checkpointing_enable()',
    );
    const gc = analyzeHfPython(branched).facts.filter((f) => f.key === 'gradientCheckpointing');
    assert.ok(gc.some((f) => isUnknown(f.value)));
  });

  it("the script's Accelerator(mixed_precision=...) wins over the launcher's config; its accumulation does not", () => {
    // Accelerate reads ACCELERATE_MIXED_PRECISION only when the argument is None, but
    // ACCELERATE_GRADIENT_ACCUMULATION_STEPS before the argument (accelerate 1.15 state.py, accelerator.py).
    const files: Record<string, string> = {
      'run.sh': 'accelerate launch --config_file cfg.yaml --gradient_accumulation_steps 2 train.py\n',
      'cfg.yaml': 'distributed_type: MULTI_GPU\nmixed_precision: fp16\nnum_processes: 2\n',
      'train.py': ACCELERATE_LOOP,
    };
    const r = runPipeline(
      [{ file: 'run.sh', text: files['run.sh'] }],
      { read: (f: string) => files[f], join: (_a: string, b: string) => b },
      {},
    );
    const s = r.setup as Record<string, unknown>;
    assert.equal(s.mixed_precision, 'bf16');
    assert.equal((r.provenance.mixed_precision as { file?: string }).file, 'train.py');
    assert.equal(s.gradient_accumulation_steps, 2);
  });
});

describe('hf-python: a training step written once, in no loop', () => {
  // RethinkFun/sft's train_sft/sft_simple.py: one tokenized dialog, `loss.backward()`, `optimizer.step()` and
  // `optimizer.zero_grad()` at the module's top level, no for loop. It is a loop of one step: the batch is the one
  // sequence (torch's default of 1 without a DataLoader), not the HF Trainer's 8, and the optimizer is torch's.
  const src = `from transformers import AutoModelForCausalLM, AutoTokenizer
import torch
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct").to("cuda")
optimizer = torch.optim.AdamW(model.parameters())
input = tokenizer.apply_chat_template(dialog, return_tensors="pt")
input["labels"] = input["input_ids"].clone()
output = model(**input)
loss = output.loss
loss.backward()
optimizer.step()
optimizer.zero_grad()
model.save_pretrained("output_dir")
`;

  it('reads it as a loop of one step: the batch of one, torch AdamW, no outputs kept into a next step', () => {
    const r = resolveText('sft_simple.py', src);
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.optimizer], [1, 'adamw']);
    assert.ok(!r.problems.some((p) => /no Trainer, TRL trainer or training loop/.test(p.message)));
    assert.equal(r.setup?.loop_keeps_outputs, false);
    // A backward with no optimizer step after it is no training step (a gradient check).
    const check = resolveText('grad_check.py', src.replace('optimizer.step()\n', ''));
    assert.ok(check.problems.some((p) => /no Trainer, TRL trainer or training loop/.test(p.message)));
  });
});

describe('hf-python: a loop whose model stays on the CPU', () => {
  // Truenumbers/TN-LLM-Prototyping's fine-tuner1.py: from_pretrained with no device_map, no .to(...) or .cuda(), no
  // Accelerator, then model.train(), loss.backward(), optimizer.step() in a loop: PyTorch keeps the model on the CPU.
  const src = `from transformers import AutoModelForCausalLM
import torch
model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
model.train()
for epoch in range(3):
    outputs = model(**inputs, labels=inputs["input_ids"])
    outputs.loss.backward()
    optimizer.step()
    optimizer.zero_grad()
`;

  it('says so at the model load, and not once the model is moved', () => {
    const r = analyzeHfPython(src);
    const w = r.problems.find((p) => p.code === 'runs-on-cpu');
    assert.equal(w?.severity, 'warning');
    assert.equal(
      src.slice(w!.span.start, w!.span.end),
      'AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")',
    );
    const moved = src.replace('Mistral-7B-v0.1")', 'Mistral-7B-v0.1").to("cuda")');
    assert.ok(!analyzeHfPython(moved).problems.some((p) => p.code === 'runs-on-cpu'));
    const mapped = src.replace('Mistral-7B-v0.1")', 'Mistral-7B-v0.1", device_map="auto")');
    assert.ok(!analyzeHfPython(mapped).problems.some((p) => p.code === 'runs-on-cpu'));
  });
});

describe('hf-python: a loop whose FSDP wrap is on a branch the run does not take', () => {
  it('if args.fsdp: ... FSDP(model), --fsdp False by default: no FSDP (DDP on the other branch)', () => {
    // A torchrun_main.py of a public repository: `--fsdp` defaults to False and the launcher does not pass it.
    const text = [
      'import argparse, torch',
      'from torch.distributed.fsdp import FullyShardedDataParallel as FSDP',
      'from transformers import AutoModelForCausalLM',
      'p = argparse.ArgumentParser()',
      'p.add_argument("--fsdp", default=False, action="store_true")',
      'args = p.parse_args()',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")',
      'if args.fsdp:',
      '    model = FSDP(model)',
      'else:',
      '    model = torch.nn.parallel.DistributedDataParallel(model.cuda())',
      'opt = torch.optim.AdamW(model.parameters())',
      'for batch in loader:',
      '    model(**batch).loss.backward()',
      '    opt.step()',
      '',
    ].join('\n');
    assert.equal(
      analyzeHfPython(text).facts.some((f) => f.key === 'fsdp'),
      false,
    );
    // Turned on, the wrap is read.
    const on = analyzeHfPython(text.replace('default=False, action="store_true"', 'default=True'));
    assert.equal(on.facts.find((f) => f.key === 'fsdp')?.value, 'full_shard');
  });
});

describe("hf-python: a DataLoader the script hands to its project's own loop", () => {
  it("its batch_size is the run's micro-batch (alibaba/EasyNLP BeautifulPrompt train_rm.py)", () => {
    // train_rm.py builds `DataLoader(..., batch_size=args.batch_size)` and hands it to RMTrainer
    // (beautiful_prompt/trainer.py), whose train() iterates it; scripts/rm_aes.sh passes --batch_size 16. The loop's
    // module builds no DataLoader, so the batch had been torch's default, 1.
    const script = [
      'import argparse',
      'from torch.utils.data import DataLoader',
      'from transformers import AutoModelForSequenceClassification',
      'from pkg.trainer import RMTrainer',
      'def train(args):',
      '    model = AutoModelForSequenceClassification.from_pretrained(args.model_path, num_labels=1).cuda()',
      '    train_dataloader = DataLoader(None, shuffle=True, batch_size=args.batch_size)',
      '    trainer = RMTrainer(model, train_dataloader, lr=args.lr)',
      '    trainer.train()',
      "if __name__ == '__main__':",
      '    parser = argparse.ArgumentParser()',
      "    parser.add_argument('--model_path', type=str, default='bigscience/bloom-1b1')",
      "    parser.add_argument('--lr', type=float, default=1e-5)",
      "    parser.add_argument('--batch_size', type=int, default=4)",
      '    train(parser.parse_args())',
      '',
    ].join('\n');
    const trainer = [
      'import torch',
      'class RMTrainer:',
      '    def __init__(self, model, train_dataloader, lr=1e-5):',
      '        self.model = model',
      '        self.train_dataloader = train_dataloader',
      '        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)',
      '    def train(self):',
      '        for batch in self.train_dataloader:',
      '            loss = self.model(**batch).logits.mean()',
      '            loss.backward()',
      '            self.optimizer.step()',
      '',
    ].join('\n');
    const files = { 'train.py': script, 'pkg/__init__.py': '', 'pkg/trainer.py': trainer };
    const r = runProject({ ...files, 'run.sh': 'python train.py --batch_size 16\n' }, 'run.sh');
    assert.equal(r.setup?.micro_batch_size, 16);
    assert.equal(runFact(r, 'microBatchSize')?.fact.rawKey, 'batch_size');
    // Without the launch line, the option's default.
    assert.equal(runProject(files, 'train.py').setup?.micro_batch_size, 4);
  });

  it('so is the FSDP wrap of the model it hands there (pytorch/examples distributed/FSDP T5_training.py)', () => {
    // T5_training.py wraps `model = FSDP(model, ...)` and calls utils/train_utils.py's train(args, model, ...), whose
    // loop runs the backward: the wrap had been left unread, and t5-base estimated whole on each of 4 GPUs.
    const script = [
      'import torch',
      'from torch.distributed.fsdp import FullyShardedDataParallel as FSDP',
      'from transformers import T5ForConditionalGeneration',
      'from loop import train',
      'def main():',
      '    model = T5ForConditionalGeneration.from_pretrained("t5-base")',
      '    model = FSDP(model, device_id=torch.cuda.current_device())',
      '    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)',
      '    train(model, loader, optimizer)',
      'main()',
      '',
    ].join('\n');
    const loop = [
      'def train(model, loader, optimizer):',
      '    for batch in loader:',
      '        model(**batch).loss.backward()',
      '        optimizer.step()',
      '',
    ].join('\n');
    const r = runProject(
      { 'T5.py': script, 'loop.py': loop, 'run.sh': 'torchrun --nproc_per_node 4 T5.py\n' },
      'run.sh',
    );
    assert.deepEqual([r.setup?.fsdp, r.setup?.fsdp_version, r.setup?.gpus_per_node], ['full_shard', 1, 4]);
  });
});
