// The model: its reference resolved to an architecture (through the resolver the caller gives: catalog, model folder
// or the Hub), the dtype a model id is loaded in, a checkpoint's own quantization, the parameter count, and the
// distillation teacher, resolved like the student. Pure: resolving is the resolver's job.
import { withConfigOverrides } from './config-overrides';
import { quantizationFromConfig } from '../checkpoint-quantization';
import { isUnknown, msg, type Fact } from '../facts';
import { heredocNamingModel } from '../heredoc';
import { NO_TRAINING_ESTIMATE } from '../trains';
import { locateOffset } from './locate';
import type { Location } from '../scenario';
import { FAMILY_TRAITS, HfConfigSchema, olderThan, parseArchitecture, type HfConfig } from '../../core';
import { fileProv, numberOf, type ResolveContext } from './context';
import type { WinningFact } from './types';

/** Where the model's problems are reported: at the model key, else at the start of the first file. */
export function modelLocation(ctx: ResolveContext): Location {
  const { files, decided } = ctx;
  return decided.model?.location ?? { file: files[0]?.file ?? '', start: 0, end: 0, line: 1, column: 1 };
}

/** What the files write for a value not known, and why it is not: `$MODEL: \`MODEL\` is not set in this script`. */
function unknownReason(fact: Fact): string {
  const why = isUnknown(fact.value) ? fact.value.unknown : '';
  if (!why || fact.rawValue.includes(why)) return fact.rawValue;
  return why.includes(fact.rawValue) ? why : `${fact.rawValue}: ${why}`;
}

/**
 * The architecture a file writes out by its dimensions (torchtune's generic builders): its config.json fields, located
 * at the key that builds it. The parameter count follows from the architecture.
 */
function inlineArchitecture(ctx: ResolveContext, w: WinningFact): boolean {
  const parsed = HfConfigSchema.safeParse(jsonOf(w.fact.value));
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
    ctx.problems.push({
      ...w.location,
      severity: 'error',
      code: 'unknown-model',
      ...msg('the model {0} builds has dimensions out of range ({1})', w.fact.rawValue, why),
      key: w.fact.rawKey,
    });
    return false;
  }
  ctx.setup.architecture = parsed.data;
  ctx.prov.architecture = fileProv(w);
  return true;
}

/** The note of a from_pretrained load in the checkpoint's dtype (transformers 5's default), which a 4.x pin takes back. */
export const AUTO_DTYPE_NOTE = "from_pretrained without a dtype loads the checkpoint's ";
export const AUTO_DTYPE_WHY =
  '(dtype="auto", the default since transformers 5; 4.x loaded float32: pass dtype to pin it)';

/** A fact's JSON text as a value; undefined when it is not JSON. */
function jsonOf(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** The architecture of the model the files name; false when there is none or it is not known (a problem says which). */
export function resolveArchitecture(ctx: ResolveContext): boolean {
  const { resolveModel, decided, unknownOnly, setup, prov, problems } = ctx;
  const ref = setup.model as string | undefined;
  const modelAt = modelLocation(ctx);
  // The files' own architecture (what a torchtune builder makes) wins over the checkpoint they name, unless the model
  // is given by a flag or setting.
  const given = ctx.prov.model?.kind === 'flag' || ctx.prov.model?.kind === 'setting';
  if (decided.architecture && !given) return inlineArchitecture(ctx, decided.architecture);
  if (!ref) {
    const unknown = unknownOnly.model;
    // A launcher that keeps its command in a heredoc (OpenRLHF's `read -r -d '' cmds <<EOF`) whose body passes a model
    // option: the body is not read, so the refusal points at the heredoc and says so.
    const launcher = unknown
      ? undefined
      : ctx.files.find((f) => f.facts.format === 'shell' && heredocNamingModel(f.text));
    const h = launcher ? heredocNamingModel(launcher.text) : undefined;
    if (launcher && h) {
      problems.push({
        ...locateOffset(launcher.file, launcher.text, h.offset, h.offset + 2 + h.delimiter.length),
        severity: 'error',
        code: 'unknown-model',
        ...msg(
          'no model found in these files: heredocs (<<{0}) are not read, so a model named inside one is not seen: ' +
            'pass --model <hub id | dir | config.json> or set vramLens.model',
          h.delimiter,
        ),
      });
      return false;
    }
    // A file that trains nothing (an inference script, Ludwig's zero-shot config) says so at its place: no model is asked for.
    if (!unknown && trainsNothing(ctx)) return false;
    problems.push({
      ...(unknown?.location ?? modelAt),
      severity: 'error',
      code: 'unknown-model',
      ...(unknown
        ? msg(
            'the model ({0}) is not known statically: pass --model or set vramLens.model',
            unknownReason(unknown.fact),
          )
        : msg('no model found in these files: pass --model <hub id | dir | config.json> or set vramLens.model')),
    });
    return false;
  }
  const r = resolveModel(ref, decided.model?.location.file);
  if (!r.ok) {
    // A model given by a flag or a setting is not the file's: said at the top of the file, naming where it came from.
    const p = ctx.prov.model;
    const from = p?.kind === 'flag' ? p.flag : p?.kind === 'setting' ? p.setting : undefined;
    problems.push({
      ...(from ? { file: ctx.files[0]?.file ?? '', start: 0, end: 0, line: 1, column: 1 } : modelAt),
      severity: 'error',
      code: 'unknown-model',
      ...(from ? msg('{0}: {1}', from, r.message) : msg('{0}', r.message)),
      ...(from ? {} : { key: decided.model?.fact.rawKey }),
    });
    return false;
  }
  const overridden = withConfigOverrides(ctx, r.model.config, r.model.id);
  setup.architecture = overridden.config;
  prov.architecture = { kind: 'catalog', entry: r.model.source };
  for (const note of r.model.notes ?? [])
    problems.push({
      ...modelAt,
      severity: 'warning',
      code: 'model-files',
      ...msg('{0}', note),
      key: decided.model?.fact.rawKey,
    });
  // A from_pretrained call without a dtype loads the checkpoint's dtype since transformers 5 (huggingface/transformers
  // PR 42805). A model id given to a TRL trainer follows TRL's release (pipeline.ts trlModelDtype, after the pins).
  const fromPretrained = loadsFromPretrained(ctx);
  const ckptDtype = checkpointDtype(r.model.config);
  // A family whose remote code builds its weights in a dtype of its own does so under transformers 4 too.
  const own = ownWeightDtype(r.model.config);
  const version = setup.transformers_version as string | undefined;
  if (
    fromPretrained &&
    (!olderThan(version, 5, 0) || own) &&
    !decided.weightsDtype &&
    prov.weights_dtype?.kind === 'default' &&
    ckptDtype &&
    setup.weights_dtype === 'fp32'
  ) {
    const name = ckptDtype === 'bf16' ? 'bfloat16' : 'float16';
    setup.weights_dtype = ckptDtype;
    const owner = decided.model?.fact.loadsCheckpointDtype ? decided.model.fact.tool : 'hf-trainer';
    const why = olderThan(version, 5, 0) && own ? `under transformers ${version} too: ${own}` : AUTO_DTYPE_WHY;
    prov.weights_dtype = { kind: 'default', owner, note: `${AUTO_DTYPE_NOTE}${name} ${why}` };
  }
  autoDtype(ctx, r.model.config);
  // A pre-quantized checkpoint (bitsandbytes, GPTQ, AWQ upload) is loaded in its stored bits whatever the script says;
  // training it needs adapters, as with quantization set in the files.
  const stored = setup.quantization === undefined ? quantizationFromConfig(r.model.config) : undefined;
  if (stored) {
    setup.quantization = Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== undefined));
    prov.quantization = { kind: 'catalog', entry: `${r.model.source}: the checkpoint's quantization_config` };
    const m = (setup.method as string | undefined) ?? 'full';
    if (m === 'full' || (m === 'lora' && stored.bits === 4)) setup.method = 'qlora';
  }
  if (r.model.parameters !== undefined && overridden.countHolds) {
    setup.parameters = r.model.parameters;
    prov.parameters = { kind: 'catalog', entry: r.model.source };
  }
  return true;
}

/** Knowledge distillation: the teacher (torchtune teacher_model) is resolved like the student. */
export function resolveTeacher(ctx: ResolveContext): void {
  const { resolveModel, decided, unknownOnly, setup, prov, problems } = ctx;
  const teacherFact = decided.teacherModel ?? unknownOnly.teacherModel;
  if (teacherFact) {
    const id = typeof teacherFact.fact.value === 'string' ? teacherFact.fact.value : undefined;
    const t = id ? resolveModel(id) : undefined;
    if (t?.ok) {
      // torchtune's KD recipes add a chunked forward KL to the cross-entropy; TRL's GKDTrainer trains on the
      // generalized JSD alone, with GKDConfig's beta (0.5 unless set). A teacher of a run that uses neither (a
      // distillation loop of the script's own) is taken as torchtune's loss, said at the teacher.
      const gkd = teacherFact.fact.tool === 'trl' || ctx.tools.includes('trl');
      if (!gkd && teacherFact.fact.tool !== 'torchtune') ownDistillation(ctx, teacherFact);
      const beta =
        gkd && decided.klBeta && typeof decided.klBeta.fact.value === 'number' ? decided.klBeta.fact.value : 0.5;
      setup.distillation = {
        teacher_model: id,
        teacher_architecture: t.model.config,
        ...(t.model.parameters !== undefined ? { teacher_parameters: t.model.parameters } : {}),
        ...(gkd
          ? {
              loss: 'jsd',
              jsd_beta: Math.min(1, Math.max(0, beta)),
              // GKDConfig lmbda 0.5 and max_new_tokens 128 unless set.
              on_policy: Math.min(1, Math.max(0, numberOf(decided.onPolicyFraction, 0.5))),
              max_new_tokens: Math.max(1, Math.round(numberOf(decided.maxNewTokens, 128))),
            }
          : {}),
      };
      prov.distillation = fileProv(teacherFact);
    } else {
      problems.push({
        ...teacherFact.location,
        severity: 'warning',
        code: 'not-modeled',
        key: teacherFact.fact.rawKey,
        ...msg(
          '{0}: the teacher model ({1}) is not known, so its weights and the distillation loss are not counted: {2}',
          teacherFact.fact.rawKey,
          teacherFact.fact.rawValue,
          t && !t.ok ? t.message : 'no Hub id for this builder',
        ),
      });
    }
  }
}

/** A teacher of a distillation loop of the script's own: its loss is not read, which the estimate says. */
function ownDistillation(ctx: ResolveContext, teacher: WinningFact): void {
  ctx.problems.push({
    ...teacher.location,
    severity: 'warning',
    code: 'not-modeled',
    key: teacher.fact.rawKey,
    ...msg(
      '{0}: a distillation the script runs itself: its loss is not read; estimated as a forward KL over the ' +
        "student's and the teacher's logits beside the cross-entropy (torchtune's knowledge distillation)",
      teacher.fact.rawKey,
    ),
  });
}

/**
 * A dtype the files give as "auto" (`torch_dtype="auto"`, `--torch_dtype auto`): the one the checkpoint's config.json
 * stores, float32 where it stores none (modeling_utils.py `_get_dtype`: "auto" reads config.torch_dtype, else the
 * default dtype), located where the files write it, over any default the precision took meanwhile.
 */
function autoDtype(ctx: ResolveContext, config: Readonly<Record<string, unknown>>): void {
  const auto = ctx.unknownOnly.weightsDtype;
  const v = auto?.fact.value;
  if (!auto || v === undefined || ctx.decided.weightsDtype || !isUnknown(v) || !v.fromCheckpoint) return;
  if (ctx.prov.weights_dtype?.kind !== 'default') return;
  ctx.setup.weights_dtype = checkpointDtype(config) ?? 'fp32';
  ctx.prov.weights_dtype = fileProv(auto);
}

/** The dtype a checkpoint's config.json stores its weights in (torch_dtype, or dtype in newer transformers). */
export function checkpointDtype(config: Readonly<Record<string, unknown>>): 'bf16' | 'fp16' | undefined {
  const d = config.torch_dtype ?? config.dtype;
  return d === 'bfloat16' ? 'bf16' : d === 'float16' ? 'fp16' : undefined;
}

/** A file of the run said it trains nothing (NO_TRAINING_ESTIMATE), so no training estimate is made. */
function trainsNothing(ctx: ResolveContext): boolean {
  return ctx.files.some((f) =>
    f.facts.problems.some((p) => p.code === 'not-modeled' && p.message.endsWith(NO_TRAINING_ESTIMATE)),
  );
}

/**
 * Whether the run's model is loaded by a from_pretrained the files show (or by a TRL trainer from its model id),
 * whatever names the id: the call's own argument, or the option a launch line or a dataclass default gives the
 * script's `from_pretrained(model_args.model_name_or_path)` (bytebarde/llm_alpaca's train.py).
 */
export function loadsFromPretrained(ctx: ResolveContext): boolean {
  const model = ctx.decided.model?.fact;
  if (model?.rawKey === 'pretrained_model_name_or_path' || model?.loadsCheckpointDtype === true) return true;
  return ctx.files.some((f) =>
    f.facts.facts.some((x) => x.key === 'model' && x.rawKey === 'pretrained_model_name_or_path'),
  );
}

/** Why the model's own code builds its weights in a dtype of its own (FamilyTraits.ownWeightDtype), if it does. */
export function ownWeightDtype(config: HfConfig): string | undefined {
  const parsed = parseArchitecture(config);
  return parsed.ok ? FAMILY_TRAITS[parsed.arch.family].ownWeightDtype : undefined;
}
