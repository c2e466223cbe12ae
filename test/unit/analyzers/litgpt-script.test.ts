// Lit-GPT's fine-tuning scripts of 2023 (src/analyzers/hf-python/litgpt-script.ts): module-level hyperparameters and
// setup()'s defaults. The script below is written in their shape (finetune/lora.py at Lightning-AI/lit-gpt@8641822:
// module constants, `def setup(checkpoint_dir: Path = Path(...), precision=None, quantize=None)`, Fabric's
// FSDPStrategy above one device, the longest sample forced into the first iteration). Expected values are read from
// that file by hand: gradient accumulation 128 // 4 = 32; LoRA on query and value; bf16-mixed by default
// (lit_gpt/utils.py get_default_supported_precision(training=True)), whose weights stay fp32.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { resolveText } from '../helpers';
import { factOf } from './yaml-common.test';

const script = (o: { devices?: string; quantize?: string; precision?: string; module?: string } = {}): string =>
  [
    'import lightning as L',
    'import torch',
    `from lit_gpt.${o.module ?? 'lora'} import GPT, Block, Config`,
    'from lit_gpt.utils import chunked_cross_entropy, get_default_supported_precision',
    '',
    `devices = ${o.devices ?? '1'}`,
    'batch_size = 128',
    'micro_batch_size = 4',
    'gradient_accumulation_iters = batch_size // micro_batch_size',
    'lora_r = 16',
    'lora_alpha = 32',
    'lora_dropout = 0.05',
    'lora_query = True',
    'lora_key = False',
    'lora_value = True',
    'lora_mlp = False',
    '',
    'def setup(',
    '    checkpoint_dir: Path = Path("checkpoints/meta-llama/Llama-2-7b-hf"),',
    `    precision: Optional[str] = ${o.precision ?? 'None'},`,
    `    quantize: Optional[str] = ${o.quantize ?? 'None'},`,
    ') -> None:',
    '    precision = precision or get_default_supported_precision(training=True)',
    '    if devices > 1:',
    '        strategy = FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block})',
    '',
    'def train(fabric, model, optimizer, train_data):',
    '    longest_seq_length, longest_seq_ix = get_longest_seq_length(train_data)',
    '    model.max_seq_length = longest_seq_length',
    '    for iter_num in range(max_iters):',
    '        input_ids, targets = get_batch(fabric, train_data, longest_seq_ix if iter_num == 0 else None)',
    '        logits = model(input_ids, lm_head_chunk_size=128)',
    '        loss = chunked_cross_entropy(logits[..., :-1, :], targets[..., 1:])',
    '        fabric.backward(loss / gradient_accumulation_iters)',
    '',
    'def main(fabric):',
    '    if quantize:',
    '        optimizer = bnb.optim.PagedAdamW(trainable_params, lr=learning_rate)',
    '    else:',
    '        optimizer = torch.optim.AdamW(trainable_params, lr=learning_rate)',
  ].join('\n');

describe("Lit-GPT's fine-tuning scripts of 2023", () => {
  it('are read as Python training files', () => {
    assert.equal(detectFormat('finetune/lora.py', script()), 'hf-python');
  });
  it('read the checkpoint, the LoRA constants and the accumulation from the module', () => {
    const r = analyzeHfPython(script());
    assert.equal(factOf(r, 'model')?.value, 'meta-llama/Llama-2-7b-hf');
    assert.equal(factOf(r, 'model')?.origin, 'script-default');
    assert.equal(factOf(r, 'method')?.value, 'lora');
    assert.equal(factOf(r, 'microBatchSize')?.value, 4);
    assert.equal(factOf(r, 'gradientAccumulationSteps')?.value, 32);
    assert.equal(factOf(r, 'loraR')?.value, 16);
    assert.deepEqual(factOf(r, 'loraTargets')?.value, ['q_proj', 'v_proj']);
    assert.equal(factOf(r, 'optimizer')?.value, 'adamw');
    assert.equal(factOf(r, 'longestBatchFirst')?.value, true);
    assert.deepEqual(Object.keys(factOf(r, 'seqLen')?.value as object), ['unknown']);
  });
  it('resolve as LitGPT runs them: its model code and loop, bf16-mixed over fp32 weights, the longest batch first', () => {
    const s = resolveText('lora.py', script()).setup!;
    assert.equal(s.model_code, 'litgpt');
    assert.equal(s.loop_keeps_outputs, true);
    assert.equal(s.longest_batch_first, true);
    assert.equal(s.mixed_precision, 'bf16');
    assert.equal(s.weights_dtype, 'fp32');
    assert.equal(s.gradient_accumulation_steps, 32);
  });
  it('over two devices: FSDP1 with every Block checkpointed', () => {
    const s = resolveText('lora.py', script({ devices: '2' })).setup!;
    assert.equal(s.fsdp, 'full_shard');
    assert.equal(s.fsdp_version, 1);
    assert.equal(s.gradient_checkpointing, 'full');
  });
  it('a quantize default makes QLoRA with PagedAdamW; its mixed-precision default is refused as Lit-GPT refuses it', () => {
    const r = analyzeHfPython(script({ quantize: '"bnb.nf4-dq"' }));
    assert.equal(factOf(r, 'method')?.value, 'qlora');
    assert.equal(factOf(r, 'quantType')?.value, 'nf4');
    assert.equal(factOf(r, 'doubleQuant')?.value, true);
    assert.equal(factOf(r, 'optimizer')?.value, 'paged_adamw');
    assert.ok(r.problems.some((p) => /mixed precision/.test(p.message)));
    const bf16 = analyzeHfPython(script({ quantize: '"bnb.nf4"', precision: '"bf16-true"' }));
    assert.equal(factOf(bf16, 'weightsDtype')?.value, 'bf16');
    assert.equal(
      bf16.problems.some((p) => /mixed precision/.test(p.message)),
      false,
    );
  });
  it('a max_seq_length constant of the later scripts caps the sequence; None leaves it to the longest sample', () => {
    const later = (v: string): string =>
      script()
        .replace('micro_batch_size = 4', `micro_batch_size = 4\nmax_seq_length = ${v}`)
        .replace(
          'model.max_seq_length = longest_seq_length',
          'model.max_seq_length = min(longest_seq_length, max_seq_length or float("inf"))',
        );
    assert.equal(factOf(analyzeHfPython(later('1024')), 'seqLen')?.value, 1024);
    assert.deepEqual(Object.keys(factOf(analyzeHfPython(later('None')), 'seqLen')?.value as object), ['unknown']);
  });
  it('full.py is a full fine-tune; the adapter scripts are said not to be modeled', () => {
    assert.equal(factOf(analyzeHfPython(script({ module: 'model' })), 'method')?.value, 'full');
    const adapter = analyzeHfPython(script({ module: 'adapter' }));
    assert.equal(factOf(adapter, 'method'), undefined);
    const warned = adapter.problems.find((p) => p.code === 'not-modeled');
    assert.match(warned?.message ?? '', /lit_gpt.adapter: LitGPT adapter fine-tuning is not modeled/);
  });
});
