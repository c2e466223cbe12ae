// What TRL loads by a name (src/analyzers/trl-reference.ts, applied by pipeline.ts trlLoads): the policy given to a
// trainer as a model id, the reference GRPO / RLOO / DPO load by the policy's name, and GRPO's reward models, each in
// TRL's or transformers' load dtype for the pinned releases. Sources: trl create_model_from_path (`kwargs.get("dtype",
// "float32")` from 0.27, trl#4778; "auto" in 0.26), grpo_trainer.py ("create a reference model from scratch" from
// 0.19; AutoModelForSequenceClassification.from_pretrained(reward_func, **model_init_kwargs)), dpo_trainer.py (by
// path from 0.29). CPU truth accelerate/llama-grpo-fsdp2-w4-full-bf16 (TRL 1.13): the reference shard is float32.
import * as assert from 'node:assert/strict';
import { runPipeline } from '../../../src/analyzers/pipeline';
import { trlDefault, trlReferenceDtype, trlRewardDtype } from '../../../src/analyzers/trl-reference';
import { estimate } from '../../../src/core/estimate';
import { truthSetup } from '../terms/helpers';

function filesReader(files: Map<string, string>) {
  return {
    read: (p: string) => files.get(p),
    join: (from: string, rel: string) => `${from.slice(0, from.lastIndexOf('/'))}/${rel}`,
  };
}

/** A full GRPO run with a KL term whose script loads the policy itself in bf16; `pin`: a requirements.txt beside it. */
function grpo(pin?: string, extra = '') {
  const text = `import torch
from transformers import AutoModelForCausalLM
from trl import GRPOConfig, GRPOTrainer

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct", dtype=torch.bfloat16)
args = GRPOConfig(output_dir="out", beta=0.04, bf16=True${extra})
trainer = GRPOTrainer(model=model, reward_funcs=reward_len, args=args, train_dataset=dataset)
trainer.train()
`;
  const files = new Map(pin ? [['/w/requirements.txt', pin]] : []);
  return runPipeline([{ file: '/w/train.py', text }], filesReader(files), {});
}

describe('trl-reference: what TRL loads by a name, and in which dtype', () => {
  it('GRPO loads its reference by the policy name: float32 beside a bf16 policy (TRL 0.27+), 4 B a parameter', () => {
    const r = grpo();
    assert.equal(r.setup?.weights_dtype, 'bf16');
    assert.equal(r.setup?.reference_dtype, 'fp32');
    assert.match(
      JSON.stringify(r.provenance.reference_dtype),
      /GRPOTrainer \/ RLOOTrainer loads its reference by the policy's name/,
    );
    const e = estimate(r.setup!, { provenance: r.provenance });
    assert.ok(e.ok);
    const ref = e.estimate.perGpu.components.find((c) => c.label === 'Reference model weights (frozen copy)');
    // Qwen2.5-7B: 7,615,616,512 parameters x 4 B.
    assert.equal(ref?.bytes, 7_615_616_512 * 4);
  });

  it('under DeepSpeed with 16-bit weights the reference is initialized in that dtype too', () => {
    // JiaTianyu20031016/CoDPO (Qwen2.5-3B DPO, ZeRO-3, bf16): TRL's prepare_deepspeed initializes the reference with
    // the run's DeepSpeed config; zero.Init builds it in bf16 and the engine casts it (deepspeed/runtime/engine.py
    // _configure_distributed_model). Counted at 4 B a parameter, the run was 52.7 GiB against 49.9.
    const text = `import torch
from transformers import AutoModelForCausalLM
from trl import DPOConfig, DPOTrainer
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-3B-Instruct", dtype=torch.bfloat16)
args = DPOConfig(output_dir="out", bf16=True, deepspeed=DS)
DPOTrainer(model=model, args=args, train_dataset=dataset).train()
`;
    const ds = '{"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}}';
    const run = (path: string) =>
      runPipeline(
        [{ file: '/w/train.py', text: text.replace('DS', path) }],
        filesReader(new Map([['/w/ds.json', ds]])),
        {},
      );
    const r = run('"ds.json"');
    assert.deepEqual([r.setup?.zero_stage, r.setup?.weights_dtype], [3, 'bf16']);
    assert.equal(r.setup?.reference_dtype, undefined);
    // Without DeepSpeed, DPOTrainer (TRL 0.29+) loads the reference by the policy's name in float32.
    assert.equal(run('None').setup?.reference_dtype, 'fp32');
  });

  it('a dtype in model_init_kwargs, or a pin before the rule, leaves the reference in the policy dtype', () => {
    assert.equal(grpo(undefined, ', model_init_kwargs={"dtype": "bfloat16"}').setup?.reference_dtype, undefined);
    // TRL 0.26 loads with dtype="auto": the checkpoint's bf16, as the policy.
    assert.equal(grpo('trl==0.26.2\n').setup?.reference_dtype, undefined);
    // TRL 0.18 deep-copies the policy (create_reference_model).
    assert.equal(grpo('trl==0.18.0\n').setup?.reference_dtype, undefined);
    // TRL 0.22 on transformers 4.x: from_pretrained without a dtype, float32.
    assert.equal(grpo('trl==0.22.0\ntransformers==4.56.0\n').setup?.reference_dtype, 'fp32');
  });

  it('the release table: float32 from TRL 0.27, the checkpoint in 0.26, transformers 4.x float32 before', () => {
    assert.equal(trlDefault({ trl_version: '1.13' }, 'bf16')?.value, 'fp32');
    assert.equal(trlDefault({ trl_version: '0.26' }, 'bf16')?.value, 'bf16');
    assert.equal(trlDefault({ trl_version: '0.24', transformers_version: '4.57' }, 'bf16')?.value, 'fp32');
    assert.equal(trlDefault({ trl_version: '0.24', transformers_version: '5.0' }, 'bf16')?.value, 'bf16');
    // DPO loads by path from 0.29 only; the script's own ref_model is never replaced.
    const dpo = { method: 'full' as const, weights_dtype: 'bf16' as const, preference: { reference: 'copy' as const } };
    assert.equal(trlReferenceDtype({ ...dpo, trl_version: '0.28' } as never, [], 'bf16'), undefined);
    assert.equal(trlReferenceDtype({ ...dpo, trl_version: '0.29' } as never, [], 'bf16')?.value, 'fp32');
  });

  it("GRPO's reward models: transformers' default (the checkpoint's from 5), or model_init_kwargs' dtype", () => {
    assert.equal(trlRewardDtype({ weights_dtype: 'fp32' }, undefined, 'bf16'), 'bf16');
    assert.equal(trlRewardDtype({ weights_dtype: 'fp32', transformers_version: '4.57' }, undefined, 'bf16'), undefined);
    assert.equal(trlRewardDtype({ weights_dtype: 'bf16' }, 'fp32', 'bf16'), 'fp32');
  });

  it('the CPU truth point (TRL 1.13, reference in float32) is within 2 % with reference_dtype, 8 % low without', () => {
    // The optimizer step holds the policy's fp32 shard and the reference's: 3,548,416 B each over 4 ranks.
    const id = 'accelerate/llama-grpo-fsdp2-w4-full-bf16';
    const opt = (extra: Record<string, unknown>) => {
      const e = estimate(truthSetup(id, extra), {});
      assert.ok(e.ok);
      return e.estimate.perGpu.phases.find((p) => p.phase === 'optimizer')!.allocatedBytes;
    };
    const measured = 21_293_148;
    assert.ok(Math.abs(opt({}) / measured - 1) < 0.02, `${opt({})}`);
    assert.ok(opt({ reference_dtype: undefined }) / measured - 1 < -0.07);
  });
});
