// The shell launch-script analyzer: launchers, script flags, variables, arithmetic, blocks and #SBATCH, each
// checked with the exact text its spans point at; the fixture scripts against their expected facts; mutations never throw.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeShell } from '../../../src/analyzers/shell';
import { detectFormat } from '../../../src/analyzers/detect';
import { resolveText, runFiles, runProject } from '../helpers';
import { launchersOf } from '../../../src/node/launchers';
import { nodeFileReader } from '../../../src/node/files';
import { editableFiles } from '../../../src/features/fixes';
import {
  isUnknown,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
} from '../../../src/analyzers/facts';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'shell');
const EXPECTED = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'corpus-expected', 'shell');
const CORPUS = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'corpus');

/** [canonical key, value ('?' = unknown), key text as written, value text as written]. */
type Want = [CanonicalKey, FactValue | '?', string, string];

function checkFacts(text: string, want: readonly Want[], opts: { exact?: boolean } = {}): ConfigFacts {
  const r = analyzeShell(text);
  for (const [key, value, keyText, valueText] of want) {
    const found = r.facts.filter((f) => f.key === key && text.slice(f.keySpan.start, f.keySpan.end) === keyText);
    assert.ok(found.length > 0, `no ${key} fact at '${keyText}'; facts: ${listFacts(text, r.facts)}`);
    const f = found[found.length - 1];
    if (value === '?') assert.ok(isUnknown(f.value), `${key} should be unknown, got ${JSON.stringify(f.value)}`);
    else assert.deepEqual(f.value, value, `${key} at '${keyText}'`);
    assert.equal(text.slice(f.valueSpan.start, f.valueSpan.end), valueText, `${key} value span`);
    assert.equal(f.rawValue, valueText);
  }
  if (opts.exact)
    assert.deepEqual(r.facts.map((f) => f.key).sort(), want.map((w) => w[0]).sort(), listFacts(text, r.facts));
  return r;
}

function listFacts(text: string, facts: readonly Fact[]): string {
  return facts
    .map((f) => `${f.key}=${JSON.stringify(f.value)} [${text.slice(f.keySpan.start, f.keySpan.end)} | ${f.rawValue}]`)
    .join('; ');
}

/** The value resolve would take per key: the last known fact, else the last unknown one. */
function decided(r: ConfigFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of r.facts) {
    if (isUnknown(f.value)) {
      if (!(f.key in out) || (out[f.key] as { unknown?: boolean })?.unknown) out[f.key] = { unknown: true };
    } else out[f.key] = f.value;
  }
  return out;
}

describe('shell analyzer: detection', () => {
  it('a launch whose script is on the next line after a continuation is a launch script', () => {
    // GAIR-NLP/cs2916 hw2/finetune/run.sh: `CUDA_VISIBLE_DEVICES=0 python \` then `src/train_bash.py \` (LLaMA-Factory).
    const { detectFormat } = require('../../../src/analyzers/detect') as typeof import('../../../src/analyzers/detect');
    const text =
      'CUDA_VISIBLE_DEVICES=0 python \\\n    src/train_bash.py \\\n    --stage sft \\\n' +
      '    --model_name_or_path Qwen/Qwen1.5-0.5B\n';
    assert.equal(detectFormat('run.sh', text), 'shell');
    assert.equal(detectFormat('run.sh', 'accelerate \\\n  launch train.py\n'), 'shell');
    assert.equal(detectFormat('run.sh', 'echo python is great\n'), undefined);
  });

  it("TrainingArguments' deprecated --adafactor switch is Adafactor, over any --optim", () => {
    // jwliao1209/Explainable-NLP train.sh: `--adafactor` (transformers' __post_init__: `if self.adafactor: self.optim =
    // OptimizerNames.ADAFACTOR`).
    const r = analyzeShell('torchrun --nproc_per_node 2 train.py --model_name_or_path t5-base --adafactor\n');
    assert.deepEqual(
      r.facts.filter((f) => f.key === 'optimizer').map((f) => f.value),
      ['adafactor'],
    );
    const { analyzeHfPython } =
      require('../../../src/analyzers/hf-python') as typeof import('../../../src/analyzers/hf-python');
    const py = analyzeHfPython(
      'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="o", adafactor=True)\n',
    );
    assert.equal(py.facts.find((f) => f.key === 'optimizer')?.value, 'adafactor');
  });

  it('a launch script without an extension or a shebang is one where a line starts with a launch command', () => {
    // jbaron34/train-llm's `runfile` and PetyoKaratov88/FDSP-Accelerate-Finetune's `bash_train`: no `.sh`, no `#!`.
    const { detectFormat } = require('../../../src/analyzers/detect') as typeof import('../../../src/analyzers/detect');
    const text =
      'accelerate launch --config_file fsdp.yaml \\\n  train.py --model_name_or_path mistralai/Mistral-7B-v0.1\n';
    assert.equal(detectFormat('runfile', text), 'shell');
    assert.equal(
      detectFormat('scripts/sft.pbs', '#PBS -l select=1\nCUDA_VISIBLE_DEVICES=0 python train.py\n'),
      'shell',
    );
    // A Dockerfile's RUN line, a Makefile's recipe and prose are none.
    assert.equal(detectFormat('Dockerfile', 'FROM x\nRUN accelerate launch train.py\n'), undefined);
    assert.equal(detectFormat('Makefile', 'train:\n\ttorchrun train.py\n'), undefined);
    assert.equal(detectFormat('NOTES', 'We ran it with accelerate launch and torchrun.\n'), undefined);
  });

  it("a call of the script's function that runs its arguments is the launch those arguments make", () => {
    // AlexJJ009/dpo-exp scripts/config.sh: `run_cmd_env() { local extra="$1"; shift; ... "$@"; }`, then
    // `run_cmd_env "-e DPO_OPTIM=adafactor" accelerate launch --config_file zero2.yaml train_dpo.py`.
    const text = [
      'run_cmd_env() {',
      '  local extra_args="$1"; shift',
      '  cd "$(dirname "$0")" && env $extra_args "$@"',
      '}',
      'run_cmd_env "X=1" accelerate launch --num_processes 8 train.py --model_name_or_path Qwen/Qwen2.5-7B',
      '',
    ].join('\n');
    const r = analyzeShell(text);
    assert.deepEqual(
      r.facts.filter((f) => f.key === 'worldSize' || f.key === 'model').map((f) => [f.key, f.value]),
      [
        ['worldSize', 8],
        ['model', 'Qwen/Qwen2.5-7B'],
      ],
    );
    assert.ok(r.references.some((x) => x.kind === 'script' && x.path === 'train.py'));
    // A function that does not run its arguments is no launch, nor one that passes them to a program of its own.
    const other = analyzeShell(text.replace('env $extra_args "$@"', 'echo $extra_args'));
    assert.equal(other.references.length, 0);
    const passes = analyzeShell(text.replace('env $extra_args "$@"', 'python prep.py "$@"'));
    assert.ok(!passes.references.some((x) => x.path === 'train.py'));
  });

  it('a command built in a variable that some branches extend with a word not known statically keeps its words', () => {
    // guotong1988/Train-8B-LLM run_sft.sh (abridged): `CMD="torchrun ... train_sft.py --model_name ${MODEL_NAME} ..."`,
    // then `if [ -n "${USE_BF16}" ]; then CMD="${CMD} ${USE_BF16}"; fi` (USE_BF16 from the environment), more flags
    // appended, and `nohup bash -c "${CMD}"`: the words every branch has are read, the rest is said to be unknown.
    const text =
      'MODEL_NAME="/data/Qwen3-8B-Base"\n' +
      'CMD="torchrun --standalone --nproc_per_node=8 train_sft.py --model_name ${MODEL_NAME} --per_device_train_batch_size 1"\n' +
      'if [ -n "${USE_BF16}" ]; then\n    CMD="${CMD} ${USE_BF16}"\nfi\n' +
      'CMD="${CMD} --gradient_checkpointing"\n' +
      'nohup bash -c "${CMD}" >> train.log 2>&1 &\n';
    const r = analyzeShell(text);
    assert.deepEqual(
      ['gpusPerNode', 'model', 'microBatchSize', 'gradientCheckpointing'].map(
        (k) => r.facts.find((f) => f.key === k)?.value,
      ),
      [8, '/data/Qwen3-8B-Base', 1, 'full'],
    );
    assert.ok(
      r.problems.some((p) =>
        /may add arguments that are not visible here: `CMD` depends on the `if` at line 3/.test(p.message),
      ),
    );
  });

  it('a launch through an interpreter held in a variable is a launch script (eus-lwq/leximind new_train.sh)', () => {
    const { detectFormat } = require('../../../src/analyzers/detect') as typeof import('../../../src/analyzers/detect');
    const text =
      'PYTHON_BIN="${PYTHON:-python3}"\n\nCUDA_VISIBLE_DEVICES=0 $PYTHON_BIN src/train.py \\\n' +
      '  --stage sft \\\n  --model_name_or_path meta-llama/Meta-Llama-3-8B \\\n  --per_device_train_batch_size 8\n';
    assert.equal(detectFormat('new_train.sh', text), 'shell');
    const r = analyzeShell(text);
    assert.deepEqual(
      ['model', 'microBatchSize'].map((k) => r.facts.find((f) => f.key === k)?.value),
      ['meta-llama/Meta-Llama-3-8B', 8],
    );
    assert.equal(detectFormat('run.sh', '${PYTHON} -m pip install -r requirements.txt\n'), undefined);
  });

  it('a launch of a Python script held in a variable is a launch script (guc1/Meaning-in-Temperatures sbatch)', () => {
    const { detectFormat } = require('../../../src/analyzers/detect') as typeof import('../../../src/analyzers/detect');
    const text =
      'PYTHON_SCRIPT_TO_RUN="$SLURM_SUBMIT_DIR/fine_tuning/train_qwen25_lora_single_gpu.py"\nMODEL_NAME="Qwen/Qwen2.5-3B"\n' +
      'python "$PYTHON_SCRIPT_TO_RUN" --model_name_or_path "$MODEL_NAME" --per_device_train_batch_size 1 &\n';
    assert.equal(detectFormat('run_train_single_gpu.sbatch', text), 'shell');
    // A variable that holds no Python script is no launch.
    assert.equal(detectFormat('run.sh', 'CMD="pip install -r requirements.txt"\npython "$CMD"\n'), undefined);
  });

  it("a script's flags named after the model and the per-device batch are read when the script is not there", () => {
    // myngsooo/Finetune-sLLM codes/run.sh (its train.py elsewhere): --pretrained_model_name, --batch_size_per_device.
    const r = analyzeShell(
      "MODEL='google/gemma-7b'\npython train.py --pretrained_model_name ${MODEL} --batch_size_per_device 1\n",
    );
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'google/gemma-7b');
    assert.equal(r.facts.find((f) => f.key === 'microBatchSize')?.value, 1);
    // A plain word is no model name.
    const word = analyzeShell('python train.py --pretrained_model_name llama-7b-sft\n');
    assert.equal(
      word.facts.find((f) => f.key === 'model'),
      undefined,
    );
  });
});

describe('shell analyzer: trl subcommands', () => {
  it('a script of only `trl gkd ...` is a launch script; the teacher, beta and lmbda flags are read', () => {
    const { detectFormat } = require('../../../src/analyzers/detect') as typeof import('../../../src/analyzers/detect');
    const text =
      '#!/bin/bash\ntrl gkd --model_name_or_path Qwen/Qwen2.5-0.5B-Instruct --teacher_model_name_or_path Qwen/Qwen2.5-1.5B-Instruct --beta 0 --lmbda 1\n';
    assert.equal(detectFormat('run.sh', text), 'shell');
    assert.equal(detectFormat('run.sh', 'trl sft --model_name_or_path Qwen/Qwen2.5-0.5B\n'), 'shell');
    const r = analyzeShell(text);
    assert.equal(r.facts.find((f) => f.key === 'teacherModel')?.value, 'Qwen/Qwen2.5-1.5B-Instruct');
    assert.equal(r.facts.find((f) => f.key === 'klBeta')?.value, 0);
    assert.equal(r.facts.find((f) => f.key === 'onPolicyFraction')?.value, 1);
    assert.equal(
      r.problems.some((p) => p.code === 'not-modeled'),
      false,
    );
    // TRL's GKD: the generalized JSD over both models' logits instead of the cross-entropy.
    assert.equal(resolveText('/w/run.sh', text).setup?.distillation?.loss, 'jsd');
  });

  it("a teacher flag of a distillation loop of the script's own is no GKD: torchtune's loss, said at the flag", () => {
    // songsm921/sentence_kd mk2/run.sh: `deepspeed --num_gpus=8 llama_knowledge_distillation.py
    // --teacher_model_name_or_path $TEACHER_MODEL ...`, a DeepSpeed loop that uses no TRL trainer.
    const text =
      'deepspeed --num_gpus=8 kd.py --student_model_name_or_path meta-llama/Llama-3.2-1B ' +
      '--model_name_or_path meta-llama/Llama-3.2-1B --teacher_model_name_or_path meta-llama/Llama-3.2-3B\n';
    const r = resolveText('/w/run.sh', text);
    assert.equal(r.setup?.distillation?.loss, 'forward_kl');
    const said = r.problems.find(
      (p) => p.code === 'not-modeled' && /distillation the script runs itself/.test(p.message),
    );
    assert.equal(said?.key, '--teacher_model_name_or_path');
  });
});

describe('shell analyzer: launchers and world size', () => {
  it('torchrun --nproc_per_node 8 --nnodes 2 gives 8 GPUs per node on 2 nodes', () => {
    const r = checkFacts(
      'torchrun --nproc_per_node 8 --nnodes 2 train.py --bf16\n',
      [
        ['gpusPerNode', 8, '--nproc_per_node', '8'],
        ['nodes', 2, '--nnodes', '2'],
        ['bf16', true, '--bf16', '--bf16'],
      ],
      { exact: true },
    );
    assert.deepEqual(r.tools, ['torchrun', 'hf-trainer']);
    assert.equal(r.facts.find((f) => f.key === 'gpusPerNode')!.tool, 'torchrun');
    assert.equal(r.facts.find((f) => f.key === 'bf16')!.tool, 'hf-trainer');
  });

  it('torchrun --nproc-per-node=4 (hyphens, = form), --standalone and an elastic --nnodes range', () => {
    checkFacts('torchrun --standalone --nproc-per-node=4 t.py\n', [
      ['gpusPerNode', 4, '--nproc-per-node', '4'],
      ['nodes', 1, '--standalone', '--standalone'],
    ]);
    checkFacts('torchrun --nnodes=1:4 --nproc_per_node=2 t.py\n', [['nodes', '?', '--nnodes', '1:4']]);
    checkFacts('torchrun --nnodes=2:2 t.py\n', [['nodes', 2, '--nnodes', '2:2']]);
    // argparse takes a unique prefix for its option (OFA-Sys/gsm8k-ScRel train_70b.sh:9 `--nnode=4`): 4 nodes.
    checkFacts('torchrun --nproc_per_node=8 --nnode=4 --node_rank=$RANK t.py\n', [
      ['gpusPerNode', 8, '--nproc_per_node', '8'],
      ['nodes', 4, '--nnode', '4'],
    ]);
  });

  it('torchrun --nproc_per_node gpu counts CUDA_VISIBLE_DEVICES, else all visible GPUs', () => {
    checkFacts('export CUDA_VISIBLE_DEVICES=0,1,2\ntorchrun --nproc_per_node gpu t.py\n', [
      ['gpusPerNode', 3, '--nproc_per_node', 'gpu'],
    ]);
    checkFacts('torchrun --nproc_per_node auto t.py\n', [['gpusPerNode', '?', '--nproc_per_node', 'auto']]);
  });

  it('python -m torch.distributed.launch / torch.distributed.run are torchrun', () => {
    checkFacts(
      'python -m torch.distributed.launch --nproc_per_node 1 --master_port 29500 run_glue.py --fp16\n',
      [
        ['gpusPerNode', 1, '--nproc_per_node', '1'],
        ['fp16', true, '--fp16', '--fp16'],
      ],
      { exact: true },
    );
    checkFacts('python3 -u -m torch.distributed.run --nnodes 3 --nproc_per_node=2 x.py\n', [
      ['nodes', 3, '--nnodes', '3'],
      ['gpusPerNode', 2, '--nproc_per_node', '2'],
    ]);
  });

  it('deepspeed --num_gpus 4 --num_nodes 2 are per node', () => {
    checkFacts(
      'deepspeed --num_gpus 4 --num_nodes 2 train.py --deepspeed ds.json\n',
      [
        ['gpusPerNode', 4, '--num_gpus', '4'],
        ['nodes', 2, '--num_nodes', '2'],
        ['deepspeedConfig', 'ds.json', '--deepspeed', 'ds.json'],
      ],
      { exact: true },
    );
  });

  it('deepspeed without --num_gpus uses all visible GPUs: an unknown fact and a not-static info', () => {
    const text = 'deepspeed train.py --fp16 True\n';
    const r = checkFacts(text, [['gpusPerNode', '?', 'deepspeed', 'deepspeed']]);
    assert.deepEqual(r.facts.find((f) => f.key === 'gpusPerNode')!.value, {
      unknown: 'deepspeed without --num_gpus uses every GPU of the node',
    });
    assert.ok(
      r.problems.some(
        (p) => p.code === 'not-static' && p.severity === 'info' && text.slice(p.span.start, p.span.end) === 'deepspeed',
      ),
    );
  });

  it('deepspeed with CUDA_VISIBLE_DEVICES and no count flag runs on those devices', () => {
    checkFacts('CUDA_VISIBLE_DEVICES=0,1 deepspeed train.py\n', [['gpusPerNode', 2, 'CUDA_VISIBLE_DEVICES', '0,1']]);
    checkFacts('export CUDA_VISIBLE_DEVICES=4,5,6\ndeepspeed train.py\n', [
      ['gpusPerNode', 3, 'CUDA_VISIBLE_DEVICES', '4,5,6'],
    ]);
    // Not exported: the launcher does not see it.
    checkFacts('CUDA_VISIBLE_DEVICES=0,1\ndeepspeed train.py\n', [['gpusPerNode', '?', 'deepspeed', 'deepspeed']]);
  });

  it("deepspeed with no count flag under srun's GPUs per node: those of the step", () => {
    // justinphan3110/deepspeed_lora scripts/alpaca_30B.sh: `srun --nodes=2 --gpus-per-node=8 deepspeed ...`. The
    // launcher counts the GPUs its node has, which under Slurm are the step's: 8 (it had been one GPU assumed, a
    // LLaMA-30B LoRA under ZeRO-3 at 99.8 GiB for 47.2).
    checkFacts('srun --nodes=2 --gpus-per-node=8 deepspeed train.py\n', [['gpusPerNode', 8, '--gpus-per-node', '8']]);
    checkFacts('#!/bin/bash\n#SBATCH --gres=gpu:4\ndeepspeed train.py\n', [['gpusPerNode', 4, '--gres', 'gpu:4']]);
  });

  it('deepspeed --include localhost:0,1 and multi-host include; --hostfile leaves the node count unknown', () => {
    checkFacts('deepspeed --include localhost:0,1 t.py\n', [['gpusPerNode', 2, '--include', 'localhost:0,1']]);
    checkFacts('deepspeed -i "h1:0,1,2,3@h2:0,1,2,3" t.py\n', [
      ['gpusPerNode', 4, '-i', 'h1:0,1,2,3@h2:0,1,2,3'],
      ['nodes', 2, '-i', 'h1:0,1,2,3@h2:0,1,2,3'],
    ]);
    checkFacts('deepspeed --hostfile=hosts.txt --num_gpus 8 t.py\n', [
      ['nodes', '?', '--hostfile', 'hosts.txt'],
      ['gpusPerNode', 8, '--num_gpus', '8'],
    ]);
  });

  it('accelerate --num_processes 16 --num_machines 2: world size 16 over 2 nodes', () => {
    const r = checkFacts(
      'accelerate launch --multi_gpu --num_processes 16 --num_machines 2 train.py\n',
      [
        ['worldSize', 16, '--num_processes', '16'],
        ['nodes', 2, '--num_machines', '2'],
      ],
      { exact: true },
    );
    assert.ok(r.facts.every((f) => f.tool === 'accelerate'));
  });

  it('accelerate launcher options: mixed precision, DeepSpeed plugin, FSDP, config files as references', () => {
    const text =
      'accelerate launch --config_file cfg/acc.yaml --mixed_precision no --use_deepspeed --zero_stage 3 ' +
      '--offload_optimizer_device cpu --offload_param_device nvme --deepspeed_config_file ds/z3.json --gradient_accumulation_steps 2 train.py\n';
    const r = checkFacts(
      text,
      [
        ['mixedPrecision', 'none', '--mixed_precision', 'no'],
        ['zeroStage', 3, '--zero_stage', '3'],
        ['offloadOptimizer', 'cpu', '--offload_optimizer_device', 'cpu'],
        ['offloadParams', 'nvme', '--offload_param_device', 'nvme'],
        ['deepspeedConfig', 'ds/z3.json', '--deepspeed_config_file', 'ds/z3.json'],
        ['gradientAccumulationSteps', 2, '--gradient_accumulation_steps', '2'],
      ],
      { exact: true },
    );
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path, text.slice(x.span.start, x.span.end)]),
      [
        ['config', 'cfg/acc.yaml', 'cfg/acc.yaml'],
        ['deepspeed', 'ds/z3.json', 'ds/z3.json'],
        ['script', 'train.py', 'train.py'],
      ],
    );
    // With neither --use_deepspeed nor --config_file, the machine's default accelerate config decides whether the
    // file is used at all (JudySun233/IDL_SLM_SAIL7B's finetune.sh): kept as a reference, said at the flag.
    const alone = 'accelerate launch --mixed_precision bf16 --deepspeed_config_file ds_config.json finetune.py\n';
    const left = analyzeShell(alone);
    assert.ok(left.references.some((x) => x.kind === 'deepspeed' && x.path === 'ds_config.json'));
    const said = left.problems.find((p) => p.code === 'not-static' && p.rawKey === '--deepspeed_config_file');
    assert.equal(said?.severity, 'warning');
    assert.equal(alone.slice(said!.span.start, said!.span.end), '--deepspeed_config_file');
    assert.match(said!.message, /default accelerate config/);
    assert.ok(!r.problems.some((p) => p.code === 'not-static'), 'not with --use_deepspeed');
    checkFacts('accelerate launch --use_fsdp --fsdp_offload_params true --fsdp_activation_checkpointing true t.py\n', [
      ['fsdp', 'full_shard', '--use_fsdp', '--use_fsdp'],
      ['fsdpOffload', true, '--fsdp_offload_params', 'true'],
      ['gradientCheckpointing', 'full', '--fsdp_activation_checkpointing', 'true'],
    ]);
    checkFacts(
      'accelerate launch --num_processes 2 --use_fsdp --fsdp_sharding_strategy SHARD_GRAD_OP t.py\n',
      [
        ['worldSize', 2, '--num_processes', '2'],
        ['fsdp', 'shard_grad_op', '--fsdp_sharding_strategy', 'SHARD_GRAD_OP'],
      ],
      { exact: true },
    );
    checkFacts('accelerate launch --use_fsdp --fsdp_state_dict_type SHARDED_STATE_DICT t.py --save_strategy no\n', [
      ['fsdpStateDictType', 'sharded', '--fsdp_state_dict_type', 'SHARDED_STATE_DICT'],
      ['savesCheckpoints', false, '--save_strategy', 'no'],
    ]);
    checkFacts('accelerate launch --use_fsdp --fsdp_backward_prefetch BACKWARD_PRE t.py\n', [
      ['fsdpBackwardPrefetch', 'pre', '--fsdp_backward_prefetch', 'BACKWARD_PRE'],
    ]);
    checkFacts('accelerate launch --use_fsdp --fsdp_backward_prefetch_policy NO_PREFETCH t.py\n', [
      ['fsdpBackwardPrefetch', 'none', '--fsdp_backward_prefetch_policy', 'NO_PREFETCH'],
    ]);
    // accelerate commands/launch.py: --fsdp_cpu_ram_efficient_loading, type str, default "true".
    checkFacts('accelerate launch --use_fsdp --fsdp_cpu_ram_efficient_loading false t.py\n', [
      ['fsdpCpuRamEfficientLoading', false, '--fsdp_cpu_ram_efficient_loading', 'false'],
    ]);
    // accelerate commands/launch.py: --fsdp_use_orig_params, type str, default "true"; FSDP1 only.
    checkFacts('accelerate launch --use_fsdp --fsdp_offload_params true --fsdp_use_orig_params false t.py\n', [
      ['fsdpUseOrigParams', false, '--fsdp_use_orig_params', 'false'],
    ]);
    const bad = analyzeShell('accelerate launch --use_fsdp --fsdp_use_orig_params maybe t.py\n');
    assert.equal(bad.problems.find((p) => p.code === 'invalid-value')?.rawKey, '--fsdp_use_orig_params');
    assert.ok(!bad.facts.some((f) => f.key === 'fsdpUseOrigParams'));
    const fsdp2 = analyzeShell('accelerate launch --use_fsdp --fsdp_version 2 --fsdp_use_orig_params false t.py\n');
    assert.ok(!fsdp2.facts.some((f) => f.key === 'fsdpUseOrigParams'));
    checkFacts('accelerate launch --dynamo_backend inductor t.py\n', [
      ['compile', true, '--dynamo_backend', 'inductor'],
    ]);
  });

  it('CUDA_VISIBLE_DEVICES=0,1 accelerate launch with no count gives 2 GPUs; a positional YAML is a config reference', () => {
    const text =
      'CUDA_VISIBLE_DEVICES=0,1 accelerate launch \\\n    --config_file examples/fsdp.yaml \\\n    src/train.py examples/lora_sft.yaml\n';
    const r = checkFacts(text, [['gpusPerNode', 2, 'CUDA_VISIBLE_DEVICES', '0,1']], { exact: true });
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['examples/fsdp.yaml', 'src/train.py', 'examples/lora_sft.yaml'],
    );
    assert.ok(r.references.every((x) => x.kind === (x.path.endsWith('.py') ? 'script' : 'config')));
  });

  it('accelerate launch with no count and no config: the GPU count is not known, said at the launcher', () => {
    // yoenoo/unsloth_vllm_profiling run_grpo_qwq.sh:15 `accelerate launch train.py ...`: accelerate then takes the
    // machine's saved default config, else torch.cuda.device_count() processes (accelerate/commands/launch.py
    // _validate_launch_command). One GPU was assumed as if the launcher had said so.
    const r = analyzeShell('accelerate launch train.py --per_device_train_batch_size 8\n');
    const gpus = r.facts.find((f) => f.key === 'gpusPerNode');
    assert.match((gpus?.value as { unknown: string }).unknown, /default config .* else one per visible GPU/);
    assert.equal(gpus?.rawKey, 'accelerate');
    // A config file, --cpu or CUDA_VISIBLE_DEVICES says it: no unknown.
    for (const line of ['accelerate launch --config_file a.yaml t.py', 'accelerate launch --cpu t.py'])
      assert.equal(
        analyzeShell(`${line}\n`).facts.some((f) => f.key === 'gpusPerNode'),
        false,
      );
  });

  it('accelerate launch -m axolotl.cli.train cfg.yml and axolotl train', () => {
    const r = analyzeShell('accelerate launch -m axolotl.cli.train examples/qlora.yml\n');
    assert.deepEqual(r.tools, ['accelerate', 'axolotl']);
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['config', 'examples/qlora.yml']],
    );
    const a = checkFacts('CUDA_VISIBLE_DEVICES=0 axolotl train cfg.yaml --micro_batch_size 2 --sequence_len 4096\n', [
      ['microBatchSize', 2, '--micro_batch_size', '2'],
      ['seqLen', 4096, '--sequence_len', '4096'],
      ['gpusPerNode', 1, 'CUDA_VISIBLE_DEVICES', '0'],
    ]);
    assert.deepEqual(a.tools, ['axolotl']);
    assert.deepEqual(
      analyzeShell('python -m axolotl.cli.train my.yml\n').references.map((x) => x.path),
      ['my.yml'],
    );
  });

  it('llamafactory-cli train: positional YAML, key=value overrides, NPROC_PER_NODE', () => {
    const text =
      'FORCE_TORCHRUN=1 NPROC_PER_NODE=4 NNODES=2 llamafactory-cli train examples/qwen3_lora.yaml cutoff_len=4096 lora_rank=32\n';
    const r = checkFacts(
      text,
      [
        ['seqLen', 4096, 'cutoff_len', '4096'],
        ['loraR', 32, 'lora_rank', '32'],
        ['gpusPerNode', 4, 'NPROC_PER_NODE', '4'],
        ['nodes', 2, 'NNODES', '2'],
      ],
      { exact: true },
    );
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['config', 'examples/qwen3_lora.yaml']],
    );
    assert.deepEqual(r.tools, ['llamafactory']);
    assert.ok(r.facts.every((f) => f.tool === 'llamafactory'));
  });

  it('llamafactory-cli train deepspeed=null: DeepSpeed off, no file of that name (Vitasii/NLP_Hw_2)', () => {
    // LLaMA-Factory reads the overrides as YAML (OmegaConf): null removes the YAML's deepspeed.
    const r = checkFacts('llamafactory-cli train examples/train_full/llama3_full_sft.yaml deepspeed=null\n', [
      ['zeroStage', 0, 'deepspeed', 'null'],
    ]);
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['examples/train_full/llama3_full_sft.yaml'],
    );
  });

  it('tune run: torchrun counts, --config reference when it is a file, dotted key=value overrides', () => {
    const text =
      'tune run --nnodes 1 --nproc_per_node 4 lora_finetune_distributed ' +
      '--config ./my_lora.yaml batch_size=8 model.lora_rank=16 ' +
      'optimizer._component_=bitsandbytes.optim.PagedAdamW8bit ~compile\n';
    const r = checkFacts(
      text,
      [
        ['nodes', 1, '--nnodes', '1'],
        ['gpusPerNode', 4, '--nproc_per_node', '4'],
        ['microBatchSize', 8, 'batch_size', '8'],
        ['loraR', 16, 'model.lora_rank', '16'],
        ['optimizer', 'paged_adamw_8bit', 'optimizer._component_', 'bitsandbytes.optim.PagedAdamW8bit'],
      ],
      { exact: true },
    );
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['./my_lora.yaml'],
    );
    assert.deepEqual(r.tools, ['torchtune']);
    // A config torchtune ships is named without a suffix: a reference the pipeline reads from torchtune's table; a
    // name torchtune does not ship is no reference.
    assert.deepEqual(
      analyzeShell('tune run full_finetune_distributed --config llama3_1/8B_full\n').references.map((x) => x.path),
      ['llama3_1/8B_full'],
    );
    assert.equal(analyzeShell('tune run full_finetune_single_device --config my_own\n').references.length, 0);
  });

  it("tune run with a config torchtune ships: its keys as torchtune's defaults, the line's overrides over them", () => {
    // pytorch/torchtune@bd2a0fc recipes/configs/llama3_1/8B_lora_single_device.yaml: lora_llama3_1_8b with rank 8 on
    // q_proj, v_proj, output_proj and the MLP, batch_size 2, gradient_accumulation_steps 8, dtype bf16, activation
    // checkpointing, fused AdamW, LinearCrossEntropyLoss.
    const line = 'tune run lora_finetune_single_device --config llama3_1/8B_lora_single_device batch_size=4\n';
    const r = runFiles({ '/t/run.sh': line }, '/t/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual([s.model, s.method, s.lora?.r], ['meta-llama/Llama-3.1-8B', 'lora', 8]);
    assert.deepEqual([s.micro_batch_size, s.gradient_accumulation_steps], [4, 8]);
    assert.deepEqual([s.weights_dtype, s.gradient_checkpointing, s.optimizer], ['bf16', 'full', 'adamw_fused']);
    const p = r.provenance.gradient_accumulation_steps;
    assert.ok(p?.kind === 'default' && p.owner === 'torchtune', JSON.stringify(p));
    assert.match(p.note ?? '', /8B_lora_single_device as torchtune ships it/);
    // Quick fixes never edit the shipped config.
    assert.ok(!editableFiles(r.files).some((f) => f.file.startsWith('torchtune: ')));
    // A file of that name beside the launch line is read instead.
    const own = 'model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_0_5b\nbatch_size: 1\n';
    const local = runFiles(
      {
        '/t/run.sh': line.replace('8B_lora_single_device', '8B_lora_single_device.yaml'),
        '/t/llama3_1/8B_lora_single_device.yaml': own,
      },
      '/t/run.sh',
    );
    assert.equal(local.setup?.model, 'Qwen/Qwen2.5-0.5B');
  });

  it('trl CLI and TRL example scripts use tool trl', () => {
    const r = checkFacts('trl sft --config sft.yaml --max_length 2048 --use_peft --lora_r 32 --packing\n', [
      ['seqLen', 2048, '--max_length', '2048'],
      ['method', 'lora', '--use_peft', '--use_peft'],
      ['loraR', 32, '--lora_r', '32'],
      ['batchLengths', 'fixed', '--packing', '--packing'],
      // Packed rows are told apart by position ids, from which transformers builds an attention mask.
      ['paddedBatches', true, '--packing', '--packing'],
    ]);
    assert.deepEqual(r.tools, ['trl']);
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['sft.yaml'],
    );
    assert.deepEqual(analyzeShell('accelerate launch trl/scripts/sft.py --bf16\n').tools, ['accelerate', 'trl']);
  });

  it('uv run, poetry run and conda run wrappers are skipped (open-instruct scripts/train/dgx-spark)', () => {
    checkFacts(
      'uv run python -m accelerate.commands.launch --mixed_precision bf16 --num_processes 1 t.py ' +
        '--per_device_train_batch_size 32\n',
      [
        ['mixedPrecision', 'bf16', '--mixed_precision', 'bf16'],
        ['worldSize', 1, '--num_processes', '1'],
        ['microBatchSize', 32, '--per_device_train_batch_size', '32'],
      ],
    );
    checkFacts('uv run --with liger-kernel --python 3.11 torchrun --nproc_per_node 4 t.py\n', [
      ['gpusPerNode', 4, '--nproc_per_node', '4'],
    ]);
    checkFacts('conda run -n train --no-capture-output torchrun --nproc_per_node 2 t.py\n', [
      ['gpusPerNode', 2, '--nproc_per_node', '2'],
    ]);
    // uv runs a module (`-m`, NovaSky-AI/SkyRL's launchers) or a script with the project's Python.
    checkFacts('uv run --isolated --extra fsdp -m torch.distributed.run --nproc_per_node 2 t.py\n', [
      ['gpusPerNode', 2, '--nproc_per_node', '2'],
    ]);
    checkFacts('uv run t.py --per_device_train_batch_size 8\n', [
      ['microBatchSize', 8, '--per_device_train_batch_size', '8'],
    ]);
    assert.equal(detectFormat('run.sh', 'uv run train.py --model_name_or_path gpt2\n'), 'shell');
  });

  it('a container runtime runs the command after its image: singularity / apptainer exec, docker / podman run and exec', () => {
    // A JUWELS-style Slurm script: `srun ... singularity exec --nv $CONTAINER_PATH /bin/bash -c "torchrun ..."`.
    checkFacts(
      'srun --cpu-bind=none singularity exec --nv -B /data:/data $CONTAINER_PATH /bin/bash -c "torchrun ' +
        '--nproc_per_node=4 t.py --per_device_train_batch_size 2"\n',
      [
        ['gpusPerNode', 4, '--nproc_per_node', '4'],
        ['microBatchSize', 2, '--per_device_train_batch_size', '2'],
      ],
    );
    checkFacts(
      'docker run --rm -it --gpus all -v $PWD:/w -w /w --shm-size 16g img:1 torchrun --nproc_per_node 8 t.py\n',
      [['gpusPerNode', 8, '--nproc_per_node', '8']],
    );
    checkFacts('podman exec -e X=1 box accelerate launch --num_processes 2 t.py\n', [
      ['worldSize', 2, '--num_processes', '2'],
    ]);
  });
  it("DeepSpeed-Chat step 3: the actor is the model, with a warning that PPO's other models are not estimated", () => {
    const r = checkFacts(
      'ACTOR=$1\nCRITIC=$2\nOUT=$3\nif [ "$ACTOR" == "" ]; then\n  ACTOR=facebook/opt-1.3b\nfi\n' +
        'if [ "$CRITIC" == "" ]; then\n  CRITIC=facebook/opt-350m\nfi\nif [ "$OUT" == "" ]; then\n  OUT=./output\nfi\n' +
        'deepspeed --num_gpus 8 main.py --actor_model_name_or_path $ACTOR --critic_model_name_or_path $CRITIC ' +
        '--output_dir $OUT\n',
      [
        ['gpusPerNode', 8, '--num_gpus', '8'],
        ['model', 'facebook/opt-1.3b', '--actor_model_name_or_path', '$ACTOR'],
      ],
    );
    assert.ok(r.problems.some((p) => p.code === 'not-modeled' && /reference, reward and value models/.test(p.message)));
  });
  it('GradCache (--grad_cache True): a warning at the flag that its chunks are not modeled, none when it is off', () => {
    // TIGER-AI-Lab/VLM2Vec experiments/public/train/*.sh (shortened): a 128-pair batch encoded in chunks of 8.
    const line = (v: string) =>
      `torchrun --nproc_per_node=8 train.py --model_name Qwen/Qwen2-VL-2B-Instruct --grad_cache ${v} ` +
      '--per_device_train_batch_size 128 --gc_q_chunk_size 8\n';
    const warnings = (text: string) => analyzeShell(text).problems.filter((p) => p.code === 'not-modeled');
    assert.match(warnings(line('True'))[0]?.message ?? '', /^--grad_cache: GradCache .* is not modeled/);
    assert.equal(warnings(line('False')).length, 0);
  });

  it("ChatGLM's P-tuning v2 (--pre_seq_len): a warning at the flag that the prefix is not modeled", () => {
    // THUDM/ChatGLM-6B ptuning/train.sh
    const r = checkFacts(
      'PRE_SEQ_LEN=128\nCUDA_VISIBLE_DEVICES=0 python3 main.py --do_train --model_name_or_path THUDM/chatglm-6b ' +
        '--pre_seq_len $PRE_SEQ_LEN --quantization_bit 4\n',
      [
        ['model', 'THUDM/chatglm-6b', '--model_name_or_path', 'THUDM/chatglm-6b'],
        ['quantBits', 4, '--quantization_bit', '4'],
      ],
    );
    const warning = r.problems.find((p) => p.code === 'not-modeled');
    assert.match(warning?.message ?? '', /^--pre_seq_len: P-tuning v2 .* is not modeled/);
    assert.equal(r.problems.filter((p) => p.code === 'not-modeled').length, 1);
    // No prefix, no warning.
    const none = checkFacts('python3 main.py --model_name_or_path THUDM/chatglm-6b --pre_seq_len 0\n', [
      ['model', 'THUDM/chatglm-6b', '--model_name_or_path', 'THUDM/chatglm-6b'],
    ]);
    assert.ok(!none.problems.some((p) => p.code === 'not-modeled'));
  });
  it('--k=$VAR with an unknown value is still a flag: the launcher does not take it for the script', () => {
    // ms-swift examples/train/grpo/multi_node/train_dlc.sh
    checkFacts('torchrun --nproc_per_node=8 --nnodes=${WORLD_SIZE} t.py --model_name_or_path Qwen/Qwen2.5-7B\n', [
      ['gpusPerNode', 8, '--nproc_per_node', '8'],
      ['nodes', '?', '--nnodes', '${WORLD_SIZE}'],
      ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', 'Qwen/Qwen2.5-7B'],
    ]);
  });
  it('srun, mpirun, env and nohup wrappers are skipped', () => {
    checkFacts('srun --nodes=2 -n 2 --gres gpu:8 torchrun --nproc_per_node 8 t.py\n', [
      ['gpusPerNode', 8, '--nproc_per_node', '8'],
    ]);
    checkFacts('mpirun -np 16 --mca btl ^openib -x NCCL_DEBUG python train.py --per_device_train_batch_size 3\n', [
      ['microBatchSize', 3, '--per_device_train_batch_size', '3'],
    ]);
    checkFacts('nohup env CUDA_VISIBLE_DEVICES=2,3 deepspeed t.py > log 2>&1 &\n', [
      ['gpusPerNode', 2, 'CUDA_VISIBLE_DEVICES', '2,3'],
    ]);
  });
});

describe('shell analyzer: script flags', () => {
  it('--k v and --k=v, quoted values, bool flags bare and with a value', () => {
    checkFacts(
      'python train.py --per_device_train_batch_size=4 --gradient_accumulation_steps "8" --bf16 False --fp16 --gradient_checkpointing True\n',
      [
        ['microBatchSize', 4, '--per_device_train_batch_size', '4'],
        ['gradientAccumulationSteps', 8, '--gradient_accumulation_steps', '8'],
        ['bf16', false, '--bf16', 'False'],
        ['fp16', true, '--fp16', '--fp16'],
        ['gradientCheckpointing', 'full', '--gradient_checkpointing', 'True'],
      ],
      { exact: true },
    );
  });

  it('--model_name and --model name the model only with a Hub id known statically', () => {
    // sotopia-lab/sotopia-rl's scripts/train_sft.sh: `--model_name $MODEL_PATH` after `export MODEL_PATH=Qwen/...`.
    const named = checkFacts('export M=Qwen/Qwen2.5-7B-Instruct\npython train_sft.py --model_name $M --use_lora\n', [
      ['model', 'Qwen/Qwen2.5-7B-Instruct', '--model_name', '$M'],
    ]);
    // Read by the option's name alone: a model any file loads wins over it (resolve/winning.ts).
    assert.equal(named.facts.find((f) => f.key === 'model')?.byNameOnly, true);
    checkFacts('python train.py --model meta-llama/Llama-3.1-8B\n', [
      ['model', 'meta-llama/Llama-3.1-8B', '--model', 'meta-llama/Llama-3.1-8B'],
    ]);
    // ColossalChat's (Coati) train_sft.py and many RLHF scripts: `--pretrain` (NicholasCao/ChatBLOOM's train_sft.sh).
    checkFacts('torchrun --nproc_per_node=4 train_sft.py --pretrain bigscience/bloom-1b7 --model bloom\n', [
      ['model', 'bigscience/bloom-1b7', '--pretrain', 'bigscience/bloom-1b7'],
    ]);
    // Other scripts' own names for it (VirtuosoResearch/Scalable-finetuning's meta_training_instruction.sh).
    checkFacts('python custom_train_alpaca.py --train_instruction --model_key TinyLlama/TinyLlama_v1.1\n', [
      ['model', 'TinyLlama/TinyLlama_v1.1', '--model_key', 'TinyLlama/TinyLlama_v1.1'],
    ]);
    // A vision tower trained too: 2U1/Qwen2-VL-Finetune's --freeze_vision_tower False, ms-swift's --freeze_vit false.
    checkFacts('deepspeed train_dpo.py --model_id Qwen/Qwen2-VL-2B-Instruct --freeze_vision_tower False\n', [
      ['model', 'Qwen/Qwen2-VL-2B-Instruct', '--model_id', 'Qwen/Qwen2-VL-2B-Instruct'],
      ['visionTowerTrained', true, '--freeze_vision_tower', 'False'],
    ]);
    assert.equal(
      analyzeShell('swift sft --model Qwen/Qwen2-VL-7B-Instruct --train_type full --freeze_vit false\n').facts.find(
        (f) => f.key === 'visionTowerTrained',
      )?.value,
      true,
    );
    // A model folder's path (lun2hang/playgemma_textcls_sft runs TRL's sft.py with a local Gemma folder).
    checkFacts('accelerate launch sft.py --model_name /DATA/jupyter/personal/gemma-2b --use_peft\n', [
      ['model', '/DATA/jupyter/personal/gemma-2b', '--model_name', '/DATA/jupyter/personal/gemma-2b'],
    ]);
    // A run's label, a plain word, or a value not known statically: nothing said, no problem.
    for (const line of [
      'python train.py --model_name llama-7b-sft --model_name_or_path gpt2\n',
      'python train.py --model hf\n',
      'python train.py --model_name run/',
      'python train.py --model_name $RUN\n',
    ]) {
      const r = analyzeShell(line);
      assert.ok(!r.facts.some((f) => f.key === 'model' && f.rawKey !== '--model_name_or_path'), line);
      assert.ok(!r.problems.some((p) => p.code === 'invalid-value'), line);
    }
  });

  it("--config_name of the transformers examples (run_mlm.py from scratch) names the model's config, below the model's", () => {
    // BiEchi/Simple-BERT-RoBERTa-Pretrain's pretrain.sh: run_mlm.py --config_name configs/roberta_medium.json, no
    // --model_name_or_path, so the script's else branch builds AutoModelForMaskedLM.from_config(config).
    const r = checkFacts(
      'python run_mlm.py --config_name configs/roberta_medium.json --tokenizer_name roberta-base\n',
      [['model', 'configs/roberta_medium.json', '--config_name', 'configs/roberta_medium.json']],
    );
    assert.equal(r.facts.find((f) => f.key === 'model')?.byNameOnly, true);
    // A config file named alone, and a Hub id; a plain word is no model.
    checkFacts('python run_clm.py --config_name config.json\n', [
      ['model', 'config.json', '--config_name', 'config.json'],
    ]);
    checkFacts('python run_clm.py --config_name EleutherAI/pythia-160m\n', [
      ['model', 'EleutherAI/pythia-160m', '--config_name', 'EleutherAI/pythia-160m'],
    ]);
    assert.ok(!analyzeShell('python run.py --config_name default\n').facts.some((f) => f.key === 'model'));
  });
  it("--use_reentrant (PEFT's examples/sft ModelArguments) and --use_reentrant_gc (LLaMA-Factory) set the checkpoint form", () => {
    // peft examples/sft/run_peft_qlora_fsdp.sh passes --use_reentrant True; train.py hands it to
    // gradient_checkpointing_kwargs. LLaMA-Factory's use_reentrant_gc does the same (model/model_utils/checkpointing.py).
    checkFacts('accelerate launch train.py --gradient_checkpointing True --use_reentrant True\n', [
      ['gradientCheckpointing', 'full', '--gradient_checkpointing', 'True'],
      ['checkpointReentrant', true, '--use_reentrant', 'True'],
    ]);
    checkFacts('llamafactory-cli train cfg.yaml --use_reentrant_gc False\n', [
      ['checkpointReentrant', false, '--use_reentrant_gc', 'False'],
    ]);
  });

  it('--fsdp "full_shard auto_wrap" and --fsdp with offload', () => {
    checkFacts('torchrun t.py --fsdp "full_shard auto_wrap"\n', [
      ['fsdp', 'full_shard', '--fsdp', 'full_shard auto_wrap'],
    ]);
    // No sharding option: the Trainer still turns FSDP on, and Accelerate's plugin shards with FSDP_SHARDING_STRATEGY,
    // FULL_SHARD by default (transformers training_args.py `if len(self.fsdp) > 0`; princeton-nlp/ProLong).
    checkFacts('torchrun t.py --fsdp auto_wrap\n', [['fsdp', 'full_shard', '--fsdp', 'auto_wrap']]);
    checkFacts("torchrun t.py --fsdp 'shard_grad_op offload'\n", [
      ['fsdp', 'shard_grad_op', '--fsdp', 'shard_grad_op offload'],
      ['fsdpOffload', true, '--fsdp', 'shard_grad_op offload'],
    ]);
  });

  it('--deepspeed <path> is a reference; bare --deepspeed (DeepSpeed-Chat) is a flag and --zero_stage follows', () => {
    const a = checkFacts('deepspeed --num_gpus 2 t.py --deepspeed ./ds_z2.json --bf16\n', [
      ['deepspeedConfig', './ds_z2.json', '--deepspeed', './ds_z2.json'],
    ]);
    assert.deepEqual(
      a.references.map((x) => [x.kind, x.path]),
      [
        ['script', 't.py'],
        ['deepspeed', './ds_z2.json'],
      ],
    );
    const b = checkFacts('deepspeed main.py --deepspeed --zero_stage 2 --offload --dtype bf16\n', [
      ['zeroStage', 2, '--zero_stage', '2'],
      ['offloadOptimizer', 'cpu', '--offload', '--offload'],
      ['offloadParams', 'cpu', '--offload', '--offload'],
      ['weightsDtype', 'bf16', '--dtype', 'bf16'],
    ]);
    assert.deepEqual(
      b.references.map((x) => [x.kind, x.path]),
      [['script', 'main.py']],
      'bare --deepspeed names no config',
    );
    assert.deepEqual(b.tools, ['deepspeed']);
    checkFacts('python t.py --deepspeed_config=cfg/ds.json --deepspeed\n', [
      ['deepspeedConfig', 'cfg/ds.json', '--deepspeed_config', 'cfg/ds.json'],
    ]);
  });

  it('model, sequence length aliases, LoRA and quantization flags', () => {
    checkFacts(
      'python t.py --model_name_or_path meta-llama/Llama-2-7b-hf --model_max_length 512 --lora_r 8 --lora_alpha 16 --lora_dropout 0.05 --q_lora True\n',
      [
        ['model', 'meta-llama/Llama-2-7b-hf', '--model_name_or_path', 'meta-llama/Llama-2-7b-hf'],
        ['seqLen', 512, '--model_max_length', '512'],
        ['loraR', 8, '--lora_r', '8'],
        ['loraAlpha', 16, '--lora_alpha', '16'],
        ['loraDropout', 0.05, '--lora_dropout', '0.05'],
        ['method', 'qlora', '--q_lora', 'True'],
        ['quantBits', 4, '--q_lora', 'True'],
      ],
      { exact: true },
    );
    for (const [flag, v] of [
      ['--max_seq_length', '1024'],
      ['--max_length', '1024'],
      ['--max_seq_len', '1024'],
      ['--cutoff_len', '1024'],
      ['--block_size', '1024'],
      ['--seq-length', '1024'],
    ]) {
      checkFacts(`python t.py ${flag} ${v}\n`, [['seqLen', 1024, flag, v]]);
    }
    checkFacts('python t.py --q_lora False --load_in_8bit\n', [['quantBits', 8, '--load_in_8bit', '--load_in_8bit']], {
      exact: true,
    });
    checkFacts('python t.py --lora_target_modules q_proj v_proj --use_peft\n', [
      ['loraTargets', ['q_proj', 'v_proj'], '--lora_target_modules', 'q_proj v_proj'],
      ['method', 'lora', '--use_peft', '--use_peft'],
    ]);
    // A list in one argument: Python Fire's literal (tloen/alpaca-lora README: --lora_target_modules='[q_proj,v_proj]')
    // and JSON a script loads; the value's span is the whole argument.
    checkFacts("python finetune.py --lora_target_modules='[q_proj,k_proj,v_proj,o_proj]'\n", [
      [
        'loraTargets',
        ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
        '--lora_target_modules',
        '[q_proj,k_proj,v_proj,o_proj]',
      ],
    ]);
    checkFacts(`python t.py --lora_target_modules '["q_proj", "v_proj"]'\n`, [
      ['loraTargets', ['q_proj', 'v_proj'], '--lora_target_modules', '["q_proj", "v_proj"]'],
    ]);
    // BobaZooba/xllm-demo scripts/train-deepspeed.sh: xllm's Config names its switches so.
    checkFacts('deepspeed --num_gpus=8 train.py --use_gradient_checkpointing True --apply_lora True\n', [
      ['gradientCheckpointing', 'full', '--use_gradient_checkpointing', 'True'],
      ['method', 'lora', '--apply_lora', 'True'],
    ]);
  });

  it('optimizer, attention, compile, liger and dtype flags', () => {
    checkFacts(
      'python t.py --optim adamw_bnb_8bit --attn_implementation sdpa --torch_compile True --use_liger_kernel --torch_dtype bfloat16\n',
      [
        ['optimizer', 'adamw_8bit', '--optim', 'adamw_bnb_8bit'],
        ['attention', 'sdpa', '--attn_implementation', 'sdpa'],
        ['compile', true, '--torch_compile', 'True'],
        ['loss', 'fused', '--use_liger_kernel', '--use_liger_kernel'],
        ['kernels', 'liger', '--use_liger_kernel', '--use_liger_kernel'],
        ['weightsDtype', 'bf16', '--torch_dtype', 'bfloat16'],
      ],
      { exact: true },
    );
    // A kernel from the Hub (basetenlabs/ml-cookbook's gpt-oss run.sh): read by its name, as the YAML configs' are.
    checkFacts('python t.py --attn_implementation kernels-community/vllm-flash-attn3\n', [
      ['attention', 'flash', '--attn_implementation', 'kernels-community/vllm-flash-attn3'],
    ]);
    checkFacts('python t.py --flash_attn False\n', [], { exact: true });
    checkFacts('python t.py --flash_attn True\n', [['attention', 'flash', '--flash_attn', 'True']]);
    // TRL's GRPO / DPO configs' use_liger_loss (mesolitica/malaya session/qwen2.5/7b-grpo-fsdp.sh): the fused loss.
    checkFacts('python t.py --use_liger_loss true\n', [['loss', 'fused', '--use_liger_loss', 'true']]);
    // The HF Trainer's ddp_find_unused_parameters on the launch line (malaysia-ai/cooking qwen/sft/2.5-1.5b.sh:19):
    // DDP without find_unused_parameters, where the Trainer would otherwise decide it from the model.
    checkFacts('torchrun --nproc_per_node 2 train.py --ddp_find_unused_parameters false\n', [
      ['ddpFindUnused', false, '--ddp_find_unused_parameters', 'false'],
    ]);
    // A bare --flash_attn parses only as a boolean option (LLaMA-Factory's src/train_bash.py era: `flash_attn: bool`,
    // FlashAttention-2; GAIR-NLP/cs2916 2024/hw2/finetune/run.sh): FlashAttention-2, at the flag.
    // The same era's cutoff_len default, 1024 (LLaMA-Factory@adbe50c src/llmtuner/hparams/data_args.py), where the
    // line gives none (HuangXinzhe/llm_fine_tuning lora_finetuning.sh); 2048 only from November 2024.
    const bash = analyzeShell('deepspeed src/train_bash.py --stage sft --model_name_or_path Qwen/Qwen1.5-1.8B\n');
    const seq = bash.facts.find((f) => f.key === 'seqLen');
    assert.deepEqual([seq?.value, seq?.origin], [1024, 'call-default']);
    const given = analyzeShell('deepspeed src/train_bash.py --stage sft --cutoff_len 512\n').facts;
    assert.deepEqual(
      given.filter((f) => f.key === 'seqLen').map((f) => f.value),
      [512],
    );
    // Before cutoff_len (LLaMA-Efficient-Tuning to 0.1.x; codefuse-ai/CodeFuse-DevOps-Model's scripts): prompt and
    // response lengths, 2,048 + 2,048 for a supervised run, the source length alone for pre-training, 512 each unset.
    const lengths = (line: string): unknown =>
      analyzeShell(line)
        .facts.filter((f) => f.key === 'seqLen')
        .map((f) => f.value);
    assert.deepEqual(
      lengths('python src/train_bash.py --stage sft --max_source_length=2048 --max_target_length=2048\n'),
      [4096],
    );
    assert.deepEqual(
      lengths('python src/train_bash.py --stage pt --max_source_length 2048 --max_target_length 2048\n'),
      [2048],
    );
    assert.deepEqual(lengths('python src/train_bash.py --stage sft --max_source_length 1024\n'), [1536]);
    checkFacts('python src/train_bash.py --stage sft --flash_attn --max_steps 5\n', [
      ['attention', 'flash', '--flash_attn', '--flash_attn'],
    ]);
  });

  it('Megatron hyphenated flags', () => {
    checkFacts(
      'torchrun pretrain_gpt.py --tensor-model-parallel-size 4 ' +
        '--pipeline-model-parallel-size 2 --micro-batch-size 1 --global-batch-size 256 ' +
        '--seq-length 4096 --sequence-parallel --recompute-granularity selective\n',
      [
        ['tensorParallel', 4, '--tensor-model-parallel-size', '4'],
        ['pipelineParallel', 2, '--pipeline-model-parallel-size', '2'],
        ['microBatchSize', 1, '--micro-batch-size', '1'],
        ['trainBatchSize', 256, '--global-batch-size', '256'],
        ['seqLen', 4096, '--seq-length', '4096'],
        ['sequenceParallel', true, '--sequence-parallel', '--sequence-parallel'],
        ['gradientCheckpointing', 'selective', '--recompute-granularity', 'selective'],
      ],
      { exact: true },
    );
  });

  it('launcher flags and script flags with the same name stay apart', () => {
    const r = checkFacts(
      'accelerate launch --mixed_precision fp16 --gradient_accumulation_steps 4 t.py --gradient_accumulation_steps 2\n',
      [
        ['gradientAccumulationSteps', 2, '--gradient_accumulation_steps', '2'],
        ['mixedPrecision', 'fp16', '--mixed_precision', 'fp16'],
      ],
    );
    const gas = r.facts.filter((f) => f.key === 'gradientAccumulationSteps');
    assert.deepEqual(
      gas.map((f) => [f.value, f.tool]),
      [
        [4, 'accelerate'],
        [2, 'hf-trainer'],
      ],
      'the script flag comes last, so it wins',
    );
  });

  it('invalid values are located warnings, not facts', () => {
    const text = 'python t.py --per_device_train_batch_size four --bf16 maybe\n';
    const r = analyzeShell(text);
    // `maybe` is not a boolean, so `--bf16` is bare and `maybe` a positional (HfArgumentParser would reject the line).
    assert.deepEqual(
      r.facts.map((f) => [f.key, f.value]),
      [['bf16', true]],
    );
    assert.deepEqual(
      r.problems.map((p) => [p.code, p.severity, text.slice(p.span.start, p.span.end)]),
      [['invalid-value', 'warning', 'four']],
    );
  });

  it('a non-training command does not produce facts; `--help` style commands are ignored', () => {
    assert.equal(analyzeShell('echo --per_device_train_batch_size 8\nls -la\n').facts.length, 0);
    assert.equal(analyzeShell('python -c "print(1)" --bf16\n').facts.length, 0);
  });
});

describe('shell analyzer: TRL subcommands', () => {
  it('reads trl dpo / orpo as preference training and trl grpo as rollouts', () => {
    checkFacts('trl dpo --model_name_or_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 2\n', [
      ['preference', 'dpo', 'dpo', 'dpo'],
    ]);
    checkFacts('trl orpo --model_name_or_path Qwen/Qwen2.5-0.5B\n', [['preference', 'reference-free', 'orpo', 'orpo']]);
    checkFacts('trl kto --model_name_or_path Qwen/Qwen2.5-0.5B\n', [['preference', 'kto', 'kto', 'kto']]);
    const grpo = analyzeShell('trl grpo --model_name_or_path Qwen/Qwen2.5-0.5B\n');
    assert.ok(!grpo.problems.some((p) => p.code === 'not-modeled'));
    checkFacts(
      'trl grpo --model_name_or_path Qwen/Qwen2.5-0.5B --max_completion_length 512 --use_vllm --vllm_mode colocate\n',
      [
        ['rollout', 'grpo', 'grpo', 'grpo'],
        ['completionLen', 512, '--max_completion_length', '512'],
        ['useVllm', true, '--use_vllm', '--use_vllm'],
        ['vllmMode', 'colocate', '--vllm_mode', 'colocate'],
      ],
    );
    checkFacts('trl rloo --model_name_or_path Qwen/Qwen2.5-0.5B\n', [['rollout', 'rloo', 'rloo', 'rloo']]);
    // trl grpo's script arguments: a reward model by Hub id (GRPOScriptArguments reward_model_name_or_path).
    checkFacts(
      'trl grpo --model_name_or_path Qwen/Qwen2.5-0.5B --reward_model_name_or_path meta-llama/Llama-3.2-1B\n',
      [['rewardModels', ['meta-llama/Llama-3.2-1B'], '--reward_model_name_or_path', 'meta-llama/Llama-3.2-1B']],
    );
    assert.ok(
      analyzeShell('trl ppo --model_name_or_path Qwen/Qwen2.5-0.5B\n').problems.some((p) => p.code === 'not-modeled'),
    );
    assert.ok(!grpo.facts.some((f) => f.key === 'preference'));
  });
});

describe('shell analyzer: trl vllm-serve beside a GRPO launch', () => {
  const script =
    'CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --gpu_memory_utilization 0.8 --enforce_eager &\n' +
    'CUDA_VISIBLE_DEVICES=2 trl grpo --model_name_or_path meta-llama/Llama-3.1-8B ' +
    '--use_vllm true --vllm_mode server --per_device_train_batch_size 4 --num_generations 4\n';
  it("reads the server's tensor parallelism and memory share; the training launch stays the one estimated", () => {
    checkFacts(script, [
      ['vllmServerTp', 2, '--tensor-parallel-size', '2'],
      ['vllmServerMemoryFraction', 0.8, '--gpu_memory_utilization', '0.8'],
      ['rollout', 'grpo', 'grpo', 'grpo'],
      ['microBatchSize', 4, '--per_device_train_batch_size', '4'],
    ]);
    const r = resolveText('run.sh', script);
    assert.deepEqual(r.setup?.rollout?.vllm_server, { tensor_parallel: 2, memory_fraction: 0.8 });
    assert.equal(r.setup?.rollout?.engine, 'vllm-server');
  });
});

describe('shell analyzer: allocator configuration', () => {
  it('reads expandable_segments from PYTORCH_CUDA_ALLOC_CONF given as a prefix or exported', () => {
    checkFacts('PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True torchrun --nproc_per_node 2 train.py\n', [
      ['expandableSegments', true, 'PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True'],
    ]);
    checkFacts(
      'export PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:128,expandable_segments:1"\npython train.py --torch_empty_cache_steps 4\n',
      [
        ['expandableSegments', true, 'PYTORCH_CUDA_ALLOC_CONF', '"max_split_size_mb:128,expandable_segments:1"'],
        ['emptyCacheSteps', 4, '--torch_empty_cache_steps', '4'],
      ],
    );
    checkFacts('export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128\npython train.py\n', [
      ['expandableSegments', false, 'PYTORCH_CUDA_ALLOC_CONF', 'max_split_size_mb:128'],
    ]);
  });
});

describe('shell analyzer: shell syntax', () => {
  it('joins \\ continuations, with flags at column 0 and spans in the original text', () => {
    checkFacts(
      'accelerate launch train.py \\\n--bf16 True \\\n--per_device_train_batch_size 2 \\\n--push_to_hub \\\n--max_length 2048\n',
      [
        ['bf16', true, '--bf16', 'True'],
        ['microBatchSize', 2, '--per_device_train_batch_size', '2'],
        ['seqLen', 2048, '--max_length', '2048'],
      ],
    );
    checkFacts('torchrun --nproc_per_node=2 t.py \\\r\n    --fp16\r\n', [['fp16', true, '--fp16', '--fp16']], {
      exact: false,
    });
  });

  it('comments end a command; commented-out flags are ignored', () => {
    checkFacts('python t.py --lora_r 8 # --lora_r 64\n  #--bf16 \\\n', [['loraR', 8, '--lora_r', '8']], {
      exact: true,
    });
    checkFacts(
      "python t.py --model_name_or_path 'a#b' --fp16 # trailing\n",
      [
        ['model', 'a#b', '--model_name_or_path', 'a#b'],
        ['fp16', true, '--fp16', '--fp16'],
      ],
      { exact: true },
    );
  });

  it('$VAR, ${VAR} and ${VAR:-default} from the script; the value span is the reference as written', () => {
    checkFacts(
      'BS=4\nSEQ=1024\nM=llama\npython t.py --per_device_train_batch_size $BS --max_seq_length ${SEQ} --model_name_or_path models/${M}-7b\n',
      [
        ['microBatchSize', 4, '--per_device_train_batch_size', '$BS'],
        ['seqLen', 1024, '--max_seq_length', '${SEQ}'],
        ['model', 'models/llama-7b', '--model_name_or_path', 'models/${M}-7b'],
      ],
    );
    checkFacts('NGPU=${NGPU:-3}\ntorchrun --nproc_per_node $NGPU t.py --lora_r ${R:-16}\n', [
      ['gpusPerNode', 3, '--nproc_per_node', '$NGPU'],
      ['loraR', 16, '--lora_r', '${R:-16}'],
    ]);
    checkFacts('A=\npython t.py --lora_r ${A:-12}\n', [['loraR', 12, '--lora_r', '${A:-12}']]);
  });

  it('unset variables, $1, $(...) and "$@" are unknown with a not-static info', () => {
    const text =
      'BS=$1\npython t.py --per_device_train_batch_size $BS --model_name_or_path $MODEL --max_seq_length $(cat len.txt) "$@"\n';
    const r = checkFacts(text, [
      ['microBatchSize', '?', '--per_device_train_batch_size', '$BS'],
      ['model', '?', '--model_name_or_path', '$MODEL'],
      ['seqLen', '?', '--max_seq_length', '$(cat len.txt)'],
    ]);
    const infos = r.problems.filter((p) => p.code === 'not-static').map((p) => text.slice(p.span.start, p.span.end));
    assert.deepEqual(infos.sort(), ['"$@"'.slice(1, -1), '$(cat len.txt)', '$BS', '$MODEL'].sort());
    assert.match(String((r.facts[0].value as { unknown: string }).unknown), /positional argument \$1/);
  });

  it('$(( )) arithmetic with worked numbers: 128 / 4 / 2 = 16 accumulation steps', () => {
    const text =
      'NUM_GPUS=4\nBATCH_SIZE_PER_GPU=2\nTOTAL_BATCH_SIZE=128\nGRADIENT_ACC_STEPS=$(($TOTAL_BATCH_SIZE/$NUM_GPUS/$BATCH_SIZE_PER_GPU))\n' +
      'accelerate launch --num_processes $NUM_GPUS t.py --gradient_accumulation_steps $GRADIENT_ACC_STEPS --per_device_train_batch_size $BATCH_SIZE_PER_GPU\n';
    checkFacts(text, [
      ['gradientAccumulationSteps', 16, '--gradient_accumulation_steps', '$GRADIENT_ACC_STEPS'],
      ['worldSize', 4, '--num_processes', '$NUM_GPUS'],
      ['microBatchSize', 2, '--per_device_train_batch_size', '$BATCH_SIZE_PER_GPU'],
    ]);
    checkFacts('N=3\nG=8\ntorchrun --nproc_per_node $(( (N + 1) * G / 4 % 5 )) t.py\n', [
      ['gpusPerNode', 3, '--nproc_per_node', '$(( (N + 1) * G / 4 % 5 ))'],
    ]);
    checkFacts('torchrun --nproc_per_node $((X * 2)) t.py\n', [['gpusPerNode', '?', '--nproc_per_node', '$((X * 2))']]);
    checkFacts('Z=0\ntorchrun --nproc_per_node $((4 / Z)) t.py\n', [
      ['gpusPerNode', '?', '--nproc_per_node', '$((4 / Z))'],
    ]);
  });

  it('$(expr ...) integer arithmetic: 16 / 2 = 8 accumulation steps (ms-swift fsdp_qlora/train.sh)', () => {
    checkFacts(
      'nproc_per_node=2\n' +
        'swift sft --model Qwen/Qwen2.5-7B --gradient_accumulation_steps $(expr 16 / $nproc_per_node)\n',
      [['gradientAccumulationSteps', 8, '--gradient_accumulation_steps', '$(expr 16 / $nproc_per_node)']],
    );
    checkFacts('torchrun --nproc_per_node $(expr 2 \\* 4) t.py\n', [
      ['gpusPerNode', 8, '--nproc_per_node', '$(expr 2 \\* 4)'],
    ]);
    // Any other command's output stays unknown: expr's string operators, a variable the script does not set.
    checkFacts('torchrun --nproc_per_node $(expr length abcd) t.py\n', [
      ['gpusPerNode', '?', '--nproc_per_node', '$(expr length abcd)'],
    ]);
    checkFacts('torchrun --nproc_per_node $(expr $N + 1) t.py\n', [
      ['gpusPerNode', '?', '--nproc_per_node', '$(expr $N + 1)'],
    ]);
  });

  it('export X=..., plain assignments and env prefixes', () => {
    checkFacts('export MBS=6\npython t.py --per_device_train_batch_size $MBS\n', [
      ['microBatchSize', 6, '--per_device_train_batch_size', '$MBS'],
    ]);
    checkFacts('X=1 Y=2 python t.py --lora_r $X --lora_alpha $Y\nexport A B\n', [
      ['loraR', 1, '--lora_r', '$X'],
      ['loraAlpha', 2, '--lora_alpha', '$Y'],
    ]);
  });

  it("a variable set inside an if takes its branches' values; static conditions pick their branch", () => {
    // DeepSpeed-Chat's idiom: the script's own value runs when the script is called without the argument, as an
    // argparse default does; an argument passed on its command line replaces it (said as an assumption).
    const a = checkFacts(
      'Z=$2\nif [ "$Z" == "" ]; then\n  Z=3\nfi\ndeepspeed --num_gpus 1 main.py --deepspeed --zero_stage $Z\n',
      [['zeroStage', 3, '--zero_stage', '$Z']],
    );
    assert.match(
      a.facts.find((f) => f.key === 'zeroStage')!.assumed ?? '',
      /`Z` is '3' or the script's argument \$2 depending on the `if` at line 2; --zero_stage is 3 when the script is run without that argument/,
    );
    // Another unknown (the environment) keeps the value unknown.
    checkFacts(
      'Z=$STAGE\nif [ "$Z" == "" ]; then\n  Z=3\nfi\ndeepspeed --num_gpus 1 main.py --deepspeed --zero_stage $Z\n',
      [['zeroStage', '?', '--zero_stage', '$Z']],
    );
    checkFacts('if [ -n "$SLOW" ]; then\n  R=8\nelse\n  R=8\nfi\npython t.py --lora_r $R\n', [
      ['loraR', 8, '--lora_r', '$R'],
    ]);
    checkFacts(
      'MODE=fast\nif [ "$MODE" = "fast" ]; then\n  R=4\nelif [ "$MODE" = slow ]; then\n  R=64\nelse\n  R=1\nfi\npython t.py --lora_r $R\n',
      [['loraR', 4, '--lora_r', '$R']],
    );
    checkFacts(
      'W=0\nX=\nif [ $W -eq 1 ]\nthen\nX="--lora_r 99"\nfi\npython t.py --lora_r 7 $X\n',
      [['loraR', 7, '--lora_r', '7']],
      { exact: true },
    );
    checkFacts('[ -z "$R" ] && R=5\npython t.py --lora_r $R\n', [['loraR', '?', '--lora_r', '$R']]);
    checkFacts('R=\n[ -z "$R" ] && R=5\npython t.py --lora_r $R\n', [['loraR', 5, '--lora_r', '$R']]);
  });

  it("a loop over the script's arguments runs no time without them: the value before it, which an argument replaces", () => {
    // Qwen-1's finetune/finetune_lora_single_gpu.sh (QwenLM/Qwen@e8e15962): MODEL is set, then a `while` over "$1"
    // with `shift` lets `-m` replace it. Run as written (no arguments), the script's own MODEL runs.
    const parse =
      'MODEL="Qwen/Qwen-1_8B-Chat"\nwhile [[ "$1" != "" ]]; do\n    case $1 in\n        -m | --model )\n' +
      '            shift\n            MODEL=$1\n            ;;\n        * )\n            exit 1\n            ;;\n    esac\n' +
      '    shift\ndone\npython finetune.py --model_name_or_path $MODEL\n';
    const a = checkFacts(parse, [['model', 'Qwen/Qwen-1_8B-Chat', '--model_name_or_path', '$MODEL']]);
    assert.match(
      a.facts[0].assumed ?? '',
      new RegExp(
        "`MODEL` is 'Qwen/Qwen-1_8B-Chat' or the script's argument \\$1 depending on the loop over the script's " +
          'arguments at line 2; --model_name_or_path is "Qwen/Qwen-1_8B-Chat" when the script is run without that argument',
      ),
    );
    // getopts' $OPTARG, and `while [ $# -gt 0 ]`.
    checkFacts(
      'BS=4\nwhile getopts "m:b:" opt; do\n  case $opt in\n    b) BS=$OPTARG ;;\n  esac\ndone\n' +
        'python t.py --per_device_train_batch_size $BS\n',
      [['microBatchSize', 4, '--per_device_train_batch_size', '$BS']],
    );
    checkFacts('R=8\nwhile [ $# -gt 0 ]; do\n  R=$2\n  shift 2\ndone\npython t.py --lora_r $R\n', [
      ['loraR', 8, '--lora_r', '$R'],
    ]);
    // `for arg in "$@"` with `--model=*) MODEL="${arg#*=}"`; a switch that sets a known value is a choice, and the
    // worst for memory is estimated (micro-batch 8 over 1).
    checkFacts(
      'MODEL=meta-llama/Llama-2-7b-hf\nfor arg in "$@"; do\n  case $arg in\n    --model=*) MODEL="${arg#*=}" ;;\n' +
        '    --debug) BS=1 ;;\n  esac\ndone\npython t.py --model_name_or_path $MODEL --per_device_train_batch_size ${BS:-8}\n',
      [
        ['model', 'meta-llama/Llama-2-7b-hf', '--model_name_or_path', '$MODEL'],
        ['microBatchSize', 8, '--per_device_train_batch_size', '${BS:-8}'],
      ],
    );
    // Any other loop may run any number of times: what it sets stays unknown.
    checkFacts(
      'MODEL=a/b\nwhile read -r line; do\n  MODEL=$line\ndone < models.txt\npython t.py --model_name_or_path $MODEL\n',
      [['model', '?', '--model_name_or_path', '$MODEL']],
    );
    checkFacts('MODEL=a/b\nfor m in x/y z/w; do\n  MODEL=$m\ndone\npython t.py --model_name_or_path $MODEL\n', [
      ['model', '?', '--model_name_or_path', '$MODEL'],
    ]);
  });

  it('`if [ -z "$X" ]; then X=default; fi` after an argument loop: unset leads to the default, an argument skips it', () => {
    // agentica-project/rllm scripts/deepscaler/train/deepscaler_1.5b_8k.sh: `--model) MODEL_PATH="$2"` in a
    // `while [[ $# -gt 0 ]]` loop, then the default where it is still empty.
    const loop =
      'while [[ $# -gt 0 ]]; do\n  case $1 in\n    --model) MODEL_PATH="$2"; shift 2 ;;\n    *) break ;;\n  esac\ndone\n';
    const run = 'python t.py --model_name_or_path $MODEL_PATH\n';
    const a = checkFacts(`${loop}if [ -z "$MODEL_PATH" ]; then\n  MODEL_PATH="Qwen/Qwen2.5-7B"\nfi\n${run}`, [
      ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL_PATH'],
    ]);
    assert.match(
      a.facts[0].assumed ?? '',
      new RegExp(
        "`MODEL_PATH` is 'Qwen/Qwen2.5-7B' or the script's argument \\$2 depending on the `if` at line 7; " +
          '--model_name_or_path is "Qwen/Qwen2.5-7B" when the script is run without that argument',
      ),
    );
    // The other spellings of the test, and `[ ... ] && X=...` / `[ ... ] || X=...`.
    for (const test of [
      '[[ -z $MODEL_PATH ]]',
      'test -z "${MODEL_PATH}"',
      '[ "$MODEL_PATH" = "" ]',
      '[ ! -n "$MODEL_PATH" ]',
    ])
      checkFacts(`${loop}if ${test}; then MODEL_PATH=Qwen/Qwen2.5-7B; fi\n${run}`, [
        ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL_PATH'],
      ]);
    checkFacts(`${loop}if [ -n "$MODEL_PATH" ]; then :; else MODEL_PATH=Qwen/Qwen2.5-7B; fi\n${run}`, [
      ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL_PATH'],
    ]);
    checkFacts(`${loop}[ -z "$MODEL_PATH" ] && MODEL_PATH=Qwen/Qwen2.5-7B\n${run}`, [
      ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL_PATH'],
    ]);
    checkFacts(`${loop}[ -n "$MODEL_PATH" ] || MODEL_PATH=Qwen/Qwen2.5-7B\n${run}`, [
      ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL_PATH'],
    ]);
    // A value from the environment may be empty or not: the test cannot be decided, the model stays unknown.
    checkFacts(`if [ -z "$MODEL_PATH" ]; then MODEL_PATH=Qwen/Qwen2.5-7B; fi\n${run}`, [
      ['model', '?', '--model_name_or_path', '$MODEL_PATH'],
    ]);
    // A known prefix before the variable (simpleRL-reason's `$HDFS_MODEL_PATH/$MODEL_NAME`): the value's span covers both.
    checkFacts(
      'P=hub\nM=Qwen2.5-7B\nwhile [[ "$#" -gt 0 ]]; do\n  case "$1" in\n    --model_name) M="$2"; shift 2 ;;\n  esac\ndone\n' +
        'python t.py --model_name_or_path $P/$M\n',
      [['model', 'hub/Qwen2.5-7B', '--model_name_or_path', '$P/$M']],
    );
  });

  it('`X=${1:-default}`: without arguments the default runs, an argument replaces it; `${X:-d}` after an argument loop', () => {
    const a = checkFacts('MODEL=${1:-"Qwen/Qwen2.5-7B"}\ntorchrun t.py --model_name_or_path $MODEL\n', [
      ['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL'],
    ]);
    assert.match(
      a.facts[0].assumed ?? '',
      /`MODEL` is 'Qwen\/Qwen2.5-7B' or the script's argument \$1 depending on the default of \$1 at line 1/,
    );
    checkFacts('ZERO_STAGE="${3-2}"\ndeepspeed main.py --deepspeed --zero_stage $ZERO_STAGE\n', [
      ['zeroStage', 2, '--zero_stage', '$ZERO_STAGE'],
    ]);
    // A default from the environment stays unknown, and says why.
    const open = checkFacts('MODEL=${1:-$DEFAULT}\ntorchrun t.py --model_name_or_path $MODEL\n', [
      ['model', '?', '--model_name_or_path', '$MODEL'],
    ]);
    assert.match(
      String((open.facts[0].value as { unknown: string }).unknown),
      /else `DEFAULT` is not set in this script/,
    );
    checkFacts(
      'while [ "$#" -gt 0 ]; do case "$1" in --model) MODEL="$2"; shift 2;; *) shift;; esac; done\n' +
        'MODEL=${MODEL:-Qwen/Qwen2.5-7B}\ntorchrun t.py --model_name_or_path $MODEL\n',
      [['model', 'Qwen/Qwen2.5-7B', '--model_name_or_path', '$MODEL']],
    );
  });

  it('`${1:-default}` in the launch line itself, and a config file named so, are read as the script runs without arguments', () => {
    const a = checkFacts(
      'torchrun t.py --model_name_or_path ${1:-meta-llama/Llama-2-7b-hf} --per_device_train_batch_size ${2:-4}\n',
      [
        ['model', 'meta-llama/Llama-2-7b-hf', '--model_name_or_path', '${1:-meta-llama/Llama-2-7b-hf}'],
        ['microBatchSize', 4, '--per_device_train_batch_size', '${2:-4}'],
      ],
    );
    assert.match(
      a.facts[0].assumed ?? '',
      /`\$\{1:-meta-llama\/Llama-2-7b-hf\}` is its default .* without argument \$1/,
    );
    // omid511/exaone4-finetune-bitext train_axolotl.sh: CONFIG_FILE=${1:-"configs/axolotl_deepspeed.yaml"}.
    const text =
      'CONFIG_FILE=${1:-"configs/axolotl_deepspeed.yaml"}\nuv run accelerate launch -m axolotl.cli.train "$CONFIG_FILE" "$@"\n';
    const r = analyzeShell(text);
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path, text.slice(x.span.start, x.span.end)]),
      [['config', 'configs/axolotl_deepspeed.yaml', '$CONFIG_FILE']],
    );
    const note = r.problems.find(
      (p) => p.severity === 'info' && /is read when the script is run without/.test(p.message),
    );
    assert.ok(note, JSON.stringify(r.problems));
    assert.match(note.message, /`CONFIG_FILE` is 'configs\/axolotl_deepspeed.yaml' or the script's argument \$1/);
    // A bare $1 is no default: the file stays unnamed.
    const bare = analyzeShell('accelerate launch -m axolotl.cli.train $1\n');
    assert.deepEqual(bare.references, []);
  });

  it('for loops: the loop variable is unknown, launches inside the body are analyzed once', () => {
    const r = checkFacts(
      'for TSK in a b c; do\n  python -m torch.distributed.launch --nproc_per_node 1 run.py --task $TSK --fp16 --deepspeed ds/$TSK.json\ndone\n',
      [
        ['gpusPerNode', 1, '--nproc_per_node', '1'],
        ['fp16', true, '--fp16', '--fp16'],
        ['deepspeedConfig', '?', '--deepspeed', 'ds/$TSK.json'],
      ],
    );
    assert.equal(r.facts.filter((f) => f.key === 'fp16').length, 1);
    checkFacts('for X in only; do\n  python t.py --lora_r 4 --model_name_or_path $X\ndone\n', [
      ['model', 'only', '--model_name_or_path', '$X'],
    ]);
  });

  it('case, while and functions do not break the walk', () => {
    checkFacts(
      'case "$1" in\n' +
        '  small) R=8 ;;\n' +
        '  *) R=8 ;;\n' +
        'esac\n' +
        'run() {\n' +
        '  local x=1\n' +
        '  torchrun --nproc_per_node 2 t.py --lora_r $R\n' +
        '}\n' +
        'while false; do :; done\n' +
        'run\n',
      [
        ['gpusPerNode', 2, '--nproc_per_node', '2'],
        ['loraR', 8, '--lora_r', '$R'],
      ],
    );
  });

  it('&& chains: both commands are read, the training one wins; redirects are not arguments', () => {
    const text =
      'accelerate launch --num_processes 2 finetune.py --lora_rank 64 --logging_steps 1 &&\n' +
      '\n' +
      'python merge_lora.py --base_model_name_or_path base --qlora &> merge.log\n';
    const r = checkFacts(
      text,
      [
        ['worldSize', 2, '--num_processes', '2'],
        ['loraR', 64, '--lora_rank', '64'],
      ],
      { exact: true },
    );
    assert.deepEqual(r.tools, ['accelerate', 'hf-trainer'], 'merge_lora.py is not a training launch');
    checkFacts('deepspeed --num_gpus 1 main.py --lora_dim 16 &> $OUT/training.log\n', [
      ['loraR', 16, '--lora_dim', '16'],
    ]);
    checkFacts(
      'mkdir -p out; torchrun --nproc_per_node 2 t.py > out/log 2>&1\n',
      [['gpusPerNode', 2, '--nproc_per_node', '2']],
      { exact: true },
    );
  });

  it('two training launches that differ get an info problem; the last one is listed last', () => {
    const text =
      'torchrun --nproc_per_node 2 t.py --per_device_train_batch_size 4\ntorchrun --nproc_per_node 2 t.py --per_device_train_batch_size 8\n';
    const r = analyzeShell(text);
    const info = r.problems.filter((p) => p.code === 'not-static' && /more than once/.test(p.message));
    assert.equal(info.length, 1);
    assert.equal(text.slice(info[0].span.start, info[0].span.end), '8');
    assert.equal(r.facts.filter((f) => f.key === 'microBatchSize').pop()!.value, 8);
  });

  it('of several training launches one after another the last is used alone; of branches, the last fills in', () => {
    // okeeper/pre-train-learning's sft.sh: a DeepSpeed launch on 2 GPUs with ds_config.json, then a single-GPU python
    // run of the same script. The second is a run of its own: no GPUs, DeepSpeed config or LoRA rank of the first.
    const text =
      'deepspeed --num_gpus 4 t.py --per_device_train_batch_size 4 --lora_r 8 --deepspeed ds.json\n' +
      'python t.py --per_device_train_batch_size 2\n';
    const r = analyzeShell(text);
    assert.deepEqual(
      r.facts.filter((f) => f.key === 'microBatchSize').map((f) => f.value),
      [2],
    );
    for (const key of ['gpusPerNode', 'loraR', 'deepspeedConfig'] as const)
      assert.deepEqual(
        r.facts.filter((f) => f.key === key),
        [],
        key,
      );
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['t.py'],
    );
    // Launches in an if's branches are alternatives: the last gives its values, an earlier one what it leaves unsaid,
    // but not a value the last leaves open (`deepspeed` without --num_gpus starts every GPU of the node).
    const branches =
      'if [ "$1" = a ]; then\n  deepspeed --num_gpus 4 t.py --per_device_train_batch_size 4 --lora_r 8\n' +
      'else\n  deepspeed t.py --per_device_train_batch_size 2\nfi\n';
    const b = analyzeShell(branches);
    assert.deepEqual(
      b.facts.filter((f) => f.key === 'gpusPerNode').map((f) => f.value),
      [{ unknown: 'deepspeed without --num_gpus uses every GPU of the node' }],
    );
    assert.deepEqual(
      b.facts.filter((f) => f.key === 'microBatchSize').map((f) => f.value),
      [2],
    );
    assert.deepEqual(
      b.facts.filter((f) => f.key === 'loraR').map((f) => f.value),
      [8],
    );
  });

  it('the last of several launches one after another says that it is the one estimated; branches do not', () => {
    // yyDing1/ScaleQuest src/train_question_generator/scripts/run_qwen2_qft.sh: a QFT (SFT) launch, then a QPO (DPO) one.
    const text =
      'accelerate launch --config_file zero3.yaml train.py --per_device_train_batch_size 1\n\n' +
      'ACCELERATE_LOG_LEVEL=info accelerate launch --config_file zero3.yaml train.py --per_device_train_batch_size 8\n';
    const notes = analyzeShell(text).problems.filter((p) => p.code === 'several-launches');
    assert.equal(notes.length, 1);
    assert.equal(
      notes[0].message,
      'this script launches training 2 times, one after another: each is a run of its own, and this last one (line 3) ' +
        'is estimated, not the earlier ones (line 1)',
    );
    assert.equal(text.slice(notes[0].span.start, notes[0].span.end), 'accelerate');
    const branches = 'if [ "$1" = a ]; then\n  python t.py --lora_r 8\nelse\n  python t.py --lora_r 4\nfi\n';
    assert.deepEqual(
      analyzeShell(branches).problems.filter((p) => p.code === 'several-launches'),
      [],
    );
  });

  it('exit at the top level ends the script: a launch after it does not run', () => {
    // dangbert/thesis_app experiments/tuner/llama2_7B.sh: a QLoRA `tune run`, `exit 0`, then an older bf16 LoRA launch
    // kept below it. The later launch was estimated (15.4 GiB device against 9.3 GiB for the QLoRA run).
    const launch = (config: string): string => `tune run lora_finetune_single_device --config ${config}\n`;
    const text = `${launch('./qlora.yaml')}exit 0\n${launch('llama2/7B_lora_single_device')}`;
    const r = analyzeShell(text);
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['./qlora.yaml'],
    );
    assert.deepEqual(
      r.problems.filter((p) => p.code === 'several-launches'),
      [],
    );
    // On a branch, after `&&` / `||`, or in a function or subshell, it may not run: the later launch stands.
    for (const guarded of [
      '[ -z "$X" ] && exit 1',
      'if [ -z "$X" ]; then\n  exit 1\nfi',
      '( exit 0 )',
      'f() {\n  exit 1\n}',
    ])
      assert.equal(
        analyzeShell(`${launch('./qlora.yaml')}${guarded}\n${launch('./lora.yaml')}`).references.at(-1)?.path,
        './lora.yaml',
        guarded,
      );
  });

  it('of several launches, the one that names a file given is its run, and the others are kept as references', () => {
    // okeeper/LLaMA-Factory's qwen/train.sh: eight `llamafactory-cli train qwen/<name>.yaml` lines, each with its own
    // GPUs. Read for qwen/sft3.yaml, the run is its launch on four GPUs, not the last launch's seven.
    const text =
      'CUDA_VISIBLE_DEVICES=0,1,2,3 llamafactory-cli train qwen/sft3.yaml\n' +
      'CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6 llamafactory-cli train qwen/sft4.yaml\n';
    const last = analyzeShell(text);
    assert.deepEqual(
      last.references.map((r) => r.path),
      ['qwen/sft4.yaml'],
    );
    assert.deepEqual(
      last.otherLaunchReferences?.map((r) => r.path),
      ['qwen/sft3.yaml'],
    );
    const named = analyzeShell(text, undefined, undefined, { launchNaming: (p) => p === 'qwen/sft3.yaml' });
    assert.deepEqual(
      named.references.map((r) => r.path),
      ['qwen/sft3.yaml'],
    );
    assert.deepEqual(
      named.facts.filter((f) => f.key === 'gpusPerNode').map((f) => f.value),
      [4],
    );
    const note = named.problems.find((p) => p.code === 'several-launches');
    assert.equal(
      note?.message,
      'this script launches training 2 times, one after another: each is a run of its own, and the one at line 1, ' +
        'which names the file given, is estimated, not the others (line 2)',
    );
    // Given together, the pipeline reads the script as that launch.
    const files = {
      '/r/train.sh': text,
      '/r/qwen/sft3.yaml': 'model_name_or_path: Qwen/Qwen2.5-0.5B\nstage: sft\nfinetuning_type: full\n',
      '/r/qwen/sft4.yaml': 'model_name_or_path: Qwen/Qwen2.5-0.5B\nstage: sft\nfinetuning_type: lora\n',
    };
    const run = runFiles(files, '/r/train.sh', '/r/qwen/sft3.yaml');
    assert.deepEqual([run.setup?.gpus_per_node, run.setup?.method], [4, 'full']);
    // As the repository has it, the script in qwen/ and the paths from the root: its earlier launch's config is a file
    // of its run (node/launchers.ts, which the CLI and the editor's index of runs read).
    const project = runProject(
      {
        'qwen/train.sh': text,
        'qwen/sft3.yaml': files['/r/qwen/sft3.yaml'],
        'qwen/sft4.yaml': files['/r/qwen/sft4.yaml'],
      },
      'qwen/train.sh',
    );
    const root = project.root;
    assert.deepEqual(launchersOf(path.join(root, 'qwen/sft3.yaml'), root, nodeFileReader(root)), [
      path.join(root, 'qwen/train.sh'),
    ]);
  });

  it("a program whose code is not in the files takes a preference trainer from its subcommand's name", () => {
    // icip-cas/AutoAlign scripts/train_dpo.sh: `autoalign-cli dpo ...`, whose cli.py runs train/dpo.py (a DPOTrainer).
    const flags = '--model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 2\n';
    const dpo = analyzeShell(`autoalign-cli dpo ${flags}`).facts.find((f) => f.key === 'preference');
    assert.deepEqual([dpo?.value, dpo?.rawKey, dpo?.origin], ['dpo', 'dpo', 'call-default']);
    assert.match(dpo?.defaultNote ?? '', /the subcommand dpo names DPO, with its reference model/);
    const orpo = analyzeShell(`autoalign-cli orpo ${flags}`).facts.find((f) => f.key === 'preference');
    assert.equal(orpo?.value, 'reference-free');
    assert.equal(
      analyzeShell(`autoalign-cli sft ${flags}`).facts.find((f) => f.key === 'preference'),
      undefined,
    );
  });

  it("Axolotl's preprocess entry point reads the config and trains nothing: hidden GPUs there are no CPU run", () => {
    // Elijah-Bodden/My-Simulacrum run.bash: tokenises the dataset with the GPUs hidden.
    const text = 'CUDA_VISIBLE_DEVICES="" python -m axolotl.cli.preprocess config.yml\n';
    const r = analyzeShell(text);
    assert.deepEqual(
      r.problems.filter((p) => p.code === 'runs-on-cpu'),
      [],
    );
    assert.deepEqual(
      r.references.map((x) => x.path),
      ['config.yml'],
    );
    // The training entry point with the GPUs hidden does train on the CPU.
    const train = analyzeShell(text.replace('preprocess', 'train'));
    assert.equal(train.problems.filter((p) => p.code === 'runs-on-cpu').length, 1);
    // --prepare_ds_only stops the train entry point once the dataset is prepared (rohanbalkondekar/axolotl
    // new_model/commands.sh runs it after the training launch): the training launch is the one estimated, alone.
    const dry = analyzeShell(
      'accelerate launch -m axolotl.cli.train config.yml\n\naccelerate launch -m axolotl.cli.train config.yml --prepare_ds_only\n',
    );
    assert.deepEqual(
      dry.problems.filter((p) => p.code === 'several-launches'),
      [],
    );
  });

  it('heredoc bodies are skipped, not read as commands', () => {
    const text =
      'DS=ds.json\ncat <<EOT > $DS\n{\n  "train_micro_batch_size_per_gpu": 4,\n  python t.py --lora_r 99\n}\nEOT\npython t.py --lora_r 3 --deepspeed $DS\n';
    checkFacts(
      text,
      [
        ['loraR', 3, '--lora_r', '3'],
        ['deepspeedConfig', 'ds.json', '--deepspeed', '$DS'],
      ],
      { exact: true },
    );
    checkFacts(
      "cat <<-'END'\n\tpython t.py --lora_r 99\n\tEND\npython t.py --lora_r 2\n",
      [['loraR', 2, '--lora_r', '2']],
      { exact: true },
    );
  });

  it('launcher flags inside a quoted string assigned to a variable keep their own spans when expanded', () => {
    const text =
      'export GPN=8\n' +
      'NN=2\n' +
      'export LAUNCHER="accelerate launch \\\n' +
      '    --num_processes $((NN * GPN)) \\\n' +
      '    --num_machines $NN \\\n' +
      '    "\n' +
      'export CMD="$LAUNCHER train.py --bf16"\n' +
      'srun $CMD\n';
    checkFacts(
      text,
      [
        ['worldSize', 16, '--num_processes', '$((NN * GPN))'],
        ['nodes', 2, '--num_machines', '$NN'],
        ['bf16', true, '--bf16', '--bf16'],
      ],
      { exact: true },
    );
    const t2 = 'ARGS="--nproc_per_node 4 --nnodes 1"\ntorchrun $ARGS t.py\n';
    checkFacts(t2, [
      ['gpusPerNode', 4, '--nproc_per_node', '4'],
      ['nodes', 1, '--nnodes', '1'],
    ]);
  });

  it('arrays: `"${ARGS[@]}"` is each element a word, at the span where the array wrote it', () => {
    // OpenRLHF examples/scripts/train_reinforce_baseline_hybrid_engine.sh (shortened): flags grouped in arrays, commented
    // lines among them, expanded unquoted and quoted.
    const text =
      'MODEL_PATH="Qwen/Qwen3-4B-Thinking-2507"\n' +
      'CKPT_ARGS=(\n' +
      '   --actor.model_name_or_path ${MODEL_PATH}\n' +
      '   # --reward.model_name_or_path ${REWARD_MODEL}\n' +
      '   --train.micro_batch_size 1\n' +
      ')\n' +
      'ENGINE_ARGS=( --ds.zero_stage 3 )\n' +
      'ENGINE_ARGS+=( --actor.gradient_checkpointing_enable )\n' +
      'ray job submit -- python3 -m openrlhf.cli.train_ppo_ray ${CKPT_ARGS[@]} "${ENGINE_ARGS[@]}"\n';
    const r = checkFacts(text, [
      ['model', 'Qwen/Qwen3-4B-Thinking-2507', '--actor.model_name_or_path', '${MODEL_PATH}'],
      ['microBatchSize', 1, '--train.micro_batch_size', '1'],
      ['zeroStage', 3, '--ds.zero_stage', '3'],
      [
        'gradientCheckpointing',
        'full',
        '--actor.gradient_checkpointing_enable',
        '--actor.gradient_checkpointing_enable',
      ],
    ]);
    // The commented line is no element: nothing reads its flag.
    assert.ok(!r.facts.some((f) => text.slice(f.keySpan.start, f.keySpan.end).startsWith('--reward.')));
    // `$NAME` of an array is its first element, `${NAME[0]}` too (a single word points at the reference, as a plain
    // variable's does); an element written unquoted is split at the assignment.
    checkFacts('A=( 4 8 )\ntorchrun --nproc_per_node $A t.py\n', [['gpusPerNode', 4, '--nproc_per_node', '$A']]);
    checkFacts('A=( 2 8 )\ntorchrun --nnodes ${A[0]} t.py\n', [['nodes', 2, '--nnodes', '${A[0]}']]);
    // "${A[*]}" is one word: the flag and its value joined, which no launcher reads as its flag.
    const joined = analyzeShell('A=( --nproc_per_node 2 )\ntorchrun "${A[*]}" t.py\n');
    assert.ok(!joined.facts.some((f) => f.key === 'gpusPerNode' && f.value === 2), JSON.stringify(joined.facts));
    checkFacts('X="--nproc_per_node 2"\nA=( $X )\ntorchrun "${A[@]}" t.py\n', [
      ['gpusPerNode', 2, '--nproc_per_node', '2'],
    ]);
  });

  it('`srun ... bash -c "..."`: the launch inside the string, its words at the spans the script wrote them', () => {
    // OpenRLHF examples/scripts/train_nonrl_slurm.sh (shortened): `cd` and `pip install` before the launch, a `;` at
    // the end of a word, the GPU count from a variable the outer script sets.
    const text =
      'GPUS_PER_NODE=8\n' +
      'srun --container-image="$IMAGE" \\\n' +
      '    bash -c " cd /openrlhf; pip install . ; torchrun \\\n' +
      '--nproc_per_node $GPUS_PER_NODE --nnodes 2 train.py --bf16" &>> log\n';
    checkFacts(text, [
      ['gpusPerNode', 8, '--nproc_per_node', '$GPUS_PER_NODE'],
      ['nodes', 2, '--nnodes', '2'],
      ['bf16', true, '--bf16', '--bf16'],
    ]);
    // `-lc` takes the string too; a shell without -c runs a file, which is no launch read here.
    checkFacts("bash -lc 'torchrun --nproc_per_node 4 t.py && echo done'\n", [
      ['gpusPerNode', 4, '--nproc_per_node', '4'],
    ]);
    assert.ok(!analyzeShell('bash run.sh --nproc_per_node 4\n').facts.some((f) => f.key === 'gpusPerNode'));
  });

  it('a `-c` string runs as a script of its own: the variables it exports, `\\$X` for the inner shell', () => {
    // ContextualAI/HALOs scripts/launch_llama_instruct_kto.sh (shortened): the model exported inside the string, read
    // by the launch as `\$MODEL_PATH`; the outer script's `$1` expanded into it; a backslash-newline inside the quotes.
    const text =
      'BETA=$1\n' +
      'srun --nodes=1 --ntasks-per-node=1 bash -c "\n' +
      'export MODEL_PATH=meta-llama/Meta-Llama-3-8B-Instruct\n' +
      'export EXP_NAME=llama3-${BETA}\n' +
      'torchrun --nproc_per_node 4 \\\n' +
      '    train.py --model_name_or_path \\$MODEL_PATH --per_device_train_batch_size 2 --bf16\n' +
      '"\n';
    const r = checkFacts(text, [
      ['gpusPerNode', 4, '--nproc_per_node', '4'],
      ['model', 'meta-llama/Meta-Llama-3-8B-Instruct', '--model_name_or_path', '$MODEL_PATH'],
      ['microBatchSize', 2, '--per_device_train_batch_size', '2'],
    ]);
    assert.equal(r.references[0]?.path, 'train.py');
    // Single-quoted, the string sees only what the outer script exports: MODEL is not, so the model is not known, which
    // is said where it is used.
    const single = analyzeShell(
      "MODEL=gpt2\nexport GPUS=2\nbash -c 'torchrun --nproc_per_node $GPUS t.py --model_name_or_path $MODEL'\n",
    );
    assert.deepEqual(
      single.facts.filter((f) => f.key === 'gpusPerNode').map((f) => f.value),
      [2],
    );
    const model = single.facts.find((f) => f.key === 'model');
    assert.ok(model && isUnknown(model.value), 'the model is unknown');
    assert.match(model.value.unknown, /`MODEL` is set in this script but not exported/);
    // An escaped `$` inside a word: the texts read from it carry nothing of the backslash the outer shell took out.
    const mid = analyzeShell('bash -c "torchrun t.py --output_dir=/a/\\$EXP/b --per_device_train_batch_size=\\$BS"\n');
    assert.equal(mid.facts.find((f) => f.key === 'microBatchSize')?.rawValue, '$BS');
    assert.ok(!JSON.stringify(mid).includes('\\u0000'));
  });

  it('`eval $cmd`: the launch a variable holds, read again as the shell does, quoted or not', () => {
    // FlagOpen/FlagEmbedding examples/finetune/embedder/encoder_only/base.sh (shortened): the flags in variables, the
    // command built in `cmd` and run by `eval $cmd`.
    const text =
      'num_gpus=2\n' +
      'model_args="\\\n    --model_name_or_path BAAI/bge-large-en-v1.5 \\\n"\n' +
      'training_args="--per_device_train_batch_size 2 --fp16"\n' +
      'cmd="torchrun --nproc_per_node $num_gpus \\\n    -m FlagEmbedding.finetune.embedder.encoder_only.base \\\n' +
      '    $model_args \\\n    $training_args \\\n"\n' +
      'echo $cmd\n' +
      'eval $cmd\n';
    checkFacts(text, [
      ['gpusPerNode', 2, '--nproc_per_node', '$num_gpus'],
      ['model', 'BAAI/bge-large-en-v1.5', '--model_name_or_path', 'BAAI/bge-large-en-v1.5'],
      ['microBatchSize', 2, '--per_device_train_batch_size', '2'],
    ]);
    checkFacts('cmd="torchrun --nproc_per_node 4 t.py"\neval "$cmd"\n', [['gpusPerNode', 4, '--nproc_per_node', '4']]);
    // TIGER-AI-Lab/VLM2Vec's train scripts: the string starts with an assignment for the command it holds.
    checkFacts(
      'cmd="CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=2 t.py --model_name Qwen/Qwen2-VL-2B"\neval $cmd\n',
      [
        ['gpusPerNode', 2, '--nproc_per_node', '2'],
        ['model', 'Qwen/Qwen2-VL-2B', '--model_name', 'Qwen/Qwen2-VL-2B'],
      ],
    );
  });

  it('`tmux send-keys -t run "..." ENTER`: the launch typed into a session, quoted or as separate words', () => {
    // runnerup96/T5-fine-tuning-for-text-to-SQL run_train_hf.sh (shortened): the training line sent to a tmux session.
    const text =
      'run_name=t5run\ntmux new-session -d -s $run_name\n' +
      'tmux send-keys -t $run_name "CUDA_VISIBLE_DEVICES=0 python -u fine_tune_t5.py \\\n' +
      '  --model_name_or_path t5-base --per_device_train_batch_size 32" ENTER\n';
    checkFacts(text, [
      ['model', 't5-base', '--model_name_or_path', 't5-base'],
      ['microBatchSize', 32, '--per_device_train_batch_size', '32'],
    ]);
    checkFacts('tmux send-keys -t s torchrun --nproc_per_node 4 t.py C-m\n', [
      ['gpusPerNode', 4, '--nproc_per_node', '4'],
    ]);
  });

  it('a blank after a line-ending backslash ends the command: said at the backslash (qingdengyue/LLM-quickstart)', () => {
    // homework/deepspeed/train_on_one_gpu.sh: `--deepspeed config/ds_config_zero3.json \ ` then `--model_name_or_path
    // t5-11b ...` on the next line, which bash runs as a command of its own: the launch has no model.
    const text =
      'deepspeed --num_gpus=1 run_translation.py \\\n--deepspeed ds.json \\ \n--model_name_or_path t5-11b \\\n--bf16\n';
    const problem = analyzeShell(text).problems.find((p) => p.code === 'syntax-error');
    assert.equal(problem?.severity, 'warning');
    assert.equal(text.slice(problem!.span.start, problem!.span.end), '\\ ');
    assert.match(problem!.message, /next line \(--model_name_or_path \.\.\.\) runs as a command of its own/);
    // A backslash that ends its line continues the command: nothing to say.
    assert.ok(!analyzeShell(text.replace('\\ \n', '\\\n')).problems.some((p) => p.code === 'syntax-error'));
  });

  it('#SBATCH directives: nodes and GPUs per node (gres, gpus-per-node, gpus-per-task x tasks) and SLURM_* variables', () => {
    const text = '#!/bin/bash\n#SBATCH --nodes=4          # nodes\n#SBATCH --gres=gpu:a100:8\npython train.py --bf16\n';
    checkFacts(text, [
      ['nodes', 4, '--nodes', '4'],
      ['gpusPerNode', 8, '--gres', 'gpu:a100:8'],
    ]);
    checkFacts(
      '#SBATCH -N 2\n#SBATCH --gpus-per-node=4\ntorchrun --nnodes $SLURM_NNODES --nproc_per_node $SLURM_GPUS_PER_NODE t.py\n',
      [
        ['nodes', 2, '--nnodes', '$SLURM_NNODES'],
        ['gpusPerNode', 4, '--nproc_per_node', '$SLURM_GPUS_PER_NODE'],
      ],
      { exact: true },
    );
    checkFacts('#SBATCH --ntasks=2\n#SBATCH --nodes=2\n#SBATCH --gpus-per-task=8\nsrun python t.py --bf16\n', [
      ['gpusPerNode', 8, '--gpus-per-task', '8'],
      ['nodes', 2, '--nodes', '2'],
    ]);
    // Not a directive: not at the start of a line, or commented out with ##.
    assert.equal(analyzeShell('echo x #SBATCH --nodes=9\n##SBATCH --nodes=9\n').facts.length, 0);
  });

  it('unterminated quotes are a located warning and the rest is still read', () => {
    const text = 'python t.py --lora_r 8 --model_name_or_path "unclosed\n';
    const r = analyzeShell(text);
    assert.ok(r.problems.some((p) => p.code === 'syntax-error' && p.severity === 'warning'));
    assert.equal(r.facts.find((f) => f.key === 'loraR')?.value, 8);
  });

  it('non-ASCII text before the command keeps UTF-16 spans', () => {
    checkFacts('# 🤗 fine-tune — résumé\ntorchrun --nproc_per_node 2 t.py --lora_r 4\n', [
      ['gpusPerNode', 2, '--nproc_per_node', '2'],
      ['loraR', 4, '--lora_r', '4'],
    ]);
  });
});

describe('shell analyzer: fixture scripts against their expected facts', () => {
  const names = fs.existsSync(FIXTURES) ? fs.readdirSync(FIXTURES).sort() : [];
  it('every fixture has an expected file', () => {
    assert.ok(names.length >= 12, `${names.length} fixtures`);
    for (const n of names) assert.ok(fs.existsSync(path.join(EXPECTED, `${n}.expected.json`)), n);
  });
  for (const name of names) {
    it(`${name}`, () => {
      const text = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
      const exp = JSON.parse(fs.readFileSync(path.join(EXPECTED, `${name}.expected.json`), 'utf8')) as {
        format: string;
        facts: Record<string, unknown>;
        problems: string[];
        references: string[];
      };
      const r = analyzeShell(text);
      assert.equal(r.format, exp.format);
      assert.deepEqual(decided(r), exp.facts);
      for (const code of exp.problems)
        assert.ok(
          r.problems.some((p) => p.code === code),
          `${name}: expected a ${code} problem`,
        );
      assert.deepEqual(r.references.map((x) => x.path).sort(), [...exp.references].sort());
      for (const f of r.facts) {
        // A tool's default made explicit at its command (verl's, OpenRLHF's) says so instead of quoting the file.
        const madeExplicit = f.origin === 'call-default' && /\((verl|OpenRLHF) default\)$/.test(f.rawValue);
        if (!madeExplicit) assert.equal(f.rawValue, text.slice(f.valueSpan.start, f.valueSpan.end));
        assert.ok(f.keySpan.end > f.keySpan.start, `${name}: empty key span for ${f.key}`);
      }
    });
  }
  it('corpus shell scripts, when ../shared/corpus/shell exists (skipped on a fresh clone without ../shared)', function () {
    const dir = path.join(CORPUS, 'shell');
    if (!fs.existsSync(dir)) this.skip();
    for (const n of fs.readdirSync(dir)) {
      const expFile = path.join(EXPECTED, `${n}.expected.json`);
      if (!fs.existsSync(expFile)) continue;
      const exp = JSON.parse(fs.readFileSync(expFile, 'utf8')) as { facts: Record<string, unknown> };
      assert.deepEqual(decided(analyzeShell(fs.readFileSync(path.join(dir, n), 'utf8'))), exp.facts, n);
    }
  });
});

describe('shell analyzer: values that double at every line', () => {
  // `X="$X$X"` or `A=( ${A[@]} ${A[@]} )` forty times would be 2^40 characters or words: past 64 KiB or 1,024 parts a
  // value is not expanded, and the launch that uses it is read without it (a not-static note at the use).
  it('strings and arrays stop growing at the bound; the rest of the launch is read', () => {
    const lines = (seed: string, step: string) => [seed, ...Array<string>(40).fill(step)].join('\n');
    for (const [seed, step, use, said] of [
      ['X=ab', 'X="$X$X"', '$X', 'grows past 64 KiB or 1024 parts here: not expanded'],
      ['A=( x y )', 'A=( ${A[@]} ${A[@]} )', '${A[@]}', 'grows past 64 KiB or 1024 parts here: not expanded'],
      // A value set differently on the branches of an `if`: its branch values stop at the bound too (choices.ts).
      ['if [ "$1" = a ]; then X="--bf16 1"; else X="--fp16 1"; fi', 'X="$X$X"', '$X', 'depends on the `if` at line 1'],
    ]) {
      const text = `${lines(seed, step)}\ntorchrun --nproc_per_node 2 t.py --model_name_or_path gpt2 ${use}\n`;
      const r = checkFacts(text, [
        ['gpusPerNode', 2, '--nproc_per_node', '2'],
        ['model', 'gpt2', '--model_name_or_path', 'gpt2'],
      ]);
      assert.ok(
        r.problems.some((p) => p.message.includes(said)),
        JSON.stringify(r.problems.map((p) => p.message)),
      );
    }
  });
});

describe('shell analyzer: robustness (fast-check)', () => {
  const seeds = fs.existsSync(FIXTURES)
    ? fs.readdirSync(FIXTURES).map((n) => fs.readFileSync(path.join(FIXTURES, n), 'utf8'))
    : [];
  const SHELLISH = [
    '\\',
    '\\\n',
    '"',
    "'",
    '$',
    '${',
    '$((',
    '$(',
    ')',
    '(',
    '}',
    '`',
    '#',
    '\n',
    ';',
    '&&',
    '|',
    '<<EOT\n',
    'if ',
    'fi',
    'then ',
    'for ',
    'do ',
    'done',
    'case ',
    'esac',
    ' ;; ',
    '--bf16 ',
    '=',
    '{',
    ' ',
    // Arrays and nested shells (their elements and strings are read as words of their own).
    'A=( ',
    ' )',
    '${A[@]}',
    '"${A[*]}"',
    '${A[0]}',
    'A+=(',
    'bash -c "',
    "sh -lc '",
  ];
  const garbage = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom(...SHELLISH),
    fc.array(fc.constantFrom(...SHELLISH), { maxLength: 6 }).map((a) => a.join('')),
  );

  const mutate = fc
    .tuple(fc.nat(seeds.length - 1), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 3 }), garbage)
    .map(([si, a, b, op, g]) => {
      const s = seeds[si];
      const i = s.length ? a % (s.length + 1) : 0;
      switch (op) {
        case 0:
          return s.slice(0, i);
        case 1:
          return s.slice(0, i) + s.slice(i + 1);
        case 2:
          return s.slice(0, i) + g + s.slice(i);
        default: {
          const lines = s.split('\n');
          const x = a % lines.length;
          const y = b % lines.length;
          [lines[x], lines[y]] = [lines[y], lines[x]];
          return lines.join('\n');
        }
      }
    });

  function assertSane(text: string): void {
    const r = analyzeShell(text);
    const inside = (s: { start: number; end: number }): boolean =>
      Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start <= s.end && s.end <= text.length;
    for (const f of r.facts) assert.ok(inside(f.keySpan) && inside(f.valueSpan), `fact ${f.key} span outside the text`);
    for (const p of r.problems) assert.ok(inside(p.span), `problem ${p.code} span outside the text`);
    for (const x of r.references) assert.ok(inside(x.span), 'reference span outside the text');
  }

  it('mutated fixtures (truncate, delete a char, insert garbage, swap lines): never throws, spans inside the text (2,400 runs)', function () {
    this.timeout(20000);
    fc.assert(
      fc.property(mutate, (text) => {
        assertSane(text);
      }),
      { numRuns: 2400 },
    );
  });

  it('random shell-like text and binary garbage never throw (600 runs)', function () {
    this.timeout(20000);
    const arb = fc.oneof(
      fc
        .array(
          fc.constantFrom(
            ...SHELLISH,
            'torchrun',
            'deepspeed',
            'accelerate launch',
            '--nproc_per_node',
            'X=',
            '$X',
            '8',
            'python',
            't.py',
          ),
          { maxLength: 40 },
        )
        .map((a) => a.join(' ')),
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }).map((u) => String.fromCharCode(...u)),
    );
    fc.assert(
      fc.property(arb, (text) => {
        assertSane(text);
      }),
      { numRuns: 600 },
    );
  });

  it('a large script is analyzed quickly', () => {
    const big = seeds.join('\n').repeat(40);
    const t0 = Date.now();
    assertSane(big);
    assert.ok(Date.now() - t0 < 5000);
  });
});
