// Which torch.utils.checkpoint form the checkpointed layers run, where a tool decides it without a file saying so.
// It matters for bitsandbytes' kept inputs (core/terms/activations/kept-inputs.ts) and, under ZeRO-3, its kept gathered
// weights (core/terms/zero3-bnb-kept.ts); the core takes transformers'
// gradient_checkpointing_enable default (reentrant before 5.0) for the rest.
import type { ResolveContext } from './context';

/** Axolotl's and LLaMA-Factory's use_reentrant=True when checkpointing is on and no file sets it. */
export function resolveCheckpointReentrant(ctx: ResolveContext): void {
  const { setup, prov, tools } = ctx;
  if (setup.checkpoint_reentrant !== undefined || setup.gradient_checkpointing === 'none') return;
  if (tools[0] === 'axolotl' && setup.rollout === undefined && setup.preference === undefined) {
    setup.checkpoint_reentrant = true;
    prov.checkpoint_reentrant = {
      kind: 'default',
      owner: 'axolotl',
      note:
        'gradient_checkpointing_kwargs defaults to {"use_reentrant": True} with checkpointing on, outside RL ' +
        '(axolotl-ai-cloud/axolotl@067b021:src/axolotl/utils/config/__init__.py normalize_config)',
    };
  } else if (tools[0] === 'llamafactory') {
    setup.checkpoint_reentrant = true;
    prov.checkpoint_reentrant = {
      kind: 'default',
      owner: 'llamafactory',
      note: 'use_reentrant_gc defaults to True (hparams/model_args.py), passed as gradient_checkpointing_kwargs',
    };
  }
}
