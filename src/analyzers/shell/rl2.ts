// RL2 command lines (ChenmienTan/RL2): `torchrun --nproc_per_node=4 -m RL2.trainer.sft key=value ...`, whose
// arguments are Hydra overrides of the trainer's config. The trainers RL2 ships (sft, dpo, rm, ppo) compose
// RL2/trainer/config/<trainer>.yaml, read as a file of the run (the checkout's, else as RL2 ships it:
// hydra/rl2-configs.ts); another module under RL2.trainer (a fork's own trainer) is read as its script, whose
// @hydra.main names its config. hydra/rl2.ts reads the composition. Pure: no I/O, no node:*, no 'vscode'.
import type { Tool } from '../facts';
import { parseArgs } from './args';
import type { Field } from './fields';
import type { CmdResult, Launch } from './launch';

/** The trainers RL2 ships, each with its config of the same name. */
const SHIPPED = new Set(['sft', 'dpo', 'rm', 'ppo']);

/** The RL2 trainer a module or script path names (`RL2.trainer.sft`, `RL2/trainer/ppo.py`), or undefined. */
export function rl2Entry(script: string): string | undefined {
  return /(?:^|[./])RL2[./]trainer[./](\w+)(?:\.py)?$/.exec(script.trim())?.[1];
}

/** `<launcher> -m RL2.trainer.<entry> key=value ...` from fields[at] (the module or script). */
export function rl2Launch(
  l: Launch,
  fields: readonly Field[],
  at: number,
  entry: string,
  opaque: (f: Field) => void,
  launcher: Tool | undefined,
): CmdResult {
  const p = parseArgs(fields, at + 1, () => 'one', false, true, opaque);
  const args = p.opts.map((o) => ({
    name: o.rawKey,
    ...(o.value
      ? { value: o.value.unknown === undefined ? o.value.text : null, at: { key: o.keySpan, value: o.value.span } }
      : {}),
  }));
  const span = fields[at].span;
  l.tool('rl2');
  l.r.launcherTool = launcher ?? 'rl2';
  l.r.training = true;
  if (SHIPPED.has(entry))
    l.r.refs.push({ kind: 'config', path: `RL2/trainer/config/${entry}.yaml`, span, hydra: true, overrides: args });
  else l.r.refs.push({ kind: 'script', path: `RL2/trainer/${entry}.py`, span, args: [], overrides: args });
  return l.r;
}
