// Which verl-family config a YAML is, by its top-level keys. Pure: no imports, no I/O.

/** verl's PPO trainer config, its SFT trainer config, or EasyR1's. */
export type VerlSchema = 'ppo' | 'sft' | 'easyr1';

/**
 * verl's ppo_trainer.yaml nests the actor, rollout and reference under `actor_rollout_ref`; EasyR1's config.yaml
 * under `worker` beside `data`, `algorithm` and `trainer`; verl's sft_trainer.yaml has `data`, `model` (with its
 * `partial_pretrain`), `optim` and `trainer`.
 */
export function verlSchema(keys: ReadonlySet<string>, text: string): VerlSchema | undefined {
  if (keys.has('actor_rollout_ref')) return 'ppo';
  if (keys.has('worker') && (keys.has('algorithm') || keys.has('trainer') || keys.has('data'))) return 'easyr1';
  const sft = ['data', 'model', 'optim', 'trainer'].every((k) => keys.has(k));
  if (sft && (keys.has('ulysses_sequence_parallel_size') || /^[ \t]+partial_pretrain[ \t]*:/m.test(text))) return 'sft';
  return undefined;
}
