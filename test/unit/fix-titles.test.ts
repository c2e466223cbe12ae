// Quick-fix titles keep their word: for every fix offered on the real corpus, our fixtures and the examples, the
// files are edited as the fix edits them and analyzed afresh (a new analysis of the edited texts, as the editor
// would see them after the fix); the saving in the title must be what that analysis gives, within the title's
// rounding, and a title that says the run fits must fit. No two rows are alike, and an edit that turns on a Liger
// kernel says in its title that it needs the liger-kernel package.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileReader } from '../../src/analyzers/pipeline';
import { analyzeDocument, type AnalysisSettings } from '../../src/features/analysis';
import { applyEditData, type EditData } from '../../src/features/fixes';
import { quickFixes } from '../../src/features/quick-fixes';
import { nodeFileReader } from '../../src/node/files';
import { offlineModelResolver } from '../../src/node/models';
import { sharedDir } from './helpers';

const repo = path.resolve(__dirname, '..', '..', '..');
const env = { HOME: '/nonexistent', HF_HUB_CACHE: '/nonexistent', XDG_CACHE_HOME: '/nonexistent' };
const GiB = 2 ** 30;

const listFiles = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((d) => (d.isDirectory() ? listFiles(path.join(dir, d.name)) : [path.join(dir, d.name)]))
    : [];

/** The saving a title states and half its last printed digit, in bytes (formatBytes: GiB with one decimal, whole MiB). */
function titleSaving(title: string): { bytes: number; rounding: number } | undefined {
  const m = /^-([\d.]+) (GiB|MiB) · /.exec(title);
  if (!m) return undefined;
  const unit = m[2] === 'GiB' ? GiB : 2 ** 20;
  const decimals = m[1].includes('.') ? m[1].split('.')[1].length : 0;
  return { bytes: Number(m[1]) * unit, rounding: (0.5 * unit) / 10 ** decimals };
}

/** A reader that sees the edited texts of the files a fix touches, and the disk otherwise. */
function editedReader(base: FileReader, edits: readonly EditData[]): FileReader {
  return {
    ...base,
    read: (p, kind) => {
      const text = base.read(p, kind);
      const mine = edits.filter((e) => e.file === p);
      return text === undefined || mine.length === 0 ? text : applyEditData(text, mine);
    },
  };
}

describe('quick-fix titles state what the edited files deliver', function () {
  this.timeout(600_000);
  it('every fix on the corpus, fixtures and examples: the title saving within its rounding of a fresh analysis', () => {
    const shared = sharedDir();
    const files = [
      ...listFiles(path.join(repo, 'examples')),
      ...listFiles(path.join(repo, 'test', 'fixtures', 'same-run')),
      ...(shared ? listFiles(path.join(shared, 'corpus')) : []),
    ].filter((f) => !/\.(md|tsv)$/.test(f));
    const settings: AnalysisSettings = { gpu: 'RTX-4090', headroomPercent: 5 };
    let checked = 0;
    const misses: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const opts = {
        reader: nodeFileReader(path.dirname(file)),
        resolver: offlineModelResolver({ cwd: path.dirname(file), env }),
      };
      const a = analyzeDocument({ file, text }, settings, opts);
      const fixes = quickFixes(a);
      // No two rows alike: neither the same edits nor the same change named twice.
      const names = fixes.map((f) => f.title.replace(/^-\S+ \S+ · /, ''));
      assert.equal(new Set(names).size, names.length, `${path.basename(file)}: ${JSON.stringify(names)}`);
      const edits = fixes.map((f) => JSON.stringify(f.edits));
      assert.equal(new Set(edits).size, edits.length, `${path.basename(file)}: two fixes write the same edits`);
      for (const fix of fixes) {
        if (fix.edits.some((e) => /liger/i.test(e.newText))) assert.match(fix.title, /needs liger-kernel/);
        const saving = titleSaving(fix.title);
        assert.ok(saving !== undefined, fix.title);
        const own = fix.edits.filter((e) => e.file === file);
        const fresh = analyzeDocument({ file, text: applyEditData(text, own) }, settings, {
          ...opts,
          reader: editedReader(opts.reader, fix.edits),
        });
        assert.ok(a.estimate && fresh.estimate, `${path.basename(file)}: ${fix.title}: no estimate after the fix`);
        const actual = a.estimate.perGpu.deviceBytes - fresh.estimate.perGpu.deviceBytes;
        if (Math.abs(actual - saving.bytes) > Math.max(0.01 * Math.abs(actual), saving.rounding)) {
          misses.push(
            `${path.basename(file)}: "${fix.title}" but the edited files save ${(actual / GiB).toFixed(2)} GiB`,
          );
        }
        if (!/still does not fit/.test(fix.title) && fresh.estimate.fits === false)
          misses.push(`${path.basename(file)}: "${fix.title}" but the edited files do not fit`);
        checked++;
      }
    }
    assert.ok(checked >= 100, `only ${checked} fixes`);
    assert.deepEqual(misses, []);
  });
});
