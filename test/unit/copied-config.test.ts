// A launch that reads a config the script copied under a name it builds at run time (src/analyzers/shell/
// copied-config.ts), and a project's trainer whose name only looks like a TRL trainer's (hf-python/classes.ts).
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../src/analyzers/shell';
import { runPipeline } from '../../src/analyzers/pipeline';
import { inMemory } from './helpers';

// ZIYU-DEEP/eva@d605e6f scripts/llama-8b/train.sh lines 66-90, shortened.
const EVA_TRAIN = [
  'config_name=$(echo "$DATASET" | cut -d \'/\' -f2)',
  'new_config_file="./recipes/default/config_full_${config_name}.yaml"',
  'cp ./recipes/default/config_full.yaml "$new_config_file"',
  'accelerate launch --num_processes 8 eva/run_sppo.py "$new_config_file" --learning_rate=5e-7',
  '',
].join('\n');

describe('a config the launch script copies before it launches', () => {
  it('reads the copy as its source, located where the launch names the copy', () => {
    const facts = analyzeShell(EVA_TRAIN);
    const config = facts.references.find((r) => r.path.endsWith('.yaml'));
    assert.equal(config?.path, './recipes/default/config_full.yaml');
    assert.equal(config?.span.start, EVA_TRAIN.indexOf('"$new_config_file" --learning_rate') + 1);
  });

  it('leaves a copy into a folder, an unknown source or another kind of file as it was', () => {
    for (const copy of [
      'cp ./recipes/default/config_full.yaml "$OUT_DIR"',
      'cp "$SOURCE" "$new_config_file"',
      'cp ./recipes/default/config_full.json "$new_config_file"',
      'cp -r ./recipes/default/config_full.yaml "$new_config_file"',
    ]) {
      const text = EVA_TRAIN.replace('cp ./recipes/default/config_full.yaml "$new_config_file"', copy);
      const config = analyzeShell(text).references.find((r) => /config_full\.yaml$/.test(r.path));
      assert.equal(config, undefined, copy);
    }
  });

  it("reads eva's run through the copied recipe: checkpointing and the DPO copy's reference model", () => {
    const recipe = [
      'model_name_or_path: meta-llama/Meta-Llama-3.1-8B-Instruct',
      'torch_dtype: bfloat16',
      'bf16: true',
      'beta: 0.01',
      'gradient_checkpointing: true',
      'max_length: 1024',
      'max_prompt_length: 512',
      'per_device_train_batch_size: 2',
      '',
    ].join('\n');
    const script = [
      'from alignment import H4ArgumentParser, DPOConfig, ModelArguments, DataArguments',
      'from trainer import SPPOTrainer',
      'parser = H4ArgumentParser((ModelArguments, DataArguments, DPOConfig))',
      'model_args, data_args, training_args = parser.parse()',
      'model = model_args.model_name_or_path',
      'trainer = SPPOTrainer(model, model, args=training_args, beta=training_args.beta)',
      'trainer.train()',
      '',
    ].join('\n');
    const files = {
      '/p/train.sh': EVA_TRAIN,
      '/p/eva/run_sppo.py': script,
      '/p/recipes/default/config_full.yaml': recipe,
    };
    const r = runPipeline([{ file: '/p/train.sh', text: EVA_TRAIN }], inMemory(files), {});
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    assert.equal(r.setup?.seq_len, 1024);
    assert.equal(r.setup?.micro_batch_size, 2);
    // SPPOTrainer is no TRL PPOTrainer: no warning of PPO's value and reward models.
    assert.ok(!r.problems.some((p) => /PPO value model/.test(p.message)));
  });
});
