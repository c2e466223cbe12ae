// FSDP1's rate limiter (limit_all_gathers) where no file sets it, by the release that builds the FSDP units: a
// FullyShardedDataParallel call of the script's own takes PyTorch's default, False before 2.1; Accelerate's FSDP plugin
// (the HF Trainer and the tools on it) set False before 0.26. Without it the CPU runs ahead of a GPU-bound forward
// and the layers it has gathered stay reserved (core/terms/fsdp1-launch-lead.ts). Pure.
import { fsdp1Sharded, olderThan, type Provenance, type TrainingSetup } from '../core';
import { ACCELERATE_FSDP_TOOLS } from './accelerate-fsdp';
import type { PipelineResult } from './pipeline';

/**
 * limit_all_gathers with why, where no file sets it on a sharded FSDP1 run: the default of what builds the units at
 * the run's pinned release (the current one where none is pinned); the result as is elsewhere.
 */
export function limitAllGathersDefault(r: PipelineResult): PipelineResult {
  const s = r.setup;
  if (!s || !fsdp1Sharded(s) || s.fsdp_limit_all_gathers !== undefined) return r;
  const facts = r.files.flatMap((f) => f.facts.facts).filter((f) => f.key === 'fsdpLimitAllGathers');
  const ownCall = facts.find((f) => f.value === 'torch');
  const tool = r.files.flatMap((f) => f.facts.tools).find((t) => ACCELERATE_FSDP_TOOLS.has(t));
  const rule = ownCall ? torchDefault(s, ownCall.tool) : tool ? pluginDefault(s, tool) : undefined;
  if (!rule) return r;
  return {
    ...r,
    setup: { ...s, fsdp_limit_all_gathers: rule.value },
    provenance: { ...r.provenance, fsdp_limit_all_gathers: rule.why },
  };
}

interface Rule {
  readonly value: boolean;
  readonly why: Provenance;
}

const HELD_BACK = 'the CPU waits once two all-gathers are in flight';
const RUNS_AHEAD = 'the CPU is not held back after two all-gathers';

/** A FullyShardedDataParallel call without limit_all_gathers: False before PyTorch 2.1, True from it. */
function torchDefault(s: TrainingSetup, owner: string): Rule {
  const v = s.pytorch_version;
  return releaseRule(
    owner,
    v === undefined || !olderThan(v, 2, 1),
    v === undefined ? 'no torch pinned: a current release' : `torch ${v} pinned`,
    'the FullyShardedDataParallel call does not set limit_all_gathers, which is False before PyTorch 2.1 and True from it',
    'torch/distributed/fsdp/fully_sharded_data_parallel.py',
  );
}

/** Accelerate's FullyShardedDataParallelPlugin, whose limit_all_gathers field defaulted to False before 0.26. */
function pluginDefault(s: TrainingSetup, owner: string): Rule {
  const v = s.accelerate_version;
  return releaseRule(
    owner,
    v === undefined || !olderThan(v, 0, 26),
    v === undefined ? 'no accelerate pinned: a current release' : `accelerate ${v} pinned`,
    "Accelerate's FSDP plugin sets limit_all_gathers=False before 0.26 and True from it",
    'utils/dataclasses.py FullyShardedDataParallelPlugin',
    ", which no key of its config changes; the HF Trainer's fsdp_config limit_all_gathers does",
  );
}

/** The rule's value and why: what defaults it, at which release, from where, and what follows. */
function releaseRule(owner: string, value: boolean, release: string, what: string, where: string, also = ''): Rule {
  const note = `${what} (${release}; ${where})${also}: ${value ? HELD_BACK : RUNS_AHEAD}`;
  return { value, why: { kind: 'default', owner, note } };
}
