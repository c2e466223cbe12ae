// LitGPT command lines in launch scripts (`litgpt finetune_lora <checkpoint_dir> --config cfg.yaml --train.micro_batch_size 4
// --devices 2 --precision bf16-true --quantize bnb.nf4 ...`): the positional checkpoint as the model, the flags with
// the meaning of the config YAML's keys, `--config` as a reference the pipeline reads (the flags win over it), and
// finetune_adapter as not modeled. Commands as in Lightning-AI/litgpt@2685705 README.md and tutorials/finetune_lora.md.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { detectFormat } from '../../../src/analyzers/detect';
import { type CanonicalKey, type ConfigFacts } from '../../../src/analyzers/facts';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { resolveText } from '../helpers';
import { checkFacts } from './shell-common';

const fact = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();

/** config_hub/finetune/llama-2-7b/qlora.yaml's memory keys. */
const QLORA_YAML = `checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf
precision: bf16-true
quantize: bnb.nf4
devices: 1
lora_r: 32
lora_alpha: 16
lora_dropout: 0.05
lora_query: true
lora_value: true
train:
  global_batch_size: 8
  micro_batch_size: 2
  max_seq_length: 512
optimizer:
  class_path: torch.optim.AdamW
`;

describe('shell analyzer: LitGPT command lines', () => {
  it('is a launch script by its litgpt finetune / pretrain line', () => {
    assert.equal(detectFormat('run.sh', 'litgpt finetune_lora checkpoints/microsoft/phi-2\n'), 'shell');
    assert.equal(detectFormat('run.sh', 'litgpt pretrain pythia-14m --devices 8\n'), 'shell');
    assert.equal(analyzeShell('litgpt download microsoft/phi-2\n').facts.length, 0, 'litgpt download is not training');
  });

  it('reads the README QLoRA line: the checkpoint as a Hub id, nf4, bf16-true, the train.* flags, LoRA by the subcommand', () => {
    const text =
      'litgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf --quantize bnb.nf4-dq ' +
      '--precision bf16-true --train.micro_batch_size 4 --train.max_seq_length 1024 --lora_r 16\n';
    const r = checkFacts(text, [
      ['method', 'qlora', 'finetune_lora', 'finetune_lora'],
      [
        'model',
        'meta-llama/Llama-2-7b-hf',
        'checkpoints/meta-llama/Llama-2-7b-hf',
        'checkpoints/meta-llama/Llama-2-7b-hf',
      ],
      ['quantBits', 4, '--quantize', 'bnb.nf4-dq'],
      ['quantType', 'nf4', '--quantize', 'bnb.nf4-dq'],
      ['doubleQuant', true, '--quantize', 'bnb.nf4-dq'],
      ['weightsDtype', 'bf16', '--precision', 'bf16-true'],
      ['mixedPrecision', 'none', '--precision', 'bf16-true'],
      ['microBatchSize', 4, '--train.micro_batch_size', '4'],
      ['seqLen', 1024, '--train.max_seq_length', '1024'],
      ['loraR', 16, '--lora_r', '16'],
      // No --optimizer: LitGPT's AdamW becomes bnb.optim.PagedAdamW under quantization, a default said at --quantize.
      ['optimizer', 'paged_adamw', '--quantize', 'bnb.nf4-dq'],
    ]);
    assert.equal(r.facts.find((f) => f.key === 'optimizer')?.origin, 'call-default');
    assert.deepEqual(r.tools, ['litgpt']);
    assert.ok(r.facts.every((f) => f.tool === 'litgpt'));
    assert.deepEqual(
      r.problems.filter((p) => p.severity !== 'info'),
      [],
    );
    // `litgpt finetune` is finetune_lora; with no LoRA flag it is LoRA with LitGPT's defaults.
    const d = resolveText('run.sh', 'litgpt finetune checkpoints/microsoft/phi-2\n').setup!;
    assert.equal(d.method, 'lora');
    assert.deepEqual([d.lora?.r, d.lora?.alpha, d.lora?.target_modules], [8, 16, ['q_proj', 'v_proj']]);
  });

  it('finetune_lora over several GPUs is fully_shard, or FSDP1 where a train.learning_rate flag dates it before May 2024', () => {
    const now = analyzeShell('litgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf --devices 2\n');
    assert.equal(fact(now, 'fsdpVersion')?.value, 2);
    const old = analyzeShell(
      'litgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf --devices 2 --train.learning_rate 3e-4\n',
    );
    const v = fact(old, 'fsdpVersion');
    assert.equal(v?.value, 1);
    assert.equal(v?.origin, 'call-default');
    assert.match(v?.defaultNote ?? '', /^--train\.learning_rate is a TrainArgs key/);
    // finetune_full shards with Fabric's FSDPStrategy whatever the date.
    assert.equal(fact(analyzeShell('litgpt finetune_full checkpoints/a/b --devices 2\n'), 'fsdpVersion')?.value, 1);
  });

  it('devices above one shard with FSDP and checkpoint every block; the LoRA switches pick the projections', () => {
    const text = 'litgpt finetune_lora checkpoints/microsoft/phi-2 --devices 4 --lora_mlp true --lora_query false\n';
    checkFacts(text, [
      ['gpusPerNode', 4, '--devices', '4'],
      ['fsdp', 'full_shard', '--devices', '4'],
      ['gradientCheckpointing', 'full', '--devices', '4'],
      [
        'loraTargets',
        ['v_proj', 'gate_proj', 'up_proj', 'down_proj', 'fc1', 'fc2', 'dense_h_to_4h', 'dense_4h_to_h'],
        '--lora_mlp',
        '--lora_mlp true --lora_query false',
      ],
    ]);
    checkFacts('litgpt pretrain pythia-160m --devices auto --optimizer AdamW\n', [
      ['method', 'full', 'pretrain', 'pretrain'],
      ['model', 'EleutherAI/pythia-160m', 'pythia-160m', 'pythia-160m'],
      ['gpusPerNode', '?', '--devices', 'auto'],
      ['optimizer', 'adamw', '--optimizer', 'AdamW'],
    ]);
    checkFacts('litgpt finetune_full --checkpoint_dir checkpoints/a/b\n', [
      ['method', 'full', 'finetune_full', 'finetune_full'],
      ['model', 'a/b', '--checkpoint_dir', 'checkpoints/a/b'],
    ]);
  });

  it('says what LitGPT refuses and what is not modeled: quantization over several GPUs or with mixed precision, adapters', () => {
    const r = analyzeShell(
      'litgpt finetune_lora checkpoints/a/b --quantize bnb.nf4 --devices 2 --precision bf16-mixed\n',
    );
    assert.deepEqual(
      r.problems
        .filter((p) => p.severity === 'error')
        .map((p) => p.rawKey)
        .sort(),
      ['--devices', '--precision'],
    );
    const text = 'litgpt finetune_adapter checkpoints/a/b\n';
    const a = analyzeShell(text);
    const p = a.problems.find((x) => x.code === 'not-modeled')!;
    assert.equal(text.slice(p.span.start, p.span.end), 'finetune_adapter');
    assert.equal(fact(a, 'method'), undefined);
  });

  it('--config is a reference the pipeline reads; the launcher flags win over the YAML beside it', () => {
    const script =
      'litgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf --config cfg/qlora.yaml --train.micro_batch_size 4 --lora_r 16\n';
    const r = analyzeShell(script);
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['config', 'cfg/qlora.yaml']],
    );
    assert.equal(fact(r, 'method'), undefined, 'the config says LoRA (and its quantize QLoRA)');
    const res = runPipeline(
      [{ file: 'run.sh', text: script }],
      { read: (p: string) => (p === 'cfg/qlora.yaml' ? QLORA_YAML : undefined), join: (_f: string, p: string) => p },
      {},
    );
    assert.deepEqual(
      res.files.map((f) => [f.file, f.role]),
      [
        ['run.sh', 'launcher'],
        ['cfg/qlora.yaml', 'config'],
      ],
    );
    const s = res.setup!;
    assert.equal(s.micro_batch_size, 4, 'the flag wins over train.micro_batch_size: 2');
    assert.equal(s.lora?.r, 16, 'the flag wins over lora_r: 32');
    assert.equal(s.seq_len, 512, 'the YAML gives what the flags do not');
    assert.equal(s.method, 'qlora');
    assert.equal(s.weights_dtype, 'bf16');
    assert.equal(s.gradient_accumulation_steps, 2, 'global 8 / micro 4');
    assert.equal(
      res.provenance.micro_batch_size && 'file' in res.provenance.micro_batch_size
        ? res.provenance.micro_batch_size.file
        : undefined,
      'run.sh',
    );
  });

  it('every prefix of its command lines is analyzed without an internal error', () => {
    const text =
      'litgpt finetune_lora checkpoints/a/b --config c.yaml --devices 2 --precision bf16-true ' +
      '--quantize bnb.nf4 --lora_mlp true --lora_query --optimizer AdamW\n' +
      'litgpt pretrain pythia-14m --devices auto\n';
    for (let n = 0; n <= text.length; n++) {
      const r = analyzeShell(text.slice(0, n));
      assert.ok(
        !r.problems.some((p) => p.code === 'syntax-error' && /could not be analyzed/.test(p.message)),
        `prefix of ${n} characters`,
      );
    }
  });
});
