// A loop of the script's own whose DDP wrap is on a branch (src/analyzers/hf-python/loop.ts ddpWrapRuns; setup
// ddp_wrap, core/estimate/layout.ts): where the launch line turns the wrap off, each process trains a whole copy
// without DDP's gradient buckets.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../src/analyzers/pipeline';
import { estimate } from '../../src/core/estimate';
import { setupFor, inMemory } from './helpers';

/** wangbluo/Finetune_llama2_Megatron@69de504 finetune_llama2.py, shortened to its arguments, wrap and loop. */
function script(test: string): string {
  return [
    'import torch',
    'from dataclasses import dataclass, field',
    'from transformers import TrainingArguments as TrainArgs, HfArgumentParser as HfArgs',
    'from transformers import LlamaForCausalLM',
    'from torch.nn.parallel import DistributedDataParallel as DDP',
    '@dataclass',
    'class ModelArguments:',
    '    model_name_or_path: str = field(default="facebook/opt-125m")',
    '@dataclass',
    'class TrainingArguments(TrainArgs):',
    '    use_ddp: bool = True',
    'def train():',
    '    parser = HfArgs((ModelArguments, TrainingArguments))',
    '    model_args, training_args = parser.parse_args_into_dataclasses()',
    '    model = LlamaForCausalLM.from_pretrained(model_args.model_name_or_path)',
    '    world_size = int(os.environ["WORLD_SIZE"])',
    '    optimizer = torch.optim.Adam(model.parameters(), 2e-5)',
    `    if ${test}:`,
    '        model = DDP(model, device_ids=[0], find_unused_parameters=True)',
    '    for batch in data_loader:',
    '        loss = model(**batch)[0]',
    '        loss.backward()',
    '        optimizer.step()',
    '        optimizer.zero_grad()',
    'if __name__ == "__main__":',
    '    train()',
    '',
  ].join('\n');
}

function buckets(test: string, flags: string): number | undefined {
  const line = `torchrun --nproc_per_node=4 train.py --model_name_or_path princeton-nlp/Sheared-LLaMA-1.3B ${flags}\n`;
  const files = { '/w/run.sh': line, '/w/train.py': script(test) };
  const r = runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
  assert.ok(r.setup, JSON.stringify(r.problems.map((p) => p.message)));
  assert.ok(!r.problems.some((p) => /DDP/.test(p.message)), 'no problem of its own');
  const e = estimate(r.setup!, {});
  assert.ok(e.ok);
  return e.estimate.perGpu.components.find((c) => c.id === 'ddp-buckets')?.bytes;
}

describe("DDP's wrap in a loop of the script's own", () => {
  it('counts no gradient buckets where the launch line turns the wrap off', () => {
    assert.equal(buckets('training_args.use_ddp', '--use_ddp False'), undefined);
  });

  it('counts them where the wrap runs: by the default, by the launch line, or on a test that stays open', () => {
    // Sheared-LLaMA-1.3B: 1,345,423,360 parameters (24 layers, hidden 2048, MLP 5504, vocab 32000), fp32 gradients.
    const fp32Gradients = 1_345_423_360 * 4;
    assert.equal(buckets('training_args.use_ddp', ''), fp32Gradients);
    assert.equal(buckets('training_args.use_ddp', '--use_ddp True'), fp32Gradients);
    assert.equal(buckets('world_size > 1', ''), fp32Gradients);
  });

  it('the setup without the wrap: DDP over four GPUs counts no buckets', () => {
    const wrapped = estimate(setupFor('gpt2', { weights_dtype: 'fp32', gpus_per_node: 4 }), {});
    const bare = estimate(setupFor('gpt2', { weights_dtype: 'fp32', gpus_per_node: 4, ddp_wrap: false }), {});
    assert.ok(wrapped.ok && bare.ok);
    const ids = (e: typeof wrapped) => (e.ok ? e.estimate.perGpu.components.map((c) => c.id) : []);
    assert.ok(ids(wrapped).includes('ddp-buckets'));
    assert.ok(!ids(bare).includes('ddp-buckets'));
    // gpt2: 124,439,808 parameters, their fp32 gradients twice (estimate.test.ts) less the bucket copy.
    const peak = (e: typeof wrapped) => (e.ok ? e.estimate.perGpu.peakBytes : 0);
    assert.ok(peak(wrapped) - peak(bare) >= 124_439_808 * 4 * 0.99);
  });
});
