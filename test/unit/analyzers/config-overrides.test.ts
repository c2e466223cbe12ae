// Fields a trainer sets over the named checkpoint's config.json before it builds the model: ArcticTraining's
// model.hf_config_kwargs (snowflakedb/ArcticTraining@b28638e arctic_training/model/hf_factory.py create_config:
// `for k, v in self.config.hf_config_kwargs.items(): setattr(config, k, v)`) and Axolotl's overrides_of_model_config
// (axolotl/utils/models.py load_model_config, the same loop). src/analyzers/yaml/config-overrides.ts reads them,
// src/analyzers/resolve/config-overrides.ts lays them over the model's config.
import * as assert from 'node:assert/strict';
import { estimate } from '../../../src/core/estimate';
import { runFiles } from '../helpers';

const ARCTIC = `micro_batch_size: 1
model:
  name_or_path: meta-llama/Llama-3.1-8B-Instruct
  hf_config_kwargs:
    num_hidden_layers: 2
data:
  sources:
    - HuggingFaceH4/ultrachat_200k
  max_length: 2048
`;

const AXOLOTL = `base_model: meta-llama/Llama-3.1-8B
overrides_of_model_config:
  rope_scaling:
    rope_type: linear
    factor: 2.0
micro_batch_size: 1
gradient_accumulation_steps: 4
sequence_len: 4096
bf16: true
datasets:
  - path: tatsu-lab/alpaca
    type: alpaca
`;

describe('model config overrides (hf_config_kwargs, overrides_of_model_config)', () => {
  it("ArcticTraining's hf_config_kwargs sizes the model anew: two of Llama-3.1-8B's layers, counted by hand", () => {
    const run = runFiles({ '/a/run.yml': ARCTIC }, '/a/run.yml');
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.architecture?.num_hidden_layers, 2);
    // The published 8,030,261,248 no longer holds; the architecture gives the count.
    assert.equal(run.setup.parameters, undefined);
    const e = estimate(run.setup);
    assert.ok(e.ok);
    // Embedding and untied head 2 x 128,256 x 4,096 = 1,050,673,152; a layer: q and o 2 x 4,096^2, k and v
    // 2 x 4,096 x 1,024, the MLP 3 x 4,096 x 14,336, two norms 2 x 4,096 = 218,112,000; the final norm 4,096.
    assert.equal(e.estimate.parameters.total, 1_050_673_152 + 2 * 218_112_000 + 4_096);
    const said = run.problems.find((p) => p.code === 'model-config-overrides');
    assert.equal(said?.severity, 'info');
    assert.equal(said?.key, 'model.hf_config_kwargs');
    assert.match(said?.message ?? '', /num_hidden_layers 2 \(32\)/);
  });

  it("Axolotl's overrides_of_model_config: a rope override keeps the published count", () => {
    const run = runFiles({ '/a/cfg.yml': AXOLOTL }, '/a/cfg.yml');
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.deepEqual(run.setup.architecture?.rope_scaling, { rope_type: 'linear', factor: 2 });
    assert.equal(run.setup.parameters, 8_030_261_248);
    assert.equal(run.setup.architecture?.num_hidden_layers, 32);
  });

  it('an override the estimator cannot use is said at the key, and the checkpoint is estimated', () => {
    const bad = ARCTIC.replace('num_hidden_layers: 2', 'num_hidden_layers: -4');
    const run = runFiles({ '/a/run.yml': bad }, '/a/run.yml');
    assert.ok(run.setup, JSON.stringify(run.problems));
    assert.equal(run.setup.architecture?.num_hidden_layers, 32);
    assert.equal(run.setup.parameters, 8_030_261_248);
    const said = run.problems.find((p) => p.key === 'model.hf_config_kwargs');
    assert.equal(said?.severity, 'warning');
    assert.match(said?.message ?? '', /out of range/);
    // Text where the checkpoint writes a number (ArcticTraining does not expand `${...}`): said, the checkpoint stands.
    const templated = ARCTIC.replace('num_hidden_layers: 2', 'num_hidden_layers: ${LAYERS}');
    const t = runFiles({ '/a/run.yml': templated }, '/a/run.yml');
    assert.equal(t.setup?.architecture?.num_hidden_layers, 32);
    assert.match(t.problems.find((p) => p.key === 'model.hf_config_kwargs')?.message ?? '', /is not a number/);
  });
});
