// The DeepSpeed JSON analyzer: facts with exact spans, hjson/JSONC tolerance, problems at their places, DeepSpeed's
// batch-size algorithm, the corpus expected files, and a fast-check robustness property.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  analyzeDeepSpeedJson,
  AUTO_REASON,
  checkBatchRule,
  DEEPSPEED_KEYS,
  deriveBatch,
} from '../../../src/analyzers/deepspeed-json';
import {
  isUnknown,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
  type ParseProblem,
  type ProblemCode,
} from '../../../src/analyzers/facts';

const REPO = path.resolve(__dirname, '..', '..', '..', '..');
const CORPUS = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'corpus');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'deepspeed-json');
const EXPECTED = path.join(REPO, 'test', 'fixtures', 'corpus-expected', 'deepspeed-json');

type Expected = FactValue | { unknown: true };

/** Every span of a result lies in the text, and each fact's spans hold its key (last path segment) and raw value. */
function checkSpans(text: string, r: ConfigFacts): void {
  for (const f of r.facts) {
    for (const s of [f.keySpan, f.valueSpan])
      assert.ok(0 <= s.start && s.start <= s.end && s.end <= text.length, `span of ${f.rawKey}`);
    assert.equal(text.slice(f.keySpan.start, f.keySpan.end), f.rawKey.split('.').pop(), `key span of ${f.rawKey}`);
    assert.equal(text.slice(f.valueSpan.start, f.valueSpan.end), f.rawValue, `value span of ${f.rawKey}`);
    assert.equal(f.tool, 'deepspeed');
  }
  for (const p of r.problems)
    assert.ok(0 <= p.span.start && p.span.start <= p.span.end && p.span.end <= text.length, `span of ${p.code}`);
}

/** Asserts exactly these facts (unknown facts as {unknown: true}) and that their spans are exact. */
function checkFacts(text: string, expected: Partial<Record<CanonicalKey, Expected>>): ConfigFacts {
  const r = analyzeDeepSpeedJson(text);
  checkSpans(text, r);
  const got: Record<string, Expected> = {};
  for (const f of r.facts) {
    assert.ok(!(f.key in got), `one fact per key (${f.key})`);
    got[f.key] = isUnknown(f.value) ? { unknown: true } : (f.value as FactValue);
  }
  assert.deepEqual(got, expected);
  assert.equal(r.format, 'deepspeed-json');
  assert.deepEqual(r.tools, ['deepspeed']);
  return r;
}

function fact(r: ConfigFacts, key: CanonicalKey): Fact {
  const f = r.facts.find((x) => x.key === key);
  assert.ok(f, `fact ${key}`);
  return f;
}

function problems(r: ConfigFacts, code: ProblemCode): ParseProblem[] {
  return r.problems.filter((p) => p.code === code);
}

/** The one problem with this code, located at `where` (the n-th occurrence of a substring of the text). */
function problemAt(text: string, r: ConfigFacts, code: ProblemCode, where: string, nth = 0): ParseProblem {
  const ps = problems(r, code);
  let start = -1;
  for (let i = 0; i <= nth; i++) start = text.indexOf(where, start + 1);
  assert.ok(start >= 0, `${where} is in the text`);
  const p = ps.find((x) => x.span.start === start && x.span.end === start + where.length);
  assert.ok(
    p,
    `${code} at ${JSON.stringify(where)}; got ${JSON.stringify(ps.map((x) => [x.span, text.slice(x.span.start, x.span.end)]))}`,
  );
  return p;
}

describe('deepspeed-json analyzer: facts and spans', () => {
  it('reads the three batch keys from strict JSON', () => {
    const text =
      '{\n  "train_batch_size": 64,\n  "train_micro_batch_size_per_gpu": 4,\n  "gradient_accumulation_steps": 2\n}\n';
    const r = checkFacts(text, { trainBatchSize: 64, microBatchSize: 4, gradientAccumulationSteps: 2 });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.references, []);
    const m = fact(r, 'microBatchSize');
    assert.equal(m.rawKey, 'train_micro_batch_size_per_gpu');
    assert.equal(m.valueSpan.start, text.indexOf(': 4,') + 2);
  });

  it('nested ZeRO keys carry a dotted rawKey and the inner key span', () => {
    const text = '{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": true}}}';
    const r = checkFacts(text, { zeroStage: 2, offloadOptimizer: 'cpu' });
    const o = fact(r, 'offloadOptimizer');
    assert.equal(o.rawKey, 'zero_optimization.offload_optimizer.device');
    assert.equal(o.rawValue, '"cpu"');
    assert.equal(fact(r, 'zeroStage').rawKey, 'zero_optimization.stage');
  });

  it('numbers such as 5e8, 1e9 and 7000000 are read as numbers', () => {
    checkFacts('{"zero_optimization": {"stage": 2, "reduce_bucket_size": 5e8, "allgather_bucket_size": 7000000}}', {
      zeroStage: 2,
      reduceBucketSize: 500000000,
      allgatherBucketSize: 7000000,
    });
    checkFacts(
      '{"zero_optimization": {"stage": 3, "stage3_max_live_parameters": 1E9, "stage3_max_reuse_distance": 5e8, ' +
        '"stage3_param_persistence_threshold": 1.0e4}}',
      {
        zeroStage: 3,
        stage3MaxLiveParameters: 1e9,
        stage3MaxReuseDistance: 5e8,
        stage3ParamPersistenceThreshold: 1e4,
      },
    );
  });

  it('reads overlap_comm and contiguous_gradients; "auto" leaves DeepSpeed its default', () => {
    checkFacts('{"zero_optimization": {"stage": 2, "overlap_comm": true, "contiguous_gradients": false}}', {
      zeroStage: 2,
      zeroOverlapComm: true,
      zeroContiguousGradients: false,
    });
    const r = checkFacts('{"zero_optimization": {"stage": 2, "overlap_comm": "auto"}}', { zeroStage: 2 });
    assert.deepEqual(r.problems, []);
  });

  it('a precision switch written as a string is the boolean DeepSpeed reads it as, with a warning', () => {
    // Zhou-bl/Toy-LIMA deepspeed/ds_config.json: "bfloat16": {"enabled": "true"}. DeepSpeedBF16Config is a pydantic
    // model, whose lax mode takes "true" / "false" (and yes/no, on/off, 1/0) as booleans.
    const text = '{"bfloat16": {"enabled": "true"}, "fp16": {"enabled": "False"}}';
    const r = analyzeDeepSpeedJson(text);
    assert.deepEqual([fact(r, 'bf16').value, fact(r, 'fp16').value], [true, false]);
    const p = problemAt(text, r, 'invalid-value', '"true"');
    assert.equal(p.severity, 'warning');
    assert.match(p.message, /DeepSpeed's config model reads this string as true/);
    // Any other string is still no switch.
    const bad = analyzeDeepSpeedJson('{"bf16": {"enabled": "maybe"}}');
    assert.equal(problems(bad, 'invalid-value')[0]?.severity, 'error');
  });

  it('accepts the stage3 keys without their stage3_ prefix (pydantic aliases)', () => {
    const text =
      '{"zero_optimization": {"stage": 3, "max_live_parameters": 0, "prefetch_bucket_size": 5e7, "param_persistence_threshold": 1e4}}';
    const r = checkFacts(text, {
      zeroStage: 3,
      stage3MaxLiveParameters: 0,
      stage3PrefetchBucketSize: 5e7,
      stage3ParamPersistenceThreshold: 1e4,
    });
    assert.equal(fact(r, 'stage3MaxLiveParameters').rawKey, 'zero_optimization.max_live_parameters');
    assert.deepEqual(r.problems, []);
  });

  it('both spellings of one field: the prefixed one is used and the other is reported', () => {
    const text = '{"zero_optimization": {"max_live_parameters": 1, "stage3_max_live_parameters": 2}}';
    const r = checkFacts(text, { stage3MaxLiveParameters: 2 });
    assert.equal(problemAt(text, r, 'duplicate-key', 'max_live_parameters').severity, 'warning');
  });

  it('precision blocks: bf16, fp16, and the legacy bfloat16 block', () => {
    checkFacts('{"bf16": {"enabled": true}, "fp16": {"enabled": false, "loss_scale": 0}}', { bf16: true, fp16: false });
    const text = '{"bfloat16": {"enabled": true}}';
    const r = checkFacts(text, { bf16: true });
    assert.match(problemAt(text, r, 'deprecated-key', 'bfloat16').message, /use `bf16`/);
    // With both blocks DeepSpeed reads `bf16` only.
    checkFacts('{"bf16": {"enabled": false}, "bfloat16": {"enabled": true}}', { bf16: false });
    // A block without `enabled` says nothing about the switch.
    checkFacts('{"fp16": {"loss_scale": 0}}', {});
  });

  it("optimizer.type is normalized case-insensitively; Adam and AdamW are DeepSpeed's FusedAdam unless torch_adam", () => {
    // engine.py _configure_basic_optimizer: FusedAdam (one multi-tensor kernel) for "Adam" / "AdamW", torch.optim's
    // only with params.torch_adam true.
    checkFacts('{"optimizer": {"type": "AdamW"}}', { optimizer: 'adamw_fused' });
    checkFacts('{"optimizer": {"type": "ADAMW"}}', { optimizer: 'adamw_fused' });
    checkFacts('{"optimizer": {"type": "adam", "params": {"lr": 1e-4}}}', { optimizer: 'adamw_fused' });
    checkFacts('{"optimizer": {"type": "AdamW", "params": {"torch_adam": true}}}', { optimizer: 'adamw' });
    checkFacts('{"optimizer": {"type": "AdamW", "params": {"torch_adam": false}}}', { optimizer: 'adamw_fused' });
    checkFacts('{"optimizer": {"type": "OneBitAdam"}}', { optimizer: 'adamw_fused' });
    checkFacts('{"optimizer": {"type": "Lion"}}', { optimizer: 'lion' });
    checkFacts('{"optimizer": {"type": "Lamb"}}', { optimizer: 'Lamb' });
  });

  it('compile, DeepSpeed-Ulysses sequence parallelism (each rank holds a share of every sequence) and AutoTP', () => {
    checkFacts('{"compile": {"deepcompile": true}}', { compile: true });
    checkFacts('{"compile": {"enabled": false, "backend": "inductor"}}', { compile: false });
    checkFacts('{"sequence_parallel_size": 4}', { contextParallel: 4 });
    checkFacts('{"sequence_parallel_size": 1}', { contextParallel: 1 });
    checkFacts('{"tensor_parallel": {"autotp_size": 2}}', { tensorParallel: 2 });
    // ZeRO++ hpZ and MiCS group sizes (deepspeed/runtime/zero/config.py: zero_hpz_partition_size default 1, mics_shard_size -1).
    checkFacts('{"zero_optimization": {"stage": 3, "zero_hpz_partition_size": 8, "mics_shard_size": 16}}', {
      zeroStage: 3,
      zeroHpzPartitionSize: 8,
      micsShardSize: 16,
    });
  });

  it('keeps spans exact with CRLF line endings', () => {
    const text =
      '{\r\n  "train_micro_batch_size_per_gpu": 2,\r\n  "zero_optimization": {\r\n    "stage": 1\r\n  }\r\n}\r\n';
    const r = checkFacts(text, { microBatchSize: 2, zeroStage: 1 });
    assert.deepEqual(r.problems, []);
    assert.equal(fact(r, 'zeroStage').valueSpan.start, text.indexOf('1\r\n'));
  });

  it('keeps spans exact with tabs, a leading space and "key" : value', () => {
    const text = ' {\n\t"train_batch_size" : 256,\n\t"zero_optimization": {\n\t\t"stage" :\t1\n\t}\n }';
    const r = checkFacts(text, { trainBatchSize: 256, zeroStage: 1 });
    assert.deepEqual(r.problems, []);
  });

  it('keeps UTF-16 offsets after astral characters', () => {
    const text = '{"note": "💾 🤗 — ok", "train_micro_batch_size_per_gpu": 3}';
    checkFacts(text, { microBatchSize: 3 });
  });
});

describe('deepspeed-json analyzer: JSONC and hjson', () => {
  it('reads // and /* */ comments but flags each at its place', () => {
    const text =
      '{\n  // micro batch\n  "train_micro_batch_size_per_gpu": 4, /* per GPU */\n  "gradient_accumulation_steps": 2\n}';
    const r = checkFacts(text, { microBatchSize: 4, gradientAccumulationSteps: 2 });
    const a = problemAt(text, r, 'strict-json-comments', '// micro batch');
    assert.equal(a.severity, 'warning');
    assert.match(a.message, /json\.load/);
    problemAt(text, r, 'strict-json-comments', '/* per GPU */');
  });

  it('reads trailing commas but flags them at the comma', () => {
    const text = '{"bf16": {"enabled": true,}, "optimizer": {"params": {"betas": [0.9, 0.999,]}},}';
    const r = checkFacts(text, { bf16: true });
    assert.equal(problems(r, 'strict-json-comments').length, 3);
    problemAt(text, r, 'strict-json-comments', ',', 0);
    assert.equal(problems(r, 'syntax-error').length, 0);
  });

  it('reads hjson # comments, unquoted keys, quoteless strings and newline-separated members', () => {
    const text =
      '{\n  # comment\n  train_batch_size: 64\n  zero_optimization: {\n    stage: 2\n    offload_optimizer: { device: cpu }\n  }\n}\n';
    const r = checkFacts(text, { trainBatchSize: 64, zeroStage: 2, offloadOptimizer: 'cpu' });
    problemAt(text, r, 'strict-json-comments', '# comment');
    assert.match(problemAt(text, r, 'strict-json-comments', 'train_batch_size').message, /unquoted key/);
    assert.match(problemAt(text, r, 'strict-json-comments', 'cpu').message, /unquoted string/);
    assert.equal(problems(r, 'syntax-error').length, 0, JSON.stringify(r.problems));
  });

  it('Python literals True/False are read as booleans and flagged', () => {
    const text = '{"fp16": {"enabled": True}}';
    const r = checkFacts(text, { fp16: true });
    assert.match(problemAt(text, r, 'strict-json-comments', 'True').message, /Python literal/);
  });

  it('a byte-order mark is reported and the rest is read', () => {
    const text = '\uFEFF{"train_batch_size": 8}';
    const r = checkFacts(text, { trainBatchSize: 8 });
    assert.equal(problems(r, 'syntax-error')[0].severity, 'warning');
  });
});

describe('deepspeed-json analyzer: auto, placeholders, broken text', () => {
  it('"auto" becomes an unknown fact plus an info at the value', () => {
    const text = '{"train_micro_batch_size_per_gpu": "auto", "bf16": {"enabled": "auto"}}';
    const r = checkFacts(text, { microBatchSize: { unknown: true }, bf16: { unknown: true } });
    assert.deepEqual(fact(r, 'microBatchSize').value, { unknown: AUTO_REASON });
    const p = problemAt(text, r, 'unresolved-auto', '"auto"');
    assert.equal(p.severity, 'info');
    assert.equal(p.rawKey, 'train_micro_batch_size_per_gpu');
  });

  it('HF fills only the stage3_-prefixed bucket "auto"; an unfilled "auto" falls back to the DeepSpeed default', () => {
    const text =
      '{"zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": "auto", "param_persistence_threshold": "auto", "allgather_bucket_size": "auto"}}';
    const r = checkFacts(text, {
      zeroStage: 3,
      stage3PrefetchBucketSize: { unknown: true },
      stage3ParamPersistenceThreshold: 1e5,
      allgatherBucketSize: 5e8,
    });
    assert.match(
      String((fact(r, 'stage3PrefetchBucketSize').value as { unknown: string }).unknown),
      /0\.9 × hidden_size²/,
    );
    assert.equal(problemAt(text, r, 'invalid-value', '"auto"', 1).severity, 'warning');
  });

  it('bare placeholders give unknown facts and a placeholder error at the word; the rest still parses', () => {
    const text =
      '{\n' +
      '    "train_batch_size": 32,\n' +
      '    "train_micro_batch_size_per_gpu": BATCH_SIZE_PER_GPU,\n' +
      '    "fp16": {\n' +
      '      "enabled": FP16_ENABLE\n' +
      '    },\n' +
      '    "zero_optimization": {"stage": 0}\n' +
      '}';
    const r = checkFacts(text, {
      trainBatchSize: 32,
      microBatchSize: { unknown: true },
      fp16: { unknown: true },
      zeroStage: 0,
    });
    assert.equal(problemAt(text, r, 'placeholder', 'BATCH_SIZE_PER_GPU').severity, 'error');
    problemAt(text, r, 'placeholder', 'FP16_ENABLE');
    assert.equal(problems(r, 'syntax-error').length, 0);
    assert.equal(fact(r, 'microBatchSize').rawValue, 'BATCH_SIZE_PER_GPU');
  });

  it('shell variables from a heredoc ($X, ${X}) and "$X" strings are placeholders', () => {
    const text =
      '{"train_batch_size": $GBS, "train_micro_batch_size_per_gpu": ${MBS}, "zero_optimization": {"stage": "$ZERO_STAGE"}}';
    const r = checkFacts(text, {
      trainBatchSize: { unknown: true },
      microBatchSize: { unknown: true },
      zeroStage: { unknown: true },
    });
    problemAt(text, r, 'placeholder', '$GBS');
    problemAt(text, r, 'placeholder', '${MBS}');
    problemAt(text, r, 'placeholder', '"$ZERO_STAGE"');
  });

  it('a truncated file keeps the facts before the cut and reports a syntax error at the end', () => {
    const text =
      '{\n  "train_micro_batch_size_per_gpu": 4,\n  "zero_optimization": {\n    "stage": 3,\n    "offload_param": {"dev';
    // The cut offload_param block may have lost its device, so no offload fact is assumed.
    const r = checkFacts(text, { microBatchSize: 4, zeroStage: 3 });
    assert.ok(problems(r, 'syntax-error').length > 0);
    assert.ok(problems(r, 'syntax-error').every((p) => p.severity === 'error'));
  });

  it('a missing value is a syntax error located at the comma', () => {
    const text = '{"train_batch_size": , "gradient_accumulation_steps": 4}';
    const r = checkFacts(text, { gradientAccumulationSteps: 4 });
    const p = problems(r, 'syntax-error')[0];
    assert.equal(text.slice(p.span.start, p.span.end), ',');
    assert.match(p.message, /value is expected.*line 1/);
  });

  it('empty text, a non-object root and binary garbage are problems, not exceptions', () => {
    assert.equal(problems(checkFacts('', {}), 'syntax-error').length, 1);
    assert.equal(problems(checkFacts('  \n', {}), 'syntax-error').length, 1);
    assert.equal(problems(checkFacts('[1, 2]', {}), 'invalid-value').length, 1);
    const garbage = '\u0000\u0001\uFFFD{\u0007"x\u0000": ]]]}}}\uD800';
    const r = analyzeDeepSpeedJson(garbage);
    checkSpans(garbage, r);
    assert.ok(r.problems.length > 0);
  });

  it('very deep nesting is reported without a stack overflow', () => {
    const text = '{"a": ' + '['.repeat(100000) + ']'.repeat(100000) + ', "train_batch_size": 8}';
    const r = analyzeDeepSpeedJson(text);
    checkSpans(text, r);
    assert.match(problems(r, 'syntax-error')[0].message, /nests deeper/);
  });
});

describe('deepspeed-json analyzer: problems between keys', () => {
  it('duplicate keys: error at the later key, json.load semantics (last wins) for the fact', () => {
    const text = '{\n  "train_batch_size": 8,\n  "train_batch_size": 16\n}';
    const r = checkFacts(text, { trainBatchSize: 16 });
    const p = problemAt(text, r, 'duplicate-key', 'train_batch_size', 1);
    assert.equal(p.severity, 'error');
    assert.match(p.message, /first on line 2/);
    // Duplicates are reported in every object, including ones without facts.
    const nested = '{"scheduler": {"params": {"lr": 1, "lr": 2}}}';
    problemAt(nested, analyzeDeepSpeedJson(nested), 'duplicate-key', 'lr', 1);
  });

  it('bf16 and fp16 both enabled: conflicting-precision on the second', () => {
    const text = '{"fp16": {"enabled": true}, "bf16": {"enabled": true}}';
    const r = checkFacts(text, { fp16: true, bf16: true });
    const p = problemAt(text, r, 'conflicting-precision', 'true', 1);
    assert.equal(p.severity, 'error');
    // "auto" with true is left to the trainer to decide.
    assert.equal(
      problems(
        checkFacts('{"fp16": {"enabled": "auto"}, "bf16": {"enabled": true}}', { fp16: { unknown: true }, bf16: true }),
        'conflicting-precision',
      ).length,
      0,
    );
  });

  it('offload_param needs stage 3 and offload_optimizer needs stage >= 1', () => {
    const t2 =
      '{"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}, "offload_optimizer": {"device": "cpu"}}}';
    const r2 = checkFacts(t2, { zeroStage: 2, offloadParams: 'cpu', offloadOptimizer: 'cpu' });
    assert.equal(problems(r2, 'offload-needs-zero').length, 1);
    assert.equal(problemAt(t2, r2, 'offload-needs-zero', 'device', 0).severity, 'warning');
    const t0 = '{"zero_optimization": {"offload_optimizer": {"device": "nvme"}}}';
    const r0 = checkFacts(t0, { offloadOptimizer: 'nvme' });
    assert.match(problemAt(t0, r0, 'offload-needs-zero', 'device').message, /stage is 0/);
    const t3 = '{"zero_optimization": {"stage": 3, "offload_param": {"device": "nvme"}}}';
    assert.equal(problems(checkFacts(t3, { zeroStage: 3, offloadParams: 'nvme' }), 'offload-needs-zero').length, 0);
  });

  it('deprecated cpu_offload / cpu_offload_param map to the offload facts with a warning naming the replacement', () => {
    const text = '{"zero_optimization": {"stage": 2, "cpu_offload": true, "cpu_offload_param": true}}';
    const r = checkFacts(text, { zeroStage: 2, offloadOptimizer: 'cpu', offloadParams: 'cpu' });
    assert.match(problemAt(text, r, 'deprecated-key', 'cpu_offload').message, /offload_optimizer/);
    assert.match(problemAt(text, r, 'deprecated-key', 'cpu_offload_param').message, /offload_param/);
    problemAt(text, r, 'offload-needs-zero', 'cpu_offload_param');
    const both = '{"zero_optimization": {"stage": 2, "cpu_offload": true, "offload_optimizer": {"device": "cpu"}}}';
    problemAt(both, checkFacts(both, { zeroStage: 2, offloadOptimizer: 'cpu' }), 'invalid-value', 'cpu_offload');
  });

  it('legacy "zero_optimization": true means stage 1', () => {
    const text = '{"zero_optimization": true}';
    const r = checkFacts(text, { zeroStage: 1 });
    problemAt(text, r, 'deprecated-key', 'zero_optimization');
  });

  it('an offload block without a device, or null, offloads nothing', () => {
    checkFacts('{"zero_optimization": {"stage": 3, "offload_param": {"pin_memory": true}}}', {
      zeroStage: 3,
      offloadParams: 'none',
    });
    checkFacts('{"zero_optimization": {"stage": 3, "offload_optimizer": null}}', {
      zeroStage: 3,
      offloadOptimizer: 'none',
    });
  });

  it('invalid values are reported at the value and give no fact', () => {
    const text =
      '{"train_batch_size": 0, "train_micro_batch_size_per_gpu": 2.5, ' +
      '"gradient_accumulation_steps": "8", "zero_optimization": {"stage": 4, ' +
      '"offload_optimizer": {"device": "CPU"}}}';
    const r = checkFacts(text, {});
    for (const v of ['0', '2.5', '"8"', '4', '"CPU"'])
      assert.equal(problemAt(text, r, 'invalid-value', v).severity, 'error');
  });

  it('unknown keys: always under zero_optimization, at the top level only for likely typos', () => {
    const text =
      '{"train_micro_batch_size_per_gp": 4, "cuda_visible_devices": 0, ' +
      '"zero_optimization": {"stage": 3, "stage3_max_live_parameter": 1e9, ' +
      '"offload_param": {"device": "cpu", "pin_memroy": true}, "my_flag": 1}}';
    const r = checkFacts(text, { zeroStage: 3, offloadParams: 'cpu' });
    assert.match(
      problemAt(text, r, 'unknown-key', 'train_micro_batch_size_per_gp').message,
      /did you mean `train_micro_batch_size_per_gpu`/,
    );
    assert.match(
      problemAt(text, r, 'unknown-key', 'stage3_max_live_parameter').message,
      /did you mean `stage3_max_live_parameters`/,
    );
    assert.match(problemAt(text, r, 'unknown-key', 'pin_memroy').message, /did you mean `pin_memory`/);
    assert.match(problemAt(text, r, 'unknown-key', 'my_flag').message, /forbids unknown keys/);
    assert.equal(
      problems(r, 'unknown-key').length,
      4,
      'cuda_visible_devices is ignored by DeepSpeed and not close to a known key',
    );
  });

  it('DEEPSPEED_KEYS lists both spellings of the stage3 fields and the offload keys', () => {
    for (const k of [
      'stage3_max_live_parameters',
      'max_live_parameters',
      'stage3_prefetch_bucket_size',
      'prefetch_bucket_size',
      'sub_group_size',
      'offload_param',
    ]) {
      assert.ok(DEEPSPEED_KEYS.zeroOptimization.has(k), k);
    }
    assert.ok(DEEPSPEED_KEYS.topLevel.has('train_micro_batch_size_per_gpu'));
    assert.ok(DEEPSPEED_KEYS.offloadOptimizer.has('ratio'));
    assert.ok(DEEPSPEED_KEYS.offloadParam.has('max_in_cpu'));
  });
});

describe('deepspeed-json batch rule (deepspeed/runtime/config.py _set_batch_related_parameters / _batch_assertion)', () => {
  it('in the file: train_batch_size must be a multiple of micro x accumulation, whatever the GPU count', () => {
    const bad = '{"train_batch_size": 100, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 3}';
    const p = problemAt(
      bad,
      checkFacts(bad, { trainBatchSize: 100, microBatchSize: 8, gradientAccumulationSteps: 3 }),
      'batch-size-mismatch',
      '100',
    );
    assert.equal(p.severity, 'error');
    assert.match(p.message, /100 is not a multiple of 8 \(micro\) x 3 \(accumulation\) = 24/);
    // 64 = 4 x 2 x 8 GPUs: consistent for some world size.
    assert.equal(
      problems(
        checkFacts('{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}', {
          trainBatchSize: 64,
          microBatchSize: 4,
          gradientAccumulationSteps: 2,
        }),
        'batch-size-mismatch',
      ).length,
      0,
    );
    // Two keys: 65536 / 64 is whole (bing_bert), 100 / 8 is not.
    assert.equal(
      problems(
        analyzeDeepSpeedJson('{"train_batch_size": 65536, "train_micro_batch_size_per_gpu": 64}'),
        'batch-size-mismatch',
      ).length,
      0,
    );
    assert.equal(
      problems(
        analyzeDeepSpeedJson('{"train_batch_size": 100, "train_micro_batch_size_per_gpu": 8}'),
        'batch-size-mismatch',
      ).length,
      1,
    );
  });

  it('deriveBatch follows the table of FORMATS.md §1.1 with floor division', () => {
    // train + micro: gas = 65536 // 64 // 16 = 64.
    assert.deepEqual(deriveBatch({ trainBatchSize: 65536, microBatchSize: 64 }, 16), {
      ok: true,
      trainBatchSize: 65536,
      microBatchSize: 64,
      gradientAccumulationSteps: 64,
      derived: ['gradientAccumulationSteps'],
    });
    // train + gas: micro = 256 // 8 // 2 = 16.
    assert.deepEqual(deriveBatch({ trainBatchSize: 256, gradientAccumulationSteps: 2 }, 8), {
      ok: true,
      trainBatchSize: 256,
      microBatchSize: 16,
      gradientAccumulationSteps: 2,
      derived: ['microBatchSize'],
    });
    // micro + gas: train = 4 x 2 x 8 = 64.
    assert.deepEqual(deriveBatch({ microBatchSize: 4, gradientAccumulationSteps: 2 }, 8), {
      ok: true,
      trainBatchSize: 64,
      microBatchSize: 4,
      gradientAccumulationSteps: 2,
      derived: ['trainBatchSize'],
    });
    // train only (torch_compile ds_config_z3.json): gas = 1, micro = 8 // 4 = 2.
    assert.deepEqual(deriveBatch({ trainBatchSize: 8 }, 4), {
      ok: true,
      trainBatchSize: 8,
      microBatchSize: 2,
      gradientAccumulationSteps: 1,
      derived: ['microBatchSize', 'gradientAccumulationSteps'],
    });
    // micro only: gas = 1, train = 3 x 8 = 24.
    assert.deepEqual(deriveBatch({ microBatchSize: 3 }, 8), {
      ok: true,
      trainBatchSize: 24,
      microBatchSize: 3,
      gradientAccumulationSteps: 1,
      derived: ['trainBatchSize', 'gradientAccumulationSteps'],
    });
    // All three: nothing is derived.
    assert.deepEqual(deriveBatch({ trainBatchSize: 64, microBatchSize: 4, gradientAccumulationSteps: 2 }, 4), {
      ok: true,
      trainBatchSize: 64,
      microBatchSize: 4,
      gradientAccumulationSteps: 2,
      derived: [],
    });
  });

  it('deriveBatch reports what cannot be derived', () => {
    const gasOnly = deriveBatch({ gradientAccumulationSteps: 4 }, 8);
    assert.equal(gasOnly.ok, false);
    assert.ok(!gasOnly.ok && /Either train_batch_size or train_micro_batch_size_per_gpu/.test(gasOnly.message));
    assert.ok(!gasOnly.ok && gasOnly.missing.join() === 'trainBatchSize,microBatchSize');
    const none = deriveBatch({}, 8);
    assert.ok(!none.ok && none.missing.length === 3);
    assert.equal(deriveBatch({ trainBatchSize: 8 }, 0).ok, false);
    assert.equal(deriveBatch({ trainBatchSize: 8 }, 1.5).ok, false);
  });

  it('checkBatchRule with the world size resolve found', () => {
    const r = analyzeDeepSpeedJson(
      '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}',
    );
    const p = checkBatchRule(r, 4);
    assert.ok(p);
    assert.equal(p.code, 'batch-size-mismatch');
    assert.equal(p.message, 'train_batch_size 64 != 4 (micro) x 2 (accumulation) x 4 (GPUs) = 32');
    assert.equal(p.span.start, fact(r, 'trainBatchSize').valueSpan.start);
    assert.equal(checkBatchRule(r, 8), undefined, '4 x 2 x 8 = 64');
  });

  it('checkBatchRule applies the derivation first (floor division can lose a remainder)', () => {
    // gas = 10 // 4 // 1 = 2, then 4 x 2 x 1 = 8 != 10.
    const r = analyzeDeepSpeedJson('{"train_batch_size": 10, "train_micro_batch_size_per_gpu": 4}');
    assert.equal(
      checkBatchRule(r, 1)?.message,
      'train_batch_size 10 != 4 (micro) x 2 (accumulation, derived) x 1 (GPUs) = 8',
    );
    // train only with more GPUs than samples: micro = 8 // 16 = 0.
    const t = analyzeDeepSpeedJson('{"train_batch_size": 8}');
    assert.match(checkBatchRule(t, 16)?.message ?? '', /micro batch per GPU comes out as 0/);
    assert.equal(checkBatchRule(t, 8), undefined);
    // Unknown values ("auto") are resolve's to fill first; no keys at all are deriveBatch's to report.
    assert.equal(
      checkBatchRule(analyzeDeepSpeedJson('{"train_batch_size": "auto", "train_micro_batch_size_per_gpu": 4}'), 2),
      undefined,
    );
    assert.equal(checkBatchRule(analyzeDeepSpeedJson('{"gradient_accumulation_steps": 4}'), 2), undefined);
  });
});

describe('deepspeed-json fixtures (test/fixtures/deepspeed-json)', () => {
  const read = (f: string): string => fs.readFileSync(path.join(FIXTURES, f), 'utf8');

  it('JSONC comments and trailing commas with unprefixed stage3 keys', () => {
    const text = read('jsonc-comments-trailing-commas.json');
    const r = checkFacts(text, {
      microBatchSize: 4,
      gradientAccumulationSteps: 8,
      bf16: true,
      zeroStage: 3,
      offloadParams: 'nvme',
      stage3MaxLiveParameters: 3e8,
      stage3PrefetchBucketSize: 5e7,
      stage3ParamPersistenceThreshold: 1e4,
    });
    assert.equal(problems(r, 'strict-json-comments').length, 6);
    assert.equal(r.problems.length, 6);
  });

  it('hjson-isms', () => {
    const text = read('hjson-isms.hjson');
    const r = checkFacts(text, {
      trainBatchSize: 64,
      microBatchSize: 4,
      optimizer: 'adamw_fused', // "Adam": DeepSpeed's FusedAdam (DeepSpeedCPUAdam under offload)
      zeroStage: 2,
      offloadOptimizer: 'cpu',
    });
    assert.ok(
      r.problems.every((p) => p.code === 'strict-json-comments'),
      JSON.stringify(r.problems),
    );
  });

  it('heredoc JSON with shell variables', () => {
    const text = read('heredoc-shell-vars.json');
    const r = checkFacts(text, {
      trainBatchSize: { unknown: true },
      microBatchSize: { unknown: true },
      zeroStage: { unknown: true },
      bf16: true,
    });
    assert.equal(problems(r, 'placeholder').length, 3);
    assert.equal(problems(r, 'syntax-error').length, 0);
  });
});

interface ExpectedFile {
  format: string;
  facts: Record<string, Expected>;
  problems: string[];
  references: string[];
}

describe('deepspeed-json corpus expected files (skipped when ../shared/corpus is absent)', () => {
  const files = fs.readdirSync(EXPECTED).filter((f) => f.endsWith('.expected.json'));

  it('there is one expected file per corpus file', function () {
    const dir = path.join(CORPUS, 'deepspeed-json');
    if (!fs.existsSync(dir)) this.skip();
    const corpus = fs
      .readdirSync(dir)
      .filter((f) => !f.startsWith('.'))
      .sort();
    assert.deepEqual(files.map((f) => f.replace(/\.expected\.json$/, '')).sort(), corpus);
    assert.equal(files.length, 17);
  });

  for (const f of files) {
    const name = f.replace(/\.expected\.json$/, '');
    it(name, function () {
      const file = path.join(CORPUS, 'deepspeed-json', name);
      if (!fs.existsSync(file)) this.skip();
      const text = fs.readFileSync(file, 'utf8');
      const exp = JSON.parse(fs.readFileSync(path.join(EXPECTED, f), 'utf8')) as ExpectedFile;
      const r = analyzeDeepSpeedJson(text);
      checkSpans(text, r);
      assert.equal(r.format, exp.format);
      const got: Record<string, Expected> = {};
      for (const x of r.facts) got[x.key] = isUnknown(x.value) ? { unknown: true } : (x.value as FactValue);
      assert.deepEqual(got, exp.facts);
      const codes = new Set(r.problems.map((p) => p.code));
      for (const c of exp.problems) assert.ok(codes.has(c as ProblemCode), `problem ${c}`);
      if (exp.problems.length === 0)
        assert.deepEqual(
          r.problems.filter((p) => p.severity !== 'info'),
          [],
        );
      assert.deepEqual(
        r.references.map((x) => x.path),
        exp.references,
      );
    });
  }
});

describe('deepspeed-json robustness (fast-check)', () => {
  it('never throws and keeps every span inside the text under random mutations of corpus files and fixtures', function () {
    this.timeout(60000);
    const seeds: string[] = [
      '{"train_batch_size": 8, "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}}',
      '{\r\n  // c\r\n  "bf16": {"enabled": true,},\r\n  "fp16": {"enabled": true}\r\n}',
      '{ train_batch_size: $X\n  "a": ${Y}, # c\n "optimizer": {"type": True} }',
    ];
    for (const f of fs.readdirSync(FIXTURES)) seeds.push(fs.readFileSync(path.join(FIXTURES, f), 'utf8'));
    const corpusDir = path.join(CORPUS, 'deepspeed-json');
    if (fs.existsSync(corpusDir))
      for (const f of fs.readdirSync(corpusDir)) seeds.push(fs.readFileSync(path.join(corpusDir, f), 'utf8'));
    const garbage = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        '"',
        ',',
        ':',
        '#',
        '$',
        '${',
        '$(',
        '\\',
        '/*',
        '//',
        '*/',
        '\r\n',
        '\uFEFF',
        '\uD83D',
        'auto',
        'BATCH_X',
        'True',
        '1e999',
        '-',
      ),
    );
    const mutation = fc.record({
      op: fc.constantFrom('truncate', 'delete', 'insert', 'swap'),
      a: fc.nat(),
      b: fc.nat(),
      g: garbage,
    });
    const mutate = (text: string, m: { op: string; a: number; b: number; g: string }): string => {
      const i = text.length === 0 ? 0 : m.a % (text.length + 1);
      switch (m.op) {
        case 'truncate':
          return text.slice(0, i);
        case 'delete':
          return text.slice(0, i) + text.slice(i + 1);
        case 'insert':
          return text.slice(0, i) + m.g + text.slice(i);
        default: {
          const lines = text.split('\n');
          const x = m.a % lines.length;
          const y = m.b % lines.length;
          [lines[x], lines[y]] = [lines[y], lines[x]];
          return lines.join('\n');
        }
      }
    };
    const started = Date.now();
    fc.assert(
      fc.property(fc.nat({ max: seeds.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), (s, ms) => {
        const text = ms.reduce(mutate, seeds[s]);
        const r = analyzeDeepSpeedJson(text);
        for (const f of r.facts) {
          for (const sp of [f.keySpan, f.valueSpan])
            assert.ok(0 <= sp.start && sp.start <= sp.end && sp.end <= text.length);
          assert.equal(text.slice(f.valueSpan.start, f.valueSpan.end), f.rawValue);
          if (!text.includes('\\')) assert.equal(text.slice(f.keySpan.start, f.keySpan.end), f.rawKey.split('.').pop());
        }
        for (const p of r.problems)
          assert.ok(0 <= p.span.start && p.span.start <= p.span.end && p.span.end <= text.length);
        assert.ok(!r.problems.some((p) => /could not be read/.test(p.message)), 'no internal exception');
      }),
      { numRuns: 3000 },
    );
    assert.ok(Date.now() - started < 20000, 'under 20 s');
  });

  it('the analyzer source imports no node:*, vscode or I/O module', () => {
    // The analyzer is the folder analyzers/deepspeed-json/: what its files import from outside it, relative to analyzers/.
    const dir = path.join(REPO, 'src', 'analyzers', 'deepspeed-json');
    const src = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    const outside = [...src.matchAll(/from '([^']+)'/g)].map((m) => m[1]).filter((m) => !m.startsWith('./'));
    const imports = [...new Set(outside.map((m) => m.replace(/^\.\.\//, './')))];
    assert.deepEqual(imports.sort(), ['./facts', './line-index', 'jsonc-parser', 'zod']);
  });
});
