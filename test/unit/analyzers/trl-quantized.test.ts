// What TRL's trainers do to a bitsandbytes 4/8-bit model, by release (src/analyzers/trl-quantized.ts). Sources, read in
// huggingface/trl at each tag: SFTTrainer calls prepare_model_for_kbit_training until 0.26 (trl#4577; v0.25.0
// trl/trainer/sft_trainer.py _prepare_peft_model), then peft_module_casting_to_bf16 for a 4-bit model under bf16 (from
// v0.7.5; the LoRA layers to bf16 too until trl#1644, v0.9.3); from 0.26 it casts the trainable parameters of a
// quantized model to bf16 (v0.26.0 sft_trainer.py); DPOTrainer prepares until 0.29; KTO, ORPO, CPO still prepare.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { trlQuantizedPreparation } from '../../../src/analyzers/trl-quantized';

const reader = (files: Map<string, string>) => ({
  read: (p: string) => files.get(p.replace(/\/[^/]+\/\.\.\//g, '/')),
  join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
});
const load =
  'from transformers import AutoModelForCausalLM, BitsAndBytesConfig\nfrom trl import SFTConfig, SFTTrainer\n' +
  'from peft import LoraConfig\n' +
  'model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B", torch_dtype="bfloat16", ' +
  'quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4"))\n' +
  'peft_config = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear")\n';
const sft = (args: string) =>
  `${load}args = SFTConfig(output_dir="o", per_device_train_batch_size=1, max_length=2048, ${args})\n` +
  'trainer = SFTTrainer(model=model, args=args, peft_config=peft_config)\n';
const pinned = (text: string, trl: string) =>
  runPipeline([{ file: '/w/src/train.py', text }], reader(new Map([['/w/requirements.txt', `trl==${trl}\n`]])), {});
const note = (r: ReturnType<typeof pinned>): string =>
  r.provenance.kbit_upcast?.kind === 'default' ? (r.provenance.kbit_upcast.note ?? '') : '';

describe("analyzers: what TRL's trainers do to a quantized model, by release", () => {
  it('SFTTrainer before 0.26 under bf16: the norms stay fp32, the embeddings and head go back to bf16', () => {
    const r = pinned(sft('bf16=True'), '0.25.0');
    assert.equal(r.setup?.kbit_upcast, 'norms');
    assert.equal(r.setup?.lora?.dtype, 'fp32');
    assert.match(
      note(r),
      /TRL 0\.25\.0's SFTTrainer calls prepare_model_for_kbit_training, then peft_module_casting_to_bf16/,
    );
  });

  it('SFTTrainer before 0.26 under fp16: every unquantized parameter in fp32; before 0.9.3 the LoRA layers in bf16', () => {
    assert.equal(pinned(sft('fp16=True'), '0.19.1').setup?.kbit_upcast, 'all');
    const r = pinned(sft('bf16=True'), '0.8.6');
    assert.equal(r.setup?.kbit_upcast, 'norms');
    assert.equal(r.setup?.lora?.dtype, 'bf16');
    // Before peft_module_casting_to_bf16 (v0.7.5) nothing was cast back.
    assert.equal(pinned(sft('bf16=True'), '0.7.4').setup?.kbit_upcast, 'all');
  });

  it("SFTTrainer before 0.7.2 checkpoints every layer whatever the arguments say (prepare_model_for_int8_training's default)", () => {
    // trl v0.4.7 / v0.7.1 trl/trainer/sft_trainer.py: `model = prepare_model_for_int8_training(model)`, whose
    // use_gradient_checkpointing defaults to True; v0.7.2 passes args.gradient_checkpointing (trl#728). Databricks'
    // Llama-2-70B QLoRA notebook pins trl==0.4.7 and sets no gradient_checkpointing.
    const old = pinned(sft('fp16=True'), '0.4.7');
    assert.equal(old.setup?.gradient_checkpointing, 'full');
    const why = old.provenance.gradient_checkpointing;
    assert.match(
      why?.kind === 'default' ? (why.note ?? '') : '',
      /TRL 0\.4\.7's SFTTrainer calls prepare_model_for_int8_training/,
    );
    assert.equal(pinned(sft('fp16=True'), '0.7.2').setup?.gradient_checkpointing, 'none');
  });

  it('SFTTrainer 0.26 and later: nothing upcast, the LoRA weights cast to bf16', () => {
    const r = pinned(sft('bf16=True'), '0.26.0');
    assert.equal(r.setup?.kbit_upcast, 'none');
    assert.equal(r.setup?.lora?.dtype, 'bf16');
    assert.match(note(r), /TRL 0\.26\.0's SFTTrainer keeps the unquantized parameters in 16 bits/);
  });

  it('a script that calls prepare_model_for_kbit_training itself keeps its own upcast and PEFT dtype', () => {
    const text = sft('bf16=True').replace(
      'peft_config = ',
      'from peft import prepare_model_for_kbit_training\nmodel = prepare_model_for_kbit_training(model)\npeft_config = ',
    );
    const r = pinned(text, '0.25.0');
    assert.equal(r.setup?.kbit_upcast, 'all');
    assert.equal(r.provenance.kbit_upcast?.kind, 'file');
    assert.equal(r.setup?.lora?.dtype, 'fp32');
  });

  it('a script that wraps the model in PEFT itself hands TRL a PeftModel, which its preparation skips', () => {
    // Laxparihar/Llama-3.2-3B-Fine-Tune trainer.py (abridged): `model = get_peft_model(model, peft_config)` before
    // SFTTrainer(model=model, peft_config=peft_config) under TRL 0.14 (sft_trainer.py `if not isinstance(model,
    // PeftModel)` around prepare_model_for_kbit_training): no upcast, as the files leave it.
    const text = sft('fp16=True').replace(
      'trainer = SFTTrainer',
      'from peft import get_peft_model\nmodel = get_peft_model(model, peft_config)\ntrainer = SFTTrainer',
    );
    assert.equal(pinned(text, '0.14.0').setup?.kbit_upcast, 'none');
    assert.equal(pinned(sft('fp16=True'), '0.14.0').setup?.kbit_upcast, 'all');
  });

  it('a 4-bit load without a dtype under transformers 4 keeps its unquantized parameters in float16', () => {
    // transformers 4.x Bnb4BitHfQuantizer.update_torch_dtype: "Overriding torch_dtype=None with torch_dtype=torch.float16"
    // (a load without a dtype is float32 otherwise under 4.x). No half-precision switch, as the Laxparihar script has.
    const args = 'args = SFTConfig(output_dir="o", fp16=False, bf16=False)\n';
    const run = 'SFTTrainer(model=model, args=args, peft_config=peft_config).train()\n';
    const files = new Map([['/w/requirements.txt', 'trl==0.14.0\ntransformers==4.48.3\n']]);
    const at = (text: string) => runPipeline([{ file: '/w/src/train.py', text }], reader(files), {}).setup;
    const quantized = load.replace('torch_dtype="bfloat16", ', '');
    assert.equal(at(quantized + args + run)?.weights_dtype, 'fp16');
    const plain = quantized.replace(
      ', quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")',
      '',
    );
    assert.equal(at(plain + args + run)?.weights_dtype, 'fp32');
  });

  it('so too where a construct of the files, not a pin, dates the run to transformers 4', () => {
    // hefajuddin/Train_Llama_With_PEFT: `from_pretrained(model_name, device_map="auto", load_in_4bit=True)` and
    // TrainingArguments(evaluation_strategy=...), which dates the run to transformers 4.45 or earlier; read as the
    // Trainer's float32 load (Llama-2-7B's 262.4M unquantized parameters at 4 B) where the quantizer makes them float16.
    const text = [
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", load_in_4bit=True)',
      'args = TrainingArguments(output_dir="o", evaluation_strategy="no", per_device_train_batch_size=1)',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const setup = runPipeline([{ file: '/w/train.py', text }], reader(new Map()), {}).setup;
    assert.equal(setup?.transformers_version, '4.45');
    assert.equal(setup?.weights_dtype, 'fp16');
    const plain = text.replace(', load_in_4bit=True', '');
    assert.equal(
      runPipeline([{ file: '/w/train.py', text: plain }], reader(new Map()), {}).setup?.weights_dtype,
      'fp32',
    );
  });

  it('prepare_model_for_kbit_training under `if quantization_config:` runs where the model is quantized', () => {
    // razvanalex-phd/SeLeRoSa llm_finetune.py: `if quantization_config: model = prepare_model_for_kbit_training(model)`
    // before SFTTrainer, with gradient_checkpointing=False in the config: the call turns it on (its
    // use_gradient_checkpointing defaults to True, peft/utils/other.py).
    const text = sft('bf16=True, gradient_checkpointing=False').replace(
      'peft_config = ',
      'from peft import prepare_model_for_kbit_training\nquantization_config = model.config.quantization_config\n' +
        'if quantization_config:\n    model = prepare_model_for_kbit_training(model)\npeft_config = ',
    );
    const r = pinned(text, '1.13.0');
    assert.equal(r.setup?.kbit_upcast, 'all');
    assert.deepEqual(r.provenance.kbit_upcast, {
      kind: 'file',
      file: '/w/src/train.py',
      line: 8,
      key: 'prepare_model_for_kbit_training',
    });
    assert.equal(r.setup?.gradient_checkpointing, 'full');
    // The same under `else:` of the test, or a test of something else, stays not known: TRL's release decides.
    const other = pinned(text.replace('if quantization_config:', 'if args.upcast:'), '1.13.0');
    assert.deepEqual([other.setup?.kbit_upcast, other.provenance.kbit_upcast?.kind], ['none', 'default']);
    // use_gradient_checkpointing=False leaves checkpointing to the arguments.
    const noGc = pinned(text.replace('(model)\npeft', '(model, use_gradient_checkpointing=False)\npeft'), '1.13.0');
    assert.deepEqual([noGc.setup?.kbit_upcast, noGc.setup?.gradient_checkpointing], ['all', 'none']);
  });

  it('by trainer: DPO prepares until 0.29, KTO and ORPO still do; QLoRA under FSDP or ZeRO-3 is not prepared', () => {
    const q = { bits: 4 as const, type: 'nf4' as const, double_quant: false, scope: 'all-linear' as const };
    const base = { quantization: q, mixed_precision: 'bf16' as const, fsdp: 'none' as const, zero_stage: 0 as const };
    const dpo = { ...base, preference: { reference: 'adapters-off' as const, logps: 'rows' as const, paired: true } };
    assert.equal(trlQuantizedPreparation({ ...dpo, trl_version: '0.28' })?.kbitUpcast, 'norms');
    assert.equal(trlQuantizedPreparation({ ...dpo, trl_version: '0.29' })?.kbitUpcast, 'none');
    const orpo = { ...dpo, preference: { ...dpo.preference, reference: 'none' as const } };
    assert.equal(trlQuantizedPreparation({ ...orpo, trl_version: '1.9' })?.kbitUpcast, 'norms');
    const kto = { ...dpo, preference: { ...dpo.preference, paired: false } };
    assert.equal(trlQuantizedPreparation(kto)?.kbitUpcast, 'norms');
    assert.equal(trlQuantizedPreparation({ ...base, fsdp: 'full_shard', trl_version: '0.24' })?.kbitUpcast, 'none');
    assert.equal(trlQuantizedPreparation({ ...base, zero_stage: 3, trl_version: '0.24' })?.kbitUpcast, 'none');
    // An 8-bit model is upcast whole: peft_module_casting_to_bf16 runs for 4-bit models only.
    assert.equal(
      trlQuantizedPreparation({ ...base, quantization: { ...q, bits: 8, type: 'int8' }, trl_version: '0.24' })
        ?.kbitUpcast,
      'all',
    );
    // GPTQ and torchao models are not bitsandbytes loads.
    assert.equal(trlQuantizedPreparation({ ...base, quantization: { ...q, type: 'gptq' } }), undefined);
  });

  it('GRPO prepares from 0.22 (prepare_peft_model) to 0.26; before 0.22 GRPOTrainer only called get_peft_model', () => {
    const q = { bits: 4 as const, type: 'nf4' as const, double_quant: false, scope: 'all-linear' as const };
    const grpo = {
      quantization: q,
      mixed_precision: 'bf16' as const,
      fsdp: 'none' as const,
      zero_stage: 0 as const,
      rollout: { objective: 'policy-gradient' } as Parameters<typeof trlQuantizedPreparation>[0]['rollout'],
    };
    const at = (v: string) => trlQuantizedPreparation({ ...grpo, trl_version: v });
    // trl v0.16.1 grpo_trainer.py: `if peft_config is not None: model = get_peft_model(model, peft_config)`.
    assert.deepEqual(
      [at('0.16.1')?.kbitUpcast, at('0.16.1')?.prepares, at('0.16.1')?.adapterDtype],
      ['none', false, undefined],
    );
    assert.match(at('0.16.1')?.note ?? '', /only calls get_peft_model/);
    // trl v0.22.0 grpo_trainer.py:264 prepare_peft_model -> prepare_model_for_kbit_training, peft_module_casting_to_bf16.
    assert.deepEqual([at('0.22.0')?.kbitUpcast, at('0.25.0')?.kbitUpcast], ['norms', 'norms']);
    assert.equal(at('0.26.0')?.kbitUpcast, 'none');
  });
});
