// Localisation: every runtime string of the host (vscode.l10n.t / t in features) and of the panel has a Simplified
// Chinese entry in l10n/bundle.l10n.zh-cn.json, and every package.nls.json key is in package.nls.zh-cn.json.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PANEL_STRINGS } from '../../webview-ui/src/strings';

const repo = path.resolve(__dirname, '..', '..', '..');
const read = (p: string): string => fs.readFileSync(path.join(repo, p), 'utf8');

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(repo, dir)).filter((f) => f.endsWith('.ts')).map((f) => read(path.join(dir, f)));
}

describe('l10n (zh-cn)', () => {
  const bundle = JSON.parse(read('l10n/bundle.l10n.zh-cn.json')) as Record<string, string>;
  it('every host string has a translation', () => {
    const missing: string[] = [];
    for (const text of [...sources('src/vscode'), ...sources('src/features')]) {
      for (const m of text.matchAll(/(?:l10n\.t|[^A-Za-z]t)\('((?:[^'\\]|\\.)*)'/g)) {
        const s = m[1].replace(/\\'/g, "'");
        if (!(s in bundle)) missing.push(s);
      }
    }
    assert.deepEqual(missing, []);
  });
  it('every panel string has a translation', () => {
    assert.deepEqual(PANEL_STRINGS.filter((s) => !(s in bundle)), []);
  });
  it('package.nls.zh-cn.json covers package.nls.json', () => {
    const en = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const zh = JSON.parse(read('package.nls.zh-cn.json')) as Record<string, string>;
    assert.deepEqual(Object.keys(en).filter((k) => !(k in zh)), []);
  });
});
