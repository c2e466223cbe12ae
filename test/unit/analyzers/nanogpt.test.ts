// nanoGPT (karpathy/nanoGPT@3adf61e): train.py's globals, overridden by the config files and --key=value flags of
// its command line (configurator.py), and a config file alone running the train.py of its checkout. The script below
// keeps train.py's globals and the lines that decide memory, as written there.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { isNanogptConfig } from '../../../src/analyzers/hf-python/nanogpt';
import { detectFormat } from '../../../src/analyzers/detect';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';

const TRAIN = `import os
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from model import GPTConfig, GPT
out_dir = 'out'
init_from = 'scratch' # 'scratch' or 'resume' or 'gpt2*'
dataset = 'openwebtext'
gradient_accumulation_steps = 5 * 8 # used to simulate larger batch sizes
batch_size = 12 # if gradient_accumulation_steps > 1, this is the micro-batch size
block_size = 1024
n_layer = 12
n_head = 12
n_embd = 768
dropout = 0.0 # for pretraining 0 is good, for finetuning try 0.1+
bias = False # do we use bias inside LayerNorm and Linear layers?
learning_rate = 6e-4 # max learning rate
device = 'cuda'
dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float16'
compile = True # use PyTorch 2.0 to compile the model to be faster
config_keys = [k for k,v in globals().items() if not k.startswith('_') and isinstance(v, (int, float, bool, str))]
exec(open('configurator.py').read()) # overrides from command line or config file
model_args = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, block_size=block_size,
                  bias=bias, vocab_size=None, dropout=dropout)
if init_from == 'scratch':
    model_args['vocab_size'] = meta_vocab_size if meta_vocab_size is not None else 50304
    gptconf = GPTConfig(**model_args)
    model = GPT(gptconf)
model.to(device)
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))
optimizer = model.configure_optimizers(weight_decay, learning_rate, (beta1, beta2), device_type)
if compile:
    model = torch.compile(model)
if ddp:
    model = DDP(model, device_ids=[ddp_local_rank])
while True:
    for micro_step in range(gradient_accumulation_steps):
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch('train')
        scaler.scale(loss).backward()
`;

// config/finetune_shakespeare.py, as written there.
const FINETUNE = `import time

out_dir = 'out-shakespeare'
eval_interval = 5
eval_iters = 40
wandb_log = False # feel free to turn on
wandb_project = 'shakespeare'
wandb_run_name = 'ft-' + str(time.time())

dataset = 'shakespeare'
init_from = 'gpt2-xl' # this is the largest GPT-2 model

# only save checkpoints if the validation loss improves
always_save_checkpoint = False

batch_size = 1
gradient_accumulation_steps = 32
max_iters = 20

# finetune at constant LR
learning_rate = 3e-5
decay_lr = False
`;

const TRAIN_GPT2 = `wandb_log = True
batch_size = 12
block_size = 1024
gradient_accumulation_steps = 5 * 8
max_iters = 600000
`;

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

const FILES = {
  '/n/train.py': TRAIN,
  '/n/config/finetune_shakespeare.py': FINETUNE,
  '/n/config/train_gpt2.py': TRAIN_GPT2,
};

function pipelineOf(file: string, text: string): PipelineResult {
  return runPipeline([{ file, text }], inMemory({ ...FILES, [file]: text }), {});
}

describe('nanoGPT: train.py and its config files', () => {
  it("reads train.py's globals: the batch, the block, the accumulation over all GPUs, autocast and compile", () => {
    const r = analyzeHfPython(TRAIN);
    const of = (key: string): unknown => r.facts.find((f) => f.key === key)?.value;
    assert.equal(of('microBatchSize'), 12);
    assert.equal(of('seqLen'), 1024);
    // 5 * 8 accumulation steps of 12 sequences, over every GPU: train.py divides the steps by the DDP world size.
    assert.equal(of('trainBatchSize'), 480);
    assert.equal(of('mixedPrecision'), 'bf16');
    assert.equal(r.facts.find((f) => f.key === 'mixedPrecision')?.origin, 'call-default');
    assert.equal(of('weightsDtype'), 'fp32');
    assert.equal(of('compile'), true);
    assert.equal(of('optimizer'), 'adamw_fused');
    assert.equal(of('loopKeepsOutputs'), true);
    assert.deepEqual(JSON.parse(of('architecture') as string), {
      model_type: 'gpt2',
      n_layer: 12,
      n_head: 12,
      n_embd: 768,
      vocab_size: 50_304,
      n_positions: 1024,
      activation_function: 'gelu',
      resid_pdrop: 0,
      embd_pdrop: 0,
      attn_pdrop: 0,
      tie_word_embeddings: true,
    });
    assert.equal(r.readsConfigurator, true);
  });

  it("device = 'mps' (or 'cpu'): no autocast whatever dtype says, and no CUDA run, said at the global", () => {
    // hrasto/nanoGPT train.py:84 `device = 'mps'`: its device_type is 'cpu', its ctx nullcontext(), so the run trains
    // in fp32 on an Apple GPU; read as bf16 autocast before (3.3 GiB against 4.0 for its GPT-2-vocabulary config).
    const r = analyzeHfPython(TRAIN.replace("device = 'cuda'", "device = 'mps'"));
    assert.equal(r.facts.find((f) => f.key === 'mixedPrecision')?.value, 'none');
    const w = r.problems.find((p) => p.code === 'runs-on-cpu');
    assert.match(w?.message ?? '', /^device = 'mps': train.py runs on no CUDA GPU and without autocast/);
    assert.equal(
      analyzeHfPython(TRAIN).problems.find((p) => p.code === 'runs-on-cpu'),
      undefined,
    );
  });

  it('estimates GPT-2 124M from scratch with the vocabulary as an assumption', () => {
    const r = pipelineOf('/n/train.py', TRAIN);
    assert.ok(r.setup, r.problems.map((p) => p.message).join('; '));
    assert.equal(r.setup.gradient_accumulation_steps, 40);
    const e = estimate(r.setup, { provenance: r.provenance });
    assert.ok(e.ok);
    // transformers' GPT-2 layout at vocabulary 50,304 (by hand): wte 50,304 x 768 = 38,633,472, wpe 1,024 x 768 =
    // 786,432; per layer two LayerNorms 1,536 each, c_attn 768 x 2,304 + 2,304, c_proj 768^2 + 768, c_fc
    // 768 x 3,072 + 3,072, mlp.c_proj 3,072 x 768 + 768: 7,087,872, x 12 = 85,054,464; ln_f 1,536: 124,475,904.
    // nanoGPT's bias=False leaves out 101,376 + 768 of those (its own count without wpe: 123.59M).
    assert.equal(e.estimate.parameters.total, 124_475_904);
    const vocab = e.estimate.assumptions.find((a) => a.key === 'architecture');
    assert.match(vocab?.source ?? '', /vocab_size=50304\): .*meta\.pkl/);
  });

  it('a launch line passes its config files, then its --key=value flags, over the globals (torchrun: 8 GPUs)', () => {
    const line = 'torchrun --standalone --nproc_per_node=8 train.py config/train_gpt2.py --batch_size=16\n';
    const r = pipelineOf('/n/run.sh', line);
    assert.ok(r.setup, r.problems.map((p) => p.message).join('; '));
    assert.equal(r.setup.micro_batch_size, 16);
    assert.equal(r.setup.gpus_per_node, 8);
    // 16 x 40 sequences over 8 GPUs: train.py's 40 // 8 = 5 steps per GPU.
    assert.equal(r.setup.gradient_accumulation_steps, 5);
    const micro = r.files.find((f) => f.file === '/n/train.py')?.facts.facts.find((f) => f.key === 'microBatchSize');
    assert.match(micro?.rawValue ?? '', /= 16, --batch_size 16 on the launch line/);
  });

  it('a config file alone runs the train.py of its checkout: GPT-2 XL from OpenAI, its block of 1,024', () => {
    const r = pipelineOf('/n/config/finetune_shakespeare.py', FINETUNE);
    assert.ok(r.setup, r.problems.map((p) => p.message).join('; '));
    assert.equal(r.setup.model, 'gpt2-xl');
    assert.equal(r.setup.architecture.n_layer, 48);
    assert.equal(r.setup.architecture.vocab_size, 50_257);
    assert.equal(r.setup.micro_batch_size, 1);
    assert.equal(r.setup.gradient_accumulation_steps, 32);
  });

  it("init_from = 'resume' is a model known only at run time, reported at the global", () => {
    const r = pipelineOf('/n/config/resume.py', "init_from = 'resume'\nbatch_size = 4\nblock_size = 256\n");
    assert.equal(r.setup, undefined);
    const p = r.problems.find((x) => x.code === 'unknown-model');
    assert.equal(p?.file, '/n/train.py');
    assert.equal(p?.line, 6);
    assert.match(p?.message ?? '', /the checkpoint in out_dir/);
  });

  it('tells a config file from other Python files', () => {
    assert.equal(isNanogptConfig(FINETUNE), true);
    assert.equal(detectFormat('config/finetune_shakespeare.py', FINETUNE), 'hf-python');
    // Two of the globals only, a function, a call: not a nanoGPT config.
    assert.equal(isNanogptConfig('batch_size = 4\nlearning_rate = 1e-4\n'), false);
    assert.equal(isNanogptConfig('batch_size = 4\nblock_size = 8\nn_layer = 2\ndef f():\n    pass\n'), false);
    assert.equal(isNanogptConfig('batch_size = 4\nblock_size = 8\nn_layer = 2\nprint(batch_size)\n'), false);
  });
});
