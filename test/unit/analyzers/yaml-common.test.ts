// Shared helpers of the YAML analyzer tests (fact/span checks, corpus access, mutation property) and the tests of
// the machinery all five analyzers share: anchors, merge keys, interpolation, duplicates, YAML 1.1 booleans, CRLF.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { isUnknown, type CanonicalKey, type ConfigFacts, type Fact } from '../../../src/analyzers/facts';
import {
  analyzeAxolotlYaml,
  analyzeLlamaFactoryYaml,
  analyzeTorchtuneYaml,
  analyzeAccelerateYaml,
  analyzeHfYaml,
} from '../../../src/analyzers/yaml';
import { flowDepth } from '../../../src/analyzers/yaml/common';

/** One expected fact: canonical key, value ({unknown: true} matches any unknown), and optionally the key and value text. */
export type Expect = readonly [CanonicalKey, unknown, string?, string?];

/** The last fact recorded for a key (analyzers record one per key; later ones override). */
export function factOf(r: ConfigFacts, key: CanonicalKey): Fact | undefined {
  for (let i = r.facts.length - 1; i >= 0; i--) if (r.facts[i]?.key === key) return r.facts[i];
  return undefined;
}

/** A fact's value as the expected files write it: unknowns collapse to {unknown: true}. */
export function plain(f: Fact): unknown {
  return isUnknown(f.value) ? { unknown: true } : f.value;
}

/** Every span of the result lies inside the text. */
export function assertSpansInside(r: ConfigFacts, text: string): void {
  const inside = (s: { start: number; end: number }, what: string): void => {
    assert.ok(
      Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0 && s.start <= s.end && s.end <= text.length,
      `${what} ${JSON.stringify(s)} outside 0..${text.length}`,
    );
  };
  for (const f of r.facts) {
    inside(f.keySpan, `keySpan of ${f.key}`);
    inside(f.valueSpan, `valueSpan of ${f.key}`);
    if (f.originSpan) inside(f.originSpan, `originSpan of ${f.key}`);
  }
  for (const p of r.problems) inside(p.span, `problem ${p.code}`);
  for (const ref of r.references) inside(ref.span, `reference ${ref.path}`);
}

/** Checks the facts of an analysis against expectations, with spans asserted through the text they cover. */
export function checkFacts(r: ConfigFacts, text: string, expected: readonly Expect[]): void {
  assertSpansInside(r, text);
  for (const [key, value, keyText, valueText] of expected) {
    const f = factOf(r, key);
    assert.ok(f, `fact ${key} present; found ${r.facts.map((x) => x.key).join(', ')}`);
    assert.deepEqual(plain(f), value, `value of ${key}`);
    if (keyText !== undefined) assert.equal(text.slice(f.keySpan.start, f.keySpan.end), keyText, `key text of ${key}`);
    if (valueText !== undefined)
      assert.equal(text.slice(f.valueSpan.start, f.valueSpan.end), valueText, `value text of ${key}`);
  }
}

export function codes(r: ConfigFacts): string[] {
  return r.problems.map((p) => p.code);
}

/** ../shared/corpus beside the checkout (from out/test/unit/analyzers/), or undefined on a fresh clone. */
export function corpusDir(): string | undefined {
  const d = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'corpus');
  return fs.existsSync(d) ? d : undefined;
}

export function corpusFiles(sub: string): { name: string; text: string }[] {
  const dir = corpusDir();
  if (!dir || !fs.existsSync(path.join(dir, sub))) return [];
  return fs
    .readdirSync(path.join(dir, sub))
    .sort()
    .map((name) => ({ name, text: fs.readFileSync(path.join(dir, sub, name), 'utf8') }));
}

/** test/fixtures/corpus-expected (from out/test/unit/analyzers/). */
export function expectedDir(sub: string): string {
  return path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'corpus-expected', sub);
}

interface ExpectedFile {
  format: string;
  facts: Record<string, unknown>;
  problems: string[];
  references: string[];
}

/** Registers one test per corpus file of a format, comparing the analysis with its hand-written expected file. */
export function corpusSuite(sub: string, analyze: (text: string) => ConfigFacts): void {
  describe(`corpus ${sub} (skipped when ../shared/corpus is absent)`, function () {
    const files = corpusFiles(sub);
    it('has an expected file for every corpus file', function () {
      if (files.length === 0) this.skip();
      for (const f of files)
        assert.ok(fs.existsSync(path.join(expectedDir(sub), `${f.name}.expected.json`)), `${f.name}.expected.json`);
    });
    for (const f of files) {
      it(f.name, () => {
        const exp = JSON.parse(
          fs.readFileSync(path.join(expectedDir(sub), `${f.name}.expected.json`), 'utf8'),
        ) as ExpectedFile;
        const r = analyze(f.text);
        assertSpansInside(r, f.text);
        assert.equal(r.format, exp.format);
        const got: Record<string, unknown> = {};
        for (const fact of r.facts) got[fact.key] = plain(fact);
        assert.deepEqual(got, exp.facts);
        for (const code of exp.problems)
          assert.ok(codes(r).includes(code), `problem ${code} expected; got ${codes(r).join(', ')}`);
        assert.ok(!r.problems.some((p) => p.code === 'syntax-error'), 'no syntax error in a real file');
        assert.deepEqual(
          r.references.map((x) => x.path),
          exp.references,
        );
        for (const fact of r.facts) assert.equal(f.text.slice(fact.valueSpan.start, fact.valueSpan.end), fact.rawValue);
      });
    }
  });
}

/** A text mutated the ways an editor buffer is broken: truncated, a char deleted, garbage inserted, two lines swapped. */
export function mutated(sources: readonly string[]): fc.Arbitrary<string> {
  const garbage = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      ':',
      '- ',
      '{',
      '[',
      ']',
      '}',
      '&a ',
      '*a',
      '<<: *a\n',
      '${',
      '${x}',
      '\t',
      '\n  ',
      '"',
      "'",
      '#',
      '? ',
      '---\n',
      '\r\n',
      '\u0000',
      '😀',
      '!!binary ',
    ),
  );
  return fc
    .tuple(
      fc.integer({ min: 0, max: Math.max(0, sources.length - 1) }),
      fc.integer({ min: 0, max: 3 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      garbage,
    )
    .map(([si, kind, a, b, g]) => {
      const text = sources[si] ?? '';
      const at = Math.floor(a * text.length);
      switch (kind) {
        case 0:
          return text.slice(0, at);
        case 1:
          return text.slice(0, at) + text.slice(at + 1);
        case 2:
          return text.slice(0, at) + g + text.slice(at);
        default: {
          const lines = text.split('\n');
          const i = Math.floor(a * lines.length);
          const j = Math.floor(b * lines.length);
          const li = lines[i];
          const lj = lines[j];
          if (li !== undefined && lj !== undefined) {
            lines[i] = lj;
            lines[j] = li;
          }
          return lines.join('\n');
        }
      }
    });
}

/** The never-throw, spans-inside property over mutated texts. */
export function robustnessProperty(
  analyze: (text: string) => ConfigFacts,
  sources: readonly string[],
  numRuns = 2000,
): void {
  fc.assert(
    fc.property(mutated(sources), (text) => {
      const r = analyze(text);
      assertSpansInside(r, text);
    }),
    { numRuns },
  );
}

describe('YAML analyzers: shared machinery', () => {
  it('reports a value reached through an alias at the alias site, with the anchor as origin', () => {
    const text = 'defaults: &mbs 4\nmicro_batch_size: *mbs\nsequence_len: 1024\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [
      ['microBatchSize', 4, 'micro_batch_size', '*mbs'],
      ['seqLen', 1024, 'sequence_len', '1024'],
    ]);
    const f = factOf(r, 'microBatchSize');
    assert.ok(f?.originSpan);
    assert.equal(text.slice(f.originSpan.start, f.originSpan.end), '4');
  });

  it('reads merge keys at the `*alias` site and lets explicit keys override merged ones', () => {
    const text =
      'base: &base\n  micro_batch_size: 2\n  sequence_len: 512\nrun:\n  x: 1\n<<: *base\nsequence_len: 4096\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [
      ['microBatchSize', 2, '*base', '*base'],
      ['seqLen', 4096, 'sequence_len', '4096'],
    ]);
    const f = factOf(r, 'microBatchSize');
    assert.equal(f && f.originSpan && text.slice(f.originSpan.start, f.originSpan.end), '2');
  });

  it('accepts a merge of several anchors (the first one wins)', () => {
    const text =
      'a: &a {micro_batch_size: 3}\nb: &b {micro_batch_size: 5, gradient_accumulation_steps: 7}\n<<: [*a, *b]\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [
      ['microBatchSize', 3, '*a', '*a'],
      ['gradientAccumulationSteps', 7, '*b', '*b'],
    ]);
  });

  it('survives a self-referencing alias and an alias without anchor', () => {
    for (const text of [
      'a: &a [*a]\nmicro_batch_size: *a\n',
      'micro_batch_size: *nowhere\n',
      '<<: *nowhere\nbase_model: x\n',
    ]) {
      const r = analyzeAxolotlYaml(text);
      assertSpansInside(r, text);
    }
  });

  it('resolves an OmegaConf ${...} interpolation to its target, positioned at the reference', () => {
    const text =
      'gas: 4\ngradient_accumulation_steps: ${gas}\ntokenizer:\n  max_seq_len: ${seq.len}\nseq:\n  len: 2048\nbatch_size: 2\n';
    const r = analyzeTorchtuneYaml(text);
    checkFacts(r, text, [
      ['gradientAccumulationSteps', 4, 'gradient_accumulation_steps', '${gas}'],
      ['seqLen', 2048, 'max_seq_len', '${seq.len}'],
    ]);
    const f = factOf(r, 'gradientAccumulationSteps');
    assert.equal(f && f.originSpan && text.slice(f.originSpan.start, f.originSpan.end), '4');
  });

  it('follows chained interpolations and flags unresolvable ones as not-static', () => {
    const text =
      'a: 8\nb: ${a}\nbatch_size: ${b}\ngradient_accumulation_steps: ${oc.env:GAS}\ncutoff_len: ${missing}\n';
    const tt = analyzeTorchtuneYaml(text);
    checkFacts(tt, text, [
      ['microBatchSize', 8, 'batch_size', '${b}'],
      ['gradientAccumulationSteps', { unknown: true }, 'gradient_accumulation_steps', '${oc.env:GAS}'],
    ]);
    assert.ok(
      tt.problems.some((p) => p.code === 'not-static' && text.slice(p.span.start, p.span.end) === '${oc.env:GAS}'),
    );
    const lf = analyzeLlamaFactoryYaml(text);
    checkFacts(lf, text, [['seqLen', { unknown: true }, 'cutoff_len', '${missing}']]);
    assert.ok(lf.problems.some((p) => p.code === 'not-static'));
  });

  it('builds a string of ${...} references to scalars of the file, as OmegaConf does (DimensionSTP/llm-fine-tune-hf)', () => {
    // configs/sft.yaml: `upload_user: Qwen`, `model_type: Qwen3.5-9B`, `pretrained_model_name: ${upload_user}/${model_type}`.
    const text = 'user: Qwen\nsize: 7\nbase_model: ${user}/Qwen2.5-${size}B\ndataset: ${oc.env:DATA}/x\n';
    const r = analyzeLlamaFactoryYaml(text.replace('base_model', 'model_name_or_path'));
    assert.equal(factOf(r, 'model')?.value, 'Qwen/Qwen2.5-7B');
    const missing = analyzeLlamaFactoryYaml('model_name_or_path: ${user}/Qwen2.5-7B\n');
    assert.deepEqual(factOf(missing, 'model')?.value, {
      unknown: '`${user}/Qwen2.5-7B` is built by OmegaConf string interpolation at launch time',
    });
  });

  it('detects an interpolation cycle without looping', () => {
    const text = 'a: ${b}\nb: ${a}\nbatch_size: ${a}\n';
    const r = analyzeTorchtuneYaml(text);
    checkFacts(r, text, [['microBatchSize', { unknown: true }, 'batch_size', '${a}']]);
  });

  it('leaves ${...} alone for PyYAML tools (Axolotl reads it as a string)', () => {
    const text = 'micro_batch_size: ${mbs}\n';
    const r = analyzeAxolotlYaml(text);
    assert.equal(factOf(r, 'microBatchSize'), undefined);
    assert.ok(codes(r).includes('invalid-value'));
  });

  it("reads a Hydra config's ${...} with OmegaConf's rules (DimensionSTP/llm-fine-tune-hf configs/grpo.yaml)", () => {
    // A TRL-style config with a defaults list is composed by Hydra: an interpolation of a key another group gives is
    // not known statically, where yaml.safe_load would hand TRL the text.
    const text = '# @package _global_\ndefaults:\n  - trainer: grpo\nvllm_tensor_parallel_size: ${devices}\n';
    const r = analyzeHfYaml(text);
    assert.ok(!codes(r).includes('invalid-value'), JSON.stringify(r.problems));
    assert.ok(codes(r).includes('not-static'));
    assert.ok(codes(analyzeHfYaml('vllm_tensor_parallel_size: ${devices}\n')).includes('invalid-value'));
  });

  it('reports duplicate keys: a warning under PyYAML (last wins), an error under OmegaConf', () => {
    const text = 'micro_batch_size: 2\nmicro_batch_size: 8\n';
    const ax = analyzeAxolotlYaml(text);
    checkFacts(ax, text, [['microBatchSize', 8]]);
    const dup = ax.problems.find((p) => p.code === 'duplicate-key');
    assert.equal(dup?.severity, 'warning');
    assert.equal(dup && text.slice(dup.span.start, dup.span.end), 'micro_batch_size');
    assert.equal(dup?.span.start, text.lastIndexOf('micro_batch_size'));
    const lfText = 'cutoff_len: 1024\ncutoff_len: 512\n';
    const lf = analyzeLlamaFactoryYaml(lfText);
    assert.equal(lf.problems.find((p) => p.code === 'duplicate-key')?.severity, 'error');
  });

  it('reads a quoted scalar whose continuation lines start at column 0, as PyYAML does', () => {
    // khalidsaifullaah/torchtune's guardian configs write their prompt so; YAML 1.2 wants the lines indented.
    const text = [
      'dataset:',
      '  _component_: torchtune.datasets.instruct_dataset',
      '  new_system_prompt: "',
      'You are a guardian model.',
      'Respond in the following format: <answer>"',
      'batch_size: 4',
      'tokenizer:',
      '  max_seq_len: 2048',
      '',
    ].join('\n');
    const r = analyzeTorchtuneYaml(text);
    assert.deepEqual(
      r.problems.filter((p) => p.code === 'syntax-error'),
      [],
    );
    checkFacts(r, text, [
      ['microBatchSize', 4, 'batch_size', '4'],
      ['seqLen', 2048, 'max_seq_len', '2048'],
    ]);
  });

  it('reads YAML 1.1 booleans (yes/on/off) and Python-style True/False leniently', () => {
    const text = 'load_in_4bit: yes\nadapter: qlora\ngradient_checkpointing: off\nfp16: False\nbf16: On\n';
    const r = analyzeAxolotlYaml(text);
    checkFacts(r, text, [
      ['quantBits', 4, 'load_in_4bit', 'yes'],
      ['gradientCheckpointing', 'none', 'gradient_checkpointing', 'off'],
      ['fp16', false],
      ['bf16', true, 'bf16', 'On'],
    ]);
  });

  it('reads numbers written as strings or with underscores', () => {
    const text = "micro_batch_size: '4'\nsequence_len: 4_096\n";
    checkFacts(analyzeAxolotlYaml(text), text, [
      ['microBatchSize', 4, 'micro_batch_size', "'4'"],
      ['seqLen', 4096, 'sequence_len', '4_096'],
    ]);
  });

  it('keeps exact UTF-16 spans with CRLF line ends, non-ASCII and astral characters before the keys', () => {
    const text =
      '# 🤗 — ─ config\r\nchat_template: "😀 ─── \\n"\r\nper_device_train_batch_size: 4\r\nmax_length: 1024\r\n';
    const r = analyzeHfYaml(text);
    checkFacts(r, text, [
      ['microBatchSize', 4, 'per_device_train_batch_size', '4'],
      ['seqLen', 1024, 'max_length', '1024'],
    ]);
  });

  it('reports YAML syntax errors at their position and keeps the facts before them', () => {
    const text =
      'base_model: NousResearch/Llama-2-7b-hf\nmicro_batch_size: 2\nlora_target_modules: [q_proj, v_proj\nsequence_len: 2048\n';
    const r = analyzeAxolotlYaml(text);
    assertSpansInside(r, text);
    assert.ok(codes(r).includes('syntax-error'));
    checkFacts(r, text, [
      ['model', 'NousResearch/Llama-2-7b-hf'],
      ['microBatchSize', 2],
    ]);
  });

  // Azure/torchtune-azureml scripts/lora_finetune_phi4.yaml is rendered by a script before `tune run` reads it:
  // `vocab_path:  {{model_dir}}/vocab.json` is not YAML (PyYAML: "expected <block end>, but found '<scalar>'").
  it('reads a Jinja-templated file with its placeholders masked: one note, and a setting written with one is unknown', () => {
    const text =
      'model:\n  _component_: torchtune.models.phi4.lora_phi4_14b\n' +
      'tokenizer:\n  vocab_path:  {{model_dir}}/vocab.json\n  max_seq_len: 4096\n' +
      'batch_size: {{ batch_size }}\ngradient_accumulation_steps: 8\n';
    const r = analyzeTorchtuneYaml(text);
    assertSpansInside(r, text);
    assert.deepEqual(codes(r).sort(), ['not-static', 'placeholder']);
    const note = r.problems.find((p) => p.code === 'placeholder');
    assert.equal(note?.severity, 'info');
    assert.equal(text.slice(note?.span.start, note?.span.end), '{{model_dir}}');
    assert.match(note?.message ?? '', /2 `\{\{ \.\.\. \}\}` placeholders/);
    checkFacts(r, text, [
      ['model', 'microsoft/phi-4'],
      ['seqLen', 4096],
      ['gradientAccumulationSteps', 8],
      ['microBatchSize', { unknown: true }, 'batch_size', '{{ batch_size }}'],
    ]);
  });

  it('leaves `{{` inside text alone: a chat template in a quoted string is not a placeholder', () => {
    const text = 'base_model: NousResearch/Llama-2-7b-hf\nchat_template_jinja: "{{ bos_token }}{{ messages }}"\n';
    const r = analyzeAxolotlYaml(text);
    assert.ok(!codes(r).includes('placeholder') && !codes(r).includes('not-static'), codes(r).join(', '));
    checkFacts(r, text, [['model', 'NousResearch/Llama-2-7b-hf']]);
  });

  it('returns an empty result for empty, scalar, list and multi-document texts without throwing', () => {
    for (const text of [
      '',
      '   \n',
      'just a string',
      '- a\n- b\n',
      'a: 1\n---\nb: 2\n',
      '\u0000\u0001garbage: [',
      '{{{{',
      ': : :',
    ]) {
      for (const analyze of [
        analyzeAccelerateYaml,
        analyzeAxolotlYaml,
        analyzeLlamaFactoryYaml,
        analyzeTorchtuneYaml,
        analyzeHfYaml,
      ]) {
        assertSpansInside(analyze(text), text);
      }
    }
  });

  it('refuses pathologically deep bracket nesting with a located problem instead of crashing the process', () => {
    const text = `micro_batch_size: 2\nx: ${'['.repeat(5000)}`;
    for (let i = 0; i < 5; i++) {
      for (const analyze of [
        analyzeAccelerateYaml,
        analyzeAxolotlYaml,
        analyzeLlamaFactoryYaml,
        analyzeTorchtuneYaml,
        analyzeHfYaml,
      ]) {
        const r = analyze(text);
        assertSpansInside(r, text);
        assert.ok(codes(r).includes('syntax-error'));
      }
    }
    assert.equal(flowDepth('a: [[1], {b: [2]}]'), 3);
  });

  it('reads deep block nesting and a large file', () => {
    const deep = Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    assertSpansInside(analyzeAxolotlYaml(deep), deep);
    const big = `micro_batch_size: 2\n${Array.from({ length: 5000 }, (_, i) => `key_${i}: value ${i}`).join('\n')}\nsequence_len: 8\n`;
    checkFacts(analyzeAxolotlYaml(big), big, [
      ['microBatchSize', 2],
      ['seqLen', 8, 'sequence_len', '8'],
    ]);
  });

  it('treats `key:` with nothing after it as absent, not false', () => {
    const text = 'fp16:\nbf16: true\ndeepspeed:\nfsdp:\nfsdp_config:\n';
    const r = analyzeAxolotlYaml(text);
    assert.equal(factOf(r, 'fp16'), undefined);
    assert.equal(factOf(r, 'deepspeedConfig'), undefined);
    assert.equal(factOf(r, 'fsdp'), undefined);
    checkFacts(r, text, [['bf16', true]]);
  });
});
