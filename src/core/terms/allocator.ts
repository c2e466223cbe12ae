// A model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, default configuration: no
// max_split_size_mb, no expandable segments, no garbage-collection threshold), for sequences of allocations whose
// reserved memory depends on their order: what max_memory_reserved() and nvidia-smi show is the sum of the segments
// the allocator obtained from the driver, and a freed block is reused only by a request it can hold.
//
// The rules kept:
// - sizes are rounded up to 512 B (kMinBlockSize);
// - requests of at most 1 MiB come from the small pool, whose segments are 2 MiB (kSmallBuffer); larger requests
//   come from the large pool: below 10 MiB (kMinLargeAlloc) from 20 MiB segments (kLargeBuffer), from 10 MiB up
//   from a segment of their own size rounded up to 2 MiB (kRoundLarge);
// - a request takes the smallest free block of its pool that holds it (best fit by size, then address);
// - a block is split when the rest exceeds 1 MiB (large pool) or is at least 512 B (small pool);
// - a freed block merges with free neighbours of the same segment only; segments are never merged;
// - when the driver has no room for a new segment, every cached segment with no block in use is released and the
//   request retried (the out-of-memory path, release_cached_blocks).
// Pure arithmetic; no I/O.
// Docs: docs/estimate/runtime.md

const MIN_BLOCK = 512;
/** Requests up to this size come from the small pool (kSmallSize). */
export const SMALL_SIZE = 1 << 20;
const SMALL_BUFFER = 2 << 20;
const LARGE_BUFFER = 20 << 20;
const MIN_LARGE_ALLOC = 10 << 20;
/** Large segments are rounded up to this (kRoundLarge). */
export const ROUND_LARGE = 2 << 20;

interface Block {
  addr: number;
  size: number;
  free: boolean;
  prev: Block | undefined;
  next: Block | undefined;
  readonly small: boolean;
}

/** Handle of an allocation, for free(). */
export type Allocation = object;

export function roundSize(bytes: number): number {
  return bytes < MIN_BLOCK ? MIN_BLOCK : MIN_BLOCK * Math.ceil(bytes / MIN_BLOCK);
}

/** Size of the segment the allocator asks the driver for when no cached block holds a request of `size` bytes. */
export function segmentSize(size: number): number {
  if (size <= SMALL_SIZE) return SMALL_BUFFER;
  if (size < MIN_LARGE_ALLOC) return LARGE_BUFFER;
  return ROUND_LARGE * Math.ceil(size / ROUND_LARGE);
}

export class CachingAllocator {
  /** Bytes in segments obtained from the driver (torch.cuda.memory_reserved). */
  reserved = 0;
  /** Bytes in blocks in use, after rounding (torch.cuda.memory_allocated). */
  allocated = 0;
  peakReserved = 0;
  peakAllocated = 0;
  /** Free blocks of each pool, sorted by (size, address). */
  private readonly pools: { small: Block[]; large: Block[] } = { small: [], large: [] };
  private nextAddr = 0;

  /** @param capacity bytes the driver can hand out (the GPU's memory less what other processes and the context hold). */
  constructor(private readonly capacity = Infinity) {}

  malloc(bytes: number): Allocation {
    const size = roundSize(bytes);
    const small = size <= SMALL_SIZE;
    const pool = small ? this.pools.small : this.pools.large;
    const i = lowerBound(pool, size, -1);
    let b: Block;
    if (i < pool.length) {
      b = pool[i];
      pool.splice(i, 1);
    } else {
      b = this.newSegment(size, small);
    }
    const rest = b.size - size;
    if (small ? rest >= MIN_BLOCK : rest > SMALL_SIZE) {
      const r: Block = { addr: b.addr + size, size: rest, free: true, prev: b, next: b.next, small };
      if (b.next) b.next.prev = r;
      b.next = r;
      b.size = size;
      this.insert(r);
    }
    b.free = false;
    this.allocated += b.size;
    if (this.allocated > this.peakAllocated) this.peakAllocated = this.allocated;
    return b;
  }

  free(handle: Allocation): void {
    let b = handle as Block;
    b.free = true;
    this.allocated -= b.size;
    const p = b.prev;
    if (p && p.free) {
      this.remove(p);
      merge(p, b);
      b = p;
    }
    const n = b.next;
    if (n && n.free) {
      this.remove(n);
      merge(b, n);
    }
    this.insert(b);
  }

  /** Bytes cached in free blocks smaller than `bytes`: what a request of that size finds no room in. */
  cachedBelow(bytes: number): number {
    let sum = 0;
    for (const b of this.pools.small) sum += b.size;
    for (const b of this.pools.large) if (b.size < bytes) sum += b.size;
    return sum;
  }

  private newSegment(size: number, small: boolean): Block {
    const bytes = small ? SMALL_BUFFER : segmentSize(size);
    if (this.reserved + bytes > this.capacity) {
      this.releaseCached();
      if (this.reserved + bytes > this.capacity) throw new RangeError('out of memory');
    }
    const b: Block = { addr: this.nextAddr, size: bytes, free: true, prev: undefined, next: undefined, small };
    // Segments never touch, so blocks of different segments never merge.
    this.nextAddr += bytes + SMALL_BUFFER;
    this.reserved += bytes;
    if (this.reserved > this.peakReserved) this.peakReserved = this.reserved;
    return b;
  }

  private releaseCached(): void {
    for (const key of ['small', 'large'] as const) {
      const keep: Block[] = [];
      for (const b of this.pools[key]) {
        if (b.prev === undefined && b.next === undefined) this.reserved -= b.size;
        else keep.push(b);
      }
      this.pools[key] = keep;
    }
  }

  private insert(b: Block): void {
    const pool = b.small ? this.pools.small : this.pools.large;
    pool.splice(lowerBound(pool, b.size, b.addr), 0, b);
  }

  private remove(b: Block): void {
    const pool = b.small ? this.pools.small : this.pools.large;
    pool.splice(lowerBound(pool, b.size, b.addr), 1);
  }
}

/** `left` takes in its right-hand neighbour of the same segment. */
function merge(left: Block, right: Block): void {
  left.size += right.size;
  left.next = right.next;
  if (right.next) right.next.prev = left;
}

/** First index whose block sorts at or after (size, addr). */
function lowerBound(pool: readonly Block[], size: number, addr: number): number {
  let lo = 0;
  let hi = pool.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const m = pool[mid];
    if (m.size < size || (m.size === size && m.addr < addr)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
