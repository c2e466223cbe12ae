// Scenario files (*.vram.yaml, *.vram.json) and the overrides into a validated TrainingSetup: the values are the
// scenario's own keys, so the merge is a copy; models (the policy, a distillation teacher, reward models) are resolved
// through the caller's resolver. Also the catalog as a resolver. Pure: no I/O here.
import type { Provenance, ProvenanceMap, TrainingSetupInput } from '../../core';
import { TrainingSetupSchema } from '../../core';
import { findModel, PEFT_LORA_DEFAULT_SOURCE, peftDefaultLoraTargets } from '../../core';
import { msg } from '../facts';
import { describeSetupIssue, valueAt } from '../issues';
import type { Location, Problem, ScenarioFacts } from '../scenario';
import type { ModelResolver, Overrides, Resolution } from './types';

/** The built-in catalog as a resolver. */
export const catalogResolver: ModelResolver = (ref) => {
  const hit = findModel(ref);
  if (hit.ok) {
    return {
      ok: true,
      model: {
        id: hit.model.id,
        config: hit.model.config,
        parameters: hit.model.publishedParams,
        source: `built-in catalog (${hit.model.source})`,
      },
    };
  }
  return {
    ok: false,
    message: `unknown model '${ref}'${hit.suggestions.length ? `; closest catalog entries: ${hit.suggestions.join(', ')}` : ''}`,
  };
};

const FLAG_NAMES: Record<string, string> = {
  model: '--model',
  gpu: '--gpu',
  gpus_per_node: '--gpus',
  nodes: '--nodes',
  seq_len: '--seq-len',
};

export function resolveScenarios(
  files: readonly ScenarioFacts[],
  overrides: Overrides,
  resolveModel: ModelResolver,
): Resolution {
  const m = mergedFiles(files);
  const { merged, provenance, where, problems } = m;
  withOverrides(m, overrides);
  const anchor = (key: string): Location =>
    where[key] ?? { file: files[0]?.file ?? '', start: 0, end: 0, line: 1, column: 1 };
  if (problems.some((p) => p.severity === 'error'))
    return { provenance, problems, gpu: merged.gpu as string | undefined, gpuLocation: where.gpu };
  if (!modelResolved(m, anchor, resolveModel)) return { provenance, problems };
  const frozen: FrozenModels = { merged, problems, anchor, resolveModel };
  if (!resolveTeacher(frozen) || !resolveRewardModels(frozen)) return { provenance, problems };
  peftLoraDefault(merged, provenance);
  const parsed = TrainingSetupSchema.safeParse(merged as TrainingSetupInput);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.map(String).join('.');
      problems.push({
        ...anchor(String(issue.path[0] ?? 'model')),
        severity: 'error',
        code: 'invalid-value',
        ...describeSetupIssue(issue, `\`${key || 'setup'}\``, valueAt(merged, issue.path)),
        key,
      });
    }
    return { provenance, problems };
  }
  return { setup: parsed.data, provenance, problems, gpu: parsed.data.gpu, gpuLocation: where.gpu };
}

/** The scenario files' values merged (a later file's key over an earlier's), where each is written, and their problems. */
interface MergedScenarios {
  readonly merged: Record<string, unknown>;
  readonly provenance: ProvenanceMap;
  readonly where: Record<string, Location>;
  readonly problems: Problem[];
}

function mergedFiles(files: readonly ScenarioFacts[]): MergedScenarios {
  const m: MergedScenarios = { merged: {}, provenance: {}, where: {}, problems: [] };
  const provenance = m.provenance as Record<string, Provenance>;
  for (const f of files) {
    m.problems.push(...f.problems);
    for (const [k, v] of Object.entries(f.values)) {
      m.merged[k] = v;
      const loc = f.keyLocations[k];
      m.where[k] = f.valueLocations[k] ?? loc ?? { file: f.file, start: 0, end: 0, line: 1, column: 1 };
      provenance[k] = { kind: 'file', file: f.file, line: loc?.line, key: k };
      // The own keys of the rollout and galore blocks: those written are not assumptions.
      if ((k === 'rollout' || k === 'galore') && v !== null && typeof v === 'object') {
        for (const sub of Object.keys(v))
          provenance[`${k}.${sub}`] = { kind: 'file', file: f.file, line: loc?.line, key: `${k}.${sub}` };
      }
    }
  }
  return m;
}

/** The command line's flags or the editor's settings over the files' values, each said to come from there. */
function withOverrides(m: MergedScenarios, overrides: Overrides): void {
  const set = (key: string, value: unknown): void => {
    if (value === undefined) return;
    m.merged[key] = value;
    (m.provenance as Record<string, Provenance>)[key] =
      overrides.origin === 'setting'
        ? { kind: 'setting', setting: `vramLens.${key}` }
        : { kind: 'flag', flag: FLAG_NAMES[key] ?? key };
  };
  set('model', overrides.model);
  set('gpu', overrides.gpu);
  set('gpus_per_node', overrides.gpusPerNode);
  set('nodes', overrides.nodes);
  set('seq_len', overrides.seqLen);
}

/**
 * The model's architecture: an explicit `architecture` block wins; otherwise the `model` reference resolved (its notes
 * said at the key, the catalog's parameter count taken where the files give none). False when there is none.
 */
function modelResolved(m: MergedScenarios, anchor: (key: string) => Location, resolveModel: ModelResolver): boolean {
  const { merged, provenance, problems } = m;
  if (merged.architecture !== undefined) return true;
  const ref = merged.model;
  if (typeof ref !== 'string' || ref.length === 0) {
    problems.push({
      ...anchor('model'),
      severity: 'error',
      code: 'missing-model',
      ...msg('no model: give `model` (Hub id, model directory or config.json) or an `architecture` block'),
    });
    return false;
  }
  const r = resolveModel(ref);
  if (!r.ok) {
    problems.push({
      ...anchor('model'),
      severity: 'error',
      code: 'unknown-model',
      ...msg('{0}', r.message),
      key: 'model',
    });
    return false;
  }
  merged.architecture = r.model.config;
  provenance.architecture = { kind: 'catalog', entry: r.model.source };
  for (const note of r.model.notes ?? [])
    problems.push({ ...anchor('model'), severity: 'warning', code: 'model-files', ...msg('{0}', note), key: 'model' });
  if (merged.parameters === undefined && r.model.parameters !== undefined) {
    merged.parameters = r.model.parameters;
    provenance.parameters = { kind: 'catalog', entry: r.model.source };
  }
  return true;
}

/**
 * A LoRA block that names no target_modules: LoraConfig's default, PEFT's targets for the model type (T5's q and v,
 * BLOOM's query_key_value), said as an assumption. A model type PEFT has none for keeps the schema's q_proj, v_proj
 * and the estimate's warning when they match nothing (get_peft_model raises there). Without a block the estimate
 * takes PEFT's defaults itself and warns (estimate/methods.ts adapterDefaults).
 */
function peftLoraDefault(merged: Record<string, unknown>, provenance: ProvenanceMap): void {
  if (merged.method !== 'lora' && merged.method !== 'qlora') return;
  const lora = merged.lora;
  if (lora === null || typeof lora !== 'object' || Array.isArray(lora)) return;
  if ((lora as Record<string, unknown>).target_modules !== undefined) return;
  const modelType = (merged.architecture as { model_type?: unknown } | undefined)?.model_type;
  const targets = peftDefaultLoraTargets(modelType);
  if (!targets) return;
  merged.lora = { ...lora, target_modules: [...targets] };
  (provenance as Record<string, Provenance>)['lora.target_modules'] = {
    kind: 'default',
    owner: 'peft',
    note: `LoraConfig without target_modules: PEFT's default for model_type ${String(modelType)} (${PEFT_LORA_DEFAULT_SOURCE})`,
  };
}

/** What the frozen models beside the policy are resolved into: the merged scenario, its problems, where keys are. */
interface FrozenModels {
  readonly merged: Record<string, unknown>;
  readonly problems: Problem[];
  readonly anchor: (key: string) => Location;
  readonly resolveModel: ModelResolver;
}

/** The distillation teacher: named by teacher_model (resolved like `model`) unless its architecture is given. False: unknown. */
function resolveTeacher(ctx: FrozenModels): boolean {
  const { merged, problems, anchor, resolveModel } = ctx;
  const d = merged.distillation;
  if (d !== null && typeof d === 'object' && !Array.isArray(d)) {
    const dist = d as Record<string, unknown>;
    if (
      dist.teacher_architecture === undefined &&
      typeof dist.teacher_model === 'string' &&
      dist.teacher_model.length > 0
    ) {
      const t = resolveModel(dist.teacher_model);
      if (!t.ok) {
        problems.push({
          ...anchor('distillation'),
          severity: 'error',
          code: 'unknown-model',
          ...msg('{0}', t.message),
          key: 'distillation.teacher_model',
        });
        return false;
      }
      merged.distillation = {
        ...dist,
        teacher_architecture: t.model.config,
        ...(dist.teacher_parameters === undefined && t.model.parameters !== undefined
          ? { teacher_parameters: t.model.parameters }
          : {}),
      };
    }
  }
  return true;
}

/** GRPO reward models: each named by `model` (resolved like the policy) unless its architecture is given. False: unknown. */
function resolveRewardModels(ctx: FrozenModels): boolean {
  const { merged, problems, anchor, resolveModel } = ctx;
  const ro = merged.rollout;
  if (
    ro !== null &&
    typeof ro === 'object' &&
    !Array.isArray(ro) &&
    Array.isArray((ro as Record<string, unknown>).reward_models)
  ) {
    const list = (ro as Record<string, unknown>).reward_models as unknown[];
    const resolved: unknown[] = [];
    for (const [i, item] of list.entries()) {
      const rm = item as Record<string, unknown>;
      if (
        rm !== null &&
        typeof rm === 'object' &&
        rm.architecture === undefined &&
        typeof rm.model === 'string' &&
        rm.model.length > 0
      ) {
        const t = resolveModel(rm.model);
        if (!t.ok) {
          problems.push({
            ...anchor('rollout'),
            severity: 'error',
            code: 'unknown-model',
            ...msg('{0}', t.message),
            key: `rollout.reward_models.${i}.model`,
          });
          return false;
        }
        // A published count is the causal LM's; the reward model is a sequence classifier (a 1-label score head, no
        // lm_head), counted from the architecture.
        resolved.push({ ...rm, architecture: t.model.config });
      } else {
        resolved.push(rm);
      }
    }
    merged.rollout = { ...(ro as Record<string, unknown>), reward_models: resolved };
  }
  return true;
}
