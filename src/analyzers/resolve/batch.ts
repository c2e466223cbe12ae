// Batch sizes: the evaluation batch during training, and DeepSpeed's derivation of the micro-batch or the accumulation
// from train_batch_size over the data-parallel world. Rules of FIELD_RULES; pure.
import { isUnknown, msg, type FactValue } from '../facts';
import { fileProv, num, type ResolveContext } from './context';
import { isEncoderDecoder, parseArchitecture, SCHEMA_DEFAULT_NOTES, type HfConfig, type Provenance } from '../../core';
import type { WinningFact } from './types';

/** The data-parallel world: every GPU of the run over the tensor-, pipeline- and context-parallel groups. */
export function dataParallelWorld(setup: ResolveContext['setup']): number {
  const worldSize = ((setup.gpus_per_node as number | undefined) ?? 1) * ((setup.nodes as number | undefined) ?? 1);
  // The GPUs of a context-parallel group share each sequence (ring attention, Ulysses): one data-parallel rank
  // (OpenRLHF utils/deepspeed/deepspeed.py: accumulated_gradient = train_batch_size x ring_attn_size / micro / world).
  const model =
    ((setup.tensor_parallel as number | undefined) ?? 1) * ((setup.pipeline_parallel as number | undefined) ?? 1);
  return worldSize / (model * ((setup.context_parallel as number | undefined) ?? 1));
}

/**
 * Evaluation during training: its batch is the file's, or the trainer's default (HF per_device_eval_batch_size 8,
 * Axolotl eval_batch_size = micro_batch_size).
 */
export function resolveEvalBatch(ctx: ResolveContext): void {
  const { decided, tools, setup, prov } = ctx;
  if (
    decided.evalStrategy &&
    decided.evalStrategy.fact.value === true &&
    !ctx.fromFact('eval_batch_size', 'evalBatchSize', num)
  ) {
    const axolotl = tools[0] === 'axolotl';
    setup.eval_batch_size = axolotl ? ((setup.micro_batch_size as number | undefined) ?? 1) : 8;
    prov.eval_batch_size = {
      kind: 'default',
      owner: axolotl ? 'axolotl' : (tools[0] ?? 'hf-trainer'),
      note: axolotl
        ? 'eval_batch_size defaults to micro_batch_size'
        : 'per_device_eval_batch_size defaults to 8 (transformers TrainingArguments)',
    };
  }
}

/**
 * An evaluation that only generates: its prompts' length and the tokens generated after them, both from the files
 * (THUDM's GLM finetune configs), and only where an evaluation runs.
 */
export function resolveEvalGeneration(ctx: ResolveContext): void {
  const { decided, setup, prov } = ctx;
  const tokens = decided.evalNewTokens;
  const prompt = decided.evalPromptLen;
  if (setup.eval_batch_size === undefined || !tokens || !prompt) return;
  const newTokens = num(tokens.fact.value as FactValue);
  const promptLen = num(prompt.fact.value as FactValue);
  if (newTokens === undefined || promptLen === undefined) return;
  setup.eval_generation = { prompt_len: promptLen, new_tokens: newTokens };
  prov.eval_generation = fileProv(tokens);
}

/** DeepSpeed batch derivation: train_batch_size = micro x accumulation x data-parallel world size. */
export function resolveTrainBatch(ctx: ResolveContext): void {
  const { decided, setup, prov, problems } = ctx;
  const dpWorld = dataParallelWorld(setup);
  const tb = decided.trainBatchSize ? num(decided.trainBatchSize.fact.value as FactValue) : undefined;
  if (tb !== undefined) {
    const w = decided.trainBatchSize!;
    const micro = setup.micro_batch_size as number | undefined;
    const gas = setup.gradient_accumulation_steps as number | undefined;
    if (micro !== undefined && gas !== undefined) {
      if (micro * gas * dpWorld !== tb && !worldFromBatch(ctx, w, tb / (micro * gas))) {
        problems.push({
          ...w.location,
          severity: 'error',
          code: 'batch-size-mismatch',
          key: w.fact.rawKey,
          ...msg(
            'train_batch_size {0} != {1} (micro) x {2} (accumulation) x {3} (GPUs) = {4}',
            tb,
            micro,
            gas,
            dpWorld,
            micro * gas * dpWorld,
          ),
        });
      }
    } else if (micro !== undefined) {
      const g = tb / (micro * dpWorld);
      if (Number.isInteger(g) && g > 0) {
        setup.gradient_accumulation_steps = g;
        prov.gradient_accumulation_steps = derived(w, `${w.fact.rawKey} / (micro x GPUs)`);
      }
    } else {
      const m = tb / ((gas ?? 1) * dpWorld);
      if (Number.isInteger(m) && m > 0) {
        setup.micro_batch_size = m;
        prov.micro_batch_size = derived(w, `${w.fact.rawKey} / (accumulation x GPUs)`);
      }
    }
  }
}

/**
 * A GPU count no file gives (one GPU assumed, or the launcher takes every GPU it sees) where train_batch_size, the
 * micro-batch and the accumulation are all given: DeepSpeed asserts train_batch_size = micro x accumulation x
 * data-parallel world at start-up (runtime/config.py _batch_assertion), so the run has that world. Set, with the
 * formula at train_batch_size's key, when it is a whole number of GPUs per node.
 */
function worldFromBatch(ctx: ResolveContext, w: WinningFact, dp: number): boolean {
  const { setup, prov } = ctx;
  const given = (p: Provenance | undefined): boolean => p !== undefined && p.kind !== 'default';
  if (given(prov.gpus_per_node) || given(prov.nodes) || !Number.isInteger(dp) || dp < 1) return false;
  const layout =
    ((setup.tensor_parallel as number | undefined) ?? 1) * ((setup.pipeline_parallel as number | undefined) ?? 1);
  const perNode = (dp * layout) / ((setup.nodes as number | undefined) ?? 1);
  if (!Number.isInteger(perNode)) return false;
  setup.gpus_per_node = perNode;
  prov.gpus_per_node = derived(
    w,
    `${w.fact.rawKey} / (micro x accumulation): the data-parallel GPUs DeepSpeed requires (no file gives the count)`,
  );
  return true;
}

/** A value derived from train_batch_size: the formula at the file's key, or with the note of a tool's default. */
function derived(w: WinningFact, formula: string): Provenance {
  const p = w.fact.origin === 'call-default' && w.fact.defaultNote !== undefined ? fileProv(w) : undefined;
  if (p?.kind === 'default') return { ...p, note: `${p.note ?? ''}; ${formula}` };
  return { kind: 'file', file: w.file, line: w.location.line, key: formula };
}

/**
 * ArcticTraining without data.max_length sets it to the model's max_position_embeddings (config/trainer.py
 * set_max_length): the longest sample its batches are padded to. Runs after the architecture is known.
 */
export function seqLenAtArcticDefault(ctx: ResolveContext): void {
  const { setup, prov } = ctx;
  if (setup.seq_len !== undefined || ctx.tools[0] !== 'arctic-training') return;
  const parsed = parseArchitecture(setup.architecture as HfConfig);
  if (!parsed.ok || !(parsed.arch.maxPositions > 0)) return;
  setup.seq_len = parsed.arch.maxPositions;
  prov.seq_len = {
    kind: 'default',
    owner: 'arctic-training',
    note:
      `ArcticTraining sets data.max_length to the model's max_position_embeddings, ${parsed.arch.maxPositions}, where ` +
      'the config leaves it out (snowflakedb/ArcticTraining@b28638e:arctic_training/config/trainer.py set_max_length)',
  };
}

/** The sequence length VRAM Lens takes where neither the files nor their tool give one (TrainingSetupSchema). */
const DEFAULT_SEQ_LEN = 2048;

/**
 * A model with learned position embeddings takes no longer input than it has positions (BERT's 512, GPT-2's 1,024:
 * a longer one indexes past the table): where nothing gives the length, the default is that many tokens when fewer
 * than VRAM Lens's default, said as an assumption. Runs after the architecture is known.
 */
export function capSeqLenAtPositions(ctx: ResolveContext): void {
  const { setup, prov } = ctx;
  if (setup.seq_len !== undefined) return;
  const parsed = parseArchitecture(setup.architecture as HfConfig);
  if (!parsed.ok || !(parsed.arch.maxPositions < DEFAULT_SEQ_LEN)) return;
  // DeBERTa-v3 and T5 have no absolute positions, only relative ones bucketed to any length; DeBERTa's
  // max_position_embeddings and T5's n_positions (512 where unset: T5Config has no such key) are the length it was
  // trained at (T5: 512 input tokens, Raffel et al. 2020, section 3.1.2), which fine-tunes keep.
  const relative =
    parsed.arch.positions === 'relative' && (parsed.arch.deberta !== undefined || parsed.arch.family === 't5');
  if (parsed.arch.positions !== 'learned' && !relative) return;
  const positions = parsed.arch.maxPositions;
  const unknown = ctx.unknownOnly.seqLen;
  setup.seq_len = positions;
  prov.seq_len = {
    kind: 'default',
    owner: 'VRAM Lens',
    note:
      (relative
        ? `the length the model was trained at (${trainedLengthKey(setup.architecture as HfConfig, parsed.arch.family)} ` +
          `${positions}; its relative positions take longer inputs)`
        : `the longest input the model takes: its learned position embeddings hold ${positions} positions`) +
      ` (fewer than the ${DEFAULT_SEQ_LEN} assumed otherwise)` +
      (unknown ? `; the file's value ${unknown.fact.rawValue} is not known statically` : ''),
  };
}

/** Where a relative-position model's trained length is written: DeBERTa's max_position_embeddings, T5's n_positions. */
function trainedLengthKey(config: HfConfig, family: string): string {
  if (family !== 't5') return 'max_position_embeddings';
  return config.n_positions !== undefined ? 'n_positions' : "T5's pre-training length";
}

/**
 * Where the files write a length that is not known statically and nothing else gives one (ms-swift 3's max_length
 * None: the model's max_model_len, the records' own lengths then bound a batch), VRAM Lens's default stands in: said
 * with the file's value and why it is open, where the schema's default would otherwise be said alone.
 */
export function seqLenAtOpenValue(ctx: ResolveContext): void {
  const { setup, prov } = ctx;
  const unknown = ctx.unknownOnly.seqLen;
  if (setup.seq_len !== undefined || prov.seq_len !== undefined || !unknown) return;
  const { value, rawValue, origin, tool } = unknown.fact;
  const reason = isUnknown(value) ? ` (${value.unknown})` : '';
  // A launcher's own default the command leaves in place (origin call-default) is not a value of the file's.
  const whose = origin === 'call-default' && tool ? `${tool}'s default` : "the file's value";
  setup.seq_len = DEFAULT_SEQ_LEN;
  prov.seq_len = {
    kind: 'default',
    owner: 'VRAM Lens',
    note:
      `${SCHEMA_DEFAULT_NOTES.seq_len}, ${DEFAULT_SEQ_LEN} tokens; ` +
      `${whose} ${rawValue} is not known statically${reason}`,
  };
}

/**
 * A script's max_source_length + max_target_length (hf-python classes.ts), which a decoder-only model trains on as one
 * sequence, is two lengths for an encoder-decoder (T5, BART): its encoder reads the source (seq_len) and its decoder the
 * target (target_len), said at the sum. Runs after the architecture is known.
 */
export function encoderDecoderLengths(ctx: ResolveContext): void {
  const { setup, prov, decided } = ctx;
  labelsLength(ctx);
  const w = decided.seqLen;
  if (w?.fact.rawKey !== 'max_source_length + max_target_length') return;
  const parsed = parseArchitecture(setup.architecture as HfConfig);
  const parts = /^(\d+) \+ (\d+)$/.exec(w.fact.rawValue);
  if (!parsed.ok || !isEncoderDecoder(parsed.arch) || !parts || setup.seq_len !== Number(parts[1]) + Number(parts[2]))
    return;
  const [source, target] = [Number(parts[1]), Number(parts[2])];
  setup.seq_len = source;
  setup.target_len = target;
  const note = 'an encoder-decoder reads max_source_length in its encoder and max_target_length in its decoder';
  prov.seq_len = { kind: 'default', owner: 'VRAM Lens', note: `${note}: the encoder's ${source} tokens` };
  prov.target_len = { kind: 'default', owner: 'VRAM Lens', note: `${note}: the decoder's ${target} tokens` };
}

/**
 * An encoder-decoder's labels tokenized to their own max_length (`tokenizer(text_target=..., max_length=...)`,
 * hf-python sequence-length.ts): the decoder's length, where nothing sets target_len itself. Runs after the
 * architecture is known; a decoder-only model has no such length.
 */
function labelsLength(ctx: ResolveContext): void {
  const { setup, prov, decided } = ctx;
  const w = decided.targetLen;
  if (!w || setup.target_len !== undefined || typeof w.fact.value !== 'number') return;
  const parsed = parseArchitecture(setup.architecture as HfConfig);
  if (!parsed.ok || !isEncoderDecoder(parsed.arch)) return;
  setup.target_len = w.fact.value;
  prov.target_len = fileProv(w);
}
