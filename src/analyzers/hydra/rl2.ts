// RL2 (ChenmienTan/RL2): its composed Hydra config (compose.ts) read as its FSDP workers train, each fact in the file
// its value comes from. The worker (the actor; the critic for a reward model) loads `model_name` with from_pretrained,
// no dtype and FlashAttention-2 (workers/fsdp/actor.py, critic.py), wraps every decoder layer as an FSDP1 unit,
// HYBRID_SHARD over a (ddp_size, world / ddp_size) mesh with MixedPrecision in `dtype` (utils/fsdp/data_parallelism.py),
// checkpoints the layers with gradient_checkpointing_enable(), and trains with torch's AdamW, whose states it moves to
// the GPU for the optimizer step only (`offload_optimizer`, workers/fsdp/base.py: optimizer_states_gpu 'step').
// Sequences are packed: each micro-batch holds at most `max_length_per_device` tokens per GPU, split over `cp_size`
// GPUs by ring attention (utils/sequences.py scatter_data). DPO packs a chosen and a rejected sequence together and takes the reference's
// log-probabilities in a pass of its own (ref_actor offload_model); PPO generates with a colocated SGLang engine that
// releases its memory while the actor trains (workers/rollout.py). Forks that keep the older layout (train_data.*,
// rollout.gpu_memory_utilization, sp_size) are read by the same names. Sources: ChenmienTan/RL2@9161ede. Pure.
import { msg } from '../facts';
import type { ComposedValue, Composition } from './compose';
import { ComposedFacts, dtypeOf, type FactsByFile } from './composed-facts';

const SOURCE = 'ChenmienTan/RL2@9161ede';

/** Whether a composition is RL2's: a worker (actor or critic) with its model and its packing length. */
export function isRl2(c: Composition): boolean {
  return ['actor', 'critic'].some((w) => c.values.has(`${w}.model_name`) && c.values.has(`${w}.max_length_per_device`));
}

type Kind = 'sft' | 'dpo' | 'rm' | 'ppo';

/** Which trainer the composition is for, from the keys only its config has. */
function kindOf(c: Composition): Kind {
  const keys = [...c.values.keys()];
  if (keys.some((k) => k.startsWith('rollout.') || k.startsWith('adv.'))) return 'ppo';
  if (!c.values.has('actor.model_name')) return 'rm';
  return c.values.has('actor.beta') || c.values.has('data.train.chosen_key') ? 'dpo' : 'sft';
}

/** The facts of RL2's composed config, by file. */
export function rl2Facts(c: Composition): FactsByFile {
  const d = new ComposedFacts(c, 'rl2');
  const kind = kindOf(c);
  const w = kind === 'rm' ? 'critic' : 'actor';
  const first = (...paths: string[]): ComposedValue | undefined =>
    paths.map((p) => d.get(p)).find((v) => v && v.view.t !== 'absent');
  model(d, w);
  const backend = c.groups.get(w);
  if (backend?.option === 'megatron')
    d.problemAt(
      backend.file,
      backend.span,
      'not-modeled',
      msg("{0}: RL2's Megatron workers are not modeled: the estimate is its FSDP workers' step", `${w}: megatron`),
    );
  sharding(d, w);
  const ckpt = first(`${w}.enable_gradient_checkpointing`, `${w}.gradient_checkpointing`);
  if (ckpt?.view.t === 'bool') d.add(ckpt, 'gradientCheckpointing', ckpt.view.v ? 'full' : 'none');
  const liger = d.get(`${w}.use_liger_kernel`);
  if (liger?.view.t === 'bool' && liger.view.v) d.add(liger, 'kernels', 'liger');
  const mp = d.get(`${w}.dtype`);
  const mpDtype = mp ? dtypeOf(d.text(mp)) : undefined;
  if (mp && mpDtype) d.add(mp, 'mixedPrecision', mpDtype === 'fp32' ? 'none' : mpDtype);
  const cp = d.count(`${w}.cp_size`, 'contextParallel') ?? d.count(`${w}.sp_size`, 'contextParallel') ?? 1;
  packing(d, w, kind, cp);
  offloads(d, w, kind);
  lora(d, w);
  if (kind === 'dpo') dpo(d);
  if (kind === 'rm') rewardModel(d, d.get('critic.model_name')!);
  if (kind === 'ppo') ppo(d, first, cp);
  return d.byFile;
}

/** `<worker>.model_name`: from_pretrained with no dtype (the checkpoint's under transformers 5, float32 before). */
function model(d: ComposedFacts, w: string): void {
  const v = d.get(`${w}.model_name`)!;
  const name = d.text(v);
  if (name && name !== '???') d.add(v, 'model', name, { loadsCheckpointDtype: true });
  else
    d.add(
      v,
      'model',
      d.unknownOf(v) ?? { unknown: `${w}.model_name is not given: pass ${w}.model_name=<model> on the launch line` },
    );
}

/** FSDP1 over every decoder layer: HYBRID_SHARD over ddp_size replicas, FULL_SHARD when there is one; TP beside it. */
function sharding(d: ComposedFacts, w: string): void {
  const at = d.get(`${w}.ddp_size`) ?? d.get(`${w}.model_name`)!;
  const ddp = d.get(`${w}.ddp_size`)?.view;
  const replicas = ddp?.t === 'num' ? ddp.v : 1;
  d.add(at, 'fsdp', replicas > 1 ? 'hybrid_shard' : 'full_shard');
  d.add(at, 'fsdpVersion', 1);
  d.add(at, 'fsdpUseOrigParams', false);
  d.add(at, 'fsdpBackwardPrefetch', 'pre');
  if (replicas > 1)
    d.problem(
      at,
      'not-modeled',
      'warning',
      msg(
        '{0}: RL2 shards the model within groups of world size / ddp_size GPUs; estimated as hybrid sharding within a node',
        at.rawKey,
      ),
    );
  d.count(`${w}.tp_size`, 'tensorParallel');
}

/**
 * The packed micro-batch: up to max_length_per_device x cp_size tokens, split over the cp_size GPUs (DPO: a chosen and
 * a rejected sequence together), estimated as one full row; RL2 balances the micro-batches, so it is an upper bound.
 */
function packing(d: ComposedFacts, w: string, kind: Kind, cp: number): void {
  const v = d.get(`${w}.max_length_per_device`)!;
  const length = v.view.t === 'num' && Number.isSafeInteger(v.view.v) && v.view.v > 0 ? v.view.v : undefined;
  if (length === undefined) {
    const why =
      d.unknownOf(v)?.unknown ??
      `${w}.max_length_per_device is not given (RL2 packs each micro-batch up to it): pass ${w}.max_length_per_device=<tokens>`;
    d.add(v, 'seqLen', { unknown: why });
    return;
  }
  const paired = kind === 'dpo' || kind === 'rm';
  const tokens = length * cp;
  const note =
    `RL2 packs sequences into micro-batches of at most ${w}.max_length_per_device (${length}) tokens per GPU` +
    (cp > 1 ? `, each split over cp_size ${cp} GPUs` : '') +
    (paired ? ', a chosen and a rejected sequence together' : '') +
    ' (utils/sequences.py); estimated as one full micro-batch, an upper bound';
  d.add(v, 'microBatchSize', 1, { assumed: note });
  d.add(v, 'seqLen', paired ? Math.max(1, Math.floor(tokens / 2)) : tokens, { assumed: note });
  d.add(v, 'batchLengths', 'fixed', { assumed: note });
}

/**
 * offload_optimizer: AdamW's states live on the host outside the optimizer step (moved to the GPU for it and back,
 * workers/fsdp/base.py _optimizer_step). offload_model (PPO): the weights live on the host outside the worker's own
 * passes, so not while SGLang generates.
 */
function offloads(d: ComposedFacts, w: string, kind: Kind): void {
  const opt = d.get(`${w}.offload_optimizer`);
  if (opt?.view.t === 'bool') d.add(opt, 'optimizerStatesGpu', opt.view.v ? 'step' : 'always');
  const weights = kind === 'ppo' ? d.get(`${w}.offload_model`) : undefined;
  if (weights?.view.t === 'bool') d.add(weights, 'weightsGpu', weights.view.v ? 'training' : 'always');
}

/**
 * `<worker>.use_lora: true`: PEFT's LoRA on the worker's model with `<worker>.lora`'s r, lora_alpha, lora_dropout and
 * target_modules (a fork's RL2/trainer/config/actor/fsdp.yaml: simonucl/RL2 examples/orz_reinforce_lora.sh).
 */
function lora(d: ComposedFacts, w: string): void {
  const on = d.get(`${w}.use_lora`);
  if (on?.view.t !== 'bool') return;
  d.add(on, 'method', on.view.v ? 'lora' : 'full');
  if (!on.view.v) return;
  d.loraSettings({
    r: `${w}.lora.r`,
    alpha: `${w}.lora.lora_alpha`,
    dropout: `${w}.lora.lora_dropout`,
    targets: `${w}.lora.target_modules`,
  });
}

/** DPO: the reference's log-probabilities come from a pass of their own, with its weights offloaded between passes. */
function dpo(d: ComposedFacts): void {
  const at = d.get('actor.beta') ?? d.get('data.train.chosen_key') ?? d.get('actor.model_name')!;
  d.add(at, 'preference', 'dpo');
  d.add(at, 'referenceModel', 'precomputed');
}

/** A reward model: AutoModelForTokenClassification with one label, scoring a chosen and a rejected sequence. */
function rewardModel(d: ComposedFacts, at: ComposedValue): void {
  d.add(at, 'head', 'seq_cls');
  d.add(at, 'numLabels', 1);
  d.add(at, 'preference', 'reward');
}

/**
 * PPO: a round of prompts_per_rollout x responses_per_prompt completions of up to max_new_tokens from a colocated
 * SGLang engine (mem_fraction_static of each GPU, released while the actor trains), then the actor's update on packed
 * micro-batches, a sequence counted as max_length_per_device x cp_size tokens (its prompt the rest after the
 * completion). The reference (kl.coef > 0) and the critic (gae) run passes of their own, their weights offloaded.
 */
function ppo(d: ComposedFacts, first: (...paths: string[]) => ComposedValue | undefined, cp: number): void {
  const at = d.get('adv.estimator') ?? d.get('actor.model_name')!;
  d.add(at, 'rollout', 'grpo');
  const n = first('rollout.train.responses_per_prompt', 'train_data.responses_per_prompt');
  const groups = n ? d.count(n.path, 'numGenerations') : undefined;
  const prompts = first('rollout.train.prompts_per_rollout', 'train_data.prompts_per_rollout');
  if (prompts?.view.t === 'num' && groups !== undefined)
    d.add(prompts, 'generationBatchSize', prompts.view.v * groups, {
      rawValue: `${prompts.rawValue} x ${groups} responses per prompt`,
    });
  rolloutLengths(d, first, cp);
  const engine = first('rollout.server_args.mem_fraction_static', 'rollout.gpu_memory_utilization') ?? at;
  const sglang = 'RL2 generates with SGLang colocated with the actor, estimated as a colocated engine that sleeps';
  d.add(engine, 'useVllm', true, { assumed: sglang });
  d.add(engine, 'vllmMode', 'colocate', { assumed: sglang });
  d.add(engine, 'vllmSleep', true, { assumed: `${sglang} (release_memory_occupation, workers/rollout.py)` });
  d.add(engine, 'vllmSharedWeights', false);
  if (engine !== at && engine.view.t === 'num') d.add(engine, 'vllmMemoryFraction', engine.view.v);
  const tp = first('rollout.server_args.tp_size', 'rollout.tp_size');
  if (tp) d.count(tp.path, 'vllmTensorParallel');
  const kl = d.get('actor.kl.coef') ?? at;
  d.add(kl, 'klBeta', 0, {
    assumed: `the reference scores in a pass of its own with its weights offloaded (ref_actor offload_model; ${SOURCE})`,
  });
  const adv = d.get('adv.estimator');
  if (adv && d.text(adv) === 'gae')
    d.problem(
      adv,
      'not-modeled',
      'info',
      msg(
        "{0}: gae trains a critic after the actor, its weights offloaded between its passes; it has no vocabulary head, so the actor's update is the estimate",
        adv.rawKey,
      ),
    );
}

/** The completion (max_new_tokens) and the prompt: the packing length less the completion, the longest RL2 admits. */
function rolloutLengths(d: ComposedFacts, first: (...paths: string[]) => ComposedValue | undefined, cp: number): void {
  const maxNew = first('rollout.train.sampling_params.max_new_tokens', 'rollout.train_sampling_params.max_new_tokens');
  const length = d.get('actor.max_length_per_device')?.view;
  if (!maxNew || maxNew.view.t !== 'num' || length?.t !== 'num' || length.v * cp < 2) return;
  const total = length.v * cp;
  const completion = Math.min(maxNew.view.v, total - 1);
  d.add(maxNew, 'completionLen', completion);
  const note = `a sequence holds at most actor.max_length_per_device x cp_size (${total}) tokens; the prompt the rest after ${completion} completion tokens`;
  d.add(maxNew, 'promptLen', total - completion, { assumed: note });
}
