// Megatron-LM's pretraining entry points (`torchrun ... pretrain_gpt.py --num-layers 24 --hidden-size 2048 ...`, also
// Megatron-DeepSpeed's): the model is built from the line's own dimension flags, not from a checkpoint, and trained by
// Megatron's distributed optimizer, its fp32 gradient buffers and its pipeline schedules, none of which VRAM Lens
// models. The line is said to be such a run at its script, in place of a missing script and an unnamed model.
// Sources: NVIDIA/Megatron-LM pretrain_gpt.py, pretrain_bert.py, pretrain_t5.py, pretrain_mamba.py,
// megatron/training/arguments.py (`--num-layers`, `--hidden-size`). Pure: no I/O.
import { msg } from '../facts';
import type { Field } from './fields';
import type { CmdResult, Launch } from './launch';

/** Megatron-LM's and Megatron-DeepSpeed's pretraining scripts, by file name. */
const ENTRY = /(?:^|\/)pretrain_(?:gpt|bert|t5|mamba|retro|vlm|ict|llama\w*)\.py$/;

/** Flags only Megatron's argument parser has that give the model's size. */
const DIMENSIONS = new Set(['--num-layers', '--hidden-size', '--num-attention-heads', '--ffn-hidden-size']);

/** Whether the line runs a Megatron pretraining script with its model's dimensions as flags. */
export function isMegatronPretraining(script: string, fields: readonly Field[], from: number): boolean {
  return ENTRY.test(script) && fields.slice(from).some((f) => DIMENSIONS.has(f.text.split('=')[0] ?? ''));
}

/** The line, said at its script as a Megatron-LM run that is not modeled; a training line with no fact of the run. */
export function megatronLaunch(l: Launch, script: Field): CmdResult {
  l.warnNotModeled(
    msg(
      '{0}: Megatron-LM builds this model from the flags on the line and trains it with its own distributed ' +
        'optimizer, fp32 gradient buffers and pipeline schedules, which VRAM Lens does not model: no estimate is ' +
        'made for this run',
      script.text,
    ),
    script.span,
    script.text,
  );
  l.r.training = true;
  return l.r;
}
