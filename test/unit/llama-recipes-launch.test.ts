// llama-recipes' fine-tuning entry on a launch line (src/analyzers/shell/llama-recipes.ts): fire hands every option to
// main(), which loads the model in bf16, wraps FSDP1 with every layer checkpointed under --enable_fsdp, and builds
// PEFT LoRA from lora_config. The commands are llama-recipes' own (recipes/quickstart/finetuning/README.md and
// docs/multi_gpu.md at meta-llama/llama-recipes@f7bfd8d) and PanagiotisFytas/llama-recipes's run_finetune_large.sh.
import * as assert from 'node:assert/strict';
import { runFiles } from './helpers';
import { estimate } from '../../src/core/estimate';

const run = (line: string) => runFiles({ '/w/run.sh': `${line}\n` }, '/w/run.sh');

describe("llama-recipes' fine-tuning launch", () => {
  it('reads the multi-GPU LoRA command: FSDP1 over 4 GPUs, bf16 weights, every layer checkpointed, LoRA r 8 on q and v', () => {
    const r = run(
      'torchrun --nnodes 1 --nproc_per_node 4 recipes/quickstart/finetuning/finetuning.py --enable_fsdp ' +
        '--model_name meta-llama/Meta-Llama-3.1-8B --use_peft --peft_method lora --output_dir out',
    );
    const s = r.setup!;
    assert.equal(s.gpus_per_node, 4);
    assert.equal(s.fsdp, 'full_shard');
    assert.equal(s.fsdp_version, 1);
    assert.equal(s.weights_dtype, 'bf16');
    assert.equal(s.mixed_precision, 'none');
    assert.equal(s.gradient_checkpointing, 'full');
    assert.equal(s.method, 'lora');
    assert.equal(s.lora?.r, 8);
    assert.equal(s.lora?.alpha, 32);
    assert.deepEqual(s.lora?.target_modules, ['q_proj', 'v_proj']);
    // train_config: batch_size_training 4 rows of context_length 4096 tokens, packed.
    assert.equal(s.micro_batch_size, 4);
    assert.equal(s.seq_len, 4096);
    assert.equal(s.batch_lengths, 'fixed');
    // The sharded bf16 weights: Llama-3.1-8B's 8,030,261,248 parameters x 2 B / 4 GPUs (the LoRA weights apart).
    const e = estimate(s, {});
    assert.ok(e.ok);
    const weights = e.estimate.perGpu.components.find((c) => c.id === 'weights' && /sharded/.test(c.formula));
    assert.equal(weights?.bytes, (8_030_261_248 * 2) / 4);
  });

  it("a project's own finetuning.py run with llama-recipes' flags is read as its entry, with a note", () => {
    // A wrapper of `from llama_cookbook.finetuning import main; fire.Fire(main)` at src/train/finetuning.py.
    const r = run(
      'torchrun --nnodes 1 --nproc_per_node 4 ./src/train/finetuning.py --use_peft --peft_method lora ' +
        '--quantization 4bit --model_name meta-llama/Llama-3.1-8B-Instruct --batch_size_training 2 ' +
        '--context_length 4096 --enable_fsdp True',
    );
    assert.deepEqual(
      [r.setup?.fsdp, r.setup?.micro_batch_size, r.setup?.seq_len, r.setup?.method],
      ['full_shard', 2, 4096, 'qlora'],
    );
    assert.ok(r.problems.some((p) => p.code === 'read-by-name' && /read as llama-recipes' finetuning/.test(p.message)));
    // A finetuning.py run with no flag of train_config's is not taken for it.
    assert.ok(!run('python finetuning.py --model_name_or_path gpt2').problems.some((p) => p.code === 'read-by-name'));
  });

  it('reads the one-GPU 8-bit PEFT command: QLoRA, no checkpointing, no DDP', () => {
    const r = run(
      'python -m llama_recipes.finetuning --use_peft --peft_method lora --quantization 8bit ' +
        '--model_name meta-llama/Meta-Llama-3.1-8B --output_dir out',
    );
    const s = r.setup!;
    assert.equal(s.method, 'qlora');
    assert.equal(s.quantization?.bits, 8);
    assert.equal(s.fsdp, 'none');
    assert.equal(s.gradient_checkpointing, 'none');
    assert.equal(s.ddp_wrap, false);
  });

  it("takes the fork's options as fire reads them: a 4-bit fp4 model, padded batches, config classes by name", () => {
    const r = run(
      'python -m torch.distributed.launch recipes/quickstart/finetuning/finetuning.py --use_peft --peft_method lora ' +
        '--model_name \'meta-llama/Llama-3.1-8B-Instruct\' --batch_size_training 1 --batching_strategy "padding" ' +
        "--context_length 21000 --quantization '4bit' --enable_fsdp --fsdp_config.fsdp_cpu_offload " +
        "--lora_config.r 16 --target_modules \"['q_proj','k_proj','v_proj']\"",
    );
    const s = r.setup!;
    assert.equal(s.model, 'meta-llama/Llama-3.1-8B-Instruct');
    assert.equal(s.method, 'qlora');
    assert.equal(s.quantization?.bits, 4);
    assert.equal(s.quantization?.type, 'fp4');
    assert.equal(s.quantization?.double_quant, false);
    assert.equal(s.micro_batch_size, 1);
    assert.equal(s.seq_len, 21000);
    assert.equal(s.batch_lengths, 'variable');
    assert.equal(s.offload_params, 'cpu');
    assert.equal(s.lora?.r, 16);
    assert.deepEqual(s.lora?.target_modules, ['q_proj', 'k_proj', 'v_proj']);
  });

  it('reads `--enable_fsdp False` as off and `--enable_fsdp false` as on, as fire does (a word that is no literal)', () => {
    const line =
      'torchrun --nproc_per_node 2 -m llama_recipes.finetuning --model_name meta-llama/Llama-2-7b-hf --enable_fsdp';
    assert.equal(run(`${line} False`).setup?.fsdp, 'none');
    assert.equal(run(`${line} false`).setup?.fsdp, 'full_shard');
  });

  it('reads the 2023 entry, llama_finetuning.py, with its own defaults: float32 weights, FSDP computing in bf16', () => {
    // meta-llama/llama-recipes@b79f7ec5 README "Fine-tuning using FSDP Only" (August 2023), on 4 GPUs.
    const line =
      'torchrun --nnodes 1 --nproc_per_node 4 llama_finetuning.py --enable_fsdp --model_name meta-llama/Llama-2-7b-hf';
    const s = run(line).setup!;
    assert.deepEqual(
      [s.fsdp, s.fsdp_version, s.fsdp_use_orig_params, s.weights_dtype, s.mixed_precision],
      ['full_shard', 1, false, 'fp32', 'bf16'],
    );
    // batch_size_training 4 // micro_batch_size 4 = 1 accumulation step; samsum packed into 2,048-token rows.
    assert.deepEqual(
      [s.micro_batch_size, s.gradient_accumulation_steps, s.seq_len, s.batch_lengths],
      [4, 1, 2048, 'fixed'],
    );
    // apply_fsdp_checkpointing's checkpoint_wrapper; the config's use_cache stays on (llama-cookbook#165 turned it off).
    assert.deepEqual([s.gradient_checkpointing, s.checkpoint_wrapper, s.use_cache], ['full', true, true]);
    assert.equal(s.transformers_version, '4.31');
    // pure_bf16 casts the model and drops the policy; without FSDP nothing autocasts, whatever use_fp16 says.
    const pure = run(`${line} --pure_bf16`).setup!;
    assert.deepEqual([pure.weights_dtype, pure.mixed_precision], ['bf16', 'none']);
    const single = run('python llama_finetuning.py --use_fp16 --model_name meta-llama/Llama-2-7b-hf').setup!;
    assert.deepEqual([single.fsdp, single.weights_dtype, single.mixed_precision], ['none', 'fp32', 'none']);
    // Another dataset's lengths are not read: the length is VRAM Lens's assumption, which says so.
    const alpaca = run(`${line} --dataset alpaca_dataset`).provenance?.seq_len;
    assert.match(alpaca?.kind === 'default' ? (alpaca.note ?? '') : '', /"alpaca_dataset": its lengths are not read/);
  });
});
