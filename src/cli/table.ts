// The readable terminal report: components at the peak, the three totals, fit, assumptions and warnings.
import { RESERVED_RUNTIME_IDS, type Estimate } from '../core';
import { formatBytes, formatCount } from '../core';

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/** The pipeline's part of the layout line: its stages, or the GPUs one process splits the model over. */
function pipeline(lay: Estimate['layout']): string {
  if (lay.pipelineParallel === 1) return '';
  return lay.deviceMapSplit
    ? `, the model split over ${lay.pipelineParallel} GPUs per process (device_map)`
    : `, PP ${lay.pipelineParallel}`;
}

export function renderTable(e: Estimate): string {
  const L: string[] = [];
  const pg = e.perGpu;
  const lay = e.layout;
  L.push(
    `VRAM Lens: ${e.model}${e.gpu ? ` on ${e.gpu.id}` : ''} (${lay.world} GPU${lay.world > 1 ? 's' : ''}` +
      `${lay.tensorParallel > 1 ? `, TP ${lay.tensorParallel}` : ''}${pipeline(lay)}` +
      `${lay.contextParallel > 1 ? `, CP ${lay.contextParallel}` : ''}, data parallel ${lay.dataParallel}, global batch ${lay.globalBatch})`,
  );
  L.push(`${e.architecture}`);
  L.push(
    `parameters: ${formatCount(e.parameters.total)} total, ${formatCount(e.parameters.trainable)} trainable` +
      `${e.parameters.quantized ? `, ${formatCount(e.parameters.quantized)} quantized` : ''} (${e.parameters.source})`,
  );
  const phase = pg.phases.find((p) => p.phase === pg.phase);
  L.push(
    `peak phase: ${pg.phase}${phase ? ` (${phase.note})` : ''}${lay.pipelineParallel > 1 ? `, pipeline stage ${pg.stage}` : ''}`,
  );
  L.push('');
  const w = Math.max(28, ...pg.components.map((c) => c.label.length)) + 2;
  L.push(`${pad('component', w)}${lpad('per GPU', 10)}  formula`);
  for (const c of pg.components) {
    if (c.bytes === 0) continue;
    L.push(`${pad(c.label, w)}${lpad(formatBytes(c.bytes), 10)}  ${c.formula}`);
  }
  L.push(`${pad('= peak allocated', w)}${lpad(formatBytes(pg.peakBytes), 10)}  torch.cuda.max_memory_allocated`);
  for (const r of pg.runtime.filter((x) => RESERVED_RUNTIME_IDS.has(x.id)))
    L.push(`${pad(`+ ${r.label}`, w)}${lpad(formatBytes(r.bytes), 10)}  ${r.formula}`);
  L.push(`${pad('= reserved', w)}${lpad(formatBytes(pg.reservedBytes), 10)}  torch.cuda.max_memory_reserved`);
  for (const r of pg.runtime.filter((x) => !RESERVED_RUNTIME_IDS.has(x.id)))
    L.push(`${pad(`+ ${r.label}`, w)}${lpad(formatBytes(r.bytes), 10)}  ${r.formula}`);
  L.push(`${pad('= device (nvidia-smi)', w)}${lpad(formatBytes(pg.deviceBytes), 10)}`);
  const vl = pg.variableLengths;
  if (vl && vl.cacheBytes > 0) {
    L.push(
      `variable-length batches: over a run reserved grows to about ${formatBytes(vl.reservedBytes)} or more ` +
        `(nvidia-smi ${formatBytes(vl.deviceBytes)}): +${formatBytes(vl.cacheBytes)} ${vl.formula},`,
    );
    L.push(
      '  more or less depending on the order of lengths; the allocator frees that cache before running out of memory, so the fit below does not count it',
    );
  }
  L.push('');
  L.push('phases: ' + pg.phases.map((p) => `${p.phase} ${formatBytes(p.allocatedBytes)}`).join(', '));
  if (e.cpuBytes > 0 || e.nvmeBytes > 0)
    L.push(
      `host per node: RAM ${formatBytes(e.cpuBytes)}${e.nvmeBytes > 0 ? `, NVMe ${formatBytes(e.nvmeBytes)}` : ''} (offloaded state)`,
    );
  if (e.gpu) {
    const verdict = e.fits ? 'FITS' : 'DOES NOT FIT';
    const paged = pg.pagedToHostBytes
      ? ` with ${formatBytes(pg.pagedToHostBytes)} of the paged optimizer state in host RAM (paged in and out at each step)`
      : '';
    L.push(
      `${e.gpu.id}: ${formatBytes(pg.deviceBytes)} of ${formatBytes(e.gpu.memoryBytes)} usable: ${verdict}${paged}, ` +
        `headroom ${formatBytes(e.headroomBytes ?? 0)}`,
    );
  } else {
    L.push('no GPU chosen: give --gpu (e.g. A100-80GB, RTX-4090, 24GiB) to check the fit');
  }
  if (e.assumptions.length > 0) {
    L.push('');
    L.push('assumptions (not in your files):');
    for (const a of e.assumptions) L.push(`  ${a.key} = ${a.value}  [${a.source}]`);
  }
  if (e.warnings.length > 0) {
    L.push('');
    L.push('warnings:');
    for (const x of e.warnings) L.push(`  ${x.key}: ${x.message}`);
  }
  return L.join('\n');
}
