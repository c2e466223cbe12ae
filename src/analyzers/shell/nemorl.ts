// NeMo-RL's launch line: `uv run python examples/run_grpo_math.py --config x.yaml cluster.gpus_per_node=8
// policy.model_name=Qwen/Qwen2.5-1.5B` (run_sft.py, run_dpo.py, run_grpo*.py): the config YAML it names (read as
// NeMo-RL's, yaml/nemorl.ts) and its `key=value` overrides, which OmegaConf merges over the config
// (nemo_rl/utils/config.py parse_hydra_overrides) and which are read where the line writes them.
// Pure: no I/O, no node:*, no 'vscode'.
import type { ConfigLaunch } from './config-launch';
import type { Field } from './fields';
import { spec, type FlagSpec } from './flags';

/**
 * NeMo-RL's entry scripts (examples/run_*.py) run with overrides of its keys; a line with only `--config` is read as
 * any script's, whose `--config` is a reference too.
 */
export function isNemoRlEntry(script: string, fields: readonly Field[], from: number): boolean {
  if (!/(^|\/)run_(sft|dpo|grpo|rm|distillation)\w*\.py$/.test(script)) return false;
  return fields.slice(from).some((f) => /^(policy|cluster|grpo|sft|dpo)\.[\w.]+=/.test(f.text));
}

const count = (key: Parameters<typeof spec>[0]): FlagSpec => spec(key, 'int');
/** The overrides the estimate reads, by their dotted names. */
const NEMORL_OVERRIDES: Readonly<Record<string, FlagSpec>> = {
  'policy.model_name': spec('model', 'str'),
  'policy.train_micro_batch_size': count('microBatchSize'),
  'policy.train_global_batch_size': count('trainBatchSize'),
  'policy.max_total_sequence_length': count('seqLen'),
  'policy.dtensor_cfg.tensor_parallel_size': count('tensorParallel'),
  'policy.dtensor_cfg.cpu_offload': spec('fsdpOffload', 'bool'),
  'cluster.gpus_per_node': count('gpusPerNode'),
  'cluster.num_nodes': count('nodes'),
  'grpo.num_generations_per_prompt': count('numGenerations'),
};

/** NeMo-RL's launch line: its `--config` and its `key=value` overrides. */
export const NEMORL_LAUNCH: ConfigLaunch = {
  tool: 'nemo-rl',
  configOptions: ['config'],
  overrides: NEMORL_OVERRIDES,
  kv: true,
};
