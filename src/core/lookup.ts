// Finds catalog entries by the names people write: Hub ids and aliases for models; catalog names,
// nvidia-smi names and sizes ("24GiB", "80GB") for GPUs. Suggests the closest names when nothing matches: for a
// model, entries of its family nearest in size.
// Pure; no I/O.
import { countParameters, parseArchitecture } from './architecture';
import { GPU_CATALOG, type GpuSpec } from './catalog/gpus';
import { MODEL_CATALOG, type CatalogModel } from './catalog/models';
import { formatBytes, GiB } from './units';
import { memo } from './util/memo';
import type { EstimateOptions } from './estimate/context';

const normalize = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .trim();
const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Levenshtein distance (two-row dynamic programming). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * At most this many characters of a name are compared: no Hub id is longer, and a pasted 100 KB "name" must cost what
 * a 200-character one does. Past it, edit distances are skipped altogether.
 */
const MAX_COMPARED = 200;

function closest(query: string, names: readonly string[], n = 3): string[] {
  const long = query.length > MAX_COMPARED;
  const q = squash(query.slice(0, MAX_COMPARED));
  return names
    .map((name) => {
      const s = squash(name);
      const d =
        s.includes(q) || q.includes(s)
          ? Math.abs(s.length - q.length) / 4
          : long
            ? Number.POSITIVE_INFINITY
            : editDistance(q, s);
      return { name, d };
    })
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name))
    .slice(0, n)
    .map((x) => x.name);
}

/**
 * The size a model's name gives, in parameters: 7b, 1.3b, 125m, 1_8b, 7b1 (BLOOM's 7.1B), 8x7b (8 x 7B); an underscore
 * separates a size from a word (hf_llama_7b) but not from a digit (qwen1_8b: a version and a decimal, no size read),
 * unless that digit ends a version with a minor number (qwen2_5_7b: Qwen2.5, 7B).
 */
export function sizeInName(name: string): number | undefined {
  const n = name.slice(0, MAX_COMPARED).split('/').pop()!.toLowerCase();
  if (/(^|-)\d+e(-|$)/.test(n)) return undefined; // Llama 4's 17B-16E: the active size and the expert count
  const moe = /(?<![a-z0-9.])(\d+)x(\d+(?:\.\d+)?)b(?![a-z0-9])/.exec(n);
  if (moe) return Number(moe[1]) * Number(moe[2]) * 1e9;
  const bloom = /(?<![a-z0-9._])(\d+)b(\d)(?![a-z0-9])/.exec(n);
  if (bloom) return Number(`${bloom[1]}.${bloom[2]}`) * 1e9;
  // A version is not a size: `qwen2_5_7b` is not 5.7B (the digit before `_` is the family's version).
  const m =
    /(?<![a-z0-9.])(?<!\d_)(\d+(?:[._]\d+)?)([bm])(?![a-z0-9])/.exec(n) ??
    // ... but a size written as its own word after a version with a minor number is (`qwen2_5_7b_instruct`).
    /(?<=\d[._]\d_)(\d+(?:\.\d+)?)([bm])(?=$|[-_])/.exec(n);
  return m ? Number(m[1].replace('_', '.')) * (m[2] === 'b' ? 1e9 : 1e6) : undefined;
}

/** Words that say what a checkpoint is for, not which family it belongs to. */
const NOT_FAMILY = new Set([
  'hf',
  'meta',
  'instruct',
  'chat',
  'base',
  'it',
  'pt',
  'model',
  'deduped',
  'uncased',
  'cased',
  'v',
  'the',
  'tiny',
  'mini',
  'small',
  'medium',
  'large',
  'xl',
  'xxl',
]);
/** Size words that end a family name the way a number does (gpt2-medium, bert-base, t5-small, flan-t5-xl). */
const SIZE_WORD = /(^|[-_.])(tiny|mini|small|base|medium|large|xl|xxl)([-_.]|$)/;

/**
 * What suggestions compare of a name: its organization, its family (the name before its size: opt for opt-1.3b,
 * llama-2 for Llama-2-7b-hf, qwen2.5-coder for Qwen2.5-Coder-7B-Instruct), the family's words, and its size.
 */
export interface NameParts {
  readonly org: string;
  readonly family: string;
  readonly words: ReadonlySet<string>;
  readonly size?: number;
}

export function nameParts(name: string): NameParts {
  const cut = name.slice(0, MAX_COMPARED).trim().toLowerCase();
  const slash = cut.lastIndexOf('/');
  const org = slash >= 0 ? cut.slice(0, slash) : '';
  const base = cut.slice(slash + 1);
  const size = sizeInName(base);
  // The family is what comes before the size (a number or a size word).
  const sizeAt = base.search(/(?<![a-z0-9.])\d+(?:[._x]\d+)?[bm]\d?(?![a-z0-9])/);
  const wordAt = base.search(SIZE_WORD);
  const ends = [sizeAt, wordAt].filter((i) => i > 0);
  const family = (ends.length > 0 ? base.slice(0, Math.min(...ends)) : base).replace(/[-_.]+$/, '');
  const words = new Set((family.match(/[a-z]{2,}/g) ?? []).filter((w) => !NOT_FAMILY.has(w)));
  return { org, family, words, ...(size !== undefined ? { size } : {}) };
}

interface Candidate {
  readonly id: string;
  readonly names: readonly NameParts[];
  readonly size?: number;
}

/** Each catalog entry with the parts of its id and aliases and its size (the name's, else the count from its config). */
const catalogCandidates = memo<void, Candidate[]>(
  (): Candidate[] =>
    MODEL_CATALOG.map((m) => {
      const names = [m.id, ...(m.aliases ?? [])].map(nameParts);
      const parsed = names[0].size === undefined ? parseArchitecture(m.config) : undefined;
      const size = names[0].size ?? m.publishedParams ?? (parsed?.ok ? countParameters(parsed.arch).total : undefined);
      return { id: m.id, names, ...(size !== undefined ? { size } : {}) };
    }),
  { key: () => 'catalog', limit: 1 },
);

/**
 * How near a catalog entry is to a name, as a family tier: 0 the same family (opt, llama-2), 1 a family word in
 * common (llama-3 and llama-3.1; qwen2.5 and qwen2.5-coder), 2 the same organization, 3 none of these.
 */
function familyTier(q: NameParts, c: Candidate): number {
  let tier = 3;
  for (const n of c.names) {
    if (q.family !== '' && n.family === q.family) return 0;
    if ([...q.words].some((w) => n.words.has(w))) tier = Math.min(tier, 1);
    else if (q.org !== '' && n.org === q.org) tier = Math.min(tier, 2);
  }
  return tier;
}

/**
 * Catalog ids to suggest for an unknown model name: the entries of its family first, nearest in size to the size its
 * name gives, then those sharing a family word, then its organization's; edit distance only breaks ties. A name that
 * shares nothing with the catalog gets the closest names by edit distance. Bounded: only the first 200 characters are
 * read, and a longer name is never compared character by character.
 */
export function suggestModels(name: string, n = 3): string[] {
  const q = nameParts(name);
  const scored = catalogCandidates()
    .map((c) => ({ c, tier: familyTier(q, c) }))
    .filter((x) => x.tier < 3);
  const bySpelling = (): string[] =>
    closest(
      name,
      MODEL_CATALOG.map((m) => m.id),
      n,
    );
  if (scored.length === 0) return bySpelling();
  const long = name.length > MAX_COMPARED;
  const sq = squash(name.slice(0, MAX_COMPARED));
  const sizeGap = (c: Candidate): number =>
    q.size !== undefined && c.size !== undefined ? Math.abs(Math.log(c.size / q.size)) : 0;
  const spelling = (c: Candidate): number => (long ? 0 : editDistance(sq, squash(c.id)));
  const ranked = scored
    .map((x) => ({ ...x, gap: sizeGap(x.c), d: spelling(x.c) }))
    .sort((a, b) => a.tier - b.tier || a.gap - b.gap || a.d - b.d || a.c.id.localeCompare(b.c.id))
    .slice(0, n)
    .map((x) => x.c.id);
  // Fewer relatives than asked for: the closest spellings fill the rest.
  return ranked.length < n ? [...ranked, ...bySpelling().filter((id) => !ranked.includes(id))].slice(0, n) : ranked;
}

/** Trailing name words that say a checkpoint's training stage or the dtype it is stored in, not its architecture. */
const STAGE_WORDS = new Set([
  'sft',
  'dpo',
  'rlhf',
  'ppo',
  'chat',
  'instruct',
  'it',
  'base',
  'hf',
  'fp16',
  'bf16',
  'fp32',
]);

/** An organisation's model name without its trailing stage and dtype words (`minicpm-2b` of `MiniCPM-2B-dpo-fp16`). */
function stageCore(key: string): string | undefined {
  const [org, bare] = key.includes('/') ? key.split('/', 2) : [undefined, key];
  const words = bare.split(/[-_]/);
  while (words.length > 1 && STAGE_WORDS.has(words[words.length - 1])) words.pop();
  return org === undefined ? undefined : `${org}/${words.join('-')}`;
}

const modelIndex = new Map<string, CatalogModel>();
/** The models by their names without the organisation (`llama-2-7b-hf`), for a name given without one. */
const byBareName = new Map<string, Set<CatalogModel>>();
/** The unquantized models by their stage core (stageSibling), the first id in order where several share one. */
const byStageCore = new Map<string, CatalogModel>();
for (const m of MODEL_CATALOG) {
  for (const n of [m.id, ...(m.aliases ?? [])]) {
    const key = normalize(n);
    modelIndex.set(key, m);
    const bare = key.split('/').pop()!;
    byBareName.set(bare, (byBareName.get(bare) ?? new Set()).add(m));
  }
}
for (const m of [...MODEL_CATALOG].sort((a, b) => a.id.localeCompare(b.id))) {
  const core = m.config.quantization_config ? undefined : stageCore(normalize(m.id));
  if (core !== undefined && !byStageCore.has(core)) byStageCore.set(core, m);
}

export type ModelLookup =
  { readonly ok: true; readonly model: CatalogModel } | { readonly ok: false; readonly suggestions: readonly string[] };

/** A model by Hub id or alias, case-insensitive; `org/` prefixes are optional when the name is unique. */
export function findModel(name: string): ModelLookup {
  const model = catalogModel(name);
  return model ? { ok: true, model } : { ok: false, suggestions: suggestModels(name) };
}

/** The catalog's model of a Hub id or alias (as findModel finds it), without suggestions for a name it lacks. */
export function catalogModel(name: string): CatalogModel | undefined {
  // No Hub id is this long: a pasted blob is no model.
  if (name.length > MAX_COMPARED) return undefined;
  return (
    unslothPhi3(name) ??
    findListed(name) ??
    unslothShortName(name) ??
    unslothBnb(name) ??
    gptqAwqUpload(name) ??
    sixteenBitUpload(name) ??
    stageSibling(name) ??
    modelscopeCacheName(name)
  );
}

/**
 * ModelScope's download folder writes a dot of the model's name as three underscores (`qwen/Qwen2-0___5B-Instruct` for
 * Qwen2-0.5B-Instruct, its `snapshot_download` cache): the model of the name with its dots back.
 */
function modelscopeCacheName(name: string): CatalogModel | undefined {
  if (!name.includes('___')) return undefined;
  const dotted = name.replace(/___/g, '.');
  const base = findListed(dotted);
  if (!base) return undefined;
  const derivedAs = "(ModelScope's download folder name of it, a dot written ___)";
  return { ...base, id: name.trim(), aliases: [], derivedFrom: base.id, derivedAs };
}

/**
 * A checkpoint of a listed model at another training stage, from the same organisation (`openbmb/MiniCPM-2B-dpo-fp16`
 * beside the listed `openbmb/MiniCPM-2B-sft-bf16`; `-Chat` beside `-Base`): the organisations publish their SFT, DPO,
 * chat and base checkpoints of one model with one config.json, which is the architecture here, said with the listed
 * entry it is taken from (its own config.json not read). Names that differ in anything else (a size, a version, a
 * context length) are other models.
 */
function stageSibling(name: string): CatalogModel | undefined {
  const core = stageCore(normalize(name));
  if (core === undefined || core === normalize(name).replace(/_/g, '-')) return undefined;
  const base = byStageCore.get(core);
  if (!base) return undefined;
  return {
    ...base,
    id: name.trim(),
    aliases: [],
    derivedFrom: base.id,
    derivedAs: '(the same model at another training stage)',
    source: `${base.id} (${base.source}), the same model at another training stage (the config.json of ${name.trim()} not read)`,
  };
}

/**
 * Unsloth's copies of Phi-3 and Phi-3.5 (`unsloth/Phi-3-mini-4k-instruct`, `-medium-`, and their `-bnb-4bit` uploads)
 * are converted to Mistral's layout: q, k and v and gate and up as separate linear layers instead of phi3's fused
 * qkv_proj and gate_up_proj, the same weights (Unsloth loads them with "Fast Mistral patching", as
 * NickKornienko/CMPE-297-HW3's Unsloth_healthchatbix.ipynb prints for unsloth/Phi-3-mini-4k-instruct). Microsoft's entry
 * with model_type mistral, so that its LoRA targets are Mistral's modules.
 */
function unslothPhi3(name: string): CatalogModel | undefined {
  const m = /^unsloth\/(phi-3(?:\.5)?-(?:mini|medium)[\w.-]*?)(-bnb-4bit)?$/i.exec(name.trim());
  if (!m) return undefined;
  const base = findListed(`microsoft/${m[1]}`);
  if (!base || base.config.model_type !== 'phi3') return undefined;
  return {
    id: name.trim(),
    derivedFrom: base.id,
    config: {
      ...base.config,
      model_type: 'mistral',
      architectures: ['MistralForCausalLM'],
      ...(m[2] ? { quantization_config: UNSLOTH_BNB_4BIT } : {}),
    },
    ...(base.publishedParams !== undefined ? { publishedParams: base.publishedParams } : {}),
    source:
      `${base.id} (${base.source}) in Mistral's layout, as Unsloth uploads it (q, k, v, gate and up unfused)` +
      (m[2] ? ', quantized by Unsloth to NF4 with double quantization' : ''),
  };
}

function findListed(name: string): CatalogModel | undefined {
  const key = normalize(name);
  const hit = modelIndex.get(key);
  if (hit) return hit;
  const bare = key.includes('/') ? key.split('/').pop()! : key;
  const byName = byBareName.get(bare);
  return byName?.size === 1 ? [...byName][0] : undefined;
}

/**
 * Unsloth's pre-quantized uploads (`unsloth/<model>-bnb-4bit`, and the "dynamic" `-unsloth-bnb-4bit` ones) hold the
 * architecture of `<model>` with a bitsandbytes NF4 quantization_config (double quantization, bf16 compute), as in
 * the listed unsloth/llama-3-8b-bnb-4bit. The dynamic uploads keep a few sensitive layers in 16 bits
 * (llm_int8_skip_modules in their config.json), which this catalog-derived entry counts as 4-bit.
 */
function unslothBnb(name: string): CatalogModel | undefined {
  const m = /^(.*?)(-unsloth)?-bnb-4bit$/i.exec(name.trim());
  if (!m) return undefined;
  const base = findListed(m[1]) ?? unslothShortName(m[1]);
  if (!base || base.config.quantization_config) return undefined;
  return {
    id: name.trim(),
    derivedFrom: base.id,
    config: { ...base.config, quantization_config: UNSLOTH_BNB_4BIT },
    ...(base.publishedParams !== undefined ? { publishedParams: base.publishedParams } : {}),
    source:
      `${base.id} (${base.source}) quantized by Unsloth to NF4 with double ` +
      `quantization${m[2] ? '; its dynamic 4-bit upload keeps some layers in 16 bits, counted here as 4-bit' : ''}`,
  };
}

/**
 * The short names of Unsloth's early copies (its 2024 notebooks' `fourbit_models` list: `unsloth/mistral-7b-bnb-4bit`,
 * `unsloth/tinyllama-bnb-4bit`), each the listed checkpoint it copies. Only under `unsloth/`: a bare `mistral-7b` of
 * another organisation is no catalog name.
 */
const UNSLOTH_SHORT_NAMES: Readonly<Record<string, string>> = {
  'mistral-7b': 'mistralai/Mistral-7B-v0.1',
  'llama-2-7b-chat': 'meta-llama/Llama-2-7b-chat-hf',
  'codellama-7b': 'codellama/CodeLlama-7b-hf',
  'codellama-34b': 'codellama/CodeLlama-34b-hf',
  tinyllama: 'TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T',
  'tinyllama-chat': 'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
  'zephyr-sft': 'HuggingFaceH4/mistral-7b-sft-beta',
  'solar-10.7b': 'upstage/SOLAR-10.7B-v1.0',
};

function unslothShortName(name: string): CatalogModel | undefined {
  const m = /^unsloth\/(.+)$/i.exec(name.trim());
  const base = m ? UNSLOTH_SHORT_NAMES[m[1].toLowerCase()] : undefined;
  return base ? findListed(base) : undefined;
}

/**
 * GPTQ and AWQ uploads named after their base model (`TheBloke/Mistral-7B-Instruct-v0.2-GPTQ`,
 * `Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8`, `casperhansen/llama-3-8b-instruct-awq`) hold the base model's architecture with a
 * quantization_config of their own. Without their config.json the bit width comes from the name (Int4 / Int8 / 4bit /
 * 8bit; 4 when it says none, the common case) and the group size is taken as 128 (the AutoGPTQ / AutoAWQ default); the
 * entry's source says both, and the real config.json (local, cached, or fetched with network access) takes precedence.
 */
function gptqAwqUpload(name: string): CatalogModel | undefined {
  const m =
    /^(.*?)[-_.](gptq|awq)(?:[-_](?:int)?([2348])(?:-?bits?)?)?(?:[-_]\d+g)?$/i.exec(name.trim()) ?? qwenInt(name);
  if (!m) return undefined;
  // TheBloke's names drop the '-hf' of Meta's Llama 2 ids (Llama-2-13B-chat-GPTQ for Llama-2-13b-chat-hf).
  const base = findListed(m[1]) ?? findListed(`${m[1]}-hf`);
  if (!base || base.config.quantization_config) return undefined;
  const method = m[2].toLowerCase() as 'gptq' | 'awq';
  const bits = m[3] ? Number(m[3]) : 4;
  return {
    id: name.trim(),
    derivedFrom: base.id,
    config: {
      ...base.config,
      quantization_config: {
        quant_method: method,
        bits,
        group_size: 128,
        ...(method === 'awq' ? { zero_point: true, version: 'gemm' } : { sym: true, desc_act: false }),
      },
    },
    ...(base.publishedParams !== undefined ? { publishedParams: base.publishedParams } : {}),
    source:
      `${base.id} (${base.source}) quantized ` +
      `with ${method.toUpperCase()}: ${bits}-bit ${m[3] ? 'from the name' : '(the name gives no width; 4 assumed)'}, ` +
      `group size 128 assumed (not read from its config.json)`,
  };
}

/**
 * 16-bit uploads named after their base model with the dtype as a suffix (`TheBloke/Llama-2-7B-fp16`,
 * `TheBloke/Llama-2-13B-Chat-fp16`, `-bf16`, `-16bit`): the base model's weights, stored in that dtype, so its config.
 * As for the GPTQ uploads, TheBloke's names drop the `-hf` of Meta's Llama 2 ids.
 */
function sixteenBitUpload(name: string): CatalogModel | undefined {
  const m = /^(.*?)[-_](fp16|bf16|float16|bfloat16|16bit)$/i.exec(name.trim());
  if (!m) return undefined;
  const base = findListed(m[1]) ?? findListed(`${m[1]}-hf`);
  if (!base || base.config.quantization_config) return undefined;
  return {
    ...base,
    id: name.trim(),
    aliases: [],
    derivedFrom: base.id,
    source: `${base.id} (${base.source}), uploaded in ${m[2]} under the name ${name.trim()} (its config.json not read)`,
  };
}

/**
 * Qwen's first release names its quantized uploads `Qwen/Qwen-7B-Chat-Int4` / `-Int8`: AutoGPTQ checkpoints of
 * `Qwen/Qwen-7B-Chat` (their model cards: "Int4 quantized model ... based on AutoGPTQ"; Qwen's finetune_qlora_*.sh
 * trains on them), as [base, 'gptq', bits] in the shape of the GPTQ / AWQ name match.
 */
function qwenInt(name: string): [string, string, string, string] | undefined {
  const m = /^((?:qwen\/)?qwen-[\w.-]+?)-int([48])$/i.exec(name.trim());
  return m ? [m[0], m[1], 'gptq', m[2]] : undefined;
}

const UNSLOTH_BNB_4BIT = {
  bnb_4bit_compute_dtype: 'bfloat16',
  bnb_4bit_quant_type: 'nf4',
  bnb_4bit_use_double_quant: true,
  load_in_4bit: true,
  load_in_8bit: false,
  quant_method: 'bitsandbytes',
};

const gpuIndex = new Map<string, GpuSpec>();
for (const g of GPU_CATALOG) {
  gpuIndex.set(squash(g.id), g);
  for (const al of g.aliases) gpuIndex.set(squash(al), g);
}

export interface GpuChoice {
  readonly id: string;
  readonly memoryBytes: number;
  readonly source: string;
  readonly spec?: GpuSpec;
}

export type GpuLookup =
  { readonly ok: true; readonly gpu: GpuChoice } | { readonly ok: false; readonly suggestions: readonly string[] };

/** A GPU by catalog name or alias (case and spacing tolerant), or a plain size: "24GiB", "24 GB", "80G". */
export function findGpu(name: string): GpuLookup {
  const size = /^\s*(\d+(?:\.\d+)?)\s*(gib|gb|g)\s*$/i.exec(name);
  if (size) {
    const gib = Number(size[1]);
    if (gib > 0)
      return {
        ok: true,
        gpu: { id: `${size[1]} GiB`, memoryBytes: Math.round(gib * GiB), source: 'a size given by the user' },
      };
  }
  const hit = gpuIndex.get(squash(name)) ?? gpuIndex.get(squash(name.replace(/^nvidia\s*/i, '')));
  if (hit) return { ok: true, gpu: { id: hit.id, memoryBytes: usableBytes(hit), source: gpuSource(hit), spec: hit } };
  return {
    ok: false,
    suggestions: closest(
      name,
      GPU_CATALOG.map((g) => g.id),
    ),
  };
}

/** What a process gets of a catalog GPU: CUDA's total where a source gives it, else the driver's Total. */
const usableBytes = (g: GpuSpec): number => g.cudaTotal?.bytes ?? g.memoryBytes;

function gpuSource(g: GpuSpec): string {
  const total = `${g.vendor === 'nvidia' ? 'nvidia-smi' : "the driver's"} Total ${formatBytes(g.memoryBytes)}`;
  const usable = g.cudaTotal
    ? `${formatBytes(g.cudaTotal.bytes)} that CUDA gives a process (${total} less what the driver keeps; ${g.cudaTotal.source})`
    : `${total}; CUDA gives a process a little less, by a figure no source gave for this GPU`;
  return `GPU catalog: ${g.id}, ${usable} (${g.source})`;
}

/**
 * What an estimate needs of a GPU findGpu found: its memory and source, its spec (the cuBLAS workspaces and the GPU
 * kernels' temporaries depend on it) and whether its peers link over NVLink.
 */
export function gpuTarget(gpu: GpuChoice): NonNullable<EstimateOptions['gpu']> {
  return {
    id: gpu.id,
    memoryBytes: gpu.memoryBytes,
    source: gpu.source,
    nvlink: gpu.spec?.peerLink ? gpu.spec.peerLink.kind === 'nvlink' : undefined,
    spec: gpu.spec,
  };
}

export const GPU_NAMES: readonly string[] = GPU_CATALOG.map((g) => g.id);
