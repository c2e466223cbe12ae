// One Analysis per document version: the document's own facts, the merged setup (with the files it references
// and the files that reference it), the estimate, the findings and the advice. Every editor feature (hover,
// diagnostics, quick fixes, status bar, panel) reads the same Analysis, so they never disagree.
// Editor-free and pure: files are read through the FileReader the caller passes.
import { runPipeline, type FileReader, type InputFile, type PipelineResult } from '../analyzers/pipeline';
import { analyzeAs, detectFormat } from '../analyzers/detect';
import { emptyFacts, type ConfigFacts, type Format } from '../analyzers/facts';
import { analyzeScenario, type ScenarioFacts } from '../analyzers/scenario';
import type { ModelResolver, Overrides } from '../analyzers/resolve';
import { advise, type AdviceResult } from '../core';
import { shippedZeroConfigFor } from '../analyzers/shipped-zero';
import { trainerDefaultOptimizer } from '../analyzers/trainer-optimizer';
import type { GpuSpec } from '../core';
import { estimate } from '../core';
import { findGpu, gpuTarget, type GpuChoice } from '../core';
import type { Estimate, Warning } from '../core';
import type { TrainingSetup } from '../core';
import { GiB } from '../core';
import { computeFindings, type Finding } from './findings';
import { applyEditData, type EditData } from './fixes';

/** Editor settings that shape the analysis (validated by the extension; defaults in package.json). */
export interface AnalysisSettings {
  /** Catalog name or a size such as "24GiB"; empty = only what the files say. */
  readonly gpu: string;
  readonly gpusPerNode?: number;
  readonly nodes?: number;
  /** Model used when the files do not name one. */
  readonly model?: string;
  readonly headroomPercent: number;
  readonly cudaContextGiB?: number;
  /** PyTorch version of the environment (behaviour that changed between releases), unless the files set one. */
  readonly pytorchVersion?: string;
  /** transformers version of the environment (how MoE experts are stored), unless the files set one. */
  readonly transformersVersion?: string;
}

export interface DocumentInput {
  readonly file: string;
  readonly text: string;
  readonly languageId?: string;
}

export interface Analysis {
  readonly file: string;
  /** The document text this analysis was computed from. */
  readonly text: string;
  readonly format?: Format;
  /** Facts of this document alone (spans refer to its text). */
  readonly facts: ConfigFacts;
  readonly scenario?: ScenarioFacts;
  readonly pipeline: PipelineResult;
  readonly setup?: TrainingSetup;
  readonly gpu?: GpuChoice;
  readonly estimate?: Estimate;
  /** Why the estimator refused the resolved setup (contradictory values), when it did. */
  readonly estimateErrors?: readonly Warning[];
  readonly findings: readonly Finding[];
  readonly settings: AnalysisSettings;
  /** Advice, computed on first use (the advice search estimates ~2,000 candidates). */
  advice(): AdviceResult | undefined;
  /** The estimate of the same run with these edits applied to its files, or undefined when they leave no estimate. */
  withEdits(edits: readonly EditData[]): Estimate | undefined;
}

export interface AnalyzeOptions {
  /** Translates the messages this layer writes (vscode.l10n.t in the extension). */
  readonly translate?: (message: string, ...args: Array<string | number>) => string;
  readonly reader: FileReader;
  readonly resolver: ModelResolver;
  /** Other files that belong to the same run (e.g. the launch script that references this DeepSpeed JSON). */
  readonly related?: readonly InputFile[];
}

/** What one run of the pipeline and the estimator gives for a set of file texts. */
interface Run {
  readonly pipeline: PipelineResult;
  readonly setup?: TrainingSetup;
  readonly gpu?: GpuChoice;
  readonly gpuName?: string;
  readonly estimate?: Estimate;
  readonly estimateErrors?: readonly Warning[];
}

/** The pipeline over the document and its related files, the settings applied, then the estimate. */
function runOnce(doc: DocumentInput, settings: AnalysisSettings, opts: AnalyzeOptions, lean = false): Run {
  const overrides: Overrides = {
    gpu: settings.gpu || undefined,
    gpusPerNode: settings.gpusPerNode,
    nodes: settings.nodes,
    origin: 'setting',
  };
  const inputs: InputFile[] = [
    ...(opts.related ?? []).filter((r) => r.file !== doc.file),
    { file: doc.file, text: doc.text, languageId: doc.languageId },
  ];
  let pipeline = runPipeline(inputs, opts.reader, overrides, opts.resolver);
  if (!pipeline.setup && settings.model && pipeline.problems.some((p) => p.code === 'unknown-model')) {
    pipeline = runPipeline(inputs, opts.reader, { ...overrides, model: settings.model }, opts.resolver);
  }
  // The version setting also replaces a release the files' keys only imply (an assumption: evaluation_strategy).
  const impliedVersion = pipeline.provenance.transformers_version?.kind === 'default';
  let setup = withSettings(pipeline.setup, settings, impliedVersion);
  if (impliedVersion && settings.transformersVersion && setup) {
    const provenance = { ...pipeline.provenance };
    provenance.transformers_version = { kind: 'setting', setting: 'vramLens.transformersVersion' };
    pipeline = { ...pipeline, provenance };
  }
  // The version settings decide the Trainer's default optimizer as the files' pins do.
  if (setup && setup !== pipeline.setup) {
    const stack = trainerDefaultOptimizer(setup, pipeline.provenance);
    setup = stack.setup;
    pipeline = { ...pipeline, provenance: stack.provenance };
  }
  const gpuName = pipeline.gpu ?? (settings.gpu || undefined);
  const found = gpuName ? findGpu(gpuName) : undefined;
  const gpu = found?.ok ? found.gpu : undefined;
  if (!setup) return { pipeline, setup, gpu, gpuName };
  const r = estimate(setup, {
    gpu: gpu ? gpuTarget(gpu) : undefined,
    provenance: pipeline.provenance,
    lean,
  });
  return r.ok
    ? { pipeline, setup, gpu, gpuName, estimate: r.estimate }
    : { pipeline, setup, gpu, gpuName, estimateErrors: r.errors };
}

/** The settings that fill what the files leave open: the CUDA context size and the library versions. */
function withSettings(
  setup: TrainingSetup | undefined,
  settings: AnalysisSettings,
  impliedVersion = false,
): TrainingSetup | undefined {
  let s = setup;
  if (s && settings.cudaContextGiB !== undefined && s.cuda_context_bytes === undefined)
    s = { ...s, cuda_context_bytes: Math.round(settings.cudaContextGiB * GiB) };
  if (s && settings.pytorchVersion && s.pytorch_version === undefined)
    s = { ...s, pytorch_version: settings.pytorchVersion };
  if (s && settings.transformersVersion && (s.transformers_version === undefined || impliedVersion))
    s = { ...s, transformers_version: settings.transformersVersion };
  return s;
}

/**
 * The same run over the texts that edits leave: the document and every file of the run read with the edits applied
 * (quick-fix titles state the saving of the files as the fix leaves them). A lean estimate: the same figures and fit,
 * without formula texts.
 */
function rerunWithEdits(
  doc: DocumentInput,
  settings: AnalysisSettings,
  opts: AnalyzeOptions,
  edits: readonly EditData[],
): Run {
  const byFile = new Map<string, EditData[]>();
  for (const e of edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  const edited = (file: string, text: string): string =>
    byFile.has(file) ? applyEditData(text, byFile.get(file)!) : text;
  const reader: FileReader = {
    ...opts.reader,
    read: (p, kind) => {
      const text = opts.reader.read(p, kind);
      return text === undefined ? undefined : edited(p, text);
    },
  };
  const related = (opts.related ?? []).map((r) => ({ ...r, text: edited(r.file, r.text) }));
  return runOnce({ ...doc, text: edited(doc.file, doc.text) }, settings, { ...opts, reader, related }, true);
}

/** Analyzes one document (plus related and referenced files) under the given settings. */
export function analyzeDocument(doc: DocumentInput, settings: AnalysisSettings, opts: AnalyzeOptions): Analysis {
  const detected = detectFormat(doc.file, doc.text, doc.languageId);
  const scenario = detected === 'scenario' ? analyzeScenario(doc.text, doc.file) : undefined;
  const { pipeline, setup, gpu, gpuName, estimate: est, estimateErrors } = runOnce(doc, settings, opts);
  // A JSON / YAML file a script of the run loads: its facts are the items the script takes, at their keys.
  // A project's config read by its names is read as the run reads it where another file of the run leads to it (its
  // script loads it, a launch line's --config names it).
  const inRun = pipeline.files.find((f) => f.file === doc.file);
  const readOtherwise = detected === 'project-yaml' && inRun !== undefined && inRun.facts.format !== 'project-yaml';
  const loaded = !detected || readOtherwise ? inRun : undefined;
  const format = loaded?.facts.format ?? detected;
  const facts =
    loaded?.facts ??
    (detected && detected !== 'scenario' ? analyzeAs(detected, doc.text) : emptyFacts(detected ?? 'scenario'));
  const headroomFraction = settings.headroomPercent / 100;
  let adviceCache: AdviceResult | undefined | null = null;
  const analysis: Analysis = {
    file: doc.file,
    text: doc.text,
    format,
    facts,
    scenario,
    pipeline,
    setup,
    gpu,
    estimate: est,
    estimateErrors,
    settings,
    findings: [],
    advice(): AdviceResult | undefined {
      if (adviceCache === null) {
        adviceCache =
          setup && gpu
            ? advise(setup, {
                gpu: { id: gpu.id, memoryBytes: gpu.memoryBytes, source: gpu.source },
                gpuSpec: gpu.spec as GpuSpec | undefined,
                provenance: pipeline.provenance,
                headroomFraction,
                zeroConfigFor: shippedZeroConfigFor(facts, setup),
              })
            : undefined;
      }
      return adviceCache ?? undefined;
    },
    withEdits(edits: readonly EditData[]): Estimate | undefined {
      return rerunWithEdits(doc, settings, opts, edits).estimate;
    },
  };
  (analysis as { findings: readonly Finding[] }).findings = computeFindings(
    analysis,
    doc.text,
    gpuName,
    opts.translate,
  );
  return analysis;
}
