// The top-level block cache of the YAML analyzers (src/analyzers/yaml/blocks.ts): whatever the block path does —
// cut, cache, shift, join, fall back — every analyzer must return exactly the ConfigFacts of a full parse, over the
// corpus, the test fixtures, mutated texts and a simulated typing session with a warm cache.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { ConfigFacts } from '../../../src/analyzers/facts';
import {
  analyzeAccelerateYaml,
  analyzeAxolotlYaml,
  analyzeHfYaml,
  analyzeLlamaFactoryYaml,
  analyzeTorchtuneYaml,
} from '../../../src/analyzers/yaml';
import {
  cachedBlockCopies,
  clearYamlBlockCache,
  setYamlBlockCache,
  topLevelBlocks,
} from '../../../src/analyzers/yaml/blocks';
import { mutated } from './yaml-common.test';

const ANALYZERS: readonly [string, (text: string) => ConfigFacts][] = [
  ['accelerate', analyzeAccelerateYaml],
  ['axolotl', analyzeAxolotlYaml],
  ['llamafactory', analyzeLlamaFactoryYaml],
  ['torchtune', analyzeTorchtuneYaml],
  ['hf', analyzeHfYaml],
];

/** ../shared beside the checkout (from out/test/unit/analyzers/), or undefined on a fresh clone. */
const SHARED = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared');

function corpusTexts(): { name: string; text: string }[] {
  const dir = path.join(SHARED, 'corpus');
  if (!fs.existsSync(dir)) return [];
  const out: { name: string; text: string }[] = [];
  for (const sub of fs
    .readdirSync(dir)
    .filter((s) => s.endsWith('-yaml'))
    .sort()) {
    for (const name of fs.readdirSync(path.join(dir, sub)).sort())
      out.push({ name: `${sub}/${name}`, text: fs.readFileSync(path.join(dir, sub, name), 'utf8') });
  }
  return out;
}

/** The YAML files under test/fixtures (scenario files included: they are YAML too). */
function fixtureTexts(): { name: string; text: string }[] {
  const root = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures');
  const out: { name: string; text: string }[] = [];
  const walk = (d: string): void => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/i.test(e.name)) out.push({ name: path.relative(root, p), text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(root);
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Texts that exercise the scanner's edges: comments, blank lines, empty values, block scalars, fallbacks. */
const EDGE_TEXTS = [
  'base_model: x\n\n# comment\nmicro_batch_size: 2\n',
  'dataset_prepared_path:\n# hub_model_id: x\n\nload_in_8bit: false\nval_set_size:\n',
  'a: |\n  text\n\n\nmicro_batch_size: 4\nb: >-\n  folded\n\n  more\n\nsequence_len: 512\n',
  'c:\n\n# c\n  line\nmicro_batch_size: 1\nb: 2\n',
  'c:\n- x\n- y: 1\n  z: 2\nmicro_batch_size: 3\n',
  'micro_batch_size: 2\r\nsequence_len: 1024\r\n# c\r\nbf16: true\r\n',
  'micro_batch_size: "2\nsequence_len: 1024"\n',
  'micro_batch_size: [2,\nsequence_len: 1024]\n',
  '---\nmicro_batch_size: 2\n',
  '%YAML 1.2\n---\nmicro_batch_size: 2\n',
  '{micro_batch_size: 2}\n',
  'base: &b 2\nmicro_batch_size: *b\n',
  'base: &b\n  micro_batch_size: 2\n<<: *b\n',
  'a: |+\n  keep\n\nmicro_batch_size: 2\n',
  'micro_batch_size:\t2\n',
  '\uFEFFmicro_batch_size: 2\n',
  '? micro_batch_size\n: 2\n',
  'just a scalar\n',
  '- a\n- b\n',
  'bf16: true\nbf16: true\nfp16: true\nbf16: true\n',
  'gas: 4\ngradient_accumulation_steps: ${gas}\nbatch_size: ${gas}\n',
  '',
  '# only a comment\n',
];

/** Every analyzer's result through the block path equals its result through a forced full parse. */
function assertSame(text: string, label: string): void {
  for (const [name, analyze] of ANALYZERS) {
    setYamlBlockCache(false);
    let full: ConfigFacts;
    try {
      full = analyze(text);
    } finally {
      setYamlBlockCache(true);
    }
    const viaBlocks = analyze(text);
    assert.deepEqual(viaBlocks, full, `${name} on ${label}: ${JSON.stringify(text.slice(0, 200))}`);
  }
}

/** One edit of a corpus text: a value changed, a line inserted, deleted or duplicated, garbage typed somewhere. */
function edited(sources: readonly string[]): fc.Arbitrary<string> {
  const lines = fc.constantFrom(
    'micro_batch_size: 8',
    'sequence_len: 2048',
    '  nested: 1',
    '- item',
    '# note',
    '',
    '   ',
    'key:',
    'bf16: auto',
    'x: "open',
    'y: [1,',
    '  - path: a',
    'gradient_accumulation_steps: ${gas}',
  );
  const value = fc.oneof(
    fc.constantFrom('1', '16', 'true', 'no', "'4'", '""', '~', '[1, 2]', '{a: 1}', '2e-5', 'bf16', ''),
    fc.string({ maxLength: 6 }),
  );
  return fc
    .tuple(
      fc.integer({ min: 0, max: Math.max(0, sources.length - 1) }),
      fc.integer({ min: 0, max: 3 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      lines,
      value,
    )
    .map(([si, kind, a, line, v]) => {
      const ls = (sources[si] ?? '').split('\n');
      const i = Math.floor(a * ls.length);
      switch (kind) {
        case 0: {
          // change the value of one `key: value` line
          const cur = ls[i] ?? '';
          const m = /^(\s*[^#\s][^:]*:\s)/.exec(cur);
          ls[i] = m ? `${m[1]}${v}` : cur;
          break;
        }
        case 1:
          ls.splice(i, 0, line);
          break;
        case 2:
          ls.splice(i, 1);
          break;
        default:
          ls.splice(i, 0, ls[i] ?? '');
          break;
      }
      return ls.join('\n');
    });
}

describe('YAML analyzers: top-level block cache', () => {
  beforeEach(() => {
    setYamlBlockCache(true);
    clearYamlBlockCache();
  });
  after(() => setYamlBlockCache(true));

  it('cuts a block-style file at its column-0 keys and refuses what it cannot vouch for', () => {
    assert.deepEqual(topLevelBlocks('# head\na: 1\n\n# c\nb:\n  - x\nc: 2\n'), [0, 17, 26]);
    assert.deepEqual(topLevelBlocks('a:\n- x\nb: |\n  t\nc: "x"\n'), [0, 7, 16]);
    for (const text of [
      '---\na: 1\n',
      '%YAML 1.2\n---\na: 1\n',
      '{a: 1}\n',
      '[1]\n',
      'a: &x 1\nb: *x\n',
      '<<: {a: 1}\n',
      'a:\t1\n',
      'a: |+\n  x\n',
      '? a\n: 1\n',
      'x\na: 1\n',
      '  a: 1\n',
      '- a\n',
      '|\n  x\n',
      '!!map\na: 1\n',
      '\uFEFFa: 1\n',
      'a: 1\rb: 2\n',
      '',
    ]) {
      assert.equal(topLevelBlocks(text), undefined, JSON.stringify(text));
    }
  });

  it('gives the ConfigFacts of a full parse on edge texts, cold and warm', () => {
    for (const text of EDGE_TEXTS) assertSame(text, 'edge (cold)');
    for (const text of EDGE_TEXTS) assertSame(text, 'edge (warm)');
  });

  it('keeps one parsed copy per occurrence of a repeated block, so a warm re-analysis parses none of them again', () => {
    // A key written n times (a fuzz mutant repeated a 5 KB chat_template line 45 times) is n identical blocks. Each
    // was parsed afresh on every analysis, 45 parses of 5 KB per keystroke and per quick fix written.
    const block = `chat_template: "${'{{- x -}}\\n'.repeat(50)}"\n`;
    const text = `model_name_or_path: m\n${block.repeat(3)}micro_batch_size: 2\n`;
    assertSame(text, 'repeated block (cold)');
    assert.equal(cachedBlockCopies(block), 3);
    assertSame(`# moved\n${text}`, 'repeated block (warm, shifted)');
    assert.equal(cachedBlockCopies(block), 3);
  });

  it('gives the ConfigFacts of a full parse on every test fixture', () => {
    const files = fixtureTexts();
    assert.ok(files.length > 0);
    for (const f of files) assertSame(f.text, f.name);
  });

  describe('corpus (skipped when ../shared is absent)', () => {
    const files = corpusTexts();

    it('gives the ConfigFacts of a full parse on every corpus file, cold, warm and shifted', function () {
      if (files.length === 0) this.skip();
      let cut = 0;
      for (const f of files) {
        if ((topLevelBlocks(f.text)?.length ?? 0) > 1) cut++;
        assertSame(f.text, `${f.name} (cold)`);
        assertSame(f.text, `${f.name} (warm)`);
        // Every cached block now sits further down the file.
        assertSame(`# shifted\n\n${f.text}`, `${f.name} (shifted)`);
        assertSame(f.text, `${f.name} (shifted back)`);
      }
      assert.ok(cut >= files.length - 2, `the block path serves the corpus (${cut} of ${files.length} files cut)`);
    });

    it('gives the ConfigFacts of a full parse on mutated corpus texts (garbage, truncation, swapped lines)', function () {
      if (files.length === 0) this.skip();
      this.timeout(120_000);
      const sources = files.map((f) => f.text);
      fc.assert(
        fc.property(mutated(sources), (text) => assertSame(text, 'mutation')),
        { numRuns: 1000 },
      );
    });

    it('gives the ConfigFacts of a full parse on edited corpus texts (values, inserted and deleted lines)', function () {
      if (files.length === 0) this.skip();
      this.timeout(120_000);
      const sources = files.map((f) => f.text);
      fc.assert(
        fc.property(edited(sources), (text) => assertSame(text, 'edit')),
        { numRuns: 1000 },
      );
    });

    it('follows a typing session keystroke by keystroke with a warm cache', function () {
      if (files.length === 0) this.skip();
      this.timeout(120_000);
      const typed = '\nmicro_batch_size: 16  # per GPU\nlora_target_modules:\n  - q_proj\n';
      for (const f of files.filter((_, i) => i % 4 === 0)) {
        // Type a few lines in the middle of the file, change a digit, then delete them again.
        const lines = f.text.split('\n');
        const at = lines.slice(0, Math.floor(lines.length / 2)).join('\n').length;
        let text = f.text;
        assertSame(text, `${f.name} before typing`);
        for (let k = 1; k <= typed.length; k++) {
          text = f.text.slice(0, at) + typed.slice(0, k) + f.text.slice(at);
          assertSame(text, `${f.name} typing ${k}`);
        }
        const digit = text.indexOf('16  # per GPU');
        for (const d of ['1', '', '3', '32'])
          assertSame(text.slice(0, digit) + d + text.slice(digit + 2), `${f.name} digit ${d}`);
        for (let k = typed.length - 1; k >= 0; k--) {
          text = f.text.slice(0, at) + typed.slice(0, k) + f.text.slice(at);
          assertSame(text, `${f.name} deleting ${k}`);
        }
      }
    });
  });

  it('gives the ConfigFacts of a full parse on random line soups', () => {
    const soup = fc.constantFrom(
      'micro_batch_size: 2',
      'bf16: true',
      'a:',
      '  b: 1',
      '  - c',
      '- d',
      '  e: |',
      '    lit',
      'f: >',
      '',
      '  ',
      '# c',
      '  # c',
      'g: "q',
      'h: q"',
      'i: [1,',
      '  2]',
      'p:b',
      '-q: 1',
      '"r": 1',
      'sequence_len: 1024\r',
      'gas: ${x}',
      'x: 4',
      'garbage',
    );
    fc.assert(
      fc.property(fc.array(soup, { maxLength: 20 }), fc.boolean(), (ls, nl) =>
        assertSame(ls.join('\n') + (nl ? '\n' : ''), 'soup'),
      ),
      { numRuns: 1000 },
    );
  });
});
