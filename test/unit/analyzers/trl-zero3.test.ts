// TRL's trainers force reentrant checkpointing for a PEFT model under DeepSpeed ZeRO-3 from TRL 0.28, and from 1.7
// keep the adapters they make there in the model's dtype (src/analyzers/deepspeed-adapters.ts)
// (src/analyzers/trl-zero3.ts; huggingface/trl#4951, trl/trainer/sft_trainer.py). Measured on the CPU: SFTTrainer with
// a LoRA model under ZeRO-3 runs CheckpointFunction (the reentrant form) though its arguments said use_reentrant=False
// (tools/truth/FINDINGS.md §69, accelerate/llama-sft-z3-w8-lora-all-bf16-ckpt).
import * as assert from 'node:assert/strict';
import { runPipeline, type FileReader } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';

const SCRIPT = (kwargs: string) =>
  'from peft import LoraConfig\nfrom transformers import AutoModelForCausalLM\nfrom trl import SFTConfig, SFTTrainer\n' +
  'args = SFTConfig(output_dir="o", per_device_train_batch_size=1, max_length=2048, bf16=True,\n' +
  `    gradient_checkpointing=True, deepspeed="ds.json"${kwargs})\n` +
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-14B")\n' +
  'SFTTrainer(model=model, args=args, peft_config=LoraConfig(r=8, target_modules="all-linear")).train()\n';
const ZERO3 = '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}}';

function run(script: string, pin?: string) {
  const files: Record<string, string> = { '/w/train.py': script, '/w/ds.json': ZERO3 };
  if (pin) files['/w/requirements.txt'] = pin;
  const reader: FileReader = {
    read: (p: string) => files[p],
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
  return runPipeline([{ file: '/w/train.py', text: script }], reader, { gpusPerNode: 8 });
}

describe('analyzers: TRL forces reentrant checkpointing for PEFT under ZeRO-3', () => {
  it('a current TRL: reentrant, said as TRL’s, even over the script’s use_reentrant: False', () => {
    const r = run(SCRIPT(''));
    assert.equal(r.setup?.zero_stage, 3);
    assert.equal(r.setup?.checkpoint_reentrant, true);
    const p = r.provenance.checkpoint_reentrant;
    assert.equal(p?.kind === 'default' ? p.owner : p?.kind, 'trl');
    const over = run(SCRIPT(', gradient_checkpointing_kwargs={"use_reentrant": False}'));
    assert.equal(over.setup?.checkpoint_reentrant, true);
    assert.match(
      over.provenance.checkpoint_reentrant?.kind === 'default' ? (over.provenance.checkpoint_reentrant.note ?? '') : '',
      /over the files' use_reentrant: false/,
    );
  });

  it('under DeepSpeed 0.19.3 or later that keeps every frozen layer gathered at the end of the backward', () => {
    const r = run(SCRIPT(''));
    const e = estimate(r.setup!);
    assert.ok(e.ok);
    const kept = e.estimate.perGpu.phases
      .flatMap((p) => p.components)
      .find((c) => c.label === 'ZeRO-3 gathered parameters (frozen layers kept through the reentrant backward)');
    // Qwen2.5-14B: 48 layers' 13,212,898,304 layer parameters (test/unit/terms/zero3-recompute-kept.test.ts)
    assert.equal(kept?.inputs?.keptParams, 13_212_898_304);
  });

  it('TRL before 0.28 leaves transformers 5’s non-reentrant default; a full fine-tune and ZeRO-2 are left alone', () => {
    assert.notEqual(run(SCRIPT(''), 'trl==0.27.0\n').setup?.checkpoint_reentrant, true);
    const full = SCRIPT('').replace(', peft_config=LoraConfig(r=8, target_modules="all-linear")', '');
    assert.notEqual(run(full).setup?.checkpoint_reentrant, true);
  });

  it('TRL 1.7+ makes the PEFT model under ZeRO-3 with the adapters in the model dtype; a script’s own get_peft_model keeps fp32', () => {
    // huggingface/trl#6091: get_peft_model(model, peft_config, autocast_adapter_dtype=False) under ZeRO-3
    assert.equal(run(SCRIPT('')).setup?.lora?.dtype, 'bf16');
    assert.equal(run(SCRIPT(''), 'trl==1.6.0\n').setup?.lora?.dtype, 'fp32');
    const own = SCRIPT('')
      .replace('from peft import LoraConfig', 'from peft import LoraConfig, get_peft_model')
      .replace(
        'SFTTrainer(model=model, args=args, peft_config=LoraConfig(r=8, target_modules="all-linear")).train()',
        'model = get_peft_model(model, LoraConfig(r=8, target_modules="all-linear"))\nSFTTrainer(model=model, args=args).train()',
      );
    assert.equal(run(own).setup?.lora?.dtype, 'fp32');
  });
});
