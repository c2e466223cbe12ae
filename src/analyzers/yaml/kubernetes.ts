// A Kubernetes workload that trains (a batch/v1 Job, a Pod, a CronJob's job, a Kubeflow PyTorchJob's Master or Worker):
// the first container whose `command` and `args` start a training run is the launch line, its items the words of one
// command (`command: ["accelerate", "launch", "--config_file", "sft/my_config.yaml", "sft/sft_trainer.py", ...]`, or
// `["/bin/bash", "-c", "torchrun ... train.py ..."]`), read as a shell script in place (yaml/task-script.ts): every
// character but the items' blanked, the list's line breaks too, so that its facts and quick fixes keep the YAML's
// offsets. The container's `env` (`name` / `value` pairs) is the command's environment; its `nvidia.com/gpu` limit (or
// request) is the GPUs the pod gets, and a node selector's value that names a catalog GPU (`gpu: b200`, GKE's
// `cloud.google.com/gke-accelerator: nvidia-l4`) is the GPU of the fit. Source: the Kubernetes API reference (Container:
// command, args, env, resources; the NVIDIA device plugin's `nvidia.com/gpu` resource) and Kubeflow's PyTorchJob
// (pytorchReplicaSpecs). Pure: no I/O.
import { isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import type { ConfigFacts, Span } from '../facts';
import type { Env } from '../shell/fields';
import { findGpu } from '../../core';
import { YamlCtx, guarded } from './common';
import { envValue, scalarPart, withTaskScript, type ScriptPart } from './task-script';
import { numOf, strOf, type Entry } from './values';

/** Workload kinds whose pods run to completion or are run as a training job. */
const KINDS = /^kind\s*:\s*["']?(Job|Pod|CronJob|PyTorchJob)["']?\s*$/m;

/** Whether top-level keys are a Kubernetes workload of those kinds. */
export function isKubernetesYaml(keys: ReadonlySet<string>, text: string): boolean {
  return keys.has('apiVersion') && keys.has('kind') && keys.has('spec') && KINDS.test(text);
}

/** Where each kind keeps its pod's spec (its `containers` and `nodeSelector`). */
const POD_SPECS: readonly string[] = [
  'spec.template.spec',
  'spec',
  'spec.jobTemplate.spec.template.spec',
  'spec.pytorchReplicaSpecs.Master.template.spec',
  'spec.pytorchReplicaSpecs.Worker.template.spec',
];

/** A command that starts a training run, somewhere in a container's words. */
const TRAINING =
  /(?:^|\s|["'])(?:torchrun|accelerate|deepspeed|python3?|llamafactory-cli|tune|axolotl|trl|swift)(?=["'\s]|$)/;

/** The training container's command as a script: its items, and the stretch whose line breaks join them. */
export interface CommandScript {
  readonly parts: ScriptPart[];
  readonly join?: Span;
}

/** The command script of a workload's text (for the quick-fix writer); none when it has no training container. */
export function kubernetesScript(text: string): CommandScript {
  const ctx = new YamlCtx(text, { format: 'kubernetes-yaml', tool: 'torchrun', omegaconf: false });
  const container = trainingContainer(ctx);
  return container ? commandParts(text, [container.get('command'), container.get('args')]) : { parts: [] };
}

export function analyzeKubernetesYaml(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'kubernetes-yaml', tool: 'torchrun', omegaconf: false });
  let script: CommandScript = { parts: [] };
  const seeds: Env = new Map();
  const base = guarded(ctx, () => {
    const container = trainingContainer(ctx);
    if (!container) return;
    script = commandParts(text, [container.get('command'), container.get('args')]);
    environment(ctx, container.get('env'), seeds);
    const limits = ctx.sub(container.get('resources'));
    const gpus =
      ctx.sub(limits.get('limits')).get('nvidia.com/gpu') ?? ctx.sub(limits.get('requests')).get('nvidia.com/gpu');
    const count = gpus ? numOf(ctx.view(gpus)) : undefined;
    if (gpus && count !== undefined && Number.isInteger(count) && count > 0) ctx.add('gpusPerNode', gpus, count);
    selectedGpu(ctx);
  });
  return withTaskScript(base, text, script.parts, seeds, script.join);
}

/** The first container of the workload whose command and arguments hold a training launch. */
function trainingContainer(ctx: YamlCtx): Map<string, Entry> | undefined {
  for (const pod of POD_SPECS) {
    const entry = ctx.lookup(`${pod}.containers`);
    if (!entry?.node || !isSeq(entry.node)) continue;
    for (const item of entry.node.items) {
      if (!isMap(item)) continue;
      const c = ctx.entries(item as YAMLMap, entry.path);
      const words = [c.get('command'), c.get('args')].map((e) => (e ? ctx.raw(e) : '')).join(' ');
      if (TRAINING.test(words)) return c;
    }
  }
  return undefined;
}

/**
 * The items of `command` then `args` (a list of words, or one string), each a part of the script, with the stretch
 * from the first to the last: its line breaks and everything between the items blanked into one command line.
 */
function commandParts(text: string, entries: readonly (Entry | undefined)[]): CommandScript {
  const parts: ScriptPart[] = [];
  for (const e of entries) {
    const items: readonly unknown[] = e?.node && isSeq(e.node) ? e.node.items : e?.node ? [e.node] : [];
    for (const item of items) {
      const node = item as Node;
      if (!isScalar(node) || !node.range) continue;
      // A quoted item as written, its quotes the shell's; a plain or block item's text (scalarPart).
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
      const part = quoted ? { span: { start: node.range[0], end: node.range[1] }, fold: true } : scalarPart(text, node);
      if (part) parts.push({ ...part, ...(quoted ? {} : wordQuote(text, part.span)) });
    }
  }
  if (parts.length === 0) return { parts };
  return { parts, join: { start: parts[0].span.start, end: parts[parts.length - 1].span.end } };
}

/**
 * An unquoted item with spaces is one word of the command (`args: [torchrun --nproc_per_node 4 train.py]` after
 * `bash -c`): quoted in the script by the characters that separate it from the list (its `- ` or `[` before, its line
 * break or `,` after), with a quote the item does not hold.
 */
function wordQuote(text: string, span: Span): Pick<ScriptPart, 'quote'> {
  const value = text.slice(span.start, span.end);
  if (!/\s/.test(value.trim()) || span.start === 0 || span.end >= text.length) return {};
  const char = !value.includes("'") ? "'" : !/["$`\\]/.test(value) ? '"' : undefined;
  if (!char || !/[\s[,-]/.test(text[span.start - 1]) || !/[\s,\]]/.test(text[span.end])) return {};
  return { quote: { open: span.start - 1, close: span.end, char } };
}

/** `env:` as `name` / `value` pairs (a `valueFrom` is a secret or a field, not known here). */
function environment(ctx: YamlCtx, e: Entry | undefined, seeds: Env): void {
  if (!e?.node || !isSeq(e.node)) return;
  for (const item of e.node.items) {
    if (!isMap(item)) continue;
    const pair = ctx.entries(item as YAMLMap, e.path);
    const name = pair.get('name');
    const value = pair.get('value');
    const n = name ? strOf(ctx.view(name)) : undefined;
    if (!n || !value) continue;
    const v = ctx.view(value);
    if (v.t === 'str' || v.t === 'num' || v.t === 'bool')
      seeds.set(n, { ...envValue(String(v.v), value.valueSpan, ctx.raw(value)), nameSpan: name!.valueSpan });
  }
}

/** A node selector's value that names a catalog GPU (`gpu: b200`, `nvidia-tesla-a100`, `NVIDIA-H100-80GB-HBM3`). */
function selectedGpu(ctx: YamlCtx): void {
  for (const pod of POD_SPECS) {
    for (const [, e] of ctx.sub(ctx.lookup(`${pod}.nodeSelector`))) {
      const written = strOf(ctx.view(e));
      const name = written?.replace(/^nvidia[-_]/i, '').replace(/^tesla[-_]/i, '');
      const found = name ? findGpu(name) : undefined;
      if (found?.ok) {
        ctx.add('gpu', e, found.gpu.id);
        return;
      }
    }
  }
}
