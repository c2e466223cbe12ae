// Parameter counts against published figures (model cards, safetensors totals, papers).
import * as assert from 'node:assert/strict';
import {
  countParameters,
  FAMILY_TRAITS,
  FUSED_EXPERT_FAMILIES,
  linearModules,
  peftDefaultLoraTargets,
  parseArchitecture,
  type Architecture,
  type Family,
  type FamilyTraits,
} from '../../src/core/architecture';
import { MODEL_CATALOG } from '../../src/core/catalog/models';
import type { HfConfig } from '../../src/core/setup';
import { catalogModel, findModel } from '../../src/core/lookup';

/** The parsed architecture of a catalog model. */
function archOf(id: string): Architecture {
  const m = findModel(id);
  assert.ok(m.ok, id);
  const r = parseArchitecture(m.model.config);
  assert.ok(r.ok, JSON.stringify(r.problems));
  return r.arch;
}

function count(id: string, head?: Parameters<typeof countParameters>[1]): number {
  return countParameters(archOf(id), head).total;
}

describe('architecture: exact parameter counts', () => {
  // Published totals: model cards / safetensors metadata (see the catalog `source` of each entry).
  const published: Array<[string, number, Parameters<typeof countParameters>[1]?]> = [
    ['meta-llama/Llama-2-7b-hf', 6_738_415_616],
    ['meta-llama/Meta-Llama-3-8B', 8_030_261_248],
    ['mistralai/Mistral-7B-v0.1', 7_241_732_096],
    ['openai-community/gpt2', 124_439_808],
    ['mistralai/Mixtral-8x7B-v0.1', 46_702_792_704],
    ['meta-llama/Llama-3.2-3B', 3_212_749_824],
    ['meta-llama/Llama-3.1-70B', 70_553_706_496],
    ['google-bert/bert-large-uncased', 335_141_888, 'none'], // BertModel with pooler
    ['Qwen/Qwen-7B-Chat', 7_721_324_544], // Qwen v1: config intermediate_size is twice the projection width
    ['openai/gpt-oss-20b', 20_914_757_184], // gpt-oss model card (arXiv 2508.10925), Table 1: 20.91B
    ['openai/gpt-oss-120b', 116_829_156_672], // Table 1: 116.83B
    ['google/gemma-3-1b-pt', 999_885_952], // text-only, safetensors metadata
    ['google/gemma-3-4b-pt', 4_300_079_472], // with the SigLIP tower and projector
    ['google/gemma-3-12b-pt', 12_187_325_040],
    ['google/gemma-3-27b-pt', 27_432_406_640],
  ];
  for (const [id, n, head] of published) {
    it(`${id} has ${n.toLocaleString('en-US')} parameters`, () => assert.equal(count(id, head), n));
  }

  it('DistilBERT: its three heads as transformers 5.17 builds them (DistilBertConfig() with each checkpoint vocabulary)', () => {
    // sum(p.numel() for p in cls(DistilBertConfig(vocab_size=V)).parameters()) for DistilBertForMaskedLM, DistilBertModel
    // and DistilBertForSequenceClassification (num_labels 2): uncased 30,522 words, cased 28,996, multilingual 119,547.
    const expected: Array<[string, number, number, number]> = [
      ['distilbert/distilbert-base-uncased', 66_985_530, 66_362_880, 66_955_010],
      ['distilbert/distilbert-base-cased', 65_812_036, 65_190_912, 65_783_042],
      ['distilbert/distilbert-base-multilingual-cased', 135_445_755, 134_734_080, 135_326_210],
    ];
    for (const [id, mlm, bare, cls] of expected)
      assert.deepEqual([count(id, 'masked_lm'), count(id, 'none'), count(id, 'seq_cls')], [mlm, bare, cls], id);
    // PEFT's default LoRA targets for the family, and the modules they name.
    const a = archOf('distilbert/distilbert-base-uncased');
    assert.deepEqual(peftDefaultLoraTargets('distilbert'), ['q_lin', 'v_lin']);
    assert.deepEqual(
      linearModules(a).map((m) => m.name),
      ['q_lin', 'k_lin', 'v_lin', 'out_lin', 'lin1', 'lin2'],
    );
    assert.deepEqual([a.typeVocab, a.maxPositions, a.positions, a.ffn], [0, 512, 'learned', 3072]);
  });

  it('DeBERTa-v3: its three heads as transformers 5.17 builds them; the bare encoders are the published sizes', () => {
    // sum(p.numel() for p in cls(DebertaV2Config(...)).parameters()) for DebertaV2ForMaskedLM, DebertaV2Model and
    // DebertaV2ForSequenceClassification (num_labels 2), each catalog entry's config.json fields. The bare encoders are
    // the sizes KerasHub publishes for its DeBERTaV3 presets (70.68M, 141.30M, 183.83M, 434.01M, 278.22M multilingual).
    const expected: Array<[string, number, number, number]> = [
      ['microsoft/deberta-v3-xsmall', 70_958_820, 70_682_112, 70_830_722],
      ['microsoft/deberta-v3-small', 142_024_548, 141_304_320, 141_896_450],
      ['microsoft/deberta-v3-base', 184_551_780, 183_831_552, 184_423_682],
      ['microsoft/deberta-v3-large', 435_191_908, 434_012_160, 435_063_810],
      ['microsoft/mdeberta-v3-base', 279_061_880, 278_218_752, 278_810_882],
    ];
    for (const [id, mlm, bare, cls] of expected)
      assert.deepEqual([count(id, 'masked_lm'), count(id, 'none'), count(id, 'seq_cls')], [mlm, bare, cls], id);
    const a = archOf('microsoft/deberta-v3-base');
    assert.deepEqual(peftDefaultLoraTargets('deberta-v2'), ['query_proj', 'value_proj']);
    assert.deepEqual(
      linearModules(a).map((m) => m.name),
      ['query_proj', 'key_proj', 'value_proj', 'attention.output.dense', 'intermediate.dense', 'output.dense'],
    );
    // No absolute positions (position_biased_input false): 512 relative embeddings, LayerNorm'd, shared with q and k.
    assert.deepEqual(
      [a.typeVocab, a.positions, a.deberta],
      [
        0,
        'relative',
        { relRows: 512, relNorm: true, shareAttKey: true, c2p: true, p2c: true, positionBiasedInput: false },
      ],
    );
  });

  it('every catalog entry with a published count matches its architecture (one of its heads)', () => {
    const bad: string[] = [];
    for (const m of MODEL_CATALOG) {
      const r = parseArchitecture(m.config);
      if (!r.ok) {
        bad.push(`${m.id}: ${r.problems.map((p) => p.message).join('; ')}`);
        continue;
      }
      if (m.publishedParams === undefined) continue;
      const counts = (['causal_lm', 'none', 'masked_lm', 'seq2seq_lm'] as const).map(
        (h) => countParameters(r.arch, h).total,
      );
      if (!counts.includes(m.publishedParams)) bad.push(`${m.id}: ${m.publishedParams} not in ${counts.join(', ')}`);
    }
    assert.deepEqual(bad, []);
  });

  it('has at least 40 catalog checkpoints across the required families', () => {
    assert.ok(MODEL_CATALOG.length >= 40);
    const families = new Set(MODEL_CATALOG.map((m) => String(m.config.model_type)));
    for (const f of [
      'llama',
      'mistral',
      'qwen2',
      'qwen3',
      'gemma',
      'gemma2',
      'phi3',
      'gpt2',
      'gpt_neox',
      'bert',
      'roberta',
      't5',
      'mixtral',
      'qwen2_moe',
      'qwen3_moe',
    ]) {
      assert.ok(families.has(f), `family ${f} in catalog`);
    }
  });

  it('reports missing fields instead of throwing', () => {
    const r = parseArchitecture({ model_type: 'llama', hidden_size: 4096 });
    assert.equal(r.ok, false);
    assert.ok(r.problems.some((p) => p.field === 'num_hidden_layers'));
    const u = parseArchitecture({ model_type: 'mamba' });
    assert.equal(u.ok, false);
    assert.match(u.problems[0].message, /not supported/);
  });

  it("Qwen3-8B: the blocks' count holds the final norm, 36 layers of 192,946,432 and 4,096", () => {
    // A layer: q and o 4096 x 4096, k and v 1024 x 4096, gate, up and down 3 x 4096 x 12,288, q_norm and k_norm 2 x 128,
    // the two RMSNorms 2 x 4096 = 192,946,432. The final norm (4096) is the root's under FSDP, not a layer's.
    const c = countParameters(archOf('Qwen/Qwen3-8B'));
    assert.equal(c.finalNorm, 4096);
    assert.equal((c.blocks - c.finalNorm) / 36, 192_946_432);
  });
  it('GQA: Llama-3-8B k_proj/v_proj are 4096 x 1024 (8 kv heads of 128)', () => {
    const arch = archOf('meta-llama/Meta-Llama-3-8B');
    const k = linearModules(arch).find((x) => x.name === 'k_proj');
    assert.deepEqual([k?.inFeatures, k?.outFeatures, k?.count], [4096, 1024, 32]);
  });

  it('gpt-oss-20b by hand: attention with bias and sinks, 32 biased experts of 2880, a biased router (modeling_gpt_oss.py)', () => {
    const arch = archOf('openai/gpt-oss-20b');
    const h = 2880;
    const attention = h * 4096 + 4096 + 2 * (h * 512 + 512) + (4096 * h + h) + 64; // q, k, v, o with bias; 64 sinks
    const experts = 32 * (h * 2 * 2880 + 2 * 2880 + 2880 * h + h); // gate_up (E, h, 2f) + bias, down (E, f, h) + bias
    const router = 32 * h + 32;
    const layer = attention + experts + router + 2 * h; // two RMSNorms
    assert.equal(layer, 823_186_976);
    assert.equal(countParameters(arch).total, 24 * layer + 2 * 201_088 * h + h); // + embeddings, untied head, final norm
    const mods = linearModules(arch);
    const gu = mods.find((x) => x.name === 'experts.gate_up_proj');
    assert.deepEqual([gu?.count, gu?.tokenFraction, gu?.parameter], [24 * 32, 4 / 32, true]);
  });

  it('Gemma 3 4B by hand: 34 sandwich-norm layers with q/k norms, tied 262,208 x 2560 embedding, SigLIP tower + projector', () => {
    const arch = archOf('google/gemma-3-4b-it');
    const h = 2560;
    const layer = h * 2048 + 2 * h * 1024 + 2048 * h + 3 * h * 10240 + 4 * h + 2 * 256; // attention, MLP, 4 norms, q/k norms
    const text = 34 * layer + 262_208 * h + h;
    // SigLIP (modeling_siglip.py): patch conv 3 x 14 x 14 x 1152 + 1152, 4096 positions x 1152, 27 layers of
    // 4 x (1152^2 + 1152) + 2 LayerNorms + fc1/fc2 with biases, post LayerNorm; projector 1152 x 2560 + 1152.
    const siglip =
      3 * 14 * 14 * 1152 +
      1152 +
      4096 * 1152 +
      27 * (4 * (1152 * 1152 + 1152) + 4 * 1152 + 2 * 1152 * 4304 + 4304 + 1152) +
      2 * 1152;
    assert.equal(siglip, 416_866_032);
    assert.equal(arch.visionParams, siglip + 1152 * h + 1152);
    assert.equal(countParameters(arch).total, text + arch.visionParams);
  });

  it("Qwen-VL-Chat by hand: Qwen-1's language model and visual.py's ViT-bigG with its resampler under `visual`", () => {
    // Qwen/Qwen-VL-Chat config.json: model_type qwen with a `visual` block; read as a text-only Qwen-1 before, the
    // 1.94B tower was missing (3.6 GiB in bf16 on every GPU; QwenLM/Qwen-VL#92's OOM read as fitting).
    const visual = {
      heads: 16,
      image_size: 448,
      layers: 48,
      mlp_ratio: 4.9231,
      output_dim: 4096,
      patch_size: 14,
      width: 1664,
    };
    const r = parseArchitecture({
      model_type: 'qwen',
      hidden_size: 4096,
      intermediate_size: 22016,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      kv_channels: 128,
      vocab_size: 151936,
      seq_length: 2048,
      no_bias: true,
      visual,
    });
    assert.ok(r.ok);
    const w = 1664;
    const mlp = Math.floor(w * 4.9231); // 8192
    const block = 2 * w + (3 * w * w + 3 * w) + (w * w + w) + 2 * w + (w * mlp + mlp) + (mlp * w + w);
    // Resampler: 256 queries and their sin-cos positions, kv_proj 1664 -> 4096, MultiheadAttention(4096), ln_q, ln_kv.
    const resampler = 2 * 256 * 4096 + w * 4096 + (4 * 4096 * 4096 + 4 * 4096) + 4 * 4096;
    const tower = 3 * 14 * 14 * w + 256 * w + 2 * w + 48 * block + resampler + 2 * 4096 + 4096 * 4096;
    assert.equal(tower, 1_935_610_624);
    assert.equal(r.arch.visionParams, tower);
  });

  it('Granite 3.1 8B (model_type granite) counts as Llama: 40 x 199,237,632 + tied 49,155 x 4096 + 4096 = 8,170,848,256', () => {
    const r = parseArchitecture({
      model_type: 'granite',
      hidden_size: 4096,
      num_hidden_layers: 40,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      intermediate_size: 12800,
      vocab_size: 49155,
      tie_word_embeddings: true,
      attention_bias: false,
      mlp_bias: false,
      embedding_multiplier: 12.0,
      residual_multiplier: 0.22,
      attention_multiplier: 0.0078125,
      logits_scaling: 16.0,
    });
    assert.ok(r.ok);
    const layer = 4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 3 * 4096 * 12800 + 2 * 4096;
    assert.equal(layer, 199_237_632);
    assert.equal(countParameters(r.arch).total, 40 * layer + 49_155 * 4096 + 4096);
  });

  it('BLOOM by hand: 12h² + 13h per layer, a LayerNorm after the tied 250,880-token embedding, the published totals', () => {
    // Per layer: input and post-attention LayerNorms 4h; query_key_value 3h² + 3h; dense h² + h; dense_h_to_4h 4h² + 4h;
    // dense_4h_to_h 4h² + h. Embedding V·h + its LayerNorm 2h; final ln_f 2h; the head is tied.
    const bloom = (layers: number, h: number): number => layers * (12 * h * h + 13 * h) + 250_880 * h + 4 * h;
    assert.equal(bloom(24, 1024), 559_214_592); // bloom-560m
    assert.equal(bloom(30, 4096), 7_069_016_064); // bloom-7b1
    assert.equal(count('bigscience/bloomz-7b1'), 7_069_016_064);
    assert.equal(count('bigscience/bloom-1b7'), bloom(24, 2048));
    const a = archOf('bigscience/bloom-560m');
    assert.deepEqual(
      [a.family, a.positions, a.norm, a.tied, a.ffn, a.heads],
      ['bloom', 'alibi', 'layer', true, 4096, 16],
    );
    assert.deepEqual(
      linearModules(a).map((m) => [m.name, m.inFeatures, m.outFeatures, m.bias]),
      [
        ['query_key_value', 1024, 3072, true],
        ['dense', 1024, 1024, true],
        ['dense_h_to_4h', 1024, 4096, true],
        ['dense_4h_to_h', 4096, 1024, true],
      ],
    );
  });

  it('mT5-XXL / mT0-XXL by hand: 24 + 24 layers of width 4096, gated-GELU 10,240, 250,112-token untied vocabulary', () => {
    // Per encoder layer: self-attention q/k/v/o 4 x 4096 x 64·64 and one RMSNorm-style LayerNorm, the gated feed-forward
    // wi_0/wi_1 2 x 4096 x 10240 + wo 10240 x 4096 and its norm; decoder layers add cross-attention and its norm.
    // Relative position buckets 32 x 64 in the first self-attention of each stack; final norms; input and output embeddings.
    const attn = 4 * 4096 * 4096;
    const ff = 3 * 4096 * 10240;
    const enc = 24 * (attn + ff + 2 * 4096);
    const dec = 24 * (2 * attn + ff + 3 * 4096);
    const total = enc + dec + 2 * 32 * 64 + 2 * 4096 + 2 * 250_112 * 4096;
    assert.equal(total, 12_921_057_280);
    assert.equal(count('bigscience/mt0-xxl'), total);
    // T0 3B is T5 v1.1 XL, FLAN-T5-XL's shape: 2,849,757,184, the published count.
    assert.equal(count('bigscience/T0_3B'), 2_849_757_184);
  });

  it('BART and mBART by hand: biased attention and fc1/fc2, LayerNorms, two position tables of 1,026 rows', () => {
    // modeling_bart.py: per encoder layer q/k/v/out_proj 4 x (d x d + d), fc1 d x f + f, fc2 f x d + d, two LayerNorms
    // (2d each); decoder layers add encoder_attn and a third LayerNorm. The shared embedding V x d (the head tied to
    // it), BartLearnedPositionalEmbedding (max_position_embeddings + 2) x d and layernorm_embedding in each stack.
    const bart = (d: number, f: number, layers: number, vocab: number, finalNorms: number): number => {
      const attn = 4 * (d * d + d);
      const mlp = d * f + f + f * d + d;
      const enc = layers * (attn + mlp + 2 * 2 * d);
      const dec = layers * (2 * attn + mlp + 3 * 2 * d);
      return enc + dec + vocab * d + 2 * 1026 * d + 2 * 2 * d + finalNorms * 2 * d;
    };
    assert.equal(bart(768, 3072, 6, 50265, 0), 139_420_416);
    assert.equal(count('facebook/bart-base'), 139_420_416);
    assert.equal(count('facebook/bart-large'), bart(1024, 4096, 12, 50265, 0));
    assert.equal(count('facebook/bart-large'), 406_291_456);
    // mBART's encoder and decoder each end in a LayerNorm.
    assert.equal(count('facebook/mbart-large-cc25'), bart(1024, 4096, 12, 250_027, 2));
    assert.equal(count('facebook/mbart-large-cc25'), 610_851_840);
    // DistilBART: 12 encoder and 6 decoder layers.
    const a = archOf('sshleifer/distilbart-cnn-12-6');
    assert.deepEqual([a.encoderLayers, a.layers, a.tied], [12, 6, true]);
  });

  it('DeepSeek-V3 by hand: MLA attention, 3 dense layers, 58 MoE layers of 256 experts + 1 shared: 671,026,404,352', () => {
    // DeepSeek-V3 config.json (the 61 decoder layers transformers loads; the multi-token-prediction layer 61 is
    // ignored on load, DeepseekV3Model._keys_to_ignore_on_load_unexpected).
    const r = parseArchitecture({
      model_type: 'deepseek_v3',
      hidden_size: 7168,
      intermediate_size: 18432,
      kv_lora_rank: 512,
      moe_intermediate_size: 2048,
      moe_layer_freq: 1,
      n_group: 8,
      n_routed_experts: 256,
      n_shared_experts: 1,
      num_attention_heads: 128,
      num_experts_per_tok: 8,
      num_hidden_layers: 61,
      num_key_value_heads: 128,
      q_lora_rank: 1536,
      qk_nope_head_dim: 128,
      qk_rope_head_dim: 64,
      v_head_dim: 128,
      vocab_size: 129280,
      first_k_dense_replace: 3,
      tie_word_embeddings: false,
      head_dim: 64,
    });
    assert.ok(r.ok);
    assert.equal(r.arch.headDim, 192); // q/k heads: nope 128 + rope 64 (the config's head_dim is the rotary width)
    // Attention per layer: q_a 7168 x 1536, q_a_layernorm 1536, q_b 1536 x 128·192, kv_a 7168 x 576, kv_a_layernorm 512,
    // kv_b 512 x 128·256, o 128·128 x 7168; two norms of 7168.
    const attn = 7168 * 1536 + 1536 + 1536 * 24576 + 7168 * 576 + 512 + 512 * 32768 + 16384 * 7168 + 2 * 7168;
    assert.equal(attn, 187_121_664);
    const dense = 3 * 7168 * 18432; // 396,361,728
    const moe = (256 + 1) * 3 * 7168 * 2048 + 256 * 7168; // routed + shared experts + the router weight
    const total = 61 * attn + 3 * dense + 58 * moe + 2 * 129280 * 7168 + 7168;
    assert.equal(total, 671_026_404_352); // the report's "671B total parameters"
    assert.equal(countParameters(r.arch).total, total);
    // The catalog entry (also DeepSeek-R1 and V3.1, which keep V3's config) resolves to the same count.
    assert.equal(count('deepseek-ai/DeepSeek-R1'), total);
    // The largest block is an MoE layer, not the average layer.
    assert.equal(countParameters(r.arch).largestBlock, attn + moe);
    // PEFT all-linear does not reach the router: it is an nn.Parameter (DeepseekV3TopkRouter.weight).
    assert.equal(linearModules(r.arch).find((m) => m.name === 'gate')?.parameter, true);
  });

  it('DeepSeek-V2-Lite and Moonlight-16B-A3B: q_proj without a q LoRA rank, 1 dense + 26 MoE layers', () => {
    const attn = 2048 * 3072 + 2048 * 576 + 512 + 512 * 4096 + 2048 * 2048 + 2 * 2048; // 13,767,168
    const moe = (64 + 2) * 3 * 2048 * 1408 + 64 * 2048;
    assert.equal(
      count('deepseek-ai/DeepSeek-V2-Lite'),
      27 * attn + 3 * 2048 * 10944 + 26 * moe + 2 * 102400 * 2048 + 2048,
    ); // 15,706,484,224
    assert.equal(count('deepseek-ai/DeepSeek-V2-Lite'), 15_706_484_224);
    assert.equal(
      count('moonshotai/Moonlight-16B-A3B'),
      27 * attn + 3 * 2048 * 11264 + 26 * moe + 2 * 163840 * 2048 + 2048,
    );
  });

  it('PaliGemma by hand: Gemma 2B at 257,216 tokens, SigLIP So400m/14 and one linear projector', () => {
    // Gemma 2B: 18 layers of q 2048 x 2048, k and v 2048 x 256 each (one key-value head), o, gate/up/down
    // 2048 x 16384, two norms; the embedding tied to the head; a final norm.
    const text = 18 * (2 * 2048 * 2048 + 2 * 2048 * 256 + 3 * 2048 * 16384 + 2 * 2048) + 257216 * 2048 + 2048;
    assert.equal(text, 2_508_662_784);
    // SigLIP: patch conv 3 x 14 x 14 x 1152 with bias, (224 / 14)^2 positions, 27 layers (q/k/v/out with biases, 2
    // LayerNorms, fc1 1152 x 4304 + 4304, fc2 4304 x 1152 + 1152), a post LayerNorm; no pooling head.
    const layer = 4 * (1152 * 1152 + 1152) + 2 * 2 * 1152 + (1152 * 4304 + 4304) + (4304 * 1152 + 1152);
    const siglip = (positions: number): number => 3 * 14 * 14 * 1152 + 1152 + positions * 1152 + 27 * layer + 2 * 1152;
    const projector = 1152 * 2048 + 2048;
    assert.equal(count('google/paligemma-3b-pt-224'), text + siglip(256) + projector); // 2,923,466,480
    assert.equal(count('google/paligemma-3b-pt-224'), 2_923_466_480);
    assert.equal(count('google/paligemma-3b-mix-448'), text + siglip(1024) + projector);
    assert.equal(archOf('google/paligemma-3b-pt-896').family, 'gemma');
  });

  it('LLaVA 1.5 by hand: Vicuna 1.5 under text_config, CLIP ViT-L/14-336 and the two-layer projector', () => {
    // Language model: Llama 2's layout at 32,064 tokens; 32 layers of 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096.
    const text = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096) + 2 * 32064 * 4096 + 4096;
    assert.equal(text, 6_738_939_904);
    // CLIP: patch conv 3 x 14 x 14 x 1024 (no bias), class embedding 1024, (24^2 + 1) positions, pre and post
    // LayerNorms; per layer q/k/v/out with biases, 2 LayerNorms, fc1 1024 x 4096 + 4096, fc2 4096 x 1024 + 1024.
    const layer = 4 * (1024 * 1024 + 1024) + 2 * 2 * 1024 + (1024 * 4096 + 4096) + (4096 * 1024 + 1024);
    const clip = 3 * 14 * 14 * 1024 + 1024 + 577 * 1024 + 2 * 1024 + 24 * layer + 2 * 1024;
    assert.equal(clip, 303_507_456);
    // Projector: linear_1 1024 -> 4096, linear_2 4096 -> 4096, both biased.
    const projector = 1024 * 4096 + 4096 + 4096 * 4096 + 4096;
    assert.equal(count('llava-hf/llava-1.5-7b-hf'), text + clip + projector); // 7,063,427,072
    assert.equal(countParameters(archOf('llava-hf/llava-1.5-7b-hf')).vision, clip + projector);
    assert.equal(archOf('llava-hf/llava-1.5-7b-hf').family, 'llama');
    // The 13B: 40 layers at 5120 / 13824, the projector into 5120.
    const text13 = 40 * (4 * 5120 * 5120 + 3 * 5120 * 13824 + 2 * 5120) + 2 * 32064 * 5120 + 5120;
    assert.equal(count('llava-hf/llava-1.5-13b-hf'), text13 + clip + (1024 * 5120 + 5120 + 5120 * 5120 + 5120));
    // The original checkpoints are the same weights.
    assert.equal(count('liuhaotian/llava-v1.5-7b'), count('llava-hf/llava-1.5-7b-hf'));
  });

  it('LLaVA-NeXT by hand: Mistral 7B under text_config (MistralConfig defaults), CLIP, the projector, image_newline', () => {
    // llava-hf/llava-v1.6-mistral-7b-hf's text_config writes the MLP width, kv heads and vocabulary (32,064); hidden
    // size, layers and heads are MistralConfig's defaults (4096, 32, 32). Per layer q/o 4096^2, k/v 4096 x 1024, the
    // MLP 3 x 4096 x 14336, two norms; the untied embedding and head, the final norm.
    const text = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 2 * 32064 * 4096 + 4096;
    assert.equal(text, 7_242_256_384);
    // LLaVA 1.5's CLIP tower (303,507,456) and projector (20,979,712), and LLaVA-NeXT's image_newline of 4096.
    assert.equal(count('llava-hf/llava-v1.6-mistral-7b-hf'), text + 303_507_456 + 20_979_712 + 4096); // 7,566,747,648
    assert.equal(archOf('llava-hf/llava-v1.6-mistral-7b-hf').family, 'mistral');
  });

  it('Idefics3, SmolVLM and InternVL: their towers and connectors counted as transformers 5.17 builds them', () => {
    // sum(p.numel() for p in AutoModelForImageTextToText.from_config(config).parameters()) for small configs of each
    // layout: a two-layer Llama / Qwen2 (512 wide, 1,000 words, untied) beside a two-layer tower (256 wide, 64 x 64
    // images of 16 x 16 patches).
    const text = {
      model_type: 'llama',
      hidden_size: 512,
      intermediate_size: 1024,
      num_hidden_layers: 2,
      num_attention_heads: 8,
      num_key_value_heads: 4,
      vocab_size: 1000,
      tie_word_embeddings: false,
    };
    const vision = { hidden_size: 256, intermediate_size: 512, num_hidden_layers: 2, num_attention_heads: 4 };
    const squares = { ...vision, image_size: 64, patch_size: 16 };
    const lists = { ...vision, image_size: [64, 64], patch_size: [16, 16], use_mean_pooling: true };
    const total = (config: Record<string, unknown>): number => {
      const r = parseArchitecture(config as HfConfig);
      assert.ok(r.ok, JSON.stringify(r.ok ? [] : r.problems));
      return countParameters(r.arch, 'causal_lm').total;
    };
    // Idefics3ForConditionalGeneration (pixel shuffle 2) and SmolVLMForConditionalGeneration (4): SigLIP's tower and a
    // bias-free projection of scale_factor² patches.
    assert.equal(
      total({ model_type: 'idefics3', text_config: text, vision_config: squares, scale_factor: 2 }),
      7_525_120,
    );
    assert.equal(
      total({ model_type: 'smolvlm', text_config: text, vision_config: squares, scale_factor: 4 }),
      9_097_984,
    );
    // InternVLForConditionalGeneration: InternViT (class token, layer scales) and its MLP projector; the top-level
    // config's tie_word_embeddings (PreTrainedConfig's default, true) ties the head.
    const qwen = { ...text, model_type: 'qwen2' };
    const internvl = (v: Record<string, unknown>) => ({
      model_type: 'internvl',
      text_config: qwen,
      vision_config: { ...lists, ...v },
      downsample_ratio: 0.5,
    });
    assert.equal(total(internvl({ attention_bias: true, norm_type: 'layer_norm' })), 7_281_408);
    assert.equal(total(internvl({ attention_bias: false, use_qk_norm: true, norm_type: 'rms_norm' })), 7_279_872);
    // The remote code's internvl_chat: the same tower under vision_config, the language model under llm_config, tied
    // as llm_config says (untied here: one 1,000 x 512 head more).
    const chat = {
      model_type: 'internvl_chat',
      llm_config: qwen,
      vision_config: { ...squares, qkv_bias: true, norm_type: 'layer_norm' },
      downsample_ratio: 0.5,
    };
    assert.equal(total(chat), 7_281_408 + 512_000);
    // The catalog's checkpoints, built from their config.json fields the same way: Idefics3-8B-Llama3 (the model
    // page's 8.46B) and SmolVLM2-2.2B-Instruct, whose tower writes no width (SmolVLMVisionConfig's 1,152) and 384 /
    // 14 = 27 patches a side.
    assert.equal(count('HuggingFaceM4/Idefics3-8B-Llama3'), 8_462_086_384);
    assert.equal(count('HuggingFaceTB/SmolVLM2-2.2B-Instruct'), 2_246_784_880);
    assert.equal(archOf('HuggingFaceTB/SmolVLM2-2.2B-Instruct').family, 'llama');
    // Llama 3.2 Vision 11B (mllama), counted as transformers 5.17 builds it (listed as 10.7B). Its language model:
    // 40 Llama 3.1 8B layers, 8 of them cross-attention layers with per-head q / k norms (2 x 128) and two gates, an
    // embedding of 128,256 + 8 rows; the tiled ViT and its projector 895,028,755 (its GGUF projector file: 895M).
    assert.equal(count('meta-llama/Llama-3.2-11B-Vision-Instruct'), 10_670_220_835);
    const mllama = archOf('meta-llama/Llama-3.2-11B-Vision-Instruct');
    assert.deepEqual(
      [mllama.family, mllama.layers, mllama.crossAttentionLayers, mllama.embedExtraRows],
      ['llama', 40, 8, 8],
    );
    assert.equal(countParameters(mllama).vision, 895_028_755);
  });

  it('Qwen2.5-VL and Qwen2-VL by hand: the Qwen2(.5) language model plus a 32-block ViT and its merger', () => {
    // Qwen2.5-VL ViT (width 1280, SwiGLU 3420 with biases, RMSNorms): Conv3d patch embedding 3 x 2 x 14 x 14 x 1280
    // (no bias); per block 2 x 1280 norms, qkv 1280 x 3840 + 3840, proj 1280 x 1280 + 1280, gate/up/down with biases;
    // merger: RMSNorm 1280, 5120 x 5120 + 5120, 5120 x out + out.
    const block25 =
      2 * 1280 + (1280 * 3840 + 3840) + (1280 * 1280 + 1280) + 2 * (1280 * 3420 + 3420) + (3420 * 1280 + 1280);
    assert.equal(block25, 19_702_200);
    const vit25 = (out: number): number =>
      3 * 2 * 14 * 14 * 1280 + 32 * block25 + 1280 + (5120 * 5120 + 5120) + (5120 * out + out);
    assert.equal(count('Qwen/Qwen2.5-VL-7B-Instruct'), count('Qwen/Qwen2.5-7B') + vit25(3584)); // 7,615,616,512 + 676,550,144
    assert.equal(count('Qwen/Qwen2.5-VL-7B-Instruct'), 8_292_166_656);
    assert.equal(count('Qwen/Qwen2.5-VL-3B-Instruct'), count('Qwen/Qwen2.5-3B') + vit25(2048)); // 3,754,622,976
    assert.equal(count('Qwen/Qwen2.5-VL-72B-Instruct'), count('Qwen/Qwen2.5-72B') + vit25(8192)); // 73,406,351,360
    // Qwen2-VL ViT: LayerNorms with biases (2 x 2 x 1280), fc1 1280 x 5120 + 5120, fc2 5120 x 1280 + 1280, merger LayerNorm 2 x 1280.
    const block2 =
      2 * 2 * 1280 + (1280 * 3840 + 3840) + (1280 * 1280 + 1280) + (1280 * 5120 + 5120) + (5120 * 1280 + 1280);
    const vit2 = (out: number): number =>
      3 * 2 * 14 * 14 * 1280 + 32 * block2 + 2 * 1280 + (5120 * 5120 + 5120) + (5120 * out + out);
    assert.equal(count('Qwen/Qwen2-VL-7B-Instruct'), count('Qwen/Qwen2-7B') + vit2(3584)); // 8,291,375,616
    assert.equal(count('Qwen/Qwen2-VL-7B-Instruct'), 8_291_375_616);
    assert.equal(count('Qwen/Qwen2-VL-2B-Instruct'), 2_208_985_600);
    // The vision tower is counted apart: it is frozen (weights only).
    const a = archOf('Qwen/Qwen2.5-VL-7B-Instruct');
    assert.equal(countParameters(a).vision, vit25(3584));
    assert.equal(a.family, 'qwen2');
    // Newer config.json files move the language model's fields under text_config.
    const found = findModel('Qwen/Qwen2.5-VL-7B-Instruct');
    assert.ok(found.ok);
    const {
      hidden_size,
      intermediate_size,
      num_attention_heads,
      num_hidden_layers,
      num_key_value_heads,
      vocab_size,
      tie_word_embeddings,
      ...rest
    } = found.model.config;
    const nested = parseArchitecture({
      ...rest,
      text_config: {
        hidden_size,
        intermediate_size,
        num_attention_heads,
        num_hidden_layers,
        num_key_value_heads,
        vocab_size,
        tie_word_embeddings,
      },
    });
    assert.ok(nested.ok);
    assert.equal(countParameters(nested.arch).total, 8_292_166_656);
    assert.equal(parseArchitecture({ ...found.model.config, vision_config: {} }).ok, false);
  });

  it('Qwen3-VL by hand: the Qwen3 language model (text_config) plus a ViT with a position table and deepstack mergers', () => {
    // Qwen3-VL-8B vision_config: width 1152, 27 blocks, MLP 4304, patch 16, 2,304 positions, deepstack [8, 16, 24].
    // Conv3d with bias 3 x 2 x 16 x 16 x 1152 + 1152; positions 2304 x 1152; per block LayerNorms 4 x 1152, qkv, proj,
    // fc1, fc2 with biases; merger LayerNorm 2 x 1152 + 4608 x 4608 + 4608 + 4608 x 4096 + 4096; each deepstack merger
    // the same with a LayerNorm of 4608.
    const block = 4 * 1152 + (1152 * 3456 + 3456) + (1152 * 1152 + 1152) + (1152 * 4304 + 4304) + (4304 * 1152 + 1152);
    assert.equal(block, 15_239_504);
    const linears = 4608 * 4608 + 4608 + (4608 * 4096 + 4096);
    const vit =
      3 * 2 * 16 * 16 * 1152 + 1152 + 2304 * 1152 + 27 * block + (2 * 1152 + linears) + 3 * (2 * 4608 + linears);
    assert.equal(vit, 576_388_336);
    assert.equal(count('Qwen/Qwen3-VL-8B-Instruct'), count('Qwen/Qwen3-8B') + vit); // 8,190,735,360 + 576,388,336
    assert.equal(count('Qwen/Qwen3-VL-8B-Instruct'), 8_767_123_696);
    assert.equal(count('Qwen/Qwen3-VL-4B-Instruct'), 4_437_815_808); // Qwen3-4B 4,022,468,096 + a 24-block ViT of width 1024
    const a = archOf('Qwen/Qwen3-VL-8B-Instruct');
    assert.deepEqual([a.family, a.qkNorm, a.hidden, a.layers], ['qwen3', true, 4096, 36]);
  });

  it('LLM-jp 3 by hand: untied 99,584-token embeddings, full multi-head attention, SwiGLU (llm-jp/instruct3 configs)', () => {
    // 2 x V x h (embedding and head) + L x (4 h^2 attention + 3 h f MLP + 2 h norms) + h final norm.
    const count3 = (L: number, h: number, f: number): number => 2 * 99584 * h + L * (4 * h * h + 3 * h * f + 2 * h) + h;
    assert.equal(count('llm-jp/llm-jp-3-1.8b'), count3(24, 2048, 7168));
    assert.equal(count('llm-jp/llm-jp-3-1.8b'), 1_867_614_208); // the model card's 1.8b
    assert.equal(count('llm-jp/llm-jp-3-3.7b-instruct'), count3(28, 3072, 8192)); // 3,782,913,024
    assert.equal(count('llm-jp/llm-jp-3-13b'), 13_707_924_480);
    const a = archOf('llm-jp/llm-jp-3-1.8b-instruct3');
    assert.deepEqual([a.family, a.kvHeads, a.heads, a.tied], ['llama', 16, 16, false]);
  });

  it('Qwen3-VL 2B and 32B by hand: Qwen3-1.7B and Qwen3-32B under text_config, the 4B and 8B towers merging into their widths', () => {
    // The 2B's tower is the 4B's (width 1024, 24 blocks, MLP 4096) with its merger and three deepstack mergers ending
    // in 4096 x 2048 + 2048; the 32B's is the 8B's (above) ending in 4608 x 5120 + 5120.
    const block2b =
      4 * 1024 + (1024 * 3072 + 3072) + (1024 * 1024 + 1024) + (1024 * 4096 + 4096) + (4096 * 1024 + 1024);
    const linears2b = 4096 * 4096 + 4096 + (4096 * 2048 + 2048);
    const vit2b =
      3 * 2 * 16 * 16 * 1024 + 1024 + 2304 * 1024 + 24 * block2b + (2 * 1024 + linears2b) + 3 * (2 * 4096 + linears2b);
    assert.equal(vit2b, 406_957_056);
    assert.equal(count('Qwen/Qwen3-VL-2B-Instruct'), count('Qwen/Qwen3-1.7B') + vit2b);
    assert.equal(count('Qwen/Qwen3-VL-2B-Thinking'), count('Qwen/Qwen3-VL-2B-Instruct'));
    const linears32b = 4608 * 4608 + 4608 + (4608 * 5120 + 5120);
    const vit32b =
      3 * 2 * 16 * 16 * 1152 +
      1152 +
      2304 * 1152 +
      27 * 15_239_504 +
      (2 * 1152 + linears32b) +
      3 * (2 * 4608 + linears32b);
    assert.equal(vit32b, 595_266_800);
    assert.equal(count('Qwen/Qwen3-VL-32B-Instruct'), count('Qwen/Qwen3-32B') + vit32b);
    const a = archOf('Qwen/Qwen3-VL-2B-Instruct');
    assert.deepEqual([a.family, a.qkNorm, a.hidden, a.layers, a.tied], ['qwen3', true, 2048, 28, true]);
  });

  it('Qwen3-VL-30B-A3B by hand: Qwen3-30B-A3B under text_config with 3-D experts, a ViT merging into 2048', () => {
    // The tower of Qwen3-VL-8B (above) with its merger and three deepstack mergers ending in 4608 x 2048 + 2048.
    const block = 15_239_504;
    const linears = 4608 * 4608 + 4608 + (4608 * 2048 + 2048);
    const vit =
      3 * 2 * 16 * 16 * 1152 + 1152 + 2304 * 1152 + 27 * block + (2 * 1152 + linears) + 3 * (2 * 4608 + linears);
    assert.equal(vit, 538_631_408);
    assert.equal(count('Qwen/Qwen3-VL-30B-A3B-Instruct'), 30_532_122_624 + vit);
    assert.equal(count('Qwen/Qwen3-VL-30B-A3B-Instruct'), 31_070_754_032); // the model page's 31.1B
    const a = archOf('Qwen/Qwen3-VL-30B-A3B-Instruct');
    assert.deepEqual(
      [a.family, a.qkNorm, a.fusedExperts, a.moe?.experts, a.moe?.topK],
      ['qwen3_moe', true, true, 128, 8],
    );
    // Qwen3VLMoeTextExperts: gate_up_proj and down_proj are bare parameters, not nn.Linear.
    assert.deepEqual(
      linearModules(a)
        .filter((m) => m.group === 'expert')
        .map((m) => [m.name, m.parameter]),
      [
        ['experts.gate_up_proj', true],
        ['experts.down_proj', true],
      ],
    );
  });

  it('Qwen3.5-9B by hand: Gated DeltaNet in 24 layers, gated attention in 8, a dense MLP, the vision tower, no MTP head', () => {
    // modular_qwen3_5.py Qwen3_5GatedDeltaNet: in_proj_qkv 4096 -> 2 x 16 x 128 + 32 x 128, in_proj_z 4096 -> 4096,
    // in_proj_b / in_proj_a 4096 -> 32, a depthwise conv1d over 8192 channels x 4 taps, dt_bias and A_log (32 each), the
    // gated norm's 128 weights, out_proj 4096 -> 4096.
    const gdn = 4096 * 8192 + 4096 * 4096 + 2 * 4096 * 32 + 8192 * 4 + 2 * 32 + 128 + 4096 * 4096;
    assert.equal(gdn, 67_403_968);
    // Qwen3NextAttention: q_proj 4096 -> 2 x 16 x 256 (queries and their output gate), k/v 4096 -> 4 x 256, o_proj, q/k norms.
    const attn = 4096 * 8192 + 2 * 4096 * 1024 + 4096 * 4096 + 2 * 256;
    assert.equal(attn, 58_720_768);
    const mlp = 3 * 4096 * 12288;
    const text = 248_320 * 4096 * 2 + 4096 + 24 * (gdn + mlp + 2 * 4096) + 8 * (attn + mlp + 2 * 4096);
    assert.equal(text, 8_953_803_264);
    // Qwen3-VL's tower of width 1152 (see Qwen3-VL above) without deepstack mergers, merging into 4096.
    const vit =
      3 * 2 * 16 * 16 * 1152 +
      1152 +
      2304 * 1152 +
      27 * 15_239_504 +
      2 * 1152 +
      (4608 * 4608 + 4608) +
      (4608 * 4096 + 4096);
    assert.equal(vit, 456_010_480);
    assert.equal(count('Qwen/Qwen3.5-9B'), text + vit);
    // The Hub total 9,653,104,368 also counts the checkpoint's MTP head (mtp.fc 4096 x 8192, three norms, one full-attention
    // layer with its MLP), which transformers skips: re-saved fine-tunes of this model publish 9,409,813,744.
    const mtp = 4096 * 8192 + 3 * 4096 + (2 * 4096 + attn + mlp);
    assert.equal(count('Qwen/Qwen3.5-9B') + mtp, 9_653_104_368);
    const a = archOf('Qwen/Qwen3.5-9B');
    assert.deepEqual(
      [a.family, a.layers, a.linearAttention?.layers, a.headDim, a.partialRotary, a.attnOutputGate],
      ['qwen3_next', 32, 24, 256, 0.25, true],
    );
    assert.deepEqual(
      linearModules(a)
        .filter((m) => m.count === 24)
        .map((m) => [m.name, m.outFeatures]),
      [
        ['in_proj_qkv', 8192],
        ['in_proj_z', 4096],
        ['in_proj_b', 32],
        ['in_proj_a', 32],
        ['out_proj', 4096],
      ],
    );
  });

  it('Qwen3.5 and Qwen3-Next: the Hub totals less the MTP head, for every size', () => {
    // Hub safetensors totals (text + vision + MTP head) and the MTP head by hand: mtp.fc h x 2h, three norms, and one
    // full-attention decoder layer with the model's MLP (a whole MoE block for the MoE models).
    const mtp = (h: number, nh: number, nkv: number, mlp: number): number =>
      2 * h * h + 3 * h + 2 * h + (h * 2 * nh * 256 + 2 * h * nkv * 256 + nh * 256 * h + 512) + mlp;
    const moeBlock = (h: number, e: number, im: number, is: number): number => 3 * e * h * im + e * h + 3 * h * is + h;
    const cases: Array<[string, number, number]> = [
      ['Qwen/Qwen3.5-0.8B', 873_438_784, mtp(1024, 8, 2, 3 * 1024 * 3584)],
      ['Qwen/Qwen3.5-2B', 2_274_069_824, mtp(2048, 8, 2, 3 * 2048 * 6144)],
      ['Qwen/Qwen3.5-4B', 4_659_865_088, mtp(2560, 16, 4, 3 * 2560 * 9216)],
      ['Qwen/Qwen3.5-27B', 27_781_427_952, mtp(5120, 24, 4, 3 * 5120 * 17408)],
      ['Qwen/Qwen3.5-35B-A3B', 35_951_822_704, mtp(2048, 16, 2, moeBlock(2048, 256, 512, 512))],
      ['Qwen/Qwen3.5-122B-A10B', 125_086_497_008, mtp(3072, 32, 2, moeBlock(3072, 256, 1024, 1024))],
      ['Qwen/Qwen3.5-397B-A17B', 403_397_928_944, mtp(4096, 32, 2, moeBlock(4096, 512, 1024, 1024))],
      ['Qwen/Qwen3-Next-80B-A3B-Instruct', 81_324_862_720, mtp(2048, 16, 2, moeBlock(2048, 512, 512, 512))],
    ];
    for (const [id, hub, head] of cases) assert.equal(count(id) + head, hub, id);
    // Qwen3-Coder-Next stores no MTP head: its Hub total is the loaded count.
    assert.equal(count('Qwen/Qwen3-Coder-Next'), 79_674_391_296);
    const next = archOf('Qwen/Qwen3-Next-80B-A3B-Instruct');
    assert.deepEqual(
      [
        next.linearAttention?.layers,
        next.linearAttention?.splitProjections,
        next.moe?.moeLayers,
        next.moe?.sharedExpertGate,
        next.visionParams,
      ],
      [36, false, 48, true, 0],
    );
    assert.deepEqual(
      linearModules(next)
        .filter((m) => m.name.startsWith('in_proj'))
        .map((m) => [m.name, m.outFeatures]),
      [
        ['in_proj_qkvz', 12288],
        ['in_proj_ba', 64],
      ],
    );
    const moe = archOf('Qwen/Qwen3.5-35B-A3B');
    assert.deepEqual([moe.fusedExperts, moe.moe?.moeLayers, moe.moe?.experts], [true, 40, 256]);
  });

  it('Granite 4.0 H-Micro by hand: 36 Mamba2 layers, 4 attention layers, a gated shared MLP, tied embeddings', () => {
    // Bamba's Mamba2 mixer: in_proj 2048 -> 2 x 4096 + 2 x 1 x 128 + 64, conv1d over 4096 + 256 channels x 4 with bias,
    // dt_bias, A_log and D per head (64), the gated norm over 4096, out_proj 4096 -> 2048; no projection biases.
    const mixer = 2048 * (2 * 4096 + 256 + 64) + 4352 * 4 + 4352 + 3 * 64 + 4096 + 4096 * 2048;
    assert.equal(mixer, 25_847_232);
    // Attention: 32 heads x 64 over 2048, 8 kv heads, no bias; the shared MLP input_linear 2048 -> 2 x 8192, output_linear.
    const attn = 2048 * 2048 + 2 * 2048 * 512 + 2048 * 2048;
    const mlp = 2048 * 16_384 + 8192 * 2048;
    const total = 100_352 * 2048 + 2048 + 36 * (mixer + mlp + 2 * 2048) + 4 * (attn + mlp + 2 * 2048);
    assert.equal(count('ibm-granite/granite-4.0-h-micro'), total);
    assert.equal(total, 3_191_396_096);
    const a = archOf('ibm-granite/granite-4.0-h-micro');
    assert.deepEqual([a.family, a.mamba?.layers, a.positions, a.tied], ['granite_hybrid', 36, 'none', true]);
  });

  it('Jamba-v0.1 by hand: 28 Mamba-1 and 4 attention layers, MoE in every other layer, no position embedding', () => {
    // Mamba-1 (inner 8192, state 16, dt rank 256, conv 4): in_proj 4096 -> 2 x 8192, conv1d 8192 x 4 with bias, x_proj
    // 8192 -> 256 + 2 x 16, dt_proj 256 -> 8192 with bias, A_log 8192 x 16, D, the dt / B / C norms, out_proj 8192 -> 4096.
    const mamba =
      4096 * 16_384 + 8192 * 4 + 8192 + 8192 * 288 + 256 * 8192 + 8192 + 8192 * 16 + 8192 + 256 + 32 + 8192 * 4096;
    assert.equal(mamba, 105_308_448);
    const attn = 2 * 4096 * 4096 + 2 * 4096 * 1024;
    const mlp = 3 * 4096 * 14_336;
    const moe = 16 * mlp + 4096 * 16;
    const total = 2 * 65_536 * 4096 + 4096 + 28 * mamba + 4 * attn + 16 * mlp + 16 * moe + 32 * 2 * 4096;
    assert.equal(total, 51_570_323_328);
    assert.equal(count('ai21labs/Jamba-v0.1'), total);
    const a = archOf('ai21labs/Jamba-v0.1');
    assert.deepEqual(
      [a.family, a.mamba1?.layers, a.moe?.moeLayers, a.positions, a.moeMask?.slice(0, 4)],
      ['jamba', 28, 16, 'none', [false, true, false, true]],
    );
    assert.deepEqual(
      a.mamba1?.pattern.map((m, i) => (m ? '' : i)).filter((x) => x !== ''),
      [4, 12, 20, 28],
    );
    // Jamba 1.5 Large: 63 Mamba-1 layers (inner 16,384, dt rank 512), 9 attention layers, 36 MoE layers of 16 x 24,576.
    assert.equal(count('ai21labs/AI21-Jamba-1.5-Large'), 398_555_145_696);
  });

  it('Kimi-Linear-48B-A3B by hand: 20 KDA and 7 MLA layers, a dense first layer, 26 MoE layers of 256 experts', () => {
    // KDA (32 heads of 128 over 2304, P = 4096): q/k/v_proj, three depthwise short convolutions of 4 taps (no bias), A_log
    // per head, forget gate f_a 2304 -> 128 -> f_b 4096 with dt_bias, b_proj 2304 -> 32, output gate g_a -> g_b, o_norm
    // (128), o_proj (modeling_kimi.py KimiDeltaAttention).
    const kda =
      3 * 2304 * 4096 +
      3 * 4096 * 4 +
      32 +
      2304 * 128 +
      128 * 4096 +
      4096 +
      2304 * 32 +
      2304 * 128 +
      128 * 4096 +
      128 +
      4096 * 2304;
    assert.equal(kda, 39_514_272);
    // MLA without q LoRA: q_proj 2304 -> 32 x 192, kv_a_proj_with_mqa 2304 -> 512 + 64, kv_a_layernorm, kv_b_proj 512 ->
    // 32 x (128 + 128), o_proj 4096 -> 2304.
    const mla = 2304 * 32 * 192 + 2304 * 576 + 512 + 512 * 32 * 256 + 4096 * 2304;
    assert.equal(mla, 29_114_880);
    // MoE: 256 experts w1/w3/w2 of 1024, one shared expert, the router weight and its e_score_correction_bias parameter.
    const moe = 256 * 3 * 2304 * 1024 + 3 * 2304 * 1024 + 256 * 2304 + 256;
    const total = 2 * 163_840 * 2304 + 2304 + 20 * kda + 7 * mla + 3 * 2304 * 9216 + 26 * moe + 27 * 2 * 2304;
    assert.equal(total, 49_122_681_728); // model.safetensors.index.json: total_parameters
    assert.equal(count('moonshotai/Kimi-Linear-48B-A3B-Instruct'), total);
    const a = archOf('moonshotai/Kimi-Linear-48B-A3B-Instruct');
    assert.deepEqual(
      [
        a.family,
        a.linearAttention?.layers,
        a.linearAttention?.kda,
        a.moe?.moeLayers,
        a.positions,
        a.mla?.nope,
        a.attnOutputGate,
        a.maxPositions,
      ],
      ['kimi_linear', 20, true, 26, 'none', true, undefined, 1_048_576],
    );
    // LoRA names: the routed experts are w1/w2/w3, so gate_proj / up_proj / down_proj reach the dense MLP and the shared
    // experts only; q_proj and o_proj exist in both kinds of layers, with different shapes.
    assert.deepEqual(
      linearModules(a)
        .filter((m) => m.name === 'q_proj')
        .map((m) => [m.layerKind, m.outFeatures, m.count]),
      [
        ['full', 6144, 7],
        ['linear', 4096, 20],
      ],
    );
    assert.ok(linearModules(a).some((m) => m.name === 'experts.w1' && m.count === 26 * 256));
  });

  it('Falcon-H1-0.5B by hand: a Mamba2 mixer and attention in each of 36 layers, heads of 64, no gated norm', () => {
    // Mixer: in_proj 1024 -> 2 x 1536 + 2 x 1 x 128 + 24, conv1d over 1536 + 256 channels x 4 with bias, dt_bias, A_log
    // and D per head (24), no gated norm (mamba_rms_norm false), out_proj 1536 -> 1024 (projectors_bias false).
    const mixer = 1024 * (2 * 1536 + 256 + 24) + 1792 * 4 + 1792 + 3 * 24 + 1536 * 1024;
    // Attention: 8 heads of 64 (head_dim from the config, not 1024 / 8), 2 kv heads; SwiGLU MLP 1024 -> 2048.
    const attn = 1024 * 512 + 2 * 1024 * 128 + 512 * 1024;
    const mlp = 3 * 1024 * 2048;
    const total = 2 * 32_784 * 1024 + 1024 + 36 * (mixer + attn + mlp + 2 * 1024);
    assert.equal(total, 521_411_104); // the pinned checkpoint's parameter count
    assert.equal(count('tiiuae/Falcon-H1-0.5B-Base'), total);
    const a = archOf('tiiuae/Falcon-H1-0.5B-Base');
    assert.deepEqual(
      [a.family, a.mamba?.layers, a.mamba?.parallel, a.mamba?.gatedNorm, a.headDim, a.tied],
      ['falcon_h1', 36, true, false, 64, false],
    );
  });

  it('Falcon-H1-1.5B and 7B: the gated norm with mamba_rms_norm; published totals', () => {
    // 1.5B: mixer 2048 -> 2 x 3072 + 2 x 256 + 48, conv over 3584 channels, the gated norm's 3072 weights; attention 8 x 128
    // (2 kv) over 2048; MLP 2048 -> 4608; vocabulary 65,537, untied.
    const mixer = 2048 * (2 * 3072 + 512 + 48) + 3584 * 4 + 3584 + 3 * 48 + 3072 + 3072 * 2048;
    const attn = 2048 * 1024 + 2 * 2048 * 256 + 1024 * 2048;
    const total = 2 * 65_537 * 2048 + 2048 + 24 * (mixer + attn + 3 * 2048 * 4608 + 2 * 2048);
    assert.equal(total, 1_554_863_488); // sum(p.numel()) of transformers' FalconH1ForCausalLM
    assert.equal(count('tiiuae/Falcon-H1-1.5B-Base'), total);
    assert.equal(count('tiiuae/Falcon-H1-7B-Base'), 7_585_654_880);
    const a = archOf('tiiuae/Falcon-H1-7B-Base');
    assert.equal(a.mamba?.gatedNorm, true);
    assert.deepEqual(
      linearModules(a).map((m) => [m.name, m.count]),
      [
        ['in_proj', 44],
        ['out_proj', 44],
        ['q_proj', 44],
        ['k_proj', 44],
        ['v_proj', 44],
        ['o_proj', 44],
        ['gate_proj', 44],
        ['up_proj', 44],
        ['down_proj', 44],
      ],
    );
  });

  it('Falcon-H1 inner width: mamba_d_ssm, the 1024 class default when absent, mamba_expand x hidden when null', () => {
    const m = findModel('tiiuae/Falcon-H1-0.5B-Base');
    assert.ok(m.ok);
    const base: Record<string, unknown> = { ...m.model.config };
    const inner = (cfg: Record<string, unknown>): number | undefined => {
      const r = parseArchitecture(cfg);
      return r.ok ? r.arch.mamba!.heads * r.arch.mamba!.headDim : undefined;
    };
    assert.equal(inner(base), 1536);
    const { mamba_d_ssm: _d, mamba_d_head: _h, ...absent } = base;
    assert.equal(inner(absent), 1024);
    assert.equal(inner({ ...absent, mamba_d_ssm: null }), 2048);
    const bad = parseArchitecture({ ...base, mamba_d_head: 48 });
    assert.ok(!bad.ok && bad.problems.some((p) => p.field === 'mamba_d_head'));
  });

  it('Nemotron Nano 9B v2 by hand: 27 Mamba2, 25 ReLU² MLP and 4 attention layers of one norm and one mixer each', () => {
    // Mamba2: in_proj 4480 -> 2 x 10,240 + 2 x 8 x 128 + 128, conv1d over 10,240 + 2,048 channels x 4 with bias, dt_bias,
    // A_log, D (128 each), the grouped gated norm's 10,240 weights, out_proj 10,240 -> 4480; the MLP 4480 -> 15,680 -> 4480;
    // attention 40 heads of 128 (8 kv) over 4480, no bias; an untied 131,072-token head.
    const mamba = 4480 * (2 * 10_240 + 2048 + 128) + 12_288 * 4 + 12_288 + 3 * 128 + 10_240 + 10_240 * 4480;
    const mlp = 2 * 4480 * 15_680;
    const attn = 4480 * 5120 + 2 * 4480 * 1024 + 5120 * 4480;
    const total = 2 * 131_072 * 4480 + 4480 + 27 * (mamba + 4480) + 25 * (mlp + 4480) + 4 * (attn + 4480);
    assert.equal(total, 8_888_227_328);
    assert.equal(count('nvidia/NVIDIA-Nemotron-Nano-9B-v2'), total);
    const a = archOf('nvidia/NVIDIA-Nemotron-Nano-9B-v2');
    assert.deepEqual(
      [a.family, a.layers, a.mamba?.layers, a.blockKinds?.filter((k) => k === '*').length, a.headDim, a.tied],
      ['nemotron_h', 56, 27, 4, 128, false],
    );
  });

  it('Nemotron 3 Nano 30B-A3B by hand: 23 Mamba2, 23 MoE (128 ReLU² experts, a shared expert) and 6 attention layers', () => {
    // Mamba2 64 heads x 64, 8 groups of state 128; MoE: 3-D up_proj / down_proj of 128 experts x 1856 over 2688, the router's
    // bare weight (its fp32 correction bias is a buffer), the shared expert of 3712; attention 32 heads x 128, 2 kv.
    const mamba = 2688 * (2 * 4096 + 2048 + 64) + 6144 * 4 + 6144 + 3 * 64 + 4096 + 4096 * 2688;
    const moe = 128 * 2 * 1856 * 2688 + 128 * 2688 + 2 * 2688 * 3712;
    const attn = 2688 * 4096 + 2 * 2688 * 256 + 4096 * 2688;
    const total = 2 * 131_072 * 2688 + 2688 + 23 * (mamba + 2688) + 23 * (moe + 2688) + 6 * (attn + 2688);
    assert.equal(total, 31_577_937_344); // the Hub's safetensors total
    assert.equal(count('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16'), total);
    const a = archOf('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16');
    assert.deepEqual([a.moe?.moeLayers, a.moe?.topK, a.moe?.experts], [23, 6, 128]);
    assert.deepEqual(
      linearModules(a)
        .filter((m) => m.parameter)
        .map((m) => m.name),
      ['experts.up_proj', 'experts.down_proj', 'gate'],
    );
  });

  it('Llama 4 Scout and Maverick by hand: text model under text_config, 3-D experts, a shared expert, the vision tower', () => {
    // Attention per layer: q 5120 x 5120, k and v 5120 x 1024, o 5120 x 5120, two RMSNorms (the q/k L2 norm has no weight).
    const attn = 2 * 5120 * 5120 + 2 * 5120 * 1024 + 2 * 5120;
    // An MoE layer: E experts of gate_up 5120 x 16384 and down 8192 x 5120, the router 5120 x E, a shared expert 3 x 5120 x 8192.
    const moe = (E: number): number => E * (5120 * 16384 + 8192 * 5120) + 5120 * E + 3 * 5120 * 8192;
    const embeddings = 2 * 202_048 * 5120 + 5120; // untied, plus the final norm
    // Vision: unfolded patch linear 3 x 14 x 14 x 1408, class embedding, 577 positions, two LayerNorms; 34 layers of q/k/v/o
    // and fc1/fc2 with biases and two LayerNorms; the adapter 5632 x 4096 + 4096 x 4096; the projector 4096 x 5120.
    const visionLayer = 4 * (1408 * 1408 + 1408) + (1408 * 5632 + 5632) + (5632 * 1408 + 1408) + 4 * 1408;
    const vision =
      3 * 14 * 14 * 1408 + 1408 + 577 * 1408 + 4 * 1408 + 34 * visionLayer + 5632 * 4096 + 4096 * 4096 + 4096 * 5120;
    assert.equal(vision, 871_932_416);
    const scout = 48 * (attn + moe(16)) + embeddings + vision;
    assert.equal(scout, 108_641_793_536); // the Hub's count for Llama-4-Scout-17B-16E
    assert.equal(count('meta-llama/Llama-4-Scout-17B-16E-Instruct'), scout);
    // Maverick: 128 experts in the odd layers, a dense MLP of 16384 in the even ones.
    const maverick = 48 * attn + 24 * moe(128) + 24 * 3 * 5120 * 16384 + embeddings + vision;
    assert.equal(maverick, 401_583_781_376);
    assert.equal(count('meta-llama/Llama-4-Maverick-17B-128E-Instruct'), maverick);
    const a = archOf('meta-llama/Llama-4-Maverick-17B-128E-Instruct');
    assert.deepEqual(a.layerPattern?.moe.slice(0, 4), [false, true, false, true]);
    assert.deepEqual(archOf('meta-llama/Llama-4-Scout-17B-16E-Instruct').layerPattern?.rope.slice(0, 4), [
      true,
      true,
      true,
      false,
    ]);
    assert.equal(countParameters(a).largestBlock, attn + moe(128));
    // The experts are 3-D parameters: PEFT's all-linear does not reach them; the router is an nn.Linear.
    const mods = linearModules(a);
    assert.equal(mods.find((m) => m.name === 'experts.gate_up_proj')?.parameter, true);
    assert.equal(mods.find((m) => m.name === 'router')?.parameter, undefined);
  });

  it('Mistral Small 24B and its image-text 3.1 checkpoint by hand: 32 heads x 128 over 5120, a Pixtral tower', () => {
    // Per layer: q 5120 x 4096, k and v 5120 x 1024, o 4096 x 5120, MLP 3 x 5120 x 32768, two RMSNorms.
    const layer = 5120 * 4096 + 2 * 5120 * 1024 + 4096 * 5120 + 3 * 5120 * 32768 + 2 * 5120;
    const text = 40 * layer + 2 * 131_072 * 5120 + 5120;
    assert.equal(text, 23_572_403_200);
    assert.equal(count('mistralai/Mistral-Small-24B-Base-2501'), text);
    // Pixtral: patch conv 3 x 14 x 14 x 1024 (no bias), ln_pre, 24 layers of two RMSNorms, q/k/v/o and a gated MLP of
    // 4096 without biases; projector: RMSNorm, patch merger 4 x 1024 -> 1024, 1024 -> 5120, 5120 -> 5120 (no biases).
    const tower = 3 * 14 * 14 * 1024 + 1024 + 24 * (2 * 1024 + 4 * 1024 * 1024 + 3 * 1024 * 4096);
    const projector = 1024 + 4 * 1024 * 1024 + 1024 * 5120 + 5120 * 5120;
    assert.equal(count('mistralai/Mistral-Small-3.1-24B-Instruct-2503'), text + tower + projector); // 24,011,361,280
    assert.equal(archOf('mistralai/Mistral-Small-3.1-24B-Instruct-2503').family, 'mistral');
  });

  it('OLMo 2 by hand: post-norms only, q/k norms over the whole projections (4096 + 4096 for the 7B)', () => {
    // OLMo-2-1124-7B: per layer q/k/v/o 4 x 4096^2, MLP 3 x 4096 x 11008, post_attention / post_feedforward norms and
    // q_norm / k_norm of 4096 each; untied 100,352 x 4096 embeddings and head; the final norm.
    const layer7 = 4 * 4096 * 4096 + 3 * 4096 * 11008 + 4 * 4096;
    assert.equal(count('allenai/OLMo-2-1124-7B'), 32 * layer7 + 2 * 100_352 * 4096 + 4096); // 7,298,617,344
    assert.equal(count('allenai/OLMo-2-1124-7B'), 7_298_617_344);
    // OLMo-2-0325-32B: 40 heads x 128 over 5120 with 8 kv heads: k_norm is 1024 wide.
    const layer32 = 2 * 5120 * 5120 + 2 * 5120 * 1024 + 3 * 5120 * 27648 + 2 * 5120 + 5120 + 1024;
    assert.equal(count('allenai/OLMo-2-0325-32B'), 64 * layer32 + 2 * 100_352 * 5120 + 5120); // 32,234,279,936
    assert.equal(count('allenai/OLMo-2-0325-32B'), 32_234_279_936);
    assert.equal(count('allenai/OLMo-2-1124-13B'), 13_716_198_400);
    assert.equal(count('allenai/OLMo-2-0425-1B'), 1_484_916_736);
  });

  it('Cohere by hand: one weight-only LayerNorm per block, Llama modules, tied head (Tiny Aya, Aya Expanse 8B)', () => {
    // Tiny Aya (cohere2): 16 x 128 queries and 4 x 128 keys / values over 2048, a gated MLP of 11008, one 2048-wide
    // CohereLayerNorm weight (no bias) per layer; 262,144 x 2048 tied embeddings; the final norm.
    const tinyLayer = 2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 11_008 + 2048; // 78,120,960
    assert.equal(count('CohereLabs/tiny-aya-global'), 36 * tinyLayer + 262_144 * 2048 + 2048);
    // rasbt/LLMs-from-scratch ch05/15_tiny-aya/standalone-tiny-aya.ipynb@50be268 prints the checkpoint's total.
    assert.equal(count('CohereLabs/tiny-aya-global'), 3_349_227_520);
    assert.equal(archOf('CohereLabs/tiny-aya-fire').family, 'cohere2');
    // Aya Expanse 8B (cohere): 32 x 128 over 4096 with 8 kv heads, MLP 14336, 256,000 x 4096 tied: 8,028,033,024, the
    // Open LLM Leaderboard's 8.028B.
    const ayaLayer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14_336 + 4096;
    assert.equal(count('CohereForAI/aya-expanse-8b'), 32 * ayaLayer + 256_000 * 4096 + 4096);
    assert.equal(count('CohereLabs/aya-expanse-8b'), 8_028_033_024);
    // Command R7B (cohere2) has the same sizes.
    assert.equal(count('CohereForAI/c4ai-command-r7b-12-2024'), 8_028_033_024);
    // use_qk_norm (Command R+): CohereLayerNorm weights of (heads, head_dim) on q and (kv heads, head_dim) on k in every
    // layer, 32 x (32 + 8) x 128 more at Aya Expanse 8B's shape.
    const config = { ...catalogModel('CohereForAI/aya-expanse-8b')!.config, use_qk_norm: true };
    const parsed = parseArchitecture(config);
    assert.ok(parsed.ok);
    assert.equal(countParameters(parsed.arch, 'causal_lm', 2).total, 8_028_033_024 + 32 * 40 * 128);
  });

  it('Minitron by hand: LayerNorm1P with biases, an ungated MLP (up_proj, down_proj), an untied 256,000-token head', () => {
    // Minitron-4B: 24 x 128 queries and 8 x 128 keys / values over 3072, MLP 2 x 3072 x 9216, two LayerNorms of weight
    // and bias; untied embeddings and head; the final LayerNorm.
    const layer4 = 2 * 3072 * 3072 + 2 * 3072 * 1024 + 2 * 3072 * 9216 + 2 * 2 * 3072;
    assert.equal(count('nvidia/Minitron-4B-Base'), 32 * layer4 + 2 * 256_000 * 3072 + 2 * 3072); // 4,190,509,056
    assert.equal(count('nvidia/Nemotron-Mini-4B-Instruct'), 4_190_509_056);
    // Minitron-8B: 48 x 128 queries over 4096 (6144 wide), MLP 16384.
    const layer8 = 2 * 4096 * 6144 + 2 * 4096 * 1024 + 2 * 4096 * 16_384 + 2 * 2 * 4096;
    assert.equal(count('nvidia/Minitron-8B-Base'), 32 * layer8 + 2 * 256_000 * 4096 + 2 * 4096); // 8,271,699,968
    assert.equal(archOf('nvidia/Minitron-8B-Base').family, 'nemotron');
  });

  it('H2O-Danube2 1.8B by hand: Mistral layers of 2560 with 8 kv heads, an untied 32,000-token head', () => {
    // q and o 2560^2, k and v 2560 x 640, MLP 3 x 2560 x 6912, two RMSNorms; embeddings and head; the final norm.
    const layer = 2 * 2560 * 2560 + 2 * 2560 * 640 + 3 * 2560 * 6912 + 2 * 2560;
    assert.equal(count('h2oai/h2o-danube2-1.8b-base'), 24 * layer + 2 * 32_000 * 2560 + 2560);
    assert.equal(count('h2oai/h2o-danube2-1.8b-chat'), 1_831_201_280);
  });

  it('OLMoE-1B-7B by hand: q/k norms over the whole projections, 64 experts of 1024 and their router per layer', () => {
    // Per layer q/k/v/o 4 x 2048^2, q_norm and k_norm of 2048 each, the router 2048 x 64, 64 experts x 3 x 2048 x 1024,
    // input and post-attention norms; untied 50,304 x 2048 embeddings and head; the final norm.
    const layer = 4 * 2048 * 2048 + 2 * 2048 + 2048 * 64 + 64 * 3 * 2048 * 1024 + 2 * 2048;
    assert.equal(count('allenai/OLMoE-1B-7B-0924'), 16 * layer + 2 * 50_304 * 2048 + 2048); // 6,919,161,856
    assert.equal(count('allenai/OLMoE-1B-7B-0924'), 6_919_161_856);
  });

  it('GLM-4-9B-0414 by hand: q/k/v biases (2 kv heads of 128), fused gate_up_proj, four norms per layer', () => {
    const layer =
      4096 * 4096 + 4096 + 2 * (4096 * 256 + 256) + 4096 * 4096 + 4096 * 2 * 13696 + 13696 * 4096 + 4 * 4096;
    assert.equal(count('THUDM/GLM-4-9B-0414'), 40 * layer + 2 * 151_552 * 4096 + 4096); // 9,400,279,040
    assert.equal(count('THUDM/GLM-4-9B-0414'), 9_400_279_040);
    const a = archOf('THUDM/GLM-4-9B-0414');
    assert.equal(a.partialRotary, 0.5);
    assert.deepEqual(
      linearModules(a).map((m) => m.name),
      ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_up_proj', 'down_proj'],
    );
  });

  it('GLM-4.5-Air and GLM-4.5 by hand: GQA with q/k/v biases, heads wider than hidden / heads, DeepSeek-style MoE', () => {
    // GLM-4.5-Air config.json: 96 heads x 128 (12,288 > hidden 4,096), 8 kv heads, q/k/v biases (o_proj has none),
    // 1 dense layer of 10,944, then 45 MoE layers of 128 experts x 1,408 + 1 shared expert + the router weight.
    const airAttn = 4096 * 12288 + 12288 + 2 * (4096 * 1024 + 1024) + 12288 * 4096 + 2 * 4096; // 109,074,432
    assert.equal(airAttn, 109_074_432);
    const airMoe = (128 + 1) * 3 * 4096 * 1408 + 128 * 4096;
    const air = 46 * airAttn + 3 * 4096 * 10944 + 45 * airMoe + 2 * 151552 * 4096 + 4096;
    assert.equal(air, 106_852_245_504); // the model card's "106 billion total parameters"
    assert.equal(count('zai-org/GLM-4.5-Air'), air);
    // GLM-4.5: hidden 5,120, 3 dense layers of 12,288, 89 MoE layers of 160 experts x 1,536, per-head q/k norms (2 x 128).
    const attn = 5120 * 12288 + 12288 + 2 * (5120 * 1024 + 1024) + 12288 * 5120 + 2 * 5120 + 2 * 128;
    const moe = (160 + 1) * 3 * 5120 * 1536 + 160 * 5120;
    const full = 92 * attn + 3 * 3 * 5120 * 12288 + 89 * moe + 2 * 151552 * 5120 + 5120;
    assert.equal(full, 352_797_814_784); // "355 billion" on the card; the Hub's 358B adds the stored MTP layer 92
    assert.equal(count('zai-org/GLM-4.5'), full);
    const arch = archOf('zai-org/GLM-4.5');
    assert.equal(arch.qkNorm, true);
    assert.equal(archOf('zai-org/GLM-4.5-Air').qkNorm, false);
    assert.equal(countParameters(arch).largestBlock, attn + moe);
    const mods = linearModules(arch);
    assert.deepEqual(
      mods.filter((m) => m.group === 'attention').map((m) => `${m.name}${m.bias ? '+b' : ''}`),
      ['q_proj+b', 'k_proj+b', 'v_proj+b', 'o_proj'],
    );
    assert.equal(mods.find((m) => m.name === 'gate')?.parameter, true); // Glm4MoeTopkRouter.weight is an nn.Parameter
    assert.equal(mods.find((m) => m.name === 'experts.gate_proj')?.count, 89 * 160);
  });

  it('MoE: Mixtral experts are 8 per layer, each token through 2 (token fraction 2/8)', () => {
    const arch = archOf('mistralai/Mixtral-8x7B-v0.1');
    const w1 = linearModules(arch).find((x) => x.name === 'experts.w1');
    assert.equal(w1?.count, 32 * 8);
    assert.equal(w1?.tokenFraction, 0.25);
  });
});

describe('architecture: OPT (opt)', () => {
  // facebook/opt-125m and opt-350m config.json (OPTConfig names: ffn_dim, word_embed_proj_dim, do_layer_norm_before,
  // enable_bias, dropout). The totals are the ones PyTorch counts for the loaded checkpoints (125,239,296 in OpenVINO's
  // OPT-125m pruning notebook, 331,196,416 as OPT-350M's parameter count in DiZO's kernel benchmark).
  const OPT = {
    model_type: 'opt',
    architectures: ['OPTForCausalLM'],
    activation_function: 'relu',
    attention_dropout: 0.0,
    do_layer_norm_before: true,
    dropout: 0.1,
    enable_bias: true,
    ffn_dim: 3072,
    hidden_size: 768,
    layer_norm_elementwise_affine: true,
    max_position_embeddings: 2048,
    num_attention_heads: 12,
    num_hidden_layers: 12,
    vocab_size: 50272,
    word_embed_proj_dim: 768,
  };
  const arch = (cfg: Record<string, unknown>): Architecture => {
    const r = parseArchitecture(cfg);
    assert.ok(r.ok, JSON.stringify(r.problems));
    return r.arch;
  };

  it('opt-125m by hand: learned positions with 2 extra rows, biased q/k/v/out_proj and fc1/fc2, two LayerNorms per layer, tied head', () => {
    const a = arch(OPT);
    // 50272 x 768 tokens + 2050 x 768 positions + 12 x (4 x (768² + 768) + (768 x 3072 + 3072) + (3072 x 768 + 768) + 2 x 2 x 768)
    // + the final LayerNorm (2 x 768); the head is tied to the token embedding.
    const perLayer = 4 * (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768) + 4 * 768;
    assert.equal(50272 * 768 + 2050 * 768 + 12 * perLayer + 2 * 768, 125_239_296);
    assert.equal(countParameters(a).total, 125_239_296);
    assert.deepEqual(
      linearModules(a).map((m) => `${m.name}${m.bias ? '+b' : ''}`),
      ['q_proj+b', 'k_proj+b', 'v_proj+b', 'out_proj+b', 'fc1+b', 'fc2+b'],
    );
    assert.deepEqual(
      [a.positions, a.gatedMlp, a.tied, a.norm, a.hiddenDropout, a.attentionDropout],
      ['learned', false, true, 'layer', 0.1, 0],
    );
  });

  it('opt-350m by hand: 512-wide embeddings projected in and out, post-LayerNorm blocks, no final norm', () => {
    const a = arch({
      ...OPT,
      hidden_size: 1024,
      num_hidden_layers: 24,
      num_attention_heads: 16,
      ffn_dim: 4096,
      word_embed_proj_dim: 512,
      do_layer_norm_before: false,
    });
    const perLayer = 4 * (1024 * 1024 + 1024) + (1024 * 4096 + 4096) + (4096 * 1024 + 1024) + 4 * 1024;
    // 50272 x 512 tokens + project_in and project_out (512 x 1024 each, no bias) + 2050 x 1024 positions + 24 layers.
    assert.equal(50272 * 512 + 2 * 512 * 1024 + 2050 * 1024 + 24 * perLayer, 331_196_416);
    assert.equal(countParameters(a).total, 331_196_416);
    assert.equal(countParameters({ ...a, tied: false }).head, 50272 * 512);
  });

  it("enable_bias: false drops every linear bias; layer_norm_elementwise_affine: false drops the norms' parameters", () => {
    const a = arch({ ...OPT, enable_bias: false });
    assert.ok(linearModules(a).every((m) => !m.bias));
    const b = arch({ ...OPT, layer_norm_elementwise_affine: false });
    assert.equal(countParameters(b).total, 125_239_296 - (12 * 4 + 2) * 768);
  });
});

describe('architecture: GPT-J, GPT-Neo, Falcon, StarCoder, StarCoder2, OLMo, InternLM2, Baichuan 2, ChatGLM, StableLM, MiniCPM', () => {
  const total = (cfg: Record<string, unknown>): number => {
    const r = parseArchitecture(cfg);
    assert.ok(r.ok, JSON.stringify(r.problems));
    return countParameters(r.arch).total;
  };
  const names = (cfg: Record<string, unknown>): string[] => {
    const r = parseArchitecture(cfg);
    assert.ok(r.ok);
    return linearModules(r.arch).map((m) => `${m.name} ${m.inFeatures}x${m.outFeatures}${m.bias ? '+b' : ''}`);
  };

  it('GPT-J-6B: one LayerNorm per block, q/k/v/out_proj without bias, fc_in/fc_out with, an untied lm_head with a bias', () => {
    const cfg = {
      model_type: 'gptj',
      n_embd: 4096,
      n_head: 16,
      n_inner: null,
      n_layer: 28,
      n_positions: 2048,
      rotary_dim: 64,
      tie_word_embeddings: false,
      vocab_size: 50400,
    };
    const layer = 4 * 4096 * 4096 + (4096 * 16384 + 16384) + (16384 * 4096 + 4096) + 2 * 4096;
    // 6,050,882,784: PyTorch's count of the loaded model in a public GPT-J LoRA example's output.
    assert.equal(50400 * 4096 + 28 * layer + 2 * 4096 + (50400 * 4096 + 50400), 6_050_882_784);
    assert.equal(total(cfg), 6_050_882_784);
    const r = parseArchitecture(cfg);
    assert.ok(r.ok && r.arch.partialRotary === 0.25);
  });

  it('GPT-Neo-125M: learned positions, q/k/v_proj without bias, out_proj, c_fc and c_proj with, tied', () => {
    const cfg = {
      model_type: 'gpt_neo',
      hidden_size: 768,
      num_layers: 12,
      num_heads: 12,
      max_position_embeddings: 2048,
      vocab_size: 50257,
      intermediate_size: null,
    };
    const layer = 3 * 768 * 768 + (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768) + 4 * 768;
    assert.equal(total(cfg), 50257 * 768 + 2048 * 768 + 12 * layer + 2 * 768);
    assert.equal(total(cfg), 125_198_592);
  });

  it('Falcon: multi-query with one shared LayerNorm (7B), kv groups with ln_attn and ln_mlp (40B), a sequential biased block with ALiBi (RW-1B)', () => {
    const f7 = {
      model_type: 'falcon',
      hidden_size: 4544,
      num_attention_heads: 71,
      num_hidden_layers: 32,
      multi_query: true,
      parallel_attn: true,
      bias: false,
      alibi: false,
      vocab_size: 65024,
    };
    // query_key_value: 4544 -> (71 + 2) x 64; dense 4544²; MLP 4 x 4544 each way; one LayerNorm; tied head.
    assert.equal(
      total(f7),
      65024 * 4544 + 32 * (4544 * 73 * 64 + 4544 * 4544 + 2 * 4544 * 18176 + 2 * 4544) + 2 * 4544,
    );
    assert.equal(total(f7), 6_921_720_704);
    assert.deepEqual(names(f7), [
      'query_key_value 4544x4672',
      'dense 4544x4544',
      'dense_h_to_4h 4544x18176',
      'dense_4h_to_h 18176x4544',
    ]);
    const f40 = {
      model_type: 'falcon',
      hidden_size: 8192,
      num_attention_heads: 128,
      num_kv_heads: 8,
      num_hidden_layers: 60,
      new_decoder_architecture: true,
      bias: false,
      vocab_size: 65024,
    };
    assert.equal(
      total(f40),
      65024 * 8192 + 60 * (8192 * (128 + 16) * 64 + 8192 * 8192 + 2 * 8192 * 32768 + 2 * 2 * 8192) + 2 * 8192,
    );
    const rw = {
      model_type: 'falcon',
      hidden_size: 2048,
      num_attention_heads: 32,
      num_hidden_layers: 24,
      multi_query: false,
      parallel_attn: false,
      bias: true,
      alibi: true,
      vocab_size: 50304,
    };
    const rwLayer =
      2048 * 6144 + 6144 + (2048 * 2048 + 2048) + (2048 * 8192 + 8192) + (8192 * 2048 + 2048) + 2 * 2 * 2048;
    assert.equal(total(rw), 50304 * 2048 + 24 * rwLayer + 2 * 2048);
    const p = parseArchitecture(rw);
    assert.ok(p.ok && p.arch.positions === 'alibi');
  });

  it('StarCoder (gpt_bigcode): c_attn to the queries and one key and value head, learned positions, tied', () => {
    const cfg = {
      model_type: 'gpt_bigcode',
      n_embd: 6144,
      n_head: 48,
      n_inner: 24576,
      n_layer: 40,
      n_positions: 8192,
      multi_query: true,
      vocab_size: 49152,
    };
    const layer =
      6144 * (6144 + 2 * 128) +
      6144 +
      256 +
      (6144 * 6144 + 6144) +
      (6144 * 24576 + 24576) +
      (24576 * 6144 + 6144) +
      4 * 6144;
    assert.equal(total(cfg), 49152 * 6144 + 8192 * 6144 + 40 * layer + 2 * 6144);
    assert.equal(total(cfg), 15_517_456_384);
  });

  it('StarCoder2-15B: LayerNorms and biases (use_bias), GQA, c_fc / c_proj, untied', () => {
    const cfg = {
      model_type: 'starcoder2',
      hidden_size: 6144,
      intermediate_size: 24576,
      num_attention_heads: 48,
      num_hidden_layers: 40,
      num_key_value_heads: 4,
      use_bias: true,
      vocab_size: 49152,
      tie_word_embeddings: false,
    };
    const layer =
      6144 * 6144 +
      6144 +
      2 * (6144 * 512 + 512) +
      (6144 * 6144 + 6144) +
      (6144 * 24576 + 24576) +
      (24576 * 6144 + 6144) +
      4 * 6144;
    assert.equal(total(cfg), 2 * 49152 * 6144 + 40 * layer + 2 * 6144);
    assert.equal(total(cfg), 15_957_889_024);
  });

  it("OLMo (1): Llama's modules, LayerNorms without weights (no norm parameters at all)", () => {
    const cfg = {
      model_type: 'olmo',
      hidden_size: 2048,
      intermediate_size: 8192,
      num_attention_heads: 16,
      num_hidden_layers: 16,
      vocab_size: 50304,
      tie_word_embeddings: true,
    };
    assert.equal(total(cfg), 50304 * 2048 + 16 * (4 * 2048 * 2048 + 3 * 2048 * 8192));
    assert.equal(total(cfg), 1_176_764_416);
  });

  it('InternLM2-7B: wqkv with 8 kv groups, wo, w1 / w3 / w2, untied', () => {
    const cfg = {
      model_type: 'internlm2',
      bias: false,
      hidden_size: 4096,
      intermediate_size: 14336,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      num_key_value_heads: 8,
      vocab_size: 92544,
      tie_word_embeddings: false,
    };
    assert.equal(total(cfg), 2 * 92544 * 4096 + 32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336 + 2 * 4096) + 4096);
    assert.deepEqual(
      names(cfg).map((n) => n.split(' ')[0]),
      ['wqkv', 'wo', 'w1', 'w3', 'w2'],
    );
  });

  it("InternLM-7B (the first generation): Llama's modules with q/k/v/o biases as `bias` says, none on the MLP", () => {
    // internlm/internlm-7b config.json; modeling_internlm.py: nn.Linear(..., bias=config.bias) for q/k/v/o_proj, the
    // MLP's gate/up/down_proj with bias=False.
    const cfg = {
      model_type: 'internlm',
      bias: true,
      hidden_size: 4096,
      intermediate_size: 11008,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      vocab_size: 103168,
      tie_word_embeddings: false,
    };
    const layer = 4 * (4096 * 4096 + 4096) + 3 * 4096 * 11008 + 2 * 4096;
    assert.equal(total(cfg), 2 * 103168 * 4096 + 32 * layer + 4096);
    assert.equal(total(cfg), 7_321_948_160);
    // InternLMConfig's default is bias=True; `bias: false` drops the four attention biases of every layer.
    const { bias: _bias, ...unset } = cfg;
    assert.equal(total(unset), 7_321_948_160);
    assert.equal(total({ ...cfg, bias: false }), 7_321_948_160 - 32 * 4 * 4096);
  });

  it("Baichuan2-7B: W_pack (q, k, v), o_proj, Llama's MLP, untied", () => {
    const cfg = {
      model_type: 'baichuan',
      hidden_size: 4096,
      intermediate_size: 11008,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      vocab_size: 125696,
      tie_word_embeddings: false,
    };
    assert.equal(total(cfg), 2 * 125696 * 4096 + 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096) + 4096);
    assert.equal(total(cfg), 7_505_973_248);
  });

  it("StableLM 2: Llama's modules with q/k/v biases (use_qkv_bias) and LayerNorms; the 12B's parallel block and per-head q/k LayerNorms", () => {
    const cfg = {
      model_type: 'stablelm',
      hidden_size: 2048,
      intermediate_size: 5632,
      num_attention_heads: 32,
      num_hidden_layers: 24,
      num_key_value_heads: 32,
      vocab_size: 100352,
      use_qkv_bias: true,
      partial_rotary_factor: 0.25,
      tie_word_embeddings: false,
    };
    const layer = 4 * 2048 * 2048 + 3 * 2048 + 3 * 2048 * 5632 + 2 * 2 * 2048;
    assert.equal(total(cfg), 2 * 100352 * 2048 + 24 * layer + 2 * 2048);
    const big = {
      ...cfg,
      hidden_size: 5120,
      intermediate_size: 13824,
      num_hidden_layers: 40,
      num_key_value_heads: 8,
      use_qkv_bias: false,
      use_parallel_residual: true,
      qk_layernorm: true,
    };
    const bigLayer = 2 * 5120 * 5120 + 2 * 5120 * 1280 + 3 * 5120 * 13824 + 2 * 5120 + (32 + 8) * 160;
    assert.equal(total(big), 2 * 100352 * 5120 + 40 * bigLayer + 2 * 5120);
  });

  it('ChatGLM3-6B: query_key_value with 2 kv groups and q/k/v biases, SwiGLU dense_h_to_4h, padded vocabulary', () => {
    const cfg = {
      model_type: 'chatglm',
      add_bias_linear: false,
      add_qkv_bias: true,
      ffn_hidden_size: 13696,
      hidden_size: 4096,
      kv_channels: 128,
      multi_query_attention: true,
      multi_query_group_num: 2,
      num_attention_heads: 32,
      num_layers: 28,
      padded_vocab_size: 65024,
      seq_length: 8192,
      tie_word_embeddings: false,
    };
    // 6,243,584,000: the total printed for ChatGLM2-6B and ChatGLM3-6B in calflops' README and many fine-tuning logs.
    assert.equal(total(cfg), 6_243_584_000);
    assert.deepEqual(names(cfg), [
      'query_key_value 4096x4608+b',
      'dense 4096x4096',
      'dense_h_to_4h 4096x27392',
      'dense_4h_to_h 13696x4096',
    ]);
  });

  it('ChatGLM-6B (first generation): query_key_value, dense and a GELU MLP, all biased, LayerNorms, tied; same model_type as ChatGLM3', () => {
    const m = findModel('THUDM/chatglm-6b');
    assert.ok(m.ok);
    const cfg: Record<string, unknown> = { ...m.model.config };
    const r = parseArchitecture(cfg);
    assert.ok(r.ok && r.arch.family === 'chatglm1');
    // 130,528 x 4096 embeddings (the head tied to them); per layer query_key_value 4096 -> 12,288, dense 4096 -> 4096,
    // dense_h_to_4h 4096 -> 16,384, dense_4h_to_h back, each with a bias, and two LayerNorms; a final LayerNorm.
    const layer =
      4096 * 12_288 + 12_288 + 4096 * 4096 + 4096 + 4096 * 16_384 + 16_384 + 16_384 * 4096 + 4096 + 4 * 4096;
    assert.equal(total(cfg), 130_528 * 4096 + 28 * layer + 2 * 4096);
    assert.equal(total(cfg), 6_173_286_400); // the 6.2B of its model card
    assert.deepEqual(names(cfg), [
      'query_key_value 4096x12288+b',
      'dense 4096x4096+b',
      'dense_h_to_4h 4096x16384+b',
      'dense_4h_to_h 16384x4096+b',
    ]);
    const v3 = findModel('THUDM/chatglm3-6b');
    assert.ok(v3.ok);
    const r3 = parseArchitecture(v3.model.config);
    assert.ok(r3.ok && r3.arch.family === 'chatglm');
  });

  it("MiniCPM-2B (remote code): Llama's modules, tied unless the config says otherwise; MiniCPM-MoE is refused at num_experts", () => {
    // Fields of MiniCPM-2B-sft-bf16's config.json (catalog openbmb.ts): 40 layers of 36 heads over 2304, MLP 5760,
    // 122,753 tokens, no tie_word_embeddings (MiniCPMConfig's default: tied).
    const m = findModel('openbmb/MiniCPM-2B-sft-bf16');
    assert.ok(m.ok);
    const cfg: Record<string, unknown> = { ...m.model.config };
    const layer = 4 * 2304 * 2304 + 3 * 2304 * 5760 + 2 * 2304;
    assert.equal(total(cfg), 122_753 * 2304 + 40 * layer + 2304);
    assert.equal(total(cfg), 2_724_880_896);
    assert.equal(total({ ...cfg, tie_word_embeddings: false }), 2_724_880_896 + 122_753 * 2304);
    assert.deepEqual(
      names(cfg).map((n) => n.split(' ')[0]),
      ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    );
    const moe = parseArchitecture({ ...cfg, num_experts: 8, num_experts_per_tok: 2 });
    assert.ok(!moe.ok && moe.problems.some((p) => p.field === 'num_experts'));
  });
});

describe('the head a checkpoint was saved with', () => {
  it("reads config.json architectures: a sequence classifier or a masked LM; causal LMs keep the family's head", () => {
    const m = findModel('meta-llama/Llama-3.1-8B');
    assert.ok(m.ok);
    const head = (architectures: unknown): string => {
      const p = parseArchitecture({ ...m.model.config, architectures });
      assert.ok(p.ok);
      return p.arch.defaultHead;
    };
    assert.equal(head(['LlamaForSequenceClassification']), 'seq_cls');
    assert.equal(head(['LlamaForCausalLM']), 'causal_lm');
    assert.equal(head(undefined), 'causal_lm');
    // A reward-model checkpoint's count already has its score layer: 8,030,261,248 - 128,256 x 4,096 + 4,096.
    const p = parseArchitecture({ ...m.model.config, architectures: ['LlamaForSequenceClassification'] });
    assert.ok(p.ok);
    assert.equal(countParameters(p.arch, p.arch.defaultHead, 1).total, 8_030_261_248 - 128_256 * 4096 + 4096);
  });

  it('reads a bare encoder (BertModel, RobertaModel, XLMRobertaModel: sentence-embedding checkpoints) as having no head', () => {
    const bert = findModel('google-bert/bert-base-uncased');
    assert.ok(bert.ok);
    for (const architectures of [['BertModel'], ['RobertaModel'], ['XLMRobertaModel']]) {
      const bare = parseArchitecture({ ...bert.model.config, architectures });
      assert.ok(bare.ok && bare.arch.defaultHead === 'none', architectures[0]);
    }
  });
});

describe('FAMILY_TRAITS', () => {
  // The families the name checks still written out in core/estimate.ts, core/terms/activations.ts and core/step-time.ts
  // were written for. Each row pins a trait to one of those checks, over the families that reach it, so that replacing
  // the check by the trait is a mechanical change with the same estimates. A family added later is not listed: where its
  // right trait differs from what the name check does for it today, the switch changes its estimate on purpose.
  const families: readonly Family[] = [
    'llama',
    'mistral',
    'qwen2',
    'qwen3',
    'gemma',
    'gemma2',
    'phi3',
    'phi',
    'qwen',
    'gpt2',
    'gpt_neox',
    'bert',
    'roberta',
    't5',
    'mixtral',
    'qwen2_moe',
    'qwen3_moe',
    'gpt_oss',
    'gemma3',
    'deepseek_v3',
    'glm4_moe',
    'llama4',
    'olmo2',
    'olmoe',
    'glm4',
    'bloom',
    'qwen3_next',
    'granite_hybrid',
    'nemotron_h',
    'falcon_h1',
    'jamba',
    'kimi_linear',
  ];
  /** The families blockActivations' `default:` case replays (the others have a case of their own). */
  const defaultCase = families.filter(
    (f) => !['gpt2', 'gpt_neox', 'phi', 'bloom', 'bert', 'roberta', 't5', 'nemotron_h', 'falcon_h1'].includes(f),
  );
  const is =
    (...names: Family[]) =>
    (f: Family): boolean =>
      names.includes(f);
  /** [where the name check is, what it tests today, the trait that replaces it, the families that reach it]. */
  type Check = [string, (f: Family) => unknown, (t: FamilyTraits) => unknown, (readonly Family[])?];
  const checks: Check[] = [
    [
      'estimate.ts fusedExpertsIn and estimateImpl: FUSED_EXPERT_FAMILIES.has(family) (twice)',
      is(
        'mixtral',
        'qwen2_moe',
        'qwen3_moe',
        'deepseek_v3',
        'glm4_moe',
        'qwen3_next',
        'granite_hybrid',
        'nemotron_h',
        'jamba',
        'olmoe',
      ),
      (t) => t.fusedExperts === 'from-5.0' || t.fusedExperts === 'only',
    ],
    [
      "estimate.ts estimateImpl: family === 'llama4' && bnb (withSequentialExperts)",
      is('llama4'),
      (t) => t.sequentialExpertsUnderBnb,
    ],
    [
      "estimate.ts estimateImpl: family === 'gpt_oss' (transformers_version assumption)",
      is('gpt_oss'),
      (t) => t.moeBlock === 'gpt_oss',
    ],
    [
      'dtypes.ts planDtypes: the family trait eagerOnlyAttention',
      (f) => (['gpt_oss', 'gptj', 'gpt_neo'].includes(f) ? ['sdpa'] : f === 'bloom' ? ['sdpa', 'flash'] : undefined),
      (t) => t.eagerOnlyAttention?.replaces,
    ],
    ["estimate.ts estimateImpl: family === 'llama4' && attention flash", is('llama4'), (t) => !t.flashAttention2],
    [
      'estimate.ts ROPE_TABLES_PER_LAYER.has(family)',
      is('llama', 'mistral', 'qwen2', 'mixtral'),
      (t) => t.ropeTablesPerLayerBefore === '4.39',
    ],
    [
      "estimate.ts stagePhases: family === 'nemotron_h' (mamba split kernels, twice)",
      is('nemotron_h'),
      (t) => t.mambaSplitKernels,
    ],
    [
      "estimate.ts stagePhases: family === 't5' (layers, evaluation; twice)",
      is('t5'),
      (t) => t.stack === 'encoder-decoder',
    ],
    [
      'estimate.ts stagePhases: the eager mask, not for gpt2, gpt_neox, bert, roberta, t5',
      (f) => !['gpt2', 'gpt_neox', 'bert', 'roberta', 't5'].includes(f),
      (t) => t.eagerMask4d,
    ],
    ['activations.ts UNSLOTH_FAMILIES.has(family)', is('llama', 'mistral', 'qwen2', 'qwen3'), (t) => t.unslothFastPath],
    [
      'activations.ts rmsNormOf: gemma, gemma2, gemma3, qwen3_next',
      is('gemma', 'gemma2', 'gemma3', 'qwen3_next'),
      (t) => t.rmsNormStyle === 'gemma',
    ],
    ['activations.ts rmsNormOf: gpt_oss, olmo2', is('gpt_oss', 'olmo2'), (t) => t.rmsNormStyle === 'gpt_oss'],
    ["activations.ts rmsNormOf: gpt_oss's weights in fp32", is('gpt_oss'), (t) => t.fp32NormWeights],
    ["activations.ts blockActivations: kimi_linear's fp32 residual", is('kimi_linear'), (t) => t.fp32MoeResidual],
    [
      'activations.ts blockActivations: sandwich = gemma2, gemma3, glm4',
      is('gemma2', 'gemma3', 'glm4'),
      (t) => t.normPlacement === 'sandwich',
    ],
    ['activations.ts blockActivations: postOnly = olmo2', is('olmo2'), (t) => t.normPlacement === 'post', defaultCase],
    [
      'activations.ts blockActivations: normBeforeSum = postOnly or glm4',
      is('olmo2', 'glm4'),
      (t) => t.postNormBeforeResidual,
    ],
    [
      "activations.ts blockActivations case gpt_neox / phi: family === 'phi' (8 times)",
      is('phi'),
      (t) => t.fusedQkv === undefined,
      ['gpt_neox', 'phi'],
    ],
    [
      'activations.ts blockActivations case gpt_neox / phi: one shared LayerNorm',
      is('phi'),
      (t) => t.normPlacement === 'shared',
      ['gpt_neox', 'phi'],
    ],
    [
      'activations.ts blockActivations case gpt_neox / phi: softmaxFp32',
      is('phi'),
      (t) => t.eagerSoftmaxFp32,
      ['gpt_neox', 'phi'],
    ],
    [
      "activations.ts blockActivations: phi3's fused qkv_proj",
      is('phi3'),
      (t) => t.fusedQkv === 'qkv_proj',
      defaultCase,
    ],
    [
      "activations.ts blockActivations: qwen's c_attn and c_proj (twice)",
      is('qwen'),
      (t) => t.fusedQkv === 'c_attn',
      defaultCase,
    ],
    ["activations.ts blockActivations: glm4's interleaved cos / sin", is('glm4'), (t) => t.interleavedRotary],
    [
      'activations.ts blockActivations: softmaxFp32 unless gpt_oss or llama4 (twice)',
      (f) => f !== 'gpt_oss' && f !== 'llama4',
      (t) => t.eagerSoftmaxFp32,
      defaultCase,
    ],
    ['activations.ts blockActivations: sinks for gpt_oss', is('gpt_oss'), (t) => t.attentionSinks],
    [
      'activations.ts blockActivations: gatedMlp style (phi3, glm4, qwen, granite_hybrid)',
      (f) =>
        f === 'phi3' || f === 'glm4' ? 'phi3' : f === 'qwen' ? 'qwen' : f === 'granite_hybrid' ? 'granite' : 'llama',
      (t) => t.gatedMlpStyle,
      defaultCase,
    ],
    [
      "activations.ts blockActivations: granite_hybrid's shared MLP (twice)",
      is('granite_hybrid'),
      (t) => t.gatedMlpStyle === 'granite',
    ],
    [
      'activations.ts blockActivations and groupedExperts: gpt_oss (three times)',
      is('gpt_oss'),
      (t) => t.moeBlock === 'gpt_oss',
    ],
    ["activations.ts blockActivations: kimi_linear's MoE (twice)", is('kimi_linear'), (t) => t.moeBlock === 'kimi'],
    [
      "activations.ts blockActivations: glm4_moe's DeepSeek MoE (deepseek_v3 takes the MLA branch)",
      is('glm4_moe', 'deepseek_v3'),
      (t) => t.moeBlock === 'deepseek',
    ],
    ["activations.ts blockActivations: llama4's MoE", is('llama4'), (t) => t.moeBlock === 'llama4'],
    ["activations.ts blockActivations: family === 't5'", is('t5'), (t) => t.stack === 'encoder-decoder'],
    ["activations.ts moeMlp: jamba's router", is('jamba'), (t) => t.moeBlock === 'jamba'],
    [
      "activations.ts moeMlp: mixtral's expert names",
      is('mixtral'),
      (t) => t.expertNames.join() === 'w1,w3,w2',
      families.filter((f) => FAMILY_TRAITS[f].moeBlock === 'mixtral' || FAMILY_TRAITS[f].moeBlock === 'jamba'),
    ],
    ["step-time.ts: family !== 'llama4' (active parameters)", (f) => f !== 'llama4', (t) => !t.expertsRunAllTokens],
  ];
  for (const [where, today, trait, reached] of checks) {
    it(`replaces ${where}`, () => {
      for (const f of reached ?? families) assert.deepEqual(trait(FAMILY_TRAITS[f]), today(f), f);
    });
  }

  it('has a row for every family, and FUSED_EXPERT_FAMILIES is read from it', () => {
    for (const f of families) assert.ok(FAMILY_TRAITS[f], f);
    assert.deepEqual([...FUSED_EXPERT_FAMILIES].sort(), [
      'deepseek_v3',
      'glm4_moe',
      'granite_hybrid',
      'jamba',
      'mixtral',
      'nemotron_h',
      'olmoe',
      'qwen2_moe',
      'qwen3_moe',
      'qwen3_next',
    ]);
  });
});
