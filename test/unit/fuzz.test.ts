// The fuzz campaign in CI: 10,000 mutants of our examples, fixtures and the real corpus (numbers made extreme or
// malformed, Markdown and terminal payloads, long runs of one character, deep nesting, duplicated lines, deleted
// spans, long model ids) through the entry the language server uses: analysis, the hover at every key, quick fixes
// and the panel model. None may throw, take over a second of analysis, report a byte count that is not a safe
// integer, point outside the text, or word a message with "Infinity", "NaN" or a schema library's own phrases.
// VRAM_LENS_FUZZ_COUNT sets the count (docs/contributing/fuzzing.md describes the 100,000-input run); the seed is fixed,
// so a failure replays with `node out/test/fuzz/run.js --seed 1 --count N`.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkInput, mutate, rng, seeds } from '../fuzz/harness';

const COUNT = Number(process.env.VRAM_LENS_FUZZ_COUNT ?? 10_000);

describe(`fuzz: ${COUNT.toLocaleString('en-US')} mutated configs through the editor's entry points`, function () {
  this.timeout(0);
  it('no exception, no analysis over 1 s, only safe integers, ranges inside the text, messages in our words', () => {
    const all = seeds();
    assert.ok(all.length >= 30, `${all.length} seeds`);
    const failures: string[] = [];
    let worst = 0;
    for (let i = 0; i < COUNT; i++) {
      const r = rng(1 * 1_000_003 + i);
      const s = all[Math.floor(r() * all.length)];
      const text = mutate(s, r);
      const res = checkInput(s.file, text);
      worst = Math.max(worst, res.millis.analysis);
      if (res.violations.length > 0)
        failures.push(
          `#${i} ${path.basename(s.file)} [${text.length} chars]: ${res.violations.map((v) => `${v.kind}: ${v.detail}`).join(' | ')}`,
        );
    }
    assert.deepEqual(
      failures.slice(0, 20),
      [],
      `${failures.length} of ${COUNT} inputs failed (slowest analysis ${worst.toFixed(0)} ms)`,
    );
  });
});
