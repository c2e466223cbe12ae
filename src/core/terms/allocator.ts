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
// - each stream has pools of its own: a block freed on one stream serves only requests on that stream (the pools'
//   ordering compares the stream first, BlockComparatorSize), while the segments of all streams share the device;
// - when the driver has no room for a new segment, every cached segment with no block in use, of every stream, is
//   released and the request retried (the out-of-memory path, release_cached_blocks).
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
  readonly stream: number;
  /** The free list the block goes back to: its stream's small or large pool (fixed for the block's life). */
  readonly pool: FreeBlocks;
}

/**
 * Free blocks of one pool, ordered by (size, address) as the allocator's set is (BlockComparatorSize). Kept in size
 * classes (powers of two of 512 B units), each sorted, so an insertion or removal shifts one short class; the best
 * fit is the first block at or after the request in its class, else the first block of the next class that has one.
 */
class FreeBlocks {
  /** Lists up to the highest class used so far (no holes: the array stays packed). */
  private readonly classes: Block[][] = [];

  /** The smallest free block of at least `size` bytes (the lowest address among equals), taken out; undefined if none. */
  takeBestFit(size: number): Block | undefined {
    const { classes } = this;
    for (let c = sizeClass(size); c < classes.length; c++) {
      const list = classes[c];
      if (list.length === 0) continue;
      const i = lowerBound(list, size, -1);
      if (i < list.length) {
        const b = list[i];
        removeAt(list, i);
        return b;
      }
    }
    return undefined;
  }

  insert(b: Block): void {
    const c = sizeClass(b.size);
    while (this.classes.length <= c) this.classes.push([]);
    const list = this.classes[c];
    const at = lowerBound(list, b.size, b.addr);
    for (let j = list.length; j > at; j--) list[j] = list[j - 1];
    list[at] = b;
  }

  remove(b: Block): void {
    const list = this.classes[sizeClass(b.size)];
    removeAt(list, lowerBound(list, b.size, b.addr));
  }

  /** Every free block, in no particular order. */
  *all(): IterableIterator<Block> {
    for (const list of this.classes) yield* list;
  }

  /** Keeps the blocks `keep` accepts. */
  filter(keep: (b: Block) => boolean): void {
    for (let c = 0; c < this.classes.length; c++) this.classes[c] = this.classes[c].filter(keep);
  }
}

/** Size classes: floor(log2(size / 512)) up to 2 TiB, beyond that one class per power of two up to 2^24 TiB. */
const SIZE_CLASSES = 56;

/** A block size's class (sizes are multiples of 512 B); larger sizes, higher classes. */
function sizeClass(size: number): number {
  const units = size / MIN_BLOCK;
  return units < 4294967296
    ? 31 - Math.clz32(units)
    : Math.min(SIZE_CLASSES - 1, 32 + Math.floor(Math.log2(units / 4294967296)));
}

/** One stream's free blocks: the small pool's and the large pool's. */
interface StreamPools {
  readonly small: FreeBlocks;
  readonly large: FreeBlocks;
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
  /** Free blocks of each stream's pools (stream 0: the default stream). */
  private readonly streams = new Map<number, StreamPools>();
  /** The default stream's pools, looked up on nearly every request. */
  private defaultPools: StreamPools | undefined;
  /** Reserved bytes of each stream's segments. */
  private readonly streamReserved = new Map<number, number>();
  private nextAddr = 0;

  /** @param capacity bytes the driver can hand out (the GPU's memory less what other processes and the context hold). */
  constructor(private readonly capacity = Infinity) {}

  /** A block of at least `bytes` on `stream` (0, the default stream, unless a side stream is named). */
  malloc(bytes: number, stream = 0): Allocation {
    const size = roundSize(bytes);
    const small = size <= SMALL_SIZE;
    const pools = this.poolsOf(stream);
    const pool = small ? pools.small : pools.large;
    const b = pool.takeBestFit(size) ?? this.newSegment(size, small, stream, pool);
    const rest = b.size - size;
    if (small ? rest >= MIN_BLOCK : rest > SMALL_SIZE) {
      const r: Block = { addr: b.addr + size, size: rest, free: true, prev: b, next: b.next, small, stream, pool };
      if (b.next) b.next.prev = r;
      b.next = r;
      b.size = size;
      pool.insert(r);
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
      p.pool.remove(p);
      merge(p, b);
      b = p;
    }
    const n = b.next;
    if (n && n.free) {
      n.pool.remove(n);
      merge(b, n);
    }
    b.pool.insert(b);
  }

  /** Bytes cached in free blocks of the default stream smaller than `bytes`: what a request of that size finds no room in. */
  cachedBelow(bytes: number): number {
    const pools = this.poolsOf(0);
    let sum = 0;
    for (const b of pools.small.all()) sum += b.size;
    for (const b of pools.large.all()) if (b.size < bytes) sum += b.size;
    return sum;
  }

  /** Bytes in the segments of one stream now. */
  reservedOn(stream: number): number {
    return this.streamReserved.get(stream) ?? 0;
  }

  private poolsOf(stream: number): StreamPools {
    if (stream === 0 && this.defaultPools) return this.defaultPools;
    let pools = this.streams.get(stream);
    if (!pools) {
      pools = { small: new FreeBlocks(), large: new FreeBlocks() };
      this.streams.set(stream, pools);
      if (stream === 0) this.defaultPools = pools;
    }
    return pools;
  }

  private newSegment(size: number, small: boolean, stream: number, pool: FreeBlocks): Block {
    const bytes = small ? SMALL_BUFFER : segmentSize(size);
    if (this.reserved + bytes > this.capacity) {
      this.releaseCached();
      if (this.reserved + bytes > this.capacity) throw new RangeError('out of memory');
    }
    const b: Block = {
      addr: this.nextAddr,
      size: bytes,
      free: true,
      prev: undefined,
      next: undefined,
      small,
      stream,
      pool,
    };
    // Segments never touch, so blocks of different segments never merge.
    this.nextAddr += bytes + SMALL_BUFFER;
    this.reserved += bytes;
    this.streamReserved.set(stream, this.reservedOn(stream) + bytes);
    if (this.reserved > this.peakReserved) this.peakReserved = this.reserved;
    return b;
  }

  /** torch.cuda.empty_cache(): every cached segment with no block in use goes back to the driver. */
  emptyCache(): void {
    this.releaseCached();
  }

  private releaseCached(): void {
    for (const [stream, pools] of this.streams) {
      for (const free of [pools.small, pools.large]) {
        free.filter((b) => {
          // A whole free segment (no neighbour) goes back to the driver.
          if (b.prev !== undefined || b.next !== undefined) return true;
          this.reserved -= b.size;
          this.streamReserved.set(stream, this.reservedOn(stream) - b.size);
          return false;
        });
      }
    }
  }
}

/** Removes the block at `i`, shifting the ones after it down (cheaper than splice on short arrays). */
function removeAt(pool: Block[], i: number): void {
  const n = pool.length - 1;
  for (let j = i; j < n; j++) pool[j] = pool[j + 1];
  pool.pop();
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
