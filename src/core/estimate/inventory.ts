// The parameter inventory of a setup: totals by part (embedding, head, blocks, vision tower), quantized and adapter
// parameters, trainable tensors' shapes, and the modules an adapter targets; memoized for the advice search. Pure.
// Docs: docs/estimate/parameters.md
import {
  type Architecture,
  countParameters,
  type LinearModule,
  litgptAdaptedParts,
  litgptRoleTargets,
} from '../architecture';
import type { TrainingSetup } from '../setup';
import { quantBytesPerParam } from '../terms/quantization';
import { formatCount } from '../units';
import { memo, memoByObject } from '../util/memo';
import { type PeftMoeConversion, peftMoeConversion } from './peft-moe';

export interface Inventory {
  total: number;
  embedding: number;
  head: number;
  /** Vision tower and projector beside the language model: weights only in text-only training. */
  vision: number;
  /** The blocks and the final norm after them (ParameterCount.blocks). */
  blocks: number;
  /** The final norm's elements, part of `blocks`. */
  finalNorm: number;
  largestBlock: number;
  /** Block linear parameters that are quantized (QLoRA). */
  quantized: number;
  /** Elements of the largest quantized weight matrix (dequantized whole for each matmul). */
  largestQuantized: number;
  /** (IA)^3 targets whose input is scaled (feed-forward modules that are also targets' names). */
  ia3Feedforward?: Set<string>;
  /** Quantized parameters' bytes per element including their constants. */
  quantBytesPerParam: number;
  adapter: number;
  /** modules_to_save copies (trainable, in the base dtype). */
  savedModules: number;
  trainable: number;
  /** Trainable tensors' shapes for Adafactor / bnb small-tensor rules: [rows, cols] per tensor. */
  trainableMatrices: Array<[number, number, number]>;
  trainableVectors: number;
  /** Elements of the largest trainable tensor: the head, a linear weight, a fused expert stack or an adapter matrix. */
  largestTrainableTensor: number;
  headTrainable: boolean;
  source: string;
}

/**
 * Linear modules named by a PEFT target list (full or last-component names, case-insensitive), or all of them: PEFT's
 * 'all-linear' (tuners_utils.py _maybe_include_all_linear_layers) takes every nn.Linear but the output layer, routers
 * that are nn.Linear included (Qwen2-MoE's shared_expert_gate, transformers 4's MoE gate, Llama 4's and Jamba's
 * router); a bare parameter (transformers 5's fused experts, a TopKRouter's weight) is no module.
 */
export function matchModules(names: readonly string[] | 'all-linear', mods: LinearModule[]): Set<string> {
  const out = new Set<string>();
  if (names === 'all-linear') {
    for (const m of mods) if (!m.parameter) out.add(m.name);
    return out;
  }
  const wanted = names.map((t) => t.toLowerCase());
  for (const m of mods) {
    // PEFT matches module names; a bare parameter (fused experts, a router weight) is not a module.
    if (m.parameter) continue;
    const short = m.name.split('.').pop()!.toLowerCase();
    if (wanted.includes(m.name.toLowerCase()) || wanted.includes(short)) out.add(m.name);
  }
  return out;
}

/** A bare expert or router parameter LoRA adapts through PEFT's target_parameters, and the MoE layers where it does. */
export interface ParameterTarget {
  readonly module: LinearModule;
  /** MoE layers with the adapter. */
  readonly layers: number;
  /** The layer indices a target named, when it named any (else every MoE layer). */
  readonly indices?: ReadonlySet<number>;
  /** ParamWrapper's num_experts: E for a 3-D expert parameter, 1 for a 2-D router weight. */
  readonly experts: number;
  /** The rank over lora.r: 2 for a fused gate_up_proj PEFT converted from both halves (rank_pattern), else 1. */
  readonly rankFactor: number;
}

/**
 * PEFT target_parameters against the model's bare expert parameters and router weights. PEFT matches
 * `<module path>.<parameter>` by suffix (`key.endswith('.' + target)`), so 'gate_up_proj', 'experts.gate_up_proj' and
 * 'mlp.experts.gate_up_proj' name every layer's, 'gate.weight' every bare router weight named gate, and a path with a
 * layer index ('7.mlp.experts.gate_up_proj', 'model.layers.7.mlp.experts.down_proj') that layer's only. `rankFactors`:
 * PEFT's rank_pattern by parameter name. Returns the targets and the names that match no bare parameter.
 */
export function parameterTargets(
  names: readonly string[] | undefined,
  a: Architecture,
  mods: readonly LinearModule[],
  rankFactors?: ReadonlyMap<string, number>,
): { targets: ParameterTarget[]; unmatched: string[] } {
  const targets: ParameterTarget[] = [];
  const unmatched: string[] = [];
  if (!names || !a.moe) return { targets, unmatched: names ? [...names] : [] };
  const experts = mods.filter((m) => m.parameter && m.group === 'expert');
  const routers = mods.filter((m) => m.parameter && m.group === 'router');
  const found = new Map<LinearModule, Set<number> | 'all'>();
  for (const raw of names) {
    const parts = raw
      .trim()
      .split('.')
      .filter((x) => x.length > 0);
    const indexAt = parts.findIndex((x) => /^\d+$/.test(x));
    const rest = indexAt >= 0 ? parts.slice(indexAt + 1) : parts;
    const param = rest[rest.length - 1]?.toLowerCase();
    const owner = rest[rest.length - 2]?.toLowerCase();
    const m =
      experts.find(
        (e) =>
          e.name.split('.').pop()!.toLowerCase() === param &&
          (rest.length === 1 || rest.some((x) => /experts/i.test(x))),
      ) ??
      (param === 'weight' && owner ? routers.find((r) => r.name.split('.').pop()!.toLowerCase() === owner) : undefined);
    const index = indexAt >= 0 ? Number(parts[indexAt]) : undefined;
    if (!m || (index !== undefined && index >= a.layers)) {
      unmatched.push(raw);
      continue;
    }
    const prev = found.get(m);
    if (index === undefined) found.set(m, 'all');
    else if (prev !== 'all') found.set(m, new Set([...(prev ?? []), index]));
  }
  for (const [module, where] of found) {
    const shape = {
      experts: module.group === 'expert' ? a.moe.experts : 1,
      rankFactor: rankFactors?.get(module.name.split('.').pop()!.toLowerCase()) ?? 1,
    };
    targets.push(
      where === 'all'
        ? { module, layers: a.moe.moeLayers, ...shape }
        : { module, layers: Math.min(where.size, a.moe.moeLayers), indices: where, ...shape },
    );
  }
  return { targets, unmatched };
}

/** What carries an adapter: modules (LoRA's target_modules as PEFT converts them, or (IA)^3's) and bare parameters. */
export interface AdapterTargets {
  readonly modules: Set<string>;
  /** LoRA on bare parameters: the setup's target_parameters and those PEFT's MoE conversion adds; unmatched: the setup's. */
  readonly parameters: { targets: ParameterTarget[]; unmatched: string[] };
  /** PEFT's conversion of 4.x expert and router names onto transformers 5's fused parameters, when it converts any. */
  readonly peftMoe: PeftMoeConversion | undefined;
}

/** The modules and bare parameters that carry an adapter. */
function adapterTargets(setup: TrainingSetup, a: Architecture, mods: LinearModule[]): AdapterTargets {
  const none = { targets: [], unmatched: [] };
  if (setup.method === 'ia3')
    return {
      modules: setup.ia3 ? matchModules(setup.ia3.target_modules, mods) : new Set(),
      parameters: none,
      peftMoe: undefined,
    };
  const lora = setup.lora;
  if (!lora || (setup.method !== 'lora' && setup.method !== 'qlora'))
    return {
      modules: lora ? matchModules(lora.target_modules, mods) : new Set(),
      parameters: none,
      peftMoe: undefined,
    };
  const peftMoe = peftMoeConversion(setup, lora, a, mods);
  const own = lora.target_parameters ?? [];
  const parameters = parameterTargets(
    own.length > 0 || peftMoe ? [...own, ...(peftMoe?.targetParameters ?? [])] : undefined,
    a,
    mods,
    peftMoe?.rankFactors,
  );
  // LitGPT's model code adapts the layer that plays a role: q_proj is Falcon's query_key_value there.
  const named =
    setup.model_code === 'litgpt' && lora.target_modules !== 'all-linear'
      ? litgptRoleTargets(lora.target_modules, mods)
      : lora.target_modules;
  return {
    modules: matchModules(peftMoe ? peftMoe.targetModules : named, mods),
    parameters: { targets: parameters.targets, unmatched: parameters.unmatched.filter((n) => own.includes(n)) },
    peftMoe,
  };
}

/**
 * Elements of the largest weight inside a block. A fused expert parameter (transformers 5's, gpt-oss's) is one 3-D
 * tensor of every expert of its layer: Mixtral-8x7B's `gate_up_proj` is 8 x 28,672 x 4,096 = 939,524,096 elements.
 */
export function largestModuleTensor(a: Architecture, mods: readonly LinearModule[]): number {
  const experts = a.moe?.experts ?? 1;
  let largest = 0;
  for (const m of mods) {
    const stacked = m.parameter === true && m.group === 'expert' ? experts : 1;
    largest = Math.max(largest, m.inFeatures * m.outFeatures * stacked);
  }
  return largest;
}

/** The setup's parameter inventory (see Inventory). */
function inventory(setup: TrainingSetup, a: Architecture, mods: LinearModule[], at: AdapterTargets): Inventory {
  const targets = at.modules;
  const paramTargets = at.parameters.targets;
  const { pc, total, blocks, source } = parameterCounts(setup, a);
  const { adapter, largestVector, ff } = adapterCounts(setup, a, mods, targets, paramTargets);
  const { quantized, largestQuantized, qbpp } = quantizedCounts(setup, mods, targets);
  const savedModules = savedModuleCount(setup, a);
  const { matrices, vectors, trainable, largest, headTrainable } = trainableShapes(
    setup,
    a,
    mods,
    targets,
    { pc, total, blocks },
    { adapter, largestVector, ff, paramTargets },
    savedModules,
  );
  return {
    total,
    embedding: pc.embedding,
    head: pc.head,
    vision: pc.vision,
    blocks,
    finalNorm: pc.finalNorm,
    largestBlock: pc.largestBlock,
    quantized,
    largestQuantized,
    quantBytesPerParam: qbpp,
    adapter,
    savedModules,
    trainable,
    trainableMatrices: matrices,
    ...(ff ? { ia3Feedforward: ff } : {}),
    trainableVectors: vectors,
    largestTrainableTensor: largest,
    headTrainable,
    source,
  };
}

const LITGPT_HEAD = {
  copy: "LitGPT's output head copied from the tied embedding",
  shared: "LitGPT's output head tied to the embedding (train.tie_embeddings)",
} as const;

/** Parameters LitGPT's head adds to the checkpoint's count (a copy of the tied embedding), or takes away (tied by it). */
function litgptHeadParams(a: Architecture): number {
  return countParameters(a, 'causal_lm').head - countParameters({ ...a, tied: !a.tied }, 'causal_lm').head;
}

/** The architecture's count, or the given one (with the head the model is loaded with), and where it came from. */
function parameterCounts(
  setup: TrainingSetup,
  a: Architecture,
): { pc: ReturnType<typeof countParameters>; total: number; blocks: number; source: string } {
  const head = setup.head ?? a.defaultHead;
  const pc = countParameters(a, head, setup.num_labels);
  let total = pc.total;
  let blocks = pc.blocks;
  const byCode = a.headByCode ? LITGPT_HEAD[a.headByCode] : '';
  let source = `counted from the architecture (${a.family}${byCode && `; ${byCode}`})`;
  // A given count is the checkpoint's, with the head it was saved with: loaded with another head (a causal LM as a
  // sequence classifier: reward models, classification fine-tunes), that head is swapped in the count.
  const swapped = head !== a.defaultHead && setup.parameters !== undefined;
  // LitGPT's head where its code differs from the checkpoint (architecture/litgpt-head.ts): a copy of the tied
  // embedding is not in the checkpoint's count, a head it ties is.
  const byCodeParams = a.headByCode ? litgptHeadParams(a) : 0;
  const checkpoint = setup.parameters === undefined ? undefined : setup.parameters + byCodeParams;
  const given = swapped ? checkpoint! - countParameters(a, a.defaultHead, setup.num_labels).head + pc.head : checkpoint;
  const swapNote = swapped
    ? ` with the ${a.defaultHead.replace('_', ' ')} head replaced by the ${head.replace('_', ' ')} head`
    : byCodeParams !== 0
      ? `, ${byCodeParams > 0 ? '+' : '-'} ${formatCount(Math.abs(byCodeParams))} for ${byCode}`
      : '';
  if (given !== undefined && given !== pc.total) {
    blocks = Math.max(0, given - pc.embedding - pc.head - pc.vision);
    total = given;
    source = `given parameter count${swapNote}`;
  } else if (given !== undefined) {
    source = `given parameter count${swapNote} (matches the architecture)`;
  }
  return { pc, total, blocks, source };
}

/** LoRA's (DoRA's, ParamWrapper's) or (IA)^3's parameters, and (IA)^3's feed-forward targets. */
function adapterCounts(
  setup: TrainingSetup,
  a: Architecture,
  mods: LinearModule[],
  targets: Set<string>,
  paramTargets: readonly ParameterTarget[],
): { adapter: number; largestVector: number; ff: Set<string> | undefined } {
  const method = setup.method;
  let adapter = 0;
  if ((method === 'lora' || method === 'qlora') && setup.lora) {
    // DoRA adds a magnitude vector per output feature of every target.
    for (const m of mods)
      if (targets.has(m.name))
        adapter +=
          (litgptFusedQkvAdapter(setup, a, m) ??
            setup.lora.r * (m.inFeatures + m.outFeatures) + (setup.lora.use_dora ? m.outFeatures : 0)) * m.count;
    // ParamWrapper (peft/tuners/lora/layer.py update_layer): lora_A (r·E x in) and lora_B (out x r·E) per targeted
    // parameter and layer, E = num_experts (1 for a 2-D router weight), r from rank_pattern (2r for a fused
    // gate_up_proj PEFT converted from both halves); no DoRA magnitude (ParamWrapper refuses DoRA).
    for (const t of paramTargets)
      adapter += setup.lora.r * t.rankFactor * t.experts * (t.module.inFeatures + t.module.outFeatures) * t.layers;
  }
  // (IA)^3: one value per output feature of a target, per input feature of a feed-forward target.
  const ff = method === 'ia3' && setup.ia3 ? matchModules(setup.ia3.feedforward_modules, mods) : undefined;
  let largestVector = 0;
  if (ff) {
    for (const m of mods) {
      if (!targets.has(m.name)) continue;
      const n = ff.has(m.name) ? m.inFeatures : m.outFeatures;
      adapter += n * m.count;
      largestVector = Math.max(largestVector, n);
    }
  }
  return { adapter, largestVector, ff };
}

/**
 * LitGPT's LoRA over a fused q/k/v layer (Falcon's and GPT-NeoX's query_key_value, Phi-3's qkv_proj): LoRAQKVLinear's
 * lora_A has r rows per switched-on part (r·n x in) and its lora_B the parts' widths (q: heads x head size, k and v:
 * key-value heads x head size); the parts from lora.qkv_parts or the role list (every part when neither says).
 * Undefined for any other module.
 */
function litgptFusedQkvAdapter(setup: TrainingSetup, a: Architecture, m: LinearModule): number | undefined {
  const lora = setup.lora;
  if (setup.model_code !== 'litgpt' || !lora || (m.name !== 'query_key_value' && m.name !== 'qkv_proj'))
    return undefined;
  const parts = litgptAdaptedParts(lora, [m]) ?? (['q', 'k', 'v'] as const);
  const widths = { q: a.heads * a.headDim, k: a.kvHeads * a.headDim, v: a.kvHeads * a.headDim };
  return lora.r * (parts.length * m.inFeatures + parts.reduce((sum, part) => sum + widths[part], 0));
}

/** The quantized block parameters, the largest quantized matrix, and their bytes per parameter with the constants. */
function quantizedCounts(
  setup: TrainingSetup,
  mods: LinearModule[],
  targets: Set<string>,
): { quantized: number; largestQuantized: number; qbpp: number } {
  let quantized = 0;
  let largestQuantized = 0;
  let qbpp = 0;
  if (setup.quantization) {
    const scope = setup.quantization.scope;
    for (const m of mods) {
      if (scope === 'lora-targets' && !targets.has(m.name)) continue;
      // bitsandbytes replaces nn.Linear modules only; GPTQ/AWQ checkpoints say what they packed; Axolotl's
      // quantize_moe_experts quantizes the fused expert parameters as well.
      if (
        m.parameter &&
        setup.quantization.type !== 'gptq' &&
        setup.quantization.type !== 'awq' &&
        !(setup.quantization.experts && m.group === 'expert')
      )
        continue;
      quantized += m.inFeatures * m.outFeatures * m.count;
      largestQuantized = Math.max(largestQuantized, m.inFeatures * m.outFeatures);
    }
    qbpp = quantBytesPerParam(setup.quantization, setup.torchao_version).bytes;
  }
  return { quantized, largestQuantized, qbpp };
}

/** modules_to_save copies: the embedding or the head, trained beside the frozen original. */
function savedModuleCount(setup: TrainingSetup, a: Architecture): number {
  const method = setup.method;
  const saveNames = setup.lora?.modules_to_save ?? [];
  let savedModules = 0;
  if (method === 'lora' || method === 'qlora') {
    for (const n of saveNames) {
      if (/embed|wte|shared|word_embeddings/.test(n)) savedModules += a.vocab * a.hidden;
      else if (/lm_head|output|embed_out/.test(n)) savedModules += a.vocab * a.hidden;
    }
  }
  return savedModules;
}

/** The trainable parameters by method, their matrices as [rows, cols, count], the rest as vectors, and the largest tensor. */
function trainableShapes(
  setup: TrainingSetup,
  a: Architecture,
  mods: LinearModule[],
  targets: Set<string>,
  counts: { pc: ReturnType<typeof countParameters>; total: number; blocks: number },
  adapters: {
    adapter: number;
    largestVector: number;
    ff: Set<string> | undefined;
    paramTargets: readonly ParameterTarget[];
  },
  savedModules: number,
): {
  matrices: Array<[number, number, number]>;
  vectors: number;
  trainable: number;
  largest: number;
  headTrainable: boolean;
} {
  const method = setup.method;
  const { pc, total, blocks } = counts;
  const { adapter, largestVector, ff, paramTargets } = adapters;
  const matrices: Array<[number, number, number]> = [];
  let vectors = 0;
  let trainable: number;
  let largest = 0;
  let headTrainable = false;
  if (method === 'full') {
    // Text-only batches never reach a vision tower: no gradients, so AdamW creates no state for it, unless the run
    // trains it on images (freeze_vision_tower false). Under a value head the untied LM head's logits reach no loss: it
    // gets no gradient and no optimizer state either (profiled: tools/peak/measure_step.py --lf-rm).
    const unusedHead = setup.value_head === true && !a.tied ? pc.head : 0;
    trainable = total - (setup.vision_tower_trained ? 0 : pc.vision) - unusedHead;
    for (const m of mods) matrices.push([m.outFeatures, m.inFeatures, m.count]);
    matrices.push([a.vocab, a.hidden, 1]);
    if (!a.tied && pc.head > 0 && unusedHead === 0) matrices.push([a.vocab, a.hidden, 1]);
    const inMatrices = matrices.reduce((s, [r, c, n]) => s + r * c * n, 0);
    vectors = Math.max(0, trainable - inMatrices);
    largest = Math.max(a.vocab * a.hidden, largestModuleTensor(a, mods));
    headTrainable = unusedHead === 0;
  } else if (method === 'freeze') {
    const n = Math.min(a.layers, setup.freeze_trainable_layers ?? 2);
    trainable = Math.round((blocks / a.layers) * n);
    for (const m of mods) matrices.push([m.outFeatures, m.inFeatures, (m.count / a.layers) * n]);
    vectors = Math.max(0, trainable - matrices.reduce((s, [r, c, k]) => s + r * c * k, 0));
    largest = largestModuleTensor(a, mods);
  } else if (ff) {
    trainable = adapter;
    vectors = adapter;
    largest = largestVector;
  } else {
    trainable = adapter + savedModules;
    if (setup.lora) {
      for (const m of mods) {
        if (!targets.has(m.name)) continue;
        matrices.push([setup.lora.r, m.inFeatures, m.count], [m.outFeatures, setup.lora.r, m.count]);
        largest = Math.max(largest, setup.lora.r * Math.max(m.inFeatures, m.outFeatures));
      }
      for (const t of paramTargets) {
        const rE = setup.lora.r * t.rankFactor * t.experts;
        matrices.push([rE, t.module.inFeatures, t.layers], [t.module.outFeatures, rE, t.layers]);
        largest = Math.max(largest, rE * Math.max(t.module.inFeatures, t.module.outFeatures));
      }
    }
    if (savedModules > 0) {
      matrices.push([a.vocab, a.hidden, savedModules / (a.vocab * a.hidden)]);
      largest = Math.max(largest, a.vocab * a.hidden);
      headTrainable = true;
    }
  }
  return { matrices, vectors, trainable, largest, headTrainable };
}

// Key parts of the LoRA and quantization blocks, memoized per block (the advice search shares them between candidates).
const loraKey = memoByObject(
  (x: NonNullable<TrainingSetup['lora']>): string =>
    `${x.r}/${x.dtype}/${x.use_dora ? 'dora' : ''}` +
    `/${x.target_modules === 'all-linear' ? '*' : x.target_modules.join(',')}` +
    `/${x.modules_to_save.join(',')}/${x.target_parameters?.join(',') ?? ''}`,
);
const ia3Key = memoByObject(
  (y: NonNullable<TrainingSetup['ia3']>): string =>
    `${y.dtype}/${y.target_modules.join(',')}/${y.feedforward_modules.join(',')}`,
);
const quantKey = memoByObject(
  (x: NonNullable<TrainingSetup['quantization']>): string =>
    `${x.bits}/${x.type}/${x.double_quant}/${x.scope}/${x.block_size}/${x.experts === true ? 'experts' : ''}`,
);

interface InventoryInputs {
  readonly setup: TrainingSetup;
  readonly a: Architecture;
  /** The architecture's linear modules (they follow from `a`). */
  readonly mods: LinearModule[];
}

const inventories = memo(
  (k: InventoryInputs): { targets: AdapterTargets; inv: Inventory } => {
    const targets = adapterTargets(k.setup, k.a, k.mods);
    return { targets, inv: inventory(k.setup, k.a, k.mods, targets) };
  },
  {
    scope: (k) => k.a,
    limit: 2048,
    key: ({ setup }) => {
      const l = setup.lora;
      const q = setup.quantization;
      return (
        `${setup.method}|${setup.parameters}|${setup.head}|${setup.num_labels}` +
        `|${setup.value_head === true}|${setup.freeze_trainable_layers}|${l ? loraKey(l) : ''}` +
        `|${q ? quantKey(q) : ''}|${setup.ia3 ? ia3Key(setup.ia3) : ''}|${setup.torchao_version ?? ''}` +
        `|${setup.peft_version ?? ''}`
      );
    },
    // The last calls' inputs, compared by identity (the advice search's candidates share these blocks); mods follow from a.
    recent: {
      size: 8,
      same: (x, y) =>
        x.a === y.a &&
        x.setup.method === y.setup.method &&
        x.setup.parameters === y.setup.parameters &&
        x.setup.head === y.setup.head &&
        x.setup.num_labels === y.setup.num_labels &&
        x.setup.value_head === y.setup.value_head &&
        x.setup.freeze_trainable_layers === y.setup.freeze_trainable_layers &&
        x.setup.lora === y.setup.lora &&
        x.setup.quantization === y.setup.quantization &&
        x.setup.ia3 === y.setup.ia3 &&
        x.setup.torchao_version === y.setup.torchao_version &&
        x.setup.peft_version === y.setup.peft_version,
    },
  },
);

/** Targets and parameter inventory, memoized per architecture and the fields they depend on (the advice search reuses them). */
export function memoInventory(
  setup: TrainingSetup,
  a: Architecture,
  mods: LinearModule[],
): { targets: AdapterTargets; inv: Inventory } {
  return inventories({ setup, a, mods });
}
