// A SkyPilot task YAML (`sky launch task.yaml`): its `run:` script is the training launch, read as a shell script in
// place (every character outside it blanked, so the facts, problems and quick fixes keep the YAML's offsets), with the
// variables SkyPilot gives it: `envs:`, SKYPILOT_NUM_GPUS_PER_NODE from `resources.accelerators` (`A100-80GB:8`) and
// SKYPILOT_NUM_NODES from `num_nodes`. The accelerator names the GPU of the fit. Source: SkyPilot's task YAML spec
// (docs.skypilot.co reference/yaml-spec: run, setup, envs, num_nodes, resources.accelerators; the SKYPILOT_* variables
// of the run section). Pure: no I/O.
import { isMap, isScalar, parseDocument, type Node } from 'yaml';
import { type ConfigFacts, type Fact, type Span } from '../facts';
import { analyzeShell } from '../shell';
import type { Env } from '../shell/fields';
import { findGpu } from '../../core';
import { YamlCtx, guarded } from './common';
import { asPosInt, numOf, strOf, type Entry } from './values';

/** Whether top-level keys are a SkyPilot task: a `run` script beside `resources`, `num_nodes`, `setup` or `workdir`. */
export function isSkyPilotYaml(keys: ReadonlySet<string>): boolean {
  return keys.has('run') && ['resources', 'num_nodes', 'setup', 'workdir', 'file_mounts'].some((k) => keys.has(k));
}

/** SkyPilot's accelerator names where they differ from the GPU catalog's (its A100 is the 40 GB card, its V100 16 GB). */
const SKY_GPUS: Readonly<Record<string, string>> = { A100: 'A100-40GB', V100: 'V100-16GB' };

export function analyzeSkyPilotYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'skypilot-yaml', tool: 'torchrun', omegaconf: false });
  let script: ConfigFacts | undefined;
  const own: Fact[] = [];
  const base = guarded(ctx, () => {
    const top = ctx.top();
    const run = top.get('run');
    const range = run ? scriptRange(text, run.node) : undefined;
    const accel = accelerators(ctx, ctx.sub(top.get('resources')).get('accelerators'));
    const seeds: Env = new Map();
    for (const [name, e] of ctx.sub(top.get('envs'))) seed(seeds, name, ctx, e);
    if (accel?.count !== undefined) seeds.set('SKYPILOT_NUM_GPUS_PER_NODE', piece(String(accel.count), accel.span));
    const nodes = top.get('num_nodes');
    if (nodes) seed(seeds, 'SKYPILOT_NUM_NODES', ctx, nodes);
    if (range) script = analyzeShell(masked(text, range), seeds);
    const known = (k: Fact['key']): boolean => script?.facts.some((f) => f.key === k) ?? false;
    if (accel?.gpu) own.push(ctx.add('gpu', accel.entry, accel.gpu));
    if (accel?.count !== undefined && !known('gpusPerNode') && !known('worldSize'))
      own.push(ctx.add('gpusPerNode', accel.entry, accel.count));
    if (nodes && !known('nodes')) ctx.put('nodes', nodes, asPosInt);
  });
  if (!script) return base;
  return {
    ...script,
    format: 'skypilot-yaml',
    facts: [...base.facts, ...script.facts],
    problems: [...base.problems, ...script.problems],
  };
}

/** Where a SkyPilot task's `run:` script is in its text, or undefined (a file that does not parse, no script). */
export function runScriptSpan(text: string): Span | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return undefined;
  return scriptRange(text, doc.contents.get('run', true) as Node | null);
}

/** Where a task's script is: a block scalar's lines (after its `|` line), or a one-line plain scalar. */
export function scriptRange(text: string, node: Node | null): Span | undefined {
  if (!node || !isScalar(node) || !node.range) return undefined;
  const [start, end] = node.range;
  if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') {
    const nl = text.indexOf('\n', start);
    return nl < 0 || nl >= end ? undefined : { start: nl + 1, end };
  }
  return node.type === 'PLAIN' ? { start, end } : undefined;
}

/** The text with every character outside `keep` blanked but its line breaks: the script at its own offsets. */
export function masked(text: string, keep: Span): string {
  const blank = (s: string): string => s.replace(/[^\n]/g, ' ');
  return blank(text.slice(0, keep.start)) + text.slice(keep.start, keep.end) + blank(text.slice(keep.end));
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

/** A variable's value `text`, written at `span` (exactly, when the text there is the value itself). */
function piece(text: string, span: Span, written?: string): Env extends Map<string, infer V> ? V : never {
  const exact = written === text;
  return { pieces: [{ text, start: span.start, end: span.end, exact }], exported: true, valueSpan: span };
}

/** A variable SkyPilot exports to the run script: a scalar's text, located at the value. */
function seed(seeds: Env, name: string, ctx: YamlCtx, e: Entry): void {
  const v = ctx.view(e);
  if (v.t !== 'str' && v.t !== 'num' && v.t !== 'bool') return;
  seeds.set(name, { ...piece(String(v.v), e.valueSpan, ctx.raw(e)), nameSpan: e.keySpan });
}
