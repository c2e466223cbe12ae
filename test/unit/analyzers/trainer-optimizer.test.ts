// The HF Trainer's default optimizer as the run's releases default it (src/analyzers/trainer-optimizer.ts):
// transformers 4.54 made `optim` default to adamw_torch_fused under torch >= 2.8 (huggingface/transformers#37358,
// training_args.py `default_optim`), adamw_torch before.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';
import { GB } from '../helpers';

// waynehacking8/lora-without-regret sft_compare.py --method fullft: Llama-3.1-8B-Instruct in bf16, TRL's SFTTrainer
// with packing, batch 1, accumulation 4, no optim given.
const SCRIPT = [
  'import torch',
  'from transformers import AutoModelForCausalLM',
  'from trl import SFTConfig, SFTTrainer',
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", torch_dtype=torch.bfloat16)',
  'args = SFTConfig(output_dir="o", per_device_train_batch_size=1, gradient_accumulation_steps=4, bf16=True,',
  '    packing=True)',
  'SFTTrainer(model=model, args=args).train()',
  '',
].join('\n');

function run(files: Record<string, string>) {
  const reader = {
    read: (p: string) => files[p],
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
  return runPipeline([{ file: '/w/train.py', text: files['/w/train.py'] }], reader, {});
}

describe('trainer-optimizer: the Trainer default optimizer of the run releases', () => {
  it('current releases: adamw_torch_fused, said as the default; pinned torch < 2.8 or transformers < 4.54: adamw_torch', () => {
    const current = run({ '/w/train.py': SCRIPT });
    assert.equal(current.setup?.optimizer, 'adamw_fused');
    const prov = current.provenance.optimizer;
    assert.ok(prov?.kind === 'default');
    assert.match(String(prov.note), /adamw_torch_fused with torch >= 2.8 from transformers 4.54/);
    const oldTorch = run({ '/w/train.py': SCRIPT, '/w/requirements.txt': 'torch==2.7.1\n' });
    assert.equal(oldTorch.setup?.optimizer, 'adamw');
    assert.ok(oldTorch.provenance.optimizer?.kind === 'default');
    assert.match(String(oldTorch.provenance.optimizer.note), /adamw_torch with torch 2\.7\.1/);
    const oldTransformers = run({ '/w/train.py': SCRIPT, '/w/requirements.txt': 'transformers==4.51.3\n' });
    assert.equal(oldTransformers.setup?.optimizer, 'adamw');
  });

  it('an optimizer the files name is theirs', () => {
    const named = run({ '/w/train.py': SCRIPT.replace('packing=True)', 'packing=True, optim="adamw_torch")') });
    assert.equal(named.setup?.optimizer, 'adamw');
    assert.equal(named.provenance.optimizer?.kind, 'file');
  });

  it("the full fine-tune's peak: the fused step makes no whole-model temporaries (66.15 GB measured)", () => {
    // waynehacking8/lora-without-regret results/llama31-gsm8k-fullft/metrics_fullft.json logs
    // torch.cuda.max_memory_allocated() / 1e9 = 66.15 on one GPU (scripts/run_llama31_gsm8k_experiments.sh).
    const s = run({ '/w/train.py': SCRIPT }).setup!;
    const fused = estimate(s);
    const foreach = estimate({ ...s, optimizer: 'adamw' });
    assert.ok(fused.ok && foreach.ok);
    const measured = 66.15 * GB;
    const low = fused.estimate.perGpu.peakBytes / measured - 1;
    assert.ok(Math.abs(low) < 0.03, `fused ${(low * 100).toFixed(1)} %`);
    // adamw_torch's foreach step would allocate a whole-model temporary: 21 % above the measurement.
    assert.ok(foreach.estimate.perGpu.peakBytes / measured - 1 > 0.15);
  });
});
