// Answer.AI's fsdp_qlora train.py (src/analyzers/hf-python/fsdp-qlora.ts): its `@call_parse` main()'s defaults, and the
// launch line's flags over them, read by fsdp_qlora()'s rules. The script below is cut from
// AnswerDotAI/fsdp_qlora@05ed9f2 train.py to the signatures and calls that decide the run; the whole file is in
// test/real-files.
import * as assert from 'node:assert/strict';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { isUnknown } from '../../../src/analyzers/facts';
import { runFact, runFiles } from '../helpers';

const TRAIN = `from fastcore.script import Param, bool_arg, call_parse
from transformers import AutoModelForCausalLM
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

def fsdp_main(local_rank, world_size, args):
    model = AutoModelForCausalLM.from_pretrained(args["model_name"], use_cache=False, torch_dtype=torch_dtype)
    model = FSDP(model, use_orig_params=False, limit_all_gathers=True)

def fsdp_qlora(world_size: int = -1, train_type: str = "qlora", model_name: str = "meta-llama/Llama-2-7b-hf"):
    args = dict(locals())
    mp.spawn(fsdp_main, args=(world_size, args), nprocs=torch.cuda.device_count(), join=True)

@call_parse()
def main(
    world_size: int = -1, # Number of GPUs to use. -1 = all available GPUs.
    train_type: Param("", choices=["full", "lora", "qlora", "custom_qlora", "hqq_lora", "bnb_dora"]) = "qlora",
    batch_size: int = 1, # Batch size per GPU.
    context_length: int = 512, # Max length of input sequence (in tokens)
    gradient_accumulation_steps: int = 1,
    dataset: Param("", choices=["alpaca", "alpaca_sample", "dummy", "guanaco", "sql", "orca_math"]) = "alpaca_sample",
    sharding_strategy: Param("", choices=["full_shard", "shard_grad_op", "ddp", "hybrid_full_shard", "hybrid_shard_grad_op"]) = "full_shard",
    use_gradient_checkpointing: bool_arg = True,
    reentrant_checkpointing: bool_arg = False,
    use_cpu_offload: bool_arg = True,
    use_activation_cpu_offload: bool_arg = False,
    low_memory: bool_arg = True,
    no_sync: bool_arg = False,
    precision: Param("", choices=["fp32", "bf16", "fp16_autocast", "bf16_autocast", "bf16_buffers_autocast"]) = "bf16",
    model_name: str = "meta-llama/Llama-2-7b-hf",
    lora_rank: int = 64,
    lora_alpha: int = 16,
    lora_dropout: float = 0.1,
    lora_target_modules: Param("", choices=["all", "default"]) = "all",
    optimizer: str = "adamw",
    n_bits: int = 4,
):
    fsdp_qlora(**locals())
`;

const fact = (text: string, key: string) =>
  analyzeHfPython(text)
    .facts.filter((f) => f.key === key)
    .pop();

describe("Answer.AI's fsdp_qlora train.py", () => {
  it("reads main()'s defaults: Llama-2-7B QLoRA r 64 on six projections, bf16, FSDP1 FULL_SHARD with CPU offload", () => {
    const r = runFiles({ '/f/train.py': TRAIN }, '/f/train.py');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.equal(s.model, 'meta-llama/Llama-2-7b-hf');
    assert.equal(s.method, 'qlora');
    assert.deepEqual(s.quantization, { bits: 4, type: 'nf4', double_quant: true, scope: 'all-linear' });
    assert.equal(s.lora?.r, 64);
    assert.deepEqual(s.lora?.target_modules, ['k_proj', 'q_proj', 'v_proj', 'up_proj', 'down_proj', 'gate_proj']);
    assert.deepEqual([s.weights_dtype, s.mixed_precision], ['bf16', 'none']);
    assert.deepEqual([s.micro_batch_size, s.seq_len, s.gradient_accumulation_steps], [1, 512, 1]);
    assert.deepEqual([s.fsdp, s.fsdp_version, s.fsdp_use_orig_params], ['full_shard', 1, false]);
    assert.equal(s.fsdp_backward_prefetch, 'pre');
    assert.equal(s.offload_params, 'cpu');
    assert.equal(s.bnb_load, 'host');
    assert.deepEqual([s.gradient_checkpointing, s.checkpoint_reentrant], ['full', false]);
    assert.equal(s.batch_lengths, 'variable');
    assert.equal(s.loop_keeps_outputs, 'step');
    // world_size -1: every GPU of the machine, which the file does not know.
    const world = runFact(r, 'gpusPerNode')!;
    assert.ok(isUnknown(world.fact.value));
    assert.equal(world.at, '-1');
    // Each fact sits at main()'s default.
    assert.equal(runFact(r, 'model')?.at, '"meta-llama/Llama-2-7b-hf"');
  });

  it("the launch line's flags replace the defaults (the fsdp_qlora README's 70B run on two 24 GB GPUs)", () => {
    const launch =
      'python train.py --world_size 2 --model_name meta-llama/Llama-2-70b-hf --batch_size 2 --context_length 2048 ' +
      '--precision bf16 --train_type qlora --use_gradient_checkpointing true --use_cpu_offload true --dataset alpaca ' +
      '--reentrant_checkpointing true --gradient_accumulation_steps 4\n';
    const r = runFiles({ '/f/run.sh': launch, '/f/train.py': TRAIN }, '/f/run.sh');
    assert.ok(r.setup, JSON.stringify(r.problems));
    const s = r.setup;
    assert.deepEqual(
      [s.model, s.gpus_per_node, s.micro_batch_size, s.seq_len],
      ['meta-llama/Llama-2-70b-hf', 2, 2, 2048],
    );
    assert.equal(s.checkpoint_reentrant, true);
    // CPU offload with accumulation: fsdp_qlora() turns no_sync on.
    assert.equal(s.gradient_accumulation_steps, 4);
    assert.equal(s.fsdp_no_sync, true);
    // The script's fact wins over the launch line's --model_name read by its name alone (shell/flags.ts).
    assert.match(r.decided.model?.fact.rawValue ?? '', /--model_name meta-llama\/Llama-2-70b-hf on the launch line/);
  });

  it('train_type and precision by fsdp_main() rules: LoRA without quantization, DoRA, HQQ, autocast over fp32', () => {
    // main()'s default of one option set to another value.
    const set = (name: string, value: string): string => {
      const at = TRAIN.indexOf('@call_parse');
      const main = TRAIN.slice(at).replace(new RegExp(`(\\n    ${name}: .*= )"[^"]*"`), `$1"${value}"`);
      return TRAIN.slice(0, at) + main;
    };
    assert.equal(fact(set('train_type', 'lora'), 'method')?.value, 'lora');
    assert.equal(fact(set('train_type', 'lora'), 'quantBits'), undefined);
    assert.equal(fact(set('train_type', 'full'), 'method')?.value, 'full');
    assert.equal(fact(set('train_type', 'full'), 'loraR'), undefined);
    assert.equal(fact(set('train_type', 'bnb_dora'), 'loraDora')?.value, true);
    const hqq = analyzeHfPython(set('train_type', 'hqq_lora'));
    assert.ok(hqq.problems.some((p) => p.code === 'not-modeled' && /HQQ/.test(p.message)));
    assert.equal(fact(set('precision', 'bf16_autocast'), 'weightsDtype')?.value, 'fp32');
    assert.equal(fact(set('precision', 'bf16_autocast'), 'mixedPrecision')?.value, 'bf16');
    assert.equal(fact(set('precision', 'bf16_buffers_autocast'), 'weightsDtype')?.value, 'bf16');
    assert.equal(fact(set('dataset', 'dummy'), 'batchLengths')?.value, 'fixed');
    assert.equal(fact(set('sharding_strategy', 'ddp'), 'fsdp')?.value, 'no_shard');
    assert.equal(fact(set('optimizer', 'fused_adamw'), 'optimizer')?.value, 'adamw_fused');
  });

  it('a script without fsdp_qlora() and its FSDP is read as any other script', () => {
    const other =
      'from fastcore.script import call_parse\n@call_parse\ndef main(model_name: str = "gpt2"):\n    pass\n';
    assert.equal(analyzeHfPython(other).readsConfigurator, undefined);
  });
});
