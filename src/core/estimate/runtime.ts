// Runtime terms outside PyTorch's allocated bytes. Pure.
import { MiB } from '../units';

/** CUDA context + cuBLAS/cuDNN handles with lazy module loading (CUDA >= 11.7), per process. */
export const DEFAULT_CUDA_CONTEXT_BYTES = 512 * MiB;
/** Share of the memory allocated and freed every step that the caching allocator cannot hand back out (see README). */
export const ALLOCATOR_FRAGMENTATION = 0.05;
