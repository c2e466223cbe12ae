// A trainer the script constructs through a class of its own: a class of the file that extends a transformers or TRL
// trainer (read as the trainer it extends), or a class imported from another file that is named after a TRL trainer
// (minwukim/VRL's train_qwen0.5b_grpo_MATH.py: `ONN_GRPOTrainer(model="Qwen/Qwen2.5-0.5B", args=GRPOConfig(...))`,
// ONN_GRPOTrainer defined in GRPO_customed/ONN_GRPO.py), read as that TRL trainer and said so.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';

const SCRIPT = (head: string, trainer: string): string => `from trl import GRPOConfig, GRPOTrainer
${head}
args = GRPOConfig(output_dir="out", per_device_train_batch_size=2, num_generations=2, bf16=True)
trainer = ${trainer}(model="Qwen/Qwen2.5-0.5B", reward_funcs=[reward], args=args)
trainer.train()
`;

const value = (src: string, key: string) => analyzeHfPython(src).facts.find((f) => f.key === key)?.value;

describe('hf-python: trainer classes of the project', () => {
  it('a class of the file that extends GRPOTrainer (also through another of its classes) is GRPOTrainer', () => {
    const src = SCRIPT(
      'class Base(GRPOTrainer):\n    pass\n\nclass Mine(Base):\n    def compute_loss(self, *a):\n        return 0',
      'Mine',
    );
    assert.equal(value(src, 'model'), 'Qwen/Qwen2.5-0.5B');
    assert.equal(value(src, 'rollout'), 'grpo');
  });

  it('an imported class named after a TRL trainer is read as that trainer, with an info note where it is called', () => {
    const src = SCRIPT('from GRPO_customed.ONN_GRPO import ONN_GRPOTrainer', 'ONN_GRPOTrainer');
    const r = analyzeHfPython(src);
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'Qwen/Qwen2.5-0.5B');
    const note = r.problems.find((p) => /ONN_GRPOTrainer is defined in another file/.test(p.message));
    assert.equal(note?.severity, 'info');
    assert.match(note!.message, /read as TRL's GRPOTrainer/);
  });

  it('a trainer class called through a name bound to it (xirui-li/VisualThinker-R1-Zero grpo.py: trainer_cls)', () => {
    // `trainer_cls = Qwen2VLGRPOTrainer` then `trainer_cls(...)`: the run was read as SFT, no generation counted.
    const src = SCRIPT(
      'from open_r1.trainer import Qwen2VLGRPOTrainer\ntrainer_cls = Qwen2VLGRPOTrainer',
      'trainer_cls',
    );
    assert.equal(value(src, 'model'), 'Qwen/Qwen2.5-0.5B');
    assert.equal(value(src, 'rollout'), 'grpo');
    // A name bound to something else is no trainer: its call's model is not the run's.
    assert.equal(value(SCRIPT('trainer_cls = make_trainer', 'trainer_cls'), 'model'), undefined);
  });

  it('a class of the file that extends no trainer, and an imported class named otherwise, are not trainers', () => {
    const own = SCRIPT('class Mine:\n    pass', 'Mine');
    assert.equal(value(own, 'model'), undefined);
    const other = SCRIPT('from mylib import Runner', 'Runner');
    assert.equal(value(other, 'model'), undefined);
  });

  it("a class of the file named Trainer that extends nothing runs the file's own loop (yushengsu-thu/mup_training)", () => {
    // code/finetune_llm.py: `class Trainer:` builds a DataLoader(batch_size=self.batch_size) and steps in a loop whose
    // train_step() calls backward; `Trainer(args).train()` is that loop, not transformers' Trainer (batch 8 by default).
    const src = [
      'from torch.utils.data import DataLoader',
      'class Trainer:',
      '    def __init__(self):',
      '        self.model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-70m")',
      '        self.loader = DataLoader(data, batch_size=16)',
      '    def train_step(self, batch):',
      '        loss = self.model(batch).loss',
      '        loss.backward()',
      '    def train(self):',
      '        for batch in self.loader:',
      '            self.train_step(batch)',
      'Trainer().train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(src);
    assert.ok(r.tools.includes('pytorch') && !r.tools.includes('hf-trainer'), r.tools.join(', '));
    assert.equal(value(src, 'microBatchSize'), 16);
  });

  it("another framework's Trainer (PyTorch Lightning, CoLLiE) is not read as transformers', and a warning says so", () => {
    // declare-lab/flan-alpaca training.py: `import pytorch_lightning as pl` ... `pl.Trainer(precision="bf16-mixed", ...)`;
    // OpenLMLab/collie examples: `from collie import (CollieConfig, Trainer, ...)` ... `Trainer(model=model, ...)`.
    const load = 'model = AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-70m")\n';
    const lightning = `import pytorch_lightning as pl\n${load}trainer = pl.Trainer(precision="bf16-mixed", accumulate_grad_batches=64)\n`;
    const collie = `from collie import (\n    CollieConfig,\n    Trainer,\n)\n${load}trainer = Trainer(model=model, config=config)\n`;
    for (const [src, framework] of [
      [lightning, 'PyTorch Lightning'],
      [collie, 'CoLLiE'],
    ]) {
      const r = analyzeHfPython(src);
      const warning = r.problems.find((p) => p.code === 'not-modeled' && /this Trainer is/.test(p.message));
      assert.equal(warning?.severity, 'warning', framework);
      assert.match(warning!.message, new RegExp(`is ${framework}'s, not transformers'`));
      assert.equal(
        warning!.span.start,
        src.indexOf('Trainer(model') >= 0 ? src.indexOf('Trainer(model') : src.indexOf('pl.Trainer'),
      );
    }
    // transformers' own Trainer gets no such warning.
    const hf = `from transformers import Trainer\n${load}trainer = Trainer(model=model)\n`;
    assert.equal(analyzeHfPython(hf).problems.filter((p) => /this Trainer is/.test(p.message)).length, 0);
  });

  it("Unsloth's UnslothTrainer and UnslothTrainingArguments are TRL's SFTTrainer and SFTConfig (unsloth/trainer.py)", () => {
    // sjarmak/nls-finetune-scix scripts/train_standalone.py (abridged): the run was "no Trainer in this file", its
    // batch, accumulation, bf16 and 8-bit AdamW left to defaults.
    const src = [
      'from unsloth import FastLanguageModel, UnslothTrainer, UnslothTrainingArguments',
      'model, tokenizer = FastLanguageModel.from_pretrained("unsloth/Qwen3-1.7B", max_seq_length=512, load_in_4bit=True)',
      'model = FastLanguageModel.get_peft_model(model, r=16)',
      'args = UnslothTrainingArguments(per_device_train_batch_size=8, gradient_accumulation_steps=2, bf16=True,',
      '    optim="adamw_8bit", output_dir="out")',
      'trainer = UnslothTrainer(model=model, tokenizer=tokenizer, train_dataset=ds, args=args)',
      'trainer.train()',
      '',
    ].join('\n');
    const r = analyzeHfPython(src);
    const of = (key: string) => r.facts.find((f) => f.key === key)?.value;
    assert.deepEqual(['microBatchSize', 'gradientAccumulationSteps', 'bf16', 'optimizer', 'trlSft'].map(of), [
      8,
      2,
      true,
      'adamw_8bit',
      true,
    ]);
    assert.ok(!r.problems.some((p) => /no Trainer/.test(p.message)), JSON.stringify(r.problems));
    // A class of the file by that name is the file's own.
    const own = src.replace('trainer = Unsloth', 'class UnslothTrainer:\n    pass\ntrainer = Unsloth');
    assert.equal(
      analyzeHfPython(own).facts.find((f) => f.key === 'trlSft'),
      undefined,
    );
  });

  it('a class of the file named as the trainer it extends, imported under another name (THUDM/GLM-4 finetune.py)', () => {
    // `from transformers import Seq2SeqTrainer as _Seq2SeqTrainer` then `class Seq2SeqTrainer(_Seq2SeqTrainer)`
    const src =
      'from transformers import (\n    Seq2SeqTrainer as _Seq2SeqTrainer,\n    Seq2SeqTrainingArguments,\n)\n' +
      'class Seq2SeqTrainer(_Seq2SeqTrainer):\n    pass\n\n' +
      'args = Seq2SeqTrainingArguments(output_dir="o", per_device_train_batch_size=1)\n' +
      'trainer = Seq2SeqTrainer(model=model, args=args)\n';
    assert.equal(value(src, 'hfTrainer'), 'Seq2SeqTrainer');
  });
});
