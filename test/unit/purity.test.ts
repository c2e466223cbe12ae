// Architecture rule (STYLE.md §3): the pure folders import neither 'vscode' nor node built-ins.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');
function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('purity of src/core and src/analyzers', () => {
  for (const folder of ['src/core', 'src/analyzers']) {
    it(`${folder} imports no vscode, node:*, fs, path, os or child_process`, () => {
      const bad: string[] = [];
      for (const f of tsFiles(path.join(root, folder))) {
        const text = fs.readFileSync(f, 'utf8');
        if (/from ['"](vscode|node:[\w/]+|fs|path|os|child_process)['"]|require\(['"](vscode|node:|fs|path)/.test(text)) bad.push(path.relative(root, f));
      }
      assert.deepEqual(bad, []);
    });
  }
  it('only src/vscode imports vscode', () => {
    const bad = tsFiles(path.join(root, 'src')).filter((f) => !f.includes(`${path.sep}src${path.sep}vscode${path.sep}`) && !f.endsWith('extension.ts'))
      .filter((f) => /from ['"]vscode['"]/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(bad, []);
  });
});
