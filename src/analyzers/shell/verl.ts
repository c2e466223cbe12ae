// verl command lines: `python3 -m verl.trainer.main_ppo key=value ...` (PPO / GRPO and the recipes built on it, such as
// `recipe.dapo.main_dapo`) and `torchrun ... -m verl.trainer.fsdp_sft_trainer key=value ...` (SFT). Their arguments are
// Hydra overrides of verl's config (`+key=value` adds one, `~key` drops one), read by analyzers/verl/run.ts. Pure: no
// I/O, no node:*, no 'vscode'.
import { msg, type Tool } from '../facts';
import { megatron, verlRun, type VerlCommand, type VerlLine } from '../verl/run';
import { parseArgs } from './args';
import type { Field } from './fields';
import type { CmdResult, Launch } from './launch';

export { verlCommand } from '../verl/run';

/** `<launcher> verl.trainer.<entry> key=value ...` from fields[at] (the module or script): the facts of the run. */
export function verlLaunch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  command: VerlCommand,
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  const p = parseArgs(fields, at + 1, () => 'one', false, true, opaque);
  const line: VerlLine = { l, opts: p.opts, at: fields[at].span, command };
  verlRun(line);
  configFlags(line, fields.slice(at + 1));
  l.r.launcherTool = launcher ?? 'verl';
  return l.r;
}

/** `--config-name ppo_megatron_trainer` (Hydra's flag, given as `--config-name=x` or `--config-name x`). */
function configFlags(line: VerlLine, fields: readonly Field[]): void {
  for (let k = 0; k < fields.length; k++) {
    const t = fields[k].text;
    const m = /^--config-(name|path)(?:=(.*))?$/.exec(t);
    if (!m) continue;
    const value = m[2] ?? fields[k + 1]?.text ?? '';
    if (m[1] === 'name' && /megatron/i.test(value)) megatron(line.l, fields[k].span, t);
    else if (m[1] === 'name')
      line.l.notStatic(
        fields[k].span,
        msg('{0}: {1}', t, `the config ${value} is not read: verl's defaults stand for what it sets`),
        t,
      );
  }
}
