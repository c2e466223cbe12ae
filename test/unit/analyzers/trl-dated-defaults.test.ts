// TRL's defaults by release: gradient_checkpointing=True since TRL 0.22 (huggingface/trl#3510, commit a222aeb), bf16=True
// since 0.19 (#3515, commit 32ffa11); before them a TRL config took TrainingArguments' False. A project that pins an
// older TRL (simplescaling/s1 pins trl==0.12.0) runs without checkpointing and in fp32 unless it sets them.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';

const reader = (files: Map<string, string>) => ({
  read: (p: string) => files.get(p.replace(/\/[^/]+\/\.\.\//g, '/')),
  join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
});
const SCRIPT =
  'from trl import SFTConfig\n' +
  'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype="bfloat16")\n' +
  'args = SFTConfig(output_dir="o", per_device_train_batch_size=2)\n';
const pinned = (pin: string | undefined, text = SCRIPT) =>
  runPipeline([{ file: '/w/train.py', text }], reader(new Map(pin ? [['/w/requirements.txt', `${pin}\n`]] : [])), {});
const noteOf = (p: { kind: string; note?: string } | undefined): string =>
  p?.kind === 'default' ? (p.note ?? '') : '';

describe("analyzers: TRL's defaults as the pinned release had them", () => {
  it('no pin: the current release (checkpointing on, bf16 autocast, chunked NLL)', () => {
    const r = pinned(undefined);
    assert.deepEqual(
      [r.setup?.gradient_checkpointing, r.setup?.mixed_precision, r.setup?.loss],
      ['full', 'bf16', 'chunked-nll'],
    );
  });

  it('trl==0.12.0: no checkpointing, no autocast, the whole logits; each said with its release', () => {
    const r = pinned('trl==0.12.0');
    assert.deepEqual(
      [r.setup?.gradient_checkpointing, r.setup?.mixed_precision, r.setup?.loss],
      ['none', 'none', 'full'],
    );
    assert.match(noteOf(r.provenance.gradient_checkpointing), /before TRL 0\.22 \(TRL 0\.12\.0 for this run/);
    assert.match(noteOf(r.provenance.mixed_precision), /before TRL 0\.19/);
  });

  it('the releases between: 0.19-0.21 have bf16 but not checkpointing; 0.22 has both', () => {
    const mid = pinned('trl==0.20.0');
    assert.deepEqual([mid.setup?.gradient_checkpointing, mid.setup?.mixed_precision], ['none', 'bf16']);
    const since = pinned('trl==0.22.1');
    assert.deepEqual([since.setup?.gradient_checkpointing, since.setup?.mixed_precision], ['full', 'bf16']);
  });

  it('a value the run sets is not a default: it stays under any pin', () => {
    const text = SCRIPT.replace('per_device_train_batch_size=2', 'gradient_checkpointing=True, bf16=True');
    const r = pinned('trl==0.12.0', text);
    assert.deepEqual([r.setup?.gradient_checkpointing, r.setup?.mixed_precision], ['full', 'bf16']);
  });

  // TRL 0.13 moved SFTTrainer's max_seq_length / packing into SFTConfig; 0.16 removed the trainers' `tokenizer`
  // keyword (trl v0.12.2 and v0.13.0 SFTTrainer.__init__; @deprecate_kwarg("tokenizer", "0.16.0") in v0.13-v0.15).
  const OLD_API =
    'from trl import SFTTrainer\n' +
    'from transformers import TrainingArguments\n' +
    'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype="bfloat16")\n' +
    'args = TrainingArguments(output_dir="o", per_device_train_batch_size=2)\n' +
    'trainer = SFTTrainer(model=model, args=args, tokenizer=tok, max_seq_length=1024, packing=True)\n';

  it('a trainer call with keywords a later TRL removed dates the run: SFTTrainer(max_seq_length=...) is TRL 0.12 or earlier', () => {
    const r = pinned(undefined, OLD_API);
    assert.equal(r.setup?.trl_version, '0.12');
    assert.equal(r.provenance.trl_version?.kind, 'default');
    assert.match(
      noteOf(r.provenance.trl_version),
      /SFTTrainer\(max_seq_length=\.\.\.\), which TRL 0\.13 no longer takes/,
    );
    // The defaults of that release follow: the whole logits (the HF Trainer's own bf16 and checkpointing defaults
    // are False in any release: TrainingArguments, not SFTConfig).
    assert.equal(r.setup?.loss, 'full');
    assert.equal(r.setup?.seq_len, 1024);
  });

  it('tokenizer= alone dates SFTTrainer to TRL 0.15 or earlier; a pin in the project wins', () => {
    const tokenizerOnly = OLD_API.replace(', max_seq_length=1024, packing=True', '');
    assert.equal(pinned(undefined, tokenizerOnly).setup?.trl_version, '0.15');
    assert.equal(pinned('trl==0.9.6', OLD_API).setup?.trl_version, '0.9.6');
    // Today's call names none of them: no release is implied.
    assert.equal(
      pinned(undefined, tokenizerOnly.replace('tokenizer=tok', 'processing_class=tok')).setup?.trl_version,
      undefined,
    );
  });

  it('DataCollatorForCompletionOnlyLM or SFTConfig max_seq_length, both removed in TRL 0.20, date the run to 0.19', () => {
    // simplescaling/s1 train/sft.py (copied by zenoy802/My-Open-LLM): the collator, then `args.max_seq_length = ...` on
    // the SFTConfig its HfArgumentParser makes. TRL 0.19's defaults: checkpointing off (True from 0.22), the whole logits.
    const parsed = [
      'import transformers, trl',
      'def train():',
      '    parser = transformers.HfArgumentParser((trl.SFTConfig,))',
      '    (args,) = parser.parse_args_into_dataclasses()',
      '    model = transformers.AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype="bfloat16")',
      '    collator = trl.DataCollatorForCompletionOnlyLM(response_template="<|im_start|>assistant", tokenizer=tok)',
      '    args.max_seq_length = 4096',
      '    trainer = trl.SFTTrainer(model, args=args, data_collator=collator)',
      'if __name__ == "__main__":',
      '    train()',
      '',
    ].join('\n');
    const r = pinned(undefined, parsed);
    assert.equal(r.setup?.trl_version, '0.19');
    assert.match(noteOf(r.provenance.trl_version), /DataCollatorForCompletionOnlyLM, which TRL 0\.20 removed/);
    assert.deepEqual([r.setup?.gradient_checkpointing, r.setup?.loss], ['none', 'full']);
    // Without the collator, the attribute set on the trainer's arguments dates it.
    const noCollator = parsed.replace(/\n {4}collator = .*\n/, '\n').replace(', data_collator=collator', '');
    const r2 = pinned(undefined, noCollator);
    assert.equal(r2.setup?.trl_version, '0.19');
    assert.match(noteOf(r2.provenance.trl_version), /max_seq_length, which TRL 0\.20 removed \(SFTConfig renamed it/);
    // SFTConfig(max_seq_length=...) too; a pin in the project wins.
    const keyword =
      SCRIPT.replace('per_device_train_batch_size=2', 'max_seq_length=2048') + 'SFTTrainer(model=model, args=args)\n';
    assert.equal(pinned(undefined, keyword).setup?.trl_version, '0.19');
    assert.equal(pinned('trl==0.12.0', keyword).setup?.trl_version, '0.12.0');
  });

  it('a TRL release before 0.27 runs on transformers 4: 4.57 is assumed where no file gives transformers', () => {
    // TRL 0.27 (January 2026) brought its fixes for transformers 5 (huggingface/trl#4691, #4781).
    const r = pinned('trl==0.19.1');
    assert.equal(r.setup?.transformers_version, '4.57');
    assert.match(noteOf(r.provenance.transformers_version), /^TRL 0\.19\.1 predates transformers 5/);
    // A transformers pin beside it stands; TRL 0.27 and later say nothing of it.
    assert.equal(pinned('trl==0.19.1\ntransformers==4.51.3').setup?.transformers_version, '4.51.3');
    assert.equal(pinned('trl==0.27.0').setup?.transformers_version, undefined);
  });

  it("ModelConfig's torch_dtype (removed in TRL 0.27) dates the run to TRL 0.26, said at the field", () => {
    // yoenoo/unsloth_vllm_profiling train.py:31 `model_args.torch_dtype` of TrlParser((ScriptArguments, GRPOConfig,
    // ModelConfig)): read as today's TRL, transformers 5 left Qwen3-MoE's experts unquantized (bitsandbytes#1849).
    const text = [
      'from trl import GRPOConfig, GRPOTrainer, ModelConfig, TrlParser',
      'parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))',
      'script_args, training_args, model_args = parser.parse_args_and_config()',
      'dtype = model_args.torch_dtype',
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype=dtype)',
      'trainer = GRPOTrainer(model=model, args=training_args, reward_funcs=[f])',
      'trainer.train()',
      '',
    ].join('\n');
    const r = pinned(undefined, text);
    assert.deepEqual([r.setup?.trl_version, r.setup?.transformers_version], ['0.26', '4.57']);
    const trl = r.files[0].facts.facts.find((f) => f.key === 'trlVersion');
    assert.equal(text.slice(trl!.keySpan.start, trl!.keySpan.end), 'torch_dtype');
    assert.match(noteOf(r.provenance.trl_version), /^model_args\.torch_dtype, a field of TRL's ModelConfig/);
    // `dtype`, its name since TRL 0.23, dates nothing.
    assert.equal(
      pinned(undefined, text.replace('model_args.torch_dtype', 'model_args.dtype')).setup?.trl_version,
      undefined,
    );
  });
});

describe("analyzers: GRPOTrainer's Liger switch and old-policy scoring by TRL release", () => {
  // xinyue097/medical-reasoning's recipe (use_liger_kernel: true) and xuwangzi/dapo-reproduction's (vLLM, beta 0.0,
  // num_iterations 1), both under trl 0.18.0: GRPOTrainer read use_liger_loss until 0.25 renamed it to
  // use_liger_kernel (trl@v0.25.0 grpo_trainer.py), and scored the old policy with vLLM only from 0.23's importance
  // sampling (trl@v0.23.0: `self.use_vllm and self.vllm_importance_sampling_correction`).
  const grpo = (config: string) =>
    'from trl import GRPOConfig, GRPOTrainer\n' +
    `args = GRPOConfig(output_dir="o", ${config})\n` +
    'GRPOTrainer(model="Qwen/Qwen2.5-1.5B-Instruct", reward_funcs=[], args=args).train()\n';

  it('use_liger_kernel before TRL 0.25 patches the model only: the whole logits, said; from 0.25 the fused loss', () => {
    const old = pinned('trl==0.18.0', grpo('use_liger_kernel=True'));
    assert.equal(old.setup?.loss, 'full');
    assert.match(
      noteOf(old.provenance.loss),
      /use_liger_kernel \(train\.py:2\) patches Liger's kernels into the model/,
    );
    assert.equal(pinned('trl==0.25.0', grpo('use_liger_kernel=True')).setup?.loss, 'fused');
    // The switch of those releases fuses it.
    assert.equal(pinned('trl==0.18.0', grpo('use_liger_loss=True')).setup?.loss, 'fused');
  });

  it('vLLM before TRL 0.23 takes no old-policy log-probabilities for one pass per round; from 0.23 it does', () => {
    const old = pinned('trl==0.18.0', grpo('use_vllm=True, num_iterations=1'));
    assert.equal(old.setup?.rollout?.old_logps, false);
    assert.match(
      noteOf(old.provenance['rollout.old_logps' as keyof typeof old.provenance]),
      /before TRL 0\.23 \(TRL 0\.18\.0 for this run\)/,
    );
    assert.equal(pinned('trl==0.23.0', grpo('use_vllm=True')).setup?.rollout?.old_logps, true);
    // Two passes per round score the old policy in any release.
    assert.equal(pinned('trl==0.18.0', grpo('use_vllm=True, num_iterations=2')).setup?.rollout?.old_logps, true);
  });
});
