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

describe('purity and boundaries of the source folders', () => {
  for (const folder of ['src/core', 'src/analyzers']) {
    it(`${folder} imports no vscode, node:*, fs, path, os or child_process`, () => {
      const bad: string[] = [];
      for (const f of tsFiles(path.join(root, folder))) {
        const text = fs.readFileSync(f, 'utf8');
        if (/from ['"](vscode|node:[\w/]+|fs|path|os|child_process)['"]|require\(['"](vscode|node:|fs|path)/.test(text))
          bad.push(path.relative(root, f));
      }
      assert.deepEqual(bad, []);
    });
  }
  it('only src/vscode imports vscode', () => {
    const bad = tsFiles(path.join(root, 'src'))
      .filter((f) => !f.includes(`${path.sep}src${path.sep}vscode${path.sep}`) && !f.endsWith('extension.ts'))
      .filter((f) => /from ['"]vscode['"]/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(bad, []);
  });
  it('outside src/core, the core is imported through src/core/index.ts only', () => {
    const bad = tsFiles(path.join(root, 'src'))
      .filter((f) => !f.includes(`${path.sep}src${path.sep}core${path.sep}`))
      .filter((f) => /from ['"](\.\.\/)+core\/[^'"]+['"]/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    assert.deepEqual(bad, []);
  });
  it('src/node (host file access) is imported only by the CLI, the server and the extension', () => {
    const allowed = ['cli', 'server', 'vscode', 'node'].map((d) => `${path.sep}src${path.sep}${d}${path.sep}`);
    const bad = tsFiles(path.join(root, 'src'))
      .filter((f) => !allowed.some((d) => f.includes(d)))
      .filter((f) => /from ['"](\.\.\/)+node(\/[^'"]*)?['"]/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    assert.deepEqual(bad, []);
  });
  it("the webview imports from src only the core's index and the protocol", () => {
    const bad: string[] = [];
    for (const f of tsFiles(path.join(root, 'webview-ui', 'src'))) {
      for (const m of fs.readFileSync(f, 'utf8').matchAll(/from ['"]((?:\.\.\/)+src\/[^'"]+)['"]/g)) {
        if (!/\/src\/(core|protocol\/[\w-]+)$/.test(m[1])) bad.push(`${path.relative(root, f)}: ${m[1]}`);
      }
    }
    assert.deepEqual(bad, []);
  });
  it('src/core holds no module-level mutable bindings (let or var at the top level)', () => {
    const bad = tsFiles(path.join(root, 'src', 'core'))
      .filter((f) => /^(export )?(let|var) /m.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    assert.deepEqual(bad, []);
  });
  describe('size limits of the code', () => {
    /** Code files under the given folders, leaving out data: fixtures, catalogs and the copied real files. */
    function codeFiles(): string[] {
      const walk = (dir: string): string[] =>
        !fs.existsSync(dir)
          ? []
          : fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
              const p = path.join(dir, e.name);
              if (e.isDirectory())
                return /^(node_modules|out|dist|fixtures|files|\.venv4?|__pycache__|catalog)$/.test(e.name)
                  ? []
                  : walk(p);
              return /\.(ts|mjs|cjs|js|py|sh)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
            });
      return ['src', 'webview-ui/src', 'test', 'tools', 'bench', 'scripts'].flatMap((d) => walk(path.join(root, d)));
    }
    it('no line of code is over 160 characters', () => {
      const bad: string[] = [];
      for (const f of codeFiles()) {
        fs.readFileSync(f, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (line.length > 160) bad.push(`${path.relative(root, f)}:${i + 1} (${line.length})`);
          });
      }
      assert.deepEqual(bad, []);
    });
    it('no source file outside the catalogs is over 800 lines', () => {
      const bad = tsFiles(path.join(root, 'src'))
        .filter((f) => !f.includes(`${path.sep}catalog${path.sep}`))
        .map((f) => [path.relative(root, f), fs.readFileSync(f, 'utf8').split('\n').length] as const)
        .filter(([, lines]) => lines > 800);
      assert.deepEqual(bad, []);
    });
  });
});
