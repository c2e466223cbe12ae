// XTuner's (v0) mmengine configs (`xtuner train llama3_8b_instruct_qlora_alpaca_e3.py`): module constants and lazy
// dicts. The model, its quantization and its LoraConfig are read as the calls their dicts stand for (lazy-config.ts);
// here what XTuner itself does with them: SupervisedFinetune checkpoints every layer unless use_activation_checkpointing
// is False, and for LoRA runs PEFT's prepare_model_for_kbit_training (every parameter that is not a 4/8-bit weight to
// fp32) and targets every linear layer but the head when the LoraConfig names none; the dataloader's batch_size, the
// optimizer wrapper's accumulative_counts and AMP dtype, and the dataset's max_length with pack_to_max_length.
// Sources: InternLM/xtuner@b934f46 xtuner/model/sft.py (SupervisedFinetune.__init__, _prepare_for_lora),
// xtuner/model/utils.py find_all_linear_names; mmengine's AmpOptimWrapper (autocast in float16 unless dtype says).
// Pure: no I/O.
import type { SyntaxNode } from '@lezer/common';
import type { CanonicalKey, FactValue, Tool } from '../facts';
import type { Entry, PythonFile } from './file';
import { assignedName, pyTruthy, span } from './syntax';

const TOOL: Tool = 'xtuner';
export const XTUNER_SOURCE = 'InternLM/xtuner@b934f46';

/** A file that imports XTuner: its lazy dicts are XTuner's config. */
export const importsXtuner = (text: string): boolean =>
  text.includes('xtuner') && /^\s*(?:from|import)\s+xtuner\b/m.test(text);

/** XTuner's facts of one config file, over its calls (lazy dicts read as the calls they stand for). */
export function xtunerConfig(file: PythonFile, calls: readonly SyntaxNode[]): void {
  file.tools.add(TOOL);
  for (const c of calls) {
    const callee = file.calleeName(c)?.split('.').pop() ?? '';
    if (callee === 'SupervisedFinetune') supervisedFinetune(file, c);
    else if (/OptimWrapper$/.test(callee)) optimWrapper(file, c, callee);
    else if (callee === 'dict' && assignedName(c, file.text) === 'train_dataloader') dataloader(file, c);
    else if (callee === 'process_hf_dataset') dataset(file, c);
  }
}

const entryOf = (file: PythonFile, c: SyntaxNode, key: string): Entry | undefined =>
  file.args(c).entries.find((e) => e.rawKey === key);

/** A default of XTuner's or mmengine's made explicit at the call that has it (origin 'call-default'). */
function callDefault(
  file: PythonFile,
  c: SyntaxNode,
  key: CanonicalKey,
  rawKey: string,
  value: FactValue,
  note: string,
) {
  const at = span(c.firstChild!);
  file.facts.push({
    key,
    rawKey,
    value,
    rawValue: `${rawKey}: ${String(value)} (XTuner default)`,
    keySpan: at,
    valueSpan: at,
    tool: TOOL,
    origin: 'call-default',
    defaultNote: note,
  });
}

/** SupervisedFinetune(llm=..., lora=..., use_activation_checkpointing=True). */
function supervisedFinetune(file: PythonFile, c: SyntaxNode): void {
  const checkpointing = entryOf(file, c, 'use_activation_checkpointing');
  if (checkpointing) {
    const v = file.valueOf(checkpointing);
    if (v.k === 'lit') file.push('gradientCheckpointing', checkpointing, pyTruthy(v.v) ? 'full' : 'none', TOOL, v);
  } else
    callDefault(
      file,
      c,
      'gradientCheckpointing',
      'use_activation_checkpointing',
      'full',
      `SupervisedFinetune checkpoints every layer (use_activation_checkpointing defaults to True; ${XTUNER_SOURCE}:xtuner/model/sft.py)`,
    );
  const lora = entryOf(file, c, 'lora');
  const v = lora ? file.valueOf(lora) : undefined;
  if (!lora || (v?.k === 'lit' && v.v === null)) return;
  callDefault(
    file,
    c,
    'kbitUpcast',
    'lora',
    'all',
    'with LoRA, SupervisedFinetune runs prepare_model_for_kbit_training: every parameter that is not a 4/8-bit weight ' +
      `in fp32 (${XTUNER_SOURCE}:xtuner/model/sft.py _prepare_for_lora)`,
  );
  const config = v?.k === 'call' ? v.node : undefined;
  if (config && !entryOf(file, config, 'target_modules'))
    callDefault(
      file,
      c,
      'loraTargets',
      'lora.target_modules',
      'all-linear',
      `a LoraConfig without target_modules gets every linear layer but the head (find_all_linear_names; ${XTUNER_SOURCE}:xtuner/model/sft.py)`,
    );
}

/** AmpOptimWrapper autocasts (float16 unless dtype says bfloat16); OptimWrapper does not; accumulative_counts (1). */
function optimWrapper(file: PythonFile, c: SyntaxNode, callee: string): void {
  const counts = entryOf(file, c, 'accumulative_counts');
  const n = counts ? file.valueOf(counts) : undefined;
  if (counts && n?.k === 'lit' && typeof n.v === 'number') file.push('gradientAccumulationSteps', counts, n.v, TOOL, n);
  else if (counts) file.push('gradientAccumulationSteps', counts, { unknown: file.describe(n!) }, TOOL, n);
  else
    callDefault(
      file,
      c,
      'gradientAccumulationSteps',
      'accumulative_counts',
      1,
      "mmengine's OptimWrapper accumulates over 1 step",
    );
  if (callee !== 'AmpOptimWrapper') {
    if (callee === 'OptimWrapper')
      callDefault(file, c, 'mixedPrecision', callee, 'none', "mmengine's OptimWrapper runs without autocast");
    return;
  }
  const dtype = entryOf(file, c, 'dtype');
  const d = dtype ? file.valueOf(dtype) : undefined;
  const text =
    d?.k === 'lit' && typeof d.v === 'string' ? d.v : d?.k === 'dotted' ? d.text.split('.').pop() : undefined;
  const mp =
    text === 'bfloat16' || text === 'bf16' ? 'bf16' : text === 'float16' || text === 'fp16' ? 'fp16' : undefined;
  if (dtype && mp) file.push('mixedPrecision', dtype, mp, TOOL, d);
  else if (!dtype)
    callDefault(
      file,
      c,
      'mixedPrecision',
      'AmpOptimWrapper',
      'fp16',
      "mmengine's AmpOptimWrapper autocasts in float16 by default",
    );
}

/** train_dataloader = dict(batch_size=...): the micro-batch of every GPU. */
function dataloader(file: PythonFile, c: SyntaxNode): void {
  const size = entryOf(file, c, 'batch_size');
  const v = size ? file.valueOf(size) : undefined;
  if (size && v?.k === 'lit' && typeof v.v === 'number') file.push('microBatchSize', size, v.v, TOOL, v);
}

/** process_hf_dataset(max_length=..., pack_to_max_length=...): packed samples are max_length long, else padded batches. */
function dataset(file: PythonFile, c: SyntaxNode): void {
  const length = entryOf(file, c, 'max_length');
  const v = length ? file.valueOf(length) : undefined;
  if (length && v?.k === 'lit' && typeof v.v === 'number') file.push('seqLen', length, v.v, TOOL, v);
  const pack = entryOf(file, c, 'pack_to_max_length');
  const p = pack ? file.valueOf(pack) : undefined;
  if (pack && p?.k === 'lit') file.push('batchLengths', pack, pyTruthy(p.v) ? 'fixed' : 'variable', TOOL, p);
}
