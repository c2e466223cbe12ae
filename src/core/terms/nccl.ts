// NCCL's device memory outside PyTorch's caching allocator: each communicator's ring and tree buffers, the NVLink
// SHARP (NVLS) buffers NCCL binds to a multicast object on NVSwitch systems, and a one-rank communicator's own.
// Sources: NCCL src/include/device.h (protocol buffers), src/transport/nvls.cc (NVLS sizes, by release), NCCL issues
// #864 / #964 (memory per communicator), GPU truth for one rank (tools/truth/gpu). Pure.
// Docs: docs/estimate/runtime.md
import type { RuntimeTerm } from '../model';
import type { EstimateContext } from '../estimate/context';
import { MiB } from '../units';
import { olderThan } from '../util/version';

/** NCCL's bytes per connection: one buffer per protocol (nccl src/include/device.h). */
const NCCL_SIMPLE_BYTES = 4 * MiB; // NCCL_BUFFSIZE default
const NCCL_LL128_BYTES = 120 * 640 * 8 * 8; // NCCL_LL128_ELEMS_PER_THREAD x NCCL_LL128_MAX_NTHREADS x NCCL_STEPS x 8 B
const NCCL_LL_BYTES = 8 * 512 * 8 * 16; // NCCL_LL_LINES_PER_THREAD x NCCL_LL_MAX_NTHREADS x NCCL_STEPS x 16 B line
export const NCCL_CONNECTION_BYTES = NCCL_SIMPLE_BYTES + NCCL_LL128_BYTES + NCCL_LL_BYTES; // 9,633,792 B

/**
 * NCCL's device buffers on one GPU. Over NVLink / P2P every channel of a communicator connects the ring (to the next
 * rank) and the intra-node tree, a chain (up and down; one link with two ranks), and each connection holds a buffer
 * for each protocol: SIMPLE (NCCL_BUFFSIZE, 4 MiB), LL128 (4.69 MiB) and LL (0.5 MiB), 9.19 MiB. 16 channels is a low
 * count for NVLink (A100 / H100 NVSwitch systems open 16-32). Without P2P (PCIe consumer cards) the buffers of the
 * shared-memory transport live in host memory, and 4 channels x 2 x 4 MiB stays as the order of magnitude. Each
 * parallel dimension of more than one rank is a communicator of its own (NCCL issue #864: memory grows with the
 * communicators). Measured with PyTorch on 4 x A100 NVLink: 544 MB for a two-rank group, 688 MB for more (NCCL issue
 * #964); the buffers alone are 294 and 441 MiB, the rest being NCCL's kernels and work space.
 */
export function ncclBuffers(ctx: EstimateContext): RuntimeTerm {
  const sizes = communicatorSizes(ctx);
  const several = sizes.length > 1 ? `${sizes.length} communicators (${sizes.join(', ')} ranks): ` : '';
  const link = ctx.gpu?.spec?.peerLink?.kind;
  if ((ctx.gpu?.nvlink ?? (link === undefined ? undefined : link === 'nvlink')) === false) {
    return {
      id: 'nccl',
      label: 'NCCL communication buffers',
      bytes: sizes.length * 4 * 2 * 4 * MiB,
      formula: ctx.lean
        ? ''
        : `${several}${sizes.length > 1 ? `${sizes.length} x ` : ''}4 channels x 2 directions x 4 MiB ` +
          '(NCCL_BUFFSIZE; no P2P: the other protocol buffers are in host memory)',
    };
  }
  // The ring and the intra-node tree, a chain: up and down, or the one link of a two-rank group.
  const connections = sizes.reduce((t, n) => t + (n > 2 ? 3 : 2), 0);
  return {
    id: 'nccl',
    label: 'NCCL communication buffers',
    bytes: 16 * connections * NCCL_CONNECTION_BYTES,
    formula: ctx.lean
      ? ''
      : `${several}16 channels x ${connections} connections (ring, tree) x 9.19 MiB ` +
        '(SIMPLE 4 MiB + LL128 4.69 MiB + LL 0.5 MiB)',
  };
}

/**
 * The ranks of each communicator: one per parallel dimension of more than one rank, else one group of every process.
 * A device_map split is no communicator: its stages are one process's GPUs.
 */
function communicatorSizes(ctx: EstimateContext): number[] {
  const { dataParallel, tensorParallel, pipelineParallel, contextParallel, expertParallel } = ctx.layout;
  const pp = ctx.setup.pipeline_schedule === 'device_map' ? 1 : pipelineParallel;
  const groups = [dataParallel, tensorParallel, pp, contextParallel, expertParallel].filter((n) => n > 1);
  return groups.length > 0 ? groups : [processes(ctx)];
}

/** The run's processes: one per GPU, or one per device_map split of pipeline_parallel GPUs. */
export function processes(ctx: EstimateContext): number {
  const { world, pipelineParallel } = ctx.layout;
  return ctx.setup.pipeline_schedule === 'device_map' ? world / pipelineParallel : world;
}

/**
 * GPUs whose boards link them through NVSwitches with multicast (NVLink SHARP): the SXM H100 and H200 of HGX / DGX
 * systems and the B200. The PCIe and NVL H100 link pairs by bridges, without a switch.
 */
const NVLS_GPUS: ReadonlySet<string> = new Set(['H100-80GB', 'H200', 'B200']);

/** NCCL's NVLS buffer sizes by release, per channel and head: what nvls.cc binds to the multicast object. */
interface NvlsRelease {
  readonly nccl: string;
  /** Bytes per channel, per direction (2), per head: the SIMPLE buffer and, before 2.23, a 2 MiB head / tail area. */
  readonly perChannel: number;
  readonly formula: string;
}

/**
 * The NCCL release a PyTorch release ships (its wheels' nvidia-nccl-cu12 pin), as far as NVLS changed:
 * 2.1-2.4 ship NCCL 2.18-2.20 (buffSize NCCL_BUFFSIZE 4 MiB + memSize 2 MiB per channel and direction), 2.5-2.6 ship
 * 2.21.5 (NCCL_NVLS_CHUNKSIZE 128 KiB x NCCL_STEPS 8 = 1 MiB + 2 MiB), 2.7 and later ship 2.26+ (1 MiB, the head and
 * tail moved to a separate credit area of 64 B per channel). 2.0 ships 2.14, before NVLS (2.17).
 */
function nvlsRelease(pytorch: string | undefined): NvlsRelease | undefined {
  if (pytorch !== undefined && olderThan(pytorch, 2, 1)) return undefined;
  if (pytorch !== undefined && olderThan(pytorch, 2, 5))
    return { nccl: '2.18-2.20', perChannel: 6 * MiB, formula: '(NCCL_BUFFSIZE 4 MiB + 2 MiB head / tail)' };
  if (pytorch !== undefined && olderThan(pytorch, 2, 7))
    return { nccl: '2.21', perChannel: 3 * MiB, formula: '(NVLS chunk 128 KiB x 8 steps + 2 MiB head / tail)' };
  return { nccl: '2.26 or later', perChannel: 1 * MiB, formula: '(NVLS chunk 128 KiB x 8 steps)' };
}

/** NVLS channels on one node (NVLS_NCHANNELS): 16 on Hopper; 24 on a single Blackwell node (NCCL 2.27+). */
const nvlsChannels = (gpuId: string): number => (gpuId === 'B200' ? 24 : 16);

/**
 * NCCL's NVLink SHARP buffers (src/transport/nvls.cc, ncclNvlsSetup): on an NVSwitch system with more than two GPUs
 * on the node (ncclNvlsInit returns at gpuCount <= 2, and at more than one node from 2.20), each GPU binds
 * nvlsTotalSize = channels x 2 x (buffer per channel) x heads (one head per GPU of the node) of its own memory to the
 * multicast object, for the communicator's life. NeMo's launcher, JAX-Toolbox and SGLang turn NVLS off
 * (NCCL_NVLS_ENABLE=0) for that memory. Undefined where NVLS does not run.
 */
export function nvlsBuffers(ctx: EstimateContext): RuntimeTerm | undefined {
  const { setup } = ctx;
  // The catalog's entry: a GPU given by its memory keeps the name the user wrote as its id.
  const gpuId = ctx.gpu?.spec?.id ?? ctx.gpu?.id;
  if (!gpuId || !NVLS_GPUS.has(gpuId) || setup.nodes > 1 || setup.gpus_per_node <= 2) return undefined;
  const release = nvlsRelease(setup.pytorch_version);
  if (!release) return undefined;
  const channels = nvlsChannels(gpuId);
  const heads = setup.gpus_per_node;
  if (setup.pytorch_version === undefined && !ctx.lean) {
    ctx.notes.assumptions.push({
      key: 'pytorch_version',
      value: 'a current release (NCCL 2.26 or later)',
      source:
        "VRAM Lens default where no PyTorch release is given: NCCL's NVLink SHARP buffers on an NVSwitch system " +
        'are 6x larger with PyTorch 2.1-2.4 (NCCL 2.18-2.20) and 3x with 2.5-2.6 (NCCL 2.21); set pytorch_version',
    });
  }
  return {
    id: 'nccl-nvls',
    label: 'NCCL NVLink SHARP buffers',
    bytes: channels * 2 * release.perChannel * heads,
    formula: ctx.lean
      ? ''
      : `${channels} channels x 2 x ${release.perChannel / MiB} MiB ${release.formula} x ${heads} GPUs on the node ` +
        `(NCCL ${release.nccl} NVLS on ${gpuId} NVSwitch; NCCL_NVLS_ENABLE=0 frees it)`,
  };
}

/**
 * NCCL on one rank: FSDP or DeepSpeed launched on a single GPU still makes a process group, and its communicator has no
 * peer to connect to but holds device memory of its own all the same. GPU truth (H100, torch 2.11, 2026-11-26): FSDP2 at
 * world size 1 over NCCL against the same run over the fake group, Qwen2.5-1.5B and Llama-3.2-1B full fine-tunes:
 * allocated and reserved identical to the byte, device memory used 515.9 MB higher from the first collective and
 * 518.0 MB after the first backward.
 */
const NCCL_SINGLE_RANK_BYTES = 517_996_544;

export function singleRankNccl(): RuntimeTerm {
  return {
    id: 'nccl',
    label: 'NCCL communicator (one rank)',
    bytes: NCCL_SINGLE_RANK_BYTES,
    formula: '494 MiB: a one-rank communicator as measured on an H100 with torch 2.11 (no peers, no ring buffers)',
  };
}
