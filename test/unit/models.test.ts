// Model resolution from anywhere (src/node/models/): the catalog, local directories and config.json paths, a temporary
// Hugging Face cache layout, and a fake Hub on 127.0.0.1 that serves config.json, real safetensors headers with Range
// support, a gated repo and a route that never answers. No test touches the internet or the real home directory.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import {
  findHfToken,
  hfHubCacheDir,
  prefetchModelResolver,
  readSafetensorsHeader,
  resolveModelAsync,
  resolveModelSync,
  type AsyncResolveOptions,
  type Env,
  type ModelInfo,
  type ModelResolution,
} from '../../src/node/models';
import { quantizationFromConfig } from '../../src/analyzers/checkpoint-quantization';
import { tempDir } from './helpers';

// Building checkpoints with real safetensors headers.

type Tensor = readonly [name: string, dtype: string, shape: readonly number[]];
const DTYPE_BYTES: Record<string, number> = { F32: 4, BF16: 2, F16: 2, U8: 1, I8: 1, I32: 4 };

/** A real safetensors file: 8-byte little-endian header length, the JSON header, then zeroed tensor data. */
function safetensors(tensors: readonly Tensor[], metadata?: Record<string, string>): Buffer {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, dtype, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([len, Buffer.from(json), Buffer.alloc(offset)]);
}

/**
 * A tiny Llama: vocab 32, hidden 8, intermediate 16, 2 layers, 2 heads of size 4, 1 KV head, untied head.
 * Per layer: q 8x8 = 64, k 4x8 = 32, v 4x8 = 32, o 8x8 = 64, gate 16x8 = 128, up 16x8 = 128, down 8x16 = 128
 * (linear: 576), plus two RMSNorm weights of 8 (16), so 592. Two layers: 1184. Embedding 32x8 = 256,
 * lm_head 32x8 = 256, final norm 8. Total 1184 + 256 + 256 + 8 = 1704: 1664 in BF16 and 40 (norms) in F32.
 */
const TINY_PARAMS = 1704;
const tinyConfig = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  vocab_size: 32,
  hidden_size: 8,
  intermediate_size: 16,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
  ...extra,
});
const LINEAR: ReadonlyArray<readonly [string, number, number]> = [
  ['self_attn.q_proj', 8, 8],
  ['self_attn.k_proj', 4, 8],
  ['self_attn.v_proj', 4, 8],
  ['self_attn.o_proj', 8, 8],
  ['mlp.gate_proj', 16, 8],
  ['mlp.up_proj', 16, 8],
  ['mlp.down_proj', 8, 16],
];

/** Tensors of the tiny Llama; `linear` decides how each [out, in] linear weight is stored. */
function tinyTensors(
  linear: (prefix: string, out: number, inp: number) => Tensor[] = (p, o, i) => [[`${p}.weight`, 'BF16', [o, i]]],
  embed = 'BF16',
): Tensor[] {
  const t: Tensor[] = [['model.embed_tokens.weight', embed, [32, 8]]];
  for (let l = 0; l < 2; l++) {
    for (const [name, out, inp] of LINEAR) t.push(...linear(`model.layers.${l}.${name}`, out, inp));
    t.push(
      [`model.layers.${l}.input_layernorm.weight`, 'F32', [8]],
      [`model.layers.${l}.post_attention_layernorm.weight`, 'F32', [8]],
    );
  }
  t.push(['model.norm.weight', 'F32', [8]], ['lm_head.weight', embed, [32, 8]]);
  return t;
}

/** bitsandbytes 4-bit with double quantization: two weights per uint8 byte, as Params4bit saves them, plus its constants. */
const bnb4Linear = (p: string, out: number, inp: number): Tensor[] => [
  [`${p}.weight`, 'U8', [(out * inp) / 2, 1]],
  [`${p}.weight.absmax`, 'U8', [Math.ceil((out * inp) / 64)]],
  [`${p}.weight.nested_absmax`, 'F32', [1]],
  [`${p}.weight.nested_quant_map`, 'F32', [256]],
  [`${p}.weight.quant_map`, 'F32', [16]],
  [`${p}.weight.quant_state.bitsandbytes__nf4`, 'U8', [120]],
];

/** GPTQ 4-bit, group size 8: qweight int32 [in/8, out] holds eight weights per word; qzeros, scales and g_idx are constants. */
const gptqLinear = (p: string, out: number, inp: number): Tensor[] => [
  [`${p}.qweight`, 'I32', [inp / 8, out]],
  [`${p}.qzeros`, 'I32', [inp / 8, Math.ceil(out / 8)]],
  [`${p}.scales`, 'F16', [inp / 8, out]],
  [`${p}.g_idx`, 'I32', [inp]],
];

const BNB4_CONFIG = {
  quant_method: 'bitsandbytes',
  load_in_4bit: true,
  load_in_8bit: false,
  bnb_4bit_quant_type: 'nf4',
  bnb_4bit_use_double_quant: true,
  bnb_4bit_compute_dtype: 'bfloat16',
};

function write(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

/** A model directory: config.json plus the given weight files. */
function modelDir(dir: string, config: Record<string, unknown>, files: Record<string, Buffer | string> = {}): string {
  write(path.join(dir, 'config.json'), JSON.stringify(config));
  for (const [name, data] of Object.entries(files)) write(path.join(dir, name), data);
  return dir;
}

/** Splits the tiny Llama over two shards with an index, as save_pretrained(max_shard_size=...) does. */
function shardedFiles(total?: number): Record<string, Buffer | string> {
  const all = tinyTensors();
  const a = all.slice(0, 10);
  const b = all.slice(10);
  const names = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'];
  const weightMap = Object.fromEntries([...a.map((t) => [t[0], names[0]]), ...b.map((t) => [t[0], names[1]])]);
  return {
    'model.safetensors.index.json': JSON.stringify({
      metadata: { total_size: 3000, ...(total ? { total_parameters: total } : {}) },
      weight_map: weightMap,
    }),
    [names[0]]: safetensors(a, { format: 'pt' }),
    [names[1]]: safetensors(b, { format: 'pt' }),
  };
}

/**
 * A Hugging Face cache entry: blobs/ hold the bytes, snapshots/{commit}/ holds symlinks to them (as huggingface_hub
 * writes them), and refs/{name} holds the commit hash.
 */
function hfCacheEntry(
  cacheDir: string,
  id: string,
  commit: string,
  files: Record<string, Buffer | string>,
  refs: Record<string, string> = { main: commit },
): string {
  const repo = path.join(cacheDir, `models--${id.replace('/', '--')}`);
  for (const [name, data] of Object.entries(files)) {
    const blob = path.join(repo, 'blobs', `${commit.slice(0, 8)}-${name.replace(/[^\w.-]/g, '_')}`);
    write(blob, data);
    const link = path.join(repo, 'snapshots', commit, name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(link), blob), link);
  }
  for (const [ref, hash] of Object.entries(refs)) write(path.join(repo, 'refs', ref), hash);
  return repo;
}

const ok = (r: ModelResolution): ModelInfo => {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.model;
};
const fail = (r: ModelResolution): string => {
  assert.equal(r.ok, false, r.ok ? `unexpectedly resolved from ${r.model.source}` : '');
  return r.ok ? '' : r.message;
};

// The fake Hub.

interface Hit {
  readonly method: string;
  readonly url: string;
  readonly range?: string;
  readonly auth?: string;
}

interface FakeRepo {
  readonly files: Record<string, Buffer | string>;
  /** The Bearer token that opens a gated repo; without it the Hub answers 401, with another token 403. */
  readonly gatedToken?: string;
  /** Never answer, to exercise the timeout. */
  readonly hang?: boolean;
}

const GOOD_TOKEN = 'hf_fake_good_token';

const HUB_REPOS: Record<string, FakeRepo> = {
  'tiny/llama-net': {
    files: {
      'config.json': JSON.stringify(tinyConfig()),
      'model.safetensors': safetensors(tinyTensors(), { format: 'pt' }),
    },
  },
  'tiny/llama-sharded': { files: { 'config.json': JSON.stringify(tinyConfig()), ...shardedFiles() } },
  'tiny/config-only': { files: { 'config.json': JSON.stringify(tinyConfig()) } },
  'gated/llama': {
    files: { 'config.json': JSON.stringify(tinyConfig()), 'model.safetensors': safetensors(tinyTensors()) },
    gatedToken: GOOD_TOKEN,
  },
  'slow/model': { files: {}, hang: true },
};

function serveHub(hits: Hit[], hanging: http.ServerResponse[]): http.Server {
  return http.createServer((req, res) => {
    hits.push({
      method: req.method ?? '',
      url: req.url ?? '',
      range: req.headers.range,
      auth: req.headers.authorization,
    });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/([^/]+\/[^/]+)\/(resolve|raw)\/([^/]+)\/(.+)$/.exec(url.pathname);
    const json = (status: number, code: string, body: object): void => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'X-Error-Code': code });
      res.end(JSON.stringify(body));
    };
    // Like the real Hub, an unknown repo answers 401 to anonymous requests (it could be private) and 404 otherwise.
    const notFound = (): void =>
      json(req.headers.authorization ? 404 : 401, 'RepoNotFound', { error: 'Repository not found' });
    if (!m) return notFound();
    const [, id, , revision, file] = m;
    const repo = HUB_REPOS[id];
    if (!repo) return notFound();
    if (repo.hang) {
      hanging.push(res);
      return;
    }
    if (repo.gatedToken) {
      const auth = req.headers.authorization;
      if (!auth)
        return json(401, 'GatedRepo', {
          error: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
        });
      if (auth !== `Bearer ${repo.gatedToken}`)
        return json(403, 'GatedRepo', {
          error: `Access to model ${id} is restricted and you are not in the authorized list.`,
        });
    }
    if (decodeURIComponent(revision) !== 'main') return json(404, 'RevisionNotFound', { error: 'Invalid rev id' });
    const data = repo.files[decodeURIComponent(file)];
    if (data === undefined) return json(404, 'EntryNotFound', { error: 'Entry not found' });
    const body = Buffer.isBuffer(data) ? data : Buffer.from(data);
    const headers: http.OutgoingHttpHeaders = {
      'Content-Type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream',
      ETag: `"${id.replace('/', '-')}-${file}-${body.length}"`,
      'Accept-Ranges': 'bytes',
    };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : body.length - 1, body.length - 1);
      res.writeHead(206, {
        ...headers,
        'Content-Range': `bytes ${start}-${end}/${body.length}`,
        'Content-Length': end - start + 1,
      });
      res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}

// The tests.

describe('models: resolution from anywhere', () => {
  let tmp: string;
  let home: string;
  let env: Env;
  let server: http.Server;
  let hubUrl: string;
  const hits: Hit[] = [];
  const hanging: http.ServerResponse[] = [];
  const realFetch = globalThis.fetch;

  before(async () => {
    tmp = tempDir('vram-lens-models-');
    home = path.join(tmp, 'home');
    fs.mkdirSync(home, { recursive: true });
    // Only HOME is set, so the default caches and token file lie inside the temporary home.
    env = { HOME: home };
    server = serveHub(hits, hanging);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hubUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    globalThis.fetch = realFetch;
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  let n = 0;
  /** Options for one network test, with a fresh vram-lens cache directory so tests do not see each other's fetches. */
  const net = (extra: Partial<AsyncResolveOptions> = {}): AsyncResolveOptions => ({
    cwd: tmp,
    env,
    allowNetwork: true,
    timeoutMs: 5000,
    hubUrl,
    cacheDir: path.join(tmp, `vl-cache-${++n}`),
    ...extra,
  });

  describe('without network', () => {
    it('answers from the built-in catalog first, even when the HF cache holds a repo of that name', () => {
      const cache = path.join(tmp, 'hf-catalog');
      hfCacheEntry(cache, 'meta-llama/Llama-2-7b-hf', 'a'.repeat(40), { 'config.json': JSON.stringify(tinyConfig()) });
      const m = ok(resolveModelSync('meta-llama/Llama-2-7b-hf', { cwd: tmp, env: { ...env, HF_HUB_CACHE: cache } }));
      assert.match(m.source, /^built-in catalog/);
      assert.equal(m.config.hidden_size, 4096);
    });

    it("a folder an earlier run of the project writes: that run's model, with the file and line that write it", () => {
      // baremetaldevx86/Qwen-2.5-1.5B-GRPO: configs/grpo.yaml trains `model_path: checkpoints/sft`, the output_dir of
      // configs/sft.yaml, which fine-tunes Qwen/Qwen2.5-1.5B; a DPO run may start from that GRPO run's folder in turn.
      const project = tempDir('vram-lens-earlier-run-');
      fs.mkdirSync(path.join(project, '.git'));
      fs.mkdirSync(path.join(project, 'configs'));
      const write = (rel: string, text: string) => fs.writeFileSync(path.join(project, rel), text);
      write('configs/sft.yaml', 'model_path: Qwen/Qwen2.5-1.5B\noutput_dir: checkpoints/sft\n');
      write('configs/grpo.yaml', 'model_path: checkpoints/sft\noutput_dir: checkpoints/grpo\n');
      write('configs/dpo.yaml', 'model_path: ./checkpoints/grpo/\noutput_dir: checkpoints/dpo\n');
      write('configs/eval.yaml', 'model_path: runs/final_model\n');
      write('configs/other.yaml', 'model_path: Qwen/Qwen2.5-7B\noutput_dir: outputs/final_model\n');
      const from = path.join(project, 'configs/grpo.yaml');
      const m = ok(resolveModelSync('checkpoints/sft', { cwd: project, env, from }));
      assert.equal(m.id, 'Qwen/Qwen2.5-1.5B');
      assert.match(
        m.notes?.[0] ?? '',
        /it is the folder configs\/sft\.yaml writes \(output_dir, line 2\), a run that trains Qwen\/Qwen2\.5-1\.5B/,
      );
      // Through the GRPO run to the SFT run's base.
      const dpo = ok(
        resolveModelSync('./checkpoints/grpo/', { cwd: project, env, from: path.join(project, 'configs/dpo.yaml') }),
      );
      assert.equal(dpo.id, 'Qwen/Qwen2.5-1.5B');
      // A common last name (final_model) must match with the folder above it: runs/ is not outputs/.
      const r = resolveModelSync('runs/final_model', {
        cwd: project,
        env,
        from: path.join(project, 'configs/eval.yaml'),
      });
      assert.equal(r.ok, false);
    });

    it('a folder the repository keeps for the model, empty of it, is read as a path not here: its name gives the model', () => {
      // A repository's models/gpt2-medium/ that holds only an __init__.py, named by --model_name_or_path.
      const project = tempDir('vram-lens-kept-folder-');
      fs.mkdirSync(path.join(project, 'models/gpt2-medium'), { recursive: true });
      fs.writeFileSync(path.join(project, 'models/gpt2-medium/__init__.py'), '');
      const m = ok(resolveModelSync('./models/gpt2-medium', { cwd: project, env }));
      assert.equal(m.id, 'openai-community/gpt2-medium');
      assert.match(
        m.notes?.[0] ?? '',
        /holds no config\.json or weights\): estimated as openai-community\/gpt2-medium/,
      );
      // A folder with weights but no config.json is a model folder missing its config: an error.
      fs.writeFileSync(path.join(project, 'models/gpt2-medium/model.safetensors'), '');
      assert.match(
        fail(resolveModelSync('./models/gpt2-medium', { cwd: project, env })),
        /a directory without config\.json/,
      );
    });

    it("a folder a LLaMA-Factory export writes: the merged model's base, through each stage's merge", () => {
      // juyongjiang/CodeUp: run_train_codeup.sh trains, exports (`export_dir: models/..._instruct`, merging the adapter
      // into the author's /hpc2hdd/.../Meta-Llama-3-8B), trains the next stage on that folder, exports it again.
      const project = tempDir('vram-lens-export-');
      fs.mkdirSync(path.join(project, '.git'));
      fs.mkdirSync(path.join(project, 'codeup'));
      const write = (rel: string, text: string) => fs.writeFileSync(path.join(project, rel), text);
      const merge = (base: string, out: string) =>
        `### Note: DO NOT use quantized model or quantization_bit when merging lora adapters\n\n### model\n` +
        `model_name_or_path: ${base}\nadapter_name_or_path: saves/x\nfinetuning_type: lora\n\n### export\nexport_dir: ${out}\n`;
      write('codeup/merge_instruct.yaml', merge('/hpc2hdd/home/me/Models/Meta-Llama-3-8B', 'models/code_instruct'));
      write('codeup/merge_math.yaml', merge('models/code_instruct', 'models/code_math'));
      const from = path.join(project, 'codeup/code.yaml');
      write('codeup/code.yaml', 'model_name_or_path: models/code_math\nstage: sft\n');
      const m = ok(resolveModelSync('models/code_math', { cwd: project, env, from }));
      assert.equal(m.id, 'meta-llama/Meta-Llama-3-8B');
      assert.match(m.notes?.[0] ?? '', /it is the folder codeup\/merge_math\.yaml writes \(export_dir, line 9\)/);
    });

    it('a folder a download step of the project fills: the Hub model it downloads, with the file and line', () => {
      // Mrkuhuo/data-warehouse-learning learn_llm/llm: download_model.py runs `huggingface-cli download
      // --resume-download Qwen/Qwen2.5-1.5B --local-dir autodl-tmp/qwen-1.5b`; pretrain.sh trains that folder.
      const project = tempDir('vram-lens-download-');
      fs.mkdirSync(path.join(project, '.git'));
      const write = (rel: string, text: string) => fs.writeFileSync(path.join(project, rel), text);
      write(
        'download_model.py',
        "import os\nos.environ['HF_ENDPOINT'] = 'https://example.invalid'\n\n" +
          "os.system('huggingface-cli download --resume-download Qwen/Qwen2.5-1.5B --local-dir autodl-tmp/qwen-1.5b')\n",
      );
      write(
        'fetch.py',
        'from huggingface_hub import snapshot_download\nsnapshot_download(repo_id="Qwen/Qwen2.5-7B", local_dir="models/q7")\n',
      );
      write(
        'ms.py',
        'from modelscope import snapshot_download\nsnapshot_download("qwen/Qwen2.5-0.5B", cache_dir="ckpt")\n',
      );
      const from = path.join(project, 'pretrain.sh');
      const m = ok(resolveModelSync('autodl-tmp/qwen-1.5b', { cwd: project, env, from }));
      assert.equal(m.id, 'Qwen/Qwen2.5-1.5B');
      assert.match(
        m.notes?.[0] ?? '',
        /it is the folder download_model\.py downloads Qwen\/Qwen2\.5-1\.5B into \(--local-dir, line 4\)/,
      );
      assert.equal(ok(resolveModelSync('./models/q7', { cwd: project, env, from })).id, 'Qwen/Qwen2.5-7B');
      // ModelScope's cache_dir keeps the id's folders under it.
      const ms = ok(resolveModelSync('ckpt/qwen/Qwen2.5-0.5B', { cwd: project, env, from }));
      assert.equal(ms.id, 'Qwen/Qwen2.5-0.5B');
      assert.match(ms.notes?.[0] ?? '', /ms\.py downloads qwen\/Qwen2\.5-0\.5B into \(cache_dir, line 2\)/);
    });

    it('reads a local model directory and counts its safetensors parameters exactly', () => {
      modelDir(path.join(tmp, 'models', 'tiny'), tinyConfig(), { 'model.safetensors': safetensors(tinyTensors()) });
      const m = ok(resolveModelSync('./models/tiny', { cwd: tmp, env }));
      assert.equal(m.parameters, TINY_PARAMS);
      assert.deepEqual(m.dtypes, { BF16: 1664, F32: 40 });
      assert.equal(m.weightsDtype, 'bf16');
      assert.equal(m.source, `local file ${path.join(tmp, 'models', 'tiny', 'config.json')}`);
      assert.match(m.parameterSource ?? '', /model\.safetensors/);
      assert.equal(m.config.num_hidden_layers, 2);
    });

    it('reads a config.json path, relative to cwd and with ~ expanded', () => {
      modelDir(path.join(home, 'ckpt'), tinyConfig(), { 'model.safetensors': safetensors(tinyTensors()) });
      const rel = ok(resolveModelSync('ckpt/config.json', { cwd: home, env }));
      assert.equal(rel.parameters, TINY_PARAMS);
      const tilde = ok(resolveModelSync('~/ckpt/config.json', { cwd: tmp, env }));
      assert.equal(tilde.source, `local file ${path.join(home, 'ckpt', 'config.json')}`);
      // A JSON file with another name is an architecture on its own; weights beside it are not counted.
      write(path.join(home, 'ckpt', 'arch.json'), JSON.stringify(tinyConfig()));
      assert.equal(ok(resolveModelSync('~/ckpt/arch.json', { cwd: tmp, env })).parameters, undefined);
    });

    it("a relative path not found from cwd is looked for from the naming file's folder and those above it", () => {
      // jie040109/Conda examples/llama/scripts/llama_1b_conda.sh, run from examples/llama: `--model_config
      // configs/llama_1b.json` (the GaLore layout); the checkout's top is the folder with .git.
      const repo = path.join(tmp, 'conda');
      fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
      write(path.join(repo, 'examples', 'llama', 'configs', 'llama_1b.json'), JSON.stringify(tinyConfig()));
      const from = path.join(repo, 'examples', 'llama', 'scripts', 'llama_1b_conda.sh');
      const m = ok(resolveModelSync('configs/llama_1b.json', { cwd: repo, env, from }));
      assert.equal(m.source, `local file ${path.join(repo, 'examples', 'llama', 'configs', 'llama_1b.json')}`);
      // Without the file, or from the checkout's top, it is not there.
      assert.match(fail(resolveModelSync('configs/llama_1b.json', { cwd: repo, env })), /does not exist/);
      const top = path.join(repo, 'run.sh');
      assert.match(fail(resolveModelSync('configs/llama_1b.json', { cwd: repo, env, from: top })), /does not exist/);
    });

    it('names the path when an explicit path does not exist or is not a config', () => {
      assert.match(
        fail(resolveModelSync('./nowhere', { cwd: tmp, env })),
        /model path '\.\/nowhere' does not exist \(no .*nowhere\): point it at a model folder/,
      );
      write(path.join(tmp, 'broken', 'config.json'), '{ "hidden_size": ');
      assert.match(fail(resolveModelSync('./broken', { cwd: tmp, env })), /broken[\\/]config\.json: invalid JSON/);
      fs.mkdirSync(path.join(tmp, 'empty-dir'), { recursive: true });
      // A folder with nothing of a model in it is one kept for it: said so.
      assert.match(
        fail(resolveModelSync('./empty-dir', { cwd: tmp, env })),
        /model path '\.\/empty-dir' holds no model \(.*empty-dir holds no config\.json or weights\)/,
      );
    });

    it('a model path that is not here but whose folder names a catalog model: that model, with a note that says so', () => {
      // open-instruct's scripts/finetune_qlora_with_accelerate.sh loads ../hf_llama2_models/70B.
      const r = ok(resolveModelSync('../hf_llama2_models/70B', { cwd: tmp, env }));
      assert.equal(r.id, 'meta-llama/Llama-2-70b-hf');
      assert.match(
        r.notes.join(' '),
        /'\.\.\/hf_llama2_models\/70B' is not on this machine .*estimated as meta-llama\/Llama-2-70b-hf/,
      );
      // `org/name/` is no Hub id: a folder named after one, not here (ModelScope's snapshot_download(cache_dir='.')).
      const slash = ok(resolveModelSync('Qwen/Qwen-1_8B-Chat/', { cwd: tmp, env }));
      assert.equal(slash.id, 'Qwen/Qwen-1_8B-Chat');
      assert.match(slash.notes.join(' '), /'Qwen\/Qwen-1_8B-Chat\/' is not on this machine/);
      // Nor is a name of three parts or more: a relative folder laid out as <dir>/<org>/<name> (the Hub's layout
      // under a models folder; Sherlock1956/ModelAlignmentFromScratch loads models/Qwen2.5-0.5B/qwen/Qwen2.5-0.5B).
      const nested = ok(resolveModelSync('models/Qwen2.5-0.5B/qwen/Qwen2.5-0.5B', { cwd: tmp, env }));
      assert.equal(nested.id, 'Qwen/Qwen2.5-0.5B');
      assert.match(nested.notes.join(' '), /'models\/Qwen2.5-0.5B\/qwen\/Qwen2.5-0.5B' is not on this machine/);
      // A folder that exists is read, never replaced by its name.
      modelDir(path.join(tmp, 'llama-7b'), tinyConfig(), {});
      assert.equal(ok(resolveModelSync('./llama-7b', { cwd: tmp, env })).parameters, undefined);
      assert.notEqual(ok(resolveModelSync('./llama-7b', { cwd: tmp, env })).id, 'huggyllama/llama-7b');
    });

    it('a GPTQ upload named after a catalog model: its cached config.json wins; without it, the name is read and says so', () => {
      const cache = path.join(tmp, 'hf-hub-cache-gptq');
      const commit = '89abcdef0123456789abcdef0123456789abcdef';
      const id = 'someone/Meta-Llama-3-8B-Instruct-GPTQ';
      const named = ok(resolveModelSync(id, { cwd: tmp, env: { ...env, HF_HUB_CACHE: cache } }));
      assert.equal((named.config.quantization_config as { bits: number }).bits, 4);
      assert.match(named.notes.join(' '), /read from its name as meta-llama\/Meta-Llama-3-8B/);
      const own = { ...tinyConfig(), quantization_config: { quant_method: 'gptq', bits: 8, group_size: 32 } };
      hfCacheEntry(cache, id, commit, { 'config.json': JSON.stringify(own) });
      const cached = ok(resolveModelSync(id, { cwd: tmp, env: { ...env, HF_HUB_CACHE: cache } }));
      assert.equal(cached.revision, commit);
      assert.equal((cached.config.quantization_config as { bits: number }).bits, 8);
    });

    it('finds a model in the HF cache through HF_HUB_CACHE (refs/main -> snapshot) and counts its weights', () => {
      const cache = path.join(tmp, 'hf-hub-cache');
      const commit = '0123456789abcdef0123456789abcdef01234567';
      hfCacheEntry(cache, 'tiny/cached-llama', commit, {
        'config.json': JSON.stringify(tinyConfig()),
        'model.safetensors': safetensors(tinyTensors()),
      });
      const m = ok(resolveModelSync('tiny/cached-llama', { cwd: tmp, env: { ...env, HF_HUB_CACHE: cache } }));
      assert.equal(m.id, 'tiny/cached-llama');
      assert.equal(m.revision, commit);
      assert.equal(m.parameters, TINY_PARAMS);
      assert.equal(
        m.source,
        `Hugging Face cache ${path.join(cache, 'models--tiny--cached-llama', 'snapshots', commit, 'config.json')}`,
      );
      // The Hub matches ids without regard to case; so do we.
      assert.equal(
        ok(resolveModelSync('Tiny/Cached-Llama', { cwd: tmp, env: { ...env, HF_HUB_CACHE: cache } })).revision,
        commit,
      );
    });

    it('finds a model in the HF cache through HF_HOME/hub', () => {
      const hfHome = path.join(tmp, 'hf-home');
      const commit = 'fedcba9876543210fedcba9876543210fedcba98';
      hfCacheEntry(path.join(hfHome, 'hub'), 'tiny/home-llama', commit, {
        'config.json': JSON.stringify(tinyConfig({ hidden_size: 16 })),
      });
      const e = { ...env, HF_HOME: hfHome };
      assert.equal(hfHubCacheDir(e), path.join(hfHome, 'hub'));
      const m = ok(resolveModelSync('tiny/home-llama', { cwd: tmp, env: e }));
      assert.equal(m.config.hidden_size, 16);
      assert.equal(m.parameters, undefined, 'no weights in the snapshot, so no count');
      assert.match(m.source, /hf-home[\\/]hub[\\/]models--tiny--home-llama/);
    });

    it('uses ~/.cache/huggingface/hub by default, any snapshot when refs are missing, and org/name@rev', () => {
      const cache = path.join(home, '.cache', 'huggingface', 'hub');
      const c1 = '1111111111111111111111111111111111111111';
      const c2 = '2222222222222222222222222222222222222222';
      hfCacheEntry(cache, 'tiny/no-refs', c1, { 'config.json': JSON.stringify(tinyConfig()) }, {});
      const noRefs = ok(resolveModelSync('tiny/no-refs', { cwd: tmp, env }));
      assert.equal(noRefs.revision, c1);
      assert.match(noRefs.notes.join(' '), /refs\/main is missing/);

      hfCacheEntry(
        cache,
        'tiny/revs',
        c1,
        { 'config.json': JSON.stringify(tinyConfig({ hidden_size: 8 })) },
        { main: c1 },
      );
      hfCacheEntry(
        cache,
        'tiny/revs',
        c2,
        { 'config.json': JSON.stringify(tinyConfig({ hidden_size: 24 })) },
        { 'v2.0': c2 },
      );
      assert.equal(ok(resolveModelSync('tiny/revs', { cwd: tmp, env })).config.hidden_size, 8);
      assert.equal(ok(resolveModelSync('tiny/revs@v2.0', { cwd: tmp, env })).config.hidden_size, 24);
      assert.equal(ok(resolveModelSync(`tiny/revs@${c2.slice(0, 10)}`, { cwd: tmp, env })).revision, c2);
      assert.match(fail(resolveModelSync('tiny/revs@v9', { cwd: tmp, env })), /unknown model 'tiny\/revs@v9'/);
    });

    it('says where it looked, suggests catalog names and how to allow the network when nothing matches', () => {
      const msg = fail(resolveModelSync('meta-llama/Llama-2-7b-hff', { cwd: tmp, env }));
      assert.match(msg, /unknown model 'meta-llama\/Llama-2-7b-hff'/);
      assert.match(msg, /not in the Hugging Face cache \(.*\.cache[\\/]huggingface[\\/]hub\)/);
      assert.match(msg, /closest catalog entries: .*meta-llama\/Llama-2-7b-hf/);
      assert.match(msg, /allow network access \(--allow-network\)/);
      assert.match(
        fail(resolveModelSync('tiny/x', { cwd: tmp, env, networkHint: 'vramLens.model.allowNetwork' })),
        /vramLens\.model\.allowNetwork/,
      );
    });

    it("reads an unknown fine-tune's Hub id from its name, with a note; not an official publisher's", () => {
      // microsoft/DeepSpeedExamples DeepSpeed-Chat step 3 run_1.3b.sh: the SFT actor of step 1, published as
      // AdamG012/chat-opt-1.3b-sft-deepspeed (OPT-1.3B's architecture).
      const m = ok(resolveModelSync('AdamG012/chat-opt-1.3b-sft-deepspeed', { cwd: tmp, env }));
      assert.equal(m.id, 'facebook/opt-1.3b');
      assert.match(
        m.notes.join(' '),
        /estimated as facebook\/opt-1\.3b, the model its name gives; allow network access/,
      );
      // A missing id of an organisation that publishes catalog models stays an error with the closest names.
      assert.match(fail(resolveModelSync('facebook/opt-1.3b-typo', { cwd: tmp, env })), /closest catalog entries/);
      // No family and size in the name: unresolved.
      assert.match(
        fail(resolveModelSync('CohereLabs/command-a-reasoning-08-2025', { cwd: tmp, env })),
        /unknown model/,
      );
    });

    it("a copy of another machine's Hugging Face cache folder is looked for as the Hub id it is named after", () => {
      // gustavecortal/eliciting_emotional_reasoning configs/config_8b.yaml: base_path is a snapshot folder of a cache
      // copied beside the project (huggingface_hub's repo_folder_name: `models--{org}--{name}`).
      const snap =
        '../pretrained_models/models--gustavecortal--Piaget-8B/snapshots/0867eefc46573b38da23d21fdfd90cc5caafe566';
      const miss = fail(resolveModelSync(snap, { cwd: tmp, env }));
      assert.match(miss, /a Hugging Face cache folder of gustavecortal\/Piaget-8B, which is not on this machine/);
      assert.match(miss, /allow network access \(--allow-network\); or set vramLens.model \(--model\)/);
      assert.doesNotMatch(miss, /closest catalog entries/);
      // A catalog model's folder (its config.json too) is that model, with a note.
      const qwen = ok(
        resolveModelSync('/data/hf/models--Qwen--Qwen2.5-7B/snapshots/abc123/config.json', { cwd: tmp, env }),
      );
      assert.equal(qwen.id, 'Qwen/Qwen2.5-7B');
      assert.match(qwen.notes[0], /is a Hugging Face cache folder of Qwen\/Qwen2\.5-7B, read as that model/);
      // One that this machine's cache holds is read from there.
      const cache = path.join(home, '.cache', 'huggingface', 'hub');
      hfCacheEntry(cache, 'tiny/copied', '3333333333333333333333333333333333333333', {
        'config.json': JSON.stringify(tinyConfig({ hidden_size: 24 })),
      });
      const copied = ok(resolveModelSync('/mnt/other/hub/models--tiny--copied', { cwd: tmp, env }));
      assert.equal(copied.config.hidden_size, 24);
    });

    it('counts a sharded checkpoint through model.safetensors.index.json, and falls back when a shard is missing', () => {
      const dir = modelDir(path.join(tmp, 'sharded'), tinyConfig(), shardedFiles(TINY_PARAMS));
      const m = ok(resolveModelSync(dir, { cwd: tmp, env }));
      assert.equal(m.parameters, TINY_PARAMS);
      assert.match(m.parameterSource ?? '', /index\.json and its 2 shards/);
      fs.rmSync(path.join(dir, 'model-00002-of-00002.safetensors'));
      const partial = ok(resolveModelSync(dir, { cwd: tmp, env }));
      assert.equal(partial.parameters, TINY_PARAMS, 'taken from metadata.total_parameters');
      assert.match(partial.parameterSource ?? '', /total_parameters/);
      assert.match(partial.notes.join(' '), /1 of 2 shards are not in/);
    });

    it('recognises a bitsandbytes 4-bit checkpoint and counts its packed weights as the unquantized model', () => {
      const dir = modelDir(path.join(tmp, 'bnb4'), tinyConfig({ quantization_config: BNB4_CONFIG }), {
        'model.safetensors': safetensors(tinyTensors(bnb4Linear)),
      });
      const m = ok(resolveModelSync(dir, { cwd: tmp, env }));
      assert.deepEqual(m.quantization, { bits: 4, type: 'nf4', double_quant: true, block_size: 64 });
      // The 1152 linear weights sit two per uint8 byte; absmax, quant_map and quant_state are constants, not parameters.
      assert.equal(m.parameters, TINY_PARAMS);
      assert.deepEqual(m.dtypes, { BF16: 512, F32: 40, U8: 1152 });
    });

    it('counts a GPTQ checkpoint: each int32 qweight word holds eight 4-bit weights', () => {
      const config = tinyConfig({
        quantization_config: { quant_method: 'gptq', bits: 4, group_size: 8, desc_act: false, sym: true },
      });
      const dir = modelDir(path.join(tmp, 'gptq'), config, {
        'model.safetensors': safetensors(tinyTensors(gptqLinear, 'F16')),
      });
      const m = ok(resolveModelSync(dir, { cwd: tmp, env }));
      assert.deepEqual(m.quantization, { bits: 4, type: 'gptq', double_quant: false, block_size: 8 });
      assert.equal(m.parameters, TINY_PARAMS);
      assert.equal(m.weightsDtype, 'fp16');
    });

    it('reads a safetensors header: dtype, shape and __metadata__; refuses a truncated file', () => {
      const file = path.join(tmp, 'one.safetensors');
      write(file, safetensors([['w', 'BF16', [3, 5]]], { total_parameters: '15' }));
      const h = readSafetensorsHeader(file);
      assert.deepEqual(h.w, { dtype: 'BF16', shape: [3, 5], data_offsets: [0, 30] });
      assert.equal(h.__metadata__?.total_parameters, '15');
      write(file, safetensors([['w', 'BF16', [3, 5]]]).subarray(0, 40));
      assert.throws(() => readSafetensorsHeader(file), /implausible header length|malformed/);
    });

    it('reports a broken safetensors file as a note and keeps the config', () => {
      const dir = modelDir(path.join(tmp, 'bad-weights'), tinyConfig(), {
        'model.safetensors': Buffer.from('not a safetensors file'),
      });
      const m = ok(resolveModelSync(dir, { cwd: tmp, env }));
      assert.equal(m.parameters, undefined);
      assert.match(m.notes.join(' '), /could not read the safetensors weights/);
    });
  });

  describe('quantizationFromConfig', () => {
    it('maps bitsandbytes, GPTQ and AWQ configs to the TrainingSetup vocabulary', () => {
      assert.equal(quantizationFromConfig(tinyConfig()), undefined);
      assert.deepEqual(quantizationFromConfig({ quantization_config: BNB4_CONFIG }), {
        bits: 4,
        type: 'nf4',
        double_quant: true,
        block_size: 64,
      });
      // transformers' BitsAndBytesConfig defaults to fp4; old configs have no quant_method.
      assert.deepEqual(quantizationFromConfig({ quantization_config: { load_in_4bit: true } }), {
        bits: 4,
        type: 'fp4',
        double_quant: false,
        block_size: 64,
      });
      assert.deepEqual(
        quantizationFromConfig({ quantization_config: { quant_method: 'bitsandbytes', load_in_8bit: true } }),
        { bits: 8, type: 'int8', double_quant: false },
      );
      assert.deepEqual(
        quantizationFromConfig({ quantization_config: { quant_method: 'gptq', bits: 8, group_size: -1 } }),
        { bits: 8, type: 'gptq', double_quant: false, block_size: undefined },
      );
      assert.deepEqual(
        quantizationFromConfig({
          quantization_config: { quant_method: 'awq', bits: 4, group_size: 128, version: 'gemm' },
        }),
        { bits: 4, type: 'awq', double_quant: false, block_size: 128 },
      );
      assert.deepEqual(
        quantizationFromConfig({ quantization_config: { quant_method: 'AWQ', w_bit: 4, q_group_size: 64 } }),
        { bits: 4, type: 'awq', double_quant: false, block_size: 64 },
      );
      assert.equal(quantizationFromConfig({ quantization_config: { quant_method: 'gptq', bits: 3 } }), undefined);
      assert.equal(quantizationFromConfig({ quantization_config: { quant_method: 'fp8' } }), undefined);
    });

    it('leaves a note for a quantization method it does not model', () => {
      const dir = modelDir(
        path.join(tmp, 'fp8'),
        tinyConfig({ quantization_config: { quant_method: 'fp8', weight_block_size: [128, 128] } }),
      );
      assert.match(
        ok(resolveModelSync(dir, { cwd: tmp, env })).notes.join(' '),
        /quantization_config \(fp8\) is not modelled/,
      );
    });
  });

  describe('the Hub (a fake one on 127.0.0.1)', () => {
    it('makes no request at all while the network is not allowed', async () => {
      const before = hits.length;
      let spyCalls = 0;
      const spy: typeof fetch = async (...args) => {
        spyCalls++;
        return realFetch(...args);
      };
      globalThis.fetch = spy;
      try {
        for (const ref of ['tiny/llama-net', 'gated/llama', 'slow/model', 'nobody/nothing']) {
          const msg = fail(await resolveModelAsync(ref, { ...net({ fetch: spy }), allowNetwork: false }));
          assert.match(msg, /allow network access/);
        }
        fail(resolveModelSync('tiny/llama-net', { cwd: tmp, env }));
      } finally {
        globalThis.fetch = realFetch;
      }
      assert.equal(spyCalls, 0, 'fetch was never called');
      assert.equal(hits.length, before, 'the server saw no request');
    });

    it('fetches config.json and counts parameters from the safetensors header by ranged requests', async () => {
      const before = hits.length;
      const opts = net();
      const m = ok(await resolveModelAsync('tiny/llama-net', opts));
      assert.equal(m.source, `Hugging Face Hub ${hubUrl}/tiny/llama-net/resolve/main/config.json`);
      assert.equal(m.config.hidden_size, 8);
      assert.equal(m.parameters, TINY_PARAMS);
      assert.deepEqual(m.dtypes, { BF16: 1664, F32: 40 });
      assert.match(m.parameterSource ?? '', /model\.safetensors .*read by ranged requests/);
      const weightGets = hits.slice(before).filter((h) => h.method === 'GET' && h.url.includes('.safetensors'));
      assert.ok(weightGets.length >= 2, 'the header was fetched');
      assert.ok(
        weightGets.every((h) => h.range !== undefined),
        'every safetensors GET was a ranged request',
      );
      assert.ok(
        fs.existsSync(path.join(opts.cacheDir!, 'models--tiny--llama-net', 'main.json')),
        'the look-up was cached',
      );
    });

    it("refuses an answer redirected off Hugging Face's hosts, and a config.json over 4 MiB, before reading it", async () => {
      const elsewhere: typeof fetch = async (input, init) => {
        const res = await globalThis.fetch(input, init);
        Object.defineProperty(res, 'url', { value: 'https://files.example.com/config.json' });
        return res;
      };
      assert.match(
        fail(await resolveModelAsync('tiny/config-only', net({ fetch: elsewhere }))),
        /came from files\.example\.com, which is not a Hugging Face host/,
      );
      const huge: typeof fetch = async () =>
        new Response('{}', {
          status: 200,
          headers: { 'content-length': String(5 * 1024 * 1024), 'content-type': 'application/json' },
        });
      assert.match(
        fail(await resolveModelAsync('tiny/config-only', net({ fetch: huge }))),
        /config\.json is 5242880 bytes, over the 4194304-byte limit/,
      );
    });

    it('serves a second run from the vram-lens cache with the network off', async () => {
      const opts = net();
      ok(await resolveModelAsync('tiny/llama-net', opts));
      const before = hits.length;
      const offline = ok(resolveModelSync('tiny/llama-net', { cwd: tmp, env, cacheDir: opts.cacheDir }));
      assert.match(
        offline.source,
        /^vram-lens cache .*main\.json \(fetched from http:\/\/127\.0\.0\.1:\d+\/tiny\/llama-net on /,
      );
      assert.equal(offline.parameters, TINY_PARAMS);
      assert.deepEqual(offline.dtypes, { BF16: 1664, F32: 40 });
      const again = ok(await resolveModelAsync('tiny/llama-net', { ...opts, allowNetwork: false }));
      assert.equal(again.parameters, TINY_PARAMS);
      ok(await resolveModelAsync('tiny/llama-net', opts));
      assert.equal(hits.length, before, 'no request once cached');
    });

    it('counts a sharded repo on the Hub through its index', async () => {
      const m = ok(await resolveModelAsync('tiny/llama-sharded', net()));
      assert.equal(m.parameters, TINY_PARAMS);
      assert.match(
        m.parameterSource ?? '',
        /model\.safetensors\.index\.json, model-00001-of-00002\.safetensors, model-00002-of-00002\.safetensors/,
      );
    });

    it('keeps the config and leaves a note when the repo has no safetensors weights', async () => {
      const m = ok(await resolveModelAsync('tiny/config-only', net()));
      assert.equal(m.parameters, undefined);
      assert.match(m.notes.join(' '), /no exact parameter count from safetensors headers/);
    });

    it('explains a gated repo (401 without a token): accept the license and set HF_TOKEN', async () => {
      const msg = fail(await resolveModelAsync('gated/llama', net()));
      assert.match(
        msg,
        new RegExp(
          `'gated/llama' is gated or private \\(HTTP 401\\): accept the license at ${hubUrl}/gated/llama and set HF_TOKEN`,
        ),
      );
      assert.match(msg, /no token was found/);
      const wrong = fail(await resolveModelAsync('gated/llama', net({ env: { ...env, HF_TOKEN: 'hf_wrong' } })));
      assert.match(wrong, /HTTP 403.*the token from HF_TOKEN was refused/);
    });

    it('sends HF_TOKEN, or the saved token file, as a Bearer token and opens the gated repo', async () => {
      const before = hits.length;
      const m = ok(await resolveModelAsync('gated/llama', net({ env: { ...env, HF_TOKEN: GOOD_TOKEN } })));
      assert.equal(m.parameters, TINY_PARAMS);
      assert.ok(
        hits.slice(before).every((h) => h.auth === `Bearer ${GOOD_TOKEN}`),
        'every request carried the token',
      );

      const hfHome = path.join(tmp, 'token-home');
      write(path.join(hfHome, 'token'), `${GOOD_TOKEN}\n`);
      const e = { ...env, HF_HOME: hfHome };
      assert.deepEqual(findHfToken(e), { token: GOOD_TOKEN, from: path.join(hfHome, 'token') });
      assert.equal(ok(await resolveModelAsync('gated/llama', net({ env: e }))).parameters, TINY_PARAMS);
      assert.equal(findHfToken({ ...e, HUGGING_FACE_HUB_TOKEN: 'hf_other' })?.from, 'HUGGING_FACE_HUB_TOKEN');
    });

    it('answers a missing repo (401 RepoNotFound anonymously, 404 with a token) with the closest catalog names', async () => {
      const msg = fail(await resolveModelAsync('meta-llama/Llama-2-7b-hff', net()));
      assert.match(
        msg,
        /'meta-llama\/Llama-2-7b-hff' was not found on the Hugging Face Hub \(http:\/\/127\.0\.0\.1:\d+\)/,
      );
      assert.match(msg, /closest catalog entries: .*meta-llama\/Llama-2-7b-hf/);
      assert.match(msg, /if it is private, set HF_TOKEN/);
      const withToken = fail(await resolveModelAsync('meta-llama/Llama-2-7b-hff', net({ token: GOOD_TOKEN })));
      assert.match(
        withToken,
        /was not found on the Hugging Face Hub .*closest catalog entries: meta-llama\/Llama-2-7b-hf, [^;]*$/,
      );
    });

    it('a Hub id read from its name alone takes the Hub answer when the network is allowed, a missing repo too', async () => {
      const msg = fail(await resolveModelAsync('someone/llama-2-7b-chat-sft', net()));
      assert.match(msg, /'someone\/llama-2-7b-chat-sft' was not found on the Hugging Face Hub/);
    });

    it('honours HF_HUB_OFFLINE even when the network is allowed', async () => {
      const before = hits.length;
      const msg = fail(await resolveModelAsync('tiny/llama-net', net({ env: { ...env, HF_HUB_OFFLINE: '1' } })));
      assert.match(msg, /HF_HUB_OFFLINE is set/);
      assert.equal(hits.length, before);
    });

    it('prefetches for the synchronous resolver that resolveScenarios takes', async () => {
      const resolver = await prefetchModelResolver(['tiny/llama-net', 'gpt2'], net());
      const r = resolver('tiny/llama-net');
      assert.ok(r.ok && r.model.parameters === TINY_PARAMS && r.model.source.startsWith('Hugging Face Hub'));
      assert.ok(resolver('gpt2').ok);
      const before = hits.length;
      assert.equal(resolver('tiny/llama-sharded').ok, false, 'anything not prefetched is resolved offline');
      assert.equal(hits.length, before);
    });

    it('gives up after the timeout with a clear message', async () => {
      const t0 = Date.now();
      const msg = fail(await resolveModelAsync('slow/model', net({ timeoutMs: 200 })));
      assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
      assert.match(msg, /did not answer within 200 ms for 'slow\/model'/);
    });

    it('says so when the Hub cannot be reached', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const msg = fail(await resolveModelAsync('tiny/llama-net', net({ hubUrl: `http://127.0.0.1:${port}` })));
      assert.match(
        msg,
        /could not reach the Hugging Face Hub at http:\/\/127\.0\.0\.1:\d+ for 'tiny\/llama-net' \(ECONNREFUSED\)/,
      );
    });
  });
});
