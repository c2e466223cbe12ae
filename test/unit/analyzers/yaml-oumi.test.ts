// Oumi's training config (src/analyzers/yaml/oumi.ts) and its command lines (`oumi train -c`, `oumi distributed
// torchrun -m oumi train -c`): keys and defaults from oumi-ai/oumi@d8ed077 src/oumi/core/configs/params
// (per_device_train_batch_size 8, lora_r 8, lora_alpha 8, bnb_4bit_quant_type "fp4", enable_fsdp False).
// test/fixtures/oumi/qlora_train.yaml: Llama 3.1 8B QLoRA with TRL's SFT trainer, written for these tests.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeOumiYaml } from '../../../src/analyzers/yaml/oumi';
import { runFiles } from '../helpers';

const QLORA = fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/oumi/qlora_train.yaml'), 'utf8');

describe('Oumi training config', () => {
  it("a YAML with a section Oumi's TrainingConfig has not is a project's own config (foruniverse/llama3.2-1B-tool)", () => {
    // configs/sft_config.yaml (abridged): `model: model_name`, `training:` with Trainer keys, but LoRA, bf16 and
    // checkpointing under sections of the project's own (`lora:`, `optimization:`), which OmegaConf's merge into Oumi's
    // structured TrainingConfig (data, model, training, peft, fsdp, deepspeed) refuses: read by its names instead.
    const text =
      'model:\n  model_name: "Llama-3.2-1B-Instruct"\ntraining:\n  per_device_train_batch_size: 2\n' +
      '  gradient_accumulation_steps: 24\n  max_seq_length: 1024\noptimization:\n  optim: "paged_adamw_8bit"\n' +
      '  bf16: True\n  gradient_checkpointing: true\nlora:\n  lora_r: 16\n  lora_alpha: 32\n';
    assert.equal(detectFormat('sft_config.yaml', text), 'project-yaml');
    const r = runFiles({ '/o/sft_config.yaml': text }, '/o/sft_config.yaml');
    assert.deepEqual(
      [r.setup?.method, r.setup?.lora?.r, r.setup?.gradient_checkpointing, r.setup?.seq_len],
      ['lora', 16, 'full', 1024],
    );
  });

  it('QLoRA with TRL SFT: the model, 4 x 4,096 tokens, accumulation 8, NF4 nested, r 16, alpha by default 8', () => {
    assert.equal(detectFormat('qlora_train.yaml', QLORA), 'oumi-yaml');
    const r = runFiles({ '/o/qlora_train.yaml': QLORA }, '/o/qlora_train.yaml');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.equal(s.model, 'meta-llama/Llama-3.1-8B-Instruct');
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.gradient_accumulation_steps], [4, 4096, 8]);
    assert.deepEqual([s.method, s.quantization?.type, s.quantization?.double_quant], ['qlora', 'nf4', true]);
    assert.deepEqual(
      [s.lora?.r, s.lora?.alpha, s.lora?.target_modules],
      [16, 8, ['q_proj', 'k_proj', 'v_proj', 'o_proj']],
    );
    assert.deepEqual([s.weights_dtype, s.gradient_checkpointing, s.optimizer], ['bf16', 'full', 'adamw_fused']);
    const alpha = analyzeOumiYaml(QLORA).facts.find((f) => f.key === 'loraAlpha')!;
    assert.deepEqual([alpha.value, alpha.origin], [8, 'call-default']);
  });

  it("q_lora's 4-bit type is fp4 unless bnb_4bit_quant_type says (Oumi's default); FSDP with enable_fsdp", () => {
    const fp4 = analyzeOumiYaml(QLORA.replace('  bnb_4bit_quant_type: "nf4"\n', ''));
    const q = fp4.facts.find((f) => f.key === 'quantType')!;
    assert.deepEqual([q.value, q.origin], ['fp4', 'call-default']);
    const full = QLORA.replace(
      /\npeft:[\s\S]*$/,
      '\nfsdp:\n  enable_fsdp: True\n  sharding_strategy: "HYBRID_SHARD"\n  cpu_offload: True\n',
    ).replace('use_peft: True', 'use_peft: False');
    const f = analyzeOumiYaml(full);
    const v = (k: string) => f.facts.find((x) => x.key === k)?.value;
    assert.deepEqual(
      [v('method'), v('fsdp'), v('fsdpVersion'), v('fsdpOffload')],
      [undefined, 'hybrid_shard', 1, true],
    );
  });

  it("FSDP's backward prefetch and use_orig_params are Oumi's own defaults, handed to Accelerate (distributed.py)", () => {
    // oumi-ai/oumi@d8ed077: FSDPParams.backward_prefetch = BACKWARD_PRE, env FSDP_BACKWARD_PREFETCH; use_orig_params
    // false for PEFT without compile (_get_use_orig_params), env FSDP_USE_ORIG_PARAMS.
    const withFsdp = (extra: string) => `${QLORA}\nfsdp:\n  enable_fsdp: True\n${extra}`;
    const f = analyzeOumiYaml(withFsdp(''));
    const fact = (k: string) => f.facts.find((x) => x.key === k);
    assert.deepEqual(
      [fact('fsdpBackwardPrefetch')?.value, fact('fsdpBackwardPrefetch')?.origin],
      ['pre', 'call-default'],
    );
    assert.deepEqual([fact('fsdpUseOrigParams')?.value, fact('fsdpUseOrigParams')?.origin], [false, 'call-default']);
    const given = analyzeOumiYaml(withFsdp('  backward_prefetch: "BACKWARD_POST"\n  use_orig_params: True\n'));
    assert.equal(given.facts.find((x) => x.key === 'fsdpBackwardPrefetch')?.value, 'post');
    assert.equal(given.facts.find((x) => x.key === 'fsdpUseOrigParams')?.value, true);
    const compiled = analyzeOumiYaml(withFsdp('').replace('use_peft: True', 'use_peft: True\n  compile: True'));
    assert.equal(
      compiled.facts.find((x) => x.key === 'fsdpUseOrigParams'),
      undefined,
    );
  });

  it('the command lines: `oumi train -c` and `oumi distributed torchrun -m oumi train -c`, their overrides winning', () => {
    const files = {
      '/o/run.sh':
        'oumi distributed torchrun --nproc-per-node 4 -m oumi train -c qlora_train.yaml ' +
        '--training.per_device_train_batch_size 2\n',
      '/o/one.sh': 'oumi train -c qlora_train.yaml --model.model_max_length 2048\n',
      '/o/qlora_train.yaml': QLORA,
    };
    const r = runFiles(files, '/o/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual([r.setup.gpus_per_node, r.setup.micro_batch_size, r.setup.seq_len], [4, 2, 4096]);
    const one = runFiles(files, '/o/one.sh');
    assert.deepEqual([one.setup?.gpus_per_node, one.setup?.micro_batch_size, one.setup?.seq_len], [1, 4, 2048]);
  });
});
