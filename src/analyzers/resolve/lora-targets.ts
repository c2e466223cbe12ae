// LoRA targets as PEFT reads them, once the model is known: a str target_modules is a regular expression
// re.fullmatch-ed against every module's full name, a list matches a module whose name equals an entry or ends with
// "." + entry (peft/tuners/tuners_utils.py check_target_module_exists), and no target_modules at all takes PEFT's
// per-model default (peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING), raising a ValueError
// for a model type without one. A target list that matches none of the model's modules is a located warning naming the
// modules it has (PEFT raises "Target modules ... not found in the base model"), never a silent 0 trainable. Pure.
import {
  linearModules,
  LITGPT_ROLE_NAMES,
  PEFT_LORA_DEFAULT_SOURCE,
  peftDefaultLoraTargets,
  litgptQkvParts,
  parseArchitecture,
  type HfConfig,
  type LinearModule,
  visionLinearNames,
} from '../../core';
import { msg } from '../facts';
import type { ResolveContext } from './context';
import type { WinningFact } from './types';

/** Parents a module sits under in Hugging Face models, by group: the full names a regex is matched against. */
const PARENTS: Readonly<Record<LinearModule['group'], readonly string[]>> = {
  // Qwen3-Next's and Qwen3.5's Gated DeltaNet layers are linear_attn (Axolotl's `linear_attn.in_proj_qkvz`); T5's
  // SelfAttention and EncDecAttention, BART's encoder_attn.
  attention: [
    'self_attn',
    'attn',
    'attention',
    'self_attention',
    'attention.self',
    'linear_attn',
    'SelfAttention',
    'EncDecAttention',
    'encoder_attn',
  ],
  cross_attention: ['cross_attn', 'encoder_attn', 'crossattention'],
  mlp: ['mlp', 'feed_forward', 'DenseReluDense'],
  expert: ['mlp', 'block_sparse_moe', 'feed_forward'],
  router: ['mlp', 'block_sparse_moe'],
};
const PREFIXES = ['model.layers.0', 'transformer.h.0', 'model.language_model.layers.0'];

/** Full module names of the kind PEFT sees (`model.layers.0.self_attn.q_proj`, `model.layers.0.mlp.experts.0.gate_proj`). */
function fullNames(m: LinearModule): string[] {
  const leaf = m.name.startsWith('experts.') ? `experts.0.${m.name.slice('experts.'.length)}` : m.name;
  // A name with its parent already in it (gpt2's mlp.c_proj) is not put under a second one.
  const parents = m.name.includes('.') && !m.name.startsWith('experts.') ? [''] : PARENTS[m.group].map((x) => `${x}.`);
  return PREFIXES.flatMap((p) => parents.map((parent) => `${p}.${parent}${leaf}`));
}

/** PEFT's list rule: a full name equal to the entry or ending with "." + entry. */
function listMatches(target: string, m: LinearModule): boolean {
  return fullNames(m).some((n) => n === target || n.endsWith(`.${target}`));
}

/** Python's re.fullmatch in JS terms: anchored, or undefined when the pattern uses syntax JS does not read. */
function fullmatcher(pattern: string): RegExp | undefined {
  if (/\(\?P[<=]|\(\?[aiLmsux]+\)|\\[AZ]/.test(pattern)) return undefined;
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    return undefined;
  }
}

/** What the three readings of target_modules share: the run, its LoRA block, the model's linear modules and a warning. */
interface Targets {
  readonly ctx: ResolveContext;
  readonly lora: Record<string, unknown>;
  readonly mods: readonly LinearModule[];
  /** The model's linear module names, and as a message lists them. */
  readonly have: readonly string[];
  readonly haveText: string;
  readonly family: string;
  readonly warn: (w: WinningFact | undefined, m: ReturnType<typeof msg>) => void;
}

export function resolveLoraTargets(ctx: ResolveContext): void {
  const { setup, decided, problems } = ctx;
  const lora = setup.lora as Record<string, unknown> | undefined;
  if (!lora || (setup.method !== 'lora' && setup.method !== 'qlora') || !setup.architecture) return;
  const parsed = parseArchitecture(setup.architecture as HfConfig);
  if (!parsed.ok) return;
  const mods = linearModules(parsed.arch).filter((m) => !m.parameter);
  const have = [...new Set(mods.map((m) => m.name))];
  const top = { file: ctx.files[0]?.file ?? '', start: 0, end: 0, line: 1, column: 1 };
  const warn = (w: WinningFact | undefined, m: ReturnType<typeof msg>): void => {
    problems.push({
      ...(w?.location ?? top),
      severity: 'warning',
      code: 'invalid-value',
      ...m,
      ...(w ? { key: w.fact.rawKey } : {}),
    });
  };
  const t: Targets = { ctx, lora, mods, have, haveText: have.join(', '), family: parsed.arch.family, warn };
  const listW = decided.loraTargets;
  const regexW = decided.loraTargetRegex;
  const flagRegex = regexW && listW ? optionRegex(listW) : undefined;
  if (regexW && !listW) regexTargets(t, regexW);
  else if (flagRegex) regexTargets(t, flagRegex);
  else if (!listW) defaultTargets(t);
  else listTargets(t, listW);
}

/**
 * A launch line's value for the option a script hands LoraConfig as a str (its default read as a regex: MiniCPM-V's
 * `lora_target_modules: str = r"llm\..*layers\.\d+\.self_attn\.(q_proj|k_proj|v_proj)"`), where the value is one
 * word with a regular expression's characters: PEFT re.fullmatch-es it too, so it is the regex, not a list of names.
 */
function optionRegex(listW: WinningFact): WinningFact | undefined {
  const value = listW.fact.value;
  if (listW.fact.rawKey === 'target_modules' || !Array.isArray(value) || value.length !== 1) return undefined;
  const word = String(value[0]);
  return /[\\()|*+?^$[\]]/.test(word) ? { ...listW, fact: { ...listW.fact, value: word } } : undefined;
}

/** A str target_modules: the modules whose full names it re.fullmatch-es. */
function regexTargets(t: Targets, regexW: WinningFact): void {
  const { mods, family, haveText, warn } = t;
  const pattern = String(regexW.fact.value);
  const re = fullmatcher(pattern);
  if (!re) {
    warn(
      regexW,
      msg(
        '{0}: this regular expression uses Python syntax that is not read here; the LoRA targets are not known (this {1} model has {2}): give a list',
        pattern,
        family,
        haveText,
      ),
    );
    return;
  }
  const hits = mods.filter((m) => fullNames(m).some((n) => re.test(n)));
  if (hits.length === 0) {
    warn(
      regexW,
      msg(
        'target_modules {0} is a regular expression that PEFT matches against whole module names (model.layers.0.self_attn.q_proj), ' +
          "and it matches none of this {1} model's: " +
          'PEFT raises "Target modules ... not found in the base model". Its linear modules: {2}',
        pattern,
        family,
        haveText,
      ),
    );
    return;
  }
  t.lora.target_modules = [...new Set(hits.map((m) => m.name))];
}

/** No target_modules in the files: PEFT's per-model default, for the tools whose default is PEFT's own. */
function defaultTargets(t: Targets): void {
  const { setup, decided, tools, prov } = t.ctx;
  const peftDefault =
    tools.find((x) => x === 'hf-trainer' || x === 'trl' || x === 'peft' || x === 'ludwig') !== undefined &&
    !tools.some((x) => x === 'unsloth' || x === 'axolotl' || x === 'llamafactory' || x === 'torchtune');
  if (!peftDefault) return;
  if (loadedAdapter(t)) return;
  const modelType = (setup.architecture as { model_type?: unknown }).model_type;
  const def = peftDefaultLoraTargets(modelType);
  const at = decided.method?.fact.rawKey === 'LoraConfig' ? decided.method : decided.loraR;
  if (!def) {
    t.warn(
      at,
      msg(
        'no target_modules, and PEFT has no default for model_type {0}: get_peft_model raises "Please specify `target_modules` in `peft_config`". ' +
          "This {1} model's linear modules: {2}; q_proj, v_proj are assumed",
        String(modelType),
        t.family,
        t.haveText,
      ),
    );
    return;
  }
  t.lora.target_modules = [...def];
  // With r and the rest from the files, lora's provenance stays the file's (as before this table).
  if (prov.lora?.kind === 'default')
    prov.lora = {
      kind: 'default',
      owner: 'peft',
      note: `LoRA settings of the tool; target_modules ${def.join(', ')}: PEFT's default for model_type ${String(modelType)} (${PEFT_LORA_DEFAULT_SOURCE})`,
    };
}

/**
 * An adapter loaded trainable from its folder (hf-python/peft-loaded.ts): its targets are the ones saved with it, which
 * PEFT's default for the model type need not be (an SFT stage's adapter over every linear layer, or a model type PEFT
 * has no default for). Every linear layer of the blocks is taken, the most an adapter trains there, and said.
 */
function loadedAdapter(t: Targets): boolean {
  const { decided, prov } = t.ctx;
  const method = decided.method?.fact;
  if (method?.tool !== 'peft' || (method.rawKey !== 'is_trainable' && method.rawKey !== 'PeftModel.from_pretrained'))
    return false;
  t.lora.target_modules = 'all-linear';
  // A tool's rank for the LoRA it makes (TRL ModelConfig's lora_r 16) is not the loaded adapter's: LoraConfig's r 8.
  if (!decided.loraR) t.lora.r = 8;
  if (prov.lora?.kind === 'default')
    prov.lora = {
      kind: 'default',
      owner: 'VRAM Lens',
      note:
        'an adapter loaded from its folder (PeftModel.from_pretrained): its rank and targets are in its adapter_config.json, ' +
        `not in these files; every linear layer of the blocks (the most it can train there) at rank ${String(t.lora.r)} is assumed`,
    };
  return true;
}

/** A list: PEFT's suffix rule over the model's modules, LitGPT's roles, and a located warning for names it lacks. */
function listTargets(t: Targets, listW: WinningFact): void {
  const { lora, mods, have } = t;
  const value = listW.fact.value;
  if (!Array.isArray(value)) return;
  let list = value as readonly string[];
  // A comma-separated string given to a script's list option (`--lora_target_modules "q_proj,k_proj"`): the script
  // splits it (PEFT examples/sft: args.lora_target_modules.split(",")). LoraConfig's own list is taken as written, as
  // is a list of several words, which the option takes as they are (TRL's ModelConfig, `nargs="+"`): the `q_proj,` of
  // `--lora_target_modules "q_proj", "v_proj"` (hzhang57/opt-r2) names no module, and PEFT adapts v_proj alone.
  if (listW.fact.rawKey !== 'target_modules' && list.length === 1 && list[0].includes(',')) {
    list = list
      .flatMap((x) => x.split(','))
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
    lora.target_modules = list;
  }
  if ((listW.fact.tool === 'litgpt' || t.ctx.setup.model_code === 'litgpt') && litgptRoles(t, list)) return;
  unmatchedTargets(t, listW, list);
  // PEFT's suffix rule reaches `self_attn.q_proj`; the estimate counts modules by their own names, so such entries
  // become the names they reach.
  const reached = mods.filter((m) => list.some((x) => listMatches(x, m)));
  const dotted = list.some((x) => x.includes('.') && !have.includes(x));
  if (dotted && reached.length > 0) lora.target_modules = [...new Set(reached.map((m) => m.name))];
}

/**
 * LitGPT's switches name roles (query, output projection, MLP): a name this model lacks becomes the model's own names
 * for the role (litgpt/lora.py adapts whichever layer plays it), and a role no layer plays is no error. False when no
 * name of the list is the model's in either way.
 */
function litgptRoles(t: Targets, list: readonly string[]): boolean {
  const has = (x: string): boolean => t.mods.some((m) => listMatches(x, m));
  const own = [...new Set(list.flatMap((x) => (has(x) ? [x] : (LITGPT_ROLE_NAMES[x] ?? []).filter(has))))];
  if (own.length === 0) return false;
  t.lora.target_modules = own;
  const parts = litgptQkvParts(list, t.mods);
  if (parts) t.lora.qkv_parts = parts;
  return true;
}

/**
 * The embedding and the output head of transformers' decoders: no linear module of the layers, but modules PEFT adapts
 * when a list names them (an Embedding and a Linear: peft/tuners/lora/layer.py).
 */
const OUTSIDE_LAYERS = new Set(['embed_tokens', 'lm_head']);

/** The targets that are no module of the model, said where the list is written (PEFT raises when none is). */
function unmatchedTargets(t: Targets, listW: WinningFact, list: readonly string[]): void {
  const stray = list.filter((x) => !t.mods.some((m) => listMatches(x, m)));
  const outside = stray.filter((x) => OUTSIDE_LAYERS.has(x));
  if (outside.length > 0)
    t.warn(
      listW,
      msg(
        '{0}: PEFT adapts these too (the embedding, the output head), which the estimate does not count: ' +
          "their LoRA weights, and in the forward the head adapter's output, as large as the logits",
        outside.join(', '),
      ),
    );
  const vision = visionTargets(t, listW, list, stray);
  const unmatched = stray.filter((x) => !OUTSIDE_LAYERS.has(x) && !vision.includes(x));
  if (unmatched.length === 0) return;
  if (unmatched.length === list.length) {
    t.warn(
      listW,
      msg(
        'none of the LoRA target modules ({0}) is a module of this {1} model: ' +
          'PEFT raises "Target modules ... not found in the base model". Its linear modules: {2}',
        list.join(', '),
        t.family,
        t.haveText,
      ),
    );
    return;
  }
  t.warn(
    listW,
    msg(
      '{0}: not a module of this {1} model; PEFT adapts the other targets. Its linear modules: {2}',
      unmatched.join(', '),
      t.family,
      t.haveText,
    ),
  );
}

/** A target list entry as a vision module name: equal, a last part of it, or a longer name ending with it. */
const namesVisionModule = (entry: string, name: string): boolean =>
  entry === name || name.endsWith(`.${entry}`) || entry.endsWith(`.${name}`);

/**
 * The stray targets that name modules of an image-text model's vision tower or projector (Qwen2-VL's qkv, proj, fc1,
 * fc2): PEFT adapts them there, which the estimate, keeping the tower frozen and without images, does not count. Said
 * once, where the list is written; returns them.
 */
function visionTargets(t: Targets, listW: WinningFact, list: readonly string[], stray: readonly string[]): string[] {
  const names = visionLinearNames(t.ctx.setup.architecture as HfConfig);
  const vision = stray.filter((x) => names.some((n) => namesVisionModule(x, n)));
  if (vision.length === 0) return vision;
  const only = vision.length === list.length;
  t.warn(
    listW,
    msg(
      only
        ? '{0}: modules of the vision tower or its projector only: PEFT adapts them and no layer of the language model, ' +
            'which the estimate does not count (the adapters, and the activations over the images their backward keeps); it counts no adapter'
        : '{0}: modules of the vision tower or its projector: PEFT adapts them too, which the estimate does not count ' +
            '(the adapters, and the activations over the images their backward keeps)',
      vision.join(', '),
    ),
  );
  return vision;
}
