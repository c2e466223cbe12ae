// Term: cuBLAS workspaces. PyTorch gives every cuBLAS handle a workspace per stream, taken from the caching allocator
// at the handle's first matmul and kept for the life of the process (aten/src/ATen/cuda/CublasHandlePool.cpp
// getCurrentCUDABlasHandle -> getNewWorkspace, cached in cublas_handle_stream_to_workspace; cuBLASLt shares it).
// Handles are per thread (DeviceThreadHandlePool): the training loop's thread runs the forward and the optimizer,
// autograd's device thread the backward, so a training process holds two. Their size (parseChosenWorkspaceSize,
// without CUBLAS_WORKSPACE_CONFIG): 32 MiB on compute capability 9.x to 12.x, ":4096:2:16:8" = 8 MiB + 128 KiB before;
// on ROCm 32 MiB, 128 MiB on gfx942 / gfx950. GPU truth (tools/truth/gpu, H100, torch 2.11): every history holds two
// 33,554,432 B allocations that are never freed, one at the first forward's first matmul and one at the backward's.
// Docs: docs/estimate/runtime.md. Pure arithmetic.
import type { GpuSpec } from '../catalog/gpus';
import { comp } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import type { Component } from '../model';
import { formatBytes, KiB, MiB } from '../units';

/** The threads that run matmuls in a training process: the loop's (forward, optimizer) and autograd's (backward). */
export const BLAS_THREADS = 2;

/** PyTorch's default ":4096:2:16:8" workspace: two 4,096 KiB chunks and eight of 16 KiB. */
const CUDA_DEFAULT_WORKSPACE = (4096 * 2 + 16 * 8) * KiB;

/** One handle's workspace on this GPU, in bytes; undefined when the GPU or its architecture is not known. */
export function blasWorkspaceBytes(spec: GpuSpec | undefined): number | undefined {
  if (spec?.vendor === 'nvidia' && spec.computeCapability) {
    const major = spec.computeCapability[0];
    return major >= 9 && major <= 12 ? 32 * MiB : CUDA_DEFAULT_WORKSPACE;
  }
  if (spec?.vendor === 'amd' && spec.gfxTarget) {
    return spec.gfxTarget === 'gfx942' || spec.gfxTarget === 'gfx950' ? 128 * MiB : 32 * MiB;
  }
  return spec && spec.vendor !== 'nvidia' && spec.vendor !== 'amd' ? 0 : undefined;
}

/** The workspace of one handle for the estimate's GPU: 0 when it is unknown (blasWorkspaces says so at its row). */
export function blasWorkspace(ctx: EstimateContext): number {
  return blasWorkspaceBytes(ctx.gpu?.spec) ?? 0;
}

/** The training process's two cuBLAS workspaces; counted at 0 with the reason when the GPU's architecture is unknown. */
export function blasWorkspaces(ctx: EstimateContext): Component[] {
  const spec = ctx.gpu?.spec;
  const each = blasWorkspaceBytes(spec);
  if (each === 0) return [];
  const arch = spec?.computeCapability
    ? `compute capability ${spec.computeCapability.join('.')}`
    : spec?.gfxTarget
      ? spec.gfxTarget
      : '';
  return [
    comp(
      ctx,
      'blas-workspaces',
      'cuBLAS workspaces',
      BLAS_THREADS * (each ?? 0),
      () =>
        each === undefined
          ? 'not counted: no GPU from the catalog chosen, so its architecture is unknown (2 threads x 32 MiB from ' +
            'compute capability 9.0 on, 2 x 8.1 MiB before)'
          : `${BLAS_THREADS} threads (the loop's forward, autograd's backward) x ${formatBytes(each)} (${spec!.id}, ${arch})`,
      () => ({ threads: BLAS_THREADS, workspaceBytes: each ?? 0 }),
    ),
  ];
}
