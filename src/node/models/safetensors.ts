// Safetensors headers: exact parameter counts without reading the weights.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  computeNumOfParamsByDtypeSingleFile,
  type QuantizationConfig,
  type SafetensorsFileHeader,
} from '@huggingface/hub';
import { quantConfigOf, quantMethodOf } from '../../analyzers/checkpoint-quantization';
import type { HfConfig } from '../../core';
import { checkRegularFile, readBounded, type ReadPolicy } from '../read';
import type { ModelInfo } from './types';

/** Safetensors headers above this size are refused (the largest real MoE headers are a few MB). */
const MAX_HEADER_BYTES = 100_000_000;

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

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

export interface Count {
  readonly parameters: number;
  readonly dtypes: Record<string, number>;
}

/**
 * Counts parameters exactly: the sum of shape products over all tensors. Quantized checkpoints are counted as their
 * unquantized models by @huggingface/hub's counter: bitsandbytes 4-bit keeps two weights per uint8 byte and GPTQ/AWQ
 * qweight int32 words hold 32/bits weights, while the quantization constants (absmax, quant_map, quant_state,
 * qzeros, scales, g_idx) are left out. bitsandbytes 8-bit row scales (SCB, weight_format) are left out here.
 */
export function countHeaders(headers: readonly SafetensorsFileHeader[], config: HfConfig): Count {
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

export function dominantFloat(dtypes: Readonly<Record<string, number>>): ModelInfo['weightsDtype'] {
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

export interface LocalCount {
  readonly count?: Count;
  readonly parameterSource?: string;
  readonly notes: string[];
}

/** A shard name from an index must stay inside the model directory. */
export function insideDir(dir: string, name: string): string | undefined {
  const p = path.resolve(dir, name);
  const rel = path.relative(dir, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? p : undefined;
}

/** The JSON in a file read through the bounded reader; a refusal or a parse failure says why, never what it held. */
export function readJsonFile(
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
export function countLocalWeights(dir: string, config: HfConfig, policy: ReadPolicy): LocalCount {
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
