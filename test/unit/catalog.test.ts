// The built-in model catalog checked as data: every entry parses and is counted by the architecture code, a published
// total agrees with that count, a size in the name agrees with it, names are unique, fine-tunes name a listed base.
import * as assert from 'node:assert/strict';
import {
  countParameters,
  FAMILY_TRAITS,
  parseArchitecture,
  type Architecture,
  type Family,
} from '../../src/core/architecture';
import { MODEL_CATALOG, type CatalogModel } from '../../src/core/catalog/models';
import { findModel, sizeInName } from '../../src/core/lookup';

const HEADS = ['causal_lm', 'none', 'masked_lm', 'seq2seq_lm', 'seq_cls'] as const;

function archOf(m: CatalogModel): Architecture {
  const r = parseArchitecture(m.config);
  assert.ok(r.ok, `${m.id}: ${r.ok ? '' : r.problems.map((p) => p.message).join('; ')}`);
  return r.arch;
}

/** Checkpoints whose count is far from the size their name rounds to, and why. */
const NAME_SIZE_EXCEPTIONS: Readonly<Record<string, string>> = {
  'tiiuae/Falcon3-1B-Base':
    'a 131,072-token vocabulary, untied: 537M of embeddings beside 1.1B of layers (its model page: 1.67B)',
  'tiiuae/Falcon3-1B-Instruct': 'as Falcon3-1B-Base',
  'allenai/OLMoE-1B-7B-0924': 'the active parameters first: 1.3B of 6.9B take part in a token (its model page)',
};

const normalize = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .trim();

describe('catalog', () => {
  it('has at least 400 checkpoints, each with the config.json it was read from', () => {
    assert.ok(MODEL_CATALOG.length >= 400, `${MODEL_CATALOG.length} entries`);
    const bad = MODEL_CATALOG.filter(
      (m) => !m.source.startsWith('https://huggingface.co/') && !m.source.includes('config.json'),
    );
    assert.deepEqual(
      bad.map((m) => m.id),
      [],
    );
  });

  it('every entry parses, and a published total is within 1 % of the count of one of its heads', () => {
    const bad: string[] = [];
    for (const m of MODEL_CATALOG) {
      const r = parseArchitecture(m.config);
      if (!r.ok) {
        bad.push(`${m.id}: ${r.problems.map((p) => p.message).join('; ')}`);
        continue;
      }
      if (m.publishedParams === undefined) continue;
      const published = m.publishedParams;
      const off = Math.min(...HEADS.map((h) => Math.abs(countParameters(r.arch, h).total - published) / published));
      if (off > 0.01)
        bad.push(`${m.id}: ${published} vs ${countParameters(r.arch).total} (${(off * 100).toFixed(2)} % off)`);
    }
    assert.deepEqual(bad, []);
  });

  it('a size in the name agrees with the count (between 0.75 and 1.5 times it), except where a listed reason says why not', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const m of MODEL_CATALOG) {
      const size = sizeInName(m.id);
      if (size === undefined || NAME_SIZE_EXCEPTIONS[m.id]) continue;
      checked++;
      const count = countParameters(archOf(m)).total;
      const ratio = count / size;
      if (ratio < 0.75 || ratio > 1.5)
        bad.push(
          `${m.id}: ${count.toLocaleString('en-US')} for ${size.toLocaleString('en-US')} (x${ratio.toFixed(2)})`,
        );
    }
    assert.ok(checked >= 280, `${checked} entries with a size in the name`);
    assert.deepEqual(bad, []);
  });

  it('reads sizes from names the way people write them', () => {
    const cases: Array<[string, number | undefined]> = [
      ['facebook/opt-1.3b', 1.3e9],
      ['EleutherAI/pythia-70m', 70e6],
      ['bigscience/bloom-7b1', 7.1e9],
      ['mistralai/Mixtral-8x7B-v0.1', 56e9],
      ['internlm/internlm2-1_8b', 1.8e9],
      ['hf_llama_7b', 7e9],
      ['qwen1_8b', undefined],
      ['qwen2_5_7b_instruct', 7e9],
      ['Qwen/Qwen3-30B-A3B', 30e9],
      ['meta-llama/Llama-4-Scout-17B-16E-Instruct', undefined],
      ['openai-community/gpt2', undefined],
      ['mistralai/Mistral-7B-v0.1', 7e9],
      ['microsoft/Phi-3-medium-4k-instruct', undefined],
    ];
    for (const [id, size] of cases) assert.equal(sizeInName(id), size, id);
  });

  it('ids and aliases are unique, also after the normalization lookup applies', () => {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const m of MODEL_CATALOG) {
      for (const n of [m.id, ...(m.aliases ?? [])]) {
        const k = normalize(n);
        const other = seen.get(k);
        if (other !== undefined && other !== m.id) clashes.push(`${n}: ${other} and ${m.id}`);
        else if (other === m.id) clashes.push(`${n} twice in ${m.id}`);
        seen.set(k, m.id);
      }
    }
    assert.deepEqual(clashes, []);
  });

  it('every id and alias finds its entry', () => {
    const lost: string[] = [];
    for (const m of MODEL_CATALOG) {
      for (const n of [m.id, ...(m.aliases ?? [])]) {
        const r = findModel(n);
        if (!r.ok || r.model.id !== m.id) lost.push(`${n} -> ${r.ok ? r.model.id : 'nothing'}`);
      }
    }
    assert.deepEqual(lost, []);
  });

  it('a fine-tune names a listed base of the same family', () => {
    const bad: string[] = [];
    for (const m of MODEL_CATALOG) {
      if (m.baseModel === undefined) continue;
      const base = findModel(m.baseModel);
      if (!base.ok) bad.push(`${m.id}: base ${m.baseModel} not listed`);
      else if (archOf(base.model).family !== archOf(m).family)
        bad.push(`${m.id}: ${archOf(m).family}, base ${archOf(base.model).family}`);
    }
    assert.deepEqual(bad, []);
  });

  it('Sheared-LLaMA at the sizes its authors prune to, counted by hand', () => {
    // princeton-nlp/LLM-Shearing@b87218b scripts/pruning.sh: 2048 / 16 heads / 24 layers / MLP 5504 and 2560 / 20 / 32 /
    // 6912, Llama 2's 32,000-token vocabulary, untied. Embeddings and head 2 x 32,000 x h; a layer 4h^2 (q, k, v, o)
    // + 3 h x mlp + 2h (norms); the final norm h.
    const count = (id: string): number => {
      const m = findModel(id);
      assert.ok(m.ok, id);
      return countParameters(archOf(m.model)).total;
    };
    assert.equal(
      count('princeton-nlp/Sheared-LLaMA-1.3B'),
      2 * 32000 * 2048 + 24 * (4 * 2048 ** 2 + 3 * 2048 * 5504 + 2 * 2048) + 2048,
    );
    assert.equal(count('princeton-nlp/Sheared-LLaMA-2.7B-Pruned'), 2_701_560_320);
  });

  it('every family has at least one checkpoint', () => {
    const families = new Set(MODEL_CATALOG.map((m) => archOf(m).family));
    const missing = (Object.keys(FAMILY_TRAITS) as Family[]).filter((f) => !families.has(f));
    assert.deepEqual(missing, []);
  });

  it('lists the checkpoints people train most, by their Hub names', () => {
    const wanted = [
      'huggyllama/llama-7b',
      'huggyllama/llama-13b',
      'huggyllama/llama-30b',
      'huggyllama/llama-65b',
      'meta-llama/Llama-2-7b-hf',
      'NousResearch/Llama-2-7b-hf',
      'meta-llama/Llama-3.3-70B-Instruct',
      'lmsys/vicuna-7b-v1.5',
      'lmsys/vicuna-13b-v1.5',
      'codellama/CodeLlama-7b-hf',
      'mistralai/Mistral-7B-v0.1',
      'HuggingFaceH4/zephyr-7b-beta',
      'alignment-handbook/zephyr-7b-sft-qlora',
      'mistralai/Mixtral-8x7B-v0.1',
      'Qwen/Qwen1.5-7B',
      'Qwen/Qwen2-1.5B-Instruct',
      'Qwen/Qwen2.5-Coder-7B-Instruct',
      'Qwen/Qwen3-30B-A3B',
      'google/gemma-7b',
      'google/gemma-2-9b',
      'google/gemma-3-4b-it',
      'microsoft/phi-2',
      'microsoft/Phi-3-mini-4k-instruct',
      'microsoft/phi-4',
      'facebook/opt-125m',
      'facebook/opt-350m',
      'facebook/opt-1.3b',
      'facebook/opt-2.7b',
      'facebook/opt-6.7b',
      'facebook/opt-13b',
      'facebook/opt-30b',
      'facebook/opt-66b',
      'EleutherAI/pythia-70m',
      'EleutherAI/pythia-160m',
      'EleutherAI/pythia-410m',
      'EleutherAI/pythia-1b',
      'EleutherAI/pythia-1.4b',
      'EleutherAI/pythia-2.8b',
      'EleutherAI/pythia-6.9b',
      'EleutherAI/pythia-12b',
      'EleutherAI/gpt-j-6b',
      'EleutherAI/gpt-neox-20b',
      'bigscience/bloom-560m',
      'bigscience/bloomz-7b1',
      'tiiuae/falcon-7b',
      'tiiuae/falcon-40b',
      'bigcode/starcoder',
      'bigcode/starcoder2-3b',
      'bigcode/starcoder2-7b',
      'bigcode/starcoder2-15b',
      'deepseek-ai/deepseek-coder-6.7b-instruct',
      'deepseek-ai/deepseek-llm-7b-base',
      // Named by real training files: XinyuanLu00/TART code/llama_training/my_lora_trainer.py, and
      // Brian-Konr/applied-deep-learning hw3/train_qlora.sh (a folder named after it).
      'deepseek-ai/deepseek-coder-7b-instruct-v1.5',
      'yentinglin/Taiwan-LLM-7B-v2.0-chat',
      // lkurlandski/SLURMY src/main.py; DistilBERT, the HF course's classifier (yohai7700/llm-identifiability-explainability).
      'prajjwal1/bert-tiny',
      'distilbert-base-uncased',
      'deepseek-ai/DeepSeek-V2-Lite',
      'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B',
      '01-ai/Yi-6B',
      'internlm/internlm2-7b',
      'baichuan-inc/Baichuan2-7B-Base',
      'THUDM/chatglm3-6b',
      'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
      // wangbluo/Finetune_llama2_Megatron start.sh (a local folder named after it).
      'princeton-nlp/Sheared-LLaMA-1.3B',
      'HuggingFaceTB/SmolLM-360M',
      'HuggingFaceTB/SmolLM2-1.7B',
      'HuggingFaceTB/SmolLM3-3B',
      'allenai/OLMo-7B-hf',
      'allenai/OLMo-2-1124-7B',
      'ibm-granite/granite-3.0-8b-instruct',
      'openai-community/gpt2',
      'openai-community/gpt2-xl',
      'google-t5/t5-small',
      'google/flan-t5-base',
      'google/flan-t5-xxl',
      'google-bert/bert-base-uncased',
      'FacebookAI/roberta-large',
      'FacebookAI/xlm-roberta-base',
      'sentence-transformers/all-MiniLM-L6-v2',
    ];
    assert.deepEqual(
      wanted.filter((id) => !findModel(id).ok),
      [],
    );
  });
});
