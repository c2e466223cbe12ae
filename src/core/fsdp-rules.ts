// What FSDP does with a setup beyond its own keys: where accumulation keeps unsharded gradients (no_sync), FSDP1's
// backward prefetch, FSDP2's tail unit. Rules over a setup's keys, read by the estimator and the analyzers. Pure.
import type { TrainingSetup } from './setup';
import { olderThan } from './util/version';

/** Sharded FSDP (not NO_SHARD) with gradient accumulation: where fsdp_no_sync matters. */
export function fsdpAccumulates(s: Pick<TrainingSetup, 'fsdp' | 'gradient_accumulation_steps'>): boolean {
  return s.fsdp !== 'none' && s.fsdp !== 'no_shard' && s.gradient_accumulation_steps > 1;
}

/** FSDP1 sharding over several GPUs (fsdp_version unset is FSDP1, Accelerate's default); NO_SHARD does not shard. */
export function fsdp1Sharded(s: Pick<TrainingSetup, 'fsdp' | 'fsdp_version' | 'gpus_per_node' | 'nodes'>): boolean {
  return s.fsdp !== 'none' && s.fsdp !== 'no_shard' && s.fsdp_version !== 2 && s.gpus_per_node * s.nodes > 1;
}

/**
 * FSDP1's backward prefetch where it changes what is gathered at the loss: FULL_SHARD or HYBRID_SHARD FSDP1 over
 * several GPUs. 'pre' (FullyShardedDataParallel's own default) when no file gives one.
 */
export function fsdp1BackwardPrefetch(
  s: Pick<TrainingSetup, 'fsdp' | 'fsdp_version' | 'fsdp_backward_prefetch' | 'gpus_per_node' | 'nodes'>,
): 'pre' | 'post' | 'none' | undefined {
  const matters =
    (s.fsdp === 'full_shard' || s.fsdp === 'hybrid_shard') && s.fsdp_version !== 2 && s.gpus_per_node * s.nodes > 1;
  return matters ? (s.fsdp_backward_prefetch ?? 'pre') : undefined;
}

/** FSDP2 with the final norm and head in a unit not resharded after the forward (fsdp_tail_unit). */
export function fsdpTailUnit(s: Pick<TrainingSetup, 'fsdp' | 'fsdp_version' | 'fsdp_tail_unit'>): boolean {
  return s.fsdp_tail_unit === true && s.fsdp_version === 2 && s.fsdp !== 'none' && s.fsdp !== 'no_shard';
}

/** FSDP keeps the unsharded gradients between micro-batches: no_sync, unless fsdp_no_sync says false. */
export function defersGradientSync(
  s: Pick<
    TrainingSetup,
    'fsdp' | 'gradient_accumulation_steps' | 'fsdp_no_sync' | 'fsdp_version' | 'accelerate_version'
  >,
): boolean {
  if (!fsdpAccumulates(s) || s.fsdp_no_sync === false) return false;
  return s.fsdp_no_sync === true || !accelerateSyncsFsdp2(s);
}

/** FSDP2 under an Accelerate before 1.11, whose no_sync() looked for a no_sync method an FSDP2 module lacks and did
 * nothing (huggingface/accelerate#3762): the HF Trainer's micro-batches reduce their gradients each. */
export function accelerateSyncsFsdp2(s: Pick<TrainingSetup, 'fsdp_version' | 'accelerate_version'>): boolean {
  return s.fsdp_version === 2 && s.accelerate_version !== undefined && olderThan(s.accelerate_version, 1, 11);
}
