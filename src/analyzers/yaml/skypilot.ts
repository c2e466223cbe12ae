// A SkyPilot task YAML (`sky launch task.yaml`): its `run:` script is the training launch, read as a shell script in
// place (yaml/task-script.ts), with the variables SkyPilot gives it: `envs:`, SKYPILOT_NUM_GPUS_PER_NODE from
// `resources.accelerators` (`A100-80GB:8`) and SKYPILOT_NUM_NODES from `num_nodes`. The accelerator names the GPU of the
// fit. Source: SkyPilot's task YAML spec (docs.skypilot.co reference/yaml-spec: run, setup, envs, num_nodes,
// resources.accelerators; the SKYPILOT_* variables of the run section). Pure: no I/O.
import { type ConfigFacts, type Span } from '../facts';
import type { Env } from '../shell/fields';
import { findGpu } from '../../core';
import { YamlCtx, guarded } from './common';
import { envValue, scriptParts, withTaskScript, type ScriptPart } from './task-script';
import { asPosInt, numOf, strOf, type Entry } from './values';

/** Whether top-level keys are a SkyPilot task: a `run` script beside `resources`, `num_nodes`, `setup` or `workdir`. */
export function isSkyPilotYaml(keys: ReadonlySet<string>): boolean {
  return keys.has('run') && ['resources', 'num_nodes', 'setup', 'workdir', 'file_mounts'].some((k) => keys.has(k));
}

/** SkyPilot's accelerator names where they differ from the GPU catalog's (its A100 is the 40 GB card, its V100 16 GB). */
const SKY_GPUS: Readonly<Record<string, string>> = { A100: 'A100-40GB', V100: 'V100-16GB' };

export function analyzeSkyPilotYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'skypilot-yaml', tool: 'torchrun', omegaconf: false });
  let parts: ScriptPart[] = [];
  const seeds: Env = new Map();
  const base = guarded(ctx, () => {
    const top = ctx.top();
    parts = scriptParts(text, top.get('run')?.node);
    const accel = accelerators(ctx, ctx.sub(top.get('resources')).get('accelerators'));
    for (const [name, e] of ctx.sub(top.get('envs'))) seed(seeds, name, ctx, e);
    if (accel?.count !== undefined) seeds.set('SKYPILOT_NUM_GPUS_PER_NODE', envValue(String(accel.count), accel.span));
    const nodes = top.get('num_nodes');
    if (nodes) seed(seeds, 'SKYPILOT_NUM_NODES', ctx, nodes);
    if (accel?.gpu) ctx.add('gpu', accel.entry, accel.gpu);
    if (accel?.count !== undefined) ctx.add('gpusPerNode', accel.entry, accel.count);
    if (nodes) ctx.put('nodes', nodes, asPosInt);
  });
  return withTaskScript(base, text, parts, seeds);
}

/** `accelerators: A100-80GB:8` (also `{A100-80GB: 8}`): the GPU and its count, where it is written. */
function accelerators(
  ctx: YamlCtx,
  e: Entry | undefined,
): { gpu?: string; count?: number; span: Span; entry: Entry } | undefined {
  if (!e) return undefined;
  const v = ctx.view(e);
  let name: string | undefined;
  let count: number | undefined;
  const pairs = v.t === 'map' ? [...ctx.sub(e)] : [];
  if (pairs.length === 1) {
    const [k, x] = pairs[0];
    name = k;
    count = numOf(ctx.view(x));
  } else {
    const m = /^\s*([\w.-]+)(?::(\d+))?\s*$/.exec(strOf(v) ?? '');
    if (!m) return undefined;
    name = m[1];
    count = m[2] !== undefined ? Number(m[2]) : 1;
  }
  const found = name ? findGpu(SKY_GPUS[name] ?? name) : undefined;
  return {
    ...(found?.ok ? { gpu: found.gpu.id } : {}),
    ...(count !== undefined && Number.isInteger(count) && count > 0 ? { count } : {}),
    span: e.valueSpan,
    entry: e,
  };
}

/** A variable SkyPilot exports to the run script: a scalar's text, located at the value. */
function seed(seeds: Env, name: string, ctx: YamlCtx, e: Entry): void {
  const v = ctx.view(e);
  if (v.t !== 'str' && v.t !== 'num' && v.t !== 'bool') return;
  seeds.set(name, { ...envValue(String(v.v), e.valueSpan, ctx.raw(e)), nameSpan: e.keySpan });
}
