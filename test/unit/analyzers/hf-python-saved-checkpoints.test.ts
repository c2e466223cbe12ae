// A model loaded from a folder the same file saves its trained model to earlier (src/analyzers/hf-python/
// saved-checkpoints.ts): Unsloth's notebooks train, `model.save_pretrained("lora_model")`, then load "lora_model" to try
// it; a second stage starts from the first stage's output_dir checkpoint. The trained model is the run's model.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

const TRAIN = [
  'from unsloth import FastLanguageModel',
  'from trl import SFTTrainer, SFTConfig',
  'model, tokenizer = FastLanguageModel.from_pretrained(model_name="unsloth/Meta-Llama-3.1-8B-bnb-4bit", load_in_4bit=True)',
  'model = FastLanguageModel.get_peft_model(model, r=16)',
  'trainer = SFTTrainer(model=model, args=SFTConfig(per_device_train_batch_size=2, output_dir="outputs"))',
  'trainer.train()',
  'model.save_pretrained("lora_model")',
  '',
].join('\n');

const models = (text: string) =>
  analyzeHfPython(text)
    .facts.filter((f) => f.key === 'model')
    .map((f) => f.value);

describe('hf-python: a model loaded from a folder the file saves to earlier', () => {
  it("the trained model stays the run's model; the load is said at its place", () => {
    const reload = `${TRAIN}model, tokenizer = FastLanguageModel.from_pretrained(model_name="lora_model", load_in_4bit=True)\n`;
    assert.deepEqual(models(reload), ['unsloth/Meta-Llama-3.1-8B-bnb-4bit']);
    const r = analyzeHfPython(reload);
    const note = r.problems.find(
      (p) => p.code === 'not-modeled' && /saves its trained model to earlier \(line 7\)/.test(p.message),
    );
    assert.ok(note && note.severity === 'info', JSON.stringify(r.problems));
    assert.equal(reload.slice(note.span.start, note.span.end), '"lora_model"');
    // A checkpoint under the trainer's output_dir, written `./outputs/checkpoint-60/`.
    const checkpoint = `${TRAIN}m = AutoModelForCausalLM.from_pretrained("./outputs/checkpoint-60/")\n`;
    assert.deepEqual(models(checkpoint), ['unsloth/Meta-Llama-3.1-8B-bnb-4bit']);
  });

  it("a folder joined from a path with blanks (Colab's Drive: KhuongBao/smollm2-grpo-gsm8k GRPO.ipynb)", () => {
    const text = [
      'save_path = "/content/drive/My Drive/Colab Notebooks/Deep RL/"',
      TRAIN.replace('model.save_pretrained("lora_model")', 'model.save_pretrained(save_path + "smollm2-sft")'),
      'sft_model = AutoModelForCausalLM.from_pretrained(save_path + "smollm2-sft", local_files_only=True)',
      '',
    ].join('\n');
    assert.deepEqual(models(text), ['unsloth/Meta-Llama-3.1-8B-bnb-4bit']);
  });

  it('a folder loaded before it is saved, or one the file never saves to, is a model of its own', () => {
    const before = `m = AutoModelForCausalLM.from_pretrained("lora_model")\n${TRAIN}`;
    assert.deepEqual(models(before), ['lora_model', 'unsloth/Meta-Llama-3.1-8B-bnb-4bit']);
    const other = `${TRAIN}m = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n`;
    assert.deepEqual(models(other), ['unsloth/Meta-Llama-3.1-8B-bnb-4bit', 'Qwen/Qwen2.5-0.5B']);
  });
});
