// The Accelerate configs TRL ships (src/analyzers/yaml/trl-accelerate-configs.ts), named by a launch line that runs
// from a TRL checkout not among the run's files: dstack's TRL task (dstackai/dstack@511c318
// mkdocs/docs/examples/training/trl.md) clones TRL and names examples/accelerate_configs/fsdp1.yaml.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

const launch = (config: string) =>
  'git clone https://github.com/huggingface/trl.git\ncd trl\n' +
  `accelerate launch --config_file examples/accelerate_configs/${config} trl/scripts/sft.py ` +
  '--model_name_or_path meta-llama/Llama-3.1-8B --per_device_train_batch_size 1\n';

describe('the Accelerate configs TRL ships, named from a TRL checkout', () => {
  it("reads fsdp1.yaml as TRL ships it: FSDP1 full shard over 8 processes in bf16, said as TRL's", () => {
    const r = runFiles({ '/w/run.sh': launch('fsdp1.yaml') }, '/w/run.sh');
    assert.deepEqual(
      [r.setup?.fsdp, r.setup?.fsdp_version, r.setup?.gpus_per_node, r.setup?.mixed_precision],
      ['full_shard', 1, 8, 'bf16'],
    );
    assert.match(JSON.stringify(r.provenance.fsdp), /examples\/accelerate_configs\/fsdp1\.yaml as TRL ships it/);
  });

  it('reads deepspeed_zero3.yaml as ZeRO-3, and fsdp_qlora.yaml (removed from TRL in 2025) with its CPU offload', () => {
    assert.equal(runFiles({ '/w/run.sh': launch('deepspeed_zero3.yaml') }, '/w/run.sh').setup?.zero_stage, 3);
    const qlora = runFiles({ '/w/run.sh': launch('fsdp_qlora.yaml') }, '/w/run.sh').setup;
    assert.deepEqual([qlora?.fsdp, qlora?.offload_params], ['full_shard', 'cpu']);
  });

  it('a file of that path in the project wins, and a name TRL never shipped is not found', () => {
    const own = 'distributed_type: MULTI_GPU\nnum_processes: 2\nmixed_precision: bf16\n';
    const r = runFiles(
      { '/w/run.sh': launch('fsdp1.yaml'), '/w/trl/examples/accelerate_configs/fsdp1.yaml': own },
      '/w/run.sh',
    );
    assert.deepEqual([r.setup?.fsdp, r.setup?.gpus_per_node], ['none', 2]);
    const missing = runFiles({ '/w/run.sh': launch('fspd_qlora.yaml') }, '/w/run.sh');
    assert.ok(missing.problems.some((p) => p.code === 'reference-not-found' && /fspd_qlora/.test(p.message)));
  });
});
