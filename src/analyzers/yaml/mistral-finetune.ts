// mistralai/mistral-finetune's training config (`torchrun --nproc-per-node 8 -m train example/7B.yaml`): the model
// folder (`model_id_or_path`, Mistral's own format), `lora` (on by default: every linear layer of the blocks), the
// packed `seq_len` tokens per sequence, `batch_size` sequences per micro-step and `num_microbatches` of them per step.
// Its train.py loads every parameter in bf16, keeps an fp32 copy of each trained one for torch's AdamW
// (finetune/mixed_precision.py), wraps each block in FSDP1 FULL_SHARD (finetune/wrapped_model.py), checkpoints each
// block non-reentrantly and runs xformers' memory-efficient attention (model/transformer.py).
// Source: mistralai/mistral-finetune@1943535 finetune/args.py, model/args.py, train.py, finetune/wrapped_model.py,
// finetune/mixed_precision.py, model/transformer.py, model/lora.py. Pure.
// Docs: docs/formats.md
import { msg, type ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { asBool, asCheckpointing, asPosInt, boolOf, numOf, strOf, type Entry } from './values';

const SRC = 'mistralai/mistral-finetune@1943535';

/** Whether top-level keys are mistral-finetune's TrainArgs: the model folder beside its run folder or its own keys. */
export function isMistralFinetuneYaml(keys: ReadonlySet<string>): boolean {
  return (
    keys.has('model_id_or_path') &&
    (keys.has('run_dir') || keys.has('num_microbatches') || (keys.has('lora') && keys.has('seq_len')))
  );
}

export function analyzeMistralFinetuneYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'mistral-finetune-yaml', tool: 'mistral-finetune', omegaconf: false });
  return guarded(ctx, () => analyze(ctx));
}

function analyze(ctx: YamlCtx): void {
  const top = ctx.top();
  const model = top.get('model_id_or_path');
  if (!model) return;
  ctx.put('model', model, (v) => strOf(v)?.trim() || undefined);
  lora(ctx, top.get('lora'), model);
  ctx.put('seqLen', top.get('seq_len'), asPosInt);
  ctx.put('microBatchSize', top.get('batch_size'), asPosInt);
  ctx.put('gradientAccumulationSteps', top.get('num_microbatches'), asPosInt);
  const ckpt = top.get('checkpoint');
  ctx.put('gradientCheckpointing', ckpt, asCheckpointing);
  if (!ckpt || boolOf(ctx.view(ckpt)) !== false)
    ctx.addDefault(
      'checkpointReentrant',
      ckpt ?? model,
      false,
      `mistral-finetune checkpoints each block with CheckpointImpl.NO_REENTRANT (${SRC}:model/transformer.py)`,
    );
  const noEval = top.get('no_eval');
  ctx.put('evalStrategy', noEval, (v) => (boolOf(v) === undefined ? asBool(v) : !boolOf(v)));
  // The evaluation batches are built as the training ones: batch_size sequences of seq_len tokens (train.py).
  const batch = top.get('batch_size');
  if (batch) ctx.put('evalBatchSize', batch, asPosInt);
  else
    ctx.addDefault(
      'evalBatchSize',
      model,
      1,
      `mistral-finetune evaluates batch_size sequences, 1 by default (${SRC}:train.py)`,
    );
  precision(ctx, model);
}

/**
 * `lora` (enable true, rank 16, dropout 0, scaling 2: LoRALinear for wq, wk, wv, wo, w1, w2, w3 of every block, not
 * the output head; model/args.py LoraArgs, model/transformer.py maybe_lora_layer). `enable: false` trains every
 * weight, whose bf16 shard stays beside the fp32 copy the optimizer steps: that shard is not counted.
 */
function lora(ctx: YamlCtx, e: Entry | undefined, at: Entry): void {
  const l = ctx.sub(e);
  const enable = l.get('enable');
  const args = `${SRC}:model/args.py LoraArgs`;
  if (enable && boolOf(ctx.view(enable)) === false) {
    ctx.add('method', enable, 'full');
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        "{0}: a full fine-tune keeps each parameter's bf16 shard beside the fp32 copy AdamW steps " +
          '(finetune/mixed_precision.py); the bf16 shard, 2 bytes per parameter and GPU, is not counted',
        'lora.enable',
      ),
      enable.valueSpan,
      'lora.enable',
    );
    return;
  }
  if (enable) ctx.add('method', enable, 'lora');
  else ctx.addDefault('method', e ?? at, 'lora', `mistral-finetune's lora.enable defaults to True (${args})`);
  const rank = l.get('rank');
  if (rank) ctx.put('loraR', rank, asPosInt);
  else ctx.addDefault('loraR', e ?? at, 16, `mistral-finetune's lora.rank defaults to 16 (${args})`);
  const r = rank ? numOf(ctx.view(rank)) : 16;
  const scalingEntry = l.get('scaling');
  const scaling = scalingEntry ? numOf(ctx.view(scalingEntry)) : 2;
  if (r !== undefined && scaling !== undefined)
    ctx.addDefault('loraAlpha', scalingEntry ?? e ?? at, r * scaling, `LoRA's alpha is scaling x rank (${args})`);
  const dropout = l.get('dropout');
  if (dropout) ctx.put('loraDropout', dropout, (v) => numOf(v));
  else ctx.addDefault('loraDropout', e ?? at, 0, `mistral-finetune's lora.dropout defaults to 0 (${args})`);
  ctx.addDefault(
    'loraTargets',
    e ?? at,
    'all-linear',
    `mistral-finetune wraps every linear layer of the blocks in LoRALinear (${SRC}:model/transformer.py maybe_lora_layer)`,
  );
}

/**
 * How train.py runs the model: bf16 parameters with an fp32 copy of each trained one (the optimizer steps the copies),
 * FSDP1 FULL_SHARD per block with flat parameters, BACKWARD_PRE, xformers' memory-efficient attention.
 */
function precision(ctx: YamlCtx, at: Entry): void {
  const train = `${SRC}:train.py`;
  ctx.addDefault('weightsDtype', at, 'bf16', `mistral-finetune loads every parameter in bf16 (${train} param_dtype)`);
  ctx.addDefault(
    'masterWeights',
    at,
    true,
    `mistral-finetune keeps an fp32 copy of each trained parameter for the optimizer (${SRC}:finetune/mixed_precision.py)`,
  );
  ctx.addDefault('mixedPrecision', at, 'none', `mistral-finetune runs the bf16 model without autocast (${train})`);
  const wrapped = `${SRC}:finetune/wrapped_model.py`;
  ctx.addDefault('fsdp', at, 'full_shard', `mistral-finetune wraps each block in FSDP FULL_SHARD (${wrapped})`);
  ctx.addDefault('fsdpVersion', at, 1, `mistral-finetune uses FullyShardedDataParallel (${wrapped})`);
  ctx.addDefault('fsdpUseOrigParams', at, false, `mistral-finetune's FSDP keeps flat parameters (${wrapped})`);
  ctx.addDefault('fsdpBackwardPrefetch', at, 'pre', `mistral-finetune prefetches BACKWARD_PRE (${wrapped})`);
  ctx.addDefault(
    'loopKeepsOutputs',
    at,
    true,
    `mistral-finetune's loop keeps \`output\`, the model's fp32 logits, referenced through the backward and into the ` +
      `next step's forward (${train}: output = model(input_ids=x, seqlens=batch.sizes))`,
  );
  ctx.addDefault(
    'attention',
    at,
    'flash',
    `mistral-finetune runs xformers' memory_efficient_attention: no T x T scores are kept (${SRC}:model/transformer.py)`,
  );
}
