#!/usr/bin/env node
// Replays the allocation sequences the truth harness dumps (point.py --dump-trace DIR) through the estimator's model
// of PyTorch's CUDA caching allocator (src/core/terms/allocator.ts), and sets the reserved memory it gives beside the
// estimator's reserved figure for the same scenario. The sequence is the real one (transformers / PEFT / Trainer on
// the CPU, every storage the profiler saw, in time order); the reserved figure is the allocator MODEL's, not a GPU's.
//
//   node tools/truth/replay.mjs tools/truth/traces/replay/*.trace.json          # a table
//   node tools/truth/replay.mjs --json TRACE...                                 # one JSON object per trace
//   node tools/truth/replay.mjs --detail TRACE...                               # where the cached bytes sit
//   node tools/truth/replay.mjs --zero3-stream TRACE...                         # DeepSpeed's all-gather stream apart
//
// A trace from a GPU (gpu/run.py --trace: the CUDA allocator's own history) also carries the reserved bytes the GPU
// reported in its measured step; the row then sets the model's replay and the estimator beside that figure.
//
// Replays per trace, each from a cold allocator; the tensors alive where a replay begins (weights, optimizer state,
// the batch) are allocated first, in the order the run allocated them (as a load would place them):
// - step:    the measured step alone;
// - 2 steps: the step before it and the measured step, so the cache the first leaves serves the second;
// - run:     from the first step (the model as loaded) to the end of the measured step: step 0 creates AdamW's state
//            among the blocks its own forward and backward freed, as on a GPU;
// - build:   every record from before the model was built (--detail only: the CPU build's own temporaries, such as
//            an untied head freed when the weights are tied, are not what a load onto a GPU allocates).
// Reported: the peak of the requested bytes in the measured step (equal to the harness's measured peak), the model's
// allocated bytes there (blocks: sizes rounded to 512 B, and a block whose rest would be <= 1 MiB handed out whole)
// and its peak reserved (segments obtained from the driver; with no memory limit the
// allocator never releases them, so this is also the reserved figure at the end), and the reserved overhead as a
// share of the bytes the measured step allocates and frees (its peak less what is alive when it begins), which is
// what the estimator's flat 5 % multiplies (src/core/estimate/runtime.ts ALLOCATOR_FRAGMENTATION).
// The estimator's core is bundled on the fly with esbuild into tools/truth/out/replay-core.cjs. The replay reads the
// allocator's free-block pools of the default stream (`streams`, private in TypeScript only) to see where the cached bytes sit.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const MiB = 1 << 20;
const SMALL_SIZE = 1 << 20;
const MIN_LARGE_ALLOC = 10 << 20;

async function loadCore() {
  const outfile = path.join(here, 'out', 'replay-core.cjs');
  await esbuild.build({
    stdin: {
      contents:
        "export { estimate } from './src/core/estimate'; export { TrainingSetupSchema } from './src/core/setup';" +
        "export { CachingAllocator, roundSize } from './src/core/terms/allocator';" +
        "export { findGpu } from './src/core/lookup';",
      resolveDir: repo,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return createRequire(import.meta.url)(outfile);
}

/** Size class of a request: the small pool (<= 1 MiB), the 20 MiB segments (< 10 MiB), or a segment of its own. */
function sizeClass(bytes) {
  if (bytes <= SMALL_SIZE) return 'small';
  if (bytes < MIN_LARGE_ALLOC) return 'mid';
  return 'large';
}

function markIndex(events, name) {
  const i = events.findIndex((e) => e === name);
  if (i < 0) throw new Error(`no mark ${name}`);
  return i;
}

/** Live storages just before event `from`: address -> [bytes, op], in the order they were allocated. */
function liveAt(events, from) {
  const live = new Map();
  for (let i = 0; i < from; i++) {
    const e = events[i];
    if (typeof e === 'string') continue;
    if (e[0] > 0) live.set(e[1], e);
    else live.delete(e[1]);
  }
  return live;
}

/**
 * Free blocks of the model's pools at this instant: size, the size and class of their segment (small 2 MiB, mid
 * 20 MiB, large: a segment of its own size), and the largest storage that last occupied them (`freed`: address ->
 * [bytes, op] of the last storage freed at that address).
 */
function freeBlocks(A, freed, ops) {
  const addrs = [...freed.keys()].sort((a, b) => a - b);
  const out = [];
  for (const key of ['small', 'large']) {
    for (const b of defaultPools(A)[key]) {
      let head = b;
      while (head.prev) head = head.prev;
      let seg = 0;
      for (let x = head; x; x = x.next) seg += x.size;
      let last = null;
      for (let i = lowerBound(addrs, b.addr); i < addrs.length && addrs[i] < b.addr + b.size; i++) {
        const f = freed.get(addrs[i]);
        if (!last || f[0] > last[0]) last = f;
      }
      const kind = key === 'small' ? 'small' : seg === 20 * MiB ? 'mid' : 'large';
      const lastBytes = last ? last[0] : 0;
      out.push({
        size: b.size,
        segment: seg,
        kind,
        lastBytes,
        last: last ? `${ops[last[1]]} (${mb(last[0])} MB)` : 'split remainder (no storage freed here)',
      });
    }
  }
  return out.sort((a, b) => b.size - a.size);
}

/** The allocator model's free blocks of the default stream (its private `streams` map), as arrays. */
function defaultPools(A) {
  const pools = A.streams.get(0);
  return pools ? { small: [...pools.small.all()], large: [...pools.large.all()] } : { small: [], large: [] };
}

function lowerBound(xs, x) {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sumBy(items, key, value) {
  const out = {};
  for (const it of items) out[it[key]] = (out[it[key]] ?? 0) + value(it);
  return out;
}

/**
 * Replays events[from, to) through a fresh CachingAllocator, after allocating what is alive at `from` (in the order
 * it was allocated, as a load would place it). `peakFrom` is where the measured step begins: its allocated peak is
 * where the cached free bytes are looked at. `stop`, when given, ends the replay after that event (a snapshot).
 */
function replay(core, trace, from, to, peakFrom, stop, sideStream) {
  const { events, ops } = trace;
  const A = new core.CachingAllocator();
  // --zero3-stream: the allocations of DeepSpeed's all-gather stream in a pool of their own (a second allocator).
  const G = sideStream ? new core.CachingAllocator() : null;
  const onSide = (bytes, op) => G !== null && sideStream(ops[op], bytes);
  // A GPU history names each allocation's stream (a fourth element, absent for the default stream): the CUDA caching
  // allocator hands a block only to requests of the stream it was allocated on, so each stream gets its own pools.
  const streams = new Map();
  const streamAllocator = (stream) => {
    if (!streams.has(stream)) streams.set(stream, new core.CachingAllocator());
    return streams.get(stream);
  };
  const sides = () => (G ? G.reserved : 0) + [...streams.values()].reduce((n, s) => n + s.reserved, 0);
  const reservedNow = () => A.reserved + sides();
  let maxReserved = 0;
  const handles = new Map();
  const freed = new Map();
  const heads = []; // the first block of each segment: it stays the first (merges keep the left block)
  let raw = 0;
  const segments = [];
  const malloc = (bytes, addr, op, where, stream) => {
    const side = stream ? streamAllocator(stream) : where !== 'alive at start' && onSide(bytes, op) ? G : null;
    if (side) {
      handles.set(addr, [side.malloc(bytes), bytes, op, side]);
      maxReserved = Math.max(maxReserved, reservedNow());
      raw += bytes;
      return;
    }
    const before = A.reserved;
    const pool = bytes <= SMALL_SIZE ? defaultPools(A).small : defaultPools(A).large;
    const rounded = core.roundSize(bytes);
    // A miss: no cached block holds the request (best fit takes the smallest that does).
    const miss = !pool.some((b) => b.size >= rounded);
    const cachedFree = miss ? pool.reduce((s, b) => s + b.size, 0) : 0;
    const h = A.malloc(bytes);
    maxReserved = Math.max(maxReserved, reservedNow());
    handles.set(addr, [h, bytes, op, A]);
    freed.delete(h.addr);
    raw += bytes;
    if (A.reserved > before) {
      heads.push(h);
      segments.push({
        bytes: A.reserved - before,
        request: bytes,
        kind: sizeClass(bytes),
        op: ops[op],
        where,
        // Enough bytes were cached in the pool, but in no block big enough: fragmentation, not growth.
        fragmented: cachedFree >= rounded,
      });
    }
  };
  const live = liveAt(events, from);
  for (const [addr, e] of live) malloc(e[0], addr, e[2], 'alive at start', e[3]);
  const startRaw = raw;
  let where = 'start';
  let peak = { raw: -1 };
  const reservedAt = {};
  const last = stop ?? to - 1;
  for (let i = from; i <= last; i++) {
    const e = events[i];
    if (typeof e === 'string') {
      where = e;
      if (e.startsWith('step_end:') || e.startsWith('step_begin:')) reservedAt[e] = reservedNow();
      continue;
    }
    if (e[0] > 0) malloc(e[0], e[1], e[2], where, e[3]);
    else {
      const h = handles.get(e[1]);
      if (h === undefined) continue; // freed storage allocated before the profile (dropped by the harness too)
      h[3].free(h[0]);
      if (h[3] === A) freed.set(h[0].addr, [h[1], h[2]]);
      handles.delete(e[1]);
      raw += e[0];
    }
    if (i >= peakFrom && raw > peak.raw)
      peak = { raw, index: i, where, allocated: A.allocated + (G ? G.allocated : 0), reserved: reservedNow() };
    maxReserved = Math.max(maxReserved, reservedNow());
  }
  const result = {
    startRaw,
    rawPeak: peak.raw,
    peakAllocated: A.peakAllocated,
    peakReserved: G || streams.size > 0 ? maxReserved : A.peakReserved,
    sideReserved: sides(),
    reservedAt,
    peak,
    segments,
  };
  if (stop !== undefined) {
    result.free = freeBlocks(A, freed, ops);
    result.reservedByClass = sumBy(heads.map(segmentOf), 'kind', (g) => g.size);
  }
  return result;
}

/** Size and class of the segment whose first block is `head`. */
function segmentOf(head) {
  let size = 0;
  for (let x = head; x; x = x.next) size += x.size;
  return { size, kind: head.small ? 'small' : size === 20 * MiB ? 'mid' : 'large' };
}

/** A replay, then the same replay again up to its allocated peak, to see where the cached free bytes sit then. */
function replayWindow(core, trace, from, to, peakFrom, logitsBytes, sideStream) {
  const r = replay(core, trace, from, to, peakFrom, undefined, sideStream);
  const at = replay(core, trace, from, to, peakFrom, r.peak.index, sideStream);
  const free = at.free;
  return {
    ...r,
    atPeak: {
      where: r.peak.where,
      reserved: r.peak.reserved,
      allocated: r.peak.allocated,
      cachedFree: sumBy(free, 'kind', (b) => b.size),
      // The 16-bit logits' block: freed before the loss's fp32 buffers (twice its size), which cannot use it.
      logitsBlockFree: free.filter((b) => b.lastBytes === logitsBytes).reduce((n, b) => n + b.size, 0),
      largestFree: free.slice(0, 6).map((b) => [b.size, b.segment, b.last]),
      freeByLastOccupant: Object.entries(sumBy(free, 'last', (b) => b.size))
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6),
      segmentsByClass: at.reservedByClass,
    },
  };
}

/** The estimate of the trace's scenario (without the harness's own keys), for the GPU it ran on when it names one. */
function estimatorOf(core, scenario, gpuName) {
  const setup = Object.fromEntries(Object.entries(scenario).filter(([k]) => k !== 'model' && k !== 'harness'));
  const gpu = gpuName ? core.findGpu(gpuName) : undefined;
  const r = core.estimate(core.TrainingSetupSchema.parse(setup), gpu?.ok ? { gpu: gpu.gpu } : {});
  if (!r.ok) return { error: JSON.stringify(r.error ?? r) };
  const g = r.estimate.perGpu;
  const reserve = g.runtime.find((t) => t.id === 'allocator-reserve')?.bytes ?? 0;
  return { peakBytes: g.peakBytes, reservedBytes: g.reservedBytes, reserve, phase: g.phase };
}

/** Segments made in the window, by size class and by the operator that asked for them. */
function segmentSummary(segments) {
  const inStep = segments.filter((s) => s.where !== 'alive at start');
  const byClass = {};
  for (const s of inStep) {
    const k = `${s.kind}${s.fragmented ? ' (fragmented)' : ''}`;
    byClass[k] ??= { count: 0, bytes: 0 };
    byClass[k].count++;
    byClass[k].bytes += s.bytes;
  }
  const byOp = {};
  for (const s of inStep) {
    const k = `${s.kind} ${s.op.split(' < ').slice(0, 2).join(' < ')} @${s.where}`;
    byOp[k] ??= { count: 0, bytes: 0 };
    byOp[k].count++;
    byOp[k].bytes += s.bytes;
  }
  const top = Object.entries(byOp)
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .slice(0, 8);
  const atStart = segments.filter((s) => s.where === 'alive at start').reduce((n, s) => n + s.bytes, 0);
  return { atStart, byClass, top };
}

/**
 * DeepSpeed ZeRO-3's allocations on its all-gather stream (overlap_comm): each prefetch's flat buffer (a bare
 * aten::empty in the forward, under PreBackwardFunctionForModule in the backward) and the parameters copied out of it
 * (a bare aten::cat; transformers' own top-level cats, the rotary halves, are T x h x 2 B).
 */
function zero3GatherStream(trace) {
  const s = trace.scenario;
  const rotary = 2 * (s.micro_batch_size ?? 1) * (s.seq_len ?? 0) * s.architecture.hidden_size;
  return (op, bytes) =>
    op === 'aten::empty' ||
    op.startsWith('aten::empty < PreBackwardFunctionForModule') ||
    (op === 'aten::cat' && bytes !== rotary);
}

function analyse(core, trace, streams) {
  const ev = trace.events;
  const m = trace.measuredStep;
  const begin = markIndex(ev, `step_begin:${m}`);
  const end = markIndex(ev, `step_end:${m}`) + 1;
  const s = trace.scenario;
  const logits = 2 * (s.micro_batch_size ?? 1) * (s.seq_len ?? 0) * s.architecture.vocab_size;
  const side = streams ? zero3GatherStream(trace) : undefined;
  const window = (from) => replayWindow(core, trace, from, end, begin, logits, side);
  const windows = {
    step: window(begin),
    twoSteps: m >= 1 ? window(markIndex(ev, `step_begin:${m - 1}`)) : null,
    run: window(markIndex(ev, 'step_begin:0')),
    build: window(0),
  };
  const churn = trace.peakBytes - windows.step.startRaw;
  const out = {
    id: trace.id,
    measuredPeak: trace.peakBytes,
    peakPhase: trace.peakPhase,
    aliveAtStart: windows.step.startRaw,
    churn,
    estimator: estimatorOf(core, trace.scenario, trace.gpu),
    // A GPU trace (gpu/run.py --trace) carries what the CUDA allocator itself reserved in the measured step.
    gpuReserved: trace.gpuMaxReservedBytes,
  };
  for (const [k, w] of Object.entries(windows)) {
    if (!w) continue;
    out[k] = {
      rawPeak: w.rawPeak,
      peakAllocated: w.peakAllocated,
      peakReserved: w.peakReserved,
      ratio: w.peakReserved / trace.peakBytes,
      overheadOfChurn: (w.peakReserved - trace.peakBytes) / churn,
      reservedAt: w.reservedAt,
      atPeak: w.atPeak,
      growthAfterPeak: w.peakReserved - w.peak.reserved,
      segments: segmentSummary(w.segments),
    };
  }
  return out;
}

const mb = (b) => (b / 1e6).toFixed(1);
const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;

function printRow(a) {
  const e = a.estimator;
  const check = a.step.rawPeak === a.measuredPeak ? 'ok' : `MISMATCH ${a.step.rawPeak}`;
  const cell = (w) => (w ? `${mb(w.peakReserved)} (x${w.ratio.toFixed(3)}, ${pct(w.overheadOfChurn)})` : 'n/a');
  const ref = a.run;
  console.log(
    `| ${a.id} | ${mb(a.measuredPeak)} (${check}) | ${mb(a.churn)} | ${cell(a.step)} | ${cell(a.twoSteps)} | ` +
      `${cell(a.run)} | ${mb(a.step.atPeak.logitsBlockFree)} | ` +
      (e.error
        ? `error ${e.error} |`
        : `${mb(e.peakBytes)} / ${mb(e.reservedBytes)} (x${(e.reservedBytes / e.peakBytes).toFixed(3)}) | ` +
          `${pct((e.reservedBytes - ref.peakReserved) / ref.peakReserved)} |`) +
      (a.gpuReserved
        ? ` GPU reserved ${mb(a.gpuReserved)}: the model's replay ${pct((a.twoSteps.peakReserved - a.gpuReserved) / a.gpuReserved)}, ` +
          `the estimator ${pct((e.reservedBytes - a.gpuReserved) / a.gpuReserved)} |`
        : ''),
  );
}

function printDetail(a) {
  console.log(
    `\n## ${a.id} (peak allocated ${mb(a.measuredPeak)} MB in ${a.peakPhase}; ${mb(a.aliveAtStart)} MB alive at the step's start)`,
  );
  for (const name of ['step', 'twoSteps', 'run', 'build']) {
    const r = a[name];
    if (!r) continue;
    const p = r.atPeak;
    const kv = (o) =>
      Object.entries(o)
        .map(([k, v]) => `${k} ${mb(v)}`)
        .join(', ');
    console.log(
      `${name}: reserved ${mb(r.peakReserved)} MB (${Object.entries(r.reservedAt)
        .map(([k, v]) => `${k} ${mb(v)}`)
        .join(', ')})\n` +
        `  at the allocated peak (${p.where}): reserved ${mb(p.reserved)}, allocated ${mb(p.allocated)} (rounded), ` +
        `segments [${kv(p.segmentsByClass)}], cached free [${kv(p.cachedFree)}]; reserved later ${mb(r.growthAfterPeak)}`,
    );
    for (const [s, g, last] of p.largestFree)
      console.log(`    free ${mb(s).padStart(7)} of a ${mb(g)} MB segment, last ${last}`);
    console.log('  cached free at the peak by last occupant:');
    for (const [k, v] of p.freeByLastOccupant) console.log(`    ${mb(v).padStart(8)} MB  ${k}`);
    const seg = r.segments;
    console.log(
      `  segments for what is alive at the start ${mb(seg.atStart)} MB; made in the window: ` +
        Object.entries(seg.byClass)
          .map(([k, v]) => `${k} ${v.count} = ${mb(v.bytes)} MB`)
          .join(', '),
    );
    for (const [k, v] of seg.top) console.log(`    ${mb(v.bytes).padStart(8)} MB  ${v.count} x ${k}`);
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const files = argv.filter((a) => !a.startsWith('--'));
  if (files.length === 0) {
    console.error('usage: node tools/truth/replay.mjs [--json] [--detail] [--zero3-stream] TRACE.json...');
    process.exit(2);
  }
  const core = await loadCore();
  const streams = flags.has('--zero3-stream');
  if (flags.has('--json')) {
    // One trace at a time: a directory of GPU histories does not fit in memory at once.
    for (const f of files) console.log(JSON.stringify(analyse(core, JSON.parse(fs.readFileSync(f, 'utf8')), streams)));
    return;
  }
  const results = files.map((f) => analyse(core, JSON.parse(fs.readFileSync(f, 'utf8')), streams));
  console.log(
    '| point | peak allocated MB (= harness) | churn MB | reserved: step | reserved: 2 steps | reserved: run | ' +
      '16-bit logits block cached at the peak | estimator peak / reserved MB | estimator vs run |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const a of results) printRow(a);
  if (flags.has('--detail')) for (const a of results) printDetail(a);
}

await main();
