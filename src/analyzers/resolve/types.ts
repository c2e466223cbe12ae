// The shapes resolve works with: the files it is given (AnalyzedFile, with the role that ranks them), the fact that
// decided each canonical key, the overrides from flags and settings, the model resolver the caller supplies, and what
// it returns (FactResolution for config files, Resolution for scenario files). Types only.
import type { HfConfig, ProvenanceMap, TrainingSetup } from '../../core';
import type { CanonicalKey, ConfigFacts, Fact, Tool } from '../facts';
import type { Location, Problem } from '../scenario';

export interface ResolvedModel {
  readonly id: string;
  readonly config: HfConfig;
  readonly parameters?: number;
  readonly source: string;
  /** What was read of a local model and what was not (refused weight headers, unmodelled quantization), said at the model. */
  readonly notes?: readonly string[];
}

/**
 * Resolves a model reference; `from` is the file that names it, whose folder (and those above it) a relative model path
 * is also looked for from, where it is not found from the working directory.
 */
export type ModelResolver = (
  ref: string,
  from?: string,
) => { ok: true; model: ResolvedModel } | { ok: false; message: string };

/** Values given on the command line or in editor settings; they win over every file. */
export interface Overrides {
  readonly model?: string;
  readonly gpu?: string;
  readonly gpusPerNode?: number;
  readonly nodes?: number;
  readonly seqLen?: number;
  /** How the override is named to the user: a CLI flag or a setting. */
  readonly origin?: 'flag' | 'setting';
}

export interface Resolution {
  readonly setup?: TrainingSetup;
  readonly provenance: ProvenanceMap;
  readonly problems: readonly Problem[];
  /** The GPU name asked for (from a file or an override), not yet looked up. */
  readonly gpu?: string;
  readonly gpuLocation?: Location;
}

/** How a file entered the analysis, which decides its rank. */
export type FileRole = 'launcher' | 'config' | 'referenced';

export interface AnalyzedFile {
  readonly file: string;
  readonly text: string;
  readonly role: FileRole;
  readonly facts: ConfigFacts;
  /**
   * Not a file on disk: a DeepSpeed config written inline in another file, or one a tool ships that was not found
   * beside the config (its values are that tool's defaults). Quick fixes never edit these.
   */
  readonly origin?:
    { readonly kind: 'inline' } | { readonly kind: 'bundled'; readonly owner: string; readonly note: string };
}

export interface WinningFact {
  readonly fact: Fact;
  readonly file: string;
  readonly location: Location;
  /** The fact comes from a tool's bundled DeepSpeed config (AnalyzedFile.origin): a default of that tool. */
  readonly bundled?: { readonly owner: string; readonly note: string };
  /** The key path of a file a script loads (script-data.ts), where the fact is one of its items: the key written there. */
  readonly dataKey?: string;
}

export interface FactResolution {
  readonly setup?: TrainingSetup;
  readonly provenance: ProvenanceMap;
  readonly problems: readonly Problem[];
  readonly gpu?: string;
  /** The fact that decided each canonical key (for hovers: "this key sets micro_batch_size"). */
  readonly decided: Partial<Record<CanonicalKey, WinningFact>>;
  readonly tools: readonly Tool[];
}
