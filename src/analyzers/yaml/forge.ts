// meta-pytorch/forge's app configs (`python -m apps.sft.main --config apps/sft/llama3_8b.yaml`, `apps/grpo/*.yaml`):
// the trainer is torchtitan's (ForgeJobConfig extends torchtitan's JobConfig), so its job config is read by the
// torchtitan reader (toml/torchtitan.ts), from the top of an SFT config or from the `trainer:` section of a GRPO one,
// whose policy (a vLLM engine) and reference model run in processes of their own on other GPUs; the trainer's GPUs
// are `actors.trainer.procs` (or `services.trainer.procs`). OmegaConf interpolations (`${batch_size}`) are followed.
// Sources: meta-pytorch/forge@8cb21be apps/sft/main.py, apps/grpo/main.py and their configs. Pure: no I/O.
import type { ConfigFacts, Fact } from '../facts';
import type { TomlDoc, TomlEntry } from '../toml/parse';
import { analyzeTorchtitanDoc } from '../toml/torchtitan';
import { yamlLeaves } from './as-options';
import { YamlCtx } from './common';
import type { Entry, View } from './values';

/** A forge app config: torchtitan's `model:` with `name` and `flavor`, and `training:` / `parallelism:`, at the top or under `trainer:`. */
export function isForgeYaml(keys: ReadonlySet<string>, text: string): boolean {
  const titan = (indent: string): boolean =>
    new RegExp(`^${indent}model:\\s*$[\\s\\S]*?^${indent}  flavor:`, 'm').test(text) &&
    new RegExp(`^${indent}(training|parallelism):\\s*$`, 'm').test(text);
  return (keys.has('model') && keys.has('training') && titan('')) || (keys.has('trainer') && titan('  '));
}

export function analyzeForgeYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'forge-yaml', tool: 'torchtitan', omegaconf: true });
  try {
    const top = ctx.top();
    const trainer = top.get('trainer');
    const section = trainer && ctx.view(trainer).t === 'map' ? ctx.sub(trainer) : top;
    const entries = torchtitanEntries(ctx, section, trainer ? 'trainer.' : '');
    const doc: TomlDoc = { entries, tables: new Map(), problems: [] };
    const titan = analyzeTorchtitanDoc(doc, 'forge-yaml');
    const episode = trainer ? episodeLength(ctx, top) : undefined;
    const own = titan.facts.map(rekey(trainer ? 'trainer.' : '')).filter((f) => !(episode && f.key === 'seqLen'));
    const facts: Fact[] = [...own, ...(episode ? [episode] : []), ...trainerGpus(ctx, top)];
    return { ...titan, facts, problems: [...ctx.problems, ...titan.problems] };
  } catch {
    return ctx.result();
  }
}

/** A fact's key as the file writes it (`trainer.training.seq_len`). */
const rekey =
  (prefix: string) =>
  (f: Fact): Fact => ({ ...f, rawKey: prefix + f.rawKey });

/** Every scalar and list under the section, by its path from the section (`training.local_batch_size`). */
function torchtitanEntries(ctx: YamlCtx, section: Map<string, Entry>, prefix: string): Map<string, TomlEntry> {
  const out = new Map<string, TomlEntry>();
  for (const { entry: e, view } of yamlLeaves(ctx, section)) {
    const value = valueOf(view);
    if (value === undefined) continue;
    const path = e.path.startsWith(prefix) ? e.path.slice(prefix.length) : e.path;
    const rawValue = ctx.text.slice(e.valueSpan.start, e.valueSpan.end);
    out.set(path, { path, keySpan: e.keySpan, valueSpan: e.valueSpan, rawValue, value });
  }
  return out;
}

function valueOf(v: View): unknown {
  switch (v.t) {
    case 'str':
    case 'num':
    case 'bool':
      return v.v;
    case 'seq':
      return v.items.map(valueOf);
    default:
      return undefined;
  }
}

/**
 * A GRPO app's training sequences: each episode's request padded to max_req_tokens on the left and its response to
 * max_res_tokens on the right (apps/grpo/main.py Episode, the trainer's input_ids), whatever training.seq_len says.
 */
function episodeLength(ctx: YamlCtx, top: Map<string, Entry>): Fact | undefined {
  const req = top.get('max_req_tokens');
  const res = top.get('max_res_tokens');
  const a = req ? ctx.view(req) : undefined;
  const b = res ? ctx.view(res) : undefined;
  if (!req || !res || a?.t !== 'num' || b?.t !== 'num' || a.v < 1 || b.v < 1) return undefined;
  return {
    key: 'seqLen',
    rawKey: 'max_req_tokens + max_res_tokens',
    value: a.v + b.v,
    rawValue: `${a.v} + ${b.v}`,
    keySpan: res.keySpan,
    valueSpan: res.valueSpan,
    tool: 'torchtitan',
  };
}

/** The trainer's GPUs in a GRPO app: `actors.trainer.procs` (`services.trainer.procs` in some apps). */
function trainerGpus(ctx: YamlCtx, top: Map<string, Entry>): Fact[] {
  for (const group of ['actors', 'services']) {
    const procs = ctx.sub(ctx.sub(top.get(group)).get('trainer')).get('procs');
    const v = procs ? ctx.view(procs) : undefined;
    if (!procs || v?.t !== 'num' || !Number.isInteger(v.v) || v.v < 1) continue;
    return [
      {
        key: 'gpusPerNode',
        rawKey: procs.path,
        value: v.v,
        rawValue: ctx.text.slice(procs.valueSpan.start, procs.valueSpan.end),
        keySpan: procs.keySpan,
        valueSpan: procs.valueSpan,
        tool: 'torchtitan',
      },
    ];
  }
  return [];
}
