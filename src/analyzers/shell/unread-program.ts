// A command that is neither a script nor a known tool but passes the HF Trainer's options (`autoalign-cli sft ...`,
// `petrogpt-train --stage sft ...`): a program run by its name, read as a script would be, its options by their
// names as TrainingArguments'. Its code may be the project's own, a console script its pyproject.toml, setup.py or
// setup.cfg declares (console-scripts.ts), which the run then reads (collect/index.ts). Pure.
import { msg } from '../facts';
import { SHELL_SCRIPT } from './called-script';
import { hasFlag, type Field } from './fields';
import type { CmdResult, Launch } from './launch';
import { subcommandObjective } from './reference-flags';

/** Options only TrainingArguments has: with the model's, they say the program parses them with HfArgumentParser. */
const TRAINER_ONLY_OPTIONS = ['--per_device_train_batch_size', '--gradient_accumulation_steps', '--deepspeed'];

/** A program's name as a console script has it (no path, no extension: `train.py` is a script). */
export const PROGRAM_NAME = /^[A-Za-z][\w-]*$/;

/**
 * Whether a command that is neither a script nor a known tool passes `--model_name_or_path` and an option only the HF
 * Trainer's arguments have.
 */
export function passesTrainerOptions(fields: readonly Field[], i: number): boolean {
  return (
    !SHELL_SCRIPT.test(fields[i].text) &&
    hasFlag(fields, i + 1, '--model_name_or_path') &&
    TRAINER_ONLY_OPTIONS.some((name) => hasFlag(fields, i + 1, name))
  );
}

/** Such a command, read as a script's launch (`r`), with its objective and how it is read said at the command. */
export function unreadProgramLaunch(l: Launch, r: CmdResult, fields: readonly Field[], i: number): CmdResult {
  const command = fields[i];
  subcommandObjective(l, fields[i + 1]);
  r.problems.push({
    code: 'read-by-name',
    severity: 'info',
    ...msg(
      '{0} is a program whose code is not in these files: its options are read by their names, as the HF ' +
        "Trainer's (TrainingArguments); a value it sets itself, or a default of its own, is not seen",
      l.slice(command.span),
    ),
    span: command.span,
  });
  return r;
}
