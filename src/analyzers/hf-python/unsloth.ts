// Unsloth's FastLanguageModel / FastModel from_pretrained and get_peft_model, with the defaults they apply made
// explicit at the call (unsloth/models/loader.py, llama.py, vision.py). Pure: no I/O, no node:* and no 'vscode'.
import type { SyntaxNode } from '@lezer/common';
import { msg, type CanonicalKey, type Fact, type FactValue, type Unknown } from '../facts';
import { UNSLOTH_ARCH_CLASSES, UNSLOTH_TARGETS } from './vocab';
import { type Val, type Entry, PythonFile } from './file';
import { span, clip } from './syntax';
import { calleeFact, argument, emitModel } from './calls';
import { mapEntry } from './mapping';
import { numberOf, boolOf, dtypeOf, mapBool } from './values';

/**
 * Unsloth FastLanguageModel / FastModel.from_pretrained (unsloth/models/loader.py; a per-architecture class's,
 * FastQwen2Model's, has no model default and max_seq_length 4096, unsloth/models/qwen2.py): model_name, max_seq_length,
 * dtype (None: bfloat16 where supported, else float16), load_in_4bit=True by default (bitsandbytes NF4 with double
 * quantization), load_in_8bit, full_finetuning (which turns 4/8-bit loading off), use_gradient_checkpointing
 * ("unsloth" by default). A quantization_config argument is read where it is built (BitsAndBytesConfig).
 */
export function unslothLoad(file: PythonFile, call: SyntaxNode, cls: string): void {
  const args = file.args(call);
  const arg = argument(args);
  const isTrue = (e: Entry | undefined): boolean => {
    const v = e ? file.valueOf(e) : undefined;
    return v?.k === 'lit' && v.v === true;
  };
  const model = arg('model_name', 0);
  const perArchitecture = UNSLOTH_ARCH_CLASSES.has(cls);
  if (model) emitModel(file, model, 'unsloth');
  else if (!perArchitecture)
    unslothDefault(
      file,
      call,
      'model',
      'model_name',
      'unsloth/Llama-3.2-1B-Instruct',
      'model_name default "unsloth/Llama-3.2-1B-Instruct"',
    );
  const seq = arg('max_seq_length', 1);
  if (seq) emitAs(file, 'seqLen', seq, (x) => numberOf(file, x, seq, true));
  else if (perArchitecture)
    unslothDefault(file, call, 'seqLen', 'max_seq_length', 4096, `${cls}.from_pretrained max_seq_length default 4096`);
  else unslothDefault(file, call, 'seqLen', 'max_seq_length', 2048, 'max_seq_length default 2048');
  const dtype = arg('dtype', 2) ?? arg('torch_dtype');
  if (dtype) emitAs(file, 'weightsDtype', dtype, (x) => dtypeOf(file, x));
  const full = arg('full_finetuning');
  const eight = arg('load_in_8bit', 4);
  const four = arg('load_in_4bit', 3);
  const quantConfig = arg('quantization_config');
  if (model && four && boolOf(file, file.valueOf(four), four) === false) sixteenBitUpload(file, model);
  if (isTrue(full)) {
    file.push('method', full!, 'full', 'unsloth');
  } else if (isTrue(eight)) {
    file.push('quantBits', eight!, 8, 'unsloth');
  } else if (!quantConfig && !isTrue(arg('load_in_16bit'))) {
    if (four) emitAs(file, 'quantBits', four, (x) => mapBool(boolOf(file, x, four), (b) => (b ? 4 : undefined)));
    else unslothDefault(file, call, 'quantBits', 'load_in_4bit', 4, 'load_in_4bit default True');
    if (!four || isTrue(four)) {
      unslothDefault(file, call, 'quantType', 'bnb_4bit_quant_type', 'nf4', 'loads 4-bit weights as bitsandbytes NF4');
      unslothDefault(file, call, 'doubleQuant', 'bnb_4bit_use_double_quant', true, 'with double quantization');
    }
  }
  if (!isTrue(full)) {
    // Unsloth's prepare_model_for_kbit_training casts only the LoRA weights to fp32 (unsloth/models/_utils.py).
    unslothDefault(
      file,
      call,
      'kbitUpcast',
      isTrue(eight) ? 'load_in_8bit' : 'load_in_4bit',
      'none',
      'keeps norms, embeddings and head of a 4/8-bit model in the model dtype',
    );
  }
  unslothDefault(file, call, 'kernels', 'from_pretrained', 'unsloth', "patches the model with Unsloth's fused kernels");
  // fast_inference=True loads the model into a vLLM engine in the same process (gpu_memory_utilization of the GPU, 0.5
  // by default) whose weights the policy trains on; Unsloth's GRPO then generates with it (use_vllm set for it).
  const fast = arg('fast_inference');
  if (fast && isTrue(fast)) {
    file.push('useVllm', fast, true, 'unsloth');
    file.push('vllmMode', fast, 'colocate', 'unsloth');
    file.push('vllmSharedWeights', fast, true, 'unsloth');
    standby(file, call);
    const util = arg('gpu_memory_utilization');
    if (util) emitAs(file, 'vllmMemoryFraction', util, (x) => numberOf(file, x, util, false));
    else
      unslothDefault(
        file,
        call,
        'vllmMemoryFraction',
        'gpu_memory_utilization',
        0.5,
        'gpu_memory_utilization default 0.5',
      );
  }
  unslothGc(file, call, arg('use_gradient_checkpointing'), file.unslothCheckpointing.load);
  const fp8 = arg('load_in_fp8');
  if (fp8 && isTrue(fp8))
    file.problem(
      'not-modeled',
      'warning',
      msg(
        "{0}: Unsloth's FP8 weights are not modeled; the base model is estimated in its 16-bit dtype, about twice " +
          'what its linear layers hold in FP8',
        'load_in_fp8=True',
      ),
      fp8.keySpan,
      'load_in_fp8',
    );
  file.opaqueSpreads(args.opaque);
}

/** Unsloth's 4-bit uploads, `unsloth/<model>-bnb-4bit` and the dynamic `-unsloth-bnb-4bit`. */
const UNSLOTH_4BIT_UPLOAD = /^(unsloth\/.+?)(?:-unsloth)?-bnb-4bit$/i;

/**
 * `model_name="unsloth/Llama-3.2-1B-Instruct-unsloth-bnb-4bit", load_in_4bit=False`: Unsloth loads the 16-bit
 * upload its mapper pairs with the 4-bit name (unsloth/models/loader_utils.py __get_model_name, INT_TO_FLOAT_MAPPER:
 * `unsloth/<model>`), so no 4-bit weights. The load's model fact becomes that name, said at the argument.
 */
function sixteenBitUpload(file: PythonFile, model: Entry): void {
  const at = file.facts.findIndex((f) => f.key === 'model' && f.valueSpan.start === model.valueSpan.start);
  const fact = at < 0 ? undefined : file.facts[at];
  const m = typeof fact?.value === 'string' ? UNSLOTH_4BIT_UPLOAD.exec(fact.value) : null;
  if (!fact || !m) return;
  file.facts[at] = {
    ...fact,
    value: m[1],
    rawValue: clip(`${fact.rawValue}: with load_in_4bit=False Unsloth loads its 16-bit upload ${m[1]}`),
  };
}

/** `os.environ["UNSLOTH_VLLM_STANDBY"] = "1"` set before the load (or by the launch line's environment). */
const STANDBY = /os\.environ\[\s*(['"])UNSLOTH_VLLM_STANDBY\1\s*\]\s*=\s*(['"])(1|true|True)\2/;

/**
 * Unsloth's standby mode (UNSLOTH_VLLM_STANDBY=1, unsloth_zoo's vLLM patch): the colocated engine sleeps while the
 * policy trains, releasing its KV cache, and shares the policy's weights: vllm_sleep, said where the variable is set.
 */
function standby(file: PythonFile, call: SyntaxNode): void {
  const m = STANDBY.exec(file.text.slice(0, call.from));
  const given = file.environment?.get('UNSLOTH_VLLM_STANDBY');
  const at = m ? { start: m.index, end: m.index + m[0].length } : span(call.firstChild!);
  if (!m && !(given !== undefined && /^(1|true|True)$/.test(given))) return;
  file.facts.push({
    key: 'vllmSleep',
    rawKey: 'UNSLOTH_VLLM_STANDBY',
    value: true,
    rawValue: m ? m[0] : `UNSLOTH_VLLM_STANDBY=${given ?? ''}`,
    keySpan: at,
    valueSpan: at,
    tool: 'unsloth',
  });
}

/**
 * Unsloth get_peft_model: r=16, lora_alpha=16, lora_dropout=0, use_gradient_checkpointing="unsloth"; target_modules
 * default to the attention and MLP projections (FastLanguageModel) or to every linear layer of the language model
 * (FastModel, FastVisionModel: target_modules=None) (unsloth/models/llama.py, vision.py).
 */
export function unslothPeft(file: PythonFile, call: SyntaxNode, cls: string): void {
  const args = file.args(call);
  const arg = argument(args);
  calleeFact(
    file,
    call,
    'method',
    'get_peft_model',
    'lora',
    `${file.text.slice(call.firstChild!.from, call.firstChild!.to)}(...)`,
    'unsloth',
  );
  for (const e of args.entries) if (e.rawKey !== 'use_gradient_checkpointing') mapEntry(file, 'lora', e, 'unsloth');
  const has = (k: string): boolean => args.entries.some((e) => e.rawKey === k) || args.opaque.length > 0;
  if (!has('r')) unslothDefault(file, call, 'loraR', 'r', 16, 'r default 16');
  if (!has('lora_alpha')) unslothDefault(file, call, 'loraAlpha', 'lora_alpha', 16, 'lora_alpha default 16');
  if (!has('lora_dropout')) unslothDefault(file, call, 'loraDropout', 'lora_dropout', 0, 'lora_dropout default 0');
  if (!has('target_modules')) {
    if (cls === 'FastLanguageModel' || UNSLOTH_ARCH_CLASSES.has(cls))
      unslothDefault(
        file,
        call,
        'loraTargets',
        'target_modules',
        UNSLOTH_TARGETS,
        `target_modules default ${UNSLOTH_TARGETS.join(', ')}`,
      );
    else
      unslothDefault(
        file,
        call,
        'loraTargets',
        'target_modules',
        'all-linear',
        'target_modules default: every attention and MLP linear layer',
      );
  }
  unslothGc(file, call, arg('use_gradient_checkpointing'), file.unslothCheckpointing.peft);
  file.opaqueSpreads(args.opaque);
}

/** use_gradient_checkpointing: "unsloth" (the default) checkpoints every layer and keeps its input in host memory. */
function unslothGc(file: PythonFile, call: SyntaxNode, e: Entry | undefined, out: Fact[]): void {
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  const v = e ? file.valueOf(e) : undefined;
  const offload = !e || (v?.k === 'lit' && v.v === 'unsloth');
  const on = offload || (v?.k === 'lit' && v.v === true);
  const off = v?.k === 'lit' && (v.v === false || v.v === null);
  const where = e
    ? {
        keySpan: e.keySpan,
        valueSpan: e.valueSpan,
        rawValue: clip(file.text.slice(e.valueSpan.start, e.valueSpan.end)),
      }
    : {
        keySpan: at,
        valueSpan: at,
        rawValue: `${name}: use_gradient_checkpointing default "unsloth"`,
        origin: 'call-default' as const,
      };
  const fact = (key: CanonicalKey, value: FactValue | Unknown): Fact => ({
    key,
    rawKey: 'use_gradient_checkpointing',
    value,
    tool: 'unsloth',
    ...where,
  });
  if (!on && !off) {
    out.push(fact('gradientCheckpointing', { unknown: file.describe(v!) }));
    return;
  }
  out.push(fact('gradientCheckpointing', on ? 'full' : 'none'), fact('activationOffloading', offload));
}

/** An Unsloth default made explicit at the call (origin 'call-default'). */
function unslothDefault(
  file: PythonFile,
  call: SyntaxNode,
  key: CanonicalKey,
  rawKey: string,
  value: FactValue,
  why: string,
): void {
  calleeFact(
    file,
    call,
    key,
    rawKey,
    value,
    `${file.text.slice(call.firstChild!.from, call.firstChild!.to)}: ${why}`,
    'unsloth',
    'call-default',
  );
}

function emitAs(
  file: PythonFile,
  key: CanonicalKey,
  e: Entry,
  conv: (x: Val) => FactValue | Unknown | undefined,
): void {
  const x = file.valueOf(e);
  const value = conv(x);
  if (value !== undefined) file.push(key, e, value, 'unsloth', x);
}
