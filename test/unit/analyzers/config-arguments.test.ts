// The config file a training script's TrlParser reads (`--config cfg.yaml`): its keys are the script's options below
// the launch line's (trl 0.8 trl/commands/cli_utils.py YamlConfigParser.merge_dataclasses; later releases make them
// the parser's defaults). The run read here is Phil Schmid's Llama-3-70B FSDP QLoRA
// (philschmid/deep-learning-pytorch-huggingface@57cab54, training/scripts/run_fsdp_qlora.py and the notebook's
// llama_3_70b_fsdp_qlora.yaml), cut to what decides the values asserted.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { configFileArguments } from '../../../src/analyzers/config-arguments';
import { runProject } from '../helpers';

const SCRIPT = `from dataclasses import dataclass, field
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments
from trl import SFTTrainer
from trl.commands.cli_utils import TrlParser

@dataclass
class ScriptArguments:
    model_id: str = field(default=None, metadata={"help": "Model ID to use for SFT training"})
    max_seq_length: int = field(default=512, metadata={"help": "The maximum sequence length for SFT Trainer"})

def training_function(script_args, training_args):
    quantization_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True,
        bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_quant_storage=torch.bfloat16)
    model = AutoModelForCausalLM.from_pretrained(script_args.model_id, quantization_config=quantization_config,
        attn_implementation="sdpa", torch_dtype=torch.bfloat16)
    trainer = SFTTrainer(model=model, args=training_args, train_dataset=train_dataset, peft_config=peft_config,
        max_seq_length=script_args.max_seq_length, packing=True)
    trainer.train()

if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, TrainingArguments))
    script_args, training_args = parser.parse_args_and_config()
    training_function(script_args, training_args)
`;

// The notebook's config: `max_seq_len` is no field of the script's dataclasses, so it sets nothing.
const CONFIG = `model_id: "meta-llama/Meta-Llama-3-70b"
max_seq_len:  3072
per_device_train_batch_size: 1
gradient_accumulation_steps: 2
bf16: true
gradient_checkpointing: true
fsdp: "full_shard auto_wrap offload"
fsdp_config:
  backward_prefetch: "backward_pre"
  forward_prefetch: "false"
  use_orig_params: "false"
`;

const LAUNCH =
  'ACCELERATE_USE_FSDP=1 FSDP_CPU_RAM_EFFICIENT_LOADING=1 torchrun --nproc_per_node=4 ./scripts/run_fsdp_qlora.py ' +
  '--config llama_3_70b_fsdp_qlora.yaml';

const reader = (files: Record<string, string>): FileReader => ({
  read: (p) => files[path.posix.normalize(p)],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

function runOf(launch: string, extra: Record<string, string> = {}, script = SCRIPT): PipelineResult {
  const files: Record<string, string> = {
    '/w/run.sh': launch,
    '/w/scripts/run_fsdp_qlora.py': script,
    '/w/llama_3_70b_fsdp_qlora.yaml': CONFIG,
    ...extra,
  };
  return runPipeline([{ file: '/w/run.sh', text: launch }], reader(files), {});
}

describe("a script's TrlParser --config file", () => {
  it('gives the script its options: the model from model_id, with the file and key said', () => {
    const r = runOf(LAUNCH);
    assert.equal(r.setup?.model, 'meta-llama/Meta-Llama-3-70b');
    assert.equal(r.setup?.gpus_per_node, 4);
    assert.equal(r.setup?.method, 'qlora');
    assert.equal(r.setup?.micro_batch_size, 1);
    assert.equal(r.setup?.gradient_accumulation_steps, 2);
    assert.equal(r.setup?.offload_params, 'cpu');
    const model = r.files.flatMap((f) => f.facts.facts).find((f) => f.key === 'model');
    assert.match(
      model?.rawValue ?? '',
      /model_id: meta-llama\/Meta-Llama-3-70b in llama_3_70b_fsdp_qlora\.yaml, the config file the script reads/,
    );
  });

  it('a key no dataclass has sets nothing: max_seq_len leaves max_seq_length at its default 512', () => {
    assert.equal(runOf(LAUNCH).setup?.seq_len, 512);
  });

  it("SFTTrainer's own packing=True (TRL before 0.12) makes every batch the full length", () => {
    assert.equal(runOf(LAUNCH).setup?.batch_lengths, 'fixed');
  });

  it("the launch line's own option wins over the config file's", () => {
    const r = runOf(`${LAUNCH} --model_id meta-llama/Meta-Llama-3-8B --max_seq_length 2048\n`);
    assert.equal(r.setup?.model, 'meta-llama/Meta-Llama-3-8B');
    assert.equal(r.setup?.seq_len, 2048);
  });

  it('a script whose parser does not read --config (its own argparse) takes nothing from the file', () => {
    const own = SCRIPT.replace(
      /if __name__ == "__main__":[\s\S]*$/,
      'if __name__ == "__main__":\n    parser = argparse.ArgumentParser()\n    parser.add_argument("--config")\n' +
        '    args = parser.parse_args()\n    training_function(ScriptArguments(), TrainingArguments())\n',
    );
    const r = runOf(LAUNCH, {}, own);
    assert.equal(r.setup, undefined);
    assert.ok(r.problems.some((p) => p.code === 'unknown-model'));
  });

  it('reads top-level scalars only, as PyYAML types them', () => {
    assert.deepEqual(
      configFileArguments('a: 1\nb: true\nc: "x"\nd: [1, 2]\ne:\n  f: 2\ng: off\n', 'c.yaml').map((a) => [
        a.name,
        a.value,
      ]),
      [
        ['a', '1'],
        ['b', 'True'],
        ['c', 'x'],
        ['g', 'False'],
      ],
    );
  });
});

describe("a parser's parse_yaml_file of a path the script writes", () => {
  it("alignment-handbook's H4ArgumentParser: the YAML is a config of the run (tillson/llm-fine-tuning dpo.ipynb)", () => {
    // The notebook builds H4ArgumentParser((ModelArguments, DataArguments, DPOConfig)) and reads
    // parse_yaml_file(yaml_file="training_configs/mistral-7b-base-dpo.yaml"); the YAML names the model and the batch.
    const script = [
      'from alignment import H4ArgumentParser, ModelArguments, DataArguments',
      'from trl import DPOConfig, DPOTrainer',
      'parser = H4ArgumentParser((ModelArguments, DataArguments, DPOConfig))',
      'model_args, data_args, training_args = parser.parse_yaml_file(yaml_file="configs/dpo.yaml")',
      'DPOTrainer(model=model_args.model_name_or_path, args=training_args).train()',
      '',
    ].join('\n');
    const files = {
      '/p/train.py': script,
      '/p/configs/dpo.yaml': 'model_name_or_path: mistralai/Mistral-7B-v0.1\nper_device_train_batch_size: 3\n',
    };
    const r = runPipeline([{ file: '/p/train.py', text: script }], reader(files), {});
    assert.ok(r.files.some((f) => f.file === '/p/configs/dpo.yaml'));
    assert.deepEqual([r.setup?.model, r.setup?.micro_batch_size], ['mistralai/Mistral-7B-v0.1', 3]);
  });
});

describe("a parser's parse_yaml_file of the file the launch line names", () => {
  // jonathanlu31/final_project's scripts/run_dpo.py: an argparse --config, HfArgumentParser over the project's own
  // ModelArguments, parse_yaml_file(args.config), and LoraConfig(target_modules=model_args.target_modules); its launcher
  // cds to its own folder and passes the YAML beside it.
  const module = [
    'from dataclasses import dataclass',
    '@dataclass',
    'class ModelArguments:',
    '    model_name_or_path: str = None',
    '    lora_r: int = 8',
    '    target_modules: str = None',
    '',
  ].join('\n');
  const script = (parse: string): string =>
    [
      'import argparse',
      'from peft import LoraConfig, get_peft_model',
      'from transformers import AutoModelForCausalLM, HfArgumentParser',
      'from trl import DPOConfig, DPOTrainer',
      'from configs import ModelArguments',
      'def main(args):',
      '    parser = HfArgumentParser((ModelArguments, DPOConfig))',
      `    ${parse}`,
      '    model_args, training_args = parsed',
      '    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)',
      '    peft_config = LoraConfig(r=model_args.lora_r, target_modules=model_args.target_modules)',
      '    model = get_peft_model(model, peft_config)',
      '    DPOTrainer(model=model, args=training_args).train()',
      'if __name__ == "__main__":',
      '    p = argparse.ArgumentParser()',
      '    p.add_argument("--config", type=str, required=True)',
      '    main(p.parse_args())',
      '',
    ].join('\n');
  const yaml =
    'model_name_or_path: Qwen/Qwen3-8B\nlora_r: 16\ntarget_modules: all-linear\nper_device_train_batch_size: 1\n';

  it("fills the script's own dataclass fields, and the launcher finds the file from where it runs", () => {
    const launcher = 'cd $(dirname "$0")\naccelerate launch ../../scripts/run_dpo.py --config dpo_lora.yaml\n';
    const r = runProject(
      {
        'recipes/dpo/dpo_lora.sh': launcher,
        'recipes/dpo/dpo_lora.yaml': yaml,
        'scripts/run_dpo.py': script('parsed = parser.parse_yaml_file(args.config)'),
        'scripts/configs.py': module,
      },
      'recipes/dpo/dpo_lora.sh',
    );
    assert.deepEqual(
      [r.setup?.model, r.setup?.lora?.r, r.setup?.lora?.target_modules],
      ['Qwen/Qwen3-8B', 16, 'all-linear'],
    );
    // The path is the launch line's, relative to where the launcher runs: not looked for beside the script.
    assert.ok(
      !r.problems.some((p) => p.code === 'reference-not-found'),
      JSON.stringify(r.problems.map((p) => p.message)),
    );
  });

  it("alignment-handbook's parse_yaml_and_args(os.path.abspath(sys.argv[1]), ...): the launch line's first word", () => {
    // Miraclove/DevAssistant's pretrain train.py, run as `torchrun ... train.py config.yaml --deepspeed=...`.
    const r = runProject(
      {
        'train.sh': 'torchrun --nproc_per_node=4 train.py config.yaml --deepspeed=ds.json\n',
        'config.yaml': yaml,
        'ds.json': '{"zero_optimization": {"stage": 3}}',
        'train.py': script('parsed = parser.parse_yaml_and_args(os.path.abspath(sys.argv[1]), sys.argv[2:])').replace(
          'import argparse',
          'import argparse, os, sys',
        ),
        'configs.py': module,
      },
      'train.sh',
    );
    assert.deepEqual([r.setup?.lora?.r, r.setup?.lora?.target_modules], [16, 'all-linear']);
  });
});

describe('FSDP_CPU_RAM_EFFICIENT_LOADING on the launch line, under the HF Trainer', () => {
  // transformers@v4.40.0 reads the variable at the load (modeling_utils.py is_fsdp_enabled); from 4.41
  // TrainingArguments sets it from fsdp_config's cpu_ram_efficient_loading, "false" unless given
  // (huggingface/transformers#30002).
  const pins = (transformers: string): Record<string, string> => ({
    '/w/requirements.txt': `transformers==${transformers}\nbitsandbytes==0.43.1\n`,
  });

  it("before transformers 4.41 the environment's value is what the load reads", () => {
    const r = runOf(LAUNCH, pins('4.40.0'));
    assert.equal(r.setup?.fsdp_cpu_ram_efficient_loading, true);
    assert.deepEqual(r.provenance.fsdp_cpu_ram_efficient_loading, {
      kind: 'file',
      file: '/w/run.sh',
      line: 1,
      key: 'FSDP_CPU_RAM_EFFICIENT_LOADING',
    });
  });

  it("from 4.41 the Trainer's fsdp_config replaces it, false unless given", () => {
    const r = runOf(LAUNCH, pins('4.41.0'));
    assert.equal(r.setup?.fsdp_cpu_ram_efficient_loading, false);
    const prov = r.provenance.fsdp_cpu_ram_efficient_loading;
    assert.equal(prov?.kind, 'default');
    assert.match(prov?.kind === 'default' ? (prov.note ?? '') : '', /huggingface\/transformers#30002/);
  });

  it('from 4.41 a cpu_ram_efficient_loading in the fsdp_config is the value', () => {
    const config = CONFIG.replace('fsdp_config:\n', 'fsdp_config:\n  cpu_ram_efficient_loading: true\n');
    const r = runOf(LAUNCH.replace('FSDP_CPU_RAM_EFFICIENT_LOADING=1', 'FSDP_CPU_RAM_EFFICIENT_LOADING=0'), {
      ...pins('4.41.0'),
      '/w/llama_3_70b_fsdp_qlora.yaml': config,
    });
    assert.equal(r.setup?.fsdp_cpu_ram_efficient_loading, true);
    assert.equal(r.provenance.fsdp_cpu_ram_efficient_loading?.kind, 'file');
  });

  it('accelerate launch sets it from its own config over the environment: the variable is not read', () => {
    const r = runOf(
      'FSDP_CPU_RAM_EFFICIENT_LOADING=0 accelerate launch --use_fsdp --num_processes 4 ./scripts/run_fsdp_qlora.py ' +
        '--config llama_3_70b_fsdp_qlora.yaml\n',
      pins('4.40.0'),
    );
    const env = r.files.flatMap((f) => f.facts.facts).find((f) => f.rawKey === 'FSDP_CPU_RAM_EFFICIENT_LOADING');
    assert.equal(env, undefined);
  });
});
