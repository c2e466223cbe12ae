// Which torch.utils.checkpoint form the checkpointed layers run, where a tool decides it without a file saying so.
// It matters for bitsandbytes' kept inputs (core/terms/activations/kept-inputs.ts) and, under ZeRO-3, its kept gathered
// weights (core/terms/zero3-bnb-kept.ts); the core takes transformers'
// gradient_checkpointing_enable default (reentrant before 5.0) for the rest. And FSDP's activation_checkpointing beside
// the Trainer's gradient_checkpointing: the wrapper whatever the argument says, and the Trainer's refusal of both.
import { msg, type Fact } from '../facts';
import { fileProv, type ResolveContext } from './context';
import { locateOffset } from './locate';
import type { AnalyzedFile } from './types';

/**
 * Axolotl's and LLaMA-Factory's use_reentrant=True when checkpointing is on and no file sets it, and that of a run whose
 * checkpointing only PEFT's prepare_model_for_kbit_training turns on (kbitOnlyCheckpointing).
 */
export function resolveCheckpointReentrant(ctx: ResolveContext): void {
  const { setup, prov, tools } = ctx;
  if (setup.checkpoint_reentrant !== undefined || setup.gradient_checkpointing === 'none') return;
  if (kbitOnlyCheckpointing(ctx)) {
    setup.checkpoint_reentrant = true;
    prov.checkpoint_reentrant = {
      kind: 'default',
      owner: 'peft',
      note:
        'prepare_model_for_kbit_training turns checkpointing on with gradient_checkpointing_kwargs={} ' +
        '(peft/utils/other.py), which transformers passes on as is (its use_reentrant=False default is for None), so ' +
        'torch.utils.checkpoint runs with use_reentrant unset: True, with a warning',
    };
  } else if (tools[0] === 'axolotl' && setup.rollout === undefined && setup.preference === undefined) {
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

const OWN_CHECKPOINTING: ReadonlySet<string> = new Set(['trl', 'unsloth', 'axolotl', 'llamafactory']);

/**
 * Whether checkpointing is on only through PEFT's prepare_model_for_kbit_training: no other file or call of the run
 * (the Trainer's gradient_checkpointing, whose gradient_checkpointing_enable call comes later and with None, a
 * `gradient_checkpointing_enable()` of the script, a launch flag) turns it on.
 */
function kbitOnlyCheckpointing(ctx: ResolveContext): boolean {
  // TRL's trainers turn checkpointing on by default themselves and set use_reentrant=False (trl sft_trainer.py);
  // Unsloth, Axolotl and LLaMA-Factory run checkpointing their own way.
  if (ctx.setup.gradient_checkpointing !== 'full' || ctx.tools.some((t) => OWN_CHECKPOINTING.has(t))) return false;
  const on = ctx.files
    .flatMap((f) => f.facts.facts)
    .filter((f) => f.key === 'gradientCheckpointing' && f.value === 'full');
  return on.length > 0 && on.every((f) => f.rawKey === 'prepare_model_for_kbit_training');
}

/**
 * The HF Trainer's fsdp_config `activation_checkpointing` (a `--fsdp_config` file, or the inline one) wraps every layer
 * in FSDP's checkpoint_wrapper whatever TrainingArguments' gradient_checkpointing says (transformers' Trainer sets the
 * plugin's activation_checkpointing from the config and refuses only both on), as Accelerate's config's
 * fsdp_activation_checkpointing does, so a `--gradient_checkpointing false` does not turn it off (small-ablation's
 * fsdp1-peft.sh with fsdp.json).
 */
export function resolveFsdpConfigCheckpointing(ctx: ResolveContext): void {
  const { setup, prov, files } = ctx;
  if (setup.gradient_checkpointing !== 'none' || setup.fsdp === undefined || setup.fsdp === 'none') return;
  const wrapper = fsdpWrapper(files);
  if (!wrapper) return;
  const { file, fact } = wrapper;
  setup.gradient_checkpointing = 'full';
  setup.checkpoint_wrapper = true;
  const location = locateOffset(file.file, file.text, fact.valueSpan.start, fact.valueSpan.end);
  prov.gradient_checkpointing = fileProv({ file: file.file, fact, location });
}

/** The files whose activation_checkpointing wraps the layers for FSDP: Accelerate's config, the Trainer's fsdp_config. */
const FSDP_CHECKPOINTING_FORMATS: ReadonlySet<string> = new Set(['accelerate-yaml', 'fsdp-config-json']);

/** The FSDP config of the run that turns its activation_checkpointing on, with that fact. */
function fsdpWrapper(files: ResolveContext['files']): { file: AnalyzedFile; fact: Fact } | undefined {
  for (const file of files) {
    if (!FSDP_CHECKPOINTING_FORMATS.has(file.facts.format)) continue;
    const fact = file.facts.facts.find((x) => x.key === 'checkpointWrapper' && x.value === true && !x.origin);
    if (fact) return { file, fact };
  }
  return undefined;
}

/**
 * The HF Trainer refuses FSDP's activation_checkpointing beside TrainingArguments' gradient_checkpointing, both on
 * (transformers Trainer.create_accelerator_and_postprocess: "The activation_checkpointing in FSDP config and the
 * gradient_checkpointing in training arg can't be set to True simultaneously"): said at the training argument, where
 * both are written in the run's files (BenasdTW/LLMTrain's fsdp.yaml with `--gradient_checkpointing`).
 */
export function fsdpCheckpointingConflict(ctx: ResolveContext): void {
  const { files, setup } = ctx;
  if (setup.fsdp === undefined || setup.fsdp === 'none') return;
  const wrapper = fsdpWrapper(files)?.file;
  if (!wrapper) return;
  for (const f of files) {
    if (FSDP_CHECKPOINTING_FORMATS.has(f.facts.format)) continue;
    const arg = f.facts.facts.find(
      (x) =>
        x.key === 'gradientCheckpointing' &&
        x.value === 'full' &&
        x.origin === undefined &&
        (x.tool === 'hf-trainer' || x.tool === 'trl') &&
        /^(--)?gradient_checkpointing$/.test(x.rawKey),
    );
    if (!arg) continue;
    ctx.problems.push({
      ...locateOffset(f.file, f.text, arg.keySpan.start, arg.keySpan.end),
      severity: 'warning',
      code: 'invalid-value',
      key: arg.rawKey,
      ...msg(
        "{0} with FSDP's activation_checkpointing in {1}: the HF Trainer stops at start-up (\"can't be set to True " +
          'simultaneously"); turn one off (estimated with the FSDP wrapper checkpointing every layer)',
        arg.rawKey,
        wrapper.file.slice(wrapper.file.lastIndexOf('/') + 1),
      ),
    });
    return;
  }
}
