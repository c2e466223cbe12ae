// The scenario format: values read with ranges, problems located at file:line:col with the key.
import * as assert from 'node:assert/strict';
import { analyzeScenario } from '../../src/analyzers/scenario';
import { catalogResolver, resolveScenarios } from '../../src/analyzers/resolve';

describe('scenario analyzer', () => {
  it('reads a YAML scenario and keeps where each key is written', () => {
    const f = analyzeScenario('model: gpt2\nmicro_batch_size: 4\nseq_len: 512\n', 'a.vram.yaml');
    assert.deepEqual(f.problems, []);
    assert.equal(f.values.micro_batch_size, 4);
    assert.equal(f.keyLocations.seq_len.line, 3);
    assert.equal(f.valueLocations.seq_len.start, 'model: gpt2\nmicro_batch_size: 4\nseq_len: '.length);
  });

  it('locates an unknown key at the key, with a suggestion', () => {
    const text = 'model: gpt2\nseq_lenght: 1024\n';
    const f = analyzeScenario(text, 'b.vram.yaml');
    assert.equal(f.problems.length, 1);
    const p = f.problems[0];
    assert.equal(p.code, 'unknown-key');
    assert.deepEqual([p.line, p.column, p.key], [2, 1, 'seq_lenght']);
    assert.equal(text.slice(p.start, p.end), 'seq_lenght');
    assert.match(p.message, /did you mean `seq_len`/);
  });

  it('locates wrong types and impossible values at the value', () => {
    const text = 'model: gpt2\nmicro_batch_size: -2\nzero_stage: 5\nattention: fast\n';
    const f = analyzeScenario(text, 'c.vram.yaml');
    const byKey = new Map(f.problems.map((p) => [p.key, p]));
    assert.equal(text.slice(byKey.get('micro_batch_size')!.start, byKey.get('micro_batch_size')!.end), '-2');
    assert.equal(byKey.get('zero_stage')!.line, 3);
    assert.match(byKey.get('attention')!.message, /"eager", "sdpa", "flash"/);
    assert.equal(f.values.micro_batch_size, undefined, 'invalid values are not used');
  });

  it('locates nested problems (lora.r)', () => {
    const text = 'model: gpt2\nmethod: lora\nlora:\n  r: 0\n  target_modules: [c_attn]\n';
    const f = analyzeScenario(text, 'd.vram.yaml');
    assert.equal(f.problems[0].key, 'lora.r');
    assert.equal(f.problems[0].line, 4);
  });

  it('reports YAML syntax errors without throwing, and JSON scenarios parse with ranges', () => {
    const f = analyzeScenario('model: [gpt2\n', 'e.vram.yaml');
    assert.ok(f.problems.some((p) => p.code === 'syntax-error'));
    const j = analyzeScenario('{\n  "model": "gpt2",\n  "seq_len": 128\n}', 'f.vram.json');
    assert.deepEqual(j.problems, []);
    assert.equal(j.keyLocations.seq_len.line, 3);
  });

  it('a mapping used as a key is an error at that key, found before the document is converted', () => {
    // 68 nested `{` over a long value took the YAML library seconds to write each key out as text (a fuzz mutant).
    const nested = `${'{\n'.repeat(68)}  "model": "gpt2",\n  "weights_dtype": "${'x'.repeat(60_000)}"\n${'}\n'.repeat(68)}`;
    const f = analyzeScenario(nested, 'n.vram.json');
    const p = f.problems.find((x) => /cannot be a scenario's key/.test(x.message));
    assert.ok(p, JSON.stringify(f.problems.map((x) => x.message)));
    // The outer mapping opens on line 1; its first key, the mapping on line 2, is the one reported.
    assert.equal(p.line, 2);
    assert.equal(analyzeScenario('{ {a: 1}: 2 }\n', 'k.vram.yaml').problems[0]?.code, 'syntax-error');
  });

  it('an empty file or a list is a located problem, not a crash', () => {
    assert.equal(analyzeScenario('', 'g.vram.yaml').problems[0].code, 'missing-model');
    assert.equal(analyzeScenario('- a\n- b\n', 'h.vram.yaml').problems[0].code, 'invalid-value');
  });
});

describe('resolve', () => {
  it('merges files in order, flags win, and records provenance', () => {
    const a = analyzeScenario('model: gpt2\nseq_len: 512\nmicro_batch_size: 2\n', 'a.vram.yaml');
    const b = analyzeScenario('micro_batch_size: 8\n', 'b.vram.yaml');
    const r = resolveScenarios([a, b], { seqLen: 256, origin: 'flag' }, catalogResolver);
    assert.ok(r.setup);
    assert.equal(r.setup.micro_batch_size, 8);
    assert.equal(r.setup.seq_len, 256);
    assert.deepEqual(r.provenance.micro_batch_size, {
      kind: 'file',
      file: 'b.vram.yaml',
      line: 1,
      key: 'micro_batch_size',
    });
    assert.deepEqual(r.provenance.seq_len, { kind: 'flag', flag: '--seq-len' });
    assert.equal(r.provenance.architecture?.kind, 'catalog');
  });

  it('an unknown model is a located problem with the closest catalog names', () => {
    // (meta-llama/Llama-2-7b itself is an alias of the catalog's Llama-2-7b-hf: the same weights in Meta's format.)
    const a = analyzeScenario('seq_len: 8\nmodel: acme/Llama-2-7b-wiki-ft\n', 'a.vram.yaml');
    const r = resolveScenarios([a], {}, catalogResolver);
    const p = r.problems.find((x) => x.code === 'unknown-model');
    assert.ok(p);
    assert.equal(p.line, 2);
    assert.match(p.message, /Llama-2-7b-hf/);
  });

  it('a distillation teacher named by teacher_model resolves like the model; an unknown one is a located problem', () => {
    const a = analyzeScenario(
      'model: Qwen/Qwen2.5-0.5B-Instruct\ndistillation: { teacher_model: Qwen/Qwen2.5-7B-Instruct, loss: jsd, on_policy: 0.5 }\n',
      'a.vram.yaml',
    );
    const r = resolveScenarios([a], {}, catalogResolver);
    assert.ok(r.setup?.distillation, JSON.stringify(r.problems));
    assert.equal(r.setup.distillation.teacher_parameters, 7_615_616_512);
    assert.deepEqual(
      [
        r.setup.distillation.loss,
        r.setup.distillation.jsd_beta,
        r.setup.distillation.on_policy,
        r.setup.distillation.max_new_tokens,
      ],
      ['jsd', 0.5, 0.5, 128],
    );
    const bad = resolveScenarios(
      [analyzeScenario('model: gpt2\ndistillation: { teacher_model: org/nope }\n', 'b.vram.yaml')],
      {},
      catalogResolver,
    );
    const p = bad.problems.find((x) => x.code === 'unknown-model');
    assert.equal(p?.key, 'distillation.teacher_model');
    assert.equal(p?.line, 2);
  });

  it('a GRPO reward model named by model resolves like the model; an unknown one is a located problem', () => {
    const text =
      'model: Qwen/Qwen2.5-0.5B-Instruct\nseq_len: 1024\nrollout:\n  batch: 8\n  completion_len: 512\n  reward_models:\n    - model: meta-llama/Llama-3.2-1B\n';
    const r = resolveScenarios([analyzeScenario(text, 'a.vram.yaml')], {}, catalogResolver);
    assert.ok(r.setup?.rollout, JSON.stringify(r.problems));
    assert.equal(r.setup.rollout.reward_models[0].model, 'meta-llama/Llama-3.2-1B');
    assert.equal(r.setup.rollout.reward_models[0].architecture.model_type, 'llama');
    // The causal LM's published count is not the sequence classifier's: none is carried over.
    assert.equal(r.setup.rollout.reward_models[0].parameters, undefined);
    const bad = resolveScenarios(
      [analyzeScenario(text.replace('meta-llama/Llama-3.2-1B', 'org/nope'), 'b.vram.yaml')],
      {},
      catalogResolver,
    );
    const p = bad.problems.find((x) => x.code === 'unknown-model');
    assert.equal(p?.key, 'rollout.reward_models.0.model');
  });

  it('an explicit architecture needs no catalog entry', () => {
    const a = analyzeScenario(
      'architecture:\n  model_type: llama\n  num_hidden_layers: 2\n  hidden_size: 64\n  num_attention_heads: 4\n  intermediate_size: 128\n  vocab_size: 1000\n',
      'a.vram.yaml',
    );
    const r = resolveScenarios([a], {}, catalogResolver);
    assert.ok(r.setup, JSON.stringify(r.problems));
  });
});

describe('scenario blocks: keys left out are assumptions, keys written are not', () => {
  it('galore and rollout', () => {
    const { estimate } = require('../../src/core/estimate') as typeof import('../../src/core/estimate');
    const f = analyzeScenario(
      'model: meta-llama/Meta-Llama-3-8B\nweights_dtype: bf16\ngalore: { rank: 64 }\nrollout: { batch: 8, completion_len: 256 }\nseq_len: 768\n',
      'g.vram.yaml',
    );
    const r = resolveScenarios([f], {}, catalogResolver);
    assert.ok(r.setup);
    const e = estimate(r.setup, { provenance: r.provenance });
    assert.ok(e.ok);
    const keys = e.estimate.assumptions.map((a) => a.key);
    assert.ok(keys.includes('galore.target_modules') && !keys.includes('galore.rank'), keys.join(', '));
    assert.ok(
      keys.includes('rollout.engine') && !keys.includes('rollout.batch') && !keys.includes('rollout.completion_len'),
      keys.join(', '),
    );
    // vLLM's settings matter only with a colocated engine.
    assert.ok(!keys.some((k) => k.startsWith('rollout.vllm_')), keys.join(', '));
  });
});
