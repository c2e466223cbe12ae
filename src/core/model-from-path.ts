// The catalog model a name points to: a model path that is not on this machine (scripts written for a cluster load
// `../hf_llama2_models/7B` or `/models/Mistral-7B-Instruct`, folders named after the checkpoint they hold), or a Hub id
// that no catalog, cache or allowed look-up knows (fine-tunes are named after their base: `AdamG012/chat-opt-1.3b-sft-
// deepspeed`). Only the last three parts are read, a family and a size must both be in them, and the family must name
// one catalog entry of that size; anything else gives nothing (the name stays unresolved). Pure; no I/O.
import { findModel, sizeInName } from './lookup';
import { type CatalogModel, MODEL_CATALOG } from './catalog/models';

/**
 * Families people name their folders after, most specific first, with the catalog id of one size; `oneSize`: the
 * family has a single size, which a folder named after it need not write (`chatglm2`, `TinyLlama`).
 */
const FAMILIES: readonly { readonly name: RegExp; readonly id: (size: string) => string; readonly oneSize?: true }[] = [
  // DeepSeek's R1 distillations keep their base's architecture but not its config (no tied embeddings in the 1.5B,
  // 131,072 positions), and gpt-oss names itself: before Llama and Qwen. The distillation into Qwen3 8B
  // (DeepSeek-R1-0528-Qwen3-8B) is Qwen3-8B's config: left to Qwen3.
  { name: /r1[-_ ]?distill[-_ ]?qwen(?![-_ ]?3)/, id: (s) => `deepseek-ai/DeepSeek-R1-Distill-Qwen-${s}B` },
  { name: /r1[-_ ]?distill[-_ ]?llama/, id: (s) => `deepseek-ai/DeepSeek-R1-Distill-Llama-${s}B` },
  { name: /gpt[-_ ]?oss/, id: (s) => `openai/gpt-oss-${s}b` },
  // Llama-architecture families named apart, before Llama itself.
  { name: /code[-_ ]?llama/, id: (s) => `codellama/CodeLlama-${s}b-hf` },
  { name: /tiny[-_ ]?llama/, id: () => 'TinyLlama/TinyLlama-1.1B-Chat-v1.0', oneSize: true },
  { name: /vicuna/, id: (s) => `lmsys/vicuna-${s}b-v1.5` },
  { name: /deepseek[-_ ]?coder/, id: (s) => `deepseek-ai/deepseek-coder-${s}b-base` },
  { name: /deepseek[-_ ]?llm/, id: (s) => `deepseek-ai/deepseek-llm-${s}b-base` },
  // DeepSeekMath 7B (base, instruct, RL) has DeepSeek LLM 7B's architecture.
  { name: /deepseek[-_ ]?math/, id: (s) => `deepseek-ai/deepseek-llm-${s}b-base` },
  // DeepSeek named with a size alone (`deepseek-7b-ft-full`) is DeepSeek LLM (7, 67B), whose architecture the 7B
  // Coder v1.5 and Math share; V2, V3 and R1 name their version.
  { name: /deepseek(?![-_ ]?(v\d|r1|coder|llm|math|moe|vl))/, id: (s) => `deepseek-ai/deepseek-llm-${s}b-base` },
  // A version is a digit that does not start a size: llama-2-7b and llama2 are Llama 2, llama-7b and llama-30b are not;
  // a minor version may be written without its dot (`llama32_3b`, `qwen25-7b`: Llama 3.2, Qwen2.5).
  { name: /llama[-_ ]?3[._]?1(?!\d*b)/, id: (s) => `meta-llama/Llama-3.1-${s}B` },
  { name: /llama[-_ ]?3[._]?2(?!\d*b)/, id: (s) => `meta-llama/Llama-3.2-${s}B` },
  { name: /llama[-_ ]?3[._]?3(?!\d*b)/, id: (s) => `meta-llama/Llama-3.3-${s}B-Instruct` },
  { name: /llama[-_ ]?3(?![._]?\d|b)/, id: (s) => `meta-llama/Meta-Llama-3-${s}B` },
  { name: /llama[-_ ]?2(?![\d.]*b)/, id: (s) => `meta-llama/Llama-2-${s}b-hf` },
  // OpenLLaMA (openlm-research: 3, 7, 13B) reproduces LLaMA; only Llama 3 has an 8B.
  { name: /open[-_ ]?llama/, id: (s) => `openlm-research/open_llama_${s}b` },
  { name: /llama/, id: (s) => (s === '8' ? 'meta-llama/Meta-Llama-3-8B' : `huggyllama/llama-${s}b`) },
  { name: /mixtral/, id: (s) => `mistralai/Mixtral-${s}B-v0.1` },
  { name: /mistral/, id: (s) => `mistralai/Mistral-${s}B-v0.1` },
  // The vision-language models, before their language models' families: a name that says VL keeps the vision tower
  // (`PATH_TO_QWEN25VL_3B_CKPT`, `qwen2-vl-7b-sft`).
  { name: /qwen[-_ ]?2[._]?5[-_ ]?vl/, id: (s) => `Qwen/Qwen2.5-VL-${s}B-Instruct` },
  { name: /qwen[-_ ]?2[-_ ]?vl/, id: (s) => `Qwen/Qwen2-VL-${s}B-Instruct` },
  { name: /qwen[-_ ]?3[-_ ]?vl/, id: (s) => `Qwen/Qwen3-VL-${s}B-Instruct` },
  { name: /qwen[-_ ]?1[._]?5(?!\d*b)/, id: (s) => `Qwen/Qwen1.5-${s}B` },
  { name: /qwen[-_ ]?2[._]?5(?!\d*b)/, id: (s) => `Qwen/Qwen2.5-${s}B` },
  // Qwen3.5 (0.8-27B dense; its MoE sizes name their active parameters and are left to the catalog's own names).
  { name: /qwen[-_ ]?3[._]?5(?!\d*b)/, id: (s) => `Qwen/Qwen3.5-${s}B` },
  { name: /qwen[-_ ]?3(?![._]?\d|b)/, id: (s) => `Qwen/Qwen3-${s}B` },
  { name: /qwen[-_ ]?2(?![._]?\d|b)/, id: (s) => `Qwen/Qwen2-${s}B` },
  {
    name: /gemma[-_ ]?3(?![\d.]*[bm])/,
    id: (s) => (Number(s) < 1 ? `google/gemma-3-${millions(s)}` : `google/gemma-3-${s}b-pt`),
  },
  { name: /gemma[-_ ]?2(?![\d.]*b)/, id: (s) => `google/gemma-2-${s}b` },
  { name: /gemma/, id: (s) => `google/gemma-${s}b` },
  { name: /(?<![a-z])opt(?![a-z])/, id: (s) => `facebook/opt-${millions(s)}` },
  { name: /(?<![a-z])yi(?![a-z])/, id: (s) => `01-ai/Yi-${s}B` },
  { name: /smollm[-_ ]?2/, id: (s) => `HuggingFaceTB/SmolLM2-${millions(s).toUpperCase()}` },
  { name: /starcoder[-_ ]?2/, id: (s) => `bigcode/starcoder2-${s}b` },
  { name: /starcoder[-_ ]?base/, id: (s) => `bigcode/starcoderbase-${s}b` },
  // InternLM2 (1.8, 7, 20B; the ids write 1.8 as 1_8); InternLM2.5's own names are catalog aliases of InternLM2.
  { name: /internlm[-_ ]?2(?![._]?5)(?!\d*b)/, id: (s) => `internlm/internlm2-${s.replace('.', '_')}b` },
  // ChatGLM (6B only), Baichuan 2 (7, 13B) and the first Baichuan (7B).
  { name: /chatglm[-_ ]?3/, id: () => 'THUDM/chatglm3-6b', oneSize: true },
  { name: /chatglm[-_ ]?2/, id: () => 'THUDM/chatglm2-6b', oneSize: true },
  { name: /chatglm(?![-_ ]?\d)/, id: () => 'THUDM/chatglm-6b', oneSize: true },
  { name: /baichuan[-_ ]?2/, id: (s) => `baichuan-inc/Baichuan2-${s}B-Base` },
  { name: /baichuan(?![-_ ]?\d)/, id: (s) => `baichuan-inc/Baichuan-${s}B` },
  { name: /pythia/, id: (s) => `EleutherAI/pythia-${millions(s)}` },
  { name: /falcon[-_ ]?h1/, id: (s) => `tiiuae/Falcon-H1-${s}B-Base` },
  { name: /falcon(?![-_ ]?(h1|mamba))/, id: (s) => `tiiuae/falcon-${s}b` },
  // MiniCPM-2B; MiniCPM3 and MiniCPM4 are other architectures.
  { name: /minicpm(?!\d)/, id: (s) => `openbmb/MiniCPM-${s}B-sft-bf16` },
  // Fine-tunes known by their own names, after the families above (zephyr-7b-gemma is Gemma): Tulu 2 is Llama 2
  // (allenai/tulu-2-*: 7, 13, 70B), the first Tulu LLaMA (7, 13, 30, 65B); Zephyr 7B is Mistral 7B.
  { name: /tulu/, id: (s) => (s === '30' || s === '65' ? `huggyllama/llama-${s}b` : `meta-llama/Llama-2-${s}b-hf`) },
  { name: /zephyr/, id: (s) => `mistralai/Mistral-${s}B-v0.1` },
  // SOLAR 10.7B and its fine-tunes (yanolja/KoSOLAR-10.7B-v0.2): Mistral 7B's layers depth-upscaled to 48.
  { name: /solar/, id: (s) => `upstage/SOLAR-${s}B-v1.0` },
];

/** A size in billions as ids that count small models in millions write it (OPT, Pythia): 0.125 -> 125m, 1.3 -> 1.3b. */
function millions(size: string): string {
  const b = Number(size);
  return b < 1 ? `${Math.round(b * 1000)}m` : `${size}b`;
}

/** The size as the family's ids write it: 7, 0.5, 8x7. */
function sizeText(part: string): string | undefined {
  const moe = /(?<![a-z0-9.])(\d+x\d+)b(?![a-z0-9])/i.exec(part);
  if (moe) return moe[1].toLowerCase();
  const bytes = sizeInName(part);
  return bytes !== undefined && bytes >= 1e8 ? String(bytes / 1e9) : undefined;
}

/** The catalog entry whose family and size the last parts of a path name, or undefined. */
export function modelFromPathName(pathText: string): CatalogModel | undefined {
  const kaggle = kaggleModel(pathText);
  if (kaggle)
    return (
      namedAfterName(kaggle.variation) ?? namedBySuffix(kaggle.slug) ?? familyAndSize([kaggle.slug, kaggle.variation])
    );
  const named = hubCacheEntry(pathText) ?? namedAfterId(pathText) ?? namedAfterName(pathText);
  return named ?? familyAndSize(lastParts(pathText));
}

/**
 * A model of Kaggle Models as a notebook mounts it, `/kaggle/input/<model>/<framework>/<variation>/<version>`
 * (`/kaggle/input/gemma/transformers/2b-it/3`, `/kaggle/input/llama-3/transformers/8b-chat-hf/1`): the model's and
 * the variation's names.
 */
function kaggleModel(pathText: string): { slug: string; variation: string } | undefined {
  const m = /(?:^|[\\/])kaggle[\\/]input[\\/]([^\\/]+)[\\/][a-z]+[\\/]([^\\/]+)[\\/]\d+[\\/]?$/i.exec(
    pathText.slice(0, 400),
  );
  return m ? { slug: m[1], variation: m[2] } : undefined;
}

/**
 * The catalog entry a family and a size in the given folder names give (the last size named), or undefined; without a
 * size, a family of one size that the last folder is named after (`e:\code\chatglm\chatglm2`).
 */
function familyAndSize(names: readonly string[]): CatalogModel | undefined {
  // A size written straight after the family's name (`/path/to/llama7B`) is split from it, as `llama-7b` is (not the
  // expert size of `8x7b`).
  // So is one after a family's version (one digit, or two for a minor version without its dot) and an underscore
  // (`llama2_7b`: Llama 2, 7B; `llama32_3b`: Llama 3.2, 3B), which sizeInName leaves
  // unread (qwen1_8b may be Qwen 1.8B); the family must then be one of FAMILIES.
  const parts = names.map((p) =>
    p
      .toLowerCase()
      .replace(/(?<![0-9])([a-z]+)(\d+(?:\.\d+)?b)(?![a-z0-9])/g, '$1-$2')
      .replace(/(?<![0-9])([a-z]+\d{1,2})_(\d+(?:\.\d+)?b)(?![a-z0-9])/g, '$1-$2'),
  );
  const sizes = parts.map(sizeText).filter((s) => s !== undefined);
  if (sizes.length === 0) return namedSizeFamily(parts[parts.length - 1]) ?? oneSizeFamily(parts[parts.length - 1]);
  const size = sizes[sizes.length - 1];
  const text = parts.join('/');
  const family = FAMILIES.find((f) => f.name.test(text));
  if (!family) return undefined;
  const found = findModel(family.id(size));
  return found.ok && !found.model.derivedFrom ? found.model : undefined;
}

/**
 * Encoder families whose sizes are words (base, large), as their ids write them: a folder or fine-tune named after one
 * (`deberta-v3-large-hf-weights`, `models/roberta-large`, `bert-base-cased-finetuned`). The family must begin a word,
 * so a model pretrained further under a name of its own (`deproberta-large`) is not taken for it.
 */
const NAMED_SIZES: readonly { readonly name: RegExp; readonly id: (m: RegExpExecArray) => string }[] = [
  { name: /(?<![a-z])mdeberta[-_ ]?v3[-_ ]base/, id: () => 'microsoft/mdeberta-v3-base' },
  { name: /(?<![a-z])deberta[-_ ]?v3[-_ ](xsmall|small|base|large)/, id: (m) => `microsoft/deberta-v3-${m[1]}` },
  { name: /(?<![a-z])xlm[-_ ]?roberta[-_ ](base|large)/, id: (m) => `FacebookAI/xlm-roberta-${m[1]}` },
  { name: /(?<![a-z])roberta[-_ ](base|large)/, id: (m) => `FacebookAI/roberta-${m[1]}` },
  { name: /(?<![a-z])distilbert[-_ ]base[-_ ](uncased|cased)/, id: (m) => `distilbert/distilbert-base-${m[1]}` },
  { name: /(?<![a-z])bert[-_ ](base|large)[-_ ](uncased|cased)/, id: (m) => `google-bert/bert-${m[1]}-${m[2]}` },
];

/**
 * The one catalog entry whose repository name is a Kaggle model's slug or ends with it after a dash (the slug
 * `nemotron-3-nano-30b-a3b-bf16` of nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: Kaggle drops the vendor's prefix).
 */
function namedBySuffix(slug: string): CatalogModel | undefined {
  const s = slug.toLowerCase();
  if (sizeInName(s) === undefined) return undefined;
  const found = MODEL_CATALOG.filter(
    (m) =>
      !m.derivedFrom &&
      [m.id, ...(m.aliases ?? [])].some((n) => {
        const name = n.split('/').pop()!.toLowerCase();
        return name === s || name.endsWith(`-${s}`);
      }),
  );
  return found.length === 1 ? found[0] : undefined;
}

/** The catalog entry of an encoder whose size a folder's name writes as a word, or undefined. */
function namedSizeFamily(last: string | undefined): CatalogModel | undefined {
  if (last === undefined) return undefined;
  for (const f of NAMED_SIZES) {
    const m = f.name.exec(last);
    if (!m) continue;
    const found = findModel(f.id(m));
    return found.ok && !found.model.derivedFrom ? found.model : undefined;
  }
  return undefined;
}

/** The catalog entry of a family with one size that a folder's name starts with, or undefined. */
function oneSizeFamily(last: string | undefined): CatalogModel | undefined {
  if (last === undefined) return undefined;
  const family = FAMILIES.find((f) => f.name.test(last));
  const at = family?.name.exec(last)?.index;
  if (!family?.oneSize || at !== 0) return undefined;
  const found = findModel(family.id(''));
  return found.ok && !found.model.derivedFrom ? found.model : undefined;
}

/**
 * The last three folder names of a path, as written but for ModelScope's snapshot_download, which writes each `.` of a
 * model's name as `___` (Qwen1___5-1___8B); empty, `.`, `..` and `~` parts left out.
 */
function lastParts(pathText: string): string[] {
  return pathText
    .slice(0, 400)
    .split(/[\\/]+/)
    .filter((p) => p !== '' && p !== '.' && p !== '..' && p !== '~')
    .slice(-3)
    .map((p) => p.replace(/___/g, '.'));
}

/**
 * A folder named after a catalog id, its organisation the folder above (`models/meta-llama/Llama-2-7b-hf`; ModelScope's
 * `snapshot_download('Qwen/Qwen-1_8B-Chat', cache_dir='.')` and `git clone` of a repository lay checkpoints out so):
 * that entry, named exactly by its id or an alias.
 */
function namedAfterId(pathText: string): CatalogModel | undefined {
  const parts = lastParts(pathText);
  if (parts.length < 2) return undefined;
  const id = parts.slice(-2).join('/');
  const found = findModel(id);
  if (!found.ok || found.model.derivedFrom) return undefined;
  const names = [found.model.id, ...(found.model.aliases ?? [])].map((n) => n.toLowerCase());
  return names.includes(id.toLowerCase()) ? found.model : undefined;
}

/**
 * A folder of the Hugging Face cache (`<cache>/models--Qwen--Qwen2.5-Coder-14B-Instruct/snapshots/<commit>`, as
 * huggingface_hub lays a repository out): the catalog entry of that repository, or of the name its id gives.
 */
function hubCacheEntry(pathText: string): CatalogModel | undefined {
  const parts = pathText
    .slice(0, 400)
    .split(/[\\/]+/)
    .filter((p) => p !== '');
  const at = parts.findIndex((p) => /^models--[^-].*--./.test(p));
  const rest = at < 0 ? [] : parts.slice(at + 1);
  if (at < 0 || !(rest.length === 0 || (rest.length <= 2 && rest[0] === 'snapshots'))) return undefined;
  const m = /^models--(.+?)--(.+)$/.exec(parts[at]);
  if (!m) return undefined;
  const id = `${m[1]}/${m[2]}`;
  const found = findModel(id);
  if (found.ok && !found.model.derivedFrom) return found.model;
  return modelFromHubName(id);
}

/**
 * A folder named as one catalog entry's repository is, without its organisation (`/mnt/models/Qwen3-30B-A3B`,
 * `~/llm/Mistral-7B-Instruct-v0.2`: `huggingface-cli download --local-dir` and `git clone` name it so): that entry.
 */
function namedAfterName(pathText: string): CatalogModel | undefined {
  const last = lastParts(pathText).pop();
  if (!last || last.includes(' ')) return undefined;
  const found = findModel(last);
  if (!found.ok || found.model.derivedFrom) return undefined;
  const names = [found.model.id, ...(found.model.aliases ?? [])].map((n) => n.split('/').pop()!.toLowerCase());
  return names.includes(last.toLowerCase()) ? found.model : undefined;
}

/**
 * The catalog entry an unknown Hub id's name gives (modelFromPathName), unless its organisation publishes base models
 * of the catalog: a missing `meta-llama/...` or `mistralai/...` id is a typo or a release the catalog lacks, which the
 * error's closest names serve better than a guess. An organisation the catalog knows only for fine-tunes of others'
 * models (NousResearch, lmsys, HuggingFaceH4) names its other fine-tunes after their base as anyone does
 * (`NousResearch/Nous-Hermes-Llama2-13b`).
 */
export function modelFromHubName(id: string): CatalogModel | undefined {
  const slash = id.indexOf('/');
  // A bare name no catalog knows is a folder where the script runs (Hub ids without an organisation are the few
  // canonical models of the catalog): `llama_hf_7b`.
  if (slash < 0) return modelFromPathName(id);
  const org = id.slice(0, slash).toLowerCase();
  if (PUBLISHERS.has(org)) return undefined;
  return modelFromPathName(id);
}

/** The organisations of the catalog's base models (entries that are no fine-tune of another), lower case. */
const PUBLISHERS: ReadonlySet<string> = new Set(
  MODEL_CATALOG.filter((m) => m.baseModel === undefined && m.derivedFrom === undefined)
    .map((m) => m.id.split('/')[0].toLowerCase())
    .filter((o) => o !== ''),
);
