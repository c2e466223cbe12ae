// A LoRA adapter a script loads from a folder and trains on (src/analyzers/hf-python/peft-loaded.ts): PEFT's
// PeftModel.from_pretrained loads it frozen unless is_trainable=True (peft/peft_model.py), and scripts of a second
// stage either pass that or turn the LoRA weights' gradients back on. Both shapes are the fresh real-file samples that
// were estimated as full fine-tunes: wallacexuhanxiao/FinQA-tool-calling-GRPO-GSPO train_stage7_grpo_finqa_agent.py
// (Qwen2.5-7B: 7.62B trainable, a frozen reference copy) and alexchilton/CAS_NLP_MODULE4_GRPO grpo_local_data_peft.py.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { estimate } from '../../../src/core/estimate';
import { TrainingSetupSchema } from '../../../src/core/setup';
import { runFiles } from '../helpers';

const GRPO = [
  'import torch',
  'from peft import PeftModel',
  'from transformers import AutoModelForCausalLM',
  'from trl import GRPOConfig, GRPOTrainer',
  'base = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct", torch_dtype=torch.bfloat16)',
  'model = PeftModel.from_pretrained(base, "outputs/sft-r32", is_trainable=True)',
  'args = GRPOConfig(output_dir="o", per_device_train_batch_size=8, num_generations=8, bf16=True)',
  'trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=ds)',
  'trainer.train()',
  '',
].join('\n');

describe('hf-python: a LoRA adapter loaded from a folder', () => {
  it('loaded with is_trainable=True: LoRA training, the reference is the model with its adapters off', () => {
    const run = runFiles({ '/p/train.py': GRPO }, '/p/train.py');
    const s = run.setup;
    assert.ok(s, JSON.stringify(run.problems));
    assert.equal(s.method, 'lora');
    assert.equal(run.decided.method?.fact.rawKey, 'is_trainable');
    // The rank is the adapter folder's: PEFT's default is estimated and said.
    const info = analyzeHfPython(GRPO).problems.map((p) => p.message);
    assert.match(info.join('\n'), /the adapter's rank and targets are those saved with it/);
  });

  it('its targets: every linear layer of the blocks, not PEFT default for the model type (none for phi3)', () => {
    // Rashod4/lora-dpo-codegen's train_dpo.py loads the SFT stage's adapter (r16 over qkv_proj, o_proj, gate_up_proj,
    // down_proj: every linear layer of phi3) into Phi-3.5-mini: PEFT has no default target for phi3, and the estimate
    // had 0 trainable parameters. Every linear layer at r 8 (PEFT's default rank): per layer r x (in + out) summed over
    // qkv_proj 3072 -> 9216, o_proj 3072 -> 3072, gate_up_proj 3072 -> 16384, down_proj 8192 -> 3072 = 8 x 49,152 = 393,216,
    // x 32 layers = 12,582,912.
    const phi = GRPO.replace('Qwen/Qwen2.5-7B-Instruct', 'microsoft/Phi-3.5-mini-instruct');
    const run = runFiles({ '/p/train.py': phi }, '/p/train.py');
    assert.equal(run.setup?.lora?.target_modules, 'all-linear');
    assert.ok(!run.problems.some((p) => /PEFT has no default/.test(p.message)), JSON.stringify(run.problems));
    const p = run.provenance.lora;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /adapter_config\.json.*every linear layer.*rank 8/);
    const r = estimate(TrainingSetupSchema.parse(run.setup));
    assert.ok(r.ok);
    assert.equal(r.estimate.parameters.trainable, 12_582_912);
  });

  it("made trainable by the script's loop over its LoRA weights; loaded frozen, nothing is said to train", () => {
    const unfrozen = GRPO.replace(', is_trainable=True', '').replace(
      'args = ',
      'for name, param in model.named_parameters():\n    if "lora" in name.lower():\n        param.requires_grad = True\nargs = ',
    );
    assert.equal(runFiles({ '/p/train.py': unfrozen }, '/p/train.py').setup?.method, 'lora');
    const frozen = GRPO.replace(', is_trainable=True', '');
    assert.equal(runFiles({ '/p/train.py': frozen }, '/p/train.py').setup?.method, 'full');
  });
});
