// Catalog look-ups: tolerant names, sizes, and suggestions.
import * as assert from 'node:assert/strict';
import { GPU_CATALOG } from '../../src/core/catalog/gpus';
import { findGpu, findModel, nameParts, suggestModels } from '../../src/core/lookup';
import { countParameters, parseArchitecture } from '../../src/core/architecture';

describe('lookup', () => {
  it('finds GPUs by catalog name with any case or spacing', () => {
    for (const n of ['A100-80GB', 'a100 80gb', 'H100-80GB', 'rtx 4090', 'RTX-4090', 'L4', 't4'])
      assert.ok(findGpu(n).ok, n);
  });
  it('has at least 30 accelerators including consumer cards and AMD', () => {
    assert.ok(GPU_CATALOG.length >= 30);
    for (const n of [
      'RTX-3060',
      'RTX-3090',
      'RTX-4090',
      'RTX-5090',
      'T4',
      'L4',
      'L40S',
      'A10G',
      'V100-16GB',
      'V100-32GB',
      'A100-40GB',
      'A100-80GB',
      'H100-80GB',
      'H200',
      'B200',
      'MI250X',
      'MI300X',
    ]) {
      assert.ok(findGpu(n).ok, `${n} in catalog`);
    }
  });
  it("judges a catalog GPU by what CUDA gives a process, not nvidia-smi's Total, and says where the figure was printed", () => {
    const gib = 1024 ** 3;
    const mib = 1024 ** 2;
    // The GPU truth's H100 80GB HBM3: torch total_memory 85,017,493,504 B (tools/truth/gpu/results), 81,559 MiB Total.
    const h100 = findGpu('H100-80GB');
    assert.ok(h100.ok);
    assert.equal(h100.gpu.memoryBytes, 85_017_493_504);
    assert.match(
      h100.gpu.source,
      /79\.2 GiB that CUDA gives a process \(nvidia-smi Total 79\.6 GiB less what the driver keeps/,
    );
    // An A100-SXM4-40GB's out-of-memory messages with driver 525: "39.39 GiB total capacity" (lm-sys/FastChat#407's period).
    const a100 = findGpu('a100 40gb');
    assert.ok(a100.ok);
    assert.equal(a100.gpu.memoryBytes, Math.round(39.39 * gib));
    // No printed figure for the RTX 3090 Ti: its Total (24,564 MiB), and the source says so.
    const ti = findGpu('RTX-3090-Ti');
    assert.ok(ti.ok);
    assert.equal(ti.gpu.memoryBytes, 24564 * mib);
    assert.match(ti.gpu.source, /no source gave for this GPU/);
    // Every figure is below its Total, by the 0.1-0.9 GiB drivers keep (104 MiB on the P100, 881 MiB on the A100 80GB).
    for (const g of GPU_CATALOG.filter((x) => x.cudaTotal)) {
      const kept = g.memoryBytes - g.cudaTotal!.bytes;
      assert.ok(kept > 100 * mib && kept < 0.9 * gib, `${g.id}: ${kept / mib} MiB kept`);
    }
  });
  it('reads sizes: 24GiB, 80 GB, 16g', () => {
    const g = findGpu('24GiB');
    assert.ok(g.ok);
    assert.equal(g.gpu.memoryBytes, 24 * 2 ** 30);
    assert.ok(findGpu('80 GB').ok);
  });
  it('suggests close names for typos', () => {
    const g = findGpu('H100-81GB');
    assert.equal(g.ok, false);
    assert.ok(!g.ok && g.suggestions.includes('H100-80GB'));
  });
  it("reads Unsloth's Phi-3 copies in Mistral's layout: q, k, v, gate and up unfused, the same parameters", () => {
    // NickKornienko/CMPE-297-HW3's Unsloth_healthchatbix.ipynb prints "Fast Mistral patching" and "patched 32 layers
    // with 32 QKV layers, 32 O layers and 32 MLP layers" for unsloth/Phi-3-mini-4k-instruct: LoRA r 16 on q, k, v, o,
    // gate, up and down is 32 layers x 16 x (4 x (3,072 + 3,072) + 3 x (3,072 + 8,192)) = 29,884,416 parameters.
    for (const name of ['unsloth/Phi-3-mini-4k-instruct', 'unsloth/Phi-3.5-mini-instruct-bnb-4bit']) {
      const hit = findModel(name);
      assert.ok(hit.ok, name);
      assert.equal(hit.model.config.model_type, 'mistral', name);
      const base = findModel(hit.model.derivedFrom ?? '');
      assert.ok(base.ok && base.model.config.model_type === 'phi3', name);
      assert.equal(hit.model.publishedParams, base.model.publishedParams, name);
      const arch = parseArchitecture(hit.model.config);
      assert.ok(
        arch.ok &&
          countParameters(arch.arch).total ===
            countParameters(
              (parseArchitecture(base.model.config) as { ok: true; arch: Parameters<typeof countParameters>[0] }).arch,
            ).total,
        name,
      );
    }
    assert.ok(
      findModel('unsloth/Phi-3.5-mini-instruct-bnb-4bit').ok &&
        (
          findModel('unsloth/Phi-3.5-mini-instruct-bnb-4bit') as {
            model: { config: { quantization_config?: unknown } };
          }
        ).model.config.quantization_config,
    );
    const lora = 32 * 16 * (4 * (3072 + 3072) + 2 * (3072 + 8192) + (8192 + 3072));
    assert.equal(lora, 29_884_416);
    // Microsoft's own stays phi3.
    const own = findModel('microsoft/Phi-3-mini-4k-instruct');
    assert.ok(own.ok && own.model.config.model_type === 'phi3');
  });

  it("reads Unsloth's bnb-4bit uploads as their base model with an NF4 double-quantized quantization_config", () => {
    for (const [name, base] of [
      ['unsloth/Meta-Llama-3.1-8B-bnb-4bit', 'meta-llama/Llama-3.1-8B'],
      ['unsloth/Qwen2.5-7B-Instruct-bnb-4bit', 'Qwen/Qwen2.5-7B'],
      ['unsloth/Qwen3-8B-unsloth-bnb-4bit', 'Qwen/Qwen3-8B'],
      ['unsloth/llama-3-8b-Instruct-bnb-4bit', 'meta-llama/Meta-Llama-3-8B'],
      // The short names of Unsloth's early uploads (its 2024 notebooks' fourbit_models list).
      ['unsloth/mistral-7b-bnb-4bit', 'mistralai/Mistral-7B-v0.1'],
      ['unsloth/llama-2-7b-chat-bnb-4bit', 'meta-llama/Llama-2-7b-chat-hf'],
      ['unsloth/codellama-34b-bnb-4bit', 'codellama/CodeLlama-34b-hf'],
      ['unsloth/tinyllama-bnb-4bit', 'TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T'],
      ['unsloth/zephyr-sft-bnb-4bit', 'HuggingFaceH4/mistral-7b-sft-beta'],
      ['unsloth/solar-10.7b-bnb-4bit', 'upstage/SOLAR-10.7B-v1.0'],
    ]) {
      const hit = findModel(name);
      const b = findModel(base);
      assert.ok(hit.ok && b.ok, name);
      assert.equal(hit.model.id, name);
      assert.equal(hit.model.config.hidden_size, b.model.config.hidden_size, name);
      assert.equal(hit.model.publishedParams, b.model.publishedParams, name);
      assert.deepEqual(hit.model.config.quantization_config, {
        bnb_4bit_compute_dtype: 'bfloat16',
        bnb_4bit_quant_type: 'nf4',
        bnb_4bit_use_double_quant: true,
        load_in_4bit: true,
        load_in_8bit: false,
        quant_method: 'bitsandbytes',
      });
    }
    assert.match(
      findModel('unsloth/Qwen3-8B-unsloth-bnb-4bit').ok
        ? (findModel('unsloth/Qwen3-8B-unsloth-bnb-4bit') as { model: { source: string } }).model.source
        : '',
      /dynamic 4-bit/,
    );
    assert.equal(findModel('unsloth/not-a-model-bnb-4bit').ok, false);
    // The short names are Unsloth's only: another organisation's bare `mistral-7b` stays unknown.
    assert.equal(findModel('unsloth/mistral-7b').ok, true);
    assert.equal(findModel('mistralai/Mistral-7B').ok, false);
  });
  it('reads GPTQ / AWQ uploads named after a catalog model as that model, with the bit width from the name (4 when absent)', () => {
    const cases: Array<[string, string, 'gptq' | 'awq', number]> = [
      ['TechxGenus/Meta-Llama-3-8B-Instruct-GPTQ', 'meta-llama/Meta-Llama-3-8B', 'gptq', 4], // LLaMA-Factory's lora_gptq example
      ['Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8', 'Qwen/Qwen2.5-7B', 'gptq', 8],
      ['Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4', 'Qwen/Qwen2.5-7B', 'gptq', 4],
      ['Qwen/Qwen2.5-7B-Instruct-AWQ', 'Qwen/Qwen2.5-7B', 'awq', 4],
      ['casperhansen/llama-3-8b-instruct-awq', 'meta-llama/Meta-Llama-3-8B', 'awq', 4],
      ['TheBloke/Llama-2-13B-chat-GPTQ', 'meta-llama/Llama-2-13b-hf', 'gptq', 4], // TheBloke drops Meta's '-hf'
      // Qwen's first release: AutoGPTQ uploads named -Int4 / -Int8 (QwenLM/Qwen finetune/finetune_qlora_ds.sh).
      ['Qwen/Qwen-7B-Chat-Int4', 'Qwen/Qwen-7B-Chat', 'gptq', 4],
      ['Qwen/Qwen-1_8B-Chat-Int8', 'Qwen/Qwen-1_8B-Chat', 'gptq', 8],
    ];
    for (const [name, base, method, bits] of cases) {
      const hit = findModel(name);
      const b = findModel(base);
      assert.ok(hit.ok && b.ok, name);
      assert.equal(hit.model.id, name);
      assert.equal(hit.model.config.hidden_size, b.model.config.hidden_size, name);
      const q = hit.model.config.quantization_config as { quant_method: string; bits: number; group_size: number };
      assert.deepEqual([q.quant_method, q.bits, q.group_size], [method, bits, 128], name);
      assert.match(hit.model.source, /group size 128 assumed/);
    }
    // A listed GPTQ checkpoint keeps its own config; an unknown base stays unknown.
    const listed = findModel('TheBloke/Llama-2-7B-GPTQ');
    assert.ok(listed.ok && !/assumed/.test(listed.model.source));
    assert.equal(findModel('someone/not-a-model-GPTQ').ok, false);
    assert.equal(findModel('someone/Llama-2-7b-hf-Int4').ok, false);
  });

  it('reads 16-bit uploads named after a catalog model with the dtype as a suffix as that model, unquantized', () => {
    // georgesung/llm_qlora configs/llama2_7b_orca.yaml: base_model: TheBloke/Llama-2-7B-fp16.
    const cases: [string, string][] = [
      ['TheBloke/Llama-2-7B-fp16', 'meta-llama/Llama-2-7b-hf'],
      ['TheBloke/Llama-2-13B-Chat-fp16', 'meta-llama/Llama-2-13b-chat-hf'],
      ['someone/Mistral-7B-v0.1-bf16', 'mistralai/Mistral-7B-v0.1'],
    ];
    for (const [name, base] of cases) {
      const hit = findModel(name);
      const b = findModel(base);
      assert.ok(hit.ok && b.ok, name);
      assert.deepEqual([hit.model.id, hit.model.derivedFrom], [name, b.model.id], name);
      assert.deepEqual(hit.model.config, b.model.config, name);
    }
    assert.equal(findModel('someone/not-a-model-fp16').ok, false);
  });
  it("reads another training stage of a listed model from the same organisation as that model's architecture", () => {
    // yangjianxin1/Firefly's train_args/sft/full/minicpm-2b-sft-full.json trains openbmb/MiniCPM-2B-dpo-fp16, the DPO
    // checkpoint of the listed openbmb/MiniCPM-2B-sft-bf16 (one config.json for both).
    const hit = findModel('openbmb/MiniCPM-2B-dpo-fp16');
    const base = findModel('openbmb/MiniCPM-2B-sft-bf16');
    assert.ok(hit.ok && base.ok);
    assert.deepEqual(
      [hit.model.derivedFrom, hit.model.derivedAs],
      [base.model.id, '(the same model at another training stage)'],
    );
    assert.deepEqual(hit.model.config, base.model.config);
    // Names that differ in more than the stage or dtype words (a version, a size, another organisation) are not it.
    for (const other of ['mistralai/Mistral-7B-Instruct-v0.9', 'openbmb/MiniCPM-3B-dpo', 'someone/MiniCPM-2B-dpo'])
      assert.equal(findModel(other).ok, false, other);
  });
  it("reads ModelScope's download folder name, a dot written as three underscores, as the model", () => {
    // Prado1316/llm-complex-reasoning's README: `python src/train.py --model_name_or_path qwen/Qwen2-0___5B-Instruct`.
    const hit = findModel('qwen/Qwen2-0___5B-Instruct');
    const base = findModel('Qwen/Qwen2-0.5B-Instruct');
    assert.ok(hit.ok && base.ok);
    assert.deepEqual(hit.model.config, base.model.config);
  });
  it('finds models by id, alias and bare name', () => {
    assert.ok(findModel('meta-llama/Llama-2-7b-hf').ok);
    assert.ok(findModel('META-LLAMA/LLAMA-2-7B-HF').ok);
    assert.ok(findModel('gpt2').ok);
  });
  it("QwQ-32B is Qwen2.5-32B; Phi-3.5-mini has Phi-3-mini's 3,821,079,552 parameters and its own 128k context", () => {
    // QwQ-32B config.json: hidden 5120, 64 layers, 40 heads / 8 kv, MLP 27648, vocab 152064, untied (Qwen2.5-32B's).
    const qwq = findModel('Qwen/QwQ-32B');
    assert.ok(qwq.ok && qwq.model.id === 'Qwen/Qwen2.5-32B');
    // Phi-3.5-mini: 32 layers x (4 x 3072² attention + 3 x 3072 x 8192 MLP + 2 x 3072 norms) + 2 x 32064 x 3072
    // (embedding, untied head) + 3072 final norm = 3,821,079,552 (its model card: 3.8B).
    const phi = findModel('microsoft/Phi-3.5-mini-instruct');
    assert.ok(phi.ok);
    assert.equal(32 * (4 * 3072 * 3072 + 3 * 3072 * 8192 + 2 * 3072) + 2 * 32064 * 3072 + 3072, 3_821_079_552);
    const arch = parseArchitecture(phi.model.config);
    assert.ok(arch.ok);
    assert.equal(countParameters(arch.arch).total, 3_821_079_552);
    assert.equal(phi.model.config.max_position_embeddings, 131072);
  });
  it('finds the -2507 Qwen3 refreshes under their own ids (same architecture as the original release)', () => {
    // Qwen3-4B-Instruct-2507 and Qwen3-30B-A3B-Instruct-2507 config.json differ from the April 2025 release only in
    // max_position_embeddings / rope_theta; the corpus's Axolotl and LLaMA-Factory configs name them.
    const small = findModel('Qwen/Qwen3-4B-Instruct-2507');
    assert.ok(small.ok && small.model.id === 'Qwen/Qwen3-4B');
    const moe = findModel('qwen/qwen3-30b-a3b-instruct-2507');
    assert.ok(moe.ok && moe.model.id === 'Qwen/Qwen3-30B-A3B');
  });

  describe('suggestions for an unknown model: its family first, nearest in size; edit distance only breaks ties', () => {
    const suggested = (name: string): readonly string[] => {
      const r = findModel(name);
      assert.ok(!r.ok, `${name} is listed`);
      return r.suggestions;
    };
    it('reads the family and the size from a name', () => {
      const parts = (n: string): [string, string, number | undefined] => {
        const p = nameParts(n);
        return [p.org, p.family, p.size];
      };
      assert.deepEqual(parts('facebook/opt-1.3b'), ['facebook', 'opt', 1.3e9]);
      assert.deepEqual(parts('meta-llama/Llama-2-7b-hf'), ['meta-llama', 'llama-2', 7e9]);
      assert.deepEqual(parts('Qwen/Qwen2.5-Coder-7B-Instruct'), ['qwen', 'qwen2.5-coder', 7e9]);
      assert.deepEqual(parts('EleutherAI/pythia-410m-deduped'), ['eleutherai', 'pythia', 410e6]);
      assert.deepEqual(parts('mistralai/Mixtral-8x7B-v0.1'), ['mistralai', 'mixtral', 56e9]);
      assert.deepEqual(parts('bert-base-uncased'), ['', 'bert', undefined]);
      assert.deepEqual([...nameParts('meta-llama/Meta-Llama-3-8B-Instruct').words], ['llama']);
    });
    it('an unknown OPT gets OPT sizes, nearest first, never RoBERTa', () => {
      assert.deepEqual(suggested('facebook/opt-175b'), ['facebook/opt-66b', 'facebook/opt-30b', 'facebook/opt-13b']);
      const s = suggested('facebook/opt-1.3b-my-finetune');
      assert.equal(s[0], 'facebook/opt-1.3b');
      assert.ok(
        s.every((id) => id.startsWith('facebook/opt-')),
        s.join(', '),
      );
      assert.deepEqual(suggestModels('facebook/opt-1.3b'), [
        'facebook/opt-1.3b',
        'facebook/opt-2.7b',
        'facebook/opt-350m',
      ]);
    });
    it('sizes pick within the family: Pythia 6B -> 6.9B, a 34B Llama 2 -> the 70B and 13B, a 1B StarCoder2 -> 3B', () => {
      assert.equal(suggested('EleutherAI/pythia-6b')[0], 'EleutherAI/pythia-6.9b');
      assert.deepEqual(suggested('meta-llama/Llama-2-34b-hf'), [
        'meta-llama/Llama-2-70b-hf',
        'meta-llama/Llama-2-13b-hf',
        'meta-llama/Llama-2-7b-hf',
      ]);
      assert.equal(suggested('bigcode/starcoder2-1b')[0], 'bigcode/starcoder2-3b');
      assert.equal(suggested('Qwen/Qwen4-8B')[0], 'Qwen/Qwen3-8B'); // a family word in common (qwen), then the size
    });
    it('a name that shares nothing with the catalog falls back to the closest spellings', () => {
      assert.equal(suggested('totally-unknown-model-name').length, 3);
    });
    it('is bounded: a 100 KB name costs about what a short one does (first 200 characters, no edit distance past them)', () => {
      suggested('warm-up/the-catalog-7b');
      const time = (name: string): number => {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < 5; i++) findModel(name);
        return Number(process.hrtime.bigint() - t0) / 5 / 1e6;
      };
      const huge = `facebook/opt-${'9'.repeat(100_000)}b`;
      assert.equal(suggested(huge).length, 3);
      assert.ok(suggested(huge).every((id) => id.startsWith('facebook/opt-')));
      const ms = time(huge);
      assert.ok(ms < 20, `${ms.toFixed(2)} ms for a 100 KB name`);
      assert.ok(time('x'.repeat(100_000)) < 20);
      // GPU names are bounded the same way.
      const t0 = process.hrtime.bigint();
      assert.equal(findGpu('H'.repeat(100_000)).ok, false);
      assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 20);
    });
  });
});
