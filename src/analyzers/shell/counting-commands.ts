// Commands a launch script counts its GPUs and nodes with: `NUM_GPUS=$(nvidia-smi -L | wc -l)` (`--list-gpus`,
// `--query-gpu=index --format=csv,noheader`), `python -c "import torch; print(torch.cuda.device_count())"`, and a
// Slurm job's `node_array=$(scontrol show hostnames $SLURM_JOB_NODELIST)` with `nnodes=$(echo $node_array | wc -w)`
// (simplescaling/s1's train/sft_slurm.sh). The GPUs are those of the machine the script runs on: under Slurm the job's,
// or its step's, on the node (SLURM_GPUS_ON_NODE from #SBATCH or srun's options, the allocation being all nvidia-smi
// sees); torch's count is CUDA_VISIBLE_DEVICES's where the script sets it. The host names are the job's nodes, one word
// each (SLURM_JOB_NUM_NODES): their names are not known, their count is. Anywhere else the machine is not in the
// files: unknown, said so. Pure: no I/O, no node:* and no 'vscode'.
import { type Env, type Piece, textOf, unknownOf } from './fields';
import { deviceCount } from './flags';

const NVIDIA_SMI =
  /^\$\(\s*nvidia-smi\s+(?:-L|--list-gpus|--query-gpu=[\w.,]+\s+--format=csv,noheader(?:,nounits)?)(?:\s+2>\s*\/dev\/null)?\s*\|\s*wc\s+-l\s*\)$/;
const TORCH_COUNT =
  /^\$\(\s*python3?\s+-c\s+(["'])\s*import torch\s*;\s*print\(\s*torch\.cuda\.device_count\(\)\s*\)\s*;?\s*\1\s*\)$/;
const HOSTNAMES =
  /^\$\(\s*scontrol\s+show\s+hostnames?\s+("?)\$\{?SLURM_(?:JOB_)?NODELIST\}?\1\s*(\|\s*wc\s+-[lw]\s*)?\)$/;
const WORD_COUNT = /^\$\(\s*echo\s+("?)\$\{?([A-Za-z_]\w*)\}?\1\s*\|\s*wc\s+-w\s*\)$/;

type Counted = { readonly text: string } | { readonly unknown: string };

/** What a counting `$(...)` gives, or why it is not known; undefined for any other command. */
export function countingCommand(sub: string, env: Env): Counted | undefined {
  if (TORCH_COUNT.test(sub) || NVIDIA_SMI.test(sub)) return gpuCount(sub, env);
  const hosts = HOSTNAMES.exec(sub);
  if (hosts) return jobNodes(sub, env, hosts[2] !== undefined);
  const words = WORD_COUNT.exec(sub);
  return words ? wordCount(words[2], env) : undefined;
}

function gpuCount(sub: string, env: Env): Counted {
  const visible = TORCH_COUNT.test(sub) ? known(env, 'CUDA_VISIBLE_DEVICES', true) : undefined;
  const n = visible === undefined ? undefined : deviceCount(visible);
  if (n !== undefined) return { text: String(n) };
  const slurm = known(env, 'SLURM_GPUS_ON_NODE');
  return slurm !== undefined ? { text: slurm } : notGiven(sub, 'the GPUs of the machine the script runs on');
}

/** `scontrol show hostnames $SLURM_JOB_NODELIST`: one word per node of the job; counted with `| wc -l`. */
function jobNodes(sub: string, env: Env, counted: boolean): Counted {
  const nodes = known(env, 'SLURM_JOB_NUM_NODES') ?? known(env, 'SLURM_NNODES');
  const n = nodes === undefined ? NaN : Number(nodes);
  if (!Number.isInteger(n) || n < 1) return notGiven(sub, "the job's nodes");
  if (counted) return { text: String(n) };
  return { text: Array.from({ length: n }, (_, k) => `node${k + 1}`).join(' ') };
}

/** `$(echo $X | wc -w)`: the words of X's value, where that is known. */
function wordCount(name: string, env: Env): Counted {
  const v = env.get(name);
  if (!v) return { unknown: `\`${name}\` is not set in this script` };
  const u = unknownOf(v.pieces);
  if (u !== undefined) return { unknown: u };
  return { text: String(textOf(v.pieces).split(/\s+/).filter(Boolean).length) };
}

function known(env: Env, name: string, exported = false): string | undefined {
  const v = env.get(name);
  if (!v || (exported && !v.exported) || unknownOf(v.pieces) !== undefined) return undefined;
  return textOf(v.pieces).trim();
}

function notGiven(sub: string, what: string): Counted {
  const shown = sub.length > 60 ? `${sub.slice(0, 57)}...` : sub;
  return { unknown: `\`${shown}\` counts ${what}, which these files do not give` };
}

/** The piece a counting `$(...)` expands to at its place: split into words where unquoted (the host names). */
export function countedPiece(
  counted: Counted,
  at: { readonly start: number; readonly end: number; readonly quoted?: boolean },
  split: boolean,
): Piece {
  const base = { start: at.start, end: at.end, exact: false, expanded: true, quoted: at.quoted };
  if ('unknown' in counted) return { ...base, text: '', unknown: counted.unknown };
  return { ...base, text: counted.text, split: !at.quoted && split };
}
