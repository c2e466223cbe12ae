// The TRL release a trainer call dates: keywords a later release removed from the trainer's own arguments. TRL 0.13
// moved SFTTrainer's data arguments (`max_seq_length`, `packing`, `dataset_text_field`, ...) and DPOTrainer's loss
// arguments (`beta`, `max_length`, `max_prompt_length`, ...) into SFTConfig and DPOConfig; TRL 0.12 renamed the
// trainers' `tokenizer` processing_class, ORPO's, KTO's, CPO's and the RewardTrainer's at once, SFT's and DPO's behind
// a deprecation that 0.16 removed (trl v0.12.2 and v0.13.0 trainer signatures; @deprecate_kwarg("tokenizer", "0.16.0")
// in v0.13.0-v0.15.2). A script that passes them runs that release or an earlier one: the latest that takes the call
// is assumed, which a pin in the project overrides (pinned-versions.ts), and the defaults TRL changed since follow
// (trl-dated-defaults.ts: no checkpointing before 0.22, no bf16 before 0.19, the whole logits before 1.7). Pure.
import type { SyntaxNode } from '@lezer/common';
import type { Fact, Span, Tool } from '../facts';
import type { Entry, PythonFile } from './file';
import { span } from './syntax';

/** SFTTrainer's keywords that SFTConfig took over in TRL 0.13. */
const SFT_BEFORE_013 = [
  'dataset_text_field',
  'packing',
  'max_seq_length',
  'infinite',
  'num_of_sequences',
  'chars_per_token',
  'dataset_num_proc',
  'dataset_batch_size',
  'neftune_noise_alpha',
  'model_init_kwargs',
  'dataset_kwargs',
  'eval_packing',
];

/** DPOTrainer's keywords that DPOConfig took over in TRL 0.13. */
const DPO_BEFORE_013 = [
  'beta',
  'label_smoothing',
  'loss_type',
  'label_pad_token_id',
  'padding_value',
  'truncation_mode',
  'max_length',
  'max_prompt_length',
  'max_target_length',
  'is_encoder_decoder',
  'disable_dropout',
  'generate_during_eval',
  'precompute_ref_log_probs',
  'reference_free',
  'force_use_ref_model',
];

/** For each trainer, the newest release that takes each of its removed keywords. */
const LAST_RELEASE_TAKING: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  SFTTrainer: { ...Object.fromEntries(SFT_BEFORE_013.map((k) => [k, '0.12'])), tokenizer: '0.15' },
  DPOTrainer: { ...Object.fromEntries(DPO_BEFORE_013.map((k) => [k, '0.12'])), tokenizer: '0.15' },
  ORPOTrainer: { tokenizer: '0.11' },
  KTOTrainer: { tokenizer: '0.11' },
  CPOTrainer: { tokenizer: '0.11' },
  RewardTrainer: { tokenizer: '0.11' },
};

/** The minor release of a "0.x" version, for comparing the releases above. */
const minor = (v: string): number => Number(v.split('.')[1]);

/**
 * The TRL release a TRL trainer's call dates (the oldest bound among its keywords), as an assumption at the keyword
 * that gives it; undefined when it passes none of them.
 */
export function trlReleaseOfCall(
  file: PythonFile,
  trainer: string,
  entries: readonly Entry[],
  tool: Tool,
): Fact | undefined {
  const removed = tool === 'trl' ? LAST_RELEASE_TAKING[trainer] : undefined;
  if (!removed) return undefined;
  let found: { e: Entry; version: string } | undefined;
  for (const e of entries) {
    const version = removed[e.rawKey];
    if (version !== undefined && (!found || minor(version) < minor(found.version))) found = { e, version };
  }
  if (!found) return undefined;
  const { e, version } = found;
  const renamed = e.rawKey === 'tokenizer' ? 'processing_class' : trainer.replace('Trainer', 'Config');
  return {
    key: 'trlVersion',
    rawKey: e.rawKey,
    value: version,
    rawValue: file.text.slice(e.valueSpan.start, e.valueSpan.end),
    keySpan: e.keySpan,
    valueSpan: e.valueSpan,
    tool,
    origin: 'call-default',
    defaultNote:
      `${trainer}(${e.rawKey}=...), which TRL ${nextRelease(version)} no longer takes (${renamed} took it over), ` +
      `dates the run to TRL ${version} or earlier`,
  };
}

/** The release after a "0.x" one. */
const nextRelease = (v: string): string => `0.${minor(v) + 1}`;

/**
 * The TRL release a script's use of an API TRL 0.20 removed dates: `DataCollatorForCompletionOnlyLM` (deprecated "and
 * will be removed in version 0.20.0", trl v0.19 trl/trainer/utils.py; huggingface/trl#3827), or SFTConfig's
 * `max_seq_length`, renamed max_length in 0.16 and removed in 0.20 (huggingface/trl#3912), as a keyword of the config
 * or set on the arguments the SFTTrainer is given (`args.max_seq_length = config.block_size`, simplescaling/s1's
 * sft.py). TRL 0.19 is assumed, at the use; undefined when the script uses neither.
 */
export function trlReleaseOfRemovedApi(
  file: PythonFile,
  trainer: string,
  trainerArgs: readonly Entry[],
  tool: Tool,
): Fact | undefined {
  if (tool !== 'trl') return undefined;
  const argsEntry = trainerArgs.find((e) => e.rawKey === 'args');
  const name =
    argsEntry?.valueNode?.name === 'VariableName'
      ? file.text.slice(argsEntry.valueSpan.start, argsEntry.valueSpan.end)
      : undefined;
  // A script with hundreds of trainer calls (a fuzzed one) asks once per trainer and arguments name.
  const key = `${trainer}:${name ?? ''}`;
  if (!file.removedTrlApi.has(key)) file.removedTrlApi.set(key, removedApiUse(file, trainer, name));
  return file.removedTrlApi.get(key);
}

function removedApiUse(file: PythonFile, trainer: string, name: string | undefined): Fact | undefined {
  const named = (name: string): readonly SyntaxNode[] => [...file.callsNamed(name), ...file.callsNamed(`trl.${name}`)];
  const collator = named('DataCollatorForCompletionOnlyLM')[0];
  if (collator) {
    const at = span(collator.firstChild!);
    return removedIn020(file, 'DataCollatorForCompletionOnlyLM', at, 'completion_only_loss of SFTConfig replaced it');
  }
  const keyword =
    trainer === 'SFTTrainer'
      ? named('SFTConfig')
          .flatMap((c) => file.args(c).entries)
          .find((e) => e.rawKey === 'max_seq_length')
      : undefined;
  const set = name === undefined || trainer !== 'SFTTrainer' ? undefined : maxSeqLengthSet(file, name);
  const at = keyword?.keySpan ?? set;
  if (at) return removedIn020(file, 'max_seq_length', at, 'SFTConfig renamed it max_length in 0.16');
  return modelConfigTorchDtype(file);
}

/**
 * `model_args.torch_dtype` of TRL's ModelConfig parsed from the command line (`TrlParser((ScriptArguments, GRPOConfig,
 * ModelConfig))`, then `script_args, training_args, model_args = parser.parse_args_and_config()`): ModelConfig renamed
 * the field dtype in TRL 0.23 and removed torch_dtype in 0.27 (trl v0.26.0 trl/trainer/model_config.py: "will be
 * removed in version 0.27.0"), so the run is TRL 0.26 or earlier. Read from the parser's tuple and the unpacked names.
 */
function modelConfigTorchDtype(file: PythonFile): Fact | undefined {
  if (file.localClasses.has('ModelConfig') || !/\.torch_dtype\b/.test(file.text)) return undefined;
  const tuple = /\b(?:TrlParser|HfArgumentParser)\s*\(\s*[([]([\w\s.,]+)[)\]]/.exec(file.text);
  const index =
    tuple?.[1]
      .split(',')
      .map((c) => c.trim().split('.').pop())
      .indexOf('ModelConfig') ?? -1;
  if (index < 0) return undefined;
  const unpack = /^[ \t]*([\w \t,]+?)\s*=\s*\w+\.(?:parse_args_and_config|parse_args_into_dataclasses)\s*\(/m.exec(
    file.text,
  );
  const name = unpack?.[1].split(',')[index]?.trim();
  if (!name || !/^\w+$/.test(name)) return undefined;
  const use = new RegExp(`\\b${name}\\.torch_dtype\\b`).exec(file.text);
  if (!use) return undefined;
  const start = use.index + name.length + 1;
  const at = { start, end: start + 'torch_dtype'.length };
  return {
    key: 'trlVersion',
    rawKey: 'torch_dtype',
    value: '0.26',
    rawValue: `${name}.torch_dtype`,
    keySpan: at,
    valueSpan: at,
    tool: 'trl',
    origin: 'call-default',
    defaultNote:
      `${name}.torch_dtype, a field of TRL's ModelConfig that TRL 0.27 removed (dtype replaced it), dates the run ` +
      'to TRL 0.26 or earlier',
  };
}

/** `<name>.max_seq_length = ...`: where the attribute is written. */
function maxSeqLengthSet(file: PythonFile, name: string): Span | undefined {
  // The file's `x.max_seq_length = ...` statements, as its walk records them (index.ts: optionAssignments).
  for (const st of file.optionAssignments.get('max_seq_length') ?? []) {
    const target = st.firstChild;
    const object = target?.name === 'MemberExpression' ? target.firstChild : null;
    if (object?.name === 'VariableName' && file.text.slice(object.from, object.to) === name && target?.lastChild)
      return span(target.lastChild);
  }
  return undefined;
}

function removedIn020(file: PythonFile, api: string, at: Span, why: string): Fact {
  return {
    key: 'trlVersion',
    rawKey: api,
    value: '0.19',
    rawValue: file.text.slice(at.start, at.end),
    keySpan: at,
    valueSpan: at,
    tool: 'trl',
    origin: 'call-default',
    defaultNote: `${api}, which TRL 0.20 removed (${why}), dates the run to TRL 0.19 or earlier`,
  };
}
