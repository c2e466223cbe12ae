// Where a script says how long its sequences are, when its training arguments do not: the tokenizer calls that
// truncate or pad to a max_length, and the locals it names as a sequence length (ChatGLM's ptuning main.py pads every
// sample to `max_seq_length = data_args.max_source_length + data_args.max_target_length`). Pure: it reads the syntax
// tree and never runs code.
import type { SyntaxNode } from '@lezer/common';
import type { Tool } from '../facts';
import type { Entry, PythonFile, Val } from './file';
import { argument, classNamed } from './calls';
import { statementOf } from './attributes';
import { clip, span } from './syntax';
import { SEQ_KEYS } from './vocab';
import { branchTaken } from './branches';

/** One place that bounds the samples' length, with its value as read. */
interface Bound {
  readonly e: Entry;
  readonly x: Val;
  readonly node: SyntaxNode;
}

/**
 * The sequence length a loop the script writes, or a Trainer script whose arguments name none, trains with: the
 * longest of the tokenizer calls' max_length where they truncate or pad to it (Alpaca-LoRA's `tokenizer(prompt,
 * truncation=True, max_length=cutoff_len)` in the dataset's map) and of the locals named as a sequence length
 * (SEQ_KEYS). Code in a function named for evaluation prepares the evaluation data, not the training batches, and is
 * passed by; where some of the bounds are in a function named for training (ChatGLM's `preprocess_function_train`;
 * its main() sets max_seq_length again, one longer, for generation at evaluation), only those count. A bound not known
 * statically makes the length unknown there; arithmetic over the script's option fields is read again with the run's
 * options (launch-args.ts withBranchesDecided).
 */
export function sequenceLength(file: PythonFile, calls: readonly SyntaxNode[], tool: Tool): void {
  if (tool === 'trl' && ownBatchesUncut(file, calls, tool)) return;
  const tokenized = tokenizerBounds(file, calls).filter((b) => !inFunction(file, b.node, EVAL));
  targetLength(
    file,
    tokenized.filter((b) => b.target || b.labels),
    tool,
  );
  const all = [
    ...localBounds(file),
    ...optionSlices(file),
    ...tokenized.filter((b) => !b.target),
    ...datasetBounds(file, calls),
    ...collatorBounds(file, calls),
  ].filter((b) => !inFunction(file, b.node, EVAL));
  const inTraining = all.filter((b) => inFunction(file, b.node, /train/i));
  const bounds = inTraining.length > 0 ? inTraining : all;
  let best: { b: Bound; n: number } | undefined;
  for (const b of bounds) {
    const { x } = b;
    if (x.k === 'lit' && typeof x.v === 'number' && Number.isInteger(x.v) && x.v > 0) {
      if (!best || x.v > best.n) best = { b, n: x.v };
    } else if (!(x.k === 'lit' && x.v === null)) {
      return file.push('seqLen', b.e, { unknown: unknownReason(file, b) }, tool, x);
    }
  }
  if (best) file.push('seqLen', best.b.e, best.n, tool, best.b.x);
}

/**
 * The labels' length alone, where the training arguments give the sequence's (`--max_seq_length 512` of a seq2seq
 * QA script whose labels are tokenized to `max_answer_length`, 30): the decoder's tokens per row (targetLength).
 */
export function labelsLength(file: PythonFile, calls: readonly SyntaxNode[], tool: Tool): void {
  const bounds = tokenizerBounds(file, calls).filter((b) => (b.target || b.labels) && !inFunction(file, b.node, EVAL));
  targetLength(file, bounds, tool);
}

/**
 * TRL's SFTTrainer told to prepare no dataset (`dataset_kwargs={"skip_prepare_dataset": True}`) and given the script's
 * own collator (tulerfeng/Video-R1's sft_video.py, the VL recipes of TRL's docs): TRL neither tokenizes nor truncates,
 * so max_length cuts nothing and the collator's batches are as long as the data makes them. The length is unknown,
 * said at the key, where the file gives no bound of its own; true when said.
 */
function ownBatchesUncut(file: PythonFile, calls: readonly SyntaxNode[], tool: Tool): boolean {
  const skip = /["']skip_prepare_dataset["']\s*:\s*True\b|\bskip_prepare_dataset\s*=\s*True\b/.exec(file.text);
  if (!skip) return false;
  const collated = calls.some(
    (c) =>
      /(^|\.)SFTTrainer$/.test(file.calleeName(c) ?? '') &&
      file.args(c).entries.some((e) => e.rawKey === 'data_collator'),
  );
  if (!collated) return false;
  const at = { start: skip.index, end: skip.index + skip[0].length };
  file.facts.push({
    key: 'seqLen',
    rawKey: 'skip_prepare_dataset',
    value: {
      unknown:
        "skip_prepare_dataset: TRL prepares no dataset and the script's collator makes the batches, so max_length " +
        'cuts nothing: the longest sample of the data sets the length',
    },
    rawValue: skip[0],
    keySpan: at,
    valueSpan: at,
    tool,
  });
  return true;
}

/**
 * Functions named for evaluation or prediction (`preprocess_function_eval`); not for generation, which names the
 * training data's `generate_and_tokenize_prompt` of Alpaca-LoRA and its descendants.
 */
const EVAL = /eval|predict|valid|infer|(^|_)test(_|$)/i;

/**
 * Tokenizer calls that truncate or pad to a max_length (max_length=None bounds nothing); those given `text_target=`
 * or run under `as_target_tokenizer()` tokenize a seq2seq model's labels (`target`), and those assigned to labels
 * may (`labels`: counted as a bound of the sequence too).
 */
function tokenizerBounds(file: PythonFile, calls: readonly SyntaxNode[]): (Bound & { target?: true; labels?: true })[] {
  const out: (Bound & { target?: true; labels?: true })[] = [];
  for (const c of calls) {
    const callee = file.calleeName(c) ?? '';
    if (!/(^|\.)(\w*tokenizer|tok)(\.(encode|encode_plus|batch_encode_plus|__call__))?$/i.test(callee)) continue;
    const get = argument(file.args(c));
    const length = get('max_length');
    if (!length || !truncates(file, get('truncation'), get('padding'))) continue;
    const x = file.valueOf(length);
    const bound = tokenizerLength(file, calls, length, x) ?? { e: length, x, node: c };
    const target =
      (get('text_target') !== undefined && get('text') === undefined && file.args(c).positional.length === 0) ||
      asTargetTokenizer(file, c);
    out.push(target ? { ...bound, target: true } : labelsAssigned(file, c) ? { ...bound, labels: true } : bound);
  }
  return out;
}

/** A tokenizer call inside `with tokenizer.as_target_tokenizer():` (transformers 4.x's seq2seq scripts): the labels. */
function asTargetTokenizer(file: PythonFile, call: SyntaxNode): boolean {
  for (let n = call.parent; n && n.name !== 'FunctionDefinition'; n = n.parent) {
    if (n.name !== 'WithStatement') continue;
    const head = file.text.slice(n.from, n.to).split(':', 1)[0];
    if (/\.as_target_tokenizer\s*\(/.test(head)) return true;
  }
  return false;
}

/**
 * A tokenizer call assigned to a name or key that says labels (`labels = tokenizer(targets, max_length=
 * max_target_length, ...)`, `model_inputs["labels"] = tokenizer(...)`): an encoder-decoder's decoder length, and a
 * bound of a decoder-only model's sequences like any other.
 */
function labelsAssigned(file: PythonFile, call: SyntaxNode): boolean {
  const st = statementOf(call);
  const lhs =
    st?.name === 'AssignStatement' && st.firstChild ? file.text.slice(st.firstChild.from, st.firstChild.to) : '';
  return /label|target|tgt/i.test(lhs);
}

/**
 * The labels' length of a seq2seq script (`tokenizer(text_target=examples["summary"], max_length=args.max_target_length,
 * truncation=True)`, transformers' run_summarization.py): the longest such bound, the decoder's tokens per row
 * (resolve/batch.ts encoderDecoderLengths takes it for an encoder-decoder).
 */
function targetLength(file: PythonFile, bounds: readonly Bound[], tool: Tool): void {
  let best: { b: Bound; n: number } | undefined;
  for (const b of bounds) {
    const { x } = b;
    if (x.k === 'lit' && typeof x.v === 'number' && Number.isInteger(x.v) && x.v > 0 && (!best || x.v > best.n))
      best = { b, n: x.v };
  }
  if (best) file.push('targetLen', best.b.e, best.n, tool, best.b.x);
}

/**
 * `max_length=tokenizer.model_max_length` of a tokenizer passed down as a parameter (stanford_alpaca's `_tokenize_fn`,
 * FastChat's and their copies): the `model_max_length=` the script's one tokenizer load gives
 * (bupticybee/FastLoRAChat: `LlamaTokenizer.from_pretrained(base_model, model_max_length=1024, ...)`), located there.
 */
function tokenizerLength(file: PythonFile, calls: readonly SyntaxNode[], length: Entry, x: Val): Bound | undefined {
  const text = file.text.slice(length.valueSpan.start, length.valueSpan.end);
  if (x.k === 'lit' || !/^\w+\.model_max_length$/.test(text)) return undefined;
  const loads = calls.flatMap((c) => {
    const callee = file.calleeName(c) ?? '';
    const e = /Tokenizer\w*\.from_pretrained$/.test(callee) ? argument(file.args(c))('model_max_length') : undefined;
    return e ? [{ e, x: file.valueOf(e), node: c }] : [];
  });
  return loads.length === 1 ? loads[0] : undefined;
}

/** The keywords a dataset class of the project takes its samples' longest length by. */
const DATASET_LENGTHS = ['max_len', 'max_length', 'max_seq_len', 'max_seq_length', 'cutoff_len', 'model_max_length'];

/**
 * The length a dataset class the script builds cuts its samples at (ZLHe0/MiniOneRec's sft.py:
 * `SidSFTDataset(train_file=..., tokenizer=tokenizer, max_len=cutoff_len, ...)`, the class in its data.py).
 */
function datasetBounds(file: PythonFile, calls: readonly SyntaxNode[]): Bound[] {
  const out: Bound[] = [];
  for (const c of calls) {
    const name = file.calleeName(c)?.split('.').pop() ?? '';
    const own = /(?:dataset|data)$/i.test(name) ? ownDatasetLength(file, name) : undefined;
    if (!/(?:Dataset|Data)$/.test(name) && !own) continue;
    const get = argument(file.args(c));
    const length =
      DATASET_LENGTHS.map((k) => get(k)).find((e) => e !== undefined) ?? (own ? get(own.name, own.at) : undefined);
    if (length) out.push({ e: length, x: file.valueOf(length), node: c });
  }
  return out;
}

/**
 * QLoRA's collator, `DataCollatorForCausalLM(tokenizer, source_max_len=..., target_max_len=...)` (artidoro/qlora
 * qlora.py, copied by many scripts): it tokenizes each source cut at source_max_len tokens and each target at
 * target_max_len, concatenates them and pads to the batch's longest, so a sample is at most their sum.
 */
function collatorBounds(file: PythonFile, calls: readonly SyntaxNode[]): Bound[] {
  const out: Bound[] = [];
  if (!file.text.includes('target_max_len')) return out;
  for (const c of calls) {
    const get = argument(file.args(c));
    const source = get('source_max_len');
    const target = get('target_max_len');
    if (!source || !target) continue;
    const [s, t] = [file.valueOf(source), file.valueOf(target)];
    const known = (v: Val): v is Val & { k: 'lit'; v: number } => v.k === 'lit' && typeof v.v === 'number';
    const x: Val = known(s) && known(t) ? { k: 'lit', v: s.v + t.v } : known(s) ? t : s;
    const at = span(c.firstChild!);
    const e: Entry = { rawKey: 'source_max_len + target_max_len', keySpan: at, valueNode: c, valueSpan: span(c) };
    out.push({ e, x, node: c });
  }
  return out;
}

/**
 * The length parameter of a dataset class the file defines (go-akshit/spring2024-assignment5-alignment's
 * `class finetuning_dataset(Dataset)` with `def __init__(self, tokenizer, dataset_path, seq_length, shuffle)`, called
 * positionally): its name and position among the call's arguments, else undefined.
 */
function ownDatasetLength(file: PythonFile, cls: string): { name: string; at: number } | undefined {
  const init = classNamed(file, cls)
    ?.getChild('Body')
    ?.getChildren('FunctionDefinition')
    .find((fn) => {
      const id = fn.getChild('VariableName');
      return id !== null && file.text.slice(id.from, id.to) === '__init__';
    });
  const params = (init?.getChild('ParamList')?.getChildren('VariableName') ?? []).map((n) =>
    file.text.slice(n.from, n.to),
  );
  const i = params.findIndex((p) => DATASET_LENGTHS.includes(p) || p === 'seq_length' || p === 'seq_len');
  return i > 0 ? { name: params[i], at: i - 1 } : undefined;
}

/**
 * Names too common to mean the training length by themselves (generation has a max_length too): a local of such a name
 * counts where the script pads or cuts a sample with it, `[pad] * (max_length - len(ids))` or `ids[:max_length]` (PEFT's
 * prompt-tuning notebooks).
 */
const GENERIC_LENGTHS = new Set(['max_length', 'max_len', 'seq_len', 'seq_length']);

/** Whether the script pads a sample to `name` or cuts one at it. */
function padsOrCuts(file: PythonFile, name: string): boolean {
  return new RegExp(`\\b${name}\\s*-\\s*len\\(|\\[[^\\]\\n]*:\\s*${name}\\s*\\]`).test(file.text);
}

/** A line that assigns one of the length names: the tree is walked only in a file that has one. */
const ASSIGNS_A_LENGTH = new RegExp(`^[ \\t]*(${[...SEQ_KEYS, ...GENERIC_LENGTHS].join('|')})[ \\t]*=(?!=)`, 'mi');

/** `name = value` statements whose name is a sequence length's (max_seq_length, cutoff_len, ...). */
function localBounds(file: PythonFile): Bound[] {
  const out: Bound[] = [];
  if (!ASSIGNS_A_LENGTH.test(file.text)) return out;
  const generic = new Map<string, boolean>();
  const counts = (written: string): boolean => {
    // A module constant in capitals is the same length (datawhalechina/self-llm: `MAX_LENGTH = 512`, `[:MAX_LENGTH]`).
    const name = /^[A-Z][A-Z0-9_]*$/.test(written) ? written.toLowerCase() : written;
    if (SEQ_KEYS.has(name)) return true;
    if (!GENERIC_LENGTHS.has(name)) return false;
    if (!generic.has(written)) generic.set(written, padsOrCuts(file, written));
    return generic.get(written)!;
  };
  const cur = file.root.cursor();
  do {
    if (cur.name !== 'AssignStatement') continue;
    const target = cur.node.firstChild;
    const op = target?.nextSibling;
    const value = cur.node.lastChild;
    if (target?.name !== 'VariableName' || op?.name !== 'AssignOp' || !value || op.nextSibling?.from !== value.from)
      continue;
    const name = file.text.slice(target.from, target.to);
    if (!counts(name)) continue;
    // run_clm's `if data_args.block_size is None: block_size = tokenizer.model_max_length` where the option is given.
    if (branchTaken(file, cur.node) === false) continue;
    const e: Entry = { rawKey: name, keySpan: span(target), valueNode: value, valueSpan: span(value) };
    out.push({ e, x: file.valueOf(e), node: cur.node });
  } while (cur.next());
  return out;
}

/** `ids[: args.max_training_seq_length]`: a slice at an option whose name says a maximal length. */
const OPTION_SLICE = /\[\s*:\s*(\w+\.(\w*max\w*(?:len|length)|\w*seq_len(?:gth)?))\s*\]/g;

/**
 * The options a sample is cut at (ise-uiuc/magicoder train.py: `input_id[: args.max_training_seq_length]` of its own
 * arguments dataclass, the collator padding to the longest): each a bound where the option is read.
 */
function optionSlices(file: PythonFile): Bound[] {
  const out: Bound[] = [];
  for (const m of file.text.matchAll(OPTION_SLICE)) {
    const from = (m.index ?? 0) + m[0].indexOf(m[1]);
    let node: SyntaxNode | null = file.root.resolveInner(from, 1);
    while (node && node.name !== 'MemberExpression') node = node.parent;
    if (!node || node.from !== from || node.to !== from + m[1].length) continue;
    const e: Entry = { rawKey: m[2], keySpan: span(node), valueNode: node, valueSpan: span(node) };
    out.push({ e, x: file.valueOf(e), node });
  }
  return out;
}

/**
 * Why a bound is not known here: arithmetic over option fields and numbers (`data_args.max_source_length +
 * data_args.max_target_length`) is computed from the script's options, which the run decides; else what the
 * evaluation says.
 */
function unknownReason(file: PythonFile, b: Bound): string {
  const text = file.text.slice(b.e.valueSpan.start, b.e.valueSpan.end);
  const options = /^[\w.\s+\-*()]+$/.test(text) && /[A-Za-z_]\w*\.[A-Za-z_]\w*/.test(text);
  return options ? `${clip(text, 80)} is computed from the script's options` : file.describe(b.x);
}

/** Whether a node is inside a function whose (innermost) name matches. */
function inFunction(file: PythonFile, node: SyntaxNode, name: RegExp): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.name !== 'FunctionDefinition') continue;
    const n = p.getChild('VariableName');
    return n !== null && name.test(file.text.slice(n.from, n.to));
  }
  return false;
}

/** truncation=True (or a strategy) or padding="max_length": the rows are at most max_length long. */
function truncates(file: PythonFile, truncation: Entry | undefined, padding: Entry | undefined): boolean {
  const t = truncation ? file.valueOf(truncation) : undefined;
  const p = padding ? file.valueOf(padding) : undefined;
  return (t?.k === 'lit' && t.v !== false && t.v !== null) || (p?.k === 'lit' && p.v === 'max_length');
}
