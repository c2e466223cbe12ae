// The context every resolve rule reads and writes: the ranked facts, the tools in default order, the setup and its
// provenance as they are built, the problems so far, and the two ways a field is filled (from the fact that decided
// its key, or from the tool's default). Pure.
import type { Provenance, ProvenanceMap } from '../../core';
import { toolDefault } from '../defaults';
import { isUnknown, type CanonicalKey, type FactValue, type Tool } from '../facts';
import type { Problem } from '../scenario';
import type { AnalyzedFile, ModelResolver, Overrides, WinningFact } from './types';

/** A field of the tools' defaults table (analyzers/defaults.ts). */
export type DefaultField = Parameters<typeof toolDefault>[1];

export class ResolveContext {
  /** The setup as it is built; TrainingSetupSchema validates it at the end. */
  readonly setup: Record<string, unknown> = {};
  readonly provenance: ProvenanceMap = {};
  /** The provenance map, indexed by any field name (dotted for the fields of a block: `rollout.batch`). */
  readonly prov = this.provenance as Record<string, Provenance>;
  /**
   * The training method the files name ('full' when none does), as decided before a 4/8-bit load turns full
   * fine-tuning into QLoRA: the rules after the method's read this one. Set by resolveMethod.
   */
  method = 'full';

  constructor(
    readonly files: readonly AnalyzedFile[],
    readonly overrides: Overrides,
    readonly resolveModel: ModelResolver,
    /** The fact that decided each canonical key (winningFacts). */
    readonly decided: Partial<Record<CanonicalKey, WinningFact>>,
    /** The unknown fact of each key that has no known one. */
    readonly unknownOnly: Partial<Record<CanonicalKey, WinningFact>>,
    /** The tools in the order their defaults apply (toolOrder). */
    readonly tools: readonly Tool[],
    readonly problems: Problem[],
  ) {}

  /** Sets a field from the fact that decided its key, through `map`; false when there is no such fact or `map` refuses it. */
  fromFact(field: string, key: CanonicalKey, map?: (v: FactValue) => unknown): boolean {
    const w = this.decided[key];
    if (!w) return false;
    const v = map ? map(w.fact.value as FactValue) : w.fact.value;
    if (v === undefined) return false;
    this.setup[field] = v;
    this.prov[field] = fileProv(w);
    return true;
  }

  /** Sets a field still unset to the first tool's default for it, saying so in its provenance. */
  fromDefault(field: string, defaultField: DefaultField): void {
    this.fromDefaultOf(field, defaultField, this.tools);
  }

  /** Sets a field still unset to the default of the first of `tools` that has one, saying so in its provenance. */
  fromDefaultOf(field: string, defaultField: DefaultField, tools: readonly Tool[]): void {
    if (this.setup[field] !== undefined) return;
    const d = toolDefault(tools, defaultField);
    if (!d) return;
    this.setup[field] = d.value;
    // The file's own value of this field, where one wrote it but not statically (a field without a key has none).
    const key = FIELD_KEYS[field];
    const unknown = key ? this.unknownOnly[key] : undefined;
    this.prov[field] = {
      kind: 'default',
      owner: d.tool,
      note: unknown
        ? `${d.note}; the file's value ${unknown.fact.rawValue} is not known statically${why(unknown)}`
        : d.note,
    };
  }
}

/**
 * Why a file's value written as no value (`max_length=None`) is not known: what None means there (no truncation),
 * which its fact says; so for a switch that turns the bound off (`"skip_prepare_dataset": True`). Other values speak
 * for themselves.
 */
function why(w: WinningFact): string {
  const v = w.fact.value;
  const raw = w.fact.rawValue.trim();
  return isUnknown(v) && (/^(None|null|~)$/.test(raw) || /skip_prepare_dataset/.test(raw)) ? ` (${v.unknown})` : '';
}

export const num = (v: FactValue): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const bool = (v: FactValue): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

const FIELD_KEYS: Record<string, CanonicalKey> = {
  micro_batch_size: 'microBatchSize',
  gradient_accumulation_steps: 'gradientAccumulationSteps',
  seq_len: 'seqLen',
  optimizer: 'optimizer',
  gradient_checkpointing: 'gradientCheckpointing',
  attention: 'attention',
  weights_dtype: 'weightsDtype',
  mixed_precision: 'mixedPrecision',
  zero_stage: 'zeroStage',
  fsdp: 'fsdp',
  model: 'model',
  method: 'method',
  loss: 'loss',
  gpus_per_node: 'gpusPerNode',
  nodes: 'nodes',
};

/** A winning fact's number, or the default when it is absent or not a number. */
export function numberOf(w: WinningFact | undefined, dflt: number): number {
  return w && typeof w.fact.value === 'number' ? w.fact.value : dflt;
}

/** Where a winning fact was written: its file, line and key. */
export function fileProv(w: WinningFact): Provenance {
  if (w.bundled) return { kind: 'default', owner: w.bundled.owner, note: `${w.fact.rawKey} in ${w.bundled.note}` };
  // A tool's default made explicit at the command (it differs by command), reported as that tool's default.
  if (w.fact.origin === 'call-default' && w.fact.defaultNote !== undefined)
    return { kind: 'default', owner: w.fact.tool, note: w.fact.defaultNote };
  // One of the values a branch-set variable can take: an assumption, said with the file and line it is read at.
  if (w.fact.assumed)
    return { kind: 'default', owner: 'VRAM Lens', note: `${w.fact.assumed} (${baseName(w.file)}:${w.location.line})` };
  return { kind: 'file', file: w.file, line: w.location.line, key: w.dataKey ?? w.fact.rawKey };
}

/** The canonical key a setup field is read from (the model's when the field has none), for the messages about it. */
export function keyOfField(field: string): CanonicalKey {
  return FIELD_KEYS[field] ?? 'model';
}

/** The LoRA fields resolveLora fills from a fact of their own (method.ts). */
const LORA_FIELD_KEYS: Record<string, CanonicalKey> = {
  r: 'loraR',
  alpha: 'loraAlpha',
  dropout: 'loraDropout',
  target_modules: 'loraTargets',
};

/**
 * The canonical key whose fact wrote the value at a setup path: a top-level field's (FIELD_KEYS) or a LoRA field's;
 * undefined for a path no single fact writes.
 */
export function keyOfPath(path: readonly PropertyKey[]): CanonicalKey | undefined {
  if (path.length === 1) return FIELD_KEYS[String(path[0])];
  if (path.length === 2 && path[0] === 'lora') return LORA_FIELD_KEYS[String(path[1])];
  return undefined;
}

/** The file name of a path, for the file:line said in a note. */
export const baseName = (file: string): string =>
  file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
