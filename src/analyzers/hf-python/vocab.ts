// The names a training program is recognized by: training-argument and TRL config classes, trainers, collators,
// PEFT configs, parsers, the objectives TRL's trainers train, and Unsloth's classes and defaults. Data; pure.
// Training argument classes. TRL configs subclass TrainingArguments and change its defaults
// (trl@f2cd577:trl/trainer/base_config.py), so their facts carry the 'trl' tool.
export const HF_ARGS = new Set(['TrainingArguments', 'Seq2SeqTrainingArguments']);
export const TRL_CONFIGS = new Set([
  'SFTConfig',
  'DPOConfig',
  'GRPOConfig',
  'RLOOConfig',
  'ORPOConfig',
  'KTOConfig',
  'PPOConfig',
  'RewardConfig',
  'CPOConfig',
  'BCOConfig',
  'GKDConfig',
  'PRMConfig',
  'NashMDConfig',
  'OnlineDPOConfig',
  'XPOConfig',
  'IterativeSFTConfig',
  'GOLDConfig',
  'MiniLLMConfig',
  'AlignPropConfig',
  'DDPOConfig',
]);
export const TRL_TRAINERS =
  /^(SFT|DPO|GRPO|RLOO|ORPO|KTO|PPO|Reward|CPO|BCO|GKD|PRM|NashMD|OnlineDPO|XPO|IterativeSFT|GOLD|MiniLLM)Trainer$/;
export const HF_TRAINERS = new Set(['Trainer', 'Seq2SeqTrainer']);
/** transformers collators that pad each batch to its longest sample unless padding="max_length". */
export const PADDING_COLLATORS = new Set(['DataCollatorForSeq2Seq', 'DataCollatorWithPadding']);
/**
 * PEFT methods other than LoRA and IA3 (peft/tuners), and ReFT (stanfordnlp/pyreft's get_reft_model: the base model
 * frozen, low-rank interventions on hidden states): their adapters and saved tensors are not modeled.
 */
export const OTHER_PEFT_CONFIGS = new Set([
  'get_reft_model',
  'ReftConfig',
  'PromptTuningConfig',
  'PrefixTuningConfig',
  'PromptEncoderConfig',
  'MultitaskPromptTuningConfig',
  'AdaptionPromptConfig',
  'CPTConfig',
  'LoHaConfig',
  'LoKrConfig',
  'AdaLoraConfig',
  'OFTConfig',
  'BOFTConfig',
  'VeraConfig',
  'FourierFTConfig',
  'LNTuningConfig',
  'BoneConfig',
  'MissConfig',
  'HRAConfig',
  'VBLoRAConfig',
  'C3AConfig',
  'ShiraConfig',
  'RoadConfig',
  'TrainableTokensConfig',
  'XLoraConfig',
  'PolyConfig',
  'RandLoraConfig',
  'WaveFTConfig',
  'DeloraConfig',
  'GraloraConfig',
  'OSFConfig',
]);
/** HfArgumentParser, TRL's TrlParser, and alignment-handbook's H4ArgumentParser (an HfArgumentParser subclass). */
export const PARSERS = new Set(['HfArgumentParser', 'TrlParser', 'H4ArgumentParser']);
/**
 * TRL's paired preference trainers: chosen and rejected run in one forward. DPO compares with a reference model (a
 * frozen copy, or the model with its adapters disabled); ORPO and CPO (SimPO with cpo_alpha=0) need none.
 */
export const UNMODELED_TRL: Readonly<Record<string, string>> = {
  PPOConfig: 'ppo',
  NashMDConfig: 'xpo',
  XPOConfig: 'xpo',
};
export const PREFERENCE_CONFIGS: Readonly<Record<string, string>> = {
  DPOConfig: 'dpo',
  DPOTrainer: 'dpo',
  KTOConfig: 'kto',
  KTOTrainer: 'kto',
  ORPOConfig: 'reference-free',
  ORPOTrainer: 'reference-free',
  CPOConfig: 'reference-free',
  CPOTrainer: 'reference-free',
  // RewardTrainer scores the chosen and the rejected sequence of each pair with a sequence classifier, no reference.
  RewardConfig: 'reward',
  RewardTrainer: 'reward',
};
/**
 * TRL's online RL trainers whose rollouts are modeled: GRPO generates completions, scores them, then trains on them;
 * RLOO has the same structure since TRL 0.23 (a leave-one-out baseline instead of the group's, beta 0.05 by default);
 * online DPO generates two completions per prompt in each micro-step and trains on the pair.
 */
export const ROLLOUT_CONFIGS: Readonly<Record<string, string>> = {
  GRPOConfig: 'grpo',
  GRPOTrainer: 'grpo',
  RLOOConfig: 'rloo',
  RLOOTrainer: 'rloo',
  OnlineDPOConfig: 'online-dpo',
  OnlineDPOTrainer: 'online-dpo',
};
/**
 * Unsloth's per-architecture classes (unsloth/models/llama.py FastLlamaModel, and mistral.py, qwen2.py, qwen3.py,
 * qwen3_moe.py, granite.py, cohere.py, gemma.py, gemma2.py, falcon_h1.py, each a FastLlamaModel): from_pretrained
 * takes model_name, max_seq_length (4096 by default), dtype and load_in_4bit (True) in that order, and get_peft_model
 * is FastLlamaModel's, as FastLanguageModel's is.
 */
export const UNSLOTH_ARCH_CLASSES: ReadonlySet<string> = new Set([
  'FastLlamaModel',
  'FastMistralModel',
  'FastQwen2Model',
  'FastQwen3Model',
  'FastQwen3MoeModel',
  'FastGraniteModel',
  'FastCohereModel',
  'FastGemmaModel',
  'FastGemma2Model',
  'FastFalconH1Model',
]);
/** Unsloth's model classes (unsloth/models/loader.py FastLanguageModel and FastModel, vision.py FastVisionModel). */
export const UNSLOTH_CLASSES: ReadonlySet<string> = new Set([
  'FastLanguageModel',
  'FastModel',
  'FastVisionModel',
  ...UNSLOTH_ARCH_CLASSES,
]);
/** FastLanguageModel.get_peft_model's target_modules default (unsloth/models/llama.py). */
export const UNSLOTH_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
/** Sequence-length names used by TRL configs, the HF example scripts and the Alpaca/FastChat family (FORMATS.md §2.3). */
export const SEQ_KEYS = new Set([
  'max_seq_length',
  'model_max_length',
  'max_seq_len',
  'block_size',
  'cutoff_len',
  'sequence_len',
]);
