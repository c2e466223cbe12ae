// Another shell script run with arguments: `bash scripts/train_dpo.sh --sft_model_path meta-llama/Llama-3.2-3B-Instruct
// --bsz 2`, `sh ./sft.sh out run huggyllama/llama-7b`, `./finetune.sh`. The run is that script's: a reference the
// pipeline reads with the words passed and the variables this script exports (argv.ts). Pure: no I/O, no node:* and
// no 'vscode'.
import type { CanonicalKey, Reference, Tool } from '../facts';
import type { CmdResult } from './launch';
import { type Env, type Field, textOf, unknownOf } from './fields';

/** A shell script's name: `.sh` or `.bash`. */
export const SHELL_SCRIPT = /\.(?:sh|bash)$/;

/** The most exported variables passed on (a launch script sets a few dozen). */
const MAX_EXPORTED = 128;

/**
 * `bash [options] script.sh words...` (the shell's word at `at`), or `script.sh words...` (`at` is the script): the
 * script, with the words it is run with, as a reference; undefined when the script is not named statically.
 */
export function calledScript(fields: readonly Field[], at: number, env: Env, shell: boolean): CmdResult | undefined {
  let i = shell ? at + 1 : at;
  if (shell) while (i < fields.length && /^-[a-zA-Z]+$/.test(fields[i].text)) i++;
  const script = fields[i];
  if (!script || script.unknown !== undefined || script.opaque || !SHELL_SCRIPT.test(script.text)) return undefined;
  const words = fields.slice(i + 1).map((f) => (f.unknown === undefined && !f.opaque ? f.text : null));
  const ref: Reference = {
    kind: 'script',
    path: script.text,
    span: script.span,
    shell: { words, exported: exportedValues(env) },
  };
  return { facts: [], refs: [ref], problems: [], tools: [], training: false };
}

/**
 * The variables this script exports that are known statically, by name: what the script it runs sees; with `all`, every
 * variable set so far, which a file it sources sees (`source train_common.sh`, whose launch runs in this shell).
 */
export function exportedValues(env: Env, all = false): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const [name, v] of env) {
    if (out.length >= MAX_EXPORTED) break;
    if ((!v.exported && !all) || v.choices || v.elements || v.argv) continue;
    if (unknownOf(v.pieces) === undefined) out.push({ name, value: textOf(v.pieces) });
  }
  return out;
}

/** What a shell started by this one sees of its variables: the exported ones; the others unset, said so where used. */
export function exportedOnly(env: Env): Env {
  const out: Env = new Map();
  for (const [name, v] of env) {
    const at = v.valueSpan ?? v.nameSpan ?? { start: 0, end: 0 };
    const reason = `\`${name}\` is set in this script but not exported: the shell \`-c\` starts does not see it`;
    const pieces = [{ text: '', ...at, exact: false, unknown: reason }];
    out.set(name, v.exported ? v : { pieces, exported: false, nameSpan: v.nameSpan, valueSpan: v.valueSpan });
  }
  return out;
}

/**
 * The variables a launch line's script sees in its environment, known statically, on its script references: those the
 * script exports, and those its launcher sets for each process it starts.
 */
export function withEnvironment(r: CmdResult, env: Env): CmdResult {
  if (!r.refs.some((ref) => ref.kind === 'script')) return r;
  // The launcher sets its own over those it is started with.
  const set = launcherVariables(r);
  const environment = [...exportedValues(env).filter((v) => !set.some((x) => x.name === v.name)), ...set];
  if (environment.length === 0) return r;
  return { ...r, refs: r.refs.map((ref) => (ref.kind === 'script' ? { ...ref, environment } : ref)) };
}

/**
 * WORLD_SIZE and LOCAL_WORLD_SIZE as the line's launcher sets them for each process (torchrun and
 * torch.distributed.launch: nproc_per_node x nnodes, torch/distributed/run.py; the DeepSpeed launcher, launch.py;
 * Accelerate, its num_processes over every machine), where the line gives the counts statically: a script that reads
 * `int(os.environ.get("WORLD_SIZE", 1))` sees them, not its default.
 */
function launcherVariables(r: CmdResult): { name: string; value: string }[] {
  const count = (key: CanonicalKey, tool: Tool): number | undefined => {
    const f = r.facts.find((x) => x.key === key && x.tool === tool);
    return f && typeof f.value === 'number' && Number.isInteger(f.value) && f.value > 0 ? f.value : undefined;
  };
  for (const tool of ['torchrun', 'deepspeed'] as const) {
    const perNode = count('gpusPerNode', tool);
    if (perNode === undefined) continue;
    const nodes = r.facts.some((x) => x.key === 'nodes' && x.tool === tool) ? count('nodes', tool) : 1;
    if (nodes === undefined) return [];
    return sizes(perNode * nodes, perNode);
  }
  const world = count('worldSize', 'accelerate');
  if (world === undefined) return [];
  const machines = r.facts.some((x) => x.key === 'nodes' && x.tool === 'accelerate') ? count('nodes', 'accelerate') : 1;
  return machines === undefined || world % machines !== 0 ? [] : sizes(world, world / machines);
}

const sizes = (world: number, local: number): { name: string; value: string }[] => [
  { name: 'WORLD_SIZE', value: String(world) },
  { name: 'LOCAL_WORLD_SIZE', value: String(local) },
];
