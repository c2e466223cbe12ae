// The ZeRO settings of the DeepSpeed files Axolotl and LLaMA-Factory ship (deepspeed-json/bundled.ts), as the estimate
// reads them: what the advice estimates a ZeRO change with, where its quick fix points the config at such a file.
import { ZeroBucketsSchema, type TrainingSetup, type ZeroBuckets } from '../core';
import {
  bundledDeepspeedFor,
  bundledTool,
  findBundledDeepspeed,
  type BundledDeepspeed,
} from './deepspeed-json/bundled';
import type { ConfigFacts } from './facts';

/** A bundled file's ZeRO settings as the estimate reads them (counts, "auto" counts, overlap and contiguous). */
export function bundledZeroBuckets(b: BundledDeepspeed): ZeroBuckets | undefined {
  const zero = (b.config.zero_optimization ?? {}) as Record<string, unknown>;
  const keys = Object.keys(ZeroBucketsSchema.shape);
  const parsed = ZeroBucketsSchema.safeParse(
    Object.fromEntries(Object.entries(zero).filter(([k]) => keys.includes(k))),
  );
  return parsed.success ? parsed.data : undefined;
}

/**
 * The ZeRO settings of the DeepSpeed file a tool ships for a stage and offload (bf16 or fp16 variant), as the
 * estimate reads them; undefined when it ships none.
 */
export function shippedZeroBuckets(
  tool: BundledDeepspeed['tool'],
  stage: number,
  offloadOptimizer: string,
  offloadParams: string,
  bf16: boolean,
): ZeroBuckets | undefined {
  const b = bundledDeepspeedFor(tool, stage, offloadOptimizer, offloadParams, bf16);
  return b ? bundledZeroBuckets(b) : undefined;
}

/**
 * For the advice (AdviceOptions.zeroConfigFor): the ZeRO settings of the file its tool ships for a stage and offload,
 * which a config of `format` is pointed at by its quick fix (features/fixes/planners/common.ts bundledZeroOp), when
 * the config names no DeepSpeed file or one of the shipped ones (its deepspeed key).
 */
export function shippedZeroConfigFor(
  facts: ConfigFacts | undefined,
  setup: TrainingSetup,
): ((stage: number, offloadOptimizer: string, offloadParams: string) => ZeroBuckets | undefined) | undefined {
  const format = facts?.format;
  const value = facts?.facts.find((f) => f.key === 'deepspeedConfig')?.value;
  const named = typeof value === 'string' ? value : undefined;
  const tool = bundledTool(format);
  const bf16 = setup.weights_dtype === 'bf16' || setup.mixed_precision === 'bf16';
  if (!tool || (named !== undefined && !findBundledDeepspeed(named, format))) return undefined;
  return (stage, offloadOptimizer, offloadParams) =>
    shippedZeroBuckets(tool, stage, offloadOptimizer, offloadParams, bf16);
}
