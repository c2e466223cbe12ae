// Resumable step replays: a replay that stops after its first micro-batch, whose figures bound the whole replay's from
// below (a replay's peak reserved only grows as it goes on), and goes on from there when the whole is asked for. The
// FSDP1, FSDP2 and two-step replays (terms/fsdp1-step-cache.ts, fsdp2-step-cache.ts, two-step-cache.ts) are built on
// it; the advice search rules candidates out on the first micro-batch (EstimateOptions.reservedLowerBound).
// Pure: the memo and the paused states are caches, not results. Docs: docs/estimate/advice.md
import { memo, type MemoOptions } from '../util/memo';
import { boundedReplay } from './step-replay';

/**
 * A replay that stops after its first micro-batch and can go on from there (the FSDP replays): `start` runs the build
 * and the first micro-batch, `finish` the rest on the same state, `result` reads the figures so far.
 */
export interface ResumableReplay<P, S, R> {
  readonly start: (plan: P) => S;
  readonly finish: (state: S) => void;
  readonly result: (state: S) => R;
}

/** A plan's replay stopped after its first micro-batch, and the whole of it once asked for (from where it stopped). */
interface ReplayProgress<P, S, R> {
  readonly plan: P;
  state: S | undefined;
  readonly first: R;
  whole: R | undefined;
}

/** A resumable replay's figures: its first micro-batch's, the whole replay's, and the whole's where known. */
export interface ResumedReplays<P, R> {
  readonly first: (plan: P) => R;
  readonly whole: (plan: P) => R;
  /** The whole replay's figures where already replayed, else the first micro-batch's (`partial`: a lower bound). */
  readonly atLeast: (plan: P) => { readonly result: R; readonly partial: boolean };
}

/** Paused replays whose state is kept to go on from (the newest): the advice asks for the whole right after the first. */
const PAUSED_KEPT = 16;

/**
 * The first micro-batch's figures and the whole replay's of a plan, memoized per plan (`options`), each bounded by the
 * plan's capacity (boundedReplay): the whole replay goes on from the first micro-batch's state (kept
 * for the newest PAUSED_KEPT plans, else replayed from the start), so a plan asked for both costs one replay. A
 * replay's peak reserved only grows as it goes on: the first micro-batch's is a lower bound of the whole's (the advice
 * search rules candidates out with it, EstimateOptions.reservedLowerBound).
 */
export function resumableReplay<P extends { readonly capacity: number }, S extends object, R>(
  replay: ResumableReplay<P, S, R>,
  options: MemoOptions<P>,
): ResumedReplays<P, R> {
  const paused: ReplayProgress<P, S, R>[] = [];
  const start = boundedReplay(replay.start);
  const progress = memo((plan: P): ReplayProgress<P, S, R> => {
    const state = start(plan);
    const p: ReplayProgress<P, S, R> = { plan, state, first: replay.result(state), whole: undefined };
    paused.push(p);
    if (paused.length > PAUSED_KEPT) paused.shift()!.state = undefined;
    return p;
  }, options);
  const whole = (plan: P): R => {
    const p = progress(plan);
    if (p.whole === undefined) p.whole = finishBounded(replay, start, p);
    return p.whole;
  };
  const atLeast = (plan: P): { readonly result: R; readonly partial: boolean } => {
    const p = progress(plan);
    return p.whole === undefined ? { result: p.first, partial: true } : { result: p.whole, partial: false };
  };
  return { first: (plan) => progress(plan).first, whole, atLeast };
}

/**
 * The rest of a replay from where its first micro-batch left it (from the start where that state was let go), and from
 * the start without a bound if it runs out.
 */
function finishBounded<P extends { readonly capacity: number }, S extends object, R>(
  replay: ResumableReplay<P, S, R>,
  start: (plan: P) => S,
  progress: ReplayProgress<P, S, R>,
): R {
  let state: S = progress.state ?? start(progress.plan);
  progress.state = undefined;
  try {
    replay.finish(state);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    state = replay.start({ ...progress.plan, capacity: Infinity });
    replay.finish(state);
  }
  return replay.result(state);
}

/**
 * Two steps after their first micro-batch (a resumable replay's `finish`): each step's micro-batches `microBatch(s, m)`,
 * the first step's from its second, then the step's optimizer step (`first` for the first step's).
 */
export function restOfTwoSteps(
  microBatches: number,
  microBatch: (s: number, m: number) => void,
  optimizerStep: (first: boolean) => void,
): void {
  for (let s = 0; s < 2; s++) {
    for (let m = s === 0 ? 1 : 0; m < microBatches; m++) microBatch(s, m);
    optimizerStep(s === 0);
  }
}
