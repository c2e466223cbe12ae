// XTuner's (v0) mmengine configs: InternLM/xtuner@b934f46
// xtuner/configs/llama/llama3_8b_instruct/llama3_8b_instruct_qlora_alpaca_e3.py, shortened to the keys that change memory.
// Lazy dicts (`dict(type=AutoModelForCausalLM.from_pretrained, ...)`) are read as the calls they stand for; XTuner's
// SupervisedFinetune checkpoints every layer, runs prepare_model_for_kbit_training for LoRA and targets every linear
// layer when the LoraConfig names none (xtuner/model/sft.py).
import * as assert from 'node:assert/strict';
import type { CanonicalKey, ConfigFacts } from '../../../src/analyzers/facts';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import * as path from 'node:path';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { resolveText, run } from '../helpers';

const QLORA = [
  'import torch',
  'from mmengine.optim import AmpOptimWrapper',
  'from peft import LoraConfig',
  'from torch.optim import AdamW',
  'from transformers import AutoModelForCausalLM, BitsAndBytesConfig',
  'from xtuner.dataset import process_hf_dataset',
  'from xtuner.model import SupervisedFinetune',
  '',
  'pretrained_model_name_or_path = "meta-llama/Meta-Llama-3-8B-Instruct"',
  'max_length = 2048',
  'pack_to_max_length = True',
  'batch_size = 1  # per_device',
  'accumulative_counts = 16',
  '',
  'model = dict(',
  '    type=SupervisedFinetune,',
  '    llm=dict(',
  '        type=AutoModelForCausalLM.from_pretrained,',
  '        pretrained_model_name_or_path=pretrained_model_name_or_path,',
  '        torch_dtype=torch.float16,',
  '        quantization_config=dict(',
  '            type=BitsAndBytesConfig,',
  '            load_in_4bit=True,',
  '            bnb_4bit_compute_dtype=torch.float16,',
  '            bnb_4bit_use_double_quant=True,',
  '            bnb_4bit_quant_type="nf4",',
  '        ),',
  '    ),',
  '    lora=dict(type=LoraConfig, r=64, lora_alpha=16, lora_dropout=0.1, bias="none", task_type="CAUSAL_LM"),',
  ')',
  'alpaca_en = dict(type=process_hf_dataset, max_length=max_length, pack_to_max_length=pack_to_max_length)',
  'train_dataloader = dict(batch_size=batch_size, dataset=alpaca_en)',
  'optim_wrapper = dict(',
  '    type=AmpOptimWrapper,',
  '    optimizer=dict(type=AdamW, lr=2e-4),',
  '    accumulative_counts=accumulative_counts,',
  '    dtype="float16",',
  ')',
  '',
].join('\n');

const value = (r: ConfigFacts, key: CanonicalKey): unknown => r.facts.filter((f) => f.key === key).pop()?.value;

/** The pipeline over a launch line at /r/run.sh, with the QLoRA config at /r/configs/qlora.py. */
function launched(line: string) {
  const files: Record<string, string> = { '/r/run.sh': line, '/r/configs/qlora.py': QLORA };
  return runPipeline(
    [{ file: '/r/run.sh', text: line }],
    { read: (p) => files[p], join: (from, rel) => path.posix.join(path.posix.dirname(from), rel) },
    {},
  );
}

describe("analyzers: XTuner's mmengine configs", () => {
  it('reads the lazy dicts as the calls they stand for, and what XTuner does with them', () => {
    assert.equal(detectFormat('llama3_8b_instruct_qlora_alpaca_e3.py', QLORA), 'hf-python');
    const r = analyzeHfPython(QLORA);
    const want: Array<[CanonicalKey, unknown]> = [
      ['model', 'meta-llama/Meta-Llama-3-8B-Instruct'],
      ['quantBits', 4],
      ['quantType', 'nf4'],
      ['weightsDtype', 'fp16'],
      ['method', 'qlora'],
      ['loraR', 64],
      ['loraAlpha', 16],
      // XTuner's defaults: every linear layer (find_all_linear_names), every parameter not 4-bit in fp32, checkpointing.
      ['loraTargets', 'all-linear'],
      ['kbitUpcast', 'all'],
      ['gradientCheckpointing', 'full'],
      ['microBatchSize', 1],
      ['gradientAccumulationSteps', 16],
      ['seqLen', 2048],
      ['batchLengths', 'fixed'],
      ['mixedPrecision', 'fp16'],
    ];
    for (const [key, v] of want) assert.deepEqual(value(r, key), v, key);
    assert.ok(r.tools.includes('xtuner'));
    const defaults = r.facts.filter((f) => f.origin === 'call-default' && f.tool === 'xtuner').map((f) => f.key);
    assert.deepEqual(defaults.sort(), ['gradientCheckpointing', 'kbitUpcast', 'loraTargets']);
    // Resolved: the all-linear targets of Llama-3-8B at r 64 are 167.8M parameters (32 layers x r x (in + out) of
    // q 4096x4096, k and v 4096x1024, o 4096x4096, gate and up 4096x14336, down 14336x4096).
    const setup = resolveText('/x/qlora.py', QLORA).setup!;
    assert.equal(setup.lora?.target_modules, 'all-linear');
    assert.equal(
      run(setup).parameters.trainable,
      32 * 64 * (4096 + 4096 + 2 * (4096 + 1024) + 4096 + 4096 + 2 * (4096 + 14336) + 14336 + 4096),
    );
  });

  it('what the config says over the defaults: checkpointing off, targets named, bf16 AMP, a plain OptimWrapper', () => {
    const own = QLORA.replace(
      'type=SupervisedFinetune,',
      'type=SupervisedFinetune,\n    use_activation_checkpointing=False,',
    )
      .replace('task_type="CAUSAL_LM"', 'task_type="CAUSAL_LM", target_modules=["q_proj", "v_proj"]')
      .replace('dtype="float16"', 'dtype="bfloat16"');
    const r = analyzeHfPython(own);
    assert.equal(value(r, 'gradientCheckpointing'), 'none');
    assert.deepEqual(value(r, 'loraTargets'), ['q_proj', 'v_proj']);
    assert.equal(value(r, 'mixedPrecision'), 'bf16');
    const plain = analyzeHfPython(QLORA.replace('type=AmpOptimWrapper', 'type=OptimWrapper'));
    assert.equal(value(plain, 'mixedPrecision'), 'none');
    // A full fine-tune (no lora): no kbit preparation, no targets.
    const full = analyzeHfPython(QLORA.replace(/ {4}lora=dict\(.*\),\n/, ''));
    assert.equal(value(full, 'kbitUpcast'), undefined);
    assert.equal(value(full, 'loraTargets'), undefined);
  });

  it('`NPROC_PER_NODE=8 xtuner train <config>.py --deepspeed deepspeed_zero2`: the config, the processes, the preset', () => {
    // xtuner/entry_point.py starts torchrun with NPROC_PER_NODE processes; deepspeed_zero2 is XTuner's bundled
    // xtuner/configs/deepspeed/deepspeed_zero2.json (stage 2, no offload), its fp16 "auto" filled from the AMP dtype.
    const r = launched('NPROC_PER_NODE=8 xtuner train configs/qlora.py --deepspeed deepspeed_zero2\n');
    assert.equal(r.setup?.model, 'meta-llama/Meta-Llama-3-8B-Instruct');
    assert.equal(r.setup?.gpus_per_node, 8);
    assert.equal(r.setup?.zero_stage, 2);
    assert.equal(r.setup?.offload_optimizer, 'none');
    assert.equal(r.setup?.gradient_accumulation_steps, 16);
    // Under DeepSpeed fp16 the weights are 16-bit with an fp32 master copy and a loss scaler: not "pure fp16".
    assert.equal(r.setup?.master_weights, true);
    assert.ok(!run(r.setup!).warnings.some((w) => w.key === 'weights_dtype'));
    // Without NPROC_PER_NODE: one process, said as XTuner's default.
    const alone = launched('xtuner train configs/qlora.py\n');
    assert.equal(alone.setup?.gpus_per_node, 1);
    assert.equal(alone.provenance.gpus_per_node?.kind, 'default');
  });

  it("`torchrun --nproc_per_node=4 -m xtuner.tools.train <config>.py --deepspeed deepspeed_zero2`: torchrun's processes", () => {
    // YancyDan/PLaST scripts/train_plast_8b.sh runs XTuner's train module under torchrun itself.
    const r = launched(
      'torchrun \\\n  --nproc_per_node=4 \\\n  -m xtuner.tools.train \\\n  configs/qlora.py \\\n' +
        '  --deepspeed deepspeed_zero2 \\\n  --launcher pytorch\n',
    );
    assert.equal(r.setup?.model, 'meta-llama/Meta-Llama-3-8B-Instruct');
    assert.equal(r.setup?.gpus_per_node, 4);
    assert.equal(r.setup?.zero_stage, 2);
  });

  it('only a `type` bound to a name makes a dict a call: rope_scaling=dict(type="linear") stays data', () => {
    const text =
      'from transformers import AutoModelForCausalLM\n' +
      'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", rope_scaling=dict(type="linear", factor=2.0))\n';
    const r = analyzeHfPython(text);
    assert.equal(value(r, 'model'), 'Qwen/Qwen2.5-0.5B');
    assert.ok(!r.tools.includes('xtuner'));
  });
});
