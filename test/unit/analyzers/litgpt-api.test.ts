// LitGPT's Python API in a script with its own loop (src/analyzers/hf-python/litgpt-api.ts). The first script is
// written in the shape of LitGPT's tutorial (Lightning-AI/litgpt@2685705 tutorials/full_finetune_example.py: a
// module constant MODEL_NAME, `Config.from_file(f"checkpoints/{MODEL_NAME}/model_config.yaml")`, `GPT(config)`,
// `L.Fabric(devices="auto", strategy="auto")`, `Alpaca().connect(tokenizer=..., batch_size=BATCH_SIZE,
// max_seq_length=1024)`). Expected values read from it by hand: Fabric's precision defaults to "32-true"
// (lightning/fabric/connector.py), so fp32 weights and no autocast; "auto" devices are every GPU, which the file does
// not say; LitGPT's SFT collate pads each batch to its longest sample.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { isUnknown } from '../../../src/analyzers/facts';
import { resolveText } from '../helpers';
import { factOf } from './yaml-common.test';

const tutorial = [
  'import lightning as L',
  'import torch',
  'from litgpt.data import Alpaca',
  'from litgpt.model import GPT, Config',
  'from litgpt.tokenizer import Tokenizer',
  '',
  'MODEL_NAME = "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T"',
  'BATCH_SIZE = 4',
  '',
  'def train(fabric, model, optimizer, train_dataloader):',
  '    for iter_num, batch in enumerate(train_dataloader):',
  '        input_ids, targets = batch["input_ids"], batch["labels"]',
  '        logits = model(input_ids)',
  '        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))',
  '        fabric.backward(loss)',
  '        optimizer.step()',
  '        optimizer.zero_grad()',
  '',
  'def main(fabric):',
  '    data = Alpaca()',
  '    tokenizer = Tokenizer(checkpoint_dir=f"checkpoints/{MODEL_NAME}")',
  '    data.connect(tokenizer=tokenizer, batch_size=BATCH_SIZE, max_seq_length=1024)',
  '    train_dataloader = fabric.setup_dataloaders(data.train_dataloader())',
  '    config = Config.from_file(f"checkpoints/{MODEL_NAME}/model_config.yaml")',
  '    model = GPT(config)',
  '    model = fabric.setup(model)',
  '    optimizer = fabric.setup_optimizers(torch.optim.AdamW(model.parameters(), lr=3e-3))',
  '    train(fabric, model, optimizer, train_dataloader)',
  '',
  'if __name__ == "__main__":',
  '    fabric = L.Fabric(devices="auto", strategy="auto")',
  '    fabric.launch(main)',
].join('\n');

const lora = [
  'import lightning as L',
  'import torch',
  'from lightning.fabric.strategies import FSDPStrategy',
  'from litgpt.lora import GPT, Block, Config, mark_only_lora_as_trainable',
  '',
  'config = Config.from_name("pythia-160m", lora_r=16, lora_alpha=32, lora_query=True, lora_value=True, lora_mlp=False)',
  'fabric = L.Fabric(devices=4, precision="bf16-true", strategy=FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block}))',
  'model = GPT(config)',
  'mark_only_lora_as_trainable(model)',
  'loader = torch.utils.data.DataLoader(dataset, batch_size=8)',
  'for batch in loader:',
  '    loss = model(batch).sum()',
  '    fabric.backward(loss)',
].join('\n');

describe("LitGPT's Python API in a script's own loop", () => {
  it('is read as a Python training file', () => {
    assert.equal(detectFormat('tutorials/full_finetune_example.py', tutorial), 'hf-python');
  });
  it("reads the model from the checkpoint folder's f-string, the batch from the data module's connect", () => {
    const r = analyzeHfPython(tutorial);
    assert.equal(factOf(r, 'model')?.value, 'TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T');
    assert.equal(factOf(r, 'modelCode')?.value, 'litgpt');
    assert.equal(factOf(r, 'method')?.value, 'full');
    assert.equal(factOf(r, 'microBatchSize')?.value, 4);
    assert.equal(factOf(r, 'seqLen')?.value, 1024);
    assert.equal(factOf(r, 'batchLengths')?.value, 'variable');
    assert.ok(isUnknown(factOf(r, 'gpusPerNode')!.value));
  });
  it("resolves as Fabric runs it: fp32 throughout by Fabric's default precision, LitGPT's model code, the loop's logits kept", () => {
    const s = resolveText('full_finetune_example.py', tutorial).setup!;
    assert.equal(s.model_code, 'litgpt');
    assert.equal(s.weights_dtype, 'fp32');
    assert.equal(s.mixed_precision, 'none');
    assert.equal(s.method, 'full');
    assert.equal(s.optimizer, 'adamw');
    assert.equal(s.loop_keeps_outputs, true);
    // Not LitGPT's CLI defaults: the script's loop computes the whole head and its cross-entropy at once.
    assert.equal(s.loss, 'full');
  });
  it("reads LitGPT's LoRA Config fields, a model name, and Fabric's FSDPStrategy and precision", () => {
    const r = analyzeHfPython(lora);
    assert.equal(factOf(r, 'model')?.value, 'EleutherAI/pythia-160m');
    assert.equal(factOf(r, 'method')?.value, 'lora');
    assert.equal(factOf(r, 'loraR')?.value, 16);
    assert.equal(factOf(r, 'loraAlpha')?.value, 32);
    assert.deepEqual(factOf(r, 'loraTargets')?.value, ['q_proj', 'v_proj']);
    assert.equal(factOf(r, 'gpusPerNode')?.value, 4);
    assert.equal(factOf(r, 'fsdp')?.value, 'full_shard');
    assert.equal(factOf(r, 'fsdpVersion')?.value, 1);
    assert.equal(factOf(r, 'gradientCheckpointing')?.value, 'full');
    assert.equal(factOf(r, 'weightsDtype')?.value, 'bf16');
    assert.equal(factOf(r, 'mixedPrecision')?.value, 'none');
    assert.equal(factOf(r, 'microBatchSize')?.value, 8);
  });
  it("says where the checkpoint folder is not of LitGPT's download layout, and reads nothing from a run-time path", () => {
    const odd = tutorial.replace('f"checkpoints/{MODEL_NAME}/model_config.yaml"', '"model_config.yaml"');
    assert.match(
      String((factOf(analyzeHfPython(odd), 'model')?.value as { unknown: string }).unknown),
      /not a checkpoints\/<org>\/<name> folder/,
    );
    const runtime = tutorial.replace('f"checkpoints/{MODEL_NAME}/model_config.yaml"', 'args.config_path');
    assert.ok(isUnknown(factOf(analyzeHfPython(runtime), 'model')!.value));
  });
  it("leaves a transformers model's dtype to its load under Fabric's 32-true and mixed precisions", () => {
    const hf = (precision: string): string =>
      [
        'import lightning as L',
        'from transformers import AutoModelForCausalLM',
        `fabric = L.Fabric(devices=2${precision})`,
        'model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype=torch.bfloat16)',
        'for batch in loader:',
        '    fabric.backward(model(**batch).loss)',
      ].join('\n');
    const plain = resolveText('train.py', hf('')).setup!;
    assert.equal(plain.weights_dtype, 'bf16');
    assert.equal(plain.mixed_precision, 'none');
    assert.equal(plain.model_code, 'transformers');
    const mixed = resolveText('train.py', hf(', precision="bf16-mixed"')).setup!;
    assert.equal(mixed.weights_dtype, 'bf16');
    assert.equal(mixed.mixed_precision, 'bf16');
    assert.equal(resolveText('train.py', hf(', precision="16-true"')).setup!.weights_dtype, 'fp16');
  });
  it("reads Fabric's registered DeepSpeed names, and leaves the precision to a Precision plugin", () => {
    const z3 = analyzeHfPython(tutorial.replace('strategy="auto"', 'strategy="deepspeed_stage_3_offload"'));
    assert.equal(factOf(z3, 'zeroStage')?.value, 3);
    assert.equal(factOf(z3, 'offloadOptimizer')?.value, 'cpu');
    assert.equal(factOf(z3, 'offloadParams')?.value, 'cpu');
    const plugin = analyzeHfPython(tutorial.replace('strategy="auto"', 'plugins=BitsandbytesPrecision("nf4")'));
    assert.ok(isUnknown(factOf(plugin, 'mixedPrecision')!.value));
  });
  it('leaves a Fabric strategy it does not model to a warning at the strategy', () => {
    const r = analyzeHfPython(tutorial.replace('strategy="auto"', 'strategy="xla"'));
    assert.ok(r.problems.some((p) => p.code === 'not-modeled' && /xla/.test(p.message)));
  });
});
