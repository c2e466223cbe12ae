// Finds a model's config.json, and its exact parameter count when the weights are at hand, wherever the user keeps
// it: the built-in catalog, a local directory or config.json, the local Hugging Face cache, our own cache of earlier
// Hub look-ups, and the Hugging Face Hub itself (through @huggingface/hub) only when the user allowed network access.
// Node-side: file system and network live here; src/core and src/analyzers must never import this file.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  computeNumOfParamsByDtypeSingleFile,
  downloadFile,
  HubApiError,
  parseSafetensorsMetadata,
  type QuantizationConfig,
  type SafetensorsFileHeader,
} from '@huggingface/hub';
import {
  quantConfigOf,
  quantizationFromConfig,
  quantMethodOf,
  type QuantizationInfo,
} from '../analyzers/checkpoint-quantization';
import { catalogResolver, type ModelResolver, type ResolvedModel } from '../analyzers/resolve';
import { findModel } from '../core';
import type { HfConfig } from '../core';
import { checkRegularFile, readBounded, readPolicy, type ReadPolicy } from './read';

/** Environment variables as read from process.env; tests pass their own object so nothing touches the real home. */
export type Env = Readonly<Record<string, string | undefined>>;

export type { QuantizationInfo };

/** A resolved model with what we learned on the way; assignable to the ResolvedModel that resolveScenarios takes. */
export interface ModelInfo extends ResolvedModel {
  /** Which files the parameter count was read from, when it was counted from safetensors headers. */
  readonly parameterSource?: string;
  /** Parameters per safetensors dtype; packed quantized tensors are counted unpacked under their container dtype. */
  readonly dtypes?: Readonly<Record<string, number>>;
  /** The floating-point dtype that holds most of the parameters, in TrainingSetup words. */
  readonly weightsDtype?: 'fp32' | 'bf16' | 'fp16';
  /** Quantization of the stored checkpoint, recognised from quantization_config. */
  readonly quantization?: QuantizationInfo;
  /** The commit (HF cache) or revision (Hub) the files came from. */
  readonly revision?: string;
  /** Remarks worth showing the user: skipped counts, missing shards, quantization methods we do not model. */
  readonly notes: readonly string[];
}

export type ModelResolution =
  { readonly ok: true; readonly model: ModelInfo } | { readonly ok: false; readonly message: string };

export interface SyncResolveOptions {
  /** Directory that relative paths are resolved against. */
  readonly cwd: string;
  readonly env: Env;
  readonly allowNetwork?: false;
  /** Our cache of earlier Hub look-ups; defaults to $XDG_CACHE_HOME/vram-lens/hub, else ~/.cache/vram-lens/hub. */
  readonly cacheDir?: string;
  /** How a message tells the user to allow network access, such as '--allow-network' or a setting name. */
  readonly networkHint?: string;
  /**
   * When set (an untrusted workspace), local model paths are read only under these folders; the Hugging Face cache and
   * our own cache are always allowed.
   */
  readonly roots?: readonly string[];
}

export interface AsyncResolveOptions extends Omit<SyncResolveOptions, 'allowNetwork'> {
  /** Without this, no request ever leaves the machine. */
  readonly allowNetwork: boolean;
  /** Budget for all Hub requests of one resolution, in milliseconds (default 10 000). */
  readonly timeoutMs?: number;
  /** Defaults to $HF_ENDPOINT, else https://huggingface.co. */
  readonly hubUrl?: string;
  /** Defaults to HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the saved token file. */
  readonly token?: string;
  /** The fetch to use (tests pass a spy); requests get our timeout signal added. */
  readonly fetch?: typeof fetch;
}

const DEFAULT_HUB_URL = 'https://huggingface.co';
const DEFAULT_TIMEOUT_MS = 10_000;
/** A config.json larger than this is not read (the largest in the catalog's sources are under 100 KB). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Hosts an answer may come from: the Hub asked (hubUrl or HF_ENDPOINT) and Hugging Face's own hosts (its CDN and storage). */
function hubHost(host: string, hubUrl: string): boolean {
  return (
    host === new URL(hubUrl).hostname ||
    host === 'huggingface.co' ||
    host.endsWith('.huggingface.co') ||
    host === 'hf.co' ||
    host.endsWith('.hf.co')
  );
}
const DEFAULT_NETWORK_HINT = '--allow-network';
/** Safetensors headers above this size are refused (the largest real MoE headers are a few MB). */
const MAX_HEADER_BYTES = 100_000_000;
const CACHE_FORMAT = 1;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

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

// Paths: the home directory, the caches and the token, from the environment as Hugging Face tools read it.

function homeDir(env: Env): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

function expandHome(p: string, home: string): string {
  return p === '~' ? home : /^~[\\/]/.test(p) ? path.join(home, p.slice(2)) : p;
}

function hfHome(env: Env, home: string): string {
  if (env.HF_HOME) return expandHome(env.HF_HOME, home);
  return path.join(
    env.XDG_CACHE_HOME ? expandHome(env.XDG_CACHE_HOME, home) : path.join(home, '.cache'),
    'huggingface',
  );
}

/** The Hugging Face hub cache: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub (as huggingface_hub does). */
export function hfHubCacheDir(env: Env): string {
  const home = homeDir(env);
  const explicit = env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE;
  return explicit ? expandHome(explicit, home) : path.join(hfHome(env, home), 'hub');
}

/** Our cache of Hub look-ups (config.json and counted parameters), one JSON file per repo and revision. */
export function vramLensCacheDir(env: Env): string {
  const home = homeDir(env);
  return path.join(
    env.XDG_CACHE_HOME ? expandHome(env.XDG_CACHE_HOME, home) : path.join(home, '.cache'),
    'vram-lens',
    'hub',
  );
}

/** The Hub token: HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the file at HF_TOKEN_PATH or HF_HOME/token. */
export function findHfToken(env: Env): { readonly token: string; readonly from: string } | undefined {
  for (const name of ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN']) {
    const t = env[name]?.trim();
    if (t) return { token: t, from: name };
  }
  const home = homeDir(env);
  const file = env.HF_TOKEN_PATH ? expandHome(env.HF_TOKEN_PATH, home) : path.join(hfHome(env, home), 'token');
  const read = readBounded(file, 'dependency');
  const t = read.ok ? read.text.trim() : '';
  return t ? { token: t, from: file } : undefined;
}

// References: what the user typed, told apart as a path or a Hub id.

interface HubRef {
  /** 'org/name' or a legacy single-segment id such as 'gpt2'. */
  readonly id: string;
  /** A branch, tag or commit given as `org/name@rev`. */
  readonly revision?: string;
}

/** True for references that can only be paths: ./x, ../x, /x, ~/x, C:\x, anything with a backslash or ending in .json. */
function looksLikePath(ref: string): boolean {
  return (
    /^(\.{1,2}([\\/]|$)|~([\\/]|$)|[\\/])/.test(ref) ||
    /^[A-Za-z]:[\\/]/.test(ref) ||
    ref.includes('\\') ||
    /\.json$/i.test(ref)
  );
}

function parseHubRef(ref: string): HubRef | undefined {
  const m = /^([A-Za-z0-9][\w.-]*(?:\/[A-Za-z0-9][\w.-]*)?)(?:@([\w.\-/]+))?$/.exec(ref);
  if (!m) return undefined;
  const id = m[1];
  // The Hub forbids '--' and '..' in names; refusing them also keeps ids from escaping a cache directory.
  if (id.includes('--') || id.includes('..') || id.endsWith('.')) return undefined;
  const revision = m[2];
  if (revision !== undefined && revision.split('/').some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return { id, revision };
}

const cacheFolderName = (id: string): string => `models--${id.replace('/', '--')}`;

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

// Safetensors headers: exact parameter counts without reading the weights.

function readFully(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error('file ends early');
    done += n;
  }
  return buf;
}

/**
 * Reads the JSON header of a .safetensors file: 8 bytes of little-endian header length, then the header, which maps
 * each tensor name to {dtype, shape, data_offsets} (and may hold __metadata__). Only the header is read.
 * Throws with a one-line reason when the file is not a well-formed safetensors file.
 */
export function readSafetensorsHeader(file: string): SafetensorsFileHeader {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    const size = st.size;
    if (size < 8) throw new Error('too short for a safetensors file');
    const declared = readFully(fd, 8, 0).readBigUInt64LE(0);
    if (declared === 0n || declared > BigInt(Math.min(MAX_HEADER_BYTES, size - 8)))
      throw new Error(`implausible header length ${declared}`);
    const headerBytes = Number(declared);
    let header: unknown;
    try {
      header = JSON.parse(readFully(fd, headerBytes, 8).toString('utf8'));
    } catch {
      throw new Error('header is not valid JSON');
    }
    if (!isObj(header)) throw new Error('header is not a JSON object');
    const dataBytes = size - 8 - headerBytes;
    for (const [name, info] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      const ok =
        isObj(info) &&
        typeof info.dtype === 'string' &&
        Array.isArray(info.shape) &&
        info.shape.every((d) => Number.isInteger(d) && (d as number) >= 0) &&
        Array.isArray(info.data_offsets) &&
        info.data_offsets.length === 2 &&
        Number.isInteger(info.data_offsets[0]) &&
        Number.isInteger(info.data_offsets[1]) &&
        (info.data_offsets[0] as number) >= 0 &&
        (info.data_offsets[0] as number) <= (info.data_offsets[1] as number) &&
        (info.data_offsets[1] as number) <= dataBytes;
      if (!ok) throw new Error(`tensor '${name}' is malformed`);
    }
    return header as SafetensorsFileHeader;
  } finally {
    fs.closeSync(fd);
  }
}

/** The quantization_config in the shape @huggingface/hub's counter expects, with legacy spellings normalised. */
function counterQuantConfig(config: HfConfig): QuantizationConfig | undefined {
  const qc = quantConfigOf(config);
  if (!qc) return undefined;
  const method = quantMethodOf(qc);
  const bits = num(qc.bits) ?? num(qc.w_bit);
  return {
    ...(qc as QuantizationConfig),
    ...(method ? { quant_method: method } : {}),
    ...(bits !== undefined ? { bits } : {}),
    ...(qc._load_in_4bit === true ? { load_in_4bit: true } : {}),
  };
}

interface Count {
  readonly parameters: number;
  readonly dtypes: Record<string, number>;
}

/**
 * Counts parameters exactly: the sum of shape products over all tensors. Quantized checkpoints are counted as their
 * unquantized models by @huggingface/hub's counter: bitsandbytes 4-bit keeps two weights per uint8 byte and GPTQ/AWQ
 * qweight int32 words hold 32/bits weights, while the quantization constants (absmax, quant_map, quant_state,
 * qzeros, scales, g_idx) are left out. bitsandbytes 8-bit row scales (SCB, weight_format) are left out here.
 */
function countHeaders(headers: readonly SafetensorsFileHeader[], config: HfConfig): Count {
  const qc = counterQuantConfig(config);
  const bnb8 = qc?.quant_method === 'bitsandbytes' && qc.load_in_8bit === true;
  const dtypes: Record<string, number> = {};
  for (const header of headers) {
    const h = bnb8
      ? (Object.fromEntries(
          Object.entries(header).filter(([k]) => !/\.(SCB|weight_format)$/.test(k)),
        ) as SafetensorsFileHeader)
      : header;
    for (const [dtype, n] of Object.entries(computeNumOfParamsByDtypeSingleFile(h, qc))) {
      dtypes[dtype] = (dtypes[dtype] ?? 0) + (n ?? 0);
    }
  }
  return { parameters: Object.values(dtypes).reduce((a, b) => a + b, 0), dtypes };
}

function dominantFloat(dtypes: Readonly<Record<string, number>>): ModelInfo['weightsDtype'] {
  const names: Record<string, 'fp32' | 'bf16' | 'fp16'> = { F32: 'fp32', BF16: 'bf16', F16: 'fp16' };
  let best: ModelInfo['weightsDtype'];
  let most = 0;
  for (const [d, n] of Object.entries(dtypes)) {
    if (names[d] && n > most) {
      best = names[d];
      most = n;
    }
  }
  return best;
}

interface LocalCount {
  readonly count?: Count;
  readonly parameterSource?: string;
  readonly notes: string[];
}

/** A shard name from an index must stay inside the model directory. */
function insideDir(dir: string, name: string): string | undefined {
  const p = path.resolve(dir, name);
  const rel = path.relative(dir, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? p : undefined;
}

/** The JSON in a file read through the bounded reader; a refusal or a parse failure says why, never what it held. */
function readJsonFile(
  file: string,
  kind: 'model-config' | 'weights-index',
  policy: ReadPolicy,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  const r = readBounded(file, kind, policy);
  if (!r.ok) return { ok: false, reason: r.reason };
  try {
    return { ok: true, value: JSON.parse(r.text) as unknown };
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
}

/** A safetensors file to read a header from: a regular file under the policy's roots, or the reason it is not read. */
function headerOf(file: string, policy: ReadPolicy): SafetensorsFileHeader {
  const probe = checkRegularFile(file, policy);
  if (!probe.ok) throw new Error(`${path.basename(file)}: ${probe.reason}`);
  try {
    return readSafetensorsHeader(file);
  } catch (e) {
    throw new Error(`${path.basename(file)}: ${(e as Error).message}`, { cause: e });
  }
}

/** Counts parameters from model.safetensors or model.safetensors.index.json + shards in `dir`, when they are there. */
function countLocalWeights(dir: string, config: HfConfig, policy: ReadPolicy): LocalCount {
  const single = path.join(dir, 'model.safetensors');
  const index = path.join(dir, 'model.safetensors.index.json');
  try {
    if (fs.existsSync(single)) {
      return {
        count: countHeaders([headerOf(single, policy)], config),
        parameterSource: `safetensors header of ${single}`,
        notes: [],
      };
    }
    if (fs.existsSync(index)) {
      const read = readJsonFile(index, 'weights-index', policy);
      if (!read.ok) return { notes: [`${index} is not read (${read.reason}); parameters come from the architecture`] };
      const idx = read.value;
      const map = isObj(idx) && isObj(idx.weight_map) ? idx.weight_map : undefined;
      if (!map) return { notes: [`${index} has no weight_map; parameters come from the architecture`] };
      const shards = [...new Set(Object.values(map).filter((v): v is string => typeof v === 'string'))];
      const files = shards.map((s) => insideDir(dir, s));
      if (files.some((f) => f === undefined))
        return { notes: [`${index} names a shard outside its directory; ignored`] };
      const present = (files as string[]).filter((f) => fs.existsSync(f));
      if (present.length < shards.length) {
        const meta = isObj(idx) && isObj(idx.metadata) ? idx.metadata : undefined;
        const total = Number(meta?.total_parameters);
        const missing = `${shards.length - present.length} of ${shards.length} shards are not in ${dir}`;
        if (Number.isSafeInteger(total) && total > 0) {
          return {
            count: { parameters: total, dtypes: {} },
            parameterSource: `total_parameters in ${index}`,
            notes: [missing],
          };
        }
        return { notes: [`${missing}; parameters come from the architecture`] };
      }
      const count = countHeaders(
        (files as string[]).map((f) => headerOf(f, policy)),
        config,
      );
      return {
        count,
        parameterSource: `safetensors headers of ${index} and its ${shards.length} shard${shards.length === 1 ? '' : 's'}`,
        notes: [],
      };
    }
  } catch (e) {
    return {
      notes: [
        `could not read the safetensors weights in ${dir} (${(e as Error).message}); parameters come from the architecture`,
      ],
    };
  }
  if (
    fs.existsSync(path.join(dir, 'pytorch_model.bin')) ||
    fs.existsSync(path.join(dir, 'pytorch_model.bin.index.json'))
  ) {
    return {
      notes: [
        'the weights are pickled PyTorch files, whose headers cannot be read safely; parameters come from the architecture',
      ],
    };
  }
  return { notes: [] };
}

// Local files and caches.

type Step =
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

function assemble(id: string, config: HfConfig, source: string, counted: LocalCount, revision?: string): ModelInfo {
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
function fromLocalPath(ref: string, abs: string, explicitPath: boolean, policy: ReadPolicy): Step | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) {
    const config = path.join(abs, 'config.json');
    if (!fs.existsSync(config))
      return explicitPath ? { kind: 'error', message: `${abs}: a directory without config.json` } : undefined;
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
function fromHfCache(hub: HubRef, cacheDir: string, policy: ReadPolicy): Step | undefined {
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
interface CacheRecord {
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

function fromOurCache(hub: HubRef, cacheDir: string, policy: ReadPolicy): Step | undefined {
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

function writeOurCache(cacheDir: string, hub: HubRef, rec: CacheRecord): string | undefined {
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

// Resolution in the documented order.

type Offline =
  | (Step & { readonly fromName?: HubRef })
  | { readonly kind: 'missing'; readonly hub?: HubRef; readonly hfCache?: string };

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
  const local = fromLocalPath(trimmed, abs, explicitPath, policy);
  if (local) return local;
  if (explicitPath) {
    return {
      kind: 'error',
      message: `model path '${trimmed}' does not exist (no ${abs}): point it at a model folder with a config.json, or at the config.json itself; a relative path is read from ${opts.cwd}`,
    };
  }
  const hub = parseHubRef(trimmed);
  if (!hub) return { kind: 'missing' };
  const cached = fromHfCache(hub, hfCache, policy) ?? fromOurCache(hub, ourCache, policy);
  if (cached) return cached;
  // A looser catalog match ('myorg/Llama-2-7b-hf' -> the catalog's 'meta-llama/Llama-2-7b-hf') comes after the caches.
  const loose = catalogResolver(trimmed);
  if (loose.ok && hub.revision === undefined) {
    const named = findModel(trimmed);
    if (named.ok && named.model.derivedFrom) {
      return {
        kind: 'found',
        fromName: hub,
        model: {
          ...loose.model,
          notes: [
            `'${trimmed}' is not in the Hugging Face cache: read from its name as ${named.model.derivedFrom} with the quantization the name gives`,
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
  return { kind: 'missing', hub, hfCache };
}

/** HF_HUB_OFFLINE=1 turns the Hub off for every Hugging Face tool; we honour it even when network is allowed. */
function hubOffline(env: Env): boolean {
  return /^(1|true|yes|on)$/i.test(env.HF_HUB_OFFLINE ?? '');
}

function suggestionText(ref: string): string {
  const hit = findModel(ref.replace(/@.*$/, ''));
  return !hit.ok && hit.suggestions.length > 0 ? `; closest catalog entries: ${hit.suggestions.join(', ')}` : '';
}

function missingMessage(
  ref: string,
  miss: { hub?: HubRef; hfCache?: string },
  opts: Omit<SyncResolveOptions, 'allowNetwork'>,
): string {
  const where = miss.hub
    ? `not in the built-in catalog, not a local path, not in the Hugging Face cache (${miss.hfCache})`
    : 'not in the built-in catalog, not a local path, and not a Hugging Face repo id';
  const hint = !miss.hub
    ? ''
    : hubOffline(opts.env)
      ? '; HF_HUB_OFFLINE is set, so the Hugging Face Hub is not asked'
      : `; to fetch its config.json from the Hugging Face Hub, allow network access (${opts.networkHint ?? DEFAULT_NETWORK_HINT})`;
  return `unknown model '${ref.trim()}': ${where}${suggestionText(ref.trim())}${hint}`;
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
  // An upload read from its name: its own config.json from the Hub when allowed, the name's reading when that fails.
  if (r.kind === 'found' && r.fromName && online) {
    const fetched = await fetchFromHub(r.fromName, opts);
    if (fetched.ok) return fetched;
  }
  return settle(ref, r, opts);
}

/** A ModelResolver for resolveScenarios that never uses the network. */
export function offlineModelResolver(opts: SyncResolveOptions): ModelResolver {
  return (ref) => resolveModelSync(ref, opts);
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
  return (ref) => known.get(ref) ?? resolveModelSync(ref, { ...opts, allowNetwork: false });
}

// The Hub, reached only when the user allowed network access.

interface HubContext {
  readonly hub: HubRef;
  readonly hubUrl: string;
  readonly timeoutMs: number;
  readonly token?: { readonly token: string; readonly from: string };
  readonly signal: AbortSignal;
  /** X-Error-Code of the last failed response (GatedRepo, RepoNotFound, EntryNotFound...). */
  errorCode?: string;
}

function hubMessage(e: unknown, ctx: HubContext): string {
  const { hub, hubUrl } = ctx;
  const at = hub.revision ? `${hub.id}@${hub.revision}` : hub.id;
  if (ctx.signal.aborted) {
    return (
      `the Hugging Face Hub (${hubUrl}) did not answer within ${ctx.timeoutMs} ms for '${at}'; try again, raise the timeout, ` +
      `or download the config once (hf download ${hub.id} config.json) so the local cache answers`
    );
  }
  if (e instanceof HubApiError) {
    const notFound = `'${at}' was not found on the Hugging Face Hub (${hubUrl})${suggestionText(hub.id)}`;
    if (e.statusCode === 404 || ctx.errorCode === 'RepoNotFound' || ctx.errorCode === 'RevisionNotFound') {
      return ctx.errorCode === 'RevisionNotFound'
        ? `'${at}': the revision '${hub.revision ?? 'main'}' was not found on the Hugging Face Hub (${hubUrl})`
        : `${notFound}${ctx.token ? '' : '; if it is private, set HF_TOKEN'}`;
    }
    if (e.statusCode === 401 || e.statusCode === 403) {
      const why = ctx.token
        ? `the token from ${ctx.token.from} was refused or has no access yet`
        : 'no token was found in HF_TOKEN, HUGGING_FACE_HUB_TOKEN or the saved token file';
      return `'${hub.id}' is gated or private (HTTP ${e.statusCode}): accept the license at ${hubUrl}/${hub.id} and set HF_TOKEN (${why})`;
    }
    return `the Hugging Face Hub answered HTTP ${e.statusCode} for '${at}': ${e.message.split('\n')[0]}`;
  }
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const cause = err.cause?.code ?? err.cause?.message ?? err.message;
  return `could not reach the Hugging Face Hub at ${hubUrl} for '${at}' (${cause})`;
}

async function fetchFromHub(hub: HubRef, opts: AsyncResolveOptions): Promise<ModelResolution> {
  const hubUrl = (opts.hubUrl ?? opts.env.HF_ENDPOINT ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const token = opts.token ? { token: opts.token, from: 'the token option' } : findHfToken(opts.env);
  if (token && !token.token.startsWith('hf_')) {
    return {
      ok: false,
      message: `the token from ${token.from} is not a Hugging Face access token (those start with hf_)`,
    };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const ctx: HubContext = { hub, hubUrl, timeoutMs, token, signal: controller.signal };
  const base = opts.fetch ?? globalThis.fetch;
  // Every answer is checked: one redirected off Hugging Face's hosts, or a config.json over MAX_CONFIG_BYTES, is refused
  // before its body is read.
  const timedFetch: typeof fetch = async (input, init) => {
    const res = await base(input, { ...init, signal: controller.signal });
    const host = res.url ? new URL(res.url).hostname : undefined;
    if (host !== undefined && !hubHost(host, hubUrl)) {
      void res.body?.cancel().catch(() => undefined);
      throw new Error(`the Hub's answer came from ${host}, which is not a Hugging Face host; nothing was read from it`);
    }
    const asked = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const size = Number(res.headers.get('content-length') ?? '0');
    if (/\/config\.json(\?|$)/.test(asked) && size > MAX_CONFIG_BYTES) {
      void res.body?.cancel().catch(() => undefined);
      throw new Error(`config.json is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit; not read`);
    }
    if (!res.ok) ctx.errorCode = res.headers.get('x-error-code') ?? undefined;
    return res;
  };
  const revision = hub.revision ?? 'main';
  const common = { repo: hub.id, revision, hubUrl, fetch: timedFetch, accessToken: token?.token };
  try {
    const blob = await downloadFile({ ...common, path: 'config.json' });
    if (!blob)
      return {
        ok: false,
        message: `'${hub.id}' on the Hugging Face Hub (${hubUrl}) has no config.json at revision ${revision}`,
      };
    let config: unknown;
    try {
      config = JSON.parse(await blob.text());
    } catch {
      return { ok: false, message: `${hubUrl}/${hub.id}/resolve/${revision}/config.json: invalid JSON` };
    }
    if (!isObj(config))
      return { ok: false, message: `${hubUrl}/${hub.id}/resolve/${revision}/config.json: not a config.json object` };

    let counted: LocalCount = { notes: [] };
    try {
      const meta = await parseSafetensorsMetadata({ ...common, computeParametersCount: false });
      const headers = meta.sharded ? Object.values(meta.headers) : [meta.header];
      counted = {
        count: countHeaders(headers, config),
        parameterSource: `safetensors header${meta.filepaths.length > 1 ? 's' : ''} of ${meta.filepaths.join(', ')} at ${hubUrl}/${hub.id} (revision ${revision}), read by ranged requests`,
        notes: [],
      };
    } catch (e) {
      const reason = controller.signal.aborted
        ? `the Hub did not answer within ${timeoutMs} ms`
        : (e as Error).message.split('\n')[0];
      counted = {
        notes: [`no exact parameter count from safetensors headers (${reason}); parameters come from the architecture`],
      };
    }
    const fetchedAt = new Date().toISOString();
    const cacheDir = opts.cacheDir ?? vramLensCacheDir(opts.env);
    const c = counted.count && counted.count.parameters > 0 ? counted.count : undefined;
    const cacheNote = writeOurCache(cacheDir, hub, {
      format: CACHE_FORMAT,
      id: hub.id,
      revision,
      hubUrl,
      fetchedAt,
      config,
      ...(c ? { parameters: c.parameters, parameterSource: counted.parameterSource, dtypes: c.dtypes } : {}),
    });
    const model = assemble(
      hub.id,
      config,
      `Hugging Face Hub ${hubUrl}/${hub.id}/resolve/${revision}/config.json`,
      counted,
      revision,
    );
    return { ok: true, model: cacheNote ? { ...model, notes: [...model.notes, cacheNote] } : model };
  } catch (e) {
    return { ok: false, message: hubMessage(e, ctx) };
  } finally {
    clearTimeout(timer);
  }
}
