// OpenRLHF launch scripts: the heredoc a script reads into a variable (`read -r -d '' cmds <<EOF ... EOF`,
// `cmds=$(cat <<EOF ... EOF)`) and runs as `deepspeed --module $cmds`, with spans that point into the heredoc's body;
// and the flags of openrlhf.cli.train_* in the dotted CLI and the flat one before it, with OpenRLHF's defaults.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeShell } from '../../../src/analyzers/shell';
import { detectFormat } from '../../../src/analyzers/detect';
import { heredocNamingModel, heredocs } from '../../../src/analyzers/heredoc';
import { type CanonicalKey, type ConfigFacts } from '../../../src/analyzers/facts';
import { applyEditData, editsForChanges } from '../../../src/features/fixes';
import type { SetupChange } from '../../../src/core/advice';
import { resolveText } from '../helpers';
import { checkFacts } from './shell-common';

const fact = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();

/** 1-based line and column of an offset. */
function lineCol(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset);
  return [before.split('\n').length, offset - before.lastIndexOf('\n')];
}

const real = (name: string): string =>
  fs.readFileSync(
    path.resolve(__dirname, '../../../../test/real-files/files/OpenRLHF__OpenRLHF/examples/scripts', name),
    'utf8',
  );

describe('shell: heredocs read into a variable', () => {
  it("read -r -d '' VAR <<EOF: $VAR splits into the heredoc's words, located in its body", () => {
    const text =
      'MODEL=meta-llama/Meta-Llama-3-8B\n' +
      "read -r -d '' cmds <<EOF\n" +
      'openrlhf.cli.train_sft \\\n' +
      '   --model.model_name_or_path $MODEL \\\n' +
      '   --train.micro_batch_size 2 --ds.zero_stage 3\n' +
      'EOF\n' +
      'deepspeed --module $cmds\n';
    const r = checkFacts(text, [
      ['model', 'meta-llama/Meta-Llama-3-8B', '--model.model_name_or_path', '$MODEL'],
      ['microBatchSize', 2, '--train.micro_batch_size', '2'],
      ['zeroStage', 3, '--ds.zero_stage', '3'],
    ]);
    const micro = fact(r, 'microBatchSize')!;
    assert.deepEqual(lineCol(text, micro.keySpan.start), [5, 4]);
    assert.deepEqual(lineCol(text, micro.valueSpan.start), [5, 29]);
    assert.deepEqual(lineCol(text, fact(r, 'model')!.valueSpan.start), [4, 31]);
    assert.deepEqual(r.tools, ['deepspeed', 'openrlhf']);
    assert.equal(detectFormat('train.sh', text), 'shell');
  });

  it("a quoted delimiter ('EOF') takes the body as written: $VAR inside stays literal", () => {
    const text =
      'MODEL=meta-llama/Meta-Llama-3-8B\n' +
      "read -r -d '' cmds <<'EOF'\n" +
      'openrlhf.cli.train_sft --model.model_name_or_path $MODEL \\\n' +
      '  --data.max_len 4096\n' +
      'EOF\n' +
      'deepspeed --module $cmds\n';
    checkFacts(text, [
      ['model', '$MODEL', '--model.model_name_or_path', '$MODEL'],
      ['seqLen', 4096, '--data.max_len', '4096'],
    ]);
    // Unquoted, the same body takes the variable's value.
    const unquoted = checkFacts(text.replace("<<'EOF'", '<<EOF'), [
      ['model', 'meta-llama/Meta-Llama-3-8B', '--model.model_name_or_path', '$MODEL'],
    ]);
    assert.equal(fact(unquoted, 'seqLen')?.value, 4096);
  });

  it('read without -d reads the first line; <<- drops leading tabs; "$VAR" stays one word', () => {
    const first =
      'read -r cmds <<EOF\nopenrlhf.cli.train_sft --train.micro_batch_size 4\n--ds.zero_stage 3\nEOF\n' +
      'deepspeed --module $cmds\n';
    const r = checkFacts(first, [['microBatchSize', 4, '--train.micro_batch_size', '4']]);
    assert.ok(!r.facts.some((f) => f.key === 'zeroStage' && f.origin !== 'call-default'));
    const tabs =
      "read -d '' cmds <<-EOF\n\topenrlhf.cli.train_sft \\\n\t\t--data.max_len 1024\n\tEOF\ndeepspeed --module $cmds\n";
    checkFacts(tabs, [['seqLen', 1024, '--data.max_len', '1024']]);
    const quotedUse =
      'read -r -d \'\' cmds <<EOF\nopenrlhf.cli.train_sft --data.max_len 1024\nEOF\ndeepspeed --module "$cmds"\n';
    assert.equal(fact(analyzeShell(quotedUse), 'seqLen'), undefined);
  });

  it('VAR=$(cat <<EOF ... EOF) is read like a heredoc given to read', () => {
    const text =
      'ZERO=3\n' +
      'cmds=$(cat <<EOF\n' +
      'openrlhf.cli.train_dpo --model.model_name_or_path Qwen/Qwen2.5-7B \\\n' +
      "  --ds.zero_stage $ZERO --data.input_template 'User: {}'\n" +
      'EOF\n' +
      ')\n' +
      'deepspeed --module $cmds\n';
    checkFacts(text, [
      ['model', 'Qwen/Qwen2.5-7B', '--model.model_name_or_path', 'Qwen/Qwen2.5-7B'],
      ['zeroStage', 3, '--ds.zero_stage', '$ZERO'],
      ['preference', 'dpo', 'openrlhf.cli.train_dpo', 'openrlhf.cli.train_dpo'],
    ]);
  });

  it('other heredocs stay skipped, and only they are said not to be read', () => {
    const python =
      'python - <<EOF\nimport subprocess\n' +
      'subprocess.run("deepspeed --module openrlhf.cli.train_sft --model.model_name_or_path m/x".split())\nEOF\n';
    const r = analyzeShell(python);
    assert.equal(fact(r, 'model'), undefined);
    assert.equal(heredocNamingModel(python)?.delimiter, 'EOF');
    const train = real('train_sft.sh');
    assert.equal(heredocs(train).length, 1);
    assert.equal(heredocs(train)[0].assigned, true);
    assert.equal(heredocNamingModel(train), undefined);
    assert.equal(heredocs('x=$(cat <<EOF\n--pretrain m/x\nEOF\n)\n')[0].assigned, true);
  });
});

describe('shell: OpenRLHF command lines', () => {
  it('examples/scripts/train_sft.sh: the dotted flags of the heredoc command', () => {
    const text = real('train_sft.sh');
    const r = checkFacts(text, [
      ['model', 'meta-llama/Meta-Llama-3-8B', '--model.model_name_or_path', 'meta-llama/Meta-Llama-3-8B'],
      ['microBatchSize', 2, '--train.micro_batch_size', '2'],
      ['trainBatchSize', 256, '--train.batch_size', '256'],
      ['seqLen', 2048, '--data.max_len', '2048'],
      ['zeroStage', 2, '--ds.zero_stage', '2'],
      ['bf16', true, '--ds.param_dtype', 'bf16'],
      ['weightsDtype', 'bf16', '--ds.param_dtype', 'bf16'],
      ['attention', 'flash', '--ds.attn_implementation', 'flash_attention_2'],
      ['batchLengths', 'fixed', '--ds.packing_samples', '--ds.packing_samples'],
      [
        'gradientCheckpointing',
        'full',
        '--model.gradient_checkpointing_enable',
        '--model.gradient_checkpointing_enable',
      ],
    ]);
    assert.deepEqual(r.tools, ['deepspeed', 'openrlhf']);
    assert.ok(!r.problems.some((p) => p.severity !== 'info'), JSON.stringify(r.problems));
    assert.equal(fact(r, 'method'), undefined);
  });

  it('examples/scripts/train_dpo_llama.sh and train_rm.sh: preference pairs, the reward head', () => {
    const dpo = checkFacts(real('train_dpo_llama.sh'), [
      ['model', 'OpenRLHF/Llama-3-8b-sft-mixture', '--model.model_name_or_path', 'OpenRLHF/Llama-3-8b-sft-mixture'],
      ['microBatchSize', 1, '--train.micro_batch_size', '1'],
      ['seqLen', 8192, '--data.max_len', '8192'],
      ['zeroStage', 3, '--ds.zero_stage', '3'],
      ['preference', 'dpo', 'openrlhf.cli.train_dpo', 'openrlhf.cli.train_dpo'],
    ]);
    // The reference is an Actor of its own (cli/train_dpo.py `ref_model = Actor(args.ref_pretrain, ...)`), LoRA or not:
    // OpenCharacterTraining's LoRA DPO had its reference read as the adapters disabled, 15 GiB low for an 8B model.
    assert.equal(fact(dpo, 'referenceModel')?.value, 'given');
    assert.equal(fact(dpo, 'referenceModel')?.origin, 'call-default');
    const lora = resolveText(
      'dpo.sh',
      real('train_dpo_llama.sh').replace('--ds.zero_stage 3', '--ds.zero_stage 3 --ds.lora.rank 64'),
    );
    assert.equal(lora.setup?.method, 'lora');
    assert.equal(lora.setup?.preference?.reference, 'copy');
    const rm = checkFacts(real('train_rm.sh'), [
      ['preference', 'reward', 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
      ['head', 'seq_cls', 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
      ['numLabels', 1, 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
      ['seqLen', 8192, '--data.max_len', '8192'],
    ]);
    assert.equal(fact(rm, 'gradientCheckpointing')?.value, 'full');
  });

  it('examples/scripts/train_sft_mixtral_lora.sh: LoRA from --ds.lora.rank', () => {
    checkFacts(real('train_sft_mixtral_lora.sh'), [
      ['model', 'mistralai/Mixtral-8x7B-v0.1', '--model.model_name_or_path', 'mistralai/Mixtral-8x7B-v0.1'],
      ['method', 'lora', '--ds.lora.rank', '64'],
      ['loraR', 64, '--ds.lora.rank', '64'],
      ['loraAlpha', 64, '--ds.lora.alpha', '64'],
      ['microBatchSize', 4, '--train.micro_batch_size', '4'],
      ['zeroStage', 3, '--ds.zero_stage', '3'],
    ]);
  });

  it('examples/scripts/train_ppo_ray_hybrid_engine.sh: the actor, its GPUs and dynamic batching; PPO not modeled', () => {
    const text = real('train_ppo_ray_hybrid_engine.sh');
    assert.equal(detectFormat('train_ppo_ray_hybrid_engine.sh', text), 'shell');
    const r = checkFacts(text, [
      ['model', 'OpenRLHF/Llama-3-8b-sft-mixture', '--actor.model_name_or_path', 'OpenRLHF/Llama-3-8b-sft-mixture'],
      ['gpusPerNode', 8, '--actor.num_gpus_per_node', '8'],
      ['nodes', 1, '--actor.num_nodes', '1'],
      ['seqLen', 2048, '--data.max_len', '2048'],
      ['zeroStage', 3, '--ds.zero_stage', '3'],
      [
        'gradientCheckpointing',
        'full',
        '--actor.gradient_checkpointing_enable',
        '--actor.gradient_checkpointing_enable',
      ],
      // 16384 tokens per micro-step over max_len 2048.
      ['microBatchSize', 8, '--train.max_tokens_per_gpu', '16384'],
    ]);
    assert.equal(fact(r, 'microBatchSize')?.origin, 'call-default');
    const ppo = r.problems.find((p) => p.code === 'not-modeled');
    assert.ok(ppo && ppo.severity === 'warning');
    assert.equal(text.slice(ppo.span.start, ppo.span.end), 'openrlhf.cli.train_ppo_ray');
    assert.deepEqual(r.tools, ['openrlhf']);
  });

  it('the flat CLI before 2026-04: --pretrain, --micro_train_batch_size, --bf16, --flash_attn, LoRA over 4 bits', () => {
    const text =
      'deepspeed --module openrlhf.cli.train_dpo \\\n' +
      '   --pretrain OpenRLHF/Llama-3-8b-sft-mixture --ref_pretrain meta-llama/Meta-Llama-3-8B \\\n' +
      '   --micro_train_batch_size 1 --train_batch_size 128 --max_len 4096 --zero_stage 3 --bf16 --flash_attn \\\n' +
      '   --gradient_checkpointing --lora_rank 16 --lora_alpha 32 --target_modules q_proj v_proj --load_in_4bit \\\n' +
      '   --adam_offload --ref_offload --packing_samples\n';
    const r = checkFacts(text, [
      ['model', 'OpenRLHF/Llama-3-8b-sft-mixture', '--pretrain', 'OpenRLHF/Llama-3-8b-sft-mixture'],
      ['referenceModel', 'given', '--ref_pretrain', 'meta-llama/Meta-Llama-3-8B'],
      ['microBatchSize', 1, '--micro_train_batch_size', '1'],
      ['trainBatchSize', 128, '--train_batch_size', '128'],
      ['seqLen', 4096, '--max_len', '4096'],
      ['zeroStage', 3, '--zero_stage', '3'],
      ['bf16', true, '--bf16', '--bf16'],
      ['attention', 'flash', '--flash_attn', '--flash_attn'],
      ['gradientCheckpointing', 'full', '--gradient_checkpointing', '--gradient_checkpointing'],
      ['method', 'qlora', '--lora_rank', '16'],
      ['loraR', 16, '--lora_rank', '16'],
      ['loraAlpha', 32, '--lora_alpha', '32'],
      ['loraTargets', ['q_proj', 'v_proj'], '--target_modules', 'q_proj v_proj'],
      ['quantBits', 4, '--load_in_4bit', '--load_in_4bit'],
      ['quantType', 'nf4', '--load_in_4bit', '--load_in_4bit'],
      ['offloadOptimizer', 'cpu', '--adam_offload', '--adam_offload'],
      ['batchLengths', 'fixed', '--packing_samples', '--packing_samples'],
    ]);
    const offload = r.problems.find((p) => p.code === 'not-modeled');
    assert.ok(offload && offload.severity === 'warning', JSON.stringify(r.problems));
    assert.equal(text.slice(offload.span.start, offload.span.end), '--ref_offload');
  });

  it('ring attention: the GPUs of a ring share each sample, so train_batch_size counts the rings', () => {
    // OpenRLHF utils/deepspeed/deepspeed.py: accumulated_gradient = train_batch_size x ring_attn_size / micro / world.
    // ZetangForward/MyRLHF scripts/train_sft_llama_ring.sh: 2 GPUs in one ring of 2, 64 x 2 / 1 / 2 = 64 micro-steps.
    const text =
      'deepspeed --num_gpus 2 --module openrlhf.cli.train_sft --pretrain meta-llama/Meta-Llama-3.1-8B-Instruct ' +
      '--micro_train_batch_size 1 --train_batch_size 64 --ring_attn_size 2 --max_len 8192 --zero_stage 3 --bf16\n';
    const s = resolveText('run.sh', text).setup;
    assert.deepEqual([s?.context_parallel, s?.micro_batch_size, s?.gradient_accumulation_steps], [2, 1, 64]);
  });

  it("the command's defaults are facts at the module, reported by resolve as OpenRLHF's", () => {
    const text = 'python -m openrlhf.cli.train_rm --model.model_name_or_path meta-llama/Meta-Llama-3-8B\n';
    const r = checkFacts(text, [
      ['microBatchSize', 1, 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
      ['seqLen', 512, 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
      ['trainBatchSize', 128, 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
      ['zeroStage', 2, 'openrlhf.cli.train_rm', 'openrlhf.cli.train_rm'],
    ]);
    assert.ok(r.facts.filter((f) => f.rawKey !== '--model.model_name_or_path').length > 0);
    assert.equal(fact(r, 'microBatchSize')?.origin, 'call-default');
    assert.equal(fact(r, 'microBatchSize')?.rawKey, 'train.micro_batch_size');
    const res = resolveText('train_rm.sh', text);
    const s = res.setup!;
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.zero_stage, s.gradient_accumulation_steps], [1, 512, 2, 128]);
    assert.deepEqual(
      [s.weights_dtype, s.master_weights, s.attention, s.head, s.num_labels],
      ['bf16', true, 'flash', 'seq_cls', 1],
    );
    const prov = res.provenance as Record<string, { kind: string; owner?: string; note?: string }>;
    assert.equal(prov.micro_batch_size.kind, 'default');
    assert.equal(prov.micro_batch_size.owner, 'openrlhf');
    assert.match(prov.micro_batch_size.note!, /OpenRLHF\/OpenRLHF@3c3be62:openrlhf\/cli\/train_rm\.py/);
    assert.match(prov.seq_len.note!, /max_len defaults to 512/);
    assert.equal(prov.gradient_accumulation_steps.kind, 'default');
    assert.match(prov.gradient_accumulation_steps.note!, /train\.batch_size \/ \(micro x GPUs\)/);
    assert.match(prov.attention.note!, /flash_attention_2/);
    // The flat CLI's names where the command line uses them.
    const flat = analyzeShell('deepspeed --module openrlhf.cli.train_sft --pretrain m/x --zero_stage 3\n');
    assert.equal(fact(flat, 'microBatchSize')?.rawKey, 'micro_train_batch_size');
    assert.equal(fact(flat, 'microBatchSize')?.value, 8);
  });

  it('torchrun -m, ray job submit, the old PPO lengths and knowledge distillation', () => {
    const tr = checkFacts(
      'torchrun --nproc_per_node 4 -m openrlhf.cli.train_sft --model.model_name_or_path m/x --train.micro_batch_size 2\n',
      [
        ['gpusPerNode', 4, '--nproc_per_node', '4'],
        ['microBatchSize', 2, '--train.micro_batch_size', '2'],
      ],
    );
    assert.deepEqual(tr.tools, ['torchrun', 'openrlhf']);
    const ray =
      'ray job submit --address="http://127.0.0.1:8265" --runtime-env-json=\'{"working_dir": "/openrlhf"}\' \\\n' +
      '   -- python3 -m openrlhf.cli.train_ppo_ray --pretrain m/x --actor_num_gpus_per_node 4 \\\n' +
      '   --prompt_max_len 1024 --generate_max_len 3072 --micro_train_batch_size 2\n';
    const r = checkFacts(ray, [
      ['model', 'm/x', '--pretrain', 'm/x'],
      ['gpusPerNode', 4, '--actor_num_gpus_per_node', '4'],
      ['seqLen', 4096, '--prompt_max_len', '--prompt_max_len 1024 --generate_max_len 3072'],
      ['microBatchSize', 2, '--micro_train_batch_size', '2'],
      ['nodes', 1, 'openrlhf.cli.train_ppo_ray', 'openrlhf.cli.train_ppo_ray'],
    ]);
    assert.ok(r.problems.some((p) => p.code === 'not-modeled'));
    const kd = checkFacts(
      'deepspeed --module openrlhf.cli.train_kd --pretrain Qwen/Qwen2.5-0.5B --teacher_model Qwen/Qwen2.5-7B\n',
      [
        ['teacherModel', 'Qwen/Qwen2.5-7B', '--teacher_model', 'Qwen/Qwen2.5-7B'],
        ['onPolicyFraction', 0, 'openrlhf.cli.train_kd', 'openrlhf.cli.train_kd'],
        ['seqLen', 2048, 'openrlhf.cli.train_kd', 'openrlhf.cli.train_kd'],
      ],
    );
    assert.equal(fact(kd, 'klBeta')?.value, 0);
  });

  it('values it cannot read: unknown (info) or invalid (a located warning)', () => {
    const text =
      'deepspeed --module openrlhf.cli.train_sft --model.model_name_or_path m/x --ds.zero_stage $ZS ' +
      '--ds.param_dtype fp32 --ds.grad_accum_dtype fp32\n';
    const r = checkFacts(text, [['zeroStage', '?', '--ds.zero_stage', '$ZS']]);
    const bad = r.problems.find((p) => p.code === 'invalid-value');
    assert.ok(bad && bad.severity === 'warning');
    assert.equal(text.slice(bad.span.start, bad.span.end), 'fp32');
    const dtype = r.problems.find((p) => p.code === 'not-modeled');
    assert.equal(dtype && text.slice(dtype.span.start, dtype.span.end), '--ds.grad_accum_dtype');
    // An unknown flag that does not change the memory is ignored silently.
    const quiet = analyzeShell('deepspeed --module openrlhf.cli.train_sft --adam.lr 5e-6 --logger.wandb.key x\n');
    assert.ok(!quiet.problems.some((p) => p.severity !== 'info'));
  });

  it("a fork's variant of a command (openrlhf/cli/train_sft_dev.py) is read as the command its name extends, said", () => {
    // The shape of ZetangForward/MyRLHF's sbatch/pjlab.sh: a development copy of train_sft with OpenRLHF's flat flags.
    const text =
      'deepspeed --hostfile=$hostfile --launcher SLURM openrlhf/cli/train_sft_dev.py \\\n' +
      "   --max_len 64000 --micro_train_batch_size 1 --lora_rank 32 --pretrain 'meta-llama/Meta-Llama-3.1-8B-Instruct' \\\n" +
      '   --zero_stage 3 --bf16\n';
    const r = checkFacts(text, [
      ['model', 'meta-llama/Meta-Llama-3.1-8B-Instruct', '--pretrain', 'meta-llama/Meta-Llama-3.1-8B-Instruct'],
      ['seqLen', 64000, '--max_len', '64000'],
      ['method', 'lora', '--lora_rank', '32'],
      ['zeroStage', 3, '--zero_stage', '3'],
    ]);
    const said = r.problems.find((p) => p.code === 'read-by-name');
    assert.ok(said && said.severity === 'info', JSON.stringify(r.problems));
    assert.equal(text.slice(said.span.start, said.span.end), 'openrlhf/cli/train_sft_dev.py');
    assert.match(said.message, /read as OpenRLHF's train_sft/);
    // The longest command the name begins with: train_ppo_ray_v2 is train_ppo_ray's variant, not train_ppo's.
    const ppo = analyzeShell('python -m openrlhf.cli.train_ppo_ray_v2 --pretrain m/x\n');
    assert.match(ppo.problems.find((p) => p.code === 'read-by-name')?.message ?? '', /OpenRLHF's train_ppo_ray,/);
    // A name that extends no command is not OpenRLHF's: the script itself is read.
    const other = analyzeShell('deepspeed openrlhf/cli/serve_rm.py --pretrain m/x\n');
    assert.ok(!other.tools.includes('openrlhf'));
  });
  it("the project's own copy of OpenRLHF (src.cli.train_sft) is read as the command when its flags are OpenRLHF's", () => {
    // The shape of GAIR-NLP/cs2916's 2025/hw1/scripts/sft_cot.sh: OpenRLHF vendored as the package `src` (its
    // src/cli/train_sft.py builds src.models.Actor and src.trainer.SFTTrainer, OpenRLHF's own, not TRL's), launched
    // with `torchrun -m src.cli.train_sft` and OpenRLHF's flat flags.
    const text =
      'torchrun --nproc_per_node 4 -m src.cli.train_sft --max_len 2048 --train_batch_size 256 \\\n' +
      '   --micro_train_batch_size 4 --pretrain Qwen/Qwen2.5-Math-1.5B --zero_stage 2 --bf16 --packing_samples\n';
    const r = checkFacts(text, [
      ['model', 'Qwen/Qwen2.5-Math-1.5B', '--pretrain', 'Qwen/Qwen2.5-Math-1.5B'],
      ['microBatchSize', 4, '--micro_train_batch_size', '4'],
      ['trainBatchSize', 256, '--train_batch_size', '256'],
      ['seqLen', 2048, '--max_len', '2048'],
      ['zeroStage', 2, '--zero_stage', '2'],
    ]);
    assert.ok(r.tools.includes('openrlhf'));
    const said = r.problems.find((p) => p.code === 'read-by-name');
    assert.equal(said && text.slice(said.span.start, said.span.end), 'src.cli.train_sft');
    assert.match(said?.message ?? '', /OpenRLHF's train_sft: the project's own copy/);
    // By its script path too; a train_sft module with other flags is a script of its own.
    const byPath = analyzeShell('deepspeed mylib/cli/train_dpo.py --pretrain m/x --micro_train_batch_size 2\n');
    assert.ok(byPath.tools.includes('openrlhf'));
    const own = analyzeShell(
      'torchrun -m src.cli.train_sft --model_name_or_path m/x --per_device_train_batch_size 2\n',
    );
    assert.ok(!own.tools.includes('openrlhf'));
    // A copy beside the launcher under a name of its own (NotTheStallion/RLHF-Zero2Hero's train_rm_.py, OpenRLHF's
    // train_rm): its micro-batch of one pair, not TRL's default of 8.
    const renamed = analyzeShell('python3 train_rm_.py --pretrain m/x --micro_train_batch_size 1 --max_len 8192\n');
    assert.ok(renamed.tools.includes('openrlhf'));
    assert.equal(renamed.facts.find((f) => f.key === 'microBatchSize')?.value, 1);
    assert.ok(!analyzeShell('python3 train_rm_.py --model_name_or_path m/x\n').tools.includes('openrlhf'));
  });

  it('quick fixes rewrite the flags the command line has, in the heredoc, and add none', () => {
    const before = real('train_sft.sh');
    const fix = (changes: Record<string, unknown>) =>
      editsForChanges(
        Object.entries(changes).map(([key, value]) => ({ key: key as SetupChange['key'], value })),
        [{ file: 'train_sft.sh', text: before, format: 'shell', facts: analyzeShell(before) }],
        'train_sft.sh',
      );
    const p = fix({ micro_batch_size: 1, seq_len: 1024, zero_stage: 3, gradient_checkpointing: 'none' });
    assert.deepEqual(p.unsupported, []);
    const after = applyEditData(before, p.edits);
    assert.match(after, /--train\.micro_batch_size 1 \\\n/);
    assert.match(after, /--data\.max_len 1024 \\\n/);
    assert.match(after, /--ds\.zero_stage 3 \\\n/);
    assert.doesNotMatch(after, /gradient_checkpointing_enable/);
    const r = analyzeShell(after);
    assert.deepEqual(
      [fact(r, 'microBatchSize')?.value, fact(r, 'seqLen')?.value, fact(r, 'zeroStage')?.value],
      [1, 1024, 3],
    );
    // Not on the command line: refused with a reason, nothing added.
    const add = fix({ offload_optimizer: 'cpu', gradient_accumulation_steps: 4 });
    assert.equal(add.edits.length, 0);
    assert.equal(add.unsupported.length, 2);
  });

  it('every prefix of the real scripts is analyzed without an internal error', () => {
    const text = real('train_sft.sh') + real('train_ppo_ray_hybrid_engine.sh');
    for (let n = 0; n <= text.length; n += 3) {
      const r = analyzeShell(text.slice(0, n));
      assert.ok(
        !r.problems.some((p) => p.code === 'syntax-error' && /could not be analyzed/.test(p.message)),
        `prefix of ${n} characters`,
      );
    }
  });
});
