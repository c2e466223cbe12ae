// A dstack task (`.dstack.yml`, `dstack apply -f task.dstack.yml`): its `commands:` list is the training launch, each
// item a command line (a plain item's line breaks folded, a `|` item's kept), read as a shell script in place
// (yaml/task-script.ts) with the variables dstack gives it: `env:` (`K=V` items or a map), DSTACK_GPUS_PER_NODE from
// `resources.gpu` (`H100:8`, `A100:80GB:2`, `24GB`), DSTACK_NODES_NUM from `nodes` and DSTACK_GPUS_NUM, their product.
// The GPU named (or the smallest memory a range admits) is the GPU of the fit. Source: dstackai/dstack's task
// configuration reference and examples (examples/distributed-training/torchrun/.dstack.yml). Pure: no I/O.
import { isScalar, isSeq } from 'yaml';
import { type ConfigFacts, type Span } from '../facts';
import type { Env } from '../shell/fields';
import { findGpu } from '../../core';
import { YamlCtx, guarded } from './common';
import { envValue, scriptParts, withTaskScript, type ScriptPart } from './task-script';
import { asPosInt, numOf, strOf, type Entry } from './values';

/** Whether top-level keys are a dstack task: `type: task` with `commands`. */
export function isDstackYaml(keys: ReadonlySet<string>, text: string): boolean {
  return keys.has('commands') && /^type\s*:\s*["']?task["']?\s*$/m.test(text);
}

export function analyzeDstackYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'dstack-yaml', tool: 'torchrun', omegaconf: false });
  let parts: ScriptPart[] = [];
  const seeds: Env = new Map();
  const base = guarded(ctx, () => {
    const top = ctx.top();
    parts = scriptParts(text, top.get('commands')?.node);
    env(ctx, top.get('env'), seeds);
    const gpu = gpuSpec(ctx, ctx.sub(top.get('resources')).get('gpu'));
    const nodesEntry = top.get('nodes');
    const nodes = nodesEntry ? numOf(ctx.view(nodesEntry)) : undefined;
    if (gpu?.count !== undefined) {
      seeds.set('DSTACK_GPUS_PER_NODE', envValue(String(gpu.count), gpu.entry.valueSpan));
      seeds.set('DSTACK_GPUS_NUM', envValue(String(gpu.count * (nodes ?? 1)), gpu.entry.valueSpan));
      ctx.add('gpusPerNode', gpu.entry, gpu.count);
    }
    if (nodesEntry) {
      seeds.set('DSTACK_NODES_NUM', envValue(String(nodes ?? ''), nodesEntry.valueSpan, ctx.raw(nodesEntry)));
      ctx.put('nodes', nodesEntry, asPosInt);
    }
    if (gpu?.gpu) ctx.add('gpu', gpu.entry, gpu.gpu);
  });
  return withTaskScript(base, text, parts, seeds);
}

/** `env:` as `K=V` items (a bare `K` comes from the environment) or as a map. */
function env(ctx: YamlCtx, e: Entry | undefined, seeds: Env): void {
  if (!e?.node) return;
  const v = ctx.view(e);
  if (v.t === 'map') {
    for (const [name, x] of ctx.sub(e)) {
      const s = ctx.view(x);
      if (s.t === 'str' || s.t === 'num' || s.t === 'bool')
        seeds.set(name, envValue(String(s.v), x.valueSpan, ctx.raw(x)));
    }
    return;
  }
  if (v.t !== 'seq' || !isSeq(e.node)) return;
  for (const node of e.node.items) {
    if (!isScalar(node) || !node.range) continue;
    const m = typeof node.value === 'string' ? /^([A-Za-z_]\w*)=(.*)$/s.exec(node.value) : null;
    if (!m) continue;
    // A quoted item's value starts after its quote.
    const quote = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
    const at = node.range[0] + quote + m[1].length + 1;
    const span: Span = { start: at, end: at + m[2].length };
    seeds.set(m[1], envValue(m[2], span, ctx.text.slice(span.start, span.end)));
  }
}

/**
 * `resources.gpu`: `name[:memory][:count]` in any order of its parts (`H100:8`, `A100:80GB:2`, `24GB`, `16GB..24GB`,
 * `1..8`), or a map with `name`, `memory` and `count`. A named GPU with a memory picks that card (`A100` with `80GB`:
 * A100-80GB); a memory alone is a card of that size (a range's smallest, the one the fit must hold on); a count range
 * gives no count.
 */
function gpuSpec(ctx: YamlCtx, e: Entry | undefined): { gpu?: string; count?: number; entry: Entry } | undefined {
  if (!e) return undefined;
  const v = ctx.view(e);
  let name: string | undefined;
  let memory: string | undefined;
  let count: number | undefined;
  if (v.t === 'map') {
    const m = ctx.sub(e);
    const at = (k: string) => (m.get(k) ? ctx.view(m.get(k)!) : undefined);
    const n = at('name');
    name = n?.t === 'seq' ? strOf(n.items[0] ?? { t: 'absent' }) : n ? strOf(n) : undefined;
    memory = at('memory') ? strOf(at('memory')!) : undefined;
    count = at('count') ? numOf(at('count')!) : undefined;
  } else {
    for (const part of (strOf(v) ?? String(numOf(v) ?? '')).split(':').map((p) => p.trim())) {
      if (/^\d+$/.test(part)) count = Number(part);
      else if (/^\d+(\.\d+)?GB(\.\.|$)/i.test(part)) memory = part;
      else if (/^[A-Za-z][\w-]*$/.test(part)) name = part;
    }
  }
  const gib = memory ? /^(\d+(?:\.\d+)?)GB/i.exec(memory)?.[1] : undefined;
  const byName = name ? findGpu(gib && !/\d+GB$/i.test(name) ? `${name}-${gib}GB` : name) : undefined;
  const fallback = name ? findGpu(name) : undefined;
  const gpu = byName?.ok ? byName.gpu.id : fallback?.ok ? fallback.gpu.id : gib ? `${gib}GiB` : undefined;
  return { ...(gpu ? { gpu } : {}), ...(count !== undefined && count > 0 ? { count } : {}), entry: e };
}
