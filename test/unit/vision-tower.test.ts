// A vision-language run's vision tower in a script of its own (src/analyzers/hf-python/vision-tower.ts and
// resolve/method.ts resolveVisionUnfrozen): trained in a full fine-tune whose batches carry images and that freezes
// nothing, as PyTorch leaves requires_grad True; frozen where the script freezes it; untouched for LoRA.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../src/analyzers/pipeline';

/** castorini/visa@c4d2bdf qwen/train.py, cut down: Qwen2-VL loaded whole, a processor with max_pixels, the Trainer. */
const visa = (extra: string): string =>
  [
    'from transformers import AutoProcessor, Qwen2VLForConditionalGeneration, Trainer, TrainingArguments',
    'model = Qwen2VLForConditionalGeneration.from_pretrained("Qwen/Qwen2-VL-7B-Instruct", torch_dtype=torch.bfloat16)',
    'processor = AutoProcessor.from_pretrained("Qwen/Qwen2-VL-7B-Instruct", min_pixels=28*28, max_pixels=25600*28*28)',
    extra,
    'args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, bf16=True, gradient_checkpointing=True)',
    'Trainer(model=model, args=args, train_dataset=ds).train()',
    '',
  ].join('\n');

const setupOf = (text: string) =>
  runPipeline([{ file: '/w/train.py', text }], { read: () => undefined, join: (_f, r) => `/w/${r}` }, {});

describe('the vision tower of a script that passes images', () => {
  it('trains in a full fine-tune that freezes nothing, said where the images are', () => {
    const r = setupOf(visa(''));
    assert.equal(r.setup?.model, 'Qwen/Qwen2-VL-7B-Instruct');
    assert.equal(r.setup?.vision_tower_trained, true);
    const p = r.provenance.vision_tower_trained;
    assert.ok(p?.kind === 'default' && /max_pixels, train\.py:3\) and nothing in the run freezes/.test(p.note ?? ''));
  });

  it('stays frozen where the script freezes a vision part, and for LoRA', () => {
    assert.equal(setupOf(visa('model.visual.requires_grad_(False)')).setup?.vision_tower_trained, false);
    const lora = visa(
      'from peft import LoraConfig, get_peft_model\nmodel = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj"]))',
    );
    assert.equal(setupOf(lora).setup?.vision_tower_trained, false);
  });

  it('is not read from a text-only script of the same model', () => {
    const text = visa('').replace(/processor = .*\n/, '');
    assert.equal(setupOf(text).setup?.vision_tower_trained, false);
  });
});
