// Term: bitsandbytes' kept inputs (src/core/terms/activations/kept-inputs.ts). MatMul8bitLt, and MatMul4Bit before
// bitsandbytes 0.43.2, keep the input A of every quantized linear as `ctx.tensors` (bitsandbytes/autograd/
// _functions.py; bitsandbytes-foundation/bitsandbytes#1270 dropped it from MatMul4Bit). A ctx attribute is not a saved
// tensor, so non-reentrant checkpointing keeps it for every layer. The numbers are worked by hand from the Llama
// block's forward (modeling_llama.py) at 1 x 512 tokens, hidden 4,096, MLP 11,008, 2 B per element.
import * as assert from 'node:assert/strict';
import { type ActivationPlan, layerActivations } from '../../../src/core/terms/activations';
import {
  bitsandbytesKeepsInputs,
  checkpointReentrant,
  keptInputBytes,
} from '../../../src/core/terms/activations/kept-inputs';
import type { TrainingSetupInput } from '../../../src/core/setup';
import { component, phase, resolveText, run, setupFor } from '../helpers';
import { archOf, llama2Qlora } from './helpers';

const T = 512;
const H = 4096;
const FFN = 11008;
/** The inputs of q/k/v (the input norm's output), o_proj (the attention output), gate/up (the second norm's output)
 *  and down_proj (act(gate) x up): T x (3h + ffn) x 2 B. */
const KEPT_PER_LAYER = T * (3 * H + FFN) * 2; // 23,855,104

describe('kept inputs: which bitsandbytes layers keep them', () => {
  const q4 = { bits: 4 as const, type: 'nf4' as const, double_quant: false, scope: 'all-linear' as const };
  it('LLM.int8 always; NF4 / FP4 before 0.43.2; torchao and GPTQ never', () => {
    assert.equal(bitsandbytesKeepsInputs({ quantization: { ...q4, bits: 8, type: 'int8' } }), true);
    assert.equal(bitsandbytesKeepsInputs({ quantization: q4, bitsandbytes_version: '0.42.0' }), true);
    assert.equal(bitsandbytesKeepsInputs({ quantization: q4, bitsandbytes_version: '0.43.1' }), true);
    assert.equal(bitsandbytesKeepsInputs({ quantization: q4, bitsandbytes_version: '0.43.2' }), false);
    assert.equal(bitsandbytesKeepsInputs({ quantization: q4, bitsandbytes_version: '0.44' }), false);
    assert.equal(bitsandbytesKeepsInputs({ quantization: q4 }), false, 'unset: a current release');
    assert.equal(
      bitsandbytesKeepsInputs({ quantization: { ...q4, library: 'torchao' }, bitsandbytes_version: '0.42' }),
      false,
    );
    assert.equal(
      bitsandbytesKeepsInputs({ quantization: { ...q4, type: 'gptq' }, bitsandbytes_version: '0.42' }),
      false,
    );
  });
  it("use_reentrant: the setup's, else transformers' default (True through 4.x, False from 5.0)", () => {
    assert.equal(checkpointReentrant({ transformers_version: '4.57' }), true);
    assert.equal(checkpointReentrant({ transformers_version: '5.0' }), false);
    assert.equal(checkpointReentrant({}), false, 'unset: a current transformers');
    assert.equal(checkpointReentrant({ transformers_version: '4.57', checkpoint_reentrant: false }), false);
  });
  it('only non-reentrant checkpointing adds them on top of the checkpointed inputs', () => {
    const nonReentrant = { checkpoint_reentrant: false };
    assert.equal(keptInputBytes(nonReentrant, 'full', KEPT_PER_LAYER, 32), 32 * KEPT_PER_LAYER);
    assert.equal(keptInputBytes({ checkpoint_reentrant: true }, 'full', KEPT_PER_LAYER, 32), 0);
    assert.equal(keptInputBytes(nonReentrant, 'none', KEPT_PER_LAYER, 32), 0, 'the saved bytes count them');
  });
});

describe('kept inputs: one Llama-2-7B block (QLoRA on q and v, bf16, 1 x 512)', () => {
  const plan: ActivationPlan = {
    arch: archOf('meta-llama/Llama-2-7b-hf'),
    mode: 'half',
    half: 2,
    weightBytes: 2,
    batch: 1,
    seq: T,
    attention: 'sdpa',
    baseTrainable: false,
    normsTrainable: false,
    inputRequiresGrad: true,
    tp: 1,
    sequenceParallel: false,
    quantizedBase: true,
    lora: { r: 16, dropout: 0, dtypeBytes: 2, targets: new Set(['q_proj', 'v_proj']) },
  };
  it('every quantized linear input is held as a ctx attribute', () => {
    assert.equal(layerActivations({ ...plan, bnbKeepsInput: true }).contextHeldBytes, KEPT_PER_LAYER);
    assert.equal(layerActivations(plan).contextHeldBytes, undefined);
  });
  it('without checkpointing they add what nothing else saves: the second norm output and act(gate) x up', () => {
    // q_proj's lora_A saves the input norm's output (dropout 0 hands it over as it is) and SDPA saves its output, which
    // o_proj reads: those two are saved anyway. New: T x h x 2 B = 4,194,304 and T x ffn x 2 B = 11,272,192.
    const extra =
      layerActivations({ ...plan, bnbKeepsInput: true }).bytesPerLayer - layerActivations(plan).bytesPerLayer;
    assert.equal(extra, T * H * 2 + T * FFN * 2);
    assert.equal(extra, 15_466_496);
  });
});

describe('kept inputs: the estimate', () => {
  const qlora = (extra: Partial<TrainingSetupInput>): number =>
    component(
      phase(run(llama2Qlora({ seq_len: T, gradient_checkpointing: 'full', ...extra })), 'backward'),
      'activations',
    );
  it('bitsandbytes 0.43.1 under non-reentrant checkpointing: 32 layers x 23,855,104 B more', () => {
    const old = { bitsandbytes_version: '0.43.1' };
    assert.equal(
      qlora({ ...old, checkpoint_reentrant: false }) - qlora({ ...old, checkpoint_reentrant: true }),
      32 * KEPT_PER_LAYER,
    );
    assert.equal(32 * KEPT_PER_LAYER, 763_363_328);
  });
  it('reentrant checkpointing, or bitsandbytes 0.43.2: nothing more', () => {
    const base = qlora({ bitsandbytes_version: '0.43.2', checkpoint_reentrant: false });
    assert.equal(qlora({ bitsandbytes_version: '0.43.1', checkpoint_reentrant: true }), base);
    assert.equal(qlora({ checkpoint_reentrant: false }), base);
  });
  it('says which release and which checkpointing it assumed', () => {
    const e = run(
      setupFor('meta-llama/Llama-2-7b-hf', {
        method: 'qlora',
        quantization: { bits: 8, type: 'int8' },
        lora: { r: 16, alpha: 32, target_modules: ['q_proj', 'v_proj'] },
        weights_dtype: 'bf16',
        gradient_checkpointing: 'full',
        transformers_version: '4.57',
      }),
    );
    const a = e.assumptions.find((x) => x.key === 'checkpoint_reentrant');
    assert.equal(a?.value, 'true');
    assert.match(a?.source ?? '', /use_reentrant=True before 5\.0/);
  });
});

describe('kept inputs: where the files say which checkpointing runs', () => {
  const reentrant = (file: string, text: string): unknown => resolveText(file, text).setup?.checkpoint_reentrant;
  const model = 'model_name_or_path: meta-llama/Llama-2-7b-hf\n';
  it('HF / TRL YAML: gradient_checkpointing_kwargs, as a mapping or JSON text', () => {
    const base = `${model}gradient_checkpointing: true\nper_device_train_batch_size: 1\n`;
    assert.equal(reentrant('sft.yaml', `${base}gradient_checkpointing_kwargs:\n  use_reentrant: false\n`), false);
    assert.equal(reentrant('sft.yaml', `${base}gradient_checkpointing_kwargs: '{"use_reentrant": true}'\n`), true);
    assert.equal(reentrant('sft.yaml', base), undefined, "unset: the core takes transformers' default");
  });
  it("Axolotl: use_reentrant True unless the config says otherwise (normalize_config); LLaMA-Factory's use_reentrant_gc", () => {
    const axolotl = 'base_model: meta-llama/Llama-2-7b-hf\nadapter: qlora\nload_in_4bit: true\nmicro_batch_size: 1\n';
    assert.equal(reentrant('axolotl.yml', `${axolotl}gradient_checkpointing: true\n`), true);
    assert.equal(
      reentrant(
        'axolotl.yml',
        `${axolotl}gradient_checkpointing: true\ngradient_checkpointing_kwargs:\n  use_reentrant: false\n`,
      ),
      false,
    );
    const lf = 'model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\nfinetuning_type: lora\n';
    assert.equal(reentrant('llamafactory.yaml', lf), true);
    assert.equal(reentrant('llamafactory.yaml', `${lf}use_reentrant_gc: false\n`), false);
  });
  it("Accelerate's FSDP activation checkpointing is non-reentrant (checkpoint_wrapper NO_REENTRANT)", () => {
    const acc = 'distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_activation_checkpointing: true\n';
    const facts = resolveText('accelerate.yaml', acc).files[0].facts.facts;
    assert.equal(facts.find((f) => f.key === 'checkpointReentrant')?.value, false);
    assert.equal(facts.find((f) => f.key === 'gradientCheckpointing')?.value, 'full');
  });
  it('Python: TrainingArguments(gradient_checkpointing_kwargs={"use_reentrant": False})', () => {
    const py =
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'args = TrainingArguments(output_dir="o", gradient_checkpointing=True,\n' +
      '    gradient_checkpointing_kwargs={"use_reentrant": False})\n';
    assert.equal(reentrant('train.py', py), false);
  });
});
