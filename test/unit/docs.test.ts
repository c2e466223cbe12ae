// The documentation keeps up with the code: every diagnostic code the extension can report has a heading in
// docs/diagnostics.md (the Problems view links to docs/diagnostics.md#<code>), and README.md links each code there.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const repo = path.resolve(__dirname, '..', '..', '..');
const read = (p: string): string => fs.readFileSync(path.join(repo, p), 'utf8');

/** The codes of src/features/findings.ts's FindingCode union and the server's file-level diagnostics. */
function codes(): string[] {
  const union = /export type FindingCode =([^;]+);/.exec(read('src/features/findings.ts'))?.[1] ?? '';
  const server = [...read('src/server/main.ts').matchAll(/fileDiagnostic\('([a-z-]+)'/g)].map((m) => m[1]);
  return [...new Set([...[...union.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]), ...server])].sort();
}

describe('docs', () => {
  it('every diagnostic code has its heading in docs/diagnostics.md', () => {
    const headings = new Set([...read('docs/diagnostics.md').matchAll(/^## ([a-z-]+)$/gm)].map((m) => m[1]));
    assert.ok(codes().length >= 20);
    assert.deepEqual(
      codes().filter((c) => !headings.has(c)),
      [],
    );
  });

  it('README.md links every diagnostic code to its heading', () => {
    const readme = read('README.md');
    assert.deepEqual(
      codes().filter((c) => !readme.includes(`docs/diagnostics.md#${c})`)),
      [],
    );
  });
});
