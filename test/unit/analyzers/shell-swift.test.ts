// ms-swift command lines in launch scripts (`swift sft|pt|rlhf ...`): the flags as facts with the text their spans
// point at, swift's defaults (LoRA, the accumulation it derives from the world size, the model's sequence length),
// its DeepSpeed presets, NPROC_PER_NODE / NNODES, and the defaults resolve applies with their sources.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';
import { analyzeSwiftArgsFile } from '../../../src/analyzers/yaml';
import { detectFormat } from '../../../src/analyzers/detect';
import { isUnknown, type CanonicalKey, type ConfigFacts } from '../../../src/analyzers/facts';
import { resolveText } from '../helpers';
import { checkFacts } from './shell-common';

const fact = (r: ConfigFacts, key: CanonicalKey) => r.facts.filter((f) => f.key === key).pop();

// modelscope/ms-swift@8773ecd examples/train/qlora/bnb/train.sh
const QLORA = `# 10GB
# pip install bitsandbytes
CUDA_VISIBLE_DEVICES=0 \\
swift sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --dataset 'AI-ModelScope/alpaca-gpt4-data-zh#500' \\
              'AI-ModelScope/alpaca-gpt4-data-en#500' \\
              'swift/self-cognition#500' \\
    --torch_dtype bfloat16 \\
    --bnb_4bit_compute_dtype bfloat16 \\
    --bnb_4bit_quant_type nf4 \\
    --bnb_4bit_use_double_quant true \\
    --quant_method bnb \\
    --quant_bits 4 \\
    --num_train_epochs 1 \\
    --per_device_train_batch_size 1 \\
    --per_device_eval_batch_size 1 \\
    --learning_rate 1e-4 \\
    --lora_rank 8 \\
    --lora_alpha 32 \\
    --target_modules all-linear \\
    --gradient_accumulation_steps 16 \\
    --max_length 2048 \\
    --output_dir output \\
    --system 'You are a helpful assistant.' \\
    --model_author swift \\
    --model_name swift-robot
`;

// modelscope/ms-swift@8773ecd examples/train/multi-gpu/deepspeed/train_zero3.sh (shortened)
const ZERO3 = `# 16GiB * 2
nproc_per_node=2

CUDA_VISIBLE_DEVICES=0,1 \\
NPROC_PER_NODE=$nproc_per_node \\
swift sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --dataset 'swift/self-cognition#1000' \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 1 \\
    --gradient_accumulation_steps $(expr 16 / $nproc_per_node) \\
    --max_length 2048 \\
    --deepspeed zero3
`;

// modelscope/ms-swift@8773ecd examples/train/rlhf/dpo/full.sh (shortened)
const DPO_FULL = `NPROC_PER_NODE=4 \\
CUDA_VISIBLE_DEVICES=0,1,2,3 \\
swift rlhf \\
    --rlhf_type dpo \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type full \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 4 \\
    --gradient_accumulation_steps 1 \\
    --max_length 8192 \\
    --deepspeed zero3_offload \\
    --attn_impl flash_attn
`;

describe('shell analyzer: ms-swift command lines', () => {
  it('is a launch script by its swift sft / pt / rlhf line', () => {
    assert.equal(detectFormat('train.sh', QLORA), 'shell');
    assert.equal(detectFormat('run.sh', 'swift rlhf --rlhf_type kto --model Qwen/Qwen2.5-0.5B\n'), 'shell');
    assert.equal(
      analyzeShell('swift infer --model Qwen/Qwen2.5-7B-Instruct\n').facts.length,
      0,
      'swift infer is not training',
    );
  });

  it('reads the QLoRA example: bnb 4-bit nf4 with double quantization, LoRA as QLoRA, bf16 weights and autocast', () => {
    const r = checkFacts(QLORA, [
      ['model', 'Qwen/Qwen2.5-7B-Instruct', '--model', 'Qwen/Qwen2.5-7B-Instruct'],
      ['method', 'qlora', '--train_type', 'lora'],
      ['quantBits', 4, '--quant_bits', '4'],
      ['quantType', 'nf4', '--bnb_4bit_quant_type', 'nf4'],
      ['doubleQuant', true, '--bnb_4bit_use_double_quant', 'true'],
      ['weightsDtype', 'bf16', '--torch_dtype', 'bfloat16'],
      ['mixedPrecision', 'bf16', '--torch_dtype', 'bfloat16'],
      ['microBatchSize', 1, '--per_device_train_batch_size', '1'],
      ['evalBatchSize', 1, '--per_device_eval_batch_size', '1'],
      ['loraR', 8, '--lora_rank', '8'],
      ['loraAlpha', 32, '--lora_alpha', '32'],
      ['loraTargets', 'all-linear', '--target_modules', 'all-linear'],
      ['gradientAccumulationSteps', 16, '--gradient_accumulation_steps', '16'],
      ['seqLen', 2048, '--max_length', '2048'],
      ['gpusPerNode', 1, 'swift', 'swift'],
    ]);
    assert.deepEqual(r.tools, ['ms-swift']);
    assert.ok(r.facts.every((f) => f.tool === 'ms-swift'));
    assert.equal(
      fact(r, 'model')?.value,
      'Qwen/Qwen2.5-7B-Instruct',
      '--model_name is the self-cognition name, not the model',
    );
    assert.deepEqual(
      r.problems.filter((p) => p.severity !== 'info'),
      [],
    );
  });

  it('NPROC_PER_NODE and NNODES are the torchrun swift starts; a preset DeepSpeed config is its stage and offload', () => {
    const r = checkFacts(ZERO3, [
      ['gpusPerNode', 2, 'NPROC_PER_NODE', '$nproc_per_node'],
      ['gradientAccumulationSteps', 8, '--gradient_accumulation_steps', '$(expr 16 / $nproc_per_node)'],
      ['deepspeedConfig', 'zero3', '--deepspeed', 'zero3'],
      ['zeroStage', 3, '--deepspeed', 'zero3'],
      ['offloadOptimizer', 'none', '--deepspeed', 'zero3'],
      ['offloadParams', 'none', '--deepspeed', 'zero3'],
    ]);
    assert.deepEqual(r.references, [], 'a preset is not a file');
    const d = checkFacts(DPO_FULL, [
      ['method', 'full', '--train_type', 'full'],
      ['preference', 'dpo', '--rlhf_type', 'dpo'],
      ['gpusPerNode', 4, 'NPROC_PER_NODE', '4'],
      ['zeroStage', 3, '--deepspeed', 'zero3_offload'],
      ['offloadOptimizer', 'cpu', '--deepspeed', 'zero3_offload'],
      ['offloadParams', 'cpu', '--deepspeed', 'zero3_offload'],
      ['attention', 'flash', '--attn_impl', 'flash_attn'],
      ['seqLen', 8192, '--max_length', '8192'],
    ]);
    assert.deepEqual(
      d.problems.filter((p) => p.severity !== 'info'),
      [],
    );
    checkFacts('NNODES=2 NPROC_PER_NODE=8 swift pt --model Qwen/Qwen2.5-7B --train_type full\n', [
      ['nodes', 2, 'NNODES', '2'],
      ['gpusPerNode', 8, 'NPROC_PER_NODE', '8'],
    ]);
  });

  it("a preset's buckets are its file's: ZeRO-3's \"auto\" ones filled from the hidden size, ZeRO-2's 2e8", () => {
    // modelscope/ms-swift@8773ecd swift/llm/ds_config/zero3.json: reduce_bucket_size, stage3_prefetch_bucket_size and
    // stage3_param_persistence_threshold "auto", 1e9 live parameters, reuse distance and sub-group, overlap_comm false
    // (true before ms-swift@ea8d56e); zero2.json: 2e8 reduce and all-gather buckets.
    const z3 = resolveText('train.sh', ZERO3);
    assert.deepEqual(z3.setup?.zero_buckets, {
      reduce_bucket_size: 'auto',
      stage3_prefetch_bucket_size: 'auto',
      stage3_max_live_parameters: 1e9,
      stage3_max_reuse_distance: 1e9,
      stage3_param_persistence_threshold: 'auto',
      sub_group_size: 1e9,
      overlap_comm: false,
      contiguous_gradients: true,
    });
    const z2 = resolveText('train.sh', ZERO3.replace('--deepspeed zero3', '--deepspeed zero2'));
    assert.deepEqual(z2.setup?.zero_buckets, {
      reduce_bucket_size: 2e8,
      allgather_bucket_size: 2e8,
      overlap_comm: false,
      contiguous_gradients: true,
    });
    // swift 2.x's files overlapped communication.
    const old = resolveText('train.sh', ZERO3.replace('--deepspeed zero3', '--deepspeed default-zero3'));
    assert.equal(old.setup?.zero_buckets?.overlap_comm, true);
  });

  it('a DeepSpeed path is a reference, as --deepspeed elsewhere', () => {
    const r = checkFacts('NPROC_PER_NODE=2 swift sft --model Qwen/Qwen2.5-7B --deepspeed ./ds_z2.json\n', [
      ['deepspeedConfig', './ds_z2.json', '--deepspeed', './ds_z2.json'],
    ]);
    assert.deepEqual(
      r.references.map((x) => [x.kind, x.path]),
      [['deepspeed', './ds_z2.json']],
    );
    assert.equal(fact(r, 'zeroStage'), undefined);
  });

  it("swift 2.x's preset names are presets too: default-zero2, zero3-offload (AlexJJJChen/Climate-Zoo)", () => {
    // ms-swift v2.6.1 swift/llm/utils/argument.py deepspeed_mapping; its zero3_offload.json offloads the parameters
    // and keeps the optimizer on the GPU (offload_optimizer "none").
    const two = checkFacts('swift sft --model_type qwen-7b-chat --deepspeed default-zero2\n', [
      ['zeroStage', 2, '--deepspeed', 'default-zero2'],
      ['offloadOptimizer', 'none', '--deepspeed', 'default-zero2'],
    ]);
    assert.deepEqual(two.references, [], 'a preset is not a file');
    checkFacts('swift sft --model_type qwen-7b-chat --deepspeed zero3-offload\n', [
      ['zeroStage', 3, '--deepspeed', 'zero3-offload'],
      ['offloadOptimizer', 'none', '--deepspeed', 'zero3-offload'],
      ['offloadParams', 'cpu', '--deepspeed', 'zero3-offload'],
    ]);
  });

  it("swift's defaults made explicit at the subcommand: LoRA, the accumulation from the world size, the model's length", () => {
    const text = 'NPROC_PER_NODE=4 swift sft --model Qwen/Qwen2.5-7B-Instruct --per_device_train_batch_size 2\n';
    const r = analyzeShell(text);
    const at = (key: CanonicalKey) => {
      const f = fact(r, key)!;
      return [f.value, text.slice(f.keySpan.start, f.keySpan.end), f.origin];
    };
    assert.deepEqual(at('method'), ['lora', 'sft', 'call-default']);
    // max(1, ceil(16 / 2 / 4)) = 2 (swift/trainers/arguments.py)
    assert.deepEqual(at('gradientAccumulationSteps'), [2, 'sft', 'call-default']);
    assert.ok(
      isUnknown(fact(r, 'seqLen')!.value) &&
        /max_model_len/.test((fact(r, 'seqLen')!.value as { unknown: string }).unknown),
    );
    assert.equal(
      analyzeShell('swift sft --model m/x --per_device_train_batch_size 32\n').facts.find(
        (f) => f.key === 'gradientAccumulationSteps',
      )?.value,
      1,
    );
    assert.ok(
      isUnknown(
        analyzeShell('NPROC_PER_NODE=$N swift sft --model m/x\n').facts.find(
          (f) => f.key === 'gradientAccumulationSteps',
        )!.value,
      ),
      'an unknown world size leaves the accumulation unknown',
    );
    // 4.x spelling, and the quantized LoRA default.
    assert.equal(fact(analyzeShell('swift sft --model m/x --tuner_type full\n'), 'method')?.value, 'full');
    assert.equal(fact(analyzeShell('swift sft --model m/x --quant_bits 4\n'), 'method')?.value, 'qlora');
  });

  it('swift rlhf: dpo by default, the preference and rollout objectives, ppo not modeled', () => {
    assert.equal(fact(analyzeShell('swift rlhf --model m/x\n'), 'preference')?.value, 'dpo');
    assert.equal(fact(analyzeShell('swift rlhf --rlhf_type kto --model m/x\n'), 'preference')?.value, 'kto');
    assert.equal(
      fact(analyzeShell('swift rlhf --rlhf_type simpo --model m/x\n'), 'preference')?.value,
      'reference-free',
    );
    assert.equal(fact(analyzeShell('swift rlhf --rlhf_type rm --model m/x\n'), 'preference')?.value, 'reward');
    const g = checkFacts(
      'swift rlhf --rlhf_type grpo --model Qwen/Qwen2.5-7B --use_vllm true --vllm_mode colocate --num_generations 8 --max_completion_length 1024\n',
      [
        ['rollout', 'grpo', '--rlhf_type', 'grpo'],
        ['useVllm', true, '--use_vllm', 'true'],
        ['vllmMode', 'colocate', '--vllm_mode', 'colocate'],
        ['numGenerations', 8, '--num_generations', '8'],
        ['completionLen', 1024, '--max_completion_length', '1024'],
      ],
    );
    assert.equal(fact(g, 'preference'), undefined);
    const ppo = analyzeShell('swift rlhf --rlhf_type ppo --model m/x\n');
    assert.ok(ppo.problems.some((p) => p.code === 'not-modeled' && p.rawKey === '--rlhf_type'));
  });

  it("GRPO with ms-swift's own defaults: a colocated engine, beta 0.04, the prompt cut to max_length", () => {
    // CharmCheen/PRL-addENV scripts/mr/mr_qwen_qwen_4gpu.sh (ms-swift 3.x): --use_vllm true with no vllm_mode. ms-swift
    // 3.5-3.11 default vllm_mode colocate, vllm_gpu_memory_utilization 0.9 (swift/trainers/arguments.py
    // GRPOArgumentsMixin), beta 0.04 (rlhf_args.py) and cut each prompt to max_length from the left. It was read with
    // TRL's defaults: a vLLM server on other GPUs, no reference, a 512-token prompt.
    const line =
      'NPROC_PER_NODE=4 swift rlhf --rlhf_type grpo --model Qwen/Qwen2.5-7B-Instruct --train_type lora --use_vllm true ' +
      '--max_length 2048 --max_completion_length 768\n';
    const r = resolveText('grpo.sh', line);
    const g = r.setup!.rollout!;
    assert.deepEqual(
      [g.engine, g.vllm_memory_fraction, g.reference, r.setup!.seq_len],
      ['vllm-colocate', 0.9, 'adapters-off', 2048 + 768],
    );
    const owner = (k: string): string | undefined => {
      const p = r.provenance[k as keyof typeof r.provenance];
      return p?.kind === 'default' ? p.owner : undefined;
    };
    assert.deepEqual([owner('rollout.engine'), owner('rollout.reference')], ['ms-swift', 'ms-swift']);
    // A share the line gives stands.
    const given = resolveText(
      'grpo.sh',
      line.replace('--use_vllm true', '--use_vllm true --vllm_gpu_memory_utilization 0.4'),
    );
    assert.equal(given.setup!.rollout!.vllm_memory_fraction, 0.4);
    // Without max_length a prompt is cut only at the model's longest context (hzhang57/Option-R1's grpo_train.sh):
    // 512 stands in, said as this tool's assumption, not as TRL's default.
    const open = resolveText('grpo.sh', line.replace('--max_length 2048 ', ''));
    assert.equal(open.setup!.seq_len, 512 + 768);
    const p = open.provenance.seq_len;
    assert.ok(p?.kind === 'default' && p.owner === 'VRAM Lens', JSON.stringify(p));
    assert.match(
      p.note ?? '',
      /ms-swift cuts a prompt only at max_length, which defaults to the model's longest context/,
    );
  });

  it("an SFT line without --max_length: VRAM Lens's 2048 stands in, said with swift's open default", () => {
    // ms-swift 3 leaves max_length None: the model's max_model_len, so the records' own lengths bound a batch
    // (whitnaiss/emotion_transition's run_qwen_sft_emotion_lora.sh, whose args.json says max_length None).
    const text = 'swift sft --model Qwen/Qwen2.5-1.5B-Instruct --train_type lora --per_device_train_batch_size 2\n';
    const r = resolveText('train.sh', text);
    assert.equal(r.setup!.seq_len, 2048);
    const p = r.provenance.seq_len;
    assert.ok(p?.kind === 'default' && p.owner === 'VRAM Lens', JSON.stringify(p));
    assert.match(
      p.note ?? '',
      /2048 tokens; ms-swift's default max_length: None is not known statically \(max_length defaults to the model's longest context/,
    );
  });

  it('swift 2.x --max_length -1 truncates nothing: not an invalid value, the length unknown and said so', () => {
    // ms-swift 2.x llm/utils/argument.py: `max_length: int = 2048  # -1: no limit`.
    const text = 'swift sft --sft_type lora --model_type qwen2-7b-instruct --dataset alpaca-en --max_length -1\n';
    const r = resolveText('train.sh', text);
    assert.ok(!r.problems.some((p) => p.code === 'invalid-value'), JSON.stringify(r.problems));
    assert.equal(r.setup!.seq_len, 2048);
    const p = r.provenance.seq_len;
    assert.match(p?.kind === 'default' ? (p.note ?? '') : '', /--max_length -1 truncates nothing/);
  });

  it('one process over several GPUs splits the model over them (device_map): the layers in stages, one at a time', () => {
    // swift/utils/env.py is_mp: a process that sees more GPUs than the node's processes loads with device_map over them.
    const text = 'CUDA_VISIBLE_DEVICES=0,1 swift sft --model Qwen/Qwen2.5-72B-Instruct --train_type lora\n';
    const r = analyzeShell(text);
    assert.ok(!r.problems.some((x) => x.code === 'not-modeled'));
    for (const [key, value] of [
      ['gpusPerNode', 2],
      ['pipelineParallel', 2],
      ['pipelineSchedule', 'device_map'],
    ] as const) {
      const f = fact(r, key);
      assert.equal(f?.value, value, key);
      assert.equal(text.slice(f!.valueSpan.start, f!.valueSpan.end), '0,1');
    }
    const s = resolveText('/w/train.sh', text).setup!;
    assert.deepEqual([s.gpus_per_node, s.pipeline_parallel, s.pipeline_schedule], [2, 2, 'device_map']);
    // Two processes over four GPUs: two GPUs each; three GPUs do not split over two processes, said as not modeled.
    const four = analyzeShell('NPROC_PER_NODE=2 CUDA_VISIBLE_DEVICES=0,1,2,3 swift sft --model m/x\n');
    assert.equal(fact(four, 'pipelineParallel')?.value, 2);
    const three = analyzeShell('NPROC_PER_NODE=2 CUDA_VISIBLE_DEVICES=0,1,2 swift sft --model m/x\n');
    assert.ok(three.problems.some((x) => x.code === 'not-modeled' && /do not divide evenly/.test(x.message)));
  });

  it('says what it does not model: other tuners, other quantizers', () => {
    const t = analyzeShell('swift sft --model m/x --train_type adalora\n');
    assert.ok(t.problems.some((x) => x.code === 'not-modeled' && /adalora/.test(x.message)));
    assert.equal(fact(t, 'method'), undefined);
    const h = analyzeShell('swift sft --model m/x --quant_method hqq --quant_bits 4\n');
    assert.ok(h.problems.some((x) => x.code === 'not-modeled' && /hqq/.test(x.message)));
    assert.equal(fact(h, 'quantBits')?.value, 4);
  });

  it('--torch_dtype float16 turns on fp16 autocast unless --bf16 / --fp16 say otherwise; --model_type alone is no model', () => {
    checkFacts('swift sft --model m/x --torch_dtype float16\n', [
      ['weightsDtype', 'fp16', '--torch_dtype', 'float16'],
      ['mixedPrecision', 'fp16', '--torch_dtype', 'float16'],
    ]);
    assert.equal(
      fact(analyzeShell('swift sft --model m/x --torch_dtype float16 --bf16 true\n'), 'mixedPrecision'),
      undefined,
    );
    assert.equal(fact(analyzeShell('swift sft --model_type qwen2_5 --dataset d\n'), 'model'), undefined);
  });

  // ms-swift 2.x (modelscope/ms-swift@v2.6.1): the README's `swift sft --model_type qwen1half-7b-chat ...`, and the flags
  // of examples/pytorch/llm/scripts/baichuan2_7b/qlora/sft.sh as `swift sft` takes them.
  it('swift 2.x: the model type names the model; LoRA on its LoRATM, max_length 2048 and dtype AUTO by default', () => {
    const r = checkFacts('swift sft --model_type qwen1half-7b-chat --dataset blossom-math-zh --output_dir output\n', [
      ['model', 'Qwen/Qwen1.5-7B-Chat', '--model_type', 'qwen1half-7b-chat'],
      ['method', 'lora', 'sft', 'sft'],
      ['loraTargets', ['q_proj', 'k_proj', 'v_proj'], 'sft', 'sft'],
      ['seqLen', 2048, 'sft', 'sft'],
      ['weightsDtype', 'bf16', 'sft', 'sft'],
      ['mixedPrecision', 'bf16', 'sft', 'sft'],
      ['gradientAccumulationSteps', 16, 'sft', 'sft'],
    ]);
    assert.equal(fact(r, 'loraTargets')?.origin, 'call-default');
    const res = resolveText('sft.sh', 'swift sft --model_type qwen1half-7b-chat --dataset blossom-math-zh\n');
    assert.deepEqual(res.setup?.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj']);
    assert.equal(res.setup?.seq_len, 2048);
  });

  it('swift 2.x: --model_id_or_path, --sft_type, --quantization_bit, --lora_target_modules ALL, --batch_size, --lora_dropout_p', () => {
    const text =
      'CUDA_VISIBLE_DEVICES=0 \\\nswift sft \\\n    --model_id_or_path baichuan-inc/Baichuan2-7B-Base \\\n' +
      '    --sft_type lora \\\n    --dtype AUTO \\\n    --max_length 2048 \\\n    --quantization_bit 4 \\\n' +
      '    --lora_rank 8 \\\n    --lora_dropout_p 0.05 \\\n    --lora_target_modules ALL \\\n' +
      '    --gradient_checkpointing true \\\n    --batch_size 1 \\\n    --gradient_accumulation_steps 16\n';
    checkFacts(text, [
      ['model', 'baichuan-inc/Baichuan2-7B-Base', '--model_id_or_path', 'baichuan-inc/Baichuan2-7B-Base'],
      ['method', 'qlora', '--sft_type', 'lora'],
      ['quantBits', 4, '--quantization_bit', '4'],
      ['loraTargets', 'all-linear', '--lora_target_modules', 'ALL'],
      ['loraDropout', 0.05, '--lora_dropout_p', '0.05'],
      ['microBatchSize', 1, '--batch_size', '1'],
      ['seqLen', 2048, '--max_length', '2048'],
    ]);
    const unknown = analyzeShell('swift sft --model_type my-own-7b --sft_type full\n');
    assert.ok(isUnknown(fact(unknown, 'model')!.value));
    const both = analyzeShell('swift sft --model_type qwen1half-7b-chat --lora_target_modules DEFAULT o_proj\n');
    assert.deepEqual(fact(both, 'loraTargets')?.value, ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
  });

  // modelscope/ms-swift@v2.6.1 examples/pytorch/llm/scripts/qwen1half_7b_chat/lora/sft.sh (abridged): swift 2.x's own
  // entry script, `python llm_sft.py` (`from swift.llm import sft_main; sft_main()`), with 2.x's flags.
  it('swift 2.x example scripts: `python llm_sft.py` with 2.x flags is swift sft; without them, a plain script', () => {
    const text =
      'PYTHONPATH=../../.. \\\nCUDA_VISIBLE_DEVICES=0 \\\npython llm_sft.py \\\n    --model_type qwen1half-7b-chat \\\n' +
      '    --sft_type lora \\\n    --dtype AUTO \\\n    --max_length 1024 \\\n    --lora_target_modules ALL \\\n' +
      '    --use_flash_attn false \\\n    --batch_size 1 \\\n    --gradient_accumulation_steps 16\n';
    const r = checkFacts(text, [
      ['model', 'Qwen/Qwen1.5-7B-Chat', '--model_type', 'qwen1half-7b-chat'],
      ['method', 'lora', '--sft_type', 'lora'],
      ['loraTargets', 'all-linear', '--lora_target_modules', 'ALL'],
      ['seqLen', 1024, '--max_length', '1024'],
      ['microBatchSize', 1, '--batch_size', '1'],
    ]);
    assert.ok(r.tools.includes('ms-swift'));
    assert.equal(fact(r, 'attention'), undefined);
    assert.deepEqual(r.problems, []);
    // ms-swift 2.x runs a transformers 4 release (transformers>=4.33,<4.40 in modelscope/ms-swift@003ee51
    // requirements/framework.txt): 4.45 stands in, an assumption, so a MoE model's experts stay linears LoRA reaches.
    const release = fact(r, 'transformersVersion');
    assert.deepEqual([release?.value, release?.origin], ['4.45', 'call-default']);
    const moe = resolveText('/w/sft.sh', text.replace('qwen1half-7b-chat', 'qwen1half-moe-a2_7b-chat'));
    assert.equal(moe.setup?.transformers_version, '4.45');
    // 2.x's DPO with a reference of its own (`--ref_model_type`, modelscope/ms-swift@v2.6.1 DPOArguments): loaded
    // beside the policy, not the policy with its adapters off.
    const dpo = analyzeShell(
      'python llm_dpo.py --model_type yi-6b-chat --ref_model_type yi-6b-chat --sft_type lora --batch_size 1\n',
    );
    assert.equal(fact(dpo, 'referenceModel')?.value, 'given');
    // `--lora_modules_to_save EMBEDDING LN` (ms-swift 2.x examples/pytorch/llm/scripts/yi_9b/lora_zero3): the input
    // embedding trained beside the adapters; the norms' copies are hidden-size vectors.
    const saved = analyzeShell('swift sft --model_type yi-9b --sft_type lora --lora_modules_to_save EMBEDDING LN\n');
    assert.deepEqual(fact(saved, 'loraModulesToSave')?.value, ['embed_tokens']);
    const plain = analyzeShell('python llm_sft.py --model_name_or_path Qwen/Qwen1.5-7B-Chat\n');
    assert.ok(!plain.tools.includes('ms-swift'));
    // One process over two visible GPUs splits the model over them, as `swift sft` does (ms-swift 2.x
    // examples/pytorch/llm/scripts/mixtral_moe_7b_chat/lora_mp/sft.sh: "2 * A100", device_map).
    const split = analyzeShell(text.replace('CUDA_VISIBLE_DEVICES=0', 'CUDA_VISIBLE_DEVICES=0,1'));
    assert.deepEqual(
      [
        fact(split, 'gpusPerNode')?.value,
        fact(split, 'pipelineParallel')?.value,
        fact(split, 'pipelineSchedule')?.value,
      ],
      [2, 2, 'device_map'],
    );
  });

  it('an argument file (`swift sft args.yaml`, 3.x `--config`) is referenced, and no default is made explicit where it may set one', () => {
    const text = 'NPROC_PER_NODE=2 \\\nCUDA_VISIBLE_DEVICES=0,1 \\\nswift sft examples/yaml/deepspeed/sft.yaml\n';
    const r = checkFacts(text, [['gpusPerNode', 2, 'NPROC_PER_NODE', '2']]);
    assert.deepEqual(
      r.facts.map((f) => f.key),
      ['gpusPerNode'],
    );
    const ref = r.references.find((x) => x.kind === 'config')!;
    assert.equal(text.slice(ref.span.start, ref.span.end), 'examples/yaml/deepspeed/sft.yaml');
    const c = analyzeShell('swift rlhf --config dpo.yaml --model m/x\n');
    assert.deepEqual(c.facts.map((f) => f.key).sort(), ['gpusPerNode', 'model']);
  });

  it("swift's entry script under a launcher (swift/cli/sft.py, -m swift.cli.rlhf): the launcher's processes, swift's flags", () => {
    const text =
      'nnodes=2\n' +
      'nproc_per_node=4\n' +
      'torchrun --nproc_per_node=$nproc_per_node --nnodes=$nnodes swift/cli/sft.py \\\n' +
      '    --model Qwen/Qwen2.5-7B-Instruct --tuner_type full --torch_dtype bfloat16 ' +
      '--per_device_train_batch_size 1\n';
    const r = checkFacts(text, [
      ['gpusPerNode', 4, '--nproc_per_node', '$nproc_per_node'],
      ['nodes', 2, '--nnodes', '$nnodes'],
      ['model', 'Qwen/Qwen2.5-7B-Instruct', '--model', 'Qwen/Qwen2.5-7B-Instruct'],
      ['method', 'full', '--tuner_type', 'full'],
      ['weightsDtype', 'bf16', '--torch_dtype', 'bfloat16'],
      // max(1, ceil(16 / 1 / (4 x 2))) over the launcher's 8 processes
      ['gradientAccumulationSteps', 2, 'swift/cli/sft.py', 'swift/cli/sft.py'],
    ]);
    assert.deepEqual(r.tools, ['torchrun', 'ms-swift']);
    const m = analyzeShell('python -m swift.cli.rlhf --rlhf_type kto --model m/x\n');
    assert.equal(fact(m, 'preference')?.value, 'kto');
    assert.deepEqual(m.tools, ['ms-swift']);
  });

  it('resolve applies the ms-swift defaults with their sources', () => {
    const r = resolveText('train.sh', 'swift sft --model Qwen/Qwen2.5-7B-Instruct --max_length 1024\n');
    const s = r.setup!;
    assert.equal(s.method, 'lora');
    assert.equal(s.micro_batch_size, 1);
    assert.equal(s.gradient_accumulation_steps, 16);
    assert.equal(s.gradient_checkpointing, 'full');
    assert.deepEqual([s.lora?.r, s.lora?.alpha, s.lora?.dropout, s.lora?.target_modules], [8, 32, 0.05, 'all-linear']);
    const prov = r.provenance as Record<string, { kind: string; owner?: string; note?: string }>;
    assert.equal(prov.micro_batch_size.owner, 'ms-swift');
    assert.match(prov.micro_batch_size.note!, /modelscope\/ms-swift@8773ecd:swift\/trainers\/arguments\.py/);
    assert.match(prov.gradient_checkpointing.note!, /ms-swift@/);
    const q = resolveText('train.sh', QLORA).setup!;
    assert.equal(q.method, 'qlora');
    assert.deepEqual([q.quantization?.bits, q.quantization?.type, q.quantization?.double_quant], [4, 'nf4', true]);
  });

  it('a node count from the environment is one node, said so at --nnodes; the group check is then a warning', () => {
    // modelscope/ms-swift examples/train/grpo/multi_node/train_dlc.sh (shortened): 8 processes per node, the node
    // count from the container's WORLD_SIZE, 4 completions per GPU and 48 per prompt. On one node 4 x 8 = 32 completions
    // hold no whole group of 48; on 3 nodes (96) they would: the count the file leaves open decides.
    const text =
      'NNODES=$WORLD_SIZE \\\ntorchrun --nproc_per_node=8 --nnodes=${WORLD_SIZE} --node_rank=${RANK} swift/cli/rlhf.py \\\n' +
      '  --rlhf_type grpo --model Qwen/Qwen2.5-7B --tuner_type full --per_device_train_batch_size 4 \\\n' +
      '  --num_generations 48 --deepspeed zero3_offload\n';
    const r = resolveText('train_dlc.sh', text);
    assert.equal(r.setup?.nodes, 1);
    assert.equal(r.setup?.gpus_per_node, 8);
    const prov = r.provenance as Record<string, { kind: string; note?: string }>;
    assert.equal(prov.nodes.kind, 'default');
    assert.match(prov.nodes.note!, /WORLD_SIZE.*--nnodes at line 2.*one node is estimated/);
    const p = r.problems.find((x) => x.code === 'invalid-value');
    assert.ok(p && p.severity === 'warning', JSON.stringify(r.problems));
    assert.match(p.message, /4 completions per GPU x 8 GPUs, a GPU count the files leave open/);
    assert.equal(text.slice(p.start, p.end), '48');
    // With the node count in the file, 32 completions cannot make whole groups of 48: the trainer stops.
    const fixed = resolveText('train_dlc.sh', text.replace('--nnodes=${WORLD_SIZE}', '--nnodes=1'));
    assert.ok(fixed.problems.some((x) => x.code === 'invalid-value' && x.severity === 'error'));
  });

  it('every prefix of its command lines is analyzed without an internal error', () => {
    const text = QLORA + DPO_FULL + ZERO3;
    for (let n = 0; n <= text.length; n++) {
      const r = analyzeShell(text.slice(0, n));
      assert.ok(
        !r.problems.some((p) => p.code === 'syntax-error' && /could not be analyzed/.test(p.message)),
        `prefix of ${n} characters`,
      );
    }
  });
});

describe('ms-swift argument files', () => {
  // modelscope/ms-swift@3602360 examples/yaml/deepspeed/sft.yaml (its memory-relevant keys), run by
  // `swift sft examples/yaml/deepspeed/sft.yaml`.
  const ARGS = `model: Qwen/Qwen2.5-7B-Instruct
torch_dtype: bfloat16
tuner_type: lora
lora_rank: 8
lora_alpha: 32
target_modules: all-linear
split_dataset_ratio: 0.0
max_length: 2048
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
deepspeed: zero2
`;

  it("are read as swift's options: the model, LoRA, the batch, the length, the dtype and a DeepSpeed preset", () => {
    assert.equal(detectFormat('sft.yaml', ARGS), 'swift-yaml');
    const r = analyzeSwiftArgsFile(ARGS);
    const of = (key: CanonicalKey) => fact(r, key)?.value;
    assert.deepEqual((['model', 'method', 'loraR', 'loraAlpha', 'loraTargets'] as CanonicalKey[]).map(of), [
      'Qwen/Qwen2.5-7B-Instruct',
      'lora',
      8,
      32,
      'all-linear',
    ]);
    assert.deepEqual(
      (['microBatchSize', 'gradientAccumulationSteps', 'seqLen', 'weightsDtype', 'zeroStage'] as CanonicalKey[]).map(
        of,
      ),
      [1, 8, 2048, 'bf16', 2],
    );
    const m = fact(r, 'model')!;
    assert.equal(ARGS.slice(m.valueSpan.start, m.valueSpan.end), 'Qwen/Qwen2.5-7B-Instruct');
    // The same keys as JSON (swift sft args.json).
    const json = JSON.stringify({ model: 'Qwen/Qwen2.5-7B-Instruct', tuner_type: 'lora', max_length: 1024 });
    assert.equal(detectFormat('sft.json', json), 'swift-yaml');
    assert.equal(fact(analyzeSwiftArgsFile(json), 'seqLen')?.value, 1024);
  });

  it('a launch line with an argument file references it and leaves the defaults to it', () => {
    const sh = analyzeShell('NPROC_PER_NODE=2 \\\nswift sft examples/yaml/deepspeed/sft.yaml\n');
    assert.deepEqual(
      sh.references.map((x) => [x.kind, x.path]),
      [['config', 'examples/yaml/deepspeed/sft.yaml']],
    );
    // No default made explicit at the subcommand (the file sets the accumulation and the length).
    assert.equal(fact(sh, 'gradientAccumulationSteps'), undefined);
    assert.equal(fact(sh, 'seqLen'), undefined);
    const three = analyzeShell('swift sft --config args.yaml --model Qwen/Qwen2.5-7B-Instruct\n');
    assert.deepEqual(
      three.references.map((x) => x.path),
      ['args.yaml'],
    );
  });

  it("in a section a project's wrapper passes on to `swift sft` (`args:`) are read as swift's, with swift's defaults", () => {
    // Rhinoogm/qwen_swift configs/sft.yaml (abridged), run by scripts/run_sft.py as
    // `build_swift_command("sft", config.get("args", {}))`: `swift sft --model ... --tuner_type lora ...`.
    const wrapped = [
      'env:',
      '  CUDA_VISIBLE_DEVICES: "0"',
      'args:',
      '  model: "Qwen/Qwen3.5-0.8B"',
      '  tuner_type: "lora"',
      '  target_modules: "all-linear"',
      '  lora_rank: 8',
      '  torch_dtype: "bfloat16"',
      '  per_device_train_batch_size: 4',
      '  gradient_accumulation_steps: 8',
      '  max_length: 1536',
      '  split_dataset_ratio: 0.01',
      '',
    ].join('\n');
    assert.equal(detectFormat('sft.yaml', wrapped), 'swift-yaml');
    const r = analyzeSwiftArgsFile(wrapped);
    const of = (key: CanonicalKey) => fact(r, key)?.value;
    assert.deepEqual(
      (['model', 'method', 'loraR', 'microBatchSize', 'seqLen', 'weightsDtype'] as CanonicalKey[]).map(of),
      ['Qwen/Qwen3.5-0.8B', 'lora', 8, 4, 1536, 'bf16'],
    );
    // ms-swift turns gradient checkpointing on by default (swift/trainers/arguments.py); read by the names of the keys
    // with the HF Trainer's defaults, this run was estimated without it.
    assert.equal(resolveText('sft.yaml', wrapped).setup?.gradient_checkpointing, 'full');
    const m = fact(r, 'model')!;
    assert.equal(wrapped.slice(m.valueSpan.start, m.valueSpan.end), '"Qwen/Qwen3.5-0.8B"');
    const note = r.problems.find((p) => p.code === 'read-by-name')!;
    assert.equal(wrapped.slice(note.span.start, note.span.end), 'args');
    // A section of another name needs two keys only ms-swift has; `model` with one of them under `training:` is not
    // enough (a project's own config may call its method train_type).
    const other = wrapped.replace('args:', 'training:').replace('  split_dataset_ratio: 0.01\n', '');
    assert.equal(detectFormat('sft.yaml', other) === 'swift-yaml', false);
    assert.equal(
      detectFormat('sft.yaml', other.replace('  lora_rank: 8', '  lora_rank: 8\n  attn_impl: sdpa')),
      'swift-yaml',
    );
  });
});

describe("shell analyzer: ms-swift GRPO's vLLM engine flags", () => {
  it("--tensor_parallel_size is the engine's, --sleep_level and the offload switches free the GPU while it runs", () => {
    // puzhiyuan/AiO train/ms-swift/rlhf/grpo/internal_rollout/grpo_train.sh, shortened (swift 3.x GRPOArguments).
    const text = [
      'NPROC_PER_NODE=8 swift rlhf --rlhf_type grpo --model Qwen/Qwen2.5-7B-Instruct --train_type lora \\',
      '  --use_vllm true --vllm_gpu_memory_utilization 0.5 --tensor_parallel_size 4 --sleep_level 1 \\',
      '  --offload_model true --offload_optimizer true --deepspeed zero2',
      '',
    ].join('\n');
    const r = analyzeShell(text);
    assert.equal(fact(r, 'vllmTensorParallel')?.value, 4);
    assert.equal(fact(r, 'tensorParallel'), undefined, 'training runs data parallel');
    assert.equal(fact(r, 'vllmSleep')?.value, true);
    assert.equal(fact(r, 'weightsGpu')?.value, 'training');
    assert.equal(fact(r, 'optimizerStatesGpu')?.value, 'training');
  });
});
