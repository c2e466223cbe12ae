// TRL's defaults that changed between releases, taken back for a project that pins an older TRL: the defaults in
// TOOL_DEFAULTS.trl are today's (trl@f2cd577). Each applies only where TRL's default decided the key (no file sets it).
// Pure: no I/O.
import { olderThan, type ProvenanceMap, type TrainingSetup } from '../core';
import { toolDefault } from './defaults';
import { LAST_TRANSFORMERS_4 } from './facts';

/** One of TRL's defaults as an older release had it: from which release today's holds, and what it was before. */
interface DatedDefault {
  readonly key: 'gradient_checkpointing' | 'mixed_precision' | 'loss';
  /** Today's value, which the setup holds when TRL's default decided it. */
  readonly today: string;
  /** The release (major, minor) today's value came with. */
  readonly since: readonly [number, number];
  readonly before: string;
  readonly note: (version: string) => string;
}

const DATED: readonly DatedDefault[] = [
  {
    key: 'gradient_checkpointing',
    today: 'full',
    since: [0, 22],
    before: 'none',
    note: (v) =>
      `TRL configs took TrainingArguments' gradient_checkpointing=False before TRL 0.22 (TRL ${v} for this run; ` +
      'huggingface/trl#3510 made it True)',
  },
  {
    key: 'mixed_precision',
    today: 'bf16',
    since: [0, 19],
    before: 'none',
    note: (v) =>
      `TRL configs took TrainingArguments' bf16=False before TRL 0.19 (TRL ${v} for this run; huggingface/trl#3515 made it ` +
      'True): fp32 compute unless the run sets bf16 or fp16',
  },
  {
    key: 'loss',
    today: 'chunked-nll',
    since: [1, 7],
    before: 'full',
    note: (v) => `SFTConfig loss_type defaulted to "nll" before TRL 1.7 (TRL ${v} for this run): the whole logits`,
  },
];

/** The setup with TRL's defaults as the pinned release (`trl_version`) had them, and their provenance said so. */
export function trlDatedDefaults(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const version = setup.trl_version;
  if (version === undefined) return setup;
  let out = setup;
  for (const d of DATED) {
    const p = provenance[d.key];
    const fromTrl = p?.kind === 'default' && p.owner === 'trl';
    if (!fromTrl || out[d.key] !== d.today || !olderThan(version, ...d.since)) continue;
    out = { ...out, [d.key]: d.before };
    // What the resolver said after today's note (the file's own value where it is not known statically) stays said.
    const todayNote = toolDefault(['trl'], d.key)?.note ?? '';
    const said = todayNote && p.note?.startsWith(todayNote) ? p.note.slice(todayNote.length) : '';
    provenance[d.key] = { kind: 'default', owner: 'trl', note: d.note(version) + said };
  }
  return out;
}

/**
 * TRL's RewardTrainer before 0.24 scored the chosen and the rejected sequences with two forwards, both graphs held for
 * one backward (trl@v0.23.0 trl/trainer/reward_trainer.py compute_loss: `rewards_chosen = model(input_ids=inputs[
 * "input_ids_chosen"], ...)`, then the rejected); 0.24 concatenates them into one (`torch.chunk(outputs.logits, 2)`).
 * Taken where the project pins such a TRL and its reward trainer (a sequence classifier, no reference) is TRL's.
 */
export function trlRewardPassesOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  tools: readonly string[],
): TrainingSetup {
  const version = setup.trl_version;
  const pref = setup.preference;
  if (version === undefined || !olderThan(version, 0, 24) || !tools.includes('trl')) return setup;
  if (pref?.reference !== 'none' || !pref.paired || setup.head !== 'seq_cls' || pref.separate_passes !== undefined)
    return setup;
  provenance['preference.separate_passes'] = {
    kind: 'default',
    owner: 'trl',
    note:
      `RewardTrainer ran the chosen and the rejected sequences as two forwards before TRL 0.24 (TRL ${version} for ` +
      'this run; trl@v0.23.0 reward_trainer.py compute_loss): both graphs held, each forward the micro-batch alone',
  };
  return { ...setup, preference: { ...pref, separate_passes: true } };
}

/**
 * GRPOConfig's beta was 0.04 before TRL 0.19, whose GRPOTrainer then scores every round with a KL reference: a frozen
 * copy of the model, or a PEFT model with its adapters off. Taken back where TRL's default decided the reference and
 * the project pins an older TRL (Deep-Agent/R1-V: trl==0.14.0).
 */
export function trlGrpoBetaOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const version = setup.trl_version;
  const rollout = setup.rollout;
  const p = provenance['rollout.reference'];
  if (version === undefined || !olderThan(version, 0, 19) || rollout?.reference !== 'none') return setup;
  // TRL's default decided it, also for a beta the file gives but not statically (`beta=self.args.beta`).
  const note = p?.kind === 'default' && p.owner === 'trl' ? (p.note ?? '') : '';
  const at = note.indexOf('GRPOConfig beta defaults to 0.0');
  if (at < 0) return setup;
  const said = note.slice(0, at);
  const peft = setup.method === 'lora' || setup.method === 'qlora' || setup.method === 'ia3';
  const reference = peft ? 'adapters-off' : 'copy';
  provenance['rollout.reference'] = {
    kind: 'default',
    owner: 'trl',
    note:
      `${said}GRPOConfig beta defaulted to 0.04 before TRL 0.19 (TRL ${version} for this run): the reference ` +
      (peft
        ? 'model (the policy with its adapters off) scores every round'
        : 'model, a frozen copy, scores every round'),
  };
  return { ...setup, rollout: { ...rollout, reference } };
}

/**
 * Before TRL 0.15 GRPOTrainer's per_device_train_batch_size counted prompts, each generated num_generations times (8
 * by default) and trained on in the same step: every forward and backward holds micro-batch x num_generations
 * completions, and each micro-step generates its own (huggingface/trl#2776, in 0.15, made it count completions; the
 * forks of R1-style repositories keep the old trainer: Deep-Agent/R1-V's Qwen2VLGRPOTrainer `repeat_interleave(
 * self.num_generations)`). Taken where the project pins such a TRL and TRL's rule decided the generation round; 0.15
 * and 0.16 generated a micro-step's completions at a time (perMicroStepRound).
 */
export function trlGrpoPromptBatchOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  numGenerations: number | undefined,
  forkRule: boolean,
): TrainingSetup {
  const version = setup.trl_version;
  // A trainer of the project whose module shows its rule (grpo-forks.ts) follows that rule, not its pin's.
  if (forkRule) return setup;
  const rollout = setup.rollout;
  const round = provenance['rollout.batch'];
  if (version === undefined || !olderThan(version, 0, 17) || rollout?.objective !== 'policy-gradient') return setup;
  if (round?.kind !== 'default' || round.owner !== 'trl') return setup;
  if (!olderThan(version, 0, 15)) return perMicroStepRound(setup, provenance, version);
  const groups = numGenerations ?? 8;
  const micro = setup.micro_batch_size * groups;
  const why =
    `before TRL 0.15 (TRL ${version} for this run) per_device_train_batch_size counted prompts, each generated ` +
    `num_generations (${groups}) times and trained on in the same step (huggingface/trl#2776 made it count completions)`;
  const was = provenance.micro_batch_size;
  provenance.micro_batch_size = {
    kind: 'default',
    owner: 'trl',
    note: `${setup.micro_batch_size} prompt(s) x ${groups} completions: ${why}${was?.kind === 'file' ? ` (${was.key} at ${was.file}:${was.line})` : ''}`,
  };
  provenance['rollout.batch'] = { kind: 'default', owner: 'trl', note: `each step's own completions: ${why}` };
  return { ...setup, micro_batch_size: micro, rollout: { ...rollout, batch: micro } };
}

/**
 * TRL 0.15 and 0.16 generated each micro-step's own completions (GRPOTrainer._prepare_inputs at v0.15.0 and v0.16.0:
 * a round of per_device_train_batch_size completions; 0.16 buffered one per accumulation step for num_iterations);
 * 0.17 generates once for the accumulated batch, as today's steps_per_generation does.
 */
function perMicroStepRound(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  version: string,
): TrainingSetup {
  const rollout = setup.rollout;
  if (!rollout || rollout.batch === setup.micro_batch_size) return setup;
  provenance['rollout.batch'] = {
    kind: 'default',
    owner: 'trl',
    note:
      `TRL 0.15 and 0.16 generated each micro-step's own completions, per_device_train_batch_size of them (TRL ` +
      `${version} for this run; 0.17 generated once for the accumulated batch)`,
  };
  return { ...setup, rollout: { ...rollout, batch: setup.micro_batch_size } };
}

/**
 * The preference trainers' max_length before TRL 0.14, whose configs made it 1024: up to 0.11 the trainer set 512 where
 * none was given (trl@v0.11.4 trl/trainer/dpo_trainer.py: "it will default to `512`"; v0.7.11 likewise), and 0.12 and
 * 0.13 truncated nothing (max_length None: the longest pair, for which today's 1024 stands in, said so). Taken where
 * TRL's default decided the length and the project's TRL is that old (a pin, or a call only such a release takes).
 */
export function trlPreferenceLengthOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const version = setup.trl_version;
  const p = provenance.seq_len;
  if (version === undefined || setup.preference === undefined || !olderThan(version, 0, 14)) return setup;
  if (p?.kind !== 'default' || p.owner !== 'trl' || setup.seq_len !== 1024) return setup;
  // What the resolver said after today's note (Unsloth's max_seq_length set aside) stays said.
  const todayNote = toolDefault(['trl'], 'seq_len')?.note ?? '';
  const rest = todayNote && p.note?.startsWith(todayNote) ? p.note.slice(todayNote.length) : '';
  if (olderThan(version, 0, 12)) {
    provenance.seq_len = {
      kind: 'default',
      owner: 'trl',
      note: `the preference trainers set max_length 512 where none was given before TRL 0.12 (TRL ${version} for this run)${rest}`,
    };
    return { ...setup, seq_len: 512 };
  }
  provenance.seq_len = {
    kind: 'default',
    owner: 'trl',
    note:
      `max_length was None in TRL 0.12 and 0.13 (TRL ${version} for this run): the pairs are not truncated and the ` +
      `longest sets the length; 1024, the later default, stands in${rest}`,
  };
  return setup;
}

/**
 * A TRL release before 0.27 runs on transformers 4: TRL 0.27 (January 2026) brought its fixes for transformers 5
 * (huggingface/trl#4691, #4781, #4798), whose 5.0 left its release candidates after it. Where no file gives
 * transformers' release, the last 4.x one is assumed for such a run, and said so: its defaults are 4.x's (no
 * dtype="auto", one nn.Linear per MoE expert, which bitsandbytes quantizes).
 */
export function transformersOfTrlRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const trl = setup.trl_version;
  if (setup.transformers_version !== undefined || trl === undefined || !olderThan(trl, 0, 27)) return setup;
  provenance.transformers_version = {
    kind: 'default',
    owner: 'trl',
    note:
      `TRL ${trl} predates transformers 5 (TRL 0.27 brought its fixes for it, huggingface/trl#4691, #4781): ` +
      `${LAST_TRANSFORMERS_4}, the last 4.x release, is assumed; an older one may hold more: set transformers_version`,
  };
  return { ...setup, transformers_version: LAST_TRANSFORMERS_4 };
}

/**
 * TRL's RLOOTrainer before 0.22 is the on-policy trainer of PPOv2's line (trl/trainer/rloo_trainer.py at v0.21.0): it
 * takes a separate reference policy and a reward model, generates rloo_k completions of response_length tokens (53)
 * for each prompt in chunks of local_rollout_forward_batch_size, and takes a log_softmax over the whole vocabulary of
 * each micro-batch; 0.22 rewrote it on GRPO's rollout (num_generations, max_completion_length). The estimate reads the
 * rewritten trainer's keys and defaults: for an older pin, a warning at the trainer says the rest is not modeled.
 */
export function oldRlooNote(trlVersion: string | undefined): string | undefined {
  if (trlVersion === undefined || !olderThan(trlVersion, 0, 22)) return undefined;
  return (
    `TRL ${trlVersion}'s RLOOTrainer (before 0.22) is not modeled: its separate reference policy, its rloo_k ` +
    'completions of response_length tokens and its log_softmax over the whole vocabulary; the estimate follows ' +
    "TRL 0.22 and later, whose RLOO runs GRPO's rollout"
  );
}

/**
 * The oldest transformers each TRL release line installs with, newest line first (`install_requires` of TRL's
 * setup.py / setup.cfg at each release tag, huggingface/trl): 0.27 and every later release ask for 4.56.2, 0.23-0.26
 * for 4.56.1, 0.21-0.22 for 4.55, 0.20 for 4.53.2, 0.19 for 4.51, 0.18 for 4.50, 0.12-0.17 for 4.46, 0.11 for 4.40,
 * 0.8-0.10 for 4.31. Each entry is the newest release line a transformers at or above its version allows.
 */
const TRL_MIN_TRANSFORMERS: readonly (readonly [trl: string, transformers: readonly [number, number, number]])[] = [
  ['0.27', [4, 56, 2]],
  ['0.26', [4, 56, 1]],
  ['0.22', [4, 55, 0]],
  ['0.20', [4, 53, 2]],
  ['0.19', [4, 51, 0]],
  ['0.18', [4, 50, 0]],
  ['0.17', [4, 46, 0]],
  ['0.11', [4, 40, 0]],
  ['0.10', [4, 31, 0]],
  ['0.7', [4, 18, 0]],
];

/**
 * A project that pins transformers but not TRL installs the newest TRL that release allows: pip takes no TRL whose
 * install_requires asks for a newer transformers. Below 4.56.2 that is an older TRL than today's, whose release is
 * then the run's, said so, so that its dated defaults apply (SiliangZeng/R1-Experiment pins transformers==4.48.1 and
 * installs TRL from its repository: TRL 0.17 at the newest, whose GRPOConfig left gradient_checkpointing off and
 * scored a KL reference).
 */
export function trlOfTransformersRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const transformers = setup.transformers_version;
  if (setup.trl_version !== undefined || transformers === undefined || provenance.transformers_version?.kind !== 'file')
    return setup;
  const at = TRL_MIN_TRANSFORMERS.findIndex(([, min]) => !olderThan(transformers, ...min));
  if (at <= 0) return setup;
  const [newer, min] = TRL_MIN_TRANSFORMERS[at - 1];
  provenance.trl_version = {
    kind: 'default',
    owner: 'trl',
    note:
      `the newest TRL that transformers ${transformers} allows: TRL ${newer} asks for transformers >= ${min.join('.')} ` +
      '(install_requires at its release tag); set trl_version where the run installs another',
  };
  return { ...setup, trl_version: TRL_MIN_TRANSFORMERS[at][0] };
}

/**
 * Before TRL 0.25 the preference and RL trainers fused their loss with Liger only for `use_liger_loss` (GRPOTrainer from
 * 0.18, DPOTrainer and KTOTrainer from 0.19: `if self.use_liger_loss`); `use_liger_kernel` patched the model's kernels
 * only, and their forward, which passes no labels, made the whole logits. 0.25 renamed the switch (trl@v0.25.0
 * grpo_trainer.py: `self.use_liger_kernel = args.use_liger_kernel`). Taken back where the fused loss comes from
 * use_liger_kernel and the project pins an older TRL (xinyue097/medical-reasoning's GRPO under trl 0.18.0).
 */
export function trlLigerKernelOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const version = setup.trl_version;
  const p = provenance.loss;
  const trainer = setup.rollout ? 'GRPOTrainer' : setup.preference ? 'DPOTrainer / KTOTrainer' : undefined;
  if (!trainer || version === undefined || !olderThan(version, 0, 25) || setup.loss !== 'fused') return setup;
  if (p?.kind !== 'file' || !/liger_kernel$/.test(p.key)) return setup;
  provenance.loss = {
    kind: 'default',
    owner: 'trl',
    note:
      `${p.key} (${p.file.split('/').pop()}:${p.line}) patches Liger's kernels into the model only before TRL 0.25 ` +
      `(TRL ${version} for this run): ${trainer}'s forward passes no labels, so the whole logits are made; ` +
      'use_liger_loss fused its loss until 0.25 renamed it',
  };
  return { ...setup, loss: 'full' };
}

/**
 * Before TRL 0.23 GRPOTrainer took the old policy's log-probabilities only for a round optimized more than once or
 * serving more micro-batches than one optimizer step (trl@v0.19.0 grpo_trainer.py: `if self.num_iterations > 1 or
 * self.args.steps_per_generation > self.args.gradient_accumulation_steps`); 0.23 added vLLM's importance-sampling
 * correction (vllm_importance_sampling_correction, on by default), which scores every vLLM round. Taken back where vLLM
 * alone decided it and the project pins an older TRL (xuwangzi/dapo-reproduction's TRL 0.18 run).
 */
export function trlOldLogpsOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const version = setup.trl_version;
  const rollout = setup.rollout;
  const p = provenance['rollout.old_logps'];
  if (!rollout?.old_logps || version === undefined || !olderThan(version, 0, 23)) return setup;
  if (p?.kind !== 'file' || p.key !== 'use_vllm') return setup;
  provenance['rollout.old_logps'] = {
    kind: 'default',
    owner: 'trl',
    note:
      `GRPOTrainer scored the old policy only for a round optimized more than once or serving more micro-batches than ` +
      `one optimizer step before TRL 0.23 (TRL ${version} for this run), whose vLLM importance-sampling correction ` +
      `scores every vLLM round (use_vllm at ${p.file.split('/').pop()}:${p.line})`,
  };
  return { ...setup, rollout: { ...rollout, old_logps: false } };
}
