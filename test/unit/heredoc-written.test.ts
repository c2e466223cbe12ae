// A launcher that writes a config from a heredoc before it runs (`cat > ds_config.json <<'EOF' ... EOF`): the run reads
// what the heredoc writes, whether the launch line names the file or a config of the run does (johnlund/
// epistemic-stance's run_training_axolotl.sh writes deepspeed_configs/zero3.json, with the optimizer offloaded, which
// its axolotl_config.yaml names; Axolotl's own zero3.json, which offloads nothing, was read in its place).
import * as assert from 'node:assert/strict';
import { heredocFiles } from '../../src/analyzers/heredoc';
import { runPipeline } from '../../src/analyzers/pipeline';
import { inMemory } from './helpers';

const ZERO3_OFFLOAD = `{
  "zero_optimization": {
    "stage": 3,
    "offload_optimizer": { "device": "cpu", "pin_memory": true }
  },
  "bf16": { "enabled": "auto" },
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto"
}
`;

const TRAIN_PY =
  'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments, HfArgumentParser\n' +
  'parser = HfArgumentParser(TrainingArguments)\n' +
  'args, = parser.parse_args_into_dataclasses()\n' +
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", dtype="bfloat16")\n' +
  'Trainer(model=model, args=args).train()\n';

describe('a config a launcher writes from a heredoc is the one the run reads', () => {
  it('finds the file each writing heredoc names: cat > PATH <<, cat <<EOF > PATH, tee; a variable put in when known', () => {
    const text =
      "mkdir -p cfg\ncat > cfg/ds.json <<'DSEOF'\n{}\nDSEOF\n" +
      'cat <<EOF > accel.yaml\ndistributed_type: FSDP\nEOF\n' +
      "tee -a notes.yaml <<'X' >/dev/null\na: 1\nX\n" +
      'cat > run.yaml <<EOF\nmodel: $MODEL\nEOF\n' +
      'cat > set.yaml <<EOF\nlr: $LR\nEOF\n' +
      'read -r -d "" CMD <<EOF\ntorchrun train.py\nEOF\n';
    assert.deepEqual(heredocFiles(text, new Map([['LR', '2e-5']])), [
      { path: 'cfg/ds.json', text: '{}\n' },
      { path: 'accel.yaml', text: 'distributed_type: FSDP\n' },
      { path: 'notes.yaml', text: 'a: 1\n' },
      { path: 'set.yaml', text: 'lr: 2e-5\n' },
    ]);
  });

  it('a DeepSpeed config the launch line names, written above it: ZeRO-3 with the optimizer on the CPU', () => {
    const run =
      "cat > ds_config.json <<'EOF'\n" +
      ZERO3_OFFLOAD +
      'EOF\n' +
      'deepspeed --num_gpus 4 train.py --deepspeed ds_config.json --per_device_train_batch_size 1 --bf16\n';
    const r = runPipeline([{ file: '/w/run.sh', text: run }], inMemory({ '/w/train.py': TRAIN_PY }), {});
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.offload_optimizer, 'cpu');
    const p = r.provenance.offload_optimizer;
    assert.equal(p?.kind === 'file' ? p.file : p?.kind, '/w/run.sh#ds_config.json');
    assert.ok(!r.problems.some((x) => x.code === 'reference-not-found'), JSON.stringify(r.problems));
  });

  it("a DeepSpeed config an Axolotl YAML names, written by the launcher: read, not Axolotl's shipped zero3.json", () => {
    const yaml =
      'base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\ngradient_accumulation_steps: 4\n' +
      'sequence_len: 2048\nbf16: true\ngradient_checkpointing: true\ndeepspeed: deepspeed_configs/zero3.json\n';
    const launch = 'accelerate launch --num_processes 4 -m axolotl.cli.train axolotl_config.yaml\n';
    const written =
      "mkdir -p deepspeed_configs\ncat > deepspeed_configs/zero3.json << 'DSEOF'\n" + ZERO3_OFFLOAD + 'DSEOF\n';
    const files = { '/w/axolotl_config.yaml': yaml };
    const r = runPipeline([{ file: '/w/run.sh', text: written + launch }], inMemory(files), {});
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.offload_optimizer, 'cpu');
    // Without the heredoc, Axolotl's zero3.json as it ships it: no offload.
    const shipped = runPipeline([{ file: '/w/run.sh', text: launch }], inMemory(files), {});
    assert.equal(shipped.setup?.zero_stage, 3);
    assert.equal(shipped.setup?.offload_optimizer, 'none');
  });

  it('a training script the launcher writes and then runs is read as written, without a missing-script note', () => {
    const run =
      "cat > train.py <<'PY'\n" +
      TRAIN_PY +
      'PY\n' +
      'torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 3 --gradient_accumulation_steps 2\n';
    const r = runPipeline([{ file: '/w/run.sh', text: run }], inMemory({}), {});
    assert.equal(r.setup?.micro_batch_size, 3);
    assert.equal(r.setup?.gpus_per_node, 2);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.ok(r.files.some((f) => f.file === '/w/run.sh#train.py'));
    assert.ok(!r.problems.some((x) => /train\.py/.test(x.message) && x.code === 'reference-not-found'));
  });

  it("an unquoted heredoc's variables are put in where the script sets them; one not known leaves the file unread", () => {
    const run = (prelude: string): ReturnType<typeof runPipeline> =>
      runPipeline(
        [
          {
            file: '/w/run.sh',
            text:
              prelude +
              'cat > ds_config.json <<EOF\n{"zero_optimization": {"stage": $STAGE}, "train_micro_batch_size_per_gpu": ${MBS}}\nEOF\n' +
              'deepspeed train.py --deepspeed ds_config.json --per_device_train_batch_size 2\n',
          },
        ],
        inMemory({ '/w/train.py': TRAIN_PY }),
        {},
      );
    const known = run('STAGE=3\nMBS=2\n');
    assert.equal(known.setup?.zero_stage, 3);
    assert.ok(!known.problems.some((x) => x.code === 'reference-not-found'), JSON.stringify(known.problems));
    // STAGE from the script's first argument: not known here, so the file is not read as written.
    const open = run('STAGE=$1\nMBS=2\n');
    assert.ok(open.problems.some((x) => x.code === 'reference-not-found' && /ds_config\.json/.test(x.message)));
  });
});
