// OpenRLHF's defaults where they differ by command: the argparse defaults of each openrlhf/cli/<command>.py, read by
// shell/openrlhf.ts (the defaults every command shares are TOOL_DEFAULTS.openrlhf). Pure data.
import { ORLHF, ORLHF_FLAT, ORLHF_PPO, ORLHF_REMOVED } from '../defaults';

/** An OpenRLHF command's defaults where they differ by command: argparse defaults of openrlhf/cli/<command>.py. */
export interface OpenrlhfDefaults {
  /** --train.micro_batch_size (flat CLI: --micro_train_batch_size). */
  readonly micro: number;
  /** --data.max_len (flat: --max_len); PPO without Ray: --prompt_max_len + --generate_max_len. */
  readonly maxLen: number | readonly [number, number];
  /** --train.batch_size (flat: --train_batch_size), the global batch: accumulation = batch / (micro x GPUs). */
  readonly batch: number;
  /** --ds.zero_stage (flat: --zero_stage). */
  readonly zeroStage: number;
  /** PPO on Ray: the actor's GPUs per node and nodes (--actor.num_gpus_per_node, --actor.num_nodes). */
  readonly actor?: readonly [number, number];
  /** --train.max_tokens_per_gpu (flat: --train_max_tokens_per_gpu) under dynamic batching. */
  readonly maxTokens?: number;
  /** Where they are stated. */
  readonly source: string;
}

export const OPENRLHF_DEFAULTS: Readonly<Record<string, OpenrlhfDefaults>> = {
  train_sft: {
    micro: 8,
    maxLen: 2048,
    batch: 128,
    zeroStage: 2,
    source: `${ORLHF}cli/train_sft.py, ${ORLHF_FLAT}train_sft.py`,
  },
  train_dpo: {
    micro: 8,
    maxLen: 512,
    batch: 128,
    zeroStage: 2,
    source: `${ORLHF}cli/train_dpo.py, ${ORLHF_FLAT}train_dpo.py`,
  },
  train_rm: {
    micro: 1,
    maxLen: 512,
    batch: 128,
    zeroStage: 2,
    source: `${ORLHF}cli/train_rm.py, ${ORLHF_FLAT}train_rm.py`,
  },
  train_ppo_ray: {
    micro: 1,
    maxLen: 2048,
    batch: 128,
    zeroStage: 2,
    actor: [8, 1],
    maxTokens: 16192,
    source: `${ORLHF}cli/train_ppo_ray.py, ${ORLHF_FLAT}train_ppo_ray.py`,
  },
  train_kd: { micro: 8, maxLen: 2048, batch: 128, zeroStage: 2, source: `${ORLHF_REMOVED}train_kd.py` },
  train_kto: { micro: 8, maxLen: 2048, batch: 128, zeroStage: 2, source: `${ORLHF_REMOVED}train_kto.py` },
  train_prm: { micro: 1, maxLen: 2048, batch: 128, zeroStage: 2, source: `${ORLHF_REMOVED}train_prm.py` },
  train_ppo: { micro: 4, maxLen: [1024, 1024], batch: 128, zeroStage: 2, source: ORLHF_PPO },
};
