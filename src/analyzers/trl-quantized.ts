// What TRL's trainers do to a bitsandbytes 4-bit / 8-bit model before they train it, by release. Until a trainer's
// model-preparation clean-up, it called PEFT's prepare_model_for_kbit_training on a quantized model that is not
// already a PeftModel (every unquantized parameter to fp32: the norms, the embeddings, the head) and then, for a 4-bit
// model under bf16, peft_module_casting_to_bf16 (trl/trainer/utils.py, from 0.7.5): the norms stay fp32, the
// embeddings and the head go back to bf16, and before 0.9.3 (trl#1644) the LoRA layers too. QLoRA under FSDP or
// ZeRO-3 (its 4-bit parameters on the CPU or the meta device, `is_sharded_qlora`) skips both. After the clean-up
// (SFTTrainer and GRPOTrainer 0.26, trl#4577; RLOOTrainer 0.27; DPOTrainer 0.29) nothing is upcast and the trainable
// parameters of a quantized model are cast to bf16 (sft_trainer.py "the PEFT adapter weights are converted to bf16").
// ORPO, CPO, KTO, BCO and online DPO (trl/experimental) still prepare. The rules the pipeline applies for a TRL run
// (pipeline.ts withPinnedVersions) and the published cases' converter (bench/measured-cases.ts). Pure.
import { olderThan, type TrainingSetup } from '../core';

type PreparationFields = Pick<
  TrainingSetup,
  'trl_version' | 'quantization' | 'mixed_precision' | 'preference' | 'rollout' | 'fsdp' | 'zero_stage'
>;

/** What a TRL trainer does to a quantized model: the fp32 upcast it leaves, the LoRA dtype it casts to, and why. */
export interface TrlQuantizedPreparation {
  readonly kbitUpcast: TrainingSetup['kbit_upcast'];
  /** Whether the trainer calls prepare_model_for_kbit_training (it and its casts skip a model that is a PeftModel). */
  readonly prepares: boolean;
  /** The LoRA weights cast to bf16 by the trainer (undefined: PEFT's own dtype stays). */
  readonly adapterDtype?: 'bf16';
  readonly note: string;
  /**
   * The preparation turns gradient checkpointing on whatever the training arguments say: before TRL 0.7.2, SFTTrainer
   * and DPOTrainer called `prepare_model_for_int8_training(model)`, whose use_gradient_checkpointing defaults to True
   * (trl v0.7.1 trl/trainer/sft_trainer.py and dpo_trainer.py); 0.7.2 passed args.gradient_checkpointing (trl#728).
   */
  readonly checkpointing?: string;
}

/** A bitsandbytes 4/8-bit load (not GPTQ, AWQ or torchao, which PEFT's and TRL's preparations leave as they are). */
export function bitsandbytesLoad(q: { readonly type?: string; readonly library?: string } | undefined): boolean {
  return q !== undefined && q.library !== 'torchao' && q.type !== 'gptq' && q.type !== 'awq';
}

/** FSDP or ZeRO-3 shards the model: its 4-bit weights are loaded on the CPU or the meta device, unprepared. */
export function shardsModel(s: Partial<Pick<TrainingSetup, 'fsdp' | 'zero_stage'>>): boolean {
  return (s.fsdp !== undefined && s.fsdp !== 'none') || s.zero_stage === 3;
}

/**
 * The trainer that prepares the model, the first release that does (undefined: every release before the clean-up) and
 * the first release without prepare_model_for_kbit_training (none: still).
 */
function trainer(s: PreparationFields): {
  name: string;
  since?: readonly [number, number];
  cleanUp?: readonly [number, number];
} {
  // GRPOTrainer (and the rewritten RLOOTrainer) prepared from 0.22, through prepare_peft_model (trl/models/utils.py),
  // until the clean-up; before 0.22 GRPOTrainer only called get_peft_model. RLOOTrainer prepared one release longer
  // (0.27); a rollout does not say which of the two runs it. OnlineDPOTrainer (trl/experimental from 0.26) still
  // prepares.
  if (s.rollout)
    return s.rollout.objective === 'online-dpo'
      ? { name: 'OnlineDPOTrainer' }
      : { name: 'GRPOTrainer (or RLOOTrainer)', since: [0, 22], cleanUp: [0, 26] };
  const p = s.preference;
  if (!p) return { name: 'SFTTrainer', cleanUp: [0, 26] };
  if (p.paired === false) return { name: 'KTOTrainer' };
  if (p.reference === 'none') return { name: 'ORPOTrainer / CPOTrainer' };
  return { name: 'DPOTrainer', cleanUp: [0, 29] };
}

/**
 * What the TRL release (`trl_version`; unset: a current one) does to the run's quantized model; undefined when the
 * model is not a bitsandbytes 4/8-bit load (GPTQ, AWQ and torchao models are left as they are).
 */
export function trlQuantizedPreparation(s: PreparationFields): TrlQuantizedPreparation | undefined {
  const q = s.quantization;
  if (!q || !bitsandbytesLoad(q)) return undefined;
  const t = trainer(s);
  const prepares = t.cleanUp === undefined || olderThan(s.trl_version, ...t.cleanUp);
  const release = s.trl_version ? `TRL ${s.trl_version}` : 'the current TRL';
  if (t.since && olderThan(s.trl_version, ...t.since))
    return {
      kbitUpcast: 'none',
      prepares: false,
      note:
        `${release}'s ${t.name} only calls get_peft_model (prepare_model_for_kbit_training came with TRL ` +
        `${t.since.join('.')}'s prepare_peft_model): the unquantized parameters keep the dtype they were loaded in`,
    };
  if (!prepares)
    return {
      kbitUpcast: 'none',
      prepares: false,
      adapterDtype: 'bf16',
      note:
        `${release}'s ${t.name} keeps the unquantized parameters in 16 bits and casts the LoRA weights to bf16` +
        (s.trl_version || !t.cleanUp
          ? ''
          : `; before TRL ${t.cleanUp.join('.')} it called prepare_model_for_kbit_training (the norms in fp32 under ` +
            'bf16, every unquantized parameter otherwise): a trl pin in requirements.txt says which release runs'),
    };
  if (shardsModel(s) && q.bits === 4)
    return {
      kbitUpcast: 'none',
      prepares: false,
      note: `${release}'s ${t.name} skips prepare_model_for_kbit_training for QLoRA under FSDP or ZeRO-3`,
    };
  const castBack = q.bits === 4 && s.mixed_precision === 'bf16' && !olderThan(s.trl_version, 0, 7, 5);
  if (!castBack)
    return {
      kbitUpcast: 'all',
      prepares: true,
      note: `${release}'s ${t.name} calls prepare_model_for_kbit_training: every unquantized parameter in fp32`,
      ...(olderThan(s.trl_version, 0, 7, 2)
        ? {
            checkpointing:
              `${release}'s ${t.name} calls prepare_model_for_int8_training(model), whose use_gradient_checkpointing ` +
              'defaults to True: every layer is checkpointed whatever the training arguments say (from TRL 0.7.2 ' +
              'it passes args.gradient_checkpointing)',
          }
        : {}),
    };
  return {
    kbitUpcast: 'norms',
    prepares: true,
    ...(olderThan(s.trl_version, 0, 9, 3) ? { adapterDtype: 'bf16' as const } : {}),
    note:
      `${release}'s ${t.name} calls prepare_model_for_kbit_training, then peft_module_casting_to_bf16: ` +
      'the norms stay fp32, the embeddings and the head go back to bf16' +
      (olderThan(s.trl_version, 0, 9, 3) ? ', and the LoRA weights too' : ''),
  };
}
