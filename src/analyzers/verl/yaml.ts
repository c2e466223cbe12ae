// A verl config YAML (a fork's verl/trainer/config/ppo_trainer.yaml or sft_trainer.yaml, written out key by key) or an
// EasyR1 one (examples/config.yaml, `config=` of `python3 -m verl.trainer.main`): its keys read as the overrides they
// are to the trainer, so the same specs, defaults and batch arithmetic apply (run.ts, easyr1.ts). A launch line's own
// overrides of it come after the file's, and win. Pure: no I/O, no node:*, no 'vscode'.
import type { ConfigFacts, LaunchArgument, Span } from '../facts';
import type { Opt } from '../shell/args';
import { Launch } from '../shell/launch';
import { YamlCtx, guarded } from '../yaml/common';
import { yamlOptions } from '../yaml/as-options';
import { asVerlOpts, EASYR1_DIALECT, verlNameOf } from './easyr1';
import { specKeyOf, verlRun } from './run';
import { verlSchema } from './schema';

/** A verl-family config YAML, with the launch line's overrides of it (`config=` on an EasyR1 line) when it has some. */
export function analyzeVerlYaml(text: string, overrides: readonly LaunchArgument[] = []): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'verl-yaml', tool: 'verl', omegaconf: true });
  return guarded(ctx, () => analyze(ctx, overrides));
}

function analyze(ctx: YamlCtx, overrides: readonly LaunchArgument[]): void {
  const top = ctx.top();
  const schema = verlSchema(new Set(top.keys()), ctx.text);
  if (!schema) return;
  const own = yamlOptions(ctx, top);
  const start: Span = ctx.span(0, 0);
  const launched = overrides.flatMap((a) => launchedOpt(a, own, start));
  const l = new Launch(ctx.text);
  // The file's keys are written here; the launch line's are its own facts (its file ranks above this one), so only
  // what they change in the arithmetic is said here.
  const overridden = new Set(launched.map((o) => o.name));
  const mine = own.filter((o) => !overridden.has(o.name));
  const easy = schema === 'easyr1';
  const asRun = (opts: readonly Opt[]): Opt[] => (easy ? asVerlOpts(opts) : [...opts]);
  const command = easy ? 'ppo' : schema;
  verlRun({
    l,
    opts: asRun([...mine, ...launched]),
    at: start,
    command,
    emitted: asRun(mine),
    ...(easy ? { dialect: EASYR1_DIALECT } : {}),
  });
  // A value the arithmetic derives here outranks the launch line's of the same key (verl's dynamic micro-batch over
  // the per-GPU one the line sets).
  const lineKeys = new Set(launched.map((o) => specKeyOf(command, easy ? verlNameOf(o.name) : o.name)));
  for (const f of l.r.facts) ctx.facts.push(lineKeys.has(f.key) ? { ...f, overridesLauncher: true } : f);
  for (const p of l.r.problems) ctx.problems.push(p);
}

/**
 * A launch line's override as an option of this file's run: located at the key it replaces when the file writes it,
 * else where the file starts; a value the launch line leaves unknown stays unknown.
 */
function launchedOpt(a: LaunchArgument, own: readonly Opt[], start: Span): Opt[] {
  if (a.value === undefined) return [];
  const name = a.name.replace(/^\+\+?/, '');
  const at = [...own].reverse().find((o) => o.name === name);
  const span = at?.value?.span ?? start;
  const value =
    a.value === null
      ? { text: '', span, unknown: `${name} is set on the launch line from a value not known statically` }
      : { text: a.value, span };
  return [{ name, rawKey: `${name} (launch line)`, keySpan: at?.keySpan ?? start, value }];
}
