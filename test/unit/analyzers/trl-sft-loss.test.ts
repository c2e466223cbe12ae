// TRL SFTTrainer's loss: SFTConfig.loss_type defaults to "chunked_nll" since TRL 1.7 (trl@06b42c7:trl/trainer/sft_config.py),
// which the estimator runs as loss 'chunked-nll'; an explicit loss_type, Liger, Unsloth or an older pinned TRL say otherwise.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';

const reader = (files: Map<string, string>) => ({
  read: (p: string) => files.get(p.replace(/\/[^/]+\/\.\.\//g, '/')),
  join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
});
const model = 'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype="bfloat16")\n';
const setupOf = (file: string, text: string, deps = new Map<string, string>()) =>
  runPipeline([{ file, text }], reader(deps), {});

describe('analyzers: the loss of a TRL SFTTrainer run', () => {
  it("SFTConfig without loss_type: chunked-nll, TRL's default, said in provenance", () => {
    const text = `${model}args = SFTConfig(output_dir="o", per_device_train_batch_size=2, max_length=1024)\n`;
    const r = setupOf('/w/train.py', `from trl import SFTConfig\n${text}`);
    assert.equal(r.setup?.loss, 'chunked-nll');
    assert.equal(r.provenance.loss?.kind, 'default');
    assert.match(r.provenance.loss?.kind === 'default' ? (r.provenance.loss.note ?? '') : '', /chunked_nll.*TRL 1\.7/);
  });

  it('an explicit loss_type wins: nll and dft run the whole logits, chunked_nll is chunked-nll; Liger is fused', () => {
    const sft = (kw: string) => `from trl import SFTConfig\n${model}args = SFTConfig(output_dir="o", ${kw})\n`;
    assert.equal(setupOf('/w/t.py', sft('loss_type="nll"')).setup?.loss, 'full');
    assert.equal(setupOf('/w/t.py', sft('loss_type="dft"')).setup?.loss, 'full');
    assert.equal(setupOf('/w/t.py', sft('loss_type="chunked_nll"')).setup?.loss, 'chunked-nll');
    assert.equal(setupOf('/w/t.py', sft('use_liger_kernel=True')).setup?.loss, 'fused');
  });

  it("SFTTrainer with plain TrainingArguments is SFT too; DPO, GRPO and Unsloth's SFTTrainer are not", () => {
    const hf = `from trl import SFTTrainer\n${model}args = TrainingArguments(output_dir="o")\ntrainer = SFTTrainer(model=model, args=args)\n`;
    assert.equal(setupOf('/w/t.py', hf).setup?.loss, 'chunked-nll');
    // DPOConfig's loss_type is the preference loss's name, not SFT's.
    const dpo = `from trl import DPOConfig\n${model}args = DPOConfig(output_dir="o", loss_type="sigmoid")\n`;
    assert.equal(setupOf('/w/t.py', dpo).setup?.loss, 'full');
    const grpo = `from trl import GRPOConfig\n${model}args = GRPOConfig(output_dir="o", loss_type="dapo")\n`;
    assert.equal(setupOf('/w/t.py', grpo).setup?.loss, 'full');
    // Unsloth patches SFTTrainer back to loss_type "nll" (unslothai/unsloth PR 8261).
    const unsloth =
      'from unsloth import FastLanguageModel\nfrom trl import SFTConfig, SFTTrainer\n' +
      'model, tok = FastLanguageModel.from_pretrained("unsloth/Qwen2.5-0.5B", max_seq_length=1024)\n' +
      'trainer = SFTTrainer(model=model, args=SFTConfig(output_dir="o"))\n';
    assert.notEqual(setupOf('/w/t.py', unsloth).setup?.loss, 'chunked-nll');
  });

  it('a TRL YAML with SFT-only keys (trl sft --config) and the trl sft command line', () => {
    const yaml = 'model_name_or_path: Qwen/Qwen2.5-0.5B\npacking: false\nmax_length: 1024\n';
    assert.equal(setupOf('/w/sft.yaml', yaml).setup?.loss, 'chunked-nll');
    assert.equal(setupOf('/w/sft.yaml', `${yaml}loss_type: nll\n`).setup?.loss, 'full');
    const sh = 'trl sft --model_name_or_path Qwen/Qwen2.5-0.5B --max_length 1024 --output_dir o\n';
    assert.equal(setupOf('/w/run.sh', sh).setup?.loss, 'chunked-nll');
    assert.equal(setupOf('/w/run.sh', sh.replace('--output_dir', '--loss_type nll --output_dir')).setup?.loss, 'full');
  });

  it('a trl pin sets trl_version; before 1.7 the default is nll (the whole logits)', () => {
    const text = `from trl import SFTConfig\n${model}args = SFTConfig(output_dir="o")\n`;
    const old = setupOf('/w/src/train.py', text, new Map([['/w/requirements.txt', 'trl==1.6.0\n']]));
    assert.equal(old.setup?.trl_version, '1.6.0');
    assert.equal(old.setup?.loss, 'full');
    assert.deepEqual(old.provenance.trl_version, {
      kind: 'file',
      file: '/w/src/../requirements.txt',
      line: 1,
      key: 'trl',
    });
    const now = setupOf('/w/src/train.py', text, new Map([['/w/requirements.txt', 'trl==1.7.1\n']]));
    assert.equal(now.setup?.trl_version, '1.7.1');
    assert.equal(now.setup?.loss, 'chunked-nll');
  });
});
