// Liger's patch functions called by the script (hf-python/liger-patch.ts): `apply_liger_kernel_to_gemma2()` sets the
// model class's forward to Liger's fused linear cross-entropy (liger_kernel/transformers/monkey_patch.py:
// fused_linear_cross_entropy=True by default), so the loss makes no logits; its RMSNorm / RoPE / GeGLU classes reach
// only a model built after the call. The shape of LazarusNLP/SemEval2025-Emotion-Analysis's
// src/run_sft_instruct_qlora.py (`if args.apply_liger_kernel_to_gemma2: apply_liger_kernel_to_gemma2()` after the load).
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const script = (patch: string, before: boolean): string =>
  [
    'import argparse',
    'from liger_kernel.transformers import apply_liger_kernel_to_llama',
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'parser = argparse.ArgumentParser()',
    'parser.add_argument("--liger", action="store_true")',
    'args = parser.parse_args()',
    ...(before ? [patch] : []),
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype="bfloat16")',
    ...(before ? [] : [patch]),
    'Trainer(model=model, args=TrainingArguments(output_dir="o", bf16=True)).train()',
    '',
  ].join('\n');

describe("hf-python: Liger's patch functions", () => {
  it('before the load: the fused loss and the kernels; after it: the fused loss only', () => {
    const before = runProject({ 'train.py': script('apply_liger_kernel_to_llama()', true) }, 'train.py');
    assert.equal(before.setup?.loss, 'fused');
    assert.equal(before.setup?.kernels, 'liger');
    const after = runProject({ 'train.py': script('apply_liger_kernel_to_llama()', false) }, 'train.py');
    assert.equal(after.setup?.loss, 'fused');
    assert.equal(after.setup?.kernels, 'pytorch');
    // Handed the model, the patch swaps its modules too.
    const handed = runProject({ 'train.py': script('apply_liger_kernel_to_llama(model=model)', false) }, 'train.py');
    assert.equal(handed.setup?.kernels, 'liger');
  });

  it('fused_linear_cross_entropy=False keeps the logits', () => {
    const r = runProject(
      { 'train.py': script('apply_liger_kernel_to_llama(fused_linear_cross_entropy=False)', true) },
      'train.py',
    );
    assert.equal(r.setup?.loss, 'full');
  });

  it("on a branch of the script's switch: as the launch line sets it", () => {
    const files = { 'train.py': script('if args.liger:\n    apply_liger_kernel_to_llama()', false) };
    assert.equal(runProject(files, 'train.py').setup?.loss, 'full');
    const launched = runProject({ ...files, 'run.sh': 'python train.py --liger\n' }, 'run.sh');
    assert.equal(launched.setup?.loss, 'fused');
  });
});
