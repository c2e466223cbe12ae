// A launch script that runs another with arguments (`bash scripts/train_dpo.sh --sft_model_path ... --bsz 2`, the
// layout of DtYXs/Pre-DPO's scripts/examples): the run is the called script's, read with the caller's words as its
// positional parameters, its option loop run over them, and the caller's exported variables. Also LLaMA-Factory's
// `--stage` on a launch line. Each expected value is the one written in the test's own files.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyzeShell } from '../../../src/analyzers/shell';
import { detectFormat } from '../../../src/analyzers/detect';
import { runPipeline, type FileReader, type PipelineResult } from '../../../src/analyzers/pipeline';
import { launchersOf } from '../../../src/node/launchers';
import { nodeFileReader } from '../../../src/node/files';
import { runProject } from '../helpers';

const inMemory = (files: Record<string, string>): FileReader => ({
  read: (p) => files[p],
  join: (from, rel) => path.posix.join(path.posix.dirname(from), rel),
});

/** The run of /w/run.sh, with the other files given. */
function runOf(caller: string, files: Record<string, string>): PipelineResult {
  return runPipeline([{ file: '/w/run.sh', text: caller }], inMemory({ ...files, '/w/run.sh': caller }), {});
}

/** Pre-DPO's scripts/train_dpo.sh, cut to the options these tests pass. */
const TRAIN_DPO = `while (( "$#" )); do
  case "$1" in
    --gpus)
      gpus="$2"
      shift 2
      ;;
    --sft_model_path)
      sft_model_path="$2"
      shift 2
      ;;
    --bsz)
      bsz="$2"
      shift 2
      ;;
    --gradient_accumulation_steps)
      gradient_accumulation_steps="$2"
      shift 2
      ;;
    *)
      echo "Unknown option: $1"
      exit 1
      ;;
  esac
done

gpus=\${gpus:-0,1,2,3,4,5,6,7}
bsz=\${bsz:-1}
gradient_accumulation_steps=\${gradient_accumulation_steps:-16}

CUDA_VISIBLE_DEVICES=\${gpus} llamafactory-cli train \\
    --model_name_or_path \${sft_model_path} \\
    --stage dpo \\
    --finetuning_type full \\
    --cutoff_len 4096 \\
    --per_device_train_batch_size \${bsz} \\
    --gradient_accumulation_steps \${gradient_accumulation_steps} \\
    --bf16
`;

describe('a launch script that runs another with arguments', () => {
  it("runs the called script's option loop over the words it is given (Pre-DPO's examples)", () => {
    const r = runOf(
      'bash scripts/train_dpo.sh \\\n  --gpus 0,1,2,3 \\\n  --sft_model_path meta-llama/Llama-3.2-3B-Instruct \\\n  --gradient_accumulation_steps 32\n',
      { '/w/scripts/train_dpo.sh': TRAIN_DPO },
    );
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-3B-Instruct');
    assert.equal(r.setup?.gpus_per_node, 4, 'CUDA_VISIBLE_DEVICES=${gpus} from --gpus 0,1,2,3');
    assert.equal(r.setup?.gradient_accumulation_steps, 32);
    assert.equal(r.setup?.micro_batch_size, 1, '${bsz:-1}: no --bsz given');
    assert.equal(r.setup?.preference?.reference, 'copy', '--stage dpo of a full fine-tune: a frozen copy');
    // The called script is the run's launcher: its facts are where it writes them.
    const called = r.files.find((f) => f.file === '/w/scripts/train_dpo.sh');
    assert.equal(called?.role, 'launcher');
  });

  it('reads a positional argument past the ninth in braces, ${10} (TinyLLaVA scripts/train/lora/finetune_lora.sh)', () => {
    const called =
      'MODEL="$1"\nMODEL_MAX_LENGTH="${10}"\n' +
      'deepspeed train.py --model_name_or_path $MODEL --model_max_length $MODEL_MAX_LENGTH --output_dir o\n';
    const r = runOf('bash finetune.sh microsoft/phi-2 2 3 4 5 6 7 8 9 3072\n', { '/w/finetune.sh': called });
    assert.equal(r.setup?.model, 'microsoft/phi-2');
    assert.equal(r.setup?.seq_len, 3072, '${10}, the tenth word, not $1 followed by a 0');
  });

  it('reads `--opt=value` through ${1#*=}, a shift after esac, and a bare flag', () => {
    const called = `while [ $# -gt 0 ]; do
  case $1 in
    --model=*) MODEL="\${1#*=}" ;;
    --batch=*) BATCH="\${1#*=}" ;;
    --lora) LORA=1 ;;
  esac
  shift
done
EXTRA=""
[ "$LORA" = 1 ] && EXTRA="--use_peft --lora_r 16"
torchrun --nproc_per_node 2 train.py --model_name_or_path $MODEL --per_device_train_batch_size $BATCH $EXTRA
`;
    const r = runOf('sh ./finetune.sh --model=Qwen/Qwen2.5-0.5B --lora --batch=8\n', { '/w/finetune.sh': called });
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(r.setup?.micro_batch_size, 8);
    assert.equal(r.setup?.gpus_per_node, 2);
    assert.equal(r.setup?.method, 'lora');
    assert.equal(r.setup?.lora?.r, 16);
  });

  it('runs a `for a in "$@"` loop over the words: each in turn, `${a#*=}` after its `=`', () => {
    const called = `MODEL=gpt2
BATCH=1
for arg in "$@"; do
  case $arg in
    --model=*) MODEL="\${arg#*=}" ;;
    --batch=*) BATCH="\${arg#*=}" ;;
  esac
done
python train.py --model_name_or_path $MODEL --per_device_train_batch_size $BATCH
`;
    const r = runOf('bash train.sh --batch=4 --unused --model=Qwen/Qwen2.5-0.5B\n', { '/w/train.sh': called });
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(r.setup?.micro_batch_size, 4, 'a word no branch takes is passed over');
  });

  it('gives positional parameters, "$@" and the exported variables to the called script', () => {
    // tatsu-lab/alpaca_farm's examples/scripts/sft.sh takes the model as $3.
    const positional =
      'torchrun --nproc_per_node 8 train.py --output_dir "$1" --run_name "$2" --model_name_or_path "$3"\n';
    const r = runOf('bash examples/scripts/sft.sh out sft huggyllama/llama-7b\n', {
      '/w/examples/scripts/sft.sh': positional,
    });
    assert.equal(r.setup?.model, 'huggyllama/llama-7b');
    assert.equal(r.setup?.gpus_per_node, 8);
    // A script that passes its words on to the training script.
    const passing = 'python train.py --model_name_or_path $MODEL "$@"\n';
    const p = runOf('export MODEL=Qwen/Qwen2.5-1.5B\nbash train.sh --per_device_train_batch_size 4 --bf16\n', {
      '/w/train.sh': passing,
    });
    assert.equal(p.setup?.model, 'Qwen/Qwen2.5-1.5B', 'the exported MODEL');
    assert.equal(p.setup?.micro_batch_size, 4, 'the words "$@" passes on');
    // `shift` drops the first words before "$@".
    const shifting = 'MODEL=$1\nshift\npython train.py --model_name_or_path $MODEL "$@"\n';
    const s = runOf('./train.sh Qwen/Qwen2.5-0.5B --per_device_train_batch_size 16\n', { '/w/train.sh': shifting });
    assert.equal(s.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(s.setup?.micro_batch_size, 16);
  });

  it("a notebook's `!bash train.sh --opt value` line runs the script with its words", () => {
    const notebook = JSON.stringify({
      cells: [
        { cell_type: 'code', source: ['!bash scripts/train_dpo.sh --sft_model_path Qwen/Qwen2.5-0.5B --bsz 2\n'] },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    });
    const r = runPipeline(
      [{ file: '/w/run.ipynb', text: notebook }],
      inMemory({ '/w/run.ipynb': notebook, '/w/scripts/train_dpo.sh': TRAIN_DPO }),
      {},
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-0.5B');
    assert.equal(r.setup?.micro_batch_size, 2);
  });

  it('does not guess where the option loop cannot be run: an option no branch takes stops the script', () => {
    const r = runOf('bash scripts/train_dpo.sh --sft_model_path meta-llama/Llama-3.2-3B-Instruct --epochs 3\n', {
      '/w/scripts/train_dpo.sh': TRAIN_DPO,
    });
    // The called script exits at --epochs (its `*) exit 1` branch): no value of the loop is taken from the words.
    assert.equal(r.setup?.model, undefined);
    // A caller's word not known statically leaves the loop unread, too.
    const unknown = runOf('bash scripts/train_dpo.sh $OPTS --bsz 2\n', { '/w/scripts/train_dpo.sh': TRAIN_DPO });
    assert.equal(unknown.setup?.micro_batch_size, undefined);
  });

  it('a script read alone keeps its reading without arguments', () => {
    const alone = analyzeShell(TRAIN_DPO);
    const model = alone.facts.find((f) => f.key === 'model');
    assert.ok(model && typeof model.value === 'object', 'the model is the caller’s, unknown here');
    // The caller's line names the called script as a reference with its words.
    const ref = analyzeShell('bash scripts/train_dpo.sh --bsz 2 $X\n').references[0];
    assert.deepEqual(ref.shell?.words, ['--bsz', '2', null]);
    assert.equal(ref.path, 'scripts/train_dpo.sh');
  });
});

describe("LLaMA-Factory's --stage on a launch line", () => {
  const prefOf = (line: string): string | undefined =>
    analyzeShell(line).facts.find((f) => f.key === 'preference')?.value as string | undefined;
  it('reads the preference stage as its YAML does', () => {
    assert.equal(prefOf('llamafactory-cli train --stage dpo --model_name_or_path x\n'), 'dpo');
    assert.equal(prefOf('llamafactory-cli train --stage dpo --pref_loss simpo\n'), 'reference-free');
    assert.equal(prefOf('llamafactory-cli train --stage kto\n'), 'kto');
    assert.equal(prefOf('llamafactory-cli train --stage sft\n'), undefined);
    // The entry point of its releases before the CLI.
    assert.equal(prefOf('deepspeed --num_gpus 4 src/train_bash.py --stage rm --do_train\n'), 'reward');
    assert.equal(prefOf('python src/train.py --stage dpo --ref_model x\n'), 'dpo');
    const ppo = analyzeShell('llamafactory-cli train --stage ppo\n');
    assert.ok(ppo.problems.some((p) => p.code === 'not-modeled'));
  });
});

describe('a launch script that sources another', () => {
  it("reads the sourced file's variables from the `source` line on", () => {
    const args =
      '#!/bin/bash\nexport MODEL=Qwen/Qwen2.5-7B\nARGS="--per_device_train_batch_size 2 --gradient_accumulation_steps 8"\n';
    const r = runOf(
      'source configs/args.sh\ntorchrun --nproc_per_node 4 train.py --model_name_or_path $MODEL $ARGS\n',
      {
        '/w/configs/args.sh': args,
      },
    );
    assert.equal(r.setup?.model, 'Qwen/Qwen2.5-7B');
    assert.equal(r.setup?.micro_batch_size, 2);
    assert.equal(r.setup?.gradient_accumulation_steps, 8);
    assert.equal(r.setup?.gpus_per_node, 4);
    // The sourced file is part of the run: a reference of the script.
    assert.deepEqual(
      analyzeShell('. ./configs/args.sh\n').references.map((x) => [x.kind, x.path]),
      [['sourced', './configs/args.sh']],
    );
  });

  it('takes the flags every branch of an `if` passes, through eval of several words (princeton-nlp/LESS)', () => {
    // less/scripts/train/warmup_lora_train.sh, cut: the flags come from the sourced base_training_args.sh, and FSDP
    // is added for two models only.
    const base = [
      'export header="torchrun --nproc_per_node 1 -m less.train.train"',
      'export base_training_args="--lora True --lora_r 128 --per_device_train_batch_size 1 --gradient_accumulation_steps 32"',
      '',
    ].join('\n');
    const script = `source less/scripts/train/base_training_args.sh
model_path=$2
if [[ $model_path == "meta-llama/Llama-2-13b-hf" ]]; then
    base_training_args="$base_training_args --fsdp 'full_shard auto_wrap' --fsdp_config llama2_13b_finetune"
fi
training_args="$base_training_args --model_name_or_path $model_path"
eval "$header" "$training_args"
`;
    const r = runOf(script, { '/w/less/scripts/train/base_training_args.sh': base });
    const facts = r.files[0].facts.facts;
    const value = (key: string): unknown => facts.find((f) => f.key === key)?.value;
    assert.equal(value('method'), 'lora');
    assert.equal(value('loraR'), 128);
    assert.equal(value('microBatchSize'), 1);
    assert.equal(value('gradientAccumulationSteps'), 32);
    assert.equal(value('fsdp'), undefined, 'FSDP only on one branch: not taken');
    assert.ok(r.files[0].facts.problems.some((p) => /may add arguments that are not visible here/.test(p.message)));
  });

  it('a sourced file that launches the run runs with the variables set before it (razvanalex-phd/SeLeRoSa)', () => {
    // scripts/gemma3/gemma3_27b_it_ft.sh exports the model's settings, then sources the generic launcher from its own
    // folder (`source "$(dirname "$0")/../generic/generic_llm_finetune.sh"`), whose python line reads them.
    const caller =
      '#!/bin/bash\nexport BASE_MODEL="google/gemma-3-27b-it"\nexport PER_DEVICE_TRAIN_BATCH_SIZE=32\n' +
      'source "$(dirname "$0")/generic/finetune.sh"\n';
    const generic =
      '#!/bin/bash\nexport LORA_R="${LORA_R:-16}"\n' +
      'accelerate launch --num_processes 2 train.py --model_name_or_path "$BASE_MODEL" \\\n' +
      '  --per_device_train_batch_size "$PER_DEVICE_TRAIN_BATCH_SIZE" --bf16\n';
    assert.equal(detectFormat('/w/run.sh', caller), 'shell');
    const r = runOf(caller, { '/w/generic/finetune.sh': generic });
    assert.equal(r.setup?.model, 'google/gemma-3-27b-it');
    assert.equal(r.setup?.micro_batch_size, 32);
    assert.equal(r.setup?.gpus_per_node, 2);
    // A script that launches the run itself: a sourced setup file's own python line is not the run.
    const setup = 'export MODEL=google/gemma-2-2b\npython download.py --model_name_or_path gpt2\n';
    const own = runOf('source setup.sh\ntorchrun --nproc_per_node 2 train.py --model_name_or_path $MODEL\n', {
      '/w/setup.sh': setup,
    });
    assert.deepEqual([own.setup?.model, own.setup?.gpus_per_node], ['google/gemma-2-2b', 2]);
    assert.ok(!own.files.some((f) => f.file === '/w/setup.sh'));
    // `$(dirname "$0")` and `$(cd "$(dirname "$0")" && pwd)` are the script's folder: the path is read from there.
    for (const dir of ['$(dirname "$0")', '$(dirname "${BASH_SOURCE[0]}")', '$(cd "$(dirname "$0")" && pwd)'])
      assert.deepEqual(
        analyzeShell(`source ${dir}/common.sh\n`).references.map((x) => [x.kind, x.path]),
        [['sourced', './common.sh']],
      );
    // `$(pwd)` and an unset `$PWD` are the folder the script runs from: a path from it is looked for as a relative one
    // (notkisk/Parsit-VLM scripts/finetune_4b.sh: `REPO_ROOT="$(pwd)"`, `TRAIN_SCRIPT="$REPO_ROOT/parsit/train/train.py"`).
    for (const dir of ['$(pwd)', '$( pwd -P )', '$PWD', '${PWD}'])
      assert.deepEqual(
        analyzeShell(
          `ROOT="${dir}"\ntorchrun --nproc_per_node=2 "$ROOT/parsit/train/train.py" --bf16 True\n`,
        ).references.map((x) => [x.kind, x.path]),
        [['script', './parsit/train/train.py']],
      );
    const pwd = runOf('torchrun --nproc_per_node=2 "$(pwd)/train.py"\n', {
      '/w/train.py':
        'AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-4B")\nTrainingArguments(output_dir="o", bf16=True)\n',
    });
    assert.deepEqual([pwd.setup?.model, pwd.setup?.gpus_per_node], ['Qwen/Qwen3-4B', 2]);
    // Slurm's $SLURM_SUBMIT_DIR is the folder `sbatch` was run from, the working folder as $PWD is
    // (guc1/Meaning-in-Temperatures fine_tuning/2_multi_gpu_data_parallel/run_train_2gpu.sbatch:
    // `PYTHON_SCRIPT_TO_RUN="$SLURM_SUBMIT_DIR/fine_tuning/1_single_gpu_baseline/train_qwen25_lora_single_gpu.py"`).
    assert.deepEqual(
      analyzeShell('S="$SLURM_SUBMIT_DIR/fine_tuning/train.py"\naccelerate launch "$S" --bf16\n').references.map(
        (x) => [x.kind, x.path],
      ),
      [['script', './fine_tuning/train.py']],
    );
    // A script that sets PWD itself gives it its own value.
    assert.deepEqual(
      analyzeShell('PWD=/opt/x\npython "$PWD/train.py"\n').references.map((x) => x.path),
      ['/opt/x/train.py'],
    );
    // A folder relative to the script's own (Alex-ZhouZiheng/CheckEval-guided-Fine-tuning src/train/
    // run_judge_sft_swift.sh: `PROJECT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"`).
    const root = 'ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"\nsource "${ROOT}/env/common.sh"\n';
    assert.deepEqual(
      analyzeShell(root).references.map((x) => [x.kind, x.path]),
      [['sourced', './../../env/common.sh']],
    );
  });

  it('a file sourced with arguments takes them as its positional parameters (RyanS161/cutlist)', () => {
    // scripts/sbatch_finetuning.sh: `source ./scripts/finetune.sh $TMPDIR/$MODEL_NAME ...`, whose finetune.sh sets
    // PRETRAINED_DIR="${1}" and passes it as --model_name_or_path (abridged, with the model named directly).
    const finetune = [
      'PRETRAINED_DIR="${1}"',
      'OUTPUT_DIR="${2}"',
      'trl sft --model_name_or_path "${PRETRAINED_DIR}" --output_dir "${OUTPUT_DIR}" --per_device_train_batch_size 2',
      '',
    ].join('\n');
    const r = runOf('source ./scripts/finetune.sh meta-llama/Llama-3.2-1B-Instruct out\n', {
      '/w/scripts/finetune.sh': finetune,
    });
    assert.equal(r.setup?.model, 'meta-llama/Llama-3.2-1B-Instruct');
    assert.equal(r.setup?.micro_batch_size, 2);
  });

  it("a script under a folder variable no file sets is read from the project's root (UKPLab/arxiv2024-lfqa-hallucination)", () => {
    // scripts/run_sft.sh runs `torchrun ... ${BASE_PATH}/src/modelling/dpo/sft.py --model_name meta-llama/Llama-2-7b-hf`
    // with BASE_PATH left to a .env file (abridged, the script cut to what reads the model and the batch).
    const sft = [
      'from dataclasses import dataclass, field',
      'from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments',
      '@dataclass',
      'class ScriptArguments:',
      '    model_name: str = field(default="")',
      'script_args, training_args = HfArgumentParser((ScriptArguments, TrainingArguments)).parse_args_into_dataclasses()',
      'model = AutoModelForCausalLM.from_pretrained(script_args.model_name)',
      'Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const launch =
      'torchrun --nproc_per_node 1 ${BASE_PATH}/src/modelling/dpo/sft.py --model_name meta-llama/Llama-2-7b-hf ' +
      '--output_dir out --per_device_train_batch_size 1 --gradient_accumulation_steps 4\n';
    const run = runProject({ 'scripts/run_sft.sh': launch, 'src/modelling/dpo/sft.py': sft }, 'scripts/run_sft.sh');
    assert.deepEqual(
      [run.setup?.model, run.setup?.micro_batch_size, run.setup?.gradient_accumulation_steps],
      ['meta-llama/Llama-2-7b-hf', 1, 4],
    );
    const note = run.problems.find((p) => p.code === 'reference-found-above');
    assert.match(note?.message ?? '', /names its folder by \$BASE_PATH.*read src\/modelling\/dpo\/sft\.py/);
    // The script given alone is read as the run of the launcher that runs it (the CLI's launchersOf).
    const script = path.join(run.root, 'src/modelling/dpo/sft.py');
    assert.deepEqual(launchersOf(script, run.root, nodeFileReader(run.root)), [
      path.join(run.root, 'scripts/run_sft.sh'),
    ]);
    // A path under the variable that is not in the project stays unread, said at the line.
    const elsewhere = runProject({ 'scripts/run_sft.sh': launch }, 'scripts/run_sft.sh');
    assert.ok(elsewhere.problems.some((p) => /depends on a variable and cannot be followed/.test(p.message)));
    assert.equal(elsewhere.files.length, 1);
  });

  it('several launch scripts one after another: the one open is its own run, else the last is, said (xiusic/Rubric-RM)', () => {
    // xiusic/Rubric-RM's run_baselines/batch_run.sh runs three complete OpenRLHF launchers, one after another.
    const launcher = (model: string, micro: number): string =>
      `deepspeed --include localhost:0,1 --module openrlhf.cli.train_sft --pretrain ${model} ` +
      `--micro_train_batch_size ${micro} --train_batch_size 16 --max_len 2048 --zero_stage 3 --bf16\n`;
    const files = {
      '/w/qwen14b.sh': launcher('Qwen/Qwen2.5-14B-Instruct', 1),
      '/w/llama8b.sh': launcher('meta-llama/Llama-3.1-8B-Instruct', 2),
      '/w/setup.sh': 'pip install -r requirements.txt\n',
    };
    const batch = 'bash setup.sh\nbash qwen14b.sh\n\nbash llama8b.sh\n';
    const reader = inMemory({ ...files, '/w/run.sh': batch });
    // Open, the first launcher is read as the batch runs it, and the second is no file of its run.
    const open = runPipeline(
      [
        { file: '/w/run.sh', text: batch },
        { file: '/w/qwen14b.sh', text: files['/w/qwen14b.sh'] },
      ],
      reader,
      {},
    );
    assert.deepEqual([open.setup?.model, open.setup?.micro_batch_size], ['Qwen/Qwen2.5-14B-Instruct', 1]);
    assert.ok(!open.files.some((f) => f.file === '/w/llama8b.sh'));
    // The batch alone: the last launcher's run, with its own values (not the earlier one's where it is silent), and a
    // note at it naming the earlier one; the setup script launches nothing and counts as no launch.
    const alone = runOf(batch, files);
    assert.deepEqual([alone.setup?.model, alone.setup?.micro_batch_size], ['meta-llama/Llama-3.1-8B-Instruct', 2]);
    assert.ok(!alone.files.some((f) => f.file === '/w/qwen14b.sh'));
    const note = alone.problems.find((p) => p.code === 'several-launches');
    assert.equal(note?.line, 4);
    assert.match(
      note?.message ?? '',
      /launches training 2 times, one after another: .* this last one \(line 4\) is estimated, not the earlier ones \(line 2\)/,
    );
    // On the branches of an `if`, the scripts are alternatives: both are read, and no note.
    const branches = runOf('if [ "$1" = big ]; then\n  bash qwen14b.sh\nelse\n  bash llama8b.sh\nfi\n', files);
    assert.ok(!branches.problems.some((p) => p.code === 'several-launches'));
    assert.ok(branches.files.some((f) => f.file === '/w/qwen14b.sh'));
  });
});
