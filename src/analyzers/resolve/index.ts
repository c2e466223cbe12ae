// Resolve: merges the facts of several files (any format) with each tool's defaults into one TrainingSetup,
// recording for every field where it came from. Precedence: explicit flag/setting > launcher flag (shell) > config
// file > referenced file (a DeepSpeed JSON reached through a reference) > tool default. Model references are resolved
// through a caller-supplied resolver (the catalog in the core; the CLI and the extension add local files). Pure: the
// caller reads files.
//
// The parts: winning.ts ranks the facts; FIELD_RULES (field-rules.ts) fills the setup field by field, in order, with
// the rules of method.ts, precision.ts, optimizer.ts, batch.ts, preference.ts, parallelism.ts and rollout.ts over the
// ResolveContext (context.ts); model.ts resolves the model; scenarios.ts resolves scenario files.
import type { TrainingSetupInput } from '../../core';
import { TrainingSetupSchema } from '../../core';
import { quoteWritten } from '../facts';
import { describeSetupIssue, valueAt } from '../issues';
import { keyOfField, keyOfPath, ResolveContext } from './context';
import { applyRule, FIELD_RULES } from './field-rules';
import { modelLocation, resolveArchitecture, resolveTeacher } from './model';
import { capSeqLenAtPositions, encoderDecoderLengths, seqLenAtArcticDefault, seqLenAtOpenValue } from './batch';
import { resolveLoraTargets } from './lora-targets';
import type { AnalyzedFile, FactResolution, ModelResolver, Overrides } from './types';
import { fileProblems, toolOrder, winningFacts } from './winning';
export { locateOffset } from './locate';
export { catalogResolver, resolveScenarios } from './scenarios';
export type {
  AnalyzedFile,
  FactResolution,
  FileRole,
  ModelResolver,
  Overrides,
  Resolution,
  ResolvedModel,
  WinningFact,
} from './types';

/** The setup the files describe, with the provenance of each field, the fact that decided each key, and located problems. */
export function resolveFacts(
  files: readonly AnalyzedFile[],
  overrides: Overrides,
  resolveModel: ModelResolver,
): FactResolution {
  const problems = fileProblems(files);
  const { decided, unknownOnly } = winningFacts(files);
  const tools = toolOrder(files);
  const ctx = new ResolveContext(files, overrides, resolveModel, decided, unknownOnly, tools, problems);
  for (const rule of FIELD_RULES) applyRule(ctx, rule);
  const { setup, provenance } = ctx;
  if (!resolveArchitecture(ctx)) return { provenance, problems, decided, tools, gpu: setup.gpu as string | undefined };
  resolveTeacher(ctx);
  resolveLoraTargets(ctx);
  seqLenAtArcticDefault(ctx);
  capSeqLenAtPositions(ctx);
  encoderDecoderLengths(ctx);
  seqLenAtOpenValue(ctx);
  const modelAt = modelLocation(ctx);
  const parsed = TrainingSetupSchema.safeParse(setup as TrainingSetupInput);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? '');
      // The fact that wrote the value (a top-level field's, or a LoRA field's), for its key, text and place.
      const key = keyOfPath(issue.path);
      const w = key ? decided[key] : undefined;
      const where = w ? `\`${w.fact.rawKey}\`` : `\`${issue.path.join('.')}\``;
      const written = w ? quoteWritten(w.fact.rawValue) : undefined;
      problems.push({
        ...(w?.location ?? decided[keyOfField(field)]?.location ?? modelAt),
        severity: 'error',
        code: 'invalid-value',
        key: w?.fact.rawKey ?? field,
        ...describeSetupIssue(issue, where, valueAt(setup, issue.path), written),
      });
    }
    return { provenance, problems, decided, tools };
  }
  return { setup: parsed.data, provenance, problems, decided, tools, gpu: parsed.data.gpu };
}
