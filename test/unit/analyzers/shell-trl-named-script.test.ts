// A launcher that runs a script named after one of TRL's example scripts (`sft.py`, `dpo.py`): its flags are read
// under TRL's names until the script is read; a script that builds transformers' Trainer and nothing of TRL is the HF
// Trainer's run, with its defaults (ZLHe0/MiniOneRec's run_sft_industrial.sh: `torchrun --nproc_per_node 4 sft.py
// --base_model ... --micro_batch_size 16`, whose sft.py builds transformers.Trainer). Each expected value is the one
// written in the test's own files or the defaults analyzers/defaults.ts cites.
import * as assert from 'node:assert/strict';
import type { Provenance } from '../../../src/core/setup';
import { runFiles } from '../helpers';

const LAUNCH = 'torchrun --nproc_per_node 4 sft.py --base_model Qwen/Qwen2.5-1.5B-Instruct --micro_batch_size 16\n';

/** MiniOneRec's sft.py, cut to what decides the run: a fire function that builds transformers.Trainer. */
const HF_SFT = [
  'import fire',
  'import transformers',
  'def train(base_model: str = "", micro_batch_size: int = 4):',
  '    model = transformers.AutoModelForCausalLM.from_pretrained(base_model)',
  '    args = transformers.TrainingArguments(output_dir="o", per_device_train_batch_size=micro_batch_size, bf16=True)',
  '    transformers.Trainer(model=model, args=args).train()',
  'if __name__ == "__main__":',
  '    fire.Fire(train)',
  '',
].join('\n');

/** TRL's own examples/scripts/sft.py, cut: SFTTrainer with an SFTConfig. */
const TRL_SFT = [
  'from trl import SFTConfig, SFTTrainer, TrlParser, ModelConfig',
  'parser = TrlParser((SFTConfig, ModelConfig))',
  'training_args, model_args = parser.parse_args_and_config()',
  'trainer = SFTTrainer(model=model_args.model_name_or_path, args=training_args)',
  'trainer.train()',
  '',
].join('\n');

describe("a launcher running a script named after one of TRL's (sft.py)", () => {
  it("whose script builds transformers' Trainer: the HF Trainer's run and defaults, not TRL's", () => {
    const run = runFiles({ '/p/run.sh': LAUNCH, '/p/sft.py': HF_SFT }, '/p/run.sh');
    assert.equal(run.setup?.model, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.equal(run.setup?.micro_batch_size, 16);
    // TRL's configs default gradient_checkpointing to True and max_length to 1024; the HF Trainer's leaves
    // checkpointing off and names no length.
    assert.equal(run.setup?.gradient_checkpointing, 'none');
    const owner = (p: Provenance | undefined): string | undefined => (p?.kind === 'default' ? p.owner : p?.kind);
    assert.equal(owner(run.provenance.gradient_checkpointing), 'hf-trainer');
    assert.notEqual(owner(run.provenance.seq_len), 'trl');
    assert.ok(!run.files.some((f) => f.facts.tools.includes('trl')));
  });

  it("whose script is TRL's: TRL's run and defaults stay", () => {
    const trl = LAUNCH.replace('--base_model', '--model_name_or_path').replace(
      '--micro_batch_size',
      '--per_device_train_batch_size',
    );
    const run = runFiles({ '/p/run.sh': trl, '/p/sft.py': TRL_SFT }, '/p/run.sh');
    assert.equal(run.setup?.gradient_checkpointing, 'full');
    assert.ok(run.files.some((f) => f.facts.tools.includes('trl')));
  });
});
