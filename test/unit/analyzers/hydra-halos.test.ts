// HALOs (src/analyzers/hydra/halos.ts): its Hydra config composed from the launch line, read as launch.py and
// train/trainers.py run it. The files are written here after ContextualAI/HALOs@4831988's config/, accelerate_config/
// and scripts/launch_llama_instruct_kto.sh (their keys and defaults, shortened).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { applyEditData, editsForChanges, type FixFile } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';
import { detectFormat } from '../../../src/analyzers/detect';
import { estimate } from '../../../src/core/estimate';
import { runFact } from '../helpers';

const CONFIG = `seed: 1
exp_name: ???
train_datasets: ???
cache_dir: .cache/
local_run_dir: \${cache_dir}/\${exp_name}
defaults:
- _self_
- model: ???
- loss: ???
trainer: BasicTrainer
lr: 5e-6
n_epochs: 1
n_examples: null
optimizer: AdamW
weight_decay: 0.01
cache_reference_logprobs: false
humanline: false
online: false
frac_unique_desirable: 1.0
`;
const BASE_MODEL = `name_or_path: ???
load_from: null
block_name: null
policy_dtype: bfloat16
reference_dtype: bfloat16
max_length: 1250
max_prompt_length: 625
activation_checkpointing: true
batch_size: 32
microbatch_size: null
gradient_accumulation_steps: 1
eval_batch_size: 32
attn_implementation: eager
use_peft: false
peft:
  lora_r: 64
  lora_alpha: 256
  lora_dropout: 0.05
  target_modules: "all-linear"
`;
const LLAMA = `defaults:
  - base_model

name_or_path: null
block_name: LlamaDecoderLayer
attn_implementation: flash_attention_2
`;
const KTO = `beta: 0.1
trainer: KTOTrainer
dataloader: UnpairedPreferenceDataLoader
desirable_weight: 1.0
undesirable_weight: 1.0
sync_reference: false
`;
const LOSSES: Record<string, string> = {
  kto: KTO,
  dpo: 'beta: 0.1\ntrainer: DPOTrainer\ndataloader: PairedPreferenceDataLoader\nsync_reference: false\n',
  slic: 'beta: 1.0\nlambda_coef: 0.1\ntrainer: SLiCTrainer\ndataloader: PairedPreferenceDataLoader\n',
  sft: 'trainer: SFTTrainer\ndataloader: SFTDataLoader\nsync_reference: false\n',
  ppo: 'ppo_epochs: 1\ntrainer: PPOTrainer\ndataloader: UnpairedPreferenceDataLoader\n',
};
const ACCELERATE = `compute_environment: LOCAL_MACHINE
distributed_type: FSDP
fsdp_config:
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_backward_prefetch_policy: BACKWARD_PRE
  fsdp_cpu_ram_efficient_loading: true
  fsdp_offload_params: false
  fsdp_sharding_strategy: FULL_SHARD
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_use_orig_params: true
num_machines: 1
num_processes: 4
`;
const LAUNCH_PY = `import hydra
from omegaconf import DictConfig
from peft import LoraConfig, get_peft_model
from train.models import AutoModelForCausalLMWithValueHead

def main(config: DictConfig):
    policy = AutoModelForCausalLM.from_pretrained(config.model.name_or_path)
    if config.model.use_peft:
        peft_config = LoraConfig(
            r=config.model.peft.lora_r,
            lora_alpha=config.model.peft.lora_alpha,
            lora_dropout=config.model.peft.lora_dropout,
            target_modules=config.model.peft.target_modules,
        )
        policy = get_peft_model(policy, peft_config)
    if config.model.activation_checkpointing:
        policy.gradient_checkpointing_enable()

@hydra.main(version_base=None, config_path="config", config_name="config")
def hydra_main(config: DictConfig):
    main(config)
`;
/** train/models.py's value-head wrapper: its gradient_checkpointing_enable passes the call on. */
const MODELS_PY = `from transformers import AutoModelForCausalLM

class AutoModelForCausalLMWithValueHead(nn.Module):
    def gradient_checkpointing_enable(self):
        self.pretrained_model.gradient_checkpointing_enable()
`;
/** The KTO run of scripts/launch_llama_instruct_kto.sh (here at the root it runs from): the model exported in `bash -c`. */
const SCRIPT = `#!/bin/bash
#SBATCH --gres=gpu:4
BETA=$1
LR=$2
srun --jobid=$SLURM_JOB_ID --nodes=1 --ntasks-per-node=1 bash -c "
export MODEL_PATH=meta-llama/Meta-Llama-3-8B-Instruct
export EXP_NAME=llama3-8B-instruct-\${BETA}-\${LR}
accelerate launch \\
    --config_file accelerate_config/fsdp_4gpu.yaml \\
    --machine_rank \\$SLURM_PROCID \\
    launch.py loss=kto model=llama train_datasets=[ultrafeedback_armorm] exp_name=\\$EXP_NAME \\
    ++model.name_or_path=\\$MODEL_PATH \\
    ++lr=\${LR} \\
    ++loss.beta=\${BETA} ++loss.desirable_weight=1.1 \\
    ++model.batch_size=64 ++model.eval_batch_size=64
"
`;

const FILES: Record<string, string> = {
  '/h/launch.py': LAUNCH_PY,
  '/h/train/models.py': MODELS_PY,
  '/h/launch_kto.sh': SCRIPT,
  '/h/accelerate_config/fsdp_4gpu.yaml': ACCELERATE,
  '/h/config/config.yaml': CONFIG,
  '/h/config/model/base_model.yaml': BASE_MODEL,
  '/h/config/model/llama.yaml': LLAMA,
  ...Object.fromEntries(Object.entries(LOSSES).map(([k, v]) => [`/h/config/loss/${k}.yaml`, v])),
};
const reader: FileReader = {
  read: (p) => FILES[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
};

/** The launch script's run with `from -> to` applied to its text. */
function runOf(edit?: [string, string]): PipelineResult {
  const text = edit ? SCRIPT.replace(edit[0], edit[1]) : SCRIPT;
  return runPipeline([{ file: '/h/launch_kto.sh', text }], reader, {});
}

const factOf = runFact;

describe('Hydra: HALOs', () => {
  it('detects its primary config and its model and loss options', () => {
    assert.equal(detectFormat('/h/config/config.yaml', CONFIG), 'hydra-yaml');
    assert.equal(detectFormat('/h/config/model/llama.yaml', LLAMA), 'hydra-yaml');
    assert.equal(detectFormat('/h/config/loss/kto.yaml', KTO), 'hydra-yaml');
  });

  it("KTO over 4 GPUs from the Slurm script: the launch inside srun's bash -c, Accelerate's FSDP, the model option's batch", () => {
    const r = runOf();
    const s = r.setup!;
    assert.equal(s.gpus_per_node, 4);
    // Accelerate's FSDP plugin without fsdp_version: FSDP1.
    assert.deepEqual([s.fsdp, s.fsdp_version ?? 1], ['full_shard', 1]);
    // model.batch_size is the step's: 64 / (4 processes x 1 accumulation step) = 16 examples per GPU (launch.py).
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len], [16, 1, 1250]);
    assert.deepEqual([s.weights_dtype, s.mixed_precision, s.optimizer], ['bf16', 'none', 'adamw']);
    assert.deepEqual([s.attention, s.gradient_checkpointing, s.method], ['flash', 'full', 'full']);
    // KTOTrainer: single completions with a KL batch; a reference of its own in bfloat16; log-probs only kept.
    assert.deepEqual(s.preference, { reference: 'copy', logps: 'whole', paired: false, logits_kept: false });
    assert.equal(s.reference_dtype, 'bf16');
    // The launch line's ++model.name_or_path, placed at the key it replaces (compose.ts).
    const model = factOf(r, 'model')!;
    assert.deepEqual(
      [model.file, model.fact.rawKey, model.fact.value],
      ['/h/config/model/llama.yaml', 'model.name_or_path (launch line)', 'meta-llama/Meta-Llama-3-8B-Instruct'],
    );
    assert.equal(factOf(r, 'trainBatchSize')?.fact.rawKey, 'model.batch_size (launch line)');
    assert.deepEqual(
      [factOf(r, 'attention')?.file, factOf(r, 'attention')?.at],
      ['/h/config/model/llama.yaml', 'flash_attention_2'],
    );
    assert.equal(factOf(r, 'preference')?.file, '/h/config/loss/kto.yaml');
  });

  it("the reference's passes: one at a time, 12 B per logit (its fp32 logits, the slice's copy and the log_softmax)", () => {
    const e = estimate(runOf().setup!);
    assert.ok(e.ok);
    // T = 16 x 1,250 = 20,000 tokens, V = 128,256: 12 x 20,000 x 128,256 B. Read as LLaMA-Factory's KTO (the policy's
    // fp32 index copies and the reference's completion logits held beside the KL batch's pass), 20 x T x V.
    const ref = e.estimate.perGpu.components.find(
      (c) => c.label === 'Reference forward: logits and log-probs (no grad)',
    );
    assert.equal(ref?.bytes, 12 * 20_000 * 128_256);
    // Llama-3-8B in bf16 sharded over 4 ranks, the reference too.
    const weights = e.estimate.perGpu.components.find((c) => c.label === 'Reference model weights (frozen copy)');
    assert.equal(weights?.bytes, (8_030_261_248 * 2) / 4);
  });

  it('use_peft: LoRA with model.peft, its reference still a model of its own', () => {
    const s = runOf(['++model.batch_size=64', '++model.batch_size=64 ++model.use_peft=true']).setup!;
    assert.equal(s.method, 'lora');
    assert.deepEqual(
      [s.lora?.r, s.lora?.alpha, s.lora?.dropout, s.lora?.target_modules],
      [64, 256, 0.05, 'all-linear'],
    );
    assert.equal(s.preference?.reference, 'copy');
  });

  it("each loss option's trainer: paired with a reference, without one, SFT, and a trainer that is not read", () => {
    const of = (loss: string): PipelineResult => runOf(['loss=kto', `loss=${loss}`]);
    assert.deepEqual(of('dpo').setup?.preference, {
      reference: 'copy',
      logps: 'whole',
      paired: true,
      logits_kept: false,
    });
    assert.equal(of('slic').setup?.preference?.reference, 'none');
    assert.equal(of('sft').setup?.preference, undefined);
    const ppo = of('ppo');
    assert.equal(ppo.setup?.preference, undefined);
    const at = ppo.files.flatMap((f) => f.facts.problems.map((p) => ({ file: f.file, p })));
    const warned = at.find((x) => x.p.code === 'not-modeled' && /PPOTrainer is not read/.test(x.p.message));
    assert.equal(warned?.file, '/h/config/loss/ppo.yaml');
    // cache_reference_logprobs: the reference's log-probabilities computed before training.
    const cached = runOf(['++lr=', '++cache_reference_logprobs=true ++lr=']).setup!;
    assert.equal(cached.preference?.reference, 'precomputed');
  });

  it('a float32 policy runs eager attention whatever attn_implementation says (launch.py), said at the key', () => {
    const r = runOf(['++lr=', '++model.policy_dtype=float32 ++lr=']);
    assert.deepEqual([r.setup?.weights_dtype, r.setup?.attention], ['fp32', 'eager']);
    const note = r.files.flatMap((f) => f.facts.problems).find((p) => /eager attention whatever/.test(p.message));
    assert.equal(note?.rawKey, 'model.attn_implementation');
  });

  it('an option opened alone is composed with ../config.yaml: the model is then not given, said where it is missing', () => {
    const r = runPipeline([{ file: '/h/config/loss/kto.yaml', text: KTO }], reader, {});
    const model = factOf(r, 'model')!;
    assert.deepEqual([model.file, model.at], ['/h/config/config.yaml', 'model: ???']);
    assert.equal(factOf(r, 'preference')?.fact.value, 'kto');
    // A model option opened alone, no loss chosen (`loss: ???`): still HALOs' run, its model not given at its key.
    const llama = runPipeline([{ file: '/h/config/model/llama.yaml', text: LLAMA }], reader, {});
    const name = factOf(llama, 'model')!;
    assert.deepEqual([name.file, name.at], ['/h/config/model/llama.yaml', 'null']);
    assert.match(
      JSON.stringify(name.fact.value),
      /model.name_or_path is not given: pass \+\+model.name_or_path=<model>/,
    );
    assert.equal(factOf(llama, 'attention')?.fact.value, 'flash');
  });
});

describe('Hydra: quick fixes in HALOs', () => {
  const fix = (changes: readonly SetupChange[], r: PipelineResult = runOf()) => {
    const files: FixFile[] = r.files.map((f) => ({
      file: f.file,
      text: f.text,
      format: f.facts.format,
      facts: f.facts,
    }));
    const plan = editsForChanges(changes, files, '/h/launch_kto.sh');
    const after = (file: string): string =>
      applyEditData(
        FILES[file],
        plan.edits.filter((e) => e.file === file),
      );
    return { plan, after };
  };

  it("writes the model option's keys where it writes them, the optimizer in the primary config", () => {
    const seq = fix([{ key: 'seq_len', value: 1024 }]);
    assert.deepEqual(seq.plan.unsupported, []);
    assert.match(seq.after('/h/config/model/base_model.yaml'), /^max_length: 1024$/m);
    const ckpt = fix([{ key: 'gradient_checkpointing', value: 'none' }]);
    assert.deepEqual(ckpt.plan.unsupported, []);
    assert.match(ckpt.after('/h/config/model/base_model.yaml'), /^activation_checkpointing: false$/m);
    // launch.py only reads model.activation_checkpointing; train/models.py's wrapper passes the call on: neither is
    // written.
    assert.deepEqual([...new Set(ckpt.plan.edits.map((e) => e.file))], ['/h/config/model/base_model.yaml']);
    assert.match(fix([{ key: 'optimizer', value: 'sgd' }]).after('/h/config/config.yaml'), /^optimizer: SGD$/m);
    assert.match(
      fix([{ key: 'attention', value: 'sdpa' }]).after('/h/config/model/llama.yaml'),
      /^attn_implementation: sdpa$/m,
    );
    // Halving the micro-batch with twice the accumulation: batch_size stays the step's, the accumulation says it.
    const half = fix([
      { key: 'micro_batch_size', value: 8 },
      { key: 'gradient_accumulation_steps', value: 2 },
    ]);
    assert.deepEqual(half.plan.unsupported, []);
    assert.match(half.after('/h/config/model/base_model.yaml'), /^gradient_accumulation_steps: 2$/m);
  });

  it("LoRA is written in the model option's peft keys, not over launch.py's reads of them", () => {
    const lora = fix([
      { key: 'method', value: 'lora' },
      { key: 'lora', value: { r: 16, alpha: 32, dropout: 0.05, target_modules: 'all-linear' } },
    ]);
    assert.deepEqual(lora.plan.unsupported, []);
    assert.deepEqual([...new Set(lora.plan.edits.map((e) => e.file))], ['/h/config/model/base_model.yaml']);
    const text = lora.after('/h/config/model/base_model.yaml');
    assert.match(text, /^use_peft: true$/m);
    assert.match(text, /^ {2}lora_r: 16$/m);
    assert.match(text, /^ {2}lora_alpha: 32$/m);
  });

  it("precomputed reference log-probabilities are the primary's cache_reference_logprobs; no fused loss to turn on", () => {
    const pre = fix([{ key: 'preference', value: { reference: 'precomputed', logps: 'whole', paired: false } }]);
    assert.deepEqual(pre.plan.unsupported, []);
    assert.match(pre.after('/h/config/config.yaml'), /^cache_reference_logprobs: true$/m);
    const fused = fix([{ key: 'loss', value: 'fused' }]);
    assert.match(JSON.stringify(fused.plan.unsupported), /no chunked or fused loss to turn on/);
  });

  it('a value the launch line sets is changed there, which is said', () => {
    const r = runOf(['++model.batch_size=64', '++model.batch_size=64 ++model.max_length=2048']);
    const seq = fix([{ key: 'seq_len', value: 1024 }], r);
    assert.match(seq.plan.unsupported[0]?.reason ?? '', /the launch line sets model.max_length: change it there/);
  });
});
