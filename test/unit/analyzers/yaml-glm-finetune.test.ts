// THUDM's GLM fine-tuning configs (src/analyzers/yaml/glm-finetune.ts) and the command their README runs them with.
// LORA is THUDM/GLM-4@3f79b54 finetune/configs/lora.yaml (Apache-2.0), abridged; its README.md runs
// `python finetune.py data/AdvertiseGen/ THUDM/GLM-4-9B-0414 configs/lora.yaml` (a typer command: data_dir,
// model_dir, config_file), whose process_batch cuts every sample to max_input_length + max_output_length + 1 tokens
// and whose collator pads a batch to its longest.
import * as assert from 'node:assert/strict';
import { detectFormat } from '../../../src/analyzers/detect';
import { analyzeGlmFinetuneYaml } from '../../../src/analyzers/yaml/glm-finetune';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import { runProject } from '../helpers';

const LORA = `data_config:
  train_file: train.jsonl
  val_file: dev.jsonl
  num_proc: 1

combine: True
freezeV: True
max_input_length: 512
max_output_length: 512

training_args:
  output_dir: ./output
  max_steps: 3000
  learning_rate: 5e-4
  per_device_train_batch_size: 1
  per_device_eval_batch_size: 4
  eval_strategy: steps
  predict_with_generate: true
  generation_config:
    max_new_tokens: 512
  deepspeed: configs/ds_zero_2.json

peft_config:
  peft_type: LORA
  task_type: CAUSAL_LM
  r: 8
  lora_alpha: 32
  lora_dropout: 0.1
  target_modules: ["q_proj", "k_proj", "v_proj"]
`;

const SCRIPT = `from typing import Annotated
import typer
from transformers import AutoModelForCausalLM, Seq2SeqTrainer

app = typer.Typer(pretty_exceptions_show_locals=False)

@app.command()
def main(
    data_dir: Annotated[str, typer.Argument(help='')],
    model_dir: Annotated[str, typer.Argument(help='')],
    config_file: Annotated[str, typer.Argument(help='')],
    auto_resume_from_checkpoint: str = typer.Argument(default=''),
):
    model = AutoModelForCausalLM.from_pretrained(model_dir, trust_remote_code=True)
    trainer = Seq2SeqTrainer(model=model)
    trainer.train()

if __name__ == '__main__':
    app()
`;

const README =
  '## Start fine-tuning\n\n```shell\npython finetune.py  data/AdvertiseGen/  THUDM/GLM-4-9B-0414  configs/lora.yaml\n```\n';

describe('GLM fine-tuning config', () => {
  it('reads training_args as the Trainer, peft_config as LoRA, and the longest sample from the two lengths', () => {
    assert.equal(detectFormat('configs/lora.yaml', LORA), 'glm-finetune-yaml');
    const f = analyzeGlmFinetuneYaml(LORA);
    const at = (key: string) => f.facts.filter((x) => x.key === key).map((x) => [x.rawKey, x.value]);
    assert.deepEqual(at('microBatchSize'), [['training_args.per_device_train_batch_size', 1]]);
    assert.deepEqual(at('method'), [['peft_config.peft_type', 'lora']]);
    assert.deepEqual(at('loraR'), [['peft_config.r', 8]]);
    assert.deepEqual(at('loraTargets'), [['peft_config.target_modules', ['q_proj', 'k_proj', 'v_proj']]]);
    // 512 + 512 + 1 (process_batch's max_length), the batch padded to its longest.
    assert.deepEqual(at('seqLen'), [['max_input_length + max_output_length + 1', 1025]]);
    assert.deepEqual(at('batchLengths'), [['max_output_length', 'variable']]);
    assert.ok(f.references.some((r) => r.kind === 'deepspeed' && r.path === 'configs/ds_zero_2.json'));
    // Seq2SeqTrainer's predict_with_generate keeps generated token ids, not logits (trainer_seq2seq.py prediction_step)
    assert.deepEqual(at('evalLogitsReleased'), [['training_args.predict_with_generate', true]]);
    // The evaluation set has no labels (finetune.py process_batch_eval returns input_ids and output_ids): generation
    // only, up to max_new_tokens after prompts of max_input_length tokens and the assistant's role token.
    assert.deepEqual(at('evalNewTokens'), [['generation_config.max_new_tokens', 512]]);
    assert.deepEqual(at('evalPromptLen'), [['max_input_length + 1', 513]]);
  });

  it('P-tuning v2 (PREFIX_TUNING) is said not to be modeled, at peft_type', () => {
    const f = analyzeGlmFinetuneYaml(LORA.replace('peft_type: LORA', 'peft_type: PREFIX_TUNING'));
    assert.ok(f.problems.some((p) => p.code === 'not-modeled' && p.rawKey === 'peft_config.peft_type'));
    assert.equal(
      f.facts.find((x) => x.key === 'method'),
      undefined,
    );
  });

  it("given alone, is run by its README's command: the model is the command's second argument", () => {
    const r = runProject(
      { 'finetune/configs/lora.yaml': LORA, 'finetune/finetune.py': SCRIPT, 'finetune/README.md': README },
      'finetune/configs/lora.yaml',
    );
    assert.equal(r.setup?.model, 'THUDM/GLM-4-9B-0414');
    assert.deepEqual([r.setup?.method, r.setup?.lora?.r, r.setup?.seq_len], ['lora', 8, 1025]);
    // The evaluation at per_device_eval_batch_size 4 generates: no loss forward over 4 x 1,025 tokens.
    assert.deepEqual([r.setup?.eval_batch_size, r.setup?.eval_generation], [4, { prompt_len: 513, new_tokens: 512 }]);
    // THUDM/ChatGLM3's finetune_demo keeps its English README as README_en.md beside the Chinese README.md.
    const english = runProject(
      { 'finetune/configs/lora.yaml': LORA, 'finetune/finetune.py': SCRIPT, 'finetune/README_en.md': README },
      'finetune/configs/lora.yaml',
    );
    assert.equal(english.setup?.model, 'THUDM/GLM-4-9B-0414');
  });

  it("a config beside the one the README runs is run the same way, the command's comment after its last word", () => {
    // THUDM/GLM-4's README: `python finetune.py  data/AdvertiseGen/  THUDM/GLM-4-9B-0414  configs/lora.yaml # For Chat
    // Fine-tune`; its configs/sft.yaml (full fine-tuning, no peft_config) is run as that command runs lora.yaml.
    const readme = README.replace('configs/lora.yaml', 'configs/lora.yaml # For Chat Fine-tune');
    const sft = LORA.slice(0, LORA.indexOf('peft_config:'));
    const r = runProject(
      {
        'finetune/configs/lora.yaml': LORA,
        'finetune/configs/sft.yaml': sft,
        'finetune/finetune.py': SCRIPT,
        'finetune/README.md': readme,
      },
      'finetune/configs/sft.yaml',
    );
    assert.deepEqual([r.setup?.model, r.setup?.method], ['THUDM/GLM-4-9B-0414', 'full']);
  });

  it('quick fixes write the Trainer keys under training_args and LoRA under peft_config', () => {
    const facts = analyzeGlmFinetuneYaml(LORA);
    const file = { file: 'lora.yaml', text: LORA, format: 'glm-finetune-yaml' as const, facts };
    const plan = editsForChanges([{ key: 'micro_batch_size', value: 2 }], [file], 'lora.yaml');
    assert.match(applyEditData(LORA, plan.edits), /per_device_train_batch_size: 2\n/);
    const seq = editsForChanges([{ key: 'seq_len', value: 512 }], [file], 'lora.yaml');
    assert.equal(seq.edits.length, 0);
    assert.match(seq.unsupported[0]?.reason ?? '', /max_input_length \+ max_output_length \+ 1/);
  });
});
