// Finds a model's config.json, and its exact parameter count when the weights are at hand, wherever the user keeps
// it: the built-in catalog, a local directory or config.json, the local Hugging Face cache, our own cache of earlier
// Hub look-ups, and the Hugging Face Hub itself (through @huggingface/hub) only when the user allowed network access.
// Node-side: file system and network live here; src/core and src/analyzers must never import this file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { catalogResolver, type ModelResolver } from '../../analyzers/resolve';
import { findModel, modelFromHubName, modelFromPathName } from '../../core';
import { foldersAbove } from '../files';
import { readPolicy, type ReadPolicy } from '../read';
import { fromHfCache, fromLocalPath, fromOurCache, type Step } from './cache';
import { earlierRun } from './earlier-run';
import { fetchFromHub, suggestionText } from './hub';
import {
  expandHome,
  hfHubCacheDir,
  homeDir,
  type HubRef,
  hubIdOfCacheFolder,
  looksLikePath,
  parseHubRef,
  vramLensCacheDir,
} from './paths';
import type { AsyncResolveOptions, Env, ModelInfo, ModelResolution, SyncResolveOptions } from './types';

export type { QuantizationInfo } from '../../analyzers/checkpoint-quantization';
export { findHfToken, hfHubCacheDir, vramLensCacheDir } from './paths';
export { readSafetensorsHeader } from './safetensors';
export type { AsyncResolveOptions, Env, ModelInfo, ModelResolution, SyncResolveOptions } from './types';

const DEFAULT_NETWORK_HINT = '--allow-network';

/** The catalog entry that `ref` names exactly (id or alias, any case; the org may be left out). */
function exactCatalogHit(ref: string): ModelInfo | undefined {
  const r = catalogResolver(ref);
  if (!r.ok) return undefined;
  const hit = findModel(ref);
  // An upload read from its name comes after the caches and the Hub, which may hold its own config.json.
  if (hit.ok && hit.model.derivedFrom) return undefined;
  const names = hit.ok ? [hit.model.id, ...(hit.model.aliases ?? [])].map((n) => n.toLowerCase()) : [];
  if (ref.includes('/') && !names.includes(ref.toLowerCase())) return undefined;
  return { ...r.model, notes: [] };
}

// Resolution in the documented order.

type Offline =
  | (Step & {
      readonly fromName?: HubRef;
      /** Read from a name alone (fromHubName): where the Hub may be asked, its answer stands, a missing repo too. */
      readonly nameOnly?: boolean;
    })
  | {
      readonly kind: 'missing';
      readonly hub?: HubRef;
      readonly hfCache?: string;
      /** The path written, a Hugging Face cache folder of the Hub id looked for (hubIdOfCacheFolder). */
      readonly cacheFolder?: string;
    };

/** Every place that needs no network, in the documented order. */
function resolveOffline(ref: string, opts: Omit<SyncResolveOptions, 'allowNetwork'>): Offline {
  const trimmed = ref.trim();
  if (!trimmed) return { kind: 'error', message: 'empty model reference' };
  const explicitPath = looksLikePath(trimmed);
  if (!explicitPath) {
    const hit = exactCatalogHit(trimmed);
    if (hit) return { kind: 'found', model: hit };
  }
  const hfCache = hfHubCacheDir(opts.env);
  const ourCache = opts.cacheDir ?? vramLensCacheDir(opts.env);
  const policy = readPolicy(opts.roots ? [...opts.roots, hfCache, ourCache] : undefined);
  const abs = path.resolve(opts.cwd, expandHome(trimmed, homeDir(opts.env)));
  const local = fromLocalPath(trimmed, abs, explicitPath, policy) ?? nearTheFile(trimmed, explicitPath, opts, policy);
  if (local) return local;
  const cachedId = hubIdOfCacheFolder(trimmed);
  if (cachedId) return asCacheFolder(trimmed, cachedId, resolveOffline(cachedId, opts));
  if (explicitPath)
    return fromEarlierRun(trimmed, opts, policy) ?? missingPath(trimmed, besideTheFile(trimmed, abs, opts), opts.cwd);
  const hub = parseHubRef(trimmed);
  // `org/name/`, or a name of three parts or more (`models/Qwen2.5-0.5B/qwen/Qwen2.5-0.5B`), is no Hub id but a folder
  // (relative to where the script runs) that is not here.
  if (!hub && trimmed.includes('/'))
    return fromEarlierRun(trimmed, opts, policy) ?? missingPath(trimmed, abs, opts.cwd);
  if (!hub) return { kind: 'missing' };
  const cached = fromHfCache(hub, hfCache, policy) ?? fromOurCache(hub, ourCache, policy);
  if (cached) return cached;
  // A looser catalog match ('myorg/Llama-2-7b-hf' -> the catalog's 'meta-llama/Llama-2-7b-hf') comes after the caches.
  const loose = catalogResolver(trimmed);
  if (loose.ok && hub.revision === undefined) {
    const named = findModel(trimmed);
    if (named.ok && named.model.derivedFrom) {
      // A copy in another model's layout (Unsloth's Phi-3 in Mistral's): said with it.
      const base = findModel(named.model.derivedFrom);
      const type = named.model.config.model_type;
      const layout = base.ok && base.model.config.model_type !== type ? `, in ${String(type)}'s layout` : '';
      return {
        kind: 'found',
        fromName: hub,
        model: {
          ...loose.model,
          notes: [
            `'${trimmed}' is not in the Hugging Face cache: read from its name as ${named.model.derivedFrom} ` +
              (named.model.derivedAs ??
                (named.model.config.quantization_config ? 'with the quantization the name gives' : 'in 16 bits')) +
              layout,
          ],
        },
      };
    }
    return {
      kind: 'found',
      model: {
        ...loose.model,
        notes: [`'${trimmed}' is not in the catalog; used the entry with the same name, ${loose.model.id}`],
      },
    };
  }
  // `checkpoints/sft`, written like a Hub id, may be the folder an earlier run of the project saves to.
  const named =
    hub.revision === undefined ? (fromEarlierRun(trimmed, opts, policy) ?? fromHubName(trimmed, hub, opts)) : undefined;
  return named ?? { kind: 'missing', hub, hfCache };
}

/**
 * A Hugging Face cache folder that is not here (`../pretrained_models/models--org--name/snapshots/<commit>`, a copy of
 * another machine's cache) looked for as the Hub id it is named after: found, with a note saying so; else missing
 * under that id, so the Hub may be asked for it where allowed and the message names it.
 */
function asCacheFolder(trimmed: string, id: string, r: Offline): Offline {
  if (r.kind === 'missing') return { ...r, cacheFolder: trimmed };
  if (r.kind !== 'found') return r;
  const note = `model path '${trimmed}' is not on this machine: it is a Hugging Face cache folder of ${id}, read as that model`;
  return { ...r, model: { ...r.model, notes: [note, ...r.model.notes] } };
}

/**
 * A Hub id that nothing on this machine knows, read from its name (a fine-tune is named after its base: the family
 * and size both in it): that catalog model, with a note saying so and how to read its own config.json. The Hub, when
 * allowed, is asked first (resolveModelAsync).
 */
function fromHubName(
  trimmed: string,
  hub: HubRef,
  opts: Omit<SyncResolveOptions, 'allowNetwork'>,
): Offline | undefined {
  const how = hubOffline(opts.env)
    ? 'HF_HUB_OFFLINE is set, so the Hub is not asked'
    : `allow network access (${opts.networkHint ?? DEFAULT_NETWORK_HINT}) to read its own config.json`;
  const model = namedModel(
    modelFromHubName(hub.id),
    (id) =>
      `'${trimmed}' is not in the catalog or the Hugging Face cache: estimated as ${id}, the model its name gives; ` +
      `${how}, or set vramLens.model (--model)`,
  );
  return model ? { kind: 'found', fromName: hub, nameOnly: true, model } : undefined;
}

/** The catalog model a name gave (model-from-path.ts), resolved, with a note that says so; undefined when none. */
function namedModel(named: ReturnType<typeof modelFromPathName>, note: (id: string) => string): ModelInfo | undefined {
  const resolved = named ? catalogResolver(named.id) : undefined;
  return named && resolved?.ok ? { ...resolved.model, notes: [note(named.id)] } : undefined;
}

/**
 * A model path that is not on this machine (scripts written for a cluster): when the folder's name gives a catalog
 * model's family and size, that model, with a note saying so and how to give the real one; else an error.
 */
function missingPath(trimmed: string, abs: string, cwd: string): Offline {
  // A folder kept for the model (no config.json, no weights) is there, and empty of it.
  const what = fs.existsSync(abs) ? `${abs} holds no config.json or weights` : `no ${abs}`;
  const model = namedModel(
    modelFromPathName(trimmed),
    (id) =>
      `model path '${trimmed}' is not on this machine (${what}): estimated as ${id}, the model its name gives; ` +
      `point it at the model folder, or set vramLens.model (--model), to read its own config.json`,
  );
  if (model) return { kind: 'found', model };
  return {
    kind: 'error',
    message:
      `model path '${trimmed}' ${fs.existsSync(abs) ? 'holds no model' : 'does not exist'} (${what}): ` +
      `point it at a model folder with a config.json, or at the config.json itself; a relative path is read from ${cwd}`,
  };
}

/**
 * A model folder that is not here but is the output folder of another run of the project (earlier-run.ts): the model
 * that run trains, with a note saying which file writes the folder; undefined when no file of the project does.
 */
function fromEarlierRun(
  trimmed: string,
  opts: Omit<SyncResolveOptions, 'allowNetwork'>,
  policy: ReadPolicy,
): Offline | undefined {
  const run = earlierRun(trimmed, opts, policy);
  if (!run) return undefined;
  const where = `${run.key}, line ${run.line}`;
  const note =
    (run.downloaded
      ? `model path '${trimmed}' is not on this machine: it is the folder ${run.file} downloads ${run.named} into ` +
        `(${where}): estimated as ${run.model.id}; point it at `
      : `model path '${trimmed}' is not on this machine: it is the folder ${run.file} writes (${where}), ` +
        `a run that trains ${run.named}: estimated as ${run.model.id}, whose architecture a fine-tune keeps; point it at `) +
    'the model folder, or set vramLens.model (--model), to read its own config.json';
  return { kind: 'found', model: { ...run.model, notes: [note] } };
}

/**
 * A relative model path that is not where the working directory puts it, found from the folder of the file that names
 * it or a folder above (a launcher in `examples/llama/scripts/` run from `examples/llama`, whose `--model_config
 * configs/llama_1b.json` is `examples/llama/configs/llama_1b.json`): the nearest that exists.
 */
function nearTheFile(
  trimmed: string,
  explicitPath: boolean,
  opts: Omit<SyncResolveOptions, 'allowNetwork'>,
  policy: ReadPolicy,
): Step | undefined {
  if (!opts.from || path.isAbsolute(trimmed) || /^~([\\/]|$)/.test(trimmed)) return undefined;
  const file = path.resolve(opts.cwd, opts.from);
  for (const dir of [path.dirname(file), ...foldersAbove(file, path.resolve(opts.cwd))]) {
    const found = fromLocalPath(trimmed, path.join(dir, trimmed), explicitPath, policy);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where a missing path was looked for, as the message names it: from the naming file's folder for a path that climbs
 * out of it (`../../../models/x`, built from the script's own `__file__`), else from the working directory.
 */
function besideTheFile(trimmed: string, abs: string, opts: Omit<SyncResolveOptions, 'allowNetwork'>): string {
  if (!opts.from || !/^\.\.([\\/]|$)/.test(trimmed)) return abs;
  return path.resolve(path.dirname(path.resolve(opts.cwd, opts.from)), trimmed);
}

/** HF_HUB_OFFLINE=1 turns the Hub off for every Hugging Face tool; we honour it even when network is allowed. */
function hubOffline(env: Env): boolean {
  return /^(1|true|yes|on)$/i.test(env.HF_HUB_OFFLINE ?? '');
}

function missingMessage(
  ref: string,
  miss: { hub?: HubRef; hfCache?: string; cacheFolder?: string },
  opts: Omit<SyncResolveOptions, 'allowNetwork'>,
): string {
  const where = miss.cacheFolder
    ? `a Hugging Face cache folder of ${miss.hub?.id ?? ''}, which is not on this machine, not in the built-in catalog and ` +
      `not in this machine's Hugging Face cache (${miss.hfCache}); its name gives no family and size to read it as`
    : miss.hub
      ? `not in the built-in catalog, not a local path, not in the Hugging Face cache (${miss.hfCache})`
      : 'not in the built-in catalog, not a local path, and not a Hugging Face repo id';
  const hint = !miss.hub
    ? ''
    : hubOffline(opts.env)
      ? '; HF_HUB_OFFLINE is set, so the Hugging Face Hub is not asked'
      : `; to fetch its config.json from the Hugging Face Hub, allow network access (${opts.networkHint ?? DEFAULT_NETWORK_HINT})`;
  const suggestions = miss.cacheFolder ? '' : suggestionText(ref.trim());
  return `unknown model '${ref.trim()}': ${where}${suggestions}${hint}; or set vramLens.model (--model)`;
}

/**
 * Resolves a model reference without any network access: the built-in catalog, then a local directory or config.json
 * path (relative to cwd, ~ expanded), then the local Hugging Face cache, then our cache of earlier Hub look-ups.
 * `org/name@rev` picks a branch, tag or commit in the caches. Parameters are counted when safetensors weights are local.
 */
export function resolveModelSync(ref: string, opts: SyncResolveOptions): ModelResolution {
  return settle(ref, resolveOffline(ref, opts), opts);
}

/** What an offline look-up amounts to: the model, or the message that says why not and where it was looked for. */
function settle(ref: string, r: Offline, opts: Omit<SyncResolveOptions, 'allowNetwork'>): ModelResolution {
  switch (r.kind) {
    case 'found':
      return { ok: true, model: r.model };
    case 'error':
      return { ok: false, message: r.message };
    case 'missing':
      return { ok: false, message: missingMessage(ref, r, opts) };
  }
}

/**
 * resolveModelSync, then, only when opts.allowNetwork is true, the Hugging Face Hub: config.json, and the parameter
 * count from safetensors headers read by ranged requests. What is fetched is kept in the vram-lens cache, so the next
 * run needs no network. With allowNetwork false this makes no request at all.
 */
export async function resolveModelAsync(ref: string, opts: AsyncResolveOptions): Promise<ModelResolution> {
  const r = resolveOffline(ref, opts);
  const online = opts.allowNetwork && !hubOffline(opts.env);
  if (r.kind === 'missing' && r.hub && online) return fetchFromHub(r.hub, opts);
  // An upload read from its name: its own config.json from the Hub when allowed, the name's reading when that fails (a
  // Hub id read from its name alone takes the Hub's answer, a missing repo included).
  if (r.kind === 'found' && r.fromName && online) {
    const fetched = await fetchFromHub(r.fromName, opts);
    if (fetched.ok || r.nameOnly) return fetched;
  }
  return settle(ref, r, opts);
}

/** A ModelResolver for resolveScenarios that never uses the network. */
export function offlineModelResolver(opts: SyncResolveOptions): ModelResolver {
  return (ref, from) => resolveModelSync(ref, from === undefined ? opts : { ...opts, from });
}

/**
 * Resolves `refs` up front with resolveModelAsync (the Hub when allowed) and returns a synchronous ModelResolver that
 * answers those from memory and any other reference offline. This bridges the asynchronous Hub to resolveScenarios.
 */
export async function prefetchModelResolver(
  refs: readonly string[],
  opts: AsyncResolveOptions,
): Promise<ModelResolver> {
  const known = new Map<string, ModelResolution>();
  for (const ref of new Set(refs)) known.set(ref, await resolveModelAsync(ref, opts));
  // A path is looked for near the file that names it (nearTheFile), which the look-ups up front did not know.
  return (ref, from) =>
    (looksLikePath(ref.trim()) && !hubIdOfCacheFolder(ref) ? undefined : known.get(ref)) ??
    resolveModelSync(ref, { ...opts, allowNetwork: false, ...(from === undefined ? {} : { from }) });
}
