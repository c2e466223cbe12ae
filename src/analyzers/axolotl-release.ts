// What an Axolotl release before 0.13 loads for `load_in_4bit: true` beside `adapter: lora`. Up to 0.12 the loader
// passed the flag to from_pretrained as written (axolotl-ai-cloud/axolotl@aa1240acd~1 src/axolotl/loaders/model.py
// _set_quantization_config: `model_kwargs["load_in_4bit"] = cfg.load_in_4bit`), and transformers made a
// BitsAndBytesConfig of it with the class's defaults: FP4 codes, no double quantization, float32 compute. 0.13 dropped
// the flag (#3205, aa1240acd): the 4-bit config is built for `adapter: qlora` only, and the model loads unquantized
// (yaml/axolotl.ts loraOver4bitFlag). Either way prepare_model_for_kbit_training runs and the norms, embeddings and head
// go back to torch_dtype, as under QLoRA. Pure: the pin comes from the caller.
import { olderThan, type Provenance, type ProvenanceMap, type TrainingSetup } from '../core';
import type { Problem } from './scenario';
import { AXOLOTL_KBIT_NOTE } from './resolve/method';

/** A pinned Axolotl release and where the pin is written. */
export interface AxolotlPin {
  readonly version: string;
  readonly file: string;
  readonly line: number;
}

/**
 * The run as an Axolotl release before 0.13 loads it: where the config's `load_in_4bit: true` beside `adapter: lora` was
 * read as an unquantized load (kbit_upcast 'all' from that key), the model is 4-bit FP4 without double quantization,
 * and the warning at the key, which speaks of 0.13 and later, gives way to a note of what the pinned release does.
 */
export function axolotlLoraOver4bit(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  problems: readonly Problem[],
  pin: AxolotlPin | undefined,
): { setup: TrainingSetup; problems: readonly Problem[] } {
  const flag = loraOver4bitKey(setup, provenance);
  if (!pin || !olderThan(pin.version, 0, 13) || !flag) return { setup, problems };
  const at = `${pin.file}:${pin.line}`;
  provenance.quantization = flag;
  provenance.kbit_upcast = { kind: 'default', owner: 'axolotl', note: AXOLOTL_KBIT_NOTE };
  const warning = problems.find((p) => p.code === 'no-effect' && p.key === 'load_in_4bit' && p.file === flag.file);
  const note: Problem | undefined = warning && {
    ...warning,
    severity: 'info',
    code: 'pinned-release',
    message:
      `Axolotl ${pin.version} (pinned at ${at}) passes load_in_4bit to from_pretrained with adapter: lora: ` +
      "4-bit weights of BitsAndBytesConfig's defaults (FP4, no double quantization; float32 compute, whose per-matmul " +
      'copies of the input and weight are not counted), ' +
      'not the NF4 with double quantization of adapter: qlora. From 0.13 the model loads unquantized.',
    template: undefined,
  };
  return {
    setup: {
      ...setup,
      method: 'qlora',
      quantization: { bits: 4, type: 'fp4', double_quant: false, scope: 'all-linear' },
      kbit_upcast: 'none',
    },
    problems: note ? problems.map((p) => (p === warning ? note : p)) : problems,
  };
}

/**
 * Where the setup is the unquantized load yaml/axolotl.ts reads `load_in_4bit: true` with `adapter: lora` as, the
 * provenance of that key; undefined otherwise.
 */
export function loraOver4bitKey(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): Extract<Provenance, { kind: 'file' }> | undefined {
  const flag = provenance.kbit_upcast;
  const unquantized = setup.method === 'lora' && setup.quantization === undefined && setup.kbit_upcast === 'all';
  return unquantized && flag?.kind === 'file' && flag.key === 'load_in_4bit' ? flag : undefined;
}
