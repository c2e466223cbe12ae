// The loss's forward temporaries at the end of the forward, by the kind of loss: cross-entropy, TRL's chunked_nll,
// label smoothing, distillation, the completion log-probs of online methods, or a value head's unused logits. A part of
// the forward's phase (estimate/phases.ts). Pure arithmetic; no I/O.
// Docs: docs/estimate/loss-and-logits.md
import type { Component } from '../model';
import { comp } from './component';
import type { EstimateContext } from './context';
import type { StageTerms } from './phases';

/** The loss's forward temporaries (none when the loss holds no transient bytes), by the kind of loss. */
export function lossTemporaries(ctx: EstimateContext, terms: StageTerms): Component[] {
  const setup = ctx.setup;
  const { teacher, rollout, onlineDpo, gkd } = ctx.methods;
  const { lossFwd } = terms;
  if (!(lossFwd > 0)) return [];
  return [
    rollout
      ? comp(
          ctx,
          'logits-loss',
          'Completion log-probs forward temporaries',
          lossFwd,
          () =>
            onlineDpo
              ? 'the logits of every position, of which the completions are sliced for their log_softmax'
              : "the completion logits, divided by the temperature, and one row's fp32 copy at its log_softmax",
          () => ({}),
        )
      : gkd
        ? comp(
            ctx,
            'logits-loss',
            'Distillation loss forward temporaries',
            lossFwd,
            () =>
              "the student's and the teacher's logits, their copies divided by the temperature and the JSD's fp32 temporaries at its high point",
            () => ({}),
          )
        : setup.value_head
          ? comp(
              ctx,
              'logits-loss',
              'LM logits, computed and unused (value head)',
              lossFwd,
              () => 'AutoModelForCausalLMWithValueHead computes the logits and their fp32 copy; no loss uses them',
              () => ({}),
            )
          : setup.label_smoothing
            ? comp(
                ctx,
                'logits-loss',
                'Label smoothing forward temporaries',
                lossFwd,
                () => "the model's logits and their shifted copy (and the fp32 sum's cast) at the LabelSmoother",
                () => ({}),
              )
            : comp(
                ctx,
                'logits-loss',
                'Cross-entropy forward temporaries',
                lossFwd,
                () =>
                  setup.loss === 'chunked-nll'
                    ? "one 256-token chunk's fp32 logits, log_softmax, its exp and the entropy product (TRL chunked_nll)"
                    : `logits in compute dtype + fp32 upcast live at the loss call${teacher && !rollout ? ", and the teacher's logits" : ''}`,
                () => ({}),
              ),
  ];
}
