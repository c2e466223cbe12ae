// DeepSpeed's batch-size algorithm (deepspeed/runtime/config.py _configure_train_batch_size), for resolve once the
// data-parallel world size is known. Pure: no I/O, no node:* and no 'vscode'.
import { msg, type ConfigFacts, type Fact, type ParseProblem } from '../facts';

export type BatchKey = 'trainBatchSize' | 'microBatchSize' | 'gradientAccumulationSteps';

export interface BatchInput {
  readonly trainBatchSize?: number;
  readonly microBatchSize?: number;
  readonly gradientAccumulationSteps?: number;
}

export type BatchDerivation =
  | {
      readonly ok: true;
      readonly trainBatchSize: number;
      readonly microBatchSize: number;
      readonly gradientAccumulationSteps: number;
      readonly derived: readonly BatchKey[];
    }
  | { readonly ok: false; readonly message: string; readonly missing: readonly BatchKey[] };

/**
 * DeepSpeed's `_set_batch_related_parameters` (deepspeedai/DeepSpeed@edaa722:deepspeed/runtime/config.py): given any
 * subset of the three batch keys and the data-parallel world size, computes the missing ones with Python's floor
 * division. train+micro: gas = train // micro // world; train+gas: micro = train // world // gas; micro+gas:
 * train = micro * gas * world; train only: gas = 1, micro = train // world; micro only: gas = 1, train = micro * world.
 * Gas alone or nothing cannot be derived. The result is not checked against the rule; see checkBatchRule.
 */
export function deriveBatch(given: BatchInput, worldSize: number): BatchDerivation {
  if (!Number.isInteger(worldSize) || worldSize < 1) {
    return {
      ok: false,
      message: `the data-parallel world size must be a whole number >= 1, not ${worldSize}`,
      missing: [],
    };
  }
  const t = given.trainBatchSize;
  const m = given.microBatchSize;
  const g = given.gradientAccumulationSteps;
  const fdiv = (a: number, b: number): number => Math.floor(a / b);
  if (t !== undefined && m !== undefined && g !== undefined)
    return { ok: true, trainBatchSize: t, microBatchSize: m, gradientAccumulationSteps: g, derived: [] };
  if (t !== undefined && m !== undefined)
    return {
      ok: true,
      trainBatchSize: t,
      microBatchSize: m,
      gradientAccumulationSteps: m === 0 ? 0 : fdiv(fdiv(t, m), worldSize),
      derived: ['gradientAccumulationSteps'],
    };
  if (t !== undefined && g !== undefined)
    return {
      ok: true,
      trainBatchSize: t,
      microBatchSize: g === 0 ? 0 : fdiv(fdiv(t, worldSize), g),
      gradientAccumulationSteps: g,
      derived: ['microBatchSize'],
    };
  if (m !== undefined && g !== undefined)
    return {
      ok: true,
      trainBatchSize: m * g * worldSize,
      microBatchSize: m,
      gradientAccumulationSteps: g,
      derived: ['trainBatchSize'],
    };
  if (t !== undefined)
    return {
      ok: true,
      trainBatchSize: t,
      microBatchSize: fdiv(t, worldSize),
      gradientAccumulationSteps: 1,
      derived: ['microBatchSize', 'gradientAccumulationSteps'],
    };
  if (m !== undefined)
    return {
      ok: true,
      trainBatchSize: m * worldSize,
      microBatchSize: m,
      gradientAccumulationSteps: 1,
      derived: ['trainBatchSize', 'gradientAccumulationSteps'],
    };
  return {
    ok: false,
    message: 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided (DeepSpeed config.py)',
    missing:
      g === undefined
        ? ['trainBatchSize', 'microBatchSize', 'gradientAccumulationSteps']
        : ['trainBatchSize', 'microBatchSize'],
  };
}

/**
 * DeepSpeed's `_batch_assertion` after `_set_batch_related_parameters`, with the world size resolve found: a located
 * 'batch-size-mismatch' problem, or undefined when the rule holds or the numbers are not all known (auto, placeholders,
 * or neither train_batch_size nor the micro batch given; deriveBatch reports that case).
 */
export function checkBatchRule(facts: ConfigFacts, worldSize: number): ParseProblem | undefined {
  const pick = (k: BatchKey): Fact | undefined => {
    let hit: Fact | undefined;
    for (const f of facts.facts) if (f.key === k) hit = f;
    return hit && typeof hit.value === 'number' ? hit : undefined;
  };
  const tf = pick('trainBatchSize');
  const mf = pick('microBatchSize');
  const gf = pick('gradientAccumulationSteps');
  const anyUnknown = facts.facts.some(
    (f) =>
      (f.key === 'trainBatchSize' || f.key === 'microBatchSize' || f.key === 'gradientAccumulationSteps') &&
      typeof f.value !== 'number',
  );
  if (anyUnknown) return undefined;
  const d = deriveBatch(
    {
      trainBatchSize: tf?.value as number | undefined,
      microBatchSize: mf?.value as number | undefined,
      gradientAccumulationSteps: gf?.value as number | undefined,
    },
    worldSize,
  );
  if (!d.ok) return undefined;
  const at = tf ?? mf ?? gf;
  if (!at) return undefined;
  const tag = (k: BatchKey): string => (d.derived.includes(k) ? ', derived' : '');
  const lhs = `train_batch_size ${d.trainBatchSize}${tf ? '' : ' (derived)'}`;
  const rhs =
    `${d.microBatchSize} (micro${tag('microBatchSize')}) x ` +
    `${d.gradientAccumulationSteps} (accumulation${tag('gradientAccumulationSteps')}) x ${worldSize} (GPUs)`;
  const span = at.valueSpan;
  if (d.microBatchSize <= 0 || d.gradientAccumulationSteps <= 0) {
    const m =
      d.microBatchSize <= 0
        ? msg(
            'with {0} GPUs the micro batch per GPU comes out as {1}, and DeepSpeed requires it to be greater than 0: {2} vs {3}',
            worldSize,
            d.microBatchSize,
            lhs,
            rhs,
          )
        : msg(
            'with {0} GPUs gradient accumulation comes out as {1}, and DeepSpeed requires it to be greater than 0: {2} vs {3}',
            worldSize,
            d.gradientAccumulationSteps,
            lhs,
            rhs,
          );
    return { code: 'batch-size-mismatch', severity: 'error', span, rawKey: at.rawKey, ...m };
  }
  const product = d.microBatchSize * d.gradientAccumulationSteps * worldSize;
  if (product === d.trainBatchSize) return undefined;
  return {
    code: 'batch-size-mismatch',
    severity: 'error',
    span,
    rawKey: at.rawKey,
    ...msg('{0} != {1} = {2}', lhs, rhs, product),
  };
}
