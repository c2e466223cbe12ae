// FSDP's activation_checkpointing beside the HF Trainer's gradient_checkpointing (src/analyzers/resolve/checkpointing.ts
// fsdpCheckpointingConflict): transformers' Trainer refuses both on ("The activation_checkpointing in FSDP config and
// the gradient_checkpointing in training arg can't be set to True simultaneously"), Trainer.create_accelerator_and_postprocess.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

const train = (gc: string): string =>
  [
    'import torch',
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B", torch_dtype=torch.bfloat16)',
    `args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, ${gc}bf16=True)`,
    'Trainer(model=model, args=args).train()',
    '',
  ].join('\n');
const FSDP_YAML =
  'distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 2\nfsdp_config:\n' +
  '  fsdp_activation_checkpointing: true\n  fsdp_sharding_strategy: FULL_SHARD\n';

describe("FSDP's activation_checkpointing and the Trainer's gradient_checkpointing", () => {
  it('both on: a warning at the training argument that the Trainer stops at start-up; one of them: none', () => {
    // BenasdTW/LLMTrain (abridged): fsdp.yaml's fsdp_activation_checkpointing and `gradient_checkpointing=True`.
    const run = (gc: string) =>
      runFiles(
        {
          '/w/run.sh': 'accelerate launch --config_file fsdp.yaml train.py\n',
          '/w/train.py': train(gc),
          '/w/fsdp.yaml': FSDP_YAML,
        },
        '/w/run.sh',
      );
    const both = run('gradient_checkpointing=True, ');
    const w = both.problems.find((p) => p.key === 'gradient_checkpointing' && p.code === 'invalid-value');
    assert.equal(w?.severity, 'warning');
    assert.equal(w?.file, '/w/train.py');
    assert.match(w?.message ?? '', /activation_checkpointing in fsdp\.yaml: the HF Trainer stops at start-up/);
    // Still estimated, checkpointed by the wrapper.
    assert.deepEqual([both.setup?.gradient_checkpointing, both.setup?.checkpoint_wrapper], ['full', true]);
    assert.ok(!run('').problems.some((p) => p.key === 'gradient_checkpointing'));
    assert.ok(!run('gradient_checkpointing=False, ').problems.some((p) => p.code === 'invalid-value'));
  });
});
