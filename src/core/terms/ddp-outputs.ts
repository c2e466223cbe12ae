// Term: DDP's copy of the model's outputs under find_unused_parameters. With find_unused_parameters (and no static
// graph) DistributedDataParallel._post_forward passes every output tensor through _DDPSink, whose forward clones them
// (torch/nn/parallel/distributed.py), so the logits a causal-LM forward returns exist twice as it ends. The HF Trainer
// asks for it for a PEFT model, or a model without gradient checkpointing (trainer.py _wrap_model). Under mixed
// precision the trainer's Accelerate has already made those logits fp32 (convert_outputs_to_fp32), after the loss
// inside the model was computed: at that instant the fp32 logits and their clone are held beside what the loss saved.
// Docs: docs/estimate/parallelism.md. Pure arithmetic.
import type { Component } from '../model';
import { comp } from '../estimate/component';
import type { EstimateContext, StageContext } from '../estimate/context';
import { formatCount } from '../units';
import { modelCrossEntropy } from './shifted-logits';

/**
 * The logits a forward returns and DDP's clone of them, where DDP runs with find_unused_parameters on the last stage
 * of a model that returns its full logits; none otherwise.
 */
export function ddpOutputsClone(ctx: EstimateContext, st: StageContext): Component[] {
  const setup = ctx.setup;
  if (!ctx.sharding.ddp || setup.ddp_find_unused_parameters !== true || !st.last || !modelCrossEntropy(ctx)) return [];
  const logits = st.tokens * (ctx.model.arch.vocab / ctx.layout.tensorParallel);
  const bytes = ctx.dtypes.mode === 'amp' ? 4 : ctx.dtypes.computeBytes;
  return [
    comp(
      ctx,
      'logits-loss',
      "Returned logits and DDP's clone of them (find_unused_parameters)",
      2 * logits * bytes,
      () =>
        `2 x ${formatCount(logits)} logits x ${bytes} B: the forward's returned logits` +
        `${ctx.dtypes.mode === 'amp' ? ' (made fp32 by convert_outputs_to_fp32)' : ''} and _DDPSink's clone`,
      () => ({ tokens: st.tokens, vocab: ctx.model.arch.vocab }),
    ),
  ];
}
