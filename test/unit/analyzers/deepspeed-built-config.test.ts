// A DeepSpeed config the script makes at run time, which no file of the run gives: DeepSpeed-Chat's
// `ds_config = get_train_ds_config(offload=args.offload, stage=args.zero_stage)` (dschat/utils/ds_utils.py, copied by
// LianjiaTech/BELLE train/dschat_train_v1 and many others), handed to `deepspeed.initialize(config=ds_config)`. Its
// dict turns fp16 on; read as a config with neither bf16 nor fp16 the run had fp32 states in 2 bytes and no master
// copy (BELLE's single-GPU ZeRO-3 run of LLaMA-7B: 63.7 GiB against about 107 by hand).
import * as assert from 'node:assert/strict';
import { runProject } from '../helpers';

const MAIN = [
  'import argparse, deepspeed',
  'from transformers import AutoModelForCausalLM',
  'from utils.ds_utils import get_train_ds_config',
  'p = argparse.ArgumentParser()',
  'p.add_argument("--zero_stage", type=int, default=0)',
  'p.add_argument("--offload", action="store_true")',
  'args = p.parse_args()',
  'ds_config = get_train_ds_config(offload=args.offload, stage=args.zero_stage)',
  'model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b")',
  'model, optimizer, _, _ = deepspeed.initialize(model=model, config=ds_config)',
  'for batch in loader:',
  '    loss = model(**batch).loss',
  '    model.backward(loss)',
  '    model.step()',
  '',
].join('\n');

describe('DeepSpeed: a config made at run time', () => {
  it("is DeepSpeed's 16-bit engine, said as an assumption with the config's place", () => {
    const r = runProject(
      { 'main.py': MAIN, 'run.sh': 'deepspeed --num_gpus 1 main.py --zero_stage 3\n' },
      'run.sh',
      'vram-lens-ds-built-',
    );
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.equal(r.setup?.master_weights, true);
    const p = r.provenance.mixed_precision;
    assert.ok(p?.kind === 'default' && /made at run time \(main\.py:10\)/.test(p.note ?? ''), JSON.stringify(p));
  });
});
