// Real training files from public repositories (test/real-files: SOURCES.tsv says where each is from, expected.json
// holds what a person reads in each). Every file goes through the analysis pipeline the CLI runs, in process, without
// a throw; each fact of expected.json that VRAM Lens reads today must still be read the same way. The facts it does
// not read yet are listed in KNOWN_GAPS with their cause: when a change makes one of them pass, this test fails until
// the entry is removed, so the list only shrinks.
// The copies are committed under test/real-files/files (collect.mjs refreshes them); where they are absent
// (VRAM_LENS_REAL_FILES points elsewhere) only the bookkeeping checks run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isUnknown, type ConfigFacts, type Fact } from '../../src/analyzers/facts';
import { runPipeline } from '../../src/analyzers/pipeline';
import { nodeFileReader } from '../../src/node/files';
import { offlineModelResolver } from '../../src/node/models';
import { sharedDir } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..');
const realDir = path.join(repo, 'test', 'real-files');

type Offload = { optimizer?: string; params?: string };
interface ExpectedRef {
  kind: 'deepspeed' | 'accelerate' | 'config' | 'script';
  path: string;
  inSet: string | null;
}
interface Expected {
  format: string;
  training: boolean;
  model: string | { variable: string } | null;
  method: 'full' | 'lora' | 'qlora' | 'dora' | 'freeze' | null;
  quant?: '8bit' | 'gptq' | 'awq';
  loraR: number | null;
  loraTargets: string | string[] | null;
  microBatch: number | 'auto' | null;
  gradAccum: number | 'auto' | null;
  seqLen: number | null;
  promptLen?: number;
  completionLen?: number;
  precision: 'bf16' | 'fp16' | 'fp32' | 'fp8' | 'auto' | null;
  zeroStage: number | null;
  fsdp: string | null;
  offload: Offload | null;
  gradientCheckpointing: boolean | null;
  gpusPerNode: number | null;
  nodes: number | null;
  worldSize: number | null;
  references: ExpectedRef[];
  notes: string;
}

/**
 * Facts of expected.json that VRAM Lens does not read (or reads differently) today, one list per cause. Each entry is
 * `<file>#<field>` with the field names of checkFile below. Fix a cause, then delete the entries that now pass (the
 * test names them); an entry that passes while still listed fails the test.
 */
const KNOWN_GAPS: readonly { cause: string; entries: readonly string[] }[] = [
  {
    cause:
      "H2O LLM Studio's experiment YAML, read as a project config by the names of its keys: its GPU list " +
      '(environment.gpus) is a name of its own, so one GPU is assumed and said',
    entries: ['h2oai__h2o-llmstudio/examples/example_oasst2.yaml#gpus'],
  },
  {
    cause:
      'a GPU count that an option of the script can change (`CUDA_VISIBLE_DEVICES=${gpus}` after `gpus=${gpus:-0,...,7}` ' +
      'set in its option loop) is left unknown, one GPU estimated and said, not taken as the default',
    entries: ['DtYXs__Pre-DPO/scripts/train_dpo.sh#gpus', 'DtYXs__Pre-DPO/scripts/train_simpo.sh#gpus'],
  },
  {
    cause:
      'LitGPT YAML: the accumulation is derived by resolve from train.global_batch_size, ' +
      'the micro-batch and the GPUs (a launch line may change the micro-batch), not read as a fact',
    entries: [
      'Lightning-AI__litgpt/config_hub/finetune/gemma-2b/qlora.yaml#gradAccum',
      'Lightning-AI__litgpt/config_hub/finetune/llama-3.1-8b/full.yaml#gradAccum',
      'Lightning-AI__litgpt/config_hub/finetune/llama-3.1-8b/lora.yaml#gradAccum',
      'Lightning-AI__litgpt/config_hub/finetune/llama-3.1-8b/qlora.yaml#gradAccum',
      'Lightning-AI__litgpt/config_hub/finetune/mistral-7b/lora.yaml#gradAccum',
      'Lightning-AI__litgpt/config_hub/finetune/phi-2/lora.yaml#gradAccum',
    ],
  },
  {
    cause:
      'a LoraConfig built in the else of `if checkpoint_dir is not None:` inside a function (a ' +
      'parameter whose value is not known statically): the branch that runs is not known, ' +
      'so the method is reported as unknown rather than assumed',
    entries: ['artidoro__qlora/qlora.py#method'],
  },
  {
    cause:
      "ms-swift: a DeepSpeed preset (`--deepspeed zero2`) is read as its stage and offload, not as a reference to swift's bundled file",
    entries: [
      'modelscope__ms-swift/examples/train/grpo/multi_node/train_dlc.sh#ref:zero3_offload',
      'modelscope__ms-swift/examples/train/full/qwen2_5_32b.sh#ref:zero3',
      'modelscope__ms-swift/examples/train/grpo/internal/qlora.sh#ref:zero2',
      'modelscope__ms-swift/examples/train/multi-gpu/deepspeed/train_zero2.sh#ref:zero2',
      'modelscope__ms-swift/examples/train/multi-gpu/deepspeed/train_zero3.sh#ref:zero3',
      'modelscope__ms-swift/examples/train/multi-node/torchrun/train_node1.sh#ref:zero2',
      'modelscope__ms-swift/examples/train/grpo/internal/vllm_72b_4gpu.sh#ref:zero3_offload',
      'modelscope__ms-swift/examples/train/rlhf/dpo/full.sh#ref:zero3',
      'modelscope__ms-swift/examples/yaml/deepspeed/sft.yaml#ref:zero2',
      'modelscope__ms-swift/examples/yaml/deepspeed/sft.json#ref:zero2',
    ],
  },
  {
    cause:
      'launchers the shell detector does not know: `python -m accelerate.commands.launch`, ' +
      'a sweep of `sbatch <script>` calls',
    entries: ['huggingface__alignment-handbook/recipes/pref_align_scan/launch_scan.sh#format'],
  },
  {
    cause:
      'a GPU count given only in a comment ("Config for 1 node of 8 x H100s", "note, ' + 'this is set up for 8 GPUs")',
    entries: [
      'allenai__open-instruct/configs/train_configs/dpo/default.yaml#gpus',
      'allenai__open-instruct/configs/train_configs/sft/tulu2_7b.yaml#gpus',
      'allenai__open-instruct/configs/train_configs/sft/tulu2_7b_lora.yaml#gpus',
      'huggingface__open-r1/recipes/OlympicCoder-32B/sft/config_v00.00.yaml#gpus',
      'huggingface__open-r1/recipes/OlympicCoder-32B/sft/config_v00.00.yaml#nodes',
      'huggingface__open-r1/recipes/OlympicCoder-7B/sft/config_v00.00.yaml#gpus',
      'huggingface__open-r1/recipes/OlympicCoder-7B/sft/config_v00.00.yaml#nodes',
      'huggingface__open-r1/recipes/OpenR1-Distill-7B/sft/config_distill.yaml#gpus',
      'huggingface__open-r1/recipes/OpenR1-Distill-7B/sft/config_distill.yaml#nodes',
      'pytorch__torchtune/recipes/configs/llama3_3/70B_full_multinode.yaml#gpus',
      'pytorch__torchtune/recipes/configs/llama3_3/70B_full_multinode.yaml#nodes',
    ],
  },
  {
    cause:
      'torchtune: a single-device recipe named in the `tune run <recipe>_single_device` comment is not read as one GPU',
    entries: [
      'pytorch__torchtune/recipes/configs/gemma2/9B_qlora_single_device.yaml#gpus',
      'pytorch__torchtune/recipes/configs/llama3/8B_qlora_single_device.yaml#gpus',
      'pytorch__torchtune/recipes/configs/llama3_2/1B_full_single_device.yaml#gpus',
      'pytorch__torchtune/recipes/configs/llama3_2/3B_lora_single_device.yaml#gpus',
      'pytorch__torchtune/recipes/configs/mistral/7B_full_low_memory.yaml#gpus',
      'pytorch__torchtune/recipes/configs/phi3/mini_qlora_single_device.yaml#gpus',
    ],
  },
  {
    cause:
      'torchtune: the model is named after the builder (the base checkpoint) rather than the ' +
      'checkpoint_dir / `tune download` id of the -Instruct checkpoint (same architecture, ' +
      'so the estimate is unaffected)',
    entries: [
      'pytorch__torchtune/recipes/configs/llama3/8B_dora.yaml#model',
      'pytorch__torchtune/recipes/configs/llama3/8B_qlora_single_device.yaml#model',
      'pytorch__torchtune/recipes/configs/llama3_1/8B_lora_dpo.yaml#model',
      'pytorch__torchtune/recipes/configs/llama3_2/1B_full_single_device.yaml#model',
      'pytorch__torchtune/recipes/configs/llama3_2/3B_lora_single_device.yaml#model',
      'pytorch__torchtune/recipes/configs/qwen2_5/32B_lora.yaml#model',
      'pytorch__torchtune/recipes/configs/qwen2_5/7B_lora.yaml#model',
    ],
  },
  {
    cause:
      'a launcher\'s comma-separated --lora_target_modules "q_proj,k_proj,..." is one string ' +
      'in the shell facts (resolve splits it into modules for the estimate; the fact itself is not split)',
    entries: [
      'huggingface__peft/examples/sft/run_peft_fsdp_gptq.sh#loraTargets',
      'huggingface__peft/examples/sft/run_unsloth_peft.sh#loraTargets',
    ],
  },
  {
    cause: 'a quantization that only the checkpoint states (a -GPTQ-INT4 or -AWQ model id) is not inferred',
    entries: [
      'huggingface__peft/examples/sft/run_peft_fsdp_gptq.sh#method',
      'modelscope__ms-swift/examples/train/qlora/awq/train.sh#method',
    ],
  },
  {
    cause:
      "defaults of a function's keyword parameters when the function is called more than once, " +
      'argparse options without a default, ' +
      'and defaults read through a value that is not `args.x` (a comprehension, `args.x * 2`) are not taken',
    entries: ['huggingface__accelerate/examples/torch_native_parallelism/nd_parallel_trainer.py#seqLen'],
  },
  {
    cause: "a sequence length given as two parts (qlora.py's source_max_len + target_max_len) is not read",
    entries: [
      'artidoro__qlora/qlora.py#seqLen',
      'artidoro__qlora/scripts/finetune.sh#seqLen',
      'artidoro__qlora/scripts/finetune_guanaco_13b.sh#seqLen',
      'artidoro__qlora/scripts/finetune_guanaco_33b.sh#seqLen',
      'artidoro__qlora/scripts/finetune_guanaco_65b.sh#seqLen',
      'artidoro__qlora/scripts/finetune_guanaco_7b.sh#seqLen',
      'artidoro__qlora/scripts/finetune_llama2_guanaco_7b.sh#seqLen',
    ],
  },
  {
    cause: "qlora.py's own flags (--bits 4, --quant_type nf4, --double_quant, --lora_modules all) are not mapped",
    entries: [
      'artidoro__qlora/scripts/finetune.sh#method',
      'artidoro__qlora/scripts/finetune_guanaco_13b.sh#loraTargets',
      'artidoro__qlora/scripts/finetune_guanaco_13b.sh#method',
      'artidoro__qlora/scripts/finetune_guanaco_33b.sh#loraTargets',
      'artidoro__qlora/scripts/finetune_guanaco_33b.sh#method',
      'artidoro__qlora/scripts/finetune_guanaco_65b.sh#loraTargets',
      'artidoro__qlora/scripts/finetune_guanaco_65b.sh#method',
      'artidoro__qlora/scripts/finetune_guanaco_7b.sh#loraTargets',
      'artidoro__qlora/scripts/finetune_guanaco_7b.sh#method',
      'artidoro__qlora/scripts/finetune_llama2_guanaco_7b.sh#loraTargets',
      'artidoro__qlora/scripts/finetune_llama2_guanaco_7b.sh#method',
    ],
  },
  {
    cause:
      'a hand-written PyTorch / Accelerate loop whose DataLoader batch_size comes from a config dict passed to a ' +
      'function (`config["batch_size"]`), or whose sequence length is an argument of a dataset helper ' +
      '(`get_dataset(tokenizer, args.sequence_length)`)',
    entries: [
      'huggingface__accelerate/examples/nlp_example.py#microBatch',
      'huggingface__accelerate/examples/torch_native_parallelism/fsdp2_fp8.py#seqLen',
      'huggingface__accelerate/examples/torch_native_parallelism/nd_parallel.py#seqLen',
    ],
  },
  {
    cause:
      "LoRA switched on by a trainer's own keys: open-instruct use_lora / lora_rank, FastChat's --lora_r on train_lora.py (no separate switch)",
    entries: [
      'allenai__open-instruct/configs/train_configs/sft/tulu2_7b_lora.yaml#loraR',
      'allenai__open-instruct/configs/train_configs/sft/tulu2_7b_lora.yaml#method',
      'lm-sys__FastChat/scripts/train_lora.sh#method',
    ],
  },
  {
    cause:
      'a LoRA adapter loaded from a checkpoint (PeftModel.from_pretrained(..., is_trainable=True)) on a 4-bit base is not read as QLoRA',
    entries: ['huggingface__peft/examples/loftq_finetuning/train_gsm8k_llama.py#method'],
  },
  {
    cause: 'Axolotl unfrozen_parameters (train only the parameters matching the regexes) is not read',
    entries: ['axolotl-ai-cloud__axolotl/examples/mistral/bigstral/bigstral-ds-zero3.yaml#method'],
  },
  {
    cause:
      'DeepSpeed-Chat step-3 (PPO) flags --per_device_training_batch_size, --actor_zero_stage, --actor_gradient_checkpointing are not mapped',
    entries: [
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/training_scripts/llama2/run_llama2_7b.sh#gradientCheckpointing',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/training_scripts/llama2/run_llama2_7b.sh#microBatch',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/training_scripts/llama2/run_llama2_7b.sh#zeroStage',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/training_scripts/opt/single_node/run_1.3b.sh#microBatch',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/training_scripts/opt/single_node/run_1.3b.sh#zeroStage',
    ],
  },
  {
    cause:
      'a Python training file without a construct the detector looks for (' +
      "DeepSpeed-Chat's argparse main.py with deepspeed.initialize and " +
      'AutoModelForCausalLM via its own helper) is not recognised',
    entries: [
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step1_supervised_finetuning/main.py#format',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step2_dpo_finetuning/main.py#format',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step2_reward_model_finetuning/main.py#format',
      'microsoft__DeepSpeedExamples/applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/main.py#format',
    ],
  },
  {
    cause:
      'if/elif branches chosen by a positional argument: the DeepSpeed file of one branch is taken although the file does not fix one',
    entries: ['microsoft__DeepSpeedExamples/training/autotuning/hf/gpt2-large/test_tune.sh#zeroStage'],
  },
  {
    cause: 'a DeepSpeed hostfile (--hostfile=...) is not followed',
    entries: [
      'modelscope__ms-swift/examples/train/multi-node/deepspeed/train.sh#ref:./examples/train/multi-node/deepspeed/host.txt',
    ],
  },
  {
    cause:
      'the precision set through FullyShardedDataParallelPlugin.set_mixed_precision(args.precision) (argparse ' +
      'default fp8, torchao Float8Linear) is not read',
    entries: ['huggingface__accelerate/examples/torch_native_parallelism/fsdp2_fp8.py#precision'],
  },
  {
    cause:
      "AI2's Beaker submitter (`python mason.py --num_nodes N --gpus 8 -- accelerate launch ... " +
      'open_instruct/x.py`): mason.py is taken as the training script, so its node and GPU counts and the Accelerate ' +
      '/ DeepSpeed config of the command after `--` are not read',
    entries: [
      'allenai__open-instruct/scripts/train/olmo2/dpo_7b.sh#gpus',
      'allenai__open-instruct/scripts/train/olmo2/dpo_7b.sh#nodes',
      'allenai__open-instruct/scripts/train/olmo2/dpo_7b.sh#ref:configs/ds_configs/stage3_no_offloading_accelerate.conf',
      'allenai__open-instruct/scripts/train/olmo2/dpo_7b.sh#zeroStage',
      'allenai__open-instruct/scripts/train/olmo2/finetune_7b.sh#gpus',
      'allenai__open-instruct/scripts/train/olmo2/finetune_7b.sh#nodes',
      'allenai__open-instruct/scripts/train/olmo2/finetune_7b.sh#ref:configs/ds_configs/stage3_no_offloading_accelerate.conf',
      'allenai__open-instruct/scripts/train/olmo2/finetune_7b.sh#zeroStage',
      'allenai__open-instruct/scripts/train/olmo2/grpo_fast_7b_zero.sh#gpus',
      'allenai__open-instruct/scripts/train/olmo2/grpo_fast_7b_zero.sh#nodes',
    ],
  },
  {
    cause:
      "open-instruct grpo_fast.py's own flags (--max_prompt_token_length, --response_length, --deepspeed_stage) are " +
      'not mapped',
    entries: [
      'allenai__open-instruct/scripts/train/olmo2/grpo_fast_7b_zero.sh#completionLen',
      'allenai__open-instruct/scripts/train/olmo2/grpo_fast_7b_zero.sh#promptLen',
      'allenai__open-instruct/scripts/train/olmo2/grpo_fast_7b_zero.sh#zeroStage',
    ],
  },
  {
    cause:
      'with --train.dynamic_batch_enable the micro-batch is one sequence of max_len packed up to ' +
      '--train.max_tokens_per_gpu, not the --train.micro_batch_size the file also gives',
    entries: ['OpenRLHF__OpenRLHF/examples/scripts/train_reinforce_baseline_hybrid_engine.sh#microBatch'],
  },
  {
    cause: "OpenRLHF's --rollout.max_new_tokens is not read as the completion length",
    entries: [
      'OpenRLHF__OpenRLHF/examples/scripts/train_prorlv2_math_hybrid_engine.sh#completionLen',
      'OpenRLHF__OpenRLHF/examples/scripts/train_reinforce_baseline_hybrid_engine.sh#completionLen',
    ],
  },
];

function loadExpected(): Record<string, Expected> {
  return (
    JSON.parse(fs.readFileSync(path.join(realDir, 'expected.json'), 'utf8')) as { files: Record<string, Expected> }
  ).files;
}

function loadSources(): { file: string; repository: string; path: string; commit: string; license: string }[] {
  const lines = fs.readFileSync(path.join(realDir, 'SOURCES.tsv'), 'utf8').trim().split('\n');
  return lines.slice(1).map((l) => {
    const [file, repository, p, commit, license] = l.split('\t');
    return { file, repository, path: p, commit, license };
  });
}

/** Where the files are: $VRAM_LENS_REAL_FILES, test/real-files/files, or ../shared/real-files/files. */
function filesRoot(): string | undefined {
  const shared = sharedDir();
  const candidates = [
    process.env.VRAM_LENS_REAL_FILES,
    path.join(realDir, 'files'),
    shared && path.join(shared, 'real-files', 'files'),
  ];
  return candidates.find((d): d is string => !!d && fs.existsSync(d));
}

type Value = Fact['value'] | undefined;
const show = (v: Value): string => (v === undefined ? 'absent' : isUnknown(v) ? '<unknown>' : JSON.stringify(v));
const absentOrUnknown = (v: Value): boolean => v === undefined || isUnknown(v);

interface Mismatch {
  key: string;
  message: string;
}

/**
 * Compares one file's facts with what a person reads in it; returns the fields that differ. `facts` are the file's
 * own; `referenced` those of the files it references (a DeepSpeed JSON, an Accelerate config), consulted for a fact
 * the file itself does not give, since a person reads `deepspeed: ds_z3_config.json` as ZeRO-3.
 */
function checkFile(
  file: string,
  exp: Expected,
  detected: string | undefined,
  facts: ConfigFacts | undefined,
  referenced: readonly ConfigFacts[],
): Mismatch[] {
  const out: Mismatch[] = [];
  const miss = (field: string, message: string): void => {
    out.push({ key: `${file}#${field}`, message: `${file}#${field}: ${message}` });
  };
  // The format decides everything else: a file read as another format (or not at all) is one mismatch.
  const formats: Record<string, readonly string[]> = {
    'ms-swift': /\.(sh|bash)$/.test(file) ? ['shell'] : ['swift-yaml'],
    other: [],
  };
  const want = formats[exp.format] ?? [exp.format];
  if (!(detected === undefined ? want.length === 0 : want.includes(detected))) {
    miss('format', `read as ${detected ?? 'not a training config'}, expected ${exp.format}`);
    return out;
  }
  if (!facts) return out;
  const by = new Map<string, Fact>();
  for (const f of facts.facts) by.set(f.key, f);
  for (const r of referenced) for (const f of r.facts) if (!by.has(f.key)) by.set(f.key, f);
  const get = (k: string): Value => by.get(k)?.value;
  const stated = (k: string): Value => (by.get(k)?.origin === 'call-default' ? undefined : get(k));

  const exact = (field: string, key: string, want: number | string | null | undefined): void => {
    if (want === undefined) return;
    const got = stated(key);
    if (want === null) {
      if (!absentOrUnknown(got)) miss(field, `${key} = ${show(got)}, but the file does not say`);
    } else if (want === 'auto') {
      if (!(got !== undefined && isUnknown(got))) miss(field, `${key} = ${show(got)}, expected "auto" (unknown)`);
    } else if (got !== want) miss(field, `${key} = ${show(got)}, expected ${JSON.stringify(want)}`);
  };

  // model
  const model = get('model');
  if (typeof exp.model === 'string') {
    if (model !== exp.model) miss('model', `model = ${show(model)}, expected ${JSON.stringify(exp.model)}`);
  } else if (!absentOrUnknown(model)) {
    miss('model', `model = ${show(model)}, expected ${exp.model ? `the variable ${exp.model.variable}` : 'none'}`);
  }

  // method, with the quantization that tells LoRA from QLoRA
  const method = get('method');
  const bits = get('quantBits');
  const qtype = get('quantType');
  const m = typeof method === 'string' ? method : undefined;
  let methodOk: boolean;
  switch (exp.method) {
    case 'full':
      methodOk = method === undefined || m === 'full';
      break;
    case 'lora':
      methodOk =
        m === 'lora' &&
        bits !== 4 &&
        (exp.quant === undefined ? true : exp.quant === '8bit' ? bits === 8 : qtype === exp.quant);
      break;
    case 'qlora':
      methodOk = m === 'qlora' || (m === 'lora' && bits === 4);
      break;
    case 'dora':
      methodOk = (m === 'lora' || m === 'qlora') && get('loraDora') === true;
      break;
    case 'freeze':
      methodOk = m === 'freeze';
      break;
    default:
      methodOk = absentOrUnknown(method);
  }
  if (!methodOk)
    miss(
      'method',
      `method = ${show(method)}, quantBits = ${show(bits)}, quantType = ${show(qtype)}, ` +
        `loraDora = ${show(get('loraDora'))}; expected ${exp.method ?? 'none'}${exp.quant ? ` (${exp.quant})` : ''}`,
    );

  exact('loraR', 'loraR', exp.loraR);
  if (exp.loraTargets !== null) {
    const got = get('loraTargets');
    const norm = (v: Value): string => (Array.isArray(v) ? JSON.stringify([...(v as string[])].sort()) : show(v));
    const wantN = Array.isArray(exp.loraTargets)
      ? JSON.stringify([...exp.loraTargets].sort())
      : JSON.stringify(exp.loraTargets);
    if (norm(got) !== wantN)
      miss('loraTargets', `loraTargets = ${show(got)}, expected ${JSON.stringify(exp.loraTargets)}`);
  }
  exact('microBatch', 'microBatchSize', exp.microBatch);
  exact('gradAccum', 'gradientAccumulationSteps', exp.gradAccum);
  exact('seqLen', 'seqLen', exp.seqLen);
  exact('promptLen', 'promptLen', exp.promptLen);
  exact('completionLen', 'completionLen', exp.completionLen);
  exact('zeroStage', 'zeroStage', exp.zeroStage);

  if (exp.precision !== null) {
    const bf16 = get('bf16');
    const fp16 = get('fp16');
    const mp = get('mixedPrecision');
    const wd = get('weightsDtype');
    const ok = {
      bf16: bf16 === true || mp === 'bf16' || get('pureBf16') === true || wd === 'bf16',
      fp16: fp16 === true || mp === 'fp16' || wd === 'fp16',
      fp32: mp === 'none' || wd === 'fp32' || (bf16 === false && fp16 === false),
      fp8: mp === 'fp8',
      auto: (bf16 !== undefined && isUnknown(bf16)) || (fp16 !== undefined && isUnknown(fp16)),
    }[exp.precision];
    if (!ok)
      miss(
        'precision',
        `bf16 = ${show(bf16)}, fp16 = ${show(fp16)}, mixedPrecision = ${show(mp)}, weightsDtype = ${show(wd)}; expected ${exp.precision}`,
      );
  }
  if (exp.fsdp !== null) exact('fsdp', 'fsdp', exp.fsdp);
  if (exp.offload) {
    const sharded = exp.fsdp !== null || exp.format === 'torchtune-yaml';
    if (sharded && exp.offload.params !== undefined) {
      const got = get('fsdpOffload');
      if (!(got === (exp.offload.params === 'cpu') || (got === undefined && exp.offload.params === 'none')))
        miss('offload', `fsdpOffload = ${show(got)}, expected ${exp.offload.params === 'cpu'}`);
    } else {
      const same = (key: string, want: string): boolean =>
        get(key) === want || (want === 'none' && get(key) === undefined);
      if (exp.offload.optimizer !== undefined && !same('offloadOptimizer', exp.offload.optimizer))
        miss('offload', `offloadOptimizer = ${show(get('offloadOptimizer'))}, expected ${exp.offload.optimizer}`);
      if (exp.offload.params !== undefined && !same('offloadParams', exp.offload.params))
        miss('offload.params', `offloadParams = ${show(get('offloadParams'))}, expected ${exp.offload.params}`);
    }
  }
  if (exp.gradientCheckpointing !== null) {
    const got = get('gradientCheckpointing');
    // Off is every trainer's default here, so an absent fact reads the same.
    const ok = exp.gradientCheckpointing ? got === 'full' || got === 'selective' : got === 'none' || got === undefined;
    if (!ok)
      miss(
        'gradientCheckpointing',
        `gradientCheckpointing = ${show(got)}, expected ${exp.gradientCheckpointing ? 'on' : 'off'}`,
      );
  }
  // GPUs: the total the file gives (world size, or per node x nodes), then the node count.
  const total = (ws: unknown, per: unknown, nodes: unknown): number | undefined =>
    typeof ws === 'number' ? ws : typeof per === 'number' ? per * (typeof nodes === 'number' ? nodes : 1) : undefined;
  const wantGpus = total(exp.worldSize, exp.gpusPerNode, exp.nodes);
  if (wantGpus !== undefined) {
    const got = total(get('worldSize'), get('gpusPerNode'), get('nodes'));
    if (got !== wantGpus)
      miss(
        'gpus',
        `worldSize = ${show(get('worldSize'))}, gpusPerNode = ${show(get('gpusPerNode'))}, nodes = ${show(get('nodes'))}; expected ${wantGpus} GPUs in all`,
      );
  }
  if (exp.nodes !== null) exact('nodes', 'nodes', exp.nodes);
  // References the tool follows: DeepSpeed JSON, Accelerate and training configs, when the path is static.
  for (const r of exp.references) {
    if (r.kind === 'script' || r.path.includes('$')) continue;
    if (!facts.references.some((x) => x.path.trim().replace(/^['"]|['"]$/g, '') === r.path)) {
      miss(
        `ref:${r.path}`,
        `no reference to ${r.path} (found ${facts.references.map((x) => x.path).join(', ') || 'none'})`,
      );
    }
  }
  // A file of which nothing expected is read is one gap ('#all'), not one per field; once any field is read, the
  // fields are listed one by one again.
  const checked = checkedFields(exp);
  if (out.length >= 3 && out.length === checked)
    return [
      {
        key: `${file}#all`,
        message: `${file}#all: none of the ${checked} facts is read (${out.map((o) => o.key.slice(o.key.indexOf('#') + 1)).join(', ')})`,
      },
    ];
  return out;
}

/** How many fields checkFile compares for this expectation (for the all-missed rule). */
function checkedFields(exp: Expected): number {
  let n = 2; // model and method are always compared
  for (const k of ['loraR', 'microBatch', 'gradAccum', 'seqLen', 'zeroStage'] as const) if (exp[k] !== undefined) n++;
  for (const k of ['loraTargets', 'precision', 'fsdp', 'gradientCheckpointing', 'nodes'] as const)
    if (exp[k] !== null) n++;
  if (exp.promptLen !== undefined) n++;
  if (exp.completionLen !== undefined) n++;
  if (exp.offload)
    n +=
      exp.fsdp !== null || exp.format === 'torchtune-yaml'
        ? exp.offload.params !== undefined
          ? 1
          : 0
        : (exp.offload.optimizer !== undefined ? 1 : 0) + (exp.offload.params !== undefined ? 1 : 0);
  if (exp.worldSize !== null || exp.gpusPerNode !== null) n++;
  n += exp.references.filter((r) => r.kind !== 'script' && !r.path.includes('$')).length;
  return n;
}

describe('real files (test/real-files)', function () {
  const expected = loadExpected();
  const sources = loadSources();

  it('SOURCES.tsv and expected.json describe the same files, with a commit and a permissive license each', function () {
    const inSources = new Set(sources.map((s) => s.file));
    assert.deepEqual(
      Object.keys(expected).filter((f) => !inSources.has(f)),
      [],
      'expected.json entries without a SOURCES.tsv row',
    );
    assert.deepEqual(
      [...inSources].filter((f) => !(f in expected)),
      [],
      'SOURCES.tsv rows without expected facts',
    );
    assert.ok(sources.length >= 160, `at least 160 files, found ${sources.length}`);
    for (const s of sources) {
      assert.match(s.commit, /^[0-9a-f]{40}$/, `${s.file}: commit`);
      assert.ok(
        ['Apache-2.0', 'MIT', 'BSD-3-Clause', 'BSD-2-Clause'].includes(s.license),
        `${s.file}: license ${s.license}`,
      );
      assert.equal(s.file, `${s.repository.replace('/', '__')}/${s.path}`, `${s.file}: path`);
    }
    for (const [f, e] of Object.entries(expected)) {
      for (const r of e.references)
        if (r.inSet)
          assert.ok(r.inSet in expected, `${f}: reference ${r.path} names ${r.inSet}, which is not in the set`);
    }
    const gapFiles = KNOWN_GAPS.flatMap((g) => g.entries.map((e) => e.slice(0, e.indexOf('#'))));
    assert.deepEqual(
      gapFiles.filter((f) => !(f in expected)),
      [],
      'KNOWN_GAPS entries for files that are not in the set',
    );
    const all = KNOWN_GAPS.flatMap((g) => g.entries);
    assert.deepEqual(
      all.filter((e, i) => all.indexOf(e) !== i),
      [],
      'KNOWN_GAPS entries listed twice',
    );
  });

  it('every file goes through the pipeline; the facts it reads today match, the known gaps still differ', function () {
    const root = filesRoot();
    if (!root) this.skip();
    const env = { HOME: '/nonexistent', HF_HUB_CACHE: '/nonexistent', HF_HOME: '/nonexistent' };
    const gapCause = new Map<string, string>();
    for (const g of KNOWN_GAPS) for (const e of g.entries) gapCause.set(e, g.cause);
    const failures: string[] = [];
    const found = new Map<string, string>();
    const started = Date.now();
    for (const file of Object.keys(expected)) {
      const abs = path.join(root!, file);
      if (!fs.existsSync(abs)) {
        failures.push(`${file}: missing under ${root} (run node test/real-files/collect.mjs)`);
        continue;
      }
      // Run from the repository's root, as the projects' READMEs launch these files.
      const cwd = path.join(root!, file.slice(0, file.indexOf('/')));
      let detected: string | undefined;
      let facts: ConfigFacts | undefined;
      let referenced: ConfigFacts[];
      try {
        const res = runPipeline(
          [{ file: abs, text: fs.readFileSync(abs, 'utf8') }],
          nodeFileReader(cwd),
          {},
          offlineModelResolver({ cwd, env }),
        );
        const own = res.files.find((f) => f.file === abs);
        detected = own?.facts.format;
        facts = own?.facts;
        // The training script a launcher runs has its own row in expected.json: its facts are not the launcher's.
        referenced = res.files
          .filter((f) => f !== own && !(own?.facts.format === 'shell' && f.facts.format === 'hf-python'))
          .map((f) => f.facts);
      } catch (e) {
        failures.push(`${file}: the pipeline threw ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        continue;
      }
      for (const m of checkFile(file, expected[file], detected, facts, referenced)) found.set(m.key, m.message);
    }
    for (const [key, message] of found)
      if (!gapCause.has(key)) failures.push(`${message} (not a known gap: a regression, or expected.json is wrong)`);
    for (const [key, cause] of gapCause) {
      if (!found.has(key) && fs.existsSync(path.join(root!, key.slice(0, key.indexOf('#'))))) {
        failures.push(`${key} now matches expected.json: remove it from KNOWN_GAPS ("${cause}")`);
      }
    }
    if (process.env.VRAM_LENS_REAL_FILES_REPORT)
      fs.writeFileSync(process.env.VRAM_LENS_REAL_FILES_REPORT, JSON.stringify(Object.fromEntries(found), null, 2));
    assert.deepEqual(failures, []);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  });
});
