// FastChat's and LLaVA's patches of LLaMA's attention are the run's attention while transformers builds LlamaAttention
// itself, before 4.36 (src/analyzers/hf-python/attention-patch.ts, pinned-versions.ts attentionPatchBefore436).
import * as assert from 'node:assert/strict';
import type { PipelineResult } from '../../../src/analyzers/pipeline';
import { runFiles } from '../helpers';

/** icip-cas/ChatAlpaca train/train_hf.py (abridged): the patch at the top, then the HF Trainer. */
const script = (patch: string): string =>
  [
    `from fastchat.train.llama_flash_attn_monkey_patch import ${patch}`,
    `${patch}()`,
    'import transformers',
    'model = transformers.AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b")',
    'args = transformers.TrainingArguments(output_dir="o", per_device_train_batch_size=4, bf16=True)',
    'transformers.Trainer(model=model, args=args).train()',
    '',
  ].join('\n');

function runOf(patch: string, transformers: string): PipelineResult {
  const files = { '/p/train.py': script(patch), '/p/requirements.txt': `transformers==${transformers}\n` };
  return runFiles(files, '/p/train.py');
}

describe('hf-python: the LLaMA attention patches', () => {
  it('replace_llama_attn_with_flash_attn() under transformers 4.28: flash attention, not the eager default', () => {
    // ChatAlpaca pins transformers 4.28.1: read as eager, its 32 x 16 x 2,048 x 2,048 scores made the FSDP run
    // 45.9 GiB per GPU; with flash-attn's varlen kernel it is 30.9 GiB.
    const r = runOf('replace_llama_attn_with_flash_attn', '4.28.1');
    assert.equal(r.setup?.attention, 'flash');
    assert.equal(r.provenance.attention?.kind, 'file');
    const xformers = runOf('replace_llama_attn_with_xformers_attn', '4.28.1');
    assert.deepEqual([xformers.setup?.attention, xformers.setup?.attention_kernel], ['flash', 'xformers']);
  });

  it('from transformers 4.36 the patched forward does not run: SDPA, said', () => {
    // BillyZhang24kobe/LS_Proficiency's FastChat fork under transformers 4.36.1.
    const r = runOf('replace_llama_attn_with_flash_attn', '4.36.1');
    assert.equal(r.setup?.attention, 'sdpa');
    const p = r.provenance.attention;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /transformers 4\.36\.1 does not run/);
  });
});
