// The HF Trainer's DDP find_unused_parameters where no file gives it (src/analyzers/trainer-ddp.ts): transformers
// trainer.py asks for it for a PEFT model or a model without gradient checkpointing; Axolotl passes false unless its
// config says (core/builders/causal.py), LLaMA-Factory false for LoRA (hparams/parser.py).
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { trainerFindUnused } from '../../../src/analyzers/trainer-ddp';

const noFiles = { read: () => undefined, join: (_f: string, r: string) => r };

const script = (args: string) =>
  [
    'import torch',
    'from peft import LoraConfig, get_peft_model',
    'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)',
    'model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))',
    `args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, bf16=True${args})`,
    'Trainer(model=model, args=args).train()',
    '',
  ].join('\n');

describe("trainer-ddp: the HF Trainer's find_unused_parameters under DDP", () => {
  it("a PEFT model over 2 GPUs: find_unused_parameters, said as the Trainer's default", () => {
    const r = runPipeline([{ file: '/w/train.py', text: script('') }], noFiles, { gpusPerNode: 2 });
    assert.equal(r.setup?.ddp_find_unused_parameters, true);
    assert.equal(r.provenance.ddp_find_unused_parameters?.kind, 'default');
  });
  it("the script's ddp_find_unused_parameters=False wins; one GPU has no DDP", () => {
    const off = runPipeline([{ file: '/w/train.py', text: script(', ddp_find_unused_parameters=False') }], noFiles, {
      gpusPerNode: 2,
    });
    assert.equal(off.setup?.ddp_find_unused_parameters, false);
    assert.equal(off.provenance.ddp_find_unused_parameters?.kind, 'file');
    const one = runPipeline([{ file: '/w/train.py', text: script('') }], noFiles, { gpusPerNode: 1 });
    assert.equal(one.setup?.ddp_find_unused_parameters, undefined);
  });
  it('a full fine-tune: only without gradient checkpointing; Axolotl never, LLaMA-Factory not for LoRA', () => {
    const ddp = { gpus_per_node: 4, fsdp: 'none', zero_stage: 0 } as const;
    assert.equal(
      trainerFindUnused('hf-trainer', { ...ddp, method: 'full', gradient_checkpointing: 'none' })?.value,
      true,
    );
    assert.equal(
      trainerFindUnused('hf-trainer', { ...ddp, method: 'full', gradient_checkpointing: 'full' }),
      undefined,
    );
    assert.equal(trainerFindUnused('trl', { ...ddp, method: 'lora', gradient_checkpointing: 'full' })?.value, true);
    assert.equal(trainerFindUnused('axolotl', { ...ddp, method: 'lora' }), undefined);
    assert.equal(trainerFindUnused('llamafactory', { ...ddp, method: 'lora' }), undefined);
    assert.equal(
      trainerFindUnused('llamafactory', { ...ddp, method: 'full', gradient_checkpointing: 'none' })?.value,
      true,
    );
    // Not DDP: ZeRO or FSDP shard instead.
    assert.equal(trainerFindUnused('hf-trainer', { ...ddp, zero_stage: 2, method: 'lora' }), undefined);
    assert.equal(trainerFindUnused('hf-trainer', { ...ddp, fsdp: 'full_shard', method: 'lora' }), undefined);
  });
});
