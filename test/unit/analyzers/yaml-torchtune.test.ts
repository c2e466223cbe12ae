// torchtune YAML: model builders (architecture, LoRA, QLoRA), dtype, activation checkpointing/offloading,
// optimizer and loss components, FSDP/TP keys, the dead nested fsdp block, teacher models and interpolation.
import * as assert from 'node:assert/strict';
import { analyzeTorchtuneYaml, parseBuilder } from '../../../src/analyzers/yaml';
import { scaledHiddenDim } from '../../../src/analyzers/yaml/torchtune-builders';
import { estimate } from '../../../src/core/estimate';
import { resolveText } from '../helpers';
import { checkFacts, codes, corpusFiles, corpusSuite, factOf, robustnessProperty } from './yaml-common.test';

const QLORA = `output_dir: /tmp/out
model:
  _component_: torchtune.models.llama3_1.qlora_llama3_1_8b
  lora_attn_modules: ['q_proj', 'k_proj', 'v_proj', 'output_proj']
  apply_lora_to_mlp: True
  apply_lora_to_output: False
  lora_rank: 8  # higher increases memory
  lora_alpha: 16
  lora_dropout: 0.0
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  max_seq_len: 2048
checkpointer:
  checkpoint_files: [
    model-00001-of-00002.safetensors,
    model-00002-of-00002.safetensors,
  ]
  output_dir: \${output_dir}
batch_size: 4
gradient_accumulation_steps: 2
optimizer:
  _component_: torch.optim.AdamW
  fused: True
  lr: 3e-4
loss:
  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss
dtype: bf16
enable_activation_checkpointing: True
enable_activation_offloading: True
compile: True
`;

const FULL = `model:
  _component_: torchtune.models.llama3_3.llama3_3_70b
teacher_model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
tokenizer:
  max_seq_len: null
batch_size: 2
batch_size_val: \${batch_size}
optimizer:
  _component_: bitsandbytes.optim.PagedAdamW8bit
optimizer_in_bwd: True
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
fsdp_cpu_offload: True
fsdp:
  cpu_offload: False
tensor_parallel_dim: 8
data_parallel_shard_dim: -1
dtype: fp32
`;

// recipes/configs/llama2/7B_qlora_single_device.yaml as torchtune 0.1 shipped it (pytorch/torchtune@fef3ed10d,
// 2024-04-16), the keys that matter: no tokenizer max_seq_len, the dataset builder's own default, components under
// torchtune.utils, the 0.1 profiler.
const QLORA_0_1 = `model:
  _component_: torchtune.models.llama2.qlora_llama2_7b
  lora_attn_modules: ['q_proj', 'v_proj', 'k_proj', 'output_proj']
  apply_lora_to_mlp: True
  apply_lora_to_output: False
  lora_rank: 8
  lora_alpha: 16
tokenizer:
  _component_: torchtune.models.llama2.llama2_tokenizer
  path: /tmp/Llama-2-7b-hf/tokenizer.model
checkpointer:
  _component_: torchtune.utils.FullModelHFCheckpointer
  checkpoint_dir: /tmp/Llama-2-7b-hf
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
  train_on_input: True
batch_size: 2
optimizer:
  _component_: torch.optim.AdamW
  weight_decay: 0.01
  lr: 3e-4
loss:
  _component_: torch.nn.CrossEntropyLoss
gradient_accumulation_steps: 16
metric_logger:
  _component_: torchtune.utils.metric_logging.DiskLogger
dtype: bf16
enable_activation_checkpointing: True
profiler:
  _component_: torchtune.utils.profiler
  enabled: False
`;

describe('analyzeTorchtuneYaml', () => {
  it('device: mps or cpu runs the recipe on no CUDA device: a warning at the key (torchtune get_device)', () => {
    // bahram-jahanshahi/let-me-finetune-by-torch-tune's custom_config.yaml trains Llama-3.2-3B with `device: mps`.
    const text = `${QLORA}device: mps\n`;
    const p = analyzeTorchtuneYaml(text).problems.find((x) => x.code === 'runs-on-cpu');
    assert.equal(p && text.slice(p.span.start, p.span.end), 'device: mps');
    assert.ok(!analyzeTorchtuneYaml(`${QLORA}device: cuda\n`).problems.some((x) => x.code === 'runs-on-cpu'));
  });

  it("reads the DPO and SimPO loss components as preference training, with torchtune's one bf16 log_softmax", () => {
    const dpo = QLORA.replace('torchtune.modules.loss.CEWithChunkedOutputLoss', 'torchtune.rlhf.loss.DPOLoss');
    checkFacts(analyzeTorchtuneYaml(dpo), dpo, [['preference', 'dpo', '_component_', 'torchtune.rlhf.loss.DPOLoss']]);
    assert.equal(factOf(analyzeTorchtuneYaml(dpo), 'loss'), undefined);
    const simpo = QLORA.replace('torchtune.modules.loss.CEWithChunkedOutputLoss', 'torchtune.rlhf.loss.SimPOLoss');
    checkFacts(analyzeTorchtuneYaml(simpo), simpo, [['preference', 'reference-free']]);
    const r = resolveText('dpo.yaml', dpo);
    assert.deepEqual(r.setup?.preference, { reference: 'adapters-off', logps: 'native', paired: true });
  });

  it('maps builders to Hub ids and methods', () => {
    assert.deepEqual(parseBuilder('torchtune.models.llama3_1.qlora_llama3_1_8b'), {
      hubId: 'meta-llama/Llama-3.1-8B',
      builder: 'llama3_1_8b',
      method: 'qlora',
    });
    assert.deepEqual(parseBuilder('torchtune.models.qwen2_5.lora_qwen2_5_7b_instruct'), {
      hubId: 'Qwen/Qwen2.5-7B',
      builder: 'qwen2_5_7b',
      method: 'lora',
    });
    assert.equal(parseBuilder('torchtune.models.llama2.llama2_7b').method, 'full');
    assert.equal(parseBuilder('torchtune.models.gemma.gemma_2b').hubId, 'google/gemma-2b');
    assert.equal(parseBuilder('torchtune.models.phi3.phi3_mini').hubId, 'microsoft/Phi-3-mini-4k-instruct');
    assert.equal(parseBuilder('my.models.custom_builder').hubId, undefined);
  });

  it('reads a QLoRA builder as 4-bit NF4 double-quantized base weights with LoRA targets in HF names', () => {
    checkFacts(analyzeTorchtuneYaml(QLORA), QLORA, [
      ['model', 'meta-llama/Llama-3.1-8B', '_component_', 'torchtune.models.llama3_1.qlora_llama3_1_8b'],
      ['method', 'qlora'],
      ['quantBits', 4],
      ['quantType', 'nf4'],
      ['doubleQuant', true],
      ['loraR', 8, 'lora_rank', '8'],
      ['loraAlpha', 16],
      ['loraDropout', 0],
      [
        'loraTargets',
        ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
        'lora_attn_modules',
        "['q_proj', 'k_proj', 'v_proj', 'output_proj']",
      ],
    ]);
  });

  it('reads batch, sequence, dtype, checkpointing, offloading, optimizer, loss and compile', () => {
    checkFacts(analyzeTorchtuneYaml(QLORA), QLORA, [
      ['microBatchSize', 4, 'batch_size', '4'],
      ['gradientAccumulationSteps', 2],
      ['seqLen', 2048, 'max_seq_len', '2048'],
      ['weightsDtype', 'bf16', 'dtype', 'bf16'],
      ['gradientCheckpointing', 'full', 'enable_activation_checkpointing', 'True'],
      ['activationOffloading', true, 'enable_activation_offloading', 'True'],
      ['optimizer', 'adamw_fused', '_component_', 'torch.optim.AdamW'],
      ['loss', 'chunked', '_component_', 'torchtune.modules.loss.CEWithChunkedOutputLoss'],
      ['compile', true, 'compile', 'True'],
    ]);
  });

  it('reads dataset.packed as fixed-length batches and packed: False as batches padded to their longest sample', () => {
    const packed = `${QLORA}dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n  packed: True\n`;
    checkFacts(analyzeTorchtuneYaml(packed), packed, [['batchLengths', 'fixed', 'packed', 'True']]);
    const padded = `${QLORA}dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n  packed: False  # True increases speed\n`;
    checkFacts(analyzeTorchtuneYaml(padded), padded, [['batchLengths', 'variable', 'packed', 'False']]);
    assert.equal(
      factOf(analyzeTorchtuneYaml(QLORA), 'batchLengths'),
      undefined,
      'absent: resolve applies the torchtune default',
    );
  });

  it('reads max_seq_len: null as unbounded', () => {
    checkFacts(analyzeTorchtuneYaml(FULL), FULL, [['seqLen', { unknown: true }, 'max_seq_len', 'null']]);
  });

  it('reads a full builder, a teacher model, paged 8-bit AdamW, optimizer_in_bwd, LinearCrossEntropyLoss as chunked-linear, offload and parallel dims', () => {
    const r = analyzeTorchtuneYaml(FULL);
    checkFacts(r, FULL, [
      ['model', 'meta-llama/Llama-3.3-70B-Instruct'],
      ['method', 'full'],
      ['teacherModel', 'meta-llama/Llama-3.1-8B', '_component_', 'torchtune.models.llama3_1.llama3_1_8b'],
      ['optimizer', 'paged_adamw_8bit'],
      ['optimizerInBackward', true, 'optimizer_in_bwd', 'True'],
      // Its fp32 log-softmax is kept for every chunk, as CEWithChunkedOutputLoss keeps it, but the head runs one chunk
      // at a time inside the loss: no whole logits (the analyzer's comment).
      ['loss', 'chunked-linear'],
      ['fsdpOffload', true, 'fsdp_cpu_offload', 'True'],
      ['tensorParallel', 8, 'tensor_parallel_dim', '8'],
      ['fsdpShardSize', { unknown: true }, 'data_parallel_shard_dim', '-1'],
      ['weightsDtype', 'fp32'],
    ]);
    assert.equal(factOf(r, 'quantBits'), undefined);
    assert.equal(factOf(r, 'loraR'), undefined);
  });

  it("hands a compiled whole-logits loss the decoder's fp32 logits, as torchtune's TransformerDecoder does", () => {
    // torchtune/modules/transformer.py (1814feb1, and HEAD): without output chunks `output = self.output(h).float()`;
    // a CEWithChunkedOutputLoss sets the chunks and upcasts each inside its compiled compute_cross_entropy.
    const text = [
      'model:',
      '  _component_: torchtune.models.llama3_2.llama3_2_3b',
      'tokenizer:',
      '  max_seq_len: 4096',
      'batch_size: 2',
      'dtype: bf16',
      'compile: True',
      'loss:',
      '  _component_: torch.nn.CrossEntropyLoss',
      '',
    ].join('\n');
    const r = resolveText('3B_full_single_device.yaml', text);
    assert.deepEqual([r.setup?.loss, r.setup?.compile, r.setup?.model_logits_fp32], ['full', true, true]);
    assert.equal(r.provenance.model_logits_fp32?.kind, 'default');
    const e = estimate(r.setup!);
    assert.ok(e.ok);
    const ce = e.estimate.perGpu.phases.flatMap((p) => p.components).find((c) => c.id === 'logits-loss');
    assert.match(ce?.formula ?? '', /^compiled CE over the model's fp32 logits/);
  });

  it('assumes the smallest world that holds tensor_parallel_dim when nothing gives the GPU count, and says so', () => {
    // torchtune's llama3_3/70B_full_multinode.yaml: tensor_parallel_dim 8, GPUs given by `tune run --nproc_per_node`.
    const r = resolveText('70B_full_multinode.yaml', FULL);
    assert.equal(r.setup?.gpus_per_node, 8);
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.equal(e.ok, true);
    const a = e.ok ? e.estimate.assumptions.find((x) => x.key === 'gpus_per_node') : undefined;
    assert.match(
      a?.source ?? '',
      /^VRAM Lens default: the smallest world that holds tensor_parallel x pipeline_parallel x context_parallel x the FSDP shard group = 8 GPUs/,
    );
    // 16-way TP x PP over 8-GPU nodes: two nodes.
    const wide = resolveText('tp16.yaml', FULL.replace('tensor_parallel_dim: 8', 'tensor_parallel_dim: 16'));
    assert.deepEqual([wide.setup?.gpus_per_node, wide.setup?.nodes], [8, 2]);
    // A launcher's count wins: 4 GPUs cannot hold TP 8, and the estimator says so at the key.
    const four = resolveText('tp8.yaml', FULL, { gpusPerNode: 4 });
    assert.equal(four.setup?.gpus_per_node, 4);
    assert.equal(estimate(four.setup!).ok, false);
  });

  it("reads the GPU count from the launch command in the config's header comment; a launcher file or a flag wins", () => {
    // torchtune's recipes/configs/llama3_1/70B_lora.yaml opens with "#   tune run --nproc_per_node 8 lora_finetune_distributed".
    const head =
      '# Config for multi-device LoRA in lora_finetune_distributed.py\n' +
      '# This config needs 8 GPUs to run\n' +
      '#   tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora\n' +
      '#\n';
    const text = `${head}${QLORA}`;
    const facts = analyzeTorchtuneYaml(text).facts;
    const g = facts.find((f) => f.key === 'gpusPerNode');
    assert.equal(g?.value, 8);
    assert.equal(text.slice(g!.keySpan.start, g!.keySpan.end), '--nproc_per_node');
    assert.equal(text.slice(g!.valueSpan.start, g!.valueSpan.end), '8');
    assert.equal(
      facts.some((f) => f.key === 'nodes'),
      false,
    );
    // --nnodes too, and "=" forms.
    const multi = analyzeTorchtuneYaml(
      `#   tune run --nnodes=2 --nproc_per_node=4 full_finetune_distributed --config x\n${QLORA}`,
    );
    assert.deepEqual([factOf(multi, 'gpusPerNode')?.value, factOf(multi, 'nodes')?.value], [4, 2]);
    // A single-device launch gives no count (one GPU is the default), and a line that is not a tune command none either.
    assert.equal(
      analyzeTorchtuneYaml(`#   tune run lora_finetune_single_device --config x\n${QLORA}`).facts.some(
        (f) => f.key === 'gpusPerNode',
      ),
      false,
    );
    assert.equal(
      analyzeTorchtuneYaml(`# torchrun --nproc_per_node 8 train.py\n${QLORA}`).facts.some(
        (f) => f.key === 'gpusPerNode',
      ),
      false,
    );
    // Through the pipeline: the comment's count, an assumption that names its line (a comment is no setting:
    // wu-ming233/FIRST-impl's configs/8B_lora.yaml keeps torchtune's `--nproc_per_node 2` header, and its README
    // runs `--nproc_per_node <num_gpus>`); the --gpus flag wins over it.
    const r = resolveText('70B_lora.yaml', text);
    assert.equal(r.setup?.gpus_per_node, 8);
    assert.deepEqual(r.provenance.gpus_per_node, {
      kind: 'default',
      owner: 'VRAM Lens',
      note: "the command the config's header comment runs it with (tune run --nproc_per_node 8) (70B_lora.yaml:3)",
    });
    assert.equal(resolveText('70B_lora.yaml', text, { gpusPerNode: 2 }).setup?.gpus_per_node, 2);
  });

  it('reads context_parallel_dim: each sequence split over that many GPUs', () => {
    const text = 'context_parallel_dim: 2\n';
    checkFacts(analyzeTorchtuneYaml(text), text, [['contextParallel', 2, 'context_parallel_dim', '2']]);
  });

  it('resolves a distillation teacher like the student and counts it; an unknown builder is a warning at the key', () => {
    const kd =
      'model:\n' +
      '  _component_: torchtune.models.llama3_2.lora_llama3_2_1b\n' +
      'teacher_model:\n' +
      '  _component_: torchtune.models.llama3_1.llama3_1_8b\n' +
      'batch_size: 4\n' +
      'dtype: bf16\n';
    const r = resolveText('kd.yaml', kd);
    assert.equal(r.setup?.distillation?.teacher_model, 'meta-llama/Llama-3.1-8B');
    assert.equal(r.setup?.distillation?.teacher_parameters, 8_030_261_248);
    const unknown = resolveText('kd.yaml', kd.replace('llama3_1.llama3_1_8b', 'mine.my_teacher'));
    assert.equal(unknown.setup?.distillation, undefined);
    const p = unknown.problems.find((x) => x.code === 'not-modeled');
    assert.equal(p?.key, 'teacher_model._component_');
  });

  it('ignores the nested fsdp: {cpu_offload} block with an info problem at its key', () => {
    const r = analyzeTorchtuneYaml(FULL);
    const p = r.problems.find((x) => x.code === 'unknown-key');
    assert.equal(p?.severity, 'info');
    assert.equal(p && FULL.slice(p.span.start, p.span.end), 'fsdp');
    const only = 'fsdp:\n  cpu_offload: True\n';
    assert.equal(factOf(analyzeTorchtuneYaml(only), 'fsdpOffload'), undefined);
  });

  it("reads torchtune 0.2's memory_efficient_fsdp_wrap: True as the embeddings and output wrapped on their own", () => {
    // hmosousa/tradutor configs/fft/llama3.yaml:67; the recipe hands it to get_full_finetune_fsdp_wrap_policy.
    const text = `model:\n  _component_: torchtune.models.llama3.llama3_8b\nmemory_efficient_fsdp_wrap: True\n`;
    const f = analyzeTorchtuneYaml(text).facts.find((x) => x.key === 'fsdpShardEmbeddings');
    assert.deepEqual([f?.value, f?.rawKey], [true, 'memory_efficient_fsdp_wrap']);
    // custom_sharded_layers, its later name, decides where both are written.
    const both = analyzeTorchtuneYaml(`${text}custom_sharded_layers: []\n`).facts.filter(
      (x) => x.key === 'fsdpShardEmbeddings',
    );
    assert.deepEqual(
      both.map((x) => x.rawKey),
      ['custom_sharded_layers'],
    );
  });

  it('reads torch.optim.AdamW without fused as plain adamw', () => {
    const text = 'optimizer:\n  _component_: torch.optim.AdamW\n  fused: False\n';
    checkFacts(analyzeTorchtuneYaml(text), text, [['optimizer', 'adamw']]);
  });

  it("reads torchao's AdamW4bit (torchao.optim and the older prototype path) as 4-bit AdamW", () => {
    for (const c of ['torchao.optim.AdamW4bit', 'torchao.prototype.low_bit_optim.AdamW4bit']) {
      const text = `optimizer:\n  _component_: ${c}\n`;
      checkFacts(analyzeTorchtuneYaml(text), text, [['optimizer', 'adamw_4bit']]);
    }
  });

  it('reads a selective activation-checkpointing mode', () => {
    const text = 'enable_activation_checkpointing: True\nac_mode: selective\n';
    checkFacts(analyzeTorchtuneYaml(text), text, [['gradientCheckpointing', 'selective']]);
  });

  it('reads an unknown builder as an unknown model', () => {
    const text = 'model:\n  _component_: my.models.lora_custom_3b\n';
    checkFacts(analyzeTorchtuneYaml(text), text, [
      ['model', { unknown: true }],
      ['method', 'lora'],
    ]);
  });

  // DeepSeek-Math 7B built through the generic builder (ebsmothers/torchtune-does-math custom_lora_single_device.yaml).
  // By hand: the MLP width is scale_hidden_dim_for_mlp(4096) = 4 * int(8192 / 3) = 10,920, rounded up to 256: 11,008.
  // Parameters: embedding and untied head 2 x 102,400 x 4,096 = 838,860,800; per layer q/k/v/o 4 x 4,096^2 =
  // 67,108,864, MLP 3 x 4,096 x 11,008 = 135,266,304, two norms 8,192: 202,383,360, x 30 = 6,071,500,800; final norm
  // 4,096: 6,910,365,696 (DeepSeek-Math 7B's 6.9B). LoRA r 8 on q and v: 30 x 2 x 8 x (4,096 + 4,096) = 3,932,160.
  const GENERIC_LLAMA2 =
    'model:\n' +
    '  _component_: torchtune.models.llama2.lora_llama2\n' +
    '  vocab_size: 102400\n' +
    '  num_layers: 30\n' +
    '  num_heads: 32\n' +
    '  num_kv_heads: 32\n' +
    '  embed_dim: 4096\n' +
    '  max_seq_len: 4096\n' +
    "  lora_attn_modules: ['q_proj', 'v_proj']\n" +
    '  lora_rank: 8\n' +
    'batch_size: 1\n' +
    'dtype: bf16\n';

  it("builds the architecture a generic builder's dimensions give, with torchtune's MLP width when none is given", () => {
    assert.equal(scaledHiddenDim(4096), 11_008);
    const r = resolveText('custom_lora.yaml', GENERIC_LLAMA2);
    assert.ok(r.setup, r.problems.map((p) => p.message).join('; '));
    assert.deepEqual(
      { ...r.setup.architecture },
      {
        model_type: 'llama',
        vocab_size: 102_400,
        num_hidden_layers: 30,
        num_attention_heads: 32,
        num_key_value_heads: 32,
        hidden_size: 4096,
        intermediate_size: 11_008,
        max_position_embeddings: 4096,
        hidden_act: 'silu',
        tie_word_embeddings: false,
      },
    );
    assert.deepEqual(r.provenance.architecture, {
      kind: 'file',
      file: 'custom_lora.yaml',
      line: 2,
      key: 'model._component_',
    });
    const e = estimate(r.setup);
    assert.ok(e.ok);
    assert.equal(e.estimate.parameters.total, 6_910_365_696);
    assert.equal(e.estimate.parameters.trainable, 3_932_160);
  });

  it("reads a Qwen builder's biases and norms as Qwen2's or Qwen3's layout, and a mistral builder needs its MLP width", () => {
    const qwen3 =
      'model:\n  _component_: torchtune.models.qwen3._component_builders.qwen3\n  vocab_size: 151936\n' +
      '  num_layers: 28\n  num_heads: 16\n  num_kv_heads: 8\n  embed_dim: 1024\n  intermediate_dim: 3072\n' +
      '  max_seq_len: 40960\n  head_dim: 128\n  q_proj_bias: False\n  k_proj_bias: False\n  v_proj_bias: False\n' +
      '  q_norm: True\n  k_norm: True\n  tie_word_embeddings: True\n';
    const arch = resolveText('q.yaml', qwen3).setup?.architecture;
    assert.equal(arch?.model_type, 'qwen3');
    assert.equal(arch?.head_dim, 128);
    assert.equal(arch?.tie_word_embeddings, true);
    const qwen2 = qwen3
      .replace(/ {2}[qkv]_(proj_bias|norm): \w+\n/g, '')
      .replace('qwen3._component_builders.qwen3', 'qwen2.qwen2');
    assert.equal(resolveText('q.yaml', qwen2).setup?.architecture.model_type, 'qwen2');
    const mistral = GENERIC_LLAMA2.replace('llama2.lora_llama2', 'mistral.lora_mistral');
    checkFacts(analyzeTorchtuneYaml(mistral), mistral, [
      ['model', { unknown: true }, '_component_', 'torchtune.models.mistral.lora_mistral'],
    ]);
    const fact = analyzeTorchtuneYaml(mistral).facts.find((f) => f.key === 'model');
    assert.deepEqual(fact?.value, { unknown: 'torchtune builder mistral: intermediate_dim is not given' });
  });

  // torchtune's phi3 builder keeps q/k/v and gate/up apart (transformers' Phi-3 fuses them), so a LoRA config of
  // Phi-4 targets modules transformers' model does not have (Azure/torchtune-azureml lora_finetune_phi4.yaml).
  // By hand, phi4_14b's arguments: embedding and head 2 x 100,352 x 5,120 = 1,027,604,480; per layer q and o
  // 2 x 5,120^2 = 52,428,800, k and v 2 x 5,120 x 1,280 = 13,107,200, MLP 3 x 5,120 x 17,920 = 275,251,200, norms
  // 10,240: 340,797,440, x 40 = 13,631,897,600; final norm 5,120: 14,659,507,200. LoRA r 8 on q, v, output_proj and
  // the MLP: 8 x (10,240 + 6,400 + 10,240 + 3 x 23,040) = 768,000 per layer, x 40 = 30,720,000.
  it("builds Phi-4 as torchtune's code does, with separate projections that LoRA targets by torchtune's names", () => {
    const text =
      'model:\n  _component_: torchtune.models.phi4.lora_phi4_14b\n' +
      "  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n  apply_lora_to_mlp: True\n  lora_rank: 8\n" +
      'batch_size: 2\ndtype: bf16\n';
    const r = resolveText('lora_finetune_phi4.yaml', text);
    assert.ok(r.setup);
    assert.equal(r.setup.model, 'microsoft/phi-4');
    assert.equal(r.setup.architecture.model_type, 'llama');
    assert.deepEqual(
      r.problems.filter((p) => p.severity !== 'info').map((p) => p.message),
      [],
    );
    const e = estimate(r.setup);
    assert.ok(e.ok);
    assert.equal(e.estimate.parameters.total, 14_659_507_200);
    assert.equal(e.estimate.parameters.trainable, 30_720_000);
  });

  it("a generic builder's vocab_size left to the recipe (null) is the family's tokenizer vocabulary, said at the key", () => {
    // anilkeshwani/tuna-lm configs_1B/sft.yaml: `_component_: torchtune.models.llama3_2.llama3_2` with Llama 3.2 1B's
    // dimensions and `vocab_size: null`, which its recipe sets from the extended tokenizer at run time. Llama 3.2's
    // sized builders pass 128,256 (torchtune/models/llama3_2/_model_builders.py llama3_2_1b).
    const text =
      'model:\n  _component_: torchtune.models.llama3_2.llama3_2\n  vocab_size: null\n  num_layers: 16\n' +
      '  num_heads: 32\n  num_kv_heads: 8\n  embed_dim: 2048\n  max_seq_len: 131072\n  intermediate_dim: 8192\n' +
      'batch_size: 2\ndtype: bf16\n';
    const r = resolveText('sft.yaml', text);
    assert.equal(r.setup?.architecture.vocab_size, 128_256);
    const p = r.problems.find((x) => /vocab_size is left to the recipe/.test(x.message));
    assert.equal(p?.line, 3);
    // By hand: embedding 128,256 x 2,048 = 262,668,288 (tied head); per layer 2 x 2,048^2 + 2 x 2,048 x 512 +
    // 3 x 2,048 x 8,192 + 2 x 2,048 = 60,821,504, x 16 = 973,144,064; final norm 2,048: 1,235,814,400.
    const e = r.setup && estimate(r.setup);
    assert.equal(e?.ok && e.estimate.parameters.total, 1_235_814_400);
  });

  it("reports a generic builder's dimension that is not known statically at its key", () => {
    const text = GENERIC_LLAMA2.replace('num_layers: 30', 'num_layers: ${env:LAYERS}');
    const r = resolveText('custom_lora.yaml', text);
    assert.equal(r.setup, undefined);
    const p = r.problems.find((x) => x.code === 'unknown-model');
    assert.equal(p?.line, 4);
    assert.match(p?.message ?? '', /torchtune builder llama2: num_layers/);
  });

  it('resolves ${...} interpolation for memory keys, with a not-static problem when it cannot', () => {
    const text = 'gas: 16\ngradient_accumulation_steps: ${gas}\nbatch_size: ${env:BS}\n';
    const r = analyzeTorchtuneYaml(text);
    checkFacts(r, text, [
      ['gradientAccumulationSteps', 16, 'gradient_accumulation_steps', '${gas}'],
      ['microBatchSize', { unknown: true }, 'batch_size', '${env:BS}'],
    ]);
    assert.ok(codes(r).includes('not-static'));
  });

  it('flags fp16 (rejected by the recipes) and a negative batch', () => {
    const text = 'dtype: fp16\nbatch_size: -1\n';
    assert.equal(codes(analyzeTorchtuneYaml(text)).filter((c) => c === 'invalid-value').length, 2);
  });

  it('dates a config to torchtune 0.1-0.2 by its torchtune.utils components: the dataset builder truncates, FSDP1', () => {
    // torchtune/datasets/_alpaca.py at v0.1.1 and v0.2.1: max_seq_len: int = 512; the distributed recipes at v0.2.1 wrap
    // the model in FullyShardedDataParallel (use_orig_params and backward_prefetch at their defaults).
    const r = analyzeTorchtuneYaml(QLORA_0_1);
    assert.equal(factOf(r, 'seqLen')?.value, 512);
    assert.equal(factOf(r, 'seqLen')?.rawKey, 'dataset._component_');
    assert.equal(factOf(r, 'fsdpVersion')?.value, 1);
    assert.equal(factOf(r, 'fsdpUseOrigParams')?.value, false);
    assert.equal(factOf(r, 'fsdpBackwardPrefetch')?.value, 'pre');
    // torchtune.utils.profiler is 0.1's (setup_torch_profiler from 0.2), and 0.1 pinned torchao==0.1.
    assert.equal(factOf(r, 'torchaoVersion')?.value, '0.1');
    const v02 = QLORA_0_1.replace('torchtune.utils.profiler', 'torchtune.utils.setup_torch_profiler');
    assert.equal(factOf(analyzeTorchtuneYaml(v02), 'torchaoVersion'), undefined);
    assert.equal(factOf(analyzeTorchtuneYaml(v02), 'fsdpVersion')?.value, 1);
    // The dataset's own max_seq_len wins; 0.3 configs (torchtune.training) take the tokenizer's.
    const own = QLORA_0_1.replace('  train_on_input: True', '  train_on_input: True\n  max_seq_len: 1024');
    assert.equal(factOf(analyzeTorchtuneYaml(own), 'seqLen')?.value, 1024);
    const v03 = QLORA_0_1.replace(/torchtune\.utils\./g, 'torchtune.training.');
    const r03 = analyzeTorchtuneYaml(v03);
    assert.equal(factOf(r03, 'seqLen'), undefined);
    assert.equal(factOf(r03, 'fsdpVersion'), undefined);
  });

  it("estimates torchtune 0.1's QLoRA config as its tutorial measured it: 9.29 GB reserved", () => {
    // docs/source/tutorials/qlora_finetune.rst (pytorch/torchtune@0914d5c, April 2024): "9.29 GB (peak memory reserved,
    // training)" for this config; torchao 0.1 quantizes each weight whole as it loads, which sets the peak.
    const res = resolveText('7B_qlora_single_device.yaml', QLORA_0_1);
    assert.equal(res.setup?.torchao_version, '0.1');
    assert.equal(res.provenance.torchao_version?.kind, 'default');
    const e = estimate(res.setup as Parameters<typeof estimate>[0]);
    assert.ok(e.ok);
    const gb = e.estimate.perGpu.reservedBytes / 1e9;
    assert.ok(Math.abs(gb / 9.29 - 1) < 0.03, `${gb.toFixed(2)} GB`);
  });

  it('never throws and keeps spans inside mutated texts (property, 2000 runs)', function () {
    this.timeout(20000);
    robustnessProperty(analyzeTorchtuneYaml, [QLORA, FULL, ...corpusFiles('torchtune-yaml').map((f) => f.text)]);
  });
});

corpusSuite('torchtune-yaml', analyzeTorchtuneYaml);
