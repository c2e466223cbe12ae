// Local files and caches: a model folder or config.json, the Hugging Face cache, and our own cache of Hub look-ups.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { quantConfigOf, quantizationFromConfig, quantMethodOf } from '../../analyzers/checkpoint-quantization';
import type { HfConfig } from '../../core';
import { readBounded, type ReadPolicy } from '../read';
import { cacheFolderName, type HubRef } from './paths';
import { countLocalWeights, dominantFloat, insideDir, isObj, type LocalCount, num, readJsonFile } from './safetensors';
import type { ModelInfo } from './types';

export const CACHE_FORMAT = 1;

function quantizationNotes(config: HfConfig): string[] {
  const qc = quantConfigOf(config);
  if (!qc || quantizationFromConfig(config)) return [];
  const method = quantMethodOf(qc) ?? 'unnamed';
  // gpt-oss ships its experts in MXFP4, whose kernels do not train: transformers dequantizes them to bf16 for
  // fine-tuning (Mxfp4Config(dequantize=True), and always where the kernels are missing).
  if (method === 'mxfp4')
    return [
      'quantization_config (mxfp4): training dequantizes the MXFP4 experts to the model dtype (Mxfp4Config(dequantize=True)); weights are counted at 16 bits',
    ];
  const bits = num(qc.bits) ?? num(qc.w_bit);
  return [
    `quantization_config (${method}${bits !== undefined ? `, ${bits}-bit` : ''}) is not modelled; weights are taken at their stored dtype`,
  ];
}

export type Step =
  { readonly kind: 'found'; readonly model: ModelInfo } | { readonly kind: 'error'; readonly message: string };

/** A model's config.json; a file that is not one is named by what it is, never by what it holds. */
function readConfigFile(
  file: string,
  policy: ReadPolicy,
): { ok: true; config: HfConfig } | { ok: false; message: string } {
  const read = readJsonFile(file, 'model-config', policy);
  if (!read.ok)
    return {
      ok: false,
      message:
        read.reason === 'invalid JSON'
          ? `${file}: invalid JSON (its content is not shown)`
          : `${file}: not read as a model config.json: ${read.reason}`,
    };
  if (!isObj(read.value))
    return { ok: false, message: `${file}: not a model config.json (a JSON value that is not an object)` };
  return { ok: true, config: read.value as HfConfig };
}

/** Builds the ModelInfo for a config file; weights are counted in `weightsDir` when given. */
function modelFromConfigFile(
  id: string,
  configFile: string,
  source: string,
  weightsDir: string | undefined,
  policy: ReadPolicy,
  revision?: string,
): Step {
  const read = readConfigFile(configFile, policy);
  if (!read.ok) return { kind: 'error', message: read.message };
  const counted = weightsDir ? countLocalWeights(weightsDir, read.config, policy) : { notes: [] };
  return { kind: 'found', model: assemble(id, read.config, source, counted, revision) };
}

export function assemble(
  id: string,
  config: HfConfig,
  source: string,
  counted: LocalCount,
  revision?: string,
): ModelInfo {
  const count = counted.count;
  const dtypes = count && Object.keys(count.dtypes).length > 0 ? count.dtypes : undefined;
  return {
    id,
    config,
    source,
    revision,
    parameters: count && count.parameters > 0 ? count.parameters : undefined,
    parameterSource: count && count.parameters > 0 ? counted.parameterSource : undefined,
    dtypes,
    weightsDtype: dtypes ? dominantFloat(dtypes) : undefined,
    quantization: quantizationFromConfig(config),
    notes: [...counted.notes, ...quantizationNotes(config)],
  };
}

/** A local directory holding config.json, or a path to a config file. Undefined when nothing is at `abs`. */
export function fromLocalPath(ref: string, abs: string, explicitPath: boolean, policy: ReadPolicy): Step | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) {
    const config = path.join(abs, 'config.json');
    // A folder the repository keeps for the model to be put in (an `__init__.py`, a README, a .gitkeep): read as a
    // path not on this machine, whose name may still tell the model.
    if (!fs.existsSync(config))
      return explicitPath && !keptEmptyOfModel(abs)
        ? { kind: 'error', message: `${abs}: a directory without config.json` }
        : undefined;
    return modelFromConfigFile(ref, config, `local file ${config}`, abs, policy);
  }
  // Weights beside a file named config.json belong to it; any other JSON file is an architecture on its own.
  return modelFromConfigFile(
    ref,
    abs,
    `local file ${abs}`,
    path.basename(abs) === 'config.json' ? path.dirname(abs) : undefined,
    policy,
  );
}

/** Files that hold a model's weights or its tokenizer: a folder with one is a model folder, missing its config. */
const MODEL_FILE = /\.(safetensors|bin|pt|pth|ckpt|gguf|msgpack|h5|model)$|^tokenizer(_config)?\.json$/i;

/** Whether a folder holds none of a model's files at its top: one the repository keeps for a model to be put in. */
function keptEmptyOfModel(dir: string): boolean {
  try {
    return !fs.readdirSync(dir).some((n) => MODEL_FILE.test(n));
  } catch {
    return false;
  }
}

/** The repo folder in a hub cache, matched without regard to case as the Hub matches ids. */
function findCacheFolder(cacheDir: string, id: string): string | undefined {
  const want = cacheFolderName(id);
  const direct = path.join(cacheDir, want);
  if (fs.existsSync(direct)) return direct;
  try {
    const hit = fs.readdirSync(cacheDir).find((n) => n.toLowerCase() === want.toLowerCase());
    return hit ? path.join(cacheDir, hit) : undefined;
  } catch {
    return undefined;
  }
}

function readRef(repoDir: string, revision: string, policy: ReadPolicy): string | undefined {
  const file = insideDir(path.join(repoDir, 'refs'), revision);
  const read = file ? readBounded(file, 'model-config', policy) : undefined;
  return read?.ok ? read.text.trim() || undefined : undefined;
}

/**
 * The Hugging Face cache layout: models--{org}--{name}/refs/{revision} holds a commit hash, and
 * snapshots/{hash}/ holds the files (symlinks into blobs/). A commit may be given directly as the revision.
 * Without an explicit revision and without refs/main, the newest snapshot that has a config.json is used.
 */
export function fromHfCache(hub: HubRef, cacheDir: string, policy: ReadPolicy): Step | undefined {
  const repoDir = findCacheFolder(cacheDir, hub.id);
  if (!repoDir) return undefined;
  const id = path.basename(repoDir).slice('models--'.length).replace('--', '/');
  const snapshots = path.join(repoDir, 'snapshots');
  const revision = hub.revision ?? 'main';
  const notes: string[] = [];
  let commit = readRef(repoDir, revision, policy);
  if (!commit && /^[0-9a-f]{7,40}$/i.test(revision)) {
    try {
      commit = fs.readdirSync(snapshots).find((s) => s.startsWith(revision.toLowerCase()));
    } catch {
      commit = undefined;
    }
  }
  if (!commit && hub.revision === undefined) {
    commit = newestSnapshotWithConfig(snapshots);
    if (commit) notes.push(`refs/main is missing in ${repoDir}; used the newest snapshot ${commit}`);
  }
  if (!commit) return undefined;
  const snapshotDir = insideDir(snapshots, commit);
  if (!snapshotDir) return undefined;
  const configFile = path.join(snapshotDir, 'config.json');
  if (!fs.existsSync(configFile)) return undefined;
  const step = modelFromConfigFile(id, configFile, `Hugging Face cache ${configFile}`, snapshotDir, policy, commit);
  return step.kind === 'found'
    ? { kind: 'found', model: { ...step.model, notes: [...notes, ...step.model.notes] } }
    : step;
}

function newestSnapshotWithConfig(snapshots: string): string | undefined {
  try {
    return fs
      .readdirSync(snapshots)
      .map((s) => ({ s, file: path.join(snapshots, s, 'config.json') }))
      .filter((x) => fs.existsSync(x.file))
      .map((x) => ({ s: x.s, t: fs.statSync(x.file).mtimeMs }))
      .sort((a, b) => b.t - a.t || a.s.localeCompare(b.s))[0]?.s;
  } catch {
    return undefined;
  }
}

/** What we keep of one Hub look-up. */
export interface CacheRecord {
  readonly format: number;
  readonly id: string;
  readonly revision: string;
  readonly hubUrl: string;
  readonly fetchedAt: string;
  readonly config: HfConfig;
  readonly parameters?: number;
  readonly parameterSource?: string;
  readonly dtypes?: Record<string, number>;
}

function cacheFile(cacheDir: string, hub: HubRef): string {
  return path.join(
    cacheDir,
    cacheFolderName(hub.id).toLowerCase(),
    `${encodeURIComponent(hub.revision ?? 'main')}.json`,
  );
}

export function fromOurCache(hub: HubRef, cacheDir: string, policy: ReadPolicy): Step | undefined {
  const file = cacheFile(cacheDir, hub);
  const read = readJsonFile(file, 'model-config', policy);
  if (!read.ok) return undefined;
  const rec = read.value;
  if (!isObj(rec) || rec.format !== CACHE_FORMAT || !isObj(rec.config) || typeof rec.id !== 'string') return undefined;
  const r = rec as unknown as CacheRecord;
  const parameters = num(r.parameters);
  const counted: LocalCount =
    parameters !== undefined
      ? {
          count: { parameters, dtypes: isObj(r.dtypes) ? r.dtypes : {} },
          parameterSource: r.parameterSource ?? 'safetensors headers on the Hub',
          notes: [],
        }
      : { notes: [] };
  return {
    kind: 'found',
    model: assemble(
      r.id,
      r.config,
      `vram-lens cache ${file} (fetched from ${r.hubUrl}/${r.id} on ${r.fetchedAt})`,
      counted,
      r.revision,
    ),
  };
}

export function writeOurCache(cacheDir: string, hub: HubRef, rec: CacheRecord): string | undefined {
  const file = cacheFile(cacheDir, hub);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(rec, null, 1));
    fs.renameSync(tmp, file);
    return undefined;
  } catch (e) {
    return `could not write the cache file ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
}
