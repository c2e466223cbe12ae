// The real configs of ../shared/corpus (57 files from public repositories; SOURCES.tsv says where each is from):
// every file goes through the CLI without a crash or stack trace, and the facts of each file with a committed
// expected-facts file (test/fixtures/corpus-expected, written by reading the file) are checked.
// Needs ../shared beside the checkout; skipped on a fresh clone without it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeAs, detectFormat } from '../../src/analyzers/detect';
import { isUnknown } from '../../src/analyzers/facts';
import { run } from '../../src/cli/main';
import { sharedDir } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..');
const expectedRoot = path.join(repo, 'test', 'fixtures', 'corpus-expected');

function corpusFiles(shared: string): string[] {
  const root = path.join(shared, 'corpus');
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(root, d.name)).map((f) => path.join(root, d.name, f)));
}

describe('corpus (needs ../shared/corpus)', function () {
  const shared = sharedDir();
  before(function () {
    if (!shared) this.skip();
  });

  it('every corpus file goes through `vram-lens estimate` without a crash or a stack trace', async function () {
    if (!shared) this.skip();
    const files = corpusFiles(shared!);
    assert.ok(files.length >= 57, `57 corpus files, found ${files.length}`);
    const env = { HOME: '/nonexistent', HF_HUB_CACHE: '/nonexistent' };
    for (const f of files) {
      let out = '';
      let err = '';
      const code = await run(['estimate', f, '--json'], {
        out: (s) => (out += s),
        err: (s) => (err += s),
        cwd: repo,
        env,
      });
      assert.ok(code === 0 || code === 2, `${path.basename(f)}: exit ${code}`);
      assert.doesNotMatch(err, /\n\s+at .*\.js:\d+|internal error|TypeError|RangeError/, `${path.basename(f)}: ${err}`);
      if (code === 0) assert.ok(JSON.parse(out).perGpu.peakBytes > 0);
    }
  });

  it('at least 35 corpus files have expected facts, and each matches', function () {
    if (!shared) this.skip();
    let checked = 0;
    const failures: string[] = [];
    for (const f of corpusFiles(shared!)) {
      const dir = path.basename(path.dirname(f));
      const exp = path.join(expectedRoot, dir, `${path.basename(f)}.expected.json`);
      if (!fs.existsSync(exp)) continue;
      checked++;
      const expected = JSON.parse(fs.readFileSync(exp, 'utf8')) as {
        format: string;
        facts: Record<string, unknown>;
        problems?: string[];
        references?: string[];
      };
      const text = fs.readFileSync(f, 'utf8');
      const format = detectFormat(f, text);
      if (format !== expected.format) {
        failures.push(`${dir}/${path.basename(f)}: detected ${format}, expected ${expected.format}`);
        continue;
      }
      const facts = analyzeAs(format, text);
      const byKey = new Map<string, unknown>();
      for (const fact of facts.facts) byKey.set(fact.key, isUnknown(fact.value) ? { unknown: true } : fact.value);
      for (const [k, v] of Object.entries(expected.facts)) {
        const got = byKey.get(k);
        if (JSON.stringify(got) !== JSON.stringify(v))
          failures.push(`${dir}/${path.basename(f)}: ${k} = ${JSON.stringify(got)}, expected ${JSON.stringify(v)}`);
      }
      for (const code of expected.problems ?? []) {
        if (!facts.problems.some((p) => p.code === code))
          failures.push(`${dir}/${path.basename(f)}: expected a '${code}' problem`);
      }
      for (const r of expected.references ?? []) {
        if (!facts.references.some((x) => x.path === r))
          failures.push(`${dir}/${path.basename(f)}: expected a reference to ${r}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(checked >= 35, `expected-facts files checked: ${checked}`);
  });
});
