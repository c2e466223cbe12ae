// DeepSpeed's 16-bit engine casts the module back after PEFT's prepare_model_for_kbit_training
// (src/analyzers/deepspeed-adapters.ts deepspeedCastsKbitUpcast): deepspeedai/DeepSpeed@v0.16.5 engine.py
// _configure_distributed_model `self.module.bfloat16()`, every floating-point parameter of a model made outside ZeRO-Init.
import * as assert from 'node:assert/strict';
import { runFiles } from '../helpers';

/** gammachen/p-llm-dialog-element-extraction's train.py, cut to its load, PEFT preparation and DeepSpeed engine. */
const train = (initialize: string): string =>
  [
    'import json, torch, deepspeed',
    'from transformers import AutoModelForCausalLM, BitsAndBytesConfig',
    'from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training',
    'from torch.utils.data import DataLoader',
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16,',
    '    quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16))',
    'model = prepare_model_for_kbit_training(model)',
    'model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))',
    initialize,
    'for batch in DataLoader([], batch_size=2):',
    '    loss = model(**batch).loss',
    '    model.backward(loss)',
    '    model.step()',
    '',
  ].join('\n');

const DS = 'model, optimizer, _, _ = deepspeed.initialize(model=model, config=json.load(open("ds.json")))';

describe("DeepSpeed's 16-bit engine and prepare_model_for_kbit_training", () => {
  it('casts the norms, embeddings and head PEFT upcast back to bf16, and says so', () => {
    const files = (bf16: boolean) => ({
      '/w/run.sh': 'deepspeed --num_gpus 1 train.py\n',
      '/w/train.py': train(DS),
      '/w/ds.json': JSON.stringify({
        zero_optimization: { stage: 2 },
        bf16: { enabled: bf16 },
        train_micro_batch_size_per_gpu: 2,
      }),
    });
    const r = runFiles(files(true), '/w/run.sh');
    assert.equal(r.setup?.quantization?.bits, 4);
    assert.equal(r.setup?.kbit_upcast, 'none');
    const prov = r.provenance.kbit_upcast as { owner?: string; note?: string };
    assert.equal(prov.owner, 'deepspeed');
    assert.match(prov.note!, /casts every floating-point parameter to bf16/);
    // Without a 16-bit engine (fp32 DeepSpeed) nothing casts the upcast parameters back.
    assert.equal(runFiles(files(false), '/w/run.sh').setup?.kbit_upcast, 'all');
  });

  it('through the HF Trainer: ZeRO-2, and ZeRO-3, under which a quantized model is made outside ZeRO-Init', () => {
    const script = [
      'import torch',
      'from transformers import AutoModelForCausalLM, BitsAndBytesConfig, HfArgumentParser, Trainer, TrainingArguments',
      'from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training',
      'args, = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16,',
      '    quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16))',
      'model = prepare_model_for_kbit_training(model)',
      'model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))',
      'Trainer(model=model, args=args).train()',
      '',
    ].join('\n');
    const files = (stage: number, version: string) => ({
      '/w/run.sh': 'deepspeed train.py --deepspeed ds.json --bf16 True --output_dir o\n',
      '/w/train.py': script,
      '/w/requirements.txt': `deepspeed==${version}\n`,
      '/w/ds.json': JSON.stringify({ zero_optimization: { stage }, bf16: { enabled: 'auto' } }),
    });
    const at = (stage: number, version: string) => runFiles(files(stage, version), '/w/run.sh').setup;
    // ZeRO-2: the engine casts the module whatever the release.
    assert.equal(at(2, '0.19.6')?.kbit_upcast, 'none');
    // ZeRO-3: transformers loads a quantized model outside ZeRO-Init (modeling_utils: no zero.Init for a quantized
    // load), so the engine casts it whole in every release, also where it leaves a ZeRO-Init model as made (0.19.2).
    assert.equal(at(3, '0.16.5')?.kbit_upcast, 'none');
    assert.equal(at(3, '0.19.6')?.zero3_init, false);
    assert.equal(at(3, '0.19.6')?.kbit_upcast, 'none');
  });
});
