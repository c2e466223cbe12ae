// A DeepSpeed config a script loads itself and hands deepspeed.initialize (src/analyzers/hf-python/deepspeed-loaded.ts),
// shaped as albert-jeffery/DeepSpeed-Finetuning's train.py: `ds_config = json.load(open(args.ds_config_path))`, items
// set in place from the script's options, then `deepspeed.initialize(..., config_params=ds_config)`.
import * as assert from 'node:assert/strict';
import { runFact, runFiles } from '../helpers';

const DS = `{
  "train_micro_batch_size_per_gpu": 8,
  "gradient_accumulation_steps": 32,
  "zero_optimization": {"stage": 3, "offload_param": {"device": "none"}, "offload_optimizer": {"device": "none"}},
  "bf16": {"enabled": true}
}
`;
const SCRIPT = (offload: string): string => `import argparse, json
import deepspeed
from transformers import AutoModelForCausalLM

p = argparse.ArgumentParser()
p.add_argument("--ds_config_path", default="./config/ds.json")
p.add_argument("--train_micro_batch_size_per_gpu", type=int, default=2)
p.add_argument("--offload_device", default="cpu")
args = p.parse_args()
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
ds_config = json.load(open(args.ds_config_path))
ds_config['train_micro_batch_size_per_gpu'] = args.train_micro_batch_size_per_gpu
ds_config['zero_optimization']['offload_optimizer']['device'] = ${offload}
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config_params=ds_config)
for batch in loader:
    loss = engine(**batch).loss
    engine.backward(loss)
    engine.step()
`;

describe('hf-python: a DeepSpeed config the script loads and hands DeepSpeed', () => {
  it("is the run's DeepSpeed config; the items the script sets first replace the file's", () => {
    const files = { '/p/train.py': SCRIPT('args.offload_device'), '/p/config/ds.json': DS };
    const r = runFiles(files, '/p/train.py');
    // ZeRO-3, bf16 and the accumulation from the file; the micro-batch (2) and the optimizer's offload (cpu) from the
    // script's options, which it writes over the file's 8 and "none".
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.gradient_accumulation_steps, 32);
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.offload_optimizer, 'cpu');
    assert.equal(r.setup?.offload_params, 'none');
    assert.deepEqual(runFact(r, 'deepspeedConfig')?.fact.value, './config/ds.json');
    assert.equal(runFact(r, 'microBatchSize')?.file, '/p/train.py');
    // The launch line's options reach the items the script sets.
    const launched = runFiles(
      { ...files, '/p/run.sh': 'deepspeed train.py --train_micro_batch_size_per_gpu 1\n' },
      '/p/run.sh',
    );
    assert.equal(launched.setup?.micro_batch_size, 1);
  });

  it("an item set from a value not known statically is said there; the file's value is estimated", () => {
    const r = runFiles({ '/p/train.py': SCRIPT('os.environ["OFFLOAD"]'), '/p/config/ds.json': DS }, '/p/train.py');
    assert.equal(r.setup?.offload_optimizer, 'none');
    assert.ok(
      r.problems.some((p) =>
        /ds_config\['zero_optimization'\]\['offload_optimizer'\]\['device'\] is set here, but .*: the config file's value is estimated/.test(
          p.message,
        ),
      ),
      r.problems.map((p) => p.message).join('\n'),
    );
  });
});

describe('hf-python: a global batch the script works out for its loaded DeepSpeed config', () => {
  it("is not the file's: the file's train_batch_size is not checked against the run (gammachen/p-llm-dialog-element-extraction)", () => {
    // train.py: `ds_config['train_batch_size'] = args.per_device_train_batch_size * torch.distributed.get_world_size()
    // * args.gradient_accumulation_steps`, over a file that says 32 where the defaults make 2 x 4 x 1 = 8.
    const ds = '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4}\n';
    const script = SCRIPT('"none"').replace(
      "ds_config['train_micro_batch_size_per_gpu'] = args.train_micro_batch_size_per_gpu\n",
      "ds_config['train_micro_batch_size_per_gpu'] = args.train_micro_batch_size_per_gpu\n" +
        "ds_config['train_batch_size'] = args.train_micro_batch_size_per_gpu * torch.distributed.get_world_size() * 4\n",
    );
    const r = runFiles({ '/p/train.py': script, '/p/config/ds.json': ds }, '/p/train.py');
    assert.ok(!r.problems.some((p) => p.code === 'batch-size-mismatch'), JSON.stringify(r.problems));
    assert.deepEqual([r.setup?.micro_batch_size, r.setup?.gradient_accumulation_steps], [2, 4]);
    const said = r.problems.find((p) => p.key?.includes("['train_batch_size']"));
    assert.match(said?.message ?? '', /the run's global batch follows from its micro-batch, accumulation and GPUs/);
  });
});
