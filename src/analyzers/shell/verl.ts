// verl command lines: `python3 -m verl.trainer.main_ppo key=value ...` (PPO / GRPO and the recipes built on it, such as
// `recipe.dapo.main_dapo`) and `torchrun ... -m verl.trainer.fsdp_sft_trainer key=value ...` (SFT), whose arguments are
// Hydra overrides of verl's config (`+key=value` adds one, `~key` drops one); and EasyR1's `python3 -m
// verl.trainer.main config=x.yaml key=value ...`, OmegaConf overrides of the YAML it names. Read by analyzers/verl.
// Pure: no I/O, no node:*, no 'vscode'.
import { msg, type Span, type Tool } from '../facts';
import { asVerlOpts, EASYR1_DIALECT, isEasyr1Entry } from '../verl/easyr1';
import { megatron, verlCommand, verlRun, type VerlCommand, type VerlLine } from '../verl/run';
import { parseArgs, type Opt } from './args';
import type { Field } from './fields';
import type { CmdResult, Launch } from './launch';

/** The verl-family entry point a module or script path names: verl's PPO or SFT trainer, or EasyR1's. */
export const verlEntry = (script: string): VerlCommand | 'easyr1' | undefined =>
  isEasyr1Entry(script) ? 'easyr1' : verlCommand(script);

/**
 * A project's own entry point run with verl's overrides (`python -m absolute_zero_reasoner.main_azr_ppo
 * actor_rollout_ref.model.path=... data.train_batch_size=64`, a fork of verl's main_ppo): read as verl's PPO trainer,
 * said at the module. Undefined where the line passes no override of verl's `actor_rollout_ref` (verl's own root).
 */
export function verlFork(l: Launch, fields: readonly Field[], at: number): VerlCommand | undefined {
  if (!fields.slice(at + 1).some((f) => /^\+?actor_rollout_ref\.[\w.]+=/.test(f.text))) return undefined;
  const module = fields[at];
  l.r.problems.push({
    code: 'read-by-name',
    severity: 'info',
    ...msg(
      "{0} is not verl's own entry point: read as verl's PPO trainer, whose overrides its line passes",
      module.text,
    ),
    span: module.span,
    rawKey: module.text,
  });
  return 'ppo';
}

/** `<launcher> verl.trainer.<entry> key=value ...` from fields[at] (the module or script): the facts of the run. */
export function verlLaunch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  command: VerlCommand | 'easyr1',
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  const p = parseArgs(fields, at + 1, () => 'one', false, true, opaque);
  l.r.launcherTool = launcher ?? 'verl';
  if (command === 'easyr1') {
    easyr1Line(l, p.opts, fields[at].span);
    return l.r;
  }
  const line: VerlLine = { l, opts: p.opts, at: fields[at].span, command };
  verlRun(line);
  configFlags(line, fields.slice(at + 1));
  return l.r;
}

/**
 * EasyR1's line: its overrides under the verl names they stand for. With `config=`, the YAML it names is read with
 * them (pipeline.ts): the line says only what it sets, the file the rest and EasyR1's arithmetic.
 */
function easyr1Line(l: Launch, opts: readonly Opt[], at: Span): void {
  const config = [...opts].reverse().find((o) => o.name === 'config');
  const overrides = opts.filter((o) => o.name !== 'config');
  verlRun({
    l,
    opts: asVerlOpts(overrides),
    at,
    command: 'ppo',
    dialect: EASYR1_DIALECT,
    overridesOnly: config?.value !== undefined,
  });
  if (!config?.value) return;
  const args = overrides.map((o) => ({
    name: o.name,
    ...(o.value ? { value: o.value.unknown === undefined ? o.value.text : null } : {}),
  }));
  l.r.refs.push({ kind: 'config', path: config.value.text, span: config.value.span, args });
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
