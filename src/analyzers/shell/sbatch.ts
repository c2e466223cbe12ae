// #SBATCH directives: the job's node and GPU counts, also seeded as the SLURM_* variables srun would set. Pure: no
// I/O, no node:* and no 'vscode'.
import type { Span } from '../facts';
import { type Comment, isBlank } from './lexer';
import { type Env, type Field, subSpan } from './fields';

interface SbatchOpt {
  readonly name: string;
  readonly rawKey: string;
  readonly value: string;
  readonly keySpan: Span;
  readonly valueSpan: Span;
}

export function parseSbatch(text: string, comments: readonly Comment[]): SbatchOpt[] {
  const out: SbatchOpt[] = [];
  for (const c of comments) {
    if (!c.lineStart || !text.startsWith('#SBATCH', c.start)) continue;
    const body = text.slice(c.start + 7, c.end);
    if (body && !isBlank(body[0])) continue;
    const re = /\S+/g;
    const words: { w: string; start: number }[] = [];
    let m: RegExpExecArray | null;
    while ((m = re.exec(body)) !== null) {
      if (m[0].startsWith('#')) break;
      words.push({ w: m[0], start: c.start + 7 + m.index });
    }
    for (let k = 0; k < words.length; k++) {
      const { w, start } = words[k];
      if (!w.startsWith('-')) continue;
      const eq = w.indexOf('=');
      if (eq > 0) {
        out.push({
          name: w.slice(0, eq).replace(/^-+/, '').replace(/-/g, '_'),
          rawKey: w.slice(0, eq),
          value: w.slice(eq + 1),
          keySpan: { start, end: start + eq },
          valueSpan: { start: start + eq + 1, end: start + w.length },
        });
      } else if (words[k + 1] && !words[k + 1].w.startsWith('-')) {
        const v = words[k + 1];
        out.push({
          name: w.replace(/^-+/, '').replace(/-/g, '_'),
          rawKey: w,
          value: v.w,
          keySpan: { start, end: start + w.length },
          valueSpan: { start: v.start, end: v.start + v.w.length },
        });
        k++;
      }
    }
  }
  return out;
}

/**
 * The allocation options of an `srun` / `salloc` line (`srun --nodes=2 --gpus-per-task=8 ./train.sh`), fields `from` up
 * to the command at `to`, read as #SBATCH directives are: srun starts the command with the SLURM_* variables of the
 * step they ask for. A value not known statically is left out.
 */
export function srunOptions(fields: readonly Field[], from: number, to: number): SbatchOpt[] {
  const out: SbatchOpt[] = [];
  for (let k = from; k < to; k++) {
    const f = fields[k];
    if (!f.text.startsWith('-') || f.unknown !== undefined) continue;
    const eq = f.text.indexOf('=');
    const value = eq > 0 ? undefined : fields[k + 1];
    if (eq < 0 && (!value || k + 1 >= to || value.text.startsWith('-') || value.unknown !== undefined)) continue;
    const rawKey = eq > 0 ? f.text.slice(0, eq) : f.text;
    out.push({
      name: rawKey.replace(/^-+/, '').replace(/-/g, '_'),
      rawKey,
      value: eq > 0 ? f.text.slice(eq + 1) : value!.text,
      keySpan: eq > 0 ? subSpan(f, 0, eq) : f.span,
      valueSpan: eq > 0 ? subSpan(f, eq + 1, f.text.length) : value!.span,
    });
    if (eq < 0) k++;
  }
  return out;
}

interface SbatchFacts {
  nodes?: SbatchOpt & { n: number };
  gpusPerNode?: SbatchOpt & { n: number };
  seeds: Env;
}

export function sbatchFacts(opts: readonly SbatchOpt[]): SbatchFacts {
  const last = (...names: string[]): SbatchOpt | undefined => [...opts].reverse().find((o) => names.includes(o.name));
  const intOf = (o: SbatchOpt | undefined, re = /^(\d+)$/): (SbatchOpt & { n: number }) | undefined => {
    const m = o ? re.exec(o.value) : null;
    return o && m ? { ...o, n: Number(m[m.length - 1]) } : undefined;
  };
  const nodes = intOf(last('nodes', 'N'));
  const perNode =
    intOf(last('gpus_per_node'), /^(?:[\w-]+:)?(\d+)$/) ?? intOf(last('gres'), /(?:^|,)gpu(?::[\w-]+)?:(\d+)/);
  const tasksPerNode = intOf(last('ntasks_per_node'));
  const tasks = intOf(last('ntasks', 'n'));
  const perTask = intOf(last('gpus_per_task'), /^(?:[\w-]+:)?(\d+)$/);
  let gpusPerNode = perNode;
  const tpn = tasksPerNode?.n ?? (tasks && nodes && tasks.n % nodes.n === 0 ? tasks.n / nodes.n : undefined);
  if (!gpusPerNode && perTask && tpn !== undefined) gpusPerNode = { ...perTask, n: perTask.n * tpn };
  // --gpus / -G: the job's GPUs in all ("[type:]count"), spread evenly over its nodes (one unless --nodes says).
  const total = intOf(last('gpus', 'G'), /^(?:[\w-]+:)?(\d+)$/);
  const over = nodes?.n ?? 1;
  if (!gpusPerNode && total && total.n % over === 0) gpusPerNode = { ...total, n: total.n / over };
  const seeds: Env = new Map();
  const seed = (name: string, o: SbatchOpt | undefined, value?: number): void => {
    if (!o) return;
    const text = value !== undefined ? String(value) : o.value;
    seeds.set(name, {
      pieces: [{ text, start: o.valueSpan.start, end: o.valueSpan.end, exact: text === o.value }],
      exported: true,
      nameSpan: o.keySpan,
      valueSpan: o.valueSpan,
    });
  };
  seed('SLURM_NNODES', nodes);
  seed('SLURM_JOB_NUM_NODES', nodes);
  seed('SLURM_GPUS_PER_NODE', gpusPerNode, gpusPerNode?.n);
  seed('SLURM_GPUS_ON_NODE', gpusPerNode, gpusPerNode?.n);
  seed('SLURM_NTASKS_PER_NODE', tasksPerNode);
  seed('SLURM_NTASKS', tasks);
  return { nodes, gpusPerNode, seeds };
}
