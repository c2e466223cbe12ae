// One process over several GPUs: a script run by plain `python` that loads its model with device_map="auto" while
// CUDA_VISIBLE_DEVICES shows several GPUs (src/analyzers/resolve/parallelism.ts resolveDeviceMapSplit): Accelerate
// places the layers over all of them and the HF Trainer runs the model where it lies, one micro-batch at a time.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';
import { inMemory } from '../helpers';

const script = (deviceMap: string) =>
  'import torch\nfrom transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
  'from peft import LoraConfig, get_peft_model\n' +
  `model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B", torch_dtype=torch.bfloat16, device_map=${deviceMap})\n` +
  'model = get_peft_model(model, LoraConfig(r=8, target_modules="all-linear"))\n' +
  'args = TrainingArguments(output_dir="o", per_device_train_batch_size=2, bf16=True, gradient_checkpointing=True)\n' +
  'Trainer(model=model, args=args, train_dataset=ds).train()\n';

function run(line: string, deviceMap = '"auto"') {
  const files = { '/w/run.sh': line, '/w/train.py': script(deviceMap) };
  return runPipeline([{ file: '/w/run.sh', text: line }], inMemory(files), {});
}

describe('analyzers: a device_map split over the GPUs one process sees', () => {
  it('CUDA_VISIBLE_DEVICES=0,1 python train.py with device_map="auto": the layers over both GPUs', () => {
    const r = run('CUDA_VISIBLE_DEVICES=0,1 python train.py\n');
    const s = r.setup!;
    assert.deepEqual([s.gpus_per_node, s.pipeline_parallel, s.pipeline_schedule], [2, 2, 'device_map']);
    assert.deepEqual(r.provenance.gpus_per_node, {
      kind: 'file',
      file: '/w/run.sh',
      line: 1,
      key: 'CUDA_VISIBLE_DEVICES',
    });
    const p = r.provenance.pipeline_schedule;
    assert.deepEqual(p?.kind === 'file' ? [p.file, p.line, p.key] : p, ['/w/train.py', 4, 'device_map']);
    const e = estimate(s);
    assert.ok(e.ok);
    // Qwen2-7B over 2 stages of 14 layers; the last holds the head and the loss, and no NCCL communicator is opened.
    assert.equal(e.estimate.perGpu.stage, 1);
    assert.equal(e.estimate.layout.deviceMapSplit, true);
    assert.ok(!e.estimate.perGpu.runtime.some((t) => t.id === 'nccl'));
  });

  it('not a split: one GPU shown, a device_map naming one device, or processes a launcher starts', () => {
    const layout = (r: ReturnType<typeof run>) => [r.setup?.gpus_per_node, r.setup?.pipeline_schedule];
    assert.deepEqual(layout(run('CUDA_VISIBLE_DEVICES=0 python train.py\n')), [1, undefined]);
    assert.deepEqual(layout(run('CUDA_VISIBLE_DEVICES=0,1 python train.py\n', '{"": 0}')), [1, undefined]);
    assert.deepEqual(layout(run('CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py\n')), [2, undefined]);
  });

  it('torchrun of 2 processes with device_map="auto" under the HF Trainer: Accelerate refuses it, said at the key', () => {
    // accelerate/accelerator.py prepare_model: verify_device_map(model) and distributed_type != NO raise "You can't
    // train a model that has been loaded with `device_map='auto'` in any distributed mode" (nikhil-lalgudi/
    // distributed-llm-alignment's reward model, 8 processes).
    const refused = (r: ReturnType<typeof run>) => r.problems.find((p) => p.key === 'device_map');
    const two = refused(run('torchrun --nproc_per_node 2 train.py\n'));
    assert.equal(two?.severity, 'warning');
    assert.equal(two?.line, 4);
    assert.match(two?.message ?? '', /each of the 2 processes sees, and Accelerate refuses/);
    // One process spreading the model (the split above), or each process on its own GPU: nothing to say.
    assert.equal(refused(run('CUDA_VISIBLE_DEVICES=0,1 python train.py\n')), undefined);
    assert.equal(refused(run('torchrun --nproc_per_node 2 train.py\n', '{"": 0}')), undefined);
    // GPUs a setting gives a one-process run are the model's to spread over, not processes.
    const files = { '/w/run.sh': 'python train.py\n', '/w/train.py': script('"auto"') };
    const one = runPipeline([{ file: '/w/run.sh', text: files['/w/run.sh'] }], inMemory(files), { gpusPerNode: 4 });
    assert.equal(refused(one), undefined);
  });
});
