// Versions a project pins in its dependency files, and how the pipeline uses them.
import { accelerateFsdpPatch } from '../../../src/analyzers/accelerate-fsdp';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { dependencyPins, findPins, installPins } from '../../../src/analyzers/pins';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { estimate } from '../../../src/core/estimate';

/** A reader over in-memory files, which resolves `dir/../` the way a path join does. */
function filesReader(files: Map<string, string>) {
  return {
    read: (p: string) => files.get(p.replace(/\/[^/]+\/\.\.\//g, '/')),
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
}

/** An Axolotl FSDP config over 8 GPUs, with a requirements.txt pinning `pin` beside it. */
function fsdpOverEight(text: string, pin: string) {
  return runPipeline([{ file: '/w/fsdp.yaml', text }], filesReader(new Map([['/w/requirements.txt', pin]])), {
    gpusPerNode: 8,
  });
}

describe('pins: transformers and torch versions from dependency files', () => {
  it('reads ==, ~= and an inclusive upper bound; a lower bound alone names no version', () => {
    assert.equal(findPins('transformers==4.46.3\n').transformers?.version, '4.46.3');
    assert.equal(findPins('transformers[torch]~=4.57.0\n').transformers?.version, '4.57.0');
    // LLaMA-Factory's requirements.txt style: pip installs the newest release the upper bound allows.
    assert.equal(findPins('transformers>=4.49.0,<=4.56.2,!=4.52.0\n').transformers?.version, '4.56.2');
    assert.equal(findPins('transformers>=4.45\n').transformers, undefined);
    assert.equal(findPins('axolotl[flash-attn]==0.4.0\n').axolotl?.version, '0.4.0');
    // An exclusive bound installs the release line below it (FlexCode29/financial-grpo requirements.txt:
    // transformers>=4.41.2,<4.54.0 installs 4.53.x); `<5` is transformers' last 4.x line, 4.57 (4.57.6 its last release).
    assert.equal(findPins('transformers>=4.41.2,<4.54.0\n').transformers?.version, '4.53');
    assert.equal(findPins('transformers<5\n').transformers?.version, '4.57');
    assert.equal(findPins('torch<2.1.3\n').torch?.version, '2.1.2');
    assert.equal(findPins('peft<1.0\n').peft, undefined);
    assert.equal(findPins('torch==2.1.1+cu118\n').torch?.version, '2.1.1');
    assert.equal(findPins('torch>=2.0\ntorch==1.13.1\n').torch?.version, '1.13.1');
    // Several requirements on one line, as a notebook's pip cell writes them
    // (duncanodhis/Fine_tune_LLama_2_with_15k_dataset): every one, not every other (the space between them was taken
    // as the first one's), and spaces around a comma between specifiers.
    const line = installPins(
      '!pip install -q accelerate==0.21.0 peft==0.4.0 bitsandbytes==0.40.2 transformers==4.31.0 trl==0.4.7\n',
    );
    assert.deepEqual(
      [
        line.accelerate?.version,
        line.peft?.version,
        line.bitsandbytes?.version,
        line.transformers?.version,
        line.trl?.version,
      ],
      ['0.21.0', '0.4.0', '0.40.2', '4.31.0', '0.4.7'],
    );
    assert.equal(findPins('transformers >= 4.30 , < 4.40\n').transformers?.version, '4.39');
    // Poetry's lines in pyproject.toml (sotopia-lab/sotopia-rl: `trl = "0.16.1"`): a bare version is that release, `^`
    // and `~` the newest of the line; a PEP 508 requirement beside them wins.
    const poetry = dependencyPins(
      'pyproject.toml',
      '[tool.poetry.dependencies]\ntrl = "0.16.1"\ntorch = "^2.1.0"\ntransformers = { version = "~4.46.0", extras = ["torch"] }\n',
    );
    assert.deepEqual(
      [poetry.trl?.version, poetry.torch?.version, poetry.transformers?.version],
      ['0.16.1', '2.1', '4.46'],
    );
    assert.equal(dependencyPins('requirements.txt', 'trl = "0.16.1"\n').trl, undefined);
    // PEP 508 puts specifiers in parentheses too (Ice-Moon-28/Mini-R1's pyproject.toml: "trl (==0.15.0)"); Poetry takes
    // `==` inside its string; a setup.py's requirement strings are requirements (an HF-style `_deps` list).
    assert.equal(
      findPins('dependencies = [\n  "trl (==0.15.0)",\n  "torch (>=2.5,<2.6)",\n]\n').trl?.version,
      '0.15.0',
    );
    assert.equal(findPins('"torch (>=2.5,<2.6)"').torch?.version, '2.5');
    assert.equal(
      dependencyPins('pyproject.toml', '[tool.poetry.dependencies]\ntrl = "==0.14.0"\n').trl?.version,
      '0.14.0',
    );
    assert.equal(
      dependencyPins('setup.py', '_deps = [\n    "transformers==4.48.3",\n    "trl>=0.14",\n]\n').transformers?.version,
      '4.48.3',
    );
  });

  it('finds them in pyproject.toml and environment.yml; not in comments, not in other packages', () => {
    const pyproject = '[project]\ndependencies = [\n  "accelerate>=1.0",\n  "transformers==4.57.1",\n]\n';
    assert.equal(findPins(pyproject).transformers?.version, '4.57.1');
    assert.equal(findPins('dependencies:\n  - pip:\n    - torch==2.4.0\n').torch?.version, '2.4.0');
    assert.deepEqual(findPins('# transformers==4.30.0\nsentence-transformers==2.2.2\ntorchvision==0.15.2\n'), {});
    // torchtune 0.1.1's requirements.txt pins torchao==0.1 beside torch.
    const tt = findPins('torch\ntorchao==0.1\n');
    assert.equal(tt.torchao?.version, '0.1');
    assert.equal(tt.torch, undefined);
    const p = findPins('accelerate\ntransformers == 4.40.0\n').transformers!;
    assert.equal('accelerate\ntransformers == 4.40.0\n'.slice(p.start, p.end).trim(), 'transformers == 4.40.0');
  });

  it('the pipeline takes the pin beside the config or above it, with its file and line; a version in the files wins', () => {
    const files = new Map<string, string>([['/w/requirements.txt', 'peft\ntransformers==4.57.1\ntorch==2.4.0\n']]);
    const reader = filesReader(files);
    const text = 'model: mistralai/Mixtral-8x7B-v0.1\nmethod: qlora\nquantization: { bits: 4 }\n';
    const r = runPipeline([{ file: '/w/configs/run.vram.yaml', text }], reader, {});
    assert.equal(r.setup?.transformers_version, '4.57.1');
    assert.equal(r.setup?.pytorch_version, '2.4.0');
    assert.deepEqual(r.provenance.transformers_version, {
      kind: 'file',
      file: '/w/configs/../requirements.txt',
      line: 2,
      key: 'transformers',
    });
    const pinned = runPipeline(
      [{ file: '/w/configs/run.vram.yaml', text: `${text}transformers_version: "5.1"\n` }],
      reader,
      {},
    );
    assert.equal(pinned.setup?.transformers_version, '5.1');
    assert.equal(pinned.setup?.pytorch_version, '2.4.0');
  });

  it('also from the folders of a script the launcher runs from a subproject of its own (Deep-Agent/R1-V)', () => {
    // src/scripts/run_grpo.sh runs src/r1-v/src/open_r1/grpo.py, whose src/r1-v/setup.py pins trl==0.14.0: two
    // folders up from the script, three from the launcher's folder's parent, out of the launcher's reach.
    const files = new Map<string, string>([
      ['/w/src/scripts/run_grpo.sh', 'torchrun --nproc_per_node 8 src/open_r1/grpo.py --output_dir o\n'],
      [
        '/w/src/r1-v/src/open_r1/grpo.py',
        'from trl import GRPOConfig, GRPOTrainer\n' +
          'GRPOTrainer(model="Qwen/Qwen2.5-7B-Instruct", reward_funcs=[], args=GRPOConfig(output_dir="o")).train()\n',
      ],
      ['/w/src/r1-v/setup.py', 'from setuptools import setup\n_deps = [\n    "trl==0.14.0",\n]\n'],
    ]);
    const reader = {
      read: (p: string) => files.get(path.posix.normalize(p)),
      join: (from: string, rel: string) =>
        rel === 'src/open_r1/grpo.py' ? '/w/src/r1-v/src/open_r1/grpo.py' : filesReader(files).join(from, rel),
    };
    const r = runPipeline(
      [{ file: '/w/src/scripts/run_grpo.sh', text: files.get('/w/src/scripts/run_grpo.sh')! }],
      reader,
      {},
    );
    assert.ok(r.files.some((f) => f.file.endsWith('open_r1/grpo.py')));
    assert.equal(r.setup?.trl_version, '0.14.0');
    assert.deepEqual(r.provenance.trl_version, {
      kind: 'file',
      file: '/w/src/r1-v/src/open_r1/../../setup.py',
      line: 3,
      key: 'trl',
    });
  });

  it("a transformers pin older than the model's code is not the run's: a warning at the pin, the model's first release taken", () => {
    // IntMeGroup/DFBench: requirements.txt:26 `transformers==4.37.2` (for its InternVL code) beside a Qwen2.5-VL-7B
    // fine-tune, whose code came with transformers 4.49; read as 4.37 it got 4.37's per-layer rotary tables.
    const files = new Map<string, string>([['/w/requirements.txt', 'torch==2.4.0\ntransformers==4.37.2\n']]);
    const text = 'model: Qwen/Qwen2.5-VL-7B-Instruct\nmethod: lora\n';
    const r = runPipeline([{ file: '/w/run.vram.yaml', text }], filesReader(files), {});
    assert.equal(r.setup?.transformers_version, '4.49');
    assert.match(
      r.provenance.transformers_version?.kind === 'default' ? (r.provenance.transformers_version.note ?? '') : '',
      /first release with the model's code; 4\.37\.2, pinned in requirements\.txt:2, predates it/,
    );
    assert.equal(r.setup?.pytorch_version, '2.4.0');
    const p = r.problems.find((x) => x.code === 'no-effect' && x.key === 'transformers');
    assert.deepEqual([p?.file, p?.line, p?.severity], ['/w/requirements.txt', 2, 'warning']);
    assert.match(
      p?.message ?? '',
      /^transformers 4\.37\.2 predates qwen2_5_vl, whose code came with transformers 4\.49/,
    );
    // A model the release has keeps the pin.
    const llama = runPipeline(
      [{ file: '/w/run.vram.yaml', text: text.replace('Qwen/Qwen2.5-VL-7B-Instruct', 'meta-llama/Llama-2-7b-hf') }],
      filesReader(files),
      {},
    );
    assert.equal(llama.setup?.transformers_version, '4.37.2');
  });

  it('takes a DeepSpeed pin under ZeRO (when its buckets are made depends on it), not without ZeRO', () => {
    const files = new Map<string, string>([['/w/requirements.txt', 'deepspeed==0.14.4\ntransformers==4.44.2\n']]);
    const reader = filesReader(files);
    const text = 'model: meta-llama/Llama-2-7b-hf\nmethod: lora\ngpus_per_node: 2\n';
    const zero = runPipeline([{ file: '/w/run.vram.yaml', text: `${text}zero_stage: 2\n` }], reader, {});
    assert.equal(zero.setup?.deepspeed_version, '0.14.4');
    assert.deepEqual(zero.provenance.deepspeed_version, {
      kind: 'file',
      file: '/w/requirements.txt',
      line: 1,
      key: 'deepspeed',
    });
    const ddp = runPipeline([{ file: '/w/run.vram.yaml', text }], reader, {});
    assert.equal(ddp.setup?.deepspeed_version, undefined);
  });

  it("takes an Accelerate pin under FSDP: before 1.11 the HF Trainer's no_sync left FSDP2 reducing every micro-batch", () => {
    // huggingface/accelerate#3762 (v1.11.0, October 2025): Accelerator.no_sync looked the model up for a no_sync
    // method, which an FSDP2 module lacks, and did nothing; it now calls set_requires_gradient_sync(False).
    const axolotl = [
      'base_model: meta-llama/Llama-3.1-8B',
      'bf16: true',
      'micro_batch_size: 1',
      'gradient_accumulation_steps: 4',
      'sequence_len: 2048',
      'fsdp_version: 2',
      'fsdp_config:',
      '  offload_params: false',
      '  auto_wrap_policy: TRANSFORMER_BASED_WRAP',
      '  transformer_layer_cls_to_wrap: LlamaDecoderLayer',
      '',
    ].join('\n');
    const run = (pin: string) => fsdpOverEight(axolotl, pin);
    const old = run('accelerate==1.10.1\n');
    assert.equal(old.setup?.accelerate_version, '1.10.1');
    assert.equal(old.setup?.fsdp_no_sync, false);
    assert.match(
      (old.provenance.fsdp_no_sync as { note?: string } | undefined)?.note ?? '',
      /before 1\.11 \(accelerate 1\.10\.1 pinned\)/,
    );
    assert.equal(run('accelerate==1.13.0\n').setup?.fsdp_no_sync, true);
    assert.equal(run('').setup?.fsdp_no_sync, true);
    // From 1.14 (huggingface/accelerate#4015) Accelerate's fsdp2_prepare_model gives FSDP2 a tail unit (final norm +
    // head kept from the forward to the backward, the embeddings a unit of their own), unless a file says.
    const stated = { masterWeightsStated: false, noSyncFromDefault: false };
    const fsdp2 = (accelerate_version?: string) =>
      ({ fsdp: 'full_shard', fsdp_version: 2, ...(accelerate_version ? { accelerate_version } : {}) }) as const;
    assert.equal(accelerateFsdpPatch(fsdp2('1.13.0'), stated, 'trl').fsdp_tail_unit, undefined);
    assert.equal(accelerateFsdpPatch(fsdp2('1.14.0'), stated, 'trl').fsdp_tail_unit, true);
    assert.equal(accelerateFsdpPatch(fsdp2(), stated, 'hf-trainer').fsdp_tail_unit, true);
    // Axolotl's FSDP2 runs through its own fsdp2_prepare_model (axolotl-ai-cloud/axolotl@d6e4a61), which makes no
    // such unit.
    assert.equal(accelerateFsdpPatch(fsdp2(), stated, 'axolotl').fsdp_tail_unit, undefined);
    assert.equal(run('accelerate==1.14.0\n').setup?.fsdp_tail_unit, undefined);
  });

  it("Accelerate's FSDP preparation upcasts a 16-bit model's trainable parameters to fp32 under mixed precision", () => {
    // accelerator.py prepare_model (FSDP1, huggingface/accelerate#2674, 0.30) and utils/fsdp_utils.py
    // fsdp2_prepare_model (FSDP2 from 1.6): "we follow DeepSpeed's strategy to hold the parameters in full precision".
    const axolotl = (version: 1 | 2) =>
      [
        'base_model: meta-llama/Llama-3.1-8B',
        'bf16: true',
        'micro_batch_size: 1',
        'sequence_len: 2048',
        `fsdp_version: ${version}`,
        'fsdp_config:',
        '  auto_wrap_policy: TRANSFORMER_BASED_WRAP',
        '  transformer_layer_cls_to_wrap: LlamaDecoderLayer',
        '',
      ].join('\n');
    const run = (version: 1 | 2, pin: string) => fsdpOverEight(axolotl(version), pin);
    const current = run(1, '');
    assert.equal(current.setup?.weights_dtype, 'bf16');
    assert.equal(current.setup?.master_weights, true);
    assert.match((current.provenance.master_weights as { note?: string }).note ?? '', /upcasts the trainable/);
    assert.equal(run(1, 'accelerate==0.30.1\n').setup?.master_weights, true);
    assert.equal(run(1, 'accelerate==0.29.3\n').setup?.master_weights, false);
    // FSDP2: Accelerate's fsdp2_prepare_model upcasts from its first release, 1.6.
    const stated = { masterWeightsStated: false, noSyncFromDefault: false };
    const half = { fsdp: 'full_shard', fsdp_version: 2, weights_dtype: 'bf16', mixed_precision: 'bf16' } as const;
    assert.equal(accelerateFsdpPatch(half, stated, 'trl').master_weights, true);
    assert.equal(
      accelerateFsdpPatch({ ...half, accelerate_version: '1.5.2' }, stated, 'trl').master_weights,
      undefined,
    );
    // Axolotl's own FSDP2 preparation upcasts nothing (monkeypatch/accelerate/fsdp2.py): the bf16 shards stay bf16.
    const own = run(2, '');
    assert.equal(own.setup?.master_weights, false);
    assert.match((own.provenance.master_weights as { note?: string }).note ?? '', /Axolotl's FSDP2 preparation/);
    // Estimated: the fp32 shard is the master, the 16-bit copy exists only gathered (20.9 -> 4 B per parameter / 8).
    const e = estimate(current.setup as Parameters<typeof estimate>[0]);
    assert.ok(e.ok);
    const master = e.estimate.perGpu.components.find((c) => c.label === 'fp32 master weights');
    assert.equal(master?.bytes, (8_030_261_248 * 4) / 8);
  });

  it("takes a torchao pin for a torchtune config (its NF4 weights are torchao's), not for other trainers", () => {
    const files = new Map<string, string>([['/w/requirements.txt', 'torch==2.2.2\ntorchao==0.1\n']]);
    const reader = filesReader(files);
    const tt = 'model:\n  _component_: torchtune.models.llama2.qlora_llama2_7b\nbatch_size: 2\ndtype: bf16\n';
    const r = runPipeline([{ file: '/w/configs/7B_qlora.yaml', text: tt }], reader, {});
    assert.equal(r.setup?.torchao_version, '0.1');
    assert.deepEqual(r.provenance.torchao_version, {
      kind: 'file',
      file: '/w/configs/../requirements.txt',
      line: 2,
      key: 'torchao',
    });
    const other = runPipeline(
      [
        {
          file: '/w/configs/run.vram.yaml',
          text: 'model: meta-llama/Llama-2-7b-hf\nmethod: qlora\nquantization: { bits: 4 }\n',
        },
      ],
      reader,
      {},
    );
    assert.equal(other.setup?.torchao_version, undefined);
    assert.equal(other.setup?.pytorch_version, '2.2.2');
  });

  // LitGPT's config hub: config_hub/finetune/<model>/qlora.yaml, three folders below the pyproject.toml that pinned
  // bitsandbytes==0.42.0 (Lightning-AI/litgpt@5895df1). Its table measured 13.68 GB for Llama-2-7B QLoRA, which the
  // estimate reaches only with that release's kept inputs (test/unit/analyzers/yaml-litgpt.test.ts).
  const LITGPT_QLORA =
    'checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\nprecision: bf16-true\nquantize: bnb.nf4\n' +
    'devices: 1\nlora_r: 32\nlora_query: true\nlora_value: true\n' +
    'train:\n  micro_batch_size: 2\n  max_seq_length: 512\n';

  it('takes a PEFT pin: from 0.6 to 0.11 LoRA weights take the base layer dtype, fp32 before and after', () => {
    // huggingface/peft@v0.6.2 LoraLayer.update_layer: self.to(weight.device, dtype=weight.dtype); v0.5.0 only moved
    // them (nn.Linear in torch's default fp32); 0.12.0's get_peft_model upcasts them (autocast_adapter_dtype=True).
    const text =
      'base_model: meta-llama/Llama-2-7b-hf\nadapter: lora\nlora_r: 16\nlora_alpha: 32\n' +
      'lora_target_modules: [q_proj, v_proj]\nbf16: true\nsequence_len: 2048\nmicro_batch_size: 1\n';
    const withPeft = (pin: string, config = text) =>
      runPipeline([{ file: '/w/lora.yaml', text: config }], filesReader(new Map([['/w/requirements.txt', pin]])), {});
    const mid = withPeft('peft==0.10.0\n');
    assert.equal(mid.setup?.peft_version, '0.10.0');
    assert.equal(mid.setup?.weights_dtype, 'bf16');
    assert.equal(mid.setup?.lora?.dtype, 'bf16');
    assert.deepEqual(mid.provenance.peft_version, { kind: 'file', file: '/w/requirements.txt', line: 1, key: 'peft' });
    assert.equal(withPeft('peft==0.13.2\n').setup?.lora?.dtype, 'fp32');
    assert.equal(withPeft('peft==0.5.0\n').setup?.lora?.dtype, 'fp32');
    // With load_in_4bit and adapter: lora, Axolotl loads no 4-bit weights and prepare_model_for_kbit_training casts
    // the layers to fp32 before the adapters are made: they take fp32.
    assert.equal(withPeft('peft==0.10.0\n', `${text}load_in_4bit: true\n`).setup?.lora?.dtype, 'fp32');
    // Over a 4-bit base (adapter: qlora) the weight is an integer tensor: PEFT only moves the adapters, which stay fp32.
    const qlora = `${text.replace('adapter: lora', 'adapter: qlora')}load_in_4bit: true\n`;
    assert.equal(withPeft('peft==0.10.0\n', qlora).setup?.lora?.dtype, 'fp32');
    // Llama-2-7B, r 16 on q and v: 32 x 2 x 16 x (4096 + 4096) = 8,388,608 adapter parameters, 2 B each instead of 4.
    const e = estimate(mid.setup!);
    assert.ok(e.ok);
    const adapters = e.estimate.perGpu.components.find((c) => c.label === 'LoRA adapter weights');
    assert.equal(adapters?.bytes, 2 * 8_388_608);
  });

  it('an Axolotl pin before 0.13 loads load_in_4bit beside adapter: lora in 4 bits: FP4 without double quantization', () => {
    // axolotl-ai-cloud/axolotl@aa1240acd~1 src/axolotl/loaders/model.py _set_quantization_config passed
    // model_kwargs["load_in_4bit"] = cfg.load_in_4bit to from_pretrained, whose BitsAndBytesConfig defaults are FP4
    // without double quantization; aa1240acd (#3205, first in v0.13.0) builds the 4-bit config for adapter: qlora only.
    const text =
      'base_model: meta-llama/Llama-2-7b-hf\nadapter: lora\nload_in_4bit: true\nlora_r: 16\nlora_alpha: 32\n' +
      'lora_target_linear: true\nbf16: true\nsequence_len: 2048\nmicro_batch_size: 1\ngradient_accumulation_steps: 1\n';
    const withPin = (pin: string) =>
      runPipeline([{ file: '/w/lora.yml', text }], filesReader(new Map([['/w/requirements.txt', pin]])), {});
    const old = withPin('torch==2.1.2\naxolotl[flash-attn,deepspeed]==0.12.2\n');
    assert.equal(old.setup?.method, 'qlora');
    assert.deepEqual(old.setup?.quantization, { bits: 4, type: 'fp4', double_quant: false, scope: 'all-linear' });
    assert.equal(old.setup?.kbit_upcast, 'none');
    const note = old.problems.find((p) => p.key === 'load_in_4bit');
    assert.equal(note?.severity, 'info');
    assert.equal(note?.code, 'pinned-release');
    assert.match(note?.message ?? '', /Axolotl 0\.12\.2 \(pinned at \/w\/requirements\.txt:2\)/);
    assert.equal(note && text.slice(note.start, note.end), 'load_in_4bit');
    // Llama-2-7B's decoder linears: 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 weights, each 0.5 B of codes
    // and an fp32 absmax per 64: 6,476,005,376 x 0.5625 = 3,642,753,024 B.
    const e = estimate(old.setup!);
    assert.ok(e.ok);
    const base = e.estimate.perGpu.components.find((c) => c.label === '4-bit base weights (fp4)');
    assert.equal(base?.bytes, 3_642_753_024);
    // From 0.13 the model loads unquantized: the warning at the key stays, and so does a run without an Axolotl pin.
    for (const pin of ['axolotl==0.13.0\n', 'transformers==4.46.3\n']) {
      const now = withPin(pin);
      assert.deepEqual(
        [now.setup?.method, now.setup?.quantization, now.setup?.kbit_upcast],
        ['lora', undefined, 'all'],
      );
      assert.equal(now.problems.find((p) => p.key === 'load_in_4bit')?.code, 'no-effect');
    }
  });

  it('looks for the pin up to the repository top when the reader knows it (a config three folders down)', () => {
    const files = new Map<string, string>([
      ['/repo/pyproject.toml', 'dependencies = [\n  "bitsandbytes==0.42.0",\n]\n'],
    ]);
    const above = (from: string): string[] => {
      const out: string[] = [];
      for (let d = from.slice(0, from.lastIndexOf('/')); d.startsWith('/repo'); d = d.slice(0, d.lastIndexOf('/')))
        out.push(d);
      return out;
    };
    const reader = {
      ...filesReader(files),
      lookup: (from: string, rel: string) => above(from).map((d) => `${d}/${rel}`),
    };
    const file = '/repo/config_hub/finetune/llama-2-7b/qlora.yaml';
    const r = runPipeline([{ file, text: LITGPT_QLORA }], reader, {});
    assert.equal(r.setup?.bitsandbytes_version, '0.42.0');
    assert.deepEqual(r.provenance.bitsandbytes_version, {
      kind: 'file',
      file: '/repo/pyproject.toml',
      line: 2,
      key: 'bitsandbytes',
    });
    // Without the reader's lookup, two folders up as before: not found.
    const fixed = runPipeline([{ file, text: LITGPT_QLORA }], { read: reader.read, join: reader.join }, {});
    assert.equal(fixed.setup?.bitsandbytes_version, undefined);
  });

  // philschmid/deep-learning-pytorch-huggingface training/fsdp-qlora-distributed-llama3.ipynb installs its libraries
  // in a cell: `%pip install  --upgrade "transformers==4.40.0" "datasets==2.18.0" ... "trl==0.8.6" "peft==0.10.0"`.
  it("takes the pins of the run's own pip install lines (a notebook's %pip, a launcher's pip) before dependency files", () => {
    const line =
      '%pip install  --upgrade "transformers==4.40.0" "datasets==2.18.0" "accelerate==0.29.3" "trl==0.8.6"\n';
    const text = `# setup\n${line}# train\n`;
    const pins = installPins(text);
    assert.equal(pins.transformers?.version, '4.40.0');
    assert.equal(pins.trl?.version, '0.8.6');
    assert.equal(text.slice(pins.transformers!.start, pins.transformers!.end), 'transformers==4.40.0');
    // Only install lines count: a version named in prose is not a pin.
    assert.deepEqual(installPins('# works with transformers==4.30.0\nimport torch\n'), {});
    const launcher = '!pip install -q transformers==4.36.2\ntorchrun --nproc_per_node 2 train.py\n';
    assert.equal(installPins(launcher).transformers?.version, '4.36.2');
  });

  it("a Dockerfile's pip install lines pin what requirements.txt leaves open; its base image's tag does not", () => {
    // FlexCode29/financial-grpo: requirements.txt pins transformers<4.54.0, its Dockerfile `RUN pip install trl==0.16.1
    // --no-dependencies`: TRL 0.16 configs left gradient checkpointing off (TRL 0.22 turned it on, huggingface/trl#3510).
    const script =
      'from trl import GRPOConfig, GRPOTrainer\n' +
      'args = GRPOConfig(output_dir="o", per_device_train_batch_size=1, bf16=True)\n' +
      'GRPOTrainer(model="Qwen/Qwen2.5-0.5B", reward_funcs=[f], args=args).train()\n';
    const docker =
      'FROM huggingface/transformers-pytorch-gpu:4.41.0\nRUN pip install --no-cache-dir -r requirements.txt\n' +
      'RUN pip install trl==0.16.1  --no-dependencies\n';
    const files = new Map([
      ['/w/requirements.txt', 'transformers>=4.41.2,<4.54.0\n'],
      ['/w/Dockerfile', docker],
    ]);
    const r = runPipeline([{ file: '/w/train.py', text: script }], filesReader(files), {});
    assert.equal(r.setup?.trl_version, '0.16.1');
    assert.equal(r.setup?.transformers_version, '4.53');
    assert.equal(r.setup?.gradient_checkpointing, 'none');
    const p = r.provenance.trl_version;
    assert.deepEqual(p?.kind === 'file' ? [p.file, p.line] : p, ['/w/Dockerfile', 3]);
  });

  it("a README's pip install lines pin what no dependency file does; a version in its prose does not", () => {
    // mwill20/CLI-Tuner-style setup sections: `pip install trl==0.16.1` in the README beside the script (TRL 0.16 left
    // gradient checkpointing off: the same run as the Dockerfile case above).
    const script =
      'from trl import GRPOConfig, GRPOTrainer\n' +
      'args = GRPOConfig(output_dir="o", per_device_train_batch_size=1, bf16=True)\n' +
      'GRPOTrainer(model="Qwen/Qwen2.5-0.5B", reward_funcs=[f], args=args).train()\n';
    const readme = '# Setup\n\nTested with trl==0.12.0.\n\n```bash\npip install "trl==0.16.1" peft\n```\n';
    const r = runPipeline(
      [{ file: '/w/train.py', text: script }],
      filesReader(new Map([['/w/README.md', readme]])),
      {},
    );
    assert.equal(r.setup?.trl_version, '0.16.1');
    const p = r.provenance.trl_version;
    assert.deepEqual(p?.kind === 'file' ? [p.file, p.line] : p, ['/w/README.md', 6]);
  });

  // databricks/databricks-ml-examples llm-models/llamav2/llamav2-70b/06_fine_tune_qlora.py, a Databricks notebook kept
  // as Python source: `# MAGIC %pip install bitsandbytes==0.40.1 einops==0.6.1 trl==0.4.7` in its first cells.
  it("a Databricks notebook's Python source: its # MAGIC %pip install cells are the run's; another script's comments are not", () => {
    const body =
      '# MAGIC %pip install bitsandbytes==0.40.1 einops==0.6.1 trl==0.4.7\n' +
      '# MAGIC %pip install torch==2.0.1 accelerate==0.21.0 transformers==4.31.0\n' +
      '# COMMAND ----------\n' +
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype="float16")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)\n';
    const run = (text: string) => runPipeline([{ file: '/w/nb.py', text }], filesReader(new Map()), {});
    const databricks = run(`# Databricks notebook source\n${body}`);
    // Only the pins the run needs are taken (no TRL trainer here: no trl_version).
    assert.equal(databricks.setup?.transformers_version, '4.31.0');
    assert.equal(databricks.provenance.transformers_version?.kind, 'file');
    assert.equal(run(body).setup?.transformers_version, undefined);
  });

  // `evaluation_strategy` is TrainingArguments' name before 4.41; later releases have no such field.
  it('a config that passes evaluation_strategy runs transformers 4.45 or earlier: an assumption a pin overrides', () => {
    const yaml = (extra: string) =>
      'model_name_or_path: meta-llama/Llama-2-7b-hf\nper_device_train_batch_size: 1\nevaluation_strategy: "no"\n' +
      extra;
    const dated = runPipeline([{ file: '/w/args.yaml', text: yaml('') }], filesReader(new Map()), {});
    assert.equal(dated.setup?.transformers_version, '4.45');
    assert.equal(dated.provenance.transformers_version?.kind, 'default');
    const e = estimate(dated.setup!, { provenance: dated.provenance });
    assert.ok(e.ok);
    assert.match(
      e.estimate.assumptions.find((a) => a.key === 'transformers_version')?.source ?? '',
      /4\.45 or earlier/,
    );
    const pinned = runPipeline(
      [{ file: '/w/args.yaml', text: yaml('') }],
      filesReader(new Map([['/w/requirements.txt', 'transformers==4.38.2\n']])),
      {},
    );
    assert.equal(pinned.setup?.transformers_version, '4.38.2');
    const current = runPipeline(
      [{ file: '/w/args.yaml', text: yaml('').replace('evaluation_strategy', 'eval_strategy') }],
      filesReader(new Map()),
      {},
    );
    assert.equal(current.setup?.transformers_version, undefined);
  });

  it('Trainer(tokenizer=...), which transformers 5 removed, dates the run to the last 4.x: fp32 weights without a dtype', () => {
    // transformers 4.46 renamed Trainer's tokenizer processing_class; 5.0's Trainer.__init__ takes no tokenizer. A
    // continued pre-training script of that shape (from_pretrained without a dtype, Trainer(model, tokenizer=...)).
    const script = (trainer: string) =>
      'from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments\n' +
      'tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)\n' +
      `${trainer}\n` +
      'trainer.train()\n';
    const run = (text: string, files = new Map<string, string>()) =>
      runPipeline([{ file: '/w/train.py', text }], filesReader(files), {});
    const dated = run(script('trainer = Trainer(model=model, args=args, tokenizer=tok)'));
    assert.equal(dated.setup?.transformers_version, '4.57');
    assert.equal(dated.setup?.weights_dtype, 'fp32');
    assert.match(
      dated.provenance.transformers_version?.kind === 'default'
        ? (dated.provenance.transformers_version.note ?? '')
        : '',
      /5\.0 removed/,
    );
    // processing_class= is no evidence; a pin wins; a subclass of the script's own may take tokenizer itself.
    assert.equal(
      run(script('trainer = Trainer(model=model, args=args, processing_class=tok)')).setup?.transformers_version,
      undefined,
    );
    const pinned = run(
      script('trainer = Trainer(model=model, args=args, tokenizer=tok)'),
      new Map([['/w/requirements.txt', 'transformers==4.44.2\n']]),
    );
    assert.equal(pinned.setup?.transformers_version, '4.44.2');
    const own = script(
      'class MyTrainer(Trainer):\n    pass\ntrainer = MyTrainer(model=model, args=args, tokenizer=tok)',
    );
    assert.equal(run(own).setup?.transformers_version, undefined);
  });

  it("the HF Trainer before transformers 5 under Accelerate's FSDP activation_checkpointing leaves use_cache on", () => {
    // transformers turns use_cache off only under its own gradient checkpointing; Accelerate's activation_checkpointing
    // is torch's checkpoint_wrapper, and TrainingArguments.use_cache (off) came with 5.0. meta-llama/llama-cookbook#165
    // measured the cache on Llama-2-7B under FSDP: about 4 GB of activation memory, the peak at the end of the forward.
    const fsdp =
      'distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n' +
      '  fsdp_activation_checkpointing: true\n  fsdp_sharding_strategy: FULL_SHARD\n';
    const script =
      'from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype="bfloat16")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=4, bf16=True)\n' +
      'Trainer(model=model, args=args).train()\n';
    const run = (pin: string, text = script) =>
      runPipeline(
        [{ file: '/w/run.sh', text: 'accelerate launch --config_file fsdp.yaml train.py\n' }],
        filesReader(
          new Map([
            ['/w/fsdp.yaml', fsdp],
            ['/w/train.py', text],
            ['/w/requirements.txt', pin],
          ]),
        ),
        {},
      );
    const four = run('transformers==4.44.2\n');
    assert.deepEqual([four.setup?.checkpoint_wrapper, four.setup?.use_cache], [true, true]);
    assert.match(
      four.provenance.use_cache?.kind === 'default' ? (four.provenance.use_cache.note ?? '') : '',
      /left on under transformers 4\.44\.2/,
    );
    // transformers 5's Trainer turns it off; a script that turns it off itself wins.
    assert.equal(run('transformers==5.1.0\n').setup?.use_cache, false);
    const off = run(
      'transformers==4.44.2\n',
      script.replace('torch_dtype="bfloat16"', 'torch_dtype="bfloat16", use_cache=False'),
    );
    assert.equal(off.setup?.use_cache, false);
  });

  it('from_pretrained without a dtype loads float32 under a transformers 4 pin, the checkpoint dtype under 5', () => {
    const script =
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)\n';
    const run = (files: Map<string, string>) =>
      runPipeline([{ file: '/w/train.py', text: script }], filesReader(files), {});
    assert.equal(run(new Map()).setup?.weights_dtype, 'fp16');
    const four = run(new Map([['/w/requirements.txt', 'transformers==4.44.2\n']]));
    assert.equal(four.setup?.weights_dtype, 'fp32');
    assert.match(
      four.provenance.weights_dtype?.kind === 'default' ? (four.provenance.weights_dtype.note ?? '') : '',
      /float32 under transformers 4\.44/,
    );
  });

  it("a LoRA base the script loads without a dtype follows the same rule under bf16 training, not the recipes' habit", () => {
    // FlexCode29/financial-grpo: train_easy.py loads Llama-3.1-8B without a dtype, trains LoRA with bf16=True, and its
    // requirements.txt pins transformers>=4.41.2,<4.54.0 (a 4.53 release): float32 weights, 4 B a parameter.
    const script =
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'from peft import LoraConfig, get_peft_model\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)\n';
    const run = (files: Map<string, string>) =>
      runPipeline([{ file: '/w/train.py', text: script }], filesReader(files), {});
    // transformers 5: the checkpoint's dtype (meta-llama/Llama-2-7b-hf stores float16), not a bf16 guess.
    assert.equal(run(new Map()).setup?.weights_dtype, 'fp16');
    const four = run(new Map([['/w/requirements.txt', 'transformers>=4.41.2,<4.54.0\n']]));
    assert.equal(four.setup?.weights_dtype, 'fp32');
    assert.equal(four.setup?.transformers_version, '4.53');
    assert.equal(four.setup?.mixed_precision, 'bf16');
  });

  it('torch_dtype from an option that defaults to None, which no launch line sets, is no dtype: the same rule', () => {
    // princeton-nlp/LESS less/train/train.py: `from_pretrained(..., torch_dtype=model_args.torch_dtype)`, the field's
    // default None (model_arguments.py:54), LoRA under --bf16 True: fp32 under transformers 4 (26.6 GiB as bf16
    // against 51.5 GiB).
    const script = [
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, TrainingArguments',
      'from peft import LoraConfig, get_peft_model',
      '@dataclass',
      'class ModelArguments:',
      '    torch_dtype: Optional[str] = field(default=None)',
      'model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()',
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=model_args.torch_dtype)',
      'model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))',
      '',
    ].join('\n');
    const launch = (flags: string) => `python train.py --output_dir o --bf16 True${flags}\n`;
    const run = (flags: string, pin: string) => {
      const files = new Map([
        ['/w/run.sh', launch(flags)],
        ['/w/train.py', script],
        ['/w/requirements.txt', pin],
      ]);
      return runPipeline([{ file: '/w/run.sh', text: launch(flags) }], filesReader(files), {});
    };
    assert.equal(run('', 'transformers==4.45.2\n').setup?.weights_dtype, 'fp32');
    assert.equal(run('', '').setup?.weights_dtype, 'fp16');
    assert.equal(run(' --torch_dtype bfloat16', 'transformers==4.45.2\n').setup?.weights_dtype, 'bf16');
  });

  it('torch_dtype="auto" is the checkpoint\'s dtype under any pin, located at the keyword (xyjigsaw/finetune-Qwen2-VL)', () => {
    // transformers modeling_utils.py: "auto" reads config.torch_dtype (meta-llama/Llama-2-7b-hf stores float16), which
    // a transformers 4 pin does not change; the file says it, so it is no default of any tool.
    const script =
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype="auto")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)\n';
    const r = runPipeline(
      [{ file: '/w/train.py', text: script }],
      filesReader(new Map([['/w/requirements.txt', 'transformers==4.32.0\n']])),
      {},
    );
    assert.equal(r.setup?.weights_dtype, 'fp16');
    assert.deepEqual(r.provenance.weights_dtype, { kind: 'file', file: '/w/train.py', line: 2, key: 'torch_dtype' });
    // The same in a launch flag.
    const flag = runPipeline(
      [
        {
          file: '/w/run.sh',
          text: 'python train.py --model_name_or_path meta-llama/Llama-2-7b-hf --torch_dtype auto\n',
        },
      ],
      filesReader(new Map([['/w/requirements.txt', 'transformers==4.32.0\n']])),
      {},
    );
    assert.equal(flag.setup?.weights_dtype, 'fp16');
  });

  it("the Trainer's default attention is SDPA from transformers 4.36, eager under an earlier pin", () => {
    // transformers 4.36 made SDPA the default attn_implementation; a run pinned before it materializes the attention
    // weights of every head. A script that names its attention keeps it.
    const script =
      'from transformers import AutoModelForCausalLM, TrainingArguments\n' +
      'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' +
      'args = TrainingArguments(output_dir="o", per_device_train_batch_size=1)\n';
    const run = (pin: string, text = script) =>
      runPipeline([{ file: '/w/train.py', text }], filesReader(new Map([['/w/requirements.txt', pin]])), {});
    const old = run('transformers==4.35.2\n');
    assert.equal(old.setup?.attention, 'eager');
    assert.match(
      old.provenance.attention?.kind === 'default' ? (old.provenance.attention.note ?? '') : '',
      /transformers 4\.35\.2 runs the eager attention \(sdpa is the default from 4\.36\)/,
    );
    assert.equal(run('transformers==4.36.0\n').setup?.attention, 'sdpa');
    const named = script.replace(
      '"meta-llama/Llama-2-7b-hf")',
      '"meta-llama/Llama-2-7b-hf", attn_implementation="sdpa")',
    );
    assert.equal(run('transformers==4.35.2\n', named).setup?.attention, 'sdpa');
    // transformers' is_torch_sdpa_available wants torch>=2.1.1 (utils/import_utils.py): meta-math/MetaMath@fe667b1
    // pins torch==2.0.1 beside transformers>=4.34.
    const oldTorch = run('torch==2.0.1\ntransformers>=4.34\n');
    assert.equal(oldTorch.setup?.attention, 'eager');
    assert.match(
      oldTorch.provenance.attention?.kind === 'default' ? (oldTorch.provenance.attention.note ?? '') : '',
      /PyTorch 2\.0\.1 runs the eager attention: transformers takes SDPA from torch 2\.1\.1 on/,
    );
    assert.equal(run('torch==2.1.1\ntransformers==4.36.0\n').setup?.attention, 'sdpa');
  });

  it("so for the tools that load through transformers: LLaMA-Factory's default attention under torch 1.13.1", () => {
    // liuxiaohao-xn/llama-factory-tfr (a vendored LLaMA-Factory of November 2023) pins torch==1.13.1: its
    // flash_attn: auto keeps transformers' default, which is eager there.
    const yaml =
      'model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\ndo_train: true\nfinetuning_type: lora\n' +
      'lora_target: q_proj,v_proj\ncutoff_len: 1024\nper_device_train_batch_size: 2\nbf16: true\n';
    const run = (pin: string) =>
      runPipeline([{ file: '/w/sft.yaml', text: yaml }], filesReader(new Map([['/w/requirements.txt', pin]])), {});
    const old = run('torch==1.13.1\n');
    assert.equal(old.setup?.attention, 'eager');
    assert.equal(old.provenance.attention?.kind === 'default' && old.provenance.attention.owner, 'llamafactory');
    assert.equal(run('torch==2.4.0\n').setup?.attention, 'sdpa');
  });
});

describe("pins: a preference trainer's max_length by TRL release", () => {
  // WMWMW1/LM_qlora_dataset_mistral7b's bloom/dpo.py: Unsloth's from_pretrained with max_seq_length 2048, then
  // DPOTrainer(..., beta=0.1) with no max_length; the project's TRL is 0.7.11. Unsloth's max_seq_length sizes the
  // positions, not the pairs; TRL up to 0.11 set max_length 512 where none was given (trl@v0.7.11
  // trl/trainer/dpo_trainer.py lines 295-301, v0.11.4 lines 660-665), 0.12 and 0.13 truncated nothing, 0.14 on: 1024.
  const script =
    'from unsloth import FastLanguageModel\nfrom trl import DPOTrainer\nfrom transformers import TrainingArguments\n' +
    'max_seq_length = 2048\n' +
    'model, tokenizer = FastLanguageModel.from_pretrained(model_name="unsloth/mistral-7b-bnb-4bit", max_seq_length=max_seq_length)\n' +
    'model = FastLanguageModel.get_peft_model(model, r=16)\n' +
    'trainer = DPOTrainer(model, None, args=TrainingArguments(output_dir="o"), beta=0.1, train_dataset=ds, tokenizer=tokenizer)\n' +
    'trainer.train()\n';
  const withPin = (pin: string | undefined) =>
    runPipeline(
      [{ file: '/w/dpo.py', text: script }],
      filesReader(new Map(pin ? [['/w/requirements.txt', pin]] : [])),
      {},
    );

  it('512 before TRL 0.12, the longest pair (1024 standing in) for 0.12, and never Unsloth max_seq_length', () => {
    const old = withPin('trl==0.7.11\n');
    assert.equal(old.setup?.seq_len, 512);
    const p = old.provenance.seq_len;
    const note = p?.kind === 'default' ? (p.note ?? '') : '';
    assert.match(note, /set max_length 512 where none was given before TRL 0\.12 \(TRL 0\.7\.11/);
    assert.match(note, /Unsloth's max_seq_length .* sizes the model's positions/);
    // DPOTrainer(beta=...) dates the run to TRL 0.12 or earlier: 0.12 is taken, which truncated nothing.
    const dated = withPin(undefined);
    assert.equal(dated.setup?.seq_len, 1024);
    const q = dated.provenance.seq_len;
    assert.match(q?.kind === 'default' ? (q.note ?? '') : '', /max_length was None in TRL 0\.12 and 0\.13/);
  });
});

describe('pins: transformers installed from a git commit', () => {
  // axolotl-ai-cloud/axolotl@15f7910 requirements.txt (April 2024): `transformers @ git+...@43d17c1...` beside
  // `accelerate==0.28.0`, `peft==0.10.0`; its README's Llama-3-70B QLoRA with FSDP and CPU offload, "Dual GPU @ 21GB".
  const GIT =
    'transformers @ git+https://github.com/huggingface/transformers.git@43d17c18360ac9c3d3491389328e2fe55fe8f9ce';

  it('a release tag is that release; a commit or a branch names none', () => {
    const tagged = findPins('transformers @ git+https://github.com/huggingface/transformers.git@v4.40.0\n');
    assert.equal(tagged.transformers?.version, '4.40.0');
    const commit = findPins(`${GIT}\naccelerate==0.28.0\n`);
    assert.equal(commit.transformers, undefined);
    assert.equal(commit.transformersGit?.ref, '43d17c18360ac9c3d3491389328e2fe55fe8f9ce');
    assert.equal(findPins('pip install git+https://github.com/huggingface/transformers\n').transformersGit?.ref, '');
    assert.equal(findPins(`# ${GIT}\n`).transformersGit, undefined);
    assert.equal(
      installPins(`!pip install -q ${GIT.replace(' @ ', '@')}\n`).transformersGit?.ref,
      '43d17c18360ac9c3d3491389328e2fe55fe8f9ce',
    );
    assert.equal(
      installPins('!pip install -q git+https://github.com/huggingface/transformers@main\n').transformersGit?.ref,
      'main',
    );
  });

  it("dated by the file's other pins: the last 4.x release beside Accelerate 0.28, else a note and the current one", () => {
    const config = 'base_model: NousResearch/Meta-Llama-3-8B\nadapter: lora\nmicro_batch_size: 1\nsequence_len: 512\n';
    const run = (requirements: string) =>
      runPipeline(
        [{ file: '/w/cfg.yaml', text: config }],
        filesReader(new Map([['/w/requirements.txt', requirements]])),
        {},
      );
    const dated = run(`${GIT}\naccelerate==0.28.0\n`);
    assert.equal(dated.setup?.transformers_version, '4.57');
    const p = dated.provenance.transformers_version;
    assert.ok(
      p?.kind === 'default' && /git commit \(43d17c18360a\).*accelerate 0\.28\.0/.test(p.note ?? ''),
      JSON.stringify(p),
    );
    // Nothing in the file dates it: the release stays the current one, said at the requirement's line.
    const open = run(`${GIT}\n`);
    assert.equal(open.setup?.transformers_version, undefined);
    const note = open.problems.find((x) => x.key === 'transformers');
    assert.equal(note?.line, 1);
    assert.match(note?.message ?? '', /names no release: a current one is assumed/);
  });
});

describe('pins: extras for another accelerator', () => {
  it("a setup.py's or pyproject.toml's NPU extra pins the NPU's PyTorch, not the run's (LLaMA-Factory's setup.py)", () => {
    // hiyouga/LLaMA-Factory setup.py (2024), copied by Wyyyb/leakage_influence: `"torch": ["torch>=1.13.1"],
    // "torch-npu": ["torch==2.1.0", "torch-npu==2.1.0.post3", "decorator"], "deepspeed": ["deepspeed>=0.10.0,<=0.14.4"]`.
    const setupPy =
      'extra_require = {\n    "torch": ["torch>=1.13.1"],\n    "torch-npu": ["torch==2.1.0", "torch-npu==2.1.0.post3"],\n' +
      '    "deepspeed": ["deepspeed>=0.10.0,<=0.14.4"],\n}\n';
    const pins = dependencyPins('setup.py', setupPy);
    assert.equal(pins.torch, undefined);
    assert.equal(pins.deepspeed?.version, '0.14.4');
    assert.equal(
      dependencyPins('pyproject.toml', '[project.optional-dependencies]\nnpu = ["torch==2.1.0"]\n').torch,
      undefined,
    );
    // The same pin outside such an extra is the run's.
    assert.equal(dependencyPins('setup.py', 'install_requires=["torch==2.1.0"]\n').torch?.version, '2.1.0');
  });
});

describe('pins: TRL installed from its repository at a commit', () => {
  // huggingface/open-r1@a20666d setup.py (February 2025), copied by its forks (knoveleng/open-rs): TRL at commit
  // 69ad852e, whose trl/__init__.py declares __version__ = "0.16.0.dev0" (huggingface/trl, read with git show).
  const OPEN_R1 = 'trl @ git+https://github.com/huggingface/trl.git@69ad852e5654a77f1695eb4c608906fe0c7e8624';

  it("a commit of TRL's main history is the release line its tree declares; a tag its release; a branch none", () => {
    const commit = findPins(`_deps = [\n    "${OPEN_R1}",\n]\n`);
    assert.equal(commit.trl?.version, '0.16');
    assert.equal(commit.trl?.commit, '69ad852e5654a77f1695eb4c608906fe0c7e8624');
    // open-r1's later pins: 6f99f42f declares 0.14.0.dev0, 9ac614fb 0.18.0.dev0; seven digits are enough.
    assert.equal(findPins('trl @ git+https://github.com/huggingface/trl.git@6f99f42\n').trl?.version, '0.14');
    assert.equal(findPins(`trl[vllm] @ git+https://github.com/huggingface/trl.git@9ac614fb08\n`).trl?.version, '0.18');
    const tag = findPins('trl @ git+https://github.com/huggingface/trl.git@v0.14.0\n').trl;
    assert.deepEqual([tag?.version, tag?.commit], ['0.14.0', undefined]);
    assert.equal(findPins('trl @ git+https://github.com/huggingface/trl.git@main\n').trlGit?.ref, 'main');
    assert.equal(
      findPins('trl @ git+https://github.com/huggingface/trl.git@0123456789ab\n').trlGit?.ref,
      '0123456789ab',
    );
    // Another repository of the organisation, and a line commented out, are not TRL.
    assert.equal(findPins('trlx @ git+https://github.com/huggingface/trlx.git@main\n').trlGit, undefined);
    assert.equal(findPins(`# ${OPEN_R1}\n`).trl, undefined);
    assert.equal(installPins(`!pip install "${OPEN_R1}"\n`).trl?.version, '0.16');
  });

  it("dates a GRPO run: TRL 0.16's beta 0.04 scores with a reference copy, said at the requirement", () => {
    const script =
      'from trl import GRPOConfig, GRPOTrainer\n' +
      'GRPOTrainer(model="Qwen/Qwen2.5-1.5B-Instruct", reward_funcs=[], args=GRPOConfig(output_dir="o")).train()\n';
    const run = (setupPy: string) =>
      runPipeline(
        [{ file: '/w/grpo.py', text: script }],
        filesReader(new Map([['/w/setup.py', `_deps = [\n    "${setupPy}",\n]\n`]])),
        {},
      );
    const dated = run(OPEN_R1);
    assert.equal(dated.setup?.trl_version, '0.16');
    assert.equal(dated.setup?.rollout?.reference, 'copy');
    const note = dated.problems.find((p) => p.code === 'pinned-release' && p.key === 'trl');
    assert.equal(note?.line, 2);
    assert.match(note?.message ?? '', /commit 69ad852e, whose tree declares the 0\.16 line: read as trl 0\.16/);
    // A branch names no release: today's TRL (beta 0.0, no reference), said at the line.
    const open = run('trl @ git+https://github.com/huggingface/trl.git@main');
    assert.equal(open.setup?.trl_version, undefined);
    assert.equal(open.setup?.rollout?.reference, 'none');
    assert.match(open.problems.find((p) => p.key === 'trl')?.message ?? '', /names no release: a current one/);
  });
});
