// Runs the compiled unit tests (out/test/unit/**/*.test.js) with mocha and ends with one plain line
// `N passed, N failed` that CI reads. Exit status 1 on any failure or when no test ran.
import Mocha from 'mocha';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve('out/test/unit');
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.js')) files.push(p);
  }
};
if (fs.existsSync(root)) walk(root);
const mocha = new Mocha({ reporter: process.env.MOCHA_REPORTER ?? 'dot', timeout: 60000 });
for (const f of files.sort()) mocha.addFile(f);
const grep = process.argv[2];
if (grep) mocha.grep(grep);
const runner = mocha.run(() => {
  const stats = runner.stats;
  const skipped = stats.pending ?? 0;
  console.log(`${stats.passes} passed, ${stats.failures} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exitCode = stats.failures > 0 || stats.passes === 0 ? 1 : 0;
});
