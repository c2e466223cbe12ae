// The launchers of a training run (torchrun, deepspeed, accelerate launch, python and its launcher modules): where the
// line names the program they run, and the facts their own options give (processes, nodes, configs). Pure: no I/O.
import { msg, type Tool, type Unknown } from '../facts';
import type { Env, Field } from './fields';
import { spec, ACCELERATE_FLAGS, ACCELERATE_BOOL, TORCHRUN_BOOL, DEEPSPEED_BOOL, deviceCount } from './flags';
import { type Opt, type Consume, parseArgs } from './args';
import { emitVisible, visibleDevices } from './visible';
import type { CmdResult, Launch } from './launch';
import { basename } from './wrappers';
import { prefixedOption } from './abbreviations';

/** Where a launch line names the program it runs: the field of its script (or `-m`'s module) and the launcher. */
export interface LaunchedProgram {
  readonly scriptAt: number;
  readonly moduleName?: string;
  readonly launcherTool?: Tool;
}

/** Modules `python -m` runs that are a launcher. */
const LAUNCHER_MODULES: ReadonlyMap<string, 'torchrun' | 'accelerate' | 'deepspeed'> = new Map([
  ['torch.distributed.launch', 'torchrun'],
  ['torch.distributed.run', 'torchrun'],
  ['accelerate.commands.launch', 'accelerate'],
  ['deepspeed.launcher.runner', 'deepspeed'],
] as const);

const PYTHON = /^python[\d.]*$/;

/** `torchrun`, `deepspeed`, `accelerate launch`, `accelerate-launch` or `python`. */
export function isLauncherCommand(cmd: string, sub: string | undefined): boolean {
  return (
    cmd === 'torchrun' ||
    cmd === 'deepspeed' ||
    (cmd === 'accelerate' && sub === 'launch') ||
    cmd === 'accelerate-launch' ||
    PYTHON.test(cmd)
  );
}

/**
 * The program a launcher at `i` runs, its own options read as facts; undefined for `python -c`. `python -m` of a
 * launcher's module is that launcher.
 */
export function launcherProgram(
  l: Launch,
  fields: readonly Field[],
  i: number,
  env: Env,
  opaque: (f: Field) => void,
): LaunchedProgram | undefined {
  const cmd = basename(fields[i].text);
  let j = cmd === 'accelerate' ? i + 2 : i + 1;
  let kind: 'python' | 'torchrun' | 'accelerate' | 'deepspeed' =
    cmd === 'accelerate-launch' || cmd === 'accelerate' ? 'accelerate' : cmd === 'torchrun' ? 'torchrun' : 'deepspeed';
  let moduleName: string | undefined;
  if (PYTHON.test(cmd)) {
    const python = pythonOptions(fields, j);
    if (!python) return undefined;
    j = python.next;
    const launcher = python.module === undefined ? undefined : LAUNCHER_MODULES.get(python.module);
    kind = launcher ?? 'python';
    moduleName = launcher ? undefined : python.module;
    if (kind === 'python') {
      // One process: a model it loads with device_map="auto" spreads over every GPU it sees (resolve/parallelism.ts).
      const vis = visibleDevices(env);
      if (vis?.count !== undefined && vis.count > 1) emitVisible(l, vis, 'visibleGpus', 'pytorch');
      return { scriptAt: python.module !== undefined ? j - 1 : j, moduleName };
    }
  }
  const bools = kind === 'torchrun' ? TORCHRUN_BOOL : kind === 'deepspeed' ? DEEPSPEED_BOOL : ACCELERATE_BOOL;
  const p = parseArgs(fields, j, launcherConsume(bools), true, false, opaque);
  l.tool(kind);
  if (kind === 'torchrun') torchrunFacts(l, p.opts, env);
  else if (kind === 'deepspeed') deepspeedFacts(l, p.opts, env, fields[i]);
  else accelerateFacts(l, p.opts, env, fields[i]);
  if (p.opts.some((o) => o.name === 'm' || o.name === 'module')) moduleName = fields[p.next]?.text;
  return { scriptAt: p.next, moduleName, launcherTool: kind };
}

/** Python's own options before the program: where they end, and `-m`'s module; undefined for `-c` (a string run). */
function pythonOptions(fields: readonly Field[], from: number): { next: number; module?: string } | undefined {
  let j = from;
  while (j < fields.length && /^-/.test(fields[j].text)) {
    const t = fields[j].text;
    if (t === '-c') return undefined;
    if (t === '-m') return { next: j + 2, module: fields[j + 1]?.text };
    j += t === '-W' || t === '-X' ? 2 : 1;
  }
  return { next: j };
}

/** A launcher's options: its boolean flags take no value, every other one takes the next field. */
export const launcherConsume =
  (bools: Set<string>) =>
  (name: string): Consume =>
    bools.has(name) ? 'never' : 'one';

/** What a launcher asked for every GPU of the node starts. */
export const ALL_GPUS: Unknown = { unknown: 'all visible GPUs' };

/**
 * torchrun's options (torch/distributed/run.py get_args_parser; each `--a-b` also `--a_b`), for argparse's
 * abbreviations: its ArgumentParser takes a unique prefix of an option for it (`--nnode=4` is --nnodes,
 * OFA-Sys/gsm8k-ScRel train_70b.sh).
 */
const TORCHRUN_OPTIONS = [
  'nnodes',
  'nproc_per_node',
  'rdzv_backend',
  'rdzv_endpoint',
  'rdzv_id',
  'rdzv_conf',
  'standalone',
  'max_restarts',
  'monitor_interval',
  'start_method',
  'event_log_handler',
  'role',
  'module',
  'no_python',
  'run_path',
  'log_dir',
  'redirects',
  'tee',
  'local_ranks_filter',
  'node_rank',
  'master_addr',
  'master_port',
  'local_addr',
  'logs_specs',
  'numa_binding',
  'virtual_local_rank',
];

/** A torchrun option as its parser takes it: the option itself, else the one option it is a prefix of. */
function torchrunOption(o: Opt): Opt {
  const option = o.name.length >= 2 ? prefixedOption(o.name, TORCHRUN_OPTIONS) : undefined;
  return option ? { ...o, name: option } : o;
}

export function torchrunFacts(l: Launch, given: readonly Opt[], env: Env): void {
  const opts = given.map(torchrunOption);
  for (const o of opts) {
    if (o.name === 'nproc_per_node') {
      if (!o.value) continue;
      if (o.value.unknown === undefined && /^(gpu|auto)$/i.test(o.value.text.trim())) {
        const vis = visibleDevices(env);
        l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, vis?.count ?? ALL_GPUS, 'torchrun');
      } else l.spec(spec('gpusPerNode', 'int'), o, 'torchrun');
    } else if (o.name === 'nnodes') {
      const m = o.value && o.value.unknown === undefined ? /^(\d+):(\d+)$/.exec(o.value.text.trim()) : null;
      if (m && o.value)
        l.fact(
          'nodes',
          o.rawKey,
          o.keySpan,
          o.value.span,
          m[1] === m[2] ? Number(m[1]) : { unknown: `elastic range of ${m[1]} to ${m[2]} nodes` },
          'torchrun',
        );
      else l.spec(spec('nodes', 'int'), o, 'torchrun');
    } else if (o.name === 'standalone' && !o.value) {
      l.fact('nodes', o.rawKey, o.keySpan, o.keySpan, 1, 'torchrun');
    }
  }
}

/** deepspeed launcher (deepspeedai/DeepSpeed@edaa722:deepspeed/launcher/runner.py:55-112, 452-465). */
function deepspeedFacts(l: Launch, opts: readonly Opt[], env: Env, launcher: Field): void {
  const has = (n: string): boolean => opts.some((o) => o.name === n);
  for (const o of opts) {
    if (o.name === 'num_gpus' || o.name === 'num_accelerators') {
      if (o.value && o.value.unknown === undefined && o.value.text.trim() === '-1')
        l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, ALL_GPUS, 'deepspeed');
      else l.spec(spec('gpusPerNode', 'int'), o, 'deepspeed');
    } else if (o.name === 'num_nodes') {
      if (o.value && o.value.unknown === undefined && o.value.text.trim() === '-1')
        l.fact('nodes', o.rawKey, o.keySpan, o.value.span, { unknown: 'all hosts in the hostfile' }, 'deepspeed');
      else l.spec(spec('nodes', 'int'), o, 'deepspeed');
    } else if ((o.name === 'include' || o.name === 'i') && o.value) {
      if (o.value.unknown !== undefined) {
        l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'deepspeed');
        continue;
      }
      const hosts = o.value.text
        .trim()
        .split('@')
        .filter((h) => h);
      const counts = hosts.map((h) => {
        const c = h.split(':')[1];
        return c === undefined ? undefined : deviceCount(c);
      });
      if (hosts.length > 1 && !has('num_nodes'))
        l.fact('nodes', o.rawKey, o.keySpan, o.value.span, hosts.length, 'deepspeed');
      const same = counts.every((c) => c !== undefined && c === counts[0]);
      l.fact(
        'gpusPerNode',
        o.rawKey,
        o.keySpan,
        o.value.span,
        same && counts[0] !== undefined ? counts[0] : { unknown: `the GPUs of ${o.value.text.trim()}` },
        'deepspeed',
      );
    } else if (
      (o.name === 'exclude' || o.name === 'e') &&
      o.value &&
      !has('num_gpus') &&
      !has('include') &&
      !has('i')
    ) {
      l.fact(
        'gpusPerNode',
        o.rawKey,
        o.keySpan,
        o.value.span,
        { unknown: 'all visible GPUs except the excluded ones' },
        'deepspeed',
      );
    } else if ((o.name === 'hostfile' || o.name === 'h') && o.value && !has('num_nodes')) {
      l.fact('nodes', o.rawKey, o.keySpan, o.value.span, { unknown: 'the hosts listed in the hostfile' }, 'deepspeed');
    }
  }
  const counted =
    has('num_gpus') || has('num_accelerators') || has('include') || has('i') || has('exclude') || has('e');
  if (!counted) {
    // runner.py turns CUDA_VISIBLE_DEVICES into --include localhost:<ids> only when no count flag is given; without it
    // the launcher counts the node's GPUs, which under Slurm are the job's or its step's (`srun --gpus-per-node=8
    // deepspeed ...`: justinphan3110/deepspeed_lora's scripts/alpaca_30B.sh).
    const slurm = visibleDevices(env, 'SLURM_GPUS_ON_NODE');
    const vis = has('num_nodes')
      ? undefined
      : (visibleDevices(env) ?? (slurm?.count !== undefined ? slurm : undefined));
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'deepspeed');
    else {
      // ArcticTraining's `arctic_training` passes its options on to DeepSpeed's launcher (arctic_training_cli.py).
      const name = basename(launcher.text);
      const what = name === 'deepspeed' ? name : `${name} (DeepSpeed's launcher)`;
      l.fact(
        'gpusPerNode',
        name,
        launcher.span,
        launcher.span,
        { unknown: `${what} without --num_gpus uses every GPU of the node` },
        'deepspeed',
      );
    }
  }
}

/** `accelerate launch` options; explicit flags win over the config file (accelerate@16cb6eb:src/accelerate/commands/launch.py). */
function accelerateFacts(l: Launch, opts: readonly Opt[], env: Env, launcher: Field): void {
  const has = (n: string): boolean => opts.some((o) => o.name === n);
  const fsdp2 = opts.some((o) => o.name === 'fsdp_version' && o.value?.text.trim() === '2');
  for (const o of opts) {
    if (o.name === 'config_file') {
      if (!o.value) continue;
      if (o.value.unknown !== undefined)
        l.notStatic(o.value.span, msg('{0}: {1}', o.rawKey, o.value.unknown), o.rawKey);
      else l.ref('config', o.value.text, o.value.span);
    } else if (o.name === 'deepspeed_config_file') {
      deepspeedRef(l, o, 'accelerate');
      if (!has('use_deepspeed') && !has('config_file')) deepspeedLeftToDefaultConfig(l, o);
    } else if (o.name === 'use_fsdp' && !o.value) {
      if (!has('fsdp_sharding_strategy')) l.fact('fsdp', o.rawKey, o.keySpan, o.keySpan, 'full_shard', 'accelerate');
    } else if (o.name === 'gpu_ids' && o.value && !has('num_processes')) {
      if (o.value.unknown !== undefined)
        l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, { unknown: o.value.unknown }, 'accelerate');
      else {
        const c = deviceCount(o.value.text);
        if (c !== undefined) l.fact('gpusPerNode', o.rawKey, o.keySpan, o.value.span, c, 'accelerate');
      }
    } else if (o.name === 'fsdp_use_orig_params' && fsdp2) {
      continue; // FSDP2 always computes with the original parameters
    } else {
      const s = ACCELERATE_FLAGS[o.name];
      if (s) l.spec(s, o, 'accelerate');
    }
  }
  if (!has('num_processes') && !has('gpu_ids')) {
    const vis = visibleDevices(env);
    if (vis) emitVisible(l, vis, 'gpusPerNode', 'accelerate');
    else if (!has('config_file') && !has('cpu')) allVisibleProcesses(l, launcher);
  }
}

/**
 * `--deepspeed_config_file` with neither --use_deepspeed nor --config_file: accelerate launch runs DeepSpeed only with
 * that flag or a config whose distributed_type is DEEPSPEED (launch.py _validate_launch_command), here the default
 * config `accelerate config` saved on the machine, which is not in the files. The estimate keeps the file's DeepSpeed,
 * said at the flag.
 */
function deepspeedLeftToDefaultConfig(l: Launch, o: Opt): void {
  l.r.problems.push({
    code: 'not-static',
    severity: 'warning',
    ...msg(
      '{0}: accelerate launch runs DeepSpeed only with --use_deepspeed or a config whose distributed_type is ' +
        "DEEPSPEED, and neither is in the files: the estimate takes the machine's default accelerate config to " +
        'select it; without one accelerate ignores this file and the run has no DeepSpeed (pass --use_deepspeed)',
      o.rawKey,
    ),
    span: o.keySpan,
    rawKey: o.rawKey,
  });
}

/**
 * `accelerate launch train.py` with neither --num_processes nor --config_file: the machine's default config if
 * `accelerate config` saved one, else one process per visible GPU (launch.py _validate_launch_command:
 * `args.num_processes = torch.cuda.device_count()`). Neither is in the files: not known, said at the launcher.
 */
function allVisibleProcesses(l: Launch, launcher: Field): void {
  l.fact(
    'gpusPerNode',
    launcher.text,
    launcher.span,
    launcher.span,
    {
      unknown:
        'accelerate launch without --num_processes or --config_file starts the processes of the default config ' +
        '`accelerate config` saved on the machine, else one per visible GPU',
    },
    'accelerate',
  );
}

/** A launcher's or script's DeepSpeed config option: the file it names, inline JSON, or a value not known statically. */
export function deepspeedRef(l: Launch, o: Opt, tool: Tool): void {
  if (!o.value) return;
  if (o.value.unknown !== undefined) {
    // The run's DeepSpeed config is a file VRAM Lens cannot follow: a located warning, not a silent drop.
    const span = o.value.span;
    l.r.facts.push({
      key: 'deepspeedConfig',
      rawKey: o.rawKey,
      value: { unknown: o.value.unknown },
      rawValue: l.slice(span),
      keySpan: o.keySpan,
      valueSpan: span,
      tool,
    });
    l.r.problems.push({
      code: 'reference-not-found',
      severity: 'warning',
      span,
      rawKey: o.rawKey,
      ...msg('not resolved: {0} ({1}); the DeepSpeed config is not read', l.slice(span), o.value.unknown),
    });
    return;
  }
  const v = o.value.text.trim();
  if (v.startsWith('{')) {
    l.fact('deepspeedConfig', o.rawKey, o.keySpan, o.value.span, '{inline json}', tool);
    return;
  }
  // `deepspeed=null` (a LLaMA-Factory override of its YAML's key, read as YAML): DeepSpeed off, no file named "null".
  if (/^(null|~)$/i.test(v)) {
    l.fact('zeroStage', o.rawKey, o.keySpan, o.value.span, 0, tool);
    return;
  }
  l.fact('deepspeedConfig', o.rawKey, o.keySpan, o.value.span, v, tool);
  l.ref('deepspeed', v, o.value.span);
}

/**
 * ArcticTraining's line, `arctic_training [train] run.yml [DeepSpeed launcher options]`: the config file, then the
 * DeepSpeed launcher's options it passes on (arctic_training_cli.py: parse_known_args, then deepspeed's runner, so
 * every GPU of the node unless --num_gpus says); `--launcher ray` starts Ray's workers instead, their count not in
 * the line. `process-data` only prepares the data: no training launch.
 */
export function arcticLaunch(
  l: Launch,
  fields: readonly Field[],
  i: number,
  env: Env,
  opaque: (f: Field) => void,
): CmdResult | undefined {
  const deepspeedConsume = launcherConsume(DEEPSPEED_BOOL);
  const consume = (name: string): Consume =>
    name === 'python_profile' || name === 'launcher' ? 'one' : deepspeedConsume(name);
  const p = parseArgs(fields, i + 1, consume, false, false, opaque);
  if (p.positionals[0]?.text === 'process-data') return undefined;
  l.tool('arctic-training');
  const config = p.positionals.find((f) => f.text !== 'train');
  if (config?.unknown !== undefined) l.notStatic(config.span, msg('{0}: {1}', 'config', config.unknown), 'config');
  else if (config) l.ref('config', config.text, config.span);
  const ray = p.opts.find((o) => o.name === 'launcher' && o.value?.text.trim() === 'ray');
  if (ray?.value)
    l.fact(
      'gpusPerNode',
      ray.rawKey,
      ray.keySpan,
      ray.value.span,
      { unknown: "Ray's workers, as many as its cluster gives" },
      'arctic-training',
    );
  else deepspeedFacts(l, p.opts, env, fields[i]);
  l.r.launcherTool = 'deepspeed';
  l.r.training = true;
  return l.r;
}
