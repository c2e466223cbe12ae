// Accelerate's DeepSpeedPlugin built in the script is the run's ZeRO setup, over the launcher's
// (src/analyzers/hf-python/deepspeed-plugin.ts).
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

/** zhangfaen/finetune-Qwen2-VL finetune_distributed.py (abridged), launched with `accelerate launch --use_deepspeed`. */
const script = (plugin: string): string =>
  [
    'from accelerate import Accelerator, DeepSpeedPlugin',
    'from transformers import AutoModelForCausalLM',
    `deepspeed_plugin = DeepSpeedPlugin(${plugin})`,
    'accelerator = Accelerator(deepspeed_plugin=deepspeed_plugin)',
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B", torch_dtype="bfloat16")',
    'optimizer = torch.optim.AdamW(model.parameters())',
    'model, optimizer = accelerator.prepare(model, optimizer)',
    'for batch in loader:',
    '    loss = model(**batch).loss',
    '    accelerator.backward(loss)',
    '    optimizer.step()',
    '',
  ].join('\n');
const LAUNCH = 'accelerate launch --mixed_precision=bf16 --num_processes=2 --use_deepspeed train.py\n';
const run = (plugin: string) => runFiles({ '/p/run.sh': LAUNCH, '/p/train.py': script(plugin) }, '/p/run.sh').setup!;

describe("hf-python: Accelerate's DeepSpeedPlugin in the script", () => {
  it('zero_stage=3 with gradient_accumulation_steps=2: ZeRO-3 over the 2 processes, 2 accumulation steps', () => {
    const s = run('zero_stage=3, gradient_accumulation_steps=2, zero3_save_16bit_model=True');
    assert.deepEqual([s.gpus_per_node, s.zero_stage, s.gradient_accumulation_steps], [2, 3, 2]);
  });

  it('offload devices, and the stage DeepSpeedPlugin defaults to (2)', () => {
    const s = run('zero_stage=3, offload_optimizer_device="cpu", offload_param_device="cpu"');
    assert.deepEqual([s.zero_stage, s.offload_optimizer, s.offload_params], [3, 'cpu', 'cpu']);
    assert.equal(run('gradient_accumulation_steps=4').zero_stage, 2);
  });
});
