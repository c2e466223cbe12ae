// The wrappers a launch line runs its command under (srun, mpirun, uv run, a container runtime, env, nohup, ...): where
// the command starts, and the variables the wrappers set for it. Pure: no I/O, no node:* and no 'vscode'.
import { skipOpts, pieceRange } from './args';
import { type Env, type Field, subSpan } from './fields';
import { DOCKER_VALUE, MPIRUN_VALUE, RUNNER_VALUE, SINGULARITY_VALUE, SRUN_VALUE } from './flags';
import { sbatchFacts, srunOptions } from './sbatch';

export const basename = (s: string): string => s.slice(s.lastIndexOf('/') + 1);

/** Docker and Podman: `run` / `exec` put the command after the image or container. */
const CONTAINERS: ReadonlySet<string> = new Set(['docker', 'podman']);

/**
 * The command under the wrappers that only run it: srun / salloc, `ray job submit ... --`, uv / poetry / pipenv /
 * conda run, mpirun, a container runtime's exec or run, nohup / time / exec and the like, numactl / taskset, and `env`
 * with the variables it sets.
 * Undefined: a Ray job without its `--`.
 */
export function skipWrappers(
  input: readonly Field[],
  envIn: Env,
): { i: number; env: Env; fields: readonly Field[] } | undefined {
  // The command's words: the line's, or with a container's `--entrypoint` put in place of its image.
  let fields = input;
  let env = envIn;
  let i = 0;
  for (let guard = 0; guard < 16 && i < fields.length; guard++) {
    const w = basename(fields[i].text);
    if (w === 'srun' || w === 'salloc') {
      const command = skipOpts(fields, i + 1, SRUN_VALUE);
      // The step's nodes and GPUs are the SLURM_* variables of the command it starts (over the job's).
      const { seeds } = sbatchFacts(srunOptions(fields, i + 1, command));
      if (seeds.size > 0) env = new Map([...env, ...seeds]);
      i = command;
      continue;
    }
    if (w === 'ray' && fields[i + 1]?.text === 'job' && fields[i + 2]?.text === 'submit') {
      // `ray job submit [options] -- <entrypoint>`: the entrypoint runs on the Ray cluster.
      const dash = fields.findIndex((f, k) => k > i + 2 && f.text === '--');
      if (dash < 0) return undefined;
      i = dash + 1;
      continue;
    }
    // Environment runners: `uv run [opts] <cmd>`, `poetry run`, `pipenv run`, `conda run [-n env] <cmd>`.
    if ((w === 'uv' || w === 'poetry' || w === 'pipenv' || w === 'conda') && fields[i + 1]?.text === 'run') {
      const runner = fields[i];
      i += 2;
      while (i < fields.length && fields[i].text.startsWith('-')) {
        const opt = fields[i].text;
        // `uv run -m pkg.train`: uv runs the module with the project's Python (NovaSky-AI/SkyRL's launchers).
        if (w === 'uv' && (opt === '-m' || opt === '--module')) return pythonOf(fields, i, runner, env);
        i += !opt.includes('=') && RUNNER_VALUE.has(opt) ? 2 : 1;
      }
      // `uv run train.py`: a script, run with that Python.
      if (w === 'uv' && /\.py$/.test(fields[i]?.text ?? '')) return pythonOf(fields, i, runner, env);
      continue;
    }
    // `oumi distributed torchrun|accelerate ...`: Oumi runs that launcher with the rest of the line (oumi/cli/distributed_run.py).
    if (
      w === 'oumi' &&
      fields[i + 1]?.text === 'distributed' &&
      /^(torchrun|accelerate)$/.test(fields[i + 2]?.text ?? '')
    ) {
      i += 2;
      continue;
    }
    if (w === 'mpirun' || w === 'mpiexec') {
      i = skipOpts(fields, i + 1, MPIRUN_VALUE);
      continue;
    }
    if (['nohup', 'time', 'exec', 'stdbuf', 'nice', 'ionice', 'command', 'sudo', 'unbuffer', 'xvfb-run'].includes(w)) {
      i++;
      while (i < fields.length && fields[i].text.startsWith('-')) i += fields[i].text === '-n' ? 2 : 1;
      continue;
    }
    const container = containerCommand(fields, i, w);
    if (container) {
      ({ fields, i } = container);
      continue;
    }
    if (w === 'numactl' || w === 'taskset') {
      i++;
      let sawOpt = false;
      while (i < fields.length && fields[i].text.startsWith('-')) {
        sawOpt = true;
        i += fields[i].text.includes('=') ? 1 : 2;
      }
      if (w === 'taskset' && !sawOpt) i++;
      continue;
    }
    // `env X=1 cmd`, and `X=1 cmd` inside a string the shell reads again (`cmd="CUDA_VISIBLE_DEVICES=0,1 torchrun ...";
    // eval $cmd`, TIGER-AI-Lab/VLM2Vec), where the outer script's lexer did not take the assignment.
    const assigns = /^[A-Za-z_]\w*=/.test(fields[i].text);
    if (w === 'env' || assigns) {
      ({ i, env } = prefixAssignments(fields, assigns ? i : i + 1, env));
      continue;
    }
    break;
  }
  return { i, env, fields };
}

/** The words from `i` run by the Python a runner (`uv run`) stands for: a `python` word in the runner's place. */
function pythonOf(
  fields: readonly Field[],
  i: number,
  runner: Field,
  env: Env,
): { i: number; env: Env; fields: readonly Field[] } {
  const python: Field = { ...runner, text: 'python' };
  return { i, env, fields: [...fields.slice(0, i), python, ...fields.slice(i)] };
}

/**
 * A container runtime runs the command in its image: `singularity exec [opts] <image> <cmd>`, `docker run [opts]
 * <image> <cmd>`, `docker exec [opts] <container> <cmd>` (apptainer and podman alike); with `docker run --entrypoint
 * python3 <image> -m pkg.train ...` the image's arguments are the entry point's, put in the image's place. Undefined
 * where the words at `i` are no container's run.
 */
function containerCommand(
  fields: readonly Field[],
  i: number,
  w: string,
): { fields: readonly Field[]; i: number } | undefined {
  const sub = fields[i + 1]?.text;
  const singularity = (w === 'singularity' || w === 'apptainer') && sub === 'exec';
  if (!singularity && !(CONTAINERS.has(w) && (sub === 'run' || sub === 'exec'))) return undefined;
  const image = skipOpts(fields, i + 2, singularity ? SINGULARITY_VALUE : DOCKER_VALUE);
  const entry = singularity ? undefined : entrypoint(fields, i + 2, image);
  if (!entry || image >= fields.length) return { fields, i: image + 1 };
  return { fields: [...fields.slice(0, image), entry, ...fields.slice(image + 1)], i: image };
}

/** The program a container's `--entrypoint X` / `--entrypoint=X` among its options (from `from` to the image) names. */
function entrypoint(fields: readonly Field[], from: number, image: number): Field | undefined {
  for (let k = from; k < image; k++) {
    const t = fields[k].text;
    if (t === '--entrypoint') return fields[k + 1]?.text ? fields[k + 1] : undefined;
    if (t.startsWith('--entrypoint=') && t.length > 13) return { ...fields[k], text: t.slice(13) };
  }
  return undefined;
}

/** The `NAME=value` words from `i` (and `env`'s options among them), each exported to the command after them. */
function prefixAssignments(fields: readonly Field[], from: number, envIn: Env): { i: number; env: Env } {
  const env = new Map(envIn);
  let i = from;
  while (i < fields.length) {
    const f = fields[i];
    const m = /^([A-Za-z_]\w*)=/.exec(f.text);
    if (m) {
      env.set(m[1], {
        pieces: pieceRange(f, m[0].length, f.text.length),
        exported: true,
        nameSpan: subSpan(f, 0, m[1].length),
        valueSpan: subSpan(f, m[0].length, f.text.length),
      });
      i++;
    } else if (f.text.startsWith('-')) i++;
    else break;
  }
  return { i, env };
}
