// Term: generation (GRPO / online DPO rollouts, GKD's on-policy rounds) and the colocated vLLM engine's share.
// Docs: docs/estimate/generation.md. Pure arithmetic; no I/O.
import type { Component } from '../model';
import { comp, sum } from '../estimate/component';
import type { EstimateContext } from '../estimate/context';
import { formatBytes, GiB } from '../units';

/** The colocated vLLM engine's share of the GPU, less the weights it shares with the policy (given the persistent components so far). */
export function rolloutEngine(ctx: EstimateContext, persistent: readonly Component[]): Component[] {
  const { rollout, vllmShare } = ctx.methods;
  // A colocated vLLM engine (TRL vllm_mode="colocate") reserves its share of the GPU for its own copy of the weights,
  // its KV cache and CUDA graphs at start-up (vLLM gpu_memory_utilization is a fraction of the GPU's total memory),
  // and keeps it while the policy trains unless sleep mode releases it.
  // Unsloth's fast_inference engine holds the weights the policy trains on: its share counts them once.
  const sharedWeights = rollout?.vllm_shared_weights ? sum(persistent.filter((c) => c.id === 'weights' || c.id === 'quantization-constants')) : 0;
  const engineBytes = Math.max(0, vllmShare - sharedWeights);
  const engineC = engineBytes > 0 ? [comp(ctx, 'rollout-engine', 'vLLM engine (colocated)', engineBytes, () => (`vllm_gpu_memory_utilization ${rollout!.vllm_memory_fraction} x ${(ctx.gpu!.memoryBytes / GiB).toFixed(1)} GiB (${ctx.gpu!.id})${sharedWeights > 0 ? ` - the weights it shares with the policy (${formatBytes(sharedWeights)})` : ''}`), () => ({ fraction: rollout!.vllm_memory_fraction, gpuBytes: ctx.gpu!.memoryBytes }))] : [];
  return engineC;
}
