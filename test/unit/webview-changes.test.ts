// Setup changes in words (webview-ui/src/changes.ts): what advice items and the what-if show instead of JSON.
import * as assert from 'node:assert/strict';
import { describeChanges, type Change } from '../../webview-ui/src/changes';
import { setStrings } from '../../webview-ui/src/strings';
import { applyOverrides, whatIfPatch } from '../../webview-ui/src/whatif';
import { setupFor } from './helpers';

const base = () =>
  setupFor('meta-llama/Llama-2-7b-hf', {
    weights_dtype: 'bf16',
    mixed_precision: 'bf16',
    master_weights: true,
    zero_stage: 2,
    gpus_per_node: 4,
    micro_batch_size: 4,
    gradient_accumulation_steps: 4,
    seq_len: 2048,
  });

const LORA16 = {
  r: 16,
  alpha: 32,
  dropout: 0.05,
  target_modules: 'all-linear',
  modules_to_save: [],
  dtype: 'fp32',
  use_dora: false,
};

function check(changes: Change[], expected: string[], setup: object = base()): void {
  setStrings({});
  assert.deepEqual(describeChanges(changes, setup as Record<string, unknown>), expected);
}

describe('webview: setup changes in words', () => {
  it('names the sharding, offload and precision changes', () => {
    check([{ key: 'zero_stage', value: 3 }], ['ZeRO stage 3']);
    check(
      [
        { key: 'zero_stage', value: 0 },
        { key: 'fsdp', value: 'full_shard' },
      ],
      ['no ZeRO', 'FSDP FULL_SHARD'],
    );
    check(
      [
        { key: 'offload_optimizer', value: 'cpu' },
        { key: 'offload_params', value: 'nvme' },
      ],
      ['optimizer state offloaded to CPU', 'parameters offloaded to NVMe'],
    );
    check(
      [
        { key: 'weights_dtype', value: 'fp32' },
        { key: 'mixed_precision', value: 'none' },
        { key: 'master_weights', value: false },
      ],
      ['weights in fp32', 'no autocast', 'no fp32 master weights'],
    );
    check(
      [
        { key: 'gradient_checkpointing', value: 'full' },
        { key: 'attention', value: 'flash' },
        { key: 'loss', value: 'fused' },
      ],
      ['full activation checkpointing', 'FlashAttention-2', 'fused cross-entropy'],
    );
    check([{ key: 'optimizer', value: 'paged_adamw_8bit' }], ['optimizer paged 8-bit AdamW']);
  });

  it('folds the GPU count into one phrase', () => {
    check(
      [
        { key: 'gpus_per_node', value: 2 },
        { key: 'nodes', value: 1 },
      ],
      ['2 GPUs per node'],
    );
    check(
      [
        { key: 'gpus_per_node', value: 8 },
        { key: 'nodes', value: 4 },
        { key: 'zero_stage', value: 3 },
      ],
      ['8 GPUs per node on 4 nodes', 'ZeRO stage 3'],
    );
    check([{ key: 'nodes', value: 2 }], ['4 GPUs per node on 2 nodes']);
  });

  it('says the batch shape and the sequence', () => {
    check(
      [
        { key: 'micro_batch_size', value: 2 },
        { key: 'gradient_accumulation_steps', value: 8 },
      ],
      ['micro-batch 2', 'gradient accumulation 8'],
    );
    check([{ key: 'seq_len', value: 1024 }], ['sequence length 1024']);
  });

  it('words a LoRA block and a quantization block instead of printing them', () => {
    check(
      [
        { key: 'method', value: 'lora' },
        { key: 'lora', value: LORA16 },
        { key: 'master_weights', value: false },
      ],
      ['LoRA r 16 on all linear layers', 'no fp32 master weights'],
    );
    check(
      [
        { key: 'method', value: 'qlora' },
        { key: 'quantization', value: { bits: 4, type: 'nf4', double_quant: true, scope: 'all-linear' } },
        { key: 'lora', value: { ...LORA16, target_modules: ['q_proj', 'v_proj'] } },
      ],
      ['4-bit NF4 base weights', 'LoRA r 16 on q_proj, v_proj'],
    );
    const lora = setupFor('meta-llama/Llama-2-7b-hf', {
      method: 'lora',
      lora: { r: 64, target_modules: 'all-linear', use_dora: true },
    });
    check([{ key: 'lora', value: { ...lora.lora, r: 32 } }], ['LoRA r 32 on all linear layers'], lora);
    check([{ key: 'lora', value: { ...lora.lora, use_dora: false } }], ['plain LoRA (no DoRA)'], lora);
    check([{ key: 'method', value: 'full' }], ['full fine-tuning'], lora);
  });

  it('leaves out what the setup already says', () => {
    check(
      [
        { key: 'zero_stage', value: 2 },
        { key: 'micro_batch_size', value: 4 },
        { key: 'seq_len', value: 512 },
      ],
      ['sequence length 512'],
    );
  });

  it('words the fields that change inside rollout and preference blocks', () => {
    const grpo = setupFor('Qwen/Qwen2.5-7B', {
      rollout: { batch: 16, completion_len: 256, engine: 'vllm-colocate', reference: 'copy' },
    });
    check(
      [{ key: 'rollout', value: { ...grpo.rollout, vllm_sleep: true } }],
      ['vLLM sleeps while the policy trains'],
      grpo,
    );
    check(
      [{ key: 'rollout', value: { ...grpo.rollout, reference: 'none' } }],
      ['no KL reference model (beta 0)'],
      grpo,
    );
    check([{ key: 'rollout', value: { ...grpo.rollout, batch: 8 } }], ['8 completions per round'], grpo);
  });

  it('never prints JSON, even for a key it does not know', () => {
    const out = describeChanges(
      [
        { key: 'zero_buckets', value: { reduce_bucket_size: 5e8, overlap: true } },
        { key: 'torchao_version', value: '0.2' },
        { key: 'tiled_mlp', value: true },
      ],
      base() as unknown as Record<string, unknown>,
    );
    assert.deepEqual(
      out,
      [
        'zero buckets reduce bucket size 500000000, zero buckets overlap on',
        'torchao 0.2 or later',
        'tiled MLP',
      ].flatMap((s) => s.split(', ')),
    );
    for (const s of out) assert.doesNotMatch(s, /[{}[\]"]/);
  });

  it('describes the what-if patch of every control', () => {
    const s = base();
    const words = (o: Parameters<typeof whatIfPatch>[1]): string[] =>
      describeChanges(
        Object.entries(whatIfPatch(s, o)).map(([key, value]) => ({ key, value })),
        s as unknown as Record<string, unknown>,
      );
    assert.deepEqual(words({ gpus: 2, sharding: 'fsdp-full_shard' }), [
      '2 GPUs per node',
      'no ZeRO',
      'FSDP FULL_SHARD',
    ]);
    assert.deepEqual(words({ precision: 'amp-bf16' }), ['weights in fp32', 'no fp32 master weights']);
    assert.deepEqual(words({ method: 'qlora' }), ['LoRA r 16 on all linear layers', '4-bit NF4 base weights']);
    assert.deepEqual(words({ offload: 'opt-cpu', checkpointing: 'selective' }), [
      'selective activation checkpointing',
      'optimizer state offloaded to CPU',
    ]);
    assert.deepEqual(
      describeChanges(
        [{ key: 'quantization', value: undefined }],
        applyOverrides(s, { method: 'qlora' }) as unknown as Record<string, unknown>,
      ),
      ['no quantization of the base weights'],
    );
  });

  it('is translated through the panel strings', () => {
    setStrings({ 'ZeRO stage {0}': 'ZeRO 阶段 {0}', '{0} GPUs per node': '每节点 {0} 块 GPU' });
    assert.deepEqual(
      describeChanges(
        [
          { key: 'zero_stage', value: 3 },
          { key: 'gpus_per_node', value: 2 },
        ],
        { gpus_per_node: 1, nodes: 1 },
      ),
      ['ZeRO 阶段 3', '每节点 2 块 GPU'],
    );
    setStrings({});
  });
});
